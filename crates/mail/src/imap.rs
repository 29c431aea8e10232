//! Reading mail from an IMAP server, for `starry sync` and `starry robot
//! --imap`: the connection (implicit TLS or STARTTLS with rustls, or plain to
//! this machine only), login (AUTHENTICATE PLAIN, else LOGIN; or OAuth 2.0
//! with OAUTHBEARER or XOAUTH2, see [`super::oauth`]), the few commands
//! sync needs, and LOGOUT at the end. The IMAP protocol itself is the `imap` crate's; this
//! module only chooses the commands and turns every failure into one
//! paragraph that names the server and says what to do, without the
//! password.
//!
//! Settings live in the `[imap]` section of `mail.toml` (see
//! [`super::transport`]); the account's user, password, password command,
//! token command and extra root certificate default to the `[smtp]` ones, since most providers
//! use one account for both directions.

use std::cell::{Cell, RefCell};
use std::fmt;
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use imap::extensions::idle::{SetReadTimeout, WaitOutcome};
use rustls::pki_types::ServerName;
use serde::Deserialize;

use super::oauth::{Auth, Mechanism, TokenCommand, TokenRefusal};
use super::transport::{Redactor, Secret, effective_auth, is_local_host, run_password_command};
use starry_core::text;

/// Default IMAP timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// The folder starry files the mails it took into, unless set otherwise.
pub const DEFAULT_FOLDER: &str = "starry";

/// How the IMAP connection is protected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ImapSecurity {
    /// TLS from the first byte, usually port 993.
    #[default]
    Tls,
    /// A plain connection upgraded with STARTTLS (required), usually port 143.
    Starttls,
    /// No encryption: only allowed for a server on this machine.
    None,
}

impl ImapSecurity {
    pub fn parse(s: &str) -> Option<ImapSecurity> {
        match s.trim().to_ascii_lowercase().as_str() {
            "tls" | "ssl" | "imaps" => Some(ImapSecurity::Tls),
            "starttls" => Some(ImapSecurity::Starttls),
            "none" | "plain" => Some(ImapSecurity::None),
            _ => None,
        }
    }

    /// The usual port for this kind of connection.
    pub fn default_port(self) -> u16 {
        match self {
            ImapSecurity::Tls => 993,
            ImapSecurity::Starttls | ImapSecurity::None => 143,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ImapSecurity::Tls => "tls",
            ImapSecurity::Starttls => "starttls",
            ImapSecurity::None => "none",
        }
    }
}

/// IMAP settings, after the `[smtp]` defaults were applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImapSettings {
    pub host: Option<String>,
    /// `None` = the usual one for `security`.
    pub port: Option<u16>,
    pub security: ImapSecurity,
    pub user: Option<String>,
    pub password: Option<Secret>,
    pub password_command: Option<String>,
    /// A command printing an OAuth 2.0 access token.
    pub token_command: Option<TokenCommand>,
    /// How to log in; `None` = OAuth when a token command is set, else a
    /// password.
    pub auth: Option<Auth>,
    /// Extra trusted certificates (PEM): authorities, or the server's own
    /// (pinned).
    pub ca_file: Option<PathBuf>,
    pub timeout: Duration,
    /// The folder new mail arrives in.
    pub inbox: String,
    /// The folder mails are filed into once their entries are on disk.
    pub folder: String,
}

impl Default for ImapSettings {
    fn default() -> Self {
        ImapSettings {
            host: None,
            port: None,
            security: ImapSecurity::default(),
            user: None,
            password: None,
            password_command: None,
            token_command: None,
            auth: None,
            ca_file: None,
            timeout: DEFAULT_TIMEOUT,
            inbox: "INBOX".into(),
            folder: DEFAULT_FOLDER.into(),
        }
    }
}

impl ImapSettings {
    /// How the account logs in.
    pub fn auth(&self) -> Auth {
        effective_auth(self.auth, self.token_command.is_some())
    }

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

    /// What sync needs before it connects: a host, a user, and no plain
    /// text to another machine.
    pub fn validate(&self) -> Result<(), ImapError> {
        let Some(host) = self.host.as_deref().filter(|h| !h.trim().is_empty()) else {
            return Err(ImapError::Config(
                "no IMAP server is set: run `starry mail setup`, or set `host` in the [imap] \
                 section of mail.toml (or STARRY_IMAP_HOST); `starry sync --maildir DIR` reads \
                 a local maildir instead"
                    .into(),
            ));
        };
        if self.user.as_deref().is_none_or(|u| u.trim().is_empty()) {
            return Err(ImapError::Config(
                "no IMAP user is set: set `user` in the [imap] (or [smtp]) section of mail.toml, \
                 or STARRY_IMAP_USER"
                    .into(),
            ));
        }
        if self.security == ImapSecurity::None && !is_local_host(host) {
            return Err(ImapError::Config(format!(
                "IMAP security = none is only allowed for a server on this machine (localhost), \
                 not {}: a remote server must be reached with tls or starttls so that the \
                 password and the mail are encrypted",
                text::inline(host)
            )));
        }
        if self.folder.trim().is_empty() || self.inbox.trim().is_empty() {
            return Err(ImapError::Config(
                "the IMAP folder names (`inbox`, `folder`) cannot be empty".into(),
            ));
        }
        for name in [&self.folder, &self.inbox] {
            if name
                .chars()
                .any(|c| c.is_control() || c == '"' || c == '\\')
            {
                return Err(ImapError::Config(format!(
                    "the IMAP folder name `{}` holds a quote, a backslash or a control character",
                    text::excerpt(name)
                )));
            }
        }
        Ok(())
    }
}

