//! JSON Schemas generated from the Rust types: each game's own (its
//! options, actions, hidden values and data files). The program adds the
//! protocol's and the commands' (`starry::schemas`); `schemas/` holds the
//! checked-in copies.

use schemars::{JsonSchema, schema_for};
use serde_json::Value;

use crate::games::Rules;
use crate::games::registry::Registered;

/// The JSON Schema of `T`, as `schemas/` holds it.
pub fn schema<T: JsonSchema>() -> Value {
    serde_json::to_value(schema_for!(T)).expect("schemas serialise")
}

/// A game's schemas that need nothing but the game: its options, actions
/// and hidden values under the names it gives them, then its own data files
/// and referee formats. Its `view` and `ingest` reports are the program's.
pub fn of_game<G: Registered>() -> Vec<(&'static str, Value)> {
    let names = G::SCHEMAS;
    let mut out = vec![
        (names.options, schema::<<G as Rules>::Options>()),
        (names.action, schema::<<G as Rules>::Action>()),
    ];
    if let Some(hidden) = names.hidden {
        out.push((hidden, schema::<<G as Rules>::Hidden>()));
    }
    out.extend(G::extra_schemas());
    out
}
