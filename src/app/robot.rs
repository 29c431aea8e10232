//! `starry robot`: a computer player that answers turn mails by itself, as
//! a public service that strangers cannot turn against third parties.
//!
//! Two layers, kept apart:
//! - reading mails: [`run`] lists a maildir (`new/` and `cur/`) or an outbox
//!   folder (`*.eml`), oldest first, and gives each mail to
//!   [`Robot::process`], which remembers what was handled;
//! - handling one mail: [`Robot::handle_mail`] takes a mail's bytes and a
//!   label and applies every rule below. Another source (IMAP, a watch
//!   loop) needs only to call [`Robot::process`] under [`Robot::lock`].
//!
//! The rules (docs/bots.md, "The robot"):
//! 1. It never writes first to an address that has not itself sent it an
//!    entry signed by that seat's key, through a mail its own mail server
//!    vouches for (`Authentication-Results` with the configured
//!    authserv-id, above the mail's first `Received` field: the server's
//!    own, [`crate::mail::auth_results`]), unless the address is
//!    allow-listed. When the turn passes to such an address, the log goes
//!    back to the sender alone, asking them to pass it on. Every mail it
//!    sends says `Auto-Submitted: auto-replied`; it answers no automatic
//!    mail, no list mail, no bulk mail and no bounce (RFC 3834).
//! 2. It never replies to a log that does not verify, nor to a sender who
//!    is not a joined seat of the game: such mails are only counted.
//! 3. Invitations only from allow-listed senders (when a list is set), at
//!    most so many per sender a day and so many games at once; a log of a
//!    game it has no seat in is not stored anywhere.
//! 4. A mail that can never succeed is refused once and for all; only
//!    passing failures are tried again, with backoff, and given up after
//!    [`MAX_TRIES`]. A mail is recorded as being handled, durably, before
//!    it is: one whose handling stopped the robot itself [`MAX_ABORTS`]
//!    times (a crash, an abort, a memory limit) is set aside in
//!    `quarantine/` and reported, and the runs go on with the other mails.
//! 5. No mail carries a local path, the sender's subject, or a long
//!    display name (the names are cut where headers are built,
//!    `crate::mail::compose::display_name`).
//!
//! What it owes is read from the logs, not from the mails, so a mail
//! delivered twice, or a run stopped halfway, never makes it write an entry
//! twice. It never changes the mail folder.
//!
//! Its state, under `$STARRY_HOME/robot/`: `handled/SHA256` (one record per
//! mail: the outcome, or the attempts and the next try of a passing
//! failure, or that it is being handled), `quarantine/SHA256.eml` (mails
//! set aside), `games/GAME-ID.json` (the seats whose address is proven, and
//! whether the game is over), `invitations.json` (invitations accepted in
//! the last day, by sender) and `lock`.

use crate::crypto::identity::Stored as _;
use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::act::{self, Do};
use super::mail::{NOT_SENT, Sending};
use super::{Output, game_path, history, ingest, short_id};
use crate::bot::Level;
use crate::cli::{Notify, RobotArgs};
use crate::crypto::Hash;
use crate::crypto::identity::{self, Identity};
use crate::error::{Error, Fault, Result};
use crate::games::{Game, Seat};
use crate::log::entry::Notify as LogNotify;
use crate::log::file;
use crate::log::{Action, Replay, replay::read_genesis};
use crate::mail::imap::Imap;
use crate::mail::{MailConfig, TurnMail};
use crate::text;
use crate::with_game;

/// Where the mails are.
#[derive(Clone, Debug)]
pub enum Source {
    /// The IMAP server of the mail settings (`[imap]`).
    Imap,
    /// A maildir: its `new/` and `cur/` folders.
    Maildir(PathBuf),
    /// A folder of `.eml` files, as the outbox transport writes them.
    Outbox(PathBuf),
}

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
    fn new(label: &str) -> RobotMail {
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

/// Largest mail read, in bytes (as `starry ingest`).
const LIMIT: usize = ingest::LIMIT;

/// Entries the robot writes for one mail at most: a join, a ready, a move
/// and a reveal in a row is already more than any game asks for.
const MAX_ENTRIES_PER_MAIL: usize = 8;

/// Tries of a mail that fails for a passing reason, after which it is given
/// up (and reported as such once).
pub const MAX_TRIES: u32 = 8;

/// Runs that may stop while handling one mail (a crash, an abort, the
/// system killing the robot for its memory) before the mail is set aside:
/// a mail that stops every run would otherwise be tried for ever, and keep
/// the robot from the mails after it.
pub const MAX_ABORTS: u32 = 2;

/// The wait after the first failed try; it doubles with each try (5, 10,
/// 20 … 320 minutes: about ten hours from the first try to the last).
const FIRST_BACKOFF_SECS: i64 = 5 * 60;

/// The settings file in `$STARRY_HOME`.
pub const SETTINGS_FILE: &str = "robot.toml";

/// Invitations kept in `invitations.json` at most (the oldest go first):
/// a bound whatever the senders do.
const MAX_INVITATION_RECORDS: usize = 10_000;

/// Largest state or record file read, in bytes.
const MAX_STATE_BYTES: u64 = 1 << 20;

/// An allow-list pattern: an address, or every address of a domain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// `anna@example.org` (compared in lower case).
    Address(String),
    /// `*@example.org`.
    Domain(String),
}

impl Pattern {
    /// Reads `anna@example.org` or `*@example.org`.
    pub fn parse(s: &str) -> std::result::Result<Pattern, String> {
        let t = s.trim();
        if let Some(domain) = t.strip_prefix("*@") {
            text::check_email(&format!("x@{domain}"))
                .map_err(|_| format!("`{}` is not `*@` and a domain", text::excerpt(t)))?;
            return Ok(Pattern::Domain(domain.to_ascii_lowercase()));
        }
        text::check_email(t)?;
        Ok(Pattern::Address(t.to_ascii_lowercase()))
    }

    pub fn matches(&self, email: &str) -> bool {
        let email = email.trim().to_ascii_lowercase();
        match self {
            Pattern::Address(a) => email == *a,
            Pattern::Domain(d) => email
                .rsplit_once('@')
                .is_some_and(|(local, domain)| !local.is_empty() && domain == d),
        }
    }
}

/// The robot's settings: `$STARRY_HOME/robot.toml`, each overridden by its flag.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The authserv-id of the robot's own mail server; `None`: no `From:`
    /// is ever vouched for.
    pub authserv_id: Option<String>,
    /// Who may invite it, and whom it may always write to; empty: anybody
    /// may invite it.
    pub allow: Vec<Pattern>,
    /// Games it plays at once at most (finished games do not count).
    pub max_games: u32,
    /// Invitations it accepts from one sender in a day.
    pub invitations_per_day: u32,
    /// The shortest deadline (seconds) of a game it joins.
    pub min_deadline: u64,
}

/// The flags of `starry robot` that override `robot.toml`.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    pub authserv_id: Option<String>,
    /// Empty: the file's list.
    pub allow: Vec<String>,
    pub max_games: Option<u32>,
    pub invitations_per_day: Option<u32>,
    pub min_deadline: Option<u64>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct SettingsFile {
    authserv_id: Option<String>,
    allow: Option<Vec<String>>,
    max_games: Option<u32>,
    invitations_per_day: Option<u32>,
    /// A duration as `new --deadline` takes it: `1d`, `36h`.
    min_deadline: Option<String>,
}

impl Settings {
    pub const DEFAULT_MAX_GAMES: u32 = 20;
    pub const DEFAULT_INVITATIONS_PER_DAY: u32 = 3;

