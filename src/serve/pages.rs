//! The pages around the games: the frame every page shares, the list of
//! games, the new-game form, sync, and the files of the interface itself.

use std::sync::Arc;

use axum::Form;
use axum::extract::{Path as UrlPath, RawQuery, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use maud::{DOCTYPE, Markup, html};
use serde::Deserialize;

use super::{Notice, Server};
use crate::games::registry;

pub(super) use starry_pages::STYLE;
const SCRIPT: &str = include_str!("assets/app.js");
const ICON: &str = include_str!("assets/icon.svg");

/// Runs `work` (file and CPU work: logs, engines, mail) off the async
/// threads; a panic in it becomes an error page, not a dead server.
pub async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, Response> {
    tokio::task::spawn_blocking(work).await.map_err(|e| {
        problem(
            StatusCode::INTERNAL_SERVER_ERROR,
            &format!("the server failed while doing this ({e}); nothing more is known"),
        )
    })
}

/// A page that says what went wrong, in the frame.
pub fn problem(status: StatusCode, text: &str) -> Response {
    let body = html! {
        h1 { "Something went wrong" }
        p.error role="alert" { (shown(text)) }
        p { a href="/" { "Back to your games" } }
    };
    (status, page_html("Problem", None, None, None, body)).into_response()
}

pub use starry_pages::shown;

/// The frame of every page: `live` is the address of its change events
/// (the script reloads the page when they say the game changed).
pub fn page_html(
    title: &str,
    s: Option<&Server>,
    live: Option<String>,
    notice: Option<&Notice>,
    body: Markup,
) -> Html<String> {
    let m = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (shown(title)) " — starry" }
                link rel="stylesheet" href="/assets/style.css";
                link rel="icon" href="/assets/icon.svg" type="image/svg+xml";
                script src="/assets/app.js" defer {}
            }
            body data-live=[live] {
                header {
                    nav aria-label="starry" {
                        a href="/" { "Your games" }
                        " "
                        a href="/new" { "New game" }
                        @if let Some(s) = s.filter(|s| s.sync_on()) {
                            " "
                            form.inline method="post" action="/sync" {
                                input type="hidden" name="csrf" value=(s.csrf);
                                button type="submit" { "Sync mail" }
                            }
                        }
                    }
                }
                main {
                    @if let Some(n) = notice {
                        @if n.ok {
                            div.notice role="status" { pre { (shown(&n.text)) } }
                        } @else {
                            div.notice.error role="alert" { pre { (shown(&n.text)) } }
                        }
                    }
                    (body)
                }
            }
        }
    };
    Html(m.into_string())
}

/// The notice a redirect points at (`?notice=N`).
pub fn notice_of(s: &Server, query: Option<&str>) -> Option<Notice> {
    form_urlencoded::parse(query.unwrap_or("").as_bytes())
        .find(|(k, _)| k == "notice")
        .and_then(|(_, v)| v.parse().ok())
        .and_then(|n| s.take_notice(n))
}

/// After an action: back to `to`, with its result to show there.
pub fn back_with(s: &Server, to: &str, notice: Notice) -> Response {
    let n = s.notice(notice);
    let sep = if to.contains('?') { '&' } else { '?' };
    Redirect::to(&format!("{to}{sep}notice={n}")).into_response()
}

