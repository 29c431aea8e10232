//! Starry Sky's line in the registry ([`crate::games::registry`]): its
//! `new` flags, schemas, referee and archive options.

use serde_json::Value;

use super::StarrySky;
use crate::games::Draw;
use crate::games::registry::{Registered, SchemaNames};
use crate::schemas::schema;

impl Registered for StarrySky {
    const NEW_FLAGS: &'static [&'static str] = &["--boards"];
    const NEW_FLAGS_SET: &'static str = "sets Starry Sky's boards";
    // `--boards` names a file, which a page must not: no `FORM_FLAGS`.
    const SCHEMAS: SchemaNames = SchemaNames {
        options: "starry-sky-options.json",
        action: "starry-sky-action.json",
        hidden: Some("starry-sky-token.json"),
        view: "starry-sky-view.json",
        ingest: "starry-sky-ingest.json",
    };
    // No `POSITION_MARK`: a position is a board and its tokens, nothing
    // only it has that a reader could not mistake.

    fn extra_schemas() -> Vec<(&'static str, Value)> {
        vec![
            ("starry-sky-boards.json", schema::<super::board::BoardSet>()),
            (
                "starry-sky-position.json",
                schema::<super::referee::Position>(),
            ),
            (
                "starry-sky-referee.json",
                schema::<super::referee::RefereeReport>(),
            ),
        ]
    }

    fn score(position: &str) -> Result<(String, Value), String> {
        let report = super::referee::score_position(position).map_err(|e| e.to_string())?;
        let json = serde_json::to_value(&report).expect("reports serialise");
        Ok((super::referee::render_text(&report), json))
    }

    fn archive_pairs(d: &mut Draw) -> Vec<(String, String)> {
        let mut pairs = Vec::new();
        if d.below(2) == 0 {
            pairs.push(("doubling".into(), "compound".into()));
        }
        if d.below(4) == 0 {
            pairs.push(("tie".into(), "nothing".into()));
        }
        pairs
    }

    fn typical_entries(players: usize) -> u64 {
        [0, 0, 0, 122, 128, 133][players]
    }
}
