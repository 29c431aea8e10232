//! What whoever runs the robot allows it: who may invite it and whom it may
//! always write to, how many games and invitations, the shortest deadline,
//! and which mail server's word it takes. Read from `robot.toml`, each
//! overridden by its flag, once per run, so that the rules never ask again.

use std::fs;
use std::path::Path;

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::text;

/// The settings file in `$STARRY_HOME`.
pub const SETTINGS_FILE: &str = "robot.toml";

/// An allow-list pattern: an address, or every address of a domain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// `anna@example.org` (compared in lower case).
    Address(String),
    /// `*@example.org`.
    Domain(String),
}

impl Pattern {
    /// Reads `anna@example.org` or `*@example.org`.
    pub fn parse(s: &str) -> std::result::Result<Pattern, String> {
        let t = s.trim();
        if let Some(domain) = t.strip_prefix("*@") {
            text::check_email(&format!("x@{domain}"))
                .map_err(|_| format!("`{}` is not `*@` and a domain", text::excerpt(t)))?;
            return Ok(Pattern::Domain(domain.to_ascii_lowercase()));
        }
        text::check_email(t)?;
        Ok(Pattern::Address(t.to_ascii_lowercase()))
    }

    pub fn matches(&self, email: &str) -> bool {
        let email = email.trim().to_ascii_lowercase();
        match self {
            Pattern::Address(a) => email == *a,
            Pattern::Domain(d) => email
                .rsplit_once('@')
                .is_some_and(|(local, domain)| !local.is_empty() && domain == d),
        }
    }
}

/// The robot's settings: `$STARRY_HOME/robot.toml`, each overridden by its flag.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The authserv-id of the robot's own mail server; `None`: no `From:`
    /// is ever vouched for.
    pub authserv_id: Option<String>,
    /// Who may invite it, and whom it may always write to; empty: anybody
    /// may invite it.
    pub allow: Vec<Pattern>,
    /// Games it plays at once at most (finished games do not count).
    pub max_games: u32,
    /// Invitations it accepts from one sender in a day.
    pub invitations_per_day: u32,
    /// The shortest deadline (seconds) of a game it joins.
    pub min_deadline: u64,
}

/// Reads a duration as `starry new --deadline` takes it (`1d`, `36h`), in
/// seconds; `none` is 0. Handed in by the command line, whose parser it is.
pub type ReadSpan = fn(&str) -> std::result::Result<u64, String>;

/// The flags of `starry robot` that override `robot.toml`.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    pub authserv_id: Option<String>,
    /// Empty: the file's list.
    pub allow: Vec<String>,
    pub max_games: Option<u32>,
    pub invitations_per_day: Option<u32>,
    pub min_deadline: Option<u64>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct SettingsFile {
    authserv_id: Option<String>,
    allow: Option<Vec<String>>,
    max_games: Option<u32>,
    invitations_per_day: Option<u32>,
    /// A duration as `new --deadline` takes it: `1d`, `36h`.
    min_deadline: Option<String>,
}

impl Settings {
    pub const DEFAULT_MAX_GAMES: u32 = 20;
    pub const DEFAULT_INVITATIONS_PER_DAY: u32 = 3;

    /// Reads `home/robot.toml` (missing: the defaults) and applies `over`;
    /// `read_span` reads its `min_deadline`.
    pub fn load(home: &Path, over: &Overrides, read_span: ReadSpan) -> Result<Settings> {
        let path = home.join(SETTINGS_FILE);
        let file = match fs::read_to_string(&path) {
            Ok(t) => toml::from_str::<SettingsFile>(&t).map_err(|e| {
                Error::Usage(format!(
                    "{}: {}; the keys are authserv_id, allow, max_games, \
                     invitations_per_day and min_deadline (see `starry robot --help`). Fix the \
                     file and run the robot again",
                    path.display(),
                    text::inline(e.message().trim())
                ))
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => SettingsFile::default(),
            Err(e) => return Err(Error::io("cannot read the robot's settings", &path, e)),
        };
        let (authserv_id, id_from) = match &over.authserv_id {
            Some(id) => (Some(id.clone()), "--authserv-id".to_string()),
            None => (
                file.authserv_id,
                format!("authserv_id in {}", path.display()),
            ),
        };
        let authserv_id = match authserv_id {
            Some(id) => {
                let t = id.trim();
                if t.is_empty()
                    || t.len() > 255
                    || t.chars()
                        .any(|c| c.is_whitespace() || text::is_unsafe(c) || "();\"".contains(c))
                {
                    return Err(Error::Usage(format!(
                        "{id_from}: `{}` is not an authserv-id; give the name your mail server \
                         writes first in its Authentication-Results headers (e.g. mx.example.org)",
                        text::excerpt(&id)
                    )));
                }
                Some(t.to_string())
            }
            None => None,
        };
        let (allow, allow_from) = if over.allow.is_empty() {
            (
                file.allow.unwrap_or_default(),
                format!("allow in {}", path.display()),
            )
        } else {
            (over.allow.clone(), "--allow".to_string())
        };
        let allow = allow
            .iter()
            .map(|p| {
                Pattern::parse(p).map_err(|why| {
                    Error::Usage(format!(
                        "{allow_from}: {why}; a pattern is an address (anna@example.org) or \
                         every address of a domain (*@example.org)"
                    ))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let min_deadline = match (over.min_deadline, &file.min_deadline) {
            (Some(d), _) => d,
            (None, Some(text)) => read_span(text).map_err(|why| {
                Error::Usage(format!("min_deadline in {}: {why}", path.display()))
            })?,
            (None, None) => crate::app::clock::DEFAULT_MIN_DEADLINE,
        };
        Ok(Settings {
            min_deadline,
            authserv_id,
            allow,
            max_games: over
                .max_games
                .or(file.max_games)
                .unwrap_or(Self::DEFAULT_MAX_GAMES),
            invitations_per_day: over
                .invitations_per_day
                .or(file.invitations_per_day)
                .unwrap_or(Self::DEFAULT_INVITATIONS_PER_DAY),
        })
    }

    pub(super) fn allows(&self, email: &str) -> bool {
        self.allow.iter().any(|p| p.matches(email))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        let a = Pattern::parse(" Anna@Example.org ").unwrap();
        assert!(a.matches("anna@example.org"));
        assert!(!a.matches("anna@example.org.evil"));
        let d = Pattern::parse("*@Example.org").unwrap();
        assert!(d.matches("ben@EXAMPLE.org"));
        assert!(!d.matches("ben@sub.example.org"));
        assert!(!d.matches("@example.org"));
        assert!(!d.matches("ben@evil-example.org"));
        for bad in ["*@", "*", "anna", "*@exa mple.org", "x@y@example.org", ""] {
            assert!(Pattern::parse(bad).is_err(), "{bad}");
        }
    }
}
