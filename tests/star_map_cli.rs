//! Star Map through the real binary: a game played by hand on a given map
//! layout, with a dry run that shows what a placement would score, `--auto`
//! moves, every past position with `view --at`, the JSON views checked
//! against their schema, the status and the audit; a four-player team game;
//! a table of refusals, each with its exit code and the log left exactly as
//! it was; `new` refusing another game's flags, bad layouts and bad data
//! files; a tiny game on custom data with a pass; the demo and `rules list`.
//!
//! The deal comes from randomness every player contributes, so the test
//! reads each position from the log (the library's own replay) to choose
//! its moves and to know what they must score.

use crate::common;
use crate::players;

use std::path::Path;

use common::*;
use players::{encodings, secrets_in};
use serde_json::{Value, json};
use starry::games::star_map::data::{Rotation, Shape};
use starry::games::star_map::map::{Placement, Refusal, Scored, Sq};
use starry::games::star_map::{StarMap, State, view};
use starry::log::Replay;

/// A map with both sides of the parts, given part by part.
const LAYOUT: &str = "1b 2s 3b 4s / 5s 6b 7s 8b / 9b 10s 11b 12s / 13s 14b 15s 16b";
/// Every part on its symbol side: restrictions to be refused.
const HARD: &str = "16s 15s 14s 13s / 12s 11s 10s 9s / 8s 7s 6s 5s / 4s 3s 2s 1s";

/// A game of `n` players created with `extra`, joined and set up.
fn table(n: usize, extra: &[&str]) -> Table {
    let t = Table::new(n);
    t.create_game("star-map", extra);
    loop {
        let s = t.status();
        let action = s["action"].as_str().unwrap().to_string();
        if action != "join" && action != "ready" {
            break;
        }
        let who = t.seat_of(s["to_act"].as_str().unwrap());
        t.ok(who, &[action.as_str(), t.log_str()]);
    }
    t
}

/// The position the log is in, from the library's own replay.
fn state(t: &Table) -> State {
    Replay::<StarMap>::from_bytes(&std::fs::read(&t.log).unwrap())
        .unwrap()
        .state
        .unwrap()
}

fn entries(t: &Table) -> usize {
    std::fs::read_to_string(&t.log).unwrap().lines().count()
}

/// The spectator's JSON view, after `at` entries or now.
fn view_json(t: &Table, at: Option<usize>) -> Value {
    let mut args = vec!["view", t.log_str(), "--json", "--spectator"];
    let n;
    if let Some(at) = at {
        n = at.to_string();
        args.extend(["--at", &n]);
    }
    t.json(None, &args)["view"].clone()
}

/// `corner1 f8 r90` for a placement of `seat`'s, with `draw SHAPE` if given.
fn move_text(s: &State, seat: usize, p: &Placement, draw: Option<Shape>) -> String {
    let (shape, k) = s
        .hand_names(seat)
        .into_iter()
        .find(|(d, _)| *d == p.disc)
        .map(|(_, n)| n)
        .expect("a disc of the hand");
    let mut text = format!("{shape}{k} {} {}", p.at, p.rotation);
    if let Some(d) = draw {
        text.push_str(&format!(" draw {d}"));
    }
    text
}

/// What a legal placement would score, on a copy of the map.
fn score(s: &State, p: &Placement) -> Scored {
    let disc = &s.set().discs[p.disc as usize];
    let mut map = s.map().clone();
    let squares = map
        .check(disc.shape, &disc.fields, p.at, p.rotation)
        .unwrap();
    map.lay(p.disc, &disc.fields, &squares);
    map.score(&squares)
}

/// How the move list and `play` describe a placement.
fn describe(s: &State, p: &Placement) -> String {
    let disc = &s.set().discs[p.disc as usize];
    format!(
        "{} {} on {}{}{}",
        disc.shape,
        s.fields_text(p.disc),
        p.at,
        view::rotation_text(disc.shape, p.rotation),
        view::scored_text(s.set(), &score(s, p))
    )
}

/// Text with every run of white space made one blank: long lines of the
/// views are wrapped.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A placement of `seat`'s that the map refuses for a reason `want` picks.
fn refused(s: &State, seat: usize, want: impl Fn(&Refusal) -> bool) -> Option<(String, Refusal)> {
    for &d in s.hand(seat) {
        let disc = &s.set().discs[d as usize];
        for &rotation in disc.shape.rotations() {
            for i in 0..144u8 {
                let at = Sq(i);
                if let Err(r) = s.map().check(disc.shape, &disc.fields, at, rotation)
                    && want(&r)
                {
                    let p = Placement {
                        disc: d,
                        at,
                        rotation,
                    };
                    return Some((move_text(s, seat, &p, None), r));
                }
            }
        }
    }
    None
}

/// Plays `mv` as `seat` and requires it refused with `code` and a message
/// that says `says`, the log unchanged (a dry run too).
fn refuse(t: &Table, seat: usize, mv: &str, code: i32, says: &str) {
    let before = std::fs::read(&t.log).unwrap();
    for dry in [false, true] {
        let mut args = vec!["play", t.log_str(), mv];
        if dry {
            args.push("--dry-run");
        }
        let out = t.starry(Some(seat), &args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(code),
            "{mv} (dry run: {dry}): {err}"
        );
        assert!(err.contains(says), "{mv}: `{says}` not in: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert_eq!(
            std::fs::read(&t.log).unwrap(),
            before,
            "{mv} changed the log"
        );
    }
}

