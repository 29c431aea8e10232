//! Sending failures through the real binary against the real SMTP server:
//! a wrong password, nobody listening, a server that hangs up in the middle
//! of the message. Each time: a clear error naming the server and the cause,
//! exit code 5, the entry kept in the log, the mail kept in the pending
//! folder, `starry mail --retry` sending it once the server is back — and
//! the password nowhere (output, files, the server's log).
//!
//! Fails when python3 with aiosmtpd is missing, unless
//! STARRY_SKIP_SMTP_TESTS=1 (a loud skip).

use crate::players;
use crate::smtp_server;

use std::path::Path;

use players::*;
use serde_json::Value;
use smtp_server::*;

/// A game in `dir/game.jsonl`, shared by the three players (no mail yet):
/// created by Anna, waiting for Ben to join. Anna asks for turn mails only,
/// so that each entry makes exactly one mail (to the next player), which is
/// what these failure tests count.
fn game(players: &Players) -> std::path::PathBuf {
    let log = players.dir.path().join("game.jsonl");
    let out = players.p[0].run(&[
        "new",
        "starry-sky",
        "--players",
        &players.emails(),
        "--out",
        log.to_str().unwrap(),
        "--notify",
        "turn",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    log
}

fn entries(log: &Path) -> usize {
    std::fs::read(log)
        .unwrap()
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

fn assert_no_password(what: &str, text: &str) {
    for p in [PASSWORD, WRONG_PASSWORD] {
        assert!(!text.contains(p), "a password leaked into {what}: {text}");
    }
}

fn assert_no_password_on_disk(dir: &Path) {
    for f in walk(dir) {
        let b = String::from_utf8_lossy(&std::fs::read(&f).unwrap()).to_string();
        assert_no_password(&f.display().to_string(), &b);
    }
}

/// The one message the server holds carries exactly `log`, sent to `to`.
fn assert_delivered(server: &Server, log: &Path, to: &str) {
    let msgs = server.messages();
    assert_eq!(msgs.len(), 1, "one message delivered");
    let (rcpt, _, _) = mail_headers(&msgs[0]);
    assert_eq!(rcpt, to);
    assert_eq!(
        starry::mail::extract_logs(&msgs[0], 1 << 24).unwrap(),
        vec![std::fs::read(log).unwrap()]
    );
}

#[test]
fn wrong_password_keeps_the_entry_and_the_mail_until_retry() {
    let Some(py) = python_for_tls_or_skip() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&py, dir.path(), Mode::Starttls, 0);
    let (cert, _) = certificate(dir.path());
    let mut players = Players::new(3);
    let port = server.port.to_string();
    players.set_env(&[
        ("STARRY_SMTP_HOST", "127.0.0.1"),
        ("STARRY_SMTP_PORT", &port),
        ("STARRY_SMTP_USER", USER),
        ("STARRY_SMTP_CA_FILE", cert.to_str().unwrap()),
    ]);
    let log = game(&players);
    let ben = &players.p[1];

    let before = entries(&log);
    let out = ben.run_env(
        &[("STARRY_SMTP_PASSWORD", WRONG_PASSWORD)],
        &["join", log.to_str().unwrap(), "--mail"],
    );
    let (o, e) = (stdout(&out), stderr(&out));
    eprintln!("wrong password, stderr: {e}");
    assert_eq!(out.status.code(), Some(5), "{o}{e}");
    assert_no_password("stdout", &o);
    assert_no_password("stderr", &e);
    assert_eq!(entries(&log), before + 1, "the entry is written and kept");
    assert!(
        e.contains(&format!("entry {before} is written to")) && e.contains("and kept"),
        "{e}"
    );
    assert!(
        e.contains(&format!(
            "authentication failed for user {USER} at 127.0.0.1:{port}"
        )),
        "{e}"
    );
    assert!(e.contains("starry mail --retry"), "{e}");
    assert_eq!(ben.pending().len(), 1);
    assert!(e.contains(&ben.pending()[0].display().to_string()), "{e}");

    // `starry mail FILE` (sending the log again) fails the same way, with a
    // JSON report naming the pending copy.
    let out = ben.run_env(
        &[("STARRY_SMTP_PASSWORD", WRONG_PASSWORD)],
        &["mail", log.to_str().unwrap(), "--json"],
    );
    assert_eq!(out.status.code(), Some(5), "{}", stderr(&out));
    assert_no_password("stdout", &stdout(&out));
    assert_no_password("stderr", &stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let failed = &v["failed"][0];
    assert_eq!(failed["to"], "cleo@example.org");
    assert!(failed["pending"].is_string(), "{v}");
    assert!(failed["error"].as_str().unwrap().contains("authentication"));
    assert_eq!(ben.pending().len(), 2);
    assert!(server.messages().is_empty());

    // A retry with the wrong password still fails, and keeps both.
    let out = ben.run_env(
        &[("STARRY_SMTP_PASSWORD", WRONG_PASSWORD)],
        &["mail", "--retry"],
    );
    assert_eq!(out.status.code(), Some(5), "{}", stderr(&out));
    assert!(stderr(&out).contains("still pending"), "{}", stderr(&out));
    assert_no_password("stderr", &stderr(&out));
    assert_eq!(ben.pending().len(), 2);

    // With the right password both go, oldest first.
    let out = ben.run_env(
        &[("STARRY_SMTP_PASSWORD", PASSWORD)],
        &["mail", "--retry", "--json"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["sent"].as_array().unwrap().len(), 2);
    assert!(ben.pending().is_empty());
    let msgs = server.messages();
    assert_eq!(msgs.len(), 2);
    for m in &msgs {
        assert_eq!(
            starry::mail::extract_logs(m, 1 << 24).unwrap(),
            vec![std::fs::read(&log).unwrap()]
        );
        assert_eq!(mail_headers(m).0, "cleo@example.org");
    }
    assert_no_password_on_disk(&ben.home);
    assert_no_password("the server's log", &server.output());

    // Nothing left: a second retry says so.
    let out = ben.run_env(&[("STARRY_SMTP_PASSWORD", PASSWORD)], &["mail", "--retry"]);
    assert!(out.status.success());
    assert!(
        stdout(&out).contains("Nothing is waiting"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn connection_refused_keeps_the_mail_until_a_server_listens() {
    let Some(py) = python_or_skip() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut players = Players::new(3);
    let port = free_port();
    let port_s = port.to_string();
    players.set_env(&[
        ("STARRY_SMTP_HOST", "127.0.0.1"),
        ("STARRY_SMTP_PORT", &port_s),
        ("STARRY_SMTP_SECURITY", "none"),
    ]);
    let log = game(&players);
    let ben = &players.p[1];

    let out = ben.run(&["join", log.to_str().unwrap(), "--mail"]);
    let e = stderr(&out);
    eprintln!("connection refused, stderr: {e}");
    assert_eq!(out.status.code(), Some(5), "{e}");
    assert!(
        e.contains(&format!("connection refused by 127.0.0.1:{port}")),
        "{e}"
    );
    assert!(
        e.contains("entry 2 is written to") && e.contains("kept"),
        "{e}"
    );
    assert!(e.contains("starry mail --retry"), "{e}");
    assert_eq!(entries(&log), 3);
    assert_eq!(ben.pending().len(), 1);
    // The text output still reports the entry written.
    assert!(
        stdout(&out).contains("Entry 2: Ben — joined"),
        "{}",
        stdout(&out)
    );

    // Still nobody there.
    let out = ben.run(&["mail", "--retry"]);
    assert_eq!(out.status.code(), Some(5));
    assert!(
        stderr(&out).contains("connection refused"),
        "{}",
        stderr(&out)
    );
    assert_eq!(ben.pending().len(), 1);

    // Without a transport (the settings gone), a retry would only move the
    // mail to the outbox and forget it: refused, the mail stays pending.
    let out = ben.run_env(&[("STARRY_MAIL_TRANSPORT", "outbox")], &["mail", "--retry"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("nothing can be sent"),
        "{}",
        stderr(&out)
    );
    assert_eq!(ben.pending().len(), 1);
    assert!(ben.outbox().is_empty());

    // The server comes up on that port: the retry sends it.
    let server = Server::start(&py, dir.path(), Mode::Plain, port);
    let out = ben.run(&["mail", "--retry"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("sent through 127.0.0.1"),
        "{}",
        stdout(&out)
    );
    assert!(ben.pending().is_empty());
    assert_delivered(&server, &log, "cleo@example.org");

    // Cleo receives it and plays on.
    let cleo = &players.p[2];
    let f = dir.path().join("turn.eml");
    std::fs::write(&f, &server.messages()[0]).unwrap();
    let v = cleo.json(&["ingest", f.to_str().unwrap(), "--json"]);
    assert_eq!(v["outcome"], "created");
    assert_eq!(v["your_turn"], true);
}

#[test]
fn a_server_that_drops_the_connection_mid_message() {
    let Some(py) = python_or_skip() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let dropper = Server::start(&py, dir.path(), Mode::Drop, 0);
    let port = dropper.port;
    let mut players = Players::new(3);
    let port_s = port.to_string();
    players.set_env(&[
        ("STARRY_SMTP_HOST", "127.0.0.1"),
        ("STARRY_SMTP_PORT", &port_s),
        ("STARRY_SMTP_SECURITY", "none"),
    ]);
    let log = game(&players);
    let ben = &players.p[1];

    let out = ben.run(&["join", log.to_str().unwrap(), "--mail"]);
    let e = stderr(&out);
    eprintln!("dropped, stderr: {e}");
    assert_eq!(out.status.code(), Some(5), "{e}");
    assert!(e.contains("dropped"), "{e}");
    assert!(e.contains(&format!("127.0.0.1:{port}")), "{e}");
    assert!(e.contains("starry mail --retry"), "{e}");
    assert!(dropper.printed("DROPPED"));
    assert!(dropper.messages().is_empty());
    assert_eq!(entries(&log), 3, "the entry is kept");
    assert_eq!(ben.pending().len(), 1);
    drop(dropper);

    let server = Server::start(&py, dir.path(), Mode::Plain, port);
    let out = ben.run(&["mail", "--retry"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(ben.pending().is_empty());
    assert_delivered(&server, &log, "cleo@example.org");
}

#[test]
fn broken_mail_settings_stop_the_command_before_anything_is_written() {
    // Needs no server: the settings are checked before the entry is written.
    let mut players = Players::new(3);
    let log = game(&players);
    let before = std::fs::read(&log).unwrap();
    players.set_env(&[("STARRY_SMTP_SECURITY", "maybe")]);
    let out = players.p[1].run(&["join", log.to_str().unwrap(), "--mail"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("STARRY_SMTP_SECURITY"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("Nothing was written"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(&log).unwrap(), before);

    // A password in a mail.toml that others can read is refused, naming
    // the fix, and not echoed; so is one outside [smtp] and [imap].
    use std::os::unix::fs::PermissionsExt as _;
    let home = &players.p[1].home;
    let settings = home.join("mail.toml");
    for (text, mode, says) in [
        (
            "[smtp]\nhost = \"127.0.0.1\"\npassword = \"Plain-Text-Pa55word-q02\"\n",
            0o644,
            "chmod 600",
        ),
        (
            "pass = \"Plain-Text-Pa55word-q02\"\n[smtp]\nhost = \"127.0.0.1\"\n",
            0o600,
            "outside the two places",
        ),
    ] {
        std::fs::write(&settings, text).unwrap();
        std::fs::set_permissions(&settings, std::fs::Permissions::from_mode(mode)).unwrap();
        let out = players.p[1].run_env(
            &[("STARRY_SMTP_SECURITY", "")],
            &["join", log.to_str().unwrap(), "--mail"],
        );
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(stderr(&out).contains(says), "{}", stderr(&out));
        assert!(!stderr(&out).contains("Plain-Text-Pa55word-q02"));
        assert_eq!(std::fs::read(&log).unwrap(), before);
    }
}

#[test]
fn without_settings_the_mail_goes_to_the_outbox() {
    let players = Players::new(3);
    let log = game(&players);
    let ben = &players.p[1];
    let out = ben.run(&["join", log.to_str().unwrap(), "--mail", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let sent = &v["mail"]["sent"][0];
    assert_eq!(sent["via"], "outbox");
    assert_eq!(sent["to"], "cleo@example.org");
    let eml = std::fs::read(sent["path"].as_str().unwrap()).unwrap();
    assert_eq!(ben.outbox().len(), 1);
    assert_eq!(
        starry::mail::extract_logs(&eml, 1 << 24).unwrap(),
        vec![std::fs::read(&log).unwrap()]
    );
    // When the one to act next is the writer again (Cleo joins last and
    // then gives the first ready), no turn mail goes out and the output
    // says so; Ben, who wants every report, hears of the join.
    let cleo = &players.p[2];
    let out = cleo.run(&["join", log.to_str().unwrap(), "--mail"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("It is your own turn again (ready)"),
        "{}",
        stdout(&out)
    );
    let outbox = cleo.outbox();
    assert_eq!(outbox.len(), 1, "one report, no turn mail");
    let (to, subject, _) = mail_headers(&std::fs::read(&outbox[0]).unwrap());
    assert_eq!(to, "ben@example.org");
    assert!(subject.starts_with("Re: [starry] Starry Sky "), "{subject}");
    // `starry mail` with neither a file nor --retry is a usage error.
    let out = cleo.run(&["mail"]);
    assert_eq!(out.status.code(), Some(2));
}
