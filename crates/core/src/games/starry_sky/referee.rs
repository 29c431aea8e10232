//! The offline referee: scores one board given as JSON, with no log and no
//! keys (`starry rules score`). Input:
//!
//! ```json
//! {"board": "leo",
//!  "tokens": [{"star": 3, "seat": 0, "token": "10"}, {"star": 4, "seat": 1, "token": "bh"}],
//!  "doubling": "additive", "tie": "coins", "purses": [0, 0, 0]}
//! ```
//!
//! `board` is a shipped board's id or a whole board object (as in a board
//! file). `doubling` and `tie` default to `additive` and `coins`. Seats are
//! numbered from 0; there are as many as `purses` has entries, or else the
//! highest seat named plus one. `purses` (the coins each seat holds before
//! this board) matter only when first place pays third and below; they
//! default to 0. The board need not be full: empty stars simply hold
//! nothing.
//!
//! # Limits
//!
//! The input may come from anyone, so every count and number in it is
//! bounded; anything outside is refused with an error that names the field
//! and says what is allowed, rather than exhausting memory or overflowing:
//!
//! - the whole position: at most 1 MiB ([`MAX_POSITION_BYTES`]);
//! - seats: 1 to 5 ([`MAX_SEATS`]; Starry Sky is played by 3 to 5, and a
//!   position may use fewer, e.g. to try out a board), so a token's `seat`
//!   is 0 to 4, and `purses`, if given, has one entry per seat: 1 to 5;
//! - `tokens`: at most one per star of the board, so never more than the
//!   board's stars (at most 10); each `star` is one of the board's (1 to its
//!   number of stars) and holds at most one token; no seat has more of a
//!   token than a set holds;
//! - `purses`: each 0 to 10^12 coins ([`MAX_PURSE`]), far more than any
//!   game pays out, and small enough that no sum of coins can overflow;
//! - a board object: as in a board file (2 to 10 stars, coordinates 0 to
//!   100, prizes `[first, second]` with first ≥ second, each below 2^32).
//!
//! Scoring itself is checked arithmetic throughout
//! ([`scoring::checked_score_board`]): a result that would not fit a 64-bit
//! integer is an error, never a wrapped number or a panic. Errors quote the
//! input only as a short, escaped excerpt ([`crate::text::excerpt`]).

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::board::{self, Board, BoardId, StarNo};
use super::scoring::{self, BoardScore, Doubling, Placed, Tie};
use super::token::{Token, Tokens};
use crate::games::{RuleError, Rules, Seat};
use crate::text::{excerpt, excerpt_of, inline};

/// Largest position accepted, in bytes.
pub const MAX_POSITION_BYTES: usize = 1 << 20;
/// Most seats a position may have: as many as Starry Sky has players at most.
pub const MAX_SEATS: usize = *<super::StarrySky as Rules>::SEATS.end();
/// Most coins a purse may hold before the board (10^12).
pub const MAX_PURSE: i64 = 1_000_000_000_000;
/// Longest error detail, in characters: a backstop; quotes of the input are
/// already excerpts.
const MAX_DETAIL_CHARS: usize = 300;

/// A board to score: a shipped board's id, or a whole board.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum BoardSpec {
    Id(BoardId),
    Board(Board),
}

// By hand rather than `untagged`, so that a mistyped board object gets the
// board's own error (which field is wrong) instead of "matches no variant".
impl<'de> Deserialize<'de> for BoardSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let value = serde_json::Value::deserialize(d)?;
        if value.is_string() {
            BoardId::deserialize(value)
                .map(BoardSpec::Id)
                .map_err(D::Error::custom)
        } else {
            Board::deserialize(value)
                .map(BoardSpec::Board)
                .map_err(D::Error::custom)
        }
    }
}

/// One token of the position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PositionToken {
    pub star: StarNo,
    /// The seat, 0-based (see docs/json.md).
    pub seat: Seat,
    pub token: Token,
}

