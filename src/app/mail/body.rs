//! The parts of a turn mail's body: its first lines, the text part with
//! its steps, the HTML part, and the public view they share.

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
         there is nothing and nobody to trust — no server, and not the other players either.\n{}",
        r.name(0),
        computers_text(r)
    )
}

/// What an invited player must know of the computer seats (the genesis
/// names each one's operator, docs/protocol.md section 3.4): their
/// operator sees what they hold face down and signs their moves, so a
/// computer is no independent player.
fn computers_text<G: Game>(r: &Replay<G>) -> String {
    (0..r.seat_count())
        .filter(|&s| r.operator_of(s) != s)
        .map(|s| {
            let op = r.name(r.operator_of(s));
            format!(
                "{} (seat {s}) is a computer that {op}'s machine plays: {op} can see its \
                 face-down tokens and signs its moves, so it plays on {op}'s side, not as a \
                 player of its own.\n",
                r.name(s)
            )
        })
        .collect()
}

/// Writes step `n` of "What to do now": its text as a paragraph, then the
/// command to run, if any, indented on a line of its own.
fn step(t: &mut String, n: &mut u32, what: &str, command: Option<&str>) {
    *n += 1;
    t.push_str(&wrap(&format!("{n}. {what}\n"), WIDTH, "   "));
    if let Some(c) = command {
        t.push_str(&format!("     {c}\n"));
    }
}

/// The one line a mail holds instead of the picture it could not draw.
fn no_picture(why: &str, id16: &str) -> String {
    format!("The board picture could not be drawn: {why}; `starry view {id16}` shows it.")
}

/// The text part. Names and summaries come from the log and are made
/// [`text::inline`] where they are inserted, so none can fake a line of the
/// instructions; compose makes the whole text [`text::terminal`].
pub(super) fn body_text<G: Game>(about: &About<'_, G>, to: &Recipient<'_>) -> String {
    let r = about.r;
    let mut t = String::new();
    for line in headline(r, about.id16, to.seat, to.role, about.how) {
        t.push_str(&wrap(&format!("{line}\n"), WIDTH, ""));
        t.push('\n');
    }
    t.push_str(&format!(
        "Hello {},\n\n",
        text::inline(&r.genesis.seats[to.seat].name)
    ));
    let invited = to.role == Role::Act(Action::Join);
    if invited {
        t.push_str(&wrap(&about_starry(r), WIDTH, ""));
        t.push('\n');
    }
    t.push_str(&history::since_text(to.since, about.id16));
    t.push_str("\nWhat to do now\n--------------\n");
    let mut n = 0;
    if invited {
        install_steps(&mut t, &mut n, r, to.seat);
    }
    take_in_steps(&mut t, &mut n, &to.log_name);
    match to.role {
        Role::Act(a) => act_steps(&mut t, &mut n, r, about.id16, a),
        Role::Info => {}
        Role::Over => over_steps(&mut t, &mut n, r, about.id16, to.seat),
    }
    t.push('\n');
    t.push_str(&game_now_text(about, to));
    t
}

