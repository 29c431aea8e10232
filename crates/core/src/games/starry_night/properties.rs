//! Invariants of the planar map on random skies and random games: Euler's
//! formula, the incremental faces against faces traced from scratch, the
//! kept list of legal edges against a check of every pair.

use proptest::prelude::*;

use super::*;
use crate::games::{Context, Own, play_own, prelude::*};

type G = StarryNight;

fn random_state(count: u32, width: u32, height: u32, seed: u64) -> (State, Draw) {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_be_bytes());
    let mut draw = Draw::new(bytes);
    let options = Options {
        sky: Sky::Random {
            count,
            width,
            height,
        },
        score: Score::Count,
    };
    let state = G::setup(&options, 2, &mut draw).unwrap();
    (state, draw)
}

/// Every pair checked from scratch by the rules.
fn brute_force(map: &Map) -> Vec<(Star, Star)> {
    let n = map.stars().len();
    let mut out = Vec::new();
    for a in 0..n {
        for b in a + 1..n {
            if map.check(a, b).is_ok() {
                out.push((a, b));
            }
        }
    }
    out
}

fn check_map(map: &Map, legal_too: bool) {
    let v = map.stars().len() as i64;
    let e = map.edges().len() as i64;
    let f = map.face_count() as i64;
    let c = map.component_count() as i64;
    assert_eq!(v - e + f, 1 + c, "Euler: V − E + F = 1 + C");
    assert_eq!(
        map.faces_tracked(),
        map.faces_from_scratch(),
        "faces after {e} edges"
    );
    for sea in map.seas() {
        assert!(map.twice_area(sea) > 0, "a sea has a positive area");
        // The rule a second implementation can use (docs/starry-night.md):
        // a sea is captured exactly when it has no island.
        assert_eq!(
            map.face(sea).captor.is_some(),
            map.islands(sea).is_empty(),
            "sea {sea}: captured exactly when it has no island"
        );
    }
    if legal_too {
        assert_eq!(
            map.legal_edges(),
            brute_force(map).as_slice(),
            "legal edges after {e} edges"
        );
    }
}

/// Plays a random game to its end; `check_every`: how often (in edges) the
/// costly legal-edge comparison runs. Returns the number of edges.
fn random_game(count: u32, width: u32, height: u32, seed: u64, check_every: usize) -> usize {
    let (mut state, mut draw) = random_state(count, width, height, seed);
    check_map(state.map(), true);
    let bound = 2 + 3 * count as usize;
    for step in 0..=bound {
        let Turn::Move(seat) = G::turn(&state) else {
            assert!(
                state.isolated().is_empty(),
                "the game ends with no isolated star"
            );
            return state.drawn().len();
        };
        let mut all = G::intents(&state, seat, &Own::default());
        assert!(!all.is_empty(), "whoever must move can");
        let intent = all.swap_remove(draw.below(all.len()));
        let seas_before = state.map().seas().count();
        play_own::<G>(&mut state, seat, &intent, &mut Own::default(), step as u64).unwrap();
        if let Some(d) = state.drawn().last() {
            assert!(d.captured.len() <= 1, "one edge captures at most one sea");
            assert!(
                state.map().seas().count() <= seas_before + 1,
                "an edge adds at most one sea"
            );
        }
        let edges = state.drawn().len();
        check_map(state.map(), check_every > 0 && edges % check_every == 0);
    }
    panic!("a game of {count} stars lasted more than {bound} moves");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn small_random_games_keep_every_invariant(
        count in 3u32..=16,
        width in 3u32..=8,
        height in 3u32..=8,
        seed in any::<u64>(),
    ) {
        let count = count.min(width * height);
        prop_assume!(count >= 3);
        random_game(count, width, height, seed, 1);
    }

    #[test]
    fn medium_random_games_keep_every_invariant(
        count in 20u32..=45,
        seed in any::<u64>(),
    ) {
        // A tight grid: many collinear stars.
        random_game(count, 9, 9, seed, 7);
    }
}

#[test]
fn large_random_games_keep_every_invariant() {
    for (seed, grid) in [(1, 40), (2, 100)] {
        let edges = random_game(200, grid, grid, seed, 150);
        assert!(edges >= 199, "every star is joined: {edges} edges");
    }
}

#[test]
fn a_takeback_restores_the_earlier_position_exactly() {
    let (mut state, mut draw) = random_state(14, 10, 10, 7);
    let mut snapshots = Vec::new();
    let mut requested = 0;
    while G::turn(&state) != Turn::Over && requested < 2 * TAKEBACKS_PER_SEAT {
        let Turn::Move(seat) = G::turn(&state) else {
            unreachable!()
        };
        snapshots.push(G::view(&state, None, None));
        let ctx = Context {
            seat,
            at: 0,
            commitments: 0,
            reveals: Vec::new(),
        };
        if state.drawn().len() >= 4 && state.requests_left(seat) > 0 && draw.below(3) == 0 {
            let back = snapshots[snapshots.len() - 3].clone();
            G::play(&mut state, &ctx, &Action::Takeback(Takeback::Request)).unwrap();
            let answer = Context {
                seat: 1 - seat,
                ..ctx
            };
            G::play(&mut state, &answer, &Action::Takeback(Takeback::Accept)).unwrap();
            let now = G::view(&state, None, None);
            assert_eq!(
                (&now.edges, &now.seas, &now.scores),
                (&back.edges, &back.seas, &back.scores)
            );
            snapshots.truncate(snapshots.len() - 3);
            requested += 1;
            continue;
        }
        let mut all = G::intents(&state, seat, &Own::default());
        let intent = all.swap_remove(draw.below(all.len()));
        play_own::<G>(&mut state, seat, &intent, &mut Own::default(), 0).unwrap();
    }
    assert!(requested > 0);
}
