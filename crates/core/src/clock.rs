//! The clock on every move, as the rules and a page read it: how long the
//! awaited player has left, when a claim that they stopped answering
//! becomes valid, and where a late answer to such claims goes. Time comes
//! in as a value (`now`, in the log's format): the core reads no clock.

use crate::games::{Game, Seat};
use crate::log::entry::DEFAULT_DEADLINE;
use crate::log::replay::{Clock, span_text, time_seconds, time_text};
use crate::log::{Kind, Replay};

/// How far ahead of the local clock an entry may be dated: clocks of
/// honest machines disagree by seconds, rarely by minutes.
pub const CLOCK_SLACK: i64 = 600;

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

/// Why a claim that the awaited seat stopped answering is not valid yet at
/// `now` (its deadline has not passed): the refusal's words. None when a
/// claim is due, or there is no clock.
pub fn claim_not_due<G: Game>(r: &Replay<G>, now: &str) -> Option<String> {
    let (Some(clock), in_log) = clock_or_default(r) else {
        return None;
    };
    let now_s = time_seconds(&r.entry_time(now.to_string())).unwrap_or(i64::MAX);
    if now_s >= clock.due {
        return None;
    }
    Some(format!(
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
    ))
}

/// What a claim's summary says of the awaited seat's deadline at `time`:
/// when it passed (empty without a deadline).
pub fn deadline_passed<G: Game>(r: &Replay<G>, time: &str) -> String {
    clock_or_default(r)
        .0
        .and_then(|c| {
            let now = time_seconds(time)?;
            Some(format!(
                "; their deadline passed {} ago, at {}",
                span_text(now.saturating_sub(c.due) as u64),
                shown_time(c.due)
            ))
        })
        .unwrap_or_default()
}
