//! Logging in and out, against the real Dovecot: OAuth 2.0 (XOAUTH2 and
//! OAUTHBEARER) for IMAP and for SMTP through Dovecot's own submission
//! service, both checking the tokens with its `oauth2` passdb, locally (the
//! tests sign the tokens); `mail setup`'s choice of security for a new
//! port; a self-signed certificate (`openssl req -x509`) given as
//! `ca_file`; and LOGOUT at the end of a sync.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::imap_server::{self, Dovecot, Extras, free_port, jwt};
use crate::players::{Player, Players, stderr, stdout};
use crate::smtp_server::{self, Mode, Options, Server};
use base64::Engine as _;
use serde_json::Value;

/// The key Dovecot checks the tokens' signatures with.
const KEY: &[u8] = b"starry-oauth-test-key-Quasar-8814";

fn password(p: &Player) -> String {
    format!("Login-{}-Nebula-71-Pa55", p.name)
}

struct OAuthWorld {
    players: Players,
    dovecot: Dovecot,
    /// Where the submission service relays to: it delivers to Dovecot.
    _relay: Server,
}

/// Two players, a Dovecot that takes OAuth tokens for IMAP and for its
/// submission service, which relays to the SMTP test server, which
/// delivers back to Dovecot by LMTP.
fn oauth_world() -> Option<OAuthWorld> {
    let py = smtp_server::python_or_skip()?;
    if !imap_server::available_or_skip() || !imap_server::submission_or_skip() {
        return None;
    }
    let players = Players::new(2);
    let users: Vec<(String, String)> = players
        .p
        .iter()
        .map(|p| (p.email.clone(), password(p)))
        .collect();
    let refs: Vec<(&str, &str)> = users
        .iter()
        .map(|(u, p)| (u.as_str(), p.as_str()))
        .collect();
    let relay_port = free_port();
    let dovecot = Dovecot::start_with(
        &refs,
        &Extras {
            oauth_key: Some(KEY.to_vec()),
            submission_relay: Some(relay_port),
            self_signed: false,
        },
    );
    let relay = Server::start_with(
        &py,
        players.dir.path(),
        &Options {
            port: relay_port,
            lmtp_port: Some(dovecot.lmtp_port()),
            ..Options::new(Mode::Plain)
        },
    );
    Some(OAuthWorld {
        players,
        dovecot,
        _relay: relay,
    })
}

