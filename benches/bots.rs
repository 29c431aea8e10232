//! Benchmarks: the time a computer player takes to choose one move, per
//! game and level, from fixed positions a few moves into a game (the
//! figures `starry arena` reports as "time/move" are over whole games; these
//! are repeatable single positions). Strength is measured by `starry arena`
//! (docs/performance.md, "Computer opponents").

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
    let options = G::options(&[], None).unwrap();
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
    let (world, seat) = position::<G>(seats, moves);
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
