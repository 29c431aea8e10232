//! Starry Night's computer opponents.
//!
//! Starry Night hides nothing and draws nothing after the sky, so a
//! simulated game starts from the position exactly as it is. What decides a
//! game is tempo: a sea is captured by whoever closes it, so an edge that
//! lets the opponent close one is a gift, and the game ends the moment no
//! star is isolated, a tie going to the last mover.
//!
//! - The greedy player captures when it can (the most seas, or the most
//!   area with `score=area`); otherwise it draws an edge after which the
//!   opponent has no capture; failing that, the edge that concedes least.
//! - The search spreads simulated games over every move (sequential
//!   halving). A simulated game is played to its end by a capture-aware
//!   policy — capture when possible, otherwise a random edge that hands
//!   nothing over when one is found among a few tries — and is worth its
//!   result: 1 for a win, 0 for a loss, with the margin breaking ties
//!   between equal win rates.

use super::map::{Map, Star};
use super::{Intent, Score, StarryNight, State};
use crate::bot::{self, BotRng, Choice, Sight, World};
use crate::games::{Own, Seat};

/// Random edges the rollout policy tries before it gives up looking for
/// one that hands nothing over.
const SAFE_TRIES: usize = 4;

/// What drawing `a–b` on `map` captures: seas, or area in half squares.
fn capture(map: &Map, (a, b): (Star, Star), area: bool) -> i64 {
    let mut m = map.clone();
    let added = m.add(a, b, 0);
    if area {
        added.captured.iter().map(|&f| m.twice_area(f)).sum()
    } else {
        added.captured.len() as i64
    }
}

/// The most the next player can capture with one edge on `map`.
fn best_capture(map: &Map, area: bool) -> i64 {
    map.legal_edges()
        .iter()
        .map(|&e| capture(map, e, area))
        .max()
        .unwrap_or(0)
}

/// What `a–b` hands over: the most the opponent can capture right after.
fn concedes(map: &Map, e: (Star, Star), area: bool) -> i64 {
    let mut m = map.clone();
    m.add(e.0, e.1, 0);
    best_capture(&m, area)
}

/// Whether the seat to act draws an edge (rather than choosing who moves
/// first, or answering a takeback).
fn drawing(state: &State) -> bool {
    state.first().is_some() && state.asking().is_none()
}

fn is_area(state: &State) -> bool {
    state.score_kind() == Score::Area
}

/// A uniformly random pick among the indices `best`.
fn pick(best: &[usize], rng: &mut BotRng) -> usize {
    best[rng.below(best.len())]
}

/// The greedy choice among edges, and why.
fn greedy_edge(state: &State, rng: &mut BotRng) -> Option<(Intent, String)> {
    let map = state.map();
    let edges = map.legal_edges();
    if edges.is_empty() {
        return None;
    }
    let area = is_area(state);
    let gains: Vec<i64> = edges.iter().map(|&e| capture(map, e, area)).collect();
    let top = *gains.iter().max().expect("edges");
    if top > 0 {
        let best: Vec<usize> = (0..edges.len()).filter(|&i| gains[i] == top).collect();
        let (a, b) = edges[pick(&best, rng)];
        return Some((
            Intent::Edge(a, b),
            format!("captures {top} {} at once", unit(area, top)),
        ));
    }
    let conceded: Vec<i64> = edges.iter().map(|&e| concedes(map, e, area)).collect();
    let least = *conceded.iter().min().expect("edges");
    let best: Vec<usize> = (0..edges.len()).filter(|&i| conceded[i] == least).collect();
    let (a, b) = edges[pick(&best, rng)];
    let why = if least == 0 {
        format!(
            "nothing to capture; one of {} edges that hand nothing over",
            best.len()
        )
    } else {
        format!(
            "nothing to capture, and every edge hands over at least {least} {}",
            unit(area, least)
        )
    };
    Some((Intent::Edge(a, b), why))
}

fn unit(area: bool, n: i64) -> &'static str {
    match (area, n == 1) {
        (true, _) => "half squares",
        (false, true) => "sea",
        (false, false) => "seas",
    }
}

