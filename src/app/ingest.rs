//! `starry ingest`: take a received turn mail (or a pasted armored block,
//! or a player link: docs/mail.md, "Player links"),
//! verify the log in it completely, and fast-forward the local copy of that
//! game — never anything but a fast-forward.
//!
//! The local copy is `$STARRY_HOME/games/GAME-ID.jsonl` (created when
//! missing) or the file given with `--into`. Received and local logs are
//! compared entry by entry:
//! - identical: nothing new (exit 0);
//! - the local copy is a strict prefix: it is replaced, atomically and under
//!   its lock, by the received log;
//! - the received log is a prefix of the local copy (an older mail): nothing
//!   new, the local copy is ahead (exit 0);
//! - they differ at entry k: a fork, refused (exit 22) naming entry k and,
//!   when both entries at k are validly signed by the same seat, saying that
//!   this seat signed two different entries;
//! - another game: refused (exit 14).
//!
//! Anything refused leaves every file as it was.

use crate::crypto::identity::Stored as _;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use super::mail::{countersign_text, id_new_command, next_command};
use super::report::{IngestOutcome, IngestReport, NoIdentityReport};
use super::{Output, game_path, games_dir, short_id, status_of, status_text};
use crate::crypto::identity::{self, Identity, IdentityError};
use crate::error::{Error, Fault, LogFault, Result};
use crate::games::{Game, Seat};
use crate::log::file::{self, LockedLog};
use crate::log::replay::{read_genesis, split_lines};
use crate::log::{Action, Replay};
use crate::mail::{MailError, find_logs};
use crate::with_game;

/// Largest input accepted, in bytes (16 MiB: a finished game's log is
/// well under 1 MiB, so a turn mail is a small fraction of this).
pub const LIMIT: usize = crate::mail::parse::DEFAULT_LIMIT;

/// `starry ingest [FILE|-] [--into FILE]`.
pub fn ingest(input: Option<&Path>, into: Option<&Path>) -> Result<Output> {
    let home = identity::home_dir()?;
    // A player link given as the argument, not a file: its entries.
    if let Some(link) = input
        .and_then(|p| p.to_str())
        .filter(|p| p.contains(&format!("#{}", starry_core::link::KEY)))
        .filter(|p| !Path::new(p).exists())
    {
        return ingest_bytes(&home, link.as_bytes(), "the player link", into);
    }
    let name = match input {
        None => "-".to_string(),
        Some(p) => p.display().to_string(),
    };
    let raw = read_input(input, &name)?;
    ingest_bytes(&home, &raw, &name, into)
}

/// [`ingest`] of input already read (`name` says where it came from).
pub fn ingest_bytes(home: &Path, raw: &[u8], name: &str, into: Option<&Path>) -> Result<Output> {
    let mut log = pick_log(raw, name)?;
    if let Some(part) = partial(&log) {
        log = complete(home, name, &log, part, into)?;
    }
    let (genesis, _) = read_genesis(&log).map_err(|fault| refused(name, fault))?;
    // Whom the mail is for (none when the input is not a mail): it tells a
    // newcomer which seat is theirs.
    let to = crate::mail::headers(raw)
        .map(|h| h.recipients)
        .unwrap_or_default();
    let cx = Ingest {
        home,
        input: name,
        to: &to,
        into,
    };
    with_game!(genesis.game.as_str(), G => ingest_game::<G>(&cx, &log))
}

/// Where a partial log (a turn mail's entries that its recipient lacks)
/// starts, and what it continues.
struct Part {
    /// The number of its first entry.
    first: u64,
    game: crate::crypto::Hash,
    /// The id of the entry before its first.
    prev: crate::crypto::Hash,
}

/// The start of `log` if it is a partial log: its first line is a
/// well-formed entry other than the genesis. Anything else is left to the
/// full checks (which name what is wrong).
fn partial(log: &[u8]) -> Option<Part> {
    let end = log.iter().position(|&b| b == b'\n').unwrap_or(log.len());
    let line: crate::log::entry::Line = serde_json::from_slice(&log[..end]).ok()?;
    let b = line.body;
    match (b.n, b.game, b.prev) {
        (1.., Some(game), Some(prev)) => Some(Part {
            first: b.n,
            game: game.0,
            prev: prev.0,
        }),
        _ => None,
    }
}

