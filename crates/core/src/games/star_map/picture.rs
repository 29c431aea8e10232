//! The picture of a Star Map view (SVG): the 12 × 12 map with its squares
//! and the discs laid on it, every hand, the stacks, the scores and whose
//! turn it is — what the text view shows, drawn.
//!
//! Stars are told apart by their code, written on every star (and the
//! colour of the star's name adds to it); square kinds by their signs
//! (`+2`, a star with "only", a crossed-out star with "not", a meteorite's
//! rock); seats by their mark (initial or number) beside their colour.

use super::data::Shape;
use super::map::{CENTRE, SIZE, Sq};
use super::view::{self, LastMove, SquareKind, View};
use crate::games::Withdrawal;
use crate::picture::{
    INK, Links, MUTED, PAPER, SKY, Svg, clip, esc, marks, seat_colour, seat_tint,
};

/// The picture's width.
const WIDTH: i32 = 1100;
/// A map square's side.
const CELL: i32 = 50;
/// The map's top-left corner.
const MAP_X: i32 = 40;
const MAP_Y: i32 = 64;
/// The map's side.
const MAP: i32 = CELL * SIZE as i32;
/// The legend's first line, under the map.
const LEGEND_Y: i32 = MAP_Y + MAP + 44;
/// The right-hand panel: hands, scores, stacks.
const PANEL_X: i32 = 686;
const PANEL_W: i32 = WIDTH - PANEL_X - 12;
/// A field's side on a disc in hand.
const HAND_CELL: i32 = 28;

/// The discs' material: a dark night blue, under light stars.
const DISC: &str = "#27345C";
/// The ring on an empty field.
const EMPTY_RING: &str = "#8D99C0";
/// Map lines, and the part borders.
const GRID: &str = "#C5CCDD";
const PART_LINE: &str = "#6F7890";
/// A bonus square's fill.
const BONUS: &str = "#FBEBC0";
/// A meteorite's square and its rock.
const ROCK_GROUND: &str = "#E6E3DE";
const ROCK: &str = "#6A645C";

/// Draws `v` for a reader who knows the seats as `names`.
///
/// Groups, by class (each with a `<title>`), in this order:
/// - `square`: each of the 144 squares, in reading order, with its kind's
///   sign (nothing under a field, as in the text view);
/// - `placed`: each disc on the map (the start disc too), in reading order
///   of its first square, holding a `field` group per square it covers;
/// - `last`: the outline of the last disc placed, and the mark of the seat
///   that placed it;
/// - `legend`: the stars and the signs;
/// - `status`: whose turn it is (or why the game is over) and the last move;
/// - `hand`: each seat's header and hand, in seat order, holding a `disc`
///   group per disc in hand order;
/// - `teams` (four seats only), `stacks` (holding a `stack` per shape) and
///   `pending` (a draw under way).
pub fn svg(v: &View, names: &[String]) -> String {
    svg_linked(v, names, &Links::default())
}

/// [`svg`] with `links` on the squares (`square f8`) and on the discs of
/// the reader's own hand (`disc corner1`).
pub fn svg_linked(v: &View, names: &[String], links: &Links) -> String {
    let marks = marks(&seat_names(v, names));
    // The height is known once the panel is laid out: a dry run finds it.
    let legend_end = draw_legend(&mut Svg::new(WIDTH, 0), v, LEGEND_Y);
    let panel_end = draw_panel(&mut Svg::new(WIDTH, 0), v, names, &marks);
    let mut svg = Svg::new(WIDTH, legend_end.max(panel_end) + 16).with_links(links);
    let title = match v.viewer {
        Some(s) => format!("Star Map — the view of {}", name_of(names, s)),
        None => "Star Map".to_string(),
    };
    svg.bold(
        MAP_X - 24,
        32,
        22,
        "start",
        INK,
        &fit(&title, 22, true, MAP + 40),
    );
    draw_map(&mut svg, v, names, &marks);
    draw_legend(&mut svg, v, LEGEND_Y);
    draw_panel(&mut svg, v, names, &marks);
    let desc = status_lines(v, names).join(" ");
    svg.finish(&title, &desc)
}

fn seat_names(v: &View, names: &[String]) -> Vec<String> {
    (0..v.hands.len().max(names.len()))
        .map(|s| name_of(names, s))
        .collect()
}

fn name_of(names: &[String], seat: usize) -> String {
    names
        .get(seat)
        .cloned()
        .unwrap_or_else(|| format!("seat {seat}"))
}

fn mark_of(marks: &[String], seat: usize) -> String {
    marks.get(seat).cloned().unwrap_or_else(|| seat.to_string())
}

/// A piece of a disc: a rounded rectangle of the discs' material.
fn piece(svg: &mut Svg, x: i32, y: i32, w: i32, h: i32, r: i32) {
    svg.raw(&format!(
        r#"<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="{r}" fill="{DISC}"/>"#
    ));
}

