//! `starry audit` on a club's archive through the real binary: directories
//! searched recursively, copies of one game grouped by game id, every game
//! checked on all cores, one line per game and a summary, one JSON object per
//! game, and the gravest fault's exit code. The archive mixes valid games in
//! every state with a forked, a tampered, a truncated and an unreadable one,
//! and the report expected for it is written out in full.

use crate::common;

use std::path::{Path, PathBuf};

use common::*;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn copy(from: &str, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::copy(root().join(from), to).unwrap();
}

/// A club's archive under `dir/archive`: the club's own copies of finished
/// games by month, and the players' mailboxes with their copies.
fn archive(dir: &Path) -> PathBuf {
    let a = dir.join("archive");
    let month = a.join("club/2026-11");
    copy(
        "examples/games/finished-3p-additive-coins.jsonl",
        &month.join("sky-3p.jsonl"),
    );
    copy(
        "examples/games/starry-night-finished-area.jsonl",
        &month.join("night.jsonl"),
    );
    copy(
        "examples/games/star-map-4-players-teams.jsonl",
        &month.join("map-teams.jsonl"),
    );
    copy(
        "tests/vectors/star-map-resigned-before-setup.jsonl",
        &month.join("map-resigned.jsonl"),
    );
    copy(
        "tests/archive/stalled-custom-boards.jsonl",
        &month.join("stalled.jsonl"),
    );
    // A game in progress: the club's copy and Ben's older one (a prefix).
    copy(
        "examples/games/in-progress-4p.jsonl",
        &a.join("club/open/sky-4p.jsonl"),
    );
    let full = std::fs::read(root().join("examples/games/in-progress-4p.jsonl")).unwrap();
    let lines: Vec<&[u8]> = full.split_inclusive(|&b| b == b'\n').collect();
    std::fs::create_dir_all(a.join("mail/ben")).unwrap();
    std::fs::write(a.join("mail/ben/sky-4p.jsonl"), lines[..30].concat()).unwrap();
    // Two copies that fork: Cleo signed two different entries 30.
    copy(
        "tests/vectors/fork-a.jsonl",
        &a.join("mail/anna/fork.jsonl"),
    );
    copy(
        "tests/vectors/fork-b.jsonl",
        &a.join("mail/cleo/fork.jsonl"),
    );
    // Tampered: one entry's time changed after it was signed.
    let hard = std::fs::read_to_string(root().join("examples/games/star-map-3-players-hard.jsonl"))
        .unwrap();
    let mut lines: Vec<String> = hard.lines().map(String::from).collect();
    let at = lines[5].find("\"time\":\"").unwrap() + 8;
    let digit = lines[5].as_bytes()[at + 3];
    let other = if digit == b'9' { "8" } else { "9" };
    lines[5].replace_range(at + 3..at + 4, other);
    std::fs::write(month.join("map-hard.jsonl"), lines.join("\n") + "\n").unwrap();
    // Truncated: cut in the middle of its last line, as a full disk or a
    // broken download leaves it.
    let count =
        std::fs::read(root().join("examples/games/starry-night-finished-count.jsonl")).unwrap();
    std::fs::create_dir_all(a.join("mail/dan")).unwrap();
    std::fs::write(
        a.join("mail/dan/night-count.jsonl"),
        &count[..count.len() - 40],
    )
    .unwrap();
    // Unreadable: a link to a copy that is gone.
    std::os::unix::fs::symlink("../../nowhere.jsonl", a.join("mail/dan/gone.jsonl")).unwrap();
    // Not a log at all, and things the search skips: another file type, a
    // hidden directory.
    std::fs::write(a.join("club/notes.jsonl"), "Club rules: be kind.\n").unwrap();
    std::fs::write(a.join("club/README.txt"), "not a log").unwrap();
    std::fs::create_dir_all(a.join(".git/objects")).unwrap();
    std::fs::write(a.join(".git/objects/x.jsonl"), "{}\n").unwrap();
    a
}

