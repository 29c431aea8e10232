//! Tables of positions with hand-checked answers, and engine scenarios.
//!
//! Seats are written P1…P5 in comments (seat 0 = P1); the engine's
//! messages say `seat 0` (docs/json.md), the text view the players' names.

use std::fmt::Write as _;

use super::referee::{self, BoardSpec, Position, PositionToken};
use super::scoring::{Outcome, Payer, Reason, Why};
use super::view::{Shown, SlotStatus, TurnView};
use super::*;
use crate::games::{Context, Draw, HiddenRef, Own, RuleErrorKind, Turn, prelude::*};

type G = StarrySky;
use Token::{BlackHole as BH, DoubleStar as DS, Five, One, Seven, Six, Ten, Three};

fn board(id: &str, prizes: [u32; 2], n: u8, large: &[u8], lines: &[(u8, u8)]) -> Board {
    Board {
        id: BoardId::try_from(id.to_string()).unwrap(),
        name: id.to_uppercase(),
        prizes,
        stars: (1..=n)
            .map(|i| board::Star {
                large: large.contains(&i),
                at: [u32::from(i) * 9, 50],
            })
            .collect(),
        lines: lines.iter().map(|&(a, b)| [a, b]).collect(),
    }
}

// ---------------------------------------------------------------------------
// Scoring tables (through the referee, which wraps `score_board`).

struct Case {
    name: &'static str,
    board: Board,
    /// (star, seat, token)
    tokens: Vec<(u8, usize, Token)>,
    doubling: Doubling,
    tie: Tie,
    purses: Vec<i64>,
    totals: Vec<i64>,
    left: Vec<u32>,
    coins: Vec<i64>,
}

fn run(case: &Case) -> referee::RefereeReport {
    let position = Position {
        board: BoardSpec::Board(case.board.clone()),
        tokens: case
            .tokens
            .iter()
            .map(|&(star, seat, token)| PositionToken { star, seat, token })
            .collect(),
        doubling: case.doubling,
        tie: case.tie,
        purses: Some(case.purses.clone()),
    };
    // Through JSON, as `starry rules score` reads it.
    let json = serde_json::to_string(&position).unwrap();
    let r = referee::score_position(&json).unwrap_or_else(|e| panic!("{}: {e}", case.name));
    let totals: Vec<i64> = r.score.seats.iter().map(|s| s.total).collect();
    let left: Vec<u32> = r.score.seats.iter().map(|s| s.tokens_left).collect();
    let coins: Vec<i64> = r.score.seats.iter().map(|s| s.coins).collect();
    assert_eq!(totals, case.totals, "{}: totals", case.name);
    assert_eq!(left, case.left, "{}: tokens left", case.name);
    assert_eq!(coins, case.coins, "{}: coins", case.name);
    for (i, p) in r.purses.iter().enumerate() {
        assert!(*p >= 0, "{}: purse of seat {i} below zero", case.name);
        assert_eq!(*p, case.purses[i] + case.coins[i], "{}: purse", case.name);
    }
    r
}

fn case(name: &'static str, board: Board, tokens: &[(u8, usize, Token)]) -> Case {
    Case {
        name,
        board,
        tokens: tokens.to_vec(),
        doubling: Doubling::Additive,
        tie: Tie::Coins,
        purses: vec![0; 3],
        totals: vec![],
        left: vec![],
        coins: vec![],
    }
}

fn removed(r: &referee::RefereeReport) -> Vec<(u8, Why)> {
    r.score.removed.iter().map(|x| (x.star, x.why)).collect()
}

#[test]
fn abb_2_a_black_hole_swallows_all_its_neighbours() {
    // Star 1 is joined to 2, 3, 4, 5; 5 is joined to 6. Prizes 6/4.
    // P1 bh on 1 swallows P2's 10 (2), P3's 7 (3), P2's ds (4), P1's own 5 (5).
    // Left: P1 bh = 0 (1 token), P3 6 on star 6 = 6 (1 token), P2 nothing.
    // P3 first: +6; P1 second with 0: +4.
    let b = board(
        "abb2",
        [6, 4],
        6,
        &[],
        &[(1, 2), (1, 3), (1, 4), (1, 5), (5, 6)],
    );
    let mut c = case(
        "abb 2",
        b,
        &[
            (1, 0, BH),
            (2, 1, Ten),
            (3, 2, Seven),
            (4, 1, DS),
            (5, 0, Five),
            (6, 2, Six),
        ],
    );
    c.totals = vec![0, 0, 6];
    c.left = vec![1, 0, 1];
    c.coins = vec![4, 0, 6];
    let r = run(&c);
    assert_eq!(
        removed(&r),
        vec![
            (2, Why::Swallowed(1)),
            (3, Why::Swallowed(1)),
            (4, Why::Swallowed(1)),
            (5, Why::Swallowed(1))
        ]
    );
    assert_eq!(
        r.score.outcome,
        Outcome::Ranked {
            first: 2,
            second: 0
        }
    );
}

#[test]
fn abb_3_ten_next_to_a_double_star_is_twenty_and_wins() {
    // Lines 1-2, 3-4, 4-5. Prizes 5/3.
    // P1 10 on 1 next to P2's ds on 2: 10×2 = 20 (1 token).
    // P2 ds (0) + 7 on 3 = 7 (2 tokens). P3 6 + 5 = 11 (2 tokens).
    // P1 first +5, P3 second +3, P2 third: 2 coins paid by P1 → P1 5-2 = 3.
    let b = board("abb3", [5, 3], 5, &[], &[(1, 2), (3, 4), (4, 5)]);
    let mut c = case(
        "abb 3",
        b,
        &[
            (1, 0, Ten),
            (2, 1, DS),
            (3, 1, Seven),
            (4, 2, Six),
            (5, 2, Five),
        ],
    );
    c.totals = vec![20, 7, 11];
    c.left = vec![1, 2, 2];
    c.coins = vec![3, 2, 3];
    let r = run(&c);
    assert_eq!(r.score.left[0].value, 20);
    assert!(r.score.payments.contains(&scoring::Payment {
        to: 1,
        coins: 2,
        from: Payer::Seat(0),
        reason: Reason::TokensLeft
    }));
}

#[test]
fn abb_4_six_next_to_two_double_stars_is_24_in_both_variants() {
    // Star 1 joined to 2 and 3; 4-5 joined. Prizes 5/3.
    // P1 6 on 1 next to P2's ds (2) and P3's ds (3): additive 6×2·2 = 24,
    // compound 6×2² = 24. P2 ds + 10 = 10 (2 tokens), P3 ds + 7 = 7 (2).
    // P1 first +5, P2 second +3, P3 third 2 from P1 → P1 +3.
    for doubling in [Doubling::Additive, Doubling::Compound] {
        let b = board("abb4", [5, 3], 5, &[], &[(1, 2), (1, 3), (4, 5)]);
        let mut c = case(
            "abb 4",
            b,
            &[
                (1, 0, Six),
                (2, 1, DS),
                (3, 2, DS),
                (4, 1, Ten),
                (5, 2, Seven),
            ],
        );
        c.doubling = doubling;
        c.totals = vec![24, 10, 7];
        c.left = vec![1, 2, 2];
        c.coins = vec![3, 3, 2];
        run(&c);
    }
}

#[test]
fn abb_5_third_and_fourth_are_paid_by_first() {
    // Lines 1-2, 1-3, 4-5, 6-7, 7-8. Prizes 9/7. Four seats.
    // P1: 6 on 1 with own ds on 2 and 3 → 6×4 = 24 (3 tokens).
    // P2: 10 on 4 next to own ds on 5 → 20 (2 tokens).
    // P3: 1 + 10 = 11 (2 tokens). P4: 6 = 6 (1 token).
    // P1 first 9, pays P3 2 and P4 1 → +6; P2 second +7; P3 +2; P4 +1.
    let b = board(
        "abb5",
        [9, 7],
        8,
        &[],
        &[(1, 2), (1, 3), (4, 5), (6, 7), (7, 8)],
    );
    let mut c = case(
        "abb 5",
        b,
        &[
            (1, 0, Six),
            (2, 0, DS),
            (3, 0, DS),
            (4, 1, Ten),
            (5, 1, DS),
            (6, 2, One),
            (7, 2, Ten),
            (8, 3, Six),
        ],
    );
    c.purses = vec![0; 4];
    c.totals = vec![24, 20, 11, 6];
    c.left = vec![3, 2, 2, 1];
    c.coins = vec![6, 7, 2, 1];
    let r = run(&c);
    let places: Vec<Option<u32>> = r.score.seats.iter().map(|s| s.place).collect();
    assert_eq!(places, [Some(1), Some(2), Some(3), Some(4)]);
}

#[test]
fn abb_6_zero_can_win_second() {
    // Lines 1-4, 4-3, 2-5, 1-6, 6-2. Prizes 6/4.
    // P1 bh on 1 and 10 on 3; P2 bh on 2 and ds on 6; P3 7 on 4, 5 on 5.
    // The black holes are not joined, so both stay: 1 swallows 4 and 6,
    // 2 swallows 5. Left: P1 bh + 10 = 10 (2 tokens), P2 bh = 0 (1 token).
    // P1 first +6, P2 second with 0 points +4, P3 nothing left.
    let b = board(
        "abb6",
        [6, 4],
        6,
        &[],
        &[(1, 4), (4, 3), (2, 5), (1, 6), (6, 2)],
    );
    let mut c = case(
        "abb 6",
        b,
        &[
            (1, 0, BH),
            (3, 0, Ten),
            (2, 1, BH),
            (6, 1, DS),
            (4, 2, Seven),
            (5, 2, Five),
        ],
    );
    c.totals = vec![10, 0, 0];
    c.left = vec![2, 1, 0];
    c.coins = vec![6, 4, 0];
    let r = run(&c);
    assert_eq!(
        removed(&r),
        vec![
            (4, Why::Swallowed(1)),
            (5, Why::Swallowed(2)),
            (6, Why::Swallowed(1))
        ]
    );
}

