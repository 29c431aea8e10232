//! Players who try to take a seat that is not theirs, escape an audit by
//! resigning, hold a game hostage by going silent, or race each other with
//! countersignatures; and a program that is stopped halfway through a join.

use crate::common;

use common::{Table, starry_in};
use serde_json::Value;

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn lines(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_pinned_seat_takes_only_its_key() {
    let t = Table::new(3);
    // Ben shows his pin line; an impostor with Ben's address has another key.
    let ben = t.json(Some(1), &["id", "show", "--json"]);
    let pin = ben["players_entry"].as_str().unwrap().to_string();
    assert!(pin.starts_with("Ben <ben@example.org> key:"), "{pin}");
    let impostor = t.dir.path().join("impostor");
    assert!(
        starry_in(
            &impostor,
            &["id", "new", "--name", "Ben", "--email", "ben@example.org"]
        )
        .status
        .success()
    );
    let players = format!("{},{pin},{}", t.emails[0], t.emails[2]);
    let out = t.new_game(&players, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let before = std::fs::read(&t.log).unwrap();
    let out = starry_in(&impostor, &["join", t.log_str()]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("pinned"), "{}", stderr(&out));
    assert_eq!(std::fs::read(&t.log).unwrap(), before, "nothing written");
    // Status shows the pin; the real Ben joins.
    let status = t.status();
    assert_eq!(status["seats"][1]["pinned"], true);
    assert_eq!(status["seats"][1]["key"], ben["key"]);
    let text =
        String::from_utf8_lossy(&t.starry(None, &["status", t.log_str()]).stdout).to_string();
    assert!(text.contains("pinned to key"), "{text}");
    let out = t.starry(Some(1), &["join", t.log_str()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(t.status()["seats"][1]["joined"], true);
}

#[test]
fn names_and_addresses_that_could_disguise_output_are_refused_up_front() {
    let t = Table::new(3);
    for (name, email) in [
        ("Eve\u{1b}[2J", "eve@example.org"),
        ("Eve\u{202e}", "eve@example.org"),
        ("Eve", "eve?@example.org"),
        ("Eve", "eve @example.org"),
    ] {
        let home = t.dir.path().join("eve");
        let out = starry_in(&home, &["id", "new", "--name", name, "--email", email]);
        assert_eq!(out.status.code(), Some(4), "{name:?} {email:?}");
        assert!(!stderr(&out).contains('\u{1b}'));
        assert!(!home.join("identity.json").exists());
    }
    let players = format!(
        "{},Mallory\u{7} <m@example.org>,{}",
        t.emails[0], t.emails[2]
    );
    let out = t.new_game(&players, &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(!t.log.exists());
    // Unicode noncharacters (protocol section 3.4), which a picture (XML)
    // cannot hold: refused by both, in one paragraph naming the character.
    for (c, code) in [
        ('\u{fffe}', "U+FFFE"),
        ('\u{ffff}', "U+FFFF"),
        ('\u{fdd0}', "U+FDD0"),
        ('\u{fdef}', "U+FDEF"),
        ('\u{1fffe}', "U+1FFFE"),
        ('\u{10ffff}', "U+10FFFF"),
    ] {
        let name = format!("Eve{c}");
        let home = t.dir.path().join("eve");
        let out = starry_in(
            &home,
            &["id", "new", "--name", &name, "--email", "eve@example.org"],
        );
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(4), "{code}: {err}");
        assert!(
            err.starts_with("error: ") && err.trim_end().lines().count() == 1,
            "one paragraph: {err}"
        );
        assert!(err.contains(code) && err.contains("noncharacter"), "{err}");
        assert!(
            !err.contains(c),
            "the character is named, not shown: {err:?}"
        );
        assert!(!home.join("identity.json").exists());
        let players = format!("{},{name} <eve@example.org>", t.emails[0]);
        let out = t.new_game(&players, &[]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{code}: {err}");
        assert!(
            err.starts_with("error: --players: ") && err.trim_end().lines().count() == 1,
            "one paragraph: {err}"
        );
        assert!(err.contains(code) && err.contains("noncharacter"), "{err}");
        assert!(!t.log.exists());
        assert!(
            std::fs::read_dir(&t.homes[0])
                .unwrap()
                .all(|e| e.unwrap().file_name() == "identity.json"),
            "nothing written in the creator's home"
        );
    }
    // Just outside the ranges, a name is fine.
    let players = format!(
        "{},Eve\u{fdcf}\u{fffd}\u{1fffd} <eve@example.org>,{}",
        t.emails[0], t.emails[2]
    );
    let out = t.new_game(&players, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn resigning_opens_every_face_down_token() {
    let t = Table::new(3);
    t.create(&[]);
    // Play until the seat to move has a face-down token somewhere.
    let s = t.play_until(|s| {
        s["action"] == "move" && {
            let seat = s["to_act_seat"].as_u64().unwrap() as usize;
            let log = std::fs::read_to_string(&t.log).unwrap();
            log.lines().any(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                v["body"]["kind"] == "move"
                    && v["body"]["author"] == seat as u64
                    && !v["body"]["data"]["commitments"]
                        .as_array()
                        .unwrap()
                        .is_empty()
            })
        }
    });
    let seat = s["to_act_seat"].as_u64().unwrap() as usize;
    let out = t.starry(Some(seat), &["resign", t.log_str(), "--yes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let last = lines(&t.log).pop().unwrap();
    assert_eq!(last["body"]["kind"], "resign");
    assert!(
        !last["body"]["data"]["reveals"]
            .as_array()
            .unwrap()
            .is_empty(),
        "the resignation opens the face-down tokens: {last}"
    );
    // Said with the count, singular for one.
    let n = last["body"]["data"]["reveals"].as_array().unwrap().len();
    let said = String::from_utf8_lossy(&out.stdout);
    let opening = if n == 1 {
        "resigned, opening 1 hidden value.".to_string()
    } else {
        format!("resigned, opening {n} hidden values.")
    };
    assert!(said.contains(&opening), "{opening} in: {said}");
    let audit = t.json(None, &["audit", t.log_str(), "--json"]);
    assert_eq!(audit["valid"], true);
    assert_eq!(audit["files"][0]["ending"]["how"], "resigned");
    let standings = audit["files"][0]["standings"].as_array().unwrap();
    assert_eq!(standings.last().unwrap()["seat"], seat as u64);
}

#[test]
fn a_silent_player_can_be_left_behind_and_a_late_entry_wins() {
    let t = Table::new(3);
    // A deadline of one second, so that claims are valid after a pause.
    t.create_game("starry-sky", &["--deadline", "1s"]);
    let s = t.play_until(|s| s["action"] == "move");
    let silent = s["to_act_seat"].as_u64().unwrap() as usize;
    let others: Vec<usize> = (0..3).filter(|&x| x != silent).collect();
    let n = s["entries"].as_u64().unwrap();
    past_the_deadline();
    // The silent player cannot claim against themselves: the game waits
    // for their move (not now, 19).
    let out = t.starry(Some(silent), &["abandon", t.log_str(), "--yes"]);
    assert_eq!(out.status.code(), Some(19), "{}", stderr(&out));
    // One claim: the game still waits, and says so.
    let before_claims = std::fs::read(&t.log).unwrap();
    let out = t.starry(Some(others[0]), &["abandon", t.log_str(), "--yes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let status = t.status();
    assert_eq!(status["claims"]["awaited"], n);
    assert_eq!(status["claims"]["missing"], 1);
    assert_eq!(status["over"], false);
    let text =
        String::from_utf8_lossy(&t.starry(None, &["status", t.log_str()]).stdout).into_owned();
    assert!(
        text.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .contains("1 more claim ends the game with"),
        "one claim, singular: {text}"
    );
    // A second claim by the same player is refused.
    let out = t.starry(Some(others[0]), &["abandon", t.log_str(), "--yes"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));

    // Meanwhile the silent player moves on their own copy (without the
    // claim): their entry wins, and the claimant's copy follows it. (Here
    // the players share one file, which the silent player's games directory
    // links to; theirs must not hold the claim they never received, or
    // starry would send them to that newer copy.)
    let silent_copy = t.dir.path().join("silent.jsonl");
    std::fs::write(&silent_copy, &before_claims).unwrap();
    let game_id = status["game_id"].as_str().unwrap();
    std::fs::remove_file(
        t.homes[silent]
            .join("games")
            .join(format!("{game_id}.jsonl")),
    )
    .unwrap();
    let out = t.starry(
        Some(silent),
        &["play", silent_copy.to_str().unwrap(), "--auto"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let audit = t.json(
        None,
        &[
            "audit",
            t.log_str(),
            silent_copy.to_str().unwrap(),
            "--json",
        ],
    );
    assert_eq!(audit["valid"], true, "{audit}");
    assert_eq!(audit["forks"][0]["resolution"], "claim-lapsed");
    let out = t.starry(
        Some(others[0]),
        &[
            "ingest",
            silent_copy.to_str().unwrap(),
            "--into",
            t.log_str(),
            "--json",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read(&t.log).unwrap(),
        std::fs::read(&silent_copy).unwrap()
    );

    // Now a player who really is gone: every other player claims.
    let s = t.play_until(|s| s["action"] == "move");
    past_the_deadline();
    let silent = s["to_act_seat"].as_u64().unwrap() as usize;
    let awaited = s["entries"].as_u64().unwrap();
    for c in (0..3).filter(|&x| x != silent) {
        let out = t.starry(Some(c), &["abandon", t.log_str(), "--yes"]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let audit = t.json(None, &["audit", t.log_str(), "--json"]);
    let ending = &audit["files"][0]["ending"];
    assert_eq!(ending["how"], "abandoned");
    assert_eq!(
        ending["seat"], silent as u64,
        "seats count from 0 in reports, as in the log"
    );
    assert_eq!(ending["awaited"], awaited);
    let last = audit["files"][0]["standings"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["seat"], silent as u64);
    let text = String::from_utf8_lossy(&t.starry(None, &["audit", t.log_str()]).stdout).to_string();
    assert!(
        text.contains("abandoned while waiting for")
            && text.contains(&format!("at entry {awaited}")),
        "{text}"
    );
}

/// Two players who wrote at the same position on their own copies mail
/// them to each other: each ingests the other's copy as it was sent; the
/// one whose entry lost writes it again on top, and after one more mail
/// both copies are the same file.
fn exchange(t: &Table, players: [(usize, &std::path::PathBuf); 2]) {
    let [(pa, a), (pb, b)] = players;
    let sent_by_a = t.dir.path().join("sent-by-a.jsonl");
    std::fs::copy(a, &sent_by_a).unwrap();
    for (seat, from, into) in [
        (pa, b.as_path(), a.as_path()),
        (pb, sent_by_a.as_path(), b.as_path()),
    ] {
        let out = t.starry(
            Some(seat),
            &[
                "ingest",
                from.to_str().unwrap(),
                "--into",
                into.to_str().unwrap(),
            ],
        );
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let (la, lb) = (std::fs::read(a).unwrap(), std::fs::read(b).unwrap());
    let (longer, shorter, seat) = if la.len() >= lb.len() {
        (a, b, pb)
    } else {
        (b, a, pa)
    };
    let out = t.starry(
        Some(seat),
        &[
            "ingest",
            longer.to_str().unwrap(),
            "--into",
            shorter.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read(a).unwrap(),
        std::fs::read(b).unwrap(),
        "the copies converged"
    );
}

#[test]
fn countersignatures_written_at_once_converge() {
    let t = Table::new(3);
    t.create(&[]);
    t.play_until(|s| s["over"] == true);
    // Anna and Ben countersign at the same time, each on their own copy.
    let a = t.dir.path().join("anna.jsonl");
    let b = t.dir.path().join("ben.jsonl");
    std::fs::copy(&t.log, &a).unwrap();
    std::fs::copy(&t.log, &b).unwrap();
    for (seat, f) in [(0, &a), (1, &b)] {
        let out = t.starry(Some(seat), &["countersign", f.to_str().unwrap()]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    // Each takes the other's copy; whoever lost writes theirs again on top.
    exchange(&t, [(0, &a), (1, &b)]);
    let audit = t.json(None, &["audit", a.to_str().unwrap(), "--json"]);
    assert_eq!(audit["valid"], true);
    assert_eq!(
        audit["files"][0]["countersigned"],
        serde_json::json!([0, 1])
    );
    // Each one's record of the last entry they wrote names their
    // countersignature where it stands now, the one written again included.
    let game_id = audit["files"][0]["game_id"].as_str().unwrap().to_string();
    for seat in [0, 1] {
        let at = lines(&a)
            .iter()
            .position(|l| l["body"]["kind"] == "countersign" && l["body"]["author"] == seat)
            .unwrap();
        let record: Value = serde_json::from_slice(
            &std::fs::read(t.homes[seat].join("written").join(&game_id)).unwrap(),
        )
        .unwrap();
        assert_eq!(record["entry"], at, "seat {seat}: {record}");
    }
}

#[test]
fn a_file_that_is_not_a_log_is_never_overwritten() {
    let t = Table::new(3);
    t.create(&[]);
    let log = std::fs::read_to_string(&t.log).unwrap();
    let not_logs = [
        "my shopping list\n".to_string(),
        String::new(),
        // A starry line, but not a genesis: the beginning is missing.
        log.lines().nth(1).unwrap().to_string() + "\n",
    ];
    for (i, text) in not_logs.iter().enumerate() {
        let f = t.dir.path().join(format!("not-a-log-{i}.jsonl"));
        std::fs::write(&f, text).unwrap();
        for args in [
            vec!["join", f.to_str().unwrap()],
            vec!["play", f.to_str().unwrap(), "--auto"],
            vec!["resign", f.to_str().unwrap(), "--yes"],
            vec!["abandon", f.to_str().unwrap(), "--yes"],
            vec!["countersign", f.to_str().unwrap()],
            vec!["ingest", t.log_str(), "--into", f.to_str().unwrap()],
        ] {
            let out = t.starry(Some(1), &args);
            assert!(!out.status.success(), "{args:?}");
            assert_eq!(
                std::fs::read_to_string(&f).unwrap(),
                *text,
                "{args:?} changed the file"
            );
        }
    }
}

#[test]
fn claims_written_at_once_converge() {
    let t = Table::new(3);
    t.create_game("starry-sky", &["--deadline", "1s"]);
    let s = t.play_until(|s| s["action"] == "move");
    past_the_deadline();
    let silent = s["to_act_seat"].as_u64().unwrap() as usize;
    let others: Vec<usize> = (0..3).filter(|&x| x != silent).collect();
    let copies: Vec<std::path::PathBuf> = others
        .iter()
        .map(|&c| {
            let f = t.dir.path().join(format!("claim-{c}.jsonl"));
            std::fs::copy(&t.log, &f).unwrap();
            let out = t.starry(Some(c), &["abandon", f.to_str().unwrap(), "--yes"]);
            assert!(out.status.success(), "{}", stderr(&out));
            f
        })
        .collect();
    let audit = t.json(
        None,
        &[
            "audit",
            copies[0].to_str().unwrap(),
            copies[1].to_str().unwrap(),
            "--json",
        ],
    );
    assert_eq!(audit["valid"], true, "{audit}");
    assert_eq!(audit["forks"][0]["resolution"], "claims");
    // Each takes the other's copy; the loser re-applies its claim, which
    // completes the abandonment.
    exchange(&t, [(others[0], &copies[0]), (others[1], &copies[1])]);
    let audit = t.json(None, &["audit", copies[0].to_str().unwrap(), "--json"]);
    assert_eq!(audit["files"][0]["ending"]["how"], "abandoned", "{audit}");
}

#[test]
fn messages_for_common_mistakes_say_what_to_do() {
    let t = Table::new(3);
    // Two seats pinned to one key: a usage error about the arguments, not a
    // fault in a log that does not exist.
    let ben = t.json(Some(1), &["id", "show", "--json"]);
    let key = ben["key"].as_str().unwrap();
    let players = format!(
        "{},{} key:{key},{} key:{key}",
        t.emails[0], t.emails[1], t.emails[2]
    );
    let out = t.new_game(&players, &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("Nothing was written"),
        "{}",
        stderr(&out)
    );
    assert!(!t.log.exists());
    // A key one digit short says so.
    let players = format!(
        "{},{} key:{},{}",
        t.emails[0],
        t.emails[1],
        &key[1..],
        t.emails[2]
    );
    let out = t.new_game(&players, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("63 characters, not 64"),
        "{}",
        stderr(&out)
    );
    assert!(
        !stderr(&out).contains("   "),
        "no runs of spaces: {}",
        stderr(&out)
    );
    // An unpinned seat taken by someone else: the real player is told so.
    t.create(&[]);
    let mallory = t.dir.path().join("mallory");
    assert!(
        starry_in(
            &mallory,
            &["id", "new", "--name", "Ben", "--email", "ben@example.org"]
        )
        .status
        .success()
    );
    assert!(starry_in(&mallory, &["join", t.log_str()]).status.success());
    for cmd in ["join", "ready"] {
        let out = t.starry(Some(1), &[cmd, t.log_str()]);
        assert_eq!(out.status.code(), Some(2));
        assert!(
            stderr(&out).contains("someone else joined in your place"),
            "{cmd}: {}",
            stderr(&out)
        );
    }
    // Ingesting the game (how a mail player first sees it) warns too.
    let inbox = t.dir.path().join("ben-copy.jsonl");
    let out = t.starry(
        Some(1),
        &["ingest", t.log_str(), "--into", inbox.to_str().unwrap()],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("someone else joined in your place"), "{text}");
    assert!(!text.contains("It is your turn"), "{text}");
    // Windows line endings are named as such.
    let crlf = t.dir.path().join("crlf.jsonl");
    let text = std::fs::read_to_string(&t.log)
        .unwrap()
        .replace('\n', "\r\n");
    std::fs::write(&crlf, text).unwrap();
    let out = t.starry(None, &["status", crlf.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(12));
    assert!(
        stderr(&out).contains("Windows line endings"),
        "{}",
        stderr(&out)
    );
    // An empty move is no move.
    let out = t.starry(Some(0), &["play", t.log_str(), ""]);
    assert_eq!(out.status.code(), Some(2));
}

/// Waits until a deadline of one second, counted from the last entry,
/// has passed (times are whole seconds: the claim must be dated at least
/// one second later).
fn past_the_deadline() {
    std::thread::sleep(std::time::Duration::from_millis(2100));
}
