//! The clock on every move, as the player meets it: how long the awaited
//! player has left, when a claim that they stopped answering becomes valid,
//! and the refusal of logs dated ahead of this machine's clock.
//!
//! The rule itself (a claim is valid from the deadline on) is the replay's,
//! in `log::replay`; this module only reads the local clock, which the
//! replay never does.

use std::path::Path;

use crate::error::{CLOCK_SLACK, Error, Result};
use crate::games::{Game, Seat};
use crate::log::entry::DEFAULT_DEADLINE;
use crate::log::replay::{Clock, span_text, time_seconds, time_text};
use crate::log::{Kind, Replay};

/// The clock of the awaited seat, and in a protocol 2 game (which has no
/// deadline in its log) the clock starry keeps for itself before it writes
/// a claim: the default deadline. Audit accepts any claim in such a game;
/// this program does not write one early.
pub fn clock_or_default<G: Game>(r: &Replay<G>) -> (Option<Clock>, bool) {
    match r.clock() {
        Some(c) => (Some(c), true),
        None if r.genesis.protocol < 3 => (r.clock_for(DEFAULT_DEADLINE), false),
        None => (None, true),
    }
}

/// Where the seat `me` may still answer claims that ended the game with it
/// placed last: the number of the round's first claim, when the game was
/// abandoned waiting for `me` and the result is not settled (protocol 3:
/// `me` has not countersigned it; version 2: nobody has). An entry of `me`
/// written there wins the fork against the claims (docs/protocol.md, §7, a
/// lapsed claim). None otherwise.
pub fn late_answer_at<G: Game>(r: &Replay<G>, me: Seat) -> Option<u64> {
    let Some(crate::log::replay::Ending::Abandoned { seat, awaited }) = r.ending() else {
        return None;
    };
    let settled = if r.genesis.protocol >= 3 {
        r.countersigned.contains(&me)
    } else {
        !r.countersigned.is_empty()
    };
    // From the first claim on, the log holds only the claims and the
    // claimants' countersignatures (a round ends with the silent seat's
    // entry); checked all the same, since the answer drops all of them.
    let only_claims = r.entries.get(awaited as usize..).is_some_and(|tail| {
        tail.iter()
            .all(|e| e.author != me && matches!(e.kind, Kind::Abandon | Kind::Countersign))
    });
    (seat == me && !settled && only_claims).then_some(awaited)
}

/// The time the awaited seat's clock counts from: the last entry that is
/// no claim (claims do not restart the clock, §7). "Waiting since" says
/// this time too.
pub fn turn_began<G: Game>(r: &Replay<G>) -> Option<&str> {
    r.entries
        .iter()
        .rev()
        .find(|e| e.kind != Kind::Abandon)
        .map(|e| e.time.as_str())
}

/// The floor a player sets under deadlines by default: a game whose
/// deadline is shorter lets another player claim that they stopped
/// answering while they sleep (`starry robot` refuses such a game; `join`
/// warns).
pub const DEFAULT_MIN_DEADLINE: u64 = 86_400;

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

