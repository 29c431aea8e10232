//! The picture of a Starry Sky view (SVG).
//!
//! Drawn from the [`View`] alone, so it shows what the text view shows to the
//! same reader and nothing more: a face-down token's value appears only in
//! its owner's own view (the view then holds it), every other face-down
//! token is a blank disc with its owner's mark.

use super::Ending;
use super::board::StarLabel;
use super::scoring::Outcome;
use super::token::Token;
use super::view::{
    BoardView, Occupant, Shown, SlotStatus, SlotView, StarView, TurnView, View, last_stars,
    last_text, on_table,
};
use crate::games::{Seat, Withdrawal};
use crate::picture::{INK, Links, MUTED, PAPER, SKY, Svg, clip, marks, seat_colour};

/// Secondary text: darker than [`MUTED`], so that small text stays legible.
const DIM: &str = "#4D4D4D";
/// Constellation lines.
const LINE: &str = "#9AA3B5";

const WIDTH: i32 = 1160;
const MARGIN: i32 = 16;
const GAP: i32 = 12;
const COLS: i32 = 3;
const CELL_W: i32 = (WIDTH - 2 * MARGIN - (COLS - 1) * GAP) / COLS;
/// The panel of a slot holding a board.
const CELL_H: i32 = 320;
/// The panel of a slot holding none.
const CELL_H_EMPTY: i32 = 64;
/// The panel's heading above the drawing.
const BOARD_HEAD: i32 = 48;
/// Room kept around star centres for tokens and labels.
const INSET: i32 = 26;

/// A free small star, a free large star, a token, the ring of a large star
/// under a token.
const R_SMALL: i32 = 6;
const R_LARGE: i32 = 11;
const R_TOKEN: i32 = 15;
const R_FACE: i32 = 10;
const R_HALO: i32 = 19;
const R_BADGE: i32 = 7;
/// Half the side of the outline around the last move's star.
const R_LAST: i32 = 24;

/// Draws `v` for a reader whose seat is `v.viewer` (None: a spectator);
/// `names` are the players' names in seat order (hostile: escaped and
/// clipped here; missing ones are written `P1`, `P2`, …).
///
/// The picture: a heading (variants, whose view, whose turn and what they
/// must do, the last move, the stack and pending draws); then a grid three
/// panels wide: one
/// per slot, each board drawn as its constellation (stars joined by lines,
/// each numbered as moves name it, large stars bigger and ringed under a
/// token), then the players (marks, names, coins, tokens in hand, face-down
/// tokens), the reader's own hand and a key, then the boards scored so far
/// (beside the players when they fit, else in a row of their own).
///
/// A token is a disc in its owner's colour with the owner's mark in a white
/// badge, so that colour never tells the owner alone; its value is written
/// on a white face. A face-down token the reader may not see has no face.
/// The reader's own face-down token shows its value inside a dashed ring;
/// stars whose tokens must be revealed now have a dotted ring.
///
/// Element classes, for tests and styles (each `<g>` has a `<title>`):
/// - `heading`: the first line; `turn` (or `ending` once the game is over);
///   `stack`; `last-move` (the last placement or reveal, in words);
///   `pending`, one per pending draw;
/// - `board`, one per slot holding a board, with `lines` (its constellation
///   lines) and one `star` per star, titled with its label as moves write
///   it (`leo:3`); an occupied star holds one `token` group, whose class
///   also says how it lies: `token face-up`, `token revealed`,
///   `token face-down` (blank disc: the reader may not see its value) or
///   `token face-down-own` (the reader's own, value shown inside a dashed
///   ring); `last`, one per star of the last move still on the table, an
///   ink outline around it;
/// - `slot-pending` and `slot-empty`, one per slot holding no board;
/// - `seat`, one per player; `hand` (the reader's own tokens, only in their
///   own view) holding one `hand-token` per token;
/// - `legend`; `scored`, one per scored board.
pub fn svg(v: &View, names: &[String]) -> String {
    svg_linked(v, names, &Links::default())
}

/// [`svg`] with `links` on the stars (`star leo:3`) and on the tokens of
/// the reader's hand (`token 3`).
pub fn svg_linked(v: &View, names: &[String], links: &Links) -> String {
    let who = Who::new(v, names);
    let cells = layout(v, &who);
    let rows = cells.iter().map(|c| c.row + 1).max().unwrap_or(0);
    let row_h: Vec<i32> = (0..rows)
        .map(|r| {
            cells
                .iter()
                .filter(|c| c.row == r)
                .map(|c| c.height)
                .max()
                .unwrap_or(0)
        })
        .collect();
    let last = usize::from(v.last.is_some());
    let head_h = 70 + 20 * (v.pending.len() + last) as i32;
    let height = head_h + row_h.iter().map(|h| h + GAP).sum::<i32>() + MARGIN - GAP;

    let mut svg = Svg::new(WIDTH, height).with_links(links);
    heading(&mut svg, v, &who);
    for c in &cells {
        let x = MARGIN + c.col * (CELL_W + GAP);
        let y = head_h + row_h[..c.row as usize].iter().map(|h| h + GAP).sum::<i32>();
        match c.what {
            What::Slot(slot) => slot_panel(&mut svg, v, &who, slot, x, y, c.height),
            What::Players => players(&mut svg, v, &who, x, y + 4),
            What::Scored => scored(&mut svg, v, &who, x, y + 4, c.span),
        }
    }

    let title = format!(
        "Starry Sky — {} players — {}",
        v.seats.len(),
        match &v.turn {
            TurnView::Move { seat } => format!("{} to move", who.name(*seat)),
            TurnView::Reveal { seat, .. } => format!("{} to reveal", who.name(*seat)),
            TurnView::Over { .. } => "game over".to_string(),
        }
    );
    svg.finish(&title, &describe(v, &who))
}

/// What a cell of the grid holds.
enum What<'a> {
    Slot(&'a SlotView),
    Players,
    Scored,
}

/// A cell of the grid: `span` columns from `col` in `row`, `height` tall.
struct Cell<'a> {
    row: i32,
    col: i32,
    span: i32,
    height: i32,
    what: What<'a>,
}

/// The grid, three columns: the slots in order, then the players' panel in
/// the next cell, then the scored boards in the rest of that row when they
/// fit beside it, else in a full row below.
fn layout<'a>(v: &'a View, who: &Who) -> Vec<Cell<'a>> {
    let mut cells: Vec<Cell> = v
        .slots
        .iter()
        .enumerate()
        .map(|(i, slot)| Cell {
            row: i as i32 / COLS,
            col: i as i32 % COLS,
            span: 1,
            height: if slot.board.is_some() {
                CELL_H
            } else {
                CELL_H_EMPTY
            },
            what: What::Slot(slot),
        })
        .collect();
    let k = v.slots.len() as i32;
    cells.push(Cell {
        row: k / COLS,
        col: k % COLS,
        span: 1,
        height: players_height(v),
        what: What::Players,
    });
    let (row, col) = ((k + 1) / COLS, (k + 1) % COLS);
    let beside = col != 0 && {
        let tallest = cells
            .iter()
            .filter(|c| c.row == row)
            .map(|c| c.height)
            .max()
            .unwrap_or(0);
        scored_height(v, who, COLS - col) <= tallest.max(CELL_H)
    };
    let (row, col) = if beside || col == 0 {
        (row, col)
    } else {
        (row + 1, 0)
    };
    cells.push(Cell {
        row,
        col,
        span: COLS - col,
        height: scored_height(v, who, COLS - col),
        what: What::Scored,
    });
    cells
}

