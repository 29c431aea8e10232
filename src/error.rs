//! The one error type of the program, and the exit code of each class.
//! Exit codes are part of the scriptable surface and are listed in the
//! README; `Fault` variants map one to one onto the bad-input classes.

use std::path::{Path, PathBuf};

use crate::crypto::identity::IdentityError;
use crate::games::{RuleError, RuleErrorKind};

/// What is wrong with a log or with an attempted entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Fault {
    /// A line is not a JSON object of the expected shape.
    Malformed,
    /// The last line has no terminating newline: the file was cut short.
    Truncated,
    /// A line is valid JSON but not in canonical form.
    NonCanonical,
    /// A line is missing, duplicated, reordered, or its `prev`/`n` is wrong.
    BrokenChain,
    /// An entry belongs to another game.
    ForeignEntry,
    /// A signature is missing, malformed or does not verify; or a key is weak.
    BadSignature,
    /// A beacon link does not step to the author's previous link.
    BadLink,
    /// A reveal does not open its commitment (or opens nothing).
    BadReveal,
    /// A revealed value is one the player could not have held.
    ImpossibleToken,
    /// The entry's author is not the one who must act, or not for this kind.
    OutOfTurn,
    /// The move breaks the rules.
    IllegalMove,
    /// (Protocol 3) an entry is dated before the entry before it.
    BackwardTime,
    /// The protocol or rules version (or the game) is not one this program implements.
    UnknownVersion,
    /// Two different entries claim the same position.
    Fork,
    /// The file could not be read at all (missing, not a regular file, no
    /// permission, too large). Not a fault of a log's content: only `starry
    /// audit` reports a file this way, so that one bad file in an archive
    /// does not stop the others.
    Unreadable,
}

impl Fault {
    pub fn exit_code(self) -> i32 {
        match self {
            Fault::Malformed => 10,
            Fault::Truncated => 11,
            Fault::NonCanonical => 12,
            Fault::BrokenChain => 13,
            Fault::ForeignEntry => 14,
            Fault::BadSignature => 15,
            Fault::BadLink => 16,
            Fault::BadReveal => 17,
            Fault::ImpossibleToken => 18,
            Fault::OutOfTurn => 19,
            Fault::IllegalMove => 20,
            Fault::UnknownVersion => 21,
            Fault::Fork => 22,
            Fault::BackwardTime => 23,
            Fault::Unreadable => 3,
        }
    }

    /// Every fault, gravest first: the order in which `starry audit` picks
    /// the one whose exit code it returns for many games. Evidence against a
    /// player's word comes first (two signed histories, a forged or altered
    /// signature, a lie about a hidden or random value), then broken rules,
    /// then a history spliced or cut, then damage in transit, then what
    /// could not be judged at all.
    pub const BY_SEVERITY: [Fault; 15] = [
        Fault::Fork,
        Fault::BadSignature,
        Fault::BadReveal,
        Fault::ImpossibleToken,
        Fault::BadLink,
        Fault::IllegalMove,
        Fault::OutOfTurn,
        Fault::BackwardTime,
        Fault::ForeignEntry,
        Fault::BrokenChain,
        Fault::NonCanonical,
        Fault::Malformed,
        Fault::Truncated,
        Fault::UnknownVersion,
        Fault::Unreadable,
    ];

    /// How grave the fault is, by [`Fault::BY_SEVERITY`]: the higher, the
    /// graver (1 to 15).
    pub fn severity(self) -> usize {
        Fault::BY_SEVERITY.len()
            - Fault::BY_SEVERITY
                .iter()
                .position(|&f| f == self)
                .expect("every fault is ranked")
    }

    /// The rule's short name, as used in messages and the audit report.
    pub fn name(self) -> &'static str {
        match self {
            Fault::Malformed => "malformed line",
            Fault::Truncated => "truncated last line",
            Fault::NonCanonical => "non-canonical line",
            Fault::BrokenChain => "broken hash chain",
            Fault::ForeignEntry => "entry from another game",
            Fault::BadSignature => "bad signature",
            Fault::BadLink => "bad beacon link",
            Fault::BadReveal => "reveal does not open its commitment",
            Fault::ImpossibleToken => "token the player could not have held",
            Fault::OutOfTurn => "out of turn",
            Fault::IllegalMove => "illegal move",
            Fault::UnknownVersion => "unknown version",
            Fault::Fork => "fork",
            Fault::BackwardTime => "time goes back",
            Fault::Unreadable => "unreadable file",
        }
    }

    pub fn from_rule(kind: RuleErrorKind) -> Fault {
        match kind {
            // Notation is never a log's fault (only typed moves are read
            // from notation); should one reach a log, it is an illegal move.
            RuleErrorKind::Illegal | RuleErrorKind::BadSetup | RuleErrorKind::Notation => {
                Fault::IllegalMove
            }
            RuleErrorKind::OutOfTurn => Fault::OutOfTurn,
            RuleErrorKind::ImpossibleReveal => Fault::ImpossibleToken,
            RuleErrorKind::WrongReveals => Fault::BadReveal,
        }
    }
}

/// A fault at a specific entry of a log.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("entry {entry} (line {line}){who}: {fault}: {detail}", line = entry + 1, fault = fault.name(), who = author.as_ref().map(|a| format!(", written by {a}")).unwrap_or_default())]
pub struct LogFault {
    /// Entry number (0 = genesis); the line number is one more.
    pub entry: u64,
    pub fault: Fault,
    /// Who wrote the entry, when known ("seat 2, Cleo <cleo@…>").
    pub author: Option<String>,
    pub detail: String,
}

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
    fn every_fault_has_one_rank() {
        // Each fault has its own exit code, so the codes of the ranked list
        // are every code exactly when every fault is ranked once.
        let mut codes: Vec<i32> = Fault::BY_SEVERITY.iter().map(|f| f.exit_code()).collect();
        codes.sort();
        let mut all: Vec<i32> = (10..=23).collect();
        all.insert(0, 3);
        assert_eq!(codes, all);
        assert_eq!(Fault::Fork.severity(), 15);
        assert_eq!(Fault::Unreadable.severity(), 1);
        assert!(Fault::BadSignature.severity() > Fault::Truncated.severity());
    }

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
