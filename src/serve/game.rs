//! A game's page and its actions. What the page shows is the pages crate's
//! ([`starry_pages`], which the web player draws with too): the player's
//! own view with the places of their next click as links; a whole move is
//! previewed by `play --dry-run` and written only when confirmed, by the
//! same call `starry play` makes.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::Form;
use axum::extract::{Path as UrlPath, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};
use serde::Deserialize;

use starry_pages::{Ask, Dry, DryRun, PageError, event_line};

use super::pages::{back_with, blocking, notice_of, page_html, problem};
use super::{Notice, Server};
use crate::app::Output;
use crate::app::act::{self, Do};
use crate::app::games::GameRow;
use crate::error::{Error, Result};
use crate::games::Game;
use crate::log::replay::now;
use crate::with_game;

/// A game of the home page, with the last thing that happened in it.
pub struct Row {
    pub row: GameRow,
    pub last: Option<String>,
}

pub fn rows(home: &Path) -> Result<Vec<Row>> {
    let (_, rows) = crate::app::games::rows(home)?;
    Ok(rows
        .into_iter()
        .map(|row| {
            let last = row
                .game_id
                .as_deref()
                .and_then(|id| log_path(home, id))
                .and_then(|p| last_event(&p));
            Row { row, last }
        })
        .collect())
}

fn last_event(path: &Path) -> Option<String> {
    crate::app::inspect::open(path, |bytes, game| {
        with_game!(game, G => Ok(crate::app::cache::tell::<G>(bytes).ok().and_then(|(_, e)| e.last().map(event_line))))
    })
    .ok()
    .flatten()
}

/// The log of the game `id` in the games directory: ids only, so that no
/// request can name another file.
pub fn log_path(home: &Path, id: &str) -> Option<PathBuf> {
    let ok = id.len() == 64
        && id
            .bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase());
    let path = crate::app::games_dir(home).join(format!("{id}.jsonl"));
    (ok && path.exists()).then_some(path)
}

/// What an action's text says of the entries written (the person's, then
/// the computer seats'), without the state and view after them: the page
/// shows those.
pub fn account_of(out: &Output) -> String {
    let text = match out.head {
        Some(h) if h <= out.text.len() && out.text.is_char_boundary(h) => &out.text[..h],
        _ => out.text.as_str(),
    };
    let mut t = text.trim_end().to_string();
    if let Some(m) = out.json.get("mail").filter(|m| !m.is_null()) {
        let sent = m["sent"].as_array().map_or(0, Vec::len);
        if sent > 0 {
            t.push_str(&format!(
                "\nMailed to {}.",
                crate::text::count(sent, "player", "players")
            ));
        }
    }
    if let Some(w) = &out.warning {
        t.push_str(&format!("\nBut: {w}"));
    }
    t
}

pub async fn page(
    State(s): State<Arc<Server>>,
    UrlPath(id): UrlPath<String>,
    RawQuery(q): RawQuery,
) -> Response {
    let Some(path) = log_path(&s.home, &id) else {
        return super::pages::not_found().await;
    };
    let notice = notice_of(&s, q.as_deref());
    let ask = Ask::parse(q.as_deref().unwrap_or(""));
    let stamp = super::live::file_stamp(&path);
    let server = s.clone();
    let done = blocking(move || {
        crate::app::inspect::open(
            &path,
            |bytes, game| with_game!(game, G => body::<G>(&server, &path, bytes, &ask)),
        )
    })
    .await;
    match done {
        Ok(Ok((title, body))) => page_html(
            &title,
            Some(&s),
            Some(format!("/events/{id}?since={stamp}")),
            notice.as_ref(),
            body,
        )
        .into_response(),
        Ok(Err(e)) => problem(StatusCode::UNPROCESSABLE_ENTITY, &e.to_string()),
        Err(r) => r,
    }
}

/// Game pages as `starry serve` addresses them: `/game/<id>?…`, forms
/// posting to `/game/<id>/act` with the CSRF token, and the dry runs of
/// `play --dry-run`, which check the player's home as well.
struct ServeSite<'a> {
    s: &'a Server,
    path: &'a Path,
}

