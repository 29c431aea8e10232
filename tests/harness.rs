//! The harness of the web player's browser tests, proved on its own: the
//! static file server (types, what it refuses, its log, and that it
//! stops); the `mailto:` reader and the mail it makes (tricky text both
//! ways, and `starry ingest` reading it); and the DevTools browser's
//! network log (requests of a page and of its service worker, and one the
//! page's policy blocked), attributes, typed and chosen input, a phone's
//! screen, timing marks, and a page that works with its server stopped
//! and the network off.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;

use crate::devtools::*;
use crate::mailto::*;
use crate::players::*;
use crate::static_server::StaticServer;
use crate::web_player::*;

/// One request to a loopback port: status, headers (lower-case names)
/// and body.
fn fetch(port: u16, method: &str, target: &str) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(s, "{method} {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let end = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8(raw[..end].to_vec()).unwrap();
    let mut lines = head.lines();
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(": "))
        .map(|(k, v)| (k.to_ascii_lowercase(), v.to_string()))
        .collect();
    (status, headers, raw[end + 4..].to_vec())
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

#[test]
fn the_static_server_serves_each_file_with_its_type_and_stops() {
    let dir = tempfile::tempdir().unwrap();
    let files: [(&str, &[u8], &str); 6] = [
        (
            "index.html",
            b"<!doctype html><title>home</title>",
            "text/html; charset=utf-8",
        ),
        ("sw.js", b"self.x = 1;", "text/javascript; charset=utf-8"),
        (
            "manifest.webmanifest",
            b"{\"name\":\"x\"}",
            "application/manifest+json",
        ),
        (
            "icon.svg",
            b"<svg xmlns='http://www.w3.org/2000/svg'/>",
            "image/svg+xml",
        ),
        ("core.wasm", b"\0asm\x01\0\0\0", "application/wasm"),
        ("a b/ü.html", b"<p>sub</p>", "text/html; charset=utf-8"),
    ];
    for (name, body, _) in files {
        let f = dir.path().join(name);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(f, body).unwrap();
    }
    let mut s = StaticServer::start(dir.path());
    assert!(s.url().starts_with("http://127.0.0.1:"));
    for (name, body, kind) in files {
        let target = format!("/{}", percent_encode(name).replace("%2F", "/"));
        let (status, headers, got) = fetch(s.port, "GET", &format!("{target}?v=1"));
        assert_eq!(status, 200, "{target}");
        assert_eq!(header(&headers, "content-type"), Some(kind), "{target}");
        assert_eq!(got, body, "{target}");
    }
    // A folder is its index; HEAD answers without a body.
    let (status, headers, got) = fetch(s.port, "HEAD", "/");
    assert_eq!((status, got.len()), (200, 0));
    assert_eq!(header(&headers, "content-length"), Some("34"));
    // Nothing outside the folder, nothing missing, nothing but GET.
    std::fs::write(dir.path().parent().unwrap().join("outside.txt"), b"no").ok();
    for target in [
        "/../outside.txt",
        "/%2e%2e/outside.txt",
        "/nothing.js",
        "/%ff",
    ] {
        assert_eq!(fetch(s.port, "GET", target).0, 404, "{target}");
    }
    assert_eq!(fetch(s.port, "POST", "/index.html").0, 405);
    let log = s.requested();
    assert_eq!(log.len(), 12, "{log:#?}");
    assert_eq!(log[0], "GET /index.html?v=1 200");
    assert_eq!(log[11], "POST /index.html 405");

    s.stop();
    assert!(!s.running());
    assert!(
        TcpStream::connect(("127.0.0.1", s.port)).is_err(),
        "the port still takes connections"
    );
    assert_eq!(s.requested().len(), 12);
}

