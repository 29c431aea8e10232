//! The one error type of the program, and the exit code of each class.
//! Exit codes are part of the scriptable surface: [`EXIT_CODES`] lists
//! every one, and `--help`, `starry man` and the README follow it; `Fault`
//! variants map one to one onto the bad-input classes
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
    /// Wrong use: bad arguments, a file that exists, something done
    /// already: what can never work as given. Says what to do instead.
    #[error("{0}")]
    Usage(String),
    /// Not now: the command applies to this game, but not at this point
    /// (the rule at [`EXIT_CODES`]). Exit 19, as the core's refusals of an
    /// entry out of turn.
    #[error("{0}")]
    NotNow(String),
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

pub use starry_core::clock::CLOCK_SLACK;

impl Error {
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Log { fault, .. } => fault.fault.exit_code(),
            Error::Rule(_, fault) => fault.exit_code(),
            Error::Identity(_) => 4,
            Error::Io { .. } => 3,
            Error::Usage(_) => 2,
            Error::NotNow(_) => Fault::OutOfTurn.exit_code(),
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

/// Every exit code and what it means, in the order of the codes: the one
/// list `--help`, `starry man` and the README give (a test checks that they
/// name every code).
///
/// One rule decides between 2, 19 and 20 for a refused command, whatever
/// the command: 19 when it is refused because of *when* it is asked — it is
/// not your turn, the game waits for another kind of entry first, the game
/// has not begun or is over, or a deadline has not passed yet — so that a
/// script can tell "wait and ask again" ([`Error::NotNow`], and the core's
/// refusals of an entry out of turn) from 2, what can never work as given
/// (bad arguments, something done already), and from 20, a move that reads
/// but breaks a rule of the game where it stands.
pub const EXIT_CODES: [(i32, &str); 24] = [
    (0, "ok"),
    (1, "other"),
    (
        2,
        "usage (bad arguments, or something that can never work as given)",
    ),
    (3, "I/O"),
    (4, "identity"),
    (
        5,
        "entry written but mail not sent (kept for `starry mail --retry`)",
    ),
    (6, "entry written but not committed"),
    (7, "no usable log in the input of ingest"),
    (
        8,
        "the mail server of sync or robot --imap could not be reached or refused the login",
    ),
    (
        9,
        "a log holds an entry dated more than 10 minutes ahead of this machine's clock",
    ),
    (10, "malformed line"),
    (11, "truncated last line"),
    (12, "non-canonical line"),
    (13, "broken chain"),
    (14, "entry from another game"),
    (15, "bad signature or key"),
    (16, "bad beacon link"),
    (17, "bad reveal"),
    (18, "impossible token"),
    (
        19,
        "out of turn, or not now (a command asked at the wrong time)",
    ),
    (20, "illegal move"),
    (21, "unknown version"),
    (22, "fork"),
    (23, "time goes back"),
];

/// The exit codes for the end of `starry --help` (and the top manual
/// page): one paragraph, its lines kept short.
pub fn exit_codes_help() -> String {
    let items: Vec<String> = EXIT_CODES
        .iter()
        .map(|(code, what)| format!("{code} {what}"))
        .collect();
    let text = format!(
        "Exit codes: {} (docs/protocol.md, section 8, defines 10 to 23).",
        items.join(", ")
    );
    // Lines of at most 100 characters; a line never ends with `.` or `:`
    // before the last, so that `starry man` keeps one paragraph.
    let mut lines: Vec<String> = vec![String::new()];
    for word in text.split(' ') {
        let line = lines.last_mut().expect("one line at least");
        if !line.is_empty() && line.len() + 1 + word.len() > 100 {
            lines.push(word.to_string());
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines.join("\n")
}

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