pub async fn home(State(s): State<Arc<Server>>, RawQuery(q): RawQuery) -> Response {
    let notice = notice_of(&s, q.as_deref());
    let home = s.home.clone();
    let rows = match blocking(move || super::game::rows(&home)).await {
        Ok(Ok(rows)) => rows,
        Ok(Err(e)) => return problem(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
        Err(r) => return r,
    };
    let stamp = super::live::dir_stamp(&crate::app::games_dir(&s.home));
    let body = html! {
        h1 { "Your games" }
        p.who { "You are " (shown(&s.identity.name)) " <" (shown(&s.identity.email)) ">." }
        @if rows.is_empty() {
            p { "No games yet. " a href="/new" { "Start one" } ", or take one you were invited to with "
                code { "starry sync" } " or " code { "starry ingest" } "." }
        } @else {
            table.games {
                thead { tr { th scope="col" { "Game" } th scope="col" { "Players" } th scope="col" { "Now" } th scope="col" { "Time left" } th scope="col" { "Last" } } }
                tbody {
                    @for r in &rows {
                        tr.mine[r.row.your_turn] {
                            td {
                                @if let Some(id) = &r.row.game_id {
                                    a href={ "/game/" (id) } { (r.row.game.as_deref().map(crate::app::history::title).unwrap_or_default()) " " (id.get(..8).unwrap_or("")) }
                                } @else {
                                    (shown(&r.row.file))
                                }
                            }
                            td { (shown(&r.row.players.join(", "))) }
                            td {
                                @if let Some(p) = &r.row.problem {
                                    span.error { (shown(p)) }
                                } @else if r.row.over {
                                    "Over" @if !r.row.winners.is_empty() { ": " (shown(&r.row.winners.join(" and "))) " won" }
                                } @else if r.row.your_turn {
                                    strong { "Your turn" } " (" (r.row.action.as_deref().unwrap_or("")) ")"
                                } @else if let Some(who) = &r.row.to_act {
                                    (shown(who)) " to " (r.row.action.as_deref().unwrap_or("act"))
                                }
                            }
                            td { (r.row.time_left.as_deref().map(shown).unwrap_or_default()) }
                            td { (r.last.as_deref().map(shown).unwrap_or_default()) }
                        }
                    }
                }
            }
        }
    };
    page_html(
        "Your games",
        Some(&s),
        Some(format!("/events?since={stamp}")),
        notice.as_ref(),
        body,
    )
    .into_response()
}

pub async fn new_form(State(s): State<Arc<Server>>, RawQuery(q): RawQuery) -> Response {
    let notice = notice_of(&s, q.as_deref());
    let chosen = form_urlencoded::parse(q.as_deref().unwrap_or("").as_bytes())
        .find(|(k, _)| k == "game")
        .and_then(|(_, v)| registry::find(&v));
    new_form_page(&s, chosen, &[], notice.as_ref()).into_response()
}

/// "2 players", "3 to 5 players".
fn seat_words(seats: (usize, usize)) -> String {
    match seats {
        (lo, hi) if lo == hi => crate::text::count(lo as u64, "player", "players"),
        (lo, hi) => format!("{lo} to {hi} players"),
    }
}

/// A value of a variant that stands for something typed (Star Map's
/// `LAYOUT`): written in capitals, as `starry new --help` writes a value
/// to fill in.
fn is_placeholder(value: &str) -> bool {
    !value.is_empty() && value.bytes().all(|b| b.is_ascii_uppercase())
}

/// The form flag that types what the variant `key`'s placeholder stands
/// for (`--map` for Star Map's `map`), if the game has one.
fn typed_flag_of(
    entry: &registry::Entry,
    key: &str,
) -> Option<&'static (&'static str, &'static str, &'static str)> {
    let has_placeholder = (entry.variants)()
        .iter()
        .any(|(k, values, _)| *k == key && values.iter().any(|v| is_placeholder(v)));
    entry
        .form_flags
        .iter()
        .find(|(flag, _, _)| has_placeholder && flag.strip_prefix("--") == Some(key))
}