#[test]
fn a_mailto_link_is_read_as_a_mail_program_reads_it() {
    // As a page's script writes one: `+` is a plus, `%20` a space, a line
    // break `%0D%0A`, a character of several bytes several escapes.
    let m = Mailto::parse(
        "MAILTO:anna@example.org,ben%40example.org?Subject=Starry%20Sky%20%E2%98%86%20a+b\
         &body=line%201%0D%0A%F0%9F%8C%9F%2B%25%26%3D%3F%23&cc=cleo@example.org&in-reply-to=%3Cx%40y%3E",
    )
    .unwrap();
    assert_eq!(m.to, ["anna@example.org", "ben@example.org"]);
    assert_eq!(m.cc, ["cleo@example.org"]);
    assert_eq!(m.subject, "Starry Sky ☆ a+b");
    assert_eq!(m.body, "line 1\r\n🌟+%&=?#");
    assert_eq!(m.other, [("in-reply-to".to_string(), "<x@y>".to_string())]);

    // Whatever the text, the link made of it reads back as it.
    let tricky = Mailto {
        to: vec![
            "anna+games@example.org".into(),
            "o'brien@example.org".into(),
        ],
        cc: vec!["cleo@example.org".into()],
        subject: "[starry] Starry Sky 1a2b3c4d — ☆ 100% & = ? # +".into(),
        body: "Anna,\r\n\r\nmy move: 3+4 = 7 ☆\r\nhttps://x.example/p/#log=ab-_cd\r\n\
               -----BEGIN STARRY LOG-----\r\nAAA=\r\n-----END STARRY LOG-----\r\n"
            .into(),
        other: vec![("references".into(), "<a@b> <c@d>".into())],
    };
    let href = tricky.href();
    assert!(
        href.is_ascii() && !href.contains('#') && !href.contains(' '),
        "{href}"
    );
    assert_eq!(Mailto::parse(&href).unwrap(), tricky);

    // What a page must not write: each refused, saying what.
    for (bad, says) in [
        ("https://example.org/", "not a mailto"),
        ("mailto:a@b.example?subject=%E2%98", "not UTF-8"),
        ("mailto:a@b.example?subject=%G0", "bad percent-escape"),
        ("mailto:a@b.example?body=50%", "bad percent-escape"),
        ("mailto:a@b.example?body=x#log=abc", "raw '#'"),
        ("mailto:a@b.example?subject=two words", "raw ' '"),
        ("mailto:a@b.example?subject=☆", "raw '☆'"),
        ("mailto:a@b.example?subject=a&subject=b", "two `subject`"),
        ("mailto:?subject=x", "to nobody"),
        ("mailto:anna?subject=x", "not a mail address"),
        (
            "mailto:a@b.example,%3Cevil%3E%0D%0ABcc%3Ae@x?body=x",
            "not a mail address",
        ),
    ] {
        let e = Mailto::parse(bad).expect_err(bad);
        assert!(e.contains(says), "{bad}: {e}");
    }
}

#[test]
fn the_mail_of_a_mailto_link_is_a_mail_as_sent() {
    let long = "x".repeat(1500);
    let m = Mailto {
        to: vec!["anna@example.org".into(), "ben@example.org".into()],
        subject: "Starry Sky ☆ ".repeat(8) + "\r\nBcc: eve@example.org",
        body: format!("Anna,\r\nmy move ☆ = 3\r\n{long}\r\nend \r\n"),
        ..Mailto::default()
    };
    let eml = m.mail_file("Cléo \"C\" Dupont", "cleo@example.org", &now());
    let text = String::from_utf8(eml.clone()).unwrap();
    // RFC 5322: CRLF only, no line over 78 characters here (998 at most).
    assert!(!text.replace("\r\n", "").contains(['\r', '\n']), "{text}");
    assert!(text.split("\r\n").all(|l| l.len() <= 78), "{text}");
    assert!(
        !text.contains("\r\nBcc:"),
        "a header from the subject: {text}"
    );
    let parsed = mail_parser::MessageParser::default().parse(&eml).unwrap();
    let from = parsed.from().unwrap().first().unwrap();
    assert_eq!(from.name(), Some("Cléo \"C\" Dupont"));
    assert_eq!(from.address(), Some("cleo@example.org"));
    let to: Vec<&str> = parsed
        .to()
        .unwrap()
        .iter()
        .filter_map(|a| a.address())
        .collect();
    assert_eq!(to, ["anna@example.org", "ben@example.org"]);
    assert_eq!(
        parsed.subject(),
        Some(("Starry Sky ☆ ".repeat(8) + "  Bcc: eve@example.org").as_str())
    );
    assert!(parsed.date().is_some());
    assert_eq!(
        parsed.body_text(0).unwrap().replace("\r\n", "\n"),
        m.body.replace("\r\n", "\n")
    );
    // Short ASCII stays as it is.
    let plain = Mailto {
        to: vec!["anna@example.org".into()],
        subject: "[starry] Star Map 1a2b3c4d".into(),
        body: "one\r\ntwo".into(),
        ..Mailto::default()
    }
    .mail_file("Ben", "ben@example.org", "Fri, 27 Nov 2026 22:00:00 +0000");
    assert_eq!(
        String::from_utf8(plain).unwrap(),
        "From: Ben <ben@example.org>\r\nTo: anna@example.org\r\n\
         Subject: [starry] Star Map 1a2b3c4d\r\nDate: Fri, 27 Nov 2026 22:00:00 +0000\r\n\
         MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\
         Content-Transfer-Encoding: 7bit\r\n\r\none\r\ntwo"
    );
}