/// No secret of any player anywhere in the log, the text views or the JSON
/// view.
fn assert_no_secrets(t: &Table, seats: usize) {
    let bytes = std::fs::read(&t.log).unwrap();
    let mut shown = String::from_utf8_lossy(&bytes).into_owned();
    for seat in 0..seats {
        shown.push_str(&t.ok(seat, &["view", t.log_str()]));
        shown.push_str(&t.ok(seat, &["view", t.log_str(), "--json"]));
        shown.push_str(&t.ok(seat, &["status", t.log_str(), "--json"]));
    }
    for seat in 0..seats {
        for secret in secrets_in::<StarMap>(&t.homes[seat], &bytes, seat) {
            for e in encodings(&secret) {
                assert!(!shown.contains(&e), "a secret of seat {seat} leaked");
            }
        }
    }
}

#[test]
fn a_game_by_hand_with_a_dry_run_auto_moves_and_history() {
    // Written for Anna to move first: deal again in the rare case that
    // nothing of hers fits next to the start disc.
    let t = (0..20)
        .map(|_| table(2, &["--map", LAYOUT]))
        .find(|t| state(t).to_move() == Some(0))
        .expect("in 20 deals the first seat can place at least once");
    let log = t.log_str();
    let setup = entries(&t);
    assert_eq!(setup, 5, "genesis, two joins, two readies");
    let s = state(&t);
    assert_eq!(s.layout().to_string(), LAYOUT);
    let status = t.ok(0, &["status", log]);
    assert!(
        flat(&status).contains(&format!("The map: {LAYOUT}.")),
        "{status}"
    );
    assert!(status.contains("The start disc is a corner"), "{status}");
    let text = t.ok(0, &["view", log]);
    assert!(text.contains(&format!("Parts: {LAYOUT}.")), "{text}");
    assert!(text.contains("Star Map — the view of Anna"), "{text}");
    assert!(
        text.contains(&format!(
            "Anna to move ({} legal placements)",
            s.placements(0).len()
        )),
        "{text}"
    );
    for name in ["corner1", "three1", "two1", "two2", "one1", "one2"] {
        assert!(text.contains(name), "{name} in {text}");
    }
    let v = view_json(&t, None);
    assert_eq!(v["turn"], 0);
    assert_eq!(v["moves"], 0);
    assert_eq!(v["placements"], s.placements(0).len());
    assert_eq!(v["hands"][0].as_array().unwrap().len(), 6);
    assert_eq!(v["start"]["squares"].as_array().unwrap().len(), 3);

    // Anna's best placement: a dry run says what it scores and writes
    // nothing.
    let best = s
        .placements(0)
        .into_iter()
        .rev()
        .max_by_key(|p| score(&s, p).points)
        .unwrap();
    let scored = score(&s, &best);
    let mv = move_text(&s, 0, &best, None);
    let said = describe(&s, &best);
    let before = std::fs::read(&t.log).unwrap();
    let dry = t.ok(0, &["play", log, &mv, "--dry-run"]);
    assert!(
        flat(&dry).contains(&format!(
            "Dry run, nothing written. Entry 5: Anna — laid {said}."
        )),
        "{dry}"
    );
    let dry_json = t.json(Some(0), &["play", log, &mv, "--dry-run", "--json"]);
    assert_eq!(dry_json["dry_run"], true);
    assert_eq!(dry_json["summary"], format!("laid {said}"));
    assert_eq!(std::fs::read(&t.log).unwrap(), before);

    // Played for real, it scores exactly that, and Anna's draw waits for
    // Ben's entry.
    let out = t.ok(0, &["play", log, &mv]);
    assert!(
        flat(&out).contains(&format!("Entry 5: Anna — laid {said}.")),
        "{out}"
    );
    let shape = s.set().discs[best.disc as usize].shape;
    let v = view_json(&t, None);
    assert_eq!(v["scores"][0]["points"], scored.points);
    assert_eq!(v["pending"], json!({"seat": 0, "shape": shape}));
    assert_eq!(v["hands"][0].as_array().unwrap().len(), 5);
    assert_eq!(v["last"]["move"], "place");
    assert_eq!(v["last"]["at"], best.at.to_string());
    assert_eq!(v["turn"], 1);
    let text = t.ok(0, &["view", log]);
    assert!(
        flat(&text).contains(&format!("Anna is drawing a {shape} (pending")),
        "{text}"
    );
    // Ben's entry will draw it: his program knows his next link, so his
    // view shows the disc Anna draws before he moves (protocol 6.3).
    let bens = t.json(Some(1), &["view", log, "--json"])["view"].clone();
    assert_eq!(bens["pending"], Value::Null);
    let drawn = bens["hands"][0][5].clone();
    assert_eq!(drawn["shape"], json!(shape));
    let text = t.ok(1, &["view", log]);
    assert!(!text.contains("is drawing"), "{text}");

    // Ben moves with --auto: his entry draws Anna's disc.
    t.ok(1, &["play", log, "--auto"]);
    assert_eq!(entries(&t), setup + 2);
    let v = view_json(&t, None);
    assert_eq!(v["pending"]["seat"], 1);
    assert_eq!(v["hands"][0].as_array().unwrap().len(), 6);
    assert_eq!(v["hands"][0][5], drawn, "the disc Ben's view showed");
    assert_eq!(v["hands"][1].as_array().unwrap().len(), 5);

    // A few more moves by hand (the first legal placement) and by --auto.
    for _ in 0..3 {
        let s = state(&t);
        let seat = s.to_move().unwrap();
        let p = s.placements(seat)[0];
        let out = t.ok(seat, &["play", log, &move_text(&s, seat, &p, None)]);
        assert!(flat(&out).contains(&describe(&s, &p)), "{out}");
        let s = state(&t);
        let seat = s.to_move().unwrap();
        t.ok(seat, &["play", log, "--auto"]);
    }

    // The earlier positions are still there to see.
    // `--at N`: after entry N; the setup's last entry is `setup - 1`.
    let past = view_json(&t, Some(setup - 1));
    assert_eq!(past["moves"], 0);
    assert_eq!(past["scores"][0]["points"], 0);
    assert_eq!(past["last"], Value::Null);
    assert_eq!(past["pending"], Value::Null);
    let past = view_json(&t, Some(setup));
    assert_eq!(past["moves"], 1);
    assert_eq!(past["scores"][0]["points"], scored.points);
    assert_eq!(past["last"]["at"], best.at.to_string());
    assert_eq!(past["turn"], 1);
    let past_text = t.ok(0, &["view", log, "--at", &setup.to_string()]);
    assert!(
        past_text.contains(&format!("after entry {setup}")),
        "{past_text}"
    );
    assert!(
        flat(&past_text).contains(&format!("Last move: Anna placed a {said}.")),
        "{past_text}"
    );

    // To the end with --auto.
    let s = t.play_until(|_| false);
    assert_eq!(s["over"], true);
    let end = state(&t);
    assert!(end.is_over());
    let v = view_json(&t, None);
    assert_eq!(v["over"], true);
    assert_eq!(v["turn"], Value::Null);
    for seat in 0..2 {
        assert_eq!(v["scores"][seat]["minus"], end.hand_fields(seat));
        assert_eq!(
            v["scores"][seat]["score"],
            end.placement_points(seat) - end.hand_fields(seat)
        );
    }
    let audit = t.json(None, &["audit", log, "--json"]);
    let f = &audit["files"][0];
    assert_eq!(f["valid"], true);
    assert_eq!(f["over"], true);
    let rows = f["standings"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    for r in rows {
        let seat = r["seat"].as_u64().unwrap() as usize;
        assert_eq!(r["score"], end.own_score(seat));
        assert_eq!(r["unit"], "points");
        assert_eq!(r["team"], Value::Null, "no teams with two players");
    }
    let ranks: Vec<u64> = rows.iter().map(|r| r["rank"].as_u64().unwrap()).collect();
    let scores: Vec<i64> = rows.iter().map(|r| r["score"].as_i64().unwrap()).collect();
    assert!(scores[0] >= scores[1]);
    assert_eq!(
        ranks,
        if scores[0] == scores[1] {
            [1, 1]
        } else {
            [1, 2]
        }
    );
    let text = String::from_utf8(t.starry(None, &["audit", log]).stdout).unwrap();
    assert!(
        flat(&text).contains(&format!("The map: {LAYOUT}.")),
        "{text}"
    );
    let status = t.ok(0, &["status", log]);
    assert!(status.contains("The game is over"), "{status}");
    let final_view = t.ok(0, &["view", log]);
    assert!(
        flat(&final_view).contains("The game is over: nobody can place a disc."),
        "{final_view}"
    );

    // Every position validates against the view schema; a player's view is
    // the spectator's but for `viewer`: nothing is hidden in Star Map.
    let schema = t.assert_every_view_valid("star-map-view.json");
    let mine = t.json(Some(1), &["view", log, "--json"]);
    assert!(schema.validate(&mine).is_ok());
    assert_eq!(mine["view"]["viewer"], 1);
    let mut theirs = view_json(&t, None);
    theirs["viewer"] = json!(1);
    assert_eq!(mine["view"], theirs);
    assert_no_secrets(&t, 2);
}

#[test]
fn a_four_player_team_game_to_its_end() {
    let t = table(4, &["--map", "mixed"]);
    let log = t.log_str();
    let v = view_json(&t, None);
    assert_eq!(v["teams"][0]["seats"], json!([0, 2]));
    assert_eq!(v["teams"][1]["seats"], json!([1, 3]));
    let text = t.ok(2, &["view", log]);
    assert!(text.contains("cleo (seat 2), team 0: 0 points"), "{text}");
    assert!(text.contains("ben (seat 1), team 1: 0 points"), "{text}");
    let s = t.play_until(|_| false);
    assert_eq!(s["over"], true);
    let end = state(&t);
    let own: Vec<i64> = (0..4).map(|seat| end.own_score(seat)).collect();
    let team = [own[0] + own[2], own[1] + own[3]];

    // Partners share the team's score and rank.
    let status = t.status();
    let rows = status["standings"].as_array().unwrap();
    assert_eq!(rows.len(), 4);
    let row = |seat: u64| rows.iter().find(|r| r["seat"] == seat).unwrap();
    for (a, b, tm) in [(0, 2, 0), (1, 3, 1)] {
        assert_eq!(
            row(a)["team"],
            tm,
            "status counts teams from 0, as the view"
        );
        assert_eq!(row(b)["team"], tm);
        assert_eq!(row(a)["score"], team[tm as usize]);
        assert_eq!(row(b)["score"], team[tm as usize]);
        assert_eq!(row(a)["rank"], row(b)["rank"]);
    }
    // The two partners of the better team come first (a tie: all first).
    assert_eq!(rows[0]["rank"], 1);
    if team[0] != team[1] {
        let better = if team[0] > team[1] { [0, 2] } else { [1, 3] };
        let first: Vec<u64> = rows[..2]
            .iter()
            .map(|r| r["seat"].as_u64().unwrap())
            .collect();
        assert!(first.iter().all(|s| better.contains(s)), "{rows:?}");
    }
    let notes = status["notes"].as_array().unwrap();
    assert!(
        notes.contains(&json!("Teams: Anna and cleo against ben and dan.")),
        "{notes:?}"
    );

    let v = view_json(&t, None);
    for (i, tv) in v["teams"].as_array().unwrap().iter().enumerate() {
        assert_eq!(tv["team"], i);
        assert_eq!(tv["score"], team[i]);
    }
    for seat in 0..4 {
        assert_eq!(v["scores"][seat]["team"], seat % 2);
        assert_eq!(v["scores"][seat]["score"], own[seat]);
    }
    let text = t.ok(0, &["view", log]);
    assert!(
        flat(&text).contains(&format!(
            "Teams: Anna + cleo: {}; ben + dan: {}",
            team[0], team[1]
        )),
        "{text}"
    );
    let audit = t.json(None, &["audit", log, "--json"]);
    assert_eq!(audit["files"][0]["valid"], true);
    assert_eq!(audit["files"][0]["standings"], status["standings"]);
    let status_text = t.ok(0, &["status", log]);
    assert!(status_text.contains("(team 0)"), "{status_text}");
    assert!(status_text.contains("(team 1)"), "{status_text}");
    assert_no_secrets(&t, 4);
}

/// What the refusal loop looks for, each found at most once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Mismatch,
    OnlyStar,
    NotStar,
    Meteorite,
    NoContact,
    Diagonal,
    Draw,
}