impl starry_pages::Site for ServeSite<'_> {
    fn game_href(&self, id: &str, ask: &Ask) -> String {
        match ask.query() {
            q if q.is_empty() => format!("/game/{id}"),
            q => format!("/game/{id}?{q}"),
        }
    }

    fn action(&self, id: &str) -> String {
        format!("/game/{id}/act")
    }

    fn hidden(&self) -> Vec<(&'static str, String)> {
        vec![("csrf", self.s.csrf.clone())]
    }

    fn dry_run(&self, what: &Dry, entries: u64) -> Option<std::result::Result<DryRun, String>> {
        let todo = match what {
            Dry::Move(m) => Do::Move(m.clone()),
            Dry::Resign => Do::Resign,
            Dry::Abandon => Do::Abandon,
        };
        Some(
            act::act_file_expecting(self.path, todo, true, Some(entries))
                .map(|out| DryRun {
                    account: account_of(&out),
                    board: out.preview_svg,
                })
                .map_err(|e| e.to_string()),
        )
    }
}

/// The page's title and body, through the pages every player shares.
fn body<G: Game>(s: &Server, path: &Path, bytes: &[u8], ask: &Ask) -> Result<(String, Markup)> {
    let log_err = |fault| Error::Log {
        path: path.into(),
        fault,
    };
    let told = crate::app::cache::tell::<G>(bytes).map_err(log_err)?;
    let site = ServeSite { s, path };
    starry_pages::game_page_told(&site, bytes, told, Some(&s.identity), ask, &now(), html! {})
        .map_err(|e| match e {
            PageError::Log(fault) => log_err(fault),
            PageError::Other(m) => Error::Other(m),
        })
}

#[derive(Deserialize)]
pub struct ActForm {
    #[serde(default)]
    csrf: String,
    entries: u64,
    what: String,
    #[serde(default, rename = "move")]
    notation: Option<String>,
    #[serde(default)]
    confirm: Option<String>,
}

/// Every change to a game: the call the matching command makes, under the
/// log's lock, refused if the log no longer has the entries the page
/// showed; then mail as `--mail` does, when mail is set up.
pub async fn act(
    State(s): State<Arc<Server>>,
    UrlPath(id): UrlPath<String>,
    Form(f): Form<ActForm>,
) -> Response {
    if let Some(r) = super::guard::csrf_refusal(&s, &f.csrf) {
        return r;
    }
    let Some(path) = log_path(&s.home, &id) else {
        return super::pages::not_found().await;
    };
    let page = format!("/game/{id}");
    let confirmed = f.confirm.as_deref() == Some("yes");
    let todo = match f.what.as_str() {
        "play" => match f.notation.as_deref().map(str::trim) {
            Some(m) if !m.is_empty() && m.len() <= 200 => Do::Move(m.to_string()),
            _ => {
                return back_with(
                    &s,
                    &page,
                    Notice {
                        ok: false,
                        text: "The move is empty: choose one on the board.".into(),
                    },
                );
            }
        },
        "join" => Do::Join(crate::log::entry::Notify::All),
        "ready" => Do::Ready,
        "reveal" => Do::Reveal,
        "countersign" => Do::Countersign,
        "resign" if confirmed => Do::Resign,
        "abandon" if confirmed => Do::Abandon,
        "resign" | "abandon" => {
            return axum::response::Redirect::to(&format!("{page}?confirm={}", f.what))
                .into_response();
        }
        _ => {
            return problem(StatusCode::BAD_REQUEST, "this server knows no such action");
        }
    };
    let after = crate::app::After {
        mail: s.mail_on(),
        git_commit: false,
    };
    let expect = f.entries;
    let done = blocking(move || {
        crate::app::then(after, || {
            act::act_file_expecting(&path, todo, false, Some(expect))
        })
    })
    .await;
    let notice = match done {
        Ok(Ok(out)) => Notice {
            ok: out.warning.is_none(),
            text: account_of(&out),
        },
        Ok(Err(e)) => Notice {
            ok: false,
            text: e.to_string(),
        },
        Err(r) => return r,
    };
    back_with(&s, &page, notice)
}
