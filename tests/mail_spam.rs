//! Every kind of mail starry sends, scored by SpamAssassin: whole games of
//! Starry Sky, Star Map and Starry Night played by mail through the real
//! binary (the outbox transport), with a reminder, a mail sent again with
//! `--full`, and the robot's mail that sends a log back to pass on. Each
//! mail must score at most 1.0 on content alone (`spamassassin --local`:
//! no network tests, no Bayes), where 5.0 is spam; a failure prints the
//! rules it hit.
//!
//! SpamAssassin compares a mail's text and HTML parts: when the text has
//! more than three times the words of the HTML it adds 2.8
//! (`MPART_ALT_DIFF_COUNT`), and an HTML part that is mostly a picture
//! adds up to 2.8 more (`HTML_IMAGE_ONLY_*`). So every mail (not only those
//! scored) is checked here to carry the same words in both parts.
//!
//! Needs SpamAssassin (Debian: `apt-get install spamassassin`; `.ci/run`
//! installs it). Without it the test fails, saying how to install it;
//! STARRY_SKIP_SPAM_TESTS=1 turns that into a loud skip. One SpamAssassin
//! process scores all the chosen mails at once (an mbox): it takes a second
//! or more to start, and a tenth of that per mail.

use crate::players;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use players::*;
use serde_json::Value;

/// The most a mail of starry's may score.
const MOST: f64 = 1.0;

/// The `spamassassin` program, or None after saying loudly why the test is
/// skipped (a failure unless STARRY_SKIP_SPAM_TESTS=1).
fn spamassassin_or_skip() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("spamassassin"))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        let text = "\n\n################################################################\n\
             ## SKIPPED: the spam score of starry's mails: no `spamassassin` found\n\
             ## Install it with: apt-get install spamassassin (Debian, Ubuntu)\n\
             ## (or set STARRY_SKIP_SPAM_TESTS=1 to skip this test knowingly)\n\
             ################################################################\n";
        if !std::env::var("STARRY_SKIP_SPAM_TESTS").is_ok_and(|v| !v.is_empty() && v != "0") {
            panic!("{text}");
        }
        eprintln!("{text}");
    }
    found
}

/// One mail starry sent: which game, and the message as written.
struct Sent {
    game: &'static str,
    eml: Vec<u8>,
}

/// Plays a whole game of `game` for `n` players by mail, `extra` added to
/// `new`: everyone runs `play --auto --mail` (join, ready, moves, reveals)
/// when it is their turn, then countersigns when named; each mail is
/// ingested by its recipient. On the way, the player awaited after
/// `remind_at` entries is reminded, and the log is mailed again with
/// `--full`. Returns every mail, oldest first.
fn play_by_mail(game: &'static str, n: usize, extra: &[&str], remind_at: usize) -> Vec<Sent> {
    play_by_mail_with(game, n, extra, remind_at, &[])
}

/// [`play_by_mail`] with the variables `env` set for every player.
fn play_by_mail_with(
    game: &'static str,
    n: usize,
    extra: &[&str],
    remind_at: usize,
    env: &[(&str, &str)],
) -> Vec<Sent> {
    let mut players = Players::new(n);
    players.set_env(env);
    let ps = &players.p;
    let mut args = vec!["new", game, "--players"];
    let emails = players.emails();
    args.push(&emails);
    args.extend_from_slice(extra);
    args.extend(["--mail", "--json"]);
    let v = ps[0].json(&args);
    let id16 = v["status"]["game_id"].as_str().unwrap()[..16].to_string();
    let mut sent = Vec::new();
    let mut seen = BTreeSet::new();
    let mut deliver = |sent: &mut Vec<Sent>| {
        for p in ps {
            for f in p.outbox() {
                if !seen.insert(f.clone()) {
                    continue;
                }
                let eml = std::fs::read(&f).unwrap();
                let to = parse_mail(&eml).to;
                players.p[players.seat_of(&to)].json(&["ingest", f.to_str().unwrap(), "--json"]);
                sent.push(Sent { game, eml });
            }
        }
    };
    deliver(&mut sent);
    let mut reminded = false;
    for _ in 0..1000 {
        let status = ps[0].json(&["status", &id16, "--json"]);
        if !reminded && status["entries"].as_u64().unwrap() as usize >= remind_at {
            let awaited = players.seat_of(status["to_act"].as_str().unwrap());
            let other = &ps[(awaited + 1) % n];
            other.json(&["remind", &id16, "--json"]);
            other.json(&["mail", &id16, "--full", "--json"]);
            reminded = true;
            deliver(&mut sent);
        }
        if status["over"] == true {
            // The mails name one player who countersigns next: the first
            // seat that has not, and did not write the last entry.
            let log = std::fs::read(ps[0].copy_of(status["game_id"].as_str().unwrap())).unwrap();
            let last: Value = serde_json::from_slice(
                log.trim_ascii_end().rsplit(|&b| b == b'\n').next().unwrap(),
            )
            .unwrap();
            let open: Vec<usize> = status["seats"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|s| s["countersigned"] == false)
                .map(|s| s["seat"].as_u64().unwrap() as usize)
                .collect();
            let Some(&next) = open
                .iter()
                .find(|&&s| Some(s as u64) != last["body"]["author"].as_u64())
                .or(open.first())
            else {
                break;
            };
            ps[next].json(&["countersign", &id16, "--mail", "--yes", "--json"]);
        } else {
            let who = players.seat_of(status["to_act"].as_str().unwrap());
            ps[who].json(&["play", &id16, "--auto", "--mail", "--json"]);
        }
        deliver(&mut sent);
    }
    assert!(reminded, "{game}: the game ended before entry {remind_at}");
    sent
}