/// Every way talking to the IMAP server can fail. Each message names the
/// server and says what to do; none holds the password.
#[derive(Debug, thiserror::Error)]
pub enum ImapError {
    #[error("IMAP settings: {0}")]
    Config(String),
    #[error(
        "the IMAP password_command failed ({0}); its output is not shown, to keep the password \
         private: run the command yourself to see what is wrong, or set STARRY_IMAP_PASSWORD"
    )]
    PasswordCommand(String),
    #[error(
        "connection refused by {server}: no IMAP server is listening there; check the host and \
         port (993 is usually implicit TLS, 143 STARTTLS) and that the server is up"
    )]
    ConnectionRefused { server: String },
    #[error(
        "{server} did not answer within {secs} seconds; check the host and port, and the \
         security setting (an implicit-TLS port such as 993 needs `tls`, a STARTTLS port such \
         as 143 needs `starttls`)"
    )]
    Timeout { server: String, secs: u64 },
    #[error(
        "could not connect to {server}: {detail}; check the host name, the port and the network"
    )]
    Connect { server: String, detail: String },
    #[error("TLS with the IMAP server {server} failed: {detail}; {hint}")]
    Tls {
        server: String,
        detail: String,
        hint: String,
    },
    #[error(
        "the IMAP token_command `{command}` gave no OAuth access token: {detail}. Run it \
         yourself: it must print a fresh access token and nothing else (docs/mail.md says how \
         to set one up for each provider)"
    )]
    TokenCommand { command: String, detail: String },
    #[error("{0}")]
    TokenRefused(Box<super::oauth::TokenRefusal>),
    #[error(
        "the IMAP server {server} refused the login of {user} (it said: {detail}); check the \
         password (STARRY_IMAP_PASSWORD, `password` or `password_command` in mail.toml; many \
         providers want an app password) and the user name"
    )]
    AuthFailed {
        user: String,
        server: String,
        detail: String,
    },
    #[error("cannot log in at the IMAP server {server}: {detail}")]
    AuthUnavailable { server: String, detail: String },
    #[error(
        "the connection to the IMAP server {server} was lost ({detail}); nothing is lost: run \
         `starry sync` again to finish"
    )]
    Dropped { server: String, detail: String },
    #[error("the IMAP server {server} refused {what}: {detail}")]
    Refused {
        server: String,
        what: String,
        detail: String,
    },
}

impl ImapError {
    /// Whether trying again later may help (the network, the server), as
    /// opposed to settings that are wrong until someone changes them.
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            ImapError::ConnectionRefused { .. }
                | ImapError::Timeout { .. }
                | ImapError::Connect { .. }
                | ImapError::Dropped { .. }
                | ImapError::Refused { .. }
        )
    }
}

/// The connection under the IMAP session: TCP, or TLS over TCP.
pub enum Stream {
    Plain(TcpStream),
    Tls(Box<rustls::StreamOwned<rustls::ClientConnection, TcpStream>>),
}

impl Stream {
    fn tcp(&self) -> &TcpStream {
        match self {
            Stream::Plain(t) => t,
            Stream::Tls(t) => t.get_ref(),
        }
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Stream::Plain(t) => t.read(buf),
            Stream::Tls(t) => t.read(buf),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Stream::Plain(t) => t.write(buf),
            Stream::Tls(t) => t.write(buf),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Stream::Plain(t) => t.flush(),
            Stream::Tls(t) => t.flush(),
        }
    }
}

impl SetReadTimeout for Stream {
    fn set_read_timeout(&mut self, timeout: Option<Duration>) -> imap::Result<()> {
        self.tcp()
            .set_read_timeout(timeout)
            .map_err(imap::Error::Io)
    }
}

/// What SELECT says of a folder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Selected {
    /// UIDs are only comparable while this stays the same (RFC 3501 2.3.1.1).
    pub uid_validity: u32,
    pub exists: u32,
}

