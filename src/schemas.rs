//! JSON Schemas of everything starry reads or prints, generated from the Rust
//! types. `schemas/` holds the checked-in copies; `tests/schemas.rs` fails
//! when they are stale (regenerate with `STARRY_BLESS=1 cargo test --test suite schemas::`).

use schemars::{JsonSchema, schema_for};
use serde_json::Value;

use crate::app::report::*;
use crate::games::Game;
use crate::games::star_map::StarMap;
use crate::games::starry_night::StarryNight;
use crate::games::starry_sky::{self, StarrySky};
use crate::log::entry;

fn schema<T: JsonSchema>() -> Value {
    serde_json::to_value(schema_for!(T)).expect("schemas serialise")
}

/// (file name, schema) for every schema in `schemas/`.
pub fn all() -> Vec<(&'static str, Value)> {
    vec![
        ("log-line.json", schema::<entry::Line>()),
        ("entry-genesis.json", schema::<entry::Genesis>()),
        ("entry-join.json", schema::<entry::Join>()),
        ("entry-move.json", schema::<entry::Move>()),
        ("entry-reveal.json", schema::<entry::Reveal>()),
        ("entry-countersign.json", schema::<entry::Countersign>()),
        ("entry-resign.json", schema::<entry::Resign>()),
        ("entry-abandon.json", schema::<entry::Abandon>()),
        ("id.json", schema::<IdReport>()),
        ("status.json", schema::<StatusReport>()),
        ("audit.json", schema::<AuditGameReport>()),
        ("entry-report.json", schema::<EntryReport>()),
        ("rules-list.json", schema::<RulesList>()),
        ("demo.json", schema::<DemoReport>()),
        ("mail.json", schema::<MailReport>()),
        ("mail-retry.json", schema::<RetryReport>()),
        (
            "history.json",
            schema::<crate::app::history::HistoryReport>(),
        ),
        ("games.json", schema::<crate::app::games::GamesReport>()),
        ("moves.json", schema::<crate::app::moves::MovesReport>()),
        ("arena.json", schema::<crate::app::arena::ArenaReport>()),
        ("robot.json", schema::<crate::app::robot::RobotReport>()),
        ("sync.json", schema::<crate::app::sync::SyncReport>()),
        (
            "mail-setup.json",
            schema::<crate::app::setup::SetupReport>(),
        ),
        (
            "starry-sky-options.json",
            schema::<<StarrySky as Game>::Options>(),
        ),
        (
            "starry-sky-action.json",
            schema::<<StarrySky as Game>::Action>(),
        ),
        (
            "starry-sky-token.json",
            schema::<<StarrySky as Game>::Hidden>(),
        ),
        (
            "starry-sky-view.json",
            schema::<ViewReport<<StarrySky as Game>::View>>(),
        ),
        (
            "starry-sky-ingest.json",
            schema::<IngestReport<<StarrySky as Game>::View>>(),
        ),
        (
            "starry-sky-boards.json",
            schema::<starry_sky::board::BoardSet>(),
        ),
        (
            "starry-sky-position.json",
            schema::<starry_sky::referee::Position>(),
        ),
        (
            "starry-sky-referee.json",
            schema::<starry_sky::referee::RefereeReport>(),
        ),
        (
            "starry-night-options.json",
            schema::<<StarryNight as Game>::Options>(),
        ),
        (
            "starry-night-action.json",
            schema::<<StarryNight as Game>::Action>(),
        ),
        (
            "starry-night-position.json",
            schema::<crate::games::starry_night::referee::Position>(),
        ),
        (
            "starry-night-referee.json",
            schema::<crate::games::starry_night::referee::RefereeReport>(),
        ),
        (
            "starry-night-view.json",
            schema::<ViewReport<<StarryNight as Game>::View>>(),
        ),
        (
            "starry-night-ingest.json",
            schema::<IngestReport<<StarryNight as Game>::View>>(),
        ),
        (
            "star-map-options.json",
            schema::<<StarMap as Game>::Options>(),
        ),
        (
            "star-map-action.json",
            schema::<<StarMap as Game>::Action>(),
        ),
        (
            "star-map-view.json",
            schema::<ViewReport<<StarMap as Game>::View>>(),
        ),
        (
            "star-map-ingest.json",
            schema::<IngestReport<<StarMap as Game>::View>>(),
        ),
        (
            "star-map-discs.json",
            schema::<crate::games::star_map::data::DiscFile>(),
        ),
        (
            "star-map-parts.json",
            schema::<crate::games::star_map::data::PartFile>(),
        ),
        (
            "star-map-position.json",
            schema::<crate::games::star_map::referee::Position>(),
        ),
        (
            "star-map-referee.json",
            schema::<crate::games::star_map::referee::RefereeReport>(),
        ),
        (
            "rules-replay-input.json",
            schema::<crate::app::rules::replay::InputSchema>(),
        ),
        (
            "rules-replay.json",
            schema::<crate::app::rules::replay::ReplayReport>(),
        ),
    ]
}
