//! A static file server for the browser tests, as any static host serves
//! the web player: one folder, on a free loopback port, GET and HEAD only,
//! each file with its Content-Type. Started by the test and stopped by it
//! (`stop` closes the port, so that a page that still works works from
//! its own cache), with a log of every request it answered.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// A request line and headers larger than this are refused: a test's
/// browser sends a few hundred bytes.
const MAX_HEAD: u64 = 64 * 1024;

pub struct StaticServer {
    pub port: u16,
    root: PathBuf,
    stopping: Arc<AtomicBool>,
    log: Arc<Mutex<Vec<String>>>,
    accept: Option<JoinHandle<()>>,
}

impl StaticServer {
    /// Serves `root` on 127.0.0.1, on a port of the system's choosing.
    pub fn start(root: &Path) -> StaticServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let port = listener.local_addr().unwrap().port();
        let stopping = Arc::new(AtomicBool::new(false));
        let log = Arc::new(Mutex::new(Vec::new()));
        let accept = {
            let (root, stopping, log) = (root.to_path_buf(), stopping.clone(), log.clone());
            std::thread::spawn(move || {
                for conn in listener.incoming() {
                    if stopping.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(conn) = conn else { continue };
                    let (root, log) = (root.clone(), log.clone());
                    // A connection of its own thread: a browser opens some
                    // it sends nothing on (speculative), which must not
                    // hold up the others.
                    std::thread::spawn(move || answer(conn, &root, &log));
                }
            })
        };
        StaticServer {
            port,
            root: root.to_path_buf(),
            stopping,
            log,
            accept: Some(accept),
        }
    }

    /// Its address, with a slash: `http://127.0.0.1:PORT/`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.port)
    }

    /// The folder it serves.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Every request answered so far: `GET /path?query` and the status,
    /// e.g. `GET /sw.js 200`.
    pub fn requested(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }

    /// Stops it: once this returns, the port takes no connection (a
    /// connection already open is answered still).
    pub fn stop(&mut self) {
        let Some(accept) = self.accept.take() else {
            return;
        };
        self.stopping.store(true, Ordering::SeqCst);
        // The accepting thread wakes for one more connection, sees it is
        // to stop, and drops the listener.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        accept.join().expect("the static server's thread");
    }

    /// Whether it is serving (not stopped).
    pub fn running(&self) -> bool {
        self.accept.is_some()
    }
}

impl Drop for StaticServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The Content-Type of a file, by its name's ending, as a static host
/// sends it (a module worker and `WebAssembly.instantiateStreaming` need
/// the right one).
pub fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "webmanifest" => "application/manifest+json",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "wasm" => "application/wasm",
        "css" => "text/css; charset=utf-8",
        "png" => "image/png",
        "txt" | "jsonl" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// Answers the requests of one connection (one, then closed).
fn answer(conn: TcpStream, root: &Path, log: &Mutex<Vec<String>>) {
    let _ = conn.set_read_timeout(Some(Duration::from_secs(30)));
    let mut reader = BufReader::new(conn.try_clone().unwrap()).take(MAX_HEAD);
    let mut request = String::new();
    if reader.read_line(&mut request).unwrap_or(0) == 0 {
        return;
    }
    // The headers, read to their end and not needed.
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) if line == "\r\n" || line == "\n" => break,
            Ok(_) => {}
        }
    }
    let mut parts = request.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let (status, kind, body) = match method {
        "GET" | "HEAD" => match file_of(root, target) {
            Some(f) => match std::fs::read(&f) {
                Ok(bytes) => (200, content_type(&f), bytes),
                Err(_) => (404, "text/plain", b"not found\n".to_vec()),
            },
            None => (404, "text/plain", b"not found\n".to_vec()),
        },
        _ => (405, "text/plain", b"GET only\n".to_vec()),
    };
    log.lock()
        .unwrap()
        .push(format!("{method} {target} {status}"));
    let reason = match status {
        200 => "OK",
        404 => "Not Found",
        _ => "Method Not Allowed",
    };
    let mut conn = conn;
    // No caching by the browser's own HTTP cache: what works offline
    // works from the page's cache (its service worker), not by chance.
    let head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n\
         Cache-Control: no-cache\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = conn.write_all(head.as_bytes());
    if method != "HEAD" {
        let _ = conn.write_all(&body);
    }
    let _ = conn.flush();
    let _ = conn.shutdown(Shutdown::Both);
}

/// The file a request's target names under `root`: its path
/// percent-decoded, a folder's `index.html`; `None` for anything that
/// would leave the folder.
fn file_of(root: &Path, target: &str) -> Option<PathBuf> {
    let path = target.split(['?', '#']).next()?;
    let path = path.strip_prefix('/')?;
    let decoded = crate::mailto::percent_decode(path).ok()?;
    let rel = Path::new(&decoded);
    if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
        return None;
    }
    let mut f = root.join(rel);
    if f.is_dir() {
        f = f.join("index.html");
    }
    f.is_file().then_some(f)
}
