//! The body of a turn mail: its first lines, the steps, and the public
//! view, as a list of [`Block`]s that the text part and the HTML part both
//! write out. The two carry the same words — the HTML adds only the
//! picture, whose content the view in words gives too — so that a spam
//! filter comparing them (SpamAssassin's `MPART_ALT_DIFF_COUNT`) finds no
//! difference, and the HTML is never a picture with a few words beside it
//! (`HTML_IMAGE_ONLY_*`).

use crate::text::wrap;

use super::{About, Picture, Recipient, Role, Sending};
use super::{first_or_next, id_new_command, move_hint, next_command, next_countersigner};
use crate::app::{clock, history, status_of, status_text};
use crate::games::{Game, Seat};
use crate::log::{Action, Replay};
use crate::text;

/// The public part, the same for every recipient: where the game stands,
/// who is who, and the spectator view. Nothing in it depends on a secret.
pub(super) fn public_text<G: Game>(r: &Replay<G>) -> String {
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

/// The first lines of a mail: what is asked of the recipient at `seat` —
/// or whom the game waits for — then, in a reminder, since when. It comes
/// first, before any greeting, since it is what a mail program shows of a
/// message beside its subject.
fn headline<G: Game>(
    r: &Replay<G>,
    id16: &str,
    seat: Seat,
    role: Role,
    how: Sending,
) -> Vec<String> {
    let mut out = Vec::new();
    let title = history::title(G::NAME);
    let id8 = &id16[..8];
    out.push(match role {
        Role::Act(a) => format!("It is your turn in {title} {id8}: {}.", asked(a)),
        Role::Info => {
            let (a, who) = r.expected();
            format!(
                "Nothing to do for you now in {title} {id8}: {} must {} next.",
                who.map_or("nobody".into(), |w| r.name(w)),
                a.as_str()
            )
        }
        Role::Over if clock::late_answer_at(r, seat).is_some() => format!(
            "{title} {id8} ended with claims that you stopped answering. Your move still wins \
             against them, however late."
        ),
        Role::Over => {
            let when = first_or_next(r);
            match next_countersigner(r) {
                Some(n) if n == seat => format!(
                    "{title} {id8} is over. You countersign {when}: the others wait for your \
                     countersignature."
                ),
                Some(n) if r.countersigned.contains(&seat) => format!(
                    "{title} {id8} is over. You have countersigned; {} countersigns {when}.",
                    r.name(n)
                ),
                Some(n) => format!(
                    "{title} {id8} is over. {} countersigns {when}; please wait for a mail that \
                     names you before you countersign.",
                    r.name(n)
                ),
                None => {
                    format!("{title} {id8} is over. Every player has countersigned the result.")
                }
            }
        }
    });
    // The clock of the player asked to act, in their own mail: how long
    // they have, or that others may now claim the game abandoned.
    if let (Role::Act(_), Some(clock)) = (role, r.clock())
        && clock.seat == seat
        && let Some(now) = crate::log::replay::time_seconds(&crate::log::replay::now())
    {
        out.push(if now < clock.due {
            format!(
                "You have {} to answer (until {}).",
                crate::log::replay::span_text((clock.due - now) as u64),
                clock::shown_time(clock.due)
            )
        } else {
            format!(
                "Your time ran out {} ago ({}): any other player may now claim the game \
                 abandoned. Answer now and your entry stands.",
                crate::log::replay::span_text((now - clock.due) as u64),
                clock::shown_time(clock.due)
            )
        });
    }
    if how.remind {
        out.push(format!(
            "A reminder: the game has waited for you since {} (entry {}).",
            history::short_time(&r.entries.last().map(|e| e.time.clone()).unwrap_or_default()),
            r.len() - 1
        ));
    }
    out
}

/// What starry is, for someone invited to a game who may never have heard
/// of it.
fn about_starry<G: Game>(r: &Replay<G>) -> String {
    let title = history::title(G::NAME);
    format!(
        "{} invites you to a game of {title} by e-mail. starry is the program that plays it: \
         every move is an entry in a log, signed by its player and chained to the entries \
         before it by their hashes, and every player's program checks every entry itself, so \
         there is nothing and nobody to trust — no server, and not the other players either.",
        r.name(0),
    )
}

/// What an invited player must know of the computer seats (the genesis
/// names each one's operator, docs/protocol.md section 3.4): their
/// operator sees what they hold face down and signs their moves, so a
/// computer is no independent player. One paragraph each.
fn computers_text<G: Game>(r: &Replay<G>) -> Vec<String> {
    (0..r.seat_count())
        .filter(|&s| r.operator_of(s) != s)
        .map(|s| {
            let op = r.name(r.operator_of(s));
            format!(
                "{} (seat {s}) is a computer that {op}'s machine plays: {op} can see its \
                 face-down tokens and signs its moves, so it plays on {op}'s side, not as a \
                 player of its own.",
                r.name(s)
            )
        })
        .collect()
}

/// One piece of a mail's body, written out alike as text and as HTML.
enum Block {
    /// A paragraph; `strong` for the first lines, which say what is asked.
    Para { text: String, strong: bool },
    /// A heading, underlined in the text.
    Heading(String),
    /// A line, then lines under it (what happened since the recipient's
    /// last entry, one line per entry).
    List { head: String, items: Vec<String> },
    /// Step `n` of "What to do now": its text, then the command to run, if
    /// any, on a line of its own.
    Step {
        n: u32,
        what: String,
        command: Option<String>,
    },
    /// A remark on the step before it (how a move is written).
    Hint(String),
    /// Lines kept exactly as they are (the public view).
    Pre(String),
    /// The board picture, in the HTML only: both parts show the same game
    /// in words ([`Block::Pre`]).
    Picture { cid: String, alt: String },
    /// A sentence, a link on a line of its own (the player link: too long
    /// to wrap, and a mail program makes a whole line of it clickable),
    /// then a sentence about it, all one paragraph. The words after the
    /// link are not only for the reader: SpamAssassin cuts a paragraph into
    /// pieces of 2048 characters, and the last piece of a link alone, when
    /// 24 to 84 characters long, looks to it like a tracking number
    /// (`TRACKER_ID`).
    Link {
        text: String,
        url: String,
        after: String,
    },
}

/// A plain paragraph.
fn para(text: String) -> Block {
    Block::Para {
        text,
        strong: false,
    }
}

/// The body of the mail to `to`, block by block: what is asked, the
/// greeting (and, in an invitation, what starry is), what happened since
/// the recipient's last entry, the picture, the steps, and the game now.
fn blocks<G: Game>(about: &About<'_, G>, to: &Recipient<'_>) -> Vec<Block> {
    let (r, id16) = (about.r, about.id16);
    let mut b: Vec<Block> = headline(r, id16, to.seat, to.role, about.how)
        .into_iter()
        .map(|text| Block::Para { text, strong: true })
        .collect();
    b.push(para(format!(
        "Hello {},",
        text::inline(&r.genesis.seats[to.seat].name)
    )));
    let invited = to.role == Role::Act(Action::Join);
    if invited {
        b.push(para(about_starry(r)));
        b.extend(computers_text(r).into_iter().map(para));
    }
    if !to.since.is_empty() {
        b.push(since_list(to.since, id16));
    }
    match about.picture {
        Picture::Drawn(_) => b.push(Block::Picture {
            cid: about.thread.picture_id(r.len() - 1),
            alt: format!("The game after entry {}, as everybody sees it", r.len() - 1),
        }),
        Picture::Failed(why) => b.push(para(no_picture(why, id16))),
        Picture::NoBoard => {}
    }
    if let Some(url) = &to.link {
        b.push(Block::Link {
            text: PLAY_IN_BROWSER.into(),
            url: url.clone(),
            after: LINK_CARRIES.into(),
        });
    }
    b.push(Block::Heading("What to do now".into()));
    let mut steps = Steps { b, n: 0 };
    if invited {
        install_steps(&mut steps, r, to.seat);
    }
    take_in_steps(&mut steps, &to.log_name);
    match to.role {
        Role::Act(a) => act_steps(&mut steps, r, id16, a),
        Role::Info => {}
        Role::Over => over_steps(&mut steps, r, id16, to.seat),
    }
    let mut b = steps.b;
    game_now(&mut b, about, to);
    b
}

/// "Since your last entry:" and one line per entry: the latest
/// [`history::SINCE_MAX`], after a pointer to `starry history` for the
/// others.
fn since_list(since: &[history::Event], id16: &str) -> Block {
    let skip = since.len().saturating_sub(history::SINCE_MAX);
    let mut items = Vec::new();
    if skip > 0 {
        items.push(format!(
            "({skip} earlier entries: `starry history {id16}` tells them all)"
        ));
    }
    items.extend(
        since[skip..]
            .iter()
            .map(|e| format!("{:>3}. {}", e.entry, text::inline(&e.text))),
    );
    Block::List {
        head: "Since your last entry:".into(),
        items,
    }
}

/// The words before a player link (docs/mail.md, "Player links").
pub(super) use starry_core::link::PLAY_IN_BROWSER;

/// The words after a player link.
pub(super) const LINK_CARRIES: &str = "The link carries the entries of the attached file, after its `#`: \
                            a browser never sends that part to the site.";

/// The steps of "What to do now", numbered as they come.
struct Steps {
    b: Vec<Block>,
    n: u32,
}

impl Steps {
    /// The next step: what to do, and the command that does it, if any.
    fn step(&mut self, what: &str, command: Option<&str>) {
        self.n += 1;
        self.b.push(Block::Step {
            n: self.n,
            what: what.to_string(),
            command: command.map(str::to_string),
        });
    }
}

/// The one line a mail holds instead of the picture it could not draw.
fn no_picture(why: &str, id16: &str) -> String {
    format!("The board picture could not be drawn: {why}; `starry view {id16}` shows it.")
}

/// The first steps of an invited player: install starry, and create the
/// identity their seat asks for (or use the one it is pinned to).
fn install_steps<G: Game>(s: &mut Steps, r: &Replay<G>, seat: Seat) {
    s.step(
        &format!(
            "Install starry, once. It is installed from a copy of its source code (ask {} \
             where to get one) with cargo, which comes with Rust (see rustup.rs): in the \
             directory of that copy, run",
            r.name(0)
        ),
        Some("cargo install --path . --locked"),
    );
    match &r.genesis.seats[seat].key {
        None => s.step(
            "Create your starry identity, once: your name, your address and the key that \
             signs your entries, kept in your starry directory ($STARRY_HOME, by default \
             ~/.config/starry). Skip this if you have one already.",
            Some(&id_new_command(r, seat)),
        ),
        Some(key) => s.step(
            &format!(
                "Your seat is pinned to the starry key {}: use the identity that holds it \
                 (`starry id show` shows your key).",
                crate::log::replay::fingerprint(&key.0)
            ),
            None,
        ),
    }
}

/// The steps of every recipient: save the attached log, and take it in.
fn take_in_steps(s: &mut Steps, log_name: &str) {
    s.step(
        &format!(
            "Save the attached file {log_name}, or this whole mail as a file, say turn.eml \
             (in most mail programs: \"Save as\", \"Download message\" or \"Show original\")."
        ),
        None,
    );
    s.step(
        "Take it in. This verifies every entry and brings your copy of the game up to date; it \
         refuses anything that does not continue your copy:",
        Some(&format!("starry ingest {log_name}      (or turn.eml)")),
    );
}

/// The steps of the player who must act: look, then do `a` and mail on.
fn act_steps<G: Game>(s: &mut Steps, r: &Replay<G>, id16: &str, a: Action) {
    s.step(
        &format!(
            "Look at the game{}:",
            if hides::<G>() {
                " (your view shows your own face-down tokens too)"
            } else {
                ""
            }
        ),
        Some(&format!("starry view {id16}")),
    );
    s.step(
        &format!(
            "{} and mail the log on, in one command:",
            match a {
                Action::Join => "Join",
                Action::Ready => "Send your ready",
                Action::Move => "Make your move",
                Action::Reveal => "Reveal",
                Action::Over => "Countersign",
            }
        ),
        Some(&next_command(r, a, id16)),
    );
    if a == Action::Move {
        s.b.push(Block::Hint(move_hint(r).1));
    }
}

/// The steps after the end for the player at `seat`: answer the claims
/// that placed them last, countersign, wait for the mail that names them,
/// or nothing.
fn over_steps<G: Game>(s: &mut Steps, r: &Replay<G>, id16: &str, seat: Seat) {
    if let Some(k) = clock::late_answer_at(r, seat) {
        s.step(
            &format!(
                "Answer: the others claimed that you had stopped answering, but your move \
                 still wins against the claims, however late, until you countersign. It is \
                 written at entry {k}, in place of the claims, and the game goes on. List \
                 your moves with `starry moves {id16}`, then play and mail the log on (do not \
                 countersign: that would accept being placed last for good):"
            ),
            Some(&format!("starry play {id16} MOVE --mail")),
        );
        return;
    }
    let when = first_or_next(r);
    let cmd = next_command(r, Action::Over, id16);
    match next_countersigner(r) {
        Some(x) if x == seat => s.step(
            &format!(
                "If you agree with the result, countersign it now. You countersign \
                 {when}: the others wait for your countersignature, so that no two are \
                 written at once."
            ),
            Some(&cmd),
        ),
        Some(x) if !r.countersigned.contains(&seat) => s.step(
            &format!(
                "Wait: {} countersigns {when}, and the mail of each countersignature \
                 names the player who countersigns after it, one at a time, so that no \
                 two are written at once. When a mail names you, take it in as above \
                 and, if you agree with the result, countersign it (should {} never \
                 countersign, countersign all the same: the protocol settles \
                 countersignatures written at once):",
                r.name(x),
                r.name(x)
            ),
            Some(&cmd),
        ),
        Some(x) => s.step(
            &format!(
                "Nothing more: you have countersigned, and {} countersigns {when}.",
                r.name(x)
            ),
            None,
        ),
        None => s.step(
            "Nothing more: every player has countersigned the result.",
            None,
        ),
    }
}

/// The end of the body: where the copy of the game is, the game as
/// everybody sees it, and what the attachment holds.
fn game_now<G: Game>(b: &mut Vec<Block>, about: &About<'_, G>, to: &Recipient<'_>) {
    let id16 = about.id16;
    b.push(para(format!(
        "({id16} names your copy of the game in $STARRY_HOME/games/; for a copy elsewhere, \
         give its path, and `--into FILE` to `starry ingest`.)"
    )));
    b.push(para(
        if hides::<G>() {
            "The game now, as everybody sees it (this mail knows nobody's secrets, so your \
             face-down tokens are hidden too; `starry view` shows them):"
        } else {
            "The game now:"
        }
        .into(),
    ));
    b.push(Block::Pre(about.public.trim_end().to_string()));
    b.push(para(carried(about.r, to.from_entry, &to.log_name)));
    b.push(para(why_this_mail(about.r, id16, to)));
}

/// Why the recipient gets this mail, and where it comes from: a stranger
/// invited to a game asks first, and a mail that says so is no mail to
/// report as spam. An invitation also says how to decline, a report why
/// reports come.
fn why_this_mail<G: Game>(r: &Replay<G>, id16: &str, to: &Recipient<'_>) -> String {
    let title = history::title(G::NAME);
    let id8 = &id16[..8];
    let game = if to.seat == 0 {
        format!("you created {title} {id8}")
    } else {
        format!(
            "{} <{}> seated you in {title} {id8}",
            r.name(0),
            text::inline(&r.genesis.seats[0].email)
        )
    };
    let mut t = format!(
        "Why this mail: {game}, a game played by e-mail with starry, at the address {}. Each \
         mail of the game comes from the program of the player who wrote its latest entry, not \
         from a server, and the mails stop once every player has countersigned the result.",
        text::inline(&r.genesis.seats[to.seat].email)
    );
    match to.role {
        Role::Act(Action::Join) => t.push_str(
            " If you do not want to play, reply and say so: the game cannot start without you.",
        ),
        Role::Info => t.push_str(
            " A short report like this one goes to the players who asked, when they joined, \
             for a mail about every entry (`starry join --notify turn` asks for turns only), \
             and to everyone when the sender chose `starry mail --to-all`.",
        ),
        _ => {}
    }
    t
}

/// Whether the game has face-down things the mail must say it leaves out.
fn hides<G: Game>() -> bool {
    !G::hidden_values().is_empty()
}

/// What the attachment holds, and what to do if it is not enough.
fn carried<G: Game>(r: &Replay<G>, from_entry: usize, log_name: &str) -> String {
    let last = r.len() - 1;
    if from_entry == 0 {
        format!("The attached {log_name} is the whole log (entries 0 to {last}).")
    } else {
        format!(
            "The attached {log_name} holds entries {from_entry} to {last}: those written since \
             your last entry, which your copy lacks. If `starry ingest` says that it needs a \
             full copy, ask the sender to run `starry mail GAME --full`."
        )
    }
}

/// The text part: [`blocks`] wrapped at [`WIDTH`]. Names and summaries
/// come from the log and are made [`text::inline`] where they are
/// inserted, so none can fake a line of the instructions; compose makes
/// the whole text [`text::terminal`].
pub(super) fn body_text<G: Game>(about: &About<'_, G>, to: &Recipient<'_>) -> String {
    text_of(&blocks(about, to))
}

/// `blocks` as text: a blank line between two blocks, but none under a
/// heading nor between the steps; no picture.
fn text_of(blocks: &[Block]) -> String {
    let mut t = String::new();
    let mut prev: Option<&Block> = None;
    for block in blocks {
        if matches!(block, Block::Picture { .. }) {
            continue;
        }
        let tight = matches!(
            (prev, block),
            (None | Some(Block::Heading(_)), _)
                | (
                    Some(Block::Step { .. } | Block::Hint(_)),
                    Block::Step { .. } | Block::Hint(_)
                )
        );
        if !tight {
            t.push('\n');
        }
        prev = Some(block);
        match block {
            Block::Para { text, .. } => t.push_str(&wrap(&format!("{text}\n"), WIDTH, "")),
            Block::Heading(h) => t.push_str(&format!("{h}\n{}\n", "-".repeat(h.chars().count()))),
            Block::List { head, items } => {
                t.push_str(&format!("{head}\n"));
                for item in items {
                    t.push_str(&wrap(&format!("  {item}\n"), 80, "       "));
                }
            }
            Block::Step { n, what, command } => {
                t.push_str(&wrap(&format!("{n}. {what}\n"), WIDTH, "   "));
                if let Some(c) = command {
                    t.push_str(&format!("     {c}\n"));
                }
            }
            Block::Hint(h) => t.push_str(&wrap(&format!("   {h}\n"), WIDTH, "   ")),
            Block::Pre(p) => t.push_str(&format!("{p}\n")),
            Block::Picture { .. } => {}
            Block::Link { text, url, after } => {
                t.push_str(&wrap(&format!("{text}\n"), WIDTH, ""));
                t.push_str(&format!("{url}\n"));
                t.push_str(&wrap(&format!("{after}\n"), WIDTH, ""));
            }
        }
    }
    t
}

/// The HTML part: the same blocks, with the board drawn (the PNG travels
/// inline in the mail, `cid:`, since many mail programs show no SVG).
/// Everything from the log is escaped; no style sheet, no script, no
/// remote image.
pub(super) fn body_html<G: Game>(about: &About<'_, G>, to: &Recipient<'_>) -> String {
    html_of(&blocks(about, to))
}

/// `blocks` as an HTML document, styled inline as mail programs require
/// (several drop a style sheet): readable on a phone, each command in a
/// box of its own that wraps rather than running off the screen, the view
/// kept as drawn and scrolled sideways when it is wider than the screen.
fn html_of(blocks: &[Block]) -> String {
    use crate::picture::esc;
    const P: &str = "<p style=\"margin:0 0 12px\">";
    const MONO: &str = "font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace;font-size:13px";
    let command = format!(
        "<pre style=\"{MONO};margin:4px 0 12px 24px;padding:6px 10px;background:#f1f3f5;\
         border-radius:4px;white-space:pre-wrap;overflow-wrap:anywhere\">"
    );
    let view = format!(
        "<pre style=\"{MONO};margin:0 0 12px;padding:8px 10px;background:#f8f9fa;\
         border:1px solid #dee2e6;border-radius:4px;overflow-x:auto\">"
    );
    let mut h = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"></head>\n\
         <body style=\"margin:0;padding:16px;font-family:'DejaVu Sans',Verdana,sans-serif;\
         font-size:15px;line-height:1.45;color:#1a1a1a;background:#ffffff\">\n\
         <div style=\"max-width:46em\">\n",
    );
    for block in blocks {
        match block {
            Block::Para { text, strong: true } => {
                h.push_str(&format!("{P}<strong>{}</strong></p>\n", esc(text)));
            }
            Block::Para { text, .. } => h.push_str(&format!("{P}{}</p>\n", esc(text))),
            Block::Heading(t) => h.push_str(&format!(
                "<h3 style=\"margin:20px 0 8px;font-size:17px\">{}</h3>\n",
                esc(t)
            )),
            Block::List { head, items } => {
                h.push_str(&format!("{P}{}", esc(head)));
                for item in items {
                    h.push_str(&format!("<br>\n{}", esc(item.trim_start())));
                }
                h.push_str("</p>\n");
            }
            Block::Step {
                n,
                what,
                command: c,
            } => {
                h.push_str(&format!(
                    "<p style=\"margin:0 0 4px\">{n}. {}</p>\n",
                    esc(what)
                ));
                if let Some(c) = c {
                    h.push_str(&format!("{command}{}</pre>\n", esc(c)));
                }
            }
            Block::Hint(t) => h.push_str(&format!(
                "<p style=\"margin:0 0 12px 24px\">{}</p>\n",
                esc(t)
            )),
            // Line by line: `esc` writes a line break as a visible `\u{a}`.
            Block::Pre(p) => h.push_str(&format!(
                "{view}{}</pre>\n",
                p.lines().map(esc).collect::<Vec<_>>().join("\n")
            )),
            Block::Picture { cid, alt } => h.push_str(&format!(
                "{P}<img src=\"cid:{}\" alt=\"{}\" style=\"max-width:100%;height:auto\"></p>\n",
                esc(cid),
                esc(alt)
            )),
            // The address is its own text, as in the text part: the same
            // words in both (`MPART_ALT_DIFF_COUNT`), and a link whose text
            // names another address than it leads to is what phishing does.
            Block::Link { text, url, after } => h.push_str(&format!(
                "{P}{}<br>\n<a href=\"{}\" style=\"overflow-wrap:anywhere;word-break:break-all\">\
                 {}</a><br>\n{}</p>\n",
                esc(text),
                esc(url),
                esc(url),
                esc(after)
            )),
        }
    }
    h.push_str("</div>\n</body></html>\n");
    h
}

/// Width of the mail's paragraphs.
const WIDTH: usize = 72;

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
