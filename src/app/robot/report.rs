//! What the robot tells whoever runs it: one line (or one JSON object) per
//! mail it handled, and the counts of the run (schemas/robot.json). Kept
//! apart from the rules so that the report's words and the run's exit code
//! are decided in one place, whatever the source of the mails.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::MAX_TRIES;
use super::handled::Taken;
use crate::app::Output;
use crate::text;

/// What the robot did with one mail (schemas/robot.json).
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// It wrote at least one entry, and mailed the log on (or back to the
    /// sender to pass on, `relayed`).
    Played,
    /// The log was taken; the robot owes nothing now (another player's
    /// turn, or an older copy).
    Waiting,
    /// It will never act on this mail (`reason` says why); nobody was told.
    Refused,
    /// The mail is not addressed to the robot.
    NotForMe,
    /// The mail carries no log (nothing to answer).
    NoLog,
    /// Something went wrong that may pass (a file that cannot be read or
    /// written); tried again later, with backoff.
    Failed,
    /// It failed too often in a row; never tried again.
    GaveUp,
    /// Handling it stopped the robot itself (a crash, an abort, the system
    /// killing it) [`MAX_ABORTS`] times: set aside, with a copy under
    /// `robot/quarantine/`, and never tried again.
    Quarantined,
}

impl Outcome {
    fn as_str(self) -> &'static str {
        match self {
            Outcome::Played => "played",
            Outcome::Waiting => "waiting",
            Outcome::Refused => "refused",
            Outcome::NotForMe => "not for me",
            Outcome::NoLog => "no log",
            Outcome::Failed => "failed",
            Outcome::GaveUp => "given up",
            Outcome::Quarantined => "quarantined",
        }
    }

    /// Done, refused for good, or to be tried again.
    pub fn class(self) -> Class {
        match self {
            Outcome::Played | Outcome::Waiting => Class::Done,
            Outcome::Refused
            | Outcome::NotForMe
            | Outcome::NoLog
            | Outcome::GaveUp
            | Outcome::Quarantined => Class::Refused,
            Outcome::Failed => Class::Transient,
        }
    }
}

/// What becomes of a mail after it was handled.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// Handled; never looked at again.
    Done,
    /// It can never succeed; never looked at again, and no reason for the
    /// run to fail.
    Refused,
    /// A passing failure: tried again later.
    Transient,
}

/// Why a mail was refused.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    /// An automatic mail, a list's, bulk, or a bounce (RFC 3834).
    Automatic,
    /// Its log does not verify, or cannot be read or completed.
    Unverified,
    /// A game the robot has no seat in (its address is not listed, or the
    /// seat is joined or pinned by another key).
    NoSeat,
    /// The sender is not a joined seat of the game.
    NotASeat,
    /// The sender's address is neither allow-listed nor proven, so the
    /// robot could not answer it.
    Unproven,
    /// An invitation from a sender not on the allow-list.
    NotAllowed,
    /// The sender's invitations for the day are used up.
    InvitationLimit,
    /// The robot plays as many games as it may.
    GameLimit,
    /// An invitation to a game whose deadline is shorter than the robot's
    /// floor (`min_deadline`), that has none, or that is protocol 2 (no
    /// time controls).
    ShortDeadline,
}

/// One mail handled by this run.
#[derive(Serialize, JsonSchema, Debug, Clone)]
pub struct RobotMail {
    /// Where the mail came from (a file name; only ever shown locally).
    pub file: String,
    pub outcome: Outcome,
    pub class: Class,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<Reason>,
    /// The game's id (64 hex digits), when the mail carried one that could be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game_id: Option<String>,
    /// The entries it wrote, e.g. "entry 7: placed 10 on leo:3" (public descriptions only).
    pub entries: Vec<String>,
    /// The addresses it mailed for this mail.
    pub mailed_to: Vec<String>,
    /// The log went back to the sender alone, to pass on: the turn passed
    /// to an address the robot may not write to first.
    pub relayed: bool,
    /// Why it refused, failed or did nothing; the mails it sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// 0 when all is well; else the exit code of what went wrong (for a
    /// refused log, the fault's code: 15 for a bad signature, and so on).
    pub code: i32,
    /// A passing failure: how many times it was tried so far.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attempts: Option<u32>,
    /// A passing failure: the earliest next try (RFC 3339).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_try: Option<String>,
}

