//! Playing a game the robot sits at: every entry the game waits for from
//! it (a join, a ready, a move, a reveal, a countersignature, an answer to
//! a claim that it stopped answering), read from its copy of the log, then
//! the log mailed on once. Bounded per mail, so no log can keep it busy.

use std::path::{Path, PathBuf};

use super::Robot;
use super::games::GameState;
use super::handle::Stop;
use super::report::{Outcome, RobotMail};
use crate::app::act::{self, Do};
use crate::error::{Error, Result};
use crate::games::{Game, Seat};
use crate::log::entry::Notify;
use crate::log::{Action, file};

/// A game the robot answers in: where its copy of the log is, the seat
/// whose mail it answers (to whom it may always write back), and what it
/// knows of the game's addresses.
pub(super) struct Table {
    pub(super) path: PathBuf,
    pub(super) sender: Seat,
    pub(super) state: GameState,
}

/// Entries the robot writes for one mail at most: a join, a ready, a move
/// and a reveal in a row is already more than any game asks for.
const MAX_ENTRIES_PER_MAIL: usize = 8;

impl Robot {
    /// Writes every entry the game at `table` waits for from the robot,
    /// then mails the log on once (`ingested`: what ingest said of the
    /// mail's log).
    pub(super) fn play<G: Game>(
        &self,
        table: &mut Table,
        ingested: &serde_json::Value,
        mail: &mut RobotMail,
    ) -> std::result::Result<(), Stop> {
        // Countersignatures written at once on two copies are a fork the
        // protocol resolves: when the sender's side won, ingest wrote the
        // robot's lost countersignature again on top, and only a mail
        // brings it to the others.
        let rewritten = ingested["outcome"] == "resolved"
            && ingested["entries_after"].as_u64() > ingested["entries_received"].as_u64();
        if rewritten {
            let entry = ingested["entries_after"].as_u64().unwrap_or(1) - 1;
            mail.entries.push(format!(
                "entry {entry}: its countersignature, written again on top of the copy that won"
            ));
        }
        let mut failure = None;
        for _ in 0..MAX_ENTRIES_PER_MAIL {
            let what = match self.owed::<G>(&table.path) {
                Ok(Some(what)) => what,
                Ok(None) => break,
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            };
            match act::act_file(&table.path, what, false) {
                Ok(out) => mail.entries.push(format!(
                    "entry {}: {}",
                    out.json["entry"],
                    out.json["summary"].as_str().unwrap_or_default()
                )),
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
        }
        if !mail.entries.is_empty() {
            mail.outcome = Outcome::Played;
            // The entries are written: whatever happens to the mail, they
            // stay (a mail not sent waits in pending/ for the next run).
            if let Err(e) = self.deliver::<G>(table, mail) {
                failure.get_or_insert(e);
            }
        }
        match failure {
            Some(e) => Err(Stop::Transient(e)),
            None => Ok(()),
        }
    }

    /// What the robot owes in the game at `path` now, if anything.
    fn owed<G: Game>(&self, path: &Path) -> Result<Option<Do>> {
        let bytes = file::read(path)?;
        let (r, _) = crate::app::cache::tell::<G>(&bytes).map_err(|fault| Error::Log {
            path: path.into(),
            fault,
        })?;
        let Some(me) = self.my_seat(&r) else {
            return Ok(None);
        };
        let (action, who) = r.expected();
        let joined = r.seats[me].key.is_some();
        Ok(match action {
            Action::Join => (!joined && who == Some(me)).then_some(Do::Join(Notify::Turn)),
            // Claims that ended the game waiting for the robot: it answers
            // (its move wins against them, protocol §7); it never
            // countersigns its own abandonment.
            Action::Over if crate::app::clock::late_answer_at(&r, me).is_some() => {
                Some(Do::Bot(self.level, self.seed))
            }
            Action::Over => (joined && !r.countersigned.contains(&me)).then_some(Do::Countersign),
            _ => (joined && who == Some(me)).then_some(Do::Bot(self.level, self.seed)),
        })
    }
}
