//! Invariants of random games with 2, 3 and 4 players on every kind of
//! map: the fast list of legal placements against a check of every disc ×
//! square × rotation, `pass` offered exactly when nothing fits, the turn
//! rule, and the scores against an independent recount of the whole game
//! (own model of the map, own flood fill, own bonus rule).

use proptest::prelude::*;

use super::data::{Square, Star};
use super::map::{Refusal, SIZE, SQUARES};
use super::*;
use crate::games::{Own, play_own, prelude::*};

type G = StarMap;

const KINDS: [MapChoice; 4] = [
    MapChoice::Random,
    MapChoice::Easy,
    MapChoice::Hard,
    MapChoice::Mixed,
];

fn options(kind: usize) -> Options {
    Options {
        map: KINDS[kind].clone(),
        discs: None,
        parts: None,
    }
}

fn seeded(seed: u64) -> Draw {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_be_bytes());
    Draw::new(bytes)
}

/// Every placement of the seat's hand that `Map::check` accepts, by disc
/// (hand order), rotation (the shape's distinct ones) and square; with
/// `first`, only the first one found. Counts the refusals for a map symbol
/// in `tally`.
fn brute_force(
    state: &State,
    seat: Seat,
    first: bool,
    mut tally: Option<&mut Seen>,
) -> Vec<Placement> {
    let set = state.set();
    let mut out = Vec::new();
    for &disc in state.hand(seat) {
        let d = &set.discs[disc as usize];
        for &rotation in d.shape.rotations() {
            for i in 0..SQUARES {
                let at = Sq(i as u8);
                match state.map().check(d.shape, &d.fields, at, rotation) {
                    Ok(_) => {
                        out.push(Placement { disc, at, rotation });
                        if first {
                            return out;
                        }
                    }
                    Err(refusal) => {
                        if let Some(t) = tally.as_deref_mut() {
                            match refusal {
                                Refusal::Meteorite { .. } => t.meteorite += 1,
                                Refusal::OnlyStar { .. } => t.star_square += 1,
                                Refusal::NotStar { .. } => t.crossed_out += 1,
                                _ => {}
                            }
                        }
                    }
                }
            }
        }
        if d.shape == Shape::One {
            // A single field is the same whichever way it is turned.
            for i in 0..SQUARES {
                let at = Sq(i as u8);
                let r0 = state.map().check(d.shape, &d.fields, at, Rotation::R0);
                for rotation in Rotation::ALL {
                    assert_eq!(
                        state.map().check(d.shape, &d.fields, at, rotation),
                        r0,
                        "a one on {at} turned {rotation}"
                    );
                }
            }
        }
    }
    out
}

/// The model's own geometry: where each field of a shape lies from the
/// first, unrotated (x right, y down), and a quarter turn clockwise.
fn model_squares(shape: Shape, at: Sq, rotation: Rotation) -> Option<Vec<usize>> {
    let offsets: &[(i32, i32)] = match shape {
        Shape::Corner => &[(0, 0), (1, 0), (0, 1)],
        Shape::Three => &[(0, 0), (1, 0), (2, 0)],
        Shape::Two => &[(0, 0), (1, 0)],
        Shape::One => &[(0, 0)],
    };
    let (x0, y0) = ((at.0 % 12) as i32, (at.0 / 12) as i32);
    offsets
        .iter()
        .map(|&(dx, dy)| {
            let (rx, ry) = match rotation.degrees() {
                0 => (dx, dy),
                90 => (-dy, dx),
                180 => (-dx, -dy),
                _ => (dy, -dx),
            };
            let (x, y) = (x0 + rx, y0 + ry);
            ((0..12).contains(&x) && (0..12).contains(&y)).then_some((y * 12 + x) as usize)
        })
        .collect()
}

fn model_neighbours(i: usize) -> impl Iterator<Item = usize> {
    let (x, y) = (i % 12, i / 12);
    [
        (y > 0).then(|| i - 12),
        (x > 0).then(|| i - 1),
        (x < 11).then(|| i + 1),
        (y < 11).then(|| i + 12),
    ]
    .into_iter()
    .flatten()
}

