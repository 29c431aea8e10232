//! Whole games between a player in the built web player (crates/web, in a
//! real headless Chromium, served by a static host on loopback) and CLI
//! players: Starry Sky with two CLI players, Starry Night and Star Map
//! with one. Entries travel as people send them: the page's "Mail it"
//! (`a#mail-it`'s `mailto:`) becomes a mail each CLI recipient takes with
//! `starry ingest`; the CLI's turn mails (its outbox, `player_url` set to
//! the static host) carry a player link that is opened in the page. The
//! browser player plays every entry by the page's own clicks and forms —
//! join, ready, moves (face-down tokens), reveals, countersigning — to the
//! end. Then every copy is identical, `starry audit` and the Python checker
//! find them valid, the browser asked nothing of anyone but the host for
//! the player's own files, and no secret of the browser player's was in
//! any mail, link or page text.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use serde_json::Value;
use starry::games::Game;
use starry::games::star_map::StarMap;
use starry::games::starry_night::StarryNight;
use starry::games::starry_sky::StarrySky;

use crate::devtools::Browser;
use crate::mailto::{Mailto, now};
use crate::players::*;
use crate::static_server::StaticServer;
use crate::web_play::*;
use crate::web_player::web_player;

/// The browser player's seat: Ben (CLI) invites, seat 0; Anna second;
/// Cleo (CLI), if there is a third, last.
const ANNA: u64 = 1;
const ANNA_EMAIL: &str = "anna@example.org";

/// A game at a table of CLI players and Anna in the browser.
struct Table<'a> {
    b: Browser,
    origin: String,
    game: &'static str,
    id: String,
    /// The CLI players by seat (None: Anna's seat).
    seats: Vec<Option<&'a Player>>,
    /// Where Anna's mails are written for `ingest`.
    dir: &'a Path,
    identity_file: String,
    /// The outbox files already delivered.
    delivered: BTreeSet<PathBuf>,
    /// Anna's entries, in order.
    anna: Vec<Entry>,
    /// Links Anna opened and the mails she sent.
    links: usize,
    mails: usize,
    /// The most secrets of Anna's looked for at once (her identity's and
    /// game's, her next beacon link, her face-down tokens' salts).
    most_secrets: usize,
}

impl<'a> Table<'a> {
    fn cli(&self) -> impl Iterator<Item = &'a Player> + '_ {
        self.seats.iter().flatten().copied()
    }

