//! Fuzzes `starry ingest` on partial logs — the entries a turn mail carries
//! past its recipient's last one — against a local copy of the game. The
//! input picks a log (an example game), how many entries the local copy
//! holds (none: no copy), which entries the mail carries, the number its
//! first entry claims (an extreme one often: 0, 1, 2^32, 2^53, 2^63,
//! 2^64 − 1 and their neighbours), and a few raw edits of the mail's bytes.
//!
//! `ingest_bytes` must never panic (a debug build checks every arithmetic
//! overflow); a refusal leaves the local copy as it was and is safe to
//! print; an accepted mail leaves a local copy that verifies.
//!
//! Run (stable toolchain, no sanitizer, a debug build), from the
//! repository root:
//!   cargo fuzz run ingest_partial fuzz/corpus/ingest_partial --dev -s none -- \
//!     -max_total_time=300
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use starry::games::starry_sky::StarrySky;
use starry::log::Replay;

const LOGS: [&str; 2] = [
    include_str!("../../examples/games/in-progress-4p.jsonl"),
    include_str!("../../examples/games/finished-3p-additive-coins.jsonl"),
];

/// Entry numbers at the edges.
const EXTREME: [u64; 12] = [
    0,
    1,
    2,
    u32::MAX as u64,
    1 << 32,
    (1 << 53) - 1,
    1 << 53,
    i64::MAX as u64,
    1 << 63,
    u64::MAX - 2,
    u64::MAX - 1,
    u64::MAX,
];

#[derive(Arbitrary, Debug)]
enum Number {
    /// As the log has it.
    Kept,
    Extreme(u8),
    Any(u64),
    /// Off by a little from the right one.
    Near(i8),
}

#[derive(Arbitrary, Debug)]
enum Edit {
    Byte { at: u32, value: u8 },
    Cut { at: u32 },
    Insert { at: u32, bytes: Vec<u8> },
}

#[derive(Arbitrary, Debug)]
struct Input {
    log: bool,
    /// Entries of the local copy; 0: there is no copy.
    local: u8,
    /// The mail's entries: from, and how many.
    from: u8,
    count: u8,
    number: Number,
    edits: Vec<Edit>,
}

/// A home and the local copy's path, made once: in memory where there is
/// a memory file system, since every write of a log is synced to disk.
fn place() -> &'static (tempfile::TempDir, PathBuf) {
    static PLACE: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    PLACE.get_or_init(|| {
        let dir = tempfile::tempdir_in("/dev/shm")
            .or_else(|_| tempfile::tempdir())
            .unwrap();
        let copy = dir.path().join("copy.jsonl");
        (dir, copy)
    })
}

fuzz_target!(|input: Input| {
    let lines: Vec<&str> = LOGS[usize::from(input.log)].lines().collect();
    let (dir, copy) = place();
    let home = dir.path().join("home");
    // The local copy: a prefix of the log, or none.
    let local = usize::from(input.local) % (lines.len() + 1);
    let before: Option<Vec<u8>> = (local > 0).then(|| {
        lines[..local]
            .iter()
            .map(|l| format!("{l}\n"))
            .collect::<String>()
            .into_bytes()
    });
    match &before {
        Some(b) => std::fs::write(copy, b).unwrap(),
        None => {
            let _ = std::fs::remove_file(copy);
        }
    }
    // The mail: entries from `from` on (never the genesis: a partial log),
    // the first renumbered.
    let from = 1 + usize::from(input.from) % (lines.len() - 1);
    let to = (from + 1 + usize::from(input.count) % 8).min(lines.len());
    let mut mail = String::new();
    for (i, l) in lines[from..to].iter().enumerate() {
        let n = match (&input.number, i) {
            (_, 1..) | (Number::Kept, _) => None,
            (Number::Extreme(e), _) => Some(EXTREME[usize::from(*e) % EXTREME.len()]),
            (Number::Any(n), _) => Some(*n),
            (Number::Near(d), _) => Some((from as u64).wrapping_add_signed(i64::from(*d))),
        };
        let l = match n {
            Some(n) => l.replacen(&format!("\"n\":{from},"), &format!("\"n\":{n},"), 1),
            None => l.to_string(),
        };
        mail.push_str(&l);
        mail.push('\n');
    }
    let mut mail = mail.into_bytes();
    for e in input.edits.iter().take(4) {
        let at = |at: u32| at as usize % (mail.len() + 1);
        match e {
            Edit::Byte { at: a, value } => {
                let a = at(*a);
                if a < mail.len() {
                    mail[a] = *value;
                }
            }
            Edit::Cut { at: a } => mail.truncate(at(*a)),
            Edit::Insert { at: a, bytes } => {
                let a = at(*a);
                mail.splice(a..a, bytes.iter().take(64).copied());
            }
        }
    }
    match starry::app::ingest::ingest_bytes(&home, &mail, "fuzz.eml", Some(copy)) {
        Ok(_) => {
            let now = std::fs::read(copy).unwrap();
            assert!(
                Replay::<StarrySky>::from_bytes(&now).is_ok(),
                "an accepted mail left a copy that does not verify"
            );
        }
        Err(e) => {
            assert_eq!(
                std::fs::read(copy).ok(),
                before,
                "a refusal changed the local copy: {e}"
            );
            let text = e.to_string();
            assert!(!text.is_empty());
            assert!(
                !text.chars().any(starry::text::is_unsafe),
                "unsafe character in the refusal: {text:?}"
            );
        }
    }
});
