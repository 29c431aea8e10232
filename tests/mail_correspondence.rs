//! The turn mails of a long game, through the real binary and the outbox
//! transport (no server): five players of Starry Sky play by mail to entry
//! 120 and beyond, two of them asking for their turns only
//! (`new --notify turn`, `join --notify turn`), every mail ingested by its
//! recipient. Over that one game (played once, shared by the tests):
//! - the MIME structure of every mail, the picture a real PNG that the HTML
//!   shows by its Content-ID;
//! - threading: one Message-ID per entry and recipient, References always
//!   holding the game's root, In-Reply-To the mail about the entry before,
//!   one subject for the turn mails and its `Re: ` for everything else;
//! - the size of the turn mail late in the game (printed for the record),
//!   smaller than the same mail made with `--full`;
//! - no player's secret in any part of any mail;
//! - `--notify turn`: turn mails, no reports (unless `--to-all`).
//!
//! A shorter game of three shows what `starry ingest` does with a partial
//! log: the saved attachment goes in (and a second time is nothing new);
//! with no copy, a short copy or a forked one it refuses, changes nothing
//! and names `starry mail … --full`, whose mail then settles it.

use crate::players;

use std::collections::{BTreeMap, HashSet};
use std::sync::OnceLock;

use players::*;
use serde_json::Value;
use starry::games::starry_sky::StarrySky;
use starry::log::{Action, Replay};

/// What a mail asks of its recipient.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// Must act next: the turn mail.
    Act,
    /// Another player: a report.
    Info,
}

/// One mail of the game, as written to the sender's outbox.
struct Sent {
    sender: usize,
    to: usize,
    role: Role,
    /// Index in [`Big::logs`] of the sender's log when it was sent.
    log: usize,
    /// `bytes` and `entries_from` of the sender's report.
    bytes: u64,
    entries_from: u64,
    /// The size of the `.eml` file.
    file_size: u64,
    mail: Mail,
}

struct Big {
    players: Players,
    game_id: String,
    /// The log after each command that mailed.
    logs: Vec<Vec<u8>>,
    /// Whether there was a board to draw then.
    boards: Vec<bool>,
    sent: Vec<Sent>,
    /// The turn mail about the first entry numbered 120 or more that has one
    /// (index in `sent`).
    late: usize,
    /// The same mail again, made with `starry mail --full`.
    late_full: Sent,
}

/// Seats that asked for their turns only: Anna (`new --notify turn`) and
/// Cleo (`join --notify turn`).
const TURN_ONLY: [usize; 2] = [0, 2];

/// The smallest entry the late turn mail is about.
const LATE: usize = 120;

fn id16(game_id: &str) -> &str {
    &game_id[..16]
}

/// Reads what a writing command (run with `--mail --json`) mailed, has
/// every recipient ingest its mail, and records it.
fn record(
    players: &Players,
    report: &Value,
    r: &Replay<StarrySky>,
    log: usize,
    logs: &[Vec<u8>],
    out: &mut Vec<Sent>,
) {
    let (_, who) = r.expected();
    for s in report["mail"]["sent"].as_array().unwrap() {
        let path = s["path"].as_str().unwrap();
        let eml = std::fs::read(path).unwrap();
        let mail = parse_mail(&eml);
        let to = players.seat_of(&mail.to);
        let role = if who == Some(to) {
            Role::Act
        } else {
            Role::Info
        };
        let p = &players.p[to];
        let f = p.home.join("turn.eml");
        std::fs::write(&f, &eml).unwrap();
        let v = p.json(&["ingest", f.to_str().unwrap(), "--json"]);
        assert!(
            ["created", "fast-forwarded"].contains(&v["outcome"].as_str().unwrap()),
            "{v}"
        );
        assert_eq!(
            std::fs::read(p.copy_of(&hex::encode(r.game_id))).unwrap(),
            logs[log]
        );
        out.push(Sent {
            sender: players.seat_of(&mail.from),
            to,
            role,
            log,
            bytes: s["bytes"].as_u64().unwrap(),
            entries_from: s["entries_from"].as_u64().unwrap(),
            file_size: eml.len() as u64,
            mail,
        });
    }
}

