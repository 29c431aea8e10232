//! `starry sync` against a real Dovecot (tests/imap_server) holding 10,000
//! unrelated mails and 20 starry mails (invitations to 20 games, each the
//! whole log of a game made by `starry::app::generate`):
//!
//! - `first`: a first sync (no bookmark, no games): the server searches the
//!   10,020 mails, the 20 are fetched, verified, stored and moved;
//! - `nothing_new`: a sync when nothing arrived since the last one.
//!
//! The release binary is run as a player runs it, over IMAPS with the test
//! CA. Needs Dovecot (`sh tests/support/imap/install.sh`).
//!
//!     cargo bench --bench sync

#[path = "../tests/imap_server/mod.rs"]
mod imap_server;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use divan::Bencher;
use imap_server::Dovecot;

fn main() {
    if !imap_server::available_or_skip() {
        return;
    }
    world();
    divan::main();
}

const BIN: &str = env!("CARGO_BIN_EXE_starry");
const USER: &str = "anna@example.org";
const PASSWORD: &str = "Bench-Imap-Pa55-Quartz";
const UNRELATED: usize = 10_000;
const STARRY: usize = 20;

struct World {
    dovecot: Dovecot,
    home: tempfile::TempDir,
    mails: Vec<Vec<u8>>,
}

fn world() -> &'static World {
    static W: OnceLock<World> = OnceLock::new();
    W.get_or_init(|| {
        let dovecot = Dovecot::start(&[(USER, PASSWORD)]);
        let t = std::time::Instant::now();
        dovecot.fill(USER, UNRELATED);
        eprintln!("{UNRELATED} unrelated mails written in {:?}", t.elapsed());
        let home = tempfile::tempdir().unwrap();
        let archive = tempfile::tempdir().unwrap();
        let ids = starry::app::generate::identities(&archive.path().join("ids"), 5).expect("ids");
        let plans = starry::app::generate::plans(STARRY, [7; 32]);
        let games = archive.path().join("games");
        starry::app::generate::archive(&games, &ids, &plans).expect("games");
        let mut logs: Vec<PathBuf> = std::fs::read_dir(&games)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        logs.sort();
        let mails = logs
            .iter()
            .take(STARRY)
            .enumerate()
            .map(|(i, p)| invitation(i, &std::fs::read(p).unwrap()))
            .collect();
        World {
            dovecot,
            home,
            mails,
        }
    })
}

/// A mail carrying a whole log, armored in its text, as a player pastes
/// one (the attachment form is tested elsewhere; either is found by the
/// server's search and read by ingest).
fn invitation(i: usize, log: &[u8]) -> Vec<u8> {
    format!(
        "From: Ben <ben@example.org>\r\nTo: Anna <{USER}>\r\nSubject: [starry] game {i}\r\n\
         Message-ID: <bench.{i}@example.org>\r\nDate: Thu, 26 Nov 2026 10:00:00 +0000\r\n\
         MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nA game.\r\n\r\n{}\r\n",
        starry::mail::armor(log).replace('\n', "\r\n")
    )
    .into_bytes()
}

fn sync(w: &World) {
    let out = Command::new(BIN)
        .arg("sync")
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("STARRY_HOME", w.home.path())
        .env("STARRY_IMAP_HOST", "localhost")
        .env("STARRY_IMAP_PORT", w.dovecot.imaps_port().to_string())
        .env("STARRY_IMAP_USER", USER)
        .env("STARRY_IMAP_PASSWORD", PASSWORD)
        .env("STARRY_IMAP_CA_FILE", w.dovecot.ca_file())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The 20 starry mails in the inbox again, and a home that never synced.
fn fresh(w: &World) {
    for m in &w.mails {
        w.dovecot.deliver(USER, m);
    }
    let _ = std::fs::remove_dir_all(w.home.path().join("sync"));
    let _ = std::fs::remove_dir_all(w.home.path().join("games"));
    let _ = std::fs::remove_dir_all(w.home.path().join("cache"));
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn first(b: Bencher) {
    let w = world();
    b.with_inputs(|| fresh(w)).bench_values(|()| sync(w));
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn nothing_new(b: Bencher) {
    let w = world();
    fresh(w);
    sync(w);
    b.bench(|| sync(w));
}