/// The report, line by line, that the archive must give: exactly these
/// games in this order, and this summary.
const EXPECTED: &[&str] = &[
    "INVALID  star-map      4833a47ffabaf17a  bad signature: archive/club/2026-11/map-hard.jsonl: entry 5 (line 6), written by seat 1, Ben <ben@example.org>: bad signature: the signature does not verify",
    "valid    star-map      86968fff6f23f547  resigned after 5 entries: archive/club/2026-11/map-resigned.jsonl",
    "valid    star-map      9badd10dd0cb2ef1  finished after 58 entries: archive/club/2026-11/map-teams.jsonl",
    "valid    starry-night  ab3c0c12ab01f49e  finished after 31 entries: archive/club/2026-11/night.jsonl",
    "valid    starry-sky    730c3de74319975a  finished after 120 entries: archive/club/2026-11/sky-3p.jsonl",
    "valid    starry-sky    720396020dfc4c3e  stalled after 37 entries: archive/club/2026-11/stalled.jsonl",
    "INVALID  -             -                 malformed line: archive/club/notes.jsonl: entry 0 (line 1): malformed line: not JSON",
    "valid    starry-sky    8c09e41c2c8d7e12  in progress, 38 entries, waiting for Cleo to move: archive/club/open/sky-4p.jsonl, archive/mail/ben/sky-4p.jsonl (30 entries)",
    "INVALID  starry-sky    e530d95a976a0e34  fork: archive/mail/anna/fork.jsonl and archive/mail/cleo/fork.jsonl are copies of the same game that fork at entry 30 (line 31)",
    "INVALID  -             -                 unreadable file: cannot follow the symlink archive/mail/dan/gone.jsonl",
    "INVALID  starry-night  172640546f63bd60  truncated last line: archive/mail/dan/night-count.jsonl: entry 20 (line 21): truncated last line",
    "11 games in 13 logs: 6 valid (3 finished, 1 resigned, 1 stalled, 1 in progress), 5 invalid (1 fork, 1 bad signature, 1 malformed line, 1 truncated last line, 1 unreadable file).",
];

fn audit(dir: &Path, args: &[&str]) -> std::process::Output {
    assert_cmd::Command::cargo_bin("starry")
        .unwrap()
        .current_dir(dir)
        .env("STARRY_HOME", dir.join("nobody"))
        .arg("audit")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn an_archive_gives_one_line_per_game_and_the_gravest_faults_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    archive(dir.path());
    let out = audit(dir.path(), &["archive"]);
    // The gravest fault found is the fork.
    assert_eq!(out.status.code(), Some(22));
    assert!(out.stderr.is_empty(), "no progress bar in a pipe");
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), EXPECTED.len(), "{text}");
    for (line, expected) in lines.iter().zip(EXPECTED) {
        assert!(
            line.starts_with(expected),
            "expected {expected}\n got {line}"
        );
    }
    check_golden(
        &root().join("tests/golden/audit-archive.txt"),
        &text,
        "archive",
    );
    // The same report on one core as on all, and the same for the same
    // archive named by its parts.
    let one = audit(dir.path(), &["archive", "-j", "1"]);
    assert_eq!(one.stdout, out.stdout);
    let parts = audit(dir.path(), &["archive/club", "archive/mail", "-j", "2"]);
    assert_eq!(parts.stdout, out.stdout);
    assert_eq!(parts.status.code(), Some(22));
}

