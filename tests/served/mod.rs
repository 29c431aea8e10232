//! `starry serve` started by a test: the real binary on a free loopback
//! port, for one player's home, stopped when dropped; and a small HTTP/1.1
//! client that can send exactly the headers a test needs (a foreign
//! `Host`, another site's `Origin`, no cookie), which a browser or a
//! polished client library would not let it forge.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::players::Player;

pub struct Served {
    child: Child,
    pub port: u16,
    /// The one-time token of the address it printed.
    pub token: String,
    /// The address it printed.
    pub url: String,
    /// What it wrote to standard error.
    stderr: std::path::PathBuf,
    /// The home it serves, and the environment it was started with.
    home: std::path::PathBuf,
    env: Vec<(String, String)>,
    /// The session cookie of this test's client, once let in.
    session: std::sync::OnceLock<String>,
}

/// An answer.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Where a redirect goes.
    pub fn location(&self) -> &str {
        self.header("location")
            .unwrap_or_else(|| panic!("no redirect: {self:?}"))
    }
}

impl Served {
    /// `starry serve --port 0 EXTRA…` as `p`, in `p`'s home.
    pub fn start(p: &Player, extra: &[&str]) -> Served {
        Served::start_env(p, extra, &[])
    }

    /// The same, with more environment variables.
    pub fn start_env(p: &Player, extra: &[&str], env: &[(&str, &str)]) -> Served {
        let stderr = p.home.join("serve.stderr");
        let mut c = Command::new(env!("CARGO_BIN_EXE_starry"));
        for v in starry::mail::transport::ENV_VARS {
            c.env_remove(v);
        }
        c.env("STARRY_HOME", &p.home);
        for (k, v) in &p.env {
            c.env(k, v);
        }
        for (k, v) in env {
            c.env(k, v);
        }
        let mut child = c
            .args(["serve", "--port", "0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).unwrap())
            .spawn()
            .expect("starry serve starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| {
                let _ = child.kill();
                panic!(
                    "starry serve printed no address: {line:?}; stderr: {}",
                    std::fs::read_to_string(&stderr).unwrap_or_default()
                )
            })
            .to_string();
        let port = url
            .rsplit_once(':')
            .and_then(|(_, rest)| rest.split('/').next())
            .and_then(|p| p.parse().ok())
            .expect("a port in the address");
        let token = url.split("token=").nth(1).expect("a token").to_string();
        Served {
            child,
            port,
            token,
            url,
            stderr,
            home: p.home.clone(),
            env: p
                .env
                .iter()
                .cloned()
                .chain(env.iter().map(|(k, v)| (k.to_string(), v.to_string())))
                .collect(),
            session: std::sync::OnceLock::new(),
        }
    }

    /// `starry serve --link EXTRA… --port PORT` as the player who started
    /// it: its output.
    pub fn link_command(&self, extra: &[&str]) -> std::process::Output {
        let mut c = Command::new(env!("CARGO_BIN_EXE_starry"));
        for v in starry::mail::transport::ENV_VARS {
            c.env_remove(v);
        }
        c.env("STARRY_HOME", &self.home);
        for (k, v) in &self.env {
            c.env(k, v);
        }
        c.args(["serve", "--link", "--port", &self.port.to_string()])
            .args(extra)
            .output()
            .expect("starry serve --link runs")
    }

    /// A fresh one-time address from `starry serve --link`.
    pub fn fresh_link(&self) -> String {
        let out = self.link_command(&[]);
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            out.status.success(),
            "starry serve --link: {text} {}",
            String::from_utf8_lossy(&out.stderr)
        );
        text.split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no address from --link: {text}"))
            .to_string()
    }

    /// Lets a client in with the one-time `token`: its session cookie
    /// (`name=value`), or none when refused.
    pub fn let_in(&self, token: &str) -> Option<String> {
        let r = self.send(
            "GET",
            &format!("/?token={token}"),
            &[("Host", self.host())],
            "",
        );
        // 303: as the server answered before issue 31.
        if r.status != 200 && r.status != 303 {
            return None;
        }
        let c = r.header("set-cookie")?;
        Some(c.split(';').next()?.trim().to_string())
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    pub fn origin(&self) -> String {
        format!("http://{}", self.host())
    }

    /// The session cookie of this test's client: the printed address is
    /// used for it, or a fresh one from `--link` once a test used that.
    pub fn cookie(&self) -> String {
        self.session
            .get_or_init(|| {
                self.let_in(&self.token).unwrap_or_else(|| {
                    let url = self.fresh_link();
                    let token = url.split("token=").nth(1).expect("a token");
                    self.let_in(token).expect("a fresh address lets in")
                })
            })
            .clone()
    }

    /// A request as given (method, path, headers, body), on a fresh
    /// connection.
    pub fn send(&self, method: &str, path: &str, headers: &[(&str, String)], body: &str) -> Reply {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).expect("the server answers");
        s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
        let mut req = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        if method == "POST" {
            req.push_str("Content-Type: application/x-www-form-urlencoded\r\n");
            req.push_str(&format!("Content-Length: {}\r\n", body.len()));
        }
        req.push_str("\r\n");
        req.push_str(body);
        s.write_all(req.as_bytes()).unwrap();
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).unwrap();
        parse(&raw)
    }

    /// A GET from this server's own pages: its Host, its cookie.
    pub fn get(&self, path: &str) -> Reply {
        self.send(
            "GET",
            path,
            &[("Host", self.host()), ("Cookie", self.cookie())],
            "",
        )
    }

    /// A GET that must succeed; its page.
    pub fn page(&self, path: &str) -> String {
        let r = self.get(path);
        assert_eq!(r.status, 200, "GET {path}: {r:?}");
        r.body
    }

    /// A form posted from one of its pages: its Host, Origin and cookie.
    pub fn post(&self, path: &str, fields: &[(&str, &str)]) -> Reply {
        self.send(
            "POST",
            path,
            &[
                ("Host", self.host()),
                ("Cookie", self.cookie()),
                ("Origin", self.origin()),
            ],
            &form(fields),
        )
    }

    /// The CSRF token its forms carry.
    pub fn csrf(&self) -> String {
        let page = self.page("/new?game=starry-night");
        attr_after(&page, "name=\"csrf\" value=\"").expect("a CSRF field")
    }

    /// Posts a form and follows its redirect: the page after it.
    pub fn post_then(&self, path: &str, fields: &[(&str, &str)]) -> String {
        let r = self.post(path, fields);
        assert_eq!(r.status, 303, "POST {path} {fields:?}: {r:?}");
        self.page(r.location())
    }
}

