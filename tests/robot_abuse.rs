//! `starry robot` as a public service that strangers cannot abuse: every
//! rule of docs/bots.md ("The robot") tried through the real binary. The
//! robot sends through the test SMTP server (what it received is what the
//! robot sent); its own mailbox is a maildir the tests write into, as the
//! robot's mail server would deliver, with the `Authentication-Results`
//! header that server adds (authserv-id `mx.robot.test`) — or a forged one.
//!
//! Needs python3 with aiosmtpd (tests/smtp_server/mod.rs says what happens
//! without it).

use crate::smtp_server;

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;
use serde_json::Value;
use sha2::Digest;
use smtp_server::*;

const AUTHSERV: &str = "mx.robot.test";
const ROBOT: &str = "robo@robot.test";

struct Person {
    home: PathBuf,
    email: String,
    env: Vec<(String, String)>,
}

impl Person {
    fn new(dir: &Path, home: &str, name: &str, email: &str, env: &[(String, String)]) -> Person {
        let p = Person {
            home: dir.join(home),
            email: email.to_string(),
            env: env.to_vec(),
        };
        let out = p.run(&["id", "new", "--name", name, "--email", email]);
        assert!(out.status.success(), "{}", stderr(&out));
        p
    }

    fn run(&self, args: &[&str]) -> Output {
        let mut c = Command::cargo_bin("starry").unwrap();
        c.env("STARRY_HOME", &self.home).args(args);
        for (k, v) in &self.env {
            c.env(k, v);
        }
        c.output().unwrap()
    }

