//! `starry robot`: a computer player that answers turn mails by itself.
//!
//! Each run reads every mail in a maildir (`new/` and `cur/`) or an outbox
//! folder (`*.eml`), oldest first, and for each mail it has not handled
//! before and that is addressed to its identity: ingests the log (joining
//! the game when it is an invitation), writes every entry it owes (join,
//! ready, its moves chosen by the bot, reveals, a countersignature at the
//! end) and mails each one on. A log that does not verify is refused with a
//! mail to its sender saying why.
//!
//! What it handled is remembered by the SHA-256 of each mail's bytes in
//! `$STARRY_HOME/robot/handled/`, so that a second run (from cron, or a
//! loop) does nothing twice. What it owes is read from the logs, not from
//! the mails, so a mail delivered twice, or a run stopped halfway, never
//! makes it write an entry twice. It never changes the mail folder. Mails
//! that could not be handled for a passing reason (a file that cannot be
//! read) are not remembered, and are tried again by the next run.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::act::{self, Do};
use super::{Output, ingest};
use crate::bot::Level;
use crate::cli::{AfterArgs, Notify};
use crate::crypto::identity::{self, Identity};
use crate::error::{Error, Result};
use crate::games::Game;
use crate::log::file;
use crate::log::{Action, replay::read_genesis};
use crate::text;
use crate::with_game;

/// Where the mails are.
#[derive(Clone, Debug)]
pub enum Source {
    /// A maildir: its `new/` and `cur/` folders.
    Maildir(PathBuf),
    /// A folder of `.eml` files, as the outbox transport writes them.
    Outbox(PathBuf),
}

/// What the robot did with one mail (schemas/robot.json).
#[derive(Serialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// It wrote (and mailed) at least one entry.
    Played,
    /// The log was taken; the robot owes nothing now (another player's
    /// turn, or an older copy).
    Waiting,
    /// The log does not verify (or cannot be taken); the sender was told why.
    Refused,
    /// The mail is not addressed to the robot.
    NotForMe,
    /// The mail carries no log (nothing to answer).
    NoLog,
    /// Something went wrong that may pass (a file that cannot be read, a
    /// mail that could not be sent); tried again by the next run.
    Failed,
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
        }
    }
}

/// One mail handled by this run.
#[derive(Serialize, JsonSchema, Debug, Clone)]
pub struct RobotMail {
    pub file: String,
    pub outcome: Outcome,
    /// The game's id (64 hex digits), when the mail carried one that could be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game_id: Option<String>,
    /// The entries it wrote, e.g. "entry 7: placed 10 on leo:3" (public descriptions only).
    pub entries: Vec<String>,
    /// Why it refused, failed or did nothing; the mails it sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// 0 when all is well; else the exit code of what went wrong (for a
    /// refused log, the fault's code: 15 for a bad signature, and so on).
    pub code: i32,
}

/// `starry robot --json`.
#[derive(Serialize, JsonSchema, Debug, Clone)]
pub struct RobotReport {
    /// The mails new to the robot, oldest first.
    pub mails: Vec<RobotMail>,
    /// Mails in the folder that it had handled in an earlier run.
    pub handled_before: u64,
    /// Mails it could not send before and sent now (`starry mail --retry`).
    pub resent: u64,
    /// Mails still waiting to be sent.
    pub still_pending: u64,
    pub played: u64,
    pub refused: u64,
    pub failed: u64,
}

/// Largest mail read, in bytes (as `starry ingest`).
const LIMIT: usize = ingest::LIMIT;

/// Entries the robot writes for one mail at most: a join, a ready, a move
/// and a reveal in a row is already more than any game asks for.
const MAX_ENTRIES_PER_MAIL: usize = 8;

