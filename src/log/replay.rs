//! Replaying a log: every check the protocol requires, in one place. Every
//! command that reads a log goes through [`Replay`], and `audit` is nothing
//! but a replay that reports, so a log that plays is a log that audits.

use std::collections::{BTreeMap, BTreeSet};

use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use ed25519_dalek::{Signature, VerifyingKey};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::canonical;
use super::entry::*;
use crate::crypto::identity::Identity;
use crate::crypto::{Hash, beacon, commitment, lp_hash};
use crate::error::{Fault, LogFault};
use crate::games::{Context, Draw, Game, HiddenRef, Own, Seat, Standing, Turn, rank_by_score};

/// Domain tag of entry signatures.
pub const SIG_TAG: &[u8] = b"starry/1 entry";
const SETUP_TAG: &[u8] = b"starry/1 setup";
const DRAW_TAG: &[u8] = b"starry/1 draw";

/// The message an entry's signature covers.
pub fn signed_message(body: &[u8]) -> Vec<u8> {
    let mut m = Vec::with_capacity(body.len() + SIG_TAG.len() + 8);
    m.extend_from_slice(&(SIG_TAG.len() as u32).to_be_bytes());
    m.extend_from_slice(SIG_TAG);
    m.extend_from_slice(&(body.len() as u32).to_be_bytes());
    m.extend_from_slice(body);
    m
}

/// A line that parsed and is canonical.
#[derive(Clone, Debug)]
pub struct Parsed {
    pub line: Line,
    /// The line's bytes, without the newline.
    pub bytes: Vec<u8>,
    /// SHA-256 of `bytes`: the entry id.
    pub id: Hash,
    /// The body's bytes (what the signature covers).
    pub body_bytes: Vec<u8>,
}

fn fault(entry: u64, fault: Fault, detail: impl Into<String>) -> LogFault {
    LogFault {
        entry,
        fault,
        author: None,
        detail: detail.into(),
    }
}

/// Splits a log into lines, refusing an empty log, blank lines and a cut-off
/// last line.
pub fn split_lines(bytes: &[u8]) -> Result<Vec<&[u8]>, LogFault> {
    if bytes.is_empty() {
        return Err(fault(0, Fault::Malformed, "the log is empty"));
    }
    let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    let last = lines.pop().expect("split yields at least one piece");
    if !last.is_empty() {
        return Err(fault(
            lines.len() as u64,
            Fault::Truncated,
            "the last line does not end with a newline: the file was cut short (restore it from \
             the sender's copy or the mail it came in)",
        ));
    }
    if let Some(i) = lines.iter().position(|l| l.is_empty()) {
        return Err(fault(i as u64, Fault::Malformed, "blank line"));
    }
    Ok(lines)
}

/// Parses one line and checks that it is canonical.
pub fn parse_line(n: u64, bytes: &[u8]) -> Result<Parsed, LogFault> {
    let text = std::str::from_utf8(bytes)
        .map_err(|_| fault(n, Fault::Malformed, "the line is not UTF-8"))?;
    let value: Value = serde_json::from_str(text)
        .map_err(|e| fault(n, Fault::Malformed, format!("not JSON ({e})")))?;
    if let Some(at) = canonical::find_float(&value, &mut String::new()) {
        return Err(fault(
            n,
            Fault::NonCanonical,
            format!("a number at {at} is not an integer (only integers are allowed)"),
        ));
    }
    let line: Line = serde_json::from_value(value.clone())
        .map_err(|e| fault(n, Fault::Malformed, format!("not a log entry ({e})")))?;
    if canonical::to_bytes(&value) != bytes
        || canonical::to_bytes(&canonical::to_value(&line)) != bytes
    {
        return Err(fault(
            n,
            Fault::NonCanonical,
            "the line is not in canonical form (keys sorted, no spaces, minimal escapes, no \
             duplicate keys); it was edited by hand or by another tool",
        ));
    }
    let body_bytes = canonical::to_bytes(&canonical::to_value(&line.body));
    Ok(Parsed {
        line,
        bytes: bytes.to_vec(),
        id: crate::crypto::sha256(bytes),
        body_bytes,
    })
}

