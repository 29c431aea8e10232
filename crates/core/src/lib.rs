//! starry's pure core: the signed, hash-chained log protocol
//! (`docs/protocol.md`), the games' rules engines, their computer players,
//! their text views and their SVG pictures.
//!
//! Nothing here touches a file, a clock, the network, a terminal or a random
//! source: times, randomness and secrets come in as values, which is what
//! makes replay and audit exact and lets the core build for
//! `wasm32-unknown-unknown`. The program's shells (the command line, files
//! and locking, mail, `starry serve`) live in the crates above this one.

pub mod armor;
pub mod bot;
pub mod crypto;
pub mod draw;
pub mod error;
pub mod games;
pub mod link;
pub mod log;
pub mod picture;
pub mod schemas;
pub mod tell;
pub mod text;

/// The repository's root, where the tests find the examples, the vectors
/// and the docs they check.
#[cfg(test)]
pub(crate) const REPO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
