//! The clock on every move (protocol 3): the deadline the genesis records,
//! the time left shown to players, claims refused before the deadline and
//! accepted after it, the question `abandon` asks, and logs dated ahead of
//! this machine's clock refused — for each of the three games.

use crate::common;
use starry::crypto::identity::Stored as _;

use common::Table;
use serde_json::Value;

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Each game, its seat count, and the arguments that start it.
const GAMES: [(&str, usize, &[&str]); 3] = [
    ("starry-sky", 3, &[]),
    ("starry-night", 2, &["--random-stars", "8"]),
    ("star-map", 2, &[]),
];

fn genesis(t: &Table) -> Value {
    let text = std::fs::read_to_string(&t.log).unwrap();
    serde_json::from_str::<Value>(text.lines().next().unwrap()).unwrap()["body"]["data"].clone()
}

/// Plays until the first move is due (everyone joined and ready).
fn to_first_move(t: &Table) -> Value {
    t.play_until(|s| s["action"] == "move")
}

#[test]
fn the_genesis_records_the_deadline_and_status_shows_the_time_left() {
    for (game, n, extra) in GAMES {
        let t = Table::new(n);
        let mut args = extra.to_vec();
        args.extend(["--deadline", "7d"]);
        t.create_game(game, &args);
        let g = genesis(&t);
        assert_eq!(g["deadline"], 7 * 86_400, "{game}");
        assert_eq!(g["protocol"], 3, "{game}");
        // Before everyone has joined there is no clock.
        assert_eq!(t.status()["clock"], Value::Null, "{game}");
        let s = to_first_move(&t);
        assert_eq!(s["deadline"], 7 * 86_400, "{game}");
        let clock = &s["clock"];
        let left = clock["seconds_left"].as_i64().unwrap();
        assert!(
            left <= 7 * 86_400 && left > 7 * 86_400 - 300,
            "{game}: {clock}"
        );
        assert_eq!(
            clock["since"].as_u64().unwrap() + 1,
            s["entries"].as_u64().unwrap()
        );
        let name = s["to_act_name"].as_str().unwrap();
        let text = stdout(&t.starry(None, &["status", t.log_str()]));
        // Seven days, less the second or two the joins took.
        let left = |text: &str, who: &str| {
            ["7 days (until ", "6 days 23 hours (until "]
                .iter()
                .any(|l| text.contains(&format!("{who} has {l}")))
        };
        assert!(left(&text, name), "{game}: {text}");
        // `games` lists it too, for the player who created the game.
        let games = stdout(&t.starry(Some(0), &["games"]));
        assert!(left(&games, name), "{game}: {games}");
    }
}

#[test]
fn no_deadline_means_no_clock() {
    for (game, n, extra) in GAMES {
        let t = Table::new(n);
        let mut args = extra.to_vec();
        args.extend(["--deadline", "none"]);
        t.create_game(game, &args);
        assert_eq!(genesis(&t).get("deadline"), None, "{game}");
        let s = to_first_move(&t);
        assert_eq!(s["clock"], Value::Null, "{game}");
        // A claim may come at once.
        let who = t.seat_of(s["to_act"].as_str().unwrap());
        let other = (0..n).find(|&x| x != who).unwrap();
        let out = t.starry(Some(other), &["abandon", t.log_str(), "--yes"]);
        assert!(out.status.success(), "{game}: {}", stderr(&out));
    }
}

#[test]
fn a_claim_waits_for_the_deadline_and_asks_first() {
    for (game, n, extra) in GAMES {
        let t = Table::new(n);
        let mut args = extra.to_vec();
        args.extend(["--deadline", "2s"]);
        t.create_game(game, &args);
        let s = to_first_move(&t);
        let who = t.seat_of(s["to_act"].as_str().unwrap());
        let other = (0..n).find(|&x| x != who).unwrap();
        let before = std::fs::read(&t.log).unwrap();
        // Too early: refused as not now (19), saying until when, nothing
        // written.
        let out = t.starry(Some(other), &["abandon", t.log_str(), "--yes"]);
        assert_eq!(out.status.code(), Some(19), "{game}: {}", stderr(&out));
        let said = stderr(&out)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert!(said.contains("has until"), "{game}: {said}");
        assert!(said.contains("nothing was written"), "{game}: {said}");
        assert_eq!(std::fs::read(&t.log).unwrap(), before, "{game}");
        std::thread::sleep(std::time::Duration::from_millis(3100));
        // No terminal to ask: --yes is needed, and nothing is written.
        let out = t.starry(Some(other), &["abandon", t.log_str()]);
        assert_eq!(out.status.code(), Some(2), "{game}: {}", stderr(&out));
        assert!(stderr(&out).contains("--yes"), "{game}: {}", stderr(&out));
        assert_eq!(std::fs::read(&t.log).unwrap(), before, "{game}");
        // The status says the time ran out.
        let text = stdout(&t.starry(None, &["status", t.log_str()]));
        assert!(text.contains("time ran out"), "{game}: {text}");
        // After the deadline, with --yes: written, and valid.
        let out = t.starry(Some(other), &["abandon", t.log_str(), "--yes"]);
        assert!(out.status.success(), "{game}: {}", stderr(&out));
        assert!(
            stdout(&out).contains("their deadline passed"),
            "{game}: {}",
            stdout(&out)
        );
        let audit = t.json(None, &["audit", t.log_str(), "--json"]);
        assert_eq!(audit["valid"], true, "{game}: {audit}");
        if n == 2 {
            assert_eq!(audit["files"][0]["ending"]["how"], "abandoned", "{game}");
        }
    }
}

