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

use crate::crypto::identity::Stored as _;
use std::path::Path;

use super::report::{MailReport, RetriedReport, RetryReport, SentMailReport, UnsentMailReport};
use super::{Output, history, short_id};
use crate::crypto::identity::{self, Identity, IdentityError};
use crate::error::{Error, Result};
use crate::games::{Game, Seat};
use crate::log::replay::{read_genesis, split_lines};
use crate::log::{Action, Replay, file};
use crate::mail::transport::TransportKind;
use crate::mail::{MailConfig, MailError, Sent, TurnMail, compose};
use crate::text;
use crate::with_game;
use starry_core::tell::Role;

mod body;
use body::{body_html, body_text, public_text};

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
    for w in &report.warnings {
        lines.push(format!("Warning: {}.", text::inline(w)));
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
    with_game!(g.game.as_str(), G => send_game::<G>(path, &bytes, cfg, home, how, &draw_png))
}

/// Draws a picture (SVG) as the PNG a mail carries.
type Painter<'a> = &'a dyn Fn(&str) -> std::result::Result<Vec<u8>, String>;

/// The mail's PNG: smaller than `starry view --format png` (see
/// `picture::png::MAIL`).
fn draw_png(svg: &str) -> std::result::Result<Vec<u8>, String> {
    crate::picture::png::render_with(svg, crate::picture::png::MAIL)
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

/// The board picture of the mails.
enum Picture {
    /// Before the setup there is no board to draw.
    NoBoard,
    /// The PNG.
    Drawn(Vec<u8>),
    /// It could not be drawn, for this reason (inline, bounded).
    Failed(String),
}

/// Mails the log `bytes` (read from `path`) to whoever it concerns;
/// `paint` draws the board.
fn send_game<G: Game>(
    path: &Path,
    bytes: &[u8],
    cfg: &MailConfig,
    home: &Path,
    how: Sending,
    paint: Painter<'_>,
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
    // This machine's computer seats read the log itself: a mail to one
    // would only come back here.
    let computers = super::computer::seats(home, &r.genesis, &r.game_id);
    let mut targets = if how.remind {
        reminded(&r, me, &from_email, path)?
    } else {
        let (targets, note) = told(&r, me, how);
        report.note = note;
        targets
    };
    targets.retain(|(s, _)| !computers.contains(s));
    let public = public_text(&r);
    let picture = picture(&r, paint, &mut report.warnings);
    let thread = Thread::of(&r);
    let lines = split_lines(bytes).map_err(|fault| Error::Log {
        path: path.into(),
        fault,
    })?;
    let about = About {
        r: &r,
        id16: &id16,
        how,
        public: &public,
        picture: &picture,
        thread: &thread,
    };
    let from = (from_name.as_str(), from_email.as_str());
    for (seat, role) in targets {
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
        let log_name = if from_entry == 0 {
            format!("{id16}.jsonl")
        } else {
            format!("{id16}-{from_entry}-{}.jsonl", lines.len() - 1)
        };
        let to = Recipient {
            seat,
            role,
            since,
            log_name,
            from_entry,
            link: player_link(cfg, &log),
        };
        let mail = turn_mail(&about, &to, from, log);
        let outcome = deliver(cfg, home, &mail);
        record(&mut report, path, mail, from_entry, outcome);
    }
    Ok(report)
}

/// The player link to `cfg.player_url` carrying `log` (the entries of one
/// mail), or none: without the setting, and for more entries than a link
/// may carry (the attachment and the commands still bring them).
fn player_link(cfg: &MailConfig, log: &[u8]) -> Option<String> {
    let url = cfg.player_url.as_deref()?;
    (log.len() <= starry_core::link::MAX_ENTRIES_BYTES)
        .then(|| starry_core::link::link_of(url, log))
}

/// The player link of a mail that carries `log` and has no body of
/// [`body`]'s (the robot's): the same paragraph, as text, ending in a
/// newline; none without `player_url`.
pub fn link_paragraph(cfg: &MailConfig, log: &[u8]) -> Option<String> {
    let link = player_link(cfg, log)?;
    Some(format!(
        "{}{link}\n{}",
        text::wrap(&format!("{}\n", body::PLAY_IN_BROWSER), 72, ""),
        text::wrap(&format!("{}\n", body::LINK_CARRIES), 72, "")
    ))
}

/// The reminder's one recipient: the player the game waits for. Refused
/// when the sender holds no seat, is the one awaited, or the game is over.
fn reminded<G: Game>(
    r: &Replay<G>,
    me: Option<Seat>,
    from_email: &str,
    path: &Path,
) -> Result<Vec<(Seat, Role)>> {
    if me.is_none() {
        return Err(Error::Usage(format!(
            "you ({from_email}) hold no seat in this game; only its players remind each other"
        )));
    }
    let (action, who) = r.expected();
    match who {
        Some(w) if !r.is_over() && Some(w) == me => Err(Error::NotNow(format!(
            "the game waits for you ({}): there is nobody to remind. Next: {}",
            action.as_str(),
            next_command(r, action, &short_id(&r.game_id))
        ))),
        Some(w) if !r.is_over() => Ok(vec![(w, Role::Act(action))]),
        _ => Err(Error::NotNow(format!(
            "{}: the game is over; there is nobody to remind",
            path.display()
        ))),
    }
}

/// Who hears of the log's last entry ([`starry_core::tell::told`]), and
/// the note when the next turn is the sender's own.
fn told<G: Game>(
    r: &Replay<G>,
    me: Option<Seat>,
    how: Sending,
) -> (Vec<(Seat, Role)>, Option<String>) {
    let (targets, own_turn) = starry_core::tell::told(r, me, how.to_all);
    let note = own_turn.map(|action| {
        format!(
            "It is your own turn again ({}): there is nobody to mail yet. Next: {}",
            action.as_str(),
            next_command(r, action, &short_id(&r.game_id))
        )
    });
    (targets, note)
}

/// The board as everybody may see it: the spectator view, so that no
/// secret can reach a mail. A picture that cannot be drawn stops no
/// mail: the mails go without it and say so, and so does the report.
fn picture<G: Game>(r: &Replay<G>, paint: Painter<'_>, warnings: &mut Vec<String>) -> Picture {
    let Some(state) = &r.state else {
        return Picture::NoBoard;
    };
    let svg = G::render_svg(&G::view(state, None, None), &r.names());
    match paint(&svg) {
        Ok(png) => Picture::Drawn(png),
        Err(e) => {
            let why = text::excerpt(&e);
            warnings.push(format!(
                "the board picture could not be drawn ({why}); the mails went \
                 without it, each saying so"
            ));
            Picture::Failed(why)
        }
    }
}

/// What every mail of one sending is about: the game, and what is the same
/// for each recipient.
struct About<'a, G: Game> {
    r: &'a Replay<G>,
    id16: &'a str,
    how: Sending,
    /// [`public_text`].
    public: &'a str,
    picture: &'a Picture,
    thread: &'a Thread,
}

