//! Starry Sky (Sternenhimmel, Tom Schoeps): seats place tokens on the stars
//! of constellation boards, face down on large stars; a full board is scored
//! and its prizes paid; the richest seat after the last board wins.
//!
//! The rulings where the seed texts disagree or are silent are in
//! `docs/starry-sky.md` (the design brief's are summarised in
//! `docs/design-notes.md`, "The brief, in short"); the ones this engine adds
//! are marked "Our ruling" where they are implemented.

pub mod board;
pub mod bot;
pub mod picture;
pub mod referee;
mod registered;
pub mod scoring;
mod show;
pub mod token;
pub mod view;

#[cfg(test)]
mod tests;

use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::games::{
    Context, Draw, HiddenRef, Own, PendingEvent, RuleError, Sealed, Seat, Standing, Turn,
    rank_by_score,
};

pub use board::{Board, BoardId, StarLabel, StarNo};
pub use scoring::{BoardScore, Doubling, Tie};
pub use token::{Token, Tokens};
pub use view::View;

/// The game, for the [`crate::games::Rules`] and [`crate::games::Show`] traits.
pub struct StarrySky;

/// Game options, stored in the genesis.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Options {
    #[serde(default)]
    pub doubling: Doubling,
    #[serde(default)]
    pub tie: Tie,
    /// A custom board set, kept whole so that an audit needs nothing but the
    /// log; absent means the 12 shipped zodiac boards.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boards: Option<Vec<Board>>,
}

/// A move as the log records it: the star, and the token unless it lies
/// face down.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Action {
    pub star: StarLabel,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<Token>,
}

/// What a player says: which token goes on which star (`10 leo:3`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Intent {
    pub token: Token,
    pub star: StarLabel,
}

impl fmt::Display for Intent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.token, self.star)
    }
}

/// Why the game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Ending {
    /// Every board of the set has been scored.
    AllBoardsScored,
    /// Nobody could place a token any more (possible with custom boards, or
    /// when three seats spread 27 tokens over 30 stars): the game ends with
    /// the coins as they stand.
    Stalled,
    /// A seat resigned, or the others claimed it stopped answering; the log
    /// places it last (protocol §7).
    Withdrawn {
        /// The seat, 0-based (see docs/json.md).
        seat: Seat,
        how: crate::games::Withdrawal,
    },
}

/// An index into the game's board set.
type BoardIdx = usize;

/// A token on a star.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Placement {
    seat: Seat,
    face: Face,
    /// The entry that placed it.
    at: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
enum Face {
    /// Placed on a small star (or completing a board).
    Up(Token),
    /// Placed on a large star; the log holds its commitment.
    Down(HiddenRef),
    /// Placed face down and revealed when the board was completed.
    Revealed(Token),
}

impl Face {
    fn known(self) -> Option<Token> {
        match self {
            Face::Up(t) | Face::Revealed(t) => Some(t),
            Face::Down(_) => None,
        }
    }
}

/// A board on the table and what lies on its stars.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct InPlay {
    board: BoardIdx,
    /// Index 0 is star 1.
    stars: Vec<Option<Placement>>,
}

impl InPlay {
    fn new(board: BoardIdx, boards: &[Board]) -> Self {
        InPlay {
            board,
            stars: vec![None; boards[board].star_count()],
        }
    }

    fn free(&self) -> usize {
        self.stars.iter().filter(|p| p.is_none()).count()
    }

    /// A seat's face-down tokens here, in placement order (log order).
    fn face_down(&self, seat: Seat) -> Vec<HiddenRef> {
        let mut refs: Vec<HiddenRef> = self
            .stars
            .iter()
            .flatten()
            .filter(|p| p.seat == seat)
            .filter_map(|p| match p.face {
                Face::Down(r) => Some(r),
                _ => None,
            })
            .collect();
        refs.sort();
        refs
    }
}

/// What will replace a board being scored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
enum Next {
    /// The draw is requested and not resolved yet.
    Event { id: u64, causer: Seat },
    /// Drawn while the reveals were still going on.
    Drawn(BoardIdx),
    /// The stack had nothing left (that was not promised already).
    Nothing,
}

/// One place on the table; there is one per seat.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
enum Slot {
    /// A board being played.
    Open(InPlay),
    /// A full board waiting for its reveals.
    Scoring { board: InPlay, next: Next },
    /// Cleared; its replacement is a random event not resolved yet, so
    /// nothing can be played here.
    Waiting { event: u64, causer: Seat },
    /// Cleared with no board left to draw.
    Empty,
}

impl Slot {
    fn in_play(&self) -> Option<&InPlay> {
        match self {
            Slot::Open(b) | Slot::Scoring { board: b, .. } => Some(b),
            _ => None,
        }
    }

    fn in_play_mut(&mut self) -> Option<&mut InPlay> {
        match self {
            Slot::Open(b) | Slot::Scoring { board: b, .. } => Some(b),
            _ => None,
        }
    }

