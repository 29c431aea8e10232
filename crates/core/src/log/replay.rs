//! Replaying a log: every check the protocol requires, in one place. Every
//! command that reads a log goes through [`Replay`], and `audit` is nothing
//! but a replay that reports, so a log that plays is a log that audits.
//!
//! The checks run line by line in the order of the fault table in
//! `docs/protocol.md`, section 8; the first that fails names the fault. The
//! steps are marked below as `S1` … `S12`, as in the spec.

use std::collections::{BTreeMap, BTreeSet};

use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use ed25519_dalek::{Signature, VerifyingKey};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::canonical;
use super::entry::*;
use super::verify;
use crate::crypto::identity::Identity;
use crate::crypto::{Hash, beacon, commitment, lp_hash};
use crate::error::{Fault, LogFault};
use crate::games::{Context, Draw, Game, HiddenRef, Own, Seat, Standing, Turn, rank_by_score};
use crate::text::{excerpt, excerpt_of, inline};

/// Domain tag of entry signatures.
pub const SIG_TAG: &[u8] = b"starry/1 entry";
const SETUP_TAG: &[u8] = b"starry/1 setup";
const DRAW_TAG: &[u8] = b"starry/1 draw";

/// The seed of the setup draw (docs/protocol.md, section 6.2): the game id
/// and every seat's ready link, in seat order.
pub fn setup_seed(game_id: &Hash, ready_links: &[Hash]) -> Hash {
    let mut fields: Vec<&[u8]> = vec![SETUP_TAG, game_id];
    fields.extend(ready_links.iter().map(|l| l.as_slice()));
    lp_hash(&fields)
}

/// The seed that resolves random event `event`, requested by the entry with
/// id `cause`, in the entry that carries `link` (docs/protocol.md, section 6.3).
pub fn draw_seed(cause: &Hash, event: u64, link: &Hash) -> Hash {
    lp_hash(&[DRAW_TAG, cause, &event.to_be_bytes(), link])
}

/// Longest line a log may hold, in bytes, newline excluded (1 MiB). A whole
/// game's log is far smaller; the bound keeps a hostile file from costing
/// more than a moment to refuse.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// The message an entry's signature covers.
pub fn signed_message(body: &[u8]) -> Vec<u8> {
    let mut m = Vec::with_capacity(body.len() + SIG_TAG.len() + 8);
    m.extend_from_slice(&(SIG_TAG.len() as u32).to_be_bytes());
    m.extend_from_slice(SIG_TAG);
    m.extend_from_slice(&(body.len() as u32).to_be_bytes());
    m.extend_from_slice(body);
    m
}

/// The kind-specific data of an entry, in the shape the protocol defines.
/// Game objects inside it (`options`, `action`, revealed values) stay JSON
/// until the game reads them.
#[derive(Clone, Debug)]
pub enum Data {
    Genesis(Genesis),
    Join(Join),
    Ready,
    Move(Move),
    Reveal(Reveal),
    Resign(Resign),
    Countersign(Countersign),
    Abandon(Abandon),
}

/// A line that has the protocol's shape and is canonical.
#[derive(Clone, Debug)]
pub struct Parsed {
    pub line: Line,
    /// The line's bytes, without the newline.
    pub bytes: Vec<u8>,
    /// SHA-256 of `bytes`: the entry id.
    pub id: Hash,
    /// The body's bytes (what the signature covers).
    pub body_bytes: Vec<u8>,
    pub data: Data,
}

/// How much of a line to check. `Full`: everything the protocol asks
/// (audit, and every entry not verified before). `Known`: a line this
/// player's program verified in full before, in a prefix whose bytes are
/// unchanged (the verified-prefix cache, `app::cache`): its canonical form
/// and its signature, the costly checks, are not redone; everything that
/// builds the game (chain, turn, links, commitments, draws, rules) still
/// runs, so the replay is the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    Full,
    Known,
}

impl Check {
    /// The check of entry `entry` of a log whose first `known` entries
    /// were verified before.
    pub fn of(entry: usize, known: usize) -> Check {
        if entry < known {
            Check::Known
        } else {
            Check::Full
        }
    }
}

fn fault(entry: u64, fault: Fault, detail: impl Into<String>) -> LogFault {
    LogFault {
        entry,
        fault,
        author: None,
        detail: detail.into(),
    }
}

/// Splits a log into its complete lines and the fault, if any, that ends
/// them: an empty log, a blank line, a last line without its newline, or a
/// line shorter than any entry ([`SHORTEST_LINE_BYTES`]; that line is kept,
/// so a replay names its own fault first). Every line before that fault is
/// checked before the fault is reported, so the first fault in file order
/// is the one named.
pub fn lines(bytes: &[u8]) -> (Vec<&[u8]>, Option<LogFault>) {
    if bytes.is_empty() {
        return (
            Vec::new(),
            Some(fault(0, Fault::Malformed, "the log is empty")),
        );
    }
    let mut out: Vec<&[u8]> = Vec::new();
    let mut pieces = bytes.split(|&b| b == b'\n').peekable();
    while let Some(piece) = pieces.next() {
        let last = pieces.peek().is_none();
        let n = out.len() as u64;
        if last {
            if piece.is_empty() {
                return (out, None);
            }
            return (
                out,
                Some(fault(
                    n,
                    Fault::Truncated,
                    "the last line does not end with a newline: the file was cut short (restore \
                     it from the sender's copy or the mail it came in)",
                )),
            );
        }
        if piece.is_empty() {
            return (
                out,
                Some(fault(
                    n,
                    Fault::Malformed,
                    "blank line (a log has none; if it is the last line, delete it)",
                )),
            );
        }
        out.push(piece);
        // A line too short to be an entry ends the replay at the latest
        // there, so the lines after it are not kept: what reading a log
        // costs stays bounded by its bytes, not by its count of lines.
        if piece.len() < SHORTEST_LINE_BYTES {
            return (
                out,
                Some(fault(
                    n,
                    Fault::Malformed,
                    format!(
                        "the line is {} bytes long; no line of a starry log is shorter than \
                         {SHORTEST_LINE_BYTES} bytes (its signature alone takes 88)",
                        piece.len()
                    ),
                )),
            );
        }
    }
    (out, None)
}

/// No line of a log is shorter: `{"body":{…},"sig":"…"}` with a signature
/// of 88 base64 characters is already 107 bytes.
pub const SHORTEST_LINE_BYTES: usize = 100;

/// The lines of a log that must be whole: the first fault of [`lines`], if
/// any, is an error.
/// The bytes of entries `k` on (a partial log, as a turn mail carries it)
/// and of entries before `k` (what it continues), for a log whose lines
/// `split_lines` gave; `k` at most the number of lines.
pub fn split_at_entry<'a>(bytes: &'a [u8], lines: &[&[u8]], k: usize) -> (&'a [u8], &'a [u8]) {
    let at: usize = lines[..k].iter().map(|l| l.len() + 1).sum();
    bytes.split_at(at)
}

pub fn split_lines(bytes: &[u8]) -> Result<Vec<&[u8]>, LogFault> {
    match lines(bytes) {
        (l, None) => Ok(l),
        (_, Some(f)) => Err(f),
    }
}

/// Parses a protocol object of type `T`; a shape error is malformed (S2).
fn shaped<T: DeserializeOwned>(n: u64, what: &str, value: &Value) -> Result<T, LogFault> {
    // Read from the value in place: a clone of it first would cost a
    // quarter of the parse.
    T::deserialize(value).map_err(|e| {
        fault(
            n,
            Fault::Malformed,
            format!("{what}: {}", excerpt_of(&e.to_string(), 160)),
        )
    })
}

/// Checks that a parsed protocol object re-encodes to exactly the JSON it
/// was read from (S3).
fn same_encoding<T: serde::Serialize>(
    n: u64,
    what: &str,
    t: &T,
    value: &Value,
) -> Result<(), LogFault> {
    if canonical::to_value(t) != *value {
        return Err(fault(
            n,
            Fault::NonCanonical,
            format!("{what} is not in canonical form (a `null`, or a field spelt two ways)"),
        ));
    }
    Ok(())
}

/// Steps S2 and S3 for one line: the protocol's shape, then canonical form.
pub fn parse_line(n: u64, bytes: &[u8]) -> Result<Parsed, LogFault> {
    parse_line_as(n, bytes, Check::Full)
}

