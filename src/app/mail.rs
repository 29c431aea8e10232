//! `starry mail` and `--mail`: the turn mail to whoever must act next.
//!
//! A turn mail carries the whole log twice — attached as `GAME-ID.jsonl` and
//! armored at the end of the text — and, for people, the public view of the
//! game and the exact commands to run. It is written from the log alone:
//! the sender's program never puts anyone's secret into it, not even the
//! recipient's own face-down tokens (the sender cannot know them; the
//! recipient's `starry view` shows them).
//!
//! Sending never touches the log: the entry is written first, and a mail
//! that cannot be sent is kept in `$STARRY_HOME/pending/` for
//! `starry mail --retry` (see `crate::mail::transport`).

use crate::text::wrap;
use std::path::Path;

use super::report::{MailReport, RetriedReport, RetryReport, SentMailReport, UnsentMailReport};
use super::{Output, short_id, status_of, status_text};
use crate::crypto::identity::{self, Identity, IdentityError};
use crate::error::{Error, Result};
use crate::games::{Game, Seat};
use crate::log::replay::read_genesis;
use crate::log::{Action, Replay, file};
use crate::mail::transport::TransportKind;
use crate::mail::{MailConfig, MailError, Sent, TurnMail, body_with_armor, compose};
use crate::text;
use crate::with_game;

/// Exit code of a command whose mail could not be sent (the entry, if any,
/// is written; the mail is kept in the pending folder).
pub const NOT_SENT: i32 = 5;

/// `starry mail FILE [--to-all]`.
pub fn mail_file(path: &Path, to_all: bool) -> Result<Output> {
    let home = identity::home_dir()?;
    let cfg = crate::mail::load(&home).map_err(|e| Error::Usage(e.to_string()))?;
    let report = send_log(path, &cfg, &home, to_all)?;
    let mut out = Output::new(report_text(&report, &cfg), &report);
    if let Some(w) = failure_text(&report) {
        out.warning = Some(w);
        out.code = NOT_SENT;
    }
    Ok(out)
}

/// `--mail` after a writing command: mails the log just written and folds
/// the outcome into the command's output. Whatever happens, the entry stays
/// written; a failure sets exit code 5 and says how to send it later.
pub fn after_entry(path: &Path, cfg: &MailConfig, out: &mut Output) {
    let entry = out.json["entry"].as_u64().unwrap_or_default();
    let kept = format!("entry {entry} is written to {} and kept", path.display());
    let home = identity::home_dir();
    let result = home
        .map_err(Error::from)
        .and_then(|home| send_log(path, cfg, &home, false));
    let report = match result {
        Ok(report) => report,
        Err(e) => MailReport {
            file: Some(path.display().to_string()),
            failed: vec![UnsentMailReport {
                to: None,
                subject: None,
                error: e.to_string(),
                pending: None,
            }],
            ..MailReport::default()
        },
    };
    let trimmed = out.text.trim_end().len();
    out.text.truncate(trimmed);
    out.text.push('\n');
    out.text.push_str(&report_text(&report, cfg));
    if let Some(w) = failure_text(&report) {
        let w = format!("{kept}, but {w}");
        out.warning = Some(match out.warning.take() {
            Some(prev) => format!("{prev}\nerror: {w}"),
            None => w,
        });
        out.code = NOT_SENT;
    }
    out.json["mail"] = serde_json::to_value(&report).expect("reports serialise");
}

