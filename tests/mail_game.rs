//! Whole games of Starry Sky played by e-mail through the real binary and a
//! real SMTP server (aiosmtpd, tests/support/smtp/server.py): every entry is
//! written with `--mail`, the test reads each message from the server's
//! maildir and the recipient `starry ingest`s it into their own copy.
//!
//! Once over STARTTLS with AUTH (a throw-away certificate that is not a CA,
//! trusted through STARRY_SMTP_CA_FILE), once over a plain connection. Every
//! mail is checked: sent to the one who must act, subject, the log attached
//! and armored, the public view exactly, and no secret of any player in any
//! encoding. Both games end with every player's copy identical and a valid
//! audit.
//!
//! Skips loudly when python3 with aiosmtpd is missing, unless
//! STARRY_REQUIRE_SMTP_TESTS=1 (see tests/smtp_server/mod.rs).

mod players;
mod smtp_server;

use std::collections::HashSet;

use players::*;
use serde_json::Value;
use smtp_server::*;

/// How a recipient hands the mail to `starry ingest`.
#[derive(Clone, Copy, Debug)]
enum Delivery {
    /// The message as stored, CRLF: a saved .eml.
    Eml,
    /// One mbox message: a `From ` line, LF line ends.
    Mbox,
    /// Only the armored block, pasted on standard input.
    PastedArmor,
}

struct Game<'a> {
    players: &'a Players,
    server: &'a Server,
    game_id: String,
    seen: HashSet<String>,
    mails: usize,
    face_down_checked: usize,
    vary_delivery: bool,
}

