//! Mail settings and sending.
//!
//! Settings come from `HOME/mail.toml` (absent file = defaults), overridden
//! by `STARRY_*` environment variables. The file never holds a password: it
//! may name a `password_command` whose output is the password; the only other
//! way to give one is `STARRY_SMTP_PASSWORD`.
//!
//! ```toml
//! transport = "smtp"                 # outbox (default) | smtp | sendmail
//! from = "Alice <alice@example.org>" # optional default sender, for the caller
//!
//! [smtp]
//! host = "mail.example.org"
//! port = 587                         # default: 587 starttls, 465 tls, 25 none
//! security = "starttls"              # starttls (default) | tls | none (localhost only)
//! user = "alice@example.org"         # log in (AUTH PLAIN or LOGIN) when set
//! password_command = "pass show mail/example.org"
//! # or OAuth 2.0 (XOAUTH2 / OAUTHBEARER) with a command printing the token:
//! # token_command = ["oama", "access", "alice@example.org"]
//! # auth = "oauth2"                  # password | oauth2 (from the server) | xoauth2 | oauthbearer
//! ca_file = "my-ca.pem"              # extra trusted root (PEM); relative to HOME
//! timeout_secs = 30
//!
//! [sendmail]
//! command = "/usr/sbin/sendmail"     # a sendmail-compatible program (no arguments)
//! ```
//!
//! Transports: `outbox` writes each message as a `.eml` file into
//! `HOME/outbox/` (nothing leaves the machine: good for trying things out and
//! for sending by hand); `smtp` talks to a mail server with rustls for TLS;
//! `sendmail` hands the message to a local program. When `transport` is not
//! set it is `smtp` if an SMTP host is set, else `outbox`.
//!
//! A message that cannot be sent is kept in `HOME/pending/` (`NAME.eml` plus
//! `NAME.envelope.json`) and [`retry`] sends it later.

use std::collections::BTreeMap;
use std::fmt;
use std::fs::{self, File};
use std::io::Write as _;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use lettre::address::{Address, Envelope};
use lettre::transport::sendmail::SendmailTransport;
use lettre::transport::smtp::authentication::{Credentials, Mechanism};
use lettre::transport::smtp::client::{SmtpConnection, TlsParameters};
use lettre::transport::smtp::extension::ClientId;
use lettre::{Message, Transport as _};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use serde::{Deserialize, Serialize};

use super::MailError;
use super::imap::{ImapSecurity, ImapSettings};
use super::oauth::{Auth, TokenCommand};
use starry_core::text;

/// Name of the settings file inside the starry home directory.
pub const CONFIG_FILE: &str = "mail.toml";
/// Folder (inside home) of the outbox transport.
pub const OUTBOX_DIR: &str = "outbox";
/// Folder (inside home) of messages waiting for `starry mail --retry`.
pub const PENDING_DIR: &str = "pending";
/// Default SMTP timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// Every environment variable read by [`load`].
pub const ENV_VARS: &[&str] = &[
    "STARRY_MAIL_TRANSPORT",
    "STARRY_MAIL_FROM",
    "STARRY_SMTP_HOST",
    "STARRY_SMTP_PORT",
    "STARRY_SMTP_SECURITY",
    "STARRY_SMTP_USER",
    "STARRY_SMTP_PASSWORD",
    "STARRY_SMTP_PASSWORD_COMMAND",
    "STARRY_SMTP_TOKEN_COMMAND",
    "STARRY_SMTP_AUTH",
    "STARRY_SMTP_CA_FILE",
    "STARRY_SMTP_TIMEOUT",
    "STARRY_SENDMAIL",
    "STARRY_IMAP_HOST",
    "STARRY_IMAP_PORT",
    "STARRY_IMAP_SECURITY",
    "STARRY_IMAP_USER",
    "STARRY_IMAP_PASSWORD",
    "STARRY_IMAP_PASSWORD_COMMAND",
    "STARRY_IMAP_TOKEN_COMMAND",
    "STARRY_IMAP_AUTH",
    "STARRY_IMAP_CA_FILE",
    "STARRY_IMAP_TIMEOUT",
    "STARRY_IMAP_INBOX",
    "STARRY_IMAP_FOLDER",
    "STARRY_PLAYER_URL",
];

/// How messages leave.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TransportKind {
    /// Write `.eml` files into `HOME/outbox/`.
    #[default]
    Outbox,
    /// Send through an SMTP server.
    Smtp,
    /// Hand to a sendmail-compatible program.
    Sendmail,
}

impl TransportKind {
    fn parse(s: &str) -> Option<TransportKind> {
        match s.trim().to_ascii_lowercase().as_str() {
            "outbox" => Some(TransportKind::Outbox),
            "smtp" => Some(TransportKind::Smtp),
            "sendmail" => Some(TransportKind::Sendmail),
            _ => None,
        }
    }
}

/// How the SMTP connection is protected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Security {
    /// Plain connection upgraded with STARTTLS (required), usually port 587.
    #[default]
    Starttls,
    /// TLS from the first byte ("SMTPS"), usually port 465.
    Tls,
    /// No encryption: only allowed for a server on this machine.
    None,
}

impl Security {
    fn parse(s: &str) -> Option<Security> {
        match s.trim().to_ascii_lowercase().as_str() {
            "starttls" => Some(Security::Starttls),
            "tls" | "ssl" | "smtps" => Some(Security::Tls),
            "none" | "plain" => Some(Security::None),
            _ => None,
        }
    }

    /// The usual port for this kind of connection.
    pub fn default_port(self) -> u16 {
        match self {
            Security::Starttls => 587,
            Security::Tls => 465,
            Security::None => 25,
        }
    }
}

/// A password. Its `Debug` shows nothing, it has no `Display`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a password.
    pub fn new(s: impl Into<String>) -> Secret {
        Secret(s.into())
    }
    /// The password itself; handle with care.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

/// SMTP settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SmtpSettings {
    /// Server host name or IP address.
    pub host: Option<String>,
    /// Port; `None` = the usual one for `security`.
    pub port: Option<u16>,
    /// STARTTLS, implicit TLS or none.
    pub security: Security,
    /// User name to log in with; no login when `None`.
    pub user: Option<String>,
    /// The password, only ever from `STARRY_SMTP_PASSWORD`.
    pub password: Option<Secret>,
    /// A shell command printing the password.
    pub password_command: Option<String>,
    /// A command printing an OAuth 2.0 access token.
    pub token_command: Option<TokenCommand>,
    /// How to log in; `None` = OAuth when a token command is set, else a
    /// password.
    pub auth: Option<Auth>,
    /// Extra trusted certificates (PEM): authorities, or the server's own
    /// (pinned).
    pub ca_file: Option<PathBuf>,
    /// Connect/read/write timeout.
    pub timeout: Duration,
}

impl Default for SmtpSettings {
    fn default() -> Self {
        SmtpSettings {
            host: None,
            port: None,
            security: Security::default(),
            user: None,
            password: None,
            password_command: None,
            token_command: None,
            auth: None,
            ca_file: None,
            timeout: DEFAULT_TIMEOUT,
        }
    }
}

impl SmtpSettings {
    /// How the account logs in.
    pub fn auth(&self) -> Auth {
        effective_auth(self.auth, self.token_command.is_some())
    }

    /// The port actually used.
    pub fn effective_port(&self) -> u16 {
        self.port.unwrap_or(self.security.default_port())
    }

    /// `host:port` as shown in messages.
    pub fn server(&self) -> String {
        let host = self.host.as_deref().unwrap_or("(no host)");
        if host.contains(':') {
            format!("[{host}]:{}", self.effective_port())
        } else {
            format!("{host}:{}", self.effective_port())
        }
    }
}

