//! `starry rules replay GAME [INPUT]`: the offline referee for a whole game.
//! It takes a game's options, its seat count, the seed of its setup draw and
//! a list of actions — no keys, no signatures, every hidden value given face
//! up — and prints the public state after each action, or refuses the first
//! action that breaks the rules, with its reason.
//!
//! It is written once for every [`Game`] and applies each action exactly as
//! `crates/core/src/log/replay.rs` applies the log entry it stands for (the order of
//! the checks, the [`Context`] the game is given, the random events resolved
//! before the action, a resignation opening every hidden value of the seat
//! and placing it last), so that a log's audit and a replay of the same
//! actions reach the same states. The format is in `docs/referee.md`; the
//! schemas are `schemas/rules-replay-input.json` and
//! `schemas/rules-replay.json`.
//!
//! The input may come from anyone: it is read up to [`MAX_INPUT_BYTES`],
//! holds at most [`MAX_ACTIONS`] actions, is parsed straight into the
//! game's own types (so a hostile value costs no more than its bytes), and
//! every error quotes it only as a short, escaped excerpt.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::marker::PhantomData;

use schemars::JsonSchema;
use serde::de::{Deserializer, Error as _, IgnoredAny, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::app::Output;
use crate::crypto::beacon;
use crate::error::{Error, Fault, Result};
use crate::games::{Context, Draw, Game, HiddenRef, RuleError, Rules, Seat, Standing, Turn};
use crate::log::entry::HexHash;
use crate::log::replay::{most_entries_per_seat, placed_last};
use crate::text::{excerpt_of, inline};

/// Largest input read, in bytes (16 MiB). A whole game's actions take a
/// few tens of kilobytes.
pub const MAX_INPUT_BYTES: usize = 16 << 20;
/// Most actions an input may list.
pub const MAX_ACTIONS: usize = 100_000;
/// Longest quote of serde's message about a malformed input, in characters.
const MAX_DETAIL_CHARS: usize = 300;
/// Longest reason for a refused action, in characters: a backstop, the
/// games' own messages are far shorter.
const MAX_REFUSAL_CHARS: usize = 600;

/// The input of `starry rules replay`, parsed into the game's own types
/// (`O`, `A` and `H` are its options, actions and hidden values; the schema
/// is this type with JSON values in their place).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    bound(deserialize = "O: Deserialize<'de>, A: Deserialize<'de>, H: Deserialize<'de>")
)]
pub struct Input<O, A, H> {
    /// The game's options, exactly as in a genesis entry's `options`.
    #[serde(deserialize_with = "options_field")]
    pub options: O,
    /// The number of seats (players), within the game's range.
    #[serde(deserialize_with = "seats_field")]
    pub seats: usize,
    /// The seed of the setup draw: 32 bytes as 64 lower-case hex digits
    /// (in a log, `lp_hash("starry/1 setup", game_id, ready links…)`,
    /// docs/protocol.md section 6.2).
    #[serde(deserialize_with = "setup_field")]
    pub setup: HexHash,
    /// The entries of the game after the setup, in order.
    #[serde(deserialize_with = "bounded_actions")]
    pub actions: Vec<Item<A, H>>,
}

/// The input's schema: [`Input`] with JSON values for the game's types.
pub type InputSchema = Input<Value, Value, Value>;

