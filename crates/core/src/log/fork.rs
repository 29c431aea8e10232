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
//!   Once the claims completed and the result was countersigned, the
//!   result stands: the fork no longer resolves by this rule. In protocol 3
//!   only the silent seat's own countersignature counts (every other seat
//!   claimed; a claimant cannot settle its own claim); in version 2 any
//!   did.
//! - **Countersignatures, or claims, written at once.** Both copies hold
//!   only countersignatures from the fork on, or only abandonment claims
//!   naming the same silent seat. Either order is valid, so the copy whose
//!   first differing entry has the smaller id wins, and each player whose
//!   entry was on the losing side writes it again on top.

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
    /// Both sides hold only abandonment claims naming the same seat; the
    /// smaller id wins.
    Claims,
}

impl Resolution {
    pub fn as_str(self) -> &'static str {
        match self {
            Resolution::ClaimLapsed => "claim-lapsed",
            Resolution::Countersignatures => "countersignatures",
            Resolution::Claims => "claims",
        }
    }
}

/// How copies `a` and `b` of one game, each verified in full, that first
/// differ at entry `k`, resolve: the index (0 for `a`, 1 for `b`) of the
/// copy the game goes on with, and why; `None` for a real fork.
pub fn resolve(a: &[&[u8]], b: &[&[u8]], k: usize) -> Option<(usize, Resolution)> {
    // Protocol 3: only the silent seat's own countersignature settles an
    // abandonment (every other seat claimed it); version 2 let any.
    let settles_by_silent_only = a
        .first()
        .and_then(|g| parse_line(0, g).ok())
        .is_some_and(|g| matches!(&g.data, Data::Genesis(g) if g.protocol >= 3));
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
    let claims_naming = |t: &[Parsed]| -> Option<u32> {
        let Data::Abandon(first) = &t[0].data else {
            return None;
        };
        t.iter()
            .all(|p| matches!(&p.data, Data::Abandon(c) if c.silent == first.silent))
            .then_some(first.silent)
    };
    if let (Some(x), Some(y)) = (claims_naming(&ta), claims_naming(&tb))
        && x == y
    {
        return Some((usize::from(fb.id < fa.id), Resolution::Claims));
    }
    // A side of claims lapses when the other side's entry k is by the
    // silent seat itself. The claims may be followed by countersignatures
    // (protocol 3) as long as the silent seat wrote none of them.
    let claims_then_countersigned = |t: &[Parsed]| -> Option<u32> {
        let Data::Abandon(first) = &t[0].data else {
            return None;
        };
        let silent = first.silent;
        let claims = t
            .iter()
            .take_while(|p| matches!(&p.data, Data::Abandon(c) if c.silent == silent))
            .count();
        let rest = &t[claims..];
        let open = if settles_by_silent_only {
            rest.iter()
                .all(|p| p.line.body.kind == Kind::Countersign && p.line.body.author != silent)
        } else {
            rest.is_empty()
        };
        open.then_some(silent)
    };
    let lapses = |claims: &[Parsed], entry: &Parsed| {
        claims_then_countersigned(claims).is_some_and(|silent| {
            entry.line.body.author == silent && entry.line.body.kind != Kind::Abandon
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
