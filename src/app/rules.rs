//! `starry rules`: the offline referee. Needs no identity and no log.

use super::Output;
use super::report::{GameInfo, RulesList, VariantInfo};
use crate::cli::RulesCommand;
use crate::error::{Error, Result};
use crate::games::Game;
use crate::games::starry_sky::StarrySky;
use crate::games::starry_sky::referee::MAX_POSITION_BYTES;
use crate::text::{excerpt_bytes, inline};

pub fn run(cmd: RulesCommand) -> Result<Output> {
    match cmd {
        RulesCommand::List => {
            let games = vec![info::<StarrySky>()];
            let mut text = String::new();
            for g in &games {
                text.push_str(&format!(
                    "{} (rules version {}), {} to {} players\n",
                    g.name, g.rules_version, g.min_players, g.max_players
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
        RulesCommand::Score { game, position } => {
            let (text, source) = if position.as_os_str() == "-" {
                let text = read_bounded(std::io::stdin().lock())
                    .map_err(|e| e.into_error("standard input"))?;
                (text, "standard input".to_string())
            } else {
                let source = inline(&position.display().to_string()).into_owned();
                let file = std::fs::File::open(&position)
                    .map_err(|e| Error::io("cannot read the position", &position, e))?;
                let text = read_bounded(file).map_err(|e| match e {
                    ReadError::Io(e) => Error::io("cannot read the position", &position, e),
                    other => other.into_error(&source),
                })?;
                (text, source)
            };
            match game.as_str() {
                StarrySky::NAME => {
                    let report = crate::games::starry_sky::referee::score_position(&text)
                        .map_err(|e| Error::Usage(format!("{source}: {e}")))?;
                    Ok(Output::new(
                        crate::games::starry_sky::referee::render_text(&report),
                        &report,
                    ))
                }
                other => Err(super::unknown_game(other)),
            }
        }
    }
}

/// Why a position could not be read.
enum ReadError {
    Io(std::io::Error),
    TooLarge,
    NotUtf8(Vec<u8>),
}

impl ReadError {
    /// The error for the user; `source` is where the position came from,
    /// already made safe to print.
    fn into_error(self, source: &str) -> Error {
        match self {
            ReadError::Io(e) => Error::io("cannot read", source.to_string(), e),
            ReadError::TooLarge => Error::Usage(format!(
                "{source}: the position is larger than {MAX_POSITION_BYTES} bytes (1 MiB), \
                 the most `starry rules score` reads; a position is one board and a few tokens, \
                 a few hundred bytes"
            )),
            ReadError::NotUtf8(bytes) => Error::Usage(format!(
                "{source}: the position is not UTF-8 text (it begins `{}`); \
                 a position is a JSON object",
                excerpt_bytes(&bytes)
            )),
        }
    }
}

/// Reads a whole position, but never more than [`MAX_POSITION_BYTES`]: a
/// larger input (or an endless one) is refused after that many bytes.
fn read_bounded(reader: impl std::io::Read) -> Result<String, ReadError> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    reader
        .take(MAX_POSITION_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() > MAX_POSITION_BYTES {
        return Err(ReadError::TooLarge);
    }
    String::from_utf8(bytes).map_err(|e| ReadError::NotUtf8(e.into_bytes()))
}

fn info<G: Game>() -> GameInfo {
    GameInfo {
        name: G::NAME.into(),
        rules_version: G::RULES_VERSION,
        min_players: *G::SEATS.start(),
        max_players: *G::SEATS.end(),
        variants: G::variants()
            .into_iter()
            .map(|(k, vals, help)| VariantInfo {
                key: k.into(),
                values: vals.into_iter().map(String::from).collect(),
                help: help.into(),
            })
            .collect(),
    }
}
