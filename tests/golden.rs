//! Golden playthroughs, as OpenSpiel keeps them: a fixed game per game and
//! variant, with the view after every step (the text as a player sees it and
//! the JSON), checked in under `tests/golden/` and compared byte for byte.
//! A change to the rules or to a view shows up here as a diff to review;
//! `STARRY_BLESS=1 cargo test --test suite golden::` writes the new files.

use crate::common;

use std::path::PathBuf;

use starry::games::star_map::StarMap;
use starry::games::starry_night::StarryNight;
use starry::games::starry_sky::StarrySky;
use starry::games::{Draw, Own, Turn, play_own, prelude::*, reveal_own};

fn check(name: &str, got: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    common::check_golden(&path, got, "golden");
}

/// The last line of a playthrough: the standings, with names.
fn final_standings<G: Game>(state: &G::State, names: &[String]) -> String {
    let rows: Vec<String> = G::standings(state)
        .iter()
        .map(|s| format!("{}. {} {}", s.rank, names[s.seat], s.score))
        .collect();
    format!("==== final standings: {}\n", rows.join(", "))
}

/// A Starry Night game on a fixed sky of 12 stars: moves chosen by a fixed
/// draw among the legal ones, with one takeback accepted and one declined.
fn starry_night(score: &str) -> String {
    type G = StarryNight;
    let names = vec!["Anna".to_string(), "Ben".to_string()];
    let sky = "1,1 5,1 8,2 3,3 6,4 1,5 4,6 8,6 2,8 6,8 9,9 0,9";
    let pairs = [
        ("stars".to_string(), sky.to_string()),
        ("score".to_string(), score.to_string()),
    ];
    let options = G::options(&pairs, None).unwrap();
    let mut state = G::setup(&options, 2, &mut Draw::new([0; 32])).unwrap();
    let mut choose = Draw::new([42; 32]);
    let mut out = String::new();
    let show = |out: &mut String, state: &<G as Rules>::State, what: &str| {
        let view = G::view(state, None, None);
        out.push_str(&format!("==== {what}\n"));
        out.push_str(&G::render_text(&view, &names));
        out.push_str(&serde_json::to_string(&view).unwrap());
        out.push('\n');
    };
    show(&mut out, &state, "setup");
    let mut step = 0;
    while let Turn::Move(seat) = G::turn(&state) {
        step += 1;
        let intent = match step {
            7 | 12 => G::parse_intent(&state, "takeback").unwrap(),
            8 => G::parse_intent(&state, "accept").unwrap(),
            13 => G::parse_intent(&state, "decline").unwrap(),
            _ => {
                let mut all = G::intents(&state, seat, &Own::default());
                all.swap_remove(choose.below(all.len()))
            }
        };
        let action = play_own::<G>(&mut state, seat, &intent, &mut Own::default(), step).unwrap();
        let what = format!(
            "{step}: {} plays `{intent}` — {}",
            names[seat],
            G::describe(&state, &action)
        );
        show(&mut out, &state, &what);
    }
    out.push_str(&final_standings::<G>(&state, &names));
    out
}

#[test]
fn starry_night_count() {
    check("starry-night-count.txt", &starry_night("count"));
}

#[test]
fn starry_night_area() {
    check("starry-night-area.txt", &starry_night("area"));
}

/// A 3-seat Starry Sky game with `variants`: moves chosen by a fixed draw
/// among the legal ones, random events resolved from the same draw. After
/// every entry the text view of the seat that acts next, with its own
/// face-down tokens (`every_view`, else only at the start); the public JSON
/// view at the start, after reveals and at the end.
fn starry_sky(variants: &[(&str, &str)], every_view: bool) -> String {
    type G = StarrySky;
    let names: Vec<String> = ["Anna", "Ben", "Cleo"]
        .iter()
        .map(|n| n.to_string())
        .collect();
    let pairs: Vec<(String, String)> = variants
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let options = G::options(&pairs, None).unwrap();
    let mut draw = Draw::new([7; 32]);
    let mut state = G::setup(&options, 3, &mut draw).unwrap();
    let mut own: Vec<Own<<G as Rules>::Hidden>> = vec![Own::default(); 3];
    let mut out = String::new();
    let show = |out: &mut String, state: &<G as Rules>::State, own: &[Own<_>], what: &str| {
        out.push_str(&format!("==== {what}\n"));
        // The public JSON (7 KB a step) at the start, at each scoring and at
        // the end; the text every step.
        if what == "setup" || what.ends_with("reveals") || G::turn(state) == Turn::Over {
            out.push_str(&serde_json::to_string(&G::view(state, None, None)).unwrap());
            out.push('\n');
        }
        let next = match G::turn(state) {
            Turn::Move(s) | Turn::Reveal(s, _) => Some(s),
            Turn::Over => None,
        };
        if let (Some(s), true) = (next, every_view || what == "setup") {
            out.push_str(&format!("---- as {} sees it\n", names[s]));
            out.push_str(&G::render_text(
                &G::view(state, Some(s), Some(&own[s])),
                &names,
            ));
        }
    };
    show(&mut out, &state, &own, "setup");
    let mut at = 1u64;
    loop {
        for e in G::pending(&state) {
            G::resolve(&mut state, e.id, &mut draw).unwrap();
        }
        let what = match G::turn(&state) {
            Turn::Over => break,
            Turn::Move(s) => {
                let mut all = G::intents(&state, s, &own[s]);
                let intent = all.swap_remove(draw.below(all.len()));
                let action = play_own::<G>(&mut state, s, &intent, &mut own[s], at).unwrap();
                format!(
                    "{at}: {} plays `{intent}` — {}",
                    names[s],
                    G::describe(&state, &action)
                )
            }
            Turn::Reveal(s, refs) => {
                reveal_own::<G>(&mut state, s, &refs, &mut own[s], at).unwrap();
                format!("{at}: {} reveals", names[s])
            }
        };
        show(&mut out, &state, &own, &what);
        at += 1;
    }
    out.push_str(&final_standings::<G>(&state, &names));
    out
}

