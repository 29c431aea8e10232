//! The work behind each command, taking plain values: the command line
//! (`crate::cli`) and `starry serve` both call it. Everything here returns
//! an [`Output`] (text and JSON) or an [`Error`] whose exit code says what
//! class of problem it was.

pub mod act;
pub mod arena;
pub mod audit;
pub mod cache;
pub mod clock;
pub mod computer;
pub mod demo;
pub mod games;
pub mod generate;
pub mod git;
pub mod history;
pub mod ingest;
pub mod inspect;
pub mod mail;
pub mod moves;
pub mod report;
pub mod robot;
pub mod rules;
pub mod setup;
pub mod sync;
pub mod think;
pub mod written;

use crate::crypto::identity::Stored as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::crypto::identity::{self, Identity};
use crate::error::{Error, Result};
use crate::games::{Game, Seat};
use crate::log::Replay;
use crate::text::inline;
use report::*;

/// What a command prints.
pub struct Output {
    pub text: String,
    pub json: serde_json::Value,
    /// Non-zero when the command ran but found a problem (a failed audit,
    /// a mail not sent after the entry was written).
    pub code: i32,
    /// What went wrong after the main work was done, for standard error.
    pub warning: Option<String>,
    /// Bytes to write to standard output as they are, instead of `text`
    /// (a picture); `--json` still prints `json`.
    pub bytes: Option<Vec<u8>>,
    /// `json` is an array to print one element per line (JSON Lines), as
    /// `starry audit --json` does with its games.
    pub json_lines: bool,
    /// Where, in `text`, the account of the entry written ends and the
    /// state after it begins: entries that follow at once (computer seats)
    /// are told after the account, and the state is then the state after
    /// them.
    pub head: Option<usize>,
    /// A dry run's picture of the position after the entry, as its writer
    /// would see it (`starry serve` shows it before asking to confirm).
    pub preview_svg: Option<String>,
}

impl Output {
    pub fn new<T: Serialize>(text: String, report: &T) -> Output {
        Output {
            text,
            json: serde_json::to_value(report).expect("reports serialise"),
            code: 0,
            warning: None,
            bytes: None,
            json_lines: false,
            head: None,
            preview_svg: None,
        }
    }
}

pub fn unknown_game(name: &str) -> Error {
    crate::games::registry::UnknownGame::named(name).into()
}

/// The games this program plays, as `new` and `rules` name them.
pub const GAME_NAMES: [&str; crate::games::registry::COUNT] = crate::games::registry::NAMES;

/// What to do once an entry is written (`--mail`, `--git-commit`).
#[derive(Clone, Copy, Debug, Default)]
pub struct After {
    /// Mail the log to whoever must act next.
    pub mail: bool,
    /// Commit the log in its git repository.
    pub git_commit: bool,
}

/// Runs `write` (a command that appends an entry), then mails and commits as
/// asked. The mail settings are checked first, so that broken settings stop
/// the command before anything is written; after that, the entry is written
/// whatever happens to the mail or the commit.
pub fn then(after: After, write: impl FnOnce() -> Result<Output>) -> Result<Output> {
    let mail_cfg = if after.mail {
        let home = identity::home_dir()?;
        Some(crate::mail::load(&home).map_err(|e| {
            Error::Usage(format!(
                "{e}. Nothing was written: fix the mail settings, or leave out --mail"
            ))
        })?)
    } else {
        None
    };
    let mut out = write()?;
    if out.json["dry_run"] == true {
        return Ok(out);
    }
    let path = PathBuf::from(out.json["file"].as_str().unwrap_or_default());
    if after.git_commit {
        git::after_entry(&path, &mut out);
    }
    if let Some(cfg) = mail_cfg {
        mail::after_entry(&path, &cfg, &mut out);
    }
    Ok(out)
}

/// The games directory: `HOME/games`, one `GAME-ID.jsonl` per game, where
/// `starry ingest` keeps the games received by mail and `starry new` puts a
/// game without `--out`.
pub fn games_dir(home: &Path) -> PathBuf {
    home.join("games")
}

/// `HOME/games/GAME-ID.jsonl`.
pub fn game_path(home: &Path, game_id: &crate::crypto::Hash) -> PathBuf {
    games_dir(home).join(format!("{}.jsonl", hex::encode(game_id)))
}

/// Makes a log kept outside the games directory findable by its id:
/// `HOME/games/GAME-ID.jsonl` becomes a symbolic link to it, unless that
/// name is taken. Then `starry games` lists it, a game id names it, and
/// `starry ingest` continues it with the entries a turn mail carries.
/// Best effort: a failure only means the player names the file by path.
pub fn remember_game(home: &Path, game_id: &str, path: &Path) {
    if game_id.len() != 64 || !game_id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return;
    }
    let dir = games_dir(home);
    let link = dir.join(format!("{game_id}.jsonl"));
    match std::fs::symlink_metadata(&link) {
        // A link to a copy that is gone gives way to this one.
        Ok(m) if m.file_type().is_symlink() && !link.exists() => {
            let _ = std::fs::remove_file(&link);
        }
        Ok(_) => return,
        Err(_) => {}
    }
    let Ok(target) = std::fs::canonicalize(path) else {
        return;
    };
    if target.parent() == std::fs::canonicalize(&dir).ok().as_deref() {
        return;
    }
    #[cfg(unix)]
    {
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::os::unix::fs::symlink(&target, &link);
    }
}

