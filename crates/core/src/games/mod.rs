//! The seam between the protocol and the rules of each game.
//!
//! A rules engine is pure: state + action (+ explicit random values) → new
//! state or a typed rule error. It never touches files, keys, clocks or an
//! RNG. The protocol layer (`log`, `crypto`) knows nothing about any game's
//! rules and talks to a game only through [`Game`], which joins the rules of a game
//! ([`Rules`]) and their presentation ([`Show`]).
//!
//! Vocabulary shared by all games:
//! - a **seat** is a player's index in the genesis' seat list, which is also
//!   the turn order;
//! - a **hidden value** (a Starry Sky token placed face down) enters the log
//!   as a commitment; the engine only ever sees a [`HiddenRef`] to it until it
//!   is revealed;
//! - a **random event** (a replacement board, a disc draw) is requested by an
//!   action and resolved later by the protocol with a [`Draw`] that nobody
//!   could foresee;
//! - an **intent** is what a player says ("10 leo:3"), including their own
//!   secrets; [`Rules::seal`] splits it into the public action that goes into
//!   the log, the values to commit to and the values to reveal.

pub mod registry;
pub mod star_map;
pub mod starry_night;
pub mod starry_sky;

use std::collections::BTreeMap;
use std::fmt;

use schemars::JsonSchema;
use serde::{Serialize, de::DeserializeOwned};

pub use crate::draw::Draw;

/// The hidden value of a game that hides nothing (Starry Night, Star Map):
/// a type with no values.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, JsonSchema)]
pub enum Nothing {}

/// A player's index in the seat list (and in turn order).
pub type Seat = usize;

/// Where a hidden value lives in the log: the entry that holds its commitment
/// and its slot within that entry.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    serde::Serialize,
    serde::Deserialize,
    JsonSchema,
)]
pub struct HiddenRef {
    pub entry: u64,
    pub slot: u32,
}

impl fmt::Display for HiddenRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "entry {} slot {}", self.entry, self.slot)
    }
}

/// A random event that an action asked for and that is not resolved yet.
/// `id` is chosen by the game and must be unique within a game; `causer` is
/// the seat whose entry caused it (the protocol resolves it with the beacon
/// link of the next entry written by a *different* seat).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PendingEvent {
    pub id: u64,
    pub causer: Seat,
}

/// Who must write the next entry, as far as the rules are concerned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Turn {
    /// This seat must make a move.
    Move(Seat),
    /// This seat must reveal exactly these hidden values, in this order.
    Reveal(Seat, Vec<HiddenRef>),
    /// Nobody: the game has ended.
    Over,
}

/// What the engine is told about the entry it applies.
#[derive(Clone, Debug)]
pub struct Context<H> {
    /// The author of the entry.
    pub seat: Seat,
    /// The entry's position in the log; new commitments get
    /// `HiddenRef { entry: at, slot }`.
    pub at: u64,
    /// How many commitments the entry carries.
    pub commitments: u32,
    /// Hidden values the entry reveals, already checked by the protocol
    /// against their commitments and their author.
    pub reveals: Vec<(HiddenRef, H)>,
}

/// What a player knows that the log does not show: the values of their own
/// unrevealed hidden things. Their program re-derives it from the log and
/// their identity.
#[derive(Clone, Debug)]
pub struct Own<H> {
    pub hidden: BTreeMap<HiddenRef, H>,
}

impl<H> Default for Own<H> {
    fn default() -> Self {
        Own {
            hidden: BTreeMap::new(),
        }
    }
}

/// An intent split into what the log records.
#[derive(Clone, Debug)]
pub struct Sealed<A, H> {
    /// The public part of the move.
    pub action: A,
    /// Values to commit to, one slot each, in slot order.
    pub hidden: Vec<H>,
    /// Own hidden values this entry must reveal (e.g. on completing a board).
    pub reveals: Vec<HiddenRef>,
}

/// How a seat left a game before its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Withdrawal {
    /// It resigned.
    Resigned,
    /// Every other seat claimed it stopped answering.
    Abandoned,
}

