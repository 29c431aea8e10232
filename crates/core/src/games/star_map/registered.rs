//! Star Map's line in the registry ([`crate::games::registry`]): its
//! `new` flags, schemas, referee and archive options.

use serde_json::Value;

use super::StarMap;
use crate::games::Draw;
use crate::games::registry::{Registered, SchemaNames};
use crate::schemas::schema;

impl Registered for StarMap {
    const NEW_FLAGS: &'static [&'static str] = &["--map", "--parts", "--discs"];
    const NEW_FLAGS_SET: &'static str = "sets Star Map's map and discs";
    // Typed below the `map` variant's choice, for its `LAYOUT`.
    const FORM_FLAGS: &'static [(&'static str, &'static str, &'static str)] = &[(
        "--map",
        "Or a layout of your own: the 16 parts with their sides, in reading order",
        "1b 2s 3b 4b / 5s 6b 7b 8s / 9b 10b 11s 12b / 13s 14b 15b 16s",
    )];
    const SCHEMAS: SchemaNames = SchemaNames {
        options: "star-map-options.json",
        action: "star-map-action.json",
        hidden: None,
        view: "star-map-view.json",
        ingest: "star-map-ingest.json",
    };
    const POSITION_MARK: Option<(&'static str, &'static str)> =
        Some(("\"placements\"", "a Star Map position"));

    fn extra_schemas() -> Vec<(&'static str, Value)> {
        vec![
            ("star-map-discs.json", schema::<super::data::DiscFile>()),
            ("star-map-parts.json", schema::<super::data::PartFile>()),
            (
                "star-map-position.json",
                schema::<super::referee::Position>(),
            ),
            (
                "star-map-referee.json",
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
        let map = ["random", "random", "easy", "hard", "mixed"][d.below(5)];
        vec![("map".into(), map.into())]
    }

    fn typical_entries(players: usize) -> u64 {
        [0, 0, 52, 53, 57][players]
    }
}