/// A dashed outline.
fn dashed(svg: &mut Svg, x: i32, y: i32, w: i32, h: i32, stroke: &str, width: i32) {
    svg.raw(&format!(
        r#"<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="none" stroke="{stroke}" stroke-width="{width}" stroke-dasharray="4 3"/>"#
    ));
}

/// A dashed circle (an empty field).
fn dashed_circle(svg: &mut Svg, cx: i32, cy: i32, r: i32, stroke: &str) {
    svg.raw(&format!(
        r#"<circle cx="{cx}" cy="{cy}" r="{r}" fill="none" stroke="{stroke}" stroke-width="2" stroke-dasharray="3 3"/>"#
    ));
}

/// The colour a star is drawn in: the colour its name says when it names
/// one (the shipped set), else one by its number. Okabe–Ito tones, and
/// always under the star's code in ink.
fn star_colour(v: &View, code: char) -> &'static str {
    const BY_NUMBER: [&str; 7] = [
        "#D55E00", "#E69F00", "#F0E442", "#009E73", "#56B4E9", "#CC79A7", "#FFFFFF",
    ];
    let Some((i, star)) = v.stars.iter().enumerate().find(|(_, s)| s.code == code) else {
        return PAPER;
    };
    match star.name.as_str() {
        "red" => "#D55E00",
        "orange" => "#E69F00",
        "yellow" => "#F0E442",
        "green" => "#009E73",
        "blue" => "#56B4E9",
        "violet" | "purple" => "#CC79A7",
        "white" => "#FFFFFF",
        _ => BY_NUMBER[i % BY_NUMBER.len()],
    }
}

fn star_name(v: &View, code: char) -> String {
    v.stars
        .iter()
        .find(|s| s.code == code)
        .map_or_else(|| "unknown".to_string(), |s| s.name.clone())
}

/// A star: a disc in its colour with its code on it.
fn star(svg: &mut Svg, v: &View, cx: i32, cy: i32, r: i32, code: char) {
    svg.circle(cx, cy, r, star_colour(v, code), INK, 1);
    let size = r * 11 / 10;
    svg.bold(
        cx,
        cy + size * 36 / 100,
        size,
        "middle",
        INK,
        &code.to_string(),
    );
}

/// A crossed-out star: the slash runs under its code, which keeps a halo
/// of the star's colour so that it stays legible.
fn crossed_star(svg: &mut Svg, v: &View, cx: i32, cy: i32, r: i32, code: char) {
    let colour = star_colour(v, code);
    svg.circle(cx, cy, r, colour, INK, 1);
    let d = r * 7 / 10 + 2;
    svg.line(
        (cx - d - 1, cy - d - 1),
        (cx + d + 1, cy + d + 1),
        INK,
        2 + r / 6,
    );
    let size = r * 11 / 10;
    svg.raw(&format!(
        r#"<text x="{cx}" y="{}" font-size="{size}" text-anchor="middle" font-weight="bold" fill="{INK}" stroke="{colour}" stroke-width="3" paint-order="stroke">{}</text>"#,
        cy + size * 36 / 100,
        esc(&code.to_string())
    ));
}

/// The top-left corner of a square on the map.
fn corner_of(at: Sq) -> (i32, i32) {
    (MAP_X + at.x() as i32 * CELL, MAP_Y + at.y() as i32 * CELL)
}

fn kind_text(v: &View, kind: &SquareKind) -> String {
    match kind {
        SquareKind::Plain => "plain".into(),
        SquareKind::Bonus { points } => format!("bonus +{points}"),
        SquareKind::Only { star } => format!("only {star} ({})", star_name(v, *star)),
        SquareKind::Not { star } => format!("not {star} ({})", star_name(v, *star)),
        SquareKind::Meteorite => "meteorite (only an empty field)".into(),
    }
}

/// A square's sign, centred on (cx, cy).
fn square_sign(svg: &mut Svg, v: &View, kind: &SquareKind, cx: i32, cy: i32) {
    match kind {
        SquareKind::Plain => {}
        SquareKind::Bonus { points } => {
            svg.bold(cx, cy + 6, 17, "middle", INK, &format!("+{points}"));
        }
        SquareKind::Only { star: code } => {
            star(svg, v, cx, cy - 5, 12, *code);
            svg.text(cx, cy + 20, 10, "middle", INK, "only");
        }
        SquareKind::Not { star: code } => {
            crossed_star(svg, v, cx, cy - 5, 12, *code);
            svg.text(cx, cy + 20, 10, "middle", INK, "not");
        }
        SquareKind::Meteorite => rock(svg, cx, cy),
    }
}

/// A meteorite: a lumpy rock with two craters.
fn rock(svg: &mut Svg, cx: i32, cy: i32) {
    let pts: Vec<(i32, i32)> = [
        (-15, -4),
        (-10, -13),
        (0, -15),
        (9, -12),
        (16, -3),
        (13, 9),
        (3, 15),
        (-9, 13),
        (-16, 5),
    ]
    .iter()
    .map(|(dx, dy)| (cx + dx, cy + dy))
    .collect();
    svg.polygon(&pts, ROCK, INK, "");
    svg.circle(cx - 5, cy - 4, 4, "#8A8379", "#4E4943", 1);
    svg.circle(cx + 6, cy + 5, 3, "#8A8379", "#4E4943", 1);
}

