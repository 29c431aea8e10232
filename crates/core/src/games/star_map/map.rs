//! The star map: 12 × 12 squares made of 16 map parts, and the disc fields
//! placed on it. Placement rules and scoring live here, as pure functions of
//! the map; the game (`super`) keeps hands, stacks and turns.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::data::{DiscId, Field, Rotation, Set, Shape, Side, Square, Star};

/// Squares per side of the map.
pub const SIZE: usize = 12;
/// Squares on the map.
pub const SQUARES: usize = SIZE * SIZE;
/// The centre 2 × 2 block, always plain: f6, g6, f7, g7.
pub const CENTRE: [Sq; 4] = [
    Sq(5 * 12 + 5),
    Sq(5 * 12 + 6),
    Sq(6 * 12 + 5),
    Sq(6 * 12 + 6),
];

/// A square of the map, numbered in reading order (a1 = 0, b1 = 1, …,
/// l12 = 143). Columns a–l run left to right, rows 1–12 top to bottom.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Sq(pub u8);

impl Sq {
    pub fn new(x: usize, y: usize) -> Option<Sq> {
        (x < SIZE && y < SIZE).then(|| Sq((y * SIZE + x) as u8))
    }

    pub fn x(self) -> usize {
        self.0 as usize % SIZE
    }

    pub fn y(self) -> usize {
        self.0 as usize / SIZE
    }

    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The square `d` away, if it is on the map.
    pub fn offset(self, (dx, dy): (i8, i8)) -> Option<Sq> {
        let x = self.x() as i32 + i32::from(dx);
        let y = self.y() as i32 + i32::from(dy);
        if (0..SIZE as i32).contains(&x) && (0..SIZE as i32).contains(&y) {
            Sq::new(x as usize, y as usize)
        } else {
            None
        }
    }

    /// The squares sharing an edge with this one.
    pub fn neighbours(self) -> impl Iterator<Item = Sq> {
        [(0, -1), (-1, 0), (1, 0), (0, 1)]
            .into_iter()
            .filter_map(move |d| self.offset(d))
    }

    /// Parses `f7` (case-insensitive).
    pub fn parse(text: &str) -> Option<Sq> {
        let t = text.trim().to_ascii_lowercase();
        let mut chars = t.chars();
        let col = chars.next()?;
        if !('a'..='l').contains(&col) {
            return None;
        }
        let digits = chars.as_str();
        if digits.is_empty()
            || digits.starts_with('0')
            || !digits.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let row: usize = digits.parse().ok()?;
        if !(1..=SIZE).contains(&row) {
            return None;
        }
        Sq::new(col as usize - 'a' as usize, row - 1)
    }
}

impl fmt::Display for Sq {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.x() as u8) as char, self.y() + 1)
    }
}

impl Serialize for Sq {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Sq {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Sq, D::Error> {
        let text = String::deserialize(d)?;
        // Any spelling of a square reads (`F7`); the protocol then refuses a
        // line that does not re-encode to itself as non-canonical.
        Sq::parse(&text).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "`{}` is not a square; squares are a1 to l12",
                crate::text::excerpt(&text)
            ))
        })
    }
}

impl JsonSchema for Sq {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Square".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": "^[a-l]([1-9]|1[0-2])$",
            "description": "A map square: column a-l (left to right), row 1-12 (top to bottom)."
        })
    }
}

/// Which part lies where: 16 parts and sides, in reading order of their
/// places on the map.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Layout(pub Vec<PlacedPart>);

/// A map part at its place.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlacedPart {
    /// The part's id, 1 to 16.
    pub part: u8,
    pub side: Side,
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(if i % 4 == 0 { " / " } else { " " })?;
            }
            write!(f, "{}{}", p.part, p.side.letter())?;
        }
        Ok(())
    }
}

/// A field lying on the map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Cell {
    pub field: Field,
    pub disc: DiscId,
}

/// A disc, where its first field goes, and how it is turned.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct Placement {
    pub disc: DiscId,
    pub at: Sq,
    pub rotation: Rotation,
}