/// The robot's own mail: it plays a game of Star Map with Anna, who may
/// invite it, and Ben, to whom it may not write first, so it sends the log
/// back to Anna alone, asking her to pass it on.
fn robot_relay() -> Vec<Sent> {
    let players = Players::new(2);
    let robot = Player {
        name: "Robo".into(),
        email: "robo@example.org".into(),
        home: players.dir.path().join("robo"),
        env: Vec::new(),
    };
    let out = robot.run(&["id", "new", "--name", "Robo", "--email", &robot.email]);
    assert!(out.status.success(), "{}", stderr(&out));
    // Its operator lets Anna invite it, and nobody else.
    std::fs::write(
        robot.home.join("robot.toml"),
        "allow = [\"anna@example.org\"]\n",
    )
    .unwrap();
    let ps = &players.p;
    let emails = format!("{},{},{}", ps[0].email, robot.email, ps[1].email);
    ps[0].json(&["new", "star-map", "--players", &emails, "--mail", "--json"]);
    let outbox = ps[0].home.join("outbox");
    let report = robot.json(&[
        "robot",
        "--outbox",
        outbox.to_str().unwrap(),
        "--level",
        "1",
        "--seed",
        "7",
        "--json",
    ]);
    let mails = robot.outbox();
    assert!(
        !mails.is_empty() && report.to_string().contains("\"relayed\":true"),
        "{report}"
    );
    mails
        .iter()
        .map(|f| Sent {
            game: "robot",
            eml: std::fs::read(f).unwrap(),
        })
        .collect()
}

/// The words of a part, as SpamAssassin counts them: split at white space,
/// keeping those with a letter, digit or `_`.
fn words(s: &str) -> BTreeMap<String, usize> {
    let mut w = BTreeMap::new();
    for word in s
        .split_whitespace()
        .filter(|w| w.chars().any(|c| c.is_alphanumeric() || c == '_'))
    {
        *w.entry(word.to_string()).or_insert(0) += 1;
    }
    w
}

/// The text an HTML part shows: tags removed, entities decoded. (starry's
/// HTML has no comment, script or style element, and no `>` inside an
/// attribute: it escapes everything it inserts.)
fn shown(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        out.push(' ');
        rest = &rest[open..];
        rest = &rest[rest.find('>').expect("a closed tag") + 1..];
    }
    out.push_str(rest);
    out.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// Checks that `mail`'s text and HTML parts carry the same words, as often
/// each, and that a picture is in a `multipart/related` only beside the
/// HTML that shows it.
fn same_words(mail: &Mail) {
    let Some(html) = &mail.html else {
        assert_eq!(
            mail.tree, "multipart/mixed[text/plain,application/x-ndjson]",
            "a mail without HTML has its text alone"
        );
        return;
    };
    match &mail.png {
        Some((_, cid)) => {
            assert_eq!(mail.tree, TREE_WITH_BOARD);
            assert!(html.contains(&format!("<img src=\"cid:{cid}\"")), "{html}");
        }
        None => assert_eq!(mail.tree, TREE_WITHOUT_BOARD),
    }
    let (text, html) = (words(&mail.text), words(&shown(html)));
    let only = |a: &BTreeMap<String, usize>, b: &BTreeMap<String, usize>| {
        a.iter()
            .filter(|(w, n)| b.get(*w) != Some(n))
            .map(|(w, n)| format!("{w} ×{n}"))
            .collect::<Vec<_>>()
    };
    assert!(
        text == html,
        "the text and the HTML of the mail to {} ({}) differ: only in the text {:?}, only in \
         the HTML {:?}",
        mail.to,
        mail.subject,
        only(&text, &html),
        only(&html, &text)
    );
}