impl RobotMail {
    pub(super) fn new(label: &str) -> RobotMail {
        RobotMail {
            file: label.to_string(),
            outcome: Outcome::Waiting,
            class: Class::Done,
            reason: None,
            game_id: None,
            entries: Vec::new(),
            mailed_to: Vec::new(),
            relayed: false,
            detail: None,
            code: 0,
            attempts: None,
            next_try: None,
        }
    }
}

/// `starry robot --json`.
#[derive(Serialize, JsonSchema, Debug, Clone)]
pub struct RobotReport {
    /// The mails new to the robot (or due for another try), oldest first.
    pub mails: Vec<RobotMail>,
    /// Mails in the folder that it had handled (or refused) in an earlier run.
    pub handled_before: u64,
    /// Mails whose passing failure is waiting for its next try.
    pub deferred: u64,
    /// Mails it could not send before and sent now (`starry mail --retry`).
    pub resent: u64,
    /// Mails still waiting to be sent.
    pub still_pending: u64,
    pub played: u64,
    pub refused: u64,
    /// Passing failures of this run, and mails given up.
    pub failed: u64,
    /// Why the pass stopped early (the IMAP server, the network), if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
}

impl RobotReport {
    /// An empty report, after the mails that waited to be sent were tried.
    pub(super) fn new(resent: u64, still_pending: u64) -> RobotReport {
        RobotReport {
            mails: Vec::new(),
            handled_before: 0,
            deferred: 0,
            resent,
            still_pending,
            played: 0,
            refused: 0,
            failed: 0,
            stopped: None,
        }
    }

    /// Counts what [`super::Robot::process`] did with one mail.
    pub(super) fn add(&mut self, taken: Taken) {
        match taken {
            Taken::New(mail) => self.mails.push(mail),
            Taken::Before => self.handled_before += 1,
            Taken::Deferred => self.deferred += 1,
        }
    }

    /// The report of a finished pass, with the run's exit code.
    pub(super) fn into_output(mut self) -> Output {
        for m in &self.mails {
            match m.outcome {
                Outcome::Played => self.played += 1,
                Outcome::Refused => self.refused += 1,
                Outcome::Failed | Outcome::GaveUp | Outcome::Quarantined => self.failed += 1,
                _ => {}
            }
        }
        // A refusal is handled work: only what is left to do (a passing
        // failure, a mail not sent) or given up makes the run fail.
        let code = self
            .mails
            .iter()
            .filter(|m| {
                m.class != Class::Refused
                    || matches!(m.outcome, Outcome::GaveUp | Outcome::Quarantined)
            })
            .map(|m| m.code)
            .find(|&c| c != 0)
            .unwrap_or(0);
        let code = if code == 0 && self.stopped.is_some() {
            crate::app::sync::SERVER_FAILED
        } else {
            code
        };
        let mut out = Output::new(text_of(&self), &self);
        out.code = code;
        out
    }
}

fn text_of(r: &RobotReport) -> String {
    let mut t = String::new();
    for m in &r.mails {
        let game = m
            .game_id
            .as_deref()
            .map(|g| format!(" game {}", text::inline(g.get(..16).unwrap_or(g))))
            .unwrap_or_default();
        // A file name is anybody's choice (whoever can write to the
        // maildir): one line per mail, whatever it holds.
        t.push_str(&format!(
            "{}:{game} {}",
            text::inline(&m.file),
            m.outcome.as_str()
        ));
        if let Some(reason) = m.reason {
            let reason = serde_json::to_value(reason).expect("reasons serialise");
            t.push_str(&format!(" ({})", reason.as_str().unwrap_or_default()));
        }
        if !m.entries.is_empty() {
            t.push_str(&format!(" ({})", text::inline(&m.entries.join("; "))));
        }
        if let Some(d) = &m.detail {
            t.push_str(&format!(" — {}", text::inline(d)));
        }
        if let (Some(n), Some(next)) = (m.attempts, &m.next_try) {
            t.push_str(&format!(" (try {n} of {MAX_TRIES}; next after {next})"));
        }
        t.push('\n');
    }
    t.push_str(&format!(
        "{}: {} played, {} refused, {} failed; {} handled before.",
        text::count(r.mails.len(), "new mail", "new mails"),
        r.played,
        r.refused,
        r.failed,
        r.handled_before
    ));
    if r.deferred > 0 {
        t.push_str(&format!(
            " {} waiting for their next try.",
            text::count(r.deferred, "mail", "mails")
        ));
    }
    if r.resent > 0 || r.still_pending > 0 {
        t.push_str(&format!(
            " Mails sent again: {}; still waiting to be sent: {}.",
            r.resent, r.still_pending
        ));
    }
    t
}