impl Served {
    /// Ctrl-C: how it ended, and how long it took.
    pub fn interrupt(mut self) -> (std::process::ExitStatus, Duration) {
        let started = std::time::Instant::now();
        let out = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(out.success());
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return (status, started.elapsed());
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "still running after Ctrl-C"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn form(fields: &[(&str, &str)]) -> String {
    fields
        .iter()
        .map(|(k, v)| format!("{}={}", enc(k), enc(v)))
        .collect::<Vec<_>>()
        .join("&")
}

fn enc(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

fn parse(raw: &[u8]) -> Reply {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("not an HTTP answer: {}", String::from_utf8_lossy(raw)));
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .expect("a status");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    if headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"))
    {
        body = unchunk(&body);
    }
    Reply {
        status,
        headers,
        body: String::from_utf8_lossy(&body).to_string(),
    }
}

fn unchunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(i) = b.windows(2).position(|w| w == b"\r\n") {
        let size = usize::from_str_radix(String::from_utf8_lossy(&b[..i]).trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        out.extend_from_slice(&b[i + 2..i + 2 + size]);
        b = &b[i + 2 + size + 2..];
    }
    out
}

/// The value that follows `before` in `page`, up to the next quote.
pub fn attr_after(page: &str, before: &str) -> Option<String> {
    let i = page.find(before)? + before.len();
    Some(page[i..].split('"').next()?.replace("&amp;", "&"))
}

/// Every value that follows `before` in `page`.
pub fn attrs_after(page: &str, before: &str) -> Vec<String> {
    page.match_indices(before)
        .filter_map(|(i, _)| {
            Some(
                page[i + before.len()..]
                    .split('"')
                    .next()?
                    .replace("&amp;", "&"),
            )
        })
        .collect()
}

/// The board of a page: its SVG as the view draws it, without the links
/// of the next click.
pub fn board_svg(page: &str) -> String {
    let start = page.find("<svg").expect("a board");
    let end = page[start..].find("</svg>").expect("the board's end") + start + 6;
    unlink(&page[start..end])
}

/// An SVG without `starry serve`'s links and marks: the picture `view`
/// draws.
pub fn unlink(svg: &str) -> String {
    let mut out = String::new();
    let mut rest = svg;
    while let Some(i) = rest.find("<a href=") {
        out.push_str(&rest[..i]);
        let close = rest[i..].find('>').unwrap() + i + 1;
        rest = &rest[close..];
        // The link's own title: the choice it makes.
        if rest.starts_with("<title>") {
            rest = &rest[rest.find("</title>").unwrap() + "</title>".len()..];
        }
    }
    out.push_str(rest);
    // A picture with links is a group of them; `view`'s is an image.
    out.replacen(" role=\"group\">", " role=\"img\">", 1)
        .replace("</g></a>", "</g>")
        .replace(" choice\">", "\">")
        .replace(" picked\">", "\">")
}

/// The log's entries count, as `starry view --format json` says.
pub fn entries_of(p: &Player, log: &Path) -> u64 {
    p.json(&["status", log.to_str().unwrap(), "--json"])["entries"]
        .as_u64()
        .unwrap()
}

/// A `BROWSER` for `starry serve --open`: a script that writes its
/// arguments, one a line, to the returned file, and starts nothing.
pub fn recording_browser(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let script = dir.join("record-browser");
    let argv = dir.join("browser-argv");
    std::fs::write(
        &script,
        format!("#!/bin/sh\nprintf '%s\\n' \"$@\" >> '{}'\n", argv.display()),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    (script, argv)
}

/// What the recording browser was given, once it was started.
pub fn recorded_argv(argv: &Path) -> Vec<String> {
    let start = std::time::Instant::now();
    loop {
        if let Ok(t) = std::fs::read_to_string(argv)
            && t.ends_with('\n')
        {
            return t.lines().map(str::to_string).collect();
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the browser was never started"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The file a `file://` address (or a plain path) names.
pub fn file_of(arg: &str) -> std::path::PathBuf {
    let path = arg.strip_prefix("file://").unwrap_or(arg);
    let mut out = Vec::new();
    let b = path.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let Ok(v) = u8::from_str_radix(&path[i + 1..i + 3], 16)
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    std::path::PathBuf::from(String::from_utf8(out).unwrap())
}
