//! A game's page and its actions. The page is the player's own view, as
//! `starry view` draws it, with the places of their next click as links
//! (the engine's list of legal moves, [`crate::app::moves::own_moves`],
//! walked one click at a time by [`crate::games::Show::move_clicks`]); a
//! whole move is previewed by `play --dry-run` and written only when
//! confirmed, by the same call `starry play` makes.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::Form;
use axum::extract::{Path as UrlPath, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};
use serde::Deserialize;

use super::pages::{back_with, blocking, notice_of, page_html, problem, shown, svg};
use super::{Notice, Server};
use crate::app::act::{self, Do};
use crate::app::games::GameRow;
use crate::app::history::{self, Event};
use crate::app::moves::{OwnMoves, own_moves};
use crate::app::report::StatusReport;
use crate::app::{Output, status_of};
use crate::error::{Error, Result};
use crate::games::{Click, Game, Seat};
use crate::log::Replay;
use crate::log::replay::{Action, now};
use crate::picture::{Link, Links};
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

fn event_line(e: &Event) -> String {
    format!("{} — {}", history::short_time(&e.time), e.text)
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

/// What the address of a game page asks for.
#[derive(Default, Clone)]
struct Ask {
    /// The clicks so far, as keys of [`Click`].
    picks: Vec<String>,
    /// A move typed in, to preview.
    typed: Option<String>,
    /// The position after this many entries (the history stepper).
    at: Option<u64>,
    /// resign or abandon, to be confirmed.
    confirm: Option<String>,
}

impl Ask {
    fn parse(query: Option<&str>) -> Ask {
        let mut a = Ask::default();
        for (k, v) in form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
            match &*k {
                // A move is a few clicks; more is not a move.
                "pick" if a.picks.len() < 8 && v.len() <= 64 => a.picks.push(v.into_owned()),
                "move" if v.len() <= 200 && !v.trim().is_empty() => a.typed = Some(v.into_owned()),
                "at" => a.at = v.parse().ok(),
                "confirm" if v == "resign" || v == "abandon" => a.confirm = Some(v.into_owned()),
                _ => {}
            }
        }
        a
    }
}

