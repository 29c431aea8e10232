//! Starry Night (Stanley E. Anderson; seed 004): two players join stars by
//! straight edges; a player who closes a sea with no island in it captures
//! it. The rules as implemented, with every ruling, are in
//! docs/starry-night.md.
//!
//! The geometry is exact (`geometry`), the drawing is a planar map updated
//! edge by edge (`map`), the sky comes from `sky`, and `view` draws it.

pub mod bot;
pub mod geometry;
pub mod map;
pub mod picture;
pub mod referee;
mod registered;
mod show;
pub mod sky;
pub mod view;

#[cfg(test)]
mod properties;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod text_tests;

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use self::geometry::Point;
use self::map::{FaceId, Illegal, Map, Star};
use self::sky::{Sky, label};
use crate::games::{
    Context, Draw, Own, RuleError, Sealed, Seat, Standing, Turn, Withdrawal, rank_by_score,
};

/// How many takebacks each player may ask for in a game (accepted or
/// declined); it keeps every game finite, and so within its beacon chains.
pub const TAKEBACKS_PER_SEAT: u32 = 3;
/// The most stars a signed game may have: the longest game on more would
/// outlast a beacon chain (docs/starry-night.md, "Length of a game").
pub const MAX_SIGNED_STARS: usize = 163;
/// The seat that chooses who moves first: the player who did not set up the
/// sky ("One player creates a starry sky. The other player decides who moves
/// first").
pub const CHOOSER: Seat = 1;

pub struct StarryNight;

/// What counts at the end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Score {
    /// The number of captured seas (the published rules).
    #[default]
    Count,
    /// The area of the captured seas, in half grid squares (the early
    /// version the Windows program kept).
    Area,
}

/// Game options, stored in the genesis.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Options {
    pub sky: Sky,
    #[serde(default)]
    pub score: Score,
}

/// A step of a takeback.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Takeback {
    /// Instead of moving, ask to take back the opponent's last edge and
    /// one's own before it.
    Request,
    /// The opponent agrees: both edges are gone, the requester moves again.
    Accept,
    /// The opponent refuses: the requester moves in the same position.
    Decline,
}

/// A move as the log records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// The chooser names the seat that moves first, 0-based (see docs/json.md).
    First(Seat),
    /// An edge between the stars at these two grid points.
    Edge([Point; 2]),
    Takeback(Takeback),
}

/// Who is to move first, as a player says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Who {
    Seat(Seat),
    Me,
    Opponent,
}

/// What a player says: `first 1` (seats count from 0), `A-C` (or `3,4-7,1`), `takeback`,
/// `accept`, `decline`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Intent {
    First(Who),
    Edge(Star, Star),
    Takeback(Takeback),
}

impl fmt::Display for Intent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Intent::First(Who::Seat(s)) => write!(f, "first {s}"),
            Intent::First(Who::Me) => write!(f, "first me"),
            Intent::First(Who::Opponent) => write!(f, "first you"),
            Intent::Edge(a, b) => write!(f, "{}-{}", label(*a), label(*b)),
            Intent::Takeback(Takeback::Request) => write!(f, "takeback"),
            Intent::Takeback(Takeback::Accept) => write!(f, "accept"),
            Intent::Takeback(Takeback::Decline) => write!(f, "decline"),
        }
    }
}

/// An edge drawn, and what it captured.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Drawn {
    pub seat: Seat,
    pub stars: (Star, Star),
    pub captured: Vec<FaceId>,
}

/// A takeback asked for, and how it was answered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema, serde::Deserialize)]
pub struct TakebackRecord {
    /// Who asked: the seat, 0-based (see docs/json.md).
    pub seat: Seat,
    /// How many edges were on the sky when they asked.
    pub edges: usize,
    /// Null while unanswered.
    pub accepted: Option<bool>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
enum Phase {
    Choosing,
    Playing(Seat),
    /// The opponent of this seat must answer its takeback request.
    Answering(Seat),
    Over,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct State {
    options: Options,
    map: Map,
    drawn: Vec<Drawn>,
    phase: Phase,
    first: Option<Seat>,
    takebacks: Vec<TakebackRecord>,
    /// The seat that resigned or was abandoned, ending the game.
    withdrawn: Option<(Seat, Withdrawal)>,
}

fn other(seat: Seat) -> Seat {
    1 - seat
}

impl State {
    fn new(options: Options, stars: Vec<Point>) -> State {
        State {
            options,
            map: Map::new(stars),
            drawn: Vec::new(),
            phase: Phase::Choosing,
            first: None,
            takebacks: Vec::new(),
            withdrawn: None,
        }
    }