const KINDS: [Kind; 7] = [
    Kind::Mismatch,
    Kind::OnlyStar,
    Kind::NotStar,
    Kind::Meteorite,
    Kind::NoContact,
    Kind::Diagonal,
    Kind::Draw,
];

fn kind_of(r: &Refusal) -> Option<Kind> {
    Some(match r {
        Refusal::Mismatch { .. } => Kind::Mismatch,
        Refusal::OnlyStar { .. } => Kind::OnlyStar,
        Refusal::NotStar { .. } => Kind::NotStar,
        Refusal::Meteorite { .. } => Kind::Meteorite,
        Refusal::NoContact {
            first: false,
            diagonal: None,
        } => Kind::NoContact,
        Refusal::NoContact {
            first: false,
            diagonal: Some(_),
        } => Kind::Diagonal,
        _ => return None,
    })
}

/// The refusals that need a position: tried in every position of a game
/// on the symbol sides until each has been seen (a game rarely lacks one:
/// then another game).
fn refusals_found_in_play() -> std::collections::BTreeSet<Kind> {
    let mut found = std::collections::BTreeSet::new();
    for _attempt in 0..4 {
        let t = table(2, &["--map", HARD]);
        let log = t.log_str();
        loop {
            let s = state(&t);
            let Some(seat) = s.to_move() else { break };
            for kind in KINDS {
                if found.contains(&kind) || kind == Kind::Draw {
                    continue;
                }
                if let Some((mv, r)) = refused(&s, seat, |r| kind_of(r) == Some(kind)) {
                    let says = format!("{} (rule: {})", r.describe(s.set()), r.rule());
                    refuse(&t, seat, &mv, 20, &says);
                    found.insert(kind);
                }
            }
            // A disc whose stack is empty, with several stacks to give:
            // the move must say which stack to draw from (with one, it
            // need not: tests/star_map_draw.rs).
            let empty = s.placements(seat).into_iter().find(|p| {
                let shape = s.set().discs[p.disc as usize].shape;
                s.draw_choices(shape).len() > 1
            });
            if let (false, Some(p)) = (found.contains(&Kind::Draw), empty) {
                let shape = s.set().discs[p.disc as usize].shape;
                let choices = s.draw_choices(shape);
                let plain = move_text(&s, seat, &p, None);
                refuse(
                    &t,
                    seat,
                    &plain,
                    20,
                    &format!(
                        "the {shape} stack is empty: choose the stack to draw from, add `draw {}`",
                        choices[0]
                    ),
                );
                refuse(
                    &t,
                    seat,
                    &move_text(&s, seat, &p, Some(shape)),
                    20,
                    &format!("the {shape} stack is empty too; stacks with discs: "),
                );
                let pick = *choices.last().unwrap();
                let out = t.ok(seat, &["play", log, &move_text(&s, seat, &p, Some(pick))]);
                assert!(out.contains(&format!(", drawing a {pick}")), "{out}");
                let v = view_json(&t, None);
                assert_eq!(v["last"]["draw"], json!(pick));
                assert_eq!(v["pending"]["shape"], json!(pick));
                found.insert(Kind::Draw);
                continue;
            }
            if s.placements(seat).is_empty() {
                // A seat with nothing to place must pass, and may.
                let text = t.ok(seat, &["view", log]);
                assert!(
                    text.contains("cannot place any disc and must pass"),
                    "{text}"
                );
                t.ok(seat, &["play", log, "pass"]);
                continue;
            }
            t.ok(seat, &["play", log, "--auto"]);
        }
        // After the end, nothing more is played.
        for (seat, mv) in [(0, "one1 a1"), (1, "pass"), (0, "corner1 f5 r0")] {
            refuse(&t, seat, mv, 19, "the game is over");
        }
        if found.len() == KINDS.len() {
            break;
        }
    }
    found
}

