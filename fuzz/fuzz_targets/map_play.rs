//! Structure-aware fuzzing of Star Map's rules engine: a game of 2 to 4
//! seats on any kind of map (random, easy, hard, mixed, or an arbitrary
//! layout), set up from an arbitrary seed, then up to 200 steps, each one
//! of: a raw log action (any disc id, including ones not in the hand or not
//! in the set, any square, any rotation, any draw choice, or a pass) by any
//! seat, with or without a stray commitment or reveal; one of the legal
//! intents, picked by index (so that games reach their end); an arbitrary
//! text through `parse_intent`; a run of random legal moves (so that short
//! inputs reach the late game); the resolution of a draw (the right event or
//! a wrong one); a resignation.
//!
//! Nothing may panic; a refused action must leave the state exactly as it
//! was; after every accepted move the fast list of legal placements must
//! equal a check of every disc × square × rotation, `pass` must be offered
//! exactly when that list is empty, and every view, its text rendering, the
//! notes, the standings and the move's description must build; a game over
//! by the rules leaves nobody a legal placement.
//!
//! Run (stable toolchain, no sanitizer), from the repository root:
//!   cargo fuzz run map_play -s none -- -max_total_time=120
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use starry::games::prelude::*;
use starry::games::star_map::data::{Rotation, Shape, Side};
use starry::games::star_map::map::{Layout, PlacedPart, Placement, SQUARES, Sq};
use starry::games::star_map::{Action, Intent, MapChoice, Options, Place, StarMap, State};

#[derive(Arbitrary, Debug)]
enum Step {
    /// A raw placement: disc id, square, rotation, draw choice (0 and 5–255
    /// mean none).
    Place(u8, u8, u8, u8),
    Pass,
    /// The `n`th legal intent of the seat to move.
    Legal(u16),
    /// Up to `n` random legal moves (draws resolved before each), checked
    /// one by one: short inputs reach the late game (empty stacks, draw
    /// choices, passes, the end).
    Run(u8, u16),
    /// Text through `parse_intent`, then `seal` and `play` if it parses.
    Text(String),
    /// Resolve a pending draw: the right one, or event `id`.
    Resolve(bool, u64),
    Resign,
}

const NAMES: [&str; 4] = ["Anna", "Ben", "Cleo", "Dan"];

fn shape(n: u8) -> Option<Shape> {
    Shape::ALL.get(usize::from(n).wrapping_sub(1)).copied()
}

/// Every placement `Map::check` accepts for the seat's hand, in the
/// engine's order (hand order, rotation, square).
fn brute_force(state: &State, seat: usize) -> Vec<Placement> {
    let set = state.set();
    let mut out = Vec::new();
    for &disc in state.hand(seat) {
        let d = &set.discs[disc as usize];
        for &rotation in d.shape.rotations() {
            for i in 0..SQUARES {
                let at = Sq(i as u8);
                if state.map().check(d.shape, &d.fields, at, rotation).is_ok() {
                    out.push(Placement { disc, at, rotation });
                }
            }
        }
    }
    out
}

/// Everything a player or a spectator can be shown, built and rendered.
fn show(state: &State, seats: usize) {
    let names: Vec<String> = NAMES[..seats].iter().map(|s| s.to_string()).collect();
    for viewer in std::iter::once(None).chain((0..seats).map(Some)) {
        let view = StarMap::view(state, viewer, None);
        let _ = StarMap::render_text(&view, &names);
        let _ = serde_json::to_string(&view).unwrap();
    }
    let _ = StarMap::notes(state, &names);
    let _ = StarMap::notation(state);
    let standings = StarMap::standings(state);
    assert_eq!(standings.len(), seats);
}

