//! Who is let in. An address with a token lets one browser in, once: the
//! first request with it gets a session cookie of its own and the token
//! dies, so an address read from a process list, a browser's history or a
//! shoulder is worth nothing once used (and nothing after
//! [`LINK_LIFE`] unused).
//!
//! More addresses come from the running server itself, through a Unix
//! socket in a directory only this user can enter (`starry serve --link`).
//! `--open` hands the browser the path of a file in that directory (mode
//! 600) that sends it on to the address: the browser's command line, which
//! every user of the machine can read, holds no secret.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

use super::guard::same_secret;

/// How long an unused address lets a browser in.
pub const LINK_LIFE: Duration = Duration::from_secs(10 * 60);

/// Unused addresses kept at most; a newer one pushes out the oldest.
const PENDING: usize = 16;

/// Browsers let in at most; the oldest is logged out by a newer one.
pub const SESSIONS: usize = 32;

struct Link {
    token: String,
    until: Instant,
    /// The file `--open` gave the browser, removed with the token.
    launcher: Option<PathBuf>,
}

/// The unused addresses and the browsers let in.
pub struct Keys {
    links: Mutex<Vec<Link>>,
    sessions: Mutex<VecDeque<String>>,
}

impl Keys {
    pub fn new() -> Keys {
        Keys {
            links: Mutex::new(Vec::new()),
            sessions: Mutex::new(VecDeque::new()),
        }
    }

    /// A fresh one-time token.
    pub fn link(&self, launcher: Option<PathBuf>) -> Result<String> {
        let token = super::secret_hex()?;
        self.adopt(token.clone(), launcher);
        Ok(token)
    }

    /// Makes `token` a one-time token; `launcher` is removed with it.
    pub fn adopt(&self, token: String, launcher: Option<PathBuf>) {
        let mut all = self.links.lock().unwrap_or_else(|e| e.into_inner());
        forget_expired(&mut all);
        if all.len() >= PENDING {
            let old = all.remove(0);
            remove_launcher(&old);
        }
        all.push(Link {
            token,
            until: Instant::now() + LINK_LIFE,
            launcher,
        });
    }

    /// Whether `given` is an unused, unexpired token; it is used up.
    pub fn take_link(&self, given: &str) -> bool {
        let mut all = self.links.lock().unwrap_or_else(|e| e.into_inner());
        forget_expired(&mut all);
        // Every one compared, each in constant time.
        let mut at = None;
        for (i, l) in all.iter().enumerate() {
            if same_secret(given, &l.token) {
                at = Some(i);
            }
        }
        match at {
            Some(i) => {
                let l = all.remove(i);
                remove_launcher(&l);
                true
            }
            None => false,
        }
    }

    /// A new browser's session secret.
    pub fn new_session(&self) -> Result<String> {
        let s = super::secret_hex()?;
        let mut all = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        if all.len() >= SESSIONS {
            all.pop_front();
        }
        all.push_back(s.clone());
        Ok(s)
    }

    /// Whether `given` is the secret of a browser let in.
    pub fn session_ok(&self, given: &str) -> bool {
        let all = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        all.iter().fold(false, |ok, s| ok | same_secret(given, s))
    }

    /// The launcher files still waiting, removed (the server stops).
    pub fn forget_all(&self) {
        let mut all = self.links.lock().unwrap_or_else(|e| e.into_inner());
        for l in all.drain(..) {
            remove_launcher(&l);
        }
    }
}

fn forget_expired(all: &mut Vec<Link>) {
    let now = Instant::now();
    all.retain(|l| {
        let alive = l.until > now;
        if !alive {
            remove_launcher(l);
        }
        alive
    });
}

fn remove_launcher(l: &Link) {
    if let Some(f) = &l.launcher {
        let _ = std::fs::remove_file(f);
    }
}

