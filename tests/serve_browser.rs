//! `starry serve` in a real headless Chromium, driven by clicks through
//! the DevTools protocol (over its WebSocket): a whole Starry Night game
//! and a whole Star Map game against the computer, a Starry Sky move with
//! a face-down token, the history stepper (by click and by key); after
//! each move the board shows the position `starry view` shows; no console
//! message of any kind; screenshots that are not blank; a phone-sized
//! screen without sideways scrolling; a page of another site that cannot
//! make a move; and axe-core's accessibility check of every kind of page
//! (and of `view --format html`'s), on a desktop and on a phone.
//!
//! Needs Chromium, found as tests/browser.rs finds it, and axe-core
//! (`sh tests/support/axe/install.sh`; STARRY_SKIP_AXE_TESTS=1 skips its
//! tests knowingly). STARRY_SCREENSHOTS=DIR keeps the screenshots there
//! (docs/pictures/serve-*.png come from it).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::devtools::*;
use crate::players::*;
use crate::served::*;

/// The titles of an SVG's elements.
fn titles(svg: &str) -> Vec<String> {
    svg.match_indices("<title>")
        .map(|(i, _)| {
            let rest = &svg[i + 7..];
            let t = &rest[..rest.find("</title>").unwrap()];
            t.replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&#39;", "'")
                .replace("&amp;", "&")
        })
        .collect()
}

