//! Where a game stands: `starry status`'s report, its words, and the
//! picture of a game still waiting for its players, the same in the CLI,
//! on `starry serve`'s pages and in the web player.

use schemars::JsonSchema;
use serde::Serialize;

use crate::clock;
use crate::games::{Game, Seat};
use crate::log::{Action, Ending, Replay};
use crate::text::inline;

/// A seat in a report.
#[derive(Serialize, JsonSchema, Debug, Clone)]
pub struct SeatReport {
    /// The seat: its place in turn order, 0-based (see docs/json.md); seat 0
    /// is the creator.
    pub seat: u32,
    pub name: String,
    pub email: String,
    pub joined: bool,
    pub countersigned: bool,
    /// The seat's public key (hex): the one it joined with, or the one it
    /// is pinned to before it joins; null for an unpinned seat not joined.
    pub key: Option<String>,
    /// The key's short form (first 16 hex digits), for players to compare
    /// with what `starry id show` prints.
    pub fingerprint: Option<String>,
    /// Whether the genesis pins the seat to a key (seat 0 always is).
    pub pinned: bool,
    /// A computer seat: the seat, 0-based, of the person whose machine
    /// plays it, as the genesis names it (docs/protocol.md section 3.4).
    /// That person can see its face-down tokens and signs its moves.
    /// Absent for a person.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operator: Option<u32>,
}

/// Claims in progress that the awaited player has stopped answering.
#[derive(Serialize, JsonSchema, Debug, Clone)]
pub struct ClaimsReport {
    /// Seat of the player waited for, 0-based (see docs/json.md).
    pub silent: u32,
    /// The entry at which the game began waiting for them.
    pub awaited: u64,
    /// Seats that have claimed it, 0-based (see docs/json.md).
    pub by: Vec<u32>,
    /// How many claims are still needed to end the game.
    pub missing: u32,
}

/// A line of the standings.
#[derive(Serialize, JsonSchema, Debug, Clone)]
pub struct StandingReport {
    pub rank: u32,
    /// Seat, 0-based (see docs/json.md).
    pub seat: u32,
    pub name: String,
    pub email: String,
    /// The game's score: coins (Starry Sky), seas or half squares of sea
    /// (Starry Night), points (Star Map).
    pub score: i64,
    /// What `score` counts: `coins`, `seas`, `half squares`, `points`.
    pub unit: String,
    /// In a team game (Star Map with four players), the team, numbered
    /// 0-based (see docs/json.md): team 0 is seats 0 and 2, team 1 seats 1
    /// and 3. `score` is then the team's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub team: Option<u32>,
}

/// `starry status`.
#[derive(Serialize, JsonSchema, Debug, Clone)]
pub struct StatusReport {
    pub game: String,
    /// Hex id of the game (hash of the genesis line).
    pub game_id: String,
    pub entries: u64,
    pub over: bool,
    /// E-mail of the one player who must write the next entry, or null.
    pub to_act: Option<String>,
    /// Their name.
    pub to_act_name: Option<String>,
    /// Their seat, 0-based (see docs/json.md).
    pub to_act_seat: Option<u32>,
    /// What the next entry must be.
    pub action: Action,
    /// Time of the last entry: the game has waited since then.
    pub waiting_since: String,
    /// Random events requested and not yet resolved (they resolve with the next entry by another player).
    pub pending_events: u32,
    pub seats: Vec<SeatReport>,
    /// The game's per-move deadline in seconds (protocol 3), or null for
    /// none.
    pub deadline: Option<u64>,
    /// The clock of the player the game waits for, at the time of the
    /// report; null without a deadline, before everyone joined, or once
    /// the game is over.
    pub clock: Option<clock::ClockReport>,
    /// The same in words: "Ben has 3 days 4 hours (until …)".
    pub time_left: Option<String>,
    /// Claims that the awaited player stopped answering, while not all
    /// other players have made one.
    pub claims: Option<ClaimsReport>,
    /// How the game ended, once over.
    pub ending: Option<EndingReport>,
    /// Standings (final once over).
    pub standings: Vec<StandingReport>,
    /// What else happened that the game tells about (Starry Night: who
    /// chose who moves first, takebacks asked and how they were answered).
    pub notes: Vec<String>,
    /// Once the game is over (`to_act` is then null): who countersigns
    /// next, and who has not countersigned yet. Null before the end and
    /// once every player has countersigned.
    pub countersign: Option<CountersignReport>,
}

