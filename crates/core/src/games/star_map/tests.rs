//! Hand-made positions with hand-checked answers: placement rules, scoring,
//! draws and turns, notation, setup, the data files and the text view.
//!
//! Squares are a1 to l12, columns left to right, rows top to bottom. A disc
//! is written as its shape and its fields in field order, star codes of the
//! shipped set (R O Y G B V W) or `.` for an empty field: `corner R.G` is a
//! corner whose elbow is red, right arm empty and lower arm green. A position
//! is built directly (see [`pos`]): every square plain but those named, a
//! start disc, discs already laid, hands and stacks chosen by the test.
//!
//! Most positions start from the corner `R.G` unturned, which covers f6 (R),
//! g6 (empty) and f7 (G):
//!
//! ```text
//!        c   d   e   f   g   h   i
//!    5   .   .   .   .   .   .   .
//!    6   .   .   .  [R] [ ]  .   .
//!    7   .   .   .  [G]  .   .   .
//!    8   .   .   .   .   .   .   .
//! ```

use super::data::{Disc, DiscFile, Field, PartFile, Square, Star, StarSymbol};
use super::map::{CENTRE, Group, SQUARES};
use super::*;
use crate::games::{Context, Own, RuleErrorKind, Standing, play_own, prelude::*};

type G = StarMap;

// ---------------------------------------------------------------------------
// Building positions

/// The shipped star codes, in set order.
const CODES: &str = "ROYGBVW";

fn star(c: char) -> Star {
    CODES
        .find(c)
        .unwrap_or_else(|| panic!("`{c}` is no star code")) as Star
}

fn sq(s: &str) -> Sq {
    Sq::parse(s).unwrap_or_else(|| panic!("`{s}` is not a square"))
}

fn sqs(s: &str) -> Vec<Sq> {
    s.split_whitespace().map(sq).collect()
}

/// `h6 r90`, or `h6` (unturned).
fn at(s: &str) -> (Sq, Rotation) {
    let mut words = s.split_whitespace();
    let square = sq(words.next().expect("a square"));
    let rotation = match words.next() {
        None => Rotation::R0,
        Some(r) => r
            .strip_prefix('r')
            .and_then(|d| d.parse().ok())
            .and_then(Rotation::from_degrees)
            .unwrap_or_else(|| panic!("`{r}` is not a rotation")),
    };
    (square, rotation)
}

/// `corner R.G`: a shape and its fields in field order.
fn disc(spec: &str) -> Disc {
    let (shape, fields) = spec.split_once(' ').expect("SHAPE FIELDS");
    let shape = Shape::parse(shape).unwrap_or_else(|| panic!("`{shape}` is no shape"));
    let fields: Vec<Field> = fields
        .chars()
        .map(|c| (c != '.').then(|| star(c)))
        .collect();
    assert_eq!(fields.len(), shape.fields(), "{spec}");
    Disc { shape, fields }
}

/// A position being built; [`Pos::build`] makes the [`State`].
struct Pos {
    start: Disc,
    start_rotation: Rotation,
    squares: Vec<(Sq, Square)>,
    laid: Vec<(Disc, Sq, Rotation)>,
    hands: Vec<Vec<Disc>>,
    stacks: Vec<Disc>,
}

/// A position whose start disc is the corner with these fields, unturned
/// (f6, g6, f7); every square plain, no hands, empty stacks.
fn pos(start: &str) -> Pos {
    Pos {
        start: disc(&format!("corner {start}")),
        start_rotation: Rotation::R0,
        squares: Vec::new(),
        laid: Vec::new(),
        hands: Vec::new(),
        stacks: Vec::new(),
    }
}

impl Pos {
    /// Map squares: `h6=R` only red, `h6!R` anything but red, `h6#` a
    /// meteorite, `h6+2` a bonus of 2; space-separated.
    fn squares(mut self, spec: &str) -> Pos {
        for t in spec.split_whitespace() {
            let i = t.find(['=', '!', '#', '+']).expect("a square kind");
            let (at, kind) = t.split_at(i);
            let arg = &kind[1..];
            let square = match &kind[..1] {
                "=" => Square::Only(star(arg.chars().next().unwrap())),
                "!" => Square::Not(star(arg.chars().next().unwrap())),
                "#" => Square::Meteorite,
                _ => Square::Bonus(arg.parse().unwrap()),
            };
            self.squares.push((sq(at), square));
        }
        self
    }

    /// A disc already on the map (laid without any check).
    fn lay(mut self, d: &str, place: &str) -> Pos {
        let (square, rotation) = at(place);
        self.laid.push((disc(d), square, rotation));
        self
    }

    /// The next seat's hand.
    fn hand(mut self, discs: &[&str]) -> Pos {
        self.hands.push(discs.iter().map(|d| disc(d)).collect());
        self
    }

    /// Discs added to the stacks of their shapes.
    fn stack(mut self, discs: &[&str]) -> Pos {
        self.stacks.extend(discs.iter().map(|d| disc(d)));
        self
    }

    /// The state: a set holding exactly these discs (the start disc first,
    /// then the laid ones, the hands and the stacks), parts 1 to 16 in
    /// order on the side that holds the chosen squares. The first seat that
    /// can place moves, as at setup. At least two seats (empty hands added).
    fn build(mut self) -> State {
        while self.hands.len() < 2 {
            self.hands.push(Vec::new());
        }
        let mut parts = vec![[[Square::Plain; 9]; 2]; data::PARTS];
        for &(s, square) in &self.squares {
            let part = s.y() / 3 * 4 + s.x() / 3;
            parts[part][Side::Bonus as usize][s.y() % 3 * 3 + s.x() % 3] = square;
        }
        let mut discs = vec![self.start.clone()];
        discs.extend(self.laid.iter().map(|(d, _, _)| d.clone()));
        let hand_start = discs.len();
        for hand in &self.hands {
            discs.extend(hand.iter().cloned());
        }
        let stack_start = discs.len();
        discs.extend(self.stacks.iter().cloned());
        let set = Set {
            stars: data::shipped_discs().stars,
            discs,
            parts,
        };
        let layout = Layout(
            (1..=data::PARTS as u8)
                .map(|part| PlacedPart {
                    part,
                    side: Side::Bonus,
                })
                .collect(),
        );
        let mut map = Map::new(&set, &layout);
        for &(s, square) in &self.squares {
            assert_eq!(
                map.square(s),
                square,
                "{s} is a centre square: always plain"
            );
        }
        let mut lay = |id: usize, square: Sq, rotation: Rotation| {
            let d = &set.discs[id];
            let squares = Map::squares_of(d.shape, square, rotation).expect("on the map");
            for s in &squares {
                assert!(map.cell(*s).is_none(), "{s} is laid twice");
            }
            map.lay(id as DiscId, &d.fields, &squares);
        };
        lay(
            0,
            START_ELBOW[self.start_rotation as usize],
            self.start_rotation,
        );
        for (i, (_, square, rotation)) in self.laid.iter().enumerate() {
            lay(1 + i, *square, *rotation);
        }
        let mut next = hand_start;
        let hands: Vec<Vec<DiscId>> = self
            .hands
            .iter()
            .map(|h| {
                next += h.len();
                (next - h.len()..next).map(|d| d as DiscId).collect()
            })
            .collect();
        let mut stacks: [Vec<DiscId>; 4] = Default::default();
        for d in stack_start..set.discs.len() {
            stacks[set.discs[d].shape.index()].push(d as DiscId);
        }
        let seats = hands.len();
        let mut state = State {
            set: Arc::new(set),
            layout,
            map,
            start: (0, self.start_rotation),
            hands,
            stacks,
            points: vec![0; seats],
            history: Vec::new(),
            pending: None,
            to_move: None,
            withdrawn: None,
        };
        state.to_move = state.next_placer(seats - 1);
        state
    }
}

fn ctx(seat: Seat) -> Context<Nothing> {
    Context {
        seat,
        at: 0,
        commitments: 0,
        reveals: Vec::new(),
    }
}

/// Resolves a pending draw, as the protocol does before the next entry.
fn resolve_pending(s: &mut State, seed: u8) {
    for p in G::pending(s) {
        G::resolve(s, p.id, &mut Draw::new([seed; 32])).unwrap();
    }
}

/// Plays a move in notation for the seat to move, as its program does: a
/// pending draw is resolved first (by this very entry, in the protocol).
fn try_play(s: &mut State, mv: &str) -> Result<(), RuleError> {
    let seat = s.to_move().expect("the game goes on");
    resolve_pending(s, 7);
    let intent = G::parse_intent(s, mv)?;
    let sealed = G::seal(s, seat, &intent, &Own::default())?;
    G::play(s, &ctx(seat), &sealed.action)
}

fn play(s: &mut State, mv: &str) {
    try_play(s, mv).unwrap_or_else(|e| panic!("{mv}: {e}"));
}

fn last_placed(s: &State) -> (Vec<Sq>, Scored, Option<Shape>) {
    match s.history().last() {
        Some(Moved::Placed {
            squares,
            scored,
            draw,
            ..
        }) => (squares.clone(), scored.clone(), *draw),
        other => panic!("the last move is no placement: {other:?}"),
    }
}

