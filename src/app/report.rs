//! What commands print with `--json`. These types are the scriptable surface:
//! their schemas are generated into `schemas/` and a test fails when a
//! checked-in schema is stale.

use schemars::JsonSchema;
use serde::Serialize;

use crate::error::Fault;

pub use starry_core::status::{
    ClaimsReport, CountersignReport, EndingReport, SeatReport, StandingReport, StatusReport,
};

/// `starry id new` / `starry id show`.
#[derive(Serialize, JsonSchema, Debug)]
pub struct IdReport {
    pub name: String,
    pub email: String,
    /// Ed25519 public key, hex.
    pub key: String,
    /// The identity file.
    pub file: String,
    /// `Name <EMAIL> key:HEX`: what a game's creator puts in `--players`
    /// to pin this player's seat to this key.
    pub players_entry: String,
}

/// The first fault of an invalid log.
#[derive(Serialize, JsonSchema, Debug, Clone)]
pub struct FaultReport {
    /// Entry number (0 = genesis).
    pub entry: u64,
    /// Line number in the file (entry + 1).
    pub line: u64,
    pub fault: Fault,
    /// The exit code for this fault.
    pub code: i32,
    /// Who wrote the entry, when known.
    pub author: Option<String>,
    /// The full one-paragraph message.
    pub message: String,
}

/// One file of `starry audit`.
#[derive(Serialize, JsonSchema, Debug, Clone)]
pub struct AuditFileReport {
    pub file: String,
    pub valid: bool,
    pub game: Option<String>,
    pub game_id: Option<String>,
    /// Entries that verified.
    pub entries: u64,
    /// The first fault, when invalid.
    pub fault: Option<FaultReport>,
    pub over: bool,
    pub ending: Option<EndingReport>,
    /// Final standings, when finished.
    pub standings: Option<Vec<StandingReport>>,
    /// Seats that countersigned the final entry, 0-based (see docs/json.md).
    pub countersigned: Vec<u32>,
    /// Where the game stands (valid logs only).
    pub status: Option<StatusReport>,
    /// SHA-256 of the bytes audited: copies of one game are compared as
    /// they were audited, not as they may be a moment later.
    #[serde(skip)]
    pub digest: Option<[u8; 32]>,
}

/// One game of `starry audit`: every copy of it that was given (files with
/// the same game id), checked, and compared. `--json` prints one of these per
/// game, one per line.
#[derive(Serialize, JsonSchema, Debug, Clone)]
pub struct AuditGameReport {
    /// The game's name (`starry-sky`, …), when a copy's first line says it.
    pub game: Option<String>,
    /// Hex id of the game; null for a file whose first line could not be read
    /// (it is then a "game" of its own).
    pub game_id: Option<String>,
    /// One copy at least verifies in full, and no two copies fork (unless
    /// the protocol's rule resolves it). Damaged copies beside a sound one
    /// are listed under `damaged`.
    pub valid: bool,
    /// Where the game stands by its longest valid copy: `finished`,
    /// `resigned`, `stalled`, `abandoned` or `in-progress`; null when no copy
    /// is valid.
    pub state: Option<GameState>,
    /// Entries of the longest sound copy (the one `state` describes); with
    /// no sound copy, of the copy that verified furthest.
    pub entries: u64,
    /// The gravest fault of the game (see `Fault`'s order in the README),
    /// null when valid.
    pub fault: Option<Fault>,
    /// The exit code for `fault`; 0 when valid.
    pub code: i32,
    /// Each copy, in the order found.
    pub files: Vec<AuditFileReport>,
    /// Copies of the game that diverge: two different valid entries at the
    /// same position.
    pub forks: Vec<ForkReport>,
    /// Copies that do not verify in full (each one's fault is under
    /// `files`) of a game with a sound copy: they do not make the game
    /// invalid. Empty when no copy is sound.
    pub damaged: Vec<String>,
}

/// Where a game stands, in one word.
#[derive(Serialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum GameState {
    /// Played to the end under the rules.
    Finished,
    /// A player resigned.
    Resigned,
    /// Nobody could move any more.
    Stalled,
    /// Every other player claimed that one stopped answering.
    Abandoned,
    /// Not over yet.
    InProgress,
}

impl GameState {
    pub fn of(ending: Option<EndingReport>) -> GameState {
        match ending {
            None => GameState::InProgress,
            Some(EndingReport::Finished) => GameState::Finished,
            Some(EndingReport::Resigned { .. }) => GameState::Resigned,
            Some(EndingReport::Stalled) => GameState::Stalled,
            Some(EndingReport::Abandoned { .. }) => GameState::Abandoned,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            GameState::Finished => "finished",
            GameState::Resigned => "resigned",
            GameState::Stalled => "stalled",
            GameState::Abandoned => "abandoned",
            GameState::InProgress => "in progress",
        }
    }
}