fn draw_map(svg: &mut Svg, v: &View, names: &[String], marks: &[String]) {
    // Column letters above and below, row numbers on both sides.
    for x in 0..SIZE as i32 {
        let letter = ((b'a' + x as u8) as char).to_string();
        let cx = MAP_X + x * CELL + CELL / 2;
        svg.bold(cx, MAP_Y - 8, 14, "middle", INK, &letter);
        svg.bold(cx, MAP_Y + MAP + 18, 14, "middle", INK, &letter);
    }
    for y in 0..SIZE as i32 {
        let cy = MAP_Y + y * CELL + CELL / 2 + 5;
        let n = (y + 1).to_string();
        svg.bold(MAP_X - 6, cy, 14, "end", INK, &n);
        svg.bold(MAP_X + MAP + 6, cy, 14, "start", INK, &n);
    }
    // The squares.
    for s in &v.squares {
        let (x, y) = corner_of(s.at);
        let centre = CENTRE.contains(&s.at);
        let mut title = format!("{}: {}", s.at, kind_text(v, &s.kind));
        if centre {
            title.push_str(", centre");
        }
        if let Some(c) = &s.covered {
            match c.star {
                Some(code) => title.push_str(&format!(
                    "; covered by a {} star {code} (disc {})",
                    star_name(v, code),
                    c.disc
                )),
                None => title.push_str(&format!("; covered by an empty field (disc {})", c.disc)),
            }
        }
        svg.place("square", &format!("square {}", s.at), &title);
        let fill = match (&s.covered, &s.kind) {
            (None, SquareKind::Bonus { .. }) => BONUS,
            (None, SquareKind::Meteorite) => ROCK_GROUND,
            _ => SKY,
        };
        svg.rect(x, y, CELL, CELL, fill, GRID);
        if s.covered.is_none() {
            square_sign(svg, v, &s.kind, x + CELL / 2, y + CELL / 2);
        }
        svg.end_group();
    }
    // The part borders and the frame; the centre block dashed.
    for i in (0..=SIZE as i32).step_by(3) {
        let width = if i == 0 || i == SIZE as i32 { 3 } else { 2 };
        svg.line(
            (MAP_X + i * CELL, MAP_Y),
            (MAP_X + i * CELL, MAP_Y + MAP),
            PART_LINE,
            width,
        );
        svg.line(
            (MAP_X, MAP_Y + i * CELL),
            (MAP_X + MAP, MAP_Y + i * CELL),
            PART_LINE,
            width,
        );
    }
    let (cx, cy) = corner_of(CENTRE[0]);
    dashed(
        svg,
        cx + 2,
        cy + 2,
        2 * CELL - 4,
        2 * CELL - 4,
        PART_LINE,
        2,
    );
    // The discs on the map, each in reading order of its first square.
    let mut discs: Vec<u8> = Vec::new();
    for s in &v.squares {
        if let Some(c) = &s.covered
            && !discs.contains(&c.disc)
        {
            discs.push(c.disc);
        }
    }
    for disc in discs {
        draw_placed(svg, v, disc);
    }
    draw_last(svg, v, names, marks);
}

/// One disc on the map: its fields joined where they are neighbours.
fn draw_placed(svg: &mut Svg, v: &View, disc: u8) {
    let on: Vec<(Sq, Option<char>)> = v
        .squares
        .iter()
        .filter_map(|s| {
            s.covered
                .as_ref()
                .filter(|c| c.disc == disc)
                .map(|c| (s.at, c.star))
        })
        .collect();
    let fields: Vec<String> = on
        .iter()
        .map(|(at, c)| format!("{at} {}", c.unwrap_or('.')))
        .collect();
    let what = if disc == v.start.disc {
        "the start disc"
    } else {
        "a disc"
    };
    svg.group(
        "placed",
        &format!("{what} (disc {disc}): {}", fields.join(", ")),
    );
    for (at, _) in &on {
        let (x, y) = corner_of(*at);
        let joined = |dx: usize, dy: usize| {
            Sq::new(at.x() + dx, at.y() + dy).is_some_and(|n| on.iter().any(|(s, _)| *s == n))
        };
        if joined(1, 0) {
            svg.rect(x + CELL - 8, y + 12, 16, CELL - 24, DISC, "none");
        }
        if joined(0, 1) {
            svg.rect(x + 12, y + CELL - 8, CELL - 24, 16, DISC, "none");
        }
    }
    for (at, code) in &on {
        let (x, y) = corner_of(*at);
        let title = match code {
            Some(c) => format!("{at}: {} star {c}", star_name(v, *c)),
            None => format!("{at}: an empty field"),
        };
        svg.group("field", &title);
        piece(svg, x + 4, y + 4, CELL - 8, CELL - 8, 8);
        match code {
            Some(c) => star(svg, v, x + CELL / 2, y + CELL / 2, 15, *c),
            None => dashed_circle(svg, x + CELL / 2, y + CELL / 2, 13, EMPTY_RING),
        }
        svg.end_group();
    }
    if disc == v.start.disc
        && let Some(first) = on.first()
    {
        let (x, y) = corner_of(first.0);
        svg.bold(x + 7, y + 15, 9, "start", PAPER, "S");
    }
    svg.end_group();
}