fn names(squares: &[Sq]) -> String {
    squares
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

fn standings(s: &State) -> Vec<(Seat, u32, i64, Option<u32>)> {
    G::standings(s)
        .into_iter()
        .map(
            |Standing {
                 seat,
                 rank,
                 score,
                 team,
             }| (seat, rank, score, team),
        )
        .collect()
}

/// A real game from setup, `moves` entries into it, each a random legal
/// intent; pending draws resolved as the protocol would.
fn random_game(options: &Options, seats: usize, seed: u8, moves: usize) -> State {
    let mut s = G::setup(options, seats, &mut Draw::new([seed; 32])).unwrap();
    let mut d = Draw::new([seed ^ 0xa5; 32]);
    for n in 0..moves {
        let Some(seat) = s.to_move() else { break };
        for p in G::pending(&s) {
            G::resolve(&mut s, p.id, &mut Draw::new(d.bytes())).unwrap();
        }
        let intents = G::intents(&s, seat, &Own::default());
        let intent = &intents[d.below(intents.len())];
        play_own::<G>(&mut s, seat, intent, &mut Own::default(), n as u64).unwrap();
    }
    s
}

// ---------------------------------------------------------------------------
// 1. Placement

/// (what, map squares, discs laid, the disc placed, where, the squares it
/// covers or the rule that refuses it). The start disc is `R.G` (f6 R,
/// g6 empty, f7 G); the mover's hand is the one disc.
type PlaceRow = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
    &'static str,
    &'static str,
    Result<&'static str, &'static str>,
);

#[rustfmt::skip]
const PLACEMENTS: &[PlaceRow] = &[
    // Contact.
    ("along an edge of the start disc",            "",     &[],                  "one R",     "e6",      Ok("e6")),
    ("first disc away from the start disc",        "",     &[],                  "one R",     "a1",      Err("start-disc")),
    ("first disc at a corner of the start disc",   "",     &[],                  "one R",     "e5",      Err("start-disc")),
    ("along an edge of a later disc",              "",     &[("one R", "e6")],   "one R",     "d6",      Ok("d6")),
    ("only at a corner of a later disc",           "",     &[("one R", "e6")],   "one R",     "d7",      Err("contact")),
    ("touching nothing, later",                    "",     &[("one R", "e6")],   "one R",     "a12",     Err("contact")),
    // Matching stars.
    ("equal stars touch",                          "",     &[],                  "one G",     "e7",      Ok("e7")),
    ("different stars touch",                      "",     &[],                  "one G",     "e6",      Err("match")),
    ("equal to one neighbour, the other empty",    "",     &[],                  "one G",     "g7",      Ok("g7")),
    ("different from one neighbour",               "",     &[],                  "one R",     "g7",      Err("match")),
    ("the disc's empty field touches a star",      "",     &[],                  "two .G",    "e6 r180", Ok("e6 d6")),
    ("the same disc turned: its star touches",     "",     &[],                  "two G.",    "e6 r180", Err("match")),
    ("a star touches the map's empty field",       "",     &[],                  "one Y",     "h6",      Ok("h6")),
    ("another star touches it too",                "",     &[],                  "one B",     "g5",      Ok("g5")),
    ("a star touches a laid empty field",          "",     &[("two R.", "e6 r180")], "one Y", "c6",      Ok("c6")),
    ("the disc's own fields are not compared",     "",     &[],                  "two RG",    "h6",      Ok("h6 i6")),
    ("nor on a three",                             "",     &[],                  "three RGB", "h6 r90",  Ok("h6 h7 h8")),
    // A star square.
    ("star square, that star",                     "h6=Y", &[],                  "one Y",     "h6",      Ok("h6")),
    ("star square, another star",                  "h6=Y", &[],                  "one B",     "h6",      Err("star-square")),
    ("star square, an empty field",                "h6=Y", &[],                  "two .Y",    "h6",      Err("star-square")),
    // A crossed-out star.
    ("crossed-out star, that star",                "h6!Y", &[],                  "one Y",     "h6",      Err("crossed-out-star")),
    ("crossed-out star, another star",             "h6!Y", &[],                  "one B",     "h6",      Ok("h6")),
    ("crossed-out star, an empty field",           "h6!Y", &[],                  "two .Y",    "h6",      Ok("h6 i6")),
    // A meteorite.
    ("meteorite, an empty field",                  "h6#",  &[],                  "two .Y",    "h6",      Ok("h6 i6")),
    ("meteorite, a star",                          "h6#",  &[],                  "one Y",     "h6",      Err("meteorite")),
    ("meteorite under the second field, empty",    "i6#",  &[],                  "two Y.",    "h6",      Ok("h6 i6")),
    ("meteorite under the second field, a star",   "i6#",  &[],                  "two .Y",    "h6",      Err("meteorite")),
    // The map's edges.
    ("up to the left edge",                        "",     &[("three RRR", "c6")], "two RR",  "b6 r180", Ok("b6 a6")),
    ("past the left edge",                         "",     &[("three RRR", "c6")], "three RRR", "b6 r180", Err("map-edge")),
    ("past the top edge",                          "",     &[],                  "three RRR", "a1 r270", Err("map-edge")),
    ("past the right edge",                        "",     &[],                  "three RRR", "l1",      Err("map-edge")),
    ("past the bottom edge",                       "",     &[],                  "three RRR", "a12 r90", Err("map-edge")),
    ("a corner past the bottom right",             "",     &[],                  "corner RRR", "l12",    Err("map-edge")),
    // Overlap.
    ("next to the start disc",                     "",     &[],                  "two RR",    "e6 r180", Ok("e6 d6")),
    ("on a star of the start disc",                "",     &[],                  "one R",     "f6",      Err("overlap")),
    ("on the start disc's empty field",            "",     &[],                  "one Y",     "g6",      Err("overlap")),
    ("half on the start disc",                     "",     &[],                  "two RR",    "e6",      Err("overlap")),
    // The order of the checks: the first broken rule is named.
    ("off the map and touching nothing",           "",     &[],                  "two RR",    "l12",     Err("map-edge")),
    ("overlapping, the rest touching nothing",     "",     &[],                  "three RRR", "f6 r270", Err("overlap")),
    ("mismatch on a star square of another star",  "e6=Y", &[],                  "one G",     "e6",      Err("match")),
    // Square rules go field by field, in field order.
    ("star square under the first field",      "h6=B i6#", &[],                  "two YY",    "h6",      Err("star-square")),
    ("meteorite under the first field",        "h6# i6=B", &[],                  "two YY",    "h6",      Err("meteorite")),
];

#[test]
fn placement_rules() {
    for &(what, squares, laid, d, place, expected) in PLACEMENTS {
        let mut p = pos("R.G").squares(squares);
        for &(ld, lat) in laid {
            p = p.lay(ld, lat);
        }
        let mut s = p.hand(&[d]).hand(&["one W"]).build();
        let shape = disc(d).shape;
        let (square, rotation) = at(place);
        // The map's own verdict.
        let fields = disc(d).fields;
        let checked = s.map().check(shape, &fields, square, rotation);
        // And the game's, through the notation.
        let mv = format!("{shape}1 {square} {rotation}");
        let played = try_play(&mut s, &mv);
        match expected {
            Ok(covered) => {
                assert_eq!(checked.as_deref(), Ok(&sqs(covered)[..]), "{what}");
                played.unwrap_or_else(|e| panic!("{what}: {mv}: {e}"));
                assert_eq!(names(&last_placed(&s).0), covered, "{what}");
                assert!(s.hand(0).is_empty(), "{what}");
            }
            Err(rule) => {
                let refusal = checked.expect_err(what);
                assert_eq!(refusal.rule(), rule, "{what}: {refusal:?}");
                let e = played.expect_err(what);
                assert_eq!((e.kind, e.rule), (RuleErrorKind::Illegal, rule), "{what}");
                assert_eq!(e.detail, refusal.describe(s.set()), "{what}");
                assert_eq!(s.hand(0).len(), 1, "{what}: the disc stays in hand");
                assert_eq!(s.map().discs(), 1 + laid.len(), "{what}");
            }
        }
    }
}

#[test]
fn refusals_say_where() {
    let s = pos("R.G").squares("h6=Y g5!B j6#").build();
    let why = |d: &str, place: &str| {
        let d = disc(d);
        let (square, rotation) = at(place);
        s.map()
            .check(d.shape, &d.fields, square, rotation)
            .expect_err(place)
            .describe(s.set())
    };
    // (the disc, where, what the refusal must say)
    let rows = [
        (
            "one R",
            "a1",
            &["the first disc must touch the start disc"][..],
        ),
        (
            "one R",
            "e5",
            &[
                "the first disc must touch the start disc",
                "only touches the corner of f6",
            ],
        ),
        ("one G", "e6", &["green star on e6", "red star on f6"]),
        (
            "two .Y",
            "h6",
            &["h6 takes only", "yellow", "not an empty field"],
        ),
        ("one B", "g5", &["g5 shows a crossed-out blue star"]),
        ("three Y.Y", "h6", &["j6 is a meteorite", "yellow star"]),
        ("one R", "g6", &["g6 is covered already"]),
        ("three RRR", "l1", &["stick out of the map"]),
    ];
    for (d, place, says) in rows {
        let text = why(d, place);
        for part in says {
            assert!(text.contains(part), "{d} {place}: {text}");
        }
    }
    let later = pos("R.G").lay("one R", "e6").build();
    let d = disc("one R");
    let text = |place: &str| {
        later
            .map()
            .check(d.shape, &d.fields, sq(place), Rotation::R0)
            .unwrap_err()
            .describe(later.set())
    };
    let corner = text("d7");
    assert!(corner.contains("only touches the corner of e6"), "{corner}");
    assert!(!corner.contains("start disc"), "{corner}");
    let nothing = text("a12");
    assert!(nothing.contains("touches no disc"), "{nothing}");
}

/// (shape, rotation, anchor, the squares of its fields in field order, or
/// none if one is off the map).
type TurnRow = (Shape, Rotation, &'static str, Option<&'static str>);

