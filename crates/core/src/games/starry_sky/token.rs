//! The nine tokens of a seat: 1, 3, 5, 6, 7, 10, one black hole and two
//! double stars. The JSON strings are also the move notation, so a player
//! types exactly what the log stores.

use std::fmt;
use std::str::FromStr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::games::RuleError;

/// One kind of token. Ordered numbers first, then black hole, then double
/// star, which is also the order of every listing.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
pub enum Token {
    #[serde(rename = "1")]
    One,
    #[serde(rename = "3")]
    Three,
    #[serde(rename = "5")]
    Five,
    #[serde(rename = "6")]
    Six,
    #[serde(rename = "7")]
    Seven,
    #[serde(rename = "10")]
    Ten,
    #[serde(rename = "bh")]
    BlackHole,
    #[serde(rename = "ds")]
    DoubleStar,
}

impl Token {
    /// The eight distinct tokens, in listing order.
    pub const ALL: [Token; 8] = [
        Token::One,
        Token::Three,
        Token::Five,
        Token::Six,
        Token::Seven,
        Token::Ten,
        Token::BlackHole,
        Token::DoubleStar,
    ];

    /// Tokens a seat owns in all.
    pub const SET_SIZE: u32 = 9;

    /// The notation (and JSON) name.
    pub fn name(self) -> &'static str {
        match self {
            Token::One => "1",
            Token::Three => "3",
            Token::Five => "5",
            Token::Six => "6",
            Token::Seven => "7",
            Token::Ten => "10",
            Token::BlackHole => "bh",
            Token::DoubleStar => "ds",
        }
    }

    /// Face value; black holes and double stars are worth nothing themselves.
    pub fn value(self) -> i64 {
        match self {
            Token::One => 1,
            Token::Three => 3,
            Token::Five => 5,
            Token::Six => 6,
            Token::Seven => 7,
            Token::Ten => 10,
            Token::BlackHole | Token::DoubleStar => 0,
        }
    }

    pub fn is_numbered(self) -> bool {
        !matches!(self, Token::BlackHole | Token::DoubleStar)
    }

    /// How many of this token one seat's set holds.
    pub fn in_set(self) -> u32 {
        match self {
            Token::DoubleStar => 2,
            _ => 1,
        }
    }

    fn index(self) -> usize {
        self as usize
    }

    /// The accepted names, for error messages.
    pub fn names() -> String {
        Token::ALL.map(Token::name).join(", ")
    }
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Token {
    type Err = RuleError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Token::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| {
                RuleError::illegal(
                    "notation",
                    format!("`{s}` is not a token; tokens are {}", Token::names()),
                )
            })
    }
}

/// A multiset of tokens (a hand, or what a seat is known to have on boards).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Tokens([u32; 8]);

impl Tokens {
    /// A seat's whole set.
    pub fn full_set() -> Self {
        let mut t = Tokens::default();
        for token in Token::ALL {
            t.0[token.index()] = token.in_set();
        }
        t
    }

    pub fn count(&self, token: Token) -> u32 {
        self.0[token.index()]
    }

    pub fn add(&mut self, token: Token) {
        self.0[token.index()] += 1;
    }

    /// Removes one if there is one; says whether there was.
    pub fn take(&mut self, token: Token) -> bool {
        let n = &mut self.0[token.index()];
        if *n == 0 {
            return false;
        }
        *n -= 1;
        true
    }

    pub fn total(&self) -> u32 {
        self.0.iter().sum()
    }

    /// Whether every count fits within one seat's set.
    pub fn within_set(&self) -> bool {
        Token::ALL.iter().all(|&t| self.count(t) <= t.in_set())
    }

    /// The first token of which there are more than a set holds.
    pub fn excess(&self) -> Option<Token> {
        Token::ALL.into_iter().find(|&t| self.count(t) > t.in_set())
    }

    /// Every token, repeated by its count, in listing order.
    pub fn to_vec(&self) -> Vec<Token> {
        Token::ALL
            .into_iter()
            .flat_map(|t| std::iter::repeat_n(t, self.count(t) as usize))
            .collect()
    }

    /// The distinct tokens present, in listing order.
    pub fn distinct(&self) -> impl Iterator<Item = Token> + '_ {
        Token::ALL.into_iter().filter(|&t| self.count(t) > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_names_are_the_notation() {
        for t in Token::ALL {
            let json = serde_json::to_string(&t).unwrap();
            assert_eq!(json, format!("\"{}\"", t.name()));
            assert_eq!(serde_json::from_str::<Token>(&json).unwrap(), t);
            assert_eq!(t.name().parse::<Token>().unwrap(), t);
        }
        let err = "11".parse::<Token>().unwrap_err();
        assert!(err.detail.contains("1, 3, 5, 6, 7, 10, bh, ds"), "{err}");
    }

    #[test]
    fn a_set_is_nine_tokens_worth_32() {
        let set = Tokens::full_set();
        assert_eq!(set.total(), 9);
        // 1 + 3 + 5 + 6 + 7 + 10 = 32; black hole and double stars add 0.
        assert_eq!(set.to_vec().iter().map(|t| t.value()).sum::<i64>(), 32);
        assert_eq!(set.count(Token::DoubleStar), 2);
        assert!(set.within_set());
    }

    #[test]
    fn take_and_excess() {
        let mut t = Tokens::default();
        assert!(!t.take(Token::Ten));
        t.add(Token::DoubleStar);
        t.add(Token::DoubleStar);
        assert_eq!(t.excess(), None);
        t.add(Token::DoubleStar);
        assert_eq!(t.excess(), Some(Token::DoubleStar));
        assert!(t.take(Token::DoubleStar));
        assert!(t.within_set());
        assert_eq!(t.distinct().collect::<Vec<_>>(), vec![Token::DoubleStar]);
    }
}