/// Appends to the log an entry by `seat` dated `time`, signed with that
/// player's identity: what a player whose clock is wrong would send.
fn append_dated(t: &Table, seat: usize, time: &str) {
    use starry::crypto::identity::Identity;
    use starry::games::starry_sky::StarrySky;
    use starry::log::Replay;
    use starry::log::entry::Kind;
    let bytes = std::fs::read(&t.log).unwrap();
    let r = Replay::<StarrySky>::from_bytes(&bytes).unwrap();
    let id = Identity::load(&t.homes[seat]).unwrap();
    let secret = r.game_secret(&id, seat).unwrap();
    let link = r.next_link(&secret, seat).unwrap();
    let data = serde_json::json!({"awaited": r.len(), "silent": r.expected().1.unwrap()});
    let line = r.next_line(&id, seat, Kind::Abandon, data, Some(link), time.into());
    let mut b = bytes;
    b.extend_from_slice(&line);
    std::fs::write(&t.log, b).unwrap();
}

#[test]
fn entries_dated_ahead_of_this_clock_are_refused_and_nothing_changes() {
    let t = Table::new(3);
    t.create_game("starry-sky", &["--deadline", "none"]);
    let s = to_first_move(&t);
    let who = t.seat_of(s["to_act"].as_str().unwrap());
    let other = (0..3).find(|&x| x != who).unwrap();
    let copy = t.dir.path().join("mine.jsonl");
    std::fs::copy(&t.log, &copy).unwrap();
    // Eleven minutes ahead: beyond the ten minutes allowed.
    let ahead = (chrono::Utc::now() + chrono::Duration::minutes(11))
        .format("%Y-%m-%dT%H:%M:%SZ")
        .to_string();
    append_dated(&t, other, &ahead);
    // An audit does not read the clock: the log is valid.
    let audit = t.json(None, &["audit", t.log_str(), "--json"]);
    assert_eq!(audit["valid"], true, "{audit}");
    // Receiving it is refused, with exit 9, naming the entry.
    let before = std::fs::read(&copy).unwrap();
    let out = t.starry(
        Some(who),
        &["ingest", t.log_str(), "--into", copy.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(9), "{}", stderr(&out));
    assert!(stderr(&out).contains(&ahead), "{}", stderr(&out));
    assert!(stderr(&out).contains("ahead of this machine's clock"));
    assert_eq!(std::fs::read(&copy).unwrap(), before);
    // Writing on top of it is refused too.
    let before = std::fs::read(&t.log).unwrap();
    let out = t.starry(Some(who), &["play", t.log_str(), "--auto"]);
    assert_eq!(out.status.code(), Some(9), "{}", stderr(&out));
    assert_eq!(std::fs::read(&t.log).unwrap(), before);
}

#[test]
fn entries_a_few_minutes_ahead_are_taken_and_answered_without_going_back() {
    let t = Table::new(3);
    t.create_game("starry-sky", &["--deadline", "none"]);
    let s = to_first_move(&t);
    let who = t.seat_of(s["to_act"].as_str().unwrap());
    let other = (0..3).find(|&x| x != who).unwrap();
    // Five minutes ahead: a clock a little fast is no fault.
    let ahead = (chrono::Utc::now() + chrono::Duration::minutes(5))
        .format("%Y-%m-%dT%H:%M:%SZ")
        .to_string();
    append_dated(&t, other, &ahead);
    // The answer is dated no earlier than the claim, though this clock is
    // behind it: times never go back.
    let out = t.starry(Some(who), &["play", t.log_str(), "--auto"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&t.log).unwrap();
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert!(last["body"]["time"].as_str().unwrap() >= ahead.as_str());
    let audit = t.json(None, &["audit", t.log_str(), "--json"]);
    assert_eq!(audit["valid"], true, "{audit}");
}

#[test]
fn turn_mails_and_reminders_tell_the_awaited_player_their_time() {
    let t = Table::new(3);
    t.create_game("starry-sky", &["--deadline", "3d"]);
    let s = to_first_move(&t);
    let who = t.seat_of(s["to_act"].as_str().unwrap());
    let other = (0..3).find(|&x| x != who).unwrap();
    // Without mail settings a reminder goes to the outbox as a file.
    let out = t.starry(Some(other), &["remind", t.log_str()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let outbox = t.homes[other].join("outbox");
    let mails: Vec<String> = std::fs::read_dir(&outbox)
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    let to_them = mails
        .iter()
        .find(|m| m.contains(&format!("To: {}", t.emails[who])) || m.contains(&t.emails[who]))
        .expect("a reminder to the awaited player");
    let flat = to_them.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("You have 3 days to answer")
            || flat.contains("You have 2 days 23 hours to answer"),
        "{flat}"
    );
}