/// What `starry view` draws of the game now (or after `at` entries: after
/// entry `at - 1`, as `view --at` and `history` number them).
fn view_titles(p: &Player, log: &Path, at: Option<u64>) -> Vec<String> {
    let mut args = vec![
        "view".to_string(),
        log.display().to_string(),
        "--format".into(),
        "svg".into(),
    ];
    if let Some(n) = at {
        args.extend(["--at".to_string(), (n - 1).to_string()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = p.run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let svg = stdout(&out);
    // The page's board is the first SVG; its titles start with the document's.
    titles(&svg)
}

fn keep(shot: &[u8], name: &str) {
    let (dark, colours) = crate::browser::ink(shot);
    assert!(
        dark > 2000 && colours > 8,
        "{name}: a blank screenshot ({dark} dark pixels, {colours} colours)"
    );
    if let Some(dir) = std::env::var_os("STARRY_SCREENSHOTS") {
        std::fs::write(PathBuf::from(dir).join(name), shot).unwrap();
    }
}

/// Starts a game through the server's form; its id and log.
fn new_game(s: &Served, p: &Player, game: &str, others: &str) -> (String, PathBuf) {
    let csrf = s.csrf();
    let players = format!("{} <{}>\n{others}", p.name, p.email);
    let r = s.post(
        "/new",
        &[
            ("csrf", &csrf),
            ("game", game),
            ("players", &players),
            ("deadline", "14d"),
        ],
    );
    assert_eq!(r.status, 303, "{r:?}");
    let id = r.location()["/game/".len()..]
        .split('?')
        .next()
        .unwrap()
        .to_string();
    let log = p.copy_of(&id);
    (id, log)
}

/// Plays the whole game by clicks: the first place offered on the board
/// (or, where a choice is not a place, the first offered beside it), then
/// the preview's confirmation; after each move, the board is the view's.
/// Keeps a screenshot after `shot_clicks` clicks of move `shot_at`.
/// Returns the number of moves made.
fn play_by_clicks(
    b: &mut Browser,
    p: &Player,
    log: &Path,
    game: &str,
    (shot_at, shot_clicks): (usize, usize),
) -> usize {
    let mut moves = 0;
    let mut clicks = 0;
    for _ in 0..2000 {
        if moves + 1 == shot_at && clicks == shot_clicks {
            // Halfway through a move: what is picked, and where it may go.
            let shot = b.screenshot();
            keep(&shot, &format!("serve-{game}.png"));
        }
        if b.exists("section.preview button") {
            b.click("section.preview button");
            moves += 1;
            clicks = 0;
            b.quiet(game);
            assert!(
                !b.exists(".notice.error"),
                "{game}: {}",
                b.eval("document.querySelector('.notice.error').textContent")
            );
            let at = entries_of(p, log);
            assert_eq!(b.entries(), at, "{game}: the page shows another position");
            assert_eq!(
                b.board_titles(),
                view_titles(p, log, None),
                "{game}: the board is not the view's"
            );
        } else if b.exists(".board a.choice") {
            b.click(".board a.choice");
            clicks += 1;
        } else if b.exists("ul.choices a") {
            b.click("ul.choices a");
            clicks += 1;
        } else if b.exists("form:has(input[value=\"countersign\"]) button") {
            b.click("form:has(input[value=\"countersign\"]) button");
        } else {
            break;
        }
    }
    let status = p.json(&["status", log.to_str().unwrap(), "--json"]);
    if status["over"] != true {
        let shown = b.eval("document.location.href + '\\n' + document.body.innerText");
        panic!("{game}: nothing to click, and the game is not over: {status}\n{shown}");
    }
    let audit = p.run(&["audit", log.to_str().unwrap()]);
    assert!(audit.status.success(), "{game}: {}", stdout(&audit));
    moves
}

#[test]
fn whole_games_by_clicks_the_history_stepper_and_a_face_down_token() {
    let Some(chromium) = crate::browser::browser_or_skip() else {
        return;
    };
    let ps = Players::new(1);
    let p = &ps.p[0];
    let s = Served::start(p, &[]);
    let mut b = Browser::start(&chromium);
    b.enter(&s.url);
    assert!(
        b.exists("h1"),
        "the printed address did not let the browser in"
    );
    b.quiet("home");

    // Starry Night, then Star Map, each to its end against the computer.
    // The screenshot: halfway through a move, after its first click (a
    // star) or its second (a disc and its rotation).
    for (game, shot_at) in [("starry-night", (5, 1)), ("star-map", (6, 2))] {
        let (id, log) = new_game(&s, p, game, "computer:1");
        b.goto(&format!("http://{}/game/{id}", s.host()));
        b.quiet(game);
        let moves = play_by_clicks(&mut b, p, &log, game, shot_at);
        assert!(moves >= 3, "{game}: {moves} moves");

        // The history stepper: first, forward (click), forward (key), back.
        b.click("nav.stepper a");
        assert_eq!(
            b.board_titles(),
            view_titles(p, &log, Some(1)),
            "{game}: first"
        );
        b.click("a[rel=next]");
        assert_eq!(
            b.board_titles(),
            view_titles(p, &log, Some(2)),
            "{game}: forward"
        );
        b.key("ArrowRight");
        assert_eq!(
            b.board_titles(),
            view_titles(p, &log, Some(3)),
            "{game}: key forward"
        );
        b.click("a[rel=prev]");
        assert_eq!(
            b.board_titles(),
            view_titles(p, &log, Some(2)),
            "{game}: back"
        );
        b.quiet(game);
    }

    // Starry Sky: a token of the hand, then a large star: face down.
    let (id, log) = new_game(&s, p, "starry-sky", "computer:1\ncomputer:1");
    b.goto(&format!("http://{}/game/{id}", s.host()));
    b.click(".board a.choice");
    // The link named (by its own title) for a token that goes face down.
    let large = b.eval(
        r#"(() => {
            const a = [...document.querySelectorAll(".board a.choice")]
                .find(a => a.querySelector(":scope > title").textContent.includes("face down"));
            if (a) a.id = "large-star";
            return !!a;
        })()"#,
    );
    assert_eq!(large, true, "no large star offered");
    b.click("#large-star");
    assert!(b.exists("section.preview"), "no preview");
    b.click("section.preview button");
    b.quiet("starry-sky");
    let titles = b.board_titles();
    assert!(
        titles
            .iter()
            .any(|t| t.contains("face down (only you see it)")),
        "the token is not face down: {titles:#?}"
    );
    assert_eq!(b.entries(), entries_of(p, &log));
    assert_eq!(titles, view_titles(p, &log, None));
    let shot = b.screenshot();
    keep(&shot, "serve-starry-sky.png");

    // A phone-sized screen: no sideways scrolling, the board scaled down.
    b.call(
        "Emulation.setDeviceMetricsOverride",
        json!({ "width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": true }),
    );
    b.goto(&format!("http://{}/game/{id}", s.host()));
    let wide = b.eval("document.documentElement.scrollWidth <= window.innerWidth");
    assert_eq!(wide, true, "the page scrolls sideways on a phone");
    let shot = b.screenshot();
    keep(&shot, "serve-phone.png");
    b.quiet("phone");
}

/// A page of another site, open in the same browser, tries to make a
/// move: a form posted to the server, and a script's fetch. Neither
/// writes anything.
#[test]
fn a_page_from_another_origin_cannot_make_a_move() {
    let Some(chromium) = crate::browser::browser_or_skip() else {
        return;
    };
    let ps = Players::new(1);
    let p = &ps.p[0];
    let s = Served::start(p, &[]);
    let (id, log) = new_game(&s, p, "starry-night", "computer:1");
    let m = {
        let list = p.json(&["moves", log.to_str().unwrap(), "--json"]);
        list["moves"][0]["move"].as_str().unwrap().to_string()
    };
    let before = std::fs::read(&log).unwrap();
    let n = entries_of(p, &log);
    let csrf = s.csrf();

    let mut b = Browser::start(&chromium);
    // Logged in: the cookie is set in this browser (the printed address
    // was used by `csrf()` above: a fresh one).
    b.enter(&s.fresh_link());
    // The attacker's page, served from another origin (a file here; the
    // same for any site), knows even the CSRF token.
    let dir = tempfile::tempdir().unwrap();
    let evil = dir.path().join("evil.html");
    std::fs::write(
        &evil,
        format!(
            r#"<!doctype html><html><body>
<form id="f" method="post" action="http://{host}/game/{id}/act">
<input name="csrf" value="{csrf}"><input name="entries" value="{n}">
<input name="what" value="play"><input name="move" value="{m}">
<button id="go">go</button></form>
</body></html>"#,
            host = s.host()
        ),
    )
    .unwrap();
    b.goto(&format!("file://{}", evil.display()));
    b.click("#go");
    let answer = b.eval("document.body.innerText");
    // Refused: the cookie stays home (SameSite=Strict), and the origin is
    // another's.
    assert!(
        answer.as_str().unwrap_or("").starts_with("starry serve: "),
        "{answer}"
    );
    b.goto(&format!("file://{}", evil.display()));
    let fetched = b.eval(&format!(
        r#"fetch("http://{host}/game/{id}/act", {{ method: "POST", credentials: "include", mode: "no-cors",
             headers: {{ "Content-Type": "application/x-www-form-urlencoded" }},
             body: "csrf={csrf}&entries={n}&what=play&move={me}" }}).then(() => "sent", e => "refused: " + e)"#,
        host = s.host(),
        me = m.replace(' ', "+"),
    ));
    let _ = fetched;
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(
        std::fs::read(&log).unwrap(),
        before,
        "another origin made a move"
    );
}

