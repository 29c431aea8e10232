//! OAuth 2.0 logins (SASL XOAUTH2 and OAUTHBEARER, RFC 7628) for IMAP and
//! SMTP, with the access token printed by a `token_command`, as aerc, mutt
//! and himalaya do: starry never talks to the provider itself. A helper
//! (`oama`, `mutt_oauth2.py`, …) keeps the refresh token and prints a fresh
//! access token; starry runs it before each connection.
//!
//! The token stays in this process: it is read from the command's standard
//! output, never passed to another program, and every text that may end up
//! in an error is cleaned of it (and of the base64 forms the SASL exchange
//! gives it).

use std::fmt;
use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde::Deserialize;

use super::transport::Secret;
use starry_core::text;

/// The most a token command may print: a Microsoft access token is 2–3 KB,
/// a JWT with many claims a few KB more.
pub const TOKEN_LIMIT: usize = 64 * 1024;
/// How long a token command may take (a refresh is one HTTPS request).
pub const TOKEN_COMMAND_TIMEOUT: Duration = Duration::from_secs(60);
/// How much of the command's standard error is kept for a message.
const STDERR_KEPT: usize = 4096;

/// How an account logs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Auth {
    /// A password: AUTH PLAIN, else LOGIN.
    Password,
    /// OAuth 2.0 with the mechanism the server offers: OAUTHBEARER (the
    /// standard one, RFC 7628) when it offers it, else XOAUTH2.
    OAuth,
    /// OAuth 2.0 with XOAUTH2 only (Google's and Microsoft's older one).
    Xoauth2,
    /// OAuth 2.0 with OAUTHBEARER only.
    Oauthbearer,
}

impl Auth {
    pub fn parse(s: &str) -> Option<Auth> {
        match s.trim().to_ascii_lowercase().as_str() {
            "password" | "plain" | "login" => Some(Auth::Password),
            "oauth" | "oauth2" => Some(Auth::OAuth),
            "xoauth2" => Some(Auth::Xoauth2),
            "oauthbearer" => Some(Auth::Oauthbearer),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Auth::Password => "password",
            Auth::OAuth => "oauth2",
            Auth::Xoauth2 => "xoauth2",
            Auth::Oauthbearer => "oauthbearer",
        }
    }

    pub fn is_oauth(self) -> bool {
        self != Auth::Password
    }

    /// The OAuth mechanism to use, given what the server offers; an error
    /// (one sentence, saying what it offers) when none fits.
    pub fn mechanism(
        self,
        offers_oauthbearer: bool,
        offers_xoauth2: bool,
        offered: &str,
    ) -> Result<Mechanism, String> {
        let pick = match self {
            Auth::Password => None,
            Auth::OAuth if offers_oauthbearer => Some(Mechanism::Oauthbearer),
            Auth::OAuth if offers_xoauth2 => Some(Mechanism::Xoauth2),
            Auth::OAuth => None,
            Auth::Xoauth2 => offers_xoauth2.then_some(Mechanism::Xoauth2),
            Auth::Oauthbearer => offers_oauthbearer.then_some(Mechanism::Oauthbearer),
        };
        pick.ok_or_else(|| {
            let wanted = match self {
                Auth::Xoauth2 => "XOAUTH2",
                Auth::Oauthbearer => "OAUTHBEARER",
                _ => "OAUTHBEARER or XOAUTH2",
            };
            let offered = if offered.trim().is_empty() {
                "no login mechanism at all".to_string()
            } else {
                text::excerpt(offered.trim())
            };
            format!(
                "the server does not offer the OAuth login {wanted} on this connection (it \
                 offers {offered}); check the host, the port and the security setting, or set \
                 `auth` to the mechanism it offers"
            )
        })
    }
}

/// A SASL mechanism that carries an OAuth 2.0 bearer token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mechanism {
    Xoauth2,
    Oauthbearer,
}

