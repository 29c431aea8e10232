//! The game's material as data: the star symbols, the 56 discs and the 16
//! double-sided map parts. The shipped set (`discs.json`, `parts.json`, made
//! by `make_data.py`) can be replaced with `--discs FILE` and `--parts FILE`;
//! either way the files are validated here and kept whole in the genesis, so
//! that an audit needs nothing but the log.
//!
//! The file formats are in docs/star-map.md ("Data files").

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::games::RuleError;

/// How many star symbols a set has.
pub const STARS: usize = 7;
/// How many map parts make the map (4 × 4).
pub const PARTS: usize = 16;
/// How many discs of each shape a set has, in [`Shape::ALL`] order.
pub const DISCS_PER_SHAPE: [usize; 4] = [12, 12, 16, 16];
/// Files larger than this are refused before parsing.
const MAX_FILE: usize = 1 << 20;

/// A star symbol, by its index in the set's star list.
pub type Star = u8;
/// A disc field: a star, or empty (`None`).
pub type Field = Option<Star>;
/// A disc, by its index in the set's disc list.
pub type DiscId = u8;

/// The four disc shapes.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    /// Three fields in an L: the elbow, the arm to its right, the arm below.
    Corner,
    /// Three fields in a row.
    Three,
    /// Two fields side by side.
    Two,
    /// A single field.
    One,
}

impl Shape {
    pub const ALL: [Shape; 4] = [Shape::Corner, Shape::Three, Shape::Two, Shape::One];

    pub fn name(self) -> &'static str {
        match self {
            Shape::Corner => "corner",
            Shape::Three => "three",
            Shape::Two => "two",
            Shape::One => "one",
        }
    }

    pub fn parse(word: &str) -> Option<Shape> {
        Shape::ALL.into_iter().find(|s| s.name() == word)
    }

    /// Its index in [`Shape::ALL`] (and in the stacks).
    pub fn index(self) -> usize {
        self as usize
    }

    pub fn fields(self) -> usize {
        self.offsets().len()
    }

    /// Where each field lies relative to the first, unrotated: x to the
    /// right, y down.
    pub fn offsets(self) -> &'static [(i8, i8)] {
        match self {
            Shape::Corner => &[(0, 0), (1, 0), (0, 1)],
            Shape::Three => &[(0, 0), (1, 0), (2, 0)],
            Shape::Two => &[(0, 0), (1, 0)],
            Shape::One => &[(0, 0)],
        }
    }

    /// The rotations that give different placements: all four, but only
    /// one for a single field.
    pub fn rotations(self) -> &'static [Rotation] {
        match self {
            Shape::One => &[Rotation::R0],
            _ => &Rotation::ALL,
        }
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A quarter turn clockwise, as seen on the map; discs are never flipped.
/// In the log: the degrees, 0, 90, 180 or 270.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rotation {
    R0,
    R90,
    R180,
    R270,
}

impl Serialize for Rotation {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u32(self.degrees())
    }
}

impl<'de> Deserialize<'de> for Rotation {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Rotation, D::Error> {
        let degrees = u32::deserialize(d)?;
        Rotation::from_degrees(degrees).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "{degrees} is not a rotation; a rotation is 0, 90, 180 or 270"
            ))
        })
    }
}

impl JsonSchema for Rotation {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Rotation".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "integer",
            "enum": [0, 90, 180, 270],
            "description": "A quarter turn clockwise, in degrees."
        })
    }
}

impl Rotation {
    pub const ALL: [Rotation; 4] = [Rotation::R0, Rotation::R90, Rotation::R180, Rotation::R270];

    pub fn degrees(self) -> u32 {
        self as u32 * 90
    }

    pub fn from_degrees(d: u32) -> Option<Rotation> {
        match d {
            0 => Some(Rotation::R0),
            90 => Some(Rotation::R90),
            180 => Some(Rotation::R180),
            270 => Some(Rotation::R270),
            _ => None,
        }
    }

    /// Turns an offset clockwise on the map (y grows downwards).
    pub fn apply(self, (dx, dy): (i8, i8)) -> (i8, i8) {
        match self {
            Rotation::R0 => (dx, dy),
            Rotation::R90 => (-dy, dx),
            Rotation::R180 => (-dx, -dy),
            Rotation::R270 => (dy, -dx),
        }
    }
}

