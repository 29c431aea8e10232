//! Live refresh: a page subscribes to server-sent events that say when
//! what it shows changed on disk — an entry written by the CLI, by `sync`,
//! by a computer seat or by another tab. The page carries the stamp of
//! what it showed, so a change between drawing it and subscribing is not
//! missed. The files are looked at, not watched: a stat every half second
//! is nothing, and works on every file system.

use std::convert::Infallible;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

use axum::extract::{Path as UrlPath, RawQuery, State};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream::{self, Stream};

use super::Server;

/// How often a subscribed file is looked at.
const EVERY: Duration = Duration::from_millis(400);

/// How long one subscription lasts; the browser then subscribes again (a
/// forgotten tab holds nothing forever).
const AT_MOST: Duration = Duration::from_secs(15 * 60);

/// A file's size and modification time, as one word.
pub fn file_stamp(path: &Path) -> String {
    match std::fs::metadata(path) {
        Ok(m) => format!(
            "{}-{}",
            m.len(),
            m.modified()
                .ok()
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos())
        ),
        Err(_) => "none".into(),
    }
}

/// The stamps of every log in a directory, folded into one word.
pub fn dir_stamp(dir: &Path) -> String {
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    names.sort();
    let mut all = String::new();
    for p in &names {
        all.push_str(&p.display().to_string());
        all.push_str(&file_stamp(p));
    }
    hex::encode(&crate::crypto::sha256(all.as_bytes())[..12])
}

fn since(query: Option<&str>) -> String {
    form_urlencoded::parse(query.unwrap_or("").as_bytes())
        .find(|(k, _)| k == "since")
        .map(|(_, v)| v.chars().take(80).collect())
        .unwrap_or_default()
}

/// One `changed` event once `stamp()` differs from `seen`, then the end.
fn changes(
    seen: String,
    stamp: impl Fn() -> String + Send + Sync + 'static,
) -> impl Stream<Item = Result<Event, Infallible>> {
    let stamp = Arc::new(stamp);
    let start = tokio::time::Instant::now();
    stream::unfold(Some(seen), move |seen| {
        let stamp = stamp.clone();
        async move {
            let seen = seen?;
            loop {
                let s = stamp.clone();
                let now = tokio::task::spawn_blocking(move || s())
                    .await
                    .unwrap_or_default();
                if now != seen {
                    return Some((Ok(Event::default().event("changed").data(now)), None));
                }
                if start.elapsed() > AT_MOST {
                    return None;
                }
                tokio::time::sleep(EVERY).await;
            }
        }
    })
}

pub async fn game_events(
    State(s): State<Arc<Server>>,
    UrlPath(id): UrlPath<String>,
    RawQuery(q): RawQuery,
) -> Response {
    let Some(path) = super::game::log_path(&s.home, &id) else {
        return super::pages::not_found().await;
    };
    Sse::new(changes(since(q.as_deref()), move || file_stamp(&path)))
        .keep_alive(KeepAlive::default())
        .into_response()
}

pub async fn home_events(State(s): State<Arc<Server>>, RawQuery(q): RawQuery) -> Response {
    let dir = crate::app::games_dir(&s.home);
    Sse::new(changes(since(q.as_deref()), move || dir_stamp(&dir)))
        .keep_alive(KeepAlive::default())
        .into_response()
}
