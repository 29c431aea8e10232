//! `starry serve`: the games of this machine's player in their browser,
//! where moves are clicked. A thin web layer over the commands: every
//! page reads what `view`, `moves` and `games` read, and every change is
//! the very call `play`, `reveal`, `resign`, … make, under the same log
//! lock, with mail after it as `--mail` does. The engines stay the referee;
//! the browser only chooses among the moves they list.
//!
//! Security model (docs/serve.md): loopback only unless `--listen`; a
//! one-time token in the printed address, exchanged on first use for an
//! HttpOnly, SameSite=Strict session cookie (links.rs); connections capped
//! and timed (conns.rs); `Host` checked against DNS
//! rebinding; every change a POST with a matching `Origin` and a CSRF
//! token; a strict Content-Security-Policy with no inline script. Only
//! games in the games directory are reachable, by id: nothing in a request
//! names a file.

mod conns;
mod game;
mod guard;
mod links;
mod live;
#[cfg(test)]
mod marking;
mod pages;

use crate::crypto::identity::Stored as _;
#[cfg(test)]
pub(crate) use pages::new_game_of;

use std::collections::VecDeque;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::routing::{get, post};

use crate::crypto::identity::{self, Identity};
use crate::error::{Error, Result};

use super::app::Output;

/// How many results of actions are kept to show on the next page.
const NOTICES: usize = 64;

/// What every request handler shares.
pub struct Server {
    home: PathBuf,
    /// The player: every page is their view, every entry theirs.
    identity: Identity,
    /// The one-time addresses and the browsers let in.
    keys: links::Keys,
    /// The name of the session cookie: one per port, so that two servers
    /// on one machine do not log each other out.
    cookie: String,
    /// The token every form carries (hex).
    csrf: String,
    /// `Host` values this server answers to.
    hosts: Vec<String>,
    /// `Origin` values a POST may come from.
    origins: Vec<String>,
    /// Results of recent actions, by number, for the page after a redirect.
    notices: Mutex<VecDeque<(u64, Notice)>>,
    next_notice: Mutex<u64>,
}

/// The result of an action, shown at the top of the next page.
#[derive(Clone, Debug)]
pub struct Notice {
    pub ok: bool,
    pub text: String,
}

impl Server {
    fn notice(&self, n: Notice) -> u64 {
        let mut next = self.next_notice.lock().unwrap_or_else(|e| e.into_inner());
        *next += 1;
        let id = *next;
        let mut all = self.notices.lock().unwrap_or_else(|e| e.into_inner());
        if all.len() == NOTICES {
            all.pop_front();
        }
        all.push_back((id, n));
        id
    }

    fn take_notice(&self, id: u64) -> Option<Notice> {
        let all = self.notices.lock().unwrap_or_else(|e| e.into_inner());
        all.iter().find(|(n, _)| *n == id).map(|(_, n)| n.clone())
    }

    /// Whether entries are to be mailed: mail settings exist (broken ones
    /// then stop the action before anything is written, as `--mail` does).
    fn mail_on(&self) -> bool {
        self.home.join(crate::mail::transport::CONFIG_FILE).exists()
            || std::env::var("STARRY_MAIL_TRANSPORT").is_ok_and(|v| !v.trim().is_empty())
    }

    /// Whether `sync` can run: an inbox is set up (IMAP).
    fn sync_on(&self) -> bool {
        crate::mail::load(&self.home).is_ok_and(|c| c.imap.validate().is_ok())
    }
}

/// `starry serve`: where to listen, and what else to do.
#[derive(Clone, Copy, Debug, Default)]
pub struct Serve {
    /// None: 7357; 0: any free port. With `link`: the running server to ask.
    pub port: Option<u16>,
    /// Open the page in the default browser.
    pub open: bool,
    /// Only ask the server already running for a fresh address.
    pub link: bool,
    /// An address to listen on instead of loopback.
    pub listen: Option<IpAddr>,
}

/// 32 random bytes as hex.
fn secret_hex() -> Result<String> {
    let mut b = [0u8; 32];
    getrandom::fill(&mut b).map_err(|e| Error::Other(format!("no randomness: {e}")))?;
    Ok(hex::encode(b))
}

