//! The connections themselves, bounded: the server accepts them in its own
//! loop (axum's `serve` offers neither a cap nor a timeout), so that a
//! flood from another user of the machine cannot take the file
//! descriptors, the memory or the player's turn.
//!
//! - At most [`MAX_CONNECTIONS`] are open. A new one beyond that takes the
//!   place of the oldest one that has no request under way, preferring
//!   one that never showed this server's cookie: a stranger's idle or
//!   slowly-typed connection goes first, the player's browser last (and a
//!   browser reconnects by itself when an idle connection of its own is
//!   closed).
//! - A request's header must arrive whole within [`HEADER_TIME`] (hyper's
//!   own timeout); the same timer runs while a kept-alive connection waits
//!   for its next request, so it is also the idle timeout.
//! - A refusal closes its connection (guard.rs), so a stranger holds
//!   nothing between attempts.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::{oneshot, watch};
use tower_service::Service;

/// Open connections at most; a browser uses six per host.
pub const MAX_CONNECTIONS: usize = 256;

/// Time for a request's header to arrive whole, and for an idle kept-alive
/// connection to send its next request.
pub const HEADER_TIME: Duration = Duration::from_secs(10);

/// Set on a connection once a request on it carried the player's cookie
/// (guard.rs): it is then the last to give way to a new one.
#[derive(Clone)]
pub struct Trusted(pub Arc<AtomicBool>);

struct Open {
    /// Dropped to close the connection.
    _close: oneshot::Sender<()>,
    /// Requests under way.
    busy: Arc<AtomicUsize>,
    trusted: Arc<AtomicBool>,
}

/// The open connections, oldest first.
#[derive(Default)]
pub struct Conns {
    all: Mutex<(u64, BTreeMap<u64, Open>)>,
}

struct Admitted {
    id: u64,
    closed: oneshot::Receiver<()>,
    busy: Arc<AtomicUsize>,
    trusted: Arc<AtomicBool>,
}

impl Conns {
    /// Makes room for one more connection; none when every open one has a
    /// request under way.
    fn admit(&self) -> Option<Admitted> {
        let mut all = self.all.lock().unwrap_or_else(|e| e.into_inner());
        let (next, open) = &mut *all;
        if open.len() >= MAX_CONNECTIONS {
            let idle = |o: &Open| o.busy.load(Ordering::Acquire) == 0;
            let victim = open
                .iter()
                .find(|(_, o)| idle(o) && !o.trusted.load(Ordering::Acquire))
                .or_else(|| open.iter().find(|(_, o)| idle(o)))
                .map(|(id, _)| *id)?;
            open.remove(&victim);
        }
        *next += 1;
        let (close, closed) = oneshot::channel();
        let busy = Arc::new(AtomicUsize::new(0));
        let trusted = Arc::new(AtomicBool::new(false));
        open.insert(
            *next,
            Open {
                _close: close,
                busy: busy.clone(),
                trusted: trusted.clone(),
            },
        );
        Some(Admitted {
            id: *next,
            closed,
            busy,
            trusted,
        })
    }

    fn leave(&self, id: u64) {
        let mut all = self.all.lock().unwrap_or_else(|e| e.into_inner());
        all.1.remove(&id);
    }

    /// How many are open.
    pub fn count(&self) -> usize {
        self.all.lock().unwrap_or_else(|e| e.into_inner()).1.len()
    }
}

/// Counts a request as under way until dropped.
struct Busy(Arc<AtomicUsize>);

impl Busy {
    fn new(n: Arc<AtomicUsize>) -> Busy {
        n.fetch_add(1, Ordering::AcqRel);
        Busy(n)
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Accepts connections on `l` until `stopping` turns true.
pub async fn accept(
    l: TcpListener,
    app: Router,
    conns: Arc<Conns>,
    mut stopping: watch::Receiver<bool>,
) {
    loop {
        let stop = stopping.wait_for(|s| *s);
        let accepted = tokio::select! {
            r = l.accept() => r,
            _ = stop => break,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            // Out of file descriptors (the machine's, not ours: ours are
            // capped) or a connection reset before it was taken: wait a
            // moment rather than spin.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
        };
        // Every open connection busy: this one is closed at once.
        let Some(a) = conns.admit() else { continue };
        tokio::spawn(serve_one(
            stream,
            app.clone(),
            conns.clone(),
            a,
            stopping.clone(),
        ));
    }
}

async fn serve_one(
    stream: tokio::net::TcpStream,
    app: Router,
    conns: Arc<Conns>,
    a: Admitted,
    mut stopping: watch::Receiver<bool>,
) {
    let _ = stream.set_nodelay(true);
    let (busy, trusted) = (a.busy, a.trusted);
    let service = hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
        req.extensions_mut().insert(Trusted(trusted.clone()));
        let during = Busy::new(busy.clone());
        let mut app = app.clone();
        async move {
            let r = app.call(req).await;
            drop(during);
            r
        }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_TIME);
    let conn = builder.serve_connection(TokioIo::new(stream), service);
    tokio::pin!(conn);
    let stop = async move {
        let _ = stopping.wait_for(|s| *s).await;
    };
    let stopped = tokio::select! {
        _ = conn.as_mut() => false,
        // Made room for a newer one.
        _ = a.closed => false,
        () = stop => true,
    };
    if stopped {
        // A request under way (a write takes milliseconds) finishes.
        conn.as_mut().graceful_shutdown();
        let _ = tokio::time::timeout(Duration::from_secs(3), conn.as_mut()).await;
    }
    conns.leave(a.id);
}
