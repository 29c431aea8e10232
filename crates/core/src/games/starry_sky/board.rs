//! Boards (constellations) and how a set of them is written down.
//!
//! # The board file
//!
//! `starry new starry-sky --boards FILE` takes a JSON file of this shape
//! (the default set, `boards.json`, is written the same way):
//!
//! ```json
//! {"boards": [
//!   {"id": "leo", "name": "Leo", "prizes": [9, 7],
//!    "stars": [{"large": true, "at": [72, 72]}, {"large": false, "at": [70, 52]}],
//!    "lines": [[1, 2]]}
//! ]}
//! ```
//!
//! - `id`: lowercase letters, digits and `-`; unique within the file. Stars
//!   are named `id:number` in moves, e.g. `leo:3`.
//! - `name`: what players read: 1 to 64 characters, none of them a control
//!   or text-direction character (the rule for players' names).
//! - `prizes`: `[first, second]`, whole coins, `first >= second >= 0`.
//! - `stars`: 2 to 10 stars, numbered 1, 2, … in the order listed. `large`
//!   stars take their token face down. `at` is `[x, y]`, whole numbers in
//!   `0..=100` (x to the right, y downwards), used only for drawing.
//! - `lines`: pairs of star numbers joined by a line; joined stars are
//!   neighbours. No star joined to itself, no line twice (in either
//!   direction).
//!
//! A set needs at least 3 boards, and at least as many as there are seats.
//! Unknown fields are refused, so a typo is an error rather than a silently
//! ignored setting.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;
use std::sync::{Arc, LazyLock};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::games::RuleError;

/// A star's number within its board, counted from 1.
pub type StarNo = u8;

/// Most stars a board may have: 10 keeps every board fillable by two seats'
/// worth of moves and matches the published boards as reviewers describe
/// them.
pub const MAX_STARS: usize = 10;
/// Fewest stars on a board: one star could not be fought over.
pub const MIN_STARS: usize = 2;
/// Fewest boards in a set (the game needs one per seat, and has 3 seats at
/// least).
pub const MIN_BOARDS: usize = 3;
/// The drawing box for `at`.
pub const BOX: u32 = 100;

/// A board's id: lowercase letters, digits and `-`.
///
/// Every star label holds one, and a move lists a label for each token it
/// could place on each free star (a few hundred), so ids are cloned far
/// more often than anything else in the engine: an id is kept so that a
/// clone never allocates. Compared, ordered, hashed, printed and
/// serialised as the string it is.
#[derive(Clone, Serialize, Deserialize, JsonSchema)]
#[serde(try_from = "String", into = "String")]
pub struct BoardId(Id);

/// The longest id kept in place: the shipped ids have at most 11 bytes
/// (`sagittarius`), and 22 keeps an id, with its length and the enum's tag,
/// in the 24 bytes a shared one takes.
const INLINE_ID: usize = 22;

#[derive(Clone)]
enum Id {
    /// The id's bytes (ASCII, see [`BoardId::try_from`]), copied on clone.
    Inline { len: u8, bytes: [u8; INLINE_ID] },
    /// A longer id, shared by its clones.
    Shared(Arc<str>),
}

impl BoardId {
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(self.bytes()).expect("ids are ASCII")
    }

    /// The id's bytes, unchecked: what comparisons use, since a move is
    /// located by comparing its board id with every board's, and checking
    /// the bytes as UTF-8 each time cost more than the comparison.
    fn bytes(&self) -> &[u8] {
        match &self.0 {
            Id::Inline { len, bytes } => &bytes[..usize::from(*len)],
            Id::Shared(s) => s.as_bytes(),
        }
    }
}

impl TryFrom<String> for BoardId {
    type Error = RuleError;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        let ok = !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if !ok {
            return Err(RuleError::bad_setup(
                "board-id",
                format!("board id `{s}` must be lowercase letters, digits and `-`"),
            ));
        }
        Ok(BoardId(match u8::try_from(s.len()) {
            Ok(len) if s.len() <= INLINE_ID => {
                let mut bytes = [0; INLINE_ID];
                bytes[..s.len()].copy_from_slice(s.as_bytes());
                Id::Inline { len, bytes }
            }
            _ => Id::Shared(s.into()),
        }))
    }
}