/// One line of the final result.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, JsonSchema)]
pub struct Standing {
    /// The seat, 0-based (see docs/json.md).
    pub seat: Seat,
    /// 1 is best; equal scores share a rank.
    pub rank: u32,
    /// The game's score (coins, points, seas); in a team game, the team's.
    pub score: i64,
    /// The seat's team in a team game (Star Map with four players: seats
    /// 0 and 2 are team 0, seats 1 and 3 team 1); partners share score and
    /// rank. Teams are 0-based (see docs/json.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<u32>,
}

/// A rule was broken. `rule` is a short stable name (used in errors and
/// docs), `detail` says what exactly happened, in the game's own words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{detail} (rule: {rule})")]
pub struct RuleError {
    pub kind: RuleErrorKind,
    pub rule: &'static str,
    pub detail: String,
}

/// The classes of rule errors; the CLI maps each to its exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleErrorKind {
    /// The action is not allowed in this position.
    Illegal,
    /// It is not this seat's turn (or not their turn to do this).
    OutOfTurn,
    /// A revealed value is impossible: the player could not have held it.
    ImpossibleReveal,
    /// The game options or setup data are invalid.
    BadSetup,
    /// The entry does not open exactly the hidden values the rules ask it
    /// to open (one missing, one too many, or in another order).
    WrongReveals,
    /// Typed move notation that names no move here: words that do not
    /// read, or a board, star, token or disc this position does not have.
    /// Only [`Show::parse_intent`] returns it (never the rules applied to a
    /// log); `starry play` refuses it as wrong use (exit 2) and shows the
    /// expected form, while a move that reads but breaks a rule is
    /// [`RuleErrorKind::Illegal`] (exit 20).
    Notation,
}

impl RuleError {
    pub fn illegal(rule: &'static str, detail: impl Into<String>) -> Self {
        RuleError {
            kind: RuleErrorKind::Illegal,
            rule,
            detail: detail.into(),
        }
    }
    pub fn out_of_turn(rule: &'static str, detail: impl Into<String>) -> Self {
        RuleError {
            kind: RuleErrorKind::OutOfTurn,
            rule,
            detail: detail.into(),
        }
    }
    pub fn impossible(rule: &'static str, detail: impl Into<String>) -> Self {
        RuleError {
            kind: RuleErrorKind::ImpossibleReveal,
            rule,
            detail: detail.into(),
        }
    }
    pub fn wrong_reveals(rule: &'static str, detail: impl Into<String>) -> Self {
        RuleError {
            kind: RuleErrorKind::WrongReveals,
            rule,
            detail: detail.into(),
        }
    }
    pub fn notation(rule: &'static str, detail: impl Into<String>) -> Self {
        RuleError {
            kind: RuleErrorKind::Notation,
            rule,
            detail: detail.into(),
        }
    }
    pub fn bad_setup(rule: &'static str, detail: impl Into<String>) -> Self {
        RuleError {
            kind: RuleErrorKind::BadSetup,
            rule,
            detail: detail.into(),
        }
    }
}

