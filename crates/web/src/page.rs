//! TEMPORARY game page. The "pages" helper of issue 34 moves `starry
//! serve`'s game page into crates/pages (`starry_pages::game_page(site,
//! bytes, me, ask, now, notices)`), one implementation for serve and this
//! player; at the merge the `page` op calls it with the web's `Site`
//! (links `?game=<id>&pick=…`, forms posting to `?game=<id>`, no hidden
//! fields) and this file goes. Until then it draws what the player needs to
//! play: the board as `view --format svg` draws it, the legal next clicks
//! (the engine's own `move_clicks`) as links on it and beside it, and the
//! action forms with the fields the page contract names (`what`, `move`,
//! `entries`).

use maud::{Markup, PreEscaped, html};
use starry_core::crypto::identity::Identity;
use starry_core::games::{Click, Game, Seat};
use starry_core::log::{Action, Replay};
use starry_core::picture::{Link, Links};

/// Where the player stands in choosing a move, from the page's address.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ask {
    pub picks: Vec<String>,
    pub typed: Option<String>,
}

/// The longest address query read, and the most picks in it: a move is a
/// few clicks.
const MAX_QUERY: usize = 4096;
const MAX_PICKS: usize = 16;

impl Ask {
    /// Reads `pick=…` (repeated) and `move=…` from a query, bounded.
    pub fn parse(query: &str) -> Ask {
        let q = query.strip_prefix('?').unwrap_or(query);
        let q = q.get(..MAX_QUERY).unwrap_or(q);
        let mut ask = Ask::default();
        for (k, v) in form_urlencoded::parse(q.as_bytes()) {
            match k.as_ref() {
                "pick" if ask.picks.len() < MAX_PICKS => ask.picks.push(v.into_owned()),
                "move" if !v.trim().is_empty() => ask.typed = Some(v.trim().to_string()),
                _ => {}
            }
        }
        ask
    }
}

/// The page's address for these picks.
fn href(id: &str, picks: &[String]) -> String {
    let mut s = form_urlencoded::Serializer::new(String::new());
    s.append_pair("game", id);
    for p in picks {
        s.append_pair("pick", p);
    }
    format!("?{}", s.finish())
}

/// The own position and moves of `me` when the game waits for their move.
struct Mine<G: Game> {
    seat: Seat,
    state: G::State,
    own: starry_core::games::Own<G::Hidden>,
    intents: Vec<G::Intent>,
}

fn mine<G: Game>(r: &Replay<G>, me: &Identity) -> Result<Option<Mine<G>>, String> {
    let Some(seat) = r.seat_of_key(&me.public_key()) else {
        return Ok(None);
    };
    let (Some(state), Some(secret)) = (r.state.as_ref(), r.game_secret(me, seat)) else {
        return Ok(None);
    };
    let own = r.own_hidden(&secret, seat)?;
    let (action, who) = r.expected();
    let state = match r.next_link(&secret, seat) {
        Some(l) if action == Action::Move && who == Some(seat) => {
            r.preview(seat, &l).unwrap_or_else(|| state.clone())
        }
        _ => state.clone(),
    };
    let intents = if action == Action::Move && who == Some(seat) {
        G::intents(&state, seat, &own)
    } else {
        Vec::new()
    };
    Ok(Some(Mine {
        seat,
        state,
        own,
        intents,
    }))
}