/// The short game id shown to people and accepted in place of a file name
/// (16 hex digits).
/// How a command names the game at `path` to the player: its short id
/// when it is the copy in the games directory (any command takes that),
/// else the path, as one shell word.
pub fn file_arg(game_id: &crate::crypto::Hash, path: &Path) -> String {
    match identity::home_dir() {
        Ok(home) if game_path(&home, game_id) == path => short_id(game_id),
        _ => mail::shell_word(&path.display().to_string()),
    }
}

pub fn short_id(game_id: &crate::crypto::Hash) -> String {
    hex::encode(&game_id[..8])
}

/// A FILE argument: the file if it exists; otherwise, if it is 8 to 64 hex
/// digits, the one game in the games directory whose id starts with them.
pub fn log_path(arg: &Path) -> Result<PathBuf> {
    if arg.exists() {
        return Ok(arg.to_path_buf());
    }
    let Some(text) = arg.to_str() else {
        return Ok(arg.to_path_buf());
    };
    let prefix = text.to_ascii_lowercase();
    if prefix.is_empty() || prefix.len() > 64 || !prefix.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Ok(arg.to_path_buf());
    }
    if prefix.len() < 8 {
        // Hex digits that name no file were meant as a game id, likely:
        // say what an id needs rather than only "no such file".
        return Err(Error::Usage(format!(
            "{text}: there is no such file, and a game id needs 8 or more hex digits (it has {}); \
             `starry games` lists your games with their ids",
            prefix.len()
        )));
    }
    let home = identity::home_dir()?;
    let dir = games_dir(&home);
    let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    // A link whose file is gone names no game any more.
                    p.exists()
                        && p.extension().is_some_and(|x| x == "jsonl")
                        && p.file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(|n| n.starts_with(&prefix))
                })
                .collect()
        })
        .unwrap_or_default();
    match found.len() {
        1 => Ok(found.remove(0)),
        0 => Err(Error::Usage(format!(
            "{text}: there is no such file, and no game with an id starting with {prefix} in {}; \
             give the path of the log, or `starry ingest` the turn mail first",
            dir.display()
        ))),
        n => Err(Error::Usage(format!(
            "{text}: {n} games in {} have an id starting with {prefix}; give more digits",
            dir.display()
        ))),
    }
}

/// `starry id new`.
pub fn new_identity(name: &str, email: &str) -> Result<Output> {
    let home = identity::home_dir()?;
    let id = Identity::create(&home, name, email)?;
    let r = id_report(&id, &home);
    Ok(Output::new(
        format!(
            "Created identity for {} <{}>\nkey  {}\nfile {}\nBack this file up: it is the only secret you need for all your games.",
            r.name, r.email, r.key, r.file
        ),
        &r,
    ))
}

/// `starry id show`.
pub fn show_identity() -> Result<Output> {
    let home = identity::home_dir()?;
    let id = Identity::load(&home)?;
    let r = id_report(&id, &home);
    Ok(Output::new(
        format!(
            "{} <{}>\nkey  {}\nfile {}\nTo pin your seat in a game to this key, its creator lists you in --players as:\n  {}",
            r.name, r.email, r.key, r.file, r.players_entry
        ),
        &r,
    ))
}

fn id_report(id: &Identity, home: &Path) -> IdReport {
    IdReport {
        name: id.name.clone(),
        email: id.email.clone(),
        key: hex::encode(id.public_key()),
        file: home.join(identity::FILE_NAME).display().to_string(),
        players_entry: format!(
            "{} <{}> key:{}",
            id.name,
            id.email,
            hex::encode(id.public_key())
        ),
    }
}

/// Loads the identity of whoever runs the command.
pub fn load_identity() -> Result<Identity> {
    Ok(Identity::load(&identity::home_dir()?)?)
}

/// Directory where the program remembers which games this identity joined,
/// so that it refuses to join one twice.
pub fn joined_dir(home: &Path) -> PathBuf {
    home.join("joined")
}

/// `seat`'s own view of the position `state` of `r`, as the identity `id`
/// that holds the seat sees it: their face-down values, their hand, "you";
/// and, when they are to act, the random events their next entry will
/// resolve, which only their program can know.
pub fn own_view<G: Game>(
    r: &Replay<G>,
    state: &G::State,
    seat: Seat,
    id: &Identity,
) -> Result<G::View> {
    let secret = r
        .game_secret(id, seat)
        .ok_or_else(|| Error::Other(format!("seat {seat} is not held by this identity")))?;
    let own = r.own_hidden(&secret, seat).map_err(Error::Other)?;
    let preview = (r.expected().1 == Some(seat))
        .then(|| r.next_link(&secret, seat))
        .flatten()
        .and_then(|l| r.preview(seat, &l));
    Ok(G::view(
        preview.as_ref().unwrap_or(state),
        Some(seat),
        Some(&own),
    ))
}

/// The status of a replayed game.
pub fn status_of<G: Game>(r: &Replay<G>) -> StatusReport {
    let (action, who) = r.expected();
    let seat_info = |s: Seat| &r.genesis.seats[s];
    let now = crate::log::replay::now();
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
        clock: clock::report(r, &now),
        time_left: clock::time_left(r, &now),
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
        countersign: mail::next_countersigner(r).map(|n| CountersignReport {
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
