//! The clock on every move, as the player meets it: how long the awaited
//! player has left, when a claim that they stopped answering becomes valid,
//! and the refusal of logs dated ahead of this machine's clock.
//!
//! The rule itself (a claim is valid from the deadline on) is the replay's,
//! in `log::replay`; this module only reads the local clock, which the
//! replay never does.

use std::path::Path;

use crate::error::{Error, Result};
use crate::games::Game;
use crate::log::Replay;
use crate::log::replay::span_text;
pub use starry_core::clock::*;

/// A per-move deadline as `starry new --deadline` takes it: `none`, or
/// numbers with units (`w`, `d`, `h`, `m`, `s`) such as `7d` or `1d12h`;
/// in seconds, None for no deadline.
pub fn parse_deadline(text: &str) -> std::result::Result<Option<u64>, String> {
    use crate::log::entry::MAX_DEADLINE;
    let text = text.trim();
    if text.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    let wrong = || {
        format!(
            "`{}` is not a duration: write a number and a unit (w weeks, d days, h hours, m \
             minutes, s seconds), e.g. 7d, 36h or 1d12h, or `none` for no deadline",
            crate::text::excerpt(text)
        )
    };
    let (mut total, mut number) = (0u64, None::<u64>);
    for c in text.chars() {
        if let Some(d) = c.to_digit(10) {
            number = Some(
                number
                    .unwrap_or(0)
                    .checked_mul(10)
                    .and_then(|n| n.checked_add(u64::from(d)))
                    .ok_or_else(wrong)?,
            );
            continue;
        }
        let unit = match c.to_ascii_lowercase() {
            'w' => 7 * 86_400,
            'd' => 86_400,
            'h' => 3_600,
            'm' => 60,
            's' => 1,
            _ => return Err(wrong()),
        };
        total = number
            .take()
            .ok_or_else(wrong)?
            .checked_mul(unit)
            .and_then(|n| total.checked_add(n))
            .ok_or_else(wrong)?;
    }
    if number.is_some() || total == 0 {
        return Err(wrong());
    }
    if total > MAX_DEADLINE {
        return Err(format!(
            "a deadline is at most 366 days (`{}` is longer); give `none` for no deadline",
            crate::text::excerpt(text)
        ));
    }
    Ok(Some(total))
}

/// Before writing a claim: the deadline of the awaited seat has passed
/// at `now`, or the refusal says when it will.
pub fn check_claim_due<G: Game>(r: &Replay<G>, now: &str) -> Result<()> {
    match claim_not_due(r, now) {
        Some(why) => Err(Error::NotNow(why)),
        None => Ok(()),
    }
}

/// Refuses a log holding an entry dated more than [`CLOCK_SLACK`] after
/// `now`: nothing is written, and the message says which clock to check.
pub fn refuse_ahead<G: Game>(r: &Replay<G>, path: &Path, now: &str) -> Result<()> {
    let Some((entry, time)) = r.ahead_of(now, CLOCK_SLACK) else {
        return Ok(());
    };
    let author = r.entries[entry as usize].author;
    Err(Error::Clock(format!(
        "{}: entry {entry}, written by {}, is dated {time}, more than {} ahead of this \
         machine's clock ({now}). Either this clock is slow (check it: `date -u`; \
         `timedatectl` on Linux) or theirs was fast: ask them to set it right. A claim that a \
         player stopped answering depends on these times, so starry reads no further. Nothing \
         was written",
        crate::error::shown_path(path),
        r.seat_label(author),
        span_text(CLOCK_SLACK as u64),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::replay::time_seconds;

    /// Issue 31: a turn that began on the last day a log can hold had its
    /// deadline written `+10000-…`, a form no log time and no schema has.
    #[test]
    fn the_due_time_stops_at_the_last_time_a_log_can_hold() {
        use crate::games::starry_sky::StarrySky;
        let log = include_bytes!("../../tests/vectors/due-past-year-9999.jsonl");
        let r = Replay::<StarrySky>::from_bytes(log).expect("the vector is valid");
        let c = report(&r, "9999-12-31T12:00:00Z").expect("a clock");
        assert_eq!(c.due, "9999-12-31T23:59:59Z");
        assert_eq!(c.seconds_left, 12 * 3_600 - 1);
        assert_eq!(
            time_seconds(&c.due),
            Some(crate::log::replay::LAST_TIME),
            "the due time is a log time"
        );
        let left = time_left(&r, "9999-12-31T12:00:00Z").unwrap();
        assert!(left.contains("9999-12-31 23:59 UTC"), "{left}");
        assert!(check_claim_due(&r, "9999-12-31T23:59:58Z").is_err());
        assert!(check_claim_due(&r, "9999-12-31T23:59:59Z").is_ok());
    }

    #[test]
    fn spans_read_in_two_adjacent_units() {
        for (s, want) in [
            (0, "0 seconds"),
            (1, "1 second"),
            (65, "1 minute 5 seconds"),
            (3_600, "1 hour"),
            (3 * 86_400 + 4 * 3_600 + 59, "3 days 4 hours"),
            (3 * 86_400 + 59, "3 days"),
            (14 * 86_400, "14 days"),
            (15 * 86_400, "15 days"),
        ] {
            assert_eq!(span_text(s), want, "{s}");
        }
    }

    #[test]
    fn shown_times_are_minutes_in_utc() {
        assert_eq!(
            shown_time(time_seconds("2026-12-10T14:00:59Z").unwrap()),
            "2026-12-10 14:00 UTC"
        );
    }
}
