//! The work behind each command. `main` parses arguments and calls [`run`];
//! everything here returns an [`Output`] (text and JSON) or an [`Error`]
//! whose exit code says what class of problem it was.

pub mod act;
pub mod arena;
pub mod audit;
pub mod cache;
pub mod clock;
pub mod computer;
pub mod demo;
pub mod games;
pub mod generate;
pub mod git;
pub mod history;
pub mod ingest;
pub mod inspect;
pub mod mail;
pub mod moves;
pub mod report;
pub mod robot;
pub mod rules;
pub mod setup;
pub mod sync;
pub mod think;
pub mod written;

use crate::crypto::identity::Stored as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::cli::{AfterArgs, Cli, Command, IdCommand};
use crate::crypto::identity::{self, Identity};
use crate::error::{Error, Result};
use crate::games::{Game, Seat};
use crate::log::Replay;
use crate::text::inline;
use report::*;

/// What a command prints.
pub struct Output {
    pub text: String,
    pub json: serde_json::Value,
    /// Non-zero when the command ran but found a problem (a failed audit,
    /// a mail not sent after the entry was written).
    pub code: i32,
    /// What went wrong after the main work was done, for standard error.
    pub warning: Option<String>,
    /// Bytes to write to standard output as they are, instead of `text`
    /// (a picture); `--json` still prints `json`.
    pub bytes: Option<Vec<u8>>,
    /// `json` is an array to print one element per line (JSON Lines), as
    /// `starry audit --json` does with its games.
    pub json_lines: bool,
    /// Where, in `text`, the account of the entry written ends and the
    /// state after it begins: entries that follow at once (computer seats)
    /// are told after the account, and the state is then the state after
    /// them.
    pub head: Option<usize>,
    /// A dry run's picture of the position after the entry, as its writer
    /// would see it (`starry serve` shows it before asking to confirm).
    pub preview_svg: Option<String>,
}

impl Output {
    pub fn new<T: Serialize>(text: String, report: &T) -> Output {
        Output {
            text,
            json: serde_json::to_value(report).expect("reports serialise"),
            code: 0,
            warning: None,
            bytes: None,
            json_lines: false,
            head: None,
            preview_svg: None,
        }
    }
}

pub fn unknown_game(name: &str) -> Error {
    crate::games::registry::UnknownGame::named(name).into()
}