/// The model of the map: what lies on each square (`Some(None)`: an empty
/// field).
type Cells = [Option<Option<Star>>; 144];

/// The size of the group of equal stars holding `from` (a star), and
/// whether it holds each square.
fn model_group(cells: &Cells, from: usize) -> (usize, [bool; 144]) {
    let star = cells[from].flatten().expect("a star");
    let mut seen = [false; 144];
    seen[from] = true;
    let mut todo = vec![from];
    let mut size = 0;
    while let Some(s) = todo.pop() {
        size += 1;
        for n in model_neighbours(s) {
            if !seen[n] && cells[n] == Some(Some(star)) {
                seen[n] = true;
                todo.push(n);
            }
        }
    }
    (size, seen)
}

/// The rules, as the model reads them: whether these fields may go there.
fn model_legal(state: &State, cells: &Cells, fields: &[Option<Star>], squares: &[usize]) -> bool {
    let mut contact = false;
    for (&s, &f) in squares.iter().zip(fields) {
        if cells[s].is_some() {
            return false;
        }
        let ok = match (state.map().square(Sq(s as u8)), f) {
            (Square::Only(star), f) => f == Some(star),
            (Square::Not(star), f) => f != Some(star),
            (Square::Meteorite, f) => f.is_none(),
            _ => true,
        };
        if !ok {
            return false;
        }
        for n in model_neighbours(s) {
            if let Some(other) = cells[n] {
                contact = true;
                if let (Some(a), Some(b)) = (f, other)
                    && a != b
                {
                    return false;
                }
            }
        }
    }
    contact
}

/// What laying these fields scores in the model: each distinct group of
/// equal stars holding one of them with three or more fields scores its
/// size; a star on a bonus square adds the bonus if its own group scores.
fn model_score(state: &State, cells: &Cells, squares: &[usize]) -> i64 {
    let mut counted = [false; 144];
    let mut points = 0;
    for &s in squares {
        if cells[s].flatten().is_none() {
            continue;
        }
        let (size, members) = model_group(cells, s);
        if !counted[s] && size >= 3 {
            points += size as i64;
        }
        for (c, m) in counted.iter_mut().zip(members) {
            *c |= m;
        }
        if let Square::Bonus(b) = state.map().square(Sq(s as u8))
            && size >= 3
        {
            points += i64::from(b);
        }
    }
    points
}

fn fields_of(shape: Shape) -> i64 {
    match shape {
        Shape::Corner | Shape::Three => 3,
        Shape::Two => 2,
        Shape::One => 1,
    }
}

/// The seat that moves after `seat` by the turn rule, found by brute force:
/// the next (cyclically, `seat` itself last) that has a legal placement.
fn model_next(state: &State, seat: Seat) -> Option<Seat> {
    let n = state.seats();
    (1..=n)
        .map(|k| (seat + k) % n)
        .find(|&s| !brute_force(state, s, true, None).is_empty())
}

/// Replays the game's placements on the model, checking each against the
/// model's rules and scores; returns each seat's placement points.
fn recount(state: &State) -> Vec<i64> {
    let set = state.set();
    let mut cells: Cells = [None; 144];
    let (start, rotation) = state.start();
    let elbow = [5 * 12 + 5, 5 * 12 + 6, 6 * 12 + 6, 6 * 12 + 5][rotation.degrees() as usize / 90];
    let squares = model_squares(Shape::Corner, Sq(elbow as u8), rotation).unwrap();
    for (&s, &f) in squares.iter().zip(&set.discs[start as usize].fields) {
        assert!(
            [5 * 12 + 5, 5 * 12 + 6, 6 * 12 + 5, 6 * 12 + 6].contains(&s),
            "the start disc lies in the centre"
        );
        cells[s] = Some(f);
    }
    for c in [5 * 12 + 5, 5 * 12 + 6, 6 * 12 + 5, 6 * 12 + 6] {
        assert_eq!(
            state.map().square(Sq(c)),
            Square::Plain,
            "the centre is plain"
        );
    }
    let mut points = vec![0; state.seats()];
    let mut used = vec![start];
    for m in state.history() {
        let Moved::Placed {
            seat,
            placement,
            squares,
            scored,
            ..
        } = m
        else {
            continue;
        };
        assert!(!used.contains(&placement.disc), "a disc is placed once");
        used.push(placement.disc);
        let d = &set.discs[placement.disc as usize];
        let mine = model_squares(d.shape, placement.at, placement.rotation).expect("on the map");
        assert_eq!(
            squares.iter().map(|s| s.index()).collect::<Vec<_>>(),
            mine,
            "the squares of {placement:?}"
        );
        assert!(
            model_legal(state, &cells, &d.fields, &mine),
            "{placement:?} breaks a rule of the model"
        );
        for (&s, &f) in mine.iter().zip(&d.fields) {
            cells[s] = Some(f);
        }
        let p = model_score(state, &cells, &mine);
        assert_eq!(scored.points, p, "{placement:?} scores");
        points[*seat] += p;
    }
    // The model's map is the engine's.
    for (i, c) in cells.iter().enumerate() {
        assert_eq!(
            state.map().cell(Sq(i as u8)).map(|c| c.field),
            *c,
            "square {}",
            Sq(i as u8)
        );
    }
    points
}

