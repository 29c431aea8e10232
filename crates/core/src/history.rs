//! The game told in words, entry by entry: `starry history`, the "since
//! your last turn" part of `status`, `view` and every mail, and a game
//! page's history.
//!
//! Every sentence is made from what the log shows everybody (the author,
//! the kind of entry, the game's own description of a move, and how the
//! scores changed), so a history never holds anything hidden.

use serde::{Deserialize, Serialize};

use crate::error::LogFault;
use crate::games::{Game, Seat};
use crate::log::replay::{Ending, lines};
use crate::log::{Kind, Replay};
use crate::text::inline;

/// One entry, told.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Event {
    /// The entry's number (0 is the genesis).
    pub entry: u64,
    /// Its author's seat, 0-based (see docs/json.md) as in the log.
    pub seat: u32,
    pub name: String,
    /// The entry's time, as its author wrote it.
    pub time: String,
    /// What happened, one sentence or a few, in words.
    pub text: String,
}

/// A log told: its replay and its story, or what is wrong with it.
pub type Told<G> = Result<(Replay<G>, Vec<Event>), LogFault>;

/// Tells every entry of a log that replays.
pub fn tell<G: Game>(bytes: &[u8]) -> Told<G> {
    tell_known(bytes, 0)
}

/// [`tell`], for a log whose first `known` entries this player's program
/// verified before (`app::cache`): they are not verified again.
pub fn tell_known<G: Game>(bytes: &[u8], known: usize) -> Told<G> {
    use crate::log::replay::Check;
    let (lines, end) = lines(bytes);
    let Some(first) = lines.first() else {
        return Err(end.expect("no line means a fault"));
    };
    // Signatures verified ahead on the other cores (`log::verify`), from
    // before the genesis is read.
    crate::log::verify::ahead(&lines, known.max(1), |ahead| {
        let r = Replay::<G>::from_genesis_as(first, Check::of(0, known))?;
        let events = vec![Event {
            entry: 0,
            seat: 0,
            name: r.name(0),
            time: r.entries[0].time.clone(),
            text: format!(
                "{} started a game of {} for {}.",
                r.name(0),
                title(G::NAME),
                list(&r.names())
            ),
        }];
        tell_lines(r, events, &lines, known, ahead)
    })
    .and_then(|told| end.map_or(Ok(told), Err))
}

/// Goes on telling the log `bytes` from `r` and `events`, the replay and
/// the story of its first `r.len()` entries; the first `known` entries
/// need not be verified again.
pub fn tell_on<G: Game>(r: Replay<G>, events: Vec<Event>, bytes: &[u8], known: usize) -> Told<G> {
    let (lines, end) = lines(bytes);
    let from = known.max(r.len() as usize);
    crate::log::verify::ahead(&lines, from, |ahead| {
        tell_lines(r, events, &lines, known, ahead)
    })
    .and_then(|told| end.map_or(Ok(told), Err))
}

/// Tells `lines` from where `r` and `events` stand, with what `ahead`'s
/// helpers did.
fn tell_lines<G: Game>(
    mut r: Replay<G>,
    mut events: Vec<Event>,
    lines: &[&[u8]],
    known: usize,
    ahead: Option<&crate::log::verify::Ahead>,
) -> Told<G> {
    use crate::log::replay::Check;
    for (i, l) in lines.iter().enumerate().skip(r.len() as usize) {
        let before = scores(&r);
        let began = r.state.is_some();
        r.apply_line_ahead(i as u64, l, Check::of(i, known), ahead)?;
        events.push(event(&r, &before, began, Some(l)));
    }
    Ok((r, events))
}

/// The story of the entry `line` that made `after` from `before`.
pub fn tell_next<G: Game>(before: &Replay<G>, after: &Replay<G>, line: &[u8]) -> Event {
    event(after, &scores(before), before.state.is_some(), Some(line))
}

/// Each seat's score (0 before the setup).
fn scores<G: Game>(r: &Replay<G>) -> Vec<i64> {
    let mut out = vec![0; r.seat_count()];
    if r.state.is_some() {
        for s in r.standings() {
            if let Some(x) = out.get_mut(s.seat) {
                *x = s.score;
            }
        }
    }
    out
}

/// The sentence for the entry just applied to `r`; `line` is that entry
/// as logged, when at hand, to name what a reveal turned over.
fn event<G: Game>(r: &Replay<G>, before: &[i64], began: bool, line: Option<&[u8]>) -> Event {
    let e = r.entries.last().expect("an entry was applied");
    let who = r.name(e.author);
    let mut text = match e.kind {
        Kind::Genesis => format!("{who} started the game."),
        Kind::Join => format!("{who} joined."),
        Kind::Ready => format!("{who} gave their share of the setup randomness."),
        Kind::Move => format!("{who} {}.", inline(&e.summary)),
        Kind::Reveal => match line.and_then(|l| turned_over(r, l)) {
            Some(what) => format!("{who} turned over {what}."),
            None => format!("{who} turned over their face-down tokens on a full board."),
        },
        Kind::Resign => format!("{who} resigned."),
        Kind::Abandon => match &r.claims {
            Some(c) => format!("{who} claimed that {} stopped answering.", r.name(c.silent)),
            None => format!("{who} claimed that the awaited player stopped answering."),
        },
        Kind::Countersign => format!("{who} countersigned the result."),
    };
    if !began && r.state.is_some() {
        text.push_str(" Everyone was ready: the game began.");
    }
    let after = scores(r);
    let changes: Vec<String> = before
        .iter()
        .zip(&after)
        .enumerate()
        .filter(|(_, (b, a))| a != b)
        .map(|(s, (b, a))| format!("{} {:+}", r.name(s), a - b))
        .collect();
    if !changes.is_empty() && e.kind != Kind::Countersign {
        text.push_str(&format!(" Scores: {}.", changes.join(", ")));
    }
    if let Some(end) = r.ending()
        && r.ended_at == Some(r.len() - 1)
    {
        text.push(' ');
        text.push_str(&ending(r, end));
    }
    Event {
        entry: r.len() - 1,
        seat: e.author as u32,
        name: who,
        time: e.time.clone(),
        text,
    }
}