pub fn run(cli: Cli) -> Result<Output> {
    let json = cli.json;
    match cli.command {
        Command::Id(IdCommand::New { name, email }) => {
            let home = identity::home_dir()?;
            let id = Identity::create(&home, &name, &email)?;
            let r = id_report(&id, &home);
            Ok(Output::new(
                format!(
                    "Created identity for {} <{}>\nkey  {}\nfile {}\nBack this file up: it is the only secret you need for all your games.",
                    r.name, r.email, r.key, r.file
                ),
                &r,
            ))
        }
        Command::Id(IdCommand::Show) => {
            let home = identity::home_dir()?;
            let id = Identity::load(&home)?;
            let r = id_report(&id, &home);
            Ok(Output::new(
                format!(
                    "{} <{}>\nkey  {}\nfile {}\nTo pin your seat in a game to this key, its creator lists you in --players as:\n  {}",
                    r.name, r.email, r.key, r.file, r.players_entry
                ),
                &r,
            ))
        }
        Command::New(a) => {
            let after = a.after;
            then(after, || act::new_game(&a))
        }
        Command::Join(a) => {
            let path = log_path(&a.file)?;
            let what = if a.allow_protocol_2 {
                act::Do::JoinProtocol2(a.notify.into())
            } else {
                act::Do::Join(a.notify.into())
            };
            let floor = a
                .min_deadline
                .map_or(clock::DEFAULT_MIN_DEADLINE, |d| d.seconds().unwrap_or(0));
            then(a.after, || {
                let mut out = act::act_file(&path, what, false)?;
                // Time controls under the player's floor: said, since a
                // claim that they stopped answering may come that soon.
                let short = crate::log::file::read(&path).ok().and_then(|b| {
                    let (g, _) = crate::log::replay::read_genesis(&b).ok()?;
                    (g.protocol >= 3).then(|| clock::short_deadline(&g, floor))?
                });
                if let Some(why) = short {
                    let w = format!(
                        "{why}. Joined all the same; to be warned only under another floor, \
                         give --min-deadline (e.g. 1h, or none)"
                    );
                    out.warning = Some(match out.warning.take() {
                        Some(prev) => format!("{prev}\nwarning: {w}"),
                        None => w,
                    });
                }
                Ok(out)
            })
        }
        Command::Ready(a) => act_then(&a.file, a.after, act::Do::Ready, false),
        Command::Play(a) => {
            let what = match (a.auto, a.r#move) {
                _ if a.bot.is_some() => act::Do::Bot(
                    a.bot.and_then(crate::bot::Level::new).unwrap_or(crate::bot::Level::DEFAULT),
                    a.seed,
                ),
                (true, _) => act::Do::Auto,
                (false, Some(m)) if m.trim().is_empty() => {
                    return Err(Error::Usage(
                        "the move is empty; give a move, e.g. `starry play game.jsonl \"10 leo:3\"` \
                         (Starry Sky), `A-C` (Starry Night) or `\"corner1 f8 r90\"` (Star Map), or \
                         --auto for a random legal one"
                            .into(),
                    ));
                }
                (false, Some(m)) => act::Do::Move(m),
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
            act_then(&a.file, a.after, what, a.dry_run)
        }
        Command::Reveal(a) => act_then(&a.file, a.after, act::Do::Reveal, false),
        Command::Resign(a) => {
            let path = log_path(&a.file)?;
            if !a.yes {
                // Whatever would refuse the resignation (not your turn, the
                // game over) is said before the question, not after it.
                act::act_file(&path, act::Do::Resign, true)?;
                confirm(
                    &path,
                    &a.file,
                    "resign",
                    &format!(
                        "Resign {}? The game ends with you placed last; this cannot be undone.",
                        inline(&crate::error::shown_path(&path))
                    ),
                    "resigning ends the game for you and cannot be undone",
                    "not resigned: nothing was written",
                )?;
            }
            then(a.after, || act::act_file(&path, act::Do::Resign, false))
        }
        Command::Abandon(a) => {
            let path = log_path(&a.file)?;
            if !a.yes {
                // The dry run refuses what cannot be claimed (too early, your
                // own turn, the game over) before the question is asked.
                let dry = act::act_file(&path, act::Do::Abandon, true)?;
                confirm(
                    &path,
                    &a.file,
                    "abandon",
                    &format!(
                        "{}? If every other player claims it too, the game ends with them placed \
                         last; until they countersign the result, an entry from them answers \
                         the claim.",
                        dry.json["summary"]
                            .as_str()
                            .map(|s| s.replacen("claims that", "Claim that", 1))
                            .unwrap_or_else(|| "Claim the game abandoned".into())
                    ),
                    "a claim that a player stopped answering can end the game for them",
                    "not claimed: nothing was written",
                )?;
            }
            then(a.after, || act::act_file(&path, act::Do::Abandon, false))
        }
        Command::Countersign(a) => {
            let path = log_path(&a.file)?;
            // A countersignature of claims against oneself gives up the
            // late answer that still wins (protocol §7): asked first, and
            // the only path that writes one.
            let what = match act::concede_question(&path)? {
                None => act::Do::Countersign,
                Some(question) => {
                    if !a.yes {
                        confirm(
                            &path,
                            &a.file,
                            "countersign",
                            &question,
                            "countersigning the claims that you stopped answering gives up your \
                             answer, which still wins against them",
                            "not countersigned: nothing was written; your move still wins \
                             against the claims (`starry play`)",
                        )?;
                    }
                    act::Do::Concede
                }
            };
            then(a.after, || act::act_file(&path, what, false))
        }
        Command::Mail(crate::cli::MailArgs {
            action: Some(crate::cli::MailAction::Setup(s)),
            ..
        }) => setup::run(&s),
        Command::Sync(a) => sync::run(
            &match a.maildir {
                Some(d) => sync::Source::Maildir(d),
                None => sync::Source::Imap,
            },
            a.watch,
            json,
        ),
        Command::Mail(a) => match (a.retry, &a.file) {
            (true, _) => mail::retry_pending(),
            (false, Some(f)) => mail::mail_file(
                &log_path(f)?,
                mail::Sending {
                    to_all: a.to_all,
                    full: a.full,
                    remind: false,
                    resend: true,
                    auto_submitted: false,
                },
            ),
            (false, None) => Err(Error::Usage(
                "give the game log to mail (a file or a game id), or --retry to send what is pending"
                    .into(),
            )),
        },
        Command::Ingest(a) => ingest::ingest(a.input.as_deref(), a.into.as_deref()),
        Command::Status(f) => inspect::status(&log_path(&f.file)?),
        Command::View(a) => inspect::view(&log_path(&a.file)?, &a),
        Command::Moves(a) => moves::moves(&log_path(&a.file)?, &a),
        Command::History(a) => history::history(&log_path(&a.file)?, a.since_mine),
        Command::Games { ids: false } => games::list(),
        Command::Games { ids: true } => games::ids(),
        Command::Remind(f) => mail::remind(&log_path(&f.file)?),
        Command::Completions { shell } => Ok(completions(shell)),
        Command::Man { command, dir } => match dir {
            Some(dir) => man_dir(&dir),
            None => man(command.as_deref()),
        },
        Command::Audit(a) => audit::run(&a),
        Command::Rules(r) => rules::run(r),
        Command::Demo(a) => demo::run(&a),
        Command::Serve(a) => crate::serve::run(&a),
        Command::Robot(a) => robot::run(a.try_into()?, json),
        Command::Arena(a) => arena::run(&arena::Match {
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
        }),
    }
}

/// Asks on the terminal before an entry that cannot be taken back (a
/// resignation, an abandonment claim). Without a terminal there is nobody
/// to ask: `--yes` is needed. `given` is the FILE argument as the player
/// typed it (a file or a game id), for the command to run instead.
fn confirm(
    _path: &Path,
    given: &Path,
    command: &str,
    question: &str,
    why: &str,
    declined: &str,
) -> Result<()> {
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
            "{why}, and there is no terminal to ask you; to confirm, run `starry {command} \
             {file} --yes`. Nothing was written"
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
        Err(Error::Usage(declined.into()))
    }
}

