//! `starry moves`: every legal move of the player who must act, each
//! written as `starry play` accepts it, grouped in the game's own words.
//!
//! The list is [`Game::intents`] for the position the player's own program
//! sees (their face-down values, and the random events their next entry
//! resolves), so it is exactly what `play` would accept now: no other
//! list of moves exists to drift from it. Only the player to act can have
//! it; for anyone else the command says whose turn it is and what to run.

use std::path::Path;

use schemars::JsonSchema;
use serde::Serialize;

use super::Output;
use super::inspect::{open, viewer_identity};
use crate::error::{Error, Result};
use crate::games::Game;
use crate::log::Replay;
use crate::log::replay::Action;
use crate::with_game;

/// Widest line of the text list, in characters.
const WIDTH: usize = 96;

/// `starry moves`.
#[derive(Serialize, JsonSchema, Debug, Clone)]
pub struct MovesReport {
    pub game: String,
    /// Hex id of the game (hash of the genesis line).
    pub game_id: String,
    pub entries: u64,
    /// What the next entry must be.
    pub action: Action,
    /// The seat that must write it, 0-based (see docs/json.md); null once
    /// the game is over.
    pub to_act_seat: Option<u32>,
    /// Whether that seat is yours: only then are its moves listed.
    pub yours: bool,
    /// How many legal moves there are (0 unless `action` is `move` and the
    /// seat is yours).
    pub count: u64,
    /// The moves, in order, at most `--limit` of them.
    pub moves: Vec<MoveItem>,
    /// What to do instead, when there is nothing to list (whose turn it
    /// is, or the command the player's next entry takes); null when the
    /// moves are listed.
    pub hint: Option<String>,
}

/// One legal move.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
pub struct MoveItem {
    /// The move as `starry play` accepts it.
    #[serde(rename = "move")]
    pub notation: String,
    /// Its group and subgroup, in the game's words (Starry Sky: `token 10`,
    /// `leo`; Star Map: `corner1 r90`; Starry Night: `star A`).
    pub group: Vec<String>,
}

/// `starry moves`: at most `limit` of them listed (the count of all is
/// still given).
pub fn moves(path: &Path, limit: Option<usize>) -> Result<Output> {
    let id = viewer_identity()?;
    open(path, |bytes, game| {
        with_game!(game, G => {
            let r = super::cache::replay::<G>(bytes).map_err(|fault| Error::Log { path: path.into(), fault })?;
            let file = super::file_arg(&r.game_id, path);
            // Claims that ended the game waiting for this player: their
            // move still wins (protocol §7), in the position the claims
            // answer; `play` writes it there.
            let late = id.as_ref().and_then(|i| r.seat_of_key(&i.public_key())).and_then(|me| super::clock::late_answer_at(&r, me));
            let r = match late {
                Some(k) => Replay::<G>::from_bytes_upto(bytes, k as usize).map_err(|fault| Error::Log { path: path.into(), fault })?,
                None => r,
            };
            let mut report = list::<G>(&r, id.as_ref(), limit)?;
            report.hint = hint::<G>(&r, &report, &file);
            let mut text = text::<G>(&report, &file);
            if let Some(k) = late {
                text.insert_str(0, &format!(
                    "The others claimed that you had stopped answering, and the game ended with you placed \
                     last. Your move still wins against those claims, however late: `starry play` writes it \
                     at entry {k}, in their place, and the game goes on.\n"
                ));
            }
            Ok(Output::new(text, &report))
        })
    })
}

/// The legal moves of the seat to act, if it is `id`'s.
fn list<G: Game>(
    r: &Replay<G>,
    id: Option<&crate::crypto::identity::Identity>,
    limit: Option<usize>,
) -> Result<MovesReport> {
    let (action, to_act) = r.expected();
    // A seat still to join has no key in the log yet: it is known by the
    // address it was invited with.
    let mine = id.and_then(|i| {
        r.seat_of_key(&i.public_key()).or_else(|| {
            (action == Action::Join)
                .then(|| r.seat_of_email(&i.email))
                .flatten()
                .filter(|&s| r.seats[s].key.is_none())
        })
    });
    let yours = to_act.is_some() && to_act == mine;
    let mut report = MovesReport {
        game: G::NAME.into(),
        game_id: hex::encode(r.game_id),
        entries: r.len(),
        action,
        to_act_seat: to_act.map(|s| s as u32),
        yours,
        count: 0,
        moves: Vec::new(),
        hint: None,
    };
    let (Some(id), true) = (id, yours) else {
        return Ok(report);
    };
    let Some(OwnMoves { state, intents, .. }) = own_moves(r, id)? else {
        return Ok(report);
    };
    report.count = intents.len() as u64;
    report.moves = intents
        .iter()
        .take(limit.unwrap_or(usize::MAX))
        .map(|i| MoveItem {
            notation: i.to_string(),
            group: G::move_group(&state, i),
        })
        .collect();
    Ok(report)
}

