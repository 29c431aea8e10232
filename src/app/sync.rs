//! `starry sync`: take every starry mail from the player's inbox, oldest
//! first, as `starry ingest` would, then list the games where it is their
//! turn.
//!
//! A mail is filed away (flagged seen and moved to the `starry` folder) only
//! after its entries are on disk; a starry mail that cannot be used stays in
//! the inbox, flagged, and the report says why. A mail with no log in it (a
//! person's reply in a game's thread) is left as it was, and so is a mail in
//! which a person forwarded a game with words of their own: its log is
//! taken, its note stays unread in the inbox, for them. Ingesting is
//! idempotent (the same log twice is "nothing new"), so the state kept
//! between runs (the UID validity and the last UID read, per account) is
//! only a bookmark: a crash or a dropped connection at any point loses
//! nothing, and the next run finishes the job without doubling anything.
//!
//! The same on a local maildir (`--maildir DIR`, for mbsync, offlineimap or
//! notmuch users): taken mails move to the Maildir++ folder `.starry`,
//! unusable ones get the `F` flag.

use std::collections::BTreeSet;
use std::fs;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::games::{GameRow, row_text};
use super::report::{IngestOutcome, NoIdentityReport};
use super::{Output, ingest};
use crate::crypto::identity;
use crate::error::{Error, Result};
use crate::log::file;
use crate::mail::imap::{Imap, ImapError, ImapSettings, state_file};
use crate::text;

/// Exit code when the mail server could not be reached, refused the login
/// or dropped the connection (what was taken before is kept).
pub const SERVER_FAILED: i32 = 8;

/// Where the mail is read.
#[derive(Clone, Debug)]
pub enum Source {
    /// The IMAP server of the mail settings.
    Imap,
    /// A local maildir.
    Maildir(PathBuf),
}

/// What sync did with one mail.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum MailOutcome {
    /// Ingested (or already known) and filed away.
    Taken,
    /// It cannot be used (no log, a log that does not verify, a fork, too
    /// large…): it stays in the inbox, flagged.
    Unusable,
    /// Something that may pass went wrong (a file that cannot be written,
    /// the connection): left as it was, for the next sync.
    Failed,
    /// No log in it, and not written by starry (a person's reply in a
    /// game's thread, say): no refusal, left as it was, unflagged.
    Ignored,
}

/// A person's own words in a mail that brought a game: they forwarded a
/// starry mail, or attached a log, and wrote something. The mail stays
/// in the inbox, unread, for its reader.
#[derive(Serialize, JsonSchema, Debug, Clone)]
pub struct Note {
    /// Who wrote it: `Name <address>` as the mail's From says.
    pub from: String,
    /// The start of what they wrote: at most 300 characters of the mail,
    /// each unsafe one escaped (so the text may be longer).
    pub text: String,
}

/// One mail of the report.
#[derive(Serialize, JsonSchema, Debug, Clone)]
pub struct SyncMail {
    /// `uid 42` on IMAP, the file name in a maildir.
    pub mail: String,
    pub outcome: MailOutcome,
    /// The game's id (64 hex digits), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game_id: Option<String>,
    /// What ingest did with the game's copy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ingest: Option<IngestOutcome>,
    /// Entries in the local copy afterwards.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entries: Option<u64>,
    /// Why it could not be used, or what failed (one paragraph).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// 0, or the exit code `starry ingest` would have given.
    pub code: i32,
    /// A person's note that came with the game (the mail is left unread
    /// in the inbox, not filed away).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<Note>,
    /// There is no starry identity on this machine: how to take a seat in
    /// the game, as `starry ingest` says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_identity: Option<NoIdentityReport>,
    /// That advice in words.
    #[serde(skip)]
    newcomer: Option<String>,
}

impl SyncMail {
    fn new(name: String, outcome: MailOutcome) -> SyncMail {
        SyncMail {
            mail: name,
            outcome,
            game_id: None,
            ingest: None,
            entries: None,
            detail: None,
            code: 0,
            note: None,
            no_identity: None,
            newcomer: None,
        }
    }
}