/// The addresses to listen on: loopback, both families where the machine
/// has them, or the one `--listen` names.
fn addresses(a: &Serve) -> Vec<IpAddr> {
    match a.listen {
        Some(ip) => vec![ip],
        None => vec![
            IpAddr::V4(Ipv4Addr::LOCALHOST),
            IpAddr::V6(Ipv6Addr::LOCALHOST),
        ],
    }
}

/// The port when none is given.
const PORT: u16 = 7357;

/// `starry serve`: runs until interrupted. With `--link`: asks the running
/// server for a fresh address.
pub fn run(a: &Serve) -> Result<Output> {
    let home = identity::home_dir()?;
    if a.link {
        return link(a, &home);
    }
    let identity = Identity::load(&home).map_err(|e| {
        Error::Usage(format!(
            "{e}. The browser plays as you: create your identity first (`starry id new --name \
             NAME --email ADDRESS`), then run `starry serve` again"
        ))
    })?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(8)
        .enable_io()
        .enable_time()
        .build()
        .map_err(|e| Error::Other(format!("cannot start the web server: {e}")))?;
    runtime.block_on(serve(a, home, identity))
}

async fn serve(a: &Serve, home: PathBuf, identity: Identity) -> Result<Output> {
    // Bind first: the port (when 0) and the families that exist decide the
    // allowed hosts.
    let (listeners, port) = bind(&addresses(a), a.port.unwrap_or(PORT), a.listen.is_none()).await?;
    let (shown_ip, hosts) = hosts(a.listen, port);
    let origins = hosts.iter().map(|h| format!("http://{h}")).collect();
    let private = links::private_dir(&home)?;
    let server = Arc::new(Server {
        home,
        identity,
        cookie: format!("starry_{port}"),
        keys: links::Keys::new(),
        csrf: secret_hex()?,
        hosts,
        origins,
        notices: Mutex::new(VecDeque::new()),
        next_notice: Mutex::new(0),
    });
    let base = format!("http://{shown_ip}:{port}");
    let fresh = {
        let (server, base, private) = (server.clone(), base.clone(), private.clone());
        move |what: links::Ask| -> Result<String> {
            match what {
                links::Ask::Link => Ok(format!("{base}/?token={}", server.keys.link(None)?)),
                links::Ask::Open => {
                    // The file's name is known before the token, so that
                    // the token can remove it when used.
                    let token = secret_hex()?;
                    let url = format!("{base}/?token={token}");
                    let file = links::write_launcher(&private, port, &url)?;
                    server.keys.adopt(token, Some(file.clone()));
                    Ok(file.display().to_string())
                }
            }
        }
    };
    // Without the socket (a home path too long for one, say) the server
    // still serves; only `--link` cannot reach it.
    #[cfg(unix)]
    let _socket = links::listen(&private, port, fresh.clone())
        .map_err(|e| eprintln!("warning: {e}; `starry serve --link` cannot reach this server"))
        .ok();
    let url = fresh(links::Ask::Link)?;
    if let Some(ip) = a.listen.filter(|ip| !ip.is_loopback()) {
        eprintln!(
            "warning: listening on {ip}, not only on this machine: whoever can reach it and \
             learns the address below can play your seats. Traffic is not encrypted (plain \
             HTTP); use this only on a network you trust (docs/serve.md)."
        );
    }
    println!("starry serve: open {url}");
    if a.open {
        // The browser's command line, which every user of the machine can
        // read, gets the path of a private file, not the address.
        match fresh(links::Ask::Open) {
            Ok(file) => open_browser(&file),
            Err(e) => eprintln!("warning: could not prepare the browser's start ({e})"),
        }
    }
    until_interrupted(server, listeners).await;
    Ok(Output::new(
        "starry serve: stopped.".into(),
        &serde_json::json!({ "stopped": true }),
    ))
}