/// A token command for `p`: a script that prints the token in a file
/// next to it (never an argument of any process). Returns (script, token
/// file).
fn token_command(p: &Player, body: &str) -> (PathBuf, PathBuf) {
    let dir = p.home.parent().unwrap().join(format!("tokens-{}", p.name));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("token");
    let script = dir.join("print-token.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\n{}\n",
            body.replace("TOKEN_FILE", file.to_str().unwrap())
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    (script, file)
}

/// `mail setup` for `p` on the OAuth world's servers, with a token command
/// and `auth`.
fn setup_oauth(w: &OAuthWorld, p: &Player, script: &Path, auth: &str) -> std::process::Output {
    p.run(&[
        "mail",
        "setup",
        "--email",
        &p.email,
        "--smtp-host",
        "localhost",
        "--smtp-port",
        &w.dovecot.submission_port().to_string(),
        "--smtp-security",
        "starttls",
        "--imap-host",
        "localhost",
        "--imap-port",
        &w.dovecot.imaps_port().to_string(),
        "--imap-security",
        "tls",
        "--ca-file",
        w.dovecot.ca_file().to_str().unwrap(),
        "--token-command",
        script.to_str().unwrap(),
        "--auth",
        auth,
        "--json",
    ])
}

/// Every form in which `token` could leak: as it is, and the base64 of
/// each SASL message that carries it.
fn leaks_of(token: &str, user: &str, port: u16) -> Vec<String> {
    let b64 = base64::engine::general_purpose::STANDARD;
    vec![
        token.to_string(),
        b64.encode(format!("user={user}\x01auth=Bearer {token}\x01\x01")),
        b64.encode(format!(
            "n,a={user},\x01host=localhost\x01port={port}\x01auth=Bearer {token}\x01\x01"
        )),
    ]
}

/// Waits (generously: a loaded machine) until `user` has `n` mails in
/// INBOX.
fn wait_for_mail(dovecot: &Dovecot, user: &str, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while dovecot.messages(user, "INBOX").len() < n {
        assert!(
            Instant::now() < deadline,
            "{user} got no mail; Dovecot's log:\n{}",
            dovecot.log()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn oauth_logins_for_imap_and_smtp_with_either_mechanism() {
    let Some(w) = oauth_world() else { return };
    let (anna, ben) = (&w.players.p[0], &w.players.p[1]);
    let mut tokens = Vec::new();
    for p in [anna, ben] {
        let (script, file) = token_command(p, "cat TOKEN_FILE");
        let token = jwt(KEY, &p.email, 600);
        std::fs::write(&file, format!("{token}\n")).unwrap();
        tokens.push(token);
        // `oauth2` takes the standard mechanism when the server offers
        // both; the others are what they say.
        for (auth, mechanism) in [
            ("xoauth2", "XOAUTH2"),
            ("oauthbearer", "OAUTHBEARER"),
            ("oauth2", "OAUTHBEARER"),
        ] {
            let out = setup_oauth(&w, p, &script, auth);
            let text = stdout(&out);
            assert_eq!(out.status.code(), Some(0), "{auth}: {text}{}", stderr(&out));
            let r: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(r["written"], true, "{r}");
            let smtp = r["smtp"].as_str().unwrap();
            assert!(
                smtp.contains(&format!(
                    "logged in at localhost:{}",
                    w.dovecot.submission_port()
                )) && smtp.contains(&format!("with AUTH {mechanism} over STARTTLS"))
                    && smtp.ends_with("nothing was sent"),
                "{smtp}"
            );
            assert!(
                !smtp.contains("sent through") && !smtp.contains("210"),
                "{smtp}"
            );
            let imap = r["imap"].as_str().unwrap();
            assert!(
                imap.contains(&format!("with AUTHENTICATE {mechanism}")),
                "{imap}"
            );
            let settings = std::fs::read_to_string(p.home.join("mail.toml")).unwrap();
            assert!(
                settings.contains("token_command") && !settings.contains("password"),
                "{settings}"
            );
            for leak in leaks_of(
                tokens.last().unwrap(),
                &p.email,
                w.dovecot.submission_port(),
            ) {
                assert!(!text.contains(&leak) && !settings.contains(&leak));
            }
        }
    }
    // Dovecot saw each mechanism on both services.
    let log = w.dovecot.log();
    for service in ["imap-login", "submission-login"] {
        for mechanism in ["XOAUTH2", "OAUTHBEARER"] {
            assert!(
                log.lines().any(|l| l.contains(service)
                    && l.contains("Login: user=<anna@example.org>")
                    && l.contains(&format!("method={mechanism}"))),
                "no {mechanism} login on {service}:\n{log}"
            );
        }
    }
    // A game by mail: Anna's invitation leaves through the submission
    // service, Ben's sync takes it over IMAP; OAuth both ways.
    let two = format!(
        "{} <{}>,{} <{}>",
        anna.name, anna.email, ben.name, ben.email
    );
    let out = anna.run(&["new", "starry-night", "--players", &two, "--mail", "--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let rep: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        rep["mail"]["sent"]
            .as_array()
            .is_some_and(|s| !s.is_empty()),
        "{rep}"
    );
    wait_for_mail(&w.dovecot, &ben.email, 1);
    let out = ben.run(&["sync", "--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        report["mails"].as_array().is_some_and(|m| !m.is_empty()),
        "{report}"
    );
    assert!(w.dovecot.messages(&ben.email, "INBOX").is_empty());
    assert_eq!(w.dovecot.messages(&ben.email, "starry").len(), 1);
    for (p, token) in [anna, ben].iter().zip(&tokens) {
        let home: Vec<u8> = crate::players::walk(&p.home)
            .iter()
            .flat_map(|f| std::fs::read(f).unwrap_or_default())
            .collect();
        assert!(
            !home.windows(token.len()).any(|w| w == token.as_bytes()),
            "{}'s token was written somewhere in their home",
            p.name
        );
    }
}

#[test]
fn a_refused_or_failing_token_is_said_clearly_and_never_shown() {
    let Some(w) = oauth_world() else { return };
    let anna = &w.players.p[0];
    let (script, file) = token_command(anna, "cat TOKEN_FILE");
    let env = |auth: &'static str| -> Vec<(&'static str, String)> {
        vec![
            ("STARRY_SMTP_HOST", "localhost".into()),
            ("STARRY_SMTP_PORT", w.dovecot.submission_port().to_string()),
            ("STARRY_SMTP_SECURITY", "starttls".into()),
            ("STARRY_SMTP_USER", anna.email.clone()),
            ("STARRY_SMTP_TOKEN_COMMAND", script.display().to_string()),
            ("STARRY_SMTP_AUTH", auth.into()),
            (
                "STARRY_SMTP_CA_FILE",
                w.dovecot.ca_file().display().to_string(),
            ),
            ("STARRY_IMAP_HOST", "localhost".into()),
            ("STARRY_IMAP_PORT", w.dovecot.imaps_port().to_string()),
            ("STARRY_IMAP_SECURITY", "tls".into()),
        ]
    };
    let run = |auth: &'static str, args: &[&str]| {
        let pairs = env(auth);
        let refs: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (*k, v.as_str())).collect();
        anna.run_env(&refs, args)
    };
    // Expired, and signed with another key: refused with what to do.
    for token in [
        jwt(KEY, &anna.email, -120),
        jwt(b"not-the-server-key-at-all-00000", &anna.email, 600),
    ] {
        std::fs::write(&file, &token).unwrap();
        for (auth, mechanism) in [("xoauth2", "XOAUTH2"), ("oauthbearer", "OAUTHBEARER")] {
            let out = run(auth, &["sync"]);
            let text = format!("{}{}", stdout(&out), stderr(&out));
            assert_eq!(out.status.code(), Some(8), "{text}");
            assert!(
                text.contains(&format!(
                    "refused the OAuth access token of anna@example.org ({mechanism}"
                )) && text.contains("has probably expired")
                    && text.contains("the token was refused with status")
                    && text.contains(script.to_str().unwrap())
                    // Nothing was read: no promise that a part was kept.
                    && text.contains("Nothing was taken")
                    && !text.contains("What was taken is kept"),
                "{text}"
            );
            let out = setup_oauth(&w, anna, &script, auth);
            let r: Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(r["written"], false, "{r}");
            let smtp = r["smtp"].as_str().unwrap();
            assert!(
                smtp.contains("SMTP server localhost")
                    && smtp.contains(&format!(
                        "refused the OAuth access token of anna@example.org ({mechanism}"
                    ))
                    && smtp.contains("535"),
                "{smtp}"
            );
            let all = format!("{text}{}{}", stdout(&out), stderr(&out));
            for leak in leaks_of(&token, &anna.email, w.dovecot.imaps_port())
                .into_iter()
                .chain(leaks_of(&token, &anna.email, w.dovecot.submission_port()))
            {
                assert!(!all.contains(&leak), "the token leaked: {all}");
            }
        }
    }
    // A token command that fails: its status and the end of what it said.
    let (failing, _) = token_command(
        anna,
        "echo 'Leaky-Output-31'; echo 'oama: refreshing failed: invalid_grant' >&2; exit 3",
    );
    let out = anna.run_env(
        &[
            ("STARRY_IMAP_HOST", "localhost"),
            ("STARRY_IMAP_PORT", &w.dovecot.imaps_port().to_string()),
            ("STARRY_IMAP_USER", &anna.email),
            ("STARRY_IMAP_TOKEN_COMMAND", failing.to_str().unwrap()),
        ],
        &["sync"],
    );
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(8), "{text}{}", stderr(&out));
    assert!(
        text.contains("token_command")
            && text.contains("exited with status 3")
            && text.contains("invalid_grant"),
        "{text}"
    );
    assert!(!text.contains("Leaky-Output-31"), "{text}");
    // OAuth asked of a server that offers none: said before any token is
    // sent.
    let out = anna.run_env(
        &[
            ("STARRY_IMAP_HOST", "localhost"),
            ("STARRY_IMAP_PORT", &w.dovecot.imaps_port().to_string()),
            ("STARRY_IMAP_USER", &anna.email),
            ("STARRY_IMAP_AUTH", "oauthbearer"),
        ],
        &["sync"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("STARRY_IMAP_TOKEN_COMMAND"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn mail_setup_takes_the_security_of_a_new_port() {
    let ps = Players::new(1);
    let anna = &ps.p[0];
    let setup = |extra: &[&str]| -> (Value, toml::Table) {
        let mut args = vec![
            "mail",
            "setup",
            "--email",
            "anna@example.org",
            "--smtp-host",
            "smtp.example.org",
            "--imap-host",
            "imap.example.org",
            "--password-command",
            "echo x",
            "--no-test",
            "--json",
        ];
        args.extend_from_slice(extra);
        let r = anna.json(&args);
        let text = std::fs::read_to_string(anna.home.join("mail.toml")).unwrap();
        (r, text.parse().unwrap())
    };
    let get = |t: &toml::Table, section: &str, key: &str| -> Option<String> {
        t.get(section)?.get(key).map(|v| match v {
            toml::Value::String(s) => s.clone(),
            v => v.to_string(),
        })
    };
    let (_, t) = setup(&[
        "--smtp-port",
        "587",
        "--imap-port",
        "143",
        "--imap-security",
        "starttls",
    ]);
    assert_eq!(get(&t, "smtp", "security").as_deref(), Some("starttls"));
    assert_eq!(get(&t, "imap", "security").as_deref(), Some("starttls"));
    // Only new ports: their usual security comes with them, and is said.
    let (r, t) = setup(&["--smtp-port", "465", "--imap-port", "993"]);
    assert_eq!(get(&t, "smtp", "security").as_deref(), Some("tls"));
    assert_eq!(get(&t, "imap", "security").as_deref(), Some("tls"));
    assert_eq!(get(&t, "imap", "port").as_deref(), Some("993"));
    let notes = r["notes"].to_string();
    assert!(
        notes.contains("IMAP security: tls, the usual one for port 993 (it was starttls)"),
        "{notes}"
    );
    // A security alone: an old port of the other kind goes.
    let (r, t) = setup(&["--imap-security", "starttls"]);
    assert_eq!(get(&t, "imap", "port"), None, "the usual one, 143");
    assert_eq!(get(&t, "imap", "security").as_deref(), Some("starttls"));
    assert!(r["notes"].to_string().contains("port 993"), "{r}");
    // A port that is not a usual one keeps the security, and says so.
    let (r, t) = setup(&["--imap-port", "10143"]);
    assert_eq!(get(&t, "imap", "security").as_deref(), Some("starttls"));
    assert!(
        r["notes"]
            .to_string()
            .contains("IMAP port 10143 is not a usual one, so its security stays starttls"),
        "{r}"
    );
    // The same port again: nothing to say.
    let (r, _) = setup(&["--smtp-port", "465"]);
    assert_eq!(r["notes"], serde_json::json!([]), "{r}");
    // Outlook.com takes no password at all: said before anything is
    // written.
    let out = anna.run(&[
        "mail",
        "setup",
        "--provider",
        "outlook",
        "--email",
        "anna@outlook.com",
        "--password-command",
        "echo x",
        "--no-test",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("16 September 2024") && stderr(&out).contains("--token-command"),
        "{}",
        stderr(&out)
    );
    // The text says it too.
    let out = anna.run(&["mail", "setup", "--imap-port", "993", "--no-test"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("Note: IMAP security: tls"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_self_signed_certificate_given_as_ca_file_is_trusted() {
    let Some(py) = smtp_server::python_or_skip() else {
        return;
    };
    if !imap_server::available_or_skip() {
        return;
    }
    let ps = Players::new(1);
    let anna = &ps.p[0];
    let dovecot = Dovecot::start_with(
        &[(anna.email.as_str(), password(anna).as_str())],
        &Extras {
            self_signed: true,
            ..Extras::default()
        },
    );
    let cert = std::fs::read_to_string(dovecot.ca_file()).unwrap();
    assert_eq!(cert, std::fs::read_to_string(dovecot.cert_file()).unwrap());
    let smtp = Server::start_with(
        &py,
        ps.dir.path(),
        &Options {
            accounts: Some(vec![(anna.email.clone(), password(anna))]),
            cert: Some((
                dovecot.cert_file().to_path_buf(),
                dovecot.key_file().to_path_buf(),
            )),
            ..Options::new(Mode::Starttls)
        },
    );
    // Another self-signed certificate: not the server's.
    let other_dir = ps.dir.path().join("other");
    std::fs::create_dir_all(&other_dir).unwrap();
    let other = imap_server::make_self_signed(&other_dir);
    let setup = |ca: Option<&Path>| {
        let smtp_port = smtp.port.to_string();
        let imap_port = dovecot.imaps_port().to_string();
        let mut args = vec![
            "mail",
            "setup",
            "--email",
            &anna.email,
            "--smtp-host",
            "localhost",
            "--smtp-port",
            &smtp_port,
            "--smtp-security",
            "starttls",
            "--imap-host",
            "localhost",
            "--imap-port",
            &imap_port,
            "--imap-security",
            "tls",
            "--password-stdin",
            "--json",
        ];
        if let Some(ca) = ca {
            args.extend(["--ca-file", ca.to_str().unwrap()]);
        }
        let out = anna.run_stdin(format!("{}\n", password(anna)).as_bytes(), &args);
        let r: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|_| panic!("{}{}", stdout(&out), stderr(&out)));
        (out.status.code(), r)
    };
    // None given: the hint says to give one.
    let (code, r) = setup(None);
    assert_eq!(code, Some(2), "{r}");
    for side in ["smtp", "imap"] {
        let text = r[side].as_str().unwrap();
        assert!(
            text.contains("set `ca_file` in mail.toml")
                && text.contains(&format!("STARRY_{}_CA_FILE", side.to_uppercase())),
            "{text}"
        );
    }
    // The wrong one given: the hint names it, and asks for nothing that
    // is already set.
    let (code, r) = setup(Some(&other.cert));
    assert_eq!(code, Some(2), "{r}");
    let other_cert = std::fs::canonicalize(&other.cert).unwrap();
    for side in ["smtp", "imap"] {
        let text = r[side].as_str().unwrap();
        assert!(
            text.contains(&format!(
                "is neither one of the certificates in {}",
                other_cert.display()
            )),
            "{text}"
        );
        assert!(
            !text.contains("set `ca_file`") && !text.contains("CA_FILE)"),
            "{text}"
        );
    }
    // The server's own: both work, and so does sync.
    let (code, r) = setup(Some(dovecot.ca_file()));
    assert_eq!(code, Some(0), "{r}");
    assert_eq!(r["written"], true);
    let out = anna.run(&["sync", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

#[test]
fn sync_logs_out_at_the_end() {
    if !imap_server::available_or_skip() {
        return;
    }
    let ps = Players::new(1);
    let anna = &ps.p[0];
    let dovecot = Dovecot::start(&[(anna.email.as_str(), password(anna).as_str())]);
    let out = anna.run_env(
        &[
            ("STARRY_IMAP_HOST", "localhost"),
            ("STARRY_IMAP_PORT", &dovecot.imaps_port().to_string()),
            ("STARRY_IMAP_USER", &anna.email),
            ("STARRY_IMAP_PASSWORD", &password(anna)),
            ("STARRY_IMAP_CA_FILE", dovecot.ca_file().to_str().unwrap()),
        ],
        &["sync", "--json"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_logged_out(&dovecot, &anna.email, 1);
}

/// Waits until Dovecot's log shows `sessions` IMAP sessions of `user`
/// ended, and checks that each ended with a LOGOUT: Dovecot writes
/// "Logged out" for one, "Disconnected" for a connection just closed.
pub(super) fn assert_logged_out(dovecot: &Dovecot, user: &str, sessions: usize) {
    let session = format!("imap({user})");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let log = dovecot.log();
        let ended: Vec<&str> = log
            .lines()
            .filter(|l| {
                l.contains(&session) && (l.contains("Logged out") || l.contains("Disconnected"))
            })
            .collect();
        if ended.len() >= sessions {
            assert!(
                ended.iter().all(|l| l.contains("Logged out")),
                "a session of {user} did not log out:\n{log}"
            );
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{} of {sessions} sessions of {user} ended:\n{log}",
            ended.len()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}
