//! The one error type of the program, and the exit code of each class.
//! Exit codes are part of the scriptable surface and are listed in the
//! README; `Fault` variants map one to one onto the bad-input classes
//! ([`starry_core::error`]).

use std::path::{Path, PathBuf};

pub use starry_core::error::{Fault, LogFault};

use crate::crypto::identity::IdentityError;
use crate::games::RuleError;

/// Every way a command can fail.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{}: {fault}", shown_path(path))]
    Log { path: PathBuf, fault: LogFault },
    #[error("{0}")]
    Rule(RuleError, Fault),
    #[error(transparent)]
    Identity(#[from] IdentityError),
    #[error("{what} {path}: {source}")]
    Io {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    /// Wrong use: bad arguments, a file that exists, a command that does not
    /// apply now. Says what to do instead.
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Other(String),
    /// The input of `starry ingest` holds no usable log: no log at all,
    /// damaged armor, two different logs, or more than the size limit.
    #[error("{0}")]
    Input(String),
    /// A log holds an entry dated ahead of this machine's clock (by more
    /// than [`CLOCK_SLACK`] seconds): one of the two clocks is wrong, and a
    /// forward-dated entry would let its author's claims come early.
    #[error("{0}")]
    Clock(String),
    /// The log changed between showing a position and acting on it
    /// (`starry serve`'s forms): nothing was written.
    #[error(
        "{}: the game has moved on: the log has {found} entries, not the {expected} this was \
         chosen on; nothing was written: look at the new position and choose again",
        shown_path(path)
    )]
    Stale {
        path: PathBuf,
        expected: u64,
        found: u64,
    },
}

impl From<crate::games::registry::UnknownGame> for Error {
    fn from(e: crate::games::registry::UnknownGame) -> Error {
        Error::Usage(e.to_string())
    }
}

/// How far ahead of the local clock an entry may be dated: clocks of
/// honest machines disagree by seconds, rarely by minutes.
pub const CLOCK_SLACK: i64 = 600;

impl Error {
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Log { fault, .. } => fault.fault.exit_code(),
            Error::Rule(_, fault) => fault.exit_code(),
            Error::Identity(_) => 4,
            Error::Io { .. } => 3,
            Error::Usage(_) => 2,
            Error::Other(_) => 1,
            Error::Input(_) => 7,
            Error::Clock(_) => 9,
            Error::Stale { .. } => 2,
        }
    }

    pub fn rule(e: RuleError) -> Error {
        let f = Fault::from_rule(e.kind);
        Error::Rule(e, f)
    }

    pub fn io(what: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io {
            what,
            path: path.into(),
            source,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The game id of a copy kept in the games directory, named
/// `<64 hex digits>.jsonl` (`starry ingest`, `starry new` without `--out`):
/// its first 16 digits, the short id people type.
pub fn game_copy_id(path: &Path) -> Option<&str> {
    let name = path.file_name()?.to_str()?;
    let stem = name.strip_suffix(".jsonl")?;
    (stem.len() == 64 && stem.bytes().all(|b| b.is_ascii_hexdigit())).then(|| &stem[..16])
}

/// A log as messages name it: a copy in the games directory as "your copy
/// of game 1a2b3c4d5e6f7a8b", which is what the player typed (or can type)
/// instead of its 64-digit file name; any other file by the path given.
pub fn shown_path(path: &Path) -> String {
    match game_copy_id(path) {
        Some(id) => format!("your copy of game {id}"),
        None => path.display().to_string(),
    }
}

/// [`shown_path`], naming the game too: "your copy of game 1a2b3c4d5e6f7a8b
/// (starry-sky)".
pub fn shown_log(path: &Path, game: &str) -> String {
    match game_copy_id(path) {
        Some(_) => format!("{} ({game})", shown_path(path)),
        None => path.display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_in_the_games_directory_is_named_by_its_short_id() {
        let id = "1a2b3c4d5e6f7a8b".to_string() + &"0".repeat(48);
        let copy = Path::new("/home/anna/.config/starry/games").join(format!("{id}.jsonl"));
        assert_eq!(shown_path(&copy), "your copy of game 1a2b3c4d5e6f7a8b");
        assert_eq!(
            shown_log(&copy, "starry-sky"),
            "your copy of game 1a2b3c4d5e6f7a8b (starry-sky)"
        );
        // Any other file by the name given.
        for other in ["game.jsonl", "dir/1a2b3c4d.jsonl", &format!("{id}.txt")] {
            assert_eq!(shown_path(Path::new(other)), other);
            assert_eq!(shown_log(Path::new(other), "star-map"), other);
        }
        let e = Error::Log {
            path: copy,
            fault: LogFault {
                entry: 3,
                fault: Fault::BrokenChain,
                author: None,
                detail: "x".into(),
            },
        };
        assert!(
            e.to_string()
                .starts_with("your copy of game 1a2b3c4d5e6f7a8b: entry 3"),
            "{e}"
        );
    }
}
