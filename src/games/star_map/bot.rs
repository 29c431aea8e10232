//! Computer opponents (a first version: one ply, and random rollouts).

use super::StarMap;
use crate::bot::{self, BotRng, Choice, Sight, World};
use crate::games::{Game, Seat};

fn margin(state: &<StarMap as Game>::State, me: Seat) -> f64 {
    let st = StarMap::standings(state);
    let mine = st.iter().find(|s| s.seat == me).map_or(0, |s| s.score);
    let best = st
        .iter()
        .filter(|s| {
            s.seat != me
                && s.team
                    != st
                        .iter()
                        .find(|s| s.seat == me)
                        .and_then(|s| s.team)
                        .or(Some(u32::MAX))
        })
        .map(|s| s.score)
        .max()
        .unwrap_or(0);
    (mine - best) as f64
}

impl bot::Bot for StarMap {
    const BUDGET: [u64; 3] = [200, 1_000, 4_000];

    fn greedy(sight: &Sight<'_, Self>, rng: &mut BotRng) -> Option<Choice<Self::Intent>> {
        bot::one_ply(sight, rng, margin)
    }

    fn search(
        sight: &Sight<'_, Self>,
        budget: u64,
        rng: &mut BotRng,
    ) -> Option<Choice<Self::Intent>> {
        let seats = StarMap::standings(sight.state()).len();
        let candidates = sight.intents();
        let n = candidates.len();
        let (intent, found) = bot::rollouts(
            sight,
            candidates,
            budget,
            10_000,
            rng,
            &mut |_| World::open(sight, seats),
            &mut bot::random_move::<StarMap>,
            &|s, me| bot::win_share::<StarMap>(s, me) + 0.001 * margin(s, me),
        )?;
        Some(Choice {
            intent,
            why: format!(
                "wins {:.0}% of {} simulated games ({n} moves compared)",
                found.best.mean() * 100.0,
                found.simulations
            ),
        })
    }
}
