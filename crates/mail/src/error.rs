//! The one error type of the mail layer.
//!
//! Every message is a single paragraph meant for the person at the keyboard:
//! it says what went wrong, where (file, line, `host:port`) and what to do.
//! No message ever contains a password: the transport redacts every text that
//! comes from a server or a program before it ends up in an error.

use std::path::{Path, PathBuf};

/// Everything that can go wrong while armoring, parsing, composing or sending.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MailError {
    /// Neither an attached log nor an armored block was found.
    #[error(
        "no starry log found: expected a turn mail with a `.jsonl` attachment \
         (application/x-ndjson), or a text containing the whole armored block from the line \
         `-----BEGIN STARRY LOG-----` to the line `-----END STARRY LOG-----`; save the mail \
         as a file (.eml) or paste the block, including both marker lines"
    )]
    NoLog,

    /// The input looks like a mail but its MIME structure is too damaged to read.
    #[error(
        "this mail could not be read: its MIME structure is damaged; save it again from your \
         mail program (as an .eml file, or via \"show original\"), or paste the armored block \
         from the line `-----BEGIN STARRY LOG-----` to the line `-----END STARRY LOG-----`"
    )]
    UnreadableMail,

    /// The input holds more than one distinct log.
    #[error(
        "the input holds {count} different starry logs, so it is not clear which one to use; \
         give one turn mail or one armored block at a time (when replying to a turn mail, \
         delete the quoted earlier block)"
    )]
    SeveralLogs {
        /// How many distinct logs were found.
        count: usize,
    },

    /// The input, or a log decoded from it, is larger than the limit.
    #[error(
        "the input is larger than the limit of {limit} bytes, which is far more than any \
         starry log needs; check that this is the right file"
    )]
    TooLarge {
        /// The limit, in bytes.
        limit: usize,
    },

    /// An armored block is cut off or damaged (the core's words:
    /// [`starry_core::armor::ArmorError`]).
    #[error(transparent)]
    Armor(#[from] starry_core::armor::ArmorError),

    /// An address given to `compose` is not a valid e-mail address.
    #[error("the {field} address `{value}` is not a valid e-mail address ({reason})")]
    Address {
        /// Which field: "sender", "recipient".
        field: &'static str,
        /// The value as given.
        value: String,
        /// Why it was refused.
        reason: String,
    },

    /// The message could not be assembled.
    #[error("could not build the mail: {0}")]
    Build(String),

    /// The settings (mail.toml or STARRY_* variables) are wrong.
    #[error("mail settings: {0}")]
    Config(String),

    /// mail.toml holds a password where no password belongs.
    #[error(
        "{} holds a password key outside the two places one may stand (`password` in the \
         [smtp] and the [imap] section); remove it, and give the password there, or as \
         `password_command` (a command that prints it, e.g. \
         `password_command = \"pass show mail/smtp\"`), or in the STARRY_SMTP_PASSWORD \
         (STARRY_IMAP_PASSWORD) environment variable",
        path.display()
    )]
    PasswordInConfigFile {
        /// The offending file.
        path: PathBuf,
    },

    /// mail.toml holds a password and others may read it.
    #[error(
        "{} holds a password but other users of this computer can read it (mode {:04o}): run \
         `chmod 600 {}`, or use `password_command` instead",
        path.display(),
        mode,
        path.display()
    )]
    PasswordFileReadable {
        /// The file.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },

    /// password_command failed.
    #[error(
        "the SMTP password_command failed ({status}); its output is not shown, to keep the \
         password private: run the command yourself to see what is wrong, or set \
         STARRY_SMTP_PASSWORD instead"
    )]
    PasswordCommand {
        /// How it failed (exit status or why it could not run).
        status: String,
    },

    /// token_command failed.
    #[error(
        "the {side} token_command `{command}` gave no OAuth access token: {detail}. Run it \
         yourself: it must print a fresh access token and nothing else (docs/mail.md says how \
         to set one up for each provider)"
    )]
    TokenCommand {
        /// SMTP or IMAP.
        side: &'static str,
        /// The command, as shown to the user (never its output).
        command: String,
        /// How it failed: exit status, the end of its error output.
        detail: String,
    },

    /// The server refused the OAuth token.
    #[error("{0}")]
    TokenRefused(Box<crate::oauth::TokenRefusal>),

    /// The server refused the user name or password.
    #[error(
        "authentication failed for user {user} at {server} (the server said: {detail}); \
         check STARRY_SMTP_PASSWORD or password_command, and the user name (STARRY_SMTP_USER \
         or `user` in mail.toml)"
    )]
    AuthFailed {
        /// The SMTP user name.
        user: String,
        /// `host:port`.
        server: String,
        /// The server's answer (redacted).
        detail: String,
    },

    /// Authentication could not even be tried.
    #[error("cannot log in at {server}: {detail}")]
    AuthUnavailable {
        /// `host:port`.
        server: String,
        /// Why, and what to do.
        detail: String,
    },

    /// Nobody listens on that port.
    #[error(
        "connection refused by {server}: no mail server is listening there; check the host and \
         port (STARRY_SMTP_HOST, STARRY_SMTP_PORT; 587 is usually STARTTLS, 465 implicit TLS) \
         and that the server is up"
    )]
    ConnectionRefused {
        /// `host:port`.
        server: String,
    },

    /// The server did not answer in time.
    #[error(
        "{server} did not answer within {secs} seconds; check the host and port, and the \
         security setting (an implicit-TLS port such as 465 needs `tls`, a STARTTLS port such \
         as 587 needs `starttls`)"
    )]
    Timeout {
        /// `host:port`.
        server: String,
        /// The timeout.
        secs: u64,
    },

    /// Could not connect for another reason (name resolution, network).
    #[error(
        "could not connect to {server}: {detail}; check the host name, the port and the network"
    )]
    Connect {
        /// `host:port`.
        server: String,
        /// The underlying error (redacted).
        detail: String,
    },

    /// TLS failed (certificate, protocol).
    #[error("TLS with {server} failed: {detail}; {hint}")]
    Tls {
        /// `host:port`.
        server: String,
        /// The underlying error (redacted).
        detail: String,
        /// What to do.
        hint: String,
    },

    /// The connection broke while the message was being transferred.
    #[error(
        "the connection to {server} was dropped while the message was being sent ({detail}); \
         the server did not confirm it, so it was probably not delivered; try again later"
    )]
    Dropped {
        /// `host:port`.
        server: String,
        /// The underlying error (redacted).
        detail: String,
    },

    /// The server refused the message or a recipient.
    #[error("{server} refused the message: {detail}")]
    Rejected {
        /// `host:port`.
        server: String,
        /// The server's answer (redacted).
        detail: String,
    },

    /// Any other SMTP failure.
    #[error("sending through {server} failed: {detail}")]
    Smtp {
        /// `host:port`.
        server: String,
        /// The underlying error (redacted).
        detail: String,
    },

    /// The sendmail program failed.
    #[error(
        "the sendmail program `{program}` failed: {detail}; check STARRY_SENDMAIL or `[sendmail] command` in mail.toml"
    )]
    Sendmail {
        /// The program.
        program: String,
        /// Why (redacted).
        detail: String,
    },

    /// A file could not be read or written.
    #[error("{what}: {source}")]
    Io {
        /// What was being done, with the path.
        what: String,
        /// The underlying error.
        source: std::io::Error,
    },

    /// Sending failed; the message is kept in the pending folder.
    #[error(
        "{} The message was not sent; it is kept in {} and `starry mail --retry` will send it.",
        sentence(reason),
        pending.display()
    )]
    NotSent {
        /// Why sending failed.
        reason: Box<MailError>,
        /// The pending `.eml` file.
        pending: PathBuf,
    },

    /// Sending failed and the message could not even be kept.
    #[error(
        "{} The message was not sent, and it could not be kept for `starry mail --retry` \
         either ({save_error}); fix that and send it again.",
        sentence(reason)
    )]
    NotSentNotKept {
        /// Why sending failed.
        reason: Box<MailError>,
        /// Why saving it failed.
        save_error: String,
    },
}

/// `e` as a sentence: ends with a full stop.
fn sentence(e: &MailError) -> String {
    let s = e.to_string();
    if s.ends_with(['.', '!', '?']) {
        s
    } else {
        s + "."
    }
}

impl MailError {
    /// The pending `.eml` file when the message was kept for a retry.
    pub fn pending_path(&self) -> Option<&Path> {
        match self {
            MailError::NotSent { pending, .. } => Some(pending),
            _ => None,
        }
    }

    /// The cause when this error only wraps one (`NotSent`, `NotSentNotKept`), else itself.
    pub fn root(&self) -> &MailError {
        match self {
            MailError::NotSent { reason, .. } | MailError::NotSentNotKept { reason, .. } => {
                reason.root()
            }
            other => other,
        }
    }

    pub(crate) fn io(what: impl Into<String>, source: std::io::Error) -> MailError {
        MailError::Io {
            what: what.into(),
            source,
        }
    }
}
