//! Star Map through the real binary: when the placed disc's stack is empty
//! and exactly one stack has discs left, `play` takes the move without
//! `draw SHAPE` (there is nothing to choose), and the log records the draw
//! exactly as a move that named it, so that every log reads as before.
//! A set of red discs only makes every disc fit, so the stacks run out.

use crate::common::*;

use serde_json::Value;
use starry::games::star_map::{StarMap, State};
use starry::log::Replay;

fn state(t: &Table) -> State {
    Replay::<StarMap>::from_bytes(&std::fs::read(&t.log).unwrap())
        .unwrap()
        .state
        .unwrap()
}

fn last_entry(t: &Table) -> Value {
    let text = std::fs::read_to_string(&t.log).unwrap();
    serde_json::from_str(text.lines().last().unwrap()).unwrap()
}

#[test]
fn the_only_stack_left_is_drawn_from_unnamed() {
    let t = Table::new(2);
    let mut discs: Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("crates/core/src/games/star_map/discs.json"),
        )
        .unwrap(),
    )
    .unwrap();
    for d in discs["discs"].as_array_mut().unwrap() {
        let n = d["fields"].as_str().unwrap().chars().count();
        d["fields"] = Value::String("R".repeat(n));
    }
    let file = t.dir.path().join("red.json");
    std::fs::write(&file, discs.to_string()).unwrap();
    t.create_game(
        "star-map",
        &["--map", "easy", "--discs", file.to_str().unwrap()],
    );
    let log = t.log_str();
    loop {
        let st = t.status();
        let action = st["action"].as_str().unwrap().to_string();
        if action != "join" && action != "ready" {
            break;
        }
        let who = t.seat_of(st["to_act"].as_str().unwrap());
        t.ok(who, &[action.as_str(), log]);
    }
    for _ in 0..400 {
        let s = state(&t);
        let Some(seat) = s.to_move() else {
            panic!("the game ended before a placement with exactly one stack to draw from")
        };
        let names = s.hand_names(seat);
        let name_of = |disc| {
            let (shape, k) = names.iter().find(|(d, _)| *d == disc).unwrap().1;
            format!("{shape}{k}")
        };
        let placements = s.placements(seat);
        let only = placements.iter().find_map(|p| {
            let shape = s.set().discs[p.disc as usize].shape;
            match s.draw_choices(shape)[..] {
                [only] => Some((p, only)),
                _ => None,
            }
        });
        if let Some((p, only)) = only {
            let mv = format!("{} {} {}", name_of(p.disc), p.at, p.rotation);
            let before = std::fs::read(&t.log).unwrap();
            let dry = t.ok(seat, &["play", log, &mv, "--dry-run"]);
            assert!(dry.contains(&format!("drawing a {only}")), "{dry}");
            assert_eq!(
                std::fs::read(&t.log).unwrap(),
                before,
                "a dry run writes nothing"
            );
            let out = t.ok(seat, &["play", log, &mv]);
            assert!(out.contains(&format!("drawing a {only}")), "{out}");
            let entry = last_entry(&t);
            assert_eq!(
                entry["body"]["data"]["action"]["place"]["draw"],
                Value::String(only.to_string()),
                "the log records the draw: {entry}"
            );
            assert_eq!(
                state(&t).pending_draw().map(|d| d.shape),
                Some(only),
                "the draw is pending from the only stack left"
            );
            // The whole log still audits.
            let audit = t.starry(None, &["audit", log]);
            assert!(audit.status.success(), "{audit:?}");
            return;
        }
        // Otherwise any move: a placement whose stack is empty draws from
        // the smallest stack left, to empty the stacks one by one.
        let mv = match placements.first() {
            None => "pass".to_string(),
            Some(p) => {
                let shape = s.set().discs[p.disc as usize].shape;
                let draw = s
                    .draw_choices(shape)
                    .into_iter()
                    .min_by_key(|&c| s.stack_left(c))
                    .map(|c| format!(" draw {c}"))
                    .unwrap_or_default();
                format!("{} {} {}{draw}", name_of(p.disc), p.at, p.rotation)
            }
        };
        t.ok(seat, &["play", log, &mv]);
    }
    panic!("no placement with exactly one stack to draw from in 400 entries");
}
