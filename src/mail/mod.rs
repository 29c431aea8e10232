//! Mail: armored turn packets, reading received mails, building and sending
//! turn mails.
//!
//! This layer knows nothing of the log format: a log is opaque bytes (UTF-8
//! JSON Lines, in practice). It offers
//! - [`armor`]: `armor` / `dearmor_all`, the `-----BEGIN STARRY LOG-----`
//!   block that survives being pasted anywhere;
//! - [`parse`]: `extract_logs`, the log(s) carried by a raw mail or a pasted
//!   text;
//! - [`compose`]: the turn mail (text + armored copy + `.jsonl` attachment);
//! - [`transport`]: settings (`mail.toml` + `STARRY_*` variables) and sending
//!   through the outbox folder, SMTP (rustls) or sendmail, with a pending
//!   folder and retries.

pub mod armor;
pub mod auth_results;
pub mod compose;
mod error;
pub mod imap;
pub mod parse;
pub mod transport;

pub use armor::{armor, dearmor_all};
pub use compose::{TurnMail, body_with_armor, compose, to_eml};
pub use error::MailError;
pub use parse::{Headers, extract_logs, find_logs, headers};
pub use transport::{MailConfig, RetryReport, Sent, load, pending_messages, retry, send};
