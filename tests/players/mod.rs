//! Players for the turn-exchange tests: each has an identity in their own
//! STARRY_HOME and their own mail settings, and runs the real binary. The
//! test process's own STARRY_* mail variables never reach the binary.
#![allow(dead_code)]

use starry::crypto::identity::Stored as _;
use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;
use base64::Engine;
use serde_json::Value;
use starry::crypto::identity::Identity;
use starry::games::starry_sky::StarrySky;
use starry::log::Replay;

pub const NAMES: [&str; 5] = ["Anna", "Ben", "Cleo", "Dan", "Eve"];

pub struct Player {
    pub name: String,
    pub email: String,
    pub home: PathBuf,
    /// Extra environment (mail settings) for every command.
    pub env: Vec<(String, String)>,
}

pub struct Players {
    pub dir: tempfile::TempDir,
    pub p: Vec<Player>,
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

impl Players {
    /// `n` players, each with an identity made by `starry id new`.
    pub fn new(n: usize) -> Players {
        let dir = tempfile::tempdir().unwrap();
        let p: Vec<Player> = NAMES[..n]
            .iter()
            .map(|name| Player {
                name: name.to_string(),
                email: format!("{}@example.org", name.to_lowercase()),
                home: dir.path().join(name.to_lowercase()),
                env: Vec::new(),
            })
            .collect();
        for pl in &p {
            let out = pl.run(&["id", "new", "--name", &pl.name, "--email", &pl.email]);
            assert!(out.status.success(), "{}", stderr(&out));
        }
        Players { dir, p }
    }

    /// `--players`: `Name <email>,…`.
    pub fn emails(&self) -> String {
        self.p
            .iter()
            .map(|p| format!("{} <{}>", p.name, p.email))
            .collect::<Vec<_>>()
            .join(",")
    }

    pub fn seat_of(&self, email: &str) -> usize {
        self.p
            .iter()
            .position(|p| p.email.eq_ignore_ascii_case(email))
            .unwrap_or_else(|| panic!("no player {email}"))
    }

    pub fn set_env(&mut self, pairs: &[(&str, &str)]) {
        for p in &mut self.p {
            for (k, v) in pairs {
                p.env.push((k.to_string(), v.to_string()));
            }
        }
    }
}

impl Player {
    pub fn command(&self) -> Command {
        let mut c = Command::cargo_bin("starry").unwrap();
        for v in starry::mail::transport::ENV_VARS {
            c.env_remove(v);
        }
        c.env("STARRY_HOME", &self.home);
        for (k, v) in &self.env {
            c.env(k, v);
        }
        c
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.command().args(args).output().unwrap()
    }

    pub fn run_env(&self, env: &[(&str, &str)], args: &[&str]) -> Output {
        let mut c = self.command();
        for (k, v) in env {
            c.env(k, v);
        }
        c.args(args).output().unwrap()
    }

    pub fn run_stdin(&self, input: &[u8], args: &[&str]) -> Output {
        self.command()
            .args(args)
            .write_stdin(input.to_vec())
            .output()
            .unwrap()
    }