/// What a mail is, for choosing which to score: its game, its first line
/// with the game's id and the names left out, and whether it has a
/// picture, an HTML part, a reminder.
fn kind(sent: &Sent, mail: &Mail) -> String {
    let first = mail.text.lines().next().unwrap_or_default();
    let what = first
        .split_whitespace()
        .filter(|w| !w.chars().any(|c| c.is_ascii_digit()))
        .filter(|w| {
            let bare = w.trim_matches(|c: char| !c.is_alphanumeric());
            !NAMES.iter().any(|n| n.eq_ignore_ascii_case(bare))
        })
        .collect::<Vec<_>>()
        .join(" ");
    format!(
        "{} | {what} | picture {} | html {} | reminder {}",
        sent.game,
        mail.png.is_some(),
        mail.html.is_some(),
        mail.text.contains("A reminder:")
    )
}

/// Scores `mails` with one SpamAssassin process (an mbox of them):
/// (score, the report of the rules hit) of each, in order.
fn score(spamassassin: &Path, mails: &[&[u8]]) -> Vec<(f64, String)> {
    let home = tempfile::tempdir().unwrap();
    let mut mbox = Vec::new();
    for (i, eml) in mails.iter().enumerate() {
        mbox.extend_from_slice(
            format!("From mail-{i}@starry.test Thu Jan  1 00:00:00 1970\n").as_bytes(),
        );
        let lf = latin1(eml).replace("\r\n", "\n");
        for line in lf.lines() {
            if line.starts_with("From ") {
                mbox.push(b'>');
            }
            mbox.extend(line.chars().map(|c| c as u8));
            mbox.push(b'\n');
        }
        mbox.push(b'\n');
    }
    // --local: no network tests; no Bayes (nothing is trained); its home
    // and preferences in a temporary directory, so that it writes nothing
    // elsewhere.
    let mut child = Command::new(spamassassin)
        .env("HOME", home.path())
        .args(["--local", "--test-mode", "--mbox", "--cf=use_bayes 0", "-p"])
        .arg(home.path().join("user_prefs"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, &mbox));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        out.status.success(),
        "spamassassin failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n");
    let mut scores = vec![None; mails.len()];
    for message in out
        .split("\nFrom mail-")
        .map(|m| m.trim_start_matches("From mail-"))
    {
        let Some((i, _)) = message.split_once('@') else {
            continue;
        };
        let i: usize = i.parse().unwrap();
        let status = message
            .find("X-Spam-Status:")
            .map(|at| &message[at..])
            .expect("an X-Spam-Status header");
        let score: f64 = status
            .split_once("score=")
            .and_then(|(_, s)| s.split_whitespace().next())
            .unwrap()
            .parse()
            .unwrap();
        let report = message
            .find("Content analysis details:")
            .map_or(status.lines().next().unwrap_or_default(), |at| {
                &message[at..]
            });
        scores[i] = Some((score, report.trim_end().to_string()));
    }
    scores
        .into_iter()
        .enumerate()
        .map(|(i, s)| s.unwrap_or_else(|| panic!("no score for mail {i}: {out}")))
        .collect()
}

