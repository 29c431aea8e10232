//! A mail about a game the robot has a copy of: the mail's entries are
//! taken in as `starry ingest` takes them, and only then does the robot
//! look at who sent them and what it owes; what it owes is read from its
//! copy, never from the mail, so a mail delivered twice changes nothing.

use std::path::{Path, PathBuf};

use super::Robot;
use super::handle::{Letter, Stop, no_seat};
use super::play::Table;
use super::report::RobotMail;
use crate::error::Error;
use crate::games::Game;
use crate::log::file;

impl Robot {
    /// A mail about the game whose copy is at `local` (holding `bytes`).
    pub(super) fn known_game<G: Game>(
        &self,
        letter: &Letter,
        local: &Path,
        bytes: &[u8],
        mail: &mut RobotMail,
    ) -> std::result::Result<(), Stop> {
        let (r, _) = crate::app::cache::tell::<G>(bytes).map_err(|fault| {
            Stop::Transient(Error::Log {
                path: local.into(),
                fault,
            })
        })?;
        if self.my_seat(&r).is_none() {
            return Err(no_seat(&r.game_id, "its copy was left as it is"));
        }
        let out = self.ingest(letter.raw, letter.label)?;
        let path = PathBuf::from(out.json["file"].as_str().unwrap_or_default());
        let stored = file::read(&path).map_err(Stop::Transient)?;
        let (r, _) = crate::app::cache::tell::<G>(&stored).map_err(|fault| {
            Stop::Transient(Error::Log {
                path: path.clone(),
                fault,
            })
        })?;
        let Some(me) = self.my_seat(&r) else {
            return Err(no_seat(&r.game_id, "its copy is kept, and nobody was told"));
        };
        let mut state = self.load_state(&r.game_id).map_err(Stop::Transient)?;
        let sender = self.sender_of(&r, me, letter, &mut state);
        state.over = r.is_over();
        self.save_state(&r.game_id, &state)
            .map_err(Stop::Transient)?;
        let mut table = Table {
            path,
            sender: sender?,
            state,
        };
        self.play::<G>(&mut table, &out.json, mail)
    }
}
