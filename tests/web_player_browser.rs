//! The built web player (crates/web) in a real headless Chromium: opened
//! from disk and from a static host, offline after the first load; no
//! request but for its own files through a whole turn exchange with a CLI
//! player; identities made, exported and imported (the CLI's too); games
//! received from a link, a file or a pasted block, and bad ones refused in
//! the CLI's words with nothing kept changed; hostile names shown as text;
//! no secret in a page, a link or a mail; axe-core and a phone's targets.

use std::path::{Path, PathBuf};

use serde_json::Value;
use starry::games::starry_sky::StarrySky;

use crate::devtools::*;
use crate::mailto::*;
use crate::players::*;
use crate::static_server::StaticServer;
use crate::web_play::*;
use crate::web_player::web_player;

/// The refusal the page shows (after `action`), waited for.
fn refusal(b: &mut Browser) -> String {
    b.wait_for(
        "!document.getElementById('problem').hidden",
        "a refusal is shown",
    );
    b.text("#problem").unwrap_or_default()
}

/// Pastes `text` into the receive box and takes it.
fn paste(b: &mut Browser, text: &str) {
    b.eval("document.getElementById('problem').hidden = true; 1");
    b.set_value("#receive-text", text);
    b.press("#receive-go");
}

/// The player's own folder as a `file://` address (with a slash).
fn file_url(dir: &Path) -> String {
    format!("file://{}/", dir.display())
}

/// Ben (a CLI player) invites Anna (who plays in the browser) to `game`:
/// the game's id, and Ben's copy of its log.
fn ben_invites_anna(ben: &Player, anna_email: &str, game: &str) -> (String, PathBuf) {
    ben_invites_anna_and(ben, anna_email, game, None)
}

