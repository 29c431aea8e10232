//! Every example game passes `starry audit`; the finished ones print their
//! standings, the one in progress says so; together they cover 3, 4 and 5
//! players and both values of each variant.

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
        for key in ["doubling", "tie", "score"] {
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
    ] {
        assert!(options_seen.contains(o), "an example with {o}");
    }
    assert!(night_finished >= 2, "finished Starry Night games");
    assert!(
        night_takeback_accepted,
        "a Starry Night game with an accepted takeback"
    );
}