/// All mail settings. `MailConfig::default()` is the outbox transport.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct MailConfig {
    /// How messages leave.
    pub transport: TransportKind,
    /// Optional default sender (`Name <address>` or `address`), for the
    /// caller to use when it builds a [`super::compose::TurnMail`].
    pub from: Option<String>,
    /// SMTP settings (used by the `smtp` transport).
    pub smtp: SmtpSettings,
    /// The sendmail program (used by the `sendmail` transport); `None` =
    /// `sendmail` from `PATH`.
    pub sendmail: Option<String>,
    /// IMAP settings (used by `starry sync` and `starry robot --imap`).
    pub imap: ImapSettings,
    /// The address of a web player (`player_url`, `STARRY_PLAYER_URL`),
    /// checked by [`starry_core::link::check_player_url`]: when set, every
    /// turn mail carries a player link to it (docs/mail.md, "Player links").
    pub player_url: Option<String>,
    /// Where the settings came from, for messages.
    pub source: Option<PathBuf>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    transport: Option<TransportKind>,
    from: Option<String>,
    player_url: Option<String>,
    #[serde(default)]
    smtp: FileSmtp,
    #[serde(default)]
    sendmail: FileSendmail,
    #[serde(default)]
    imap: FileImap,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct FileImap {
    host: Option<String>,
    port: Option<u16>,
    security: Option<ImapSecurity>,
    user: Option<String>,
    password: Option<String>,
    password_command: Option<String>,
    token_command: Option<TokenCommand>,
    auth: Option<String>,
    ca_file: Option<PathBuf>,
    timeout_secs: Option<u64>,
    inbox: Option<String>,
    folder: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct FileSmtp {
    host: Option<String>,
    port: Option<u16>,
    security: Option<Security>,
    user: Option<String>,
    password: Option<String>,
    password_command: Option<String>,
    token_command: Option<TokenCommand>,
    auth: Option<String>,
    ca_file: Option<PathBuf>,
    timeout_secs: Option<u64>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct FileSendmail {
    command: Option<String>,
}

/// Loads `home/mail.toml` (absent = defaults) and applies the `STARRY_*`
/// environment variables over it. Validates the chosen transport.
pub fn load(home: &Path) -> Result<MailConfig, MailError> {
    load_with_env(home, &|name| std::env::var(name).ok())
}

/// [`load`] with the environment given as a function (for tests, or for a
/// caller that already holds the variables). Empty values count as unset.
pub fn load_with_env(
    home: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<MailConfig, MailError> {
    let path = home.join(CONFIG_FILE);
    let file = match fs::read_to_string(&path) {
        Ok(text) => parse_file(&path, &text, readable_by_others(&path))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => FileConfig::default(),
        Err(e) => return Err(MailError::io(format!("cannot read {}", path.display()), e)),
    };
    let env = |name: &str| env(name).filter(|v| !v.trim().is_empty());

    let mut smtp = SmtpSettings {
        host: file.smtp.host,
        port: file.smtp.port,
        security: file.smtp.security.unwrap_or_default(),
        user: file.smtp.user,
        password: file.smtp.password.map(Secret),
        password_command: file.smtp.password_command,
        token_command: file.smtp.token_command,
        auth: parse_auth(file.smtp.auth.as_deref(), "`auth` in [smtp]")?,
        ca_file: file.smtp.ca_file.map(|p| home.join(p)),
        timeout: file
            .smtp
            .timeout_secs
            .map_or(DEFAULT_TIMEOUT, Duration::from_secs),
    };
    let mut transport = file.transport;
    let mut from = file.from;
    let mut sendmail = file.sendmail.command;

    if let Some(v) = env("STARRY_MAIL_TRANSPORT") {
        transport = Some(TransportKind::parse(&v).ok_or_else(|| {
            MailError::Config(format!(
                "STARRY_MAIL_TRANSPORT is `{}`; use outbox, smtp or sendmail",
                text::excerpt(&v)
            ))
        })?);
    }
    if let Some(v) = env("STARRY_MAIL_FROM") {
        from = Some(v);
    }
    if let Some(v) = env("STARRY_SMTP_HOST") {
        smtp.host = Some(v.trim().to_string());
    }
    if let Some(v) = env("STARRY_SMTP_PORT") {
        smtp.port = Some(v.trim().parse().map_err(|_| {
            MailError::Config(format!(
                "STARRY_SMTP_PORT is `{}`; it must be a port number (1-65535)",
                text::excerpt(&v)
            ))
        })?);
    }
    if let Some(v) = env("STARRY_SMTP_SECURITY") {
        smtp.security = Security::parse(&v).ok_or_else(|| {
            MailError::Config(format!(
                "STARRY_SMTP_SECURITY is `{}`; use starttls, tls or none",
                text::excerpt(&v)
            ))
        })?;
    }
    if let Some(v) = env("STARRY_SMTP_USER") {
        smtp.user = Some(v);
    }
    if let Some(v) = env("STARRY_SMTP_PASSWORD") {
        smtp.password = Some(Secret(v));
    }
    if let Some(v) = env("STARRY_SMTP_PASSWORD_COMMAND") {
        smtp.password_command = Some(v);
    }
    if let Some(v) = env("STARRY_SMTP_TOKEN_COMMAND") {
        smtp.token_command = Some(TokenCommand::Shell(v));
    }
    if let Some(v) = env("STARRY_SMTP_AUTH") {
        smtp.auth = parse_auth(Some(&v), "STARRY_SMTP_AUTH")?;
    }
    if let Some(v) = env("STARRY_SMTP_CA_FILE") {
        smtp.ca_file = Some(PathBuf::from(v));
    }
    if let Some(v) = env("STARRY_SMTP_TIMEOUT") {
        let secs: u64 = v.trim().parse().map_err(|_| {
            MailError::Config(format!(
                "STARRY_SMTP_TIMEOUT is `{}`; it must be a number of seconds",
                text::excerpt(&v)
            ))
        })?;
        smtp.timeout = Duration::from_secs(secs);
    }
    if let Some(v) = env("STARRY_SENDMAIL") {
        sendmail = Some(v);
    }
    let player_url = player_url(file.player_url, &path, &env)?;
    if smtp.port == Some(0) {
        return Err(MailError::Config("the SMTP port cannot be 0".into()));
    }
    if smtp.timeout.is_zero() {
        return Err(MailError::Config(
            "the SMTP timeout cannot be 0 seconds".into(),
        ));
    }
    check_login("smtp", smtp.auth(), smtp.token_command.as_ref())?;

    let imap = imap_settings(home, file.imap, &smtp, &env)?;

    let transport = transport.unwrap_or(if smtp.host.is_some() {
        TransportKind::Smtp
    } else {
        TransportKind::Outbox
    });
    let cfg = MailConfig {
        transport,
        from,
        smtp,
        sendmail,
        imap,
        player_url,
        source: path.exists().then_some(path),
    };
    validate(&cfg)?;
    Ok(cfg)
}

/// The web player's address: `STARRY_PLAYER_URL` over `player_url` in
/// mail.toml, checked, surrounding blanks dropped (an empty value in the
/// file, as for the variable, means none).
fn player_url(
    file: Option<String>,
    path: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<String>, MailError> {
    let (url, place) = match env("STARRY_PLAYER_URL") {
        Some(v) => (v, "STARRY_PLAYER_URL".to_string()),
        None => match file {
            Some(v) => (v, format!("`player_url` in {}", path.display())),
            None => return Ok(None),
        },
    };
    let url = url.trim();
    if url.is_empty() {
        return Ok(None);
    }
    starry_core::link::check_player_url(url)
        .map_err(|e| MailError::Config(format!("{place} is `{}`: {e}", text::excerpt(url))))?;
    Ok(Some(url.to_string()))
}

/// The IMAP settings: `[imap]` and `STARRY_IMAP_*`, the account's user,
/// password and extra root certificate defaulting to the SMTP ones (one
/// account, both directions; a different IMAP user brings its own password).
fn imap_settings(
    home: &Path,
    file: FileImap,
    smtp: &SmtpSettings,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<ImapSettings, MailError> {
    let mut imap = ImapSettings {
        host: file.host,
        port: file.port,
        security: file.security.unwrap_or_default(),
        user: file.user,
        password: file.password.map(Secret),
        password_command: file.password_command,
        token_command: file.token_command,
        auth: parse_auth(file.auth.as_deref(), "`auth` in [imap]")?,
        ca_file: file.ca_file.map(|p| home.join(p)),
        timeout: file
            .timeout_secs
            .map_or(super::imap::DEFAULT_TIMEOUT, Duration::from_secs),
        inbox: file.inbox.unwrap_or_else(|| "INBOX".into()),
        folder: file
            .folder
            .unwrap_or_else(|| super::imap::DEFAULT_FOLDER.into()),
    };
    let number = |name: &str, v: &str, what: &str| {
        MailError::Config(format!(
            "{name} is `{}`; it must be {what}",
            text::excerpt(v)
        ))
    };
    if let Some(v) = env("STARRY_IMAP_HOST") {
        imap.host = Some(v.trim().to_string());
    }
    if let Some(v) = env("STARRY_IMAP_PORT") {
        imap.port = Some(
            v.trim()
                .parse()
                .map_err(|_| number("STARRY_IMAP_PORT", &v, "a port number (1-65535)"))?,
        );
    }
    if let Some(v) = env("STARRY_IMAP_SECURITY") {
        imap.security = ImapSecurity::parse(&v).ok_or_else(|| {
            MailError::Config(format!(
                "STARRY_IMAP_SECURITY is `{}`; use tls, starttls or none",
                text::excerpt(&v)
            ))
        })?;
    }
    if let Some(v) = env("STARRY_IMAP_USER") {
        imap.user = Some(v);
    }
    if let Some(v) = env("STARRY_IMAP_PASSWORD") {
        imap.password = Some(Secret(v));
    }
    if let Some(v) = env("STARRY_IMAP_PASSWORD_COMMAND") {
        imap.password_command = Some(v);
    }
    if let Some(v) = env("STARRY_IMAP_TOKEN_COMMAND") {
        imap.token_command = Some(TokenCommand::Shell(v));
    }
    if let Some(v) = env("STARRY_IMAP_AUTH") {
        imap.auth = parse_auth(Some(&v), "STARRY_IMAP_AUTH")?;
    }
    if let Some(v) = env("STARRY_IMAP_CA_FILE") {
        imap.ca_file = Some(PathBuf::from(v));
    }
    if let Some(v) = env("STARRY_IMAP_TIMEOUT") {
        let secs: u64 = v
            .trim()
            .parse()
            .map_err(|_| number("STARRY_IMAP_TIMEOUT", &v, "a number of seconds"))?;
        imap.timeout = Duration::from_secs(secs);
    }
    if let Some(v) = env("STARRY_IMAP_INBOX") {
        imap.inbox = v;
    }
    if let Some(v) = env("STARRY_IMAP_FOLDER") {
        imap.folder = v;
    }
    if imap.port == Some(0) {
        return Err(MailError::Config("the IMAP port cannot be 0".into()));
    }
    if imap.timeout.is_zero() {
        return Err(MailError::Config(
            "the IMAP timeout cannot be 0 seconds".into(),
        ));
    }
    if imap.user.is_none() {
        imap.user = smtp.user.clone();
    }
    let own_secret =
        imap.password.is_some() || imap.password_command.is_some() || imap.token_command.is_some();
    if !own_secret && imap.user == smtp.user {
        imap.password = smtp.password.clone();
        imap.password_command = smtp.password_command.clone();
        imap.token_command = smtp.token_command.clone();
        imap.auth = imap.auth.or(smtp.auth);
    }
    if imap.ca_file.is_none() {
        imap.ca_file = smtp.ca_file.clone();
    }
    check_login("imap", imap.auth(), imap.token_command.as_ref())?;
    Ok(imap)
}

/// `auth` as written in mail.toml or a variable (`where`).
fn parse_auth(value: Option<&str>, place: &str) -> Result<Option<Auth>, MailError> {
    value
        .map(|v| {
            Auth::parse(v).ok_or_else(|| {
                MailError::Config(format!(
                    "{place} is `{}`; use password, oauth2 (the mechanism the server offers), \
                     xoauth2 or oauthbearer",
                    text::excerpt(v)
                ))
            })
        })
        .transpose()
}

/// How an account logs in: as `auth` says, else OAuth when it has a token
/// command, else with a password.
pub(crate) fn effective_auth(auth: Option<Auth>, has_token_command: bool) -> Auth {
    auth.unwrap_or(if has_token_command {
        Auth::OAuth
    } else {
        Auth::Password
    })
}

/// An OAuth login needs a token command that names something to run.
fn check_login(
    section: &str,
    auth: Auth,
    token_command: Option<&TokenCommand>,
) -> Result<(), MailError> {
    let upper = section.to_ascii_uppercase();
    match token_command {
        Some(c) if c.is_empty() => Err(MailError::Config(format!(
            "the {upper} token_command is empty: set `token_command` in the [{section}] section \
             of mail.toml to the command that prints your OAuth access token"
        ))),
        None if auth.is_oauth() => Err(MailError::Config(format!(
            "{upper} auth = {} needs a command that prints the OAuth access token: set \
             `token_command` in the [{section}] section of mail.toml (or \
             STARRY_{upper}_TOKEN_COMMAND); docs/mail.md says how to get one for each provider",
            auth.as_str()
        ))),
        _ => Ok(()),
    }
}

/// Whether users other than the owner may read `path` (and so a password
/// in it). Where there are no such permissions, never.
fn readable_by_others(path: &Path) -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = fs::metadata(path).ok()?.permissions().mode() & 0o777;
        (mode & 0o044 != 0).then_some(mode)
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

fn parse_file(path: &Path, text: &str, readable: Option<u32>) -> Result<FileConfig, MailError> {
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        MailError::Config(format!(
            "{} is not valid TOML: {}",
            path.display(),
            text::inline(&without_values(&one_line(e.message())))
        ))
    })?;
    // A password has two places, `password` in [smtp] and in [imap]; one
    // anywhere else is a mistake whose value must not be echoed.
    let mut rest = table.clone();
    let mut stored = false;
    for section in ["smtp", "imap"] {
        if let Some(toml::Value::Table(t)) = rest.get_mut(section) {
            stored |= t.remove("password").is_some();
        }
    }
    if holds_password(&toml::Value::Table(rest)) {
        return Err(MailError::PasswordInConfigFile {
            path: path.to_path_buf(),
        });
    }
    if let (true, Some(mode)) = (stored, readable) {
        return Err(MailError::PasswordFileReadable {
            path: path.to_path_buf(),
            mode,
        });
    }
    FileConfig::deserialize(toml::Value::Table(table)).map_err(|e| {
        MailError::Config(format!(
            "{}: {}; see the keys documented for mail.toml (transport, from, [smtp] and [imap] \
             host, port, security, user, password_command, token_command, auth, ca_file, \
             timeout_secs, [imap] inbox, folder, [sendmail] command)",
            path.display(),
            text::inline(&without_values(&one_line(e.message())))
        ))
    })
}

/// Drops double-quoted values from a parser's message: serde quotes the
/// offending value (`invalid type: string "…", expected u16`), and a
/// password typed into the wrong field must not be echoed. Key names, in
/// backticks, stay.
fn without_values(msg: &str) -> String {
    let mut out = String::with_capacity(msg.len());
    let mut quoted = false;
    for c in msg.chars() {
        match (c, quoted) {
            ('"', false) => {
                quoted = true;
                out.push_str("(value not shown)");
            }
            ('"', true) => quoted = false,
            (_, true) => {}
            (c, false) => out.push(c),
        }
    }
    out
}

/// A `password` (or `pass`, `passwd`) key at any depth.
fn holds_password(v: &toml::Value) -> bool {
    match v {
        toml::Value::Table(t) => t.iter().any(|(k, v)| {
            matches!(
                k.to_ascii_lowercase().as_str(),
                "password" | "pass" | "passwd" | "smtp_password"
            ) || holds_password(v)
        }),
        toml::Value::Array(a) => a.iter().any(holds_password),
        _ => false,
    }
}

pub(crate) fn is_local_host(host: &str) -> bool {
    let h = host.trim().trim_start_matches('[').trim_end_matches(']');
    h.eq_ignore_ascii_case("localhost") || h.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

fn validate(cfg: &MailConfig) -> Result<(), MailError> {
    if cfg.transport != TransportKind::Smtp {
        return Ok(());
    }
    let Some(host) = cfg.smtp.host.as_deref() else {
        return Err(MailError::Config(
            "the smtp transport needs a server: set STARRY_SMTP_HOST or `host` in the [smtp] \
             section of mail.toml (or choose transport = \"outbox\")"
                .into(),
        ));
    };
    if host.trim().is_empty() {
        return Err(MailError::Config("the SMTP host is empty".into()));
    }
    if cfg.smtp.security == Security::None && !is_local_host(host) {
        return Err(MailError::Config(format!(
            "security = none is only allowed for a server on this machine (localhost), not \
             {host}: a remote server must be reached with starttls or tls so that the password \
             and the mail are encrypted"
        )));
    }
    Ok(())
}

/// What happened to a message that left.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sent {
    /// Written to the outbox folder.
    Outbox {
        /// The `.eml` file.
        path: PathBuf,
    },
    /// Accepted by an SMTP server.
    Smtp {
        /// `host:port`.
        server: String,
        /// The server's final answer (e.g. `250 OK queued as …`).
        reply: String,
    },
    /// Accepted by the sendmail program.
    Sendmail {
        /// The program.
        program: String,
    },
}

impl fmt::Display for Sent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sent::Outbox { path } => write!(
                f,
                "written to {} (outbox transport: nothing was sent; send that file yourself, or \
                 set transport = \"smtp\" in mail.toml to send directly)",
                path.display()
            ),
            Sent::Smtp { server, reply } => write!(f, "sent through {server} ({reply})"),
            Sent::Sendmail { program } => write!(f, "handed to {program}"),
        }
    }
}

