//! Structure-aware fuzzing of Starry Night's rules engine: a sky of
//! arbitrary points (on a small grid, so that collinear stars, touching
//! edges and nested seas are common) and a sequence of moves given as raw
//! log actions — edges between arbitrary points (stars or not), choices of
//! the first player, takeback steps — each applied by whichever seat the
//! input names.
//!
//! `play` must never panic, whatever it is given; a refused action must leave
//! the state exactly as it was; and after every accepted edge the planar map
//! must agree with the map traced again from scratch (faces, islands), hold
//! Euler's formula, and keep its list of legal edges equal to a check of
//! every pair.
//!
//! Run (stable toolchain, no sanitizer), from the repository root:
//!   cargo fuzz run night_play fuzz/corpus/night_play -s none -- -max_total_time=300
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use starry::games::prelude::*;
use starry::games::starry_night::geometry::Point;
use starry::games::starry_night::sky::Sky;
use starry::games::starry_night::{Action, Options, Score, StarryNight, Takeback};

#[derive(Arbitrary, Debug)]
enum Step {
    Edge(u8, u8, u8, u8),
    First(u8),
    Takeback(u8),
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(side) = u.int_in_range(1u8..=7) else {
        return;
    };
    let Ok(n) = u.int_in_range(3usize..=20) else {
        return;
    };
    let mut stars = Vec::new();
    for _ in 0..n {
        let (Ok(x), Ok(y)) = (u.int_in_range(0..=side), u.int_in_range(0..=side)) else {
            return;
        };
        let p = Point(i32::from(x), i32::from(y));
        if !stars.contains(&p) {
            stars.push(p);
        }
    }
    if stars.len() < 3 {
        return;
    }
    let options = Options {
        sky: Sky::Stars {
            width: u32::from(side) + 1,
            height: u32::from(side) + 1,
            stars,
        },
        score: if u.arbitrary().unwrap_or(false) {
            Score::Area
        } else {
            Score::Count
        },
    };
    let mut state = StarryNight::setup(&options, 2, &mut Draw::new([0; 32])).unwrap();
    let steps: Vec<(bool, Step)> = u.arbitrary().unwrap_or_default();
    for (second, step) in steps.into_iter().take(200) {
        let seat = usize::from(second);
        let action = match step {
            Step::Edge(a, b, c, d) => Action::Edge([
                Point(i32::from(a % 9), i32::from(b % 9)),
                Point(i32::from(c % 9), i32::from(d % 9)),
            ]),
            Step::First(s) => Action::First(usize::from(s % 3)),
            Step::Takeback(t) => Action::Takeback(match t % 3 {
                0 => Takeback::Request,
                1 => Takeback::Accept,
                _ => Takeback::Decline,
            }),
        };
        let before = format!("{:?}", StarryNight::view(&state, None, None));
        let ctx = Context {
            seat,
            at: 0,
            commitments: 0,
            reveals: Vec::new(),
        };
        match StarryNight::play(&mut state, &ctx, &action) {
            Ok(()) => {
                let map = state.map();
                assert_eq!(map.faces_tracked(), map.faces_from_scratch());
                let (v, e) = (map.stars().len() as i64, map.edges().len() as i64);
                assert_eq!(
                    v - e + map.face_count() as i64,
                    1 + map.component_count() as i64
                );
                let mut all = Vec::new();
                for a in 0..map.stars().len() {
                    for b in a + 1..map.stars().len() {
                        if map.check(a, b).is_ok() {
                            all.push((a, b));
                        }
                    }
                }
                assert_eq!(map.legal_edges(), all.as_slice());
                let _ = StarryNight::render_text(
                    &StarryNight::view(&state, None, None),
                    &["Anna".into(), "Ben".into()],
                );
            }
            Err(_) => {
                assert_eq!(
                    format!("{:?}", StarryNight::view(&state, None, None)),
                    before
                );
            }
        }
    }
});
