//! `starry mail setup`: write the mail settings (SMTP to send, IMAP to
//! receive) and test both connections before keeping them.
//!
//! Values come from the flags, from a provider's known servers, from the
//! settings already there, and, on a terminal, from questions. A port given
//! alone brings the security usual for it (a security kept from a
//! STARTTLS port on an implicit-TLS one only waits for a timeout). The new
//! settings are tried in a scratch home first; `mail.toml` is replaced
//! (atomically, mode 0600, the earlier file kept as `mail.toml.bak`) only
//! when both connections work, or with `--no-test`.

use crate::crypto::identity::Stored as _;
use std::fs;
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Serialize;

use super::Output;
use crate::crypto::identity::{self, Identity};
use crate::error::{Error, Result};
use crate::mail::imap::{Imap, ImapSecurity};
use crate::mail::oauth::Auth;
use crate::mail::transport::{CONFIG_FILE, Security, check_smtp, load_with_env};
use crate::text;

/// A provider's servers, as its help pages give them (November 2026). The
/// others want an app password once two-step login is on, or OAuth 2.0
/// (`--token-command`); Outlook.com takes OAuth only.
struct Provider {
    name: &'static str,
    smtp: (&'static str, u16, Security),
    imap: (&'static str, u16, ImapSecurity),
}

/// Microsoft turned passwords (app passwords included) off for IMAP and
/// SMTP of Outlook.com, Hotmail and Live accounts on 16 September 2024:
/// (provider, its name for people).
const OAUTH_ONLY: &[(&str, &str)] = &[("outlook", "Outlook.com")];

const PROVIDERS: &[Provider] = &[
    Provider {
        name: "gmail",
        smtp: ("smtp.gmail.com", 587, Security::Starttls),
        imap: ("imap.gmail.com", 993, ImapSecurity::Tls),
    },
    Provider {
        name: "outlook",
        smtp: ("smtp-mail.outlook.com", 587, Security::Starttls),
        imap: ("outlook.office365.com", 993, ImapSecurity::Tls),
    },
    Provider {
        name: "icloud",
        smtp: ("smtp.mail.me.com", 587, Security::Starttls),
        imap: ("imap.mail.me.com", 993, ImapSecurity::Tls),
    },
    Provider {
        name: "fastmail",
        smtp: ("smtp.fastmail.com", 465, Security::Tls),
        imap: ("imap.fastmail.com", 993, ImapSecurity::Tls),
    },
    Provider {
        name: "yahoo",
        smtp: ("smtp.mail.yahoo.com", 465, Security::Tls),
        imap: ("imap.mail.yahoo.com", 993, ImapSecurity::Tls),
    },
    Provider {
        name: "gmx",
        smtp: ("mail.gmx.net", 587, Security::Starttls),
        imap: ("imap.gmx.net", 993, ImapSecurity::Tls),
    },
    Provider {
        name: "posteo",
        smtp: ("posteo.de", 587, Security::Starttls),
        imap: ("posteo.de", 993, ImapSecurity::Tls),
    },
];

/// `starry mail setup --json`.
#[derive(Serialize, JsonSchema, Debug)]
pub struct SetupReport {
    /// The settings file written (or that would have been).
    pub file: String,
    /// Whether it was written.
    pub written: bool,
    /// The earlier settings, kept aside.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backup: Option<String>,
    /// How the SMTP test went (`null` with --no-test).
    pub smtp: Option<String>,
    /// How the IMAP test went (`null` with --no-test).
    pub imap: Option<String>,
    /// What setup chose by itself (a security derived from a port, one
    /// kept), to be read before the settings are trusted.
    pub notes: Vec<String>,
}

/// `starry mail setup`: each value as its flag gave it; what is missing
/// comes from the provider, the settings already there, or a question.
#[derive(Debug, Default)]
pub struct Setup {
    pub email: Option<String>,
    pub provider: Option<String>,
    pub smtp_host: Option<String>,
    pub smtp_port: Option<u16>,
    pub smtp_security: Option<String>,
    pub imap_host: Option<String>,
    pub imap_port: Option<u16>,
    pub imap_security: Option<String>,
    pub user: Option<String>,
    pub password_command: Option<String>,
    pub password_stdin: bool,
    /// A command printing an OAuth 2.0 access token.
    pub token_command: Option<String>,
    /// `--auth`: password, oauth2, xoauth2 or oauthbearer.
    pub auth: Option<String>,
    pub ca_file: Option<PathBuf>,
    /// Write the settings without trying the connections.
    pub no_test: bool,
    /// `--player-url`: the web player's address; empty removes it.
    pub player_url: Option<String>,
}

impl Setup {
    /// Only `--player-url` is given (`--no-test` aside): nothing about the
    /// servers changes, so nothing is asked or tried.
    fn only_player_url(&self) -> bool {
        self.player_url.is_some() && self.same_servers(&Setup::default())
    }

    /// Whether every field about the servers and the login is as in `other`.
    fn same_servers(&self, other: &Setup) -> bool {
        self.email == other.email
            && self.provider == other.provider
            && self.smtp_host == other.smtp_host
            && self.smtp_port == other.smtp_port
            && self.smtp_security == other.smtp_security
            && self.imap_host == other.imap_host
            && self.imap_port == other.imap_port
            && self.imap_security == other.imap_security
            && self.user == other.user
            && self.password_command == other.password_command
            && self.password_stdin == other.password_stdin
            && self.token_command == other.token_command
            && self.auth == other.auth
            && self.ca_file == other.ca_file
    }
}

/// `starry mail setup`.
pub fn run(a: &Setup) -> Result<Output> {
    let home = identity::home_dir()?;
    let path = home.join(CONFIG_FILE);
    let mut table = read_settings(&path)?;
    if let Some(url) = &a.player_url {
        set_player_url(&mut table, url)?;
        if a.only_player_url() {
            return keep_player_url(&home, &path, &table, url);
        }
    }
    let terminal = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let mut ask = Asker { terminal };
    let servers = servers(a, &table, &home, &mut ask)?;
    let secret = secret(a, &table, &servers, terminal)?;
    let auth = a
        .auth
        .as_deref()
        .map(|v| {
            Auth::parse(v).ok_or_else(|| {
                Error::Usage(format!(
                    "--auth {}: use password, oauth2, xoauth2 or oauthbearer",
                    text::excerpt(v)
                ))
            })
        })
        .transpose()?;
    write_over(&mut table, &servers, &secret, auth, a.ca_file.as_deref())?;
    let text_of_settings = toml::to_string(&table)
        .map_err(|e| Error::Other(format!("cannot write the settings: {e}")))?;

    // Tried in a scratch home, with the same environment.
    let scratch =
        tempfile::tempdir().map_err(|e| Error::io("cannot create", "a temporary folder", e))?;
    write_private(
        &scratch.path().join(CONFIG_FILE),
        text_of_settings.as_bytes(),
    )?;
    let cfg = load_with_env(scratch.path(), &|n| std::env::var(n).ok())
        .map_err(|e| Error::Usage(format!("{e}; nothing was changed")))?;
    let mut report = SetupReport {
        file: path.display().to_string(),
        written: false,
        backup: None,
        smtp: None,
        imap: None,
        notes: servers.notes.clone(),
    };
    if !a.no_test
        && let Some(failed) = try_both(&cfg, &home, &servers.user, &mut report)
    {
        return Ok(failed);
    }
    keep(&home, &path, &text_of_settings, report)
}

/// Sets (or, when empty, removes) `player_url` in the settings, refused
/// with the reason when it is no player address.
fn set_player_url(table: &mut toml::Table, url: &str) -> Result<()> {
    let url = url.trim();
    if url.is_empty() {
        table.remove("player_url");
        return Ok(());
    }
    starry_core::link::check_player_url(url).map_err(|e| {
        Error::Usage(format!(
            "--player-url {}: {e}; nothing was changed",
            text::excerpt(url)
        ))
    })?;
    table.insert("player_url".into(), url.into());
    Ok(())
}

/// Writes the settings with only `player_url` changed, after checking
/// that they still load (the other settings as they were).
fn keep_player_url(home: &Path, path: &Path, table: &toml::Table, url: &str) -> Result<Output> {
    let settings = toml::to_string(table)
        .map_err(|e| Error::Other(format!("cannot write the settings: {e}")))?;
    let scratch =
        tempfile::tempdir().map_err(|e| Error::io("cannot create", "a temporary folder", e))?;
    write_private(&scratch.path().join(CONFIG_FILE), settings.as_bytes())?;
    load_with_env(scratch.path(), &|n| std::env::var(n).ok())
        .map_err(|e| Error::Usage(format!("{e}; nothing was changed")))?;
    let report = SetupReport {
        file: path.display().to_string(),
        written: false,
        backup: None,
        smtp: None,
        imap: None,
        notes: vec![if url.trim().is_empty() {
            "player_url removed: turn mails carry no player link".into()
        } else {
            format!(
                "player_url set to {}: every turn mail now carries a link to play in the \
                 browser there",
                url.trim()
            )
        }],
    };
    keep(home, path, &settings, report)
}

/// The settings file as it is; empty when there is none.
fn read_settings(path: &Path) -> Result<toml::Table> {
    match fs::read_to_string(path) {
        Ok(t) => t.parse().map_err(|_| {
            Error::Usage(format!(
                "{} is not valid TOML; fix or remove it first (nothing was changed)",
                path.display()
            ))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(toml::Table::new()),
        Err(e) => Err(Error::io("cannot read", path, e)),
    }
}

/// The value of `key` in `section` of the settings already there.
fn current(table: &toml::Table, section: &str, key: &str) -> Option<String> {
    table
        .get(section)
        .and_then(|s| s.get(key))
        .and_then(|v| match v {
            toml::Value::String(s) => Some(s.clone()),
            toml::Value::Integer(i) => Some(i.to_string()),
            _ => None,
        })
}

fn provider(name: Option<&str>) -> Result<Option<&'static Provider>> {
    let Some(p) = name else {
        return Ok(None);
    };
    PROVIDERS
        .iter()
        .find(|x| x.name.eq_ignore_ascii_case(p.trim()))
        .map(Some)
        .ok_or_else(|| {
            Error::Usage(format!(
                "--provider {}: not one starry knows; known: {}. Give --smtp-host and \
                 --imap-host instead",
                text::excerpt(p),
                PROVIDERS
                    .iter()
                    .map(|p| p.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })
}

/// Where and as whom to log in; None keeps what the settings say.
struct Servers {
    user: String,
    /// The provider named by --provider.
    provider: Option<&'static str>,
    smtp_host: String,
    imap_host: String,
    smtp: Connection,
    imap: Connection,
    notes: Vec<String>,
}

/// A port and its security, as they are to be written.
#[derive(Debug, Default, PartialEq, Eq)]
struct Connection {
    port: Port,
    /// None keeps the one in the settings.
    security: Option<&'static str>,
}

#[derive(Debug, Default, PartialEq, Eq)]
enum Port {
    /// Keep the one in the settings (none: the usual one for the security).
    #[default]
    Keep,
    Set(u16),
    /// Remove it: the usual one for the security.
    Usual,
}

/// SMTP or IMAP: their usual ports, each with its security.
struct Side {
    name: &'static str,
    section: &'static str,
    usual: &'static [(u16, &'static str)],
    default_security: &'static str,
}

const SMTP_SIDE: Side = Side {
    name: "SMTP",
    section: "smtp",
    usual: &[(465, "tls"), (587, "starttls"), (25, "starttls")],
    default_security: "starttls",
};

const IMAP_SIDE: Side = Side {
    name: "IMAP",
    section: "imap",
    usual: &[(993, "tls"), (143, "starttls")],
    default_security: "tls",
};

impl Side {
    fn usual_security(&self, port: u16) -> Option<&'static str> {
        self.usual.iter().find(|(p, _)| *p == port).map(|(_, s)| *s)
    }

    /// The port and security to write, from what was given (flags or a
    /// provider) and what the settings say. A port given alone takes the
    /// security usual for it; a security given alone drops an old usual
    /// port of the other security. What was decided without being asked
    /// is said in `notes`.
    fn settle(
        &self,
        port: Option<u16>,
        security: Option<&'static str>,
        table: &toml::Table,
        notes: &mut Vec<String>,
    ) -> Connection {
        let flag = self.section;
        let old_security = current(table, self.section, "security");
        let old_port = current(table, self.section, "port").and_then(|p| p.parse::<u16>().ok());
        match (port, security) {
            (Some(p), Some(s)) => Connection {
                port: Port::Set(p),
                security: Some(s),
            },
            (Some(p), None) => match self.usual_security(p) {
                Some(s) => {
                    if old_security.as_deref().is_some_and(|o| o != s) {
                        notes.push(format!(
                            "{} security: {s}, the usual one for port {p} (it was {}); give \
                             --{flag}-security to choose another",
                            self.name,
                            old_security.as_deref().unwrap_or_default()
                        ));
                    }
                    Connection {
                        port: Port::Set(p),
                        security: Some(s),
                    }
                }
                None => {
                    let kept = old_security.unwrap_or_else(|| self.default_security.into());
                    notes.push(format!(
                        "{} port {p} is not a usual one, so its security stays {kept}; give \
                         --{flag}-security (tls or starttls) if the server wants the other",
                        self.name
                    ));
                    Connection {
                        port: Port::Set(p),
                        security: None,
                    }
                }
            },
            (None, Some(s)) => match old_port.and_then(|p| Some((p, self.usual_security(p)?))) {
                Some((p, usual)) if usual != s => {
                    notes.push(format!(
                        "{} port: the usual one for {s} (port {p}, kept from before, is a \
                         {usual} port); give --{flag}-port to choose another",
                        self.name
                    ));
                    Connection {
                        port: Port::Usual,
                        security: Some(s),
                    }
                }
                _ => Connection {
                    port: Port::Keep,
                    security: Some(s),
                },
            },
            (None, None) => Connection::default(),
        }
    }
}

/// The address, the login and both servers: from the flags, else the
/// provider, else the settings there, else a question.
fn servers(a: &Setup, table: &toml::Table, home: &Path, ask: &mut Asker) -> Result<Servers> {
    let provider = provider(a.provider.as_deref())?;
    let email = match a.email.clone() {
        Some(e) => Some(e),
        None => current(table, "smtp", "user")
            .or_else(|| Identity::load(home).ok().map(|i| i.email))
            .or(ask.line("Your e-mail address")?),
    };
    let email = email.ok_or_else(|| missing("--email"))?;
    text::check_email(&email).map_err(Error::Usage)?;
    let user = a.user.clone().unwrap_or_else(|| email.clone());
    let guess = |kind: &str| {
        let domain = email.rsplit('@').next().unwrap_or_default();
        format!("{kind}.{domain}")
    };
    let mut host = |given: &Option<String>, known: Option<&str>, kind: &str, question: &str| {
        Ok::<_, Error>(match (given, known) {
            (Some(h), _) => h.clone(),
            (None, Some(k)) => k.to_string(),
            (None, None) => match current(table, kind, "host") {
                Some(h) => h,
                None => ask
                    .line_or(&format!("{question} [{}]", guess(kind)), guess(kind))?
                    .ok_or_else(|| missing(&format!("--{kind}-host")))?,
            },
        })
    };
    let smtp_host = host(
        &a.smtp_host,
        provider.map(|p| p.smtp.0),
        "smtp",
        "SMTP server (sending)",
    )?;
    let imap_host = host(
        &a.imap_host,
        provider.map(|p| p.imap.0),
        "imap",
        "IMAP server (receiving)",
    )?;
    let smtp_security = match &a.smtp_security {
        Some(s) => Some(security_name(parse_security(s)?)),
        None => provider.map(|p| security_name(p.smtp.2)),
    };
    let imap_security = match &a.imap_security {
        Some(s) => Some(
            ImapSecurity::parse(s)
                .ok_or_else(|| {
                    Error::Usage(format!(
                        "--imap-security {}: use tls, starttls or none",
                        text::excerpt(s)
                    ))
                })?
                .as_str(),
        ),
        None => provider.map(|p| p.imap.2.as_str()),
    };
    let smtp_port = a.smtp_port.or(provider.map(|p| p.smtp.1));
    let imap_port = a.imap_port.or(provider.map(|p| p.imap.1));
    for (flag, port) in [("--smtp-port", smtp_port), ("--imap-port", imap_port)] {
        if port == Some(0) {
            return Err(Error::Usage(format!("{flag} cannot be 0")));
        }
    }
    let mut notes = Vec::new();
    let smtp = SMTP_SIDE.settle(smtp_port, smtp_security, table, &mut notes);
    let imap = IMAP_SIDE.settle(imap_port, imap_security, table, &mut notes);
    Ok(Servers {
        user,
        provider: provider.map(|p| p.name),
        smtp_host,
        imap_host,
        smtp,
        imap,
        notes,
    })
}

/// The password, or how to get it.
enum Secret {
    Command(String),
    Password(String),
    /// A command printing an OAuth 2.0 access token.
    Token(String),
    /// The one already in the settings.
    Keep,
}

/// The secret: a token command, a password command, a password read from
/// standard input, the one already there, or a question.
fn secret(a: &Setup, table: &toml::Table, s: &Servers, terminal: bool) -> Result<Secret> {
    let had_secret = ["password", "password_command", "token_command"]
        .iter()
        .any(|k| table.get("smtp").and_then(|t| t.get(k)).is_some());
    let oauth_only = s
        .provider
        .and_then(|p| OAUTH_ONLY.iter().find(|(name, _)| *name == p))
        .map(|(_, shown)| *shown);
    if let Some(c) = &a.token_command {
        if c.trim().is_empty() {
            return Err(Error::Usage("--token-command is empty".into()));
        }
        return Ok(Secret::Token(c.clone()));
    }
    // A token command already there is kept, unless a password replaces
    // it; any password is refused.
    let had_token = table
        .get("smtp")
        .and_then(|t| t.get("token_command"))
        .is_some();
    if let Some(p) = oauth_only
        && (a.password_command.is_some() || a.password_stdin || !had_token)
    {
        return Err(Error::Usage(format!(
            "{p} accepts no password for IMAP and SMTP (Microsoft turned passwords, app \
             passwords included, off on 16 September 2024): give --token-command COMMAND, a \
             command that prints an OAuth 2.0 access token (docs/mail.md, \"OAuth 2.0\", says \
             how to get one); nothing was changed"
        )));
    }
    if let Some(c) = &a.password_command {
        Ok(Secret::Command(c.clone()))
    } else if a.password_stdin {
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .take_line(&mut line)
            .map_err(|e| Error::io("cannot read the password from", "standard input", e))?;
        let p = line.trim_end_matches(['\r', '\n']).to_string();
        if p.is_empty() {
            return Err(Error::Usage(
                "--password-stdin: standard input held no password".into(),
            ));
        }
        Ok(Secret::Password(p))
    } else if had_secret {
        Ok(Secret::Keep)
    } else if terminal {
        let p = rpassword::prompt_password(format!(
            "Password for {} (an app password for most providers; not shown): ",
            text::inline(&s.user)
        ))
        .map_err(|e| Error::io("cannot read the password from", "the terminal", e))?;
        if p.is_empty() {
            return Err(Error::Usage(
                "no password given; nothing was changed".into(),
            ));
        }
        Ok(Secret::Password(p))
    } else {
        Err(Error::Usage(
            "no password: give --password-command COMMAND (a command that prints it) or \
             --password-stdin, or --token-command COMMAND for an OAuth 2.0 login, or run \
             `starry mail setup` on a terminal; nothing was changed"
                .into(),
        ))
    }
}

/// The new settings, over the old ones.
fn write_over(
    table: &mut toml::Table,
    s: &Servers,
    secret: &Secret,
    auth: Option<Auth>,
    ca_file: Option<&Path>,
) -> Result<()> {
    let smtp = section(table, "smtp");
    smtp.insert("host".into(), s.smtp_host.clone().into());
    set_connection(smtp, &s.smtp);
    smtp.insert("user".into(), s.user.clone().into());
    // One way to log in at a time: a secret of the other kind would
    // only be misleading.
    match secret {
        Secret::Command(c) => {
            remove_oauth(smtp);
            smtp.remove("password");
            smtp.insert("password_command".into(), c.clone().into());
        }
        Secret::Password(p) => {
            remove_oauth(smtp);
            smtp.remove("password_command");
            smtp.insert("password".into(), p.clone().into());
        }
        Secret::Token(c) => {
            smtp.remove("password");
            smtp.remove("password_command");
            smtp.insert("token_command".into(), c.clone().into());
            if smtp.get("auth").and_then(|v| v.as_str()) == Some("password") {
                smtp.remove("auth");
            }
        }
        Secret::Keep => {}
    }
    if let Some(auth) = auth {
        smtp.insert("auth".into(), auth.as_str().into());
    }
    if let Some(ca) = ca_file {
        let abs = fs::canonicalize(ca).map_err(|e| Error::io("cannot find", ca, e))?;
        smtp.insert("ca_file".into(), abs.display().to_string().into());
    }
    let imap = section(table, "imap");
    imap.insert("host".into(), s.imap_host.clone().into());
    set_connection(imap, &s.imap);
    table.insert("transport".into(), "smtp".into());
    Ok(())
}

/// Drops an OAuth login (a password replaces it).
fn remove_oauth(t: &mut toml::Table) {
    t.remove("token_command");
    if t.get("auth")
        .and_then(|v| v.as_str())
        .and_then(Auth::parse)
        .is_some_and(Auth::is_oauth)
    {
        t.remove("auth");
    }
}

fn set_connection(t: &mut toml::Table, c: &Connection) {
    match c.port {
        Port::Keep => {}
        Port::Set(p) => {
            t.insert("port".into(), i64::from(p).into());
        }
        Port::Usual => {
            t.remove("port");
        }
    }
    set_or_keep(t, "security", c.security.map(Into::into));
}

/// Tries both connections (log in, nothing sent), saying how each went in
/// `report`; the answer that nothing was written when one failed.
fn try_both(
    cfg: &crate::mail::transport::MailConfig,
    home: &Path,
    user: &str,
    report: &mut SetupReport,
) -> Option<Output> {
    let smtp_result = check_smtp(cfg, home);
    let imap_result = Imap::connect(&cfg.imap).and_then(|mut i| {
        let sel = i.select(&cfg.imap.inbox)?;
        let server = i.server().to_string();
        let how = i.login_method().to_string();
        i.logout();
        Ok((server, how, sel.exists))
    });
    let smtp_text = match &smtp_result {
        Ok(check) => format!("SMTP works: {check}"),
        Err(e) => format!("SMTP failed: {e}"),
    };
    let imap_text = match &imap_result {
        Ok((server, how, n)) => format!(
            "IMAP works: logged in at {server} as {} with {how}; {} holds {n} mails",
            text::inline(user),
            text::inline(&cfg.imap.inbox)
        ),
        Err(e) => format!("IMAP failed: {e}"),
    };
    report.smtp = Some(smtp_text.clone());
    report.imap = Some(imap_text.clone());
    if smtp_result.is_err() || imap_result.is_err() {
        let mut text = String::new();
        for n in &report.notes {
            text.push_str(&format!("Note: {n}.\n"));
        }
        let mut out = Output::new(
            format!(
                "{text}{smtp_text}\n{imap_text}\nNothing was written: fix what failed and run \
                 `starry mail setup` again (or add --no-test to keep the settings \
                 untried)."
            ),
            &*report,
        );
        out.code = 2;
        return Some(out);
    }
    None
}

/// Writes the settings, keeping the earlier file aside.
fn keep(home: &Path, path: &Path, settings: &str, mut report: SetupReport) -> Result<Output> {
    if path.exists() {
        let backup = home.join(format!("{CONFIG_FILE}.bak"));
        fs::copy(path, &backup).map_err(|e| Error::io("cannot keep a copy at", &backup, e))?;
        report.backup = Some(backup.display().to_string());
    }
    fs::create_dir_all(home).map_err(|e| Error::io("cannot create", home, e))?;
    write_private(path, settings.as_bytes())?;
    report.written = true;
    let mut t = String::new();
    for n in &report.notes {
        t.push_str(&format!("Note: {n}.\n"));
    }
    for line in [&report.smtp, &report.imap].into_iter().flatten() {
        t.push_str(line);
        t.push('\n');
    }
    t.push_str(&format!(
        "Settings written to {} (readable by you alone){}.\nNext: `starry sync` takes your \
         turn mails; `--mail` on any command sends them.",
        path.display(),
        report
            .backup
            .as_deref()
            .map(|b| format!("; the earlier file is kept as {b}"))
            .unwrap_or_default()
    ));
    Ok(Output::new(t, &report))
}

fn missing(flag: &str) -> Error {
    Error::Usage(format!(
        "{flag} is needed (and there is no terminal to ask on); nothing was changed"
    ))
}

fn parse_security(s: &str) -> Result<Security> {
    match s.trim().to_ascii_lowercase().as_str() {
        "starttls" => Ok(Security::Starttls),
        "tls" | "ssl" | "smtps" => Ok(Security::Tls),
        "none" | "plain" => Ok(Security::None),
        _ => Err(Error::Usage(format!(
            "--smtp-security {}: use starttls, tls or none",
            text::excerpt(s)
        ))),
    }
}

fn security_name(s: Security) -> &'static str {
    match s {
        Security::Starttls => "starttls",
        Security::Tls => "tls",
        Security::None => "none",
    }
}

fn section<'a>(table: &'a mut toml::Table, name: &str) -> &'a mut toml::Table {
    let entry = table
        .entry(name.to_string())
        .or_insert_with(|| toml::Value::Table(toml::Table::new()));
    if !entry.is_table() {
        *entry = toml::Value::Table(toml::Table::new());
    }
    entry.as_table_mut().expect("a table")
}

