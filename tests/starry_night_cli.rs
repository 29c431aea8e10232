//! Starry Night through the real binary: a game played by hand with labels
//! and grid points, a dry run, takebacks accepted and declined, every past
//! position with `view --at`, the audit and the status; and a table of
//! refusals, each with its exit code and the log left exactly as it was.

use crate::common;
use crate::players;

use common::*;
use players::{encodings, secrets_in};
use serde_json::Value;
use starry::games::starry_night::StarryNight;

/// A ← 0,0  B ← 4,0  C ← 0,2  D ← 4,2  E ← 8,5: the Z trade and a far star.
const SKY: &str = "0,0 4,0 0,2 4,2 8,5";

fn table() -> Table {
    let t = Table::new(2);
    t.create_game("starry-night", &["--stars", SKY]);
    t.ok(1, &["join", t.log_str()]);
    for _ in 0..2 {
        let s = t.status();
        let who = t.seat_of(s["to_act"].as_str().unwrap());
        t.ok(who, &["ready", t.log_str()]);
    }
    t
}

fn view(t: &Table, at: Option<usize>) -> Value {
    let mut args = vec!["view", t.log_str(), "--json", "--spectator"];
    let n;
    if let Some(at) = at {
        n = at.to_string();
        args.extend(["--at", &n]);
    }
    t.json(None, &args)["view"].clone()
}

#[test]
fn a_game_by_hand_with_a_dry_run_takebacks_and_history() {
    let t = table();
    let log = t.log_str();
    // Ben (seat 1) chooses; Anna (seat 0) moves first.
    assert_eq!(t.status()["to_act"], "ben@example.org");
    let out = t.ok(1, &["play", log, "first 0"]);
    assert!(out.contains("Anna to draw an edge"), "{out}");
    t.ok(0, &["play", log, "A-B"]);
    t.ok(1, &["play", log, "0,2-4,2"]);
    t.ok(0, &["play", log, "a d"]);
    // A dry run shows the capture and writes nothing.
    let before = std::fs::read(&t.log).unwrap();
    let dry = t.ok(1, &["play", log, "A-C", "--dry-run"]);
    assert!(dry.contains("Dry run, nothing written"), "{dry}");
    assert!(dry.contains("capturing a sea of 4 squares"), "{dry}");
    assert!(dry.contains("captured by ben"), "{dry}");
    assert_eq!(std::fs::read(&t.log).unwrap(), before);
    t.ok(1, &["play", log, "A-C"]);
    let after_capture = std::fs::read_to_string(&t.log).unwrap().lines().count();
    // Anna asks to take back A-C and A-D; Ben accepts.
    t.ok(0, &["play", log, "takeback"]);
    assert_eq!(t.status()["to_act"], "ben@example.org");
    t.ok(1, &["play", log, "accept"]);
    let v = view(&t, None);
    assert_eq!(v["edges"].as_array().unwrap().len(), 2);
    assert_eq!(v["scores"][1]["seas"], 0);
    assert_eq!(v["turn"]["seat"], 0);
    // The earlier position is still there to see.
    let past = view(&t, Some(after_capture - 1));
    assert_eq!(past["scores"][1]["seas"], 1);
    assert_eq!(past["seas"][0]["captor"], 1);
    assert_eq!(past["seas"][0]["area"], 8);
    // Ben captures again; Anna asks again; Ben declines; Anna must move.
    t.ok(0, &["play", log, "A-D"]);
    t.ok(1, &["play", log, "A-C"]);
    t.ok(0, &["play", log, "takeback"]);
    t.ok(1, &["play", log, "decline"]);
    let status = t.ok(0, &["status", log]);
    assert!(
        status.contains("ben chose that Anna moves first."),
        "{status}"
    );
    assert!(
        status.contains(
            "Anna asked to take back the last two edges when 4 were drawn; ben accepted."
        ),
        "{status}"
    );
    assert!(status.contains("ben declined."), "{status}");
    assert!(status.contains("Waiting for Anna"), "{status}");
    // Anna takes the other side of the Z; Ben joins E, the last isolated
    // star: 1–1, and the last mover (Ben) wins.
    t.ok(0, &["play", log, "B-D"]);
    let end = t.ok(1, &["play", log, "D-E"]);
    assert!(end.contains("The game is over"), "{end}");
    let audit = t.json(None, &["audit", log, "--json"]);
    let f = &audit["files"][0];
    assert_eq!(f["valid"], true);
    assert_eq!(f["standings"][0]["name"], "ben");
    assert_eq!(f["standings"][0]["score"], 1);
    assert_eq!(f["standings"][0]["unit"], "seas");
    assert_eq!(f["standings"][1]["score"], 1);
    let text = String::from_utf8(t.starry(None, &["audit", log]).stdout).unwrap();
    assert!(text.contains("ben declined."), "{text}");
    // Every position validates against the view schema, and a player's view
    // is the spectator's: nothing is hidden in Starry Night.
    t.assert_every_view_valid("starry-night-view.json");
    let mine = t.json(Some(0), &["view", log, "--json"]);
    assert_eq!(mine["view"]["edges"], view(&t, None)["edges"]);
    // No secret of either player anywhere in the log or the views.
    let bytes = std::fs::read(&t.log).unwrap();
    let shown = format!(
        "{}{}",
        String::from_utf8_lossy(&bytes),
        t.ok(1, &["view", log])
    );
    for seat in 0..2 {
        for secret in secrets_in::<StarryNight>(&t.homes[seat], &bytes, seat) {
            for e in encodings(&secret) {
                assert!(!shown.contains(&e), "a secret of seat {seat} leaked");
            }
        }
    }
}