    pub fn map(&self) -> &Map {
        &self.map
    }

    pub fn drawn(&self) -> &[Drawn] {
        &self.drawn
    }

    pub fn score_kind(&self) -> Score {
        self.options.score
    }

    pub fn grid(&self) -> (u32, u32) {
        self.options.sky.grid()
    }

    pub fn first(&self) -> Option<Seat> {
        self.first
    }

    pub fn takebacks(&self) -> &[TakebackRecord] {
        &self.takebacks
    }

    pub fn requests_left(&self, seat: Seat) -> u32 {
        let used = self.takebacks.iter().filter(|t| t.seat == seat).count() as u32;
        TAKEBACKS_PER_SEAT.saturating_sub(used)
    }

    pub fn is_over(&self) -> bool {
        self.phase == Phase::Over
    }

    /// The seat that left the game early, and how.
    pub fn withdrawn(&self) -> Option<(Seat, Withdrawal)> {
        self.withdrawn
    }

    /// The stars not joined to any other.
    pub fn isolated(&self) -> Vec<Star> {
        (0..self.map.stars().len())
            .filter(|&s| self.map.degree(s) == 0)
            .collect()
    }

    /// Seas captured and their total area (half grid squares), per seat.
    pub fn captured(&self) -> [(i64, i64); 2] {
        let mut out = [(0, 0); 2];
        for d in &self.drawn {
            for &f in &d.captured {
                out[d.seat].0 += 1;
                out[d.seat].1 += self.map.twice_area(f);
            }
        }
        out
    }

    /// The score that decides the game, per seat.
    pub fn scores(&self) -> [i64; 2] {
        let c = self.captured();
        match self.options.score {
            Score::Count => [c[0].0, c[1].0],
            Score::Area => [c[0].1, c[1].1],
        }
    }

    /// The seat that made the last move; it wins a tie.
    pub fn last_mover(&self) -> Option<Seat> {
        self.drawn.last().map(|d| d.seat)
    }

    /// The seat to move or answer, if any.
    pub fn to_act(&self) -> Option<Seat> {
        match self.phase {
            Phase::Choosing => Some(CHOOSER),
            Phase::Playing(s) => Some(s),
            Phase::Answering(r) => Some(other(r)),
            Phase::Over => None,
        }
    }

    /// An outstanding takeback request's author.
    pub fn asking(&self) -> Option<Seat> {
        match self.phase {
            Phase::Answering(r) => Some(r),
            _ => None,
        }
    }

    /// Whether a game that is over ended with isolated stars left and no
    /// edge to draw (which the geometry rules out: kept as a clear ending
    /// should it ever happen).
    fn stalled(&self) -> bool {
        self.phase == Phase::Over && self.withdrawn.is_none() && !self.isolated().is_empty()
    }

    /// The winner once the game is over: the other seat if one withdrew,
    /// else the higher score, else (a tie) the last mover.
    pub fn winner(&self) -> Option<Seat> {
        if !self.is_over() {
            return None;
        }
        if let Some((seat, _)) = self.withdrawn {
            return Some(other(seat));
        }
        let s = self.scores();
        Some(match s[0].cmp(&s[1]) {
            std::cmp::Ordering::Greater => 0,
            std::cmp::Ordering::Less => 1,
            std::cmp::Ordering::Equal => self.last_mover().unwrap_or(0),
        })
    }

    fn star_at(&self, p: Point) -> Result<Star, RuleError> {
        self.map
            .stars()
            .binary_search_by(|s| s.reading_cmp(p))
            .map_err(|_| RuleError::illegal("edge", format!("there is no star at {p}")))
    }

    fn check_turn(&self, seat: Seat) -> Result<(), RuleError> {
        match self.to_act() {
            None => Err(RuleError::illegal(
                "over",
                "the game is over; nothing more can be played",
            )),
            Some(s) if s != seat => Err(RuleError::out_of_turn(
                "turn",
                format!("it is seat {s}'s turn, not seat {seat}'s"),
            )),
            Some(_) => Ok(()),
        }
    }