/// Why a placement is refused, in the order the rules are checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// A field would lie off the map.
    OffMap,
    /// A field would lie on a square already covered.
    Overlap(Sq),
    /// No field would touch a placed disc along an edge; `diagonal` if one
    /// touches only at a corner.
    NoContact { diagonal: Option<Sq>, first: bool },
    /// Two touching fields are different stars.
    Mismatch {
        at: Sq,
        field: Star,
        next: Sq,
        other: Star,
    },
    /// A star square gets something else.
    OnlyStar { at: Sq, star: Star, field: Field },
    /// A crossed-out star square gets that star.
    NotStar { at: Sq, star: Star },
    /// A meteorite gets a star.
    Meteorite { at: Sq, field: Star },
}

impl Refusal {
    /// The rule's short stable name (docs/star-map.md).
    pub fn rule(&self) -> &'static str {
        match self {
            Refusal::OffMap => "map-edge",
            Refusal::Overlap(_) => "overlap",
            Refusal::NoContact { first: true, .. } => "start-disc",
            Refusal::NoContact { .. } => "contact",
            Refusal::Mismatch { .. } => "match",
            Refusal::OnlyStar { .. } => "star-square",
            Refusal::NotStar { .. } => "crossed-out-star",
            Refusal::Meteorite { .. } => "meteorite",
        }
    }

    /// What happened, in the game's words.
    pub fn describe(&self, set: &Set) -> String {
        match self {
            Refusal::OffMap => {
                "the disc would stick out of the map (columns a-l, rows 1-12)".into()
            }
            Refusal::Overlap(s) => format!("{s} is covered already; discs go on empty squares"),
            Refusal::NoContact {
                first: true,
                diagonal,
            } => format!(
                "the first disc must touch the start disc (in the centre, f6-g7) along an edge{}",
                diagonal.map_or(String::new(), |d| format!(
                    "; it only touches the corner of {d}"
                ))
            ),
            Refusal::NoContact {
                first: false,
                diagonal: Some(d),
            } => format!(
                "the disc only touches the corner of {d}; it must touch a disc on the map along \
                 an edge"
            ),
            Refusal::NoContact { .. } => {
                "the disc touches no disc on the map; it must touch one along an edge".into()
            }
            Refusal::Mismatch {
                at,
                field,
                next,
                other,
            } => format!(
                "{} on {at} would touch {} on {next}; touching fields must show the same star \
                 (or one of them be empty)",
                set.field_name(Some(*field)),
                set.field_name(Some(*other))
            ),
            Refusal::OnlyStar { at, star, field } => format!(
                "{at} takes only {}, not {}",
                set.field_name(Some(*star)),
                set.field_name(*field)
            ),
            Refusal::NotStar { at, star } => format!(
                "{at} shows a crossed-out {0} star: no {0} star may go there",
                set.star_name(*star)
            ),
            Refusal::Meteorite { at, field } => format!(
                "{at} is a meteorite: only an empty field may go there, not {}",
                set.field_name(Some(*field))
            ),
        }
    }
}

/// A group of equal stars that scored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Group {
    /// The star, by its index in the set.
    pub star: Star,
    /// Its squares, in reading order.
    pub squares: Vec<Sq>,
}

/// A bonus square the disc covered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Bonus {
    pub square: Sq,
    pub points: u8,
    /// False: the bonus is lost (an empty field, or a star whose group did
    /// not score).
    pub earned: bool,
}

/// What a placement scores.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Scored {
    /// Each group of three or more equal stars holding a field of the disc.
    pub groups: Vec<Group>,
    pub bonuses: Vec<Bonus>,
    /// Group sizes plus bonuses earned.
    pub points: i64,
}

/// The map: what each square asks, and what lies on it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Map {
    #[serde(with = "serde_big_array::BigArray")]
    squares: [Square; SQUARES],
    #[serde(with = "serde_big_array::BigArray")]
    cells: [Option<Cell>; SQUARES],
    placed: usize,
}

impl Map {
    /// The map of a layout; the centre block is plain whatever the parts
    /// show there.
    pub fn new(set: &Set, layout: &Layout) -> Map {
        let mut squares = [Square::Plain; SQUARES];
        for (place, p) in layout.0.iter().enumerate() {
            let side = &set.parts[p.part as usize - 1][p.side as usize];
            let (px, py) = (place % 4 * 3, place / 4 * 3);
            for (i, sq) in side.iter().enumerate() {
                squares[(py + i / 3) * SIZE + px + i % 3] = *sq;
            }
        }
        for c in CENTRE {
            squares[c.index()] = Square::Plain;
        }
        Map {
            squares,
            cells: [None; SQUARES],
            placed: 0,
        }
    }