impl Mechanism {
    pub fn name(self) -> &'static str {
        match self {
            Mechanism::Xoauth2 => "XOAUTH2",
            Mechanism::Oauthbearer => "OAUTHBEARER",
        }
    }

    /// The client's first (and only) message: XOAUTH2
    /// `user=U^Aauth=Bearer T^A^A`; OAUTHBEARER (RFC 7628 3.1) the GS2
    /// header naming the user, then host, port and the token.
    pub fn initial_response(self, user: &str, token: &str, host: &str, port: u16) -> String {
        match self {
            Mechanism::Xoauth2 => format!("user={user}\x01auth=Bearer {token}\x01\x01"),
            Mechanism::Oauthbearer => format!(
                "n,a={},\x01host={host}\x01port={port}\x01auth=Bearer {token}\x01\x01",
                saslname(user)
            ),
        }
    }

    /// What the client answers to the server's error challenge (a JSON
    /// object) so that the server ends the exchange with its refusal:
    /// XOAUTH2 an empty line, OAUTHBEARER a single ^A (RFC 7628 3.2.3).
    pub fn after_error(self) -> &'static str {
        match self {
            Mechanism::Xoauth2 => "",
            Mechanism::Oauthbearer => "\x01",
        }
    }
}

/// A user name as a GS2 `saslname` (RFC 5801): `,` and `=` escaped.
fn saslname(user: &str) -> String {
    user.replace('=', "=3D").replace(',', "=2C")
}

/// Whether `user` can stand in a SASL OAuth message (no control
/// characters: they frame the message).
pub fn user_fits(user: &str) -> bool {
    !user.is_empty() && !user.chars().any(char::is_control)
}

/// A server's refusal of the token, with what to do: the same paragraph
/// for IMAP and SMTP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenRefusal {
    /// SMTP or IMAP.
    pub side: &'static str,
    pub user: String,
    /// `host:port`.
    pub server: String,
    pub mechanism: Mechanism,
    /// The server's answer (redacted).
    pub detail: String,
    /// The token command, as shown to the user.
    pub command: String,
}

impl fmt::Display for TokenRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the {} server {} refused the OAuth access token of {} ({}; it said: {}). The \
             token has probably expired, or was issued without the mail scope or for another \
             account: run your token_command (`{}`) yourself; if it prints the same stale \
             token, its refresh failed, so authorize again with your token helper (e.g. `oama \
             authorize …`, `mutt_oauth2.py --authorize`); see docs/mail.md for the scopes each \
             provider needs",
            self.side,
            self.server,
            self.user,
            self.mechanism.name(),
            self.detail,
            self.command
        )
    }
}

/// What the server's error challenge says, in a few words: its `status`
/// (and `scope`, when it names one), e.g. `status "invalid_token"`.
pub fn refusal(challenge: &[u8]) -> Option<String> {
    let challenge = &challenge[..challenge.len().min(4096)];
    let v: serde_json::Value = serde_json::from_slice(challenge).ok()?;
    let field = |k: &str| match v.get(k)? {
        serde_json::Value::String(s) => Some(text::excerpt_of(s, 80)),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    let status = field("status")?;
    Some(match field("scope") {
        Some(scope) => format!("status \"{status}\", scope \"{scope}\""),
        None => format!("status \"{status}\""),
    })
}

/// The command that prints the access token: a shell command line (run
/// with `sh -c`), or a program and its arguments (run as they are).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum TokenCommand {
    Shell(String),
    Argv(Vec<String>),
}

impl fmt::Display for TokenCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = match self {
            TokenCommand::Shell(s) => s.clone(),
            TokenCommand::Argv(words) => words
                .iter()
                .map(|w| {
                    if !w.is_empty()
                        && w.chars()
                            .all(|c| c.is_ascii_alphanumeric() || "-_./@:=+,".contains(c))
                    {
                        w.clone()
                    } else {
                        format!("'{}'", w.replace('\'', "'\\''"))
                    }
                })
                .collect::<Vec<_>>()
                .join(" "),
        };
        // The user's own command, shown whole unless absurdly long.
        f.write_str(&text::excerpt_of(&shown, 200))
    }
}

impl TokenCommand {
    /// Whether there is something to run.
    pub fn is_empty(&self) -> bool {
        match self {
            TokenCommand::Shell(s) => s.trim().is_empty(),
            TokenCommand::Argv(w) => w.first().is_none_or(|p| p.trim().is_empty()),
        }
    }

    fn command(&self) -> Command {
        match self {
            TokenCommand::Shell(s) => {
                let mut c = Command::new("sh");
                c.arg("-c").arg(s);
                c
            }
            TokenCommand::Argv(words) => {
                let mut c = Command::new(&words[0]);
                c.args(&words[1..]);
                c
            }
        }
    }

