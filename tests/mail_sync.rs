//! `starry sync` against a real IMAP server (Dovecot, tests/imap_server)
//! with mail delivered by the real SMTP test server through LMTP: whole
//! games in which every player only runs `sync` and `play … --mail`, a
//! wrong password, a certificate for another name, a connection dropped
//! in the middle of a fetch, hostile mails, and a local maildir.

mod imap_server;
mod players;
mod smtp_server;

use std::collections::BTreeSet;
use std::path::Path;

use imap_server::{Dovecot, Dropper, Flag, Front};
use players::{Player, Players, stderr, stdout};
use serde_json::Value;
use smtp_server::{Mode, Options, Server};

/// A password each, distinctive so that a leak is easy to find.
fn password(p: &Player) -> String {
    format!("Imap-{}-Zephyr-93-Pa55", p.name)
}

struct World {
    players: Players,
    dovecot: Dovecot,
    smtp: Server,
}

/// `n` players, a Dovecot holding their mailboxes, and the SMTP server
/// delivering to it; each player's settings send through the one and read
/// from the other (implicit TLS, trusting the test CA).
fn world(n: usize) -> Option<World> {
    let py = smtp_server::python_or_skip()?;
    if !imap_server::available_or_skip() {
        return None;
    }
    let mut players = Players::new(n);
    let users: Vec<(String, String)> = players
        .p
        .iter()
        .map(|p| (p.email.clone(), password(p)))
        .collect();
    let refs: Vec<(&str, &str)> = users.iter().map(|(u, p)| (u.as_str(), p.as_str())).collect();
    let dovecot = Dovecot::start(&refs);
    let smtp = Server::start_with(
        &py,
        players.dir.path(),
        &Options {
            lmtp_port: Some(dovecot.lmtp_port()),
            ..Options::new(Mode::Plain)
        },
    );
    for p in &mut players.p {
        let pw = password(p);
        for (k, v) in [
            ("STARRY_MAIL_TRANSPORT", "smtp".to_string()),
            ("STARRY_SMTP_HOST", "127.0.0.1".to_string()),
            ("STARRY_SMTP_PORT", smtp.port.to_string()),
            ("STARRY_SMTP_SECURITY", "none".to_string()),
            ("STARRY_IMAP_HOST", "localhost".to_string()),
            ("STARRY_IMAP_PORT", dovecot.imaps_port().to_string()),
            ("STARRY_IMAP_SECURITY", "tls".to_string()),
            ("STARRY_IMAP_USER", p.email.clone()),
            ("STARRY_IMAP_PASSWORD", pw),
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

fn sync(p: &Player) -> Value {
    let out = p.run(&["sync", "--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{} sync: {}{}",
        p.name,
        stdout(&out),
        stderr(&out)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn your_turns(report: &Value) -> Vec<String> {
    report["your_turn"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["game_id"].as_str().unwrap().to_string())
        .collect()
}

/// Every copy the same, valid and countersigned by all; every starry mail
/// filed in `starry`, seen; none left in any inbox.
fn check_end(w: &World, seats: &[usize], game_id: &str) -> usize {
    let ps: Vec<&Player> = seats.iter().map(|&s| &w.players.p[s]).collect();
    let first = std::fs::read(ps[0].copy_of(game_id)).unwrap();
    for p in &ps {
        assert_eq!(std::fs::read(p.copy_of(game_id)).unwrap(), first, "{}", p.name);
    }
    let a = ps[0].json(&["audit", &game_id[..16], "--json"]);
    assert_eq!(a["valid"], true, "{a}");
    let seats: Vec<u64> = (1..=ps.len() as u64).collect();
    assert_eq!(a["files"][0]["countersigned"], serde_json::json!(seats));
    let mut filed = 0;
    for p in &ps {
        let inbox = w.dovecot.messages(&p.email, "INBOX");
        assert!(inbox.is_empty(), "{} still has {} mails", p.name, inbox.len());
        let taken = w.dovecot.messages(&p.email, "starry");
        assert!(taken.iter().all(|m| m.has(Flag::Seen)));
        // Each mail once: no message id twice.
        let ids: BTreeSet<String> = taken
            .iter()
            .map(|m| m.header("Message-ID").unwrap())
            .collect();
        assert_eq!(ids.len(), taken.len(), "{}: a mail twice", p.name);
        filed += taken.len();
    }
    // The password went nowhere.
    for p in &ps {
        for f in players::walk(&p.home) {
            let b = std::fs::read(&f).unwrap();
            assert!(
                !players::contains_bytes(&b, password(p).as_bytes()),
                "{} holds the password",
                f.display()
            );
        }
    }
    filed
}

#[test]
fn whole_games_by_sync_and_play_alone() {
    let Some(w) = world(3) else { return };
    let sky = play_by_sync(&w, &[0, 1, 2], &["starry-sky", "--players", &w.players.emails()]);
    let filed = check_end(&w, &[0, 1, 2], &sky);
    assert!(filed > 50, "{filed} mails");
    // Two of them play Starry Night on the same accounts.
    let two = format!(
        "{} <{}>,{} <{}>",
        w.players.p[0].name, w.players.p[0].email, w.players.p[1].name, w.players.p[1].email
    );
    let night = play_by_sync(&w, &[0, 1], &["starry-night", "--players", &two]);
    let more = check_end(&w, &[0, 1], &night);
    assert!(more > filed);
    assert!(w.smtp.printed(" accepted"));
}

/// Plays a game from its creation to the last countersignature among the
/// players `seats` (the first creates it), each running only `starry sync`
/// and `starry play ID --auto --mail` (and `countersign ID --mail` at the
/// end, one at a time, each after a sync). Returns the game id.
fn play_by_sync(w: &World, seats: &[usize], new_args: &[&str]) -> String {
    let ps: Vec<&Player> = seats.iter().map(|&s| &w.players.p[s]).collect();
    let out = ps[0].run(&[&["new", "--mail", "--json"][..], new_args].concat());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let rep: Value = serde_json::from_slice(&out.stdout).unwrap();
    let game_id = rep["game_id"].as_str().unwrap().to_string();
    for _ in 0..500 {
        let mut acted = false;
        for p in &ps {
            let report = sync(p);
            assert_eq!(report["unusable"], 0, "{report}");
            for id in your_turns(&report) {
                assert_eq!(id, game_id);
                let out = p.run(&["play", &id[..16], "--auto", "--mail", "--json"]);
                assert_eq!(out.status.code(), Some(0), "{}: {}", p.name, stderr(&out));
                acted = true;
            }
        }
        if ps[0].json(&["status", &game_id[..16], "--json"])["over"] == true {
            for p in &ps {
                sync(p);
                let out = p.run(&["countersign", &game_id[..16], "--mail", "--json"]);
                assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
            }
            for p in &ps {
                sync(p);
            }
            return game_id;
        }
        assert!(acted, "nobody could act");
    }
    panic!("the game does not end");
}

fn settings_file(home: &Path) -> std::path::PathBuf {
    home.join("mail.toml")
}

#[test]
fn a_wrong_password_and_a_certificate_for_another_name() {
    let Some(w) = world(1) else { return };
    let p = &w.players.p[0];
    let wrong = "Wrong-Horse-Battery-77";
    let out = p.run_env(&[("STARRY_IMAP_PASSWORD", wrong)], &["sync"]);
    assert_eq!(out.status.code(), Some(8), "{}", stdout(&out));
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(text.contains("refused the login"), "{text}");
    assert!(text.contains("app password"), "{text}");
    assert!(!text.contains(wrong) && !text.contains(&password(p)), "{text}");

    // Connecting by IP address: the certificate names localhost and
    // 127.0.0.1, so this works; a server whose certificate names another
    // host does not.
    let other = Dovecot::start_with_cert_for(
        "mail.other.example",
        &[(p.email.as_str(), password(p).as_str())],
    );
    let out = p.run_env(
        &[
            ("STARRY_IMAP_PORT", &other.imaps_port().to_string()),
            ("STARRY_IMAP_CA_FILE", other.ca_file().to_str().unwrap()),
        ],
        &["sync"],
    );
    assert_eq!(out.status.code(), Some(8));
    let text = stdout(&out);
    assert!(text.contains("not valid for this host name"), "{text}");
    // A plain port for TLS, and nobody listening.
    let out = p.run_env(
        &[("STARRY_IMAP_PORT", &w.dovecot.imap_port().to_string())],
        &["sync"],
    );
    assert_eq!(out.status.code(), Some(8));
    assert!(stdout(&out).contains("TLS"), "{}", stdout(&out));
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let out = p.run_env(&[("STARRY_IMAP_PORT", &port.to_string())], &["sync"]);
    assert_eq!(out.status.code(), Some(8));
    assert!(stdout(&out).contains("connection refused"), "{}", stdout(&out));
    // STARTTLS on the plain port works too.
    let out = p.run_env(
        &[
            ("STARRY_IMAP_PORT", &w.dovecot.imap_port().to_string()),
            ("STARRY_IMAP_SECURITY", "starttls"),
        ],
        &["sync", "--json"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(!settings_file(&p.home).exists());
}

/// Mails made by a two-player game played by hand through the outbox:
/// (recipient index, raw mail) in the order they were written.
fn outbox_mails(ps: &Players, game: &[&str], moves: usize) -> Vec<(usize, Vec<u8>)> {
    let a = &ps.p[0];
    let out = a.run(&[&["new", "--mail", "--json"][..], game].concat());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let id = serde_json::from_slice::<Value>(&out.stdout).unwrap()["game_id"]
        .as_str()
        .unwrap()
        .to_string();
    let mut mails = Vec::new();
    let mut seen = BTreeSet::new();
    let mut collect = |ps: &Players, mails: &mut Vec<(usize, Vec<u8>)>| {
        for (i, p) in ps.p.iter().enumerate() {
            for f in p.outbox() {
                if seen.insert(f.clone()) {
                    let raw = std::fs::read(&f).unwrap();
                    let to = players::parse_mail(&raw).to;
                    let _ = i;
                    mails.push((ps.seat_of(&to), raw));
                }
            }
        }
    };
    collect(ps, &mut mails);
    for _ in 0..moves {
        for (r, raw) in mails.clone() {
            let f = ps.p[r].home.join("in.eml");
            std::fs::write(&f, &raw).unwrap();
            let _ = ps.p[r].run(&["ingest", f.to_str().unwrap()]);
        }
        for p in &ps.p {
            let _ = p.run(&["play", &id[..16], "--auto", "--mail"]);
        }
        collect(ps, &mut mails);
    }
    mails
}

#[test]
fn a_connection_dropped_in_mid_fetch_loses_nothing_and_doubles_nothing() {
    let Some(w) = world(2) else { return };
    // Ben's mails, made through outboxes, delivered into his inbox.
    let makers = Players::new(2);
    let mails = outbox_mails(
        &makers,
        &["starry-night", "--players", &makers.emails()],
        3,
    );
    let ben = &w.players.p[1];
    let for_ben: Vec<&Vec<u8>> = mails.iter().filter(|(r, _)| *r == 1).map(|(_, m)| m).collect();
    assert!(for_ben.len() >= 3, "{} mails", for_ben.len());
    for m in &for_ben {
        w.dovecot.deliver(&ben.email, m);
    }
    // Cut the connection in the middle of the second mail's fetch.
    let cut = for_ben[0].len() + for_ben[1].len() / 2;
    let dropper = Dropper::start_for(&w.dovecot, Front::Tls, "BODY.PEEK[]", cut);
    let out = ben.run_env(
        &[("STARRY_IMAP_PORT", &dropper.port().to_string())],
        &["sync", "--json"],
    );
    assert_eq!(out.status.code(), Some(8), "{}", stdout(&out));
    let first: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(first["stopped"].as_str().unwrap().contains("lost"), "{first}");
    let taken_first = first["taken"].as_u64().unwrap() as usize;
    assert!((1..for_ben.len()).contains(&taken_first), "{first}");
    // Again, through the proxy (which now lets everything through).
    let out = ben.run_env(
        &[("STARRY_IMAP_PORT", &dropper.port().to_string())],
        &["sync", "--json"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let second: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        taken_first + second["taken"].as_u64().unwrap() as usize,
        for_ben.len(),
        "{first}\n{second}"
    );
    assert!(w.dovecot.messages(&ben.email, "INBOX").is_empty());
    assert_eq!(w.dovecot.messages(&ben.email, "starry").len(), for_ben.len());
    // A third sync finds nothing new.
    let third = sync(ben);
    assert_eq!(third["mails"].as_array().unwrap().len(), 0, "{third}");
}

#[test]
fn hostile_mails_stay_in_the_inbox_flagged_and_are_not_read_again() {
    let Some(w) = world(1) else { return };
    let p = &w.players.p[0];
    let makers = Players::new(2);
    let mails = outbox_mails(
        &makers,
        &["starry-night", "--players", &makers.emails()],
        2,
    );
    let good = &mails.iter().find(|(r, _)| *r == 1).unwrap().1;
    let text = String::from_utf8_lossy(good).to_string();
    let no_log = b"From: x@example.org\r\nTo: anna@example.org\r\nSubject: [starry] hello\r\n\r\nno log here\r\n".to_vec();
    // A byte of the attached log changed (base64 of a different entry).
    let mut tampered = good.clone();
    let at = text.find("application/x-ndjson").unwrap() + 400;
    tampered[at] = if tampered[at] == b'A' { b'B' } else { b'A' };
    let truncated = good[..good.len() / 2].to_vec();
    let mut huge = b"From: x@example.org\r\nTo: anna@example.org\r\nSubject: [starry] big\r\n\r\n".to_vec();
    huge.extend(std::iter::repeat_n(b'x', 17 * 1024 * 1024));
    huge.extend(b"\r\n");
    let unrelated = b"From: y@example.org\r\nTo: anna@example.org\r\nSubject: lunch?\r\n\r\nat noon\r\n".to_vec();
    for m in [&no_log, &tampered, &truncated, &huge, &unrelated] {
        w.dovecot.deliver(&p.email, m);
    }
    let out = p.run(&["sync", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["taken"], 0, "{r}");
    assert_eq!(r["unusable"], 4, "{r}");
    for m in r["mails"].as_array().unwrap() {
        assert_eq!(m["outcome"], "unusable");
        assert!(!m["detail"].as_str().unwrap().is_empty());
        assert_ne!(m["code"], 0);
    }
    let inbox = w.dovecot.messages(&p.email, "INBOX");
    assert_eq!(inbox.len(), 5);
    let flagged = inbox.iter().filter(|m| m.has(Flag::Flagged)).count();
    assert_eq!(flagged, 4, "the unrelated mail is left alone");
    assert!(inbox.iter().all(|m| !m.has(Flag::Deleted)));
    // Not read again.
    let again = sync(p);
    assert_eq!(again["mails"].as_array().unwrap().len(), 0, "{again}");
    // The text report names each reason on one line.
    let _ = text;
}

#[test]
fn a_local_maildir_works_the_same() {
    let Some(_) = smtp_server::python_or_skip() else { return };
    let makers = Players::new(2);
    let mails = outbox_mails(
        &makers,
        &["starry-night", "--players", &makers.emails()],
        2,
    );
    let ben = &makers.p[1];
    let md = makers.dir.path().join("Maildir");
    for sub in ["new", "cur", "tmp"] {
        std::fs::create_dir_all(md.join(sub)).unwrap();
    }
    let for_ben: Vec<&Vec<u8>> = mails.iter().filter(|(r, _)| *r == 1).map(|(_, m)| m).collect();
    for (i, m) in for_ben.iter().enumerate() {
        std::fs::write(md.join("new").join(format!("100{i}.m{i}.host")), m).unwrap();
    }
    std::fs::write(md.join("new/2000.junk.host"), b"Subject: hi\n\nnothing\n").unwrap();
    std::fs::write(
        md.join("cur/2001.bad.host:2,S"),
        b"Subject: [starry] broken\n\n-----BEGIN STARRY LOG-----\nnot base64 at all\n",
    )
    .unwrap();
    let out = ben.run(&["sync", "--maildir", md.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["taken"].as_u64().unwrap() as usize, for_ben.len(), "{r}");
    assert_eq!(r["unusable"], 1, "{r}");
    let filed: Vec<_> = std::fs::read_dir(md.join(".starry/cur")).unwrap().flatten().collect();
    assert_eq!(filed.len(), for_ben.len());
    assert!(
        filed
            .iter()
            .all(|f| f.file_name().to_string_lossy().ends_with(":2,S"))
    );
    assert!(md.join("cur/2001.bad.host:2,FS").exists());
    assert!(md.join("new/2000.junk.host").exists(), "left alone");
    let again = ben.json(&["sync", "--maildir", md.to_str().unwrap(), "--json"]);
    assert_eq!(again["mails"].as_array().unwrap().len(), 0, "{again}");
}