pub use starry_core::own::OwnMoves;

/// [`OwnMoves`] for `id`, when the game waits for a move of theirs; the
/// one list `moves`, `play` and `starry serve` all take moves from
/// ([`starry_core::own::own_moves`]).
pub fn own_moves<G: Game>(
    r: &Replay<G>,
    id: &crate::crypto::identity::Identity,
) -> Result<Option<OwnMoves<G>>> {
    starry_core::own::own_moves(r, id).map_err(Error::Other)
}

/// What to do instead, when there is no list: whose turn it is, or which
/// command the player's next entry takes.
fn hint<G: Game>(r: &Replay<G>, report: &MovesReport, file: &str) -> Option<String> {
    let who = |s: u32| crate::text::inline(&r.name(s as usize)).to_string();
    let file = crate::text::inline(file);
    match (report.action, report.to_act_seat) {
        (Action::Over, _) | (_, None) => Some("The game is over: there are no moves.".into()),
        (action, Some(s)) if !report.yours => Some(format!(
            "It is {}'s turn ({}). Only their program can list their moves: they depend on \
             what they alone hold.",
            who(s),
            action.as_str()
        )),
        (Action::Move, Some(_)) if report.count == 0 => {
            Some("You have no legal move (the engine should have skipped you).".into())
        }
        (Action::Move, Some(_)) => None,
        (action, Some(_)) => Some(format!(
            "Your next entry is not a move: run `starry {} {file}`.",
            action.as_str()
        )),
    }
}

/// The list for a terminal: each group on its lines, moves wrapped; or
/// the hint.
fn text<G: Game>(report: &MovesReport, file: &str) -> String {
    let head = format!(
        "{} — game {} — {}\n",
        super::history::title(G::NAME),
        &report.game_id[..16],
        crate::text::count(report.entries, "entry", "entries")
    );
    let body = match &report.hint {
        Some(h) => format!("{h}\n"),
        None => grouped(report, &crate::text::inline(file)),
    };
    head + &body
}

fn grouped(report: &MovesReport, file: &str) -> String {
    let mut out = format!(
        "Your {}:\n",
        crate::text::count(report.count, "legal move", "legal moves")
    );
    // Groups in the order of their first move; the count of each is of the
    // moves shown.
    let mut tops: Vec<(&str, Vec<&MoveItem>)> = Vec::new();
    for m in &report.moves {
        let top = m.group.first().map_or("", String::as_str);
        match tops.iter_mut().find(|(t, _)| *t == top) {
            Some((_, v)) => v.push(m),
            None => tops.push((top, vec![m])),
        }
    }
    for (top, items) in tops {
        let mut subs: Vec<(&str, Vec<&str>)> = Vec::new();
        for m in &items {
            let sub = m.group.get(1).map_or("", String::as_str);
            match subs.iter_mut().find(|(t, _)| *t == sub) {
                Some((_, v)) => v.push(&m.notation),
                None => subs.push((sub, vec![&m.notation])),
            }
        }
        let top = crate::text::inline(top);
        if subs.len() == 1 && subs[0].0.is_empty() {
            wrap(&mut out, &format!("{top} ({}): ", items.len()), &subs[0].1);
            continue;
        }
        out.push_str(&format!("{top} ({})\n", items.len()));
        for (sub, moves) in subs {
            let sub = crate::text::inline(sub);
            wrap(&mut out, &format!("  {sub} ({}): ", moves.len()), &moves);
        }
    }
    let shown = report.moves.len() as u64;
    if shown < report.count {
        out.push_str(&format!(
            "… and {} more (shown: the first {shown}; leave out --limit to see all).\n",
            report.count - shown
        ));
    }
    if let Some(first) = report.moves.first() {
        out.push_str(&format!(
            "Play one with `starry play {file} \"{}\"`.\n",
            crate::text::inline(&first.notation)
        ));
    }
    out
}

