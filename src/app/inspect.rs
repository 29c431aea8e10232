//! Commands that only read: status, view, audit.

use crate::crypto::identity::Stored as _;
pub(crate) use starry_core::status::{picture_title, waiting_picture};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use super::history;
use super::report::*;
use super::{Output, notes_text, seats_text, status_of, status_text_for};
use crate::crypto::identity::{self, Identity, IdentityError};
use crate::error::{Error, Result};
use crate::games::Game;
use crate::log::Replay;
use crate::log::file;
use crate::log::replay::read_genesis;
use crate::with_game;

pub(crate) fn open<T>(path: &Path, f: impl FnOnce(&[u8], &str) -> Result<T>) -> Result<T> {
    let bytes = file::read(path)?;
    let (g, _) = read_genesis(&bytes).map_err(|fault| Error::Log {
        path: path.into(),
        fault,
    })?;
    f(&bytes, &g.game)
}

/// `starry status`: where the game stands and, for a player, what
/// happened since their last entry.
pub fn status(path: &Path) -> Result<Output> {
    let id = viewer_identity().ok().flatten();
    open(path, |bytes, game| {
        with_game!(game, G => {
            let (r, events) = super::cache::tell::<G>(bytes).map_err(|fault| Error::Log { path: path.into(), fault })?;
            let s = status_of(&r);
            let since = id
                .as_ref()
                .and_then(|i| r.seat_of_key(&i.public_key()))
                .map(|seat| history::since_text(history::since_last_entry_of(&events, seat), &path.display().to_string()))
                .unwrap_or_default();
            // Once over: who countersigns next, as the mails say.
            let me = id.as_ref().and_then(|i| r.seat_of_key(&i.public_key()));
            let file = super::file_arg(&r.game_id, path);
            let git = super::git::played_in_git(path);
            let countersign = super::mail::countersign_advice(&r, me, &file, git).map(|t| t + "\n").unwrap_or_default();
            let text = format!("{} — game {} — {} entries\n{}{}{}{countersign}{}", s.game, &s.game_id[..16], s.entries, notes_text(&s, ""), since, status_text_for(&s, me, false), seats_text(&s));
            Ok(Output::new(text, &s))
        })
    })
}

