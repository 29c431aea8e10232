//! `starry sync` and `starry mail setup` against the real IMAP server
//! (Dovecot) with mail delivered by the real SMTP test server through LMTP:
//! whole games in which every player only runs `sync` and `play … --mail`,
//! a wrong password, a certificate for another name, a connection dropped
//! in the middle of a fetch, hostile mails, and a local maildir.

use std::collections::BTreeSet;
use std::path::Path;

use crate::imap_server::{self, Dovecot, Dropper, Flag, Front};
use crate::players::{self, Player, Players, stderr, stdout};
use crate::smtp_server::{self, Mode, Options, Server};
use serde_json::Value;

/// A password each, distinctive so that a leak is easy to find.
fn password(p: &Player) -> String {
    format!("Imap-{}-Zephyr-93-Pa55", p.name)
}

struct World {
    players: Players,
    dovecot: Dovecot,
    /// Kept running for as long as the world lives.
    _smtp: Server,
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
    let refs: Vec<(&str, &str)> = users
        .iter()
        .map(|(u, p)| (u.as_str(), p.as_str()))
        .collect();
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
        _smtp: smtp,
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

/// Every copy the same, valid and countersigned by all; every starry mail
/// filed in `starry`, seen; none left in any inbox.
fn check_end(w: &World, seats: &[usize], game_id: &str) -> usize {
    let ps: Vec<&Player> = seats.iter().map(|&s| &w.players.p[s]).collect();
    let first = std::fs::read(ps[0].copy_of(game_id)).unwrap();
    for p in &ps {
        assert_eq!(
            std::fs::read(p.copy_of(game_id)).unwrap(),
            first,
            "{}",
            p.name
        );
    }
    let copy = ps[0].copy_of(game_id);
    let a = ps[0].json(&["audit", copy.to_str().unwrap(), "--json"]);
    assert_eq!(a["valid"], true, "{a}");
    let seats: Vec<u64> = (0..ps.len() as u64).collect();
    assert_eq!(a["files"][0]["countersigned"], serde_json::json!(seats));
    let mut filed = 0;
    for p in &ps {
        let inbox = w.dovecot.messages(&p.email, "INBOX");
        assert!(
            inbox.is_empty(),
            "{} still has {} mails",
            p.name,
            inbox.len()
        );
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
    let sky = play_by_sync(
        &w,
        &[0, 1, 2],
        &["starry-sky", "--players", &w.players.emails()],
    );
    let filed = check_end(&w, &[0, 1, 2], &sky);
    assert!(filed > 50, "{filed} mails");
    // Two of them play Starry Night on the same accounts.
    let two = format!(
        "{} <{}>,{} <{}>",
        w.players.p[0].name, w.players.p[0].email, w.players.p[1].name, w.players.p[1].email
    );
    let night = play_by_sync(&w, &[0, 1], &["starry-night", "--players", &two]);
    let two_filed = check_end(&w, &[0, 1], &night);
    assert!(two_filed > 20, "{two_filed} mails");
}

/// Plays a game from its creation to the last countersignature among the
/// players `seats` (the first creates it), each running only `starry sync`
/// and `starry play ID --auto --mail` (and, at the end, the countersign
/// command their sync lists, one at a time). Returns the game id.
fn play_by_sync(w: &World, seats: &[usize], new_args: &[&str]) -> String {
    let ps: Vec<&Player> = seats.iter().map(|&s| &w.players.p[s]).collect();
    let out = ps[0].run(&[&["new", "--mail", "--json"][..], new_args].concat());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let rep: Value = serde_json::from_slice(&out.stdout).unwrap();
    let game_id = rep["status"]["game_id"].as_str().unwrap().to_string();
    for _ in 0..500 {
        let mut acted = false;
        for p in &ps {
            let report = sync(p);
            assert_eq!(report["unusable"], 0, "{report}");
            for g in report["your_turn"].as_array().unwrap() {
                // Countersignatures come after the end, below.
                if g["action"] == "countersign" {
                    continue;
                }
                let id = g["game_id"].as_str().unwrap();
                assert_eq!(id, game_id);
                let out = p.run(&["play", &id[..16], "--auto", "--mail", "--json"]);
                assert_eq!(out.status.code(), Some(0), "{}: {}", p.name, stderr(&out));
                acted = true;
            }
        }
        if ps[0].json(&["status", &game_id[..16], "--json"])["over"] == true {
            countersign_by_sync(&ps, &game_id);
            return game_id;
        }
        assert!(acted, "nobody could act");
    }
    panic!("the game does not end");
}

/// After the end: every player syncs; exactly one is told to countersign
/// (their sync lists the game, with the command), and runs that command;
/// again, until nobody is told, once each has countersigned.
fn countersign_by_sync(ps: &[&Player], game_id: &str) {
    let id16 = &game_id[..16];
    let command = format!("starry countersign {id16} --mail");
    for round in 0..=ps.len() {
        let mut named = Vec::new();
        for p in ps {
            let report = sync(p);
            for g in report["your_turn"].as_array().unwrap() {
                assert_eq!(g["game_id"], game_id, "{}: {g}", p.name);
                assert_eq!(g["action"], "countersign", "{}: {g}", p.name);
                assert_eq!(g["command"], command.as_str(), "{}: {g}", p.name);
                named.push(*p);
            }
        }
        let Some(p) = named.first() else {
            assert_eq!(round, ps.len(), "each player countersigned once");
            return;
        };
        assert_eq!(named.len(), 1, "one countersignature at a time");
        // The words say it too, with the command.
        let text = stdout(&p.run(&["sync"]));
        assert!(text.contains("YOUR TURN to countersign"), "{text}");
        assert!(
            text.lines().any(|l| l == format!("    {command}")),
            "{text}"
        );
        assert!(!text.contains("your turn in no game"), "{text}");
        let status = p.json(&["status", id16, "--json"]);
        assert_eq!(status["to_act"], Value::Null);
        assert_eq!(
            status["countersign"]["next_name"],
            p.name.as_str(),
            "{status}"
        );
        let out = p.run(&["countersign", id16, "--mail", "--json"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    panic!("the countersignatures do not end");
}

fn games_in_home(home: &Path) -> usize {
    std::fs::read_dir(home.join("games")).map_or(0, |d| d.count())
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
    assert!(
        !text.contains(wrong) && !text.contains(&password(p)),
        "{text}"
    );

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
    assert!(
        stdout(&out).contains("connection refused"),
        "{}",
        stdout(&out)
    );
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
/// (recipient index, raw mail) in the order they were written; each player
/// also mails the whole log again after each of their entries (`starry
/// mail ID --full`), so that there are mails a copy can take from nothing.
fn outbox_mails(ps: &Players, game: &[&str], moves: usize) -> Vec<(usize, Vec<u8>)> {
    let a = &ps.p[0];
    let out = a.run(&[&["new", "--mail", "--json"][..], game].concat());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let id = serde_json::from_slice::<Value>(&out.stdout).unwrap()["status"]["game_id"]
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
            if p.run(&["play", &id[..16], "--auto", "--mail"])
                .status
                .success()
            {
                let _ = p.run(&["mail", &id[..16], "--full"]);
            }
        }
        collect(ps, &mut mails);
    }
    mails
}

/// Whether a turn mail carries the log from its genesis.
fn whole(raw: &[u8]) -> bool {
    let mail = players::parse_mail(raw);
    let log = mail.log();
    let first = log.split(|&b| b == b'\n').next().unwrap_or_default();
    players::contains_bytes(first, b"\"kind\":\"genesis\"")
}

#[test]
fn a_connection_dropped_in_mid_fetch_loses_nothing_and_doubles_nothing() {
    let Some(w) = world(2) else { return };
    // Ben's mails, made through outboxes, delivered into his inbox.
    let makers = Players::new(2);
    let mails = outbox_mails(
        &makers,
        &["starry-night", "--players", &makers.emails()],
        10,
    );
    let ben = &w.players.p[1];
    // The mails that carry the whole log: a copy that starts from nothing
    // takes each of them.
    let for_ben: Vec<&Vec<u8>> = mails
        .iter()
        .filter(|(r, m)| *r == 1 && whole(m))
        .map(|(_, m)| m)
        .collect();
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
    assert!(
        first["stopped"].as_str().unwrap().contains("lost"),
        "{first}"
    );
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
    assert_eq!(
        w.dovecot.messages(&ben.email, "starry").len(),
        for_ben.len()
    );
    // A third sync finds nothing new.
    let third = sync(ben);
    assert_eq!(third["mails"].as_array().unwrap().len(), 0, "{third}");
}

#[test]
fn hostile_mails_stay_in_the_inbox_flagged_and_are_not_read_again() {
    let Some(w) = world(1) else { return };
    let p = &w.players.p[0];
    let makers = Players::new(2);
    let mails = outbox_mails(&makers, &["starry-night", "--players", &makers.emails()], 2);
    let good = &mails.iter().find(|(r, _)| *r == 1).unwrap().1;
    let text = String::from_utf8_lossy(good).to_string();
    let no_log = b"From: x@example.org\r\nTo: anna@example.org\r\nSubject: [starry] hello\r\n\r\nno log here\r\n".to_vec();
    // A byte of the attached log changed (base64 of a different entry).
    let mut tampered = good.clone();
    let at = text.find("application/x-ndjson").unwrap() + 400;
    tampered[at] = if tampered[at] == b'A' { b'B' } else { b'A' };
    let truncated = good[..good.len() / 2].to_vec();
    // Starry's own header says it was meant as a starry mail.
    let mut huge = b"From: x@example.org\r\nTo: anna@example.org\r\nSubject: [starry] big\r\n\
X-Starry-Log: big.jsonl\r\n\r\n"
        .to_vec();
    huge.extend(std::iter::repeat_n(b'x', 17 * 1024 * 1024));
    huge.extend(b"\r\n");
    let unrelated =
        b"From: y@example.org\r\nTo: anna@example.org\r\nSubject: lunch?\r\n\r\nat noon\r\n"
            .to_vec();
    // The whole log pasted as an armored block, once with a signature
    // changed (it reads, but does not verify), once with its armor cut.
    let log = players::parse_mail(&mails[0].1).log().to_vec();
    let pasted = |log: &[u8], cut: bool| {
        let mut armor = starry::mail::armor(log);
        if cut {
            armor.truncate(armor.len() / 2);
        }
        format!(
            "From: x@example.org\r\nTo: anna@example.org\r\nSubject: [starry] pasted\r\n\r\n{}\r\n",
            armor.replace('\n', "\r\n")
        )
        .into_bytes()
    };
    let mut forged = log.clone();
    let sig = forged
        .windows(7)
        .position(|w| w == b"\"sig\":\"")
        .expect("a signature")
        + 7;
    forged[sig] = if forged[sig] == b'a' { b'b' } else { b'a' };
    let bad_signature = pasted(&forged, false);
    let cut_armor = pasted(&log, true);
    let hostile = [&tampered, &truncated, &huge, &bad_signature, &cut_armor];
    // A mail in a game's thread without a log is no refusal: left alone.
    for m in hostile.iter().copied().chain([&no_log, &unrelated]) {
        w.dovecot.deliver(&p.email, m);
    }
    let out = p.run(&["sync", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["taken"], 0, "{r}");
    assert_eq!(r["unusable"], hostile.len(), "{r}");
    assert_eq!(r["ignored"], 1, "{r}");
    let codes: Vec<i64> = r["mails"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["code"].as_i64().unwrap())
        .collect();
    assert!(
        codes.contains(&15),
        "a bad signature is named as such: {codes:?}"
    );
    for m in r["mails"].as_array().unwrap() {
        if m["outcome"] == "ignored" {
            assert_eq!(m["code"], 0, "{m}");
            assert!(m.get("detail").is_none(), "{m}");
            continue;
        }
        assert_eq!(m["outcome"], "unusable");
        assert!(!m["detail"].as_str().unwrap().is_empty());
        assert_ne!(m["code"], 0);
    }
    let inbox = w.dovecot.messages(&p.email, "INBOX");
    assert_eq!(inbox.len(), hostile.len() + 2);
    let flagged = inbox.iter().filter(|m| m.has(Flag::Flagged)).count();
    assert_eq!(
        flagged,
        hostile.len(),
        "the unrelated mail and the one without a log are left alone"
    );
    assert_eq!(games_in_home(&p.home), 0, "nothing was stored");
    assert!(inbox.iter().all(|m| !m.has(Flag::Deleted)));
    // Not read again.
    let again = sync(p);
    assert_eq!(again["mails"].as_array().unwrap().len(), 0, "{again}");
    // The text report names each reason on one line.
    let _ = text;
}

#[test]
fn a_local_maildir_works_the_same() {
    let Some(_) = smtp_server::python_or_skip() else {
        return;
    };
    let makers = Players::new(2);
    let mails = outbox_mails(&makers, &["starry-night", "--players", &makers.emails()], 2);
    let ben = &makers.p[1];
    let md = makers.dir.path().join("Maildir");
    for sub in ["new", "cur", "tmp"] {
        std::fs::create_dir_all(md.join(sub)).unwrap();
    }
    let for_ben: Vec<&Vec<u8>> = mails
        .iter()
        .filter(|(r, _)| *r == 1)
        .map(|(_, m)| m)
        .collect();
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
    let filed: Vec<_> = std::fs::read_dir(md.join(".starry/cur"))
        .unwrap()
        .flatten()
        .collect();
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

#[test]
fn mail_setup_tries_both_servers_before_it_writes() {
    let Some(w) = world(1) else { return };
    let Some(py) = smtp_server::python_or_skip() else {
        return;
    };
    let p = &w.players.p[0];
    // A sending server that wants a login over STARTTLS, with a
    // certificate from the same test CA as Dovecot's.
    let smtp = Server::start_with(
        &py,
        w.players.dir.path(),
        &Options {
            accounts: Some(vec![(p.email.clone(), password(p))]),
            cert: Some((
                w.dovecot.cert_file().to_path_buf(),
                w.dovecot.key_file().to_path_buf(),
            )),
            ..Options::new(Mode::Starttls)
        },
    );
    let ca = w.dovecot.ca_file().to_str().unwrap().to_string();
    let smtp_port = smtp.port.to_string();
    let imap_port = w.dovecot.imaps_port().to_string();
    let args = |imap_port: &str| -> Vec<String> {
        [
            "mail",
            "setup",
            "--email",
            &p.email,
            "--smtp-host",
            "localhost",
            "--smtp-port",
            &smtp_port,
            "--imap-host",
            "localhost",
            "--imap-port",
            imap_port,
            "--ca-file",
            &ca,
            "--password-stdin",
            "--json",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    // Without the test's own settings in the environment: setup is tried
    // as a new user would.
    let clean = |cmd: &mut assert_cmd::Command| {
        for (k, _) in &p.env {
            cmd.env_remove(k);
        }
    };
    let run = |args: &[String], stdin: &str| {
        let mut cmd = p.command();
        clean(&mut cmd);
        cmd.args(args)
            .write_stdin(stdin.to_string())
            .output()
            .unwrap()
    };
    let settings = settings_file(&p.home);
    // A wrong password: both servers refuse, nothing is written.
    let out = run(&args(&imap_port), "Not-The-Pa55word\n");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["written"], false);
    assert!(
        r["smtp"]
            .as_str()
            .unwrap()
            .contains("authentication failed"),
        "{r}"
    );
    assert!(
        r["imap"].as_str().unwrap().contains("refused the login"),
        "{r}"
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("Not-The-Pa55word"));
    assert!(!settings.exists());
    // A wrong port for IMAP: refused, nothing written.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port().to_string();
    drop(closed);
    let out = run(&args(&port), &format!("{}\n", password(p)));
    assert_eq!(out.status.code(), Some(2));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(r["smtp"].as_str().unwrap().starts_with("SMTP works"), "{r}");
    assert!(
        r["imap"].as_str().unwrap().contains("connection refused"),
        "{r}"
    );
    assert!(!settings.exists());
    // Without a terminal and without a password: a clear refusal.
    let out = run(
        &[
            "mail",
            "setup",
            "--email",
            "x@example.org",
            "--smtp-host",
            "a",
            "--imap-host",
            "b",
        ]
        .map(String::from),
        "",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--password-command"),
        "{}",
        stderr(&out)
    );
    // Right: written, private, and sync then works with no variable set.
    let out = run(&args(&imap_port), &format!("{}\n", password(p)));
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["written"], true, "{r}");
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(&settings).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let text = std::fs::read_to_string(&settings).unwrap();
    assert!(text.contains("[imap]") && text.contains("[smtp]"), "{text}");
    let mut cmd = p.command();
    clean(&mut cmd);
    let out = cmd.args(["sync", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

/// `raw` forwarded by a mail program as an attachment (message/rfc822),
/// with `note` as the forwarding mail's own text (may be empty), from
/// `from` to `to`, under a subject without `[starry]`.
fn forwarded_as_attachment(raw: &[u8], from: &str, to: &str, note: &str) -> Vec<u8> {
    let mut m = format!(
        "From: {from}\r\nTo: {to}\r\nSubject: Fwd: something\r\nMessage-ID: \
         <fwd.{}@example.net>\r\nUser-Agent: Mozilla Thunderbird\r\nMIME-Version: 1.0\r\n\
         Content-Type: multipart/mixed; boundary=\"------------fwd\"\r\n\r\nThis is a \
         multi-part message in MIME format.\r\n--------------fwd\r\nContent-Type: text/plain; \
         charset=UTF-8; format=flowed\r\nContent-Transfer-Encoding: 7bit\r\n\r\n{note}\r\n\r\n\
         --------------fwd\r\nContent-Type: message/rfc822; name=\"something.eml\"\r\n\
         Content-Disposition: attachment; filename=\"something.eml\"\r\n\r\n",
        raw.len()
    )
    .into_bytes();
    m.extend_from_slice(raw);
    m.extend_from_slice(b"\r\n--------------fwd--\r\n");
    m
}

/// `raw` forwarded inline, as Gmail does: the text under a "Forwarded
/// message" line, the attached log attached again; no words of the
/// forwarder's own.
fn forwarded_inline(raw: &[u8], from: &str, to: &str) -> Vec<u8> {
    use base64::Engine as _;
    let mail = players::parse_mail(raw);
    let (name, log) = mail.attachment.clone().unwrap();
    let text = format!(
        "---------- Forwarded message ---------\nFrom: {}\nSubject: {}\n\n{}",
        mail.from, mail.subject, mail.text
    );
    let b64 = |b: &[u8]| {
        base64::engine::general_purpose::STANDARD
            .encode(b)
            .as_bytes()
            .chunks(76)
            .map(|c| String::from_utf8_lossy(c).into_owned())
            .collect::<Vec<_>>()
            .join("\r\n")
    };
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: Fwd: something else\r\nMIME-Version: 1.0\r\n\
         Content-Type: multipart/mixed; boundary=\"000inline\"\r\n\r\n--000inline\r\n\
         Content-Type: text/plain; charset=UTF-8\r\nContent-Transfer-Encoding: base64\r\n\r\n\
         {}\r\n--000inline\r\nContent-Type: application/octet-stream; name=\"{name}\"\r\n\
         Content-Disposition: attachment; filename=\"{name}\"\r\n\
         Content-Transfer-Encoding: base64\r\n\r\n{}\r\n--000inline--\r\n",
        b64(text.as_bytes()),
        b64(&log)
    )
    .into_bytes()
}

/// Anna's invitation to a new Starry Night game with Ben, written to her
/// outbox (not sent): the mail, and the game id.
fn invitation(w: &World) -> (Vec<u8>, String) {
    let anna = &w.players.p[0];
    let before = anna.outbox().len();
    let two = w.players.emails();
    let out = anna.run_env(
        &[("STARRY_MAIL_TRANSPORT", "outbox")],
        &["new", "starry-night", "--players", &two, "--mail", "--json"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let id = serde_json::from_slice::<Value>(&out.stdout).unwrap()["status"]["game_id"]
        .as_str()
        .unwrap()
        .to_string();
    let outbox = anna.outbox();
    assert_eq!(outbox.len(), before + 1);
    let raw = std::fs::read(outbox.last().unwrap()).unwrap();
    let subject = players::parse_mail(&raw).subject;
    assert!(subject.contains("[starry]"), "{subject}");
    (raw, id)
}

#[test]
fn forwarded_games_are_found_and_a_note_that_came_with_one_stays_unread() {
    let Some(w) = world(2) else { return };
    let ben = &w.players.p[1];
    // Forwarded as an attachment, from Ben's other address, with a note:
    // no [starry] in the subject, starry's header only inside.
    let (raw, id) = invitation(&w);
    let note = "Ben, this came to my work address. See you tonight!";
    let fwd = forwarded_as_attachment(&raw, "Ben at work <ben@work.example>", &ben.email, note);
    w.dovecot.deliver(&ben.email, &fwd);
    let r = sync(ben);
    assert_eq!(r["taken"], 1, "{r}");
    let m = &r["mails"][0];
    assert_eq!(m["outcome"], "taken", "{m}");
    assert_eq!(m["ingest"], "created", "{m}");
    assert_eq!(m["game_id"], id.as_str());
    assert_eq!(m["note"]["from"], "Ben at work <ben@work.example>", "{m}");
    assert_eq!(m["note"]["text"], note, "{m}");
    // The mail stays in the inbox, unread and unflagged, for Ben to read.
    let inbox = w.dovecot.messages(&ben.email, "INBOX");
    assert_eq!(inbox.len(), 1);
    assert!(inbox[0].flags.is_empty(), "{:?}", inbox[0].flags);
    assert!(w.dovecot.messages(&ben.email, "starry").is_empty());
    // Ben joins the game the forward brought.
    let out = ben.run(&["join", &id[..16], "--mail", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let status = ben.json(&["status", &id[..16], "--json"]);
    assert_eq!(status["seats"][1]["joined"], true, "{status}");

    // Forwarded inline without a word of one's own, and as an attachment
    // with an empty note: taken and filed away, as a starry mail is; the
    // text report tells of the note only when there is one.
    let (second, second_id) = invitation(&w);
    let (third, third_id) = invitation(&w);
    w.dovecot.deliver(
        &ben.email,
        &forwarded_inline(&second, "ben@work.example", &ben.email),
    );
    w.dovecot.deliver(
        &ben.email,
        &forwarded_as_attachment(&third, "ben@work.example", &ben.email, ""),
    );
    let out = ben.run(&["sync"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains(&format!("game {} new game", &second_id[..16])),
        "{text}"
    );
    assert!(
        text.contains(&format!("game {} new game", &third_id[..16])),
        "{text}"
    );
    assert!(!text.contains("note"), "{text}");
    assert!(text.contains("2 new starry mails: 2 taken"), "{text}");
    assert_eq!(w.dovecot.messages(&ben.email, "INBOX").len(), 1);
    let filed = w.dovecot.messages(&ben.email, "starry");
    assert_eq!(filed.len(), 2);
    assert!(filed.iter().all(|m| m.has(Flag::Seen)));
}

#[test]
fn the_note_is_told_in_words() {
    let Some(w) = world(2) else { return };
    let ben = &w.players.p[1];
    let (raw, _) = invitation(&w);
    let fwd = forwarded_as_attachment(
        &raw,
        "Cleo <cleo@example.net>",
        &ben.email,
        "Yours, I think.",
    );
    w.dovecot.deliver(&ben.email, &fwd);
    let out = ben.run(&["sync"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains(
            "A note from Cleo <cleo@example.net> came with it; the mail stays in your inbox, \
             unread: “Yours, I think.”"
        ),
        "{text}"
    );
}

#[test]
fn a_reply_in_the_thread_without_a_log_is_left_alone() {
    let Some(w) = world(2) else { return };
    let (anna, ben) = (&w.players.p[0], &w.players.p[1]);
    let (raw, _) = invitation(&w);
    let invite = players::parse_mail(&raw);
    // Ben answers Anna's mail by hand, quoting it (with its marker line).
    let quoted: String = invite.text.lines().map(|l| format!("> {l}\r\n")).collect();
    let reply = format!(
        "From: {} <{}>\r\nTo: {}\r\nSubject: Re: {}\r\nIn-Reply-To: <{}>\r\n\
         References: <{}>\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=UTF-8\r\n\
         Content-Transfer-Encoding: 8bit\r\n\r\nNice game yesterday!\r\n\r\nOn Thursday, \
         Anna wrote:\r\n{quoted}",
        ben.name, ben.email, anna.email, invite.subject, invite.message_id, invite.message_id
    );
    assert!(reply.contains("starrylog"), "the quote carries the marker");
    w.dovecot.deliver(&anna.email, reply.as_bytes());
    let before = w.dovecot.messages(&anna.email, "INBOX");
    assert_eq!(before.len(), 1);
    let r = sync(anna);
    assert_eq!(r["unusable"], 0, "{r}");
    assert_eq!(r["ignored"], 1, "found by the search, and left alone: {r}");
    assert_eq!(r["mails"][0]["outcome"], "ignored", "{r}");
    let after = w.dovecot.messages(&anna.email, "INBOX");
    assert_eq!(after.len(), 1);
    assert_eq!(after[0].flags, before[0].flags, "flags unchanged");
    assert!(!after[0].has(Flag::Flagged) && !after[0].has(Flag::Seen));
    assert!(w.dovecot.messages(&anna.email, "starry").is_empty());
    // In words: one line, no paragraph of reasons.
    w.dovecot.deliver(&anna.email, reply.as_bytes());
    let text = stdout(&anna.run(&["sync"]));
    assert!(text.contains("no game log in it; left as it was"), "{text}");
    assert!(!text.contains("not usable, left"), "{text}");
    assert!(!text.contains("flagged"), "{text}");
    assert!(
        text.contains("1 mail without a game log left as it was"),
        "{text}"
    );
    assert!(
        w.dovecot
            .messages(&anna.email, "INBOX")
            .iter()
            .all(|m| !m.has(Flag::Flagged))
    );
}

#[test]
fn sync_without_an_identity_says_how_to_take_the_seat() {
    let Some(w) = world(2) else { return };
    let ben = &w.players.p[1];
    std::fs::remove_file(ben.home.join("identity.json")).unwrap();
    let (raw, id) = invitation(&w);
    w.dovecot.deliver(&ben.email, &raw);
    let out = ben.run(&["sync", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["taken"], 1, "{r}");
    let n = &r["mails"][0]["no_identity"];
    assert_eq!(n["addressed"], true, "{r}");
    assert_eq!(
        n["create"][0], "starry id new --name \"Ben\" --email ben@example.org",
        "{r}"
    );
    assert_eq!(
        n["join"],
        format!("starry join {} --mail", &id[..16]),
        "{r}"
    );
    assert!(
        r["no_identity"]
            .as_str()
            .unwrap()
            .contains(ben.home.to_str().unwrap())
    );
    // In words, the paragraph `starry ingest` gives.
    let (second, second_id) = invitation(&w);
    w.dovecot.deliver(&ben.email, &second);
    let text = stdout(&ben.run(&["sync"]));
    let ingest = ben.run_stdin(&second, &["ingest", "-"]);
    let ingest_text = stdout(&ingest);
    let paragraph = ingest_text
        .lines()
        .find(|l| l.starts_with("You have no starry identity yet"))
        .unwrap_or_else(|| panic!("{ingest_text}"));
    assert!(text.contains(paragraph), "{text}\n---\n{paragraph}");
    assert!(paragraph.contains(&format!("starry join {} --mail", &second_id[..16])));
    assert!(!text.contains("your turn in no game"), "{text}");
    // Nothing new: still the hint.
    let text = stdout(&ben.run(&["sync"]));
    assert!(text.contains("You have no starry identity yet"), "{text}");
    assert!(text.contains("starry id new"), "{text}");
}
