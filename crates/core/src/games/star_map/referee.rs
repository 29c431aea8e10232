//! The offline referee for a sequence of placements (`starry rules score
//! --game star-map`): a map, the start disc and the discs laid on it, in
//! order, with no log, no keys, no hands and no seats. Input:
//!
//! ```json
//! {"map": "plain",
//!  "start": {"fields": "RRW", "rotation": 0},
//!  "placements": [{"shape": "one", "fields": "R", "at": "h6", "rotation": 0},
//!                 {"shape": "two", "fields": "RR", "at": "e6", "rotation": 180}]}
//! ```
//!
//! `map` is a layout as `starry new star-map --map LAYOUT` takes it (16
//! parts with their sides in reading order of their places, e.g. `1b 2s 3b
//! 4b / 5s …`), or `plain` for a map with no symbols and no bonuses. `discs`
//! and `parts` are optional custom data, as in the game's options (the disc
//! and part files, schemas/star-map-discs.json and star-map-parts.json).
//! `start` is the start disc: a corner whose elbow lies on f6, g6, g7 or f7
//! for a rotation of 0, 90, 180 or 270, covering three centre squares.
//! Each placement names a disc by its shape and its fields in field order
//! (star codes, `.` for an empty field, as in the disc file), the square of
//! its first field and a clockwise rotation.
//!
//! Every disc, the start disc too, must be one of the set's, each used once
//! (a two or a three may be written from either end). Each placement is
//! checked by the map's own rules ([`Map::check`]) and scored by them
//! ([`Map::score`]); the first illegal one is refused with its number and
//! the rule it breaks. The answer: per placement the squares it covers, the
//! groups that score (star, size, squares), the bonuses earned or lost, its
//! points and the running total.
//!
//! Bounds: at most 1 MiB of input ([`MAX_POSITION_BYTES`]); at most one
//! placement per disc of the set besides the start disc (55). Errors quote
//! the input only as short, escaped excerpts.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::data::{self, DiscFile, DiscId, Field, PartFile, Rotation, Set, Shape, StarSymbol};
use super::map::{self, Bonus, Layout, Map, PlacedPart, Sq};
use super::{MapChoice, Options, StarMap};
use crate::games::{RuleError, Rules};
use crate::text::{excerpt_of, inline};

/// Largest position accepted, in bytes (as for the other games' referees).
pub const MAX_POSITION_BYTES: usize = 1 << 20;
/// Longest quote of the input in an error, in characters once escaped.
const QUOTE_CHARS: usize = 60;
/// Longest error detail, in characters: a backstop, for messages written
/// elsewhere (the disc and part file checks) that quote the input.
const MAX_DETAIL_CHARS: usize = 300;

/// Where the start disc's elbow lies for each rotation (as in the game).
const START_ELBOW: [Sq; 4] = [
    map::CENTRE[0],
    map::CENTRE[1],
    map::CENTRE[3],
    map::CENTRE[2],
];

/// A sequence of placements to score.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Position {
    /// `plain` (no symbols, no bonuses), or 16 map parts with their sides
    /// in reading order of their places, as `starry new star-map --map
    /// LAYOUT` takes them: `1b 2s 3b 4b / 5s 6b 7b 8s / …` (b: bonus side,
    /// s: symbol side).
    pub map: String,
    /// A custom disc set, as a disc file (absent: the shipped set).
    #[serde(default)]
    pub discs: Option<DiscFile>,
    /// Custom map parts, as a part file (absent: the shipped parts).
    #[serde(default)]
    pub parts: Option<PartFile>,
    /// The start disc, a corner in the centre.
    pub start: StartDisc,
    /// The discs laid after the start disc, in order.
    pub placements: Vec<PositionPlacement>,
}