    /// Runs the command and returns the token it printed. Its standard
    /// input is empty (a robot must not hang on a question); its standard
    /// output is the token, at most [`TOKEN_LIMIT`] bytes, one word; it
    /// gets [`TOKEN_COMMAND_TIMEOUT`]. The error (how it failed, its exit
    /// status and the end of its standard error) never holds its output.
    pub fn run(&self) -> Result<Secret, String> {
        self.run_within(TOKEN_COMMAND_TIMEOUT)
    }

    fn run_within(&self, limit: Duration) -> Result<Secret, String> {
        if self.is_empty() {
            return Err("it is empty".into());
        }
        let mut child = self
            .command()
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("it could not be started ({e})"))?;
        let (out_tx, out_rx) = mpsc::channel();
        let (err_tx, err_rx) = mpsc::channel();
        let stdout = child.stdout.take().expect("piped");
        let stderr = child.stderr.take().expect("piped");
        std::thread::spawn(move || {
            let _ = out_tx.send(read_bounded(stdout, TOKEN_LIMIT + 1));
        });
        std::thread::spawn(move || {
            let _ = err_tx.send(read_bounded(stderr, STDERR_KEPT));
        });
        let status = wait_within(&mut child, limit)?;
        // A program it left running in the background may hold the pipes
        // open: what came so far is all there is.
        let grace = Duration::from_secs(2);
        let out = out_rx.recv_timeout(grace).unwrap_or_default();
        let err = err_rx.recv_timeout(grace).unwrap_or_default();
        if !status.success() {
            let how = match status.code() {
                Some(c) => format!("it exited with status {c}"),
                None => "it was killed by a signal".to_string(),
            };
            return Err(match stderr_excerpt(&err) {
                Some(e) => format!("{how}; its error output ends: {e}"),
                None => format!("{how}, with no error output"),
            });
        }
        token_of(out)
    }
}

/// Waits for `child` at most `limit`; kills it after that.
fn wait_within(child: &mut Child, limit: Duration) -> Result<std::process::ExitStatus, String> {
    let deadline = Instant::now() + limit;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status),
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "it did not finish within {} seconds and was stopped",
                    limit.as_secs()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(format!("waiting for it failed ({e})")),
        }
    }
}

/// Everything `r` gives, of which the first `keep` bytes are kept: the
/// rest is read and dropped, so that the program never blocks on a full
/// pipe.
fn read_bounded(mut r: impl Read, keep: usize) -> Vec<u8> {
    let mut kept = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match r.read(&mut buf) {
            Ok(0) | Err(_) => return kept,
            Ok(n) => {
                let room = keep.saturating_sub(kept.len());
                kept.extend_from_slice(&buf[..n.min(room)]);
            }
        }
    }
}

/// The last few lines of a program's error output, escaped for a terminal.
fn stderr_excerpt(err: &[u8]) -> Option<String> {
    let s = String::from_utf8_lossy(err);
    let lines: Vec<&str> = s.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let tail = lines[lines.len().saturating_sub(3)..].join(" / ");
    if tail.is_empty() {
        return None;
    }
    let chars: Vec<char> = tail.chars().collect();
    let cut: String = chars[chars.len().saturating_sub(300)..].iter().collect();
    Some(format!("\"{}\"", text::inline(&cut)))
}

