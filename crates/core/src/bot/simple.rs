//! The computer player of a game that brings none of its own: the items of
//! [`Bot`](super::Bot) default to it, so that a new game can be played
//! against the computer from its first line of rules.
//!
//! It knows nothing of the game but its rules: level 1 draws a legal move
//! at random, levels 2 and 3 look one ply ahead and play the move after
//! which the seat leads the others by the most, by the game's own
//! [`Rules::standings`]. A game whose score says little about who is
//! winning until the end needs a bot of its own (docs/bots.md).

use super::{BotRng, Choice, GREEDY_WORK, Sight, Work, pick_best};
use crate::games::{Game, Rules, Seat, Standing, play_own};

/// The simulated games "per move" of the default player at levels 1, 2
/// and 3: it simulates none, and the budget only tells level 1 (nothing:
/// a random move) from the others (the one-ply look).
pub const BUDGET: [u64; 3] = [0, 1, 1];

/// A uniformly random legal move of the seat; `None` when it has none.
pub fn random<G: Game>(sight: &Sight<'_, G>, rng: &mut BotRng) -> Option<Choice<G::Intent>> {
    let mut all = sight.intents();
    if all.is_empty() {
        return None;
    }
    let n = all.len();
    Some(Choice {
        intent: all.swap_remove(rng.below(n)),
        why: format!("drawn at random among {n} legal moves"),
    })
}

/// The one-ply player: the move after which the seat's lead is greatest,
/// ties drawn at random.
pub fn greedy<G: Game>(sight: &Sight<'_, G>, rng: &mut BotRng) -> Option<Choice<G::Intent>> {
    one_ply(sight, &Work::new(GREEDY_WORK), rng)
}

/// The default search: a random move when `games` is 0 (level 1), the
/// one-ply look otherwise, charging a unit to `work` per move looked at.
pub fn search<G: Game>(
    sight: &Sight<'_, G>,
    games: u64,
    work: &Work,
    rng: &mut BotRng,
) -> Option<Choice<G::Intent>> {
    if games == 0 {
        random(sight, rng)
    } else {
        one_ply(sight, work, rng)
    }
}

/// Plays each legal move in a copy of the position and keeps the best by
/// [`lead`]; moves not looked at once `work` is spent are left out, and a
/// seat none of whose moves could be rated plays at random.
fn one_ply<G: Game>(
    sight: &Sight<'_, G>,
    work: &Work,
    rng: &mut BotRng,
) -> Option<Choice<G::Intent>> {
    let all = sight.intents();
    if all.is_empty() {
        return None;
    }
    let seat = sight.seat();
    let rated = pick_best(&all, rng, |intent| {
        if work.done() {
            return None;
        }
        work.charge(1);
        let mut state = sight.state().clone();
        let mut own = sight.own().clone();
        play_own::<G>(&mut state, seat, intent, &mut own, sight.at()).ok()?;
        Some(lead(&<G as Rules>::standings(&state), seat) as f64)
    });
    let Some((i, top)) = rated else {
        return random(sight, rng);
    };
    Some(Choice {
        intent: all[i].clone(),
        why: format!(
            "the greatest lead at once ({top:+}) among {} legal moves",
            all.len()
        ),
    })
}

/// `seat`'s score less the best score of a seat not on its side (its own
/// score when it has no opponent); a partner's score is the seat's own.
pub fn lead(standings: &[Standing], seat: Seat) -> i64 {
    let Some(me) = standings.iter().find(|r| r.seat == seat) else {
        return 0;
    };
    let best_other = standings
        .iter()
        .filter(|r| r.seat != seat && (r.team.is_none() || r.team != me.team))
        .map(|r| r.score)
        .max();
    // Saturating: scores come from the game, and a hostile log's extreme
    // numbers must not overflow (a panic in a debug build).
    me.score.saturating_sub(best_other.unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{Own, Turn};

    fn row(seat: Seat, score: i64, team: Option<u32>) -> Standing {
        Standing {
            seat,
            rank: 0,
            score,
            team,
        }
    }

    #[test]
    fn the_lead_is_over_the_best_opponent_and_partners_share_it() {
        let rows = [row(0, 5, None), row(1, 9, None), row(2, 7, None)];
        assert_eq!(lead(&rows, 0), -4);
        assert_eq!(lead(&rows, 1), 2);
        let teams = [
            row(0, 6, Some(0)),
            row(1, 4, Some(1)),
            row(2, 6, Some(0)),
            row(3, 4, Some(1)),
        ];
        assert_eq!(lead(&teams, 2), 2);
        assert_eq!(lead(&[row(0, 3, None)], 0), 3);
    }

    /// The default players of `G`, played for every seat from the start of
    /// a game: each move they choose is legal, and the one-ply player's
    /// lead is the best any legal move gives.
    fn plays_legal_moves<G: Game>(seats: usize, moves: usize) {
        let mut rng = BotRng::seeded(5);
        let options = G::options(&[], None).expect("default options");
        let mut state = G::setup(&options, seats, &mut rng.draw()).expect("setup");
        let mut owns = vec![Own::default(); seats];
        for at in 3..3 + moves as u64 {
            let Turn::Move(seat) = G::turn(&state) else {
                break;
            };
            let sight = Sight::<G>::new(&state, seat, &owns[seat], at);
            let all = sight.intents();
            let level1 = search(&sight, 0, &Work::unlimited(), &mut rng).expect("a move");
            assert!(all.contains(&level1.intent), "{}", G::NAME);
            let choice = greedy(&sight, &mut rng).expect("a move");
            assert!(all.contains(&choice.intent), "{}", G::NAME);
            let lead_after = |intent: &G::Intent| {
                let mut s = state.clone();
                let mut own = owns[seat].clone();
                play_own::<G>(&mut s, seat, intent, &mut own, at)
                    .map(|_| lead(&G::standings(&s), seat))
            };
            let best = all.iter().filter_map(|i| lead_after(i).ok()).max();
            assert_eq!(lead_after(&choice.intent).ok(), best, "{}", G::NAME);
            crate::games::play_own::<G>(&mut state, seat, &choice.intent, &mut owns[seat], at)
                .expect("legal");
            for event in G::pending(&state) {
                G::resolve(&mut state, event.id, &mut rng.draw()).expect("resolves");
            }
        }
    }

    #[test]
    fn the_default_players_play_every_game() {
        macro_rules! each {
            (() ; $($G:ty),*) => {
                $(plays_legal_moves::<$G>(*<$G as Rules>::SEATS.start(), 8);)*
            };
        }
        crate::for_each_game!(each;);
    }
}