/// The games this program plays, as `new` and `rules` name them.
pub const GAME_NAMES: [&str; crate::games::registry::COUNT] = crate::games::registry::NAMES;

/// `starry completions SHELL`: clap's script, with the game names for
/// `new`, and for bash, zsh and fish the ids of the games in the games
/// directory where a command takes a game log: the script runs
/// `starry games --ids` when Tab is pressed there (file names are still
/// offered too), so a game that arrived since is offered as well.
fn completions(shell: clap_complete::Shell) -> Output {
    use clap::CommandFactory;
    use clap_complete::Shell;
    let cmd = Cli::command().mut_subcommand("new", |c| {
        c.mut_arg("game", |a| {
            a.value_parser(clap::builder::PossibleValuesParser::new(GAME_NAMES))
        })
    });
    // The commands whose first argument is a game log (a file or an id).
    let takes_game: Vec<String> = cmd
        .get_subcommands()
        .filter(|c| {
            c.get_positionals()
                .next()
                .is_some_and(|a| a.get_id() == "file")
        })
        .map(|c| c.get_name().to_string())
        .collect();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd.clone(), "starry", &mut buf);
    let mut text = String::from_utf8_lossy(&buf).trim_end().to_string();
    match shell {
        Shell::Bash => {
            text = text.replace("complete -F _starry ", "complete -F _starry_with_games ");
            text.push_str(&format!(
                r#"

# Game ids from the games directory for a command's GAME argument.
_starry_with_games() {{
    _starry "$@"
    local cur="${{COMP_WORDS[COMP_CWORD]}}"
    if [[ $COMP_CWORD -eq 2 && "$cur" != -* ]]; then
        case "${{COMP_WORDS[1]}}" in
            {})
                local ids
                ids="$(starry games --ids 2>/dev/null)"
                COMPREPLY+=( $(compgen -W "$ids" -- "$cur") )
                ;;
        esac
    fi
}}"#,
                takes_game.join("|")
            ));
        }
        Shell::Zsh => {
            text = text
                .lines()
                .map(|l| {
                    let spec = l.trim_start();
                    let file = spec.starts_with("':file -- ") || spec.starts_with("'::file -- ");
                    if file && l.ends_with(":_files' \\") {
                        l.replace(":_files' \\", ":_starry_game_files' \\")
                    } else {
                        l.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join("\n");
            // Defined before the last lines, which run `_starry` at once
            // when the file is autoloaded.
            let helper = r#"# Game ids from the games directory, and files, for a GAME argument.
(( $+functions[_starry_game_files] )) ||
_starry_game_files() {
    local -a ids
    ids=(${(f)"$(starry games --ids 2>/dev/null)"})
    compadd -X 'game ids' -a ids
    _files
}

"#;
            match text.rfind("if [ \"$funcstack[1]\" = \"_starry\" ]") {
                Some(at) => text.insert_str(at, helper),
                None => text.push_str(&format!("\n\n{helper}")),
            }
        }
        Shell::Fish => {
            // clap's fish script completes no positional argument.
            text.push_str(&format!(
                "\n\n# The games of `new`.\n\
                 complete -c starry -n \"__fish_starry_using_subcommand new\" -a \"{}\"\n\
                 # Game ids from the games directory for a command's GAME argument.\n\
                 complete -c starry -n \"__fish_seen_subcommand_from {}\" -a \"(starry games --ids 2>/dev/null)\"",
                GAME_NAMES.join(" "),
                takes_game.join(" ")
            ));
        }
        _ => {}
    }
    Output::new(text, &serde_json::json!({ "shell": shell.to_string() }))
}

/// Every manual page: starry(1) and, for each command, starry-COMMAND(1)
/// (starry-id-new(1) for `starry id new`), as each page's list of commands
/// names them. The name is the page's title and file name.
fn man_pages() -> Vec<(String, clap::Command)> {
    use clap::CommandFactory;
    fn add(prefix: &str, cmd: &clap::Command, out: &mut Vec<(String, clap::Command)>) {
        for sub in cmd.get_subcommands().filter(|c| !c.is_hide_set()) {
            let name = format!("{prefix}-{}", sub.get_name());
            out.push((name.clone(), sub.clone().name(name.clone())));
            add(&name, sub, out);
        }
    }
    let top = Cli::command();
    let mut out = vec![("starry".to_string(), top.clone())];
    add("starry", &top, &mut out);
    // No page for clap's `help` commands, which are not documented either.
    out.into_iter()
        .map(|(n, c)| (n, c.disable_help_subcommand(true)))
        .collect()
}

/// `starry man [COMMAND]`: starry(1), or a command's page starry-COMMAND(1),
/// which starry(1) refers to.
fn man(command: Option<&str>) -> Result<Output> {
    let pages = man_pages();
    let wanted = match command {
        None => "starry".to_string(),
        Some(name) => format!(
            "starry-{}",
            name.trim_start_matches("starry-").replace(' ', "-")
        ),
    };
    let Some((_, page)) = pages.into_iter().find(|(n, _)| *n == wanted) else {
        use clap::CommandFactory;
        let top = Cli::command();
        let names: Vec<&str> = top.get_subcommands().map(|c| c.get_name()).collect();
        return Err(Error::Usage(format!(
            "there is no command `{}`; the commands are {}",
            crate::text::excerpt(command.unwrap_or_default()),
            names.join(", ")
        )));
    };
    let text = render_man(page)?;
    Ok(Output::new(
        text.trim_end().to_string(),
        &serde_json::json!({ "format": "roff" }),
    ))
}

/// `starry man --dir DIR`: every page, as DIR/NAME.1.
fn man_dir(dir: &Path) -> Result<Output> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::io("cannot create the directory for the manual pages", dir, e))?;
    let mut written = Vec::new();
    for (name, page) in man_pages() {
        let path = dir.join(format!("{name}.1"));
        let text = render_man(page)?;
        std::fs::write(&path, text)
            .map_err(|e| Error::io("cannot write the manual page", &path, e))?;
        written.push(path.display().to_string());
    }
    Ok(Output::new(
        format!(
            "Wrote {} manual pages into {} (starry.1 and one per command); `man starry` shows \
             them when that directory is in your MANPATH.",
            written.len(),
            inline(&dir.display().to_string())
        ),
        &serde_json::json!({ "format": "roff", "dir": dir.display().to_string(), "pages": written }),
    ))
}

