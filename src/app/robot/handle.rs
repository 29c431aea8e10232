//! One mail through the rules, whatever its source: is it for the robot,
//! is it a person's, does it carry a log, of which game; then on to a game
//! the robot has a copy of (`known`) or to an invitation (`invitation`).
//! Everything that can go wrong ends here as the mail's outcome, so that
//! no mail, however made, stops the run.

use super::facts::Facts;
use super::handled::now;
use super::report::{Outcome, Reason, RobotMail};
use super::{LIMIT, Robot};
use crate::app::{Output, game_path, ingest, short_id};
use crate::crypto::Hash;
use crate::error::{Error, Fault, Result};
use crate::log::file;
use crate::log::replay::read_genesis;
use crate::with_game;

/// One mail on its way through the rules, as every step after the first
/// checks needs it: its bytes and label, what its header says, the logs it
/// carries, and when the robot read it (seconds since 1970).
pub(super) struct Letter<'a> {
    pub(super) raw: &'a [u8],
    pub(super) label: &'a str,
    pub(super) facts: Facts,
    pub(super) logs: Vec<Vec<u8>>,
    pub(super) now: i64,
}

/// Why handling a mail stopped early.
pub(super) enum Stop {
    NotForMe,
    NoLog,
    Refused {
        reason: Reason,
        why: String,
        code: i32,
    },
    Transient(Error),
}

pub(super) fn refuse(reason: Reason, why: impl Into<String>) -> Stop {
    Stop::Refused {
        reason,
        why: why.into(),
        code: 0,
    }
}

impl Robot {
    /// Everything the robot does with one mail, whatever its source, under
    /// the rules of `app::robot`'s documentation. Never panics; what went
    /// wrong is in the result: done, refused for good, or transient.
    pub fn handle_mail(&self, raw: &[u8], label: &str) -> RobotMail {
        let mut mail = RobotMail::new(label);
        match self.handle_inner(raw, label, &mut mail) {
            Ok(()) => {}
            Err(Stop::NotForMe) => mail.outcome = Outcome::NotForMe,
            Err(Stop::NoLog) => mail.outcome = Outcome::NoLog,
            Err(Stop::Refused { reason, why, code }) => {
                mail.outcome = Outcome::Refused;
                mail.reason = Some(reason);
                mail.detail = Some(why);
                mail.code = code;
            }
            Err(Stop::Transient(e)) => {
                mail.outcome = if mail.entries.is_empty() {
                    Outcome::Failed
                } else {
                    Outcome::Played
                };
                mail.code = e.exit_code();
                mail.detail = Some(e.to_string());
            }
        }
        mail.class = mail.outcome.class();
        mail
    }

    fn handle_inner(
        &self,
        raw: &[u8],
        label: &str,
        mail: &mut RobotMail,
    ) -> std::result::Result<(), Stop> {
        let facts = Facts::of(raw);
        let me = self.id.email.trim();
        if !facts
            .recipients
            .iter()
            .any(|r| r.trim().eq_ignore_ascii_case(me))
        {
            return Err(Stop::NotForMe);
        }
        if let Some(why) = facts.automatic() {
            return Err(refuse(
                Reason::Automatic,
                format!(
                    "{why}: an automatic mail, which the robot never answers (RFC 3834); its log, \
                     if any, was not read"
                ),
            ));
        }
        // A mail with no log at all (a greeting, spam) is not answered.
        let logs = match crate::mail::find_logs(raw, LIMIT) {
            Ok(l) if l.is_empty() => return Err(Stop::NoLog),
            Ok(l) => l,
            Err(e) => {
                return Err(Stop::Refused {
                    reason: Reason::Unverified,
                    why: format!("{e}; nothing was stored or answered"),
                    code: Error::Input(String::new()).exit_code(),
                });
            }
        };
        let Some(game_id) = logs.iter().find_map(|l| game_of(l)) else {
            return Err(Stop::Refused {
                reason: Reason::Unverified,
                why: "the log in the mail does not begin with a starry entry; nothing was \
                      stored or answered"
                    .into(),
                code: Fault::Malformed.exit_code(),
            });
        };
        mail.game_id = Some(hex::encode(game_id));
        let letter = Letter {
            raw,
            label,
            facts,
            logs,
            now: now(),
        };
        let local = game_path(&self.home, &game_id);
        if local.exists() {
            let bytes = file::read(&local).map_err(Stop::Transient)?;
            let (genesis, _) = read_genesis(&bytes).map_err(|fault| {
                Stop::Transient(Error::Log {
                    path: local.clone(),
                    fault,
                })
            })?;
            let ran: Result<std::result::Result<(), Stop>> = with_game!(
                genesis.game.as_str(),
                G => Ok(self.known_game::<G>(&letter, &local, &bytes, mail))
            );
            return ran.map_err(Stop::Transient)?;
        }
        // A game new to the robot: the mail must hold its whole log, which
        // is verified before anything is stored.
        let whole: Vec<&[u8]> = letter
            .logs
            .iter()
            .filter(|l| read_genesis(l).is_ok_and(|(_, id)| id == game_id))
            .map(Vec::as_slice)
            .collect();
        let Some(first) = whole.first() else {
            return Err(refuse(
                Reason::Unverified,
                format!(
                    "the mail carries only some entries of game {}, which the robot has no copy \
                     of, so they cannot be verified; nothing was stored or answered",
                    short_id(&game_id)
                ),
            ));
        };
        let (genesis, _) = read_genesis(first).expect("checked above");
        let ran: Result<std::result::Result<(), Stop>> = with_game!(
            genesis.game.as_str(),
            G => Ok(self.new_game::<G>(&letter, &whole, mail))
        );
        ran.map_err(|e| refuse(Reason::Unverified, format!("{e}; nothing was stored")))?
    }
}

impl Robot {
    /// Takes in a log of the mail as `starry ingest` does; refused for good
    /// when the log is at fault, tried again when the machine is.
    pub(super) fn ingest(&self, log: &[u8], label: &str) -> std::result::Result<Output, Stop> {
        match ingest::ingest_bytes(&self.home, log, label, None) {
            Ok(out) => Ok(out),
            Err(e) if passing(&e) => Err(Stop::Transient(e)),
            Err(e) => Err(Stop::Refused {
                reason: Reason::Unverified,
                code: e.exit_code(),
                why: format!("{e}; nobody was told"),
            }),
        }
    }
}

/// A game the robot has no seat in: refused.
pub(super) fn no_seat(game: &Hash, what_then: &str) -> Stop {
    refuse(
        Reason::NoSeat,
        format!(
            "game {} has no seat for the robot (its address is not listed, or its seat is joined \
             by or pinned to another key); {what_then}",
            short_id(game)
        ),
    )
}

/// Whether an error may pass (a file that cannot be read or written, the
/// identity, the machine) rather than being the mail's fault.
fn passing(e: &Error) -> bool {
    match e {
        Error::Io { .. } | Error::Identity(_) | Error::Other(_) => true,
        Error::Log { fault, .. } => fault.fault == Fault::Unreadable,
        _ => false,
    }
}

/// The game a log belongs to: the id of its genesis, or the game named by
/// its first entry (a partial log).
fn game_of(log: &[u8]) -> Option<Hash> {
    if let Ok((_, id)) = read_genesis(log) {
        return Some(id);
    }
    let end = log.iter().position(|&b| b == b'\n').unwrap_or(log.len());
    let line: crate::log::entry::Line = serde_json::from_slice(&log[..end]).ok()?;
    line.body.game.map(|g| g.0)
}
