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
use crate::cli::AuditArgs;
use crate::error::{Error, Fault, LogFault, Result};
use crate::log::Replay;
use crate::log::file;
use crate::log::replay::read_genesis;
use crate::text::inline;
use crate::with_game;

/// `starry audit`.
pub fn run(a: &AuditArgs) -> Result<Output> {
    let files = find_logs(&a.paths)?;
    // Threads beyond one per log are not idle: they verify the signatures
    // of a log ahead of its replay (log::verify), so one game audits on
    // every thread too. Files read at once stay at most one per log.
    let jobs = a.jobs.map_or(0, usize::from);
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
                let (r, tip) = audit_file_into(f, Some(&trie));
                progress.done(r.fault.is_some());
                Audited {
                    path: f.clone(),
                    report: r,
                    tip,
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
    let forks = if copies.len() > 1 {
        find_forks(&copies, trie)
    } else {
        Vec::new()
    };
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
/// also the node of the last of them.
fn audit_file_into(
    path: &Path,
    trie: Option<&std::sync::Mutex<Trie>>,
) -> (AuditFileReport, Option<usize>) {
    let mut tip = None;
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
            return (rep, tip);
        }
    };
    rep.digest = Some(crate::crypto::sha256(&bytes));
    let genesis = match read_genesis(&bytes) {
        Ok((g, _)) => g,
        Err(f) => {
            rep.fault = Some(to_fault(&f));
            return (rep, tip);
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
                let failed = failed.or(end);
                rep.entries = r.len();
                if let Some(t) = trie {
                    let mut t = t.lock().unwrap_or_else(|e| e.into_inner());
                    tip = t.insert(r.entries.iter().map(|e| e.id));
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
    (rep, tip)
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

/// Compares every two copies of one game: the first entry where they
/// differ, within the part both verified, is a fork. Copies are compared by
/// their entries' ids in the [`Trie`], not their bytes; only a pair that
/// differs is read again, to name the entries and apply the rules that
/// resolve a fork, and used only if it still holds the bytes audited (a file
/// changed meanwhile is not compared). Copies with the same bytes are
/// compared once.
fn find_forks(copies: &[Audited], trie: &Trie) -> Vec<ForkReport> {
    let mut digests = HashSet::new();
    let first: Vec<bool> = copies
        .iter()
        .map(|c| c.report.digest.is_some_and(|d| digests.insert(d)))
        .collect();
    // A copy as audited, read again; the one of the outer loop is kept
    // while it is compared with the others, so that at most two are held.
    let reread = |c: &Audited| {
        file::read(&c.path)
            .ok()
            .filter(|b| Some(crate::crypto::sha256(b)) == c.report.digest)
    };
    let mut forks = Vec::new();
    for i in 0..copies.len() {
        let mut held: Option<Option<Vec<u8>>> = None;
        for j in i + 1..copies.len() {
            let (a, b) = (&copies[i].report, &copies[j].report);
            let (true, true, Some(ta), Some(tb)) =
                (first[i], first[j], copies[i].tip, copies[j].tip)
            else {
                continue;
            };
            let Some(k) = trie.first_difference(ta, tb) else {
                continue;
            };
            let log_a = held.get_or_insert_with(|| reread(&copies[i]));
            let (Some(log_a), Some(log_b)) = (log_a.as_deref(), reread(&copies[j])) else {
                continue;
            };
            // The complete lines, as far as they go: a copy with a bad last
            // line still forks where its verified part differs.
            let la = crate::log::replay::lines(log_a).0;
            let lb = crate::log::replay::lines(&log_b).0;
            if k >= la.len() || k >= lb.len() || la[k] == lb[k] {
                // Not the bytes whose ids the trie holds: not compared.
                continue;
            }
            let author = |line: &[u8]| {
                crate::log::replay::parse_line(k as u64, line)
                    .map(|p| p.line.body.author)
                    .ok()
            };
            let seats = read_genesis(log_a)
                .ok()
                .map(|(g, _)| g.seats)
                .unwrap_or_default();
            let label = |seat: Option<u32>| match seat
                .and_then(|s| seats.get(s as usize).map(|x| (s, x)))
            {
                Some((s, x)) => {
                    format!("seat {s}, {} <{}>", inline(&x.name), inline(&x.email))
                }
                None => "unknown".into(),
            };
            let (sa, sb) = (author(la[k]), author(lb[k]));
            let (fa, fb) = (shown(Path::new(&a.file)), shown(Path::new(&b.file)));
            let names = [&fa, &fb];
            if let Some((w, why)) = crate::log::fork::resolve(&la, &lb, k) {
                let message = match why {
                    crate::log::fork::Resolution::ClaimLapsed => format!(
                        "{} and {} are copies of the same game that differ from entry {k} on: {} \
                         holds claims that {} stopped answering, {} holds that player's awaited \
                         entry. The entry wins and the claims lapse; the game goes on as in {}. \
                         Nobody cheated.",
                        fa,
                        fb,
                        names[1 - w],
                        label(if w == 0 { sa } else { sb }),
                        names[w],
                        names[w]
                    ),
                    crate::log::fork::Resolution::Claims => format!(
                        "{} and {} are copies of the same game that differ from entry {k} on only \
                         in abandonment claims written at the same time. Either order is valid; by \
                         the protocol's rule the copy whose entry {k} has the smaller id, {}, is \
                         kept, and `starry ingest` re-applies the other claims on top.",
                        fa, fb, names[w]
                    ),
                    crate::log::fork::Resolution::Countersignatures => format!(
                        "{} and {} are copies of the same game that differ from entry {k} on only \
                         in countersignatures written at the same time. Either order is valid; by \
                         the protocol's rule the copy whose entry {k} has the smaller id, {}, is \
                         kept, and `starry ingest` re-applies the other countersignatures on top.",
                        fa, fb, names[w]
                    ),
                };
                forks.push(ForkReport {
                    files: [a.file.clone(), b.file.clone()],
                    entry: k as u64,
                    authors: [label(sa), label(sb)],
                    same_author: false,
                    resolution: Some(why.as_str().into()),
                    kept: Some(if w == 0 { &a.file } else { &b.file }.clone()),
                    message,
                });
                continue;
            }
            let same_author = sa.is_some() && sa == sb;
            let message = format!(
                "{} and {} are copies of the same game that fork at entry {k} (line {}): entries 0 to {} \
                 agree, then each holds a different valid entry ({} in the first, {} in the second).{}",
                fa,
                fb,
                k + 1,
                k.saturating_sub(1),
                label(sa),
                label(sb),
                if same_author {
                    format!(
                        " Both are signed by {}: proof that this player signed two different entries for one position.",
                        label(sa)
                    )
                } else {
                    String::new()
                }
            );
            forks.push(ForkReport {
                files: [a.file.clone(), b.file.clone()],
                entry: k as u64,
                authors: [label(sa), label(sb)],
                same_author,
                resolution: None,
                kept: None,
                message,
            });
        }
    }
    forks
}

/// The entries of every copy audited, each distinct entry once: a trie of
/// entry ids (an id is the hash of the entry's line), so that copies of one
/// game share the nodes of the entries they have in common. A copy is the
/// node of its last verified entry; two copies differ first at the
/// shallowest depth where their ancestors differ. However many copies a
/// game has, this holds a node per distinct entry (a few dozen bytes, not
/// the line), never a copy's bytes.
#[derive(Default)]
struct Trie {
    nodes: Vec<Node>,
    /// The node of each (parent, entry id); the parent of a first entry is
    /// [`Trie::ROOT`].
    index: std::collections::HashMap<(usize, crate::crypto::Hash), usize>,
}

/// An entry in the [`Trie`]: its parent, its depth (the entry's number) and
/// a jump pointer (Myers's skew-binary scheme), by which the ancestor at any
/// depth is found in a logarithmic number of steps.
#[derive(Clone, Copy, Debug)]
struct Node {
    parent: usize,
    jump: usize,
    depth: usize,
}

impl Trie {
    /// The parent of a first entry (no node).
    const ROOT: usize = usize::MAX;

    /// Adds a copy's entries, in order; the node of the last (none for no
    /// entry).
    fn insert(&mut self, ids: impl IntoIterator<Item = crate::crypto::Hash>) -> Option<usize> {
        let mut at = Self::ROOT;
        for id in ids {
            at = match self.index.get(&(at, id)) {
                Some(&n) => n,
                None => {
                    let n = self.nodes.len();
                    let node = if at == Self::ROOT {
                        Node {
                            parent: n,
                            jump: n,
                            depth: 0,
                        }
                    } else {
                        let p = self.nodes[at];
                        let j = self.nodes[p.jump];
                        let jj = self.nodes[j.jump];
                        Node {
                            parent: at,
                            jump: if p.depth - j.depth == j.depth - jj.depth {
                                j.jump
                            } else {
                                at
                            },
                            depth: p.depth + 1,
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

    /// The ancestor of node `n` at `depth` (at most its own).
    fn ancestor(&self, mut n: usize, depth: usize) -> usize {
        while self.nodes[n].depth > depth {
            let jump = self.nodes[n].jump;
            n = if self.nodes[jump].depth >= depth {
                jump
            } else {
                self.nodes[n].parent
            };
        }
        n
    }

    /// The first entry where copies ending at nodes `a` and `b` differ,
    /// within the part both hold; none when one is a prefix of the other.
    fn first_difference(&self, a: usize, b: usize) -> Option<usize> {
        let common = self.nodes[a].depth.min(self.nodes[b].depth);
        if self.ancestor(a, common) == self.ancestor(b, common) {
            return None;
        }
        if self.ancestor(a, 0) != self.ancestor(b, 0) {
            return Some(0);
        }
        // Entries agree up to some depth and differ from there on: the
        // first where they differ, by bisection (`same` agree, `differ`
        // does not).
        let (mut same, mut differ) = (0, common);
        while differ - same > 1 {
            let mid = same + (differ - same) / 2;
            if self.ancestor(a, mid) == self.ancestor(b, mid) {
                same = mid;
            } else {
                differ = mid;
            }
        }
        Some(differ)
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
    fn ids(n: usize, fork_at: usize, branch: u8) -> Vec<crate::crypto::Hash> {
        (0..n)
            .map(|i| {
                let mut id = [0u8; 32];
                id[..8].copy_from_slice(&(i as u64).to_le_bytes());
                if i >= fork_at {
                    id[8] = branch;
                }
                id
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
        foreign[0][9] = 1;
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
