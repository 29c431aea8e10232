//! What a player (or a spectator) sees: Starry Night hides nothing, so every
//! view is the same public picture. The text view draws the sky in
//! characters: stars by their labels, edges as lines, each captured sea
//! marked with its captor's initial.

use schemars::JsonSchema;
use serde::Serialize;

use super::geometry::{Point, strictly_inside, winding};
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
                // Seats count from 0 in text as in JSON (docs/json.md).
                char::from(b'0' + s as u8)
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
    let drawn = drawing(v, &marks);
    out.push_str(&drawn.text);
    // Wrapped to the drawing's width, but not narrower than a mail line.
    let width = (MARGIN + STEP_X * (i64::from(v.width) - 1) + 7).max(72) as usize;
    out.push_str(&crate::text::wrap(
        &format!(
            "Stars are upper case; captured seas are marked {}.",
            (0..2)
                .map(|s| format!("{} {}", marks[s], names[s]))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        width,
        "  ",
    ));
    out.push('\n');
    let order = |label: &str| v.stars.iter().position(|s| s.label == label);
    let pair = |e: &EdgeView| {
        let (a, b) = (order(&e.from), order(&e.to));
        if a <= b {
            (a, b, format!("{}-{}", e.from, e.to))
        } else {
            (b, a, format!("{}-{}", e.to, e.from))
        }
    };
    let sorted = |edges: &mut dyn Iterator<Item = &EdgeView>| {
        let mut all: Vec<_> = edges.map(pair).collect();
        all.sort();
        all.into_iter()
            .map(|(_, _, e)| e)
            .collect::<Vec<_>>()
            .join(" ")
    };
    out.push_str(&crate::text::wrap(
        &format!("Edges ({}): {}", v.edges.len(), {
            let all = sorted(&mut v.edges.iter());
            if all.is_empty() {
                "none".to_string()
            } else {
                all
            }
        }),
        width,
        "  ",
    ));
    out.push('\n');
    if !drawn.hidden.is_empty() {
        out.push_str(&crate::text::wrap(
            &format!(
                "Not drawn above, too close to another line or star at this scale: {}",
                sorted(&mut drawn.hidden.iter().map(|&k| &v.edges[k]))
            ),
            width,
            "  ",
        ));
        out.push('\n');
    }
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
            "  sea {}: {} — captured by {} ({}), {}{}\n",
            s.id,
            s.boundary.join("-"),
            names[s.captor.expect("filtered")],
            marks[s.captor.expect("filtered")],
            squares(s.area),
            if drawn.unmarked.contains(&s.id) {
                ", too thin for its mark above"
            } else {
                ""
            }
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

/// The drawing, and what it had to leave out: the text view names both
/// below it, so that the lists stay the authority.
struct Drawing {
    text: String,
    /// Edges not drawn (indices into the view's edges), in the order drawn.
    hidden: Vec<usize>,
    /// Captured seas with no cell free for their mark (their ids).
    unmarked: Vec<usize>,
}

/// The cells strictly between two star cells on the straight line joining
/// them, each with its glyph: mostly across, `-` with a slant where the line
/// steps to the next row; mostly down, `|`, slanting where it steps a column.
fn raster(from: (i64, i64), to: (i64, i64)) -> Vec<(usize, usize, char)> {
    let ((c1, r1), (c2, r2)) = (from, to);
    let (dc, dr) = (c2 - c1, r2 - r1);
    let diagonal = if (dc > 0) == (dr > 0) { '\\' } else { '/' };
    let across = 2 * dr.abs() < dc.abs();
    let down = dr.abs() > 2 * dc.abs();
    let n = dc.abs().max(dr.abs());
    let (mut pc, mut pr) = (c1, r1);
    let mut out = Vec::new();
    for i in 1..n {
        let c = c1 + (2 * i * dc + n).div_euclid(2 * n);
        let r = r1 + (2 * i * dr + n).div_euclid(2 * n);
        let ch = match (dr == 0, dc == 0) {
            (true, _) => '-',
            (_, true) => '|',
            _ if across && r == pr => '-',
            _ if down && c == pc => '|',
            _ => diagonal,
        };
        (pc, pr) = (c, r);
        out.push((r as usize, c as usize, ch));
    }
    out
}

/// The cells around `(r, c)` and itself, within a canvas of `rows × cols`.
fn around(r: usize, c: usize, rows: usize, cols: usize) -> impl Iterator<Item = (usize, usize)> {
    (r.saturating_sub(1)..=(r + 1).min(rows - 1))
        .flat_map(move |rr| (c.saturating_sub(1)..=(c + 1).min(cols - 1)).map(move |cc| (rr, cc)))
}

/// The sky drawn in characters, with x coordinates above and y at the left.
///
/// Four columns and two rows per grid step are too coarse for every edge:
/// a line may run through the cells beside a star it does not end at
/// (`D---E/` for an edge that passes E), and nearly parallel lines merge into
/// one strand (`\\\`). Cutting such a line short near the star would still
/// read as two lines meeting there, and a finer grid only moves the problem
/// (and a 30-point sky already takes 120 columns). So an edge is drawn whole
/// or not at all: it is left out when one of its cells would lie on or beside
/// a star it does not end at, or on or beside a line already drawn that
/// shares no star with it, or on a line already drawn that does share one,
/// unless the two merge only on their way into that star. What is drawn therefore never joins a star or a line
/// it does not belong to; edges are tried in the order drawn, so a drawn
/// edge stays drawn as the game goes on. The text view lists every edge
/// under the drawing, and those it left out.
fn drawing(v: &View, marks: &[char]) -> Drawing {
    let cols = (MARGIN + STEP_X * (i64::from(v.width) - 1) + 3) as usize;
    let rows = (STEP_Y * (i64::from(v.height) - 1) + 1) as usize;
    let mut canvas = vec![vec![' '; cols]; rows];
    for y in 0..v.height as i32 {
        for x in 0..v.width as i32 {
            let (c, r) = cell(Point(x, y));
            canvas[r as usize][c as usize] = '.';
        }
    }
    let index = |label: &str| -> usize {
        v.stars
            .iter()
            .position(|s| s.label == label)
            .expect("edges join stars")
    };
    let star_cell: Vec<(i64, i64)> = v.stars.iter().map(|s| cell(Point(s.x, s.y))).collect();
    // Which star's label covers each cell.
    let mut label_of: Vec<Vec<Option<usize>>> = vec![vec![None; cols]; rows];
    for (i, s) in v.stars.iter().enumerate() {
        let (c, r) = star_cell[i];
        for (k, ch) in s.label.chars().enumerate() {
            let c = c as usize + k;
            if c < cols {
                canvas[r as usize][c] = ch;
                label_of[r as usize][c] = Some(i);
            }
        }
    }
    let beside_star = |s: usize, r: usize, c: usize| {
        around(r, c, rows, cols).any(|(rr, cc)| label_of[rr][cc] == Some(s))
    };
    let ends: Vec<(usize, usize)> = v
        .edges
        .iter()
        .map(|e| (index(&e.from), index(&e.to)))
        .collect();
    let paths: Vec<Vec<(usize, usize, char)>> = ends
        .iter()
        .map(|&(a, b)| raster(star_cell[a], star_cell[b]))
        .collect();
    // Which drawn edge holds each cell.
    let mut line_of: Vec<Vec<Option<usize>>> = vec![vec![None; cols]; rows];
    let mut hidden = Vec::new();
    for (k, &(a, b)) in ends.iter().enumerate() {
        let ours = |s: usize| s == a || s == b;
        let mut cells = Vec::new();
        let mut clear = true;
        let path = &paths[k];
        // Whether the path runs from its `i`th cell into star `s` only on
        // cells beside `s` or held by lines that end at `s`: two lines that
        // merge there still both read as ending at `s`.
        let tail_into = |s: usize, i: usize| {
            let rest = if s == b { &path[i..] } else { &path[..=i] };
            rest.iter().all(|&(r, c, _)| {
                beside_star(s, r, c)
                    || line_of[r][c].is_some_and(|f| ends[f].0 == s || ends[f].1 == s)
            })
        };
        'path: for (i, &(r, c, ch)) in path.iter().enumerate() {
            if label_of[r][c].is_some_and(ours) {
                // The rest of a two-letter label at this end.
                continue;
            }
            if let Some(f) = line_of[r][c] {
                match [ends[f].0, ends[f].1].into_iter().find(|&s| ours(s)) {
                    // Both run into the same star here: the cell is the other's.
                    Some(s) if tail_into(s, i) => continue,
                    _ => {
                        clear = false;
                        break 'path;
                    }
                }
            }
            for (rr, cc) in around(r, c, rows, cols) {
                let foreign_star = label_of[rr][cc].is_some_and(|s| !ours(s));
                let foreign_line =
                    line_of[rr][cc].is_some_and(|f| !ours(ends[f].0) && !ours(ends[f].1));
                if foreign_star || foreign_line {
                    clear = false;
                    break 'path;
                }
            }
            cells.push((r, c, ch));
        }
        if !clear {
            hidden.push(k);
            continue;
        }
        for (r, c, ch) in cells {
            canvas[r][c] = ch;
            line_of[r][c] = Some(k);
        }
    }
    // Every edge's cells, drawn or not: no mark sits on a line's way.
    let mut on_a_line = vec![vec![false; cols]; rows];
    for &(r, c, _) in paths.iter().flatten() {
        on_a_line[r][c] = true;
    }
    let mut unmarked = Vec::new();
    for sea in v.seas.iter().filter(|s| s.captor.is_some()) {
        let corners: Vec<Point> = sea
            .boundary
            .iter()
            .map(|l| {
                let (c, r) = star_cell[index(l)];
                Point(c as i32, r as i32)
            })
            .collect();
        let walk = || (0..corners.len()).map(|i| (corners[i], corners[(i + 1) % corners.len()]));
        let k = corners.len() as i64;
        let (sx, sy) = corners
            .iter()
            .fold((0, 0), |(x, y), p| (x + p.x(), y + p.y()));
        let mut best: Option<(i64, usize, usize)> = None;
        // Only the cells within the sea's bounding box can be inside it.
        let rows_in = corners.iter().map(|p| p.1).min().unwrap_or(0) as usize
            ..=corners.iter().map(|p| p.1).max().unwrap_or(0) as usize;
        let cols_in = corners.iter().map(|p| p.0).min().unwrap_or(0) as usize
            ..=corners.iter().map(|p| p.0).max().unwrap_or(0) as usize;
        for r in rows_in {
            for c in cols_in.clone() {
                // A free cell, not on a line's way, and not beside a label
                // across (`aJ` would read as one word).
                if canvas[r][c] != ' ' || on_a_line[r][c] {
                    continue;
                }
                if (c > 0 && label_of[r][c - 1].is_some())
                    || (c + 1 < cols && label_of[r][c + 1].is_some())
                {
                    continue;
                }
                let p = Point(c as i32, r as i32);
                // `winding` needs a point off the border; a cell on it is no
                // place for a mark anyway.
                if walk().any(|(u, w)| u == p || strictly_inside(u, w, p))
                    || winding(walk(), p) == 0
                {
                    continue;
                }
                let d = (c as i64 * k - sx).pow(2) + ((r as i64 * k - sy) * 2).pow(2);
                if best.is_none_or(|(bd, _, _)| d < bd) {
                    best = Some((d, r, c));
                }
            }
        }
        match best {
            Some((_, r, c)) => canvas[r][c] = marks[sea.captor.expect("filtered")],
            None => unmarked.push(sea.id),
        }
    }
    let mut text = String::new();
    let mut header = vec![' '; cols];
    for x in (0..v.width as i64).step_by(if v.width > 26 { 5 } else { 1 }) {
        let c = (MARGIN + STEP_X * x) as usize;
        for (i, ch) in x.to_string().chars().enumerate() {
            if c + i < cols {
                header[c + i] = ch;
            }
        }
    }
    text.push_str(&format!(
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
        text.push_str(line.trim_end());
        text.push('\n');
    }
    Drawing {
        text,
        hidden,
        unmarked,
    }
}