/// The outline around the last disc placed, and its placer's mark.
fn draw_last(svg: &mut Svg, v: &View, names: &[String], marks: &[String]) {
    let Some(LastMove::Place {
        seat, squares, at, ..
    }) = &v.last
    else {
        return;
    };
    svg.group(
        "last",
        &format!(
            "the last disc, placed by {}",
            clip(&name_of(names, *seat), 40)
        ),
    );
    for s in squares {
        let (x, y) = corner_of(*s);
        let has = |dx: i32, dy: i32| {
            let (nx, ny) = (s.x() as i32 + dx, s.y() as i32 + dy);
            nx >= 0
                && ny >= 0
                && Sq::new(nx as usize, ny as usize).is_some_and(|n| squares.contains(&n))
        };
        let (l, t, r, b) = (x + 2, y + 2, x + CELL - 2, y + CELL - 2);
        if !has(0, -1) {
            svg.line((l, t), (r, t), INK, 3);
        }
        if !has(0, 1) {
            svg.line((l, b), (r, b), INK, 3);
        }
        if !has(-1, 0) {
            svg.line((l, t), (l, b), INK, 3);
        }
        if !has(1, 0) {
            svg.line((r, t), (r, b), INK, 3);
        }
    }
    let (x, y) = corner_of(*at);
    svg.circle(x + 9, y + 9, 9, seat_colour(*seat), INK, 1);
    svg.bold(x + 9, y + 13, 11, "middle", PAPER, &mark_of(marks, *seat));
    svg.end_group();
}

/// The legend under the map; returns the y below it.
fn draw_legend(svg: &mut Svg, v: &View, y: i32) -> i32 {
    svg.group("legend", "the stars and the signs on the map");
    let x0 = MAP_X - 24;
    svg.bold(x0, y + 5, 13, "start", INK, "Stars");
    let (mut x, mut y) = (x0 + 50, y);
    for s in &v.stars {
        let label = fit(&s.name, 13, false, 150);
        let step = 34 + width(&label, 13, false);
        if x + step > MAP_X + MAP + 24 && x > x0 + 50 {
            x = x0 + 50;
            y += 26;
        }
        star(svg, v, x + 10, y, 10, s.code);
        svg.text(x + 24, y + 5, 13, "start", INK, &label);
        x += step;
    }
    let c = v.stars.first().map_or('R', |s| s.code);
    let y = y + 30;
    svg.bold(x0, y + 5, 13, "start", INK, "Map");
    let mut x = x0 + 50;
    let item = |svg: &mut Svg, x: &mut i32, label: &str, draw: &dyn Fn(&mut Svg, i32, i32)| {
        draw(svg, *x, y - 13);
        svg.text(*x + 32, y + 5, 12, "start", INK, label);
        *x += 40 + width(label, 12, false);
    };
    let chip = |svg: &mut Svg, x: i32, y: i32, fill: &str| svg.rect(x, y, 26, 26, fill, GRID);
    item(svg, &mut x, "bonus", &|svg, x, y| {
        chip(svg, x, y, BONUS);
        svg.bold(x + 13, y + 18, 13, "middle", INK, "+2");
    });
    item(svg, &mut x, "only that star", &|svg, x, y| {
        chip(svg, x, y, SKY);
        star(svg, v, x + 13, y + 13, 9, c);
    });
    item(svg, &mut x, "not that star", &|svg, x, y| {
        chip(svg, x, y, SKY);
        crossed_star(svg, v, x + 13, y + 13, 9, c);
    });
    item(
        svg,
        &mut x,
        "meteorite: only an empty field",
        &|svg, x, y| {
            svg.rect(x, y, 26, 26, ROCK_GROUND, GRID);
            svg.polygon(
                &[
                    (x + 5, y + 11),
                    (x + 10, y + 5),
                    (x + 18, y + 5),
                    (x + 22, y + 12),
                    (x + 18, y + 21),
                    (x + 8, y + 21),
                ],
                ROCK,
                INK,
                "",
            );
        },
    );
    let y = y + 32;
    let mut x = x0 + 50;
    let item = |svg: &mut Svg, x: &mut i32, label: &str, draw: &dyn Fn(&mut Svg, i32, i32)| {
        draw(svg, *x, y - 13);
        svg.text(*x + 32, y + 5, 12, "start", INK, label);
        *x += 40 + width(label, 12, false);
    };
    item(svg, &mut x, "a placed star", &|svg, x, y| {
        piece(svg, x, y, 26, 26, 5);
        star(svg, v, x + 13, y + 13, 9, c);
    });
    item(svg, &mut x, "an empty field", &|svg, x, y| {
        piece(svg, x, y, 26, 26, 5);
        dashed_circle(svg, x + 13, y + 13, 8, EMPTY_RING);
    });
    item(
        svg,
        &mut x,
        "the last disc (placer's mark)",
        &|svg, x, y| {
            piece(svg, x, y, 26, 26, 5);
            svg.rect(x - 2, y - 2, 30, 30, "none", INK);
            svg.rect(x - 1, y - 1, 28, 28, "none", INK);
            svg.circle(x + 5, y + 5, 6, MUTED, INK, 1);
        },
    );
    item(svg, &mut x, "the start disc", &|svg, x, y| {
        piece(svg, x, y, 26, 26, 5);
        svg.bold(x + 13, y + 18, 13, "middle", PAPER, "S");
    });
    let y = y + 30;
    svg.bold(x0, y + 5, 13, "start", INK, "Parts");
    svg.text(x0 + 50, y + 5, 13, "start", INK, &v.layout.to_string());
    svg.text(
        MAP_X + MAP + 24,
        y + 5,
        13,
        "end",
        INK,
        &format!(
            "{} move{} made",
            v.moves,
            if v.moves == 1 { "" } else { "s" }
        ),
    );
    svg.end_group();
    y + 20
}

