//! The shell completions and the manual pages, both drawn from clap's
//! definition of the command line.

use std::path::Path;

use super::Cli;
use crate::app::{GAME_NAMES, Output};
use crate::error::{Error, Result};
use crate::text::inline;

/// `starry completions SHELL`: clap's script, with the game names for
/// `new`, and for bash, zsh and fish the ids of the games in the games
/// directory where a command takes a game log: the script runs
/// `starry games --ids` when Tab is pressed there (file names are still
/// offered too), so a game that arrived since is offered as well.
pub(super) fn completions(shell: clap_complete::Shell) -> Output {
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
pub(super) fn man(command: Option<&str>) -> Result<Output> {
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
pub(super) fn man_dir(dir: &Path) -> Result<Output> {
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
