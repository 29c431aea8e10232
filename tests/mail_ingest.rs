//! `starry ingest` through the real binary, with mails made by the real
//! binary (the outbox transport, which needs no server) — which carry the
//! log once, as an attachment, often only the entries the recipient lacks —
//! and with mails of the older form (the log attached and armored in the
//! text, made with `compose` and `body_with_armor`), which ingest still
//! reads: what it accepts, and everything it must refuse — damaged armor,
//! bad base64, two different logs, another game, a huge input, non-UTF-8
//! bodies, forks, rewritten history, tampered entries — each with a clear
//! error, the documented exit code, and every file left exactly as it was.
//! Then a property: any one-byte change to a mailed log (anywhere in a new
//! mail or in its attachment's base64, anywhere in an old one or in its
//! armored block) is refused, or yields exactly the log that was sent —
//! never a different log.

use crate::players;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use players::*;
use proptest::prelude::*;
use serde_json::Value;

/// A game played through the outbox: every mail written, in order, with the
/// sender's log when it was sent.
struct Played {
    players: Players,
    game_id: String,
    /// (sender, recipient, .eml, the sender's log)
    mails: Vec<(usize, usize, Vec<u8>, Vec<u8>)>,
    /// The last turn mail (to the player who must act), an index in `mails`.
    turn: usize,
}

impl Played {
    fn id16(&self) -> &str {
        &self.game_id[..16]
    }

    /// The last turn mail: (sender, recipient, .eml, the sender's log).
    fn turn_mail(&self) -> (usize, usize, Vec<u8>, Vec<u8>) {
        self.mails[self.turn].clone()
    }
}

fn lines(log: &[u8]) -> usize {
    log.iter().filter(|&&b| b == b'\n').count()
}

/// The first `n` entries of `log`.
fn prefix(log: &[u8], n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for l in log.split_inclusive(|&b| b == b'\n').take(n) {
        out.extend_from_slice(l);
    }
    out
}

/// Plays by mail (outbox transport) until the log has at least `entries`
/// entries, the last one is a move, and its mails include a turn mail (to
/// another player); each mail is ingested by its recipient.
fn play_outbox(entries: usize) -> Played {
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
    let mut played = Played {
        players,
        game_id,
        mails: Vec::new(),
        turn: 0,
    };
    let mut writer = 0;
    loop {
        let ps = &played.players.p;
        let log = std::fs::read(ps[writer].copy_of(&played.game_id)).unwrap();
        let status = ps[writer].json(&["status", &played.game_id[..16], "--json"]);
        let to_act = status["to_act"].as_str().map(|e| played.players.seat_of(e));
        // The writer's new mails, delivered.
        let mut turn = None;
        for f in sent_paths(&report) {
            let eml = std::fs::read(f).unwrap();
            let (to, _, _) = mail_headers(&eml);
            let r = played.players.seat_of(&to);
            let file = ps[r].home.join("turn.eml");
            std::fs::write(&file, &eml).unwrap();
            ps[r].json(&["ingest", file.to_str().unwrap(), "--json"]);
            if to_act == Some(r) {
                turn = Some(played.mails.len());
            }
            played.mails.push((writer, r, eml, log.clone()));
        }
        let last_kind = String::from_utf8_lossy(&log)
            .lines()
            .last()
            .map(|l| serde_json::from_str::<Value>(l).unwrap()["body"]["kind"].clone())
            .unwrap();
        if lines(&log) >= entries
            && last_kind == "move"
            && let Some(t) = turn
        {
            played.turn = t;
            return played;
        }
        assert_ne!(status["over"], true, "the game ended too early");
        let who = to_act.unwrap();
        report = ps[who].json(&["play", &played.game_id[..16], "--auto", "--mail", "--json"]);
        writer = who;
    }
}

/// The decoded text part of a mail, LF line ends.
fn text_of(eml: &[u8]) -> String {
    mail_text(eml).replace("\r\n", "\n")
}