/// The first steps of an invited player: install starry, and create the
/// identity their seat asks for (or use the one it is pinned to).
fn install_steps<G: Game>(t: &mut String, n: &mut u32, r: &Replay<G>, seat: Seat) {
    step(
        t,
        n,
        &format!(
            "Install starry, once. It is installed from a copy of its source code (ask {} \
             where to get one) with cargo, which comes with Rust (see rustup.rs): in the \
             directory of that copy, run",
            r.name(0)
        ),
        Some("cargo install --path . --locked"),
    );
    match &r.genesis.seats[seat].key {
        None => step(
            t,
            n,
            "Create your starry identity, once: your name, your address and the key that \
             signs your entries, kept in your starry directory ($STARRY_HOME, by default \
             ~/.config/starry). Skip this if you have one already.",
            Some(&id_new_command(r, seat)),
        ),
        Some(key) => step(
            t,
            n,
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
fn take_in_steps(t: &mut String, n: &mut u32, log_name: &str) {
    step(
        t,
        n,
        &format!(
            "Save the attached file {log_name}, or this whole mail as a file, say turn.eml \
             (in most mail programs: \"Save as\", \"Download message\" or \"Show original\")."
        ),
        None,
    );
    step(
        t,
        n,
        "Take it in. This verifies every entry and brings your copy of the game up to date; it \
         refuses anything that does not continue your copy:",
        Some(&format!("starry ingest {log_name}      (or turn.eml)")),
    );
}

/// The steps of the player who must act: look, then do `a` and mail on.
fn act_steps<G: Game>(t: &mut String, n: &mut u32, r: &Replay<G>, id16: &str, a: Action) {
    step(
        t,
        n,
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
    step(
        t,
        n,
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
        t.push_str(&wrap(&format!("   {}\n", move_hint(r).1), WIDTH, "   "));
    }
}

/// The steps after the end for the player at `seat`: answer the claims
/// that placed them last, countersign, wait for the mail that names them,
/// or nothing.
fn over_steps<G: Game>(t: &mut String, n: &mut u32, r: &Replay<G>, id16: &str, seat: Seat) {
    if let Some(k) = clock::late_answer_at(r, seat) {
        step(
            t,
            n,
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
        Some(x) if x == seat => step(
            t,
            n,
            &format!(
                "If you agree with the result, countersign it now. You countersign \
                 {when}: the others wait for your countersignature, so that no two are \
                 written at once."
            ),
            Some(&cmd),
        ),
        Some(x) if !r.countersigned.contains(&seat) => step(
            t,
            n,
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
        Some(x) => step(
            t,
            n,
            &format!(
                "Nothing more: you have countersigned, and {} countersigns {when}.",
                r.name(x)
            ),
            None,
        ),
        None => step(
            t,
            n,
            "Nothing more: every player has countersigned the result.",
            None,
        ),
    }
}

/// The end of the text part: where the copy of the game is, the picture
/// that could not be drawn, the game as everybody sees it, and what the
/// attachment holds.
fn game_now_text<G: Game>(about: &About<'_, G>, to: &Recipient<'_>) -> String {
    let id16 = about.id16;
    let mut t = wrap(
        &format!(
            "({id16} names your copy of the game in $STARRY_HOME/games/; for a copy \
             elsewhere, give its path, and `--into FILE` to `starry ingest`.)\n"
        ),
        WIDTH,
        "",
    );
    if let Picture::Failed(why) = about.picture {
        t.push('\n');
        t.push_str(&wrap(&format!("{}\n", no_picture(why, id16)), WIDTH, ""));
    }
    t.push_str(&wrap(
        if hides::<G>() {
            "\nThe game now, as everybody sees it (this mail knows nobody's secrets, so \
             your face-down tokens are hidden too; `starry view` shows them):\n"
        } else {
            "\nThe game now:\n"
        },
        WIDTH,
        "",
    ));
    t.push('\n');
    t.push_str(about.public.trim_end());
    t.push_str("\n\n");
    t.push_str(&wrap(
        &carried(about.r, to.from_entry, &to.log_name),
        WIDTH,
        "",
    ));
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
pub(super) fn body_html<G: Game>(about: &About<'_, G>, to: &Recipient<'_>) -> String {
    use crate::picture::esc;
    let (r, id16) = (about.r, about.id16);
    let mut h = String::from(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"></head>\n\
         <body style=\"font-family:'DejaVu Sans',Verdana,sans-serif;color:#1a1a1a\">\n",
    );
    for line in headline(r, id16, to.seat, to.role, about.how) {
        h.push_str(&format!("<p><strong>{}</strong></p>\n", esc(&line)));
    }
    h.push_str(&format!(
        "<p>Hello {},</p>\n",
        esc(&r.genesis.seats[to.seat].name)
    ));
    let invited = to.role == Role::Act(Action::Join);
    if invited {
        h.push_str(&format!("<p>{}</p>\n", esc(about_starry(r).trim_end())));
    }
    if !to.since.is_empty() {
        h.push_str("<p>Since your last entry:</p>\n<ol>\n");
        let skip = to.since.len().saturating_sub(history::SINCE_MAX);
        for e in &to.since[skip..] {
            h.push_str(&format!(
                "<li value=\"{}\">{}</li>\n",
                e.entry,
                esc(&e.text)
            ));
        }
        h.push_str("</ol>\n");
    }
    match about.picture {
        Picture::Drawn(_) => h.push_str(&format!(
            "<p><img src=\"cid:{}\" alt=\"The game after entry {}, as everybody sees it\" \
             style=\"max-width:100%\"></p>\n",
            esc(&about.thread.picture_id(r.len() - 1)),
            r.len() - 1
        )),
        Picture::Failed(why) => {
            h.push_str(&format!("<p>{}</p>\n", esc(&no_picture(why, id16))));
        }
        Picture::NoBoard => {}
    }
    let commands = html_commands(about, to);
    if !commands.is_empty() {
        h.push_str(&format!(
            "<p>{}</p>\n<pre>{}</pre>\n",
            if invited {
                "Install starry and create your identity once (the text part of this mail says \
                 how), then take in the attached log and join:"
            } else {
                "Take in the attached log, then act:"
            },
            commands
                .iter()
                .map(|c| esc(c))
                .collect::<Vec<_>>()
                .join("\n")
        ));
    }
    h.push_str(
        "<p style=\"color:#555\">The text part of this mail has the position in words and \
         every step; the attached file is the log.</p>\n</body></html>\n",
    );
    h
}

/// The commands of the HTML part, in the order the text part's steps give
/// them; none for a recipient who has nothing to do.
fn html_commands<G: Game>(about: &About<'_, G>, to: &Recipient<'_>) -> Vec<String> {
    let (r, id16, seat) = (about.r, about.id16, to.seat);
    let mut commands = Vec::new();
    if to.role == Role::Act(Action::Join) {
        commands.push("cargo install --path . --locked".to_string());
        if r.genesis.seats[seat].key.is_none() {
            commands.push(id_new_command(r, seat));
        }
    }
    commands.push(format!("starry ingest {}", to.log_name));
    match to.role {
        Role::Act(a) => {
            commands.push(format!("starry view {id16}"));
            commands.push(next_command(r, a, id16));
        }
        Role::Over if clock::late_answer_at(r, seat).is_some() => {
            commands.push(format!("starry moves {id16}"));
            commands.push(format!("starry play {id16} MOVE --mail"));
        }
        Role::Over if next_countersigner(r) == Some(seat) => {
            commands.push(next_command(r, Action::Over, id16));
        }
        Role::Info | Role::Over => commands.clear(),
    }
    commands
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
