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

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

use super::board::{self, Board, BoardId, StarNo};
use super::scoring::{self, BoardScore, Doubling, Placed, Tie};
use super::token::{Token, Tokens};
use crate::games::{RuleError, Seat};

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

/// Scores a position given as JSON (see the module docs).
pub fn score_position(json: &str) -> Result<RefereeReport, RuleError> {
    let position: Position = serde_json::from_str(json)
        .map_err(|e| bad("position", format!("the position is not valid: {e}")))?;
    score(&position)
}

/// Scores a parsed position.
pub fn score(position: &Position) -> Result<RefereeReport, RuleError> {
    let board = match &position.board {
        BoardSpec::Board(b) => {
            b.validate()?;
            b.clone()
        }
        BoardSpec::Id(id) => {
            let all = board::default_boards();
            let ids: Vec<String> = all.iter().map(|b| b.id.to_string()).collect();
            all.into_iter().find(|b| &b.id == id).ok_or_else(|| {
                bad(
                    "position-board",
                    format!(
                        "there is no shipped board `{id}`; they are {}",
                        ids.join(", ")
                    ),
                )
            })?
        }
    };
    let seats = match &position.purses {
        Some(p) => p.len(),
        None => position
            .tokens
            .iter()
            .map(|t| t.seat + 1)
            .max()
            .unwrap_or(0),
    };
    let purses = position.purses.clone().unwrap_or_else(|| vec![0; seats]);
    if let Some((seat, p)) = purses.iter().enumerate().find(|(_, p)| **p < 0) {
        return Err(bad(
            "position-purses",
            format!("purses: seat {seat} holds {p} coins; a purse is never below 0"),
        ));
    }
    let mut taken = vec![false; board.star_count() + 1];
    let mut sets = vec![Tokens::default(); seats];
    for t in &position.tokens {
        if board.star(t.star).is_none() {
            return Err(bad(
                "position-star",
                format!(
                    "tokens: board `{}` has stars 1 to {}; there is no star {}",
                    board.id,
                    board.star_count(),
                    t.star
                ),
            ));
        }
        if std::mem::replace(&mut taken[t.star as usize], true) {
            return Err(bad(
                "position-star",
                format!("tokens: star {} holds two tokens", t.star),
            ));
        }
        if t.seat >= seats {
            return Err(bad(
                "position-seat",
                format!(
                    "tokens: seat {} is named, but purses lists only {seats} seats",
                    t.seat
                ),
            ));
        }
        sets[t.seat].add(t.token);
        if let Some(x) = sets[t.seat].excess() {
            return Err(bad(
                "position-tokens",
                format!(
                    "tokens: seat {} has more `{x}` than a set holds ({})",
                    t.seat,
                    x.in_set()
                ),
            ));
        }
    }
    let placed: Vec<Placed> = position
        .tokens
        .iter()
        .map(|t| Placed {
            star: t.star,
            seat: t.seat,
            token: t.token,
        })
        .collect();
    let score = scoring::score_board(&board, &placed, position.doubling, position.tie, &purses);
    let after = purses
        .iter()
        .zip(&score.seats)
        .map(|(p, s)| p + s.coins)
        .collect();
    Ok(RefereeReport {
        board: board.id.clone(),
        seats,
        complete: position.tokens.len() == board.star_count(),
        score,
        purses: after,
    })
}

/// The referee's answer for a terminal.
pub fn render_text(r: &RefereeReport) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} with {} seats{}: {}",
        r.board,
        r.seats,
        if r.complete { "" } else { " (not full)" },
        super::view::outcome_text(&r.score.outcome)
    );
    super::view::render_score(&mut out, r.board.as_str(), &r.score);
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
}
