//! The verified-prefix cache: what this player's program has verified
//! before is not verified again, as git trusts its own object store.
//!
//! After a command has verified a log it keeps, in
//! `$STARRY_HOME/cache/verified/`, a record `GAME-ID.json` — how many
//! entries it verified, the SHA-256 of the file's bytes up to the end of the
//! last of them, that entry's id, which program did it — and a snapshot
//! `GAME-ID.bin` of the replay and the story told of those entries. The
//! next `play`, `status`, `view`, `games` or mail of the game hashes the same
//! bytes of the file; if they are unchanged, it starts from the snapshot
//! and verifies in full only the entries after it. Anything else — another
//! program (a new build), a changed, shortened or replaced prefix, a
//! damaged, missing or foreign record or snapshot — and the log is verified
//! in full, as without a cache (when only the snapshot is unusable, the
//! prefix is replayed without its costly checks, [`Check::Known`]).
//!
//! `starry audit` never reads it: an audit proves a game to anybody, from
//! the log alone. The cache is an optimisation only: deleting it changes no
//! output, and nothing in it is secret (the public replay of a log the
//! player holds; no hidden value is ever in a replay). Whoever can write to
//! `$STARRY_HOME` can make this player's program trust a log it should not
//! — but they could as well replace the player's identity; the cache adds
//! no new trust.
//!
//! The cache is kept under a size cap, [`DEFAULT_CAP`] unless
//! `STARRY_CACHE_MAX` says otherwise: after each record written, the games
//! used least recently (a record's modification time, renewed each time it
//! is used) are pruned until records and snapshots fit. A pruned game is
//! only verified in full once more.
//!
//! [`Check::Known`]: crate::log::replay::Check::Known

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::history::{self, Event};
use crate::error::LogFault;
use crate::games::Game;
use crate::log::Replay;

/// Changes when the record's or the snapshot's meaning changes; an older
/// record is ignored.
const FORMAT: u32 = 2;

/// Largest record read: anything larger is not one of ours.
const MAX_RECORD_BYTES: u64 = 4096;

/// Largest snapshot read (as large as the largest log).
const MAX_SNAPSHOT_BYTES: u64 = crate::log::file::MAX_LOG_BYTES;

/// The cache's size cap when `STARRY_CACHE_MAX` does not set one: room for
/// hundreds of games' snapshots (a finished game's is tens of KiB).
pub const DEFAULT_CAP: u64 = 64 << 20;

/// The environment variable that sets the cap: bytes, or a number with
/// `K`, `M` or `G` (KiB, MiB, GiB); 0 keeps no cache.
pub const CAP_VARIABLE: &str = "STARRY_CACHE_MAX";

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
struct Record {
    format: u32,
    /// The program that verified: its version and its executable's size
    /// and time, so that a new build (which may check more, or lay out its
    /// snapshots otherwise) starts afresh.
    program: String,
    /// The game id (hex).
    game: String,
    /// Entries verified.
    entries: u64,
    /// Bytes of the log those entries fill, newlines included.
    bytes: u64,
    /// SHA-256 (hex) of those bytes.
    prefix: String,
    /// Id (hex) of the last entry verified.
    last: String,
    /// SHA-256 (hex) of the snapshot file.
    snapshot: String,
}

/// The replay and story of a whole log, starting from what the cache vouches
/// for; records what it verified.
pub fn tell<G: Game>(bytes: &[u8]) -> Result<(Replay<G>, Vec<Event>), LogFault> {
    let record = lookup(bytes);
    // `lookup` checked that the record's entries are lines of `bytes`.
    let known = record
        .as_ref()
        .and_then(|r| usize::try_from(r.entries).ok())
        .unwrap_or(0);
    let (told, loaded) = match record.as_ref().and_then(load::<G>) {
        Some((r, events)) => (history::tell_on(r, events, bytes, known)?, true),
        None => (history::tell_known(bytes, known)?, false),
    };
    if loaded && let Some(r) = &record {
        touch(&r.game);
    }
    // A damaged snapshot is replaced even when nothing is new.
    if !loaded || told.0.len() > known as u64 {
        store(bytes, &told.0, &told.1);
    }
    Ok(told)
}