/// `starry mail --retry`.
pub fn retry_pending() -> Result<Output> {
    let home = identity::home_dir()?;
    let cfg = crate::mail::load(&home).map_err(|e| Error::Usage(e.to_string()))?;
    let done = crate::mail::retry(&cfg, &home).map_err(|e| Error::Other(e.to_string()))?;
    let report = RetryReport {
        sent: done
            .sent
            .iter()
            .map(|(p, s)| RetriedReport {
                file: p.display().to_string(),
                detail: s.to_string(),
            })
            .collect(),
        kept: done
            .kept
            .iter()
            .map(|(p, why)| RetriedReport {
                file: p.display().to_string(),
                detail: why.clone(),
            })
            .collect(),
    };
    let mut text = String::new();
    if report.sent.is_empty() && report.kept.is_empty() {
        text.push_str("Nothing is waiting to be sent.");
    }
    for s in &report.sent {
        text.push_str(&format!("Sent {}: {}\n", s.file, s.detail));
    }
    let mut out;
    if report.kept.is_empty() {
        out = Output::new(text.trim_end().to_string(), &report);
    } else {
        text.push_str(&format!(
            "{} mail(s) still waiting in {}.",
            report.kept.len(),
            home.join(crate::mail::transport::PENDING_DIR).display()
        ));
        out = Output::new(text.trim_end().to_string(), &report);
        out.warning = Some(
            report
                .kept
                .iter()
                .map(|k| format!("{} is still pending: {}", k.file, k.detail))
                .collect::<Vec<_>>()
                .join("\nerror: "),
        );
        out.code = NOT_SENT;
    }
    Ok(out)
}

/// One paragraph for standard error when some mail did not leave.
fn failure_text(report: &MailReport) -> Option<String> {
    if report.failed.is_empty() {
        return None;
    }
    Some(
        report
            .failed
            .iter()
            .map(|f| {
                let to =
                    f.to.as_deref()
                        .map(|t| format!("the mail to {} was not sent: ", text::inline(t)))
                        .unwrap_or_else(|| "the mail was not sent: ".into());
                let retry = if f.pending.is_some()
                    || f.error.contains("--retry")
                    || f.error.contains("`starry mail ")
                {
                    String::new()
                } else {
                    format!(
                        " Run `starry mail {}` to send it again.",
                        report.file.as_deref().unwrap_or("FILE")
                    )
                };
                format!("{to}{}{retry}", f.error)
            })
            .collect::<Vec<_>>()
            .join("\nerror: "),
    )
}

fn report_text(report: &MailReport, cfg: &MailConfig) -> String {
    let mut lines = Vec::new();
    if let Some(n) = &report.note {
        lines.push(n.clone());
    }
    for s in &report.sent {
        lines.push(format!(
            "Mailed {} <{}> ({}): {}",
            text::inline(&s.to_name),
            text::inline(&s.to),
            text::inline(&s.subject),
            text::inline(&s.detail)
        ));
    }
    for f in &report.failed {
        lines.push(format!(
            "NOT mailed{}: see the error below.",
            f.to.as_deref()
                .map(|t| format!(" to {}", text::inline(t)))
                .unwrap_or_default()
        ));
    }
    if cfg.transport == TransportKind::Outbox && !report.sent.is_empty() {
        lines.push(
            "(No mail settings: the outbox transport only writes .eml files. Send them with your \
             mail program, or set up SMTP: see docs/mail.md.)"
                .into(),
        );
    }
    lines.join("\n")
}

/// The sender: `from` in the mail settings, else the identity.
fn sender(cfg: &MailConfig, home: &Path) -> Result<(String, String, Option<Identity>)> {
    let id = match Identity::load(home) {
        Ok(id) => Some(id),
        Err(IdentityError::Missing { .. }) if cfg.from.is_some() => None,
        Err(e) => return Err(e.into()),
    };
    if let Some(from) = &cfg.from {
        let t = from.trim();
        let (name, email) = match (t.find('<'), t.ends_with('>')) {
            (Some(i), true) => (
                t[..i].trim().trim_matches('"'),
                t[i + 1..t.len() - 1].trim(),
            ),
            _ => ("", t),
        };
        let name = if name.is_empty() {
            id.as_ref().map(|i| i.name.clone()).unwrap_or_default()
        } else {
            name.to_string()
        };
        return Ok((name, email.to_string(), id));
    }
    let id = id.expect("loaded above");
    Ok((id.name.clone(), id.email.clone(), Some(id)))
}

