//! What a player (or a spectator) sees: Starry Night hides nothing, so every
//! view is the same public picture. The text view draws the sky in
//! characters: stars by their labels, edges as lines, each captured sea
//! marked with its captor's initial.

use schemars::JsonSchema;
use serde::Serialize;

use super::geometry::{Point, winding};
use super::map::{FaceId, Map};
use super::sky::label;
use super::{Score, State, TakebackRecord};
use crate::games::{Seat, Withdrawal};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct View {
    /// Whose view this is; null for a spectator (all views show the same).
    /// Seats are 0-based (see docs/json.md).
    pub viewer: Option<Seat>,
    pub score: Score,
    /// Grid points across and down; x runs from 0 at the left, y from 0 at
    /// the top.
    pub width: u32,
    pub height: u32,
    /// In label order (reading order).
    pub stars: Vec<StarView>,
    /// In the order drawn.
    pub edges: Vec<EdgeView>,
    /// Every sea (bounded face) there is now.
    pub seas: Vec<SeaView>,
    /// Per seat.
    pub scores: Vec<ScoreView>,
    /// The seat that moves first, once chosen. Seats are 0-based (see docs/json.md).
    pub first: Option<Seat>,
    pub turn: TurnView,
    pub takebacks: Vec<TakebackRecord>,
    /// Takeback requests each seat has left.
    pub takebacks_left: Vec<u32>,
    /// How many edges may be drawn now.
    pub legal_edges: usize,
    /// One of them, e.g. `A-C` (the first by labels).
    pub example: Option<String>,
    /// Set once the game is over.
    pub result: Option<ResultView>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct StarView {
    pub label: String,
    pub x: i32,
    pub y: i32,
    /// Not joined to any other star yet.
    pub isolated: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct EdgeView {
    pub from: String,
    pub to: String,
    /// The seat, 0-based (see docs/json.md).
    pub seat: Seat,
    /// Labels of the seas this edge captured.
    pub captured: Vec<usize>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct SeaView {
    /// The sea's number (faces are numbered as they are made; the unbounded
    /// sky around everything is 0 and is no sea).
    pub id: usize,
    /// The stars along its outer border, walked with the sea on the left
    /// (a star is listed again where the border passes it twice).
    pub boundary: Vec<String>,
    /// Each island's stars: groups inside the sea not joined to its border.
    pub islands: Vec<Vec<String>>,
    /// The sea's own area in half grid squares, without what its islands
    /// enclose.
    pub area: i64,
    /// The seat that captured it; null for an open sea. Seats are 0-based (see docs/json.md).
    pub captor: Option<Seat>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ScoreView {
    /// The seat, 0-based (see docs/json.md).
    pub seat: Seat,
    /// Seas captured.
    pub seas: i64,
    /// Their area in half grid squares.
    pub area: i64,
    /// What decides the game under this variant: seas or area.
    pub score: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Must {
    ChooseFirst,
    DrawEdge,
    AnswerTakeback,
    Nothing,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct TurnView {
    /// The seat that must act; null once the game is over. Seats are 0-based (see docs/json.md).
    pub seat: Option<Seat>,
    pub must: Must,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ResultView {
    /// The winning seat, 0-based (see docs/json.md).
    pub winner: Seat,
    /// The scores were equal and the winner made the last move.
    pub by_last_move: bool,
    /// No edge could be drawn while stars were still isolated (the geometry
    /// rules this out; kept so that such an ending would be named).
    pub stalled: bool,
    /// The loser left the game: it resigned or was abandoned.
    pub withdrawn: Option<WithdrawnView>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct WithdrawnView {
    /// The seat, 0-based (see docs/json.md).
    pub seat: Seat,
    pub how: Withdrawal,
}

pub fn build(state: &State, viewer: Option<Seat>) -> View {
    let map = state.map();
    let stars = map
        .stars()
        .iter()
        .enumerate()
        .map(|(i, p)| StarView {
            label: label(i),
            x: p.0,
            y: p.1,
            isolated: map.degree(i) == 0,
        })
        .collect();
    let edges = state
        .drawn()
        .iter()
        .map(|d| EdgeView {
            from: label(d.stars.0),
            to: label(d.stars.1),
            seat: d.seat,
            captured: d.captured.clone(),
        })
        .collect();
    let seas = map.seas().map(|f| sea_view(map, f)).collect();
    let captured = state.captured();
    let scores = state.scores();
    let scores = (0..2)
        .map(|seat| ScoreView {
            seat,
            seas: captured[seat].0,
            area: captured[seat].1,
            score: scores[seat],
        })
        .collect();
    let turn = TurnView {
        seat: state.to_act(),
        must: match (state.to_act(), state.first(), state.asking()) {
            (None, _, _) => Must::Nothing,
            (Some(_), None, _) => Must::ChooseFirst,
            (Some(_), _, Some(_)) => Must::AnswerTakeback,
            (Some(_), _, None) => Must::DrawEdge,
        },
    };
    let result = state.winner().map(|winner| {
        let s = state.scores();
        let withdrawn = state.withdrawn();
        ResultView {
            winner,
            by_last_move: withdrawn.is_none() && s[0] == s[1],
            stalled: withdrawn.is_none() && !state.isolated().is_empty(),
            withdrawn: withdrawn.map(|(seat, how)| WithdrawnView { seat, how }),
        }
    });
    View {
        viewer,
        score: state.score_kind(),
        width: state.grid().0,
        height: state.grid().1,
        stars,
        edges,
        seas,
        scores,
        first: state.first(),
        turn,
        takebacks: state.takebacks().to_vec(),
        takebacks_left: (0..2).map(|s| state.requests_left(s)).collect(),
        example: (!state.is_over())
            .then(|| map.legal_edges().first())
            .flatten()
            .map(|&(a, b)| format!("{}-{}", label(a), label(b))),
        legal_edges: if state.is_over() {
            0
        } else {
            map.legal_edges().len()
        },
        result,
    }
}

fn sea_view(map: &Map, f: FaceId) -> SeaView {
    let walk = map.outer_walk(f).unwrap_or_default();
    SeaView {
        id: f,
        boundary: walk.iter().map(|&(a, _)| label(a)).collect(),
        islands: map
            .islands(f)
            .into_iter()
            .map(|s| map.component_stars(s).into_iter().map(label).collect())
            .collect(),
        area: map.twice_area(f),
        captor: map.face(f).captor,
    }
}

/// Character columns per grid step across, and rows per step down: about
/// square on a terminal, with room for two-letter labels.
const STEP_X: i64 = 4;
const STEP_Y: i64 = 2;
const MARGIN: i64 = 1;

/// Each seat's mark for the seas it captured: the first letter of its
/// player's name in lower case (star labels are upper case), or the seat
/// number when that letter is missing, not plain ASCII, or the same for
/// both.
pub fn initials(names: &[String]) -> Vec<char> {
    let first: Vec<Option<char>> = names
        .iter()
        .map(|n| {
            n.chars()
                .next()
                .filter(|c| c.is_ascii_alphabetic())
                .map(|c| c.to_ascii_lowercase())
        })
        .collect();
    let distinct =
        first.len() == 2 && first[0].is_some() && first[1].is_some() && first[0] != first[1];
    (0..2)
        .map(|s| {
            if distinct {
                first[s].expect("checked")
            } else {
                char::from(b'1' + s as u8)
            }
        })
        .collect()
}

/// The text view. `names` are the players' names in seat order (already
/// safe to print), used for the captors' marks and the score lines.
pub fn render(v: &View, names: &[String]) -> String {
    let names: Vec<String> = (0..2)
        .map(|s| names.get(s).cloned().unwrap_or_else(|| format!("seat {s}")))
        .collect();
    let marks = initials(&names);
    let mut out = String::new();
    out.push_str(&drawing(v, &marks));
    out.push('\n');
    let who = |s: Seat| format!("{} ({})", names[s], marks[s]);
    let unit = match v.score {
        Score::Count => "seas",
        Score::Area => "area of captured seas",
    };
    let score_line = v
        .scores
        .iter()
        .map(|s| match v.score {
            Score::Count => format!("{} {}", who(s.seat), seas(s.seas)),
            Score::Area => format!(
                "{} {} = {} ({})",
                who(s.seat),
                squares(s.area),
                crate::text::count(s.area, "half square", "half squares"),
                seas(s.seas)
            ),
        })
        .collect::<Vec<_>>()
        .join(", ");
    out.push_str(&format!("Score ({unit}): {score_line}\n"));
    if let Some(e) = v.edges.last() {
        let caught = if e.captured.is_empty() {
            "no sea captured".to_string()
        } else {
            let list: Vec<String> = e.captured.iter().map(|id| format!("sea {id}")).collect();
            format!("captures {}", list.join(" and "))
        };
        out.push_str(&format!(
            "Last edge: {}-{} by {} ({caught}).\n",
            e.from, e.to, names[e.seat]
        ));
    }
    let open: Vec<&SeaView> = v.seas.iter().filter(|s| s.captor.is_none()).collect();
    for s in v.seas.iter().filter(|s| s.captor.is_some()) {
        out.push_str(&format!(
            "  sea {}: {} — captured by {}, {}\n",
            s.id,
            s.boundary.join("-"),
            names[s.captor.expect("filtered")],
            squares(s.area)
        ));
    }
    for s in &open {
        out.push_str(&format!(
            "  sea {}: {} — open, islands: {}\n",
            s.id,
            s.boundary.join("-"),
            s.islands
                .iter()
                .map(|i| i.join("-"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let isolated: Vec<&str> = v
        .stars
        .iter()
        .filter(|s| s.isolated)
        .map(|s| s.label.as_str())
        .collect();
    if !isolated.is_empty() && v.result.is_none() {
        out.push_str(&format!(
            "Isolated stars: {} (the game ends when none is left)\n",
            isolated.join(" ")
        ));
    }
    if v.result.is_none() && v.first.is_some() {
        out.push_str(&format!(
            "Takebacks left: {} {}, {} {}\n",
            names[0], v.takebacks_left[0], names[1], v.takebacks_left[1]
        ));
    }
    match (&v.result, &v.turn) {
        (Some(r), _) => {
            let why = if let Some(w) = &r.withdrawn {
                match w.how {
                    Withdrawal::Resigned => format!("{} resigned", names[w.seat]),
                    Withdrawal::Abandoned => format!("{} stopped answering", names[w.seat]),
                }
            } else if r.stalled {
                "no edge could be drawn any more".into()
            } else if r.by_last_move {
                "the scores are tied and they made the last move".into()
            } else {
                "with the higher score".into()
            };
            out.push_str(&format!("Game over: {} wins ({why}).\n", names[r.winner]));
        }
        (
            None,
            TurnView {
                seat: Some(s),
                must,
            },
        ) => {
            let what = match must {
                Must::ChooseFirst => "choose who moves first: `first 0` or `first 1`".to_string(),
                Must::AnswerTakeback => format!(
                    "answer {}'s takeback request: `accept` or `decline`",
                    names[1 - s]
                ),
                _ => format!(
                    "draw an edge, e.g. `{}` ({} possible)",
                    v.example.as_deref().unwrap_or("A-B"),
                    v.legal_edges
                ),
            };
            out.push_str(&format!("Turn: {} to {what}.\n", names[*s]));
        }
        (None, _) => {}
    }
    out
}

fn seas(n: i64) -> String {
    if n == 1 {
        "1 sea".into()
    } else {
        format!("{n} seas")
    }
}

/// An area given in half squares, in squares: `4 squares`, `1.5 squares`.
pub fn squares(half: i64) -> String {
    let whole = half / 2;
    match (half % 2 != 0, whole) {
        (true, _) => format!("{whole}.5 squares"),
        (false, 1) => "1 square".into(),
        (false, _) => format!("{whole} squares"),
    }
}

fn cell(p: Point) -> (i64, i64) {
    (MARGIN + STEP_X * p.x(), STEP_Y * p.y())
}

/// The sky drawn in characters, with x coordinates above and y at the left.
fn drawing(v: &View, marks: &[char]) -> String {
    let cols = (MARGIN + STEP_X * (i64::from(v.width) - 1) + 3) as usize;
    let rows = (STEP_Y * (i64::from(v.height) - 1) + 1) as usize;
    let mut canvas = vec![vec![' '; cols]; rows];
    for y in 0..v.height as i32 {
        for x in 0..v.width as i32 {
            let (c, r) = cell(Point(x, y));
            canvas[r as usize][c as usize] = '.';
        }
    }
    let at = |label: &str| -> Point {
        let s = v
            .stars
            .iter()
            .find(|s| s.label == label)
            .expect("edges join stars");
        Point(s.x, s.y)
    };
    let mut taken = vec![vec![false; cols]; rows];
    for s in &v.stars {
        let (c, r) = cell(Point(s.x, s.y));
        for (i, ch) in s.label.chars().enumerate() {
            let c = c as usize + i;
            if c < cols {
                canvas[r as usize][c] = ch;
                taken[r as usize][c] = true;
            }
        }
    }
    for e in &v.edges {
        let (c1, r1) = cell(at(&e.from));
        let (c2, r2) = cell(at(&e.to));
        let (dc, dr) = (c2 - c1, r2 - r1);
        let diagonal = if (dc > 0) == (dr > 0) { '\\' } else { '/' };
        // Mostly across: `-`, with a slant where the line steps to the next
        // row; mostly down: `|`, slanting where it steps a column.
        let across = 2 * dr.abs() < dc.abs();
        let down = dr.abs() > 2 * dc.abs();
        let n = dc.abs().max(dr.abs());
        let (mut pc, mut pr) = (c1, r1);
        for i in 1..n {
            let c = c1 + (2 * i * dc + n).div_euclid(2 * n);
            let r = r1 + (2 * i * dr + n).div_euclid(2 * n);
            let ch = match (dr == 0, dc == 0) {
                (true, _) => '-',
                (_, true) => '|',
                _ if across => {
                    if r != pr {
                        diagonal
                    } else {
                        '-'
                    }
                }
                _ if down => {
                    if c != pc {
                        diagonal
                    } else {
                        '|'
                    }
                }
                _ => diagonal,
            };
            (pc, pr) = (c, r);
            let (c, r) = (c as usize, r as usize);
            if !taken[r][c] {
                canvas[r][c] = ch;
                taken[r][c] = true;
            }
        }
    }
    for sea in v.seas.iter().filter(|s| s.captor.is_some()) {
        let corners: Vec<(i64, i64)> = sea.boundary.iter().map(|l| cell(at(l))).collect();
        let walk = || {
            (0..corners.len()).map(|i| {
                let (a, b) = (corners[i], corners[(i + 1) % corners.len()]);
                (Point(a.0 as i32, a.1 as i32), Point(b.0 as i32, b.1 as i32))
            })
        };
        let k = corners.len() as i64;
        let (sx, sy) = corners
            .iter()
            .fold((0, 0), |(x, y), &(c, r)| (x + c, y + r));
        let mut best: Option<(i64, usize, usize)> = None;
        // Only the cells within the sea's bounding box can be inside it.
        let rows_in = corners.iter().map(|p| p.1).min().unwrap_or(0) as usize
            ..=corners.iter().map(|p| p.1).max().unwrap_or(0) as usize;
        let cols_in = corners.iter().map(|p| p.0).min().unwrap_or(0) as usize
            ..=corners.iter().map(|p| p.0).max().unwrap_or(0) as usize;
        for r in rows_in {
            for c in cols_in.clone() {
                if taken[r][c] || canvas[r][c] == '.' {
                    continue;
                }
                if winding(walk(), Point(c as i32, r as i32)) == 0 {
                    continue;
                }
                let d = (c as i64 * k - sx).pow(2) + ((r as i64 * k - sy) * 2).pow(2);
                if best.is_none_or(|(bd, _, _)| d < bd) {
                    best = Some((d, r, c));
                }
            }
        }
        if let Some((_, r, c)) = best {
            canvas[r][c] = marks[sea.captor.expect("filtered")];
            taken[r][c] = true;
        }
    }
    let mut out = String::new();
    let mut header = vec![' '; cols];
    for x in (0..v.width as i64).step_by(if v.width > 26 { 5 } else { 1 }) {
        let c = (MARGIN + STEP_X * x) as usize;
        for (i, ch) in x.to_string().chars().enumerate() {
            if c + i < cols {
                header[c + i] = ch;
            }
        }
    }
    out.push_str(&format!(
        "    {}\n",
        header.iter().collect::<String>().trim_end()
    ));
    for (r, row) in canvas.iter().enumerate() {
        let y = if r as i64 % STEP_Y == 0 {
            format!("{:>3}", r as i64 / STEP_Y)
        } else {
            "   ".to_string()
        };
        let line = format!("{y} {}", row.iter().collect::<String>());
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