/// What a game went through, to show that the games reach every rule.
#[derive(Clone, Copy, Debug, Default)]
struct Seen {
    placed: usize,
    passes: usize,
    /// Placements that chose the stack to draw from.
    chosen_draws: usize,
    /// Placements after which nothing was left to draw.
    no_draw: usize,
    /// Placements scoring two groups or more.
    two_groups: usize,
    bonuses_earned: usize,
    bonuses_lost: usize,
    /// Discs left in hands at the end.
    left_in_hands: usize,
    /// Refusals seen by the brute force, by rule.
    meteorite: usize,
    star_square: usize,
    crossed_out: usize,
}

impl std::ops::AddAssign for Seen {
    fn add_assign(&mut self, o: Seen) {
        self.placed += o.placed;
        self.passes += o.passes;
        self.chosen_draws += o.chosen_draws;
        self.no_draw += o.no_draw;
        self.two_groups += o.two_groups;
        self.bonuses_earned += o.bonuses_earned;
        self.bonuses_lost += o.bonuses_lost;
        self.left_in_hands += o.left_in_hands;
        self.meteorite += o.meteorite;
        self.star_square += o.star_square;
        self.crossed_out += o.crossed_out;
    }
}

/// Plays a random game to its end, checking every turn.
fn random_game(seats: usize, kind: usize, seed: u64) -> Seen {
    let options = options(kind);
    let mut draw = seeded(seed);
    let mut state = G::setup(&options, seats, &mut draw).unwrap();
    assert_eq!(state.to_move(), model_next(&state, seats - 1));
    let bound = G::max_entries(&options, seats);
    let mut at = 1u64;
    let mut seen = Seen::default();
    loop {
        resolve_draws(&mut state, &mut draw);
        let seat = match G::turn(&state) {
            Turn::Over => break,
            Turn::Move(s) => s,
            Turn::Reveal(..) => unreachable!("Star Map hides nothing"),
        };
        assert!(at <= bound, "more than max_entries = {bound} moves");
        let mut intents = checked_intents(&state, seat, &mut seen);
        let intent = intents.swap_remove(draw.below(intents.len()));
        let stacks = Shape::ALL.map(|s| state.stack_left(s));
        play_own::<G>(&mut state, seat, &intent, &mut Own::default(), at).unwrap();
        check_after_placement(&state, seat, &intent, stacks);
        at += 1;
    }
    let (placed, in_hands) = check_the_end(&state);
    check_scores(&state);
    seen.placed = placed;
    seen.passes = state.history().len() - placed;
    seen.left_in_hands = in_hands;
    tally(&state, &mut seen);
    seen
}

/// Resolves the draws pending; each gives its causer a disc of the shape
/// it draws.
fn resolve_draws(state: &mut State, draw: &mut Draw) {
    for e in G::pending(state) {
        let p = state.pending_draw().unwrap();
        let before = state.hand(p.causer).len();
        G::resolve(state, e.id, draw).unwrap();
        // The causer gets a disc of the shape it draws.
        let hand = state.hand(p.causer);
        assert_eq!(hand.len(), before + 1);
        let got = state.set().discs[*hand.last().unwrap() as usize].shape;
        assert_eq!(got, p.shape, "the drawn disc's shape");
    }
}