#[test]
fn starry_sky_additive_coins() {
    check("starry-sky-additive-coins.txt", &starry_sky(&[], true));
}

#[test]
fn starry_sky_compound_nothing() {
    check(
        "starry-sky-compound-nothing.txt",
        // The variants differ only in scoring: the scorings and the end.
        &starry_sky(&[("doubling", "compound"), ("tie", "nothing")], false),
    );
}

/// Wraps a line of ours at 80 columns, continuing with `indent`.
fn wrap80(line: &str, indent: &str) -> String {
    let mut out = String::new();
    let mut cur = String::new();
    for word in line.split(' ') {
        if !cur.is_empty() && cur.chars().count() + 1 + word.chars().count() > 80 {
            out.push_str(&cur);
            out.push('\n');
            cur = format!("{indent}{word}");
        } else {
            if !cur.is_empty() {
                cur.push(' ');
            }
            cur.push_str(word);
        }
    }
    out.push_str(&cur);
    out.push('\n');
    out
}

/// A Star Map game of `seats` players on the map `map`: moves chosen by a
/// fixed draw among the legal ones (a pass when there is none), the discs
/// drawn after placements from the same draw, resolved as the next seat's
/// entry resolves them. A line per move; the text view as the seat to move
/// sees it (its own draw resolved) at the start and every `every` moves, the
/// spectator's at the end, the notes, and the final standings. Every line
/// fits in 80 columns.
fn star_map(seats: usize, map: &str, every: u64, seed: u8) -> String {
    type G = StarMap;
    let names: Vec<String> = ["Anna", "Ben", "Cleo", "Dan"][..seats]
        .iter()
        .map(|n| n.to_string())
        .collect();
    let options = G::options(&[("map".to_string(), map.to_string())], None).unwrap();
    let mut draw = Draw::new([seed; 32]);
    let mut state = G::setup(&options, seats, &mut draw).unwrap();
    let mut out = String::from("==== setup\n");
    for note in G::notes(&state, &names) {
        out.push_str(&wrap80(&note, "  "));
    }
    let mut at = 1u64;
    loop {
        for e in G::pending(&state) {
            G::resolve(&mut state, e.id, &mut draw).unwrap();
        }
        let Turn::Move(s) = G::turn(&state) else {
            break;
        };
        if (at - 1).is_multiple_of(every) {
            out.push_str(&format!("---- as {} sees it\n", names[s]));
            out.push_str(&G::render_text(&G::view(&state, Some(s), None), &names));
        }
        let mut all = G::intents(&state, s, &Own::default());
        let intent = all.swap_remove(draw.below(all.len()));
        let action = play_own::<G>(&mut state, s, &intent, &mut Own::default(), at).unwrap();
        out.push_str(&wrap80(
            &format!(
                "==== {at}: {} plays `{intent}` — {}",
                names[s],
                G::describe(&state, &action)
            ),
            "       ",
        ));
        at += 1;
    }
    out.push_str("---- the end, as a spectator sees it\n");
    out.push_str(&G::render_text(&G::view(&state, None, None), &names));
    for note in G::notes(&state, &names) {
        out.push_str(&wrap80(&note, "  "));
    }
    // The standings, a line each: team names are long.
    out.push_str("==== final standings:\n");
    for s in G::standings(&state) {
        let team = s
            .team
            .map_or(String::new(), |t| format!(" (team {})", t + 1));
        out.push_str(&format!(
            "  {}. {} {}{team}\n",
            s.rank, names[s.seat], s.score
        ));
    }
    for (n, line) in out.lines().enumerate() {
        assert!(
            line.chars().count() <= 80,
            "line {} has {} columns: {line}",
            n + 1,
            line.chars().count()
        );
    }
    out
}

#[test]
fn star_map_2p_layout() {
    check(
        "star-map-2p-layout.txt",
        &star_map(
            2,
            "1b 2s 3b 4s / 5s 6b 7s 8b / 9b 10s 11b 12s / 13s 14b 15s 16b",
            10,
            9,
        ),
    );
}

#[test]
fn star_map_4p_teams_hard() {
    check("star-map-4p-teams-hard.txt", &star_map(4, "hard", 16, 3));
}