/// A five-player game played by random moves to its first turn mail past
/// entry [`LATE`]. Random moves sometimes end a game sooner (every board
/// scored, every hand empty): that game is put aside and another played.
fn play_big() -> Big {
    (0..8)
        .find_map(|_| play_big_once())
        .expect("eight random games in a row ended before entry LATE")
}

/// One such game; none when it ended before entry [`LATE`].
fn play_big_once() -> Option<Big> {
    let players = Players::new(5);
    let ps = &players.p;
    let mut report = ps[0].json(&[
        "new",
        "starry-sky",
        "--players",
        &players.emails(),
        "--notify",
        "turn",
        "--mail",
        "--json",
    ]);
    let game_id = report["status"]["game_id"].as_str().unwrap().to_string();
    let id = id16(&game_id).to_string();
    let mut logs = Vec::new();
    let mut boards = Vec::new();
    let mut sent = Vec::new();
    let mut writer = 0;
    let late = loop {
        let log = std::fs::read(ps[writer].copy_of(&game_id)).unwrap();
        let r = Replay::<StarrySky>::from_bytes(&log).unwrap();
        logs.push(log);
        boards.push(r.state.is_some());
        let first = sent.len();
        record(&players, &report, &r, logs.len() - 1, &logs, &mut sent);
        let turn = (first..sent.len()).find(|&i| sent[i].role == Role::Act);
        if r.len() as usize > LATE
            && let Some(t) = turn
        {
            break t;
        }
        if r.is_over() {
            return None;
        }
        let (action, who) = r.expected();
        let who = who.unwrap();
        let args: Vec<&str> = if action == Action::Join && who == 2 {
            vec!["join", &id, "--notify", "turn", "--mail", "--json"]
        } else {
            vec!["play", &id, "--auto", "--mail", "--json"]
        };
        report = ps[who].json(&args);
        assert!(report["mail"]["failed"].as_array().unwrap().is_empty());
        writer = who;
    };
    // The same turn mail with the whole log.
    let (sender, to, log) = (sent[late].sender, sent[late].to, sent[late].log);
    let v = ps[sender].json(&["mail", &id, "--full", "--json"]);
    let mut full = Vec::new();
    let s = v["sent"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["to"] == ps[to].email.as_str())
        .unwrap();
    let eml = std::fs::read(s["path"].as_str().unwrap()).unwrap();
    full.push(Sent {
        sender,
        to,
        role: Role::Act,
        log,
        bytes: s["bytes"].as_u64().unwrap(),
        entries_from: s["entries_from"].as_u64().unwrap(),
        file_size: eml.len() as u64,
        mail: parse_mail(&eml),
    });
    Some(Big {
        players,
        game_id,
        logs,
        boards,
        sent,
        late,
        late_full: full.pop().unwrap(),
    })
}

fn big() -> &'static Big {
    static B: OnceLock<Big> = OnceLock::new();
    B.get_or_init(play_big)
}

#[test]
fn every_mail_has_the_structure_and_a_real_picture() {
    let g = big();
    let id = id16(&g.game_id);
    let (mut with_board, mut without) = (0, 0);
    for s in &g.sent {
        let log = &g.logs[s.log];
        let entry = entries_in(log) - 1;
        let m = &s.mail;
        let html = m.html.as_ref().expect("an HTML part");
        let raw = String::from_utf8_lossy(&m.raw);
        assert!(
            raw.contains(&format!(
                "Content-Disposition: attachment; filename=\"{}\"",
                m.log_name()
            )),
            "{raw}"
        );
        if g.boards[s.log] {
            assert_eq!(m.tree, TREE_WITH_BOARD, "entry {entry}");
            let (png, cid) = m.png.as_ref().unwrap();
            let (w, h) = png_size(png);
            assert!(w > 100 && h > 100, "{w}x{h}");
            assert_eq!(cid, &format!("board.{id}.{entry}@example.org"));
            assert!(
                html.contains(&format!("<img src=\"cid:{cid}\"")),
                "the HTML shows the picture: {html}"
            );
            assert!(raw.contains("Content-Disposition: inline"), "{raw}");
            with_board += 1;
        } else {
            assert_eq!(m.tree, TREE_WITHOUT_BOARD, "entry {entry}");
            assert!(m.png.is_none());
            assert!(!html.contains("<img"), "{html}");
            without += 1;
        }
        // The HTML holds nothing that runs or fetches.
        for bad in [
            "<script", "http://", "https://", "<link", "<style", "<iframe",
        ] {
            assert!(!html.to_ascii_lowercase().contains(bad), "{bad} in {html}");
        }
        // The report's size is the size on the wire.
        assert_eq!(s.bytes, s.file_size);
    }
    assert!(with_board > 100 && without > 3, "{with_board} {without}");
}