/// The outcome of [`retry`].
#[derive(Debug, Default)]
pub struct RetryReport {
    /// Pending files sent (and removed), with what happened.
    pub sent: Vec<(PathBuf, Sent)>,
    /// Pending files kept, each with why (one paragraph, no password).
    pub kept: Vec<(PathBuf, String)>,
}

impl RetryReport {
    /// True when nothing is left pending.
    pub fn all_sent(&self) -> bool {
        self.kept.is_empty()
    }
}

/// Sends `msg`. On any failure the message is kept in `home/pending/` and
/// the error ([`MailError::NotSent`]) says where and that
/// `starry mail --retry` will send it.
pub fn send(cfg: &MailConfig, home: &Path, msg: &Message) -> Result<Sent, MailError> {
    let envelope = msg.envelope().clone();
    let bytes = msg.formatted();
    let mut sender = Sender::new(cfg, home);
    match sender.deliver(&envelope, &bytes) {
        Ok(sent) => Ok(sent),
        Err(reason) => match save_pending(home, &envelope, &bytes) {
            Ok(pending) => Err(MailError::NotSent {
                reason: Box::new(reason),
                pending,
            }),
            Err(e) => Err(MailError::NotSentNotKept {
                reason: Box::new(reason),
                save_error: e.to_string(),
            }),
        },
    }
}

/// How [`check_smtp`] went: connected, and logged in when a user is set;
/// nothing was sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SmtpCheck {
    /// `host:port`.
    pub server: String,
    /// starttls, tls or none.
    pub security: &'static str,
    /// The user logged in as, and how (`AUTH PLAIN`, `AUTH OAUTHBEARER`…).
    pub login: Option<(String, String)>,
    /// The server's own answer to the login (`235 2.7.0 Authentication
    /// successful`).
    pub reply: Option<String>,
}

impl fmt::Display for SmtpCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.login {
            Some((user, how)) => write!(
                f,
                "logged in at {} as {} with {how} over {}",
                self.server,
                text::inline(user),
                self.security
            )?,
            None => write!(
                f,
                "connected to {} over {} (no user is set, so no login)",
                self.server, self.security
            )?,
        }
        if let Some(r) = &self.reply {
            write!(f, " (the server answered: {r})")?;
        }
        f.write_str("; nothing was sent")
    }
}

/// Connects to the SMTP server of `cfg` and logs in, sending nothing: the
/// test of `starry mail setup`.
pub fn check_smtp(cfg: &MailConfig, home: &Path) -> Result<SmtpCheck, MailError> {
    validate(cfg)?;
    let (_, login) = Sender::new(cfg, home).smtp(None)?;
    Ok(SmtpCheck {
        server: cfg.smtp.server(),
        security: match cfg.smtp.security {
            Security::Starttls => "STARTTLS",
            Security::Tls => "TLS",
            Security::None => "a plain connection",
        },
        login: cfg.smtp.user.clone().zip(login.mechanism),
        reply: login.reply,
    })
}

