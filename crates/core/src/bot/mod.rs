//! Computer opponents.
//!
//! A bot chooses a move for one seat from what that seat can see: the
//! public state and the seat's own hidden values ([`Sight`]). It never gets
//! another seat's secrets, because nothing here can carry them: the public
//! state is what any spectator rebuilds from the log (the rules engine never
//! receives a hidden value before it is revealed, see [`crate::games`]), and
//! [`Own`] holds the values of one seat only.
//!
//! Like the rules engines, bots are pure: no clock, no I/O, no global
//! randomness. Randomness comes in as a seeded [`BotRng`], so that a seed
//! reproduces a game move for move; strength levels are budgets of
//! simulated games, never of time.
//!
//! Each game implements [`Bot`] in its own folder (`games/*/bot.rs`); a
//! game that writes none of its items gets the default player of
//! [`simple`] (random at level 1, one ply ahead above). The pieces the
//! games' own bots share are here: a determinized world to play rollouts in
//! ([`World`]) and a search that spreads simulations over the candidate
//! moves ([`search::halving`]).

pub mod search;
pub mod simple;

use std::cell::Cell;
use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

use crate::draw::Draw;
use crate::games::{Game, Own, RuleError, Rules, Seat, Turn};

/// What one seat sees: the public state and its own hidden values.
///
/// There is deliberately no way to put another seat's secrets in here.
pub struct Sight<'a, G: Game> {
    state: &'a G::State,
    seat: Seat,
    own: &'a Own<G::Hidden>,
    at: u64,
}

impl<'a, G: Game> Sight<'a, G> {
    /// `own` must be `seat`'s own values (its program derives them from the
    /// log and its identity; an in-process arena keeps them per seat); `at`
    /// is the number the seat's entry will have in the log (its length), so
    /// that simulated commitments get refs no real one has.
    pub fn new(state: &'a G::State, seat: Seat, own: &'a Own<G::Hidden>, at: u64) -> Self {
        Sight {
            state,
            seat,
            own,
            at,
        }
    }

    /// The number the seat's next entry will have.
    pub fn at(&self) -> u64 {
        self.at
    }

    pub fn state(&self) -> &'a G::State {
        self.state
    }

    pub fn seat(&self) -> Seat {
        self.seat
    }

    pub fn own(&self) -> &'a Own<G::Hidden> {
        self.own
    }

    /// Every legal move of the seat (empty when it is not its move).
    pub fn intents(&self) -> Vec<G::Intent> {
        G::intents(self.state, self.seat, self.own)
    }
}

/// How hard a search bot thinks: a budget of simulated games per move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Level(u8);

impl Level {
    pub const MIN: u8 = 1;
    pub const MAX: u8 = 3;
    /// The level `play --bot` and the robot use unless told otherwise.
    pub const DEFAULT: Level = Level(2);

    pub fn new(n: u8) -> Option<Level> {
        (Self::MIN..=Self::MAX).contains(&n).then_some(Level(n))
    }

    pub fn get(self) -> u8 {
        self.0
    }

    /// Picks this level's entry of a per-game budget table.
    pub fn pick<T: Copy>(self, table: [T; 3]) -> T {
        table[usize::from(self.0 - 1)]
    }

    /// This level's budget in `G`: its simulated games and its work units.
    pub fn budget<G: Bot>(self) -> Budget {
        Budget {
            games: self.pick(G::BUDGET),
            work: self.pick(WORK),
        }
    }
}

/// Work units a move may cost at levels 1, 2 and 3, in every game and every
/// size of board. A unit is one elementary step of a search: a legal move
/// looked at, or a simulated entry played (each game says what it charges,
/// see [`Work`]). The caps are what bounds a move's time and memory on the
/// largest boards (docs/bots.md, "Cost"); on ordinary boards the simulated
/// games of [`Bot::BUDGET`] run out first.
pub const WORK: [u64; 3] = [6_000_000, 16_000_000, 48_000_000];

/// The work units of the greedy players' one-ply look (level 1's): on a
/// large Starry Night sky even one ply looked at fully is quadratic in the
/// legal edges.
pub const GREEDY_WORK: u64 = WORK[0];