    fn player_of(&self, email: &str) -> &'a Player {
        self.cli()
            .find(|p| p.email.eq_ignore_ascii_case(email))
            .unwrap_or_else(|| panic!("no CLI player {email}"))
    }

    /// The thread a subject names: the game's subject, a reply's
    /// `Re: ` before it.
    fn thread<'s>(&self, subject: &'s str) -> &'s str {
        subject.strip_prefix("Re: ").unwrap_or(subject)
    }

    /// Anna's secrets now (the salts of tokens she revealed are no longer
    /// secret: her reveal publishes them).
    fn secrets<G: Game>(&mut self) -> Vec<String> {
        let kept = kept_copy(&mut self.b, &self.id);
        let s = browser_secrets::<G>(&self.identity_file, kept.as_bytes(), ANNA as usize);
        self.most_secrets = self.most_secrets.max(s.len() / 6);
        s
    }

    /// Every mail in the CLI players' outboxes not delivered yet: Anna's
    /// opened as its player link in her page, the others' taken by the
    /// recipient's `starry ingest`.
    fn deliver<G: Game>(&mut self) {
        let cli: Vec<&Player> = self.cli().collect();
        for sender in cli {
            for f in sender.outbox() {
                if !self.delivered.insert(f.clone()) {
                    continue;
                }
                let mail = parse_mail(&std::fs::read(&f).unwrap());
                if mail.to.eq_ignore_ascii_case(ANNA_EMAIL) {
                    self.anna_opens::<G>(&mail, sender);
                } else {
                    let to = self.player_of(&mail.to);
                    let v = to.json(&["ingest", f.to_str().unwrap(), "--json"]);
                    assert_ne!(v["outcome"], "refused", "{v}");
                }
            }
        }
    }

    /// Anna opens the player link of `mail` (from `sender`): her page
    /// takes the entries she lacks and keeps what the sender has.
    fn anna_opens<G: Game>(&mut self, mail: &Mail, sender: &Player) {
        assert_eq!(
            self.thread(&mail.subject),
            game_subject(self.game, &self.id)
        );
        let link = mail
            .text
            .lines()
            .find(|l| l.starts_with(&self.origin) && l.contains("#log="))
            .unwrap_or_else(|| panic!("no player link in {}'s mail: {}", sender.name, mail.text))
            .to_string();
        let secrets = self.secrets::<G>();
        for part in [
            String::from_utf8_lossy(&mail.raw).to_string(),
            mail.text.clone(),
            mail.html.clone().unwrap_or_default(),
        ] {
            assert_no_secret_in("a CLI mail", &part, &secrets);
        }
        let theirs = std::fs::read_to_string(sender.copy_of(&self.id)).unwrap();
        self.b.goto(&link);
        self.b.wait_for(
            &format!(
                "(localStorage.getItem('starry/game/{}') || '').length === {} \
                 || !document.getElementById('problem').hidden",
                self.id,
                theirs.len()
            ),
            "the link's entries are taken",
        );
        assert!(
            self.b.eval("document.getElementById('problem').hidden") == true,
            "{}'s link refused: {:?}",
            sender.name,
            self.b.text("#problem")
        );
        assert_eq!(kept_copy(&mut self.b, &self.id), theirs, "after a link");
        assert_eq!(self.b.eval("location.hash"), "", "the fragment stays");
        self.links += 1;
    }

    /// Anna's entry, by her page; its "Mail it" taken by every recipient.
    fn anna_plays<G: Game>(&mut self) {
        let secrets = self.secrets::<G>();
        let text = self.b.page_text();
        assert_no_secret_in("the page", &text, &secrets);
        let entry = browser_turn(&mut self.b);
        self.anna.push(entry);
        let secrets = self.secrets::<G>();
        let text = self.b.page_text();
        assert_no_secret_in("the page", &text, &secrets);
        let href = self.b.attr("#mail-it", "href").expect("a Mail it link");
        assert_no_secret_in("a mailto: link", &href, &secrets);
        let m = Mailto::parse(&href).unwrap_or_else(|e| panic!("{e}: {href}"));
        assert_eq!(
            self.thread(&m.subject),
            game_subject(self.game, &self.id),
            "{href}"
        );
        assert!(
            m.body
                .lines()
                .any(|l| l.starts_with(&self.origin) && l.contains("#log=")),
            "no player link in Anna's mail: {}",
            m.body
        );
        let eml = m.mail_file("Anna", ANNA_EMAIL, &now());
        let f = self.dir.join(format!("anna-{}.eml", self.mails));
        std::fs::write(&f, &eml).unwrap();
        self.mails += 1;
        let kept = kept_copy(&mut self.b, &self.id);
        let to: Vec<&String> = m.to.iter().chain(&m.cc).collect();
        assert!(!to.is_empty(), "{href}");
        for addr in to {
            let p = self.player_of(addr);
            let v = p.json(&["ingest", f.to_str().unwrap(), "--json"]);
            assert_eq!(
                std::fs::read_to_string(p.copy_of(&self.id)).unwrap(),
                kept,
                "{}'s copy after Anna's {entry:?}: {v}",
                p.name
            );
        }
    }

    /// The longest copy of the game there is (all are equal once every
    /// mail is delivered), as a file.
    fn latest(&mut self) -> PathBuf {
        let kept = kept_copy(&mut self.b, &self.id);
        let f = self.dir.join("latest.jsonl");
        let mut best = kept.into_bytes();
        for p in self.cli() {
            let c = std::fs::read(p.copy_of(&self.id)).unwrap_or_default();
            if c.len() > best.len() {
                best = c;
            }
        }
        std::fs::write(&f, best).unwrap();
        f
    }

    /// Plays the game to its end: every seat's entries, then every
    /// countersignature, each by whom the mails name.
    fn play_to_the_end<G: Game>(&mut self) -> Value {
        for _ in 0..2000 {
            self.deliver::<G>();
            let latest = self.latest();
            let ben = self.seats[0].unwrap();
            let st = ben.json(&["status", latest.to_str().unwrap(), "--json"]);
            let over = st["over"] == true;
            let next = if over {
                match st["countersign"]["next_seat"].as_u64() {
                    Some(s) => s,
                    None => return st,
                }
            } else {
                st["to_act_seat"]
                    .as_u64()
                    .unwrap_or_else(|| panic!("nobody to act: {st}"))
            };
            if next == ANNA {
                self.anna_plays::<G>();
                continue;
            }
            let p = self.seats[next as usize].unwrap();
            let copy = p.copy_of(&self.id);
            let copy = copy.to_str().unwrap();
            let args: &[&str] = if over {
                &["countersign", copy, "--mail", "--yes", "--json"]
            } else {
                &["play", copy, "--auto", "--mail", "--json"]
            };
            let out = p.run(args);
            assert!(
                out.status.success(),
                "{} {args:?}: {}",
                p.name,
                stderr(&out)
            );
        }
        panic!("{}: no end after 2000 entries", self.game);
    }
}