    fn event(&self) -> Option<PendingEvent> {
        match *self {
            Slot::Scoring {
                next: Next::Event { id, causer },
                ..
            }
            | Slot::Waiting { event: id, causer } => Some(PendingEvent { id, causer }),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
enum Phase {
    Move(Seat),
    /// Play is interrupted until the face-down tokens of this slot's board
    /// are revealed; there is always a reveal due in this phase.
    Scoring {
        slot: usize,
        completer: Seat,
    },
    Over(Ending),
}

/// The last placement or reveal: what the pictures mark as just done.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum LastMove {
    /// A token placed on a star.
    Place {
        /// The seat, 0-based (see docs/json.md).
        seat: Seat,
        star: StarLabel,
        /// The token, when it lies face up (a face-down token's value is
        /// hidden; only where it lies is public).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        token: Option<Token>,
    },
    /// Face-down tokens turned up so that their board can be scored.
    Reveal {
        /// The seat, 0-based (see docs/json.md).
        seat: Seat,
        stars: Vec<StarLabel>,
    },
}

/// A scored board, for the history.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Scored {
    pub board: BoardId,
    pub name: String,
    pub slot: usize,
    /// The seat that completed the board, 0-based (see docs/json.md).
    pub completer: Seat,
    pub score: BoardScore,
}

/// The whole public state.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct State {
    doubling: Doubling,
    tie: Tie,
    /// Shared: the set never changes, and states are cloned on every move.
    boards: Arc<[Board]>,
    /// Coins per seat; the reserve is unlimited.
    coins: Vec<i64>,
    slots: Vec<Slot>,
    /// Undealt boards, in listed order: each draw picks from what remains,
    /// so the order must be canonical for replays to agree.
    stack: Vec<BoardIdx>,
    next_event: u64,
    phase: Phase,
    scored: Vec<Scored>,
    /// Every token that has left a board, with when it lay there.
    past: Vec<Past>,
    /// The last placement or reveal (resigning and draws do not count).
    last: Option<Last>,
}

/// The state's [`LastMove`]. Its own type: the cache keeps states in
/// postcard, which cannot read the view's tagged enum or skipped fields.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
enum Last {
    Place {
        seat: Seat,
        star: StarLabel,
        token: Option<Token>,
    },
    Reveal {
        seat: Seat,
        stars: Vec<StarLabel>,
    },
}

/// A token that lay on a board from entry `from` until the board was
/// cleared by entry `to`. Kept so that a later reveal can be checked against
/// everything the seat had out at the same time: two face-down 10s on two
/// boards are a cheat even if one went home before the other is revealed.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct Past {
    seat: Seat,
    token: Token,
    star: StarLabel,
    from: u64,
    to: u64,
}

/// A seat where the engine has no names (rule errors, the referee).
fn tag(seat: Seat) -> String {
    format!("seat {seat}")
}

impl State {
    pub fn seats(&self) -> usize {
        self.coins.len()
    }

    pub fn coins(&self) -> &[i64] {
        &self.coins
    }

    pub fn boards(&self) -> &[Board] {
        &self.boards
    }

    pub fn doubling(&self) -> Doubling {
        self.doubling
    }

    pub fn tie(&self) -> Tie {
        self.tie
    }

    pub fn ended(&self) -> Option<Ending> {
        match self.phase {
            Phase::Over(e) => Some(e),
            _ => None,
        }
    }

    /// Boards scored so far, oldest first.
    pub fn history(&self) -> &[Scored] {
        &self.scored
    }

    /// Boards not dealt yet (including ones promised to pending draws).
    pub fn stack_len(&self) -> usize {
        self.stack.len()
    }

    fn boards_in_play(&self) -> impl Iterator<Item = &InPlay> {
        self.slots.iter().filter_map(Slot::in_play)
    }

