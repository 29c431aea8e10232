//! Mail over IMAP against a real Dovecot (tests/imap_server/mod.rs), fed by
//! the real SMTP server (tests/support/smtp/server.py) through LMTP.
//!
//! Needs Dovecot 2.3 (`sh tests/support/imap/install.sh`), python3 with
//! aiosmtpd (`sh tests/support/smtp/install.sh`) and openssl. A missing
//! Dovecot fails the tests, saying how to install it, unless
//! STARRY_SKIP_IMAP_TESTS=1 (a loud skip); a missing aiosmtpd likewise with
//! STARRY_SKIP_SMTP_TESTS=1.
//!
//! The first tests check the test servers themselves, with an IMAP client
//! that is not starry's (python3's imaplib).

use crate::imap_server;
/// OAuth 2.0 logins, `mail setup`'s choices, a self-signed certificate,
/// LOGOUT.
#[path = "imap_tests/login.rs"]
mod login;
/// `starry robot --imap` and the `--watch` loops.
#[path = "imap_tests/robot.rs"]
mod robot;
use crate::smtp_server;
/// `starry sync` and `starry mail setup`.
#[path = "imap_tests/sync.rs"]
mod sync;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use starry::mail::transport::{MailConfig, Secret, Security, SmtpSettings, TransportKind};
use starry::mail::{MailError, send};

use imap_server::{Dovecot, Dropper, Flag, Front, alive, imap_client};
use smtp_server::{Mode, Options, Server};

// ---------------------------------------------------------------------------
// Shared helpers

const ALICE: &str = "alice@example.org";
/// Distinctive, so that a leak anywhere is easy to find.
const ALICE_PASSWORD: &str = "Kp4-Alice-Imap-Lantern-Pa55-q81";
const BEN: &str = "ben@example.org";
const BEN_PASSWORD: &str = "Zt7-Ben-Imap-Copper-Pa55-w52";
const WRONG_PASSWORD: &str = "Yr2-Wrong-Imap-Pewter-Pa55-m40";
/// The authserv-id of the recipients' mail server (the SMTP server in
/// front of Dovecot) in `Authentication-Results`.
const AUTHSERV_ID: &str = "mx.starry.test";

/// A Dovecot with Alice and Ben, or None after a loud skip.
fn dovecot() -> Option<Dovecot> {
    imap_server::available_or_skip()
        .then(|| Dovecot::start(&[(ALICE, ALICE_PASSWORD), (BEN, BEN_PASSWORD)]))
}

/// The SMTP server as the recipients' mail server in front of `dovecot`:
/// delivery by LMTP, `Authentication-Results` stamped, AUTH offered (not
/// required) to Alice and Ben, Dovecot's certificate in the TLS modes.
fn mx(py: &Path, dir: &Path, dovecot: &Dovecot, mode: Mode) -> Server {
    Server::start_with(
        py,
        dir,
        &Options {
            accounts: Some(vec![
                (ALICE.into(), ALICE_PASSWORD.into()),
                (BEN.into(), BEN_PASSWORD.into()),
            ]),
            auth_optional: true,
            lmtp_port: Some(dovecot.lmtp_port()),
            authserv_id: Some(AUTHSERV_ID.into()),
            cert: Some((dovecot.cert_file().into(), dovecot.key_file().into())),
            ..Options::new(mode)
        },
    )
}

/// starry's SMTP settings for a test server on 127.0.0.1.
fn smtp_config(
    port: u16,
    security: Security,
    ca_file: &Path,
    login: Option<(&str, &str)>,
) -> MailConfig {
    MailConfig {
        transport: TransportKind::Smtp,
        smtp: SmtpSettings {
            host: Some("127.0.0.1".into()),
            port: Some(port),
            security,
            timeout: Duration::from_secs(10),
            user: login.map(|(u, _)| u.to_string()),
            password: login.map(|(_, p)| Secret::new(p)),
            ca_file: Some(ca_file.to_path_buf()),
            ..SmtpSettings::default()
        },
        ..MailConfig::default()
    }
}

fn mail(from: &str, to: &str, subject: &str, body: &str) -> lettre::Message {
    lettre::Message::builder()
        .from(from.parse().unwrap())
        .to(to.parse().unwrap())
        .subject(subject)
        .body(body.to_string())
        .unwrap()
}