/// The start disc: a corner of the set, its elbow on f6, g6, g7 or f7 for
/// a rotation of 0, 90, 180 or 270.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StartDisc {
    /// Its three fields in field order (elbow, right arm, lower arm,
    /// unturned): star codes, `.` for an empty field.
    pub fields: String,
    #[serde(default = "r0")]
    pub rotation: Rotation,
}

fn r0() -> Rotation {
    Rotation::R0
}

/// A disc laid on the map.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PositionPlacement {
    pub shape: Shape,
    /// Its fields in field order: star codes, `.` for an empty field.
    pub fields: String,
    /// The square of its first field.
    pub at: Sq,
    #[serde(default = "r0")]
    pub rotation: Rotation,
}

/// The placements scored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct RefereeReport {
    /// `plain`, or the layout (`1b 2s 3b 4b / 5s …`).
    pub map: String,
    /// The star symbols, in set order.
    pub stars: Vec<StarSymbol>,
    pub start: StartReport,
    pub placements: Vec<PlacementReport>,
    /// The points of all placements.
    pub total: i64,
}

/// The start disc on the map.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct StartReport {
    pub fields: String,
    pub rotation: Rotation,
    /// The squares of its fields, in field order.
    pub squares: Vec<Sq>,
}

/// One placement and what it scored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct PlacementReport {
    /// Its number, from 1.
    pub number: usize,
    pub shape: Shape,
    pub fields: String,
    pub at: Sq,
    pub rotation: Rotation,
    /// The squares of its fields, in field order.
    pub squares: Vec<Sq>,
    /// Each group of three or more equal stars holding a field of this
    /// disc: it scores its size.
    pub groups: Vec<GroupReport>,
    /// Each bonus square this disc covered: earned if a star lies on it and
    /// that star's group scored now, lost otherwise.
    pub bonuses: Vec<Bonus>,
    /// Group sizes plus bonuses earned.
    pub points: i64,
    /// The points of this placement and all before it.
    pub total: i64,
}

/// A group of equal stars that scored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct GroupReport {
    /// The star's code.
    pub star: char,
    /// The star's name.
    pub name: String,
    /// How many fields the group has: the points it scores.
    pub size: usize,
    /// Its squares, in reading order.
    pub squares: Vec<Sq>,
}

fn bad(rule: &'static str, detail: impl Into<String>) -> RuleError {
    RuleError::bad_setup(rule, detail)
}

/// A quote of the input for an error: escaped ([`inline`]) and at most
/// [`QUOTE_CHARS`] characters once escaped (a control character takes
/// several), with the size said when cut.
fn excerpt(s: &str) -> String {
    let mut out = String::new();
    let mut len = 0;
    for c in s.chars() {
        let mut buf = [0; 4];
        let e = inline(c.encode_utf8(&mut buf));
        len += e.chars().count();
        if len > QUOTE_CHARS {
            return format!("{out}… ({} bytes in all)", s.len());
        }
        out.push_str(&e);
    }
    out
}

/// Every error of this referee, cut to [`MAX_DETAIL_CHARS`].
fn short(e: RuleError) -> RuleError {
    RuleError {
        detail: excerpt_of(&e.detail, MAX_DETAIL_CHARS),
        ..e
    }
}

/// Scores a position given as JSON text (see the module docs).
pub fn score_position(json: &str) -> Result<RefereeReport, RuleError> {
    read_and_score(json).map_err(short)
}

/// The example a position that is no JSON object is shown (kept on one line
/// of source: its braces are the text's, not the code's).
const POSITION_EXAMPLE: &str = r#"{"map": "plain", "start": {"fields": "RRW"}, "placements": []}"#;

fn read_and_score(json: &str) -> Result<RefereeReport, RuleError> {
    score_checked(&read_position(json)?)
}