/// Sends every message waiting in `home/pending/`, oldest first, removing
/// each one sent and keeping the rest. After a failure that would repeat for
/// every message (server unreachable, TLS, login), the remaining ones are
/// kept without trying them. Only an unreadable pending folder, or another
/// retry running at the same time, is an `Err`.
pub fn retry(cfg: &MailConfig, home: &Path) -> Result<RetryReport, MailError> {
    let dir = home.join(PENDING_DIR);
    let mut report = RetryReport::default();
    let files = pending_messages(home)?;
    if files.is_empty() {
        return Ok(report);
    }
    let lock_path = dir.join(".lock");
    let lock = File::create(&lock_path)
        .map_err(|e| MailError::io(format!("cannot create {}", lock_path.display()), e))?;
    if let Err(e) = lock.try_lock() {
        return Err(match e {
            fs::TryLockError::WouldBlock => MailError::Config(format!(
                "another starry is already sending the messages in {}; wait for it to finish",
                dir.display()
            )),
            fs::TryLockError::Error(e) => {
                MailError::io(format!("cannot lock {}", lock_path.display()), e)
            }
        });
    }

    let mut sender = Sender::new(cfg, home);
    let mut stop: Option<String> = None;
    for path in files {
        if let Some(reason) = &stop {
            report.kept.push((path, format!("not tried: {reason}")));
            continue;
        }
        let bytes = match fs::read(&path) {
            Ok(b) => b,
            // Sent and removed by someone else meanwhile.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                report
                    .kept
                    .push((path.clone(), format!("cannot read {}: {e}", path.display())));
                continue;
            }
        };
        let envelope = match read_envelope(&path, &bytes) {
            Ok(e) => e,
            Err(e) => {
                report.kept.push((path, e.to_string()));
                continue;
            }
        };
        match sender.deliver(&envelope, &bytes) {
            Ok(sent) => {
                let _ = fs::remove_file(envelope_path(&path));
                if let Err(e) = fs::remove_file(&path) {
                    report.kept.push((
                        path.clone(),
                        format!(
                            "sent, but could not be removed from {} ({e}); delete it by hand or \
                             it will be sent again",
                            path.display()
                        ),
                    ));
                }
                report.sent.push((path, sent));
            }
            Err(e) => {
                let text = e.to_string();
                if repeats_for_every_message(&e) {
                    stop = Some(text.clone());
                }
                report.kept.push((path, text));
            }
        }
    }
    drop(lock);
    Ok(report)
}

/// The messages waiting in `home/pending/`, oldest first.
pub fn pending_messages(home: &Path) -> Result<Vec<PathBuf>, MailError> {
    let dir = home.join(PENDING_DIR);
    let entries = match fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(MailError::io(format!("cannot read {}", dir.display()), e)),
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "eml"))
        .collect();
    files.sort();
    Ok(files)
}

fn repeats_for_every_message(e: &MailError) -> bool {
    matches!(
        e.root(),
        MailError::ConnectionRefused { .. }
            | MailError::Timeout { .. }
            | MailError::Connect { .. }
            | MailError::Tls { .. }
            | MailError::AuthFailed { .. }
            | MailError::AuthUnavailable { .. }
            | MailError::PasswordCommand { .. }
            | MailError::TokenCommand { .. }
            | MailError::TokenRefused { .. }
            | MailError::Config(_)
    )
}

// ---------------------------------------------------------------- files

#[derive(Serialize, Deserialize)]
struct EnvelopeFile {
    from: Option<String>,
    to: Vec<String>,
}

fn envelope_path(eml: &Path) -> PathBuf {
    eml.with_extension("envelope.json")
}

/// The name (without extension) of a message's file in the outbox or the
/// pending folder: when (UTC, to the millisecond, so that a folder sorts
/// oldest first), whom for, and — for a turn mail — the game and the entry,
/// read from its Message-ID (`starry.ID16.ENTRY.SEAT…@…`):
/// `20261126-023000.123-ben@example.org-3f2a9c1e-e12`. Someone who sends the
/// outbox by hand sees at once whom each file is for. The address is cut
/// down to a safe set of characters and a bounded length; [`write_new`]
/// makes the name unique.
fn message_name(envelope: &Envelope, bytes: &[u8]) -> String {
    let to: String = envelope
        .to()
        .first()
        .map(|a| a.to_string().to_ascii_lowercase())
        .unwrap_or_else(|| "nobody".into())
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '@' | '.' | '+' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    let mut name = format!("{}-{to}", chrono::Utc::now().format("%Y%m%d-%H%M%S%.3f"));
    if let Some((game, entry)) = turn_of(bytes) {
        name.push_str(&format!("-{game}-e{entry}"));
    }
    name
}

/// The game (8 hex digits) and the entry a turn mail is about, from its
/// Message-ID; None for any other message.
fn turn_of(bytes: &[u8]) -> Option<(String, u64)> {
    let end = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or(bytes.len().min(64 * 1024));
    let head = std::str::from_utf8(&bytes[..end]).ok()?;
    let id = head.split("\r\n").find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.eq_ignore_ascii_case("message-id")
            .then(|| value.trim())
    })?;
    let mut parts = id.strip_prefix("<starry.")?.split(['.', '@']);
    let game = parts.next()?;
    let entry = parts.next()?;
    (game.len() == 16 && game.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| Some((game[..8].to_ascii_lowercase(), entry.parse().ok()?)))
        .flatten()
}

/// Writes `bytes` to a new file `dir/STEM.EXT` — `STEM-2.EXT`, `STEM-3.EXT`
/// … when the name is taken — atomically, never replacing a file;
/// `companion`, when given, is a second extension that must be free under
/// the same stem too (a pending message's envelope).
fn write_new(
    dir: &Path,
    stem: &str,
    ext: &str,
    companion: Option<&str>,
    bytes: &[u8],
) -> Result<(PathBuf, String), MailError> {
    fs::create_dir_all(dir)
        .map_err(|e| MailError::io(format!("cannot create {}", dir.display()), e))?;
    for n in 1..=1000u32 {
        let stem = match n {
            1 => stem.to_string(),
            n => format!("{stem}-{n}"),
        };
        if companion.is_some_and(|c| dir.join(format!("{stem}.{c}")).exists()) {
            continue;
        }
        let path = dir.join(format!("{stem}.{ext}"));
        let mut tmp = tempfile::NamedTempFile::new_in(dir)
            .map_err(|e| MailError::io(format!("cannot write in {}", dir.display()), e))?;
        tmp.write_all(bytes)
            .and_then(|()| tmp.as_file().sync_all())
            .map_err(|e| MailError::io(format!("cannot write {}", path.display()), e))?;
        match tmp.persist_noclobber(&path) {
            Ok(_) => return Ok((path, stem)),
            Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(MailError::io(
                    format!("cannot write {}", path.display()),
                    e.error,
                ));
            }
        }
    }
    Err(MailError::io(
        format!(
            "cannot write {}",
            dir.join(format!("{stem}.{ext}")).display()
        ),
        std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            "a thousand files of that name are there already",
        ),
    ))
}

/// Writes `bytes` to `dir/name` atomically (temporary file + rename).
fn write_atomically(dir: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf, MailError> {
    fs::create_dir_all(dir)
        .map_err(|e| MailError::io(format!("cannot create {}", dir.display()), e))?;
    let path = dir.join(name);
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .map_err(|e| MailError::io(format!("cannot write in {}", dir.display()), e))?;
    tmp.write_all(bytes)
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| MailError::io(format!("cannot write {}", path.display()), e))?;
    tmp.persist(&path)
        .map_err(|e| MailError::io(format!("cannot write {}", path.display()), e.error))?;
    Ok(path)
}

fn save_pending(home: &Path, envelope: &Envelope, bytes: &[u8]) -> Result<PathBuf, MailError> {
    let dir = home.join(PENDING_DIR);
    let env = EnvelopeFile {
        from: envelope.from().map(ToString::to_string),
        to: envelope.to().iter().map(ToString::to_string).collect(),
    };
    let json = serde_json::to_vec_pretty(&env).expect("an envelope serializes");
    // Envelope first: an .eml without its envelope is still usable (the
    // envelope is then read from the headers), the reverse is not.
    let (_, stem) = write_new(
        &dir,
        &message_name(envelope, bytes),
        "envelope.json",
        Some("eml"),
        &json,
    )?;
    write_atomically(&dir, &format!("{stem}.eml"), bytes)
}

fn read_envelope(eml: &Path, bytes: &[u8]) -> Result<Envelope, MailError> {
    let bad = |why: String| {
        MailError::Config(format!(
            "the pending message {} cannot be sent: {why}; delete it (and its .envelope.json) \
             and send the turn again",
            eml.display()
        ))
    };
    let parse = |s: &str| -> Result<Address, MailError> {
        s.parse().map_err(|e| {
            bad(format!(
                "the address `{}` is not valid ({e})",
                text::excerpt(s)
            ))
        })
    };
    let (from, to) = match fs::read(envelope_path(eml))
        .ok()
        .and_then(|b| serde_json::from_slice::<EnvelopeFile>(&b).ok())
    {
        Some(env) => (env.from, env.to),
        None => envelope_from_headers(bytes).ok_or_else(|| {
            bad("its envelope file is missing and its headers name no recipient".into())
        })?,
    };
    let from = from.as_deref().map(parse).transpose()?;
    let to = to.iter().map(|s| parse(s)).collect::<Result<Vec<_>, _>>()?;
    Envelope::new(from, to).map_err(|e| bad(e.to_string()))
}

fn envelope_from_headers(bytes: &[u8]) -> Option<(Option<String>, Vec<String>)> {
    let msg = mail_parser::MessageParser::default().parse(bytes)?;
    let addrs = |a: Option<&mail_parser::Address<'_>>| -> Vec<String> {
        a.map(|a| {
            a.iter()
                .filter_map(|x| x.address())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
    };
    let from = addrs(msg.from()).into_iter().next();
    let mut to = addrs(msg.to());
    to.extend(addrs(msg.cc()));
    (!to.is_empty()).then_some((from, to))
}

// ---------------------------------------------------------------- sending

/// Sends with one configuration; asks for the password (or runs the token
/// command) at most once.
struct Sender<'a> {
    cfg: &'a MailConfig,
    home: &'a Path,
    credential: Option<Credential>,
    redact: Redactor,
}