/// A board with tokens on it, to be scored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Position {
    pub board: BoardSpec,
    pub tokens: Vec<PositionToken>,
    #[serde(default)]
    pub doubling: Doubling,
    #[serde(default)]
    pub tie: Tie,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub purses: Option<Vec<i64>>,
}

/// The referee's answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct RefereeReport {
    pub board: BoardId,
    pub seats: usize,
    /// Whether every star held a token.
    pub complete: bool,
    pub score: BoardScore,
    /// Each seat's purse after this board.
    pub purses: Vec<i64>,
}

fn bad(rule: &'static str, detail: impl Into<String>) -> RuleError {
    RuleError::bad_setup(rule, detail)
}

/// A message written by other code (serde, the board checks) that may quote
/// the input, made safe to show: every quoted part (between backticks or
/// double quotes) cut to an [`excerpt`], every unsafe character escaped
/// ([`inline`]), and the whole cut to [`MAX_DETAIL_CHARS`].
pub fn tame(message: &str) -> String {
    let mut out = String::new();
    let mut rest = message;
    while let Some(open) = rest.find(['`', '"']) {
        let quote = rest.as_bytes()[open] as char;
        out.push_str(&rest[..=open]);
        let inner = &rest[open + 1..];
        // A double-quoted string is Rust's debug form: `\"` does not close it.
        let mut escaped = false;
        let close = inner.char_indices().find_map(|(i, c)| {
            let found = c == quote && !escaped;
            escaped = quote == '"' && c == '\\' && !escaped;
            found.then_some(i)
        });
        match close {
            Some(close) => {
                out.push_str(&excerpt(&inner[..close]));
                out.push(quote);
                rest = &inner[close + 1..];
            }
            None => {
                out.push_str(&excerpt(inner));
                rest = "";
            }
        }
    }
    out.push_str(rest);
    excerpt_of(&inline(&out), MAX_DETAIL_CHARS)
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "true or false",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn seat_error(i: usize, seat: &str) -> RuleError {
    bad(
        "position-seat",
        format!(
            "tokens[{i}].seat is {}; a seat is a whole number from 0 to {} (a position has at most {MAX_SEATS} seats)",
            excerpt(seat),
            MAX_SEATS - 1
        ),
    )
}

fn star_error(i: usize, star: &str, board: Option<&Board>) -> RuleError {
    let allowed = match board {
        Some(b) => format!(
            "board `{}` has stars 1 to {} only",
            excerpt(b.id.as_str()),
            b.star_count()
        ),
        None => format!(
            "a star is a whole number from 1 to at most {}",
            board::MAX_STARS
        ),
    };
    bad(
        "position-star",
        format!("tokens[{i}].star is {}, but {allowed}", excerpt(star)),
    )
}

fn purse_error(i: usize, purse: &str) -> RuleError {
    bad(
        "position-purses",
        format!(
            "purses[{i}] (seat {i}) holds {} coins; a purse holds a whole number of coins from 0 to {MAX_PURSE} (10^12)",
            excerpt(purse)
        ),
    )
}

fn too_many_tokens(count: usize, board: Option<&Board>) -> RuleError {
    let allowed = match board {
        Some(b) => format!(
            "board `{}` has {} stars and a star holds at most one token",
            excerpt(b.id.as_str()),
            b.star_count()
        ),
        None => format!(
            "a board has at most {} stars and a star holds at most one token",
            board::MAX_STARS
        ),
    };
    bad(
        "position-tokens",
        format!("tokens has {count} entries; {allowed}"),
    )
}

fn purses_count_error(count: usize) -> RuleError {
    bad(
        "position-purses",
        format!(
            "purses has {count} entries; it must have one per seat, and a position has 1 to {MAX_SEATS} seats"
        ),
    )
}

/// Scores a position given as JSON (see the module docs).
pub fn score_position(json: &str) -> Result<RefereeReport, RuleError> {
    if json.len() > MAX_POSITION_BYTES {
        return Err(bad(
            "position-size",
            format!(
                "the position is {} bytes long; at most {MAX_POSITION_BYTES} bytes (1 MiB) are allowed",
                json.len()
            ),
        ));
    }
    let position: Position = serde_json::from_str(json).map_err(|e| not_valid(json, &e))?;
    score(&position)
}

/// The error for a position that does not parse: a field-by-field one when
/// a number is out of range (serde would only say "expected u8"), serde's
/// own message made safe otherwise.
fn not_valid(json: &str, e: &serde_json::Error) -> RuleError {
    if e.is_data()
        && let Ok(value) = serde_json::from_str::<Value>(json)
        && let Err(better) = check_shape(&value)
    {
        return better;
    }
    let what = if e.is_data() {
        "is not valid"
    } else {
        "is not valid JSON"
    };
    bad(
        "position",
        format!("the position {what}: {}", tame(&e.to_string())),
    )
}

/// Checks the counts and numbers of a position that did not parse as a
/// [`Position`], to name the field that is wrong.
fn check_shape(value: &Value) -> Result<(), RuleError> {
    let Some(fields) = value.as_object() else {
        return Err(bad(
            "position",
            format!(
                "the position must be a JSON object such as {{\"board\": \"leo\", \"tokens\": []}}; it is {}",
                kind_of(value)
            ),
        ));
    };
    if let Some(tokens) = fields.get("tokens").and_then(Value::as_array) {
        if tokens.len() > board::MAX_STARS {
            return Err(too_many_tokens(tokens.len(), None));
        }
        for (i, t) in tokens.iter().enumerate() {
            if let Some(Value::Number(n)) = t.get("seat")
                && n.as_u64().is_none_or(|s| s >= MAX_SEATS as u64)
            {
                return Err(seat_error(i, &n.to_string()));
            }
            if let Some(Value::Number(n)) = t.get("star")
                && !n
                    .as_u64()
                    .is_some_and(|s| (1..=board::MAX_STARS as u64).contains(&s))
            {
                return Err(star_error(i, &n.to_string(), None));
            }
        }
    }
    if let Some(purses) = fields.get("purses").and_then(Value::as_array) {
        if purses.is_empty() || purses.len() > MAX_SEATS {
            return Err(purses_count_error(purses.len()));
        }
        for (i, p) in purses.iter().enumerate() {
            if let Value::Number(n) = p
                && !n.as_i64().is_some_and(|c| (0..=MAX_PURSE).contains(&c))
            {
                return Err(purse_error(i, &n.to_string()));
            }
        }
    }
    Ok(())
}

fn find_board(spec: &BoardSpec) -> Result<Board, RuleError> {
    match spec {
        BoardSpec::Board(b) => {
            b.validate().map_err(|e| RuleError {
                detail: tame(&e.detail),
                ..e
            })?;
            Ok(b.clone())
        }
        BoardSpec::Id(id) => {
            let all = board::default_boards();
            let ids: Vec<String> = all.iter().map(|b| b.id.to_string()).collect();
            all.into_iter().find(|b| &b.id == id).ok_or_else(|| {
                bad(
                    "position-board",
                    format!(
                        "there is no shipped board `{}`; they are {}",
                        excerpt(id.as_str()),
                        ids.join(", ")
                    ),
                )
            })
        }
    }
}

/// Scores a parsed position, within the limits of the module docs.
pub fn score(position: &Position) -> Result<RefereeReport, RuleError> {
    let board = find_board(&position.board)?;
    let tokens = &position.tokens;
    if tokens.len() > board.star_count() {
        return Err(too_many_tokens(tokens.len(), Some(&board)));
    }
    for (i, t) in tokens.iter().enumerate() {
        if t.seat >= MAX_SEATS {
            return Err(seat_error(i, &t.seat.to_string()));
        }
        if board.star(t.star).is_none() {
            return Err(star_error(i, &t.star.to_string(), Some(&board)));
        }
    }
    let seats = match &position.purses {
        Some(p) if p.is_empty() || p.len() > MAX_SEATS => {
            return Err(purses_count_error(p.len()));
        }
        Some(p) => p.len(),
        // Every seat is below MAX_SEATS: no overflow.
        None => tokens.iter().map(|t| t.seat + 1).max().unwrap_or(0),
    };
    if seats == 0 {
        return Err(bad(
            "position-seat",
            format!(
                "the position has no seats: give `purses`, one per seat, or name at least one seat in `tokens` (1 to {MAX_SEATS} seats)"
            ),
        ));
    }
    let purses = position.purses.clone().unwrap_or_else(|| vec![0; seats]);
    if let Some((seat, p)) = purses
        .iter()
        .enumerate()
        .find(|(_, p)| !(0..=MAX_PURSE).contains(*p))
    {
        return Err(purse_error(seat, &p.to_string()));
    }
    // Which token (by index) is on each star.
    let mut taken: Vec<Option<usize>> = vec![None; board.star_count() + 1];
    let mut sets = vec![Tokens::default(); seats];
    for (i, t) in tokens.iter().enumerate() {
        if let Some(j) = taken[t.star as usize].replace(i) {
            return Err(bad(
                "position-star",
                format!(
                    "tokens[{i}].star is {}, but tokens[{j}] is on that star already; each star holds at most one token",
                    t.star
                ),
            ));
        }
        if t.seat >= seats {
            return Err(bad(
                "position-seat",
                format!(
                    "tokens[{i}].seat is {}, but purses lists only {seats} seats, numbered 0 to {}",
                    t.seat,
                    seats - 1
                ),
            ));
        }
        sets[t.seat].add(t.token);
        if let Some(x) = sets[t.seat].excess() {
            return Err(bad(
                "position-tokens",
                format!(
                    "tokens[{i}]: seat {} has more `{x}` than a set holds ({})",
                    t.seat,
                    x.in_set()
                ),
            ));
        }
    }
    let placed: Vec<Placed> = tokens
        .iter()
        .map(|t| Placed {
            star: t.star,
            seat: t.seat,
            token: t.token,
        })
        .collect();
    let score =
        scoring::checked_score_board(&board, &placed, position.doubling, position.tie, &purses)?;
    let after = purses_after(&purses, &score)?;
    Ok(RefereeReport {
        board: board.id.clone(),
        seats,
        complete: tokens.len() == board.star_count(),
        score,
        purses: after,
    })
}

/// Each purse plus what its seat won or paid on the board, checked.
fn purses_after(purses: &[i64], score: &BoardScore) -> Result<Vec<i64>, RuleError> {
    purses
        .iter()
        .zip(&score.seats)
        .map(|(p, s)| {
            p.checked_add(s.coins).ok_or_else(|| {
                bad(
                    "score-overflow",
                    format!(
                        "seat {}: a purse of {p} coins plus {} coins from this board does not fit in a 64-bit integer",
                        s.seat, s.coins
                    ),
                )
            })
        })
        .collect()
}

/// The referee's answer for a terminal.
pub fn render_text(r: &RefereeReport) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} with {} seat{}{}: {}",
        r.board,
        r.seats,
        if r.seats == 1 { "" } else { "s" },
        if r.complete { "" } else { " (not full)" },
        super::view::outcome_text(&r.score.outcome, &super::tag)
    );
    super::view::render_score(&mut out, r.board.as_str(), &r.score, &super::tag);
    let purses: Vec<String> = r
        .purses
        .iter()
        .enumerate()
        .map(|(s, c)| format!("{} {c}", super::tag(s)))
        .collect();
    let _ = write!(out, "Purses after this board: {}", purses.join(", "));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::RuleErrorKind;

    #[test]
    fn scores_a_shipped_board_by_id() {
        // aries is the path 1-2-3-4-5, prizes 5/3. Seats 0, 1, 2.
        // Seat 0: 10 on 1 = 10. Seat 1: 7 on 3 next to seat 2's ds on 4 = 14.
        // Seat 2: the ds alone = 0 with 1 token.
        // Seat 1 first +5, pays seat 2 1 coin → +4; seat 0 second +3; seat 2 +1.
        let r = score_position(
            r#"{"board":"aries","tokens":[
                {"star":1,"seat":0,"token":"10"},
                {"star":3,"seat":1,"token":"7"},
                {"star":4,"seat":2,"token":"ds"}]}"#,
        )
        .unwrap();
        assert_eq!(r.seats, 3);
        assert!(!r.complete);
        assert_eq!(
            r.score.seats.iter().map(|s| s.total).collect::<Vec<_>>(),
            [10, 14, 0]
        );
        assert_eq!(r.purses, [3, 4, 1]);
    }

    #[test]
    fn refuses_bad_positions() {
        let cases = [
            (r#"{"board":"ophiuchus","tokens":[]}"#, "position-board"),
            (r#"{"board":"aries","tokens":[],"colour":1}"#, "position"),
            (
                r#"{"board":"aries","tokens":[{"star":6,"seat":0,"token":"1"}]}"#,
                "position-star",
            ),
            (
                r#"{"board":"aries","tokens":[{"star":1,"seat":0,"token":"1"},{"star":1,"seat":1,"token":"3"}]}"#,
                "position-star",
            ),
            (
                r#"{"board":"aries","tokens":[{"star":1,"seat":3,"token":"1"}],"purses":[0,0,0]}"#,
                "position-seat",
            ),
            (
                r#"{"board":"aries","tokens":[{"star":1,"seat":0,"token":"bh"},{"star":2,"seat":0,"token":"bh"}]}"#,
                "position-tokens",
            ),
            (
                r#"{"board":"aries","tokens":[],"purses":[0,-1,0]}"#,
                "position-purses",
            ),
            (
                r#"{"board":{"id":"x","name":"X","prizes":[1,2],"stars":[{"large":true,"at":[0,0]},{"large":true,"at":[0,0]}],"lines":[]},"tokens":[]}"#,
                "board-prizes",
            ),
        ];
        for (json, rule) in cases {
            let e = score_position(json).expect_err(json);
            assert_eq!(e.rule, rule, "{json}: {e}");
            assert_eq!(e.kind, RuleErrorKind::BadSetup);
        }
        let e = score_position(r#"{"board":{"id":"x","name":"X","prizes":[2,1],"stars":[],"lines":[],"extra":0},"tokens":[]}"#)
            .unwrap_err();
        assert!(e.detail.contains("unknown field `extra`"), "{e}");
    }

    /// A position on aries (5 stars in a row, prizes 5/3).
    fn aries(tokens: &[(StarNo, Seat, Token)], purses: Option<Vec<i64>>) -> Position {
        Position {
            board: BoardSpec::Id(BoardId::try_from("aries".to_string()).unwrap()),
            tokens: tokens
                .iter()
                .map(|&(star, seat, token)| PositionToken { star, seat, token })
                .collect(),
            doubling: Doubling::Additive,
            tie: Tie::Coins,
            purses,
        }
    }

    /// A board of `n` stars in a row with the given prizes, unvalidated.
    fn path(n: usize, prizes: [u32; 2]) -> Board {
        Board {
            id: BoardId::try_from("p".to_string()).unwrap(),
            name: "P".into(),
            prizes,
            stars: vec![
                board::Star {
                    large: false,
                    at: [0, 0]
                };
                n
            ],
            lines: (1..n as StarNo).map(|i| [i, i + 1]).collect(),
        }
    }

    fn rule_of(r: Result<RefereeReport, RuleError>) -> &'static str {
        r.expect_err("must be refused").rule
    }

    #[test]
    fn doubling_is_checked() {
        assert_eq!(Doubling::Additive.checked_apply(5, 3), Some(30));
        assert_eq!(Doubling::Compound.checked_apply(5, 3), Some(40));
        assert_eq!(Doubling::Compound.checked_apply(10, 9), Some(5120));
        assert_eq!(
            Doubling::Additive.checked_apply(i64::MAX / 2, 1),
            Some(i64::MAX - 1)
        );
        assert_eq!(Doubling::Additive.checked_apply(i64::MAX / 2 + 1, 1), None);
        assert_eq!(Doubling::Additive.checked_apply(i64::MAX, 4), None);
        assert_eq!(Doubling::Compound.checked_apply(1, 62), Some(1 << 62));
        // 2^63 does not fit, even though `1 << 63` would not panic.
        assert_eq!(Doubling::Compound.checked_apply(1, 63), None);
        assert_eq!(Doubling::Compound.checked_apply(1, 64), None);
        assert_eq!(Doubling::Compound.checked_apply(3, 62), None);
        assert_eq!(Doubling::Compound.checked_apply(i64::MAX, u32::MAX), None);
    }

    #[test]
    fn scoring_overflow_is_an_error_not_a_panic() {
        let b = path(5, [u32::MAX, u32::MAX]);
        let placed = [
            Placed {
                star: 1,
                seat: 0,
                token: Token::Ten,
            },
            Placed {
                star: 3,
                seat: 1,
                token: Token::Seven,
            },
            Placed {
                star: 5,
                seat: 2,
                token: Token::One,
            },
        ];
        // Seat 0 is first and pays seat 2 out of a purse that, with its
        // prize, no longer fits an i64.
        let e = scoring::checked_score_board(
            &b,
            &placed,
            Doubling::Additive,
            Tie::Coins,
            &[i64::MAX, 0, 0],
        )
        .unwrap_err();
        assert_eq!(e.rule, "score-overflow", "{e}");
        // The largest purses the referee allows score fine, with the largest
        // prizes a board can have.
        let r = scoring::checked_score_board(
            &b,
            &placed,
            Doubling::Compound,
            Tie::Coins,
            &[MAX_PURSE; 3],
        )
        .unwrap();
        let coins: Vec<i64> = r.seats.iter().map(|s| s.coins).collect();
        assert_eq!(coins, [i64::from(u32::MAX) - 1, i64::from(u32::MAX), 1]);
        // The purse after the board is checked too.
        let e = purses_after(&[i64::MAX, 0, 0], &r).unwrap_err();
        assert_eq!(e.rule, "score-overflow", "{e}");
        assert_eq!(
            purses_after(&[MAX_PURSE; 3], &r).unwrap(),
            [
                MAX_PURSE + i64::from(u32::MAX) - 1,
                MAX_PURSE + i64::from(u32::MAX),
                MAX_PURSE + 1
            ]
        );
    }

    #[test]
    fn checked_scoring_refuses_what_it_cannot_score() {
        let b = path(3, [2, 1]);
        let at = |star, seat| Placed {
            star,
            seat,
            token: Token::One,
        };
        for placed in [
            vec![at(4, 0)],
            vec![at(0, 0)],
            vec![at(1, 3)],
            vec![at(1, 0), at(1, 1)],
        ] {
            let e =
                scoring::checked_score_board(&b, &placed, Doubling::Additive, Tie::Coins, &[0; 3])
                    .unwrap_err();
            assert_eq!(e.rule, "score-input", "{placed:?}: {e}");
        }
        // A line to a star the board lacks is ignored, not followed.
        let mut b = path(2, [2, 1]);
        b.lines.push([2, 200]);
        assert!(
            scoring::checked_score_board(&b, &[at(2, 0)], Doubling::Additive, Tie::Coins, &[0])
                .is_ok()
        );
    }

    #[test]
    fn counts_from_the_input_are_bounded() {
        // A seat number that would overflow `seat + 1` or allocate a purse
        // per seat up to it.
        let p = aries(&[(1, usize::MAX, Token::One)], None);
        assert_eq!(rule_of(score(&p)), "position-seat");
        let p = aries(&[(1, 5, Token::One)], None);
        let e = score(&p).unwrap_err();
        assert!(e.detail.contains("0 to 4"), "{e}");
        assert!(score(&aries(&[(1, 4, Token::One)], None)).is_ok());
        // Purses: one per seat, 1 to 5 of them, each 0 to 10^12.
        assert_eq!(
            rule_of(score(&aries(&[], Some(vec![0; 6])))),
            "position-purses"
        );
        assert_eq!(
            rule_of(score(&aries(&[], Some(vec![0; 1_000_000])))),
            "position-purses"
        );
        assert_eq!(rule_of(score(&aries(&[], Some(vec![])))), "position-purses");
        assert_eq!(
            rule_of(score(&aries(
                &[(1, 0, Token::Ten)],
                Some(vec![i64::MAX, 0, 0])
            ))),
            "position-purses"
        );
        assert_eq!(
            rule_of(score(&aries(&[], Some(vec![0, MAX_PURSE + 1])))),
            "position-purses"
        );
        assert!(score(&aries(&[], Some(vec![MAX_PURSE; 5]))).is_ok());
        // No seat at all.
        assert_eq!(rule_of(score(&aries(&[], None))), "position-seat");
        // More tokens than stars.
        let many: Vec<_> = (0..6).map(|i| (1 + i % 5, 0, Token::One)).collect();
        assert_eq!(rule_of(score(&aries(&many, None))), "position-tokens");
    }

    #[test]
    fn numbers_out_of_range_name_their_field() {
        for (json, field) in [
            (
                r#"{"board":"aries","tokens":[{"star":1,"seat":18446744073709551615,"token":"1"}]}"#,
                "tokens[0].seat",
            ),
            (
                r#"{"board":"aries","tokens":[{"star":1,"seat":0,"token":"1"},{"star":2,"seat":-1,"token":"1"}]}"#,
                "tokens[1].seat",
            ),
            (
                r#"{"board":"aries","tokens":[{"star":300,"seat":0,"token":"1"}]}"#,
                "tokens[0].star",
            ),
            (
                r#"{"board":"aries","tokens":[],"purses":[0,9223372036854775808]}"#,
                "purses[1]",
            ),
            (
                r#"{"board":"aries","tokens":[],"purses":[1e300]}"#,
                "purses[0]",
            ),
            (
                r#"{"board":"aries","tokens":[],"purses":[0,0,0,0,0,0,0]}"#,
                "purses has 7",
            ),
        ] {
            let e = score_position(json).expect_err(json);
            assert!(e.detail.contains(field), "{json}: {e}");
        }
    }

    #[test]
    fn errors_quote_the_input_short_and_escaped() {
        let long = format!("\\u001b[2J{}", "x".repeat(10_000));
        for json in [
            format!(r#"{{"board":"aries","tokens":[],"{long}":1}}"#),
            format!(r#"{{"board":"aries","tokens":[],"doubling":"{long}"}}"#),
            format!(r#"{{"board":"{long}","tokens":[]}}"#),
            format!(r#"{{"board":"aries","tokens":[{{"star":"{long}","seat":0,"token":"1"}}]}}"#),
            format!(
                r#"{{"board":{{"id":"{}","name":"X","prizes":[1,2],"stars":[],"lines":[]}},"tokens":[]}}"#,
                "a".repeat(10_000)
            ),
        ] {
            let e = score_position(&json).expect_err(&json).to_string();
            assert!(e.len() < 400, "{} bytes: {e}", e.len());
            assert!(!e.chars().any(crate::text::is_unsafe), "{e:?}");
        }
        let e = score_position(&"[".repeat(MAX_POSITION_BYTES + 1)).unwrap_err();
        assert_eq!(e.rule, "position-size");
    }

    #[test]
    fn tame_keeps_short_quotes_and_cuts_long_ones() {
        assert_eq!(
            tame("unknown field `extra`, expected `id`"),
            "unknown field `extra`, expected `id`"
        );
        assert_eq!(
            tame(r#"invalid type: string "a\"b", expected u8"#),
            r#"invalid type: string "a\"b", expected u8"#
        );
        let t = tame(&format!(
            "unknown field `{}`, expected `id`",
            "y".repeat(5000)
        ));
        assert!(t.len() < 200 && t.ends_with(", expected `id`"), "{t}");
        let t = tame("a `\u{1b}[2J` b \u{7} `unclosed \u{9b}");
        assert!(!t.chars().any(crate::text::is_unsafe), "{t}");
    }
}
