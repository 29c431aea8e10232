//! Remembering each mail, by the SHA-256 of its bytes, in `robot/handled/`:
//! what was done with it, or that a passing failure waits for its next try
//! (with backoff, given up after [`MAX_TRIES`]), or that it is being
//! handled. The record is written, durably, before the mail is handled, so
//! that a mail delivered twice, or a run stopped halfway, is never handled
//! twice and a mail that stops the robot itself is noticed.

use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::quarantine::MAX_ABORTS;
use super::report::{Class, Outcome, Reason, RobotMail};
use super::{Robot, read_small};
use crate::error::{Error, Result};
use crate::log::file;

/// Tries of a mail that fails for a passing reason, after which it is given
/// up (and reported as such once).
pub const MAX_TRIES: u32 = 8;

/// The wait after the first failed try; it doubles with each try (5, 10,
/// 20 … 320 minutes: about ten hours from the first try to the last).
const FIRST_BACKOFF_SECS: i64 = 5 * 60;

/// What [`Robot::process`] did with a mail.
#[derive(Debug)]
pub enum Taken {
    /// Handled now (or tried again now).
    New(RobotMail),
    /// Handled, refused or given up in an earlier run.
    Before,
    /// A passing failure whose next try has not come yet.
    Deferred,
}

/// The record of one mail in `handled/` (older runs wrote only `file`,
/// `outcome`, `game_id` and `entries`: such a mail was handled).
#[derive(Serialize, Deserialize, Default)]
pub(super) struct Marker {
    #[serde(default)]
    pub(super) file: String,
    #[serde(default)]
    pub(super) outcome: Option<Outcome>,
    #[serde(default)]
    pub(super) class: Option<Class>,
    #[serde(default)]
    pub(super) reason: Option<Reason>,
    #[serde(default)]
    pub(super) game_id: Option<String>,
    #[serde(default)]
    pub(super) entries: Vec<String>,
    /// Failed tries so far (a passing failure).
    #[serde(default)]
    pub(super) attempts: u32,
    /// The earliest next try, in seconds since 1970 (a passing failure).
    #[serde(default)]
    pub(super) next_try: Option<i64>,
    #[serde(default)]
    pub(super) last_error: Option<String>,
    /// Written, durably, before the mail is handled, and cleared with its
    /// outcome: found set by a later run, it means the run handling it
    /// stopped midway.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(super) processing: bool,
    /// Runs that stopped while handling it.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(super) aborted: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Marker {
    /// Writes the record, durably, over the one before.
    pub(super) fn write(&self, path: &Path) -> Result<()> {
        let record = serde_json::to_vec(self).expect("records serialise");
        file::write_record(path, &[record.as_slice(), b"\n"].concat())
    }
}

pub(super) fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

fn rfc3339(secs: i64) -> String {
    chrono::DateTime::from_timestamp(secs, 0)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        .unwrap_or_default()
}

impl Robot {
    /// Handles `raw` unless it was handled before or its next try has not
    /// come, and remembers the outcome by the SHA-256 of the bytes: done
    /// and refused for good, or a passing failure with its attempts and
    /// next try (given up after [`MAX_TRIES`]). Fails only when the record
    /// cannot be written.
    pub fn process(&self, raw: &[u8], label: &str) -> Result<Taken> {
        let key = hex::encode(Sha256::digest(raw));
        self.remembered(&key, label, Some(raw), || self.handle_mail(raw, label))
    }

    /// A mail file that cannot be read: a passing failure like any other,
    /// remembered by its label (there are no bytes to hash).
    pub fn unreadable(&self, label: &str, e: &Error) -> Result<Taken> {
        let key = hex::encode(Sha256::digest(format!("unreadable\0{label}")));
        self.remembered(&key, label, None, || {
            let mut mail = RobotMail::new(label);
            mail.outcome = Outcome::Failed;
            mail.class = Class::Transient;
            mail.code = e.exit_code();
            mail.detail = Some(e.to_string());
            mail
        })
    }

    /// [`Robot::process`] for the mail recorded as `handled/KEY` (`raw`,
    /// its bytes, when there are any). The record says the mail is being
    /// handled, durably, before `handle` runs: a run that stops midway
    /// leaves it so, the next run counts it, and after [`MAX_ABORTS`] such
    /// runs the mail is set aside instead of handled again.
    fn remembered(
        &self,
        key: &str,
        label: &str,
        raw: Option<&[u8]>,
        handle: impl FnOnce() -> RobotMail,
    ) -> Result<Taken> {
        let path = self.dir.join("handled").join(key);
        let before = read_small(&path).map(|b| serde_json::from_slice::<Marker>(&b).ok());
        let now = now();
        let (attempts, aborted) = match before {
            // A record that cannot be read is a mail handled before.
            Some(None) => return Ok(Taken::Before),
            // A run stopped while handling it.
            Some(Some(m)) if m.processing => (m.attempts, m.aborted + 1),
            Some(Some(m)) => match m.class {
                Some(Class::Transient) if m.next_try.is_some_and(|t| now < t) => {
                    return Ok(Taken::Deferred);
                }
                Some(Class::Transient) => (m.attempts, m.aborted),
                _ => return Ok(Taken::Before),
            },
            None => (0, 0),
        };
        if aborted >= MAX_ABORTS {
            return self.quarantine(key, label, raw, attempts, aborted);
        }
        let pending = Marker {
            file: label.to_string(),
            attempts,
            processing: true,
            aborted,
            ..Marker::default()
        };
        pending.write(&path)?;
        #[cfg(debug_assertions)]
        super::quarantine::abort_for_tests(raw);
        let mut mail = handle();
        let mut marker = Marker {
            file: label.to_string(),
            outcome: Some(mail.outcome),
            class: Some(mail.class),
            reason: mail.reason,
            game_id: mail.game_id.clone(),
            entries: mail.entries.clone(),
            aborted,
            ..Marker::default()
        };
        if mail.class == Class::Transient {
            let attempts = attempts + 1;
            marker.attempts = attempts;
            marker.last_error = mail.detail.clone();
            mail.attempts = Some(attempts);
            if attempts >= MAX_TRIES {
                mail.outcome = Outcome::GaveUp;
                mail.class = Class::Refused;
                mail.detail = Some(format!(
                    "given up after {attempts} tries; it is never tried again (remove {} to \
                     try it once more): {}",
                    path.display(),
                    mail.detail.as_deref().unwrap_or("no detail")
                ));
                marker.outcome = Some(Outcome::GaveUp);
                marker.class = Some(Class::Refused);
            } else {
                let next = now + FIRST_BACKOFF_SECS * (1 << (attempts - 1).min(10));
                marker.next_try = Some(next);
                mail.next_try = Some(rfc3339(next));
            }
        }
        marker.write(&path)?;
        Ok(Taken::New(mail))
    }
}
