//! Writing the next entry of a game: the genesis, a join, and every entry a
//! seated player signs (a move with its commitments, a reveal, ready, a
//! resignation, a claim that a seat stopped answering, a countersignature).
//!
//! Pure, like the rest of the core: the time and the randomness come in as
//! values, and what lives in the player's home (the record of their joins,
//! the computer seats it runs, the lock of the log) is the program's, which
//! checks it around these calls. Each call returns the signed canonical line
//! with its newline, or the [`Refusal`] that says why the player cannot
//! write it; the program replays the line with the audit's own code before
//! it writes anything.

use super::canonical::to_value;
use super::entry::{
    Abandon, Body, Countersign, Empty, Genesis, HexHash, Join, Kind, Move, Notify, Resign, Reveal,
    SeatInfo,
};
use super::{Action, PROTOCOL_VERSION, Replay};
use crate::crypto::identity::Identity;
use crate::crypto::{Hash, beacon};
use crate::error::Fault;
use crate::games::{Draw, Game, Own, RuleError, RuleErrorKind, Seat, Turn};

/// Why an entry cannot be written, in words addressed to the player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Wrong use: the player asked for something that does not apply.
    Usage(String),
    /// A rule of the game or of the protocol forbids it.
    Rule(RuleError, Fault),
    /// Anything else (a used-up beacon chain, a position with no move).
    Other(String),
}

impl Refusal {
    fn rule(e: RuleError) -> Refusal {
        let f = Fault::from_rule(e.kind);
        Refusal::Rule(e, f)
    }

    fn out_of_turn(msg: String) -> Refusal {
        Refusal::Rule(RuleError::out_of_turn("turn", msg), Fault::OutOfTurn)
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Usage(m) | Refusal::Other(m) => f.write_str(m),
            Refusal::Rule(e, _) => write!(f, "{e}"),
        }
    }
}

/// A signed entry ready to append: the line (with its newline) and what it
/// does, in the words a report uses. A move's summary is empty: the public
/// description the replay of the line gives is the one to show (the intent
/// may name a face-down token).
pub type Written = (Vec<u8>, String);

/// What a new game is: its seats, the creator first, and its options as
/// `KEY=VALUE` pairs plus the text of a board or stars file.
#[derive(Clone, Debug)]
pub struct Setup<'a> {
    pub seats: Vec<SeatInfo>,
    pub pairs: &'a [(String, String)],
    pub extra: Option<&'a str>,
}

/// The genesis line of a new game created by `id`, who takes seat 0 (its
/// name comes from the identity, its key is implied). `deadline`: seconds
/// per move before another seat may claim the game abandoned.
pub fn genesis<G: Game>(
    id: &Identity,
    setup: Setup<'_>,
    deadline: Option<u64>,
    time: String,
    nonce: Hash,
) -> Result<Vec<u8>, Refusal> {
    let Setup {
        mut seats,
        pairs,
        extra,
    } = setup;
    if seats.is_empty() || !seats[0].email.eq_ignore_ascii_case(&id.email) {
        return Err(Refusal::Usage(format!(
            "the first player in --players must be you ({}), since you create the game and play in it",
            id.email
        )));
    }
    if let Some(k) = seats[0].key
        && k.0 != id.public_key()
    {
        return Err(Refusal::Usage(
            "--players: the first seat is you, and your seat is always pinned to your own key; \
             leave its key: out"
                .into(),
        ));
    }
    seats[0].key = None;
    if !seats[0].name.contains(' ')
        && seats[0].name == seats[0].email.split('@').next().unwrap_or_default()
    {
        seats[0].name = id.name.clone();
    }
    if !G::SEATS.contains(&seats.len()) {
        return Err(Refusal::Usage(format!(
            "{} is for {} players; --players lists {}",
            G::NAME,
            crate::games::seat_range::<G>(),
            seats.len()
        )));
    }
    let options = G::options(pairs, extra).map_err(|e| Refusal::Usage(e.to_string()))?;
    let most = G::max_entries(&options, seats.len());
    let per_seat = super::replay::most_entries_per_seat(most, seats.len());
    if per_seat > u64::from(beacon::CHAIN_LENGTH) {
        return Err(Refusal::Usage(format!(
            "under these options a game can last {most} moves and reveals, so one player could \
             need {per_seat} entries, more than the {} links of a beacon chain (docs/protocol.md, \
             section 4); choose a smaller game (fewer or smaller boards, fewer stars). Nothing was written",
            beacon::CHAIN_LENGTH
        )));
    }
    let genesis = Genesis {
        creator_key: HexHash(id.public_key()),
        deadline,
        game: G::NAME.into(),
        nonce: HexHash(nonce),
        options: to_value(&options),
        protocol: PROTOCOL_VERSION,
        rules: G::RULES_VERSION,
        seats,
    };
    let body = Body {
        author: 0,
        data: to_value(&genesis),
        game: None,
        kind: Kind::Genesis,
        link: None,
        n: 0,
        prev: None,
        time,
    };
    Ok(super::replay::sign_line(id, body))
}