/// A partial log made whole from the local copy: its first entries, up to
/// the one the received entries continue. Refused, with what to do, when
/// the local copy is missing, too short, or holds another entry there.
fn complete(
    home: &Path,
    input: &str,
    log: &[u8],
    part: Part,
    into: Option<&Path>,
) -> Result<Vec<u8>> {
    let target = match into {
        Some(p) => p.to_path_buf(),
        None => game_path(home, &part.game),
    };
    // Entry numbers come from the mail: the last one is computed checked
    // (a first entry of 2^64 - 1 followed by more is no log anybody wrote).
    let received = log.iter().filter(|&&b| b == b'\n').count().max(1) as u64;
    let Some(last) = part.first.checked_add(received - 1) else {
        return Err(Error::Input(format!(
            "{input} carries entries numbered from {} on, past the largest entry number a log \
             can hold ({}): it is not a log of game {} as any player wrote it. Nothing was \
             changed. Ask the sender for the whole log: `starry mail {} --full` sends it",
            part.first,
            u64::MAX,
            &hex::encode(part.game)[..16],
            &hex::encode(part.game)[..16],
        )));
    };
    let need_full = |why: String| {
        Error::Input(format!(
            "{input} carries entries {} to {last} of game {} — the ones written since your last \
             entry — and {why}. Nothing was changed. Ask the sender for the whole log: \
             `starry mail {} --full` sends it",
            part.first,
            &hex::encode(part.game)[..16],
            &hex::encode(part.game)[..16],
        ))
    };
    if !target.exists() {
        return Err(need_full(format!(
            "there is no copy of that game to continue at {} (if your copy is elsewhere, \
             give it with `--into FILE`)",
            target.display()
        )));
    }
    let local = file::read(&target)?;
    let lines = split_lines(&local).map_err(|fault| Error::Log {
        path: target.clone(),
        fault,
    })?;
    // The copy must be of the same game: a whole log of another game is
    // refused as such, and so is a piece of one.
    if lines.first().map(|g| crate::crypto::sha256(g)) != Some(part.game) {
        return Err(refused(
            input,
            LogFault {
                entry: part.first,
                fault: Fault::ForeignEntry,
                author: None,
                detail: format!(
                    "the received entries belong to game {}, and {} is another game",
                    &hex::encode(part.game)[..16],
                    target.display()
                ),
            },
        ));
    }
    // `part.first` is at least 1; beyond what `usize` holds, it is beyond
    // any copy.
    let k = usize::try_from(part.first).unwrap_or(usize::MAX);
    if lines.len() < k {
        return Err(need_full(format!(
            "your copy {} has only {} entries (0 to {}), so entries {} to {} are missing in between",
            target.display(),
            lines.len(),
            lines.len().saturating_sub(1),
            lines.len(),
            part.first.saturating_sub(1)
        )));
    }
    if crate::crypto::sha256(lines[k - 1]) != part.prev {
        return Err(need_full(format!(
            "they continue another entry {} than the one in your copy {}: the copies differ \
             before that (a fork, or another game), which only the whole log can show",
            k - 1,
            target.display()
        )));
    }
    let mut whole = crate::log::replay::split_at_entry(&local, &lines, k)
        .0
        .to_vec();
    whole.extend_from_slice(log);
    Ok(whole)
}

/// A fault of the received log: the input is named, and nothing changed.
fn refused(input: &str, mut fault: LogFault) -> Error {
    fault
        .detail
        .push_str("; the received log is refused and nothing was changed");
    Error::Log {
        path: PathBuf::from(input),
        fault,
    }
}

/// Reads the input, at most [`LIMIT`] bytes.
fn read_input(input: Option<&Path>, name: &str) -> Result<Vec<u8>> {
    let mut raw = Vec::new();
    let limit = LIMIT as u64 + 1;
    let stdin = input.is_none_or(|p| p.as_os_str() == "-");
    if stdin && std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        let _ = writeln!(
            std::io::stderr(),
            "Paste the turn mail, the armored block (from -----BEGIN STARRY LOG----- to \
             -----END STARRY LOG-----) or a player link (…#log=…), then press Ctrl-D on a line \
             of its own."
        );
    }
    match input {
        None => {
            std::io::stdin()
                .lock()
                .take(limit)
                .read_to_end(&mut raw)
                .map_err(|e| Error::io("cannot read", "standard input", e))?;
        }
        Some(p) if p.as_os_str() == "-" => {
            std::io::stdin()
                .lock()
                .take(limit)
                .read_to_end(&mut raw)
                .map_err(|e| Error::io("cannot read", "standard input", e))?;
        }
        Some(p) => {
            std::fs::File::open(p)
                .and_then(|f| f.take(limit).read_to_end(&mut raw))
                .map_err(|e| Error::io("cannot read the mail", p, e))?;
        }
    }
    if raw.len() > LIMIT {
        return Err(Error::Input(format!(
            "{name}: {}; nothing was changed",
            MailError::TooLarge { limit: LIMIT }
        )));
    }
    Ok(raw)
}

/// The one log in the input. A mail that quotes an earlier turn mail holds
/// an older copy too: when every log found is a prefix of the longest one,
/// the longest is taken. When the copies differ and only some of them
/// verify (an attachment damaged on the way beside an intact armored block,
/// say), those that verify are taken by the same rule.
fn pick_log(raw: &[u8], name: &str) -> Result<Vec<u8>> {
    let bad = |e: MailError| Error::Input(format!("{name}: {e}; nothing was changed"));
    // A bare log (another player's copy, not a mail) is taken as it is.
    if raw.starts_with(b"{\"body\":") {
        return Ok(raw.to_vec());
    }
    let logs = find_logs(raw, LIMIT).map_err(bad)?;
    if logs.is_empty() {
        return match link_entries(raw) {
            Some(entries) => {
                entries.map_err(|e| Error::Input(format!("{name}: {e}; nothing was changed")))
            }
            None => Err(bad(MailError::NoLog)),
        };
    }
    let count = logs.len();
    if let Some(one) = longest_of_prefixes(logs.clone()) {
        return Ok(one);
    }
    let intact: Vec<Vec<u8>> = logs.into_iter().filter(|l| verifies(l)).collect();
    if intact.is_empty() {
        return Err(Error::Input(format!(
            "{name}: the input holds {count} copies of a log and none of them verifies (each was \
             damaged on the way, or changed); nothing was changed. Ask the sender for the log \
             again, or audit the copies with `starry audit` to see what is wrong"
        )));
    }
    match longest_of_prefixes(intact) {
        Some(one) => Ok(one),
        None => Err(bad(MailError::SeveralLogs { count })),
    }
}