/// `$STARRY_HOME/serve`, made private to this user (mode 700): the
/// running servers' sockets and `--open`'s files live there.
pub fn private_dir(home: &Path) -> Result<PathBuf> {
    let dir = home.join("serve");
    let fail = |e: std::io::Error| {
        Error::Other(format!(
            "cannot prepare {} (for the running server's private socket and files): {e}",
            dir.display()
        ))
    };
    std::fs::create_dir_all(&dir).map_err(fail)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).map_err(fail)?;
        let mode = std::fs::metadata(&dir).map_err(fail)?.permissions().mode();
        if mode & 0o077 != 0 {
            return Err(Error::Other(format!(
                "{} can be entered by other users (mode {:o}) and could not be made private",
                dir.display(),
                mode & 0o777
            )));
        }
    }
    Ok(dir)
}

/// The socket of the server on `port`.
fn socket_path(dir: &Path, port: u16) -> PathBuf {
    dir.join(format!("{port}.sock"))
}

/// A page that sends the browser on to `to` by itself (and by a link,
/// for a browser that does not follow `refresh`): not a redirect, since a
/// browser arriving from another site (`--open`'s `file:` page) would not
/// send a `SameSite=Strict` cookie along one.
pub(super) fn forwarding_page(to: &str, link: &str) -> maud::Markup {
    maud::html! {
        (maud::DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta http-equiv="refresh" content=(format!("0;url={to}"));
                title { "starry serve" }
            }
            body { p { a href=(to) { (link) } } }
        }
    }
}

/// Writes the file `--open` gives the browser: it sends the browser on to
/// `url` at once. Only this user can read it (mode 600, in a directory of
/// mode 700); it is removed when the address is used or expires.
pub fn write_launcher(dir: &Path, port: u16, url: &str) -> Result<PathBuf> {
    let name = format!("open-{port}-{}.html", &super::secret_hex()?[..16]);
    let path = dir.join(name);
    let page = forwarding_page(url, "Open your games");
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    let mut f = o
        .open(&path)
        .map_err(|e| Error::Other(format!("cannot write {}: {e}", path.display())))?;
    f.write_all(page.into_string().as_bytes())
        .map_err(|e| Error::Other(format!("cannot write {}: {e}", path.display())))?;
    Ok(path)
}

/// What `--link` asks the server for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Ask {
    /// An address to print.
    Link,
    /// The path of a launcher file to hand to a browser.
    Open,
}

impl Ask {
    fn word(self) -> &'static str {
        match self {
            Ask::Link => "link",
            Ask::Open => "open",
        }
    }
}

/// The running server's side: answers each connection on its socket
/// with a fresh address or launcher file. The socket is removed when the
/// returned guard is dropped.
#[cfg(unix)]
pub fn listen(
    dir: &Path,
    port: u16,
    answer: impl Fn(Ask) -> Result<String> + Send + Sync + 'static,
) -> Result<SocketFile> {
    let path = socket_path(dir, port);
    // Another server that answers there (the same port on another
    // `--listen` address) keeps its socket: removing it would cut that
    // server's `--link` off. One that does not answer was killed and left
    // its socket behind.
    if std::os::unix::net::UnixStream::connect(&path).is_ok() {
        return Err(Error::Other(format!(
            "{} belongs to another `starry serve` on port {port}, which still answers there; \
             `starry serve --link` reaches that one, not this",
            path.display()
        )));
    }
    let _ = std::fs::remove_file(&path);
    let l = tokio::net::UnixListener::bind(&path).map_err(|e| {
        Error::Other(format!(
            "cannot open {} (where `starry serve --link` asks for a new address): {e}",
            path.display()
        ))
    })?;
    let answer = std::sync::Arc::new(answer);
    tokio::spawn(async move {
        use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
        loop {
            let Ok((stream, _)) = l.accept().await else {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            };
            let answer = answer.clone();
            tokio::spawn(async move {
                let (r, mut w) = stream.into_split();
                let mut line = String::new();
                let mut r = tokio::io::BufReader::new(r.take(16));
                let read =
                    tokio::time::timeout(Duration::from_secs(5), r.read_line(&mut line)).await;
                let reply = match (read, line.trim()) {
                    (Ok(Ok(_)), "link") => answer(Ask::Link),
                    (Ok(Ok(_)), "open") => answer(Ask::Open),
                    _ => return,
                };
                let text = match reply {
                    Ok(t) => format!("ok {t}\n"),
                    Err(e) => format!("error {e}\n"),
                };
                let _ = w.write_all(text.as_bytes()).await;
            });
        }
    });
    Ok(SocketFile(path))
}