/// What a search may spend: simulated games, and work units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    pub games: u64,
    pub work: u64,
}

/// Set by the program's Ctrl-C handler ([`interrupt`]): every search then
/// stops at its next check, and its caller writes nothing.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Asks every search in this process to stop (async-signal-safe: one
/// atomic store).
pub fn interrupt() {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Whether the think was interrupted; a caller that sees this after a
/// search must throw its choice away.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

/// A search's meter of work units: charged as the search works, it says
/// when the budget's units are spent (or the think was interrupted). It
/// counts steps, not time, so a seed gives the same move on any machine.
#[derive(Debug)]
pub struct Work {
    spent: Cell<u64>,
    cap: u64,
}

impl Work {
    pub fn new(cap: u64) -> Work {
        Work {
            spent: Cell::new(0),
            cap,
        }
    }

    /// A meter that only an interrupt stops (for tests that set the
    /// number of simulated games).
    pub fn unlimited() -> Work {
        Work::new(u64::MAX)
    }

    pub fn cap(&self) -> u64 {
        self.cap
    }

    /// Records `units` of work done.
    pub fn charge(&self, units: u64) {
        self.spent.set(self.spent.get().saturating_add(units));
    }

    pub fn spent(&self) -> u64 {
        self.spent.get()
    }

    /// Whether the search must stop: its units are spent, or the think was
    /// interrupted.
    pub fn done(&self) -> bool {
        self.spent.get() >= self.cap || interrupted()
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A player the program can play for: a uniformly random legal move, the
/// one-ply greedy bot, or the search at a level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Player {
    Random,
    Greedy,
    Search(Level),
}

impl Player {
    /// The accepted spellings, for help and errors.
    pub const SPELLINGS: &'static str = "`random`, `greedy`, `bot` (level 2) or `bot:1` to `bot:3`";
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Player::Random => f.write_str("random"),
            Player::Greedy => f.write_str("greedy"),
            Player::Search(l) => write!(f, "bot:{l}"),
        }
    }
}

impl FromStr for Player {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let t = s.trim().to_ascii_lowercase();
        match t.as_str() {
            "random" => Ok(Player::Random),
            "greedy" => Ok(Player::Greedy),
            "bot" => Ok(Player::Search(Level::DEFAULT)),
            _ => t
                .strip_prefix("bot:")
                .and_then(|n| n.parse::<u8>().ok())
                .and_then(Level::new)
                .map(Player::Search)
                .ok_or_else(|| {
                    format!(
                        "`{}` is not a player; use {}",
                        crate::text::excerpt(s),
                        Player::SPELLINGS
                    )
                }),
        }
    }
}

/// A bot's move and, in one line, why (for `play --bot --dry-run`).
#[derive(Clone, Debug, PartialEq)]
pub struct Choice<I> {
    pub intent: I,
    pub why: String,
}

/// A game's computer opponents. Every item has a default, the player of
/// [`simple`]: a game without a bot of its own writes `impl Bot for Comet
/// {}`.
pub trait Bot: Game {
    /// Simulated games per move at levels 1, 2 and 3 (each level's work
    /// units are [`WORK`]).
    const BUDGET: [u64; 3] = simple::BUDGET;

    /// The one-ply bot: the best move by what it does at once.
    fn greedy(sight: &Sight<'_, Self>, rng: &mut BotRng) -> Option<Choice<Self::Intent>> {
        simple::greedy(sight, rng)
    }

    /// The search bot with `games` simulated games, charging its work to
    /// `work` ([`Level::budget`] gives both; tests use small ones). It stops
    /// early, with the best it has, when `work` is spent or the think is
    /// [`interrupted`].
    fn search(
        sight: &Sight<'_, Self>,
        games: u64,
        work: &Work,
        rng: &mut BotRng,
    ) -> Option<Choice<Self::Intent>> {
        simple::search(sight, games, work, rng)
    }
}

/// `player`'s move for the seat of `sight`; `None` when the seat has no
/// legal move (it is not its turn to move).
pub fn choose<G: Bot>(
    player: Player,
    sight: &Sight<'_, G>,
    rng: &mut BotRng,
) -> Option<Choice<G::Intent>> {
    match player {
        Player::Random => simple::random(sight, rng),
        Player::Greedy => G::greedy(sight, rng),
        Player::Search(level) => {
            let budget = level.budget::<G>();
            G::search(sight, budget.games, &Work::new(budget.work), rng)
        }
    }
}