impl fmt::Display for Rotation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "r{}", self.degrees())
    }
}

/// What a map square asks of the field placed on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Square {
    Plain,
    /// Extra points for a star placed here whose group scores at once.
    Bonus(u8),
    /// Only this star may be placed here (not an empty field).
    Only(Star),
    /// Anything but this star (an empty field too).
    Not(Star),
    /// Only an empty field.
    Meteorite,
}

/// A map part's two sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The easy side: bonus squares only.
    Bonus,
    /// The hard side: restriction symbols and bonus squares.
    Symbols,
}

impl Side {
    pub fn letter(self) -> char {
        match self {
            Side::Bonus => 'b',
            Side::Symbols => 's',
        }
    }
}

/// A star symbol as a set file names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StarSymbol {
    /// One upper-case letter, used in the files, the text view and errors.
    pub code: char,
    /// A lower-case word, e.g. `red`.
    pub name: String,
}

/// A disc as a set file writes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiscEntry {
    pub shape: Shape,
    /// One character per field in the shape's field order: a star code, or
    /// `.` for an empty field.
    pub fields: String,
}

/// The disc file (`--discs FILE`, schemas/star-map-discs.json): the star
/// symbols and the 56 discs, 12 corner, 12 three, 16 two and 16 one, in that
/// order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiscFile {
    pub stars: Vec<StarSymbol>,
    pub discs: Vec<DiscEntry>,
}

/// A map part as a set file writes it: each side three rows of three
/// space-separated squares, top row first. A square is `.` (plain), a digit
/// 1–9 (bonus points), `=X` (only star X), `!X` (anything but star X) or
/// `#` (a meteorite: only an empty field).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PartEntry {
    /// 1 to 16, each once.
    pub id: u8,
    /// The easy side: only `.` and bonus digits.
    pub bonus: Vec<String>,
    /// The hard side.
    pub symbols: Vec<String>,
}

/// The part file (`--parts FILE`, schemas/star-map-parts.json).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PartFile {
    pub parts: Vec<PartEntry>,
}

impl PartFile {
    /// The same parts with each row written `a b c`: what the genesis keeps,
    /// so that stray blanks in a user's file do not bloat the log.
    pub fn canonical(&self) -> PartFile {
        let rows = |rows: &[String]| {
            rows.iter()
                .map(|r| r.split_whitespace().collect::<Vec<_>>().join(" "))
                .collect()
        };
        PartFile {
            parts: self
                .parts
                .iter()
                .map(|p| PartEntry {
                    id: p.id,
                    bonus: rows(&p.bonus),
                    symbols: rows(&p.symbols),
                })
                .collect(),
        }
    }
}

/// A disc, validated.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Disc {
    pub shape: Shape,
    pub fields: Vec<Field>,
}

/// The validated material of a game.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Set {
    pub stars: Vec<StarSymbol>,
    pub discs: Vec<Disc>,
    /// Part `id - 1`'s sides, each 3 × 3 squares in reading order.
    pub parts: Vec<[[Square; 9]; 2]>,
}

impl Set {
    pub fn code(&self, star: Star) -> char {
        self.stars[star as usize].code
    }

    pub fn star_name(&self, star: Star) -> &str {
        &self.stars[star as usize].name
    }

    /// A field as the text view and errors write it: its code, `.` if empty.
    pub fn field_char(&self, field: Field) -> char {
        field.map_or('.', |s| self.code(s))
    }

    pub fn field_name(&self, field: Field) -> String {
        match field {
            Some(s) => {
                let name = self.star_name(s);
                let article = if name.starts_with(['a', 'e', 'i', 'o', 'u']) {
                    "an"
                } else {
                    "a"
                };
                format!("{article} {name} star")
            }
            None => "an empty field".into(),
        }
    }

    /// The discs of one shape, in set order: a stack before any is drawn.
    pub fn stack(&self, shape: Shape) -> Vec<DiscId> {
        (0..self.discs.len())
            .filter(|&d| self.discs[d].shape == shape)
            .map(|d| d as DiscId)
            .collect()
    }
}

/// The shipped disc file.
pub fn shipped_discs() -> DiscFile {
    serde_json::from_str(include_str!("discs.json")).expect("the shipped discs parse")
}

