//! TEMPORARY: the two clock rules an entry needs, as src/app/clock.rs has
//! them (`late_answer_at`, `check_claim_due`). The "pages" helper of issue
//! 34 moves the pure parts of src/app/clock.rs into starry-core; at the
//! merge these give way to the core's, so that there is one implementation.

use starry_core::games::{Game, Seat};
use starry_core::log::entry::DEFAULT_DEADLINE;
use starry_core::log::replay::{Clock, Ending, span_text, time_seconds, time_text};
use starry_core::log::{Kind, Replay};

fn clock_or_default<G: Game>(r: &Replay<G>) -> Option<Clock> {
    match r.clock() {
        Some(c) => Some(c),
        None if r.genesis.protocol < 3 => r.clock_for(DEFAULT_DEADLINE),
        None => None,
    }
}

/// Where `me` may still answer the claims that ended the game with it
/// placed last (src/app/clock.rs, `late_answer_at`).
pub fn late_answer_at<G: Game>(r: &Replay<G>, me: Seat) -> Option<u64> {
    let Some(Ending::Abandoned { seat, awaited }) = r.ending() else {
        return None;
    };
    let settled = if r.genesis.protocol >= 3 {
        r.countersigned.contains(&me)
    } else {
        !r.countersigned.is_empty()
    };
    let only_claims = r.entries.get(awaited as usize..).is_some_and(|tail| {
        tail.iter()
            .all(|e| e.author != me && matches!(e.kind, Kind::Abandon | Kind::Countersign))
    });
    (seat == me && !settled && only_claims).then_some(awaited)
}

/// Why a claim that the awaited seat stopped answering is not due at
/// `now`, in `starry abandon`'s words; None when it is.
pub fn claim_not_due<G: Game>(r: &Replay<G>, now: &str) -> Option<String> {
    let clock = clock_or_default(r)?;
    let now_s = time_seconds(&r.entry_time(now.to_string())).unwrap_or(i64::MAX);
    if now_s >= clock.due {
        return None;
    }
    let t = time_text(clock.due);
    Some(format!(
        "{} has until {} {} UTC ({} from now) to write their entry: the game's deadline is {} \
         from entry {}. A claim before then would not be valid; nothing was written",
        r.name(clock.seat),
        &t[..10],
        &t[11..16],
        span_text((clock.due - now_s) as u64),
        span_text(clock.deadline),
        clock.since,
    ))
}

/// Whether a claim is due now (the page offers the button only then).
pub fn claim_due<G: Game>(r: &Replay<G>, now: &str) -> bool {
    clock_or_default(r).is_some() && claim_not_due(r, now).is_none()
}
