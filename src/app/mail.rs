//! `starry mail` and `--mail`: the turn mail to whoever must act next.
//!
//! After every entry, the player who must act next gets a turn mail and
//! every other player a short report (unless they joined with
//! `--notify turn`). Each mail carries, once, the entries its recipient
//! lacks — everything after their own last entry — and, for people, what
//! happened since then in words, the board as a picture, the public view
//! and the exact commands to run. All mails of a game form one thread. It is written from the log alone:
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
use super::{Output, history, short_id, status_of, status_text};
use crate::crypto::identity::{self, Identity, IdentityError};
use crate::error::{Error, Result};
use crate::games::{Game, Seat};
use crate::log::entry::Notify;
use crate::log::replay::{read_genesis, split_lines};
use crate::log::{Action, Replay, file};
use crate::mail::transport::TransportKind;
use crate::mail::{MailConfig, MailError, Sent, TurnMail, compose};
use crate::text;
use crate::with_game;

/// Exit code of a command whose mail could not be sent (the entry, if any,
/// is written; the mail is kept in the pending folder).
pub const NOT_SENT: i32 = 5;

/// `starry mail FILE [--to-all] [--full]`.
pub fn mail_file(path: &Path, how: Sending) -> Result<Output> {
    let home = identity::home_dir()?;
    let cfg = crate::mail::load(&home).map_err(|e| Error::Usage(e.to_string()))?;
    let report = send_log(path, &cfg, &home, how)?;
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
        .and_then(|home| send_log(path, cfg, &home, Sending::default()));
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

/// `starry remind FILE`: the current turn mail again, to the player the
/// game waits for.
pub fn remind(path: &Path) -> Result<Output> {
    mail_file(
        path,
        Sending {
            remind: true,
            ..Sending::default()
        },
    )
}

/// `starry mail --retry`.
pub fn retry_pending() -> Result<Output> {
    let home = identity::home_dir()?;
    let cfg = crate::mail::load(&home).map_err(|e| Error::Usage(e.to_string()))?;
    // Mails wait in pending/ because a real transport failed; "sending"
    // them to the outbox would send nothing and forget them.
    if cfg.transport == TransportKind::Outbox
        && !crate::mail::pending_messages(&home)
            .map_err(|e| Error::Other(e.to_string()))?
            .is_empty()
    {
        return Err(Error::Usage(format!(
            "no mail transport is set up (mail.toml or STARRY_SMTP_*), so nothing can be sent; \
             the pending mails stay in {} (set up SMTP or sendmail, see docs/mail.md, or send \
             those .eml files with your mail program)",
            home.join(crate::mail::transport::PENDING_DIR).display()
        )));
    }
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

fn send_log(path: &Path, cfg: &MailConfig, home: &Path, how: Sending) -> Result<MailReport> {
    let bytes = file::read(path)?;
    let (g, _) = read_genesis(&bytes).map_err(|fault| Error::Log {
        path: path.into(),
        fault,
    })?;
    with_game!(g.game.as_str(), G => send_game::<G>(path, &bytes, cfg, home, how))
}

/// What `starry mail` was asked for.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sending {
    /// Report to every other player, even those who asked for turns only.
    pub to_all: bool,
    /// Carry the whole log, not only the entries each recipient lacks.
    pub full: bool,
    /// A reminder (`starry remind`): only to the awaited player, saying
    /// since when, with a Message-ID of its own.
    pub remind: bool,
    /// Mailed again by hand (`starry mail FILE`): the mails get Message-IDs
    /// of their own, or a mail program that has the first would drop them.
    pub resend: bool,
    /// Sent by a program on its own (`starry robot`): every mail carries
    /// `Auto-Submitted: auto-replied` (RFC 3834).
    pub auto_submitted: bool,
}

/// Who gets a mail, and as what.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Must write the next entry.
    Act(Action),
    /// Another player: a short report of the move.
    Info,
    /// The game is over.
    Over,
}

