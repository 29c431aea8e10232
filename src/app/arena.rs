//! `starry arena`: bots against each other, in-process, with no log and no
//! signatures; win rates with a 95% interval and the time each takes per
//! move. It is also the benchmark of bot strength (docs/performance.md).
//!
//! Game `i` is played from seed `seed + i`: the setup draw, every random
//! event and every bot's stream come from it, so a game can be replayed
//! alone. The players' places at the table rotate from game to game, so
//! that nobody always moves first.

use std::time::{Duration, Instant};

use rayon::prelude::*;
use schemars::JsonSchema;
use serde::Serialize;

use super::Output;
use crate::bot::{self, Bot, BotRng, Player, Sight, World};
use crate::error::{Error, Result};
use crate::games::Turn;
use crate::with_game;

/// What `starry arena` was asked.
pub struct Match {
    pub game: String,
    pub players: Vec<Player>,
    pub games: u32,
    pub seed: u64,
    pub jobs: Option<usize>,
    pub variants: Vec<(String, String)>,
}

/// One player's results over the whole match (schemas/arena.json).
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
pub struct PlayerReport {
    /// The player's place in `--bots`, from 1.
    pub entrant: usize,
    pub player: String,
    /// Games won; a first place shared by k seats counts 1/k.
    pub wins: f64,
    pub win_rate: f64,
    /// Wilson score interval (95%) of the win rate.
    pub interval: [f64; 2],
    pub moves: u64,
    pub mean_move_ms: f64,
    /// Mean final score (coins, seas or points) and rank.
    pub mean_score: f64,
    pub mean_rank: f64,
}

/// `starry arena --json`.
#[derive(Serialize, JsonSchema, Debug)]
pub struct ArenaReport {
    pub game: String,
    pub games: u32,
    pub seats: usize,
    pub seed: u64,
    /// One report per entrant, in `--bots` order.
    pub players: Vec<PlayerReport>,
    /// Entries (moves and reveals) a game took on average.
    pub mean_entries: f64,
}

/// One game's result for each entrant (in `--bots` order).
#[derive(Clone, Debug, Default)]
struct Played {
    share: Vec<f64>,
    score: Vec<i64>,
    rank: Vec<u32>,
    moves: Vec<u64>,
    thinking: Vec<Duration>,
    entries: u64,
}

/// Plays game number `index` of a match: entrant `e` sits in seat
/// `(e + index) % n`.
fn play_game<G: Bot>(
    options: &G::Options,
    players: &[Player],
    seed: u64,
    index: u32,
) -> Result<Played> {
    let n = players.len();
    let mut master = BotRng::seeded(seed.wrapping_add(u64::from(index)));
    let state = G::setup(options, n, &mut master.draw()).map_err(Error::rule)?;
    let mut world = World::<G>::new(state, vec![Default::default(); n], 0);
    let mut events = BotRng::seeded(master.next_u64());
    let mut streams: Vec<BotRng> = (0..n).map(|_| BotRng::seeded(master.next_u64())).collect();
    let entrant_at = |seat: usize| (seat + n - index as usize % n) % n;
    let mut played = Played {
        share: vec![0.0; n],
        score: vec![0; n],
        rank: vec![0; n],
        moves: vec![0; n],
        thinking: vec![Duration::ZERO; n],
        entries: 0,
    };
    // A bound no legal game reaches; a bot that loops is a bug to report.
    let limit = G::max_entries(options, n).saturating_mul(4).max(1000);
    loop {
        if played.entries > limit {
            return Err(Error::Other(format!(
                "game {index} of the arena did not end within {limit} entries"
            )));
        }
        match G::turn(&world.state) {
            Turn::Over => break,
            Turn::Reveal(..) => {
                let mut never = |_: &G::State, _, _: &_, _: &mut BotRng| None;
                world.step(&mut events, &mut never).map_err(Error::rule)?;
            }
            Turn::Move(seat) => {
                let e = entrant_at(seat);
                let started = Instant::now();
                let sight = Sight::<G>::new(&world.state, seat, &world.owns[seat], world.at);
                let choice = super::think::interruptible(|| {
                    bot::choose(players[e], &sight, &mut streams[seat])
                })?;
                played.thinking[e] += started.elapsed();
                played.moves[e] += 1;
                let Some(choice) = choice else {
                    return Err(Error::Other(format!(
                        "game {index}: {} found no move for seat {} although it must move",
                        players[e], seat
                    )));
                };
                world.play(seat, &choice.intent, &mut events).map_err(|r| {
                    Error::Other(format!(
                        "game {index}: {} chose `{}` for seat {}, which the rules refuse: {r}",
                        players[e], choice.intent, seat
                    ))
                })?;
            }
        }
        played.entries += 1;
    }
    let standings = G::standings(&world.state);
    let firsts = standings.iter().filter(|s| s.rank == 1).count().max(1);
    for s in standings {
        let e = entrant_at(s.seat);
        played.share[e] = if s.rank == 1 {
            1.0 / firsts as f64
        } else {
            0.0
        };
        played.score[e] = s.score;
        played.rank[e] = s.rank;
    }
    Ok(played)
}