impl Game<'_> {
    fn id16(&self) -> &str {
        &self.game_id[..16]
    }

    /// Reads every new message from the maildir, checks it and has its
    /// recipient ingest it. `log` is the sender's copy. Returns the seats
    /// that received a mail.
    fn deliver(&mut self, sender: usize, log: &[u8], expect_over: bool) -> Vec<usize> {
        let new: Vec<(String, Vec<u8>)> = self
            .server
            .messages_by_name()
            .into_iter()
            .filter(|(n, _)| self.seen.insert(n.clone()))
            .collect();
        let mut got = Vec::new();
        for (_, eml) in new {
            self.mails += 1;
            let (to, subject, from) = mail_headers(&eml);
            let seat = self.players.seat_of(&to);
            assert_eq!(from, self.players.p[sender].email, "From is the sender");
            assert_ne!(seat, sender, "nobody mails themselves");
            self.check_mail(&eml, log, seat, &subject, expect_over);
            let delivery = if !self.vary_delivery {
                Delivery::Eml
            } else {
                match self.mails % 3 {
                    0 => Delivery::Eml,
                    1 => Delivery::Mbox,
                    _ => Delivery::PastedArmor,
                }
            };
            self.ingest(seat, &eml, log, delivery, expect_over);
            got.push(seat);
        }
        got
    }

    fn check_mail(&mut self, eml: &[u8], log: &[u8], seat: usize, subject: &str, over: bool) {
        let p = self.players;
        let entries = log.iter().filter(|&&b| b == b'\n').count();
        let raw = String::from_utf8_lossy(eml).to_string();
        let text = mail_text(eml).replace("\r\n", "\n");
        let name = &p.p[seat].name;

        // Subject: the game, the entry number, what is asked.
        let prefix = format!(
            "[starry] starry-sky {}: entry {} — ",
            &self.game_id[..8],
            entries - 1
        );
        assert!(subject.starts_with(&prefix), "{subject}");
        if over {
            assert!(subject.contains("game is over"), "{subject}");
        } else {
            assert!(subject.contains(&format!("{name}, ")), "{subject}");
        }

        // The log, attached and armored, byte for byte.
        assert_eq!(
            starry::mail::extract_logs(eml, 1 << 24).unwrap(),
            vec![log.to_vec()]
        );
        assert_eq!(
            starry::mail::dearmor_all(&text).unwrap(),
            vec![log.to_vec()],
            "the armored block in the text"
        );
        assert!(raw.contains(&format!("filename=\"{}.jsonl\"", self.id16())));
        assert!(raw.contains("Content-Type: application/x-ndjson"), "{raw}");
        let begin = text.find("-----BEGIN STARRY LOG-----\n").unwrap();
        let end = begin + text[begin..].find("-----END STARRY LOG-----").unwrap();
        let armor_lines: Vec<&str> = text[begin..end].lines().skip(1).collect();
        let (last, full) = armor_lines.split_last().unwrap();
        assert!(full.iter().all(|l| l.len() == 64), "armor wrapped at 64");
        assert!(!last.is_empty() && last.len() <= 64);

        // What to do now, with the exact commands.
        assert!(text.contains(&format!("Hello {name},")), "{text}");
        assert!(text.contains("What to do now"), "{text}");
        assert!(text.contains("starry ingest turn.eml"), "{text}");
        if !over {
            let status: Value = p.p[seat].json(&["status", &self.log_path_of(log), "--json"]);
            let cmd = match status["action"].as_str().unwrap() {
                "join" => format!("starry join {} --mail", self.id16()),
                "ready" => format!("starry ready {} --mail", self.id16()),
                "move" => format!("starry play {} \"TOKEN BOARD:STAR\" --mail", self.id16()),
                "reveal" => format!("starry reveal {} --mail", self.id16()),
                other => panic!("{other}"),
            };
            assert!(text.contains(&cmd), "no `{cmd}` in:\n{text}");
        } else {
            assert!(text.contains(&format!("starry countersign {} --mail", self.id16())));
        }

        // The public view, exactly as `starry view --spectator` shows it.
        let spectator = stdout(&p.p[0].run(&["view", &self.log_path_of(log), "--spectator"]));
        if let Some(i) = spectator.find("P1 = ") {
            let public = spectator[i..].trim_end();
            assert!(
                text.contains(public),
                "the mail's view is not the public view:\n{public}\n---\n{text}"
            );
        }

        // No secret of anyone, in any encoding, in the mail as sent or decoded.
        for (s, pl) in p.p.iter().enumerate() {
            for secret in secrets_of(&pl.home, log, s) {
                for enc in encodings(&secret) {
                    assert!(!raw.contains(&enc), "a secret of seat {s} is in a mail");
                    assert!(!text.contains(&enc), "a secret of seat {s} is in a mail");
                }
            }
            // Every face-down token, the recipient's own included, is shown
            // face down.
            let view = pl.json(&["view", &self.log_path_of(log), "--json"]);
            for label in own_face_down(&view) {
                let line = text
                    .lines()
                    .find(|l| l.trim_start().starts_with(&format!("{label} ")))
                    .unwrap_or_else(|| panic!("no line for {label} in the mail"));
                assert!(
                    line.contains("face down"),
                    "seat {s}'s face-down token on {label} is shown in a mail: {line}"
                );
                self.face_down_checked += 1;
            }
        }
    }

    /// A path to a file holding `log` (the test keeps the latest log here).
    fn log_path_of(&self, log: &[u8]) -> String {
        let path = self.players.dir.path().join("latest.jsonl");
        if std::fs::read(&path).ok().as_deref() != Some(log) {
            std::fs::write(&path, log).unwrap();
        }
        path.display().to_string()
    }

    fn ingest(&self, seat: usize, eml: &[u8], log: &[u8], how: Delivery, over: bool) {
        let pl = &self.players.p[seat];
        let file = pl.home.join("turn.eml");
        let out = match how {
            Delivery::Eml => {
                std::fs::write(&file, eml).unwrap();
                pl.run(&["ingest", file.to_str().unwrap(), "--json"])
            }
            Delivery::Mbox => {
                let mut mbox = b"From starry@example.org Sat Nov 21 10:00:00 2026\n".to_vec();
                mbox.extend_from_slice(
                    &String::from_utf8_lossy(eml)
                        .replace("\r\n", "\n")
                        .into_bytes(),
                );
                std::fs::write(&file, &mbox).unwrap();
                pl.run(&["ingest", file.to_str().unwrap(), "--json"])
            }
            Delivery::PastedArmor => {
                let text = mail_text(eml).replace("\r\n", "\n");
                let start = text.find("-----BEGIN STARRY LOG-----\n").unwrap();
                let end = start + text[start..].find("-----END STARRY LOG-----").unwrap() + 24;
                let pasted = format!("here it is:\n{}\n", &text[start..end]);
                pl.run_stdin(pasted.as_bytes(), &["ingest", "-", "--json"])
            }
        };
        assert!(
            out.status.success(),
            "{} could not ingest ({how:?}): {}",
            pl.name,
            stderr(&out)
        );
        let r: Value = serde_json::from_slice(&out.stdout).unwrap();
        let outcome = r["outcome"].as_str().unwrap();
        assert!(
            ["created", "fast-forwarded"].contains(&outcome),
            "{outcome}"
        );
        assert_eq!(
            std::fs::read(pl.copy_of(&self.game_id)).unwrap(),
            log,
            "{}'s copy is the sender's",
            pl.name
        );
        assert_eq!(r["file"], pl.copy_of(&self.game_id).display().to_string());
        if over {
            assert_eq!(r["your_turn"], false);
        } else {
            assert_eq!(r["your_turn"], true, "{r}");
            assert!(r["next_command"].as_str().unwrap().contains(self.id16()));
        }
    }
}