impl From<BoardId> for String {
    fn from(id: BoardId) -> String {
        id.as_str().to_string()
    }
}

impl fmt::Display for BoardId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// As the string, the way `BoardId(String)` printed: `BoardId("leo")`.
impl fmt::Debug for BoardId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("BoardId").field(&self.as_str()).finish()
    }
}

impl PartialEq for BoardId {
    fn eq(&self, other: &Self) -> bool {
        self.bytes() == other.bytes()
    }
}

impl Eq for BoardId {}

impl PartialOrd for BoardId {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for BoardId {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        // Strings order as their bytes do.
        self.bytes().cmp(other.bytes())
    }
}

impl std::hash::Hash for BoardId {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state)
    }
}

/// One star of a board.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Star {
    /// Large stars take their token face down.
    pub large: bool,
    /// `[x, y]` in the `0..=100` drawing box.
    pub at: [u32; 2],
}

/// A board (constellation) as printed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Board {
    pub id: BoardId,
    pub name: String,
    /// `[first, second]` prize in coins.
    pub prizes: [u32; 2],
    /// Stars, numbered from 1 in this order.
    pub stars: Vec<Star>,
    /// Pairs of star numbers joined by a line.
    pub lines: Vec<[StarNo; 2]>,
}

impl Board {
    pub fn star_count(&self) -> usize {
        self.stars.len()
    }

    /// The star numbers `1..=n`.
    pub fn numbers(&self) -> impl Iterator<Item = StarNo> + use<> {
        1..=self.stars.len() as StarNo
    }

    pub fn star(&self, no: StarNo) -> Option<&Star> {
        (no as usize).checked_sub(1).and_then(|i| self.stars.get(i))
    }

    /// Stars joined to `no` by a line, ascending.
    pub fn neighbours(&self, no: StarNo) -> Vec<StarNo> {
        let set: BTreeSet<StarNo> = self
            .lines
            .iter()
            .filter_map(|&[a, b]| match () {
                _ if a == no => Some(b),
                _ if b == no => Some(a),
                _ => None,
            })
            .collect();
        set.into_iter().collect()
    }

    pub fn label(&self, no: StarNo) -> StarLabel {
        StarLabel {
            board: self.id.clone(),
            star: no,
        }
    }

    /// Checks one board on its own; errors name the board and the field.
    pub fn validate(&self) -> Result<(), RuleError> {
        let id = &self.id;
        if let Err(e) = crate::text::check_name(&self.name) {
            return Err(RuleError::bad_setup(
                "board-name",
                format!("board `{id}`: `name`: {e}"),
            ));
        }
        let n = self.stars.len();
        if !(MIN_STARS..=MAX_STARS).contains(&n) {
            return Err(RuleError::bad_setup(
                "board-stars",
                format!(
                    "board `{id}`: `stars` has {n} stars; a board needs {MIN_STARS} to {MAX_STARS}"
                ),
            ));
        }
        for (i, star) in self.stars.iter().enumerate() {
            if star.at.iter().any(|&c| c > BOX) {
                return Err(RuleError::bad_setup(
                    "board-at",
                    format!(
                        "board `{id}`: star {} `at` is {:?}; coordinates must be in 0..={BOX}",
                        i + 1,
                        star.at
                    ),
                ));
            }
        }
        let [first, second] = self.prizes;
        if first < second {
            return Err(RuleError::bad_setup(
                "board-prizes",
                format!(
                    "board `{id}`: `prizes` is [{first}, {second}]; the first prize must not be smaller than the second"
                ),
            ));
        }
        let mut seen = BTreeSet::new();
        for &[a, b] in &self.lines {
            for s in [a, b] {
                if s == 0 || s as usize > n {
                    return Err(RuleError::bad_setup(
                        "board-lines",
                        format!(
                            "board `{id}`: `lines` entry [{a}, {b}] names star {s}, but the stars are numbered 1 to {n}"
                        ),
                    ));
                }
            }
            if a == b {
                return Err(RuleError::bad_setup(
                    "board-lines",
                    format!("board `{id}`: `lines` entry [{a}, {b}] joins a star to itself"),
                ));
            }
            if !seen.insert((a.min(b), a.max(b))) {
                return Err(RuleError::bad_setup(
                    "board-lines",
                    format!("board `{id}`: `lines` joins stars {a} and {b} twice"),
                ));
            }
        }
        Ok(())
    }
}

