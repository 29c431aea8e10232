//! What one seat (or a spectator) sees, and its text rendering.
//!
//! A face-down token's value appears only in the view of its owner, and only
//! when their program passes their secrets (`own`); the spectator view holds
//! no hidden value at all.

use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::Serialize;

use super::board::{BoardId, StarLabel, StarNo};
use super::scoring::{BoardScore, Doubling, Outcome, Payer, Tie, Why};
use super::token::Token;
use super::{Ending, Face, LastMove, Phase, Scored, Slot, State, tag};
use crate::games::{Own, Seat};

/// A seat's (or a spectator's) view of the game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct View {
    /// Whose view this is; None for a spectator. Seats are 0-based (see docs/json.md).
    pub viewer: Option<Seat>,
    pub doubling: Doubling,
    pub tie: Tie,
    /// One per seat, in seat (turn) order.
    pub seats: Vec<SeatView>,
    /// The viewer's own hand, when their secrets were given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hand: Option<Vec<Token>>,
    /// One per seat, as on the table.
    pub slots: Vec<SlotView>,
    /// Boards not dealt yet.
    pub stack: usize,
    /// Replacement boards requested and not drawn yet, oldest first.
    pub pending: Vec<PendingView>,
    pub turn: TurnView,
    /// Boards scored so far, oldest first.
    pub scored: Vec<Scored>,
    /// Why the game ended; null while it goes on.
    pub ended: Option<Ending>,
    /// The last placement or reveal; null before the first.
    pub last: Option<LastMove>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct SeatView {
    /// The seat, 0-based (see docs/json.md).
    pub seat: Seat,
    pub coins: i64,
    /// Tokens in hand.
    pub hand: u32,
    /// Tokens lying face down on the boards.
    pub face_down: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SlotStatus {
    /// A board being played.
    Open,
    /// A full board waiting for reveals before it is scored.
    Scoring,
    /// Cleared; the replacement board is a draw not resolved yet.
    Pending,
    /// Cleared, no board left.
    Empty,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct SlotView {
    pub slot: usize,
    pub status: SlotStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub board: Option<BoardView>,
    /// The pending draw that will fill (or refill) this slot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub draw: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct BoardView {
    pub id: BoardId,
    pub name: String,
    pub prizes: [u32; 2],
    pub free: usize,
    pub stars: Vec<StarView>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct StarView {
    pub label: StarLabel,
    pub large: bool,
    pub at: [u32; 2],
    pub neighbours: Vec<StarNo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub occupant: Option<Occupant>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Occupant {
    /// The seat whose token it is, 0-based (see docs/json.md).
    pub seat: Seat,
    pub face: Shown,
    /// Absent for a face-down token the viewer may not see.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<Token>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Shown {
    FaceUp,
    /// Placed face down, revealed for scoring.
    Revealed,
    FaceDown,
    /// The viewer's own face-down token: only they see its value.
    FaceDownOwn,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct PendingView {
    pub draw: u64,
    /// The seat whose move asked for it; the next entry by another seat
    /// resolves it. Seats are 0-based (see docs/json.md).
    pub causer: Seat,
    pub slot: usize,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum TurnView {
    /// This seat places a token.
    Move {
        /// The seat, 0-based (see docs/json.md).
        seat: Seat,
    },
    /// This seat reveals its face-down tokens on these stars.
    Reveal {
        /// The seat, 0-based (see docs/json.md).
        seat: Seat,
        stars: Vec<StarLabel>,
    },
    Over {
        ending: Ending,
    },
}

pub(super) fn build(state: &State, viewer: Option<Seat>, own: Option<&Own<Token>>) -> View {
    // Secrets count only for the viewer's own seat.
    let own = own.filter(|_| viewer.is_some());
    let seats = (0..state.seats())
        .map(|seat| SeatView {
            seat,
            coins: state.coins[seat],
            hand: state.hand_size(seat),
            face_down: state.face_down_count(seat),
        })
        .collect();
    let hand = match (viewer, own) {
        (Some(seat), Some(own)) => state.hand(seat, own).ok().map(|h| h.to_vec()),
        _ => None,
    };
    let slots = state
        .slots
        .iter()
        .enumerate()
        .map(|(i, slot)| {
            let board = slot.in_play().map(|b| {
                let def = state.board_of(b);
                BoardView {
                    id: def.id.clone(),
                    name: def.name.clone(),
                    prizes: def.prizes,
                    free: b.free(),
                    stars: def
                        .numbers()
                        .map(|no| {
                            let star = def.star(no).expect("numbered");
                            StarView {
                                label: def.label(no),
                                large: star.large,
                                at: star.at,
                                neighbours: def.neighbours(no),
                                occupant: b.stars[no as usize - 1].map(|p| {
                                    let (face, token) = match p.face {
                                        Face::Up(t) => (Shown::FaceUp, Some(t)),
                                        Face::Revealed(t) => (Shown::Revealed, Some(t)),
                                        Face::Down(r) => match own.and_then(|o| o.hidden.get(&r)) {
                                            Some(&t) if viewer == Some(p.seat) => {
                                                (Shown::FaceDownOwn, Some(t))
                                            }
                                            _ => (Shown::FaceDown, None),
                                        },
                                    };
                                    Occupant {
                                        seat: p.seat,
                                        face,
                                        token,
                                    }
                                }),
                            }
                        })
                        .collect(),
                }
            });
            let status = match slot {
                Slot::Open(_) => SlotStatus::Open,
                Slot::Scoring { .. } => SlotStatus::Scoring,
                Slot::Waiting { .. } => SlotStatus::Pending,
                Slot::Empty => SlotStatus::Empty,
            };
            SlotView {
                slot: i,
                status,
                board,
                draw: slot.event().map(|e| e.id),
            }
        })
        .collect();
    let pending = state
        .events()
        .into_iter()
        .map(|e| PendingView {
            draw: e.id,
            causer: e.causer,
            slot: state
                .slots
                .iter()
                .position(|s| s.event().is_some_and(|x| x.id == e.id))
                .expect("an event belongs to a slot"),
        })
        .collect();
    let turn = match state.phase {
        Phase::Move(seat) => TurnView::Move { seat },
        Phase::Scoring { slot, completer } => {
            let (seat, refs) = state
                .revealer(slot, completer)
                .expect("scoring waits for a reveal");
            TurnView::Reveal {
                seat,
                stars: state.face_down_stars(slot, &refs),
            }
        }
        Phase::Over(ending) => TurnView::Over { ending },
    };
    View {
        viewer,
        doubling: state.doubling,
        tie: state.tie,
        seats,
        hand,
        slots,
        stack: state.stack_len(),
        pending,
        turn,
        scored: state.scored.clone(),
        ended: state.ended(),
        last: state.last_move(),
    }
}

fn joined<T: ToString>(items: impl IntoIterator<Item = T>, sep: &str) -> String {
    items
        .into_iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(sep)
}

/// How the text names a seat: its player's name; with the seat number when
/// two players share a name; `seat N` when there is no name.
pub fn label(names: &[String], seat: Seat) -> String {
    match names.get(seat).map(|n| n.trim()) {
        Some(n) if !n.is_empty() => {
            if names.iter().filter(|m| m.trim() == n).count() > 1 {
                format!("{n} (seat {seat})")
            } else {
                n.to_string()
            }
        }
        _ => tag(seat),
    }
}

fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// Renders a view compactly; every star is labelled as moves name it.
/// Seats are named by `names` (safe to print; [`label`]).
pub(super) fn render(view: &View, names: &[String]) -> String {
    let mut out = String::new();
    let who = |seat: Seat| label(names, seat);
    let me = |seat: Seat| {
        if view.viewer == Some(seat) {
            format!("{} (you)", who(seat))
        } else {
            who(seat)
        }
    };
    let _ = writeln!(
        out,
        "Starry Sky · {} players · doubling {} · tie {}",
        view.seats.len(),
        view.doubling.name(),
        view.tie.name()
    );
    for s in &view.seats {
        let _ = writeln!(
            out,
            "{:<12} coins {:>3} · hand {} · face down {}",
            me(s.seat),
            s.coins,
            s.hand,
            s.face_down
        );
    }
    if let (Some(seat), Some(hand)) = (view.viewer, &view.hand) {
        let list = if hand.is_empty() {
            "empty".to_string()
        } else {
            joined(hand, " ")
        };
        let _ = writeln!(out, "Your hand ({}): {list}", who(seat));
    }
    for slot in &view.slots {
        let n = slot.slot + 1;
        match (&slot.board, slot.status) {
            (Some(b), status) => {
                let state = match status {
                    SlotStatus::Scoring => "being scored".to_string(),
                    _ => format!("{} of {} stars free", b.free, b.stars.len()),
                };
                let _ = writeln!(
                    out,
                    "Slot {n} · {} ({}) · prizes {}/{} · {state}",
                    b.name, b.id, b.prizes[0], b.prizes[1]
                );
                let width = b
                    .stars
                    .iter()
                    .map(|s| s.label.to_string().len())
                    .max()
                    .unwrap_or(0);
                for s in &b.stars {
                    let occupant = match s.occupant {
                        None => "free".to_string(),
                        Some(o) => match (o.face, o.token) {
                            (Shown::FaceDownOwn, Some(t)) => {
                                format!("{} {t} (face down, only you see it)", who(o.seat))
                            }
                            (Shown::Revealed, Some(t)) => format!("{} {t} (revealed)", who(o.seat)),
                            (_, Some(t)) => format!("{} {t}", who(o.seat)),
                            (_, None) => format!("{} face down", who(o.seat)),
                        },
                    };
                    let _ = writeln!(
                        out,
                        "  {:<width$}  {}  neighbours {:<12} {occupant}",
                        s.label.to_string(),
                        if s.large { "large" } else { "small" },
                        if s.neighbours.is_empty() {
                            "-".to_string()
                        } else {
                            joined(&s.neighbours, ",")
                        },
                    );
                }
            }
            (None, SlotStatus::Pending) => {
                let who = view
                    .pending
                    .iter()
                    .find(|p| p.slot == slot.slot)
                    .map(|p| format!(" (caused by {})", who(p.causer)))
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    "Slot {n} · new board pending: draw {}{who}; nothing can be played here until it is drawn",
                    slot.draw.unwrap_or_default()
                );
            }
            (None, _) => {
                let _ = writeln!(out, "Slot {n} · empty (no boards left)");
            }
        }
    }
    let _ = writeln!(out, "Boards left in the stack: {}", view.stack);
    if !view.scored.is_empty() {
        let _ = writeln!(out, "Scored:");
    }
    for s in &view.scored {
        let _ = writeln!(
            out,
            "  {} ({}), completed by {}: {}",
            s.name,
            s.board,
            who(s.completer),
            outcome_text(&s.score.outcome, &who)
        );
        render_score(&mut out, s.board.as_str(), &s.score, &who);
    }
    if let Some(last) = last_text(view, &me) {
        let _ = writeln!(out, "{last}");
    }
    let _ = match &view.turn {
        TurnView::Move { seat } => writeln!(
            out,
            "Turn: {} places a token (e.g. `{}`)",
            me(*seat),
            example_move(view, *seat)
        ),
        TurnView::Reveal { seat, stars } => writeln!(
            out,
            "Turn: {} must reveal their face-down tokens on {}",
            me(*seat),
            joined(stars, ", ")
        ),
        TurnView::Over { ending } => match ending {
            Ending::AllBoardsScored => writeln!(out, "Game over: every board has been scored."),
            Ending::Stalled => writeln!(
                out,
                "Game over: stalled — nobody can place a token and no board can be completed; coins stand as they are."
            ),
            Ending::Withdrawn { seat, how } => writeln!(
                out,
                "Game over: {} {}.",
                me(*seat),
                match how {
                    crate::games::Withdrawal::Resigned => "resigned",
                    crate::games::Withdrawal::Abandoned => "stopped answering (abandoned)",
                }
            ),
        },
    };
    out
}

/// The stars the last move placed a token on or revealed, as the view
/// holds them.
pub(super) fn last_stars(view: &View) -> &[StarLabel] {
    match &view.last {
        Some(LastMove::Place { star, .. }) => std::slice::from_ref(star),
        Some(LastMove::Reveal { stars, .. }) => stars,
        None => &[],
    }
}

/// Whether `star`'s board is on the table (being played or scored).
pub(super) fn on_table(view: &View, star: &StarLabel) -> bool {
    view.slots
        .iter()
        .any(|s| s.board.as_ref().is_some_and(|b| b.id == star.board))
}

/// The `Last move:` line of the text view and the picture, seats named by
/// `who`: where the last token went (its value only when it lies face up),
/// or which tokens were revealed; said when their board has been scored and
/// left the table since.
pub(super) fn last_text(view: &View, who: &dyn Fn(Seat) -> String) -> Option<String> {
    let what = match view.last.as_ref()? {
        LastMove::Place {
            seat,
            star,
            token: Some(t),
        } => format!("{} placed {t} on {star}", who(*seat)),
        LastMove::Place {
            seat,
            star,
            token: None,
        } => format!("{} placed a token face down on {star}", who(*seat)),
        LastMove::Reveal { seat, stars } => {
            format!("{} revealed {}", who(*seat), joined(stars, ", "))
        }
    };
    let stars = last_stars(view);
    let gone = if !stars.is_empty() && !stars.iter().any(|l| on_table(view, l)) {
        " (that board has been scored)"
    } else {
        ""
    };
    Some(format!("Last move: {what}{gone}."))
}

/// A move in the notation, from the mover's own hand when it is their view
/// (the text view's hint, and the picture's).
pub(super) fn example_move(view: &View, mover: Seat) -> String {
    let token = match (&view.hand, view.viewer) {
        (Some(hand), Some(v)) if v == mover => hand.last().copied().unwrap_or(Token::Ten),
        _ => Token::Ten,
    };
    let star = view
        .slots
        .iter()
        .filter(|s| s.status == SlotStatus::Open)
        .filter_map(|s| s.board.as_ref())
        .flat_map(|b| b.stars.iter())
        .find(|s| s.occupant.is_none())
        .map(|s| s.label.to_string())
        .unwrap_or_else(|| "leo:3".to_string());
    format!("{token} {star}")
}

/// One line saying how the prizes went.
pub(super) fn outcome_text(outcome: &Outcome, who: &dyn Fn(Seat) -> String) -> String {
    match outcome {
        Outcome::Nobody => "everything swallowed, nobody paid".to_string(),
        Outcome::Alone(seat) => format!("{} alone, both prizes", who(*seat)),
        Outcome::TieForFirst(seats) => format!(
            "tie for first ({}), no prizes",
            joined(seats.iter().map(|&s| who(s)), ", ")
        ),
        Outcome::TieForSecond { first, tied } => format!(
            "{} first; tie for second ({}), no second prize",
            who(*first),
            joined(tied.iter().map(|&s| who(s)), ", ")
        ),
        Outcome::Ranked { first, second } => {
            format!("{} first, {} second", who(*first), who(*second))
        }
    }
}

/// The removals, each seat's result and who paid whom, indented under a
/// board's heading (used by the view's history and by the referee).
pub(super) fn render_score(
    out: &mut String,
    board: &str,
    score: &BoardScore,
    who: &dyn Fn(Seat) -> String,
) {
    if !score.removed.is_empty() {
        let removed = score.removed.iter().map(|r| {
            let why = match r.why {
                Why::BlackHolePair => "black holes joined".to_string(),
                Why::Swallowed(by) => format!("swallowed by {board}:{by}"),
            };
            format!("{board}:{} {} {} ({why})", r.star, who(r.seat), r.token)
        });
        let _ = writeln!(out, "    removed: {}", joined(removed, "; "));
    }
    let seats: Vec<String> = score
        .seats
        .iter()
        .filter(|x| x.place.is_some() || x.coins != 0)
        .map(|x| {
            let place = x
                .place
                .map(|p| format!(", {}", ordinal(p)))
                .unwrap_or_default();
            format!(
                "{} {}, {} left{place}: {}",
                who(x.seat),
                crate::text::count(x.total, "point", "points"),
                x.tokens_left,
                crate::text::count(format!("{:+}", x.coins), "coin", "coins")
            )
        })
        .collect();
    if !seats.is_empty() {
        let _ = writeln!(out, "    {}", seats.join("; "));
    }
    let by_first: Vec<String> = score
        .payments
        .iter()
        .filter_map(|p| match p.from {
            Payer::Seat(from) => Some(format!("{} paid {} {}", who(from), who(p.to), p.coins)),
            Payer::Reserve => None,
        })
        .collect();
    if !by_first.is_empty() {
        let _ = writeln!(out, "    {}", by_first.join("; "));
    }
}
