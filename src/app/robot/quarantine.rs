//! Setting aside a mail whose handling stopped the robot itself (a crash,
//! an abort, the system ending it for its memory) [`MAX_ABORTS`] times: a
//! copy goes to `robot/quarantine/`, the run reports it once, and the runs
//! go on with the other mails instead of stopping on it for ever.

use std::fs;

use super::Robot;
use super::handled::{Marker, Taken};
use super::report::{Class, Outcome, RobotMail};
use crate::error::{Error, Result};
use crate::log::file;

/// Runs that may stop while handling one mail (a crash, an abort, the
/// system killing the robot for its memory) before the mail is set aside:
/// a mail that stops every run would otherwise be tried for ever, and keep
/// the robot from the mails after it.
pub const MAX_ABORTS: u32 = 2;

impl Robot {
    /// Sets aside a mail whose handling stopped `aborted` runs: a copy of it
    /// in `robot/quarantine/KEY.eml` for whoever runs the robot to look at,
    /// and a record that it is never handled again. Reported once, as a
    /// failure of the run.
    pub(super) fn quarantine(
        &self,
        key: &str,
        label: &str,
        raw: Option<&[u8]>,
        attempts: u32,
        aborted: u32,
    ) -> Result<Taken> {
        let path = self.dir.join("handled").join(key);
        let mut mail = RobotMail::new(label);
        mail.outcome = Outcome::Quarantined;
        mail.class = Class::Refused;
        mail.code = 1;
        let kept = match raw {
            Some(raw) => {
                let dir = self.dir.join("quarantine");
                fs::create_dir_all(&dir)
                    .map_err(|e| Error::io("cannot create the robot's folder", &dir, e))?;
                let copy = dir.join(format!("{key}.eml"));
                file::write_record(&copy, raw)?;
                format!("a copy is in {}", copy.display())
            }
            None => "the mail could not be read".into(),
        };
        mail.detail = Some(format!(
            "set aside: {aborted} runs stopped while handling this mail (a crash, an abort, or \
             the system ending the robot); it is never handled again ({kept}; remove {} to \
             try it once more)",
            path.display()
        ));
        let marker = Marker {
            file: label.to_string(),
            outcome: Some(Outcome::Quarantined),
            class: Some(Class::Refused),
            attempts,
            aborted,
            last_error: mail.detail.clone(),
            ..Marker::default()
        };
        marker.write(&path)?;
        Ok(Taken::New(mail))
    }
}

/// A test's way to make the robot stop midway through a mail, as a crash
/// or the system's memory limit would: debug builds only, when
/// `STARRY_TEST_ABORT_ON` is set and the mail holds its text.
#[cfg(debug_assertions)]
pub(super) fn abort_for_tests(raw: Option<&[u8]>) {
    if let (Some(raw), Some(word)) = (raw, std::env::var_os("STARRY_TEST_ABORT_ON")) {
        let word = word.as_encoded_bytes();
        if !word.is_empty() && raw.windows(word.len()).any(|w| w == word) {
            std::process::abort();
        }
    }
}
