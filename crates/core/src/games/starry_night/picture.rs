//! The picture of a Starry Night view (SVG): the sky on its grid, the
//! captured seas filled in their captors' tints and marked with their
//! initials, the edges in their drawers' colours and dash patterns, the
//! stars with their labels, and below them the score, the last edge, the
//! isolated stars, the takebacks left and whose turn it is (or the result):
//! what the text view shows ([`super::view::render`]), drawn.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::Score;
use super::geometry::{Point, winding};
use super::view::{Must, View, squares};
use crate::games::{Seat, Withdrawal};
use crate::picture::{
    INK, Links, MUTED, PAPER, SKY, Svg, clip, esc, marks, seat_colour, seat_tint,
};

/// The most pixels the grid spans across and down (a 100 × 100 grid gets
/// 6 pixels a step), and the bounds of one grid step.
const BOARD_WIDTH: i32 = 820;
const BOARD_HEIGHT: i32 = 600;
const MIN_STEP: i32 = 5;
const MAX_STEP: i32 = 64;
/// Stars at least this large carry their label inside; smaller ones have
/// it beside them.
const LABEL_INSIDE: i32 = 8;
/// Pixels of clear sky between a star's ring and an edge that passes it by.
const GAP: f64 = 4.0;
/// The smallest letter that marks a sea inside it; a sea too thin for it
/// gets its mark beside it, on a leader line into the sea.
const MIN_MARK: i32 = 10;
/// Half the side of the swatch that carries a thin sea's mark.
const SWATCH: i32 = 9;
/// Left margin of the panel below the board, and its line height.
const PAD: i32 = 20;
const LINE: i32 = 24;
/// The panel's text size.
const TEXT: i32 = 14;

/// Where the grid goes and how large things are on it.
struct Layout {
    step: i32,
    /// Pixel position of grid point (0, 0).
    ox: i32,
    oy: i32,
    /// Star radius.
    r: i32,
    /// Space around the grid inside the board's frame.
    pad: i32,
    /// Grid points across and down.
    cols: i32,
    rows: i32,
}

impl Layout {
    fn new(v: &View) -> Layout {
        let cols = v.width.clamp(1, 1000) as i32;
        let rows = v.height.clamp(1, 1000) as i32;
        let step = (BOARD_WIDTH / (cols - 1).max(1))
            .min(BOARD_HEIGHT / (rows - 1).max(1))
            .clamp(MIN_STEP, MAX_STEP);
        let r = (step * 2 / 5).clamp(2, 12);
        // Room for the star, and beside a small star for its label.
        let pad = if r >= LABEL_INSIDE { r + 8 } else { r + 16 };
        Layout {
            step,
            ox: pad + 34,
            oy: pad + 24,
            r,
            pad,
            cols,
            rows,
        }
    }

    fn at(&self, x: i32, y: i32) -> (i32, i32) {
        (self.ox + x * self.step, self.oy + y * self.step)
    }

    /// The board's frame: left, top, right, bottom.
    fn frame(&self) -> (i32, i32, i32, i32) {
        (
            self.ox - self.pad,
            self.oy - self.pad,
            self.ox + (self.cols - 1) * self.step + self.pad,
            self.oy + (self.rows - 1) * self.step + self.pad,
        )
    }

    /// Width of an edge's line.
    fn edge_width(&self) -> i32 {
        if self.step >= 20 { 3 } else { 2 }
    }

    /// How far from a star's centre an edge that does not end there stays:
    /// clear sky between the star's ring and the widest (last) edge's line,
    /// so that the edge cannot be read as ending at that star.
    fn gap(&self) -> f64 {
        f64::from(self.r) + f64::from(self.edge_width() + 2) / 2.0 + GAP
    }

    /// How much of an edge's line always shows from each end's centre.
    fn keep(&self) -> f64 {
        f64::from(self.r + 3)
    }
}

/// A line of the panel below the board.
struct Row {
    bold: bool,
    text: String,
}

/// Draws `v` for players named `names` (in seat order; escaped here).
///
/// The groups, for tests and styles, each with a `<title>`:
/// - `board` (the sky's frame), `grid` (the grid points), `axes` (the
///   coordinates along the top and the left);
/// - `sea`: one per captured sea, in the view's order: its face filled in
///   the captor's tint and the captor's mark ([`marks`]) written inside, or
///   for a sea too thin for it, on a swatch beside it with a leader line
///   ending in a dot inside the sea;
/// - `open-sea`: one per open sea, invisible, its title naming its border
///   and islands;
/// - `edge`: one per edge, in the order drawn: a line in the drawer's
///   colour, solid for seat 0 and dashed for seat 1, broken around each
///   star it passes close by without ending there (so that it cannot read
///   as two edges meeting at that star); the last edge is wider;
/// - `star`: one per star, in label order: a circle with its label (inside,
///   or beside it when the grid is dense); an isolated star has a dashed
///   grey ring;
/// - `seat`: one per seat in the score panel (a sea swatch with the mark, an
///   edge sample, the name and the score); `status`: the lines below it.
pub fn svg(v: &View, names: &[String]) -> String {
    svg_linked(v, names, &Links::default())
}

