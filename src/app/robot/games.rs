//! What the robot keeps about each game it plays, in `robot/games/`: the
//! seats whose address has proven itself, and whether the game is over.
//! Kept apart from the game's log, which says nothing of addresses, so that
//! trust survives between mails and finished games stop counting against
//! `max_games`.

use std::fs;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::{Robot, read_small};
use crate::app::game_path;
use crate::crypto::Hash;
use crate::error::{Error, Result};
use crate::games::Seat;
use crate::log::file;

/// What the robot keeps about one game: `robot/games/GAME-ID.json`.
#[derive(Serialize, Deserialize, Default)]
pub(super) struct GameState {
    /// Seats whose address has proven itself: it sent the robot an entry
    /// signed by the seat's key, in a mail the robot's server vouched for.
    #[serde(default)]
    pub(super) proven: Vec<Proven>,
    /// Whether the game is over (it no longer counts against `max_games`).
    #[serde(default)]
    pub(super) over: bool,
}

/// A seat, and the address it proved.
#[derive(Serialize, Deserialize, Clone)]
pub(super) struct Proven {
    pub(super) seat: Seat,
    pub(super) email: String,
}

impl GameState {
    pub(super) fn is_proven(&self, seat: Seat, email: &str) -> bool {
        self.proven
            .iter()
            .any(|p| p.seat == seat && p.email.eq_ignore_ascii_case(email))
    }
}

impl Robot {
    fn state_path(&self, game: &Hash) -> PathBuf {
        self.dir
            .join("games")
            .join(format!("{}.json", hex::encode(game)))
    }

    pub(super) fn load_state(&self, game: &Hash) -> Result<GameState> {
        let path = self.state_path(game);
        match read_small(&path) {
            // A damaged record only loses proofs: the robot relays more.
            Some(b) => Ok(serde_json::from_slice(&b).unwrap_or_default()),
            None if path.exists() => Err(Error::io(
                "cannot read the robot's record",
                &path,
                std::io::Error::other("unreadable or too large"),
            )),
            None => Ok(GameState::default()),
        }
    }

    pub(super) fn save_state(&self, game: &Hash, state: &GameState) -> Result<()> {
        let bytes = serde_json::to_vec_pretty(state).expect("records serialise");
        file::write_record(&self.state_path(game), &[bytes.as_slice(), b"\n"].concat())
    }

    /// The games it plays now: those with a record and a log that are not
    /// over.
    pub(super) fn games_playing(&self) -> Result<usize> {
        let dir = self.dir.join("games");
        let entries = fs::read_dir(&dir).map_err(|e| Error::io("cannot list", &dir, e))?;
        let mut n = 0;
        for e in entries.flatten() {
            let name = e.file_name();
            let Some(id) = name.to_str().and_then(|n| n.strip_suffix(".json")) else {
                continue;
            };
            let Ok(game) = <[u8; 32]>::try_from(hex::decode(id).unwrap_or_default()) else {
                continue;
            };
            let over = read_small(&e.path())
                .and_then(|b| serde_json::from_slice::<GameState>(&b).ok())
                .is_some_and(|s| s.over);
            if !over && game_path(&self.home, &game).exists() {
                n += 1;
            }
        }
        Ok(n)
    }
}