#[test]
fn the_json_report_is_one_object_per_game() {
    let dir = tempfile::tempdir().unwrap();
    archive(dir.path());
    let out = audit(dir.path(), &["archive", "--json"]);
    assert_eq!(out.status.code(), Some(22));
    let games = audit_games(&out.stdout);
    assert_eq!(games.len(), 11);
    let by_file = |file: &str| {
        games
            .iter()
            .find(|g| {
                g["files"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|f| f["file"] == file)
            })
            .unwrap_or_else(|| panic!("no game with {file}"))
    };
    let fork = by_file("archive/mail/anna/fork.jsonl");
    assert_eq!(fork["valid"], false);
    assert_eq!(fork["fault"], "fork");
    assert_eq!(fork["code"], 22);
    assert_eq!(fork["forks"][0]["entry"], 30);
    assert_eq!(fork["forks"][0]["same_author"], true);
    let open = by_file("archive/mail/ben/sky-4p.jsonl");
    assert_eq!(open["valid"], true);
    assert_eq!(open["state"], "in-progress");
    assert_eq!(open["entries"], 38);
    assert_eq!(open["files"].as_array().unwrap().len(), 2);
    assert!(
        open["forks"].as_array().unwrap().is_empty(),
        "a prefix is no fork"
    );
    let expect = [
        (
            "archive/club/2026-11/stalled.jsonl",
            true,
            Some("stalled"),
            None,
        ),
        (
            "archive/club/2026-11/map-resigned.jsonl",
            true,
            Some("resigned"),
            None,
        ),
        (
            "archive/club/2026-11/map-hard.jsonl",
            false,
            None,
            Some(("bad-signature", 15)),
        ),
        (
            "archive/mail/dan/night-count.jsonl",
            false,
            None,
            Some(("truncated", 11)),
        ),
        (
            "archive/mail/dan/gone.jsonl",
            false,
            None,
            Some(("unreadable", 3)),
        ),
        (
            "archive/club/notes.jsonl",
            false,
            None,
            Some(("malformed", 10)),
        ),
    ];
    for (file, valid, state, fault) in expect {
        let g = by_file(file);
        assert_eq!(g["valid"], valid, "{file}");
        if let Some(state) = state {
            assert_eq!(g["state"], state, "{file}");
        }
        if let Some((fault, code)) = fault {
            assert_eq!(g["fault"], fault, "{file}");
            assert_eq!(g["code"], code, "{file}");
        }
    }
    // Every line is a game the schema describes.
    let schema = validator("audit.json");
    for g in &games {
        assert!(schema.is_valid(g), "{g}");
    }
}

#[test]
fn an_archive_of_valid_games_exits_zero_and_one_fault_sets_the_code() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("archive");
    copy(
        "examples/games/finished-3p-additive-coins.jsonl",
        &a.join("x/one.jsonl"),
    );
    copy(
        "examples/games/star-map-2-players.jsonl",
        &a.join("y/two.jsonl"),
    );
    let out = audit(dir.path(), &["archive"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.ends_with("2 games in 2 logs: 2 valid (2 finished).\n"),
        "{text}"
    );
    copy(
        "tests/vectors/out-of-turn.jsonl",
        &a.join("y/z/three.jsonl"),
    );
    let out = audit(dir.path(), &["archive"]);
    assert_eq!(out.status.code(), Some(19));
}