fn send_log(path: &Path, cfg: &MailConfig, home: &Path, to_all: bool) -> Result<MailReport> {
    let bytes = file::read(path)?;
    let (g, _) = read_genesis(&bytes).map_err(|fault| Error::Log {
        path: path.into(),
        fault,
    })?;
    with_game!(g.game.as_str(), G => send_game::<G>(path, &bytes, cfg, home, to_all))
}

/// Who gets a mail, and as what.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Must write the next entry.
    Act(Action),
    /// Another player, for information (`--to-all`).
    Info,
    /// The game is over.
    Over,
}

fn send_game<G: Game>(
    path: &Path,
    bytes: &[u8],
    cfg: &MailConfig,
    home: &Path,
    to_all: bool,
) -> Result<MailReport> {
    let r = Replay::<G>::from_bytes(bytes).map_err(|fault| Error::Log {
        path: path.into(),
        fault,
    })?;
    let (from_name, from_email, id) = sender(cfg, home)?;
    let me: Option<Seat> = id
        .as_ref()
        .and_then(|i| {
            r.seat_of_key(&i.public_key())
                .or_else(|| r.seat_of_email(&i.email))
        })
        .or_else(|| r.seat_of_email(&from_email));
    let id16 = short_id(&r.game_id);
    let mut report = MailReport {
        file: Some(path.display().to_string()),
        game_id: Some(hex::encode(r.game_id)),
        entry: Some(r.len() - 1),
        ..MailReport::default()
    };

    let (action, who) = r.expected();
    let mut targets: Vec<(Seat, Role)> = Vec::new();
    if r.is_over() {
        targets.extend(
            (0..r.seat_count())
                .filter(|&s| Some(s) != me)
                .map(|s| (s, Role::Over)),
        );
    } else if let Some(w) = who {
        if Some(w) == me {
            report.note = Some(format!(
                "It is your own turn again ({}): there is nobody to mail yet. Next: {}",
                action.as_str(),
                next_command(&r, action, &id16)
            ));
        } else {
            targets.push((w, Role::Act(action)));
        }
        if to_all {
            targets.extend(
                (0..r.seat_count())
                    .filter(|&s| Some(s) != me && s != w)
                    .map(|s| (s, Role::Info)),
            );
        }
    }

    let public = public_text(&r);
    for (seat, role) in targets {
        let to = &r.genesis.seats[seat];
        let subject = subject::<G>(&r, &id16, seat, role);
        let text = body_text::<G>(&r, &id16, seat, role, &public);
        let mail = TurnMail {
            from_name: from_name.clone(),
            from_email: from_email.clone(),
            to_name: to.name.clone(),
            to_email: to.email.clone(),
            subject: subject.clone(),
            body_text: body_with_armor(&text, bytes),
            log_file_name: format!("{id16}.jsonl"),
            log: bytes.to_vec(),
        };
        let result = compose(&mail).and_then(|msg| crate::mail::send(cfg, home, &msg));
        match result {
            Ok(sent) => report.sent.push(SentMailReport {
                to: to.email.clone(),
                to_name: to.name.clone(),
                subject,
                via: match &sent {
                    Sent::Outbox { .. } => "outbox",
                    Sent::Smtp { .. } => "smtp",
                    Sent::Sendmail { .. } => "sendmail",
                }
                .into(),
                detail: sent.to_string(),
                path: match &sent {
                    Sent::Outbox { path } => Some(path.display().to_string()),
                    _ => None,
                },
            }),
            Err(e) => report.failed.push(UnsentMailReport {
                to: Some(to.email.clone()),
                subject: Some(subject),
                pending: e.pending_path().map(|p| p.display().to_string()),
                error: match &e {
                    MailError::NotSent { .. } | MailError::NotSentNotKept { .. } => e.to_string(),
                    other => format!(
                        "{other}. Nothing was kept for `starry mail --retry`; run `starry mail {}` \
                         once this is fixed",
                        path.display()
                    ),
                },
            }),
        }
    }
    Ok(report)
}

