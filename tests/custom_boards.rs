//! A custom board set through the real binary: it travels in the genesis, so
//! the audit needs nothing else; and a set that can never be completed ends
//! as a stalled game instead of hanging.

use crate::common;

use common::*;
use serde_json::json;

/// Three boards of 10 stars for 3 players, who hold 27 tokens.
fn unfinishable() -> String {
    let board = |id: &str| {
        json!({
            "id": id, "name": id.to_uppercase(), "prizes": [10, 8],
            "stars": (0..10).map(|i| json!({"large": i % 3 == 0, "at": [i * 10, i * 5]})).collect::<Vec<_>>(),
            "lines": (1..10).map(|i| json!([i, i + 1])).collect::<Vec<_>>(),
        })
    };
    json!({"boards": [board("one"), board("two"), board("three")]}).to_string()
}

#[test]
fn a_custom_set_that_cannot_be_completed_ends_as_stalled() {
    let t = Table::new(3);
    let file = t.dir.path().join("boards.json");
    std::fs::write(&file, unfinishable()).unwrap();
    let players = t.emails.join(",");
    let out = t.new_game(&players, &["--boards", file.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The board file is not needed any more: the genesis holds the set.
    std::fs::remove_file(&file).unwrap();
    t.play_until(|s| s["action"] == "move");
    // Each player puts three tokens on each board: 9 per board, so no board
    // is ever completed, no token comes back, and after 27 moves nobody can
    // move.
    let tokens = ["1", "3", "5", "6", "7", "10", "bh", "ds", "ds"];
    let boards = ["one", "two", "three"];
    let mut next_star = [1; 3];
    for (round, token) in tokens.iter().enumerate() {
        for seat in 0..3 {
            let b = (round + seat) % 3;
            let mv = format!("{token} {}:{}", boards[b], next_star[b]);
            next_star[b] += 1;
            let out = t.starry(Some(seat), &["play", t.log_str(), &mv]);
            assert!(
                out.status.success(),
                "{mv}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    let s = t.status();
    assert_eq!(s["over"], true, "{s}");
    // 27 moves, nothing scored: nobody has a coin.
    assert!(
        s["standings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["score"] == 0 && r["rank"] == 1)
    );
    let view = String::from_utf8_lossy(&t.starry(None, &["view", t.log_str()]).stdout).to_string();
    assert!(view.contains("stalled"), "{view}");
    let v = t.json(None, &["view", t.log_str(), "--json"]);
    assert_eq!(v["view"]["ended"], "stalled");
    let audit = t.json(None, &["audit", t.log_str(), "--json"]);
    assert_eq!(audit["valid"], true);
    assert_eq!(audit["files"][0]["over"], true);
    // Reported as stalled, never as finished.
    assert_eq!(audit["files"][0]["ending"]["how"], "stalled");
    let text = String::from_utf8_lossy(&t.starry(None, &["audit", t.log_str()]).stdout).to_string();
    assert!(text.contains("stalled"), "{text}");
    let status = t.status();
    assert_eq!(status["ending"]["how"], "stalled");
}

#[test]
fn a_board_set_that_could_outlast_a_beacon_chain_is_refused_at_new() {
    // 45 boards of 10 stars, 3 players: up to 450 moves and 90 reveals, so
    // one seat could need 2·540 + 3 + 4 entries, more than 1024 links.
    let t = Table::new(3);
    let boards: Vec<serde_json::Value> = (0..45)
        .map(|i| {
            serde_json::json!({"id": format!("b{i}"), "name": format!("Board {i}"), "prizes": [9, 7],
                "stars": vec![serde_json::json!({"large": false, "at": [0, 0]}); 10], "lines": [[1, 2]]})
        })
        .collect();
    let file = t.dir.path().join("big.json");
    std::fs::write(&file, serde_json::json!({ "boards": boards }).to_string()).unwrap();
    let players = t.emails.join(",");
    let out = t.new_game(&players, &["--boards", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("beacon chain") && err.contains("1087"),
        "{err}"
    );
    assert!(!t.log.exists());
}