#[test]
fn every_mail_is_threaded() {
    let g = big();
    let id = id16(&g.game_id);
    let root = format!("starry.{id}@example.org");
    let turn = game_subject("starry-sky", &g.game_id);
    let mut ids = HashSet::new();
    let mut per_recipient: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    for s in &g.sent {
        let entry = entries_in(&g.logs[s.log]) - 1;
        let m = &s.mail;
        assert_eq!(
            m.message_id,
            format!("starry.{id}.{entry}.{}@example.org", s.to + 1)
        );
        assert!(ids.insert(m.message_id.clone()), "{} twice", m.message_id);
        *per_recipient.entry((entry, s.to)).or_default() += 1;
        assert_eq!(m.references[0], root, "References start at the root");
        if entry > 1 {
            assert_eq!(
                m.references,
                vec![
                    root.clone(),
                    format!("starry.{id}.{}.{}@example.org", entry - 1, s.to + 1)
                ]
            );
        } else {
            assert_eq!(m.references, vec![root.clone()]);
        }
        assert_eq!(m.in_reply_to, vec![m.references.last().unwrap().clone()]);
        // One subject for every mail (a reply but for the turn mail), which
        // asks nothing of anyone: the text's first line does.
        match s.role {
            Role::Act => assert_eq!(m.subject, turn),
            Role::Info => assert_eq!(m.subject, format!("Re: {turn}")),
        }
        assert!(!m.subject.contains("turn"), "{}", m.subject);
        let first = flat(m.text.split("\n\n").next().unwrap());
        assert_eq!(
            first.starts_with("It is your turn in Starry Sky "),
            s.role == Role::Act,
            "{first}"
        );
        // The raw header names the root too, whatever a parser makes of it.
        let raw = String::from_utf8_lossy(&m.raw);
        assert!(raw.contains(&format!("<{root}>")), "{raw}");
    }
    assert!(per_recipient.values().all(|&n| n == 1));
    assert!(ids.len() > 300, "{}", ids.len());
}

#[test]
fn the_turn_mail_late_in_a_five_player_game_is_small() {
    let g = big();
    let s = &g.sent[g.late];
    let log = &g.logs[s.log];
    let entry = entries_in(log) - 1;
    assert!(entry >= LATE);
    assert_eq!(s.role, Role::Act);
    let png = s.mail.png.as_ref().unwrap().0.len();
    let (w, h) = png_size(&s.mail.png.as_ref().unwrap().0);
    let full = &g.late_full;
    eprintln!(
        "the turn mail about entry {entry} of a 5-player Starry Sky game, to {}: \
         {} bytes (attachment: entries {} to {entry}, {} bytes; PNG {w}x{h}, {png} bytes); \
         the same with --full: {} bytes (attachment {} bytes)",
        g.players.p[s.to].name,
        s.file_size,
        s.entries_from,
        s.mail.log().len(),
        full.file_size,
        full.mail.log().len()
    );
    // Only what the recipient lacks: the entries after their own last one.
    let from = expected_from(log, s.to);
    assert!(from > LATE - 10, "{from}");
    assert_eq!(s.entries_from as usize, from);
    assert_eq!(s.mail.log(), entries_from(log, from));
    assert_eq!(s.mail.log_name(), expected_log_name(&g.game_id, log, from));
    // --full: the whole log, the same otherwise.
    assert_eq!(full.entries_from, 0);
    assert_eq!(full.mail.log(), log.as_slice());
    assert_eq!(full.mail.log_name(), format!("{}.jsonl", id16(&g.game_id)));
    assert_eq!(full.mail.subject, s.mail.subject);
    // Sent again by hand: an id of its own, in the same thread, so that a
    // mail program holding the first does not drop it.
    let id = s.mail.message_id.trim_end_matches(|c| c != '@');
    let again = format!("{}.again-", id.trim_end_matches('@'));
    assert!(
        full.mail.message_id.starts_with(&again),
        "{} vs {}",
        full.mail.message_id,
        s.mail.message_id
    );
    assert_eq!(full.mail.references, s.mail.references);
    assert!(full.file_size > s.file_size + 20_000);
    assert_eq!(full.bytes, full.file_size);
    // Well under the earlier design's 165 KB: under a third of it until
    // the HTML part came to carry the whole text as the text part does
    // (spam filters score an HTML part whose words differ, docs/mail.md),
    // which adds about 10 KB here; now under three eighths.
    assert!(
        s.file_size < 165_000 * 3 / 8,
        "the turn mail is {} bytes (PNG {png})",
        s.file_size
    );
}