/// A game's variants: (key, accepted values with the default first, help).
pub type Variants = Vec<(&'static str, Vec<&'static str>, &'static str)>;

/// A game's rules: what a position is, who must act, what is legal and
/// what a move does. Implementations are pure and deterministic, and know
/// nothing of words or pictures (that is [`Show`]), as shakmaty's `Position`
/// keeps to the rules of chess: the rules are what an audit replays, so
/// they stay small enough to read whole. [`Rules::view`] is here because it
/// decides what a seat may know, which is a rule.
///
/// Everything that enters the log (options, actions, hidden values) is
/// serialised with serde to JSON and must use integers only, never floats.
///
/// Callers mostly name [`Game`], which joins it to [`Show`]. Each game
/// implements it in its own folder's `mod.rs`, writing the items without a
/// default and those defaults that do not fit it. The defaults are the
/// common case: no variants, nothing hidden, no random events after setup,
/// a game that is never stalled (docs/adding-a-game.md).
pub trait Rules: Sized {
    /// Name in the genesis and on the command line, e.g. `starry-sky`.
    const NAME: &'static str;
    /// Rules version in the genesis; bump it whenever replaying an old log
    /// could give a different result.
    const RULES_VERSION: u32;
    /// Allowed seat counts.
    const SEATS: std::ops::RangeInclusive<usize>;

    /// The game's name in prose, for sentences (`Star Map`); by default
    /// [`Rules::NAME`] with each word capitalised (`star-map` → `Star Map`).
    fn title() -> String {
        title_of(Self::NAME)
    }

    /// Game options, stored in the genesis.
    type Options: Clone + fmt::Debug + Serialize + DeserializeOwned + JsonSchema + Send + Sync;
    /// The whole public state.
    /// Serialisable so that a player's program can keep a replay it has
    /// verified (the verified-prefix cache).
    type State: Clone + fmt::Debug + Serialize + DeserializeOwned;
    /// The public part of a move, stored in the log.
    type Action: Clone + fmt::Debug + PartialEq + Serialize + DeserializeOwned + JsonSchema;
    /// A value that can be placed hidden and revealed later; [`Nothing`]
    /// for a game that hides nothing (the defaults of [`Rules::reveal`],
    /// [`Rules::resign`] and [`Rules::hidden_values`] are for such a game).
    type Hidden: Clone + fmt::Debug + PartialEq + Serialize + DeserializeOwned + JsonSchema;
    /// What a player says, including their own secrets; parsed from notation.
    type Intent: Clone + fmt::Debug + PartialEq + fmt::Display;
    /// A seat's (or a spectator's) view of the state.
    type View: Serialize + JsonSchema;

    /// Builds options from `KEY=VALUE` pairs given on the command line
    /// (`extra` holds game-specific data such as a custom board file's
    /// contents). Errors name the key and the accepted values.
    fn options(pairs: &[(String, String)], extra: Option<&str>)
    -> Result<Self::Options, RuleError>;

    /// Lists the variants: (key, accepted values with the default first,
    /// help); by default none.
    fn variants() -> Variants {
        Vec::new()
    }

    /// The starting position, drawn with the setup randomness.
    fn setup(
        options: &Self::Options,
        seats: usize,
        draw: &mut Draw,
    ) -> Result<Self::State, RuleError>;

    /// Who must act next.
    fn turn(state: &Self::State) -> Turn;

    /// Random events requested and not yet resolved, oldest first; by
    /// default none (a game whose only randomness is its setup).
    fn pending(state: &Self::State) -> Vec<PendingEvent> {
        let _ = state;
        Vec::new()
    }

    /// Resolves a pending event with a fresh, unforeseeable draw; by default
    /// refuses it, as a game with no random events after setup has none to
    /// resolve.
    fn resolve(state: &mut Self::State, event: u64, draw: &mut Draw) -> Result<(), RuleError> {
        let _ = (state, draw);
        Err(RuleError::illegal(
            "draw",
            format!(
                "{} has no random events after setup (event {event})",
                Self::title()
            ),
        ))
    }

    /// Every legal intent for `seat`, who must move, given what they alone
    /// know. Deterministic order (the protocol picks uniformly among them).
    fn intents(state: &Self::State, seat: Seat, own: &Own<Self::Hidden>) -> Vec<Self::Intent>;

    /// Checks an intent and splits it into what the log records.
    fn seal(
        state: &Self::State,
        seat: Seat,
        intent: &Self::Intent,
        own: &Own<Self::Hidden>,
    ) -> Result<Sealed<Self::Action, Self::Hidden>, RuleError>;

    /// Applies a move entry.
    fn play(
        state: &mut Self::State,
        ctx: &Context<Self::Hidden>,
        action: &Self::Action,
    ) -> Result<(), RuleError>;

    /// Applies a reveal entry (the seat was asked for [`Turn::Reveal`]); by
    /// default refuses it, as a game that hides nothing never asks for one.
    fn reveal(state: &mut Self::State, ctx: &Context<Self::Hidden>) -> Result<(), RuleError> {
        let _ = (state, ctx);
        Err(nothing_to_reveal(&Self::title()))
    }

    /// Applies a resignation: `ctx.reveals` opens every hidden value the
    /// seat still had (already checked against the commitments by the
    /// protocol). The game turns them over and refuses a value the seat could
    /// not have held ([`RuleErrorKind::ImpossibleReveal`]), so that a cheat
    /// cannot escape the audit by resigning. By default, for a game that
    /// hides nothing, a resignation that opens anything is refused.
    fn resign(state: &mut Self::State, ctx: &Context<Self::Hidden>) -> Result<(), RuleError> {
        let _ = state;
        nothing_hidden_in_resignation(&Self::title(), ctx)
    }

    /// The protocol ended the game with `seat` out of it: it resigned (after
    /// [`Rules::resign`]) or every other seat claimed it stopped answering.
    /// The game is over from now on: [`Rules::turn`] is [`Turn::Over`] and
    /// the views say why.
    fn withdraw(state: &mut Self::State, seat: Seat, how: Withdrawal);

    /// An upper bound on the number of `move` and `reveal` entries of a whole
    /// game under these options; the protocol refuses options under which a
    /// seat could need more entries than its beacon chain has links.
    fn max_entries(options: &Self::Options, seats: usize) -> u64;

    /// Whether a game that is over ended because nobody could move any more,
    /// rather than by being played to its end; by default never (a game
    /// that ends when nobody can move has simply ended).
    fn stalled(state: &Self::State) -> bool {
        let _ = state;
        false
    }

    /// Every value a hidden slot could hold; the owner's program finds its own
    /// values by trying each against its commitment. By default none, for a
    /// game that hides nothing.
    fn hidden_values() -> Vec<Self::Hidden> {
        Vec::new()
    }

    /// Current scores (final once [`Turn::Over`]).
    fn standings(state: &Self::State) -> Vec<Standing>;

    /// A view for `viewer` (None: a spectator). `own` adds the viewer's
    /// secrets; it is only ever passed for the viewer's own seat.
    fn view(
        state: &Self::State,
        viewer: Option<Seat>,
        own: Option<&Own<Self::Hidden>>,
    ) -> Self::View;
}

/// One step of choosing a move by pointing ([`Show::move_clicks`]): `key`
/// names a place of the picture ([`crate::picture::Svg::place`]) or a
/// choice beside it (a rotation, `pass`), in the game's words; `label` says
/// it for a person (`leo:3 — large star: your token goes face down`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Click {
    pub key: String,
    pub label: String,
}