#[test]
fn a_directory_without_logs_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("empty/.hidden")).unwrap();
    std::fs::write(dir.path().join("empty/.hidden/x.jsonl"), "{}\n").unwrap();
    let out = audit(dir.path(), &["empty"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no log found in empty"), "{err}");
    let out = audit(dir.path(), &["-j", "0", "empty"]);
    assert_eq!(out.status.code(), Some(2));
}

/// What a hostile try of the archive audit found, each now refused or
/// reported as it should be.
#[test]
fn hostile_archives() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A fork is found even when one copy has a bad last line after it.
    let fork_a = std::fs::read(root().join("tests/vectors/fork-a.jsonl")).unwrap();
    let fork_b = std::fs::read(root().join("tests/vectors/fork-b.jsonl")).unwrap();
    std::fs::create_dir_all(d.join("f")).unwrap();
    std::fs::write(d.join("f/a.jsonl"), &fork_a).unwrap();
    std::fs::write(
        d.join("f/b.jsonl"),
        [fork_b.as_slice(), b"{\"body\":"].concat(),
    )
    .unwrap();
    let out = audit(d, &["f"]);
    assert_eq!(
        out.status.code(),
        Some(22),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("proof that this player signed"));
    // Identical copies are compared once: no fork between them, one fork
    // reported for many copies of two versions.
    for i in 0..5 {
        std::fs::write(d.join(format!("f/a{i}.jsonl")), &fork_a).unwrap();
    }
    let out = audit(d, &["f", "--json"]);
    let games = audit_games(&out.stdout);
    assert_eq!(games.len(), 1);
    assert_eq!(
        games[0]["forks"].as_array().unwrap().len(),
        1,
        "{}",
        games[0]["forks"]
    );
    // A file name cannot forge a line of the report.
    std::fs::create_dir_all(d.join("n")).unwrap();
    let name = "x\nvalid    starry-sky    0000000000000000  finished after 1 entries: fake.jsonl";
    std::fs::copy(
        root().join("tests/vectors/short-game.jsonl"),
        d.join("n").join(name),
    )
    .unwrap();
    let out = audit(d, &["n"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines().next().unwrap().contains("x\\u{a}valid"),
        "{text}"
    );
    assert!(
        !text
            .lines()
            .any(|l| l.starts_with("valid    starry-sky    0000")),
        "{text}"
    );
    // A directory of links to logs found already is no error (a games
    // directory beside the logs it links to); nor is an empty directory
    // beside logs.
    std::fs::create_dir_all(d.join("links")).unwrap();
    std::fs::create_dir_all(d.join("empty")).unwrap();
    std::os::unix::fs::symlink(d.join("f/a.jsonl"), d.join("links/a.jsonl")).unwrap();
    let out = audit(d, &["f", "links", "empty"]);
    assert_eq!(out.status.code(), Some(22));
    // More jobs than logs, and the most allowed.
    let out = audit(d, &["-j", "256", "n"]);
    assert_eq!(out.status.code(), Some(0));
    let out = audit(d, &["-j", "257", "n"]);
    assert_eq!(out.status.code(), Some(2));
}

/// A copy of `log` damaged as mail, disks and hands damage files.
fn damaged(log: &[u8], how: &str) -> Vec<u8> {
    let lines: Vec<&[u8]> = log.split_inclusive(|&b| b == b'\n').collect();
    match how {
        // Cut in the middle of its last line.
        "truncated" => log[..log.len() - 40].to_vec(),
        // One digit of entry 2's time changed after it was signed.
        "flipped" => {
            let mut lines: Vec<Vec<u8>> = lines.iter().map(|l| l.to_vec()).collect();
            let text = String::from_utf8(lines[2].clone()).unwrap();
            let at = text.find("\"time\":\"").unwrap() + 8 + 3;
            lines[2][at] = if lines[2][at] == b'9' { b'8' } else { b'9' };
            lines.concat()
        }
        // A whole line cut out of the middle.
        "line-cut" => [&lines[..2], &lines[3..]].concat().concat(),
        _ => unreachable!(),
    }
}

fn vector(name: &str) -> Vec<u8> {
    std::fs::read(root().join(name)).unwrap()
}

const SMALL: &str = "tests/vectors/star-map-resigned-before-setup.jsonl";

#[test]
fn a_sound_copy_makes_a_game_valid_and_damaged_copies_are_listed_apart() {
    for how in ["truncated", "flipped", "line-cut"] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("a");
        std::fs::create_dir_all(&d).unwrap();
        let log = vector(SMALL);
        std::fs::write(d.join("sound.jsonl"), &log).unwrap();
        std::fs::write(d.join("damaged.jsonl"), damaged(&log, how)).unwrap();
        copy(
            "examples/games/star-map-2-players.jsonl",
            &d.join("other.jsonl"),
        );
        let out = audit(dir.path(), &["a"]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{how}: {text}");
        let first = text.lines().find(|l| l.contains("sound.jsonl")).unwrap();
        assert!(
            first.starts_with("valid    star-map      86968fff6f23f547  resigned after 5 entries: a/sound.jsonl; 1 damaged copy: a/damaged.jsonl ("),
            "{how}: {first}"
        );
        let summary = text.lines().last().unwrap();
        assert!(
            summary.starts_with(
                "2 games in 3 logs: 2 valid (1 finished, 1 resigned); 1 damaged copy of valid games ("
            ),
            "{how}: {summary}"
        );
        let json = audit(dir.path(), &["a", "--json"]);
        assert_eq!(json.status.code(), Some(0));
        let games = audit_games(&json.stdout);
        let g = games
            .iter()
            .find(|g| g["damaged"].as_array().is_some_and(|d| !d.is_empty()))
            .unwrap();
        assert_eq!(g["valid"], true, "{how}");
        assert_eq!(g["fault"], serde_json::Value::Null);
        assert_eq!(g["code"], 0);
        assert_eq!(g["state"], "resigned");
        assert_eq!(g["entries"], 5);
        assert_eq!(g["damaged"], serde_json::json!(["a/damaged.jsonl"]));
        let copy = g["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["file"] == "a/damaged.jsonl")
            .unwrap();
        assert_eq!(copy["valid"], false);
        assert!(copy["fault"]["fault"].is_string(), "{how}: {copy}");
        let schema = validator("audit.json");
        assert!(games.iter().all(|g| schema.is_valid(g)));
        // One game alone: the damaged copy's fault in full, as damage.
        let one = audit(dir.path(), &["a/sound.jsonl", "a/damaged.jsonl"]);
        assert_eq!(one.status.code(), Some(0));
        let text = String::from_utf8_lossy(&one.stdout);
        assert!(
            text.contains("\n  DAMAGED COPY a/damaged.jsonl: entry "),
            "{text}"
        );
        assert!(!text.contains("INVALID"), "{text}");
    }
}

#[test]
fn a_game_with_only_damaged_copies_stays_invalid() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("a");
    std::fs::create_dir_all(&d).unwrap();
    let log = vector(SMALL);
    std::fs::write(d.join("cut.jsonl"), damaged(&log, "truncated")).unwrap();
    std::fs::write(d.join("flipped.jsonl"), damaged(&log, "flipped")).unwrap();
    let out = audit(dir.path(), &["a", "--json"]);
    // The gravest of the copies' faults: the bad signature.
    assert_eq!(out.status.code(), Some(15));
    let games = audit_games(&out.stdout);
    assert_eq!(games.len(), 1);
    assert_eq!(games[0]["valid"], false);
    assert_eq!(games[0]["fault"], "bad-signature");
    assert_eq!(games[0]["damaged"], serde_json::json!([]));
    let text = String::from_utf8_lossy(&audit(dir.path(), &["a"]).stdout).into_owned();
    assert!(text.starts_with("INVALID  star-map"), "{text}");
    assert!(!text.contains("damaged copy"), "{text}");
}

#[test]
fn a_fork_beside_a_damaged_copy_is_still_a_fork() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("f");
    std::fs::create_dir_all(&d).unwrap();
    let (a, b) = (
        vector("tests/vectors/fork-a.jsonl"),
        vector("tests/vectors/fork-b.jsonl"),
    );
    std::fs::write(d.join("a.jsonl"), &a).unwrap();
    std::fs::write(d.join("b.jsonl"), &b).unwrap();
    std::fs::write(d.join("c-cut.jsonl"), damaged(&a, "truncated")).unwrap();
    let out = audit(dir.path(), &["f", "--json"]);
    assert_eq!(out.status.code(), Some(22));
    let games = audit_games(&out.stdout);
    assert_eq!(games.len(), 1);
    let g = &games[0];
    assert_eq!(g["valid"], false);
    assert_eq!(g["fault"], "fork");
    assert_eq!(g["forks"].as_array().unwrap().len(), 1, "{}", g["forks"]);
    assert_eq!(g["forks"][0]["entry"], 30);
    assert_eq!(g["damaged"], serde_json::json!(["f/c-cut.jsonl"]));
    let text = String::from_utf8_lossy(&audit(dir.path(), &["f"]).stdout).into_owned();
    let first = text.lines().next().unwrap();
    assert!(
        first.starts_with("INVALID  starry-sky    e530d95a976a0e34  fork: f/a.jsonl and f/b.jsonl are copies of the same game that fork at entry 30 (line 31)"),
        "{first}"
    );
    assert!(
        first.contains("; 1 damaged copy: f/c-cut.jsonl (truncated last line at entry 30)"),
        "{first}"
    );
}

