//! From the parsed command line to the use cases in `app`: each clap
//! struct becomes the plain values a use case takes, and the questions
//! only a terminal can answer (before a resignation, say) are asked here.

use std::path::Path;

use super::{
    ActArgs, ArenaArgs, AuditArgs, Cli, Command, DemoArgs, IdCommand, JoinArgs, MailAction,
    MailArgs, MailSetupArgs, NewArgs, PlayArgs, ResignArgs, RulesCommand, ServeArgs, ViewArgs,
};
use crate::app::act::{self, Do};
use crate::app::{self, After, Output, log_path, then};
use crate::error::{Error, Result};
use crate::text::inline;

/// Runs the command `cli` names.
pub fn run(cli: Cli) -> Result<Output> {
    let json = cli.json;
    match cli.command {
        Command::Id(IdCommand::New { name, email }) => app::new_identity(&name, &email),
        Command::Id(IdCommand::Show) => app::show_identity(),
        Command::Id(IdCommand::Export { output }) => app::id::export(output.as_deref(), json),
        Command::Id(IdCommand::Import { file, replace }) => app::id::import(&file, replace),
        Command::New(a) => {
            let new = new_game(*a);
            then(new.after, || act::new_game(&new))
        }
        Command::Join(a) => join(a),
        Command::Ready(a) => act_then(a, Do::Ready),
        Command::Play(a) => play(a),
        Command::Reveal(a) => act_then(a, Do::Reveal),
        Command::Resign(a) => resign(a),
        Command::Abandon(a) => abandon(a),
        Command::Countersign(a) => countersign(a),
        Command::Mail(a) => mail(a),
        Command::Sync(a) => app::sync::run(
            &match a.maildir {
                Some(d) => app::sync::Source::Maildir(d),
                None => app::sync::Source::Imap,
            },
            a.watch,
            json,
        ),
        Command::Ingest(a) => app::ingest::ingest(a.input.as_deref(), a.into.as_deref()),
        Command::Status(f) => app::inspect::status(&log_path(&f.file)?),
        Command::View(a) => app::inspect::view(&log_path(&a.file)?, &show(&a)),
        Command::Moves(a) => app::moves::moves(&log_path(&a.file)?, a.limit),
        Command::History(a) => app::history::history(&log_path(&a.file)?, a.since_mine),
        Command::Games { ids: true, .. } => app::games::ids(),
        Command::Games { prune: true, .. } => app::games::prune(),
        Command::Games { .. } => app::games::list(),
        Command::Remind(f) => app::mail::remind(&log_path(&f.file)?),
        Command::Completions { shell } => Ok(super::docs::completions(shell)),
        Command::Man { command, dir } => match dir {
            Some(dir) => super::docs::man_dir(&dir),
            None => super::docs::man(command.as_deref()),
        },
        Command::Audit(a) => app::audit::run(&audit(a)),
        Command::Rules(r) => rules(r),
        Command::Demo(a) => app::demo::run(&demo(a)),
        Command::Serve(a) => crate::serve::run(&serve(&a)),
        Command::Robot(a) => app::robot::run(a.try_into()?, json),
        Command::Arena(a) => app::arena::run(&arena(a)?),
    }
}

/// `starry new`'s flags, as the use case takes them.
fn new_game(a: NewArgs) -> act::NewGame {
    act::NewGame {
        game: a.game,
        players: a.players,
        variants: a.variants,
        boards: a.boards,
        stars: a.stars,
        stars_file: a.stars_file,
        random_stars: a.random_stars,
        grid: a.grid,
        map: a.map,
        parts: a.parts,
        discs: a.discs,
        notify: a.notify.into(),
        deadline: a.deadline.seconds(),
        out: a.out,
        after: a.after.into(),
    }
}

fn join(a: JoinArgs) -> Result<Output> {
    let path = log_path(&a.file)?;
    let what = if a.allow_protocol_2 {
        Do::JoinProtocol2(a.notify.into())
    } else {
        Do::Join(a.notify.into())
    };
    let floor = a
        .min_deadline
        .map_or(app::clock::DEFAULT_MIN_DEADLINE, |d| {
            d.seconds().unwrap_or(0)
        });
    then(a.after.into(), || act::join(&path, what, floor))
}