/// The new-game form of `chosen`, filled with `values` (what was sent,
/// when it was refused: nothing the person typed is lost) or, when they
/// are empty, with a game that starts as it stands: the person and as many
/// computer seats as the game needs at least.
fn new_form_page(
    s: &Server,
    chosen: Option<&registry::Entry>,
    values: &[(String, String)],
    notice: Option<&Notice>,
) -> Html<String> {
    let sent = |name: &str| {
        values
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    let me = format!("{} <{}>", s.identity.name, s.identity.email);
    let body = html! {
        h1 { "A new game" }
        nav.games aria-label="which game" {
            "Game: "
            @for e in &registry::ALL {
                @if chosen.is_some_and(|c| c.name == e.name) {
                    strong aria-current="page" { (crate::app::history::title(e.name)) }
                } @else {
                    a href={ "/new?game=" (e.name) } { (crate::app::history::title(e.name)) }
                }
                " "
            }
        }
        @if let Some(e) = chosen {
            @let players = match sent("players") {
                Some(p) => p.to_string(),
                None => std::iter::once(me.as_str())
                    .chain(std::iter::repeat_n("computer", e.seats.0.saturating_sub(1)))
                    .collect::<Vec<_>>()
                    .join("\n"),
            };
            form method="post" action="/new" {
                input type="hidden" name="csrf" value=(s.csrf);
                input type="hidden" name="game" value=(e.name);
                p {
                    label for="players" { "Players, in turn order, one per line (" (seat_words(e.seats)) "): you first, then "
                        code { "Name <address>" } " or " code { "computer" } " / " code { "computer:1" } " to " code { "computer:3" } }
                    br;
                    textarea id="players" name="players" rows="5" cols="40" required { (players) }
                }
                p {
                    label for="deadline" { "Time for each move (e.g. 7d, 36h, none)" }
                    br;
                    input id="deadline" name="deadline" value=(sent("deadline").unwrap_or("14d"));
                }
                @for (key, values, help) in (e.variants)() {
                    @let name = format!("variant:{key}");
                    @let picked = sent(&name).filter(|v| values.contains(v)).unwrap_or(values[0]);
                    p {
                        label for={ "variant-" (key) } { (key) ": " (help) }
                        br;
                        select id={ "variant-" (key) } name=(name) {
                            @for v in &values {
                                option value=(v) selected[*v == picked] {
                                    @if is_placeholder(v) && typed_flag_of(e, key).is_some() {
                                        (v.to_lowercase()) " (typed below)"
                                    } @else {
                                        (v)
                                    }
                                }
                            }
                        }
                        @if let Some(flag) = typed_flag_of(e, key) {
                            br;
                            (flag_field(flag, sent))
                        }
                    }
                }
                @for flag in e.form_flags {
                    @if !(e.variants)().iter().any(|(key, _, _)| typed_flag_of(e, key) == Some(flag)) {
                        p { (flag_field(flag, sent)) }
                    }
                }
                p { button type="submit" { "Start the game" } }
            }
        } @else {
            p { "Choose the game above." }
        }
    };
    page_html("A new game", Some(s), None, notice, body)
}

/// The field of a form flag: its label, and what was sent in it.
fn flag_field<'a>(
    (flag, label, example): &(&'static str, &'static str, &'static str),
    sent: impl Fn(&str) -> Option<&'a str>,
) -> Markup {
    let name = format!("flag:{flag}");
    html! {
        label for={ "flag" (flag) } { (label) }
        br;
        input id={ "flag" (flag) } name=(name) placeholder=(example) value=[sent(&name)];
    }
}

/// The new-game form, as it comes: the fields named `variant:KEY` and
/// `flag:--FLAG` vary by game.
pub async fn new_game(
    State(s): State<Arc<Server>>,
    Form(fields): Form<Vec<(String, String)>>,
) -> Response {
    let get = |name: &str| {
        fields
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    if let Some(r) = super::guard::csrf_refusal(&s, get("csrf").unwrap_or("")) {
        return r;
    }
    let Some(entry) = get("game").and_then(registry::find) else {
        return back_with(
            &s,
            "/new",
            Notice {
                ok: false,
                text: "Choose one of the games.".into(),
            },
        );
    };
    let mail = s.mail_on();
    let sent = fields.clone();
    let done = blocking(move || {
        let new = new_game_of(entry, &fields, mail)?;
        crate::app::then(new.after, || crate::app::act::new_game(&new))
    })
    .await;
    match done {
        Ok(Ok(out)) => {
            let id = out.json["status"]["game_id"].as_str().unwrap_or_default();
            back_with(
                &s,
                &format!("/game/{id}"),
                Notice {
                    ok: out.warning.is_none(),
                    text: super::game::account_of(&out),
                },
            )
        }
        // Refused: the form again, as it was sent, with why.
        Ok(Err(e)) => {
            let notice = Notice {
                ok: false,
                text: e.to_string(),
            };
            let kept: Vec<(String, String)> =
                sent.into_iter().filter(|(k, _)| k != "csrf").collect();
            (
                StatusCode::UNPROCESSABLE_ENTITY,
                new_form_page(&s, Some(entry), &kept, Some(&notice)),
            )
                .into_response()
        }
        Err(r) => r,
    }
}

/// The new game the form asks for, as `starry new` would take it from its
/// flags: the players one per line (or comma-separated), each variant the
/// game has, and only the flags the form offers. What the command line
/// itself would refuse (a deadline that does not read, a flag given twice,
/// `--stars` with `--random-stars`) is refused in the words it uses. A
/// variant's placeholder and the field typed below it (Star Map's map) are
/// the form's own: see [`typed_or_chosen`].
pub(crate) fn new_game_of(
    entry: &registry::Entry,
    fields: &[(String, String)],
    mail: bool,
) -> crate::error::Result<crate::app::act::NewGame> {
    let get = |name: &str| {
        fields
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    let mut players: Vec<String> = get("players")
        .unwrap_or("")
        .split(['\n', ','])
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(String::from)
        .collect();
    if players.is_empty() {
        // `--players=` is one empty player, refused as such.
        players.push(String::new());
    }
    let deadline = get("deadline").unwrap_or("14d").trim();
    let deadline = crate::app::clock::parse_deadline(deadline).map_err(|e| {
        as_new_says(format!(
            "error: invalid value '{deadline}' for '--deadline <DURATION>': {e}\n\n\
             For more information, try '--help'."
        ))
    })?;
    let mut new = crate::app::act::NewGame {
        game: entry.name.into(),
        players,
        deadline,
        after: crate::app::After {
            mail,
            git_commit: false,
        },
        ..Default::default()
    };
    typed_or_chosen(entry, get)?;
    // The flags as the command line would have them, in order, each once.
    let mut given = vec!["--players", "--deadline"];
    if mail {
        given.push("--mail");
    }
    for (k, v) in fields {
        if let Some(key) = k.strip_prefix("variant:")
            && (entry.variants)().iter().any(|(name, _, _)| *name == key)
            // The placeholder, or the default with the field typed below
            // it filled, leaves the option to that field, as its flag
            // (`typed_or_chosen` refused the rest).
            && !typed_flag_of(entry, key).is_some_and(|(flag, _, _)| {
                is_placeholder(v.trim()) || get(&format!("flag:{flag}")).is_some_and(|t| !t.trim().is_empty())
            })
        {
            new.variants.push(format!("{key}={}", v.trim()));
            if !given.contains(&"--variant") {
                given.push("--variant");
            }
        }
        let Some((flag, _, _)) = k
            .strip_prefix("flag:")
            .filter(|_| !v.trim().is_empty())
            .and_then(|flag| entry.form_flags.iter().find(|(f, _, _)| *f == flag))
        else {
            continue;
        };
        let field = match *flag {
            "--random-stars" => &mut new.random_stars,
            "--grid" => &mut new.grid,
            "--stars" => &mut new.stars,
            "--map" => &mut new.map,
            // A flag this form does not know yet: a test
            // (`every_form_flag_of_every_game_reaches_the_new_game`) fails
            // for any registered game's, so none is dropped unseen.
            _ => continue,
        };
        if field.is_some() {
            return Err(as_new_says(format!(
                "error: the argument '{flag} {}' cannot be used multiple times\n\n\
                 Usage: starry new [OPTIONS] --players <PLAYERS> <GAME>\n\n\
                 For more information, try '--help'.",
                value_name(flag)
            )));
        }
        *field = Some(v.trim().to_string());
        given.push(flag);
    }
    let at = |flag: &str| given.iter().position(|f| *f == flag);
    if let (Some(stars), Some(random)) = (at("--stars"), at("--random-stars")) {
        let (first, then) = if stars < random {
            ("--stars", "--random-stars")
        } else {
            ("--random-stars", "--stars")
        };
        let used: Vec<String> = given
            .iter()
            .filter(|f| **f != then)
            .map(|f| match value_name(f) {
                "" => f.to_string(),
                name => format!("{f} {name}"),
            })
            .collect();
        return Err(as_new_says(format!(
            "error: the argument '{first} {}' cannot be used with '{then} {}'\n\n\
             Usage: starry new {} <GAME>\n\n\
             For more information, try '--help'.",
            value_name(first),
            value_name(then),
            used.join(" ")
        )));
    }
    Ok(new)
}

/// A variant whose placeholder stands for a field typed below it (Star
/// Map's map: random, easy, hard, mixed, or a layout typed in): the
/// placeholder wants that field filled. A value other than the default
/// (the first) wants it empty: which of the two was meant cannot be told.
/// The default with the field filled is the field's: a person who typed
/// a layout and left the choice as it came meant the layout.
fn typed_or_chosen<'a>(
    entry: &registry::Entry,
    get: impl Fn(&str) -> Option<&'a str>,
) -> crate::error::Result<()> {
    for (key, values, _) in (entry.variants)() {
        let Some((flag, _, example)) = typed_flag_of(entry, key) else {
            continue;
        };
        let chosen = get(&format!("variant:{key}")).map(str::trim);
        let typed = get(&format!("flag:{flag}"))
            .map(str::trim)
            .filter(|t| !t.is_empty());
        let placeholder = values
            .iter()
            .find(|v| is_placeholder(v))
            .copied()
            .unwrap_or("");
        let own = format!("{} (typed below)", placeholder.to_lowercase());
        match (chosen, typed) {
            (Some(c), None) if is_placeholder(c) => {
                let named: Vec<String> = values
                    .iter()
                    .filter(|v| !is_placeholder(v))
                    .map(|v| v.to_string())
                    .collect();
                return Err(crate::error::Error::Usage(format!(
                    "{key}: you chose “{own}”, but the field below it is empty: type it there \
                     (such as `{example}`), or choose {}",
                    crate::app::history::list(&named).replacen(" and ", " or ", 1)
                )));
            }
            (Some(c), Some(t)) if !is_placeholder(c) && values.first() != Some(&c) => {
                return Err(crate::error::Error::Usage(format!(
                    "{key}: you chose `{}`, and typed `{}` in the field below it as well: choose \
                     “{own}” to play what you typed, or empty that field",
                    crate::text::excerpt(c),
                    crate::text::excerpt(t)
                )));
            }
            _ => {}
        }
    }
    Ok(())
}

/// The placeholder `starry new --help` shows after a flag of the form.
fn value_name(flag: &str) -> &'static str {
    match flag {
        "--players" => "<PLAYERS>",
        "--deadline" => "<DURATION>",
        "--variant" => "<KEY=VALUE>",
        "--random-stars" => "<N>",
        "--grid" => "<WxH>",
        "--stars" => "<POINTS>",
        "--map" => "<LAYOUT>",
        _ => "",
    }
}

/// A refusal of the new-game form as the page has always shown it: the
/// command line's message, its usage set apart.
fn as_new_says(message: String) -> crate::error::Error {
    crate::error::Error::Usage(message.replace("Usage:", "\nUsage:"))
}

#[derive(Deserialize)]
pub struct CsrfOnly {
    #[serde(default)]
    csrf: String,
}

/// `starry sync` once: mail in, games forward (and the computer seats
/// answer, as after any ingest).
pub async fn sync(State(s): State<Arc<Server>>, Form(f): Form<CsrfOnly>) -> Response {
    if let Some(r) = super::guard::csrf_refusal(&s, &f.csrf) {
        return r;
    }
    let done =
        blocking(|| crate::app::sync::run(&crate::app::sync::Source::Imap, false, false)).await;
    let notice = match done {
        Ok(Ok(out)) => Notice {
            ok: out.code == 0,
            text: out.text,
        },
        Ok(Err(e)) => Notice {
            ok: false,
            text: e.to_string(),
        },
        Err(r) => return r,
    };
    back_with(&s, "/", notice)
}

pub async fn asset(UrlPath(name): UrlPath<String>) -> Response {
    let (body, kind) = match name.as_str() {
        "style.css" => (STYLE, "text/css; charset=utf-8"),
        "app.js" => (SCRIPT, "text/javascript; charset=utf-8"),
        "icon.svg" => (ICON, "image/svg+xml"),
        _ => return not_found().await,
    };
    ([(header::CONTENT_TYPE, kind)], body).into_response()
}

pub async fn favicon() -> Response {
    ([(header::CONTENT_TYPE, "image/svg+xml")], ICON).into_response()
}

pub async fn not_found() -> Response {
    let body = html! {
        h1 { "No such page" }
        p { a href="/" { "Your games" } }
    };
    (
        StatusCode::NOT_FOUND,
        page_html("No such page", None, None, None, body),
    )
        .into_response()
}

#[cfg(test)]
mod form_tests {
    use super::new_game_of;
    use crate::games::registry;

    /// Every flag a game offers on the new-game form reaches the game: a
    /// flag that `new_game_of` does not know would be dropped without a
    /// word, and a new game's form would quietly ignore it.
    #[test]
    fn every_form_flag_of_every_game_reaches_the_new_game() {
        for entry in &registry::ALL {
            let base = vec![
                (
                    "players".to_string(),
                    "a@example.org, b@example.org".to_string(),
                ),
                ("deadline".to_string(), "14d".to_string()),
            ];
            let without = format!("{:?}", new_game_of(entry, &base, false));
            for (flag, _, example) in entry.form_flags {
                let mut with = base.clone();
                with.push((format!("flag:{flag}"), example.to_string()));
                let with = format!("{:?}", new_game_of(entry, &with, false));
                assert_ne!(
                    with, without,
                    "{}'s form flag {flag} is dropped by the new-game form (serve/pages.rs \
                     new_game_of)",
                    entry.name
                );
                assert!(with.contains(example), "{}: {flag}: {with}", entry.name);
            }
            // Every value of every variant's choice: a value reaches the
            // game as `--variant KEY=VALUE`; a placeholder (Star Map's
            // `LAYOUT`) wants the field typed below it, and then that field
            // sets the option, once.
            for (key, values, _) in (entry.variants)() {
                for value in values {
                    let mut with = base.clone();
                    with.push((format!("variant:{key}"), value.to_string()));
                    let Some((flag, _, example)) =
                        super::typed_flag_of(entry, key).filter(|_| super::is_placeholder(value))
                    else {
                        let new = new_game_of(entry, &with, false).unwrap();
                        assert_eq!(new.variants, [format!("{key}={value}")], "{}", entry.name);
                        continue;
                    };
                    let alone = new_game_of(entry, &with, false).unwrap_err().to_string();
                    assert!(
                        alone.contains("the field below it is empty") && alone.contains(example),
                        "{}: {alone}",
                        entry.name
                    );
                    with.push((format!("flag:{flag}"), example.to_string()));
                    let new = new_game_of(entry, &with, false).unwrap();
                    assert!(new.variants.is_empty(), "{new:?}");
                    assert!(format!("{new:?}").contains(example), "{new:?}");
                    // The default left as it came, with the field filled:
                    // the field's.
                    let values = (entry.variants)()
                        .into_iter()
                        .find(|(k, _, _)| *k == key)
                        .map(|(_, v, _)| v)
                        .unwrap();
                    with[2].1 = values[0].to_string();
                    let new = new_game_of(entry, &with, false).unwrap();
                    assert!(new.variants.is_empty(), "{new:?}");
                    assert!(format!("{new:?}").contains(example), "{new:?}");
                    // Another value chosen with the field filled as well:
                    // which is meant is asked, in the form's words.
                    with[2].1 = values[1].to_string();
                    let both = new_game_of(entry, &with, false).unwrap_err().to_string();
                    assert!(
                        both.contains("in the field below it as well") && !both.contains("twice"),
                        "{}: {both}",
                        entry.name
                    );
                }
            }
        }
    }
}
