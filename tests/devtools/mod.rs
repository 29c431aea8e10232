//! A headless Chromium driven through the DevTools protocol (over its
//! WebSocket), for the tests that need a real browser: page loads, real
//! clicks and keys, form input and chosen files, a phone's screen, going
//! offline, the page's own timing marks, every request the page and its
//! workers make (those the browser blocked too), and axe-core's
//! accessibility check.
//!
//! Needs Chromium, found as tests/browser.rs finds it, and for the
//! accessibility check axe-core (`sh tests/support/axe/install.sh`;
//! STARRY_SKIP_AXE_TESTS=1 skips those tests knowingly).
#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

/// How long a page may take to do what a test waits for: generous, the
/// machine is shared (a freeze never gets there at all).
pub const PATIENCE: Duration = Duration::from_secs(120);

/// One request the browser made (or refused to make), as its network log
/// saw it.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// The DevTools session (tab or worker) it was made in.
    pub session: String,
    pub url: String,
    pub method: String,
    /// The answer's status, once one came (a cached or a service worker's
    /// answer too).
    pub status: Option<u16>,
    /// Why the browser did not make it (`csp`, `mixed-content`, …), if it
    /// blocked it.
    pub blocked: Option<String>,
    /// Why it failed (`net::ERR_CONNECTION_REFUSED`,
    /// `net::ERR_INTERNET_DISCONNECTED`, …), if it did.
    pub failed: Option<String>,
}

/// A headless Chromium and one page in it.
pub struct Browser {
    child: Child,
    ws: WebSocket<MaybeTlsStream<TcpStream>>,
    /// The tab the page methods act on (switch it to act on another tab).
    pub session: String,
    next: u64,
    /// Page loads seen so far, by session (tab).
    loads: HashMap<String, usize>,
    /// Every console message, exception and browser log entry.
    pub console: Vec<String>,
    /// Every request of every tab and worker, in the order they began.
    pub requests: Vec<Request>,
    /// Where each request is in `requests`, by session and request id.
    request_at: HashMap<(String, String), usize>,
    /// The workers (service workers included) attached so far.
    pub workers: Vec<String>,
    /// Whether the network is switched off (for workers yet to come too).
    offline: bool,
    _profile: tempfile::TempDir,
}

/// A desktop screen, as DevTools sets one.
pub fn desktop() -> Value {
    json!({ "width": 1280, "height": 1400, "deviceScaleFactor": 1, "mobile": false })
}

/// A phone's screen (a common one's CSS pixels), as DevTools sets one.
pub fn phone() -> Value {
    json!({ "width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": true })
}

