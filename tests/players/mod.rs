//! Players for the turn-exchange tests: each has an identity in their own
//! STARRY_HOME and their own mail settings, and runs the real binary. The
//! test process's own STARRY_* mail variables never reach the binary.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;
use base64::Engine;
use serde_json::Value;
use starry::crypto::identity::Identity;
use starry::games::starry_sky::StarrySky;
use starry::log::Replay;

pub const NAMES: [&str; 5] = ["Anna", "Ben", "Cleo", "Dan", "Eve"];

pub struct Player {
    pub name: String,
    pub email: String,
    pub home: PathBuf,
    /// Extra environment (mail settings) for every command.
    pub env: Vec<(String, String)>,
}

pub struct Players {
    pub dir: tempfile::TempDir,
    pub p: Vec<Player>,
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

impl Players {
    /// `n` players, each with an identity made by `starry id new`.
    pub fn new(n: usize) -> Players {
        let dir = tempfile::tempdir().unwrap();
        let p: Vec<Player> = NAMES[..n]
            .iter()
            .map(|name| Player {
                name: name.to_string(),
                email: format!("{}@example.org", name.to_lowercase()),
                home: dir.path().join(name.to_lowercase()),
                env: Vec::new(),
            })
            .collect();
        for pl in &p {
            let out = pl.run(&["id", "new", "--name", &pl.name, "--email", &pl.email]);
            assert!(out.status.success(), "{}", stderr(&out));
        }
        Players { dir, p }
    }

    /// `--players`: `Name <email>,…`.
    pub fn emails(&self) -> String {
        self.p
            .iter()
            .map(|p| format!("{} <{}>", p.name, p.email))
            .collect::<Vec<_>>()
            .join(",")
    }

    pub fn seat_of(&self, email: &str) -> usize {
        self.p
            .iter()
            .position(|p| p.email.eq_ignore_ascii_case(email))
            .unwrap_or_else(|| panic!("no player {email}"))
    }

    pub fn set_env(&mut self, pairs: &[(&str, &str)]) {
        for p in &mut self.p {
            for (k, v) in pairs {
                p.env.push((k.to_string(), v.to_string()));
            }
        }
    }
}

impl Player {
    pub fn command(&self) -> Command {
        let mut c = Command::cargo_bin("starry").unwrap();
        for v in starry::mail::transport::ENV_VARS {
            c.env_remove(v);
        }
        c.env("STARRY_HOME", &self.home);
        for (k, v) in &self.env {
            c.env(k, v);
        }
        c
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.command().args(args).output().unwrap()
    }

    pub fn run_env(&self, env: &[(&str, &str)], args: &[&str]) -> Output {
        let mut c = self.command();
        for (k, v) in env {
            c.env(k, v);
        }
        c.args(args).output().unwrap()
    }

    pub fn run_stdin(&self, input: &[u8], args: &[&str]) -> Output {
        self.command()
            .args(args)
            .write_stdin(input.to_vec())
            .output()
            .unwrap()
    }

    /// Runs and parses the JSON output, requiring success.
    pub fn json(&self, args: &[&str]) -> Value {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "{} ran starry {args:?}: {}{}",
            self.name,
            stderr(&out),
            stdout(&out)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// This player's copy of a game in their games directory.
    pub fn copy_of(&self, game_id: &str) -> PathBuf {
        self.home.join("games").join(format!("{game_id}.jsonl"))
    }

    /// The `.eml` files in this player's outbox, oldest first.
    pub fn outbox(&self) -> Vec<PathBuf> {
        eml_files(&self.home.join("outbox"))
    }

    /// The `.eml` files waiting in this player's pending folder.
    pub fn pending(&self) -> Vec<PathBuf> {
        eml_files(&self.home.join("pending"))
    }
}

pub fn eml_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| {
            d.map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|x| x == "eml"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Every file under `dir`, recursively.
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(d) = std::fs::read_dir(dir) {
        for e in d {
            let p = e.unwrap().path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Every file under `dir` with its bytes: to prove a command changed nothing.
pub fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    walk(dir)
        .into_iter()
        .map(|p| {
            let b = std::fs::read(&p).unwrap();
            (p, b)
        })
        .collect()
}

/// Every way a 32-byte secret might be written down.
pub fn encodings(b: &[u8]) -> Vec<String> {
    use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
    vec![
        hex::encode(b),
        hex::encode_upper(b),
        STANDARD.encode(b),
        STANDARD_NO_PAD.encode(b),
        URL_SAFE.encode(b),
        URL_SAFE_NO_PAD.encode(b),
    ]
}

/// Secrets of `seat` (whose identity is in `home`) that must not be visible:
/// the master secret, the per-game secret, the salts of its commitments not
/// yet revealed, and its next beacon link.
pub fn secrets_of(home: &Path, log: &[u8], seat: usize) -> Vec<Vec<u8>> {
    secrets_in::<StarrySky>(home, log, seat)
}

/// [`secrets_of`] for a game of `G`.
pub fn secrets_in<G: starry::games::Game>(home: &Path, log: &[u8], seat: usize) -> Vec<Vec<u8>> {
    let id = Identity::load(home).unwrap();
    let file: Value =
        serde_json::from_str(&std::fs::read_to_string(home.join("identity.json")).unwrap())
            .unwrap();
    let master = base64::engine::general_purpose::STANDARD
        .decode(file["secret"].as_str().unwrap())
        .unwrap();
    let mut out = vec![master];
    let r = Replay::<G>::from_bytes(log).unwrap();
    let Some(secret) = r.game_secret(&id, seat) else {
        return out;
    };
    out.push(secret.to_vec());
    if let Some(l) = r.next_link(&secret, seat) {
        out.push(l.to_vec());
    }
    let own = r.own_hidden(&secret, seat).unwrap();
    for at in own.hidden.keys() {
        out.push(starry::crypto::commitment::salt(&secret, at.entry, at.slot).to_vec());
    }
    out
}

/// The decoded text part(s) of a mail.
pub fn mail_text(eml: &[u8]) -> String {
    let m = mail_parser::MessageParser::default().parse(eml).unwrap();
    (0..m.text_body_count())
        .filter_map(|i| m.body_text(i).map(|t| t.to_string()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// (To address, Subject, From address) of a mail.
pub fn mail_headers(eml: &[u8]) -> (String, String, String) {
    let m = mail_parser::MessageParser::default().parse(eml).unwrap();
    let to = m
        .to()
        .and_then(|a| a.first())
        .and_then(|a| a.address())
        .unwrap_or_default()
        .to_string();
    let from = m
        .from()
        .and_then(|a| a.first())
        .and_then(|a| a.address())
        .unwrap_or_default()
        .to_string();
    (to, m.subject().unwrap_or_default().to_string(), from)
}

/// The face-down tokens a seat sees as their own in `view --json`: the
/// labels of those stars.
pub fn own_face_down(view: &Value) -> Vec<String> {
    let mut v = Vec::new();
    for slot in view["view"]["slots"].as_array().into_iter().flatten() {
        for star in slot["board"]["stars"].as_array().into_iter().flatten() {
            if star["occupant"]["face"] == "face-down-own" {
                v.push(star["label"].as_str().unwrap().to_string());
            }
        }
    }
    v
}

/// Runs `git` in `dir`, requiring success; returns its stdout.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("run git");
    assert!(
        out.status.success(),
        "git {args:?} in {}: {}",
        dir.display(),
        stderr(&out)
    );
    stdout(&out)
}
