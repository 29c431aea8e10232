//! Commands that only read: status, view, audit.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use super::history;
use super::report::*;
use super::{
    Output, ending_text, notes_text, seats_text, standings_of, standings_text, status_of,
    status_text,
};
use crate::cli::{Format, ViewArgs};
use crate::crypto::identity::{self, Identity, IdentityError};
use crate::error::{Error, LogFault, Result};
use crate::games::Game;
use crate::log::Replay;
use crate::log::file;
use crate::log::replay::read_genesis;
use crate::text::inline;
use crate::with_game;

fn open<T>(path: &Path, f: impl FnOnce(&[u8], &str) -> Result<T>) -> Result<T> {
    let bytes = file::read(path)?;
    let (g, _) = read_genesis(&bytes).map_err(|fault| Error::Log {
        path: path.into(),
        fault,
    })?;
    f(&bytes, &g.game)
}

/// `starry status`: where the game stands and, for a player, what
/// happened since their last entry.
pub fn status(path: &Path) -> Result<Output> {
    let id = viewer_identity().ok().flatten();
    open(path, |bytes, game| {
        with_game!(game, G => {
            let (r, events) = history::tell::<G>(bytes).map_err(|fault| Error::Log { path: path.into(), fault })?;
            let s = status_of(&r);
            let since = id
                .as_ref()
                .and_then(|i| r.seat_of_key(&i.public_key()))
                .map(|seat| history::since_text(history::since_last_entry_of(&events, seat), &path.display().to_string()))
                .unwrap_or_default();
            let text = format!("{} — game {} — {} entries\n{}{}{}{}", s.game, &s.game_id[..16], s.entries, notes_text(&s, ""), since, status_text(&s), seats_text(&s));
            Ok(Output::new(text, &s))
        })
    })
}

