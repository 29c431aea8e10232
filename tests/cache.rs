//! The verified-prefix cache through the real binary: `play`, `status` and
//! `view` trust what this player's program verified before, but only while
//! the log's bytes up to there are unchanged; deleting the cache changes no
//! output; and `audit` never reads it.

use crate::common;

use std::path::{Path, PathBuf};

use common::*;
use sha2::{Digest, Sha256};

fn cache_dir(home: &Path) -> PathBuf {
    home.join("cache/verified")
}

/// The records (`GAME-ID.json`; each has its snapshot `GAME-ID.bin`).
fn records(home: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(cache_dir(home))
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect()
        })
        .unwrap_or_default()
}

fn snapshot_of(record: &Path) -> PathBuf {
    record.with_extension("bin")
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A game of `game` for `n` players, played until it has at least
/// `entries` entries and waits for a move.
fn table(game: &str, n: usize, entries: u64) -> Table {
    let t = Table::new(n);
    // No deadline: the time left, which changes from second to second,
    // would make two readings differ whatever the cache did.
    let out = t.new_game_of(game, &["--deadline", "none"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    t.play_until(|s| s["action"] == "move" && s["entries"].as_u64().unwrap() >= entries);
    t
}

/// What each reading command prints, as the player to act and as another.
fn readings(t: &Table) -> Vec<(Option<usize>, Vec<&'static str>, String)> {
    let s = t.status();
    let to_act = s["to_act"].as_str().map(|e| t.seat_of(e));
    let mut out = Vec::new();
    for seat in [to_act, Some(0), None] {
        for args in [
            vec!["status"],
            vec!["view"],
            vec!["view", "--format", "svg"],
            vec!["play", "--auto", "--dry-run"],
            vec!["history"],
        ] {
            if seat != to_act && args[0] == "play" {
                continue;
            }
            let mut full = args.clone();
            full.insert(1, t.log_str());
            let o = t.starry(seat, &full);
            // Automatic moves are random; the dry run's status is not.
            let text = if args[0] == "play" {
                assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
                String::new()
            } else {
                stdout(&o)
            };
            out.push((seat, args, text));
        }
    }
    out
}

#[test]
fn deleting_the_cache_changes_no_output() {
    // Every registered game, at its fewest seats.
    for e in &starry::games::registry::ALL {
        let (game, n) = (e.name, e.seats.0);
        let t = table(game, n, 12);
        let warm = readings(&t);
        // Every player who read the game has a record of it now.
        for home in &t.homes {
            assert_eq!(records(home).len(), 1, "{game}: {}", home.display());
        }
        let again = readings(&t);
        assert_eq!(warm, again, "{game}: warm twice");
        for home in &t.homes {
            std::fs::remove_dir_all(home.join("cache")).unwrap();
        }
        let cold = readings(&t);
        assert_eq!(warm, cold, "{game}: with the cache and without");
    }
}

#[test]
fn a_play_is_recorded_so_the_next_command_verifies_only_what_is_new() {
    let t = table("starry-sky", 3, 10);
    let s = t.status();
    let who = t.seat_of(s["to_act"].as_str().unwrap());
    let out = t.starry(Some(who), &["play", t.log_str(), "--auto"]);
    assert!(out.status.success());
    let log = std::fs::read(t.log_str()).unwrap();
    let record: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&records(&t.homes[who])[0]).unwrap()).unwrap();
    // The record covers the whole log, the entry just written included.
    assert_eq!(record["bytes"], log.len() as u64);
    assert_eq!(
        record["entries"],
        log.iter().filter(|&&b| b == b'\n').count() as u64
    );
    assert_eq!(record["prefix"], hex::encode(Sha256::digest(&log)));
    let last = log[..log.len() - 1].rsplit(|&b| b == b'\n').next().unwrap();
    assert_eq!(record["last"], hex::encode(Sha256::digest(last)));
}

/// Changes one signature in entry `k` of the log (a valid base64 string of
/// the same length, so only the signature check can tell).
fn forge_signature(log: &Path, k: usize) {
    let text = std::fs::read_to_string(log).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let at = lines[k].find("\"sig\":\"").expect("a signature") + 7;
    let c = lines[k].as_bytes()[at + 5];
    let other = if c == b'A' { "B" } else { "A" };
    lines[k].replace_range(at + 5..at + 6, other);
    std::fs::write(log, lines.join("\n") + "\n").unwrap();
}

#[test]
fn a_changed_prefix_is_verified_in_full() {
    let t = table("starry-sky", 3, 10);
    // Everyone has read the game: their records cover it all.
    for seat in 0..3 {
        assert!(
            t.starry(Some(seat), &["status", t.log_str()])
                .status
                .success()
        );
    }
    forge_signature(Path::new(t.log_str()), 3);
    for seat in 0..3 {
        for args in [
            vec!["status", t.log_str()],
            vec!["view", t.log_str()],
            vec!["play", t.log_str(), "--auto", "--dry-run"],
        ] {
            let out = t.starry(Some(seat), &args);
            assert_eq!(out.status.code(), Some(15), "{args:?}: {}", stdout(&out));
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                err.contains("entry 3 (line 4)") && err.contains("bad signature"),
                "{err}"
            );
        }
    }
    // A line added after the recorded prefix is verified in full too.
    let t = table("starry-night", 2, 8);
    assert!(t.starry(Some(0), &["status", t.log_str()]).status.success());
    let log = Path::new(t.log_str());
    let mut bytes = std::fs::read(log).unwrap();
    let last = bytes[..bytes.len() - 1]
        .rsplit(|&b| b == b'\n')
        .next()
        .unwrap()
        .to_vec();
    bytes.extend_from_slice(&last);
    bytes.push(b'\n');
    std::fs::write(log, &bytes).unwrap();
    let out = t.starry(Some(0), &["status", t.log_str()]);
    assert_eq!(
        out.status.code(),
        Some(13),
        "a duplicated line breaks the chain"
    );
}

