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

/// Runs `starry ARGS` with `STARRY_HOME=home`: exit code, wall time and
/// peak resident memory in bytes. (No `current_dir`, and the bench holds
/// no input in memory when it starts a child: a child made by `fork`
/// would count the bench's own memory as its peak.)
fn run(home: &Path, args: &[&std::ffi::OsStr]) -> (i32, Duration, u64) {
    let start = Instant::now();
    let child = Command::new(BIN)
        .args(args)
        .env("STARRY_HOME", home)
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

/// Writes to `out` a log that starts as a valid game and goes on with
/// `tail` again and again, up to at most `size` bytes.
fn hostile_log(out: &mut dyn Write, size: usize, tail: &[u8]) {
    let game = example("finished-5p-compound-coins.jsonl");
    // The genesis and the joins: the replay goes as far as it can.
    let head: Vec<u8> = game
        .split_inclusive(|&b| b == b'\n')
        .take(6)
        .flatten()
        .copied()
        .collect();
    out.write_all(&head).unwrap();
    let mut len = head.len();
    while len + tail.len() <= size {
        out.write_all(tail).unwrap();
        len += tail.len();
    }
}

fn write_hostile_log(path: &Path, size: usize, tail: &[u8]) {
    let mut f = std::io::BufWriter::new(fs::File::create(path).unwrap());
    hostile_log(&mut f, size, tail);
    f.flush().unwrap();
}

/// A mail as a stranger would send it, written to `path`: the log that
/// `log` writes, as a base64 attachment in lines of 76 characters.
fn write_mail(path: &Path, log: impl FnOnce(&mut dyn Write)) {
    let mut out = std::io::BufWriter::new(fs::File::create(path).unwrap());
    out.write_all(
        b"From: Stranger <stranger@example.net>\r\nTo: Robot <robot@example.org>\r\n\
Subject: a game\r\nMessage-ID: <big@example.net>\r\nMIME-Version: 1.0\r\n\
Content-Type: multipart/mixed; boundary=\"B\"\r\n\r\n--B\r\n\
Content-Type: text/plain\r\n\r\nYour turn.\r\n--B\r\n\
Content-Type: application/x-ndjson; name=\"game.jsonl\"\r\n\
Content-Disposition: attachment; filename=\"game.jsonl\"\r\n\
Content-Transfer-Encoding: base64\r\n\r\n",
    )
    .unwrap();
    let mut body = Base64Lines {
        pending: Vec::new(),
        out: &mut out,
    };
    log(&mut body);
    body.finish();
    out.write_all(b"--B--\r\n").unwrap();
    out.flush().unwrap();
}

/// Base64 in lines of 76 characters (57 bytes each), written as it comes,
/// so that the bench never holds a whole input (see [`run`]).
struct Base64Lines<'a, W: Write> {
    pending: Vec<u8>,
    out: &'a mut W,
}

impl<W: Write> Base64Lines<'_, W> {
    fn line(&mut self, bytes: &[u8]) {
        use base64::Engine;
        let text = base64::engine::general_purpose::STANDARD.encode(bytes);
        self.out.write_all(text.as_bytes()).unwrap();
        self.out.write_all(b"\r\n").unwrap();
    }

    fn finish(mut self) {
        let rest = std::mem::take(&mut self.pending);
        if !rest.is_empty() {
            self.line(&rest);
        }
    }
}

impl<W: Write> Write for Base64Lines<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.pending.extend_from_slice(buf);
        let whole = self.pending.len() / 57 * 57;
        let ready: Vec<u8> = self.pending.drain(..whole).collect();
        for chunk in ready.chunks(57) {
            self.line(chunk);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
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
    let (_, _, audit_base) = run(home, &["audit".as_ref(), small.as_os_str()]);
    println!(
        "{:<58} {:>6} {:>9} {:>10.1} {:>10}",
        "baseline: audit of a finished 5-player game",
        0,
        "",
        mb(audit_base),
        "-"
    );
    let cap = starry::log::file::MAX_LOG_BYTES as usize;
    let json_line = [b"[".as_slice(), &b"[],".repeat(MIB / 3 - 1), b"[]]\n"].concat();
    let long_line = [vec![b'x'; MIB + 1], b"\n".to_vec()].concat();
    let cases: [(&str, &[u8]); 4] = [
        ("audit: 32 MiB, a valid start, then 2-byte lines", b"x\n"),
        (
            "audit: 32 MiB, a valid start, then 3-byte JSON lines",
            b"{}\n",
        ),
        (
            "audit: 32 MiB, a valid start, then JSON lines of 1 MiB",
            &json_line,
        ),
        (
            "audit: 32 MiB, a valid start, then lines of 1 MiB + 1",
            &long_line,
        ),
    ];
    let big = home.join("big.jsonl");
    for (what, tail) in cases {
        write_hostile_log(&big, cap, tail);
        let (code, t, peak) = run(home, &["audit".as_ref(), big.as_os_str()]);
        println!(
            "{what:<58} {code:>6} {:>8.2}s {:>10.1} {:>10.1}",
            t.as_secs_f64(),
            mb(peak),
            mb(peak.saturating_sub(audit_base))
        );
    }
    drop((json_line, long_line));
    fs::remove_file(&big).ok();

    // A mail of 16 MiB (the mail cap) to `ingest`.
    let small_mail = home.join("small.eml");
    write_mail(&small_mail, |out| {
        out.write_all(&vector("short-game.jsonl")).unwrap();
    });
    let (_, _, ingest_base) = run(home, &["ingest".as_ref(), small_mail.as_os_str()]);
    println!(
        "{:<58} {:>6} {:>9} {:>10.1} {:>10}",
        "baseline: ingest of a mail with a short game",
        "",
        "",
        mb(ingest_base),
        "-"
    );
    // Base64 (4/3) in lines of 76 characters and CRLF.
    let log_size = 16 * MIB / 4 * 3 / 78 * 76 - 64 * 1024;
    let big_mail = home.join("big.eml");
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
        write_mail(&big_mail, |out| hostile_log(out, log_size, tail));
        let size = fs::metadata(&big_mail).unwrap().len();
        assert!(size <= 16 * MIB as u64, "{size}");
        let (code, t, peak) = run(home, &["ingest".as_ref(), big_mail.as_os_str()]);
        println!(
            "{what:<58} {code:>6} {:>8.2}s {:>10.1} {:>10.1}",
            t.as_secs_f64(),
            mb(peak),
            mb(peak.saturating_sub(ingest_base))
        );
    }
    fs::remove_file(&big_mail).ok();

    // `audit DIR` on copies of one game, each with a different entry 6
    // signed by one player (issue 31, item 8).
    println!();
    println!("audit of an archive of forked copies");
    println!(
        "{:<58} {:>6} {:>9} {:>10} {:>10}",
        "archive", "exit", "time", "peak MB", "output KB"
    );
    for copies in [500, 1000] {
        let arch = home.join(format!("forks-{copies}"));
        fs::create_dir_all(&arch).unwrap();
        for (i, copy) in forked::forked_copies(copies).iter().enumerate() {
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