/// [`parse_line`]; a `Known` line skips S3 and leaves `body_bytes` empty
/// (its signature is not checked).
pub fn parse_line_as(n: u64, bytes: &[u8], check: Check) -> Result<Parsed, LogFault> {
    // S2: shape.
    let value = read_object(n, bytes)?;
    check_version(n, &value)?;
    if let Some(at) = canonical::find_float(&value, &mut String::new()) {
        return Err(fault(
            n,
            Fault::NonCanonical,
            format!(
                "a number at {} is not an integer (only integers are allowed)",
                excerpt(&at)
            ),
        ));
    }
    let line: Line = shaped(n, "not a log entry", &value)?;
    check_envelope(n, &line.body)?;
    check_time(n, &line.body.time)?;
    let data = read_data(n, &line.body)?;

    if check == Check::Known {
        return Ok(Parsed {
            line,
            bytes: bytes.to_vec(),
            id: crate::crypto::sha256(bytes),
            body_bytes: Vec::new(),
            data,
        });
    }
    // S3: canonical form.
    check_canonical(n, bytes, &value, &line, &data)?;
    // The line is canonical, and canonical form is compositional, so the
    // body's bytes are the line's between `{"body":` and `,"sig":"…"}`: no
    // need to encode the body again.
    let body_bytes = body_slice(bytes).to_vec();
    debug_assert_eq!(
        body_bytes,
        canonical::to_bytes(&canonical::to_value(&line.body))
    );
    Ok(Parsed {
        line,
        bytes: bytes.to_vec(),
        id: crate::crypto::sha256(bytes),
        body_bytes,
        data,
    })
}

/// S2, first: the line is at most [`MAX_LINE_BYTES`] of UTF-8, nests no
/// deeper than a log ever does (checked on the bytes, before the parser
/// could recurse), and is a JSON object.
fn read_object(n: u64, bytes: &[u8]) -> Result<Value, LogFault> {
    if bytes.len() > MAX_LINE_BYTES {
        return Err(fault(
            n,
            Fault::Malformed,
            format!(
                "the line is {} bytes long; a line of a starry log is at most {MAX_LINE_BYTES} bytes",
                bytes.len()
            ),
        ));
    }
    let text = std::str::from_utf8(bytes)
        .map_err(|_| fault(n, Fault::Malformed, "the line is not UTF-8"))?;
    if let Some(at) = canonical::too_deep(bytes) {
        return Err(fault(
            n,
            Fault::Malformed,
            format!(
                "the JSON nests deeper than {} levels of objects and arrays (at byte {at}); a \
                 line of a starry log never does",
                canonical::MAX_DEPTH
            ),
        ));
    }
    let value: Value = serde_json::from_str(text).map_err(|e| {
        fault(
            n,
            Fault::Malformed,
            format!(
                "not JSON ({}); the line begins `{}`",
                excerpt_of(&e.to_string(), 120),
                excerpt(text)
            ),
        )
    })?;
    if !value.is_object() {
        return Err(fault(
            n,
            Fault::Malformed,
            format!("the line is JSON but not an object: `{}`", excerpt(text)),
        ));
    }
    Ok(value)
}

/// A genesis of another protocol version may have another shape: say so
/// before judging its shape by this version's rules.
fn check_version(n: u64, value: &Value) -> Result<(), LogFault> {
    if n == 0
        && value["body"]["kind"] == "genesis"
        && let Some(v) = value["body"]["data"]["protocol"]
            .as_i64()
            .or_else(|| value["body"]["data"]["protocol"].as_u64().map(|_| i64::MAX))
        && !READABLE_VERSIONS.iter().any(|&r| i64::from(r) == v)
    {
        return Err(fault(
            n,
            Fault::UnknownVersion,
            format!(
                "this log uses protocol version {}; this program implements versions 2 and \
                 {PROTOCOL_VERSION} only, and refuses rather than guess — use a starry \
                 release that implements that version",
                excerpt(&value["body"]["data"]["protocol"].to_string())
            ),
        ));
    }
    Ok(())
}

/// S2: the genesis alone has no `game`, `prev` nor `link`; a join has no
/// `link` (the seat's chain starts with it).
fn check_envelope(n: u64, body: &Body) -> Result<(), LogFault> {
    let kind = body.kind.as_str();
    let (game, prev, link) = match body.kind {
        Kind::Genesis => (false, false, false),
        Kind::Join => (true, true, false),
        _ => (true, true, true),
    };
    for (present, wanted, key) in [
        (body.game.is_some(), game, "game"),
        (body.prev.is_some(), prev, "prev"),
        (body.link.is_some(), link, "link"),
    ] {
        if present != wanted {
            return Err(fault(
                n,
                Fault::Malformed,
                if wanted {
                    format!("a {kind} entry must have `{key}`")
                } else {
                    format!("a {kind} entry has no `{key}`")
                },
            ));
        }
    }
    Ok(())
}

/// S2: the data has the shape of its kind.
fn read_data(n: u64, body: &Body) -> Result<Data, LogFault> {
    let d = &body.data;
    Ok(match body.kind {
        Kind::Genesis => {
            let g: Genesis = shaped(n, "the genesis data", d)?;
            check_seats(n, &g.seats)?;
            check_deadline(n, &g)?;
            check_operators(n, &g)?;
            Data::Genesis(g)
        }
        Kind::Join => Data::Join(shaped(n, "the join data", d)?),
        Kind::Ready => {
            shaped::<Empty>(n, "the ready data", d)?;
            Data::Ready
        }
        Kind::Move => Data::Move(shaped(n, "the move data", d)?),
        Kind::Reveal => Data::Reveal(shaped(n, "the reveal data", d)?),
        Kind::Resign => Data::Resign(shaped(n, "the resign data", d)?),
        Kind::Countersign => Data::Countersign(shaped(n, "the countersign data", d)?),
        Kind::Abandon => Data::Abandon(shaped(n, "the abandon data", d)?),
    })
}

/// S3: the line is the canonical encoding of what it says, so that its id
/// and signature are of one text only.
fn check_canonical(
    n: u64,
    bytes: &[u8],
    value: &Value,
    line: &Line,
    data: &Data,
) -> Result<(), LogFault> {
    // A `null` is never canonical, wherever it stands (inside a game object
    // too, where the game would not see it).
    if let Some(at) = canonical::find_null(value, &mut String::new()) {
        return Err(fault(
            n,
            Fault::NonCanonical,
            format!(
                "a `null` at {}: a canonical line has none (an absent value is left out)",
                excerpt(&at)
            ),
        ));
    }
    // Canonical bytes are a one-to-one image of float-free values, so once
    // the value encodes to the line, the typed line encodes to it exactly
    // when it converts back to the same value: compared as values, without
    // encoding a second time.
    if canonical::to_bytes(value) != bytes || canonical::to_value(line) != *value {
        let detail = if bytes.ends_with(b"\r") {
            "the line ends with a carriage return (Windows line endings, CR LF): a tool \
             converted the file. Convert it back to LF line endings (`dos2unix`), and in a git \
             repository add `*.jsonl -text` to .gitattributes so that git leaves logs alone"
        } else {
            "the line is not in canonical form (keys sorted, no spaces, minimal escapes, no \
             duplicate keys); it was edited by hand or by another tool"
        };
        return Err(fault(n, Fault::NonCanonical, detail));
    }
    let d = &line.body.data;
    match data {
        Data::Genesis(g) => same_encoding(n, "the genesis data", g, d),
        Data::Join(j) => same_encoding(n, "the join data", j, d),
        Data::Ready => same_encoding(n, "the ready data", &Empty {}, d),
        Data::Move(m) => same_encoding(n, "the move data", m, d),
        Data::Reveal(r) => same_encoding(n, "the reveal data", r, d),
        Data::Resign(r) => same_encoding(n, "the resign data", r, d),
        Data::Countersign(c) => same_encoding(n, "the countersign data", c, d),
        Data::Abandon(a) => same_encoding(n, "the abandon data", a, d),
    }
}

/// The body of a canonical line `{"body":BODY,"sig":"BASE64"}`. The
/// signature is base64, so the last `,"sig":"` is where the body ends.
fn body_slice(line: &[u8]) -> &[u8] {
    const HEAD: &[u8] = b"{\"body\":";
    const TAIL: &[u8] = b",\"sig\":\"";
    let end = line
        .windows(TAIL.len())
        .rposition(|w| w == TAIL)
        .expect("a canonical line has a signature");
    &line[HEAD.len()..end]
}