/// CRLF → LF: Dovecot keeps mail with LF on disk and serves it with CRLF.
fn lf(raw: &[u8]) -> Vec<u8> {
    String::from_utf8_lossy(raw)
        .replace("\r\n", "\n")
        .into_bytes()
}

fn b64(s: &serde_json::Value) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD
        .decode(s.as_str().unwrap())
        .unwrap()
}

/// A plain IMAP connection (through a [`Dropper`] or to Dovecot's IMAP
/// port, where Dovecot allows a login from 127.0.0.1 without TLS).
struct RawImap {
    stream: TcpStream,
    reader: BufReader<TcpStream>,
}

impl RawImap {
    fn connect(port: u16) -> RawImap {
        let stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut greeting = String::new();
        reader.read_line(&mut greeting).unwrap();
        assert!(greeting.starts_with("* OK"), "{greeting}");
        RawImap { stream, reader }
    }

    /// Sends `TAG COMMAND` and reads up to the tagged answer, which must
    /// be OK.
    fn command(&mut self, tag: &str, command: &str) -> String {
        write!(self.stream, "{tag} {command}\r\n").unwrap();
        let mut answer = String::new();
        loop {
            let mut line = String::new();
            assert!(
                self.reader.read_line(&mut line).unwrap() > 0,
                "closed: {answer}"
            );
            answer.push_str(&line);
            if line.starts_with(&format!("{tag} ")) {
                assert!(line.starts_with(&format!("{tag} OK")), "{answer}");
                return answer;
            }
        }
    }

    /// Sends a command and reads everything until the server (or a
    /// Dropper) closes the connection.
    fn command_until_closed(mut self, tag: &str, command: &str) -> Vec<u8> {
        write!(self.stream, "{tag} {command}\r\n").unwrap();
        let mut got = Vec::new();
        // A reset after the bytes still leaves them in `got`.
        let _ = self.reader.read_to_end(&mut got);
        got
    }
}

// ---------------------------------------------------------------------------
// The test servers themselves

/// SMTP (implicit TLS, AUTH) → LMTP → Dovecot → IMAPS and STARTTLS. The
/// SMTP server shows Dovecot's certificate and starry's rustls client
/// trusts it through the CA file: the same CA file an IMAP client needs.
#[test]
fn a_mail_through_smtp_arrives_in_the_imap_inbox() {
    let Some(py) = smtp_server::python_or_skip() else {
        return;
    };
    let Some(dovecot) = dovecot() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let server = mx(&py, dir.path(), &dovecot, Mode::Tls);
    let cfg = smtp_config(
        server.port,
        Security::Tls,
        dovecot.ca_file(),
        Some((ALICE, ALICE_PASSWORD)),
    );
    let sent = mail(
        ALICE,
        BEN,
        "Through SMTP and LMTP",
        "Hello Ben,\nthis came by LMTP.\n",
    );
    send(&cfg, home.path(), &sent).unwrap();

    // On disk: Ben's INBOX, the mail as sent below the receiving servers'
    // headers, ours saying that Alice sent it as herself.
    let inbox = dovecot.messages(BEN, "INBOX");
    assert_eq!(inbox.len(), 1, "{}", dovecot.log());
    let stored = &inbox[0];
    // Exactly what the SMTP server kept (its own copy, as for the other
    // tests), below Dovecot's own headers; that is our header and the mail
    // as sent (then one empty line: lettre ends DATA with CRLF . CRLF after
    // the mail's own last CRLF).
    let kept = server.messages();
    assert_eq!(kept.len(), 1);
    let kept = lf(&kept[0]);
    assert!(lf(&stored.raw).ends_with(&kept), "{stored:?}");
    let ours = format!("Authentication-Results: {AUTHSERV_ID}; spf=pass smtp.mailfrom={ALICE}\n");
    assert!(kept.starts_with(ours.as_bytes()));
    assert!(kept[ours.len()..].starts_with(&lf(&sent.formatted())));
    assert_eq!(
        stored.headers("Authentication-Results"),
        vec![format!("{AUTHSERV_ID}; spf=pass smtp.mailfrom={ALICE}")]
    );
    assert_eq!(stored.header("Delivered-To").as_deref(), Some(BEN));
    assert!(
        stored.flags.is_empty() && stored.uid == Some(1),
        "{stored:?}"
    );
    assert!(dovecot.messages(ALICE, "INBOX").is_empty());
    assert!(
        server.printed(&format!("LMTP-DELIVERED to={BEN}")),
        "{}",
        server.output()
    );

    // Over IMAPS and over STARTTLS, the certificate checked for localhost.
    for security in ["tls", "starttls"] {
        let login = dovecot.login(BEN, security);
        let got = imap_client(&login, &["capabilities", "list", "fetch INBOX"]).unwrap();
        assert_eq!(got[1], serde_json::json!(["INBOX"]), "{security}");
        let messages = got[2].as_array().unwrap();
        assert_eq!(messages.len(), 1, "{security}: {got:?}");
        assert_eq!(messages[0]["uid"], 1);
        let raw = b64(&messages[0]["raw"]);
        assert!(raw.windows(2).any(|w| w == b"\r\n"), "IMAP serves CRLF");
        assert_eq!(lf(&raw), stored.raw, "{security}");
        // After STARTTLS it is no longer offered; AUTH is, in both.
        let caps = got[0].as_array().unwrap();
        assert!(caps.iter().any(|c| c == "AUTH=PLAIN"), "{caps:?}");
        assert!(!caps.iter().any(|c| c == "STARTTLS"), "{caps:?}");
    }
    // Read with BODY.PEEK in a read-only session: still unseen on disk.
    assert!(!dovecot.messages(BEN, "INBOX")[0].has(Flag::Seen));
    let log = dovecot.log();
    assert!(
        log.contains(&format!("user=<{BEN}>, method=PLAIN")) && log.contains(", TLS,"),
        "{log}"
    );
    for secret in [ALICE_PASSWORD, BEN_PASSWORD] {
        assert!(!log.contains(secret) && !server.output().contains(secret));
    }
}