#[rustfmt::skip]
const TURNS: &[TurnRow] = &[
    (Shape::Corner, Rotation::R0,   "f7",  Some("f7 g7 f8")),
    (Shape::Corner, Rotation::R90,  "f7",  Some("f7 f8 e7")),
    (Shape::Corner, Rotation::R180, "f7",  Some("f7 e7 f6")),
    (Shape::Corner, Rotation::R270, "f7",  Some("f7 f6 g7")),
    (Shape::Three,  Rotation::R0,   "f7",  Some("f7 g7 h7")),
    (Shape::Three,  Rotation::R90,  "f7",  Some("f7 f8 f9")),
    (Shape::Three,  Rotation::R180, "f7",  Some("f7 e7 d7")),
    (Shape::Three,  Rotation::R270, "f7",  Some("f7 f6 f5")),
    (Shape::Two,    Rotation::R0,   "f7",  Some("f7 g7")),
    (Shape::Two,    Rotation::R90,  "f7",  Some("f7 f8")),
    (Shape::Two,    Rotation::R180, "f7",  Some("f7 e7")),
    (Shape::Two,    Rotation::R270, "f7",  Some("f7 f6")),
    (Shape::One,    Rotation::R0,   "f7",  Some("f7")),
    (Shape::One,    Rotation::R90,  "f7",  Some("f7")),
    (Shape::Corner, Rotation::R0,   "a1",  Some("a1 b1 a2")),
    (Shape::Corner, Rotation::R90,  "a1",  None),
    (Shape::Corner, Rotation::R180, "a1",  None),
    (Shape::Corner, Rotation::R270, "a1",  None),
    (Shape::Corner, Rotation::R90,  "l1",  Some("l1 l2 k1")),
    (Shape::Corner, Rotation::R180, "l12", Some("l12 k12 l11")),
    (Shape::Corner, Rotation::R270, "a12", Some("a12 a11 b12")),
    (Shape::Three,  Rotation::R0,   "j1",  Some("j1 k1 l1")),
    (Shape::Three,  Rotation::R0,   "k1",  None),
    (Shape::Three,  Rotation::R90,  "a10", Some("a10 a11 a12")),
    (Shape::Three,  Rotation::R90,  "a11", None),
    (Shape::Two,    Rotation::R270, "c1",  None),
    (Shape::One,    Rotation::R0,   "l12", Some("l12")),
];

#[test]
fn every_turn_of_every_shape_covers_the_expected_squares() {
    for &(shape, rotation, anchor, expected) in TURNS {
        let got = Map::squares_of(shape, sq(anchor), rotation);
        assert_eq!(
            got.as_deref().map(names),
            expected.map(String::from),
            "{shape} {rotation} at {anchor}"
        );
    }
    assert_eq!(Shape::One.rotations(), &[Rotation::R0]);
    assert_eq!(Shape::Corner.rotations(), &Rotation::ALL);
}

#[test]
fn the_start_disc_covers_three_centre_squares_in_each_turn() {
    // The elbow lies on f6, g6, g7, f7 for r0, r90, r180, r270.
    let expected = ["f6 g6 f7", "g6 g7 f6", "g7 f7 g6", "f7 f6 g7"];
    for (rotation, covered) in Rotation::ALL.into_iter().zip(expected) {
        let mut p = pos("RGB");
        p.start_rotation = rotation;
        let s = p.build();
        let got: Vec<Sq> = (0..SQUARES as u8)
            .map(Sq)
            .filter(|&q| s.map().cell(q).is_some())
            .collect();
        let mut want = sqs(covered);
        assert_eq!(
            s.map().cell(want[0]).and_then(|c| c.field),
            Some(star('R')),
            "the elbow, {rotation}"
        );
        assert_eq!(
            s.map().cell(want[1]).and_then(|c| c.field),
            Some(star('G')),
            "the right arm, {rotation}"
        );
        want.sort();
        assert_eq!(got, want, "{rotation}");
    }
}

/// `Map::legal` (the fast listing) agrees with `Map::check` on every disc
/// of the mover's hand, square and turn.
fn assert_legal_agrees_with_check(s: &State) {
    let Some(seat) = s.to_move() else { return };
    let legal = s.placements(seat);
    let mut count = 0;
    for &d in s.hand(seat) {
        let disc = &s.set().discs[d as usize];
        for &rotation in disc.shape.rotations() {
            for i in 0..SQUARES as u8 {
                let ok = s
                    .map()
                    .check(disc.shape, &disc.fields, Sq(i), rotation)
                    .is_ok();
                let p = Placement {
                    disc: d,
                    at: Sq(i),
                    rotation,
                };
                assert_eq!(ok, legal.contains(&p), "{p:?}");
                count += ok as usize;
            }
        }
    }
    assert_eq!(count, legal.len(), "no placement listed twice");
}

#[test]
fn the_legal_list_agrees_with_the_rules() {
    let s = pos("R.G")
        .squares("h6=Y i6!B g5# e6+2 e7=G f8!G")
        .lay("two R.", "f5 r270")
        .hand(&["corner Y.B", "three .GR", "two YY", "one G", "one ."])
        .build();
    assert_legal_agrees_with_check(&s);
    for seed in 0..4 {
        for moves in [0, 5, 20] {
            let options = Options {
                map: MapChoice::Hard,
                ..Options::default()
            };
            assert_legal_agrees_with_check(&random_game(&options, 3, seed, moves));
        }
    }
}

// ---------------------------------------------------------------------------
// 2. Scoring

/// (what, map squares, discs laid, the disc placed, where, points, the
/// groups that score (star and squares in reading order), the bonus squares
/// covered (`d6+2`, or `d6+2 lost`)). The start disc is `R.G`.
type ScoreRow = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
    &'static str,
    &'static str,
    i64,
    &'static [&'static str],
    &'static [&'static str],
);

#[rustfmt::skip]
const SCORES: &[ScoreRow] = &[
    ("two equal stars score nothing", "", &[],
        "one R", "e6", 0, &[], &[]),
    ("a group of three", "", &[("one R", "e6")],
        "one R", "d6", 3, &["R d6 e6 f6"], &[]),
    ("two fields in one group count it once", "", &[],
        "two RR", "e6 r180", 3, &["R d6 e6 f6"], &[]),
    ("extended to four, the whole group scores", "", &[("one R", "e6"), ("one R", "d6")],
        "one R", "f5", 4, &["R f5 d6 e6 f6"], &[]),
    ("two groups completed at once", "", &[("one R", "f5"), ("one G", "f8")],
        "three R.G", "e5 r90", 6, &["R e5 f5 f6", "G e7 f7 f8"], &[]),
    ("stars joined only through an empty field are two groups", "", &[("one R", "h6")],
        "one R", "e6", 0, &[], &[]),
    ("a bonus earned", "d6+2", &[("one R", "e6")],
        "one R", "d6", 5, &["R d6 e6 f6"], &["d6+2"]),
    ("a bonus lost: no group scores", "e6+2", &[],
        "one R", "e6", 0, &[], &["e6+2 lost"]),
    ("a bonus lost under an empty field, though the disc scores", "e6+2", &[("one R", "f5")],
        "two R.", "e5 r90", 3, &["R e5 f5 f6"], &["e6+2 lost"]),
    ("a bonus not earned when only another group scores", "e6+3", &[("one G", "f8")],
        "three R.G", "e6 r90", 3, &["G f7 e8 f8"], &["e6+3 lost"]),
    ("a bonus earned while another group scores too", "e5+2", &[("one R", "f5"), ("one G", "f8")],
        "three R.G", "e5 r90", 8, &["R e5 f5 f6", "G e7 f7 f8"], &["e5+2"]),
    ("two bonuses, one earned, one lost", "d6+1 c6+3", &[("one R", "e6")],
        "two RY", "d6 r180", 4, &["R d6 e6 f6"], &["d6+1", "c6+3 lost"]),
];

fn group_text(s: &State, g: &Group) -> String {
    format!("{} {}", s.set().code(g.star), names(&g.squares))
}

#[test]
fn scoring() {
    for &(what, squares, laid, d, place, points, groups, bonuses) in SCORES {
        let mut p = pos("R.G").squares(squares);
        for &(ld, lat) in laid {
            p = p.lay(ld, lat);
        }
        let mut s = p.hand(&[d]).build();
        let shape = disc(d).shape;
        let (square, rotation) = at(place);
        play(&mut s, &format!("{shape}1 {square} {rotation}"));
        let (_, scored, _) = last_placed(&s);
        let got: Vec<String> = scored.groups.iter().map(|g| group_text(&s, g)).collect();
        assert_eq!(got, groups, "{what}");
        let got: Vec<String> = scored
            .bonuses
            .iter()
            .map(|b| {
                format!(
                    "{}+{}{}",
                    b.square,
                    b.points,
                    if b.earned { "" } else { " lost" }
                )
            })
            .collect();
        assert_eq!(got, bonuses, "{what}");
        assert_eq!(scored.points, points, "{what}");
        assert_eq!(s.placement_points(0), points, "{what}");
    }
}

#[test]
fn a_group_scores_again_each_time_it_grows() {
    let mut s = pos("R.G")
        .hand(&["one R", "one R", "two RR"])
        .hand(&["one R"])
        .build();
    play(&mut s, "one1 e6"); // e6 f6: a pair
    play(&mut s, "one1 d6"); // the other seat: d6 e6 f6
    play(&mut s, "one1 f5"); // f5 d6 e6 f6
    play(&mut s, "two1 c6 r180"); // and b6 c6: six
    assert_eq!((s.placement_points(0), s.placement_points(1)), (4 + 6, 3));
    let scored = last_placed(&s).1;
    assert_eq!(scored.groups.len(), 1);
    assert_eq!(group_text(&s, &scored.groups[0]), "R f5 b6 c6 d6 e6 f6");
}