    fn placements(&self, seat: Seat) -> impl Iterator<Item = Placement> + '_ {
        self.boards_in_play()
            .flat_map(|b| b.stars.iter().flatten().copied())
            .filter(move |p| p.seat == seat)
    }

    /// Tokens the seat has in hand (public: everyone counts them).
    pub fn hand_size(&self, seat: Seat) -> u32 {
        Token::SET_SIZE - self.placements(seat).count() as u32
    }

    /// The seat's tokens on boards whose values are public.
    pub fn known_on_boards(&self, seat: Seat) -> Tokens {
        let mut t = Tokens::default();
        for p in self.placements(seat) {
            if let Some(token) = p.face.known() {
                t.add(token);
            }
        }
        t
    }

    /// How many of the seat's tokens lie face down.
    pub fn face_down_count(&self, seat: Seat) -> u32 {
        self.placements(seat)
            .filter(|p| matches!(p.face, Face::Down(_)))
            .count() as u32
    }

    /// The seat's face-down tokens on the boards (public: everyone sees
    /// where they lie, not what they are), in log order.
    pub fn face_down_refs(&self, seat: Seat) -> Vec<HiddenRef> {
        let mut refs: Vec<HiddenRef> = self
            .boards_in_play()
            .flat_map(|b| b.face_down(seat))
            .collect();
        refs.sort();
        refs
    }

    /// Whether `seat` could hold the tokens `values` give its face-down
    /// tokens: the check a reveal of them would pass (rule C1), so that a
    /// bot guessing another seat's tokens only guesses what is possible.
    /// Every ref must be one of [`State::face_down_refs`].
    pub fn could_hold(&self, seat: Seat, values: &[(HiddenRef, Token)]) -> bool {
        self.check_reveals(seat, values, None).is_ok()
    }

    /// The seat's exact hand, from what only they know. Errors if `own`
    /// lacks one of their face-down tokens (their program must know them
    /// all to know its hand).
    pub fn hand(&self, seat: Seat, own: &Own<Token>) -> Result<Tokens, RuleError> {
        let mut hand = Tokens::full_set();
        let on_boards = self.placements(seat).map(|p| match p.face {
            Face::Up(t) | Face::Revealed(t) => Ok(t),
            Face::Down(r) => own.hidden.get(&r).copied().ok_or(r),
        });
        for t in on_boards {
            let t = t.map_err(|r| {
                RuleError::illegal(
                    "own-secrets",
                    format!(
                        "the value of your face-down token at {r} is not known to this program"
                    ),
                )
            })?;
            if !hand.take(t) {
                return Err(RuleError::illegal(
                    "own-secrets",
                    format!("your tokens on the boards include more `{t}` than a set holds"),
                ));
            }
        }
        Ok(hand)
    }

    fn board_of(&self, b: &InPlay) -> &Board {
        &self.boards[b.board]
    }

    /// Events requested and not resolved, oldest first.
    fn events(&self) -> Vec<PendingEvent> {
        let mut v: Vec<PendingEvent> = self.slots.iter().filter_map(Slot::event).collect();
        v.sort_by_key(|e| e.id);
        v
    }

    /// Whether `seat` could place a token now or once the draws that its
    /// own entry resolves are in: a pending slot caused by another seat is
    /// resolved by the protocol before `seat`'s entry applies.
    fn can_move(&self, seat: Seat) -> bool {
        self.hand_size(seat) > 0
            && self.slots.iter().any(|s| match s {
                Slot::Open(b) => b.free() > 0,
                Slot::Waiting { causer, .. } => *causer != seat,
                _ => false,
            })
    }

    /// Hands the turn to the first seat after `after` (ending with `after`
    /// itself) that can move; if none can, the game has stalled.
    fn pass_turn(&mut self, after: Seat) {
        if self.scored.len() == self.boards.len() {
            self.phase = Phase::Over(Ending::AllBoardsScored);
            return;
        }
        let n = self.seats();
        self.phase = match (1..=n).map(|i| (after + i) % n).find(|&s| self.can_move(s)) {
            Some(s) => Phase::Move(s),
            None => Phase::Over(Ending::Stalled),
        };
    }

    /// Who must reveal next for the board in `slot`: seat order from the
    /// completer's left, skipping owners with nothing face down there.
    fn revealer(&self, slot: usize, completer: Seat) -> Option<(Seat, Vec<HiddenRef>)> {
        let b = self.slots[slot].in_play()?;
        let n = self.seats();
        (1..n).map(|i| (completer + i) % n).find_map(|s| {
            let refs = b.face_down(s);
            (!refs.is_empty()).then_some((s, refs))
        })
    }

    /// Finds an open board's star, with an error naming what is wrong.
    pub(crate) fn locate(&self, label: &StarLabel) -> Result<(usize, StarNo), RuleError> {
        let Some(idx) = self.boards.iter().position(|b| b.id == label.board) else {
            return Err(RuleError::illegal(
                "no-such-board",
                format!("there is no board `{}` in this game", label.board),
            ));
        };
        let slot = self
            .slots
            .iter()
            .position(|s| matches!(s, Slot::Open(b) if b.board == idx))
            .ok_or_else(|| {
                let why = if self.scored.iter().any(|s| s.board == label.board) {
                    "has been scored already"
                } else if self
                    .slots
                    .iter()
                    .any(|s| s.in_play().is_some_and(|b| b.board == idx))
                {
                    "is being scored"
                } else {
                    "is not on the table"
                };
                let open: Vec<&str> = self
                    .slots
                    .iter()
                    .filter_map(|s| match s {
                        Slot::Open(b) => Some(self.boards[b.board].id.as_str()),
                        _ => None,
                    })
                    .collect();
                RuleError::illegal(
                    "board-not-in-play",
                    format!(
                        "board `{}` {why}; the boards in play are {}",
                        label.board,
                        open.join(", ")
                    ),
                )
            })?;
        let board = &self.boards[idx];
        check_star(board, label.star)?;
        let Slot::Open(b) = &self.slots[slot] else {
            unreachable!("found as open")
        };
        if let Some(p) = b.stars[label.star as usize - 1] {
            return Err(RuleError::illegal(
                "star-occupied",
                format!("{label} already holds a token of {}", tag(p.seat)),
            ));
        }
        Ok((slot, label.star))
    }

    fn check_mover(&self, seat: Seat) -> Result<(), RuleError> {
        match self.phase {
            Phase::Move(s) if s == seat => Ok(()),
            Phase::Move(s) => Err(RuleError::out_of_turn(
                "not-your-turn",
                format!(
                    "it is {}'s turn to place a token, not {}'s",
                    tag(s),
                    tag(seat)
                ),
            )),
            Phase::Scoring { .. } => Err(RuleError::out_of_turn(
                "reveal-due",
                "play is interrupted until the completed board's face-down tokens are revealed",
            )),
            Phase::Over(_) => Err(RuleError::illegal("game-over", "the game is over")),
        }
    }

    /// Whether a token placed on this open star lies face down. A token that
    /// completes its board is always face up (our ruling): scoring turns
    /// every token over at once, so hiding it would only cost a reveal.
    pub(crate) fn face_down_here(&self, slot: usize, star: StarNo) -> bool {
        let b = self.slots[slot].in_play().expect("open slot");
        self.board_of(b).stars[star as usize - 1].large && b.free() > 1
    }

    /// The stars of `slot`'s board whose face-down tokens are `refs`, in
    /// star order.
    fn face_down_stars(&self, slot: usize, refs: &[HiddenRef]) -> Vec<StarLabel> {
        let Some(b) = self.slots[slot].in_play() else {
            return Vec::new();
        };
        let def = self.board_of(b);
        b.stars
            .iter()
            .enumerate()
            .filter(|(_, p)| {
                p.is_some_and(|p| matches!(p.face, Face::Down(r) if refs.contains(&r)))
            })
            .map(|(i, _)| def.label(i as StarNo + 1))
            .collect()
    }

    /// The last placement or reveal.
    pub fn last_move(&self) -> Option<LastMove> {
        Some(match self.last.clone()? {
            Last::Place { seat, star, token } => LastMove::Place { seat, star, token },
            Last::Reveal { seat, stars } => LastMove::Reveal { seat, stars },
        })
    }

    /// Applies `reveals` by `seat` once [`State::check_reveals`] has found
    /// that the seat could have held every revealed token.
    fn apply_reveals(
        &mut self,
        seat: Seat,
        reveals: &[(HiddenRef, Token)],
    ) -> Result<(), RuleError> {
        self.check_reveals(seat, reveals, None)?;
        self.turn_over(reveals);
        Ok(())
    }

    /// Turns the revealed tokens face up (as revealed); they were checked.
    fn turn_over(&mut self, reveals: &[(HiddenRef, Token)]) {
        for &(r, t) in reveals {
            let spot = self
                .slots
                .iter_mut()
                .filter_map(Slot::in_play_mut)
                .flat_map(|b| b.stars.iter_mut().flatten())
                .find(|p| p.face == Face::Down(r))
                .expect("reveal refs were checked");
            spot.face = Face::Revealed(t);
        }
    }

    /// Checks that `seat` could have held every token `reveals` opens: at
    /// no time since it was placed may more of that token have lain on the
    /// boards than one set holds. The boards are taken as they will be
    /// once the tokens are turned over and `placed` (a token being placed
    /// at a slot's star) lies on its star. It only reads, so that a move
    /// is checked whole before anything changes and a refused one leaves
    /// no trace without a copy of the state to throw away.
    fn check_reveals(
        &self,
        seat: Seat,
        reveals: &[(HiddenRef, Token)],
        placed: Option<(usize, StarNo, Placement)>,
    ) -> Result<(), RuleError> {
        // Each ref opens a face-down token on a board, and only once (the
        // protocol and the reveal set checked it).
        for (i, &(r, _)) in reveals.iter().enumerate() {
            let down = self
                .boards_in_play()
                .flat_map(|b| b.stars.iter().flatten())
                .any(|p| p.face == Face::Down(r));
            let again = reveals[..i].iter().any(|&(earlier, _)| earlier == r);
            assert!(down && !again, "reveal refs were checked");
        }
        // What a token of the seat's shows once the reveals are applied.
        let known = |p: &Placement| match p.face {
            Face::Down(r) => reveals.iter().find(|&&(x, _)| x == r).map(|&(_, t)| t),
            face => face.known(),
        };
        let mut tokens: Vec<Token> = reveals.iter().map(|&(_, t)| t).collect();
        tokens.sort();
        tokens.dedup();
        for t in tokens {
            // (from, to, star) for every known `t` of this seat, past and present.
            let mut spans: Vec<(u64, u64, StarLabel)> = self
                .past
                .iter()
                .filter(|p| p.seat == seat && p.token == t)
                .map(|p| (p.from, p.to, p.star.clone()))
                .collect();
            for (slot, b) in self.slots.iter().enumerate() {
                let Some(b) = b.in_play() else { continue };
                let def = self.board_of(b);
                for (i, p) in b.stars.iter().enumerate() {
                    let star = i as StarNo + 1;
                    let p = match placed {
                        Some((at, s, new)) if (at, s) == (slot, star) => Some(new),
                        _ => *p,
                    };
                    if let Some(p) = p.filter(|p| p.seat == seat && known(p) == Some(t)) {
                        spans.push((p.at, u64::MAX, def.label(star)));
                    }
                }
            }
            // A token lies out from the entry that placed it through the
            // entry that cleared its board (inclusive: a token placed by the
            // completing entry was out at that entry too); it is back in hand
            // for the next entry, so at equal times leaving sorts first.
            let mut edges: Vec<(u64, i32)> = spans
                .iter()
                .flat_map(|s| [(s.0, 1), (s.1.saturating_add(1), -1)])
                .collect();
            edges.sort();
            let mut out = 0;
            let most = edges
                .iter()
                .map(|&(_, d)| {
                    out += d;
                    out
                })
                .max()
                .unwrap_or(0);
            if most > t.in_set() as i32 {
                spans.sort_by_key(|s| s.0);
                let wheres: Vec<String> = spans
                    .iter()
                    .map(|(from, to, star)| match *to {
                        u64::MAX => format!("{star} (since entry {from})"),
                        to => format!("{star} (entries {from} to {to})"),
                    })
                    .collect();
                return Err(RuleError::impossible(
                    "could-not-hold",
                    format!(
                        "{} reveals `{t}`, but a set holds {} and {most} of theirs lay on the boards at once ({}): they could not have held it",
                        tag(seat),
                        t.in_set(),
                        wheres.join(", ")
                    ),
                ));
            }
        }
        Ok(())
    }

    fn check_reveal_set(expected: &[HiddenRef], ctx: &Context<Token>) -> Result<(), RuleError> {
        let given: Vec<HiddenRef> = ctx.reveals.iter().map(|(r, _)| *r).collect();
        if given != expected {
            let list = |v: &[HiddenRef]| {
                if v.is_empty() {
                    "nothing".to_string()
                } else {
                    v.iter()
                        .map(|r| r.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            };
            return Err(RuleError::wrong_reveals(
                "reveal-set",
                format!(
                    "this entry must reveal {}, in that order; it reveals {}",
                    list(expected),
                    list(&given)
                ),
            ));
        }
        Ok(())
    }

    fn place(&mut self, ctx: &Context<Token>, action: &Action) -> Result<(), RuleError> {
        let seat = ctx.seat;
        self.check_mover(seat)?;
        let (slot, star) = self.locate(&action.star)?;
        if self.hand_size(seat) == 0 {
            return Err(RuleError::illegal(
                "token-not-in-hand",
                format!("{} has no tokens in hand", tag(seat)),
            ));
        }
        let down = self.face_down_here(slot, star);
        let face = match (down, action.token) {
            (true, None) => {
                if ctx.commitments != 1 {
                    return Err(RuleError::illegal(
                        "commitments",
                        format!(
                            "a face-down token on {} needs exactly one commitment; the entry has {}",
                            action.star, ctx.commitments
                        ),
                    ));
                }
                Face::Down(HiddenRef {
                    entry: ctx.at,
                    slot: 0,
                })
            }
            (true, Some(t)) => {
                return Err(RuleError::illegal(
                    "token-must-hide",
                    format!(
                        "{} is a large star: the token goes face down, so the move must not show `{t}`",
                        action.star
                    ),
                ));
            }
            (false, None) => {
                return Err(RuleError::illegal(
                    "token-must-show",
                    format!(
                        "a token on {} lies face up: the move must name it",
                        action.star
                    ),
                ));
            }
            (false, Some(t)) => {
                if ctx.commitments != 0 {
                    return Err(RuleError::illegal(
                        "commitments",
                        format!(
                            "a face-up token needs no commitment; the entry has {}",
                            ctx.commitments
                        ),
                    ));
                }
                if self.known_on_boards(seat).count(t) >= t.in_set() {
                    return Err(RuleError::illegal(
                        "token-not-in-hand",
                        format!(
                            "{} has no `{t}` in hand: their set holds {} and it already shows on the boards",
                            tag(seat),
                            t.in_set()
                        ),
                    ));
                }
                Face::Up(t)
            }
        };
        let completes = self.slots[slot].in_play().expect("open").free() == 1;
        let expected = if completes {
            self.slots[slot].in_play().expect("open").face_down(seat)
        } else {
            Vec::new()
        };
        Self::check_reveal_set(&expected, ctx)?;
        let placement = Placement {
            seat,
            face,
            at: ctx.at,
        };
        self.check_reveals(seat, &ctx.reveals, Some((slot, star, placement)))?;

        // The move is legal: nothing below refuses it.
        let Slot::Open(b) = &mut self.slots[slot] else {
            unreachable!("located an open board")
        };
        b.stars[star as usize - 1] = Some(placement);
        self.turn_over(&ctx.reveals);
        self.last = Some(Last::Place {
            seat,
            star: action.star.clone(),
            token: action.token,
        });

        if !completes {
            self.pass_turn(seat);
            return Ok(());
        }
        // The replacement is drawn as a random event at once, so that the
        // next seat's entry can resolve it even while reveals are due.
        let promised = self.events().len();
        let next = if self.stack.len() > promised {
            let id = self.next_event;
            self.next_event += 1;
            Next::Event { id, causer: seat }
        } else {
            Next::Nothing
        };
        let Slot::Open(board) = std::mem::replace(&mut self.slots[slot], Slot::Empty) else {
            unreachable!("located an open board")
        };
        self.slots[slot] = Slot::Scoring { board, next };
        self.phase = Phase::Scoring {
            slot,
            completer: seat,
        };
        self.continue_scoring(ctx.at);
        Ok(())
    }

    fn take_reveal(&mut self, ctx: &Context<Token>) -> Result<(), RuleError> {
        let (slot, completer) = match self.phase {
            Phase::Scoring { slot, completer } => (slot, completer),
            Phase::Move(s) => {
                return Err(RuleError::out_of_turn(
                    "no-reveal-due",
                    format!("no reveal is due: it is {}'s turn to place a token", tag(s)),
                ));
            }
            Phase::Over(_) => return Err(RuleError::illegal("game-over", "the game is over")),
        };
        let (seat, refs) = self
            .revealer(slot, completer)
            .expect("scoring waits for a reveal");
        if ctx.seat != seat {
            return Err(RuleError::out_of_turn(
                "not-your-turn",
                format!("{} must reveal now, not {}", tag(seat), tag(ctx.seat)),
            ));
        }
        if ctx.commitments != 0 {
            return Err(RuleError::illegal(
                "commitments",
                format!(
                    "a reveal carries no commitment; the entry has {}",
                    ctx.commitments
                ),
            ));
        }
        Self::check_reveal_set(&refs, ctx)?;
        let stars = self.face_down_stars(slot, &refs);
        self.apply_reveals(seat, &ctx.reveals)?;
        self.last = Some(Last::Reveal { seat, stars });
        self.continue_scoring(ctx.at);
        Ok(())
    }

    /// Scores the board once no reveal is due any more; `now` is the entry
    /// being applied.
    fn continue_scoring(&mut self, now: u64) {
        let Phase::Scoring { slot, completer } = self.phase else {
            return;
        };
        if self.revealer(slot, completer).is_some() {
            return;
        }
        let Slot::Scoring { board, next } = std::mem::replace(&mut self.slots[slot], Slot::Empty)
        else {
            unreachable!("the scoring slot holds the board")
        };
        let def = &self.boards[board.board];
        let placed: Vec<scoring::Placed> = board
            .stars
            .iter()
            .enumerate()
            .filter_map(|(i, p)| {
                let p = (*p)?;
                Some(scoring::Placed {
                    star: i as StarNo + 1,
                    seat: p.seat,
                    token: p
                        .face
                        .known()
                        .expect("every token is revealed before scoring"),
                })
            })
            .collect();
        let score = scoring::score_board(def, &placed, self.doubling, self.tie, &self.coins);
        for (i, p) in board.stars.iter().enumerate() {
            let Some(p) = p else { continue };
            self.past.push(Past {
                seat: p.seat,
                token: p.face.known().expect("revealed"),
                star: def.label(i as StarNo + 1),
                from: p.at,
                to: now,
            });
        }
        for s in &score.seats {
            self.coins[s.seat] += s.coins;
        }
        self.scored.push(Scored {
            board: def.id.clone(),
            name: def.name.clone(),
            slot,
            completer,
            score,
        });
        // The board's tokens go back to their owners by leaving the table:
        // hands are counted from what lies on boards.
        self.slots[slot] = match next {
            Next::Event { id, causer } => Slot::Waiting { event: id, causer },
            Next::Drawn(idx) => Slot::Open(InPlay::new(idx, &self.boards)),
            Next::Nothing => Slot::Empty,
        };
        self.pass_turn(completer);
    }

    fn resolve_event(&mut self, event: u64, draw: &mut Draw) -> Result<(), RuleError> {
        let slot = self
            .slots
            .iter()
            .position(|s| s.event().is_some_and(|e| e.id == event))
            .ok_or_else(|| {
                RuleError::illegal("no-such-event", format!("no draw {event} is pending"))
            })?;
        let idx = draw.pick(&mut self.stack);
        match &mut self.slots[slot] {
            Slot::Scoring { next, .. } => *next = Next::Drawn(idx),
            s => *s = Slot::Open(InPlay::new(idx, &self.boards)),
        }
        Ok(())
    }
}

fn parse_choice<T: Copy>(
    key: &str,
    value: &str,
    names: [&str; 2],
    values: [T; 2],
) -> Result<T, RuleError> {
    names
        .iter()
        .position(|n| *n == value)
        .map(|i| values[i])
        .ok_or_else(|| {
            RuleError::bad_setup(
                "option-value",
                format!("{key}={value}: {key} is {} or {}", names[0], names[1]),
            )
        })
}

impl StarrySky {
    /// A legal intent drawn without listing them all: `below(n)` is given
    /// the number of legal intents `n` and returns an index in `0..n`, and
    /// the intent is the one at that index in [`crate::games::Rules::intents`]'s list (the
    /// same order: boards in slot order, free stars in order, tokens in
    /// hand in [`Token::ALL`] order). So with a uniform `below` the intent
    /// is uniform over the legal intents, exactly as drawing from the list,
    /// and a seeded game plays the same moves either way — at a fraction of
    /// the cost, since a list holds a few hundred labels, each a board id.
    /// `None` when the seat has no legal intent.
    pub fn random_intent(
        state: &State,
        seat: Seat,
        own: &Own<Token>,
        below: impl FnOnce(usize) -> usize,
    ) -> Option<Intent> {
        if state.phase != Phase::Move(seat) {
            return None;
        }
        let hand = state.hand(seat, own).ok()?;
        let mut tokens = [Token::ALL[0]; Token::ALL.len()];
        let mut kinds = 0;
        for t in hand.distinct() {
            tokens[kinds] = t;
            kinds += 1;
        }
        let open = || {
            state.slots.iter().filter_map(|s| match s {
                Slot::Open(b) => Some(b),
                _ => None,
            })
        };
        let free: usize = open().map(InPlay::free).sum();
        let n = free * kinds;
        if n == 0 {
            return None;
        }
        let k = below(n);
        assert!(k < n, "an index among {n} intents");
        let (mut star, token) = (k / kinds, tokens[k % kinds]);
        for b in open() {
            let here = b.free();
            if star >= here {
                star -= here;
                continue;
            }
            let (i, _) = b
                .stars
                .iter()
                .enumerate()
                .filter(|(_, p)| p.is_none())
                .nth(star)
                .expect("counted free");
            return Some(Intent {
                token,
                star: state.board_of(b).label(i as StarNo + 1),
            });
        }
        unreachable!("the index is below the count of free stars")
    }
}

impl crate::games::Rules for StarrySky {
    const NAME: &'static str = "starry-sky";
    const RULES_VERSION: u32 = 1;
    const SEATS: std::ops::RangeInclusive<usize> = 3..=5;

    type Options = Options;
    type State = State;
    type Action = Action;
    type Hidden = Token;
    type Intent = Intent;
    type View = View;

    fn options(pairs: &[(String, String)], extra: Option<&str>) -> Result<Options, RuleError> {
        let mut options = Options::default();
        let mut seen = BTreeSet::new();
        for (key, value) in pairs {
            if !seen.insert(key.as_str()) {
                return Err(RuleError::bad_setup(
                    "option",
                    format!("option `{key}` is given twice"),
                ));
            }
            match key.as_str() {
                "doubling" => {
                    options.doubling = parse_choice(
                        key,
                        value,
                        Doubling::NAMES,
                        [Doubling::Additive, Doubling::Compound],
                    )?
                }
                "tie" => {
                    options.tie = parse_choice(key, value, Tie::NAMES, [Tie::Coins, Tie::Nothing])?
                }
                _ => {
                    return Err(RuleError::bad_setup(
                        "option",
                        format!(
                            "unknown option `{key}`; Starry Sky knows doubling=additive|compound and tie=coins|nothing (and --boards FILE)"
                        ),
                    ));
                }
            }
        }
        if let Some(text) = extra {
            options.boards = Some(board::parse_board_set(text)?);
        }
        Ok(options)
    }

    fn variants() -> Vec<(&'static str, Vec<&'static str>, &'static str)> {
        vec![
            (
                "doubling",
                Doubling::NAMES.to_vec(),
                "a number next to k double stars counts ×2k (additive) or ×2^k (compound)",
            ),
            (
                "tie",
                Tie::NAMES.to_vec(),
                "an unbroken tie for first pays 1 coin per token left (coins) or nothing",
            ),
        ]
    }

    fn setup(options: &Options, seats: usize, draw: &mut Draw) -> Result<State, RuleError> {
        if !<Self as crate::games::Rules>::SEATS.contains(&seats) {
            return Err(RuleError::bad_setup(
                "seats",
                format!("Starry Sky is for 3 to 5 players, not {seats}"),
            ));
        }
        let boards: Arc<[Board]> = match &options.boards {
            Some(b) => {
                board::validate_set(b)?;
                b.as_slice().into()
            }
            None => board::shipped_boards(),
        };
        if boards.len() < seats {
            return Err(RuleError::bad_setup(
                "board-count",
                format!(
                    "{seats} players need at least {seats} boards; the set has {}",
                    boards.len()
                ),
            ));
        }
        let mut stack: Vec<BoardIdx> = (0..boards.len()).collect();
        let slots = (0..seats)
            .map(|_| Slot::Open(InPlay::new(draw.pick(&mut stack), &boards)))
            .collect();
        Ok(State {
            doubling: options.doubling,
            tie: options.tie,
            boards,
            coins: vec![0; seats],
            slots,
            stack,
            next_event: 0,
            phase: Phase::Move(0),
            scored: Vec::new(),
            past: Vec::new(),
            last: None,
        })
    }

    fn turn(state: &State) -> Turn {
        match state.phase {
            Phase::Move(s) => Turn::Move(s),
            Phase::Scoring { slot, completer } => {
                let (s, refs) = state
                    .revealer(slot, completer)
                    .expect("scoring waits for a reveal");
                Turn::Reveal(s, refs)
            }
            Phase::Over(_) => Turn::Over,
        }
    }

    fn pending(state: &State) -> Vec<PendingEvent> {
        state.events()
    }

    fn resolve(state: &mut State, event: u64, draw: &mut Draw) -> Result<(), RuleError> {
        state.resolve_event(event, draw)
    }

    fn intents(state: &State, seat: Seat, own: &Own<Token>) -> Vec<Intent> {
        if state.phase != Phase::Move(seat) {
            return Vec::new();
        }
        let Ok(hand) = state.hand(seat, own) else {
            return Vec::new();
        };
        let open = || {
            state.slots.iter().filter_map(|s| match s {
                Slot::Open(b) => Some(b),
                _ => None,
            })
        };
        // Sized at once: the list is long (hundreds) and built every move.
        let free: usize = open().map(InPlay::free).sum();
        let mut out = Vec::with_capacity(free * hand.distinct().count());
        for b in open() {
            let board = state.board_of(b);
            for (i, p) in b.stars.iter().enumerate() {
                if p.is_some() {
                    continue;
                }
                let star = board.label(i as StarNo + 1);
                for token in hand.distinct() {
                    out.push(Intent {
                        token,
                        star: star.clone(),
                    });
                }
            }
        }
        out
    }

    fn seal(
        state: &State,
        seat: Seat,
        intent: &Intent,
        own: &Own<Token>,
    ) -> Result<Sealed<Action, Token>, RuleError> {
        state.check_mover(seat)?;
        let (slot, star) = state.locate(&intent.star)?;
        let hand = state.hand(seat, own)?;
        let t = intent.token;
        if hand.count(t) == 0 {
            let list: Vec<&str> = hand.to_vec().into_iter().map(Token::name).collect();
            return Err(RuleError::illegal(
                "token-not-in-hand",
                format!(
                    "you have no `{t}` in hand; your hand: {}",
                    if list.is_empty() {
                        "empty".to_string()
                    } else {
                        list.join(" ")
                    }
                ),
            ));
        }
        let b = state.slots[slot].in_play().expect("open");
        if state.face_down_here(slot, star) {
            return Ok(Sealed {
                action: Action {
                    star: intent.star.clone(),
                    token: None,
                },
                hidden: vec![t],
                reveals: Vec::new(),
            });
        }
        let reveals = if b.free() == 1 {
            b.face_down(seat)
        } else {
            Vec::new()
        };
        Ok(Sealed {
            action: Action {
                star: intent.star.clone(),
                token: Some(t),
            },
            hidden: Vec::new(),
            reveals,
        })
    }

    // A refused entry must leave no trace: `place`, `take_reveal` and
    // `apply_reveals` check everything before they change anything (a copy
    // of the whole state to apply each entry to cost more than the move).
    fn play(state: &mut State, ctx: &Context<Token>, action: &Action) -> Result<(), RuleError> {
        state.place(ctx, action)
    }

    fn reveal(state: &mut State, ctx: &Context<Token>) -> Result<(), RuleError> {
        state.take_reveal(ctx)
    }

    fn resign(state: &mut State, ctx: &Context<Token>) -> Result<(), RuleError> {
        state.apply_reveals(ctx.seat, &ctx.reveals)
    }

    fn withdraw(state: &mut State, seat: Seat, how: crate::games::Withdrawal) {
        state.phase = Phase::Over(Ending::Withdrawn { seat, how });
    }

    /// Each star of each board is filled at most once (a board leaves the
    /// table when full), so a game has at most as many moves as the set has
    /// stars; each scored board asks at most every seat but the completer
    /// for one reveal.
    fn max_entries(options: &Options, seats: usize) -> u64 {
        let shipped;
        let boards: &[Board] = match &options.boards {
            Some(b) => b,
            None => {
                shipped = board::shipped_boards();
                &shipped
            }
        };
        let stars: u64 = boards.iter().map(|b| b.star_count() as u64).sum();
        stars.saturating_add((seats.saturating_sub(1) as u64).saturating_mul(boards.len() as u64))
    }

    fn stalled(state: &State) -> bool {
        state.ended() == Some(Ending::Stalled)
    }

    fn hidden_values() -> Vec<Token> {
        Token::ALL.to_vec()
    }

    fn standings(state: &State) -> Vec<Standing> {
        rank_by_score(&state.coins)
    }

    fn view(state: &State, viewer: Option<Seat>, own: Option<&Own<Token>>) -> View {
        view::build(state, viewer, own)
    }
}

/// Reads `10 leo:3` as typed: case does not matter, nor white space around
/// the words or the colon (` 10  LEO : 3 `). Whatever names no token, board
/// or star is a notation error, with "did you mean …?" for a near miss.
fn parse_intent(state: &State, text: &str) -> Result<Intent, RuleError> {
    let lower = text.trim().to_lowercase();
    // `leo : 3` and `leo: 3` are `leo:3`.
    let joined = lower
        .split(':')
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(":");
    let mut words: Vec<String> = joined.split_whitespace().map(String::from).collect();
    // `10 leo 3`: the colon left out.
    if let [_, board, number] = words.as_slice()
        && board
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && number.bytes().all(|b| b.is_ascii_digit())
    {
        let star = format!("{board}:{number}");
        words.truncate(1);
        words.push(star);
    }
    let [token, star] = words.as_slice() else {
        return Err(RuleError::notation(
            "notation",
            format!(
                "`{}` is not a move: a move is a token and a star, e.g. `10 leo:3`",
                crate::text::excerpt(text.trim()),
            ),
        ));
    };
    let token: Token = match token.parse() {
        Ok(t) => t,
        Err(_) => {
            // The star first and the token second: say it the other way round.
            let hint = match (star.parse::<Token>(), token.parse::<StarLabel>()) {
                (Ok(t), Ok(l)) => format!("; did you mean `{t} {l}`?"),
                _ => crate::text::did_you_mean(token, Token::ALL.map(Token::name))
                    .map(|t| format!("; did you mean `{t}`?"))
                    .unwrap_or_default(),
            };
            return Err(RuleError::notation(
                "notation",
                format!(
                    "`{}` is not a token; tokens are {}{hint}",
                    crate::text::excerpt(token),
                    Token::names()
                ),
            ));
        }
    };
    let star: StarLabel = star.parse().map_err(|_| {
        RuleError::notation(
            "notation",
            format!(
                "`{}` is not a star; a star is written board:number, e.g. leo:3",
                crate::text::excerpt(star)
            ),
        )
    })?;
    let Some(board) = state.boards.iter().find(|b| b.id == star.board) else {
        let ids: Vec<&str> = state.boards.iter().map(|b| b.id.as_str()).collect();
        let hint = crate::text::did_you_mean(star.board.as_str(), ids.iter().copied())
            .map(|b| format!("; did you mean `{b}:{}`?", star.star))
            .unwrap_or_default();
        return Err(RuleError::notation(
            "no-such-board",
            format!(
                "there is no board `{}`; the boards are {}{hint}",
                star.board,
                ids.join(", ")
            ),
        ));
    };
    check_star(board, star.star).map_err(|e| RuleError::notation(e.rule, e.detail))?;
    Ok(Intent { token, star })
}

/// Refuses a star number the board does not have.
fn check_star(board: &Board, star: StarNo) -> Result<(), RuleError> {
    match board.star(star) {
        Some(_) => Ok(()),
        None => Err(RuleError::illegal(
            "no-such-star",
            format!(
                "board `{}` has stars 1 to {}; there is no star {star}",
                board.id,
                board.star_count()
            ),
        )),
    }
}