/// A logged-in IMAP session. It logs out (LOGOUT) when dropped, unless the
/// connection already failed.
pub struct Imap {
    session: imap::Session<Stream>,
    server: String,
    timeout: Duration,
    redact: Redactor,
    can_move: bool,
    /// The session's socket (a second handle), to set its read timeout
    /// again after IDLE.
    socket: TcpStream,
    /// How it logged in: `AUTHENTICATE PLAIN`, `AUTHENTICATE OAUTHBEARER`…
    login: String,
    /// The connection failed (no answer, dropped): a LOGOUT would only
    /// wait for nothing.
    broken: Cell<bool>,
    logged_out: bool,
}

impl fmt::Debug for Imap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Imap({})", self.server)
    }
}

/// What the account logs in with.
enum Credential {
    Password(Secret),
    /// An OAuth 2.0 access token.
    Token(Secret),
}

/// The password, or the token its command prints; every form of it is
/// added to `redact`.
fn credential(
    s: &ImapSettings,
    user: &str,
    redact: &mut Redactor,
) -> Result<Credential, ImapError> {
    if s.auth().is_oauth() {
        let Some(cmd) = &s.token_command else {
            return Err(ImapError::Config(format!(
                "auth = {} needs a command that prints the OAuth access token: set \
                 `token_command` in the [imap] section of mail.toml (or STARRY_IMAP_TOKEN_COMMAND)",
                s.auth().as_str()
            )));
        };
        let token = cmd.run().map_err(|detail| ImapError::TokenCommand {
            command: cmd.to_string(),
            detail,
        })?;
        redact.add_secret(token.expose());
        return Ok(Credential::Token(token));
    }
    let password = match (&s.password, &s.password_command) {
        (Some(p), _) => p.clone(),
        (None, Some(cmd)) => run_password_command(cmd).map_err(|e| match e {
            super::MailError::PasswordCommand { status } => ImapError::PasswordCommand(status),
            e => ImapError::PasswordCommand(e.to_string()),
        })?,
        (None, None) => {
            return Err(ImapError::Config(format!(
                "an IMAP user ({}) is set but no password: set STARRY_IMAP_PASSWORD, or \
                 `password` or `password_command` in the [imap] section of mail.toml, or \
                 `token_command` for an OAuth login",
                text::inline(user)
            )));
        }
    };
    redact.add(user, password.expose());
    Ok(Credential::Password(password))
}

impl Imap {
    /// Connects and logs in. The password is asked for (or its command
    /// run, or the token command) before connecting, so a failing command
    /// leaves no session open.
    pub fn connect(s: &ImapSettings) -> Result<Imap, ImapError> {
        s.validate()?;
        let user = s.user.clone().unwrap_or_default();
        let mut redact = Redactor::default();
        let credential = credential(s, &user, &mut redact)?;
        let server = s.server();
        let host = s.host.clone().unwrap_or_default();
        let host = host.trim().trim_start_matches('[').trim_end_matches(']');
        let port = s.effective_port();
        let fail = |e: std::io::Error, redact: &Redactor| io_error(&server, s.timeout, e, redact);

        let addrs: Vec<_> = (host, port)
            .to_socket_addrs()
            .map_err(|e| ImapError::Connect {
                server: server.clone(),
                detail: redact.clean(&e.to_string()),
            })?
            .collect();
        let mut last = None;
        let mut tcp = None;
        for addr in addrs {
            match TcpStream::connect_timeout(&addr, s.timeout) {
                Ok(t) => {
                    tcp = Some(t);
                    break;
                }
                Err(e) => last = Some(e),
            }
        }
        let tcp = match (tcp, last) {
            (Some(t), _) => t,
            (None, Some(e)) => return Err(fail(e, &redact)),
            (None, None) => {
                return Err(ImapError::Connect {
                    server,
                    detail: "the host name has no address".into(),
                });
            }
        };
        tcp.set_read_timeout(Some(s.timeout))
            .and_then(|()| tcp.set_write_timeout(Some(s.timeout)))
            .map_err(|e| fail(e, &redact))?;
        let socket = tcp.try_clone().map_err(|e| fail(e, &redact))?;

        let client = match s.security {
            ImapSecurity::None => {
                let mut c = imap::Client::new(Stream::Plain(tcp));
                c.read_greeting()
                    .map_err(|e| imap_error(&server, s.timeout, e, &redact))?;
                c
            }
            ImapSecurity::Tls => {
                let tls = handshake(s, host, &server, tcp, &redact)?;
                let mut c = imap::Client::new(tls);
                c.read_greeting()
                    .map_err(|e| imap_error(&server, s.timeout, e, &redact))?;
                c
            }
            ImapSecurity::Starttls => {
                let tcp = starttls(tcp, &server, s.timeout, &redact)?;
                // After STARTTLS the server sends no second greeting.
                imap::Client::new(handshake(s, host, &server, tcp, &redact)?)
            }
        };
        let account = Account {
            s,
            server: &server,
            user: &user,
        };
        let (mut session, login) = account.log_in(client, &credential, &mut redact)?;
        let caps = session
            .capabilities()
            .map_err(|e| imap_error(&server, s.timeout, e, &redact))?;
        let can_move = caps.has_str("MOVE");
        Ok(Imap {
            session,
            server,
            timeout: s.timeout,
            redact,
            can_move,
            socket,
            login,
            broken: Cell::new(false),
            logged_out: false,
        })
    }

