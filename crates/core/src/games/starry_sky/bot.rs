//! Starry Sky's computer opponents.
//!
//! The search is determinized Monte Carlo: the other seats' face-down
//! tokens are unknown, so each simulated game first guesses them, and only
//! guesses that a reveal could show (what the seat can still hold, checked
//! as a reveal is checked: [`State::could_hold`]). The candidate move is
//! then played and the game played on at random until the board it went on
//! has been scored; its value is the coins the bot gained minus the others'
//! average gain. Coins are what wins, and one board's scoring is where a
//! move's consequences end: later boards start from nothing.
//!
//! The greedy bot takes coins now when a move completes a board, and
//! otherwise places its highest token.

use super::token::{Token, Tokens};
use super::{StarrySky, State};
use crate::bot::{self, BotRng, Choice, Sight, Work, World};
use crate::games::{HiddenRef, Own, Seat};

/// Entries a simulated game may run before it is cut short (a board is
/// always scored long before: at most 10 stars, and every seat plays).
const HORIZON: usize = 400;

impl bot::Bot for StarrySky {
    const BUDGET: [u64; 3] = [300, 2_000, 8_000];

    fn greedy(sight: &Sight<'_, Self>, rng: &mut BotRng) -> Option<Choice<super::Intent>> {
        let me = sight.seat();
        let before = sight.state().coins().to_vec();
        let world = sample_world(sight, rng);
        let all = sight.intents();
        if all.is_empty() {
            return None;
        }
        // A completing move scores at once only if nobody else has to
        // reveal first; the reveals are played out too (they are forced).
        let mut sim = BotRng::seeded(rng.next_u64());
        let mut none = |_: &State, _: Seat, _: &Own<Token>, _: &mut BotRng| None;
        let (i, _) = bot::pick_best(&all, rng, |intent| {
            let mut w = world.clone();
            w.play(me, intent, &mut sim)
                .and_then(|()| w.rollout(&mut sim, HORIZON, &mut none))
                .ok()
                .map(|_| 100.0 * gain(&before, &w.state, me) + intent.token.value() as f64)
        })?;
        Some(Choice {
            intent: all[i].clone(),
            why: format!(
                "the most coins at once (then the highest token) among {} moves",
                all.len()
            ),
        })
    }

    fn search(
        sight: &Sight<'_, Self>,
        games: u64,
        work: &Work,
        rng: &mut BotRng,
    ) -> Option<Choice<super::Intent>> {
        let me = sight.seat();
        let state = sight.state();
        let before = state.coins().to_vec();
        let candidates = sight.intents();
        if candidates.is_empty() {
            return None;
        }
        // A unit per simulated entry, and the guessed world's copy of the
        // state (its boards and tokens) at a unit per seat.
        let per_world = state.seats() as u64;
        let found = bot::search::halving(candidates.len(), games, work, |i| {
            let mut w = sample_world(sight, rng);
            work.charge(per_world + 1);
            let board = &candidates[i].star.board;
            let scored = w.state.history().len();
            if w.play(me, &candidates[i], rng).is_err() {
                return Some(f64::NEG_INFINITY);
            }
            let mut policy = random_move;
            for _ in 0..HORIZON {
                let done = w.state.history()[scored..]
                    .iter()
                    .any(|s| &s.board == board);
                if done {
                    break;
                }
                work.charge(1);
                match w.step(rng, &mut policy) {
                    Ok(true) => {}
                    Ok(false) => break,
                    Err(_) => return Some(f64::NEG_INFINITY),
                }
            }
            Some(gain(&before, &w.state, me))
        });
        let best = candidates[found.best.index].clone();
        Some(Choice {
            why: format!(
                "{} {:+.2} coins against the others' average over {} simulated games ({} moves compared)",
                if found.best.mean() >= 0.0 {
                    "gains"
                } else {
                    "loses only"
                },
                found.best.mean(),
                crate::text::thousands(found.simulations),
                candidates.len()
            ),
            intent: best,
        })
    }
}

