//! starry: play Starry Sky, Star Map and Starry Night by e-mail or git, with a
//! signed, hash-chained, append-only move log that anyone can audit.

pub mod crypto;
pub mod draw;
pub mod games;
pub mod mail;
