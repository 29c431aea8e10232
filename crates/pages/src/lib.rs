//! What a game page shows, as HTML: one implementation for `starry serve`
//! and the web player. The page is the player's own view, as `starry view`
//! draws it, with the places of their next click as links (the engine's
//! list of legal moves, [`starry_core::own::own_moves`], walked one click
//! at a time by [`Game::move_clicks`]); a whole move is previewed by a dry
//! run of the writer and signed only when confirmed.
//!
//! Pure, like the core it draws from: the log, the player's identity and
//! the time come in as values; nothing here reads a file or a clock. Where
//! the page is shown decides how its links and forms are addressed (a
//! [`Site`]), and who handles the forms.
//!
//! # The forms' contract
//!
//! Every change is a POST form to [`Site::action`], carrying first the
//! fields of [`Site::hidden`] (serve: `csrf`), then:
//! - `entries=<N>`: the number of entries of the log the page was drawn
//!   from. The handler refuses the action when the log no longer has
//!   exactly that many (the stale-copy guard: the page showed another
//!   position).
//! - `what=<action>`: one of `join`, `ready`, `reveal`, `countersign`,
//!   `play` (with `move=<notation>`, as `starry play` takes it), `resign`
//!   and `abandon` (a claim that the awaited player stopped answering).
//!   `resign` and `abandon` are confirmed first: without `confirm=yes` the
//!   handler shows the page asking ([`Ask::confirm`], address
//!   `…confirm=resign`); the confirming form carries `confirm=yes`.
//!
//! The page's own links and GET forms are addressed by
//! [`Site::game_href`] with an [`Ask`]: `pick=<click key>` (repeated, the
//! clicks so far), `move=<notation>` (a typed move or a request to
//! preview), `at=<N>` (the history stepper: the position after N entries),
//! `confirm=resign|abandon`. [`Ask::parse`] reads them back, bounded.

use maud::{Markup, PreEscaped, html};
use starry_core::clock;
use starry_core::crypto::identity::Identity;
use starry_core::error::LogFault;
use starry_core::games::{Click, Game, Seat};
use starry_core::history::{self, Event};
use starry_core::log::Replay;
use starry_core::log::replay::Action;
use starry_core::own::{self, OwnMoves};
use starry_core::picture::{Link, Links};
use starry_core::status::{self, StatusReport};

pub use starry_core::own::Dry;

/// The one stylesheet of `starry serve` and the web player.
pub const STYLE: &str = include_str!("style.css");

/// How the page's links and forms are addressed where it is shown.
pub trait Site {
    /// The game page with these clicks / this history step / typed move /
    /// question (an empty [`Ask`]: the game's own address).
    fn game_href(&self, id: &str, ask: &Ask) -> String;
    /// Where an action form posts to.
    fn action(&self, id: &str) -> String;
    /// Hidden fields every action form carries first (serve: the CSRF
    /// token; the web player: none).
    fn hidden(&self) -> Vec<(&'static str, String)>;
    /// The level of the page's title: 1 where the game page is a document
    /// of its own (serve), lower where it is shown under the site's own
    /// title (the web player: one `h1` per document). Its sections' headings
    /// are one level below.
    fn heading_level(&self) -> u8 {
        1
    }
    /// The dry run of `what` on the log of `entries` entries the page was
    /// drawn from, where the site has more to check than the core knows
    /// (serve: the player's home, whose record of what they signed in other
    /// copies may refuse it; the refusal then names the file). None: the
    /// core's own dry run ([`own::preview`]), which is what a site without
    /// files has.
    fn dry_run(&self, what: &Dry, entries: u64) -> Option<Result<DryRun, String>> {
        let _ = (what, entries);
        None
    }
}

/// What a dry run of an entry says, and the board after it.
#[derive(Clone, Debug, Default)]
pub struct DryRun {
    /// "Dry run, nothing written. Entry 7: Ann — placed …", and what else
    /// the writer would say of the entry (not the state after it: the
    /// page shows that).
    pub account: String,
    /// The board after the entry as SVG (escaped by the picture code);
    /// none before the setup.
    pub board: Option<String>,
}

/// Why a page cannot be drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PageError {
    /// The log does not replay.
    Log(LogFault),
    /// The player's own view cannot be had (their secrets do not open it).
    Other(String),
}