/// One action: a move (`move`), a reveal (`reveal`) or a resignation
/// (`resign: true`) — exactly one of them.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    bound(deserialize = "A: Deserialize<'de>, H: Deserialize<'de>")
)]
pub struct Item<A, H> {
    /// The seat that writes the entry, 0-based (see docs/json.md) as in the log.
    pub seat: Seat,
    /// A move entry: the public part of the move, as in a log's move entry
    /// (`data.action`).
    #[serde(default, rename = "move")]
    pub action: Option<A>,
    /// For a move: the values it commits to, given face up, in slot order
    /// (slot `k` of this entry is `{"entry": ENTRY, "slot": k}`). Default: none.
    #[serde(default)]
    pub hidden: Option<Vec<H>>,
    /// For a move: the hidden values, committed by earlier entries of this
    /// seat, that it opens. Default: none.
    #[serde(default)]
    pub reveals: Option<Vec<Ref>>,
    /// A reveal entry: the hidden values it opens, in order.
    #[serde(default)]
    pub reveal: Option<Vec<Ref>>,
    /// A resignation: `true`. It opens every hidden value the seat has not
    /// opened yet, and the game ends with the seat placed last.
    #[serde(default)]
    pub resign: Option<bool>,
    /// For a move or a reveal: the seed of every random event resolved
    /// before it (every pending event caused by another seat, in any order).
    #[serde(default)]
    pub draws: Option<Vec<DrawSeed>>,
    /// The entry's position in the log (used to name its hidden values);
    /// strictly increasing. Default: the previous action's plus 1, and 1 for
    /// the first.
    #[serde(default)]
    pub entry: Option<u64>,
}

/// A hidden value: the entry that committed to it, and its slot there.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Ref {
    pub entry: u64,
    pub slot: u32,
}

impl From<Ref> for HiddenRef {
    fn from(r: Ref) -> HiddenRef {
        HiddenRef {
            entry: r.entry,
            slot: r.slot,
        }
    }
}

/// The seed of one random event.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DrawSeed {
    /// The event's id, as the game's `pending` lists it.
    pub event: u64,
    /// 32 bytes as 64 lower-case hex digits (in a log,
    /// `lp_hash("starry/1 draw", causing entry id, u64(event), link)`,
    /// docs/protocol.md section 6.3).
    pub seed: HexHash,
}

/// The position after the setup or after one action: one line of output.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ReplayState {
    /// The index of the action in `actions` (from 0); null for the position
    /// after the setup.
    pub action: Option<usize>,
    /// The action's entry number; null after the setup.
    pub entry: Option<u64>,
    /// The seat that acted, 0-based (see docs/json.md); null after the setup.
    pub seat: Option<Seat>,
    /// `setup`, the game's description of a move, `reveal` or `resign`.
    pub describe: String,
    /// Who must act next.
    pub turn: TurnState,
    /// Random events requested and not resolved yet, oldest first.
    pub pending: Vec<PendingState>,
    /// How the game ended; null while it goes on.
    pub ending: Option<EndingState>,
    /// The standings (final once the game is over); a seat that resigned is
    /// placed last.
    pub standings: Vec<Standing>,
    /// The game's public (spectator) view, as `starry view --spectator
    /// --json` shows it in `view`.
    pub view: Value,
}

/// Who must act next.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum TurnState {
    /// `seat` must move.
    Move {
        /// The seat, 0-based (see docs/json.md).
        seat: Seat,
    },
    /// `seat` must reveal exactly `refs`, in this order.
    Reveal {
        /// The seat, 0-based (see docs/json.md).
        seat: Seat,
        refs: Vec<HiddenRef>,
    },
    /// Nobody: the game is over.
    Over,
}

/// A random event not resolved yet.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct PendingState {
    /// The event's id (a `draws` item names it as `event`).
    pub event: u64,
    /// The seat whose action requested it, 0-based (see docs/json.md); the
    /// next move or reveal by any other seat resolves it.
    pub causer: Seat,
}

/// How the game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum EndingState {
    /// Played to its end under the rules.
    Finished,
    /// Nobody could move any more.
    Stalled,
    /// `seat` resigned.
    Resigned {
        /// The seat, 0-based (see docs/json.md).
        seat: Seat,
    },
}

/// The first action refused.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Refusal {
    /// Its index in `actions` (from 0).
    pub action: usize,
    pub entry: u64,
    /// The seat, 0-based (see docs/json.md).
    pub seat: Seat,
    /// The exit code: 17 bad reveal, 18 a value the seat could not have
    /// held, 19 out of turn, 20 illegal move, 2 missing or extra draws.
    pub code: i32,
    /// Why, in one paragraph (as printed on standard error).
    pub message: String,
}