/// The countersignatures a finished game still waits for. Every player
/// countersigns the result; starry's mails name one player at a time (so
/// that no two countersignatures are written at once and fork the log),
/// and the others wait for a mail that names them.
#[derive(Serialize, JsonSchema, Debug, Clone)]
pub struct CountersignReport {
    /// The seat named to countersign now, 0-based (see docs/json.md).
    pub next_seat: u32,
    /// Their name.
    pub next_name: String,
    /// Their e-mail address.
    pub next_email: String,
    /// Every seat that has not countersigned yet, 0-based, in seat order.
    pub missing: Vec<u32>,
}

/// How a game ended, with seats numbered from 0 as everywhere (docs/json.md).
#[derive(Serialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case", tag = "how")]
pub enum EndingReport {
    /// Played to the end under the rules.
    Finished,
    /// Nobody could move any more.
    Stalled,
    /// This seat resigned.
    Resigned {
        /// The seat, 0-based (see docs/json.md).
        seat: u32,
    },
    /// Every other seat claimed that this seat stopped answering; the game
    /// had waited for its entry since entry `awaited`.
    Abandoned {
        /// The seat, 0-based (see docs/json.md).
        seat: u32,
        awaited: u64,
    },
}

impl From<Ending> for EndingReport {
    fn from(e: Ending) -> Self {
        match e {
            Ending::Finished => EndingReport::Finished,
            Ending::Stalled => EndingReport::Stalled,
            Ending::Resigned { seat } => EndingReport::Resigned { seat: seat as u32 },
            Ending::Abandoned { seat, awaited } => EndingReport::Abandoned {
                seat: seat as u32,
                awaited,
            },
        }
    }
}

/// The status of a replayed game.
/// `now` (the log's time format) is what the clock and the time left are
/// counted at.
pub fn status_of<G: Game>(r: &Replay<G>, now: &str) -> StatusReport {
    let (action, who) = r.expected();
    let seat_info = |s: Seat| &r.genesis.seats[s];
    StatusReport {
        game: r.genesis.game.clone(),
        game_id: hex::encode(r.game_id),
        entries: r.len(),
        over: r.is_over(),
        to_act: who.map(|s| seat_info(s).email.clone()),
        to_act_name: who.map(|s| seat_info(s).name.clone()),
        to_act_seat: who.map(|s| s as u32),
        action,
        // Claims do not restart the clock (protocol §7): the wait counts
        // from the same entry as the clock does.
        waiting_since: if r.is_over() {
            r.entries.last().map(|e| e.time.clone()).unwrap_or_default()
        } else {
            clock::turn_began(r).unwrap_or_default().to_string()
        },
        pending_events: r.state.as_ref().map_or(0, |s| G::pending(s).len() as u32),
        seats: r
            .genesis
            .seats
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let key = r.seat_key(i);
                SeatReport {
                    seat: i as u32,
                    name: s.name.clone(),
                    email: s.email.clone(),
                    joined: r.seats[i].key.is_some(),
                    countersigned: r.countersigned.contains(&i),
                    key: key.map(hex::encode),
                    fingerprint: key.map(|k| crate::log::replay::fingerprint(&k)),
                    pinned: i == 0 || s.key.is_some(),
                    operator: s.operator,
                }
            })
            .collect(),
        deadline: r.genesis.deadline,
        clock: clock::report(r, now),
        time_left: clock::time_left(r, now),
        claims: r.claims.as_ref().map(|c| ClaimsReport {
            silent: c.silent as u32,
            awaited: c.awaited,
            by: c.by.iter().map(|&s| s as u32).collect(),
            missing: r.claimants(c.silent).len().saturating_sub(c.by.len()) as u32,
        }),
        ending: r.ending().map(EndingReport::from),
        standings: standings_of(r),
        notes: r
            .state
            .as_ref()
            .map(|state| G::notes(state, &r.names()))
            .unwrap_or_default(),
        countersign: next_countersigner(r).map(|n| CountersignReport {
            next_seat: n as u32,
            next_name: seat_info(n).name.clone(),
            next_email: seat_info(n).email.clone(),
            missing: (0..r.seat_count())
                .filter(|s| !r.countersigned.contains(s))
                .map(|s| s as u32)
                .collect(),
        }),
    }
}

/// Who countersigns next, once the game is over: the first seat in seat
/// order that has not countersigned and did not write the last entry.
/// Countersignatures written at once on two copies fork the log (the
/// protocol settles it, but everyone has to mail again), so every mail
/// after the end names this one player, the others wait for a mail that
/// names them, and no honest game forks. None before the end, and once
/// everyone has countersigned.
pub fn next_countersigner<G: Game>(r: &Replay<G>) -> Option<Seat> {
    if !r.is_over() {
        return None;
    }
    let last = r.entries.last().map(|e| e.author);
    let open = |s: &Seat| !r.countersigned.contains(s);
    (0..r.seat_count())
        .filter(open)
        .find(|&s| Some(s) != last)
        .or_else(|| (0..r.seat_count()).find(open))
}

