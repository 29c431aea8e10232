//! `starry robot --imap` (and `--watch`) against the real Dovecot, its mail
//! arriving through the real SMTP server acting as the robot's own mail
//! server: it stamps `Authentication-Results` (authserv-id
//! [`AUTHSERV`]: `spf=pass` for a sender that logged in as itself, else
//! `spf=none`) and removes forged ones. A whole game of Starry Night
//! between a person (who only runs `sync` and `play --mail`) and the robot;
//! a stranger's game listing victims; and `sync --watch` and `robot --imap
//! --watch` taking mail as it arrives.

use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::imap_server::{self, Dovecot, Flag};
use crate::players::{self, Player, Players, stderr, stdout};
use crate::smtp_server::{self, Mode, Options, Server};
use serde_json::Value;

const AUTHSERV: &str = "mx.starry.test";

fn password(email: &str) -> String {
    format!("Robot-World-{}-Pa55", email.split('@').next().unwrap())
}

struct World {
    /// Anna (a person), Robo (the robot's identity), Mallory (a stranger).
    players: Players,
    dovecot: Dovecot,
    smtp: Server,
}

fn world() -> Option<World> {
    let py = smtp_server::python_or_skip()?;
    if !imap_server::available_or_skip() {
        return None;
    }
    let mut players = Players::new(2);
    // The second identity is the robot's; a third is a stranger.
    let mallory = Player {
        name: "Mallory".into(),
        email: "mallory@example.org".into(),
        home: players.dir.path().join("mallory"),
        env: Vec::new(),
    };
    assert!(
        mallory
            .run(&["id", "new", "--name", "Mallory", "--email", &mallory.email])
            .status
            .success()
    );
    players.p.push(mallory);
    let accounts: Vec<(String, String)> = players
        .p
        .iter()
        .map(|p| (p.email.clone(), password(&p.email)))
        .collect();
    let mut users = accounts.clone();
    // Mailboxes for the victims of the stranger's game too.
    for v in ["victim1@example.org", "victim2@example.org"] {
        users.push((v.to_string(), password(v)));
    }
    let refs: Vec<(&str, &str)> = users
        .iter()
        .map(|(u, p)| (u.as_str(), p.as_str()))
        .collect();
    let dovecot = Dovecot::start(&refs);
    let smtp = Server::start_with(
        &py,
        players.dir.path(),
        &Options {
            accounts: Some(accounts),
            auth_optional: true,
            lmtp_port: Some(dovecot.lmtp_port()),
            authserv_id: Some(AUTHSERV.to_string()),
            ..Options::new(Mode::Plain)
        },
    );
    for p in &mut players.p {
        let pw = password(&p.email);
        for (k, v) in [
            ("STARRY_MAIL_TRANSPORT", "smtp".to_string()),
            ("STARRY_SMTP_HOST", "127.0.0.1".to_string()),
            ("STARRY_SMTP_PORT", smtp.port.to_string()),
            ("STARRY_SMTP_SECURITY", "none".to_string()),
            ("STARRY_SMTP_USER", p.email.clone()),
            ("STARRY_SMTP_PASSWORD", pw),
            ("STARRY_IMAP_HOST", "localhost".to_string()),
            ("STARRY_IMAP_PORT", dovecot.imaps_port().to_string()),
            (
                "STARRY_IMAP_CA_FILE",
                dovecot.ca_file().display().to_string(),
            ),
        ] {
            p.env.push((k.to_string(), v));
        }
    }
    Some(World {
        players,
        dovecot,
        smtp,
    })
}