/// `starry rules replay --json`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ReplayReport {
    pub game: String,
    /// The position after the setup, then after each action applied.
    pub states: Vec<ReplayState>,
    /// The action that was refused, if one was; the states stop before it.
    pub refused: Option<Refusal>,
}

// ---------------------------------------------------------------------------
// Parsing.

/// serde_json's message without the position it appends (` at line L
/// column C`): a message that is wrapped into another would say it twice.
fn without_position(message: &str) -> &str {
    if let Some(i) = message.rfind(" at line ") {
        let rest = &message[i + " at line ".len()..];
        let mut parts = rest.split(" column ");
        if let (Some(l), Some(c), None) = (parts.next(), parts.next(), parts.next())
            && !l.is_empty()
            && !c.is_empty()
            && l.bytes().chain(c.bytes()).all(|b| b.is_ascii_digit())
        {
            return &message[..i];
        }
    }
    message
}

/// Deserializes a field, naming it in the error.
fn named<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D, name: &str) -> Result<T, D::Error> {
    T::deserialize(d)
        .map_err(|e| D::Error::custom(format!("{name}: {}", without_position(&e.to_string()))))
}

fn options_field<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<T, D::Error> {
    named(d, "options")
}

fn seats_field<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<T, D::Error> {
    named(d, "seats")
}

fn setup_field<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<T, D::Error> {
    named(d, "setup")
}

/// The actions, at most [`MAX_ACTIONS`] of them, each error naming its
/// action.
fn bounded_actions<'de, D, A, H>(d: D) -> Result<Vec<Item<A, H>>, D::Error>
where
    D: Deserializer<'de>,
    A: Deserialize<'de>,
    H: Deserialize<'de>,
{
    struct Items<A, H>(PhantomData<(A, H)>);
    impl<'de, A: Deserialize<'de>, H: Deserialize<'de>> Visitor<'de> for Items<A, H> {
        type Value = Vec<Item<A, H>>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an array of actions")
        }
        fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
            let mut out = Vec::new();
            loop {
                let i = out.len();
                if i == MAX_ACTIONS {
                    if seq.next_element::<IgnoredAny>()?.is_some() {
                        return Err(S::Error::custom(format!(
                            "actions: more than {MAX_ACTIONS} actions, the most `starry rules \
                             replay` takes (a whole game has a few hundred)"
                        )));
                    }
                    return Ok(out);
                }
                match seq.next_element::<Item<A, H>>() {
                    Ok(Some(item)) => out.push(item),
                    Ok(None) => return Ok(out),
                    Err(e) => {
                        return Err(S::Error::custom(format!(
                            "actions[{i}]: {}",
                            without_position(&e.to_string())
                        )));
                    }
                }
            }
        }
    }
    d.deserialize_seq(Items(PhantomData))
        .map_err(|e| D::Error::custom(without_position(&e.to_string())))
}

/// What an action is, once its fields are checked.
enum Kind<A> {
    Move(A),
    Reveal(Vec<HiddenRef>),
    Resign,
}

/// An action ready to apply.
struct Step<A, H> {
    index: usize,
    seat: Seat,
    entry: u64,
    kind: Kind<A>,
    hidden: Vec<H>,
    reveals: Vec<HiddenRef>,
    draws: Vec<DrawSeed>,
}

/// The input as game `G` reads it.
type GameInput<G> = Input<<G as Rules>::Options, <G as Rules>::Action, <G as Rules>::Hidden>;
/// An action of game `G`, ready to apply.
type GameStep<G> = Step<<G as Rules>::Action, <G as Rules>::Hidden>;

fn usage(source: &str, detail: impl fmt::Display) -> Error {
    Error::Usage(format!(
        "{source}: {detail} (the input of `starry rules replay` is described in docs/referee.md)"
    ))
}

