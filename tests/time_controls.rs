//! Issue 31, items 3 and 4: time controls that a creator or a claimant
//! cannot switch off or turn against the silent player. A genesis re-signed
//! as protocol 2 (no deadline, any countersignature settles a claim) is
//! joined only when asked for, with a warning; a claim dated in the future
//! does not keep from Ben the move he must answer.

use crate::common;
use starry::crypto::identity::Stored as _;

use common::Table;
use serde_json::Value;
use starry::app::act::{self, Do};
use starry::crypto::identity::Identity;
use starry::games::Draw;
use starry::games::starry_night::StarryNight;
use starry::log::entry::{Body, Kind};
use starry::log::{Action, Replay};

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn flat(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn now_plus(seconds: i64) -> String {
    (chrono::Utc::now() + chrono::Duration::seconds(seconds))
        .format("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

/// Anna creates a Starry Night game as starry does, then re-signs its
/// genesis as protocol 2 (no deadline) and writes her join again on it.
fn protocol_2_game(t: &Table) {
    t.create_game("starry-night", &["--random-stars", "8"]);
    let text = std::fs::read_to_string(&t.log).unwrap();
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let mut body: Body = serde_json::from_value(first["body"].clone()).unwrap();
    body.data["protocol"] = 2.into();
    body.data.as_object_mut().unwrap().remove("deadline");
    let anna = Identity::load(&t.homes[0]).unwrap();
    let genesis = starry::log::replay::sign_line(&anna, body);
    let r = Replay::<StarryNight>::from_bytes(&genesis).unwrap();
    // A join record of the first game would refuse a second join.
    let _ = std::fs::remove_dir_all(t.homes[0].join("joined"));
    let (join, _) = act::build::<StarryNight>(
        &t.homes[0],
        &r,
        &anna,
        Do::JoinProtocol2(starry::log::entry::Notify::All),
        now_plus(0),
        &mut Draw::new([3; 32]),
    )
    .unwrap();
    let mut bytes = genesis;
    bytes.extend_from_slice(&join);
    std::fs::write(&t.log, bytes).unwrap();
    assert_eq!(t.status()["deadline"], Value::Null);
}

#[test]
fn a_protocol_2_game_is_joined_only_when_asked_for_and_with_a_warning() {
    let t = Table::new(2);
    protocol_2_game(&t);
    let before = std::fs::read(&t.log).unwrap();
    for args in [&["join"][..], &["play", "--auto"][..]] {
        let mut a = args.to_vec();
        a.insert(1, t.log_str());
        let out = t.starry(Some(1), &a);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let said = flat(&stderr(&out));
        assert!(said.contains("protocol 2"), "{said}");
        assert!(said.contains("--allow-protocol-2"), "{said}");
        assert!(said.contains("no time controls"), "{said}");
        assert_eq!(std::fs::read(&t.log).unwrap(), before);
    }
    let out = t.starry(Some(1), &["join", t.log_str(), "--allow-protocol-2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let said = flat(&stderr(&out));
    assert!(said.contains("no time controls"), "{said}");
    assert_eq!(t.status()["seats"][1]["joined"], true);
    // Old logs read as before: it audits valid.
    let audit = t.json(None, &["audit", t.log_str(), "--json"]);
    assert_eq!(audit["valid"], true, "{audit}");
}

#[test]
fn a_claim_dated_in_the_future_does_not_keep_the_move_from_the_silent_player() {
    let t = Table::new(2);
    t.create_game("starry-night", &["--random-stars", "8", "--deadline", "1s"]);
    // Play until Anna has moved and Ben must answer.
    let ben_copy = t.dir.path().join("ben.jsonl");
    let mut anna_moved = false;
    loop {
        let s = t.status();
        let who = s["to_act_seat"].as_u64().unwrap() as usize;
        if anna_moved && who == 1 && s["action"] == "move" {
            break;
        }
        if who == 0 && s["action"] == "move" {
            // Ben's own copy, before Anna's move.
            std::fs::copy(&t.log, &ben_copy).unwrap();
            anna_moved = true;
        }
        let out = t.starry(Some(who), &["play", t.log_str(), "--auto"]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let bytes = std::fs::read(&t.log).unwrap();
    let r = Replay::<StarryNight>::from_bytes(&bytes).unwrap();
    assert_eq!(r.expected(), (Action::Move, Some(1)));
    let with_move = r.len();
    // Anna's claim, dated 9999-12-31: valid to an audit, which reads no
    // clock.
    let anna = Identity::load(&t.homes[0]).unwrap();
    let secret = r.game_secret(&anna, 0).unwrap();
    let link = r.next_link(&secret, 0).unwrap();
    let data = serde_json::json!({"awaited": r.len(), "silent": 1});
    let line = r.next_line(
        &anna,
        0,
        Kind::Abandon,
        data,
        Some(link),
        "9999-12-31T23:59:59Z".into(),
    );
    let mut b = bytes;
    b.extend_from_slice(&line);
    std::fs::write(&t.log, &b).unwrap();
    let audit = t.json(None, &["audit", t.log_str(), "--json"]);
    assert_eq!(audit["valid"], true, "{audit}");
    // Ben's ingest takes the move, leaves the claim out, and says so.
    let before = std::fs::read_to_string(&ben_copy).unwrap().lines().count() as u64;
    assert_eq!(before + 1, with_move);
    let out = t.starry(
        Some(1),
        &[
            "ingest",
            t.log_str(),
            "--into",
            ben_copy.to_str().unwrap(),
            "--json",
        ],
    );
    let said = flat(&stderr(&out));
    assert_eq!(out.status.code(), Some(9), "{said}");
    assert!(said.contains("9999-12-31T23:59:59Z"), "{said}");
    assert!(said.contains("left out"), "{said}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["left_out"]["from"], with_move, "{report}");
    let kept = std::fs::read_to_string(&ben_copy).unwrap();
    assert_eq!(kept.lines().count() as u64, with_move);
    // And he answers it.
    let out = t.starry(Some(1), &["play", ben_copy.to_str().unwrap(), "--auto"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn join_warns_of_a_deadline_under_the_players_floor() {
    let t = Table::new(2);
    t.create_game("starry-night", &["--random-stars", "8", "--deadline", "1h"]);
    let out = t.starry(Some(1), &["join", t.log_str()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let said = flat(&stderr(&out));
    assert!(said.contains("shorter than the floor of 1 day"), "{said}");
    // With a floor the deadline meets, nothing is said.
    let t = Table::new(2);
    t.create_game("starry-night", &["--random-stars", "8", "--deadline", "1h"]);
    let out = t.starry(Some(1), &["join", t.log_str(), "--min-deadline", "1h"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("floor"), "{}", stderr(&out));
}

/// `status` says "waiting since" the time the clock counts from — the last
/// entry that is no claim — not the time of a claim.
#[test]
fn waiting_since_is_the_start_of_the_clock_not_a_claim() {
    let t = Table::new(3);
    t.create_game("starry-sky", &["--deadline", "1s"]);
    let s = t.play_until(|s| s["action"] == "move");
    let who = t.seat_of(s["to_act"].as_str().unwrap());
    let other = (0..3).find(|&x| x != who).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let out = t.starry(Some(other), &["abandon", t.log_str(), "--yes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let s = t.status();
    assert_eq!(s["over"], false, "{s}");
    let text = std::fs::read_to_string(&t.log).unwrap();
    let entries: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let since = s["clock"]["since"].as_u64().unwrap() as usize;
    let start = entries[since]["body"]["time"].as_str().unwrap();
    let claim = entries.last().unwrap()["body"]["time"].as_str().unwrap();
    assert_ne!(start, claim);
    assert_eq!(s["waiting_since"], start, "{s}");
    let out = flat(&String::from_utf8_lossy(
        &t.starry(None, &["status", t.log_str()]).stdout,
    ));
    assert!(out.contains(&format!("(since {start})")), "{out}");
}
