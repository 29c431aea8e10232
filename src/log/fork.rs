//! When two copies of one game differ, which one the game goes on with.
//!
//! Two different valid entries at one position are a fork, and in general
//! nobody can say which is right: both are reported, and when one seat signed
//! both, that is proof it cheated. Two kinds of fork, though, are produced
//! by honest players and resolve by rule (`docs/protocol.md`, section 7):
//!
//! - **A claim that lapsed.** One copy holds abandonment claims naming a
//!   silent seat; the other holds that seat's awaited entry. The entry wins:
//!   the seat was not gone after all, and nobody is accused.
//! - **Countersignatures written at once.** Both copies hold only
//!   countersignatures from the fork on. Either order is valid, so the copy
//!   whose first differing entry has the smaller id wins, and each player
//!   whose countersignature was on the losing side writes it again on top.

use super::entry::Kind;
use super::replay::{Data, Parsed, parse_line};

/// Why a fork resolves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolution {
    /// The winner holds the awaited seat's entry; the loser's abandonment
    /// claims lapse.
    ClaimLapsed,
    /// Both sides hold only countersignatures; the smaller id wins.
    Countersignatures,
}

impl Resolution {
    pub fn as_str(self) -> &'static str {
        match self {
            Resolution::ClaimLapsed => "claim-lapsed",
            Resolution::Countersignatures => "countersignatures",
        }
    }
}

/// How copies `a` and `b` of one game, each verified in full, that first
/// differ at entry `k`, resolve: the index (0 for `a`, 1 for `b`) of the
/// copy the game goes on with, and why; `None` for a real fork.
pub fn resolve(a: &[&[u8]], b: &[&[u8]], k: usize) -> Option<(usize, Resolution)> {
    let tail = |lines: &[&[u8]]| -> Option<Vec<Parsed>> {
        lines
            .iter()
            .enumerate()
            .skip(k)
            .map(|(i, l)| parse_line(i as u64, l).ok())
            .collect()
    };
    let (ta, tb) = (tail(a)?, tail(b)?);
    let (fa, fb) = (ta.first()?, tb.first()?);
    let only = |t: &[Parsed], kinds: &[Kind]| t.iter().all(|p| kinds.contains(&p.line.body.kind));
    if only(&ta, &[Kind::Countersign]) && only(&tb, &[Kind::Countersign]) {
        return Some((usize::from(fb.id < fa.id), Resolution::Countersignatures));
    }
    // `claims` lapses when it holds only claims naming the author of the
    // other side's entry k (and, if they completed, countersignatures), and
    // that entry is by the silent seat itself.
    let lapses = |claims: &[Parsed], entry: &Parsed| {
        let Data::Abandon(first) = &claims[0].data else {
            return false;
        };
        let silent = first.silent;
        entry.line.body.author == silent
            && entry.line.body.kind != Kind::Abandon
            && claims.iter().all(|p| match &p.data {
                Data::Abandon(c) => c.silent == silent,
                Data::Countersign(_) => p.line.body.author != silent,
                _ => false,
            })
    };
    if lapses(&ta, fb) {
        return Some((1, Resolution::ClaimLapsed));
    }
    if lapses(&tb, fa) {
        return Some((0, Resolution::ClaimLapsed));
    }
    None
}
