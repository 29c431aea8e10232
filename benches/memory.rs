//! Peak memory of the release binary on hostile inputs up to the caps,
//! against its baseline (the same command on a small valid game), and the
//! time and memory of `audit DIR` on an archive of forked copies
//! (docs/performance.md, "Memory bounded by the input's size"; issue 31,
//! items 7 and 8). Each command runs as a child process; its peak resident
//! memory is what `wait4` reports for it (`ru_maxrss`).
//!
//!     cargo bench --bench memory

use std::fs;
use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[path = "../tests/common/forked.rs"]
mod forked;

const BIN: &str = env!("CARGO_BIN_EXE_starry");
const MIB: usize = 1024 * 1024;

fn example(name: &str) -> Vec<u8> {
    fs::read(format!(
        "{}/examples/games/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("an example game")
}

fn vector(name: &str) -> Vec<u8> {
    fs::read(format!(
        "{}/tests/vectors/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("a vector")
}

/// Runs `starry ARGS` in `home`: exit code, wall time and peak resident
/// memory in bytes.
fn run(home: &Path, args: &[&str]) -> (i32, Duration, u64) {
    let start = Instant::now();
    let child = Command::new(BIN)
        .args(args)
        .env("STARRY_HOME", home)
        .current_dir(home)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("run starry");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: plain FFI; `rusage` is a C struct of integers for which all
    // zeroes is a valid value, and `wait4` only writes into it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own child, not yet waited for; the pointers are
    // to live locals.
    let got = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(got, pid, "wait4");
    let elapsed = start.elapsed();
    let status = std::process::ExitStatus::from_raw(status);
    // Reaped here: the `Child` must not wait again.
    std::mem::forget(child);
    let code = status
        .code()
        .unwrap_or_else(|| 128 + status.signal().unwrap_or(0));
    (code, elapsed, usage.ru_maxrss as u64 * 1024)
}

/// A log that starts as a valid game and goes on with `tail` up to about
/// `size` bytes.
fn hostile_log(size: usize, tail: &[u8]) -> Vec<u8> {
    let game = example("finished-5p-compound-coins.jsonl");
    // The genesis and the joins: the replay goes as far as it can.
    let head: Vec<u8> = game
        .split_inclusive(|&b| b == b'\n')
        .take(6)
        .flatten()
        .copied()
        .collect();
    let mut log = Vec::with_capacity(size);
    log.extend_from_slice(&head);
    while log.len() + tail.len() <= size {
        log.extend_from_slice(tail);
    }
    log
}

/// A mail as a stranger would send it: the log as a base64 attachment.
fn mail_with(log: &[u8]) -> Vec<u8> {
    use base64::Engine;
    let b64 = base64::engine::general_purpose::STANDARD.encode(log);
    let mut m = Vec::with_capacity(b64.len() * 78 / 76 + 1000);
    m.extend_from_slice(
        b"From: Stranger <stranger@example.net>\r\nTo: Robot <robot@example.org>\r\n\
Subject: a game\r\nMessage-ID: <big@example.net>\r\nMIME-Version: 1.0\r\n\
Content-Type: multipart/mixed; boundary=\"B\"\r\n\r\n--B\r\n\
Content-Type: text/plain\r\n\r\nYour turn.\r\n--B\r\n\
Content-Type: application/x-ndjson; name=\"game.jsonl\"\r\n\
Content-Disposition: attachment; filename=\"game.jsonl\"\r\n\
Content-Transfer-Encoding: base64\r\n\r\n",
    );
    for chunk in b64.as_bytes().chunks(76) {
        m.extend_from_slice(chunk);
        m.extend_from_slice(b"\r\n");
    }
    m.extend_from_slice(b"--B--\r\n");
    m
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

fn main() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let home = dir.path();
    let out = Command::new(BIN)
        .args(["id", "new", "--name", "Ben", "--email", "ben@example.org"])
        .env("STARRY_HOME", home)
        .output()
        .expect("run starry");
    assert!(out.status.success(), "starry id new");

    println!("peak memory (release binary; baseline: the same command on a small valid game)");
    println!(
        "{:<58} {:>6} {:>9} {:>10} {:>10}",
        "input", "exit", "time", "peak MB", "above MB"
    );
    let small = home.join("small.jsonl");
    fs::write(&small, example("finished-5p-compound-coins.jsonl")).unwrap();
    let (_, _, audit_base) = run(home, &["audit", "small.jsonl"]);
    println!(
        "{:<58} {:>6} {:>9} {:>10.1} {:>10}",
        "baseline: audit of a finished 5-player game",
        0,
        "",
        mb(audit_base),
        "-"
    );
    let big = |name: &str, log: &[u8]| {
        let path = home.join(name);
        fs::write(&path, log).unwrap();
        path
    };
    let cap = 64 * MIB;
    let cases: Vec<(String, Vec<u8>)> = vec![
        (
            "audit: 64 MiB, a valid start, then 2-byte lines".into(),
            hostile_log(cap, b"x\n"),
        ),
        (
            "audit: 64 MiB, a valid start, then 3-byte JSON lines".into(),
            hostile_log(cap, b"{}\n"),
        ),
        (
            "audit: 64 MiB, a valid start, then lines of 1 MiB".into(),
            hostile_log(
                cap,
                &[vec![b'['; 1], b"[],".repeat(MIB / 3 - 1), b"[]]\n".to_vec()].concat(),
            ),
        ),
        (
            "audit: 64 MiB, a valid start, then lines of 1 MiB + 1".into(),
            hostile_log(cap, &[vec![b'x'; MIB + 1], b"\n".to_vec()].concat()),
        ),
    ];
    for (what, log) in &cases {
        big("big.jsonl", log);
        let (code, t, peak) = run(home, &["audit", "big.jsonl"]);
        println!(
            "{what:<58} {code:>6} {:>8.2}s {:>10.1} {:>10.1}",
            t.as_secs_f64(),
            mb(peak),
            mb(peak.saturating_sub(audit_base))
        );
    }
    fs::remove_file(home.join("big.jsonl")).ok();

    // A mail of 16 MiB (the mail cap) to `ingest`.
    let small_mail = home.join("small.eml");
    fs::write(&small_mail, mail_with(&vector("short-game.jsonl"))).unwrap();
    let (_, _, ingest_base) = run(home, &["ingest", "small.eml"]);
    println!(
        "{:<58} {:>6} {:>9} {:>10.1} {:>10}",
        "baseline: ingest of a mail with a short game",
        "",
        "",
        mb(ingest_base),
        "-"
    );
    // Base64 and line ends make the mail 4/3 of the log and a bit.
    let log_size = 16 * MIB * 3 / 4 - 64 * 1024;
    for (what, tail) in [
        (
            "ingest: a 16 MiB mail, a valid start, then 2-byte lines",
            b"x\n".as_slice(),
        ),
        (
            "ingest: a 16 MiB mail, a valid start, then 3-byte lines",
            b"{}\n",
        ),
    ] {
        let mail = mail_with(&hostile_log(log_size, tail));
        assert!(mail.len() <= 16 * MIB, "{}", mail.len());
        fs::write(home.join("big.eml"), &mail).unwrap();
        let (code, t, peak) = run(home, &["ingest", "big.eml"]);
        println!(
            "{what:<58} {code:>6} {:>8.2}s {:>10.1} {:>10.1}",
            t.as_secs_f64(),
            mb(peak),
            mb(peak.saturating_sub(ingest_base))
        );
    }

    // `audit DIR` on copies of one game, each with a different entry 6
    // signed by one player (issue 31, item 8).
    println!();
    println!("audit of an archive of forked copies");
    println!(
        "{:<58} {:>6} {:>9} {:>10} {:>10}",
        "archive", "exit", "time", "peak MB", "output KB"
    );
    let all = forked::forked_copies(1000);
    for copies in [500, 1000] {
        let arch = home.join(format!("forks-{copies}"));
        fs::create_dir_all(&arch).unwrap();
        for (i, copy) in all[..copies].iter().enumerate() {
            fs::write(arch.join(format!("copy-{i:04}.jsonl")), copy).unwrap();
        }
        let out_path = home.join("audit-out.txt");
        let start = Instant::now();
        let out = fs::File::create(&out_path).unwrap();
        let child = Command::new(BIN)
            .args(["audit".as_ref(), arch.as_os_str()])
            .env("STARRY_HOME", home)
            .stdout(out)
            .stderr(Stdio::null())
            .spawn()
            .expect("run starry");
        let pid = child.id() as libc::pid_t;
        let mut status = 0;
        // SAFETY: as in `run`.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: as in `run`.
        let got = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        assert_eq!(got, pid);
        std::mem::forget(child);
        let t = start.elapsed();
        let code = std::process::ExitStatus::from_raw(status)
            .code()
            .unwrap_or(-1);
        let size = fs::metadata(&out_path).unwrap().len();
        println!(
            "{:<58} {code:>6} {:>8.2}s {:>10.1} {:>10.1}",
            format!("{copies} copies, each a different entry 6 by one seat"),
            t.as_secs_f64(),
            mb(usage.ru_maxrss as u64 * 1024),
            size as f64 / 1e3
        );
        fs::remove_dir_all(&arch).ok();
    }
    std::io::stdout().flush().ok();
}