    /// How it logged in: `AUTHENTICATE PLAIN`, `LOGIN`,
    /// `AUTHENTICATE OAUTHBEARER`, `AUTHENTICATE XOAUTH2`.
    pub fn login_method(&self) -> &str {
        &self.login
    }

    /// `host:port`.
    pub fn server(&self) -> &str {
        &self.server
    }

    fn err(&self, what: &str, e: imap::Error) -> ImapError {
        match e {
            imap::Error::No(imap::error::No { information, .. })
            | imap::Error::Bad(imap::error::Bad { information, .. }) => ImapError::Refused {
                server: self.server.clone(),
                what: what.to_string(),
                detail: self.redact.clean(&information),
            },
            e => {
                self.broken.set(true);
                imap_error(&self.server, self.timeout, e, &self.redact)
            }
        }
    }

    /// SELECTs `folder` (read-write: sync flags and moves).
    pub fn select(&mut self, folder: &str) -> Result<Selected, ImapError> {
        let m = self
            .session
            .select(folder)
            .map_err(|e| self.err(&format!("to open the folder {}", text::inline(folder)), e))?;
        Ok(Selected {
            uid_validity: m.uid_validity.unwrap_or(0),
            exists: m.exists,
        })
    }

    /// Creates `folder` unless it exists.
    pub fn ensure_folder(&mut self, folder: &str) -> Result<(), ImapError> {
        let names = self
            .session
            .list(None, Some(&quoted(folder)))
            .map_err(|e| self.err("to list folders", e))?;
        if names.iter().any(|n| n.name() == folder) {
            return Ok(());
        }
        self.session
            .create(folder)
            .map_err(|e| self.err(&format!("to create the folder {}", text::inline(folder)), e))
    }

    /// The UIDs above `after` of the mails that may carry a starry log,
    /// in ascending order (the order they arrived in). The server searches:
    /// an inbox of ten thousand other mails is never downloaded.
    ///
    /// Every starry mail carries its own header and, in its text, the
    /// marker word ([`crate::compose`]); servers search the text of every
    /// part, also inside a forwarded message, but not the headers of the
    /// parts, so a starry mail forwarded as an attachment or inline is
    /// found by the marker. The subject, an armored block and the log's
    /// content type find mails of older versions.
    pub fn search_starry(&mut self, after: u32) -> Result<Vec<u32>, ImapError> {
        let query = format!(
            "UID {}:* UNDELETED OR OR OR OR HEADER {} \"\" BODY \"{}\" SUBJECT \"[starry]\" \
             BODY \"BEGIN STARRY LOG\" BODY \"x-ndjson\"",
            after.saturating_add(1),
            crate::compose::HEADER,
            crate::compose::MARKER,
        );
        self.search(&query, after)
    }

    /// Whether starry wrote mail `uid` as it stands (its header, or an
    /// older version's User-Agent), asked of the server without reading the
    /// mail: a mail too large to read is only worth a flag when it is.
    pub fn starry_made(&mut self, uid: u32) -> Result<bool, ImapError> {
        let query = format!(
            "UID {uid} OR HEADER {} \"\" HEADER User-Agent \"starry/\"",
            crate::compose::HEADER,
        );
        Ok(self.search(&query, 0)?.contains(&uid))
    }

    fn search(&mut self, query: &str, after: u32) -> Result<Vec<u32>, ImapError> {
        let found = self
            .session
            .uid_search(query)
            .map_err(|e| self.err("the search for starry mails", e))?;
        // `n:*` includes the last mail even when its UID is below n.
        let mut uids: Vec<u32> = found.into_iter().filter(|&u| u > after).collect();
        uids.sort_unstable();
        Ok(uids)
    }

    /// The size in bytes of each mail, by UID.
    pub fn sizes(&mut self, uids: &[u32]) -> Result<Vec<(u32, u32)>, ImapError> {
        if uids.is_empty() {
            return Ok(Vec::new());
        }
        let set = uid_set(uids);
        let fetches = self
            .session
            .uid_fetch(&set, "(UID RFC822.SIZE)")
            .map_err(|e| self.err("to give the sizes of the mails", e))?;
        let mut out: Vec<(u32, u32)> = fetches
            .iter()
            .filter_map(|f| Some((f.uid?, f.size?)))
            .collect();
        out.sort_unstable();
        Ok(out)
    }