/// Two copies of one game with different entries at the same position.
#[derive(Serialize, JsonSchema, Debug, Clone)]
pub struct ForkReport {
    pub files: [String; 2],
    /// The first entry where they differ (both copies verified up to it).
    pub entry: u64,
    /// Who wrote entry `entry` in each copy.
    pub authors: [String; 2],
    /// Both entries were signed by the same player: proof that this player
    /// signed two different entries for one position.
    pub same_author: bool,
    /// How the fork resolves by the protocol's rules, if it does:
    /// `claim-lapsed` (one side holds abandonment claims, the other the
    /// awaited player's entry, which wins) or `countersignatures` (both
    /// sides hold only countersignatures; the side whose first differing
    /// entry has the smaller id wins). Such a fork is no fault.
    pub resolution: Option<String>,
    /// The copy the game goes on with, when the fork resolves by rule.
    pub kept: Option<String>,
    /// How many copies hold one of the fork's entries (identical copies
    /// each counted): a fork is reported once per position and signer,
    /// however many copies show it; `files` names two of them.
    pub copies: u64,
    /// How many different entries the copies hold at `entry`.
    pub entries: u64,
    pub message: String,
}

/// `starry new`, `join`, `ready`, `play`, `reveal`, `resign`, `countersign`.
#[derive(Serialize, JsonSchema, Debug)]
pub struct EntryReport {
    pub file: String,
    /// True when nothing was written (`--dry-run`).
    pub dry_run: bool,
    /// Number of the entry written.
    pub entry: u64,
    pub kind: String,
    /// What it did, e.g. "placed 10 on leo:3" (the game's `narrate`).
    pub summary: String,
    /// The game after the entry.
    pub status: StatusReport,
    /// With `--mail`: the mails sent, or why not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mail: Option<MailReport>,
    /// With `--git-commit`: the commit made, or why not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub git: Option<GitReport>,
    /// With `--bot`, when the computer chose the move: what and why. Only
    /// ever printed for the player it plays for: the choice may name a
    /// token placed face down.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bot: Option<BotReport>,
    /// The entries this machine wrote right after it, in order: the turns
    /// of its computer seats (and, for `new`, the creator's ready entry
    /// when nobody else is to wait for). `status` is the game after them.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub then: Vec<super::computer::ComputerEntry>,
}

/// The computer's choice of a move for the local player.
#[derive(Serialize, JsonSchema, Debug, Clone)]
pub struct BotReport {
    /// 1 to 3.
    pub level: u8,
    /// The seed it chose from (the same seed and position give the same move).
    pub seed: u64,
    /// The move, in the notation of `starry play`.
    pub choice: String,
    /// Why, in one line (e.g. the win rate in its simulated games).
    pub why: String,
}

/// One mail that left (or was written to the outbox folder).
#[derive(Serialize, JsonSchema, Debug, Clone)]
pub struct SentMailReport {
    /// Recipient's e-mail address.
    pub to: String,
    /// Recipient's name.
    pub to_name: String,
    pub subject: String,
    /// How it left: `outbox`, `smtp` or `sendmail`.
    pub via: String,
    /// What happened, e.g. `sent through mail.example.org:587 (250 OK)`.
    pub detail: String,
    /// The `.eml` file written (outbox transport).
    pub path: Option<String>,
    /// The mail's size on the wire, in bytes.
    pub bytes: u64,
    /// The first entry the attached log carries (0: the whole log).
    pub entries_from: u64,
}

/// One mail that could not be sent.
#[derive(Serialize, JsonSchema, Debug, Clone)]
pub struct UnsentMailReport {
    /// Recipient's e-mail address, when known.
    pub to: Option<String>,
    pub subject: Option<String>,
    /// Why (one paragraph; never a password).
    pub error: String,
    /// The copy kept in `$STARRY_HOME/pending/` for `starry mail --retry`, if it could be kept.
    pub pending: Option<String>,
}

/// `starry mail`, and the `mail` part of a writing command run with `--mail`.
#[derive(Serialize, JsonSchema, Debug, Clone, Default)]
pub struct MailReport {
    /// The log mailed (null for `--retry`).
    pub file: Option<String>,
    pub game_id: Option<String>,
    /// Number of the last entry in the log mailed.
    pub entry: Option<u64>,
    /// Mails that left.
    pub sent: Vec<SentMailReport>,
    /// Mails that did not leave.
    pub failed: Vec<UnsentMailReport>,
    /// Why no mail was needed, e.g. when it is the sender's own turn again.
    pub note: Option<String>,
    /// What went wrong without stopping a mail, e.g. a board picture that
    /// could not be drawn (the mails then went without it).
    pub warnings: Vec<String>,
}

/// The `git` part of a writing command run with `--git-commit`.
#[derive(Serialize, JsonSchema, Debug, Clone)]
pub struct GitReport {
    /// True when the commit was made.
    pub committed: bool,
    /// The top directory of the repository, when found.
    pub repository: Option<String>,
    /// The new commit's hash.
    pub commit: Option<String>,
    /// The commit message's first line.
    pub message: String,
    /// Why no commit was made.
    pub error: Option<String>,
}