#[test]
fn no_secret_in_any_part_of_any_mail() {
    let g = big();
    let last = g.logs.last().unwrap();
    let homes: Vec<&std::path::Path> = g.players.p.iter().map(|p| p.home.as_path()).collect();
    // Every seat's secrets after each entry, in one replay of the last log
    // (every earlier log is a prefix of it).
    let along = secrets_along::<StarrySky>(&homes, last);
    let mut face_down = 0;
    for (i, log) in g.logs.iter().enumerate() {
        assert!(last.starts_with(log));
        let mails: Vec<&Sent> = g.sent.iter().filter(|s| s.log == i).collect();
        let secrets = &along[entries_in(log)];
        assert!(secrets.len() >= 5);
        for s in mails {
            assert_no_secret(&s.mail, secrets);
            face_down += s
                .mail
                .text
                .lines()
                .filter(|l| l.contains(" face down") && l.contains(" neighbours "))
                .count();
        }
    }
    assert!(
        face_down > 100,
        "the game had face-down tokens ({face_down})"
    );
}

#[test]
fn notify_turn_means_turn_mails_only() {
    let g = big();
    let ps = &g.players.p;
    // The choice is in the player's join entry.
    let first = &g.logs[g.logs.len() - 1];
    for (seat, line) in first.split(|&b| b == b'\n').take(7).enumerate() {
        if line.is_empty() || seat == 0 {
            continue;
        }
        let v: Value = serde_json::from_slice(line).unwrap();
        if v["body"]["kind"] == "join" {
            let by = v["body"]["author"].as_u64().unwrap() as usize;
            let notify = &v["body"]["data"]["notify"];
            if TURN_ONLY.contains(&by) {
                assert_eq!(notify, "turn", "{v}");
            } else {
                assert!(notify.is_null(), "{v}");
            }
        }
    }
    for (seat, p) in ps.iter().enumerate() {
        let to_me: Vec<&Sent> = g.sent.iter().filter(|s| s.to == seat).collect();
        let turns = to_me.iter().filter(|s| s.role == Role::Act).count();
        let reports = to_me.iter().filter(|s| s.role == Role::Info).count();
        assert!(turns > 10, "{} got {turns} turn mails", p.name);
        if TURN_ONLY.contains(&seat) {
            assert_eq!(reports, 0, "{} asked for turn mails only", p.name);
            assert!(
                to_me.iter().all(|s| !s.mail.subject.starts_with("Re: ")),
                "{}",
                p.name
            );
        } else {
            assert!(reports > 2 * turns, "{}: {reports} reports", p.name);
        }
    }
    // Their turn mails carry everything since their own last entry: the
    // reports they never got are in there.
    for s in g.sent.iter().filter(|s| TURN_ONLY.contains(&s.to)) {
        let log = &g.logs[s.log];
        assert_eq!(s.mail.log(), entries_from(log, expected_from(log, s.to)));
    }
    // `starry mail --to-all` reports to everybody.
    let s = &g.sent[g.late];
    let v = ps[s.sender].json(&["mail", id16(&g.game_id), "--to-all", "--json"]);
    let mut to: Vec<usize> = v["sent"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| g.players.seat_of(m["to"].as_str().unwrap()))
        .collect();
    to.sort();
    let others: Vec<usize> = (0..5).filter(|&x| x != s.sender).collect();
    assert_eq!(to, others);
    for m in v["sent"].as_array().unwrap() {
        let seat = g.players.seat_of(m["to"].as_str().unwrap());
        let mail = parse_mail(&std::fs::read(m["path"].as_str().unwrap()).unwrap());
        if seat == s.to {
            assert!(!mail.subject.starts_with("Re: "));
        } else {
            assert!(mail.subject.starts_with("Re: "), "{}", mail.subject);
            assert!(
                mail.flat_text().contains("Nothing to do for you now"),
                "{}",
                mail.text
            );
        }
    }
}

