//! What a seated player's own program sees and may do: their view (their
//! face-down values, their hand, the draws their next entry resolves),
//! their legal moves, and the dry run of an entry before it is signed.
//! Pure: the identity, the time and the log come in as values, so the
//! CLI, `starry serve` and the web player share one implementation.

use crate::crypto::identity::Identity;
use crate::games::{Game, Seat};
use crate::log::write::Writer;
use crate::log::{Action, Kind, Replay};

/// `seat`'s own view of the position `state` of `r`, as the identity `id`
/// that holds the seat sees it: their face-down values, their hand, "you";
/// and, when they are to act, the random events their next entry will
/// resolve, which only their program can know.
pub fn own_view<G: Game>(
    r: &Replay<G>,
    state: &G::State,
    seat: Seat,
    id: &Identity,
) -> Result<G::View, String> {
    let secret = r
        .game_secret(id, seat)
        .ok_or_else(|| format!("seat {seat} is not held by this identity"))?;
    let own = r.own_hidden(&secret, seat)?;
    let preview = (r.expected().1 == Some(seat))
        .then(|| r.next_link(&secret, seat))
        .flatten()
        .and_then(|l| r.preview(seat, &l));
    Ok(G::view(
        preview.as_ref().unwrap_or(state),
        Some(seat),
        Some(&own),
    ))
}

/// The legal moves of a player whose move it is, in the position their
/// own program sees.
pub struct OwnMoves<G: Game> {
    pub seat: Seat,
    /// With the random events their next entry resolves (a Star Map
    /// draw), which only their program knows.
    pub state: G::State,
    pub intents: Vec<G::Intent>,
}

/// [`OwnMoves`] for `id`, when the game waits for a move of theirs; the
/// one list `moves`, `play` and `starry serve` all take moves from.
pub fn own_moves<G: Game>(r: &Replay<G>, id: &Identity) -> Result<Option<OwnMoves<G>>, String> {
    let (action, to_act) = r.expected();
    let (Some(seat), Some(state), Action::Move) = (to_act, r.state.as_ref(), action) else {
        return Ok(None);
    };
    if r.seat_of_key(&id.public_key()) != Some(seat) {
        return Ok(None);
    }
    let secret = r
        .game_secret(id, seat)
        .expect("the seat's key is this identity's");
    let own = r.own_hidden(&secret, seat)?;
    // The random events this seat's next entry resolves are part of the
    // position it moves in (a Star Map draw): only its program knows them.
    let preview = r.next_link(&secret, seat).and_then(|l| r.preview(seat, &l));
    let state = preview.unwrap_or_else(|| state.clone());
    let intents = G::intents(&state, seat, &own);
    Ok(Some(OwnMoves {
        seat,
        state,
        intents,
    }))
}

/// An entry a page asks to preview before anything is signed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dry {
    /// A move, as `starry play` takes it.
    Move(String),
    Resign,
    /// A claim that the awaited player stopped answering.
    Abandon,
}

/// The dry run of an entry: the line the writer would sign, the game
/// after it, and what it says.
pub struct Preview<G: Game> {
    /// The signed canonical line, with its newline: what `play` would
    /// append (the time and nonces of a real write differ).
    pub line: Vec<u8>,
    pub after: Replay<G>,
    /// "Dry run, nothing written. Entry 7: Ann — placed …", as `play
    /// --dry-run` says it, with what an answer to claims does.
    pub account: String,
    /// The position after it as the writer sees it; none before the setup.
    pub view: Option<G::View>,
}

/// The dry run of `what` by `id` after `r` at `now`: the same writer and
/// the same replay of the line as `starry play --dry-run`, without the
/// checks of the player's home (their record of what they signed in other
/// copies), which a program with files adds around it. `late`: the entry
/// of the first claim this entry answers (`r` then ends before it) and the
/// number of entries of the log the claims are in.
pub fn preview<G: Game>(
    r: &Replay<G>,
    id: &Identity,
    what: &Dry,
    now: &str,
    late: Option<(u64, u64)>,
) -> Result<Preview<G>, String> {
    let entry = r.len();
    let w = Writer::new(r, id, now.to_string()).map_err(|e| e.to_string())?;
    let (line, summary) = match what {
        Dry::Resign => w.resign(),
        Dry::Abandon => w.claim(
            crate::clock::claim_not_due(r, now),
            &crate::clock::deadline_passed(r, now),
        ),
        Dry::Move(text) => w.position().and_then(|at| {
            let intent = at.typed(text)?;
            w.play(&at, &intent)
        }),
    }
    .map_err(|e| e.to_string())?;
    let mut after = r.clone();
    after
        .apply_line(entry, &line[..line.len() - 1])
        .map_err(|f| format!("refusing to write an entry that does not verify: {f}"))?;
    let last = after.entries.last().expect("just applied");
    let author = last.author;
    let summary = match last.kind {
        Kind::Move => last.summary.clone(),
        _ => summary,
    };
    let mut account = format!(
        "Dry run, nothing written. Entry {entry}: {} — {summary}.\n",
        after.name(author)
    );
    if let Some((k, was)) = late {
        account.push_str(&answers_claims_text(k, was));
    }
    let view = match &after.state {
        Some(state) if after.seat_of_key(&id.public_key()) == Some(author) => {
            Some(own_view(&after, state, author, id)?)
        }
        Some(state) => Some(G::view(state, None, None)),
        None => None,
    };
    Ok(Preview {
        line,
        after,
        account,
        view,
    })
}

/// What an entry answering the claims of entries `k` to `was - 1` does.
pub fn answers_claims_text(k: u64, was: u64) -> String {
    format!(
        "This entry answers the claims that you had stopped answering (entries {k} to {}): \
         it takes their place, so the claims lapse and the game goes on. It wins against \
         any copy holding the claims (docs/protocol.md, §7, a lapsed claim): mail it on, and \
         the others' starry takes it in place of theirs.\n",
        was - 1
    )
}
