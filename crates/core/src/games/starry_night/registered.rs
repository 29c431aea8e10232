//! Starry Night's line in the registry ([`crate::games::registry`]): its
//! `new` flags, schemas, referee and archive options.

use serde_json::Value;

use super::StarryNight;
use crate::games::Draw;
use crate::games::registry::{Registered, SchemaNames};
use crate::schemas::schema;

impl Registered for StarryNight {
    const NEW_FLAGS: &'static [&'static str] =
        &["--stars", "--stars-file", "--random-stars", "--grid"];
    const NEW_FLAGS_SET: &'static str = "sets Starry Night's sky";
    const FORM_FLAGS: &'static [(&'static str, &'static str, &'static str)] = &[
        ("--random-stars", "A random sky of this many stars", "12"),
        ("--grid", "The grid, W×H points", "10x10"),
        ("--stars", "Or these stars, as x,y points", "1,2 5,7 3,3"),
    ];
    const SCHEMAS: SchemaNames = SchemaNames {
        options: "starry-night-options.json",
        action: "starry-night-action.json",
        hidden: None,
        view: "starry-night-view.json",
        ingest: "starry-night-ingest.json",
    };
    const POSITION_MARK: Option<(&'static str, &'static str)> =
        Some(("\"edges\"", "a Starry Night drawing"));

    fn extra_schemas() -> Vec<(&'static str, Value)> {
        vec![
            (
                "starry-night-position.json",
                schema::<super::referee::Position>(),
            ),
            (
                "starry-night-referee.json",
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
            pairs.push(("score".into(), "area".into()));
        }
        let stars = 10 + d.below(6);
        pairs.push(("random-stars".into(), stars.to_string()));
        if d.below(4) == 0 {
            pairs.push(("grid".into(), "12x12".into()));
        }
        pairs
    }

    fn typical_entries(_players: usize) -> u64 {
        23
    }
}