/// One page in roff. clap_mangen feeds the text after the options to roff
/// line by line as running text, so roff refills it: the examples run into
/// each other. Here that text becomes its own EXTRA section: paragraphs
/// filled, each example and each indented line on a line of its own, as
/// `--help` shows them.
fn render_man(page: clap::Command) -> Result<String> {
    let extra = page
        .get_after_long_help()
        .or_else(|| page.get_after_help())
        .map(|t| t.to_string());
    let page = page.after_help(None::<&str>).after_long_help(None::<&str>);
    let mut buf = Vec::new();
    clap_mangen::Man::new(page)
        .render(&mut buf)
        .map_err(|e| Error::Other(format!("cannot render the manual page: {e}")))?;
    let mut text = String::from_utf8_lossy(&buf).into_owned();
    if let Some(extra) = extra {
        let section = roff_extra(&extra);
        match text.find("\n.SH VERSION") {
            Some(at) => text.insert_str(at + 1, &section),
            None => text.push_str(&section),
        }
    }
    Ok(text)
}

/// The EXTRA section of a page from the text after a command's options:
/// blank lines part paragraphs; a line starting with white space stands on
/// its own (an example, a setting), and one starting with `- ` is a list
/// item; the other lines of a paragraph are filled, a line ending a
/// sentence ending its paragraph.
fn roff_extra(text: &str) -> String {
    fn esc(line: &str) -> String {
        let s = line.replace('\\', "\\e").replace('-', "\\-");
        if s.starts_with('.') || s.starts_with('\'') {
            format!("\\&{s}")
        } else {
            s
        }
    }
    let mut out = String::from(".SH EXTRA\n");
    let mut open_nf = false;
    let mut new_paragraph = true;
    for line in text.lines() {
        let trimmed = line.trim();
        let indented = line.starts_with(char::is_whitespace);
        if open_nf && (trimmed.is_empty() || !indented || trimmed.starts_with("- ")) {
            out.push_str(".fi\n.RE\n");
            open_nf = false;
        }
        if trimmed.is_empty() {
            new_paragraph = true;
        } else if let (true, Some(item)) = (indented, trimmed.strip_prefix("- ")) {
            out.push_str(&format!(".IP \\(bu 2\n{}\n", esc(item)));
            new_paragraph = true;
        } else if indented {
            if !open_nf {
                out.push_str(".RS 2\n.nf\n");
                open_nf = true;
            }
            out.push_str(&esc(trimmed));
            out.push('\n');
            new_paragraph = true;
        } else {
            if new_paragraph {
                out.push_str(".PP\n");
            }
            out.push_str(&esc(trimmed));
            out.push('\n');
            new_paragraph = trimmed.ends_with('.') || trimmed.ends_with(':');
        }
    }
    if open_nf {
        out.push_str(".fi\n.RE\n");
    }
    out
}