/// Parses kind-specific JSON into its type, requiring the canonical form.
pub fn typed<T: DeserializeOwned + serde::Serialize>(
    n: u64,
    what: &str,
    value: &Value,
) -> Result<T, LogFault> {
    let t: T = serde_json::from_value(value.clone())
        .map_err(|e| fault(n, Fault::Malformed, format!("{what}: {e}")))?;
    if canonical::to_value(&t) != *value {
        return Err(fault(
            n,
            Fault::NonCanonical,
            format!(
                "{what} is not in canonical form (a default value written out, or a field spelt two ways)"
            ),
        ));
    }
    Ok(t)
}

/// Reads only the genesis: enough to know which game a log is.
pub fn read_genesis(bytes: &[u8]) -> Result<(Genesis, Hash), LogFault> {
    let first = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    if bytes.is_empty() {
        return Err(fault(0, Fault::Malformed, "the log is empty"));
    }
    if !bytes.contains(&b'\n') {
        return Err(fault(
            0,
            Fault::Truncated,
            "the first line does not end with a newline",
        ));
    }
    let p = parse_line(0, first)?;
    if p.line.body.kind != Kind::Genesis {
        return Err(fault(
            0,
            Fault::Malformed,
            "the first entry must be a genesis",
        ));
    }
    let g: Genesis = typed(0, "the genesis data", &p.line.body.data)?;
    if g.protocol != PROTOCOL_VERSION {
        return Err(fault(
            0,
            Fault::UnknownVersion,
            format!(
                "this log uses protocol version {}, this program implements version {PROTOCOL_VERSION}; \
                 use a starry release that supports it",
                g.protocol
            ),
        ));
    }
    Ok((g, p.id))
}

/// The protocol phase.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Waiting for this seat's join entry.
    Joining(Seat),
    /// Waiting for ready entries; the index is into [`ready_order`].
    Ready(usize),
    /// The rules engine says who acts.
    Playing,
    /// Nobody must act any more; countersignatures may follow.
    Over(Ending),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case", tag = "how", content = "seat")]
pub enum Ending {
    /// Played to the end under the rules.
    Finished,
    /// This seat resigned.
    Resigned(Seat),
}

/// What the next entry must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Join,
    Ready,
    Move,
    Reveal,
    /// The game is over; only countersignatures may follow.
    Over,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Join => "join",
            Action::Ready => "ready",
            Action::Move => "move",
            Action::Reveal => "reveal",
            Action::Over => "over",
        }
    }
}

/// The ready entries come from the last joiner first, then round the table:
/// the last joiner can write join and ready in one sitting, and seat 0, who
/// moves first, writes the last ready and its first move in one sitting.
pub fn ready_order(seats: usize) -> Vec<Seat> {
    let mut v = vec![seats - 1];
    v.extend(1..seats - 1);
    v.push(0);
    v
}

/// What the log says about one seat.
#[derive(Clone, Debug, Default)]
pub struct SeatRecord {
    pub key: Option<[u8; 32]>,
    pub nonce: Option<Hash>,
    /// The last link published (the tip after joining).
    pub link: Option<Hash>,
    /// Entries written since joining (each revealed one link).
    pub links_used: u32,
    pub ready_link: Option<Hash>,
}

/// What each entry was, for status and history displays.
#[derive(Clone, Debug)]
pub struct EntryMeta {
    pub id: Hash,
    pub kind: Kind,
    pub author: Seat,
    pub time: String,
    /// For moves: the game's description of the action.
    pub summary: String,
}

#[derive(Clone, Debug)]
struct Commitment {
    hash: Hash,
    seat: Seat,
}

/// A log replayed up to some entry, with every check passed.
pub struct Replay<G: Game> {
    pub game_id: Hash,
    pub genesis: Genesis,
    pub options: G::Options,
    pub entries: Vec<EntryMeta>,
    pub seats: Vec<SeatRecord>,
    pub phase: Phase,
    pub state: Option<G::State>,
    commitments: BTreeMap<HiddenRef, Commitment>,
    revealed: BTreeSet<HiddenRef>,
    /// Entry id that caused each random event, by the game's event id.
    event_causes: BTreeMap<u64, Hash>,
    pub countersigned: BTreeSet<Seat>,
    /// The entry at which the game ended.
    pub ended_at: Option<u64>,
}

// Written out because a derive would demand `G: Clone`; the game type itself
// is never stored.
impl<G: Game> Clone for Replay<G> {
    fn clone(&self) -> Self {
        Replay {
            game_id: self.game_id,
            genesis: self.genesis.clone(),
            options: self.options.clone(),
            entries: self.entries.clone(),
            seats: self.seats.clone(),
            phase: self.phase.clone(),
            state: self.state.clone(),
            commitments: self.commitments.clone(),
            revealed: self.revealed.clone(),
            event_causes: self.event_causes.clone(),
            countersigned: self.countersigned.clone(),
            ended_at: self.ended_at,
        }
    }
}