/// Sets `key` when a value is given; otherwise keeps what is there.
fn set_or_keep(t: &mut toml::Table, key: &str, value: Option<toml::Value>) {
    if let Some(v) = value {
        t.insert(key.into(), v);
    }
}

/// Writes `bytes` to `path` atomically, readable by its owner alone (a
/// temporary file is created with mode 0600, then renamed).
fn write_private(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let mut tmp =
        tempfile::NamedTempFile::new_in(&dir).map_err(|e| Error::io("cannot write in", &dir, e))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        tmp.as_file()
            .set_permissions(fs::Permissions::from_mode(0o600))
            .map_err(|e| Error::io("cannot protect", path, e))?;
    }
    tmp.write_all(bytes)
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| Error::io("cannot write (disk full?)", path, e))?;
    tmp.persist(path)
        .map_err(|e| Error::io("cannot replace", path, e.error))?;
    Ok(())
}

/// Questions on the terminal; none without one.
struct Asker {
    terminal: bool,
}

impl Asker {
    fn line(&mut self, question: &str) -> Result<Option<String>> {
        if !self.terminal {
            return Ok(None);
        }
        eprint!("{question}: ");
        let _ = std::io::stderr().flush();
        let mut s = String::new();
        std::io::stdin()
            .lock()
            .take_line(&mut s)
            .map_err(|e| Error::io("cannot read from", "the terminal", e))?;
        let s = s.trim().to_string();
        Ok((!s.is_empty()).then_some(s))
    }

    fn line_or(&mut self, question: &str, default: String) -> Result<Option<String>> {
        if !self.terminal {
            return Ok(None);
        }
        Ok(Some(self.line(question)?.unwrap_or(default)))
    }
}

/// One line of at most 4 KiB.
trait TakeLine {
    fn take_line(&mut self, s: &mut String) -> std::io::Result<usize>;
}

impl<R: BufRead> TakeLine for R {
    fn take_line(&mut self, s: &mut String) -> std::io::Result<usize> {
        use std::io::Read as _;
        self.by_ref().take(4096).read_line(s)
    }
}
