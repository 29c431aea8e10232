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

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

use crate::players::*;
use crate::served::*;

/// A headless Chromium and one page in it.
struct Browser {
    child: Child,
    ws: WebSocket<MaybeTlsStream<TcpStream>>,
    session: String,
    next: u64,
    /// Page loads seen so far, by session (tab).
    loads: std::collections::HashMap<String, usize>,
    /// Every console message, exception and browser log entry.
    console: Vec<String>,
    _profile: tempfile::TempDir,
}

impl Browser {
    fn start(chromium: &Path) -> Browser {
        let profile = tempfile::tempdir().unwrap();
        use std::os::unix::process::CommandExt;
        let mut child = Command::new(chromium)
            // Its own process group: Chromium's renderers and helpers are
            // its children, and all of them go when the test ends.
            .process_group(0)
            .args(crate::browser::CHROMIUM_FLAGS)
            .args(["--remote-debugging-port=0", "--window-size=1280,1400"])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("chromium starts");
        let mut err = BufReader::new(child.stderr.take().unwrap());
        let mut url = None;
        let mut seen = String::new();
        for _ in 0..200 {
            let mut line = String::new();
            if err.read_line(&mut line).unwrap_or(0) == 0 {
                break;
            }
            if let Some(i) = line.find("ws://") {
                url = Some(line[i..].trim().to_string());
                break;
            }
            seen.push_str(&line);
        }
        let url = url.unwrap_or_else(|| panic!("Chromium gave no DevTools address: {seen}"));
        // Keep reading what it says, so that it never blocks on a full pipe.
        std::thread::spawn(move || for _ in err.lines() {});
        let (ws, _) = tungstenite::connect(url.as_str()).expect("DevTools connects");
        if let MaybeTlsStream::Plain(s) = ws.get_ref() {
            s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
        }
        let mut b = Browser {
            child,
            ws,
            session: String::new(),
            next: 0,
            loads: Default::default(),
            console: Vec::new(),
            _profile: profile,
        };
        let target = b.send(None, "Target.createTarget", json!({ "url": "about:blank" }));
        let attached = b.send(
            None,
            "Target.attachToTarget",
            json!({ "targetId": target["targetId"], "flatten": true }),
        );
        b.session = attached["sessionId"].as_str().unwrap().to_string();
        for domain in ["Page.enable", "Runtime.enable", "Log.enable"] {
            b.call(domain, json!({}));
        }
        b
    }

    fn send(&mut self, session: Option<String>, method: &str, params: Value) -> Value {
        // An evaluation that meets a navigation (a page that forwards
        // itself, a live-refresh reload) is lost with it: asked again once
        // the new page is there. A page that keeps navigating for 30 s
        // still fails.
        let start = Instant::now();
        loop {
            match self.send_once(session.clone(), method, params.clone()) {
                Ok(v) => return v,
                Err(m)
                    if method == "Runtime.evaluate"
                        && start.elapsed() < Duration::from_secs(30)
                        && ["navigated or closed", "context was destroyed"]
                            .iter()
                            .any(|t| m["error"]["message"].as_str().unwrap_or("").contains(t)) =>
                {
                    std::thread::sleep(Duration::from_millis(100));
                }
                Err(m) => panic!("{method}: {m}"),
            }
        }
    }

    fn send_once(
        &mut self,
        session: Option<String>,
        method: &str,
        params: Value,
    ) -> Result<Value, Value> {
        self.next += 1;
        let id = self.next;
        let mut msg = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = session {
            msg["sessionId"] = s.into();
        }
        self.ws.send(Message::Text(msg.to_string().into())).unwrap();
        loop {
            let m = self.read();
            if m["id"] == id {
                return match m.get("error") {
                    None => Ok(m["result"].clone()),
                    Some(_) => Err(m),
                };
            }
        }
    }

    fn call(&mut self, method: &str, params: Value) -> Value {
        self.send(Some(self.session.clone()), method, params)
    }

