//! Hand-drawn positions with hand-checked results. Coordinates are `x,y`
//! with y growing downwards; stars are labelled in reading order.

use super::*;
use crate::games::{Context, Own, prelude::*};

type G = StarryNight;

fn sky(stars: &[(i32, i32)]) -> State {
    let stars: Vec<Point> = stars.iter().map(|&(x, y)| Point(x, y)).collect();
    let width = stars.iter().map(|p| p.0).max().unwrap() as u32 + 1;
    let height = stars.iter().map(|p| p.1).max().unwrap() as u32 + 1;
    let options = Options {
        sky: Sky::Stars {
            width,
            height,
            stars,
        },
        score: Score::Count,
    };
    G::setup(&options, 2, &mut Draw::new([0; 32])).unwrap()
}

fn ctx(seat: Seat) -> Context<Nothing> {
    Context {
        seat,
        at: 0,
        commitments: 0,
        reveals: Vec::new(),
    }
}

/// Plays `moves` in notation, each by whoever must act.
fn try_play(state: &mut State, mv: &str) -> Result<(), RuleError> {
    let seat = state.to_act().expect("the game goes on");
    let intent = G::parse_intent(state, mv)?;
    let sealed = G::seal(state, seat, &intent, &Own::default())?;
    G::play(state, &ctx(seat), &sealed.action)
}