/// The seat `id` may join in `r` now, or why they may not. A genesis of
/// protocol 2 has no time controls: joined only when `protocol_2` says the
/// player chose it.
pub fn join_seat<G: Game>(r: &Replay<G>, id: &Identity, protocol_2: bool) -> Result<Seat, Refusal> {
    if !protocol_2 && r.genesis.protocol < 3 {
        return Err(Refusal::Usage(format!(
            "this game's genesis says protocol {}, which has no time controls: no deadline \
             (another player may claim at once that you stopped answering) and a claim settled \
             by any countersignature, the claimant's own included, so that your answer would \
             come too late. starry starts every game with protocol {PROTOCOL_VERSION}; a \
             creator who wrote this one had to choose the old version. Ask them to start the \
             game again, or, if you trust the other players, join with --allow-protocol-2. \
             Nothing was written",
            r.genesis.protocol
        )));
    }
    let seat = r.seat_of_email(&id.email).ok_or_else(|| {
        Refusal::Usage(format!(
            "you ({}) have no seat in this game; the seats are {}",
            id.email,
            r.genesis
                .seats
                .iter()
                .map(|s| s.email.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })?;
    if r.seat_of_key(&id.public_key()).is_some() {
        return Err(Refusal::Usage("you have joined this game already".into()));
    }
    if let Some(other) = r.seats[seat].key {
        return Err(seat_taken(r, seat, &other, id));
    }
    if let Some(pin) = r.genesis.seats[seat].key
        && pin.0 != id.public_key()
    {
        return Err(Refusal::Usage(format!(
            "seat {} is pinned to the key {}, and yours is {}: only the pinned key may take \
             this seat. If the creator pinned an old key of yours, ask them to start the game \
             again with the line `starry id show` prints for you",
            seat,
            super::replay::fingerprint(&pin.0),
            super::replay::fingerprint(&id.public_key())
        )));
    }
    let (action, who) = r.expected();
    if action != Action::Join || who != Some(seat) {
        return Err(Refusal::out_of_turn(not_now(
            r,
            Some(seat),
            "join",
            action,
            who,
        )));
    }
    Ok(seat)
}

/// The join of `id` at `seat`, with this `nonce` (fresh randomness: it
/// derives the player's secret for this game, whose beacon chain the join
/// commits to by its tip).
pub fn join_line<G: Game>(
    r: &Replay<G>,
    id: &Identity,
    seat: Seat,
    notify: Notify,
    time: String,
    nonce: Hash,
) -> Vec<u8> {
    let secret = id.game_secret(&r.game_id, &nonce);
    let data = Join {
        key: HexHash(id.public_key()),
        nonce: HexHash(nonce),
        tip: HexHash(beacon::tip(&beacon::seed(&secret))),
        notify,
    };
    r.next_line(id, seat, Kind::Join, to_value(&data), None, time)
}

/// A joined player about to sign the next entry of `r`: their seat, their
/// secret for this game and the next link of their beacon chain.
pub struct Writer<'a, G: Game> {
    r: &'a Replay<G>,
    id: &'a Identity,
    seat: Seat,
    secret: Hash,
    link: Hash,
    time: String,
    action: Action,
    who: Option<Seat>,
}

/// What the seat to move holds: the position (pending draws resolved with
/// its next link) and its own hidden values.
pub struct Position<G: Game> {
    pub state: G::State,
    pub own: Own<G::Hidden>,
    pub seat: Seat,
    /// The number of the entry the move will be.
    pub at: u64,
}

impl<'a, G: Game> Writer<'a, G> {
    /// The writer of `id`'s next entry, dated `time`; refused when they
    /// hold no seat of `r` or have used up their beacon chain.
    pub fn new(r: &'a Replay<G>, id: &'a Identity, time: String) -> Result<Self, Refusal> {
        let seat =
            r.seat_of_key(&id.public_key())
                .ok_or_else(|| {
                    match r.seat_of_email(&id.email) {
                Some(s) => match r.seats[s].key {
                    Some(other) => seat_taken(r, s, &other, id),
                    None => Refusal::Usage(
                        "you have not joined this game yet: run `starry join` on this log first"
                            .into(),
                    ),
                },
                None => Refusal::Usage(format!(
                    "you ({}) have no seat in this game",
                    crate::text::inline(&id.email)
                )),
            }
                })?;
        let secret = r
            .game_secret(id, seat)
            .expect("the seat's key is this identity's");
        let link = r.next_link(&secret, seat).ok_or_else(|| {
            Refusal::Other(format!(
                "your beacon chain for this game is used up ({} entries)",
                beacon::CHAIN_LENGTH
            ))
        })?;
        let (action, who) = r.expected();
        Ok(Writer {
            r,
            id,
            seat,
            secret,
            link,
            time,
            action,
            who,
        })
    }

    pub fn seat(&self) -> Seat {
        self.seat
    }

    fn line(&self, kind: Kind, data: serde_json::Value) -> Vec<u8> {
        self.r.next_line(
            self.id,
            self.seat,
            kind,
            data,
            Some(self.link),
            self.time.clone(),
        )
    }

    fn not_now(&self, wanted: &str) -> String {
        not_now(self.r, Some(self.seat), wanted, self.action, self.who)
    }

    fn own(&self) -> Result<Own<G::Hidden>, Refusal> {
        self.r
            .own_hidden(&self.secret, self.seat)
            .map_err(Refusal::Other)
    }

    /// The countersignature of the finished game. `late_answer`: where
    /// this player's answer to claims that ended the game would still
    /// win (the program's clock says); a countersignature gives that up,
    /// so only a `concede` writes one then.
    pub fn countersign(&self, concede: bool, late_answer: Option<u64>) -> Result<Written, Refusal> {
        let r = self.r;
        if !concede && let Some(k) = late_answer {
            return Err(Refusal::Usage(format!(
                "the game ended because the others claimed you had stopped answering \
                 (from entry {k}); your answer still wins against those claims, however \
                 late, until you countersign. Make your move instead (`starry play … MOVE`, \
                 or --auto), or, to give that up and accept being placed last, \
                 `starry countersign … --yes` by hand. Nothing was written"
            )));
        }
        if !r.is_over() {
            return Err(Refusal::out_of_turn(format!(
                "you can countersign only a finished game; {}",
                self.not_now("countersign")
            )));
        }
        if r.countersigned.contains(&self.seat) {
            return Err(Refusal::Usage(
                "you have countersigned this game already".into(),
            ));
        }
        let end = r.ended_at.expect("over");
        Ok((
            self.line(Kind::Countersign, countersign_data(r)),
            format!("countersigned the final entry {end}"),
        ))
    }

    /// The resignation, opening every hidden value of this seat still shut.
    pub fn resign(&self) -> Result<Written, Refusal> {
        if self.who != Some(self.seat) || matches!(self.action, Action::Join | Action::Over) {
            return Err(Refusal::out_of_turn(format!(
                "you can resign only when it is your turn to write the next entry; {}",
                self.not_now("resign")
            )));
        }
        let own = self.own()?;
        let reveals = self
            .r
            .openings(&self.secret, &own, &self.r.unopened(self.seat))
            .map_err(Refusal::Other)?;
        let summary = if reveals.is_empty() {
            "resigned".to_string()
        } else {
            format!(
                "resigned, opening {}",
                crate::text::count(reveals.len(), "hidden value", "hidden values")
            )
        };
        Ok((
            self.line(Kind::Resign, to_value(&Resign { reveals })),
            summary,
        ))
    }

    /// The claim that the seat the game waits for stopped answering.
    /// `not_due`: the program's clock's refusal, when the awaited seat's
    /// deadline has not passed yet; `since`: what the summary says of
    /// that deadline (empty for none).
    pub fn claim(&self, not_due: Option<String>, since: &str) -> Result<Written, Refusal> {
        let r = self.r;
        let seat = self.seat;
        let Some(silent) = self
            .who
            .filter(|_| matches!(self.action, Action::Ready | Action::Move | Action::Reveal))
        else {
            // Not now (exit 19, as every command asked at the wrong time).
            return Err(Refusal::out_of_turn(match self.action {
                Action::Join => "a game can be declared abandoned only once everyone has joined; \
                                 until then, start a new game without the silent player"
                    .into(),
                _ => "the game is over; there is nobody to wait for".into(),
            }));
        };
        if silent == seat {
            return Err(Refusal::out_of_turn(format!(
                "the game is waiting for you to {}; you cannot declare yourself gone (to give up, \
                 `starry resign`)",
                self.action.as_str()
            )));
        }
        if r.one_machine(seat, silent) {
            return Err(Refusal::Usage(format!(
                "{} is played on the same machine as your seat ({}'s): you cannot claim \
                 that your own side stopped answering; nothing was written",
                r.name(silent),
                r.name(r.operator_of(silent))
            )));
        }
        if r.claims.as_ref().is_some_and(|c| c.by.contains(&seat)) {
            return Err(Refusal::Usage(format!(
                "you have claimed already that {} stopped answering; the other players must \
                 claim it too",
                r.name(silent)
            )));
        }
        if let Some(why) = not_due {
            return Err(Refusal::out_of_turn(why));
        }
        let awaited = r.claims.as_ref().map_or(r.len(), |c| c.awaited);
        let data = Abandon {
            awaited,
            silent: silent as u32,
        };
        Ok((
            self.line(Kind::Abandon, to_value(&data)),
            format!(
                "claims that {} stopped answering (awaited since entry {awaited}{since})",
                r.name(silent),
            ),
        ))
    }

    fn my_turn(&self, wanted: &str) -> Result<(), Refusal> {
        match self.who == Some(self.seat) {
            true => Ok(()),
            false => Err(Refusal::out_of_turn(self.not_now(wanted))),
        }
    }

    /// The entry that says this seat is ready.
    pub fn ready(&self) -> Result<Written, Refusal> {
        self.my_turn("ready")?;
        if self.action != Action::Ready {
            return Err(Refusal::out_of_turn(self.not_now("ready")));
        }
        Ok((self.line(Kind::Ready, to_value(&Empty {})), "ready".into()))
    }

    /// The reveal the game asks of this seat: the openings of the tokens
    /// it names.
    pub fn reveal(&self) -> Result<Written, Refusal> {
        self.my_turn("reveal")?;
        let state = self.r.preview(self.seat, &self.link).expect("playing");
        let Turn::Reveal(_, refs) = G::turn(&state) else {
            return Err(Refusal::out_of_turn(self.not_now("reveal")));
        };
        let own = self.own()?;
        let reveals = self
            .r
            .openings(&self.secret, &own, &refs)
            .map_err(Refusal::Other)?;
        let n = reveals.len();
        Ok((
            self.line(Kind::Reveal, to_value(&Reveal { reveals })),
            format!("revealed {}", crate::text::count(n, "token", "tokens")),
        ))
    }

    /// Where this seat's move is to be chosen, when it is its turn to move.
    pub fn position(&self) -> Result<Position<G>, Refusal> {
        self.my_turn("move")?;
        if self.action != Action::Move {
            // The command to run instead names the file: the caller, who
            // knows it, adds it.
            return Err(Refusal::out_of_turn(self.not_now("move")));
        }
        Ok(Position {
            state: self.r.preview(self.seat, &self.link).expect("playing"),
            own: self.own()?,
            seat: self.seat,
            at: self.r.len(),
        })
    }

    /// The move `intent` from `at`: the action the others see, the
    /// commitments to the values it hides and the openings it owes.
    pub fn play(&self, at: &Position<G>, intent: &G::Intent) -> Result<Written, Refusal> {
        let r = self.r;
        let sealed = G::seal(&at.state, self.seat, intent, &at.own).map_err(Refusal::rule)?;
        let commitments = sealed
            .hidden
            .iter()
            .enumerate()
            .map(|(i, h)| HexHash(r.commit_next(&self.secret, self.seat, i as u32, h)))
            .collect();
        let reveals = r
            .openings(&self.secret, &at.own, &sealed.reveals)
            .map_err(Refusal::Other)?;
        let data = Move {
            action: to_value(&sealed.action),
            commitments,
            reveals,
        };
        Ok((self.line(Kind::Move, to_value(&data)), String::new()))
    }
}

impl<G: Game> Position<G> {
    /// The move written as `text` in the game's notation.
    pub fn typed(&self, text: &str) -> Result<G::Intent, Refusal> {
        G::parse_intent(&self.state, text).map_err(|e| notation_refused::<G>(&self.state, text, e))
    }

    /// A legal move drawn uniformly from `draw`.
    pub fn random(&self, draw: &mut Draw) -> Result<G::Intent, Refusal> {
        let mut all = G::intents(&self.state, self.seat, &self.own);
        if all.is_empty() {
            return Err(no_move());
        }
        let i = draw.below(all.len());
        Ok(all.swap_remove(i))
    }

    /// The stream of a computer player's randomness for this move: the
    /// entry number is mixed in, so that one seed given to a robot for a
    /// whole game does not repeat the same stream.
    pub fn stream(&self, seed: u64) -> u64 {
        seed ^ self.at.wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }
}

/// A seat the engine asks to move with no legal move.
pub fn no_move() -> Refusal {
    Refusal::Other("there is no legal move (the engine should have skipped you)".into())
}

/// A typed move that does not read is wrong use (exit 2), said with the
/// form a move takes now; one that reads but breaks a rule is the rule's
/// refusal (exit 20).
fn notation_refused<G: Game>(state: &G::State, text: &str, e: RuleError) -> Refusal {
    if e.kind != RuleErrorKind::Notation {
        return Refusal::rule(e);
    }
    let (form, sentence) = G::notation(state);
    // The sentence is written for a view that follows it; here none does.
    let sentence = sentence.replace(" The view below ends with an example.", "");
    let detail = e.detail.trim_end();
    let stop = if detail.ends_with(['.', '?']) {
        ""
    } else {
        "."
    };
    let what = if detail.contains("is not a move") {
        detail.to_string()
    } else {
        format!(
            "`{}` is not a move here: {detail}",
            crate::text::excerpt(text.trim())
        )
    };
    Refusal::Usage(format!("{what}{stop} A move now is `{form}`: {sentence}"))
}

/// The seat listed with your address was joined by another key.
fn seat_taken<G: Game>(r: &Replay<G>, seat: Seat, other: &[u8; 32], id: &Identity) -> Refusal {
    Refusal::Usage(format!(
        "seat {} ({}) was joined with the key {}, and yours is {}: someone else joined in your \
         place (or you did, with another identity). Tell the other players; the creator can \
         start the game again with pinned seats (`starry id show` prints the line to pin yours)",
        seat,
        crate::text::inline(&r.genesis.seats[seat].email),
        super::replay::fingerprint(other),
        super::replay::fingerprint(&id.public_key())
    ))
}

/// The data of a countersignature of the game `r`, which is over.
pub fn countersign_data<G: Game>(r: &Replay<G>) -> serde_json::Value {
    let end = r.ended_at.expect("countersigned games are over");
    to_value(&Countersign {
        final_entry: HexHash(r.entries[end as usize].id),
    })
}

/// Why `me` cannot do `wanted` now, in words addressed to them.
fn not_now<G: Game>(
    r: &Replay<G>,
    me: Option<Seat>,
    wanted: &str,
    action: Action,
    who: Option<Seat>,
) -> String {
    match who {
        Some(s) if Some(s) == me => format!(
            "you cannot {wanted} now: it is your turn to {}",
            action.as_str()
        ),
        Some(s) => format!(
            "it is not your turn: {} must {} next (`starry status` shows whose turn it is)",
            r.seat_label(s),
            action.as_str()
        ),
        None => "the game is over".into(),
    }
}
