//! The game in words: `starry history`, "since your last entry" in `status`
//! and `view`, and `starry games`, through the real binary on the example
//! games (whose every entry is known).

use crate::common;

use std::path::PathBuf;

use common::*;
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn example(name: &str) -> String {
    root()
        .join("examples/games")
        .join(name)
        .display()
        .to_string()
}

fn identity(who: &str) -> PathBuf {
    common::example_home(who)
}

fn events(file: &str) -> Vec<Value> {
    let home = tempfile::tempdir().unwrap();
    let out = starry_in(home.path(), &["history", &example(file), "--json"]);
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let errors: Vec<String> = validator("history.json")
        .iter_errors(&v)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    v["events"].as_array().unwrap().clone()
}

fn text_at(events: &[Value], entry: usize) -> &str {
    assert_eq!(events[entry]["entry"], entry as u64);
    events[entry]["text"].as_str().unwrap()
}

#[test]
fn starry_night_told_entry_by_entry() {
    let e = events("starry-night-takeback.jsonl");
    assert_eq!(e.len(), 27, "one event per entry");
    assert_eq!(
        text_at(&e, 0),
        "Anna started a game of Starry Night for Anna and Ben."
    );
    assert_eq!(text_at(&e, 2), "Ben joined.");
    assert_eq!(
        text_at(&e, 4),
        "Anna gave their share of the setup randomness. Everyone was ready: the game began."
    );
    assert_eq!(text_at(&e, 5), "Ben chose Anna to move first.");
    assert_eq!(text_at(&e, 6), "Anna drew edge F-K (1,5 to 9,9).");
    assert_eq!(
        text_at(&e, 13),
        "Ben drew edge F-I (1,5 to 2,8), capturing a sea of 10 squares. Scores: Ben +1."
    );
    assert_eq!(
        text_at(&e, 14),
        "Anna asked to take back the last two edges."
    );
    // The takeback undoes Ben's sea: the score goes back.
    assert_eq!(
        text_at(&e, 15),
        "Ben accepted the takeback. Scores: Ben -1."
    );
    assert_eq!(text_at(&e, 21), "Ben declined the takeback.");
    assert_eq!(e[21]["seat"], 1, "Ben is seat 1: seats count from 0");
    assert_eq!(e[21]["name"], "Ben");
}

#[test]
fn starry_sky_told_with_scores_and_the_end() {
    let e = events("finished-3p-additive-coins.jsonl");
    assert_eq!(e.len(), 120);
    assert_eq!(text_at(&e, 7), "Anna placed 7 on capricorn:6.");
    // Every scored board pays someone: some entries change the scores.
    let scoring = e
        .iter()
        .filter(|x| x["text"].as_str().unwrap().contains(" Scores: "))
        .count();
    assert!(scoring >= 12, "only {scoring} entries changed a score");
    // The entry that ended the game says so, and who won.
    let end = e
        .iter()
        .find(|x| x["text"].as_str().unwrap().contains("The game is over"))
        .expect("the end is told");
    assert!(end["text"].as_str().unwrap().ends_with(" won."), "{end}");
    assert_eq!(
        text_at(&e, 119),
        "Cleo countersigned the result.",
        "countersigning changes no score"
    );
}

#[test]
fn star_map_told_with_placements_and_draws() {
    let e = events("star-map-2-players.jsonl");
    let placed: Vec<&str> = e
        .iter()
        .map(|x| x["text"].as_str().unwrap())
        .filter(|t| t.contains(" laid "))
        .collect();
    assert!(placed.len() > 10, "{placed:?}");
    assert!(
        e.iter().any(|x| x["text"]
            .as_str()
            .unwrap()
            .contains(" passed: no legal placement.")),
        "the example game has a pass"
    );
}