#[test]
fn refusals_name_the_problem_and_change_nothing() {
    // On the symbol sides the first seat now and then has nothing that fits
    // next to the start disc (then seat 2 moves first); the table below is
    // written for seat 1 to move, so deal again until it is.
    let t = (0..20)
        .map(|_| table(2, &["--map", HARD]))
        .find(|t| state(t).to_move() == Some(0))
        .expect("in 20 deals the first seat can place at least once");
    let log = t.log_str();
    let s = state(&t);
    let covered = s
        .map()
        .cell(Sq::parse("f6").unwrap())
        .map_or("g7", |_| "f6");
    // A legal first placement, a one if one fits (the deal is random, and
    // sometimes neither of a hand's ones fits next to the start disc).
    let placements = s.placements(0);
    let first = placements
        .iter()
        .find(|p| s.set().discs[p.disc as usize].shape == Shape::One)
        .or(placements.first())
        .copied()
        .expect("the first seat is to move, so it can place");
    let first_shape = s.set().discs[first.disc as usize].shape;
    let first_move = move_text(&s, 0, &first, None).replace(" r0", "");
    let cases: Vec<(usize, String, i32, &str)> = vec![
        (1, "one1 a1".into(), 19, "it is not your turn: seat 0, Anna"),
        (1, "pass".into(), 19, "it is not your turn"),
        (
            0,
            "corner1 l12 r0".into(),
            20,
            "the disc would stick out of the map",
        ),
        (0, "three1 a1 r180".into(), 20, "(rule: map-edge)"),
        (
            0,
            format!("one1 {covered}"),
            20,
            "is covered already; discs go on empty squares (rule: overlap)",
        ),
        (
            0,
            "one1 a1".into(),
            20,
            "the first disc must touch the start disc (in the centre, f6-g7) along an edge \
             (rule: start-disc)",
        ),
        (
            0,
            "blob1 f5".into(),
            2,
            "`blob1` is not a disc of your hand; your hand: corner1, three1, two1, two2, one1, one2",
        ),
        (0, "corner2 f5 r0".into(), 2, "your hand has no `corner2`"),
        (0, "one9 f5".into(), 2, "your hand has no `one9`"),
        (
            0,
            "two f5 r0".into(),
            2,
            "your hand holds 2 two discs; say which",
        ),
        (
            0,
            "one1 m5".into(),
            2,
            "`m5` is not a square; squares are a1 to l12",
        ),
        (0, "one1 a13".into(), 2, "`a13` is not a square"),
        (0, "one1 f05".into(), 2, "`f05` is not a square"),
        (
            0,
            "two1 f5 r45".into(),
            2,
            "`r45` is not a rotation; write r0, r90, r180 or r270",
        ),
        (0, "two1 f5 left".into(), 2, "`left` is not a rotation"),
        (0, "one1".into(), 2, "`one1` is not a move"),
        (0, "one1 f5 r0 r90".into(), 2, "is not a move"),
        (0, "one1 f5 draw".into(), 2, "`draw` takes one shape"),
        (
            0,
            "one1 f5 draw disc".into(),
            2,
            "`draw disc`: the stacks are corner, three, two and one",
        ),
        (0, "pass".into(), 20, "Anna can place a disc (e.g. "),
        (
            0,
            "pass".into(),
            20,
            "a player passes only with no legal placement (rule: pass)",
        ),
    ];
    for (seat, mv, code, says) in &cases {
        refuse(&t, *seat, mv, *code, says);
    }
    // `draw SHAPE` only when that shape's stack is empty.
    let other = if first_shape == Shape::Two {
        "one"
    } else {
        "two"
    };
    refuse(
        &t,
        0,
        &format!("{first_move} draw {other}"),
        20,
        &format!(
            "after placing a {first_shape} you draw a {first_shape}; `draw {other}` is only for \
             when the {first_shape} stack is empty"
        ),
    );
    // The same move without it is fine.
    t.ok(0, &["play", log, &first_move]);
    // Now the map's edge away from the discs is out of reach.
    refuse(
        &t,
        1,
        "one1 a1",
        20,
        "the disc touches no disc on the map; it must touch one along an edge (rule: contact)",
    );

    // The refusals that depend on the deal, met in whole games.
    let found = refusals_found_in_play();
    assert_eq!(
        found.len(),
        KINDS.len(),
        "refusals seen in four whole games: {found:?}"
    );
}

