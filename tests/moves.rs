//! `starry moves` with the real binary: in every game, what it lists for
//! the player to act is what `play` takes; nobody else gets a list; and a
//! whole game can be played with nothing but `moves` and `play`.

use serde_json::Value;

use crate::common::{self, Table};

/// Plays `play --auto` as whoever must act until the first move of the
/// game, then `extra` more entries.
fn to_a_move(t: &Table, extra: usize) -> Value {
    t.play_until(|s| s["action"] == "move");
    for _ in 0..extra {
        let s = t.status();
        let who = t.seat_of(s["to_act"].as_str().unwrap());
        t.ok(who, &["play", t.log_str(), "--auto"]);
    }
    t.play_until(|s| s["action"] == "move")
}

fn moves(t: &Table, seat: Option<usize>, extra: &[&str]) -> Value {
    let mut args = vec!["moves", t.log_str(), "--json"];
    args.extend_from_slice(extra);
    let v = t.json(seat, &args);
    let schema = common::validator("moves.json");
    assert!(schema.is_valid(&v), "{v}");
    v
}

#[test]
fn each_game_lists_what_play_takes_and_only_for_the_player_to_act() {
    let games: [(&str, usize, &[&str], &[&str]); 3] = [
        ("starry-sky", 3, &[], &["token "]),
        ("star-map", 2, &[], &[" r0", " r90"]),
        (
            "starry-night",
            2,
            &["--stars", "0,0 4,0 0,2 4,2 8,5 6,7"],
            &["star A"],
        ),
    ];
    for (game, seats, extra, words) in games {
        let t = Table::new(seats);
        t.create_game(game, extra);
        let s = to_a_move(&t, 3);
        let me = t.seat_of(s["to_act"].as_str().unwrap());
        let v = moves(&t, Some(me), &[]);
        let listed: Vec<String> = v["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["move"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(v["yours"], true, "{game}");
        assert_eq!(v["action"], "move", "{game}");
        assert_eq!(v["to_act_seat"], me as u64, "{game}");
        assert_eq!(v["count"], listed.len() as u64, "{game}");
        assert!(v["hint"].is_null(), "{game}: {v}");
        assert!(!listed.is_empty(), "{game}");
        // The first, the middle and the last are each taken by `play`,
        // and a dry run leaves the log as it was.
        let before = std::fs::read(&t.log).unwrap();
        for m in [
            &listed[0],
            &listed[listed.len() / 2],
            &listed[listed.len() - 1],
        ] {
            t.ok(me, &["play", t.log_str(), m, "--dry-run"]);
            assert_eq!(std::fs::read(&t.log).unwrap(), before, "{game}: {m}");
        }
        // --limit shows fewer and still counts all.
        let few = moves(&t, Some(me), &["--limit", "2"]);
        assert_eq!(few["count"], v["count"], "{game}");
        assert_eq!(few["moves"].as_array().unwrap().len(), listed.len().min(2));
        assert_eq!(few["moves"][0], v["moves"][0]);
        // The text groups them in the game's words and says how to play one.
        let text = t.ok(me, &["moves", t.log_str()]);
        assert!(
            text.contains(&format!("Your {} legal move", listed.len())),
            "{text}"
        );
        assert!(words.iter().any(|w| text.contains(w)), "{game}: {text}");
        assert!(
            text.contains(&format!(
                "Play one with `starry play {} \"{}\"`",
                t.log_str(),
                listed[0]
            )),
            "{text}"
        );
        // Another player, and someone with no identity, get no list: the
        // moves depend on what the player to act alone holds.
        for other in [Some((me + 1) % seats), None] {
            let o = moves(&t, other, &[]);
            assert_eq!(o["yours"], false, "{game}");
            assert_eq!(o["count"], 0, "{game}");
            assert!(o["moves"].as_array().unwrap().is_empty(), "{game}");
            assert!(
                o["hint"].as_str().unwrap().starts_with("It is "),
                "{game}: {o}"
            );
            let text = String::from_utf8(t.starry(other, &["moves", t.log_str()]).stdout).unwrap();
            assert!(
                text.contains("turn (move). Only their program can list their moves"),
                "{text}"
            );
        }
        // Playing the middle one for real is the move the log records next.
        let n = t.status()["entries"].as_u64().unwrap();
        t.ok(me, &["play", t.log_str(), &listed[listed.len() / 2]]);
        assert_eq!(t.status()["entries"].as_u64().unwrap(), n + 1, "{game}");
    }
}

#[test]
fn a_whole_starry_night_is_played_with_moves_and_play_alone() {
    let t = Table::new(2);
    t.create_game("starry-night", &["--stars", "0,0 4,0 0,2 4,2 8,5 6,7 2,6"]);
    let mut turns = 0;
    loop {
        let s = t.status();
        if s["over"] == true {
            break;
        }
        let who = t.seat_of(s["to_act"].as_str().unwrap());
        let v = moves(&t, Some(who), &[]);
        if v["action"] != "move" {
            // Joining and readying are not moves: `moves` names the
            // command, and the list is empty.
            assert!(v["moves"].as_array().unwrap().is_empty());
            let action = v["action"].as_str().unwrap();
            assert!(
                v["hint"]
                    .as_str()
                    .unwrap()
                    .contains(&format!("run `starry {action} ")),
                "{v}"
            );
            let text = t.ok(who, &["moves", t.log_str()]);
            assert!(text.contains(&format!("run `starry {action} ")), "{text}");
            t.ok(who, &["play", t.log_str(), "--auto"]);
            continue;
        }
        let listed = v["moves"].as_array().unwrap();
        let pick = listed[(turns * 7) % listed.len()]["move"].as_str().unwrap();
        t.ok(who, &["play", t.log_str(), pick]);
        turns += 1;
        assert!(turns < 40, "the game ends");
    }
    assert!(turns >= 5, "{turns} moves");
    let over = moves(&t, Some(0), &[]);
    assert_eq!(over["action"], "over");
    assert_eq!(over["hint"], "The game is over: there are no moves.");
    assert!(over["moves"].as_array().unwrap().is_empty());
    let audit = t.starry(None, &["audit", t.log_str()]);
    assert!(
        audit.status.success(),
        "{}",
        String::from_utf8_lossy(&audit.stdout)
    );
}