impl<G: Game> Replay<G> {
    /// Replays a whole log.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, LogFault> {
        let lines = split_lines(bytes)?;
        let mut replay = Self::from_genesis(lines[0])?;
        for (i, l) in lines.iter().enumerate().skip(1) {
            replay.apply_line(i as u64, l)?;
        }
        Ok(replay)
    }

    /// Replays only the first `count` entries (for `view --at`).
    pub fn from_bytes_upto(bytes: &[u8], count: usize) -> Result<Self, LogFault> {
        let lines = split_lines(bytes)?;
        let mut replay = Self::from_genesis(lines[0])?;
        for (i, l) in lines
            .iter()
            .enumerate()
            .skip(1)
            .take(count.saturating_sub(1))
        {
            replay.apply_line(i as u64, l)?;
        }
        Ok(replay)
    }

    /// Starts a replay from the genesis line alone.
    pub fn from_genesis(first: &[u8]) -> Result<Self, LogFault> {
        let p = parse_line(0, first)?;
        let body = &p.line.body;
        if body.kind != Kind::Genesis
            || body.n != 0
            || body.game.is_some()
            || body.prev.is_some()
            || body.link.is_some()
        {
            return Err(fault(
                0,
                Fault::Malformed,
                "the first entry must be a genesis with n = 0 and no game, prev or link",
            ));
        }
        let g: Genesis = typed(0, "the genesis data", &body.data)?;
        if g.protocol != PROTOCOL_VERSION {
            return Err(fault(
                0,
                Fault::UnknownVersion,
                format!(
                    "protocol version {} is not {PROTOCOL_VERSION}, the one this program implements",
                    g.protocol
                ),
            ));
        }
        if g.game != G::NAME {
            return Err(fault(
                0,
                Fault::UnknownVersion,
                format!("this log is a game of `{}`, not `{}`", g.game, G::NAME),
            ));
        }
        if g.rules != G::RULES_VERSION {
            return Err(fault(
                0,
                Fault::UnknownVersion,
                format!(
                    "the log uses {} rules version {}, this program implements version {}; replaying \
                     it with other rules could change the game, so it refuses — use a starry release \
                     that implements version {}",
                    G::NAME,
                    g.rules,
                    G::RULES_VERSION,
                    g.rules
                ),
            ));
        }
        if !G::SEATS.contains(&g.seats.len()) {
            return Err(fault(
                0,
                Fault::IllegalMove,
                format!(
                    "{} needs {} to {} players, the genesis lists {}",
                    G::NAME,
                    G::SEATS.start(),
                    G::SEATS.end(),
                    g.seats.len()
                ),
            ));
        }
        let mut emails = BTreeSet::new();
        for s in &g.seats {
            crate::crypto::identity::check_email(&s.email)
                .map_err(|e| fault(0, Fault::Malformed, e.to_string()))?;
            if !emails.insert(s.email.to_lowercase()) {
                return Err(fault(
                    0,
                    Fault::Malformed,
                    format!("{} holds two seats", s.email),
                ));
            }
        }
        if body.author != 0 {
            return Err(fault(
                0,
                Fault::Malformed,
                "the genesis is written by seat 0, the creator",
            ));
        }
        let key = verifying_key(0, g.creator_key.bytes())?;
        check_signature(0, &key, &p)?;
        let options: G::Options = typed(0, "the game options", &g.options)?;
        // Setup is pure, so running it once here with a dummy draw checks the
        // options (a custom board set, say) the moment the game is created
        // rather than after everybody has joined.
        G::setup(&options, g.seats.len(), &mut Draw::new([0; 32])).map_err(|e| {
            fault(
                0,
                Fault::IllegalMove,
                format!("the game options are invalid: {e}"),
            )
        })?;
        check_time(0, &body.time)?;
        let n = g.seats.len();
        Ok(Replay {
            game_id: p.id,
            options,
            entries: vec![EntryMeta {
                id: p.id,
                kind: Kind::Genesis,
                author: 0,
                time: body.time.clone(),
                summary: format!("new game of {}", G::NAME),
            }],
            genesis: g,
            seats: vec![SeatRecord::default(); n],
            phase: Phase::Joining(0),
            state: None,
            commitments: BTreeMap::new(),
            revealed: BTreeSet::new(),
            event_causes: BTreeMap::new(),
            countersigned: BTreeSet::new(),
            ended_at: None,
        })
    }

    /// The number of entries replayed.
    pub fn len(&self) -> u64 {
        self.entries.len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The id of the last entry (the chain tip).
    pub fn tip(&self) -> Hash {
        self.entries.last().expect("a replay holds the genesis").id
    }

    pub fn seat_count(&self) -> usize {
        self.genesis.seats.len()
    }

    /// "seat 2, Cleo <cleo@example.org>"
    pub fn seat_label(&self, seat: Seat) -> String {
        match self.genesis.seats.get(seat) {
            Some(s) => format!("seat {}, {} <{}>", seat + 1, s.name, s.email),
            None => format!("seat {}", seat + 1),
        }
    }

    /// Who must write the next entry and what it must be.
    pub fn expected(&self) -> (Action, Option<Seat>) {
        match &self.phase {
            Phase::Joining(s) => (Action::Join, Some(*s)),
            Phase::Ready(i) => (Action::Ready, Some(ready_order(self.seat_count())[*i])),
            Phase::Playing => match G::turn(self.state.as_ref().expect("playing has a state")) {
                Turn::Move(s) => (Action::Move, Some(s)),
                Turn::Reveal(s, _) => (Action::Reveal, Some(s)),
                Turn::Over => (Action::Over, None),
            },
            Phase::Over(_) => (Action::Over, None),
        }
    }

    pub fn is_over(&self) -> bool {
        matches!(self.phase, Phase::Over(_))
    }

    /// The seat holding `key`, if it has joined.
    pub fn seat_of_key(&self, key: &[u8; 32]) -> Option<Seat> {
        self.seats.iter().position(|s| s.key.as_ref() == Some(key))
    }

    /// The seat listed with this e-mail (case-insensitive).
    pub fn seat_of_email(&self, email: &str) -> Option<Seat> {
        self.genesis
            .seats
            .iter()
            .position(|s| s.email.eq_ignore_ascii_case(email))
    }

    /// Standings: the game's, with a resigner placed last.
    pub fn standings(&self) -> Vec<Standing> {
        let Some(state) = &self.state else {
            return Vec::new();
        };
        let rows = G::standings(state);
        match self.phase {
            Phase::Over(Ending::Resigned(r)) => {
                let scores: Vec<i64> = (0..self.seat_count())
                    .map(|s| rows.iter().find(|x| x.seat == s).map_or(0, |x| x.score))
                    .collect();
                let others: Vec<Seat> = (0..self.seat_count()).filter(|&s| s != r).collect();
                let other_scores: Vec<i64> = others.iter().map(|&s| scores[s]).collect();
                let mut out: Vec<Standing> = rank_by_score(&other_scores)
                    .into_iter()
                    .map(|st| Standing {
                        seat: others[st.seat],
                        ..st
                    })
                    .collect();
                out.push(Standing {
                    seat: r,
                    rank: others.len() as u32 + 1,
                    score: scores[r],
                });
                out
            }
            _ => rows,
        }
    }

    fn fail(&self, n: u64, author: Option<Seat>, f: Fault, detail: impl Into<String>) -> LogFault {
        LogFault {
            entry: n,
            fault: f,
            author: author.map(|a| self.seat_label(a)),
            detail: detail.into(),
        }
    }

    /// Checks and applies one line.
    pub fn apply_line(&mut self, n: u64, bytes: &[u8]) -> Result<(), LogFault> {
        let p = parse_line(n, bytes)?;
        let body = &p.line.body;
        if body.game.map(|g| g.0) != Some(self.game_id) {
            return Err(self.fail(
                n,
                None,
                Fault::ForeignEntry,
                match body.game {
                    Some(g) => format!(
                        "the entry belongs to game {}, this log is game {}",
                        hex::encode(&g.0[..8]),
                        hex::encode(&self.game_id[..8])
                    ),
                    None => "the entry names no game (a second genesis?)".into(),
                },
            ));
        }
        if body.n != n {
            return Err(self.fail(
                n,
                None,
                Fault::BrokenChain,
                format!(
                    "the entry says it is entry {}, but it is line {} — a line was removed, duplicated or moved",
                    body.n,
                    n + 1
                ),
            ));
        }
        if body.prev.map(|h| h.0) != Some(self.tip()) {
            return Err(self.fail(
                n,
                None,
                Fault::BrokenChain,
                "the entry does not chain to the one before it (its `prev` is not the previous line's \
                 id): a line before it was changed, removed or reordered",
            ));
        }
        let author = body.author as Seat;
        if author >= self.seat_count() {
            return Err(self.fail(
                n,
                None,
                Fault::Malformed,
                format!("there is no seat {}", author + 1),
            ));
        }
        check_time(n, &body.time)?;
        // The key that must have signed: a join brings its own; every other
        // entry uses the key the seat joined with.
        let key_bytes = match body.kind {
            Kind::Join => typed::<Join>(n, "the join data", &body.data)?.key.0,
            Kind::Genesis => {
                return Err(self.fail(n, Some(author), Fault::Malformed, "a second genesis"));
            }
            _ => self.seats[author].key.ok_or_else(|| {
                self.fail(
                    n,
                    Some(author),
                    Fault::OutOfTurn,
                    "this seat has not joined the game yet",
                )
            })?,
        };
        let key = verifying_key(n, &key_bytes).map_err(|f| LogFault {
            author: Some(self.seat_label(author)),
            ..f
        })?;
        check_signature(n, &key, &p).map_err(|f| LogFault {
            author: Some(self.seat_label(author)),
            ..f
        })?;

        let (action, who) = self.expected();
        let kind_ok = match body.kind {
            Kind::Join => action == Action::Join,
            Kind::Ready => action == Action::Ready,
            Kind::Move => action == Action::Move,
            Kind::Reveal => action == Action::Reveal,
            Kind::Resign => matches!(action, Action::Ready | Action::Move | Action::Reveal),
            Kind::Countersign => action == Action::Over,
            Kind::Genesis => false,
        };
        let seat_ok = body.kind == Kind::Countersign || who == Some(author);
        if !kind_ok || !seat_ok {
            let wanted = match who {
                Some(s) => format!("{} must {}", self.seat_label(s), action.as_str()),
                None => "the game is over".into(),
            };
            return Err(self.fail(
                n,
                Some(author),
                Fault::OutOfTurn,
                format!(
                    "a {} entry is not allowed here: {wanted}",
                    body.kind.as_str()
                ),
            ));
        }

        // Beacon link: joins publish a tip; every later entry steps back once.
        let link = match body.kind {
            Kind::Join => {
                if body.link.is_some() {
                    return Err(self.fail(
                        n,
                        Some(author),
                        Fault::Malformed,
                        "a join entry carries no link",
                    ));
                }
                None
            }
            _ => {
                let l = body
                    .link
                    .ok_or_else(|| {
                        self.fail(
                            n,
                            Some(author),
                            Fault::BadLink,
                            "the entry has no beacon link",
                        )
                    })?
                    .0;
                let prev = self.seats[author].link.expect("joined seats have a link");
                if beacon::step(&l) != prev {
                    return Err(self.fail(
                        n,
                        Some(author),
                        Fault::BadLink,
                        "the beacon link does not hash to the author's previous link (a skipped or \
                         invented link)",
                    ));
                }
                Some(l)
            }
        };

        let summary = self.apply_kind(n, author, &p, link)?;
        if let Some(l) = link {
            let rec = &mut self.seats[author];
            rec.link = Some(l);
            rec.links_used += 1;
        }
        self.entries.push(EntryMeta {
            id: p.id,
            kind: body.kind,
            author,
            time: body.time.clone(),
            summary,
        });
        Ok(())
    }

    fn apply_kind(
        &mut self,
        n: u64,
        author: Seat,
        p: &Parsed,
        link: Option<Hash>,
    ) -> Result<String, LogFault> {
        let body = &p.line.body;
        match body.kind {
            Kind::Genesis => unreachable!("refused above"),
            Kind::Join => {
                let j: Join = typed(n, "the join data", &body.data)?;
                if author == 0 && j.key != self.genesis.creator_key {
                    return Err(self.fail(
                        n,
                        Some(author),
                        Fault::BadSignature,
                        "the creator joined with a key other than the genesis key",
                    ));
                }
                if self.seat_of_key(&j.key.0).is_some() {
                    return Err(self.fail(
                        n,
                        Some(author),
                        Fault::IllegalMove,
                        "this key already holds another seat",
                    ));
                }
                let rec = &mut self.seats[author];
                rec.key = Some(j.key.0);
                rec.nonce = Some(j.nonce.0);
                rec.link = Some(j.tip.0);
                self.phase = if author + 1 < self.seat_count() {
                    Phase::Joining(author + 1)
                } else {
                    Phase::Ready(0)
                };
                Ok("joined".into())
            }
            Kind::Ready => {
                typed::<Empty>(n, "the ready data", &body.data)?;
                self.seats[author].ready_link = link;
                let Phase::Ready(i) = self.phase else {
                    unreachable!()
                };
                if i + 1 < self.seat_count() {
                    self.phase = Phase::Ready(i + 1);
                } else {
                    let links: Vec<Hash> = self
                        .seats
                        .iter()
                        .map(|s| s.ready_link.expect("all ready"))
                        .collect();
                    let mut fields: Vec<&[u8]> = vec![SETUP_TAG, &self.game_id];
                    fields.extend(links.iter().map(|l| l.as_slice()));
                    let mut draw = Draw::new(lp_hash(&fields));
                    let state =
                        G::setup(&self.options, self.seat_count(), &mut draw).map_err(|e| {
                            self.fail(n, Some(author), Fault::IllegalMove, e.to_string())
                        })?;
                    self.state = Some(state);
                    self.phase = Phase::Playing;
                    self.after_play(n, p.id);
                }
                Ok("ready".into())
            }
            Kind::Move => {
                let m: Move = typed(n, "the move data", &body.data)?;
                let action: G::Action = typed(n, "the move", &m.action)?;
                let reveals = self.check_openings(n, author, &m.reveals)?;
                let mut state = self.state.clone().expect("playing");
                resolve_pending::<G>(
                    &mut state,
                    &self.event_causes,
                    author,
                    link.expect("moves carry links"),
                )
                .map_err(|e| self.fail(n, Some(author), Fault::from_rule(e.kind), e.to_string()))?;
                let ctx = Context {
                    seat: author,
                    at: n,
                    commitments: m.commitments.len() as u32,
                    reveals,
                };
                G::play(&mut state, &ctx, &action).map_err(|e| {
                    self.fail(n, Some(author), Fault::from_rule(e.kind), e.to_string())
                })?;
                for (slot, c) in m.commitments.iter().enumerate() {
                    self.commitments.insert(
                        HiddenRef {
                            entry: n,
                            slot: slot as u32,
                        },
                        Commitment {
                            hash: c.0,
                            seat: author,
                        },
                    );
                }
                self.revealed.extend(m.reveals.iter().map(Opening::at));
                self.state = Some(state);
                self.after_play(n, p.id);
                Ok(G::describe(&action))
            }
            Kind::Reveal => {
                let r: Reveal = typed(n, "the reveal data", &body.data)?;
                let reveals = self.check_openings(n, author, &r.reveals)?;
                let mut state = self.state.clone().expect("playing");
                resolve_pending::<G>(
                    &mut state,
                    &self.event_causes,
                    author,
                    link.expect("reveals carry links"),
                )
                .map_err(|e| self.fail(n, Some(author), Fault::from_rule(e.kind), e.to_string()))?;
                let ctx = Context {
                    seat: author,
                    at: n,
                    commitments: 0,
                    reveals,
                };
                G::reveal(&mut state, &ctx).map_err(|e| {
                    let f = match e.kind {
                        crate::games::RuleErrorKind::Illegal => Fault::BadReveal,
                        k => Fault::from_rule(k),
                    };
                    self.fail(n, Some(author), f, e.to_string())
                })?;
                self.revealed.extend(r.reveals.iter().map(Opening::at));
                self.state = Some(state);
                self.after_play(n, p.id);
                Ok(format!("revealed {} token(s)", r.reveals.len()))
            }
            Kind::Resign => {
                typed::<Empty>(n, "the resign data", &body.data)?;
                self.phase = Phase::Over(Ending::Resigned(author));
                self.ended_at = Some(n);
                Ok("resigned".into())
            }
            Kind::Countersign => {
                let c: Countersign = typed(n, "the countersign data", &body.data)?;
                let end = self.ended_at.expect("over");
                if c.final_entry.0 != self.entries[end as usize].id {
                    return Err(self.fail(
                        n,
                        Some(author),
                        Fault::IllegalMove,
                        format!(
                            "the countersignature names an entry other than the final entry {end}"
                        ),
                    ));
                }
                if !self.countersigned.insert(author) {
                    return Err(self.fail(
                        n,
                        Some(author),
                        Fault::IllegalMove,
                        "this seat has countersigned already",
                    ));
                }
                Ok("countersigned".into())
            }
        }
    }

    /// Records the events a move requested and notices the end of the game.
    fn after_play(&mut self, n: u64, id: Hash) {
        let state = self.state.as_ref().expect("playing");
        for e in G::pending(state) {
            self.event_causes.entry(e.id).or_insert(id);
        }
        if G::turn(state) == Turn::Over {
            self.phase = Phase::Over(Ending::Finished);
            self.ended_at = Some(n);
        }
    }

    /// Verifies openings against their commitments and parses the values.
    fn check_openings(
        &self,
        n: u64,
        author: Seat,
        openings: &[Opening],
    ) -> Result<Vec<(HiddenRef, G::Hidden)>, LogFault> {
        let key = self.seats[author].key.expect("joined");
        let mut out = Vec::with_capacity(openings.len());
        let mut seen = BTreeSet::new();
        for o in openings {
            let at = o.at();
            let bad = |detail: String| self.fail(n, Some(author), Fault::BadReveal, detail);
            let c = self
                .commitments
                .get(&at)
                .ok_or_else(|| bad(format!("there is no commitment at {at}")))?;
            if c.seat != author {
                return Err(bad(format!(
                    "the commitment at {at} belongs to {}",
                    self.seat_label(c.seat)
                )));
            }
            if self.revealed.contains(&at) || !seen.insert(at) {
                return Err(bad(format!("the commitment at {at} was revealed already")));
            }
            let value: G::Hidden = typed(n, "a revealed value", &o.value)?;
            let bytes = canonical::to_bytes(&o.value);
            let slot = commitment::Slot {
                game: &self.game_id,
                author_key: &key,
                entry: at.entry,
                slot: at.slot,
            };
            if commitment::commit(slot, &bytes, o.salt.bytes()) != c.hash {
                return Err(bad(format!(
                    "the value and salt revealed for {at} do not open the commitment made there"
                )));
            }
            out.push((at, value));
        }
        Ok(out)
    }

    /// The state as the seat to act will see it once their next entry
    /// resolves the pending random events (their program knows their next
    /// link; nobody else can compute this yet).
    pub fn preview(&self, seat: Seat, next_link: &Hash) -> Option<G::State> {
        let mut state = self.state.clone()?;
        resolve_pending::<G>(&mut state, &self.event_causes, seat, *next_link).ok()?;
        Some(state)
    }

    /// The per-game secret of `seat`, if `id` holds it.
    pub fn game_secret(&self, id: &Identity, seat: Seat) -> Option<Hash> {
        let rec = &self.seats[seat];
        (rec.key? == id.public_key())
            .then(|| id.game_secret(&self.game_id, &rec.nonce.expect("joined")))
    }

    /// The link `seat` must put in their next entry.
    pub fn next_link(&self, secret: &Hash, seat: Seat) -> Option<Hash> {
        beacon::link_for(&beacon::seed(secret), self.seats[seat].links_used + 1)
    }

    /// Recovers the values behind `seat`'s unrevealed commitments: their
    /// program re-derives each salt and tries every possible value.
    pub fn own_hidden(&self, secret: &Hash, seat: Seat) -> Result<Own<G::Hidden>, String> {
        let key = self.seats[seat].key.expect("joined");
        let candidates: Vec<(G::Hidden, Vec<u8>)> = G::hidden_values()
            .into_iter()
            .map(|h| {
                let b = canonical::to_bytes(&canonical::to_value(&h));
                (h, b)
            })
            .collect();
        let mut own = Own::default();
        for (at, c) in &self.commitments {
            if c.seat != seat || self.revealed.contains(at) {
                continue;
            }
            let salt = commitment::salt(secret, at.entry, at.slot);
            let slot = commitment::Slot {
                game: &self.game_id,
                author_key: &key,
                entry: at.entry,
                slot: at.slot,
            };
            let found = candidates
                .iter()
                .find(|(_, b)| commitment::commit(slot, b, &salt) == c.hash)
                .ok_or_else(|| format!("your commitment at {at} does not match any value your identity could have made"))?;
            own.hidden.insert(*at, found.0.clone());
        }
        Ok(own)
    }

    /// The openings `seat` must publish for `refs`.
    pub fn openings(
        &self,
        secret: &Hash,
        own: &Own<G::Hidden>,
        refs: &[HiddenRef],
    ) -> Result<Vec<Opening>, String> {
        refs.iter()
            .map(|at| {
                let value = own
                    .hidden
                    .get(at)
                    .ok_or_else(|| format!("you hold no hidden value at {at}"))?;
                Ok(Opening {
                    entry: at.entry,
                    salt: commitment::salt(secret, at.entry, at.slot).into(),
                    slot: at.slot,
                    value: canonical::to_value(value),
                })
            })
            .collect()
    }

    /// A commitment for a value placed by `seat` at slot `slot` of the next entry.
    pub fn commit_next(&self, secret: &Hash, seat: Seat, slot: u32, value: &G::Hidden) -> Hash {
        let key = self.seats[seat].key.expect("joined");
        let at = self.len();
        let s = commitment::salt(secret, at, slot);
        commitment::commit(
            commitment::Slot {
                game: &self.game_id,
                author_key: &key,
                entry: at,
                slot,
            },
            &canonical::to_bytes(&canonical::to_value(value)),
            &s,
        )
    }

    /// Builds the next line (with its newline), signed by `id` as `seat`.
    pub fn next_line(
        &self,
        id: &Identity,
        seat: Seat,
        kind: Kind,
        data: Value,
        link: Option<Hash>,
        time: String,
    ) -> Vec<u8> {
        let body = Body {
            author: seat as u32,
            data,
            game: Some(self.game_id.into()),
            kind,
            link: link.map(HexHash),
            n: self.len(),
            prev: Some(self.tip().into()),
            time,
        };
        sign_line(id, body)
    }
}

