//! The mail transport against a real SMTP server (Python aiosmtpd, see
//! tests/support/smtp/server.py), through the library API.
//!
//! Needs python3 with aiosmtpd: `sh tests/support/smtp/install.sh` installs it
//! into target/smtp-venv, where it is found first (or set STARRY_TEST_PYTHON
//! to a python that has it). When no such python is found the tests fail,
//! saying how to install it, unless STARRY_SKIP_SMTP_TESTS=1 (a loud skip). The TLS tests also need the `openssl` command to make a
//! throw-away certificate; without it they fail.

use crate::players;
use crate::smtp_server;

use std::path::{Path, PathBuf};
use std::time::Duration;

use starry::mail::transport::{MailConfig, Secret, Security, SmtpSettings, TransportKind};
use starry::mail::{
    MailError, Sent, TurnMail, body_with_armor, compose, extract_logs, retry, send,
};

use players::{TREE_WITH_BOARD, parse_mail, png_size, walk};
use smtp_server::*;

fn smtp_config(port: u16, security: Security) -> MailConfig {
    MailConfig {
        transport: TransportKind::Smtp,
        smtp: SmtpSettings {
            host: Some("127.0.0.1".into()),
            port: Some(port),
            security,
            timeout: Duration::from_secs(10),
            ..SmtpSettings::default()
        },
        ..MailConfig::default()
    }
}

fn with_auth(mut cfg: MailConfig, dir: &Path, password: &str) -> MailConfig {
    cfg.smtp.user = Some(USER.into());
    cfg.smtp.password = Some(Secret::new(password));
    cfg.smtp.ca_file = Some(certificate(dir).0);
    cfg
}

fn log_bytes(n: usize) -> Vec<u8> {
    let mut log =
        b"{\"body\":{\"kind\":\"genesis\",\"game\":\"starry-sky\",\"v\":1},\"sig\":\"AAAA\"}\n"
            .to_vec();
    for i in 0..n {
        log.extend_from_slice(
            format!(
                "{{\"body\":{{\"kind\":\"move\",\"n\":{i},\"note\":\"\u{e9}toile \u{2605}\"}},\"sig\":\"{}\"}}\n",
                "x".repeat(86)
            )
            .as_bytes(),
        );
    }
    log
}

fn turn_mail(log: &[u8]) -> lettre::Message {
    compose(&TurnMail {
        from_name: "Alice".into(),
        from_email: USER.into(),
        to_name: "Bob".into(),
        to_email: "bob@example.org".into(),
        subject: "Starry Sky: your turn".into(),
        body_text: body_with_armor("Bob, it is your turn.", log),
        log_file_name: "starry-sky-test.jsonl".into(),
        log: log.to_vec(),
        ..Default::default()
    })
    .unwrap()
}