/// The rollout policy: capture the most when possible, else a random edge
/// that hands nothing over if one turns up in a few tries, else any.
fn rollout_move(
    state: &State,
    seat: Seat,
    own: &Own<crate::games::Nothing>,
    rng: &mut BotRng,
) -> Option<Intent> {
    let edges = state.map().legal_edges();
    if !drawing(state) || edges.is_empty() {
        // Choosing who moves first, or answering a takeback: at random.
        return bot::random_move::<StarryNight>(state, seat, own, rng);
    }
    let area = is_area(state);
    let map = state.map();
    let mut top = 0;
    let mut best = Vec::new();
    for (i, &e) in edges.iter().enumerate() {
        let g = capture(map, e, area);
        if g > top {
            top = g;
            best.clear();
        }
        if g == top && g > 0 {
            best.push(i);
        }
    }
    if !best.is_empty() {
        let (a, b) = edges[pick(&best, rng)];
        return Some(Intent::Edge(a, b));
    }
    let mut fallback = None;
    for _ in 0..SAFE_TRIES {
        let e = edges[rng.below(edges.len())];
        if concedes(map, e, area) == 0 {
            return Some(Intent::Edge(e.0, e.1));
        }
        fallback.get_or_insert(e);
    }
    fallback.map(|(a, b)| Intent::Edge(a, b))
}

/// A finished (or cut short) simulated game's worth to `me`: its win
/// share, the margin breaking ties between equal win rates.
fn worth(state: &State, me: Seat) -> f64 {
    let s = state.scores();
    let margin = (s[me] - s[1 - me]) as f64;
    bot::win_share::<StarryNight>(state, me) + 0.001 * margin.clamp(-100.0, 100.0)
}

impl bot::Bot for StarryNight {
    const BUDGET: [u64; 3] = [150, 500, 3_000];

    fn greedy(sight: &Sight<'_, Self>, rng: &mut BotRng) -> Option<Choice<Intent>> {
        if sight.intents().is_empty() {
            return None;
        }
        if !drawing(sight.state()) {
            return bot::choose(bot::Player::Random, sight, rng);
        }
        greedy_edge(sight.state(), rng).map(|(intent, why)| Choice { intent, why })
    }