/// The shipped data files, to change for the `--parts` and `--discs` cases.
fn shipped(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("crates/core/src/games/star_map")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn new_refuses_other_games_flags_bad_layouts_and_bad_data_files() {
    let t = Table::new(2);
    let dir = t.dir.path();
    let file = |name: &str, v: &Value| {
        let p = dir.join(name);
        std::fs::write(&p, serde_json::to_string_pretty(v).unwrap()).unwrap();
        p.to_str().unwrap().to_string()
    };
    let parts = shipped("parts.json");
    let discs = shipped("discs.json");
    let mut files: Vec<(String, &str, String)> = Vec::new();
    let mut bad_parts = |what: &str, says: &'static str, f: &dyn Fn(&mut Value)| {
        let mut v = parts.clone();
        f(&mut v);
        files.push((
            "--parts".into(),
            says,
            file(&format!("parts-{what}.json"), &v),
        ));
    };
    bad_parts(
        "fifteen",
        "the part file has 15 map parts; the map is made of 16 (4 × 4)",
        &|v| {
            v["parts"].as_array_mut().unwrap().pop();
        },
    );
    bad_parts("twice", "part id 1 is given twice", &|v| {
        v["parts"][1]["id"] = json!(1)
    });
    bad_parts("id-17", "part id 17 is out of range", &|v| {
        v["parts"][0]["id"] = json!(17)
    });
    bad_parts(
        "symbol",
        "part 1, symbols side, row 1: `=Q` is not a square",
        &|v| v["parts"][0]["symbols"][0] = json!("=Q . ."),
    );
    bad_parts(
        "two-rows",
        "part 1, bonus side has 2 rows; a part is 3 × 3 squares",
        &|v| {
            v["parts"][0]["bonus"].as_array_mut().unwrap().pop();
        },
    );
    bad_parts(
        "four-squares",
        "part 1, bonus side, row 2: `. . . .` has 4 squares; a part is 3 × 3 squares",
        &|v| v["parts"][0]["bonus"][1] = json!(". . . ."),
    );
    bad_parts(
        "bonus-side",
        "`#` is a symbol; the bonus side has only bonus squares and plain ones",
        &|v| v["parts"][0]["bonus"][0] = json!("# . ."),
    );
    bad_parts("unknown-field", "unknown field `colour`", &|v| {
        v["colour"] = json!("red")
    });
    let mut bad_discs = |what: &str, says: &'static str, f: &dyn Fn(&mut Value)| {
        let mut v = discs.clone();
        f(&mut v);
        files.push((
            "--discs".into(),
            says,
            file(&format!("discs-{what}.json"), &v),
        ));
    };
    bad_discs(
        "55",
        "the disc file has 11 corner, 12 three, 16 two and 16 one discs; a set has 12, 12, 16 \
         and 16 (56 discs)",
        &|v| {
            v["discs"].as_array_mut().unwrap().remove(0);
        },
    );
    bad_discs(
        "symbol",
        "disc 1 has a field `Q`, which is no star code of the set (R, O, Y, G, B, V, W)",
        &|v| v["discs"][0]["fields"] = json!("GQG"),
    );
    bad_discs(
        "no-star",
        "disc 13 (`...`) has no star; every disc shows at least one",
        &|v| v["discs"][12]["fields"] = json!("..."),
    );
    bad_discs(
        "fields",
        "disc 1 is a corner and has 3 fields, but `GG` gives 2",
        &|v| v["discs"][0]["fields"] = json!("GG"),
    );
    bad_discs(
        "six-stars",
        "the disc file names 6 star symbols; a set has 7",
        &|v| {
            v["stars"].as_array_mut().unwrap().pop();
        },
    );
    bad_discs(
        "code",
        "star 1 has the code `r`; a code is one upper-case letter A-Z",
        &|v| v["stars"][0]["code"] = json!("r"),
    );
    bad_discs(
        "name",
        "star 2 (`R`, red) repeats the code or name of an earlier star",
        &|v| v["stars"][1] = json!({"code": "R", "name": "red"}),
    );
    bad_discs("order", "lists its discs out of order", &|v| {
        v["discs"].as_array_mut().unwrap().swap(0, 12)
    });
    let not_json = dir.join("not.json");
    std::fs::write(&not_json, "{\"parts\": [").unwrap();
    let not_json = not_json.to_str().unwrap().to_string();
    let a_dir = dir.join("a-directory");
    std::fs::create_dir(&a_dir).unwrap();
    let a_dir = a_dir.to_str().unwrap().to_string();

    let layout_16 = |f: &dyn Fn(usize) -> String| (1..=16).map(f).collect::<Vec<_>>().join(" ");
    let twice = layout_16(&|i| format!("{}b", i.min(15)));
    let seventeen = layout_16(&|i| format!("{}s", i + 1));
    let cases: Vec<(&str, Vec<String>, i32, String)> = vec![
        (
            "star-map",
            vec!["--stars".into(), "1,1 2,2 3,3".into()],
            2,
            "--stars sets Starry Night's sky; it is not an option of star-map".into(),
        ),
        (
            "star-map",
            vec!["--variant".into(), "discs=discs.json".into()],
            2,
            "--variant discs=…: give the disc file with --discs FILE".into(),
        ),
        (
            "star-map",
            vec!["--random-stars".into(), "9".into()],
            2,
            "--random-stars sets Starry Night's sky".into(),
        ),
        (
            "star-map",
            vec!["--boards".into(), "x.json".into()],
            2,
            "--boards sets Starry Sky's boards; it is not an option of star-map".into(),
        ),
        (
            "starry-sky",
            vec!["--map".into(), "easy".into()],
            2,
            "--map sets Star Map's map and discs; it is not an option of starry-sky".into(),
        ),
        (
            "starry-night",
            vec!["--parts".into(), "p.json".into()],
            2,
            "--parts sets Star Map's map and discs; it is not an option of starry-night".into(),
        ),
        (
            "starry-sky",
            vec!["--discs".into(), "d.json".into()],
            2,
            "--discs sets Star Map's map".into(),
        ),
        (
            "star-map",
            vec!["--map".into(), "medium".into()],
            2,
            "--map medium: not a map choice; give random, easy, hard, mixed, or 16 parts".into(),
        ),
        (
            "star-map",
            vec!["--map".into(), "1b 2s 3b".into()],
            2,
            "a layout names 16 parts, in reading order of their places; this one names 3".into(),
        ),
        (
            "star-map",
            vec!["--map".into(), "1b 2x 3b".into()],
            2,
            "`2x` does not end in its side, b or s".into(),
        ),
        (
            "star-map",
            vec!["--map".into(), "1b sb 3b".into()],
            2,
            "`sb` does not start with a part id".into(),
        ),
        (
            "star-map",
            vec!["--map".into(), twice],
            2,
            "a layout names each part 1 to 16 once; part 15 is named twice".into(),
        ),
        (
            "star-map",
            vec!["--map".into(), seventeen],
            2,
            "part 17 is not a part".into(),
        ),
        (
            "star-map",
            vec![
                "--map".into(),
                "easy".into(),
                "--variant".into(),
                "map=hard".into(),
            ],
            2,
            "`map` is given twice".into(),
        ),
        (
            "star-map",
            vec!["--variant".into(), "colour=red".into()],
            2,
            "star-map has no option `colour`".into(),
        ),
        (
            "star-map",
            vec!["--parts".into(), not_json.clone()],
            2,
            "the part file is not valid: ".into(),
        ),
        (
            "star-map",
            vec!["--discs".into(), not_json],
            2,
            "the disc file is not valid: ".into(),
        ),
        (
            "star-map",
            vec!["--parts".into(), a_dir.clone()],
            2,
            "the part file is not a regular file; nothing was written".into(),
        ),
        (
            "star-map",
            vec!["--discs".into(), a_dir],
            2,
            "the disc file is not a regular file; nothing was written".into(),
        ),
        (
            "star-map",
            vec!["--discs".into(), "/no/such/discs.json".into()],
            3,
            "cannot read the disc file".into(),
        ),
    ];
    let files = files
        .into_iter()
        .map(|(flag, says, path)| ("star-map", vec![flag, path], 2, says.to_string()));
    for (game, extra, code, says) in cases.into_iter().chain(files) {
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        let out = t.new_game_of(game, &extra);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{extra:?}: {err}");
        assert!(err.contains(&says), "{extra:?}: `{says}` not in: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(!t.log.exists(), "{extra:?} wrote a log");
    }
    // Star Map is for two to four.
    for n in [1, 5] {
        let five = Table::new(5);
        let players = five.emails[..n].join(",");
        let out = five.starry(
            Some(0),
            &[
                "new",
                "star-map",
                "--players",
                &players,
                "--out",
                five.log_str(),
            ],
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains(&format!(
                "star-map is for 2 to 4 players; --players lists {n}"
            )),
            "{err}"
        );
        assert!(!five.log.exists());
    }
}