/// The start disc `RRR` covers f6, g6, f7; every free square around it and
/// around g7 is a meteorite, so only g7 takes a disc without an empty field.
fn walled(hands: &[&[&str]]) -> State {
    let mut p = pos("RRR").squares("f5# g5# e6# h6# e7# f8# h7# g8#");
    for h in hands {
        p = p.hand(h);
    }
    p.build()
}

#[test]
fn minus_points_at_the_end() {
    let mut s = walled(&[&["one R", "three RRR"], &["two GG"]]);
    assert_eq!(s.to_move(), Some(0));
    let intents: Vec<String> = G::intents(&s, 0, &Own::default())
        .iter()
        .map(|i| i.to_string())
        .collect();
    assert_eq!(intents, ["one1 g7"]);
    assert_eq!((s.own_score(0), s.own_score(1)), (0, 0), "not over yet");
    play(&mut s, "one1 g7");
    assert_eq!(s.placement_points(0), 4, "f6 g6 f7 g7");
    assert!(s.is_over(), "nobody can place");
    assert_eq!(G::turn(&s), Turn::Over);
    assert_eq!((s.hand_fields(0), s.hand_fields(1)), (3, 2));
    assert_eq!((s.own_score(0), s.own_score(1)), (4 - 3, -2));
    assert_eq!(standings(&s), [(0, 1, 1, None), (1, 2, -2, None)]);
    let notes = G::notes(&s, &["Anna".into(), "Ben".into()]);
    assert!(
        notes.contains(&"Anna ended with 1 disc in hand: minus 3.".into()),
        "{notes:?}"
    );
    assert!(
        notes.contains(&"Ben ended with 1 disc in hand: minus 2.".into()),
        "{notes:?}"
    );
}

#[test]
fn four_players_play_in_teams() {
    let mut s = walled(&[&["one R", "two RR"], &["one G"], &["one Y"], &[]]);
    assert_eq!(
        (0..4).map(|seat| s.team_of(seat)).collect::<Vec<_>>(),
        [Some(0), Some(1), Some(0), Some(1)]
    );
    play(&mut s, "one1 g7");
    assert!(s.is_over());
    // Own scores 4 - 2, -1, -1, 0: team 0 (seats 0 and 2) has 2 - 1 = 1,
    // team 1 has -1 + 0 = -1. Ranks count the seats ahead, so the second
    // team is third.
    assert_eq!(
        (0..4).map(|seat| s.own_score(seat)).collect::<Vec<_>>(),
        [2, -1, -1, 0]
    );
    assert_eq!(
        standings(&s),
        [
            (0, 1, 1, Some(0)),
            (2, 1, 1, Some(0)),
            (1, 2, -1, Some(1)),
            (3, 2, -1, Some(1)),
        ]
    );
    let notes = G::notes(
        &s,
        &["Anna".into(), "Ben".into(), "Chris".into(), "Dora".into()],
    );
    assert!(notes.contains(&"Teams: Anna and Chris against Ben and Dora.".into()));
}

#[test]
fn equal_scores_share_the_first_rank() {
    // Seat 0 scores 4 and keeps 6 fields in hand; seat 1 keeps 2.
    let mut s = walled(&[&["one R", "three RRR", "three GGG"], &["two GG"]]);
    play(&mut s, "one1 g7");
    assert!(s.is_over());
    assert_eq!(standings(&s), [(0, 1, -2, None), (1, 1, -2, None)]);
}

#[test]
fn three_players_play_each_for_themselves() {
    let s = walled(&[&["one R"], &["one G"], &["one Y"]]);
    assert_eq!(s.team_of(0), None);
    assert_eq!(
        standings(&s).iter().map(|r| r.3).collect::<Vec<_>>(),
        [None; 3]
    );
}

// ---------------------------------------------------------------------------
// 3. Draws and turns

#[test]
fn a_placement_draws_a_disc_of_its_shape_resolved_by_the_next_entry() {
    let mut s = pos("R.G")
        .hand(&["one R", "two RR"])
        .hand(&["one G"])
        .stack(&["one W", "one B", "two YY"])
        .build();
    assert_eq!(s.stack_left(Shape::One), 2);
    assert!(G::pending(&s).is_empty());
    // Not `play`: it would resolve the draw at once.
    let intent = G::parse_intent(&s, "one1 e6").unwrap();
    let sealed = G::seal(&s, 0, &intent, &Own::default()).unwrap();
    G::play(&mut s, &ctx(0), &sealed.action).unwrap();
    assert_eq!(last_placed(&s).2, Some(Shape::One));
    let pending = G::pending(&s);
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].causer, 0);
    assert_eq!(pending[0].id, 1, "the number of moves, this one included");
    assert_eq!(
        s.pending_draw().map(|p| (p.causer, p.shape)),
        Some((0, Shape::One))
    );
    assert_eq!(s.stack_left(Shape::One), 1, "one disc is promised");
    assert_eq!(s.stacks[Shape::One.index()].len(), 2, "but not drawn yet");
    assert_eq!(s.hand(0).len(), 1);
    assert_eq!(s.to_move(), Some(1), "the next seat's entry resolves it");
    // The engine refuses a move while the draw is pending: the protocol
    // resolves it first.
    let e = G::play(&mut s, &ctx(1), &Action::Pass).unwrap_err();
    assert_eq!(e.rule, "draw");
    let before = s.stacks[Shape::One.index()].clone();
    G::resolve(&mut s, pending[0].id, &mut Draw::new([3; 32])).unwrap();
    assert!(G::pending(&s).is_empty());
    assert_eq!(s.hand(0).len(), 2);
    let drawn = s.hand(0)[1];
    assert!(before.contains(&drawn));
    assert_eq!(s.set().discs[drawn as usize].shape, Shape::One);
    assert_eq!(s.stacks[Shape::One.index()].len(), 1);
    assert!(!s.stacks[Shape::One.index()].contains(&drawn));
    assert_eq!(s.stack_left(Shape::One), 1);
    assert_eq!(s.stack_left(Shape::Two), 1, "other stacks untouched");
    assert_eq!(s.to_move(), Some(1), "resolving changes no turn");
    let e = G::resolve(&mut s, pending[0].id, &mut Draw::new([3; 32])).unwrap_err();
    assert_eq!(e.rule, "no-such-event");
}

#[test]
fn draw_shape_when_the_stack_is_empty() {
    let build = || {
        pos("R.G")
            .hand(&["one R", "one R"])
            .hand(&["one G"])
            .stack(&["two YY", "three YYY"])
            .build()
    };
    let mut s = build();
    assert_eq!(s.draw_choices(Shape::One), [Shape::Three, Shape::Two]);
    assert_eq!(s.draw_choices(Shape::Two), Vec::<Shape>::new());
    let refused = |mv: &str| {
        let mut s = build();
        let e = try_play(&mut s, mv).expect_err(mv);
        assert_eq!(e.rule, "draw", "{mv}");
        e.detail
    };
    let missing = refused("one1 e6");
    assert!(missing.contains("the one stack is empty"), "{missing}");
    assert!(missing.contains("`draw three`"), "{missing}");
    assert!(
        missing.contains("three (1 left), two (1 left)"),
        "{missing}"
    );
    let empty = refused("one1 e6 draw one");
    assert!(empty.contains("the one stack is empty too"), "{empty}");
    let empty = refused("one1 e6 draw corner");
    assert!(empty.contains("the corner stack is empty too"), "{empty}");
    // Every intent of a one names its draw.
    for i in G::intents(&s, 0, &Own::default()) {
        let Intent::Place { draw, .. } = i else {
            panic!("{i}")
        };
        assert!(matches!(draw, Some(Shape::Three | Shape::Two)), "{i}");
    }
    play(&mut s, "one1 e6 draw two");
    assert_eq!(last_placed(&s).2, Some(Shape::Two));
    assert_eq!(s.stack_left(Shape::Two), 0, "promised");
    assert_eq!(s.draw_choices(Shape::One), [Shape::Three]);
    play(&mut s, "one1 g7 draw three"); // the other seat; resolves the draw
    assert_eq!(s.fields_text(*s.hand(0).last().unwrap()), "YY");
    assert_eq!(s.stacks[Shape::Two.index()].len(), 0);
}

#[test]
fn the_only_stack_left_needs_no_naming() {
    let build = || {
        pos("R.G")
            .hand(&["one R", "one R"])
            .hand(&["one G"])
            .stack(&["two YY"])
            .build()
    };
    let s = build();
    assert_eq!(s.draw_choices(Shape::One), [Shape::Two]);
    // Unnamed, the draw is filled in: the action is the one the named
    // move makes, so the log records exactly what it always did.
    let seal = |mv: &str| {
        let intent = G::parse_intent(&s, mv).unwrap();
        G::seal(&s, 0, &intent, &Own::default()).unwrap().action
    };
    let unnamed = seal("one1 e6");
    assert_eq!(unnamed, seal("one1 e6 draw two"));
    let Action::Place(p) = &unnamed else {
        panic!("{unnamed:?}")
    };
    assert_eq!(p.draw, Some(Shape::Two));
    // A log entry without it is still refused: a logged action has one
    // form.
    let mut bare = p.clone();
    bare.draw = None;
    let e = G::play(&mut build(), &ctx(0), &Action::Place(bare)).unwrap_err();
    assert_eq!(e.rule, "draw");
    // Naming an empty stack is still an error.
    let mut t = build();
    let e = try_play(&mut t, "one1 e6 draw three").unwrap_err();
    assert!(e.detail.contains("the three stack is empty too"), "{e}");
    let mut t = build();
    play(&mut t, "one1 e6");
    assert_eq!(last_placed(&t).2, Some(Shape::Two));
}

