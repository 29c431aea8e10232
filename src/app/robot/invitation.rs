//! A mail about a game the robot has no copy of: an invitation, if
//! anything. The robot is a public service, so an invitation is checked
//! before anything is stored: the whole log verifies, the robot has a
//! seat, the sender is a joined player it may answer, is allowed to invite
//! it, has invitations left for the day, and the robot has room for
//! another game whose deadline it can keep.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::games::GameState;
use super::handle::{Letter, Stop, no_seat, refuse};
use super::play::Table;
use super::report::{Reason, RobotMail};
use super::{Robot, read_small};
use crate::error::{Error, Result};
use crate::games::Game;
use crate::log::{Replay, file};
use crate::text;

/// Invitations kept in `invitations.json` at most (the oldest go first):
/// a bound whatever the senders do.
const MAX_INVITATION_RECORDS: usize = 10_000;

/// Invitations accepted, by sender (lower case), in seconds since 1970:
/// `robot/invitations.json`, pruned to the last day.
type Invitations = BTreeMap<String, Vec<i64>>;

const DAY: i64 = 24 * 60 * 60;

impl Robot {
    /// A mail about a game the robot has no copy of (`whole`: the copies
    /// of its log in the mail that start at its genesis): an invitation,
    /// if anything. Nothing is stored unless every check passes.
    pub(super) fn new_game<G: Game>(
        &self,
        letter: &Letter,
        whole: &[&[u8]],
        mail: &mut RobotMail,
    ) -> std::result::Result<(), Stop> {
        // The longest copy that verifies.
        let mut best: Option<(Replay<G>, &[u8])> = None;
        let mut fault = None;
        for &log in whole {
            match Replay::<G>::from_bytes(log) {
                Ok(r) if best.as_ref().is_none_or(|(b, _)| r.len() > b.len()) => {
                    best = Some((r, log));
                }
                Ok(_) => {}
                Err(f) => {
                    fault.get_or_insert(f);
                }
            }
        }
        let Some((r, log)) = best else {
            let fault = fault.expect("a copy that does not verify has a fault");
            return Err(Stop::Refused {
                reason: Reason::Unverified,
                code: fault.fault.exit_code(),
                why: format!("the log does not verify: {fault}; nothing was stored or answered"),
            });
        };
        let Some(me) = self.my_seat(&r) else {
            return Err(no_seat(&r.game_id, "nothing was stored"));
        };
        let mut state = GameState::default();
        let from = letter
            .facts
            .from
            .clone()
            .unwrap_or_default()
            .to_ascii_lowercase();
        let sender = self.sender_of(&r, me, letter, &mut state)?;
        let mut invitations = self.admit(&r, &from, letter.now)?;
        let out = self.ingest(log, letter.label)?;
        invitations.entry(from).or_default().push(letter.now);
        self.save_invitations(invitations)
            .map_err(Stop::Transient)?;
        state.over = r.is_over();
        self.save_state(&r.game_id, &state)
            .map_err(Stop::Transient)?;
        let mut table = Table {
            path: PathBuf::from(out.json["file"].as_str().unwrap_or_default()),
            sender,
            state,
        };
        self.play::<G>(&mut table, &out.json, mail)
    }

    /// Whether the robot takes an invitation from `from` to the game `r`
    /// now: from whom, how many, how many games at once, and time controls
    /// it can live with. The invitations of the last day, when it does.
    fn admit<G: Game>(
        &self,
        r: &Replay<G>,
        from: &str,
        now: i64,
    ) -> std::result::Result<Invitations, Stop> {
        if !self.settings.allow.is_empty() && !self.settings.allows(from) {
            return Err(refuse(
                Reason::NotAllowed,
                format!(
                    "an invitation from {}, who is not on the robot's allow-list; nothing was \
                     stored",
                    text::inline(from)
                ),
            ));
        }
        // A claim that it stopped answering must not come before its floor
        // (`min_deadline`).
        if let Some(why) = crate::app::clock::short_deadline(&r.genesis, self.settings.min_deadline)
        {
            return Err(refuse(
                Reason::ShortDeadline,
                format!(
                    "an invitation from {}, but {why}; the robot joins only games whose deadline \
                     is at least {} (min_deadline); nothing was stored",
                    text::inline(from),
                    crate::log::replay::span_text(self.settings.min_deadline)
                ),
            ));
        }
        let invitations = self.load_invitations(now).map_err(Stop::Transient)?;
        let today = invitations.get(from).map_or(0, Vec::len);
        if today >= self.settings.invitations_per_day as usize {
            return Err(refuse(
                Reason::InvitationLimit,
                format!(
                    "an invitation from {}, who has sent {today} in the last day, as many as the \
                     robot accepts (invitations_per_day); nothing was stored",
                    text::inline(from)
                ),
            ));
        }
        let playing = self.games_playing().map_err(Stop::Transient)?;
        if playing >= self.settings.max_games as usize {
            return Err(refuse(
                Reason::GameLimit,
                format!(
                    "an invitation from {}, but the robot already plays {playing} games, as many \
                     as it may (max_games); nothing was stored",
                    text::inline(from)
                ),
            ));
        }
        Ok(invitations)
    }

    fn invitations_path(&self) -> PathBuf {
        self.dir.join("invitations.json")
    }

    /// The invitations of the last day.
    fn load_invitations(&self, now: i64) -> Result<Invitations> {
        let path = self.invitations_path();
        let mut all: Invitations = match read_small(&path) {
            Some(b) => serde_json::from_slice(&b).unwrap_or_default(),
            None if path.exists() => {
                return Err(Error::io(
                    "cannot read the robot's record",
                    &path,
                    std::io::Error::other("unreadable or too large"),
                ));
            }
            None => Invitations::new(),
        };
        for times in all.values_mut() {
            times.retain(|&t| t > now - DAY && t <= now + DAY);
        }
        all.retain(|_, t| !t.is_empty());
        Ok(all)
    }

    fn save_invitations(&self, mut all: Invitations) -> Result<()> {
        let total: usize = all.values().map(Vec::len).sum();
        if total > MAX_INVITATION_RECORDS {
            let mut times: Vec<i64> = all.values().flatten().copied().collect();
            times.sort_unstable();
            let cut = times[total - MAX_INVITATION_RECORDS];
            for t in all.values_mut() {
                t.retain(|&x| x >= cut);
            }
            all.retain(|_, t| !t.is_empty());
        }
        let bytes = serde_json::to_vec_pretty(&all).expect("records serialise");
        file::write_record(
            &self.invitations_path(),
            &[bytes.as_slice(), b"\n"].concat(),
        )
    }
}
