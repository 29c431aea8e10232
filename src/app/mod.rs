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
pub mod id;
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
use report::*;

pub use starry_core::status::{
    ending_text, notes_text, operators_text, seats_text, standings_of, standings_text, status_text,
    status_text_for,
};

/// `seat`'s own view of the position `state` of `r`, as the identity `id`
/// that holds the seat sees it ([`starry_core::own::own_view`]).
pub fn own_view<G: Game>(
    r: &Replay<G>,
    state: &G::State,
    seat: Seat,
    id: &Identity,
) -> Result<G::View> {
    starry_core::own::own_view(r, state, seat, id).map_err(Error::Other)
}

/// The status of a replayed game now, by this machine's clock.
pub fn status_of<G: Game>(r: &Replay<G>) -> StatusReport {
    starry_core::status::status_of(r, &crate::log::replay::now())
}

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
            "Created identity for {} <{}>\nkey  {}\nfile {}\nBack this file up: it is the only secret you need for all your games \
             (`starry id export --output FILE` writes a copy, also for the web player).",
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