/// The SMTP server as the recipients' MTA (RFC 8601 section 5): a forged
/// `Authentication-Results` of its authserv-id never survives, one of
/// another server does; `spf=pass` only for a session logged in as the
/// envelope sender. Then flags and folders, as IMAP leaves them on disk.
#[test]
fn authentication_results_are_stamped_and_flags_read_from_disk() {
    let Some(py) = smtp_server::python_or_skip() else {
        return;
    };
    let Some(dovecot) = dovecot() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let server = mx(&py, dir.path(), &dovecot, Mode::Starttls);
    // Three mails from Alice to Ben: nobody logged in (with forged
    // results), Ben logged in, Alice logged in.
    let script = r#"
import os, smtplib, ssl, sys
port, ca = int(sys.argv[1]), sys.argv[2]
cases = [
    (None, None, b"Authentication-Results: MX.Starry.Test; spf=pass smtp.mailfrom=alice@example.org\r\n"
                 b"Authentication-Results: (forged) mx.starry.test;\r\n\tdkim=pass header.d=example.org\r\n"
                 b"Authentication-Results: other.example; spf=pass smtp.mailfrom=alice@example.org\r\n"),
    ("ben@example.org", os.environ["BEN_PASSWORD"], b""),
    ("alice@example.org", os.environ["ALICE_PASSWORD"], b""),
]
for n, (login, password, extra) in enumerate(cases, 1):
    s = smtplib.SMTP("localhost", port, timeout=30)
    s.starttls(context=ssl.create_default_context(cafile=ca))
    if login:
        s.login(login, password)
    msg = extra + b"From: <alice@example.org>\r\nTo: <ben@example.org>\r\nSubject: case %d\r\n\r\nbody %d\r\n" % (n, n)
    s.sendmail("alice@example.org", ["ben@example.org"], msg)
    s.quit()
"#;
    let out = std::process::Command::new(imap_server::python3())
        .args(["-c", script, &server.port.to_string()])
        .arg(dovecot.ca_file())
        .env("ALICE_PASSWORD", ALICE_PASSWORD)
        .env("BEN_PASSWORD", BEN_PASSWORD)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let inbox = dovecot.messages(BEN, "INBOX");
    let results: Vec<Vec<String>> = inbox
        .iter()
        .map(|m| m.headers("Authentication-Results"))
        .collect();
    let ours = |spf: &str| format!("{AUTHSERV_ID}; spf={spf} smtp.mailfrom={ALICE}");
    assert_eq!(
        results,
        vec![
            vec![
                ours("none"),
                format!("other.example; spf=pass smtp.mailfrom={ALICE}")
            ],
            vec![ours("none")],
            vec![ours("pass")],
        ]
    );
    let subjects: Vec<Option<String>> = inbox.iter().map(|m| m.header("Subject")).collect();
    assert_eq!(
        subjects,
        [
            Some("case 1".into()),
            Some("case 2".into()),
            Some("case 3".into())
        ]
    );
    assert!(server.printed("REMOVED forged Authentication-Results"));

    // Case 3 moved to `starry` and seen, case 1 flagged in the INBOX.
    let login = dovecot.login(BEN, "tls");
    let folders = imap_client(
        &login,
        &[
            "flag INBOX 3 \\Seen",
            "move INBOX 3 starry",
            "flag INBOX 1 \\Flagged $Forwarded",
            "list",
        ],
    )
    .unwrap();
    assert_eq!(folders[3], serde_json::json!(["INBOX", "starry"]));
    let moved = dovecot.messages(BEN, "starry");
    assert_eq!(moved.len(), 1);
    assert_eq!(moved[0].header("Subject").as_deref(), Some("case 3"));
    assert!(
        moved[0].has(Flag::Seen) && !moved[0].has(Flag::Flagged),
        "{:?}",
        moved[0]
    );
    let inbox = dovecot.messages(BEN, "INBOX");
    assert_eq!(inbox.len(), 2);
    assert!(
        inbox[0].has(Flag::Flagged) && !inbox[0].has(Flag::Seen),
        "{:?}",
        inbox[0]
    );
    assert!(inbox[0].keywords.contains("$Forwarded"), "{:?}", inbox[0]);
    assert!(inbox[1].flags.is_empty());
}