/// [`tell`], without the story.
pub fn replay<G: Game>(bytes: &[u8]) -> Result<Replay<G>, LogFault> {
    tell(bytes).map(|(r, _)| r)
}

/// The record for `bytes`, if there is one and it describes them: this
/// program's, this game's, and a prefix of whole lines that hashes as it
/// says.
fn lookup(bytes: &[u8]) -> Option<Record> {
    let text = read_bounded(&record_path(bytes, "json")?, MAX_RECORD_BYTES)?;
    let r: Record = serde_json::from_slice(&text).ok()?;
    if r.format != FORMAT || r.program != program()? || r.game != game_id(bytes)? {
        return None;
    }
    let prefix = bytes.get(..usize::try_from(r.bytes).ok()?)?;
    if prefix.last() != Some(&b'\n')
        || prefix.iter().filter(|&&b| b == b'\n').count() as u64 != r.entries
        || hex::encode(crate::crypto::sha256(prefix)) != r.prefix
    {
        return None;
    }
    let last = prefix[..prefix.len() - 1]
        .rsplit(|&b| b == b'\n')
        .next()
        .unwrap_or_default();
    (hex::encode(crate::crypto::sha256(last)) == r.last).then_some(r)
}

/// The snapshot the record names, if it is intact and of as many entries.
fn load<G: Game>(record: &Record) -> Option<(Replay<G>, Vec<Event>)> {
    let path = cache_dir()?.join(format!("{}.bin", record.game));
    let bytes = read_bounded(&path, MAX_SNAPSHOT_BYTES)?;
    if hex::encode(crate::crypto::sha256(&bytes)) != record.snapshot {
        return None;
    }
    let (r, events): (Replay<G>, Vec<Event>) = postcard::from_bytes(&bytes).ok()?;
    (r.len() == record.entries && events.len() as u64 == record.entries).then_some((r, events))
}

/// Records that `replay` and `events`, made from `bytes`, cover all of them
/// (every line complete and verified), unless a record of as many entries
/// is there already. Fails silently: without a record, the next command
/// verifies in full.
pub fn remember<G: Game>(bytes: &[u8], replay: &Replay<G>, events: &[Event]) {
    let entries = replay.len();
    let lines = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
    if entries == 0 || lines != entries || bytes.last() != Some(&b'\n') {
        return;
    }
    if lookup(bytes).is_some_and(|r| r.entries >= entries) {
        return;
    }
    store(bytes, replay, events);
}

/// Writes the record and snapshot of `replay` and `events`, made from all
/// of `bytes`.
fn store<G: Game>(bytes: &[u8], replay: &Replay<G>, events: &[Event]) {
    let entries = replay.len();
    let lines = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
    if entries == 0 || lines != entries || bytes.last() != Some(&b'\n') {
        return;
    }
    let cap = cap();
    if cap == 0 {
        // No cache kept: what an earlier setting left goes too.
        if let Some(dir) = cache_dir() {
            prune(&dir, 0);
        }
        return;
    }
    let (Some(dir), Some(program), Some(game)) = (cache_dir(), program(), game_id(bytes)) else {
        return;
    };
    let Ok(snapshot) = postcard::to_allocvec(&(replay, events)) else {
        return;
    };
    let last = replay.entries.last().map(|e| e.id).unwrap_or_default();
    let record = Record {
        format: FORMAT,
        program,
        game: game.clone(),
        entries,
        bytes: bytes.len() as u64,
        prefix: hex::encode(crate::crypto::sha256(bytes)),
        last: hex::encode(last),
        snapshot: hex::encode(crate::crypto::sha256(&snapshot)),
    };
    // The snapshot first: a record never names a snapshot not yet written
    // (and one that another process replaced fails its hash).
    let _ = write(&dir.join(format!("{game}.bin")), &snapshot).and_then(|()| {
        write(
            &dir.join(format!("{game}.json")),
            &serde_json::to_vec(&record).unwrap_or_default(),
        )
    });
    prune(&dir, cap);
}