/// Plays a whole game; returns the game id.
fn play_by_mail(players: &Players, server: &Server, vary_delivery: bool) -> String {
    let ps = &players.p;
    let out = ps[0].run(&[
        "new",
        "starry-sky",
        "--players",
        &players.emails(),
        "--mail",
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let rep: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rep["mail"]["sent"][0]["to"], ps[1].email.as_str());
    assert_eq!(rep["mail"]["sent"][0]["via"], "smtp");
    let game_id = rep["status"]["game_id"].as_str().unwrap().to_string();
    let mut g = Game {
        players,
        server,
        game_id: game_id.clone(),
        seen: HashSet::new(),
        mails: 0,
        face_down_checked: 0,
        vary_delivery,
    };
    let mut writer = 0;
    let mut turns = 0;
    loop {
        let log = std::fs::read(ps[writer].copy_of(&game_id)).unwrap();
        let status = ps[writer].json(&["status", g.id16(), "--json"]);
        let over = status["over"] == true;
        let got = g.deliver(writer, &log, over);
        if over {
            let mut others: Vec<usize> = (0..3).filter(|&s| s != writer).collect();
            let mut got = got;
            got.sort();
            others.sort();
            assert_eq!(got, others, "at the end every other player gets a mail");
            break;
        }
        let who = players.seat_of(status["to_act"].as_str().unwrap());
        if who == writer {
            assert!(
                got.is_empty(),
                "nobody is mailed when the writer acts again"
            );
        } else {
            assert_eq!(got, vec![who], "one mail, to the one who must act");
        }
        let out = ps[who].run(&["play", g.id16(), "--auto", "--mail", "--json"]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}: {}",
            ps[who].name,
            stderr(&out)
        );
        let rep: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(rep["mail"]["failed"].as_array().unwrap().is_empty());
        writer = who;
        turns += 1;
        assert!(turns < 2000, "the game does not end");
    }
    assert!(
        g.face_down_checked > 20,
        "the game had face-down tokens to check ({})",
        g.face_down_checked
    );
    eprintln!(
        "game {}: {turns} turns, {} mails, {} face-down tokens checked",
        &game_id[..16],
        g.mails,
        g.face_down_checked
    );
    game_id
}

fn audit_all(players: &Players, game_id: &str) -> Value {
    let first = std::fs::read(players.p[0].copy_of(game_id)).unwrap();
    let mut last = Value::Null;
    for p in &players.p {
        let copy = p.copy_of(game_id);
        assert_eq!(std::fs::read(&copy).unwrap(), first, "{}'s copy", p.name);
        let a = p.json(&["audit", copy.to_str().unwrap(), "--json"]);
        assert_eq!(a["valid"], true, "{a}");
        assert_eq!(a["files"][0]["over"], true);
        last = a;
    }
    last
}