/// Every recipient gets the mail by LMTP; one that Dovecot does not know
/// makes the SMTP server refuse the mail instead of losing it silently.
/// Then a delivery straight by LMTP.
#[test]
fn lmtp_delivers_to_each_recipient_and_refuses_an_unknown_one() {
    let Some(py) = smtp_server::python_or_skip() else {
        return;
    };
    let Some(dovecot) = dovecot() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let server = mx(&py, dir.path(), &dovecot, Mode::Plain);
    let mut cfg = smtp_config(server.port, Security::None, dovecot.ca_file(), None);
    cfg.smtp.ca_file = None;
    let both = lettre::Message::builder()
        .from(ALICE.parse().unwrap())
        .to(BEN.parse().unwrap())
        .to(ALICE.parse().unwrap())
        .subject("To both")
        .body("For Ben and Alice.\n".to_string())
        .unwrap();
    send(&cfg, home.path(), &both).unwrap();
    for user in [ALICE, BEN] {
        let inbox = dovecot.messages(user, "INBOX");
        assert_eq!(inbox.len(), 1, "{user}");
        assert_eq!(inbox[0].header("Delivered-To").as_deref(), Some(user));
        assert!(inbox[0].contains("For Ben and Alice."));
    }
    assert_eq!(server.messages().len(), 1);

    let lost = mail(ALICE, "nobody@example.org", "Lost?", "x\n");
    let err = send(&cfg, home.path(), &lost).unwrap_err();
    assert!(err.to_string().contains("LMTP"), "{err}");
    assert!(server.printed("LMTP-REFUSED"), "{}", server.output());
    assert_eq!(server.messages().len(), 1);

    let direct = b"From: Alice <alice@example.org>\nSubject: direct\n\n.dot line\nend\n";
    dovecot.deliver(BEN, direct);
    let inbox = dovecot.messages(BEN, "INBOX");
    assert_eq!(inbox.len(), 2);
    assert!(
        inbox[1].contains("\n.dot line\nend\n"),
        "dot-stuffing undone"
    );
    let return_path = inbox[1].header("Return-Path");
    assert_eq!(return_path.as_deref(), Some("<alice@example.org>"));
}