/// Listens on `ips`, all on one port: `port`, or the one the first
/// address got when 0. When `lenient` (no `--listen`), an IPv6 address the
/// machine lacks is left out.
async fn bind(
    ips: &[IpAddr],
    mut port: u16,
    lenient: bool,
) -> Result<(Vec<tokio::net::TcpListener>, u16)> {
    let mut listeners = Vec::new();
    for &ip in ips {
        match tokio::net::TcpListener::bind(SocketAddr::new(ip, port)).await {
            Ok(l) => {
                port = l.local_addr().map(|s| s.port()).unwrap_or(port);
                listeners.push(l);
            }
            // A machine without IPv6 still serves on 127.0.0.1.
            Err(_) if lenient && ip.is_ipv6() && !listeners.is_empty() => {}
            Err(e) => {
                return Err(Error::Usage(format!(
                    "cannot listen on {}: {e}{}",
                    SocketAddr::new(ip, port),
                    if e.kind() == std::io::ErrorKind::AddrInUse {
                        "; another program (perhaps another `starry serve`) uses that port: \
                         choose another with --port N, or --port 0 for any free one"
                    } else {
                        ""
                    }
                )));
            }
        }
    }
    Ok((listeners, port))
}

/// The address to print (an IPv6 one in brackets), and the `Host` values
/// this server answers to: loopback's names, and the one `--listen` names.
fn hosts(listen: Option<IpAddr>, port: u16) -> (String, Vec<String>) {
    let shown_ip = match listen {
        Some(IpAddr::V6(ip)) => format!("[{ip}]"),
        Some(ip) => ip.to_string(),
        None => "127.0.0.1".into(),
    };
    let mut hosts = vec![
        format!("127.0.0.1:{port}"),
        format!("[::1]:{port}"),
        format!("localhost:{port}"),
    ];
    if listen.is_some() {
        hosts.push(format!("{shown_ip}:{port}"));
    }
    (shown_ip, hosts)
}

/// Serves on `listeners` until Ctrl-C; then lets no one new in, and gives
/// the requests under way a moment to finish.
async fn until_interrupted(server: Arc<Server>, listeners: Vec<tokio::net::TcpListener>) {
    let keys = server.clone();
    let app = router(server);
    let conns = Arc::new(conns::Conns::default());
    let (stop, stopping) = tokio::sync::watch::channel(false);
    let mut tasks = Vec::new();
    for l in listeners {
        tasks.push(tokio::spawn(conns::accept(
            l,
            app.clone(),
            conns.clone(),
            stopping.clone(),
        )));
    }
    let _ = tokio::signal::ctrl_c().await;
    let _ = stop.send(true);
    keys.keys.forget_all();
    // A request under way (a write takes milliseconds) finishes.
    let _ = tokio::time::timeout(std::time::Duration::from_secs(3), async {
        futures_util::future::join_all(tasks).await;
        while conns.count() > 0 {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    })
    .await;
}

/// Starts the default browser on `target` (a file's path or an address).
fn open_browser(target: &str) {
    if let Err(e) = webbrowser::open(target) {
        eprintln!("warning: could not start a browser ({e}); open the address above yourself");
    }
}

/// `starry serve --link [--open]`.
fn link(a: &Serve, home: &std::path::Path) -> Result<Output> {
    #[cfg(unix)]
    {
        if a.open {
            let file = links::ask(home, a.port, links::Ask::Open)?;
            open_browser(&file);
            return Ok(Output::new(
                "starry serve: opened a browser, through a file only you can read.".into(),
                &serde_json::json!({ "opened": file }),
            ));
        }
        let url = links::ask(home, a.port, links::Ask::Link)?;
        Ok(Output::new(
            format!("starry serve: open {url}\n(it lets one browser in, once, within 10 minutes)"),
            &serde_json::json!({ "link": url }),
        ))
    }
    #[cfg(not(unix))]
    {
        let _ = (a, home);
        Err(Error::Usage(
            "`starry serve --link` needs a Unix socket, which this system lacks: restart \
             `starry serve` for a new address"
                .into(),
        ))
    }
}

fn router(server: Arc<Server>) -> Router {
    Router::new()
        .route("/", get(pages::home))
        .route("/new", get(pages::new_form).post(pages::new_game))
        .route("/sync", post(pages::sync))
        .route("/game/{id}", get(game::page))
        .route("/game/{id}/act", post(game::act))
        .route("/events", get(live::home_events))
        .route("/events/{id}", get(live::game_events))
        .route("/assets/{name}", get(pages::asset))
        .route("/favicon.ico", get(pages::favicon))
        .fallback(pages::not_found)
        .layer(axum::middleware::from_fn_with_state(
            server.clone(),
            guard::guard,
        ))
        // A form is a few hundred bytes; nothing a browser sends here needs
        // more.
        .layer(axum::extract::DefaultBodyLimit::max(64 * 1024))
        .with_state(server)
}