/// The position in `json`: at most [`MAX_POSITION_BYTES`], a byte-order mark
/// allowed, and a JSON object of the position's shape.
fn read_position(json: &str) -> Result<Position, RuleError> {
    if json.len() > MAX_POSITION_BYTES {
        return Err(bad(
            "position-size",
            format!(
                "the position is {} bytes long; at most {MAX_POSITION_BYTES} bytes (1 MiB) are \
                 allowed",
                json.len()
            ),
        ));
    }
    let json = json.strip_prefix('\u{feff}').unwrap_or(json);
    if !json.trim_start().starts_with('{') {
        let begins = match json.trim() {
            "" => "it is empty".to_string(),
            t => format!("it begins `{}`", excerpt(t)),
        };
        return Err(bad(
            "position",
            format!("the position must be a JSON object such as {POSITION_EXAMPLE}; {begins}"),
        ));
    }
    serde_json::from_str(json).map_err(|e| {
        let what = if e.is_data() {
            "not a Star Map position"
        } else {
            "not valid JSON"
        };
        let why = crate::games::starry_sky::referee::tame(&e.to_string());
        bad(
            "position",
            if why.chars().count() < 250 {
                format!("{what}: {why}; see schemas/star-map-position.json")
            } else {
                format!("{what}: {why}")
            },
        )
    })
}

/// The map a position names, and its layout (`None`: plain).
fn build_map(p: &Position, set: &Set) -> Result<(Map, Option<Layout>), RuleError> {
    let word = p.map.trim().to_ascii_lowercase();
    if word == "plain" {
        let plain = Set {
            parts: vec![[[data::Square::Plain; 9]; 2]; data::PARTS],
            ..set.clone()
        };
        let layout = Layout(
            (1..=data::PARTS as u8)
                .map(|part| PlacedPart {
                    part,
                    side: data::Side::Bonus,
                })
                .collect(),
        );
        return Ok((Map::new(&plain, &layout), None));
    }
    if ["random", "easy", "hard", "mixed"].contains(&word.as_str()) {
        return Err(bad(
            "map",
            format!(
                "`map` is `{}`, which draws a map at random; a position needs the map itself: \
                 `plain`, or 16 parts with their sides, e.g. `1b 2s 3b 4b / 5s 6b 7b 8s / …`",
                excerpt(&p.map)
            ),
        ));
    }
    // The game's own parser reads the layout; its words are checked here
    // first so that a mistake is told in the position's terms.
    let usage = "give `plain`, or 16 parts with their sides in reading order of their \
                 places, each its id and side (b: bonus, s: symbols), e.g. `1b 2s 3b 4b / 5s 6b \
                 7b 8s / …`";
    let words: Vec<&str> = p
        .map
        .split(|c: char| c.is_whitespace() || c == ',' || c == '/')
        .filter(|t| !t.is_empty())
        .collect();
    if words.len() <= 1 {
        return Err(bad(
            "map",
            format!("`map` is `{}`; {usage}", excerpt(&p.map)),
        ));
    }
    for w in &words {
        // By characters: the last one may be any character at all.
        let lower = w.to_ascii_lowercase();
        let num = lower.strip_suffix(['b', 's']);
        if num.is_none_or(|n| n.parse::<u8>().is_err()) {
            return Err(bad(
                "map",
                format!(
                    "`map`: `{}` is not a part id followed by its side, b or s; {usage}",
                    excerpt(w)
                ),
            ));
        }
    }
    let options = StarMap::options(&[("map".to_string(), p.map.clone())], None)
        .map_err(|e| bad("map", format!("`map`: {}", e.detail)))?;
    match options.map {
        MapChoice::Layout(layout) => Ok((Map::new(set, &layout), Some(layout))),
        _ => Err(bad(
            "map",
            format!("`map` is `{}`: not a layout", excerpt(&p.map)),
        )),
    }
}