/// Checks a whole set: enough boards, unique ids, every board valid.
pub fn validate_set(boards: &[Board]) -> Result<(), RuleError> {
    if boards.len() < MIN_BOARDS {
        return Err(RuleError::bad_setup(
            "board-count",
            format!(
                "the board set has {} boards; it needs at least {MIN_BOARDS}",
                boards.len()
            ),
        ));
    }
    let mut ids = BTreeSet::new();
    for board in boards {
        if !ids.insert(&board.id) {
            return Err(RuleError::bad_setup(
                "board-id",
                format!("board id `{}` is used twice", board.id),
            ));
        }
        board.validate()?;
    }
    Ok(())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BoardFile {
    boards: Vec<serde_json::Value>,
}

#[derive(Serialize)]
struct BoardFileOut<'a> {
    boards: &'a [Board],
}

/// The board file, for its JSON Schema (`schemas/starry-sky-boards.json`);
/// parsing goes board by board so that errors can name the board.
#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BoardSet {
    pub boards: Vec<Board>,
}

/// Parses and validates a board file (see the module docs for the format).
pub fn parse_board_set(text: &str) -> Result<Vec<Board>, RuleError> {
    let file: BoardFile = serde_json::from_str(text).map_err(|e| {
        RuleError::bad_setup(
            "board-file",
            format!(
                "the board file is not of the form {{\"boards\": [...]}}: {}",
                crate::text::excerpt_of(&e.to_string(), 160)
            ),
        )
    })?;
    let mut boards = Vec::with_capacity(file.boards.len());
    for (i, value) in file.boards.into_iter().enumerate() {
        let which = match value.get("id").and_then(|v| v.as_str()) {
            Some(id) => format!("board {} (`{}`)", i + 1, crate::text::excerpt(id)),
            None => format!("board {}", i + 1),
        };
        let board: Board = serde_json::from_value(value).map_err(|e| {
            RuleError::bad_setup(
                "board-file",
                format!(
                    "{which} in the board file: {}",
                    crate::text::excerpt_of(&e.to_string(), 160)
                ),
            )
        })?;
        boards.push(board);
    }
    validate_set(&boards)?;
    Ok(boards)
}

/// Writes a set in the board-file format (one line, canonical field order).
pub fn board_set_json(boards: &[Board]) -> String {
    serde_json::to_string(&BoardFileOut { boards }).expect("boards serialise")
}

/// The 12 zodiac boards shipped with the game.
pub fn default_boards() -> Vec<Board> {
    shipped_boards().to_vec()
}

/// The shipped boards, read from `boards.json` once: every game on the
/// default set shares them (parsing and checking the file took longer
/// than playing a whole game).
pub fn shipped_boards() -> Arc<[Board]> {
    static SHIPPED: LazyLock<Arc<[Board]>> = LazyLock::new(|| {
        parse_board_set(include_str!("boards.json"))
            .expect("the shipped boards are valid")
            .into()
    });
    Arc::clone(&SHIPPED)
}

/// The name of a star in moves: `board:number`, e.g. `leo:3`.
#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(try_from = "String", into = "String")]
pub struct StarLabel {
    pub board: BoardId,
    pub star: StarNo,
}

impl fmt::Display for StarLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.board, self.star)
    }
}

impl FromStr for StarLabel {
    type Err = RuleError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || {
            RuleError::illegal(
                "notation",
                format!("`{s}` is not a star; a star is written board:number, e.g. leo:3"),
            )
        };
        let (board, star) = s.split_once(':').ok_or_else(bad)?;
        let board = BoardId::try_from(board.to_string()).map_err(|_| bad())?;
        if star.is_empty() || !star.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let star: StarNo = star.parse().map_err(|_| bad())?;
        Ok(StarLabel { board, star })
    }
}