/// The socket's file, removed when the server stops.
pub struct SocketFile(PathBuf);

impl Drop for SocketFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// `starry serve --link`: asks the server for `port` (or the only one
/// running for this home) for a fresh address or launcher file.
#[cfg(unix)]
pub fn ask(home: &Path, port: Option<u16>, what: Ask) -> Result<String> {
    use std::os::unix::net::UnixStream;
    let dir = private_dir(home)?;
    let none_running = || {
        Error::Usage(format!(
            "no `starry serve` is running for this home ({}){}: start one first",
            home.display(),
            port.map(|p| format!(" on port {p}")).unwrap_or_default()
        ))
    };
    let candidates: Vec<u16> = match port {
        Some(p) => vec![p],
        None => {
            let mut ports: Vec<u16> = std::fs::read_dir(&dir)
                .map_err(|e| Error::Other(format!("cannot read {}: {e}", dir.display())))?
                .filter_map(|e| e.ok())
                .filter_map(|e| e.file_name().to_str()?.strip_suffix(".sock")?.parse().ok())
                .collect();
            ports.sort_unstable();
            ports
        }
    };
    let mut live = Vec::new();
    for p in candidates {
        let path = socket_path(&dir, p);
        match UnixStream::connect(&path) {
            Ok(s) => live.push((p, s)),
            // Left by a server that was killed.
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => {
                let _ = std::fs::remove_file(&path);
            }
            Err(_) => {}
        }
    }
    let (p, mut s) = match live.len() {
        0 => return Err(none_running()),
        1 => live.remove(0),
        _ => {
            return Err(Error::Usage(format!(
                "several `starry serve` run for this home (ports {}): say which with --port N",
                live.iter()
                    .map(|(p, _)| p.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
    };
    let talk = |s: &mut UnixStream| -> std::io::Result<String> {
        s.set_read_timeout(Some(Duration::from_secs(10)))?;
        writeln!(s, "{}", what.word())?;
        let mut line = String::new();
        BufReader::new(s.take(4096)).read_line(&mut line)?;
        Ok(line)
    };
    let line = talk(&mut s).map_err(|e| {
        Error::Other(format!(
            "the `starry serve` on port {p} did not answer: {e}"
        ))
    })?;
    match line.trim_end().split_once(' ') {
        Some(("ok", v)) => Ok(v.to_string()),
        Some(("error", e)) => Err(Error::Other(format!(
            "the `starry serve` on port {p} could not make an address: {e}"
        ))),
        _ => Err(Error::Other(format!(
            "the `starry serve` on port {p} gave no address"
        ))),
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// A second server on the same port (another `--listen` address)
    /// leaves the first one's socket alone, and says so.
    #[test]
    fn a_live_servers_socket_is_left_alone() {
        let d = tempfile::tempdir().unwrap();
        let path = socket_path(d.path(), 7357);
        let _first = std::os::unix::net::UnixListener::bind(&path).unwrap();
        let err = listen(d.path(), 7357, |_| Ok(String::new()))
            .err()
            .expect("refused")
            .to_string();
        assert!(err.contains("another `starry serve`"), "{err}");
        assert!(std::os::unix::net::UnixStream::connect(&path).is_ok());
    }
}
