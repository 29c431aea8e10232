//! Star Map (Andrea Boennen's Sternenhimmel; seed 003): two to four players
//! lay star discs on a map of 16 parts so that equal stars touch; a group of
//! three or more equal stars scores its size. Four players play as two
//! teams. The rules as implemented, with every ruling, are in
//! docs/star-map.md.
//!
//! The material is data (`data`), the map and its rules are `map`, and
//! `view` draws it. Draws after a placement are random events resolved by
//! the next seat's entry (docs/protocol.md, section 6.3).

pub mod bot;
pub mod data;
pub mod map;
pub mod picture;
pub mod referee;
mod registered;
mod show;
pub mod view;

#[cfg(test)]
mod properties;
#[cfg(test)]
mod tests;

use std::fmt;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use self::data::{DiscFile, DiscId, PartFile, Rotation, Set, Shape, Side};
use self::map::{Layout, Map, PlacedPart, Placement, Scored, Sq};
use crate::games::{
    Context, Draw, Nothing, Own, PendingEvent, RuleError, Sealed, Seat, Standing, Turn, Withdrawal,
};

/// Discs dealt to each hand at the start, by shape ([`Shape::ALL`] order).
pub const HAND: [usize; 4] = [1, 1, 2, 2];

pub struct StarMap;

/// How the map is laid out at setup.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MapChoice {
    /// Parts in random places, each on a random side.
    #[default]
    Random,
    /// Parts in random places, all on their bonus side.
    Easy,
    /// Parts in random places, all on their symbol side.
    Hard,
    /// Parts in random places, eight on each side, at random.
    Mixed,
    /// These parts, in reading order of their places.
    Layout(Layout),
}

/// Game options, stored in the genesis.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Options {
    #[serde(default)]
    pub map: MapChoice,
    /// A custom disc set (`--discs FILE`), kept whole so that an audit needs
    /// nothing but the log; absent means the shipped set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discs: Option<DiscFile>,
    /// Custom map parts (`--parts FILE`); absent means the shipped parts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parts: Option<PartFile>,
}

impl Options {
    /// The validated material these options name.
    pub fn set(&self) -> Result<Set, RuleError> {
        let discs = self.discs.clone().unwrap_or_else(data::shipped_discs);
        let parts = self.parts.clone().unwrap_or_else(data::shipped_parts);
        data::validate(&discs, &parts)
    }
}

/// A placement as the log records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Place {
    /// The disc, by its index in the disc set (0-based).
    pub disc: DiscId,
    /// The square of the disc's first field.
    pub at: Sq,
    /// A quarter turn clockwise: 0, 90, 180 or 270.
    pub rotation: Rotation,
    /// The stack to draw from when the placed disc's own stack is empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draw: Option<Shape>,
}

/// A move as the log records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    Place(Place),
    /// The seat has no legal placement (only when its entry is needed to
    /// draw the previous player's disc; otherwise it is skipped).
    Pass,
}

/// What a player says: `corner2 f7 r90`, `two1 c3 r180 draw one`, `pass`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Intent {
    Place {
        /// The disc's name in the hand: its shape and its number among
        /// the hand's discs of that shape, from 1.
        name: (Shape, usize),
        placement: Placement,
        draw: Option<Shape>,
    },
    Pass,
}

impl fmt::Display for Intent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Intent::Place {
                name: (shape, k),
                placement,
                draw,
            } => {
                write!(f, "{shape}{k} {}", placement.at)?;
                if *shape != Shape::One {
                    write!(f, " {}", placement.rotation)?;
                }
                if let Some(d) = draw {
                    write!(f, " draw {d}")?;
                }
                Ok(())
            }
            Intent::Pass => f.write_str("pass"),
        }
    }
}

/// A move that was made.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Moved {
    Placed {
        seat: Seat,
        placement: Placement,
        squares: Vec<Sq>,
        scored: Scored,
        /// The stack the seat draws from, if any disc was left.
        draw: Option<Shape>,
    },
    Passed {
        seat: Seat,
    },
}

impl Moved {
    pub fn seat(&self) -> Seat {
        match self {
            Moved::Placed { seat, .. } | Moved::Passed { seat } => *seat,
        }
    }
}