/// `lead` then `moves` two spaces apart, wrapped under the lead's indent.
fn wrap(out: &mut String, lead: &str, moves: &[&str]) {
    let indent = " ".repeat(lead.chars().take_while(|c| *c == ' ').count() + 4);
    let mut line = lead.to_string();
    let mut fresh = true;
    for m in moves {
        let m = crate::text::inline(m);
        if !fresh && line.chars().count() + 2 + m.chars().count() > WIDTH {
            out.push_str(line.trim_end());
            out.push('\n');
            line = indent.clone();
            fresh = true;
        }
        if !fresh {
            line.push_str("  ");
        }
        line.push_str(&m);
        fresh = false;
    }
    out.push_str(line.trim_end());
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::bot::{BotRng, World, random_move};
    use crate::games::{Own, play_own};

    /// On every position of the random game of `seats` seats seeded with
    /// `seed`, the list is exactly the moves the engine accepts: each listed move
    /// reads back as itself from its own notation, in any case and spacing,
    /// and plays; and any move listed at an earlier position of the game
    /// that reads and plays here is one of the listed moves. (Other ways to
    /// say a move, such as `B-A` for `A-B` or `first me`, are `play`'s
    /// conveniences; the list writes each move one way.)
    /// Returns how many positions there were.
    fn list_is_what_play_accepts<G: Game>(seats: usize, seed: u64) -> usize {
        let mut positions = 0;
        let mut rng = BotRng::seeded(seed);
        let options = G::options(&[], None).expect("default options");
        let state = G::setup(&options, seats, &mut rng.draw()).expect("setup");
        let mut world = World::<G>::new(state, vec![Own::default(); seats], 1);
        let mut seen: BTreeSet<String> = BTreeSet::new();
        world
            .rollout(&mut rng, 400, &mut |state, seat, own, rng| {
                positions += 1;
                let listed = G::intents(state, seat, own);
                assert!(!listed.is_empty(), "a seat to move has a move");
                let written: BTreeSet<String> = listed.iter().map(|i| i.to_string()).collect();
                assert_eq!(written.len(), listed.len(), "two moves are written alike");
                // The move a text makes, if `play` takes it: what the
                // log records (the action, the values committed to,
                // those opened) and the intent it was read as.
                let plays = |text: &str| {
                    let intent = G::parse_intent(state, text).ok()?;
                    let sealed = G::seal(state, seat, &intent, own).ok()?;
                    let (mut s, mut o) = (state.clone(), own.clone());
                    play_own::<G>(&mut s, seat, &intent, &mut o, 10_000).ok()?;
                    Some((intent, (sealed.action, sealed.hidden, sealed.reveals)))
                };
                let recorded: Vec<_> = listed
                    .iter()
                    .map(|i| plays(&i.to_string()).expect("a listed move plays").1)
                    .collect();
                for i in &listed {
                    let text = i.to_string();
                    assert_eq!(plays(&text).map(|p| p.0).as_ref(), Some(i), "`{text}`");
                    let group = G::move_group(state, i);
                    assert!(
                        (1..=2).contains(&group.len()) && group.iter().all(|g| !g.is_empty()),
                        "`{text}`: {group:?}"
                    );
                }
                clicks_name_the_listed_moves::<G>(state, seat, own, &listed);
                // Case and spacing do not matter to `play`: another
                // spelling of a listed move is that move.
                for i in &listed {
                    let text = i.to_string();
                    for spelt in [
                        text.to_uppercase(),
                        format!("  {}  ", text.replace(' ', "   ")),
                    ] {
                        assert_eq!(plays(&spelt).map(|p| p.0).as_ref(), Some(i), "`{spelt}`");
                    }
                }
                // The moves of earlier positions, which mostly are not
                // legal now: any that plays makes a move the list
                // holds (perhaps written another way: a Star Map draw
                // named although only one stack can give). Every few
                // of them once there are many: a debug build reads
                // each in each position.
                for text in seen.iter().step_by(seen.len() / 150 + 1) {
                    if let Some((intent, record)) = plays(text) {
                        assert!(
                            recorded.contains(&record),
                            "`{text}` plays but is not listed ({intent})"
                        );
                    }
                }
                seen.extend(written);
                random_move::<G>(state, seat, own, rng)
            })
            .expect("a random game plays");
        positions
    }

    /// `starry serve`'s clicks: every listed move has a way to be
    /// clicked; a whole way names that move and no other, and is not the
    /// start of another way (a move is chosen when its clicks end); and
    /// every key that names a place (a star, a token or a disc of the hand,
    /// a square) is a link in the picture of the seat's own view.
    fn clicks_name_the_listed_moves<G: Game>(
        state: &G::State,
        seat: crate::games::Seat,
        own: &Own<G::Hidden>,
        listed: &[G::Intent],
    ) {
        let mut ways: std::collections::BTreeMap<Vec<String>, String> = Default::default();
        let mut places = crate::picture::Links::default();
        let mut keys = BTreeSet::new();
        for i in listed {
            let text = i.to_string();
            let all = G::move_clicks(state, i, &[]);
            assert!(!all.is_empty(), "`{text}` cannot be clicked");
            for way in all {
                assert!((1..=8).contains(&way.len()), "`{text}`: {way:?}");
                for c in &way {
                    assert!(
                        !c.key.is_empty() && c.key.len() <= 64 && !c.label.is_empty(),
                        "{c:?}"
                    );
                    let place = ["star ", "token ", "disc ", "square "]
                        .iter()
                        .any(|p| c.key.starts_with(p));
                    if place {
                        places.insert(
                            c.key.clone(),
                            crate::picture::Link::To {
                                href: format!("#{}", c.key),
                                label: c.label.clone(),
                            },
                        );
                        keys.insert(c.key.clone());
                    }
                }
                let way: Vec<String> = way.into_iter().map(|c| c.key).collect();
                if let Some(other) = ways.insert(way.clone(), text.clone()) {
                    assert_eq!(other, text, "two moves are clicked alike: {way:?}");
                }
            }
        }
        for a in ways.keys() {
            for b in ways.keys() {
                assert!(
                    b.len() <= a.len() || b[..a.len()] != a[..],
                    "{a:?} ({}) is the start of {b:?} ({})",
                    ways[a],
                    ways[b]
                );
            }
        }
        let svg = G::render_svg_linked(&G::view(state, Some(seat), Some(own)), &[], &places);
        for k in &keys {
            let href = format!("href=\"#{}\"", crate::picture::esc(k));
            assert!(svg.contains(&href), "`{k}` is not a place in the picture");
        }
        // Without links, the picture is `view`'s, byte for byte.
        let plain = G::render_svg(&G::view(state, Some(seat), Some(own)), &[]);
        assert_eq!(
            G::render_svg_linked(
                &G::view(state, Some(seat), Some(own)),
                &[],
                &crate::picture::Links::default()
            ),
            plain
        );
    }

    /// Games of `G` at `seats` seats until `POSITIONS` positions have been
    /// checked: a game of few entries (Starry Night's) is played several
    /// times, a long one once.
    fn every_position_of<G: Game>(seats: usize) {
        const POSITIONS: usize = 80;
        let mut positions = 0;
        let mut seed = 0;
        while positions < POSITIONS {
            positions += list_is_what_play_accepts::<G>(seats, seed);
            seed += 1;
            assert!(seed < 20, "{} {seats}: only {positions} positions", G::NAME);
        }
    }

    #[test]
    fn the_list_is_what_play_accepts_in_every_game() {
        // Each registered game at its fewest and its most seats.
        macro_rules! each {
            (() ; $($G:ty),*) => {
                $(
                    let (fewest, most) = crate::games::registry::Entry::of::<$G>().seats;
                    every_position_of::<$G>(fewest);
                    if most != fewest {
                        every_position_of::<$G>(most);
                    }
                )*
            };
        }
        crate::for_each_game!(each;);
    }

    #[test]
    fn long_lists_wrap_and_say_what_was_left_out() {
        let report = MovesReport {
            game: "starry-sky".into(),
            game_id: "ab".repeat(32),
            entries: 9,
            action: Action::Move,
            to_act_seat: Some(1),
            yours: true,
            count: 40,
            moves: (1..=30)
                .map(|n| MoveItem {
                    notation: format!("10 leo:{n}"),
                    group: vec!["token 10".into(), "leo".into()],
                })
                .collect(),
            hint: None,
        };
        let text = grouped(&report, "game.jsonl");
        assert!(
            text.starts_with("Your 40 legal moves:\ntoken 10 (30)\n  leo (30): 10 leo:1  10 leo:2")
        );
        assert!(text.lines().all(|l| l.chars().count() <= WIDTH), "{text}");
        assert!(
            text.contains("\n      10 leo:"),
            "continued under the group: {text}"
        );
        assert!(
            text.contains("… and 10 more (shown: the first 30"),
            "{text}"
        );
        assert!(text.ends_with("Play one with `starry play game.jsonl \"10 leo:1\"`.\n"));
        let listed: Vec<&str> = text
            .lines()
            .flat_map(|l| l.split("  "))
            .map(|w| w.trim().trim_start_matches("leo (30): "))
            .filter(|w| w.starts_with("10 leo:"))
            .collect();
        assert_eq!(listed.len(), 30, "{text}");
    }
}
