//! `starry audit`: every game in the files and directories given, each
//! checked by replaying it from its first entry, on all cores; copies of one
//! game (files with the same game id) compared for forks.
//!
//! Only whole games are reported: a club's archive holds several copies of
//! many games (one per player's mailbox), and the question is whether each
//! game was played by the rules, not whether each file is.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::report::*;
use super::{
    Output, ending_text, notes_text, standings_of, standings_text, status_of, status_text,
};
use crate::error::{Error, Fault, LogFault, Result};
use crate::log::Replay;
use crate::log::file;
use crate::log::replay::read_genesis;
use crate::text::inline;
use crate::with_game;

/// `starry audit`: what to audit, and how.
#[derive(Debug, Default)]
pub struct Audit {
    /// Logs, and directories to search for logs.
    pub paths: Vec<PathBuf>,
    /// How many logs to check at a time; None: one per core.
    pub jobs: Option<usize>,
}

/// `starry audit`.
pub fn run(a: &Audit) -> Result<Output> {
    let files = find_logs(&a.paths)?;
    // Threads beyond one per log are not idle: they verify the signatures
    // of a log ahead of its replay (log::verify), so one game audits on
    // every thread too. Files read at once stay at most one per log.
    let jobs = a.jobs.unwrap_or(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| Error::Other(format!("cannot start the audit's threads: {e}")))?;
    let progress = Progress::new(files.len());
    // Every copy's verified entries, each distinct entry once: what the
    // comparison of copies needs, without holding any copy.
    let trie = std::sync::Mutex::new(Trie::default());
    let reports: Vec<Audited> = pool.install(|| {
        files
            .par_iter()
            .map(|f| {
                let (r, tip, salvaged) = audit_file_into(f, Some(&trie));
                progress.done(r.fault.is_some());
                Audited {
                    path: f.clone(),
                    report: r,
                    tip,
                    salvaged,
                }
            })
            .collect()
    });
    progress.finish();
    let trie = trie.into_inner().unwrap_or_else(|e| e.into_inner());
    let groups = group_copies(reports);
    let games: Vec<AuditGameReport> = pool.install(|| {
        groups
            .into_par_iter()
            .map(|g| game_report(g, &trie))
            .collect()
    });
    let text = match games.as_slice() {
        [one] => format!("{}\n{}", line(one), detail(one)),
        many => {
            let mut t: String = many.iter().map(|g| line(g) + "\n").collect();
            t.push_str(&summary(many));
            t
        }
    };
    let code = games
        .iter()
        .filter_map(|g| g.fault)
        .max_by_key(|f| f.severity())
        .map_or(0, Fault::exit_code);
    let mut out = Output::new(text.trim_end().to_string(), &games);
    out.json_lines = true;
    out.code = code;
    Ok(out)
}