    /// The whole mail `uid`, without marking it seen. `None` when it is
    /// gone (moved or deleted meanwhile by another client).
    pub fn fetch(&mut self, uid: u32) -> Result<Option<Vec<u8>>, ImapError> {
        let fetches = self
            .session
            .uid_fetch(uid.to_string(), "(UID BODY.PEEK[])")
            .map_err(|e| self.err(&format!("to send mail {uid}"), e))?;
        Ok(fetches
            .iter()
            .find(|f| f.uid == Some(uid))
            .and_then(|f| f.body().map(<[u8]>::to_vec)))
    }

    /// Flags mail `uid` seen and moves it to `folder`: done once its
    /// entries are on disk, so that a mail left in the inbox is one still
    /// to be taken (or one that cannot be used, flagged).
    pub fn file_away(&mut self, uid: u32, folder: &str) -> Result<(), ImapError> {
        let set = uid.to_string();
        self.session
            .uid_store(&set, "+FLAGS.SILENT (\\Seen)")
            .map_err(|e| self.err(&format!("to flag mail {uid} seen"), e))?;
        if self.can_move {
            self.session
                .uid_mv(&set, folder)
                .map_err(|e| self.err(&format!("to move mail {uid}"), e))?;
        } else {
            // Without MOVE (RFC 6851): copy, then remove the original. A
            // crash in between leaves a copy in both folders; the next sync
            // takes the inbox's again, which changes nothing.
            self.session
                .uid_copy(&set, quoted(folder))
                .map_err(|e| self.err(&format!("to copy mail {uid}"), e))?;
            self.session
                .uid_store(&set, "+FLAGS.SILENT (\\Deleted)")
                .map_err(|e| self.err(&format!("to remove mail {uid}"), e))?;
            self.session
                .uid_expunge(&set)
                .map_err(|e| self.err(&format!("to remove mail {uid}"), e))?;
        }
        Ok(())
    }

    /// Flags mail `uid` (it stays where it is, for its owner to look at).
    pub fn flag(&mut self, uid: u32) -> Result<(), ImapError> {
        self.session
            .uid_store(uid.to_string(), "+FLAGS.SILENT (\\Flagged)")
            .map_err(|e| self.err(&format!("to flag mail {uid}"), e))?;
        Ok(())
    }

    /// Waits (IMAP IDLE) until the selected folder changes or `limit`
    /// passes. True when it changed.
    pub fn idle(&mut self, limit: Duration) -> Result<bool, ImapError> {
        let outcome = {
            let mut idle = self.session.idle();
            idle.timeout(limit).keepalive(false);
            idle.wait_while(imap::extensions::idle::stop_on_any)
        };
        // IDLE leaves the socket without a read timeout.
        let _ = self.socket.set_read_timeout(Some(self.timeout));
        match outcome {
            Ok(WaitOutcome::MailboxChanged) => Ok(true),
            Ok(WaitOutcome::TimedOut) => Ok(false),
            Err(e) => Err(self.err("to wait for new mail (IDLE)", e)),
        }
    }

    /// Logs out (LOGOUT), as dropping the session does; a failure here
    /// changes nothing.
    pub fn logout(mut self) {
        self.log_out();
    }

    fn log_out(&mut self) {
        if self.logged_out || self.broken.get() {
            return;
        }
        self.logged_out = true;
        // A server that stopped answering gets a few seconds, not the
        // whole timeout: everything worth doing is done.
        let _ = self
            .socket
            .set_read_timeout(Some(self.timeout.min(Duration::from_secs(5))));
        let _ = self.session.logout();
    }
}

impl Drop for Imap {
    fn drop(&mut self) {
        self.log_out();
    }
}

/// The SASL mechanisms named when a server offers none that fits.
const MECHANISMS: &[&str] = &[
    "PLAIN",
    "LOGIN",
    "OAUTHBEARER",
    "XOAUTH2",
    "SCRAM-SHA-256",
    "SCRAM-SHA-1",
    "CRAM-MD5",
    "GSSAPI",
    "EXTERNAL",
];

/// Who logs in where.
struct Account<'a> {
    s: &'a ImapSettings,
    server: &'a str,
    user: &'a str,
}