#[test]
fn every_kind_of_mail_scores_low_with_spamassassin() {
    let Some(spamassassin) = spamassassin_or_skip() else {
        return;
    };
    let mut sent = play_by_mail("starry-sky", 3, &[], 20);
    sent.extend(play_by_mail("star-map", 3, &[], 12));
    sent.extend(play_by_mail(
        "starry-night",
        2,
        &["--random-stars", "8", "--grid", "6x6"],
        8,
    ));
    sent.extend(robot_relay());
    // Every mail carries the same words in its text and its HTML.
    let mails: Vec<Mail> = sent.iter().map(|s| parse_mail(&s.eml)).collect();
    for m in &mails {
        same_words(m);
    }
    // Scored: the shortest and the longest of each kind (the shortest
    // is the one whose HTML is most nearly the picture alone).
    let mut kinds: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, (s, m)) in sent.iter().zip(&mails).enumerate() {
        kinds.entry(kind(s, m)).or_default().push(i);
    }
    let mut chosen = BTreeSet::new();
    for all in kinds.values() {
        let len = |&&i: &&usize| mails[i].text.len();
        chosen.insert(*all.iter().min_by_key(len).unwrap());
        chosen.insert(*all.iter().max_by_key(len).unwrap());
    }
    let chosen: Vec<usize> = chosen.into_iter().collect();
    let started = std::time::Instant::now();
    let scores = score(
        &spamassassin,
        &chosen
            .iter()
            .map(|&i| sent[i].eml.as_slice())
            .collect::<Vec<_>>(),
    );
    let mut failed = Vec::new();
    for (&i, (points, report)) in chosen.iter().zip(&scores) {
        if *points > MOST {
            failed.push(format!(
                "{points} points: {} to {} ({})\n{report}",
                kind(&sent[i], &mails[i]),
                mails[i].to,
                mails[i].subject
            ));
        }
    }
    let games: BTreeSet<&str> = sent.iter().map(|s| s.game).collect();
    eprintln!(
        "{} mails, {} kinds; scored {} in {:.1} s: at most {} points",
        sent.len(),
        kinds.len(),
        chosen.len(),
        started.elapsed().as_secs_f64(),
        scores.iter().map(|s| s.0).fold(f64::MIN, f64::max)
    );
    assert!(
        failed.is_empty(),
        "{} of {} mails score over {MOST}:\n\n{}",
        failed.len(),
        chosen.len(),
        failed.join("\n\n")
    );
    assert_eq!(
        games.into_iter().collect::<Vec<_>>(),
        ["robot", "star-map", "starry-night", "starry-sky"]
    );
    // Every kind is there: invitations, ready, moves, reveals, reports,
    // the mails after the end, reminders, the robot's.
    let all: String = kinds.keys().cloned().collect::<Vec<_>>().join("\n");
    for expected in [
        "starry-sky | It is your turn in Starry Sky please join the game. | picture false",
        "your turn in Starry Sky please send your ready",
        "your turn in Starry Sky your move. | picture true",
        "your turn in Starry Sky please reveal",
        "Nothing to do for you now in Starry Sky",
        "Starry Sky is over. You countersign first",
        "Starry Sky is over. Every player has countersigned",
        "Starry Sky is over. You have countersigned",
        "countersigns first; please wait",
        "reminder true",
        "Star Map your move. | picture true",
        "Starry Night your move. | picture true",
        "Starry Night is over.",
        "robot | Hello | picture false | html false",
        "Nothing to do for you now in Star Map must move next. | picture true",
        "Star Map is over. You have countersigned;",
    ] {
        assert!(
            all.contains(expected),
            "no mail of the kind {expected:?} in\n{all}"
        );
    }
}

/// With `player_url` set, every mail carries a player link: a long address
/// (a whole log in its fragment, with `--full`) in the text and the HTML.
/// It adds nothing to any mail's score, and the two parts still carry the
/// same words.
#[test]
fn player_links_add_nothing_to_the_score() {
    let Some(spamassassin) = spamassassin_or_skip() else {
        return;
    };
    let url = "https://example.org/starry/";
    let sent = play_by_mail_with("starry-sky", 3, &[], 12, &[("STARRY_PLAYER_URL", url)]);
    let mails: Vec<Mail> = sent.iter().map(|s| parse_mail(&s.eml)).collect();
    let mut kinds: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, (s, m)) in sent.iter().zip(&mails).enumerate() {
        same_words(m);
        assert!(m.text.contains(&format!("{url}#log=")), "{}", m.text);
        kinds.entry(kind(s, m)).or_default().push(i);
    }
    // Every mail is scored, not the shortest and the longest of each
    // kind: what a link can hit depends on its length (SpamAssassin cuts a
    // paragraph every 2048 characters, and a short last piece of a link
    // alone is `TRACKER_ID`), and the lengths differ from mail to mail.
    let scores = score(
        &spamassassin,
        &sent.iter().map(|s| s.eml.as_slice()).collect::<Vec<_>>(),
    );
    assert!(kinds.len() >= 6, "{:?}", kinds.keys());
    for (i, (points, report)) in scores.iter().enumerate() {
        assert!(
            *points <= 0.0,
            "{points} points with a player link: {} to {}\n{report}",
            kind(&sent[i], &mails[i]),
            mails[i].to
        );
    }
}