/// Signs a body and returns the canonical line with its newline.
pub fn sign_line(id: &Identity, body: Body) -> Vec<u8> {
    let body_bytes = canonical::to_bytes(&canonical::to_value(&body));
    let sig = id.sign(&signed_message(&body_bytes));
    let line = Line {
        body,
        sig: B64.encode(sig),
    };
    let mut bytes = canonical::to_bytes(&canonical::to_value(&line));
    bytes.push(b'\n');
    bytes
}

fn resolve_pending<G: Game>(
    state: &mut G::State,
    causes: &BTreeMap<u64, Hash>,
    author: Seat,
    link: Hash,
) -> Result<(), crate::games::RuleError> {
    for e in G::pending(state) {
        if e.causer == author {
            continue;
        }
        let cause = causes
            .get(&e.id)
            .expect("every pending event has a recorded cause");
        let seed = lp_hash(&[DRAW_TAG, cause, &e.id.to_be_bytes(), &link]);
        G::resolve(state, e.id, &mut Draw::new(seed))?;
    }
    Ok(())
}

fn verifying_key(n: u64, bytes: &[u8; 32]) -> Result<VerifyingKey, LogFault> {
    let key = VerifyingKey::from_bytes(bytes).map_err(|_| {
        fault(
            n,
            Fault::BadSignature,
            "the public key is not a valid Ed25519 point",
        )
    })?;
    if key.is_weak() {
        return Err(fault(
            n,
            Fault::BadSignature,
            "the public key is weak (small order) and is refused",
        ));
    }
    Ok(key)
}

