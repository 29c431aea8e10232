//! Scoring one completed board: black holes, double stars, totals, ranking
//! and who pays whom. Pure: the same board, tokens, options and purses give
//! the same report, which views and the offline referee show as they are.
//!
//! Every sum and product of points or coins is checked
//! ([`checked_score_board`]): a result that would not fit an `i64` is an
//! error, never a wrapped number or a panic. The game itself calls
//! [`score_board`], which cannot overflow on the values a game can hold (see
//! there); the offline referee, which scores whatever it is given, calls
//! [`checked_score_board`].

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::board::{Board, StarNo};
use super::token::Token;
use crate::games::{RuleError, Seat};

/// How several double stars next to one numbered token combine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Doubling {
    /// ×2 per double star: value × 2k (seed 001: three double stars make a
    /// 5 worth 30, not 40).
    #[default]
    Additive,
    /// Doubled and doubled again: value × 2^k.
    Compound,
}

impl Doubling {
    pub const NAMES: [&'static str; 2] = ["additive", "compound"];

    pub fn name(self) -> &'static str {
        match self {
            Doubling::Additive => "additive",
            Doubling::Compound => "compound",
        }
    }

    /// What a numbered token is worth next to `k` remaining double stars.
    /// Tokens are worth at most 10 and a star of a valid board has at most
    /// `MAX_STARS - 1` = 9 neighbours ([`super::board::MAX_STARS`]), so on a
    /// board this never overflows; [`Doubling::checked_apply`] is the
    /// checked form for any numbers.
    pub fn apply(self, value: i64, k: u32) -> i64 {
        self.checked_apply(value, k)
            .expect("a token's value times its double stars fits an i64")
    }

    /// [`Doubling::apply`], or `None` if the result would not fit an `i64`.
    pub fn checked_apply(self, value: i64, k: u32) -> Option<i64> {
        match (self, k) {
            (_, 0) => Some(value),
            (Doubling::Additive, k) => value.checked_mul(2)?.checked_mul(i64::from(k)),
            // 2^k itself must fit (`1 << 63` would be negative).
            (Doubling::Compound, k) => value.checked_mul(2i64.checked_pow(k)?),
        }
    }
}

/// What happens when the tie for first place cannot be broken.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Tie {
    /// Every seat gets 1 coin per own token left on the board, from the
    /// reserve (seeds 000, 001).
    #[default]
    Coins,
    /// Nobody is paid (seed 002).
    Nothing,
}

impl Tie {
    pub const NAMES: [&'static str; 2] = ["coins", "nothing"];

    pub fn name(self) -> &'static str {
        match self {
            Tie::Coins => "coins",
            Tie::Nothing => "nothing",
        }
    }
}

/// A token on a star of the board being scored (all are face up by now).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Placed {
    pub star: StarNo,
    /// The seat, 0-based (see docs/json.md).
    pub seat: Seat,
    pub token: Token,
}

/// Why a token left the board before the count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Why {
    /// A black hole joined to another black hole: they swallow each other.
    BlackHolePair,
    /// Swallowed by the black hole on this star (the lowest-numbered one if
    /// several are adjacent).
    Swallowed(StarNo),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Removed {
    pub star: StarNo,
    /// The seat, 0-based (see docs/json.md).
    pub seat: Seat,
    pub token: Token,
    pub why: Why,
}

/// A token still on the board at the count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Left {
    pub star: StarNo,
    /// The seat, 0-based (see docs/json.md).
    pub seat: Seat,
    pub token: Token,
    /// Remaining double stars next to it (they only matter for numbers).
    pub double_stars: u32,
    /// What it counts: 0 for black holes and double stars.
    pub value: i64,
}

/// One seat's result on this board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SeatScore {
    /// The seat, 0-based (see docs/json.md).
    pub seat: Seat,
    pub total: i64,
    pub tokens_left: u32,
    /// 1 = first; seats equal in total and tokens share a place; None for a
    /// seat with nothing left on the board.
    pub place: Option<u32>,
    /// Net coins from this board (prizes and compensation received, minus
    /// what the first-place seat paid out).
    pub coins: i64,
}