fn href(id: &str, picks: &[String]) -> String {
    let mut q = form_urlencoded::Serializer::new(String::new());
    for p in picks {
        q.append_pair("pick", p);
    }
    let q = q.finish();
    if q.is_empty() {
        format!("/game/{id}")
    } else {
        format!("/game/{id}?{q}")
    }
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
    let ask = Ask::parse(q.as_deref());
    let stamp = super::live::file_stamp(&path);
    let server = s.clone();
    let done = blocking(move || {
        crate::app::inspect::open(
            &path,
            |bytes, game| with_game!(game, G => body::<G>(&server, &path, &id, bytes, &ask)),
        )
    })
    .await;
    match done {
        Ok(Ok((title, body, id))) => page_html(
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

/// Where the player stands in choosing a move.
enum Choosing {
    /// Pick one of `options` next; `picked` are the clicks made.
    Next {
        picked: Vec<Click>,
        options: Vec<(Click, String)>,
        /// The clicks asked for name no legal move now.
        lost: bool,
    },
    /// The clicks name this move.
    Chosen { notation: String },
}

fn choosing<G: Game>(om: &OwnMoves<G>, id: &str, picks: &[String], names: &[String]) -> Choosing {
    let paths: Vec<(usize, Vec<Click>)> = om
        .intents
        .iter()
        .enumerate()
        .flat_map(|(i, it)| {
            G::move_clicks(&om.state, it, names)
                .into_iter()
                .map(move |p| (i, p))
        })
        .collect();
    let fits = |picks: &[String]| -> Vec<&(usize, Vec<Click>)> {
        paths
            .iter()
            .filter(|(_, p)| {
                p.len() >= picks.len() && p.iter().zip(picks).all(|(c, k)| c.key == *k)
            })
            .collect()
    };
    let mut matching = fits(picks);
    let lost = matching.is_empty() && !picks.is_empty();
    let picks: &[String] = if lost { &[] } else { picks };
    if lost {
        matching = fits(picks);
    }
    let picked: Vec<Click> = matching
        .first()
        .map(|(_, p)| p[..picks.len()].to_vec())
        .unwrap_or_default();
    if let Some((i, _)) = matching.iter().find(|(_, p)| p.len() == picks.len()) {
        return Choosing::Chosen {
            notation: om.intents[*i].to_string(),
        };
    }
    let mut options: Vec<(Click, String)> = Vec::new();
    for (_, p) in &matching {
        let next = &p[picks.len()];
        if !options.iter().any(|(c, _)| c.key == next.key) {
            let mut more = picks.to_vec();
            more.push(next.key.clone());
            options.push((next.clone(), href(id, &more)));
        }
    }
    // The engine lists moves in its own order (a sky's stars by where
    // they lie); a person looks for a name in the order they read names.
    options.sort_by_cached_key(|(c, _)| reading_order(&c.key));
    Choosing::Next {
        picked,
        options,
        lost,
    }
}

/// Where `name` stands in the order a person reads names in: numbers by
/// their value (`leo:2` before `leo:10`, `f9` before `f10`), a run of
/// capitals as star labels are counted (`Z` before `AA`), other text
/// alphabetically.
fn reading_order(name: &str) -> Vec<(u8, usize, String)> {
    let class = |c: char| {
        if c.is_ascii_digit() {
            0
        } else if c.is_ascii_uppercase() {
            1
        } else {
            2
        }
    };
    let mut parts: Vec<(u8, usize, String)> = Vec::new();
    for c in name.chars() {
        match parts.last_mut() {
            Some((k, _, run)) if *k == class(c) => run.push(c),
            _ => parts.push((class(c), 0, c.to_string())),
        }
    }
    for (k, len, run) in &mut parts {
        match k {
            0 => {
                let digits = run.trim_start_matches('0').to_string();
                *len = digits.len();
                *run = digits;
            }
            1 => *len = run.len(),
            _ => *run = run.to_lowercase(),
        }
    }
    parts
}

/// What a game page is drawn from: the position shown (the whole log, a
/// step back in its history, or where a late answer goes) and the player's
/// place in it.
struct Page<'a, G: Game> {
    s: &'a Server,
    id: &'a str,
    r: Replay<G>,
    status: StatusReport,
    /// Entries in the whole log: what the forms expect to find there.
    total: u64,
    /// The history stepper's position, when not the last.
    at: Option<u64>,
    /// Where the claims that ended the game waiting for this player begin.
    late: Option<u64>,
    /// The seat this identity holds.
    joined: Option<Seat>,
    game_href: String,
}

/// The move being chosen: the board's links, and the move once whole.
#[derive(Default)]
struct Moves {
    links: Links,
    chosen: Option<String>,
    steps: Option<Choosing>,
    /// What may be said instead of a move (a takeback request): its
    /// notation and label.
    requests: Vec<(String, String)>,
}

/// The page's title and body.
fn body<G: Game>(
    s: &Server,
    path: &Path,
    id: &str,
    bytes: &[u8],
    ask: &Ask,
) -> Result<(String, Markup, String)> {
    let log_err = |fault| Error::Log {
        path: path.into(),
        fault,
    };
    let (full, events) = crate::app::cache::tell::<G>(bytes).map_err(log_err)?;
    let total = full.len();
    let at = ask.at.filter(|&n| n >= 1 && n < total);
    // Claims that ended the game waiting for this player: the page shows
    // the position they answer, where their move still wins (protocol §7,
    // a lapsed claim), and `play` writes it there.
    let late = full
        .seat_of_key(&s.identity.public_key())
        .and_then(|me| crate::app::clock::late_answer_at(&full, me))
        .filter(|_| at.is_none());
    let r = match (at, late) {
        (Some(n), _) | (None, Some(n)) => {
            Replay::<G>::from_bytes_upto(bytes, n as usize).map_err(log_err)?
        }
        (None, None) => full,
    };
    let p = Page {
        s,
        id,
        joined: r.seat_of_key(&s.identity.public_key()),
        status: status_of(&r),
        r,
        total,
        at,
        late,
        game_href: format!("/game/{id}"),
    };
    let title = format!(
        "{} — game {}",
        history::title(G::NAME),
        &p.status.game_id[..8]
    );
    let view = p.view()?;
    let moves = p.moves(ask)?;
    // A whole move: what `play --dry-run` says of it, and the position after.
    let preview = moves
        .chosen
        .as_ref()
        .map(|m| act::act_file_expecting(path, Do::Move(m.clone()), true, Some(total)));
    let board = p.board(view.as_ref(), &moves.links, preview.as_ref());
    let text_view = view.as_ref().map(|v| G::render_text(v, &p.r.names()));
    let body = html! {
        h1 { (title) }
        (p.status_line())
        (p.happened(&events))
        (p.notices())
        (p.preview(moves.chosen.as_deref(), preview.as_ref()))
        @if let Some(c) = &ask.confirm {
            (confirm_section(s, path, id, total, c))
        }
        @if matches!(&preview, Some(Ok(out)) if out.preview_svg.is_some()) {
            // The board after the move, not the game's: said above it, and
            // to a screen reader as the name of the group it is in.
            div.board.previewed role="group" aria-labelledby="board-caption" {
                p.caption id="board-caption" { "Preview: the board after your move, not written yet" }
                (svg(&board))
            }
        } @else {
            div.board { (svg(&board)) }
        }
        @if let Some(Choosing::Next { picked, options, lost }) = &moves.steps {
            (p.choices(picked, options, *lost, &moves.requests))
        }
        @if at.is_none() {
            (p.actions())
        }
        (p.stepper())
        @if let Some(t) = &text_view {
            details { summary { "The position in words" } pre { (shown(t)) } }
        }
        (p.history(&events))
    };
    Ok((title, body, id.to_string()))
}

impl<G: Game> Page<'_, G> {
    /// The position as this player sees it; none before the game begins.
    fn view(&self) -> Result<Option<G::View>> {
        Ok(match (&self.r.state, self.joined) {
            (Some(st), Some(se)) => Some(crate::app::own_view(&self.r, st, se, &self.s.identity)?),
            (Some(st), None) => Some(G::view(st, None, None)),
            (None, _) => None,
        })
    }

    /// The moves offered: by clicks, or typed; none in the history, nor
    /// while a resignation or claim waits to be confirmed.
    fn moves(&self, ask: &Ask) -> Result<Moves> {
        let mut m = Moves::default();
        if self.at.is_some() || ask.confirm.is_some() {
            return Ok(m);
        }
        let Some(om) = own_moves(&self.r, &self.s.identity)? else {
            return Ok(m);
        };
        if let Some(t) = &ask.typed {
            m.chosen = Some(t.clone());
            return Ok(m);
        }
        let names = self.r.names();
        m.requests = G::requests(&om.state, om.seat)
            .iter()
            .filter_map(|i| {
                let label = G::move_clicks(&om.state, i, &names)
                    .first()
                    .and_then(|way| way.first())
                    .map(|c| c.label.clone())?;
                Some((i.to_string(), label))
            })
            .collect();
        let c = choosing::<G>(&om, self.id, &ask.picks, &names);
        match &c {
            Choosing::Next {
                picked, options, ..
            } => {
                for p in picked {
                    m.links.insert(p.key.clone(), Link::Picked);
                }
                for (o, href) in options {
                    m.links.insert(
                        o.key.clone(),
                        Link::To {
                            href: href.clone(),
                            label: o.label.clone(),
                        },
                    );
                }
            }
            Choosing::Chosen { notation, .. } => m.chosen = Some(notation.clone()),
        }
        m.steps = Some(c);
        Ok(m)
    }

    /// The board: after the previewed move, or the position with the
    /// next clicks as links, or the waiting room's picture.
    fn board(
        &self,
        view: Option<&G::View>,
        links: &Links,
        preview: Option<&Result<Output>>,
    ) -> String {
        match (preview, view) {
            (Some(Ok(out)), _) if out.preview_svg.is_some() => {
                out.preview_svg.clone().unwrap_or_default()
            }
            (_, Some(v)) => G::render_svg_linked(v, &self.r.names(), links),
            (_, None) => crate::app::inspect::waiting_picture(
                &crate::app::inspect::picture_title(&self.r, &self.status, self.joined),
                &self.status,
            ),
        }
    }

    /// Whether the game waits for this player (never in the history): in
    /// the seat they hold, or, to join, the free one their email is invited to.
    fn mine_to_act(&self) -> bool {
        let me = &self.s.identity;
        let (action, to_act) = self.r.expected();
        let seat: Option<Seat> = self.r.seat_of_key(&me.public_key()).or_else(|| {
            (action == Action::Join)
                .then(|| self.r.seat_of_email(&me.email))
                .flatten()
                .filter(|&s| self.r.seats[s].key.is_none())
        });
        self.at.is_none() && seat.is_some() && to_act == seat
    }

    fn status_line(&self) -> Markup {
        html! {
            p.status id="status" data-entries=(self.total) {
                @if let Some(n) = self.at {
                    "After entry " (n - 1) " of " (self.total - 1) " (history). "
                }
                (shown(&crate::app::status_text(&self.status).replace('\n', " ")))
            }
        }
    }

    /// What the others did since this player's last entry, in the
    /// history's words: after a live refresh, what changed. A polite live
    /// region: the script hands its text to a screen reader again after a
    /// live refresh, since a region filled when the page loads is not
    /// announced.
    fn happened(&self, events: &[Event]) -> Markup {
        /// More than this many entries is a game long unseen: its history
        /// tells it.
        const SHOWN: usize = 6;
        let since = match (self.joined, self.at, self.late) {
            (Some(me), None, None) => history::since_last_entry_of(events, me),
            _ => &[],
        };
        let skipped = since.len().saturating_sub(SHOWN);
        html! {
            div.happened id="happened" role="status" aria-live="polite" {
                @if !since.is_empty() {
                    p {
                        strong { "Since your last entry: " }
                        @if skipped > 0 { (skipped) " earlier entries (see the history), then " }
                        @for (i, e) in since[skipped..].iter().enumerate() {
                            @if i > 0 { " " }
                            (shown(&e.text))
                        }
                    }
                }
            }
        }
    }

    /// Warnings before joining, and what a late answer does.
    fn notices(&self) -> Markup {
        let (action, _) = self.r.expected();
        html! {
            @if let (true, Action::Join, Some(why)) = (
                self.mine_to_act(),
                action,
                crate::app::clock::short_deadline(&self.r.genesis, crate::app::clock::DEFAULT_MIN_DEADLINE),
            ) {
                p.notice.error role="alert" {
                    "Before you join: " (why) ". starry's robot refuses such games; join only if \
                     you trust the other players."
                }
            }
            @if let Some(k) = self.late {
                p.notice role="status" {
                    "The others claimed that you had stopped answering, and the game ended with you \
                     placed last (entries " (k) " to " (self.total - 1) "). Your move still wins against \
                     those claims, however late: it is written in their place, and the game goes on. \
                     Only your own countersignature would settle the result, and this page never \
                     writes one."
                }
            }
        }
    }

    /// What the dry run says of the chosen move, and the form that writes it.
    fn preview(&self, chosen: Option<&str>, preview: Option<&Result<Output>>) -> Markup {
        html! {
            @if let Some(Err(e)) = preview {
                div.notice.error role="alert" { pre { (shown(&e.to_string())) } }
            }
            @if let Some(Ok(out)) = preview {
                section.preview aria-labelledby="preview-h" {
                    h2 id="preview-h" { "Your move: " code { (shown(chosen.unwrap_or(""))) } }
                    pre { (shown(&account_of(out))) }
                    p { "Nothing is written until you confirm." }
                    (self.form("play", "Confirm the move", chosen.map(|m| ("move", m))))
                    " "
                    a href=(self.game_href) { "Choose again" }
                }
            }
        }
    }

    /// The next clicks offered, and the field to type a move in.
    fn choices(
        &self,
        picked: &[Click],
        options: &[(Click, String)],
        lost: bool,
        requests: &[(String, String)],
    ) -> Markup {
        let placeholder = self
            .r
            .state
            .as_ref()
            .map(|st| G::notation(st).0)
            .unwrap_or_default();
        let game_href = &self.game_href;
        html! {
            section.choose aria-labelledby="choose-h" {
                h2 id="choose-h" { "Your move" }
                @if lost { p.error role="alert" { "That choice is not open in this position; choose again." } }
                @if !picked.is_empty() {
                    p { "Chosen: " @for (i, p) in picked.iter().enumerate() { @if i > 0 { " › " } strong { (shown(&p.label)) } } " — " a href=(game_href) { "start again" } }
                }
                p { (if picked.is_empty() { "Choose:" } else { "Then:" }) }
                ul.choices {
                    @for (o, href) in options { li { a.choice href=(href) { (shown(&o.label)) } } }
                }
                @if picked.is_empty() && !requests.is_empty() {
                    // Previewed and confirmed as a move is.
                    p.requests {
                        "Instead of a move: "
                        @for (notation, label) in requests {
                            form.inline method="get" action=(game_href) {
                                input type="hidden" name="move" value=(notation);
                                button type="submit" { (shown(&sentence_case(label))) }
                            }
                            " "
                        }
                    }
                }
                form method="get" action=(game_href) {
                    label for="typed" { "Or type a move" } " "
                    input id="typed" name="move" size="16" placeholder=(placeholder);
                    " " button type="submit" { "Preview" }
                }
            }
        }
    }

    /// The forms for what this player may do now besides moving.
    fn actions(&self) -> Markup {
        let r = &self.r;
        let joined = self.joined;
        let (action, to_act) = r.expected();
        let claim_due = !r.is_over()
            && joined.is_some()
            && to_act.is_some()
            && to_act != joined
            && crate::app::clock::clock_or_default(r).0.is_some()
            && crate::app::clock::check_claim_due(r, &now()).is_ok();
        let countersign = r.is_over() && joined.is_some_and(|se| !r.countersigned.contains(&se));
        html! {
            section.actions aria-label="actions" {
                @if self.mine_to_act() {
                    @match action {
                        Action::Join => { (self.form("join", "Join the game", None)) }
                        Action::Ready => { (self.form("ready", "Ready", None)) }
                        Action::Reveal => { (self.form("reveal", "Reveal my tokens", None)) }
                        _ => {}
                    }
                }
                @if countersign { (self.form("countersign", "Countersign the result", None)) }
                @if claim_due { " " (self.form("abandon", "Claim abandonment…", None)) }
                @if joined.is_some() && !r.is_over() && r.state.is_some() { " " (self.form("resign", "Resign…", None)) }
            }
        }
    }

    /// A button that posts `what`, refused if the log has changed since.
    fn form(&self, what: &'static str, label: &str, extra: Option<(&str, &str)>) -> Markup {
        html! {
            form.inline method="post" action={ "/game/" (self.id) "/act" } {
                input type="hidden" name="csrf" value=(self.s.csrf);
                input type="hidden" name="entries" value=(self.total);
                input type="hidden" name="what" value=(what);
                @if let Some((k, v)) = extra { input type="hidden" name=(k) value=(v); }
                button type="submit" { (label) }
            }
        }
    }

    /// The entry shown, counted from one.
    fn cur(&self) -> u64 {
        self.at.unwrap_or(self.total)
    }

    /// The page after `n` entries; the last is the game's own address.
    fn step(&self, n: u64) -> String {
        if n >= self.total {
            self.game_href.clone()
        } else {
            format!("/game/{}?at={n}", self.id)
        }
    }

    fn stepper(&self) -> Markup {
        let (cur, total) = (self.cur(), self.total);
        html! {
            nav.stepper aria-label="history" {
                @if cur > 1 { a href=(self.step(1)) { "« First" } " " a rel="prev" href=(self.step(cur - 1)) { "‹ Back" } }
                @else { span aria-disabled="true" { "« First ‹ Back" } }
                " " span { "entry " (cur.saturating_sub(1)) " of " (total.saturating_sub(1)) } " "
                @if cur < total { a rel="next" href=(self.step(cur + 1)) { "Forward ›" } " " a href=(self.game_href) { "Last »" } }
                @else { span aria-disabled="true" { "Forward › Last »" } }
            }
        }
    }

    fn history(&self, events: &[Event]) -> Markup {
        let cur = self.cur();
        html! {
            details.history open[self.at.is_some()] {
                summary { "History (" (events.len()) " entries)" }
                ol start="0" {
                    @for (i, e) in events.iter().enumerate() {
                        li aria-current=[(i as u64 + 1 == cur).then_some("step")] { a href=(self.step(i as u64 + 1)) { (shown(&event_line(e))) } }
                    }
                }
            }
        }
    }
}

/// "Ask to take back …" from "ask to take back …".
fn sentence_case(label: &str) -> String {
    let mut c = label.chars();
    match c.next() {
        Some(first) => first.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// The question before resigning or claiming abandonment, after a dry run
/// that says whether the command would be taken at all.
fn confirm_section(s: &Server, path: &Path, id: &str, total: u64, what: &str) -> Markup {
    let (todo, question) = match what {
        "resign" => (
            Do::Resign,
            "Resign? The game ends with you placed last; this cannot be undone.",
        ),
        _ => (
            Do::Abandon,
            "Claim that the player the game waits for has stopped answering? If every other \
             player claims it too, the game ends with them placed last; until then an entry \
             from them answers the claim.",
        ),
    };
    let dry = act::act_file_expecting(path, todo, true, Some(total));
    html! {
        section.confirm aria-labelledby="confirm-h" {
            h2 id="confirm-h" { (question) }
            @match &dry {
                Ok(_) => {
                    form.inline method="post" action={ "/game/" (id) "/act" } {
                        input type="hidden" name="csrf" value=(s.csrf);
                        input type="hidden" name="entries" value=(total);
                        input type="hidden" name="what" value=(what);
                        input type="hidden" name="confirm" value="yes";
                        button type="submit" { "Yes, " (what) }
                    }
                    " " a href={ "/game/" (id) } { "No, back to the game" }
                }
                Err(e) => { p.error role="alert" { (shown(&e.to_string())) } p { a href={ "/game/" (id) } { "Back to the game" } } }
            }
        }
    }
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

#[cfg(test)]
mod tests {
    use super::reading_order;

    /// Names sort as people read them: numbers by value, star labels as
    /// they are counted, words alphabetically.
    #[test]
    fn choices_sort_in_reading_order() {
        let mut names = vec![
            "star AA",
            "star leo:10",
            "star Z",
            "square f10",
            "star B",
            "star leo:2",
            "square f9",
            "star cygnus:1",
            "square a10",
            "token 12",
            "token 3",
        ];
        names.sort_by_cached_key(|n| reading_order(n));
        assert_eq!(
            names,
            [
                "square a10",
                "square f9",
                "square f10",
                "star B",
                "star Z",
                "star AA",
                "star cygnus:1",
                "star leo:2",
                "star leo:10",
                "token 3",
                "token 12",
            ]
        );
    }
}