    fn search(sight: &Sight<'_, Self>, budget: u64, rng: &mut BotRng) -> Option<Choice<Intent>> {
        let candidates = sight.intents();
        let n = candidates.len();
        let (intent, found) = bot::rollouts(
            sight,
            candidates,
            budget,
            10_000,
            rng,
            &mut |_| World::open(sight, 2),
            &mut rollout_move,
            &worth,
        )?;
        let won = found.best.mean().clamp(0.0, 1.0) * 100.0;
        Some(Choice {
            intent,
            why: if found.simulations == 0 {
                "the only move".into()
            } else {
                format!(
                    "wins {won:.0}% of {} simulated games ({n} moves compared)",
                    found.simulations
                )
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::{Bot, Player, choose};
    use crate::games::{Game, Turn};

    /// The sky of the hand-built positions, in reading order:
    /// A (0,0), B (2,0), C (8,0), D (0,2), E (2,2), F (8,2), G (4,8).
    /// A, B, E, D are the corners of a square.
    fn position(moves: &[&str]) -> World<StarryNight> {
        let pairs = [(
            "stars".to_string(),
            "0,0 2,0 0,2 2,2 8,0 8,2 4,8".to_string(),
        )];
        let options = StarryNight::options(&pairs, None).unwrap();
        let state = StarryNight::setup(&options, 2, &mut BotRng::seeded(0).draw()).unwrap();
        let mut w = World::<StarryNight>::new(state, vec![Own::default(); 2], 3);
        let mut rng = BotRng::seeded(0);
        for text in ["first 1"].iter().chain(moves) {
            let seat = w.state.to_act().unwrap();
            let intent = StarryNight::parse_intent(&w.state, text).unwrap();
            w.play(seat, &intent, &mut rng).unwrap();
        }
        w
    }

    fn edge_of(i: &Intent) -> (Star, Star) {
        match *i {
            Intent::Edge(a, b) => (a, b),
            ref other => panic!("not an edge: {other}"),
        }
    }

    fn choices(w: &World<StarryNight>) -> Vec<(String, Intent)> {
        let seat = w.state.to_act().unwrap();
        let sight = Sight::new(&w.state, seat, &w.owns[seat], w.at);
        let mut out = Vec::new();
        for seed in 0..6 {
            let g = StarryNight::greedy(&sight, &mut BotRng::seeded(seed)).unwrap();
            out.push(("greedy".to_string(), g.intent));
            let s = StarryNight::search(&sight, 300, &mut BotRng::seeded(seed)).unwrap();
            out.push((format!("search ({})", s.why), s.intent));
        }
        out
    }

    #[test]
    fn both_capture_the_sea_they_can_close() {
        // Three sides of the square are drawn; D–A closes it, with G still
        // isolated so the game goes on.
        let w = position(&["A-B", "C-F", "B-E", "E-D"]);
        let map = w.state.map();
        for (who, choice) in choices(&w) {
            assert_eq!(
                capture(map, edge_of(&choice), false),
                1,
                "{who} chose {choice}"
            );
        }
    }

    #[test]
    fn neither_hands_over_a_sea_when_it_need_not() {
        // Two sides of the square are drawn: a third (E–D or A–D) would let
        // the opponent close it. Edges that hand nothing over exist.
        let w = position(&["A-B", "C-F", "B-E"]);
        let map = w.state.map();
        assert!(
            map.legal_edges()
                .iter()
                .any(|&e| concedes(map, e, false) == 0)
        );
        for bad in ["E-D", "A-D"] {
            let i = StarryNight::parse_intent(&w.state, bad).unwrap();
            assert_eq!(
                concedes(map, edge_of(&i), false),
                1,
                "{bad} hands a sea over"
            );
        }
        for (who, choice) in choices(&w) {
            assert_eq!(
                concedes(map, edge_of(&choice), false),
                0,
                "{who} chose {choice}"
            );
        }
    }

    #[test]
    fn every_choice_is_legal_over_thousands_of_positions() {
        let mut seen = 0;
        let mut searched = 0;
        for seed in 0..200u64 {
            let mut rng = BotRng::seeded(seed);
            let count = 10 + (seed % 6);
            let pairs = [("random-stars".to_string(), count.to_string())];
            let options = StarryNight::options(&pairs, None).unwrap();
            let state = StarryNight::setup(&options, 2, &mut rng.draw()).unwrap();
            let mut w = World::<StarryNight>::new(state, vec![Own::default(); 2], 3);
            while let Turn::Move(seat) = StarryNight::turn(&w.state) {
                let sight = Sight::new(&w.state, seat, &w.owns[seat], w.at);
                // Every position for the random player; the greedy one and
                // the search (which try every edge) on a share of them, to
                // keep a debug build's run short.
                let mut players = vec![Player::Random];
                if seen % 10 == 0 {
                    players.push(Player::Greedy);
                }
                if seen % 30 == 0 {
                    players.push(Player::Search(crate::bot::Level::new(1).unwrap()));
                    searched += 1;
                }
                for p in players {
                    let c = match p {
                        Player::Search(_) => StarryNight::search(&sight, 8, &mut rng),
                        p => choose(p, &sight, &mut rng),
                    }
                    .unwrap_or_else(|| panic!("{p} finds no move"));
                    let mut after = w.clone();
                    after
                        .play(seat, &c.intent, &mut rng)
                        .unwrap_or_else(|e| panic!("{p} chose `{}`: {e}", c.intent));
                }
                seen += 1;
                let c = choose(Player::Random, &sight, &mut rng).unwrap();
                w.play(seat, &c.intent, &mut rng).unwrap();
            }
        }
        assert!(seen >= 2000, "{seen} positions");
        assert!(searched >= 60, "{searched}");
    }
}