#[test]
fn abb_7_equal_totals_go_to_more_tokens_and_second_gets_4() {
    // Lines 1-2, 3-5, 5-4, 1-6. Prizes 6/4.
    // P1 (white): 10 on 1 next to own ds on 2 → 20 (2 tokens).
    // P2 (grey): 3 and 7 next to own ds on 5 → (3+7)×2 = 20 (3 tokens).
    // P3: 1 on 6 → 1 (1 token).
    // 20 = 20: P2 has more tokens and is first: +6, pays P3 1 → +5.
    // P1 second: +4 (seed 000: the printed example's 3 is a misprint). P3 +1.
    let b = board("abb7", [6, 4], 6, &[], &[(1, 2), (3, 5), (5, 4), (1, 6)]);
    let mut c = case(
        "abb 7",
        b,
        &[
            (1, 0, Ten),
            (2, 0, DS),
            (3, 1, Three),
            (4, 1, Seven),
            (5, 1, DS),
            (6, 2, One),
        ],
    );
    c.totals = vec![20, 20, 1];
    c.left = vec![2, 3, 1];
    c.coins = vec![4, 5, 1];
    let r = run(&c);
    assert_eq!(
        r.score.outcome,
        Outcome::Ranked {
            first: 1,
            second: 0
        }
    );
}

#[test]
fn black_holes_in_a_chain_all_vanish_before_swallowing() {
    // Path 1-2-3-4-5-6. P1 bh 2, P2 bh 3, P3 bh 4: one chain, all removed.
    // Nothing swallows: P1 10 on 1 (next to 2), P2 5 on 5 (next to 4), P3 7 on 6.
    // P1 10 first +6 (pays P3 1) → +5, P3 7 second +4, P2 5 third +1.
    let b = board(
        "chain",
        [6, 4],
        6,
        &[],
        &[(1, 2), (2, 3), (3, 4), (4, 5), (5, 6)],
    );
    let mut c = case(
        "chain",
        b,
        &[
            (1, 0, Ten),
            (2, 0, BH),
            (3, 1, BH),
            (4, 2, BH),
            (5, 1, Five),
            (6, 2, Seven),
        ],
    );
    c.totals = vec![10, 5, 7];
    c.left = vec![1, 1, 1];
    c.coins = vec![5, 1, 4];
    let r = run(&c);
    assert_eq!(
        removed(&r),
        vec![
            (2, Why::BlackHolePair),
            (3, Why::BlackHolePair),
            (4, Why::BlackHolePair)
        ]
    );
}

#[test]
fn a_double_star_next_to_a_black_hole_is_swallowed_before_doubling() {
    // Path 1-2-3. P1 bh on 1, P2 ds on 2, P3 10 on 3. Prizes 5/3.
    // The ds is swallowed by the bh, so the 10 counts 10, not 20.
    // P3 10 first +5, P1 0 (bh) second +3.
    let b = board("dsbh", [5, 3], 3, &[], &[(1, 2), (2, 3)]);
    let mut c = case("ds next to bh", b, &[(1, 0, BH), (2, 1, DS), (3, 2, Ten)]);
    c.totals = vec![0, 0, 10];
    c.left = vec![1, 0, 1];
    c.coins = vec![3, 0, 5];
    let r = run(&c);
    assert_eq!(removed(&r), vec![(2, Why::Swallowed(1))]);
    assert_eq!(r.score.left[1].double_stars, 0);
}

#[test]
fn three_double_stars_additive_30_compound_40() {
    // Star 1 joined to 2, 3, 4. P1 5 on 1, P1 ds on 2, P2 ds on 3 and 4.
    // Additive: 5 × 2·3 = 30; compound: 5 × 2³ = 40. P1 2 tokens, P2 0 (2).
    // P1 first +5, P2 second +3.
    for (doubling, five) in [(Doubling::Additive, 30), (Doubling::Compound, 40)] {
        let b = board("three", [5, 3], 4, &[], &[(1, 2), (1, 3), (1, 4)]);
        let mut c = case(
            "three ds",
            b,
            &[(1, 0, Five), (2, 0, DS), (3, 1, DS), (4, 1, DS)],
        );
        c.doubling = doubling;
        c.totals = vec![five, 0, 0];
        c.left = vec![2, 2, 0];
        c.coins = vec![5, 3, 0];
        run(&c);
    }
}

#[test]
fn an_unbroken_tie_for_first_pays_tokens_or_nothing() {
    // Lines 1-2, 2-3, 3-4; star 5 alone. Prizes 5/3.
    // P1 10 on 1 + ds on 5 (joined to nothing) = 10, 2 tokens.
    // P2 3 on 2 + 7 on 3 = 10, 2 tokens. P3 5 on 4 = 5, 1 token.
    // Tie (10, 2) = (10, 2) stands: no prizes.
    // tie=coins: 1 coin per token from the reserve: 2, 2, 1. tie=nothing: 0.
    for (tie, coins) in [(Tie::Coins, vec![2, 2, 1]), (Tie::Nothing, vec![0, 0, 0])] {
        let b = board("tie", [5, 3], 5, &[], &[(1, 2), (2, 3), (3, 4)]);
        let mut c = case(
            "tie for first",
            b,
            &[
                (1, 0, Ten),
                (5, 0, DS),
                (2, 1, Three),
                (3, 1, Seven),
                (4, 2, Five),
            ],
        );
        c.tie = tie;
        c.totals = vec![10, 10, 5];
        c.left = vec![2, 2, 1];
        c.coins = coins;
        let r = run(&c);
        assert_eq!(r.score.outcome, Outcome::TieForFirst(vec![0, 1]));
        assert!(r.score.payments.iter().all(|p| p.from == Payer::Reserve));
    }
}

#[test]
fn an_unbroken_tie_for_second_pays_everybody_else_from_the_reserve() {
    // Lines 1-2 only. Prizes 6/4. Four seats.
    // P1 10 on 1 next to own ds on 2 = 20 (2 tokens): first, +6.
    // P2 5 (1 token) and P3 5 (1 token) tie for second; P4 1 (1 token).
    // No second prize; P2, P3, P4 get 1 coin each from the reserve, not from P1.
    let b = board("tie2", [6, 4], 5, &[], &[(1, 2)]);
    let mut c = case(
        "tie for second",
        b,
        &[
            (1, 0, Ten),
            (2, 0, DS),
            (3, 1, Five),
            (4, 2, Five),
            (5, 3, One),
        ],
    );
    c.purses = vec![0; 4];
    c.totals = vec![20, 5, 5, 1];
    c.left = vec![2, 1, 1, 1];
    c.coins = vec![6, 1, 1, 1];
    let r = run(&c);
    assert_eq!(
        r.score.outcome,
        Outcome::TieForSecond {
            first: 0,
            tied: vec![1, 2]
        }
    );
    assert!(r.score.payments.iter().all(|p| p.from == Payer::Reserve));
}

#[test]
fn first_pays_third_out_of_a_short_purse_and_the_reserve_pays_the_rest() {
    // No lines: nothing swallows or doubles. Prizes 2/1. Four seats.
    // P1 10 (1 token) first; P2 7 (1 token) second; P4 3 (1 token) third;
    // P3 1 + ds + ds + bh = 1 point with 4 tokens, fourth.
    // P1 holds 1 coin and takes the first prize 2: 3 coins to pay with.
    // Third P4 is owed 1: paid by P1 (2 left). Fourth P3 is owed 4: 2 from
    // P1, the other 2 from the reserve.
    // Net: P1 2 - 3 = -1 (purse 1 → 0), P2 +1, P3 +4, P4 +1.
    let b = board("short", [2, 1], 7, &[], &[]);
    let mut c = case(
        "short purse",
        b,
        &[
            (1, 0, Ten),
            (2, 1, Seven),
            (3, 2, One),
            (4, 2, DS),
            (5, 2, DS),
            (6, 2, BH),
            (7, 3, Three),
        ],
    );
    c.purses = vec![1, 0, 0, 0];
    c.totals = vec![10, 7, 1, 3];
    c.left = vec![1, 1, 4, 1];
    c.coins = vec![-1, 1, 4, 1];
    let r = run(&c);
    assert_eq!(r.purses, [0, 1, 4, 1]);
    let to_p3: Vec<(i64, Payer)> = r
        .score
        .payments
        .iter()
        .filter(|p| p.to == 2)
        .map(|p| (p.coins, p.from))
        .collect();
    assert_eq!(to_p3, [(2, Payer::Seat(0)), (2, Payer::Reserve)]);
}

#[test]
fn one_seat_alone_takes_both_prizes() {
    // Path 1-2-3. P1 bh on 1 swallows P2's 3 on 2; P1 5 on 3 stays. Prizes 5/3.
    // P1 alone (5 points, 2 tokens): 5 + 3 = 8.
    let b = board("alone", [5, 3], 3, &[], &[(1, 2), (2, 3)]);
    let mut c = case(
        "alone",
        b.clone(),
        &[(1, 0, BH), (2, 1, Three), (3, 0, Five)],
    );
    c.totals = vec![5, 0, 0];
    c.left = vec![2, 0, 0];
    c.coins = vec![8, 0, 0];
    let r = run(&c);
    assert_eq!(r.score.outcome, Outcome::Alone(0));
    // P2 filling the board alone: 1 + 3 + 5 = 9, both prizes 8.
    let mut c = case(
        "filled alone",
        b,
        &[(1, 1, One), (2, 1, Three), (3, 1, Five)],
    );
    c.totals = vec![0, 9, 0];
    c.left = vec![0, 3, 0];
    c.coins = vec![0, 8, 0];
    run(&c);
}

#[test]
fn nobody_left_nobody_paid() {
    // Path 1-2-3, all black holes (P1, P2, P3): one chain, all removed.
    let b = board("void", [3, 1], 3, &[], &[(1, 2), (2, 3)]);
    let mut c = case("nobody", b, &[(1, 0, BH), (2, 1, BH), (3, 2, BH)]);
    c.totals = vec![0, 0, 0];
    c.left = vec![0, 0, 0];
    c.coins = vec![0, 0, 0];
    let r = run(&c);
    assert_eq!(r.score.outcome, Outcome::Nobody);
    assert!(r.score.payments.is_empty());
}

