//! Shared helpers for tests that run the real binary: a table of players,
//! each with their own STARRY_HOME.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;
use serde_json::Value;

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