/// A writing command, then what `--mail` and `--git-commit` ask for.
fn act_then(file: &Path, after: AfterArgs, what: act::Do, dry_run: bool) -> Result<Output> {
    let path = log_path(file)?;
    then(after, || act::act_file(&path, what, dry_run))
}

/// Runs `write` (a command that appends an entry), then mails and commits as
/// asked. The mail settings are checked first, so that broken settings stop
/// the command before anything is written; after that, the entry is written
/// whatever happens to the mail or the commit.
pub(crate) fn then(after: AfterArgs, write: impl FnOnce() -> Result<Output>) -> Result<Output> {
    let mail_cfg = if after.mail {
        let home = identity::home_dir()?;
        Some(crate::mail::load(&home).map_err(|e| {
            Error::Usage(format!(
                "{e}. Nothing was written: fix the mail settings, or leave out --mail"
            ))
        })?)
    } else {
        None
    };
    let mut out = write()?;
    if out.json["dry_run"] == true {
        return Ok(out);
    }
    let path = PathBuf::from(out.json["file"].as_str().unwrap_or_default());
    if after.git_commit {
        git::after_entry(&path, &mut out);
    }
    if let Some(cfg) = mail_cfg {
        mail::after_entry(&path, &cfg, &mut out);
    }
    Ok(out)
}

/// The games directory: `HOME/games`, one `GAME-ID.jsonl` per game, where
/// `starry ingest` keeps the games received by mail and `starry new` puts a
/// game without `--out`.
pub fn games_dir(home: &Path) -> PathBuf {
    home.join("games")
}

/// `HOME/games/GAME-ID.jsonl`.
pub fn game_path(home: &Path, game_id: &crate::crypto::Hash) -> PathBuf {
    games_dir(home).join(format!("{}.jsonl", hex::encode(game_id)))
}