/// Hundreds of copies of one game (as many mailboxes hold), older copies,
/// damaged ones and a fork: the verdicts are those of a handful of copies.
#[test]
fn many_copies_of_one_game() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("many");
    std::fs::create_dir_all(&d).unwrap();
    let log = vector(SMALL);
    for i in 0..200 {
        std::fs::write(d.join(format!("small-{i:03}.jsonl")), &log).unwrap();
    }
    let lines: Vec<&[u8]> = log.split_inclusive(|&b| b == b'\n').collect();
    for k in 1..lines.len() {
        std::fs::write(d.join(format!("older-{k}.jsonl")), lines[..k].concat()).unwrap();
    }
    std::fs::write(d.join("x-cut.jsonl"), damaged(&log, "truncated")).unwrap();
    let (a, b) = (
        vector("tests/vectors/fork-a.jsonl"),
        vector("tests/vectors/fork-b.jsonl"),
    );
    for i in 0..20 {
        std::fs::write(d.join(format!("fork-a-{i:02}.jsonl")), &a).unwrap();
    }
    std::fs::write(d.join("fork-b.jsonl"), &b).unwrap();
    let out = audit(dir.path(), &["many", "--json"]);
    assert_eq!(out.status.code(), Some(22));
    let games = audit_games(&out.stdout);
    assert_eq!(games.len(), 2);
    let small = games.iter().find(|g| g["game"] == "star-map").unwrap();
    assert_eq!(small["valid"], true);
    assert_eq!(small["state"], "resigned");
    assert_eq!(small["entries"], 5);
    assert_eq!(small["files"].as_array().unwrap().len(), 200 + 4 + 1);
    assert!(
        small["forks"].as_array().unwrap().is_empty(),
        "{}",
        small["forks"]
    );
    assert_eq!(small["damaged"], serde_json::json!(["many/x-cut.jsonl"]));
    let fork = games.iter().find(|g| g["game"] == "starry-sky").unwrap();
    assert_eq!(fork["valid"], false);
    assert_eq!(fork["fault"], "fork");
    // Identical copies are compared once: one fork, between a copy of each
    // version.
    let forks = fork["forks"].as_array().unwrap();
    assert_eq!(forks.len(), 1, "{forks:?}");
    assert_eq!(forks[0]["entry"], 30);
    assert_eq!(forks[0]["same_author"], true);
    assert_eq!(
        forks[0]["files"],
        serde_json::json!(["many/fork-a-00.jsonl", "many/fork-b.jsonl"])
    );
    // On one core as on all.
    let one = audit(dir.path(), &["many", "--json", "-j", "1"]);
    assert_eq!(one.stdout, out.stdout);
}

