//! The entries of a game log, exactly as they appear on a line.
//!
//! A line is `{"body":BODY,"sig":SIG}` in canonical JSON; SIG is the base64
//! Ed25519 signature of the body's bytes under a domain tag. The types here
//! are the protocol's vocabulary; `docs/protocol.md` is their specification
//! and `schemas/log-line.json` is generated from them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::crypto::Hash;
use crate::games::HiddenRef;

/// The protocol version this program writes. Version 2 added pinned seat
/// keys, `abandon` entries and openings in `resign` entries, and tightened
/// names, addresses and times; version 3 added the per-move deadline and
/// times that never go back (docs/protocol.md, history).
pub const PROTOCOL_VERSION: u32 = 3;

/// The protocol versions this program reads: a version 2 log is judged by
/// version 2's rules (no deadline, times unchecked), so that games started
/// before version 3 can still be finished and audited.
pub const READABLE_VERSIONS: [u32; 2] = [2, 3];

/// The longest per-move deadline a genesis may set, in seconds (366 days):
/// beyond it a deadline is none in practice, and the bound keeps every sum
/// of a time and a deadline far inside the range of the times (years 0000
/// to 9999).
pub const MAX_DEADLINE: u64 = 366 * 24 * 3600;

/// The deadline `starry new` sets when none is given: 14 days, as in
/// correspondence chess.
pub const DEFAULT_DEADLINE: u64 = 14 * 24 * 3600;

/// One line of the log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Line {
    pub body: Body,
    /// Base64 (standard, padded) Ed25519 signature over the body's bytes.
    pub sig: String,
}

/// What every entry says, besides its kind-specific `data`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Body {
    /// The seat that wrote and signed the entry, 0-based (see docs/json.md).
    pub author: u32,
    /// Kind-specific content, see [`Data`].
    pub data: Value,
    /// The game id (hex SHA-256 of the genesis line); absent in the genesis.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<HexHash>,
    pub kind: Kind,
    /// The author's next beacon link; absent in genesis and join entries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<HexHash>,
    /// Position in the log; the genesis is 0.
    pub n: u64,
    /// Id of the entry before; absent in the genesis.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prev: Option<HexHash>,
    /// When it was written (RFC 3339, UTC, whole seconds). Informational only:
    /// nothing in the rules or in any draw depends on it.
    pub time: String,
}

/// The kinds of entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Genesis,
    Join,
    Ready,
    Move,
    Reveal,
    Resign,
    Countersign,
    Abandon,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Genesis => "genesis",
            Kind::Join => "join",
            Kind::Ready => "ready",
            Kind::Move => "move",
            Kind::Reveal => "reveal",
            Kind::Resign => "resign",
            Kind::Countersign => "countersign",
            Kind::Abandon => "abandon",
        }
    }
}

/// A 32-byte value as 64 lower-case hex digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HexHash(pub Hash);

impl JsonSchema for HexHash {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "HexHash".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "32 bytes as 64 lower-case hex digits",
            "type": "string",
            "pattern": "^[0-9a-f]{64}$"
        })
    }
}

impl HexHash {
    pub fn bytes(&self) -> &Hash {
        &self.0
    }
}

impl From<Hash> for HexHash {
    fn from(h: Hash) -> Self {
        HexHash(h)
    }
}

impl Serialize for HexHash {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&hex::encode(self.0))
    }
}

impl<'de> Deserialize<'de> for HexHash {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        // Upper-case hex would decode too; refusing it keeps one spelling.
        if s.len() != 64 || s.bytes().any(|b| !matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            return Err(serde::de::Error::custom(
                "expected 64 lower-case hex digits",
            ));
        }
        let mut out = [0u8; 32];
        hex::decode_to_slice(&s, &mut out).map_err(serde::de::Error::custom)?;
        Ok(HexHash(out))
    }
}

/// A seat as the genesis lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SeatInfo {
    pub email: String,
    /// The key the seat is pinned to: only this key may join the seat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<HexHash>,
    pub name: String,
    /// A computer seat's operator: the seat of the person whose machine
    /// runs it, who can see its face-down tokens and signs its moves
    /// (protocol 3, docs/protocol.md section 3.4). Absent for a person.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operator: Option<u32>,
}