/// Parses the input for game `G`; every problem is wrong use (exit 2).
fn parse<G: Game>(text: &str, source: &str) -> Result<(GameInput<G>, Vec<GameStep<G>>)> {
    let mut input: GameInput<G> = serde_json::from_str(text).map_err(|e| {
        let what = if e.is_data() {
            "the input is not valid"
        } else {
            "the input is not valid JSON"
        };
        usage(
            source,
            format!(
                "{what}: {}",
                excerpt_of(
                    &crate::games::starry_sky::referee::tame(&e.to_string()),
                    MAX_DETAIL_CHARS
                )
            ),
        )
    })?;
    if !G::SEATS.contains(&input.seats) {
        return Err(usage(
            source,
            format!(
                "seats is {}; {} is played by {} players",
                input.seats,
                G::NAME,
                crate::games::seat_range::<G>()
            ),
        ));
    }
    let mut steps = Vec::with_capacity(input.actions.len());
    let mut last = 0u64;
    for (index, item) in std::mem::take(&mut input.actions).into_iter().enumerate() {
        let step = step_of(item, index, last, source)?;
        last = step.entry;
        steps.push(step);
    }
    Ok((input, steps))
}

/// Action `index` of the input, checked: its entry number after `last`,
/// and one thing (a move, a reveal or a resignation) with only that
/// thing's fields.
fn step_of<A, H>(item: Item<A, H>, index: usize, last: u64, source: &str) -> Result<Step<A, H>> {
    let at = format!("actions[{index}]");
    let entry = match item.entry {
        Some(e) if e > last => e,
        Some(e) => {
            return Err(usage(
                source,
                if index == 0 {
                    format!("{at}: entry is 0; entry 0 is the genesis, entries count from 1")
                } else {
                    format!(
                        "{at}: entry is {e}, but the action before is entry {last}; entries \
                         are strictly increasing"
                    )
                },
            ));
        }
        None if index == 0 => 1,
        None => last.checked_add(1).ok_or_else(|| {
            usage(
                source,
                format!("{at}: no entry number follows entry {last}; give `entry`"),
            )
        })?,
    };
    let given: Vec<&str> = [
        ("move", item.action.is_some()),
        ("reveal", item.reveal.is_some()),
        ("resign", item.resign.is_some()),
    ]
    .into_iter()
    .filter_map(|(k, present)| present.then_some(k))
    .collect();
    let kind = match (item.action, item.reveal, item.resign) {
        (Some(a), None, None) => Kind::Move(a),
        (None, Some(r), None) => Kind::Reveal(r.into_iter().map(HiddenRef::from).collect()),
        (None, None, Some(true)) => Kind::Resign,
        (None, None, Some(false)) => {
            return Err(usage(
                source,
                format!("{at}: `resign` is false; a resignation is `\"resign\": true`"),
            ));
        }
        _ => {
            return Err(usage(
                source,
                format!(
                    "{at}: an action has exactly one of `move`, `reveal` and `resign`; this \
                     one has {}",
                    if given.is_empty() {
                        "none (or null)".to_string()
                    } else {
                        given
                            .iter()
                            .map(|k| format!("`{k}`"))
                            .collect::<Vec<_>>()
                            .join(" and ")
                    }
                ),
            ));
        }
    };
    let is_move = matches!(kind, Kind::Move(_));
    for (field, present) in [
        ("hidden", item.hidden.is_some()),
        ("reveals", item.reveals.is_some()),
    ] {
        if present && !is_move {
            return Err(usage(
                source,
                format!("{at}: `{field}` belongs to a move; a {} has none", given[0]),
            ));
        }
    }
    if matches!(kind, Kind::Resign) && item.draws.is_some() {
        return Err(usage(
            source,
            format!(
                "{at}: a resignation resolves no random event; leave out `draws` (the next \
                 move or reveal would resolve them)"
            ),
        ));
    }
    Ok(Step {
        index,
        seat: item.seat,
        entry,
        kind,
        hidden: item.hidden.unwrap_or_default(),
        reveals: item
            .reveals
            .unwrap_or_default()
            .into_iter()
            .map(HiddenRef::from)
            .collect(),
        draws: item.draws.unwrap_or_default(),
    })
}

// ---------------------------------------------------------------------------
// Refereeing.

/// A refused action: why, and the exit code.
struct Refused {
    code: i32,
    fault: &'static str,
    detail: String,
}

