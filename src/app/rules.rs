//! `starry rules`: the offline referee. Needs no identity and no log.

use super::Output;
use super::report::{GameInfo, RulesList, VariantInfo};
use crate::cli::RulesCommand;
use crate::error::{Error, Result};
use crate::games::Game;
use crate::games::starry_sky::StarrySky;

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
            let text = if position.as_os_str() == "-" {
                std::io::read_to_string(std::io::stdin())
                    .map_err(|e| Error::io("cannot read", "standard input", e))?
            } else {
                std::fs::read_to_string(&position)
                    .map_err(|e| Error::io("cannot read the position", &position, e))?
            };
            match game.as_str() {
                StarrySky::NAME => {
                    let report = crate::games::starry_sky::referee::score_position(&text)
                        .map_err(|e| Error::Usage(format!("{}: {e}", position.display())))?;
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
