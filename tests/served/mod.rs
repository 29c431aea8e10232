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
    pub token: String,
    /// The address it printed.
    pub url: String,
    /// What it wrote to standard error.
    stderr: std::path::PathBuf,
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
        let stderr = p.home.join("serve.stderr");
        let mut c = Command::new(env!("CARGO_BIN_EXE_starry"));
        for v in starry::mail::transport::ENV_VARS {
            c.env_remove(v);
        }
        c.env("STARRY_HOME", &p.home);
        for (k, v) in &p.env {
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
        }
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

    pub fn cookie(&self) -> String {
        format!("starry_{}={}", self.port, self.token)
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
    }
    out.push_str(rest);
    out.replace("</g></a>", "</g>")
        .replace(" choice\">", "\">")
        .replace(" picked\">", "\">")
}

/// The log's entries count, as `starry view --format json` says.
pub fn entries_of(p: &Player, log: &Path) -> u64 {
    p.json(&["view", log.to_str().unwrap(), "--json"])["at"]
        .as_u64()
        .unwrap()
}