/// A map of meteorites and discs of nothing but red stars: the only square
/// a disc can take is the centre square the start disc leaves free, and
/// only a single field fits there. Anna places it, Ben must pass (his entry
/// draws Anna's disc), and nobody can place any more.
#[test]
fn a_tiny_game_on_custom_data_with_a_pass() {
    let t = Table::new(2);
    let dir = t.dir.path();
    let mut parts = shipped("parts.json");
    for p in parts["parts"].as_array_mut().unwrap() {
        p["bonus"] = json!([". . .", ". . .", ". . ."]);
        p["symbols"] = json!(["# # #", "# # #", "# # #"]);
    }
    let mut discs = shipped("discs.json");
    discs["stars"][0]["name"] = json!("crimson");
    for d in discs["discs"].as_array_mut().unwrap() {
        let n = d["fields"].as_str().unwrap().len();
        d["fields"] = json!("R".repeat(n));
    }
    let parts_file = dir.join("parts.json");
    let discs_file = dir.join("discs.json");
    std::fs::write(&parts_file, parts.to_string()).unwrap();
    std::fs::write(&discs_file, discs.to_string()).unwrap();
    t.create_game(
        "star-map",
        &[
            "--map",
            "hard",
            "--parts",
            parts_file.to_str().unwrap(),
            "--discs",
            discs_file.to_str().unwrap(),
        ],
    );
    // The genesis holds the data: an audit needs nothing but the log.
    let genesis: Value = serde_json::from_str(
        std::fs::read_to_string(&t.log)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(genesis["body"]["data"]["options"]["map"], "hard");
    assert_eq!(
        genesis["body"]["data"]["options"]["discs"]["stars"][0]["name"],
        "crimson"
    );
    assert_eq!(
        genesis["body"]["data"]["options"]["parts"]["parts"][0]["symbols"][0],
        "# # #"
    );
    let t = {
        // Join and ready as `table` does.
        loop {
            let s = t.status();
            let action = s["action"].as_str().unwrap().to_string();
            if action != "join" && action != "ready" {
                break;
            }
            let who = t.seat_of(s["to_act"].as_str().unwrap());
            t.ok(who, &[action.as_str(), t.log_str()]);
        }
        t
    };
    let log = t.log_str();
    let s = state(&t);
    let free = ["f6", "g6", "f7", "g7"]
        .into_iter()
        .find(|sq| s.map().cell(Sq::parse(sq).unwrap()).is_none())
        .unwrap();
    let text = t.ok(0, &["view", log]);
    assert!(text.contains("Stars: R crimson, O orange"), "{text}");
    assert!(text.contains("| #   #   # | #   #   # |"), "{text}");
    assert!(text.contains("Anna to move (2 legal placements)"), "{text}");
    refuse(
        &t,
        0,
        "two1 f5 r0",
        20,
        "is a meteorite: only an empty field may go there, not a crimson star (rule: meteorite)",
    );
    refuse(
        &t,
        0,
        "pass",
        20,
        &format!("Anna can place a disc (e.g. one1 {free}"),
    );
    let one2 = s.hand_names(0)[5];
    assert_eq!(one2.1, (Shape::One, 2));
    let p = Placement {
        disc: one2.0,
        at: Sq::parse(free).unwrap(),
        rotation: Rotation::R0,
    };
    let said = describe(&s, &p);
    assert!(said.starts_with(&format!("one R on {free}, 4 ")), "{said}");
    assert!(said.contains("(crimson 4)"), "{said}");
    let out = t.ok(0, &["play", log, &format!("one2 {free}")]);
    assert!(
        flat(&out).contains(&format!("Anna — laid {said}.")),
        "{out}"
    );
    let text = t.ok(1, &["view", log]);
    assert!(
        text.contains("ben cannot place any disc and must pass."),
        "{text}"
    );
    let text = t.ok(0, &["view", log]);
    assert!(
        flat(&text).contains("Anna is drawing a one (pending"),
        "{text}"
    );
    let status = t.status();
    assert_eq!(
        status["to_act"], "ben@example.org",
        "Ben's entry draws Anna's disc"
    );
    refuse(
        &t,
        1,
        &format!("one1 {free}"),
        20,
        &format!("{free} is covered already"),
    );
    refuse(&t, 0, "pass", 19, "it is not your turn");
    let out = t.ok(1, &["play", log, "pass"]);
    assert!(out.contains("ben — passed: no legal placement."), "{out}");
    assert!(out.contains("The game is over"), "{out}");
    // Hands count minus: 3 + 3 + 2 + 2 + 1 + 1 fields each (Anna drew a
    // one for hers).
    let v = view_json(&t, None);
    assert_eq!(v["over"], true);
    assert_eq!(v["last"], json!({"move": "pass", "seat": 1}));
    assert_eq!(v["scores"][0]["points"], 4);
    assert_eq!(v["scores"][0]["minus"], 12);
    assert_eq!(v["scores"][0]["score"], -8);
    assert_eq!(v["scores"][1]["score"], -12);
    assert_eq!(v["hands"][0].as_array().unwrap().len(), 6);
    let audit = t.json(None, &["audit", log, "--json"]);
    let f = &audit["files"][0];
    assert_eq!(f["valid"], true);
    assert_eq!(f["standings"][0]["name"], "Anna");
    assert_eq!(f["standings"][0]["score"], -8);
    assert_eq!(f["standings"][1]["score"], -12);
    assert_eq!(f["standings"][1]["rank"], 2);
    let status = t.ok(0, &["status", log]);
    for note in [
        "ben had no legal placement and passed 1 time.",
        "Anna ended with 6 discs in hand: minus 12.",
        "ben ended with 6 discs in hand: minus 12.",
    ] {
        assert!(flat(&status).contains(note), "{note} in {status}");
    }
    for (seat, mv) in [(0, "pass"), (1, "pass"), (0, "one1 a1")] {
        refuse(&t, seat, mv, 19, "the game is over");
    }
    assert_no_secrets(&t, 2);
}

#[test]
fn the_demo_and_the_rules_list_know_star_map() {
    let t = Table::new(1);
    let demo = t.starry(None, &["demo", "--game", "star-map", "--players", "3"]);
    let text = String::from_utf8_lossy(&demo.stdout);
    assert!(
        demo.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&demo.stderr)
    );
    assert!(text.contains("Audit: valid"), "{text}");
    assert!(text.contains("Star Map"), "{text}");
    assert!(text.contains("seats: Anna, Ben, Cleo"), "{text}");
    assert!(text.contains(" points "), "{text}");
    assert!(!text.contains("(team"), "no teams with three: {text}");
    let demo = t.starry(
        None,
        &["demo", "--game", "star-map", "--players", "4", "--json"],
    );
    assert!(demo.status.success());
    let v: Value = serde_json::from_slice(&demo.stdout).unwrap();
    assert!(validator("demo.json").is_valid(&v), "{v}");
    let out = t.starry(None, &["demo", "--game", "star-map", "--players", "5"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("star-map is for 2 to 4 players"));

    let list = String::from_utf8(t.starry(None, &["rules", "list"]).stdout).unwrap();
    assert!(
        list.contains("star-map (rules version 1), 2 to 4 players"),
        "{list}"
    );
    assert!(
        list.contains("--variant map=random|easy|hard|mixed|LAYOUT   (default random)"),
        "{list}"
    );
    let json = t.json(None, &["rules", "list", "--json"]);
    assert!(validator("rules-list.json").is_valid(&json));
    let games = json["games"].as_array().unwrap();
    let sm = games.iter().find(|g| g["name"] == "star-map").unwrap();
    assert_eq!(sm["variants"][0]["key"], "map");
}

#[test]
fn notation_forgives_case_and_spacing_and_a_typo_is_wrong_use() {
    let t = (0..20)
        .map(|_| table(2, &["--map", HARD]))
        .find(|t| state(t).to_move() == Some(0))
        .expect("in 20 deals the first seat can place at least once");
    let log = t.log_str();
    let s = state(&t);
    // A legal placement of a disc that turns (not a one), written every way.
    let p = *s
        .placements(0)
        .iter()
        .find(|p| s.set().discs[p.disc as usize].shape != Shape::One)
        .or(s.placements(0).first())
        .unwrap();
    let mv = move_text(&s, 0, &p, None);
    let words: Vec<&str> = mv.split(' ').collect();
    let [disc, square, rotation] = words.as_slice() else {
        panic!("{mv}")
    };
    let split = |w: &str| {
        let i = w.find(|c: char| c.is_ascii_digit()).unwrap();
        format!("{} {}", &w[..i], &w[i..])
    };
    let before = std::fs::read(&t.log).unwrap();
    for text in [
        mv.clone(),
        mv.to_uppercase(),
        format!("  {disc}\t{square}   {rotation} "),
        format!("{} {} {}", split(disc), split(square), split(rotation)).to_uppercase(),
    ] {
        let out = t.ok(0, &["play", log, &text, "--dry-run"]);
        assert!(out.contains("Dry run, nothing written"), "{text}: {out}");
        assert!(
            out.contains(&format!(" on {square}")),
            "{text} is {mv}: {out}"
        );
    }
    assert_eq!(std::fs::read(&t.log).unwrap(), before);

    let form = "A move now is `DISC SQUARE ROTATION`: DISC is a disc of your hand";
    // The hand of the deal: corner1, three1, two1, two2, one1, one2.
    for (text, says) in [
        (
            "cornr1 f5 r0",
            vec![
                "`cornr1` is not a disc of your hand",
                "did you mean `corner1`?",
                form,
            ],
        ),
        ("thre f5", vec!["did you mean `three1`?", form]),
        (
            "corner1 f5 r0 draw too",
            vec!["did you mean `draw two`?", form],
        ),
        ("pas", vec!["did you mean `pass`?", form]),
        (
            "hello world",
            vec!["`hello` is not a disc of your hand", form],
        ),
        ("one1 m5", vec!["`m5` is not a square", form]),
        ("two1 f5 r45", vec!["`r45` is not a rotation", form]),
    ] {
        t.notation_refused(0, text, &says);
    }
    let err = t.notation_refused(0, "two3 f5", &["your hand has no `two3`"]);
    assert!(
        !err.contains("did you mean"),
        "two1 and two2 are as near: {err}"
    );
    t.notation_refused(0, " ", &["the move is empty"]);
    // Moves that read but break a rule stay rule errors (exit 20).
    for text in ["PASS", "ONE1 A1"] {
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