/// A sky with seat 0 to move first, then `moves`.
fn position(stars: &[(i32, i32)], moves: &[&str]) -> State {
    let mut s = sky(stars);
    try_play(&mut s, "first 0").unwrap();
    for m in moves {
        try_play(&mut s, m).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
    s
}

fn captures(s: &State) -> Vec<(usize, Vec<FaceId>)> {
    s.drawn()
        .iter()
        .map(|d| (d.seat, d.captured.clone()))
        .collect()
}

fn open_seas(s: &State) -> usize {
    s.map()
        .seas()
        .filter(|&f| s.map().face(f).captor.is_none())
        .count()
}

fn refused(s: &mut State, mv: &str) -> String {
    try_play(s, mv).expect_err(mv).detail
}

#[test]
fn a_triangle_is_captured_by_whoever_closes_it() {
    // A(0,0) B(2,0) C(0,2), and D far away keeps the game going.
    let mut s = position(&[(0, 0), (2, 0), (0, 2), (5, 5)], &["A-B", "B-C", "C-A"]);
    assert_eq!(s.scores(), [1, 0]);
    assert_eq!(
        s.captured()[0],
        (1, 4),
        "one sea of area 2, in half squares 4"
    );
    assert!(!s.is_over(), "D is isolated");
    try_play(&mut s, "D-B").unwrap();
    assert!(s.is_over());
    assert_eq!(G::standings(&s)[0].seat, 0);
}

#[test]
fn a_v_around_a_star_is_open_until_the_star_becomes_a_peninsula() {
    // A(0,0) B(4,0) C(1,1) inside, D(0,4).
    let mut s = position(&[(0, 0), (4, 0), (1, 1), (0, 4)], &["A-B", "A-D", "B-D"]);
    assert_eq!(s.scores(), [0, 0], "the sea holds island C");
    assert_eq!(open_seas(&s), 1);
    let sea = s.map().seas().next().unwrap();
    assert_eq!(s.map().islands(sea), vec![2]);
    // The second player joins the island to the border and captures.
    try_play(&mut s, "C-A").unwrap();
    assert_eq!(s.scores(), [0, 1]);
    assert!(s.is_over(), "no star is isolated");
    assert_eq!(G::standings(&s)[0].seat, 1);
}

#[test]
fn the_z_trade() {
    // A(0,0) B(4,0) / C(0,2) D(4,2): two parallel edges and a diagonal.
    let mut s = position(
        &[(0, 0), (4, 0), (0, 2), (4, 2), (8, 8)],
        &["A-B", "C-D", "A-D"],
    );
    try_play(&mut s, "A-C").unwrap();
    assert_eq!(
        s.scores(),
        [0, 1],
        "the second player takes one side of the Z"
    );
    try_play(&mut s, "B-D").unwrap();
    assert_eq!(s.scores(), [1, 1], "the first takes the other");
    assert!(!s.is_over(), "E is still isolated");
}

/// A 6×6 square A(0,0) B(6,0) G(6,6) F(0,6) around a triangle C(2,2) D(4,2)
/// E(2,4), and H far away to keep the game going.
const NESTED: [(i32, i32); 8] = [
    (0, 0),
    (6, 0),
    (2, 2),
    (4, 2),
    (2, 4),
    (0, 6),
    (6, 6),
    (9, 9),
];

#[test]
fn a_sea_inside_a_sea_and_an_island_enclosing_its_own_sea() {
    // Square A(0,0) B(6,0) G(6,6) F(0,6); triangle C(2,2) D(4,2) E(2,4).
    let stars = NESTED;
    let mut s = position(&stars, &["C-D", "D-E", "E-C"]);
    assert_eq!(s.scores(), [1, 0], "the small triangle is captured at once");
    for m in ["A-B", "B-G", "G-F"] {
        try_play(&mut s, m).unwrap();
    }
    try_play(&mut s, "F-A").unwrap();
    // The big square holds the triangle as an island, whose own edges
    // enclose a captured sea: the big sea stays open.
    assert_eq!(s.scores(), [1, 0]);
    assert_eq!(open_seas(&s), 1);
    let big = s
        .map()
        .seas()
        .find(|&f| s.map().face(f).captor.is_none())
        .unwrap();
    assert_eq!(s.map().islands(big), vec![2]);
    assert_eq!(
        s.map().twice_area(big),
        72 - 4,
        "the island's area is not the sea's"
    );
    try_play(&mut s, "C-A").unwrap();
    assert_eq!(captures(&s).last().unwrap().1, vec![big]);
    assert_eq!(
        s.map().twice_area(big),
        68,
        "a sea with a hole: 36 − 2 squares"
    );
}

#[test]
fn an_edge_splits_an_open_sea_into_a_captured_and_an_open_part() {
    // Square A(0,0) B(4,0) E(4,4) D(0,4) around island C(3,1).
    let mut s = position(
        &[(0, 0), (4, 0), (3, 1), (0, 4), (4, 4)],
        &["A-B", "B-E", "E-D", "D-A"],
    );
    assert_eq!(open_seas(&s), 1);
    try_play(&mut s, "A-E").unwrap();
    // Both halves are new seas; the one without the island is captured.
    let last = s.drawn().last().unwrap();
    assert_eq!(last.captured.len(), 1);
    assert_eq!(open_seas(&s), 1);
    assert_eq!(s.map().seas().count(), 2);
    let open = s
        .map()
        .seas()
        .find(|&f| s.map().face(f).captor.is_none())
        .unwrap();
    assert_eq!(s.map().islands(open), vec![2]);
}

#[test]
fn one_edge_closes_two_seas_but_captures_only_the_empty_one() {
    // A split makes two new seas at once; a sea can only be split while it
    // has an island, and the island lies in one half, so at most one half is
    // captured. Here both halves keep an island: nothing is captured.
    // Square A(0,0) B(6,0) F(6,6) E(0,6); islands C(1,3)... in each half.
    let stars = [(0, 0), (6, 0), (5, 2), (1, 4), (0, 6), (6, 6)];
    // A(0,0) B(6,0) C(5,2) D(1,4) E(0,6) F(6,6)
    let mut s = position(&stars, &["A-B", "B-F", "F-E", "E-A"]);
    try_play(&mut s, "A-F").unwrap();
    assert_eq!(s.map().seas().count(), 2);
    assert_eq!(open_seas(&s), 2, "C lies in one half, D in the other");
    assert!(s.drawn().last().unwrap().captured.is_empty());
}

#[test]
fn collinear_stars_block_an_edge() {
    let mut s = position(&[(0, 0), (2, 0), (4, 0)], &[]);
    assert_eq!(
        refused(&mut s, "A-C"),
        "the edge A-C would pass through star B"
    );
    // A star in the middle of a diagonal.
    let mut s = position(&[(0, 0), (2, 1), (4, 2)], &[]);
    assert_eq!(
        refused(&mut s, "A-C"),
        "the edge A-C would pass through star B"
    );
    assert_eq!(
        refused(&mut s, "0,0-4,2"),
        "the edge A-C would pass through star B"
    );
}

#[test]
fn edges_may_not_cross_or_repeat() {
    // A(0,0) B(2,0) C(0,2) D(2,2)
    let mut s = position(&[(0, 0), (2, 0), (0, 2), (2, 2)], &["A-D"]);
    assert_eq!(
        refused(&mut s, "B-C"),
        "the edge B-C would cross the edge A-D"
    );
    assert_eq!(refused(&mut s, "D-A"), "D and A are joined already");
    assert_eq!(
        refused(&mut s, "A-A"),
        "an edge joins two different stars, not A to itself"
    );
    assert!(refused(&mut s, "A-Q").contains("there is no star `Q`"));
    assert!(refused(&mut s, "9,9-0,0").contains("there is no star at 9,9"));
}

#[test]
fn no_edge_inside_a_captured_sea() {
    // Square A(0,0) B(2,0) C(0,2) D(2,2), E far away.
    let mut s = position(
        &[(0, 0), (2, 0), (0, 2), (2, 2), (5, 5)],
        &["A-B", "B-D", "D-C", "C-A"],
    );
    assert_eq!(s.scores(), [0, 1]);
    assert_eq!(
        refused(&mut s, "A-D"),
        "the edge A-D would lie inside a sea captured by seat 1"
    );
    assert!(!s.map().legal_edges().contains(&(0, 3)));
    assert!(s.map().legal_edges().contains(&(3, 4)), "D-E runs outside");
}

#[test]
fn a_tie_goes_to_the_last_mover() {
    // A path: no sea at all; whoever joins the last isolated star wins 0-0.
    let s = position(&[(0, 0), (2, 0), (4, 1)], &["A-B", "B-C"]);
    assert!(s.is_over());
    assert_eq!(s.scores(), [0, 0]);
    let st = G::standings(&s);
    assert_eq!((st[0].seat, st[0].rank, st[1].rank), (1, 1, 2));
    // The Z trade, then the last isolated star: 1-1, and the second player
    // drew the last edge.
    let s = position(
        &[(0, 0), (4, 0), (0, 2), (4, 2), (8, 8)],
        &["A-B", "C-D", "A-D", "A-C", "B-D", "D-E"],
    );
    assert!(s.is_over());
    assert_eq!(s.scores(), [1, 1]);
    assert_eq!(G::standings(&s)[0].seat, 1);
    assert!(G::view(&s, None, None).result.unwrap().by_last_move);
}

#[test]
fn area_scoring_counts_exact_half_squares() {
    // An L-shaped (non-convex) sea: 4×4 minus a 2×2 corner = 12 squares.
    let stars = [(0, 0), (4, 0), (2, 2), (4, 2), (0, 4), (2, 4), (9, 9)];
    // A(0,0) B(4,0) C(2,2) D(4,2) E(0,4) F(2,4)
    let mut s = sky(&stars);
    s.options.score = Score::Area;
    for m in ["first 1", "A-B", "B-D", "D-C", "C-F", "F-E", "E-A"] {
        try_play(&mut s, m).unwrap();
    }
    assert_eq!(
        s.scores(),
        [24, 0],
        "seat 0 closed it: 12 squares = 24 half squares"
    );
    // A sea with a hole scores without the hole (the sea inside a sea case).
    let stars = NESTED;
    let mut s = sky(&stars);
    s.options.score = Score::Area;
    for m in [
        "first 0", "C-D", "D-E", "E-C", "A-B", "B-G", "G-F", "F-A", "C-A",
    ] {
        try_play(&mut s, m).unwrap();
    }
    // Seat 0 drew C-D, E-C, B-G, F-A; seat 1 drew D-E, A-B, G-F, C-A.
    assert_eq!(s.scores(), [4, 68]);
    assert_eq!(G::standings(&s)[0].seat, 1);
}

#[test]
fn the_chooser_is_the_second_seat_and_may_pick_either() {
    let mut s = sky(&[(0, 0), (2, 0), (0, 2)]);
    assert_eq!(G::turn(&s), Turn::Move(1));
    assert!(refused(&mut s, "A-B").contains("first choose who moves first"));
    try_play(&mut s, "first me").unwrap();
    assert_eq!(G::turn(&s), Turn::Move(1));
    assert_eq!(s.first(), Some(1));
    assert!(refused(&mut s, "first 0").contains("chosen already"));
}

#[test]
fn a_takeback_is_asked_and_answered_one_actor_at_a_time() {
    let stars = [(0, 0), (4, 0), (0, 2), (4, 2), (8, 8)];
    let mut s = position(&stars, &["A-B"]);
    // Seat 1 has no edge of its own yet.
    assert!(refused(&mut s, "takeback").contains("you have drawn no edge yet"));
    try_play(&mut s, "C-D").unwrap();
    let before = G::view(&s, None, None);
    try_play(&mut s, "A-D").unwrap();
    try_play(&mut s, "A-C").unwrap();
    assert_eq!(s.scores(), [0, 1]);
    // Seat 0 asks to take back A-C (seat 1's) and A-D (its own).
    try_play(&mut s, "takeback").unwrap();
    assert_eq!(G::turn(&s), Turn::Move(1));
    assert!(refused(&mut s, "B-D").contains("answer `accept` or `decline` first"));
    try_play(&mut s, "accept").unwrap();
    assert_eq!(G::turn(&s), Turn::Move(0));
    let after = G::view(&s, None, None);
    assert_eq!(after.edges, before.edges);
    assert_eq!(after.seas, before.seas);
    assert_eq!(s.scores(), [0, 0]);
    assert_eq!(s.requests_left(0), TAKEBACKS_PER_SEAT - 1);
    // A declined request leaves everything, and the requester moves.
    try_play(&mut s, "A-D").unwrap();
    try_play(&mut s, "takeback").unwrap();
    try_play(&mut s, "decline").unwrap();
    assert_eq!(G::turn(&s), Turn::Move(1));
    assert_eq!(s.drawn().len(), 3);
    assert!(refused(&mut s, "accept").contains("nobody asked for a takeback"));
}

#[test]
fn takebacks_are_limited() {
    let stars: Vec<(i32, i32)> = (0..8).map(|i| (i * 2, (i * i) % 5)).collect();
    let mut s = position(&stars, &["A-B", "C-D"]);
    for _ in 0..TAKEBACKS_PER_SEAT {
        try_play(&mut s, "C-D").ok();
        try_play(&mut s, "takeback").unwrap();
        try_play(&mut s, "decline").unwrap();
    }
    assert!(refused(&mut s, "takeback").contains("has asked for all of them"));
}

#[test]
fn a_move_must_carry_nothing_hidden() {
    let mut s = position(&[(0, 0), (2, 0), (0, 2)], &[]);
    let mut c = ctx(0);
    c.commitments = 1;
    let action = Action::Edge([Point(0, 0), Point(2, 0)]);
    let e = G::play(&mut s, &c, &action).unwrap_err();
    assert_eq!(
        (e.kind, e.rule),
        (crate::games::RuleErrorKind::Illegal, "commitments")
    );
    // Out of turn.
    let e = G::play(&mut s, &ctx(1), &action).unwrap_err();
    assert_eq!(e.kind, crate::games::RuleErrorKind::OutOfTurn);
}

#[test]
fn notation_accepts_labels_in_any_case_and_points() {
    let s = position(&[(0, 0), (2, 0), (0, 2)], &[]);
    for text in ["A-B", "a-b", " a b ", "0,0-2,0", "0,0 2,0", "A 2,0"] {
        assert_eq!(
            G::parse_intent(&s, text).unwrap(),
            Intent::Edge(0, 1),
            "{text}"
        );
    }
    for text in ["", "A", "A-B-C", "first 3", "0,0-", "3,x-1,1"] {
        let e = G::parse_intent(&s, text).unwrap_err();
        assert_eq!(e.kind, crate::games::RuleErrorKind::Notation, "{text}: {e}");
    }
    // Spacing around the dash and inside a point does not matter, nor case.
    for text in [" a - b ", "A -B", "0, 0 - 2, 0", "0 ,0-2 ,0", "a - 2,0"] {
        assert_eq!(
            G::parse_intent(&s, text).unwrap(),
            Intent::Edge(0, 1),
            "{text}"
        );
    }
    for (text, intent) in [
        ("TAKEBACK", Intent::Takeback(Takeback::Request)),
        (" Take Back ", Intent::Takeback(Takeback::Request)),
        ("Accept", Intent::Takeback(Takeback::Accept)),
        ("DECLINE", Intent::Takeback(Takeback::Decline)),
        ("First 0", Intent::First(Who::Seat(0))),
        ("FIRST ME", Intent::First(Who::Me)),
    ] {
        assert_eq!(G::parse_intent(&s, text).unwrap(), intent, "{text}");
    }
    // Names of nothing here are notation errors, with the near miss named.
    for (text, says) in [
        ("A-Z", "there is no star `Z`; this sky has stars A to C"),
        ("1,1-0,0", "there is no star at 1,1"),
        ("3,0-0,0", "did you mean B at 2,0?"),
        ("takebak", "did you mean `takeback`?"),
        ("acept", "did you mean `accept`?"),
        ("frist 0", "did you mean `first 0`?"),
        ("first 3", "is not a seat"),
    ] {
        let e = G::parse_intent(&s, text).unwrap_err();
        assert_eq!(e.kind, crate::games::RuleErrorKind::Notation, "{text}: {e}");
        assert!(e.detail.contains(says), "{text}: {e}");
    }
    // A star a step away from two stars or more: no guess.
    let e = G::parse_intent(&s, "1,1-0,0").unwrap_err();
    assert!(!e.detail.contains("did you mean"), "{e}");
}

#[test]
fn options_validate_the_sky() {
    let opt = |pairs: &[(&str, &str)]| {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        G::options(&pairs, None)
    };
    assert_eq!(opt(&[]).unwrap().sky, Sky::default());
    assert!(
        opt(&[("stars", "1,1 1,1 2,2")])
            .unwrap_err()
            .detail
            .contains("given twice")
    );
    assert!(
        opt(&[("stars", "1,1 2,2")])
            .unwrap_err()
            .detail
            .contains("3 to 200 stars")
    );
    assert!(
        opt(&[("stars", "1,1 2,2 9,9"), ("grid", "5x5")])
            .unwrap_err()
            .detail
            .contains("outside")
    );
    assert!(
        opt(&[("random-stars", "30"), ("grid", "5x5")])
            .unwrap_err()
            .detail
            .contains("do not fit")
    );
    assert!(
        opt(&[("random-stars", "2")])
            .unwrap_err()
            .detail
            .contains("3 to 200")
    );
    assert!(opt(&[("random-stars", "201")]).is_err());
    let says = |pairs: &[(&str, &str)], what: &str| {
        let e = opt(pairs).unwrap_err().detail;
        assert!(e.contains(what), "{pairs:?}: {e}");
    };
    says(&[("random-stars", "164")], "at most 163 stars");
    says(&[("random-stars", "4294967296")], "from 3 to 163");
    says(&[("stars", "1,1 2,2 100,0")], "off the largest grid");
    says(&[("score", "area"), ("score", "count")], "given twice");
    let both = G::options(
        &[("stars".into(), "1,1 2,2 3,1".into())],
        Some("4,4 5,5 6,4"),
    );
    assert!(both.unwrap_err().detail.contains("not both"));
    assert_eq!(
        opt(&[("stars", "\u{feff}1,1 2,2 3,1")])
            .unwrap()
            .sky
            .count(),
        3
    );
    assert!(opt(&[("grid", "0x5")]).is_err());
    assert!(opt(&[("score", "most")]).is_err());
    assert!(opt(&[("stars", "1,1 2,2 3,1"), ("random-stars", "5")]).is_err());
    assert_eq!(
        opt(&[("stars", "0,0 4,1 2,3")]).unwrap().sky,
        Sky::Stars {
            width: 5,
            height: 4,
            stars: vec![Point(0, 0), Point(4, 1), Point(2, 3)]
        }
    );
}

/// The test vector of docs/starry-night.md ("A random sky"): the default
/// sky drawn from the setup seed of 32 zero bytes, and 5 stars on a 3×3
/// grid from 32 bytes 0x01.
#[test]
fn the_documented_random_skies() {
    let docs = include_str!("../../../../../docs/starry-night.md");
    for (seed, count, w, h) in [(0u8, 12u32, 10u32, 10u32), (1, 5, 3, 3)] {
        let sky = Sky::Random {
            count,
            width: w,
            height: h,
        };
        let stars = sky.stars(&mut Draw::new([seed; 32])).unwrap();
        let text: Vec<String> = stars.iter().map(|p| format!("{},{}", p.0, p.1)).collect();
        let line = format!(
            "`{seed:02x}` × 32, {count} on {w}×{h}: `{}`",
            text.join(" ")
        );
        assert!(
            docs.contains(&line),
            "docs/starry-night.md should show {line}"
        );
    }
}

#[test]
fn counts_of_one_are_singular_in_the_text_view() {
    // A triangle of legs 1: half a square, captured by seat 0 (a far star
    // keeps the game going).
    let s = position(&[(0, 0), (1, 0), (0, 1), (5, 5)], &["A-B", "A-C", "B-C"]);
    let names = ["Anna".to_string(), "Ben".to_string()];
    let mut v = G::view(&s, None, None);
    let text = G::render_text(&v, &names);
    assert!(text.contains(" 1 sea,"), "{text}");
    assert!(text.contains(" 0 seas"), "{text}");
    // Scored by area: `1 half square`.
    v.score = Score::Area;
    let text = G::render_text(&v, &names);
    assert!(
        text.contains("0.5 squares = 1 half square (1 sea)"),
        "{text}"
    );
    assert!(
        text.contains("0 squares = 0 half squares (0 seas)"),
        "{text}"
    );
}