    /// The next message, noting the events on the way.
    fn read(&mut self) -> Value {
        let m = match self.ws.read().expect("DevTools answers") {
            Message::Text(t) => serde_json::from_str::<Value>(t.as_str()).unwrap(),
            _ => return Value::Null,
        };
        let p = &m["params"];
        match m["method"].as_str().unwrap_or("") {
            "Page.loadEventFired" => {
                *self
                    .loads
                    .entry(m["sessionId"].as_str().unwrap_or("").to_string())
                    .or_default() += 1
            }
            "Runtime.consoleAPICalled" => self
                .console
                .push(format!("console.{}: {}", p["type"], p["args"])),
            "Runtime.exceptionThrown" => self
                .console
                .push(format!("exception: {}", p["exceptionDetails"])),
            "Log.entryAdded" => self.console.push(format!(
                "{}: {} {}",
                p["entry"]["level"], p["entry"]["text"], p["entry"]["url"]
            )),
            _ => {}
        }
        m
    }

    /// Page loads seen so far in this tab.
    fn loaded(&self) -> usize {
        self.loads.get(&self.session).copied().unwrap_or(0)
    }

    /// A new tab showing `url` (its load not waited for); this tab's
    /// session.
    fn open_tab(&mut self, url: &str) -> String {
        let target = self.send(None, "Target.createTarget", json!({ "url": url }));
        let attached = self.send(
            None,
            "Target.attachToTarget",
            json!({ "targetId": target["targetId"], "flatten": true }),
        );
        let session = attached["sessionId"].as_str().unwrap().to_string();
        self.send(Some(session.clone()), "Page.enable", json!({}));
        session
    }