#[test]
fn draw_shape_only_when_needed() {
    let mut s = pos("R.G")
        .hand(&["one R"])
        .hand(&["one G"])
        .stack(&["one W", "two YY"])
        .build();
    let e = try_play(&mut s, "one1 e6 draw two").unwrap_err();
    assert_eq!(e.rule, "draw");
    assert!(
        e.detail.contains("after placing a one you draw a one"),
        "{e}"
    );
    let mut s = pos("R.G").hand(&["one R"]).hand(&["one G"]).build();
    let e = try_play(&mut s, "one1 e6 draw two").unwrap_err();
    assert_eq!(
        (e.rule, e.detail.as_str()),
        ("draw", "every stack is empty: there is nothing to draw")
    );
}

#[test]
fn no_draw_when_every_stack_is_empty() {
    let mut s = pos("R.G")
        .hand(&["one R", "one R"])
        .hand(&["one G"])
        .build();
    assert!(s.draw_choices(Shape::One).is_empty());
    for i in G::intents(&s, 0, &Own::default()) {
        assert!(matches!(i, Intent::Place { draw: None, .. }), "{i}");
    }
    play(&mut s, "one1 e6");
    assert_eq!(last_placed(&s).2, None);
    assert!(G::pending(&s).is_empty());
    assert_eq!(s.to_move(), Some(1));
}

#[test]
fn a_seat_that_cannot_place_passes_after_a_draw_and_is_skipped_otherwise() {
    // Only red touches the map: seats 1 and 2 (green) can never place.
    let mut s = pos("RRR")
        .hand(&["one R", "one R"])
        .hand(&["one G"])
        .hand(&["two GG"])
        .stack(&["one R"])
        .build();
    assert_eq!(s.to_move(), Some(0));
    assert!(!G::intents(&s, 0, &Own::default()).contains(&Intent::Pass));
    let e = try_play(&mut s, "pass").unwrap_err();
    assert_eq!(e.rule, "pass");
    assert!(
        e.detail.starts_with("seat 0 can place a disc (e.g. one1 "),
        "{e}"
    );
    // Out of turn.
    let intent = G::parse_intent(&s, "one1 e6").unwrap();
    let e = G::seal(&s, 1, &intent, &Own::default()).unwrap_err();
    assert_eq!((e.kind, e.rule), (RuleErrorKind::OutOfTurn, "turn"));
    assert!(G::intents(&s, 1, &Own::default()).is_empty());

    play(&mut s, "one1 e6"); // draws a one: seat 1 must write the next entry
    assert_eq!(s.to_move(), Some(1));
    assert_eq!(G::intents(&s, 1, &Own::default()), [Intent::Pass]);
    assert_eq!(G::notation(&s).0, "pass");
    let text = G::render_text(&G::view(&s, None, None), &[]);
    assert!(
        text.contains("seat 1 cannot place any disc and must pass."),
        "{text}"
    );
    let e = try_play(&mut s, "one1 e7").unwrap_err();
    assert_eq!(e.rule, "match");
    play(&mut s, "pass");
    assert_eq!(s.history().last(), Some(&Moved::Passed { seat: 1 }));
    assert_eq!(s.hand(0).len(), 2, "the draw was resolved");
    assert_eq!(s.to_move(), Some(0), "seat 2 cannot place: skipped");

    play(&mut s, "one1 d6"); // the ones are gone: no draw
    assert_eq!(last_placed(&s).2, None);
    assert_eq!(s.to_move(), Some(0), "seats 1 and 2 are skipped");
    play(&mut s, "one1 c6");
    assert!(s.is_over(), "nobody can place");
    assert_eq!(G::intents(&s, 0, &Own::default()), []);
    let e = try_play_over(&mut s);
    assert_eq!(e.rule, "over");
    // 4 + 5 + 6 placing (the red group grows from 3 to 6); hands left 0,
    // 1 and 2 fields.
    assert_eq!(
        (0..3).map(|seat| s.own_score(seat)).collect::<Vec<_>>(),
        [15, -1, -2]
    );
    assert_eq!(
        standings(&s),
        [(0, 1, 15, None), (1, 2, -1, None), (2, 3, -2, None)]
    );
    let notes = G::notes(&s, &["Anna".into(), "Ben".into(), "Cleo".into()]);
    assert!(
        notes.contains(&"Ben had no legal placement and passed 1 time.".into()),
        "{notes:?}"
    );
}

fn try_play_over(s: &mut State) -> RuleError {
    let intent = Intent::Pass;
    G::seal(s, 0, &intent, &Own::default()).unwrap_err()
}

#[test]
fn the_first_seat_that_can_place_moves_first() {
    // Seat 0 holds only green: it is skipped at the start.
    let s = pos("RRR").hand(&["one G"]).hand(&["one R"]).build();
    assert_eq!(s.to_move(), Some(1));
    let s = pos("RRR").hand(&["one G"]).hand(&["one G"]).build();
    assert!(s.is_over());
}

// ---------------------------------------------------------------------------
// 4. Notation

/// The mover's hand for the notation table: corner1 RRR, corner2 GGG,
/// three1 RRR, two1 RR, two2 GG, one1 R.
fn notation_position() -> State {
    pos("R.G")
        .hand(&[
            "corner RRR",
            "corner GGG",
            "three RRR",
            "two RR",
            "two GG",
            "one R",
        ])
        .hand(&["one G"])
        .build()
}

/// (text, the intent as written back and the disc's fields, or the rule
/// refusing it).
type NotationRow = (
    &'static str,
    Result<(&'static str, &'static str), &'static str>,
);

#[rustfmt::skip]
const NOTATION: &[NotationRow] = &[
    ("corner2 f7 r90",             Ok(("corner2 f7 r90", "GGG"))),
    ("CORNER2 F7 R90",             Ok(("corner2 f7 r90", "GGG"))),
    ("  Corner2 \t f7   r90 ",     Ok(("corner2 f7 r90", "GGG"))),
    ("corner1 f7 r0",              Ok(("corner1 f7 r0", "RRR"))),
    ("corner1 f7 90",              Ok(("corner1 f7 r90", "RRR"))),
    ("one1 e5",                    Ok(("one1 e5", "R"))),
    ("one e5",                     Ok(("one1 e5", "R"))),
    ("three h6",                   Ok(("three1 h6 r0", "RRR"))),
    ("two2 c3 r180 draw one",      Ok(("two2 c3 r180 draw one", "GG"))),
    ("two2 c3 r180 draw ones",     Ok(("two2 c3 r180 draw one", "GG"))),
    ("two1 l12 r270 DRAW Corner",  Ok(("two1 l12 r270 draw corner", "RR"))),
    ("pass",                       Ok(("pass", ""))),
    (" PASS ",                     Ok(("pass", ""))),
    // A number apart from its word is still that word's.
    ("CORNER 2 F 7 R 90",          Ok(("corner2 f7 r90", "GGG"))),
    ("two 2 c3 r180 Draw One",     Ok(("two2 c3 r180 draw one", "GG"))),
    ("corner f7",                  Err("hand")),
    ("two f7 r90",                 Err("hand")),
    ("corner3 f7",                 Err("hand")),
    ("corner0 f7",                 Err("hand")),
    ("draw two",                   Err("notation")),
    ("two1 c3 r180 draw",          Err("notation")),
    ("two1 c3 r180 draw hexagon",  Err("notation")),
    ("two1 c3 draw one r180",      Err("notation")),
    ("corner1 m7 r0",              Err("notation")),
    ("corner1 f13",                Err("notation")),
    ("corner1 f0",                 Err("notation")),
    ("corner1 f07",                Err("notation")),
    ("corner1 7f",                 Err("notation")),
    ("corner1 f7 r45",             Err("notation")),
    ("corner1 f7 r360",            Err("notation")),
    ("corner1 f7 left",            Err("notation")),
    ("hexagon1 f7",                Err("notation")),
    ("f7 corner1",                 Err("notation")),
    ("corner1",                    Err("notation")),
    ("",                           Err("notation")),
    ("corner1 f7 r90 r180",        Err("notation")),
    // One way to write a number: no sign, no leading zero.
    ("corner1 f7 r090",            Err("notation")),
    ("corner1 f7 +90",             Err("notation")),
    ("corner01 f7",                Err("hand")),
    ("corner+1 f7",                Err("notation")),
    ("corner1 f+7",                Err("notation")),
];

#[test]
fn notation() {
    let s = notation_position();
    for &(text, expected) in NOTATION {
        let got = G::parse_intent(&s, text);
        match expected {
            Ok((written, fields)) => {
                let intent = got.unwrap_or_else(|e| panic!("{text:?}: {e}"));
                assert_eq!(intent.to_string(), written, "{text:?}");
                let disc = match &intent {
                    Intent::Place { placement, .. } => s.fields_text(placement.disc),
                    Intent::Pass => String::new(),
                };
                assert_eq!(disc, fields, "{text:?}");
            }
            Err(rule) => {
                let e = got.expect_err(text);
                assert_eq!(e.rule, rule, "{text:?}: {e}");
            }
        }
    }
    let e = G::parse_intent(&s, "corner f7").unwrap_err();
    assert!(
        e.detail
            .starts_with("your hand holds 2 corner discs; say which, e.g. `corner1`"),
        "{e}"
    );
    let e = G::parse_intent(&s, "hexagon1 f7").unwrap_err();
    assert!(
        e.detail
            .ends_with("your hand: corner1, corner2, three1, two1, two2, one1"),
        "{e}"
    );
    let e = G::parse_intent(&s, "corner1 f7 r45").unwrap_err();
    assert!(e.detail.starts_with("`r45` is not a rotation"), "{e}");
    // Every refusal of the notation is of the notation, never a rule of the
    // game; a near miss is named.
    for &(text, expected) in NOTATION {
        if expected.is_err() {
            let e = G::parse_intent(&s, text).unwrap_err();
            assert_eq!(e.kind, crate::games::RuleErrorKind::Notation, "{text:?}");
        }
    }
    for (text, says) in [
        ("cornr1 f7", "did you mean `corner1`?"),
        ("thre1 f7", "did you mean `three1`?"),
        ("two1 c3 draw onr", "did you mean `draw one`?"),
        ("pas", "did you mean `pass`?"),
        ("hexagon f7", "your hand: corner1"),
    ] {
        let e = G::parse_intent(&s, text).unwrap_err();
        assert!(e.detail.contains(says), "{text}: {e}");
    }
    for text in ["corner3 f7", "hexagon1 f7"] {
        let e = G::parse_intent(&s, text).unwrap_err();
        assert!(!e.detail.contains("did you mean"), "{text}: {e}");
    }
}

