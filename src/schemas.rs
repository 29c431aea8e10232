//! JSON Schemas of everything starry reads or prints, generated from the Rust
//! types. `schemas/` holds the checked-in copies; `tests/schemas.rs` fails
//! when they are stale (regenerate with `STARRY_BLESS=1 cargo test --test suite schemas::`).

use schemars::{JsonSchema, schema_for};
use serde_json::Value;

use crate::app::report::*;
use crate::games::Game;
use crate::games::registry::{self, Registered};
use crate::log::entry;

/// The JSON Schema of `T`, as `schemas/` holds it.
pub fn schema<T: JsonSchema>() -> Value {
    serde_json::to_value(schema_for!(T)).expect("schemas serialise")
}

/// (file name, schema) for every schema in `schemas/`: the protocol's and
/// the commands', then each registered game's ([`of_game`]).
pub fn all() -> Vec<(&'static str, Value)> {
    let mut all = vec![
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
            "rules-replay-input.json",
            schema::<crate::app::rules::replay::InputSchema>(),
        ),
        (
            "rules-replay.json",
            schema::<crate::app::rules::replay::ReplayReport>(),
        ),
    ];
    for game in &registry::ALL {
        all.extend((game.schemas)());
    }
    all
}

/// A game's schemas: its options, actions, hidden values, view and ingest
/// reports under the names it gives them, then its own data files and
/// referee formats.
pub fn of_game<G: Registered>() -> Vec<(&'static str, Value)> {
    let names = G::SCHEMAS;
    let mut out = vec![
        (names.options, schema::<<G as Game>::Options>()),
        (names.action, schema::<<G as Game>::Action>()),
    ];
    if let Some(hidden) = names.hidden {
        out.push((hidden, schema::<<G as Game>::Hidden>()));
    }
    out.push((names.view, schema::<ViewReport<<G as Game>::View>>()));
    out.push((names.ingest, schema::<IngestReport<<G as Game>::View>>()));
    out.extend(G::extra_schemas());
    out
}