/// The next clicks after `picks` (their key, label and address), or the
/// move the picks name.
fn choosing<G: Game>(
    m: &Mine<G>,
    id: &str,
    picks: &[String],
    names: &[String],
) -> (Vec<(Click, String)>, Option<String>) {
    let paths: Vec<(usize, Vec<Click>)> = m
        .intents
        .iter()
        .enumerate()
        .flat_map(|(i, it)| {
            G::move_clicks(&m.state, it, names)
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
    let mut picks = picks;
    let mut matching = fits(picks);
    if matching.is_empty() {
        picks = &[];
        matching = fits(picks);
    }
    if let Some((i, _)) = matching.iter().find(|(_, p)| p.len() == picks.len()) {
        return (Vec::new(), Some(m.intents[*i].to_string()));
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
    (options, None)
}

/// One action form: `what`, the stale-copy guard, and a button.
fn form(id: &str, what: &str, entries: u64, notation: Option<&str>, label: &str) -> Markup {
    html! {
        form method="post" action=(format!("?game={id}")) {
            input type="hidden" name="what" value=(what);
            input type="hidden" name="entries" value=(entries);
            @if let Some(n) = notation { input type="hidden" name="move" value=(n); }
            button type="submit" { (label) }
        }
    }
}

/// The page's title and body for the log `bytes`, seen by `me`.
pub fn game_page<G: Game>(
    bytes: &[u8],
    me: Option<&Identity>,
    ask: &Ask,
    now: &str,
) -> Result<(String, Markup), String> {
    let r = Replay::<G>::from_bytes(bytes)
        .map_err(|f| format!("the game's log does not verify: {f}"))?;
    let id = hex::encode(r.game_id);
    let title = format!("{} {}", starry_core::games::title_of(G::NAME), &id[..8]);
    let names = r.names();
    let (action, who) = r.expected();
    let seat = me.and_then(|i| r.seat_of_key(&i.public_key()));
    let mine = match me {
        Some(i) => mine::<G>(&r, i)?,
        None => None,
    };
    let (options, mut chosen) = match &mine {
        Some(m) if !m.intents.is_empty() => choosing::<G>(m, &id, &ask.picks, &names),
        _ => (Vec::new(), None),
    };
    if mine.as_ref().is_some_and(|m| !m.intents.is_empty())
        && let Some(t) = &ask.typed
    {
        chosen = Some(t.clone());
    }
    let mut links = Links::default();
    for p in &ask.picks {
        links.insert(p.clone(), Link::Picked);
    }
    for (c, h) in &options {
        links.insert(
            c.key.clone(),
            Link::To {
                href: h.clone(),
                label: c.label.clone(),
            },
        );
    }
    let board = match (&mine, r.state.as_ref()) {
        (Some(m), _) => Some(G::render_svg_linked(
            &G::view(&m.state, Some(m.seat), Some(&m.own)),
            &names,
            &links,
        )),
        (None, Some(st)) => Some(G::render_svg_linked(
            &G::view(st, None, None),
            &names,
            &links,
        )),
        (None, None) => None,
    };
    let status = match who {
        _ if r.is_over() => "The game is over.".to_string(),
        Some(w) if Some(w) == seat => format!("Your turn: {}.", action.as_str()),
        Some(w) => format!("Waiting for {} ({}).", r.name(w), action.as_str()),
        None => String::new(),
    };
    let entries = r.len();
    let may_join = action == Action::Join
        && me.is_some_and(|i| seat.is_none() && who.is_some() && r.seat_of_email(&i.email) == who);
    let to_me = who.is_some() && who == seat && !r.is_over();
    let requests: Vec<(String, String)> = match &mine {
        Some(m) if !m.intents.is_empty() => G::requests(&m.state, m.seat)
            .iter()
            .filter_map(|i| {
                let label = G::move_clicks(&m.state, i, &names)
                    .first()?
                    .first()?
                    .label
                    .clone();
                Some((i.to_string(), label))
            })
            .collect(),
        _ => Vec::new(),
    };
    let countersign = r.is_over() && seat.is_some_and(|s| !r.countersigned.contains(&s));
    let claim = !r.is_over()
        && seat.is_some()
        && who.is_some()
        && who != seat
        && crate::clock::claim_due(&r, now);
    let body = html! {
        h2 { (title) }
        p.status role="status" { (status) }
        p.players { "Players: " (names.join(", ")) }
        @if let Some(svg) = &board { div.board { (PreEscaped(svg)) } }
        @if !options.is_empty() {
            nav.choices aria-label="Next click" {
                ul { @for (c, h) in &options { li { a href=(h) { (c.label) } } } }
            }
            @if !ask.picks.is_empty() { p { a href=(href(&id, &[])) { "Start the move again" } } }
        }
        @if let Some(n) = &chosen {
            p.preview { "Your move: " code { (n) } ". Nothing is signed until you confirm." }
            (form(&id, "move", entries, Some(n), "Sign and play this move"))
            p { a href=(href(&id, &[])) { "Choose another move" } }
        }
        div.actions {
            @if may_join { (form(&id, "join", entries, None, "Join this game")) }
            @if to_me && action == Action::Ready { (form(&id, "ready", entries, None, "Get ready")) }
            @if to_me && action == Action::Reveal { (form(&id, "reveal", entries, None, "Reveal")) }
            @for (n, label) in &requests { (form(&id, "move", entries, Some(n), label)) }
            @if claim { (form(&id, "abandon", entries, None, "Claim they stopped answering")) }
            @if countersign { (form(&id, "countersign", entries, None, "Countersign the result")) }
            @if seat.is_some() && !r.is_over() && r.state.is_some() { (form(&id, "resign", entries, None, "Resign")) }
        }
        @if to_me && action == Action::Move {
            form.typed method="get" action="?" {
                input type="hidden" name="game" value=(id);
                label { "Or type a move: " input type="text" name="move" autocomplete="off"; }
                button type="submit" { "Preview" }
            }
        }
    };
    Ok((title, body))
}
