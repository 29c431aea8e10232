//! A full 3-player game through the real binary, each command run as its own
//! player from its own STARRY_HOME, ending in a valid audit; at every step no
//! face-down token of one player is visible to anyone else, and none of a
//! player's secrets appears in the log or in another player's view.

use crate::common;
use crate::players;

use std::collections::BTreeMap;

use common::*;
use players::{encodings, secrets_of};
use serde_json::Value;

/// The face-down tokens `seat` sees as their own: star label → token.
fn own_face_down(view: &Value) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    for slot in view["view"]["slots"].as_array().into_iter().flatten() {
        for star in slot["board"]["stars"].as_array().into_iter().flatten() {
            let occ = &star["occupant"];
            if occ["face"] == "face-down-own" {
                m.insert(
                    star["label"].as_str().unwrap().to_string(),
                    occ["token"].as_str().unwrap().to_string(),
                );
            }
        }
    }
    m
}

fn star<'a>(view: &'a Value, label: &str) -> &'a Value {
    for slot in view["view"]["slots"].as_array().into_iter().flatten() {
        for star in slot["board"]["stars"].as_array().into_iter().flatten() {
            if star["label"] == label {
                return star;
            }
        }
    }
    panic!("no star {label}");
}

#[test]
fn three_players_play_a_whole_game_and_nobody_sees_a_face_down_token() {
    let t = Table::new(3);
    t.create(&[]);
    let mut entries = 0;
    let mut face_down_checked = 0;
    loop {
        let status = t.status();
        if status["over"] == true {
            break;
        }
        let who = t.seat_of(status["to_act"].as_str().unwrap());
        let out = t.starry(Some(who), &["play", t.log_str(), "--auto", "--json"]);
        assert!(
            out.status.success(),
            "play --auto failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        entries += 1;
        assert!(entries < 2000, "the game does not end");

        // Secrecy, after every entry.
        let log = std::fs::read(&t.log).unwrap();
        let log_text = String::from_utf8_lossy(&log).to_string();
        let views: Vec<(Value, String)> = (0..3)
            .map(|s| {
                let j = t.json(Some(s), &["view", t.log_str(), "--json"]);
                let text =
                    String::from_utf8_lossy(&t.starry(Some(s), &["view", t.log_str()]).stdout)
                        .to_string();
                (j, text)
            })
            .collect();
        let spectator = t.json(None, &["view", t.log_str(), "--json"]);
        let spectator_text =
            String::from_utf8_lossy(&t.starry(None, &["view", t.log_str()]).stdout).to_string();
        for s in 0..3 {
            let secrets = secrets_of(&t.homes[s], &log, s);
            for secret in &secrets {
                for enc in encodings(secret) {
                    assert!(
                        !log_text.contains(&enc),
                        "a secret of seat {s} is in the log"
                    );
                    assert!(
                        !spectator_text.contains(&enc) && !spectator.to_string().contains(&enc)
                    );
                    for (o, (j, text)) in views.iter().enumerate() {
                        if o != s {
                            assert!(
                                !text.contains(&enc) && !j.to_string().contains(&enc),
                                "a secret of seat {s} is in seat {o}'s view"
                            );
                        }
                    }
                }
            }
            for (label, _token) in own_face_down(&views[s].0) {
                face_down_checked += 1;
                for (o, (j, _)) in views.iter().enumerate().filter(|(o, _)| *o != s) {
                    let occ = &star(j, &label)["occupant"];
                    assert_eq!(
                        occ["face"], "face-down",
                        "seat {o} sees seat {s}'s token on {label}"
                    );
                    assert!(
                        occ.get("token").is_none(),
                        "seat {o} sees seat {s}'s token on {label}"
                    );
                }
                let occ = &star(&spectator, &label)["occupant"];
                assert_eq!(occ["face"], "face-down");
                assert!(occ.get("token").is_none());
                // The move entry that placed it carries no token, only a commitment.
                for l in log_text.lines() {
                    let v: Value = serde_json::from_str(l).unwrap();
                    if v["body"]["data"]["action"]["star"] == label.as_str()
                        && v["body"]["kind"] == "move"
                    {
                        let data = &v["body"]["data"];
                        if data["commitments"].as_array().unwrap().len() == 1 {
                            assert!(data["action"].get("token").is_none());
                        }
                    }
                }
            }
        }
    }
    assert!(
        face_down_checked > 20,
        "the game had face-down tokens to check ({face_down_checked})"
    );

    let audit = t.json(None, &["audit", t.log_str(), "--json"]);
    assert_eq!(audit["valid"], true, "{audit}");
    let f = &audit["files"][0];
    assert_eq!(f["over"], true);
    let standings = f["standings"].as_array().unwrap();
    assert_eq!(standings.len(), 3);
    // Coins are what the scored boards paid: never negative, and the
    // standings are ordered by them.
    let coins: Vec<i64> = standings
        .iter()
        .map(|s| s["score"].as_i64().unwrap())
        .collect();
    assert!(
        coins.windows(2).all(|w| w[0] >= w[1]) && coins.iter().all(|&c| c >= 0),
        "{coins:?}"
    );
    assert!(
        coins.iter().sum::<i64>() > 12,
        "12 boards paid out something: {coins:?}"
    );

    // The text audit prints the standings.
    let out = t.starry(None, &["audit", t.log_str()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("valid") && text.contains("Final standings"),
        "{text}"
    );
}

/// What `play` prints after writing is the writer's own view, as `view`
/// shows it to them: "(you)", their hand, and the face-down token they
/// have just placed with its value — which nobody else's view shows.
#[test]
fn after_playing_the_writer_sees_their_own_view() {
    let t = Table::new(3);
    t.create(&[]);
    t.play_until(|s| s["action"] == "move");
    for _ in 0..60 {
        let s = t.status();
        let who = t.seat_of(s["to_act"].as_str().unwrap());
        let text = t.ok(who, &["play", t.log_str(), "--auto"]);
        let log = std::fs::read_to_string(&t.log).unwrap();
        let last: Value = serde_json::from_str(log.lines().last().unwrap()).unwrap();
        if last["body"]["kind"] != "move" {
            continue;
        }
        assert!(text.contains("(you)"), "{text}");
        assert!(text.contains("Your hand ("), "{text}");
        let data = &last["body"]["data"];
        if data["commitments"].as_array().unwrap().len() != 1 {
            continue;
        }
        let label = data["action"]["star"].as_str().unwrap();
        let own = t.json(Some(who), &["view", t.log_str(), "--json"]);
        let token = own_face_down(&own)[label].clone();
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{label} ")))
            .unwrap_or_else(|| panic!("{label} in {text}"));
        assert!(
            line.contains(&format!("{token} (face down, only you see it)")),
            "{line}"
        );
        for other in (0..3).filter(|&o| o != who) {
            let theirs = t.ok(other, &["view", t.log_str()]);
            let l = theirs
                .lines()
                .find(|l| l.trim_start().starts_with(&format!("{label} ")))
                .unwrap();
            assert!(l.contains("face down") && !l.contains("only you"), "{l}");
        }
        return;
    }
    panic!("no face-down token was placed in 60 entries");
}

/// Once a game is over, the countersignature a player owes is theirs to
/// write: `status --json` names who countersigns next, and `games` lists it
/// as that player's turn, with the command, one player at a time.
#[test]
fn the_countersignature_owed_is_listed_by_status_and_games() {
    let t = Table::new(2);
    t.create_game("starry-night", &[]);
    let end = t.play_until(|_| false);
    assert_eq!(end["over"], true);
    assert_eq!(end["to_act"], Value::Null);
    let id16 = end["game_id"].as_str().unwrap()[..16].to_string();
    let command = format!("starry countersign {id16} --mail");
    let c = &end["countersign"];
    assert_eq!(c["missing"], serde_json::json!([0, 1]), "{end}");
    let named = c["next_seat"].as_u64().unwrap() as usize;
    let other = 1 - named;
    assert_eq!(c["next_name"], end["seats"][named]["name"]);
    assert_eq!(c["next_email"], t.emails[named].as_str());
    let name = c["next_name"].as_str().unwrap().to_string();
    let row = |seat: usize| t.json(Some(seat), &["games", "--json"])["games"][0].clone();
    let text = |seat: usize| t.ok(seat, &["games"]);
    for seat in [named, other] {
        let r = row(seat);
        assert_eq!(r["over"], true, "{r}");
        assert_eq!(r["action"], "countersign", "{r}");
        assert_eq!(r["to_act"], name.as_str(), "{r}");
        assert_eq!(r["your_turn"], seat == named, "{r}");
    }
    assert_eq!(row(named)["command"], command.as_str());
    assert_eq!(row(other)["command"], Value::Null);
    let mine = text(named);
    assert!(mine.contains("YOUR TURN to countersign"), "{mine}");
    assert!(
        mine.lines().any(|l| l == format!("    {command}")),
        "the command on a line of its own: {mine}"
    );
    let theirs = text(other);
    assert!(
        theirs.contains(&format!("{name} countersigns next")),
        "{theirs}"
    );
    // The one named countersigns; then the other is.
    t.ok(named, &["countersign", t.log_str()]);
    let s = t.status();
    assert_eq!(s["countersign"]["next_seat"], other as u64, "{s}");
    assert_eq!(
        s["countersign"]["missing"],
        serde_json::json!([other]),
        "{s}"
    );
    assert_eq!(row(other)["your_turn"], true);
    assert_eq!(row(other)["command"], command.as_str());
    assert_eq!(row(named)["your_turn"], false);
    t.ok(other, &["countersign", t.log_str()]);
    // Nothing is owed any more.
    let s = t.status();
    assert_eq!(s["countersign"], Value::Null, "{s}");
    for seat in [named, other] {
        let r = row(seat);
        assert_eq!(r["action"], Value::Null, "{r}");
        assert_eq!(r["your_turn"], false, "{r}");
        assert!(!text(seat).contains("countersign"), "{}", text(seat));
    }
}