/// The cap on the cache's size in bytes: `STARRY_CACHE_MAX` if it reads
/// as a size, else [`DEFAULT_CAP`].
pub fn cap() -> u64 {
    std::env::var(CAP_VARIABLE)
        .ok()
        .and_then(|v| parse_size(&v))
        .unwrap_or(DEFAULT_CAP)
}

/// `123`, `512K`, `64M`, `1G` (binary units, case-insensitive, an optional
/// `B` or `iB` after the unit); none for anything else or an overflow.
fn parse_size(text: &str) -> Option<u64> {
    let t = text.trim();
    let t = t
        .strip_suffix("iB")
        .or_else(|| t.strip_suffix("ib"))
        .or_else(|| t.strip_suffix(['B', 'b']))
        .unwrap_or(t);
    let (digits, shift) = match t.char_indices().last()? {
        (i, 'k' | 'K') => (&t[..i], 10),
        (i, 'm' | 'M') => (&t[..i], 20),
        (i, 'g' | 'G') => (&t[..i], 30),
        _ => (t, 0),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u64>().ok()?.checked_mul(1 << shift)
}

/// Marks the game's record used now, so that pruning keeps it longest.
fn touch(game: &str) {
    let Some(dir) = cache_dir() else { return };
    if let Ok(f) = std::fs::File::options()
        .write(true)
        .open(dir.join(format!("{game}.json")))
    {
        let _ = f.set_modified(std::time::SystemTime::now());
    }
}

/// Removes the games used least recently until the cache's records and
/// snapshots take at most `cap` bytes. Each game's files go together; a
/// game counts as used when its record was last written or used (or, with
/// no record, its snapshot written). Fails silently, as the cache does.
fn prune(dir: &Path, cap: u64) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    // Per game: bytes held and the time last used.
    let mut games: std::collections::BTreeMap<String, (u64, Option<std::time::SystemTime>)> =
        std::collections::BTreeMap::new();
    for e in entries.filter_map(|e| e.ok()) {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some((game, ext)) = name.rsplit_once('.') else {
            continue;
        };
        if name.starts_with('.') || !matches!(ext, "json" | "bin") {
            continue;
        }
        let Ok(meta) = e.metadata() else { continue };
        if !meta.is_file() {
            continue;
        }
        let g = games.entry(game.to_string()).or_insert((0, None));
        g.0 = g.0.saturating_add(meta.len());
        let time = meta.modified().ok();
        if ext == "json" || g.1.is_none() {
            g.1 = time.or(g.1);
        }
    }
    let mut total = games.values().fold(0u64, |t, g| t.saturating_add(g.0));
    if total <= cap {
        return;
    }
    let mut order: Vec<(Option<std::time::SystemTime>, String, u64)> = games
        .into_iter()
        .map(|(game, (size, time))| (time, game, size))
        .collect();
    order.sort();
    for (_, game, size) in order {
        if total <= cap {
            break;
        }
        // The record first: a snapshot without its record is never used.
        let _ = std::fs::remove_file(dir.join(format!("{game}.json")));
        let _ = std::fs::remove_file(dir.join(format!("{game}.bin")));
        total = total.saturating_sub(size);
    }
}

fn read_bounded(path: &Path, limit: u64) -> Option<Vec<u8>> {
    // Before opening: opening a FIFO would wait for a writer.
    if !std::fs::metadata(path).ok()?.is_file() {
        return None;
    }
    let mut out = Vec::new();
    let file = std::fs::File::open(path).ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    file.take(limit + 1).read_to_end(&mut out).ok()?;
    (out.len() as u64 <= limit).then_some(out)
}

/// Prefix of the cache's temporary files, followed by
/// [`TMP_RANDOM_CHARS`] letters and digits.
const TMP_PREFIX: &str = ".record.";
const TMP_RANDOM_CHARS: usize = 6;

/// Whether `name` is one of the cache's temporary files.
fn is_temporary(name: &std::ffi::OsStr) -> bool {
    name.as_encoded_bytes()
        .strip_prefix(TMP_PREFIX.as_bytes())
        .is_some_and(|r| r.len() == TMP_RANDOM_CHARS && r.iter().all(u8::is_ascii_alphanumeric))
}