/// The shipped part file.
pub fn shipped_parts() -> PartFile {
    serde_json::from_str(include_str!("parts.json")).expect("the shipped parts parse")
}

/// Parses a disc or part file's text; `what` names it in errors.
pub fn parse_file<T: serde::de::DeserializeOwned>(text: &str, what: &str) -> Result<T, RuleError> {
    if text.len() > MAX_FILE {
        return Err(RuleError::bad_setup(
            "data",
            format!("{what} is larger than 1 MiB"),
        ));
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    serde_json::from_str(text).map_err(|e| {
        RuleError::bad_setup(
            "data",
            format!(
                "{what} is not valid: {} (its format is in docs/star-map.md, \"Data files\")",
                crate::text::excerpt(&e.to_string())
            ),
        )
    })
}

fn bad(detail: String) -> RuleError {
    RuleError::bad_setup("data", detail)
}

/// Checks both files and builds the set.
pub fn validate(discs: &DiscFile, parts: &PartFile) -> Result<Set, RuleError> {
    let stars = validate_stars(&discs.stars)?;
    let code_of = |c: char| stars.iter().position(|s| s.code == c).map(|i| i as Star);
    let mut out = Vec::new();
    let mut counts = [0usize; 4];
    for (i, d) in discs.discs.iter().enumerate() {
        let n = i + 1;
        let chars: Vec<char> = d.fields.chars().collect();
        if chars.len() != d.shape.fields() {
            return Err(bad(format!(
                "the disc file: disc {n} is a {} and has {} field{}, but `{}` gives {}",
                d.shape,
                d.shape.fields(),
                if d.shape.fields() == 1 { "" } else { "s" },
                crate::text::excerpt(&d.fields),
                chars.len()
            )));
        }
        let mut fields = Vec::new();
        for c in chars {
            fields.push(match c {
                '.' => None,
                c => Some(code_of(c).ok_or_else(|| {
                    bad(format!(
                        "the disc file: disc {n} has a field `{}`, which is no star code of the set \
                         ({}) and not `.` for an empty field",
                        crate::text::excerpt(&c.to_string()),
                        codes(&stars)
                    ))
                })?),
            });
        }
        if fields.iter().all(Option::is_none) {
            return Err(bad(format!(
                "the disc file: disc {n} (`{}`) has no star; every disc shows at least one",
                crate::text::excerpt(&d.fields)
            )));
        }
        let k = d.shape.index();
        counts[k] += 1;
        out.push(Disc {
            shape: d.shape,
            fields,
        });
    }
    if counts != DISCS_PER_SHAPE {
        return Err(bad(format!(
            "the disc file has {} corner, {} three, {} two and {} one discs; a set has 12, 12, 16 \
             and 16 (56 discs)",
            counts[0], counts[1], counts[2], counts[3]
        )));
    }
    if out.windows(2).any(|w| w[0].shape > w[1].shape) {
        return Err(bad(
            "the disc file lists its discs out of order; list the 12 corner, 12 three, 16 two \
             and 16 one discs in that order"
                .into(),
        ));
    }
    let parts = validate_parts(parts, &stars)?;
    Ok(Set {
        stars,
        discs: out,
        parts,
    })
}

fn codes(stars: &[StarSymbol]) -> String {
    stars
        .iter()
        .map(|s| s.code.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn validate_stars(stars: &[StarSymbol]) -> Result<Vec<StarSymbol>, RuleError> {
    if stars.len() != STARS {
        return Err(bad(format!(
            "the disc file names {} star symbols; a set has {STARS}",
            stars.len()
        )));
    }
    for (i, s) in stars.iter().enumerate() {
        if !s.code.is_ascii_uppercase() {
            return Err(bad(format!(
                "the disc file: star {} has the code `{}`; a code is one upper-case letter A-Z",
                i + 1,
                crate::text::excerpt(&s.code.to_string())
            )));
        }
        if s.name.is_empty()
            || s.name.len() > 16
            || !s.name.chars().all(|c| c.is_ascii_lowercase() || c == '-')
        {
            return Err(bad(format!(
                "the disc file: star {} is named `{}`; a name is a lower-case word of at most 16 \
                 letters (a-z and -)",
                i + 1,
                crate::text::excerpt(&s.name)
            )));
        }
        if stars[..i]
            .iter()
            .any(|t| t.code == s.code || t.name == s.name)
        {
            return Err(bad(format!(
                "the disc file: star {} (`{}`, {}) repeats the code or name of an earlier star",
                i + 1,
                s.code,
                s.name
            )));
        }
    }
    Ok(stars.to_vec())
}

fn validate_parts(
    file: &PartFile,
    stars: &[StarSymbol],
) -> Result<Vec<[[Square; 9]; 2]>, RuleError> {
    if file.parts.len() != PARTS {
        return Err(bad(format!(
            "the part file has {} map parts; the map is made of {PARTS} (4 × 4)",
            file.parts.len()
        )));
    }
    let mut out = vec![[[Square::Plain; 9]; 2]; PARTS];
    let mut seen = [false; PARTS];
    for p in &file.parts {
        let id = p.id as usize;
        if !(1..=PARTS).contains(&id) || seen[id - 1] {
            return Err(bad(format!(
                "the part file: part id {} is {}; ids are 1 to {PARTS}, each once",
                p.id,
                if (1..=PARTS).contains(&id) {
                    "given twice"
                } else {
                    "out of range"
                }
            )));
        }
        seen[id - 1] = true;
        for (side, rows) in [(Side::Bonus, &p.bonus), (Side::Symbols, &p.symbols)] {
            out[id - 1][side as usize] = parse_side(id, side, rows, stars)?;
        }
    }
    Ok(out)
}

fn side_name(side: Side) -> &'static str {
    match side {
        Side::Bonus => "bonus",
        Side::Symbols => "symbols",
    }
}

fn parse_side(
    id: usize,
    side: Side,
    rows: &[String],
    stars: &[StarSymbol],
) -> Result<[Square; 9], RuleError> {
    let where_ = format!("the part file: part {id}, {} side", side_name(side));
    if rows.len() != 3 {
        return Err(bad(format!(
            "{where_} has {} rows; a part is 3 × 3 squares",
            rows.len()
        )));
    }
    let mut out = [Square::Plain; 9];
    for (y, row) in rows.iter().enumerate() {
        let tokens: Vec<&str> = row.split_whitespace().collect();
        if tokens.len() != 3 {
            return Err(bad(format!(
                "{where_}, row {}: `{}` has {} squares; a part is 3 × 3 squares, written as three \
                 space-separated squares per row",
                y + 1,
                crate::text::excerpt(row),
                tokens.len()
            )));
        }
        for (x, t) in tokens.iter().enumerate() {
            let sq = parse_square(t, stars).ok_or_else(|| {
                bad(format!(
                    "{where_}, row {}: `{}` is not a square; write `.`, a bonus 1-9, `=X` (only \
                     star X), `!X` (not star X) or `#` (a meteorite), with X one of {}",
                    y + 1,
                    crate::text::excerpt(t),
                    codes(stars)
                ))
            })?;
            if side == Side::Bonus && !matches!(sq, Square::Plain | Square::Bonus(_)) {
                return Err(bad(format!(
                    "{where_}, row {}: `{}` is a symbol; the bonus side has only bonus squares \
                     and plain ones",
                    y + 1,
                    crate::text::excerpt(t)
                )));
            }
            out[y * 3 + x] = sq;
        }
    }
    Ok(out)
}

fn parse_square(t: &str, stars: &[StarSymbol]) -> Option<Square> {
    let star = |c: &str| {
        let mut it = c.chars();
        let ch = it.next()?;
        if it.next().is_some() {
            return None;
        }
        stars.iter().position(|s| s.code == ch).map(|i| i as Star)
    };
    match t {
        "." => Some(Square::Plain),
        "#" => Some(Square::Meteorite),
        _ if t.len() == 1 && matches!(t.as_bytes()[0], b'1'..=b'9') => {
            Some(Square::Bonus(t.as_bytes()[0] - b'0'))
        }
        _ => {
            if let Some(c) = t.strip_prefix('=') {
                star(c).map(Square::Only)
            } else if let Some(c) = t.strip_prefix('!') {
                star(c).map(Square::Not)
            } else {
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_set_is_valid() {
        let set = validate(&shipped_discs(), &shipped_parts()).unwrap();
        assert_eq!(set.discs.len(), 56);
        let fields: usize = set.discs.iter().map(|d| d.fields.len()).sum();
        assert_eq!(fields, 120);
    }
}