#[test]
fn a_single_field_is_not_turned() {
    let s = notation_position();
    // A turn given for a one is read as none: every turn is the same
    // placement, and the log has one way to write it.
    for text in ["one1 e6 r90", "one1 e6 r270", "one1 e6"] {
        let intent = G::parse_intent(&s, text).unwrap();
        let Intent::Place { placement, .. } = &intent else {
            panic!("{text}")
        };
        assert_eq!(placement.rotation, Rotation::R0, "{text}");
        assert_eq!(intent.to_string(), "one1 e6", "{text}");
    }
    for i in G::intents(&s, 0, &Own::default()) {
        if let Intent::Place {
            name: (Shape::One, _),
            placement,
            ..
        } = i
        {
            assert_eq!(placement.rotation, Rotation::R0);
        }
    }
}

fn assert_intents_round_trip(s: &State) {
    let Some(seat) = s.to_move() else { return };
    let intents = G::intents(s, seat, &Own::default());
    assert!(!intents.is_empty());
    for i in intents {
        let text = i.to_string();
        assert_eq!(G::parse_intent(s, &text).as_ref(), Ok(&i), "{text}");
    }
}

#[test]
fn every_intent_is_written_as_it_is_read() {
    assert_intents_round_trip(&notation_position());
    // Draw choices.
    assert_intents_round_trip(
        &pos("R.G")
            .hand(&["corner R.R", "one R", "two .R"])
            .hand(&["one G"])
            .stack(&["two YY", "three YYY"])
            .build(),
    );
    // A pass.
    let mut s = pos("RRR")
        .hand(&["one R"])
        .hand(&["one G"])
        .stack(&["one R"])
        .build();
    play(&mut s, "one1 e6");
    assert_intents_round_trip(&s);
    // Real games.
    for seed in 0..3 {
        for moves in [0, 9, 30] {
            assert_intents_round_trip(&random_game(&Options::default(), 4, seed, moves));
        }
    }
}

// ---------------------------------------------------------------------------
// 5. Setup

#[test]
fn setup() {
    let kinds = [
        MapChoice::Random,
        MapChoice::Easy,
        MapChoice::Hard,
        MapChoice::Mixed,
    ];
    for k in [0u8, 1, 2, 7, 200] {
        for seats in 2..=4 {
            for kind in &kinds {
                let what = format!("seed {k}, {seats} seats, {kind:?}");
                let options = Options {
                    map: kind.clone(),
                    ..Options::default()
                };
                let s = G::setup(&options, seats, &mut Draw::new([k; 32])).unwrap();
                let again = G::setup(&options, seats, &mut Draw::new([k; 32])).unwrap();
                assert_eq!(
                    (s.layout(), s.start(), &s.hands, &s.stacks),
                    (again.layout(), again.start(), &again.hands, &again.stacks),
                    "{what}: the same seed, the same setup"
                );
                check_setup(&s, seats, &what);
                let sides: Vec<Side> = s.layout().0.iter().map(|p| p.side).collect();
                let bonus = sides.iter().filter(|&&x| x == Side::Bonus).count();
                match kind {
                    MapChoice::Easy => assert_eq!(bonus, 16, "{what}"),
                    MapChoice::Hard => assert_eq!(bonus, 0, "{what}"),
                    MapChoice::Mixed => assert_eq!(bonus, 8, "{what}"),
                    _ => {}
                }
            }
        }
    }
}

fn check_setup(s: &State, seats: usize, what: &str) {
    let set = s.set();
    assert_eq!(s.seats(), seats);
    for seat in 0..seats {
        let mut shapes = [0; 4];
        for &d in s.hand(seat) {
            shapes[set.discs[d as usize].shape.index()] += 1;
        }
        assert_eq!(shapes, [1, 1, 2, 2], "{what}: seat {seat}'s hand");
    }
    let (start, rotation) = s.start();
    assert_eq!(set.discs[start as usize].shape, Shape::Corner, "{what}");
    let covered: Vec<Sq> = (0..SQUARES as u8)
        .map(Sq)
        .filter(|&q| s.map().cell(q).is_some())
        .collect();
    assert_eq!(covered.len(), 3, "{what}");
    assert!(covered.iter().all(|c| CENTRE.contains(c)), "{what}");
    assert!(
        covered
            .iter()
            .all(|&c| s.map().cell(c).unwrap().disc == start)
    );
    assert_eq!(
        Map::squares_of(Shape::Corner, START_ELBOW[rotation as usize], rotation).map(|mut v| {
            v.sort();
            v
        }),
        Some(covered),
        "{what}"
    );
    for c in CENTRE {
        assert_eq!(s.map().square(c), Square::Plain, "{what}: {c}");
    }
    // Every other square is what its part shows.
    for (place, p) in s.layout().0.iter().enumerate() {
        for i in 0..9 {
            let at = Sq::new(place % 4 * 3 + i % 3, place / 4 * 3 + i / 3).unwrap();
            if !CENTRE.contains(&at) {
                assert_eq!(
                    s.map().square(at),
                    set.parts[p.part as usize - 1][p.side as usize][i],
                    "{what}: {at}"
                );
            }
        }
    }
    let mut parts: Vec<u8> = s.layout().0.iter().map(|p| p.part).collect();
    parts.sort();
    assert_eq!(parts, (1..=16).collect::<Vec<_>>(), "{what}");
    let left: Vec<usize> = Shape::ALL.iter().map(|&sh| s.stack_left(sh)).collect();
    assert_eq!(
        left,
        [11 - seats, 12 - seats, 16 - 2 * seats, 16 - 2 * seats],
        "{what}"
    );
    assert_eq!(left.iter().sum::<usize>(), 56 - 1 - 6 * seats, "{what}");
    // Every disc exactly once: the start disc, the hands, the stacks.
    let mut all: Vec<DiscId> = vec![start];
    all.extend((0..seats).flat_map(|seat| s.hand(seat).iter().copied()));
    all.extend(s.stacks.iter().flatten().copied());
    all.sort();
    assert_eq!(all, (0..56).collect::<Vec<DiscId>>(), "{what}");
    assert_eq!(s.to_move(), Some(0), "{what}");
    assert!(G::pending(s).is_empty());
    assert_eq!(s.placement_points(0), 0);
}

const LAYOUT: &str = "16s 2b 3s 4b / 5b 6s 7b 8s / 9s 10b 11s 12b / 13b 14s 15b 1s";

#[test]
fn an_explicit_layout_is_kept() {
    let options = G::options(&[("map".into(), LAYOUT.into())], None).unwrap();
    let MapChoice::Layout(layout) = &options.map else {
        panic!("{:?}", options.map)
    };
    assert_eq!(layout.to_string(), LAYOUT);
    let comma = G::options(
        &[("map".into(), LAYOUT.replace(' ', ",").to_uppercase())],
        None,
    );
    assert_eq!(comma.unwrap(), options, "commas and upper case");
    for seed in [0, 5] {
        let s = G::setup(&options, 3, &mut Draw::new([seed; 32])).unwrap();
        assert_eq!(s.layout(), layout);
        check_setup(&s, 3, "layout");
        // Part 16's symbol side lies top left.
        let set = s.set();
        assert_eq!(s.map().square(sq("a1")), set.parts[15][1][0]);
        assert_eq!(s.map().square(sq("l12")), set.parts[0][1][8]);
    }
    let named = |v: &str| G::options(&[("map".into(), v.into())], None).map(|o| o.map);
    assert_eq!(named("easy"), Ok(MapChoice::Easy));
    assert_eq!(named("Hard"), Ok(MapChoice::Hard));
    assert_eq!(named(" mixed "), Ok(MapChoice::Mixed));
    assert_eq!(named("random"), Ok(MapChoice::Random));
}