#[test]
fn a_damaged_or_foreign_record_is_ignored() {
    let t = table("star-map", 2, 8);
    let before = stdout(&t.starry(Some(0), &["status", t.log_str()]));
    let record = records(&t.homes[0]).pop().unwrap();
    let good = std::fs::read(&record).unwrap();
    for damaged in [
        b"".to_vec(),
        b"not json".to_vec(),
        vec![b'{'; 100_000],
        String::from_utf8_lossy(&good)
            .replace("\"format\":2", "\"format\":3")
            .into_bytes(),
        String::from_utf8_lossy(&good)
            .replace("\"program\":\"starry", "\"program\":\"other")
            .into_bytes(),
    ] {
        std::fs::write(&record, &damaged).unwrap();
        let out = t.starry(Some(0), &["status", t.log_str()]);
        assert!(out.status.success());
        assert_eq!(stdout(&out), before);
    }
    std::fs::write(&record, &good).unwrap();
    // A damaged or replaced snapshot: the record's hash of it fails, and
    // the prefix is replayed instead.
    let snapshot = snapshot_of(&record);
    let intact = std::fs::read(&snapshot).unwrap();
    let mut flipped = intact.clone();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 1;
    for damaged in [Vec::new(), flipped, vec![0xff; 1000]] {
        std::fs::write(&snapshot, &damaged).unwrap();
        let out = t.starry(Some(0), &["status", t.log_str()]);
        assert!(out.status.success());
        assert_eq!(stdout(&out), before);
        // ... and made anew.
        assert_eq!(std::fs::read(&snapshot).unwrap(), intact);
    }
    // A record that claims more entries than its bytes hold is not believed:
    // a forged signature in the log is still found.
    let v: serde_json::Value = serde_json::from_slice(&good).unwrap();
    let mut lie = v.clone();
    lie["entries"] = (v["entries"].as_u64().unwrap() + 1).into();
    std::fs::write(&record, serde_json::to_vec(&lie).unwrap()).unwrap();
    forge_signature(Path::new(t.log_str()), 2);
    let out = t.starry(Some(0), &["status", t.log_str()]);
    assert_eq!(out.status.code(), Some(15));
}