/// Makes a log kept outside the games directory findable by its id:
/// `HOME/games/GAME-ID.jsonl` becomes a symbolic link to it, unless that
/// name is taken. Then `starry games` lists it, a game id names it, and
/// `starry ingest` continues it with the entries a turn mail carries.
/// Best effort: a failure only means the player names the file by path.
pub fn remember_game(home: &Path, game_id: &str, path: &Path) {
    if game_id.len() != 64 || !game_id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return;
    }
    let dir = games_dir(home);
    let link = dir.join(format!("{game_id}.jsonl"));
    match std::fs::symlink_metadata(&link) {
        // A link to a copy that is gone gives way to this one.
        Ok(m) if m.file_type().is_symlink() && !link.exists() => {
            let _ = std::fs::remove_file(&link);
        }
        Ok(_) => return,
        Err(_) => {}
    }
    let Ok(target) = std::fs::canonicalize(path) else {
        return;
    };
    if target.parent() == std::fs::canonicalize(&dir).ok().as_deref() {
        return;
    }
    #[cfg(unix)]
    {
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::os::unix::fs::symlink(&target, &link);
    }
}

/// The short game id shown to people and accepted in place of a file name
/// (16 hex digits).
/// How a command names the game at `path` to the player: its short id
/// when it is the copy in the games directory (any command takes that),
/// else the path, as one shell word.
pub fn file_arg(game_id: &crate::crypto::Hash, path: &Path) -> String {
    match identity::home_dir() {
        Ok(home) if game_path(&home, game_id) == path => short_id(game_id),
        _ => mail::shell_word(&path.display().to_string()),
    }
}

pub fn short_id(game_id: &crate::crypto::Hash) -> String {
    hex::encode(&game_id[..8])
}

/// A FILE argument: the file if it exists; otherwise, if it is 8 to 64 hex
/// digits, the one game in the games directory whose id starts with them.
pub fn log_path(arg: &Path) -> Result<PathBuf> {
    if arg.exists() {
        return Ok(arg.to_path_buf());
    }
    let Some(text) = arg.to_str() else {
        return Ok(arg.to_path_buf());
    };
    let prefix = text.to_ascii_lowercase();
    if !(8..=64).contains(&prefix.len()) || !prefix.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Ok(arg.to_path_buf());
    }
    let home = identity::home_dir()?;
    let dir = games_dir(&home);
    let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.extension().is_some_and(|x| x == "jsonl")
                        && p.file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(|n| n.starts_with(&prefix))
                })
                .collect()
        })
        .unwrap_or_default();
    match found.len() {
        1 => Ok(found.remove(0)),
        0 => Err(Error::Usage(format!(
            "{text}: there is no such file, and no game with an id starting with {prefix} in {}; \
             give the path of the log, or `starry ingest` the turn mail first",
            dir.display()
        ))),
        n => Err(Error::Usage(format!(
            "{text}: {n} games in {} have an id starting with {prefix}; give more digits",
            dir.display()
        ))),
    }
}

fn id_report(id: &Identity, home: &Path) -> IdReport {
    IdReport {
        name: id.name.clone(),
        email: id.email.clone(),
        key: hex::encode(id.public_key()),
        file: home.join(identity::FILE_NAME).display().to_string(),
        players_entry: format!(
            "{} <{}> key:{}",
            id.name,
            id.email,
            hex::encode(id.public_key())
        ),
    }
}

/// Loads the identity of whoever runs the command.
pub fn load_identity() -> Result<Identity> {
    Ok(Identity::load(&identity::home_dir()?)?)
}

/// Directory where the program remembers which games this identity joined,
/// so that it refuses to join one twice.
pub fn joined_dir(home: &Path) -> PathBuf {
    home.join("joined")
}

/// `seat`'s own view of the position `state` of `r`, as the identity `id`
/// that holds the seat sees it: their face-down values, their hand, "you";
/// and, when they are to act, the random events their next entry will
/// resolve, which only their program can know.
pub fn own_view<G: Game>(
    r: &Replay<G>,
    state: &G::State,
    seat: Seat,
    id: &Identity,
) -> Result<G::View> {
    let secret = r
        .game_secret(id, seat)
        .ok_or_else(|| Error::Other(format!("seat {seat} is not held by this identity")))?;
    let own = r.own_hidden(&secret, seat).map_err(Error::Other)?;
    let preview = (r.expected().1 == Some(seat))
        .then(|| r.next_link(&secret, seat))
        .flatten()
        .and_then(|l| r.preview(seat, &l));
    Ok(G::view(
        preview.as_ref().unwrap_or(state),
        Some(seat),
        Some(&own),
    ))
}