#[test]
fn zero_points_can_win_first() {
    // Lines 1-2, 3-4. P1 bh on 1 swallows P3's 10 on 2; P1 ds on 3, P2 ds on 4.
    // Double stars double no numbers here. P1 0 (2 tokens) beats P2 0 (1 token).
    // Prizes 4/2: P1 +4, P2 +2.
    let b = board("zero", [4, 2], 4, &[], &[(1, 2), (3, 4)]);
    let mut c = case(
        "zero wins",
        b,
        &[(1, 0, BH), (2, 2, Ten), (3, 0, DS), (4, 1, DS)],
    );
    c.totals = vec![0, 0, 0];
    c.left = vec![2, 1, 0];
    c.coins = vec![4, 2, 0];
    let r = run(&c);
    assert_eq!(
        r.score.outcome,
        Outcome::Ranked {
            first: 0,
            second: 1
        }
    );
}

// ---------------------------------------------------------------------------
// Engine scenarios.

/// A game driven the way the protocol drives it, with each seat's secrets.
struct Table {
    state: State,
    at: u64,
    own: Vec<Own<Token>>,
}

impl Table {
    fn new(seats: usize, boards: Vec<Board>, seed: u8) -> Self {
        let options = Options {
            boards: Some(boards),
            ..Options::default()
        };
        Self::with(seats, &options, seed)
    }

    fn with(seats: usize, options: &Options, seed: u8) -> Self {
        let state = G::setup(options, seats, &mut Draw::new([seed; 32])).unwrap();
        Table {
            state,
            at: 1,
            own: vec![Own::default(); seats],
        }
    }

    fn turn(&self) -> Turn {
        G::turn(&self.state)
    }

    fn try_move(&mut self, seat: Seat, text: &str) -> Result<Sealed<Action, Token>, RuleError> {
        let intent = G::parse_intent(&self.state, text)?;
        let sealed = G::seal(&self.state, seat, &intent, &self.own[seat])?;
        let reveals = sealed
            .reveals
            .iter()
            .map(|r| (*r, self.own[seat].hidden[r]))
            .collect();
        let ctx = Context {
            seat,
            at: self.at,
            commitments: sealed.hidden.len() as u32,
            reveals,
        };
        G::play(&mut self.state, &ctx, &sealed.action)?;
        for (i, t) in sealed.hidden.iter().enumerate() {
            self.own[seat].hidden.insert(
                HiddenRef {
                    entry: self.at,
                    slot: i as u32,
                },
                *t,
            );
        }
        for r in &sealed.reveals {
            self.own[seat].hidden.remove(r);
        }
        self.at += 1;
        Ok(sealed)
    }

    #[track_caller]
    fn mv(&mut self, seat: Seat, text: &str) -> Sealed<Action, Token> {
        self.try_move(seat, text)
            .unwrap_or_else(|e| panic!("{} {text}: {e}", tag(seat)))
    }

    /// Plays a raw action, as a cheating program could write it; `hidden`
    /// is what the seat claims to have committed to.
    fn raw_play(
        &mut self,
        seat: Seat,
        star: &str,
        token: Option<Token>,
        hidden: Option<Token>,
        reveals: Vec<(HiddenRef, Token)>,
    ) -> Result<(), RuleError> {
        let ctx = Context {
            seat,
            at: self.at,
            commitments: u32::from(hidden.is_some()),
            reveals,
        };
        let action = Action {
            star: star.parse().unwrap(),
            token,
        };
        G::play(&mut self.state, &ctx, &action)?;
        if let Some(t) = hidden {
            self.own[seat].hidden.insert(
                HiddenRef {
                    entry: self.at,
                    slot: 0,
                },
                t,
            );
        }
        self.at += 1;
        Ok(())
    }

    fn raw_reveal(
        &mut self,
        seat: Seat,
        reveals: Vec<(HiddenRef, Token)>,
    ) -> Result<(), RuleError> {
        let ctx = Context {
            seat,
            at: self.at,
            commitments: 0,
            reveals,
        };
        G::reveal(&mut self.state, &ctx)?;
        self.at += 1;
        Ok(())
    }

    /// The seat due to reveal reveals exactly what it is asked for.
    #[track_caller]
    fn reveal(&mut self) -> Seat {
        let Turn::Reveal(seat, refs) = self.turn() else {
            panic!("no reveal due: {:?}", self.turn())
        };
        let reveals = refs
            .iter()
            .map(|r| (*r, self.own[seat].hidden[r]))
            .collect();
        self.raw_reveal(seat, reveals).unwrap();
        for r in &refs {
            self.own[seat].hidden.remove(r);
        }
        seat
    }

    fn resolve(&mut self, seed: u8) {
        for e in G::pending(&self.state) {
            G::resolve(&mut self.state, e.id, &mut Draw::new([seed; 32])).unwrap();
        }
    }

    fn open_ids(&self) -> Vec<String> {
        self.state
            .slots
            .iter()
            .filter_map(|s| match s {
                Slot::Open(b) => Some(self.state.boards[b.board].id.to_string()),
                _ => None,
            })
            .collect()
    }

    fn slot_of(&self, id: &str) -> usize {
        self.state
            .slots
            .iter()
            .position(|s| {
                s.in_play()
                    .is_some_and(|b| self.state.boards[b.board].id.as_str() == id)
            })
            .unwrap()
    }
}

/// `count` boards `a`, `b`, … of `n` stars (the listed ones large) on a path.
fn set(count: usize, n: u8, large: &[u8]) -> Vec<Board> {
    let lines: Vec<(u8, u8)> = (1..n).map(|i| (i, i + 1)).collect();
    (0..count)
        .map(|i| {
            let id = ((b'a' + i as u8) as char).to_string();
            board(&id, [u32::from(n), u32::from(n) - 2], n, large, &lines)
        })
        .collect()
}

fn ref_at(entry: u64) -> HiddenRef {
    HiddenRef { entry, slot: 0 }
}

#[test]
fn large_stars_take_tokens_face_down_small_ones_face_up() {
    // Boards of 3 stars: 1 large, 2 and 3 small.
    let mut t = Table::new(3, set(3, 3, &[1]), 1);
    assert_eq!(t.turn(), Turn::Move(0));
    let s = t.mv(0, "10 a:1");
    assert_eq!(
        s.action,
        Action {
            star: "a:1".parse().unwrap(),
            token: None
        }
    );
    assert_eq!(s.hidden, vec![Ten]);
    assert!(s.reveals.is_empty());
    assert_eq!(
        serde_json::to_string(&s.action).unwrap(),
        r#"{"star":"a:1"}"#
    );
    assert_eq!(G::describe(&t.state, &s.action), "a face-down token on a:1");

    let s = t.mv(1, "7 a:2");
    assert_eq!(s.action.token, Some(Seven));
    assert!(s.hidden.is_empty());
    assert_eq!(
        serde_json::to_string(&s.action).unwrap(),
        r#"{"star":"a:2","token":"7"}"#
    );
    assert_eq!(G::describe(&t.state, &s.action), "7 on a:2");

    // The spectator sees a face-down token of P1, the owner sees its value.
    let slot = t.slot_of("a");
    let spectator = G::view(&t.state, None, None);
    let occ = spectator.slots[slot].board.as_ref().unwrap().stars[0]
        .occupant
        .unwrap();
    assert_eq!((occ.seat, occ.face, occ.token), (0, Shown::FaceDown, None));
    let json = serde_json::to_string(&spectator).unwrap();
    assert!(
        !json.contains("\"10\""),
        "the spectator view shows the hidden 10: {json}"
    );
    let mine = G::view(&t.state, Some(0), Some(&t.own[0]));
    let occ = mine.slots[slot].board.as_ref().unwrap().stars[0]
        .occupant
        .unwrap();
    assert_eq!((occ.face, occ.token), (Shown::FaceDownOwn, Some(Ten)));
    assert_eq!(mine.hand.as_ref().unwrap().len(), 8);
    assert!(!mine.hand.as_ref().unwrap().contains(&Ten));
    // Another seat's secrets never show, even if passed by mistake.
    let theirs = G::view(&t.state, Some(1), Some(&t.own[0]));
    let occ = theirs.slots[slot].board.as_ref().unwrap().stars[0]
        .occupant
        .unwrap();
    assert_eq!((occ.face, occ.token), (Shown::FaceDown, None));

    // The face-down move needs its commitment; a face-up one needs none.
    let e = t.raw_play(2, "b:1", None, None, vec![]).unwrap_err();
    assert_eq!(e.rule, "commitments");
    let e = t.raw_play(2, "b:1", Some(One), None, vec![]).unwrap_err();
    assert_eq!(e.rule, "token-must-hide");
    let e = t.raw_play(2, "b:2", None, Some(One), vec![]).unwrap_err();
    assert_eq!(e.rule, "token-must-show");
}

#[test]
fn completing_on_a_large_star_is_face_up_and_reveals_the_completers_tokens() {
    // Boards of 3 stars, all large.
    let mut t = Table::new(3, set(3, 3, &[1, 2, 3]), 2);
    t.mv(0, "1 a:1");
    t.mv(1, "1 a:2");
    // Refused: the completer must reveal their other face-down tokens there.
    t.mv(2, "1 b:1");
    let p1_ref = ref_at(1);
    let e = t.raw_play(0, "a:3", Some(Three), None, vec![]).unwrap_err();
    assert_eq!(
        (e.kind, e.rule),
        (RuleErrorKind::WrongReveals, "reveal-set")
    );
    // And a face-down completion is refused.
    let e = t
        .raw_play(0, "a:3", None, Some(Three), vec![(p1_ref, One)])
        .unwrap_err();
    assert_eq!(e.rule, "token-must-show");
    let s = t.mv(0, "3 a:3");
    assert_eq!(s.action.token, Some(Three));
    assert!(s.hidden.is_empty());
    assert_eq!(s.reveals, vec![p1_ref]);
    // P2 still has to reveal.
    assert_eq!(t.turn(), Turn::Reveal(1, vec![ref_at(2)]));
    assert_eq!(t.reveal(), 1);
    // P1 1 + 3 = 4 (2 tokens) first 3, P2 1 second 1. Next: P2, left of P1.
    assert_eq!(t.state.coins(), [3, 1, 0]);
    assert_eq!(t.turn(), Turn::Move(1));
}