#[test]
fn the_text_view_draws_the_sky() {
    let t = table();
    let log = t.log_str();
    t.ok(1, &["play", log, "first 1"]);
    t.ok(1, &["play", log, "A-B"]);
    t.ok(0, &["play", log, "C-D"]);
    t.ok(1, &["play", log, "A-D"]);
    let out = t.ok(0, &["play", log, "A-C"]);
    // A-B across the top, C-D across, A-C down, the diagonal A-D, and
    // Anna's initial inside the sea she captured.
    let drawing: Vec<&str> = out.lines().collect();
    let row = |y: usize| {
        let prefix = format!("{y:>3} ");
        drawing
            .iter()
            .find(|l| l.starts_with(&prefix))
            .copied()
            .unwrap()
    };
    assert!(row(0).contains("A---------------B"), "{out}");
    assert!(row(2).contains("C---------------D"), "{out}");
    assert!(out.contains("     |"), "{out}");
    assert!(out.contains('\\'), "{out}");
    assert!(out.contains(" a "), "Anna's mark: {out}");
    assert!(
        out.contains("Score (seas): Anna (a) 1 sea, ben (b) 0 seas"),
        "{out}"
    );
    assert!(out.contains("Isolated stars: E"), "{out}");
}

#[test]
fn refusals_name_the_problem_and_change_nothing() {
    let t = table();
    let log = t.log_str();
    let cases: &[(usize, &str, i32, &str)] = &[
        (0, "first 0", 19, "it is not your turn: seat 1"),
        (1, "A-B", 20, "first choose who moves first"),
        (1, "first 3", 2, "not a seat"),
    ];
    let check = |cases: &[(usize, &str, i32, &str)]| {
        for &(seat, mv, code, says) in cases {
            let before = std::fs::read(&t.log).unwrap();
            let out = t.starry(Some(seat), &["play", log, mv]);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(code), "{mv}: {err}");
            assert!(err.contains(says), "{mv}: {err}");
            assert_eq!(
                std::fs::read(&t.log).unwrap(),
                before,
                "{mv} changed the log"
            );
        }
    };
    check(cases);
    t.ok(1, &["play", log, "first 0"]);
    t.ok(0, &["play", log, "A-D"]);
    check(&[
        (0, "B-C", 19, "it is not your turn: seat 1"),
        (1, "B-C", 20, "would cross the edge A-D"),
        (1, "A-D", 20, "A and D are joined already"),
        (1, "A-Z", 2, "there is no star `Z`"),
        (1, "1,1-0,0", 2, "there is no star at 1,1"),
        (1, "A", 2, "is not a move"),
        (1, "takeback", 20, "you have drawn no edge yet"),
        (1, "accept", 20, "nobody asked for a takeback"),
        (1, "first 1", 20, "chosen already"),
    ]);
}