/// The token in a command's output: one word of the characters RFC 6750
/// allows in a bearer token, around it only white space.
fn token_of(out: Vec<u8>) -> Result<Secret, String> {
    if out.len() > TOKEN_LIMIT {
        return Err(format!(
            "it printed more than {} KiB, far more than an access token; its output is not shown",
            TOKEN_LIMIT / 1024
        ));
    }
    let Ok(s) = String::from_utf8(out) else {
        return Err("it printed something that is not text; its output is not shown".into());
    };
    let token = s.trim();
    if token.is_empty() {
        return Err("it printed nothing".into());
    }
    let fits = token
        .trim_end_matches('=')
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-._~+/".contains(c));
    if !fits {
        return Err(
            "it printed something that is not an access token (one word of letters, digits and \
             -._~+/=); its output is not shown"
                .into(),
        );
    }
    Ok(Secret::new(token))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mechanism_follows_the_server_and_the_setting() {
        assert_eq!(
            Auth::OAuth.mechanism(true, true, ""),
            Ok(Mechanism::Oauthbearer)
        );
        assert_eq!(
            Auth::OAuth.mechanism(false, true, ""),
            Ok(Mechanism::Xoauth2)
        );
        assert_eq!(
            Auth::Xoauth2.mechanism(true, true, ""),
            Ok(Mechanism::Xoauth2)
        );
        let err = Auth::Oauthbearer
            .mechanism(false, true, "PLAIN XOAUTH2")
            .unwrap_err();
        assert!(
            err.contains("OAUTHBEARER") && err.contains("PLAIN XOAUTH2"),
            "{err}"
        );
        assert!(Auth::OAuth.mechanism(false, false, "").is_err());
        assert_eq!(Auth::parse("XOAuth2"), Some(Auth::Xoauth2));
        assert_eq!(Auth::parse("oauth2"), Some(Auth::OAuth));
        assert_eq!(Auth::parse("kerberos"), None);
    }

    #[test]
    fn sasl_messages() {
        assert_eq!(
            Mechanism::Xoauth2.initial_response("ann@example.org", "tok", "h", 993),
            "user=ann@example.org\x01auth=Bearer tok\x01\x01"
        );
        assert_eq!(
            Mechanism::Oauthbearer.initial_response("a=b,c@x", "tok", "imap.x", 993),
            "n,a=a=3Db=2Cc@x,\x01host=imap.x\x01port=993\x01auth=Bearer tok\x01\x01"
        );
        assert_eq!(
            refusal(br#"{"status":"invalid_token","scope":"mail"}"#).as_deref(),
            Some("status \"invalid_token\", scope \"mail\"")
        );
        assert_eq!(refusal(b"not json"), None);
        assert!(!user_fits("a\x01b") && user_fits("ann@example.org"));
    }

    #[test]
    fn a_token_command_prints_one_token() {
        let shell = |s: &str| TokenCommand::Shell(s.into());
        assert_eq!(
            shell("printf 'ya29.a0-Tok_en~x/y+z==\\n'")
                .run()
                .unwrap()
                .expose(),
            "ya29.a0-Tok_en~x/y+z=="
        );
        let argv = TokenCommand::Argv(vec!["printf".into(), "%s".into(), "abc".into()]);
        assert_eq!(argv.run().unwrap().expose(), "abc");
        // Its status and the end of its error output; never its output.
        let err = shell("echo Leaky-Token-77; echo 'refresh failed: invalid_grant' >&2; exit 4")
            .run()
            .unwrap_err();
        assert!(
            err.contains("status 4") && err.contains("invalid_grant"),
            "{err}"
        );
        assert!(!err.contains("Leaky-Token-77"), "{err}");
        for (cmd, says) in [
            ("true", "printed nothing"),
            ("echo two words-Leaky", "not an access token"),
            ("printf '\\001x'", "not an access token"),
            ("head -c 70000 /dev/zero | tr '\\0' a", "more than 64 KiB"),
        ] {
            let err = shell(cmd).run().unwrap_err();
            assert!(err.contains(says), "{cmd}: {err}");
            assert!(!err.contains("Leaky"), "{err}");
        }
        let err = TokenCommand::Argv(vec!["/nonexistent/oama".into()])
            .run()
            .unwrap_err();
        assert!(err.contains("could not be started"), "{err}");
        let err = shell("sleep 30")
            .run_within(Duration::from_millis(300))
            .unwrap_err();
        assert!(err.contains("did not finish"), "{err}");
        assert!(TokenCommand::Argv(vec![]).run().is_err());
    }

    #[test]
    fn a_token_command_reads_from_toml_as_a_line_or_a_list() {
        #[derive(Deserialize)]
        struct T {
            c: TokenCommand,
        }
        let t: T = toml::from_str("c = \"oama access ann@gmail.com\"").unwrap();
        assert_eq!(t.c, TokenCommand::Shell("oama access ann@gmail.com".into()));
        let t: T = toml::from_str("c = [\"oama\", \"access\", \"ann b@x\"]").unwrap();
        assert_eq!(t.c.to_string(), "oama access 'ann b@x'");
    }
}