/// `starry robot`.
pub fn run(source: &Source, level: Level, seed: Option<u64>) -> Result<Output> {
    let home = identity::home_dir()?;
    let id = Identity::load(&home)?;
    let cfg = crate::mail::load(&home).map_err(|e| {
        Error::Usage(format!(
            "{e}. The robot answers by mail: fix the mail settings (docs/mail.md) and run it again"
        ))
    })?;
    let dir = home.join("robot");
    let handled_dir = dir.join("handled");
    fs::create_dir_all(&handled_dir)
        .map_err(|e| Error::io("cannot create the robot's folder", &handled_dir, e))?;
    // One robot at a time per identity: a second run (cron overlapping a
    // slow one) waits, then finds everything handled.
    let lock_path = dir.join("lock");
    let lock = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| Error::io("cannot open the robot's lock", &lock_path, e))?;
    lock.lock()
        .map_err(|e| Error::io("cannot lock the robot's lock", &lock_path, e))?;

    let (resent, still_pending) = match crate::mail::retry(&cfg, &home) {
        Ok(r) => (r.sent.len() as u64, r.kept.len() as u64),
        Err(_) => (
            0,
            crate::mail::pending_messages(&home).map_or(0, |p| p.len() as u64),
        ),
    };
    let mut report = RobotReport {
        mails: Vec::new(),
        handled_before: 0,
        resent,
        still_pending,
        played: 0,
        refused: 0,
        failed: 0,
    };
    for path in mails(source)? {
        let shown = path.display().to_string();
        let raw = match read_bounded(&path) {
            Ok(raw) => raw,
            Err(e) => {
                report.mails.push(RobotMail {
                    file: shown,
                    outcome: Outcome::Failed,
                    game_id: None,
                    entries: Vec::new(),
                    detail: Some(e.to_string()),
                    code: e.exit_code(),
                });
                continue;
            }
        };
        let marker = handled_dir.join(hex::encode(Sha256::digest(&raw)));
        if marker.exists() {
            report.handled_before += 1;
            continue;
        }
        let mail = handle(&home, &id, &cfg, &path, &raw, level, seed);
        if mail.outcome != Outcome::Failed {
            let record = serde_json::json!({
                "file": mail.file,
                "outcome": mail.outcome,
                "game_id": mail.game_id,
                "entries": mail.entries,
            });
            file::write_record(&marker, format!("{record}\n").as_bytes())?;
        }
        report.mails.push(mail);
    }
    for m in &report.mails {
        match m.outcome {
            Outcome::Played => report.played += 1,
            Outcome::Refused => report.refused += 1,
            Outcome::Failed => report.failed += 1,
            _ => {}
        }
    }
    drop(lock);
    // A refused log was handled (its sender was told): only what is left
    // to do makes the run fail.
    let code = report
        .mails
        .iter()
        .filter(|m| m.outcome != Outcome::Refused)
        .map(|m| m.code)
        .find(|&c| c != 0)
        .unwrap_or(0);
    let mut out = Output::new(text_of(&report), &report);
    out.code = code;
    Ok(out)
}