pub fn standings_of<G: Game>(r: &Replay<G>) -> Vec<StandingReport> {
    r.standings()
        .into_iter()
        .map(|s| StandingReport {
            rank: s.rank,
            seat: s.seat as u32,
            name: r.genesis.seats[s.seat].name.clone(),
            email: r.genesis.seats[s.seat].email.clone(),
            score: s.score,
            unit: G::score_unit(&r.options).into(),
            team: s.team,
        })
        .collect()
}

/// One line saying how a game ended, safe to print.
pub fn ending_text(s: &StatusReport) -> String {
    // Seats in reports count from 0 (docs/json.md).
    let name = |seat: u32| {
        s.seats
            .get(seat as usize)
            .map_or_else(|| format!("seat {seat}"), |x| inline(&x.name).into_owned())
    };
    match s.ending {
        Some(EndingReport::Resigned { seat }) => {
            format!("The game is over: {} resigned.", name(seat))
        }
        Some(EndingReport::Abandoned { seat, awaited }) => {
            // A claim needs no seat played on the silent seat's machine.
            let machine = |x: u32| {
                s.seats
                    .get(x as usize)
                    .and_then(|y| y.operator)
                    .unwrap_or(x)
            };
            let shared = s
                .seats
                .iter()
                .any(|x| x.seat != seat && machine(x.seat) == machine(seat));
            format!(
                "The game is over: abandoned while waiting for {} at entry {awaited}; every other \
                 player{} claimed that {} stopped answering.",
                name(seat),
                if shared { " on another machine" } else { "" },
                name(seat)
            )
        }
        Some(EndingReport::Stalled) => {
            "The game is over: it stalled — nobody could move any more.".to_string()
        }
        _ => "The game is over.".to_string(),
    }
}

/// Where the game stands, for text output; every name is made safe.
pub fn status_text(s: &StatusReport) -> String {
    status_text_for(s, None, false)
}

/// [`status_text`] for the player at seat `me`: when the game waits for
/// them and a draw is pending, it is their next entry that resolves it;
/// `shown`: their view (below the text) shows already what it draws.
pub fn status_text_for(s: &StatusReport, me: Option<Seat>, shown: bool) -> String {
    let mut out = String::new();
    if s.over {
        out.push_str(&ending_text(s));
        out.push('\n');
        out.push_str(&standings_text(&s.standings));
    } else {
        let who = inline(s.to_act_name.as_deref().unwrap_or_default()).into_owned();
        let email = inline(s.to_act.as_deref().unwrap_or_default()).into_owned();
        out.push_str(&format!(
            "Waiting for {who} <{email}> to {} (since {}).\n",
            s.action.as_str(),
            inline(&s.waiting_since)
        ));
        if let Some(t) = &s.time_left {
            out.push_str(&format!("{}.\n", inline(t)));
        }
        // The next entry is the awaited player's: it resolves the draws
        // (claims resolve nothing, and come from others).
        let mine = me.is_some() && s.to_act_seat.map(|x| x as usize) == me;
        let whose = if mine {
            "your".to_string()
        } else {
            format!("{who}'s")
        };
        let seen = if mine && shown {
            "; your view below shows already what it draws (nobody else can know it before \
             your entry)"
        } else {
            ""
        };
        match s.pending_events {
            0 => {}
            1 => out.push_str(&format!(
                "A random draw is pending: {whose} next entry resolves it{seen}.\n"
            )),
            n => out.push_str(&format!(
                "{n} random draws are pending: {whose} next entry resolves them{}.\n",
                seen.replace("what it draws", "what they draw")
            )),
        }
        if let Some(c) = &s.claims {
            let by: Vec<String> =
                c.by.iter()
                    .map(|&b| {
                        s.seats
                            .get(b as usize)
                            .map_or_else(|| format!("seat {b}"), |x| inline(&x.name).into_owned())
                    })
                    .collect();
            out.push_str(&format!(
                "{} claimed that {who} stopped answering (awaited since entry {}); {} \
                 the game with {who} placed last. An entry by {who} answers the claims.\n",
                by.join(", "),
                c.awaited,
                match c.missing {
                    1 => "1 more claim ends".to_string(),
                    n => format!("{n} more claims end"),
                }
            ));
        }
    }
    out.push_str(&operators_text(s));
    wrap_lines(&out)
}