/// The entries of the player link in `raw` (docs/mail.md, "Player
/// links"), when there is one: a link alone, or a mail that carries one
/// but no log (the attachment and the armored block, when there, are the
/// same entries and win). A link wrapped by a mail program is joined.
fn link_entries(raw: &[u8]) -> Option<std::result::Result<Vec<u8>, starry_core::link::LinkError>> {
    let candidates = crate::mail::parse::find_link(raw);
    let mut first_error = None;
    for fragment in candidates {
        match starry_core::link::entries_of(&fragment) {
            Ok(entries) => return Some(Ok(entries)),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    first_error.map(Err)
}

/// The longest of `logs` if every other one is a prefix of it.
fn longest_of_prefixes(mut logs: Vec<Vec<u8>>) -> Option<Vec<u8>> {
    logs.sort_by_key(|l| std::cmp::Reverse(l.len()));
    let longest = &logs[0];
    logs[1..]
        .iter()
        .all(|l| longest.starts_with(l) && l.ends_with(b"\n"))
        .then(|| logs.swap_remove(0))
}

/// Whether a log verifies in full.
fn verifies(log: &[u8]) -> bool {
    let Ok((genesis, _)) = read_genesis(log) else {
        return false;
    };
    let ok: Result<bool> =
        with_game!(genesis.game.as_str(), G => Ok(Replay::<G>::from_bytes(log).is_ok()));
    ok.unwrap_or(false)
}

/// One ingest: where the received log comes from and whom it is for, and
/// where the local copy lives.
struct Ingest<'a> {
    home: &'a Path,
    /// The input, as messages name it.
    input: &'a str,
    /// The mail's `To:` and `Cc:` addresses (none when the input is no mail).
    to: &'a [String],
    /// The copy given with `--into`; else the games directory's.
    into: Option<&'a Path>,
}

impl Ingest<'_> {
    /// The local copy of the game `game`.
    fn target(&self, game: &crate::crypto::Hash) -> PathBuf {
        match self.into {
            Some(p) => p.to_path_buf(),
            None => game_path(self.home, game),
        }
    }
}

/// What became of the received log, in entries.
#[derive(Clone, Copy)]
struct Taken {
    outcome: IngestOutcome,
    /// The local copy's entries before.
    before: u64,
    /// The received log's entries.
    received: u64,
}

fn ingest_game<G: crate::bot::Bot>(cx: &Ingest<'_>, log: &[u8]) -> Result<Output> {
    let input = cx.input;
    let incoming = Replay::<G>::from_bytes(log).map_err(|fault| refused(input, fault))?;
    // An entry from the future is not taken: its author's claims would
    // otherwise come early (docs/protocol.md, §8, the clock of the reader).
    // The entries before it are: among them may be the move this player
    // must answer, and a claim dated ahead must not keep it from them.
    let now = crate::log::replay::now();
    let Some((ahead, time)) = incoming
        .ahead_of(&now, crate::error::CLOCK_SLACK)
        .map(|(e, t)| (e, t.to_string()))
    else {
        return ingest_verified::<G>(cx, log, incoming);
    };
    if ahead <= 1 {
        super::clock::refuse_ahead(&incoming, Path::new(input), &now)?;
    }
    let author = incoming.seat_label(incoming.entries[ahead as usize].author);
    let lines = split_lines(log).expect("verified");
    let (prefix, _) = crate::log::replay::split_at_entry(log, &lines, ahead as usize);
    let kept = Replay::<G>::from_bytes_upto(prefix, ahead as usize)
        .map_err(|fault| refused(input, fault))?;
    let mut out = ingest_verified::<G>(cx, prefix, kept)?;
    let why = format!(
        "{}: entry {ahead}, written by {author}, is dated {time}, more than {} ahead of this \
         machine's clock ({now}); it and the {} after it were left out, and entries 0 to {} \
         were taken. A claim that a player stopped answering depends on these times, so starry \
         takes no entry dated ahead. Either this clock is slow (check it: `date -u`; \
         `timedatectl` on Linux) or theirs was fast: ask them to set it right and send the log \
         again",
        crate::error::shown_path(Path::new(input)),
        crate::log::replay::span_text(crate::error::CLOCK_SLACK as u64),
        crate::text::count((incoming.len() - ahead - 1) as usize, "entry", "entries"),
        ahead - 1,
    );
    out.json["left_out"] = serde_json::json!({
        "from": ahead,
        "entries": incoming.len() - ahead,
        "time": time,
    });
    out.code = 9;
    out.warning = Some(match out.warning.take() {
        Some(prev) => format!("{prev}\nerror: {why}"),
        None => why,
    });
    Ok(out)
}