    /// Checks a move for `seat` and gives the action to log.
    fn action_for(&self, seat: Seat, intent: &Intent) -> Result<Action, RuleError> {
        self.check_turn(seat)?;
        match (self.phase, intent) {
            (Phase::Choosing, Intent::First(who)) => Ok(Action::First(match *who {
                Who::Seat(s) if s < 2 => s,
                Who::Seat(s) => {
                    return Err(RuleError::illegal(
                        "first-player",
                        format!("there is no seat {s}; say `first 0` or `first 1`"),
                    ));
                }
                Who::Me => seat,
                Who::Opponent => other(seat),
            })),
            (Phase::Choosing, _) => Err(RuleError::illegal(
                "first-player",
                "first choose who moves first: `first 0`, `first 1`, `first me` or `first you`",
            )),
            (Phase::Answering(r), Intent::Takeback(t @ (Takeback::Accept | Takeback::Decline))) => {
                let _ = r;
                Ok(Action::Takeback(*t))
            }
            (Phase::Answering(r), _) => Err(RuleError::illegal(
                "takeback",
                format!(
                    "seat {} asked to take back the last two edges; answer `accept` or `decline` first",
                    r
                ),
            )),
            (Phase::Playing(_), Intent::First(_)) => Err(RuleError::illegal(
                "first-player",
                "who moves first was chosen already",
            )),
            (Phase::Playing(_), Intent::Takeback(Takeback::Request)) => {
                if self.requests_left(seat) == 0 {
                    return Err(RuleError::illegal(
                        "takeback",
                        format!(
                            "each player may ask for {TAKEBACKS_PER_SEAT} takebacks a game; seat {} has asked for all of them",
                            seat
                        ),
                    ));
                }
                if self.drawn.len() < 2 {
                    return Err(RuleError::illegal(
                        "takeback",
                        "a takeback takes back the opponent's last edge and your own before it; \
                         you have drawn no edge yet",
                    ));
                }
                Ok(Action::Takeback(Takeback::Request))
            }
            (Phase::Playing(_), Intent::Takeback(_)) => Err(RuleError::illegal(
                "takeback",
                "nobody asked for a takeback; there is nothing to accept or decline",
            )),
            (Phase::Playing(_), Intent::Edge(a, b)) => {
                self.check_edge(*a, *b)?;
                let (a, b) = ((*a).min(*b), (*a).max(*b));
                let stars = self.map.stars();
                Ok(Action::Edge([stars[a], stars[b]]))
            }
            (Phase::Over, _) => unreachable!("check_turn refuses a finished game"),
        }
    }

    fn check_edge(&self, a: Star, b: Star) -> Result<(), RuleError> {
        let n = self.map.stars().len();
        for s in [a, b] {
            if s >= n {
                return Err(RuleError::illegal(
                    "edge",
                    format!(
                        "there is no star {}; this sky has stars A to {}",
                        label(s),
                        label(n - 1)
                    ),
                ));
            }
        }
        let (la, lb) = (label(a), label(b));
        self.map.check(a, b).map_err(|why| {
            let detail = match why {
                Illegal::SameStar => {
                    format!("an edge joins two different stars, not {la} to itself")
                }
                Illegal::AlreadyJoined => format!("{la} and {lb} are joined already"),
                Illegal::ThroughStar(s) => {
                    format!("the edge {la}-{lb} would pass through star {}", label(s))
                }
                Illegal::Crosses(c, d) => format!(
                    "the edge {la}-{lb} would cross the edge {}-{}",
                    label(c),
                    label(d)
                ),
                Illegal::InsideCapturedSea(f) => format!(
                    "the edge {la}-{lb} would lie inside a sea captured by seat {}",
                    self.map
                        .face(f)
                        .captor
                        .map_or_else(|| "?".into(), |s| s.to_string())
                ),
            };
            RuleError::illegal("edge", detail)
        })
    }