/// One recipient's mail: to whom, as what, and which entries it carries.
struct Recipient<'a> {
    seat: Seat,
    role: Role,
    /// What happened since their last entry.
    since: &'a [history::Event],
    /// The name of the attached log.
    log_name: String,
    /// The first entry the attached log holds.
    from_entry: usize,
    /// The player link that carries the attached entries, when the sender
    /// set `player_url`.
    link: Option<String>,
}

/// The mail to `to`, from `from` (name, address), carrying `log`.
fn turn_mail<G: Game>(
    about: &About<'_, G>,
    to: &Recipient<'_>,
    from: (&str, &str),
    log: Vec<u8>,
) -> TurnMail {
    let (r, thread) = (about.r, about.thread);
    let seat = &r.genesis.seats[to.seat];
    TurnMail {
        from_name: from.0.to_string(),
        from_email: from.1.to_string(),
        to_name: seat.name.clone(),
        to_email: seat.email.clone(),
        subject: subject::<G>(about.id16, to.role),
        body_text: body_text(about, to),
        body_html: Some(body_html(about, to)),
        picture: match about.picture {
            Picture::Drawn(png) => Some(png.clone()),
            _ => None,
        },
        picture_id: thread.picture_id(r.len() - 1),
        message_id: Some(thread.message_id(r.len() - 1, to.seat, about.how)),
        references: thread.references(r.len() - 1, to.seat),
        log_file_name: to.log_name.clone(),
        log,
        auto_submitted: about.how.auto_submitted,
    }
}