/// Issue 31, items 12 and 13: `--open`'s file (what the browser is given
/// instead of a secret) lets a real browser in; then twelve tabs of one
/// game, each live, each load and each take a click. A page that held a
/// connection open for live refresh froze the seventh tab: a browser
/// allows six connections per host. The bound here is generous (a loaded
/// machine); a freeze never loads at all.
#[test]
fn twelve_tabs_each_load_and_take_a_click() {
    let Some(chromium) = crate::browser::browser_or_skip() else {
        return;
    };
    let ps = Players::new(1);
    let p = &ps.p[0];
    let (script, argv) = recording_browser(ps.dir.path());
    let s = Served::start_env(p, &["--open"], &[("BROWSER", script.to_str().unwrap())]);
    let (id, _log) = new_game(&s, p, "starry-night", "computer:1");
    let given = recorded_argv(&argv);
    let mut b = Browser::start(&chromium);
    b.enter(&given[0]);
    let game = format!("http://{}/game/{id}", s.host());
    b.goto(&game);
    assert!(
        b.exists(".board svg"),
        "--open's file did not let the browser in"
    );
    b.quiet("the first tab");

    let bound = Duration::from_secs(60);
    let mut tabs = vec![b.session.clone()];
    let opened = Instant::now();
    for _ in 1..12 {
        tabs.push(b.open_tab(&game));
    }
    let mut loaded = Vec::new();
    for (i, t) in tabs.iter().enumerate() {
        b.session = t.clone();
        while b.eval(
            "document.readyState === 'complete' && location.pathname.startsWith('/game/') \
             && document.querySelector('.board svg') !== null",
        ) != true
        {
            assert!(
                opened.elapsed() < bound,
                "tab {} never loaded ({} tabs open)",
                i + 1,
                tabs.len()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        loaded.push(opened.elapsed());
    }
    // Every page's script asks for changes now and then: let them.
    std::thread::sleep(Duration::from_secs(3));
    let mut clicked = Vec::new();
    for (i, t) in tabs.iter().enumerate() {
        b.session = t.clone();
        let started = Instant::now();
        b.click("header a[href=\"/\"]");
        while b.eval("location.pathname === '/' && document.readyState === 'complete'") != true {
            assert!(
                started.elapsed() < bound,
                "tab {}: the click never loaded its page",
                i + 1
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(b.exists("h1"), "tab {}", i + 1);
        clicked.push(started.elapsed());
    }
    eprintln!("twelve tabs: loaded by {loaded:?}; each click's page in {clicked:?}");
    assert!(given[0].starts_with("file://"), "{given:?}");
    b.quiet("twelve tabs");
}

/// The board's places of the next click, each also a button of 24 px or
/// more in the list of choices (axe-core measures no target inside an
/// SVG; on a phone a board's places are a few pixels wide), and named, as
/// Chromium tells a screen reader, by the choice it makes.
fn board_choices_are_listed_large(b: &mut Browser, what: &str) {
    let found = b.eval(
        r#"(() => {
            const listed = new Map([...document.querySelectorAll("ul.choices a")]
                .map(a => [a.getAttribute("href"), a]));
            const bad = [];
            for (const a of document.querySelectorAll(".board a.choice")) {
                const l = listed.get(a.getAttribute("href"));
                const name = a.querySelector(":scope > title").textContent;
                if (!l) { bad.push("not listed: " + name); continue; }
                const r = l.getBoundingClientRect();
                if (r.width < 24 || r.height < 24) bad.push(`${name}: ${r.width}×${r.height} px`);
                if (l.textContent !== name) bad.push(`${name} is listed as ${l.textContent}`);
            }
            return [document.querySelectorAll(".board a.choice").length, bad];
        })()"#,
    );
    assert_eq!(found[1], json!([]), "{what}: {found}");
    if found[0].as_u64() == Some(0) {
        return;
    }
    // The accessible name of the first, as Chromium computes it.
    let doc = b.call("DOM.getDocument", json!({ "depth": 0 }));
    let node = b.call(
        "DOM.querySelector",
        json!({ "nodeId": doc["root"]["nodeId"], "selector": ".board a.choice" }),
    );
    let ax = b.call(
        "Accessibility.getPartialAXTree",
        json!({ "nodeId": node["nodeId"], "fetchRelatives": false }),
    );
    let title = b.eval("document.querySelector('.board a.choice > title').textContent");
    let link = ax["nodes"]
        .as_array()
        .and_then(|n| n.iter().find(|n| n["role"]["value"] == "link"))
        .unwrap_or_else(|| panic!("{what}: no link in {ax}"));
    assert_eq!(link["name"]["value"], title, "{what}: {link}");
}

/// Issue 33, item 19: axe-core finds nothing serious on any page of
/// `starry serve`, on a desktop screen and on a phone: the home page, the
/// new-game form, every game's page while a move is being chosen (by its
/// first click and halfway), its preview, and its history.
#[test]
fn axe_finds_nothing_serious_on_any_page() {
    let Some(chromium) = crate::browser::browser_or_skip() else {
        return;
    };
    let Some(axe) = axe_or_skip() else {
        return;
    };
    let ps = Players::new(1);
    let p = &ps.p[0];
    let s = Served::start(p, &[]);
    let mut b = Browser::start(&chromium);
    b.enter(&s.url);
    let host = s.host();
    let mut found = Vec::new();
    let mut check = |b: &mut Browser, screen: &str| {
        let url = b.eval("location.pathname + location.search");
        for v in axe_serious(b, &axe) {
            found.push(format!(
                "{screen} {}: {v}",
                url.as_str().unwrap_or_default()
            ));
        }
    };
    for (screen, metrics) in screens() {
        b.call("Emulation.setDeviceMetricsOverride", metrics);
        b.goto(&format!("http://{host}/new"));
        check(&mut b, screen);
        for (game, others) in [
            ("starry-sky", "computer:1\ncomputer:1"),
            ("star-map", "computer:1"),
            ("starry-night", "computer:1"),
        ] {
            let (id, log) = new_game(&s, p, game, others);
            // A move's clicks: the first, the next (halfway, the first
            // place marked as picked), up to the preview.
            b.goto(&format!("http://{host}/game/{id}"));
            for _ in 0..4 {
                let on_board = b.exists(".board a.choice");
                if !on_board && !b.exists("ul.choices a") {
                    break;
                }
                check(&mut b, screen);
                board_choices_are_listed_large(&mut b, &format!("{screen} {game}"));
                b.click(if on_board {
                    ".board a.choice"
                } else {
                    "ul.choices a"
                });
            }
            assert!(b.exists("section.preview"), "{game}: no preview");
            check(&mut b, screen);
            b.click("section.preview button");
            assert!(entries_of(p, &log) > 2, "{game}: no move was made");
            b.goto(&format!("http://{host}/game/{id}?at=2"));
            check(&mut b, screen);
        }
        b.goto(&format!("http://{host}/"));
        check(&mut b, screen);
    }
    b.quiet("axe");
    assert!(
        found.is_empty(),
        "axe-core finds serious violations:\n{}",
        found.join("\n")
    );
}

/// The HTML page `starry view --format html` writes, of each game, holds
/// nothing axe-core finds serious either, on a desktop or a phone.
#[test]
fn axe_finds_nothing_serious_in_the_html_view() {
    let Some(chromium) = crate::browser::browser_or_skip() else {
        return;
    };
    let Some(axe) = axe_or_skip() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let pages: Vec<PathBuf> = [
        ("in-progress-4p.jsonl", None),
        ("finished-5p-compound-coins.jsonl", None),
        ("starry-night-takeback.jsonl", Some("20")),
        ("starry-night-finished-area.jsonl", None),
        ("star-map-4-players-teams.jsonl", Some("30")),
        ("star-map-3-players-hard.jsonl", None),
    ]
    .into_iter()
    .map(|(file, at)| crate::browser::page_of(dir.path(), file, at))
    .collect();
    let mut b = Browser::start(&chromium);
    let mut found = Vec::new();
    for (screen, metrics) in screens() {
        b.call("Emulation.setDeviceMetricsOverride", metrics);
        for page in &pages {
            b.goto(&format!("file://{}", page.display()));
            for v in axe_serious(&mut b, &axe) {
                found.push(format!("{screen} {}: {v}", page.display()));
            }
        }
    }
    b.quiet("the HTML view");
    assert!(
        found.is_empty(),
        "axe-core finds serious violations:\n{}",
        found.join("\n")
    );
}

/// Issue 33, item 20: Anna's page is open when Ben, at the command line,
/// draws an edge; the live refresh shows the new position and says what
/// Ben did, in a polite live region, given again after the refresh so that
/// a screen reader announces it.
#[test]
fn a_live_refresh_says_what_the_other_side_did() {
    let Some(chromium) = crate::browser::browser_or_skip() else {
        return;
    };
    let ps = Players::new(2);
    let (anna, ben) = (&ps.p[0], &ps.p[1]);
    let s = Served::start(anna, &[]);
    let (id, log) = crate::serve::ben_invites_anna(ben, anna, "14d");
    let l = log.to_str().unwrap();
    for (who, args) in [
        (anna, vec!["join", l]),
        (anna, vec!["ready", l]),
        (ben, vec!["ready", l]),
        (anna, vec!["play", l, "first 0"]),
    ] {
        let out = who.run(&args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    }
    let mut b = Browser::start(&chromium);
    b.enter(&s.url);
    b.goto(&format!("http://{}/game/{id}", s.host()));
    let shown = b.entries();
    assert_eq!(shown, entries_of(anna, &log));
    let happened = "(document.getElementById('happened') || {}).textContent || ''";
    assert!(
        !b.eval(happened).as_str().unwrap().contains("Ben drew"),
        "{}",
        b.eval(happened)
    );
    // A change the page learns of only by asking: no click of Anna's.
    let out = ben.run(&["play", l, "--auto"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let start = Instant::now();
    let now = "Number(((document.getElementById('status') || {}).dataset || {}).entries || 0)";
    while b.eval(now).as_u64() != Some(shown + 1)
        || !b.eval(happened).as_str().unwrap().contains("Ben drew edge")
    {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the page never said what Ben did: {}",
            b.eval("document.body.innerText")
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let region = b.eval(
        "(() => { const h = document.getElementById('happened'); \
         return [h.getAttribute('role'), h.getAttribute('aria-live')]; })()",
    );
    assert_eq!(region, json!(["status", "polite"]));
    assert_eq!(b.board_titles(), view_titles(anna, &log, None));
    b.quiet("live refresh");
}
