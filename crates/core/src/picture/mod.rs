//! Pictures of a game: SVG drawn from a view, PNG rendered from that SVG
//! (with the `png` feature), and a self-contained HTML page around it.
//!
//! A picture is drawn from the same [`crate::games::Game::View`] as the text
//! view and nothing else, so it can show no more than the text shows to the
//! same reader: a player's face-down tokens appear only in their own view.
//!
//! Every picture is deterministic: the same view and names give the same
//! bytes (coordinates are integers or written with a fixed number of
//! decimals, elements come in a fixed order, nothing depends on a clock or a
//! hash map's order). The golden tests rely on it.
//!
//! Colour never carries meaning alone: each seat has a colour from the
//! Okabe–Ito palette (distinguishable with every common colour-vision
//! deficiency) *and* its initial (or seat number) written on what it owns.

pub mod html;
#[cfg(feature = "png")]
pub mod png;

use std::fmt::Write;

/// The font every picture names; the PNG renderer loads it from the program
/// itself ([`png`]), a browser falls back to any sans-serif.
pub const FONT: &str = "DejaVu Sans, Verdana, sans-serif";

/// Seat colours, in seat order (Okabe & Ito, "Color Universal Design"):
/// blue, vermillion, bluish green, reddish purple, orange. Dark enough for
/// white initials on them, and told apart by initials too.
pub const SEAT_COLOURS: [&str; 5] = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00"];
/// A lighter tint of each seat colour, for filled areas (Starry Night's
/// seas) under black lines and labels.
pub const SEAT_TINTS: [&str; 5] = ["#A6CEE8", "#F2C0A0", "#9ED9C7", "#EBC8DC", "#F6D899"];
/// Ink for lines and labels, and the paper under them.
pub const INK: &str = "#1A1A1A";
pub const PAPER: &str = "#FFFFFF";
/// Grey for what is not anybody's (empty stars, grid points, frames).
pub const MUTED: &str = "#8C8C8C";
/// The night-sky background of a board or map.
pub const SKY: &str = "#F4F6FB";

/// The colour of `seat` (wrapping, so that a hostile seat number cannot
/// index out of bounds).
pub fn seat_colour(seat: usize) -> &'static str {
    SEAT_COLOURS[seat % SEAT_COLOURS.len()]
}

/// The light tint of `seat`'s colour.
pub fn seat_tint(seat: usize) -> &'static str {
    SEAT_TINTS[seat % SEAT_TINTS.len()]
}

/// Each seat's mark on what it owns: the first letter of its player's name,
/// upper case, when those letters are plain ASCII and differ between seats;
/// otherwise the seat number (from 0, docs/json.md), which always differs.
pub fn marks(names: &[String]) -> Vec<String> {
    let first: Vec<Option<char>> = names
        .iter()
        .map(|n| {
            n.trim()
                .chars()
                .next()
                .filter(|c| c.is_ascii_alphabetic())
                .map(|c| c.to_ascii_uppercase())
        })
        .collect();
    let distinct = first.iter().all(Option::is_some)
        && first
            .iter()
            .enumerate()
            .all(|(i, a)| first[..i].iter().all(|b| b != a));
    (0..names.len())
        .map(|s| match first[s] {
            Some(c) if distinct => c.to_string(),
            _ => s.to_string(),
        })
        .collect()
}

/// What the marks of [`marks`] are, for a legend: "its owner's initial"
/// when they are letters, "its owner's seat number" when they are numbers.
pub fn marks_meaning(marks: &[String]) -> &'static str {
    if marks
        .iter()
        .all(|m| m.chars().all(|c| c.is_ascii_alphabetic()))
    {
        "its owner's initial"
    } else {
        "its owner's seat number"
    }
}

