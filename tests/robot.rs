//! `starry robot` end to end: a human plays whole games against the robot
//! by mail — through the real SMTP server of the mail tests (its maildir is
//! the robot's mailbox), and through outbox folders — with the robot run
//! again and again as cron would. Nothing is answered twice, and the final
//! logs audit valid. A tampered log is refused with a mail saying why.
//!
//! Needs python3 with aiosmtpd (tests/smtp_server/mod.rs says what happens
//! without it).

mod smtp_server;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;
use serde_json::Value;
use smtp_server::*;

struct Person {
    home: PathBuf,
    email: String,
    env: Vec<(String, String)>,
}

impl Person {
    fn new(dir: &Path, name: &str, env: &[(&str, &str)]) -> Person {
        let p = Person {
            home: dir.join(name.to_lowercase()),
            email: format!("{}@example.org", name.to_lowercase()),
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        };
        let out = p.run(&["id", "new", "--name", name, "--email", &p.email]);
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

    fn games(&self) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(self.home.join("games"))
            .map(|d| d.map(|e| e.unwrap().path()).collect())
            .unwrap_or_default();
        v.sort();
        v
    }
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The addresses a mail is for (its `To`).
fn to_of(raw: &[u8]) -> Vec<String> {
    starry::mail::headers(raw).unwrap().recipients
}

/// Runs the robot twice, as cron would; the second run finds nothing new
/// and changes nothing. Returns the first run's report.
fn robot_twice(robot: &Person, source: &[&str]) -> Value {
    let mut args = vec!["robot", "--level", "1", "--seed", "7", "--json"];
    args.extend_from_slice(source);
    let first = robot.json(&args);
    let logs: Vec<Vec<u8>> = robot
        .games()
        .iter()
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    let again = robot.json(&args);
    // Only mails that arrived meanwhile are new, and none of them is for
    // the robot (a shared maildir also receives the robot's own mails).
    for m in again["mails"].as_array().unwrap() {
        assert_eq!(m["outcome"], "not-for-me", "{again}");
    }
    assert_eq!(again["played"], 0);
    assert_eq!(again["refused"], 0);
    let after: Vec<Vec<u8>> = robot
        .games()
        .iter()
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    assert_eq!(logs, after, "a second run writes nothing");
    first
}

/// Plays until the game is over and countersigned by both: the robot
/// answers from `robot_source`, the human takes every mail `mails_for_human`
/// returns (new ones only) and plays `--auto`. Returns how many entries the
/// robot reported writing.
fn play_out(
    human: &Person,
    robot: &Person,
    robot_source: &[&str],
    mut mails_for_human: impl FnMut() -> Vec<(String, Vec<u8>)>,
) -> usize {
    let mut taken: HashSet<String> = HashSet::new();
    let mut robot_entries = 0;
    for _round in 0..200 {
        let report = robot_twice(robot, robot_source);
        for m in report["mails"].as_array().unwrap() {
            assert_ne!(m["outcome"], "failed", "{m}");
            assert_ne!(m["outcome"], "refused", "{m}");
            robot_entries += m["entries"].as_array().unwrap().len();
        }
        for (name, raw) in mails_for_human() {
            if !taken.insert(name.clone()) || !to_of(&raw).contains(&human.email) {
                continue;
            }
            let f = human.home.join("turn.eml");
            std::fs::write(&f, &raw).unwrap();
            let out = human.run(&["ingest", f.to_str().unwrap()]);
            assert!(out.status.success(), "{}", stderr(&out));
        }
        let game = human.games()[0].clone();
        let status = human.json(&["status", game.to_str().unwrap(), "--json"]);
        let countersigned = status["seats"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["countersigned"] == true)
            .count();
        if status["over"] == true && countersigned == 2 {
            return robot_entries;
        }
        let mine_signed = status["seats"][0]["countersigned"] == true;
        if status["to_act"] == human.email.as_str() || (status["over"] == true && !mine_signed) {
            let out = human.run(&["play", game.to_str().unwrap(), "--auto", "--mail"]);
            assert!(out.status.success(), "{}", stderr(&out));
        }
    }
    panic!("the game did not end");
}

/// Both copies are the same, audit valid, and are countersigned by both.
fn check_copies(human: &Person, robot: &Person) -> Vec<u8> {
    let (h, r) = (human.games()[0].clone(), robot.games()[0].clone());
    let log = std::fs::read(&h).unwrap();
    assert_eq!(log, std::fs::read(&r).unwrap(), "the two copies agree");
    for (p, f) in [(human, &h), (robot, &r)] {
        let audit = p.json(&["audit", f.to_str().unwrap(), "--json"]);
        assert_eq!(audit["valid"], true, "{audit}");
        assert_eq!(audit["state"], "finished", "{audit}");
    }
    log
}

/// Entries of `log` written by the seat with `email`'s key, after its join.
fn entries_by(log: &[u8], seat: u64) -> usize {
    log.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .filter(|l| {
            let v: Value = serde_json::from_slice(l).unwrap();
            v["body"]["author"] == seat && v["body"]["kind"] != "genesis"
        })
        .count()
}

#[test]
fn a_whole_game_against_the_robot_through_the_smtp_server() {
    let Some(py) = python_or_skip() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&py, dir.path(), Mode::Plain, 0);
    let port = server.port.to_string();
    let env = [
        ("STARRY_SMTP_HOST", "127.0.0.1"),
        ("STARRY_SMTP_PORT", port.as_str()),
        ("STARRY_SMTP_SECURITY", "none"),
    ];
    let human = Person::new(dir.path(), "Anna", &env);
    let robot = Person::new(dir.path(), "Robo", &env);
    let players = format!("{},{}", human.email, robot.email);
    let out = human.run(&[
        "new",
        "starry-night",
        "--players",
        &players,
        "--random-stars",
        "10",
        "--mail",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let maildir = server.maildir.to_str().unwrap().to_string();
    let source = ["--maildir", maildir.as_str()];
    let robot_entries = play_out(&human, &robot, &source, || server.messages_by_name());
    let log = check_copies(&human, &robot);
    // Every entry the robot wrote was reported once: join, ready, its
    // moves and its countersignature, nothing twice.
    assert_eq!(robot_entries, entries_by(&log, 1));
    assert!(robot_entries >= 4, "{robot_entries}");
    // The robot's mails all went to the human.
    let from_robot: Vec<Vec<u8>> = server
        .messages()
        .into_iter()
        .filter(|m| {
            starry::mail::headers(m)
                .and_then(|h| h.from)
                .is_some_and(|(_, e)| e == robot.email)
        })
        .collect();
    assert!(!from_robot.is_empty());
    assert!(
        from_robot
            .iter()
            .all(|m| to_of(m) == vec![human.email.clone()])
    );

    // A tampered log is refused, once, with a mail to its sender saying why.
    let mut tampered = log.clone();
    let at = tampered.len() - 20;
    tampered[at] = if tampered[at] == b'A' { b'B' } else { b'A' };
    let mail = format!(
        "From: Anna <{}>\r\nTo: {}\r\nSubject: my copy\r\nMessage-ID: <tampered.1@example.org>\r\n\r\n{}",
        human.email,
        robot.email,
        starry::mail::armor(&tampered)
    );
    std::fs::write(server.maildir.join("new").join("9999999999.tampered"), mail).unwrap();
    let before = server.messages().len();
    let report = robot_twice(&robot, &source);
    let m = &report["mails"][0];
    assert_eq!(m["outcome"], "refused", "{report}");
    assert_ne!(m["code"], 0);
    assert_eq!(report["refused"], 1);
    let replies: Vec<Vec<u8>> = server.messages()[before..].to_vec();
    assert_eq!(replies.len(), 1, "one refusal, not two");
    let reply = String::from_utf8_lossy(&replies[0]).into_owned();
    assert!(reply.contains("your game log was refused"), "{reply}");
    assert!(
        reply.contains("In-Reply-To: <tampered.1@example.org>"),
        "{reply}"
    );
    assert_eq!(to_of(&replies[0]), vec![human.email.clone()]);
    assert_eq!(check_copies(&human, &robot), log, "nothing was changed");
}

#[test]
fn the_robot_answers_outbox_files_and_skips_mails_for_others() {
    // No mail server: each player's program writes .eml files into its own
    // outbox, and the other side reads that folder.
    let dir = tempfile::tempdir().unwrap();
    let human = Person::new(dir.path(), "Anna", &[]);
    let robot = Person::new(dir.path(), "Robo", &[]);
    let players = format!("{},{}", human.email, robot.email);
    let out = human.run(&["new", "star-map", "--players", &players, "--mail"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let outbox = human.home.join("outbox");
    // A mail in the folder for somebody else is left alone.
    std::fs::write(
        outbox.join("0-other.eml"),
        "From: Anna <anna@example.org>\r\nTo: ben@example.org\r\nSubject: hi\r\n\r\nhello\r\n",
    )
    .unwrap();
    let first = robot_twice(&robot, &["--outbox", outbox.to_str().unwrap()]);
    let outcomes: Vec<&str> = first["mails"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["outcome"].as_str().unwrap())
        .collect();
    assert!(outcomes.contains(&"not-for-me"), "{first}");
    assert!(outcomes.contains(&"played"), "{first}");
    let robot_outbox = robot.home.join("outbox");
    let robot_source = ["--outbox", outbox.to_str().unwrap()];
    let robot_entries = play_out(&human, &robot, &robot_source, || {
        let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(&robot_outbox)
            .map(|d| {
                d.map(|e| {
                    let p = e.unwrap().path();
                    (p.display().to_string(), std::fs::read(&p).unwrap())
                })
                .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    }) + first["mails"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["entries"].as_array().unwrap().len())
        .sum::<usize>();
    let log = check_copies(&human, &robot);
    assert_eq!(robot_entries, entries_by(&log, 1));
}

#[test]
fn the_robot_says_what_it_needs() {
    let dir = tempfile::tempdir().unwrap();
    let robot = Person::new(dir.path(), "Robo", &[]);
    for (args, says) in [
        (vec!["robot"], "--maildir"),
        (
            vec!["robot", "--maildir", "/nonexistent/mail"],
            "not a maildir",
        ),
        (
            vec!["robot", "--outbox", "/nonexistent/out"],
            "not a folder",
        ),
        (
            vec!["robot", "--outbox", ".", "--level", "0"],
            "0 is not in 1..=3",
        ),
    ] {
        let out = robot.run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
    }
    // Without an identity there is nobody to play for.
    let nobody = dir.path().join("nobody");
    std::fs::create_dir_all(&nobody).unwrap();
    let out = Command::cargo_bin("starry")
        .unwrap()
        .env("STARRY_HOME", &nobody)
        .args(["robot", "--outbox", "."])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
}

#[cfg(unix)]
#[test]
fn the_robot_survives_a_hostile_maildir() {
    // Whoever can write to the maildir chooses the files and their names:
    // junk, a name that would break a terminal line, a FIFO (that would
    // block a reader), a link to an endless device. None of them hangs the
    // robot, is answered, or breaks its one-line-per-mail report.
    let dir = tempfile::tempdir().unwrap();
    let robot = Person::new(dir.path(), "Robo", &[]);
    let maildir = dir.path().join("mail");
    let new = maildir.join("new");
    std::fs::create_dir_all(&new).unwrap();
    std::fs::write(new.join("junk"), b"\x00\x01not a mail\xff").unwrap();
    std::fs::write(
        new.join("evil\x1b[31m\nname"),
        "From: x@example.org\r\nTo: robo@example.org\r\nSubject: \x1b[2J\r\n\r\nhello\r\n",
    )
    .unwrap();
    let fifo = new.join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    std::os::unix::fs::symlink("/dev/zero", new.join("zero")).unwrap();
    let out = Command::cargo_bin("starry")
        .unwrap()
        .env("STARRY_HOME", &robot.home)
        .args(["robot", "--maildir", maildir.to_str().unwrap()])
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains('\x1b'), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "two mails and the summary: {text}");
    assert!(
        lines[0..2].iter().any(|l| l.ends_with(": no log")),
        "{text}"
    );
    assert!(
        lines[0..2].iter().any(|l| l.ends_with(": not for me")),
        "{text}"
    );
    assert!(lines[2].starts_with("2 new mails: 0 played"), "{text}");
    // Nothing was answered.
    assert!(!robot.home.join("outbox").exists());
    assert!(!robot.home.join("pending").exists());
}