    pub fn square(&self, sq: Sq) -> Square {
        self.squares[sq.index()]
    }

    pub fn cell(&self, sq: Sq) -> Option<Cell> {
        self.cells[sq.index()]
    }

    /// How many discs lie on the map, the start disc included.
    pub fn discs(&self) -> usize {
        self.placed
    }

    /// The squares a disc of `shape` would cover, field by field, if all are
    /// on the map.
    pub fn squares_of(shape: Shape, at: Sq, rotation: Rotation) -> Option<Vec<Sq>> {
        shape
            .offsets()
            .iter()
            .map(|&o| at.offset(rotation.apply(o)))
            .collect()
    }

    /// Checks a placement of `fields` (a disc of `shape`) against every rule.
    pub fn check(
        &self,
        shape: Shape,
        fields: &[Field],
        at: Sq,
        rotation: Rotation,
    ) -> Result<Vec<Sq>, Refusal> {
        let squares = Self::squares_of(shape, at, rotation).ok_or(Refusal::OffMap)?;
        if let Some(&s) = squares.iter().find(|s| self.cell(**s).is_some()) {
            return Err(Refusal::Overlap(s));
        }
        let mut contact = false;
        let mut diagonal = None;
        for &s in &squares {
            contact |= s.neighbours().any(|n| self.cell(n).is_some());
            if diagonal.is_none() {
                diagonal = [(-1, -1), (1, -1), (-1, 1), (1, 1)]
                    .into_iter()
                    .filter_map(|d| s.offset(d))
                    .find(|n| self.cell(*n).is_some());
            }
        }
        if !contact {
            return Err(Refusal::NoContact {
                diagonal,
                first: self.placed == 1,
            });
        }
        for (&s, &field) in squares.iter().zip(fields) {
            let Some(star) = field else { continue };
            for n in s.neighbours() {
                if let Some(Cell {
                    field: Some(other), ..
                }) = self.cell(n)
                    && other != star
                {
                    return Err(Refusal::Mismatch {
                        at: s,
                        field: star,
                        next: n,
                        other,
                    });
                }
            }
        }
        for (&s, &field) in squares.iter().zip(fields) {
            match (self.square(s), field) {
                (Square::Only(star), f) if f != Some(star) => {
                    return Err(Refusal::OnlyStar {
                        at: s,
                        star,
                        field: f,
                    });
                }
                (Square::Not(star), Some(f)) if f == star => {
                    return Err(Refusal::NotStar { at: s, star });
                }
                (Square::Meteorite, Some(f)) => {
                    return Err(Refusal::Meteorite { at: s, field: f });
                }
                _ => {}
            }
        }
        Ok(squares)
    }

    /// Whether a placement is legal: [`Map::check`] without the reasons, for
    /// listing every legal placement fast.
    fn fits(&self, fields: &[Field], squares: &[Sq]) -> bool {
        let mut contact = false;
        for (&s, &field) in squares.iter().zip(fields) {
            if self.cells[s.index()].is_some() {
                return false;
            }
            match (self.squares[s.index()], field) {
                (Square::Only(star), f) if f != Some(star) => return false,
                (Square::Not(star), Some(f)) if f == star => return false,
                (Square::Meteorite, Some(_)) => return false,
                _ => {}
            }
            for n in s.neighbours() {
                if let Some(c) = self.cells[n.index()] {
                    contact = true;
                    if let (Some(a), Some(b)) = (field, c.field)
                        && a != b
                    {
                        return false;
                    }
                }
            }
        }
        contact
    }

    /// Every legal placement of these discs, by disc (in the order given),
    /// rotation and square. Only squares next to a placed disc can be
    /// touched, so only anchors that put some field there are tried.
    pub fn legal(&self, set: &Set, discs: &[DiscId]) -> Vec<Placement> {
        let mut out = Vec::new();
        self.each_legal(set, discs, |p| {
            out.push(p);
            true
        });
        out
    }

    /// Whether any of these discs can be placed: stops at the first.
    pub fn any_legal(&self, set: &Set, discs: &[DiscId]) -> bool {
        let mut any = false;
        self.each_legal(set, discs, |_| {
            any = true;
            false
        });
        any
    }

