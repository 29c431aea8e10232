//! Shared helpers for tests that run the real binary: a table of players,
//! each with their own STARRY_HOME.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;
use serde_json::Value;

pub mod forked;

pub const NAMES: [&str; 5] = ["Anna", "Ben", "Cleo", "Dan", "Eve"];

pub struct Table {
    pub dir: tempfile::TempDir,
    pub homes: Vec<PathBuf>,
    pub emails: Vec<String>,
    pub log: PathBuf,
    /// A home with no identity: the spectator.
    pub nobody: PathBuf,
}

pub fn starry_in(home: &Path, args: &[&str]) -> Output {
    Command::cargo_bin("starry")
        .unwrap()
        .env("STARRY_HOME", home)
        .args(args)
        .output()
        .unwrap()
}

/// [`starry_in`], failing the test (and killing the process) when it has not
/// ended within `limit`: for a command that must not hang, so that a hang
/// fails its test instead of stopping the suite.
pub fn starry_within(home: &Path, args: &[&str], limit: std::time::Duration) -> Output {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("starry"))
        .env("STARRY_HOME", home)
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("starry {args:?} did not end within {limit:?}: it hangs");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

impl Table {
    /// `n` players, each with an identity made by `starry id new`.
    pub fn new(n: usize) -> Table {
        let dir = tempfile::tempdir().unwrap();
        let homes: Vec<PathBuf> = NAMES[..n]
            .iter()
            .map(|x| dir.path().join(x.to_lowercase()))
            .collect();
        let emails: Vec<String> = NAMES[..n]
            .iter()
            .map(|x| format!("{}@example.org", x.to_lowercase()))
            .collect();
        for ((name, home), email) in NAMES.iter().zip(&homes).zip(&emails) {
            let out = starry_in(home, &["id", "new", "--name", name, "--email", email]);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let nobody = dir.path().join("nobody");
        std::fs::create_dir_all(&nobody).unwrap();
        let log = dir.path().join("game.jsonl");
        Table {
            dir,
            homes,
            emails,
            log,
            nobody,
        }
    }

    pub fn log_str(&self) -> &str {
        self.log.to_str().unwrap()
    }

    /// Runs starry as `seat` (None: someone with no identity).
    pub fn starry(&self, seat: Option<usize>, args: &[&str]) -> Output {
        let home = seat.map_or(&self.nobody, |s| &self.homes[s]);
        starry_in(home, args)
    }

    /// Runs starry and parses its JSON output, requiring success.
    pub fn json(&self, seat: Option<usize>, args: &[&str]) -> Value {
        let out = self.starry(seat, args);
        assert!(
            out.status.success(),
            "starry {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    pub fn status(&self) -> Value {
        self.json(None, &["status", self.log_str(), "--json"])
    }

    pub fn seat_of(&self, email: &str) -> usize {
        self.emails.iter().position(|e| e == email).unwrap()
    }

    /// `starry new starry-sky --players PLAYERS --out LOG EXTRA…` as seat 0.
    pub fn new_game(&self, players: &str, extra: &[&str]) -> Output {
        let mut args = vec![
            "new",
            "starry-sky",
            "--players",
            players,
            "--out",
            self.log_str(),
        ];
        args.extend_from_slice(extra);
        self.starry(Some(0), &args)
    }

    /// Seat 0 creates a Starry Sky game with these variants.
    pub fn create(&self, variants: &[&str]) {
        let args: Vec<&str> = variants.iter().flat_map(|v| ["--variant", v]).collect();
        self.create_game("starry-sky", &args);
    }

    /// `starry new GAME --players (everyone) --out LOG EXTRA…` as seat 0.
    pub fn new_game_of(&self, game: &str, extra: &[&str]) -> Output {
        let players = self.emails.join(",");
        let mut args = vec!["new", game, "--players", &players, "--out", self.log_str()];
        args.extend_from_slice(extra);
        self.starry(Some(0), &args)
    }

    /// Seat 0 creates a game of `game` for every player at the table, with
    /// extra arguments (variants, a sky), requiring success.
    pub fn create_game(&self, game: &str, extra: &[&str]) {
        let out = self.new_game_of(game, extra);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Runs `args` as `seat`, requiring success, and returns standard output.
    pub fn ok(&self, seat: usize, args: &[&str]) -> String {
        let out = self.starry(Some(seat), args);
        assert!(
            out.status.success(),
            "starry {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Plays `play --auto` as whoever must act until `stop(status)`.
    /// `play TEXT` (and its dry run) as `seat` is wrong use, exit 2, on one
    /// line naming each of `says`; the log stays byte for byte as it was.
    /// Returns the message.
    pub fn notation_refused(&self, seat: usize, text: &str, says: &[&str]) -> String {
        let before = std::fs::read(&self.log).unwrap();
        let mut last = String::new();
        for dry in [false, true] {
            let mut args = vec!["play", self.log_str(), text];
            if dry {
                args.push("--dry-run");
            }
            let out = self.starry(Some(seat), &args);
            let err = String::from_utf8_lossy(&out.stderr).into_owned();
            assert_eq!(out.status.code(), Some(2), "{text:?}: {err}");
            assert!(out.stdout.is_empty(), "{text:?}");
            assert!(!err.contains("panicked"), "{err}");
            assert!(
                err.starts_with("error: ") && err.trim_end().lines().count() == 1,
                "one paragraph: {err}"
            );
            for s in says {
                assert!(err.contains(s), "{text:?}: `{s}` not in: {err}");
            }
            assert_eq!(std::fs::read(&self.log).unwrap(), before, "{text:?}");
            last = err;
        }
        last
    }

    pub fn play_until(&self, stop: impl Fn(&Value) -> bool) -> Value {
        loop {
            let s = self.status();
            if stop(&s) || s["over"] == true {
                return s;
            }
            let who = self.seat_of(s["to_act"].as_str().unwrap());
            let out = self.starry(Some(who), &["play", self.log_str(), "--auto"]);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

/// The validator of a checked-in schema, `schemas/NAME`.
pub fn validator(name: &str) -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("schemas")
        .join(name);
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::validator_for(&schema).unwrap()
}

/// The input is refused as wrong use (exit 2), with one short paragraph on
/// standard error — no panic, no raw control or text-direction character —
/// that mentions each of `mentions`; returns that paragraph.
pub fn assert_refused(out: &Output, mentions: &[&str]) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert!(out.stdout.is_empty(), "nothing on standard output");
    assert!(
        out.stderr.len() < 400,
        "{} bytes of stderr: {}",
        out.stderr.len(),
        starry::text::excerpt_of(&err, 500)
    );
    assert!(!err.contains("panicked"), "{err}");
    let body = err.strip_suffix('\n').unwrap_or(&err);
    assert!(
        !body.chars().any(starry::text::is_unsafe),
        "raw control characters in {body:?}"
    );
    assert!(err.starts_with("error: "), "{err}");
    for m in mentions {
        assert!(err.contains(m), "`{m}` not mentioned in: {err}");
    }
    err
}

impl Table {
    /// `view --json --at N` for every entry N of the log validates against
    /// `schemas/SCHEMA`; returns that schema's validator.
    pub fn assert_every_view_valid(&self, schema: &str) -> jsonschema::Validator {
        let v = validator(schema);
        let entries = std::fs::read_to_string(&self.log).unwrap().lines().count();
        for n in 0..entries {
            let full = self.json(
                None,
                &["view", self.log_str(), "--json", "--at", &n.to_string()],
            );
            let errors: Vec<String> = v.iter_errors(&full).map(|e| e.to_string()).collect();
            assert!(errors.is_empty(), "{schema}, entry {n}: {errors:?}");
        }
        v
    }
}

/// Compares `got` with the golden file `path` byte for byte, naming the
/// first line that differs; with STARRY_BLESS set, writes it instead.
/// `test` names the test target that blesses it.
pub fn check_golden(path: &Path, got: &str, test: &str) {
    if std::env::var_os("STARRY_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e} (STARRY_BLESS=1 writes it)", path.display()));
    if want != got {
        let line = want
            .lines()
            .zip(got.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(want.lines().count().min(got.lines().count()));
        panic!(
            "{} differs from this run, first at line {}:\n  golden: {:?}\n  now:    {:?}\n\
             (review the change; STARRY_BLESS=1 cargo test --test suite {test}:: accepts it)",
            path.display(),
            line + 1,
            want.lines().nth(line),
            got.lines().nth(line)
        );
    }
}

/// The games of `starry audit --json`: one JSON object per line.
pub fn audit_games(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// A home for an example player (examples/games/identities/WHO) outside
/// the work tree: their identity copied into a fresh temporary directory,
/// so that what starry keeps there (the verified-prefix cache, records of
/// games) never lands in the repository.
pub fn example_home(who: &str) -> PathBuf {
    let home = tempfile::tempdir().unwrap().keep();
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/games/identities")
        .join(who)
        .join("identity.json");
    std::fs::copy(&from, home.join("identity.json")).unwrap();
    home
}