impl Refused {
    fn fault(f: Fault, detail: impl Into<String>) -> Refused {
        Refused {
            code: f.exit_code(),
            fault: f.name(),
            detail: detail.into(),
        }
    }

    fn rule(e: RuleError) -> Refused {
        Refused::fault(Fault::from_rule(e.kind), e.to_string())
    }

    fn draws(detail: impl Into<String>) -> Refused {
        Refused {
            code: 2,
            fault: "draws",
            detail: detail.into(),
        }
    }
}

/// A hidden value committed by an earlier action.
struct Committed<H> {
    seat: Seat,
    value: H,
}

/// The game as the actions so far have left it.
struct Referee<G: Game> {
    seats: usize,
    state: G::State,
    ending: Option<EndingState>,
    committed: BTreeMap<HiddenRef, Committed<G::Hidden>>,
    revealed: BTreeSet<HiddenRef>,
}

fn list(v: &[u64]) -> String {
    v.iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

impl<G: Game> Referee<G> {
    fn turn(&self) -> TurnState {
        if self.ending.is_some() {
            return TurnState::Over;
        }
        match G::turn(&self.state) {
            Turn::Move(seat) => TurnState::Move { seat },
            Turn::Reveal(seat, refs) => TurnState::Reveal { seat, refs },
            Turn::Over => TurnState::Over,
        }
    }

    fn snapshot(&self, step: Option<(&GameStep<G>, String)>) -> ReplayState {
        let (action, entry, seat, describe) = match step {
            Some((s, d)) => (Some(s.index), Some(s.entry), Some(s.seat), d),
            None => (None, None, None, "setup".to_string()),
        };
        let last = match self.ending {
            Some(EndingState::Resigned { seat }) => Some(seat),
            _ => None,
        };
        ReplayState {
            action,
            entry,
            seat,
            describe,
            turn: self.turn(),
            pending: G::pending(&self.state)
                .into_iter()
                .map(|e| PendingState {
                    event: e.id,
                    causer: e.causer,
                })
                .collect(),
            ending: self.ending,
            standings: placed_last(G::standings(&self.state), self.seats, last),
            view: serde_json::to_value(G::view(&self.state, None, None)).expect("views serialise"),
        }
    }

    /// S7 and S9 of the protocol: the seat exists and may write this kind
    /// of entry now.
    fn check_turn(&self, s: &GameStep<G>) -> Result<(), Refused> {
        let what = match s.kind {
            Kind::Move(_) => "move",
            Kind::Reveal(_) => "reveal",
            Kind::Resign => "resignation",
        };
        if s.seat >= self.seats {
            return Err(Refused::fault(
                Fault::OutOfTurn,
                format!(
                    "the action names seat {}, but the game has seats 0 to {} only",
                    s.seat,
                    self.seats - 1
                ),
            ));
        }
        let turn = self.turn();
        let ok = match (&s.kind, &turn) {
            (Kind::Move(_), TurnState::Move { seat }) => *seat == s.seat,
            (Kind::Reveal(_), TurnState::Reveal { seat, .. }) => *seat == s.seat,
            (Kind::Resign, TurnState::Move { seat } | TurnState::Reveal { seat, .. }) => {
                *seat == s.seat
            }
            _ => false,
        };
        if ok {
            return Ok(());
        }
        let wanted = match turn {
            TurnState::Move { seat } => format!("seat {seat} must move"),
            TurnState::Reveal { seat, .. } => format!("seat {seat} must reveal"),
            TurnState::Over => "the game is over".into(),
        };
        Err(Refused::fault(
            Fault::OutOfTurn,
            format!("a {what} is not allowed here: {wanted}"),
        ))
    }

    /// The seeds of the events this action resolves, in the order the
    /// protocol resolves them; exactly the pending events of other seats.
    fn seeds(&self, s: &GameStep<G>) -> Result<Vec<(u64, HexHash)>, Refused> {
        let pending = G::pending(&self.state);
        let due: Vec<u64> = pending
            .iter()
            .filter(|e| e.causer != s.seat)
            .map(|e| e.id)
            .collect();
        let mut given: BTreeMap<u64, HexHash> = BTreeMap::new();
        for d in &s.draws {
            if given.insert(d.event, d.seed).is_some() {
                return Err(Refused::draws(format!(
                    "`draws` gives event {} twice",
                    d.event
                )));
            }
        }
        let resolves = if due.is_empty() {
            "none".to_string()
        } else {
            format!(
                "exactly {} {}",
                if due.len() == 1 { "event" } else { "events" },
                list(&due)
            )
        };
        if let Some(e) = pending
            .iter()
            .find(|e| e.causer != s.seat && !given.contains_key(&e.id))
        {
            return Err(Refused::draws(format!(
                "random event {} (caused by seat {}) is pending, and a move or reveal by another \
                 seat resolves it before its own action: give its seed in `draws` (this action \
                 resolves {resolves})",
                e.id, e.causer
            )));
        }
        if let Some(&extra) = given.keys().find(|id| !due.contains(id)) {
            let why = match pending.iter().find(|e| e.id == extra) {
                Some(_) => format!(
                    "event {extra} was caused by seat {} itself; the next move or reveal by \
                     another seat resolves it",
                    s.seat
                ),
                None => format!("no random event {extra} is pending"),
            };
            return Err(Refused::draws(format!(
                "`draws` gives a seed for event {extra}, but {why} (this action resolves {resolves})"
            )));
        }
        Ok(due.into_iter().map(|id| (id, given[&id])).collect())
    }

    /// S11: each opened value was committed by this seat and not opened
    /// before (nor twice here); its value, given face up when committed.
    fn openings(
        &self,
        seat: Seat,
        refs: &[HiddenRef],
    ) -> Result<Vec<(HiddenRef, G::Hidden)>, Refused> {
        let mut seen = BTreeSet::new();
        refs.iter()
            .map(|&at| {
                let bad = |detail: String| Refused::fault(Fault::BadReveal, detail);
                let c = self.committed.get(&at).ok_or_else(|| {
                    bad(format!(
                        "nothing was committed at {at}: no earlier action has that entry number \
                         and a hidden value in that slot"
                    ))
                })?;
                if c.seat != seat {
                    return Err(bad(format!(
                        "the hidden value at {at} belongs to seat {}",
                        c.seat
                    )));
                }
                if self.revealed.contains(&at) || !seen.insert(at) {
                    return Err(bad(format!(
                        "the hidden value at {at} was revealed already"
                    )));
                }
                Ok((at, c.value.clone()))
            })
            .collect()
    }

    /// Applies one action as `crates/core/src/log/replay.rs` applies its entry, or
    /// says why it is refused (and changes nothing).
    fn apply(&mut self, s: &GameStep<G>) -> Result<String, Refused> {
        self.check_turn(s)?;
        let seeds = match s.kind {
            Kind::Resign => Vec::new(),
            _ => self.seeds(s)?,
        };
        let reveals = match &s.kind {
            Kind::Move(_) => self.openings(s.seat, &s.reveals)?,
            Kind::Reveal(refs) => self.openings(s.seat, refs)?,
            Kind::Resign => {
                let due: Vec<HiddenRef> = self
                    .committed
                    .iter()
                    .filter(|(at, c)| c.seat == s.seat && !self.revealed.contains(at))
                    .map(|(at, _)| *at)
                    .collect();
                self.openings(s.seat, &due)?
            }
        };
        let mut state = self.state.clone();
        for (id, seed) in seeds {
            G::resolve(&mut state, id, &mut Draw::new(seed.0)).map_err(Refused::rule)?;
        }
        let commitments = u32::try_from(s.hidden.len()).map_err(|_| {
            Refused::fault(
                Fault::IllegalMove,
                format!("{} hidden values are too many", s.hidden.len()),
            )
        })?;
        let opened: Vec<HiddenRef> = reveals.iter().map(|(at, _)| *at).collect();
        let ctx = Context {
            seat: s.seat,
            at: s.entry,
            commitments,
            reveals,
        };
        let describe = match &s.kind {
            Kind::Move(action) => {
                G::play(&mut state, &ctx, action).map_err(Refused::rule)?;
                for (slot, value) in s.hidden.iter().enumerate() {
                    self.committed.insert(
                        HiddenRef {
                            entry: s.entry,
                            slot: slot as u32,
                        },
                        Committed {
                            seat: s.seat,
                            value: value.clone(),
                        },
                    );
                }
                G::describe(&state, action)
            }
            Kind::Reveal(_) => {
                G::reveal(&mut state, &ctx).map_err(Refused::rule)?;
                "reveal".to_string()
            }
            Kind::Resign => {
                G::resign(&mut state, &ctx).map_err(Refused::rule)?;
                G::withdraw(&mut state, s.seat, crate::games::Withdrawal::Resigned);
                self.ending = Some(EndingState::Resigned { seat: s.seat });
                "resign".to_string()
            }
        };
        self.revealed.extend(opened);
        self.state = state;
        if self.ending.is_none() && G::turn(&self.state) == Turn::Over {
            self.ending = Some(if G::stalled(&self.state) {
                EndingState::Stalled
            } else {
                EndingState::Finished
            });
        }
        Ok(describe)
    }
}

/// Replays `text` (read from `source`, already made safe to print) for
/// game `G`.
pub fn run<G: Game>(text: &str, source: &str) -> Result<Output> {
    let (input, steps) = parse::<G>(text, source)?;
    // The protocol refuses a genesis whose options could outlast a beacon
    // chain (docs/protocol.md, section 4): no log could hold such a game.
    let most = G::max_entries(&input.options, input.seats);
    let per_seat = most_entries_per_seat(most, input.seats);
    if per_seat > u64::from(beacon::CHAIN_LENGTH) {
        return Err(usage(
            source,
            format!(
                "under these options a game can last {most} moves and reveals, so one player \
                 could need {per_seat} entries; a beacon chain has {} links, so no log can hold \
                 such a game. Choose a smaller game (fewer or smaller boards, fewer stars)",
                beacon::CHAIN_LENGTH
            ),
        ));
    }
    let state =
        G::setup(&input.options, input.seats, &mut Draw::new(input.setup.0)).map_err(|e| {
            usage(
                source,
                format!("the options are invalid: {}", inline(&e.to_string())),
            )
        })?;
    let mut referee = Referee::<G> {
        seats: input.seats,
        state,
        ending: None,
        committed: BTreeMap::new(),
        revealed: BTreeSet::new(),
    };
    if G::turn(&referee.state) == Turn::Over {
        referee.ending = Some(if G::stalled(&referee.state) {
            EndingState::Stalled
        } else {
            EndingState::Finished
        });
    }
    let mut states = vec![referee.snapshot(None)];
    let mut refused = None;
    for s in &steps {
        match referee.apply(s) {
            Ok(describe) => states.push(referee.snapshot(Some((s, describe)))),
            Err(r) => {
                let message = format!(
                    "actions[{}] (entry {}, seat {}) is refused — {}: {}. The states before it \
                     are printed; nothing after it was replayed.",
                    s.index,
                    s.entry,
                    s.seat,
                    r.fault,
                    excerpt_of(&r.detail, MAX_REFUSAL_CHARS)
                );
                refused = Some(Refusal {
                    action: s.index,
                    entry: s.entry,
                    seat: s.seat,
                    code: r.code,
                    message,
                });
                break;
            }
        }
    }
    let text = states
        .iter()
        .map(|s| {
            let line = serde_json::to_string(s).expect("states serialise");
            crate::text::json_safe(&line).into_owned()
        })
        .collect::<Vec<_>>()
        .join("\n");
    let report = ReplayReport {
        game: G::NAME.to_string(),
        states,
        refused,
    };
    let mut out = Output::new(text, &report);
    if let Some(r) = report.refused {
        out.code = r.code;
        out.warning = Some(r.message);
    }
    Ok(out)
}