/// Reads a disc's fields, written in the set's star codes and `.`.
fn parse_fields(set: &Set, shape: Shape, text: &str, what: &str) -> Result<Vec<Field>, RuleError> {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() != shape.fields() {
        return Err(bad(
            "position-disc",
            format!(
                "{what}: a {shape} has {} field{}, but `{}` gives {}",
                shape.fields(),
                if shape.fields() == 1 { "" } else { "s" },
                excerpt(text),
                chars.len()
            ),
        ));
    }
    chars
        .into_iter()
        .map(|c| match c {
            '.' => Ok(None),
            c => set
                .stars
                .iter()
                .position(|s| s.code == c)
                .map(|i| Some(i as data::Star))
                .ok_or_else(|| {
                    bad(
                        "position-disc",
                        format!(
                            "{what}: `{}` is not a star code of the set ({}) nor `.` for an \
                             empty field",
                            excerpt(&c.to_string()),
                            set.stars
                                .iter()
                                .map(|s| s.code.to_string())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    )
                }),
        })
        .collect()
}

/// Takes the set's first unused disc of this shape showing these fields
/// (a two or a three read from either end).
fn take_disc(set: &Set, used: &mut [bool], shape: Shape, fields: &[Field]) -> Option<DiscId> {
    let reversed: Vec<Field> = fields.iter().rev().copied().collect();
    let found = set.discs.iter().enumerate().position(|(i, d)| {
        !used[i]
            && d.shape == shape
            && (d.fields == fields
                || (matches!(shape, Shape::Two | Shape::Three) && d.fields == reversed))
    })?;
    used[found] = true;
    Some(found as DiscId)
}

fn fields_text(set: &Set, fields: &[Field]) -> String {
    fields.iter().map(|&f| set.field_char(f)).collect()
}

/// Why a disc cannot be taken from the set.
fn no_such_disc(set: &Set, shape: Shape, fields: &[Field], what: &str) -> RuleError {
    let reversed: Vec<Field> = fields.iter().rev().copied().collect();
    let in_set = set.discs.iter().any(|d| {
        d.shape == shape
            && (d.fields == fields
                || (matches!(shape, Shape::Two | Shape::Three) && d.fields == reversed))
    });
    let text = fields_text(set, fields);
    bad(
        "position-disc",
        if in_set {
            format!(
                "{what}: every {shape} {text} of the set is on the map already; each disc is \
                 laid once"
            )
        } else {
            format!(
                "{what}: the set has no {shape} {text}{}",
                if shape == Shape::Corner {
                    " (a corner's fields are elbow, right arm, lower arm; discs are never flipped)"
                } else {
                    ""
                }
            )
        },
    )
}

/// Scores a parsed position.
pub fn score(p: &Position) -> Result<RefereeReport, RuleError> {
    score_checked(p).map_err(short)
}

fn score_checked(p: &Position) -> Result<RefereeReport, RuleError> {
    let options = Options {
        map: MapChoice::Random,
        discs: p.discs.clone(),
        parts: p.parts.clone(),
    };
    let set = options.set()?;
    let most = set.discs.len().saturating_sub(1);
    if p.placements.len() > most {
        return Err(bad(
            "position-placements",
            format!(
                "placements has {} entries; the set has {} discs besides the start disc, each \
                 laid once",
                p.placements.len(),
                most
            ),
        ));
    }
    let (mut map, layout) = build_map(p, &set)?;
    let mut used = vec![false; set.discs.len()];

    let start_fields = parse_fields(&set, Shape::Corner, &p.start.fields, "the start disc")?;
    let start = take_disc(&set, &mut used, Shape::Corner, &start_fields)
        .ok_or_else(|| no_such_disc(&set, Shape::Corner, &start_fields, "the start disc"))?;
    let rotation = p.start.rotation;
    let start_squares = Map::squares_of(Shape::Corner, START_ELBOW[rotation as usize], rotation)
        .expect("the start disc lies in the centre");
    map.lay(start, &start_fields, &start_squares);

    let mut table = Table {
        set: &set,
        map,
        used,
        total: 0,
    };
    let placements = p
        .placements
        .iter()
        .enumerate()
        .map(|(i, pl)| table.lay(i + 1, pl))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(RefereeReport {
        map: layout.map_or_else(|| "plain".to_string(), |l| l.to_string()),
        stars: set.stars.clone(),
        start: StartReport {
            fields: fields_text(&set, &start_fields),
            rotation,
            squares: start_squares,
        },
        placements,
        total: table.total,
    })
}

/// The map as the placements are laid on it, one by one.
struct Table<'a> {
    set: &'a Set,
    map: Map,
    /// The set's discs on the map, by disc id.
    used: Vec<bool>,
    /// The points so far.
    total: i64,
}