/// A draw waiting for the next seat's entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PendingDraw {
    pub id: u64,
    pub causer: Seat,
    pub shape: Shape,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct State {
    set: Arc<Set>,
    layout: Layout,
    map: Map,
    start: (DiscId, Rotation),
    hands: Vec<Vec<DiscId>>,
    /// What is left of each stack, in set order ([`Shape::ALL`] order).
    stacks: [Vec<DiscId>; 4],
    points: Vec<i64>,
    history: Vec<Moved>,
    pending: Option<PendingDraw>,
    to_move: Option<Seat>,
    withdrawn: Option<(Seat, Withdrawal)>,
}

impl State {
    pub fn set(&self) -> &Set {
        &self.set
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    pub fn map(&self) -> &Map {
        &self.map
    }

    pub fn seats(&self) -> usize {
        self.hands.len()
    }

    /// The start disc and how it is turned (its first field, the elbow, is
    /// on f6, g6, g7 or f7 for 0, 90, 180, 270).
    pub fn start(&self) -> (DiscId, Rotation) {
        self.start
    }

    pub fn hand(&self, seat: Seat) -> &[DiscId] {
        &self.hands[seat]
    }

    /// Discs left in a stack, not counting one promised to a pending draw.
    pub fn stack_left(&self, shape: Shape) -> usize {
        let reserved = self.pending.is_some_and(|p| p.shape == shape) as usize;
        self.stacks[shape.index()].len() - reserved
    }

    pub fn history(&self) -> &[Moved] {
        &self.history
    }

    pub fn pending_draw(&self) -> Option<PendingDraw> {
        self.pending
    }

    pub fn to_move(&self) -> Option<Seat> {
        self.to_move
    }

    pub fn is_over(&self) -> bool {
        self.to_move.is_none()
    }

    pub fn withdrawn(&self) -> Option<(Seat, Withdrawal)> {
        self.withdrawn
    }

    /// Four players play in two teams: team 0 (seats 0 and 2) against team 1
    /// (seats 1 and 3).
    pub fn team_of(&self, seat: Seat) -> Option<u32> {
        (self.seats() == 4).then_some((seat % 2) as u32)
    }

    /// Points scored by placing, per seat.
    pub fn placement_points(&self, seat: Seat) -> i64 {
        self.points[seat]
    }

    /// The minus points of a hand: one per field of each disc in it. They
    /// count once the game is over.
    pub fn hand_fields(&self, seat: Seat) -> i64 {
        self.hands[seat]
            .iter()
            .map(|&d| self.set.discs[d as usize].fields.len() as i64)
            .sum()
    }

    /// A seat's own score: its placements, less its hand once the game is
    /// over (a seat that withdrew keeps its hand's minus points too).
    pub fn own_score(&self, seat: Seat) -> i64 {
        self.points[seat]
            - if self.is_over() {
                self.hand_fields(seat)
            } else {
                0
            }
    }

    /// The score that ranks a seat: its team's with four players.
    pub fn score(&self, seat: Seat) -> i64 {
        match self.team_of(seat) {
            Some(t) => (0..4)
                .filter(|&s| s % 2 == t as usize)
                .map(|s| self.own_score(s))
                .sum(),
            None => self.own_score(seat),
        }
    }

    /// The name of each disc in a hand (`corner1`, `two2`), in hand order.
    pub fn hand_names(&self, seat: Seat) -> Vec<(DiscId, (Shape, usize))> {
        let mut count = [0usize; 4];
        self.hands[seat]
            .iter()
            .map(|&d| {
                let shape = self.set.discs[d as usize].shape;
                count[shape.index()] += 1;
                (d, (shape, count[shape.index()]))
            })
            .collect()
    }

    /// Every legal placement for a seat's hand.
    pub fn placements(&self, seat: Seat) -> Vec<Placement> {
        self.map.legal(&self.set, &self.hands[seat])
    }

    fn can_place(&self, seat: Seat) -> bool {
        self.map.any_legal(&self.set, &self.hands[seat])
    }

    /// The stacks a seat may choose to draw from after placing a disc of
    /// `shape`: none if that stack has discs left (it draws from it) or if
    /// every stack is empty.
    pub fn draw_choices(&self, shape: Shape) -> Vec<Shape> {
        if self.stack_left(shape) > 0 {
            return Vec::new();
        }
        Shape::ALL
            .into_iter()
            .filter(|&s| self.stack_left(s) > 0)
            .collect()
    }

    fn check_turn(&self, seat: Seat) -> Result<(), RuleError> {
        match self.to_move {
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

    /// The name a disc of this seat's hand goes by.
    fn name_of(&self, seat: Seat, disc: DiscId) -> Option<(Shape, usize)> {
        self.hand_names(seat)
            .into_iter()
            .find(|(d, _)| *d == disc)
            .map(|(_, n)| n)
    }

    /// Checks a placement by `seat` and says where its fields go.
    fn check_place(&self, seat: Seat, p: &Place) -> Result<Vec<Sq>, RuleError> {
        self.check_turn(seat)?;
        let Some(disc) = self.set.discs.get(p.disc as usize) else {
            return Err(RuleError::illegal(
                "hand",
                format!("there is no disc {} in this set", p.disc),
            ));
        };
        if !self.hands[seat].contains(&p.disc) {
            return Err(RuleError::illegal(
                "hand",
                format!(
                    "disc {} ({} {}) is not in seat {}'s hand",
                    p.disc,
                    disc.shape,
                    self.fields_text(p.disc),
                    seat
                ),
            ));
        }
        if disc.shape == Shape::One && p.rotation != Rotation::R0 {
            // Every turn of a single field is the same placement; one way
            // to log it keeps the log canonical.
            return Err(RuleError::illegal(
                "rotation",
                format!(
                    "a one-field disc is not turned: its rotation is 0, not {}",
                    p.rotation.degrees()
                ),
            ));
        }
        let squares = self
            .map
            .check(disc.shape, &disc.fields, p.at, p.rotation)
            .map_err(|r| RuleError::illegal(r.rule(), r.describe(&self.set)))?;
        let choices = self.draw_choices(disc.shape);
        match (p.draw, choices.is_empty()) {
            (None, false) => {
                return Err(RuleError::illegal(
                    "draw",
                    format!(
                        "the {} stack is empty: choose the stack to draw from, add `draw {}` \
                         (stacks with discs: {})",
                        disc.shape,
                        choices[0],
                        self.stacks_text(&choices)
                    ),
                ));
            }
            (Some(d), true) => {
                return Err(RuleError::illegal(
                    "draw",
                    if self.stack_left(disc.shape) > 0 {
                        format!(
                            "after placing a {0} you draw a {0}; `draw {d}` is only for when the \
                             {0} stack is empty",
                            disc.shape
                        )
                    } else {
                        "every stack is empty: there is nothing to draw".into()
                    },
                ));
            }
            (Some(d), false) if !choices.contains(&d) => {
                return Err(RuleError::illegal(
                    "draw",
                    format!(
                        "the {d} stack is empty too; stacks with discs: {}",
                        self.stacks_text(&choices)
                    ),
                ));
            }
            _ => {}
        }
        Ok(squares)
    }

    fn stacks_text(&self, shapes: &[Shape]) -> String {
        shapes
            .iter()
            .map(|&s| format!("{s} ({} left)", self.stack_left(s)))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// A disc's fields as the text view writes them (`RB.`).
    pub fn fields_text(&self, disc: DiscId) -> String {
        self.set.discs[disc as usize]
            .fields
            .iter()
            .map(|&f| self.set.field_char(f))
            .collect()
    }

    fn check_pass(&self, seat: Seat) -> Result<(), RuleError> {
        self.check_turn(seat)?;
        if let Some(p) = self.placements(seat).first() {
            let (shape, k) = self
                .name_of(seat, p.disc)
                .expect("placements are of discs in the hand");
            return Err(RuleError::illegal(
                "pass",
                format!(
                    "seat {} can place a disc (e.g. {shape}{k} {}{}); a player passes only with \
                     no legal placement",
                    seat,
                    p.at,
                    view::rotation_text(shape, p.rotation)
                ),
            ));
        }
        Ok(())
    }

    fn apply(&mut self, seat: Seat, action: &Action) -> Result<(), RuleError> {
        match action {
            Action::Pass => {
                self.check_pass(seat)?;
                self.history.push(Moved::Passed { seat });
                self.to_move = self.next_placer(seat);
            }
            Action::Place(p) => {
                let squares = self.check_place(seat, p)?;
                let disc = &self.set.discs[p.disc as usize];
                let shape = disc.shape;
                let fields = disc.fields.clone();
                self.map.lay(p.disc, &fields, &squares);
                let scored = self.map.score(&squares);
                self.points[seat] += scored.points;
                self.hands[seat].retain(|&d| d != p.disc);
                let draw = p.draw.or((self.stack_left(shape) > 0).then_some(shape));
                self.history.push(Moved::Placed {
                    seat,
                    placement: Placement {
                        disc: p.disc,
                        at: p.at,
                        rotation: p.rotation,
                    },
                    squares,
                    scored,
                    draw,
                });
                if let Some(shape) = draw {
                    self.pending = Some(PendingDraw {
                        id: self.history.len() as u64,
                        causer: seat,
                        shape,
                    });
                    // The next seat must write an entry, if only to pass:
                    // nobody else's link can resolve this draw.
                    self.to_move = Some((seat + 1) % self.seats());
                } else {
                    self.to_move = self.next_placer(seat);
                }
            }
        }
        Ok(())
    }

    /// The next seat after `seat` (and `seat` itself last) that can place,
    /// if any: the others are skipped.
    fn next_placer(&self, seat: Seat) -> Option<Seat> {
        let n = self.seats();
        (1..=n).map(|k| (seat + k) % n).find(|&s| self.can_place(s))
    }

    fn resolve(&mut self, event: u64, draw: &mut Draw) -> Result<(), RuleError> {
        let Some(p) = self.pending.filter(|p| p.id == event) else {
            return Err(RuleError::illegal(
                "no-such-event",
                format!("no draw {event} is pending"),
            ));
        };
        let disc = draw.pick(&mut self.stacks[p.shape.index()]);
        self.hands[p.causer].push(disc);
        self.pending = None;
        // The seat that had to resolve the draw may have nothing to place:
        // it still moves (a pass), so the turn is unchanged.
        Ok(())
    }
}

impl crate::games::Rules for StarMap {
    const NAME: &'static str = "star-map";
    const RULES_VERSION: u32 = 1;
    const SEATS: std::ops::RangeInclusive<usize> = 2..=4;

    type Options = Options;
    type State = State;
    type Action = Action;
    type Hidden = Nothing;
    type Intent = Intent;
    type View = view::View;

    fn options(pairs: &[(String, String)], extra: Option<&str>) -> Result<Options, RuleError> {
        let mut options = Options::default();
        let mut seen = std::collections::BTreeSet::new();
        if extra.is_some() {
            return Err(RuleError::bad_setup(
                "option",
                "Star Map takes its data with --parts FILE and --discs FILE",
            ));
        }
        for (key, value) in pairs {
            if !seen.insert(key.as_str()) {
                return Err(RuleError::bad_setup(
                    "option",
                    format!(
                        "`{}` is given twice; give each option once",
                        crate::text::excerpt(key)
                    ),
                ));
            }
            match key.as_str() {
                "map" => options.map = parse_map(value)?,
                "parts" => {
                    let file: PartFile = data::parse_file(value, "the part file")?;
                    options.parts = Some(file.canonical());
                }
                "discs" => options.discs = Some(data::parse_file(value, "the disc file")?),
                other => {
                    return Err(RuleError::bad_setup(
                        "option",
                        format!(
                            "star-map has no option `{}`; it takes --map random|easy|hard|mixed|LAYOUT, \
                             --parts FILE and --discs FILE",
                            crate::text::excerpt(other)
                        ),
                    ));
                }
            }
        }
        options.set()?;
        if let MapChoice::Layout(layout) = &options.map {
            check_layout(layout)?;
        }
        Ok(options)
    }

    fn variants() -> Vec<(&'static str, Vec<&'static str>, &'static str)> {
        vec![(
            "map",
            vec!["random", "easy", "hard", "mixed", "LAYOUT"],
            "the map parts' sides: random, all bonus sides (easy), all symbol sides (hard), \
             eight of each (mixed), or 16 parts such as `1b 2s 3b 4b / 5s …` (new --map)",
        )]
    }

    fn setup(options: &Options, seats: usize, draw: &mut Draw) -> Result<State, RuleError> {
        let set = options.set()?;
        let layout = match &options.map {
            MapChoice::Layout(l) => {
                check_layout(l)?;
                l.clone()
            }
            choice => random_layout(choice, draw),
        };
        let map = Map::new(&set, &layout);
        let mut stacks = Shape::ALL.map(|s| set.stack(s));
        let start = draw.pick(&mut stacks[Shape::Corner.index()]);
        let rotation = Rotation::ALL[draw.below(4)];
        let mut hands = vec![Vec::new(); seats];
        for hand in &mut hands {
            for shape in Shape::ALL {
                for _ in 0..HAND[shape.index()] {
                    hand.push(draw.pick(&mut stacks[shape.index()]));
                }
            }
        }
        let mut state = State {
            set: Arc::new(set),
            layout,
            map,
            start: (start, rotation),
            hands,
            stacks,
            points: vec![0; seats],
            history: Vec::new(),
            pending: None,
            to_move: None,
            withdrawn: None,
        };
        let fields = state.set.discs[start as usize].fields.clone();
        let squares = Map::squares_of(Shape::Corner, START_ELBOW[rotation as usize], rotation)
            .expect("the start disc lies in the centre");
        state.map.lay(start, &fields, &squares);
        // The first seat moves first; should it have nothing to place, the
        // next that can.
        state.to_move = state.next_placer(seats - 1);
        Ok(state)
    }

    fn turn(state: &State) -> Turn {
        match state.to_move {
            Some(s) => Turn::Move(s),
            None => Turn::Over,
        }
    }

    fn pending(state: &State) -> Vec<PendingEvent> {
        state
            .pending
            .iter()
            .map(|p| PendingEvent {
                id: p.id,
                causer: p.causer,
            })
            .collect()
    }

    fn resolve(state: &mut State, event: u64, draw: &mut Draw) -> Result<(), RuleError> {
        state.resolve(event, draw)
    }

    fn intents(state: &State, seat: Seat, _own: &Own<Nothing>) -> Vec<Intent> {
        if state.to_move != Some(seat) {
            return Vec::new();
        }
        let placements = state.placements(seat);
        if placements.is_empty() {
            return vec![Intent::Pass];
        }
        let names = state.hand_names(seat);
        let mut out = Vec::new();
        for placement in placements {
            let (_, name) = *names
                .iter()
                .find(|(d, _)| *d == placement.disc)
                .expect("placements are of discs in the hand");
            let choices = state.draw_choices(name.0);
            // A draw is named only when there is a choice: with one stack
            // left to give, `play` fills it in, and the list writes each
            // move as `play` takes it (the sealed action is the same).
            if choices.len() <= 1 {
                out.push(Intent::Place {
                    name,
                    placement,
                    draw: None,
                });
                continue;
            }
            for draw in choices {
                out.push(Intent::Place {
                    name,
                    placement,
                    draw: Some(draw),
                });
            }
        }
        out
    }

    fn seal(
        state: &State,
        seat: Seat,
        intent: &Intent,
        _own: &Own<Nothing>,
    ) -> Result<Sealed<Action, Nothing>, RuleError> {
        let action = match intent {
            Intent::Pass => {
                state.check_pass(seat)?;
                Action::Pass
            }
            Intent::Place {
                name,
                placement,
                draw,
            } => {
                // With the disc's own stack empty and exactly one stack
                // left to give, there is nothing to choose: the player
                // need not name it, and the log still records it, as
                // every log always has.
                let draw = draw.or(match state.draw_choices(name.0)[..] {
                    [only] => Some(only),
                    _ => None,
                });
                let place = Place {
                    disc: placement.disc,
                    at: placement.at,
                    rotation: placement.rotation,
                    draw,
                };
                state.check_place(seat, &place)?;
                Action::Place(place)
            }
        };
        Ok(Sealed {
            action,
            hidden: Vec::new(),
            reveals: Vec::new(),
        })
    }

    fn play(state: &mut State, ctx: &Context<Nothing>, action: &Action) -> Result<(), RuleError> {
        crate::games::nothing_hidden_in_move("Star Map", ctx)?;
        if let Some(p) = state.pending {
            // The protocol resolves another seat's draw before the entry's
            // action; only the causer's own could still be pending, and the
            // causer never moves before the next seat.
            return Err(RuleError::illegal(
                "draw",
                format!(
                    "seat {}'s draw is still pending; the next seat must move first",
                    p.causer + 1
                ),
            ));
        }
        let mut next = state.clone();
        next.apply(ctx.seat, action)?;
        *state = next;
        Ok(())
    }

    /// A draw still pending is never resolved: its disc stays in the stack.
    fn withdraw(state: &mut State, seat: Seat, how: Withdrawal) {
        state.withdrawn = Some((seat, how));
        state.to_move = None;
        state.pending = None;
    }

    /// Each placement uses a disc (55 besides the start disc), and only the
    /// entry right after a placement can be a pass.
    fn max_entries(options: &Options, _seats: usize) -> u64 {
        let discs = options.set().map_or(56, |s| s.discs.len() as u64);
        2 * (discs - 1)
    }

    // Not `stalled`: the game always ends when nobody can place, and that
    // is its end.

    /// More points ranks first; equal points share a rank (and the win).
    /// Partners share their team's score and rank.
    fn standings(state: &State) -> Vec<Standing> {
        let scores: Vec<i64> = (0..state.seats()).map(|s| state.score(s)).collect();
        let mut rows = crate::games::rank_by_score(&scores);
        for r in &mut rows {
            r.team = state.team_of(r.seat);
            if r.team.is_some() {
                // Teams rank as teams: the losing pair is second, not third.
                r.rank = if scores[1 - r.seat % 2] > r.score {
                    2
                } else {
                    1
                };
            }
        }
        rows
    }

    fn view(state: &State, viewer: Option<Seat>, _own: Option<&Own<Nothing>>) -> view::View {
        view::build(state, viewer)
    }
}

/// Where the start disc's elbow lies for each rotation: its three fields
/// cover three of the four centre squares.
const START_ELBOW: [Sq; 4] = [
    map::CENTRE[0],
    map::CENTRE[1],
    map::CENTRE[3],
    map::CENTRE[2],
];

/// Draws a layout: the 16 parts shuffled into places, then their sides.
fn random_layout(choice: &MapChoice, draw: &mut Draw) -> Layout {
    let mut parts: Vec<u8> = (1..=data::PARTS as u8).collect();
    draw.shuffle(&mut parts);
    let sides: Vec<Side> = match choice {
        MapChoice::Easy => vec![Side::Bonus; data::PARTS],
        MapChoice::Hard => vec![Side::Symbols; data::PARTS],
        MapChoice::Mixed => {
            let mut s = [vec![Side::Bonus; 8], vec![Side::Symbols; 8]].concat();
            draw.shuffle(&mut s);
            s
        }
        _ => (0..data::PARTS)
            .map(|_| [Side::Bonus, Side::Symbols][draw.below(2)])
            .collect(),
    };
    Layout(
        parts
            .into_iter()
            .zip(sides)
            .map(|(part, side)| PlacedPart { part, side })
            .collect(),
    )
}

fn check_layout(layout: &Layout) -> Result<(), RuleError> {
    let mut seen = [false; data::PARTS];
    if layout.0.len() != data::PARTS {
        return Err(RuleError::bad_setup(
            "map",
            format!(
                "a layout names {} parts, in reading order of their places; this one names {}",
                data::PARTS,
                layout.0.len()
            ),
        ));
    }
    for p in &layout.0 {
        let i = p.part as usize;
        if !(1..=data::PARTS).contains(&i) || std::mem::replace(&mut seen[i - 1], true) {
            return Err(RuleError::bad_setup(
                "map",
                format!(
                    "a layout names each part 1 to {} once; part {} is {}",
                    data::PARTS,
                    p.part,
                    if (1..=data::PARTS).contains(&i) {
                        "named twice"
                    } else {
                        "not a part"
                    }
                ),
            ));
        }
    }
    Ok(())
}

/// `--map`: random, easy, hard, mixed, or 16 parts with their sides.
fn parse_map(value: &str) -> Result<MapChoice, RuleError> {
    match value.trim().to_ascii_lowercase().as_str() {
        "random" => return Ok(MapChoice::Random),
        "easy" => return Ok(MapChoice::Easy),
        "hard" => return Ok(MapChoice::Hard),
        "mixed" => return Ok(MapChoice::Mixed),
        _ => {}
    }
    let tokens: Vec<&str> = value
        .split(|c: char| c.is_whitespace() || c == ',' || c == '/')
        .filter(|t| !t.is_empty())
        .collect();
    let bad = |why: String| {
        RuleError::bad_setup(
            "map",
            format!(
                "--map {}: {why}; give random, easy, hard, mixed, or 16 parts in reading order \
                 of their places, each its id and side (b: bonus, s: symbols), e.g. \
                 `1b 2s 3b 4b / 5s 6b 7b 8s / …`",
                crate::text::excerpt(value)
            ),
        )
    };
    if tokens.len() <= 1 {
        return Err(bad("not a map choice".into()));
    }
    let mut parts = Vec::new();
    for t in &tokens {
        let lower = t.to_ascii_lowercase();
        let mut chars = lower.chars();
        let last = chars.next_back();
        let num = chars.as_str();
        let side = match last {
            Some('b') => Side::Bonus,
            Some('s') => Side::Symbols,
            _ => {
                return Err(bad(format!(
                    "`{}` does not end in its side, b or s",
                    crate::text::excerpt(t)
                )));
            }
        };
        let part = num.parse::<u8>().map_err(|_| {
            bad(format!(
                "`{}` does not start with a part id",
                crate::text::excerpt(t)
            ))
        })?;
        parts.push(PlacedPart { part, side });
    }
    let layout = Layout(parts);
    check_layout(&layout).map_err(|e| bad(e.detail))?;
    Ok(MapChoice::Layout(layout))
}

/// Parses `corner2 f7 r90`, `two1 c3 r180 draw one`, `one1 e5`, `pass`,
/// as typed: case does not matter, nor white space between the words or
/// inside one (`CORNER 1 F8 R 90`, `Draw Two`). What names no disc of the
/// hand, no square or no rotation is a notation error, with "did you mean
/// …?" for a near miss.
fn parse_intent(state: &State, text: &str) -> Result<Intent, RuleError> {
    let lower = text.trim().to_ascii_lowercase();
    // A word of letters followed by a number is one word: `corner 1`,
    // `f 8`, `r 90` (but `draw` is a word of its own).
    let mut words: Vec<String> = Vec::new();
    for w in lower.split_whitespace() {
        if let Some(last) = words.last_mut()
            && w.bytes().all(|b| b.is_ascii_digit())
            && !last.is_empty()
            && last.bytes().all(|b| b.is_ascii_lowercase())
            && last != "draw"
        {
            last.push_str(w);
            continue;
        }
        words.push(w.to_string());
    }
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let usage = "a move is a disc of your hand, the square of its first field and a rotation, \
                 e.g. `corner1 f8 r90` (add `draw SHAPE` when that shape's stack is empty and \
                 more than one other stack has discs), or `pass`";
    if words.as_slice() == ["pass"] {
        return Ok(Intent::Pass);
    }
    let (place, draw) = match words.iter().position(|w| *w == "draw") {
        Some(i) => {
            let shape = match &words[i + 1..] {
                [s] => Shape::parse(s.trim_end_matches('s')).ok_or_else(|| {
                    let hint = crate::text::did_you_mean(s, Shape::ALL.map(Shape::name))
                        .map(|w| format!("; did you mean `draw {w}`?"))
                        .unwrap_or_default();
                    RuleError::notation(
                        "notation",
                        format!(
                            "`draw {}`: the stacks are corner, three, two and one{hint}",
                            crate::text::excerpt(s)
                        ),
                    )
                })?,
                _ => {
                    return Err(RuleError::notation(
                        "notation",
                        format!(
                            "`{}`: `draw` takes one shape (corner, three, two or one) at the end",
                            crate::text::excerpt(text.trim())
                        ),
                    ));
                }
            };
            (&words[..i], Some(shape))
        }
        None => (&words[..], None),
    };
    let (disc_word, at_word, rot_word) = match place {
        [d, a] => (*d, *a, None),
        [d, a, r] => (*d, *a, Some(*r)),
        _ => {
            let hint = match place {
                [w] => crate::text::did_you_mean(w, ["pass"])
                    .map(|w| format!("; did you mean `{w}`?"))
                    .unwrap_or_default(),
                _ => String::new(),
            };
            return Err(RuleError::notation(
                "notation",
                format!(
                    "`{}` is not a move; {usage}{hint}",
                    crate::text::excerpt(text.trim())
                ),
            ));
        }
    };
    let seat = state.to_move.ok_or_else(|| {
        RuleError::illegal("over", "the game is over; nothing more can be played")
    })?;
    let name = parse_disc_name(state, seat, disc_word)?;
    let at = Sq::parse(at_word).ok_or_else(|| {
        RuleError::notation(
            "notation",
            format!(
                "`{}` is not a square; squares are a1 to l12 (column a-l, row 1-12)",
                crate::text::excerpt(at_word)
            ),
        )
    })?;
    let rotation = match rot_word {
        None => Rotation::R0,
        Some(r) => ["0", "90", "180", "270"]
            .iter()
            .position(|d| *d == r.strip_prefix('r').unwrap_or(r))
            .map(|i| Rotation::ALL[i])
            .ok_or_else(|| {
                RuleError::notation(
                    "notation",
                    format!(
                        "`{}` is not a rotation; write r0, r90, r180 or r270 (clockwise)",
                        crate::text::excerpt(r)
                    ),
                )
            })?,
    };
    let (disc, name) = name;
    // A single field is the same at every turn: say r90 or nothing.
    let rotation = if name.0 == Shape::One {
        Rotation::R0
    } else {
        rotation
    };
    Ok(Intent::Place {
        name,
        placement: Placement { disc, at, rotation },
        draw,
    })
}

/// A disc of the hand by its name: `corner2`, or `corner` when the hand
/// holds one corner. A name the hand does not have is a notation error
/// (rule `hand`): the names are the hand's, as the view shows them.
fn parse_disc_name(
    state: &State,
    seat: Seat,
    word: &str,
) -> Result<(DiscId, (Shape, usize)), RuleError> {
    let split = word
        .find(|c: char| c.is_ascii_digit())
        .unwrap_or(word.len());
    let (shape_word, num) = word.split_at(split);
    let names = state.hand_names(seat);
    let written: Vec<String> = names.iter().map(|(_, (s, k))| format!("{s}{k}")).collect();
    let hand_text = || written.join(", ");
    // A slip in the name (`cornr1`), or in the shape of a name the hand
    // has (`thre` for the one three, `tow2`).
    let hint = || {
        let guess = crate::text::did_you_mean(word, written.iter().map(String::as_str))
            .map(str::to_string)
            .or_else(|| {
                let shape = crate::text::did_you_mean(shape_word, Shape::ALL.map(Shape::name))?;
                let full = match (num, written.iter().filter(|w| w.starts_with(shape)).count()) {
                    ("", 1) => format!("{shape}1"),
                    _ => format!("{shape}{num}"),
                };
                written.contains(&full).then_some(full)
            });
        guess
            .map(|w| format!("; did you mean `{w}`?"))
            .unwrap_or_default()
    };
    let Some(shape) = Shape::parse(shape_word) else {
        return Err(RuleError::notation(
            "notation",
            format!(
                "`{}` is not a disc of your hand; your hand: {}{}",
                crate::text::excerpt(word),
                hand_text(),
                hint()
            ),
        ));
    };
    let of_shape: Vec<_> = names.iter().filter(|(_, (s, _))| *s == shape).collect();
    let k = if num.is_empty() {
        match of_shape.len() {
            1 => 1,
            0 => {
                return Err(RuleError::notation(
                    "hand",
                    format!(
                        "your hand holds no {shape} disc; your hand: {}",
                        hand_text()
                    ),
                ));
            }
            n => {
                return Err(RuleError::notation(
                    "hand",
                    format!(
                        "your hand holds {n} {shape} discs; say which, e.g. `{shape}1` (your hand: {})",
                        hand_text()
                    ),
                ));
            }
        }
    } else if num.starts_with('0') || !num.bytes().all(|b| b.is_ascii_digit()) {
        usize::MAX
    } else {
        num.parse::<usize>().unwrap_or(usize::MAX)
    };
    of_shape
        .iter()
        .find(|(_, (_, j))| *j == k)
        .map(|(d, n)| (*d, *n))
        .ok_or_else(|| {
            RuleError::notation(
                "hand",
                format!(
                    "your hand has no `{}`; your hand: {}{}",
                    crate::text::excerpt(word),
                    hand_text(),
                    hint()
                ),
            )
        })
}
