//! Issue 31, item 1: a claimant cannot turn time controls into a win. Anna
//! back-dates her own move by 15 days (times are written by their
//! authors), claims at once that Ben stopped answering, and mails the log.
//! Ben's `ingest` takes it (the claim is valid: the log says 15 days
//! passed), yet his answer must still win: `status`, `moves` and the mail
//! say so, `play`, `--auto` and `--bot` write his entry in the claims'
//! place, the claimants' copies take it on ingest, and both copies audit
//! valid. Nothing automatic countersigns his own abandonment, and a
//! countersignature by hand asks first.

use crate::common;
use starry::crypto::identity::Stored as _;

use common::Table;
use serde_json::Value;
use starry::app::act::{self, Do};
use starry::crypto::identity::Identity;
use starry::games::Draw;
use starry::games::starry_night::StarryNight;
use starry::log::entry::SeatInfo;
use starry::log::{Action, Replay};

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn flat(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn days_ago(days: i64) -> String {
    (chrono::Utc::now() - chrono::Duration::days(days))
        .format("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

/// Anna (seat 0) and Ben (seat 1) play Starry Night with the default
/// deadline of 14 days, every entry dated 20 days ago, until Anna has
/// moved — her move back-dated to 15 days ago — and it is Ben's turn; then
/// Anna claims at once, dated now. Returns the number of the claim.
fn back_dated_claim(t: &Table) -> u64 {
    let ids: Vec<Identity> = t.homes.iter().map(|h| Identity::load(h).unwrap()).collect();
    let seats = ["Anna", "Ben"]
        .iter()
        .zip(&t.emails)
        .map(|(name, email)| SeatInfo {
            email: email.clone(),
            key: None,
            name: name.to_string(),
            operator: None,
        })
        .collect();
    let mut draw = Draw::new([7; 32]);
    act::create::<StarryNight>(
        act::Author {
            home: &t.homes[0],
            id: &ids[0],
        },
        act::Setup {
            seats,
            pairs: &[("random-stars".into(), "8".into())],
            extra: None,
        },
        &t.log,
        days_ago(20),
        &mut draw,
    )
    .unwrap();
    play_until_ben_is_late::<StarryNight>(&t.log, |s| (&t.homes[s], &ids[s]), &mut draw);
    // The claim, at once: valid, since the log says 15 days have passed.
    let out = t.starry(Some(0), &["abandon", t.log_str(), "--yes", "--mail"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let s = t.status();
    assert_eq!(s["ending"]["how"], "abandoned", "{s}");
    s["entries"].as_u64().unwrap() - 1
}

/// Every seat plays on its own (`Do::Auto`), each entry dated 20 days ago
/// except Anna's (seat 0) first move, dated 15 days ago, until it is Ben's
/// (seat 1) move after hers: Ben is then late by the default deadline of
/// 14 days. `signer` gives each seat's home and identity.
fn play_until_ben_is_late<'a, G: starry::bot::Bot>(
    log: &std::path::Path,
    signer: impl Fn(usize) -> (&'a std::path::Path, &'a Identity),
    draw: &mut Draw,
) {
    let mut anna_moved = false;
    loop {
        let bytes = std::fs::read(log).unwrap();
        let r = Replay::<G>::from_bytes(&bytes).unwrap();
        let (action, who) = r.expected();
        let who = who.unwrap();
        if anna_moved && who == 1 && action == Action::Move {
            return;
        }
        let time = if who == 0 && action == Action::Move {
            anna_moved = true;
            days_ago(15)
        } else {
            days_ago(20)
        };
        let (home, id) = signer(who);
        let (line, _) = act::build::<G>(home, &r, id, Do::Auto, time, draw).unwrap();
        let mut b = bytes;
        b.extend_from_slice(&line);
        std::fs::write(log, b).unwrap();
    }
}

fn lines(path: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

#[test]
fn a_late_answer_to_a_back_dated_claim_wins_and_both_copies_converge() {
    let t = Table::new(2);
    let claim = back_dated_claim(&t);
    let anna_copy = lines(&t.log);
    // Anna's mail to Ben says that his move still wins, not "countersign".
    let mails: Vec<String> = std::fs::read_dir(t.homes[0].join("outbox"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .filter(|m| m.contains("To: Ben") || m.contains("To: ben@"))
        .collect();
    assert!(!mails.is_empty());
    let mail = mails
        .last()
        .unwrap()
        .replace("=\r\n", "")
        .replace("=\n", "");
    let mail = flat(&mail);
    assert!(mail.contains("still wins"), "{mail}");
    assert!(mail.contains("starry play"), "{mail}");
    // Ben takes in Anna's mail: his games directory's copy is "over".
    let out = t.starry(Some(1), &["ingest", t.log_str()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let game = t.status()["game_id"].as_str().unwrap()[..16].to_string();
    let text = flat(&stdout(&out));
    assert!(text.contains("still wins"), "{text}");
    // `status` and `moves` offer the answer, not a countersignature.
    let text = flat(&stdout(&t.starry(Some(1), &["status", &game])));
    assert!(text.contains("still wins"), "{text}");
    assert!(text.contains("starry play"), "{text}");
    let moves = t.json(Some(1), &["moves", &game, "--json"]);
    assert_eq!(moves["yours"], true, "{moves}");
    assert!(moves["count"].as_u64().unwrap() > 0, "{moves}");
    let first = moves["moves"][0]["move"].as_str().unwrap().to_string();
    // A countersignature would give the answer up: without a terminal it
    // is refused unless --yes says so, and nothing is written.
    let games_copy = t.homes[1].join("games");
    let before: Vec<_> = std::fs::read_dir(&games_copy)
        .unwrap()
        .map(|e| std::fs::read(e.unwrap().path()).unwrap())
        .collect();
    let out = t.starry(Some(1), &["countersign", &game]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(flat(&stderr(&out)).contains("--yes"), "{}", stderr(&out));
    let after: Vec<_> = std::fs::read_dir(&games_copy)
        .unwrap()
        .map(|e| std::fs::read(e.unwrap().path()).unwrap())
        .collect();
    assert_eq!(before, after);
    // Ben's move, on the copy that says "game over": written in the
    // claim's place.
    let report = t.json(Some(1), &["play", &game, &first, "--json"]);
    assert_eq!(report["entry"], claim, "{report}");
    assert_eq!(report["answers_claims_from"], claim, "{report}");
    assert_eq!(report["status"]["over"], false, "{report}");
    let ben_file = t.homes[1]
        .join("games")
        .join(format!("{}.jsonl", t.status()["game_id"].as_str().unwrap()));
    let ben_copy = lines(&ben_file);
    assert_eq!(ben_copy.len() as u64, claim + 1);
    assert_eq!(ben_copy[..claim as usize], anna_copy[..claim as usize]);
    // Audited together, the fork resolves by rule: Ben's copy wins.
    let audit = t.json(
        None,
        &["audit", t.log_str(), ben_file.to_str().unwrap(), "--json"],
    );
    assert_eq!(audit["valid"], true, "{audit}");
    // Anna takes Ben's copy in: hers follows it, the claim lapsed.
    let out = t.starry(
        Some(0),
        &["ingest", ben_file.to_str().unwrap(), "--into", t.log_str()],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(lines(&t.log), ben_copy);
    let s = t.status();
    assert_eq!(s["over"], false, "{s}");
    assert_eq!(s["to_act_seat"], 0, "{s}");
    // Ben's old copy, the one with the claim, taken in again: his stays.
    let old = t.dir.path().join("old.jsonl");
    std::fs::write(&old, anna_copy.join("\n") + "\n").unwrap();
    let out = t.starry(Some(1), &["ingest", old.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(lines(&ben_file), ben_copy);
}

#[test]
fn play_auto_answers_and_a_copy_cut_back_by_hand_is_not_refused() {
    let t = Table::new(2);
    let claim = back_dated_claim(&t);
    let out = t.starry(Some(1), &["ingest", t.log_str()]);
    assert!(out.status.success(), "{}", stderr(&out));
    // Ben cuts a copy back to before the claim, by hand; his games
    // directory's copy, which holds the claim, is no newer copy to it.
    let cut = t.dir.path().join("cut.jsonl");
    let all = lines(&t.log);
    std::fs::write(&cut, all[..claim as usize].join("\n") + "\n").unwrap();
    let report = t.json(
        Some(1),
        &["play", cut.to_str().unwrap(), "--auto", "--json"],
    );
    assert_eq!(report["kind"], "move", "{report}");
    assert_eq!(report["entry"], claim, "{report}");
    let audit = t.json(
        None,
        &["audit", t.log_str(), cut.to_str().unwrap(), "--json"],
    );
    assert_eq!(audit["valid"], true, "{audit}");
}

#[test]
fn no_automatic_path_countersigns_its_own_abandonment() {
    for how in [&["--auto"][..], &["--bot", "1", "--seed", "3"][..]] {
        let t = Table::new(2);
        let claim = back_dated_claim(&t);
        let mut args = vec!["play", t.log_str()];
        args.extend_from_slice(how);
        args.push("--json");
        let out = t.starry(Some(1), &args);
        assert!(out.status.success(), "{how:?}: {}", stderr(&out));
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["kind"], "move", "{how:?}: {report}");
        assert_eq!(report["entry"], claim, "{how:?}: {report}");
        assert_eq!(report["status"]["over"], false, "{how:?}: {report}");
        let audit = t.json(None, &["audit", t.log_str(), "--json"]);
        assert_eq!(audit["valid"], true, "{audit}");
    }
    // By hand, with --yes: written, and it says what it gave up before.
    let t = Table::new(2);
    back_dated_claim(&t);
    let out = t.starry(Some(1), &["countersign", t.log_str(), "--yes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(t.status()["seats"][1]["countersigned"], true);
    // Then the result stands: nothing is written in the claim's place.
    let before = std::fs::read(&t.log).unwrap();
    let out = t.starry(Some(1), &["play", t.log_str(), "--auto"]);
    assert!(!out.status.success(), "{}", stdout(&out));
    assert_eq!(std::fs::read(&t.log).unwrap(), before);
}

/// A claimant's own entries on the losing side — here her countersignature
/// of the result, which `--auto` writes once the game is over — do not keep
/// her from moving once the late answer has won: after taking it in, she
/// plays on at the position her countersignature had. (The record of her
/// last entry was left at that countersignature, and refused every later
/// entry of hers there as a second signature: Ben could then claim that
/// *she* stopped answering.)
#[test]
fn the_claimant_moves_on_after_the_late_answer_wins() {
    let t = Table::new(2);
    let claim = back_dated_claim(&t);
    let report = t.json(Some(0), &["play", t.log_str(), "--auto", "--json"]);
    assert_eq!(report["kind"], "countersign", "{report}");
    assert_eq!(report["entry"], claim + 1, "{report}");
    // Ben takes her copy in and answers in the claim's place.
    let out = t.starry(Some(1), &["ingest", t.log_str()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let game = t.status()["game_id"].as_str().unwrap().to_string();
    let report = t.json(Some(1), &["play", &game[..16], "--auto", "--json"]);
    assert_eq!(report["entry"], claim, "{report}");
    let ben_file = t.homes[1].join("games").join(format!("{game}.jsonl"));
    // Anna takes Ben's copy in: her claim and countersignature lapse.
    let out = t.starry(
        Some(0),
        &["ingest", ben_file.to_str().unwrap(), "--into", t.log_str()],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(lines(&t.log), lines(&ben_file));
    assert_eq!(t.status()["to_act_seat"], 0);
    // She moves on, at the position her countersignature had.
    let report = t.json(Some(0), &["play", t.log_str(), "--auto", "--json"]);
    assert_eq!(report["kind"], "move", "{report}");
    assert_eq!(report["entry"], claim + 1, "{report}");
    let audit = t.json(
        None,
        &["audit", t.log_str(), ben_file.to_str().unwrap(), "--json"],
    );
    assert_eq!(audit["valid"], true, "{audit}");
}

/// Issue 31, item 5: the claim rule trusts the genesis' `operator`, and
/// the protocol cannot check it, so the one who joins does. A person
/// never joins a seat the genesis calls a computer on another player's
/// machine (nobody could then claim against that "operator"), nor a game
/// that names her the operator of a seat her machine does not play (a
/// puppet she could never claim against). Nothing is written.
#[test]
fn a_false_operator_in_the_genesis_is_refused_at_the_join() {
    let ids = |t: &Table| -> Vec<Identity> {
        t.homes.iter().map(|h| Identity::load(h).unwrap()).collect()
    };
    let seat = |name: &str, email: &str, key: Option<&Identity>, operator: Option<u32>| SeatInfo {
        email: email.to_string(),
        key: key.map(|id| starry::log::entry::HexHash(id.public_key())),
        name: name.to_string(),
        operator,
    };
    // (a) Ben's seat, pinned to his key, called Anna's computer; (b) a
    // third seat, pinned to Cleo's key, called Ben's computer.
    for puppet in [false, true] {
        let t = Table::new(if puppet { 3 } else { 2 });
        let ids = ids(&t);
        let mut seats = vec![
            seat("Anna", &t.emails[0], None, None),
            seat(
                "Ben",
                &t.emails[1],
                None,
                if puppet { None } else { Some(0) },
            ),
        ];
        if puppet {
            seats.push(seat("Cleo", &t.emails[2], Some(&ids[2]), Some(1)));
        } else {
            seats[1].key = Some(starry::log::entry::HexHash(ids[1].public_key()));
        }
        act::create::<starry::games::star_map::StarMap>(
            act::Author {
                home: &t.homes[0],
                id: &ids[0],
            },
            act::Setup {
                seats,
                pairs: &[],
                extra: None,
            },
            &t.log,
            days_ago(0),
            &mut Draw::new([7; 32]),
        )
        .unwrap();
        let s = t.status();
        if s["action"] == "join" && s["to_act_seat"] == 0 {
            let out = t.starry(Some(0), &["join", t.log_str()]);
            assert!(out.status.success(), "{}", stderr(&out));
        }
        let before = std::fs::read(&t.log).unwrap();
        let out = t.starry(Some(1), &["join", t.log_str()]);
        assert_eq!(out.status.code(), Some(2), "{puppet}: {}", stderr(&out));
        let err = flat(&stderr(&out));
        let says = if puppet {
            "says that your machine plays seat 2"
        } else {
            "seat 1 (Ben) is a computer seat"
        };
        assert!(err.contains(says), "{err}");
        assert!(err.contains("Nothing was written"), "{err}");
        assert_eq!(std::fs::read(&t.log).unwrap(), before);
    }
}

/// A game of Star Map in which Anna's machine also plays a computer seat
/// (seat 2, after Ben), every entry dated 20 days ago and Anna's move 15
/// days ago, played until Ben is to move. Returns the game's id and the
/// computer seat.
fn game_with_a_computer_after_ben(t: &Table) -> ([u8; 32], starry::app::computer::Computer) {
    use starry::app::computer::{self, Computer};
    use starry::games::star_map::StarMap;
    let ids: Vec<Identity> = t.homes.iter().map(|h| Identity::load(h).unwrap()).collect();
    let robot = Computer::create(&t.homes[0], &ids[0], 2, 1, starry::bot::Level::DEFAULT).unwrap();
    let mut seats: Vec<SeatInfo> = ["Anna", "Ben"]
        .iter()
        .zip(&t.emails)
        .map(|(name, email)| SeatInfo {
            email: email.clone(),
            key: None,
            name: name.to_string(),
            operator: None,
        })
        .collect();
    seats.push(SeatInfo {
        email: robot.id.email.clone(),
        key: Some(starry::log::entry::HexHash(robot.id.public_key())),
        name: robot.id.name.clone(),
        operator: Some(0),
    });
    let mut draw = Draw::new([9; 32]);
    act::create::<StarMap>(
        act::Author {
            home: &t.homes[0],
            id: &ids[0],
        },
        act::Setup {
            seats,
            pairs: &[],
            extra: None,
        },
        &t.log,
        days_ago(20),
        &mut draw,
    )
    .unwrap();
    let game = Replay::<StarMap>::from_bytes(&std::fs::read(&t.log).unwrap())
        .unwrap()
        .game_id;
    computer::bind(std::slice::from_ref(&robot), &game).unwrap();
    play_until_ben_is_late::<StarMap>(
        &t.log,
        |s| match s {
            2 => (robot.home.as_path(), &robot.id),
            s => (t.homes[s].as_path(), &ids[s]),
        },
        &mut draw,
    );
    (game, robot)
}

/// After Anna and her computer claimed that Ben stopped answering (which
/// ends the game): Ben takes the log in and answers in the claims' place,
/// and Anna takes his copy in, which settles the fork for his copy (the
/// claims lapse) with the computer seat to move next. Runs Anna's `ingest`
/// with a time limit, so that a hang fails the test instead of the suite,
/// and checks that the computer moved at once and that both copies audit
/// valid. Returns the report of Anna's `ingest`.
fn ben_answers_late_and_anna_takes_it_in(t: &Table, game: &[u8; 32]) -> Value {
    let s = t.status();
    assert_eq!(s["ending"]["how"], "abandoned", "{s}");
    let out = t.starry(Some(1), &["ingest", t.log_str()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let id = hex::encode(game);
    let report = t.json(Some(1), &["play", &id[..16], "--auto", "--json"]);
    assert_eq!(report["status"]["to_act_seat"], 2, "{report}");
    let ben_file = t.homes[1].join("games").join(format!("{id}.jsonl"));
    let ben_copy = lines(&ben_file);
    // With a time limit: a hang here (the computer's locks against the
    // ingest's) fails this test instead of stopping the suite.
    let out = common::starry_within(
        &t.homes[0],
        &[
            "ingest",
            ben_file.to_str().unwrap(),
            "--into",
            t.log_str(),
            "--json",
        ],
        std::time::Duration::from_secs(60),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(report["resolution"].is_string(), "{report}");
    assert_eq!(report["then"][0]["seat"], 2, "{report}\n{}", stderr(&out));
    let now = lines(&t.log);
    assert_eq!(now[..ben_copy.len()], ben_copy[..]);
    assert!(now.len() > ben_copy.len());
    let audit = t.json(
        None,
        &["audit", t.log_str(), ben_file.to_str().unwrap(), "--json"],
    );
    assert_eq!(audit["valid"], true, "{audit}");
    report
}

/// Anna claims that Ben stopped answering, and her computer seat joins the
/// claim (each entry remembered in its writer's home); Ben answers late and
/// Anna takes his copy in. The computer's record of its last entry named
/// its lapsed claim, which the received log does not hold: it is moved
/// back like Anna's, and the computer moves at once, after Ben's answer
/// (left as it was, it would refuse every entry of the computer's at that
/// position as a second signature, and the computer could never move
/// again while its clock ran).
#[test]
fn a_computer_whose_claim_lapsed_moves_after_the_late_answer() {
    let t = Table::new(2);
    let (game, robot) = game_with_a_computer_after_ben(&t);
    let out = t.starry(Some(0), &["abandon", t.log_str(), "--yes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let claims = lines(&t.log).len() as u64 - 2;
    let read = |home: &std::path::Path| starry::app::written::read(home, &game).unwrap();
    assert_eq!(read(&robot.home).unwrap().entry, claims + 1);
    ben_answers_late_and_anna_takes_it_in(&t, &game);
    // The computer's record names its move on the winning side now.
    let after = lines(&t.log).len() as u64 - 1;
    assert_eq!(read(&robot.home).unwrap().entry, after);
    assert!(read(&t.homes[0]).unwrap().entry < claims);
}

/// The same with claims written by other means, that left no record of
/// them: the computer seat is to move at once after the resolved fork, and
/// `ingest` plays it while it still holds Anna's lock of the game (the
/// computer's lock is in its own home), without waiting for itself.
#[test]
fn a_late_answer_that_wins_is_followed_by_the_computers_move_without_a_hang() {
    use starry::games::star_map::StarMap;
    let t = Table::new(2);
    let (game, robot) = game_with_a_computer_after_ben(&t);
    let anna = Identity::load(&t.homes[0]).unwrap();
    let mut draw = Draw::new([9; 32]);
    for (home, id) in [(&t.homes[0], &anna), (&robot.home, &robot.id)] {
        let bytes = std::fs::read(&t.log).unwrap();
        let r = Replay::<StarMap>::from_bytes(&bytes).unwrap();
        let time = starry::log::replay::now();
        let (line, _) = act::build::<StarMap>(home, &r, id, Do::Abandon, time, &mut draw).unwrap();
        std::fs::write(&t.log, [bytes, line].concat()).unwrap();
    }
    ben_answers_late_and_anna_takes_it_in(&t, &game);
}
