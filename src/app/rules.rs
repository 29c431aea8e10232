//! `starry rules`: the offline referee. Needs no identity and no log.

pub mod replay;

use std::path::Path;

use super::Output;
use super::report::{GameInfo, RulesList, VariantInfo};
use crate::error::{Error, Result};
use crate::games::registry::{self, Entry};
use crate::games::starry_sky::referee::MAX_POSITION_BYTES;
use crate::text::{excerpt_bytes, inline};

/// `starry rules list`.
pub fn list() -> Result<Output> {
    let games: Vec<GameInfo> = registry::ALL.iter().map(info).collect();
    let mut text = String::new();
    for g in &games {
        let players = if g.min_players == g.max_players {
            g.min_players.to_string()
        } else {
            format!("{} to {}", g.min_players, g.max_players)
        };
        text.push_str(&format!(
            "{} (rules version {}), {players} players\n",
            g.name, g.rules_version
        ));
        for v in &g.variants {
            text.push_str(&format!(
                "  --variant {}={}   (default {}) {}\n",
                v.key,
                v.values.join("|"),
                v.values[0],
                v.help
            ));
        }
    }
    Ok(Output::new(
        text.trim_end().to_string(),
        &RulesList { games },
    ))
}

/// `starry rules score`: the position in the file `position` (`-`:
/// standard input), scored by the rules of `game`.
pub fn score(game: &str, position: &Path) -> Result<Output> {
    let (text, source) = read_input(Some(position), Input::Position)?;
    let Some(entry) = registry::find(game) else {
        return Err(super::unknown_game(game));
    };
    let (text, report) = (entry.score)(&text).map_err(|e| {
        // The likeliest mistake: another game's position without
        // --game, which defaults to the first registered game.
        let hint = if entry.name == registry::NAMES[0] {
            registry::ALL
                .iter()
                .filter(|other| other.name != entry.name)
                .find_map(|other| {
                    let (mark, what) = other.position_mark?;
                    text.contains(mark)
                        .then(|| format!("; for {what} add --game {}", other.name))
                })
                .unwrap_or_default()
        } else {
            String::new()
        };
        Error::Usage(format!("{source}: {e}{hint}"))
    })?;
    Ok(Output::new(text, &report))
}

/// `starry rules replay`: the actions in `input` (None or `-`: standard
/// input), replayed by the rules of `game`.
pub fn replay(game: &str, input: Option<&Path>) -> Result<Output> {
    // The game first: an unknown one is refused before standard
    // input is read.
    crate::with_game!(game, G => {
        let (text, source) = read_input(input, Input::Actions)?;
        replay::run::<G>(&text, &source)
    })
}

/// What a `rules` command reads.
#[derive(Clone, Copy)]
enum Input {
    /// `rules score`: one board.
    Position,
    /// `rules replay`: a whole game's actions.
    Actions,
}

impl Input {
    fn max_bytes(self) -> usize {
        match self {
            Input::Position => MAX_POSITION_BYTES,
            Input::Actions => replay::MAX_INPUT_BYTES,
        }
    }

    fn cannot_read(self) -> &'static str {
        match self {
            Input::Position => "cannot read the position",
            Input::Actions => "cannot read the actions",
        }
    }
}

/// Reads a whole input, a file or (`-`, or no path) standard input, within
/// its size bound; returns it and where it came from, safe to print.
fn read_input(path: Option<&Path>, what: Input) -> Result<(String, String)> {
    match path {
        None => read_stdin(what),
        Some(p) if p.as_os_str() == "-" => read_stdin(what),
        Some(path) => {
            let source = inline(&path.display().to_string()).into_owned();
            // A FIFO or a device would block or never end: only files.
            let meta =
                std::fs::metadata(path).map_err(|e| Error::io(what.cannot_read(), path, e))?;
            if !meta.is_file() {
                return Err(Error::Usage(format!(
                    "{source} is not a regular file; give a file, or `-` for standard input"
                )));
            }
            let file =
                std::fs::File::open(path).map_err(|e| Error::io(what.cannot_read(), path, e))?;
            let text = read_bounded(file, what.max_bytes()).map_err(|e| match e {
                ReadError::Io(e) => Error::io(what.cannot_read(), path, e),
                other => other.into_error(&source, what),
            })?;
            Ok((text, source))
        }
    }
}

fn read_stdin(what: Input) -> Result<(String, String)> {
    let source = "standard input";
    let text = read_bounded(std::io::stdin().lock(), what.max_bytes())
        .map_err(|e| e.into_error(source, what))?;
    Ok((text, source.to_string()))
}

/// Why an input could not be read.
enum ReadError {
    Io(std::io::Error),
    TooLarge,
    NotUtf8(Vec<u8>),
}

impl ReadError {
    /// The error for the user; `source` is where the input came from,
    /// already made safe to print.
    fn into_error(self, source: &str, what: Input) -> Error {
        match (self, what) {
            (ReadError::Io(e), _) => Error::io("cannot read", source.to_string(), e),
            (ReadError::TooLarge, Input::Position) => Error::Usage(format!(
                "{source}: the position is larger than {MAX_POSITION_BYTES} bytes (1 MiB), \
                 the most `starry rules score` reads; a position (a board and its tokens, a sky \
                 and its edges, or a map and its discs) takes a few kilobytes at most"
            )),
            (ReadError::TooLarge, Input::Actions) => Error::Usage(format!(
                "{source}: the input is larger than {} bytes (16 MiB), the most `starry rules \
                 replay` reads; a whole game's actions take a few tens of kilobytes",
                replay::MAX_INPUT_BYTES
            )),
            (ReadError::NotUtf8(bytes), Input::Position) => Error::Usage(format!(
                "{source}: the position is not UTF-8 text (it begins `{}`); \
                 a position is a JSON object",
                excerpt_bytes(&bytes)
            )),
            (ReadError::NotUtf8(bytes), Input::Actions) => Error::Usage(format!(
                "{source}: the input is not UTF-8 text (it begins `{}`); the input of `starry \
                 rules replay` is a JSON object (docs/referee.md)",
                excerpt_bytes(&bytes)
            )),
        }
    }
}

/// Reads a whole input, but never more than `max` bytes: a larger input
/// (or an endless one) is refused after that many bytes.
fn read_bounded(reader: impl std::io::Read, max: usize) -> Result<String, ReadError> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    reader
        .take(max as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() > max {
        return Err(ReadError::TooLarge);
    }
    String::from_utf8(bytes).map_err(|e| ReadError::NotUtf8(e.into_bytes()))
}

fn info(g: &Entry) -> GameInfo {
    GameInfo {
        name: g.name.into(),
        rules_version: g.rules_version,
        min_players: g.seats.0,
        max_players: g.seats.1,
        variants: (g.variants)()
            .into_iter()
            .map(|(k, vals, help)| VariantInfo {
                key: k.into(),
                values: vals.into_iter().map(String::from).collect(),
                help: help.into(),
            })
            .collect(),
    }
}