/// What the account logs in with.
#[derive(Clone)]
enum Credential {
    Password(Secret),
    /// An OAuth 2.0 access token.
    Token(Secret),
}

/// How a connection went that logged in (or needed no login).
struct Login {
    /// `AUTH PLAIN`, `AUTH OAUTHBEARER`, …; None without a user.
    mechanism: Option<String>,
    /// The server's answer to the login (redacted).
    reply: Option<String>,
}

impl<'a> Sender<'a> {
    fn new(cfg: &'a MailConfig, home: &'a Path) -> Self {
        let mut redact = Redactor::default();
        if let Some(p) = &cfg.smtp.password {
            redact.add(cfg.smtp.user.as_deref().unwrap_or(""), p.expose());
        }
        Sender {
            cfg,
            home,
            credential: None,
            redact,
        }
    }

    fn deliver(&mut self, envelope: &Envelope, bytes: &[u8]) -> Result<Sent, MailError> {
        match self.cfg.transport {
            TransportKind::Outbox => {
                let dir = self.home.join(OUTBOX_DIR);
                let (path, _) =
                    write_new(&dir, &message_name(envelope, bytes), "eml", None, bytes)?;
                Ok(Sent::Outbox { path })
            }
            TransportKind::Sendmail => {
                let program = self
                    .cfg
                    .sendmail
                    .clone()
                    .unwrap_or_else(|| "sendmail".to_string());
                SendmailTransport::new_with_command(&program)
                    .send_raw(envelope, bytes)
                    .map_err(|e| {
                        let detail = match std::error::Error::source(&e)
                            .and_then(|s| s.downcast_ref::<std::io::Error>())
                        {
                            Some(io) if io.kind() == std::io::ErrorKind::NotFound => {
                                "no such program".to_string()
                            }
                            _ => self.redact.clean(&e.to_string()),
                        };
                        MailError::Sendmail {
                            program: program.clone(),
                            detail,
                        }
                    })?;
                Ok(Sent::Sendmail { program })
            }
            TransportKind::Smtp => {
                let (reply, _) = self.smtp(Some((envelope, bytes)))?;
                Ok(Sent::Smtp {
                    server: self.cfg.smtp.server(),
                    reply,
                })
            }
        }
    }

    /// The password, or the OAuth token its command prints.
    fn credential(&mut self) -> Result<Credential, MailError> {
        if let Some(c) = &self.credential {
            return Ok(c.clone());
        }
        let s = &self.cfg.smtp;
        let user = s.user.as_deref().unwrap_or("");
        let c = if s.auth().is_oauth() {
            let cmd = s
                .token_command
                .as_ref()
                .expect("an OAuth login has a token command (checked when loaded)");
            let token = cmd.run().map_err(|detail| MailError::TokenCommand {
                side: "SMTP",
                command: cmd.to_string(),
                detail,
            })?;
            self.redact.add_secret(token.expose());
            Credential::Token(token)
        } else if let Some(p) = &s.password {
            Credential::Password(p.clone())
        } else if let Some(cmd) = &s.password_command {
            Credential::Password(run_password_command(cmd)?)
        } else {
            return Err(MailError::Config(format!(
                "an SMTP user ({user}) is set but no password: set STARRY_SMTP_PASSWORD, or \
                 `password_command` in the [smtp] section of mail.toml (or \
                 STARRY_SMTP_PASSWORD_COMMAND), or `token_command` for an OAuth login"
            )));
        };
        if let Credential::Password(p) = &c {
            self.redact.add(user, p.expose());
        }
        self.credential = Some(c.clone());
        Ok(c)
    }

    /// Sends `message` through the SMTP server; with `None`, only connects
    /// and logs in (`starry mail setup`'s test). The server's last answer,
    /// and how the login went.
    fn smtp(&mut self, message: Option<(&Envelope, &[u8])>) -> Result<(String, Login), MailError> {
        validate(self.cfg)?;
        let s = &self.cfg.smtp;
        let host = s.host.clone().unwrap_or_default();
        let host = host.trim().trim_start_matches('[').trim_end_matches(']');
        let port = s.effective_port();
        let server = s.server();
        let ctx = Ctx {
            server: server.clone(),
            user: s.user.clone().unwrap_or_default(),
            security: s.security,
            timeout: s.timeout,
            ca_file: s.ca_file.clone(),
        };

        let tls = match s.security {
            Security::None => None,
            _ => Some(self.tls_parameters(host, &server)?),
        };
        // Resolve the secret before connecting: a failing command should
        // not leave a half-open session behind.
        let credential = match s.user.clone() {
            Some(user) => Some((user, self.credential()?)),
            None => None,
        };
        let hello = ClientId::default();
        let wrapper = if s.security == Security::Tls {
            tls.as_ref()
        } else {
            None
        };
        let mut conn =
            SmtpConnection::connect((host, port), Some(s.timeout), &hello, wrapper, None)
                .map_err(|e| self.classify(&ctx, Phase::Connect, &e))?;
        let result = (|| {
            if s.security == Security::Starttls {
                if !conn.can_starttls() {
                    return Err(MailError::Tls {
                        server: server.clone(),
                        detail: "the server does not offer STARTTLS".into(),
                        hint: "if this is an implicit-TLS port (usually 465) set security = \
                               tls; starry does not send a password or a mail unencrypted to \
                               another machine"
                            .into(),
                    });
                }
                let params = tls.as_ref().expect("TLS parameters for STARTTLS");
                conn.starttls(params, &hello)
                    .map_err(|e| self.classify(&ctx, Phase::Starttls, &e))?;
            }
            if s.security != Security::None {
                self.check_certificate(&conn, host, &ctx)?;
            }
            let login = match &credential {
                Some((user, credential)) => self.log_in(&mut conn, &ctx, user, credential)?,
                None => Login {
                    mechanism: None,
                    reply: None,
                },
            };
            match message {
                Some((envelope, bytes)) => {
                    let reply = conn
                        .send(envelope, bytes)
                        .map_err(|e| self.classify(&ctx, Phase::Send, &e))?;
                    Ok((reply_text(&reply), login))
                }
                None => Ok((String::new(), login)),
            }
        })();
        match result {
            Ok((reply, login)) => {
                let _ = conn.quit();
                Ok((self.redact.clean(&reply), login))
            }
            Err(e) => {
                conn.abort();
                Err(e)
            }
        }
    }

    /// Logs in with the password (AUTH PLAIN, else LOGIN) or the token
    /// (OAUTHBEARER or XOAUTH2, as [`Auth::mechanism`] picks).
    fn log_in(
        &mut self,
        conn: &mut SmtpConnection,
        ctx: &Ctx,
        user: &str,
        credential: &Credential,
    ) -> Result<Login, MailError> {
        match credential {
            Credential::Password(p) => {
                let mechanisms = [Mechanism::Plain, Mechanism::Login];
                let used = conn.server_info().get_auth_mechanism(&mechanisms);
                let reply = conn
                    .auth(
                        &mechanisms,
                        &Credentials::new(user.to_string(), p.expose().to_string()),
                    )
                    .map_err(|e| self.classify(ctx, Phase::Auth, &e))?;
                Ok(Login {
                    mechanism: used.map(|m| format!("AUTH {m}")),
                    reply: Some(self.redact.clean(&reply_text(&reply))),
                })
            }
            Credential::Token(token) => self.oauth(conn, ctx, user, token),
        }
    }

    /// AUTH OAUTHBEARER or XOAUTH2 with the token as the initial response.
    /// lettre knows neither OAUTHBEARER nor the refusal that follows a bad
    /// token (a 334 challenge holding a JSON status, to be answered before
    /// the server says 535), so the exchange is written out here.
    fn oauth(
        &mut self,
        conn: &mut SmtpConnection,
        ctx: &Ctx,
        user: &str,
        token: &Secret,
    ) -> Result<Login, MailError> {
        let s = &self.cfg.smtp;
        if !super::oauth::user_fits(user) {
            return Err(MailError::Config(format!(
                "the SMTP user `{}` cannot be sent in an OAuth login (it holds a control \
                 character)",
                text::excerpt(user)
            )));
        }
        // lettre keeps only the mechanisms it knows from EHLO: ask again
        // and read the AUTH line itself.
        let ehlo = conn
            .command(lettre::transport::smtp::commands::Ehlo::new(
                ClientId::default(),
            ))
            .map_err(|e| self.classify(ctx, Phase::Auth, &e))?;
        let offered = ehlo
            .message()
            .filter_map(|l| {
                let upper = l.to_ascii_uppercase();
                upper
                    .strip_prefix("AUTH ")
                    .or_else(|| upper.strip_prefix("AUTH="))
                    .map(str::to_string)
            })
            .collect::<Vec<_>>()
            .join(" ");
        let words: Vec<&str> = offered.split_whitespace().collect();
        let mechanism = s
            .auth()
            .mechanism(
                words.contains(&"OAUTHBEARER"),
                words.contains(&"XOAUTH2"),
                &offered,
            )
            .map_err(|detail| MailError::AuthUnavailable {
                server: ctx.server.clone(),
                detail,
            })?;
        let host = s.host.as_deref().unwrap_or("").trim();
        let first = mechanism.initial_response(user, token.expose(), host, s.effective_port());
        self.redact.add_secret(&first);
        let b64 = base64::engine::general_purpose::STANDARD.encode(&first);
        let refused = |detail: String| {
            MailError::TokenRefused(Box::new(super::oauth::TokenRefusal {
                side: "SMTP",
                user: text::inline(user).into_owned(),
                server: ctx.server.clone(),
                mechanism,
                detail,
                command: s
                    .token_command
                    .as_ref()
                    .map(ToString::to_string)
                    .unwrap_or_default(),
            }))
        };
        let answer = conn.command(format!("AUTH {} {b64}\r\n", mechanism.name()));
        let reply = match answer {
            Ok(r)
                if r.code().severity
                    == lettre::transport::smtp::response::Severity::PositiveCompletion =>
            {
                r
            }
            Ok(challenge) => {
                // The refusal comes as a challenge; answering it ends the
                // exchange with the server's final no.
                let status = challenge
                    .first_line()
                    .and_then(|l| {
                        base64::engine::general_purpose::STANDARD
                            .decode(l.trim())
                            .ok()
                    })
                    .and_then(|json| super::oauth::refusal(&json));
                let end = base64::engine::general_purpose::STANDARD.encode(mechanism.after_error());
                let last = match conn.command(format!("{end}\r\n")) {
                    Ok(r) => reply_text(&r),
                    Err(e) => error_chain(&e),
                };
                let said = self.redact.clean(&last);
                return Err(refused(match status {
                    Some(st) => format!(
                        "{}; the token was refused with {st}",
                        said.trim_end_matches('.')
                    ),
                    None => said,
                }));
            }
            Err(e) if e.is_permanent() => return Err(refused(self.redact.clean(&error_chain(&e)))),
            Err(e) => return Err(self.classify(ctx, Phase::Auth, &e)),
        };
        Ok(Login {
            mechanism: Some(format!("AUTH {}", mechanism.name())),
            reply: Some(self.redact.clean(&reply_text(&reply))),
        })
    }

