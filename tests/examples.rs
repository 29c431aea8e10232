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
        let opts = &genesis["body"]["data"]["options"];
        options_seen.insert(format!("doubling={}", opts["doubling"].as_str().unwrap()));
        options_seen.insert(format!("tie={}", opts["tie"].as_str().unwrap()));
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
        "doubling=additive",
        "doubling=compound",
        "tie=coins",
        "tie=nothing",
    ] {
        assert!(options_seen.contains(o), "an example with {o}");
    }
}