    fn wait_load(&mut self, before: usize) {
        let start = Instant::now();
        while self.loaded() <= before {
            assert!(start.elapsed() < Duration::from_secs(120), "no page loaded");
            self.read();
        }
        // The page's own script has run once `load` fired; a reload it
        // began at once (live refresh) is waited for too.
        while self.eval("document.readyState") != "complete" {
            assert!(
                start.elapsed() < Duration::from_secs(120),
                "the page never settled"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn goto(&mut self, url: &str) {
        let before = self.loaded();
        self.call("Page.navigate", json!({ "url": url }));
        self.wait_load(before);
    }

    /// Opens an address with a token (or `--open`'s file leading to one):
    /// a page that goes on by itself; waits for the page it goes on to.
    fn enter(&mut self, url: &str) {
        self.goto(url);
        let start = Instant::now();
        while self.eval(
            "location.protocol === 'file:' || location.search.includes('token=') \
             || document.readyState !== 'complete'",
        ) == true
        {
            assert!(
                start.elapsed() < Duration::from_secs(120),
                "the address never led on"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn eval(&mut self, expr: &str) -> Value {
        let r = self.call(
            "Runtime.evaluate",
            json!({ "expression": expr, "returnByValue": true, "awaitPromise": true }),
        );
        assert!(r.get("exceptionDetails").is_none(), "{expr}: {r}");
        r["result"]["value"].clone()
    }

    fn exists(&mut self, selector: &str) -> bool {
        self.eval(&format!(
            "document.querySelector({}) !== null",
            json!(selector)
        )) == true
    }

    /// A real click (mouse down and up at the element's place on the
    /// screen), then the page it leads to.
    fn click(&mut self, selector: &str) {
        let at = self.eval(&format!(
            r#"(() => {{
                const el = document.querySelector({sel});
                if (!el) return null;
                el.scrollIntoView({{ block: "center", inline: "center" }});
                const link = el.closest("a") || el;
                const parts = [el, ...el.querySelectorAll("circle, rect, path, polygon, text, line")];
                for (const c of parts) {{
                    const r = c.getBoundingClientRect();
                    if (r.width === 0 && r.height === 0) continue;
                    const x = r.left + r.width / 2, y = r.top + r.height / 2;
                    const hit = document.elementFromPoint(x, y);
                    if (hit && (hit === el || el.contains(hit) || hit.closest("a") === link)) return [x, y];
                }}
                return null;
            }})()"#,
            sel = json!(selector)
        ));
        let (x, y) = (
            at[0]
                .as_f64()
                .unwrap_or_else(|| panic!("nothing to click at {selector}")),
            at[1].as_f64().unwrap(),
        );
        let before = self.loaded();
        for kind in ["mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 }),
            );
        }
        self.wait_load(before);
    }

    fn key(&mut self, key: &str) {
        let before = self.loaded();
        for kind in ["keyDown", "keyUp"] {
            self.call(
                "Input.dispatchKeyEvent",
                json!({ "type": kind, "key": key, "code": key, "windowsVirtualKeyCode": if key == "ArrowRight" { 39 } else { 37 } }),
            );
        }
        self.wait_load(before);
    }

    fn screenshot(&mut self) -> Vec<u8> {
        use base64::Engine;
        let r = self.call(
            "Page.captureScreenshot",
            json!({ "format": "png", "captureBeyondViewport": false }),
        );
        base64::engine::general_purpose::STANDARD
            .decode(r["data"].as_str().unwrap())
            .unwrap()
    }

    /// The titles of the board's elements: the position, as drawn (not
    /// the links' own, which name the choice they make).
    fn board_titles(&mut self) -> Vec<String> {
        self.eval(
            "[...document.querySelectorAll('.board svg title')]\
             .filter(t => t.parentNode.localName !== 'a').map(t => t.textContent)",
        )
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap().to_string())
        .collect()
    }

    fn entries(&mut self) -> u64 {
        self.eval("Number(document.getElementById('status').dataset.entries)")
            .as_u64()
            .unwrap()
    }

    fn quiet(&self, what: &str) {
        assert!(
            self.console.is_empty(),
            "{what}: console messages: {:#?}",
            self.console
        );
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Asked to close, Chromium ends its renderers itself; whatever is
        // left of its process group is then killed.
        let close = json!({ "id": 0, "method": "Browser.close" });
        let _ = self.ws.send(Message::Text(close.to_string().into()));
        for _ in 0..50 {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

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

/// axe-core's script (tests/support/axe/install.sh puts it in target/axe,
/// or STARRY_AXE_DIR), or a failure saying how to install it;
/// STARRY_SKIP_AXE_TESTS=1 turns that into a loud skip.
fn axe_or_skip() -> Option<String> {
    let dir = std::env::var_os("STARRY_AXE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/axe"));
    let script = dir.join("node_modules/axe-core/axe.min.js");
    match std::fs::read_to_string(&script) {
        Ok(s) => Some(s),
        Err(e) => {
            let text = format!(
                "\n\n##########################################################\n\
                 ## accessibility test: no axe-core at {} ({e}).\n\
                 ## Install it (needs npm; Debian: apt-get install npm):\n\
                 ##   sh tests/support/axe/install.sh\n\
                 ## STARRY_SKIP_AXE_TESTS=1 skips this test knowingly.\n\
                 ##########################################################\n",
                script.display()
            );
            if std::env::var("STARRY_SKIP_AXE_TESTS").is_ok_and(|v| !v.is_empty() && v != "0") {
                eprintln!("{text}SKIPPED");
                None
            } else {
                panic!("{text}");
            }
        }
    }
}

/// What axe-core finds on the page shown: each serious or critical
/// violation, with the elements it names. Every rule runs (the
/// experimental ones and `target-size` too) but those of WCAG's AAA level.
fn axe_serious(b: &mut Browser, axe: &str) -> Vec<String> {
    // Through the DevTools protocol, not a <script>: the page's
    // Content-Security-Policy allows only its own scripts, and an
    // evaluation from DevTools is not the page's.
    let r = b.call(
        "Runtime.evaluate",
        json!({ "expression": axe, "returnByValue": true }),
    );
    assert!(r.get("exceptionDetails").is_none(), "axe-core: {r}");
    let found = b.eval(
        r#"(async () => {
            const rules = {};
            for (const r of axe.getRules()) {
                if (!r.tags.includes("wcag2aaa")) rules[r.ruleId] = { enabled: true };
            }
            const res = await axe.run(document, { rules, resultTypes: ["violations"] });
            return res.violations
                .filter(v => v.impact === "serious" || v.impact === "critical")
                .map(v => `${v.id} (${v.impact}): ${v.help}; ${v.nodes.length} element(s): `
                    + v.nodes.slice(0, 4).map(n => n.target.join(" ") + " " + n.failureSummary.replace(/\s+/g, " ")).join(" | "));
        })()"#,
    );
    found
        .as_array()
        .unwrap_or_else(|| panic!("axe-core gave no result: {found}"))
        .iter()
        .map(|v| v.as_str().unwrap_or_default().to_string())
        .collect()
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

/// A desktop screen and a phone's, as DevTools sets them.
fn screens() -> [(&'static str, Value); 2] {
    [
        (
            "desktop",
            json!({ "width": 1280, "height": 1400, "deviceScaleFactor": 1, "mobile": false }),
        ),
        (
            "phone",
            json!({ "width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": true }),
        ),
    ]
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