/// Replaces `file` atomically; not synced to disk, since a record lost in a
/// crash only costs one full verification, and a damaged one is refused.
/// The temporary files a killed process left in the cache go first once
/// they are older than [`crate::log::file::STALE_AGE`]: no lock guards the
/// cache, so only their age shows that no live process is writing them.
fn write(file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = file.parent().expect("records live in a directory");
    std::fs::create_dir_all(dir)?;
    crate::log::file::remove_old(dir, is_temporary);
    let mut tmp = tempfile::Builder::new()
        .prefix(TMP_PREFIX)
        .rand_bytes(TMP_RANDOM_CHARS)
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.persist(file).map_err(|e| e.error)?;
    Ok(())
}

fn cache_dir() -> Option<PathBuf> {
    let home = crate::crypto::identity::home_dir().ok()?;
    Some(home.join("cache").join("verified"))
}

fn record_path(bytes: &[u8], ext: &str) -> Option<PathBuf> {
    Some(cache_dir()?.join(format!("{}.{ext}", game_id(bytes)?)))
}

/// The game id: the hash of the first line.
fn game_id(bytes: &[u8]) -> Option<String> {
    let end = bytes.iter().position(|&b| b == b'\n')?;
    Some(hex::encode(crate::crypto::sha256(&bytes[..end])))
}

/// This program: version, and the executable's size and modification time.
fn program() -> Option<String> {
    let exe = std::env::current_exe().ok()?;
    let meta = std::fs::metadata(exe).ok()?;
    let time = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    Some(format!(
        "starry {} {} {}.{:09}",
        env!("CARGO_PKG_VERSION"),
        meta.len(),
        time.as_secs(),
        time.subsec_nanos()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_in_bytes_and_binary_units() {
        assert_eq!(parse_size("0"), Some(0));
        assert_eq!(parse_size("4096"), Some(4096));
        assert_eq!(parse_size("512K"), Some(512 << 10));
        assert_eq!(parse_size(" 64M "), Some(64 << 20));
        assert_eq!(parse_size("64MiB"), Some(64 << 20));
        assert_eq!(parse_size("2gb"), Some(2 << 30));
        assert_eq!(parse_size("18446744073709551615"), Some(u64::MAX));
        for bad in [
            "",
            "M",
            "-1",
            "1.5M",
            "64 M",
            "1T",
            "18446744073709551616",
            "17179869184G",
            "0x10",
            "१२",
        ] {
            assert_eq!(parse_size(bad), None, "{bad}");
        }
    }

    #[test]
    fn pruning_removes_the_least_recently_used_games_first() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let at = |s: u64| std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000 + s);
        // Game a used last, b first, c in between; each 100 bytes.
        for (game, used) in [("a", 30), ("b", 10), ("c", 20)] {
            std::fs::write(d.join(format!("{game}.json")), [b'r'; 40]).unwrap();
            std::fs::write(d.join(format!("{game}.bin")), [b's'; 60]).unwrap();
            for ext in ["json", "bin"] {
                let f = std::fs::File::options()
                    .write(true)
                    .open(d.join(format!("{game}.{ext}")))
                    .unwrap();
                // The snapshot's own time does not count.
                f.set_modified(at(if ext == "json" { used } else { 100 - used }))
                    .unwrap();
            }
        }
        // Not the cache's: left alone and not counted.
        std::fs::write(d.join(".record.tmp"), [0; 1000]).unwrap();
        std::fs::write(d.join("notes.txt"), [0; 1000]).unwrap();
        let names = || {
            let mut n: Vec<String> = std::fs::read_dir(d)
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect();
            n.sort();
            n
        };
        prune(d, 300);
        assert_eq!(names().len(), 8, "within the cap: nothing pruned");
        prune(d, 299);
        assert_eq!(
            names(),
            [
                ".record.tmp",
                "a.bin",
                "a.json",
                "c.bin",
                "c.json",
                "notes.txt"
            ]
        );
        prune(d, 150);
        assert_eq!(names(), [".record.tmp", "a.bin", "a.json", "notes.txt"]);
        prune(d, 0);
        assert_eq!(names(), [".record.tmp", "notes.txt"]);
    }
}