fn pending(home: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(home.join("pending"))
        .map(|d| {
            d.map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|x| x == "eml"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Nothing under `home` (pending messages, envelopes) holds a password.
fn assert_no_password_on_disk(home: &Path) {
    for entry in walk(home) {
        let bytes = std::fs::read(&entry).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        for p in [PASSWORD, WRONG_PASSWORD] {
            assert!(!text.contains(p), "{} holds a password", entry.display());
        }
    }
}

fn assert_no_password(text: &str) {
    for p in [PASSWORD, WRONG_PASSWORD] {
        assert!(!text.contains(p), "a password leaked into: {text}");
    }
}

/// Sets up python (or skips), a temp dir and a starry home.
fn setup() -> Option<(PathBuf, tempfile::TempDir, tempfile::TempDir)> {
    let Some(py) = python() else {
        skip("no python3 with aiosmtpd found");
        return None;
    };
    Some((
        py,
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    ))
}

fn setup_tls() -> Option<(PathBuf, tempfile::TempDir, tempfile::TempDir)> {
    let s = setup()?;
    // Only a missing python/aiosmtpd skips; the openssl command is a plain
    // requirement of these tests (it is not linked into starry).
    assert!(
        have_openssl(),
        "the TLS mail tests need the `openssl` command to make a test certificate \
         (Debian: apt-get install openssl)"
    );
    Some(s)
}

#[test]
fn plain_send_reads_back() {
    let Some((py, dir, home)) = setup() else {
        return;
    };
    let server = Server::start(&py, dir.path(), Mode::Plain, 0);
    let log = log_bytes(3);
    let cfg = smtp_config(server.port, Security::None);
    let sent = send(&cfg, home.path(), &turn_mail(&log)).unwrap();
    match &sent {
        Sent::Smtp { server: s, reply } => {
            assert_eq!(s, &format!("127.0.0.1:{}", server.port));
            assert!(reply.starts_with("250"), "{reply}");
        }
        other => panic!("{other:?}"),
    }
    let msgs = server.messages();
    assert_eq!(msgs.len(), 1);
    assert_eq!(extract_logs(&msgs[0], 1 << 20).unwrap(), vec![log]);
    assert!(server.printed("to=bob@example.org"));
    assert!(pending(home.path()).is_empty());
}

/// A turn mail of the current form: text and HTML, the board as an inline
/// PNG the HTML refers to by Content-ID, only the entries the recipient
/// lacks attached (no armored copy), and the thread's headers.
fn threaded_turn_mail(log: &[u8], png: &[u8]) -> lettre::Message {
    compose(&TurnMail {
        from_name: "Alice".into(),
        from_email: USER.into(),
        to_name: "Bob".into(),
        to_email: "bob@example.org".into(),
        subject: "[starry] Starry Sky 1a2b3c4d".into(),
        body_text: "It is your turn in Starry Sky 1a2b3c4d: your move.\n\nHello Bob,\n".into(),
        body_html: Some(
            "<p>Hello Bob,</p><p><img src=\"cid:board.1a2b3c4d5e6f7a8b.7@example.org\"></p>".into(),
        ),
        picture: Some(png.to_vec()),
        picture_id: "board.1a2b3c4d5e6f7a8b.7@example.org".into(),
        message_id: Some("starry.1a2b3c4d5e6f7a8b.7.2@example.org".into()),
        references: vec![
            "starry.1a2b3c4d5e6f7a8b@example.org".into(),
            "starry.1a2b3c4d5e6f7a8b.6.2@example.org".into(),
        ],
        log_file_name: "1a2b3c4d5e6f7a8b-5-7.jsonl".into(),
        log: log.to_vec(),
        auto_submitted: false,
    })
    .unwrap()
}

#[test]
fn a_mail_with_picture_and_thread_arrives_intact() {
    let Some((py, dir, home)) = setup() else {
        return;
    };
    let server = Server::start(&py, dir.path(), Mode::Plain, 0);
    let log = log_bytes(3)
        .split_inclusive(|&b| b == b'\n')
        .skip(1)
        .flatten()
        .copied()
        .collect::<Vec<u8>>();
    let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"64\" height=\"48\">\
               <rect width=\"64\" height=\"48\" fill=\"#123456\"/></svg>";
    let png = starry::picture::png::render(svg).unwrap();
    assert_eq!(png_size(&png), (64, 48));
    let cfg = smtp_config(server.port, Security::None);
    send(&cfg, home.path(), &threaded_turn_mail(&log, &png)).unwrap();
    let msgs = server.messages();
    assert_eq!(msgs.len(), 1);
    let m = parse_mail(&msgs[0]);
    assert_eq!(m.tree, TREE_WITH_BOARD);
    assert_eq!(m.subject, "[starry] Starry Sky 1a2b3c4d");
    assert_eq!(m.message_id, "starry.1a2b3c4d5e6f7a8b.7.2@example.org");
    assert_eq!(
        m.references,
        [
            "starry.1a2b3c4d5e6f7a8b@example.org",
            "starry.1a2b3c4d5e6f7a8b.6.2@example.org"
        ]
    );
    assert_eq!(m.in_reply_to, ["starry.1a2b3c4d5e6f7a8b.6.2@example.org"]);
    let (got_png, cid) = m.png.as_ref().unwrap();
    assert_eq!(got_png, &png, "the picture byte for byte");
    assert_eq!(cid, "board.1a2b3c4d5e6f7a8b.7@example.org");
    assert!(m.html.as_ref().unwrap().contains(&format!("cid:{cid}")));
    assert_eq!(m.log_name(), "1a2b3c4d5e6f7a8b-5-7.jsonl");
    assert_eq!(m.log(), log.as_slice());
    assert_eq!(extract_logs(&msgs[0], 1 << 20).unwrap(), vec![log]);
    assert!(!String::from_utf8_lossy(&msgs[0]).contains("BEGIN STARRY LOG"));
}

#[test]
fn starttls_auth_send_reads_back() {
    let Some((py, dir, home)) = setup_tls() else {
        return;
    };
    let server = Server::start(&py, dir.path(), Mode::Starttls, 0);
    let log = log_bytes(40);
    let cfg = with_auth(
        smtp_config(server.port, Security::Starttls),
        dir.path(),
        PASSWORD,
    );
    let sent = send(&cfg, home.path(), &turn_mail(&log)).unwrap();
    assert!(
        sent.to_string()
            .contains(&format!("127.0.0.1:{}", server.port))
    );
    assert_no_password(&sent.to_string());
    let msgs = server.messages();
    assert_eq!(msgs.len(), 1);
    assert_eq!(extract_logs(&msgs[0], 1 << 20).unwrap(), vec![log.clone()]);
    assert!(server.printed("AUTH"), "{}", server.output());
    assert!(server.printed("accepted"));

    // The same with the password from a command instead of the variable.
    let mut cfg = cfg;
    cfg.smtp.password = None;
    cfg.smtp.password_command = Some(format!("printf '%s\\n' '{PASSWORD}'"));
    send(&cfg, home.path(), &turn_mail(&log)).unwrap();
    assert_eq!(server.messages().len(), 2);
    assert!(pending(home.path()).is_empty());
}

#[test]
fn implicit_tls_auth_send() {
    let Some((py, dir, home)) = setup_tls() else {
        return;
    };
    let server = Server::start(&py, dir.path(), Mode::Tls, 0);
    let log = log_bytes(2);
    let cfg = with_auth(
        smtp_config(server.port, Security::Tls),
        dir.path(),
        PASSWORD,
    );
    send(&cfg, home.path(), &turn_mail(&log)).unwrap();
    let msgs = server.messages();
    assert_eq!(msgs.len(), 1);
    assert_eq!(extract_logs(&msgs[0], 1 << 20).unwrap(), vec![log]);
}

#[test]
fn wrong_password_is_clear_pending_and_secret() {
    let Some((py, dir, home)) = setup_tls() else {
        return;
    };
    let server = Server::start(&py, dir.path(), Mode::Starttls, 0);
    let log = log_bytes(1);
    let bad = with_auth(
        smtp_config(server.port, Security::Starttls),
        dir.path(),
        WRONG_PASSWORD,
    );
    let err = send(&bad, home.path(), &turn_mail(&log)).unwrap_err();
    let msg = err.to_string();
    eprintln!("wrong password error: {msg}");
    assert!(
        matches!(err.root(), MailError::AuthFailed { .. }),
        "{err:?}"
    );
    assert!(msg.contains(&format!(
        "authentication failed for user {USER} at 127.0.0.1:{}",
        server.port
    )));
    assert!(
        msg.contains("STARRY_SMTP_PASSWORD or password_command"),
        "{msg}"
    );
    assert!(msg.contains("starry mail --retry"), "{msg}");
    assert!(!msg.contains('\n'), "one paragraph: {msg}");
    assert_no_password(&msg);
    assert_no_password(&format!("{err:?}"));
    assert_no_password(&format!("{bad:?}"));
    assert_no_password(&server.output());
    let kept = pending(home.path());
    assert_eq!(kept.len(), 1);
    assert_eq!(err.pending_path(), Some(kept[0].as_path()));
    assert!(msg.contains(&kept[0].display().to_string()));
    assert!(server.messages().is_empty());

    // A retry with the wrong password keeps it and says why, without secrets.
    let report = retry(&bad, home.path()).unwrap();
    assert!(report.sent.is_empty());
    assert_eq!(report.kept.len(), 1);
    assert_no_password(&report.kept[0].1);
    assert!(report.kept[0].1.contains("authentication failed"));

    // With the right one it goes, and leaves nothing behind.
    let good = with_auth(
        smtp_config(server.port, Security::Starttls),
        dir.path(),
        PASSWORD,
    );
    let report = retry(&good, home.path()).unwrap();
    assert!(report.all_sent(), "{report:?}");
    assert_eq!(report.sent.len(), 1);
    assert!(pending(home.path()).is_empty());
    assert_eq!(
        extract_logs(&server.messages()[0], 1 << 20).unwrap(),
        vec![log]
    );
    assert_no_password_on_disk(home.path());
}

#[test]
fn failing_password_command_is_pending_and_silent() {
    let Some((py, dir, home)) = setup_tls() else {
        return;
    };
    let server = Server::start(&py, dir.path(), Mode::Starttls, 0);
    let mut cfg = with_auth(
        smtp_config(server.port, Security::Starttls),
        dir.path(),
        PASSWORD,
    );
    cfg.smtp.password = None;
    cfg.smtp.password_command = Some(format!("echo {PASSWORD}; exit 7"));
    let err = send(&cfg, home.path(), &turn_mail(&log_bytes(1))).unwrap_err();
    let msg = err.to_string();
    assert!(
        matches!(err.root(), MailError::PasswordCommand { .. }),
        "{err:?}"
    );
    assert!(msg.contains("status 7"), "{msg}");
    assert_no_password(&msg);
    assert_eq!(pending(home.path()).len(), 1);
}

#[test]
fn untrusted_certificate_is_a_clear_tls_error() {
    let Some((py, dir, home)) = setup_tls() else {
        return;
    };
    let server = Server::start(&py, dir.path(), Mode::Starttls, 0);
    let mut cfg = with_auth(
        smtp_config(server.port, Security::Starttls),
        dir.path(),
        PASSWORD,
    );
    cfg.smtp.ca_file = None;
    let err = send(&cfg, home.path(), &turn_mail(&log_bytes(1))).unwrap_err();
    let msg = err.to_string();
    eprintln!("untrusted certificate error: {msg}");
    assert!(matches!(err.root(), MailError::Tls { .. }), "{err:?}");
    assert!(msg.contains("STARRY_SMTP_CA_FILE"), "{msg}");
    assert!(msg.contains(&format!("127.0.0.1:{}", server.port)), "{msg}");
    assert_no_password(&msg);
    assert_eq!(pending(home.path()).len(), 1);
}

#[test]
fn tls_to_a_plain_server_is_a_clear_tls_error() {
    let Some((py, dir, home)) = setup_tls() else {
        return;
    };
    let server = Server::start(&py, dir.path(), Mode::Plain, 0);
    let mut cfg = smtp_config(server.port, Security::Tls);
    cfg.smtp.ca_file = Some(certificate(dir.path()).0);
    let err = send(&cfg, home.path(), &turn_mail(&log_bytes(1))).unwrap_err();
    let msg = err.to_string();
    eprintln!("tls to plain error: {msg}");
    assert!(matches!(err.root(), MailError::Tls { .. }), "{err:?}");
    assert!(msg.contains("security = starttls"), "{msg}");
}

#[test]
fn starttls_to_an_implicit_tls_port_times_out_clearly() {
    let Some((py, dir, home)) = setup_tls() else {
        return;
    };
    let server = Server::start(&py, dir.path(), Mode::Tls, 0);
    let mut cfg = with_auth(
        smtp_config(server.port, Security::Starttls),
        dir.path(),
        PASSWORD,
    );
    cfg.smtp.timeout = Duration::from_secs(2);
    let err = send(&cfg, home.path(), &turn_mail(&log_bytes(1))).unwrap_err();
    let msg = err.to_string();
    eprintln!("starttls to tls port error: {msg}");
    assert!(matches!(err.root(), MailError::Timeout { .. }), "{err:?}");
    assert!(msg.contains("2 seconds") && msg.contains("`tls`"), "{msg}");
    assert_eq!(pending(home.path()).len(), 1);
}

#[test]
fn connection_refused_then_retry_when_a_server_listens() {
    let Some((py, dir, home)) = setup() else {
        return;
    };
    let port = free_port();
    let cfg = smtp_config(port, Security::None);
    let log1 = log_bytes(1);
    let log2 = log_bytes(2);
    let err = send(&cfg, home.path(), &turn_mail(&log1)).unwrap_err();
    let msg = err.to_string();
    eprintln!("connection refused error: {msg}");
    assert!(
        matches!(err.root(), MailError::ConnectionRefused { .. }),
        "{err:?}"
    );
    assert!(
        msg.contains(&format!("connection refused by 127.0.0.1:{port}")),
        "{msg}"
    );
    assert!(msg.contains("starry mail --retry"), "{msg}");
    let err2 = send(&cfg, home.path(), &turn_mail(&log2)).unwrap_err();
    assert!(err2.pending_path().is_some());
    assert_eq!(pending(home.path()).len(), 2);

    // Still nobody there: both kept, the second one not even tried.
    let report = retry(&cfg, home.path()).unwrap();
    assert!(report.sent.is_empty());
    assert_eq!(report.kept.len(), 2);
    assert!(report.kept[1].1.starts_with("not tried"), "{report:?}");

    let server = Server::start(&py, dir.path(), Mode::Plain, port);
    assert_eq!(server.port, port);
    let report = retry(&cfg, home.path()).unwrap();
    assert!(report.all_sent(), "{report:?}");
    assert_eq!(report.sent.len(), 2);
    assert!(pending(home.path()).is_empty());
    assert!(
        walk(&home.path().join("pending"))
            .iter()
            .all(|p| p.file_name().unwrap() == ".lock")
    );
    let got: Vec<Vec<u8>> = server
        .messages()
        .iter()
        .map(|m| extract_logs(m, 1 << 20).unwrap().remove(0))
        .collect();
    assert_eq!(got.len(), 2);
    assert!(got.contains(&log1) && got.contains(&log2));

    // Nothing left: a second retry does nothing.
    let report = retry(&cfg, home.path()).unwrap();
    assert!(report.sent.is_empty() && report.kept.is_empty());
}

#[test]
fn dropped_mid_message_then_retry() {
    let Some((py, dir, home)) = setup() else {
        return;
    };
    let dropper = Server::start(&py, dir.path(), Mode::Drop, 0);
    let port = dropper.port;
    let cfg = smtp_config(port, Security::None);
    let log = log_bytes(30);
    let err = send(&cfg, home.path(), &turn_mail(&log)).unwrap_err();
    let msg = err.to_string();
    eprintln!("dropped error: {msg}");
    assert!(matches!(err.root(), MailError::Dropped { .. }), "{err:?}");
    assert!(msg.contains(&format!("127.0.0.1:{port}")), "{msg}");
    assert!(msg.contains("dropped"), "{msg}");
    assert!(dropper.printed("DROPPED"));
    assert!(dropper.messages().is_empty());
    assert_eq!(pending(home.path()).len(), 1);
    drop(dropper);

    let server = Server::start(&py, dir.path(), Mode::Plain, port);
    let report = retry(&cfg, home.path()).unwrap();
    assert!(report.all_sent(), "{report:?}");
    assert!(pending(home.path()).is_empty());
    assert_eq!(
        extract_logs(&server.messages()[0], 1 << 20).unwrap(),
        vec![log]
    );
}

#[test]
fn sendmail_transport() {
    // Needs no SMTP server: a fake sendmail that stores its input.
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let out = dir.path().join("sent.eml");
    let args = dir.path().join("args");
    let script = dir.path().join("fake-sendmail");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho \"$@\" > '{}'\ncat > '{}'\n",
            args.display(),
            out.display()
        ),
    )
    .unwrap();
    let failing = dir.path().join("failing-sendmail");
    std::fs::write(
        &failing,
        "#!/bin/sh\ncat >/dev/null\necho 'queue is full' >&2\nexit 75\n",
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        for s in [&script, &failing] {
            std::fs::set_permissions(s, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
    let log = log_bytes(2);
    let mut cfg = MailConfig {
        transport: TransportKind::Sendmail,
        sendmail: Some(script.display().to_string()),
        ..MailConfig::default()
    };
    let sent = send(&cfg, home.path(), &turn_mail(&log)).unwrap();
    assert!(matches!(sent, Sent::Sendmail { .. }));
    assert_eq!(
        extract_logs(&std::fs::read(&out).unwrap(), 1 << 20).unwrap(),
        vec![log.clone()]
    );
    let a = std::fs::read_to_string(&args).unwrap();
    assert!(
        a.contains(&format!("-f {USER}")) && a.contains("-- bob@example.org"),
        "{a}"
    );

    cfg.sendmail = Some(failing.display().to_string());
    let err = send(&cfg, home.path(), &turn_mail(&log)).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err.root(), MailError::Sendmail { .. }), "{err:?}");
    assert!(msg.contains("queue is full"), "{msg}");
    assert_eq!(pending(home.path()).len(), 1);

    cfg.sendmail = Some(dir.path().join("no-such-sendmail").display().to_string());
    let err = send(&cfg, home.path(), &turn_mail(&log)).unwrap_err();
    assert!(err.to_string().contains("no such program"), "{err}");

    cfg.sendmail = Some(script.display().to_string());
    let report = retry(&cfg, home.path()).unwrap();
    assert_eq!(report.sent.len(), 2);
    assert!(pending(home.path()).is_empty());
}

/// `YYYYMMDD-HHMMSS.mmm-` at the start of a file name (UTC, to the
/// millisecond); returns the rest.
fn after_time(name: &str) -> &str {
    let b = name.as_bytes();
    let time_ok = b.len() > 20
        && b[..8].iter().all(u8::is_ascii_digit)
        && b[8] == b'-'
        && b[9..15].iter().all(u8::is_ascii_digit)
        && b[15] == b'.'
        && b[16..19].iter().all(u8::is_ascii_digit)
        && b[19] == b'-';
    assert!(time_ok, "{name}");
    &name[20..]
}

/// `rest` is `WHOM.eml` or `WHOM-N.eml` (N from 2: a name taken already).
fn names_only(rest: &str, whom: &str, ext: &str) -> bool {
    let Some(tail) = rest.strip_prefix(whom) else {
        return false;
    };
    let Some(tail) = tail.strip_suffix(ext) else {
        return false;
    };
    tail.is_empty()
        || tail
            .strip_prefix('-')
            .is_some_and(|n| n.parse::<u32>().is_ok_and(|n| n >= 2))
}

fn file_name(p: &Path) -> String {
    p.file_name().unwrap().to_str().unwrap().to_string()
}

/// The outbox and the pending folder name each file for its recipient —
/// and, for a turn mail, the game and the entry — with the time first so
/// that a folder sorts oldest first; an odd address is cut to a safe set of
/// characters and a bounded length; no file ever replaces another, even for
/// the same mail sent many times within a millisecond.
#[test]
fn outbox_and_pending_files_are_named_for_their_recipient() {
    let home = tempfile::tempdir().unwrap();
    let log = log_bytes(1);
    let cfg = MailConfig::default();
    let msg = threaded_turn_mail(&log, b"\x89PNG");
    let mut paths = Vec::new();
    for _ in 0..40 {
        let Sent::Outbox { path } = send(&cfg, home.path(), &msg).unwrap() else {
            panic!("the outbox")
        };
        assert_eq!(std::fs::read(&path).unwrap(), msg.formatted());
        paths.push(path);
    }
    let outbox: Vec<PathBuf> = walk(&home.path().join("outbox"));
    assert_eq!(outbox.len(), 40, "no file replaced another");
    for p in &paths {
        let name = file_name(p);
        assert!(
            names_only(after_time(&name), "bob@example.org-1a2b3c4d-e7", ".eml"),
            "{name}"
        );
    }
    let mut sorted = paths.clone();
    sorted.sort_by_key(|p| file_name(p)[..19].to_string());
    assert_eq!(sorted, paths, "the names sort oldest first");

    // An odd address, and a message that is no turn mail (no game, no
    // entry in its Message-ID).
    let odd = format!("A.b+c!#x%y{{z}}~/q{}@Example.ORG", "w".repeat(40));
    let plain = compose(&TurnMail {
        from_name: "Alice".into(),
        from_email: USER.into(),
        to_email: odd,
        subject: "s".into(),
        log_file_name: "g.jsonl".into(),
        log: log.clone(),
        ..Default::default()
    })
    .unwrap();
    let Sent::Outbox { path } = send(&cfg, home.path(), &plain).unwrap() else {
        panic!("the outbox")
    };
    let name = file_name(&path);
    let whom = format!("a.b+c__x_y_z___q{}", "w".repeat(40));
    let whom = &format!("{whom}@example.org")[..64];
    assert!(names_only(after_time(&name), whom, ".eml"), "{name}");

    // Pending: the mail and its envelope under one name; --retry finds
    // both and sends them.
    let failing = MailConfig {
        transport: TransportKind::Sendmail,
        sendmail: Some(home.path().join("no-such-sendmail").display().to_string()),
        ..MailConfig::default()
    };
    for _ in 0..3 {
        send(&failing, home.path(), &msg).unwrap_err();
    }
    let kept = pending(home.path());
    assert_eq!(kept.len(), 3);
    for p in &kept {
        let name = file_name(p);
        assert!(
            names_only(after_time(&name), "bob@example.org-1a2b3c4d-e7", ".eml"),
            "{name}"
        );
        let envelope = p.with_extension("envelope.json");
        let env: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&envelope).unwrap()).unwrap();
        assert_eq!(env["to"], serde_json::json!(["bob@example.org"]));
    }
    let report = retry(&cfg, home.path()).unwrap();
    assert_eq!(report.sent.len(), 3, "{report:?}");
    assert!(pending(home.path()).is_empty());
    assert!(
        walk(&home.path().join("pending"))
            .iter()
            .all(|p| !file_name(p).ends_with(".json")),
        "the envelopes went with their mails"
    );
    assert_eq!(walk(&home.path().join("outbox")).len(), 44);
}