/// The intents of `seat`, checked against the brute force: the same
/// placements, in the same order, and `pass` exactly when none fits.
fn checked_intents(state: &State, seat: Seat, seen: &mut Seen) -> Vec<Intent> {
    let seats = state.seats();
    let legal = state.placements(seat);
    let brute = brute_force(state, seat, false, Some(seen));
    let set_of = |v: &[Placement]| v.iter().copied().collect::<std::collections::BTreeSet<_>>();
    assert_eq!(set_of(&legal), set_of(&brute), "legal placements as sets");
    assert_eq!(legal.len(), set_of(&legal).len(), "no placement twice");
    assert_eq!(legal, brute, "by disc (hand order), rotation, square");
    let intents = G::intents(state, seat, &Own::default());
    assert_eq!(
        intents == [Intent::Pass],
        brute.is_empty(),
        "`pass` exactly when nothing fits"
    );
    for others in (0..seats).filter(|&s| s != seat) {
        assert!(G::intents(state, others, &Own::default()).is_empty());
    }
    intents
}

/// After `seat` played `intent`: the draw and who moves next (`stacks`:
/// the stacks before).
fn check_after_placement(state: &State, seat: Seat, intent: &Intent, stacks: [usize; 4]) {
    let seats = state.seats();
    // The draw: the placed disc's shape while its stack lasts, else a
    // chosen stack with discs, else nothing.
    if let Some(Moved::Placed {
        placement, draw: d, ..
    }) = state.history().last()
    {
        let shape = state.set().discs[placement.disc as usize].shape;
        match d {
            _ if stacks[shape.index()] > 0 => assert_eq!(*d, Some(shape)),
            None => assert_eq!(stacks, [0; 4], "no draw with discs left"),
            Some(other) => assert!(stacks[other.index()] > 0, "a draw from an empty stack"),
        }
    }
    // The turn rule: after a placement that draws, the next seat must
    // write an entry; otherwise the next seat that can place moves.
    let expected = match state.history().last() {
        Some(Moved::Placed { draw: Some(_), .. }) => {
            assert!(state.pending_draw().is_some());
            Some((seat + 1) % seats)
        }
        _ => {
            assert!(state.pending_draw().is_none());
            model_next(state, seat)
        }
    };
    assert_eq!(state.to_move(), expected, "who moves after {intent}");
}

/// Nobody can place any more, and every disc is somewhere. Returns the
/// discs placed and the discs left in hands.
fn check_the_end(state: &State) -> (usize, usize) {
    let seats = state.seats();
    for s in 0..seats {
        assert!(
            brute_force(state, s, false, None).is_empty(),
            "seat {s} could place"
        );
    }
    let placed = state
        .history()
        .iter()
        .filter(|m| matches!(m, Moved::Placed { .. }))
        .count();
    let in_hands: usize = (0..seats).map(|s| state.hand(s).len()).sum();
    let in_stacks: usize = Shape::ALL.iter().map(|&s| state.stack_left(s)).sum();
    assert_eq!(1 + placed + in_hands + in_stacks, state.set().discs.len());
    (placed, in_hands)
}