impl Click {
    pub fn new(key: impl Into<String>, label: impl Into<String>) -> Click {
        Click {
            key: key.into(),
            label: label.into(),
        }
    }
}

/// How a game is shown to people: notation, sentences, text and pictures,
/// and the grouping of `starry moves`. It reads the rules' types and never
/// changes a state, so nothing here can alter what a log means; a wording
/// or a drawing may change without a new [`Rules::RULES_VERSION`]. Each
/// game implements it in its own folder's `show.rs`.
pub trait Show: Rules {
    /// How the seat to move writes its move now, for mails and hints: a
    /// placeholder or example for the command line (`TOKEN BOARD:STAR`,
    /// `accept`) and a sentence explaining it.
    fn notation(state: &Self::State) -> (String, String);

    /// Parses move notation (e.g. `10 leo:3`) as a player types it: case
    /// and spacing do not matter. Text that names no move here is refused
    /// with [`RuleErrorKind::Notation`], saying "did you mean …?" when a
    /// name is one slip from one that exists.
    fn parse_intent(state: &Self::State, text: &str) -> Result<Self::Intent, RuleError>;

    /// What happened that the standings do not show, one sentence each,
    /// for `status` and `audit` (e.g. takebacks); `names` in seat order. By
    /// default nothing: the standings and the history tell it all.
    fn notes(state: &Self::State, names: &[String]) -> Vec<String> {
        let _ = (state, names);
        Vec::new()
    }

    /// What a standing's score counts under these options, in words
    /// (`coins`, `seas`).
    fn score_unit(options: &Self::Options) -> &'static str;

    /// Renders a view as text for a terminal; `names` are the players'
    /// names in seat order, already safe to print.
    fn render_text(view: &Self::View, names: &[String]) -> String;

    /// Draws a view as an SVG picture ([`crate::picture`]): deterministic,
    /// and showing exactly what [`Show::render_text`] shows of the same
    /// view. `names` are the players' names in seat order (escaped by the
    /// picture).
    fn render_svg(view: &Self::View, names: &[String]) -> String {
        Self::render_svg_linked(view, names, &crate::picture::Links::default())
    }