    fn apply(&mut self, seat: Seat, action: &Action) -> Result<(), RuleError> {
        match action {
            Action::First(s) => {
                if self.phase != Phase::Choosing {
                    return Err(RuleError::illegal(
                        "first-player",
                        "who moves first was chosen already",
                    ));
                }
                if *s > 1 {
                    return Err(RuleError::illegal(
                        "first-player",
                        format!("there is no seat {s}"),
                    ));
                }
                self.first = Some(*s);
                self.phase = Phase::Playing(*s);
            }
            Action::Edge([p, q]) => {
                let (a, b) = (self.star_at(*p)?, self.star_at(*q)?);
                self.action_for(seat, &Intent::Edge(a, b))?;
                self.draw(seat, a, b);
            }
            Action::Takeback(t) => {
                self.action_for(seat, &Intent::Takeback(*t))?;
                match t {
                    Takeback::Request => {
                        self.takebacks.push(TakebackRecord {
                            seat,
                            edges: self.drawn.len(),
                            accepted: None,
                        });
                        self.phase = Phase::Answering(seat);
                    }
                    Takeback::Accept | Takeback::Decline => {
                        let requester = other(seat);
                        let accepted = *t == Takeback::Accept;
                        if let Some(r) = self.takebacks.last_mut() {
                            r.accepted = Some(accepted);
                        }
                        if accepted {
                            self.rewind(self.drawn.len() - 2);
                        }
                        self.phase = Phase::Playing(requester);
                    }
                }
            }
        }
        Ok(())
    }

    fn draw(&mut self, seat: Seat, a: Star, b: Star) {
        let added = self.map.add(a, b, seat);
        self.drawn.push(Drawn {
            seat,
            stars: (a.min(b), a.max(b)),
            captured: added.captured,
        });
        self.phase = if self.isolated().is_empty() || self.map.legal_edges().is_empty() {
            Phase::Over
        } else {
            Phase::Playing(other(seat))
        };
    }

    /// The sky as it was after the first `keep` edges: drawn again from the
    /// empty sky, since captures depend on who drew what in which order.
    fn rewind(&mut self, keep: usize) {
        let drawn = std::mem::take(&mut self.drawn);
        self.map = Map::new(self.map.stars().to_vec());
        for d in &drawn[..keep] {
            self.draw(d.seat, d.stars.0, d.stars.1);
        }
    }
}

fn parse_who(word: &str) -> Option<Who> {
    match word {
        "me" | "i" => Some(Who::Me),
        "you" | "opponent" | "them" | "other" => Some(Who::Opponent),
        "0" => Some(Who::Seat(0)),
        "1" => Some(Who::Seat(1)),
        _ => None,
    }
}

/// A star named by its label or its grid point; a name that is no star of
/// this sky is a notation error, with the star meant when it is plain.
fn parse_star(state: &State, word: &str) -> Result<Star, RuleError> {
    let stars = state.map.stars();
    let n = stars.len();
    if word.contains(',') {
        let p = sky::parse_point(word).ok_or_else(|| {
            RuleError::notation(
                "notation",
                format!(
                    "`{}` is not a grid point; write x,y, e.g. 3,4",
                    crate::text::excerpt(word)
                ),
            )
        })?;
        return state.star_at(p).map_err(|_| {
            // The one star a step away (across or diagonally), if just one.
            let near: Vec<usize> = (0..n)
                .filter(|&i| {
                    let q = stars[i];
                    (q.0 - p.0).abs() <= 1 && (q.1 - p.1).abs() <= 1
                })
                .collect();
            let hint = match near.as_slice() {
                [i] => format!("; did you mean {} at {}?", label(*i), stars[*i]),
                _ => String::new(),
            };
            RuleError::notation(
                "notation",
                format!(
                    "there is no star at {p}; the view labels every star and gives its point{hint}"
                ),
            )
        });
    }
    match sky::parse_label(word) {
        Some(s) if s < n => Ok(s),
        parsed => {
            let labels: Vec<String> = (0..n).map(label).collect();
            let hint = if parsed.is_none() {
                // Not a label at all: perhaps a word of the notation.
                crate::text::did_you_mean(word, WORDS)
                    .map(|w| format!("; did you mean `{w}`?"))
                    .unwrap_or_default()
            } else {
                crate::text::did_you_mean(word, labels.iter().map(String::as_str))
                    .map(|w| format!("; did you mean {w}?"))
                    .unwrap_or_default()
            };
            Err(RuleError::notation(
                "notation",
                format!(
                    "there is no star `{}`; this sky has stars A to {} (or name a star by its \
                     point, x,y){hint}",
                    crate::text::excerpt(word),
                    label(n - 1)
                ),
            ))
        }
    }
}

/// The words of the notation besides stars, for "did you mean …?".
const WORDS: [&str; 5] = ["takeback", "accept", "decline", "first", "undo"];

impl crate::games::Rules for StarryNight {
    const NAME: &'static str = "starry-night";
    const RULES_VERSION: u32 = 1;
    const SEATS: std::ops::RangeInclusive<usize> = 2..=2;