impl Account<'_> {
    /// Logs in with the password (AUTHENTICATE PLAIN, else LOGIN) or the
    /// token (AUTHENTICATE OAUTHBEARER or XOAUTH2, as the server offers and
    /// `auth` allows). The session, and how it logged in.
    fn log_in(
        &self,
        mut client: imap::Client<Stream>,
        credential: &Credential,
        redact: &mut Redactor,
    ) -> Result<(imap::Session<Stream>, String), ImapError> {
        let (server, timeout) = (self.server.to_string(), self.s.timeout);
        let caps = client
            .capabilities()
            .map_err(|e| imap_error(&server, timeout, e, redact))?;
        let offers: Vec<&str> = MECHANISMS
            .iter()
            .copied()
            .filter(|m| caps.has_str(format!("AUTH={m}")))
            .collect();
        let login_disabled = caps.has_str("LOGINDISABLED");
        drop(caps);
        let token = match credential {
            Credential::Password(password) => {
                return self.with_password(client, password, &offers, login_disabled, redact);
            }
            Credential::Token(token) => token,
        };
        let mechanism = self
            .s
            .auth()
            .mechanism(
                offers.contains(&"OAUTHBEARER"),
                offers.contains(&"XOAUTH2"),
                &offers.join(" "),
            )
            .map_err(|detail| ImapError::AuthUnavailable {
                server: server.clone(),
                detail,
            })?;
        if !super::oauth::user_fits(self.user) {
            return Err(ImapError::Config(format!(
                "the IMAP user `{}` cannot be sent in an OAuth login (it holds a control \
                 character)",
                text::excerpt(self.user)
            )));
        }
        let host = self.s.host.as_deref().unwrap_or("").trim();
        let first =
            mechanism.initial_response(self.user, token.expose(), host, self.s.effective_port());
        redact.add_secret(&first);
        let oauth = OAuth {
            mechanism,
            first,
            sent: Cell::new(false),
            challenge: RefCell::new(None),
        };
        match client.authenticate(mechanism.name(), &oauth) {
            Ok(session) => Ok((session, format!("AUTHENTICATE {}", mechanism.name()))),
            Err((
                imap::Error::No(imap::error::No { information, .. })
                | imap::Error::Bad(imap::error::Bad { information, .. }),
                _,
            )) => {
                let said = redact.clean(&information);
                let status = oauth
                    .challenge
                    .borrow()
                    .as_deref()
                    .and_then(super::oauth::refusal);
                Err(ImapError::TokenRefused(Box::new(TokenRefusal {
                    side: "IMAP",
                    user: text::inline(self.user).into_owned(),
                    server,
                    mechanism,
                    detail: match status {
                        Some(st) => format!(
                            "{}; the token was refused with {st}",
                            said.trim_end_matches('.')
                        ),
                        None => said,
                    },
                    command: self
                        .s
                        .token_command
                        .as_ref()
                        .map(ToString::to_string)
                        .unwrap_or_default(),
                })))
            }
            Err((e, _)) => Err(imap_error(&server, timeout, e, redact)),
        }
    }

    fn with_password(
        &self,
        client: imap::Client<Stream>,
        password: &Secret,
        offers: &[&str],
        login_disabled: bool,
        redact: &Redactor,
    ) -> Result<(imap::Session<Stream>, String), ImapError> {
        let user = self.user;
        let (login, how) = if offers.contains(&"PLAIN") {
            let plain = Plain(user.to_string(), password.clone());
            (
                client.authenticate("PLAIN", &plain).map_err(|(e, _)| e),
                "AUTHENTICATE PLAIN",
            )
        } else if login_disabled {
            return Err(ImapError::AuthFailed {
                user: text::inline(user).into_owned(),
                server: self.server.to_string(),
                detail: "the server offers neither AUTH=PLAIN nor LOGIN on this connection; \
                         check the security setting"
                    .into(),
            });
        } else {
            (
                client.login(user, password.expose()).map_err(|(e, _)| e),
                "LOGIN",
            )
        };
        let session = login.map_err(|e| match e {
            imap::Error::No(imap::error::No { information, .. })
            | imap::Error::Bad(imap::error::Bad { information, .. }) => ImapError::AuthFailed {
                user: text::inline(user).into_owned(),
                server: self.server.to_string(),
                detail: redact.clean(&information),
            },
            e => imap_error(self.server, self.s.timeout, e, redact),
        })?;
        Ok((session, how.to_string()))
    }
}

/// AUTHENTICATE PLAIN (RFC 4616): the crate encodes the response.
struct Plain(String, Secret);

impl imap::Authenticator for Plain {
    type Response = String;
    fn process(&self, _: &[u8]) -> String {
        format!("\0{}\0{}", self.0, self.1.expose())
    }
}

/// AUTHENTICATE OAUTHBEARER / XOAUTH2: the token first; a second challenge
/// is the server's refusal (a JSON status), kept for the message and
/// answered so that the server ends the exchange with its NO.
struct OAuth {
    mechanism: Mechanism,
    first: String,
    sent: Cell<bool>,
    challenge: RefCell<Option<Vec<u8>>>,
}

impl imap::Authenticator for OAuth {
    type Response = String;
    fn process(&self, challenge: &[u8]) -> String {
        if !self.sent.replace(true) {
            return self.first.clone();
        }
        *self.challenge.borrow_mut() = Some(challenge[..challenge.len().min(4096)].to_vec());
        self.mechanism.after_error().to_string()
    }
}

