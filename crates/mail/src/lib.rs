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
pub mod oauth;
pub mod parse;
mod tls;
pub mod transport;

pub use armor::{armor, dearmor_all};
pub use compose::{TurnMail, body_with_armor, compose, to_eml};
pub use error::MailError;
pub use parse::{Headers, extract_logs, find_logs, headers};
pub use transport::{MailConfig, RetryReport, Sent, load, pending_messages, retry, send};

#[cfg(test)]
mod address_tests {
    use proptest::prelude::*;

    proptest! {
        /// The protocol's rule for an e-mail address
        /// (`starry_core::text::check_email`) is stricter than lettre's
        /// parser, which sends the mail: every address a seat may carry
        /// can be mailed.
        #[test]
        fn every_address_the_protocol_accepts_lettre_accepts(
            local in "[A-Za-z0-9!#$%&'*+/=^_{|}~.-]{1,64}",
            domain in "[A-Za-z0-9.-]{1,80}",
        ) {
            let email = format!("{local}@{domain}");
            if starry_core::text::check_email(&email).is_ok() {
                prop_assert!(email.parse::<lettre::Address>().is_ok(), "{}", email);
            }
        }
    }

    #[test]
    fn plain_addresses_pass_both() {
        for email in ["anna@example.org", "a.b+c@x-y.example", "o'neil@1.example"] {
            assert!(starry_core::text::check_email(email).is_ok(), "{email}");
            assert!(email.parse::<lettre::Address>().is_ok(), "{email}");
        }
    }
}
