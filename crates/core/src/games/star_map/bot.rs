//! Star Map's computer opponents.
//!
//! Star Map hides nothing, but every disc drawn is random: the stacks'
//! contents are public, their order is not. A simulated game draws from
//! what is left with the bot's own stream, anew in every simulation.
//!
//! - The greedy player lays the disc that scores the most points now.
//! - The search first ranks every placement by its points now less the
//!   most the next player could then score at once (a placement that opens
//!   a group for the opponent is worth less than its points), keeps the
//!   best few, and spreads simulated games over them (sequential halving).
//!   A simulated game plays on for a few turns with a policy that mostly
//!   lays the disc scoring the most, and is worth the bot's side's points
//!   gained minus the other side's. Points are what wins, and a few turns
//!   on is where a placement's consequences mostly end.

use super::map::{Map, Placement};
use super::{Intent, StarMap, State};
use crate::bot::{self, BotRng, Choice, Sight, Work, World};
use crate::games::{Nothing, Own, Rules, Seat};

/// Candidates kept for the simulations, after the static ranking.
const KEEP: usize = 12;

/// Entries a simulated game is played on after the candidate: two turns
/// of every seat in a two-player game.
const HORIZON: usize = 4;

/// How often the rollout policy lays a random disc instead of the best
/// one: a little noise keeps the simulations from all telling one story.
const NOISE: f64 = 0.15;

/// The points `p` scores now.
fn points_of(state: &State, p: &Placement) -> i64 {
    let disc = &state.set().discs[p.disc as usize];
    let Some(squares) = Map::squares_of(disc.shape, p.at, p.rotation) else {
        return 0;
    };
    let mut map = state.map().clone();
    map.lay(p.disc, &disc.fields, &squares);
    map.score(&squares).points
}

fn points_of_intent(state: &State, i: &Intent) -> i64 {
    match i {
        Intent::Place { placement, .. } => points_of(state, placement),
        Intent::Pass => 0,
    }
}

/// The most `seat` could score with one disc now (a unit of `work` per
/// placement looked at).
fn best_points(state: &State, seat: Seat, work: &Work) -> i64 {
    let all = state.placements(seat);
    work.charge(all.len() as u64 + 1);
    all.iter().map(|p| points_of(state, p)).max().unwrap_or(0)
}

/// `me`'s side's score less the best other side's (teams with four).
fn margin(state: &State, me: Seat) -> i64 {
    let mine = state.score(me);
    let best_other = (0..state.seats())
        .filter(|&s| {
            s != me
                && state
                    .team_of(s)
                    .is_none_or(|t| Some(t) != state.team_of(me))
        })
        .map(|s| state.score(s))
        .max()
        .unwrap_or(0);
    mine - best_other
}

/// The rollout policy: usually the placement scoring the most now (a unit
/// of `work` per placement looked at).
fn rollout_move(
    state: &State,
    seat: Seat,
    own: &Own<Nothing>,
    rng: &mut BotRng,
    work: &Work,
) -> Option<Intent> {
    let mut all = StarMap::intents(state, seat, own);
    work.charge(all.len() as u64 + 1);
    if all.is_empty() {
        return None;
    }
    if rng.unit() < NOISE {
        let i = rng.below(all.len());
        return Some(all.swap_remove(i));
    }
    let (i, _) = bot::pick_best(&all, rng, |i| Some(points_of_intent(state, i) as f64))?;
    Some(all.swap_remove(i))
}

/// A placement's static worth: its points now less what the next player
/// could then score at once.
fn static_worth(sight: &Sight<'_, StarMap>, intent: &Intent, rng: &mut BotRng, work: &Work) -> i64 {
    let now = points_of_intent(sight.state(), intent);
    let mut w = World::open(sight, sight.state().seats());
    if w.play(sight.seat(), intent, rng).is_err() {
        return i64::MIN;
    }
    let reply = match StarMap::turn(&w.state) {
        crate::games::Turn::Move(next)
            if w.state.team_of(next).is_none()
                || w.state.team_of(next) != w.state.team_of(sight.seat()) =>
        {
            best_points(&w.state, next, work)
        }
        _ => 0,
    };
    now - reply
}

impl bot::Bot for StarMap {
    const BUDGET: [u64; 3] = [60, 240, 1_000];

    fn greedy(sight: &Sight<'_, Self>, rng: &mut BotRng) -> Option<Choice<Intent>> {
        let all = sight.intents();
        if all.is_empty() {
            return None;
        }
        let (i, top) = bot::pick_best(&all, rng, |i| {
            Some(points_of_intent(sight.state(), i) as f64)
        })?;
        Some(Choice {
            intent: all[i].clone(),
            why: format!("the most points now ({top}) among {} placements", all.len()),
        })
    }