/// The seeded generator of a bot's choices and rollouts (ChaCha8: the same
/// seed gives the same stream on every machine and every release of the
/// crate, which is what makes a seeded game reproducible).
#[derive(Clone, Debug)]
pub struct BotRng(ChaCha8Rng);

impl BotRng {
    pub fn seeded(seed: u64) -> BotRng {
        BotRng(ChaCha8Rng::seed_from_u64(seed))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A uniform integer in `0..n` (`n > 0`), without modulo bias.
    pub fn below(&mut self, n: usize) -> usize {
        assert!(n > 0, "a choice among nothing");
        let n = n as u64;
        let zone = u64::MAX - (u64::MAX % n + 1) % n;
        loop {
            let x = self.0.next_u64();
            if x <= zone {
                return (x % n) as usize;
            }
        }
    }

    /// A uniform number in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A protocol draw from this stream: the random events of a simulated
    /// game (a replacement board, a disc) are sampled with it.
    pub fn draw(&mut self) -> Draw {
        let mut seed = [0u8; 32];
        for chunk in seed.chunks_mut(8) {
            chunk.copy_from_slice(&self.0.next_u64().to_be_bytes());
        }
        Draw::new(seed)
    }

    /// Shuffles `items` (Fisher–Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}

/// A determinized game: a full state with every seat's hidden values
/// filled in (the bot's own as they are, the others' sampled), in which
/// simulated games are played with the rules engine itself.
pub struct World<G: Game> {
    pub state: G::State,
    pub owns: Vec<Own<G::Hidden>>,
    /// The entry number the next simulated entry gets.
    pub at: u64,
}

impl<G: Game> Clone for World<G> {
    fn clone(&self) -> Self {
        World {
            state: self.state.clone(),
            owns: self.owns.clone(),
            at: self.at,
        }
    }
}

/// A rollout policy: the move `seat` makes in a simulated game.
pub type Policy<'p, G> = dyn FnMut(
        &<G as Rules>::State,
        Seat,
        &Own<<G as Rules>::Hidden>,
        &mut BotRng,
    ) -> Option<<G as Rules>::Intent>
    + 'p;

impl<G: Game> World<G> {
    /// A world with `owns` as every seat's hidden values, whose next entry
    /// is number `at`.
    pub fn new(state: G::State, owns: Vec<Own<G::Hidden>>, at: u64) -> World<G> {
        World { state, owns, at }
    }

    /// A world for a game that hides nothing: the state as it is.
    pub fn open(sight: &Sight<'_, G>, seats: usize) -> World<G> {
        let mut owns = vec![Own::default(); seats];
        owns[sight.seat()] = sight.own().clone();
        World::new(sight.state().clone(), owns, sight.at())
    }

    /// Plays `intent` for `seat` and resolves the random events it asked
    /// for with draws from `rng`.
    pub fn play(
        &mut self,
        seat: Seat,
        intent: &G::Intent,
        rng: &mut BotRng,
    ) -> Result<(), RuleError> {
        crate::games::play_own::<G>(&mut self.state, seat, intent, &mut self.owns[seat], self.at)?;
        self.at += 1;
        self.settle(rng)
    }

    /// Plays the next entry the rules ask for: a reveal, or the move
    /// `policy` picks. False once the game is over (or a seat to move has
    /// no move, which the engines never allow).
    pub fn step(
        &mut self,
        rng: &mut BotRng,
        policy: &mut Policy<'_, G>,
    ) -> Result<bool, RuleError> {
        match G::turn(&self.state) {
            Turn::Over => Ok(false),
            Turn::Reveal(seat, refs) => {
                crate::games::reveal_own::<G>(
                    &mut self.state,
                    seat,
                    &refs,
                    &mut self.owns[seat],
                    self.at,
                )?;
                self.at += 1;
                self.settle(rng)?;
                Ok(true)
            }
            Turn::Move(seat) => {
                let Some(intent) = policy(&self.state, seat, &self.owns[seat], rng) else {
                    return Ok(false);
                };
                self.play(seat, &intent, rng)?;
                Ok(true)
            }
        }
    }