/// Names and marks of the seats, and who is reading. Seats are named as
/// the text view names them: the player's name, with the seat number when
/// two players share it, `seat N` when there is none.
struct Who {
    /// Each seat's name, trimmed; None when empty or missing.
    names: Vec<Option<String>>,
    /// Whether another seat has the same name.
    shared: Vec<bool>,
    marks: Vec<String>,
    viewer: Option<Seat>,
}

impl Who {
    fn new(v: &View, names: &[String]) -> Who {
        let names: Vec<Option<String>> = (0..v.seats.len())
            .map(|s| {
                names
                    .get(s)
                    .map(|n| n.trim().to_string())
                    .filter(|n| !n.is_empty())
            })
            .collect();
        let shared = names
            .iter()
            .map(|n| n.is_some() && names.iter().filter(|m| *m == n).count() > 1)
            .collect();
        let plain: Vec<String> = names
            .iter()
            .enumerate()
            .map(|(s, n)| n.clone().unwrap_or_else(|| format!("seat {s}")))
            .collect();
        Who {
            marks: marks(&plain),
            names,
            shared,
            viewer: v.viewer,
        }
    }

    /// A seat's name, clipped.
    fn name(&self, seat: Seat) -> String {
        self.short(seat, 24)
    }

    /// A seat's name, its player's name clipped to `max` characters.
    fn short(&self, seat: Seat, max: usize) -> String {
        match self.names.get(seat) {
            Some(Some(n)) if self.shared.get(seat) == Some(&true) => {
                format!("{} (seat {seat})", clip(n, max))
            }
            Some(Some(n)) => clip(n, max),
            _ => format!("seat {seat}"),
        }
    }

    /// A seat's name, with "(you)" for the reader.
    fn me(&self, seat: Seat) -> String {
        if self.viewer == Some(seat) {
            format!("{} (you)", self.name(seat))
        } else {
            self.name(seat)
        }
    }

    fn mark(&self, seat: Seat) -> String {
        self.marks
            .get(seat)
            .cloned()
            .unwrap_or_else(|| seat.to_string())
    }

    /// "Anna's" or "your".
    fn owner(&self, seat: Seat) -> String {
        if self.viewer == Some(seat) {
            "your".to_string()
        } else {
            format!("{}'s", self.name(seat))
        }
    }
}