/// What is asked of someone who must act, for a subject line.
fn asked(action: Action) -> &'static str {
    match action {
        Action::Join => "please join the game",
        Action::Ready => "please send your ready (setup randomness)",
        Action::Move => "your move",
        Action::Reveal => "please reveal your face-down tokens",
        Action::Over => "the game is over",
    }
}

/// `[starry] starry-sky 3f2a9c1e: entry 17 — Ben, your move`
///
/// Every piece taken from the log is made [`text::inline`]: a name cannot
/// add a header line (compose does it again for the whole subject).
fn subject<G: Game>(r: &Replay<G>, id16: &str, seat: Seat, role: Role) -> String {
    let name = text::inline(&r.genesis.seats[seat].name);
    let entry = r.len() - 1;
    let what = match role {
        Role::Act(a) => format!("{name}, {}", asked(a)),
        Role::Info => {
            let (a, who) = r.expected();
            let w = who.map_or("nobody".into(), |w| {
                text::inline(&r.genesis.seats[w].name).into_owned()
            });
            format!("waiting for {w} to {} (for your information)", a.as_str())
        }
        Role::Over => "the game is over: final standings".into(),
    };
    format!(
        "[starry] {} {}: entry {entry} — {what}",
        G::NAME,
        &id16[..8]
    )
}

/// The move notation for the "what to do now" lines: the game's, for the
/// position the log is in.
fn move_hint<G: Game>(r: &Replay<G>) -> (String, String) {
    r.state
        .as_ref()
        .map(G::notation)
        .unwrap_or_else(|| ("MOVE".into(), "The view below ends with an example.".into()))
}

/// The command that does what `action` asks, on the game `id16`.
pub fn next_command<G: Game>(r: &Replay<G>, action: Action, file: &str) -> String {
    match action {
        Action::Join => format!("starry join {file} --mail"),
        Action::Ready => format!("starry ready {file} --mail"),
        Action::Move => format!("starry play {file} \"{}\" --mail", move_hint(r).0),
        Action::Reveal => format!("starry reveal {file} --mail"),
        Action::Over => format!("starry countersign {file} --mail"),
    }
}

/// The public part, the same for every recipient: where the game stands,
/// who is who, and the spectator view. Nothing in it depends on a secret.
fn public_text<G: Game>(r: &Replay<G>) -> String {
    let status = status_of(r);
    let mut t = format!(
        "{} — game {} — {} entries\n{}",
        status.game,
        &status.game_id[..16],
        status.entries,
        status_text(&status)
    );
    if let Some(state) = &r.state {
        t.push('\n');
        t.push_str(&G::render_text(&G::view(state, None, None), &r.names()));
    }
    t
}

