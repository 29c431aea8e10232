//! `starry robot`: a computer player that answers turn mails by itself, as
//! a public service that strangers cannot turn against third parties.
//!
//! Split by what happens to a mail, each step in its own module:
//! - `settings`: what whoever runs the robot allows (`robot.toml` and
//!   its flags);
//! - `mailbox`: reading the mail, a maildir, an outbox folder or IMAP,
//!   oldest first, pass after pass;
//! - `handled`: remembering each mail, durably, so that none is handled
//!   twice and passing failures are tried again; `quarantine`: setting
//!   aside a mail that stops the robot itself;
//! - `handle`: one mail through the rules below, whatever its source
//!   (`facts`: what its header says), on to `known` (a game the robot
//!   has a copy of) or `invitation` (a game new to it);
//! - `trust`: who sent it, and whether the robot may write to them
//!   (`games`: what it keeps about each game);
//! - `play`: writing the entries the robot owes; `deliver`: mailing
//!   the log on, or back to the sender to pass on;
//! - `report`: what the robot tells whoever runs it.
//!
//! Another source (a new transport) needs only to call [`Robot::process`]
//! under [`Robot::lock`].
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

mod deliver;
mod facts;
mod games;
mod handle;
mod handled;
mod invitation;
mod known;
mod mailbox;
mod play;
mod quarantine;
mod report;
mod settings;
mod trust;

use crate::crypto::identity::Stored as _;
use std::fs;
use std::path::{Path, PathBuf};

use super::{Output, ingest};
use crate::bot::Level;
use crate::crypto::identity::{self, Identity};
use crate::error::{Error, Result};
use crate::mail::MailConfig;

pub use handled::{MAX_TRIES, Taken};
pub use mailbox::Source;
pub use quarantine::MAX_ABORTS;
pub use report::{Class, Outcome, Reason, RobotMail, RobotReport};
pub use settings::{Overrides, Pattern, ReadSpan, SETTINGS_FILE, Settings};

/// Largest mail read, in bytes (as `starry ingest`).
const LIMIT: usize = ingest::LIMIT;

/// Largest state or record file read, in bytes.
const MAX_STATE_BYTES: u64 = 1 << 20;

/// The robot, as every step of handling a mail needs it: who it is (its
/// identity and home), how it mails (its mail settings), what it is allowed
/// and how it plays (its settings, level and seed), and where it keeps its
/// state.
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
}

/// Reads a small file of the robot's own; `None` when missing, unreadable
/// or larger than [`MAX_STATE_BYTES`].
fn read_small(path: &Path) -> Option<Vec<u8>> {
    let meta = fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_STATE_BYTES {
        return None;
    }
    fs::read(path).ok()
}

/// What `starry robot` is asked to do, in the robot's own terms: the
/// command line's flags are translated where they are defined (`cli`), so
/// that the robot can be run without them.
#[derive(Clone, Debug)]
pub struct Request {
    /// Where its mail is.
    pub source: Source,
    /// Pass after pass until stopped, rather than once.
    pub watch: bool,
    /// How hard it thinks.
    pub level: Level,
    /// Seed of its choices; `None`: fresh randomness.
    pub seed: Option<u64>,
    /// The flags that override `robot.toml`.
    pub overrides: Overrides,
    /// How `min_deadline` in `robot.toml` is read: as `starry new
    /// --deadline` reads a deadline, whose parser is the command line's.
    pub read_span: ReadSpan,
}

/// `starry robot`.
pub fn run(request: Request, json: bool) -> Result<Output> {
    let Request {
        source,
        watch,
        level,
        seed,
        overrides,
        read_span,
    } = request;
    let home = identity::home_dir()?;
    let settings = Settings::load(&home, &overrides, read_span)?;
    let robot = Robot::new(&home, settings, level, seed)?;
    if let Source::Imap = source {
        robot
            .cfg
            .imap
            .validate()
            .map_err(|e| Error::Usage(e.to_string()))?;
    }
    let lock = robot.lock()?;
    if watch {
        return mailbox::watch_loop(&robot, &source, json);
    }
    let (out, _) = mailbox::pass(&robot, &source, None)?;
    drop(lock);
    // Ctrl-C stopped a computer's think: that mail waits for the next run.
    if crate::bot::interrupted() {
        return Err(super::think::interrupted_error());
    }
    Ok(out)
}