    fn json(&self, args: &[&str]) -> Value {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "starry {args:?}: {}{}",
            stderr(&out),
            String::from_utf8_lossy(&out.stdout)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// A new game listing `players`, kept in `file`; returns its log.
    fn new_game(&self, game: &str, players: &[&str], file: &Path) -> Vec<u8> {
        let players = players.join(",");
        let out = self.run(&[
            "new",
            game,
            "--players",
            &players,
            "--out",
            file.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        std::fs::read(file).unwrap()
    }
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The test: its folder (first, so that it outlives the rest), the SMTP
/// server the robot sends through, the robot, and its mailbox.
struct World {
    dir: tempfile::TempDir,
    server: Server,
    robot: Person,
    maildir: PathBuf,
    env: Vec<(String, String)>,
    delivered: usize,
}

impl World {
    fn new() -> Option<World> {
        World::with_robot_env(&[])
    }

    /// With extra environment for the robot (its mail settings).
    fn with_robot_env(extra: &[(&str, &str)]) -> Option<World> {
        let py = python_or_skip()?;
        let dir = tempfile::tempdir().unwrap();
        let server = Server::start(&py, dir.path(), Mode::Plain, 0);
        let env: Vec<(String, String)> = [
            ("STARRY_SMTP_HOST", "127.0.0.1".to_string()),
            ("STARRY_SMTP_PORT", server.port.to_string()),
            ("STARRY_SMTP_SECURITY", "none".to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let mut robot_env = env.clone();
        robot_env.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        let robot = Person::new(dir.path(), "robot", "Robo", ROBOT, &robot_env);
        let maildir = dir.path().join("robot-mail");
        std::fs::create_dir_all(maildir.join("new")).unwrap();
        std::fs::create_dir_all(maildir.join("cur")).unwrap();
        Some(World {
            dir,
            server,
            robot,
            maildir,
            env,
            delivered: 0,
        })
    }

    fn person(&self, home: &str, name: &str, email: &str) -> Person {
        Person::new(self.dir.path(), home, name, email, &self.env)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Delivers a mail carrying `log` to the robot's mailbox: `head` are
    /// header lines the robot's server would add (or a forger wrote), then
    /// `From`, `To`, `Subject`. Returns its bytes.
    fn deliver(&mut self, head: &str, from: &str, subject: &str, log: &[u8]) -> Vec<u8> {
        let mail = format!(
            "{head}From: {from}\r\nTo: Robo <{ROBOT}>\r\nSubject: {subject}\r\n\
             Message-ID: <m{}.{}@sender.test>\r\n\r\nMy turn.\r\n\r\n{}",
            self.delivered,
            rand_suffix(),
            starry::mail::armor(log)
        );
        self.deliver_raw(mail.as_bytes())
    }

    fn deliver_raw(&mut self, mail: &[u8]) -> Vec<u8> {
        self.delivered += 1;
        let name = format!("{:06}.{}.robot-mail", self.delivered, rand_suffix());
        std::fs::write(self.maildir.join("new").join(name), mail).unwrap();
        mail.to_vec()
    }

    /// Runs the robot; its report and exit code.
    fn robot(&self, flags: &[&str]) -> (Value, i32) {
        let mut args = vec![
            "robot",
            "--maildir",
            self.maildir.to_str().unwrap(),
            "--json",
            "--level",
            "1",
            "--seed",
            "7",
        ];
        args.extend_from_slice(flags);
        let out = self.robot.run(&args);
        let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
            panic!(
                "starry {args:?}: {}{}",
                stderr(&out),
                String::from_utf8_lossy(&out.stdout)
            )
        });
        (report, out.status.code().unwrap())
    }

    /// The robot's files that hold `log`'s genesis line (a copy of the game).
    fn robot_files_holding(&self, log: &[u8]) -> Vec<PathBuf> {
        let genesis = &log[..log.iter().position(|&b| b == b'\n').unwrap()];
        walk(&self.robot.home)
            .into_iter()
            .filter(|p| {
                std::fs::read(p).is_ok_and(|b| b.windows(genesis.len()).any(|w| w == genesis))
            })
            .collect()
    }

    /// Every mail the robot sent (the SMTP server also has the players'),
    /// checked against rules 1 and 5: it says Auto-Submitted, its display
    /// names are short, and it carries no local path and no subject of a
    /// mail the robot received.
    fn sent(&self, subjects: &[&str]) -> Vec<Vec<u8>> {
        let mails: Vec<Vec<u8>> = self
            .server
            .messages()
            .into_iter()
            .filter(|m| {
                starry::mail::headers(m)
                    .and_then(|h| h.from)
                    .is_some_and(|(_, e)| e == ROBOT)
            })
            .collect();
        let local = self.dir.path().to_str().unwrap();
        for raw in &mails {
            let text = String::from_utf8_lossy(raw);
            assert!(
                text.contains("\r\nAuto-Submitted: auto-replied\r\n"),
                "{text}"
            );
            let m = mail_parser::MessageParser::default().parse(raw).unwrap();
            let mut shown = text.to_string();
            for i in 0..4 {
                shown.push_str(&m.body_text(i).unwrap_or_default());
                shown.push_str(&m.body_html(i).unwrap_or_default());
            }
            assert!(!shown.contains(local), "a local path: {shown}");
            for s in subjects {
                assert!(!shown.contains(s), "the sender's subject: {shown}");
            }
            for list in [m.from(), m.to()] {
                for a in list.unwrap().iter() {
                    let n = a.name().unwrap_or_default();
                    assert!(n.chars().count() <= 64, "{n}");
                }
            }
        }
        mails
    }
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// The addresses a mail is for.
fn to_of(raw: &[u8]) -> Vec<String> {
    starry::mail::headers(raw).unwrap().recipients
}

/// What the robot's own server adds when DKIM passes for `domain`.
fn vouched(domain: &str) -> String {
    format!("Authentication-Results: {AUTHSERV}; dkim=pass header.d={domain} header.s=mail\r\n")
}

fn outcomes(report: &Value) -> Vec<(String, String)> {
    report["mails"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["outcome"].as_str().unwrap().to_string(),
                m["reason"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_log_that_does_not_verify_gets_no_answer_at_all() {
    let Some(mut w) = World::new() else { return };
    let mallory = w.person("mallory", "Mallory", "mallory@evil.test");
    let log = mallory.new_game(
        "starry-night",
        &["Mallory <mallory@evil.test>", "Robo <robo@robot.test>"],
        &w.path("game.jsonl"),
    );
    let mut tampered = log.clone();
    let at = tampered.len() - 20;
    tampered[at] = if tampered[at] == b'A' { b'B' } else { b'A' };
    // A forged From (a victim), a 10 KB display name and a spam subject:
    // a reply would be backscatter carrying all of it.
    let spam_name = "Cheap pills ".repeat(900);
    let subject = "WIN A PRIZE at http://spam.test/now";
    w.deliver(
        &vouched("victims.test"),
        &format!("\"{spam_name}\" <victim@victims.test>"),
        subject,
        &tampered,
    );
    // Entries of a game the robot has no copy of cannot be verified either.
    let partial: Vec<u8> = log
        .split_inclusive(|&b| b == b'\n')
        .skip(1)
        .flatten()
        .copied()
        .collect();
    w.deliver("", "Mallory <mallory@evil.test>", subject, &partial);
    let (report, code) = w.robot(&["--authserv-id", AUTHSERV]);
    assert_eq!(code, 0, "refusals do not make the run fail: {report}");
    assert_eq!(
        outcomes(&report),
        [
            ("refused".into(), "unverified".into()),
            ("refused".into(), "unverified".into())
        ]
    );
    assert_eq!(report["mails"][0]["code"], 15, "a bad signature");
    assert_eq!(report["refused"], 2);
    assert!(w.sent(&[subject]).is_empty(), "no mail at all");
    assert!(w.robot_files_holding(&log).is_empty(), "nothing stored");
    // Refused for good: the next run does not look at them again.
    let (again, code) = w.robot(&["--authserv-id", AUTHSERV]);
    assert_eq!(code, 0);
    assert_eq!(again["handled_before"], 2, "{again}");
    assert!(w.server.messages().is_empty());
}

/// A Starry Sky game of five that `stranger` creates with three victims'
/// addresses (spam for names) and the robot's, joining the victims' seats
/// with keys of their own; returns the log, ready for the robot to join.
fn game_with_victims(w: &World, stranger: &Person, n: usize) -> Vec<u8> {
    let victims = ["v1@victims.test", "v2@victims.test", "v3@victims.test"];
    let file = w.path(&format!("victims-{n}.jsonl"));
    let mut players = vec![format!("Mallory <{}>", stranger.email)];
    players.extend(
        victims
            .iter()
            .map(|v| format!("BUY CHEAP PILLS AT SPAM.TEST NOW {n} <{v}>")),
    );
    players.push(format!("Robo <{ROBOT}>"));
    let players: Vec<&str> = players.iter().map(String::as_str).collect();
    stranger.new_game("starry-sky", &players, &file);
    for (i, v) in victims.iter().enumerate() {
        let sock = w.person(&format!("sock-{n}-{i}"), "Sock", v);
        let out = sock.run(&["join", file.to_str().unwrap()]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    std::fs::read(&file).unwrap()
}

#[test]
fn a_stranger_cannot_make_it_mail_third_parties() {
    let long_name = format!("{} <{ROBOT}>", "R".repeat(10_000));
    let Some(mut w) = World::with_robot_env(&[("STARRY_MAIL_FROM", long_name.as_str())]) else {
        return;
    };
    let mallory = w.person("mallory", "Mallory", "mallory@evil.test");
    let subject = "A friendly game, promise";
    let logs: Vec<Vec<u8>> = (0..3).map(|n| game_with_victims(&w, &mallory, n)).collect();
    for log in &logs {
        w.deliver(
            &vouched("evil.test"),
            "Mallory <mallory@evil.test>",
            subject,
            log,
        );
    }
    // Another stranger forges the header of the robot's server: another
    // authserv-id, which does not count.
    let trudy = w.person("trudy", "Trudy", "trudy@evil2.test");
    let forged_log = trudy.new_game(
        "starry-night",
        &["Trudy <trudy@evil2.test>", "Robo <robo@robot.test>"],
        &w.path("trudy.jsonl"),
    );
    w.deliver(
        "Authentication-Results: mx.evil2.test; dkim=pass header.d=evil2.test; \
         dmarc=pass header.from=evil2.test\r\n",
        "Trudy <trudy@evil2.test>",
        subject,
        &forged_log,
    );
    let (report, code) = w.robot(&["--authserv-id", AUTHSERV, "--invitations-per-day", "2"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(
        outcomes(&report),
        [
            ("played".into(), "".into()),
            ("played".into(), "".into()),
            ("refused".into(), "invitation-limit".into()),
            ("refused".into(), "unproven".into()),
        ],
        "{report}"
    );
    for m in &report["mails"].as_array().unwrap()[..2] {
        // It joined and gave its ready; the next ready is a victim's, so
        // the log went back to the stranger alone.
        assert_eq!(m["entries"].as_array().unwrap().len(), 2, "{m}");
        assert_eq!(m["relayed"], true, "{m}");
        assert_eq!(m["mailed_to"], serde_json::json!(["mallory@evil.test"]));
    }
    let sent = w.sent(&[subject]);
    assert_eq!(sent.len(), 2, "one mail a game, to the stranger");
    for m in &sent {
        assert_eq!(to_of(m), vec!["mallory@evil.test".to_string()]);
        let text = String::from_utf8_lossy(m);
        assert!(text.contains("please pass this on"), "{text}");
        let parsed = mail_parser::MessageParser::default().parse(m).unwrap();
        let from = parsed.from().unwrap().first().unwrap();
        assert_eq!(from.name().unwrap(), format!("{}…", "R".repeat(63)));
        assert!(parsed.body_text(0).unwrap().contains("v1@victims.test"));
    }
    // Nothing is stored of the games it refused.
    assert!(w.robot_files_holding(&logs[2]).is_empty());
    assert!(w.robot_files_holding(&forged_log).is_empty());
    assert!(!w.robot_files_holding(&logs[0]).is_empty());
    let (again, code) = w.robot(&["--authserv-id", AUTHSERV]);
    assert_eq!((code, again["handled_before"].as_u64()), (0, Some(4)));
    assert_eq!(w.server.messages().len(), 2);
}

#[test]
fn games_it_has_no_seat_in_are_refused_once_and_not_stored() {
    let Some(mut w) = World::new() else { return };
    let anna = w.person("anna", "Anna", "anna@club.test");
    // The robot's address, pinned to somebody else's key.
    let other = w.person("other", "Robo", ROBOT);
    let pin = other.json(&["id", "show", "--json"])["players_entry"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(pin.contains("key:"), "{pin}");
    let pinned = anna.new_game(
        "starry-night",
        &["Anna <anna@club.test>", &pin],
        &w.path("pinned.jsonl"),
    );
    // A game without the robot at all.
    let elsewhere = anna.new_game(
        "starry-night",
        &["Anna <anna@club.test>", "Ben <ben@club.test>"],
        &w.path("elsewhere.jsonl"),
    );
    w.deliver("", "Anna <anna@club.test>", "hi", &pinned);
    w.deliver("", "Anna <anna@club.test>", "hi", &elsewhere);
    for run in 0..2 {
        let (report, code) = w.robot(&["--allow", "*@club.test"]);
        assert_eq!(code, 0, "never a failure, on any run: {report}");
        if run == 0 {
            assert_eq!(
                outcomes(&report),
                [
                    ("refused".into(), "no-seat".into()),
                    ("refused".into(), "no-seat".into())
                ]
            );
            assert_eq!(report["failed"], 0);
        } else {
            assert_eq!(report["mails"], serde_json::json!([]));
            assert_eq!(report["handled_before"], 2);
        }
    }
    assert!(w.robot_files_holding(&pinned).is_empty());
    assert!(w.robot_files_holding(&elsewhere).is_empty());
    assert!(w.sent(&[]).is_empty());
}

#[test]
fn automatic_mails_and_strangers_to_a_game_are_never_answered() {
    let Some(mut w) = World::new() else { return };
    let anna = w.person("anna", "Anna", "anna@club.test");
    let log = anna.new_game(
        "starry-night",
        &["Anna <anna@club.test>", "Robo <robo@robot.test>"],
        &w.path("game.jsonl"),
    );
    let v = vouched("club.test");
    for head in [
        "Auto-Submitted: auto-replied\r\n",
        "List-Id: <games.club.test>\r\n",
        "List-Unsubscribe: <mailto:leave@club.test>\r\n",
        "Precedence: bulk\r\n",
        "Return-Path: <>\r\n",
        "Return-Path: <MAILER-DAEMON@mx.club.test>\r\n",
    ] {
        w.deliver(&format!("{head}{v}"), "Anna <anna@club.test>", "hi", &log);
    }
    // The log of a real invitation, from someone who is not in the game
    // (and whose own server vouches for them).
    w.deliver(
        &vouched("evil.test"),
        "Mallory <mallory@evil.test>",
        "hi",
        &log,
    );
    let (report, code) = w.robot(&["--authserv-id", AUTHSERV]);
    assert_eq!(code, 0, "{report}");
    let mut want: Vec<(String, String)> = vec![("refused".into(), "automatic".into()); 6];
    want.push(("refused".into(), "not-a-seat".into()));
    assert_eq!(outcomes(&report), want, "{report}");
    assert!(w.sent(&[]).is_empty());
    assert!(w.robot_files_holding(&log).is_empty());
    // The same invitation as a person sends it is answered: the mails above
    // were refused for what they are, not for their log.
    w.deliver(&v, "Anna <anna@club.test>", "hi", &log);
    let (report, code) = w.robot(&["--authserv-id", AUTHSERV]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(outcomes(&report), [("played".into(), "".into())]);
    let sent = w.sent(&[]);
    assert_eq!(sent.len(), 1);
    assert_eq!(to_of(&sent[0]), vec!["anna@club.test".to_string()]);
}

#[test]
fn invitations_from_the_allow_list_within_the_limits() {
    let Some(mut w) = World::new() else { return };
    std::fs::write(
        w.robot.home.join("robot.toml"),
        format!(
            "authserv_id = \"{AUTHSERV}\"\nallow = [\"*@club.test\"]\nmax_games = 1\n\
             invitations_per_day = 3\n"
        ),
    )
    .unwrap();
    let invite = |home: &str, name: &str, email: &str, w: &mut World| {
        let p = w.person(home, name, email);
        let log = p.new_game(
            "starry-night",
            &[&format!("{name} <{email}>"), "Robo <robo@robot.test>"],
            &w.path(&format!("{home}.jsonl")),
        );
        let domain = email.rsplit_once('@').unwrap().1;
        w.deliver(&vouched(domain), &format!("{name} <{email}>"), "hi", &log);
        log
    };
    let mallory = invite("mallory", "Mallory", "mallory@evil.test", &mut w);
    invite("anna", "Anna", "anna@club.test", &mut w);
    let ben = invite("ben", "Ben", "ben@club.test", &mut w);
    let (report, code) = w.robot(&[]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(
        outcomes(&report),
        [
            ("refused".into(), "not-allowed".into()),
            ("played".into(), "".into()),
            ("refused".into(), "game-limit".into())
        ],
        "{report}"
    );
    assert!(w.robot_files_holding(&mallory).is_empty());
    assert!(w.robot_files_holding(&ben).is_empty());
    // A flag overrides the file.
    invite("cleo", "Cleo", "cleo@club.test", &mut w);
    let (report, code) = w.robot(&["--max-games", "2"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(outcomes(&report), [("played".into(), "".into())]);
    let to: Vec<Vec<String>> = w.sent(&[]).iter().map(|m| to_of(m)).collect();
    assert_eq!(
        to,
        [
            vec!["anna@club.test".to_string()],
            vec!["cleo@club.test".to_string()]
        ]
    );
    // Settings it cannot use stop it before it reads a mail.
    std::fs::write(w.robot.home.join("robot.toml"), "allow = [\"nobody\"]\n").unwrap();
    let out = w
        .robot
        .run(&["robot", "--maildir", w.maildir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("robot.toml") && stderr(&out).contains("nobody"),
        "{}",
        stderr(&out)
    );
    let out = w.robot.run(&[
        "robot",
        "--maildir",
        w.maildir.to_str().unwrap(),
        "--allow",
        "*@",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--allow"), "{}", stderr(&out));
}

/// Anna invites the robot and Ben. The robot may not write to Ben first:
/// the log goes back to Anna, who passes it on; Ben joins and gives his
/// ready, which it is then the robot's turn to follow: Ben's mail to the
/// robot.
fn bens_ready_for_the_robot(w: &mut World) -> Vec<u8> {
    let anna = w.person("anna", "Anna", "anna@club.test");
    let ben = w.person("ben", "Ben", "ben@club.test");
    let players = format!("Anna <anna@club.test>,Robo <{ROBOT}>,Ben <ben@club.test>");
    anna.json(&["new", "starry-sky", "--players", &players, "--json"]);
    let game = walk(&anna.home.join("games"))[0].clone();
    let id16 = game.file_stem().unwrap().to_str().unwrap()[..16].to_string();
    let log = std::fs::read(&game).unwrap();
    w.deliver(&vouched("club.test"), "Anna <anna@club.test>", "hi", &log);
    let (report, code) = w.robot(&["--authserv-id", AUTHSERV]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["mails"][0]["relayed"], true, "{report}");
    let sent = w.sent(&[]);
    assert_eq!(sent.len(), 1);
    assert_eq!(to_of(&sent[0]), vec!["anna@club.test".to_string()]);

    // Anna passes it on, as the mail asks; Ben joins and gives his ready,
    // which it is then the robot's turn to follow.
    let relay = w.path("relay.eml");
    std::fs::write(&relay, &sent[0]).unwrap();
    anna.json(&["ingest", relay.to_str().unwrap(), "--json"]);
    anna.json(&["mail", &id16, "--json"]);
    let to_ben = w.server.messages().pop().unwrap();
    assert_eq!(to_of(&to_ben), vec!["ben@club.test".to_string()]);
    let turn = w.path("turn.eml");
    std::fs::write(&turn, &to_ben).unwrap();
    ben.json(&["ingest", turn.to_str().unwrap(), "--json"]);
    ben.json(&["join", &id16, "--json"]);
    ben.json(&["ready", &id16, "--mail", "--json"]);
    w.server
        .messages()
        .into_iter()
        .find(|m| to_of(m) == vec![ROBOT.to_string()])
        .expect("Ben's ready goes to the robot")
}

#[test]
fn a_player_whose_server_vouches_is_proven_and_written_to() {
    // Anna invites the robot and Ben. The robot may not write to Ben first:
    // the log goes back to Anna, who passes it on. Ben's mail, vouched for
    // by the robot's server, proves his address: from then on the robot
    // writes to him. A copy with a forged header proves nothing.
    let Some(mut w) = World::new() else { return };
    let for_robot = bens_ready_for_the_robot(&mut w);
    // First with a header the robot's server did not write.
    let forged = [
        b"Authentication-Results: mx.evil.test; spf=pass smtp.mailfrom=ben@club.test\r\n"
            .as_slice(),
        &for_robot,
    ]
    .concat();
    w.deliver_raw(&forged);
    let (report, code) = w.robot(&["--authserv-id", AUTHSERV]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(outcomes(&report), [("refused".into(), "unproven".into())]);
    assert_eq!(w.sent(&[]).len(), 1, "nothing more from the robot");
    // Then as the robot's server delivers it: SPF passed for Ben's domain.
    let real = [
        format!("Authentication-Results: {AUTHSERV}; spf=pass smtp.mailfrom=ben@club.test\r\n")
            .as_bytes(),
        &for_robot,
    ]
    .concat();
    w.deliver_raw(&real);
    let (report, code) = w.robot(&["--authserv-id", AUTHSERV]);
    assert_eq!(code, 0, "{report}");
    let m = &report["mails"][0];
    assert_eq!(m["outcome"], "played", "{report}");
    assert_eq!(m["relayed"], false, "{report}");
    let mut to = m["mailed_to"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect::<Vec<_>>();
    to.sort();
    assert_eq!(to, ["anna@club.test", "ben@club.test"]);
    let sent = w.sent(&[]);
    assert_eq!(sent.len(), 3);
    let mut to: Vec<Vec<String>> = sent[1..].iter().map(|m| to_of(m)).collect();
    to.sort();
    assert_eq!(
        to,
        [
            vec!["anna@club.test".to_string()],
            vec!["ben@club.test".to_string()]
        ]
    );
    // What it keeps: the seats proven in this game.
    let game_id = m["game_id"].as_str().unwrap();
    let state: Value = serde_json::from_slice(
        &std::fs::read(
            w.robot
                .home
                .join("robot/games")
                .join(format!("{game_id}.json")),
        )
        .unwrap(),
    )
    .unwrap();
    let seats: Vec<u64> = state["proven"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["seat"].as_u64().unwrap())
        .collect();
    assert_eq!(seats, [0, 2], "{state}");
}

#[test]
fn passing_failures_are_tried_again_later_then_given_up() {
    let Some(mut w) = World::new() else { return };
    let anna = w.person("anna", "Anna", "anna@club.test");
    let ben = w.person("ben", "Ben", "ben@club.test");
    // The robot cannot store games: its games folder is a file.
    let games = w.robot.home.join("games");
    std::fs::write(&games, "not a folder").unwrap();
    let invite = |p: &Person, name: &str, w: &mut World| {
        let log = p.new_game(
            "starry-night",
            &[&format!("{name} <{}>", p.email), "Robo <robo@robot.test>"],
            &w.path(&format!("{name}.jsonl")),
        );
        w.deliver("", &format!("{name} <{}>", p.email), "hi", &log)
    };
    let first = invite(&anna, "Anna", &mut w);
    let second = invite(&ben, "Ben", &mut w);
    let allow = ["--allow", "*@club.test"];
    let (report, code) = w.robot(&allow);
    assert_eq!(code, 3, "a passing failure fails the run: {report}");
    for m in report["mails"].as_array().unwrap() {
        assert_eq!(
            (m["outcome"].as_str(), m["class"].as_str()),
            (Some("failed"), Some("transient"))
        );
        assert_eq!(m["attempts"], 1, "{m}");
        assert!(m["next_try"].is_string(), "{m}");
    }
    // Not before its next try.
    let (report, code) = w.robot(&allow);
    assert_eq!(
        (code, report["deferred"].as_u64()),
        (0, Some(2)),
        "{report}"
    );
    assert_eq!(report["mails"], serde_json::json!([]));
    let marker = |raw: &[u8]| {
        w.robot
            .home
            .join("robot/handled")
            .join(hex::encode(sha2::Sha256::digest(raw)))
    };
    let due_now = |raw: &[u8]| {
        let path = marker(raw);
        let mut m: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        m["next_try"] = 0.into();
        std::fs::write(&path, m.to_string()).unwrap();
    };
    // The first mail fails again at each try, and is given up after 8.
    for attempt in 2..=8 {
        due_now(&first);
        let (report, code) = w.robot(&allow);
        assert_eq!(code, 3, "{report}");
        let m = &report["mails"][0];
        assert_eq!(m["attempts"], attempt, "{report}");
        if attempt < 8 {
            assert_eq!(m["outcome"], "failed", "{report}");
        } else {
            assert_eq!(m["outcome"], "gave-up", "{report}");
            assert!(m["next_try"].is_null(), "{report}");
        }
        assert_eq!(report["deferred"], 1, "the other waits: {report}");
    }
    due_now(&first);
    let (report, code) = w.robot(&allow);
    assert_eq!(
        (code, report["handled_before"].as_u64()),
        (0, Some(1)),
        "reported once: {report}"
    );
    // Once the folder can be made, the second mail succeeds at its next try.
    std::fs::remove_file(&games).unwrap();
    due_now(&second);
    let (report, code) = w.robot(&allow);
    assert_eq!(code, 0, "{report}");
    assert_eq!(outcomes(&report), [("played".into(), "".into())]);
    assert_eq!(w.sent(&[]).len(), 1);
}

#[test]
fn a_forged_pass_under_the_servers_own_id_proves_nothing() {
    // The robot's server keeps the Authentication-Results fields a sender
    // writes (Postfix does by default). A stranger holding the log mails
    // Ben's entry From Ben, with a forged `spf=pass` for Ben's address
    // under the server's own id: below the server's Received line, or
    // beside the server's own `spf=fail`. Neither proves Ben's address,
    // and the robot writes nothing to him; the same mail as the server
    // vouches for it does.
    let Some(mut w) = World::new() else { return };
    let for_robot = bens_ready_for_the_robot(&mut w);
    let fail = format!(
        "Authentication-Results: {AUTHSERV}; spf=fail smtp.mailfrom=stranger@evil.test\r\n"
    );
    let forged = format!(
        "Authentication-Results: {AUTHSERV};\r\n\tspf=pass smtp.mailfrom=ben@club.test\r\n"
    );
    let received = "Received: from evil.test (evil.test [192.0.2.9])\r\n\tby mx.robot.test \
                    (Postfix) with ESMTP id 4Q; Fri, 27 Nov 2026 12:00:00 +0000\r\n";
    let to_ben = |w: &World| {
        w.sent(&[])
            .iter()
            .filter(|m| to_of(m).contains(&"ben@club.test".to_string()))
            .count()
    };
    for head in [
        // The server's own fail on top, its Received line, then the forgery.
        format!("{fail}{received}{forged}"),
        // Only the forgery, below the server's Received line.
        format!("{received}{forged}"),
        // Beside the server's own fail, above every Received line.
        format!("{fail}{forged}{received}"),
        format!("{forged}{fail}{received}"),
    ] {
        w.deliver_raw(&[head.as_bytes(), &for_robot].concat());
        let (report, code) = w.robot(&["--authserv-id", AUTHSERV]);
        assert_eq!(code, 0, "{report}");
        assert_eq!(
            outcomes(&report),
            [("refused".into(), "unproven".into())],
            "{head}"
        );
        assert_eq!(to_ben(&w), 0, "the robot mailed the victim: {head}");
    }
    // As the server delivers it when SPF passed for Ben: proven, played,
    // and mailed to Ben.
    w.deliver_raw(
        &[
            format!("{forged}{received}").as_bytes(),
            b"Authentication-Results: mx.evil.test; spf=fail\r\n",
            &for_robot,
        ]
        .concat(),
    );
    let (report, code) = w.robot(&["--authserv-id", AUTHSERV]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["mails"][0]["outcome"], "played", "{report}");
    assert_eq!(to_ben(&w), 1);
}