    fn search(
        sight: &Sight<'_, Self>,
        games: u64,
        work: &Work,
        rng: &mut BotRng,
    ) -> Option<Choice<Intent>> {
        let all = sight.intents();
        let n = all.len();
        if n <= 1 {
            return all.into_iter().next().map(|intent| Choice {
                why: "the only move".into(),
                intent,
            });
        }
        // The ranking looks at every reply to every placement: it stops at
        // half the work units, and placements not looked at by then rank
        // by their points now alone, below every one looked at.
        let looking = work.cap() / 2;
        let mut ranked: Vec<((bool, i64), Intent)> = Vec::with_capacity(n);
        for i in all {
            let worth = if ranked.is_empty() || (work.spent() < looking && !bot::interrupted()) {
                (true, static_worth(sight, &i, rng, work))
            } else {
                work.charge(1);
                (false, points_of_intent(sight.state(), &i))
            };
            ranked.push((worth, i));
        }
        // Stable: equal worths keep the engine's order, so a seed decides.
        ranked.sort_by_key(|r| std::cmp::Reverse(r.0));
        ranked.truncate(KEEP);
        let candidates: Vec<Intent> = ranked.into_iter().map(|(_, i)| i).collect();
        let me = sight.seat();
        let start = margin(sight.state(), me);
        let seats = sight.state().seats();
        let limits = bot::Limits {
            games,
            work,
            horizon: HORIZON * seats / 2,
        };
        let sim = bot::Simulation {
            determinize: &mut |_| World::open(sight, seats),
            policy: &mut |state, seat, own, rng| rollout_move(state, seat, own, rng, work),
            value: &|s, me| (margin(s, me) - start) as f64,
        };
        let (intent, found) = bot::rollouts(sight, candidates, limits, rng, sim)?;
        Some(Choice {
            intent,
            // The measure is this side's lead over the best other side, so
            // it is said from this side: a gain is ours, never the others'.
            why: format!(
                "{:.1} points {} for its side than for the best other side, on average over the next turns in {} simulated games ({} of {n} placements compared)",
                found.best.mean().abs(),
                if found.best.mean() >= 0.0 {
                    "more"
                } else {
                    "fewer"
                },
                crate::text::thousands(found.simulations),
                KEEP.min(n)
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::{Bot, Player, choose};

    /// Random games of 2 players, and of 4 every third game.
    fn positions(games: u64, at: impl FnMut(&World<StarMap>, Seat, &mut BotRng)) -> usize {
        bot::testing::positions::<StarMap>(
            games,
            |g| if g % 3 == 0 { 4 } else { 2 },
            |_| Vec::new(),
            at,
        )
    }

    #[test]
    fn greedy_lays_the_disc_that_scores_most_and_the_engine_agrees() {
        let mut scoring = 0;
        positions(12, |w, seat, rng| {
            let sight = Sight::new(&w.state, seat, &w.owns[seat], w.at);
            let all = sight.intents();
            let most = all
                .iter()
                .map(|i| points_of_intent(&w.state, i))
                .max()
                .unwrap();
            let c = StarMap::greedy(&sight, rng).unwrap();
            assert_eq!(points_of_intent(&w.state, &c.intent), most, "{}", c.intent);
            // What the bot counts is what the rules score.
            let mut after = w.clone();
            after.play(seat, &c.intent, rng).unwrap();
            let gained = after.state.placement_points(seat) - w.state.placement_points(seat);
            assert_eq!(gained, most, "{}", c.intent);
            scoring += usize::from(most > 0);
        });
        assert!(scoring >= 50, "{scoring} positions with points to take");
    }

    #[test]
    fn every_choice_is_legal_over_a_thousand_positions_and_nobody_passes_needlessly() {
        let mut searched = 0;
        let seen = positions(30, |w, seat, rng| {
            let sight = Sight::new(&w.state, seat, &w.owns[seat], w.at);
            let can_place = !w.state.placements(seat).is_empty();
            let mut picks = vec![
                choose(Player::Random, &sight, rng).unwrap(),
                StarMap::greedy(&sight, rng).unwrap(),
            ];
            if w.at % 10 == 0 {
                picks.push(StarMap::search(&sight, 4, &Work::unlimited(), rng).unwrap());
                searched += 1;
            }
            for c in picks {
                assert_eq!(c.intent == Intent::Pass, !can_place, "{}", c.intent);
                let mut after = w.clone();
                after
                    .play(seat, &c.intent, rng)
                    .unwrap_or_else(|e| panic!("`{}` is refused: {e}", c.intent));
            }
        });
        assert!(seen >= 1000, "{seen} positions");
        assert!(searched >= 80, "{searched}");
    }
}