/// The viewer's identity if they have one and hold a seat; a missing identity
/// means a spectator, a corrupt one is an error (silently showing less would
/// hide the problem).
pub(super) fn viewer_identity() -> Result<Option<Identity>> {
    let home = identity::home_dir()?;
    match Identity::load(&home) {
        Ok(id) => Ok(Some(id)),
        Err(IdentityError::Missing { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// How `view` shows the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Format {
    /// Text for a terminal.
    #[default]
    Text,
    /// One JSON object (as `--json`).
    Json,
    /// A picture (SVG).
    Svg,
    /// A picture (PNG).
    Png,
    /// One self-contained page: the picture, the position in words and the
    /// history.
    Html,
}

/// `starry view`: which position, seen by whom, shown how, and where.
#[derive(Clone, Debug, Default)]
pub struct Show {
    /// The position after entry N (0 is the genesis); None: the last.
    pub at: Option<u64>,
    /// The public view even for a player who holds a seat.
    pub spectator: bool,
    pub format: Format,
    /// A file to write; None or `-`: standard output.
    pub out: Option<PathBuf>,
}

/// `starry view`.
pub fn view(path: &Path, a: &Show) -> Result<Output> {
    let id = if a.spectator {
        None
    } else {
        viewer_identity()?
    };
    let to_stdout = a.out.as_ref().is_none_or(|f| f.as_os_str() == "-");
    if a.format == Format::Png && to_stdout && std::io::stdout().is_terminal() {
        return Err(Error::Usage(
            "a PNG is not for a terminal: add `--out FILE.png`, or redirect the output to a file"
                .into(),
        ));
    }
    let pic = open(
        path,
        |bytes, game| with_game!(game, G => view_game::<G>(path, bytes, a.at, id.as_ref())),
    )?;
    let Picture {
        mut out,
        svg,
        title,
        history,
    } = pic;
    let bytes = match a.format {
        Format::Text | Format::Json => return Ok(out),
        Format::Svg => svg.into_bytes(),
        Format::Png => crate::picture::png::render(&svg).map_err(Error::Other)?,
        Format::Html => crate::picture::html::page(&crate::picture::html::Page {
            title: &title,
            svg: &svg,
            text: &out.text,
            history: &history,
        })
        .into_bytes(),
    };
    let format = format!("{:?}", a.format).to_lowercase();
    out.json["format"] = format.clone().into();
    out.json["bytes"] = bytes.len().into();
    match a.out.as_ref().filter(|f| f.as_os_str() != "-") {
        Some(file) => {
            crate::log::file::write_output(file, &bytes)?;
            out.json["out"] = file.display().to_string().into();
            out.text = format!(
                "Wrote {} ({}, {} bytes): {title}.",
                file.display(),
                format.to_uppercase(),
                bytes.len()
            );
        }
        None => out.bytes = Some(bytes),
    }
    Ok(out)
}

/// A view with what the pictures need.
struct Picture {
    out: Output,
    svg: String,
    title: String,
    history: Vec<String>,
}

fn view_game<G: Game>(
    path: &Path,
    bytes: &[u8],
    at: Option<u64>,
    id: Option<&Identity>,
) -> Result<Picture> {
    let log_err = |fault| Error::Log {
        path: path.into(),
        fault,
    };
    let (full, mut events) = super::cache::tell::<G>(bytes).map_err(log_err)?;
    // `--at N` is the position after entry N, numbered as `history`,
    // `play` and every message number entries (0 is the genesis).
    let last = full.len() - 1;
    let r = match at {
        None => full,
        Some(n) if n <= last => {
            events.truncate(n as usize + 1);
            Replay::<G>::from_bytes_upto(bytes, n as usize + 1).map_err(log_err)?
        }
        Some(n) => {
            return Err(Error::Usage(format!(
                "--at {n}: the log has entries 0 to {last}; give the number of an entry (0 is \
                 the genesis), as `starry history` numbers them"
            )));
        }
    };
    let seat = id.and_then(|i| r.seat_of_key(&i.public_key()));
    let status = status_of(&r);
    let title = picture_title(&r, &status, seat);
    let mut text = format!(
        "{} — game {} — after entry {}{}\n",
        status.game,
        &status.game_id[..16],
        r.len() - 1,
        match seat {
            Some(s) => format!(" — your view, seat {s}"),
            None => " — spectator view".into(),
        },
    );
    if let Some(s) = seat {
        text.push_str(&history::since_text(
            history::since_last_entry_of(&events, s),
            &path.display().to_string(),
        ));
    }
    // This player's own view shows the draws their next entry makes
    // (`own_view`): say so beside "pending".
    text.push_str(&status_text_for(&status, seat, true));
    let names = r.names();
    let (view, svg) = match &r.state {
        None => (None, waiting_picture(&title, &status)),
        Some(state) => {
            let v = match (seat, id) {
                (Some(s), Some(i)) => super::own_view(&r, state, s, i)?,
                _ => G::view(state, None, None),
            };
            text.push('\n');
            text.push_str(&G::render_text(&v, &names));
            let svg = G::render_svg(&v, &names);
            (Some(v), svg)
        }
    };
    let report = ViewReport {
        game: status.game.clone(),
        game_id: status.game_id.clone(),
        at: r.len() - 1,
        viewer: seat.map(|s| s as u32),
        status,
        view,
    };
    Ok(Picture {
        out: Output::new(text, &report),
        svg,
        title,
        history: events
            .iter()
            .map(|e| format!("{} — {}", history::short_time(&e.time), e.text))
            .collect(),
    })
}