// ------------------------------------------------------------ partial logs

/// A game of three by mail (outbox), every mail ingested by its recipient,
/// until a turn mail carrying a partial log to a player who has written a
/// move; returns the players, the game id, that mail and its sender.
fn short_game() -> (Players, String, Mail, usize) {
    let players = Players::new(3);
    let ps = &players.p;
    let mut report = ps[0].json(&[
        "new",
        "starry-sky",
        "--players",
        &players.emails(),
        "--mail",
        "--json",
    ]);
    let game_id = report["status"]["game_id"].as_str().unwrap().to_string();
    let id = id16(&game_id).to_string();
    let mut writer = 0;
    for _ in 0..60 {
        let log = std::fs::read(ps[writer].copy_of(&game_id)).unwrap();
        let r = Replay::<StarrySky>::from_bytes(&log).unwrap();
        let mut turn = None;
        for path in sent_paths(&report) {
            let eml = std::fs::read(&path).unwrap();
            let mail = parse_mail(&eml);
            let to = players.seat_of(&mail.to);
            let f = ps[to].home.join("turn.eml");
            std::fs::write(&f, &eml).unwrap();
            ps[to].json(&["ingest", f.to_str().unwrap(), "--json"]);
            if r.expected().1 == Some(to) {
                turn = Some(mail);
            }
        }
        if let Some(m) = turn
            && r.len() > 16
            && expected_from(&log, players.seat_of(&m.to)) > 12
        {
            return (players, game_id, m, writer);
        }
        let who = r.expected().1.unwrap();
        report = ps[who].json(&["play", &id, "--auto", "--mail", "--json"]);
        writer = who;
    }
    panic!("no partial turn mail in 60 entries");
}

/// Runs `args` as `p`; requires exit code 7, a message naming
/// `starry mail ID --full`, and nothing changed under `p`'s home.
fn refused_needs_full(p: &Player, args: &[&str], id: &str, says: &str) -> String {
    let before = snapshot(&p.home);
    let out = p.run(args);
    let e = stderr(&out);
    assert_eq!(out.status.code(), Some(7), "{args:?}: {e}{}", stdout(&out));
    for s in [
        &format!("`starry mail {id} --full`"),
        "Nothing was changed",
        says,
    ] {
        assert!(e.contains(s), "{args:?}: expected `{s}` in: {e}");
    }
    assert_eq!(snapshot(&p.home), before, "{args:?} changed a file");
    e
}