#[test]
fn audit_never_uses_the_cache() {
    let t = table("starry-sky", 3, 10);
    let log = Path::new(t.log_str()).to_path_buf();
    // The last entry: a changed signature changes its id, which a later
    // entry's `prev` would catch without any signature check.
    let last_entry = std::fs::read(&log)
        .unwrap()
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        - 1;
    forge_signature(&log, last_entry);
    // A record made to vouch for the forged log, as only someone who can
    // write to the player's home could: the player's own commands trust it
    // (as git trusts its object store) ...
    let bytes = std::fs::read(&log).unwrap();
    let first = bytes.split(|&b| b == b'\n').next().unwrap();
    let last = bytes[..bytes.len() - 1]
        .rsplit(|&b| b == b'\n')
        .next()
        .unwrap();
    let home = &t.homes[0];
    assert!(t.starry(Some(0), &["audit", t.log_str()]).status.code() == Some(15));
    let genuine = {
        // The format and program stamp are whatever the binary writes for a
        // valid log.
        let u = Table::new(3);
        let out = u.new_game_of("starry-sky", &[]);
        assert!(out.status.success());
        assert!(u.starry(Some(0), &["status", u.log_str()]).status.success());
        let r: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&records(&u.homes[0])[0]).unwrap()).unwrap();
        r
    };
    let record = serde_json::json!({
        "format": genuine["format"],
        "program": genuine["program"],
        "game": hex::encode(Sha256::digest(first)),
        "entries": bytes.iter().filter(|&&b| b == b'\n').count(),
        "bytes": bytes.len(),
        "prefix": hex::encode(Sha256::digest(&bytes)),
        "last": hex::encode(Sha256::digest(last)),
        // No snapshot: the prefix is replayed, trusting its signatures.
        "snapshot": "none",
    });
    std::fs::create_dir_all(cache_dir(home)).unwrap();
    std::fs::write(
        cache_dir(home).join(format!("{}.json", hex::encode(Sha256::digest(first)))),
        record.to_string(),
    )
    .unwrap();
    let out = t.starry(Some(0), &["status", t.log_str()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // ... but an audit proves the game from the log alone.
    let out = t.starry(Some(0), &["audit", t.log_str()]);
    assert_eq!(out.status.code(), Some(15));
    assert!(stdout(&out).contains("bad signature"));
}

/// A snapshot that is there is used: a second reading rewrites nothing
/// (a rewrite replaces the file, so its inode changes), for every game.
#[test]
fn the_snapshot_of_every_game_loads() {
    use std::os::unix::fs::MetadataExt;
    // Every registered game, at its most seats (Star Map's teams).
    for e in &starry::games::registry::ALL {
        let (game, n) = (e.name, e.seats.1);
        let t = table(game, n, 14);
        assert!(t.starry(Some(1), &["status", t.log_str()]).status.success());
        let record = records(&t.homes[1]).pop().unwrap();
        let inode = |p: &Path| std::fs::metadata(p).unwrap().ino();
        let before = (inode(&record), inode(&snapshot_of(&record)));
        for args in [vec!["status"], vec!["view"]] {
            let mut full = args.clone();
            full.push(t.log_str());
            assert!(t.starry(Some(1), &full).status.success());
        }
        let after = (inode(&record), inode(&snapshot_of(&record)));
        assert_eq!(before, after, "{game}: the snapshot was made anew");
    }
}

/// A FIFO where a record or a snapshot belongs is passed over, not waited on.
#[test]
fn a_fifo_in_the_cache_is_passed_over() {
    let t = table("starry-night", 2, 8);
    assert!(t.starry(Some(0), &["status", t.log_str()]).status.success());
    let record = records(&t.homes[0]).pop().unwrap();
    for path in [snapshot_of(&record), record.clone()] {
        std::fs::remove_file(&path).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .unwrap();
        assert!(made.success());
        let out = t.starry(Some(0), &["status", t.log_str()]);
        assert!(out.status.success());
    }
}

/// The cache stays under `STARRY_CACHE_MAX`: once over it, the game used
/// least recently goes first (a record used is as recent as one written),
/// and a game pruned is only verified in full again, with the same output.
#[test]
fn the_cache_keeps_under_its_cap_and_prunes_the_least_recently_used_game() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let logs: Vec<PathBuf> = [
        "finished-3p-additive-coins.jsonl",
        "starry-night-finished-area.jsonl",
        "star-map-4-players-teams.jsonl",
    ]
    .iter()
    .map(|name| {
        let to = dir.path().join(name);
        std::fs::copy(root.join("examples/games").join(name), &to).unwrap();
        to
    })
    .collect();
    let ids: Vec<String> = logs
        .iter()
        .map(|l| {
            let bytes = std::fs::read(l).unwrap();
            hex::encode(Sha256::digest(bytes.split(|&b| b == b'\n').next().unwrap()))
        })
        .collect();
    let status = |log: &Path, cap: Option<&str>| {
        let mut cmd = assert_cmd::Command::cargo_bin("starry").unwrap();
        cmd.env("STARRY_HOME", &home).env_remove("STARRY_CACHE_MAX");
        if let Some(cap) = cap {
            cmd.env("STARRY_CACHE_MAX", cap);
        }
        let out = cmd.arg("status").arg(log).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        stdout(&out)
    };
    let held = || -> Vec<String> {
        let mut games: Vec<String> = records(&home)
            .iter()
            .map(|r| r.file_stem().unwrap().to_string_lossy().into_owned())
            .collect();
        games.sort();
        games
    };
    let bytes = || -> u64 {
        std::fs::read_dir(cache_dir(&home))
            .unwrap()
            .map(|e| e.unwrap().metadata().unwrap().len())
            .sum()
    };
    let sorted = |mut v: Vec<String>| {
        v.sort();
        v
    };
    // Without a cap to speak of (the default), all three are kept.
    let cold: Vec<String> = logs.iter().map(|l| status(l, None)).collect();
    assert_eq!(held(), sorted(ids.clone()));
    let all = bytes();
    // A cap a byte short of all three: one must go.
    std::fs::remove_dir_all(home.join("cache")).unwrap();
    let cap = (all - 1).to_string();
    status(&logs[0], Some(&cap));
    status(&logs[1], Some(&cap));
    assert_eq!(held(), sorted(vec![ids[0].clone(), ids[1].clone()]));
    // Game 0 used again: game 1 is now the least recently used.
    assert_eq!(status(&logs[0], Some(&cap)), cold[0]);
    status(&logs[2], Some(&cap));
    assert_eq!(held(), sorted(vec![ids[0].clone(), ids[2].clone()]));
    assert!(bytes() < all, "over the cap");
    // Game 1, pruned, is verified in full again, prints the same, and is
    // kept in place of game 0, now the least recently used.
    assert_eq!(status(&logs[1], Some(&cap)), cold[1]);
    assert_eq!(held(), sorted(vec![ids[1].clone(), ids[2].clone()]));
    assert!(bytes() < all, "over the cap");
    // A cap of 0 keeps nothing.
    assert_eq!(status(&logs[2], Some("0")), cold[2]);
    assert_eq!(status(&logs[0], Some("0")), cold[0]);
    assert!(held().is_empty());
}
