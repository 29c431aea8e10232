//! Benchmarks: auditing a finished 5-player game (the whole protocol:
//! canonical form, signatures, links, commitments, rules), random
//! self-play in the pure engine (moves per second, no protocol), and for
//! Starry Night whole random games and the listing of legal edges
//! (incremental against from scratch).

use starry::games::starry_night::sky::Sky;
use starry::games::starry_night::{Intent, Options, Score, StarryNight, State};
use starry::games::starry_sky::StarrySky;
use starry::games::{Draw, Game, Own, Turn, play_own, reveal_own};
use starry::log::Replay;

fn main() {
    divan::main();
}

const FIVE: &str = include_str!("../examples/games/finished-5p-compound-coins.jsonl");

#[divan::bench]
fn audit_finished_5_player_game(b: divan::Bencher) {
    b.counter(divan::counter::ItemsCount::new(FIVE.lines().count()))
        .bench(|| Replay::<StarrySky>::from_bytes(divan::black_box(FIVE.as_bytes())).unwrap());
}

/// Plays one whole game with uniformly random legal moves, revealing with
/// the values each seat placed (the engine sees them, as a player's program
/// would). Returns the number of moves.
fn self_play(seats: usize, seed: u8) -> usize {
    let options = StarrySky::options(&[], None).unwrap();
    let mut draw = Draw::new([seed; 32]);
    let mut state = StarrySky::setup(&options, seats, &mut draw).unwrap();
    let mut own: Vec<Own<_>> = vec![Own::default(); seats];
    let mut moves = 0;
    let mut at = 1u64;
    loop {
        for e in StarrySky::pending(&state) {
            StarrySky::resolve(&mut state, e.id, &mut draw).unwrap();
        }
        match StarrySky::turn(&state) {
            Turn::Over => return moves,
            Turn::Move(s) => {
                let mut all = StarrySky::intents(&state, s, &own[s]);
                let intent = all.swap_remove(draw.below(all.len()));
                play_own::<StarrySky>(&mut state, s, &intent, &mut own[s], at).unwrap();
                moves += 1;
            }
            Turn::Reveal(s, refs) => {
                reveal_own::<StarrySky>(&mut state, s, &refs, &mut own[s], at).unwrap();
            }
        }
        at += 1;
    }
}

#[divan::bench(args = [3, 5])]
fn random_self_play_game(b: divan::Bencher, seats: usize) {
    let moves = self_play(seats, 1);
    b.counter(divan::counter::ItemsCount::new(moves))
        .bench(|| self_play(divan::black_box(seats), 1));
}

/// The random Starry Night sky of `count` stars: 15 on a 10 × 10 grid, 200
/// on a 40 × 40 grid.
fn night_options(count: u32) -> Options {
    let side = if count <= 15 { 10 } else { 40 };
    Options {
        sky: Sky::Random {
            count,
            width: side,
            height: side,
        },
        score: Score::Count,
    }
}

/// A 32-byte seed from a number, so that every iteration plays another sky
/// and other moves.
fn night_seed(seed: u64) -> [u8; 32] {
    let mut out = [0u8; 32];
    out[..8].copy_from_slice(&seed.to_le_bytes());
    out
}

/// Plays a Starry Night game from setup with uniformly random legal
/// intents (the chooser's `first` intent, then edges) until it is over or
/// `limit` edges are drawn. Returns the state and the number of edges.
fn night_play(options: &Options, seed: u64, limit: usize) -> (State, usize) {
    let mut draw = Draw::new(night_seed(seed));
    let mut state = StarryNight::setup(options, 2, &mut draw).unwrap();
    let mut own = Own::default();
    let mut edges = 0;
    let mut at = 1u64;
    while edges < limit {
        let seat = match StarryNight::turn(&state) {
            Turn::Over => break,
            Turn::Move(s) => s,
            Turn::Reveal(..) => unreachable!("Starry Night hides nothing"),
        };
        let mut all = StarryNight::intents(&state, seat, &own);
        let intent = all.swap_remove(draw.below(all.len()));
        edges += usize::from(matches!(intent, Intent::Edge(..)));
        play_own::<StarryNight>(&mut state, seat, &intent, &mut own, at).unwrap();
        at += 1;
    }
    (state, edges)
}

/// How many different games a game benchmark cycles through (divan takes
/// 100 samples of one game each): their edge counts are found once,
/// untimed, for divan's edges-per-second counter.
const NIGHT_GAMES: usize = 100;

/// One whole random game per iteration, each from another seed (the sky
/// and the moves change); setup is timed too. Counts edges drawn.
#[divan::bench(args = [15, 200])]
fn starry_night_random_game(b: divan::Bencher, count: u32) {
    let options = night_options(count);
    let edges: Vec<usize> = (0..NIGHT_GAMES as u64)
        .map(|seed| night_play(&options, seed, usize::MAX).1)
        .collect();
    let mut next = 0;
    b.with_inputs(move || {
        next = (next + 1) % NIGHT_GAMES;
        next
    })
    .input_counter(move |&seed| divan::counter::ItemsCount::new(edges[seed]))
    .bench_local_values(|seed| night_play(divan::black_box(&options), seed as u64, usize::MAX).1);
}

/// A 200-star position halfway through a random game (half of the edges
/// that game draws), with the seat to move.
fn night_mid_game_200() -> (State, usize) {
    let options = night_options(200);
    let (_, total) = night_play(&options, 7, usize::MAX);
    let (state, drawn) = night_play(&options, 7, total / 2);
    let seat = match StarryNight::turn(&state) {
        Turn::Move(s) => s,
        other => panic!("mid-game, someone must move, not {other:?}"),
    };
    assert_eq!(drawn, total / 2);
    (state, seat)
}

/// Every pair of stars checked by the rules from scratch: what the kept
/// list of legal edges saves.
fn night_legal_from_scratch(state: &State) -> Vec<(usize, usize)> {
    let map = state.map();
    let n = map.stars().len();
    (0..n)
        .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
        .filter(|&(a, b)| map.check(a, b).is_ok())
        .collect()
}

/// Listing the legal intents (edges) at mid-game: reads the kept list.
#[divan::bench]
fn starry_night_legal_edges_200(b: divan::Bencher) {
    let (state, seat) = night_mid_game_200();
    let own = Own::default();
    // The kept list is the one the rules give from scratch.
    assert_eq!(state.map().legal_edges(), night_legal_from_scratch(&state));
    let legal = StarryNight::intents(&state, seat, &own).len();
    b.counter(divan::counter::ItemsCount::new(legal))
        .bench(|| StarryNight::intents(divan::black_box(&state), seat, &own));
}

/// The same list found by checking all 19,900 pairs with `Map::check`.
#[divan::bench]
fn starry_night_legal_edges_200_from_scratch(b: divan::Bencher) {
    let (state, _) = night_mid_game_200();
    let n = state.map().stars().len();
    b.counter(divan::counter::ItemsCount::new(n * (n - 1) / 2))
        .bench(|| night_legal_from_scratch(divan::black_box(&state)));
}
