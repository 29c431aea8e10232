//! The work behind each command. `main` parses arguments and calls [`run`];
//! everything here returns an [`Output`] (text and JSON) or an [`Error`]
//! whose exit code says what class of problem it was.

pub mod act;
pub mod demo;
pub mod inspect;
pub mod report;
pub mod rules;

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::cli::{Cli, Command, IdCommand};
use crate::crypto::identity::{self, Identity};
use crate::error::{Error, Result};
use crate::games::{Game, Seat};
use crate::log::Replay;
use report::*;

/// What a command prints.
pub struct Output {
    pub text: String,
    pub json: serde_json::Value,
    /// Non-zero when the command ran but found a problem (a failed audit).
    pub code: i32,
}

impl Output {
    pub fn new<T: Serialize>(text: String, report: &T) -> Output {
        Output {
            text,
            json: serde_json::to_value(report).expect("reports serialise"),
            code: 0,
        }
    }
}

/// Calls `$body` with `$G` bound to the game named `$name`.
#[macro_export]
macro_rules! with_game {
    ($name:expr, $G:ident => $body:expr) => {
        match $name {
            <$crate::games::starry_sky::StarrySky as $crate::games::Game>::NAME => {
                type $G = $crate::games::starry_sky::StarrySky;
                $body
            }
            other => Err($crate::app::unknown_game(other)),
        }
    };
}

pub fn unknown_game(name: &str) -> Error {
    Error::Usage(format!(
        "unknown game `{name}`; this program plays: starry-sky (see `starry rules list`)"
    ))
}

pub fn run(cli: Cli) -> Result<Output> {
    match cli.command {
        Command::Id(IdCommand::New { name, email }) => {
            let home = identity::home_dir()?;
            let id = Identity::create(&home, &name, &email)?;
            let r = id_report(&id, &home);
            Ok(Output::new(
                format!(
                    "Created identity for {} <{}>\nkey  {}\nfile {}\nBack this file up: it is the only secret you need for all your games.",
                    r.name, r.email, r.key, r.file
                ),
                &r,
            ))
        }
        Command::Id(IdCommand::Show) => {
            let home = identity::home_dir()?;
            let id = Identity::load(&home)?;
            let r = id_report(&id, &home);
            Ok(Output::new(
                format!("{} <{}>\nkey  {}\nfile {}", r.name, r.email, r.key, r.file),
                &r,
            ))
        }
        Command::New(a) => act::new_game(&a),
        Command::Join(f) => act::act_file(&f.file, act::Do::Join, false),
        Command::Ready(f) => act::act_file(&f.file, act::Do::Ready, false),
        Command::Play(a) => {
            let what = match (a.auto, a.r#move) {
                (true, _) => act::Do::Auto,
                (false, Some(m)) => act::Do::Move(m),
                (false, None) => {
                    return Err(Error::Usage(
                        "give a move, e.g. `starry play game.jsonl \"10 leo:3\"` (token, then star as \
                         labelled in `starry view`), or --auto for whatever you must do next"
                            .into(),
                    ));
                }
            };
            act::act_file(&a.file, what, a.dry_run)
        }
        Command::Reveal(f) => act::act_file(&f.file, act::Do::Reveal, false),
        Command::Resign(f) => act::act_file(&f.file, act::Do::Resign, false),
        Command::Countersign(f) => act::act_file(&f.file, act::Do::Countersign, false),
        Command::Status(f) => inspect::status(&f.file),
        Command::View(a) => inspect::view(&a.file, a.at, a.spectator),
        Command::Audit(a) => inspect::audit(&a.files),
        Command::Rules(r) => rules::run(r),
        Command::Demo(a) => demo::run(&a),
    }
}

fn id_report(id: &Identity, home: &Path) -> IdReport {
    IdReport {
        name: id.name.clone(),
        email: id.email.clone(),
        key: hex::encode(id.public_key()),
        file: home.join(identity::FILE_NAME).display().to_string(),
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

/// The status of a replayed game.
pub fn status_of<G: Game>(r: &Replay<G>) -> StatusReport {
    let (action, who) = r.expected();
    let seat_info = |s: Seat| &r.genesis.seats[s];
    StatusReport {
        game: r.genesis.game.clone(),
        game_id: hex::encode(r.game_id),
        entries: r.len(),
        over: r.is_over(),
        to_act: who.map(|s| seat_info(s).email.clone()),
        to_act_name: who.map(|s| seat_info(s).name.clone()),
        to_act_seat: who.map(|s| s as u32 + 1),
        action,
        waiting_since: r.entries.last().map(|e| e.time.clone()).unwrap_or_default(),
        pending_events: r.state.as_ref().map_or(0, |s| G::pending(s).len() as u32),
        seats: r
            .genesis
            .seats
            .iter()
            .enumerate()
            .map(|(i, s)| SeatReport {
                seat: i as u32 + 1,
                name: s.name.clone(),
                email: s.email.clone(),
                joined: r.seats[i].key.is_some(),
                countersigned: r.countersigned.contains(&i),
            })
            .collect(),
        ending: match r.phase {
            crate::log::Phase::Over(e) => Some(e),
            _ => None,
        },
        standings: standings_of(r),
    }
}

pub fn standings_of<G: Game>(r: &Replay<G>) -> Vec<StandingReport> {
    r.standings()
        .into_iter()
        .map(|s| StandingReport {
            rank: s.rank,
            seat: s.seat as u32 + 1,
            name: r.genesis.seats[s.seat].name.clone(),
            email: r.genesis.seats[s.seat].email.clone(),
            score: s.score,
        })
        .collect()
}

/// Two or three lines saying where the game stands, for text output.
pub fn status_text(s: &StatusReport) -> String {
    let mut out = String::new();
    if s.over {
        out.push_str(&match s.ending {
            Some(crate::log::Ending::Resigned(seat)) => {
                format!("The game is over: {} resigned.\n", s.seats[seat].name)
            }
            _ => "The game is over.\n".to_string(),
        });
        out.push_str(&standings_text(&s.standings));
    } else {
        let who = s.to_act_name.clone().unwrap_or_default();
        let email = s.to_act.clone().unwrap_or_default();
        out.push_str(&format!(
            "Waiting for {who} <{email}> to {} (since {}).\n",
            s.action.as_str(),
            s.waiting_since
        ));
        if s.pending_events > 0 {
            out.push_str(&format!(
                "{} random event(s) pending: they resolve with the next entry written by another player.\n",
                s.pending_events
            ));
        }
    }
    out
}

pub fn standings_text(rows: &[StandingReport]) -> String {
    rows.iter()
        .map(|r| {
            format!(
                "  {}. {:<12} {:>3} coins   ({})\n",
                r.rank, r.name, r.score, r.email
            )
        })
        .collect()
}