fn robot_run(robo: &Player) -> Value {
    let out = robo.run(&["robot", "--imap", "--authserv-id", AUTHSERV, "--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_whole_game_against_the_robot_over_imap() {
    let Some(w) = world() else { return };
    let (anna, robo) = (&w.players.p[0], &w.players.p[1]);
    let out = anna.run(&[
        "new",
        "starry-night",
        "--players",
        &format!("Anna <{}>,Robo <{}>", anna.email, robo.email),
        "--mail",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let game_id = serde_json::from_slice::<Value>(&out.stdout).unwrap()["status"]["game_id"]
        .as_str()
        .unwrap()
        .to_string();
    let mut played = 0;
    for _ in 0..200 {
        let r = robot_run(robo);
        played += r["played"].as_u64().unwrap();
        assert_eq!(r["refused"], 0, "{r}");
        let s = anna.json(&["sync", "--json"]);
        assert_eq!(s["unusable"], 0, "{s}");
        for g in s["your_turn"].as_array().unwrap() {
            let id = g["game_id"].as_str().unwrap();
            let out = anna.run(&["play", &id[..16], "--auto", "--mail"]);
            assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        }
        if anna.json(&["status", &game_id[..16], "--json"])["over"] == true {
            break;
        }
    }
    assert!(played > 3, "the robot played {played} times");
    // Countersigning: the robot first or Anna first, both end with the
    // same countersigned log.
    anna.run(&["countersign", &game_id[..16], "--mail"]);
    robot_run(robo);
    anna.json(&["sync", "--json"]);
    // When both countersigned the same entry at once (the robot took
    // Anna's last move before her countersignature) and the robot's won
    // by id (protocol §7), Anna's sync wrote hers again on top and says to
    // mail the log on: she does, and the robot takes it.
    if std::fs::read(robo.copy_of(&game_id)).unwrap()
        != std::fs::read(anna.copy_of(&game_id)).unwrap()
    {
        let out = anna.run(&["mail", &game_id[..16]]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        robot_run(robo);
    }
    let log = std::fs::read(anna.copy_of(&game_id)).unwrap();
    assert_eq!(std::fs::read(robo.copy_of(&game_id)).unwrap(), log);
    let a = anna.json(&["audit", anna.copy_of(&game_id).to_str().unwrap(), "--json"]);
    assert_eq!(
        a["files"][0]["countersigned"],
        serde_json::json!([0, 1]),
        "{a}"
    );
    // The robot's inbox is empty: every mail it handled is filed away.
    assert!(w.dovecot.messages(&robo.email, "INBOX").is_empty());
    assert!(!w.dovecot.messages(&robo.email, "starry").is_empty());
    // Every mail it sent says it is automatic (RFC 3834).
    for m in w.dovecot.messages(&anna.email, "starry") {
        if m.header("From").is_some_and(|f| f.contains(&robo.email)) {
            assert_eq!(m.header("Auto-Submitted").as_deref(), Some("auto-replied"));
        }
    }
}

#[test]
fn a_stranger_over_imap_makes_it_mail_nobody() {
    let Some(w) = world() else { return };
    let (robo, mallory) = (&w.players.p[1], &w.players.p[2]);
    // Mallory lists two victims and the robot, and mails the invitation
    // through the robot's server without logging in (spf=none) and with
    // a forged Authentication-Results of the robot's server.
    let game = w.players.dir.path().join("mallory.jsonl");
    let out = mallory.run(&[
        "new",
        "starry-sky",
        "--players",
        &format!(
            "Mallory <{}>,Buy Pills Now <victim1@example.org>,Cheap Rolex <victim2@example.org>,Robo <{}>",
            mallory.email, robo.email
        ),
        "--out",
        game.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let log = std::fs::read(&game).unwrap();
    let forged = format!(
        "Authentication-Results: {AUTHSERV}; spf=pass smtp.mailfrom={m}; dmarc=pass header.from=example.org\r\n\
         From: Mallory <{m}>\r\nTo: Robo <{r}>\r\nSubject: [starry] Starry Sky\r\n\
         Message-ID: <forged@example.org>\r\n\r\nJoin!\r\n\r\n{}\r\n",
        starry::mail::armor(&log).replace('\n', "\r\n"),
        m = mallory.email,
        r = robo.email
    );
    send_unauthenticated(&w.smtp, &mallory.email, &robo.email, forged.as_bytes());
    let arrived = w.dovecot.messages(&robo.email, "INBOX");
    assert_eq!(arrived.len(), 1);
    let ar = arrived[0].headers("Authentication-Results");
    assert!(
        ar.iter().all(|h| !h.contains("spf=pass")),
        "the forged header survived: {ar:?}"
    );
    let before = w.smtp.messages().len();
    let r = robot_run(robo);
    assert_eq!(r["played"], 0, "{r}");
    assert_eq!(r["mails"][0]["outcome"], "refused", "{r}");
    assert_eq!(w.smtp.messages().len(), before, "the robot mailed someone");
    for v in ["victim1@example.org", "victim2@example.org"] {
        assert!(w.dovecot.messages(v, "INBOX").is_empty(), "{v} got mail");
    }
    // Refused for good: flagged in the inbox, never read again.
    let inbox = w.dovecot.messages(&robo.email, "INBOX");
    assert!(inbox[0].has(Flag::Flagged));
    let again = robot_run(robo);
    assert_eq!(again["mails"].as_array().unwrap().len(), 0, "{again}");
    assert!(
        !robo.home.join("games").exists() || players::walk(&robo.home.join("games")).is_empty()
    );
    // Both runs logged out of their IMAP session.
    super::login::assert_logged_out(&w.dovecot, &robo.email, 2);
}

/// Hands `raw` to the SMTP server without logging in.
fn send_unauthenticated(smtp: &Server, from: &str, to: &str, raw: &[u8]) {
    use std::io::{BufRead, BufReader, Write};
    let s = std::net::TcpStream::connect(("127.0.0.1", smtp.port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut r = BufReader::new(s.try_clone().unwrap());
    let mut w = s;
    let mut expect = |code: &str| loop {
        let mut line = String::new();
        r.read_line(&mut line).unwrap();
        assert!(line.starts_with(code), "SMTP said {line}");
        if line.as_bytes().get(3) == Some(&b' ') {
            break;
        }
    };
    expect("220");
    for (cmd, code) in [
        ("EHLO stranger.example".to_string(), "250"),
        (format!("MAIL FROM:<{from}>"), "250"),
        (format!("RCPT TO:<{to}>"), "250"),
        ("DATA".to_string(), "354"),
    ] {
        w.write_all(format!("{cmd}\r\n").as_bytes()).unwrap();
        expect(code);
    }
    w.write_all(raw).unwrap();
    w.write_all(b"\r\n.\r\n").unwrap();
    expect("250");
    w.write_all(b"QUIT\r\n").unwrap();
}

/// A child process killed when dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spawn(p: &Player, args: &[&str]) -> Running {
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("starry"));
    for v in starry::mail::transport::ENV_VARS {
        c.env_remove(v);
    }
    c.env("STARRY_HOME", &p.home);
    for (k, v) in &p.env {
        c.env(k, v);
    }
    c.args(args).stdout(Stdio::null()).stderr(Stdio::null());
    Running(c.spawn().unwrap())
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !done() {
        assert!(Instant::now() < deadline, "waited a minute for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn games_in(home: &Path) -> usize {
    std::fs::read_dir(home.join("games")).map_or(0, |d| d.count())
}

#[test]
fn watching_takes_mail_as_it_arrives() {
    let Some(w) = world() else { return };
    let (anna, robo) = (&w.players.p[0], &w.players.p[1]);
    let _robot = spawn(
        robo,
        &["robot", "--imap", "--watch", "--authserv-id", AUTHSERV],
    );
    let _sync = spawn(anna, &["sync", "--watch"]);
    // Anna invites the robot; the watching robot joins, and its mail
    // reaches Anna's watching sync, which takes it.
    let out = anna.run(&[
        "new",
        "starry-night",
        "--players",
        &format!("Anna <{}>,Robo <{}>", anna.email, robo.email),
        "--mail",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let game_id = serde_json::from_slice::<Value>(&out.stdout).unwrap()["status"]["game_id"]
        .as_str()
        .unwrap()
        .to_string();
    wait_for("the robot to take the invitation", || {
        games_in(&robo.home) == 1
    });
    wait_for("the robot's join to reach Anna's copy", || {
        let s = anna.json(&["status", &game_id[..16], "--json"]);
        s["entries"].as_u64().unwrap() > 2
    });
    wait_for("Anna's inbox to be emptied", || {
        w.dovecot.messages(&anna.email, "INBOX").is_empty()
            && !w.dovecot.messages(&anna.email, "starry").is_empty()
    });
}
