//! Reading the robot's mail: a maildir, a folder of `.eml` files or an IMAP
//! inbox, oldest first, each mail handed to [`Robot::process`]; once, or
//! pass after pass (`--watch`). Kept apart from the rules so that where a
//! mail comes from never changes what is done with it, and a mail the
//! source cannot give (too large, unreadable) is still accounted for.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::handled::Taken;
use super::report::{Class, Outcome, RobotMail, RobotReport};
use super::{LIMIT, Robot};
use crate::app::Output;
use crate::error::{Error, Result};
use crate::mail::imap::Imap;

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

impl Robot {
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

/// `--watch`: a pass, then a wait (IMAP IDLE, or a pause), then another;
/// a report printed after each pass that handled something.
pub(super) fn watch_loop(robot: &Robot, source: &Source, json: bool) -> Result<Output> {
    let mut session: Option<Imap> = None;
    let mut backoff = std::time::Duration::from_secs(1);
    loop {
        let (out, kept) = pass(robot, source, session.take())?;
        if crate::bot::interrupted() {
            return Err(crate::app::think::interrupted_error());
        }
        let handled = out.json["mails"].as_array().is_some_and(|m| !m.is_empty());
        let stopped = out.json["stopped"].is_string();
        if handled || stopped {
            crate::app::sync::print_now(&out, json);
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
pub(super) fn pass(
    robot: &Robot,
    source: &Source,
    session: Option<Imap>,
) -> Result<(Output, Option<Imap>)> {
    let home = &robot.home;

    let (resent, still_pending) = match crate::mail::retry(&robot.cfg, home) {
        Ok(r) => (r.sent.len() as u64, r.kept.len() as u64),
        Err(_) => (
            0,
            crate::mail::pending_messages(home).map_or(0, |p| p.len() as u64),
        ),
    };
    let mut report = RobotReport::new(resent, still_pending);
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
            report.add(taken);
            if crate::bot::interrupted() {
                break;
            }
        }
    }
    Ok((report.into_output(), kept))
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
        let mut mark = crate::app::sync::Bookmark::load(&bookmark);
        if mark.uid_validity != selected.uid_validity {
            mark = crate::app::sync::Bookmark {
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
            report.add(taken);
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