/// Wilson score interval at 95% for `wins` out of `n`.
pub fn wilson(wins: f64, n: f64) -> [f64; 2] {
    if n <= 0.0 {
        return [0.0, 1.0];
    }
    let z = 1.959_963_985;
    let p = wins / n;
    let z2 = z * z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = z / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    [(centre - half).max(0.0), (centre + half).min(1.0)]
}

fn run_game<G: Bot>(m: &Match) -> Result<ArenaReport> {
    let n = m.players.len();
    if !G::SEATS.contains(&n) {
        return Err(Error::Usage(format!(
            "{} takes {} players; --bots names {n}",
            G::NAME,
            crate::games::seat_range::<G>()
        )));
    }
    let options = G::options(&m.variants, None).map_err(|e| Error::Usage(e.detail))?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(m.jobs.unwrap_or(0))
        .build()
        .map_err(|e| Error::Other(format!("cannot start the worker threads: {e}")))?;
    let results: Vec<Played> = pool.install(|| {
        (0..m.games)
            .into_par_iter()
            .map(|i| play_game::<G>(&options, &m.players, m.seed, i))
            .collect::<Result<Vec<_>>>()
    })?;
    let games = f64::from(m.games);
    let players = (0..n)
        .map(|e| {
            let wins: f64 = results.iter().map(|r| r.share[e]).sum();
            let moves: u64 = results.iter().map(|r| r.moves[e]).sum();
            let thinking: Duration = results.iter().map(|r| r.thinking[e]).sum();
            PlayerReport {
                entrant: e + 1,
                player: m.players[e].to_string(),
                wins,
                win_rate: wins / games,
                interval: wilson(wins, games),
                moves,
                mean_move_ms: if moves == 0 {
                    0.0
                } else {
                    thinking.as_secs_f64() * 1000.0 / moves as f64
                },
                mean_score: results.iter().map(|r| r.score[e] as f64).sum::<f64>() / games,
                mean_rank: results.iter().map(|r| f64::from(r.rank[e])).sum::<f64>() / games,
            }
        })
        .collect();
    Ok(ArenaReport {
        game: G::NAME.into(),
        games: m.games,
        seats: n,
        seed: m.seed,
        players,
        mean_entries: results.iter().map(|r| r.entries as f64).sum::<f64>() / games,
    })
}

/// Plays the match and reports it.
pub fn run(m: &Match) -> Result<Output> {
    if m.games == 0 {
        return Err(Error::Usage("--games must be at least 1".into()));
    }
    let report: ArenaReport = with_game!(m.game.as_str(), G => run_game::<G>(m))?;
    let mut text = format!(
        "{}: {} with {} players (seats rotate each game), seed {}; {:.1} entries a game on average\n\n",
        report.game,
        crate::text::count(report.games, "game", "games"),
        report.seats,
        report.seed,
        report.mean_entries
    );
    text.push_str(
        "   player    wins     win rate  95% interval    mean score  mean rank  time/move\n",
    );
    for p in &report.players {
        text.push_str(&format!(
            "{:>2} {:<9} {:>7.1}  {:>7.1}%  {:>5.1}% – {:>5.1}%  {:>10.2}  {:>9.2}  {:>9}\n",
            p.entrant,
            p.player,
            p.wins,
            p.win_rate * 100.0,
            p.interval[0] * 100.0,
            p.interval[1] * 100.0,
            p.mean_score,
            p.mean_rank,
            shown_ms(p.mean_move_ms)
        ));
    }
    text.push_str(
        "\nA first place shared by k players counts 1/k of a win; the interval is Wilson's score interval.",
    );
    Ok(Output::new(text, &report))
}

fn shown_ms(ms: f64) -> String {
    if ms >= 100.0 {
        format!("{ms:.0} ms")
    } else if ms >= 1.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{:.0} µs", ms * 1000.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_known_values() {
        // 50 of 100: 40.4% – 59.6%.
        let [lo, hi] = wilson(50.0, 100.0);
        assert!(
            (lo - 0.4038).abs() < 1e-3 && (hi - 0.5962).abs() < 1e-3,
            "{lo} {hi}"
        );
        // 0 of 10 still leaves room above.
        let [lo, hi] = wilson(0.0, 10.0);
        assert!(lo == 0.0 && (hi - 0.2775).abs() < 1e-3, "{hi}");
    }
}