/// Who won, ranked as `status` and `audit` rank a Star Map (teams as
/// teams, a seat that withdrew placed last with its partner).
fn winners(v: &View, names: &[String]) -> String {
    let team_score = |t: u32| v.teams.iter().find(|x| x.team == t).map(|x| x.score);
    let scores: Vec<i64> = v
        .scores
        .iter()
        .map(|s| s.team.and_then(team_score).unwrap_or(s.score))
        .collect();
    let mut rows = crate::games::rank_by_score(&scores);
    for r in &mut rows {
        r.team = v.scores.get(r.seat).and_then(|s| s.team);
    }
    let rows =
        crate::log::replay::placed_last(rows, scores.len(), v.withdrawn.as_ref().map(|w| w.seat));
    crate::picture::winners_text(&rows, |s| name_of(names, s), ("point", "points"))
}

/// What the text view says last: whose turn, or why it is over, and the
/// last move.
fn status_lines(v: &View, names: &[String]) -> Vec<String> {
    let name_of = |names: &[String], seat: usize| fit(&name_of(names, seat), 13, false, 300);
    let mut lines = Vec::new();
    lines.push(match (v.turn, &v.withdrawn) {
        (_, Some(w)) => format!(
            "The game is over: {} {}. {}",
            name_of(names, w.seat),
            match w.how {
                Withdrawal::Resigned => "resigned",
                Withdrawal::Abandoned => "stopped answering",
            },
            winners(v, names)
        ),
        (Some(s), None) if v.placements == 0 => {
            format!("{} cannot place any disc and must pass.", name_of(names, s))
        }
        (Some(s), None) => format!(
            "{} to move ({} legal placement{}).",
            name_of(names, s),
            v.placements,
            if v.placements == 1 { "" } else { "s" }
        ),
        (None, None) => format!(
            "The game is over: nobody can place a disc. Discs left in hand count minus. {}",
            winners(v, names)
        ),
    });
    if let Some(last) = &v.last {
        lines.push(match last {
            LastMove::Place {
                seat,
                shape,
                fields,
                at,
                rotation,
                scored,
                ..
            } => {
                let set = super::data::Set {
                    stars: v.stars.clone(),
                    discs: Vec::new(),
                    parts: Vec::new(),
                };
                format!(
                    "Last move: {} placed a {shape} {fields} on {at}{}{}.",
                    name_of(names, *seat),
                    view::rotation_text(*shape, *rotation),
                    view::scored_text(&set, scored)
                )
            }
            LastMove::Pass { seat } => format!(
                "Last move: {} had no legal placement and passed.",
                name_of(names, *seat)
            ),
        });
    }
    lines
}

/// About how wide `s` is drawn at `size` in DejaVu Sans (the PNG's
/// font), as the text shows it (unsafe characters spelt out): widths in
/// thousandths of an em, by classes of characters, on the wide side.
fn width(s: &str, size: i32, bold: bool) -> i32 {
    let ems: i32 = crate::text::inline(s)
        .chars()
        .map(|c| match c {
            ' ' => 320,
            'i' | 'j' | 'l' | '.' | ',' | ':' | ';' | '\'' | '|' | '!' | '(' | ')' => 360,
            'f' | 't' | 'r' | 'I' | '[' | ']' | '{' | '}' | '/' | '\\' | '-' => 440,
            'm' | 'w' | 'M' | 'W' | '%' | '@' | '&' | '—' => 1000,
            'A'..='Z' | '<' | '>' | '=' | '+' | '~' | '#' => 780,
            c if c.is_ascii() => 640,
            _ => 1000,
        })
        .sum();
    let ems = if bold { ems * 11 / 10 } else { ems };
    ems * size / 1000
}