/// The rollouts' policy: [`bot::random_move`]'s uniformly random legal
/// move, the same move for the same stream, drawn without listing every
/// move ([`StarrySky::random_intent`]).
fn random_move(
    state: &State,
    seat: Seat,
    own: &Own<Token>,
    rng: &mut BotRng,
) -> Option<super::Intent> {
    StarrySky::random_intent(state, seat, own, |n| rng.below(n))
}

/// The coins `me` gained since `before`, minus the other seats' average gain.
fn gain(before: &[i64], state: &State, me: Seat) -> f64 {
    let coins = state.coins();
    let n = coins.len();
    let mine = (coins[me] - before[me]) as f64;
    let others: i64 = (0..n)
        .filter(|&s| s != me)
        .map(|s| coins[s] - before[s])
        .sum();
    mine - others as f64 / (n - 1).max(1) as f64
}

/// A world in which every other seat's face-down tokens are guessed.
fn sample_world(sight: &Sight<'_, StarrySky>, rng: &mut BotRng) -> World<StarrySky> {
    let state = sight.state();
    let mut owns: Vec<Own<Token>> = vec![Own::default(); state.seats()];
    for (seat, own) in owns.iter_mut().enumerate() {
        if seat == sight.seat() {
            own.clone_from(sight.own());
        } else {
            own.hidden = guess(state, seat, rng).into_iter().collect();
        }
    }
    World::new(state.clone(), owns, sight.at())
}

/// Values for `seat`'s face-down tokens that it could hold: its tokens not
/// seen face up, shared out at random. A uniform shuffle is kept if a reveal
/// of it would pass; after a few refusals (rare: only when a token of the
/// seat's lay face up somewhere while these were down) a search finds a
/// possible one.
pub fn guess(state: &State, seat: Seat, rng: &mut BotRng) -> Vec<(HiddenRef, Token)> {
    let refs = state.face_down_refs(seat);
    if refs.is_empty() {
        return Vec::new();
    }
    let mut unseen = Tokens::full_set();
    for t in state.known_on_boards(seat).to_vec() {
        unseen.take(t);
    }
    let pool = unseen.to_vec();
    for _ in 0..32 {
        let mut p = pool.clone();
        rng.shuffle(&mut p);
        let values: Vec<(HiddenRef, Token)> = refs.iter().copied().zip(p).collect();
        if state.could_hold(seat, &values) {
            return values;
        }
    }
    let mut values = Vec::with_capacity(refs.len());
    if extend(state, seat, &refs, unseen, &mut values, rng) {
        values
    } else {
        // The seat's own reveals would be refused whatever it holds: the
        // public state is not one a legal game reaches. Guess anything.
        refs.iter().copied().zip(pool).collect()
    }
}