/// A wrong password is refused over IMAPS and STARTTLS; a certificate for
/// another name is refused by imaplib and by starry's rustls.
#[test]
fn wrong_password_and_foreign_certificate_are_refused() {
    let Some(py) = smtp_server::python_or_skip() else {
        return;
    };
    let Some(dovecot) = dovecot() else {
        return;
    };
    for security in ["tls", "starttls"] {
        let mut login = dovecot.login(ALICE, security);
        login.password = WRONG_PASSWORD.into();
        let (kind, message) = imap_client(&login, &[]).unwrap_err();
        assert_eq!(kind, "auth", "{security}: {message}");
        assert!(message.contains("AUTHENTICATIONFAILED"), "{message}");
    }
    // And the right one right after (auth_failure_delay and the anvil
    // penalty are off, or this would wait seconds).
    imap_client(&dovecot.login(ALICE, "tls"), &[]).unwrap();
    assert!(!dovecot.log().contains(WRONG_PASSWORD));

    let other = Dovecot::start_with_cert_for("mail.other.example", &[(ALICE, ALICE_PASSWORD)]);
    for security in ["tls", "starttls"] {
        let (kind, message) = imap_client(&other.login(ALICE, security), &[]).unwrap_err();
        assert_eq!(kind, "tls", "{security}: {message}");
        assert!(message.contains("Hostname mismatch"), "{message}");
    }
    // rustls (through starry's SMTP client) refuses it as well.
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let server = mx(&py, dir.path(), &other, Mode::Tls);
    let cfg = smtp_config(
        server.port,
        Security::Tls,
        other.ca_file(),
        Some((ALICE, ALICE_PASSWORD)),
    );
    let err = send(&cfg, home.path(), &mail(ALICE, BEN, "Refused", "x\n")).unwrap_err();
    assert!(matches!(err.root(), MailError::Tls { .. }), "{err:?}");
    assert!(server.messages().is_empty());
}

/// The Dropper cuts the first connection that sends FETCH exactly after
/// the bytes asked, in plain text, behind implicit TLS and behind
/// STARTTLS; later connections pass.
#[test]
fn the_dropper_cuts_a_fetch() {
    let Some(dovecot) = dovecot() else {
        return;
    };
    for i in 0..3 {
        let body = format!(
            "Subject: mail {i}\n\n{}\n",
            "A line of a long enough mail.\n".repeat(60)
        );
        dovecot.deliver(ALICE, body.as_bytes());
    }
    const AFTER: usize = 700;
    let dropper = Dropper::start(dovecot.imap_port(), "FETCH", AFTER);
    let fetch_all = |port: u16| {
        let mut imap = RawImap::connect(port);
        imap.command("a1", &format!("LOGIN {ALICE} {ALICE_PASSWORD}"));
        imap.command("a2", "EXAMINE INBOX");
        imap.command_until_closed("a3", "FETCH 1:* (BODY.PEEK[])")
    };
    let cut = fetch_all(dropper.port());
    assert_eq!(cut.len(), AFTER);
    assert_eq!(
        dropper.cuts(Duration::from_secs(5)),
        1,
        "{}",
        dropper.output()
    );
    // The second connection is not cut: what it gets starts with the bytes
    // the first one got, and goes on to the end of the fetch (then the
    // connection stays open: we read until a LOGOUT closes it).
    let mut imap = RawImap::connect(dropper.port());
    imap.command("b1", &format!("LOGIN {ALICE} {ALICE_PASSWORD}"));
    imap.command("b2", "EXAMINE INBOX");
    let whole = imap.command("a3", "FETCH 1:* (BODY.PEEK[])");
    assert!(
        whole.len() > 3 * 1800 && whole.as_bytes().starts_with(&cut),
        "{whole}"
    );
    assert_eq!(dropper.cuts(Duration::ZERO), 1);

    // Behind TLS and STARTTLS, for a client that checks the certificate.
    for (front, security) in [(Front::Tls, "tls"), (Front::Starttls, "starttls")] {
        let dropper = Dropper::start_for(&dovecot, front, "fetch", 100);
        let mut login = dovecot.login(ALICE, security);
        login.port = dropper.port();
        let (kind, message) = imap_client(&login, &["fetch INBOX"]).unwrap_err();
        assert_eq!(kind, "io", "{security}: {message}");
        assert_eq!(
            dropper.cuts(Duration::from_secs(5)),
            1,
            "{}",
            dropper.output()
        );
        assert!(
            dropper.output().contains("CUT 1 100"),
            "{}",
            dropper.output()
        );
        let fetched = imap_client(&login, &["fetch INBOX"]).unwrap();
        assert_eq!(fetched[0].as_array().unwrap().len(), 3, "{security}");
    }
}