/// Five hundred copies of one game, each with a different entry 6 signed
/// by one seat: one fork, named once with its number of copies and
/// entries, a report of bounded size, and the fork's exit code (issue 31,
/// item 8: it printed 48 MB, a fork per pair of copies).
#[test]
fn many_forked_copies_are_one_fork_with_a_count() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("forks");
    std::fs::create_dir_all(&d).unwrap();
    for (i, copy) in common::forked::forked_copies(500).iter().enumerate() {
        std::fs::write(d.join(format!("copy-{i:03}.jsonl")), copy).unwrap();
    }
    let out = audit(dir.path(), &["forks", "--json"]);
    assert_eq!(out.status.code(), Some(22));
    let games = audit_games(&out.stdout);
    assert_eq!(games.len(), 1);
    let forks = games[0]["forks"].as_array().unwrap();
    assert_eq!(forks.len(), 1, "{}", &games[0]["forks"].to_string()[..2000]);
    let f = &forks[0];
    assert_eq!(f["entry"], 6);
    assert_eq!(f["same_author"], true);
    assert_eq!(f["copies"], 500);
    assert_eq!(f["entries"], 500);
    assert_eq!(
        f["files"],
        serde_json::json!(["forks/copy-000.jsonl", "forks/copy-001.jsonl"])
    );
    assert!(validator("audit.json").is_valid(&games[0]));
    let text = audit(dir.path(), &["forks"]);
    assert_eq!(text.status.code(), Some(22));
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains(
            "500 copies of the same game fork at entry 6 (line 7): entries 0 to 5 agree, then \
             they hold 500 different valid entries, all signed by seat 4"
        ),
        "{}",
        &text[..text.len().min(3000)]
    );
    assert_eq!(text.matches("fork at entry").count(), 1);
    // The line of the game lists the copies once each, no more.
    assert!(text.len() < 64 * 1024, "{} bytes", text.len());
}

