//! Benchmarks: the time a computer player takes to choose one move, per
//! game and level, from fixed positions a few moves into a game (the
//! figures `starry arena` reports as "time/move" are over whole games; these
//! are repeatable single positions). Strength is measured by `starry arena`
//! (docs/performance.md, "Computer opponents").
//!
//! The `largest_*` benchmarks are a move on each game's largest board (most
//! stars, most seats), where the work units of a level, not its simulated
//! games, bound the move (docs/bots.md, "Cost"). The peak memory of such a
//! move is measured on the binary (`/usr/bin/time -v starry play --bot 3`,
//! docs/performance.md).

use starry::bot::{self, Bot, BotRng, Level, Player, Sight, World};
use starry::games::star_map::StarMap;
use starry::games::starry_night::StarryNight;
use starry::games::starry_sky::StarrySky;
use starry::games::{Game, Own, Turn};

fn main() {
    divan::main();
}

/// A position `moves` entries into a random game of `G`, with the seat to
/// move.
fn position<G: Game>(seats: usize, moves: usize) -> (World<G>, usize) {
    position_of::<G>(&[], seats, moves)
}

/// The same with the options `pairs`.
fn position_of<G: Game>(pairs: &[(&str, &str)], seats: usize, moves: usize) -> (World<G>, usize) {
    let pairs: Vec<(String, String)> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let options = G::options(&pairs, None).unwrap();
    let mut rng = BotRng::seeded(11);
    let state = G::setup(&options, seats, &mut rng.draw()).unwrap();
    let mut world = World::<G>::new(state, vec![Own::default(); seats], 1);
    world
        .rollout(&mut rng, moves, &mut bot::random_move::<G>)
        .unwrap();
    loop {
        if let Turn::Move(seat) = G::turn(&world.state) {
            return (world, seat);
        }
        world
            .rollout(&mut rng, 1, &mut bot::random_move::<G>)
            .unwrap();
    }
}

fn choose<G: Bot>(b: divan::Bencher, seats: usize, moves: usize, player: Player) {
    choose_in::<G>(b, position::<G>(seats, moves), player);
}

fn choose_in<G: Bot>(b: divan::Bencher, (world, seat): (World<G>, usize), player: Player) {
    b.bench_local(|| {
        let sight = Sight::<G>::new(&world.state, seat, &world.owns[seat], world.at);
        bot::choose(player, &sight, &mut BotRng::seeded(1)).unwrap()
    });
}

const LEVELS: [u8; 3] = [1, 2, 3];

#[divan::bench(args = LEVELS, sample_count = 10, sample_size = 1)]
fn starry_sky_4_players(b: divan::Bencher, level: u8) {
    choose::<StarrySky>(b, 4, 12, Player::Search(Level::new(level).unwrap()));
}

#[divan::bench(args = LEVELS, sample_count = 10, sample_size = 1)]
fn starry_night_12_stars(b: divan::Bencher, level: u8) {
    choose::<StarryNight>(b, 2, 2, Player::Search(Level::new(level).unwrap()));
}

#[divan::bench(args = LEVELS, sample_count = 10, sample_size = 1)]
fn star_map_2_players(b: divan::Bencher, level: u8) {
    choose::<StarMap>(b, 2, 10, Player::Search(Level::new(level).unwrap()));
}

#[divan::bench(args = LEVELS, sample_count = 5, sample_size = 1)]
fn largest_starry_night_163_stars_100x100(b: divan::Bencher, level: u8) {
    let p = position_of::<StarryNight>(&[("random-stars", "163"), ("grid", "100x100")], 2, 1);
    choose_in::<StarryNight>(b, p, Player::Search(Level::new(level).unwrap()));
}

#[divan::bench(args = LEVELS, sample_count = 5, sample_size = 1)]
fn largest_starry_night_160_stars_40x40(b: divan::Bencher, level: u8) {
    let p = position_of::<StarryNight>(&[("random-stars", "160"), ("grid", "40x40")], 2, 1);
    choose_in::<StarryNight>(b, p, Player::Search(Level::new(level).unwrap()));
}

#[divan::bench(args = LEVELS, sample_count = 5, sample_size = 1)]
fn largest_starry_sky_5_players(b: divan::Bencher, level: u8) {
    choose::<StarrySky>(b, 5, 10, Player::Search(Level::new(level).unwrap()));
}

#[divan::bench(args = LEVELS, sample_count = 5, sample_size = 1)]
fn largest_star_map_4_players(b: divan::Bencher, level: u8) {
    choose::<StarMap>(b, 4, 8, Player::Search(Level::new(level).unwrap()));
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn largest_starry_night_greedy(b: divan::Bencher) {
    let p = position_of::<StarryNight>(&[("random-stars", "163"), ("grid", "100x100")], 2, 1);
    choose_in::<StarryNight>(b, p, Player::Greedy);
}

#[divan::bench]
fn greedy_every_game(b: divan::Bencher) {
    let sky = position::<StarrySky>(4, 12);
    let night = position::<StarryNight>(2, 4);
    let map = position::<StarMap>(2, 10);
    b.bench(|| {
        let mut rng = BotRng::seeded(1);
        let s = Sight::<StarrySky>::new(&sky.0.state, sky.1, &sky.0.owns[sky.1], sky.0.at);
        let n =
            Sight::<StarryNight>::new(&night.0.state, night.1, &night.0.owns[night.1], night.0.at);
        let m = Sight::<StarMap>::new(&map.0.state, map.1, &map.0.owns[map.1], map.0.at);
        (
            StarrySky::greedy(&s, &mut rng),
            StarryNight::greedy(&n, &mut rng),
            StarMap::greedy(&m, &mut rng),
        )
    });
}