/// A desktop screen and a phone's.
pub fn screens() -> [(&'static str, Value); 2] {
    [("desktop", desktop()), ("phone", phone())]
}

impl Browser {
    pub fn start(chromium: &Path) -> Browser {
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
            requests: Vec::new(),
            request_at: Default::default(),
            workers: Vec::new(),
            offline: false,
            _profile: profile,
        };
        // Workers (a service worker above all) make requests of their own:
        // each is attached as it starts, paused until its network log is
        // on, so that not even its first request goes unseen. Tabs are
        // attached by `open_tab`.
        b.send(
            None,
            "Target.setAutoAttach",
            json!({
                "autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true,
                "filter": [
                    { "type": "service_worker" }, { "type": "shared_worker" },
                    { "type": "worker" }, { "exclude": true }
                ]
            }),
        );
        b.session = b.open_tab("about:blank");
        b
    }

    pub fn send(&mut self, session: Option<String>, method: &str, params: Value) -> Value {
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

    /// Sends without waiting for the answer (which `send_once` then skips).
    fn post(&mut self, session: &str, method: &str, params: Value) {
        self.next += 1;
        let msg =
            json!({ "id": self.next, "method": method, "params": params, "sessionId": session });
        self.ws.send(Message::Text(msg.to_string().into())).unwrap();
    }

    pub fn send_once(
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

    /// A method of this tab.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        self.send(Some(self.session.clone()), method, params)
    }

    /// The next message, noting the events on the way.
    fn read(&mut self) -> Value {
        let m = match self.ws.read().expect("DevTools answers") {
            Message::Text(t) => serde_json::from_str::<Value>(t.as_str()).unwrap(),
            _ => return Value::Null,
        };
        let p = &m["params"];
        let session = m["sessionId"].as_str().unwrap_or("").to_string();
        match m["method"].as_str().unwrap_or("") {
            "Page.loadEventFired" => *self.loads.entry(session).or_default() += 1,
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
            "Target.attachedToTarget" => self.worker_attached(p),
            "Network.requestWillBeSent" => self.request_began(session, p),
            "Network.responseReceived" => {
                if let Some(r) = self.request_mut(session, p) {
                    r.status = p["response"]["status"].as_u64().map(|s| s as u16);
                }
            }
            "Network.loadingFailed" => {
                if let Some(r) = self.request_mut(session, p) {
                    r.blocked = p["blockedReason"].as_str().map(String::from);
                    r.failed = p["errorText"].as_str().map(String::from);
                }
            }
            _ => {}
        }
        m
    }

    /// A worker attached by the auto-attach of `start`: its network log
    /// on (offline too if the page is), then let run.
    fn worker_attached(&mut self, p: &Value) {
        // A tab attached by `open_tab` is announced too: not a worker.
        let kind = p["targetInfo"]["type"].as_str().unwrap_or("");
        let Some(session) = p["sessionId"].as_str().map(String::from) else {
            return;
        };
        if !["service_worker", "shared_worker", "worker"].contains(&kind) {
            return;
        }
        self.workers.push(session.clone());
        // Its console and exceptions too: a worker's error is the page's.
        for domain in ["Network.enable", "Runtime.enable", "Log.enable"] {
            self.post(&session, domain, json!({}));
        }
        if self.offline {
            self.post(
                &session,
                "Network.emulateNetworkConditions",
                offline_conditions(true),
            );
        }
        self.post(&session, "Runtime.runIfWaitingForDebugger", json!({}));
    }

    fn request_began(&mut self, session: String, p: &Value) {
        let id = p["requestId"].as_str().unwrap_or("").to_string();
        let request = Request {
            session: session.clone(),
            url: p["request"]["url"].as_str().unwrap_or("").to_string(),
            method: p["request"]["method"].as_str().unwrap_or("").to_string(),
            status: None,
            blocked: None,
            failed: None,
        };
        // A redirect goes on under the same id: a request of its own.
        self.request_at.insert((session, id), self.requests.len());
        self.requests.push(request);
    }

    fn request_mut(&mut self, session: String, p: &Value) -> Option<&mut Request> {
        let id = p["requestId"].as_str().unwrap_or("").to_string();
        let at = *self.request_at.get(&(session, id))?;
        self.requests.get_mut(at)
    }

    /// Page loads seen so far in this tab.
    pub fn loaded(&self) -> usize {
        self.loads.get(&self.session).copied().unwrap_or(0)
    }

    /// A new tab showing `url` (its load not waited for); this tab's
    /// session. Its page events, console and network log are on.
    pub fn open_tab(&mut self, url: &str) -> String {
        let target = self.send(None, "Target.createTarget", json!({ "url": url }));
        let attached = self.send(
            None,
            "Target.attachToTarget",
            json!({ "targetId": target["targetId"], "flatten": true }),
        );
        let session = attached["sessionId"].as_str().unwrap().to_string();
        for domain in [
            "Page.enable",
            "Runtime.enable",
            "Log.enable",
            "Network.enable",
        ] {
            self.send(Some(session.clone()), domain, json!({}));
        }
        if self.offline {
            self.send(
                Some(session.clone()),
                "Network.emulateNetworkConditions",
                offline_conditions(true),
            );
        }
        session
    }

    pub fn wait_load(&mut self, before: usize) {
        let start = Instant::now();
        while self.loaded() <= before {
            assert!(start.elapsed() < PATIENCE, "no page loaded");
            self.read();
        }
        // The page's own script has run once `load` fired; a reload it
        // began at once (live refresh) is waited for too.
        while self.eval("document.readyState") != "complete" {
            assert!(start.elapsed() < PATIENCE, "the page never settled");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Goes to `url` and waits for its page. An address that differs from
    /// the page shown only in its fragment (a player link opened where the
    /// player is open) loads nothing: the page is told by `hashchange`.
    pub fn goto(&mut self, url: &str) {
        let before = self.loaded();
        let r = self.call("Page.navigate", json!({ "url": url }));
        if r.get("loaderId").is_none_or(Value::is_null) && r.get("errorText").is_none() {
            return;
        }
        self.wait_load(before);
    }

    /// Loads the page shown again (from the service worker, if one
    /// controls it).
    pub fn reload(&mut self) {
        let before = self.loaded();
        self.call("Page.reload", json!({}));
        self.wait_load(before);
    }

    /// Opens an address with a token (or `--open`'s file leading to one):
    /// a page that goes on by itself; waits for the page it goes on to.
    pub fn enter(&mut self, url: &str) {
        self.goto(url);
        let start = Instant::now();
        while self.eval(
            "location.protocol === 'file:' || location.search.includes('token=') \
             || document.readyState !== 'complete'",
        ) == true
        {
            assert!(start.elapsed() < PATIENCE, "the address never led on");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The value of a script expression (a promise's, once settled).
    pub fn eval(&mut self, expr: &str) -> Value {
        let r = self.call(
            "Runtime.evaluate",
            json!({ "expression": expr, "returnByValue": true, "awaitPromise": true }),
        );
        assert!(r.get("exceptionDetails").is_none(), "{expr}: {r}");
        r["result"]["value"].clone()
    }

    /// Waits until a script expression is true (a page that changes
    /// without a load: after a click it handles itself).
    pub fn wait_for(&mut self, expr: &str, what: &str) {
        let start = Instant::now();
        while self.eval(expr) != true {
            assert!(
                start.elapsed() < PATIENCE,
                "{what}: never happened ({expr}); the page says: {}",
                self.eval("document.body ? document.body.innerText : ''")
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn exists(&mut self, selector: &str) -> bool {
        self.eval(&format!(
            "document.querySelector({}) !== null",
            json!(selector)
        )) == true
    }

    /// The text of the first element `selector` finds.
    pub fn text(&mut self, selector: &str) -> Option<String> {
        let v = self.eval(&format!(
            "(document.querySelector({}) || {{}}).textContent",
            json!(selector)
        ));
        v.as_str().map(String::from)
    }

    /// An attribute of the first element `selector` finds (an `href` as
    /// written, e.g. a `mailto:`); `None` if no element or no attribute.
    pub fn attr(&mut self, selector: &str, name: &str) -> Option<String> {
        let v = self.eval(&format!(
            "(() => {{ const el = document.querySelector({}); \
             return el ? el.getAttribute({}) : null; }})()",
            json!(selector),
            json!(name)
        ));
        v.as_str().map(String::from)
    }

    /// Types into a text field or textarea: its value set, then the
    /// `input` and `change` events a person's typing gives.
    pub fn set_value(&mut self, selector: &str, text: &str) {
        let done = self.eval(&format!(
            r#"(() => {{
                const el = document.querySelector({sel});
                if (!el) return false;
                el.focus();
                // The prototype's setter, as typing does (a framework's
                // own setter on the element is passed by).
                const proto = Object.getPrototypeOf(el);
                Object.getOwnPropertyDescriptor(proto, "value").set.call(el, {text});
                el.dispatchEvent(new Event("input", {{ bubbles: true }}));
                el.dispatchEvent(new Event("change", {{ bubbles: true }}));
                return true;
            }})()"#,
            sel = json!(selector),
            text = json!(text)
        ));
        assert_eq!(done, true, "no field {selector} to type into");
    }

    /// Chooses files for an `<input type=file>`, as its dialog would
    /// (the page gets its `input` and `change` events).
    pub fn choose_files(&mut self, selector: &str, files: &[&Path]) {
        let doc = self.call("DOM.getDocument", json!({ "depth": 0 }));
        let node = self.call(
            "DOM.querySelector",
            json!({ "nodeId": doc["root"]["nodeId"], "selector": selector }),
        );
        assert_ne!(node["nodeId"], 0, "no file input {selector}");
        let files: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
        self.call(
            "DOM.setFileInputFiles",
            json!({ "files": files, "nodeId": node["nodeId"] }),
        );
    }

    /// This tab's screen: `desktop()`, `phone()` or any other metrics.
    pub fn screen(&mut self, metrics: Value) {
        self.call("Emulation.setDeviceMetricsOverride", metrics);
    }

    /// No network (true) or the network back (false), for this tab and
    /// every worker, those yet to start too: a page that still works is
    /// served from its own cache.
    pub fn set_offline(&mut self, offline: bool) {
        self.offline = offline;
        let sessions: Vec<String> = std::iter::once(self.session.clone())
            .chain(self.workers.iter().cloned())
            .collect();
        for s in sessions {
            // A worker that has ended answers no more: nothing to switch.
            let _ = self.send_once(
                Some(s),
                "Network.emulateNetworkConditions",
                offline_conditions(offline),
            );
        }
    }

    /// What a person can see of the page as shown: its address, its
    /// text and its markup (to look for what must never show, a secret).
    pub fn page_text(&mut self) -> String {
        let v = self.eval(
            "location.href + '\\n' + (document.body ? document.body.innerText : '') \
             + '\\n' + document.documentElement.outerHTML",
        );
        v.as_str().unwrap_or_default().to_string()
    }

    /// The targets of a finger or a pointer (links, buttons, fields,
    /// anything with a click role) shown smaller than `px` CSS pixels
    /// either way, each named by its tag, id, text and size. A link
    /// inside a sentence is exempt, as in WCAG 2.5.8, and so is what is
    /// not shown; a picture's (SVG's) links are not measured (axe-core
    /// does not either: a page lists them large beside it).
    pub fn small_targets(&mut self, px: f64) -> Vec<String> {
        let found = self.eval(&format!(
            r##"(() => {{
                const px = {px};
                const sel = "a[href], button, input:not([type=hidden]), select, textarea, summary, "
                    + "[role=button], [role=link], [role=checkbox], [role=tab], [tabindex]:not([tabindex='-1'])";
                const small = [];
                for (const el of document.querySelectorAll(sel)) {{
                    const r = el.getBoundingClientRect();
                    if (r.width === 0 && r.height === 0) continue;
                    const style = getComputedStyle(el);
                    if (style.visibility === "hidden" || style.display === "none") continue;
                    if (el.closest("svg")) continue;
                    const block = el.parentElement
                        && el.parentElement.closest("p, li, td, dd, dt, figcaption, blockquote, label");
                    const inSentence = style.display === "inline" && block
                        && block.textContent.trim().length > el.textContent.trim().length;
                    if (inSentence) continue;
                    if (r.width < px || r.height < px) {{
                        const name = (el.textContent || el.getAttribute("aria-label") || el.name || "").trim().slice(0, 40);
                        small.push(`${{el.localName}}${{el.id ? "#" + el.id : ""}} "${{name}}": ${{r.width.toFixed(1)}}×${{r.height.toFixed(1)}} px`);
                    }}
                }}
                return small;
            }})()"##
        ));
        found
            .as_array()
            .unwrap_or_else(|| panic!("no targets measured: {found}"))
            .iter()
            .map(|t| t.as_str().unwrap_or_default().to_string())
            .collect()
    }

    /// Lets pages write and read the clipboard, as a person's browser
    /// does after asking them (a "Copy" button's `writeText`), and keeps
    /// this tab focused, as the clipboard needs.
    pub fn allow_clipboard(&mut self) {
        self.send(
            None,
            "Browser.grantPermissions",
            json!({ "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"] }),
        );
        self.call(
            "Emulation.setFocusEmulationEnabled",
            json!({ "enabled": true }),
        );
    }

    /// The clipboard's text (after `allow_clipboard`).
    pub fn clipboard(&mut self) -> String {
        let v = self.eval("navigator.clipboard.readText()");
        v.as_str()
            .unwrap_or_else(|| panic!("no clipboard text: {v}"))
            .to_string()
    }

    /// Where the browser saves what a page downloads (under the name the
    /// page gives it); see [`Browser::downloaded`].
    pub fn download_into(&mut self, dir: &Path) {
        self.send(
            None,
            "Browser.setDownloadBehavior",
            json!({ "behavior": "allow", "downloadPath": dir.display().to_string() }),
        );
    }

    /// The bytes of the file `name` once the browser has saved it into
    /// `dir` whole (no partial `.crdownload` left).
    pub fn downloaded(&mut self, dir: &Path, name: &str) -> Vec<u8> {
        let start = Instant::now();
        loop {
            let partial = std::fs::read_dir(dir)
                .map(|d| {
                    d.flatten()
                        .any(|e| e.file_name().to_string_lossy().ends_with(".crdownload"))
                })
                .unwrap_or(false);
            if !partial && let Ok(bytes) = std::fs::read(dir.join(name)) {
                return bytes;
            }
            assert!(
                start.elapsed() < PATIENCE,
                "nothing downloaded as {name} into {}",
                dir.display()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The timing marks the page measured (`performance.measure`), in
    /// milliseconds, in the order it measured them.
    pub fn measures(&mut self) -> Vec<(String, f64)> {
        let v = self.eval("performance.getEntriesByType('measure').map(m => [m.name, m.duration])");
        v.as_array()
            .unwrap_or_else(|| panic!("no measures: {v}"))
            .iter()
            .map(|m| {
                (
                    m[0].as_str().unwrap_or_default().to_string(),
                    m[1].as_f64().unwrap_or(f64::NAN),
                )
            })
            .collect()
    }

    /// The requests seen so far whose address does not start with any of
    /// `allowed` (e.g. the player's own origin, or its `file://` folder):
    /// what left, or tried to leave, for elsewhere.
    pub fn requests_elsewhere(&mut self, allowed: &[&str]) -> Vec<Request> {
        // Events that came after the last answer are read first: a
        // round trip to the browser brings them in.
        self.send(None, "Browser.getVersion", json!({}));
        self.requests
            .iter()
            .filter(|r| !allowed.iter().any(|a| r.url.starts_with(a)))
            .cloned()
            .collect()
    }

    /// Mouse down and up at the element's place on the screen, as a
    /// person clicks (the element scrolled into view first).
    pub fn press(&mut self, selector: &str) {
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
        for kind in ["mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 }),
            );
        }
    }

    /// A real click, then the page it leads to.
    pub fn click(&mut self, selector: &str) {
        let before = self.loaded();
        self.press(selector);
        self.wait_load(before);
    }

    pub fn key(&mut self, key: &str) {
        let before = self.loaded();
        for kind in ["keyDown", "keyUp"] {
            self.call(
                "Input.dispatchKeyEvent",
                json!({ "type": kind, "key": key, "code": key, "windowsVirtualKeyCode": if key == "ArrowRight" { 39 } else { 37 } }),
            );
        }
        self.wait_load(before);
    }

    pub fn screenshot(&mut self) -> Vec<u8> {
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
    pub fn board_titles(&mut self) -> Vec<String> {
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

    /// The number of entries of the game shown, as its status says.
    pub fn entries(&mut self) -> u64 {
        self.eval("Number(document.getElementById('status').dataset.entries)")
            .as_u64()
            .unwrap()
    }

    /// Fails if anything was written to the console so far.
    pub fn quiet(&self, what: &str) {
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

fn offline_conditions(offline: bool) -> Value {
    json!({ "offline": offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1 })
}

/// axe-core's script (tests/support/axe/install.sh puts it in target/axe,
/// or STARRY_AXE_DIR), or a failure saying how to install it;
/// STARRY_SKIP_AXE_TESTS=1 turns that into a loud skip.
pub fn axe_or_skip() -> Option<String> {
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
pub fn axe_serious(b: &mut Browser, axe: &str) -> Vec<String> {
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