fn check_signature(n: u64, key: &VerifyingKey, p: &Parsed) -> Result<(), LogFault> {
    let raw = B64
        .decode(&p.line.sig)
        .ok()
        .and_then(|b| <[u8; 64]>::try_from(b).ok())
        .ok_or_else(|| {
            fault(
                n,
                Fault::BadSignature,
                "the signature is missing or is not 64 bytes of base64",
            )
        })?;
    if B64.encode(raw) != p.line.sig {
        return Err(fault(
            n,
            Fault::NonCanonical,
            "the signature's base64 is not in canonical form",
        ));
    }
    let sig = Signature::from_bytes(&raw);
    key.verify_strict(&signed_message(&p.body_bytes), &sig)
        .map_err(|_| {
            fault(
                n,
                Fault::BadSignature,
                "the signature does not verify: the entry was changed after signing or signed by \
             someone else",
            )
        })
}

fn check_time(n: u64, t: &str) -> Result<(), LogFault> {
    let ok = chrono::DateTime::parse_from_rfc3339(t).is_ok() && t.len() == 20 && t.ends_with('Z');
    if ok {
        Ok(())
    } else {
        Err(fault(
            n,
            Fault::Malformed,
            format!("`{t}` is not a UTC time like 2026-11-20T21:59:00Z"),
        ))
    }
}

/// The current time in the log's format.
pub fn now() -> String {
    chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string()
}