fn joined<T: ToString>(items: impl IntoIterator<Item = T>, sep: &str) -> String {
    items
        .into_iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(sep)
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

/// `text` cut into lines of at most `max` characters, at spaces where it
/// can (a longer word is clipped).
fn wrap(text: &str, max: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let word = clip(word, max);
        let len = line.chars().count();
        if len > 0 && len + 1 + word.chars().count() > max {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// A disc in the seat's colour with its mark in white (players, turn).
fn seat_disc(svg: &mut Svg, who: &Who, seat: Seat, x: i32, y: i32) {
    svg.circle(x, y, 10, seat_colour(seat), INK, 1);
    svg.bold(x, y + 4, 11, "middle", PAPER, &who.mark(seat));
}

/// What the turn line says (the text view's `Turn:` / `Game over:` line,
/// with names).
fn turn_text(v: &View, who: &Who) -> String {
    match &v.turn {
        TurnView::Move { seat } => format!(
            "Turn: {} places a token (e.g. {})",
            who.me(*seat),
            super::view::example_move(v, *seat)
        ),
        TurnView::Reveal { seat, stars } => format!(
            "Turn: {} must reveal their face-down tokens on {}",
            who.me(*seat),
            joined(stars, ", ")
        ),
        TurnView::Over { ending } => {
            format!("{} {}", ending_text(ending, who), winners(v, ending, who))
        }
    }
}

/// Who won: the most coins, a seat that withdrew placed last (as `status`
/// and `audit` rank them).
fn winners(v: &View, ending: &Ending, who: &Who) -> String {
    let coins: Vec<i64> = v.seats.iter().map(|s| s.coins).collect();
    let withdrawn = match ending {
        Ending::Withdrawn { seat, .. } => Some(*seat),
        _ => None,
    };
    let rows = crate::log::replay::placed_last(
        crate::games::rank_by_score(&coins),
        coins.len(),
        withdrawn,
    );
    crate::picture::winners_text(&rows, |s| who.name(s), ("coin", "coins"))
}

fn ending_text(ending: &Ending, who: &Who) -> String {
    match ending {
        Ending::AllBoardsScored => "Game over: every board has been scored.".to_string(),
        Ending::Stalled => "Game over: stalled — nobody can place a token and no board can be \
                            completed; coins stand as they are."
            .to_string(),
        Ending::Withdrawn { seat, how } => format!(
            "Game over: {} {}.",
            who.me(*seat),
            match how {
                Withdrawal::Resigned => "resigned",
                Withdrawal::Abandoned => "stopped answering (abandoned)",
            }
        ),
    }
}

/// The heading: game and variants, whose view, the turn, the stack and the
/// pending draws.
fn heading(svg: &mut Svg, v: &View, who: &Who) {
    svg.group(
        "heading",
        &format!(
            "Starry Sky, {} players, doubling {}, tie {}",
            v.seats.len(),
            v.doubling.name(),
            v.tie.name()
        ),
    );
    svg.bold(
        MARGIN,
        28,
        20,
        "start",
        INK,
        &format!("Starry Sky · {} players", v.seats.len()),
    );
    let whose = match v.viewer {
        Some(s) => format!("{}'s view", who.name(s)),
        None => "spectator view".to_string(),
    };
    svg.text(
        WIDTH - MARGIN,
        28,
        13,
        "end",
        DIM,
        &format!(
            "{whose} · doubling {} · tie {}",
            v.doubling.name(),
            v.tie.name()
        ),
    );
    svg.end_group();

    let text = turn_text(v, who);
    let (class, seat) = match &v.turn {
        TurnView::Move { seat } | TurnView::Reveal { seat, .. } => ("turn", Some(*seat)),
        TurnView::Over { .. } => ("ending", None),
    };
    svg.group(class, &text);
    let mut x = MARGIN;
    if let Some(seat) = seat {
        seat_disc(svg, who, seat, x + 10, 51);
        x += 28;
    }
    svg.bold(x, 56, 15, "start", INK, &clip(&text, 110));
    svg.end_group();

    let stack = format!("Boards left in the stack: {}", v.stack);
    svg.group("stack", &stack);
    svg.text(WIDTH - MARGIN, 56, 13, "end", INK, &stack);
    svg.end_group();

    let mut y = 78;
    if let Some(text) = last_text(v, &|s| who.me(s)) {
        // The board shows where, while it is on the table: the star is
        // outlined.
        let text = if last_stars(v).iter().any(|l| on_table(v, l)) {
            text.replacen("Last move:", "Last move (outlined):", 1)
        } else {
            text
        };
        svg.group("last-move", &text);
        svg.text(MARGIN, y, 13, "start", INK, &clip(&text, 150));
        svg.end_group();
        y += 20;
    }
    for p in &v.pending {
        let text = format!(
            "Slot {}: next board pending — draw {}, caused by {}, made by the next entry of another seat",
            p.slot + 1,
            p.draw,
            who.name(p.causer)
        );
        svg.group("pending", &text);
        svg.text(MARGIN, y, 13, "start", INK, &text);
        svg.end_group();
        y += 20;
    }
}

/// One slot: a board, or a panel saying why there is none.
fn slot_panel(svg: &mut Svg, v: &View, who: &Who, slot: &SlotView, x: i32, y: i32, h: i32) {
    let n = slot.slot + 1;
    match &slot.board {
        Some(b) => board_panel(svg, v, who, slot, b, Panel { x, y, h }),
        None => {
            let (class, text) = match slot.status {
                SlotStatus::Pending => {
                    let cause = v
                        .pending
                        .iter()
                        .find(|p| p.slot == slot.slot)
                        .map(|p| format!(" (caused by {})", who.name(p.causer)))
                        .unwrap_or_default();
                    (
                        "slot-pending",
                        format!(
                            "Slot {n} · new board pending: draw {}{cause}; nothing can be played here until it is drawn",
                            slot.draw.unwrap_or_default()
                        ),
                    )
                }
                _ => ("slot-empty", format!("Slot {n} · empty (no boards left)")),
            };
            svg.group(class, &text);
            svg.raw(&format!(
                r#"<rect x="{x}" y="{y}" width="{CELL_W}" height="{h}" fill="{PAPER}" stroke="{MUTED}" stroke-dasharray="6 4"/>"#
            ));
            for (i, line) in wrap(&text, 50).iter().enumerate() {
                svg.text(x + 14, y + 26 + 17 * i as i32, 13, "start", DIM, line);
            }
            svg.end_group();
        }
    }
}

/// A star's centre on the picture and the radius of what is drawn there.
struct Placed {
    at: (i32, i32),
    r: i32,
}

/// Where the constellation's stars go: the stars' bounding box scaled
/// uniformly (integers only) and centred in the drawing area.
fn place_stars(b: &BoardView, x: i32, y: i32, w: i32, h: i32) -> Vec<Placed> {
    let xs = b.stars.iter().map(|s| s.at[0] as i64);
    let ys = b.stars.iter().map(|s| s.at[1] as i64);
    let (x0, x1) = (xs.clone().min().unwrap_or(0), xs.max().unwrap_or(0));
    let (y0, y1) = (ys.clone().min().unwrap_or(0), ys.max().unwrap_or(0));
    // A span of at least 40 keeps two close stars of a tiny board from
    // being blown up across the panel.
    let (sx, sy) = ((x1 - x0).max(40), (y1 - y0).max(40));
    let (w, h) = (w as i64, h as i64);
    // scale = num / den, the smaller of w / sx and h / sy.
    let (num, den) = if w * sy <= h * sx { (w, sx) } else { (h, sy) };
    let (cx, cy) = (x as i64 + w / 2, y as i64 + h / 2);
    b.stars
        .iter()
        .map(|s| {
            let px = cx + (2 * s.at[0] as i64 - x0 - x1) * num / (2 * den);
            let py = cy + (2 * s.at[1] as i64 - y0 - y1) * num / (2 * den);
            let r = match (s.occupant.is_some(), s.large) {
                (true, true) => R_HALO,
                (true, false) => R_TOKEN,
                (false, true) => R_LARGE,
                (false, false) => R_SMALL,
            };
            Placed {
                at: (px as i32, py as i32),
                r,
            }
        })
        .collect()
}

fn dist_to_segment(p: (f64, f64), a: (f64, f64), b: (f64, f64)) -> f64 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len2 = dx * dx + dy * dy;
    let t = if len2 == 0.0 {
        0.0
    } else {
        (((p.0 - a.0) * dx + (p.1 - a.1) * dy) / len2).clamp(0.0, 1.0)
    };
    let (qx, qy) = (a.0 + t * dx, a.1 + t * dy);
    ((p.0 - qx).powi(2) + (p.1 - qy).powi(2)).sqrt()
}

/// Where each star's number goes: of eight spots around the star (not the
/// upper right, where a token's mark sits), the one farthest from the other
/// stars, the lines and the numbers placed before. Deterministic: fixed
/// order, first best wins.
fn label_spots(
    placed: &[Placed],
    lines: &[(usize, usize)],
    area: (i32, i32, i32, i32),
) -> Vec<(i32, i32)> {
    // (dx, dy) × 1000, preferred order.
    const DIRS: [(i32, i32); 7] = [
        (-707, 707),
        (707, 707),
        (-1000, 0),
        (1000, 0),
        (0, 1000),
        (-707, -707),
        (0, -1000),
    ];
    let (ax, ay, aw, ah) = area;
    let mut spots: Vec<(i32, i32)> = Vec::with_capacity(placed.len());
    for (i, p) in placed.iter().enumerate() {
        let d = p.r + 9;
        let mut best = (f64::NEG_INFINITY, (p.at.0, p.at.1 + d));
        for (dx, dy) in DIRS {
            let c = (p.at.0 + dx * d / 1000, p.at.1 + dy * d / 1000);
            let cf = (c.0 as f64, c.1 as f64);
            let mut score = f64::INFINITY;
            for (j, q) in placed.iter().enumerate() {
                if j != i {
                    let e = ((cf.0 - q.at.0 as f64).powi(2) + (cf.1 - q.at.1 as f64).powi(2))
                        .sqrt()
                        - q.r as f64;
                    score = score.min(e);
                }
            }
            for &(a, b) in lines {
                let (pa, pb) = (placed[a].at, placed[b].at);
                let e = dist_to_segment(cf, (pa.0 as f64, pa.1 as f64), (pb.0 as f64, pb.1 as f64));
                score = score.min(e + 2.0);
            }
            for s in &spots {
                let e = ((cf.0 - s.0 as f64).powi(2) + (cf.1 - s.1 as f64).powi(2)).sqrt() - 8.0;
                score = score.min(e);
            }
            // Stay inside the panel.
            if c.0 < ax + 6 || c.0 > ax + aw - 6 || c.1 < ay + 6 || c.1 > ay + ah - 4 {
                score -= 100.0;
            }
            if score > best.0 {
                best = (score, c);
            }
        }
        spots.push(best.1);
    }
    spots
}

/// Where a slot's panel stands: its top left corner and its height (every
/// panel is [`CELL_W`] wide).
#[derive(Clone, Copy)]
struct Panel {
    x: i32,
    y: i32,
    h: i32,
}

fn board_panel(svg: &mut Svg, v: &View, who: &Who, slot: &SlotView, b: &BoardView, at: Panel) {
    let Panel { x, y, h } = at;
    let n = slot.slot + 1;
    let reveal: Vec<&StarLabel> = match &v.turn {
        TurnView::Reveal { stars, .. } => stars.iter().filter(|l| l.board == b.id).collect(),
        _ => Vec::new(),
    };
    let status = match slot.status {
        SlotStatus::Scoring => match &v.turn {
            TurnView::Reveal { seat, .. } if !reveal.is_empty() => format!(
                "being scored · {} reveals {}",
                who.me(*seat),
                joined(&reveal, ", ")
            ),
            _ => "being scored".to_string(),
        },
        _ => format!("{} of {} stars free", b.free, b.stars.len()),
    };
    svg.group(
        "board",
        &format!(
            "Slot {n}: {} ({}), prizes {}/{}, {status}",
            clip(&b.name, 64),
            b.id,
            b.prizes[0],
            b.prizes[1]
        ),
    );
    svg.rect(x, y, CELL_W, h, SKY, MUTED);
    svg.bold(
        x + 12,
        y + 21,
        15,
        "start",
        INK,
        &format!("{n} · {}", clip(&b.name, 24)),
    );
    svg.text(
        x + CELL_W - 12,
        y + 21,
        13,
        "end",
        INK,
        &format!("prizes {} / {}", b.prizes[0], b.prizes[1]),
    );
    // How its stars are named in moves: `leo:1–9`.
    let range = match b.stars.last() {
        Some(l) => format!("{}:1–{} · ", b.id, l.label.star),
        None => String::new(),
    };
    let shown = match &v.turn {
        TurnView::Reveal { seat, .. } if !reveal.is_empty() => format!(
            "being scored · {} reveals {} (dotted)",
            who.short(*seat, 14),
            if reveal.len() == 1 {
                "1 star".to_string()
            } else {
                format!("{} stars", reveal.len())
            }
        ),
        _ => status.clone(),
    };
    svg.text(
        x + 12,
        y + 39,
        12,
        "start",
        DIM,
        &clip(&format!("{range}{shown}"), 58),
    );

    let area = (x, y + BOARD_HEAD, CELL_W, h - BOARD_HEAD);
    let placed = place_stars(
        b,
        x + INSET,
        y + BOARD_HEAD + INSET - 6,
        CELL_W - 2 * INSET,
        h - BOARD_HEAD - 2 * INSET + 6,
    );
    // The ring around a star to reveal, and the last move's outline, take
    // room from its number.
    let placed: Vec<Placed> = placed
        .into_iter()
        .zip(&b.stars)
        .map(|(p, s)| Placed {
            r: if last_stars(v).contains(&s.label) {
                R_LAST + 4
            } else if reveal.contains(&&s.label) {
                R_HALO + 5
            } else {
                p.r
            },
            ..p
        })
        .collect();
    // Each line once, from the lower-numbered star; only lines between
    // stars the board has.
    let mut lines = Vec::new();
    for (i, s) in b.stars.iter().enumerate() {
        for &nb in &s.neighbours {
            let j = nb as usize;
            if j >= 1 && j - 1 > i && j <= b.stars.len() {
                lines.push((i, j - 1));
            }
        }
    }
    svg.group(
        "lines",
        &format!("{} lines of {}", lines.len(), clip(&b.name, 64)),
    );
    for &(i, j) in &lines {
        svg.line(placed[i].at, placed[j].at, LINE, 2);
    }
    svg.end_group();

    let spots = label_spots(&placed, &lines, area);
    for (i, s) in b.stars.iter().enumerate() {
        star(
            svg,
            who,
            s,
            &placed[i],
            spots[i],
            reveal.contains(&&s.label),
        );
    }
    // The last move's stars, outlined in ink as Star Map outlines its last
    // disc (Starry Night draws its last edge wider).
    for (i, s) in b.stars.iter().enumerate() {
        if !last_stars(v).contains(&s.label) {
            continue;
        }
        let (cx, cy) = placed[i].at;
        let what = last_text(v, &|s| who.me(s)).unwrap_or_default();
        svg.group("last", &format!("{}: {what}", s.label));
        svg.raw(&format!(
            r#"<rect x="{}" y="{}" width="{}" height="{}" rx="8" fill="none" stroke="{INK}" stroke-width="3"/>"#,
            cx - R_LAST,
            cy - R_LAST,
            2 * R_LAST,
            2 * R_LAST
        ));
        svg.end_group();
    }
    svg.end_group();
}

fn star_title(who: &Who, s: &StarView, to_reveal: bool) -> String {
    let size = if s.large { "large" } else { "small" };
    let what = match s.occupant {
        None => "free".to_string(),
        Some(o) => match (o.face, o.token) {
            (Shown::FaceDownOwn, Some(t)) => {
                format!("{} {t}, face down (only you see it)", who.owner(o.seat))
            }
            (Shown::Revealed, Some(t)) => format!("{} {t}, revealed", who.owner(o.seat)),
            (_, Some(t)) => format!("{} {t}", who.owner(o.seat)),
            (_, None) => format!("{} token, face down", who.owner(o.seat)),
        },
    };
    let reveal = if to_reveal { ", to be revealed" } else { "" };
    format!("{} — {size} star — {what}{reveal}", s.label)
}

fn star(svg: &mut Svg, who: &Who, s: &StarView, p: &Placed, spot: (i32, i32), to_reveal: bool) {
    let (x, y) = p.at;
    svg.place(
        "star",
        &format!("star {}", s.label),
        &star_title(who, s, to_reveal),
    );
    match s.occupant {
        None => {
            let r = if s.large { R_LARGE } else { R_SMALL };
            svg.circle(x, y, r, PAPER, INK, 2);
        }
        Some(o) => {
            let own = o.face == Shown::FaceDownOwn;
            if s.large || own {
                if own {
                    svg.raw(&format!(
                        r#"<circle cx="{x}" cy="{y}" r="{R_HALO}" fill="{PAPER}" stroke="{INK}" stroke-width="2" stroke-dasharray="4 3"/>"#
                    ));
                } else {
                    svg.circle(x, y, R_HALO, PAPER, INK, 2);
                }
            }
            if to_reveal {
                svg.raw(&format!(
                    r#"<circle cx="{x}" cy="{y}" r="{}" fill="none" stroke="{INK}" stroke-width="2" stroke-dasharray="2 3"/>"#,
                    R_HALO + 5
                ));
            }
            token(svg, who, s, o, x, y);
        }
    }
    svg.text(
        spot.0,
        spot.1 + 4,
        11,
        "middle",
        DIM,
        &s.label.star.to_string(),
    );
    svg.end_group();
}

fn token(svg: &mut Svg, who: &Who, s: &StarView, o: Occupant, x: i32, y: i32) {
    let class = match o.face {
        Shown::FaceUp => "token face-up",
        Shown::Revealed => "token revealed",
        Shown::FaceDown => "token face-down",
        Shown::FaceDownOwn => "token face-down-own",
    };
    // A face-down token the reader may not see is blank, whatever the view
    // might hold.
    let value = match o.face {
        Shown::FaceDown => None,
        _ => o.token,
    };
    let title = match value {
        Some(t) => format!("{} {t} on {}", who.owner(o.seat), s.label),
        None => format!("{} face-down token on {}", who.owner(o.seat), s.label),
    };
    svg.group(class, &title);
    svg.circle(x, y, R_TOKEN, seat_colour(o.seat), INK, 1);
    if let Some(t) = value {
        svg.circle(x, y, R_FACE, PAPER, PAPER, 0);
        svg.bold(x, y + 4, 12, "middle", INK, t.name());
    }
    badge(svg, who, o.seat, x + 12, y - 12);
    svg.end_group();
}

/// The owner's mark on a token: a white disc ringed in the seat's colour.
fn badge(svg: &mut Svg, who: &Who, seat: Seat, x: i32, y: i32) {
    svg.circle(x, y, R_BADGE, PAPER, seat_colour(seat), 2);
    svg.bold(x, y + 3, 9, "middle", INK, &clip(&who.mark(seat), 1));
}

/// A small token (hand, legend): the disc, the face when given, the mark.
fn mini_token(svg: &mut Svg, who: &Who, seat: Seat, value: Option<Token>, x: i32, y: i32) {
    svg.circle(x, y, 13, seat_colour(seat), INK, 1);
    if let Some(t) = value {
        svg.circle(x, y, 9, PAPER, PAPER, 0);
        svg.bold(x, y + 4, 11, "middle", INK, t.name());
    }
    badge(svg, who, seat, x + 11, y - 11);
}

const ROW: i32 = 26;

fn players_height(v: &View) -> i32 {
    let hand = if v.hand.is_some() { 48 } else { 0 };
    44 + ROW * v.seats.len() as i32 + hand + 16 + LEGEND_H
}

const LEGEND_H: i32 = 96;

/// The players' table, the reader's hand and the key.
fn players(svg: &mut Svg, v: &View, who: &Who, x: i32, y: i32) {
    svg.bold(x, y + 14, 15, "start", INK, "Players");
    let cols = [
        (x + 238, "coins"),
        (x + 290, "hand"),
        (x + CELL_W, "face down"),
    ];
    for (cx, label) in cols {
        svg.text(cx, y + 14, 12, "end", DIM, label);
    }
    svg.line((x, y + 22), (x + CELL_W, y + 22), MUTED, 1);
    let to_act = match v.turn {
        TurnView::Move { seat } | TurnView::Reveal { seat, .. } => Some(seat),
        TurnView::Over { .. } => None,
    };
    let mut ry = y + 44;
    for s in &v.seats {
        let acting = to_act == Some(s.seat);
        let mut title = format!(
            "{}: {} coins, {} in hand, {} face down",
            who.me(s.seat),
            s.coins,
            s.hand,
            s.face_down
        );
        if acting {
            title.push_str(", to act");
        }
        svg.group("seat", &title);
        if acting {
            svg.polygon(&[(x, ry - 12), (x + 9, ry - 6), (x, ry)], INK, INK, "");
        }
        seat_disc(svg, who, s.seat, x + 24, ry - 6);
        let name = if who.viewer == Some(s.seat) {
            format!("{} (you)", who.short(s.seat, 18))
        } else {
            who.short(s.seat, 22)
        };
        if acting {
            svg.bold(x + 40, ry - 1, 13, "start", INK, &name);
        } else {
            svg.text(x + 40, ry - 1, 13, "start", INK, &name);
        }
        let values = [
            s.coins.to_string(),
            s.hand.to_string(),
            s.face_down.to_string(),
        ];
        for ((cx, _), val) in cols.iter().zip(values) {
            svg.text(*cx, ry - 1, 13, "end", INK, &val);
        }
        svg.end_group();
        ry += ROW;
    }
    if let (Some(seat), Some(hand)) = (v.viewer, &v.hand) {
        let list = if hand.is_empty() {
            "empty".to_string()
        } else {
            joined(hand, " ")
        };
        svg.group("hand", &format!("Your hand: {list}"));
        svg.bold(x, ry + 12, 13, "start", INK, "Your hand:");
        if hand.is_empty() {
            svg.text(x + 84, ry + 12, 13, "start", INK, "empty");
        }
        for (i, t) in hand.iter().enumerate() {
            let tx = x + 100 + 34 * i as i32;
            svg.place("hand-token", &format!("token {t}"), &format!("your {t}"));
            mini_token(svg, who, seat, Some(*t), tx, ry + 7);
            svg.end_group();
        }
        svg.end_group();
        ry += 48;
    }
    legend(svg, who, v, x, ry);
}

/// The key: stars, and the ways a token lies.
fn legend(svg: &mut Svg, who: &Who, v: &View, x: i32, y: i32) {
    svg.group("legend", "Key");
    svg.line((x, y - 8), (x + CELL_W, y - 8), MUTED, 1);
    let seat = v.viewer.unwrap_or(0);
    // Row 1: stars.
    let r1 = y + 14;
    svg.circle(x + 10, r1, R_SMALL, PAPER, INK, 2);
    svg.text(x + 24, r1 + 4, 12, "start", INK, "small star");
    svg.circle(x + 110, r1, R_LARGE, PAPER, INK, 2);
    svg.text(
        x + 128,
        r1 + 4,
        12,
        "start",
        INK,
        "large star (token goes face down)",
    );
    // Row 2: tokens.
    let r2 = y + 52;
    let sample = if v.seats.is_empty() { None } else { Some(seat) };
    if let Some(seat) = sample {
        mini_token(svg, who, seat, Some(Token::Seven), x + 12, r2);
        svg.text(x + 32, r2 + 4, 12, "start", INK, "face up");
        svg.circle(x + 104, r2, 17, PAPER, INK, 2);
        mini_token(svg, who, seat, None, x + 104, r2);
        svg.text(x + 126, r2 + 4, 12, "start", INK, "face down");
        if v.hand.is_some() {
            svg.raw(&format!(
                r#"<circle cx="{}" cy="{r2}" r="17" fill="{PAPER}" stroke="{INK}" stroke-width="2" stroke-dasharray="4 3"/>"#,
                x + 210
            ));
            mini_token(svg, who, seat, Some(Token::Seven), x + 210, r2);
            svg.text(x + 232, r2 + 4, 12, "start", INK, "yours, face down:");
            svg.text(x + 232, r2 + 18, 12, "start", INK, "only you see it");
        }
    }
    svg.text(
        x,
        r2 + 36,
        12,
        "start",
        DIM,
        &format!(
            "Mark on a token: {}; number by a star: its label",
            crate::picture::marks_meaning(&who.marks)
        ),
    );
    svg.end_group();
}

/// How the prizes went, with names.
fn outcome_text(outcome: &Outcome, who: &Who) -> String {
    let names = |seats: &[Seat]| joined(seats.iter().map(|&x| who.short(x, 12)), ", ");
    match outcome {
        Outcome::Nobody => "everything swallowed, nobody paid".to_string(),
        Outcome::Alone(x) => format!("{} alone, both prizes", who.short(*x, 12)),
        Outcome::TieForFirst(seats) => format!("tie for first ({}), no prizes", names(seats)),
        Outcome::TieForSecond { first, tied } => format!(
            "{} first; tie for second ({}), no second prize",
            who.short(*first, 12),
            names(tied)
        ),
        Outcome::Ranked { first, second } => format!(
            "{} first, {} second",
            who.short(*first, 12),
            who.short(*second, 12)
        ),
    }
}

/// Each seat's result on a scored board, as the text view lists them
/// (seats with a place or a payment), by mark.
fn seat_results(s: &super::Scored, who: &Who) -> Vec<String> {
    s.score
        .seats
        .iter()
        .filter(|x| x.place.is_some() || x.coins != 0)
        .map(|x| {
            let place = x
                .place
                .map(|p| format!(", {}", ordinal(p)))
                .unwrap_or_default();
            format!(
                "{} {} pts{place}, {:+} coin{}",
                who.mark(x.seat),
                x.total,
                x.coins,
                if x.coins.abs() == 1 { "" } else { "s" }
            )
        })
        .collect()
}

fn scored_heading(s: &super::Scored, who: &Who) -> String {
    format!(
        "{} · completed by {}",
        clip(&s.name, 20),
        who.short(s.completer, 14)
    )
}

fn scored_title(s: &super::Scored, who: &Who) -> String {
    format!(
        "{} ({}), slot {}, completed by {}: {}; {}",
        clip(&s.name, 64),
        s.board,
        s.slot + 1,
        who.name(s.completer),
        outcome_text(&s.score.outcome, who),
        seat_results(s, who).join("; ")
    )
}

/// The lines of one scored board's entry (bold or not, text): the board,
/// its outcome, and what each seat got in coins. Points and places stay in
/// the entry's title (a tooltip) and in the text view: a picture mailed
/// with every turn keeps its words few.
fn scored_lines(s: &super::Scored, who: &Who) -> Vec<(bool, String)> {
    let mut lines = vec![(true, clip(&scored_heading(s, who), 48))];
    let outcome = outcome_text(&s.score.outcome, who);
    let coins: Vec<String> = s
        .score
        .seats
        .iter()
        .filter(|x| x.coins != 0)
        .map(|x| format!("{} {:+}", who.mark(x.seat), x.coins))
        .collect();
    let line = if coins.is_empty() {
        outcome
    } else {
        format!("{outcome} · {}", coins.join(" "))
    };
    lines.extend(wrap(&line, 56).into_iter().map(|l| (false, l)));
    lines
}

const SCORED_LINE: i32 = 16;

fn scored_entry_height(s: &super::Scored, who: &Who) -> i32 {
    scored_lines(s, who).len() as i32 * SCORED_LINE + 10
}

/// Entries go into `cols` columns, filled column by column in order:
/// the first index of each column, and the height of the tallest.
fn scored_columns(v: &View, who: &Who, cols: i32) -> (Vec<usize>, i32) {
    let hs: Vec<i32> = v
        .scored
        .iter()
        .map(|s| scored_entry_height(s, who))
        .collect();
    let total: i32 = hs.iter().sum();
    let pack = |limit: i32| {
        let mut starts = vec![0];
        let mut acc = 0;
        for (i, h) in hs.iter().enumerate() {
            if acc > 0 && acc + h > limit {
                starts.push(i);
                acc = 0;
            }
            acc += h;
        }
        starts
    };
    // The lowest limit that needs no more than `cols` columns.
    let mut limit = hs.iter().copied().max().unwrap_or(0);
    while limit < total && pack(limit).len() > cols.max(1) as usize {
        limit += 1;
    }
    let starts = pack(limit);
    let tallest = (0..starts.len())
        .map(|c| {
            let end = starts.get(c + 1).copied().unwrap_or(hs.len());
            hs[starts[c]..end].iter().sum::<i32>()
        })
        .max()
        .unwrap_or(0);
    (starts, tallest)
}

fn scored_height(v: &View, who: &Who, cols: i32) -> i32 {
    44 + scored_columns(v, who, cols).1.max(20)
}

/// The boards scored so far, oldest first, in `cols` columns.
fn scored(svg: &mut Svg, v: &View, who: &Who, x: i32, y: i32, cols: i32) {
    let w = cols * CELL_W + (cols - 1) * GAP;
    svg.bold(
        x,
        y + 14,
        15,
        "start",
        INK,
        &format!("Scored boards: {}", v.scored.len()),
    );
    svg.line((x, y + 22), (x + w, y + 22), MUTED, 1);
    if v.scored.is_empty() {
        svg.text(x, y + 42, 13, "start", DIM, "No board scored yet.");
        return;
    }
    let (starts, _) = scored_columns(v, who, cols);
    let mut cy = y + 40;
    let mut cx = x;
    for (i, s) in v.scored.iter().enumerate() {
        if let Some(c) = starts.iter().position(|&st| st == i).filter(|&c| c > 0) {
            cy = y + 40;
            cx = x + c as i32 * (CELL_W + GAP);
        }
        let lines = scored_lines(s, who);
        svg.group("scored", &scored_title(s, who));
        for (bold, line) in &lines {
            if *bold {
                svg.bold(cx, cy, 13, "start", INK, line);
            } else {
                svg.text(cx, cy, 12, "start", INK, line);
            }
            cy += SCORED_LINE;
        }
        svg.end_group();
        cy += 10;
    }
}

/// The picture's `<desc>`: the position in one paragraph.
fn describe(v: &View, who: &Who) -> String {
    let boards: Vec<String> = v
        .slots
        .iter()
        .filter_map(|s| s.board.as_ref())
        .map(|b| format!("{} ({} of {} stars free)", b.name, b.free, b.stars.len()))
        .collect();
    let seats: Vec<String> = v
        .seats
        .iter()
        .map(|s| format!("{} {} coins", who.me(s.seat), s.coins))
        .collect();
    let last = last_text(v, &|s| who.me(s))
        .map(|t| format!("{t} "))
        .unwrap_or_default();
    format!(
        "{}. {}. Boards in play: {}. Boards left in the stack: {}. Scored: {}. {last}{}",
        match v.viewer {
            Some(s) => format!("{}'s view", who.name(s)),
            None => "Spectator view".to_string(),
        },
        seats.join(", "),
        if boards.is_empty() {
            "none".to_string()
        } else {
            boards.join(", ")
        },
        v.stack,
        v.scored.len(),
        turn_text(v, who)
    )
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;

    use super::super::{LastMove, StarrySky};
    use super::*;
    use crate::crypto::identity::Identity;
    use crate::games::prelude::*;
    use crate::log::Replay;

    fn example(name: &str) -> Vec<u8> {
        std::fs::read(format!("{}/examples/games/{name}", crate::REPO)).unwrap()
    }

    const LOGS: [&str; 4] = [
        "in-progress-4p.jsonl",
        "finished-3p-additive-coins.jsonl",
        "finished-4p-compound-nothing.jsonl",
        "finished-5p-compound-coins.jsonl",
    ];

    fn replay(bytes: &[u8], upto: usize) -> Replay<StarrySky> {
        Replay::<StarrySky>::from_bytes_upto(bytes, upto).unwrap()
    }

    fn spectator(r: &Replay<StarrySky>) -> Option<View> {
        r.state.as_ref().map(|s| StarrySky::view(s, None, None))
    }

    /// The view of whoever `identity` (a directory under
    /// `examples/games/identities`) is, with their secrets, as `starry view`
    /// builds it.
    fn own(r: &Replay<StarrySky>, identity: &str) -> Option<View> {
        let dir = format!("{}/examples/games/identities/{identity}", crate::REPO);
        let file = std::path::Path::new(&dir).join(crate::crypto::identity::FILE_NAME);
        let id = Identity::from_file(file.clone(), &std::fs::read(&file).unwrap()).unwrap();
        let seat = r.seat_of_key(&id.public_key())?;
        let state = r.state.as_ref()?;
        let secret = r.game_secret(&id, seat)?;
        let own = r.own_hidden(&secret, seat).ok()?;
        Some(StarrySky::view(state, Some(seat), Some(&own)))
    }

    fn count(svg: &str, needle: &str) -> usize {
        svg.matches(needle).count()
    }

    fn stars(v: &View) -> usize {
        v.slots
            .iter()
            .filter_map(|s| s.board.as_ref())
            .map(|b| b.stars.len())
            .sum()
    }

    fn occupants(v: &View) -> Vec<Occupant> {
        v.slots
            .iter()
            .filter_map(|s| s.board.as_ref())
            .flat_map(|b| b.stars.iter())
            .filter_map(|s| s.occupant)
            .collect()
    }

    /// The groups of one class, each as its markup up to the class's end
    /// (tokens hold no nested groups).
    fn groups<'a>(svg: &'a str, class: &str) -> Vec<&'a str> {
        let open = format!("<g class=\"{class}\">");
        svg.match_indices(&open)
            .map(|(i, _)| {
                let rest = &svg[i..];
                &rest[..rest.find("</g>").unwrap()]
            })
            .collect()
    }

    fn check(v: &View, names: &[String]) -> String {
        let svg = svg(v, names);
        assert_eq!(count(&svg, r#"<g class="star">"#), stars(v));
        let occ = occupants(v);
        assert_eq!(count(&svg, r#"<g class="token "#), occ.len());
        let boards = v.slots.iter().filter(|s| s.board.is_some()).count();
        assert_eq!(count(&svg, r#"<g class="board">"#), boards);
        assert_eq!(
            count(&svg, r#"<g class="slot-"#),
            v.slots.len() - boards,
            "every slot is drawn"
        );
        assert_eq!(count(&svg, r#"<g class="seat">"#), v.seats.len());
        assert_eq!(count(&svg, r#"<g class="scored">"#), v.scored.len());
        // Face-down tokens the reader may not see carry nothing but the
        // owner's mark: a disc and a badge.
        let hidden = occ.iter().filter(|o| o.face == Shown::FaceDown).count();
        let blanks = groups(&svg, "token face-down");
        assert_eq!(blanks.len(), hidden);
        for g in &blanks {
            assert_eq!(count(g, "<text"), 1, "only the mark: {g}");
            assert_eq!(count(g, "<circle"), 2, "{g}");
        }
        let own = occ.iter().filter(|o| o.face == Shown::FaceDownOwn).count();
        assert_eq!(groups(&svg, "token face-down-own").len(), own);
        assert!(svg.len() < 200_000);
        svg
    }

    #[test]
    fn every_position_of_every_example_is_drawn_as_its_view() {
        for log in LOGS {
            let bytes = example(log);
            let full = Replay::<StarrySky>::from_bytes(&bytes).unwrap();
            let names = full.names();
            for n in 1..=full.len() as usize {
                let r = replay(&bytes, n);
                if let Some(v) = spectator(&r) {
                    let svg = check(&v, &names);
                    assert!(!svg.contains("face-down-own"), "{log} at {n}");
                }
            }
        }
    }

    #[test]
    fn the_last_placement_or_reveal_is_outlined_and_named_without_hidden_values() {
        let (mut down, mut up, mut revealed, mut gone) = (0, 0, 0, 0);
        for log in LOGS {
            let bytes = example(log);
            let full = Replay::<StarrySky>::from_bytes(&bytes).unwrap();
            let names = full.names();
            for n in 1..=full.len() as usize {
                let Some(v) = spectator(&replay(&bytes, n)) else {
                    continue;
                };
                let svg = svg(&v, &names);
                let text = super::super::view::render(&v, &names);
                let Some(last) = &v.last else {
                    assert!(!svg.contains("Last move") && !text.contains("Last move"));
                    continue;
                };
                let line = text.lines().find(|l| l.starts_with("Last move: ")).unwrap();
                // Each outline's title starts with its star: `leo:4: Last move: …`.
                let outlined: Vec<String> = groups(&svg, "last")
                    .iter()
                    .map(|g| {
                        let t = &g[g.find("<title>").unwrap() + 7..];
                        t.split(':').take(2).collect::<Vec<_>>().join(":")
                    })
                    .collect();
                let on_table: Vec<String> = last_stars(&v)
                    .iter()
                    .filter(|l| {
                        v.slots
                            .iter()
                            .filter_map(|s| s.board.as_ref())
                            .any(|b| b.id == l.board)
                    })
                    .map(|l| l.to_string())
                    .collect();
                assert_eq!(outlined, on_table, "{log} at {n}: {line}");
                let shown = if on_table.is_empty() {
                    gone += 1;
                    assert!(line.ends_with("(that board has been scored)."), "{line}");
                    line.to_string()
                } else {
                    line.replacen("Last move:", "Last move (outlined):", 1)
                };
                assert!(
                    svg.contains(&crate::picture::esc(&shown)),
                    "{log} at {n}: {shown}"
                );
                match last {
                    LastMove::Place {
                        seat,
                        star,
                        token: None,
                    } => {
                        down += 1;
                        assert_eq!(
                            line,
                            format!(
                                "Last move: {} placed a token face down on {star}.",
                                names[*seat]
                            )
                        );
                    }
                    LastMove::Place {
                        seat,
                        star,
                        token: Some(t),
                    } => {
                        up += 1;
                        assert!(line.starts_with(&format!(
                            "Last move: {} placed {t} on {star}",
                            names[*seat]
                        )));
                    }
                    LastMove::Reveal { stars, .. } => {
                        revealed += 1;
                        assert!(!stars.is_empty() && line.contains(" revealed "), "{line}");
                    }
                }
            }
        }
        assert!(
            down > 0 && up > 0 && revealed > 0 && gone > 0,
            "{down} {up} {revealed} {gone}"
        );
    }

    #[test]
    fn own_views_show_own_face_down_values_and_nobody_elses() {
        let bytes = example("in-progress-4p.jsonl");
        let r = Replay::<StarrySky>::from_bytes(&bytes).unwrap();
        let names = r.names();
        // Anna (seat 0) has 1 on aries:3, 7 on virgo:3 and ds on virgo:6
        // face down; Ben two face-down tokens on leo:3 and leo:8.
        let v = own(&r, "anna").unwrap();
        assert_eq!(v.viewer, Some(0));
        let svg = check(&v, &names);
        let mine = groups(&svg, "token face-down-own");
        assert_eq!(mine.len(), 3);
        let values: Vec<&str> = mine
            .iter()
            .map(|g| {
                // The value is the first text of the token.
                let first = g.find("<text").unwrap();
                let gt = g[first..].find('>').unwrap() + first + 1;
                let end = g[gt..].find("</text>").unwrap() + gt;
                &g[gt..end]
            })
            .collect();
        assert_eq!(values, ["1", "7", "ds"]);
        assert!(svg.contains("aries:3 — large star — your 1, face down (only you see it)"));
        // Ben's face-down tokens stay blank in Anna's view.
        assert_eq!(groups(&svg, "token face-down").len(), 2);
        assert!(svg.contains("leo:3 — large star — Ben&#39;s token, face down"));
        // Her hand, as the text view lists it.
        assert!(svg.contains("<title>Your hand: 3 5 6 10 bh ds</title>"));
        assert_eq!(count(&svg, r#"<g class="hand-token">"#), 6);
        assert!(svg.contains("Anna&#39;s view"));

        // The spectator sees none of it, and no hand.
        let s = check(&spectator(&r).unwrap(), &names);
        assert_eq!(groups(&s, "token face-down").len(), 5);
        assert!(!s.contains("only you see it"));
        assert!(!s.contains(r#"class="hand""#));
        assert!(s.contains("aries:3 — large star — Anna&#39;s token, face down"));
        assert!(s.contains("Turn: Cleo places a token (e.g. 10 leo:1)"));
        assert!(s.contains("Boards left in the stack: 6"));

        // Ben sees his own and not Anna's.
        let b = check(&own(&r, "ben").unwrap(), &names);
        assert_eq!(groups(&b, "token face-down-own").len(), 2);
        assert_eq!(groups(&b, "token face-down").len(), 3);
    }

    #[test]
    fn labels_tokens_and_purses_are_as_in_the_text_view() {
        let bytes = example("in-progress-4p.jsonl");
        let r = Replay::<StarrySky>::from_bytes(&bytes).unwrap();
        let svg = svg(&spectator(&r).unwrap(), &r.names());
        // leo:7 holds Ben's 10 face up, leo:1 is free and large.
        assert!(svg.contains("<title>leo:7 — small star — Ben&#39;s 10</title>"));
        assert!(svg.contains("<title>leo:1 — large star — free</title>"));
        let tok = groups(&svg, "token face-up")
            .into_iter()
            .find(|g| g.contains("Ben&#39;s 10 on leo:7"))
            .unwrap();
        assert!(
            tok.contains(">10</text>") && tok.contains(">B</text>"),
            "{tok}"
        );
        assert!(tok.contains(crate::picture::seat_colour(1)), "{tok}");
        // Purses and counts.
        assert!(svg.contains("<title>Anna: 2 coins, 6 in hand, 3 face down</title>"));
        assert!(svg.contains("<title>Cleo: 8 coins, 7 in hand, 0 face down, to act</title>"));
        assert!(svg.contains("Slot 1: Leo (leo), prizes 9/7, 3 of 9 stars free"));
        assert!(svg.contains("Cancer · completed by Cleo"));
        assert!(svg.contains(
            "<title>Cancer (cancer), slot 4, completed by Cleo: Ben first; tie for second \
             (Anna, Cleo), no second prize; A 0 pts, 2nd, +1 coin; B 26 pts, 1st, +5 coins; \
             C 0 pts, 2nd, +1 coin</title>"
        ));
    }

    #[test]
    fn scoring_pending_and_finished_positions() {
        let (mut reveal, mut pending, mut over) = (false, false, false);
        for log in LOGS {
            let bytes = example(log);
            let full = Replay::<StarrySky>::from_bytes(&bytes).unwrap();
            let names = full.names();
            for n in 1..=full.len() as usize {
                let Some(v) = spectator(&replay(&bytes, n)) else {
                    continue;
                };
                let svg = svg(&v, &names);
                match &v.turn {
                    TurnView::Reveal { stars, .. } => {
                        reveal = true;
                        assert!(svg.contains("must reveal their face-down tokens on"));
                        assert!(svg.contains("being scored"));
                        for l in stars {
                            assert!(svg.contains(&format!("{l} — large star")));
                            assert!(svg.contains(", to be revealed</title>"));
                        }
                    }
                    TurnView::Over { .. } => {
                        over = true;
                        assert!(svg.contains(r#"<g class="ending">"#));
                        assert!(svg.contains("Game over:"));
                    }
                    TurnView::Move { .. } => {}
                }
                if !v.pending.is_empty() {
                    pending = true;
                    assert_eq!(count(&svg, r#"<g class="pending">"#), v.pending.len());
                    assert!(svg.contains("next board pending — draw"));
                }
            }
        }
        assert!(reveal && pending && over, "{reveal} {pending} {over}");
    }

    #[test]
    fn hostile_names_are_escaped_and_missing_ones_numbered() {
        let bytes = example("in-progress-4p.jsonl");
        let r = Replay::<StarrySky>::from_bytes(&bytes).unwrap();
        let v = spectator(&r).unwrap();
        let names = vec![
            "<script>\u{1b}[2J".to_string(),
            "\"&'\u{202e}".to_string(),
            "x".repeat(500),
        ];
        let svg = svg(&v, &names);
        assert!(!svg.contains("<script>"));
        assert!(!svg.contains('\u{1b}') && !svg.contains('\u{202e}'));
        assert!(svg.contains("&lt;script&gt;\\u{1b}[2J"));
        assert!(!svg.contains(&"x".repeat(30)));
        // The fourth seat has no name: it is "seat 3", and marks are
        // numbers.
        assert!(svg.contains("<title>seat 3: 7 coins,"));
        assert!(svg.contains(">3</text>"));
        crate::picture::png::render(&svg).unwrap();
    }

    #[test]
    fn players_sharing_a_name_are_told_apart_by_seat() {
        let bytes = example("in-progress-4p.jsonl");
        let r = Replay::<StarrySky>::from_bytes(&bytes).unwrap();
        let v = spectator(&r).unwrap();
        let names: Vec<String> = ["Ann", " Ann ", "Cleo", "Dan"].map(String::from).into();
        let svg = svg(&v, &names);
        assert!(svg.contains("<title>Ann (seat 0): 2 coins,"));
        assert!(svg.contains("<title>Ann (seat 1): 6 coins,"));
        assert!(svg.contains("<title>Cleo: 8 coins,"));
        // Initials clash, so every mark is a seat number.
        assert!(svg.contains("leo:7 — small star — Ann (seat 1)&#39;s 10"));
        let tok = groups(&svg, "token face-up")
            .into_iter()
            .find(|g| g.contains("on leo:7"))
            .unwrap();
        assert!(tok.contains(">1</text>"), "{tok}");
    }

    #[test]
    fn same_view_same_bytes_and_it_renders() {
        for log in LOGS {
            let bytes = example(log);
            let r = Replay::<StarrySky>::from_bytes(&bytes).unwrap();
            let v = spectator(&r).unwrap();
            let a = svg(&v, &r.names());
            assert_eq!(a, svg(&v.clone(), &r.names()));
            let png = crate::picture::png::render(&a).unwrap();
            assert_eq!(png, crate::picture::png::render(&a).unwrap());
            assert!(a.starts_with("<svg"));
            // Integer coordinates only.
            for attr in [" x=\"", " y=\"", " cx=\"", " cy=\"", " x1=\"", " y2=\""] {
                for (i, _) in a.match_indices(attr) {
                    let rest = &a[i + attr.len()..];
                    let val = &rest[..rest.find('"').unwrap()];
                    assert!(val.parse::<i32>().is_ok(), "{attr}{val}");
                }
            }
        }
    }

    #[test]
    fn wrap_cuts_at_spaces() {
        assert_eq!(wrap("ab cd ef", 5), ["ab cd", "ef"]);
        assert_eq!(wrap("", 5), [""]);
        assert_eq!(wrap("abcdefgh", 5), ["abcd…"]);
    }

    /// Writes PNGs of the examples to the temporary directory, to look at:
    /// `cargo test --lib starry_sky::picture -- --ignored`.
    #[test]
    #[ignore]
    fn write_pngs() {
        let dir = std::env::temp_dir();
        let mut out = String::new();
        let mut save = |name: &str, svg: &str| {
            let png = crate::picture::png::render(svg).unwrap();
            std::fs::write(dir.join(format!("{name}.png")), &png).unwrap();
            std::fs::write(dir.join(format!("{name}.svg")), svg).unwrap();
            let _ = writeln!(
                out,
                "{name}: {} bytes PNG, {} bytes SVG",
                png.len(),
                svg.len()
            );
        };
        let bytes = example("in-progress-4p.jsonl");
        let r = Replay::<StarrySky>::from_bytes(&bytes).unwrap();
        save(
            "sky-4p-spectator",
            &svg(&spectator(&r).unwrap(), &r.names()),
        );
        save("sky-4p-anna", &svg(&own(&r, "anna").unwrap(), &r.names()));
        for log in &LOGS[1..] {
            let bytes = example(log);
            let full = Replay::<StarrySky>::from_bytes(&bytes).unwrap();
            let names = full.names();
            save(
                &format!("sky-{}-end", &log[..log.len() - 6]),
                &svg(&spectator(&full).unwrap(), &names),
            );
            // The fullest position (most tokens on the boards) and the first
            // reveal.
            let mut best = (0, 1);
            let mut first_reveal = None;
            for n in 1..=full.len() as usize {
                if let Some(v) = spectator(&replay(&bytes, n)) {
                    let k = occupants(&v).len();
                    if k > best.0 {
                        best = (k, n);
                    }
                    if first_reveal.is_none() && matches!(v.turn, TurnView::Reveal { .. }) {
                        first_reveal = Some(n);
                    }
                }
            }
            let v = spectator(&replay(&bytes, best.1)).unwrap();
            save(
                &format!("sky-{}-full", &log[..log.len() - 6]),
                &svg(&v, &names),
            );
            if let Some(v) = own(&replay(&bytes, best.1), "eve") {
                save(
                    &format!("sky-{}-full-eve", &log[..log.len() - 6]),
                    &svg(&v, &names),
                );
            }
            if let Some(n) = first_reveal {
                let v = spectator(&replay(&bytes, n)).unwrap();
                save(
                    &format!("sky-{}-reveal", &log[..log.len() - 6]),
                    &svg(&v, &names),
                );
            }
        }
        println!("{out}");
    }
}