/// [`ingest_game`] of a received log `log`, verified as `incoming`, none of
/// whose entries is dated ahead of this machine's clock.
fn ingest_verified<G: crate::bot::Bot>(
    cx: &Ingest<'_>,
    log: &[u8],
    incoming: Replay<G>,
) -> Result<Output> {
    let target = cx.target(&incoming.game_id);
    let received = incoming.len();
    // A link the games directory kept to a copy that is gone since
    // (`super::remember_game`) stands for no copy: it gives way to the
    // received log, now that it has verified.
    if cx.into.is_none()
        && std::fs::symlink_metadata(&target).is_ok_and(|m| m.file_type().is_symlink())
        && !target.exists()
    {
        std::fs::remove_file(&target)
            .map_err(|e| Error::io("cannot remove the dangling link", &target, e))?;
    }
    if !target.exists() {
        if cx.into.is_none() {
            let dir = games_dir(cx.home);
            std::fs::create_dir_all(&dir).map_err(|e| Error::io("cannot create", &dir, e))?;
        }
        file::create(&target, log)?;
        let taken = Taken {
            outcome: IngestOutcome::Created,
            before: 0,
            received,
        };
        return finish::<G>(cx, &target, taken, log, Some(incoming), None);
    }
    let locked = LockedLog::open(&target)?;
    let local = locked.bytes.clone();
    let compared = compare::<G>(&target, &local, log, &incoming)?;
    let (outcome, before, note, final_bytes) = match compared {
        Compared::Plain(IngestOutcome::FastForwarded, before) => {
            locked.replace(log)?;
            (IngestOutcome::FastForwarded, before, None, log.to_vec())
        }
        Compared::Plain(outcome, before) => {
            // Unlocked before the report: a computer seat of this machine
            // may write to the copy then.
            drop(locked);
            (outcome, before, None, local)
        }
        Compared::Fork(k, before) => {
            match settle_fork::<G>(cx.home, &target, locked, log, &incoming, k)? {
                Settled::Kept(text) => (IngestOutcome::Kept, before, Some(text), local),
                Settled::Resolved(bytes, text, game_lock) => {
                    // The copy and the records changed together under the
                    // game's lock; reporting only reads. It is let go
                    // before `finish`, whose computer seats take the log's
                    // lock: holding it there would take the two locks in
                    // the opposite order to `play` (log, then game), and
                    // the two could wait for each other forever.
                    drop(game_lock);
                    let taken = Taken {
                        outcome: IngestOutcome::Resolved,
                        before,
                        received,
                    };
                    return finish::<G>(cx, &target, taken, &bytes, None, Some(text));
                }
            }
        }
    };
    let taken = Taken {
        outcome,
        before,
        received,
    };
    let same = final_bytes == log;
    finish::<G>(
        cx,
        &target,
        taken,
        &final_bytes,
        same.then_some(incoming),
        note,
    )
}

/// A fork settled by the protocol's rule.
enum Settled {
    /// The local copy wins and is kept as it is; the note says why.
    Kept(String),
    /// The received log wins: the local copy now holds these bytes (with
    /// this player's entry of the losing side written again on top, if
    /// any); the note says why. The game's lock is still held.
    Resolved(Vec<u8>, String, super::written::GameLock),
}

/// Settles the fork at entry `k` between the local copy, open as `locked`
/// at `target`, and the received `log` (verified as `incoming`) — or
/// refuses it, naming what differs.
fn settle_fork<G: Game>(
    home: &Path,
    target: &Path,
    mut locked: LockedLog,
    log: &[u8],
    incoming: &Replay<G>,
    k: usize,
) -> Result<Settled> {
    // `replace` needs the lock, not the bytes it read.
    let local = std::mem::take(&mut locked.bytes);
    let (mine, theirs) = (
        split_lines(&local).expect("compared"),
        split_lines(log).expect("verified"),
    );
    let why = match crate::log::fork::resolve(&mine, &theirs, k) {
        None => return Err(fork::<G>(target, log, incoming, k, mine[k])),
        Some((0, why)) => return Ok(Settled::Kept(resolution_note(why, false, k))),
        Some((_, why)) => why,
    };
    let mut bytes = log.to_vec();
    let mut text = resolution_note(why, true, k);
    // The entry written again on top and the record of this player's last
    // entry change together, under the lock every writer of this game
    // holds (as `act` does), so that no `play` on another copy signs at the
    // same position between them.
    let game_lock = super::written::lock(home, &incoming.game_id)?;
    let again = reapply::<G>(home, &local, incoming, why)?;
    if let Some(line) = &again {
        bytes.extend_from_slice(line);
        text.push_str(
            " Your own entry was on the other side: it is written again on top — mail the log \
             on so that the others have it.",
        );
    }
    locked.replace(&bytes)?;
    match &again {
        Some(line) => {
            super::written::remember_again_locked(home, &incoming.game_id, incoming.len(), line);
        }
        None => super::written::rewind_after_lost_fork(
            home,
            &incoming.game_id,
            &mine,
            &theirs,
            k,
            |i| incoming.entries[i].author,
            |key| incoming.seat_of_key(key),
        )?,
    }
    // A computer seat of this machine that wrote on the losing side (it
    // joined the claim that lapsed, countersigned the result that no longer
    // stands) would otherwise refuse every entry of its own at those
    // positions, and never move again while its clock ran. Its record is in
    // its own home, under its own lock, taken after the person's as `follow`
    // does in `finish`.
    for computer in super::computer::homes(home, incoming) {
        let _computer_locked = super::written::lock(&computer, &incoming.game_id)?;
        super::written::rewind_after_lost_fork(
            &computer,
            &incoming.game_id,
            &mine,
            &theirs,
            k,
            |i| incoming.entries[i].author,
            |key| incoming.seat_of_key(key),
        )?;
    }
    Ok(Settled::Resolved(bytes, text, game_lock))
}