#[test]
fn a_whole_game_by_mail_over_starttls_with_auth() {
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
        ("STARRY_SMTP_SECURITY", "starttls"),
        ("STARRY_SMTP_USER", USER),
        ("STARRY_SMTP_PASSWORD", PASSWORD),
        ("STARRY_SMTP_CA_FILE", cert.to_str().unwrap()),
    ]);
    let game_id = play_by_mail(&players, &server, false);
    audit_all(&players, &game_id);
    assert!(server.printed(" accepted"));
    assert!(!server.output().contains("refused"));

    // Countersigning by mail, one player at a time: each countersign mail
    // goes to the two others, who ingest it.
    let id16 = &game_id[..16];
    let mut seen: HashSet<String> = server
        .messages_by_name()
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    for s in 0..3 {
        let out = players.p[s].run(&["countersign", id16, "--mail", "--json"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let rep: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(rep["mail"]["sent"].as_array().unwrap().len(), 2);
        let log = std::fs::read(players.p[s].copy_of(&game_id)).unwrap();
        let new: Vec<Vec<u8>> = server
            .messages_by_name()
            .into_iter()
            .filter(|(n, _)| seen.insert(n.clone()))
            .map(|(_, m)| m)
            .collect();
        assert_eq!(new.len(), 2);
        for eml in new {
            let (to, subject, _) = mail_headers(&eml);
            assert!(subject.contains("game is over"), "{subject}");
            let r = players.seat_of(&to);
            let f = players.p[r].home.join("turn.eml");
            std::fs::write(&f, &eml).unwrap();
            let rep = players.p[r].json(&["ingest", f.to_str().unwrap(), "--json"]);
            assert_eq!(rep["outcome"], "fast-forwarded");
            assert_eq!(std::fs::read(players.p[r].copy_of(&game_id)).unwrap(), log);
        }
    }
    let a = audit_all(&players, &game_id);
    assert_eq!(a["files"][0]["countersigned"], serde_json::json!([1, 2, 3]));
    // The password went nowhere.
    for p in &players.p {
        for f in walk(&p.home) {
            let b = String::from_utf8_lossy(&std::fs::read(&f).unwrap()).to_string();
            assert!(!b.contains(PASSWORD), "{} holds the password", f.display());
        }
    }
    for (_, m) in server.messages_by_name() {
        assert!(!String::from_utf8_lossy(&m).contains(PASSWORD));
    }
}

#[test]
fn a_whole_game_by_mail_over_plain_smtp_received_as_eml_mbox_and_pasted_armor() {
    let Some(py) = python_or_skip() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&py, dir.path(), Mode::Plain, 0);
    let mut players = Players::new(3);
    let port = server.port.to_string();
    players.set_env(&[
        ("STARRY_SMTP_HOST", "127.0.0.1"),
        ("STARRY_SMTP_PORT", &port),
        ("STARRY_SMTP_SECURITY", "none"),
    ]);
    let game_id = play_by_mail(&players, &server, true);
    audit_all(&players, &game_id);

    // `starry mail --to-all` once more: the others get the same log again,
    // and ingesting it changes nothing.
    let before = server.messages().len();
    let out = players.p[0].run(&["mail", &game_id[..16], "--to-all", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let msgs = server.messages();
    assert_eq!(msgs.len(), before + 2);
    for eml in &msgs[before..] {
        let (to, _, _) = mail_headers(eml);
        let r = players.seat_of(&to);
        let f = players.p[r].home.join("again.eml");
        std::fs::write(&f, eml).unwrap();
        let rep = players.p[r].json(&["ingest", f.to_str().unwrap(), "--json"]);
        assert_eq!(rep["outcome"], "unchanged");
    }
    audit_all(&players, &game_id);
}