/// Who won, as the last words of a final picture: the seats ranked first
/// in `rows` (a game's standings, a withdrawn seat already placed last),
/// named by `name`, with their score in units `one`/`many` ("Ben wins with 23
/// coins.", "Ann and Cleo share first place with 12 points.").
pub fn winners_text(
    rows: &[crate::games::Standing],
    name: impl Fn(usize) -> String,
    (one, many): (&str, &str),
) -> String {
    let first: Vec<&crate::games::Standing> = rows.iter().filter(|r| r.rank == 1).collect();
    let Some(top) = first.first() else {
        return String::new();
    };
    let names: Vec<String> = first.iter().map(|r| name(r.seat)).collect();
    let score = crate::text::count(top.score, one, many);
    match (names.as_slice(), top.team) {
        ([one], _) => format!("{one} wins with {score}."),
        ([a, b], Some(team)) if first.iter().all(|r| r.team == Some(team)) => {
            format!("{a} and {b} (team {team}) win with {score}.")
        }
        _ => {
            let (last, rest) = names.split_last().expect("two or more");
            format!(
                "{} and {last} share first place with {score}.",
                rest.join(", ")
            )
        }
    }
}

/// Text made safe for XML character data and attribute values: the five
/// markup characters escaped, and everything [`crate::text::is_unsafe`]
/// (controls, bidi overrides, invisible characters) written as a visible
/// `\u{…}`, as on a terminal. Names come from a log and are hostile.
///
/// Every piece of text in a picture or page passes here, so this is also
/// where a picture is kept well-formed whatever the name rules let through:
/// a character XML 1.0 cannot hold (controls other than tab, LF and CR,
/// U+FFFE, U+FFFF; surrogates are no `char`) and every Unicode noncharacter
/// ([`crate::text::is_noncharacter`]) is written as `\u{…}` too, even
/// where no rule of today would let one into a log.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if crate::text::is_unsafe(c)
                || crate::text::is_noncharacter(c)
                || !xml_can_hold(c) =>
            {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// Whether XML 1.0 can hold `c` (its production `Char`: tab, LF, CR,
/// U+0020–U+D7FF, U+E000–U+FFFD, U+10000–U+10FFFF).
pub fn xml_can_hold(c: char) -> bool {
    matches!(c,
        '\t' | '\n' | '\r'
        | '\u{20}'..='\u{d7ff}'
        | '\u{e000}'..='\u{fffd}'
        | '\u{10000}'..='\u{10ffff}')
}

/// At most `max` characters of `s`, with `…` when cut: long names must not
/// run off a picture.
pub fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
        out.push('…');
        out
    }
}

/// How [`Svg::text`] and [`Svg::bold`] write their text.
struct TextStyle<'a> {
    size: i32,
    /// `start`, `middle` or `end`.
    anchor: &'a str,
    fill: &'a str,
    /// `normal` or `bold`.
    weight: &'a str,
}

/// An SVG document under construction. Coordinates are `i32` user units
/// (1 unit = 1 pixel of the PNG), so output never depends on float
/// formatting.
pub struct Svg {
    width: i32,
    height: i32,
    body: String,
    links: Links,
    /// For each open group, whether [`Svg::place`] opened a link around it.
    open: Vec<bool>,
    /// Whether any place became a link: the picture is then a group of
    /// controls, not an image (whose parts a screen reader never reaches).
    linked: bool,
}

/// What a picture offers to click, by place ([`Svg::place`]): `starry
/// serve` draws the board with the places of the player's next click as
/// links, so that a move is chosen by pointing at the board. A picture
/// without links is the one `view` draws.
#[derive(Default, Clone, Debug)]
pub struct Links {
    places: std::collections::BTreeMap<String, Link>,
}

/// One place of a [`Links`].
#[derive(Clone, Debug)]
pub enum Link {
    /// Clicking it goes to `href`; `label` names the choice for a screen
    /// reader (the place's title says what it is).
    To { href: String, label: String },
    /// Chosen already: drawn marked, not a link.
    Picked,
}

impl Links {
    pub fn insert(&mut self, key: impl Into<String>, link: Link) {
        self.places.insert(key.into(), link);
    }

    pub fn get(&self, key: &str) -> Option<&Link> {
        self.places.get(key)
    }

    pub fn is_empty(&self) -> bool {
        self.places.is_empty()
    }
}