/// The genesis' rules for seats (S2): valid names and addresses, no
/// address twice.
fn check_seats(n: u64, seats: &[SeatInfo]) -> Result<(), LogFault> {
    let mut emails = BTreeSet::new();
    for (i, s) in seats.iter().enumerate() {
        crate::text::check_name(&s.name)
            .and_then(|_| crate::text::check_email(&s.email))
            .map_err(|e| fault(n, Fault::Malformed, format!("seat {i}: {e}")))?;
        if !emails.insert(s.email.to_ascii_lowercase()) {
            return Err(fault(
                n,
                Fault::Malformed,
                format!("{} holds two seats", inline(&s.email)),
            ));
        }
    }
    Ok(())
}

/// S2 for a genesis' deadline: a version 2 genesis has none; a version 3
/// one has none or one of 1 s to [`MAX_DEADLINE`].
fn check_deadline(n: u64, g: &Genesis) -> Result<(), LogFault> {
    match g.deadline {
        Some(_) if g.protocol < 3 => Err(fault(
            n,
            Fault::Malformed,
            "a genesis of protocol version 2 has no `deadline` (deadlines came with version 3)",
        )),
        Some(d) if !(1..=MAX_DEADLINE).contains(&d) => Err(fault(
            n,
            Fault::Malformed,
            format!(
                "the deadline is {d} seconds; it must be 1 to {MAX_DEADLINE} (366 days), or be \
                 left out for none"
            ),
        )),
        _ => Ok(()),
    }
}

/// S2 for the computer seats' operators (protocol 3, docs/protocol.md
/// section 3.4): an operated seat is pinned, its operator is another seat
/// that is a person (has no operator itself), and seat 0, who signs the
/// genesis, is a person.
fn check_operators(n: u64, g: &Genesis) -> Result<(), LogFault> {
    let bad = |detail: String| Err(fault(n, Fault::Malformed, detail));
    for (i, s) in g.seats.iter().enumerate() {
        let Some(op) = s.operator else { continue };
        if g.protocol < 3 {
            return bad(
                "a genesis of protocol version 2 has no `operator` (operators came with \
                 version 3)"
                    .into(),
            );
        }
        if i == 0 {
            return bad(
                "seat 0 has an operator; seat 0 is the creator, a person, who signs the genesis"
                    .into(),
            );
        }
        if op as usize == i {
            return bad(format!("seat {i} names itself as its operator"));
        }
        let Some(person) = g.seats.get(op as usize) else {
            return bad(format!(
                "seat {i}'s operator is seat {op}; the game has seats 0 to {}",
                g.seats.len() - 1
            ));
        };
        if person.operator.is_some() {
            return bad(format!(
                "seat {i}'s operator, seat {op}, is a computer seat itself; an operator is a \
                 person"
            ));
        }
        if s.key.is_none() {
            return bad(format!(
                "seat {i} has an operator but no pinned key; a computer seat is pinned to the \
                 key its operator's machine made for it"
            ));
        }
    }
    Ok(())
}

/// Parses a game object (an action, the options) into the game's type: one
/// the game cannot read is an illegal move (20), and so is one of another
/// JSON type than the game writes where it stands (an array for an object:
/// serde would read a struct from an array); one it reads but would write
/// differently is non-canonical (12).
pub fn game_object<T: DeserializeOwned + serde::Serialize>(
    n: u64,
    what: &str,
    value: &Value,
) -> Result<T, LogFault> {
    let t: T = serde_json::from_value(value.clone()).map_err(|e| {
        fault(
            n,
            Fault::IllegalMove,
            format!(
                "{what} is not one this game knows: {}",
                excerpt_of(&e.to_string(), 160)
            ),
        )
    })?;
    let written = canonical::to_value(&t);
    if let Some((at, got, want)) = canonical::type_mismatch(value, &written, &mut String::new()) {
        return Err(fault(
            n,
            Fault::IllegalMove,
            format!(
                "{what} is not one this game knows: {} is {got}, where the game writes {want}",
                if at.is_empty() {
                    "it".to_string()
                } else {
                    format!("`{}`", excerpt(&at))
                },
            ),
        ));
    }
    if written != *value {
        return Err(fault(
            n,
            Fault::NonCanonical,
            format!(
                "{what} is not in canonical form: the game writes it as {} (every field written \
                 out, defaults included)",
                excerpt_of(
                    &String::from_utf8_lossy(&canonical::to_bytes(&canonical::to_value(&t))),
                    200
                )
            ),
        ));
    }
    Ok(t)
}

/// Reads only the genesis: enough to know which game a log is.
pub fn read_genesis(bytes: &[u8]) -> Result<(Genesis, Hash), LogFault> {
    let (l, end) = lines(bytes);
    let Some(first) = l.first() else {
        return Err(end.expect("no line means a fault"));
    };
    let p = parse_line(0, first)?;
    let g = genesis_of(&p)?;
    Ok((g.clone(), p.id))
}

/// S4–S5 for line 0: it must be a genesis, entry 0.
fn genesis_of(p: &Parsed) -> Result<&Genesis, LogFault> {
    let body = &p.line.body;
    let Data::Genesis(g) = &p.data else {
        return Err(fault(
            0,
            Fault::BrokenChain,
            format!(
                "the first line must be the genesis, entry 0; it is a {} entry (entry {}): the \
                 beginning of the log is missing, or this is not a starry log",
                body.kind.as_str(),
                body.n
            ),
        ));
    };
    if body.n != 0 {
        return Err(fault(
            0,
            Fault::BrokenChain,
            format!("the genesis says it is entry {}; it is entry 0", body.n),
        ));
    }
    Ok(g)
}

/// The protocol phase.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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

/// How a game ended.
/// Seats here count from 0, as in the log and in every report
/// (`app::report::EndingReport`; docs/json.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Ending {
    /// Played to the end under the rules.
    Finished,
    /// Nobody could move any more (the game's rules say when).
    Stalled,
    /// This seat resigned.
    Resigned { seat: Seat },
    /// Every other seat claimed that this seat stopped answering; the game
    /// had waited for its entry since entry `awaited`.
    Abandoned { seat: Seat, awaited: u64 },
}

impl Ending {
    /// The seat placed last regardless of score, if any.
    pub fn last(self) -> Option<Seat> {
        match self {
            Ending::Resigned { seat } | Ending::Abandoned { seat, .. } => Some(seat),
            _ => None,
        }
    }
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
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct SeatRecord {
    pub key: Option<[u8; 32]>,
    pub nonce: Option<Hash>,
    /// The last link published (the tip after joining).
    pub link: Option<Hash>,
    /// Entries written since joining (each revealed one link).
    pub links_used: u32,
    pub ready_link: Option<Hash>,
    /// Which mails the player asked for when joining.
    pub notify: crate::log::entry::Notify,
}

/// What each entry was, for status and history displays.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct EntryMeta {
    pub id: Hash,
    pub kind: Kind,
    pub author: Seat,
    pub time: String,
    /// For moves: what the mover did, in the game's words
    /// ([`Game::narrate`]).
    pub summary: String,
}

/// The clock of the seat the game waits for (protocol 3, a game with a
/// deadline; docs/protocol.md, section 7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// The seat the game waits for.
    pub seat: Seat,
    /// The entry whose time started the clock.
    pub since: u64,
    /// The game's deadline, in seconds.
    pub deadline: u64,
    /// When the deadline passes (Unix seconds): from then on another seat
    /// may claim the game abandoned.
    pub due: i64,
}

/// Claims, not yet complete, that the awaited seat has stopped answering.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Claims {
    /// The seat the game waits for.
    pub silent: Seat,
    /// The entry at which it has been waited for (the first claim's number).
    pub awaited: u64,
    /// The seats that have claimed so far.
    pub by: BTreeSet<Seat>,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct Commitment {
    hash: Hash,
    seat: Seat,
}

/// A log replayed up to some entry, with every check passed. Serialisable
/// for the verified-prefix cache (`app::cache`).
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(bound = "")]
pub struct Replay<G: Game> {
    pub game_id: Hash,
    /// As its JSON text: the options in it stay JSON, which a compact
    /// binary snapshot cannot describe.
    #[serde(with = "as_json")]
    pub genesis: Genesis,
    /// As JSON text too: options omit absent fields, which only a
    /// self-describing format reads back.
    #[serde(with = "as_json")]
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
    /// Abandonment claims in progress.
    pub claims: Option<Claims>,
    /// The entry at which the game ended.
    pub ended_at: Option<u64>,
    /// Keys already decoded and checked, by their bytes: decoding a point
    /// (a square root) costs as much as a fifth of a signature check, and a
    /// game has a handful of keys for hundreds of entries.
    #[serde(skip)]
    keys: BTreeMap<[u8; 32], VerifyingKey>,
}