    type Options = Options;
    type State = State;
    type Action = Action;
    type Hidden = Nothing;
    type Intent = Intent;
    type View = view::View;

    fn options(pairs: &[(String, String)], extra: Option<&str>) -> Result<Options, RuleError> {
        let mut options = Options::default();
        let sky = read_pairs(pairs, extra, &mut options)?;
        options.sky = sky.into_sky()?;
        // What the engine takes (200 stars) a signed game cannot: say so
        // here, in the game's words, rather than in the protocol's.
        if options.sky.count() > MAX_SIGNED_STARS {
            return Err(RuleError::bad_setup(
                "sky",
                format!(
                    "a game can have at most {MAX_SIGNED_STARS} stars, not {}: each player's \
                     beacon chain must outlast the longest game (docs/starry-night.md, \
                     \"Length of a game\")",
                    options.sky.count()
                ),
            ));
        }
        options.sky.check()?;
        Ok(options)
    }

    fn variants() -> Vec<(&'static str, Vec<&'static str>, &'static str)> {
        vec![(
            "score",
            vec!["count", "area"],
            "the winner has captured more seas (count) or more area (area, in half squares)",
        )]
    }

    fn setup(options: &Options, _seats: usize, draw: &mut Draw) -> Result<State, RuleError> {
        let stars = options.sky.stars(draw)?;
        Ok(State::new(options.clone(), stars))
    }

    fn turn(state: &State) -> Turn {
        match state.to_act() {
            Some(s) => Turn::Move(s),
            None => Turn::Over,
        }
    }

    fn intents(state: &State, seat: Seat, _own: &Own<Nothing>) -> Vec<Intent> {
        if state.to_act() != Some(seat) {
            return Vec::new();
        }
        match state.phase {
            Phase::Choosing => vec![Intent::First(Who::Seat(0)), Intent::First(Who::Seat(1))],
            Phase::Answering(_) => vec![
                Intent::Takeback(Takeback::Accept),
                Intent::Takeback(Takeback::Decline),
            ],
            Phase::Playing(_) => state
                .map
                .legal_edges()
                .iter()
                .map(|&(a, b)| Intent::Edge(a, b))
                .collect(),
            Phase::Over => Vec::new(),
        }
    }

    fn seal(
        state: &State,
        seat: Seat,
        intent: &Intent,
        _own: &Own<Nothing>,
    ) -> Result<Sealed<Action, Nothing>, RuleError> {
        Ok(Sealed {
            action: state.action_for(seat, intent)?,
            hidden: Vec::new(),
            reveals: Vec::new(),
        })
    }

    fn play(state: &mut State, ctx: &Context<Nothing>, action: &Action) -> Result<(), RuleError> {
        crate::games::nothing_hidden_in_move("Starry Night", ctx)?;
        state.check_turn(ctx.seat)?;
        let mut next = state.clone();
        next.apply(ctx.seat, action)?;
        *state = next;
        Ok(())
    }

    /// The choice of the first player; at most 3N − 6 edges on N ≥ 3 stars
    /// (a planar graph); each takeback request costs two entries and, if
    /// accepted, two edges drawn again.
    fn max_entries(options: &Options, _seats: usize) -> u64 {
        let n = options.sky.count() as u64;
        1 + (3 * n).saturating_sub(6).max(n.saturating_sub(1))
            + 4 * 2 * u64::from(TAKEBACKS_PER_SEAT)
    }

    fn withdraw(state: &mut State, seat: Seat, how: Withdrawal) {
        state.withdrawn = Some((seat, how));
        state.phase = Phase::Over;
    }

    fn stalled(state: &State) -> bool {
        state.stalled()
    }

    /// More seas (or area) ranks first; at the end a tie goes to the player
    /// who made the last move, and a seat that withdrew is last.
    fn standings(state: &State) -> Vec<Standing> {
        let scores = state.scores();
        let mut rows = rank_by_score(&scores);
        if let Some(winner) = state.winner() {
            for r in &mut rows {
                r.rank = if r.seat == winner { 1 } else { 2 };
            }
            rows.sort_by_key(|r| (r.rank, r.seat));
        }
        rows
    }

