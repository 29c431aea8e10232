//! The files starry reads and writes, through the real binary: a read-only
//! log is never replaced, a killed writer's temporary file is cleaned up and
//! never taken for a log, a huge file is refused without being read whole,
//! and a closed pipe (`starry … | head`) ends the output quietly.

use crate::common;

use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

fn listing(d: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    v.sort();
    v
}

/// A 3-player game just created; returns the table and who must act.
fn new_game() -> (Table, usize) {
    let t = Table::new(3);
    t.create(&[]);
    let s = t.status();
    let who = t.seat_of(s["to_act"].as_str().unwrap());
    (t, who)
}

fn entries(t: &Table) -> u64 {
    t.status()["entries"].as_u64().unwrap()
}

#[cfg(unix)]
fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).unwrap().permissions().mode() & 0o7777
}

#[cfg(unix)]
fn set_mode(p: &Path, m: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap();
}

/// The owner's write bit is what counts (the tests may run as root, who
/// could write the file anyway): cleared, the log is refused before
/// anything is written, with a message saying what to do; reading and a
/// dry run still work.
#[cfg(unix)]
#[test]
fn a_read_only_log_is_never_replaced() {
    let (t, who) = new_game();
    let before = std::fs::read(&t.log).unwrap();
    let files_before = listing(t.dir.path());
    let n = entries(&t);
    for m in [0o444, 0o464, 0o400] {
        set_mode(&t.log, m);
        let out = t.starry(Some(who), &["play", t.log_str(), "--auto"]);
        assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains("read-only") && err.contains("chmod u+w") && err.contains("game.jsonl"),
            "{err}"
        );
        assert!(!err.contains("panicked"), "{err}");
        assert_eq!(std::fs::read(&t.log).unwrap(), before, "mode {m:o}");
        assert_eq!(mode(&t.log), m, "the mode is kept");
        assert_eq!(listing(t.dir.path()), files_before, "no stray file");

        // Reading is fine, and so is a dry run.
        assert_eq!(entries(&t), n);
        let out = t.starry(Some(who), &["play", t.log_str(), "--auto", "--dry-run"]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(std::fs::read(&t.log).unwrap(), before);
    }
    set_mode(&t.log, 0o644);
    let out = t.starry(Some(who), &["play", t.log_str(), "--auto"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(entries(&t), n + 1);
    assert_eq!(mode(&t.log), 0o644);
}

/// A writer killed midway leaves `.starry-NAME.RANDOM.tmp` beside the log:
/// the next writer of that log removes it (and only its own log's), and no
/// command takes it for a log.
#[test]
fn a_stale_temporary_file_is_removed_and_never_read_as_a_log() {
    let (t, who) = new_game();
    let stale = t.dir.path().join(".starry-game.jsonl.k1LLed0000.tmp");
    let not_ours = t.dir.path().join(".starry-other.jsonl.k1LLed0000.tmp");
    let half = &std::fs::read(&t.log).unwrap()[..50];
    std::fs::write(&stale, half).unwrap();
    std::fs::write(&not_ours, half).unwrap();

    // Reading commands leave it (they hold no lock) and ignore it.
    let n = entries(&t);
    assert!(stale.exists());
    for args in [
        vec!["status", stale.to_str().unwrap()],
        vec!["audit", stale.to_str().unwrap()],
        vec!["play", stale.to_str().unwrap(), "--auto"],
    ] {
        let out = t.starry(Some(who), &args);
        assert!(!out.status.success(), "{args:?}");
        let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
        assert!(all.contains("temporary file"), "{args:?}: {all}");
    }

    let out = t.starry(Some(who), &["play", t.log_str(), "--auto"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stale.exists(), "the stale temporary file is removed");
    assert!(
        not_ours.exists(),
        "another log's temporary file is left alone"
    );
    assert_eq!(entries(&t), n + 1);
    assert_eq!(
        listing(t.dir.path())
            .iter()
            .filter(|n| n.starts_with(".starry-game.jsonl."))
            .count(),
        0
    );
}

/// `starry status ID` looks the game up in the games directory; a stale
/// temporary file of that game beside it is not a second candidate.
#[test]
fn games_directory_lookup_ignores_temporary_files() {
    let (t, _) = new_game();
    let s = t.status();
    let id = s["game_id"].as_str().unwrap().to_string();
    let home = &t.homes[0];
    let games = home.join("games");
    // `new --out` linked the game into the games directory already.
    let link = games.join(format!("{id}.jsonl"));
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    std::fs::write(
        games.join(format!(".starry-{id}.jsonl.AbCdEf1234.tmp")),
        b"{",
    )
    .unwrap();
    std::fs::write(games.join(format!("{id}.jsonl.AbCdEf1234.tmp")), b"{").unwrap();
    let out = starry_in(home, &["status", &id[..16], "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["game_id"], id.as_str());
}

fn big_file(dir: &Path, len: u64) -> PathBuf {
    let p = dir.join("big.jsonl");
    let f = std::fs::File::create(&p).unwrap();
    // Sparse: instant to make, and reading it whole would still take a
    // while and 33 MiB of memory.
    f.set_len(len).unwrap();
    p
}

/// A file larger than 32 MiB is refused at once, by every command, with a
/// message that says why; nothing is read and nothing is written.
#[test]
fn a_huge_file_is_refused_quickly() {
    let (t, who) = new_game();
    let big = big_file(t.dir.path(), 33 * 1024 * 1024);
    let p = big.to_str().unwrap();
    for (args, seat) in [
        (vec!["status", p], None),
        (vec!["view", p], None),
        (vec!["play", p, "--auto"], Some(who)),
    ] {
        let start = Instant::now();
        let out = t.starry(seat, &args);
        assert!(start.elapsed() < Duration::from_secs(10), "{args:?}");
        assert_eq!(out.status.code(), Some(3), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains("big.jsonl")
                && err.contains("33.0 MiB")
                && err.contains("never larger than 32 MiB")
                && err.contains("not a starry log"),
            "{err}"
        );
        assert!(err.len() < 1000, "{err}");
    }
    let start = Instant::now();
    for json in [false, true] {
        let mut args = vec!["audit", p, t.log_str()];
        if json {
            args.push("--json");
        }
        let out = t.starry(None, &args);
        assert!(start.elapsed() < Duration::from_secs(20));
        assert!(!out.status.success());
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("not a starry log"), "{stdout}");
        if json {
            let games = audit_games(&out.stdout);
            assert_eq!(games[0]["fault"], "unreadable");
            assert_eq!(games[1]["valid"], true, "the other file is audited");
        }
    }
    assert_eq!(std::fs::metadata(&big).unwrap().len(), 33 * 1024 * 1024);
}

/// Something that is not a regular file and never ends is refused before
/// it is read (a file that grows while read is cut at the limit: the unit
/// test `an_endless_stream_is_cut_at_the_limit`).
#[cfg(target_os = "linux")]
#[test]
fn an_endless_input_is_refused_unread() {
    let (t, _) = new_game();
    let start = Instant::now();
    let out = t.starry(None, &["status", "/dev/zero"]);
    assert!(start.elapsed() < Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("not a regular file"),
        "{}",
        stderr(&out)
    );
}

/// Runs starry with its standard output a pipe whose reading end is closed
/// at once, as `starry … | head -c 1` does once head has its byte.
fn with_closed_stdout(home: &Path, args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("starry"))
        .env("STARRY_HOME", home)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    (out.status.code(), stderr(&out))
}

fn example_logs() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/games");
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .map(|p| p.to_str().unwrap().to_string())
        .collect();
    v.sort();
    v
}

#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    let home = tempfile::tempdir().unwrap();
    let logs = example_logs();
    assert!(!logs.is_empty());
    let mut audit = vec!["audit"];
    audit.extend(logs.iter().map(String::as_str));
    let mut audit_json = audit.clone();
    audit_json.push("--json");
    let view = vec!["view", logs[logs.len() - 1].as_str(), "--spectator"];
    for args in [
        vec!["rules", "list"],
        audit,
        audit_json,
        view,
        vec!["status", "/nonexistent/game.jsonl"],
    ] {
        // The command's own exit code, with a reader.
        let expected = starry_in(home.path(), &args).status.code();
        for _ in 0..3 {
            let (code, err) = with_closed_stdout(home.path(), &args);
            assert!(!err.contains("panicked"), "{args:?}: {err}");
            assert!(
                !err.to_lowercase().contains("broken pipe"),
                "{args:?}: {err}"
            );
            assert_eq!(code, expected, "{args:?}: {err}");
        }
    }
}

#[test]
fn a_symlinked_log_is_played_through_the_link_and_the_link_stays() {
    let (t, seat) = new_game();
    let real = t.dir.path().join("real.jsonl");
    std::fs::rename(&t.log, &real).unwrap();
    std::os::unix::fs::symlink(&real, &t.log).unwrap();
    let before = std::fs::read(&real).unwrap();
    let out = t.starry(Some(seat), &["play", t.log_str(), "--auto"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        std::fs::symlink_metadata(&t.log)
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link is still a link"
    );
    let after = std::fs::read(&real).unwrap();
    assert!(
        after.len() > before.len() && after.starts_with(&before),
        "the target grew by one entry"
    );
}

#[test]
fn fifos_devices_and_directories_are_refused_at_once() {
    let (t, seat) = new_game();
    let fifo = t.dir.path().join("fifo.jsonl");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let dir = t.dir.path().join("dir.jsonl");
    std::fs::create_dir(&dir).unwrap();
    for target in [fifo.to_str().unwrap(), "/dev/null", dir.to_str().unwrap()] {
        for args in [
            vec!["status", target],
            vec!["audit", target],
            vec!["play", target, "--auto"],
        ] {
            // A FIFO nobody writes to would block a reader forever.
            let out = common::starry_within(&t.homes[seat], &args, Duration::from_secs(20));
            assert!(!out.status.success(), "{args:?}");
        }
    }
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    assert!(
        std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device()
    );
}

#[test]
fn a_log_is_never_created_under_a_temporary_name() {
    let t = Table::new(3);
    let players = t.emails.join(",");
    let name = t.dir.path().join(".starry-y.jsonl.abcdefghij.tmp");
    let out = t.starry(
        Some(0),
        &[
            "new",
            "starry-sky",
            "--players",
            &players,
            "--out",
            name.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(!name.exists());
}

/// A game played from a file outside the games directory is linked into
/// it; when that file is gone, the link stands for no copy: a received log
/// takes its place, and a new copy elsewhere is linked instead.
#[test]
fn a_link_to_a_copy_that_is_gone_gives_way() {
    let (t, _) = new_game();
    let id = t.status()["game_id"].as_str().unwrap().to_string();
    let ben = &t.homes[1];
    let copy = t.dir.path().join("bens-copy.jsonl");
    std::fs::copy(&t.log, &copy).unwrap();
    let out = starry_in(ben, &["join", copy.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let link = ben.join("games").join(format!("{id}.jsonl"));
    assert_eq!(
        std::fs::read_link(&link).unwrap(),
        copy.canonicalize().unwrap()
    );
    // The copy is lost; Anna's log (one entry behind) comes in.
    std::fs::remove_file(&copy).unwrap();
    let out = starry_in(ben, &["ingest", t.log_str()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let meta = std::fs::symlink_metadata(&link).unwrap();
    assert!(meta.is_file(), "the dangling link is replaced by the copy");
    assert_eq!(
        std::fs::read(&link).unwrap(),
        std::fs::read(&t.log).unwrap()
    );
    // A dangling link is also replaced when Ben plays from a new file.
    std::fs::remove_file(&link).unwrap();
    let gone = t.dir.path().join("gone.jsonl");
    std::os::unix::fs::symlink(&gone, &link).unwrap();
    let other = t.dir.path().join("other.jsonl");
    std::fs::copy(&t.log, &other).unwrap();
    let out = starry_in(ben, &["join", other.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_link(&link).unwrap(),
        other.canonicalize().unwrap()
    );
}

/// `play --auto` on `log` as whoever must act, until the game is over and
/// countersigned by everyone.
fn play_out(t: &Table, log: &Path) {
    let log = log.to_str().unwrap();
    loop {
        let s = t.json(None, &["status", log, "--json"]);
        let seat = match s["to_act"].as_str() {
            Some(email) => t.seat_of(email),
            None => match s["seats"]
                .as_array()
                .unwrap()
                .iter()
                .position(|x| x["countersigned"] == false)
            {
                Some(seat) => seat,
                None => return,
            },
        };
        t.ok(seat, &["play", log, "--auto"]);
    }
}

/// A writing command on a stale copy is refused in one paragraph that says
/// `says`, exit 2, and changes neither copy.
fn stale_refused(t: &Table, seat: usize, args: &[&str], files: &[&Path], says: &[&str]) -> String {
    let before: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    let out = t.starry(Some(seat), args);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?}");
    assert!(
        err.starts_with("error: ") && err.trim_end().lines().count() == 1,
        "one paragraph: {err}"
    );
    for s in says.iter().chain(&["Nothing was changed"]) {
        assert!(err.contains(s), "{args:?}: `{s}` not in: {err}");
    }
    for (f, b) in files.iter().zip(&before) {
        assert_eq!(
            &std::fs::read(f).unwrap(),
            b,
            "{args:?} changed {}",
            f.display()
        );
    }
    err
}

/// An old backup of a log never signs a second entry at a position its
/// player signed already in the newer copy: refused by the record of the
/// player's last entry, and by the games directory's copy, each alone.
/// Brought up to date by `ingest`, the same file plays to the end.
#[test]
fn an_old_copy_never_signs_a_position_signed_already() {
    let t = Table::new(3);
    t.create(&[]);
    let s = t.play_until(|s| s["action"] == "move");
    let who = t.seat_of(s["to_act"].as_str().unwrap());
    let n = s["entries"].as_u64().unwrap();
    let id = s["game_id"].as_str().unwrap().to_string();
    let backup = t.dir.path().join("backup.jsonl");
    std::fs::copy(&t.log, &backup).unwrap();
    // The move goes into the main copy.
    t.ok(who, &["play", t.log_str(), "--auto"]);
    let record = t.homes[who].join("written").join(&id);
    let rec: serde_json::Value = serde_json::from_slice(&std::fs::read(&record).unwrap()).unwrap();
    assert_eq!(rec["entry"], n, "{rec}");
    assert_eq!(rec["game"], id.as_str());
    let b = backup.to_str().unwrap();
    let files = [t.log.as_path(), backup.as_path()];
    // Whatever the command, the backup signs nothing.
    for args in [
        vec!["play", b, "--auto"],
        vec!["play", b, "--auto", "--dry-run"],
        vec!["resign", b, "--yes"],
        vec!["abandon", b, "--yes"],
    ] {
        stale_refused(
            &t,
            who,
            &args,
            &files,
            &[&format!("cannot write entry {n}")],
        );
    }
    // The record alone (the games directory holds no copy).
    let link = t.homes[who].join("games").join(format!("{id}.jsonl"));
    assert_eq!(
        std::fs::read_link(&link).unwrap(),
        t.log.canonicalize().unwrap()
    );
    std::fs::remove_file(&link).unwrap();
    stale_refused(
        &t,
        who,
        &["play", b, "--auto"],
        &files,
        &[
            &format!("you wrote entry {n} of this game already"),
            &record.display().to_string(),
            &format!("--into {b}"),
        ],
    );
    // The games directory's copy alone (the record is gone).
    std::os::unix::fs::symlink(&t.log, &link).unwrap();
    std::fs::remove_file(&record).unwrap();
    stale_refused(
        &t,
        who,
        &["play", b, "--auto"],
        &files,
        &[
            &format!("{} entries against this copy's {n}", n + 1),
            &link.display().to_string(),
            &format!("starry play {}", &id[..16]),
        ],
    );
    // Ingested, the backup is the newer copy's equal and plays to the end,
    // with every player's record following.
    t.ok(who, &["ingest", t.log_str(), "--into", b]);
    assert_eq!(
        std::fs::read(&backup).unwrap(),
        std::fs::read(&t.log).unwrap()
    );
    play_out(&t, &backup);
    let audit = t.json(None, &["audit", b, "--json"]);
    assert_eq!(audit["valid"], true, "{audit}");
    let last = t.json(None, &["status", b, "--json"])["entries"]
        .as_u64()
        .unwrap()
        - 1;
    let recs: Vec<u64> = t
        .homes
        .iter()
        .map(|h| {
            let r: serde_json::Value =
                serde_json::from_slice(&std::fs::read(h.join("written").join(&id)).unwrap())
                    .unwrap();
            r["entry"].as_u64().unwrap()
        })
        .collect();
    assert!(recs.iter().all(|&e| e > n && e <= last), "{recs:?}");
    assert!(recs.contains(&last), "{recs:?}");
}

/// A damaged record is a clear error (exit 3) that says what to do, never
/// a panic and never silently ignored; a record of another identity does
/// not count; one removed costs nothing but the check.
#[test]
fn a_damaged_record_is_a_clear_error_and_anothers_does_not_count() {
    let (t, who) = new_game();
    let id = t.status()["game_id"].as_str().unwrap().to_string();
    let dir = t.homes[who].join("written");
    std::fs::create_dir_all(&dir).unwrap();
    let record = dir.join(&id);
    for bytes in [
        b"\x1b[2Jnot json".to_vec(),
        b"{\"entry\":1}".to_vec(),
        vec![b'{'; 10_000],
    ] {
        std::fs::write(&record, &bytes).unwrap();
        let before = std::fs::read(&t.log).unwrap();
        let out = t.starry(Some(who), &["play", t.log_str(), "--auto"]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(3), "{err}");
        assert!(
            !err.contains("panicked") && !err.contains('\u{1b}'),
            "{err:?}"
        );
        assert!(
            err.contains(&record.display().to_string())
                && err.contains("Nothing was changed")
                && err.contains("remove the file"),
            "{err}"
        );
        assert_eq!(std::fs::read(&t.log).unwrap(), before);
    }
    // Another identity's record (say, one this home held before its
    // identity was replaced), however far ahead, does not count.
    let other = t.json(Some((who + 1) % 3), &["id", "show", "--json"]);
    std::fs::write(
        &record,
        format!(
            "{{\"entry\":999,\"game\":\"{id}\",\"id\":\"{}\",\"key\":\"{}\"}}\n",
            "ab".repeat(32),
            other["key"].as_str().unwrap()
        ),
    )
    .unwrap();
    t.ok(who, &["play", t.log_str(), "--auto"]);
    let rec: serde_json::Value = serde_json::from_slice(&std::fs::read(&record).unwrap()).unwrap();
    let mine = t.json(Some(who), &["id", "show", "--json"]);
    assert_eq!(rec["key"], mine["key"], "the record is this identity's now");
    assert_eq!(rec["entry"], entries(&t) - 1);
    // No record at all: nothing to check against, the game goes on.
    std::fs::remove_file(&record).unwrap();
    let s = t.status();
    let next = t.seat_of(s["to_act"].as_str().unwrap());
    let _ = std::fs::remove_file(t.homes[next].join("written").join(&id));
    t.ok(next, &["play", t.log_str(), "--auto"]);
}

/// Sets `p`'s modification time `secs` seconds back.
fn age(p: &Path, secs: u64) {
    let f = std::fs::File::options().write(true).open(p).unwrap();
    f.set_modified(std::time::SystemTime::now() - Duration::from_secs(secs))
        .unwrap();
}

/// Two `play` commands at once, by one player in one home, on two copies
/// of one game (two files): the stale-copy guard's check and the write are
/// one step under the game's lock in that home, so exactly one of each
/// pair writes its entry, and the other is refused as a stale copy (exit
/// 2) and leaves its file byte for byte as it was. Without that lock both
/// passed the check in about half of such pairs, and signed a fork.
#[test]
fn two_copies_played_at_once_write_one_entry_between_them() {
    let t = Table::new(3);
    let players = t.emails.join(",");
    let mut game = 0;
    let new_game = |game: &mut usize| -> (PathBuf, PathBuf) {
        *game += 1;
        let a = t.dir.path().join(format!("game{game}.jsonl"));
        let b = t.dir.path().join(format!("copy{game}.jsonl"));
        t.ok(
            0,
            &[
                "new",
                "starry-sky",
                "--players",
                &players,
                "--out",
                a.to_str().unwrap(),
            ],
        );
        std::fs::copy(&a, &b).unwrap();
        (a, b)
    };
    let (mut a, mut b) = new_game(&mut game);
    let mut pairs = 0;
    while pairs < 50 {
        let s = t.json(None, &["status", a.to_str().unwrap(), "--json"]);
        let (Some(to_act), false) = (s["to_act"].as_str(), s["action"] == "over") else {
            (a, b) = new_game(&mut game);
            continue;
        };
        let who = t.seat_of(to_act);
        if s["action"] == "join" {
            // A join finished from its join record is written again
            // unchanged, which is no second signature (written.rs): not
            // what this test is about.
            t.ok(who, &["play", a.to_str().unwrap(), "--auto"]);
            std::fs::copy(&a, &b).unwrap();
            continue;
        }
        let before = std::fs::read(&a).unwrap();
        assert_eq!(before, std::fs::read(&b).unwrap());
        let spawn = |log: &Path| {
            Command::new(assert_cmd::cargo::cargo_bin("starry"))
                .env("STARRY_HOME", &t.homes[who])
                .args(["play", log.to_str().unwrap(), "--auto"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (pa, pb) = (spawn(&a), spawn(&b));
        let outs = [
            pa.wait_with_output().unwrap(),
            pb.wait_with_output().unwrap(),
        ];
        let wrote: Vec<usize> = (0..2).filter(|&i| outs[i].status.success()).collect();
        assert_eq!(
            wrote.len(),
            1,
            "pair {pairs}: exactly one of the two writes: {} / {}",
            stderr(&outs[0]),
            stderr(&outs[1])
        );
        let (won, lost) = if wrote[0] == 0 { (&a, &b) } else { (&b, &a) };
        let refused = &outs[1 - wrote[0]];
        let err = stderr(refused);
        assert_eq!(refused.status.code(), Some(2), "pair {pairs}: {err}");
        assert!(
            err.contains("Nothing was changed") && err.contains("cannot write entry"),
            "pair {pairs}: {err}"
        );
        assert_eq!(std::fs::read(lost).unwrap(), before, "pair {pairs}");
        let after = std::fs::read(won).unwrap();
        assert!(after.len() > before.len() && after.starts_with(&before));
        // The two copies are one again for the next pair.
        std::fs::write(lost, &after).unwrap();
        pairs += 1;
    }
    let audit = t.json(None, &["audit", a.to_str().unwrap(), "--json"]);
    assert_eq!(audit["valid"], true, "{audit}");
}

/// A process killed while writing leaves its temporary files behind: a
/// log's or a record's `.starry-NAME.RANDOM.tmp`, the verified-prefix
/// cache's `.record.RANDOM`. The next writing command removes them — those
/// of the files it writes at once, under the lock every writer of them
/// holds; any other once it is older than an hour — and never the
/// temporary file of a live writer (a young one of a file it does not hold
/// the lock of).
#[test]
fn temporaries_left_by_a_killed_process_go_with_the_next_command() {
    let (t, who) = new_game();
    let id = t.status()["game_id"].as_str().unwrap().to_string();
    let home = &t.homes[who];
    // The cache holds this game once a command has verified it.
    t.ok(who, &["status", t.log_str()]);
    let cache = home.join("cache").join("verified");
    assert!(cache.join(format!("{id}.json")).exists());
    let written = home.join("written");
    std::fs::create_dir_all(&written).unwrap();
    let half = &std::fs::read(&t.log).unwrap()[..50];
    let killed = [
        // Another log's, in the log's directory, long ago.
        t.dir.path().join(".starry-other.jsonl.k1LLed0000.tmp"),
        // The record of this game, whatever its age: its writer holds the
        // game's lock.
        written.join(format!(".starry-{id}.k1LLed0001.tmp")),
        // Another game's record, long ago.
        written.join(format!(".starry-{}.k1LLed0002.tmp", "ab".repeat(32))),
        // The cache's, long ago.
        cache.join(".record.k1LLed"),
    ];
    let live = [
        // Young, of files this command holds no lock of: perhaps being
        // written right now.
        t.dir.path().join(".starry-other.jsonl.w0rking000.tmp"),
        written.join(format!(".starry-{}.w0rking001.tmp", "ab".repeat(32))),
        cache.join(".record.w0rkin"),
    ];
    for p in killed.iter().chain(&live) {
        std::fs::write(p, half).unwrap();
    }
    for p in [&killed[0], &killed[2], &killed[3]] {
        age(p, 2 * 3600);
    }
    // Not starry's, however old: left alone.
    let foreign = [
        t.dir.path().join(".starry-notes.txt"),
        cache.join(".record.tmp"),
    ];
    for p in &foreign {
        std::fs::write(p, b"mine").unwrap();
        age(p, 2 * 3600);
    }
    let n = entries(&t);
    t.ok(who, &["play", t.log_str(), "--auto"]);
    assert_eq!(entries(&t), n + 1);
    for p in &killed {
        assert!(!p.exists(), "{} is left", p.display());
    }
    for p in live.iter().chain(&foreign) {
        assert!(p.exists(), "{} is gone", p.display());
    }
}