/// A mail of the older form, as `starry mail` made them before: the same
/// headers and text as `eml`, and the whole `log` both attached and armored
/// at the end of the text.
fn old_style(eml: &[u8], log: &[u8]) -> Vec<u8> {
    let m = parse_mail(eml);
    let name = |field: &str| {
        let parsed = mail_parser::MessageParser::default().parse(eml).unwrap();
        let a = match field {
            "from" => parsed.from(),
            _ => parsed.to(),
        };
        a.and_then(|a| a.first())
            .and_then(|a| a.name())
            .unwrap_or_default()
            .to_string()
    };
    let mail = starry::mail::compose(&starry::mail::TurnMail {
        from_name: name("from"),
        from_email: m.from.clone(),
        to_name: name("to"),
        to_email: m.to.clone(),
        subject: m.subject.clone(),
        body_text: starry::mail::body_with_armor(&m.text, log),
        log_file_name: "game.jsonl".into(),
        log: log.to_vec(),
        ..Default::default()
    })
    .unwrap();
    starry::mail::to_eml(&mail)
}

/// The armored block of a mail's text (BEGIN to END line, with newline).
fn armor_of(eml: &[u8]) -> String {
    let t = text_of(eml);
    let start = t.find("-----BEGIN STARRY LOG-----\n").unwrap();
    let end = start + t[start..].find("-----END STARRY LOG-----").unwrap() + 25;
    t[start..end].to_string()
}