/// 10,000 mails written straight into the maildir are all found by an IMAP
/// SEARCH; then one more arrives by LMTP.
#[test]
fn ten_thousand_mails_are_indexed_and_found() {
    let Some(dovecot) = dovecot() else {
        return;
    };
    let t = Instant::now();
    dovecot.fill(ALICE, 10_000);
    let filled = t.elapsed();
    let login = dovecot.login(ALICE, "tls");
    let t = Instant::now();
    let found = imap_client(&login, &["search INBOX ALL"]).unwrap();
    let first_look = t.elapsed();
    let uids = found[0]["uids"].as_array().unwrap();
    assert_eq!(uids.len(), 10_000);
    assert_eq!(uids.first().unwrap(), 1);
    assert_eq!(uids.last().unwrap(), 10_000);

    // A mail among them found by its subject (read from every header: the
    // fillers say "game" only in their bodies).
    let game = b"From: <ben@example.org>\nSubject: a game mail among many\n\nhello\n";
    dovecot.deliver(ALICE, game);
    let t = Instant::now();
    let found = imap_client(&login, &["search INBOX SUBJECT game"]).unwrap();
    let by_subject = t.elapsed();
    assert_eq!(found[0]["uids"], serde_json::json!([10_001]));
    let subject_seconds = found[0]["seconds"].as_f64().unwrap();
    let t = Instant::now();
    let on_disk = dovecot.messages(ALICE, "INBOX");
    let read = t.elapsed();
    assert_eq!(on_disk.len(), 10_001);
    assert!(
        on_disk
            .iter()
            .enumerate()
            .all(|(i, m)| m.uid == Some(i as u32 + 1))
    );
    assert_eq!(
        on_disk[9_999].header("Subject").as_deref(),
        Some("Unrelated mail number 9999")
    );
    eprintln!(
        "10,000 mails: fill {filled:.2?}; python client, login and SEARCH ALL (Dovecot \
         indexes them on SELECT) {first_look:.2?}; after one more by LMTP, SEARCH SUBJECT \
         {by_subject:.2?} (in Dovecot {subject_seconds:.2} s); messages() {read:.2?}"
    );
}

/// No process outlives the drop: Dovecot's master and every service it
/// started (one IMAP session still open), the SMTP server, the Dropper.
#[test]
fn nothing_outlives_the_drop() {
    let Some(py) = smtp_server::python_or_skip() else {
        return;
    };
    let t = Instant::now();
    let Some(dovecot) = dovecot() else {
        return;
    };
    let started = t.elapsed();
    let dir = tempfile::tempdir().unwrap();
    let server = mx(&py, dir.path(), &dovecot, Mode::Plain);
    let dropper = Dropper::start(dovecot.imap_port(), "FETCH", 10);
    let mut open = RawImap::connect(dropper.port());
    open.command("a1", &format!("LOGIN {ALICE} {ALICE_PASSWORD}"));
    open.command("a2", "SELECT INBOX");
    let mut pids = dovecot.pids();
    assert!(pids.len() >= 5 && pids.contains(&dovecot.pid()), "{pids:?}");
    let names: Vec<String> = pids
        .iter()
        .filter_map(|p| std::fs::read_to_string(format!("/proc/{p}/comm")).ok())
        .collect();
    assert!(
        names.iter().any(|n| n.trim() == "imap"),
        "an IMAP session runs: {names:?}"
    );
    pids.extend([server.pid(), dropper.pid()]);
    let dovecot_dir: PathBuf = dovecot.dir().to_path_buf();

    let t = Instant::now();
    drop(dovecot);
    let stopped = t.elapsed();
    drop(server);
    drop(dropper);
    let left: Vec<u32> = pids.iter().copied().filter(|p| alive(*p)).collect();
    assert!(left.is_empty(), "still running: {left:?}");
    assert!(!dovecot_dir.exists());
    // The open IMAP session is gone with them.
    let mut rest = Vec::new();
    let _ = open.reader.read_to_end(&mut rest);
    eprintln!("Dovecot: started in {started:.2?}, stopped in {stopped:.2?}");
}