/// What `starry ingest` did to the local copy.
#[derive(Serialize, serde::Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum IngestOutcome {
    /// There was no local copy: it was created.
    Created,
    /// The local copy was a prefix of the received log and now equals it.
    FastForwarded,
    /// The local copy already held exactly these entries.
    Unchanged,
    /// The received log is a prefix of the local copy (an older mail).
    Ahead,
    /// The copies forked in a way the protocol resolves (a lapsed
    /// abandonment claim, or countersignatures written at once) and the
    /// received side won: the local copy now follows it, with the local
    /// player's countersignature written again on top if it was lost.
    Resolved,
    /// The copies forked in a way the protocol resolves and the local side
    /// won: the local copy is kept as it is.
    Kept,
}

/// `starry ingest`.
#[derive(Serialize, JsonSchema, Debug)]
pub struct IngestReport<V> {
    /// Where the mail came from (a file, or `-` for standard input).
    pub input: String,
    /// The local copy.
    pub file: String,
    pub game: String,
    pub game_id: String,
    pub outcome: IngestOutcome,
    /// Entries in the local copy before.
    pub entries_before: u64,
    /// Entries in the log received.
    pub entries_received: u64,
    /// Entries in the local copy now.
    pub entries_after: u64,
    /// Seat of the local player (by identity), 0-based (see docs/json.md), or null.
    pub seat: Option<u32>,
    /// True when the local player must write the next entry.
    pub your_turn: bool,
    /// The command to run next, when it is your turn.
    pub next_command: Option<String>,
    pub status: StatusReport,
    /// The local player's view (with their own face-down tokens), or the spectator view.
    pub view: Option<V>,
    /// Set when there is no starry identity here: which seat may be yours
    /// and the commands that take it.
    pub no_identity: Option<NoIdentityReport>,
    /// The entries this machine's computer seats wrote after the log
    /// arrived, in order (they were mailed on as `--mail` does; see
    /// `mail`). `status` and `view` are the game after them.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub then: Vec<super::computer::ComputerEntry>,
}

/// `starry ingest` without a starry identity: the game is stored all the
/// same, and this says how to take a seat in it.
#[derive(Serialize, serde::Deserialize, JsonSchema, Debug, Clone)]
pub struct NoIdentityReport {
    /// Where the identity was looked for.
    pub path: String,
    /// The seats that may be yours, 0-based (see docs/json.md): the one
    /// whose address the mail is addressed to (`To:`), when the input is
    /// such a mail; else every seat that has not joined yet.
    pub seats: Vec<u32>,
    /// True when `seats` is the seat the mail is addressed to.
    pub addressed: bool,
    /// For each seat of `seats` that waits to join, in the same order, the
    /// command that creates an identity with its name and address (quoted
    /// for a shell).
    pub create: Vec<String>,
    /// The command that joins once the identity is there; null when no
    /// seat of `seats` waits to join.
    pub join: Option<String>,
}

/// `starry mail --retry`.
#[derive(Serialize, JsonSchema, Debug, Clone, Default)]
pub struct RetryReport {
    /// Pending mails sent now.
    pub sent: Vec<RetriedReport>,
    /// Mails still pending, each with why.
    pub kept: Vec<RetriedReport>,
}

/// One pending mail in `starry mail --retry`.
#[derive(Serialize, JsonSchema, Debug, Clone)]
pub struct RetriedReport {
    /// The pending `.eml` file.
    pub file: String,
    /// What happened, or why it is still pending.
    pub detail: String,
}

/// `starry view`.
#[derive(Serialize, JsonSchema, Debug)]
pub struct ViewReport<V> {
    pub game: String,
    pub game_id: String,
    /// The last entry shown, numbered from 0 (the genesis) as `--at` and
    /// `starry history` number entries.
    pub at: u64,
    /// Seat of the viewer, 0-based (see docs/json.md), or null for the
    /// spectator view.
    pub viewer: Option<u32>,
    pub status: StatusReport,
    pub view: Option<V>,
}

/// One game in `starry rules list`.
#[derive(Serialize, JsonSchema, Debug)]
pub struct GameInfo {
    pub name: String,
    pub rules_version: u32,
    pub min_players: usize,
    pub max_players: usize,
    pub variants: Vec<VariantInfo>,
}

#[derive(Serialize, JsonSchema, Debug)]
pub struct VariantInfo {
    pub key: String,
    /// Accepted values; the first is the default.
    pub values: Vec<String>,
    pub help: String,
}

/// `starry rules list`.
#[derive(Serialize, JsonSchema, Debug)]
pub struct RulesList {
    pub games: Vec<GameInfo>,
}

/// `starry demo`.
#[derive(Serialize, JsonSchema, Debug)]
pub struct DemoReport {
    /// Where the log, its pictures and the identities are (kept).
    pub dir: String,
    /// The final position as a picture (PNG) and as a page (HTML), in `dir`.
    pub picture: String,
    pub page: String,
    pub entries: u64,
    pub moves: u64,
    pub audit: AuditFileReport,
}