/// The mails of `source`, oldest first (by modification time, then name).
fn mails(source: &Source) -> Result<Vec<PathBuf>> {
    let folders: Vec<PathBuf> = match source {
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

/// Everything the robot does with one new mail.
fn handle(
    home: &Path,
    id: &Identity,
    cfg: &crate::mail::MailConfig,
    path: &Path,
    raw: &[u8],
    level: Level,
    seed: Option<u64>,
) -> RobotMail {
    let mut mail = RobotMail {
        file: path.display().to_string(),
        outcome: Outcome::Waiting,
        game_id: None,
        entries: Vec::new(),
        detail: None,
        code: 0,
    };
    let headers = crate::mail::headers(raw).unwrap_or_default();
    let for_me = headers
        .recipients
        .iter()
        .any(|r| r.trim().eq_ignore_ascii_case(id.email.trim()));
    if !for_me {
        mail.outcome = Outcome::NotForMe;
        return mail;
    }
    // A mail with no log at all (a greeting, spam) is not answered: a
    // refusal would only be noise, or backscatter.
    if raw.len() <= LIMIT && crate::mail::find_logs(raw, LIMIT).is_ok_and(|l| l.is_empty()) {
        mail.outcome = Outcome::NoLog;
        return mail;
    }
    let ingested = ingest::ingest_bytes(home, raw, &mail.file, None);
    let out = match ingested {
        Ok(out) => out,
        Err(e @ (Error::Io { .. } | Error::Identity(_) | Error::Other(_))) => {
            mail.outcome = Outcome::Failed;
            mail.code = e.exit_code();
            mail.detail = Some(e.to_string());
            return mail;
        }
        Err(e) => {
            mail.outcome = Outcome::Refused;
            mail.code = e.exit_code();
            mail.detail = Some(refuse(home, id, cfg, &headers, &e));
            return mail;
        }
    };
    mail.game_id = out.json["game_id"].as_str().map(str::to_string);
    let Some(log) = out.json["file"].as_str().map(PathBuf::from) else {
        return mail;
    };
    let mut sent = Vec::new();
    // Countersignatures written at once on two copies are a fork the
    // protocol resolves: when the sender's side won, ingest wrote the
    // robot's lost countersignature again on top, and only a mail brings
    // it to the others (a person is told to run `starry mail`).
    let rewritten = out.json["outcome"] == "resolved"
        && out.json["entries_after"].as_u64() > out.json["entries_received"].as_u64();
    if rewritten {
        let entry = out.json["entries_after"].as_u64().unwrap_or(1) - 1;
        mail.outcome = Outcome::Played;
        mail.entries.push(format!(
            "entry {entry}: its countersignature, written again on top of the copy that won"
        ));
        match super::mail::mail_file(&log, super::mail::Sending::default()) {
            Ok(out) => {
                sent.extend(
                    out.json["sent"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|m| m["to"].as_str().map(str::to_string)),
                );
                if let Some(w) = out.warning {
                    mail.code = out.code;
                    mail.detail = Some(w);
                    return mail;
                }
            }
            Err(e) => {
                mail.code = e.exit_code();
                mail.detail = Some(e.to_string());
                return mail;
            }
        }
    }
    for _ in 0..MAX_ENTRIES_PER_MAIL {
        let what = match owed(&log, id, level, seed) {
            Ok(Some(what)) => what,
            Ok(None) => break,
            Err(e) => {
                mail.outcome = Outcome::Failed;
                mail.code = e.exit_code();
                mail.detail = Some(e.to_string());
                return mail;
            }
        };
        let after = AfterArgs {
            mail: true,
            git_commit: false,
        };
        match super::then(after, || act::act_file(&log, what, false)) {
            Ok(out) => {
                mail.outcome = Outcome::Played;
                mail.entries.push(format!(
                    "entry {}: {}",
                    out.json["entry"],
                    out.json["summary"].as_str().unwrap_or_default()
                ));
                if let Some(sent_to) = out.json["mail"]["sent"].as_array() {
                    sent.extend(
                        sent_to
                            .iter()
                            .filter_map(|m| m["to"].as_str().map(str::to_string)),
                    );
                }
                if let Some(w) = out.warning {
                    // The entry is written; the mail waits in pending/ and
                    // the next run sends it.
                    mail.code = out.code;
                    mail.detail = Some(w);
                    break;
                }
            }
            Err(e) => {
                mail.outcome = if mail.entries.is_empty() {
                    Outcome::Failed
                } else {
                    Outcome::Played
                };
                mail.code = e.exit_code();
                mail.detail = Some(e.to_string());
                break;
            }
        }
    }
    if mail.detail.is_none() && !sent.is_empty() {
        sent.dedup();
        mail.detail = Some(format!("mailed to {}", sent.join(", ")));
    }
    mail
}

/// What the robot owes in the game at `log` now, if anything.
fn owed(log: &Path, id: &Identity, level: Level, seed: Option<u64>) -> Result<Option<Do>> {
    let bytes = file::read(log)?;
    let (genesis, _) = read_genesis(&bytes).map_err(|fault| Error::Log {
        path: log.into(),
        fault,
    })?;
    with_game!(genesis.game.as_str(), G => owed_in::<G>(log, &bytes, id, level, seed))
}

fn owed_in<G: Game>(
    log: &Path,
    bytes: &[u8],
    id: &Identity,
    level: Level,
    seed: Option<u64>,
) -> Result<Option<Do>> {
    let (r, _) = super::cache::tell::<G>(bytes).map_err(|fault| Error::Log {
        path: log.into(),
        fault,
    })?;
    let (action, who) = r.expected();
    let me = r.seat_of_key(&id.public_key());
    Ok(match action {
        Action::Join => (me.is_none() && who.is_some() && who == r.seat_of_email(&id.email))
            .then_some(Do::Join(Notify::Turn.into())),
        Action::Over => me
            .filter(|s| !r.countersigned.contains(s))
            .map(|_| Do::Countersign),
        _ => (me.is_some() && who == me).then_some(Do::Bot(level, seed)),
    })
}

/// Mails the sender of a refused log why, and says what was done.
fn refuse(
    home: &Path,
    id: &Identity,
    cfg: &crate::mail::MailConfig,
    headers: &crate::mail::Headers,
    e: &Error,
) -> String {
    let why = e.to_string();
    let Some((name, email)) = &headers.from else {
        return format!("{why} (the mail has no sender to tell)");
    };
    let body = format!(
        "Hello {},\n\n\
         I am the starry robot of {} <{}>. I did not take the game log in your mail{}, \
         because it does not verify:\n\n  {}\n\n\
         Nothing was changed on my side. Please check your copy with `starry audit FILE`, \
         and send me a copy that verifies (`starry mail FILE --full`).\n",
        text::inline(name),
        text::inline(&id.name),
        text::inline(&id.email),
        headers
            .subject
            .as_deref()
            .map(|s| format!(" \"{}\"", text::excerpt(&text::inline(s))))
            .unwrap_or_default(),
        why
    );
    let msg = crate::mail::reply(
        (&id.name, &id.email),
        (name, email),
        "starry robot: your game log was refused",
        &body,
        headers.message_id.as_deref(),
    );
    match msg.map(|m| crate::mail::send(cfg, home, &m)) {
        Ok(Ok(_)) => format!("{why} (told {})", text::inline(email)),
        Ok(Err(send)) => format!(
            "{why} (the reply to {} was not sent: {send})",
            text::inline(email)
        ),
        Err(build) => format!("{why} (no reply: {build})"),
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
        if !m.entries.is_empty() {
            t.push_str(&format!(" ({})", text::inline(&m.entries.join("; "))));
        }
        if let Some(d) = &m.detail {
            t.push_str(&format!(" — {}", text::inline(d)));
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
    if r.resent > 0 || r.still_pending > 0 {
        t.push_str(&format!(
            " Mails sent again: {}; still waiting to be sent: {}.",
            r.resent, r.still_pending
        ));
    }
    t
}
