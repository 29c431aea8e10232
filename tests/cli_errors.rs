//! Every user-facing error, through the real binary: a clear message naming
//! what and where, the documented exit code, and every file left exactly as
//! it was.

use crate::common;

use common::*;
use serde_json::Value;

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

/// A 3-player game played until seat `s` must move with a board partly filled.
fn table_in_play() -> Table {
    let t = Table::new(3);
    t.create(&[]);
    t.play_until(|s| s["action"] == "move" && s["entries"].as_u64().unwrap() > 12);
    t
}

fn occupied_and_free(t: &Table) -> (String, String) {
    let v = t.json(None, &["view", t.log_str(), "--json"]);
    let mut occupied = None;
    let mut free = None;
    for slot in v["view"]["slots"].as_array().unwrap() {
        for star in slot["board"]["stars"].as_array().into_iter().flatten() {
            let label = star["label"].as_str().unwrap().to_string();
            if star.get("occupant").is_some_and(|o| !o.is_null()) {
                occupied.get_or_insert(label);
            } else if star["large"] == false {
                free.get_or_insert(label);
            }
        }
    }
    (occupied.unwrap(), free.unwrap())
}

#[test]
fn illegal_and_out_of_turn_moves_are_refused_and_change_nothing() {
    let t = table_in_play();
    let s = t.status();
    let mover = t.seat_of(s["to_act"].as_str().unwrap());
    let other = (mover + 1) % 3;
    let (occupied, free) = occupied_and_free(&t);
    let before = std::fs::read(&t.log).unwrap();

    let out = t.starry(
        Some(mover),
        &["play", t.log_str(), &format!("1 {occupied}")],
    );
    assert_eq!(out.status.code(), Some(20), "{}", stderr(&out));
    assert!(stderr(&out).contains(&occupied), "{}", stderr(&out));

    let out = t.starry(Some(other), &["play", t.log_str(), &format!("1 {free}")]);
    assert_eq!(out.status.code(), Some(19), "{}", stderr(&out));
    assert!(stderr(&out).contains("turn"), "{}", stderr(&out));

    let out = t.starry(Some(mover), &["play", t.log_str(), "eleven leo:1"]);
    assert_eq!(out.status.code(), Some(2), "notation: {}", stderr(&out));
    assert!(
        stderr(&out).contains("TOKEN BOARD:STAR"),
        "{}",
        stderr(&out)
    );

    let out = t.starry(Some(mover), &["play", t.log_str(), "--dry-run", "--auto"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Dry run"));

    assert_eq!(
        std::fs::read(&t.log).unwrap(),
        before,
        "refused moves and a dry run wrote nothing"
    );
}

#[test]
fn resigning_ends_the_game_with_the_resigner_last_and_countersigning_follows() {
    let t = table_in_play();
    let s = t.status();
    let mover = t.seat_of(s["to_act"].as_str().unwrap());
    let out = t.starry(Some(mover), &["resign", t.log_str(), "--yes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let s = t.status();
    assert_eq!(s["over"], true);
    assert_eq!(s["ending"]["how"], "resigned");
    assert_eq!(
        s["ending"]["seat"], mover,
        "seats count from 0 in reports, as in the log"
    );
    let last = s["standings"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["seat"], mover);
    assert_eq!(last["rank"], 3);
    for seat in 0..3 {
        let out = t.starry(Some(seat), &["countersign", t.log_str()]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let out = t.starry(Some(0), &["countersign", t.log_str()]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let audit = t.json(None, &["audit", t.log_str(), "--json"]);
    assert_eq!(
        audit["files"][0]["countersigned"],
        serde_json::json!([0, 1, 2])
    );
}

#[test]
fn refused_commands_leave_the_log_byte_identical() {
    let t = table_in_play();
    let s = t.status();
    let mover = t.seat_of(s["to_act"].as_str().unwrap());
    let other = (mover + 1) % 3;
    let (occupied, _) = occupied_and_free(&t);
    let before = std::fs::read(&t.log).unwrap();
    for (seat, args, code) in [
        (
            mover,
            vec!["play", t.log_str(), &format!("1 {occupied}") as &str],
            20,
        ),
        (other, vec!["play", t.log_str(), "--auto"], 19),
        (other, vec!["reveal", t.log_str()], 19),
        (other, vec!["resign", t.log_str(), "--yes"], 19),
        (mover, vec!["countersign", t.log_str()], 19),
        (mover, vec!["join", t.log_str()], 2),
        (mover, vec!["ready", t.log_str()], 19),
    ] {
        let out = t.starry(Some(seat), &args);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {}", stderr(&out));
        assert_eq!(
            std::fs::read(&t.log).unwrap(),
            before,
            "{args:?} changed the log"
        );
        let msg = stderr(&out);
        assert!(
            msg.starts_with("error: ") && msg.trim_end().lines().count() == 1,
            "one paragraph: {msg}"
        );
    }
}

#[test]
fn playing_on_a_tampered_log_is_refused_with_the_entry_named() {
    let t = table_in_play();
    let mut lines: Vec<String> = std::fs::read_to_string(&t.log)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let k = 9;
    lines.swap(k, k + 1);
    let tampered = lines.join("\n") + "\n";
    std::fs::write(&t.log, &tampered).unwrap();
    let s: Value =
        serde_json::from_slice(&t.starry(None, &["status", t.log_str(), "--json"]).stdout).unwrap();
    assert_eq!(s["error"]["code"], 13);
    for seat in 0..3 {
        let out = t.starry(Some(seat), &["play", t.log_str(), "--auto"]);
        assert_eq!(out.status.code(), Some(13), "{}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!("entry {k} (line {})", k + 1)),
            "{}",
            stderr(&out)
        );
        assert_eq!(std::fs::read_to_string(&t.log).unwrap(), tampered);
    }
}

#[test]
fn identities_missing_corrupt_or_duplicate_are_clear_errors() {
    let t = Table::new(3);
    // No identity.
    let out = t.starry(None, &["id", "show"]);
    assert_eq!(out.status.code(), Some(4));
    assert!(stderr(&out).contains("starry id new"), "{}", stderr(&out));
    // Never overwritten.
    let file = t.homes[0].join("identity.json");
    let before = std::fs::read(&file).unwrap();
    let out = t.starry(
        Some(0),
        &["id", "new", "--name", "X", "--email", "x@example.org"],
    );
    assert_eq!(out.status.code(), Some(4));
    assert!(
        stderr(&out).contains("never overwrites"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(&file).unwrap(), before);
    // Corrupt: a secret of the wrong length; the message must not quote it.
    let mut v: Value = serde_json::from_slice(&before).unwrap();
    v["secret"] = Value::String("c2VjcmV0LXNlY3JldC1zZWNyZXQ=".into());
    std::fs::write(&file, serde_json::to_vec(&v).unwrap()).unwrap();
    let out = t.starry(Some(0), &["id", "show"]);
    assert_eq!(out.status.code(), Some(4));
    assert!(
        stderr(&out).contains("corrupt") && !stderr(&out).contains("c2VjcmV0"),
        "{}",
        stderr(&out)
    );
    // Garbage.
    std::fs::write(&file, b"\x00\x01 not json").unwrap();
    let out = t.starry(
        Some(0),
        &[
            "new",
            "starry-sky",
            "--players",
            &t.emails.join(","),
            "--out",
            t.log_str(),
        ],
    );
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(!t.log.exists());
    // A bad e-mail.
    let out = starry_in(
        &t.dir.path().join("x"),
        &["id", "new", "--name", "X", "--email", "not-an-address"],
    );
    assert_eq!(out.status.code(), Some(4));
    assert!(stderr(&out).contains("not an e-mail address"));
}

#[test]
fn new_game_arguments_are_checked() {
    let t = Table::new(3);
    let players = t.emails.join(",");
    for (args, needle) in [
        (
            vec!["new", "chess", "--players", &players, "--out", t.log_str()],
            "unknown game",
        ),
        (
            vec![
                "new",
                "starry-sky",
                "--players",
                "ben@example.org,anna@example.org,cleo@example.org",
                "--out",
                t.log_str(),
            ],
            "must be you",
        ),
        (
            vec![
                "new",
                "starry-sky",
                "--players",
                "anna@example.org,ben@example.org",
                "--out",
                t.log_str(),
            ],
            "3 to 5",
        ),
        (
            vec![
                "new",
                "starry-sky",
                "--players",
                &players,
                "--variant",
                "doubling=triple",
                "--out",
                t.log_str(),
            ],
            "additive",
        ),
        (
            vec![
                "new",
                "starry-sky",
                "--players",
                &players,
                "--variant",
                "colour=red",
                "--out",
                t.log_str(),
            ],
            "colour",
        ),
        (
            vec![
                "new",
                "starry-sky",
                "--players",
                &players,
                "--variant",
                "tie",
                "--out",
                t.log_str(),
            ],
            "KEY=VALUE",
        ),
    ] {
        let out = t.starry(Some(0), &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(needle), "{args:?}: {}", stderr(&out));
        assert!(!t.log.exists());
    }
    t.create(&[]);
    let before = std::fs::read(&t.log).unwrap();
    let out = t.starry(
        Some(0),
        &[
            "new",
            "starry-sky",
            "--players",
            &players,
            "--out",
            t.log_str(),
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("never overwrites"));
    assert_eq!(std::fs::read(&t.log).unwrap(), before);
}

#[test]
fn custom_boards_are_validated_with_clear_errors() {
    let t = Table::new(3);
    let players = t.emails.join(",");
    let boards = t.dir.path().join("boards.json");
    std::fs::write(&boards, r#"{"boards":[{"id":"Leo","name":"Leo","prizes":[5,3],"stars":[{"large":true,"at":[0,0]},{"large":false,"at":[1,1]}],"lines":[[1,2]]}]}"#).unwrap();
    let out = t.starry(
        Some(0),
        &[
            "new",
            "starry-sky",
            "--players",
            &players,
            "--boards",
            boards.to_str().unwrap(),
            "--out",
            t.log_str(),
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("Leo"), "{}", stderr(&out));
    std::fs::write(&boards, "{not json").unwrap();
    let out = t.starry(
        Some(0),
        &[
            "new",
            "starry-sky",
            "--players",
            &players,
            "--boards",
            boards.to_str().unwrap(),
            "--out",
            t.log_str(),
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(!t.log.exists());
}

#[test]
fn joining_twice_or_without_a_seat_is_refused() {
    let t = Table::new(3);
    t.create(&[]);
    let out = t.starry(Some(1), &["join", t.log_str()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let after_join = std::fs::read(&t.log).unwrap();
    let out = t.starry(Some(1), &["join", t.log_str()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("joined"), "{}", stderr(&out));
    // A copy of the log from before the join: joining it writes the very
    // same join line again (the one recorded), never a second one that
    // would fork the game.
    let copy = t.dir.path().join("copy.jsonl");
    let lines: Vec<&str> = std::str::from_utf8(&after_join).unwrap().lines().collect();
    std::fs::write(&copy, lines[..2].join("\n") + "\n").unwrap();
    let out = t.starry(Some(1), &["join", copy.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read(&copy).unwrap(),
        after_join,
        "the same join, byte for byte"
    );
    // A join record without the line (as older versions wrote it): the
    // program cannot know what it wrote, so it refuses rather than fork.
    std::fs::write(&copy, lines[..2].join("\n") + "\n").unwrap();
    let record = std::fs::read_dir(t.homes[1].join("joined"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::write(&record, "2026-11-20T12:00:00Z").unwrap();
    let out = t.starry(Some(1), &["join", copy.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("fork"), "{}", stderr(&out));
    // Someone with no seat.
    let stranger = t.dir.path().join("stranger");
    starry_in(
        &stranger,
        &["id", "new", "--name", "Zed", "--email", "zed@example.org"],
    );
    let out = starry_in(&stranger, &["join", t.log_str()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no seat"));
    assert_eq!(std::fs::read(&t.log).unwrap(), after_join);
}

#[test]
fn view_at_and_status_report_history_and_waiting() {
    let t = table_in_play();
    let s = t.status();
    assert!(s["waiting_since"].as_str().unwrap().ends_with('Z'));
    let v3 = t.json(None, &["view", t.log_str(), "--at", "3", "--json"]);
    assert_eq!(v3["at"], 3);
    assert!(v3["view"].is_null(), "no board before everyone is ready");
    // `--at N` is after entry N, as `history` numbers them: the last is
    // one less than the count.
    let n = s["entries"].as_u64().unwrap() - 1;
    let last = t.json(
        None,
        &["view", t.log_str(), "--at", &n.to_string(), "--json"],
    );
    assert_eq!(last["at"], n);
    let now = t.json(None, &["view", t.log_str(), "--json"]);
    assert_eq!(last["view"], now["view"]);
    let out = t.starry(None, &["view", t.log_str(), "--at", "9999"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("entries 0 to"), "{}", stderr(&out));
}

#[test]
fn missing_log_is_an_io_error() {
    let t = Table::new(3);
    let out = t.starry(Some(0), &["play", "/nonexistent/game.jsonl", "--auto"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(stderr(&out).contains("/nonexistent/game.jsonl"));
}

/// A write that fails (here: the file-size limit, which fails `write` with
/// EFBIG just as a full disk fails it with ENOSPC) leaves the log as it was
/// and no temporary file behind.
#[test]
fn a_failed_write_leaves_the_log_and_no_stray_file() {
    let t = table_in_play();
    let s = t.status();
    let mover = t.seat_of(s["to_act"].as_str().unwrap());
    let before = std::fs::read(&t.log).unwrap();
    let listing = |d: &std::path::Path| {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
            .collect();
        v.sort();
        v
    };
    let files_before = listing(t.dir.path());
    let blocks = before.len() / 512; // the new log cannot fit
    let bin = assert_cmd::cargo::cargo_bin("starry");
    let script = format!("trap '' XFSZ; ulimit -f {blocks}; exec \"$0\" play \"$1\" --auto");
    let out = std::process::Command::new("sh")
        .env("STARRY_HOME", &t.homes[mover])
        .args(["-c", &script, bin.to_str().unwrap(), t.log_str()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("disk full"), "{}", stderr(&out));
    assert_eq!(std::fs::read(&t.log).unwrap(), before);
    assert_eq!(listing(t.dir.path()), files_before);
}

/// The move the text view suggests to `seat` (its turn line ends with
/// "(e.g. `ds aquarius:1`)").
fn suggested_move(t: &Table, seat: usize) -> String {
    let view = t.ok(seat, &["view", t.log_str()]);
    let line = view
        .lines()
        .find(|l| l.starts_with("Turn:") && l.contains("e.g. `"))
        .unwrap_or_else(|| panic!("no suggested move in:\n{view}"));
    let from = line.find("e.g. `").unwrap() + "e.g. `".len();
    line[from..].split('`').next().unwrap().to_string()
}

#[test]
fn starry_sky_notation_forgives_case_and_spacing_and_a_typo_is_wrong_use() {
    let t = table_in_play();
    let mover = t.seat_of(t.status()["to_act"].as_str().unwrap());
    let mv = suggested_move(&t, mover);
    let (token, star) = mv.split_once(' ').unwrap();
    let (board, number) = star.split_once(':').unwrap();
    let before = std::fs::read(&t.log).unwrap();
    let up = |s: &str| s.to_uppercase();
    for text in [
        mv.clone(),
        up(&mv),
        format!(" {token}  {board} : {number} "),
        format!("{}\t{}:{number}", up(token), up(board)),
        format!("{token} {board}: {number}"),
        format!("{token} {board} {number}"),
    ] {
        let out = t.ok(mover, &["play", t.log_str(), &text, "--dry-run"]);
        assert!(
            out.contains(&format!("placed {token} on {star}"))
                || out.contains(&format!("placed a face-down token on {star}")),
            "{text:?} is {mv}: {out}"
        );
    }
    assert_eq!(std::fs::read(&t.log).unwrap(), before);

    let form = "A move now is `TOKEN BOARD:STAR`: TOKEN is 1 3 5 6 7 10";
    let other_board = if board == "leo" { "virgo" } else { "leo" };
    let typo = format!("{}x", &other_board[..other_board.len() - 1]);
    for (text, says) in [
        ("hello".to_string(), vec!["`hello` is not a move", form]),
        (
            format!("11 {star}"),
            vec![
                "`11` is not a token; tokens are 1, 3, 5, 6, 7, 10, bh, ds",
                form,
            ],
        ),
        (
            format!("{token} {typo}:1"),
            vec![
                &format!("there is no board `{typo}`") as &str,
                &format!("did you mean `{other_board}:1`?"),
                form,
            ],
        ),
        (
            format!("{star} {token}"),
            vec![&format!("did you mean `{token} {star}`?") as &str, form],
        ),
        (
            format!("{token} {board}:99"),
            vec!["there is no star 99", form],
        ),
        (format!("{mv} {mv}"), vec!["is not a move", form]),
    ] {
        t.notation_refused(mover, &text, &says);
    }
    // No guess when nothing is near.
    let err = t.notation_refused(mover, "10 xyzzy:1", &["there is no board `xyzzy`"]);
    assert!(!err.contains("did you mean"), "{err}");
    // An empty move is wrong use too, before anything is read.
    for empty in ["", "   "] {
        t.notation_refused(mover, empty, &["the move is empty"]);
    }
    // A move that reads but breaks a rule stays a rule error, exit 20.
    let (occupied, _) = occupied_and_free(&t);
    let out = t.starry(
        Some(mover),
        &["play", t.log_str(), &format!("1 {}", up(&occupied))],
    );
    assert_eq!(out.status.code(), Some(20), "{}", stderr(&out));
    assert_eq!(std::fs::read(&t.log).unwrap(), before);
}

#[test]
fn resigning_without_a_terminal_needs_yes_and_writes_nothing() {
    let t = table_in_play();
    let mover = t.seat_of(t.status()["to_act"].as_str().unwrap());
    let other = (mover + 1) % 3;
    let before = std::fs::read(&t.log).unwrap();
    // No terminal (standard input is not one here): no question can be
    // asked, so nothing is written without --yes.
    let out = t.starry(Some(mover), &["resign", t.log_str()]);
    assert_refused(
        &out,
        &[
            "cannot be undone",
            &format!("starry resign {} --yes", t.log_str()),
        ],
    );
    assert_eq!(std::fs::read(&t.log).unwrap(), before, "nothing written");
    // What would refuse the resignation anyway is said first.
    let out = t.starry(Some(other), &["resign", t.log_str()]);
    assert_eq!(out.status.code(), Some(19), "{}", stderr(&out));
    assert!(!stderr(&out).contains("--yes"), "{}", stderr(&out));
    assert_eq!(std::fs::read(&t.log).unwrap(), before, "nothing written");
    // -y confirms.
    t.ok(mover, &["resign", t.log_str(), "-y"]);
    assert_eq!(t.status()["ending"]["how"], "resigned");
}

#[test]
fn a_game_in_the_games_directory_is_named_by_its_short_id_in_errors() {
    let t = Table::new(3);
    let players = t.emails.join(",");
    let created = t.json(
        Some(0),
        &["new", "starry-sky", "--players", &players, "--json"],
    );
    let file = std::path::PathBuf::from(created["file"].as_str().unwrap());
    let game_id = created["status"]["game_id"].as_str().unwrap().to_string();
    let id16 = &game_id[..16];
    assert!(file.ends_with(format!("games/{game_id}.jsonl")), "{file:?}");
    // A refusal of an entry: the game by its short id and its name.
    let out = t.starry(Some(0), &["ready", id16]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(19), "{err}");
    assert!(
        err.starts_with(&format!(
            "error: your copy of game {id16} (starry-sky): cannot write entry 2"
        )),
        "{err}"
    );
    assert!(!err.contains(&game_id), "no 64-digit file name: {err}");
    let out = t.starry(Some(0), &["play", id16, "--auto"]);
    assert!(stderr(&out).contains(&format!("your copy of game {id16} (starry-sky)")));
    // A fault in the log itself.
    let mut bytes = std::fs::read(&file).unwrap();
    bytes.extend_from_slice(b"{\"not\": \"an entry\"}\n");
    std::fs::write(&file, &bytes).unwrap();
    let out = t.starry(Some(0), &["join", id16]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(10), "{err}");
    assert!(
        err.starts_with(&format!(
            "error: your copy of game {id16}: entry 2 (line 3)"
        )),
        "{err}"
    );
    assert!(!err.contains(&game_id), "{err}");
    // Given by its path, the copy is named the same way; a file of another
    // name, by that name.
    let out = t.starry(Some(0), &["join", file.to_str().unwrap()]);
    assert!(
        stderr(&out).starts_with(&format!("error: your copy of game {id16}: entry 2")),
        "{}",
        stderr(&out)
    );
    let other = t.dir.path().join("mine.jsonl");
    std::fs::copy(&file, &other).unwrap();
    let out = t.starry(Some(0), &["join", other.to_str().unwrap()]);
    assert!(
        stderr(&out).starts_with(&format!("error: {}: entry 2", other.display())),
        "{}",
        stderr(&out)
    );
}