/// A writing command, then what `--mail` and `--git-commit` ask for.
fn act_then(a: ActArgs, what: Do) -> Result<Output> {
    written(&a.file, a.after.into(), what, a.dry_run)
}

fn written(file: &Path, after: After, what: Do, dry_run: bool) -> Result<Output> {
    let path = log_path(file)?;
    then(after, || act::act_file(&path, what, dry_run))
}

fn play(a: PlayArgs) -> Result<Output> {
    let what = match (a.auto, a.r#move) {
        _ if a.bot.is_some() => Do::Bot(
            a.bot
                .and_then(crate::bot::Level::new)
                .unwrap_or(crate::bot::Level::DEFAULT),
            a.seed,
        ),
        (true, _) => Do::Auto,
        (false, Some(m)) if m.trim().is_empty() => {
            return Err(Error::Usage(
                "the move is empty; give a move, e.g. `starry play game.jsonl \"10 leo:3\"` \
                 (Starry Sky), `A-C` (Starry Night) or `\"corner1 f8 r90\"` (Star Map), or \
                 --auto for a random legal one"
                    .into(),
            ));
        }
        (false, Some(m)) => Do::Move(m),
        (false, None) => {
            return Err(Error::Usage(
                "give a move, e.g. `starry play game.jsonl \"10 leo:3\"` (Starry Sky: token, then \
                 star as labelled in `starry view`), `A-C` (Starry Night: an edge) or \
                 `\"corner1 f8 r90\"` (Star Map: disc, square, rotation), or --auto for \
                 whatever you must do next"
                    .into(),
            ));
        }
    };
    written(&a.file, a.after.into(), what, a.dry_run)
}

fn resign(a: ResignArgs) -> Result<Output> {
    let path = log_path(&a.file)?;
    if a.dry_run {
        return act::act_file(&path, Do::Resign, true);
    }
    if !a.yes {
        // Whatever would refuse the resignation (not your turn, the game
        // over) is said before the question, not after it.
        act::act_file(&path, Do::Resign, true)?;
        confirm(
            &a.file,
            &format!(
                "Resign {}? The game ends with you placed last; this cannot be undone.",
                inline(&crate::error::shown_path(&path))
            ),
            Asking {
                command: "resign",
                why: "resigning ends the game for you and cannot be undone",
                declined: "not resigned: nothing was written",
            },
        )?;
    }
    then(a.after.into(), || act::act_file(&path, Do::Resign, false))
}

fn abandon(a: ResignArgs) -> Result<Output> {
    let path = log_path(&a.file)?;
    if a.dry_run {
        return act::act_file(&path, Do::Abandon, true);
    }
    if !a.yes {
        // The dry run refuses what cannot be claimed (too early, your own
        // turn, the game over) before the question is asked.
        let dry = act::act_file(&path, Do::Abandon, true)?;
        confirm(
            &a.file,
            &format!(
                "{}? If every other player claims it too, the game ends with them placed last; \
                 until they countersign the result, an entry from them answers the claim.",
                dry.json["summary"]
                    .as_str()
                    .map(|s| s.replacen("claims that", "Claim that", 1))
                    .unwrap_or_else(|| "Claim the game abandoned".into())
            ),
            Asking {
                command: "abandon",
                why: "a claim that a player stopped answering can end the game for them",
                declined: "not claimed: nothing was written",
            },
        )?;
    }
    then(a.after.into(), || act::act_file(&path, Do::Abandon, false))
}

fn countersign(a: ResignArgs) -> Result<Output> {
    let path = log_path(&a.file)?;
    // A countersignature of claims against oneself gives up the late
    // answer that still wins (protocol §7): asked first, and the only path
    // that writes one.
    let what = match act::concede_question(&path)? {
        None => Do::Countersign,
        Some(question) => {
            if !a.yes && !a.dry_run {
                confirm(
                    &a.file,
                    &question,
                    Asking {
                        command: "countersign",
                        why: "countersigning the claims that you stopped answering gives up \
                              your answer, which still wins against them",
                        declined: "not countersigned: nothing was written; your move still \
                                   wins against the claims (`starry play`)",
                    },
                )?;
            }
            Do::Concede
        }
    };
    then(a.after.into(), || act::act_file(&path, what, a.dry_run))
}

