//! JSON Schemas of everything starry reads or prints, generated from the Rust
//! types. `schemas/` holds the checked-in copies; `tests/schemas.rs` fails
//! when they are stale (regenerate with `STARRY_BLESS=1 cargo test --test suite schemas::`).

use serde_json::Value;
pub use starry_core::schemas::schema;

use crate::app::report::*;
use crate::games::Rules;
use crate::games::registry::Registered;
use crate::log::entry;

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
        ("id-import.json", schema::<crate::app::id::ImportReport>()),
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
    for game in crate::for_each_game!(crate::__game_schemas;) {
        all.extend(game());
    }
    all
}

/// `[of_game::<Game1>, of_game::<Game2>, …]`, in registry order.
#[doc(hidden)]
#[macro_export]
macro_rules! __game_schemas {
    (() ; $($T:ty),*) => {
        [$($crate::schemas::of_game::<$T>),*]
    };
}

/// A game's schemas: its options, actions, hidden values, view and ingest
/// reports under the names it gives them, then its own data files and
/// referee formats.
pub fn of_game<G: Registered>() -> Vec<(&'static str, Value)> {
    let names = G::SCHEMAS;
    let mut out = starry_core::schemas::of_game::<G>();
    let own = if names.hidden.is_some() { 3 } else { 2 };
    let reports = [
        (names.view, schema::<ViewReport<<G as Rules>::View>>()),
        (names.ingest, schema::<IngestReport<<G as Rules>::View>>()),
    ];
    // In the order they always came: the game's own, the two reports, the
    // data files.
    out.splice(own..own, reports);
    out
}