/// [`svg`] with `links` on the stars (`star A`).
pub fn svg_linked(v: &View, names: &[String], links: &Links) -> String {
    let names: Vec<String> = (0..2)
        .map(|s| names.get(s).cloned().unwrap_or_else(|| format!("seat {s}")))
        .collect();
    let marks = marks(&names);
    let name = |s: Seat| names.get(s).cloned().unwrap_or_else(|| format!("seat {s}"));
    // Lower case, as in the text view: an upper-case letter in a sea would
    // read as a star's label.
    let mark = |s: Seat| {
        marks
            .get(s)
            .map(|m| m.to_lowercase())
            .unwrap_or_else(|| s.to_string())
    };
    let who = |s: Seat| format!("{} ({})", clip(&name(s), 24), mark(s));
    let short = |s: Seat| clip(&name(s), 16);

    let lay = Layout::new(v);
    let (left, top, right, bottom) = lay.frame();
    let at_label: BTreeMap<&str, (i32, i32)> = v
        .stars
        .iter()
        .map(|s| (s.label.as_str(), lay.at(s.x, s.y)))
        .collect();
    let passed = passed_stars(v, &lay, &at_label);

    // The panel's text first: the picture is as wide as its longest line.
    let unit = match v.score {
        Score::Count => "seas",
        Score::Area => "area of captured seas",
    };
    let seat_rows: Vec<String> = v
        .scores
        .iter()
        .map(|s| match v.score {
            Score::Count => format!("{}: {}", who(s.seat), seas(s.seas)),
            Score::Area => format!(
                "{}: {} = {} ({})",
                who(s.seat),
                squares(s.area),
                halves(s.area),
                seas(s.seas)
            ),
        })
        .collect();
    let mut rows = Vec::new();
    if let Some(e) = v.edges.last() {
        let caught = if e.captured.is_empty() {
            "no sea captured".to_string()
        } else {
            let list: Vec<String> = e.captured.iter().map(|id| format!("sea {id}")).collect();
            format!("captures {}", list.join(" and "))
        };
        rows.push(Row {
            bold: false,
            text: format!(
                "Last edge (wider): {}-{} by {} ({caught}).",
                e.from,
                e.to,
                short(e.seat)
            ),
        });
    }
    // An edge drawn close by a star it does not end at is broken around
    // it (draw_edges); the panel says which, as the text view lists them.
    let passing: Vec<String> = v
        .edges
        .iter()
        .zip(&passed)
        .filter(|(_, by)| !by.is_empty())
        .map(|(e, by)| format!("{}-{} past {}", e.from, e.to, listed(by)))
        .collect();
    if !passing.is_empty() {
        rows.push(Row {
            bold: false,
            text: format!(
                "Edges passing stars they do not end at: {}",
                clip(&passing.join(", "), 48)
            ),
        });
    }
    let isolated: Vec<&str> = v
        .stars
        .iter()
        .filter(|s| s.isolated)
        .map(|s| s.label.as_str())
        .collect();
    if !isolated.is_empty() && v.result.is_none() {
        rows.push(Row {
            bold: false,
            text: format!(
                "Isolated stars (dashed rings): {}",
                clip(&isolated.join(" "), 60)
            ),
        });
    }
    if v.result.is_none() && v.first.is_some() {
        let left = |s: usize| v.takebacks_left.get(s).copied().unwrap_or(0);
        rows.push(Row {
            bold: false,
            text: format!(
                "Takebacks left: {} {}, {} {}",
                short(0),
                left(0),
                short(1),
                left(1)
            ),
        });
    }
    let status = status(v, &short);
    if let Some(s) = &status {
        rows.push(Row {
            bold: true,
            text: s.clone(),
        });
    }

    let panel_top = bottom + 34;
    let seats_top = panel_top + 14;
    let rows_top = seats_top + LINE * seat_rows.len() as i32 + 6;
    let height = rows_top + LINE * rows.len() as i32 + 4;
    let text_width = seat_rows
        .iter()
        .map(|t| 72 + text_px(t, TEXT, false))
        .chain(rows.iter().map(|r| text_px(&r.text, TEXT, r.bold)))
        .chain([text_px(&format!("Score ({unit})"), 15, true)])
        .max()
        .unwrap_or(0);
    let width = (right + 24).max(PAD * 2 + text_width).max(360);

    let mut svg = Svg::new(width, height).with_links(links);

    // The sky and its grid points.
    svg.group(
        "board",
        &format!("the sky: {}×{} grid points", v.width, v.height),
    );
    svg.rect(left, top, right - left, bottom - top, SKY, MUTED);
    svg.end_group();
    svg.group("grid", "grid points");
    // A row of points is one dashed line, dashes as long as they are wide:
    // a 100 × 100 grid takes 100 elements, not 10 000.
    let dot = if lay.step >= 12 { 2 } else { 1 };
    let dash = format!("{dot} {}", lay.step - dot);
    for y in 0..lay.rows {
        let (x0, py) = lay.at(0, y);
        let (x1, _) = lay.at(lay.cols - 1, y);
        svg.raw(&format!(
            r#"<line x1="{}" y1="{py}" x2="{}" y2="{py}" stroke="{MUTED}" stroke-width="{dot}" stroke-dasharray="{dash}"/>"#,
            x0 - dot / 2,
            x1 + 1
        ));
    }
    svg.end_group();
    axes(&mut svg, &lay, top);

    // Captured seas, filled, with their captor's mark; then the edges, in
    // the order drawn, each broken around the stars it passes by.
    let ink = Ink {
        lay: &lay,
        at_label: &at_label,
        mark: &mark,
        who: &who,
    };
    draw_seas(&mut svg, v, &ink);
    draw_edges(&mut svg, v, &ink, &passed);

    // Stars, in label order.
    for s in &v.stars {
        let (x, y) = lay.at(s.x, s.y);
        let title = format!(
            "star {} at {},{}{}",
            s.label,
            s.x,
            s.y,
            if s.isolated { ", isolated" } else { "" }
        );
        svg.place("star", &format!("star {}", s.label), &title);
        let ring = if s.isolated {
            format!(r#" stroke="{MUTED}" stroke-dasharray="3 2""#)
        } else {
            format!(r#" stroke="{INK}""#)
        };
        let sw = if lay.r >= LABEL_INSIDE { 2 } else { 1 };
        svg.raw(&format!(
            r#"<circle cx="{x}" cy="{y}" r="{}" fill="{PAPER}"{ring} stroke-width="{sw}"/>"#,
            lay.r
        ));
        if lay.r >= LABEL_INSIDE {
            let size = if s.label.chars().count() > 1 {
                lay.r.min(11)
            } else {
                (lay.r + 1).min(13)
            };
            svg.bold(x, y + size * 36 / 100, size, "middle", INK, &s.label);
        } else {
            // Beside the star, on a paper halo so that edges under it do
            // not hide it.
            svg.raw(&format!(
                r#"<text x="{}" y="{}" font-size="9" text-anchor="start" font-weight="bold" fill="{INK}" stroke="{PAPER}" stroke-width="3" paint-order="stroke">{}</text>"#,
                x + lay.r,
                y - lay.r,
                esc(&s.label)
            ));
        }
        svg.end_group();
    }

    // The score panel.
    svg.bold(PAD, panel_top, 15, "start", INK, &format!("Score ({unit})"));
    let mut y = seats_top + LINE - 4;
    for (s, text) in v.scores.iter().zip(&seat_rows) {
        let seat = s.seat;
        let style = if seat == 0 { "solid" } else { "dashed" };
        svg.group(
            "seat",
            &format!(
                "seat {}: {}, {style} edges, {}",
                seat,
                who(seat),
                match v.score {
                    Score::Count => seas(s.seas),
                    Score::Area => squares(s.area),
                }
            ),
        );
        svg.rect(PAD, y - 16, 22, 22, seat_tint(seat), INK);
        svg.bold(PAD + 11, y, 14, "middle", INK, &mark(seat));
        svg.raw(&format!(
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="3"{}/>"#,
            PAD + 28,
            y - 5,
            PAD + 62,
            y - 5,
            seat_colour(seat),
            dashes(seat, 3)
        ));
        svg.text(PAD + 72, y, TEXT, "start", INK, text);
        svg.end_group();
        y += LINE;
    }
    let mut y = rows_top + LINE - 6;
    if !rows.is_empty() {
        svg.group("status", status.as_deref().unwrap_or("the game"));
        for r in &rows {
            if r.bold {
                svg.bold(PAD, y, TEXT, "start", INK, &r.text);
            } else {
                svg.text(PAD, y, TEXT, "start", INK, &r.text);
            }
            y += LINE;
        }
        svg.end_group();
    }

    let score_line: Vec<String> = v
        .scores
        .iter()
        .map(|s| match v.score {
            Score::Count => format!("{} {}", clip(&name(s.seat), 24), seas(s.seas)),
            Score::Area => format!("{} {}", clip(&name(s.seat), 24), squares(s.area)),
        })
        .collect();
    let title = format!("Starry Night: {}", score_line.join(", "));
    let desc = format!(
        "{} stars on a {}×{} grid, {} edges, {} captured seas. {}",
        v.stars.len(),
        v.width,
        v.height,
        v.edges.len(),
        v.seas.iter().filter(|s| s.captor.is_some()).count(),
        status.unwrap_or_default()
    );
    svg.finish(&title, &desc)
}

/// What the seas and edges are drawn with.
struct Ink<'a> {
    lay: &'a Layout,
    at_label: &'a BTreeMap<&'a str, (i32, i32)>,
    mark: &'a dyn Fn(Seat) -> String,
    who: &'a dyn Fn(Seat) -> String,
}

/// A part of an edge's line, in pixels: from (x1, y1) to (x2, y2).
type Piece = ((f64, f64), (f64, f64));

/// The parts of the line from `a` to `b` that keep `gap` away from every
/// star of `stars` (label and centre) but the line's own ends, and the
/// labels of the stars it passes so. The line always keeps `keep` pixels
/// from each end's centre, so that it stays visible leaving its stars: on
/// a dense grid, a star next to an end gets a smaller gap.
fn pieces(
    (a, b): ((i32, i32), (i32, i32)),
    stars: &BTreeMap<&str, (i32, i32)>,
    gap: f64,
    keep: f64,
) -> (Vec<Piece>, Vec<String>) {
    let (ax, ay) = (f64::from(a.0), f64::from(a.1));
    let (dx, dy) = (f64::from(b.0) - ax, f64::from(b.1) - ay);
    let len = (dx * dx + dy * dy).sqrt();
    if len == 0.0 {
        return (Vec::new(), Vec::new());
    }
    // The stretches of the line (as fractions of its length) to leave out.
    let mut cuts: Vec<(f64, f64)> = Vec::new();
    let mut passed = Vec::new();
    for (&label, &c) in stars {
        if c == a || c == b {
            continue;
        }
        let (cx, cy) = (f64::from(c.0) - ax, f64::from(c.1) - ay);
        let along = (cx * dx + cy * dy) / len;
        let across = (cx * dy - cy * dx).abs() / len;
        if across >= gap || along <= 0.0 || along >= len {
            continue;
        }
        passed.push(label.to_string());
        let half = (gap * gap - across * across)
            .sqrt()
            .min(along - keep)
            .min(len - keep - along);
        if half > 0.0 {
            cuts.push(((along - half) / len, (along + half) / len));
        }
    }
    cuts.sort_by(|x, y| x.0.total_cmp(&y.0));
    let point = |t: f64| (ax + t * dx, ay + t * dy);
    let mut out = Vec::new();
    let mut t = 0.0;
    for (from, to) in cuts {
        // Less than a pixel of line reads as a speck, not an edge.
        if (from - t) * len >= 1.0 {
            out.push((point(t), point(from)));
        }
        t = f64::max(t, to);
    }
    if (1.0 - t) * len >= 1.0 {
        out.push((point(t), point(1.0)));
    }
    (out, passed)
}

/// For each edge, in the order drawn, the stars it is broken around.
fn passed_stars(v: &View, lay: &Layout, at_label: &BTreeMap<&str, (i32, i32)>) -> Vec<Vec<String>> {
    v.edges
        .iter()
        .map(
            |e| match (at_label.get(e.from.as_str()), at_label.get(e.to.as_str())) {
                (Some(&a), Some(&b)) => pieces((a, b), at_label, lay.gap(), lay.keep()).1,
                _ => Vec::new(),
            },
        )
        .collect()
}

/// The edges, in the order drawn: each a line in its drawer's colour and
/// dash pattern (the last one wider), broken around every star it passes
/// by without ending there.
fn draw_edges(svg: &mut Svg, v: &View, ink: &Ink, passed: &[Vec<String>]) {
    let w = ink.lay.edge_width();
    for (i, e) in v.edges.iter().enumerate() {
        let (Some(&a), Some(&b)) = (
            ink.at_label.get(e.from.as_str()),
            ink.at_label.get(e.to.as_str()),
        ) else {
            continue;
        };
        let last = i + 1 == v.edges.len();
        let mut title = format!("edge {}-{} by {}", e.from, e.to, (ink.who)(e.seat));
        for id in &e.captured {
            let _ = write!(title, ", captured sea {id}");
        }
        if let Some(by) = passed.get(i).filter(|by| !by.is_empty()) {
            let _ = write!(title, ", passing {} without ending there", listed(by));
        }
        if last {
            title.push_str(", the last edge");
        }
        svg.group("edge", &title);
        let width = if last { w + 2 } else { w };
        for ((x1, y1), (x2, y2)) in pieces((a, b), ink.at_label, ink.lay.gap(), ink.lay.keep()).0 {
            svg.raw(&format!(
                r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="{width}"{}/>"#,
                px(x1),
                px(y1),
                px(x2),
                px(y2),
                seat_colour(e.seat),
                dashes(e.seat, width)
            ));
        }
        svg.end_group();
    }
}

/// A pixel coordinate to a tenth, without a trailing `.0`.
fn px(v: f64) -> String {
    let tenths = (v * 10.0).round() as i64;
    if tenths % 10 == 0 {
        (tenths / 10).to_string()
    } else {
        format!("{:.1}", tenths as f64 / 10.0)
    }
}

/// Where a captured sea's mark goes.
enum SeaMark {
    /// Written inside the sea, centred on this point, this large, with the
    /// sea's area under it (area games).
    Inside {
        at: (i32, i32),
        size: i32,
        area: Option<String>,
    },
    /// On a swatch at `label`, with a leader line to `anchor` inside the
    /// sea: the sea is too thin to hold a readable letter.
    Beside {
        anchor: (i32, i32),
        label: (i32, i32),
    },
}

/// The captured seas, in the view's order: each filled in its captor's
/// tint and marked with the captor's mark, inside it when there is room,
/// else beside it on a swatch joined to it by a leader line; open seas as
/// invisible shapes that carry their titles.
fn draw_seas(svg: &mut Svg, v: &View, ink: &Ink) {
    let corners = |boundary: &[String]| -> Vec<(i32, i32)> {
        boundary
            .iter()
            .filter_map(|l| ink.at_label.get(l.as_str()).copied())
            .collect()
    };
    let mut layout = MarkRoom::new(v, ink);
    for sea in &v.seas {
        let poly = corners(&sea.boundary);
        let Some(captor) = sea.captor else {
            let islands = if sea.islands.is_empty() {
                "no island".to_string()
            } else {
                let list: Vec<String> = sea.islands.iter().map(|i| i.join("-")).collect();
                format!("islands: {}", list.join(", "))
            };
            svg.group(
                "open-sea",
                &format!(
                    "sea {}: {}, open, {islands}",
                    sea.id,
                    sea.boundary.join("-")
                ),
            );
            svg.raw(&format!(
                r#"<path d="{}" fill="none" stroke="none"/>"#,
                path(&poly)
            ));
            svg.end_group();
            continue;
        };
        let place = layout.place(&poly, (v.score == Score::Area).then_some(sea.area));
        let beside = if matches!(place, Some(SeaMark::Beside { .. })) {
            ", marked beside it (too thin to hold its mark)"
        } else {
            ""
        };
        svg.group(
            "sea",
            &format!(
                "sea {}: {}, captured by {}, {}{beside}",
                sea.id,
                sea.boundary.join("-"),
                (ink.who)(captor),
                squares(sea.area)
            ),
        );
        // A captured sea has no island (docs/starry-night.md); what
        // peninsulas enclose is walked the other way round, so the even-odd
        // fill leaves those nested seas out.
        svg.raw(&format!(
            r#"<path d="{}" fill="{}" fill-rule="evenodd" stroke="none"/>"#,
            path(&poly),
            seat_tint(captor)
        ));
        let mark = (ink.mark)(captor);
        match place {
            Some(SeaMark::Inside {
                at: (cx, cy),
                size,
                area,
            }) => {
                let lift = if area.is_some() { 6 } else { 0 };
                svg.bold(cx, cy + size * 36 / 100 - lift, size, "middle", INK, &mark);
                if let Some(a) = area {
                    svg.text(cx, cy + size * 36 / 100 + 8, 11, "middle", INK, &a);
                }
            }
            Some(SeaMark::Beside { anchor, label }) => {
                svg.line(label, anchor, INK, 1);
                svg.raw(&format!(
                    r#"<circle cx="{}" cy="{}" r="2" fill="{INK}"/>"#,
                    anchor.0, anchor.1
                ));
                svg.rect(
                    label.0 - SWATCH,
                    label.1 - SWATCH,
                    2 * SWATCH,
                    2 * SWATCH,
                    seat_tint(captor),
                    INK,
                );
                svg.bold(label.0, label.1 + 5, 13, "middle", INK, &mark);
            }
            None => {}
        }
        svg.end_group();
    }
}

/// What a sea's mark must keep clear of: the edges' lines, the stars, the
/// board's frame and the marks placed already.
struct MarkRoom {
    lines: Vec<((i32, i32), (i32, i32))>,
    stars: Vec<(i32, i32)>,
    r: i32,
    /// Half the widest edge's line, and half an edge's usual one.
    half_width: f64,
    half_line: f64,
    frame: (i32, i32, i32, i32),
    taken: Vec<((i32, i32), f64)>,
}

impl MarkRoom {
    fn new(v: &View, ink: &Ink) -> MarkRoom {
        let lines = v
            .edges
            .iter()
            .filter_map(|e| {
                Some((
                    *ink.at_label.get(e.from.as_str())?,
                    *ink.at_label.get(e.to.as_str())?,
                ))
            })
            .collect();
        MarkRoom {
            lines,
            stars: ink.at_label.values().copied().collect(),
            r: ink.lay.r,
            half_width: f64::from(ink.lay.edge_width() + 2) / 2.0,
            half_line: f64::from(ink.lay.edge_width()) / 2.0,
            frame: ink.lay.frame(),
            taken: Vec::new(),
        }
    }

    /// Where the mark of the sea `poly` goes (`area`: in half squares, to
    /// write under it), and takes that room. `None` only for a sea with
    /// nothing inside.
    fn place(&mut self, poly: &[(i32, i32)], area: Option<i64>) -> Option<SeaMark> {
        let (at, room) = inside(poly, self.r)?;
        // Clear of the edges' lines too.
        let room = room - self.half_line - 1.0;
        if room >= 0.6 * f64::from(MIN_MARK) {
            let area = area.filter(|_| room >= 24.0).map(short_area);
            let room = if area.is_some() { room - 8.0 } else { room };
            let size = ((room / 0.6) as i32).clamp(MIN_MARK, 26);
            self.taken.push((at, f64::from(size) * 0.6));
            return Some(SeaMark::Inside { at, size, area });
        }
        let label = self.beside(at);
        self.taken.push((label, f64::from(SWATCH) * 1.5));
        Some(SeaMark::Beside { anchor: at, label })
    }

    /// The nearest spot around `anchor` with room for a swatch: clear of
    /// every line, star, frame and mark; the roomiest one tried when none
    /// is.
    fn beside(&self, anchor: (i32, i32)) -> (i32, i32) {
        let need = f64::from(SWATCH) * 1.5 + 2.0;
        let mut best = (anchor, f64::NEG_INFINITY);
        for reach in [30.0, 42.0, 56.0, 72.0, 92.0, 120.0] {
            for k in 0..16 {
                // Up and to the right first, where a label reads naturally.
                let turn = -std::f64::consts::FRAC_PI_4 + f64::from(k) * std::f64::consts::PI / 8.0;
                let spot = (
                    anchor.0 + (reach * turn.cos()).round() as i32,
                    anchor.1 + (reach * turn.sin()).round() as i32,
                );
                let room = self.room(spot);
                if room >= need {
                    return spot;
                }
                if room > best.1 {
                    best = (spot, room);
                }
            }
        }
        best.0
    }

    /// How far `spot` lies from the nearest line, star, frame side or mark.
    fn room(&self, p: (i32, i32)) -> f64 {
        let (left, top, right, bottom) = self.frame;
        let lines = self
            .lines
            .iter()
            .map(|&(a, b)| distance(p, a, b) - self.half_width);
        let stars = self
            .stars
            .iter()
            .map(|&c| distance(p, c, c) - f64::from(self.r));
        let taken = self.taken.iter().map(|&(c, r)| distance(p, c, c) - r);
        let frame = [p.0 - left, right - p.0, p.1 - top, bottom - p.1]
            .into_iter()
            .map(f64::from);
        lines
            .chain(stars)
            .chain(taken)
            .chain(frame)
            .fold(f64::INFINITY, f64::min)
    }
}

/// Whose turn it is and what they must do, or the result: the text view's
/// last line.
fn status(v: &View, name: &dyn Fn(Seat) -> String) -> Option<String> {
    if let Some(r) = &v.result {
        let why = if let Some(w) = &r.withdrawn {
            match w.how {
                Withdrawal::Resigned => format!("{} resigned", name(w.seat)),
                Withdrawal::Abandoned => format!("{} stopped answering", name(w.seat)),
            }
        } else if r.stalled {
            "no edge could be drawn any more".into()
        } else if r.by_last_move {
            "the scores are tied and they made the last move".into()
        } else {
            "with the higher score".into()
        };
        return Some(format!("Game over: {} wins ({why}).", name(r.winner)));
    }
    let s = v.turn.seat?;
    let what = match v.turn.must {
        Must::ChooseFirst => "choose who moves first: first 0 or first 1".to_string(),
        Must::AnswerTakeback => format!(
            "answer {}'s takeback request: accept or decline",
            name((s + 1) % 2)
        ),
        Must::DrawEdge => format!(
            "draw an edge, e.g. {} ({} possible)",
            v.example.as_deref().unwrap_or("A-B"),
            v.legal_edges
        ),
        Must::Nothing => return None,
    };
    Some(format!("Turn: {} to {what}.", name(s)))
}

/// The coordinates along the top and down the left, every `stride` points
/// so that they do not crowd.
fn axes(svg: &mut Svg, lay: &Layout, top: i32) {
    let stride = [1, 2, 5, 10, 20, 50]
        .into_iter()
        .find(|s| s * lay.step >= 20)
        .unwrap_or(100);
    svg.group("axes", "x counts grid points from the left, y from the top");
    for x in (0..lay.cols).step_by(stride as usize) {
        let (px, _) = lay.at(x, 0);
        svg.text(px, top - 6, 11, "middle", MUTED, &x.to_string());
    }
    for y in (0..lay.rows).step_by(stride as usize) {
        let (_, py) = lay.at(0, y);
        svg.text(
            lay.ox - lay.pad - 6,
            py + 4,
            11,
            "end",
            MUTED,
            &y.to_string(),
        );
    }
    svg.end_group();
}

/// The dash pattern of `seat`'s edges: solid for the first seat, dashed for
/// the second (dotted for any other), so that no one needs the colours to
/// tell them apart.
fn dashes(seat: Seat, width: i32) -> String {
    match seat {
        0 => String::new(),
        1 => format!(r#" stroke-dasharray="{} {}""#, 3 * width + 2, 2 * width),
        _ => format!(r#" stroke-dasharray="{} {}""#, width, 2 * width),
    }
}

/// A closed SVG path through `points`.
fn path(points: &[(i32, i32)]) -> String {
    let mut d = String::new();
    for (i, (x, y)) in points.iter().enumerate() {
        let _ = write!(d, "{}{x},{y} ", if i == 0 { "M" } else { "L" });
    }
    d.push('Z');
    d
}

/// A point well inside the polygon `poly` (a sea's border walk in pixels,
/// which may pass a star twice or run out along a spur and back), and how
/// far it lies from the border and from its stars (of radius `r`): the best
/// of a lattice over the polygon's box and the centres of its corners'
/// triangles (so that a thin sliver still gets one). `None` only for a
/// polygon with nothing inside.
fn inside(poly: &[(i32, i32)], r: i32) -> Option<((i32, i32), f64)> {
    if poly.len() < 3 {
        return None;
    }
    let edges: Vec<(Point, Point)> = (0..poly.len())
        .map(|i| {
            let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
            (Point(a.0, a.1), Point(b.0, b.1))
        })
        .collect();
    let (x0, x1) = (
        poly.iter().map(|p| p.0).min()?,
        poly.iter().map(|p| p.0).max()?,
    );
    let (y0, y1) = (
        poly.iter().map(|p| p.1).min()?,
        poly.iter().map(|p| p.1).max()?,
    );
    let gap = ((x1 - x0).max(y1 - y0) / 48).max(1);
    let mut candidates = Vec::new();
    let mut y = y0 + gap;
    while y < y1 {
        let mut x = x0 + gap;
        while x < x1 {
            candidates.push((x, y));
            x += gap;
        }
        y += gap;
    }
    for i in 0..poly.len() {
        let (a, b, c) = (
            poly[i],
            poly[(i + 1) % poly.len()],
            poly[(i + 2) % poly.len()],
        );
        candidates.push(((a.0 + b.0 + c.0) / 3, (a.1 + b.1 + c.1) / 3));
    }
    let mut best: Option<((i32, i32), f64)> = None;
    for p in candidates {
        if winding(edges.iter().copied(), Point(p.0, p.1)) == 0 {
            continue;
        }
        let room = edges
            .iter()
            .map(|&(a, b)| {
                let to_vertex = distance(p, (a.0, a.1), (a.0, a.1)) - f64::from(r);
                to_vertex.min(distance(p, (a.0, a.1), (b.0, b.1)))
            })
            .fold(f64::INFINITY, f64::min);
        if best.is_none_or(|(_, d)| room > d) {
            best = Some((p, room));
        }
    }
    best
}

/// The distance from `p` to the segment `a b`.
fn distance(p: (i32, i32), a: (i32, i32), b: (i32, i32)) -> f64 {
    let (px, py) = (f64::from(p.0), f64::from(p.1));
    let (ax, ay) = (f64::from(a.0), f64::from(a.1));
    let (dx, dy) = (f64::from(b.0) - ax, f64::from(b.1) - ay);
    let len2 = dx * dx + dy * dy;
    let t = if len2 == 0.0 {
        0.0
    } else {
        (((px - ax) * dx + (py - ay) * dy) / len2).clamp(0.0, 1.0)
    };
    let (qx, qy) = (ax + t * dx - px, ay + t * dy - py);
    (qx * qx + qy * qy).sqrt()
}

/// Roughly how many pixels `text` takes at `size` (DejaVu Sans averages
/// about 0.6 em a character, bold a little more; wide scripts a whole em).
fn text_px(text: &str, size: i32, bold: bool) -> i32 {
    let per_mille: i32 = text
        .chars()
        .map(|c| match c {
            c if u32::from(c) >= 0x2E80 => 1000,
            c if c.is_ascii_uppercase() || c.is_ascii_digit() => 690,
            _ => 580,
        })
        .sum();
    let per_mille = if bold { per_mille * 11 / 10 } else { per_mille };
    per_mille * size / 1000
}

/// `B`, `B and C`, `B, C and D`.
fn listed(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

fn seas(n: i64) -> String {
    if n == 1 {
        "1 sea".into()
    } else {
        format!("{n} seas")
    }
}

/// An area in half squares, in half squares: `1 half square`, `8 half
/// squares`.
fn halves(half: i64) -> String {
    if half == 1 {
        "1 half square".into()
    } else {
        format!("{half} half squares")
    }
}

/// An area in half squares, short: `2 sq`, `1.5 sq`.
fn short_area(half: i64) -> String {
    if half % 2 == 0 {
        format!("{} sq", half / 2)
    } else {
        format!("{}.5 sq", half / 2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::starry_night::sky::{Sky, label};
    use crate::games::starry_night::{Options, StarryNight as G, State};
    use crate::games::{Context, Draw, Own, prelude::*};

    fn example(file: &str, upto: usize) -> (View, Vec<String>) {
        let path = format!("{}/examples/games/{file}", crate::REPO);
        let bytes = std::fs::read(path).unwrap();
        let r = crate::log::Replay::<G>::from_bytes_upto(&bytes, upto).unwrap();
        let v = G::view(r.state.as_ref().unwrap(), None, None);
        (v, r.names())
    }

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// A sky of these stars, seat 0 moving first, then `moves` in notation.
    fn position(stars: &[(i32, i32)], score: Score, moves: &[&str]) -> State {
        let stars: Vec<Point> = stars.iter().map(|&(x, y)| Point(x, y)).collect();
        let width = stars.iter().map(|p| p.0).max().unwrap() as u32 + 1;
        let height = stars.iter().map(|p| p.1).max().unwrap() as u32 + 1;
        let options = Options {
            sky: Sky::Stars {
                width,
                height,
                stars,
            },
            score,
        };
        let mut s = G::setup(&options, 2, &mut Draw::new([0; 32])).unwrap();
        play(&mut s, "first 0");
        for m in moves {
            play(&mut s, m);
        }
        s
    }

    fn play(s: &mut State, mv: &str) {
        let seat = s.to_act().expect("the game goes on");
        let intent = G::parse_intent(s, mv).unwrap();
        let sealed = G::seal(s, seat, &intent, &Own::default()).unwrap();
        let ctx = Context {
            seat,
            at: 0,
            commitments: 0,
            reveals: Vec::new(),
        };
        G::play(s, &ctx, &sealed.action).unwrap_or_else(|e| panic!("{mv}: {e:?}"));
    }

    /// A random sky played for `edges` edges (or to the end), each picked
    /// from the legal ones by a fixed rule.
    fn random_game(count: u32, width: u32, height: u32, edges: usize) -> State {
        let options = Options {
            sky: Sky::Random {
                count,
                width,
                height,
            },
            score: Score::Area,
        };
        let mut s = G::setup(&options, 2, &mut Draw::new([7; 32])).unwrap();
        play(&mut s, "first 1");
        for i in 0..edges {
            if s.is_over() {
                break;
            }
            let legal = s.map().legal_edges();
            let (a, b) = legal[(i * 7919 + 13) % legal.len()];
            play(&mut s, &format!("{}-{}", label(a), label(b)));
        }
        s
    }

    fn count(svg: &str, class: &str) -> usize {
        svg.matches(&format!("<g class=\"{class}\">")).count()
    }

    /// The groups of `class`, each as its markup.
    fn groups<'a>(svg: &'a str, class: &str) -> Vec<&'a str> {
        let open = format!("<g class=\"{class}\">");
        svg.match_indices(&open)
            .map(|(i, _)| {
                let rest = &svg[i..];
                &rest[..rest.find("</g>").unwrap()]
            })
            .collect()
    }

    fn size(svg: &str) -> (i32, i32) {
        let num = |key: &str| -> i32 {
            let i = svg.find(key).unwrap() + key.len();
            svg[i..].split('"').next().unwrap().parse().unwrap()
        };
        (num("width=\""), num("height=\""))
    }

    /// Renders to PNG (and leaves it in /tmp for a look); returns its size.
    fn png(svg: &str, file: &str) -> usize {
        let png = crate::picture::png::render(svg).unwrap();
        let _ = std::fs::write(format!("/tmp/night-{file}.png"), &png);
        let _ = std::fs::write(format!("/tmp/night-{file}.svg"), svg);
        png.len()
    }

    #[test]
    fn a_finished_game_shows_every_star_edge_and_captured_sea() {
        let (v, n) = example("starry-night-finished-count.jsonl", usize::MAX);
        assert!(v.result.is_some());
        let out = svg(&v, &n);
        assert_eq!(count(&out, "star"), v.stars.len());
        assert_eq!(count(&out, "edge"), v.edges.len());
        let captured: Vec<_> = v.seas.iter().filter(|s| s.captor.is_some()).collect();
        assert!(!captured.is_empty());
        assert_eq!(count(&out, "sea"), captured.len());
        assert_eq!(count(&out, "seat"), 2);
        let m = marks(&n);
        for (g, sea) in groups(&out, "sea").iter().zip(&captured) {
            let mark = &m[sea.captor.unwrap()].to_lowercase();
            assert!(g.contains(&format!(">{mark}</text>")), "{g}");
            assert!(g.contains(seat_tint(sea.captor.unwrap())), "{g}");
        }
        assert!(out.contains("Game over: "), "{out}");
        let (w, h) = size(&out);
        assert!(w <= 900 && h <= 900, "{w}×{h}");
        let bytes = png(&out, "count");
        assert!(bytes < 60_000, "{bytes} bytes");
    }

    #[test]
    fn an_area_game_and_a_game_with_takebacks() {
        for (file, upto, tag) in [
            ("starry-night-finished-area.jsonl", usize::MAX, "area"),
            ("starry-night-takeback.jsonl", usize::MAX, "takeback"),
            ("starry-night-takeback.jsonl", 14, "takeback-14"),
            ("starry-night-finished-count.jsonl", 7, "start"),
        ] {
            let (v, n) = example(file, upto);
            let out = svg(&v, &n);
            assert_eq!(count(&out, "star"), v.stars.len(), "{tag}");
            assert_eq!(count(&out, "edge"), v.edges.len(), "{tag}");
            assert_eq!(
                count(&out, "sea"),
                v.seas.iter().filter(|s| s.captor.is_some()).count(),
                "{tag}"
            );
            let text = super::super::view::render(&v, &n);
            let last = text.lines().last().unwrap();
            if last.starts_with("Turn: ") || last.starts_with("Game over: ") {
                assert!(
                    out.contains(&esc(last.replace('`', "").as_str())),
                    "{tag}: {last}"
                );
            }
            let bytes = png(&out, tag);
            assert!(bytes < 60_000, "{tag}: {bytes} bytes");
        }
    }

    #[test]
    fn a_sea_around_a_peninsula_is_marked_outside_it() {
        // Square A(0,0) B(6,0) G(6,6) F(0,6) around triangle C(2,2) D(4,2)
        // E(2,4), then C-A joins the triangle to the square.
        let stars = [
            (0, 0),
            (6, 0),
            (2, 2),
            (4, 2),
            (2, 4),
            (0, 6),
            (6, 6),
            (9, 9),
        ];
        let moves = ["C-D", "D-E", "E-C", "A-B", "B-G", "G-F", "F-A"];
        let s = position(&stars, Score::Area, &moves);
        let v = G::view(&s, None, None);
        let n = names(&["Vega", "Rigel"]);
        let out = svg(&v, &n);
        assert_eq!(count(&out, "sea"), 1, "the triangle");
        assert_eq!(count(&out, "open-sea"), 1, "the square holds an island");
        assert!(out.contains("open, islands: C-D-E"), "{out}");
        png(&out, "island");

        let mut s = s;
        play(&mut s, "C-A");
        let v = G::view(&s, None, None);
        let out = svg(&v, &n);
        assert_eq!(count(&out, "sea"), 2);
        let lay = Layout::new(&v);
        let (tx0, ty0) = lay.at(2, 2);
        let (tx1, ty1) = lay.at(4, 4);
        for g in groups(&out, "sea") {
            let x = attr(g, "<text x=\"");
            let y = attr(g, "\" y=\"");
            let in_triangle = (tx0..=tx1).contains(&x) && (ty0..=ty1).contains(&y);
            assert_eq!(
                in_triangle,
                g.contains("sea 1:") || g.contains("C-D-E"),
                "the square's mark lies outside the triangle: {g}"
            );
        }
        assert!(
            out.contains(" sq</text>"),
            "area games show each sea's area"
        );
        png(&out, "peninsula");
    }

    fn attr(g: &str, key: &str) -> i32 {
        let i = g.find(key).unwrap() + key.len();
        g[i..].split('"').next().unwrap().parse().unwrap()
    }

    /// The number after `key` in `markup`.
    fn num(markup: &str, key: &str) -> f64 {
        let i = markup
            .find(key)
            .unwrap_or_else(|| panic!("{key} in {markup}"))
            + key.len();
        markup[i..].split('"').next().unwrap().parse().unwrap()
    }

    /// The text of the group's `<title>`.
    fn title(g: &str) -> &str {
        let i = g.find("<title>").unwrap() + 7;
        &g[i..i + g[i..].find("</title>").unwrap()]
    }

    /// Checks what the picture `out` of `v` draws, as a reader sees it:
    /// every edge shows a line, no edge's line comes near a star it does
    /// not end at (closer than the star's ring and a gap of sky; on a grid
    /// too dense for that, only a star the edge's title names as passed, or
    /// one beyond its ends), and every captured sea's mark (the letter
    /// written inside it, or the end of the leader line from its swatch)
    /// lies inside that sea. Returns how many edges pass a star and how
    /// many seas are marked beside them.
    fn check_geometry(out: &str, v: &View, tag: &str) -> (usize, usize) {
        let dense = Layout::new(v).step < 50;
        let stars: Vec<(String, (f64, f64), f64)> = groups(out, "star")
            .iter()
            .map(|g| {
                let label = title(g).split(' ').nth(1).unwrap().to_string();
                let c = (num(g, "<circle cx=\""), num(g, "\" cy=\""));
                (label, c, num(g, "\" r=\""))
            })
            .collect();
        assert_eq!(stars.len(), v.stars.len(), "{tag}");
        let mut broken = 0;
        for g in groups(out, "edge") {
            let ends = title(g).split(' ').nth(1).unwrap();
            let (from, to) = ends.split_once('-').unwrap();
            let lines: Vec<&str> = g.split("<line ").skip(1).collect();
            assert!(!lines.is_empty(), "{tag}: {g}");
            let centre = |l: &str| stars.iter().find(|s| s.0 == l).unwrap().1;
            let (a, b) = (centre(from), centre(to));
            for (label, c, r) in &stars {
                if label == from || label == to {
                    continue;
                }
                let along = (c.0 - a.0) * (b.0 - a.0) + (c.1 - a.1) * (b.1 - a.1);
                let beyond = along <= 0.0 || along >= (b.0 - a.0).powi(2) + (b.1 - a.1).powi(2);
                let named = title(g)
                    .split_once(", passing ")
                    .and_then(|(_, rest)| rest.split_once(" without"))
                    .is_some_and(|(list, _)| list.split([',', ' ']).any(|l| l == label.as_str()));
                if dense && (beyond || named) {
                    continue;
                }
                for l in &lines {
                    let (a, b) = (
                        (num(l, "x1=\""), num(l, "y1=\"")),
                        (num(l, "x2=\""), num(l, "y2=\"")),
                    );
                    let d = distance_f(*c, a, b);
                    assert!(
                        d >= r + GAP,
                        "{tag}: edge {ends} comes within {d:.1} of star {label} (ring {r})"
                    );
                }
            }
            if title(g).contains("without ending there") {
                broken += 1;
            }
        }
        let mut beside = 0;
        let captured: Vec<_> = v.seas.iter().filter(|s| s.captor.is_some()).collect();
        let seas = groups(out, "sea");
        assert_eq!(seas.len(), captured.len(), "{tag}");
        for g in seas {
            let d = g.split("d=\"").nth(1).unwrap().split('"').next().unwrap();
            let poly: Vec<(Point, Point)> = {
                let pts: Vec<Point> = d
                    .trim_end_matches('Z')
                    .split_whitespace()
                    .map(|p| {
                        let (x, y) = p[1..].split_once(',').unwrap();
                        Point(x.parse().unwrap(), y.parse().unwrap())
                    })
                    .collect();
                (0..pts.len())
                    .map(|i| (pts[i], pts[(i + 1) % pts.len()]))
                    .collect()
            };
            let at = if let Some(i) = g.find("<circle ") {
                beside += 1;
                let c = &g[i..];
                (num(c, "cx=\"") as i32, num(c, "cy=\"") as i32)
            } else {
                let t = &g[g
                    .find("<text ")
                    .unwrap_or_else(|| panic!("{tag}: no mark: {g}"))..];
                let size = num(t, "font-size=\"");
                let lift = if g.contains(" sq</text>") { 6.0 } else { 0.0 };
                let y = num(t, "\" y=\"") - size * 0.36 + lift;
                (num(t, "<text x=\"") as i32, y.round() as i32)
            };
            assert!(
                winding(poly.iter().copied(), Point(at.0, at.1)) != 0,
                "{tag}: the mark at {at:?} lies outside its sea: {}",
                title(g)
            );
        }
        (broken, beside)
    }

    fn distance_f(p: (f64, f64), a: (f64, f64), b: (f64, f64)) -> f64 {
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let len2 = dx * dx + dy * dy;
        let t = if len2 == 0.0 {
            0.0
        } else {
            (((p.0 - a.0) * dx + (p.1 - a.1) * dy) / len2).clamp(0.0, 1.0)
        };
        ((a.0 + t * dx - p.0).powi(2) + (a.1 + t * dy - p.1).powi(2)).sqrt()
    }

    #[test]
    fn an_edge_past_a_star_is_broken_around_it_and_a_thin_sea_keeps_its_mark() {
        // A-D passes 0.13 grid steps from C: drawn straight, it runs through
        // C's ring and reads as A-C and C-D. The sea A-C-D it closes is half
        // a square, far too thin for a letter.
        let stars = [(0, 0), (7, 0), (5, 2), (7, 3)];
        let s = position(&stars, Score::Count, &["A-D", "C-D", "A-C"]);
        let v = G::view(&s, None, None);
        let n = names(&["Vega", "Rigel"]);
        let out = svg(&v, &n);
        let sea = &v.seas.iter().find(|s| s.captor.is_some()).unwrap();
        assert_eq!(sea.area, 1, "half a square");
        assert_eq!(check_geometry(&out, &v, "thin"), (1, 1));
        let edge = groups(&out, "edge")[0];
        assert!(
            title(edge).starts_with("edge A-D by Vega (v), passing C without"),
            "{edge}"
        );
        assert_eq!(edge.matches("<line ").count(), 2, "broken once: {edge}");
        assert!(
            out.contains("Edges passing stars they do not end at: A-D past C"),
            "{out}"
        );
        let g = groups(&out, "sea")[0];
        assert!(
            title(g).ends_with("marked beside it (too thin to hold its mark)"),
            "{g}"
        );
        assert!(
            g.contains(&format!(r#"fill="{}""#, seat_tint(0))),
            "Vega's tint: {g}"
        );
        assert!(g.contains(">v</text>"), "Vega's mark on the swatch: {g}");
        png(&out, "thin");
    }

    #[test]
    fn every_picture_keeps_edges_off_stars_they_pass_and_marks_inside_seas() {
        let mut broken = 0;
        for (file, upto) in [
            ("starry-night-finished-area.jsonl", usize::MAX),
            ("starry-night-finished-count.jsonl", usize::MAX),
            ("starry-night-takeback.jsonl", usize::MAX),
            ("starry-night-takeback.jsonl", 20),
        ] {
            let (v, n) = example(file, upto);
            broken += check_geometry(&svg(&v, &n), &v, file).0;
        }
        assert!(broken > 0, "H-L passes I in the counted game");
        for (count_, w, h, edges, tag) in [
            (60, 100, 100, 200, "100x100"),
            (163, 30, 30, 600, "30x30"),
            (40, 100, 4, 80, "100x4"),
            (14, 10, 10, 100, "10x10"),
            (30, 12, 12, 100, "12x12"),
        ] {
            let s = random_game(count_, w, h, edges);
            let v = G::view(&s, None, None);
            check_geometry(&svg(&v, &[]), &v, tag);
        }
    }

    #[test]
    fn hostile_names_are_escaped_and_clipped() {
        let (v, _) = example("starry-night-finished-count.jsonl", usize::MAX);
        let n = names(&[
            "<script>alert(1)</script>&\u{202e}",
            "Ben \"the\" 'Bold' with a very very very long name indeed",
        ]);
        let out = svg(&v, &n);
        assert!(!out.contains("<script>"), "{out}");
        assert!(!out.contains('\u{202e}'), "{out}");
        assert!(out.contains("&lt;script&gt;"), "{out}");
        assert!(!out.contains("indeed"), "long names are clipped");
        let (w, _) = size(&out);
        assert!(w <= 900, "{w}");
        png(&out, "hostile");
    }

    #[test]
    fn same_view_same_bytes() {
        let (v, n) = example("starry-night-finished-area.jsonl", usize::MAX);
        assert_eq!(svg(&v, &n), svg(&v, &n));
        let a = crate::picture::png::render(&svg(&v, &n)).unwrap();
        assert_eq!(a, crate::picture::png::render(&svg(&v, &n)).unwrap());
    }

    #[test]
    fn large_and_odd_grids_stay_modest() {
        for (count_, w, h, edges, tag) in [
            (60, 100, 100, 200, "100x100"),
            (163, 30, 30, 600, "30x30"),
            (40, 100, 4, 80, "100x4"),
            (3, 1, 3, 3, "1x3"),
            (14, 10, 10, 100, "10x10"),
        ] {
            let s = random_game(count_, w, h, edges);
            let v = G::view(&s, None, None);
            let out = svg(&v, &[]);
            assert_eq!(count(&out, "star"), v.stars.len(), "{tag}");
            assert_eq!(count(&out, "edge"), v.edges.len(), "{tag}");
            let (pw, ph) = size(&out);
            assert!(pw <= 900 && ph <= 900, "{tag}: {pw}×{ph}");
            assert!(out.contains("seat 0 (0)"), "missing names: seat numbers");
            let bytes = png(&out, tag);
            assert!(bytes < 200_000, "{tag}: {bytes} bytes");
        }
    }
}