/// The viewer's identity if they have one and hold a seat; a missing identity
/// means a spectator, a corrupt one is an error (silently showing less would
/// hide the problem).
fn viewer_identity() -> Result<Option<Identity>> {
    let home = identity::home_dir()?;
    match Identity::load(&home) {
        Ok(id) => Ok(Some(id)),
        Err(IdentityError::Missing { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// `starry view`.
pub fn view(path: &Path, a: &ViewArgs) -> Result<Output> {
    let id = if a.spectator {
        None
    } else {
        viewer_identity()?
    };
    let to_stdout = a.out.as_ref().is_none_or(|f| f.as_os_str() == "-");
    if a.format == Format::Png && to_stdout && std::io::stdout().is_terminal() {
        return Err(Error::Usage(
            "a PNG is not for a terminal: add `--out FILE.png`, or redirect the output to a file"
                .into(),
        ));
    }
    let pic = open(
        path,
        |bytes, game| with_game!(game, G => view_game::<G>(path, bytes, a.at, id.as_ref())),
    )?;
    let Picture {
        mut out,
        svg,
        title,
        history,
    } = pic;
    let bytes = match a.format {
        Format::Text | Format::Json => return Ok(out),
        Format::Svg => svg.into_bytes(),
        Format::Png => crate::picture::png::render(&svg).map_err(Error::Other)?,
        Format::Html => crate::picture::html::page(&crate::picture::html::Page {
            title: &title,
            svg: &svg,
            text: &out.text,
            history: &history,
        })
        .into_bytes(),
    };
    let format = format!("{:?}", a.format).to_lowercase();
    out.json["format"] = format.clone().into();
    out.json["bytes"] = bytes.len().into();
    match a.out.as_ref().filter(|f| f.as_os_str() != "-") {
        Some(file) => {
            crate::log::file::write_output(file, &bytes)?;
            out.json["out"] = file.display().to_string().into();
            out.text = format!(
                "Wrote {} ({}, {} bytes): {title}.",
                file.display(),
                format.to_uppercase(),
                bytes.len()
            );
        }
        None => out.bytes = Some(bytes),
    }
    Ok(out)
}

/// A view with what the pictures need.
struct Picture {
    out: Output,
    svg: String,
    title: String,
    history: Vec<String>,
}

fn view_game<G: Game>(
    path: &Path,
    bytes: &[u8],
    at: Option<u64>,
    id: Option<&Identity>,
) -> Result<Picture> {
    let log_err = |fault| Error::Log {
        path: path.into(),
        fault,
    };
    let (full, mut events) = history::tell::<G>(bytes).map_err(log_err)?;
    let r = match at {
        None => full,
        Some(n) if n >= 1 && n <= full.len() => {
            events.truncate(n as usize);
            Replay::<G>::from_bytes_upto(bytes, n as usize).map_err(log_err)?
        }
        Some(n) => {
            return Err(Error::Usage(format!(
                "--at {n}: the log has {} entries; give a number from 1 to {}",
                full.len(),
                full.len()
            )));
        }
    };
    let seat = id.and_then(|i| r.seat_of_key(&i.public_key()));
    let status = status_of(&r);
    let title = format!(
        "{} — game {} — after {} — {}",
        history::title(G::NAME),
        &status.game_id[..16],
        crate::text::count(r.len(), "entry", "entries"),
        match seat {
            Some(s) => format!("{}'s view", r.name(s)),
            None => "spectator view".into(),
        }
    );
    let mut text = format!(
        "{} — game {} — after {}{}\n",
        status.game,
        &status.game_id[..16],
        crate::text::count(r.len(), "entry", "entries"),
        match seat {
            Some(s) => format!(" — your view, seat {}", s + 1),
            None => " — spectator view".into(),
        },
    );
    if let Some(s) = seat {
        text.push_str(&history::since_text(
            history::since_last_entry_of(&events, s),
            &path.display().to_string(),
        ));
    }
    text.push_str(&status_text(&status));
    let names = r.names();
    let (view, svg) = match &r.state {
        None => (None, waiting_picture(&title, &status)),
        Some(state) => {
            let v = match (seat, id) {
                (Some(s), Some(i)) => {
                    let secret = r.game_secret(i, s).expect("seat key matches");
                    let own = r.own_hidden(&secret, s).map_err(Error::Other)?;
                    // The player to act sees the random events their next
                    // entry will resolve: only their program can know them.
                    let preview = r
                        .expected()
                        .1
                        .filter(|&w| w == s)
                        .and_then(|_| r.next_link(&secret, s))
                        .and_then(|l| r.preview(s, &l));
                    G::view(preview.as_ref().unwrap_or(state), Some(s), Some(&own))
                }
                _ => G::view(state, None, None),
            };
            text.push('\n');
            text.push_str(&G::render_text(&v, &names));
            let svg = G::render_svg(&v, &names);
            (Some(v), svg)
        }
    };
    let report = ViewReport {
        game: status.game.clone(),
        game_id: status.game_id.clone(),
        at: r.len(),
        viewer: seat.map(|s| s as u32 + 1),
        status,
        view,
    };
    Ok(Picture {
        out: Output::new(text, &report),
        svg,
        title,
        history: events
            .iter()
            .map(|e| format!("{} — {}", history::short_time(&e.time), e.text))
            .collect(),
    })
}

/// Before the setup there is no board yet: the picture lists the seats and
/// says whom the game waits for.
fn waiting_picture(title: &str, s: &StatusReport) -> String {
    use crate::picture::{INK, Svg, seat_legend};
    let names: Vec<String> = s.seats.iter().map(|x| x.name.clone()).collect();
    let extra: Vec<String> = s
        .seats
        .iter()
        .map(|x| {
            if x.joined {
                " — joined".into()
            } else {
                " — not joined yet".into()
            }
        })
        .collect();
    let mut svg = Svg::new(560, 90 + 26 * names.len() as i32);
    svg.bold(20, 30, 16, "start", INK, &crate::picture::clip(title, 60));
    let y = seat_legend(&mut svg, 20, 64, 26, &names, &extra);
    let waiting = format!(
        "Waiting for {} to {}.",
        s.to_act_name.as_deref().unwrap_or("nobody"),
        s.action.as_str()
    );
    svg.text(20, y + 4, 13, "start", INK, &waiting);
    svg.finish(title, &waiting)
}

/// Audits one file; never fails, the fault is in the report.
pub fn audit_file(path: &Path) -> AuditFileReport {
    let mut rep = AuditFileReport {
        file: path.display().to_string(),
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
    };
    let to_fault = |f: &LogFault| FaultReport {
        entry: f.entry,
        line: f.entry + 1,
        fault: f.fault,
        code: f.fault.exit_code(),
        author: f.author.clone(),
        message: format!("{}: {f}", path.display()),
    };
    let bytes = match file::read(path) {
        Ok(b) => b,
        Err(e) => {
            rep.fault = Some(FaultReport {
                entry: 0,
                line: 0,
                fault: crate::error::Fault::Malformed,
                code: e.exit_code(),
                author: None,
                message: e.to_string(),
            });
            return rep;
        }
    };
    let genesis = match read_genesis(&bytes) {
        Ok((g, _)) => g,
        Err(f) => {
            rep.fault = Some(to_fault(&f));
            return rep;
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
                for (i, l) in lines.iter().enumerate().skip(1) {
                    if let Err(f) = r.apply_line(i as u64, l) {
                        failed = Some(f);
                        break;
                    }
                }
                let failed = failed.or(end);
                rep.entries = r.len();
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
                        rep.countersigned = r.countersigned.iter().map(|s| *s as u32 + 1).collect();
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
            fault: crate::error::Fault::UnknownVersion,
            code: crate::error::Fault::UnknownVersion.exit_code(),
            author: None,
            message: format!("{}: entry 0 (line 1): unknown version: {e}", path.display()),
        });
    }
    rep
}

/// `starry audit`.
pub fn audit(paths: &[PathBuf]) -> Result<Output> {
    let files: Vec<AuditFileReport> = paths.iter().map(|p| audit_file(p)).collect();
    let mut text = String::new();
    for f in &files {
        match &f.fault {
            None => {
                text.push_str(&format!(
                    "{}: valid — {} entries, every signature, link, commitment, draw and rule checked.\n",
                    f.file, f.entries
                ));
                match (&f.standings, &f.status) {
                    (Some(s), Some(st)) => {
                        text.push_str(&notes_text(st, "  "));
                        text.push_str(&format!("  {}\n", ending_text(st)));
                        text.push_str("  Final standings:\n");
                        text.push_str(&standings_text(s));
                    }
                    (_, Some(st)) => {
                        text.push_str(&notes_text(st, "  "));
                        text.push_str("  The game is still in progress. ");
                        text.push_str(&status_text(st));
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
            Some(fault) => text.push_str(&format!("INVALID {}\n", fault.message)),
        }
    }
    let forks = find_forks(paths, &files);
    for f in &forks {
        match f.resolution {
            None => text.push_str(&format!("FORK {}\n", f.message)),
            Some(_) => text.push_str(&format!("RESOLVED FORK {}\n", f.message)),
        }
    }
    let code = files
        .iter()
        .find_map(|f| f.fault.as_ref().map(|x| x.code))
        .or_else(|| {
            forks
                .iter()
                .any(|f| f.resolution.is_none())
                .then(|| crate::error::Fault::Fork.exit_code())
        })
        .unwrap_or(0);
    let report = AuditReport {
        valid: code == 0,
        files,
        forks,
    };
    let mut out = Output::new(text.trim_end().to_string(), &report);
    out.code = code;
    Ok(out)
}

/// Compares every two audited copies of the same game: the first entry where
/// they differ, within the part both verified, is a fork.
fn find_forks(paths: &[PathBuf], files: &[AuditFileReport]) -> Vec<ForkReport> {
    let logs: Vec<Option<Vec<u8>>> = paths.iter().map(|p| file::read(p).ok()).collect();
    let mut forks = Vec::new();
    for i in 0..files.len() {
        for j in i + 1..files.len() {
            let (a, b) = (&files[i], &files[j]);
            if a.game_id.is_none() || a.game_id != b.game_id {
                continue;
            }
            let (Some(la), Some(lb)) = (&logs[i], &logs[j]) else {
                continue;
            };
            let (Ok(la), Ok(lb)) = (
                crate::log::replay::split_lines(la),
                crate::log::replay::split_lines(lb),
            ) else {
                continue;
            };
            let verified = a.entries.min(b.entries) as usize;
            let Some(k) = (0..verified).find(|&k| la[k] != lb[k]) else {
                continue;
            };
            let author = |line: &[u8]| {
                crate::log::replay::parse_line(k as u64, line)
                    .map(|p| p.line.body.author)
                    .ok()
            };
            let seats = logs[i]
                .as_deref()
                .and_then(|l| read_genesis(l).ok())
                .map(|(g, _)| g.seats)
                .unwrap_or_default();
            let label = |seat: Option<u32>| match seat
                .and_then(|s| seats.get(s as usize).map(|x| (s, x)))
            {
                Some((s, x)) => {
                    format!("seat {}, {} <{}>", s + 1, inline(&x.name), inline(&x.email))
                }
                None => "unknown".into(),
            };
            let (sa, sb) = (author(la[k]), author(lb[k]));
            let names = [&a.file, &b.file];
            if let Some((w, why)) = crate::log::fork::resolve(&la, &lb, k) {
                let message = match why {
                    crate::log::fork::Resolution::ClaimLapsed => format!(
                        "{} and {} are copies of the same game that differ from entry {k} on: {} \
                         holds claims that {} stopped answering, {} holds that player's awaited \
                         entry. The entry wins and the claims lapse; the game goes on as in {}. \
                         Nobody cheated.",
                        a.file,
                        b.file,
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
                        a.file, b.file, names[w]
                    ),
                    crate::log::fork::Resolution::Countersignatures => format!(
                        "{} and {} are copies of the same game that differ from entry {k} on only \
                         in countersignatures written at the same time. Either order is valid; by \
                         the protocol's rule the copy whose entry {k} has the smaller id, {}, is \
                         kept, and `starry ingest` re-applies the other countersignatures on top.",
                        a.file, b.file, names[w]
                    ),
                };
                forks.push(ForkReport {
                    files: [a.file.clone(), b.file.clone()],
                    entry: k as u64,
                    authors: [label(sa), label(sb)],
                    same_author: false,
                    resolution: Some(why.as_str().into()),
                    message,
                });
                continue;
            }
            let same_author = sa.is_some() && sa == sb;
            let message = format!(
                "{} and {} are copies of the same game that fork at entry {k} (line {}): entries 0 to {} \
                 agree, then each holds a different valid entry ({} in the first, {} in the second).{}",
                a.file,
                b.file,
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
                message,
            });
        }
    }
    forks
}