    /// Runs and parses the JSON output, requiring success.
    pub fn json(&self, args: &[&str]) -> Value {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "{} ran starry {args:?}: {}{}",
            self.name,
            stderr(&out),
            stdout(&out)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// The same identity in another home, `home`: the player on a second
    /// machine, or one who gets round starry's safeguards — no games
    /// directory and no record of the entries written, so that a stale copy
    /// can sign a fork, as the tests of forks need.
    pub fn elsewhere(&self, home: PathBuf) -> Player {
        std::fs::create_dir_all(&home).unwrap();
        std::fs::copy(self.home.join("identity.json"), home.join("identity.json")).unwrap();
        Player {
            name: self.name.clone(),
            email: self.email.clone(),
            home,
            env: self.env.clone(),
        }
    }

    /// This player's copy of a game in their games directory.
    pub fn copy_of(&self, game_id: &str) -> PathBuf {
        self.home.join("games").join(format!("{game_id}.jsonl"))
    }

    /// The `.eml` files in this player's outbox, oldest first.
    pub fn outbox(&self) -> Vec<PathBuf> {
        eml_files(&self.home.join("outbox"))
    }

    /// The `.eml` files waiting in this player's pending folder.
    pub fn pending(&self) -> Vec<PathBuf> {
        eml_files(&self.home.join("pending"))
    }
}

pub fn eml_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| {
            d.map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|x| x == "eml"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Every file under `dir`, recursively.
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(d) = std::fs::read_dir(dir) {
        for e in d {
            let p = e.unwrap().path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Every file under `dir` with its bytes: to prove a command changed nothing.
pub fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    walk(dir)
        .into_iter()
        .map(|p| {
            let b = std::fs::read(&p).unwrap();
            (p, b)
        })
        .collect()
}

/// Every way a 32-byte secret might be written down.
pub fn encodings(b: &[u8]) -> Vec<String> {
    use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
    vec![
        hex::encode(b),
        hex::encode_upper(b),
        STANDARD.encode(b),
        STANDARD_NO_PAD.encode(b),
        URL_SAFE.encode(b),
        URL_SAFE_NO_PAD.encode(b),
    ]
}

/// Secrets of `seat` (whose identity is in `home`) that must not be visible:
/// the master secret, the per-game secret, the salts of its commitments not
/// yet revealed, and its next beacon link.
pub fn secrets_of(home: &Path, log: &[u8], seat: usize) -> Vec<Vec<u8>> {
    secrets_in::<StarrySky>(home, log, seat)
}

/// [`secrets_of`] for a game of `G`.
pub fn secrets_in<G: starry::games::Game>(home: &Path, log: &[u8], seat: usize) -> Vec<Vec<u8>> {
    let id = Identity::load(home).unwrap();
    let file: Value =
        serde_json::from_str(&std::fs::read_to_string(home.join("identity.json")).unwrap())
            .unwrap();
    let master = base64::engine::general_purpose::STANDARD
        .decode(file["secret"].as_str().unwrap())
        .unwrap();
    let mut out = vec![master];
    let r = Replay::<G>::from_bytes(log).unwrap();
    let Some(secret) = r.game_secret(&id, seat) else {
        return out;
    };
    out.push(secret.to_vec());
    if let Some(l) = r.next_link(&secret, seat) {
        out.push(l.to_vec());
    }
    let own = r.own_hidden(&secret, seat).unwrap();
    for at in own.hidden.keys() {
        out.push(starry::crypto::commitment::salt(&secret, at.entry, at.slot).to_vec());
    }
    out
}

/// The decoded text part(s) of a mail.
pub fn mail_text(eml: &[u8]) -> String {
    let m = mail_parser::MessageParser::default().parse(eml).unwrap();
    (0..m.text_body_count())
        .filter_map(|i| m.body_text(i).map(|t| t.to_string()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// (To address, Subject, From address) of a mail.
pub fn mail_headers(eml: &[u8]) -> (String, String, String) {
    let m = mail_parser::MessageParser::default().parse(eml).unwrap();
    let to = m
        .to()
        .and_then(|a| a.first())
        .and_then(|a| a.address())
        .unwrap_or_default()
        .to_string();
    let from = m
        .from()
        .and_then(|a| a.first())
        .and_then(|a| a.address())
        .unwrap_or_default()
        .to_string();
    (to, m.subject().unwrap_or_default().to_string(), from)
}

/// The face-down tokens a seat sees as their own in `view --json`: the
/// labels of those stars.
pub fn own_face_down(view: &Value) -> Vec<String> {
    let mut v = Vec::new();
    for slot in view["view"]["slots"].as_array().into_iter().flatten() {
        for star in slot["board"]["stars"].as_array().into_iter().flatten() {
            if star["occupant"]["face"] == "face-down-own" {
                v.push(star["label"].as_str().unwrap().to_string());
            }
        }
    }
    v
}

/// Runs `git` in `dir`, requiring success; returns its stdout.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("run git");
    assert!(
        out.status.success(),
        "git {args:?} in {}: {}",
        dir.display(),
        stderr(&out)
    );
    stdout(&out)
}

// ------------------------------------------------------------ turn mails

/// A mail taken apart with mail_parser: the headers that thread it, its
/// MIME tree, and each part decoded.
#[derive(Clone, Debug)]
pub struct Mail {
    /// The message as received.
    pub raw: Vec<u8>,
    pub to: String,
    pub from: String,
    pub subject: String,
    /// Without angle brackets, as every id below.
    pub message_id: String,
    pub in_reply_to: Vec<String>,
    pub references: Vec<String>,
    /// The MIME structure, e.g. `multipart/mixed[text/plain,application/x-ndjson]`.
    pub tree: String,
    /// The text/plain part, LF line ends.
    pub text: String,
    /// The text/html part.
    pub html: Option<String>,
    /// The image/png part: its bytes and its Content-ID (no brackets).
    pub png: Option<(Vec<u8>, String)>,
    /// The application/x-ndjson part: its file name and bytes.
    pub attachment: Option<(String, Vec<u8>)>,
}

/// The exact MIME structure of a turn mail with the board drawn.
pub const TREE_WITH_BOARD: &str = "multipart/mixed[multipart/alternative[text/plain,\
multipart/related[text/html,image/png]],application/x-ndjson]";
/// The same before the setup is complete (no board to draw yet): no
/// multipart/related around the HTML alone.
pub const TREE_WITHOUT_BOARD: &str =
    "multipart/mixed[multipart/alternative[text/plain,text/html],application/x-ndjson]";

fn message_ids(h: &mail_parser::HeaderValue) -> Vec<String> {
    use mail_parser::HeaderValue;
    let bare = |s: &str| s.trim().trim_matches(['<', '>']).to_string();
    match h {
        HeaderValue::Text(t) => vec![bare(t)],
        HeaderValue::TextList(v) => v.iter().map(|t| bare(t)).collect(),
        _ => Vec::new(),
    }
}

/// Parses a mail; panics if mail_parser cannot.
pub fn parse_mail(eml: &[u8]) -> Mail {
    use mail_parser::{MimeHeaders, PartType};
    let m = mail_parser::MessageParser::default()
        .parse(eml)
        .expect("a mail mail_parser reads");
    let (to, subject, from) = mail_headers(eml);
    let mut mail = Mail {
        raw: eml.to_vec(),
        to,
        from,
        subject,
        message_id: m.message_id().unwrap_or_default().to_string(),
        in_reply_to: message_ids(m.in_reply_to()),
        references: message_ids(m.references()),
        tree: String::new(),
        text: String::new(),
        html: None,
        png: None,
        attachment: None,
    };
    fn walk(m: &mail_parser::Message, id: usize, mail: &mut Mail) -> String {
        let part = &m.parts[id];
        let ty = part
            .content_type()
            .map(|c| {
                format!(
                    "{}/{}",
                    c.ctype().to_ascii_lowercase(),
                    c.subtype().unwrap_or_default().to_ascii_lowercase()
                )
            })
            .unwrap_or_else(|| "text/plain".into());
        match &part.body {
            PartType::Multipart(children) => {
                let inner: Vec<String> = children
                    .iter()
                    .map(|&c| walk(m, c as usize, mail))
                    .collect();
                return format!("{ty}[{}]", inner.join(","));
            }
            _ => match ty.as_str() {
                "text/plain" => {
                    assert!(mail.text.is_empty(), "two text parts");
                    mail.text = part.text_contents().unwrap().replace("\r\n", "\n");
                }
                "text/html" => {
                    assert!(mail.html.is_none(), "two HTML parts");
                    mail.html = Some(part.text_contents().unwrap().replace("\r\n", "\n"));
                }
                "image/png" => {
                    assert!(mail.png.is_none(), "two pictures");
                    let cid = part
                        .content_id()
                        .expect("the picture has a Content-ID")
                        .trim_matches(['<', '>'])
                        .to_string();
                    mail.png = Some((part.contents().to_vec(), cid));
                }
                "application/x-ndjson" => {
                    assert!(mail.attachment.is_none(), "two logs attached");
                    let name = part.attachment_name().expect("a file name").to_string();
                    mail.attachment = Some((name, part.contents().to_vec()));
                }
                _ => {}
            },
        }
        ty
    }
    mail.tree = walk(&m, 0, &mut mail);
    mail
}

impl Mail {
    /// The attached log's file name.
    pub fn log_name(&self) -> &str {
        &self.attachment.as_ref().expect("a log attached").0
    }

    /// The attached log.
    pub fn log(&self) -> &[u8] {
        &self.attachment.as_ref().expect("a log attached").1
    }

    /// The text with every run of blanks and line breaks made one blank:
    /// to look for sentences the mail wraps.
    pub fn flat_text(&self) -> String {
        flat(&self.text)
    }
}

/// Every run of white space made one blank.
pub fn flat(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Width and height of a PNG, after checking its signature and that its
/// first chunk is the IHDR.
pub fn png_size(png: &[u8]) -> (u32, u32) {
    assert!(png.len() > 33, "a PNG of {} bytes", png.len());
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "the PNG signature");
    assert_eq!(&png[8..12], &[0, 0, 0, 13], "IHDR length");
    assert_eq!(&png[12..16], b"IHDR", "the first chunk is the IHDR");
    let w = u32::from_be_bytes(png[16..20].try_into().unwrap());
    let h = u32::from_be_bytes(png[20..24].try_into().unwrap());
    (w, h)
}

/// `[starry] Starry Sky 1a2b3c4d`: the subject of every turn mail of a
/// game; reports and the mails after the end are `Re: ` and this.
pub fn game_subject(game: &str, game_id: &str) -> String {
    format!(
        "[starry] {} {}",
        starry::app::history::title(game),
        &game_id[..8]
    )
}

/// The number of entries (lines) of a log.
pub fn entries_in(log: &[u8]) -> usize {
    log.iter().filter(|&&b| b == b'\n').count()
}

/// The first `n` entries of `log`.
pub fn first_entries(log: &[u8], n: usize) -> Vec<u8> {
    log.split_inclusive(|&b| b == b'\n')
        .take(n)
        .flatten()
        .copied()
        .collect()
}

/// The entries of `log` from entry `from` on.
pub fn entries_from(log: &[u8], from: usize) -> Vec<u8> {
    log.split_inclusive(|&b| b == b'\n')
        .skip(from)
        .flatten()
        .copied()
        .collect()
}

/// The last entry `seat` (from 0) wrote in `log`, if any.
pub fn last_entry_of(log: &[u8], seat: usize) -> Option<usize> {
    log.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .enumerate()
        .filter(|(_, l)| {
            let v: Value = serde_json::from_slice(l).unwrap();
            v["body"]["author"].as_u64() == Some(seat as u64)
        })
        .map(|(i, _)| i)
        .last()
}

/// The entry a mail to `seat` about `log` starts its attachment with: the
/// one after the recipient's own last entry (0, the whole log, if it wrote
/// none).
pub fn expected_from(log: &[u8], seat: usize) -> usize {
    last_entry_of(log, seat).map_or(0, |e| e + 1)
}

/// The attachment's file name for a game `game_id` carrying `log` from
/// entry `from`.
pub fn expected_log_name(game_id: &str, log: &[u8], from: usize) -> String {
    if from == 0 {
        format!("{}.jsonl", &game_id[..16])
    } else {
        format!("{}-{from}-{}.jsonl", &game_id[..16], entries_in(log) - 1)
    }
}

/// Bytes as a string of the characters U+0000 to U+00FF, one per byte: a
/// match of one such string in another is a match of the bytes, and std's
/// string search is fast even in a debug build.
pub fn latin1(b: &[u8]) -> String {
    b.iter().map(|&c| c as char).collect()
}

/// Whether `needle` occurs in `hay`.
pub fn contains_bytes(hay: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && latin1(hay).contains(&latin1(needle))
}

/// Panics if any of `secrets` (seat, bytes) is in any part of `mail`: the
/// raw message, the text, the HTML, the picture or the attached log, as
/// bytes or in any of the [`encodings`].
pub fn assert_no_secret(mail: &Mail, secrets: &[(usize, Vec<u8>)]) {
    let html = mail.html.clone().unwrap_or_default();
    let png: &[u8] = mail.png.as_ref().map_or(&[], |p| &p.0);
    let log: &[u8] = mail.attachment.as_ref().map_or(&[], |a| &a.1);
    let parts: [(&str, String); 5] = [
        ("the raw mail", latin1(&mail.raw)),
        ("the text", latin1(mail.text.as_bytes())),
        ("the HTML", latin1(html.as_bytes())),
        ("the picture", latin1(png)),
        ("the attached log", latin1(log)),
    ];
    for (seat, secret) in secrets {
        let raw = latin1(secret);
        for (what, hay) in &parts {
            assert!(
                !hay.contains(&raw),
                "a secret of seat {} is in {what} of the mail to {}",
                seat + 1,
                mail.to
            );
            for enc in encodings(secret) {
                assert!(
                    !hay.contains(&enc),
                    "a secret of seat {} is in {what} of the mail to {} ({enc})",
                    seat + 1,
                    mail.to
                );
            }
        }
    }
}

/// The `.eml` files a writing command run with `--mail --json` (outbox
/// transport) wrote, as its report lists them.
pub fn sent_paths(report: &Value) -> Vec<PathBuf> {
    report["mail"]["sent"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| PathBuf::from(s["path"].as_str().expect("the outbox names the file")))
        .collect()
}

/// [`secrets_in`] for every prefix of `log` at once (one replay): element
/// `n` holds the secrets (seat, bytes) of every seat after the first `n`
/// entries (element 0 is empty). `homes[s]` holds seat `s`'s identity.
pub fn secrets_along<G: starry::games::Game>(
    homes: &[&Path],
    log: &[u8],
) -> Vec<Vec<(usize, Vec<u8>)>> {
    let ids: Vec<(Identity, Vec<u8>)> = homes
        .iter()
        .map(|home| {
            let file: Value =
                serde_json::from_str(&std::fs::read_to_string(home.join("identity.json")).unwrap())
                    .unwrap();
            let master = base64::engine::general_purpose::STANDARD
                .decode(file["secret"].as_str().unwrap())
                .unwrap();
            (Identity::load(home).unwrap(), master)
        })
        .collect();
    let (lines, fault) = starry::log::replay::lines(log);
    assert!(fault.is_none(), "{fault:?}");
    let mut r = Replay::<G>::from_genesis(lines[0]).unwrap();
    let mut out = vec![Vec::new()];
    for n in 1..=lines.len() {
        if n > 1 {
            r.apply_line(n as u64 - 1, lines[n - 1]).unwrap();
        }
        let mut now = Vec::new();
        for (seat, (id, master)) in ids.iter().enumerate() {
            now.push((seat, master.clone()));
            let Some(secret) = r.game_secret(id, seat) else {
                continue;
            };
            now.push((seat, secret.to_vec()));
            if let Some(l) = r.next_link(&secret, seat) {
                now.push((seat, l.to_vec()));
            }
            let own = r.own_hidden(&secret, seat).unwrap();
            for at in own.hidden.keys() {
                now.push((
                    seat,
                    starry::crypto::commitment::salt(&secret, at.entry, at.slot).to_vec(),
                ));
            }
        }
        out.push(now);
    }
    out
}

/// What every mail about `log` (the sender's copy) of a game of `G` must
/// be, whoever it is for: the thread's subject (`Re: ` but for the turn
/// mail), Message-ID and References; the MIME structure, with the board as
/// a PNG the HTML shows once there is one; exactly the entries the
/// recipient lacks attached, and no armored copy; no player's secret in any
/// part. Returns the recipient's seat.
pub fn check_any_mail<G: starry::games::Game>(
    players: &Players,
    mail: &Mail,
    log: &[u8],
    game_id: &str,
) -> usize {
    let r = Replay::<G>::from_bytes(log).unwrap();
    let seat = players.seat_of(&mail.to);
    let turn = game_subject(G::NAME, game_id);
    if !r.is_over() && r.expected().1 == Some(seat) {
        assert_eq!(mail.subject, turn);
    } else {
        assert_eq!(mail.subject, format!("Re: {turn}"));
    }
    let id16 = &game_id[..16];
    let entry = entries_in(log) - 1;
    assert_eq!(
        mail.message_id,
        format!("starry.{id16}.{entry}.{}@example.org", seat + 1)
    );
    assert_eq!(mail.references[0], format!("starry.{id16}@example.org"));
    assert_eq!(mail.in_reply_to.last(), mail.references.last());
    if r.state.is_some() {
        assert_eq!(mail.tree, TREE_WITH_BOARD);
        let (png, cid) = mail.png.as_ref().unwrap();
        let (w, h) = png_size(png);
        assert!(w > 0 && h > 0);
        assert!(
            mail.html
                .as_ref()
                .unwrap()
                .contains(&format!("<img src=\"cid:{cid}\"")),
            "the HTML shows the picture"
        );
    } else {
        assert_eq!(mail.tree, TREE_WITHOUT_BOARD);
    }
    let from = expected_from(log, seat);
    assert_eq!(mail.log_name(), expected_log_name(game_id, log, from));
    assert_eq!(mail.log(), entries_from(log, from));
    assert!(!String::from_utf8_lossy(&mail.raw).contains("BEGIN STARRY LOG"));
    let secrets: Vec<(usize, Vec<u8>)> = players
        .p
        .iter()
        .enumerate()
        .flat_map(|(s, p)| {
            secrets_in::<G>(&p.home, log, s)
                .into_iter()
                .map(move |x| (s, x))
        })
        .collect();
    assert_no_secret(mail, &secrets);
    seat
}
