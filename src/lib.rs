//! starry: play Starry Sky, Star Map and Starry Night by e-mail or git, with a
//! signed, hash-chained, append-only move log that anyone can audit.

pub mod app;
pub mod bot;
pub mod cli;
pub mod crypto;
pub mod draw;
pub mod error;
pub mod games;
pub mod log;
pub mod mail;
pub mod picture;
pub mod schemas;
pub mod serve;
pub mod text;