/// `starry sync --json` (one object per pass with `--watch`).
#[derive(Serialize, JsonSchema, Debug, Clone)]
pub struct SyncReport {
    /// `imap user@host:port INBOX`, or the maildir.
    pub source: String,
    /// The starry mails new since the last sync, oldest first.
    pub mails: Vec<SyncMail>,
    pub taken: u64,
    pub unusable: u64,
    pub failed: u64,
    /// Mails the search found that hold no log (a reply in a game's
    /// thread): left as they were.
    pub ignored: u64,
    /// Why the pass stopped early (the server, the network), if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// Where the starry identity was looked for, when there is none: the
    /// games are taken all the same, but no seat can be yours until there
    /// is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_identity: Option<String>,
    /// The games where it is your turn now: to join, move, reveal, or,
    /// once over, to countersign (`action` says which).
    pub your_turn: Vec<GameRow>,
}

/// `starry sync [--maildir DIR] [--watch]`.
pub fn run(source: &Source, watch: bool, json: bool) -> Result<Output> {
    let home = identity::home_dir()?;
    let cfg = crate::mail::load(&home).map_err(|e| {
        Error::Usage(format!(
            "{e}. Fix the mail settings (`starry mail setup`, docs/mail.md) and run sync again"
        ))
    })?;
    let dir = home.join("sync");
    fs::create_dir_all(&dir).map_err(|e| Error::io("cannot create the sync folder", &dir, e))?;
    let lock_path = dir.join("lock");
    let lock = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| Error::io("cannot open the sync lock", &lock_path, e))?;
    match lock.try_lock() {
        Ok(()) => {}
        Err(fs::TryLockError::WouldBlock) => {
            return Err(Error::Usage(format!(
                "another `starry sync` (or `sync --watch`) is already running for {}; let it \
                 finish, or stop it",
                home.display()
            )));
        }
        Err(fs::TryLockError::Error(e)) => {
            return Err(Error::io("cannot lock", &lock_path, e));
        }
    }
    match source {
        Source::Imap => {
            cfg.imap
                .validate()
                .map_err(|e| Error::Usage(e.to_string()))?;
            if watch {
                watch_imap(&home, &cfg.imap, json)
            } else {
                let report = imap_pass(&home, &cfg.imap, None).0;
                Ok(output(&home, report))
            }
        }
        Source::Maildir(d) => {
            let folder = cfg.imap.folder.clone();
            if watch {
                watch_maildir(&home, d, &folder, json)
            } else {
                let report = maildir_pass(&home, d, &folder)?;
                Ok(output(&home, report))
            }
        }
    }
}

fn output(home: &Path, mut report: SyncReport) -> Output {
    finish(home, &mut report);
    let code = report
        .mails
        .iter()
        .find(|m| m.outcome == MailOutcome::Failed)
        .map(|m| m.code)
        .or(report.stopped.as_ref().map(|_| SERVER_FAILED))
        .unwrap_or(0);
    let mut out = Output::new(text_of(&report), &report);
    out.code = code;
    out
}

/// The games where it is your turn, as `starry games` lists them, and
/// whether there is an identity to hold a seat.
fn finish(home: &Path, report: &mut SyncReport) {
    use crate::crypto::identity::Stored as _;
    use crate::crypto::identity::{Identity, IdentityError};
    if let Err(IdentityError::Missing { path }) = Identity::load(home) {
        report.no_identity = Some(path.display().to_string());
    }
    if let Ok((_, rows)) = super::games::rows(home) {
        report.your_turn = rows.into_iter().filter(|r| r.your_turn).collect();
    }
}

// ------------------------------------------------------------------ IMAP