/// Reports on the local copy `target` as it is now, `bytes` (verified
/// again unless it is the received log itself, `verified`), after `note`.
fn finish<G: crate::bot::Bot>(
    cx: &Ingest<'_>,
    target: &Path,
    taken: Taken,
    bytes: &[u8],
    verified: Option<Replay<G>>,
    note: Option<String>,
) -> Result<Output> {
    let home = cx.home;
    let mut now = match verified {
        Some(r) => r,
        None => Replay::<G>::from_bytes(bytes).map_err(|fault| Error::Log {
            path: target.to_path_buf(),
            fault,
        })?,
    };
    // The game may now wait for a computer seat this machine plays: it
    // plays, and its entries are mailed on below.
    let (then, stuck) = if super::computer::waits_for_computer(home, &now) {
        super::computer::follow::<G>(home, target)
    } else {
        (Vec::new(), None)
    };
    if !then.is_empty() {
        let bytes = std::fs::read(target).map_err(|e| Error::io("cannot read", target, e))?;
        now = Replay::<G>::from_bytes(&bytes).map_err(|fault| Error::Log {
            path: target.to_path_buf(),
            fault,
        })?;
    }
    let file_arg = if cx.into.is_some() {
        target.display().to_string()
    } else {
        short_id(&now.game_id)
    };
    let mut out = report::<G>(cx, target, &file_arg, taken, &now)?;
    if let Some(n) = note {
        out.text = format!("{n}\n{}", out.text);
        out.json["resolution"] = serde_json::Value::String(n);
    }
    if !then.is_empty() {
        // After the account of what arrived, what the computers did.
        let at = out.text.find('\n').map_or(out.text.len(), |i| i + 1);
        out.text
            .insert_str(at, &super::computer::entries_text(&then));
        out.json["then"] = serde_json::to_value(&then).expect("reports serialise");
        match crate::mail::load(home) {
            Ok(cfg) => super::mail::after_entry(target, &cfg, &mut out),
            Err(e) => {
                out.warning = Some(format!(
                    "the computer's entries are written to {}, but the mail settings do not \
                     load ({e}); fix them and send the game on with `starry mail {file_arg}`",
                    target.display()
                ))
            }
        }
    }
    if let Some(e) = stuck {
        let w = format!(
            "a computer seat of this machine could not play its turn: {e}. The game waits for \
             it; the next writing command in this game tries again"
        );
        out.warning = Some(match out.warning.take() {
            Some(prev) => format!("{prev}\nerror: {w}"),
            None => w,
        });
    }
    Ok(out)
}

fn resolution_note(why: crate::log::fork::Resolution, theirs_won: bool, k: usize) -> String {
    use crate::log::fork::Resolution::*;
    match (why, theirs_won) {
        (ClaimLapsed, true) => format!(
            "The copies differed from entry {k} on: yours held claims that a player had stopped \
             answering, the mail holds that player's awaited entry. The entry wins and the claims \
             lapse; your copy now follows the mail."
        ),
        (ClaimLapsed, false) => format!(
            "The copies differ from entry {k} on: the mail holds claims that a player had stopped \
             answering, your copy holds that player's awaited entry. The entry wins and the claims \
             lapse; your copy is kept as it is."
        ),
        (Countersignatures, true) => format!(
            "The copies differed from entry {k} on only in countersignatures written at the same \
             time; by the protocol's rule (the smaller entry id wins) your copy now follows the \
             mail."
        ),
        (Claims, true) => format!(
            "The copies differed from entry {k} on only in claims, written at the same time, that \
             a player stopped answering; by the protocol's rule (the smaller entry id wins) your \
             copy now follows the mail."
        ),
        (Claims, false) => format!(
            "The copies differ from entry {k} on only in claims, written at the same time, that a \
             player stopped answering; by the protocol's rule (the smaller entry id wins) your \
             copy is kept, and the sender writes theirs again on top when they ingest your copy."
        ),
        (Countersignatures, false) => format!(
            "The copies differ from entry {k} on only in countersignatures written at the same \
             time; by the protocol's rule (the smaller entry id wins) your copy is kept, and the \
             sender writes theirs again on top when they ingest your copy."
        ),
    }
}

