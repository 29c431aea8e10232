//! starry: play Starry Sky, Star Map and Starry Night by e-mail or git, with a
//! signed, hash-chained, append-only move log that anyone can audit.
//!
//! This crate is the program around the pure core ([`starry_core`]: the
//! protocol, the games, their bots and pictures) and the mail layer
//! ([`starry_mail`]): the command line, the use cases, files and locking,
//! PNG output and `starry serve`. The core's modules are re-exported under
//! their own names, so `starry::games` is `starry_core::games`.

pub use starry_core::{__registry_count, __registry_entries, __registry_names, __with_game_arms};
pub use starry_core::{bot, draw, games, text};
pub use starry_core::{for_each_game, with_game};
pub use starry_mail as mail;

pub mod app;
pub mod cli;
pub mod crypto;
pub mod error;
pub mod log;
pub mod picture;
pub mod schemas;
pub mod serve;

#[cfg(test)]
mod registry_tests;