#[test]
fn reveals_go_from_the_completers_left_skipping_seats_with_nothing_face_down() {
    // Four seats, four boards of 5 stars: 1–4 large, 5 small. No stack.
    let mut t = Table::new(4, set(4, 5, &[1, 2, 3, 4]), 3);
    t.mv(0, "1 a:1"); // entry 1
    t.mv(1, "1 b:5"); // P2 face up elsewhere
    t.mv(2, "1 a:2"); // entry 3
    t.mv(3, "1 a:3"); // entry 4
    t.mv(0, "3 a:4"); // entry 5
    t.mv(1, "3 b:4"); // P2 face down, but on b
    let s = t.mv(2, "3 a:5"); // P3 completes a, revealing entry 3
    assert_eq!(s.reveals, vec![ref_at(3)]);
    // From P3's left: P4, then P1; P2 has nothing on a and is skipped.
    assert_eq!(t.turn(), Turn::Reveal(3, vec![ref_at(4)]));
    let view = G::view(&t.state, None, None);
    assert_eq!(
        view.turn,
        TurnView::Reveal {
            seat: 3,
            stars: vec!["a:3".parse().unwrap()]
        }
    );
    assert_eq!(view.slots[t.slot_of("a")].status, SlotStatus::Scoring);
    // Nobody may place meanwhile.
    let e = t.try_move(3, "5 c:1").unwrap_err();
    assert_eq!((e.kind, e.rule), (RuleErrorKind::OutOfTurn, "reveal-due"));
    // The wrong seat, or the wrong set, is refused.
    let e = t
        .raw_reveal(0, vec![(ref_at(1), One), (ref_at(5), Three)])
        .unwrap_err();
    assert_eq!(
        (e.kind, e.rule),
        (RuleErrorKind::OutOfTurn, "not-your-turn")
    );
    let e = t.raw_reveal(3, vec![]).unwrap_err();
    assert_eq!(
        (e.kind, e.rule),
        (RuleErrorKind::WrongReveals, "reveal-set")
    );
    let e = t
        .raw_reveal(3, vec![(ref_at(4), One), (ref_at(4), One)])
        .unwrap_err();
    assert_eq!(e.rule, "reveal-set");
    assert_eq!(t.reveal(), 3);
    assert_eq!(t.turn(), Turn::Reveal(0, vec![ref_at(1), ref_at(5)]));
    let e = t
        .raw_reveal(0, vec![(ref_at(5), Three), (ref_at(1), One)])
        .unwrap_err();
    assert_eq!(e.rule, "reveal-set", "placement order is required");
    let e = t.raw_reveal(0, vec![(ref_at(1), One)]).unwrap_err();
    assert_eq!(e.rule, "reveal-set");
    assert_eq!(t.reveal(), 0);
    // Scored: P1 1+3 = 4 (2), P3 1+3 = 4 (2), P4 1 (1): the tie for first
    // stands, so 1 coin per token from the reserve: 2, 0, 2, 1.
    assert_eq!(t.state.coins(), [2, 0, 2, 1]);
    let last = &t.state.history()[0];
    assert_eq!(last.score.outcome, Outcome::TieForFirst(vec![0, 2]));
    assert_eq!(last.completer, 2);
    // No board left in the stack: the slot stays empty; P4 moves next.
    assert_eq!(t.turn(), Turn::Move(3));
    assert!(G::pending(&t.state).is_empty());
    assert!(matches!(t.state.slots[t.slot_of("b")], Slot::Open(_)));
    let view = G::view(&t.state, None, None);
    assert_eq!(
        view.slots
            .iter()
            .filter(|s| s.status == SlotStatus::Empty)
            .count(),
        1
    );
    // Every token of a is back in hand: P2 still has 2 out on b.
    assert_eq!(
        (0..4).map(|s| t.state.hand_size(s)).collect::<Vec<_>>(),
        [9, 7, 9, 9]
    );
}

#[test]
fn a_reveal_of_a_token_the_seat_could_not_hold_is_impossible() {
    // Boards of 3 stars: 1 and 2 large, 3 small.
    let mut t = Table::new(3, set(3, 3, &[1, 2]), 4);
    // P1 shows its black hole on b, then claims face-down black holes on a.
    t.mv(0, "bh b:3");
    t.mv(1, "1 c:3");
    t.mv(2, "1 b:1");
    // An honest program refuses to place a second bh.
    let e = t.try_move(0, "bh a:1").unwrap_err();
    assert_eq!(
        (e.kind, e.rule),
        (RuleErrorKind::Illegal, "token-not-in-hand")
    );
    assert!(e.detail.contains("your hand: 1 3 5 6 7 10 ds ds"), "{e}");
    // A cheating one can: the commitment hides it until the reveal.
    t.raw_play(0, "a:1", None, Some(BH), vec![]).unwrap(); // entry 4
    t.mv(1, "3 a:2");
    t.mv(2, "3 a:3"); // completes a
    assert_eq!(t.turn(), Turn::Reveal(0, vec![ref_at(4)]));
    let before = t.state.clone();
    let e = t.raw_reveal(0, vec![(ref_at(4), BH)]).unwrap_err();
    assert_eq!(
        (e.kind, e.rule),
        (RuleErrorKind::ImpossibleReveal, "could-not-hold")
    );
    assert!(e.detail.contains("b:3") && e.detail.contains("a:1"), "{e}");
    // Nothing changed.
    assert_eq!(format!("{:?}", t.state), format!("{before:?}"));
}

#[test]
fn two_face_down_tens_cannot_both_be_revealed() {
    // Boards of 3 large stars.
    let mut t = Table::new(3, set(3, 3, &[1, 2, 3]), 5);
    t.raw_play(0, "a:1", None, Some(Ten), vec![]).unwrap(); // entry 1
    t.mv(1, "1 b:1");
    t.mv(2, "1 c:1");
    t.raw_play(0, "a:2", None, Some(Ten), vec![]).unwrap(); // entry 4
    t.mv(1, "3 b:2");
    t.mv(2, "3 a:3"); // completes a
    let e = t
        .raw_reveal(0, vec![(ref_at(1), Ten), (ref_at(4), Ten)])
        .unwrap_err();
    assert_eq!(e.kind, RuleErrorKind::ImpossibleReveal);
    // The completer's own entry is checked the same way.
    let mut t = Table::new(3, set(3, 3, &[1, 2, 3]), 5);
    t.raw_play(0, "a:1", None, Some(Ten), vec![]).unwrap();
    t.mv(1, "1 b:1");
    t.mv(2, "1 a:2");
    let e = t
        .raw_play(0, "a:3", Some(Ten), None, vec![(ref_at(1), Ten)])
        .unwrap_err();
    assert_eq!(e.kind, RuleErrorKind::ImpossibleReveal);
}

#[test]
fn a_token_out_twice_at_once_is_caught_even_after_one_went_home() {
    // Boards of 3 large stars. P1 commits to a 10 on a:1 and on b:2.
    let mut t = Table::new(3, set(3, 3, &[1, 2, 3]), 18);
    t.raw_play(0, "a:1", None, Some(Ten), vec![]).unwrap(); // entry 1
    t.mv(1, "1 b:1"); // 2
    t.mv(2, "1 c:1"); // 3
    t.raw_play(0, "b:2", None, Some(Ten), vec![]).unwrap(); // entry 4
    t.mv(1, "3 a:2"); // 5
    t.mv(2, "3 a:3"); // 6: completes a
    assert_eq!(t.reveal(), 0); // 7: the first 10 is fine so far
    assert_eq!(t.reveal(), 1); // 8: a is scored, P1's 10 goes home
    assert_eq!(t.turn(), Turn::Move(0));
    t.mv(0, "5 c:2"); // 9
    t.mv(1, "5 b:3"); // 10: completes b; P3 has nothing there, P1 must reveal
    assert_eq!(t.turn(), Turn::Reveal(0, vec![ref_at(4)]));
    let e = t.raw_reveal(0, vec![(ref_at(4), Ten)]).unwrap_err();
    assert_eq!(
        (e.kind, e.rule),
        (RuleErrorKind::ImpossibleReveal, "could-not-hold")
    );
    assert!(
        e.detail
            .contains("a:1 (entries 1 to 8), b:2 (since entry 4)"),
        "{e}"
    );
}

#[test]
fn a_face_up_completion_counts_while_the_same_token_lies_face_down() {
    // Boards of 3 large stars. P1 hides a 10 on a:1, then completes b with
    // a face-up 10 (which looks legal: no 10 of P1's shows yet).
    let mut t = Table::new(3, set(3, 3, &[1, 2, 3]), 19);
    t.raw_play(0, "a:1", None, Some(Ten), vec![]).unwrap(); // entry 1
    t.mv(1, "1 b:1");
    t.mv(2, "1 b:2");
    t.raw_play(0, "b:3", Some(Ten), None, vec![]).unwrap(); // entry 4
    assert_eq!(t.reveal(), 1);
    assert_eq!(t.reveal(), 2); // entry 6: b is scored
    t.mv(1, "3 a:2");
    t.mv(2, "3 a:3"); // completes a
    let e = t.raw_reveal(0, vec![(ref_at(1), Ten)]).unwrap_err();
    assert_eq!(e.kind, RuleErrorKind::ImpossibleReveal);
    assert!(e.detail.contains("b:3 (entries 4 to 6)"), "{e}");
}

#[test]
fn a_third_double_star_face_up_is_not_in_hand() {
    // Boards of 4 small stars.
    let mut t = Table::new(3, set(3, 4, &[]), 6);
    t.mv(0, "ds a:1");
    t.mv(1, "1 b:1");
    t.mv(2, "1 c:1");
    t.mv(0, "ds a:2");
    t.mv(1, "3 b:2");
    t.mv(2, "3 c:2");
    let e = t.raw_play(0, "a:3", Some(DS), None, vec![]).unwrap_err();
    assert_eq!(
        (e.kind, e.rule),
        (RuleErrorKind::Illegal, "token-not-in-hand")
    );
    assert!(e.detail.contains("seat 0 has no `ds` in hand"), "{e}");
    let e = t.try_move(0, "ds a:3").unwrap_err();
    assert_eq!(e.rule, "token-not-in-hand");
    // Intents never offer it either.
    let intents = G::intents(&t.state, 0, &t.own[0]);
    assert!(intents.iter().all(|i| i.token != DS));
    assert_eq!(
        intents.len(),
        7 * (2 + 2 + 2),
        "7 distinct tokens × 6 free stars"
    );
    assert_eq!(intents[0].to_string(), format!("1 {}:3", t.open_ids()[0]));
}