#[test]
fn bad_layouts_are_refused() {
    let parts: Vec<String> = LAYOUT
        .split_whitespace()
        .filter(|t| *t != "/")
        .map(String::from)
        .collect();
    let with = |i: usize, t: &str| {
        let mut p = parts.clone();
        p[i] = t.into();
        p.join(" ")
    };
    let rows: Vec<(&str, String, &str)> = vec![
        ("15 parts", parts[..15].join(" "), "this one names 15"),
        (
            "17 parts",
            format!("{} 17b", parts.join(" ")),
            "this one names 17",
        ),
        ("part 17", with(0, "17b"), "part 17 is not a part"),
        ("part 0", with(0, "0s"), "part 0 is not a part"),
        ("a part twice", with(0, "2s"), "part 2 is named twice"),
        (
            "side x",
            with(3, "4x"),
            "`4x` does not end in its side, b or s",
        ),
        ("no side", with(3, "4"), "`4` does not end in its side"),
        ("no id", with(3, "bs"), "`bs` does not start with a part id"),
        // Found by fuzzing: the side was once cut off at a byte.
        (
            "a last letter that is not ASCII",
            with(15, "1\u{388}"),
            "does not end in its side",
        ),
        (
            "one word",
            "medium".into(),
            "--map medium: not a map choice",
        ),
    ];
    for (what, value, expected) in rows {
        let e = G::options(&[("map".into(), value.clone())], None).unwrap_err();
        assert_eq!((e.kind, e.rule), (RuleErrorKind::BadSetup, "map"), "{what}");
        assert!(e.detail.contains(expected), "{what}: {e}");
    }
    let e = G::options(&[("size".into(), "12".into())], None).unwrap_err();
    assert_eq!(e.rule, "option");
    let twice = [("map".into(), "easy".into()), ("map".into(), "hard".into())];
    assert_eq!(G::options(&twice, None).unwrap_err().rule, "option");
    // A layout that skips the option parser is checked at setup.
    let options = Options {
        map: MapChoice::Layout(Layout(vec![
            PlacedPart {
                part: 1,
                side: Side::Bonus,
            };
            16
        ])),
        ..Options::default()
    };
    let e = G::setup(&options, 2, &mut Draw::new([0; 32])).unwrap_err();
    assert!(e.detail.contains("part 1 is named twice"), "{e}");
}

// ---------------------------------------------------------------------------
// 6. Data files

type Edit = fn(&mut DiscFile, &mut PartFile);

/// (what, a change to the shipped files, what the error says).
const DATA: &[(&str, Edit, &str)] = &[
    (
        "a corner missing",
        |d, _| {
            d.discs.remove(0);
        },
        "has 11 corner, 12 three, 16 two and 16 one discs; a set has 12, 12, 16 and 16",
    ),
    (
        "a one too many",
        |d, _| d.discs.push(d.discs[55].clone()),
        "has 12 corner, 12 three, 16 two and 17 one discs",
    ),
    (
        "a three among the corners",
        |d, _| d.discs.swap(11, 12),
        "lists its discs out of order",
    ),
    (
        "an unknown star code",
        |d, _| d.discs[3].fields = "RRX".into(),
        "disc 4 has a field `X`, which is no star code of the set (R, O, Y, G, B, V, W)",
    ),
    (
        "a disc with no star",
        |d, _| d.discs[40].fields = ".".into(),
        "disc 41 (`.`) has no star",
    ),
    (
        "a corner with two fields",
        |d, _| d.discs[1].fields = "BB".into(),
        "disc 2 is a corner and has 3 fields, but `BB` gives 2",
    ),
    (
        "a one with two fields",
        |d, _| d.discs[55].fields = "WW".into(),
        "disc 56 is a one and has 1 field, but `WW` gives 2",
    ),
    (
        "6 stars",
        |d, _| {
            d.stars.pop();
        },
        "names 6 star symbols; a set has 7",
    ),
    (
        "8 stars",
        |d, _| {
            d.stars.push(StarSymbol {
                code: 'P',
                name: "pink".into(),
            })
        },
        "names 8 star symbols; a set has 7",
    ),
    (
        "a star code twice",
        |d, _| d.stars[1].code = 'R',
        "star 2 (`R`, orange) repeats the code or name of an earlier star",
    ),
    (
        "a star name twice",
        |d, _| d.stars[6].name = "red".into(),
        "star 7 (`W`, red) repeats",
    ),
    (
        "a lower-case code",
        |d, _| d.stars[0].code = 'r',
        "star 1 has the code `r`; a code is one upper-case letter",
    ),
    (
        "a name in capitals",
        |d, _| d.stars[2].name = "Yellow".into(),
        "star 3 is named `Yellow`",
    ),
    (
        "a part of 2 rows",
        |_, p| {
            p.parts[4].bonus.pop();
        },
        "part 5, bonus side has 2 rows; a part is 3 × 3 squares",
    ),
    (
        "a row of 4 squares",
        |_, p| p.parts[0].symbols[2] = ". # . .".into(),
        "part 1, symbols side, row 3: `. # . .` has 4 squares",
    ),
    (
        "a symbol on the bonus side",
        |_, p| p.parts[1].bonus[1] = ". =R .".into(),
        "part 2, bonus side, row 2: `=R` is a symbol; the bonus side has only bonus squares",
    ),
    (
        "a meteorite on the bonus side",
        |_, p| p.parts[1].bonus[0] = "# . .".into(),
        "part 2, bonus side, row 1: `#` is a symbol",
    ),
    (
        "an unknown square",
        |_, p| p.parts[2].symbols[0] = ". ? .".into(),
        "part 3, symbols side, row 1: `?` is not a square",
    ),
    (
        "a star square of an unknown star",
        |_, p| p.parts[2].symbols[0] = ". =X .".into(),
        "part 3, symbols side, row 1: `=X` is not a square",
    ),
    (
        "a bonus of 10",
        |_, p| p.parts[2].bonus[0] = ". 10 .".into(),
        "`10` is not a square",
    ),
    (
        "a bonus of 0",
        |_, p| p.parts[2].bonus[0] = ". 0 .".into(),
        "`0` is not a square",
    ),
    (
        "a part id twice",
        |_, p| p.parts[15].id = 3,
        "part id 3 is given twice",
    ),
    (
        "a part id 17",
        |_, p| p.parts[15].id = 17,
        "part id 17 is out of range",
    ),
    (
        "15 parts",
        |_, p| {
            p.parts.pop();
        },
        "the part file has 15 map parts; the map is made of 16",
    ),
];

#[test]
fn data_validation() {
    assert!(data::validate(&data::shipped_discs(), &data::shipped_parts()).is_ok());
    for &(what, edit, expected) in DATA {
        let (mut discs, mut parts) = (data::shipped_discs(), data::shipped_parts());
        edit(&mut discs, &mut parts);
        let e = data::validate(&discs, &parts).expect_err(what);
        assert_eq!(
            (e.kind, e.rule),
            (RuleErrorKind::BadSetup, "data"),
            "{what}"
        );
        assert!(e.detail.contains(expected), "{what}: {}", e.detail);
    }
}

#[test]
fn data_files_are_parsed_with_care() {
    let discs = serde_json::to_string(&data::shipped_discs()).unwrap();
    let parsed: DiscFile = data::parse_file(&discs, "the disc file").unwrap();
    assert_eq!(parsed, data::shipped_discs());
    let bom: DiscFile = data::parse_file(&format!("\u{feff}{discs}"), "the disc file").unwrap();
    assert_eq!(bom, parsed, "a byte order mark is tolerated");
    let padded = format!("{discs}{}", " ".repeat(1 << 20));
    let rows: Vec<(&str, String, &str)> = vec![
        (
            "larger than 1 MiB",
            padded,
            "the disc file is larger than 1 MiB",
        ),
        (
            "not JSON",
            "{\"stars\": [".into(),
            "the disc file is not valid: ",
        ),
        ("empty", String::new(), "the disc file is not valid: "),
        (
            "an unknown field",
            discs.replacen("\"stars\"", "\"colour\": 1, \"stars\"", 1),
            "unknown field `colour`",
        ),
        (
            "an unknown shape",
            discs.replacen("\"corner\"", "\"square\"", 1),
            "unknown variant `square`",
        ),
    ];
    for (what, text, expected) in rows {
        let e = data::parse_file::<DiscFile>(&text, "the disc file").expect_err(what);
        assert_eq!(
            (e.kind, e.rule),
            (RuleErrorKind::BadSetup, "data"),
            "{what}"
        );
        assert!(e.detail.contains(expected), "{what}: {}", e.detail);
        assert!(e.detail.len() < 400, "{what}: the error is short");
    }
    // Through the options, as `new --discs FILE` gives them.
    let mut bad = data::shipped_discs();
    bad.discs[0].fields = "GG".into();
    let text = serde_json::to_string(&bad).unwrap();
    let e = G::options(&[("discs".into(), text)], None).unwrap_err();
    assert!(e.detail.contains("disc 1 is a corner"), "{e}");
    let parts = serde_json::to_string(&data::shipped_parts()).unwrap();
    let options = G::options(&[("parts".into(), parts)], None).unwrap();
    assert_eq!(options.parts, Some(data::shipped_parts()));
}

// ---------------------------------------------------------------------------
// 7. The text view

fn check_text(s: &State, names: &[String], what: &str) {
    for viewer in [None, Some(0), Some(3)] {
        let text = G::render_text(&G::view(s, viewer, None), names);
        for line in text.lines() {
            assert!(
                line.chars().count() <= 80,
                "{what}: a line of {} columns:\n{line}\n\n{text}",
                line.chars().count()
            );
        }
        // Each hand: its header line, then its disc names.
        let lines: Vec<&str> = text.lines().collect();
        for seat in 0..s.seats() {
            let head = format!("(seat {seat})");
            let i = lines
                .iter()
                .position(|l| l.contains(&head))
                .unwrap_or_else(|| panic!("{what}: no {head}:\n{text}"));
            let hand: Vec<String> = s
                .hand_names(seat)
                .iter()
                .map(|(_, (shape, k))| format!("{shape}{k}"))
                .collect();
            if hand.is_empty() {
                assert_eq!(lines[i + 1].trim(), "(no discs)", "{what}");
            } else {
                let shown: Vec<&str> = lines[i + 1].split_whitespace().collect();
                assert_eq!(shown, hand, "{what}: seat {seat}'s hand\n{text}");
            }
        }
    }
}