    /// Plays until the game is over or `limit` entries have been played;
    /// returns how many were.
    pub fn rollout(
        &mut self,
        rng: &mut BotRng,
        limit: usize,
        policy: &mut Policy<'_, G>,
    ) -> Result<usize, RuleError> {
        for n in 0..limit {
            if !self.step(rng, policy)? {
                return Ok(n);
            }
        }
        Ok(limit)
    }

    /// Resolves every pending random event at once. (The protocol resolves
    /// one with the next entry of another seat; who learns the result a
    /// move earlier makes no difference to a simulated game.)
    fn settle(&mut self, rng: &mut BotRng) -> Result<(), RuleError> {
        for event in G::pending(&self.state) {
            G::resolve(&mut self.state, event.id, &mut rng.draw())?;
        }
        Ok(())
    }
}

/// The random rollout policy: a uniformly random legal move.
pub fn random_move<G: Game>(
    state: &G::State,
    seat: Seat,
    own: &Own<G::Hidden>,
    rng: &mut BotRng,
) -> Option<G::Intent> {
    let mut all = G::intents(state, seat, own);
    if all.is_empty() {
        return None;
    }
    let i = rng.below(all.len());
    Some(all.swap_remove(i))
}

/// A seat's share of the win in final (or current) standings: 1 for a sole
/// first place, 1/k when k seats share it, 0 otherwise.
pub fn win_share<G: Game>(state: &G::State, seat: Seat) -> f64 {
    let standings = G::standings(state);
    let firsts = standings.iter().filter(|s| s.rank == 1).count();
    match standings.iter().find(|s| s.seat == seat) {
        Some(s) if s.rank == 1 && firsts > 0 => 1.0 / firsts as f64,
        _ => 0.0,
    }
}

/// The index of the item `value` rates highest, ties drawn at random;
/// items rated `None` (a move the rules refuse in a simulation) are left
/// out. `None` when no item is rated.
pub fn pick_best<T>(
    items: &[T],
    rng: &mut BotRng,
    mut value: impl FnMut(&T) -> Option<f64>,
) -> Option<(usize, f64)> {
    let mut best: Vec<usize> = Vec::new();
    let mut top = f64::NEG_INFINITY;
    for (i, item) in items.iter().enumerate() {
        let Some(v) = value(item) else { continue };
        if v > top {
            top = v;
            best.clear();
        }
        if v == top {
            best.push(i);
        }
    }
    (!best.is_empty()).then(|| (best[rng.below(best.len())], top))
}

/// How much [`rollouts`] may simulate.
pub struct Limits<'w> {
    /// Simulated games to spread over the candidates.
    pub games: u64,
    /// The work units to spend, shared with the rest of the choice.
    pub work: &'w Work,
    /// The most entries one simulated game plays on for.
    pub horizon: usize,
}

/// How [`rollouts`] simulates: how it samples a world the seat cannot tell
/// from the real one, how play goes on in it, and what the end is worth.
pub struct Simulation<'s, 'p, G: Game> {
    pub determinize: &'s mut dyn FnMut(&mut BotRng) -> World<G>,
    pub policy: &'s mut Policy<'p, G>,
    /// The result for the seat (in `[0, 1]` for a win rate).
    pub value: &'s dyn Fn(&G::State, Seat) -> f64,
}