/// Ben (CLI) creates `game` for `players` (Anna's seat second), with his
/// turn mails in his outbox: the game's id.
fn ben_creates(ben: &Player, game: &str, players: &str) -> String {
    let v = ben.json(&["new", game, "--players", players, "--mail", "--json"]);
    v["status"]["game_id"].as_str().unwrap().to_string()
}

/// Runs the Python checker's audit of `files` (two or more: compared too).
fn python_audit(files: &[&Path]) -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let python = std::env::var("STARRY_TEST_PYTHON").unwrap_or_else(|_| "python3".into());
    let out = Command::new(&python)
        .arg(root.join("tests/independent/starry_check.py"))
        .arg("audit")
        .args(files)
        .output()
        .unwrap_or_else(|e| panic!("{python} is needed for this test (.ci/run installs it): {e}"));
    let said = format!("{}{}", stdout(&out), stderr(&out));
    assert!(out.status.success(), "the Python checker: {said}");
    said
}

/// A whole game of `game` (G) for `n` players: Anna in the browser, the
/// others with the CLI (Ben, who invites, then Cleo if `n` is 3), from
/// Ben's invitation to the last countersignature; then the checks every
/// whole game shares. Anna's entries, in order (None: no browser here,
/// a loud skip).
fn a_whole_game<G: Game>(game: &'static str, n: usize) -> Option<Vec<Entry>> {
    let chromium = crate::browser::browser_or_skip()?;
    let started = Instant::now();
    let dir = web_player();
    let s = StaticServer::start(&dir);
    let origin = s.url();
    // Players::new names seat 0 Anna; here she is in the browser and her
    // CLI identity is not used.
    let mut ps = Players::new(n);
    ps.set_env(&[("STARRY_PLAYER_URL", origin.as_str())]);
    let names: Vec<String> = [1, 0]
        .into_iter()
        .chain(2..n)
        .map(|i| format!("{} <{}>", ps.p[i].name, ps.p[i].email))
        .collect();
    let id = ben_creates(&ps.p[1], game, &names.join(", "));

    let mut b = Browser::start(&chromium);
    open(&mut b, &origin);
    create_identity(&mut b, "Anna", ANNA_EMAIL);
    let identity_file = storage(&mut b)["starry/identity"].clone();
    let mails = tempfile::tempdir().unwrap();
    let mut seats = vec![Some(&ps.p[1]), None];
    seats.extend(ps.p[2..n].iter().map(Some));
    let mut t = Table {
        b,
        origin: origin.clone(),
        game,
        id,
        seats,
        dir: mails.path(),
        identity_file,
        delivered: BTreeSet::new(),
        anna: Vec::new(),
        links: 0,
        mails: 0,
        most_secrets: 0,
    };
    let end = t.play_to_the_end::<G>();

    // Over, played to the end, countersigned by all.
    assert_eq!(end["over"], true, "{end}");
    assert_eq!(end["ending"]["how"], "finished", "{end}");
    for seat in end["seats"].as_array().unwrap() {
        assert_eq!(seat["countersigned"], true, "{end}");
    }
    // Every copy identical, valid by `starry audit` and by the checker.
    let annas = t.dir.join("annas.jsonl");
    std::fs::write(&annas, kept_copy(&mut t.b, &t.id)).unwrap();
    let mut copies = vec![annas.clone()];
    for p in t.cli() {
        let c = p.copy_of(&t.id);
        assert_eq!(
            std::fs::read(&c).unwrap(),
            std::fs::read(&annas).unwrap(),
            "{}'s copy and Anna's differ",
            p.name
        );
        let audit = p.run(&["audit", c.to_str().unwrap()]);
        assert!(audit.status.success(), "{}", stdout(&audit));
        copies.push(c);
    }
    let checked = python_audit(&copies.iter().map(|c| c.as_path()).collect::<Vec<_>>());
    assert!(
        checked.matches(": ok").count() >= copies.len() && !checked.contains("fork"),
        "{checked}"
    );

    // Nothing asked of anyone but the host, and the host never saw a log.
    let elsewhere = t.b.requests_elsewhere(&[&origin]);
    assert_eq!(elsewhere, [], "requests elsewhere: {elsewhere:#?}");
    assert!(
        s.requested().iter().all(|r| !r.contains("log=")),
        "{:?}",
        s.requested()
    );
    assert!(
        t.links > 0 && t.mails > 0,
        "{} links, {} mails",
        t.links,
        t.mails
    );
    assert!(t.anna.contains(&Entry::Join), "{:?}", t.anna);
    assert!(t.anna.contains(&Entry::Countersign), "{:?}", t.anna);
    assert!(
        t.anna
            .iter()
            .any(|e| matches!(e, Entry::Move { on_board: true, .. })),
        "Anna never clicked the board: {:?}",
        t.anna
    );
    assert_eq!(troubles(&t.b.console), Vec::<String>::new());
    eprintln!(
        "{game}: {} entries, Anna's {}, in {:.1?}",
        end["entries"],
        t.anna.len(),
        started.elapsed()
    );
    // Beyond the identity's and game's secrets and the beacon link, a
    // face-down token's salt was looked for at least once.
    if game == "starry-sky" {
        assert!(t.most_secrets > 3, "no salt was ever looked for");
    }
    Some(t.anna)
}

/// A whole Starry Sky game, three players: Anna in the browser, with
/// face-down tokens and reveals at scoring; Ben and Cleo with the CLI.
#[test]
fn a_whole_starry_sky_game_between_the_web_player_and_two_cli_players() {
    let Some(anna) = a_whole_game::<StarrySky>("starry-sky", 3) else {
        return;
    };
    assert!(anna.contains(&Entry::Ready), "{anna:?}");
    assert!(anna.contains(&Entry::Reveal), "{anna:?}");
    assert!(
        anna.iter().any(|e| matches!(
            e,
            Entry::Move {
                face_down: true,
                ..
            }
        )),
        "Anna never put a token face down: {anna:?}"
    );
}

/// A whole Starry Night game: Anna in the browser, Ben with the CLI.
#[test]
fn a_whole_starry_night_game_between_the_web_player_and_a_cli_player() {
    a_whole_game::<StarryNight>("starry-night", 2);
}

/// A whole Star Map game: Anna in the browser, Ben with the CLI.
#[test]
fn a_whole_star_map_game_between_the_web_player_and_a_cli_player() {
    a_whole_game::<StarMap>("star-map", 2);
}