#[test]
fn the_text_view_of_a_four_player_game_fits_80_columns() {
    let names: Vec<String> = ["Anna", "Ben", "Chris", "Dora"].map(String::from).to_vec();
    for seed in 0..4 {
        for moves in [0, 1, 6, 15, 40, 200] {
            let s = random_game(&Options::default(), 4, seed, moves);
            check_text(&s, &names, &format!("seed {seed}, {moves} moves"));
        }
    }
    let s = random_game(&Options::default(), 4, 1, 7);
    let text = G::render_text(&G::view(&s, Some(0), None), &names);
    assert!(text.starts_with("Star Map — the view of Anna\n"), "{text}");
    assert!(text.contains("Teams: Anna + Chris: "), "{text}");
    assert!(text.contains("Anna (seat 0), team 0: "), "{text}");
}

// ---------------------------------------------------------------------------
// Later additions: the documented vectors and a few corners of the rules

/// docs/star-map.md, "Setup": (seed byte, seats, map, layout, start disc
/// and turn, hands by disc index).
type SetupVector = (
    u8,
    usize,
    &'static str,
    &'static str,
    (DiscId, Rotation),
    [[DiscId; 6]; 4],
);

const SETUP_VECTORS: &[SetupVector] = &[
    (
        0,
        2,
        "random",
        "3b 13s 15b 8b / 10b 7b 9b 16s / 12s 5b 2b 6s / 4b 14s 1s 11s",
        (5, Rotation::R180),
        [
            [6, 12, 34, 26, 42, 45],
            [0, 13, 38, 36, 46, 41],
            [0; 6],
            [0; 6],
        ],
    ),
    (
        1,
        4,
        "easy",
        "14b 16b 9b 10b / 7b 13b 3b 4b / 15b 12b 5b 1b / 6b 8b 2b 11b",
        (4, Rotation::R90),
        [
            [9, 16, 36, 33, 51, 42],
            [5, 22, 31, 34, 46, 43],
            [7, 20, 30, 29, 50, 55],
            [8, 18, 32, 24, 53, 54],
        ],
    ),
    (
        1,
        4,
        "hard",
        "14s 16s 9s 10s / 7s 13s 3s 4s / 15s 12s 5s 1s / 6s 8s 2s 11s",
        (4, Rotation::R90),
        [
            [9, 16, 36, 33, 51, 42],
            [5, 22, 31, 34, 46, 43],
            [7, 20, 30, 29, 50, 55],
            [8, 18, 32, 24, 53, 54],
        ],
    ),
    (
        1,
        4,
        "mixed",
        "14s 16s 9b 10b / 7s 13s 3s 4s / 15s 12b 5b 1b / 6b 8b 2s 11b",
        (7, Rotation::R180),
        [
            [5, 19, 39, 25, 43, 40],
            [2, 15, 35, 28, 51, 49],
            [4, 22, 33, 38, 55, 41],
            [3, 13, 24, 26, 45, 50],
        ],
    ),
];

#[test]
fn the_documented_setups() {
    for &(seed, seats, map, layout, start, hands) in SETUP_VECTORS {
        let what = format!("{seed:02x} x 32, {seats} seats, {map}");
        let options = G::options(&[("map".into(), map.into())], None).unwrap();
        let s = G::setup(&options, seats, &mut Draw::new([seed; 32])).unwrap();
        assert_eq!(s.layout().to_string(), layout, "{what}");
        assert_eq!(s.start(), start, "{what}");
        for (seat, hand) in hands.iter().enumerate().take(seats) {
            assert_eq!(s.hand(seat), hand, "{what}: seat {seat}");
        }
    }
    let s = G::setup(&Options::default(), 2, &mut Draw::new([0; 32])).unwrap();
    let left: Vec<usize> = Shape::ALL.iter().map(|&sh| s.stack_left(sh)).collect();
    assert_eq!(left, [9, 10, 12, 12]);
    assert_eq!(s.fields_text(5), "OVO");
    // r180: the elbow on g7, the right arm on f7, the lower arm on g6.
    for (at, field) in [("g7", 'O'), ("f7", 'V'), ("g6", 'O')] {
        assert_eq!(
            s.map().cell(sq(at)).unwrap().field,
            Some(star(field)),
            "{at}"
        );
    }
}

/// docs/star-map.md, "Drawing": the example after the first setup vector.
#[test]
fn the_documented_first_moves() {
    let mut s = G::setup(&Options::default(), 2, &mut Draw::new([0; 32])).unwrap();
    play(&mut s, "one1 h6");
    let (squares, scored, draw) = last_placed(&s);
    assert_eq!(names(&squares), "h6");
    assert_eq!(
        scored
            .groups
            .iter()
            .map(|g| group_text(&s, g))
            .collect::<Vec<_>>(),
        ["O g6 h6 g7"]
    );
    assert_eq!(scored.points, 3);
    assert_eq!(draw, Some(Shape::One));
    assert_eq!(s.pending_draw().map(|p| (p.id, p.causer)), Some((1, 0)));
    play(&mut s, "two1 f8 r180");
    let (squares, scored, draw) = last_placed(&s);
    assert_eq!(names(&squares), "f8 e8");
    assert_eq!(s.fields_text(38), ".G");
    assert!(scored.groups.is_empty());
    assert_eq!(scored.points, 0);
    assert_eq!(
        scored
            .bonuses
            .iter()
            .map(|b| (b.square, b.points, b.earned))
            .collect::<Vec<_>>(),
        [(sq("e8"), 2, false)]
    );
    assert_eq!(draw, Some(Shape::Two));
    assert_eq!(s.pending_draw().map(|p| (p.id, p.causer)), Some((2, 1)));
    assert_eq!((s.placement_points(0), s.placement_points(1)), (3, 0));
}

#[test]
fn hand_names_follow_hand_order() {
    let mut s = pos("R.G")
        .hand(&["two RR", "two GG", "one Y"])
        .hand(&["one G"])
        .stack(&["two BB"])
        .build();
    let hand = |s: &State| -> Vec<String> {
        s.hand_names(0)
            .iter()
            .map(|&(d, (shape, k))| format!("{shape}{k} {}", s.fields_text(d)))
            .collect()
    };
    assert_eq!(hand(&s), ["two1 RR", "two2 GG", "one1 Y"]);
    play(&mut s, "two1 e6 r180"); // RR on e6 d6
    play(&mut s, "one1 g7"); // the other seat; seat 0 draws BB
    // The old two2 is two1; the drawn disc comes last.
    assert_eq!(hand(&s), ["two1 GG", "one1 Y", "two2 BB"]);
}

#[test]
fn a_placement_that_requests_a_draw_never_ends_the_game() {
    let mut s = pos("RRR")
        .squares("f5# g5# e6# h6# e7# f8# h7# g8#")
        .hand(&["one R"])
        .hand(&["two GG"])
        .stack(&["three GGG"])
        .build();
    play(&mut s, "one1 g7 draw three");
    // Nobody can place, but seat 1 must write the entry that draws.
    assert_eq!(s.to_move(), Some(1));
    assert!(!s.is_over());
    assert_eq!(G::intents(&s, 1, &Own::default()), [Intent::Pass]);
    play(&mut s, "pass");
    assert!(s.is_over());
    assert_eq!(s.fields_text(s.hand(0)[0]), "GGG");
    assert_eq!((s.own_score(0), s.own_score(1)), (4 - 3, -2));
}

#[test]
fn the_text_view_fits_80_columns_with_the_longest_names() {
    let long = |c: char| format!("{c}{}", "x".repeat(63));
    let spaced = |c: char| format!("{c}{}", " Abcdefg".repeat(7).trim_end());
    for names in [
        ['A', 'B', 'C', 'D'].map(long).to_vec(),
        ['A', 'B', 'C', 'D'].map(spaced).to_vec(),
    ] {
        assert!(names.iter().all(|n| n.chars().count() <= 64));
        for seed in 0..3 {
            for moves in [0, 1, 2, 9, 200] {
                let s = random_game(&Options::default(), 4, seed, moves);
                for viewer in [None, Some(1)] {
                    let text = G::render_text(&G::view(&s, viewer, None), &names);
                    for line in text.lines() {
                        assert!(
                            line.chars().count() <= 80,
                            "{moves} moves: a line of {} columns:\n{line}\n\n{text}",
                            line.chars().count()
                        );
                    }
                    for seat in 0..4 {
                        for (_, (shape, k)) in s.hand_names(seat) {
                            assert!(text.contains(&format!("{shape}{k}")));
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn a_draw_pending_when_a_seat_withdraws_stays_in_the_stack() {
    let options = Options::default();
    let mut s = G::setup(&options, 2, &mut Draw::new([3; 32])).unwrap();
    let intent = G::intents(&s, 0, &Own::default()).remove(0);
    crate::games::play_own::<G>(&mut s, 0, &intent, &mut Own::default(), 5).unwrap();
    let p = s.pending_draw().expect("a placement draws");
    let left = s.stack_left(p.shape);
    G::withdraw(&mut s, 1, crate::games::Withdrawal::Resigned);
    assert!(G::pending(&s).is_empty());
    assert_eq!(s.stack_left(p.shape), left + 1, "the promised disc is back");
    let v = G::view(&s, None, None);
    assert!(v.pending.is_none() && v.over);
}

#[test]
fn counts_of_one_are_singular_in_the_text_view() {
    let s = notation_position();
    let mut v = G::view(&s, None, None);
    v.scores[0].points = 1;
    v.scores[1].points = 0;
    let text = G::render_text(&v, &["Anna".to_string(), "Ben".to_string()]);
    assert!(text.contains("Anna (seat 0): 1 point"), "{text}");
    assert!(!text.contains("1 points"), "{text}");
    assert!(text.contains("Ben (seat 1): 0 points"), "{text}");
}