    fn view(state: &State, viewer: Option<Seat>, _own: Option<&Own<Nothing>>) -> view::View {
        view::build(state, viewer)
    }
}

/// What the options say of the sky, before it is made one [`Sky`].
struct SkyWords {
    stars: Option<Vec<Point>>,
    count: Option<u32>,
    grid: Option<(u32, u32)>,
}

/// Reads the options' pairs (and the stars file, `extra`) into `options`'
/// scoring and the words about the sky, each option at most once.
fn read_pairs(
    pairs: &[(String, String)],
    extra: Option<&str>,
    options: &mut Options,
) -> Result<SkyWords, RuleError> {
    let mut stars: Option<Vec<Point>> = extra
        .map(|text| {
            sky::parse_stars(text)
                .map_err(|e| RuleError::bad_setup("sky", format!("the stars file: {e}")))
        })
        .transpose()?;
    let mut count = None;
    let mut grid = None;
    let mut seen = std::collections::BTreeSet::new();
    for (key, value) in pairs {
        if !seen.insert(key.as_str()) {
            return Err(RuleError::bad_setup(
                "variant",
                format!(
                    "`{}` is given twice; give each option once",
                    crate::text::excerpt(key)
                ),
            ));
        }
        match key.as_str() {
            "score" => {
                options.score = match value.as_str() {
                    "count" => Score::Count,
                    "area" => Score::Area,
                    _ => {
                        return Err(RuleError::bad_setup(
                            "variant",
                            format!(
                                "score={} is not a choice; use score=count or score=area",
                                crate::text::excerpt(value)
                            ),
                        ));
                    }
                }
            }
            "stars" if stars.is_some() => {
                return Err(RuleError::bad_setup(
                    "sky",
                    "give the stars once: in a file or on the command line, not both",
                ));
            }
            "stars" => {
                stars = Some(sky::parse_stars(value).map_err(|e| RuleError::bad_setup("sky", e))?);
            }
            "random-stars" => {
                count = Some(value.trim().parse::<u32>().ok().ok_or_else(|| {
                    RuleError::bad_setup(
                        "sky",
                        format!(
                            "--random-stars {}: give a number of stars from {} to {}",
                            crate::text::excerpt(value),
                            sky::MIN_STARS,
                            MAX_SIGNED_STARS
                        ),
                    )
                })?);
            }
            "grid" => {
                grid = Some(sky::parse_grid(value).ok_or_else(|| {
                    RuleError::bad_setup(
                        "sky",
                        format!(
                            "--grid {}: give the grid as WxH points, e.g. 10x10",
                            crate::text::excerpt(value)
                        ),
                    )
                })?);
            }
            other => {
                return Err(RuleError::bad_setup(
                    "variant",
                    format!(
                        "starry-night has no option `{}`; its variant is score=count|area",
                        crate::text::excerpt(other)
                    ),
                ));
            }
        }
    }
    Ok(SkyWords { stars, count, grid })
}

impl SkyWords {
    /// The sky: the stars given, or random ones; the grid fits the stars
    /// given unless it is given too.
    fn into_sky(self) -> Result<Sky, RuleError> {
        let SkyWords { stars, count, grid } = self;
        Ok(match (stars, count) {
            (Some(_), Some(_)) => {
                return Err(RuleError::bad_setup(
                    "sky",
                    "give either the stars or a number of random stars, not both",
                ));
            }
            (Some(stars), None) => {
                let (width, height) = grid.unwrap_or_else(|| {
                    let w = stars.iter().map(|p| p.0).max().unwrap_or(0) + 1;
                    let h = stars.iter().map(|p| p.1).max().unwrap_or(0) + 1;
                    (w as u32, h as u32)
                });
                Sky::Stars {
                    width,
                    height,
                    stars,
                }
            }
            (None, count) => {
                let (width, height) = grid.unwrap_or((sky::DEFAULT_GRID, sky::DEFAULT_GRID));
                Sky::Random {
                    count: count.unwrap_or(sky::DEFAULT_STARS),
                    width,
                    height,
                }
            }
        })
    }
}

pub use crate::games::Nothing;