impl Svg {
    /// A `width` × `height` picture on white paper.
    pub fn new(width: i32, height: i32) -> Svg {
        Svg {
            width,
            height,
            body: String::new(),
            links: Links::default(),
            open: Vec::new(),
            linked: false,
        }
    }

    /// The same picture, with `links` on its places.
    pub fn with_links(mut self, links: &Links) -> Svg {
        self.links = links.clone();
        self
    }

    pub fn width(&self) -> i32 {
        self.width
    }

    pub fn height(&self) -> i32 {
        self.height
    }

    /// Appends raw markup the caller built (attribute values and text
    /// already passed through [`esc`]).
    pub fn raw(&mut self, markup: &str) {
        self.body.push_str(markup);
        if !markup.ends_with('\n') {
            self.body.push('\n');
        }
    }

    pub fn rect(&mut self, x: i32, y: i32, w: i32, h: i32, fill: &str, stroke: &str) {
        let _ = writeln!(
            self.body,
            r#"<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="{fill}" stroke="{stroke}"/>"#
        );
    }

    pub fn circle(
        &mut self,
        cx: i32,
        cy: i32,
        r: i32,
        fill: &str,
        stroke: &str,
        stroke_width: i32,
    ) {
        let _ = writeln!(
            self.body,
            r#"<circle cx="{cx}" cy="{cy}" r="{r}" fill="{fill}" stroke="{stroke}" stroke-width="{stroke_width}"/>"#
        );
    }

    pub fn line(&mut self, (x1, y1): (i32, i32), (x2, y2): (i32, i32), stroke: &str, width: i32) {
        let _ = writeln!(
            self.body,
            r#"<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{stroke}" stroke-width="{width}" stroke-linecap="round"/>"#
        );
    }

    /// A closed polygon through `points`.
    pub fn polygon(&mut self, points: &[(i32, i32)], fill: &str, stroke: &str, extra: &str) {
        let pts: Vec<String> = points.iter().map(|(x, y)| format!("{x},{y}")).collect();
        let _ = writeln!(
            self.body,
            r#"<polygon points="{}" fill="{fill}" stroke="{stroke}"{}{extra}/>"#,
            pts.join(" "),
            if extra.is_empty() { "" } else { " " }
        );
    }

    /// Text anchored at (x, y): `anchor` is `start`, `middle` or `end`; the
    /// baseline is `y`. `text` is escaped here.
    pub fn text(&mut self, x: i32, y: i32, size: i32, anchor: &str, fill: &str, text: &str) {
        let style = TextStyle {
            size,
            anchor,
            fill,
            weight: "normal",
        };
        self.text_styled((x, y), &style, text);
    }

    /// Bold text, as [`Svg::text`].
    pub fn bold(&mut self, x: i32, y: i32, size: i32, anchor: &str, fill: &str, text: &str) {
        let style = TextStyle {
            size,
            anchor,
            fill,
            weight: "bold",
        };
        self.text_styled((x, y), &style, text);
    }

    fn text_styled(&mut self, (x, y): (i32, i32), style: &TextStyle<'_>, text: &str) {
        let TextStyle {
            size,
            anchor,
            fill,
            weight,
        } = style;
        let _ = writeln!(
            self.body,
            r#"<text x="{x}" y="{y}" font-size="{size}" text-anchor="{anchor}" font-weight="{weight}" fill="{fill}">{}</text>"#,
            esc(text)
        );
    }

    /// Opens a group with a class (for tests and the HTML page's styles)
    /// and a `<title>` (a tooltip in a browser, read by screen readers).
    pub fn group(&mut self, class: &str, title: &str) {
        self.open.push(false);
        let _ = writeln!(
            self.body,
            r#"<g class="{}"><title>{}</title>"#,
            esc(class),
            esc(title)
        );
    }