#[test]
fn moves_out_of_turn_and_bad_stars_are_refused() {
    let mut t = Table::new(3, set(3, 3, &[1]), 7);
    let e = t.try_move(1, "1 a:2").unwrap_err();
    assert_eq!(
        (e.kind, e.rule),
        (RuleErrorKind::OutOfTurn, "not-your-turn")
    );
    assert!(e.detail.contains("seat 0's turn"), "{e}");
    let e = t.raw_play(2, "a:2", Some(One), None, vec![]).unwrap_err();
    assert_eq!(e.kind, RuleErrorKind::OutOfTurn);
    t.mv(0, "1 a:2");
    let e = t.try_move(1, "3 a:2").unwrap_err();
    assert_eq!(e.rule, "star-occupied");
    assert!(
        e.detail.contains("a:2 already holds a token of seat 0"),
        "{e}"
    );
    let e = t.try_move(1, "3 a:4").unwrap_err();
    assert_eq!(e.rule, "no-such-star");
    let e = t.try_move(1, "3 leo:1").unwrap_err();
    assert_eq!(e.rule, "no-such-board");
    let e = t.raw_play(1, "a:9", Some(Three), None, vec![]).unwrap_err();
    assert_eq!(e.rule, "no-such-star");
    // An intent can only be sealed by the seat to move.
    let intent = G::parse_intent(&t.state, "3 b:2").unwrap();
    let e = G::seal(&t.state, 2, &intent, &t.own[2]).unwrap_err();
    assert_eq!(e.kind, RuleErrorKind::OutOfTurn);
    assert!(G::intents(&t.state, 2, &t.own[2]).is_empty());
    // A reveal when none is due.
    let e = t.raw_reveal(1, vec![]).unwrap_err();
    assert_eq!(
        (e.kind, e.rule),
        (RuleErrorKind::OutOfTurn, "no-reveal-due")
    );
}