#[test]
fn since_your_last_entry_in_status_and_view() {
    // In the example game in progress, Anna wrote the last entry (37) and
    // Dan the one before (36): Dan has missed one entry, Anna none.
    let log = example("in-progress-4p.jsonl");
    let dan = String::from_utf8(starry_in(&identity("dan"), &["status", &log]).stdout).unwrap();
    assert!(
        dan.contains(
            "Since your last entry:\n   37. Anna turned over their face-down ds on sagittarius:7."
        ),
        "{dan}"
    );
    let anna = String::from_utf8(starry_in(&identity("anna"), &["status", &log]).stdout).unwrap();
    assert!(!anna.contains("Since your last entry"), "{anna}");
    // Cleo last wrote entry 32: she sees 33 to 37, in her view too.
    let cleo = String::from_utf8(starry_in(&identity("cleo"), &["view", &log]).stdout).unwrap();
    let since = &cleo[cleo
        .find("Since your last entry:")
        .expect("cleo missed entries")..];
    for n in ["33.", "34.", "35.", "36.", "37."] {
        assert!(since.contains(n), "{n} in {since}");
    }
    assert!(!since[..since.find("Waiting").unwrap()].contains("32."));
    // --since-mine in history says the same.
    let out = starry_in(
        &identity("cleo"),
        &["history", &log, "--since-mine", "--json"],
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let entries: Vec<u64> = v["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["entry"].as_u64().unwrap())
        .collect();
    assert_eq!(entries, [33, 34, 35, 36, 37]);
    // A spectator has no "last entry".
    let home = tempfile::tempdir().unwrap();
    let out = starry_in(home.path(), &["history", &log, "--since-mine"]);
    assert_eq!(out.status.code(), Some(4), "no identity");
}

#[test]
fn games_lists_every_game_your_turns_first_and_survives_a_bad_file() {
    let home = tempfile::tempdir().unwrap();
    // Dan's identity, and three games in his games directory: two example
    // games and a file that is not a log.
    std::fs::copy(
        identity("dan").join("identity.json"),
        home.path().join("identity.json"),
    )
    .unwrap();
    let games = home.path().join("games");
    std::fs::create_dir_all(&games).unwrap();
    std::fs::copy(
        example("finished-4p-compound-nothing.jsonl"),
        games.join("a.jsonl"),
    )
    .unwrap();
    std::fs::copy(example("in-progress-4p.jsonl"), games.join("b.jsonl")).unwrap();
    std::fs::write(games.join("c.jsonl"), b"this is not a log\n").unwrap();
    let out = starry_in(home.path(), &["games", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let errors: Vec<String> = validator("games.json")
        .iter_errors(&v)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    let rows = v["games"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    // In progress (waiting for Cleo, not Dan), then over, then the bad file.
    assert!(rows[0]["file"].as_str().unwrap().ends_with("b.jsonl"));
    assert_eq!(rows[0]["to_act"], "Cleo");
    assert_eq!(rows[0]["action"], "move");
    assert_eq!(rows[0]["your_turn"], false);
    assert_eq!(rows[0]["entries"], 38);
    assert_eq!(rows[0]["players"][3], "Dan");
    assert!(rows[1]["file"].as_str().unwrap().ends_with("a.jsonl"));
    assert_eq!(rows[1]["over"], true);
    // A finished game names who came first, as `status` ranks them.
    let status = starry_in(
        home.path(),
        &["status", rows[1]["file"].as_str().unwrap(), "--json"],
    );
    let status: Value = serde_json::from_slice(&status.stdout).unwrap();
    let first: Vec<Value> = status["standings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["rank"] == 1)
        .map(|s| s["name"].clone())
        .collect();
    assert!(!first.is_empty(), "{status}");
    assert_eq!(rows[1]["winners"], Value::Array(first.clone()));
    assert_eq!(rows[0]["winners"], serde_json::json!([]), "not over yet");
    let text = String::from_utf8(starry_in(home.path(), &["games"]).stdout).unwrap();
    let said = if first.len() == 1 {
        format!("over: {} won — ", first[0].as_str().unwrap())
    } else {
        "share first place — ".to_string()
    };
    assert!(text.contains(&said), "{said} in {text}");
    assert!(rows[2]["problem"].as_str().unwrap().contains("c.jsonl"));
    // Cleo's turn comes first in Cleo's list, in words.
    std::fs::copy(
        identity("cleo").join("identity.json"),
        home.path().join("identity.json"),
    )
    .unwrap();
    let text = String::from_utf8(starry_in(home.path(), &["games"]).stdout).unwrap();
    assert!(
        text.starts_with(
            "8c09e41c2c8d7e12 Starry Sky — Anna, Ben, Cleo and Dan\n    YOUR TURN (move) since 2026-11-02 10:17 — 38 entries"
        ),
        "{text}"
    );
    // An empty games directory says how to get a game.
    let empty = tempfile::tempdir().unwrap();
    let text = String::from_utf8(starry_in(empty.path(), &["games"]).stdout).unwrap();
    assert!(text.starts_with("No games in"), "{text}");
}