/// What [`confirm`] says besides its question: the command to run with
/// `--yes` instead, why it asks, and the answer to a "no".
struct Asking {
    command: &'static str,
    why: &'static str,
    declined: &'static str,
}

/// Asks on the terminal before an entry that cannot be taken back (a
/// resignation, an abandonment claim). Without a terminal there is nobody
/// to ask: `--yes` is needed. `given` is the FILE argument as the player
/// typed it (a file or a game id), for the command to run instead.
fn confirm(given: &Path, question: &str, asking: Asking) -> Result<()> {
    use std::io::{BufRead, IsTerminal, Read, Write};
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        let file = inline(&given.display().to_string()).into_owned();
        let file = if file.contains(char::is_whitespace) {
            format!("\"{file}\"")
        } else {
            file
        };
        return Err(Error::Usage(format!(
            "{}, and there is no terminal to ask you; to confirm, run `starry {} {file} --yes`. \
             Nothing was written",
            asking.why, asking.command
        )));
    }
    eprint!("{question} [y/N] ");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    stdin
        .lock()
        .take(64)
        .read_line(&mut answer)
        .map_err(|e| Error::io("cannot read the answer from", "the terminal", e))?;
    if matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
        Ok(())
    } else {
        Err(Error::Usage(asking.declined.into()))
    }
}

fn mail(a: MailArgs) -> Result<Output> {
    match (a.action, a.retry, &a.file) {
        (Some(MailAction::Setup(s)), _, _) => app::setup::run(&setup(s)),
        (None, true, _) => app::mail::retry_pending(),
        (None, false, Some(f)) => app::mail::mail_file(
            &log_path(f)?,
            app::mail::Sending {
                to_all: a.to_all,
                full: a.full,
                remind: false,
                resend: true,
                auto_submitted: false,
            },
        ),
        (None, false, None) => Err(Error::Usage(
            "give the game log to mail (a file or a game id), or --retry to send what is pending"
                .into(),
        )),
    }
}

fn setup(a: MailSetupArgs) -> app::setup::Setup {
    app::setup::Setup {
        email: a.email,
        provider: a.provider,
        smtp_host: a.smtp_host,
        smtp_port: a.smtp_port,
        smtp_security: a.smtp_security,
        imap_host: a.imap_host,
        imap_port: a.imap_port,
        imap_security: a.imap_security,
        user: a.user,
        password_command: a.password_command,
        password_stdin: a.password_stdin,
        token_command: a.token_command,
        auth: a.auth,
        ca_file: a.ca_file,
        no_test: a.no_test,
        player_url: a.player_url,
    }
}

fn show(a: &ViewArgs) -> app::inspect::Show {
    app::inspect::Show {
        at: a.at,
        spectator: a.spectator,
        format: a.format.into(),
        out: a.out.clone(),
    }
}

fn audit(a: AuditArgs) -> app::audit::Audit {
    app::audit::Audit {
        paths: a.paths,
        jobs: a.jobs.map(usize::from),
    }
}

fn rules(r: RulesCommand) -> Result<Output> {
    match r {
        RulesCommand::List => app::rules::list(),
        RulesCommand::Score { game, position } => app::rules::score(&game, &position),
        RulesCommand::Replay { game, input } => app::rules::replay(&game, input.as_deref()),
    }
}

fn demo(a: DemoArgs) -> app::demo::Demo {
    app::demo::Demo {
        game: a.game.unwrap_or(a.game_arg),
        players: a.players,
        variants: a.variants,
        dir: a.dir,
    }
}

fn serve(a: &ServeArgs) -> crate::serve::Serve {
    crate::serve::Serve {
        port: a.port,
        open: a.open,
        link: a.link,
        listen: a.listen,
    }
}

