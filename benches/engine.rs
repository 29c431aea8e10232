//! Benchmarks: auditing a finished 5-player game (the whole protocol:
//! canonical form, signatures, links, commitments, rules) and random
//! self-play in the pure engine (moves per second, no protocol).

use starry::games::starry_sky::StarrySky;
use starry::games::{Draw, Game, Own, Turn};
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
                let sealed = StarrySky::seal(&state, s, &intent, &own[s]).unwrap();
                let reveals = sealed
                    .reveals
                    .iter()
                    .map(|r| (*r, own[s].hidden.remove(r).unwrap()))
                    .collect();
                let ctx = starry::games::Context {
                    seat: s,
                    at,
                    commitments: sealed.hidden.len() as u32,
                    reveals,
                };
                StarrySky::play(&mut state, &ctx, &sealed.action).unwrap();
                for (i, h) in sealed.hidden.into_iter().enumerate() {
                    own[s].hidden.insert(
                        starry::games::HiddenRef {
                            entry: at,
                            slot: i as u32,
                        },
                        h,
                    );
                }
                moves += 1;
            }
            Turn::Reveal(s, refs) => {
                let reveals = refs
                    .iter()
                    .map(|r| (*r, own[s].hidden.remove(r).unwrap()))
                    .collect();
                let ctx = starry::games::Context {
                    seat: s,
                    at,
                    commitments: 0,
                    reveals,
                };
                StarrySky::reveal(&mut state, &ctx).unwrap();
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