impl std::fmt::Display for PageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PageError::Log(fault) => write!(f, "{fault}"),
            PageError::Other(m) => f.write_str(m),
        }
    }
}

/// What the address of a game page asks for.
#[derive(Default, Clone, Debug, PartialEq, Eq)]
pub struct Ask {
    /// The clicks so far, as keys of [`Click`].
    pub picks: Vec<String>,
    /// A move typed in, to preview.
    pub typed: Option<String>,
    /// The position after this many entries (the history stepper).
    pub at: Option<u64>,
    /// `resign` or `abandon`, to be confirmed.
    pub confirm: Option<String>,
}

impl Ask {
    /// The query of a page's address (without `?`), bounded: a few clicks,
    /// a move of at most 200 bytes; anything else is left out.
    pub fn parse(query: &str) -> Ask {
        let mut a = Ask::default();
        for (k, v) in form_urlencoded::parse(query.as_bytes()) {
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

    /// The query this asks (without `?`; empty for the game's own page),
    /// in the order [`Ask::parse`] reads.
    pub fn query(&self) -> String {
        let mut q = form_urlencoded::Serializer::new(String::new());
        for p in &self.picks {
            q.append_pair("pick", p);
        }
        if let Some(t) = &self.typed {
            q.append_pair("move", t);
        }
        if let Some(n) = self.at {
            q.append_pair("at", &n.to_string());
        }
        if let Some(c) = &self.confirm {
            q.append_pair("confirm", c);
        }
        q.finish()
    }

    fn picks(picks: &[String]) -> Ask {
        Ask {
            picks: picks.to_vec(),
            ..Ask::default()
        }
    }
}

/// Text from a log, a mail or an error, safe to show: every control or
/// bidirectional-override character written as a visible escape (maud
/// escapes the HTML).
pub fn shown(text: &str) -> String {
    starry_core::text::terminal(text).into_owned()
}

/// Inline SVG from the picture code, which escapes everything it writes.
pub fn svg(markup: &str) -> PreEscaped<&str> {
    PreEscaped(markup)
}

/// An entry of the history in one line: "2026-11-23 19:18 — Ann joined."
pub fn event_line(e: &Event) -> String {
    format!("{} — {}", history::short_time(&e.time), e.text)
}

/// The page of the game whose log is `bytes`, as the identity `me` sees it
/// (none: a spectator's), at `now` (the log's time format); `notices` are
/// shown under the title. Its title, and its body.
pub fn game_page<G: Game>(
    site: &dyn Site,
    bytes: &[u8],
    me: Option<&Identity>,
    ask: &Ask,
    now: &str,
    notices: Markup,
) -> Result<(String, Markup), PageError> {
    let told = history::tell::<G>(bytes).map_err(PageError::Log)?;
    game_page_told(site, bytes, told, me, ask, now, notices)
}

/// [`game_page`] with the log told already (a program that keeps what it
/// verified before tells it faster).
pub fn game_page_told<G: Game>(
    site: &dyn Site,
    bytes: &[u8],
    (full, events): (Replay<G>, Vec<Event>),
    me: Option<&Identity>,
    ask: &Ask,
    now: &str,
    notices: Markup,
) -> Result<(String, Markup), PageError> {
    let total = full.len();
    let at = ask.at.filter(|&n| n >= 1 && n < total);
    // Claims that ended the game waiting for this player: the page shows
    // the position they answer, where their move still wins (protocol §7,
    // a lapsed claim), and `play` writes it there.
    let late = me
        .and_then(|me| full.seat_of_key(&me.public_key()))
        .and_then(|seat| clock::late_answer_at(&full, seat))
        .filter(|_| at.is_none());
    let r = match (at, late) {
        (Some(n), _) | (None, Some(n)) => {
            Replay::<G>::from_bytes_upto(bytes, n as usize).map_err(PageError::Log)?
        }
        (None, None) => full,
    };
    let id = hex_id(&r);
    let p = Page {
        site,
        id: &id,
        me,
        now,
        joined: me.and_then(|me| r.seat_of_key(&me.public_key())),
        status: status::status_of(&r, now),
        r,
        total,
        at,
        late,
        game_href: site.game_href(&id, &Ask::default()),
    };
    let title = format!(
        "{} — game {}",
        history::title(G::NAME),
        &p.status.game_id[..8]
    );
    let view = p.view()?;
    let moves = p.moves(ask)?;
    // A whole move: what the dry run says of it, and the position after.
    let preview = moves
        .chosen
        .as_ref()
        .map(|m| p.dry_run(&Dry::Move(m.clone())));
    let board = p.board(view.as_ref(), &moves.links, preview.as_ref());
    let text_view = view.as_ref().map(|v| G::render_text(v, &p.r.names()));
    let body = html! {
        (heading(site.heading_level(), None, html! { (title) }))
        (notices)
        (p.status_line())
        (p.happened(&events))
        (p.notices())
        (p.preview(moves.chosen.as_deref(), preview.as_ref()))
        @if let Some(c) = &ask.confirm {
            (p.confirm_section(c))
        }
        @if matches!(&preview, Some(Ok(d)) if d.board.is_some()) {
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
    Ok((title, body))
}

/// A heading of `level` (kept to h1–h6), of this id (the page's own, never
/// from a log) and content (escaped already).
fn heading(level: u8, id: Option<&str>, content: Markup) -> Markup {
    let n = level.clamp(1, 6);
    let id = id.map(|id| format!(" id=\"{id}\"")).unwrap_or_default();
    PreEscaped(format!("<h{n}{id}>{}</h{n}>", content.into_string()))
}

fn hex_id<G: Game>(r: &Replay<G>) -> String {
    r.game_id.iter().map(|b| format!("{b:02x}")).collect()
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

/// The next clicks after `picks` among the moves `om`, each with the
/// address that makes it (`href` of the clicks so far and it).
fn choosing<G: Game>(
    om: &OwnMoves<G>,
    href: &dyn Fn(&[String]) -> String,
    picks: &[String],
    names: &[String],
) -> Choosing {
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
            options.push((next.clone(), href(&more)));
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
    site: &'a dyn Site,
    id: &'a str,
    me: Option<&'a Identity>,
    now: &'a str,
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

impl<G: Game> Page<'_, G> {
    /// The position as this player sees it; none before the game begins.
    fn view(&self) -> Result<Option<G::View>, PageError> {
        Ok(match (&self.r.state, self.joined, self.me) {
            (Some(st), Some(se), Some(me)) => {
                Some(own::own_view(&self.r, st, se, me).map_err(PageError::Other)?)
            }
            (Some(st), _, _) => Some(G::view(st, None, None)),
            (None, _, _) => None,
        })
    }

    /// The moves offered: by clicks, or typed; none in the history, nor
    /// while a resignation or claim waits to be confirmed.
    fn moves(&self, ask: &Ask) -> Result<Moves, PageError> {
        let mut m = Moves::default();
        if self.at.is_some() || ask.confirm.is_some() {
            return Ok(m);
        }
        let Some(me) = self.me else {
            return Ok(m);
        };
        let Some(om) = own::own_moves(&self.r, me).map_err(PageError::Other)? else {
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
        let href = |picks: &[String]| self.site.game_href(self.id, &Ask::picks(picks));
        let c = choosing::<G>(&om, &href, &ask.picks, &names);
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

    /// The dry run of `what`: the site's, or the core's.
    fn dry_run(&self, what: &Dry) -> Result<DryRun, String> {
        if let Some(d) = self.site.dry_run(what, self.total) {
            return d;
        }
        let me = self
            .me
            .ok_or_else(|| "a spectator writes no entries".to_string())?;
        let late = self.late.map(|k| (k, self.total));
        let p = own::preview(&self.r, me, what, self.now, late)?;
        let board = p.view.map(|v| G::render_svg(&v, &p.after.names()));
        Ok(DryRun {
            account: p.account.trim_end().to_string(),
            board,
        })
    }

    /// The board: after the previewed move, or the position with the
    /// next clicks as links, or the waiting room's picture.
    fn board(
        &self,
        view: Option<&G::View>,
        links: &Links,
        preview: Option<&Result<DryRun, String>>,
    ) -> String {
        match (preview, view) {
            (Some(Ok(DryRun { board: Some(b), .. })), _) => b.clone(),
            (_, Some(v)) => G::render_svg_linked(v, &self.r.names(), links),
            (_, None) => status::waiting_picture(
                &status::picture_title(&self.r, &self.status, self.joined),
                &self.status,
            ),
        }
    }

    /// Whether the game waits for this player (never in the history): in
    /// the seat they hold, or, to join, the free one their email is invited to.
    fn mine_to_act(&self) -> bool {
        let Some(me) = self.me else {
            return false;
        };
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
                (shown(&status::status_text(&self.status).replace('\n', " ")))
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
                clock::short_deadline(&self.r.genesis, clock::DEFAULT_MIN_DEADLINE),
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
    fn preview(&self, chosen: Option<&str>, preview: Option<&Result<DryRun, String>>) -> Markup {
        html! {
            @if let Some(Err(e)) = preview {
                div.notice.error role="alert" { pre { (shown(e)) } }
            }
            @if let Some(Ok(d)) = preview {
                section.preview aria-labelledby="preview-h" {
                    (heading(self.site.heading_level().saturating_add(1), Some("preview-h"), html! { "Your move: " code { (shown(chosen.unwrap_or(""))) } }))
                    pre { (shown(&d.account)) }
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
                (heading(self.site.heading_level().saturating_add(1), Some("choose-h"), html! { "Your move" }))
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
            && clock::clock_or_default(r).0.is_some()
            && clock::claim_not_due(r, self.now).is_none();
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
    fn form(&self, what: &str, label: &str, extra: Option<(&str, &str)>) -> Markup {
        html! {
            form.inline method="post" action=(self.site.action(self.id)) {
                @for (k, v) in self.site.hidden() { input type="hidden" name=(k) value=(v); }
                input type="hidden" name="entries" value=(self.total);
                input type="hidden" name="what" value=(what);
                @if let Some((k, v)) = extra { input type="hidden" name=(k) value=(v); }
                button type="submit" { (label) }
            }
        }
    }

    /// The question before resigning or claiming abandonment, after a dry
    /// run that says whether the entry would be taken at all.
    fn confirm_section(&self, what: &str) -> Markup {
        let (todo, question) = match what {
            "resign" => (
                Dry::Resign,
                "Resign? The game ends with you placed last; this cannot be undone.",
            ),
            _ => (
                Dry::Abandon,
                "Claim that the player the game waits for has stopped answering? If every other \
                 player claims it too, the game ends with them placed last; until then an entry \
                 from them answers the claim.",
            ),
        };
        let dry = self.dry_run(&todo);
        let back = &self.game_href;
        html! {
            section.confirm aria-labelledby="confirm-h" {
                (heading(self.site.heading_level().saturating_add(1), Some("confirm-h"), html! { (question) }))
                @match &dry {
                    Ok(_) => {
                        form.inline method="post" action=(self.site.action(self.id)) {
                            @for (k, v) in self.site.hidden() { input type="hidden" name=(k) value=(v); }
                            input type="hidden" name="entries" value=(self.total);
                            input type="hidden" name="what" value=(what);
                            input type="hidden" name="confirm" value="yes";
                            button type="submit" { "Yes, " (what) }
                        }
                        " " a href=(back) { "No, back to the game" }
                    }
                    Err(e) => { p.error role="alert" { (shown(e)) } p { a href=(back) { "Back to the game" } } }
                }
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
            let ask = Ask {
                at: Some(n),
                ..Ask::default()
            };
            self.site.game_href(self.id, &ask)
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

#[cfg(test)]
mod tests;