#[test]
fn a_partial_log_goes_in_once_and_is_refused_without_the_entries_before_it() {
    let (players, game_id, mail, sender) = short_game();
    let id = id16(&game_id);
    let to = players.seat_of(&mail.to);
    let p = &players.p[to];
    let copy = p.copy_of(&game_id);
    let log = std::fs::read(&copy).unwrap();
    let first = expected_from(&log, to);
    let partial = entries_from(&log, first);
    assert_eq!(mail.log(), partial);
    let before = first_entries(&log, first);
    let saved = players.dir.path().join(mail.log_name());
    std::fs::write(&saved, mail.log()).unwrap();
    let saved = saved.to_str().unwrap();

    // The saved attachment continues the copy the recipient had...
    std::fs::write(&copy, &before).unwrap();
    let v = p.json(&["ingest", saved, "--json"]);
    assert_eq!(v["outcome"], "fast-forwarded", "{v}");
    assert_eq!(v["your_turn"], true);
    assert_eq!(std::fs::read(&copy).unwrap(), log);
    // ...and a second time is nothing new.
    let snap = snapshot(&p.home);
    let out = p.run(&["ingest", saved]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("nothing new"), "{}", stdout(&out));
    let v = p.json(&["ingest", saved, "--json"]);
    assert_eq!(v["outcome"], "unchanged");
    let eml = players.dir.path().join("turn.eml");
    std::fs::write(&eml, &mail.raw).unwrap();
    let v = p.json(&["ingest", eml.to_str().unwrap(), "--json"]);
    assert_eq!(v["outcome"], "unchanged");
    assert_eq!(snapshot(&p.home), snap);

    // Into a copy kept elsewhere, given with --into.
    let elsewhere = players.dir.path().join("elsewhere.jsonl");
    std::fs::write(&elsewhere, &before).unwrap();
    let v = p.json(&[
        "ingest",
        saved,
        "--into",
        elsewhere.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(v["outcome"], "fast-forwarded");
    assert_eq!(std::fs::read(&elsewhere).unwrap(), log);

    // No copy at all: refused (the copy is kept outside the home meanwhile).
    let kept = players.dir.path().join("kept.jsonl");
    std::fs::rename(&copy, &kept).unwrap();
    refused_needs_full(p, &["ingest", saved], id, "there is no copy of that game");
    let missing = players.dir.path().join("missing.jsonl");
    refused_needs_full(
        p,
        &["ingest", saved, "--into", missing.to_str().unwrap()],
        id,
        "there is no copy",
    );
    assert!(!missing.exists());

    // A copy too short: the entries just before the partial are missing.
    std::fs::write(&copy, first_entries(&log, first - 2)).unwrap();
    refused_needs_full(
        p,
        &["ingest", saved],
        id,
        &format!("has only {} entries", first - 2),
    );
    refused_needs_full(p, &["ingest", eml.to_str().unwrap()], id, "missing");

    // A forked copy: the recipient's own last entry, written differently
    // (played from two copies, say).
    let forked = fork_at(p, &log, first - 1);
    std::fs::write(&copy, &forked).unwrap();
    refused_needs_full(
        p,
        &["ingest", saved],
        id,
        &format!("they continue another entry {}", first - 1),
    );

    // The sender mails the whole log: that settles it.
    let v = players.p[sender].json(&["mail", id, "--full", "--json"]);
    let s = v["sent"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["to"] == p.email.as_str())
        .unwrap()
        .clone();
    assert_eq!(s["entries_from"], 0);
    let full_eml = std::fs::read(s["path"].as_str().unwrap()).unwrap();
    let full = parse_mail(&full_eml);
    assert_eq!(full.log(), log.as_slice());
    let full_file = players.dir.path().join("full.eml");
    std::fs::write(&full_file, &full_eml).unwrap();
    let full_file = full_file.to_str().unwrap();
    // With the forked copy, the whole log shows the fork: the recipient's
    // own two entries.
    let before_fork = snapshot(&p.home);
    let out = p.run(&["ingest", full_file]);
    assert_eq!(out.status.code(), Some(22), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("entry {}", first - 1)),
        "{}",
        stderr(&out)
    );
    assert_eq!(snapshot(&p.home), before_fork);
    // The short copy is completed.
    std::fs::write(&copy, first_entries(&log, first - 2)).unwrap();
    let v = p.json(&["ingest", full_file, "--json"]);
    assert_eq!(v["outcome"], "fast-forwarded");
    assert_eq!(std::fs::read(&copy).unwrap(), log);
    // With no copy, one is made.
    std::fs::remove_file(&copy).unwrap();
    let v = p.json(&["ingest", full_file, "--json"]);
    assert_eq!(v["outcome"], "created");
    assert_eq!(std::fs::read(&copy).unwrap(), log);
    assert_eq!(std::fs::read(&kept).unwrap(), log);
}

/// `log`'s first `k` entries and another entry `k` by the same author,
/// `p` (a move is random; tried again until the line differs), signed
/// elsewhere: starry refuses to sign it where `p`'s newer copy is known.
fn fork_at(p: &Player, log: &[u8], k: usize) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    for attempt in 0..30 {
        let f = dir.path().join(format!("fork-{attempt}.jsonl"));
        std::fs::write(&f, first_entries(log, k)).unwrap();
        let cheat = p.elsewhere(dir.path().join(format!("home-{attempt}")));
        let out = cheat.run(&["play", f.to_str().unwrap(), "--auto"]);
        assert!(out.status.success(), "{}", stderr(&out));
        let forked = std::fs::read(&f).unwrap();
        if first_entries(&forked, k + 1) != first_entries(log, k + 1) {
            return forked;
        }
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    panic!("could not write a different entry {k}");
}

// ------------------------------------------------------------ invitations

/// The lines of `text` that are commands to run (`starry …` or `cargo …`
/// indented by five blanks), without `starry ingest`'s note.
fn commands_in(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("     "))
        .filter(|l| l.starts_with("starry ") || l.starts_with("cargo "))
        .map(|l| l.split("      (or").next().unwrap().trim().to_string())
        .collect()
}