/// [`ben_invites_anna`], with a third player (seat 2) if given.
fn ben_invites_anna_and(
    ben: &Player,
    anna_email: &str,
    game: &str,
    third: Option<&Player>,
) -> (String, PathBuf) {
    let mut players = format!("Ben <{}>, Anna <{anna_email}>", ben.email);
    if let Some(p) = third {
        players.push_str(&format!(", {} <{}>", p.name, p.email));
    }
    let out = ben.run(&["new", game, "--players", &players, "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = j["status"]["game_id"].as_str().unwrap().to_string();
    (id.clone(), ben.copy_of(&id))
}

fn status(p: &Player, log: &Path) -> Value {
    p.json(&["status", log.to_str().unwrap(), "--json"])
}

/// What axe-core (serious and critical) and the 24 px target check find
/// on a phone's screen while the player chooses a move (the board, its
/// choices and the action forms), or an empty list (a loud skip without
/// axe-core: STARRY_SKIP_AXE_TESTS).
fn choosing_a_move_on_a_phone(b: &mut Browser) -> Vec<String> {
    let Some(axe) = axe_or_skip() else {
        return Vec::new();
    };
    b.screen(phone());
    let mut found = axe_serious(b, &axe);
    found.extend(b.small_targets(24.0));
    b.screen(desktop());
    found
}

/// The player, served by a static host: a Starry Sky game between Anna in
/// the browser and Ben with the CLI, from the invitation (a link) through
/// join, ready and Anna's first move, each of her entries sent by her
/// page's "Mail it" and taken by Ben's `starry ingest`, each of his by a
/// link in her page; the copy and download fallbacks carry the same
/// entries. No request leaves for anywhere but the player's own
/// files; no secret of hers (nor a face-down token's salt) is in any page,
/// link or mail; the copies end identical and audit-valid.
#[test]
fn a_turn_exchange_with_a_cli_player_makes_no_request_elsewhere_and_shows_no_secret() {
    let Some(chromium) = crate::browser::browser_or_skip() else {
        return;
    };
    let dir = web_player();
    let s = StaticServer::start(&dir);
    let origin = s.url();
    // Ben and Cleo play with the CLI on one file (Ben's copy); Anna in
    // the browser.
    let ps = Players::new(3);
    let (ben, cleo) = (&ps.p[1], &ps.p[2]);
    let anna_email = "anna@example.org";
    let (id, bens) = ben_invites_anna_and(ben, anna_email, "starry-sky", Some(cleo));

    let mut b = Browser::start(&chromium);
    open(&mut b, &origin);
    create_identity(&mut b, "Anna", anna_email);
    let identity_file = storage(&mut b)["starry/identity"].clone();
    b.allow_clipboard();
    let saved = tempfile::tempdir().unwrap();
    b.download_into(saved.path());
    let mut links = Vec::new();
    let mut mails = Vec::new();
    let mut pages = Vec::new();
    let mut anna_moved = false;
    let mut axe_checked = None;
    for _ in 0..40 {
        let log = std::fs::read(&bens).unwrap();
        let kept = storage(&mut b)
            .get(&format!("starry/game/{id}"))
            .cloned()
            .unwrap_or_default();
        if kept.len() < log.len() {
            // Ben's turn mail: a link with the entries Anna lacks.
            let link = starry_core::link::link_of(
                &origin,
                &entries_from(&log, entries_in(kept.as_bytes())),
            );
            b.goto(&link);
            b.wait_for(
                &format!(
                    "(localStorage.getItem('starry/game/{id}') || '').length === {}",
                    log.len()
                ),
                "the link's entries are taken",
            );
            assert_eq!(b.eval("location.hash"), "", "the fragment stays");
            links.push(link);
        }
        if anna_moved {
            break;
        }
        let st = status(ben, &bens);
        if st["to_act_seat"] == 1 {
            pages.push(b.page_text());
            if b.exists("#game .choices a") && axe_checked.is_none() {
                axe_checked = Some(choosing_a_move_on_a_phone(&mut b));
            }
            let done = browser_turn(&mut b);
            anna_moved = matches!(done, Entry::Move { .. });
            pages.push(b.page_text());
            let href = b.attr("#mail-it", "href").expect("a Mail it link");
            let m = Mailto::parse(&href).unwrap_or_else(|e| panic!("{e}: {href}"));
            assert!(m.to.contains(&ben.email), "{href}");
            // The game's thread, as the CLI's turn mails name it.
            assert_eq!(m.subject, game_subject("starry-sky", &id));
            let body_link = m
                .body
                .lines()
                .find(|l| l.starts_with(&origin) && l.contains("#log="))
                .unwrap_or_else(|| panic!("no player link in the mail: {}", m.body));
            links.push(body_link.to_string());
            let eml = m.mail_file("Anna", anna_email, &now());
            let f = ps.dir.path().join(format!("mail-{}.eml", mails.len()));
            std::fs::write(&f, &eml).unwrap();
            let v = ben.json(&["ingest", f.to_str().unwrap(), "--json"]);
            let kept = storage(&mut b)[&format!("starry/game/{id}")].clone();
            assert_eq!(
                std::fs::read_to_string(&bens).unwrap(),
                kept,
                "Ben's copy after {done:?}: {v}"
            );
            // The fallbacks: the mail's text copied, and the new entries
            // downloaded as the armored block carries them.
            b.press("#copy");
            b.wait_for(
                "document.getElementById('notice').textContent === \"The mail's text is copied.\"",
                "the copy",
            );
            assert_eq!(
                b.clipboard().replace("\r\n", "\n"),
                m.body.replace("\r\n", "\n")
            );
            let name = b.attr("#download", "download").unwrap();
            assert!(
                name.starts_with(&id[..16]) && name.ends_with(".jsonl"),
                "{name}"
            );
            b.press("#download");
            let armored = starry_core::armor::dearmor_all(&m.body).unwrap();
            assert_eq!(b.downloaded(saved.path(), &name), armored[0], "{name}");
            mails.push(href);
        } else {
            let cli = if st["to_act_seat"] == 2 { cleo } else { ben };
            let out = cli.run(&["play", bens.to_str().unwrap(), "--auto"]);
            assert!(out.status.success(), "{}: {}", cli.name, stderr(&out));
        }
    }
    assert!(anna_moved, "Anna never got to move");
    assert_eq!(axe_checked, Some(Vec::new()), "choosing a move on a phone");
    let log = std::fs::read(&bens).unwrap();
    let audit = ben.run(&["audit", bens.to_str().unwrap()]);
    assert!(audit.status.success(), "{}", stdout(&audit));

    let elsewhere = b.requests_elsewhere(&[&origin]);
    assert_eq!(elsewhere, [], "requests elsewhere: {elsewhere:#?}");
    assert!(
        s.requested().iter().all(|r| !r.contains("log=")),
        "{:?}",
        s.requested()
    );
    let secrets = browser_secrets::<StarrySky>(&identity_file, &log, 1);
    // The master and game secrets, the next beacon link, and at least
    // one face-down token's salt (each in six encodings).
    assert!(
        secrets.len() > 3 * 6,
        "no face-down token's salt to look for: {} secrets",
        secrets.len() / 6
    );
    pages.push(b.page_text());
    for (what, texts) in [("a page", &pages), ("a link", &links), ("a mail", &mails)] {
        for t in texts {
            assert_no_secret_in(what, t, &secrets);
        }
    }
    assert_eq!(troubles(&b.console), Vec::<String>::new());
}

/// The player opened from disk works (an identity made, a game taken);
/// served by a static host it installs its service worker, and with the
/// host stopped and the network off it opens again from its cache, with
/// what it kept. No console error, no request elsewhere.
#[test]
fn the_player_works_from_disk_from_a_static_host_and_offline() {
    let Some(chromium) = crate::browser::browser_or_skip() else {
        return;
    };
    let dir = web_player();
    let ps = Players::new(2);
    let ben = &ps.p[1];
    let (id, bens) = ben_invites_anna(ben, "anna@example.org", "starry-night");
    let log = std::fs::read(&bens).unwrap();

    let mut b = Browser::start(&chromium);
    let disk = file_url(&dir);
    open(&mut b, &format!("{disk}index.html"));
    create_identity(&mut b, "Anna", "anna@example.org");
    assert!(
        b.text("#identity-who")
            .unwrap()
            .contains("Anna <anna@example.org>"),
        "{:?}",
        b.text("#identity-who")
    );
    b.goto(&starry_core::link::link_of(
        &format!("{disk}index.html"),
        &log,
    ));
    b.wait_for(
        &format!("document.querySelector('a[data-game=\"{id}\"]') !== null"),
        "the game is listed",
    );
    assert!(b.exists("#game form:has(input[name=what][value=join])"));
    assert_eq!(b.requests_elsewhere(&["file://"]), []);
    assert_eq!(troubles(&b.console), Vec::<String>::new());
    drop(b);

    let mut s = StaticServer::start(&dir);
    let origin = s.url();
    let mut b = Browser::start(&chromium);
    open(&mut b, &origin);
    b.wait_for(
        "navigator.serviceWorker.controller !== null",
        "the service worker controls the page",
    );
    create_identity(&mut b, "Anna", "anna@example.org");
    b.goto(&starry_core::link::link_of(&origin, &log));
    b.wait_for(
        &format!("document.querySelector('a[data-game=\"{id}\"]') !== null"),
        "the game is listed",
    );
    let kept = storage(&mut b);
    s.stop();
    let asked = s.requested().len();
    b.set_offline(true);
    b.reload();
    ready(&mut b);
    assert_eq!(storage(&mut b), kept);
    assert!(b.exists(&format!("a[data-game=\"{id}\"]")));
    b.press(&format!("a[data-game=\"{id}\"]"));
    b.wait_for(
        "document.querySelector('#game form:has(input[name=what][value=join])') !== null",
        "the game page offline",
    );
    // Played offline: the join is written and offered to send.
    browser_turn(&mut b);
    assert!(b.attr("#mail-it", "href").unwrap().starts_with("mailto:"));
    assert_eq!(s.requested().len(), asked);
    assert_eq!(b.requests_elsewhere(&[&origin]), []);
    let failed: Vec<Request> = b
        .requests
        .iter()
        .filter(|r| r.failed.is_some() && !r.url.ends_with("sw.js"))
        .cloned()
        .collect();
    assert_eq!(failed, [], "offline, a request of the player failed");
    assert_eq!(troubles(&b.console), Vec::<String>::new());
}

/// An identity made in the page, exported (downloaded) and imported again
/// is the same key; the CLI's identity file imported gives the key
/// `starry id show` prints; a bad file is refused in plain words and the
/// identity kept stays as it was.
#[test]
fn identities_are_made_exported_imported_and_a_bad_one_is_refused() {
    let Some(chromium) = crate::browser::browser_or_skip() else {
        return;
    };
    let dir = web_player();
    let s = StaticServer::start(&dir);
    let mut b = Browser::start(&chromium);
    open(&mut b, &s.url());
    assert!(
        b.text("#identity-where")
            .unwrap()
            .contains("only in this browser")
    );
    create_identity(&mut b, "Anna ☆", "anna@example.org");
    let made = storage(&mut b)["starry/identity"].clone();
    let who = b.text("#identity-who").unwrap();
    let saved = tempfile::tempdir().unwrap();
    b.download_into(saved.path());
    b.press("#identity-export");
    let exported = b.downloaded(saved.path(), "identity.json");
    assert_eq!(String::from_utf8(exported).unwrap(), made);

    // Re-imported into an empty browser storage, from the file.
    b.eval("localStorage.clear(); 1");
    b.reload();
    ready(&mut b);
    assert!(b.text("#identity-who").unwrap().contains("No identity"));
    b.choose_files(
        "#identity-import input[name=pick]",
        &[&saved.path().join("identity.json")],
    );
    b.press("#identity-import button[type=submit]");
    b.wait_for(
        "localStorage.getItem('starry/identity') !== null",
        "the identity is imported",
    );
    b.wait_for(
        &format!(
            "document.getElementById('identity-who').textContent === {}",
            serde_json::to_string(&who).unwrap()
        ),
        "the same identity is shown",
    );
    assert_eq!(storage(&mut b)["starry/identity"], made);

    // The CLI's identity file, as `starry id export` writes it, pasted.
    let ps = Players::new(1);
    let cli = &ps.p[0];
    let export = cli.run(&["id", "export"]);
    assert!(export.status.success(), "{}", stderr(&export));
    let cli_file = String::from_utf8(export.stdout).unwrap();
    let key = cli.json(&["id", "show", "--json"])["key"]
        .as_str()
        .unwrap()
        .to_string();
    b.eval("window.confirm = () => true; 1");
    b.set_value("#identity-import textarea[name=file]", &cli_file);
    b.press("#identity-import button[type=submit]");
    b.wait_for(
        "document.getElementById('identity-who').textContent.includes('Anna <anna@example.org>')",
        "the CLI's identity is shown",
    );
    let shown = b.text("#identity-who").unwrap();
    let shown_key: String = shown
        .rsplit("key ")
        .next()
        .unwrap()
        .trim_end_matches('.')
        .replace(' ', "");
    // The whole key, in the form `starry id show` prints it.
    assert_eq!(shown_key, key, "the page's key and starry id show's");
    let kept = storage(&mut b);
    // Kept byte for byte as exported: the page's export is the CLI's file.
    assert_eq!(kept["starry/identity"], cli_file);
    let cli_json: Value = serde_json::from_str(&cli_file).unwrap();

    // Bad files: refused, and nothing kept changes.
    let mut broken: Value = cli_json.clone();
    broken["secret"] = "AAAA".into();
    for (bad, says) in [
        ("{not json".to_string(), "identity"),
        ("{\"name\": \"x\"}".to_string(), "identity"),
        (broken.to_string(), "identity"),
    ] {
        b.eval("document.getElementById('problem').hidden = true; 1");
        b.set_value("#identity-import textarea[name=file]", &bad);
        b.press("#identity-import button[type=submit]");
        let said = refusal(&mut b);
        assert!(said.contains(says), "{bad}: {said}");
        assert!(
            !said.contains(cli_json["secret"].as_str().unwrap()),
            "{said}"
        );
        assert_eq!(storage(&mut b), kept, "{bad}: storage changed");
    }
    assert_eq!(troubles(&b.console), Vec::<String>::new());
}

/// The addresses of this tab's history, oldest first.
fn history(b: &mut Browser) -> Vec<String> {
    let h = b.call("Page.getNavigationHistory", serde_json::json!({}));
    h["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["url"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// A game taken from a link (opening the player, and opened where the
/// player is open), a pasted armored block and a chosen `.jsonl` file: kept,
/// and the link's fragment gone from the address and the history. A
/// damaged link, a fork, a tampered entry and a file that is no log are
/// refused in the CLI's words, and nothing kept changes.
#[test]
fn games_are_received_and_bad_input_is_refused_with_nothing_kept_changed() {
    let Some(chromium) = crate::browser::browser_or_skip() else {
        return;
    };
    let dir = web_player();
    let s = StaticServer::start(&dir);
    let origin = s.url();
    let ps = Players::new(2);
    let (cli, ben) = (&ps.p[0], &ps.p[1]);
    let (id, bens) = ben_invites_anna(ben, "anna@example.org", "starry-night");
    let log = std::fs::read(&bens).unwrap();

    // A link that opens the player.
    let mut b = Browser::start(&chromium);
    open(&mut b, &starry_core::link::link_of(&origin, &log));
    b.wait_for(
        &format!("localStorage.getItem('starry/game/{id}') !== null"),
        "the game is kept",
    );
    assert_eq!(
        storage(&mut b)[&format!("starry/game/{id}")].as_bytes(),
        log.as_slice()
    );
    assert_eq!(b.eval("location.href"), origin.as_str());
    let h = history(&mut b);
    assert!(h.iter().all(|u| !u.contains("#log=")), "{h:?}");

    // Forked copies of an example game: the first, in two parts — a
    // link opened where the player is open, then the rest as an armored
    // block; the second's entry 6 differs.
    let forks = crate::common::forked::forked_copies(2);
    let head = first_entries(&forks[0], 4);
    b.goto(&starry_core::link::link_of(&origin, &head));
    let fork_id = hex::encode(starry_core::log::replay::read_genesis(&forks[0]).unwrap().1);
    b.wait_for(
        &format!("localStorage.getItem('starry/game/{fork_id}') !== null"),
        "the link's entries are kept",
    );
    let h = history(&mut b);
    assert!(h.iter().all(|u| !u.contains("#log=")), "{h:?}");
    assert_eq!(b.eval("location.hash"), "");
    paste(
        &mut b,
        &format!(
            "> quoted text\n{}",
            starry_core::armor::armor(&entries_from(&forks[0], 4))
        ),
    );
    b.wait_for(
        &format!(
            "localStorage.getItem('starry/game/{fork_id}') === {}",
            serde_json::to_string(std::str::from_utf8(&forks[0]).unwrap()).unwrap()
        ),
        "the armored block's entries are kept",
    );
    let kept = storage(&mut b);

    // A fork: refused as `starry ingest` refuses it.
    let dir_t = tempfile::tempdir().unwrap();
    let other = dir_t.path().join("other.jsonl");
    std::fs::write(&other, &forks[1]).unwrap();
    b.eval("document.getElementById('problem').hidden = true; 1");
    b.choose_files("#receive-file", &[&other]);
    b.press("#receive-go");
    let said = refusal(&mut b);
    assert!(said.contains("fork") && said.contains("entry 6"), "{said}");
    let mine = dir_t.path().join("mine.jsonl");
    std::fs::write(&mine, &forks[0]).unwrap();
    let cli_said = stderr(&cli.run(&[
        "ingest",
        other.to_str().unwrap(),
        "--into",
        mine.to_str().unwrap(),
    ]));
    assert!(cli_said.contains("fork"), "{cli_said}");
    assert_eq!(storage(&mut b), kept, "a fork changed what is kept");

    // A damaged link: the core's words.
    let good = starry_core::link::link_of(&origin, &log);
    let (_, frag) = good.split_once('#').unwrap();
    let damaged = format!("#{}!{}", &frag[..20], &frag[21..]);
    let words = starry_core::link::entries_of(&damaged)
        .unwrap_err()
        .to_string();
    b.eval("document.getElementById('problem').hidden = true; 1");
    b.goto(&format!("{origin}{damaged}"));
    assert_eq!(refusal(&mut b), words);
    assert_eq!(b.eval("location.hash"), "");
    assert_eq!(storage(&mut b), kept, "a damaged link changed what is kept");

    // A tampered entry (of a game not kept yet): the audit's words.
    let (_, bens2) = ben_invites_anna(ben, "anna@example.org", "star-map");
    let mut tampered = std::fs::read(&bens2).unwrap();
    let at = tampered
        .windows(7)
        .rposition(|w| w == b"\"time\":")
        .unwrap()
        + 10;
    tampered[at] = if tampered[at] == b'1' { b'2' } else { b'1' };
    let tf = dir_t.path().join("tampered.jsonl");
    std::fs::write(&tf, &tampered).unwrap();
    let audit = cli.run(&["audit", tf.to_str().unwrap()]);
    assert!(!audit.status.success());
    paste(&mut b, std::str::from_utf8(&tampered).unwrap());
    let said = refusal(&mut b);
    let audit_said = format!("{}{}", stdout(&audit), stderr(&audit));
    assert!(said.contains("does not verify"), "{said}");
    let reason = said.rsplit(": ").next().unwrap().trim_end_matches('.');
    assert!(
        audit_said.contains(reason),
        "the page: {said}\nstarry audit: {audit_said}"
    );
    assert_eq!(
        storage(&mut b),
        kept,
        "a tampered entry changed what is kept"
    );

    // Entries of a game not kept, without its beginning; the same
    // entries twice (nothing new, nothing changed).
    paste(
        &mut b,
        &starry_core::link::link_of(&origin, &entries_from(&std::fs::read(&bens2).unwrap(), 1)),
    );
    let said = refusal(&mut b);
    assert!(
        said.contains("begin at entry 1") && said.contains("whole log"),
        "{said}"
    );
    assert_eq!(storage(&mut b), kept, "a gap changed what is kept");
    paste(&mut b, &starry_core::armor::armor(&log));
    b.wait_for(
        "document.getElementById('notice').textContent.includes('nothing new')",
        "nothing new",
    );
    assert_eq!(
        storage(&mut b),
        kept,
        "entries taken twice changed what is kept"
    );

    // A file that is no log, and nothing at all.
    let nolog = dir_t.path().join("notes.jsonl");
    std::fs::write(&nolog, "Dear Anna, see you Tuesday.\n").unwrap();
    b.eval("document.getElementById('problem').hidden = true; 1");
    b.choose_files("#receive-file", &[&nolog]);
    b.press("#receive-go");
    let said = refusal(&mut b);
    let audit = cli.run(&["audit", nolog.to_str().unwrap()]);
    assert!(!audit.status.success());
    assert!(
        said.starts_with("entry 0 (line 1): malformed line")
            && stdout(&audit).contains("entry 0 (line 1): malformed line"),
        "the page: {said}\nstarry audit: {}",
        stdout(&audit)
    );
    paste(&mut b, "   ");
    assert!(refusal(&mut b).contains("nothing to receive"));
    assert_eq!(storage(&mut b), kept, "a bad file changed what is kept");
    assert_eq!(troubles(&b.console), Vec::<String>::new());
}

/// Games whose players chose names that are markup: the list and the game
/// pages show the names as text; nothing of them runs or loads, and the
/// page's policy is never even tried.
#[test]
fn hostile_names_are_shown_as_text_and_nothing_runs() {
    let Some(chromium) = crate::browser::browser_or_skip() else {
        return;
    };
    let dir = web_player();
    let s = StaticServer::start(&dir);
    let origin = s.url();
    let ps = Players::new(1);
    let mut b = Browser::start(&chromium);
    open(&mut b, &origin);
    create_identity(&mut b, "Anna", "anna@example.org");
    let evil = [
        ("star-map", "<img src=x onerror=window.pwned=1>"),
        ("starry-night", "\"><svg onload=window.pwned=2>"),
        ("starry-sky", "</script><script>window.pwned=3</script>"),
    ];
    let mut ids = Vec::new();
    for (i, (game, name)) in evil.iter().enumerate() {
        let m = ps.p[0].elsewhere(ps.dir.path().join(format!("mallory{i}")));
        std::fs::remove_file(m.home.join("identity.json")).unwrap();
        let out = m.run(&[
            "id",
            "new",
            "--name",
            name,
            "--email",
            "mallory@example.org",
        ]);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        let (id, log) = ben_invites_anna_as(&m, game);
        b.goto(&starry_core::link::link_of(
            &origin,
            &std::fs::read(log).unwrap(),
        ));
        b.wait_for(
            &format!("document.querySelector('a[data-game=\"{id}\"]') !== null"),
            "the game is listed",
        );
        ids.push(id);
    }
    let listed = b.text("#games").unwrap();
    for (id, (_, name)) in ids.iter().zip(&evil) {
        assert!(listed.contains(name), "{name} is not in the list: {listed}");
        b.press(&format!("a[data-game=\"{id}\"]"));
        b.wait_for(
            &format!("document.querySelector('#game h2') !== null && document.getElementById('game').textContent.includes({})",
                serde_json::to_string(name).unwrap()),
            "the game page shows the name",
        );
        let html = b.eval("document.getElementById('game').innerHTML");
        assert!(!html.as_str().unwrap().contains(name), "{name} unescaped");
    }
    assert_eq!(b.eval("typeof window.pwned"), "undefined");
    assert_eq!(
        b.eval("document.querySelectorAll('img, [onload], [onerror], script').length"),
        2,
        "markup from a name is in the page"
    );
    assert_eq!(b.requests_elsewhere(&[&origin]), []);
    assert_eq!(troubles(&b.console), Vec::<String>::new());
}

/// `m` creates `game` with Anna: its id and `m`'s copy.
fn ben_invites_anna_as(m: &Player, game: &str) -> (String, PathBuf) {
    let out = m.run(&[
        "new",
        game,
        "--players",
        if game == "starry-sky" {
            "mallory@example.org, Anna <anna@example.org>, Cleo <cleo@example.org>"
        } else {
            "mallory@example.org, Anna <anna@example.org>"
        },
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = j["status"]["game_id"].as_str().unwrap().to_string();
    (id.clone(), m.copy_of(&id))
}

/// axe-core finds no serious or critical violation on the player's pages
/// (no identity yet; an identity, a game list and an invitation; a game
/// drawn), on a desktop's screen and a phone's; on the phone no target is
/// under 24 px.
#[test]
fn the_players_pages_pass_axe_and_a_phones_targets_are_large_enough() {
    let Some(chromium) = crate::browser::browser_or_skip() else {
        return;
    };
    let Some(axe) = axe_or_skip() else {
        return;
    };
    let dir = web_player();
    let s = StaticServer::start(&dir);
    let origin = s.url();
    let ps = Players::new(3);
    let (invited, bens) =
        ben_invites_anna_and(&ps.p[1], "anna@example.org", "starry-sky", Some(&ps.p[2]));
    let invitation = std::fs::read(bens).unwrap();
    let example = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/games/in-progress-4p.jsonl"),
    )
    .unwrap();
    let mut found = Vec::new();
    for (screen, metrics) in screens() {
        let mut b = Browser::start(&chromium);
        let width = metrics["width"].clone();
        b.screen(metrics);
        open(&mut b, &origin);
        let mut check = |b: &mut Browser, page: &str| {
            for v in axe_serious(b, &axe) {
                found.push(format!("{screen}, {page}: {v}"));
            }
            // One h1 (the player's own); a game's title is a heading under it.
            let h1 = b.eval("document.querySelectorAll('h1').length");
            if h1 != 1 {
                found.push(format!("{screen}, {page}: {h1} h1 headings"));
            }
            if screen == "phone" {
                // Nothing wider than the screen (a 64-digit key did that):
                // else the page is zoomed out and its targets shrink.
                let wide = b.eval("document.documentElement.scrollWidth");
                if wide != width {
                    found.push(format!("{screen}, {page}: {wide} px wide"));
                }
                for t in b.small_targets(24.0) {
                    found.push(format!("{screen}, {page}: small target {t}"));
                }
            }
        };
        check(&mut b, "no identity");
        create_identity(&mut b, "Anna", "anna@example.org");
        b.goto(&starry_core::link::link_of(&origin, &invitation));
        b.wait_for(
            "document.querySelector('#game form') !== null",
            "the invitation is shown",
        );
        check(&mut b, "an invitation");
        b.goto(&starry_core::link::link_of(&origin, &example));
        // The invitation's page has a board too: the second game listed is
        // what says the link was taken (and drawn, in the same turn).
        b.wait_for(
            "document.querySelectorAll('#games a[data-game]').length === 2 \
             && document.querySelector('#game .board svg') !== null",
            "a game is drawn",
        );
        check(&mut b, "a game drawn");
        // A refusal shown.
        paste(&mut b, "nothing of a game");
        refusal(&mut b);
        check(&mut b, "a refusal");
        let _ = &invited;
        assert_eq!(troubles(&b.console), Vec::<String>::new());
    }
    assert_eq!(found, Vec::<String>::new());
}

/// The history stepper of the shared game page, in the player: "‹ Back"
/// shows the position one entry earlier (the board as `starry view --at`
/// draws it), "Last »" comes back, and stepping writes nothing.
#[test]
fn the_history_stepper_walks_back_and_forth_in_the_player() {
    let Some(chromium) = crate::browser::browser_or_skip() else {
        return;
    };
    let dir = web_player();
    let s = StaticServer::start(&dir);
    let example = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/games/in-progress-4p.jsonl"),
    )
    .unwrap();
    let entries = example.iter().filter(|&&b| b == b'\n').count();
    let mut b = Browser::start(&chromium);
    open(&mut b, &s.url());
    b.goto(&starry_core::link::link_of(&s.url(), &example));
    b.wait_for(
        "document.querySelector('#game nav.stepper') !== null",
        "the game and its stepper are shown",
    );
    let kept = storage(&mut b);
    let stepper = |b: &mut Browser| b.text("#game nav.stepper").unwrap_or_default();
    let last = entries - 1;
    assert!(
        stepper(&mut b).contains(&format!("entry {last} of {last}")),
        "{}",
        stepper(&mut b)
    );
    let click = |b: &mut Browser, label: &str| {
        let before = b.eval("document.getElementById('game').innerHTML");
        b.eval(&format!(
            "[...document.querySelectorAll('#game nav.stepper a')]\
             .find(a => a.textContent.includes({label:?})).id = 'step-link'; true"
        ));
        b.press("#step-link");
        b.wait_for(
            &format!(
                "document.getElementById('game').innerHTML !== {}",
                serde_json::to_string(&before).unwrap()
            ),
            "the step is shown",
        );
    };
    click(&mut b, "Back");
    let back = stepper(&mut b);
    assert!(
        back.contains(&format!("entry {} of {last}", last - 1)),
        "{back}"
    );
    assert!(
        !b.exists("#game form[method=post]"),
        "no action is offered in the history"
    );
    click(&mut b, "Last");
    assert!(stepper(&mut b).contains(&format!("entry {last} of {last}")));
    assert_eq!(storage(&mut b), kept, "stepping wrote nothing");
    assert_eq!(troubles(&b.console), Vec::<String>::new());
}