#[test]
fn notation_parses_and_explains_itself() {
    let t = Table::with(3, &Options::default(), 8);
    let i = G::parse_intent(&t.state, " 10   leo:3 ").unwrap();
    assert_eq!(
        i,
        Intent {
            token: Ten,
            star: "leo:3".parse().unwrap()
        }
    );
    assert_eq!(i.to_string(), "10 leo:3");
    // Case and spacing do not matter.
    for text in [
        "10 LEO:3",
        " 10  leo : 3 ",
        "10 Leo: 3",
        "10\tleo :3",
        "10 leo 3",
    ] {
        let i = G::parse_intent(&t.state, text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
        assert_eq!(i.to_string(), "10 leo:3", "{text:?}");
    }
    let i = G::parse_intent(&t.state, "BH Virgo:1").unwrap();
    assert_eq!(i.to_string(), "bh virgo:1");
    for (text, says) in [
        ("leo:3 10", "is not a token"),
        ("leo:3 10", "did you mean `10 leo:3`?"),
        ("10", "a move is a token and a star, e.g. `10 leo:3`"),
        ("11 leo:3", "tokens are 1, 3, 5, 6, 7, 10, bh, ds"),
        ("dss leo:3", "did you mean `ds`?"),
        ("bh leo", "board:number"),
        ("bh ophiuchus:1", "the boards are aries, taurus"),
        ("10 lep:3", "there is no board `lep`"),
        ("10 lep:3", "did you mean `leo:3`?"),
        ("10 LIBAR:2", "did you mean `libra:2`?"),
        ("ds leo:11", "board `leo` has stars 1 to 9"),
    ] {
        let e = G::parse_intent(&t.state, text).unwrap_err();
        assert_eq!(e.kind, RuleErrorKind::Notation, "{text}: {e}");
        assert!(e.detail.contains(says), "{text}: {e}");
    }
    // No guess when nothing is close, or two are as close.
    for text in ["11 leo:3", "10 xyzzy:3"] {
        let e = G::parse_intent(&t.state, text).unwrap_err();
        assert!(!e.detail.contains("did you mean"), "{text}: {e}");
    }
}

/// Three boards `x`, `y`, `z` of 10 small stars (no lines), three seats.
fn three_tens() -> Table {
    let boards = ["x", "y", "z"]
        .into_iter()
        .map(|id| board(id, [10, 8], 10, &[], &[]))
        .collect();
    Table::new(3, boards, 9)
}

/// Places the first token of the seat's hand on `star`.
fn any(t: &mut Table, seat: Seat, star: &str) {
    let intent = G::intents(&t.state, seat, &t.own[seat])
        .into_iter()
        .find(|i| i.star.to_string() == star)
        .unwrap_or_else(|| panic!("{} cannot play on {star}", tag(seat)));
    t.mv(seat, &intent.to_string());
}

#[test]
fn a_seat_with_an_empty_hand_is_skipped() {
    let mut t = three_tens();
    // Rounds 1–5: P1 on y, P2 and P3 fill x (P3 completes it in round 5).
    for r in 1..=5 {
        any(&mut t, 0, &format!("y:{r}"));
        any(&mut t, 1, &format!("x:{}", 2 * r - 1));
        any(&mut t, 2, &format!("x:{}", 2 * r));
    }
    assert_eq!(t.state.history().len(), 1);
    assert_eq!(t.state.hand_size(1), 9);
    // Rounds 6–9: P1 goes on with y (9 tokens out), P2 and P3 on z.
    for r in 6..=9 {
        any(&mut t, 0, &format!("y:{r}"));
        any(&mut t, 1, &format!("z:{}", 2 * (r - 5) - 1));
        any(&mut t, 2, &format!("z:{}", 2 * (r - 5)));
    }
    assert_eq!(t.state.hand_size(0), 0);
    // P1 has nothing in hand: P2 moves after P3.
    assert_eq!(t.turn(), Turn::Move(1));
    any(&mut t, 1, "z:9");
    assert_eq!(t.turn(), Turn::Move(2));
    any(&mut t, 2, "z:10"); // completes z; the player after P3 is P1: skipped.
    assert_eq!(t.state.history().len(), 2);
    assert_eq!(t.turn(), Turn::Move(1));
    let view = G::view(&t.state, None, None);
    assert_eq!(view.seats[0].hand, 0);
}

#[test]
fn a_game_nobody_can_finish_stalls() {
    // Each seat fills 9 of the 10 stars of its own board: 27 tokens, 30 stars.
    let mut t = three_tens();
    for r in 1..=9 {
        for (seat, id) in ["x", "y", "z"].into_iter().enumerate() {
            assert_eq!(t.turn(), Turn::Move(seat));
            any(&mut t, seat, &format!("{id}:{r}"));
        }
    }
    assert_eq!(t.turn(), Turn::Over);
    assert_eq!(t.state.ended(), Some(Ending::Stalled));
    let view = G::view(&t.state, None, None);
    assert_eq!(view.ended, Some(Ending::Stalled));
    assert_eq!(
        view.turn,
        TurnView::Over {
            ending: Ending::Stalled
        }
    );
    assert!(G::render_text(&view, &[]).contains("Game over: stalled"));
    let e = t.try_move(0, "1 x:10").unwrap_err();
    assert_eq!(e.rule, "game-over");
    // Nobody earned anything: all share first place.
    assert!(
        G::standings(&t.state)
            .iter()
            .all(|s| s.rank == 1 && s.score == 0)
    );
}

#[test]
fn a_pending_board_cannot_be_played_until_drawn() {
    // Five boards of 2 large stars, three seats: two stay in the stack.
    let mut t = Table::new(3, set(5, 2, &[1, 2]), 10);
    let open = t.open_ids();
    let x = open[0].clone();
    t.mv(0, &format!("10 {x}:1"));
    t.mv(1, &format!("10 {x}:2")); // completes x, face up
    assert_eq!(
        G::pending(&t.state),
        vec![PendingEvent { id: 0, causer: 1 }]
    );
    t.reveal(); // P1 reveals its 10: a tie, 1 coin each
    assert_eq!(t.state.coins(), [1, 1, 0]);
    assert_eq!(t.turn(), Turn::Move(2));
    let waiting = t
        .state
        .slots
        .iter()
        .position(|s| matches!(s, Slot::Waiting { .. }))
        .unwrap();
    let view = G::view(&t.state, None, None);
    assert_eq!(view.slots[waiting].status, SlotStatus::Pending);
    assert_eq!(view.slots[waiting].draw, Some(0));
    assert!(view.slots[waiting].board.is_none());
    assert_eq!(view.stack, 2);
    assert!(G::render_text(&view, &[]).contains("nothing can be played here until it is drawn"));
    let e = t.try_move(2, &format!("1 {x}:1")).unwrap_err();
    assert_eq!(e.rule, "board-not-in-play");
    assert!(e.detail.contains("has been scored already"), "{e}");
    let intents = G::intents(&t.state, 2, &t.own[2]);
    assert!(intents.iter().all(|i| i.star.board.as_str() != x));
    assert_eq!(
        intents.len(),
        8 * 4,
        "8 distinct tokens × 2 open boards × 2 stars"
    );
    // An unknown event is refused; the real one opens a new board.
    let e = G::resolve(&mut t.state, 7, &mut Draw::new([0; 32])).unwrap_err();
    assert_eq!(e.rule, "no-such-event");
    t.resolve(11);
    assert!(G::pending(&t.state).is_empty());
    assert!(matches!(t.state.slots[waiting], Slot::Open(_)));
    assert_eq!(t.state.stack_len(), 1);
    assert_eq!(G::intents(&t.state, 2, &t.own[2]).len(), 8 * 6);
}

#[test]
fn a_draw_resolved_during_the_reveals_is_the_same_board_and_waits_for_the_scoring() {
    let play = |resolve_early: bool| {
        let mut t = Table::new(3, set(5, 2, &[1, 2]), 12);
        let x = t.open_ids()[0].clone();
        let slot = t.slot_of(&x);
        t.mv(0, &format!("10 {x}:1"));
        t.mv(1, &format!("7 {x}:2"));
        if resolve_early {
            t.resolve(13);
            // Drawn, but the old board is still being scored.
            assert!(G::pending(&t.state).is_empty());
            let view = G::view(&t.state, None, None);
            assert_eq!(view.slots[slot].status, SlotStatus::Scoring);
            assert_eq!(view.slots[slot].board.as_ref().unwrap().id.as_str(), x);
        }
        t.reveal();
        if !resolve_early {
            assert!(matches!(t.state.slots[slot], Slot::Waiting { .. }));
            t.resolve(13);
        }
        // P1 10 first 2, P2 7 second 0 (a 2-star board pays 2/0).
        assert_eq!(t.state.coins(), [2, 0, 0]);
        let Slot::Open(b) = &t.state.slots[slot] else {
            panic!("the new board is open")
        };
        assert!(b.stars.iter().all(Option::is_none));
        t.state.boards[b.board].id.to_string()
    };
    assert_eq!(play(true), play(false));
}

#[test]
fn a_board_promised_to_an_earlier_draw_is_not_promised_again() {
    // Four boards, three seats: one board in the stack.
    let mut t = Table::new(3, set(4, 2, &[]), 14);
    let open = t.open_ids();
    t.mv(0, &format!("1 {}:1", open[0]));
    t.mv(1, &format!("1 {}:2", open[0])); // completes: draw 0 promised the last board
    assert_eq!(G::pending(&t.state).len(), 1);
    t.mv(2, &format!("1 {}:1", open[1]));
    t.mv(0, &format!("3 {}:2", open[1])); // completes: nothing left to promise
    assert_eq!(
        G::pending(&t.state),
        vec![PendingEvent { id: 0, causer: 1 }]
    );
    assert_eq!(
        t.state
            .slots
            .iter()
            .filter(|s| matches!(s, Slot::Empty))
            .count(),
        1
    );
    t.resolve(15);
    assert_eq!(t.state.stack_len(), 0);
    assert_eq!(t.open_ids().len(), 2);
}

#[test]
fn the_game_ends_when_every_board_is_scored() {
    // Three boards of 2 small stars, no stack.
    let mut t = Table::new(3, set(3, 2, &[]), 16);
    t.mv(0, "1 a:1");
    t.mv(1, "1 a:2"); // a: tie 1 = 1, 1 token each → 1 coin each
    assert_eq!(t.turn(), Turn::Move(2));
    t.mv(2, "5 b:1");
    t.mv(0, "3 b:2"); // b: P3 5 first 2, P1 3 second 0
    assert_eq!(t.turn(), Turn::Move(1));
    t.mv(1, "10 c:1");
    t.mv(2, "bh c:2"); // c: bh swallows the 10: P3 alone, 2 + 0 = 2
    assert_eq!(t.turn(), Turn::Over);
    assert_eq!(t.state.ended(), Some(Ending::AllBoardsScored));
    // P1 1 (a); P2 1 (a); P3 2 (b) + 2 (c) = 4.
    assert_eq!(t.state.coins(), [1, 1, 4]);
    let standings = G::standings(&t.state);
    assert_eq!(
        standings
            .iter()
            .map(|s| (s.seat, s.rank, s.score))
            .collect::<Vec<_>>(),
        [(2, 1, 4), (0, 2, 1), (1, 2, 1)]
    );
    let text = G::render_text(&G::view(&t.state, None, None), &[]);
    assert!(
        text.contains("Game over: every board has been scored."),
        "{text}"
    );
    assert!(text.contains("seat 2 alone, both prizes"), "{text}");
    assert!(
        text.contains("removed: c:1 seat 1 10 (swallowed by c:2)"),
        "{text}"
    );
    assert!(
        text.contains("seat 2 5 points, 1 left, 1st: +2 coins"),
        "{text}"
    );
}

#[test]
fn setup_checks_seats_and_boards() {
    let mut d = Draw::new([0; 32]);
    let e = G::setup(&Options::default(), 2, &mut d).unwrap_err();
    assert_eq!((e.kind, e.rule), (RuleErrorKind::BadSetup, "seats"));
    let e = G::setup(&Options::default(), 6, &mut d).unwrap_err();
    assert_eq!(e.rule, "seats");
    let options = Options {
        boards: Some(set(3, 3, &[])),
        ..Options::default()
    };
    let e = G::setup(&options, 4, &mut d).unwrap_err();
    assert_eq!(e.rule, "board-count");
    assert!(e.detail.contains("4 players need at least 4 boards"), "{e}");
    let mut bad = set(3, 3, &[]);
    bad[2].lines.push([3, 3]);
    let options = Options {
        boards: Some(bad),
        ..Options::default()
    };
    assert_eq!(
        G::setup(&options, 3, &mut d).unwrap_err().rule,
        "board-lines"
    );
    // The default game deals one board per seat, in a reproducible way.
    for seats in 3..=5 {
        let a = G::setup(&Options::default(), seats, &mut Draw::new([3; 32])).unwrap();
        let b = G::setup(&Options::default(), seats, &mut Draw::new([3; 32])).unwrap();
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
        assert_eq!(a.slots.len(), seats);
        assert_eq!(a.stack_len(), 12 - seats);
        // The stack keeps listed order.
        assert!(a.stack.windows(2).all(|w| w[0] < w[1]));
    }
}

#[test]
fn options_from_the_command_line_and_in_the_genesis() {
    let pairs = |v: &[(&str, &str)]| -> Vec<(String, String)> {
        v.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    };
    let o = G::options(&[], None).unwrap();
    assert_eq!(
        serde_json::to_string(&o).unwrap(),
        r#"{"doubling":"additive","tie":"coins"}"#
    );
    let o = G::options(
        &pairs(&[("doubling", "compound"), ("tie", "nothing")]),
        None,
    )
    .unwrap();
    assert_eq!((o.doubling, o.tie), (Doubling::Compound, Tie::Nothing));
    let e = G::options(&pairs(&[("doubling", "triple")]), None).unwrap_err();
    assert_eq!((e.kind, e.rule), (RuleErrorKind::BadSetup, "option-value"));
    assert!(e.detail.contains("doubling is additive or compound"), "{e}");
    let e = G::options(&pairs(&[("ties", "coins")]), None).unwrap_err();
    assert_eq!(e.rule, "option");
    assert!(
        e.detail
            .contains("doubling=additive|compound and tie=coins|nothing"),
        "{e}"
    );
    let e = G::options(&pairs(&[("tie", "coins"), ("tie", "nothing")]), None).unwrap_err();
    assert_eq!(e.rule, "option");
    let e = G::options(&[], Some("{}")).unwrap_err();
    assert_eq!(e.rule, "board-file");
    // A custom set is kept whole and round-trips through the genesis.
    let text = board::board_set_json(&set(3, 2, &[1]));
    let o = G::options(&[], Some(&text)).unwrap();
    let json = serde_json::to_string(&o).unwrap();
    assert!(
        json.starts_with(r#"{"doubling":"additive","tie":"coins","boards":[{"id":"a""#),
        "{json}"
    );
    assert!(!json.contains('.'), "integers only: {json}");
    let back: Options = serde_json::from_str(&json).unwrap();
    assert_eq!(back, o);
    assert!(
        serde_json::from_str::<Options>(r#"{"doubling":"additive","tie":"coins","seed":1}"#)
            .is_err()
    );
    let v = G::variants();
    assert_eq!(v[0].0, "doubling");
    assert_eq!(v[0].1, ["additive", "compound"]);
    assert_eq!(v[1].1, ["coins", "nothing"]);
}

#[test]
fn actions_are_strict_json() {
    let a: Action = serde_json::from_str(r#"{"star":"leo:3","token":"10"}"#).unwrap();
    assert_eq!(a.token, Some(Ten));
    assert!(serde_json::from_str::<Action>(r#"{"star":"leo:3","token":"10","x":1}"#).is_err());
    assert!(serde_json::from_str::<Action>(r#"{"star":"Leo:3"}"#).is_err());
    assert!(serde_json::from_str::<Action>(r#"{"star":"leo:3","token":"11"}"#).is_err());
    assert_eq!(G::hidden_values().len(), 8);
}

#[test]
fn the_text_view_labels_every_star() {
    let mut t = Table::with(4, &Options::default(), 17);
    let open = t.open_ids();
    let first = t
        .state
        .boards
        .iter()
        .find(|b| b.id.as_str() == open[0])
        .unwrap()
        .clone();
    let large = first
        .numbers()
        .find(|&n| first.star(n).unwrap().large)
        .unwrap();
    t.mv(0, &format!("6 {}:{large}", first.id));
    let mine = G::view(&t.state, Some(0), Some(&t.own[0]));
    let names: Vec<String> = ["Anna", "Ben", "Cleo", "Dan"].map(String::from).to_vec();
    let text = G::render_text(&mine, &names);
    for b in &open {
        let def = t.state.boards.iter().find(|d| d.id.as_str() == b).unwrap();
        for n in def.numbers() {
            assert!(
                text.contains(&format!("{b}:{n} ")),
                "{b}:{n} missing:\n{text}"
            );
        }
    }
    assert!(text.contains("Anna (you)"), "{text}");
    assert!(
        text.contains("Your hand (Anna): 1 3 5 7 10 bh ds ds"),
        "{text}"
    );
    assert!(
        text.contains("Anna 6 (face down, only you see it)"),
        "{text}"
    );
    assert!(text.contains("Turn: Ben places a token"), "{text}");
    let spectator = G::render_text(&G::view(&t.state, None, None), &names);
    assert!(spectator.contains("Anna face down"), "{spectator}");
    // Without names (the referee), seats are numbered.
    let bare = G::render_text(&G::view(&t.state, None, None), &[]);
    assert!(bare.contains("seat 0 face down"), "{bare}");
    assert!(!spectator.contains("Your hand"), "{spectator}");
}

/// Plays whole games with uniformly drawn intents, emulating the protocol:
/// before an entry by a seat, the draws caused by other seats are resolved.
fn random_game(seats: usize, options: &Options, seed: u8) -> (Table, Counts) {
    let mut t = Table::with(seats, options, seed);
    let mut pick = Draw::new([seed.wrapping_add(100); 32]);
    let mut resolver = 0u8;
    let mut counts = Counts::default();
    let view_schema = serde_json::to_value(schemars::schema_for!(View)).unwrap();
    let view_schema = jsonschema::validator_for(&view_schema).unwrap();
    for _ in 0..2000 {
        let actor = match t.turn() {
            Turn::Move(s) | Turn::Reveal(s, _) => s,
            Turn::Over => return (t, counts),
        };
        for e in G::pending(&t.state) {
            if e.causer != actor {
                resolver = resolver.wrapping_add(1);
                let during_reveals = matches!(t.turn(), Turn::Reveal(..));
                G::resolve(&mut t.state, e.id, &mut Draw::new([resolver; 32])).unwrap();
                counts.draws += 1;
                counts.draws_during_reveals += usize::from(during_reveals);
            }
        }
        match t.turn() {
            Turn::Move(s) => {
                let intents = G::intents(&t.state, s, &t.own[s]);
                assert!(!intents.is_empty(), "{} to move has no move", tag(s));
                let i = &intents[pick.below(intents.len())];
                t.mv(s, &i.to_string());
            }
            Turn::Reveal(..) => {
                t.reveal();
                counts.reveals += 1;
            }
            Turn::Over => unreachable!(),
        }
        // Invariants: every token is in hand or on a board; coins ≥ 0.
        for s in 0..seats {
            let hand = t.state.hand(s, &t.own[s]).unwrap();
            assert_eq!(hand.total() + t.state.placements(s).count() as u32, 9);
            assert_eq!(hand.total(), t.state.hand_size(s));
            assert!(t.state.coins()[s] >= 0);
        }
        let spectator = G::view(&t.state, None, None);
        let json = serde_json::to_value(&spectator).unwrap();
        assert!(
            view_schema.is_valid(&json),
            "the view does not match its schema: {json}"
        );
        let mine = serde_json::to_value(G::view(&t.state, Some(0), Some(&t.own[0]))).unwrap();
        assert!(view_schema.is_valid(&mine));
        for slot in &spectator.slots {
            for star in slot.board.iter().flat_map(|b| &b.stars) {
                if let Some(o) = star.occupant {
                    assert!(o.face != Shown::FaceDown || o.token.is_none());
                    assert_ne!(o.face, Shown::FaceDownOwn);
                }
            }
        }
    }
    panic!("the game did not end in 2000 entries");
}

#[derive(Default)]
struct Counts {
    reveals: usize,
    draws: usize,
    draws_during_reveals: usize,
}

#[test]
fn random_games_end_and_keep_their_books() {
    let mut endings = Vec::new();
    let mut all = Counts::default();
    for seed in 0..12u8 {
        let seats = 3 + usize::from(seed % 3);
        let options = Options {
            doubling: if seed % 2 == 0 {
                Doubling::Additive
            } else {
                Doubling::Compound
            },
            tie: if seed % 4 < 2 {
                Tie::Coins
            } else {
                Tie::Nothing
            },
            boards: None,
        };
        let (t, counts) = random_game(seats, &options, seed);
        all.reveals += counts.reveals;
        all.draws += counts.draws;
        all.draws_during_reveals += counts.draws_during_reveals;
        let ended = t.state.ended().expect("over");
        match ended {
            Ending::AllBoardsScored => assert_eq!(t.state.history().len(), 12),
            Ending::Stalled => assert!(t.state.history().len() < 12),
            Ending::Withdrawn { .. } => panic!("nobody withdraws in self-play"),
        }
        endings.push(ended);
        assert_eq!(G::standings(&t.state).len(), seats);
        // The coins are the sum of what every board paid.
        for s in 0..seats {
            let paid: i64 = t
                .state
                .history()
                .iter()
                .map(|h| h.score.seats[s].coins)
                .sum();
            assert_eq!(paid, t.state.coins()[s]);
        }
        let view = G::view(&t.state, None, None);
        assert_eq!(view.ended, Some(ended));
        let _ = G::render_text(&view, &[]);
    }
    assert!(endings.contains(&Ending::AllBoardsScored));
    // The games went through every path: reveals, and draws resolved both
    // during the reveals and after the scoring.
    assert!(all.reveals > 0);
    assert!(all.draws_during_reveals > 0);
    assert!(all.draws > all.draws_during_reveals);
}

#[test]
fn schemas_of_what_enters_the_log() {
    let check = |schema: schemars::Schema, json: &str| {
        let schema = serde_json::to_value(schema).unwrap();
        let value: serde_json::Value = serde_json::from_str(json).unwrap();
        jsonschema::is_valid(&schema, &value)
    };
    assert!(check(
        schemars::schema_for!(Action),
        r#"{"star":"leo:3","token":"10"}"#
    ));
    assert!(check(schemars::schema_for!(Action), r#"{"star":"leo:3"}"#));
    assert!(!check(
        schemars::schema_for!(Action),
        r#"{"star":"leo:3","token":"11"}"#
    ));
    assert!(check(
        schemars::schema_for!(Options),
        r#"{"doubling":"compound","tie":"nothing"}"#
    ));
    assert!(!check(
        schemars::schema_for!(Options),
        r#"{"doubling":"double"}"#
    ));
    assert!(check(schemars::schema_for!(Token), r#""bh""#));
    let position =
        r#"{"board":"leo","tokens":[{"star":3,"seat":0,"token":"10"}],"purses":[0,0,0]}"#;
    assert!(check(schemars::schema_for!(Position), position));
    let report = serde_json::to_string(&referee::score_position(position).unwrap()).unwrap();
    assert!(check(
        schemars::schema_for!(referee::RefereeReport),
        &report
    ));
}

#[test]
fn the_shipped_boards_can_never_stall() {
    // n boards in play hold at most 9n stars when no board has more than 9,
    // and n seats hold 9n tokens: before the tokens run out a board is full,
    // is scored, and gives its tokens back. So no game on the shipped set
    // can stall, whatever is dealt (a random game on an earlier set with
    // 10-star boards did: a stall needs every hand empty and no board full,
    // which 10-star boards allow).
    let boards = board::default_boards();
    assert_eq!(boards.len(), 12);
    for b in &boards {
        assert!(b.star_count() <= 9, "{} has {} stars", b.id, b.star_count());
        assert!(b.star_count() >= 5, "{} has {} stars", b.id, b.star_count());
        assert!(b.stars.iter().any(|s| s.large), "{} has a large star", b.id);
        assert_eq!(
            b.prizes,
            [b.star_count() as u32, b.star_count() as u32 - 2],
            "{}",
            b.id
        );
    }
}

/// Long board ids (past what a short id keeps inline) on a small set whose
/// 10-star boards can stall a game.
fn long_id_set() -> Vec<Board> {
    let lines: Vec<(u8, u8)> = (1..10).map(|i| (i, i + 1)).collect();
    let mut boards = vec![
        board(
            "a-board-id-longer-than-twenty-two-bytes",
            [10, 8],
            10,
            &[2, 5, 9],
            &lines,
        ),
        board("exactly-twenty-two-byt", [9, 7], 10, &[1, 10], &lines),
        board("twenty-three-bytes-long", [7, 5], 6, &[3], &lines[..5]),
        board("x", [5, 3], 5, &[1, 2, 3], &lines[..4]),
    ];
    boards.extend(set(3, 7, &[4, 7]));
    boards
}

/// One self-play game written out in full: every list of intents, every
/// sealed move, every view, and what the rules say to a set of wrong moves
/// tried on the side (out of turn, random tokens and stars, raw actions
/// with wrong commitments or reveals, lying reveals and resignations). A
/// refused move must leave the state exactly as it was.
fn transcript(seats: usize, options: &Options, seed: u8) -> String {
    let mut draw = Draw::new([seed; 32]);
    let state = G::setup(options, seats, &mut draw).unwrap();
    let mut t = Transcript {
        seats,
        out: String::new(),
        draw,
        probe: Draw::new([seed ^ 0x5a; 32]),
        boards: state.boards().to_vec(),
        state,
        own: vec![Own::default(); seats],
        at: 1,
    };
    for _ in 0..2000 {
        for e in G::pending(&t.state) {
            writeln!(t.out, "resolve {e:?}").unwrap();
            G::resolve(&mut t.state, e.id, &mut t.draw).unwrap();
        }
        let turn = G::turn(&t.state);
        writeln!(t.out, "turn {turn:?}").unwrap();
        match turn {
            Turn::Over => break,
            Turn::Move(s) => t.move_turn(s),
            Turn::Reveal(s, refs) => t.reveal_turn(s, &refs),
        }
        t.at += 1;
        t.write_views();
    }
    let Transcript { mut out, state, .. } = t;
    writeln!(
        out,
        "history {}",
        serde_json::to_string(state.history()).unwrap()
    )
    .unwrap();
    writeln!(out, "{}", G::render_text(&G::view(&state, None, None), &[])).unwrap();
    out
}

/// A self-play game being written out: the game's own draw decides the
/// moves played, `probe` the wrong ones tried on the side, so that trying
/// more never changes the game.
struct Transcript {
    seats: usize,
    out: String,
    draw: Draw,
    probe: Draw,
    state: State,
    own: Vec<Own<Token>>,
    /// The set's boards, as set up.
    boards: Vec<Board>,
    /// The entry being played.
    at: u64,
}

fn random_token(probe: &mut Draw) -> Token {
    Token::ALL[probe.below(Token::ALL.len())]
}

impl Transcript {
    /// A star of a random board, perhaps one the board lacks.
    fn random_label(&mut self) -> String {
        let b = &self.boards[self.probe.below(self.boards.len())];
        let star = self.probe.below(b.star_count() + 2) as StarNo;
        format!("{}:{star}", b.id)
    }

    /// Tries a change on a copy; a refusal must leave no trace.
    fn tried(&mut self, what: &str, r: &dyn Fn(&mut State) -> Result<(), RuleError>) {
        let mut copy = self.state.clone();
        match r(&mut copy) {
            Ok(()) => writeln!(self.out, "{what}: ok {:?}", G::turn(&copy)).unwrap(),
            Err(e) => {
                assert_eq!(
                    format!("{copy:?}"),
                    format!("{:?}", self.state),
                    "{what}: {e}"
                );
                writeln!(self.out, "{what}: {:?} {e}", e.kind).unwrap()
            }
        }
    }

    /// Seat `s` moves: the wrong moves first, then one of its intents.
    fn move_turn(&mut self, s: Seat) {
        let other = (s + 1) % self.seats;
        let all = G::intents(&self.state, s, &self.own[s]);
        let list: Vec<String> = all.iter().map(Intent::to_string).collect();
        writeln!(self.out, "intents {}", list.join(",")).unwrap();
        assert!(G::intents(&self.state, other, &self.own[other]).is_empty());
        self.wrong_seals(s, other);
        self.raw_actions(s, other);
        self.completions(s);
        self.resignations(s);
        let ctx = Context {
            seat: s,
            at: self.at,
            commitments: 0,
            reveals: Vec::new(),
        };
        self.tried("reveal out of turn", &|st| G::reveal(st, &ctx));
        let intent = &all[self.draw.below(all.len())];
        let action =
            crate::games::play_own::<G>(&mut self.state, s, intent, &mut self.own[s], self.at)
                .unwrap();
        writeln!(
            self.out,
            "play {intent} {action:?} {}",
            G::narrate(&self.state, &action, &[])
        )
        .unwrap();
    }

    /// Wrong moves, sealed and parsed.
    fn wrong_seals(&mut self, s: Seat, other: Seat) {
        for _ in 0..3 {
            let token = random_token(&mut self.probe);
            let text = format!("{} {}", token, self.random_label());
            match G::parse_intent(&self.state, &text) {
                Err(e) => writeln!(self.out, "parse {text}: {e}").unwrap(),
                Ok(i) => {
                    for seat in [s, other] {
                        match G::seal(&self.state, seat, &i, &self.own[seat]) {
                            Ok(sealed) => {
                                writeln!(self.out, "seal {seat} {i}: {sealed:?}").unwrap()
                            }
                            Err(e) => writeln!(self.out, "seal {seat} {i}: {e}").unwrap(),
                        }
                    }
                }
            }
        }
    }

    /// Raw actions a cheating program could write.
    fn raw_actions(&mut self, s: Seat, other: Seat) {
        for _ in 0..3 {
            let label = self.random_label();
            let Ok(star) = label.parse::<StarLabel>() else {
                continue;
            };
            let probe = &mut self.probe;
            let token = match probe.below(3) {
                0 => None,
                _ => Some(random_token(probe)),
            };
            let commitments = probe.below(3) as u32;
            let mut refs: Vec<HiddenRef> = self.own[s].hidden.keys().copied().collect();
            refs.retain(|_| probe.below(3) == 0);
            if probe.below(2) == 0 {
                // The reveals a completion asks for, with random values.
                let state = &self.state;
                refs = state
                    .slots
                    .iter()
                    .filter_map(Slot::in_play)
                    .find(|b| state.boards[b.board].id == star.board && b.free() == 1)
                    .map(|b| b.face_down(s))
                    .unwrap_or_default();
            }
            let reveals: Vec<(HiddenRef, Token)> = refs
                .iter()
                .map(|r| match probe.below(2) {
                    0 => (*r, self.own[s].hidden[r]),
                    _ => (*r, random_token(probe)),
                })
                .collect();
            let seat = if probe.below(5) == 0 { other } else { s };
            let ctx = Context {
                seat,
                at: self.at,
                commitments,
                reveals,
            };
            let action = Action { star, token };
            self.tried(&format!("play {ctx:?} {action:?}"), &|st| {
                G::play(st, &ctx, &action)
            });
        }
    }

    /// Completions of a board with one free star, with the reveals they
    /// ask for holding random values.
    fn completions(&mut self, s: Seat) {
        let state = self.state.clone();
        for b in state.slots.iter().filter_map(|slot| match slot {
            Slot::Open(b) if b.free() == 1 => Some(b),
            _ => None,
        }) {
            let free = b.stars.iter().position(Option::is_none).unwrap();
            let star = state.boards[b.board].label(free as StarNo + 1);
            for _ in 0..2 {
                let probe = &mut self.probe;
                let reveals: Vec<(HiddenRef, Token)> = b
                    .face_down(s)
                    .into_iter()
                    .map(|r| match probe.below(3) {
                        0 => (r, self.own[s].hidden[&r]),
                        _ => (r, random_token(probe)),
                    })
                    .collect();
                let ctx = Context {
                    seat: s,
                    at: self.at,
                    commitments: 0,
                    reveals,
                };
                let action = Action {
                    star: star.clone(),
                    token: Some(random_token(&mut self.probe)),
                };
                self.tried(&format!("complete {ctx:?} {action:?}"), &|st| {
                    G::play(st, &ctx, &action)
                });
            }
        }
    }

    /// Resignations, honest and lying.
    fn resignations(&mut self, s: Seat) {
        let honest: Vec<(HiddenRef, Token)> =
            self.own[s].hidden.iter().map(|(r, t)| (*r, *t)).collect();
        let lying: Vec<(HiddenRef, Token)> = honest
            .iter()
            .map(|&(r, _)| (r, random_token(&mut self.probe)))
            .collect();
        for reveals in [honest, lying] {
            let ctx = Context {
                seat: s,
                at: self.at,
                commitments: 0,
                reveals,
            };
            self.tried(&format!("resign {ctx:?}"), &|st| G::resign(st, &ctx));
        }
    }

    /// Seat `s` reveals: true and lying reveals by the wrong seats or with
    /// wrong commitments first, then the true ones.
    fn reveal_turn(&mut self, s: Seat, refs: &[HiddenRef]) {
        let other = (s + 1) % self.seats;
        for lie in [false, true] {
            let probe = &mut self.probe;
            let reveals: Vec<(HiddenRef, Token)> = refs
                .iter()
                .map(|r| match lie && probe.below(2) == 0 {
                    false => (*r, self.own[s].hidden[r]),
                    true => (*r, random_token(probe)),
                })
                .collect();
            for (seat, commitments) in [(s, 0), (other, 0), (s, 1)] {
                let ctx = Context {
                    seat,
                    at: self.at,
                    commitments,
                    reveals: reveals.clone(),
                };
                self.tried(&format!("reveal {ctx:?}"), &|st| G::reveal(st, &ctx));
            }
            let mut fewer = reveals.clone();
            fewer.pop();
            let ctx = Context {
                seat: s,
                at: self.at,
                commitments: 0,
                reveals: fewer,
            };
            self.tried(&format!("reveal {ctx:?}"), &|st| G::reveal(st, &ctx));
        }
        let intent = Intent {
            token: Token::One,
            star: self.boards[0].label(1),
        };
        writeln!(
            self.out,
            "seal during reveals: {:?}",
            G::seal(&self.state, s, &intent, &self.own[s]).map(|_| ())
        )
        .unwrap();
        crate::games::reveal_own::<G>(&mut self.state, s, refs, &mut self.own[s], self.at).unwrap();
    }

    /// The views, everybody's and each seat's, and the standings.
    fn write_views(&mut self) {
        let state = &self.state;
        writeln!(
            self.out,
            "view {}",
            serde_json::to_string(&G::view(state, None, None)).unwrap()
        )
        .unwrap();
        for (seat, own) in self.own.iter().enumerate() {
            let mine = serde_json::to_string(&G::view(state, Some(seat), Some(own))).unwrap();
            writeln!(self.out, "view {seat} {mine} {:?}", state.hand(seat, own)).unwrap();
        }
        writeln!(
            self.out,
            "{:?} {:?} {}",
            G::standings(state),
            state.ended(),
            state.stack_len()
        )
        .unwrap();
    }
}

/// Self-play games under every option and a custom set with long board ids,
/// pinned byte for byte: the engine may get faster, never different.
#[test]
fn self_play_transcripts_are_pinned() {
    let mut all = Vec::new();
    for seed in 0..24u8 {
        let seats = 3 + usize::from(seed % 3);
        let options = Options {
            doubling: if seed % 2 == 0 {
                Doubling::Additive
            } else {
                Doubling::Compound
            },
            tie: if seed % 4 < 2 {
                Tie::Coins
            } else {
                Tie::Nothing
            },
            boards: (seed % 3 == 1).then(long_id_set),
        };
        let t = transcript(seats, &options, seed);
        all.extend_from_slice(&crate::crypto::sha256(t.as_bytes()));
        if std::env::var_os("STARRY_SKY_TRANSCRIPT").is_some() {
            std::fs::write(format!("/tmp/sky-transcript-{seed}.txt"), &t).unwrap();
        }
    }
    assert_eq!(
        hex::encode(crate::crypto::sha256(&all)),
        "942be385168b781431f38965e1bef422cb43d8c07acfe09af380f24ad16f9c6c"
    );
}

/// `random_intent` draws without listing, and is the list's draw exactly:
/// in every position of seeded games (every option, a custom set with long
/// ids, 3 to 5 seats, and with the seat not to move), it sees as many
/// intents as `intents` lists and maps each index to the listed intent at
/// that index. An index is a bijection onto the legal intents, so a uniform
/// index gives a uniform legal intent, and no illegal one can come out;
/// each drawn intent is also sealed, to be sure.
#[test]
fn a_random_intent_is_the_listed_intent_at_the_drawn_index() {
    let mut positions = 0;
    for seed in 0..12u8 {
        let seats = 3 + usize::from(seed % 3);
        let options = Options {
            doubling: Doubling::Compound,
            tie: Tie::Coins,
            boards: (seed % 3 == 1).then(long_id_set),
        };
        let mut draw = Draw::new([seed; 32]);
        let mut state = G::setup(&options, seats, &mut draw).unwrap();
        let mut own: Vec<Own<Token>> = vec![Own::default(); seats];
        let mut at = 1u64;
        loop {
            for e in G::pending(&state) {
                G::resolve(&mut state, e.id, &mut draw).unwrap();
            }
            for (seat, mine) in own.iter().enumerate() {
                let all = G::intents(&state, seat, mine);
                let mut seen = None;
                let first = StarrySky::random_intent(&state, seat, mine, |n| {
                    seen = Some(n);
                    0
                });
                if all.is_empty() {
                    assert!(first.is_none() && seen.is_none());
                    continue;
                }
                assert_eq!(seen, Some(all.len()));
                assert_eq!(first.as_ref(), all.first());
                positions += 1;
            }
            match G::turn(&state) {
                Turn::Over => break,
                Turn::Move(s) => {
                    let all = G::intents(&state, s, &own[s]);
                    for (k, listed) in all.iter().enumerate() {
                        let drawn = StarrySky::random_intent(&state, s, &own[s], |_| k).unwrap();
                        assert_eq!(&drawn, listed, "index {k} of {}", all.len());
                        G::seal(&state, s, &drawn, &own[s]).unwrap();
                    }
                    let intent =
                        StarrySky::random_intent(&state, s, &own[s], |n| draw.below(n)).unwrap();
                    crate::games::play_own::<G>(&mut state, s, &intent, &mut own[s], at).unwrap();
                }
                Turn::Reveal(s, refs) => {
                    crate::games::reveal_own::<G>(&mut state, s, &refs, &mut own[s], at).unwrap();
                }
            }
            at += 1;
        }
    }
    assert!(positions > 500, "{positions} positions");
}
