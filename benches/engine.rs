//! Benchmarks: auditing a finished 5-player game (the whole protocol:
//! canonical form, signatures, links, commitments, rules), random
//! self-play in the pure engine (moves per second, no protocol), and for
//! Starry Night whole random games and the listing of legal edges
//! (incremental against from scratch); for Star Map whole random games and
//! the listing of a full hand's legal placements on a crowded map (the
//! engine's anchors next to placed discs against every square); and
//! drawing each game's picture, as SVG and as the PNG a turn mail carries.

use starry::games::star_map::map::{Placement, SQUARES, Sq};
use starry::games::star_map::{self as star_map, StarMap};
use starry::games::starry_night::sky::Sky;
use starry::games::starry_night::{Intent, Options, Score, StarryNight, State};
use starry::games::starry_sky::StarrySky;
use starry::games::{Draw, Own, Turn, play_own, prelude::*, reveal_own};
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
/// would). Returns the number of moves. `unlisted`: each move drawn by
/// `StarrySky::random_intent` instead of from the list of every intent.
fn self_play(seats: usize, seed: u8, unlisted: bool) -> usize {
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
                let intent = if unlisted {
                    StarrySky::random_intent(&state, s, &own[s], |n| draw.below(n)).unwrap()
                } else {
                    let mut all = StarrySky::intents(&state, s, &own[s]);
                    all.swap_remove(draw.below(all.len()))
                };
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
    let moves = self_play(seats, 1, false);
    b.counter(divan::counter::ItemsCount::new(moves))
        .bench(|| self_play(divan::black_box(seats), 1, false));
}