impl SeatInfo {
    /// The seat of a player whose identity is at hand, not pinned.
    pub fn of(id: &crate::crypto::identity::Identity) -> SeatInfo {
        SeatInfo {
            email: id.email.clone(),
            key: None,
            name: id.name.clone(),
            operator: None,
        }
    }
}

/// Data of the genesis (entry 0, by seat 0, the creator).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Genesis {
    /// The creator's public key; their join entry must use the same key.
    pub creator_key: HexHash,
    /// Seconds each seat has for each of its entries before another seat
    /// may claim the game abandoned (protocol 3 on; 1 to [`MAX_DEADLINE`]).
    /// Absent: no deadline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline: Option<u64>,
    /// Which game, e.g. `starry-sky`.
    pub game: String,
    /// Fresh randomness so that two games never share an id.
    pub nonce: HexHash,
    /// The game's options (variants, custom boards), defined by the game.
    pub options: Value,
    pub protocol: u32,
    /// The rules version; a program that does not implement it refuses.
    pub rules: u32,
    /// Seats in turn order; seat 0 is the creator.
    pub seats: Vec<SeatInfo>,
}

/// Data of a join entry: the only way a player's key enters a game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Join {
    /// The player's Ed25519 public key.
    pub key: HexHash,
    /// Fresh randomness mixed into the player's per-game secret.
    pub nonce: HexHash,
    /// Tip of the player's beacon chain for this game.
    pub tip: HexHash,
    /// Which mails the player wants from the others' programs; absent
    /// means `all` (and `all` is always written by leaving it out, so that
    /// a join has one encoding).
    #[serde(
        default,
        skip_serializing_if = "Notify::is_all",
        deserialize_with = "notify_or_null"
    )]
    pub notify: Notify,
}

/// A join's `notify`, where a `null` reads as absent at S2 so that S3
/// refuses it as non-canonical (12), as it does a null `key` or
/// `deadline` (docs/protocol.md section 8, S2).
fn notify_or_null<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Notify, D::Error> {
    Ok(Option::<Notify>::deserialize(d)?.unwrap_or_default())
}

/// Which mails a player wants while the others play (`starry join --notify`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Notify {
    /// Their turns, and a short report of every other move.
    #[default]
    All,
    /// Only their turns.
    Turn,
}

impl Notify {
    pub fn is_all(&self) -> bool {
        *self == Notify::All
    }
}

/// Data of ready entries: nothing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Empty {}

/// One hidden value opened: the commitment at `entry`/`slot` and what opens it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Opening {
    pub entry: u64,
    pub salt: HexHash,
    pub slot: u32,
    /// The hidden value, in the game's own JSON form.
    pub value: Value,
}

impl Opening {
    pub fn at(&self) -> HiddenRef {
        HiddenRef {
            entry: self.entry,
            slot: self.slot,
        }
    }
}

/// Data of a move entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Move {
    /// The public part of the move, defined by the game.
    pub action: Value,
    /// Commitments to hidden values, one per slot.
    pub commitments: Vec<HexHash>,
    /// Own hidden values this move must reveal.
    pub reveals: Vec<Opening>,
}

/// Data of a reveal entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Reveal {
    pub reveals: Vec<Opening>,
}

/// Data of a resign entry: the resigner opens every commitment of theirs
/// not opened yet, so that an audit checks what they had hidden.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Resign {
    pub reveals: Vec<Opening>,
}

/// Data of an abandon entry: the author claims that `silent` has stopped
/// answering, the game having waited for `silent`'s entry since entry
/// `awaited`. Once every other seat has claimed it, the game is over.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Abandon {
    pub awaited: u64,
    /// The seat claimed silent, 0-based (see docs/json.md).
    pub silent: u32,
}

/// Data of a countersign entry: the signer agrees that the game ended at
/// this entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Countersign {
    #[serde(rename = "final")]
    pub final_entry: HexHash,
}