/// How the prizes went.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// Everything was swallowed: nobody is paid.
    Nobody,
    /// One seat alone is left: it takes both prizes. Seats are 0-based (see docs/json.md).
    Alone(Seat),
    /// The tie for first stands after counting tokens: no prizes. Seats are
    /// 0-based (see docs/json.md).
    TieForFirst(Vec<Seat>),
    /// First is clear, the tie for second stands: no second prize.
    TieForSecond {
        /// The first seat, 0-based (see docs/json.md).
        first: Seat,
        /// The seats tied for second, 0-based (see docs/json.md).
        tied: Vec<Seat>,
    },
    /// First and second are clear; third and below are paid by first.
    Ranked {
        /// The first seat, 0-based (see docs/json.md).
        first: Seat,
        /// The second seat, 0-based (see docs/json.md).
        second: Seat,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Payer {
    Reserve,
    /// The first-place seat, out of its purse. Seats are 0-based (see docs/json.md).
    Seat(Seat),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    FirstPrize,
    SecondPrize,
    BothPrizes,
    /// 1 coin per own token left on the board.
    TokensLeft,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Payment {
    /// The seat paid, 0-based (see docs/json.md).
    pub to: Seat,
    pub coins: i64,
    pub from: Payer,
    pub reason: Reason,
}

/// Everything about scoring one board.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BoardScore {
    /// Taken off before the count, in the order it happened.
    pub removed: Vec<Removed>,
    /// Still on the board at the count, by star.
    pub left: Vec<Left>,
    /// One per seat of the game, by seat.
    pub seats: Vec<SeatScore>,
    pub outcome: Outcome,
    /// Every transfer of coins, in the order made; none of 0 coins.
    pub payments: Vec<Payment>,
}

/// Scores a board. `placed` holds at most one token per star, every star
/// number on the board and every seat below `purses.len()`; `purses` are the
/// coins each seat holds before this board (first place pays third and below
/// out of its purse).
///
/// For the game's own values, which cannot overflow, so this never panics
/// on them: a validated board has at most
/// [`MAX_STARS`](super::board::MAX_STARS) stars, so a token is worth at
/// most 10 × 2^9 and a seat's total at most 10 of those. Purses start at 0
/// and only grow by what boards pay (first place pays others out of its own
/// purse, never below 0); each board of the set is scored at most once and
/// pays at most its two prizes (each below 2^32) and one coin per star, less
/// than 2^34 in all. The set is in the genesis, one log line, so it has far
/// fewer than 2^29 boards, and all purses together stay far below
/// `i64::MAX` (2^63). The referee, which scores arbitrary input, uses
/// [`checked_score_board`].
pub fn score_board(
    board: &Board,
    placed: &[Placed],
    doubling: Doubling,
    tie: Tie,
    purses: &[i64],
) -> BoardScore {
    checked_score_board(board, placed, doubling, tie, purses)
        .unwrap_or_else(|e| panic!("a board of the game scores without overflow: {e}"))
}

fn overflow(what: &str) -> RuleError {
    RuleError::bad_setup(
        "score-overflow",
        format!(
            "{what} does not fit in a 64-bit integer (at most {}); the position's numbers are too large",
            i64::MAX
        ),
    )
}

/// [`score_board`] with every sum and product checked and its preconditions
/// checked too: a token on a star the board lacks, a seat without a purse,
/// two tokens on one star, a board of more than 255 stars, or a number of
/// points or coins that would not fit an `i64` is an error, never a panic or
/// a wrapped number.
pub fn checked_score_board(
    board: &Board,
    placed: &[Placed],
    doubling: Doubling,
    tie: Tie,
    purses: &[i64],
) -> Result<BoardScore, RuleError> {
    let seats = purses.len();
    let mut on = tokens_by_star(board, placed, seats)?;
    let neighbours = neighbours_by_star(board);
    let removed = remove_black_holes(board, &mut on, &neighbours);
    let left = count_left(board, &on, &neighbours, doubling)?;
    let mut scores = seat_totals(&left, seats)?;
    let ranked = rank(&mut scores);
    let (outcome, payments) = share_prizes(board, &scores, &ranked, tie, purses)?;
    for p in &payments {
        scores[p.to].coins = scores[p.to]
            .coins
            .checked_add(p.coins)
            .ok_or_else(|| overflow(&format!("the coins seat {} wins", p.to)))?;
        if let Payer::Seat(s) = p.from {
            scores[s].coins = scores[s]
                .coins
                .checked_sub(p.coins)
                .ok_or_else(|| overflow(&format!("the coins seat {s} pays")))?;
        }
    }
    Ok(BoardScore {
        removed,
        left,
        seats: scores,
        outcome,
        payments,
    })
}

/// The token on each star, by star number (index 0 unused), once the
/// preconditions of [`checked_score_board`] are checked.
fn tokens_by_star(
    board: &Board,
    placed: &[Placed],
    seats: usize,
) -> Result<Vec<Option<Placed>>, RuleError> {
    let n = board.star_count();
    if n > usize::from(StarNo::MAX) {
        return Err(RuleError::bad_setup(
            "score-input",
            format!(
                "board `{}` has {n} stars; at most {} can be numbered",
                crate::text::excerpt(board.id.as_str()),
                StarNo::MAX
            ),
        ));
    }
    let mut on: Vec<Option<Placed>> = vec![None; n + 1];
    for p in placed {
        if p.seat >= seats || board.star(p.star).is_none() {
            return Err(RuleError::bad_setup(
                "score-input",
                format!(
                    "a token of seat {} on star {} cannot be scored: the board has stars 1 to {n} and there are purses for {seats} seats",
                    p.seat, p.star
                ),
            ));
        }
        if on[p.star as usize].replace(*p).is_some() {
            return Err(RuleError::bad_setup(
                "score-input",
                format!("star {} holds two tokens", p.star),
            ));
        }
    }
    Ok(on)
}

/// Each star's neighbours, by star number (index 0 unused). Lines naming a
/// star the board lacks are ignored (a validated board has none).
fn neighbours_by_star(board: &Board) -> Vec<Vec<StarNo>> {
    (0..=board.star_count() as StarNo)
        .map(|s| match s {
            0 => vec![],
            s => board
                .neighbours(s)
                .into_iter()
                .filter(|&m| board.star(m).is_some())
                .collect(),
        })
        .collect()
}

/// Whether star `s` holds a token `t`.
fn holds(on: &[Option<Placed>], s: StarNo, t: Token) -> bool {
    on[s as usize].is_some_and(|p| p.token == t)
}

/// Takes off what the black holes remove, in the order it happens.
fn remove_black_holes(
    board: &Board,
    on: &mut [Option<Placed>],
    neighbours: &[Vec<StarNo>],
) -> Vec<Removed> {
    let mut removed = Vec::new();

    // Black holes joined to black holes go first, all at once, so that a
    // chain vanishes whole instead of depending on the order we look.
    let pairs: Vec<StarNo> = board
        .numbers()
        .filter(|&s| {
            holds(on, s, Token::BlackHole)
                && neighbours[s as usize]
                    .iter()
                    .any(|&m| holds(on, m, Token::BlackHole))
        })
        .collect();
    for s in pairs {
        let p = on[s as usize].take().expect("a black hole is there");
        removed.push(Removed {
            star: s,
            seat: p.seat,
            token: p.token,
            why: Why::BlackHolePair,
        });
    }

    // The black holes left swallow every neighbour; none of those is a black
    // hole any more, so the order of swallowing does not matter.
    let holes: Vec<StarNo> = board
        .numbers()
        .filter(|&s| holds(on, s, Token::BlackHole))
        .collect();
    for s in board.numbers() {
        let by = neighbours[s as usize]
            .iter()
            .copied()
            .find(|m| holes.contains(m));
        if let (Some(by), Some(p)) = (by, on[s as usize]) {
            on[s as usize] = None;
            removed.push(Removed {
                star: s,
                seat: p.seat,
                token: p.token,
                why: Why::Swallowed(by),
            });
        }
    }
    removed
}

/// The tokens left at the count, by star, with what each is worth.
fn count_left(
    board: &Board,
    on: &[Option<Placed>],
    neighbours: &[Vec<StarNo>],
    doubling: Doubling,
) -> Result<Vec<Left>, RuleError> {
    let mut left: Vec<Left> = Vec::new();
    for s in board.numbers() {
        let Some(p) = on[s as usize] else { continue };
        // At most 254 neighbours: the board has at most 255 stars.
        let k = neighbours[s as usize]
            .iter()
            .filter(|&&m| holds(on, m, Token::DoubleStar))
            .count() as u32;
        let value = doubling
            .checked_apply(p.token.value(), k)
            .ok_or_else(|| overflow(&format!("the value of the token on star {s}")))?;
        left.push(Left {
            star: s,
            seat: p.seat,
            token: p.token,
            double_stars: k,
            value,
        });
    }
    Ok(left)
}

/// Each seat's total and tokens left, not yet placed nor paid.
fn seat_totals(left: &[Left], seats: usize) -> Result<Vec<SeatScore>, RuleError> {
    let mut scores: Vec<SeatScore> = (0..seats)
        .map(|seat| SeatScore {
            seat,
            total: 0,
            tokens_left: 0,
            place: None,
            coins: 0,
        })
        .collect();
    for l in left {
        let score = &mut scores[l.seat];
        score.total = score
            .total
            .checked_add(l.value)
            .ok_or_else(|| overflow(&format!("the total of seat {}", l.seat)))?;
        // At most one per star, and there are at most 255 stars.
        score.tokens_left += 1;
    }
    Ok(scores)
}

/// What ranks seats: the total, then the tokens left.
fn rank_key(s: &SeatScore) -> (i64, u32) {
    (s.total, s.tokens_left)
}

/// Places the seats with tokens left and returns them best first (seat
/// order among equals).
fn rank(scores: &mut [SeatScore]) -> Vec<Seat> {
    let seats = scores.len();
    let mut ranked: Vec<Seat> = (0..seats).filter(|&s| scores[s].tokens_left > 0).collect();
    ranked.sort_by(|&a, &b| {
        rank_key(&scores[b])
            .cmp(&rank_key(&scores[a]))
            .then(a.cmp(&b))
    });
    for &s in &ranked {
        let better = ranked
            .iter()
            .filter(|&&o| rank_key(&scores[o]) > rank_key(&scores[s]))
            .count();
        scores[s].place = Some(1 + better as u32);
    }
    ranked
}

/// How the prizes and the compensation for tokens left are paid.
fn share_prizes(
    board: &Board,
    scores: &[SeatScore],
    ranked: &[Seat],
    tie: Tie,
    purses: &[i64],
) -> Result<(Outcome, Vec<Payment>), RuleError> {
    let [first_prize, second_prize] = board.prizes.map(i64::from);
    let both_prizes = first_prize
        .checked_add(second_prize)
        .ok_or_else(|| overflow("the sum of both prizes"))?;
    let mut payments = Vec::new();
    let mut pay = |to: Seat, coins: i64, from: Payer, reason: Reason| {
        if coins > 0 {
            payments.push(Payment {
                to,
                coins,
                from,
                reason,
            });
        }
    };
    let tokens = |s: Seat| i64::from(scores[s].tokens_left);
    let tied = |a: Seat, b: Seat| rank_key(&scores[a]) == rank_key(&scores[b]);

    let outcome = match ranked {
        [] => Outcome::Nobody,
        [alone] => {
            pay(*alone, both_prizes, Payer::Reserve, Reason::BothPrizes);
            Outcome::Alone(*alone)
        }
        [a, b, ..] if tied(*a, *b) => {
            if tie == Tie::Coins {
                for &s in ranked {
                    pay(s, tokens(s), Payer::Reserve, Reason::TokensLeft);
                }
            }
            Outcome::TieForFirst(ranked.iter().copied().filter(|&s| tied(s, *a)).collect())
        }
        [first, b, c, ..] if tied(*b, *c) => {
            pay(*first, first_prize, Payer::Reserve, Reason::FirstPrize);
            for &s in &ranked[1..] {
                pay(s, tokens(s), Payer::Reserve, Reason::TokensLeft);
            }
            Outcome::TieForSecond {
                first: *first,
                tied: ranked[1..]
                    .iter()
                    .copied()
                    .filter(|&s| tied(s, *b))
                    .collect(),
            }
        }
        [first, second, rest @ ..] => {
            pay(*first, first_prize, Payer::Reserve, Reason::FirstPrize);
            pay(*second, second_prize, Payer::Reserve, Reason::SecondPrize);
            // First pays out of the purse it has after taking its prize;
            // what it cannot cover comes from the reserve (our ruling: the
            // texts are silent), so no purse goes below zero.
            let mut purse = purses[*first]
                .max(0)
                .checked_add(first_prize)
                .ok_or_else(|| overflow(&format!("the purse of seat {first} with its prize")))?;
            for &s in rest {
                let owed = tokens(s);
                let by_first = owed.min(purse);
                purse -= by_first;
                pay(s, by_first, Payer::Seat(*first), Reason::TokensLeft);
                pay(s, owed - by_first, Payer::Reserve, Reason::TokensLeft);
            }
            Outcome::Ranked {
                first: *first,
                second: *second,
            }
        }
    };
    Ok((outcome, payments))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::starry_sky::board::{BoardId, Star};

    /// A path 1 - 2 - … - n.
    fn path(n: u8, prizes: [u32; 2]) -> Board {
        Board {
            id: BoardId::try_from("t".to_string()).unwrap(),
            name: "T".into(),
            prizes,
            stars: vec![
                Star {
                    large: false,
                    at: [0, 0]
                };
                n as usize
            ],
            lines: (1..n).map(|i| [i, i + 1]).collect(),
        }
    }

    fn put(tokens: &[(u8, usize, Token)]) -> Vec<Placed> {
        tokens
            .iter()
            .map(|&(star, seat, token)| Placed { star, seat, token })
            .collect()
    }

    #[test]
    fn doubling_factors() {
        assert_eq!(Doubling::Additive.apply(5, 0), 5);
        assert_eq!(Doubling::Additive.apply(5, 1), 10);
        assert_eq!(Doubling::Additive.apply(5, 2), 20);
        assert_eq!(Doubling::Additive.apply(5, 3), 30);
        assert_eq!(Doubling::Compound.apply(5, 1), 10);
        assert_eq!(Doubling::Compound.apply(5, 2), 20);
        assert_eq!(Doubling::Compound.apply(5, 3), 40);
    }

    #[test]
    fn a_chain_of_black_holes_vanishes_whole_and_swallows_nothing() {
        // 1:10(P1) - 2:bh(P2) - 3:bh(P3) - 4:bh(P1) - 5:7(P2)
        // The three black holes form a chain: all removed before swallowing,
        // so 10 and 7 stay. P1 10 (1 token) first 5, P2 7 second 3.
        let b = path(5, [5, 3]);
        let r = score_board(
            &b,
            &put(&[
                (1, 0, Token::Ten),
                (2, 1, Token::BlackHole),
                (3, 2, Token::BlackHole),
                (4, 0, Token::BlackHole),
                (5, 1, Token::Seven),
            ]),
            Doubling::Additive,
            Tie::Coins,
            &[0, 0, 0],
        );
        assert_eq!(
            r.removed
                .iter()
                .map(|x| (x.star, x.why))
                .collect::<Vec<_>>(),
            vec![
                (2, Why::BlackHolePair),
                (3, Why::BlackHolePair),
                (4, Why::BlackHolePair)
            ]
        );
        assert_eq!(
            r.seats.iter().map(|s| s.coins).collect::<Vec<_>>(),
            vec![5, 3, 0]
        );
    }
}