/// Depth-first: gives `refs[values.len()]` a token from `left` that keeps
/// the values possible, and goes on.
fn extend(
    state: &State,
    seat: Seat,
    refs: &[HiddenRef],
    left: Tokens,
    values: &mut Vec<(HiddenRef, Token)>,
    rng: &mut BotRng,
) -> bool {
    let Some(&r) = refs.get(values.len()) else {
        return true;
    };
    let mut kinds: Vec<Token> = left.distinct().collect();
    rng.shuffle(&mut kinds);
    for t in kinds {
        values.push((r, t));
        let mut rest = left;
        rest.take(t);
        if state.could_hold(seat, values) && extend(state, seat, refs, rest, values, rng) {
            return true;
        }
        values.pop();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::{Bot, Player, choose};

    /// Random games of 3 to 5 players (see [`bot::testing::positions`]).
    fn positions(games: u64, at: impl FnMut(&World<StarrySky>, Seat, &mut BotRng)) -> usize {
        bot::testing::positions::<StarrySky>(games, |g| 3 + (g % 3) as usize, |_| Vec::new(), at)
    }

    fn legal(world: &World<StarrySky>, seat: Seat, intent: &super::super::Intent) {
        let mut w = world.clone();
        w.play(seat, intent, &mut BotRng::seeded(0))
            .unwrap_or_else(|e| panic!("`{intent}` for seat {seat} is refused: {e}"));
    }

    #[test]
    fn every_choice_is_legal_and_every_guess_possible_over_thousands_of_positions() {
        let mut searched = 0;
        let seen = positions(24, |world, seat, rng| {
            let sight = Sight::new(&world.state, seat, &world.owns[seat], world.at);
            for other in (0..world.state.seats()).filter(|&s| s != seat) {
                let values = guess(&world.state, other, rng);
                assert_eq!(values.len(), world.state.face_down_refs(other).len());
                assert!(world.state.could_hold(other, &values), "{values:?}");
            }
            let c = choose(Player::Random, &sight, rng).expect("a move");
            legal(world, seat, &c.intent);
            if world.at % 3 == 0 {
                let c = StarrySky::greedy(&sight, rng).expect("a move");
                legal(world, seat, &c.intent);
            }
            if world.at % 7 == 0 {
                let c = StarrySky::search(&sight, 6, &Work::unlimited(), rng).expect("a move");
                legal(world, seat, &c.intent);
                searched += 1;
            }
        });
        assert!(seen >= 2000, "{seen} positions");
        assert!(searched >= 200, "{searched} searches");
    }

    /// The coins `me` gains (less the others' average) by playing `intent`
    /// in the true world and making the reveals that follow.
    fn true_gain(world: &World<StarrySky>, me: Seat, intent: &super::super::Intent) -> f64 {
        let mut w = world.clone();
        let mut rng = BotRng::seeded(0);
        w.play(me, intent, &mut rng).unwrap();
        let mut none = |_: &State, _: Seat, _: &Own<Token>, _: &mut BotRng| None;
        w.rollout(&mut rng, HORIZON, &mut none).unwrap();
        gain(world.state.coins(), &w.state, me)
    }

    #[test]
    fn greedy_takes_the_most_coins_a_move_can_win_at_once() {
        // Where nobody else has a face-down token (so no guess is needed),
        // greedy's move wins as many coins at once as the best move does.
        let mut completions = 0;
        positions(200, |world, seat, rng| {
            let others_hidden = (0..world.state.seats())
                .filter(|&s| s != seat)
                .any(|s| !world.state.face_down_refs(s).is_empty());
            if others_hidden {
                return;
            }
            let sight = Sight::new(&world.state, seat, &world.owns[seat], world.at);
            let best = sight
                .intents()
                .iter()
                .map(|i| true_gain(world, seat, i))
                .fold(f64::NEG_INFINITY, f64::max);
            if best <= 0.0 {
                return;
            }
            let c = StarrySky::greedy(&sight, rng).unwrap();
            assert_eq!(true_gain(world, seat, &c.intent), best, "{}", c.intent);
            completions += 1;
        });
        assert!(
            completions >= 10,
            "{completions} positions where coins could be won"
        );
    }

    #[test]
    fn a_seed_gives_the_same_choice() {
        let mut checked = 0;
        positions(2, |world, seat, _| {
            if world.at % 9 != 0 {
                return;
            }
            let sight = Sight::new(&world.state, seat, &world.owns[seat], world.at);
            for player in [Player::Greedy, Player::Random] {
                let a = choose(player, &sight, &mut BotRng::seeded(5)).unwrap();
                let b = choose(player, &sight, &mut BotRng::seeded(5)).unwrap();
                assert_eq!(a, b);
            }
            let a =
                StarrySky::search(&sight, 12, &Work::unlimited(), &mut BotRng::seeded(5)).unwrap();
            let b =
                StarrySky::search(&sight, 12, &Work::unlimited(), &mut BotRng::seeded(5)).unwrap();
            assert_eq!(a, b);
            checked += 1;
        });
        assert!(checked >= 10, "{checked}");
    }
}
