//! The one clock rule the browser words itself: a log dated ahead of this
//! device's clock is not written on (src/app/clock.rs `refuse_ahead` says
//! the same of a machine, with the commands that set its clock). The limit
//! and the test are the core's ([`starry_core::clock::CLOCK_SLACK`],
//! `Replay::ahead_of`).

use starry_core::clock::CLOCK_SLACK;
use starry_core::games::Game;
use starry_core::log::Replay;
use starry_core::log::replay::span_text;

/// Why nothing may be written on a log holding an entry dated more than
/// [`CLOCK_SLACK`] after `now`: a claim that a player stopped answering
/// depends on these times.
pub fn ahead<G: Game>(r: &Replay<G>, now: &str) -> Option<String> {
    let (entry, time) = r.ahead_of(now, CLOCK_SLACK)?;
    let author = r.entries[entry as usize].author;
    Some(format!(
        "entry {entry}, written by {}, is dated {time}, more than {} ahead of this device's \
         clock ({now}). Either this clock is slow (check it in the device's settings) or \
         theirs was fast: ask them to set it right. A claim that a player stopped answering \
         depends on these times, so nothing is written on this game now. Nothing was written",
        r.seat_label(author),
        span_text(CLOCK_SLACK as u64),
    ))
}