/// Why the time controls of a game with this genesis fall short of the
/// floor `min` (seconds): a deadline shorter than it, none at all, or no
/// time controls (protocol 2). None when they do not.
pub fn short_deadline(genesis: &crate::log::entry::Genesis, min: u64) -> Option<String> {
    let floor = span_text(min);
    match genesis.deadline {
        _ if genesis.protocol < 3 => Some(format!(
            "the game is protocol {}, which has no time controls: another player may claim at \
             once that you stopped answering",
            genesis.protocol
        )),
        None if min > 0 => Some(format!(
            "the game has no deadline: another player may claim at any time that you stopped \
             answering (the floor is {floor})"
        )),
        Some(d) if d < min => Some(format!(
            "the game's deadline is {}, shorter than the floor of {floor}: another player may \
             claim that you stopped answering after only that long",
            span_text(d)
        )),
        _ => None,
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

/// Before writing a claim: the deadline of the awaited seat has passed
/// at `now`, or the refusal says when it will.
pub fn check_claim_due<G: Game>(r: &Replay<G>, now: &str) -> Result<()> {
    let (Some(clock), in_log) = clock_or_default(r) else {
        return Ok(());
    };
    let now_s = time_seconds(&r.entry_time(now.to_string())).unwrap_or(i64::MAX);
    if now_s >= clock.due {
        return Ok(());
    }
    Err(Error::NotNow(format!(
        "{} has until {} ({} from now) to write their entry: the game's deadline is {} from \
         entry {}{}. A claim before then would not be valid. Remind them with `starry remind`; \
         nothing was written",
        r.name(clock.seat),
        shown_time(clock.due),
        span_text((clock.due - now_s) as u64),
        span_text(clock.deadline),
        clock.since,
        if in_log {
            ""
        } else {
            " (this game was started before deadlines were written in the log; starry waits the \
             default 14 days)"
        },
    )))
}

/// A time for people: "2026-12-10 14:00 UTC".
pub fn shown_time(seconds: i64) -> String {
    let t = time_text(seconds);
    format!("{} {} UTC", &t[..10], &t[11..16])
}

/// The awaited player's time, in words: "Ben has 3 days 4 hours (until
/// 2026-12-10 14:00 UTC)", or "Ben's time ran out 2 days ago …". While a
/// seat has not joined there is no clock (docs/protocol.md §7: nobody owes
/// a join, so nobody may claim that a player who never joined stopped
/// answering): that is said instead, with how long the invitation has
/// waited. None in a game without a deadline.
pub fn time_left<G: Game>(r: &Replay<G>, now: &str) -> Option<String> {
    if let (Some(deadline), (crate::log::Action::Join, Some(seat))) = (
        r.genesis.deadline.filter(|_| r.genesis.protocol >= 3),
        r.expected(),
    ) {
        let invited = time_seconds(&r.entries.first()?.time)?;
        let waited = (time_seconds(now)? - invited).max(0) as u64;
        return Some(format!(
            "{} has not joined yet (invited {} ago); the clock of {} an entry starts once \
             everyone has joined, and nobody can be claimed gone before joining: if they never \
             join, start the game again without them",
            r.name(seat),
            if waited < 60 {
                "less than a minute".to_string()
            } else {
                span_text(waited)
            },
            span_text(deadline)
        ));
    }
    let clock = r.clock()?;
    let now = time_seconds(now)?;
    let name = r.name(clock.seat);
    Some(if now < clock.due {
        format!(
            "{name} has {} (until {})",
            span_text((clock.due - now) as u64),
            shown_time(clock.due)
        )
    } else {
        format!(
            "{name}'s time ran out {} ago ({}); any other player may now claim the game \
             abandoned with `starry abandon`",
            span_text((now - clock.due) as u64),
            shown_time(clock.due)
        )
    })
}

/// What JSON reports say of the clock.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct ClockReport {
    /// The seat the game waits for, 0-based (see docs/json.md).
    pub seat: u32,
    /// The entry whose time started its clock.
    pub since: u64,
    /// The game's deadline in seconds.
    pub deadline: u64,
    /// When it passes (`YYYY-MM-DDTHH:MM:SSZ`, as a log's times: never
    /// after 9999-12-31T23:59:59Z, where the deadline stops,
    /// docs/protocol.md section 7).
    #[schemars(pattern(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$"))]
    pub due: String,
    /// Seconds left at the time of the report; negative once it has passed.
    pub seconds_left: i64,
}

/// The clock for a JSON report, at `now`.
pub fn report<G: Game>(r: &Replay<G>, now: &str) -> Option<ClockReport> {
    let clock = r.clock()?;
    let now = time_seconds(now)?;
    Some(ClockReport {
        seat: clock.seat as u32,
        since: clock.since,
        deadline: clock.deadline,
        due: time_text(clock.due),
        seconds_left: clock.due - now,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