impl Table<'_> {
    /// Checks placement `number` by the map's rules, lays it and scores it.
    fn lay(&mut self, number: usize, pl: &PositionPlacement) -> Result<PlacementReport, RuleError> {
        let set = self.set;
        let name = format!(
            "placement {number} ({} `{}` on {}{})",
            pl.shape,
            excerpt(&pl.fields),
            pl.at,
            super::view::rotation_text(pl.shape, pl.rotation)
        );
        if pl.shape == Shape::One && pl.rotation != Rotation::R0 {
            // As in a log: one placement, one way to write it.
            return Err(RuleError::illegal(
                "rotation",
                format!(
                    "{name}: a one-field disc is not turned: its rotation is 0, not {}",
                    pl.rotation.degrees()
                ),
            ));
        }
        let fields = parse_fields(set, pl.shape, &pl.fields, &name)?;
        let disc = take_disc(set, &mut self.used, pl.shape, &fields)
            .ok_or_else(|| no_such_disc(set, pl.shape, &fields, &name))?;
        let squares = self
            .map
            .check(pl.shape, &fields, pl.at, pl.rotation)
            .map_err(|r| RuleError::illegal(r.rule(), format!("{name}: {}", r.describe(set))))?;
        self.map.lay(disc, &fields, &squares);
        let scored = self.map.score(&squares);
        self.total += scored.points;
        Ok(PlacementReport {
            number,
            shape: pl.shape,
            fields: fields_text(set, &fields),
            at: pl.at,
            rotation: pl.rotation,
            squares,
            groups: scored
                .groups
                .iter()
                .map(|g| GroupReport {
                    star: set.code(g.star),
                    name: set.star_name(g.star).to_string(),
                    size: g.squares.len(),
                    squares: g.squares.clone(),
                })
                .collect(),
            bonuses: scored.bonuses,
            points: scored.points,
            total: self.total,
        })
    }
}

/// The report as text: each placement and what it scored, the discs on the
/// map, and the total.
/// The report as text; lines longer than 80 columns (long groups, long star
/// names) are wrapped.
pub fn render_text(r: &RefereeReport) -> String {
    render_wide(r)
        .split_inclusive('\n')
        .map(|line| {
            if line.trim_end().chars().count() > 80 {
                crate::text::wrap(line, 80, "      ")
            } else {
                line.to_string()
            }
        })
        .collect()
}

fn render_wide(r: &RefereeReport) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Map: {}.",
        if r.map == "plain" {
            "plain (no symbols, no bonuses)"
        } else {
            &r.map
        }
    );
    let _ = writeln!(
        out,
        "Start disc: corner {} {} on {}.",
        r.start.fields,
        r.start.rotation,
        squares_text(&r.start.squares)
    );
    if r.placements.is_empty() {
        out.push_str("No placements.\n");
    }
    for p in &r.placements {
        let _ = write!(
            out,
            "{:>2}. {} {} on {}{}",
            p.number,
            p.shape,
            p.fields,
            p.at,
            super::view::rotation_text(p.shape, p.rotation),
        );
        if p.squares.len() > 1 {
            let _ = write!(out, " ({})", squares_text(&p.squares));
        }
        out.push_str(": ");
        if p.points == 0 {
            out.push_str("nothing");
        } else {
            let _ = write!(
                out,
                "{} point{}",
                p.points,
                if p.points == 1 { "" } else { "s" }
            );
        }
        let _ = writeln!(out, ", total {}", p.total);
        for g in &p.groups {
            let _ = writeln!(
                out,
                "      {} {}: {}",
                g.name,
                g.size,
                squares_text(&g.squares)
            );
        }
        for b in &p.bonuses {
            let _ = writeln!(
                out,
                "      bonus {} on {}: {}",
                b.points,
                b.square,
                if b.earned { "earned" } else { "lost" }
            );
        }
    }
    out.push('\n');
    render_map(&mut out, r);
    let _ = writeln!(
        out,
        "Stars: {}.\n- is an empty field, . a free square.",
        r.stars
            .iter()
            .map(|s| format!("{} {}", s.code, s.name))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = write!(
        out,
        "Total: {} point{} from {} placement{}.",
        r.total,
        if r.total == 1 { "" } else { "s" },
        r.placements.len(),
        if r.placements.len() == 1 { "" } else { "s" }
    );
    out
}