/// The logs named: files as given (whatever their name, even if missing:
/// the audit then reports them unreadable), directories searched
/// recursively for `*.jsonl`. Hidden entries (`.git`, a write's temporary
/// file) are skipped, and so are links to directories (no loops); a file
/// reached twice (a link in the games directory and its target) is audited
/// once.
fn find_logs(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut seen = HashSet::new();
    let mut keep = |p: PathBuf, found: &mut Vec<PathBuf>| {
        if std::fs::canonicalize(&p).map_or(true, |c| seen.insert(c)) {
            found.push(p);
        }
    };
    for p in paths {
        if !std::fs::metadata(p).is_ok_and(|m| m.is_dir()) {
            keep(p.clone(), &mut found);
            continue;
        }
        let mut logs = Vec::new();
        let mut dirs = vec![p.clone()];
        while let Some(dir) = dirs.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                // Reported as an unreadable "log" so it is not lost.
                logs.push(dir);
                continue;
            };
            for e in entries.filter_map(|e| e.ok()) {
                let name = e.file_name();
                let name = name.to_string_lossy();
                if name.starts_with('.') {
                    continue;
                }
                let path = e.path();
                if e.file_type().is_ok_and(|t| t.is_dir()) {
                    dirs.push(path);
                } else if name.ends_with(".jsonl")
                    && !std::fs::metadata(&path).is_ok_and(|m| m.is_dir())
                {
                    logs.push(path);
                }
            }
        }
        // In path order (a directory's logs where its name sorts), whatever
        // order the file system lists them in.
        logs.sort();
        for log in logs {
            keep(log, &mut found);
        }
    }
    if found.is_empty() {
        return Err(Error::Usage(format!(
            "no log found in {} (no file named *.jsonl; hidden directories are skipped): give \
             the directory of an archive, or the logs themselves",
            paths
                .iter()
                .map(|p| shown(p))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(found)
}

/// One copy of a game as audited: its file, its report, and the node in
/// the [`Trie`] of its last verified entry (none when not even its first
/// line verified).
struct Audited {
    path: PathBuf,
    report: AuditFileReport,
    tip: Option<usize>,
    /// Entries of a damaged copy after its damage, each well-formed, of
    /// this game and signed by its author's key ([`salvage`]).
    salvaged: Vec<Salvaged>,
}

/// An entry found after a copy's damage: its position, the entry it
/// follows, its id and its signer. Two different ones for one position and
/// signer are proof of a fork, whatever else the copy holds.
#[derive(Clone, Copy)]
struct Salvaged {
    n: u64,
    prev: crate::crypto::Hash,
    id: crate::crypto::Hash,
    author: u32,
    /// The join after the damage that gave the key it verifies under, if
    /// the key is not from the copy's verified part: it counts only if
    /// another copy verified that very join.
    key_from: Option<crate::crypto::Hash>,
}

/// The copies of each game together, games in the order their first copy
/// was found; a file with no game id is a game of its own.
fn group_copies(files: Vec<Audited>) -> Vec<Vec<Audited>> {
    let mut groups: Vec<Vec<Audited>> = Vec::new();
    let mut by_id: BTreeMap<String, usize> = BTreeMap::new();
    for copy in files {
        match copy.report.game_id.clone() {
            Some(id) => match by_id.get(&id) {
                Some(&i) => groups[i].push(copy),
                None => {
                    by_id.insert(id, groups.len());
                    groups.push(vec![copy]);
                }
            },
            None => groups.push(vec![copy]),
        }
    }
    groups
}

/// A game from its copies. Valid when one copy at least is sound (verifies
/// in full) and no two copies fork without a rule to resolve it: the other
/// copies are damaged (cut, a byte changed on the way) and listed apart,
/// since a sound copy holds the game without them. With no sound copy the
/// game is as bad as its gravest fault.
fn game_report(copies: Vec<Audited>, trie: &Trie) -> AuditGameReport {
    let forks = find_forks(&copies, trie);
    let fork = forks
        .iter()
        .any(|f| f.resolution.is_none())
        .then_some(Fault::Fork);
    let sound = copies.iter().any(|c| c.report.fault.is_none());
    let fault = if sound {
        fork
    } else {
        copies
            .iter()
            .filter_map(|c| c.report.fault.as_ref().map(|f| f.fault))
            .chain(fork)
            .max_by_key(|f| f.severity())
    };
    let files: Vec<AuditFileReport> = copies.into_iter().map(|c| c.report).collect();
    let damaged: Vec<String> = if sound {
        files
            .iter()
            .filter(|f| f.fault.is_some())
            .map(|f| f.file.clone())
            .collect()
    } else {
        Vec::new()
    };
    let best = best_copy(&files, &forks);
    AuditGameReport {
        game: files.iter().find_map(|f| f.game.clone()),
        game_id: files.iter().find_map(|f| f.game_id.clone()),
        valid: fault.is_none(),
        state: best.map(|b| GameState::of(b.ending)),
        // A sound copy says how far the game went; a damaged copy's
        // verified part may be longer, but where it stands there is unknown.
        entries: best
            .map(|b| b.entries)
            .or_else(|| files.iter().map(|f| f.entries).max())
            .unwrap_or(0),
        fault,
        code: fault.map_or(0, Fault::exit_code),
        files,
        forks,
        damaged,
    }
}

/// The copy that says where the game stands: the longest valid one, and
/// of copies as long, the one a fork's rule keeps.
fn best_copy<'a>(
    files: &'a [AuditFileReport],
    forks: &[ForkReport],
) -> Option<&'a AuditFileReport> {
    let longest = files.iter().filter(|f| f.valid).map(|f| f.entries).max()?;
    let candidates = || {
        files
            .iter()
            .filter(move |f| f.valid && f.entries == longest)
    };
    candidates()
        .find(|f| forks.iter().any(|k| k.kept.as_ref() == Some(&f.file)))
        .or_else(|| candidates().next())
}

/// The game in one line: its verdict, game, short id, where it stands, and
/// its files (or, when invalid, the gravest fault's message).
pub fn line(g: &AuditGameReport) -> String {
    let verdict = if g.valid { "valid  " } else { "INVALID" };
    let game = g.game.as_deref().map_or("-".into(), inline);
    let id = g
        .game_id
        .as_deref()
        .map_or("-", |id| &id[..16.min(id.len())]);
    let head = format!("{verdict}  {game:<12}  {id:<16}  ");
    let copies = |with_entries: bool| {
        g.files
            .iter()
            .filter(|f| !g.damaged.contains(&f.file))
            .map(|f| {
                if with_entries && f.entries != g.entries {
                    format!("{} ({} entries)", inline(&f.file), f.entries)
                } else {
                    inline(&f.file).into_owned()
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    if g.valid {
        let best = best_copy(&g.files, &g.forks).and_then(|f| f.status.as_ref());
        let state = match (g.state, best) {
            (Some(GameState::InProgress), Some(s)) => format!(
                "in progress, {} entries, waiting for {} to {}",
                g.entries,
                inline(s.to_act_name.as_deref().unwrap_or("nobody")),
                s.action.as_str()
            ),
            (Some(state), _) => format!("{} after {} entries", state.as_str(), g.entries),
            (None, _) => format!("{} entries", g.entries),
        };
        let resolved = g
            .forks
            .iter()
            .filter_map(|f| f.resolution.as_ref().map(|r| (f.entry, r)))
            .map(|(e, r)| format!(" (copies differ from entry {e}, resolved by rule: {r})"))
            .collect::<String>();
        return format!(
            "{head}{state}: {}{resolved}{}",
            copies(g.files.len() > 1),
            damaged_text(g)
        );
    }
    let fault = g.fault.expect("an invalid game has a fault");
    let message = if fault == Fault::Fork {
        g.forks
            .iter()
            .find(|f| f.resolution.is_none())
            .map(|f| f.message.clone())
    } else {
        g.files
            .iter()
            .filter_map(|f| f.fault.as_ref())
            .filter(|f| f.fault == fault)
            .map(|f| f.message.clone())
            .next()
    };
    let mut text = format!("{head}{}: {}", fault.name(), message.unwrap_or_default());
    text.push_str(&damaged_text(g));
    if g.files.len() > 1 {
        // Which copy is sound and which is not, since the message names
        // only the gravest fault.
        let each: Vec<String> = g
            .files
            .iter()
            .map(|f| match &f.fault {
                None => format!("{} valid ({} entries)", inline(&f.file), f.entries),
                Some(x) => format!(
                    "{} {} at entry {}",
                    inline(&f.file),
                    x.fault.name(),
                    x.entry
                ),
            })
            .collect();
        text.push_str(&format!(" [copies: {}]", each.join("; ")));
    }
    text
}

/// The damaged copies of a game with a sound one, after its line: how
/// many, and each with its first fault.
fn damaged_text(g: &AuditGameReport) -> String {
    if g.damaged.is_empty() {
        return String::new();
    }
    let each: Vec<String> = g
        .files
        .iter()
        .filter(|f| g.damaged.contains(&f.file))
        .filter_map(|f| {
            f.fault.as_ref().map(|x| {
                format!(
                    "{} ({} at entry {})",
                    inline(&f.file),
                    x.fault.name(),
                    x.entry
                )
            })
        })
        .collect();
    format!(
        "; {}: {}",
        crate::text::count(g.damaged.len(), "damaged copy", "damaged copies"),
        each.join(", ")
    )
}

/// The rest of the story of one game, for an audit of a single game:
/// standings, how it ended or whom it waits for, countersignatures, every
/// copy's fault and every fork not in its line.
fn detail(g: &AuditGameReport) -> String {
    let mut text = String::new();
    if g.valid {
        text.push_str(&format!(
            "  Every signature, link, commitment, draw and rule of its {} entries checked.\n",
            g.entries
        ));
    }
    // The line above showed the gravest fault; with several copies, each
    // copy's own, in full.
    if g.files.len() > 1 {
        for f in &g.files {
            if let Some(fault) = &f.fault {
                // A damaged copy beside a sound one does not make the game
                // invalid; it is only worth replacing.
                let tag = if g.damaged.contains(&f.file) {
                    "DAMAGED COPY"
                } else {
                    "INVALID"
                };
                text.push_str(&format!("  {tag} {}\n", fault.message));
            }
        }
    }
    let shown = g.forks.iter().position(|f| f.resolution.is_none());
    for (i, f) in g.forks.iter().enumerate() {
        if Some(i) == shown {
            continue;
        }
        let tag = if f.resolution.is_some() {
            "RESOLVED FORK"
        } else {
            "FORK"
        };
        text.push_str(&format!("  {tag} {}\n", f.message));
    }
    if let Some(f) = best_copy(&g.files, &g.forks) {
        match (&f.standings, &f.status) {
            (Some(s), Some(st)) => {
                text.push_str(&notes_text(st, "  "));
                text.push_str(&format!("  {}\n", ending_text(st)));
                text.push_str("  Final standings:\n");
                text.push_str(&standings_text(s));
            }
            (_, Some(st)) => {
                text.push_str(&notes_text(st, "  "));
                let status = format!("The game is still in progress. {}", status_text(st));
                for l in status.lines() {
                    text.push_str(&format!("  {l}\n"));
                }
            }
            _ => text.push_str("  The game is still in progress.\n"),
        }
        if !f.countersigned.is_empty() {
            text.push_str(&format!(
                "  Countersigned by seat(s) {}.\n",
                f.countersigned
                    .iter()
                    .map(|s| s.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    text
}

/// The last line for many games: how many, how they stand, faults by class.
pub fn summary(games: &[AuditGameReport]) -> String {
    let logs: usize = games.iter().map(|g| g.files.len()).sum();
    let valid: Vec<&AuditGameReport> = games.iter().filter(|g| g.valid).collect();
    let mut states: BTreeMap<GameState, usize> = BTreeMap::new();
    for g in &valid {
        *states
            .entry(g.state.unwrap_or(GameState::InProgress))
            .or_default() += 1;
    }
    let mut faults: BTreeMap<usize, (Fault, usize)> = BTreeMap::new();
    for f in games.iter().filter_map(|g| g.fault) {
        faults.entry(usize::MAX - f.severity()).or_insert((f, 0)).1 += 1;
    }
    let count = crate::text::count;
    let mut s = format!(
        "{} in {}: {} valid",
        count(games.len(), "game", "games"),
        count(logs, "log", "logs"),
        valid.len()
    );
    if !states.is_empty() {
        let parts: Vec<String> = states
            .iter()
            .map(|(state, n)| format!("{n} {}", state.as_str()))
            .collect();
        s.push_str(&format!(" ({})", parts.join(", ")));
    }
    let invalid = games.len() - valid.len();
    if invalid > 0 {
        let parts: Vec<String> = faults
            .values()
            .map(|(f, n)| format!("{n} {}", f.name()))
            .collect();
        s.push_str(&format!(", {invalid} invalid ({})", parts.join(", ")));
    }
    // Damaged copies of valid games apart: each such game is counted
    // valid above, and each copy is worth replacing from a sound one.
    let damaged: Vec<&AuditFileReport> = valid
        .iter()
        .flat_map(|g| g.files.iter().filter(|f| g.damaged.contains(&f.file)))
        .collect();
    if !damaged.is_empty() {
        let mut by_fault: BTreeMap<usize, (Fault, usize)> = BTreeMap::new();
        for f in damaged.iter().filter_map(|f| f.fault.as_ref()) {
            by_fault
                .entry(usize::MAX - f.fault.severity())
                .or_insert((f.fault, 0))
                .1 += 1;
        }
        let parts: Vec<String> = by_fault
            .values()
            .map(|(f, n)| format!("{n} {}", f.name()))
            .collect();
        s.push_str(&format!(
            "; {} of valid games ({})",
            count(damaged.len(), "damaged copy", "damaged copies"),
            parts.join(", ")
        ));
    }
    s.push('.');
    s
}

/// A path as the text shows it: every line break or control character in
/// a file name escaped, so that a name cannot forge a line of the report.
fn shown(path: &Path) -> String {
    inline(&path.to_string_lossy()).into_owned()
}

/// Audits one file; never fails, the fault is in the report.
pub fn audit_file(path: &Path) -> AuditFileReport {
    audit_file_into(path, None).0
}

/// [`audit_file`], adding the ids of the entries that verified to `trie`:
/// also the node of the last of them, and, for a damaged copy, the signed
/// entries after its damage.
fn audit_file_into(
    path: &Path,
    trie: Option<&std::sync::Mutex<Trie>>,
) -> (AuditFileReport, Option<usize>, Vec<Salvaged>) {
    let mut tip = None;
    let mut salvaged = Vec::new();
    let mut rep = AuditFileReport {
        file: path.to_string_lossy().into_owned(),
        valid: false,
        game: None,
        game_id: None,
        entries: 0,
        fault: None,
        over: false,
        ending: None,
        standings: None,
        countersigned: Vec::new(),
        status: None,
        digest: None,
    };
    let to_fault = |f: &LogFault| FaultReport {
        entry: f.entry,
        line: f.entry.saturating_add(1),
        fault: f.fault,
        code: f.fault.exit_code(),
        author: f.author.clone(),
        message: format!("{}: {f}", shown(path)),
    };
    let bytes = match file::read(path) {
        Ok(b) => b,
        Err(e) => {
            rep.fault = Some(FaultReport {
                entry: 0,
                line: 0,
                fault: Fault::Unreadable,
                code: Fault::Unreadable.exit_code(),
                author: None,
                message: inline(&e.to_string()).into_owned(),
            });
            return (rep, tip, salvaged);
        }
    };
    rep.digest = Some(crate::crypto::sha256(&bytes));
    let genesis = match read_genesis(&bytes) {
        Ok((g, _)) => g,
        Err(f) => {
            rep.fault = Some(to_fault(&f));
            // A copy whose first line is damaged is still a copy of the game
            // its next entries name: a damaged copy of it, not a game apart.
            rep.game_id = game_named_in(&bytes);
            return (rep, tip, salvaged);
        }
    };
    rep.game = Some(crate::text::excerpt(&genesis.game));
    let res: Result<()> = with_game!(genesis.game.as_str(), G => {
        // Replay entry by entry so that the report can say how far it got;
        // a fault that ends the lines (a cut-off last line) comes after them.
        let (lines, end) = crate::log::replay::lines(&bytes);
        match Replay::<G>::from_genesis(lines[0]) {
            Err(f) => rep.fault = Some(to_fault(&f)),
            Ok(mut r) => {
                rep.game_id = Some(hex::encode(r.game_id));
                let mut failed = None;
                // Signatures verified ahead on the pool's other threads.
                crate::log::verify::ahead(&lines, 0, |ahead| {
                    for (i, l) in lines.iter().enumerate().skip(1) {
                        let full = crate::log::replay::Check::Full;
                        if let Err(f) = r.apply_line_ahead(i as u64, l, full, ahead) {
                            failed = Some(f);
                            break;
                        }
                    }
                });
                if let Some(f) = &failed {
                    salvaged = salvage(&r, &bytes, f.entry);
                }
                let failed = failed.or(end);
                rep.entries = r.len();
                if let Some(t) = trie {
                    let mut t = t.lock().unwrap_or_else(|e| e.into_inner());
                    tip = t.insert(r.entries.iter().map(|e| (e.id, e.author as u32)));
                }
                match failed {
                    Some(f) => rep.fault = Some(to_fault(&f)),
                    None => {
                        rep.valid = true;
                        rep.over = r.is_over();
                        if let Some(e) = r.ending() {
                            rep.ending = Some(e.into());
                            rep.standings = Some(standings_of(&r));
                        }
                        rep.status = Some(status_of(&r));
                        rep.countersigned = r.countersigned.iter().map(|s| *s as u32).collect();
                    }
                }
            }
        }
        Ok(())
    });
    if let Err(e) = res {
        rep.fault = Some(FaultReport {
            entry: 0,
            line: 1,
            fault: Fault::UnknownVersion,
            code: Fault::UnknownVersion.exit_code(),
            author: None,
            message: format!("{}: entry 0 (line 1): unknown version: {e}", shown(path)),
        });
    }
    (rep, tip, salvaged)
}

/// The game id the entries after a damaged first line name: that of the
/// first line that reads as an entry of a game (hex, 64 digits).
fn game_named_in(bytes: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Named {
        body: NamedBody,
    }
    #[derive(serde::Deserialize)]
    struct NamedBody {
        game: String,
    }
    bytes
        .split(|&b| b == b'\n')
        .skip(1)
        .filter(|l| l.len() <= crate::log::replay::MAX_LINE_BYTES)
        .find_map(|l| serde_json::from_slice::<Named>(l).ok())
        .map(|n| n.body.game)
        .filter(|g| g.len() == 64 && g.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
}

/// The entries of a copy from its first fault (entry `from`) on that still
/// prove something: each line that is on its own a well-formed, canonical
/// entry of this game, signed by the key its author joined with — in the
/// verified part, or in a join after the damage that another copy verified
/// ([`Salvaged::key_from`]; docs/protocol.md, section 7, forks). Nothing
/// else of theirs is judged: they do not extend the game, they only show
/// what their signers signed. Costs a parse and a signature per line,
/// bounded by the file's bytes.
fn salvage<G: crate::games::Game>(r: &Replay<G>, bytes: &[u8], from: u64) -> Vec<Salvaged> {
    use crate::log::replay::Data;
    let mut found = Vec::new();
    let Ok(from) = usize::try_from(from) else {
        return found;
    };
    let mut keys: Vec<Option<([u8; 32], Option<crate::crypto::Hash>)>> =
        r.seats.iter().map(|s| s.key.map(|k| (k, None))).collect();
    let mut pieces = bytes
        .split(|&b| b == b'\n')
        .enumerate()
        .skip(from)
        .peekable();
    while let Some((i, line)) = pieces.next() {
        // The last piece lacks its newline: a cut line, not an entry.
        if pieces.peek().is_none() {
            break;
        }
        if line.len() < crate::log::replay::SHORTEST_LINE_BYTES {
            continue;
        }
        let Ok(p) = crate::log::replay::parse_line(i as u64, line) else {
            continue;
        };
        let body = &p.line.body;
        let (Some(game), Some(prev)) = (body.game, body.prev) else {
            continue;
        };
        let author = body.author as usize;
        if game.0 != r.game_id || author >= keys.len() {
            continue;
        }
        if let Data::Join(j) = &p.data {
            if keys[author].is_none() && crate::log::verify::signed_by(&p, &j.key.0) {
                keys[author] = Some((j.key.0, Some(p.id)));
            }
            continue;
        }
        let Some((key, key_from)) = keys[author] else {
            continue;
        };
        if crate::log::verify::signed_by(&p, &key) {
            found.push(Salvaged {
                n: body.n,
                prev: prev.0,
                id: p.id,
                author: body.author,
                key_from,
            });
        }
    }
    found
}

/// How far an audit of many logs has got, as a bar on standard error once it
/// has taken over a second, and only when standard error is a terminal
/// (never in a pipe or a file).
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    start: Instant,
    shown: std::sync::Once,
    faults: AtomicUsize,
}

impl Progress {
    const DELAY: Duration = Duration::from_secs(1);

    fn new(total: usize) -> Progress {
        use std::io::IsTerminal;
        let bar = (total > 1 && std::io::stderr().is_terminal()).then(|| {
            let bar = indicatif::ProgressBar::with_draw_target(
                Some(total as u64),
                indicatif::ProgressDrawTarget::hidden(),
            );
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{bar:30} {pos}/{len} logs checked, {msg}, about {eta} left",
                )
                .expect("a valid template"),
            );
            bar.set_message("no faults");
            bar
        });
        Progress {
            bar,
            start: Instant::now(),
            shown: std::sync::Once::new(),
            faults: AtomicUsize::new(0),
        }
    }

    fn done(&self, fault: bool) {
        let Some(bar) = &self.bar else { return };
        if fault {
            let n = self.faults.fetch_add(1, Ordering::Relaxed) + 1;
            bar.set_message(crate::text::count(n, "fault", "faults"));
        }
        bar.inc(1);
        if self.start.elapsed() > Self::DELAY {
            self.shown
                .call_once(|| bar.set_draw_target(indicatif::ProgressDrawTarget::stderr()));
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// The forks among the copies of one game. Copies are compared by their
/// entries' ids in the [`Trie`], not their bytes: each place where the
/// copies' entries branch is a fork, found once however many copies pass
/// it. At each, the branches are judged against the first (in file order),
/// by the rules that resolve a fork (read again, to name
/// the entries, and used only if the file still holds the bytes audited);
/// the rest are reported once per position and signer, with the number of
/// copies. So the work and the report grow with the copies, never with
/// their pairs. Then the signed entries after each damaged copy's damage
/// ([`salvage`]): two different ones for one position and signer, here or
/// beside a verified entry, are proof of a fork too.
fn find_forks(copies: &[Audited], trie: &Trie) -> Vec<ForkReport> {
    let Held {
        through,
        children,
        under,
    } = held(copies, trie);
    let reread = |c: &Audited| {
        file::read(&c.path)
            .ok()
            .filter(|b| Some(crate::crypto::sha256(b)) == c.report.digest)
    };
    let seats = copies
        .iter()
        .filter(|c| c.tip.is_some())
        .find_map(|c| reread(c).and_then(|b| read_genesis(&b).ok()))
        .map(|(g, _)| g.seats)
        .unwrap_or_default();
    let label = |seat: Option<u32>| match seat.and_then(|s| seats.get(s as usize).map(|x| (s, x))) {
        Some((s, x)) => format!("seat {s}, {} <{}>", inline(&x.name), inline(&x.email)),
        None => "unknown".into(),
    };
    let file_of = |node: usize| copies[through[&node]].report.file.clone();
    let mut forks = Vec::new();
    for kids in children.values().filter(|k| k.len() > 1) {
        let mut kids: Vec<usize> = kids.iter().copied().collect();
        // In the order of the files that hold them.
        kids.sort_by_key(|n| through[n]);
        let k = trie.nodes[kids[0]].depth;
        let reference = kids[0];
        let Some(log_a) = reread(&copies[through[&reference]]) else {
            continue;
        };
        // The complete lines, as far as they go: a copy with a bad last
        // line still forks where its verified part differs.
        let la = crate::log::replay::lines(&log_a).0;
        let mut unresolved = vec![reference];
        for &kid in &kids[1..] {
            let Some(log_b) = reread(&copies[through[&kid]]) else {
                continue;
            };
            let lb = crate::log::replay::lines(&log_b).0;
            if k >= la.len() || k >= lb.len() || la[k] == lb[k] {
                // Not the bytes whose ids the trie holds: not compared.
                continue;
            }
            let Some((w, why)) = crate::log::fork::resolve(&la, &lb, k) else {
                unresolved.push(kid);
                continue;
            };
            let (a, b) = (file_of(reference), file_of(kid));
            let (fa, fb) = (shown(Path::new(&a)), shown(Path::new(&b)));
            let silent = label(Some(
                trie.nodes[if w == 0 { reference } else { kid }].author,
            ));
            let message = resolved_message(why, [&fa, &fb], k, w, &silent);
            forks.push(ForkReport {
                files: [a.clone(), b.clone()],
                entry: k as u64,
                authors: [
                    label(Some(trie.nodes[reference].author)),
                    label(Some(trie.nodes[kid].author)),
                ],
                same_author: false,
                resolution: Some(why.as_str().into()),
                kept: Some(if w == 0 { a } else { b }),
                copies: (under[&reference] + under[&kid]) as u64,
                entries: 2,
                message,
            });
        }
        if unresolved.len() < 2 {
            continue;
        }
        // Once per signer who signed several of these entries, and once
        // for the position when they are by several signers.
        let mut by_author: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        for &n in &unresolved {
            by_author.entry(trie.nodes[n].author).or_default().push(n);
        }
        let mut report = |pair: [usize; 2], nodes: &[usize], same_author: bool| {
            let files = pair.map(file_of);
            let authors = pair.map(|n| label(Some(trie.nodes[n].author)));
            let count: usize = nodes.iter().map(|n| under[n]).sum();
            let message = fork_message(&files, &authors, k, count, nodes.len(), same_author);
            forks.push(ForkReport {
                files,
                entry: k as u64,
                authors,
                same_author,
                resolution: None,
                kept: None,
                copies: count as u64,
                entries: nodes.len() as u64,
                message,
            });
        };
        for nodes in by_author.values().filter(|n| n.len() > 1) {
            report([nodes[0], nodes[1]], nodes, true);
        }
        if by_author.len() > 1 {
            let mut heads = by_author.values().map(|n| n[0]);
            let pair = [heads.next().expect("two"), heads.next().expect("two")];
            report(pair, &unresolved, false);
        }
    }
    forks.extend(salvaged_forks(
        copies, trie, &through, &children, &forks, &label,
    ));
    forks
}

/// The part of the trie a game's copies hold: a copy through each node
/// (the first, in file order), each node's children, and how many copies
/// pass each node.
struct Held {
    through: std::collections::HashMap<usize, usize>,
    children: BTreeMap<usize, std::collections::BTreeSet<usize>>,
    under: std::collections::HashMap<usize, usize>,
}

fn held(copies: &[Audited], trie: &Trie) -> Held {
    use std::collections::{BTreeSet, HashMap};
    let mut digests = HashSet::new();
    let first: Vec<bool> = copies
        .iter()
        .map(|c| c.report.digest.is_some_and(|d| digests.insert(d)))
        .collect();
    let mut through: HashMap<usize, usize> = HashMap::new();
    let mut children: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
    let mut under: HashMap<usize, usize> = HashMap::new();
    for (i, c) in copies.iter().enumerate() {
        let Some(tip) = c.tip else { continue };
        *under.entry(tip).or_default() += 1;
        if !first[i] {
            continue;
        }
        let mut n = tip;
        while let std::collections::hash_map::Entry::Vacant(v) = through.entry(n) {
            v.insert(i);
            let parent = trie.parent(n);
            children.entry(parent).or_default().insert(n);
            if parent == Trie::ROOT {
                break;
            }
            n = parent;
        }
    }
    let mut deepest_first: Vec<usize> = through.keys().copied().collect();
    deepest_first.sort_by_key(|&n| std::cmp::Reverse(trie.nodes[n].depth));
    for n in deepest_first {
        let parent = trie.parent(n);
        let here = under.get(&n).copied().unwrap_or(0);
        if parent != Trie::ROOT {
            *under.entry(parent).or_default() += here;
        }
    }
    Held {
        through,
        children,
        under,
    }
}

/// The words of a fork the protocol's rules resolve: `w` is the winner's
/// index in `names`, `silent` the player the claims named.
fn resolved_message(
    why: crate::log::fork::Resolution,
    names: [&String; 2],
    k: usize,
    w: usize,
    silent: &str,
) -> String {
    let [fa, fb] = names;
    match why {
        crate::log::fork::Resolution::ClaimLapsed => format!(
            "{fa} and {fb} are copies of the same game that differ from entry {k} on: {} \
             holds claims that {silent} stopped answering, {} holds that player's awaited \
             entry. The entry wins and the claims lapse; the game goes on as in {}. \
             Nobody cheated.",
            names[1 - w],
            names[w],
            names[w]
        ),
        crate::log::fork::Resolution::Claims => format!(
            "{fa} and {fb} are copies of the same game that differ from entry {k} on only \
             in abandonment claims written at the same time. Either order is valid; by \
             the protocol's rule the copy whose entry {k} has the smaller id, {}, is \
             kept, and `starry ingest` re-applies the other claims on top.",
            names[w]
        ),
        crate::log::fork::Resolution::Countersignatures => format!(
            "{fa} and {fb} are copies of the same game that differ from entry {k} on only \
             in countersignatures written at the same time. Either order is valid; by \
             the protocol's rule the copy whose entry {k} has the smaller id, {}, is \
             kept, and `starry ingest` re-applies the other countersignatures on top.",
            names[w]
        ),
    }
}

/// A fork's words: which copies, where, how many different entries in how
/// many copies, and whether one signer signed them all.
fn fork_message(
    files: &[String; 2],
    authors: &[String; 2],
    k: usize,
    copies: usize,
    entries: usize,
    same_author: bool,
) -> String {
    let (fa, fb) = (shown(Path::new(&files[0])), shown(Path::new(&files[1])));
    if copies <= 2 {
        return format!(
            "{fa} and {fb} are copies of the same game that fork at entry {k} (line {}): entries 0 \
             to {} agree, then each holds a different valid entry ({} in the first, {} in the \
             second).{}",
            k + 1,
            k.saturating_sub(1),
            authors[0],
            authors[1],
            if same_author {
                format!(
                    " Both are signed by {}: proof that this player signed two different entries \
                     for one position.",
                    authors[0]
                )
            } else {
                String::new()
            }
        );
    }
    let who = if same_author {
        format!(
            ", all signed by {}: proof that this player signed {entries} different entries for \
             one position",
            authors[0]
        )
    } else {
        format!(", by several seats ({} and {}, …)", authors[0], authors[1])
    };
    format!(
        "{copies} copies of the same game fork at entry {k} (line {}): entries 0 to {} agree, \
         then they hold {entries} different valid entries{who}. Two of them: {fa} and {fb}.",
        k + 1,
        k.saturating_sub(1),
    )
}

/// The forks that the signed entries after damaged copies' damage prove:
/// two different entries for one position (the same entry before them)
/// signed by one seat, among those entries and the verified ones. Once per
/// position and signer; none already reported from the verified entries.
fn salvaged_forks(
    copies: &[Audited],
    trie: &Trie,
    through: &std::collections::HashMap<usize, usize>,
    children: &BTreeMap<usize, std::collections::BTreeSet<usize>>,
    known: &[ForkReport],
    label: &dyn Fn(Option<u32>) -> String,
) -> Vec<ForkReport> {
    use std::collections::{BTreeSet, HashMap};
    if copies.iter().all(|c| c.salvaged.is_empty()) {
        return Vec::new();
    }
    let node_of: HashMap<crate::crypto::Hash, usize> =
        through.keys().map(|&n| (trie.nodes[n].id, n)).collect();
    // By position, entry before and signer: the different entries, and a
    // copy holding each.
    type At = (u64, crate::crypto::Hash, u32);
    let mut seen: BTreeMap<At, BTreeMap<crate::crypto::Hash, (usize, bool)>> = BTreeMap::new();
    for (i, c) in copies.iter().enumerate() {
        // A key from a join after the damage counts only if a copy verified
        // that join.
        let trusted = |s: &&Salvaged| s.key_from.is_none_or(|j| node_of.contains_key(&j));
        for s in c.salvaged.iter().filter(trusted) {
            seen.entry((s.n, s.prev, s.author))
                .or_default()
                .entry(s.id)
                .or_insert((i, true));
        }
    }
    let mut forks = Vec::new();
    let mut reported: BTreeSet<(u64, u32)> = known
        .iter()
        .filter(|f| f.same_author)
        .filter_map(|f| {
            let seat = f.authors[0].strip_prefix("seat ")?.split(',').next()?;
            Some((f.entry, seat.parse().ok()?))
        })
        .collect();
    for ((n, prev, author), mut entries) in seen {
        if let Some(&p) = node_of.get(&prev)
            && trie.nodes[p].depth + 1 == n as usize
        {
            for &kid in children.get(&p).into_iter().flatten() {
                if trie.nodes[kid].author == author {
                    entries
                        .entry(trie.nodes[kid].id)
                        .or_insert((through[&kid], false));
                }
            }
        }
        if entries.len() < 2 || !reported.insert((n, author)) {
            continue;
        }
        // A verified entry first, when there is one.
        let mut holders: Vec<(usize, bool)> = entries.values().copied().collect();
        holders.sort_by_key(|&(i, salvaged)| (salvaged, i));
        let (a, b) = (holders[0].0, holders[1].0);
        let files = [copies[a].report.file.clone(), copies[b].report.file.clone()];
        let who = label(Some(author));
        let (fa, fb) = (shown(Path::new(&files[0])), shown(Path::new(&files[1])));
        let holding: BTreeSet<usize> = holders.iter().map(|h| h.0).collect();
        forks.push(ForkReport {
            files: files.clone(),
            entry: n,
            authors: [who.clone(), who.clone()],
            same_author: true,
            resolution: None,
            kept: None,
            copies: holding.len() as u64,
            entries: entries.len() as u64,
            message: format!(
                "{fa} and {fb} hold {} different entries {n} (line {}) that follow the same entry \
                 {}, all signed by {who}; some come after a copy's damage, but each is \
                 well-formed, of this game, and its signature verifies under the key that seat \
                 joined with: proof that this player signed different entries for one position.",
                entries.len(),
                n + 1,
                n.saturating_sub(1),
            ),
        });
    }
    forks
}

/// The entries of every copy audited, each distinct entry once: a trie of
/// entry ids (an id is the hash of the entry's line), so that copies of one
/// game share the nodes of the entries they have in common. A copy is the
/// node of its last verified entry; copies fork where a node has several
/// children ([`find_forks`]). However many copies a
/// game has, this holds a node per distinct entry (a few dozen bytes, not
/// the line), never a copy's bytes.
#[derive(Default)]
struct Trie {
    nodes: Vec<Node>,
    /// The node of each (parent, entry id); the parent of a first entry is
    /// [`Trie::ROOT`].
    index: std::collections::HashMap<(usize, crate::crypto::Hash), usize>,
}

/// An entry in the [`Trie`]: its parent and its depth (the entry's number).
#[derive(Clone, Copy, Debug)]
struct Node {
    parent: usize,
    depth: usize,
    /// The entry's id and its author's seat.
    id: crate::crypto::Hash,
    author: u32,
}

impl Trie {
    /// The parent of a first entry (no node).
    const ROOT: usize = usize::MAX;

    /// Adds a copy's entries, in order; the node of the last (none for no
    /// entry).
    fn insert(
        &mut self,
        entries: impl IntoIterator<Item = (crate::crypto::Hash, u32)>,
    ) -> Option<usize> {
        let mut at = Self::ROOT;
        for (id, author) in entries {
            at = match self.index.get(&(at, id)) {
                Some(&n) => n,
                None => {
                    let n = self.nodes.len();
                    let node = if at == Self::ROOT {
                        Node {
                            parent: n,
                            depth: 0,
                            id,
                            author,
                        }
                    } else {
                        Node {
                            parent: at,
                            depth: self.nodes[at].depth + 1,
                            id,
                            author,
                        }
                    };
                    self.nodes.push(node);
                    self.index.insert((at, id), n);
                    n
                }
            };
        }
        (at != Self::ROOT).then_some(at)
    }

    /// The parent of node `n`; [`Trie::ROOT`] for a first entry.
    fn parent(&self, n: usize) -> usize {
        match self.nodes[n] {
            Node { depth: 0, .. } => Self::ROOT,
            node => node.parent,
        }
    }

    /// The ancestor of node `n` at `depth` (at most its own).
    #[cfg(test)]
    fn ancestor(&self, mut n: usize, depth: usize) -> usize {
        while self.nodes[n].depth > depth {
            n = self.nodes[n].parent;
        }
        n
    }

    /// The first entry where copies ending at nodes `a` and `b` differ,
    /// within the part both hold; none when one is a prefix of the other.
    #[cfg(test)]
    fn first_difference(&self, a: usize, b: usize) -> Option<usize> {
        let common = self.nodes[a].depth.min(self.nodes[b].depth);
        (0..=common).find(|&d| self.ancestor(a, d) != self.ancestor(b, d))
    }

    /// Nodes held: one per distinct entry.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.nodes.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ids of a made-up game: entry `i` of branch `b`.
    fn ids(n: usize, fork_at: usize, branch: u8) -> Vec<(crate::crypto::Hash, u32)> {
        (0..n)
            .map(|i| {
                let mut id = [0u8; 32];
                id[..8].copy_from_slice(&(i as u64).to_le_bytes());
                if i >= fork_at {
                    id[8] = branch;
                }
                (id, 0)
            })
            .collect()
    }

    #[test]
    fn many_copies_of_one_game_hold_each_entry_once() {
        let mut t = Trie::default();
        let whole = ids(50, usize::MAX, 0);
        let tips: Vec<usize> = (0..200).map(|_| t.insert(whole.clone()).unwrap()).collect();
        // Two hundred copies of 50 entries: 50 nodes, not 10,000.
        assert_eq!(t.len(), 50);
        assert!(tips.iter().all(|&x| x == tips[0]));
        // Older copies (prefixes) add nothing and fork with nothing.
        let short = t.insert(whole[..30].to_vec()).unwrap();
        assert_eq!(t.len(), 50);
        assert_eq!(t.first_difference(short, tips[0]), None);
        assert_eq!(t.first_difference(tips[0], short), None);
        // A copy that forks at entry 30 adds only its own 20 entries.
        let other = t.insert(ids(50, 30, 1)).unwrap();
        assert_eq!(t.len(), 70);
        assert_eq!(t.first_difference(tips[0], other), Some(30));
        assert_eq!(t.first_difference(other, short), None);
        // Another game shares nothing.
        let mut foreign = ids(10, 0, 2);
        foreign[0].0[9] = 1;
        let f = t.insert(foreign).unwrap();
        assert_eq!(t.len(), 80);
        assert_eq!(t.first_difference(f, tips[0]), Some(0));
        assert_eq!(t.insert(Vec::new()), None);
    }

    #[test]
    fn the_first_difference_is_found_at_every_depth() {
        let n = 300;
        let mut t = Trie::default();
        let base = t.insert(ids(n, usize::MAX, 0)).unwrap();
        for k in 1..n {
            let fork = t.insert(ids(n, k, 1 + (k % 250) as u8)).unwrap();
            assert_eq!(t.first_difference(base, fork), Some(k), "fork at {k}");
            let shorter = t.insert(ids(k + 1, k, 1 + (k % 250) as u8)).unwrap();
            assert_eq!(t.first_difference(shorter, base), Some(k));
            assert_eq!(t.first_difference(shorter, fork), None);
            for d in [0, k / 2, k] {
                assert_eq!(t.nodes[t.ancestor(fork, d)].depth, d);
            }
        }
    }
}