    /// [`Show::render_svg`] with `links` on the places whose keys they name
    /// (those of [`Show::move_clicks`]); the same picture otherwise.
    fn render_svg_linked(
        view: &Self::View,
        names: &[String],
        links: &crate::picture::Links,
    ) -> String;

    /// How `intent` is chosen by pointing (`starry serve`): each way is the
    /// clicks that name it, in order, the first ones shared with other
    /// moves (Starry Sky: `token 3`, then `star leo:3`; Star Map: `disc
    /// corner1`, `rotation r90`, `square f8`; Starry Night: `star A` then
    /// `star C`, or the other way round). A key that names a place of the
    /// picture is drawn as a link there; every key is also offered as a
    /// labelled choice beside it.
    /// `names` are the players' names in seat order, for a choice that
    /// names a seat (Starry Night: `Ben moves first`).
    fn move_clicks(state: &Self::State, intent: &Self::Intent, names: &[String])
    -> Vec<Vec<Click>>;

    /// What `seat`, to move, may say now instead of a move of
    /// [`Rules::intents`]' list, which the bots draw from and `starry
    /// moves` prints: a request rather than a move on the board (Starry
    /// Night's takeback). `starry serve` offers each as a button beside the
    /// board, labelled as [`Show::move_clicks`] labels it. By default none.
    fn requests(state: &Self::State, seat: Seat) -> Vec<Self::Intent> {
        let _ = (state, seat);
        Vec::new()
    }

    /// Describes a logged action for humans (e.g. `face-down token on leo:3`);
    /// `state` is the position right after it.
    fn describe(state: &Self::State, action: &Self::Action) -> String;

    /// Where `intent` stands in the list `starry moves` prints: the labels
    /// of its group and, if any, subgroup, in the game's own words
    /// (Starry Sky: `token 10`, then `leo`; Star Map: `corner1 r90`;
    /// Starry Night: `star A`). Moves keep [`Rules::intents`]' order inside
    /// a group; groups come in the order of their first move.
    fn move_group(state: &Self::State, intent: &Self::Intent) -> Vec<String>;

    /// What the mover did, as the predicate of a sentence whose subject is
    /// their name (`placed 7 on leo:3`), for histories and mails; `state`
    /// is the position right after it, `names` the players' names in seat
    /// order (safe to print).
    fn narrate(state: &Self::State, action: &Self::Action, names: &[String]) -> String {
        let _ = names;
        Self::describe(state, action)
    }
}

/// Everything the program asks of a game: its [`Rules`] and its [`Show`]
/// under one name, implemented for every type that has both. Its items are
/// theirs: with `G: Game`, `G::State` and `G::view(…)` find them through
/// the supertraits; a fully qualified path names the trait that declares
/// the item (`<G as Rules>::State`), and a call on a concrete game
/// (`StarrySky::setup`) needs `Rules` in scope: [`prelude`] brings all three.
pub trait Game: Rules + Show {}

impl<G: Rules + Show> Game for G {}

/// What code that works with games imports: `use crate::games::prelude::*;`
/// brings the three traits (so that items resolve on concrete games as on
/// type parameters) and the types their items speak of.
pub mod prelude {
    pub use super::registry::Registered;
    pub use super::{
        Click, Context, Draw, Game, HiddenRef, Nothing, Own, PendingEvent, RuleError,
        RuleErrorKind, Rules, Sealed, Seat, Show, Standing, Turn, Variants, Withdrawal,
    };
    pub use crate::bot::Bot;
}