/// What a reveal entry turned over, each token with the star it lay on:
/// "10 on leo:3 and 5 on leo:7". The star is the one the committing move
/// named ("placed a face-down token on leo:3"). `None` when the line holds
/// no reveals to name (then the sentence says it generally).
fn turned_over<G: Game>(r: &Replay<G>, line: &[u8]) -> Option<String> {
    let v: serde_json::Value = serde_json::from_slice(line).ok()?;
    let reveals = v["body"]["data"]["reveals"].as_array()?;
    let mut told = Vec::new();
    for o in reveals.iter().take(64) {
        let value = o["value"].as_str()?;
        let entry = r.entries.get(usize::try_from(o["entry"].as_u64()?).ok()?)?;
        let star = entry.summary.rsplit_once(" on ").map(|(_, s)| s)?;
        told.push(format!(
            "{} on {}",
            crate::text::excerpt(value),
            inline(star)
        ));
    }
    if told.is_empty() {
        return None;
    }
    let what = if told.len() == 1 {
        "their face-down"
    } else {
        "their face-down tokens:"
    };
    Some(format!("{what} {}", list(&told)))
}

/// "The game is over: …", with the winner(s).
fn ending<G: Game>(r: &Replay<G>, end: Ending) -> String {
    let why = match end {
        Ending::Finished => "the game is over".to_string(),
        Ending::Stalled => "nobody can move any more: the game is over".to_string(),
        Ending::Resigned { seat } => format!("the game is over, {} placed last", r.name(seat)),
        Ending::Abandoned { seat, .. } => format!(
            "every other player claimed it: the game is over, {} placed last",
            r.name(seat)
        ),
    };
    let winners: Vec<String> = r
        .standings()
        .iter()
        .filter(|s| s.rank == 1)
        .map(|s| r.name(s.seat))
        .collect();
    let mut out = format!("{}{}.", why[..1].to_uppercase(), &why[1..]);
    match winners.len() {
        0 => {}
        1 => out.push_str(&format!(" {} won.", winners[0])),
        _ => out.push_str(&format!(" {} share first place.", list(&winners))),
    }
    out
}

/// `starry-sky` → `Starry Sky`.
pub fn title(game: &str) -> String {
    crate::games::title_of(game)
}

/// "Ann, Ben and Cleo".
pub fn list(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// What happened after `seat`'s own last entry (everything, if it wrote
/// none): the part of the history a player coming back to the game has not
/// seen.
pub fn since_last_entry_of(events: &[Event], seat: Seat) -> &[Event] {
    let mine = seat as u32;
    match events.iter().rposition(|e| e.seat == mine) {
        Some(i) => &events[i + 1..],
        None => events,
    }
}

/// The most events a status or mail lists before pointing at `history`.
pub const SINCE_MAX: usize = 12;

/// "Since your last entry:" and one line per event (at most
/// [`SINCE_MAX`], the latest), for text views and mails; empty when
/// nothing happened since.
pub fn since_text(events: &[Event], file: &str) -> String {
    if events.is_empty() {
        return String::new();
    }
    let mut out = String::from("Since your last entry:\n");
    let skip = events.len().saturating_sub(SINCE_MAX);
    if skip > 0 {
        out.push_str(&format!(
            "  ({skip} earlier entries: `starry history {file}` tells them all)\n"
        ));
    }
    for e in &events[skip..] {
        out.push_str(&crate::text::wrap(
            &format!("  {:>3}. {}\n", e.entry, inline(&e.text)),
            80,
            "       ",
        ));
    }
    out
}

/// `2026-11-23T19:18:29Z` → `2026-11-23 19:18`: the minute is enough to
/// read a history by.
pub fn short_time(t: &str) -> String {
    t.get(..16).unwrap_or(t).replacen('T', " ", 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_and_lists() {
        assert_eq!(title("starry-sky"), "Starry Sky");
        assert_eq!(title("star-map"), "Star Map");
        let n = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(list(&n(&["Ann"])), "Ann");
        assert_eq!(list(&n(&["Ann", "Ben"])), "Ann and Ben");
        assert_eq!(list(&n(&["Ann", "Ben", "Cleo"])), "Ann, Ben and Cleo");
    }

    #[test]
    fn since_starts_after_the_readers_last_entry() {
        let ev = |entry, seat| Event {
            entry,
            seat,
            name: String::new(),
            time: String::new(),
            text: String::new(),
        };
        let events = vec![ev(0, 0), ev(1, 1), ev(2, 0), ev(3, 1), ev(4, 2)];
        let entries = |s: &[Event]| s.iter().map(|e| e.entry).collect::<Vec<_>>();
        assert_eq!(entries(since_last_entry_of(&events, 0)), [3, 4]);
        assert_eq!(entries(since_last_entry_of(&events, 2)), Vec::<u64>::new());
        assert_eq!(entries(since_last_entry_of(&events, 3)), [0, 1, 2, 3, 4]);
    }
}
