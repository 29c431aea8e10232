//! What a player (or a spectator) sees: the map with its squares and discs,
//! every hand face up, the stacks, the scores and whose turn it is. Nothing
//! in Star Map is hidden, so every viewer sees the same but for `viewer`.

use schemars::JsonSchema;
use serde::Serialize;

use super::data::{DiscId, Rotation, Set, Shape, Square, StarSymbol};
use super::map::{Layout, SIZE, Scored, Sq};
use super::{Moved, State};
use crate::games::{Seat, Withdrawal};

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct View {
    /// The seat this view is for (null: a spectator). Seats are 0-based (see docs/json.md).
    pub viewer: Option<Seat>,
    pub layout: Layout,
    /// The star symbols, in set order: a star's index here is its number.
    pub stars: Vec<StarSymbol>,
    /// All 144 squares in reading order (a1, b1, …, l1, a2, …, l12).
    pub squares: Vec<SquareView>,
    /// The start disc.
    pub start: DiscView,
    /// Every seat's hand, in seat order (hands are face up).
    pub hands: Vec<Vec<HandDisc>>,
    pub stacks: Vec<StackView>,
    /// A disc being drawn: its stack, for the seat that placed last, until
    /// the next seat's entry.
    pub pending: Option<PendingView>,
    pub scores: Vec<ScoreView>,
    /// With four players: the two teams' scores.
    pub teams: Vec<TeamView>,
    /// The last move.
    pub last: Option<LastMove>,
    /// The seat to move (null: the game is over). Seats are 0-based (see docs/json.md).
    pub turn: Option<Seat>,
    /// How many legal placements the seat to move has (0: it must pass).
    pub placements: usize,
    /// How many moves the seat to move has, as `starry moves` lists them:
    /// a placement once for each stack it may choose to draw from (when its
    /// own stack is empty), a pass as one move.
    pub legal_moves: usize,
    pub over: bool,
    /// The seat that resigned or was abandoned, ending the game.
    pub withdrawn: Option<WithdrawnView>,
    /// How many moves (placements and passes) were made.
    pub moves: usize,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct WithdrawnView {
    /// The seat, 0-based (see docs/json.md).
    pub seat: Seat,
    pub how: Withdrawal,
}

/// What a square asks of the field placed on it.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum SquareKind {
    Plain,
    Bonus {
        points: u8,
    },
    /// Only this star (its code).
    Only {
        star: char,
    },
    /// Anything but this star.
    Not {
        star: char,
    },
    Meteorite,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct SquareView {
    pub at: Sq,
    #[serde(flatten)]
    pub kind: SquareKind,
    /// The field lying on it, if any.
    pub covered: Option<Covered>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Covered {
    pub disc: DiscId,
    /// The star's code, or null for an empty field.
    pub star: Option<char>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct DiscView {
    pub disc: DiscId,
    pub shape: Shape,
    /// The fields in field order: star codes, `.` for an empty field.
    pub fields: String,
    pub rotation: Rotation,
    pub squares: Vec<Sq>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct HandDisc {
    /// How a move names it: `corner1`, `two2`.
    pub name: String,
    pub disc: DiscId,
    pub shape: Shape,
    /// The fields in field order: star codes, `.` for an empty field.
    pub fields: String,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct StackView {
    pub shape: Shape,
    /// Discs left to draw (one promised to a pending draw not counted).
    pub left: usize,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct PendingView {
    /// The seat, 0-based (see docs/json.md).
    pub seat: Seat,
    pub shape: Shape,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ScoreView {
    /// The seat, 0-based (see docs/json.md).
    pub seat: Seat,
    /// Points scored by placing.
    pub points: i64,
    /// Minus points of the discs in hand (counted once the game is over).
    pub minus: i64,
    /// Points less minus points once the game is over.
    pub score: i64,
    /// The seat's team with four players, 0-based (see docs/json.md): team
    /// 0 is seats 0 and 2, team 1 seats 1 and 3.
    pub team: Option<u32>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct TeamView {
    /// The team, 0-based (see docs/json.md): team 0 is seats 0 and 2, team
    /// 1 seats 1 and 3.
    pub team: u32,
    /// Its two seats, 0-based (see docs/json.md).
    pub seats: Vec<Seat>,
    pub score: i64,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case", tag = "move")]
pub enum LastMove {
    Place {
        /// The seat, 0-based (see docs/json.md).
        seat: Seat,
        disc: DiscId,
        shape: Shape,
        fields: String,
        at: Sq,
        rotation: Rotation,
        squares: Vec<Sq>,
        scored: Scored,
        /// The stack the seat draws from (null: every stack was empty).
        draw: Option<Shape>,
    },
    Pass {
        /// The seat, 0-based (see docs/json.md).
        seat: Seat,
    },
}

fn square_kind(sq: Square, set: &Set) -> SquareKind {
    match sq {
        Square::Plain => SquareKind::Plain,
        Square::Bonus(points) => SquareKind::Bonus { points },
        Square::Only(s) => SquareKind::Only { star: set.code(s) },
        Square::Not(s) => SquareKind::Not { star: set.code(s) },
        Square::Meteorite => SquareKind::Meteorite,
    }
}

pub fn build(state: &State, viewer: Option<Seat>) -> View {
    let set = state.set();
    let squares = (0..SIZE * SIZE)
        .map(|i| {
            let at = Sq(i as u8);
            SquareView {
                at,
                kind: square_kind(state.map().square(at), set),
                covered: state.map().cell(at).map(|c| Covered {
                    disc: c.disc,
                    star: c.field.map(|s| set.code(s)),
                }),
            }
        })
        .collect();
    let (start, rotation) = state.start();
    let start_squares = (0..SIZE * SIZE)
        .map(|i| Sq(i as u8))
        .filter(|&s| state.map().cell(s).is_some_and(|c| c.disc == start))
        .collect();
    let hands = (0..state.seats())
        .map(|seat| {
            state
                .hand_names(seat)
                .into_iter()
                .map(|(disc, (shape, k))| HandDisc {
                    name: format!("{shape}{k}"),
                    disc,
                    shape,
                    fields: state.fields_text(disc),
                })
                .collect()
        })
        .collect();
    let scores = (0..state.seats())
        .map(|seat| ScoreView {
            seat,
            points: state.placement_points(seat),
            minus: state.hand_fields(seat),
            score: state.own_score(seat),
            team: state.team_of(seat),
        })
        .collect();
    let teams = if state.seats() == 4 {
        (0..2)
            .map(|t| TeamView {
                team: t,
                seats: vec![t as usize, t as usize + 2],
                score: state.score(t as usize),
            })
            .collect()
    } else {
        Vec::new()
    };
    let last = state.history().last().map(|m| match m {
        Moved::Placed {
            seat,
            placement,
            squares,
            scored,
            draw,
        } => LastMove::Place {
            seat: *seat,
            disc: placement.disc,
            shape: set.discs[placement.disc as usize].shape,
            fields: state.fields_text(placement.disc),
            at: placement.at,
            rotation: placement.rotation,
            squares: squares.clone(),
            scored: scored.clone(),
            draw: *draw,
        },
        Moved::Passed { seat } => LastMove::Pass { seat: *seat },
    });
    View {
        viewer,
        layout: state.layout().clone(),
        stars: set.stars.clone(),
        squares,
        start: DiscView {
            disc: start,
            shape: Shape::Corner,
            fields: state.fields_text(start),
            rotation,
            squares: start_squares,
        },
        hands,
        stacks: Shape::ALL
            .into_iter()
            .map(|shape| StackView {
                shape,
                left: state.stack_left(shape),
            })
            .collect(),
        pending: state.pending_draw().map(|p| PendingView {
            seat: p.causer,
            shape: p.shape,
        }),
        scores,
        teams,
        last,
        turn: state.to_move(),
        placements: state.to_move().map_or(0, |s| state.placements(s).len()),
        legal_moves: state.to_move().map_or(0, |s| legal_moves(state, s)),
        over: state.is_over(),
        withdrawn: state
            .withdrawn()
            .map(|(seat, how)| WithdrawnView { seat, how }),
        moves: state.history().len(),
    }
}

/// The moves of `seat` as [`StarMap::intents`](super::StarMap) lists them,
/// counted without listing them.
fn legal_moves(state: &State, seat: Seat) -> usize {
    let placements = state.placements(seat);
    if placements.is_empty() {
        return 1;
    }
    placements
        .iter()
        .map(|p| {
            let shape = state.set().discs[p.disc as usize].shape;
            state.draw_choices(shape).len().max(1)
        })
        .sum()
}

/// What a placement scored, for the move list and mails:
/// `, 10 points (red 4, blue 3, +3 f9, +2 g9 lost)` or `, 0 points`.
pub fn scored_text(set: &Set, scored: &Scored) -> String {
    let mut parts: Vec<String> = scored
        .groups
        .iter()
        .map(|g| format!("{} {}", set.star_name(g.star), g.squares.len()))
        .collect();
    for b in &scored.bonuses {
        parts.push(format!(
            "+{} {}{}",
            b.points,
            b.square,
            if b.earned { "" } else { " lost" }
        ));
    }
    let detail = if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(", "))
    };
    let unit = if scored.points == 1 {
        "point"
    } else {
        "points"
    };
    format!(", {} {unit}{detail}", scored.points)
}

fn name_of(names: &[String], seat: Seat) -> String {
    names
        .get(seat)
        .cloned()
        .unwrap_or_else(|| format!("seat {seat}"))
}

/// A square as three characters: `[R]` a placed star (`(R)` on the last
/// disc), `[ ]` a placed empty field, ` . ` plain, `+2 ` a bonus, `=R ` only
/// red, `!R ` no red, ` # ` a meteorite.
fn cell_text(v: &View, s: &SquareView, last: &[Sq]) -> String {
    if let Some(c) = &s.covered {
        let ch = c.star.unwrap_or(' ');
        return if last.contains(&s.at) {
            format!("({ch})")
        } else {
            format!("[{ch}]")
        };
    }
    let _ = v;
    match &s.kind {
        SquareKind::Plain => " . ".into(),
        SquareKind::Bonus { points } => format!("+{points} "),
        SquareKind::Only { star } => format!("={star} "),
        SquareKind::Not { star } => format!("!{star} "),
        SquareKind::Meteorite => " # ".into(),
    }
}

/// A disc drawn unturned, as rows of text: its first field at the top left.
fn disc_rows(shape: Shape, fields: &str) -> Vec<String> {
    let cell = |c: char| {
        if c == '.' {
            "[ ]".to_string()
        } else {
            format!("[{c}]")
        }
    };
    let f: Vec<String> = fields.chars().map(cell).collect();
    match (shape, f.as_slice()) {
        (Shape::Corner, [elbow, right, below]) => vec![format!("{elbow}{right}"), below.clone()],
        _ => vec![f.concat()],
    }
}

/// Renders a view for a terminal, in at most 80 columns: the map and the
/// hands are narrower, and longer lines of prose are wrapped.
pub fn render(v: &View, names: &[String]) -> String {
    render_wide(v, names)
        .lines()
        .map(|line| {
            if line.chars().count() > 80 {
                crate::text::wrap(line, 80, "  ")
            } else {
                line.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

fn render_wide(v: &View, names: &[String]) -> String {
    let mut out = String::new();
    let last_squares: Vec<Sq> = match &v.last {
        Some(LastMove::Place { squares, .. }) => squares.clone(),
        _ => Vec::new(),
    };
    out.push_str("Star Map");
    if let Some(s) = v.viewer {
        out.push_str(&format!(" — the view of {}", name_of(names, s)));
    }
    out.push_str("\n\n     ");
    for (x, c) in ('a'..='l').enumerate() {
        out.push_str(&format!(" {c} "));
        out.push(if x % 3 == 2 && x < SIZE - 1 { '|' } else { ' ' });
    }
    out.push('\n');
    let rule = format!("    +{}\n", "-".repeat(SIZE * 4 - 1));
    out.push_str(&rule);
    for y in 0..SIZE {
        out.push_str(&format!("{:>3} |", y + 1));
        for x in 0..SIZE {
            let s = &v.squares[y * SIZE + x];
            out.push_str(&cell_text(v, s, &last_squares));
            if x < SIZE - 1 {
                out.push(if x % 3 == 2 { '|' } else { ' ' });
            }
        }
        out.push_str(&format!("| {}\n", y + 1));
        if y % 3 == 2 {
            out.push_str(&rule);
        }
    }
    out.push_str("\nStars: ");
    out.push_str(
        &v.stars
            .iter()
            .map(|s| format!("{} {}", s.code, s.name))
            .collect::<Vec<_>>()
            .join(", "),
    );
    // The legend's example star is the set's first (R in the shipped set).
    let c = v.stars.first().map_or('R', |s| s.code);
    out.push_str(&format!(
        ".\nOn the map: [{c}] a placed field, [ ] an empty field, ({c}) the last disc, +2 a\n\
         bonus, ={c} only that star, !{c} not that star, # a meteorite (only an empty field).\n"
    ));
    out.push_str(&format!("Parts: {}.\n", v.layout));

    out.push_str("\nHands (discs drawn unturned, r0: the first field is the top-left one):\n");
    for (seat, hand) in v.hands.iter().enumerate() {
        let score = &v.scores[seat];
        let mut head = format!("{} (seat {seat})", name_of(names, seat));
        if let Some(t) = score.team {
            head.push_str(&format!(", team {t}"));
        }
        head.push_str(&format!(
            ": {}",
            crate::text::count(score.points, "point", "points")
        ));
        if v.over && score.minus > 0 {
            head.push_str(&format!(
                ", minus {} in hand = {}",
                score.minus, score.score
            ));
        }
        if v.turn == Some(seat) {
            head.push_str("  <- to move");
        }
        out.push_str(&format!("  {}\n", crate::text::inline(&head)));
        if hand.is_empty() {
            out.push_str("    (no discs)\n");
            continue;
        }
        let blocks: Vec<(String, Vec<String>)> = hand
            .iter()
            .map(|d| (d.name.clone(), disc_rows(d.shape, &d.fields)))
            .collect();
        let widths: Vec<usize> = blocks
            .iter()
            .map(|(n, rows)| n.len().max(rows.iter().map(|r| r.len()).max().unwrap_or(0)))
            .collect();
        let mut line = String::from("   ");
        for ((n, _), w) in blocks.iter().zip(&widths) {
            line.push_str(&format!(" {n:<w$}"));
        }
        out.push_str(line.trim_end());
        out.push('\n');
        for row in 0..2 {
            let mut line = String::from("   ");
            let mut any = false;
            for ((_, rows), w) in blocks.iter().zip(&widths) {
                let r = rows.get(row).map_or("", String::as_str);
                any |= !r.is_empty();
                line.push_str(&format!(" {r:<w$}"));
            }
            if any {
                out.push_str(line.trim_end());
                out.push('\n');
            }
        }
    }
    if !v.teams.is_empty() {
        out.push_str("\nTeams: ");
        out.push_str(
            &v.teams
                .iter()
                .map(|t| {
                    format!(
                        "{} + {}: {}",
                        crate::text::inline(&name_of(names, t.seats[0])),
                        crate::text::inline(&name_of(names, t.seats[1])),
                        t.score
                    )
                })
                .collect::<Vec<_>>()
                .join("; "),
        );
        out.push('\n');
    }
    out.push_str("\nStacks: ");
    out.push_str(
        &v.stacks
            .iter()
            .map(|s| format!("{} {}", s.shape, s.left))
            .collect::<Vec<_>>()
            .join(", "),
    );
    if let Some(p) = &v.pending {
        out.push_str(&format!(
            "; {} is drawing a {} (pending until the next player moves)",
            crate::text::inline(&name_of(names, p.seat)),
            p.shape
        ));
    }
    out.push_str(".\n");
    if let Some(last) = &v.last {
        let text = match last {
            LastMove::Place {
                seat,
                shape,
                fields,
                at,
                rotation,
                scored,
                ..
            } => {
                let mut t = format!(
                    "{} placed a {shape} {fields} on {at}{}",
                    name_of(names, *seat),
                    rotation_text(*shape, *rotation)
                );
                t.push_str(&scored_text_codes(v, scored));
                t
            }
            LastMove::Pass { seat } => {
                format!(
                    "{} had no legal placement and passed",
                    name_of(names, *seat)
                )
            }
        };
        out.push_str(&format!("Last move: {}.\n", crate::text::inline(&text)));
    }
    match (v.turn, &v.withdrawn) {
        (_, Some(w)) => out.push_str(&format!(
            "The game is over: {} {}.\n",
            crate::text::inline(&name_of(names, w.seat)),
            match w.how {
                Withdrawal::Resigned => "resigned",
                Withdrawal::Abandoned => "stopped answering",
            }
        )),
        (Some(s), None) if v.placements == 0 => out.push_str(&format!(
            "{} cannot place any disc and must pass.\n",
            crate::text::inline(&name_of(names, s))
        )),
        (Some(s), None) => out.push_str(&format!(
            "{} to move ({} legal placement{}{}).\n",
            crate::text::inline(&name_of(names, s)),
            v.placements,
            if v.placements == 1 { "" } else { "s" },
            // `starry moves` lists a placement once per stack it may draw
            // from: say its count too when that differs.
            if v.legal_moves == v.placements {
                String::new()
            } else {
                format!(
                    "; {} moves, with the choice of the stack to draw from",
                    v.legal_moves
                )
            }
        )),
        (None, None) => out.push_str(
            "The game is over: nobody can place a disc. Discs left in hand count minus.\n",
        ),
    }
    out
}

/// [`scored_text`] for a view, whose stars are known by code.
fn scored_text_codes(v: &View, scored: &Scored) -> String {
    let set = Set {
        stars: v.stars.clone(),
        discs: Vec::new(),
        parts: Vec::new(),
    };
    scored_text(&set, scored)
}

/// ` r90`, or nothing for a single field, which every rotation leaves the
/// same.
pub fn rotation_text(shape: Shape, rotation: Rotation) -> String {
    if shape == Shape::One {
        String::new()
    } else {
        format!(" {rotation}")
    }
}
