//! Who hears of a game's last entry, and the subject of every mail of a
//! game: one implementation for `starry`'s turn mails and the web player's
//! "Mail it".

use crate::games::{Game, Seat};
use crate::log::entry::Notify;
use crate::log::{Action, Replay};

/// Who gets a mail, and as what.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Must write the next entry.
    Act(Action),
    /// Another player: a short report of the move.
    Info,
    /// The game is over.
    Over,
}

/// Who hears of the log's last entry, written by `me`, and as what: after
/// the end, every other player; before, the player who must act next and
/// the others who asked for every move (all of them with `to_all`). The
/// second value is the action when the next turn is `me`'s own again, so
/// nobody is to be told of it yet.
pub fn told<G: Game>(
    r: &Replay<G>,
    me: Option<Seat>,
    to_all: bool,
) -> (Vec<(Seat, Role)>, Option<Action>) {
    let (action, who) = r.expected();
    let mut targets = Vec::new();
    let mut own_turn = None;
    if r.is_over() {
        targets.extend(
            (0..r.seat_count())
                .filter(|&s| Some(s) != me)
                .map(|s| (s, Role::Over)),
        );
    } else if let Some(w) = who {
        if Some(w) == me {
            own_turn = Some(action);
        } else {
            targets.push((w, Role::Act(action)));
        }
        // The others hear of the move, unless they asked for their turns
        // only; a seat that has not joined yet has asked nothing.
        targets.extend(
            (0..r.seat_count())
                .filter(|&s| Some(s) != me && s != w)
                .filter(|&s| {
                    to_all || (r.seats[s].key.is_some() && r.seats[s].notify == Notify::All)
                })
                .map(|s| (s, Role::Info)),
        );
    }
    (targets, own_turn)
}

/// `[starry] Starry Sky 3f2a9c1e`: the same for every mail of a game
/// (`game` is its name, `id16` the game id's first 16 hex digits), and
/// true for every one of them, whoever it is for — what is asked of the
/// recipient is the first line of the text, never the subject. Mail
/// programs that thread by subject (Gmail, which ignores `Re: `) keep the
/// game together, as those that thread by References do. The turn mail is
/// a message of its own in the thread; reports and the mails after the end
/// are replies.
pub fn subject(game: &str, id16: &str, role: Role) -> String {
    let short = id16.get(..8).unwrap_or(id16);
    let base = format!("[starry] {} {short}", crate::games::title_of(game));
    match role {
        Role::Act(_) => base,
        Role::Info | Role::Over => format!("Re: {base}"),
    }
}

/// Who countersigns next, once the game is over: the first seat in seat
/// order that has not countersigned and did not write the last entry.
/// Countersignatures written at once on two copies fork the log (the
/// protocol settles it, but everyone has to mail again), so every mail
/// after the end names this one player, the others wait for a mail that
/// names them, and no honest game forks. None before the end, and once
/// everyone has countersigned.
pub fn next_countersigner<G: Game>(r: &Replay<G>) -> Option<Seat> {
    if !r.is_over() {
        return None;
    }
    let last = r.entries.last().map(|e| e.author);
    let open = |s: &Seat| !r.countersigned.contains(s);
    (0..r.seat_count())
        .filter(open)
        .find(|&s| Some(s) != last)
        .or_else(|| (0..r.seat_count()).find(open))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_subject_per_game_replies_for_reports() {
        let id16 = "3f2a9c1e00112233";
        assert_eq!(
            subject("starry-sky", id16, Role::Act(Action::Move)),
            "[starry] Starry Sky 3f2a9c1e"
        );
        assert_eq!(
            subject("star-map", id16, Role::Info),
            "Re: [starry] Star Map 3f2a9c1e"
        );
        assert_eq!(
            subject("starry-night", id16, Role::Over),
            "Re: [starry] Starry Night 3f2a9c1e"
        );
    }
}