impl TryFrom<String> for StarLabel {
    type Error = RuleError;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

impl From<StarLabel> for String {
    fn from(l: StarLabel) -> String {
        l.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board_json(extra: &str) -> String {
        format!(
            r#"{{"boards":[
            {{"id":"a","name":"A","prizes":[3,1],"stars":[{{"large":true,"at":[0,0]}},{{"large":false,"at":[10,10]}},{{"large":false,"at":[20,20]}}],"lines":[[1,2],[2,3]]}},
            {{"id":"b","name":"B","prizes":[2,0],"stars":[{{"large":false,"at":[0,0]}},{{"large":false,"at":[1,1]}}],"lines":[[1,2]]}}
            {extra}]}}"#
        )
    }

    fn third(fields: &str) -> String {
        format!(r#",{{{fields}}}"#)
    }

    const OK3: &str = r#""id":"c","name":"C","prizes":[2,0],"stars":[{"large":false,"at":[0,0]},{"large":false,"at":[1,1]}],"lines":[[1,2]]"#;

    fn err(text: &str) -> RuleError {
        parse_board_set(text).expect_err("should be refused")
    }

    #[test]
    fn the_default_set_is_twelve_zodiac_boards() {
        let boards = default_boards();
        let ids: Vec<&str> = boards.iter().map(|b| b.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "aries",
                "taurus",
                "gemini",
                "cancer",
                "leo",
                "virgo",
                "libra",
                "scorpio",
                "sagittarius",
                "capricorn",
                "aquarius",
                "pisces"
            ]
        );
        for b in &boards {
            let n = b.star_count();
            assert!((5..=10).contains(&n), "{}: {n} stars", b.id);
            assert!(
                b.stars.iter().any(|s| s.large),
                "{} has no large star",
                b.id
            );
            assert!(
                b.stars.iter().any(|s| !s.large),
                "{} has no small star",
                b.id
            );
            // Prizes (stars, stars - 2), as reviewers describe the real ones.
            assert_eq!(b.prizes, [n as u32, n as u32 - 2], "{}", b.id);
            // Every star is joined to the figure.
            for no in b.numbers() {
                assert!(!b.neighbours(no).is_empty(), "{}:{no} is alone", b.id);
            }
        }
        // The file round-trips through the writer.
        assert_eq!(parse_board_set(&board_set_json(&boards)).unwrap(), boards);
    }

    #[test]
    fn a_small_valid_set_parses() {
        let boards = parse_board_set(&board_json(&third(OK3))).unwrap();
        assert_eq!(boards.len(), 3);
        assert_eq!(boards[0].neighbours(2), vec![1, 3]);
        assert_eq!(boards[0].label(3).to_string(), "a:3");
    }

    #[test]
    fn too_few_boards() {
        let e = err(&board_json(""));
        assert_eq!(e.rule, "board-count");
        assert!(e.detail.contains("2 boards"), "{e}");
    }

    #[test]
    fn duplicate_and_malformed_ids() {
        let e = err(&board_json(&third(
            &OK3.replace(r#""id":"c""#, r#""id":"a""#),
        )));
        assert_eq!(e.rule, "board-id");
        assert!(e.detail.contains("`a` is used twice"), "{e}");
        let e = err(&board_json(&third(
            &OK3.replace(r#""id":"c""#, r#""id":"Leo""#),
        )));
        assert_eq!(e.rule, "board-file");
        assert!(e.detail.contains("board 3 (`Leo`)"), "{e}");
        assert!(e.detail.contains("lowercase"), "{e}");
    }

    #[test]
    fn unknown_fields_are_refused() {
        let e = err(&board_json(&third(&format!(r#"{OK3},"colour":"red""#))));
        assert_eq!(e.rule, "board-file");
        assert!(e.detail.contains("unknown field `colour`"), "{e}");
        let e = err(r#"{"boards":[],"version":1}"#);
        assert!(e.detail.contains("unknown field `version`"), "{e}");
    }

    #[test]
    fn star_counts() {
        let one = OK3.replace(
            r#",{"large":false,"at":[1,1]}],"lines":[[1,2]]"#,
            r#"],"lines":[]"#,
        );
        let e = err(&board_json(&third(&one)));
        assert_eq!(e.rule, "board-stars");
        assert!(e.detail.contains("board `c`: `stars` has 1 stars"), "{e}");
        let eleven = format!(
            r#""id":"c","name":"C","prizes":[2,0],"stars":[{}],"lines":[]"#,
            [r#"{"large":false,"at":[0,0]}"#; 11].join(",")
        );
        let e = err(&board_json(&third(&eleven)));
        assert_eq!(e.rule, "board-stars");
        assert!(e.detail.contains("11 stars"), "{e}");
    }

    #[test]
    fn lines_must_name_stars_once() {
        for (lines, says) in [
            ("[[1,3]]", "names star 3"),
            ("[[0,1]]", "names star 0"),
            ("[[2,2]]", "joins a star to itself"),
            ("[[1,2],[2,1]]", "joins stars 2 and 1 twice"),
        ] {
            let e = err(&board_json(&third(&OK3.replace("[[1,2]]", lines))));
            assert_eq!(e.rule, "board-lines", "{lines}");
            assert!(e.detail.contains("board `c`: `lines`"), "{e}");
            assert!(e.detail.contains(says), "{e}");
        }
    }

    #[test]
    fn prizes_and_coordinates() {
        let e = err(&board_json(&third(&OK3.replace("[2,0]", "[2,3]"))));
        assert_eq!(e.rule, "board-prizes");
        assert!(e.detail.contains("board `c`: `prizes`"), "{e}");
        let e = err(&board_json(&third(&OK3.replace("[2,0]", "[2,-1]"))));
        assert_eq!(e.rule, "board-file");
        let e = err(&board_json(&third(&OK3.replace("[1,1]", "[1.5,1]"))));
        assert_eq!(e.rule, "board-file");
        assert!(e.detail.contains("floating point"), "{e}");
        let e = err(&board_json(&third(&OK3.replace("[1,1]", "[101,1]"))));
        assert_eq!(e.rule, "board-at");
        assert!(e.detail.contains("board `c`: star 2 `at`"), "{e}");
        let e = err(&board_json(&third(
            &OK3.replace(r#""name":"C""#, r#""name":" ""#),
        )));
        assert_eq!(e.rule, "board-name");
    }

    #[test]
    fn long_and_short_ids_behave_as_their_strings() {
        let ids = [
            "a",
            "sagittarius",
            "exactly-twenty-two-byt",
            "twenty-three-bytes-long",
        ];
        let ids: Vec<BoardId> = ids
            .iter()
            .map(|s| BoardId::try_from(s.to_string()).unwrap())
            .collect();
        assert_eq!(ids[2].as_str().len(), INLINE_ID);
        assert!(matches!(ids[2].0, Id::Inline { .. }));
        assert!(matches!(ids[3].0, Id::Shared(_)));
        for (a, b) in ids.iter().zip(&ids) {
            assert_eq!(a, &b.clone());
            assert_eq!(format!("{a:?}"), format!("BoardId({:?})", a.as_str()));
            assert_eq!(String::from(a.clone()), a.to_string());
            let json = serde_json::to_string(a).unwrap();
            assert_eq!(serde_json::from_str::<BoardId>(&json).unwrap(), *a);
        }
        for a in &ids {
            for b in &ids {
                assert_eq!(a.cmp(b), a.as_str().cmp(b.as_str()));
                assert_eq!(a == b, a.as_str() == b.as_str());
            }
        }
        // A clone never allocates: an id is no bigger than a shared string.
        assert_eq!(std::mem::size_of::<BoardId>(), 24);
    }

    #[test]
    fn star_labels() {
        let l: StarLabel = "leo:3".parse().unwrap();
        assert_eq!(l.board.as_str(), "leo");
        assert_eq!(l.star, 3);
        assert_eq!(serde_json::to_string(&l).unwrap(), "\"leo:3\"");
        for bad in ["leo", "leo:", ":3", "Leo:3", "leo:x", "leo:-1", "leo:999"] {
            let e = bad.parse::<StarLabel>().unwrap_err();
            assert!(e.detail.contains("board:number"), "{bad}: {e}");
        }
    }
}