fn checked(state: &State, seats: usize) {
    if let Some(seat) = state.to_move() {
        let legal = state.placements(seat);
        assert_eq!(legal, brute_force(state, seat));
        let intents = StarMap::intents(state, seat, &Own::default());
        assert_eq!(intents == [Intent::Pass], legal.is_empty());
    } else if state.withdrawn().is_none() {
        // The game ended by the rules: nobody can place.
        for seat in 0..seats {
            assert!(
                brute_force(state, seat).is_empty(),
                "seat {seat} could still place"
            );
        }
    }
    show(state, seats);
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(seats) = u.int_in_range(2usize..=4) else {
        return;
    };
    let Ok(kind) = u.int_in_range(0u8..=4) else {
        return;
    };
    let map = match kind {
        0 => MapChoice::Random,
        1 => MapChoice::Easy,
        2 => MapChoice::Hard,
        3 => MapChoice::Mixed,
        _ => {
            // Any order of the 16 parts, each on any side.
            let mut parts: Vec<u8> = (1..=16).collect();
            let mut placed = Vec::new();
            while !parts.is_empty() {
                let Ok(i) = u.choose_index(parts.len()) else {
                    return;
                };
                let side = if u.arbitrary().unwrap_or(false) {
                    Side::Symbols
                } else {
                    Side::Bonus
                };
                placed.push(PlacedPart {
                    part: parts.remove(i),
                    side,
                });
            }
            MapChoice::Layout(Layout(placed))
        }
    };
    let Ok(seed) = u.arbitrary::<[u8; 32]>() else {
        return;
    };
    let options = Options {
        map,
        discs: None,
        parts: None,
    };
    let mut draw = Draw::new(seed);
    let mut state = StarMap::setup(&options, seats, &mut draw).unwrap();
    checked(&state, seats);
    let steps: Vec<(u8, bool, Step)> = u.arbitrary().unwrap_or_default();
    for (who, stray, step) in steps.into_iter().take(200) {
        let seat = usize::from(who) % seats;
        if let Step::Run(n, salt) = step {
            let mut pick = Draw::new(
                [salt as u8, (salt >> 8) as u8, n, 1]
                    .repeat(8)
                    .try_into()
                    .unwrap(),
            );
            for _ in 0..n % 64 + 1 {
                for e in StarMap::pending(&state) {
                    StarMap::resolve(&mut state, e.id, &mut draw).unwrap();
                }
                let Turn::Move(s) = StarMap::turn(&state) else {
                    break;
                };
                let mut all = StarMap::intents(&state, s, &Own::default());
                let intent = all.swap_remove(pick.below(all.len()));
                let action = starry::games::play_own::<StarMap>(
                    &mut state,
                    s,
                    &intent,
                    &mut Own::default(),
                    0,
                )
                .expect("a listed intent plays");
                let _ = StarMap::describe(&state, &action);
                checked(&state, seats);
            }
            continue;
        }
        if matches!(step, Step::Legal(_)) {
            // As the protocol does before the next seat's entry.
            for e in StarMap::pending(&state) {
                StarMap::resolve(&mut state, e.id, &mut draw).unwrap();
            }
        }
        let before = format!("{state:?}");
        let ctx = Context {
            seat,
            at: 0,
            commitments: u32::from(stray && who % 4 == 0),
            reveals: Vec::new(),
        };
        let result = match step {
            Step::Place(disc, at, rotation, d) => {
                let action = Action::Place(Place {
                    disc,
                    at: Sq(at % SQUARES as u8),
                    rotation: Rotation::ALL[usize::from(rotation % 4)],
                    draw: shape(d),
                });
                StarMap::play(&mut state, &ctx, &action).map(|()| Some(action))
            }
            Step::Pass => {
                StarMap::play(&mut state, &ctx, &Action::Pass).map(|()| Some(Action::Pass))
            }
            Step::Run(..) => unreachable!("played above"),
            Step::Legal(n) => match StarMap::turn(&state) {
                Turn::Move(s) => {
                    let mut all = StarMap::intents(&state, s, &Own::default());
                    let intent = all.swap_remove(usize::from(n) % all.len());
                    let sealed = StarMap::seal(&state, s, &intent, &Own::default())
                        .expect("a listed intent seals");
                    let ctx = Context { seat: s, ..ctx };
                    let r = StarMap::play(&mut state, &ctx, &sealed.action);
                    if ctx.commitments == 0 {
                        r.as_ref().expect("a listed intent plays");
                    }
                    r.map(|()| Some(sealed.action))
                }
                _ => Ok(None),
            },
            Step::Text(text) => match StarMap::parse_intent(&state, &text) {
                Ok(intent) => {
                    StarMap::seal(&state, seat, &intent, &Own::default()).and_then(|sealed| {
                        StarMap::play(&mut state, &ctx, &sealed.action)
                            .map(|()| Some(sealed.action))
                    })
                }
                Err(e) => Err(e),
            },
            Step::Resolve(right, id) => {
                let id = match StarMap::pending(&state).first() {
                    Some(e) if right => e.id,
                    _ => id,
                };
                StarMap::resolve(&mut state, id, &mut draw).map(|()| None)
            }
            Step::Resign => {
                // (Star Map's hidden type has no values: no stray reveal
                // can be built.)
                match StarMap::resign(&mut state, &ctx) {
                    Ok(()) => {
                        StarMap::withdraw(&mut state, seat, Withdrawal::Resigned);
                        Ok(None)
                    }
                    Err(e) => Err(e),
                }
            }
        };
        match result {
            Ok(action) => {
                if let Some(a) = action {
                    let _ = StarMap::describe(&state, &a);
                }
                checked(&state, seats);
            }
            Err(e) => {
                let _ = e.to_string();
                assert_eq!(
                    format!("{state:?}"),
                    before,
                    "a refused step changed the state"
                );
            }
        }
    }
});