    /// A group that is a place a move can be chosen at, known by `key` in
    /// the game's own words (`star leo:3`, `square f7`): with a link for
    /// it, the group is wrapped in `<a class="choice">`; picked already,
    /// its class gains `picked`; otherwise it is a plain [`Svg::group`].
    pub fn place(&mut self, class: &str, key: &str, title: &str) {
        match self.links.get(key).cloned() {
            Some(Link::To { href, label }) => {
                self.open.push(true);
                self.linked = true;
                // The link's own `<title>` names it (SVG's way; an
                // `aria-label` would be checked against every text inside,
                // the place's own title among them, and never match).
                let _ = writeln!(
                    self.body,
                    r#"<a href="{}" class="choice"><title>{}</title><g class="{} choice"><title>{}</title>"#,
                    esc(&href),
                    esc(&label),
                    esc(class),
                    esc(title)
                );
            }
            Some(Link::Picked) => {
                self.open.push(false);
                let _ = writeln!(
                    self.body,
                    r#"<g class="{} picked"><title>{}</title>"#,
                    esc(class),
                    esc(title)
                );
            }
            None => self.group(class, title),
        }
    }

    pub fn end_group(&mut self) {
        match self.open.pop() {
            Some(true) => self.body.push_str("</g></a>\n"),
            _ => self.body.push_str("</g>\n"),
        }
    }

    /// The document: `title` becomes its `<title>` (the accessible name)
    /// and `desc` its `<desc>`. An image, unless places in it are links:
    /// then a group, so that they can be reached.
    pub fn finish(self, title: &str, desc: &str) -> String {
        let (w, h) = (self.width, self.height);
        let role = if self.linked { "group" } else { "img" };
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
             viewBox=\"0 0 {w} {h}\" font-family=\"{FONT}\" role=\"{role}\">\n\
             <title>{}</title>\n<desc>{}</desc>\n\
             <rect x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" fill=\"{PAPER}\"/>\n{}</svg>\n",
            esc(title),
            esc(desc),
            self.body
        )
    }
}