/// The text part. Names and the summary come from the log and are made
/// [`text::inline`] where they are inserted, so none can fake a line of the
/// instructions; compose makes the whole text [`text::terminal`].
fn body_text<G: Game>(r: &Replay<G>, id16: &str, seat: Seat, role: Role, public: &str) -> String {
    // Whether the game has face-down things the mail must say it leaves out.
    let hides = !G::hidden_values().is_empty();
    let to = &r.genesis.seats[seat];
    let last = r.entries.last().expect("a log has a genesis");
    let by = text::inline(&r.genesis.seats[last.author].name);
    let entry = r.len() - 1;
    let mut t = format!("Hello {},\n\n", text::inline(&to.name));
    t.push_str(&format!(
        "{by} wrote entry {entry} of your {} game {id16}: {}.\n",
        G::NAME,
        text::inline(&last.summary)
    ));
    let save = "1. Save this mail as a file, say turn.eml (in most mail programs: \
                \"Save as\", \"Download message\" or \"Show original\", then save). If \
                you cannot, copy the block from the line -----BEGIN STARRY LOG----- to \
                the line -----END STARRY LOG----- at the end of this mail into a file \
                and use that file instead (or run `starry ingest`, paste the block and \
                press Ctrl-D).\n";
    t.push_str(&match role {
        Role::Act(a) => format!("It is your turn: {}.\n", asked(a)),
        Role::Info => {
            let (a, who) = r.expected();
            wrap(
                &format!(
                    "Nothing to do for you now: {} must {} next. This mail keeps your copy \
                     of the game up to date.\n",
                    who.map_or("nobody".into(), |w| {
                        text::inline(&r.genesis.seats[w].name).into_owned()
                    }),
                    a.as_str()
                ),
                WIDTH,
                "",
            )
        }
        Role::Over => "The game is over.\n".into(),
    });
    t.push_str("\nWhat to do now\n--------------\n");
    t.push_str(&wrap(save, WIDTH, "   "));
    t.push_str(&wrap(
        "2. Take it in. This verifies every entry and brings your copy of the game up to \
         date; it refuses anything that does not continue your copy:\n",
        WIDTH,
        "   ",
    ));
    t.push_str("     starry ingest turn.eml\n");
    match role {
        Role::Act(a) => {
            t.push_str(&format!(
                "3. Look at the game{}:\n     starry view {id16}\n",
                if hides {
                    " (your view shows your own face-down tokens too)"
                } else {
                    ""
                }
            ));
            t.push_str(&format!(
                "4. {} and mail the log on, in one command:\n     {}\n",
                match a {
                    Action::Join => "Join",
                    Action::Ready => "Send your ready",
                    Action::Move => "Make your move",
                    Action::Reveal => "Reveal",
                    Action::Over => "Countersign",
                },
                next_command(r, a, id16)
            ));
            if a == Action::Move {
                t.push_str(&wrap(&format!("   {}\n", move_hint(r).1), WIDTH, "   "));
            }
        }
        Role::Info => {}
        Role::Over => {
            t.push_str(&wrap(
                "3. If you agree with the result, countersign it, one player at a time \
                 (wait for the previous countersign mail and ingest it first):\n",
                WIDTH,
                "   ",
            ));
            t.push_str(&format!("     {}\n", next_command(r, Action::Over, id16)));
        }
    }
    t.push('\n');
    t.push_str(&wrap(
        &format!(
            "Here {id16} stands for your copy of the game, which `starry ingest` keeps in \
             your games directory: $STARRY_HOME/games/ (by default ~/.config/starry/games/) \
             {}.jsonl. For a copy elsewhere, give its path instead, and `--into FILE` to \
             `starry ingest`.\n",
            hex::encode(r.game_id)
        ),
        WIDTH,
        "",
    ));
    t.push_str(&wrap(
        if hides {
            "\nThe game now, in the public view: face-down tokens are not shown, not even \
             yours, since this mail is written without anyone's secrets (`starry view` shows \
             you yours).\n"
        } else {
            "\nThe game now:\n"
        },
        WIDTH,
        "",
    ));
    t.push('\n');
    t.push_str(public.trim_end());
    t.push_str("\n\n");
    t.push_str(&wrap(
        &format!(
            "The whole log is attached ({id16}.jsonl) and is also in the block below, in \
             case your mail program loses the attachment.\n"
        ),
        WIDTH,
        "",
    ));
    t
}

/// Width of the mail's paragraphs.
const WIDTH: usize = 72;

#[cfg(test)]
mod tests {
    use crate::text::wrap;

    #[test]
    fn wraps_with_indent() {
        let w = wrap("1. one two three four five six\n", 13, "   ");
        assert_eq!(w, "1. one two\n   three four\n   five six\n");
        assert_eq!(wrap("   a b\n", 80, ""), "   a b\n");
    }
}