    /// With a `ca_file`, lettre accepts any certificate (it cannot take a
    /// verifier of starry's) and the one the server presented is checked
    /// here, before anything else is sent: against the usual authorities,
    /// the file's certificates as authorities, or one of them exactly (see
    /// [`super::tls`]).
    fn check_certificate(
        &self,
        conn: &SmtpConnection,
        host: &str,
        ctx: &Ctx,
    ) -> Result<(), MailError> {
        let Some(ca) = &self.cfg.smtp.ca_file else {
            return Ok(());
        };
        let fail = |detail: String| MailError::Tls {
            hint: tls_hint(&detail, ctx),
            server: ctx.server.clone(),
            detail,
        };
        let extra = super::tls::read_pem_certificates(ca)
            .map_err(|why| MailError::Config(format!("the ca_file {} {why}", ca.display())))?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let verifier = super::tls::Verifier::new(extra, provider).map_err(fail)?;
        let chain: Vec<CertificateDer<'static>> = conn
            .certificate_chain()
            .map_err(|e| fail(error_chain(&e)))?
            .into_iter()
            .map(CertificateDer::from)
            .collect();
        let Some((end_entity, intermediates)) = chain.split_first() else {
            return Err(fail("the server presented no certificate".into()));
        };
        let name = ServerName::try_from(host.to_string()).map_err(|e| {
            MailError::Config(format!(
                "`{}` is not a host name TLS can check: {e}",
                text::excerpt(host)
            ))
        })?;
        use rustls::client::danger::ServerCertVerifier as _;
        verifier
            .verify_server_cert(end_entity, intermediates, &name, &[], UnixTime::now())
            .map(|_| ())
            .map_err(|e| fail(e.to_string()))
    }

    fn tls_parameters(&self, host: &str, server: &str) -> Result<TlsParameters, MailError> {
        let mut builder = TlsParameters::builder(host.to_string());
        if let Some(ca) = &self.cfg.smtp.ca_file {
            // Read now, so that a missing or empty file is said before
            // connecting; the certificate itself is checked by
            // `check_certificate`.
            super::tls::read_pem_certificates(ca).map_err(|why| {
                MailError::Config(format!(
                    "the extra root certificate {} (STARRY_SMTP_CA_FILE or ca_file) {why}",
                    ca.display()
                ))
            })?;
            builder = builder
                .dangerous_accept_invalid_certs(true)
                .dangerous_accept_invalid_hostnames(true);
        }
        builder.build_rustls().map_err(|e| MailError::Tls {
            server: server.to_string(),
            detail: self.redact.clean(&e.to_string()),
            hint: "check the certificate file".into(),
        })
    }

    fn classify(&self, ctx: &Ctx, phase: Phase, e: &lettre::transport::smtp::Error) -> MailError {
        let server = ctx.server.clone();
        let detail = self.redact.clean(&error_chain(e));
        let io_kind = io_kind(e);
        use std::io::ErrorKind as K;
        let tls_phase =
            phase == Phase::Starttls || (phase == Phase::Connect && ctx.security == Security::Tls);
        let lower = detail.to_ascii_lowercase();
        if e.is_tls()
            || (tls_phase && io_kind == Some(K::InvalidData))
            || lower.contains("certificate")
            || lower.contains("handshake")
        {
            return MailError::Tls {
                hint: tls_hint(&detail, ctx),
                server,
                detail,
            };
        }
        match io_kind {
            Some(K::ConnectionRefused) => return MailError::ConnectionRefused { server },
            Some(K::TimedOut | K::WouldBlock) => {
                return MailError::Timeout {
                    server,
                    secs: ctx.timeout.as_secs(),
                };
            }
            _ => {}
        }
        let answered = e.is_permanent() || e.is_transient();
        match phase {
            Phase::Connect if answered => MailError::Rejected { server, detail },
            Phase::Connect => MailError::Connect { server, detail },
            Phase::Starttls => MailError::Tls {
                hint: tls_hint(&detail, ctx),
                server,
                detail,
            },
            Phase::Auth if answered => MailError::AuthFailed {
                user: ctx.user.clone(),
                server,
                detail,
            },
            Phase::Auth if e.is_client() => MailError::AuthUnavailable {
                server,
                detail: format!(
                    "it offers neither AUTH PLAIN nor AUTH LOGIN ({detail}); check the security \
                     setting (many servers only offer login after STARTTLS or on the TLS port) \
                     or remove the user if this server needs no login"
                ),
            },
            Phase::Auth => MailError::Dropped { server, detail },
            Phase::Send if answered => MailError::Rejected { server, detail },
            Phase::Send if e.is_client() => MailError::Smtp { server, detail },
            Phase::Send => MailError::Dropped { server, detail },
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Connect,
    Starttls,
    Auth,
    Send,
}

struct Ctx {
    server: String,
    user: String,
    security: Security,
    timeout: Duration,
    ca_file: Option<PathBuf>,
}

fn tls_hint(detail: &str, ctx: &Ctx) -> String {
    if let Some(hint) =
        super::tls::certificate_hint(detail, ctx.ca_file.as_deref(), "STARRY_SMTP_CA_FILE")
    {
        hint
    } else if detail.contains("InvalidContentType")
        || detail.contains("corrupt message")
        || detail.contains("InvalidMessage")
    {
        if ctx.security == Security::Tls {
            "the server did not answer in TLS: security = tls needs an implicit-TLS port \
             (usually 465); for a STARTTLS port (usually 587) set security = starttls"
                .into()
        } else {
            "the server's TLS answer was garbled; check the port and the security setting".into()
        }
    } else {
        "check the security setting (starttls for port 587, tls for port 465) and the port".into()
    }
}

/// `250 2.0.0 Ok: queued as …`: a server's answer on one line.
fn reply_text(r: &lettre::transport::smtp::response::Response) -> String {
    format!("{} {}", r.code(), r.message().collect::<Vec<_>>().join(" "))
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(inner) = src {
        let t = inner.to_string();
        if !s.contains(&t) {
            s.push_str(": ");
            s.push_str(&t);
        }
        src = inner.source();
    }
    s
}

fn io_kind(e: &lettre::transport::smtp::Error) -> Option<std::io::ErrorKind> {
    let mut src = std::error::Error::source(e);
    while let Some(inner) = src {
        if let Some(io) = inner.downcast_ref::<std::io::Error>() {
            return Some(io.kind());
        }
        src = inner.source();
    }
    None
}

/// Runs `password_command` with `sh -c`; its stdout, minus one trailing
/// newline, is the password. Its stdin and stderr stay the terminal's, so a
/// password manager can ask for its own passphrase.
pub(crate) fn run_password_command(cmd: &str) -> Result<Secret, MailError> {
    let out = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .stdin(Stdio::inherit())
        .stderr(Stdio::inherit())
        .stdout(Stdio::piped())
        .output()
        .map_err(|e| MailError::PasswordCommand {
            status: format!("it could not be started: {e}"),
        })?;
    if !out.status.success() {
        return Err(MailError::PasswordCommand {
            status: match out.status.code() {
                Some(c) => format!("it exited with status {c}"),
                None => "it was killed by a signal".into(),
            },
        });
    }
    let mut s = String::from_utf8(out.stdout).map_err(|_| MailError::PasswordCommand {
        status: "it printed something that is not UTF-8 text".into(),
    })?;
    if s.ends_with('\n') {
        s.pop();
        if s.ends_with('\r') {
            s.pop();
        }
    }
    if s.is_empty() {
        return Err(MailError::PasswordCommand {
            status: "it printed nothing".into(),
        });
    }
    Ok(Secret(s))
}

/// Removes secrets (and their base64 forms, as used by AUTH PLAIN/LOGIN) from
/// any text that may end up in an error; folds it into one line, with every
/// control character escaped ([`text::inline`]): a server's or a program's
/// answer is not trusted to be fit for a terminal.
#[derive(Default)]
pub(crate) struct Redactor {
    secrets: Vec<String>,
}

impl Redactor {
    pub(crate) fn add(&mut self, user: &str, password: &str) {
        if password.is_empty() {
            return;
        }
        let b64 = base64::engine::general_purpose::STANDARD;
        let mut forms = vec![
            password.to_string(),
            b64.encode(password),
            b64.encode(format!("\0{user}\0{password}")),
        ];
        forms.retain(|f| f.len() >= 3);
        for f in forms {
            if !self.secrets.contains(&f) {
                self.secrets.push(f);
            }
        }
        // Longest first, so a form containing another is replaced whole.
        self.secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    }

    /// A secret of its own (a token, or a SASL message holding one, as
    /// sent), kept out of every text as it is and in base64.
    pub(crate) fn add_secret(&mut self, secret: &str) {
        if secret.len() < 3 {
            return;
        }
        let b64 = base64::engine::general_purpose::STANDARD.encode(secret);
        for f in [secret.to_string(), b64] {
            if !self.secrets.contains(&f) {
                self.secrets.push(f);
            }
        }
        self.secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    }

    pub(crate) fn clean(&self, text: &str) -> String {
        let mut s = one_line(text);
        for secret in &self.secrets {
            s = s.replace(secret.as_str(), "<redacted>");
        }
        text::inline(&s).into_owned()
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The effective settings as `key → value`, for a `--show`-style listing:
/// where the password comes from is shown, the password never.
pub fn describe(cfg: &MailConfig) -> BTreeMap<&'static str, String> {
    let mut m = BTreeMap::new();
    let t = match cfg.transport {
        TransportKind::Outbox => "outbox",
        TransportKind::Smtp => "smtp",
        TransportKind::Sendmail => "sendmail",
    };
    m.insert("transport", t.to_string());
    if let Some(f) = &cfg.from {
        m.insert("from", f.clone());
    }
    if cfg.transport == TransportKind::Smtp {
        m.insert("smtp.server", cfg.smtp.server());
        m.insert(
            "smtp.security",
            format!("{:?}", cfg.smtp.security).to_ascii_lowercase(),
        );
        if let Some(u) = &cfg.smtp.user {
            m.insert("smtp.user", u.clone());
        }
        let auth = cfg.smtp.auth();
        let pw = if auth.is_oauth() {
            "none (OAuth: a token from token_command)"
        } else if cfg.smtp.password.is_some() {
            "from STARRY_SMTP_PASSWORD or mail.toml"
        } else if cfg.smtp.password_command.is_some() {
            "from password_command"
        } else {
            "none"
        };
        m.insert("smtp.auth", auth.as_str().to_string());
        m.insert("smtp.password", pw.to_string());
        if let Some(ca) = &cfg.smtp.ca_file {
            m.insert("smtp.ca_file", ca.display().to_string());
        }
        m.insert("smtp.timeout_secs", cfg.smtp.timeout.as_secs().to_string());
    }
    if cfg.transport == TransportKind::Sendmail {
        m.insert(
            "sendmail.command",
            cfg.sendmail.clone().unwrap_or_else(|| "sendmail".into()),
        );
    }
    m
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_value_in_the_wrong_field_is_not_echoed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mail.toml");
        let text = "[smtp]\nhost = \"mail.example.org\"\ntimeout_secs = \"Hunter2-Secret\"\n";
        let err = parse_file(&path, text, None)
            .err()
            .expect("refused")
            .to_string();
        assert!(!err.contains("Hunter2"), "{err}");
        assert!(
            err.contains("timeout_secs") || err.contains("u64") || err.contains("integer"),
            "{err}"
        );
        let err = parse_file(&path, "user = \"Hunter2-Secret\n", None)
            .err()
            .expect("refused")
            .to_string();
        assert!(!err.contains("Hunter2"), "{err}");
    }
    use super::*;
    use std::collections::HashMap;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k: &str| map.get(k).cloned()
    }

    fn home_with(toml: Option<&str>) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        if let Some(t) = toml {
            fs::write(d.path().join(CONFIG_FILE), t).unwrap();
        }
        d
    }