/// The status of a replayed game.
pub fn status_of<G: Game>(r: &Replay<G>) -> StatusReport {
    let (action, who) = r.expected();
    let seat_info = |s: Seat| &r.genesis.seats[s];
    let now = crate::log::replay::now();
    StatusReport {
        game: r.genesis.game.clone(),
        game_id: hex::encode(r.game_id),
        entries: r.len(),
        over: r.is_over(),
        to_act: who.map(|s| seat_info(s).email.clone()),
        to_act_name: who.map(|s| seat_info(s).name.clone()),
        to_act_seat: who.map(|s| s as u32),
        action,
        // Claims do not restart the clock (protocol §7): the wait counts
        // from the same entry as the clock does.
        waiting_since: if r.is_over() {
            r.entries.last().map(|e| e.time.clone()).unwrap_or_default()
        } else {
            clock::turn_began(r).unwrap_or_default().to_string()
        },
        pending_events: r.state.as_ref().map_or(0, |s| G::pending(s).len() as u32),
        seats: r
            .genesis
            .seats
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let key = r.seat_key(i);
                SeatReport {
                    seat: i as u32,
                    name: s.name.clone(),
                    email: s.email.clone(),
                    joined: r.seats[i].key.is_some(),
                    countersigned: r.countersigned.contains(&i),
                    key: key.map(hex::encode),
                    fingerprint: key.map(|k| crate::log::replay::fingerprint(&k)),
                    pinned: i == 0 || s.key.is_some(),
                    operator: s.operator,
                }
            })
            .collect(),
        deadline: r.genesis.deadline,
        clock: clock::report(r, &now),
        time_left: clock::time_left(r, &now),
        claims: r.claims.as_ref().map(|c| ClaimsReport {
            silent: c.silent as u32,
            awaited: c.awaited,
            by: c.by.iter().map(|&s| s as u32).collect(),
            missing: r.claimants(c.silent).len().saturating_sub(c.by.len()) as u32,
        }),
        ending: r.ending().map(EndingReport::from),
        standings: standings_of(r),
        notes: r
            .state
            .as_ref()
            .map(|state| G::notes(state, &r.names()))
            .unwrap_or_default(),
    }
}

pub fn standings_of<G: Game>(r: &Replay<G>) -> Vec<StandingReport> {
    r.standings()
        .into_iter()
        .map(|s| StandingReport {
            rank: s.rank,
            seat: s.seat as u32,
            name: r.genesis.seats[s.seat].name.clone(),
            email: r.genesis.seats[s.seat].email.clone(),
            score: s.score,
            unit: G::score_unit(&r.options).into(),
            team: s.team,
        })
        .collect()
}

/// One line saying how a game ended, safe to print.
pub fn ending_text(s: &StatusReport) -> String {
    // Seats in reports count from 0 (docs/json.md).
    let name = |seat: u32| {
        s.seats
            .get(seat as usize)
            .map_or_else(|| format!("seat {seat}"), |x| inline(&x.name).into_owned())
    };
    match s.ending {
        Some(EndingReport::Resigned { seat }) => {
            format!("The game is over: {} resigned.", name(seat))
        }
        Some(EndingReport::Abandoned { seat, awaited }) => {
            // A claim needs no seat played on the silent seat's machine.
            let machine = |x: u32| {
                s.seats
                    .get(x as usize)
                    .and_then(|y| y.operator)
                    .unwrap_or(x)
            };
            let shared = s
                .seats
                .iter()
                .any(|x| x.seat != seat && machine(x.seat) == machine(seat));
            format!(
                "The game is over: abandoned while waiting for {} at entry {awaited}; every other \
                 player{} claimed that {} stopped answering.",
                name(seat),
                if shared { " on another machine" } else { "" },
                name(seat)
            )
        }
        Some(EndingReport::Stalled) => {
            "The game is over: it stalled — nobody could move any more.".to_string()
        }
        _ => "The game is over.".to_string(),
    }
}