/// The bookmark of one account: UIDs above `last_uid` are new, as long as
/// the folder's UID validity is `uid_validity`.
#[derive(Serialize, Deserialize, Default, Debug, PartialEq, Eq)]
pub(crate) struct Bookmark {
    pub uid_validity: u32,
    pub last_uid: u32,
}

impl Bookmark {
    pub fn load(path: &Path) -> Bookmark {
        load_bookmark(path)
    }
    pub fn save(&self, path: &Path) -> Result<()> {
        save_bookmark(path, self)
    }
}

fn load_bookmark(path: &Path) -> Bookmark {
    // A damaged bookmark costs a rescan, which changes nothing.
    fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

fn save_bookmark(path: &Path, b: &Bookmark) -> Result<()> {
    let json = serde_json::to_vec(b).expect("a bookmark serializes");
    file::write_record(path, &json)
}

fn source_name(s: &ImapSettings) -> String {
    format!(
        "imap {} at {} {}",
        s.user.as_deref().unwrap_or(""),
        s.server(),
        s.inbox
    )
}

fn empty_report(source: String) -> SyncReport {
    SyncReport {
        source,
        mails: Vec::new(),
        taken: 0,
        unusable: 0,
        failed: 0,
        ignored: 0,
        stopped: None,
        no_identity: None,
        your_turn: Vec::new(),
    }
}

/// One pass over the inbox; returns the report and the session, still
/// logged in, when it is worth keeping (for `--watch`).
fn imap_pass(home: &Path, s: &ImapSettings, session: Option<Imap>) -> (SyncReport, Option<Imap>) {
    let mut report = empty_report(source_name(s));
    let mut imap = match session {
        Some(i) => i,
        None => match Imap::connect(s) {
            Ok(i) => i,
            Err(e) => {
                report.stopped = Some(e.to_string());
                return (report, None);
            }
        },
    };
    let taken = take_new(home, s, &mut imap, &mut report);
    count(&mut report);
    match taken {
        Ok(()) => (report, Some(imap)),
        Err(e) => {
            report.stopped = Some(e.to_string());
            (report, None)
        }
    }
}

fn take_new(
    home: &Path,
    s: &ImapSettings,
    imap: &mut Imap,
    report: &mut SyncReport,
) -> Result<(), ImapError> {
    imap.ensure_folder(&s.folder)?;
    let selected = imap.select(&s.inbox)?;
    let path = state_file(home, s);
    let mut mark = load_bookmark(&path);
    if mark.uid_validity != selected.uid_validity {
        // The server renumbered the folder: read it all again (taking a
        // log twice changes nothing).
        mark = Bookmark {
            uid_validity: selected.uid_validity,
            last_uid: 0,
        };
    }
    let uids = imap.search_starry(mark.last_uid)?;
    let sizes = imap.sizes(&uids)?;
    let mut unusable = Vec::new();
    for (uid, size) in sizes {
        let name = format!("uid {uid}");
        let mail = if size as usize > ingest::LIMIT {
            too_large(name, size as u64, imap.starry_made(uid)?)
        } else {
            match imap.fetch(uid)? {
                // Gone meanwhile (another client moved it): nothing to do.
                None => {
                    mark.last_uid = uid;
                    save(&path, &mark, report);
                    continue;
                }
                Some(raw) => take(home, &raw, name),
            }
        };
        match mail.outcome {
            // A person's note stays unread in the inbox, for them.
            MailOutcome::Taken if mail.note.is_some() => {}
            MailOutcome::Taken => imap.file_away(uid, &s.folder)?,
            MailOutcome::Unusable => {
                imap.flag(uid)?;
                unusable.push((uid, report.mails.len()));
            }
            MailOutcome::Ignored => {}
            MailOutcome::Failed => {
                // Left for the next sync: stop here, so that what comes
                // later is not taken before it.
                report.mails.push(mail);
                count(report);
                return Ok(());
            }
        }
        report.mails.push(mail);
        mark.last_uid = uid;
        if !save(&path, &mark, report) {
            count(report);
            return Ok(());
        }
    }
    // A mail that continues one delivered after it (mail arrives out of
    // order) could not be completed in its turn; once something else was
    // taken, try those once more.
    if report.mails.iter().any(|m| m.outcome == MailOutcome::Taken) {
        for (uid, at) in unusable {
            let Some(raw) = imap.fetch(uid)? else {
                continue;
            };
            let again = take(home, &raw, format!("uid {uid}"));
            if again.outcome == MailOutcome::Taken {
                if again.note.is_none() {
                    imap.file_away(uid, &s.folder)?;
                }
                report.mails[at] = again;
            }
        }
    }
    count(report);
    Ok(())
}

/// Saves the bookmark; a failure is reported on the mail just handled
/// (the next sync then reads it again, which changes nothing).
fn save(path: &Path, mark: &Bookmark, report: &mut SyncReport) -> bool {
    match save_bookmark(path, mark) {
        Ok(()) => true,
        Err(e) => {
            if let Some(m) = report.mails.last_mut() {
                m.detail = Some(format!(
                    "{}; the sync bookmark could not be saved: {e}",
                    m.detail.as_deref().unwrap_or("taken")
                ));
            }
            false
        }
    }
}

fn count(report: &mut SyncReport) {
    let n = |o| report.mails.iter().filter(|m| m.outcome == o).count() as u64;
    report.taken = n(MailOutcome::Taken);
    report.unusable = n(MailOutcome::Unusable);
    report.failed = n(MailOutcome::Failed);
    report.ignored = n(MailOutcome::Ignored);
}

/// A mail larger than any starry mail: unusable when starry wrote it,
/// else someone else's (a reply with photos), left as it was.
fn too_large(name: String, size: u64, starry_made: bool) -> SyncMail {
    let mut mail = SyncMail::new(name, MailOutcome::Ignored);
    if starry_made {
        mail.outcome = MailOutcome::Unusable;
        mail.code = 7;
        mail.detail = Some(format!(
            "the mail has {size} bytes, more than the {} a starry mail may have; it was not read",
            ingest::LIMIT
        ));
    } else {
        mail.detail = Some(format!(
            "{size} bytes, more than a starry mail may have; not read"
        ));
    }
    mail
}

/// Ingests one mail and says what became of it.
fn take(home: &Path, raw: &[u8], name: String) -> SyncMail {
    let mut mail = SyncMail::new(name, MailOutcome::Taken);
    match ingest::ingest_bytes(home, raw, &mail.mail, None) {
        Ok(out) => {
            mail.game_id = out.json["game_id"].as_str().map(str::to_string);
            mail.ingest = serde_json::from_value(out.json["outcome"].clone()).ok();
            mail.entries = out.json["entries_after"].as_u64();
            mail.no_identity = serde_json::from_value(out.json["no_identity"].clone()).ok();
            if mail.no_identity.is_some() {
                mail.newcomer = ingest::newcomer_paragraph(&out.text).map(str::to_string);
            }
            mail.note = note_of(raw);
            // Taken in part (entries dated ahead of this clock left out):
            // what was left out is said, with ingest's exit code.
            if out.code != 0 {
                mail.code = out.code;
                mail.detail = out.warning;
            }
        }
        // No log at all, in a mail starry did not write: a person's mail
        // (a reply in the thread), not a refusal.
        Err(Error::Input(_)) if no_log(raw) => mail.outcome = MailOutcome::Ignored,
        // What may pass: this machine's files, the identity.
        Err(e @ (Error::Io { .. } | Error::Identity(_) | Error::Other(_))) => {
            mail.outcome = MailOutcome::Failed;
            mail.code = e.exit_code();
            mail.detail = Some(e.to_string());
        }
        // What the mail is: no log, a log that does not verify, a fork.
        Err(e) => {
            mail.outcome = MailOutcome::Unusable;
            mail.code = e.exit_code();
            mail.detail = Some(e.to_string());
        }
    }
    mail
}

/// `sync --watch` on IMAP: a pass, then IDLE until the inbox changes (or
/// 25 minutes pass, under RFC 2177's 29), then another; a lost connection is
/// made again after 1, 2, 4 … up to 300 seconds.
fn watch_imap(home: &Path, s: &ImapSettings, json: bool) -> Result<Output> {
    let mut session: Option<Imap> = None;
    let mut backoff = Duration::from_secs(1);
    loop {
        let (mut report, kept) = imap_pass(home, s, session.take());
        let stopped = report.stopped.is_some();
        if !report.mails.is_empty() || stopped {
            finish(home, &mut report);
            emit(&report, json);
        }
        match kept {
            Some(mut imap) if !stopped => {
                backoff = Duration::from_secs(1);
                match imap.idle(Duration::from_secs(25 * 60)) {
                    Ok(_) => session = Some(imap),
                    Err(e) => {
                        emit_line(&format!("sync: {e}; connecting again"), json);
                    }
                }
            }
            _ => {
                std::thread::sleep(backoff);
                backoff = (backoff * 2).min(Duration::from_secs(300));
            }
        }
    }
}

/// Prints one pass's report at once (text, or one JSON line).
fn emit(report: &SyncReport, json: bool) {
    print_now(&Output::new(text_of(report), report), json);
}

/// Prints an [`Output`] at once, as `main` would at the end (text made safe
/// for the terminal, or one JSON line): for the passes of `--watch`.
pub(crate) fn print_now(out: &Output, json: bool) {
    use std::io::Write as _;
    let line = if json {
        serde_json::to_string(&out.json).unwrap_or_default()
    } else {
        text::terminal(&out.text).into_owned()
    };
    let mut o = std::io::stdout().lock();
    let _ = writeln!(o, "{line}");
    let _ = o.flush();
}

fn emit_line(s: &str, json: bool) {
    use std::io::Write as _;
    if !json {
        let _ = writeln!(std::io::stderr(), "{}", text::inline(s));
    }
}

// --------------------------------------------------------------- maildir

/// What a maildir sync remembers: the mails it found unusable (they stay,
/// flagged) and the ones that are no starry mail or hold a person's note
/// (they stay as they were), so that none is read again; both pruned to the
/// files still there.
#[derive(Serialize, Deserialize, Default)]
struct MaildirState {
    unusable: BTreeSet<String>,
    ignored: BTreeSet<String>,
}

fn maildir_state_file(home: &Path, dir: &Path) -> PathBuf {
    use sha2::{Digest, Sha256};
    let abs = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let h = hex::encode(Sha256::digest(abs.to_string_lossy().as_bytes()));
    home.join("sync").join(format!("maildir-{}.json", &h[..16]))
}

/// The unique part of a maildir file name (before `:2,`).
fn unique(name: &str) -> &str {
    name.split_once(':').map_or(name, |(u, _)| u)
}

/// A maildir file name's flags (the letters after `:2,`).
fn flags(name: &str) -> &str {
    name.split_once(":2,").map_or("", |(_, f)| f)
}

fn with_flag(name: &str, flag: char) -> String {
    let mut f: Vec<char> = flags(name)
        .chars()
        .filter(|c| c.is_ascii_uppercase())
        .collect();
    if !f.contains(&flag) {
        f.push(flag);
    }
    f.sort_unstable();
    f.dedup();
    format!("{}:2,{}", unique(name), f.into_iter().collect::<String>())
}

fn maildir_pass(home: &Path, dir: &Path, folder: &str) -> Result<SyncReport> {
    if !dir.join("new").is_dir() || !dir.join("cur").is_dir() {
        return Err(Error::Usage(format!(
            "{} is not a maildir (it needs new/ and cur/ folders)",
            dir.display()
        )));
    }
    let state_path = maildir_state_file(home, dir);
    let mut state: MaildirState = fs::read(&state_path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let mut report = empty_report(format!("maildir {}", dir.display()));
    let mut found: Vec<(Option<std::time::SystemTime>, String, PathBuf)> = Vec::new();
    let mut present = BTreeSet::new();
    for sub in ["new", "cur"] {
        let entries =
            fs::read_dir(dir.join(sub)).map_err(|e| Error::io("cannot list", dir.join(sub), e))?;
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let Ok(meta) = e.metadata() else { continue };
            if !meta.is_file() {
                continue;
            }
            present.insert(unique(&name).to_string());
            found.push((meta.modified().ok(), name, e.path()));
        }
    }
    state.unusable.retain(|u| present.contains(u));
    state.ignored.retain(|u| present.contains(u));
    found.sort();
    let target = dir.join(format!(".{folder}"));
    for (_, name, path) in found {
        let u = unique(&name).to_string();
        if state.unusable.contains(&u) || state.ignored.contains(&u) {
            continue;
        }
        let raw = match read_mail(&path) {
            Ok(Some(raw)) => raw,
            Ok(None) => {
                // Larger than any starry mail: only its header says
                // whether it was meant as one.
                if looks_like_starry_header(&path) {
                    let size = fs::metadata(&path).map_or(0, |m| m.len());
                    report.mails.push(too_large(name.clone(), size, true));
                    flag_file(dir, &path, &name);
                    state.unusable.insert(u);
                } else {
                    state.ignored.insert(u);
                }
                continue;
            }
            Err(e) => {
                let mut failed = SyncMail::new(name.clone(), MailOutcome::Failed);
                failed.detail = Some(e.to_string());
                failed.code = e.exit_code();
                report.mails.push(failed);
                continue;
            }
        };
        if crate::mail::find_logs(&raw, ingest::LIMIT).is_ok_and(|l| l.is_empty())
            && !looks_like_starry(&raw)
        {
            state.ignored.insert(u);
            continue;
        }
        let mail = take(home, &raw, name.clone());
        match mail.outcome {
            // A person's note stays where it is, for them; it is not read
            // again.
            MailOutcome::Taken if mail.note.is_some() => {
                state.ignored.insert(u);
            }
            MailOutcome::Ignored => {
                state.ignored.insert(u);
                continue;
            }
            MailOutcome::Taken => {
                if let Err(e) = file_away(&target, &path, &name) {
                    report.mails.push(SyncMail {
                        detail: Some(format!(
                            "taken, but it could not be moved to {}: {e}",
                            target.display()
                        )),
                        ..mail
                    });
                    continue;
                }
            }
            MailOutcome::Unusable => {
                flag_file(dir, &path, &name);
                state.unusable.insert(u);
            }
            MailOutcome::Failed => {}
        }
        report.mails.push(mail);
    }
    let json = serde_json::to_vec(&state).expect("the state serializes");
    file::write_record(&state_path, &json)?;
    count(&mut report);
    Ok(report)
}

/// Whether `raw` holds no log at all and starry did not write it (a
/// starry mail that lost its log on the way is unusable, not ignored).
fn no_log(raw: &[u8]) -> bool {
    !raw.starts_with(b"{\"body\":")
        && crate::mail::find_logs(raw, ingest::LIMIT).is_ok_and(|l| l.is_empty())
        && !looks_like_starry(raw)
}

/// A person's own words in a mail that brought a game, with who wrote them.
fn note_of(raw: &[u8]) -> Option<Note> {
    let text = crate::mail::parse::personal_note(raw)?;
    let from = crate::mail::headers(raw)
        .and_then(|h| h.from)
        .map(|(name, address)| {
            // A stranger's From can be megabytes long: quoted, not copied.
            let name = text::excerpt(name.trim());
            let address = text::excerpt(address.trim());
            if name.is_empty() {
                address
            } else {
                format!("{name} <{address}>")
            }
        })
        .unwrap_or_else(|| "someone".into());
    Some(Note { from, text })
}

/// Up to [`ingest::LIMIT`] bytes of a mail; `None` when it is larger.
fn read_mail(path: &Path) -> Result<Option<Vec<u8>>> {
    let mut raw = Vec::new();
    fs::File::open(path)
        .and_then(|f| f.take(ingest::LIMIT as u64 + 1).read_to_end(&mut raw))
        .map_err(|e| Error::io("cannot read the mail", path, e))?;
    Ok((raw.len() <= ingest::LIMIT).then_some(raw))
}

/// A mail starry wrote whose log could not be found is still a starry
/// mail (unusable, so flagged and reported), not someone else's to leave
/// alone. The subject does not tell: a person's reply in the thread
/// carries it too.
fn looks_like_starry(raw: &[u8]) -> bool {
    crate::mail::headers(raw).is_some_and(|h| h.starry_made)
}

fn looks_like_starry_header(path: &Path) -> bool {
    let mut head = Vec::new();
    let _ = fs::File::open(path).and_then(|f| f.take(64 * 1024).read_to_end(&mut head));
    let end = head
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .or_else(|| head.windows(2).position(|w| w == b"\n\n"))
        .unwrap_or(head.len());
    looks_like_starry(&head[..end])
}

/// Moves a taken mail into the Maildir++ folder, flagged seen.
fn file_away(target: &Path, path: &Path, name: &str) -> std::io::Result<()> {
    for sub in ["cur", "new", "tmp"] {
        fs::create_dir_all(target.join(sub))?;
    }
    fs::rename(path, target.join("cur").join(with_flag(name, 'S')))
}

/// Flags an unusable mail where it is (moving it from new/ to cur/, as a
/// mail program does once it has seen a mail). A failure leaves it as it
/// was; it is remembered as unusable all the same.
fn flag_file(dir: &Path, path: &Path, name: &str) {
    let _ = fs::rename(path, dir.join("cur").join(with_flag(name, 'F')));
}

/// `sync --watch --maildir`: a pass every 5 seconds.
fn watch_maildir(home: &Path, dir: &Path, folder: &str, json: bool) -> Result<Output> {
    loop {
        match maildir_pass(home, dir, folder) {
            Ok(mut report) => {
                if !report.mails.is_empty() {
                    finish(home, &mut report);
                    emit(&report, json);
                }
            }
            Err(e) => emit_line(&format!("sync: {e}"), json),
        }
        std::thread::sleep(Duration::from_secs(5));
    }
}

// ------------------------------------------------------------------ text

fn text_of(r: &SyncReport) -> String {
    let mut t = String::new();
    for m in &r.mails {
        t.push_str(&mail_text(m));
        t.push('\n');
    }
    t.push_str(&format!(
        "{}: {} taken, {} not usable, {} to try again.",
        text::count(
            r.mails.len() - r.ignored as usize,
            "new starry mail",
            "new starry mails"
        ),
        r.taken,
        r.unusable,
        r.failed
    ));
    if r.ignored > 0 {
        t.push_str(&format!(
            " {} without a game log left as {} (no flag, not moved).",
            text::count(r.ignored as usize, "mail", "mails"),
            if r.ignored == 1 {
                "it was"
            } else {
                "they were"
            }
        ));
    }
    if let Some(why) = &r.stopped {
        // After a refused login nothing was read: "what was taken is
        // kept" would promise a partial pass that never began.
        let next = if r.mails.is_empty() {
            "Nothing was taken; once that is put right, run `starry sync` again."
        } else {
            "What was taken is kept; run `starry sync` again to finish."
        };
        t.push_str(&format!("\nStopped: {}\n{next}", text::inline(why)));
    }
    let told = r.mails.iter().any(|m| m.newcomer.is_some());
    if let Some(path) = &r.no_identity {
        // No seat can be yours without an identity: what to do instead.
        if told {
            return t;
        }
        t.push_str(&format!(
            "\nYou have no starry identity yet (no identity at {}): create yours with `starry \
             id new --name \"Your Name\" --email you@example.org` (the address a game's \
             invitation was sent to), then join the games that wait for you (`starry games` \
             lists them).",
            text::inline(path)
        ));
    } else if r.your_turn.is_empty() {
        t.push_str("\nIt is your turn in no game.");
    } else {
        t.push_str("\n\nYour turn:\n");
        t.push_str(
            &r.your_turn
                .iter()
                .map(row_text)
                .collect::<Vec<_>>()
                .join("\n"),
        );
    }
    t
}

/// One mail of the report: a line, then a person's note and the advice for
/// someone without an identity, when there are.
fn mail_text(m: &SyncMail) -> String {
    let game = m
        .game_id
        .as_deref()
        .map(|g| format!(" game {}", text::inline(g.get(..16).unwrap_or(g))))
        .unwrap_or_default();
    let what = match (m.outcome, m.ingest) {
        (MailOutcome::Taken, Some(IngestOutcome::Created)) => "new game".to_string(),
        (MailOutcome::Taken, Some(IngestOutcome::FastForwarded | IngestOutcome::Resolved)) => {
            format!("now {} entries", m.entries.unwrap_or(0))
        }
        (MailOutcome::Taken, _) => "nothing new".to_string(),
        (MailOutcome::Unusable, _) => "not usable, left in the inbox, flagged".to_string(),
        (MailOutcome::Failed, _) => "not taken, will be tried again".to_string(),
        (MailOutcome::Ignored, _) if m.detail.is_some() => "left as it was".to_string(),
        (MailOutcome::Ignored, _) => "no game log in it; left as it was".to_string(),
    };
    let mut t = format!("{}:{game} {what}", text::inline(&m.mail));
    if let Some(d) = &m.detail {
        t.push_str(&format!(" — {}", text::inline(d)));
    }
    if let Some(n) = &m.note {
        t.push_str(&format!(
            "\n  A note from {} came with it; the mail stays in your inbox, unread: “{}”",
            text::inline(&n.from),
            text::inline(&n.text)
        ));
    }
    if let Some(n) = &m.newcomer {
        t.push_str(&format!("\n  {}", text::inline(n)));
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maildir_flags() {
        assert_eq!(with_flag("123.abc.host", 'S'), "123.abc.host:2,S");
        assert_eq!(with_flag("123.abc.host:2,FR", 'S'), "123.abc.host:2,FRS");
        assert_eq!(with_flag("123.abc.host:2,S", 'S'), "123.abc.host:2,S");
        assert_eq!(unique("123.abc.host:2,S"), "123.abc.host");
        assert_eq!(flags("x:2,FS"), "FS");
    }

    #[test]
    fn a_note_names_its_sender_in_a_bounded_quote() {
        let name = "N\u{1b}[31m".repeat(100_000);
        let raw = format!(
            "From: \"{name}\" <anna@example.org>\r\nTo: ben@example.org\r\n\
             Subject: Fwd: our game\r\nMIME-Version: 1.0\r\n\
             Content-Type: text/plain; charset=utf-8\r\n\r\n\
             Ben, here is the game we spoke of.\r\n"
        );
        let note = note_of(raw.as_bytes()).expect("a note");
        assert!(note.from.len() < 400, "{}", note.from.len());
        assert!(note.from.ends_with("<anna@example.org>"), "{}", note.from);
        assert!(!note.from.contains('\u{1b}'), "{}", note.from);
        assert!(note.text.contains("here is the game"), "{}", note.text);
    }

    #[test]
    fn a_damaged_bookmark_means_a_rescan() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("b.json");
        assert_eq!(load_bookmark(&p), Bookmark::default());
        fs::write(&p, b"{not json").unwrap();
        assert_eq!(load_bookmark(&p), Bookmark::default());
        let b = Bookmark {
            uid_validity: 7,
            last_uid: 42,
        };
        save_bookmark(&p, &b).unwrap();
        assert_eq!(load_bookmark(&p), b);
    }
}