/// A field kept as its JSON text inside a binary snapshot.
mod as_json {
    use serde::de::DeserializeOwned;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<T: Serialize, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        let text = serde_json::to_string(v).map_err(serde::ser::Error::custom)?;
        s.serialize_str(&text)
    }

    pub fn deserialize<'de, T: DeserializeOwned, D: Deserializer<'de>>(
        d: D,
    ) -> Result<T, D::Error> {
        let text = String::deserialize(d)?;
        serde_json::from_str(&text).map_err(serde::de::Error::custom)
    }
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
            claims: self.claims.clone(),
            ended_at: self.ended_at,
            keys: self.keys.clone(),
        }
    }
}

impl<G: Game> Replay<G> {
    /// Replays a whole log.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, LogFault> {
        Self::from_bytes_upto(bytes, usize::MAX)
    }

    /// Replays a whole log whose first `known` entries this player's
    /// program verified in full before ([`Check::Known`]); the rest are
    /// checked in full.
    pub fn from_bytes_known(bytes: &[u8], known: usize) -> Result<Self, LogFault> {
        let (lines, end) = lines(bytes);
        let Some(first) = lines.first() else {
            return Err(end.expect("no line means a fault"));
        };
        // The helpers start before the genesis is read: setting up the
        // game is time they can already use.
        let replay = verify::ahead(&lines, known, |ahead| {
            let mut replay = Self::from_genesis_as(first, Check::of(0, known))?;
            for (i, l) in lines.iter().enumerate().skip(1) {
                replay.apply_line_ahead(i as u64, l, Check::of(i, known), ahead)?;
            }
            Ok(replay)
        })?;
        match end {
            Some(f) => Err(f),
            None => Ok(replay),
        }
    }

    /// Replays only the first `count` entries (for `view --at`).
    pub fn from_bytes_upto(bytes: &[u8], count: usize) -> Result<Self, LogFault> {
        let (lines, end) = lines(bytes);
        let Some(first) = lines.first() else {
            return Err(end.expect("no line means a fault"));
        };
        let upto = &lines[..count.min(lines.len())];
        let replay = verify::ahead(upto, 0, |ahead| {
            let mut replay = Self::from_genesis(first)?;
            for (i, l) in upto.iter().enumerate().skip(1) {
                replay.apply_line_ahead(i as u64, l, Check::Full, ahead)?;
            }
            Ok(replay)
        })?;
        match end {
            Some(f) if count > lines.len() => Err(f),
            _ => Ok(replay),
        }
    }

    /// Starts a replay from the genesis line alone (steps S2–S12 for line 0).
    pub fn from_genesis(first: &[u8]) -> Result<Self, LogFault> {
        Self::from_genesis_as(first, Check::Full)
    }

    /// [`Replay::from_genesis`]; a `Known` genesis skips its canonical form,
    /// its signature and the trial setup that checks its options.
    pub fn from_genesis_as(first: &[u8], check: Check) -> Result<Self, LogFault> {
        let p = parse_line_as(0, first, check)?;
        let g = genesis_of(&p)?.clone();
        let body = &p.line.body;
        Self::check_genesis_versions(&g)?;
        // S7: the creator writes the genesis.
        if body.author != 0 {
            return Err(fault(
                0,
                Fault::OutOfTurn,
                format!(
                    "the genesis must be written by seat 1 (author 0), the creator; this one names \
                     author {}",
                    body.author
                ),
            ));
        }
        check_genesis_keys(&g, &p, check)?;
        let options = Self::genesis_options(&g, check)?;
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
            keys: BTreeMap::new(),
            countersigned: BTreeSet::new(),
            claims: None,
            ended_at: None,
        })
    }

    /// S6: the genesis is of this game and of the rules this program
    /// implements.
    fn check_genesis_versions(g: &Genesis) -> Result<(), LogFault> {
        if g.game != G::NAME {
            return Err(fault(
                0,
                Fault::UnknownVersion,
                format!(
                    "this log is a game of `{}`, not `{}`",
                    inline(&g.game),
                    G::NAME
                ),
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
        Ok(())
    }

    /// S12: the game's own rules for the options and the seat count.
    fn genesis_options(g: &Genesis, check: Check) -> Result<G::Options, LogFault> {
        if !G::SEATS.contains(&g.seats.len()) {
            return Err(fault(
                0,
                Fault::IllegalMove,
                format!(
                    "{} needs {} players, the genesis lists {}",
                    G::NAME,
                    crate::games::seat_range::<G>(),
                    g.seats.len()
                ),
            ));
        }
        let options: G::Options = game_object(0, "the game options", &g.options)?;
        let n = g.seats.len();
        // Every entry a seat writes after joining reveals one link of its
        // beacon chain; refuse a game that could outlast the chain.
        let most = G::max_entries(&options, n);
        let per_seat = most_entries_per_seat(most, n);
        if per_seat > u64::from(beacon::CHAIN_LENGTH) {
            return Err(fault(
                0,
                Fault::IllegalMove,
                format!(
                    "under these options a game can last {most} moves and reveals, so one player \
                     could need {per_seat} entries; a beacon chain has {} links. Choose a \
                     smaller game (fewer or smaller boards, fewer stars)",
                    beacon::CHAIN_LENGTH
                ),
            ));
        }
        // Setup is pure, so running it once here with a dummy draw checks the
        // options (a custom board set, say) the moment the game is created
        // rather than after everybody has joined.
        if check == Check::Full {
            G::setup(&options, n, &mut Draw::new([0; 32])).map_err(|e| {
                fault(
                    0,
                    Fault::IllegalMove,
                    format!("the game options are invalid: {e}"),
                )
            })?;
        }
        Ok(options)
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

    /// "seat 2, Cleo <cleo@example.org>" (seats from 0), safe to print.
    pub fn seat_label(&self, seat: Seat) -> String {
        match self.genesis.seats.get(seat) {
            Some(s) => format!("seat {}, {} <{}>", seat, inline(&s.name), inline(&s.email)),
            None => format!("seat {seat}"),
        }
    }

    /// The seat's name, safe to print.
    pub fn name(&self, seat: Seat) -> String {
        self.genesis
            .seats
            .get(seat)
            .map_or_else(|| format!("seat {seat}"), |s| inline(&s.name).into_owned())
    }

    /// Every seat's name, in seat order, safe to print.
    pub fn names(&self) -> Vec<String> {
        (0..self.genesis.seats.len())
            .map(|s| self.name(s))
            .collect()
    }

    /// The person whose machine plays `seat`: its operator for a computer
    /// seat (docs/protocol.md section 3.4), else the seat itself.
    pub fn operator_of(&self, seat: Seat) -> Seat {
        self.genesis
            .seats
            .get(seat)
            .and_then(|s| s.operator)
            .map_or(seat, |o| o as Seat)
    }

    /// Whether one person's machine plays both seats: a person and the
    /// computer seats they operate are one side of every abandonment
    /// claim (section 7): none claims against another, and a claim
    /// against one needs none of the others'.
    pub fn one_machine(&self, a: Seat, b: Seat) -> bool {
        self.operator_of(a) == self.operator_of(b)
    }

    /// The seats whose claims end the game while it waits for `silent`:
    /// every seat not played by `silent`'s machine.
    pub fn claimants(&self, silent: Seat) -> Vec<Seat> {
        (0..self.seat_count())
            .filter(|&s| !self.one_machine(s, silent))
            .collect()
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

    /// How the game ended, if it has.
    pub fn ending(&self) -> Option<Ending> {
        match self.phase {
            Phase::Over(e) => Some(e),
            _ => None,
        }
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

    /// The key a seat holds or, before it joins, the key it is pinned to.
    pub fn seat_key(&self, seat: Seat) -> Option<[u8; 32]> {
        self.seats[seat].key.or_else(|| {
            if seat == 0 {
                Some(self.genesis.creator_key.0)
            } else {
                self.genesis.seats[seat].key.map(|k| k.0)
            }
        })
    }

    /// The unopened commitments of `seat`, in (entry, slot) order.
    pub fn unopened(&self, seat: Seat) -> Vec<HiddenRef> {
        self.commitments
            .iter()
            .filter(|(at, c)| c.seat == seat && !self.revealed.contains(at))
            .map(|(at, _)| *at)
            .collect()
    }

    /// Standings: the game's, with a seat that resigned or abandoned the
    /// game placed last. Before the setup every score is 0.
    pub fn standings(&self) -> Vec<Standing> {
        let n = self.seat_count();
        let last = self.ending().and_then(Ending::last);
        let rows = match &self.state {
            Some(state) => G::standings(state),
            None if last.is_some() => rank_by_score(&vec![0; n]),
            None => return Vec::new(),
        };
        placed_last(rows, n, last)
    }

    /// The seed of the setup draw, once every seat has written its ready
    /// entry (the same seed the replay used; `starry rules replay` takes it
    /// as `setup`).
    pub fn setup_seed(&self) -> Option<Hash> {
        let links: Option<Vec<Hash>> = self.seats.iter().map(|s| s.ready_link).collect();
        Some(setup_seed(&self.game_id, &links?))
    }

    /// The random events that the next `move` or `reveal` entry by `author`,
    /// carrying `link`, resolves before its own action, each with its seed:
    /// exactly what the replay will use (`starry rules replay` takes them
    /// as `draws`). Empty before the setup.
    pub fn draw_seeds(&self, author: Seat, link: &Hash) -> Vec<(u64, Hash)> {
        let Some(state) = &self.state else {
            return Vec::new();
        };
        G::pending(state)
            .into_iter()
            .filter(|e| e.causer != author)
            .map(|e| {
                let cause = self
                    .event_causes
                    .get(&e.id)
                    .expect("every pending event has a recorded cause");
                (e.id, draw_seed(cause, e.id, link))
            })
            .collect()
    }

    fn fail(&self, n: u64, author: Option<Seat>, f: Fault, detail: impl Into<String>) -> LogFault {
        LogFault {
            entry: n,
            fault: f,
            author: author.map(|a| self.seat_label(a)),
            detail: detail.into(),
        }
    }

    /// Checks and applies one line (steps S2–S12 for line `n` ≥ 1).
    pub fn apply_line(&mut self, n: u64, bytes: &[u8]) -> Result<(), LogFault> {
        self.apply_line_as(n, bytes, Check::Full)
    }

    /// [`Replay::apply_line`], checking as much as `check` says.
    pub fn apply_line_as(&mut self, n: u64, bytes: &[u8], check: Check) -> Result<(), LogFault> {
        self.apply_line_ahead(n, bytes, check, None)
    }

    /// [`Replay::apply_line_as`], taking the line as `ahead`'s helpers
    /// parsed it on another core (the same pure [`parse_line_as`]) and
    /// skipping its signature if they verified it with the key checked
    /// here ([`verify::ahead`]); every other check, and every line or
    /// signature they did not do, is done here as always.
    pub fn apply_line_ahead(
        &mut self,
        n: u64,
        bytes: &[u8],
        check: Check,
        ahead: Option<&verify::Ahead>,
    ) -> Result<(), LogFault> {
        // Parsed, and its signature perhaps verified, on another core.
        let (p, signed_by) = match ahead.and_then(|a| a.take(n, bytes, check)) {
            Some((p, signed_by)) => (p?, signed_by),
            None => (parse_line_as(n, bytes, check)?, None),
        };
        let body = &p.line.body;
        self.check_place(n, body)?;
        let author = self.check_author(n, body)?;
        self.check_key(n, author, &p, check, signed_by)?;
        self.check_time_order(n, author, body)?;
        // S9: the kind and the author are the ones expected.
        self.check_turn(n, author, body.kind)?;
        if body.kind == Kind::Abandon {
            self.check_deadline_passed(n, author, &body.time)?;
        }
        let link = self.check_link(n, author, body)?;

        // S11–S12: openings and the rules.
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

    /// S4 and S5: the entry is of this game and stands where it says, right
    /// after the entry it chains to.
    fn check_place(&self, n: u64, body: &Body) -> Result<(), LogFault> {
        // S4: this game.
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
        // S5: the chain.
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
        Ok(())
    }

    /// S7: the author is a seat of the game.
    fn check_author(&self, n: u64, body: &Body) -> Result<Seat, LogFault> {
        let author = body.author as Seat;
        if author >= self.seat_count() {
            return Err(self.fail(
                n,
                None,
                Fault::OutOfTurn,
                format!(
                    "the entry names author {}, but the game has seats 0 to {} only",
                    body.author,
                    self.seat_count() - 1
                ),
            ));
        }
        Ok(author)
    }

    /// S7 and S8: the author holds a key here (a join brings its own), the
    /// key may sign for the seat, and the signature is good unless `ahead`
    /// verified it already with this very key (`signed_by`).
    fn check_key(
        &mut self,
        n: u64,
        author: Seat,
        p: &Parsed,
        check: Check,
        signed_by: Option<[u8; 32]>,
    ) -> Result<(), LogFault> {
        let key_bytes = match &p.data {
            Data::Join(j) => j.key.0,
            _ => self.seats[author].key.ok_or_else(|| {
                self.fail(
                    n,
                    Some(author),
                    Fault::OutOfTurn,
                    format!(
                        "a {} entry by a seat that has not joined the game",
                        p.line.body.kind.as_str()
                    ),
                )
            })?,
        };
        // S8: the key and the signature. Keys are parsed once per game:
        // a curve point's decoding is dear.
        let key = match check {
            Check::Full => Some(match self.keys.get(&key_bytes) {
                Some(k) => *k,
                None => {
                    let k = verifying_key(n, &key_bytes).map_err(|f| LogFault {
                        author: Some(self.seat_label(author)),
                        ..f
                    })?;
                    self.keys.insert(key_bytes, k);
                    k
                }
            }),
            Check::Known => None,
        };
        if let Data::Join(j) = &p.data {
            self.check_join_key(n, author, &j.key)?;
        }
        if let Some(key) = key
            && signed_by != Some(key_bytes)
        {
            check_signature(n, &key, p).map_err(|f| LogFault {
                author: Some(self.seat_label(author)),
                ..f
            })?;
        }
        Ok(())
    }

    /// S8′: (protocol 3) times never go back, so that the author of the
    /// entry that starts a seat's clock cannot date it before the entry
    /// that seat wrote last.
    fn check_time_order(&self, n: u64, author: Seat, body: &Body) -> Result<(), LogFault> {
        if self.genesis.protocol < 3 {
            return Ok(());
        }
        let before = &self
            .entries
            .last()
            .expect("a replay holds the genesis")
            .time;
        if body.time < *before {
            return Err(self.fail(
                n,
                Some(author),
                Fault::BackwardTime,
                format!(
                    "the entry is dated {}, before entry {} ({before}); times never go back \
                     in a log",
                    body.time,
                    n - 1
                ),
            ));
        }
        Ok(())
    }

    /// S10: the beacon link steps back once from the author's last one.
    fn check_link(&self, n: u64, author: Seat, body: &Body) -> Result<Option<Hash>, LogFault> {
        let Some(l) = body.link else {
            return Ok(None);
        };
        let prev = self.seats[author].link.expect("joined seats have a link");
        if beacon::step(&l.0) != prev {
            return Err(self.fail(
                n,
                Some(author),
                Fault::BadLink,
                "the beacon link does not hash to the author's previous link (a skipped or \
                 invented link)",
            ));
        }
        Ok(Some(l.0))
    }

    /// S8 for a join: the key is the one the seat may hold.
    fn check_join_key(&self, n: u64, author: Seat, key: &HexHash) -> Result<(), LogFault> {
        let bad = |detail: String| self.fail(n, Some(author), Fault::BadSignature, detail);
        if author == 0 && *key != self.genesis.creator_key {
            return Err(bad(
                "the creator joined with a key other than the genesis key".into(),
            ));
        }
        if let Some(pin) = self.genesis.seats[author].key
            && pin != *key
        {
            return Err(bad(format!(
                "seat {} is pinned to key {}, but this join uses key {}: only the pinned key may \
                 take the seat",
                author,
                fingerprint(&pin.0),
                fingerprint(&key.0)
            )));
        }
        // A seat joining again with its own key is no key holding two
        // seats: S9 refuses it as out of turn.
        if let Some(other) = self.seat_of_key(&key.0)
            && other != author
        {
            return Err(bad(format!(
                "this key already holds seat {}; one key may hold one seat",
                other
            )));
        }
        if let Some(other) = (0..self.seat_count()).find(|&s| {
            s != author && self.seats[s].key.is_none() && self.seat_key(s) == Some(key.0)
        }) {
            return Err(bad(format!(
                "this key is pinned to seat {}; it may not take another seat",
                other
            )));
        }
        Ok(())
    }

    /// S9: whether `author` may write a `kind` entry now.
    fn check_turn(&self, n: u64, author: Seat, kind: Kind) -> Result<(), LogFault> {
        let (action, who) = self.expected();
        let playing = matches!(action, Action::Ready | Action::Move | Action::Reveal);
        let refuse = |why: String| {
            Err(self.fail(
                n,
                Some(author),
                Fault::OutOfTurn,
                format!("a {} entry is not allowed here: {why}", kind.as_str()),
            ))
        };
        let wanted = || match who {
            Some(s) => format!("{} must {}", self.seat_label(s), action.as_str()),
            None => "the game is over".into(),
        };
        let ok = match kind {
            Kind::Genesis => false,
            Kind::Join => action == Action::Join && who == Some(author),
            Kind::Ready => action == Action::Ready && who == Some(author),
            Kind::Move => action == Action::Move && who == Some(author),
            Kind::Reveal => action == Action::Reveal && who == Some(author),
            Kind::Resign => playing && who == Some(author),
            Kind::Countersign => {
                if action == Action::Over && self.countersigned.contains(&author) {
                    return refuse("this seat has countersigned already".into());
                }
                action == Action::Over
            }
            Kind::Abandon => {
                if !playing {
                    return refuse(match action {
                        Action::Join => {
                            "a game can be abandoned only once everyone has joined".into()
                        }
                        _ => "the game is over".into(),
                    });
                }
                if who == Some(author) {
                    return refuse(format!(
                        "the game waits for this very seat; it must {}",
                        action.as_str()
                    ));
                }
                if let Some(silent) = who
                    && self.one_machine(author, silent)
                {
                    return refuse(format!(
                        "{} and {} are played on one machine, that of {} (the genesis names \
                         the operator of each computer seat): one side of the game, and no \
                         seat claims that its own side stopped answering",
                        self.seat_label(author),
                        self.seat_label(silent),
                        self.name(self.operator_of(silent)),
                    ));
                }
                if self.claims.as_ref().is_some_and(|c| c.by.contains(&author)) {
                    return refuse("this seat has claimed the abandonment already".into());
                }
                true
            }
        };
        if ok { Ok(()) } else { refuse(wanted()) }
    }

    /// S9 for an abandonment claim (protocol 3, a game with a deadline):
    /// it is dated at least the deadline after the awaited seat's turn
    /// began.
    fn check_deadline_passed(&self, n: u64, author: Seat, time: &str) -> Result<(), LogFault> {
        let Some(clock) = self.clock() else {
            return Ok(());
        };
        let at = time_seconds(time).expect("times are checked at S2");
        if at >= clock.due {
            return Ok(());
        }
        Err(self.fail(
            n,
            Some(author),
            Fault::OutOfTurn,
            format!(
                "a claim that {} stopped answering is valid from {} on (their turn began with \
                 entry {}, dated {}, and the deadline is {}); this one is dated {time}, {} early",
                self.name(clock.seat),
                time_text(clock.due),
                clock.since,
                self.entries[clock.since as usize].time,
                span_text(clock.deadline),
                span_text((clock.due - at) as u64),
            ),
        ))
    }

    /// The clock of the seat the game waits for, in a game with a deadline
    /// (protocol 3): whose it is, since which entry and until when. None
    /// before everyone joined, after the end, or without a deadline.
    pub fn clock(&self) -> Option<Clock> {
        if self.genesis.protocol < 3 {
            return None;
        }
        self.clock_for(self.genesis.deadline?)
    }

    /// The clock of the seat the game waits for, were the deadline
    /// `deadline` (for a protocol 2 game, which has none in its log).
    pub fn clock_for(&self, deadline: u64) -> Option<Clock> {
        let (action, who) = self.expected();
        if !matches!(action, Action::Ready | Action::Move | Action::Reveal) {
            return None;
        }
        // The turn began with the last entry that was no claim: the one
        // that made it this seat's turn, or the seat's own last entry if it
        // must act again. Claims do not restart the clock.
        let since = self.entries.iter().rposition(|e| e.kind != Kind::Abandon)? as u64;
        let start = time_seconds(&self.entries[since as usize].time)?;
        Some(Clock {
            seat: who?,
            since,
            deadline,
            // No time after the last one a log can hold: a claim must be
            // able to reach the deadline (docs/protocol.md section 7).
            due: (start + deadline as i64).min(LAST_TIME),
        })
    }

    /// The time to write on a new entry: `now`, or the last entry's time
    /// when this machine's clock is behind it (protocol 3: times never go
    /// back; a clock a few minutes slow must not make an entry invalid).
    pub fn entry_time(&self, now: String) -> String {
        match self.entries.last() {
            Some(last) if self.genesis.protocol >= 3 && last.time > now => last.time.clone(),
            _ => now,
        }
    }

    /// The first entry dated more than `slack` seconds after `now`, with
    /// its time: a program refuses a log from the future (its own clock,
    /// or the writer's, is wrong), since a forward-dated entry would let
    /// its author's claims come early.
    pub fn ahead_of(&self, now: &str, slack: i64) -> Option<(u64, &str)> {
        let now = time_seconds(now)?;
        self.entries.iter().enumerate().find_map(|(i, e)| {
            (time_seconds(&e.time)? > now + slack).then_some((i as u64, e.time.as_str()))
        })
    }

    /// S11–S12 for one entry: its openings and the game's rules, each kind
    /// by its own function; returns the entry's summary.
    fn apply_kind(
        &mut self,
        n: u64,
        author: Seat,
        p: &Parsed,
        link: Option<Hash>,
    ) -> Result<String, LogFault> {
        // An entry by the awaited seat answers any claims that it had gone.
        if p.line.body.kind != Kind::Abandon
            && self.claims.as_ref().is_some_and(|c| c.silent == author)
        {
            self.claims = None;
        }
        match &p.data {
            Data::Genesis(_) => unreachable!("refused as foreign"),
            Data::Join(j) => Ok(self.apply_join(author, j)),
            Data::Ready => self.apply_ready(n, author, p.id, link),
            Data::Move(m) => self.apply_move(n, author, p.id, m, link),
            Data::Reveal(r) => self.apply_reveal(n, author, p.id, r, link),
            Data::Resign(r) => self.apply_resign(n, author, r),
            Data::Countersign(c) => self.apply_countersign(n, author, c),
            Data::Abandon(a) => self.apply_abandon(n, author, a),
        }
    }

    /// A refusal by the game's rules, blamed on the author.
    fn rule_fault(&self, n: u64, author: Seat, e: crate::games::RuleError) -> LogFault {
        self.fail(n, Some(author), Fault::from_rule(e.kind), e.to_string())
    }

    fn apply_join(&mut self, author: Seat, j: &Join) -> String {
        let rec = &mut self.seats[author];
        rec.key = Some(j.key.0);
        rec.nonce = Some(j.nonce.0);
        rec.link = Some(j.tip.0);
        rec.notify = j.notify;
        self.phase = if author + 1 < self.seat_count() {
            Phase::Joining(author + 1)
        } else {
            Phase::Ready(0)
        };
        "joined".into()
    }

    /// The last seat ready sets the game up: every ready link is known only
    /// now, and together they seed the draw.
    fn apply_ready(
        &mut self,
        n: u64,
        author: Seat,
        id: Hash,
        link: Option<Hash>,
    ) -> Result<String, LogFault> {
        self.seats[author].ready_link = link;
        let Phase::Ready(i) = self.phase else {
            unreachable!("checked by check_turn")
        };
        if i + 1 < self.seat_count() {
            self.phase = Phase::Ready(i + 1);
        } else {
            let seed = self.setup_seed().expect("all ready");
            let mut draw = Draw::new(seed);
            let state = G::setup(&self.options, self.seat_count(), &mut draw)
                .map_err(|e| self.fail(n, Some(author), Fault::IllegalMove, e.to_string()))?;
            self.state = Some(state);
            self.phase = Phase::Playing;
            self.after_play(n, id);
        }
        Ok("ready".into())
    }

    /// The game's state with the events pending resolved by the author's
    /// link: a copy, so that a refused entry leaves the replay as it was.
    fn resolved_state(&self, n: u64, author: Seat, link: Hash) -> Result<G::State, LogFault> {
        let mut state = self.state.clone().expect("playing");
        resolve_pending::<G>(&mut state, &self.event_causes, author, link)
            .map_err(|e| self.rule_fault(n, author, e))?;
        Ok(state)
    }

    fn apply_move(
        &mut self,
        n: u64,
        author: Seat,
        id: Hash,
        m: &Move,
        link: Option<Hash>,
    ) -> Result<String, LogFault> {
        let reveals = self.check_openings(n, author, &m.reveals)?;
        let action: G::Action = game_object(n, "the move", &m.action).map_err(|f| LogFault {
            author: Some(self.seat_label(author)),
            ..f
        })?;
        let mut state = self.resolved_state(n, author, link.expect("moves carry links"))?;
        let ctx = Context {
            seat: author,
            at: n,
            commitments: m.commitments.len() as u32,
            reveals,
        };
        G::play(&mut state, &ctx, &action).map_err(|e| self.rule_fault(n, author, e))?;
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
        let summary = G::narrate(&state, &action, &self.names());
        self.state = Some(state);
        self.after_play(n, id);
        Ok(summary)
    }

    fn apply_reveal(
        &mut self,
        n: u64,
        author: Seat,
        id: Hash,
        r: &Reveal,
        link: Option<Hash>,
    ) -> Result<String, LogFault> {
        let reveals = self.check_openings(n, author, &r.reveals)?;
        let mut state = self.resolved_state(n, author, link.expect("reveals carry links"))?;
        let ctx = Context {
            seat: author,
            at: n,
            commitments: 0,
            reveals,
        };
        G::reveal(&mut state, &ctx).map_err(|e| self.rule_fault(n, author, e))?;
        self.revealed.extend(r.reveals.iter().map(Opening::at));
        self.state = Some(state);
        self.after_play(n, id);
        Ok(format!(
            "revealed {}",
            crate::text::count(r.reveals.len(), "hidden value", "hidden values")
        ))
    }

    /// A resigner opens all it still hides, so that the game can be scored
    /// and checked without it.
    fn apply_resign(&mut self, n: u64, author: Seat, r: &Resign) -> Result<String, LogFault> {
        let due = self.unopened(author);
        let given: Vec<HiddenRef> = r.reveals.iter().map(Opening::at).collect();
        let reveals = self.check_openings(n, author, &r.reveals)?;
        if given != due {
            return Err(self.fail(
                n,
                Some(author),
                Fault::BadReveal,
                format!(
                    "a resignation must open every commitment of the resigner not opened \
                     yet, in order: {}; it opens {}",
                    refs_text(&due),
                    refs_text(&given)
                ),
            ));
        }
        if let Some(state) = &mut self.state {
            let mut next = state.clone();
            let ctx = Context {
                seat: author,
                at: n,
                commitments: 0,
                reveals,
            };
            G::resign(&mut next, &ctx).map_err(|e| self.rule_fault(n, author, e))?;
            G::withdraw(&mut next, author, crate::games::Withdrawal::Resigned);
            self.state = Some(next);
        }
        self.revealed.extend(given);
        self.phase = Phase::Over(Ending::Resigned { seat: author });
        self.ended_at = Some(n);
        Ok(if r.reveals.is_empty() {
            "resigned".into()
        } else {
            format!(
                "resigned, opening {}",
                crate::text::count(r.reveals.len(), "hidden value", "hidden values")
            )
        })
    }

    fn apply_countersign(
        &mut self,
        n: u64,
        author: Seat,
        c: &Countersign,
    ) -> Result<String, LogFault> {
        let end = self.ended_at.expect("over");
        if c.final_entry.0 != self.entries[end as usize].id {
            return Err(self.fail(
                n,
                Some(author),
                Fault::IllegalMove,
                format!("the countersignature names an entry other than the final entry {end}"),
            ));
        }
        self.countersigned.insert(author);
        Ok(format!("countersigned the final entry {end}"))
    }

    /// A claim that the awaited seat has gone; once every other seat's
    /// machine has claimed it, the game is over.
    fn apply_abandon(&mut self, n: u64, author: Seat, a: &Abandon) -> Result<String, LogFault> {
        let (_, who) = self.expected();
        let silent = who.expect("checked by check_turn");
        let awaited = self.claims.as_ref().map_or(n, |c| c.awaited);
        if a.silent as Seat != silent || a.awaited != awaited {
            return Err(self.fail(
                n,
                Some(author),
                Fault::IllegalMove,
                format!(
                    "the claim must name the seat the game waits for and the entry since \
                     which it waits: silent {silent}, awaited {awaited}; it names \
                     silent {}, awaited {}",
                    a.silent, a.awaited
                ),
            ));
        }
        let claims = self.claims.get_or_insert_with(|| Claims {
            silent,
            awaited,
            by: BTreeSet::new(),
        });
        claims.by.insert(author);
        // Claimants are never of the silent seat's machine (S9),
        // so counting them is enough.
        let complete = claims.by.len() == self.claimants(silent).len();
        if complete {
            if let Some(state) = &mut self.state {
                G::withdraw(state, silent, crate::games::Withdrawal::Abandoned);
            }
            self.phase = Phase::Over(Ending::Abandoned {
                seat: silent,
                awaited,
            });
            self.ended_at = Some(n);
            self.claims = None;
        }
        Ok(format!(
            "claims that {} stopped answering (awaited since entry {awaited}){}",
            self.name(silent),
            if complete {
                "; every other player has claimed it: the game is over"
            } else {
                ""
            }
        ))
    }

    /// Records the events a move requested and notices the end of the game.
    fn after_play(&mut self, n: u64, id: Hash) {
        let state = self.state.as_ref().expect("playing");
        for e in G::pending(state) {
            self.event_causes.entry(e.id).or_insert(id);
        }
        if G::turn(state) == Turn::Over {
            self.phase = Phase::Over(if G::stalled(state) {
                Ending::Stalled
            } else {
                Ending::Finished
            });
            self.ended_at = Some(n);
        }
    }

    /// S11 for each opening: it opens a commitment of the author's that was
    /// not opened before (17); then the value is one the game knows (18).
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
            let value: G::Hidden = serde_json::from_value(o.value.clone()).map_err(|_| {
                self.fail(
                    n,
                    Some(author),
                    Fault::ImpossibleToken,
                    format!(
                        "the value revealed for {at}, {}, is not one a hidden slot of {} can hold",
                        excerpt(&String::from_utf8_lossy(&bytes)),
                        G::NAME
                    ),
                )
            })?;
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
            time: self.entry_time(time),
        };
        sign_line(id, body)
    }
}

/// S8 for the genesis: the creator's key and every pinned key are keys, no
/// two seats are pinned to one key, seat 0 only to the creator's, and the
/// creator signed the line (unless it is `Known`).
fn check_genesis_keys(g: &Genesis, p: &Parsed, check: Check) -> Result<(), LogFault> {
    let key = verifying_key(0, g.creator_key.bytes())?;
    let mut pinned = BTreeSet::new();
    for (i, s) in g.seats.iter().enumerate() {
        let Some(k) = s.key else { continue };
        verifying_key(0, k.bytes()).map_err(|f| LogFault {
            detail: format!("the key pinned to seat {i}: {}", f.detail),
            ..f
        })?;
        if i == 0 && k != g.creator_key {
            return Err(fault(
                0,
                Fault::BadSignature,
                "seat 0 is pinned to a key other than the creator's",
            ));
        }
        if !pinned.insert(k) {
            return Err(fault(
                0,
                Fault::BadSignature,
                format!(
                    "seat {} is pinned to a key that another seat is pinned to",
                    i
                ),
            ));
        }
    }
    if check == Check::Full {
        check_signature(0, &key, p)?;
    }
    Ok(())
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
        G::resolve(state, e.id, &mut Draw::new(draw_seed(cause, e.id, &link)))?;
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

/// The most entries one seat can write after joining, for a game of at most
/// `moves` move and reveal entries: its ready, its own moves and reveals,
/// one abandonment claim per round of claims (a round ends with an entry of
/// the awaited seat, so there are at most `moves + seats + 1` rounds), a
/// resignation and a countersignature (docs/protocol.md, section 4).
pub fn most_entries_per_seat(moves: u64, seats: usize) -> u64 {
    moves
        .saturating_mul(2)
        .saturating_add(seats as u64)
        .saturating_add(4)
}

/// The game's standings `rows` for `n` seats with seat `last` (one that
/// resigned or abandoned the game), if any, placed last whatever its score
/// — with its partners, in a team game, sharing that rank — and the others
/// ranked among themselves.
pub fn placed_last(rows: Vec<Standing>, n: usize, last: Option<Seat>) -> Vec<Standing> {
    let Some(r) = last else { return rows };
    let row = |s: Seat| rows.iter().find(|x| x.seat == s);
    let scores: Vec<i64> = (0..n).map(|s| row(s).map_or(0, |x| x.score)).collect();
    let team = |s: Seat| row(s).and_then(|x| x.team);
    let out_seats: Vec<Seat> = (0..n)
        .filter(|&s| s == r || (team(r).is_some() && team(s) == team(r)))
        .collect();
    let others: Vec<Seat> = (0..n).filter(|s| !out_seats.contains(s)).collect();
    let other_scores: Vec<i64> = others.iter().map(|&s| scores[s]).collect();
    let mut out: Vec<Standing> = rank_by_score(&other_scores)
        .into_iter()
        .map(|st| Standing {
            seat: others[st.seat],
            team: team(others[st.seat]),
            ..st
        })
        .collect();
    // In a team game the withdrawn team comes right after the teams left
    // (partners share a score, so they share a rank).
    let last_rank = if team(r).is_some() {
        1 + out.iter().map(|st| st.rank).max().unwrap_or(0)
    } else {
        others.len() as u32 + 1
    };
    for s in out_seats {
        out.push(Standing {
            seat: s,
            rank: last_rank,
            score: scores[s],
            team: team(s),
        });
    }
    out
}

/// A short, comparable form of a public key: its first 16 hex digits in
/// groups of four, as `status` shows it.
pub fn fingerprint(key: &[u8; 32]) -> String {
    let h = hex::encode(&key[..8]);
    format!("{} {} {} {}", &h[0..4], &h[4..8], &h[8..12], &h[12..16])
}

fn refs_text(v: &[HiddenRef]) -> String {
    if v.is_empty() {
        "nothing".into()
    } else {
        v.iter()
            .map(|r| r.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }
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
                "the signature is not 64 bytes in canonical base64 (standard alphabet, padded, \
                 no stray bits)",
            )
        })?;
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

/// The time format: `YYYY-MM-DDTHH:MM:SSZ` exactly, a real date, hours
/// 00–23, minutes and seconds 00–59 (no leap second, no offset, no
/// fraction, no space for the `T`).
pub fn valid_time(t: &str) -> bool {
    let b = t.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    if b.len() != 20
        || !(digits(0..4)
            && digits(5..7)
            && digits(8..10)
            && digits(11..13)
            && digits(14..16)
            && digits(17..19))
        || b[4] != b'-'
        || b[7] != b'-'
        || b[10] != b'T'
        || b[13] != b':'
        || b[16] != b':'
        || b[19] != b'Z'
    {
        return false;
    }
    let num = |r: std::ops::Range<usize>| t[r].parse::<u32>().unwrap_or(u32::MAX);
    chrono::NaiveDate::from_ymd_opt(num(0..4) as i32, num(5..7), num(8..10)).is_some()
        && num(11..13) < 24
        && num(14..16) < 60
        && num(17..19) < 60
}

fn check_time(n: u64, t: &str) -> Result<(), LogFault> {
    if valid_time(t) {
        Ok(())
    } else {
        Err(fault(
            n,
            Fault::Malformed,
            format!(
                "`{}` is not a UTC time of the form 2026-11-20T21:59:00Z",
                excerpt(t)
            ),
        ))
    }
}

/// 9999-12-31T23:59:59Z, the last time a log can hold, in Unix seconds: a
/// deadline falls no later (docs/protocol.md section 7).
pub const LAST_TIME: i64 = 253_402_300_799;

/// A valid log time as Unix seconds (None for an invalid one).
pub fn time_seconds(t: &str) -> Option<i64> {
    if !valid_time(t) {
        return None;
    }
    chrono::NaiveDateTime::parse_from_str(t, "%Y-%m-%dT%H:%M:%SZ")
        .ok()
        .map(|d| d.and_utc().timestamp())
}

/// Unix seconds in the log's time format.
pub fn time_text(seconds: i64) -> String {
    chrono::DateTime::from_timestamp(seconds, 0)
        .map(|d| d.format("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_else(|| format!("{seconds} s after 1970"))
}

/// A span of seconds in words, to the two largest units: "3 days 4
/// hours", "14 days", "1 minute 5 seconds".
pub fn span_text(seconds: u64) -> String {
    let units = [
        (86_400, "day", "days"),
        (3_600, "hour", "hours"),
        (60, "minute", "minutes"),
        (1, "second", "seconds"),
    ];
    if seconds == 0 {
        return "0 seconds".into();
    }
    let mut parts = Vec::new();
    let mut left = seconds;
    for (u, one, many) in units {
        if left >= u && parts.len() < 2 {
            let k = left / u;
            left -= k * u;
            parts.push(crate::text::count(k, one, many));
        } else if !parts.is_empty() {
            // Two units at most, and adjacent ones: "3 days 4 hours", never
            // "3 days 5 seconds".
            break;
        }
    }
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_exactly_the_documented_form() {
        assert!(valid_time("2026-11-20T21:59:00Z"));
        assert!(valid_time("2024-02-29T00:00:00Z"));
        for bad in [
            "2026-11-20 21:59:00Z",
            "2026-11-20t21:59:00Z",
            "2026-11-20T21:59:00z",
            "2026-11-20T21:59:60Z",
            "2026-11-20T24:00:00Z",
            "2026-02-30T00:00:00Z",
            "2026-11-20T21:59:00+00:00",
            "2026-11-20T21:59:00.1Z",
            "+026-11-20T21:59:00Z",
            "2026-11-20T21:59:0Z",
            "2026-11-20T21:59:00Zx",
            "２026-11-20T21:59:00Z",
        ] {
            assert!(!valid_time(bad), "{bad}");
        }
    }

    #[test]
    fn a_truncated_last_line_is_found_after_the_lines_before_it() {
        let (a, b) = (
            "a".repeat(SHORTEST_LINE_BYTES),
            "b".repeat(SHORTEST_LINE_BYTES),
        );
        let log = format!("{a}\n{b}\nc");
        let (l, end) = lines(log.as_bytes());
        assert_eq!(l, vec![a.as_bytes(), b.as_bytes()]);
        assert_eq!(end.unwrap().fault, Fault::Truncated);
        let log = format!("{a}\n\n{b}\n");
        let (l, end) = lines(log.as_bytes());
        assert_eq!(l.len(), 1);
        assert_eq!(end.unwrap().fault, Fault::Malformed);
        assert!(lines(format!("{a}\n").as_bytes()).1.is_none());
        assert_eq!(lines(b"").1.unwrap().fault, Fault::Malformed);
    }

    /// Lines are kept up to the first one too short to be an entry (it
    /// included, so that the replay names its own fault there): a log of
    /// millions of tiny lines costs no more than its first ones.
    #[test]
    fn lines_stop_at_the_first_line_too_short_to_be_an_entry() {
        let first = "a".repeat(SHORTEST_LINE_BYTES);
        let log = [first.as_bytes(), b"\n", &b"x\n".repeat(1_000_000)].concat();
        let (l, end) = lines(&log);
        assert_eq!(l, vec![first.as_bytes(), b"x"]);
        let end = end.unwrap();
        assert_eq!((end.entry, end.fault), (1, Fault::Malformed));
        assert!(end.detail.contains("is 1 bytes long"), "{}", end.detail);
        // Every entry of a real game is longer.
        for game in [
            "finished-5p-compound-coins.jsonl",
            "star-map-2-players.jsonl",
        ] {
            let bytes = std::fs::read(format!("{}/examples/games/{game}", crate::REPO)).unwrap();
            let (l, end) = lines(&bytes);
            assert!(end.is_none(), "{game}");
            assert_eq!(l.len(), bytes.split(|&b| b == b'\n').count() - 1);
        }
    }
}
