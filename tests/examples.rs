//! Every example game passes `starry audit`; the finished ones print their
//! standings, the one in progress says so; together they cover 3, 4 and 5
//! players and both values of each variant (Starry Sky), both scores
//! (Starry Night), and 2, 3 and 4 players, teams and three kinds of map
//! (Star Map).

use std::collections::BTreeSet;
use std::path::PathBuf;

use assert_cmd::Command;
use serde_json::Value;

#[test]
fn every_example_game_audits() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/games");
    let mut seats_seen = BTreeSet::new();
    let mut options_seen = BTreeSet::new();
    let mut in_progress = 0;
    let mut night_finished = 0;
    let mut night_takeback_accepted = false;
    let mut map_seats_seen = BTreeSet::new();
    let (mut map_passed, mut map_drew) = (false, false);
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_none_or(|x| x != "jsonl") {
            continue;
        }
        let out = Command::cargo_bin("starry")
            .unwrap()
            .arg("audit")
            .arg(&path)
            .arg("--json")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}: {}",
            path.display(),
            String::from_utf8_lossy(&out.stdout)
        );
        let r: Value = serde_json::from_slice(&out.stdout).unwrap();
        let f = &r["files"][0];
        assert_eq!(f["valid"], true);
        let genesis: Value = serde_json::from_str(
            std::fs::read_to_string(&path)
                .unwrap()
                .lines()
                .next()
                .unwrap(),
        )
        .unwrap();
        let seats = genesis["body"]["data"]["seats"].as_array().unwrap().len();
        let game = genesis["body"]["data"]["game"]
            .as_str()
            .unwrap()
            .to_string();
        let opts = &genesis["body"]["data"]["options"];
        for key in ["doubling", "tie", "score", "map"] {
            if let Some(v) = opts[key].as_str() {
                options_seen.insert(format!("{game} {key}={v}"));
            }
        }
        if game == "starry-night" {
            if f["over"] == true {
                night_finished += 1;
            }
            let notes = f["status"]["notes"].as_array().unwrap();
            if notes
                .iter()
                .any(|n| n.as_str().unwrap().contains("accepted"))
            {
                night_takeback_accepted = true;
            }
            continue;
        }
        if game == "star-map" {
            check_star_map(f, seats);
            map_seats_seen.insert(seats);
            let notes = f["status"]["notes"].as_array().unwrap();
            map_passed |= notes.iter().any(|n| {
                n.as_str()
                    .unwrap()
                    .contains("no legal placement and passed")
            });
            map_drew |= std::fs::read_to_string(&path)
                .unwrap()
                .lines()
                .any(|l| l.contains(r#""draw":"#));
            continue;
        }
        if f["over"] == true {
            seats_seen.insert(seats);
            assert_eq!(f["standings"].as_array().unwrap().len(), seats);
            let text = Command::cargo_bin("starry")
                .unwrap()
                .arg("audit")
                .arg(&path)
                .output()
                .unwrap();
            assert!(String::from_utf8_lossy(&text.stdout).contains("Final standings"));
        } else {
            in_progress += 1;
            assert!(f["standings"].is_null());
        }
    }
    assert_eq!(
        seats_seen,
        BTreeSet::from([3, 4, 5]),
        "finished games with 3, 4 and 5 players"
    );
    assert!(in_progress >= 1, "a game in progress");
    for o in [
        "starry-sky doubling=additive",
        "starry-sky doubling=compound",
        "starry-sky tie=coins",
        "starry-sky tie=nothing",
        "starry-night score=count",
        "starry-night score=area",
        "star-map map=random",
        "star-map map=hard",
        "star-map map=mixed",
    ] {
        assert!(options_seen.contains(o), "an example with {o}");
    }
    assert!(night_finished >= 2, "finished Starry Night games");
    assert!(
        night_takeback_accepted,
        "a Starry Night game with an accepted takeback"
    );
    assert_eq!(
        map_seats_seen,
        BTreeSet::from([2, 3, 4]),
        "finished Star Map games with 2, 3 and 4 players"
    );
    assert!(map_passed, "a Star Map game with a pass");
    assert!(
        map_drew,
        "a Star Map game with a draw chosen from another stack"
    );
}

/// A Star Map example: finished, countersigned by every seat; the standings
/// rank the scores (more points first, equal points share a rank), and with
/// four players the partners (seats 0 and 2, 1 and 3) share a team, its
/// score and its rank, and teams rank as teams (the losing pair is second);
/// the text gives the standings.
fn check_star_map(f: &Value, seats: usize) {
    let file = f["file"].as_str().unwrap();
    assert_eq!(f["over"], true, "{file}: finished");
    assert_eq!(f["ending"]["how"], "finished", "{file}");
    assert_eq!(
        f["countersigned"].as_array().unwrap().len(),
        seats,
        "{file}: countersigned by every seat"
    );
    let standings = f["standings"].as_array().unwrap();
    assert_eq!(standings.len(), seats, "{file}");
    let score = |r: &Value| r["score"].as_i64().unwrap();
    for r in standings {
        // Seats ahead; with four players, teams ahead (partners count once).
        let ahead = standings.iter().filter(|o| score(o) > score(r)).count();
        let ahead = if seats == 4 { ahead / 2 } else { ahead };
        assert_eq!(r["rank"], ahead + 1, "{file}: {r}");
        assert_eq!(r["unit"], "points", "{file}");
        let seat = r["seat"].as_u64().unwrap();
        if seats == 4 {
            assert_eq!(r["team"], seat % 2, "{file}: {r}");
            let partner = standings
                .iter()
                .find(|o| o["seat"] == (seat + 2) % 4)
                .unwrap();
            assert_eq!(
                (score(partner), &partner["rank"]),
                (score(r), &r["rank"]),
                "{file}: partners share the team's score and rank"
            );
        } else {
            assert!(r["team"].is_null(), "{file}: no teams with {seats} players");
        }
    }
    let text = Command::cargo_bin("starry")
        .unwrap()
        .arg("audit")
        .arg(file)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("Final standings"), "{text}");
    if seats == 4 {
        assert!(
            text.contains("(team 0)") && text.contains("(team 1)"),
            "{text}"
        );
    }
}