/// `s` as the text shows it, cut with `…` to at most `max` pixels.
fn fit(s: &str, size: i32, bold: bool, max: i32) -> String {
    let shown = crate::text::inline(s).into_owned();
    if width(&shown, size, bold) <= max {
        return shown;
    }
    let mut out = String::new();
    for c in shown.chars() {
        out.push(c);
        if width(&format!("{out}…"), size, bold) > max {
            out.pop();
            break;
        }
    }
    out.push('…');
    out
}

/// Words of `text` in lines at most `max` pixels wide (a word wider than
/// that is cut).
fn wrap(text: &str, size: i32, bold: bool, max: i32) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in crate::text::inline(text).split(' ') {
        let word = fit(word, size, bold, max);
        if !line.is_empty() && width(&format!("{line} {word}"), size, bold) > max {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// A seat's badge: its colour with its mark.
fn badge(svg: &mut Svg, cx: i32, cy: i32, seat: usize, marks: &[String]) {
    svg.circle(cx, cy, 9, seat_colour(seat), INK, 1);
    svg.bold(cx, cy + 4, 11, "middle", PAPER, &mark_of(marks, seat));
}

/// The right-hand panel; returns the y below it.
fn draw_panel(svg: &mut Svg, v: &View, names: &[String], marks: &[String]) -> i32 {
    let x0 = PANEL_X;
    let mut y = MAP_Y - 6;
    // Whose turn, and the last move.
    svg.group("status", "whose turn it is and the last move");
    for (i, line) in status_lines(v, names).iter().enumerate() {
        let (size, bold) = if i == 0 { (14, true) } else { (13, false) };
        for part in wrap(line, size, bold, PANEL_W) {
            if i == 0 {
                svg.bold(x0, y, 14, "start", INK, &part);
            } else {
                svg.text(x0, y, 13, "start", INK, &part);
            }
            y += 18;
        }
        y += 4;
    }
    svg.end_group();
    y += 8;
    // The hands.
    for (seat, hand) in v.hands.iter().enumerate() {
        y = draw_hand(svg, v, names, marks, seat, hand, y);
    }
    // The teams.
    if !v.teams.is_empty() {
        svg.group("teams", "the teams' scores");
        svg.bold(x0, y + 4, 14, "start", INK, "Teams");
        y += 24;
        for t in &v.teams {
            let mut x = x0 + 10;
            for (k, &s) in t.seats.iter().enumerate() {
                if k > 0 {
                    svg.text(x, y + 4, 13, "start", INK, "+");
                    x += 14;
                }
                badge(svg, x + 9, y, s, marks);
                let n = fit(&name_of(names, s), 13, false, 100);
                svg.text(x + 22, y + 4, 13, "start", INK, &n);
                x += 28 + width(&n, 13, false);
            }
            svg.bold(
                x + 4,
                y + 4,
                13,
                "start",
                INK,
                &format!("team {}: {} points", t.team, t.score),
            );
            y += 22;
        }
        svg.end_group();
        y += 6;
    }
    // The stacks and a pending draw.
    svg.group("stacks", "the stacks: discs left to draw, by shape");
    svg.bold(x0, y + 4, 14, "start", INK, "Stacks");
    y += 14;
    let mut x = x0 + 10;
    for st in &v.stacks {
        svg.group("stack", &format!("{} stack: {} left", st.shape, st.left));
        let cell = 12;
        let (w, h) = extent(st.shape);
        let top = y + 2 + (2 - h) * cell / 2;
        if st.left == 0 {
            for &(dx, dy) in st.shape.offsets() {
                dashed(
                    svg,
                    x + dx as i32 * cell,
                    top + dy as i32 * cell,
                    cell - 2,
                    cell - 2,
                    MUTED,
                    1,
                );
            }
        } else {
            for &(dx, dy) in st.shape.offsets() {
                piece(
                    svg,
                    x + dx as i32 * cell,
                    top + dy as i32 * cell,
                    cell - 2,
                    cell - 2,
                    2,
                );
            }
        }
        let label = format!("{} {}", st.shape, st.left);
        svg.text(x + w * cell + 8, y + 19, 13, "start", INK, &label);
        x += w * cell + 22 + width(&label, 13, false);
        svg.end_group();
    }
    svg.end_group();
    y += 34;
    if let Some(p) = &v.pending {
        svg.group("pending", "a draw under way");
        let text = format!(
            "{} is drawing a {} (pending until the next player moves).",
            fit(&name_of(names, p.seat), 13, false, 300),
            p.shape
        );
        badge(svg, x0 + 9, y, p.seat, marks);
        for part in wrap(&text, 13, false, PANEL_W - 24) {
            svg.text(x0 + 24, y + 4, 13, "start", INK, &part);
            y += 18;
        }
        svg.end_group();
    }
    y
}

/// A shape's width and height in fields, unturned.
fn extent(shape: Shape) -> (i32, i32) {
    let offsets = shape.offsets();
    let w = offsets.iter().map(|o| o.0 as i32).max().unwrap_or(0) + 1;
    let h = offsets.iter().map(|o| o.1 as i32).max().unwrap_or(0) + 1;
    (w, h)
}

/// One seat's header and hand from `y` down; returns the y below it.
fn draw_hand(
    svg: &mut Svg,
    v: &View,
    names: &[String],
    marks: &[String],
    seat: usize,
    hand: &[view::HandDisc],
    y: i32,
) -> i32 {
    let x0 = PANEL_X;
    let name = name_of(names, seat);
    let score = v.scores.get(seat);
    let mut tail = format!(" (seat {seat})");
    if let Some(t) = score.and_then(|s| s.team) {
        tail.push_str(&format!(", team {t}"));
    }
    let to_move = v.turn == Some(seat);
    let room = PANEL_W - 24 - width(&tail, 14, true) - if to_move { 70 } else { 0 };
    let head = format!("{}{tail}", fit(&name, 14, true, room));
    let points = score.map_or_else(String::new, |s| {
        let mut p = format!("{} point{}", s.points, if s.points == 1 { "" } else { "s" });
        if v.over && s.minus > 0 {
            p.push_str(&format!(", minus {} in hand = {}", s.minus, s.score));
        }
        p
    });
    // Lay the discs out first, to know the hand's height.
    let mut slots: Vec<(i32, i32, &view::HandDisc)> = Vec::new();
    let (mut x, mut row_y) = (x0 + 6, y + 48);
    let mut row_h = 0;
    for d in hand {
        let (w, h) = extent(d.shape);
        let slot = (w * HAND_CELL).max(width(&d.name, 11, false)) + 8;
        if x + slot > x0 + PANEL_W && x > x0 + 6 {
            x = x0 + 6;
            row_y += row_h + 6;
            row_h = 0;
        }
        slots.push((x, row_y, d));
        row_h = row_h.max(16 + h * HAND_CELL);
        x += slot;
    }
    let bottom = if hand.is_empty() {
        y + 60
    } else {
        row_y + row_h + 10
    };
    svg.group(
        "hand",
        &format!(
            "{}'s hand: {} disc{}",
            clip(&name, 40),
            hand.len(),
            if hand.len() == 1 { "" } else { "s" }
        ),
    );
    if to_move {
        svg.raw(&format!(
            r#"<rect x="{}" y="{}" width="{}" height="{}" rx="6" fill="{}" stroke="{}" stroke-width="3"/>"#,
            x0 - 6,
            y - 5,
            PANEL_W + 12,
            bottom - y + 2,
            seat_tint(seat),
            seat_colour(seat),
        ));
        svg.bold(x0 + PANEL_W - 2, y + 15, 14, "end", INK, "to move");
    }
    badge(svg, x0 + 9, y + 10, seat, marks);
    svg.bold(x0 + 24, y + 15, 14, "start", INK, &head);
    svg.text(x0 + 24, y + 33, 13, "start", INK, &points);
    if hand.is_empty() {
        svg.text(x0 + 24, y + 52, 12, "start", MUTED, "(no discs)");
    }
    for (x, y, d) in slots {
        // Only the reader's own discs are theirs to choose.
        let key = if v.viewer == Some(seat) {
            format!("disc {}", d.name)
        } else {
            String::new()
        };
        svg.place(
            "disc",
            &key,
            &format!("{}: {} {} (disc {})", d.name, d.shape, d.fields, d.disc),
        );
        svg.text(x, y, 11, "start", INK, &d.name);
        let top = y + 5;
        let offsets = d.shape.offsets();
        for (i, &(dx, dy)) in offsets.iter().enumerate() {
            for &(ex, ey) in &offsets[i + 1..] {
                if (dx - ex).abs() + (dy - ey).abs() == 1 {
                    let (ax, ay) = (dx.min(ex) as i32, dy.min(ey) as i32);
                    let (fx, fy) = (x + ax * HAND_CELL, top + ay * HAND_CELL);
                    if dy == ey {
                        svg.rect(fx + HAND_CELL - 6, fy + 8, 12, HAND_CELL - 16, DISC, "none");
                    } else {
                        svg.rect(fx + 8, fy + HAND_CELL - 6, HAND_CELL - 16, 12, DISC, "none");
                    }
                }
            }
        }
        for (&(dx, dy), code) in offsets.iter().zip(d.fields.chars()) {
            let (fx, fy) = (x + dx as i32 * HAND_CELL, top + dy as i32 * HAND_CELL);
            piece(svg, fx + 2, fy + 2, HAND_CELL - 4, HAND_CELL - 4, 5);
            let (cx, cy) = (fx + HAND_CELL / 2, fy + HAND_CELL / 2);
            if code == '.' {
                dashed_circle(svg, cx, cy, 8, EMPTY_RING);
            } else {
                star(svg, v, cx, cy, 11, code);
            }
        }
        svg.end_group();
    }
    svg.end_group();
    bottom + 8
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::prelude::*;
    use crate::log::Replay;

    fn replay(file: &str, upto: usize) -> (View, Vec<String>) {
        let path = format!("{}/examples/games/{file}", crate::REPO);
        let bytes = std::fs::read(path).unwrap();
        let r = Replay::<super::super::StarMap>::from_bytes_upto(&bytes, upto).unwrap();
        let v = super::super::StarMap::view(r.state.as_ref().unwrap(), None, None);
        (v, r.names())
    }

    fn count(svg: &str, class: &str) -> usize {
        svg.matches(&format!("<g class=\"{class}\">")).count()
    }

    #[test]
    fn draws_every_square_field_and_hand() {
        for (file, upto) in [
            ("star-map-2-players.jsonl", 25),
            ("star-map-4-players-teams.jsonl", 30),
            ("star-map-3-players-hard.jsonl", usize::MAX),
        ] {
            let (v, names) = replay(file, upto);
            let out = svg(&v, &names);
            assert_eq!(count(&out, "square"), 144, "{file}");
            let covered = v.squares.iter().filter(|s| s.covered.is_some()).count();
            assert_eq!(count(&out, "field"), covered, "{file}");
            assert_eq!(count(&out, "hand"), v.hands.len(), "{file}");
            let discs: usize = v.hands.iter().map(Vec::len).sum();
            assert_eq!(count(&out, "disc"), discs, "{file}");
            assert_eq!(count(&out, "stack"), 4, "{file}");
            assert_eq!(out, svg(&v, &names), "deterministic: {file}");
            crate::picture::png::render(&out).unwrap();
        }
    }

    #[test]
    fn each_hand_holds_its_discs_and_each_field_its_star() {
        let (v, names) = replay("star-map-4-players-teams.jsonl", 30);
        let out = svg(&v, &names);
        let hands: Vec<&str> = out.split("<g class=\"hand\">").skip(1).collect();
        assert_eq!(hands.len(), 4);
        for (seat, chunk) in hands.iter().enumerate() {
            let chunk = chunk.split("<g class=\"teams\">").next().unwrap();
            assert_eq!(
                chunk.matches("<g class=\"disc\">").count(),
                v.hands[seat].len(),
                "seat {seat}"
            );
            assert!(chunk.contains(&format!("{} (seat {seat})", names[seat])));
            for d in &v.hands[seat] {
                assert!(chunk.contains(&format!("<title>{}: {} {}", d.name, d.shape, d.fields)));
            }
        }
        for s in &v.squares {
            if let Some(c) = &s.covered {
                let title = match c.star {
                    Some(code) => format!(
                        "<title>{}: {} star {code}</title>",
                        s.at,
                        star_name(&v, code)
                    ),
                    None => format!("<title>{}: an empty field</title>", s.at),
                };
                assert!(out.contains(&title), "{title}");
            }
        }
        // Ben is to move; Anna's corner is the last disc and her draw is pending.
        assert!(out.contains(">to move</text>"));
        assert!(out.contains("<title>the last disc, placed by Anna</title>"));
        assert!(out.contains("Anna is drawing a corner"));
        assert!(out.contains("team 0: 22 points"));
        assert!(out.contains("team 1: 19 points"));
    }

    #[test]
    fn hostile_names_are_escaped_and_clipped() {
        let (mut v, _) = replay("star-map-2-players.jsonl", 25);
        v.viewer = Some(1);
        let names = vec![
            "<script>alert(1)</script> & \"x\"".to_string(),
            format!("\u{202e}Bob\u{1b}[2J {}", "long ".repeat(60)),
        ];
        let out = svg(&v, &names);
        assert!(!out.contains("<script>"), "{out}");
        assert!(out.contains("&lt;script&gt;"));
        assert!(!out.contains('\u{202e}') && !out.contains('\u{1b}'));
        assert!(out.contains("the view of"));
        assert_eq!(out, svg(&v, &names));
        crate::picture::png::render(&out).unwrap();
    }

    #[test]
    fn writes_pngs_to_look_at() {
        for (tag, file, upto) in [
            ("2p", "star-map-2-players.jsonl", 25),
            ("4p", "star-map-4-players-teams.jsonl", 30),
            ("3p-end", "star-map-3-players-hard.jsonl", usize::MAX),
            ("hostile", "star-map-2-players.jsonl", 25),
        ] {
            let (mut v, mut names) = replay(file, upto);
            if tag == "hostile" {
                v.viewer = Some(0);
                names = vec![
                    "<b>Ann</b> ".repeat(12),
                    format!("\u{202e}Bob\u{1b}[2J {}", "long ".repeat(60)),
                ];
            }
            let png = crate::picture::png::render(&svg(&v, &names)).unwrap();
            if std::env::var_os("STAR_MAP_PNG").is_some() {
                std::fs::write(format!("/tmp/map-{tag}.png"), &png).unwrap();
                std::fs::write(format!("/tmp/map-{tag}.svg"), svg(&v, &names)).unwrap();
                eprintln!("/tmp/map-{tag}.png: {} bytes", png.len());
            }
        }
    }
}