fn arena(a: ArenaArgs) -> Result<app::arena::Match> {
    Ok(app::arena::Match {
        players: a
            .bots
            .iter()
            .map(|b| b.parse().map_err(Error::Usage))
            .collect::<Result<_>>()?,
        game: a.game,
        games: a.games,
        seed: a.seed,
        jobs: a.jobs.map(usize::from),
        variants: act::parse_variants(&a.variants)?,
    })
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    /// The command line the new-game form once became: each field as
    /// `--flag=value`, in the form's order.
    fn command_line(game: &str, fields: &[(String, String)], mail: bool) -> Vec<String> {
        let get = |name: &str| {
            fields
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
        };
        let players: Vec<&str> = get("players")
            .unwrap_or("")
            .split(['\n', ','])
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect();
        let mut args = vec![
            "starry".to_string(),
            "new".into(),
            game.into(),
            format!("--players={}", players.join(",")),
            format!("--deadline={}", get("deadline").unwrap_or("14d").trim()),
        ];
        if mail {
            args.push("--mail".into());
        }
        for (k, v) in fields {
            if let Some(key) = k.strip_prefix("variant:") {
                args.push(format!("--variant={key}={}", v.trim()));
            }
            if let Some(flag) = k.strip_prefix("flag:")
                && !v.trim().is_empty()
            {
                args.push(format!("{flag}={}", v.trim()));
            }
        }
        args
    }

    /// A form's fields, in order.
    type Form = &'static [(&'static str, &'static str)];

    /// `starry serve`'s new-game form reads as `starry new` would read
    /// the same values, and refuses what it refuses in the same words.
    #[test]
    fn the_new_game_form_reads_as_the_command_line() {
        let forms: &[(&str, bool, Form)] = &[
            (
                "starry-sky",
                false,
                &[("players", "a@x.org\ncomputer, computer:3")],
            ),
            (
                "starry-sky",
                true,
                &[("players", ""), ("deadline", " none ")],
            ),
            (
                "starry-sky",
                false,
                &[("players", "a@x.org"), ("deadline", "xx Usage: y")],
            ),
            (
                "starry-sky",
                false,
                &[("players", "a@x.org"), ("variant:doubling", "compound")],
            ),
            (
                "star-map",
                true,
                &[
                    ("players", "a@x.org"),
                    ("flag:--map", " easy "),
                    ("flag:--map", "hard"),
                ],
            ),
            (
                "starry-night",
                false,
                &[
                    ("players", "a@x.org,b@x.org"),
                    ("deadline", "36h"),
                    ("variant:score", "area"),
                    ("flag:--random-stars", "13"),
                    ("flag:--grid", "11x11"),
                    ("flag:--stars", ""),
                ],
            ),
            (
                "starry-night",
                true,
                &[
                    ("players", "a@x.org,b@x.org"),
                    ("variant:score", "count"),
                    ("flag:--random-stars", "13"),
                    ("flag:--grid", "11x11"),
                    ("flag:--stars", "1,1 2,2"),
                ],
            ),
            (
                "starry-night",
                false,
                &[
                    ("players", "a@x.org,b@x.org"),
                    ("flag:--stars", "1,1 2,2"),
                    ("flag:--grid", "11x11"),
                    ("variant:score", "count"),
                    ("flag:--random-stars", "13"),
                    ("variant:score", "area"),
                ],
            ),
            (
                "starry-night",
                false,
                &[
                    ("players", "a@x.org,b@x.org"),
                    ("deadline", "14d"),
                    ("flag:--stars", "1,1"),
                    ("flag:--random-stars", "3"),
                    ("flag:--grid", "1"),
                    ("flag:--grid", "2"),
                ],
            ),
        ];
        for (game, mail, form) in forms {
            let fields: Vec<(String, String)> = form
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            let entry = crate::games::registry::find(game).unwrap();
            let from_form = crate::serve::new_game_of(entry, &fields, *mail);
            let parsed = super::Cli::try_parse_from(command_line(game, &fields, *mail));
            match (from_form, parsed) {
                (Ok(new), Ok(cli)) => {
                    let super::Command::New(a) = cli.command else {
                        panic!("not `new`")
                    };
                    let want = super::new_game(*a);
                    assert_eq!(format!("{new:?}"), format!("{want:?}"), "{form:?}");
                }
                (Err(e), Err(want)) => assert_eq!(
                    e.to_string(),
                    want.render()
                        .to_string()
                        .trim()
                        .replace("Usage:", "\nUsage:"),
                    "{form:?}"
                ),
                (got, want) => panic!("{form:?}: {got:?} but the command line: {want:?}"),
            }
        }
    }
}