/// Runs `command` as a POSIX shell would for `home`, `starry` being the
/// binary under test: what a person pasting it into a terminal gets.
fn run_in_shell(home: &std::path::Path, command: &str) -> std::process::Output {
    let mut c = std::process::Command::new("sh");
    for v in starry::mail::transport::ENV_VARS {
        c.env_remove(v);
    }
    c.env("STARRY_HOME", home)
        .env("STARRY_BIN", env!("CARGO_BIN_EXE_starry"))
        .arg("-c")
        .arg(format!("starry() {{ \"$STARRY_BIN\" \"$@\"; }}\n{command}"))
        .output()
        .unwrap()
}

/// Someone new to starry, invited by mail: the mail says what starry is,
/// how to install it and the commands, in order — the identity (their
/// name and address, quoted for a shell), ingest, join. Ingesting before
/// the identity exists stores the game and says which seat waits for them
/// and how to take it; pasting the mail's commands into a shell then works.
#[test]
fn an_invitation_leads_someone_new_into_the_game() {
    let players = Players::new(2);
    let ps = &players.p;
    // Cleo has no identity yet, and a name a shell must not see unquoted.
    let cleo = Player {
        name: "Cleo O'Brien $HOME `id`".into(),
        email: "cleo@example.org".into(),
        home: players.dir.path().join("cleo"),
        env: Vec::new(),
    };
    let all = format!("{},{} <{}>", players.emails(), cleo.name, cleo.email);
    let v = ps[0].json(&["new", "starry-sky", "--players", &all, "--mail", "--json"]);
    let game_id = v["status"]["game_id"].as_str().unwrap().to_string();
    let id = id16(&game_id).to_string();
    let to_ben = sent_paths(&v);
    assert_eq!(to_ben.len(), 1);
    // The outbox file names whom it is for, the game and the entry.
    let ben_file = to_ben[0].file_name().unwrap().to_str().unwrap().to_string();
    assert!(
        ben_file.ends_with(&format!("-ben@example.org-{}-e1.eml", &id[..8])),
        "{ben_file}"
    );
    let invitation_of_ben = std::fs::read(&to_ben[0]).unwrap();
    let f = ps[1].home.join("turn.eml");
    std::fs::write(&f, &invitation_of_ben).unwrap();
    ps[1].json(&["ingest", f.to_str().unwrap(), "--json"]);
    let v = ps[1].json(&["join", &id, "--mail", "--json"]);
    let to_cleo: Vec<_> = sent_paths(&v)
        .into_iter()
        .filter(|p| p.to_str().unwrap().contains("-cleo@example.org-"))
        .collect();
    assert_eq!(to_cleo.len(), 1, "{v}");
    let eml = std::fs::read(&to_cleo[0]).unwrap();
    let mail = parse_mail(&eml);
    assert_eq!(mail.to, cleo.email);
    let text = &mail.text;
    assert!(
        text.starts_with(&format!(
            "It is your turn in Starry Sky {}: please join the game.\n",
            &id[..8]
        )),
        "{text}"
    );
    assert!(
        mail.flat_text()
            .contains("starry is the program that plays it"),
        "{text}"
    );
    // The commands, in order, the name quoted for a shell.
    let quoted = "'Cleo O'\\''Brien $HOME `id`'";
    let id_new = format!("starry id new --name {quoted} --email cleo@example.org");
    assert_eq!(
        commands_in(text),
        [
            "cargo install --path . --locked".to_string(),
            id_new.clone(),
            format!("starry ingest {id}.jsonl"),
            format!("starry view {id}"),
            format!("starry join {id} --mail"),
        ],
        "{text}"
    );

    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas/starry-sky-ingest.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let schema = jsonschema::validator_for(&schema).unwrap();

    // Cleo ingests the mail before she has an identity: the game is
    // stored, and she is told which seat waits for her and how to take it.
    let saved = players.dir.path().join("invitation.eml");
    std::fs::write(&saved, &eml).unwrap();
    let saved = saved.to_str().unwrap();
    let out = cleo.run(&["ingest", saved]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let said = stdout(&out);
    let expected = format!(
        "You have no starry identity yet (no identity at {}). This game has a seat for \
         cleo@example.org waiting to join: create your identity with `{id_new}`, then \
         `starry join {id} --mail`.",
        cleo.home.join("identity.json").display()
    );
    assert!(said.contains(&expected), "{said}");
    assert!(!said.contains("You hold no seat"), "{said}");
    assert_eq!(
        std::fs::read(cleo.copy_of(&game_id)).unwrap(),
        std::fs::read(ps[1].copy_of(&game_id)).unwrap(),
        "the game is stored"
    );
    let v = cleo.json(&["ingest", saved, "--json"]);
    assert!(schema.is_valid(&v), "{v}");
    assert_eq!(v["outcome"], "unchanged");
    let n = &v["no_identity"];
    assert_eq!(n["seats"], serde_json::json!([2]), "{v}");
    assert_eq!(n["addressed"], true);
    assert_eq!(n["create"], serde_json::json!([id_new]));
    assert_eq!(n["join"], format!("starry join {id} --mail"));

    // Not a mail (the attachment alone): every seat waiting to join is
    // listed — here two, in Ben's invitation.
    let dan = players.dir.path().join("dan");
    let attachment = players.dir.path().join(format!("{id}.jsonl"));
    std::fs::write(&attachment, parse_mail(&invitation_of_ben).log()).unwrap();
    let mut c = ps[0].command();
    let out = c
        .env("STARRY_HOME", &dan)
        .args(["ingest", attachment.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(schema.is_valid(&v), "{v}");
    assert_eq!(v["no_identity"]["seats"], serde_json::json!([1, 2]), "{v}");
    assert_eq!(v["no_identity"]["addressed"], false);
    assert_eq!(
        v["no_identity"]["create"],
        serde_json::json!([
            "starry id new --name \"Ben\" --email ben@example.org",
            id_new
        ])
    );
    let out = ps[0]
        .command()
        .env("STARRY_HOME", &dan)
        .args(["ingest", attachment.to_str().unwrap()])
        .output()
        .unwrap();
    let said = stdout(&out);
    assert!(
        said.contains("This game has seats waiting to join: Ben <ben@example.org> (seat 1), Cleo"),
        "{said}"
    );

    // The mail's commands, pasted into a shell as they are, take her in.
    let out = run_in_shell(&cleo.home, &id_new);
    assert!(out.status.success(), "{}", stderr(&out));
    let me = cleo.json(&["id", "show", "--json"]);
    assert_eq!(me["name"], cleo.name.as_str());
    assert_eq!(me["email"], cleo.email.as_str());
    let out = run_in_shell(&cleo.home, &format!("starry ingest {saved}"));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("It is your turn (join)"),
        "{}",
        stdout(&out)
    );
    let v = cleo.json(&["ingest", saved, "--json"]);
    assert!(v["no_identity"].is_null(), "{v}");
    assert_eq!(v["your_turn"], true);
    let out = run_in_shell(&cleo.home, &format!("starry join {id} --mail --json"));
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(!v["mail"]["sent"].as_array().unwrap().is_empty(), "{v}");
}