/// Composes and sends `mail`: how it went, and the size of the message.
fn deliver(
    cfg: &MailConfig,
    home: &Path,
    mail: &TurnMail,
) -> std::result::Result<(Sent, usize), MailError> {
    compose(mail).and_then(|msg| {
        let size = crate::mail::to_eml(&msg).len();
        crate::mail::send(cfg, home, &msg).map(|sent| (sent, size))
    })
}

/// Adds how sending `mail` (of the log at `path`, from its entry
/// `from_entry` on) went to `report`.
fn record(
    report: &mut MailReport,
    path: &Path,
    mail: TurnMail,
    from_entry: usize,
    outcome: std::result::Result<(Sent, usize), MailError>,
) {
    match outcome {
        Ok((sent, size)) => report.sent.push(SentMailReport {
            to: mail.to_email,
            to_name: mail.to_name,
            subject: mail.subject,
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
            to: Some(mail.to_email),
            subject: Some(mail.subject),
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
        // The recipient's seat from 1, as Message-IDs always were: an id is
        // no seat number anyone reads, and a new form would break the
        // threads of games under way.
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

/// The game's thread subject ([`starry_core::tell::subject`]).
fn subject<G: Game>(id16: &str, role: Role) -> String {
    starry_core::tell::subject(G::NAME, id16, role)
}

pub use starry_core::tell::next_countersigner;

/// "first" before any countersignature, "next" after one.
fn first_or_next<G: Game>(r: &Replay<G>) -> &'static str {
    if r.countersigned.is_empty() {
        "first"
    } else {
        "next"
    }
}

/// What the player at seat `me` (if any) is to do about countersigning a
/// game that is over, for `starry ingest` and `starry status`: countersign
/// now (they are the one named), wait for a mail that names them, or
/// nothing. It agrees with the mails. None before the end.
pub fn countersign_text<G: Game>(r: &Replay<G>, me: Option<Seat>, file: &str) -> Option<String> {
    countersign_advice(r, me, file, false)
}

/// [`countersign_text`], for a game played by mail or, with `git`, through
/// a git repository (docs/git.md): there an entry is committed and pushed,
/// and the others see it when they pull, so no mail is mentioned.
pub fn countersign_advice<G: Game>(
    r: &Replay<G>,
    me: Option<Seat>,
    file: &str,
    git: bool,
) -> Option<String> {
    if !r.is_over() {
        return None;
    }
    let by_git = |t: String| {
        if git {
            t.replace(" --mail", " --git-commit")
        } else {
            t
        }
    };
    if let Some(k) = me.and_then(|m| super::clock::late_answer_at(r, m)) {
        return Some(by_git(late_answer_text(k, file)));
    }
    let when = first_or_next(r);
    let cmd = by_git(next_command(r, Action::Over, file));
    let push = if git { "\nthen `git push`." } else { "" };
    Some(match (next_countersigner(r), me) {
        (None, _) => "Every player has countersigned the result.".into(),
        (Some(n), Some(m)) if n == m => format!(
            "You countersign {when}: the others wait for your countersignature. If you agree \
             with the result:\n  {cmd}{push}"
        ),
        (Some(n), Some(m)) if r.countersigned.contains(&m) => {
            format!("You have countersigned; {} countersigns {when}.", r.name(n))
        }
        (Some(n), Some(_)) if git => format!(
            "{} countersigns {when}. Countersign once that countersignature is pushed (one at a \
             time, so that no two are written at once): `git pull`, then\n  {cmd}{push}",
            r.name(n)
        ),
        (Some(n), Some(_)) => format!(
            "{} countersigns {when}. Countersign when a mail names you (one at a time, so that \
             no two countersignatures are written at once): `starry ingest` that mail, then\n  \
             {cmd}",
            r.name(n)
        ),
        (Some(n), None) => format!("{} countersigns {when}.", r.name(n)),
    })
}

/// What the player whom claims placed last may still do: answer, and win
/// against the claims (docs/protocol.md, §7, a lapsed claim).
pub fn late_answer_text(k: u64, file: &str) -> String {
    format!(
        "The others claimed that you had stopped answering (from entry {k} on). Your move still \
         wins against those claims, however late, until you countersign: it is written at entry \
         {k}, in their place, and the game goes on. `starry moves {file}` lists it; then\n  \
         starry play {file} MOVE --mail   (or --auto)\nCountersigning instead (`starry \
         countersign`, which asks first) accepts being placed last for good."
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

/// `s` as one word for a POSIX shell: as it is when it holds only
/// characters no shell treats specially, else in single quotes (a quote
/// inside written `'\''`). `s` comes from a log: it is made
/// [`text::inline`] first, so it is one line whatever it holds.
pub fn shell_word(s: &str) -> String {
    let s = text::inline(s);
    let plain = |c: char| c.is_alphanumeric() || "@%+,-./:=_".contains(c);
    if !s.is_empty() && s.chars().all(plain) {
        s.into_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// `starry id new` for the seat `seat`: its name and address, quoted for a
/// shell.
pub fn id_new_command<G: Game>(r: &Replay<G>, seat: Seat) -> String {
    let s = &r.genesis.seats[seat];
    let name = text::inline(&s.name);
    // The name in double quotes when that is safe, as people write it.
    let name = if name
        .chars()
        .all(|c| c.is_alphanumeric() || " .-_'".contains(c))
    {
        format!("\"{name}\"")
    } else {
        shell_word(&name)
    };
    format!(
        "starry id new --name {name} --email {}",
        shell_word(&s.email)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::starry_sky::StarrySky;
    use crate::text::wrap;

    /// A game of Starry Sky for three, played in memory past its setup
    /// (there is a board to draw), written to `dir/game.jsonl`; returns its
    /// path, its bytes and the home of the last entry's author.
    fn game_with_a_board(dir: &Path) -> (std::path::PathBuf, Vec<u8>, std::path::PathBuf) {
        let players = crate::app::generate::identities(dir, 3).unwrap();
        let refs: Vec<(&Path, &Identity)> = players.iter().map(|(h, i)| (h.as_path(), i)).collect();
        let start = chrono::DateTime::parse_from_rfc3339("2026-11-20T10:00:00Z")
            .unwrap()
            .to_utc();
        let (bytes, r) = crate::app::demo::play_in_memory::<StarrySky>(
            &refs,
            &[],
            [7; 32],
            &mut crate::app::generate::clock(start),
            |r| r.state.is_some() && r.len() > 12,
        )
        .unwrap();
        let path = dir.join("game.jsonl");
        std::fs::write(&path, &bytes).unwrap();
        let author = r.entries.last().unwrap().author;
        (path, bytes, players[author].0.clone())
    }

    /// The outbox mails of a report, parsed: (text, html, whether a PNG is
    /// in it).
    fn mails_of(report: &MailReport) -> Vec<(String, String, bool)> {
        report
            .sent
            .iter()
            .map(|s| {
                let eml = std::fs::read(s.path.as_ref().unwrap()).unwrap();
                let m = mail_parser::MessageParser::default().parse(&eml).unwrap();
                let png = m
                    .parts
                    .iter()
                    .any(|p| mail_parser::MimeHeaders::is_content_type(p, "image", "png"));
                (
                    m.body_text(0).unwrap().replace("\r\n", "\n"),
                    m.body_html(0).unwrap().to_string(),
                    png,
                )
            })
            .collect()
    }

    #[test]
    fn a_picture_that_cannot_be_drawn_stops_no_mail() {
        let dir = tempfile::tempdir().unwrap();
        let (path, bytes, sender) = game_with_a_board(dir.path());
        let cfg = MailConfig::default();
        let r = Replay::<StarrySky>::from_bytes(&bytes).unwrap();
        let id16 = short_id(&r.game_id);

        // As it should be: every mail carries the picture.
        let fine =
            send_game::<StarrySky>(&path, &bytes, &cfg, &sender, Sending::default(), &draw_png)
                .unwrap();
        assert_eq!(fine.sent.len(), 2, "{fine:?}");
        assert!(
            fine.failed.is_empty() && fine.warnings.is_empty(),
            "{fine:?}"
        );
        for (text, _, png) in mails_of(&fine) {
            assert!(png);
            assert!(!text.contains("could not be drawn"), "{text}");
        }

        // The renderer fails (with a message that must not reach a terminal
        // as it is): the mails go all the same, without the picture, each
        // saying so in its text and its HTML; the report warns.
        let broken = |_: &str| -> std::result::Result<Vec<u8>, String> {
            Err("out of memory\u{1b}[2J".into())
        };
        let report = send_game::<StarrySky>(
            &path,
            &bytes,
            &cfg,
            &sender,
            Sending {
                resend: true,
                ..Sending::default()
            },
            &broken,
        )
        .unwrap();
        assert_eq!(report.sent.len(), 2, "{report:?}");
        assert!(report.failed.is_empty(), "{report:?}");
        assert_eq!(report.warnings.len(), 1, "{report:?}");
        assert!(
            report.warnings[0]
                .contains("the board picture could not be drawn (out of memory\\u{1b}[2J)"),
            "{report:?}"
        );
        let said = format!(
            "The board picture could not be drawn: out of memory\\u{{1b}}[2J; `starry view {id16}` shows it."
        );
        for (text, html, png) in mails_of(&report) {
            assert!(!png, "no picture");
            assert!(!text.contains('\u{1b}') && !html.contains('\u{1b}'));
            assert!(text.replace('\n', " ").contains(&said), "{text}");
            assert!(html.contains(&crate::picture::esc(&said)), "{html}");
            assert!(!html.contains("<img"), "{html}");
            // Everything else is there: the view in words, the commands.
            assert!(text.contains("What to do now"), "{text}");
            assert!(text.contains("The game now"), "{text}");
        }
        // The command's report says it, and it is no failure.
        let shown = report_text(&report, &cfg);
        assert!(
            shown.contains("Warning: the board picture could not be drawn"),
            "{shown}"
        );
        assert!(failure_text(&report).is_none());
    }

    /// The attachment of each outbox mail of a report.
    fn attachments_of(report: &MailReport) -> Vec<Vec<u8>> {
        report
            .sent
            .iter()
            .map(|s| {
                let eml = std::fs::read(s.path.as_ref().unwrap()).unwrap();
                let mut logs = crate::mail::find_logs(&eml, 1 << 24).unwrap();
                assert_eq!(logs.len(), 1);
                logs.remove(0)
            })
            .collect()
    }

    #[test]
    fn a_player_url_puts_a_link_with_the_attached_entries_in_every_mail() {
        let dir = tempfile::tempdir().unwrap();
        let (path, bytes, sender) = game_with_a_board(dir.path());
        let plain = MailConfig::default();
        let url = "https://example.org/starry/";
        let with_url = MailConfig {
            player_url: Some(url.into()),
            ..MailConfig::default()
        };
        let secret: serde_json::Value = serde_json::from_slice(
            &std::fs::read(sender.join(crate::crypto::identity::FILE_NAME)).unwrap(),
        )
        .unwrap();
        let secret = secret["secret"].as_str().unwrap().to_string();
        assert!(secret.len() >= 32);

        let send = |cfg: &MailConfig| {
            let how = Sending {
                resend: true,
                ..Sending::default()
            };
            send_game::<StarrySky>(&path, &bytes, cfg, &sender, how, &draw_png).unwrap()
        };
        let without = send(&plain);
        for (text, html, _) in mails_of(&without) {
            assert!(!text.contains("#log=") && !html.contains("#log="), "{text}");
            assert!(!text.contains(body::PLAY_IN_BROWSER), "{text}");
        }
        // Every mail, and the full log too (`--full`): the link carries
        // exactly what the attachment carries, in the text and the HTML.
        for report in [
            send(&with_url),
            send_game::<StarrySky>(
                &path,
                &bytes,
                &with_url,
                &sender,
                Sending {
                    full: true,
                    resend: true,
                    ..Sending::default()
                },
                &draw_png,
            )
            .unwrap(),
        ] {
            assert_eq!(report.sent.len(), 2, "{report:?}");
            let attached = attachments_of(&report);
            for ((text, html, _), log) in mails_of(&report).into_iter().zip(attached) {
                let link = starry_core::link::link_of(url, &log);
                assert!(
                    text.contains(&format!("{}\n{link}\n", body::PLAY_IN_BROWSER)),
                    "{text}"
                );
                assert!(
                    html.contains(&format!("<a href=\"{link}\"")),
                    "the HTML part has the same link"
                );
                let (_, fragment) = link.split_once('#').unwrap();
                assert_eq!(starry_core::link::entries_of(fragment).unwrap(), log);
                for part in [&text, &html] {
                    assert!(!part.contains(&secret), "no secret in the mail");
                }
                assert!(!link.contains(&secret));
                assert!(!String::from_utf8_lossy(&log).contains(&secret));
            }
        }
    }

    #[test]
    fn the_robots_paragraph_carries_the_link_only_with_a_player_url() {
        let log = b"{\"body\":{}}\n";
        assert_eq!(link_paragraph(&MailConfig::default(), log), None);
        let cfg = MailConfig {
            player_url: Some("https://example.org/p/".into()),
            ..MailConfig::default()
        };
        let p = link_paragraph(&cfg, log).unwrap();
        let link = starry_core::link::link_of("https://example.org/p/", log);
        assert!(p.starts_with(body::PLAY_IN_BROWSER), "{p}");
        assert!(p.contains(&format!("\n{link}\nThe link carries")), "{p}");
        assert!(p.ends_with("to the site.\n"), "{p}");
    }

    #[test]
    fn words_for_a_shell_come_back_as_they_were() {
        for s in [
            "Ben",
            "Anna Maria",
            "O'Brien",
            "Zoë \"Zo\" $HOME `id` !x \\ ; rm -rf ~ &",
            "ben+tag@example.org",
            "-n",
            "",
        ] {
            let word = shell_word(s);
            let out = std::process::Command::new("sh")
                .arg("-c")
                .arg(format!("printf '%s' {word}"))
                .output()
                .unwrap();
            assert_eq!(String::from_utf8(out.stdout).unwrap(), s, "{word}");
        }
        // A line break cannot end the command: it is escaped first.
        assert!(!shell_word("a\nb").contains('\n'));
    }

    #[test]
    fn wraps_with_indent() {
        let w = wrap("1. one two three four five six\n", 13, "   ");
        assert_eq!(w, "1. one two\n   three four\n   five six\n");
        assert_eq!(wrap("   a b\n", 80, ""), "   a b\n");
    }
}