    #[test]
    fn default_is_outbox() {
        let home = home_with(None);
        let cfg = load_with_env(home.path(), &env_of(&[])).unwrap();
        assert_eq!(cfg.transport, TransportKind::Outbox);
        assert_eq!(cfg, MailConfig::default());
    }

    #[test]
    fn a_player_url_is_checked_where_it_is_given() {
        let home = home_with(Some("player_url = \"https://example.org/starry/\"\n"));
        let cfg = load_with_env(home.path(), &env_of(&[])).unwrap();
        assert_eq!(
            cfg.player_url.as_deref(),
            Some("https://example.org/starry/")
        );
        // The variable wins; an empty one leaves the file's.
        let cfg = load_with_env(
            home.path(),
            &env_of(&[("STARRY_PLAYER_URL", " http://localhost:8000/ ")]),
        )
        .unwrap();
        assert_eq!(cfg.player_url.as_deref(), Some("http://localhost:8000/"));
        let cfg = load_with_env(home.path(), &env_of(&[("STARRY_PLAYER_URL", " ")])).unwrap();
        assert_eq!(
            cfg.player_url.as_deref(),
            Some("https://example.org/starry/")
        );

        let err = load_with_env(
            home.path(),
            &env_of(&[("STARRY_PLAYER_URL", "http://example.org/")]),
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.starts_with("mail settings: STARRY_PLAYER_URL is `http://example.org/`"),
            "{err}"
        );
        assert!(err.contains("https://"), "{err}");
        let home = home_with(Some("player_url = \"https://example.org/#x\"\n"));
        let err = load_with_env(home.path(), &env_of(&[]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("`player_url` in "), "{err}");
        assert!(
            err.contains("mail.toml is `https://example.org/#x`"),
            "{err}"
        );
        assert!(err.contains("`#` part"), "{err}");
        let home = home_with(Some("player_url = \"\"\n"));
        let cfg = load_with_env(home.path(), &env_of(&[])).unwrap();
        assert_eq!(cfg.player_url, None);
    }

    #[test]
    fn file_then_env() {
        let home = home_with(Some(
            r#"
            from = "Alice <alice@example.org>"
            [smtp]
            host = "mail.example.org"
            user = "alice"
            password_command = "echo x"
            ca_file = "ca.pem"
            timeout_secs = 5
            "#,
        ));
        let cfg = load_with_env(home.path(), &env_of(&[])).unwrap();
        assert_eq!(cfg.transport, TransportKind::Smtp, "a host implies smtp");
        assert_eq!(cfg.smtp.server(), "mail.example.org:587");
        assert_eq!(cfg.smtp.ca_file, Some(home.path().join("ca.pem")));
        assert_eq!(cfg.smtp.timeout, Duration::from_secs(5));
        assert_eq!(cfg.from.as_deref(), Some("Alice <alice@example.org>"));

        let cfg = load_with_env(
            home.path(),
            &env_of(&[
                ("STARRY_SMTP_HOST", "smtp.other.net"),
                ("STARRY_SMTP_SECURITY", "tls"),
                ("STARRY_SMTP_USER", "bob"),
                ("STARRY_SMTP_PASSWORD", "pw-from-env"),
                ("STARRY_SMTP_TIMEOUT", "7"),
                ("STARRY_SMTP_PORT", ""),
            ]),
        )
        .unwrap();
        assert_eq!(cfg.smtp.server(), "smtp.other.net:465");
        assert_eq!(cfg.smtp.user.as_deref(), Some("bob"));
        assert_eq!(cfg.smtp.password, Some(Secret::new("pw-from-env")));
        assert!(!format!("{cfg:?}").contains("pw-from-env"));
        assert!(!format!("{:?}", describe(&cfg)).contains("pw-from-env"));

        let cfg = load_with_env(
            home.path(),
            &env_of(&[
                ("STARRY_MAIL_TRANSPORT", "sendmail"),
                ("STARRY_SENDMAIL", "/opt/bin/sendmail"),
            ]),
        )
        .unwrap();
        assert_eq!(cfg.transport, TransportKind::Sendmail);
        assert_eq!(cfg.sendmail.as_deref(), Some("/opt/bin/sendmail"));
    }

    #[test]
    fn password_in_file_only_in_its_place_and_only_private() {
        use std::os::unix::fs::PermissionsExt as _;
        // Anywhere but [smtp] / [imap] `password`: refused, never echoed.
        for text in [
            "password = \"hunter2-distinct\"\n",
            "[smtp]\nhost = \"h\"\npasswd = \"hunter2-distinct\"\n",
        ] {
            let home = home_with(Some(text));
            let err = load_with_env(home.path(), &env_of(&[])).unwrap_err();
            assert!(
                matches!(err, MailError::PasswordInConfigFile { .. }),
                "{err:?}"
            );
            let msg = err.to_string();
            assert!(msg.contains("password_command"), "{msg}");
            assert!(!msg.contains("hunter2-distinct"), "{msg}");
        }
        let text = "[smtp]\nhost = \"h\"\nuser = \"ann@example.org\"\npassword = \"hunter2-distinct\"\n\
                    [imap]\nhost = \"i\"\n";
        let home = home_with(Some(text));
        let file = home.path().join(CONFIG_FILE);
        // Readable by others: refused, saying how to fix it.
        fs::set_permissions(&file, fs::Permissions::from_mode(0o644)).unwrap();
        let err = load_with_env(home.path(), &env_of(&[])).unwrap_err();
        assert!(
            matches!(err, MailError::PasswordFileReadable { mode: 0o644, .. }),
            "{err:?}"
        );
        assert!(err.to_string().contains("chmod 600"), "{err}");
        assert!(!err.to_string().contains("hunter2-distinct"), "{err}");
        // Private: taken, and the IMAP side of the account shares it.
        fs::set_permissions(&file, fs::Permissions::from_mode(0o600)).unwrap();
        let cfg = load_with_env(home.path(), &env_of(&[])).unwrap();
        assert_eq!(cfg.smtp.password, Some(Secret::new("hunter2-distinct")));
        assert_eq!(cfg.imap.password, Some(Secret::new("hunter2-distinct")));
        assert_eq!(cfg.imap.user.as_deref(), Some("ann@example.org"));
        assert_eq!(cfg.imap.host.as_deref(), Some("i"));
        // Another IMAP user brings its own secret: none is borrowed.
        let cfg = load_with_env(
            home.path(),
            &env_of(&[("STARRY_IMAP_USER", "other@example.org")]),
        )
        .unwrap();
        assert_eq!(cfg.imap.password, None);
        assert!(format!("{cfg:?}").contains("redacted"));
        assert!(!format!("{cfg:?}").contains("hunter2-distinct"));
    }

    #[test]
    fn oauth_settings_are_one_account_for_both_directions() {
        let home = home_with(Some(
            "[smtp]\nhost = \"smtp.example.org\"\nuser = \"ann@example.org\"\n\
             token_command = [\"oama\", \"access\", \"ann@example.org\"]\n\
             [imap]\nhost = \"imap.example.org\"\n",
        ));
        let cfg = load_with_env(home.path(), &env_of(&[])).unwrap();
        assert_eq!(cfg.smtp.auth(), Auth::OAuth, "a token command means OAuth");
        assert_eq!(cfg.imap.auth(), Auth::OAuth);
        assert_eq!(cfg.imap.token_command, cfg.smtp.token_command);
        let cfg = load_with_env(home.path(), &env_of(&[("STARRY_SMTP_AUTH", "XOAUTH2")])).unwrap();
        assert_eq!(cfg.imap.auth(), Auth::Xoauth2, "auth comes along");
        // Another IMAP user brings its own secret.
        let cfg = load_with_env(
            home.path(),
            &env_of(&[("STARRY_IMAP_USER", "ben@example.org")]),
        )
        .unwrap();
        assert_eq!(
            (cfg.imap.token_command.clone(), cfg.imap.auth()),
            (None, Auth::Password)
        );
        // OAuth without a command, an unknown mechanism, an empty command.
        for (k, v, says) in [
            (
                "STARRY_IMAP_AUTH",
                "oauthbearer",
                "STARRY_IMAP_TOKEN_COMMAND",
            ),
            ("STARRY_SMTP_AUTH", "kerberos", "STARRY_SMTP_AUTH"),
        ] {
            let home = home_with(Some("[smtp]\nhost = \"h\"\nuser = \"u\"\n"));
            let err = load_with_env(home.path(), &env_of(&[(k, v)])).unwrap_err();
            assert!(err.to_string().contains(says), "{err}");
        }
        let home = home_with(Some("[smtp]\nhost = \"h\"\ntoken_command = []\n"));
        let err = load_with_env(home.path(), &env_of(&[])).unwrap_err();
        assert!(err.to_string().contains("token_command is empty"), "{err}");
    }

    #[test]
    fn imap_settings_from_file_and_environment() {
        let home = home_with(Some(
            "[imap]\nhost = \"imap.example.org\"\nsecurity = \"starttls\"\nfolder = \"games\"\n",
        ));
        let cfg = load_with_env(home.path(), &env_of(&[("STARRY_IMAP_PORT", "1143")])).unwrap();
        assert_eq!(cfg.imap.server(), "imap.example.org:1143");
        assert_eq!(cfg.imap.security, ImapSecurity::Starttls);
        assert_eq!(cfg.imap.folder, "games");
        assert_eq!(cfg.imap.inbox, "INBOX");
        for (k, v) in [
            ("STARRY_IMAP_PORT", "imap"),
            ("STARRY_IMAP_SECURITY", "maybe"),
            ("STARRY_IMAP_TIMEOUT", "soon"),
        ] {
            let err = load_with_env(home.path(), &env_of(&[(k, v)])).unwrap_err();
            assert!(err.to_string().contains(k), "{err}");
        }
    }

    #[test]
    fn bad_values() {
        let home = home_with(Some("[smtp]\nhots = \"x\"\n"));
        let err = load_with_env(home.path(), &env_of(&[])).unwrap_err();
        assert!(err.to_string().contains("hots"), "{err}");

        let home = home_with(Some("transport = \"pigeon\"\n"));
        assert!(load_with_env(home.path(), &env_of(&[])).is_err());

        let home = home_with(Some("this is not toml"));
        let err = load_with_env(home.path(), &env_of(&[])).unwrap_err();
        assert!(err.to_string().contains("not valid TOML"), "{err}");

        let home = home_with(None);
        for (k, v) in [
            ("STARRY_SMTP_PORT", "smtp"),
            ("STARRY_SMTP_SECURITY", "maybe"),
            ("STARRY_MAIL_TRANSPORT", "carrier-pigeon"),
        ] {
            let err = load_with_env(home.path(), &env_of(&[(k, v)])).unwrap_err();
            assert!(err.to_string().contains(k), "{err}");
        }
        let err =
            load_with_env(home.path(), &env_of(&[("STARRY_MAIL_TRANSPORT", "smtp")])).unwrap_err();
        assert!(err.to_string().contains("STARRY_SMTP_HOST"), "{err}");
    }

    #[test]
    fn plaintext_only_to_localhost() {
        let home = home_with(None);
        let err = load_with_env(
            home.path(),
            &env_of(&[
                ("STARRY_SMTP_HOST", "mail.example.org"),
                ("STARRY_SMTP_SECURITY", "none"),
            ]),
        )
        .unwrap_err();
        assert!(err.to_string().contains("localhost"), "{err}");
        for host in ["localhost", "127.0.0.1", "::1", "[::1]"] {
            let cfg = load_with_env(
                home.path(),
                &env_of(&[("STARRY_SMTP_HOST", host), ("STARRY_SMTP_SECURITY", "none")]),
            )
            .unwrap();
            assert_eq!(cfg.smtp.effective_port(), 25);
        }
    }

    #[test]
    fn password_command() {
        assert_eq!(
            run_password_command("printf 'abc\\n'").unwrap().expose(),
            "abc"
        );
        assert_eq!(
            run_password_command("printf 'a b \\n\\n'")
                .unwrap()
                .expose(),
            "a b \n",
            "only one newline is trimmed"
        );
        let err = run_password_command("echo Leaky-Output-42; exit 3").unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("status 3"), "{msg}");
        assert!(!msg.contains("Leaky-Output-42"), "{msg}");
        assert!(run_password_command("true").is_err());
    }

