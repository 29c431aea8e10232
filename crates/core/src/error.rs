//! What can be wrong with a log or an attempted entry, and the exit code of
//! each class. Exit codes are part of the scriptable surface and are listed
//! in the README; `Fault` variants map one to one onto the bad-input classes.

use crate::games::RuleErrorKind;

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
}