/// Runs ingest as `who` and checks that nothing under their home changed.
fn refused(p: &Player, args: &[&str], stdin: Option<&[u8]>, code: i32, says: &[&str]) -> String {
    let before = snapshot(&p.home);
    let out = match stdin {
        Some(input) => p.run_stdin(input, args),
        None => p.run(args),
    };
    let e = stderr(&out);
    assert_eq!(
        out.status.code(),
        Some(code),
        "{args:?}: {e}{}",
        stdout(&out)
    );
    for s in says {
        assert!(e.contains(s), "{args:?}: expected `{s}` in: {e}");
    }
    assert!(
        e.contains("Nothing was changed") || e.contains("nothing was changed"),
        "{e}"
    );
    assert_eq!(snapshot(&p.home), before, "{args:?} changed a file");
    e
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn older_and_repeated_mails_are_nothing_new() {
    let g = play_outbox(12);
    let (w, r, eml, log) = g.turn_mail();
    let p = &g.players.p[r];
    let copy = p.copy_of(&g.game_id);
    assert_eq!(std::fs::read(&copy).unwrap(), log);

    let f = write(g.players.dir.path(), "latest.eml", &eml);
    let out = p.run(&["ingest", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("nothing new"), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("It is your turn (move)"),
        "{}",
        stdout(&out)
    );
    assert!(
        stdout(&out).contains(&format!(
            "starry play {} \"TOKEN BOARD:STAR\" --mail",
            g.id16()
        )),
        "{}",
        stdout(&out)
    );
    // The recipient's own view: their face-down tokens are shown to them.
    assert!(stdout(&out).contains("Your view (seat"), "{}", stdout(&out));

    let (_, _, first, _) = g.mails[0].clone();
    let f = write(g.players.dir.path(), "first.eml", &first);
    let before = snapshot(&p.home);
    let v = p.json(&["ingest", f.to_str().unwrap(), "--json"]);
    assert_eq!(v["outcome"], "ahead");
    assert_eq!(v["entries_before"].as_u64().unwrap() as usize, lines(&log));
    assert_eq!(v["entries_received"], 2);
    assert_eq!(snapshot(&p.home), before);
    let out = p.run(&["ingest", f.to_str().unwrap()]);
    assert!(stdout(&out).contains("your copy"), "{}", stdout(&out));
    assert!(stdout(&out).contains("is ahead"), "{}", stdout(&out));

    // Somebody without a seat (no identity) can keep a copy too: not from
    // a mail that carries only the entries its recipient lacks (refused,
    // naming `--full`), but from the whole log that `--full` sends.
    let nobody = Player {
        name: "Nobody".into(),
        email: "nobody@example.org".into(),
        home: g.players.dir.path().join("nobody"),
        env: Vec::new(),
    };
    let into = g.players.dir.path().join("spectator-copy.jsonl");
    let latest = g.players.dir.path().join("latest.eml");
    assert!(lines(parse_mail(&eml).log()) < lines(&log), "a partial log");
    let out = nobody.run(&[
        "ingest",
        latest.to_str().unwrap(),
        "--into",
        into.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(7), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("`starry mail {} --full`", g.id16())),
        "{}",
        stderr(&out)
    );
    assert!(!into.exists());
    let v = g.players.p[w].json(&["mail", g.id16(), "--full", "--json"]);
    let full = v["sent"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["to"] == p.email.as_str())
        .unwrap()["path"]
        .as_str()
        .unwrap()
        .to_string();
    let v = nobody.json(&["ingest", &full, "--into", into.to_str().unwrap(), "--json"]);
    assert_eq!(v["outcome"], "created");
    assert_eq!(v["seat"], Value::Null);
    assert_eq!(std::fs::read(&into).unwrap(), log);
}

#[test]
fn damaged_or_strange_input_is_refused_and_changes_nothing() {
    let g = play_outbox(8);
    let dir = g.players.dir.path();
    let (_, r, eml, log) = g.turn_mail();
    let p = &g.players.p[r];
    // The player's copy lacks the last entry, so that an accepted input
    // would change it.
    let older = prefix(&log, lines(&log) - 1);
    std::fs::write(p.copy_of(&g.game_id), &older).unwrap();
    // The armored block of a mail of the older form.
    let armor = armor_of(&old_style(&eml, &log));

    // Truncated armor: the END line and the last lines are missing.
    let cut: String = armor.lines().take(5).map(|l| format!("{l}\n")).collect();
    let f = write(dir, "cut.txt", format!("my move:\n{cut}").as_bytes());
    refused(
        p,
        &["ingest", f.to_str().unwrap()],
        None,
        7,
        &["cut off", "line 2"],
    );

    // The same on standard input, pasted.
    refused(p, &["ingest"], Some(cut.as_bytes()), 7, &["cut off"]);

    // Bad base64: a character outside the alphabet.
    let mut damaged: Vec<String> = armor.lines().map(str::to_string).collect();
    damaged[3].replace_range(10..11, "#");
    let f = write(dir, "bad64.txt", damaged.join("\n").as_bytes());
    refused(
        p,
        &["ingest", f.to_str().unwrap()],
        None,
        7,
        &["damaged on line 4", "`#`"],
    );

    // A character missing: the base64 has the wrong length.
    let mut short: Vec<String> = armor.lines().map(str::to_string).collect();
    short[2].remove(7);
    let f = write(dir, "short.txt", short.join("\n").as_bytes());
    refused(
        p,
        &["ingest", f.to_str().unwrap()],
        None,
        7,
        &["wrong length"],
    );

    // Two different logs: this game attached, another game armored in the
    // text (a mail made with the library, the way `starry mail` makes them).
    let other = play_outbox(3);
    let other_log = other.turn_mail().3;
    let two = starry::mail::compose(&starry::mail::TurnMail {
        from_name: "Anna".into(),
        from_email: "anna@example.org".into(),
        to_name: p.name.clone(),
        to_email: p.email.clone(),
        subject: "two logs".into(),
        body_text: starry::mail::body_with_armor("Two games in one mail.", &other_log),
        log_file_name: "game.jsonl".into(),
        log: log.clone(),
        ..Default::default()
    })
    .unwrap();
    let f = write(dir, "two.eml", &starry::mail::to_eml(&two));
    refused(
        p,
        &["ingest", f.to_str().unwrap()],
        None,
        7,
        &["2 different starry logs"],
    );

    // Two armored blocks of different games, pasted.
    let both = format!("{armor}\n{}", starry::mail::armor(&other_log));
    refused(
        p,
        &["ingest", "-"],
        Some(both.as_bytes()),
        7,
        &["2 different"],
    );

    // A log of another game, into this game's copy: the whole log (the
    // first mail of that game, to a player who had written nothing)...
    let (_, _, other_eml, _) = other.mails[0].clone();
    assert_eq!(parse_mail(&other_eml).log()[..40], other_log[..40]);
    let f = write(dir, "other.eml", &other_eml);
    let copy = p.copy_of(&g.game_id);
    refused(
        p,
        &[
            "ingest",
            f.to_str().unwrap(),
            "--into",
            copy.to_str().unwrap(),
        ],
        None,
        14,
        &["game", &other.game_id[..16], &g.game_id[..16]],
    );
    // ...and the entries another game's player lacked: refused too, naming
    // that game.
    let (_, _, other_eml, _) = other.turn_mail();
    assert!(lines(parse_mail(&other_eml).log()) < lines(&other_log));
    let f = write(dir, "other-partial.eml", &other_eml);
    let out = p.run(&[
        "ingest",
        f.to_str().unwrap(),
        "--into",
        copy.to_str().unwrap(),
    ]);
    assert!(
        [7, 14].contains(&out.status.code().unwrap()),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains(&other.game_id[..16]),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(&copy).unwrap(), older);

    // A huge input: refused without reading it all, the limit named.
    let mut huge = eml.clone();
    huge.extend(std::iter::repeat_n(b'x', 17 << 20));
    let f = write(dir, "huge.eml", &huge);
    refused(
        p,
        &["ingest", f.to_str().unwrap()],
        None,
        7,
        &["16777216 bytes"],
    );
    std::fs::remove_file(&f).unwrap();

    // A huge attachment inside an ordinary mail.
    let big_log = [log.as_slice(), &vec![b'x'; 17 << 20]].concat();
    let big = starry::mail::compose(&starry::mail::TurnMail {
        from_name: "Anna".into(),
        from_email: "anna@example.org".into(),
        to_name: p.name.clone(),
        to_email: p.email.clone(),
        subject: "big".into(),
        body_text: "see attachment".into(),
        log_file_name: "game.jsonl".into(),
        log: big_log,
        ..Default::default()
    })
    .unwrap();
    let f = write(dir, "big.eml", &starry::mail::to_eml(&big));
    refused(
        p,
        &["ingest", f.to_str().unwrap()],
        None,
        7,
        &["limit of 16777216 bytes"],
    );
    std::fs::remove_file(&f).unwrap();

    // Non-UTF-8 bodies without a log.
    let f = write(
        dir,
        "latin1.eml",
        b"From: a@example.org\r\nTo: b@example.org\r\nSubject: x\r\n\r\n\xff\xfe\xc0 nothing \xe9\r\n",
    );
    refused(
        p,
        &["ingest", f.to_str().unwrap()],
        None,
        7,
        &["no starry log found"],
    );
    let f = write(dir, "binary.bin", b"\x00\xff\xfe\x80\x81 \xc3\x28");
    refused(
        p,
        &["ingest", f.to_str().unwrap()],
        None,
        7,
        &["no starry log found"],
    );
    // An empty input.
    refused(p, &["ingest", "-"], Some(b""), 7, &["no starry log found"]);

    // A well-armored "log" that is not UTF-8.
    let bogus = starry::mail::armor(b"{\"body\":\xff\xfe}\n");
    let f = write(dir, "bogus.txt", bogus.as_bytes());
    refused(
        p,
        &["ingest", f.to_str().unwrap()],
        None,
        10,
        &["not UTF-8"],
    );

    // A tampered log, consistently in the attachment and the armor: the
    // signature check names the entry.
    let mut tampered = log.clone();
    let n = lines(&log) - 1;
    let at = log.len() - 40;
    tampered[at] = if tampered[at] == b'A' { b'B' } else { b'A' };
    let mail = starry::mail::compose(&starry::mail::TurnMail {
        from_name: "Anna".into(),
        from_email: "anna@example.org".into(),
        to_name: p.name.clone(),
        to_email: p.email.clone(),
        subject: "tampered".into(),
        body_text: starry::mail::body_with_armor("tampered", &tampered),
        log_file_name: "game.jsonl".into(),
        log: tampered,
        ..Default::default()
    })
    .unwrap();
    let f = write(dir, "tampered.eml", &starry::mail::to_eml(&mail));
    let e = refused(
        p,
        &["ingest", f.to_str().unwrap()],
        None,
        15,
        &[&format!("entry {n}")],
    );
    assert!(e.contains("signature"), "{e}");

    // A partial log whose first line is damaged is no log at all; one
    // whose last entry is damaged names that entry.
    let part = parse_mail(&eml).log().to_vec();
    let mut cut = part.clone();
    cut[5] = b'#';
    let f = write(dir, "damaged-first.jsonl", &cut);
    let out = p.run(&["ingest", f.to_str().unwrap()]);
    assert!(!out.status.success());
    assert_eq!(std::fs::read(p.copy_of(&g.game_id)).unwrap(), older);
    let mut bad = part.clone();
    let at = bad.len() - 40;
    bad[at] = if bad[at] == b'A' { b'B' } else { b'A' };
    let f = write(dir, "damaged-last.jsonl", &bad);
    refused(
        p,
        &["ingest", f.to_str().unwrap()],
        None,
        15,
        &[&format!("entry {n}")],
    );

    // After all that, the real mail still goes in, and so does a mail of
    // the older form.
    let f = write(dir, "good.eml", &eml);
    let v = p.json(&["ingest", f.to_str().unwrap(), "--json"]);
    assert_eq!(v["outcome"], "fast-forwarded");
    assert_eq!(std::fs::read(p.copy_of(&g.game_id)).unwrap(), log);
    std::fs::write(p.copy_of(&g.game_id), &older).unwrap();
    let f = write(dir, "old.eml", &old_style(&eml, &log));
    let v = p.json(&["ingest", f.to_str().unwrap(), "--json"]);
    assert_eq!(v["outcome"], "fast-forwarded");
    assert_eq!(std::fs::read(p.copy_of(&g.game_id)).unwrap(), log);
    // Only the armored block of it, pasted.
    std::fs::write(p.copy_of(&g.game_id), &older).unwrap();
    let v: Value = serde_json::from_slice(
        &p.run_stdin(
            format!("here:\n{armor}").as_bytes(),
            &["ingest", "-", "--json"],
        )
        .stdout,
    )
    .unwrap();
    assert_eq!(v["outcome"], "fast-forwarded");
    assert_eq!(std::fs::read(p.copy_of(&g.game_id)).unwrap(), log);
}

/// The index (in `mails`) of the last turn mail, which carried a move,
/// with the entry number of that move.
fn last_move(g: &Played) -> (usize, usize) {
    (g.turn, lines(&g.mails[g.turn].3) - 1)
}

/// A copy of `log` cut before entry `k`, where `seat` writes entry k again,
/// differently (a move is random; retried until the line differs). Each
/// entry is signed by its player elsewhere (`Player::elsewhere`): starry
/// refuses to sign it where the player's newer copy is known.
fn rewrite(g: &Played, log: &[u8], k: usize, seat: usize, extra: usize) -> Vec<u8> {
    let dir = g.players.dir.path();
    for attempt in 0..30 {
        let f = dir.join(format!("fork-{attempt}.jsonl"));
        std::fs::write(&f, prefix(log, k)).unwrap();
        let homes = tempfile::tempdir().unwrap();
        let elsewhere = |s: usize| g.players.p[s].elsewhere(homes.path().join(s.to_string()));
        let out = elsewhere(seat).run(&["play", f.to_str().unwrap(), "--auto"]);
        assert!(out.status.success(), "{}", stderr(&out));
        let forked = std::fs::read(&f).unwrap();
        if prefix(&forked, k + 1) == prefix(log, k + 1) {
            std::thread::sleep(std::time::Duration::from_millis(300));
            continue;
        }
        // Play on from the forked entry.
        for _ in 0..extra {
            let s = g.players.p[0].json(&["status", f.to_str().unwrap(), "--json"]);
            let who = g.players.seat_of(s["to_act"].as_str().unwrap());
            let out = elsewhere(who).run(&["play", f.to_str().unwrap(), "--auto"]);
            assert!(out.status.success(), "{}", stderr(&out));
        }
        return std::fs::read(&f).unwrap();
    }
    panic!("could not write a different entry {k}");
}

#[test]
fn forks_and_rewritten_history_are_refused_naming_the_entry() {
    let g = play_outbox(16);
    let (i, k) = last_move(&g);
    let (writer, r, _, log) = g.mails[i].clone();
    let p = &g.players.p[r];
    assert_eq!(std::fs::read(p.copy_of(&g.game_id)).unwrap(), log);

    // A fork: the writer of entry k writes another entry k and mails it.
    let forked = rewrite(&g, &log, k, writer, 0);
    assert_eq!(lines(&forked), lines(&log));
    let w = &g.players.p[writer];
    let ff = write(g.players.dir.path(), "forked.jsonl", &forked);
    let v = w.json(&["mail", ff.to_str().unwrap(), "--json"]);
    let sent = v["sent"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["to"] == p.email.as_str())
        .unwrap();
    // The mail carries only what the recipient lacks, the forked entry
    // among it; their copy supplies the rest, and the fork shows.
    assert!(sent["entries_from"].as_u64().unwrap() > 0);
    let fork_eml = std::fs::read(sent["path"].as_str().unwrap()).unwrap();
    assert!(lines(parse_mail(&fork_eml).log()) < lines(&forked));
    let f = write(g.players.dir.path(), "fork.eml", &fork_eml);
    let e = refused(
        p,
        &["ingest", f.to_str().unwrap()],
        None,
        22,
        &[
            &format!("entry {k} (line {})", k + 1),
            "fork",
            "signed two different entries",
            "proof of cheating",
            &w.name,
        ],
    );
    eprintln!("fork: {e}");

    // Rewritten history: a longer, valid log that replaces entry k and goes
    // on from there.
    let rewritten = rewrite(&g, &log, k, writer, 3);
    assert!(lines(&rewritten) > lines(&log));
    let f = write(
        g.players.dir.path(),
        "rewritten.txt",
        starry::mail::armor(&rewritten).as_bytes(),
    );
    let e = refused(
        p,
        &["ingest", f.to_str().unwrap()],
        None,
        22,
        &[&format!("entry {k}"), "not a continuation"],
    );
    eprintln!("rewritten: {e}");

    // History rewritten further back: the copy of an earlier recipient.
    let (_, r0, _, log0) = g.mails[2].clone();
    let p0 = &g.players.p[r0];
    std::fs::write(p0.copy_of(&g.game_id), &log0).unwrap();
    let out = p0.run(&["ingest", f.to_str().unwrap()]);
    // Their copy is a prefix of both: the rewritten log is a fast-forward
    // for them. It is a valid log; the fork shows once the two meet.
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read(p0.copy_of(&g.game_id)).unwrap(), rewritten);
}

// ------------------------------------------------------------ one-byte changes

struct Fixture {
    players: Players,
    /// Who ingests.
    seat: usize,
    /// A turn mail as the binary makes it: the log once, attached, holding
    /// the entries its recipient lacks.
    eml: Vec<u8>,
    /// The same mail in the older form: the whole log attached and armored.
    old: Vec<u8>,
    log: Vec<u8>,
    /// The log without its last entry: the local copy before the mail.
    before: Vec<u8>,
    /// Byte ranges of the attachment's base64 in `eml` and in `old`, and of
    /// the armored block in `old`.
    attachment: std::ops::Range<usize>,
    old_attachment: std::ops::Range<usize>,
    armor: std::ops::Range<usize>,
}

/// The byte range of the base64 of the attached log in a raw mail.
fn attachment_range(raw: &str) -> std::ops::Range<usize> {
    let part = raw.find("Content-Type: application/x-ndjson").unwrap();
    let start = part + raw[part..].find("\r\n\r\n").unwrap() + 4;
    let end = start + raw[start..].find("\r\n--").unwrap();
    assert!(
        raw[part..start].contains("Content-Transfer-Encoding: base64"),
        "{}",
        &raw[part..start]
    );
    start..end
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let g = play_outbox(10);
        let (_, seat, eml, log) = g.turn_mail();
        let before = prefix(&log, lines(&log) - 1);
        assert!(lines(parse_mail(&eml).log()) < lines(&log), "a partial log");
        let old = old_style(&eml, &log);
        let raw = String::from_utf8(eml.clone()).unwrap();
        let old_raw = String::from_utf8(old.clone()).unwrap();
        let b_start = old_raw.find("-----BEGIN STARRY LOG-----\r\n").unwrap() + 28;
        let b_end = b_start + old_raw[b_start..].find("-----END STARRY LOG-----").unwrap();
        Fixture {
            players: g.players,
            seat,
            attachment: attachment_range(&raw),
            old_attachment: attachment_range(&old_raw),
            armor: b_start..b_end,
            eml,
            old,
            log,
            before,
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 512,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn any_one_byte_change_is_refused_or_harmless(
        region in 0u8..4,
        pos in any::<prop::sample::Index>(),
        byte in any::<u8>(),
    ) {
        let f = fixture();
        let (original, range) = match region {
            0 => (&f.eml, 0..f.eml.len()),
            1 => (&f.eml, f.attachment.clone()),
            2 => (&f.old, 0..f.old.len()),
            _ => (&f.old, f.armor.clone()),
        };
        let i = range.start + pos.index(range.len());
        prop_assume!(original[i] != byte);
        let mut eml = original.clone();
        eml[i] = byte;
        let dir = tempfile::tempdir().unwrap();
        let mail = dir.path().join("changed.eml");
        std::fs::write(&mail, &eml).unwrap();
        let copy = dir.path().join("copy.jsonl");
        std::fs::write(&copy, &f.before).unwrap();
        let p = &f.players.p[f.seat];
        let out = p.run(&[
            "ingest",
            mail.to_str().unwrap(),
            "--into",
            copy.to_str().unwrap(),
        ]);
        let now = std::fs::read(&copy).unwrap();
        if out.status.success() {
            prop_assert!(
                now == f.log,
                "byte {} set to {:#04x}: accepted a different log",
                i,
                byte
            );
        } else {
            prop_assert!(
                now == f.before,
                "byte {} set to {:#04x}: refused but changed the copy",
                i,
                byte
            );
            prop_assert!(!stderr(&out).is_empty());
        }
    }
}

#[test]
fn a_damaged_attachment_beside_an_intact_armored_block_gives_way_to_it() {
    let f = fixture();
    // Change one base64 digit in the middle of the attachment of a mail of
    // the older form: it still decodes, to a log that no longer verifies.
    let i = f.old_attachment.start + f.old_attachment.len() / 2;
    let mut eml = f.old.clone();
    eml[i] = if eml[i] == b'A' { b'B' } else { b'A' };
    let dir = tempfile::tempdir().unwrap();
    let mail = dir.path().join("damaged.eml");
    std::fs::write(&mail, &eml).unwrap();
    let copy = dir.path().join("copy.jsonl");
    std::fs::write(&copy, &f.before).unwrap();
    let out = f.players.p[f.seat].run(&[
        "ingest",
        mail.to_str().unwrap(),
        "--into",
        copy.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read(&copy).unwrap(),
        f.log,
        "the intact copy was taken"
    );
}

/// The mail the web player composes (docs/mail.md, "Player links"), as the
/// player's own mail program sends it from a `mailto:`: a Subject, a
/// plain-text body with a sentence, the player link and the armored block
/// of the new entries only; no attachment, no X-Starry header. Its lines
/// are wrapped at `width` columns and each begins with `quote`, as mail
/// programs do to text.
fn web_mail(
    to: &str,
    subject: &str,
    link: &str,
    entries: &[u8],
    width: usize,
    quote: &str,
) -> Vec<u8> {
    let armor = starry::mail::armor(entries);
    let mut body = format!("I played in {subject}. Play in your browser, nothing to install:\n");
    for chunk in link.as_bytes().chunks(width) {
        body.push_str(std::str::from_utf8(chunk).unwrap());
        body.push('\n');
    }
    body.push('\n');
    for line in armor.lines() {
        for chunk in line.as_bytes().chunks(width) {
            body.push_str(std::str::from_utf8(chunk).unwrap());
            body.push('\n');
        }
    }
    let body: String = body.lines().map(|l| format!("{quote}{l}\r\n")).collect();
    format!(
        "From: Web Player <web@example.org>\r\nTo: {to}\r\nSubject: {subject}\r\n\
         Date: Fri, 27 Nov 2026 10:00:00 +0000\r\nMessage-ID: <w1@example.org>\r\n\
         MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\
         Content-Transfer-Encoding: 8bit\r\n\r\n{body}"
    )
    .into_bytes()
}

#[test]
fn the_web_players_mail_and_link_are_taken_and_the_game_goes_on() {
    let g = play_outbox(10);
    let ps = &g.players.p;
    let id16 = g.id16();
    // Everyone at the same entry first (a bare copy of the log).
    let (_, r, _, log) = g.turn_mail();
    let shared = write(g.players.dir.path(), "shared.jsonl", &log);
    for p in ps {
        p.json(&["ingest", shared.to_str().unwrap(), "--json"]);
        assert_eq!(std::fs::read(p.copy_of(&g.game_id)).unwrap(), log);
    }
    // The player to act plays in the web player: the entry is written,
    // and their mail carries it alone, line-wrapped (and, to one of the
    // others, quoted).
    ps[r].json(&["play", id16, "--auto", "--json"]);
    let after = std::fs::read(ps[r].copy_of(&g.game_id)).unwrap();
    let new = entries_from(&after, entries_in(&log));
    assert_eq!(entries_in(&new), 1);
    let subject = game_subject("starry-sky", &g.game_id);
    let link = starry_core::link::link_of("https://example.org/starry/", &new);
    let others: Vec<usize> = (0..3).filter(|&s| s != r).collect();

    // By `starry ingest`, wrapped at 60 columns and quoted.
    let q = others[0];
    let mail = web_mail(&ps[q].email, &subject, &link, &new, 60, "> ");
    assert!(!String::from_utf8_lossy(&mail).contains("X-Starry"));
    let file = write(&ps[q].home, "web.eml", &mail);
    let out = ps[q].json(&["ingest", file.to_str().unwrap(), "--json"]);
    assert_eq!(out["outcome"], "fast-forwarded", "{out}");
    assert_eq!(std::fs::read(ps[q].copy_of(&g.game_id)).unwrap(), after);

    // By `starry sync` from a maildir, wrapped at 40 columns: taken and
    // filed away, the sentence and the link no one's note.
    let s = others[1];
    let maildir = ps[s].home.join("Mail");
    for sub in ["new", "cur", "tmp"] {
        std::fs::create_dir_all(maildir.join(sub)).unwrap();
    }
    let mail = web_mail(&ps[s].email, &subject, &link, &new, 40, "");
    write(&maildir.join("new"), "1764237600.web.host", &mail);
    let out = ps[s].json(&["sync", "--maildir", maildir.to_str().unwrap(), "--json"]);
    assert_eq!(out["mails"][0]["outcome"], "taken", "{out}");
    assert!(out["mails"][0].get("note").is_none(), "{out}");
    assert_eq!(std::fs::read(ps[s].copy_of(&g.game_id)).unwrap(), after);

    // The game goes on from the CLI, whose turn mails now carry a link;
    // the web player (here a CLI player too) takes the link alone, as an
    // argument.
    let status = ps[q].json(&["status", id16, "--json"]);
    let next = g.players.seat_of(status["to_act"].as_str().unwrap());
    let url = "https://example.org/starry/";
    let out = ps[next].run_env(
        &[("STARRY_PLAYER_URL", url)],
        &["play", id16, "--auto", "--mail", "--json"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let latest = std::fs::read(ps[next].copy_of(&g.game_id)).unwrap();
    let mut linked = false;
    for f in sent_paths(&report) {
        let eml = std::fs::read(f).unwrap();
        let (to, _, _) = mail_headers(&eml);
        let t = text_of(&eml);
        let at = t.find(url).expect("the mail carries a player link");
        let their_link = t[at..].lines().next().unwrap().to_string();
        let who = g.players.seat_of(&to);
        let before = std::fs::read(ps[who].copy_of(&g.game_id)).unwrap();
        let out = ps[who].json(&["ingest", &their_link, "--json"]);
        assert_eq!(out["outcome"], "fast-forwarded", "{out}");
        assert_eq!(std::fs::read(ps[who].copy_of(&g.game_id)).unwrap(), latest);
        assert!(before.len() < latest.len());
        linked = true;
    }
    assert!(linked);
}