fn squares_text(squares: &[Sq]) -> String {
    squares
        .iter()
        .map(Sq::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The fields on the map: a star's code, `-` an empty field, `.` a free
/// square.
fn render_map(out: &mut String, r: &RefereeReport) {
    let mut grid = [['.'; map::SIZE]; map::SIZE];
    let discs = std::iter::once((&r.start.fields, &r.start.squares))
        .chain(r.placements.iter().map(|p| (&p.fields, &p.squares)));
    for (fields, squares) in discs {
        for (c, s) in fields.chars().zip(squares) {
            grid[s.y()][s.x()] = if c == '.' { '-' } else { c };
        }
    }
    out.push_str("    a b c d e f g h i j k l\n");
    for (y, row) in grid.iter().enumerate() {
        let cells: Vec<String> = row.iter().map(char::to_string).collect();
        out.push_str(&format!("{:>2}  {}\n", y + 1, cells.join(" ")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Draw;

    #[test]
    fn the_size_limit_is_the_other_referees() {
        assert_eq!(
            MAX_POSITION_BYTES,
            crate::games::starry_sky::referee::MAX_POSITION_BYTES
        );
        assert_eq!(
            MAX_POSITION_BYTES,
            crate::games::starry_night::referee::MAX_POSITION_BYTES
        );
    }

    /// The start disc lies where the game's setup lays it.
    #[test]
    fn the_start_disc_lies_as_in_the_game() {
        let mut seen = [false; 4];
        for seed in 0..64u8 {
            let state = StarMap::setup(&Options::default(), 2, &mut Draw::new([seed; 32])).unwrap();
            let (disc, rotation) = state.start();
            let squares =
                Map::squares_of(Shape::Corner, START_ELBOW[rotation as usize], rotation).unwrap();
            let fields = &state.set().discs[disc as usize].fields;
            for (s, f) in squares.iter().zip(fields) {
                let cell = state.map().cell(*s).unwrap();
                assert_eq!((cell.disc, cell.field), (disc, *f));
            }
            seen[rotation as usize] = true;
        }
        assert_eq!(seen, [true; 4]);
    }

    #[test]
    fn points_add_up() {
        let r = score_position(
            r#"{"map":"plain","start":{"fields":"RRW"},"placements":[
                {"shape":"one","fields":"R","at":"h6"},
                {"shape":"one","fields":"R","at":"e6"}]}"#,
        )
        .unwrap();
        assert_eq!(
            r.placements.iter().map(|p| p.points).collect::<Vec<_>>(),
            [3, 4]
        );
        assert_eq!(r.total, 7);
        let e = score_position(
            r#"{"map":"plain","start":{"fields":"RRW"},"placements":[
                {"shape":"one","fields":"B","at":"h6"}]}"#,
        )
        .unwrap_err();
        assert_eq!(e.rule, "match");
        assert_eq!(e.kind, crate::games::RuleErrorKind::Illegal);
    }
}