/// The scores, the standings and the ranks against the recount.
fn check_scores(state: &State) {
    let seats = state.seats();
    let points = recount(state);
    let own: Vec<i64> = (0..seats)
        .map(|s| {
            let minus: i64 = state
                .hand(s)
                .iter()
                .map(|&d| fields_of(state.set().discs[d as usize].shape))
                .sum();
            assert_eq!(state.placement_points(s), points[s]);
            assert_eq!(state.hand_fields(s), minus);
            points[s] - minus
        })
        .collect();
    let scores: Vec<i64> = (0..seats)
        .map(|s| {
            assert_eq!(state.own_score(s), own[s], "seat {s}'s own score");
            if seats == 4 {
                own[s % 2] + own[s % 2 + 2]
            } else {
                own[s]
            }
        })
        .collect();
    let standings = G::standings(state);
    assert_eq!(standings.len(), seats);
    let mut rows = vec![false; seats];
    for row in &standings {
        assert!(
            !std::mem::replace(&mut rows[row.seat], true),
            "one row a seat"
        );
        assert_eq!(row.score, scores[row.seat], "seat {}'s score", row.seat);
        assert_eq!(state.score(row.seat), scores[row.seat]);
        // Teams rank as teams: a team's rank counts the teams ahead of it.
        let better = if seats == 4 {
            (0..2).filter(|&t| scores[t] > scores[row.seat]).count()
        } else {
            scores.iter().filter(|&&x| x > scores[row.seat]).count()
        };
        assert_eq!(row.rank as usize, 1 + better, "seat {}'s rank", row.seat);
        assert_eq!(row.team, (seats == 4).then_some((row.seat % 2) as u32));
    }
    assert!(
        standings.windows(2).all(|w| w[0].rank <= w[1].rank),
        "best first"
    );
    if seats == 4 {
        let rank = |s: Seat| standings.iter().find(|r| r.seat == s).unwrap().rank;
        assert_eq!(rank(0), rank(2), "partners share a rank");
        assert_eq!(rank(1), rank(3), "partners share a rank");
    }
}

/// What the game showed, for the coverage counts.
fn tally(state: &State, seen: &mut Seen) {
    for m in state.history() {
        if let Moved::Placed {
            scored,
            draw,
            placement,
            ..
        } = m
        {
            let shape = state.set().discs[placement.disc as usize].shape;
            seen.chosen_draws += usize::from(draw.is_some_and(|d| d != shape));
            seen.no_draw += usize::from(draw.is_none());
            seen.two_groups += usize::from(scored.groups.len() >= 2);
            seen.bonuses_earned += scored.bonuses.iter().filter(|b| b.earned).count();
            seen.bonuses_lost += scored.bonuses.iter().filter(|b| !b.earned).count();
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn random_games_list_placements_keep_turns_and_score_right(
        seats in 2usize..=4,
        kind in 0usize..4,
        seed in any::<u64>(),
    ) {
        let seen = random_game(seats, kind, seed);
        prop_assert!(seen.placed >= 1);
    }
}

/// Every seat count on every kind of map, at fixed seeds.
#[test]
fn every_seat_count_on_every_map_kind() {
    let mut all = Seen::default();
    for seats in 2..=4 {
        for (kind, map) in KINDS.iter().enumerate() {
            let seen = random_game(seats, kind, (seats * 10 + kind) as u64);
            eprintln!("{seats} players, {map:?}: {seen:?}");
            all += seen;
        }
    }
    eprintln!("all: {all:?}");
    // These games reach every rule: passes, chosen and missing draws, two
    // groups at once, bonuses earned and lost, every map symbol refusing.
    let Seen {
        placed,
        passes,
        chosen_draws,
        no_draw,
        two_groups,
        bonuses_earned,
        bonuses_lost,
        left_in_hands,
        meteorite,
        star_square,
        crossed_out,
    } = all;
    for (what, n) in [
        ("placed", placed),
        ("passes", passes),
        ("chosen_draws", chosen_draws),
        ("no_draw", no_draw),
        ("two_groups", two_groups),
        ("bonuses_earned", bonuses_earned),
        ("bonuses_lost", bonuses_lost),
        ("left_in_hands", left_in_hands),
        ("meteorite", meteorite),
        ("star_square", star_square),
        ("crossed_out", crossed_out),
    ] {
        assert!(n > 0, "no game had any {what}");
    }
}

#[test]
fn the_model_geometry_matches_the_engine() {
    for shape in Shape::ALL {
        for rotation in Rotation::ALL {
            for i in 0..SQUARES {
                let at = Sq(i as u8);
                let engine = Map::squares_of(shape, at, rotation)
                    .map(|v| v.iter().map(|s| s.index()).collect::<Vec<_>>());
                assert_eq!(engine, model_squares(shape, at, rotation));
            }
        }
    }
    assert_eq!(SIZE, 12);
}