/// A legend row per seat: a disc in its colour with its mark, then its
/// name; from (x, y) downwards, `step` apart. Returns the y below it.
pub fn seat_legend(
    svg: &mut Svg,
    x: i32,
    y: i32,
    step: i32,
    names: &[String],
    extra: &[String],
) -> i32 {
    let marks = marks(names);
    let mut y = y;
    for (seat, name) in names.iter().enumerate() {
        svg.group("seat", &format!("seat {seat}: {}", clip(name, 40)));
        svg.circle(x + 9, y - 5, 9, seat_colour(seat), INK, 1);
        svg.bold(x + 9, y - 1, 11, "middle", PAPER, &marks[seat]);
        let tail = extra.get(seat).map(String::as_str).unwrap_or_default();
        svg.text(
            x + 24,
            y,
            13,
            "start",
            INK,
            &format!("{}{}", clip(name, 24), tail),
        );
        svg.end_group();
        y += step;
    }
    y
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn marks_are_initials_when_they_differ_and_seat_numbers_otherwise() {
        assert_eq!(marks(&names(&["ann", "Ben", "Cleo"])), ["A", "B", "C"]);
        assert_eq!(marks(&names(&["Ann", "Alex", "Cleo"])), ["0", "1", "2"]);
        assert_eq!(marks(&names(&["Ann", "Émile"])), ["0", "1"]);
        assert_eq!(marks(&names(&["", "Ben"])), ["0", "1"]);
    }

    #[test]
    fn text_is_escaped_for_xml_and_for_readers() {
        assert_eq!(
            esc("<b>&\"'\u{1b}[2J\u{202e}"),
            "&lt;b&gt;&amp;&quot;&#39;\\u{1b}[2J\\u{202e}"
        );
        let mut svg = Svg::new(10, 10);
        svg.text(0, 0, 10, "start", INK, "</text><script>alert(1)</script>");
        let out = svg.finish("t", "d");
        assert!(!out.contains("<script>"), "{out}");
    }

    /// Whatever the text, what `esc` gives is character data XML can hold
    /// and that shows every odd character: every code point, one by one,
    /// and a picture with the worst of them parses.
    #[test]
    fn no_text_makes_a_picture_ill_formed() {
        for c in (0..=0x10ffff_u32).filter_map(char::from_u32) {
            let e = esc(&c.to_string());
            assert!(
                e.chars().all(|x| xml_can_hold(x)
                    && !crate::text::is_noncharacter(x)
                    && !crate::text::is_unsafe(x)
                    && !"<>\"'".contains(x)),
                "U+{:04X} gives {e:?}",
                u32::from(c)
            );
        }
        assert_eq!(esc("a\u{fffe}b\u{ffff}"), "a\\u{fffe}b\\u{ffff}");
        assert_eq!(esc("\u{fdd0}\u{10ffff}"), "\\u{fdd0}\\u{10ffff}");
        assert_eq!(esc("\u{0}\u{b}\t"), "\\u{0}\\u{b}\\u{9}");
        assert_eq!(esc("Zoë ★ 李 \u{fffd}"), "Zoë ★ 李 \u{fffd}");
        for (c, ok) in [
            ('\u{8}', false),
            ('\t', true),
            ('\u{1f}', false),
            (' ', true),
            ('\u{d7ff}', true),
            ('\u{e000}', true),
            ('\u{fffd}', true),
            ('\u{fffe}', false),
            ('\u{ffff}', false),
            ('\u{10000}', true),
        ] {
            assert_eq!(xml_can_hold(c), ok, "U+{:04X}", u32::from(c));
        }
        let worst = "Eve\u{fffe}\u{ffff}\u{fdd0}\u{1fffe}\u{10ffff}\u{0}\u{1b}<&";
        let mut svg = Svg::new(40, 20);
        svg.group("seat", worst);
        svg.text(0, 10, 10, "start", INK, worst);
        svg.end_group();
        let doc = svg.finish(worst, worst);
        assert!(doc.chars().all(xml_can_hold), "{doc:?}");
        resvg::usvg::Tree::from_str(&doc, &resvg::usvg::Options::default())
            .expect("the picture parses");
    }

    /// A place that is a link is named by its own `<title>` (the choice),
    /// holds the place's title as before, and makes the picture a group of
    /// controls: links inside `role="img"` cannot be reached (axe-core's
    /// `nested-interactive`), and an `aria-label` would not hold the
    /// place's text (`label-content-name-mismatch`).
    #[test]
    fn a_linked_place_is_a_named_link_in_a_group() {
        let draw = |links: &Links| {
            let mut svg = Svg::new(40, 20).with_links(links);
            svg.place("star", "star A", "star A: free");
            svg.circle(10, 10, 5, PAPER, INK, 1);
            svg.end_group();
            svg.place("star", "star B", "star B: free");
            svg.end_group();
            svg.finish("t", "d")
        };
        let plain = draw(&Links::default());
        assert!(plain.contains("role=\"img\""), "{plain}");
        assert!(!plain.contains("<a "), "{plain}");
        let mut links = Links::default();
        links.insert(
            "star A",
            Link::To {
                href: "/game/x?pick=star+A".into(),
                label: "star A <edge>".into(),
            },
        );
        links.insert("star B", Link::Picked);
        let linked = draw(&links);
        assert!(linked.contains("role=\"group\""), "{linked}");
        assert!(
            !linked.contains("role=\"img\"") && !linked.contains("aria-label"),
            "{linked}"
        );
        assert!(
            linked.contains(
                "<a href=\"/game/x?pick=star+A\" class=\"choice\"><title>star A &lt;edge&gt;</title>\
                 <g class=\"star choice\"><title>star A: free</title>"
            ),
            "{linked}"
        );
        assert!(
            linked.contains("<g class=\"star picked\"><title>star B: free</title>"),
            "{linked}"
        );
        // Only picked, nothing to click: an image again.
        links.insert("star A", Link::Picked);
        assert!(draw(&links).contains("role=\"img\""));
    }

    #[test]
    fn clip_cuts_long_names() {
        assert_eq!(clip("Ann", 5), "Ann");
        assert_eq!(clip("Annabelle", 5), "Anna…");
    }
}