/// The local player's entry of the losing side — a countersignature or an
/// abandonment claim — written again on top of the winning copy `theirs`,
/// if it was in the local copy and is not in theirs (and, for a claim, the
/// game still waits for the same seat).
fn reapply<G: Game>(
    home: &Path,
    local: &[u8],
    theirs: &Replay<G>,
    why: crate::log::fork::Resolution,
) -> Result<Option<Vec<u8>>> {
    use crate::log::fork::Resolution;
    let id = match Identity::load(home) {
        Ok(id) => id,
        Err(IdentityError::Missing { .. }) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let Some(seat) = theirs.seat_of_key(&id.public_key()) else {
        return Ok(None);
    };
    let mine = Replay::<G>::from_bytes(local).map_err(|fault| Error::Log {
        path: PathBuf::from("(your copy)"),
        fault,
    })?;
    let (kind, data) = match (why, mine.claims.as_ref(), theirs.claims.as_ref()) {
        (Resolution::Countersignatures, _, _)
            if mine.countersigned.contains(&seat) && !theirs.countersigned.contains(&seat) =>
        {
            (
                crate::log::Kind::Countersign,
                super::act::countersign_data(theirs),
            )
        }
        // The winner still waits for the same seat, and lacks this claim.
        (Resolution::Claims, Some(mc), Some(tc))
            if mc.by.contains(&seat) && !tc.by.contains(&seat) && mc.silent == tc.silent =>
        {
            let data = crate::log::entry::Abandon {
                awaited: tc.awaited,
                silent: tc.silent as u32,
            };
            (
                crate::log::Kind::Abandon,
                crate::log::canonical::to_value(&data),
            )
        }
        _ => return Ok(None),
    };
    let secret = theirs
        .game_secret(&id, seat)
        .expect("the seat's key is this identity's");
    let link = theirs
        .next_link(&secret, seat)
        .ok_or_else(|| Error::Other("your beacon chain for this game is used up".into()))?;
    let line = theirs.next_line(&id, seat, kind, data, Some(link), crate::log::replay::now());
    let mut check = theirs.clone();
    check
        .apply_line(theirs.len(), &line[..line.len() - 1])
        .map_err(|f| {
            Error::Other(format!(
                "refusing to write an entry that does not verify: {f}"
            ))
        })?;
    Ok(Some(line))
}

/// How the local copy relates to the received log.
enum Compared {
    Plain(IngestOutcome, u64),
    /// They differ first at entry k.
    Fork(usize, u64),
}

/// Compares the local copy with the received (verified) log.
fn compare<G: Game>(
    target: &Path,
    local: &[u8],
    log: &[u8],
    incoming: &Replay<G>,
) -> Result<Compared> {
    let local_err = |fault: LogFault| Error::Log {
        path: target.into(),
        fault,
    };
    let (_, local_id) = read_genesis(local).map_err(local_err)?;
    if local_id != incoming.game_id {
        return Err(local_err(LogFault {
            entry: 0,
            fault: Fault::ForeignEntry,
            author: None,
            detail: format!(
                "the mail carries game {} ({}), but this copy is game {}; nothing was changed. \
                 Give the right copy with --into, or leave --into out to use your games directory",
                short_id(&incoming.game_id),
                incoming.genesis.game,
                short_id(&local_id)
            ),
        }));
    }
    let mine = split_lines(local).map_err(local_err)?;
    let theirs = split_lines(log).expect("verified");
    let before = mine.len() as u64;
    if let Some(k) = (0..mine.len().min(theirs.len())).find(|&k| mine[k] != theirs[k]) {
        // The local copy must verify in full before it can win or lose by
        // rule; a broken one is reported as it is.
        Replay::<G>::from_bytes(local).map_err(local_err)?;
        return Ok(Compared::Fork(k, before));
    }
    Ok(Compared::Plain(
        match mine.len().cmp(&theirs.len()) {
            std::cmp::Ordering::Equal => IngestOutcome::Unchanged,
            std::cmp::Ordering::Less => IngestOutcome::FastForwarded,
            std::cmp::Ordering::Greater => IngestOutcome::Ahead,
        },
        before,
    ))
}

/// The error for copies that differ at entry `k`.
fn fork<G: Game>(
    target: &Path,
    log: &[u8],
    incoming: &Replay<G>,
    k: usize,
    local_line: &[u8],
) -> Error {
    let theirs = &incoming.entries[k];
    let theirs_by = theirs.author;
    // Entries 0..k are the same in both copies: replay them from the
    // verified log and try the local entry k on top.
    let mine = Replay::<G>::from_bytes_upto(log, k).ok().map(|mut r| {
        let res = r.apply_line(k as u64, local_line);
        (res, r)
    });
    let describe = |by: Seat, kind: &str, summary: &str| {
        format!(
            "{} by {}{}",
            kind,
            incoming.seat_label(by),
            if summary.is_empty() || summary == kind {
                String::new()
            } else {
                format!(": {summary}")
            }
        )
    };
    let theirs_text = describe(theirs_by, theirs.kind.as_str(), &theirs.summary);
    let (mine_text, proof) = match &mine {
        Some((Ok(()), r)) => {
            let m = r.entries.last().expect("applied");
            (
                describe(m.author, m.kind.as_str(), &m.summary),
                (m.author == theirs_by).then(|| {
                    format!(
                        " Both entries are validly signed by {}: this player signed two different \
                         entries for the same position, which is proof of cheating (or of playing \
                         from two copies of the game).",
                        incoming.seat_label(theirs_by)
                    )
                }),
            )
        }
        Some((Err(f), _)) => (
            format!(
                "an entry that does not verify ({}: {})",
                f.fault.name(),
                f.detail
            ),
            None,
        ),
        None => ("an entry that cannot be checked".into(), None),
    };
    Error::Log {
        path: target.into(),
        fault: LogFault {
            entry: k as u64,
            fault: Fault::Fork,
            author: Some(incoming.seat_label(theirs_by)),
            detail: format!(
                "the received log is not a continuation of this copy: entries 0 to {} are the \
                 same, but entry {k} in the mail is {theirs_text}, while entry {k} in this copy \
                 is {mine_text}.{} Nothing was changed; compare with the other players' copies \
                 before going on",
                k.saturating_sub(1),
                proof.unwrap_or_default()
            ),
        },
    }
}

/// Who reads the report: this machine's identity and the seat it holds.
struct Reader {
    id: Option<Identity>,
    /// Where the identity was looked for, when there is none.
    missing: Option<PathBuf>,
    /// The seat joined with this identity's key.
    joined: Option<Seat>,
    /// The seat listed with this identity's address, joined by a key that
    /// is not its own: someone else joined in its place.
    stolen: Option<Seat>,
    /// The seat joined, else the one listed with this identity's address
    /// (unless stolen).
    seat: Option<Seat>,
}

impl Reader {
    fn of<G: Game>(home: &Path, r: &Replay<G>) -> Result<Reader> {
        let (id, missing) = match Identity::load(home) {
            Ok(id) => (Some(id), None),
            Err(IdentityError::Missing { path }) => (None, Some(path)),
            Err(e) => return Err(e.into()),
        };
        let joined = id.as_ref().and_then(|i| r.seat_of_key(&i.public_key()));
        let stolen = match (joined, &id) {
            (None, Some(i)) => r
                .seat_of_email(&i.email)
                .filter(|&s| r.seats[s].key.is_some_and(|k| k != i.public_key())),
            _ => None,
        };
        let seat = joined.or_else(|| {
            id.as_ref()
                .and_then(|i| r.seat_of_email(&i.email))
                .filter(|_| stolen.is_none())
        });
        Ok(Reader {
            id,
            missing,
            joined,
            stolen,
            seat,
        })
    }
}

fn report<G: Game>(
    cx: &Ingest<'_>,
    target: &Path,
    file_arg: &str,
    taken: Taken,
    r: &Replay<G>,
) -> Result<Output> {
    let reader = Reader::of(cx.home, r)?;
    let status = status_of(r);
    let (action, who) = r.expected();
    let your_turn = reader.seat.is_some() && who == reader.seat;
    let next = your_turn.then(|| next_command(r, action, file_arg));

    let mut text = outcome_text(cx.input, target, taken, r.len());
    let no_identity = reader
        .missing
        .as_ref()
        .map(|path| newcomer(r, path, cx.to, file_arg));
    if let Some(n) = &no_identity {
        text.push_str(&newcomer_text(r, n));
    }
    text.push_str(&format!(
        "{} — game {} — {} entries\n{}",
        status.game,
        &status.game_id[..16],
        status.entries,
        status_text(&status)
    ));
    if let Some(s) = reader.stolen {
        text.push_str(&format!(
            "Warning: seat {} ({}) was joined with the key {}, and yours is {}: someone else \
             joined in your place. Tell the other players; the creator can start the game again \
             with pinned seats.\n",
            s,
            crate::text::inline(&r.genesis.seats[s].email),
            crate::log::replay::fingerprint(&r.seats[s].key.expect("joined")),
            crate::log::replay::fingerprint(
                &reader.id.as_ref().expect("has an identity").public_key()
            )
        ));
    }
    text.push_str(&next_text(
        r,
        &reader,
        next.as_deref(),
        file_arg,
        no_identity.is_some(),
    ));
    let view = view_text(r, &reader, &mut text)?;
    let report = IngestReport {
        input: cx.input.to_string(),
        file: target.display().to_string(),
        game: status.game.clone(),
        game_id: status.game_id.clone(),
        outcome: taken.outcome,
        entries_before: taken.before,
        entries_received: taken.received,
        entries_after: r.len(),
        seat: reader.seat.map(|s| s as u32),
        your_turn,
        next_command: next,
        status,
        view,
        no_identity,
        then: Vec::new(),
    };
    Ok(Output::new(text.trim_end().to_string(), &report))
}

/// The report's first line: what became of the received log from `input`
/// and the local copy `target`, which now has `after` entries.
fn outcome_text(input: &str, target: &Path, taken: Taken, after: u64) -> String {
    let Taken {
        outcome,
        before,
        received,
    } = taken;
    match outcome {
        IngestOutcome::Created => format!(
            "{input}: verified {received} entries; created your copy {}.\n",
            target.display()
        ),
        IngestOutcome::FastForwarded => format!(
            "{input}: verified {received} entries; {} new — your copy {} now has {received}.\n",
            received.saturating_sub(before),
            target.display()
        ),
        IngestOutcome::Unchanged => format!(
            "{input}: nothing new — your copy {} already has these {received} entries.\n",
            target.display()
        ),
        IngestOutcome::Ahead => format!(
            "{input}: nothing new — your copy {} is ahead: it has {before} entries, the mail only \
             {received} (an older mail).\n",
            target.display()
        ),
        IngestOutcome::Resolved => format!(
            "{input}: verified {received} entries; your copy {} now has {after}.\n",
            target.display(),
        ),
        IngestOutcome::Kept => format!(
            "{input}: verified {received} entries; your copy {} is kept with its {before} entries.\n",
            target.display()
        ),
    }
}

/// What the reader is to do next: `next` on their turn, else wait,
/// countersign, or nothing. A newcomer (no identity) was told above.
fn next_text<G: Game>(
    r: &Replay<G>,
    reader: &Reader,
    next: Option<&str>,
    file_arg: &str,
    newcomer: bool,
) -> String {
    match (next, reader.seat) {
        (Some(cmd), _) => format!(
            "It is your turn ({}). Next:\n  {cmd}\n",
            r.expected().0.as_str()
        ),
        (None, Some(_)) if !r.is_over() => "It is not your turn.\n".into(),
        // Over: countersign now, or wait for the mail that names you.
        (None, Some(_)) if reader.joined.is_some() => {
            countersign_text(r, reader.joined, file_arg).map_or(String::new(), |t| format!("{t}\n"))
        }
        (None, None) if !newcomer => "You hold no seat in this game.\n".into(),
        _ => String::new(),
    }
}

/// The reader's view of the game (with their own face-down tokens when they
/// joined), else the spectator view, added to `text`; none before the
/// setup.
fn view_text<G: Game>(
    r: &Replay<G>,
    reader: &Reader,
    text: &mut String,
) -> Result<Option<G::View>> {
    let Some(state) = &r.state else {
        return Ok(None);
    };
    let v = match (reader.joined, &reader.id) {
        (Some(s), Some(i)) => super::own_view(r, state, s, i)?,
        _ => G::view(state, None, None),
    };
    text.push_str(&format!(
        "\n{}\n",
        match reader.joined {
            Some(s) => format!("Your view (seat {s}):"),
            None => "The spectator view:".into(),
        }
    ));
    text.push_str(&G::render_text(&v, &r.names()));
    Ok(Some(v))
}

/// What someone with no starry identity may do about the game `r`: the
/// seat the mail is addressed to (`to`, its `To:` and `Cc:` addresses),
/// or, when the input was no mail or the mail is for none of its seats,
/// every seat that has not joined yet.
fn newcomer<G: Game>(
    r: &Replay<G>,
    path: &Path,
    to: &[String],
    file_arg: &str,
) -> NoIdentityReport {
    let addressed = to.iter().find_map(|a| r.seat_of_email(a));
    let seats: Vec<Seat> = match addressed {
        Some(s) => vec![s],
        None => (0..r.seat_count())
            .filter(|&s| r.seats[s].key.is_none())
            .collect(),
    };
    let waiting: Vec<Seat> = seats
        .iter()
        .copied()
        .filter(|&s| r.seats[s].key.is_none())
        .collect();
    NoIdentityReport {
        path: path.display().to_string(),
        seats: seats.iter().map(|&s| s as u32).collect(),
        addressed: addressed.is_some(),
        create: waiting.iter().map(|&s| id_new_command(r, s)).collect(),
        join: (!waiting.is_empty()).then(|| next_command(r, Action::Join, file_arg)),
    }
}

/// How [`newcomer_text`]'s paragraph begins.
const NEWCOMER: &str = "You have no starry identity yet";

/// The paragraph an ingest's text holds for someone with no starry
/// identity (what [`newcomer_text`] wrote), for `starry sync` to repeat.
pub(crate) fn newcomer_paragraph(ingest_text: &str) -> Option<&str> {
    ingest_text.lines().find(|l| l.starts_with(NEWCOMER))
}

/// The paragraph that tells someone with no starry identity what to do.
fn newcomer_text<G: Game>(r: &Replay<G>, n: &NoIdentityReport) -> String {
    use crate::text::inline;
    let seat = |s: u32| &r.genesis.seats[s as usize];
    let mut t = format!("{NEWCOMER} (no identity at {}). ", inline(&n.path));
    let wait_first = |s: u32| match r.expected() {
        (Action::Join, Some(w)) if w as u32 != s => format!(
            " (the game waits for {} to join first; your join comes after)",
            r.name(w)
        ),
        _ => String::new(),
    };
    match (n.addressed, n.seats.as_slice(), &n.join) {
        (true, [s], Some(join)) => t.push_str(&format!(
            "This game has a seat for {} waiting to join: create your identity with `{}`, then \
             `{join}`{}.",
            inline(&seat(*s).email),
            n.create[0],
            wait_first(*s)
        )),
        (true, [s], None) => t.push_str(&format!(
            "This mail is for {}, seat {s}, which has joined already: if that is you, your \
             identity is elsewhere — point STARRY_HOME at the directory that holds it.",
            inline(&seat(*s).email)
        )),
        (_, [], _) => t.push_str(
            "Every seat of this game has joined, so you can only follow it, as a spectator.",
        ),
        (_, seats, join) => {
            let list: Vec<String> = seats
                .iter()
                .map(|&s| {
                    format!(
                        "{} <{}> (seat {s})",
                        inline(&seat(s).name),
                        inline(&seat(s).email)
                    )
                })
                .collect();
            t.push_str(&format!(
                "This game has {} waiting to join: {}. If one is yours, create your identity \
                 with its name and address (for the first: `{}`), then `{}`.",
                if seats.len() == 1 { "a seat" } else { "seats" },
                list.join(", "),
                n.create.first().map_or("", String::as_str),
                join.as_deref().unwrap_or_default()
            ));
        }
    }
    t.push('\n');
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = include_str!("../../examples/games/in-progress-4p.jsonl");

    /// Lines `from..to` of the example log, the first numbered `n`.
    fn partial_log(from: usize, to: usize, n: u64) -> Vec<u8> {
        let lines: Vec<&str> = LOG.lines().collect();
        let mut text = String::new();
        for (i, l) in lines[from..to].iter().enumerate() {
            let l = if i == 0 {
                l.replacen(&format!("\"n\":{from},"), &format!("\"n\":{n},"), 1)
            } else {
                l.to_string()
            };
            text.push_str(&l);
            text.push('\n');
        }
        text.into_bytes()
    }

    fn refusal(home: &Path, raw: &[u8], into: &Path) -> String {
        match ingest_bytes(home, raw, "mail.eml", Some(into)) {
            Ok(out) => panic!("accepted: {}", out.text),
            Err(e) => e.to_string(),
        }
    }

    /// Entry numbers at the edges of `u64` in a partial log: refused with
    /// what to do, never an overflow (a debug build would panic).
    #[test]
    fn extreme_entry_numbers_in_a_partial_log_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let copy = dir.path().join("copy.jsonl");
        let before = LOG
            .lines()
            .take(5)
            .map(|l| format!("{l}\n"))
            .collect::<String>();
        // Without a local copy, and with one of 5 entries.
        for local in [false, true] {
            if local {
                std::fs::write(&copy, &before).unwrap();
            }
            for n in [
                u64::MAX,
                u64::MAX - 1,
                1 << 63,
                1 << 32,
                (1 << 32) + 1,
                6,
                7,
            ] {
                for count in [1, 2, 3] {
                    let raw = partial_log(5, 5 + count, n);
                    let text = refusal(&home, &raw, &copy);
                    assert!(text.contains("Nothing was changed"), "{n} {count}: {text}");
                    assert!(text.contains("--full"), "{n} {count}: {text}");
                    if n.checked_add(count as u64 - 1).is_none() {
                        assert!(text.contains("past the largest entry number"), "{text}");
                    } else if !local {
                        assert!(text.contains("there is no copy of that game"), "{text}");
                    } else {
                        assert!(
                            text.contains(&format!(
                                "has only 5 entries (0 to 4), so entries 5 to {} are missing",
                                n - 1
                            )),
                            "{n}: {text}"
                        );
                    }
                }
            }
            if local {
                assert_eq!(std::fs::read_to_string(&copy).unwrap(), before);
            }
        }
        // Numbered 1 to 5 where entry 0 is not what they continue.
        let text = refusal(&home, &partial_log(5, 6, 1), &copy);
        assert!(text.contains("continue another entry 0"), "{text}");
        // The entry that does follow: taken.
        let out = ingest_bytes(&home, &partial_log(5, 7, 5), "mail.eml", Some(&copy)).unwrap();
        assert!(out.text.contains("2 new"), "{}", out.text);
    }
}