/// The same games (the same moves: `random_intent` draws the listed intent
/// at the drawn index), each move drawn without listing them all.
#[divan::bench(args = [3, 5])]
fn random_self_play_game_unlisted(b: divan::Bencher, seats: usize) {
    let moves = self_play(seats, 1, true);
    assert_eq!(moves, self_play(seats, 1, false));
    b.counter(divan::counter::ItemsCount::new(moves))
        .bench(|| self_play(divan::black_box(seats), 1, true));
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

/// A Star Map game from setup (the default options: a random map), both
/// setup and draws from `seed`; plays uniformly random intents, resolving
/// each pending draw before the next entry as the protocol does, until the
/// game is over or `limit` discs are placed. Returns the state and the
/// number of placements.
fn map_play(seats: usize, seed: u64, limit: usize) -> (star_map::State, usize) {
    let options = star_map::Options::default();
    let mut draw = Draw::new(night_seed(seed));
    let mut state = StarMap::setup(&options, seats, &mut draw).unwrap();
    let mut own = Own::default();
    let mut placed = 0;
    let mut at = 1u64;
    loop {
        for e in StarMap::pending(&state) {
            StarMap::resolve(&mut state, e.id, &mut draw).unwrap();
        }
        if placed == limit {
            break;
        }
        let seat = match StarMap::turn(&state) {
            Turn::Over => break,
            Turn::Move(s) => s,
            Turn::Reveal(..) => unreachable!("Star Map hides nothing"),
        };
        let mut all = StarMap::intents(&state, seat, &own);
        let intent = all.swap_remove(draw.below(all.len()));
        placed += usize::from(!matches!(intent, star_map::Intent::Pass));
        play_own::<StarMap>(&mut state, seat, &intent, &mut own, at).unwrap();
        at += 1;
    }
    (state, placed)
}

/// How many different Star Map games a game benchmark cycles through.
const MAP_GAMES: usize = 100;

/// One whole random Star Map game per iteration, each from another seed
/// (map, start disc, hands, draws and moves change); setup is timed too.
/// Counts discs placed.
#[divan::bench(args = [2, 4])]
fn star_map_random_game(b: divan::Bencher, seats: usize) {
    let placed: Vec<usize> = (0..MAP_GAMES as u64)
        .map(|seed| map_play(seats, seed, usize::MAX).1)
        .collect();
    let mut next = 0;
    b.with_inputs(move || {
        next = (next + 1) % MAP_GAMES;
        next
    })
    .input_counter(move |&seed| divan::counter::ItemsCount::new(placed[seed]))
    .bench_local_values(|seed| map_play(divan::black_box(seats), seed as u64, usize::MAX).1);
}

/// A crowded mid-game position: a seeded 4-player game stopped once half
/// of the 56 discs lie on the map (the start disc and 27 placements), the
/// last draw resolved. The seed is the first from 0 that leaves the seat
/// to move the dealt mix of shapes (a corner, a three, two twos, two ones:
/// 18 disc rotations to try), the usual hand at mid-game.
fn map_mid_game() -> (star_map::State, usize) {
    for seed in 0.. {
        let (state, placed) = map_play(4, seed, 27);
        let Turn::Move(seat) = StarMap::turn(&state) else {
            continue;
        };
        let mut shapes: Vec<_> = state
            .hand(seat)
            .iter()
            .map(|&d| state.set().discs[d as usize].shape)
            .collect();
        shapes.sort();
        if placed == 27 && shapes == dealt_hand() {
            assert_eq!(state.map().discs(), 28);
            return (state, seat);
        }
    }
    unreachable!()
}

/// The shapes every hand is dealt, sorted.
fn dealt_hand() -> Vec<star_map::data::Shape> {
    use star_map::data::Shape;
    vec![
        Shape::Corner,
        Shape::Three,
        Shape::Two,
        Shape::Two,
        Shape::One,
        Shape::One,
    ]
}

/// Every disc of the hand on every one of the 144 squares in each of its
/// rotations, checked by `Map::check`: what the engine's anchors save.
fn map_legal_brute_force(state: &star_map::State, seat: usize) -> Vec<Placement> {
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

/// Listing the legal intents of a full hand at mid-game (`StarMap::intents`:
/// the placements, named, with the draw choices).
#[divan::bench]
fn star_map_legal_intents_full_hand(b: divan::Bencher) {
    let (state, seat) = map_mid_game();
    let own = Own::default();
    assert_eq!(state.placements(seat), map_legal_brute_force(&state, seat));
    let n = StarMap::intents(&state, seat, &own).len();
    b.counter(divan::counter::ItemsCount::new(n))
        .bench(|| StarMap::intents(divan::black_box(&state), seat, &own));
}

/// The same position: `State::placements` alone (`Map::legal`).
#[divan::bench]
fn star_map_legal_placements_full_hand(b: divan::Bencher) {
    let (state, seat) = map_mid_game();
    let n = state.placements(seat).len();
    b.counter(divan::counter::ItemsCount::new(n))
        .bench(|| divan::black_box(&state).placements(seat));
}

/// The same list by `Map::check` on every disc × square × rotation.
#[divan::bench]
fn star_map_legal_placements_full_hand_brute_force(b: divan::Bencher) {
    let (state, seat) = map_mid_game();
    let checks: usize = state
        .hand(seat)
        .iter()
        .map(|&d| SQUARES * state.set().discs[d as usize].shape.rotations().len())
        .sum();
    b.counter(divan::counter::ItemsCount::new(checks))
        .bench(|| map_legal_brute_force(divan::black_box(&state), seat));
}

/// The spectator view of an example game's last position, as a mail draws
/// it.
fn example_view<G: Game>(log: &str) -> (G::View, Vec<String>) {
    let r = Replay::<G>::from_bytes(log.as_bytes()).unwrap();
    let view = G::view(r.state.as_ref().unwrap(), None, None);
    (view, r.names())
}

const SKY_4P: &str = include_str!("../examples/games/in-progress-4p.jsonl");
const NIGHT: &str = include_str!("../examples/games/starry-night-finished-area.jsonl");
const MAP_4P: &str = include_str!("../examples/games/star-map-4-players-teams.jsonl");

/// Drawing a picture: the SVG of a view, then its PNG (what every turn
/// mail carries), for each game.
#[divan::bench(args = ["starry-sky", "starry-night", "star-map"])]
fn picture_svg(b: divan::Bencher, game: &str) {
    match game {
        "starry-sky" => {
            let (v, n) = example_view::<StarrySky>(SKY_4P);
            b.bench(|| StarrySky::render_svg(divan::black_box(&v), &n));
        }
        "starry-night" => {
            let (v, n) = example_view::<StarryNight>(NIGHT);
            b.bench(|| StarryNight::render_svg(divan::black_box(&v), &n));
        }
        _ => {
            let (v, n) = example_view::<StarMap>(MAP_4P);
            b.bench(|| StarMap::render_svg(divan::black_box(&v), &n));
        }
    }
}

#[divan::bench(args = ["starry-sky", "starry-night", "star-map"], sample_count = 10)]
fn picture_png(b: divan::Bencher, game: &str) {
    let svg = match game {
        "starry-sky" => {
            let (v, n) = example_view::<StarrySky>(SKY_4P);
            StarrySky::render_svg(&v, &n)
        }
        "starry-night" => {
            let (v, n) = example_view::<StarryNight>(NIGHT);
            StarryNight::render_svg(&v, &n)
        }
        _ => {
            let (v, n) = example_view::<StarMap>(MAP_4P);
            StarMap::render_svg(&v, &n)
        }
    };
    b.bench(|| starry::picture::png::render(divan::black_box(&svg)).unwrap());
}