    /// Calls `f` with each legal placement in [`Map::legal`]'s order while
    /// it returns true. Allocation-free but for the frontier: this is the
    /// inner loop of every turn.
    fn each_legal(&self, set: &Set, discs: &[DiscId], mut f: impl FnMut(Placement) -> bool) {
        let mut frontier = [Sq(0); SQUARES];
        let mut n = 0;
        for i in 0..SQUARES {
            let s = Sq(i as u8);
            if self.cells[i].is_none() && s.neighbours().any(|x| self.cells[x.index()].is_some()) {
                frontier[n] = s;
                n += 1;
            }
        }
        let frontier = &frontier[..n];
        for &disc in discs {
            let d = &set.discs[disc as usize];
            let offsets = d.shape.offsets();
            for &rotation in d.shape.rotations() {
                let turned: Vec<(i8, i8)> = offsets.iter().map(|&o| rotation.apply(o)).collect();
                // Anchors to try, as a bitmap: found in any order, listed
                // in square order.
                let mut tried = [false; SQUARES];
                let mut fits = [false; SQUARES];
                for &(rx, ry) in &turned {
                    for &fr in frontier {
                        let Some(at) = fr.offset((-rx, -ry)) else {
                            continue;
                        };
                        if std::mem::replace(&mut tried[at.index()], true) {
                            continue;
                        }
                        let mut squares = [Sq(0); 3];
                        let mut on_map = true;
                        for (k, &o) in turned.iter().enumerate() {
                            match at.offset(o) {
                                Some(sq) => squares[k] = sq,
                                None => on_map = false,
                            }
                        }
                        fits[at.index()] = on_map && self.fits(&d.fields, &squares[..turned.len()]);
                    }
                }
                for (i, _) in fits.iter().enumerate().filter(|(_, ok)| **ok) {
                    if !f(Placement {
                        disc,
                        at: Sq(i as u8),
                        rotation,
                    }) {
                        return;
                    }
                }
            }
        }
    }

    /// Lays fields on squares without any check (the start disc, and a
    /// placement already checked).
    pub fn lay(&mut self, disc: DiscId, fields: &[Field], squares: &[Sq]) {
        for (&s, &field) in squares.iter().zip(fields) {
            self.cells[s.index()] = Some(Cell { field, disc });
        }
        self.placed += 1;
    }

    /// The orthogonally connected group of equal stars holding `from`.
    pub fn group(&self, from: Sq) -> Option<Group> {
        let star = self.cell(from)?.field?;
        let mut seen = [false; SQUARES];
        let mut todo = vec![from];
        seen[from.index()] = true;
        let mut squares = Vec::new();
        while let Some(s) = todo.pop() {
            squares.push(s);
            for n in s.neighbours() {
                if !seen[n.index()] && self.cell(n).and_then(|c| c.field) == Some(star) {
                    seen[n.index()] = true;
                    todo.push(n);
                }
            }
        }
        squares.sort();
        Some(Group { star, squares })
    }

    /// What the fields just laid on `squares` score: each distinct group of
    /// three or more equal stars holding one of them scores its size, and a
    /// star on a bonus square adds the bonus if its own group scores.
    pub fn score(&self, squares: &[Sq]) -> Scored {
        let mut groups: Vec<Group> = Vec::new();
        for &s in squares {
            if groups.iter().any(|g| g.squares.contains(&s)) {
                continue;
            }
            if let Some(g) = self.group(s) {
                groups.push(g);
            }
        }
        let mut scored = Scored::default();
        for &s in squares {
            if let Square::Bonus(points) = self.square(s) {
                let earned = groups
                    .iter()
                    .any(|g| g.squares.len() >= 3 && g.squares.contains(&s));
                scored.bonuses.push(Bonus {
                    square: s,
                    points,
                    earned,
                });
            }
        }
        scored.groups = groups
            .into_iter()
            .filter(|g| g.squares.len() >= 3)
            .collect();
        scored.points = scored
            .groups
            .iter()
            .map(|g| g.squares.len() as i64)
            .sum::<i64>()
            + scored
                .bonuses
                .iter()
                .filter(|b| b.earned)
                .map(|b| i64::from(b.points))
                .sum::<i64>();
        scored
    }
}