    #[test]
    fn redactor() {
        let mut r = Redactor::default();
        r.add("alice", "S3cret!pw");
        let b64 = base64::engine::general_purpose::STANDARD;
        let plain = b64.encode("\0alice\0S3cret!pw");
        let text = format!("535 bad S3cret!pw\n {plain} {}", b64.encode("S3cret!pw"));
        let out = r.clean(&text);
        assert!(!out.contains("S3cret!pw"));
        assert!(!out.contains(&plain));
        assert!(!out.contains('\n'));
        // A server's answer is not fit for a terminal as it is.
        let out = r.clean("550 no\u{1b}[2J S3cret!pw \u{9b}31m\u{202e}x");
        assert!(!out.chars().any(starry_core::text::is_unsafe), "{out:?}");
        assert!(
            out.contains("<redacted>") && out.contains("\\u{1b}[2J"),
            "{out}"
        );
    }

    #[test]
    fn bad_settings_are_quoted_as_excerpts() {
        let long = format!("\u{1b}[2J{}", "9".repeat(100_000));
        let home = tempfile::tempdir().unwrap();
        for var in [
            "STARRY_SMTP_PORT",
            "STARRY_SMTP_TIMEOUT",
            "STARRY_MAIL_TRANSPORT",
        ] {
            let err = load_with_env(home.path(), &env_of(&[(var, &long)]))
                .unwrap_err()
                .to_string();
            assert!(err.len() < 400 && !err.contains('\u{1b}'), "{var}: {err}");
        }
    }

    #[test]
    fn outbox_and_retry_without_anything_pending() {
        let home = tempfile::tempdir().unwrap();
        let cfg = MailConfig::default();
        let report = retry(&cfg, home.path()).unwrap();
        assert!(report.all_sent() && report.sent.is_empty());
        let msg = crate::compose::compose(&crate::compose::TurnMail {
            from_name: "A".into(),
            from_email: "a@example.org".into(),
            to_name: "B".into(),
            to_email: "b@example.org".into(),
            subject: "s".into(),
            body_text: "t".into(),
            log_file_name: "g.jsonl".into(),
            log: b"{}\n".to_vec(),
            ..Default::default()
        })
        .unwrap();
        let sent = send(&cfg, home.path(), &msg).unwrap();
        let Sent::Outbox { path } = &sent else {
            panic!("{sent:?}")
        };
        assert!(path.starts_with(home.path().join(OUTBOX_DIR)));
        assert_eq!(fs::read(path).unwrap(), msg.formatted());
        assert!(sent.to_string().contains("outbox"));
    }

    #[test]
    fn envelope_fallback_from_headers() {
        let eml =
            b"From: A <a@example.org>\r\nTo: b@example.org\r\nCc: C <c@example.org>\r\n\r\nx\r\n";
        let (from, to) = envelope_from_headers(eml).unwrap();
        assert_eq!(from.as_deref(), Some("a@example.org"));
        assert_eq!(to, vec!["b@example.org", "c@example.org"]);
    }
}