fn send_game<G: Game>(
    path: &Path,
    bytes: &[u8],
    cfg: &MailConfig,
    home: &Path,
    how: Sending,
) -> Result<MailReport> {
    let (r, events) = super::cache::tell::<G>(bytes).map_err(|fault| Error::Log {
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
    if how.remind {
        if me.is_none() {
            return Err(Error::Usage(format!(
                "you ({from_email}) hold no seat in this game; only its players remind each other"
            )));
        }
        match who {
            Some(w) if !r.is_over() && Some(w) == me => {
                return Err(Error::Usage(format!(
                    "the game waits for you ({}): there is nobody to remind. Next: {}",
                    action.as_str(),
                    next_command(&r, action, &id16)
                )));
            }
            Some(w) if !r.is_over() => targets.push((w, Role::Act(action))),
            _ => {
                return Err(Error::Usage(format!(
                    "{}: the game is over; there is nobody to remind",
                    path.display()
                )));
            }
        }
    } else if r.is_over() {
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
        // The others hear of the move, unless they asked for their turns
        // only; a seat that has not joined yet has asked nothing.
        targets.extend(
            (0..r.seat_count())
                .filter(|&s| Some(s) != me && s != w)
                .filter(|&s| {
                    how.to_all || (r.seats[s].key.is_some() && r.seats[s].notify == Notify::All)
                })
                .map(|s| (s, Role::Info)),
        );
    }

    let public = public_text(&r);
    // The board as everybody may see it: the spectator view, so that no
    // secret can reach a mail.
    let picture = match &r.state {
        Some(state) => {
            let svg = G::render_svg(&G::view(state, None, None), &r.names());
            Some(
                crate::picture::png::render_with(&svg, crate::picture::png::MAIL)
                    .map_err(Error::Other)?,
            )
        }
        None => None,
    };
    let thread = Thread::of(&r);
    let lines = split_lines(bytes).map_err(|fault| Error::Log {
        path: path.into(),
        fault,
    })?;
    for (seat, role) in targets {
        let to = &r.genesis.seats[seat];
        let since = history::since_last_entry_of(&events, seat);
        // What the recipient lacks: everything after their own last entry
        // (they wrote it, so they hold the log up to there).
        let from_entry = match (how.full, since.first()) {
            (false, Some(e)) if e.entry > 0 => e.entry as usize,
            _ => 0,
        };
        let log = crate::log::replay::split_at_entry(bytes, &lines, from_entry)
            .1
            .to_vec();
        let log_file_name = if from_entry == 0 {
            format!("{id16}.jsonl")
        } else {
            format!("{id16}-{from_entry}-{}.jsonl", lines.len() - 1)
        };
        let subject = subject::<G>(&id16, role);
        let text = body_text::<G>(
            &r,
            &id16,
            seat,
            role,
            &public,
            since,
            how,
            &log_file_name,
            from_entry,
        );
        let html = body_html::<G>(
            &r,
            &id16,
            seat,
            role,
            since,
            how,
            picture.is_some(),
            &thread,
            &log_file_name,
        );
        let mail = TurnMail {
            from_name: from_name.clone(),
            from_email: from_email.clone(),
            to_name: to.name.clone(),
            to_email: to.email.clone(),
            subject: subject.clone(),
            body_text: text,
            body_html: Some(html),
            picture: picture.clone(),
            picture_id: thread.picture_id(r.len() - 1),
            message_id: Some(thread.message_id(r.len() - 1, seat, how)),
            references: thread.references(r.len() - 1, seat),
            log_file_name,
            log,
            auto_submitted: how.auto_submitted,
        };
        let result = compose(&mail).and_then(|msg| {
            let size = crate::mail::to_eml(&msg).len();
            crate::mail::send(cfg, home, &msg).map(|sent| (sent, size))
        });
        match result {
            Ok((sent, size)) => report.sent.push(SentMailReport {
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
                bytes: size as u64,
                entries_from: from_entry as u64,
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

/// The identifiers that make one game one thread in every mail program:
/// each mail's Message-ID is derived from the game, the entry and the
/// recipient (so every program computes the same one), and every mail
/// refers to the game's root and to the mail about the entry before.
/// The domain is the game creator's, the same for every sender.
struct Thread {
    id16: String,
    domain: String,
}

impl Thread {
    fn of<G: Game>(r: &Replay<G>) -> Thread {
        let creator = &r.genesis.seats[0].email;
        let domain = creator
            .rsplit_once('@')
            .map(|(_, d)| d.to_ascii_lowercase())
            .filter(|d| {
                !d.is_empty()
                    && d.len() <= 100
                    && d.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
            })
            .unwrap_or_else(|| "starry.invalid".into());
        Thread {
            id16: short_id(&r.game_id),
            domain,
        }
    }

    /// The thread's root, which every mail refers to (it is never sent
    /// itself: mail programs thread by a shared ancestor all the same).
    fn root(&self) -> String {
        format!("starry.{}@{}", self.id16, self.domain)
    }

    /// The mail about `entry` to `seat`; a reminder or a mail sent again by
    /// hand gets an id of its own (a program that saw an id twice drops the second).
    fn message_id(&self, entry: u64, seat: Seat, how: Sending) -> String {
        let again = match (how.remind, how.resend) {
            (true, _) => format!(".reminder-{}", chrono::Utc::now().timestamp_millis()),
            (false, true) => format!(".again-{}", chrono::Utc::now().timestamp_millis()),
            _ => String::new(),
        };
        format!(
            "starry.{}.{entry}.{}{again}@{}",
            self.id16,
            seat + 1,
            self.domain
        )
    }

    fn references(&self, entry: u64, seat: Seat) -> Vec<String> {
        let mut refs = vec![self.root()];
        if entry > 1 {
            refs.push(self.message_id(entry - 1, seat, Sending::default()));
        }
        refs
    }

    fn picture_id(&self, entry: u64) -> String {
        format!("board.{}.{entry}@{}", self.id16, self.domain)
    }
}

/// What is asked of someone who must act, in a sentence.
fn asked(action: Action) -> &'static str {
    match action {
        Action::Join => "please join the game",
        Action::Ready => "please send your ready (setup randomness)",
        Action::Move => "your move",
        Action::Reveal => "please reveal your face-down tokens",
        Action::Over => "the game is over",
    }
}

/// `[starry] Starry Sky 3f2a9c1e — your turn`, the same for every mail of
/// a game: mail programs that thread by subject (as Gmail does) keep the
/// game together. Reports and the final mail are replies in that thread.
fn subject<G: Game>(id16: &str, role: Role) -> String {
    let base = format!(
        "[starry] {} {} — your turn",
        history::title(G::NAME),
        &id16[..8]
    );
    match role {
        Role::Act(_) => base,
        Role::Info | Role::Over => format!("Re: {base}"),
    }
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

/// The first lines of a mail: what is asked of the recipient, or whom the
/// game waits for.
fn headline<G: Game>(r: &Replay<G>, id16: &str, role: Role, how: Sending) -> Vec<String> {
    let mut out = Vec::new();
    let title = history::title(G::NAME);
    if how.remind {
        out.push(format!(
            "A reminder: the game has waited for you since {} (entry {}).",
            history::short_time(&r.entries.last().map(|e| e.time.clone()).unwrap_or_default()),
            r.len() - 1
        ));
    }
    out.push(match role {
        Role::Act(a) => format!("It is your turn in {title} {}: {}.", &id16[..8], asked(a)),
        Role::Info => {
            let (a, who) = r.expected();
            format!(
                "Nothing to do for you now in {title} {}: {} must {} next.",
                &id16[..8],
                who.map_or("nobody".into(), |w| r.name(w)),
                a.as_str()
            )
        }
        Role::Over => format!("{title} {} is over.", &id16[..8]),
    });
    out
}

/// The text part. Names and summaries come from the log and are made
/// [`text::inline`] where they are inserted, so none can fake a line of the
/// instructions; compose makes the whole text [`text::terminal`].
#[allow(clippy::too_many_arguments)]
fn body_text<G: Game>(
    r: &Replay<G>,
    id16: &str,
    seat: Seat,
    role: Role,
    public: &str,
    since: &[history::Event],
    how: Sending,
    log_name: &str,
    from_entry: usize,
) -> String {
    // Whether the game has face-down things the mail must say it leaves out.
    let hides = !G::hidden_values().is_empty();
    let to = &r.genesis.seats[seat];
    let mut t = format!("Hello {},\n\n", text::inline(&to.name));
    for line in headline(r, id16, role, how) {
        t.push_str(&wrap(&format!("{line}\n"), WIDTH, ""));
        t.push('\n');
    }
    t.push_str(&history::since_text(since, id16));
    t.push_str("\nWhat to do now\n--------------\n");
    let save = format!(
        "1. Save the attached file {log_name}, or this whole mail as a file, say turn.eml \
         (in most mail programs: \"Save as\", \"Download message\" or \"Show original\").\n"
    );
    t.push_str(&wrap(&save, WIDTH, "   "));
    t.push_str(&wrap(
        "2. Take it in. This verifies every entry and brings your copy of the game up to \
         date; it refuses anything that does not continue your copy:\n",
        WIDTH,
        "   ",
    ));
    t.push_str(&format!(
        "     starry ingest {log_name}      (or turn.eml)\n"
    ));
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
            "({id16} names your copy of the game in $STARRY_HOME/games/; for a copy \
             elsewhere, give its path, and `--into FILE` to `starry ingest`.)\n"
        ),
        WIDTH,
        "",
    ));
    t.push_str(&wrap(
        if hides {
            "\nThe game now, as everybody sees it (this mail knows nobody's secrets, so \
             your face-down tokens are hidden too; `starry view` shows them):\n"
        } else {
            "\nThe game now:\n"
        },
        WIDTH,
        "",
    ));
    t.push('\n');
    t.push_str(public.trim_end());
    t.push_str("\n\n");
    t.push_str(&wrap(&carried(r, from_entry, log_name), WIDTH, ""));
    t
}

/// What the attachment holds, and what to do if it is not enough.
fn carried<G: Game>(r: &Replay<G>, from_entry: usize, log_name: &str) -> String {
    let last = r.len() - 1;
    if from_entry == 0 {
        format!("The attached {log_name} is the whole log (entries 0 to {last}).\n")
    } else {
        format!(
            "The attached {log_name} holds entries {from_entry} to {last}: those written since \
             your last entry, which your copy lacks. If `starry ingest` says that it needs a \
             full copy, ask the sender to run `starry mail GAME --full`.\n"
        )
    }
}

/// The HTML part: the same as the text, with the board drawn (the PNG
/// travels inline in the mail, `cid:`, since many mail programs show no
/// SVG). Everything from the log is escaped; no style sheet, no script, no
/// remote image.
#[allow(clippy::too_many_arguments)]
fn body_html<G: Game>(
    r: &Replay<G>,
    id16: &str,
    seat: Seat,
    role: Role,
    since: &[history::Event],
    how: Sending,
    picture: bool,
    thread: &Thread,
    log_name: &str,
) -> String {
    use crate::picture::esc;
    let to = &r.genesis.seats[seat];
    let mut h = String::from(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"></head>\n\
         <body style=\"font-family:'DejaVu Sans',Verdana,sans-serif;color:#1a1a1a\">\n",
    );
    h.push_str(&format!("<p>Hello {},</p>\n", esc(&to.name)));
    for line in headline(r, id16, role, how) {
        h.push_str(&format!("<p><strong>{}</strong></p>\n", esc(&line)));
    }
    if !since.is_empty() {
        h.push_str("<p>Since your last entry:</p>\n<ol>\n");
        let skip = since.len().saturating_sub(history::SINCE_MAX);
        for e in &since[skip..] {
            h.push_str(&format!(
                "<li value=\"{}\">{}</li>\n",
                e.entry,
                esc(&e.text)
            ));
        }
        h.push_str("</ol>\n");
    }
    if picture {
        h.push_str(&format!(
            "<p><img src=\"cid:{}\" alt=\"The game after entry {}, as everybody sees it\" \
             style=\"max-width:100%\"></p>\n",
            esc(&thread.picture_id(r.len() - 1)),
            r.len() - 1
        ));
    }
    if let Role::Act(a) = role {
        h.push_str(&format!(
            "<p>Take in the attached log, then act:</p>\n<pre>starry ingest {}\n\
             starry view {id16}\n{}</pre>\n",
            esc(log_name),
            esc(&next_command(r, a, id16))
        ));
    }
    h.push_str(
        "<p style=\"color:#555\">The text part of this mail has the position in words and \
         every step; the attached file is the log.</p>\n</body></html>\n",
    );
    h
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