/// A mail program's mail of a `mailto:` link carrying an armored block
/// (all of a new game, then only the entry the other lacks) is taken by
/// `starry ingest` as it is.
#[test]
fn starry_ingest_takes_the_mail_of_a_mailto_link() {
    let ps = Players::new(2);
    let (anna, ben) = (&ps.p[0], &ps.p[1]);
    let (id, log) = crate::serve::ben_invites_anna(ben, anna, "14d");
    let bens = ben.copy_of(&id);
    std::fs::remove_file(&log).unwrap();
    let sent = |from: &Player, to: &Player, entries: &[u8], name: &str| {
        let link = Mailto {
            to: vec![to.email.clone()],
            subject: game_subject("starry-night", &id),
            body: starry::mail::body_with_armor("Your turn ☆ (a+b)", entries).replace('\n', "\r\n"),
            ..Mailto::default()
        }
        .href();
        let eml = Mailto::parse(&link)
            .unwrap()
            .mail_file(&from.name, &from.email, &now());
        let f = ps.dir.path().join(name);
        std::fs::write(&f, eml).unwrap();
        f
    };
    let whole = std::fs::read(&bens).unwrap();
    let f = sent(ben, anna, &whole, "invitation.eml");
    let v = anna.json(&["ingest", f.to_str().unwrap(), "--json"]);
    assert_eq!(v["outcome"], "created", "{v}");
    assert_eq!(std::fs::read(anna.copy_of(&id)).unwrap(), whole);

    let out = anna.run(&["join", anna.copy_of(&id).to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let annas = std::fs::read(anna.copy_of(&id)).unwrap();
    let new = entries_from(&annas, entries_in(&whole));
    assert_eq!(entries_in(&new), 1);
    let f = sent(anna, ben, &new, "join.eml");
    let v = ben.json(&["ingest", f.to_str().unwrap(), "--json"]);
    assert_eq!(std::fs::read(&bens).unwrap(), annas, "{v}");
}

/// A page like the player's (its own script under a strict policy, a
/// service worker that keeps its files, a "Mail it" link, a text box and
/// a file input, a timing mark), and one request the policy blocks.
fn write_test_page(dir: &Path) {
    let files = [
        (
            "index.html",
            r##"<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; img-src 'self'">
<title>harness page</title><link rel="manifest" href="manifest.webmanifest"></head>
<body><main><h1>Harness</h1>
<img alt="" src="http://127.0.0.2:9/away.png">
<a id="mail-it" href="#">Mail it</a>
<textarea id="receive-text" aria-label="paste"></textarea><p id="typed"></p>
<input id="receive-file" type="file" aria-label="file"><p id="chosen"></p>
<button id="copy" type="button">Copy</button><p id="copied"></p>
<a id="download" download="game.jsonl" href="game.jsonl">Download</a>
<p id="wide"></p></main><script src="app.js"></script></body></html>"##,
        ),
        (
            "app.js",
            r#"performance.mark("a");
const m = document.getElementById("mail-it");
m.href = "mailto:" + encodeURIComponent("anna@example.org") + "?subject="
  + encodeURIComponent("[starry] Starry Sky ☆ 1+1") + "&body="
  + encodeURIComponent("Anna,\r\nhttps://p.example/#log=AB-_c\r\n100% ☆");
document.getElementById("receive-text").addEventListener("input", e => {
  document.getElementById("typed").textContent = "typed: " + e.target.value;
});
document.getElementById("receive-file").addEventListener("change", async e => {
  document.getElementById("chosen").textContent = "chosen: " + await e.target.files[0].text();
});
document.getElementById("copy").addEventListener("click", () => {
  navigator.clipboard.writeText("copied ☆\n-----BEGIN STARRY LOG-----").then(
    () => { document.getElementById("copied").textContent = "ok"; },
    e => { document.getElementById("copied").textContent = "refused: " + e; });
});
const d = document.getElementById("download");
d.href = URL.createObjectURL(new Blob(["{\"a\": 1}\n"], { type: "application/jsonl" }));
document.getElementById("wide").textContent = "width " + window.innerWidth;
if (location.protocol !== "file:") navigator.serviceWorker.register("sw.js");
performance.measure("open", "a");
"#,
        ),
        (
            "sw.js",
            r#"const FILES = ["./", "index.html", "app.js", "manifest.webmanifest"];
self.addEventListener("install", e => {
  e.waitUntil(caches.open("v1").then(c => c.addAll(FILES)).then(() => self.skipWaiting()));
});
self.addEventListener("activate", e => e.waitUntil(self.clients.claim()));
self.addEventListener("fetch", e => {
  e.respondWith(caches.match(e.request, { ignoreSearch: true }).then(r => r || fetch(e.request)));
});
"#,
        ),
        (
            "manifest.webmanifest",
            r#"{"name": "harness", "start_url": "./", "display": "standalone"}"#,
        ),
    ];
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
}

#[test]
fn the_browser_logs_every_request_reads_and_fills_the_page_and_goes_offline() {
    let Some(chromium) = crate::browser::browser_or_skip() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    write_test_page(dir.path());
    let mut s = StaticServer::start(dir.path());
    let origin = s.url();
    let mut b = Browser::start(&chromium);
    b.goto(&origin);
    b.wait_for(
        "navigator.serviceWorker.controller !== null",
        "the service worker controls the page",
    );

    // The network log: the page's own files (from the page and from its
    // service worker), and the one request elsewhere, blocked by policy.
    let elsewhere = b.requests_elsewhere(&[&origin]);
    assert_eq!(elsewhere.len(), 1, "{elsewhere:#?}");
    assert_eq!(elsewhere[0].url, "http://127.0.0.2:9/away.png");
    assert_eq!(
        elsewhere[0].blocked.as_deref(),
        Some("csp"),
        "{elsewhere:#?}"
    );
    let page: Vec<&str> = b
        .requests
        .iter()
        .filter(|r| r.session == b.session)
        .map(|r| r.url.as_str())
        .collect();
    for f in ["", "app.js"] {
        assert!(
            page.contains(&format!("{origin}{f}").as_str()),
            "{f}: {page:#?}"
        );
    }
    assert!(!b.workers.is_empty(), "no worker attached");
    let cached: Vec<&Request> = b
        .requests
        .iter()
        .filter(|r| b.workers.contains(&r.session))
        .collect();
    assert!(
        cached
            .iter()
            .any(|r| r.url == format!("{origin}app.js") && r.status == Some(200)),
        "the service worker's requests are not in the log: {cached:#?}"
    );
    assert!(s.requested().iter().any(|r| r.starts_with("GET /sw.js ")));

    // Its "Mail it" link, read back as the script wrote it.
    let href = b.attr("#mail-it", "href").unwrap();
    let m = Mailto::parse(&href).unwrap();
    assert_eq!(m.to, ["anna@example.org"]);
    assert_eq!(m.subject, "[starry] Starry Sky ☆ 1+1");
    assert_eq!(m.body, "Anna,\r\nhttps://p.example/#log=AB-_c\r\n100% ☆");
    assert_eq!(b.attr("#mail-it", "data-none"), None);
    assert_eq!(b.attr("#nothing", "href"), None);

    // Typed and chosen input, as the page's own listeners see it.
    b.set_value("#receive-text", "-----BEGIN STARRY LOG-----\n☆");
    b.wait_for(
        "document.getElementById('typed').textContent === 'typed: -----BEGIN STARRY LOG-----\\n☆'",
        "the typed text",
    );
    let file = dir.path().join("game.jsonl");
    std::fs::write(&file, "{\"a\": 1}\n").unwrap();
    b.choose_files("#receive-file", &[&file]);
    b.wait_for(
        "document.getElementById('chosen').textContent === 'chosen: {\"a\": 1}\\n'",
        "the chosen file",
    );
    // Copied, and downloaded.
    b.allow_clipboard();
    b.press("#copy");
    b.wait_for(
        "document.getElementById('copied').textContent !== ''",
        "the copy",
    );
    assert_eq!(b.text("#copied").as_deref(), Some("ok"));
    assert_eq!(b.clipboard(), "copied ☆\n-----BEGIN STARRY LOG-----");
    let saved = tempfile::tempdir().unwrap();
    b.download_into(saved.path());
    b.press("#download");
    assert_eq!(b.downloaded(saved.path(), "game.jsonl"), b"{\"a\": 1}\n");

    let measures = b.measures();
    assert_eq!(measures.len(), 1, "{measures:?}");
    assert_eq!(measures[0].0, "open");
    assert!(measures[0].1 >= 0.0, "{measures:?}");

    // A link to the page shown but for its fragment: no load, a
    // `hashchange`.
    b.eval("window.hashes = 0; addEventListener('hashchange', () => window.hashes++); 1");
    let loads = b.loaded();
    b.goto(&format!("{origin}#log=AB-_c"));
    b.wait_for("window.hashes === 1", "the hashchange");
    assert_eq!(b.eval("location.hash"), "#log=AB-_c");
    assert_eq!(b.loaded(), loads, "the page was loaded again");

    // A phone's screen.
    b.screen(phone());
    b.reload();
    assert_eq!(b.text("#wide").as_deref(), Some("width 390"));

    // The network off, for the page and its service worker alike: what
    // the worker has not kept cannot be fetched; on again, it can.
    let fetch_new = "fetch('not-kept.txt').then(r => 'got ' + r.status, () => 'failed')";
    assert_eq!(unexpected(&b.console), Vec::<String>::new());
    b.set_offline(true);
    assert_eq!(b.eval(fetch_new), "failed");
    assert!(!s.requested().iter().any(|r| r.contains("not-kept")));
    b.set_offline(false);
    assert_eq!(b.eval(fetch_new), "got 404");
    assert!(s.requested().iter().any(|r| r == "GET /not-kept.txt 404"));
    // The worker's console is the page's: its failed fetch is there.
    assert!(
        b.console
            .iter()
            .any(|c| c.contains("exception") && c.contains("sw.js")),
        "{:#?}",
        b.console
    );
    b.console.clear();

    // The server stopped, then the network off: the page still opens,
    // from its service worker's cache; the server saw nothing more.
    s.stop();
    let asked = s.requested().len();
    b.reload();
    assert_eq!(b.eval("document.title"), "harness page");
    b.set_offline(true);
    b.reload();
    assert_eq!(b.eval("document.title"), "harness page");
    assert_eq!(b.text("#wide").as_deref(), Some("width 390"));
    assert_eq!(s.requested().len(), asked);
    b.set_offline(false);
    // A page from disk: its requests are files.
    b.goto(&format!(
        "file://{}",
        dir.path().join("index.html").display()
    ));
    let from_disk = b.requests_elsewhere(&[&origin, "file://", "http://127.0.0.2:9/"]);
    assert_eq!(from_disk, [], "{from_disk:#?}");
    assert_eq!(unexpected(&b.console), Vec::<String>::new());

    // What is too small to touch, and what is exempt.
    b.goto(
        "data:text/html;charset=utf-8,<!doctype html><meta name=viewport content='width=device-width'>\
         <button id=big style='width:30px;height:30px'>b</button>\
         <button id=tiny style='width:10px;height:10px;padding:0'>t</button>\
         <input id=narrow style='box-sizing:border-box;width:20px;height:30px'>\
         <p>Read <a id=inline href='%23x'>the rules</a> first.</p>\
         <a id=alone href='%23y' style='font-size:10px'>y</a>\
         <button id=gone style='display:none'>g</button>\
         <svg width=100 height=100><a id=in-svg href='%23z'><rect width=5 height=5 /></a></svg>",
    );
    let small = b.small_targets(24.0);
    let ids: Vec<&str> = small.iter().map(|t| t.split(' ').next().unwrap()).collect();
    assert_eq!(
        ids,
        ["button#tiny", "input#narrow", "a#alone"],
        "{small:#?}"
    );
    assert!(small[0].ends_with("10.0×10.0 px"), "{small:#?}");
    assert!(b.page_text().starts_with("data:text/html"));
    assert!(b.page_text().contains("Read the rules first."));
}

/// The console messages but those of the request the test page's policy
/// blocks (on purpose).
fn unexpected(console: &[String]) -> Vec<String> {
    console
        .iter()
        .filter(|c| !c.contains("away.png") && !c.contains("Content Security Policy"))
        .cloned()
        .collect()
}

/// The fixture's build, with a stand-in for crates/web/build.sh: builds
/// running at once take turns, each leaves the whole folder and nothing
/// half-built beside it; a failed build says why and leaves the last one.
#[test]
fn the_player_build_takes_turns_and_a_failure_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("build.sh");
    let started = dir.path().join("started");
    std::fs::write(
        &script,
        format!(
            "set -eu\n\
             if [ -e {started} ]; then echo 'two builds at once' >&2; exit 1; fi\n\
             touch {started}\n\
             mkdir -p \"$1\"\n\
             for f in index.html sw.js manifest.webmanifest icon.svg; do echo \"$f\" > \"$1/$f\"; done\n\
             sleep 0.2\n\
             rm {started}\n",
            started = started.display()
        ),
    )
    .unwrap();
    let out = dir.path().join("target/web-player-tests");
    let builds: Vec<_> = (0..3)
        .map(|_| {
            let (script, root, out) = (script.clone(), dir.path().to_path_buf(), out.clone());
            std::thread::spawn(move || build_with(&script, &root, &out))
        })
        .collect();
    for b in builds {
        assert_eq!(b.join().expect("a build failed"), out);
    }
    check_player(&out);
    assert_eq!(
        std::fs::read_to_string(out.join("sw.js")).unwrap(),
        "sw.js\n"
    );
    assert!(!out.with_extension("new").exists());

    std::fs::write(&script, "echo 'no wasm32 target' >&2; exit 3\n").unwrap();
    let failed = std::panic::catch_unwind(|| build_with(&script, dir.path(), &out));
    let said = *failed
        .expect_err("a failed build")
        .downcast::<String>()
        .unwrap();
    assert!(
        said.contains("no wasm32 target") && said.contains("build.sh failed"),
        "{said}"
    );
    check_player(&out);
    let missing =
        std::panic::catch_unwind(|| build_with(&dir.path().join("none.sh"), dir.path(), &out));
    let said = *missing
        .expect_err("no script")
        .downcast::<String>()
        .unwrap();
    assert!(said.contains("STARRY_WEB_DIR"), "{said}");
}

/// The built player: its files, each served with its type.
#[test]
fn the_built_player_is_served_with_its_types() {
    let dir = web_player();
    let s = StaticServer::start(&dir);
    for f in PLAYER_FILES {
        let (status, headers, body) = fetch(s.port, "GET", &format!("/{f}"));
        assert_eq!(status, 200, "{f}");
        assert_eq!(
            header(&headers, "content-type"),
            Some(crate::static_server::content_type(Path::new(f)))
        );
        assert_eq!(body, std::fs::read(dir.join(f)).unwrap(), "{f}");
    }
    // Built once per run: asked again, the same folder.
    assert_eq!(web_player(), dir);
}