/// Determinized Monte Carlo search: for each simulated game a fresh world
/// is sampled from what the seat can see (`sim.determinize`), the candidate
/// is played in it, and the game is played on by `sim.policy` for at most
/// `limits.horizon` entries; `sim.value` scores the result for the seat.
/// [`search::halving`] spreads `limits.games` simulations over the
/// candidates until the work is spent: each simulated entry costs a unit,
/// and `determinize` and `policy` charge what their own work costs.
pub fn rollouts<G: Game>(
    sight: &Sight<'_, G>,
    candidates: Vec<G::Intent>,
    limits: Limits<'_>,
    rng: &mut BotRng,
    sim: Simulation<'_, '_, G>,
) -> Option<(G::Intent, search::Found)> {
    if candidates.is_empty() {
        return None;
    }
    let Limits {
        games,
        work,
        horizon,
    } = limits;
    let Simulation {
        determinize,
        policy,
        value,
    } = sim;
    let seat = sight.seat();
    let found = search::halving(candidates.len(), games, work, |i| {
        let mut w = determinize(rng);
        work.charge(1);
        if w.play(seat, &candidates[i], rng).is_err() {
            return Some(f64::NEG_INFINITY);
        }
        Some(match w.rollout(rng, horizon, policy) {
            Ok(n) => {
                work.charge(n as u64);
                value(&w.state, seat)
            }
            // A simulated game the rules refuse is worth nothing to pick.
            Err(_) => f64::NEG_INFINITY,
        })
    });
    Some((candidates[found.best.index].clone(), found))
}

/// Random positions for the bots' tests.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;

    /// Plays `games` random games of `G` (game `g` with `seats(g)` seats and
    /// the options `pairs(g)`), calling `at` with the true world — every
    /// seat's real values — wherever a seat must move. Returns how many
    /// positions there were.
    pub(crate) fn positions<G: Game>(
        games: u64,
        seats: impl Fn(u64) -> usize,
        pairs: impl Fn(u64) -> Vec<(String, String)>,
        mut at: impl FnMut(&World<G>, Seat, &mut BotRng),
    ) -> usize {
        let mut seen = 0;
        for g in 0..games {
            let mut rng = BotRng::seeded(g);
            let options = G::options(&pairs(g), None).expect("options");
            let n = seats(g);
            let state = G::setup(&options, n, &mut rng.draw()).expect("setup");
            let mut world = World::<G>::new(state, vec![Own::default(); n], 3);
            loop {
                if let Turn::Move(seat) = G::turn(&world.state) {
                    at(&world, seat, &mut rng);
                    seen += 1;
                }
                if !world
                    .step(&mut rng, &mut random_move::<G>)
                    .expect("random play is legal")
                {
                    break;
                }
            }
        }
        seen
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pick_best_draws_among_ties_and_skips_the_unrated() {
        let items = [3.0, 7.0, 7.0, f64::NAN, 1.0];
        let mut seen = [false; 5];
        let mut rng = BotRng::seeded(1);
        for _ in 0..50 {
            let (i, v) = pick_best(&items, &mut rng, |&x| (!x.is_nan()).then_some(x)).unwrap();
            assert_eq!(v, 7.0);
            seen[i] = true;
        }
        assert_eq!(seen, [false, true, true, false, false]);
        assert_eq!(pick_best(&items, &mut rng, |_| None::<f64>), None);
    }

    #[test]
    fn players_read_and_print() {
        for (text, p) in [
            ("random", Player::Random),
            ("Greedy", Player::Greedy),
            ("bot", Player::Search(Level::DEFAULT)),
            ("bot:1", Player::Search(Level(1))),
            (" bot:3 ", Player::Search(Level(3))),
        ] {
            assert_eq!(text.parse::<Player>(), Ok(p), "{text}");
            assert_eq!(p.to_string().parse::<Player>(), Ok(p));
        }
        for bad in ["bot:0", "bot:4", "bot:", "mcts", ""] {
            let e = bad.parse::<Player>().unwrap_err();
            assert!(e.contains("bot:1"), "{e}");
        }
    }

    #[test]
    fn the_stream_is_fixed_for_a_seed() {
        let mut a = BotRng::seeded(7);
        let mut b = BotRng::seeded(7);
        let xs: Vec<usize> = (0..100).map(|_| a.below(10)).collect();
        let ys: Vec<usize> = (0..100).map(|_| b.below(10)).collect();
        assert_eq!(xs, ys);
        assert!(xs.iter().all(|&x| x < 10));
        // Every value turns up: the choice is not stuck.
        assert!((0..10).all(|v| xs.contains(&v)));
        let u = a.unit();
        assert!((0.0..1.0).contains(&u));
        assert_ne!(BotRng::seeded(8).next_u64(), BotRng::seeded(7).next_u64());
    }
}