/// Where the game stands, for text output; every name is made safe.
pub fn status_text(s: &StatusReport) -> String {
    let mut out = String::new();
    if s.over {
        out.push_str(&ending_text(s));
        out.push('\n');
        out.push_str(&standings_text(&s.standings));
    } else {
        let who = inline(s.to_act_name.as_deref().unwrap_or_default()).into_owned();
        let email = inline(s.to_act.as_deref().unwrap_or_default()).into_owned();
        out.push_str(&format!(
            "Waiting for {who} <{email}> to {} (since {}).\n",
            s.action.as_str(),
            inline(&s.waiting_since)
        ));
        if let Some(t) = &s.time_left {
            out.push_str(&format!("{}.\n", inline(t)));
        }
        match s.pending_events {
            0 => {}
            1 => out.push_str(
                "A random draw is pending: the next entry by another player resolves it.\n",
            ),
            n => out.push_str(&format!(
                "{n} random draws are pending: the next entry by another player resolves them.\n"
            )),
        }
        if let Some(c) = &s.claims {
            let by: Vec<String> =
                c.by.iter()
                    .map(|&b| {
                        s.seats
                            .get(b as usize)
                            .map_or_else(|| format!("seat {b}"), |x| inline(&x.name).into_owned())
                    })
                    .collect();
            out.push_str(&format!(
                "{} claimed that {who} stopped answering (awaited since entry {}); {} \
                 the game with {who} placed last. An entry by {who} answers the claims.\n",
                by.join(", "),
                c.awaited,
                match c.missing {
                    1 => "1 more claim ends".to_string(),
                    n => format!("{n} more claims end"),
                }
            ));
        }
    }
    out.push_str(&operators_text(s));
    wrap_lines(&out)
}

/// Which seats are computers played on whose machine, as the genesis
/// names them (docs/protocol.md section 3.4): that person can see their
/// face-down tokens and signs their moves. Empty when every seat is a
/// person.
pub fn operators_text(s: &StatusReport) -> String {
    let name = |seat: u32| {
        s.seats
            .get(seat as usize)
            .map_or_else(|| format!("seat {seat}"), |x| inline(&x.name).into_owned())
    };
    s.seats
        .iter()
        .filter_map(|x| {
            let op = x.operator?;
            Some(format!(
                "{} (seat {}) is a computer played on the machine of {} (seat {op}): {} can see \
                 its face-down tokens and signs its moves.\n",
                name(x.seat),
                x.seat,
                name(op),
                name(op)
            ))
        })
        .collect()
}

/// Wraps every line longer than 80 columns (long names make them so),
/// continuing it indented.
fn wrap_lines(text: &str) -> String {
    text.split_inclusive('\n')
        .map(|line| {
            if line.trim_end().chars().count() > 80 {
                crate::text::wrap(line, 80, "    ")
            } else {
                line.to_string()
            }
        })
        .collect()
}

/// The game's notes (takebacks, the choice of the first player), one per
/// line, each indented by `indent`.
pub fn notes_text(s: &StatusReport, indent: &str) -> String {
    s.notes
        .iter()
        .map(|n| format!("{indent}{}\n", inline(n)))
        .collect()
}

/// The seats with their keys' fingerprints, so that players can check each
/// other's keys against what `starry id show` prints.
pub fn seats_text(s: &StatusReport) -> String {
    let mut out = String::from("Seats:\n");
    for x in &s.seats {
        let key = match (&x.fingerprint, x.joined, x.pinned) {
            (Some(f), true, _) => format!("key {f}"),
            (Some(f), false, true) => format!("pinned to key {f}, not joined yet"),
            _ => "not joined yet (any key may take the seat)".into(),
        };
        let computer = x
            .operator
            .map(|op| {
                let person = s
                    .seats
                    .get(op as usize)
                    .map_or_else(|| format!("seat {op}"), |p| inline(&p.name).into_owned());
                format!(" — a computer on {person}'s machine")
            })
            .unwrap_or_default();
        out.push_str(&format!(
            "  seat {}: {} <{}> — {key}{computer}\n",
            x.seat,
            inline(&x.name),
            inline(&x.email)
        ));
    }
    out
}

pub fn standings_text(rows: &[StandingReport]) -> String {
    rows.iter()
        .map(|r| {
            format!(
                "  {}. {:<12} {:>3} {}{}   ({})\n",
                r.rank,
                inline(&r.name),
                r.score,
                // "1 coin", "1 sea", "1 half square".
                if r.score == 1 {
                    r.unit.trim_end_matches('s')
                } else {
                    &r.unit
                },
                r.team.map_or(String::new(), |t| format!(" (team {t})")),
                inline(&r.email)
            )
        })
        .collect()
}
