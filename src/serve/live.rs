//! Live refresh: a page asks, every two seconds while it is shown, whether
//! what it shows changed on disk — an entry written by the CLI, by `sync`,
//! by a computer seat or by another tab. The page carries the stamp of
//! what it showed, so a change between drawing it and asking is not
//! missed. Each question is a short request, answered at once: nothing is
//! held open, so a dozen tabs share the browser's six connections per host
//! (a held subscription per tab froze the seventh), and the server keeps
//! nothing per page. The files are looked at, not watched: a stat is
//! nothing, and works on every file system.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::UNIX_EPOCH;

use axum::extract::{Path as UrlPath, RawQuery, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::Server;

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

/// `204 No Content` while `stamp()` is still `seen`; `200 changed` once
/// it differs.
async fn changed(seen: String, stamp: impl FnOnce() -> String + Send + 'static) -> Response {
    let now = tokio::task::spawn_blocking(stamp).await.unwrap_or_default();
    if now == seen {
        StatusCode::NO_CONTENT.into_response()
    } else {
        (
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            "changed\n",
        )
            .into_response()
    }
}

pub async fn game_events(
    State(s): State<Arc<Server>>,
    UrlPath(id): UrlPath<String>,
    RawQuery(q): RawQuery,
) -> Response {
    let Some(path) = super::game::log_path(&s.home, &id) else {
        return super::pages::not_found().await;
    };
    changed(since(q.as_deref()), move || file_stamp(&path)).await
}

pub async fn home_events(State(s): State<Arc<Server>>, RawQuery(q): RawQuery) -> Response {
    let dir = crate::app::games_dir(&s.home);
    changed(since(q.as_deref()), move || dir_stamp(&dir)).await
}