/// A folder name as an IMAP quoted string ([`ImapSettings::validate`]
/// refuses quotes, backslashes and controls), for the commands the crate
/// passes on as they are (UID COPY, LIST's pattern); the others quote.
fn quoted(name: &str) -> String {
    format!("\"{name}\"")
}

/// `1,3,7:9`-style set of UIDs.
fn uid_set(uids: &[u32]) -> String {
    uids.iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// The plain-text start of a STARTTLS connection (RFC 3501 6.2.1): the
/// greeting, then `STARTTLS` and its tagged answer. The `imap` crate keeps
/// this step private to its own TLS set-up, and starry brings its own
/// rustls configuration (an extra root certificate), so these few lines are
/// read here, each bounded, before the crate takes the connection over.
fn starttls(
    mut tcp: TcpStream,
    server: &str,
    timeout: Duration,
    redact: &Redactor,
) -> Result<TcpStream, ImapError> {
    let fail = |e: std::io::Error| io_error(server, timeout, e, redact);
    let greeting = read_line(&mut tcp).map_err(fail)?;
    if !greeting.starts_with("* OK") {
        return Err(ImapError::Refused {
            server: server.to_string(),
            what: "the connection".into(),
            detail: redact.clean(&text::excerpt(&greeting)),
        });
    }
    tcp.write_all(b"s1 STARTTLS\r\n").map_err(fail)?;
    // Untagged lines may come first; a server says what it has to say in
    // a few.
    for _ in 0..32 {
        let line = read_line(&mut tcp).map_err(fail)?;
        if let Some(answer) = line.strip_prefix("s1 ") {
            if answer.to_ascii_uppercase().starts_with("OK") {
                return Ok(tcp);
            }
            return Err(ImapError::Tls {
                server: server.to_string(),
                detail: format!(
                    "the server does not offer STARTTLS (it answered {})",
                    redact.clean(&text::excerpt(answer))
                ),
                hint: "if this is an implicit-TLS port (usually 993) set security = tls; \
                       starry does not send a password unencrypted to another machine"
                    .into(),
            });
        }
    }
    Err(ImapError::Dropped {
        server: server.to_string(),
        detail: "no answer to STARTTLS".into(),
    })
}

/// One line of at most 8 KiB, read byte by byte: nothing after it may be
/// consumed, since TLS starts right there.
fn read_line(tcp: &mut TcpStream) -> std::io::Result<String> {
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    while line.len() < 8192 {
        if tcp.read(&mut byte)? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        if byte[0] == b'\n' {
            break;
        }
        line.push(byte[0]);
    }
    Ok(String::from_utf8_lossy(&line).trim_end().to_string())
}

fn tls_config(s: &ImapSettings, server: &str) -> Result<Arc<rustls::ClientConfig>, ImapError> {
    let extra = match &s.ca_file {
        Some(ca) => super::tls::read_pem_certificates(ca).map_err(|why| {
            ImapError::Config(format!(
                "the extra root certificate {} (STARRY_IMAP_CA_FILE or ca_file) {why}",
                ca.display()
            ))
        })?,
        None => Vec::new(),
    };
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier =
        super::tls::Verifier::new(extra, Arc::clone(&provider)).map_err(|e| ImapError::Tls {
            server: server.to_string(),
            detail: e,
            hint: "check the certificate file".into(),
        })?;
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| ImapError::Tls {
            server: server.to_string(),
            detail: e.to_string(),
            hint: "this build of starry cannot speak TLS".into(),
        })?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth();
    Ok(Arc::new(config))
}

/// TLS over `tcp`, the handshake completed here so that a certificate that
/// does not fit is reported as such, not as a later read error.
fn handshake(
    s: &ImapSettings,
    host: &str,
    server: &str,
    mut tcp: TcpStream,
    redact: &Redactor,
) -> Result<Stream, ImapError> {
    let config = tls_config(s, server)?;
    let name = ServerName::try_from(host.to_string()).map_err(|e| {
        ImapError::Config(format!(
            "`{}` is not a host name TLS can check: {e}",
            text::excerpt(host)
        ))
    })?;
    let mut conn = rustls::ClientConnection::new(config, name).map_err(|e| ImapError::Tls {
        server: server.to_string(),
        detail: e.to_string(),
        hint: "check the settings".into(),
    })?;
    while conn.is_handshaking() {
        if let Err(e) = conn.complete_io(&mut tcp) {
            let detail = redact.clean(&e.to_string());
            return Err(match e.kind() {
                std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock => {
                    ImapError::Timeout {
                        server: server.to_string(),
                        secs: s.timeout.as_secs(),
                    }
                }
                _ => ImapError::Tls {
                    hint: tls_hint(&detail, s),
                    server: server.to_string(),
                    detail,
                },
            });
        }
    }
    Ok(Stream::Tls(Box::new(rustls::StreamOwned::new(conn, tcp))))
}