/// A copy damaged early (one space added in line 3) still proves a fork
/// with the entries after its damage: its entry 6, well-formed and signed
/// by the seat that signed another entry 6 in the sound copy (issue 31,
/// item 9: it was "valid, 1 damaged copy").
#[test]
fn a_damaged_copy_still_proves_a_fork_after_its_damage() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("f");
    std::fs::create_dir_all(&d).unwrap();
    let copies = common::forked::forked_copies(2);
    std::fs::write(d.join("a.jsonl"), &copies[0]).unwrap();
    let text = String::from_utf8(copies[1].clone()).unwrap();
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    let spaced = lines[2].replacen("{\"body\":", "{ \"body\":", 1);
    lines[2] = &spaced;
    std::fs::write(d.join("b.jsonl"), lines.concat()).unwrap();
    let out = audit(dir.path(), &["f", "--json"]);
    assert_eq!(
        out.status.code(),
        Some(22),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let games = audit_games(&out.stdout);
    assert_eq!(games.len(), 1);
    let g = &games[0];
    assert_eq!(g["fault"], "fork");
    let forks = g["forks"].as_array().unwrap();
    assert_eq!(forks.len(), 1, "{forks:?}");
    assert_eq!(forks[0]["entry"], 6);
    assert_eq!(forks[0]["same_author"], true);
    assert_eq!(
        forks[0]["files"],
        serde_json::json!(["f/a.jsonl", "f/b.jsonl"])
    );
    assert!(validator("audit.json").is_valid(g));
    // A changed entry after the damage proves nothing: its signature
    // does not verify.
    let mut forged = lines.clone();
    let six = lines[6].replacen("\"time\":\"2026", "\"time\":\"2025", 1);
    forged[6] = &six;
    std::fs::write(d.join("b.jsonl"), forged.concat()).unwrap();
    let out = audit(dir.path(), &["f", "--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let g = &audit_games(&out.stdout)[0];
    assert_eq!(g["valid"], true);
    assert_eq!(g["damaged"], serde_json::json!(["f/b.jsonl"]));
}

/// A copy whose first line is damaged is a damaged copy of the game its
/// next entries name, beside a sound copy: the archive audits valid
/// (issue 31, item 9: the whole archive failed with exit 10).
#[test]
fn a_copy_with_a_damaged_first_line_is_a_damaged_copy() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("a");
    std::fs::create_dir_all(&d).unwrap();
    let log = vector(SMALL);
    std::fs::write(d.join("sound.jsonl"), &log).unwrap();
    let mut broken = log.clone();
    broken.insert(1, b' ');
    std::fs::write(d.join("damaged.jsonl"), &broken).unwrap();
    let mut cut = log.clone();
    cut.drain(..20);
    std::fs::write(d.join("cut.jsonl"), &cut).unwrap();
    let out = audit(dir.path(), &["a", "--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let games = audit_games(&out.stdout);
    assert_eq!(games.len(), 1, "{games:?}");
    let g = &games[0];
    assert_eq!(g["valid"], true);
    assert_eq!(
        g["damaged"],
        serde_json::json!(["a/cut.jsonl", "a/damaged.jsonl"])
    );
    assert!(validator("audit.json").is_valid(g));
    let text = audit(dir.path(), &["a"]);
    assert_eq!(text.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&text.stdout).contains("2 damaged copies"),
        "{}",
        String::from_utf8_lossy(&text.stdout)
    );
    // Alone, with no game to belong to, it is still refused.
    let alone = audit(dir.path(), &["a/damaged.jsonl"]);
    assert_ne!(alone.status.code(), Some(0));
}
