//! `starry history`: the game told in words, entry by entry. The telling
//! itself is the core's ([`starry_core::history`]): the same words on a
//! game page, in the CLI and in the web player.

use std::path::Path;

use serde::Serialize;

use super::Output;
use crate::error::{Error, Result};
use crate::log::replay::read_genesis;
use crate::text::inline;

pub use starry_core::history::*;

#[derive(Serialize, schemars::JsonSchema)]
pub struct HistoryReport {
    pub game: String,
    pub game_id: String,
    pub entries: u64,
    pub events: Vec<Event>,
}

/// `starry history`.
pub fn history(path: &Path, since_mine: bool) -> Result<Output> {
    let bytes = crate::log::file::read(path)?;
    let log_err = |fault| Error::Log {
        path: path.into(),
        fault,
    };
    let (g, _) = read_genesis(&bytes).map_err(log_err)?;
    crate::with_game!(g.game.as_str(), G => {
        let (r, mut events) = tell::<G>(&bytes).map_err(log_err)?;
        if since_mine {
            let id = super::load_identity()?;
            let seat = r.seat_of_key(&id.public_key()).ok_or_else(|| {
                Error::Usage(format!(
                    "--since-mine: you ({}) have not joined this game; leave it out to see the whole history",
                    id.email
                ))
            })?;
            events = since_last_entry_of(&events, seat).to_vec();
        }
        let mut text = format!(
            "{} — game {} — {} entries\n",
            title(G::NAME),
            super::short_id(&r.game_id),
            r.len()
        );
        for e in &events {
            text.push_str(&crate::text::wrap(
                &format!("{:>4}  {}  {}\n", e.entry, inline(&short_time(&e.time)), inline(&e.text)),
                80,
                "                        ",
            ));
        }
        if events.is_empty() {
            text.push_str("Nothing has happened since your last entry.\n");
        }
        let report = HistoryReport {
            game: G::NAME.into(),
            game_id: hex::encode(r.game_id),
            entries: r.len(),
            events,
        };
        Ok(Output::new(text.trim_end().to_string(), &report))
    })
}
