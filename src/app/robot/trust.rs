//! Trusting a sender: which seat of the game sent the mail, whether its
//! address has proven itself (an entry signed by the seat's key, in a mail
//! the robot's own mail server vouches for), and so whether the robot may
//! write to it first. This is what keeps strangers from turning the robot
//! against third parties.

use super::Robot;
use super::facts::Facts;
use super::games::{GameState, Proven};
use super::handle::{Letter, Stop, refuse};
use super::report::Reason;
use crate::app::short_id;
use crate::crypto::Hash;
use crate::games::{Game, Seat};
use crate::log::Replay;
use crate::text;

impl Robot {
    /// The seat the robot holds in `r`: joined with its key, or open with
    /// its address and not pinned to another key.
    pub(super) fn my_seat<G: Game>(&self, r: &Replay<G>) -> Option<Seat> {
        let key = self.id.public_key();
        r.seat_of_key(&key).or_else(|| {
            let s = r.seat_of_email(&self.id.email)?;
            (r.seats[s].key.is_none() && r.seat_key(s).is_none_or(|k| k == key)).then_some(s)
        })
    }

    /// The joined seat that sent the mail (its `From:` is the seat's
    /// address), marked proven in `state` when the robot's server vouches
    /// for the `From:` and the mail carries an entry signed by the seat.
    /// Refused when the sender is no joined seat, or may not be answered.
    pub(super) fn sender_of<G: Game>(
        &self,
        r: &Replay<G>,
        me: Seat,
        letter: &Letter,
        state: &mut GameState,
    ) -> std::result::Result<Seat, Stop> {
        let facts = &letter.facts;
        let from = facts.from.clone().unwrap_or_default();
        let seat = (0..r.seat_count()).find(|&s| {
            s != me
                && r.seats[s].key.is_some()
                && r.genesis.seats[s].email.eq_ignore_ascii_case(from.trim())
        });
        let Some(seat) = seat else {
            return Err(refuse(
                Reason::NotASeat,
                format!(
                    "the sender {} is not a joined player of game {}; nobody was told",
                    if from.is_empty() {
                        "(none)".to_string()
                    } else {
                        text::inline(&from).into_owned()
                    },
                    short_id(&r.game_id)
                ),
            ));
        };
        let email = r.genesis.seats[seat].email.clone();
        let vouched = self.vouched(facts);
        if vouched.is_some()
            && !state.is_proven(seat, &email)
            && carries_entry_of(r, &letter.logs, seat)
        {
            state.proven.push(Proven {
                seat,
                email: email.clone(),
            });
        }
        if !self.writable(r, state, seat) {
            return Err(refuse(
                Reason::Unproven,
                format!(
                    "the sender {} is not on the allow-list and {}, so the robot may not write \
                     to them; nobody was told",
                    text::inline(&email),
                    match (&self.settings.authserv_id, vouched) {
                        (None, _) =>
                            "no authserv_id is set, so no mail is ever vouched for".to_string(),
                        (Some(id), None) => format!(
                            "the mail carries no Authentication-Results of {} that passes for \
                             its From domain",
                            text::inline(id)
                        ),
                        (Some(_), Some(_)) => {
                            "the mail carries no entry signed by their seat".to_string()
                        }
                    }
                ),
            ));
        }
        Ok(seat)
    }

    /// The check of the robot's own mail server that vouches for the
    /// mail's `From:` (one address, with a domain), if any: only the
    /// `Authentication-Results` fields above the first `Received` field
    /// are the server's own ([`crate::mail::auth_results::vouches_in`]).
    fn vouched(&self, facts: &Facts) -> Option<&'static str> {
        let id = self.settings.authserv_id.as_deref()?;
        if !facts.single_from {
            return None;
        }
        let (_, domain) = facts.from.as_deref()?.rsplit_once('@')?;
        crate::mail::auth_results::vouches_in(
            facts.fields.iter().map(|(n, v)| (n.as_str(), v.as_str())),
            id,
            domain,
        )
    }

    /// Whether the robot may write to `seat`'s address first.
    pub(super) fn writable<G: Game>(&self, r: &Replay<G>, state: &GameState, seat: Seat) -> bool {
        let email = &r.genesis.seats[seat].email;
        self.settings.allows(email) || state.is_proven(seat, email)
    }
}

/// Whether the mail's logs hold an entry of `seat` that is in `r` (so
/// verified, and signed by the seat's key).
fn carries_entry_of<G: Game>(r: &Replay<G>, logs: &[Vec<u8>], seat: Seat) -> bool {
    let ids: std::collections::HashSet<Hash> = logs
        .iter()
        .flat_map(|l| l.split(|&b| b == b'\n'))
        .filter(|l| !l.is_empty())
        .map(crate::crypto::sha256)
        .collect();
    r.entries
        .iter()
        .any(|e| e.author == seat && ids.contains(&e.id))
}