fn tls_hint(detail: &str, s: &ImapSettings) -> String {
    if let Some(hint) =
        super::tls::certificate_hint(detail, s.ca_file.as_deref(), "STARRY_IMAP_CA_FILE")
    {
        hint
    } else if s.security == ImapSecurity::Tls {
        "the server may not speak TLS on this port: security = tls needs an implicit-TLS port \
         (usually 993); for a STARTTLS port (usually 143) set security = starttls"
            .into()
    } else {
        "check the security setting (tls for port 993, starttls for port 143) and the port".into()
    }
}

fn io_error(server: &str, timeout: Duration, e: std::io::Error, redact: &Redactor) -> ImapError {
    use std::io::ErrorKind as K;
    let server = server.to_string();
    match e.kind() {
        K::ConnectionRefused => ImapError::ConnectionRefused { server },
        K::TimedOut | K::WouldBlock => ImapError::Timeout {
            server,
            secs: timeout.as_secs(),
        },
        K::ConnectionReset | K::ConnectionAborted | K::BrokenPipe | K::UnexpectedEof => {
            ImapError::Dropped {
                server,
                detail: redact.clean(&e.to_string()),
            }
        }
        K::InvalidData => {
            let detail = redact.clean(&e.to_string());
            ImapError::Tls {
                hint: "check the security setting and the port".into(),
                server,
                detail,
            }
        }
        _ => ImapError::Connect {
            server,
            detail: redact.clean(&e.to_string()),
        },
    }
}

fn imap_error(server: &str, timeout: Duration, e: imap::Error, redact: &Redactor) -> ImapError {
    match e {
        imap::Error::Io(io) => io_error(server, timeout, io, redact),
        imap::Error::ConnectionLost => ImapError::Dropped {
            server: server.to_string(),
            detail: "the server closed the connection".into(),
        },
        imap::Error::No(imap::error::No { information, .. })
        | imap::Error::Bad(imap::error::Bad { information, .. }) => ImapError::Refused {
            server: server.to_string(),
            what: "a command".into(),
            detail: redact.clean(&information),
        },
        e => ImapError::Dropped {
            server: server.to_string(),
            detail: redact.clean(&text::excerpt(&e.to_string())),
        },
    }
}

/// Where the sync of one account keeps what it has read:
/// `HOME/sync/imap-HASH.json`, HASH naming user, server and inbox, so that
/// another account (or another inbox) starts afresh.
pub fn state_file(home: &Path, s: &ImapSettings) -> PathBuf {
    use sha2::{Digest, Sha256};
    let key = format!(
        "{}\n{}\n{}",
        s.user.as_deref().unwrap_or(""),
        s.server(),
        s.inbox
    );
    let h = hex::encode(Sha256::digest(key.as_bytes()));
    home.join("sync").join(format!("imap-{}.json", &h[..16]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn security_names_and_ports() {
        assert_eq!(ImapSecurity::parse("TLS"), Some(ImapSecurity::Tls));
        assert_eq!(ImapSecurity::parse("imaps"), Some(ImapSecurity::Tls));
        assert_eq!(
            ImapSecurity::parse("starttls"),
            Some(ImapSecurity::Starttls)
        );
        assert_eq!(ImapSecurity::parse("maybe"), None);
        assert_eq!(ImapSecurity::Tls.default_port(), 993);
        assert_eq!(ImapSecurity::Starttls.default_port(), 143);
    }

    #[test]
    fn validation_names_what_is_missing() {
        let mut s = ImapSettings::default();
        assert!(
            s.validate()
                .unwrap_err()
                .to_string()
                .contains("no IMAP server")
        );
        s.host = Some("imap.example.org".into());
        assert!(
            s.validate()
                .unwrap_err()
                .to_string()
                .contains("no IMAP user")
        );
        s.user = Some("ann@example.org".into());
        assert!(s.validate().is_ok());
        s.security = ImapSecurity::None;
        assert!(
            s.validate()
                .unwrap_err()
                .to_string()
                .contains("only allowed")
        );
        s.host = Some("127.0.0.1".into());
        assert!(s.validate().is_ok());
        s.folder = "a\"b".into();
        assert!(s.validate().is_err());
    }

    #[test]
    fn uid_sets() {
        assert_eq!(uid_set(&[1, 5, 9]), "1,5,9");
    }

    #[test]
    fn the_state_file_depends_on_the_account() {
        let home = Path::new("/h");
        let mut a = ImapSettings {
            host: Some("imap.example.org".into()),
            user: Some("ann@example.org".into()),
            ..ImapSettings::default()
        };
        let first = state_file(home, &a);
        assert_eq!(first, state_file(home, &a.clone()));
        a.user = Some("ben@example.org".into());
        assert_ne!(first, state_file(home, &a));
    }
}