#[test]
fn a_sky_is_checked_when_the_game_is_created() {
    let t = Table::new(2);
    let players = t.emails.join(",");
    let many: String = (0..170)
        .map(|i| format!("{},{} ", i % 100, i / 100))
        .collect();
    let cases: &[(&[&str], &str)] = &[
        (&["--stars", "1,1 1,1 2,2"], "given twice"),
        (&["--stars", "1,1 2,2"], "3 to 200 stars"),
        (
            &["--stars", "1,1 2,2 9,9", "--grid", "5x5"],
            "outside the 5×5 grid",
        ),
        (&["--stars", "1,1 2,x 3,3"], "`2,x` is not a star"),
        (&["--random-stars", "30", "--grid", "5x5"], "do not fit"),
        (&["--random-stars", "lots"], "give a number of stars"),
        (&["--grid", "10"], "give the grid as WxH"),
        (&["--grid", "0x10"], "each side must be 1 to 100 points"),
        (
            &["--stars", "1,1 2,2 3,1", "--random-stars", "5"],
            "cannot be used with",
        ),
        (&["--variant", "score=most"], "score=count or score=area"),
        (&["--boards", "x.json"], "--boards sets Starry Sky's boards"),
        (
            &["--random-stars", "170", "--grid", "40x40"],
            "beacon chain",
        ),
        (&["--stars", &many], "beacon chain"),
    ];
    for (extra, says) in cases {
        let mut args = vec![
            "new",
            "starry-night",
            "--players",
            &players,
            "--out",
            t.log_str(),
        ];
        args.extend_from_slice(extra);
        let out = t.starry(Some(0), &args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {err}");
        assert!(err.contains(says), "{extra:?}: {err}");
        assert!(!t.log.exists(), "{extra:?} wrote a log");
    }
    // Starry Night is for two; the sky flags are Starry Night's.
    let three = Table::new(3);
    let out = three.new_game_of("starry-night", &[]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("starry-night is for 2 players"));
    let out = t.new_game(&players, &["--stars", "1,1 2,2 3,1"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--stars sets Starry Night's sky"));
}

#[test]
fn a_random_sky_appears_when_everyone_is_ready_and_auto_play_finishes() {
    let t = Table::new(2);
    t.create_game(
        "starry-night",
        &[
            "--random-stars",
            "9",
            "--grid",
            "6x6",
            "--variant",
            "score=area",
        ],
    );
    let s = t.play_until(|_| false);
    assert_eq!(s["over"], true);
    let v = view(&t, None);
    assert_eq!(v["stars"].as_array().unwrap().len(), 9);
    assert_eq!(v["score"], "area");
    assert!(
        v["stars"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["isolated"] == false)
    );
    let audit = t.json(None, &["audit", t.log_str(), "--json"]);
    assert_eq!(audit["files"][0]["valid"], true);
    assert_eq!(audit["files"][0]["standings"][0]["unit"], "half squares");
    // The demo plays the same game.
    let demo = t.starry(None, &["demo", "--game", "starry-night"]);
    let text = String::from_utf8_lossy(&demo.stdout);
    assert!(demo.status.success(), "{text}");
    assert!(text.contains("Audit: valid"), "{text}");
    // "1 sea" or "N seas": a random game may end with one sea each.
    assert!(text.contains(" sea ") || text.contains(" seas "), "{text}");
}

#[test]
fn rules_score_scores_a_drawing_without_keys() {
    let t = Table::new(1);
    let position = t.dir.path().join("drawing.json");
    std::fs::write(
        &position,
        r#"{"stars":[[0,0],[4,0],[0,2],[4,2],[8,5]],"first":1,
            "edges":[[[0,0],[4,0]],[[0,2],[4,2]],[[0,0],[4,2]],[[0,0],[0,2]]],"score":"area"}"#,
    )
    .unwrap();
    let p = position.to_str().unwrap();
    let r = t.json(
        None,
        &["rules", "score", "--game", "starry-night", p, "--json"],
    );
    assert!(validator("starry-night-referee.json").validate(&r).is_ok());
    assert_eq!(
        r["view"]["scores"][0]["score"], 8,
        "seat 0 closed the triangle: 8 half squares"
    );
    assert_eq!(r["standings"][0]["seat"], 0);
    let text = String::from_utf8(
        t.starry(None, &["rules", "score", "--game", "starry-night", p])
            .stdout,
    )
    .unwrap();
    assert!(text.contains("C---------------D"), "{text}");
    std::fs::write(
        &position,
        r#"{"stars":[[0,0],[4,0],[0,2],[4,2]],"edges":[[[0,0],[4,2]],[[4,0],[0,2]]]}"#,
    )
    .unwrap();
    let out = t.starry(None, &["rules", "score", "--game", "starry-night", p]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("edge 2 (4,0 to 0,2): the edge B-C would cross the edge A-D"),
        "{err}"
    );
}

#[test]
fn a_resignation_ends_the_game_in_every_view() {
    let t = table();
    let log = t.log_str();
    t.ok(1, &["play", log, "first 0"]);
    t.ok(0, &["play", log, "A-B"]);
    t.ok(1, &["resign", log, "--yes"]);
    let v = view(&t, None);
    assert_eq!(v["turn"]["seat"], Value::Null);
    assert_eq!(v["turn"]["must"], "nothing");
    assert_eq!(v["legal_edges"], 0);
    assert_eq!(v["result"]["winner"], 0);
    assert_eq!(
        v["result"]["withdrawn"],
        serde_json::json!({"seat": 1, "how": "resigned"})
    );
    let text = t.ok(0, &["view", log]);
    assert!(
        text.contains("Game over: Anna wins (ben resigned)."),
        "{text}"
    );
    assert!(
        !text.contains("Turn:") && !text.contains("Isolated stars"),
        "{text}"
    );
    let audit = t.json(None, &["audit", log, "--json"]);
    assert_eq!(audit["files"][0]["standings"][0]["name"], "Anna");
}

#[test]
fn notation_forgives_case_and_spacing_and_a_typo_is_wrong_use() {
    let t = table();
    let log = t.log_str();
    let before = std::fs::read(&t.log).unwrap();
    // Ben chooses who moves first, in any case and spacing.
    for text in ["First 0", " FIRST  ME ", "0 first"] {
        let out = t.ok(1, &["play", log, text, "--dry-run"]);
        assert!(out.contains("Dry run, nothing written"), "{text}: {out}");
    }
    let choose = "A move now is `first 0`: Choose who moves first";
    t.notation_refused(1, "frist 0", &["did you mean `first 0`?", choose]);
    t.notation_refused(1, "first 3", &["`3` is not a seat", choose]);
    t.notation_refused(1, "", &["the move is empty"]);
    assert_eq!(std::fs::read(&t.log).unwrap(), before);
    t.ok(1, &["play", log, "first 0"]);

    // Anna draws: an edge from A to B written every way.
    let before = std::fs::read(&t.log).unwrap();
    for text in [
        "A-B",
        "a-b",
        " a - b ",
        "A -B",
        "a b",
        "0, 0 - 4, 0",
        "0,0 4,0",
        "A 4 ,0",
    ] {
        let out = t.ok(0, &["play", log, text, "--dry-run"]);
        assert!(out.contains("edge A-B"), "{text}: {out}");
    }
    let edge = "A move now is `EDGE`: EDGE is two stars as labelled in the view";
    for (text, says) in [
        (
            "A-Z",
            vec!["there is no star `Z`; this sky has stars A to E", edge],
        ),
        (
            "5,0-0,0",
            vec!["there is no star at 5,0", "did you mean B at 4,0?", edge],
        ),
        ("takebak", vec!["did you mean `takeback`?", edge]),
        ("acept", vec!["did you mean `accept`?"]),
        ("A-B-C", vec!["`A-B-C` is not a move", edge]),
        ("3,x-1,1", vec!["`3,x` is not a grid point", edge]),
    ] {
        t.notation_refused(0, text, &says);
    }
    let err = t.notation_refused(0, "A-Q", &["there is no star `Q`"]);
    assert!(!err.contains("did you mean"), "{err}");
    // Moves that read but break a rule stay rule errors (exit 20).
    for text in ["takeback", "ACCEPT", "a-a"] {
        let out = t.starry(Some(0), &["play", log, text]);
        assert_eq!(
            out.status.code(),
            Some(20),
            "{text}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(std::fs::read(&t.log).unwrap(), before);
}