/// Plays `intent` for `seat` the way its own program does, in the pure
/// engine with no log: seals it, opens from `own` the hidden values the move
/// must reveal, applies it as entry `at`, and keeps the values it commits to
/// in `own`. For self-play (benchmarks, golden playthroughs); returns the
/// action as the log would record it.
pub fn play_own<G: Game>(
    state: &mut G::State,
    seat: Seat,
    intent: &G::Intent,
    own: &mut Own<G::Hidden>,
    at: u64,
) -> Result<G::Action, RuleError> {
    let sealed = G::seal(state, seat, intent, own)?;
    let ctx = Context {
        seat,
        at,
        commitments: sealed.hidden.len() as u32,
        reveals: take_own(own, &sealed.reveals)?,
    };
    G::play(state, &ctx, &sealed.action)?;
    for (slot, h) in sealed.hidden.into_iter().enumerate() {
        own.hidden.insert(
            HiddenRef {
                entry: at,
                slot: slot as u32,
            },
            h,
        );
    }
    Ok(sealed.action)
}

/// Makes the reveal the game asks `seat` for (`Turn::Reveal`) from its own
/// values, as entry `at`; the pure-engine counterpart of `starry reveal`.
pub fn reveal_own<G: Game>(
    state: &mut G::State,
    seat: Seat,
    refs: &[HiddenRef],
    own: &mut Own<G::Hidden>,
    at: u64,
) -> Result<(), RuleError> {
    let ctx = Context {
        seat,
        at,
        commitments: 0,
        reveals: take_own(own, refs)?,
    };
    G::reveal(state, &ctx)
}

/// For a game that hides nothing (`title`: its name in prose): a move
/// carrying a commitment is illegal, one opening something is a wrong
/// reveal — as in Starry Sky, where a move's commitments and openings are
/// exactly what its rules ask.
pub fn nothing_hidden_in_move(title: &str, ctx: &Context<Nothing>) -> Result<(), RuleError> {
    if ctx.commitments != 0 {
        return Err(RuleError::illegal(
            "commitments",
            format!(
                "{title} has nothing hidden: a move needs no commitment; the entry has {}",
                ctx.commitments
            ),
        ));
    }
    if !ctx.reveals.is_empty() {
        return Err(RuleError::wrong_reveals(
            "nothing-hidden",
            format!("{title} has nothing hidden: a move opens nothing"),
        ));
    }
    Ok(())
}

/// For a game that hides nothing: a reveal entry is never asked for.
pub fn nothing_to_reveal(title: &str) -> RuleError {
    RuleError::wrong_reveals(
        "nothing-hidden",
        format!("{title} has nothing hidden; there is nothing to reveal"),
    )
}

/// For a game that hides nothing: a resignation opens nothing.
pub fn nothing_hidden_in_resignation<H>(title: &str, ctx: &Context<H>) -> Result<(), RuleError> {
    if ctx.reveals.is_empty() {
        Ok(())
    } else {
        Err(RuleError::wrong_reveals(
            "nothing-hidden",
            format!("{title} has nothing hidden; a resignation opens nothing"),
        ))
    }
}

/// Removes the values of `refs` from `own`, in order.
fn take_own<H>(own: &mut Own<H>, refs: &[HiddenRef]) -> Result<Vec<(HiddenRef, H)>, RuleError> {
    refs.iter()
        .map(|r| {
            own.hidden.remove(r).map(|h| (*r, h)).ok_or_else(|| {
                RuleError::wrong_reveals("reveals", format!("{r} is not a value of this seat's"))
            })
        })
        .collect()
}

/// A game's name in prose from its command-line name: `starry-sky` →
/// `Starry Sky`.
pub fn title_of(name: &str) -> String {
    name.split('-')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect())
                .unwrap_or_default()
        })
        .collect::<Vec<String>>()
        .join(" ")
}

/// How many players a game takes, in words: `2` or `3 to 5`.
pub fn seat_range<G: Game>() -> String {
    let (lo, hi) = (*G::SEATS.start(), *G::SEATS.end());
    if lo == hi {
        lo.to_string()
    } else {
        format!("{lo} to {hi}")
    }
}

/// Ranks scores: higher is better, equal scores share a rank.
pub fn rank_by_score(scores: &[i64]) -> Vec<Standing> {
    let mut rows: Vec<Standing> = scores
        .iter()
        .enumerate()
        .map(|(seat, &score)| Standing {
            seat,
            rank: 1 + scores.iter().filter(|&&s| s > score).count() as u32,
            score,
            team: None,
        })
        .collect();
    rows.sort_by_key(|r| (r.rank, r.seat));
    rows
}