    /// Reads `home/robot.toml` (missing: the defaults) and applies `over`.
    pub fn load(home: &Path, over: &Overrides) -> Result<Settings> {
        let path = home.join(SETTINGS_FILE);
        let file = match fs::read_to_string(&path) {
            Ok(t) => toml::from_str::<SettingsFile>(&t).map_err(|e| {
                Error::Usage(format!(
                    "{}: {}; the keys are authserv_id, allow, max_games, \
                     invitations_per_day and min_deadline (see `starry robot --help`). Fix the \
                     file and run the robot again",
                    path.display(),
                    text::inline(e.message().trim())
                ))
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => SettingsFile::default(),
            Err(e) => return Err(Error::io("cannot read the robot's settings", &path, e)),
        };
        let (authserv_id, id_from) = match &over.authserv_id {
            Some(id) => (Some(id.clone()), "--authserv-id".to_string()),
            None => (
                file.authserv_id,
                format!("authserv_id in {}", path.display()),
            ),
        };
        let authserv_id = match authserv_id {
            Some(id) => {
                let t = id.trim();
                if t.is_empty()
                    || t.len() > 255
                    || t.chars()
                        .any(|c| c.is_whitespace() || text::is_unsafe(c) || "();\"".contains(c))
                {
                    return Err(Error::Usage(format!(
                        "{id_from}: `{}` is not an authserv-id; give the name your mail server \
                         writes first in its Authentication-Results headers (e.g. mx.example.org)",
                        text::excerpt(&id)
                    )));
                }
                Some(t.to_string())
            }
            None => None,
        };
        let (allow, allow_from) = if over.allow.is_empty() {
            (
                file.allow.unwrap_or_default(),
                format!("allow in {}", path.display()),
            )
        } else {
            (over.allow.clone(), "--allow".to_string())
        };
        let allow = allow
            .iter()
            .map(|p| {
                Pattern::parse(p).map_err(|why| {
                    Error::Usage(format!(
                        "{allow_from}: {why}; a pattern is an address (anna@example.org) or \
                         every address of a domain (*@example.org)"
                    ))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let min_deadline = match (over.min_deadline, &file.min_deadline) {
            (Some(d), _) => d,
            (None, Some(text)) => text
                .parse::<crate::cli::Deadline>()
                .map_err(|why| Error::Usage(format!("min_deadline in {}: {why}", path.display())))?
                .seconds()
                .unwrap_or(0),
            (None, None) => super::clock::DEFAULT_MIN_DEADLINE,
        };
        Ok(Settings {
            min_deadline,
            authserv_id,
            allow,
            max_games: over
                .max_games
                .or(file.max_games)
                .unwrap_or(Self::DEFAULT_MAX_GAMES),
            invitations_per_day: over
                .invitations_per_day
                .or(file.invitations_per_day)
                .unwrap_or(Self::DEFAULT_INVITATIONS_PER_DAY),
        })
    }

    fn allows(&self, email: &str) -> bool {
        self.allow.iter().any(|p| p.matches(email))
    }
}

/// The robot: its identity, mail settings, rules and state.
pub struct Robot {
    home: PathBuf,
    id: Identity,
    cfg: MailConfig,
    settings: Settings,
    level: Level,
    seed: Option<u64>,
    /// `$STARRY_HOME/robot`.
    dir: PathBuf,
}

/// What [`Robot::process`] did with a mail.
#[derive(Debug)]
pub enum Taken {
    /// Handled now (or tried again now).
    New(RobotMail),
    /// Handled, refused or given up in an earlier run.
    Before,
    /// A passing failure whose next try has not come yet.
    Deferred,
}

/// Why handling a mail stopped early.
enum Stop {
    NotForMe,
    NoLog,
    Refused {
        reason: Reason,
        why: String,
        code: i32,
    },
    Transient(Error),
}

fn refuse(reason: Reason, why: impl Into<String>) -> Stop {
    Stop::Refused {
        reason,
        why: why.into(),
        code: 0,
    }
}

/// The record of one mail in `handled/` (older runs wrote only `file`,
/// `outcome`, `game_id` and `entries`: such a mail was handled).
#[derive(Serialize, Deserialize, Default)]
struct Marker {
    #[serde(default)]
    file: String,
    #[serde(default)]
    outcome: Option<Outcome>,
    #[serde(default)]
    class: Option<Class>,
    #[serde(default)]
    reason: Option<Reason>,
    #[serde(default)]
    game_id: Option<String>,
    #[serde(default)]
    entries: Vec<String>,
    /// Failed tries so far (a passing failure).
    #[serde(default)]
    attempts: u32,
    /// The earliest next try, in seconds since 1970 (a passing failure).
    #[serde(default)]
    next_try: Option<i64>,
    #[serde(default)]
    last_error: Option<String>,
    /// Written, durably, before the mail is handled, and cleared with its
    /// outcome: found set by a later run, it means the run handling it
    /// stopped midway.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    processing: bool,
    /// Runs that stopped while handling it.
    #[serde(default, skip_serializing_if = "is_zero")]
    aborted: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// What the robot keeps about one game: `robot/games/GAME-ID.json`.
#[derive(Serialize, Deserialize, Default)]
struct GameState {
    /// Seats whose address has proven itself: it sent the robot an entry
    /// signed by the seat's key, in a mail the robot's server vouched for.
    #[serde(default)]
    proven: Vec<Proven>,
    /// Whether the game is over (it no longer counts against `max_games`).
    #[serde(default)]
    over: bool,
}

#[derive(Serialize, Deserialize, Clone)]
struct Proven {
    seat: Seat,
    email: String,
}

impl GameState {
    fn is_proven(&self, seat: Seat, email: &str) -> bool {
        self.proven
            .iter()
            .any(|p| p.seat == seat && p.email.eq_ignore_ascii_case(email))
    }
}

/// Invitations accepted, by sender (lower case), in seconds since 1970:
/// `robot/invitations.json`, pruned to the last day.
type Invitations = BTreeMap<String, Vec<i64>>;

const DAY: i64 = 24 * 60 * 60;

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

fn rfc3339(secs: i64) -> String {
    chrono::DateTime::from_timestamp(secs, 0)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        .unwrap_or_default()
}

impl Robot {
    /// The robot of the identity in `home`, with its mail settings.
    pub fn new(home: &Path, settings: Settings, level: Level, seed: Option<u64>) -> Result<Robot> {
        let id = Identity::load(home)?;
        let cfg = crate::mail::load(home).map_err(|e| {
            Error::Usage(format!(
                "{e}. The robot answers by mail: fix the mail settings (docs/mail.md) and run it \
                 again"
            ))
        })?;
        let dir = home.join("robot");
        for d in [dir.join("handled"), dir.join("games")] {
            fs::create_dir_all(&d)
                .map_err(|e| Error::io("cannot create the robot's folder", &d, e))?;
        }
        Ok(Robot {
            home: home.to_path_buf(),
            id,
            cfg,
            settings,
            level,
            seed,
            dir,
        })
    }

    /// One robot at a time per identity: a second run (cron overlapping a
    /// slow one) waits, then finds everything handled. Held while the
    /// returned file lives.
    pub fn lock(&self) -> Result<fs::File> {
        let lock_path = self.dir.join("lock");
        let lock = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| Error::io("cannot open the robot's lock", &lock_path, e))?;
        lock.lock()
            .map_err(|e| Error::io("cannot lock the robot's lock", &lock_path, e))?;
        Ok(lock)
    }

    /// Handles `raw` unless it was handled before or its next try has not
    /// come, and remembers the outcome by the SHA-256 of the bytes: done
    /// and refused for good, or a passing failure with its attempts and
    /// next try (given up after [`MAX_TRIES`]). Fails only when the record
    /// cannot be written.
    pub fn process(&self, raw: &[u8], label: &str) -> Result<Taken> {
        let key = hex::encode(Sha256::digest(raw));
        self.remembered(&key, label, Some(raw), || self.handle_mail(raw, label))
    }

    /// A mail larger than any starry mail (seen by its size on the IMAP
    /// server, never fetched): refused for good.
    pub fn too_large(&self, label: &str, size: u64) -> RobotMail {
        let mut mail = RobotMail::new(label);
        mail.outcome = Outcome::NoLog;
        mail.class = Class::Refused;
        mail.detail = Some(format!(
            "the mail has {size} bytes, more than the {LIMIT} a starry mail may have; it was not read"
        ));
        mail
    }

    /// A mail file that cannot be read: a passing failure like any other,
    /// remembered by its label (there are no bytes to hash).
    pub fn unreadable(&self, label: &str, e: &Error) -> Result<Taken> {
        let key = hex::encode(Sha256::digest(format!("unreadable\0{label}")));
        self.remembered(&key, label, None, || {
            let mut mail = RobotMail::new(label);
            mail.outcome = Outcome::Failed;
            mail.class = Class::Transient;
            mail.code = e.exit_code();
            mail.detail = Some(e.to_string());
            mail
        })
    }

    /// [`Robot::process`] for the mail recorded as `handled/KEY` (`raw`,
    /// its bytes, when there are any). The record says the mail is being
    /// handled, durably, before `handle` runs: a run that stops midway
    /// leaves it so, the next run counts it, and after [`MAX_ABORTS`] such
    /// runs the mail is set aside instead of handled again.
    fn remembered(
        &self,
        key: &str,
        label: &str,
        raw: Option<&[u8]>,
        handle: impl FnOnce() -> RobotMail,
    ) -> Result<Taken> {
        let path = self.dir.join("handled").join(key);
        let before = read_small(&path).map(|b| serde_json::from_slice::<Marker>(&b).ok());
        let now = now();
        let (attempts, aborted) = match before {
            // A record that cannot be read is a mail handled before.
            Some(None) => return Ok(Taken::Before),
            // A run stopped while handling it.
            Some(Some(m)) if m.processing => (m.attempts, m.aborted + 1),
            Some(Some(m)) => match m.class {
                Some(Class::Transient) if m.next_try.is_some_and(|t| now < t) => {
                    return Ok(Taken::Deferred);
                }
                Some(Class::Transient) => (m.attempts, m.aborted),
                _ => return Ok(Taken::Before),
            },
            None => (0, 0),
        };
        if aborted >= MAX_ABORTS {
            return self.quarantine(key, label, raw, attempts, aborted);
        }
        let pending = Marker {
            file: label.to_string(),
            attempts,
            processing: true,
            aborted,
            ..Marker::default()
        };
        let record = serde_json::to_vec(&pending).expect("records serialise");
        file::write_record(&path, &[record.as_slice(), b"\n"].concat())?;
        #[cfg(debug_assertions)]
        abort_for_tests(raw);
        let mut mail = handle();
        let mut marker = Marker {
            file: label.to_string(),
            outcome: Some(mail.outcome),
            class: Some(mail.class),
            reason: mail.reason,
            game_id: mail.game_id.clone(),
            entries: mail.entries.clone(),
            aborted,
            ..Marker::default()
        };
        if mail.class == Class::Transient {
            let attempts = attempts + 1;
            marker.attempts = attempts;
            marker.last_error = mail.detail.clone();
            mail.attempts = Some(attempts);
            if attempts >= MAX_TRIES {
                mail.outcome = Outcome::GaveUp;
                mail.class = Class::Refused;
                mail.detail = Some(format!(
                    "given up after {attempts} tries; it is never tried again (remove {} to \
                     try it once more): {}",
                    path.display(),
                    mail.detail.as_deref().unwrap_or("no detail")
                ));
                marker.outcome = Some(Outcome::GaveUp);
                marker.class = Some(Class::Refused);
            } else {
                let next = now + FIRST_BACKOFF_SECS * (1 << (attempts - 1).min(10));
                marker.next_try = Some(next);
                mail.next_try = Some(rfc3339(next));
            }
        }
        let record = serde_json::to_vec(&marker).expect("records serialise");
        file::write_record(&path, &[record.as_slice(), b"\n"].concat())?;
        Ok(Taken::New(mail))
    }

    /// Sets aside a mail whose handling stopped `aborted` runs: a copy of it
    /// in `robot/quarantine/KEY.eml` for whoever runs the robot to look at,
    /// and a record that it is never handled again. Reported once, as a
    /// failure of the run.
    fn quarantine(
        &self,
        key: &str,
        label: &str,
        raw: Option<&[u8]>,
        attempts: u32,
        aborted: u32,
    ) -> Result<Taken> {
        let path = self.dir.join("handled").join(key);
        let mut mail = RobotMail::new(label);
        mail.outcome = Outcome::Quarantined;
        mail.class = Class::Refused;
        mail.code = 1;
        let kept = match raw {
            Some(raw) => {
                let dir = self.dir.join("quarantine");
                fs::create_dir_all(&dir)
                    .map_err(|e| Error::io("cannot create the robot's folder", &dir, e))?;
                let copy = dir.join(format!("{key}.eml"));
                file::write_record(&copy, raw)?;
                format!("a copy is in {}", copy.display())
            }
            None => "the mail could not be read".into(),
        };
        mail.detail = Some(format!(
            "set aside: {aborted} runs stopped while handling this mail (a crash, an abort, or \
             the system ending the robot); it is never handled again ({kept}; remove {} to \
             try it once more)",
            path.display()
        ));
        let marker = Marker {
            file: label.to_string(),
            outcome: Some(Outcome::Quarantined),
            class: Some(Class::Refused),
            attempts,
            aborted,
            last_error: mail.detail.clone(),
            ..Marker::default()
        };
        let record = serde_json::to_vec(&marker).expect("records serialise");
        file::write_record(&path, &[record.as_slice(), b"\n"].concat())?;
        Ok(Taken::New(mail))
    }

    /// Everything the robot does with one mail, whatever its source, under
    /// the rules of the module's documentation. Never panics; what went
    /// wrong is in the result: done, refused for good, or transient.
    pub fn handle_mail(&self, raw: &[u8], label: &str) -> RobotMail {
        let mut mail = RobotMail::new(label);
        match self.handle_inner(raw, label, &mut mail) {
            Ok(()) => {}
            Err(Stop::NotForMe) => mail.outcome = Outcome::NotForMe,
            Err(Stop::NoLog) => mail.outcome = Outcome::NoLog,
            Err(Stop::Refused { reason, why, code }) => {
                mail.outcome = Outcome::Refused;
                mail.reason = Some(reason);
                mail.detail = Some(why);
                mail.code = code;
            }
            Err(Stop::Transient(e)) => {
                mail.outcome = if mail.entries.is_empty() {
                    Outcome::Failed
                } else {
                    Outcome::Played
                };
                mail.code = e.exit_code();
                mail.detail = Some(e.to_string());
            }
        }
        mail.class = mail.outcome.class();
        mail
    }

    fn handle_inner(
        &self,
        raw: &[u8],
        label: &str,
        mail: &mut RobotMail,
    ) -> std::result::Result<(), Stop> {
        let facts = Facts::of(raw);
        let me = self.id.email.trim();
        if !facts
            .recipients
            .iter()
            .any(|r| r.trim().eq_ignore_ascii_case(me))
        {
            return Err(Stop::NotForMe);
        }
        if let Some(why) = facts.automatic() {
            return Err(refuse(
                Reason::Automatic,
                format!(
                    "{why}: an automatic mail, which the robot never answers (RFC 3834); its log, \
                     if any, was not read"
                ),
            ));
        }
        // A mail with no log at all (a greeting, spam) is not answered.
        let logs = match crate::mail::find_logs(raw, LIMIT) {
            Ok(l) if l.is_empty() => return Err(Stop::NoLog),
            Ok(l) => l,
            Err(e) => {
                return Err(Stop::Refused {
                    reason: Reason::Unverified,
                    why: format!("{e}; nothing was stored or answered"),
                    code: Error::Input(String::new()).exit_code(),
                });
            }
        };
        let Some(game_id) = logs.iter().find_map(|l| game_of(l)) else {
            return Err(Stop::Refused {
                reason: Reason::Unverified,
                why: "the log in the mail does not begin with a starry entry; nothing was \
                      stored or answered"
                    .into(),
                code: Fault::Malformed.exit_code(),
            });
        };
        mail.game_id = Some(hex::encode(game_id));
        let local = game_path(&self.home, &game_id);
        if local.exists() {
            let bytes = file::read(&local).map_err(Stop::Transient)?;
            let (genesis, _) = read_genesis(&bytes).map_err(|fault| {
                Stop::Transient(Error::Log {
                    path: local.clone(),
                    fault,
                })
            })?;
            let ran: Result<std::result::Result<(), Stop>> = with_game!(
                genesis.game.as_str(),
                G => Ok(self.known_game::<G>(&facts, raw, label, &logs, &local, &bytes, mail))
            );
            return ran.map_err(Stop::Transient)?;
        }
        // A game new to the robot: the mail must hold its whole log, which
        // is verified before anything is stored.
        let whole: Vec<&[u8]> = logs
            .iter()
            .filter(|l| read_genesis(l).is_ok_and(|(_, id)| id == game_id))
            .map(Vec::as_slice)
            .collect();
        let Some(first) = whole.first() else {
            return Err(refuse(
                Reason::Unverified,
                format!(
                    "the mail carries only some entries of game {}, which the robot has no copy \
                     of, so they cannot be verified; nothing was stored or answered",
                    short_id(&game_id)
                ),
            ));
        };
        let (genesis, _) = read_genesis(first).expect("checked above");
        let ran: Result<std::result::Result<(), Stop>> = with_game!(
            genesis.game.as_str(),
            G => Ok(self.new_game::<G>(&facts, label, &logs, &whole, mail))
        );
        ran.map_err(|e| refuse(Reason::Unverified, format!("{e}; nothing was stored")))?
    }

    /// A mail about a game the robot has a copy of.
    #[allow(clippy::too_many_arguments)]
    fn known_game<G: Game>(
        &self,
        facts: &Facts,
        raw: &[u8],
        label: &str,
        logs: &[Vec<u8>],
        local: &Path,
        bytes: &[u8],
        mail: &mut RobotMail,
    ) -> std::result::Result<(), Stop> {
        let (r, _) = super::cache::tell::<G>(bytes).map_err(|fault| {
            Stop::Transient(Error::Log {
                path: local.into(),
                fault,
            })
        })?;
        if self.my_seat(&r).is_none() {
            return Err(no_seat(&r.game_id, "its copy was left as it is"));
        }
        let out = match ingest::ingest_bytes(&self.home, raw, label, None) {
            Ok(out) => out,
            Err(e) if passing(&e) => return Err(Stop::Transient(e)),
            Err(e) => {
                return Err(Stop::Refused {
                    reason: Reason::Unverified,
                    code: e.exit_code(),
                    why: format!("{e}; nobody was told"),
                });
            }
        };
        let path = PathBuf::from(out.json["file"].as_str().unwrap_or_default());
        let stored = file::read(&path).map_err(Stop::Transient)?;
        let (r, _) = super::cache::tell::<G>(&stored).map_err(|fault| {
            Stop::Transient(Error::Log {
                path: path.clone(),
                fault,
            })
        })?;
        let Some(me) = self.my_seat(&r) else {
            return Err(no_seat(&r.game_id, "its copy is kept, and nobody was told"));
        };
        let mut state = self.load_state(&r.game_id).map_err(Stop::Transient)?;
        let sender = self.sender_of(&r, me, facts, logs, &mut state);
        state.over = r.is_over();
        self.save_state(&r.game_id, &state)
            .map_err(Stop::Transient)?;
        let sender = sender?;
        self.play::<G>(&path, &out.json, sender, &mut state, mail)
    }

    /// A mail about a game the robot has no copy of: an invitation, if
    /// anything. Nothing is stored unless every check passes.
    fn new_game<G: Game>(
        &self,
        facts: &Facts,
        label: &str,
        logs: &[Vec<u8>],
        whole: &[&[u8]],
        mail: &mut RobotMail,
    ) -> std::result::Result<(), Stop> {
        // The longest copy that verifies.
        let mut best: Option<(Replay<G>, &[u8])> = None;
        let mut fault = None;
        for &log in whole {
            match Replay::<G>::from_bytes(log) {
                Ok(r) if best.as_ref().is_none_or(|(b, _)| r.len() > b.len()) => {
                    best = Some((r, log));
                }
                Ok(_) => {}
                Err(f) => {
                    fault.get_or_insert(f);
                }
            }
        }
        let Some((r, log)) = best else {
            let fault = fault.expect("a copy that does not verify has a fault");
            return Err(Stop::Refused {
                reason: Reason::Unverified,
                code: fault.fault.exit_code(),
                why: format!("the log does not verify: {fault}; nothing was stored or answered"),
            });
        };
        let Some(me) = self.my_seat(&r) else {
            return Err(no_seat(&r.game_id, "nothing was stored"));
        };
        let mut state = GameState::default();
        let from = facts.from.clone().unwrap_or_default().to_ascii_lowercase();
        let sender = self.sender_of(&r, me, facts, logs, &mut state)?;
        // An invitation: from whom, how many, how many games at once.
        if !self.settings.allow.is_empty() && !self.settings.allows(&from) {
            return Err(refuse(
                Reason::NotAllowed,
                format!(
                    "an invitation from {}, who is not on the robot's allow-list; nothing was \
                     stored",
                    text::inline(&from)
                ),
            ));
        }
        // Time controls it can live with: a claim that it stopped
        // answering must not come before its floor (`min_deadline`).
        if let Some(why) = super::clock::short_deadline(&r.genesis, self.settings.min_deadline) {
            return Err(refuse(
                Reason::ShortDeadline,
                format!(
                    "an invitation from {}, but {why}; the robot joins only games whose deadline \
                     is at least {} (min_deadline); nothing was stored",
                    text::inline(&from),
                    crate::log::replay::span_text(self.settings.min_deadline)
                ),
            ));
        }
        let now = now();
        let mut invitations = self.load_invitations(now).map_err(Stop::Transient)?;
        let today = invitations.get(&from).map_or(0, Vec::len);
        if today >= self.settings.invitations_per_day as usize {
            return Err(refuse(
                Reason::InvitationLimit,
                format!(
                    "an invitation from {}, who has sent {today} in the last day, as many as the \
                     robot accepts (invitations_per_day); nothing was stored",
                    text::inline(&from)
                ),
            ));
        }
        let playing = self.games_playing().map_err(Stop::Transient)?;
        if playing >= self.settings.max_games as usize {
            return Err(refuse(
                Reason::GameLimit,
                format!(
                    "an invitation from {}, but the robot already plays {playing} games, as many \
                     as it may (max_games); nothing was stored",
                    text::inline(&from)
                ),
            ));
        }
        let out = match ingest::ingest_bytes(&self.home, log, label, None) {
            Ok(out) => out,
            Err(e) if passing(&e) => return Err(Stop::Transient(e)),
            Err(e) => {
                return Err(Stop::Refused {
                    reason: Reason::Unverified,
                    code: e.exit_code(),
                    why: format!("{e}; nobody was told"),
                });
            }
        };
        invitations.entry(from).or_default().push(now);
        self.save_invitations(invitations)
            .map_err(Stop::Transient)?;
        state.over = r.is_over();
        self.save_state(&r.game_id, &state)
            .map_err(Stop::Transient)?;
        let path = PathBuf::from(out.json["file"].as_str().unwrap_or_default());
        self.play::<G>(&path, &out.json, sender, &mut state, mail)
    }

    /// The seat the robot holds in `r`: joined with its key, or open with
    /// its address and not pinned to another key.
    fn my_seat<G: Game>(&self, r: &Replay<G>) -> Option<Seat> {
        let key = self.id.public_key();
        r.seat_of_key(&key).or_else(|| {
            let s = r.seat_of_email(&self.id.email)?;
            (r.seats[s].key.is_none() && r.seat_key(s).is_none_or(|k| k == key)).then_some(s)
        })
    }

    /// The joined seat that sent the mail (its `From:` is the seat's
    /// address), marked proven in `state` when the robot's server vouches
    /// for the `From:` and the mail carries an entry signed by the seat.
    /// Refused when the sender is no joined seat, or may not be answered.
    fn sender_of<G: Game>(
        &self,
        r: &Replay<G>,
        me: Seat,
        facts: &Facts,
        logs: &[Vec<u8>],
        state: &mut GameState,
    ) -> std::result::Result<Seat, Stop> {
        let from = facts.from.clone().unwrap_or_default();
        let seat = (0..r.seat_count()).find(|&s| {
            s != me
                && r.seats[s].key.is_some()
                && r.genesis.seats[s].email.eq_ignore_ascii_case(from.trim())
        });
        let Some(seat) = seat else {
            return Err(refuse(
                Reason::NotASeat,
                format!(
                    "the sender {} is not a joined player of game {}; nobody was told",
                    if from.is_empty() {
                        "(none)".to_string()
                    } else {
                        text::inline(&from).into_owned()
                    },
                    short_id(&r.game_id)
                ),
            ));
        };
        let email = r.genesis.seats[seat].email.clone();
        let vouched = self.vouched(facts);
        if vouched.is_some() && !state.is_proven(seat, &email) && carries_entry_of(r, logs, seat) {
            state.proven.push(Proven {
                seat,
                email: email.clone(),
            });
        }
        if !self.writable(r, state, seat) {
            return Err(refuse(
                Reason::Unproven,
                format!(
                    "the sender {} is not on the allow-list and {}, so the robot may not write \
                     to them; nobody was told",
                    text::inline(&email),
                    match (&self.settings.authserv_id, vouched) {
                        (None, _) =>
                            "no authserv_id is set, so no mail is ever vouched for".to_string(),
                        (Some(id), None) => format!(
                            "the mail carries no Authentication-Results of {} that passes for \
                             its From domain",
                            text::inline(id)
                        ),
                        (Some(_), Some(_)) => {
                            "the mail carries no entry signed by their seat".to_string()
                        }
                    }
                ),
            ));
        }
        Ok(seat)
    }

    /// The check of the robot's own mail server that vouches for the
    /// mail's `From:` (one address, with a domain), if any: only the
    /// `Authentication-Results` fields above the first `Received` field
    /// are the server's own ([`crate::mail::auth_results::vouches_in`]).
    fn vouched(&self, facts: &Facts) -> Option<&'static str> {
        let id = self.settings.authserv_id.as_deref()?;
        if !facts.single_from {
            return None;
        }
        let (_, domain) = facts.from.as_deref()?.rsplit_once('@')?;
        crate::mail::auth_results::vouches_in(
            facts.fields.iter().map(|(n, v)| (n.as_str(), v.as_str())),
            id,
            domain,
        )
    }

    /// Whether the robot may write to `seat`'s address first.
    fn writable<G: Game>(&self, r: &Replay<G>, state: &GameState, seat: Seat) -> bool {
        let email = &r.genesis.seats[seat].email;
        self.settings.allows(email) || state.is_proven(seat, email)
    }

    /// Writes every entry the game at `path` waits for from the robot, then
    /// mails the log on once.
    fn play<G: Game>(
        &self,
        path: &Path,
        ingested: &serde_json::Value,
        sender: Seat,
        state: &mut GameState,
        mail: &mut RobotMail,
    ) -> std::result::Result<(), Stop> {
        // Countersignatures written at once on two copies are a fork the
        // protocol resolves: when the sender's side won, ingest wrote the
        // robot's lost countersignature again on top, and only a mail
        // brings it to the others.
        let rewritten = ingested["outcome"] == "resolved"
            && ingested["entries_after"].as_u64() > ingested["entries_received"].as_u64();
        if rewritten {
            let entry = ingested["entries_after"].as_u64().unwrap_or(1) - 1;
            mail.entries.push(format!(
                "entry {entry}: its countersignature, written again on top of the copy that won"
            ));
        }
        let mut failure = None;
        for _ in 0..MAX_ENTRIES_PER_MAIL {
            let what = match self.owed::<G>(path) {
                Ok(Some(what)) => what,
                Ok(None) => break,
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            };
            match act::act_file(path, what, false) {
                Ok(out) => mail.entries.push(format!(
                    "entry {}: {}",
                    out.json["entry"],
                    out.json["summary"].as_str().unwrap_or_default()
                )),
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
        }
        if !mail.entries.is_empty() {
            mail.outcome = Outcome::Played;
            // The entries are written: whatever happens to the mail, they
            // stay (a mail not sent waits in pending/ for the next run).
            if let Err(e) = self.deliver::<G>(path, sender, state, mail) {
                failure.get_or_insert(e);
            }
        }
        match failure {
            Some(e) => Err(Stop::Transient(e)),
            None => Ok(()),
        }
    }

    /// What the robot owes in the game at `path` now, if anything.
    fn owed<G: Game>(&self, path: &Path) -> Result<Option<Do>> {
        let bytes = file::read(path)?;
        let (r, _) = super::cache::tell::<G>(&bytes).map_err(|fault| Error::Log {
            path: path.into(),
            fault,
        })?;
        let Some(me) = self.my_seat(&r) else {
            return Ok(None);
        };
        let (action, who) = r.expected();
        let joined = r.seats[me].key.is_some();
        Ok(match action {
            Action::Join => {
                (!joined && who == Some(me)).then_some(Do::Join(LogNotify::from(Notify::Turn)))
            }
            // Claims that ended the game waiting for the robot: it answers
            // (its move wins against them, protocol §7); it never
            // countersigns its own abandonment.
            Action::Over if super::clock::late_answer_at(&r, me).is_some() => {
                Some(Do::Bot(self.level, self.seed))
            }
            Action::Over => (joined && !r.countersigned.contains(&me)).then_some(Do::Countersign),
            _ => (joined && who == Some(me)).then_some(Do::Bot(self.level, self.seed)),
        })
    }

    /// Mails the log at `path` on: as `starry mail` does when every
    /// recipient is an address the robot may write to; otherwise back to
    /// the sender alone, asking them to pass it on.
    fn deliver<G: Game>(
        &self,
        path: &Path,
        sender: Seat,
        state: &mut GameState,
        mail: &mut RobotMail,
    ) -> Result<()> {
        let bytes = file::read(path)?;
        let (r, _) = super::cache::tell::<G>(&bytes).map_err(|fault| Error::Log {
            path: path.into(),
            fault,
        })?;
        state.over = r.is_over();
        self.save_state(&r.game_id, state)?;
        let targets = targets(&r, self.my_seat(&r));
        if targets.is_empty() {
            return Ok(());
        }
        let blocked: Vec<Seat> = targets
            .iter()
            .copied()
            .filter(|&s| !self.writable(&r, state, s))
            .collect();
        if blocked.is_empty() {
            let out = super::mail::mail_file(
                path,
                Sending {
                    auto_submitted: true,
                    ..Sending::default()
                },
            )?;
            mail.mailed_to.extend(
                out.json["sent"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|m| m["to"].as_str().map(str::to_string)),
            );
            if let Some(w) = out.warning {
                mail.code = out.code;
                mail.detail = Some(w);
            } else if !mail.mailed_to.is_empty() {
                mail.detail = Some(format!("mailed to {}", mail.mailed_to.join(", ")));
            }
            return Ok(());
        }
        let to = &r.genesis.seats[sender];
        let msg = self.relay_mail::<G>(&r, &bytes, sender, &blocked)?;
        match crate::mail::compose(&msg).and_then(|m| crate::mail::send(&self.cfg, &self.home, &m))
        {
            Ok(_) => {
                mail.mailed_to.push(to.email.clone());
                mail.relayed = true;
                mail.detail = Some(format!(
                    "the robot may not write first to {}: the log went back to {} alone, to pass on",
                    blocked
                        .iter()
                        .map(|&s| text::inline(&r.genesis.seats[s].email).into_owned())
                        .collect::<Vec<_>>()
                        .join(", "),
                    text::inline(&to.email)
                ));
            }
            Err(e) => {
                mail.relayed = true;
                mail.code = if e.pending_path().is_some() {
                    NOT_SENT
                } else {
                    1
                };
                mail.detail = Some(format!(
                    "the log for {} to pass on was not sent: {e}",
                    text::inline(&to.email)
                ));
            }
        }
        Ok(())
    }

    /// The mail that returns the log to the sender, asking them to pass it
    /// on. It names the game, the players by their (short) names and
    /// addresses, and the commands; never a path, never the sender's own
    /// words.
    fn relay_mail<G: Game>(
        &self,
        r: &Replay<G>,
        log: &[u8],
        sender: Seat,
        blocked: &[Seat],
    ) -> Result<TurnMail> {
        let (from_name, from_email) = self.from();
        let to = &r.genesis.seats[sender];
        let id16 = short_id(&r.game_id);
        let title = history::title(G::NAME);
        let name = |s: Seat| {
            format!(
                "{} <{}>",
                crate::mail::compose::display_name(&r.genesis.seats[s].name),
                text::inline(&r.genesis.seats[s].email)
            )
        };
        let (action, who) = r.expected();
        let now = match who {
            Some(w) if !r.is_over() => {
                format!("The game now waits for {} ({}).", name(w), action.as_str())
            }
            _ => "The game is over.".to_string(),
        };
        let file_name = format!("{id16}.jsonl");
        let mut body = format!(
            "Hello {},\n\n",
            crate::mail::compose::display_name(&to.name)
        );
        body.push_str(&text::wrap(
            &format!(
                "I am the starry robot {} <{}> and play {title} {} with you. I have written \
                 my entries; the log now has {} entries. {now}\n",
                crate::mail::compose::display_name(&self.id.name),
                text::inline(&self.id.email),
                &id16[..8],
                r.len()
            ),
            72,
            "",
        ));
        body.push('\n');
        body.push_str(&text::wrap(
            &format!(
                "I write first only to addresses that have sent me an entry of their own seat, in \
                 a mail my mail server vouches for, or that my operator allows. {} {} not, so the \
                 log comes back to you alone. Please pass it on:\n",
                blocked
                    .iter()
                    .map(|&s| name(s))
                    .collect::<Vec<_>>()
                    .join(", "),
                if blocked.len() == 1 { "has" } else { "have" }
            ),
            72,
            "",
        ));
        body.push_str(&format!(
            "\n  1. Save the attached file {file_name} (or this whole mail as turn.eml).\n  \
             2. starry ingest {file_name}\n  3. starry mail {id16}\n\n"
        ));
        body.push_str(&text::wrap(
            "`starry mail` sends each player the entries they lack, from you. Once a player has \
             mailed me an entry of theirs, I write to them myself.\n",
            72,
            "",
        ));
        Ok(TurnMail {
            from_name,
            from_email,
            to_name: to.name.clone(),
            to_email: to.email.clone(),
            subject: format!("[starry] {title} {} — please pass this on", &id16[..8]),
            body_text: body,
            log_file_name: file_name,
            log: log.to_vec(),
            auto_submitted: true,
            ..TurnMail::default()
        })
    }

    /// The robot's sender: `from` in the mail settings, else its identity
    /// (as `starry mail` does).
    fn from(&self) -> (String, String) {
        if let Some(from) = &self.cfg.from {
            let t = from.trim();
            if let (Some(i), true) = (t.find('<'), t.ends_with('>')) {
                let name = t[..i].trim().trim_matches('"');
                let name = if name.is_empty() { &self.id.name } else { name };
                return (name.to_string(), t[i + 1..t.len() - 1].trim().to_string());
            }
            return (self.id.name.clone(), t.to_string());
        }
        (self.id.name.clone(), self.id.email.clone())
    }

    fn state_path(&self, game: &Hash) -> PathBuf {
        self.dir
            .join("games")
            .join(format!("{}.json", hex::encode(game)))
    }

    fn load_state(&self, game: &Hash) -> Result<GameState> {
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

    fn save_state(&self, game: &Hash, state: &GameState) -> Result<()> {
        let bytes = serde_json::to_vec_pretty(state).expect("records serialise");
        file::write_record(&self.state_path(game), &[bytes.as_slice(), b"\n"].concat())
    }

    /// The games it plays now: those with a record and a log that are not
    /// over.
    fn games_playing(&self) -> Result<usize> {
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

    fn invitations_path(&self) -> PathBuf {
        self.dir.join("invitations.json")
    }

    /// The invitations of the last day.
    fn load_invitations(&self, now: i64) -> Result<Invitations> {
        let path = self.invitations_path();
        let mut all: Invitations = match read_small(&path) {
            Some(b) => serde_json::from_slice(&b).unwrap_or_default(),
            None if path.exists() => {
                return Err(Error::io(
                    "cannot read the robot's record",
                    &path,
                    std::io::Error::other("unreadable or too large"),
                ));
            }
            None => Invitations::new(),
        };
        for times in all.values_mut() {
            times.retain(|&t| t > now - DAY && t <= now + DAY);
        }
        all.retain(|_, t| !t.is_empty());
        Ok(all)
    }

    fn save_invitations(&self, mut all: Invitations) -> Result<()> {
        let total: usize = all.values().map(Vec::len).sum();
        if total > MAX_INVITATION_RECORDS {
            let mut times: Vec<i64> = all.values().flatten().copied().collect();
            times.sort_unstable();
            let cut = times[total - MAX_INVITATION_RECORDS];
            for t in all.values_mut() {
                t.retain(|&x| x >= cut);
            }
            all.retain(|_, t| !t.is_empty());
        }
        let bytes = serde_json::to_vec_pretty(&all).expect("records serialise");
        file::write_record(
            &self.invitations_path(),
            &[bytes.as_slice(), b"\n"].concat(),
        )
    }
}

/// A game the robot has no seat in: refused.
fn no_seat(game: &Hash, what_then: &str) -> Stop {
    refuse(
        Reason::NoSeat,
        format!(
            "game {} has no seat for the robot (its address is not listed, or its seat is joined \
             by or pinned to another key); {what_then}",
            short_id(game)
        ),
    )
}

/// Whether an error may pass (a file that cannot be read or written, the
/// identity, the machine) rather than being the mail's fault.
fn passing(e: &Error) -> bool {
    match e {
        Error::Io { .. } | Error::Identity(_) | Error::Other(_) => true,
        Error::Log { fault, .. } => fault.fault == Fault::Unreadable,
        _ => false,
    }
}

/// The game a log belongs to: the id of its genesis, or the game named by
/// its first entry (a partial log).
fn game_of(log: &[u8]) -> Option<Hash> {
    if let Ok((_, id)) = read_genesis(log) {
        return Some(id);
    }
    let end = log.iter().position(|&b| b == b'\n').unwrap_or(log.len());
    let line: crate::log::entry::Line = serde_json::from_slice(&log[..end]).ok()?;
    line.body.game.map(|g| g.0)
}

/// Whether the mail's logs hold an entry of `seat` that is in `r` (so
/// verified, and signed by the seat's key).
fn carries_entry_of<G: Game>(r: &Replay<G>, logs: &[Vec<u8>], seat: Seat) -> bool {
    let ids: std::collections::HashSet<Hash> = logs
        .iter()
        .flat_map(|l| l.split(|&b| b == b'\n'))
        .filter(|l| !l.is_empty())
        .map(crate::crypto::sha256)
        .collect();
    r.entries
        .iter()
        .any(|e| e.author == seat && ids.contains(&e.id))
}

/// The seats `starry mail` writes to after the robot's entries, as
/// `app::mail` chooses them (without `--to-all`): when the game is over,
/// every other seat; else the awaited seat, and the joined seats that want
/// every mail.
fn targets<G: Game>(r: &Replay<G>, me: Option<Seat>) -> Vec<Seat> {
    let (_, who) = r.expected();
    if r.is_over() {
        return (0..r.seat_count()).filter(|&s| Some(s) != me).collect();
    }
    let Some(w) = who else {
        return Vec::new();
    };
    let mut t: Vec<Seat> = Vec::new();
    if Some(w) != me {
        t.push(w);
    }
    t.extend((0..r.seat_count()).filter(|&s| {
        Some(s) != me && s != w && r.seats[s].key.is_some() && r.seats[s].notify == LogNotify::All
    }));
    t
}

/// Reads a small file of the robot's own; `None` when missing, unreadable
/// or larger than [`MAX_STATE_BYTES`].
/// A test's way to make the robot stop midway through a mail, as a crash
/// or the system's memory limit would: debug builds only, when
/// `STARRY_TEST_ABORT_ON` is set and the mail holds its text.
#[cfg(debug_assertions)]
fn abort_for_tests(raw: Option<&[u8]>) {
    if let (Some(raw), Some(word)) = (raw, std::env::var_os("STARRY_TEST_ABORT_ON")) {
        let word = word.as_encoded_bytes();
        if !word.is_empty() && raw.windows(word.len()).any(|w| w == word) {
            std::process::abort();
        }
    }
}

fn read_small(path: &Path) -> Option<Vec<u8>> {
    let meta = fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_STATE_BYTES {
        return None;
    }
    fs::read(path).ok()
}

/// What the robot needs from a mail's header.
#[derive(Default)]
struct Facts {
    /// The first address of `From:`.
    from: Option<String>,
    /// `From:` is one field holding one address.
    single_from: bool,
    /// Every address in `To` and `Cc`.
    recipients: Vec<String>,
    /// Every header field: the name in lower case, the value as written
    /// (unfolded), at most [`MAX_FIELDS`] of them.
    fields: Vec<(String, String)>,
}

/// Header fields read at most.
const MAX_FIELDS: usize = 500;

impl Facts {
    /// Never panics (mail-parser's few panics on damaged mails are caught,
    /// as in `crate::mail::parse`); a mail it cannot read has no facts.
    fn of(raw: &[u8]) -> Facts {
        let mut mail = raw.strip_prefix(b"\xef\xbb\xbf").unwrap_or(raw);
        // An mbox `From ` line first.
        if mail.starts_with(b"From ")
            && let Some(end) = mail.iter().position(|&b| b == b'\n')
        {
            mail = &mail[end + 1..];
        }
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let m = mail_parser::MessageParser::default().parse_headers(mail)?;
            let addresses = |a: Option<&mail_parser::Address<'_>>| -> Vec<String> {
                a.map(|a| {
                    a.iter()
                        .filter_map(|x| x.address().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default()
            };
            let from = addresses(m.from());
            let mut recipients = addresses(m.to());
            recipients.extend(addresses(m.cc()));
            let fields: Vec<(String, String)> = m
                .headers()
                .iter()
                .take(MAX_FIELDS)
                .map(|h| {
                    let value = mail
                        .get(h.offset_start as usize..h.offset_end as usize)
                        .unwrap_or_default();
                    let value = String::from_utf8_lossy(value).replace(['\r', '\n'], "");
                    (h.name.as_str().to_ascii_lowercase(), value)
                })
                .collect();
            let from_fields = fields.iter().filter(|(n, _)| n == "from").count();
            Some(Facts {
                single_from: from.len() == 1 && from_fields == 1,
                from: from.into_iter().next(),
                recipients,
                fields,
            })
        }))
        .ok()
        .flatten()
        .unwrap_or_default()
    }

    /// Why the mail is automatic (RFC 3834, section 2): `Auto-Submitted`
    /// other than `no`, a list's header, `Precedence: bulk|list|junk`, or
    /// an empty or MAILER-DAEMON/postmaster return path. `None`: a person's.
    fn automatic(&self) -> Option<String> {
        for (name, value) in &self.fields {
            let v = value.trim().to_ascii_lowercase();
            match name.as_str() {
                "auto-submitted" => {
                    // `no`, perhaps with a comment or parameters after it.
                    let kind = v
                        .split(|c: char| c == ';' || c == '(' || c.is_whitespace())
                        .next()
                        .unwrap_or_default();
                    if kind != "no" {
                        return Some(format!("Auto-Submitted: {}", text::excerpt(kind)));
                    }
                }
                "precedence" if matches!(v.as_str(), "bulk" | "list" | "junk") => {
                    return Some(format!("Precedence: {v}"));
                }
                "return-path" => {
                    let path = v.trim_start_matches('<').trim_end_matches('>').trim();
                    let local = path.split('@').next().unwrap_or_default();
                    if path.is_empty() || local == "mailer-daemon" || local == "postmaster" {
                        return Some(format!("Return-Path: <{}>", text::excerpt(path)));
                    }
                }
                n if n.starts_with("list-") => {
                    return Some(format!("a mailing list's mail ({})", text::excerpt(n)));
                }
                _ => {}
            }
        }
        None
    }
}

/// The mails of `source`, oldest first (by modification time, then name).
fn mails(source: &Source) -> Result<Vec<PathBuf>> {
    let folders: Vec<PathBuf> = match source {
        Source::Imap => return Ok(Vec::new()),
        Source::Maildir(d) => {
            if !d.join("new").is_dir() && !d.join("cur").is_dir() {
                return Err(Error::Usage(format!(
                    "{} is not a maildir (it has neither new/ nor cur/); for a folder of .eml \
                     files use --outbox",
                    d.display()
                )));
            }
            vec![d.join("new"), d.join("cur")]
        }
        Source::Outbox(d) => {
            if !d.is_dir() {
                return Err(Error::Usage(format!("{} is not a folder", d.display())));
            }
            vec![d.clone()]
        }
    };
    let mut found = Vec::new();
    for folder in folders {
        let Ok(entries) = fs::read_dir(&folder) else {
            continue;
        };
        for e in entries {
            let e = e.map_err(|e| Error::io("cannot list", &folder, e))?;
            let name = e.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') {
                continue;
            }
            if matches!(source, Source::Outbox(_)) && !name.ends_with(".eml") {
                continue;
            }
            let Ok(meta) = e.metadata() else { continue };
            if !meta.is_file() {
                continue;
            }
            let time = meta.modified().ok();
            found.push((time, e.path()));
        }
    }
    found.sort();
    Ok(found.into_iter().map(|(_, p)| p).collect())
}

/// Reads a mail, refusing more than [`LIMIT`] bytes and anything that is
/// not a plain file (checked before opening: a FIFO would block).
fn read_bounded(path: &Path) -> Result<Vec<u8>> {
    let meta = fs::metadata(path).map_err(|e| Error::io("cannot read the mail", path, e))?;
    if !meta.is_file() {
        return Err(Error::Usage(format!("{} is not a file", path.display())));
    }
    let mut raw = Vec::new();
    fs::File::open(path)
        .and_then(|f| f.take(LIMIT as u64 + 1).read_to_end(&mut raw))
        .map_err(|e| Error::io("cannot read the mail", path, e))?;
    Ok(raw)
}

/// `starry robot`.
pub fn run(args: RobotArgs, json: bool) -> Result<Output> {
    let source = match (args.imap, args.maildir, args.outbox) {
        (true, _, _) => Source::Imap,
        (false, Some(d), _) => Source::Maildir(d),
        (false, None, Some(d)) => Source::Outbox(d),
        (false, None, None) => {
            return Err(Error::Usage(
                "give the robot's mail: --imap (the [imap] mail settings), --maildir DIR or \
                 --outbox DIR"
                    .into(),
            ));
        }
    };
    let watch = args.watch;
    let home = identity::home_dir()?;
    let settings = Settings::load(
        &home,
        &Overrides {
            authserv_id: args.authserv_id,
            allow: args.allow,
            max_games: args.max_games,
            invitations_per_day: args.invitations_per_day,
            min_deadline: args.min_deadline.map(|d| d.seconds().unwrap_or(0)),
        },
    )?;
    let level = Level::new(args.level).unwrap_or(Level::DEFAULT);
    let robot = Robot::new(&home, settings, level, args.seed)?;
    if let Source::Imap = source {
        robot
            .cfg
            .imap
            .validate()
            .map_err(|e| Error::Usage(e.to_string()))?;
    }
    let lock = robot.lock()?;
    if watch {
        return watch_loop(&robot, &source, json);
    }
    let (out, _) = pass(&robot, &source, None)?;
    drop(lock);
    // Ctrl-C stopped a computer's think: that mail waits for the next run.
    if crate::bot::interrupted() {
        return Err(super::think::interrupted_error());
    }
    Ok(out)
}

/// `--watch`: a pass, then a wait (IMAP IDLE, or a pause), then another;
/// a report printed after each pass that handled something.
fn watch_loop(robot: &Robot, source: &Source, json: bool) -> Result<Output> {
    let mut session: Option<Imap> = None;
    let mut backoff = std::time::Duration::from_secs(1);
    loop {
        let (out, kept) = pass(robot, source, session.take())?;
        if crate::bot::interrupted() {
            return Err(super::think::interrupted_error());
        }
        let handled = out.json["mails"].as_array().is_some_and(|m| !m.is_empty());
        let stopped = out.json["stopped"].is_string();
        if handled || stopped {
            super::sync::print_now(&out, json);
        }
        match (source, kept) {
            (Source::Imap, Some(mut imap)) if !stopped => {
                backoff = std::time::Duration::from_secs(1);
                // Five minutes at most: mails waiting for their next try
                // are looked at again.
                if imap.idle(std::time::Duration::from_secs(300)).is_ok() {
                    session = Some(imap);
                }
            }
            (Source::Imap, _) => {
                std::thread::sleep(backoff);
                backoff = (backoff * 2).min(std::time::Duration::from_secs(300));
            }
            _ => std::thread::sleep(std::time::Duration::from_secs(10)),
        }
    }
}

/// One pass over the robot's mail: the report, and (IMAP) the session, to
/// wait on for the next.
fn pass(robot: &Robot, source: &Source, session: Option<Imap>) -> Result<(Output, Option<Imap>)> {
    let home = &robot.home;

    let (resent, still_pending) = match crate::mail::retry(&robot.cfg, home) {
        Ok(r) => (r.sent.len() as u64, r.kept.len() as u64),
        Err(_) => (
            0,
            crate::mail::pending_messages(home).map_or(0, |p| p.len() as u64),
        ),
    };
    let mut report = RobotReport {
        mails: Vec::new(),
        handled_before: 0,
        deferred: 0,
        resent,
        still_pending,
        played: 0,
        refused: 0,
        failed: 0,
        stopped: None,
    };
    let mut kept = None;
    if let Source::Imap = source {
        let (stopped, session) = imap_mails(robot, session, &mut report);
        report.stopped = stopped;
        kept = session;
    } else {
        for path in mails(source)? {
            let label = path.display().to_string();
            let taken = match read_bounded(&path) {
                Ok(raw) => robot.process(&raw, &label)?,
                Err(e) => robot.unreadable(&label, &e)?,
            };
            match taken {
                Taken::New(mail) => report.mails.push(mail),
                Taken::Before => report.handled_before += 1,
                Taken::Deferred => report.deferred += 1,
            }
            if crate::bot::interrupted() {
                break;
            }
        }
    }
    for m in &report.mails {
        match m.outcome {
            Outcome::Played => report.played += 1,
            Outcome::Refused => report.refused += 1,
            Outcome::Failed | Outcome::GaveUp | Outcome::Quarantined => report.failed += 1,
            _ => {}
        }
    }
    // A refusal is handled work: only what is left to do (a passing
    // failure, a mail not sent) or given up makes the run fail.
    let code = report
        .mails
        .iter()
        .filter(|m| {
            m.class != Class::Refused || matches!(m.outcome, Outcome::GaveUp | Outcome::Quarantined)
        })
        .map(|m| m.code)
        .find(|&c| c != 0)
        .unwrap_or(0);
    let code = if code == 0 && report.stopped.is_some() {
        super::sync::SERVER_FAILED
    } else {
        code
    };
    let mut out = Output::new(text_of(&report), &report);
    out.code = code;
    Ok((out, kept))
}

/// The robot's new mails on IMAP, oldest first, each handled as any other:
/// one handled (or refused for good) is filed into the `[imap] folder`, or
/// flagged where it is when it was refused; one that failed for a passing
/// reason stays, and the bookmark (`robot/imap-HASH.json`) stops before it
/// so that it is fetched again when its next try comes. Returns why the
/// pass stopped early, if it did, and the session when it is still good.
fn imap_mails(
    robot: &Robot,
    session: Option<Imap>,
    report: &mut RobotReport,
) -> (Option<String>, Option<Imap>) {
    let s = &robot.cfg.imap;
    let mut imap = match session {
        Some(i) => i,
        None => match Imap::connect(s) {
            Ok(i) => i,
            Err(e) => return (Some(e.to_string()), None),
        },
    };
    let bookmark = robot.dir.join(
        crate::mail::imap::state_file(&robot.home, s)
            .file_name()
            .expect("a file name"),
    );
    let result = (|| -> std::result::Result<(), crate::mail::imap::ImapError> {
        imap.ensure_folder(&s.folder)?;
        let selected = imap.select(&s.inbox)?;
        let mut mark = super::sync::Bookmark::load(&bookmark);
        if mark.uid_validity != selected.uid_validity {
            mark = super::sync::Bookmark {
                uid_validity: selected.uid_validity,
                last_uid: 0,
            };
        }
        let uids = imap.search_starry(mark.last_uid)?;
        let sizes = imap.sizes(&uids)?;
        let mut waiting = false;
        for (uid, size) in sizes {
            let label = format!("uid {uid}");
            let taken = if size as usize > LIMIT {
                Taken::New(robot.too_large(&label, size as u64))
            } else {
                match imap.fetch(uid)? {
                    None => continue,
                    Some(raw) => match robot.process(&raw, &label) {
                        Ok(t) => t,
                        // The robot's own records cannot be written: stop,
                        // and leave the mail for the next pass.
                        Err(e) => {
                            let mut m = RobotMail::new(&label);
                            m.outcome = Outcome::Failed;
                            m.class = Class::Transient;
                            m.code = e.exit_code();
                            m.detail = Some(e.to_string());
                            report.mails.push(m);
                            return Ok(());
                        }
                    },
                }
            };
            let class = match &taken {
                Taken::New(m) => Some(m.class),
                Taken::Before => Some(Class::Done),
                Taken::Deferred => None,
            };
            match class {
                Some(Class::Done) => imap.file_away(uid, &s.folder)?,
                Some(Class::Refused) => imap.flag(uid)?,
                Some(Class::Transient) | None => waiting = true,
            }
            match taken {
                Taken::New(mail) => report.mails.push(mail),
                Taken::Before => report.handled_before += 1,
                Taken::Deferred => report.deferred += 1,
            }
            if !waiting {
                mark.last_uid = uid;
                let _ = mark.save(&bookmark);
            }
            if crate::bot::interrupted() {
                break;
            }
        }
        Ok(())
    })();
    match result {
        Ok(()) => (None, Some(imap)),
        Err(e) => (Some(e.to_string()), None),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        let a = Pattern::parse(" Anna@Example.org ").unwrap();
        assert!(a.matches("anna@example.org"));
        assert!(!a.matches("anna@example.org.evil"));
        let d = Pattern::parse("*@Example.org").unwrap();
        assert!(d.matches("ben@EXAMPLE.org"));
        assert!(!d.matches("ben@sub.example.org"));
        assert!(!d.matches("@example.org"));
        assert!(!d.matches("ben@evil-example.org"));
        for bad in ["*@", "*", "anna", "*@exa mple.org", "x@y@example.org", ""] {
            assert!(Pattern::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn automatic_mails() {
        let facts = |head: &str| Facts::of(format!("{head}\r\n\r\nbody\r\n").as_bytes());
        let person = "From: a@example.org\r\nTo: r@example.org\r\nAuto-Submitted: No";
        assert_eq!(facts(person).automatic(), None);
        let commented = "From: a@example.org\r\nAuto-Submitted: no (a person)";
        assert_eq!(facts(commented).automatic(), None);
        assert_eq!(facts(person).from.as_deref(), Some("a@example.org"));
        assert!(facts(person).single_from);
        for head in [
            "From: a@example.org\r\nAuto-Submitted: auto-replied; owner=x",
            "From: a@example.org\r\nAuto-Submitted: auto-generated",
            "From: a@example.org\r\nAuto-Submitted: nothing-we-know",
            "From: a@example.org\r\nList-Id: <games.example.org>",
            "From: a@example.org\r\nList-Unsubscribe: <mailto:u@example.org>",
            "From: a@example.org\r\nPrecedence: Bulk",
            "Return-Path: <>\r\nFrom: a@example.org",
            "Return-Path: <MAILER-DAEMON@mx.example.org>\r\nFrom: a@example.org",
            "Return-Path: <postmaster@example.org>\r\nFrom: a@example.org",
        ] {
            assert!(facts(head).automatic().is_some(), "{head}");
        }
        let two = facts("From: a@example.org, b@evil.org\r\nTo: r@example.org");
        assert!(!two.single_from);
        let twice = facts("From: a@example.org\r\nFrom: b@evil.org\r\nTo: r@example.org");
        assert!(!twice.single_from);
        // Damaged bytes have no facts, and no panic.
        assert!(Facts::of(b"\xff\xfe\x00").from.is_none());
    }
}
