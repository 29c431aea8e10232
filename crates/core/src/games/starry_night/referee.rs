//! The offline referee for one drawing (`starry rules score --game
//! starry-night`): a sky and the edges drawn on it, in order, with no log and
//! no keys. Input:
//!
//! ```json
//! {"stars": [[0,0],[4,0],[0,2],[4,2],[8,5]], "first": 0,
//!  "edges": [[[0,0],[4,0]], [[0,2],[4,2]], [[0,0],[4,2]], [[0,0],[0,2]]],
//!  "score": "count"}
//! ```
//!
//! `stars` are grid points (x right, y down, from 0; the grid is the
//! smallest that holds them unless `width` and `height` are given); `first`
//! (default 0) is the seat that drew the first edge, the seats then
//! alternating — captures depend on who drew what, so the order matters;
//! `score` is `count` (default) or `area`. The answer: every sea with its
//! border, islands, area and captor, the scores, and whether the game is
//! over and who won. The limits are the game's own (3 to 200 stars, a grid
//! of at most 100 × 100) and at most 1 MiB of input; an illegal edge is
//! refused with its number and the rule it breaks — including an edge after
//! the game has ended (when no star was isolated any more).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::geometry::Point;
use super::sky::Sky;
use super::view::{self, View};
use super::{Action, Options, Score, StarryNight};
use crate::games::{Context, Draw, RuleError, Rules, Seat, Standing};
use crate::text::excerpt;

/// Largest position accepted, in bytes.
pub const MAX_POSITION_BYTES: usize = 1 << 20;

/// A drawing to score.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Position {
    pub stars: Vec<Point>,
    #[serde(default)]
    pub width: Option<u32>,
    #[serde(default)]
    pub height: Option<u32>,
    /// The seat (0 or 1) that drew the first edge. Seats are 0-based (see docs/json.md).
    #[serde(default)]
    pub first: Seat,
    /// In the order drawn; seats alternate from `first`.
    pub edges: Vec<[Point; 2]>,
    #[serde(default)]
    pub score: Score,
}

/// The drawing scored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct RefereeReport {
    /// The position as a spectator sees it after the last edge.
    pub view: View,
    pub standings: Vec<Standing>,
}

fn bad(detail: impl Into<String>) -> RuleError {
    RuleError::bad_setup("position", detail)
}

/// Scores a drawing given as JSON text.
pub fn score_position(json: &str) -> Result<RefereeReport, RuleError> {
    if json.len() > MAX_POSITION_BYTES {
        return Err(bad(format!(
            "the position is {} bytes long; at most {MAX_POSITION_BYTES} bytes (1 MiB) are allowed",
            json.len()
        )));
    }
    let position: Position = serde_json::from_str(json).map_err(|e| {
        // serde's message ends with the place; keep the place whole and
        // shorten only what it quotes.
        let text = e.to_string();
        let what = text.split(" at line ").next().unwrap_or_default();
        bad(format!(
            "not a Starry Night position: {} at line {} column {}; see \
             schemas/starry-night-position.json",
            excerpt(what),
            e.line(),
            e.column()
        ))
    })?;
    score(&position)
}

/// Scores a drawing.
pub fn score(p: &Position) -> Result<RefereeReport, RuleError> {
    if p.first > 1 {
        return Err(bad(format!("`first` is seat 0 or 1, not {}", p.first)));
    }
    let reach = |f: fn(&Point) -> i32| p.stars.iter().map(f).max().unwrap_or(0).max(0) as u32 + 1;
    let options = Options {
        sky: Sky::Stars {
            width: p.width.unwrap_or_else(|| reach(|q| q.0)),
            height: p.height.unwrap_or_else(|| reach(|q| q.1)),
            stars: p.stars.clone(),
        },
        score: p.score,
    };
    options.sky.check()?;
    let mut state = StarryNight::setup(&options, 2, &mut Draw::new([0; 32]))?;
    let ctx = |seat| Context {
        seat,
        at: 0,
        commitments: 0,
        reveals: Vec::new(),
    };
    StarryNight::play(&mut state, &ctx(super::CHOOSER), &Action::First(p.first))?;
    for (i, edge) in p.edges.iter().enumerate() {
        let seat = (p.first + i) % 2;
        StarryNight::play(&mut state, &ctx(seat), &Action::Edge(*edge)).map_err(|e| RuleError {
            detail: format!("edge {} ({} to {}): {}", i + 1, edge[0], edge[1], e.detail),
            ..e
        })?;
    }
    Ok(RefereeReport {
        view: view::build(&state, None),
        standings: StarryNight::standings(&state),
    })
}

/// The report as text: the drawing and the scores.
pub fn render_text(r: &RefereeReport) -> String {
    // A drawing has no takebacks to count.
    view::render(&r.view, &["seat 0".into(), "seat 1".into()])
        .lines()
        .filter(|l| !l.starts_with("Takebacks left"))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drawing_is_scored_and_a_bad_one_refused() {
        let r = score_position(
            r#"{"stars":[[0,0],[4,0],[0,2],[4,2],[8,5]],"first":1,
                "edges":[[[0,0],[4,0]],[[0,2],[4,2]],[[0,0],[4,2]],[[0,0],[0,2]]]}"#,
        )
        .unwrap();
        // Seat 1 drew edges 1 and 3; seat 0 closed the triangle A-C-D.
        assert_eq!(r.view.scores[0].seas, 1);
        assert_eq!(r.view.seas[0].area, 8);
        assert!(r.view.result.is_none(), "E is isolated: the game goes on");
        assert_eq!(r.standings[0].seat, 0);
        let e = score_position(
            r#"{"stars":[[0,0],[4,0],[0,2],[4,2]],"edges":[[[0,0],[4,2]],[[4,0],[0,2]]]}"#,
        )
        .unwrap_err();
        assert!(
            e.detail
                .starts_with("edge 2 (4,0 to 0,2): the edge B-C would cross the edge A-D"),
            "{}",
            e.detail
        );
        for bad in [
            r#"{"stars":[[0,0]],"edges":[]}"#,
            r#"{"stars":[[0,0],[1,1],[2,0]],"edges":[],"first":2}"#,
            r#"{"stars":[[0,0],[1,1],[2,0]],"edges":[],"extra":1}"#,
            r#"{"stars":[[0,0],[1,1],[2000000,0]],"edges":[]}"#,
            "[]",
        ] {
            assert!(score_position(bad).is_err(), "{bad}");
        }
    }
}