/// Which seats are computers played on whose machine, as the genesis
/// names them (docs/protocol.md section 3.4): that person can see their
/// face-down tokens and signs their moves. Empty when every seat is a
/// person.
pub fn operators_text(s: &StatusReport) -> String {
    let name = |seat: u32| {
        s.seats
            .get(seat as usize)
            .map_or_else(|| format!("seat {seat}"), |x| inline(&x.name).into_owned())
    };
    s.seats
        .iter()
        .filter_map(|x| {
            let op = x.operator?;
            Some(format!(
                "{} (seat {}) is a computer played on the machine of {} (seat {op}): {} can see \
                 its face-down tokens and signs its moves.\n",
                name(x.seat),
                x.seat,
                name(op),
                name(op)
            ))
        })
        .collect()
}

/// Wraps every line longer than 80 columns (long names make them so),
/// continuing it indented.
fn wrap_lines(text: &str) -> String {
    text.split_inclusive('\n')
        .map(|line| {
            if line.trim_end().chars().count() > 80 {
                crate::text::wrap(line, 80, "    ")
            } else {
                line.to_string()
            }
        })
        .collect()
}

/// The game's notes (takebacks, the choice of the first player), one per
/// line, each indented by `indent`.
pub fn notes_text(s: &StatusReport, indent: &str) -> String {
    s.notes
        .iter()
        .map(|n| format!("{indent}{}\n", inline(n)))
        .collect()
}

/// The seats with their keys' fingerprints, so that players can check each
/// other's keys against what `starry id show` prints.
pub fn seats_text(s: &StatusReport) -> String {
    let mut out = String::from("Seats:\n");
    for x in &s.seats {
        let key = match (&x.fingerprint, x.joined, x.pinned) {
            (Some(f), true, _) => format!("key {f}"),
            (Some(f), false, true) => format!("pinned to key {f}, not joined yet"),
            _ => "not joined yet (any key may take the seat)".into(),
        };
        let computer = x
            .operator
            .map(|op| {
                let person = s
                    .seats
                    .get(op as usize)
                    .map_or_else(|| format!("seat {op}"), |p| inline(&p.name).into_owned());
                format!(" — a computer on {person}'s machine")
            })
            .unwrap_or_default();
        out.push_str(&format!(
            "  seat {}: {} <{}> — {key}{computer}\n",
            x.seat,
            inline(&x.name),
            inline(&x.email)
        ));
    }
    out
}

pub fn standings_text(rows: &[StandingReport]) -> String {
    rows.iter()
        .map(|r| {
            format!(
                "  {}. {:<12} {:>3} {}{}   ({})\n",
                r.rank,
                inline(&r.name),
                r.score,
                // "1 coin", "1 sea", "1 half square".
                if r.score == 1 {
                    r.unit.trim_end_matches('s')
                } else {
                    &r.unit
                },
                r.team.map_or(String::new(), |t| format!(" (team {t})")),
                inline(&r.email)
            )
        })
        .collect()
}

/// The title of a view's picture: the game, how far, whose view.
pub fn picture_title<G: Game>(r: &Replay<G>, status: &StatusReport, seat: Option<usize>) -> String {
    format!(
        "{} — game {} — after entry {} — {}",
        crate::history::title(G::NAME),
        &status.game_id[..16],
        r.len() - 1,
        match seat {
            Some(s) => format!("{}'s view", r.name(s)),
            None => "spectator view".into(),
        }
    )
}

/// Before the setup there is no board yet: the picture lists the seats and
/// says whom the game waits for.
pub fn waiting_picture(title: &str, s: &StatusReport) -> String {
    use crate::picture::{INK, Svg, seat_legend};
    let names: Vec<String> = s.seats.iter().map(|x| x.name.clone()).collect();
    let extra: Vec<String> = s
        .seats
        .iter()
        .map(|x| {
            if x.joined {
                " — joined".into()
            } else {
                " — not joined yet".into()
            }
        })
        .collect();
    let mut svg = Svg::new(560, 90 + 26 * names.len() as i32);
    svg.bold(20, 30, 16, "start", INK, &crate::picture::clip(title, 60));
    let y = seat_legend(&mut svg, 20, 64, 26, &names, &extra);
    let waiting = format!(
        "Waiting for {} to {}.",
        s.to_act_name.as_deref().unwrap_or("nobody"),
        s.action.as_str()
    );
    svg.text(20, y + 4, 13, "start", INK, &waiting);
    svg.finish(title, &waiting)
}
