//! Commands that write an entry: new, join, ready, play, reveal, resign,
//! countersign. Each one locks the log, replays it in full, builds and signs
//! the entry, checks the new entry with the very code `audit` uses, and only
//! then replaces the file atomically. Any failure leaves the log untouched.

use std::fs;
use std::path::{Path, PathBuf};

use super::report::{BotReport, EntryReport};
use super::{After, Output, joined_dir, load_identity, status_of, status_text};
use crate::crypto::identity::Identity;
use crate::crypto::{Hash, os_random};

use crate::bot::{self, Bot, BotRng, Level, Player, Sight};
use crate::error::{Error, Result};
use crate::games::{Draw, Game, Seat};
use crate::log::entry::{HexHash, Kind, Line, Notify, SeatInfo};
use crate::log::file::{self, LockedLog};
use crate::log::replay::now;
pub use crate::log::write::Setup;
use crate::log::write::{self, Position, Refusal, Writer, Written};
use crate::log::{Action, Replay};
use crate::with_game;

/// What the player wants to do.
#[derive(Clone, Debug)]
pub enum Do {
    /// Join, wanting these mails from the others' programs; never a
    /// protocol 2 game (see [`Do::JoinProtocol2`]).
    Join(Notify),
    /// Join even a game whose genesis says protocol 2: it has no time
    /// controls (no deadline; any countersignature settles an abandonment),
    /// so only when the player asked for it (`join --allow-protocol-2`).
    JoinProtocol2(Notify),
    Ready,
    Move(String),
    Reveal,
    Resign,
    /// Countersign the result; never one that would settle claims against
    /// this very player (see [`Do::Concede`]).
    Countersign,
    /// Countersign even a result that placed this player last because
    /// the others claimed they stopped answering: it gives up the late
    /// answer that would still win (docs/protocol.md, §7). Only by hand,
    /// after the player confirmed it (`starry countersign`); no automatic
    /// path writes it.
    Concede,
    /// Claim that the seat the game waits for has stopped answering.
    Abandon,
    /// Whatever they must do next; a uniformly random legal move.
    Auto,
    /// Whatever they must do next; the move the computer chooses at this
    /// level, from this seed (none: fresh randomness).
    Bot(Level, Option<u64>),
}

/// Parses one `--players` seat: `EMAIL`, `Name <EMAIL>`, either followed
/// by `key:HEX` to pin the seat to that public key (as `starry id show`
/// prints it).
fn parse_seat(text: &str) -> Result<SeatInfo> {
    let mut t = text.trim();
    let mut key = None;
    // `key:` in any case, once, at the end.
    let lower = t.to_ascii_lowercase();
    if let Some(i) = lower.find("key:") {
        let hex_key = t[i + 4..].trim();
        let mut bytes = [0u8; 32];
        let why = if lower[i + 4..].contains("key:") {
            Some("`key:` is given twice".to_string())
        } else if hex_key.len() != 64 {
            Some(format!(
                "the key has {} characters, not 64",
                hex_key.chars().count()
            ))
        } else if hex::decode_to_slice(hex_key, &mut bytes).is_err() {
            Some("the key holds a character that is not a hex digit".to_string())
        } else {
            None
        };
        if let Some(why) = why {
            return Err(Error::Usage(format!(
                "--players: `{}`: {why}; a pinned key is `key:` followed by the 64 hex digits \
                 that `starry id show` prints for that player",
                crate::text::excerpt_of(text, 120)
            )));
        }
        key = Some(HexHash(bytes));
        t = t[..i].trim();
        if t.is_empty() {
            return Err(Error::Usage(format!(
                "--players: `{}`: the key must follow the player's address, as in \
                 `Ben <ben@example.org> key:…`",
                crate::text::excerpt_of(text, 120)
            )));
        }
    }
    let (name, email) = match (t.find('<'), t.ends_with('>')) {
        (Some(i), true) => (
            t[..i].trim().to_string(),
            t[i + 1..t.len() - 1].trim().to_string(),
        ),
        _ => (String::new(), t.to_string()),
    };
    crate::crypto::identity::check_email(&email)
        .map_err(|e| Error::Usage(format!("--players: {e}")))?;
    let name = if name.is_empty() {
        email.split('@').next().unwrap_or_default().to_string()
    } else {
        name
    };
    crate::text::check_name(&name).map_err(|e| Error::Usage(format!("--players: {e}")))?;
    Ok(SeatInfo {
        email,
        key,
        name,
        operator: None,
    })
}

pub(crate) fn parse_variants(variants: &[String]) -> Result<Vec<(String, String)>> {
    variants
        .iter()
        .map(|v| {
            v.split_once('=')
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                .ok_or_else(|| {
                    Error::Usage(format!(
                        "--variant `{v}` should look like KEY=VALUE, e.g. doubling=compound"
                    ))
                })
        })
        .collect()
}

/// `starry new`: the game and its seats, and each option as its flag gave
/// it (files by path); read and checked by [`new_game`].
#[derive(Debug, Default)]
pub struct NewGame {
    pub game: String,
    /// The seats in turn order: `EMAIL`, `Name <EMAIL>` (either maybe with
    /// `key:HEX`), or `computer[:LEVEL]`; the first is the creator.
    pub players: Vec<String>,
    /// `KEY=VALUE` each.
    pub variants: Vec<String>,
    pub boards: Option<PathBuf>,
    pub stars: Option<String>,
    pub stars_file: Option<PathBuf>,
    pub random_stars: Option<String>,
    pub grid: Option<String>,
    pub map: Option<String>,
    pub parts: Option<PathBuf>,
    pub discs: Option<PathBuf>,
    /// The creator's own wish for mails.
    pub notify: Notify,
    /// Seconds for each move; None for no deadline.
    pub deadline: Option<u64>,
    /// Where to write the log; None: the games directory.
    pub out: Option<PathBuf>,
    pub after: After,
}

/// `starry new`.
pub fn new_game(a: &NewGame) -> Result<Output> {
    let id = load_identity()?;
    // Each seat: a person (`Ann <ann@x.org>`) or a computer (`computer:3`).
    let seats = a
        .players
        .iter()
        .map(|p| match super::computer::parse_spec(p) {
            Some(level) => level.map(Err),
            None => parse_seat(p).map(Ok),
        })
        .collect::<Result<Vec<std::result::Result<SeatInfo, Level>>>>()?;
    if let Some(Err(_)) = seats.first() {
        return Err(Error::Usage(format!(
            "the first player in --players must be you ({}), since you create the game and play \
             in it; list the computer seats after you, as in `--players \"{}, computer\"`",
            crate::text::inline(&id.email),
            crate::text::inline(&id.email)
        )));
    }
    let mut pairs = parse_variants(&a.variants)?;
    // Data files come by path, with their own flags; a variant's value is
    // never read as a file.
    if let Some((key, _)) = pairs.iter().find(|(k, _)| k == "parts" || k == "discs") {
        return Err(Error::Usage(format!(
            "--variant {key}=…: give the {} file with --{key} FILE",
            if key == "parts" { "part" } else { "disc" }
        )));
    }
    // Each game's own flags (the registry says whose); another game's are
    // refused by name.
    let given: [(&str, bool); 8] = [
        ("--boards", a.boards.is_some()),
        ("--stars", a.stars.is_some()),
        ("--stars-file", a.stars_file.is_some()),
        ("--random-stars", a.random_stars.is_some()),
        ("--grid", a.grid.is_some()),
        ("--map", a.map.is_some()),
        ("--parts", a.parts.is_some()),
        ("--discs", a.discs.is_some()),
    ];
    let foreign = given
        .iter()
        .filter(|(_, given)| *given)
        .find_map(|(flag, _)| {
            crate::games::registry::flag_owner(flag)
                .filter(|owner| owner.name != a.game)
                .map(|owner| (flag, owner))
        });
    if let Some((flag, owner)) = foreign {
        return Err(Error::Usage(format!(
            "{flag} {}; it is not an option of {} (see `starry new --help`)",
            owner.new_flags_set,
            crate::text::excerpt(&a.game)
        )));
    }
    for (key, value) in [
        ("stars", &a.stars),
        ("random-stars", &a.random_stars),
        ("grid", &a.grid),
        ("map", &a.map),
    ] {
        if let Some(v) = value {
            pairs.push((key.to_string(), v.clone()));
        }
    }
    for (key, path, cannot, what) in [
        (
            "parts",
            &a.parts,
            "cannot read the part file",
            "the part file",
        ),
        (
            "discs",
            &a.discs,
            "cannot read the disc file",
            "the disc file",
        ),
    ] {
        if let Some(p) = path {
            pairs.push((key.to_string(), read_small(p, cannot, what)?));
        }
    }
    let extra = match (&a.boards, &a.stars_file) {
        (Some(p), _) => Some(read_small(
            p,
            "cannot read the board file",
            "the board file",
        )?),
        (None, Some(p)) => Some(read_small(
            p,
            "cannot read the stars file",
            "the stars file",
        )?),
        (None, None) => None,
    };
    let home = crate::crypto::identity::home_dir()?;
    let mut fresh = Draw::new(os_random());
    let how = Creating {
        mailing: a.after.mail,
        notify: a.notify,
        deadline: a.deadline,
    };
    with_game!(a.game.as_str(), G => new_with_computers::<G>(Author { home: &home, id: &id }, seats, &pairs, extra.as_deref(), a.out.as_deref(), how, &mut fresh))
}

/// Who writes an entry: the player's identity and the home that keeps
/// their records (joins, written entries, computer seats).
#[derive(Clone, Copy)]
pub struct Author<'a> {
    pub home: &'a Path,
    pub id: &'a Identity,
}

/// Where the log lives, locked: its path (for the messages and the files
/// beside it) and the lock, which holds the bytes read under it.
pub struct OpenLog<'a> {
    pub path: &'a Path,
    pub locked: LockedLog,
}

/// A refusal of the core's writer is the program's error of the same class.
impl From<Refusal> for Error {
    fn from(r: Refusal) -> Error {
        match r {
            Refusal::Usage(m) => Error::Usage(m),
            Refusal::Rule(e, f) => Error::Rule(e, f),
            Refusal::Other(m) => Error::Other(m),
        }
    }
}

/// [`create_in`] with computer seats: each gets a fresh identity of its own
/// under `HOME/computers/` (see [`super::computer`]), its key pinned in the
/// genesis; once the game is written, they join and play up to the
/// creator's first turn.
fn new_with_computers<G: Bot>(
    author: Author<'_>,
    seats: Vec<std::result::Result<SeatInfo, Level>>,
    pairs: &[(String, String)],
    extra: Option<&str>,
    out: Option<&Path>,
    how: Creating,
    fresh: &mut Draw,
) -> Result<Output> {
    use super::computer::Computer;
    let Author { home, id } = author;
    let count = seats.iter().filter(|s| s.is_err()).count();
    if count > 0 && !G::SEATS.contains(&seats.len()) {
        return Err(Error::Usage(format!(
            "{} is for {} players; --players lists {}",
            G::NAME,
            crate::games::seat_range::<G>(),
            seats.len()
        )));
    }
    let mut made = Vec::new();
    let mut infos = Vec::with_capacity(seats.len());
    for (seat, s) in seats.into_iter().enumerate() {
        match s {
            Ok(info) => infos.push(info),
            Err(level) => {
                let c = Computer::create(home, id, seat, count, level).inspect_err(|_| {
                    Computer::discard(&made);
                })?;
                infos.push(SeatInfo {
                    email: c.id.email.clone(),
                    key: Some(HexHash(c.id.public_key())),
                    name: c.id.name.clone(),
                    // The creator, seat 0, runs it: the genesis says so
                    // to everyone (docs/protocol.md section 3.4).
                    operator: Some(0),
                });
                made.push(c);
            }
        }
    }
    let setup = Setup {
        seats: infos,
        pairs,
        extra,
    };
    let mut output = create_in::<G>(author, setup, out, now(), how, fresh)
        .inspect_err(|_| Computer::discard(&made))?;
    if !made.is_empty() {
        let path = std::path::PathBuf::from(output.json["file"].as_str().unwrap_or_default());
        let game = output.json["status"]["game_id"]
            .as_str()
            .and_then(|g| {
                let mut h = [0u8; 32];
                hex::decode_to_slice(g, &mut h).ok().map(|_| h)
            })
            .expect("the report names the game it wrote");
        super::computer::bind(&made, &game)?;
        super::computer::after_new::<G>(home, &path, id, &mut output);
    }
    Ok(output)
}

/// Reads a board or stars file given to `new`: text, at most 1 MiB.
fn read_small(path: &Path, cannot: &'static str, what: &str) -> Result<String> {
    use std::io::Read as _;
    // A FIFO or a device would block or never end: only files.
    let meta = fs::metadata(path).map_err(|e| Error::io(cannot, path, e))?;
    if !meta.is_file() {
        return Err(Error::Usage(format!(
            "{}: {what} is not a regular file; nothing was written",
            crate::text::inline(&path.display().to_string())
        )));
    }
    let file = fs::File::open(path).map_err(|e| Error::io(cannot, path, e))?;
    let mut bytes = Vec::new();
    file.take(1 << 20 | 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(cannot, path, e))?;
    if bytes.len() > 1 << 20 {
        return Err(Error::Usage(format!(
            "{}: {what} is larger than 1 MiB; nothing was written",
            crate::text::inline(&path.display().to_string())
        )));
    }
    String::from_utf8(bytes).map_err(|_| {
        Error::Usage(format!(
            "{}: {what} is not UTF-8 text; nothing was written",
            crate::text::inline(&path.display().to_string())
        ))
    })
}

/// How the creator starts a game: whether it will be mailed at once, which
/// mails the creator wants, and the per-move deadline the genesis sets.
#[derive(Clone, Copy, Debug)]
pub struct Creating {
    pub mailing: bool,
    pub notify: Notify,
    /// Seconds per move before another seat may claim the game abandoned;
    /// None for no deadline.
    pub deadline: Option<u64>,
}

impl Default for Creating {
    fn default() -> Self {
        Creating {
            mailing: false,
            notify: Notify::All,
            deadline: Some(crate::log::entry::DEFAULT_DEADLINE),
        }
    }
}

/// Writes a genesis and the creator's join. Public so examples and tests can
/// build games with fixed times; `fresh` gives the nonces (OS randomness in
/// the CLI, a seeded draw for reproducible vectors).
pub fn create<G: Game>(
    author: Author<'_>,
    setup: Setup<'_>,
    out: &Path,
    time: String,
    fresh: &mut Draw,
) -> Result<Output> {
    create_in::<G>(author, setup, Some(out), time, Creating::default(), fresh)
}

/// [`create`], writing to `out` or, without one, to the player's games
/// directory (`HOME/games/GAME-ID.jsonl`), where `starry ingest` keeps the
/// copies of games received by mail. `how.mailing`: the caller mails the
/// log on, so the text need not say how to pass it.
pub fn create_in<G: Game>(
    author: Author<'_>,
    setup: Setup<'_>,
    out: Option<&Path>,
    time: String,
    how: Creating,
    fresh: &mut Draw,
) -> Result<Output> {
    let Author { home, id } = author;
    let mut bytes = write::genesis::<G>(id, setup, how.deadline, time.clone(), fresh.bytes())?;
    let replay = Replay::<G>::from_bytes(&bytes).map_err(refuse_new)?;
    let line = write::join_line(&replay, id, 0, how.notify, time, fresh.bytes());
    bytes.extend_from_slice(&line);
    let replay = Replay::<G>::from_bytes(&bytes).map_err(refuse_new)?;
    let in_games_dir = out.is_none();
    let out: std::path::PathBuf = match out {
        Some(p) => p.to_path_buf(),
        None => {
            let dir = super::games_dir(home);
            fs::create_dir_all(&dir).map_err(|e| Error::io("cannot create", &dir, e))?;
            super::game_path(home, &replay.game_id)
        }
    };
    let out = out.as_path();
    if out.exists() {
        return Err(Error::Usage(format!(
            "{} exists already; starry never overwrites a log — choose another --out",
            out.display()
        )));
    }
    // Every writer of this game's records in this home holds its lock.
    let _game_locked = super::written::lock(home, &replay.game_id)?;
    // The record of the join first: should the log not be written after
    // it, a later `new` simply makes another game.
    remember_join(home, &replay.game_id, &line)?;
    file::create(out, &bytes)?;
    let warning = super::written::remember_written(home, &replay.game_id, 1, &line, id);
    if !in_games_dir {
        super::remember_game(home, &hex::encode(replay.game_id), out);
    }
    let mut output = created_output(&replay, out, in_games_dir, how.mailing);
    output.warning = warning;
    Ok(output)
}

/// What `new` says of the game it wrote at `out`, and how to pass it on.
fn created_output<G: Game>(
    replay: &Replay<G>,
    out: &Path,
    in_games_dir: bool,
    mailing: bool,
) -> Output {
    let status = status_of(replay);
    let report = EntryReport {
        file: out.display().to_string(),
        dry_run: false,
        entry: 1,
        kind: "join".into(),
        summary: format!(
            "new game of {} with {} players",
            G::NAME,
            replay.seat_count()
        ),
        status: status.clone(),
        mail: None,
        git: None,
        bot: None,
        then: Vec::new(),
    };
    let to = status.to_act.clone().unwrap_or_default();
    let next = if mailing {
        String::new()
    } else if in_games_dir {
        let id16 = super::short_id(&replay.game_id);
        format!(
            "Mail it to {to} with `starry mail {id16}` (or create it with --mail); they run \
             `starry ingest` on the mail, then `starry join {id16}`."
        )
    } else {
        format!(
            "Send the file to {to}; they run `starry join {}`.",
            out.file_name()
                .map(|f| f.to_string_lossy().to_string())
                .unwrap_or_default()
        )
    };
    let created = format!(
        "Created {} (game {}) and joined as seat 0.\n",
        out.display(),
        &hex::encode(replay.game_id)[..16],
    );
    let mut output = Output::new(format!("{created}{}{next}", status_text(&status)), &report);
    output.head = Some(created.len());
    output
}

/// A game `new` would create that does not verify: the arguments are at
/// fault (two seats pinned to one key, a name the protocol refuses …), so it
/// is a usage error that says what the check found, and nothing is written.
fn refuse_new(f: crate::error::LogFault) -> Error {
    Error::Usage(format!(
        "cannot create this game: {}. Nothing was written; check --players and the options",
        f.detail
    ))
}

/// Records, durably and before the log is written, the join line this
/// identity is about to append to a game. Written first so that no crash
/// can leave a join in a log with no record of it: a record whose line is
/// not in the log yet is finished by the next `join`, with the very same
/// line, instead of a second join with a fresh nonce (which would fork the
/// game and look like cheating).
fn remember_join(home: &Path, game: &Hash, line: &[u8]) -> Result<()> {
    let dir = joined_dir(home);
    fs::create_dir_all(&dir).map_err(|e| Error::io("cannot create", &dir, e))?;
    file::write_record(&dir.join(hex::encode(game)), line)
}

/// What the join record says about `game`.
enum Record {
    None,
    /// A join line this identity prepared (and may or may not have written).
    Line(Vec<u8>),
    /// A record without the line (older starry versions wrote a time).
    Opaque,
}

fn join_record(home: &Path, game: &Hash) -> Result<Record> {
    let p = joined_dir(home).join(hex::encode(game));
    match fs::read(&p) {
        Ok(bytes) => {
            let line = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
            match serde_json::from_slice::<Line>(line) {
                Ok(l) if l.body.kind == Kind::Join => Ok(Record::Line(bytes)),
                _ => Ok(Record::Opaque),
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Record::None),
        Err(e) => Err(Error::io("cannot read the join record", &p, e)),
    }
}

/// Points at which a writing command can be interrupted, for tests that
/// inject a failure at each one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The join record is about to be written.
    WriteRecord,
    /// The log is about to be replaced.
    ReplaceLog,
}

/// `starry join`: the join entry, and a warning when the game's time
/// controls are under the player's `floor` (seconds), since a claim that
/// they stopped answering may come that soon.
pub fn join(path: &Path, what: Do, floor: u64) -> Result<Output> {
    let mut out = act_file(path, what, false)?;
    let short = file::read(path).ok().and_then(|b| {
        let (g, _) = crate::log::replay::read_genesis(&b).ok()?;
        (g.protocol >= 3).then(|| super::clock::short_deadline(&g, floor))?
    });
    if let Some(why) = short {
        let w = format!(
            "{why}. Joined all the same; to be warned only under another floor, \
             give --min-deadline (e.g. 1h, or none)"
        );
        out.warning = Some(match out.warning.take() {
            Some(prev) => format!("{prev}\nwarning: {w}"),
            None => w,
        });
    }
    Ok(out)
}

/// Locks the log, acts, writes.
pub fn act_file(path: &Path, what: Do, dry_run: bool) -> Result<Output> {
    act_file_expecting(path, what, dry_run, None)
}

/// [`act_file`], refusing unless the log has `expect` entries when it is
/// locked: a move chosen on a page showing an older position (`starry
/// serve`) is not played on the position that replaced it.
pub fn act_file_expecting(
    path: &Path,
    what: Do,
    dry_run: bool,
    expect: Option<u64>,
) -> Result<Output> {
    let id = load_identity()?;
    let home = crate::crypto::identity::home_dir()?;
    let locked = LockedLog::open(path)?;
    let (genesis, game) =
        crate::log::replay::read_genesis(&locked.bytes).map_err(|f| Error::Log {
            path: path.into(),
            fault: f,
        })?;
    // Only a game with computer seats on this machine pays for them.
    let computers = !super::computer::seats(&home, &genesis, &game).is_empty();
    if let Some(n) = expect {
        let now = with_game!(genesis.game.as_str(), G => super::cache::replay::<G>(&locked.bytes)
            .map(|r| r.len())
            .map_err(|fault| Error::Log { path: path.into(), fault }))?;
        if now != n {
            return Err(Error::Stale {
                path: path.into(),
                expected: n,
                found: now,
            });
        }
    }
    let out = with_game!(genesis.game.as_str(), G => act_and_follow::<G>(Author { home: &home, id: &id }, OpenLog { path, locked }, what, dry_run, computers))?;
    if !dry_run && let Some(game_id) = out.json["status"]["game_id"].as_str() {
        super::remember_game(&home, game_id, path);
    }
    Ok(out)
}

/// A person's entry, with the computer seats of this machine playing around
/// it: first any turn of theirs still due (one that failed before), then
/// every turn of theirs that follows the person's entry.
fn act_and_follow<G: Bot>(
    author: Author<'_>,
    log: OpenLog<'_>,
    what: Do,
    dry_run: bool,
    computers: bool,
) -> Result<Output> {
    let Author { home, id } = author;
    let path = log.path;
    let mut earlier = Vec::new();
    let mut stuck = None;
    let log = if computers && !dry_run {
        drop(log);
        let (played, failed) = super::computer::follow::<G>(home, path);
        earlier = played;
        stuck = failed;
        OpenLog {
            path,
            locked: LockedLog::open(path)?,
        }
    } else {
        log
    };
    // A computer seat that cannot play does not stop the person from
    // resigning or claiming; anything else it blocks is said with its cause.
    let mut out = match act::<G>(
        author,
        log,
        what,
        dry_run,
        now(),
        &mut Draw::new(os_random()),
    ) {
        Ok(out) => out,
        Err(e) => return Err(stuck.unwrap_or(e)),
    };
    if let Some(e) = stuck {
        out.warning = Some(format!(
            "a computer seat of this machine could not play its turn: {e}"
        ));
    }
    if !earlier.is_empty() {
        let before = super::computer::entries_text(&earlier);
        out.head = out.head.map(|h| h + before.len());
        out.text.insert_str(0, &before);
    }
    if computers && !dry_run {
        super::computer::after_person::<G>(home, path, id, &mut out);
    }
    Ok(out)
}

/// [`act_with`] without failure injection.
pub fn act<G: Bot>(
    author: Author<'_>,
    log: OpenLog<'_>,
    what: Do,
    dry_run: bool,
    time: String,
    chooser: &mut Draw,
) -> Result<Output> {
    act_with::<G>(author, log, what, dry_run, time, chooser, &mut |_| Ok(()))
}

/// The log an entry is appended to: the whole log, or, for an answer to
/// claims that it stopped answering, the log up to the first claim (the
/// claims it replaces are `dropped`: the first and the count of lines).
struct Base<G: Game> {
    replay: Replay<G>,
    events: Vec<super::history::Event>,
    bytes: Vec<u8>,
    dropped: Option<(u64, u64)>,
}

fn base_of<G: Game>(log: &OpenLog<'_>, id: &Identity, what: &Do, time: &str) -> Result<Base<G>> {
    let path = log.path;
    let bytes = &log.locked.bytes;
    let log_err = |f| Error::Log {
        path: path.into(),
        fault: f,
    };
    let (replay, events) = super::cache::tell::<G>(bytes).map_err(log_err)?;
    super::clock::refuse_ahead(&replay, path, time)?;
    // An answer to claims that ended the game with this player placed last
    // goes where the first claim stands, in place of the claims: that fork
    // it wins (docs/protocol.md, §7, a lapsed claim).
    let late = replay
        .seat_of_key(&id.public_key())
        .and_then(|me| super::clock::late_answer_at(&replay, me))
        .filter(|_| answers_claims(what));
    let Some(k) = late else {
        return Ok(Base {
            replay,
            events,
            bytes: bytes.clone(),
            dropped: None,
        });
    };
    let lines = crate::log::replay::split_lines(bytes).map_err(log_err)?;
    let (prefix, _) = crate::log::replay::split_at_entry(bytes, &lines, k as usize);
    let (replay, events) = super::cache::tell::<G>(prefix).map_err(log_err)?;
    Ok(Base {
        replay,
        events,
        bytes: prefix.to_vec(),
        dropped: Some((k, bytes.iter().filter(|&&b| b == b'\n').count() as u64)),
    })
}

/// The entry built, checked by the audit's rules: the game after it.
struct Built<G: Game> {
    line: Vec<u8>,
    summary: String,
    after: Replay<G>,
    kind: Kind,
    bot: Option<BotReport>,
}

/// The generic core of every writing command. `chooser` picks automatic
/// moves and nonces (OS randomness in the CLI, a seeded draw when making
/// examples); `step` is called before each write and may fail it (tests).
pub fn act_with<G: Bot>(
    author: Author<'_>,
    log: OpenLog<'_>,
    what: Do,
    dry_run: bool,
    time: String,
    chooser: &mut Draw,
    step: &mut dyn FnMut(Step) -> Result<()>,
) -> Result<Output> {
    let Author { home, id } = author;
    let path = log.path;
    let Base {
        replay,
        mut events,
        bytes,
        dropped,
    } = base_of::<G>(&log, id, &what, &time)?;
    let entry = replay.len();
    // A copy behind another of this player's signs nothing (written.rs);
    // only a join begun earlier may be written again, unchanged. The
    // game's lock in this home is held from the check until the entry and
    // its record are written: another copy's writer, holding only its own
    // copy's lock, waits for it and then finds this entry in the record.
    let _game_locked = if dry_run {
        None
    } else {
        Some(super::written::lock(home, &replay.game_id)?)
    };
    let built = build_checked(author, path, &replay, what, time, chooser)?;
    let mut warning = None;
    if !dry_run {
        let line = &built.line;
        if built.kind == Kind::Join
            && !matches!(join_record(home, &replay.game_id)?, Record::Line(ref l) if l == line)
        {
            step(Step::WriteRecord)?;
            remember_join(home, &replay.game_id, line)?;
        }
        let mut bytes = bytes;
        bytes.extend_from_slice(line);
        step(Step::ReplaceLog)?;
        log.locked.replace(&bytes)?;
        warning = super::written::remember_written(home, &replay.game_id, entry, line, id);
        events.push(super::history::tell_next(&replay, &built.after, line));
        super::cache::remember(&bytes, &built.after, &events);
    }
    let told = Told {
        path,
        dry_run,
        entry,
        dropped,
        warning,
    };
    entry_output(id, &replay, built, told)
}

/// Builds the entry after `replay` and replays it with the audit's rules;
/// a refusal names the file and the entry.
fn build_checked<G: Bot>(
    author: Author<'_>,
    path: &Path,
    replay: &Replay<G>,
    what: Do,
    time: String,
    chooser: &mut Draw,
) -> Result<Built<G>> {
    let Author { home, id } = author;
    let entry = replay.len();
    let again = unfinished_join(home, replay);
    super::written::check::<G>(home, path, replay, id, again)?;
    // Name the file and the entry being written in every refusal, and,
    // when something else of this player's is due, the command for it.
    let due = due_command(replay, id, path);
    let mut bot = None;
    let (line, summary) =
        build_entry::<G>(author, replay, what, time, chooser, &mut bot).map_err(|e| match e {
            Error::Rule(mut r, f) => {
                r.detail = format!(
                    "{}: cannot write entry {entry}: {}{}",
                    crate::error::shown_log(path, G::NAME),
                    with_names(replay, &r.detail),
                    due.filter(|_| f == crate::error::Fault::OutOfTurn)
                        .unwrap_or_default()
                );
                Error::Rule(r, f)
            }
            Error::Usage(m) => {
                Error::Usage(format!("{}: {m}", crate::error::shown_log(path, G::NAME)))
            }
            other => other,
        })?;
    let mut after = replay.clone();
    after
        .apply_line(replay.len(), &line[..line.len() - 1])
        .map_err(|f| {
            // The entry was built by this program and still failed the audit
            // rules: report it plainly rather than write it.
            Error::Other(format!(
                "refusing to write an entry that does not verify: {f}"
            ))
        })?;
    let last = after.entries.last().expect("just applied");
    let kind = last.kind;
    if again.is_some_and(|a| last.id != a) {
        // Not the entry the check let through: check again without it.
        super::written::check::<G>(home, path, replay, id, None)?;
    }
    let summary = match kind {
        Kind::Move => last.summary.clone(),
        _ => summary,
    };
    Ok(Built {
        line,
        summary,
        after,
        kind,
        bot,
    })
}

/// " (run `starry reveal game.jsonl`)": the command for the entry the game
/// waits for when it waits for `id`'s seat, naming the file as the player
/// can type it (shell-quoted, or the game's id).
fn due_command<G: Game>(r: &Replay<G>, id: &Identity, path: &Path) -> Option<String> {
    let (action, who) = r.expected();
    let me = r.seat_of_key(&id.public_key())?;
    let command = match action {
        _ if who != Some(me) => return None,
        Action::Ready => "ready",
        Action::Reveal => "reveal",
        Action::Move => "play",
        Action::Join | Action::Over => return None,
    };
    Some(format!(
        " (run `starry {command} {}`)",
        super::file_arg(&r.game_id, path)
    ))
}

/// A rule's refusal in the players' words: "seat 2" becomes the name of
/// that seat's player (escaped for one line), unless two players share it
/// or a label ("seat 2, Cleo <cleo@…>") names them already.
/// The rules engine knows seats only; the log knows who sits there.
fn with_names<G: Game>(r: &Replay<G>, detail: &str) -> String {
    let names = r.names();
    let unique = |s: usize| names.iter().filter(|n| **n == names[s]).count() == 1;
    let mut out = String::with_capacity(detail.len());
    let mut rest = detail;
    while let Some(i) = rest.find("seat ") {
        out.push_str(&rest[..i]);
        let after = &rest[i + "seat ".len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        // "seat 1, Ben <ben@…>" (a label) names the player already.
        let labelled = after[digits..].starts_with(',');
        match after[..digits].parse::<usize>() {
            Ok(s) if s < names.len() && unique(s) && !labelled => out.push_str(&names[s]),
            _ => out.push_str(&rest[i..i + "seat ".len() + digits]),
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

/// How an entry was written, for its report.
struct Told<'a> {
    path: &'a Path,
    dry_run: bool,
    entry: u64,
    dropped: Option<(u64, u64)>,
    warning: Option<String>,
}

/// What a writing command says: the entry, what the computer chose, the
/// claims it answers, the state after it and the writer's own view.
fn entry_output<G: Bot>(
    id: &Identity,
    replay: &Replay<G>,
    built: Built<G>,
    told: Told<'_>,
) -> Result<Output> {
    let Built {
        summary,
        after,
        kind,
        bot,
        ..
    } = built;
    let Told {
        path,
        dry_run,
        entry,
        dropped,
        mut warning,
    } = told;
    let author = after.entries.last().expect("just applied").author;
    let status = status_of(&after);
    let report = EntryReport {
        file: path.display().to_string(),
        dry_run,
        entry,
        kind: kind.as_str().into(),
        summary: summary.clone(),
        status: status.clone(),
        mail: None,
        git: None,
        bot: bot.clone(),
        then: Vec::new(),
    };
    let mut text = format!(
        "{}Entry {entry}: {} — {summary}.\n",
        if dry_run {
            "Dry run, nothing written. "
        } else {
            ""
        },
        after.name(author),
    );
    if let Some(b) = &bot {
        text.push_str(&format!(
            "The computer (level {}) chose `{}`: {}.\n",
            b.level, b.choice, b.why
        ));
    }
    if let Some((k, was)) = dropped {
        text.push_str(&starry_core::own::answers_claims_text(k, was));
    }
    let head = text.len();
    text.push_str(&status_text(&status));
    if let (Some(state), false) = (&after.state, after.is_over())
        && matches!(kind, Kind::Move | Kind::Ready | Kind::Reveal)
    {
        // The writer's own view, as `view` shows it to them: their hand,
        // their face-down values, "you" (never to anyone else: this text
        // goes to the writer's terminal only; mails build their own).
        text.push('\n');
        text.push_str(&G::render_text(
            &super::own_view(&after, state, author, id)?,
            &after.names(),
        ));
    }
    if kind == Kind::Join && replay.genesis.protocol < 3 {
        let w = format!(
            "this game is protocol {}: it has no time controls. Any other player may claim at \
             once that you stopped answering, and any countersignature settles the claim, so \
             that your answer may come too late (docs/protocol.md, §7)",
            replay.genesis.protocol
        );
        warning = Some(match warning {
            Some(prev) => format!("{prev}\nwarning: {w}"),
            None => w,
        });
    }
    let mut out = Output::new(text, &report);
    if let Some((k, _)) = dropped {
        out.json["answers_claims_from"] = k.into();
    }
    out.warning = warning;
    out.head = Some(head);
    if dry_run && let Some(state) = &after.state {
        let view = match after.seat_of_key(&id.public_key()) {
            Some(s) if s == author => super::own_view(&after, state, author, id)?,
            _ => G::view(state, None, None),
        };
        out.preview_svg = Some(G::render_svg(&view, &after.names()));
    }
    Ok(out)
}

/// Whether `what` is an entry of the awaited seat that answers claims
/// that it stopped answering (anything it may write on its turn).
fn answers_claims(what: &Do) -> bool {
    matches!(
        what,
        Do::Move(_) | Do::Auto | Do::Bot(..) | Do::Ready | Do::Reveal | Do::Resign
    )
}

/// What a countersignature of the game at `path` by this player would
/// give up, when the game ended with claims that they stopped answering
/// and their late answer still wins (docs/protocol.md, §7): the question
/// `starry countersign` asks first. None for any other countersignature.
pub fn concede_question(path: &Path) -> Result<Option<String>> {
    let id = load_identity()?;
    let bytes = file::read(path)?;
    let (genesis, _) = crate::log::replay::read_genesis(&bytes).map_err(|f| Error::Log {
        path: path.into(),
        fault: f,
    })?;
    with_game!(genesis.game.as_str(), G => {
        let r = super::cache::replay::<G>(&bytes).map_err(|fault| Error::Log { path: path.into(), fault })?;
        Ok(r.seat_of_key(&id.public_key()).and_then(|me| {
            let k = super::clock::late_answer_at(&r, me)?;
            let by: Vec<String> = r.entries[k as usize..]
                .iter()
                .filter(|e| e.kind == Kind::Abandon)
                .map(|e| r.name(e.author))
                .collect();
            Some(format!(
                "{} claimed that you stopped answering, and the game ended with you placed last. \
                 Your move, however late, still wins against those claims — until you \
                 countersign. Countersigning gives that up for good: the result stands, with \
                 you placed last. Countersign {}?",
                by.join(", "),
                crate::text::inline(&crate::error::shown_path(path))
            ))
        }))
    })
}

/// The id of the join this identity recorded before writing it, when that
/// join belongs at the end of `r` (a join stopped between its record and
/// the log): `build` writes that very entry again. An unreadable record is
/// none here; `build` says what is wrong with it if a join is asked for.
fn unfinished_join<G: Game>(home: &Path, r: &Replay<G>) -> Option<Hash> {
    let Ok(Record::Line(line)) = join_record(home, &r.game_id) else {
        return None;
    };
    let line = line.strip_suffix(b"\n").unwrap_or(&line);
    let body = serde_json::from_slice::<Line>(line).ok()?.body;
    (body.n == r.len() && body.prev.map(|h| h.0) == Some(r.tip()))
        .then(|| crate::crypto::sha256(line))
}

/// Builds the next entry for `id`, or says why they cannot write one: the
/// line (with its newline) and what it does. Writes nothing (it reads the
/// player's join record); public so that tools can play games in memory.
pub fn build<G: Bot>(
    home: &Path,
    r: &Replay<G>,
    id: &Identity,
    what: Do,
    time: String,
    chooser: &mut Draw,
) -> Result<Written> {
    build_entry(Author { home, id }, r, what, time, chooser, &mut None)
}

/// [`build`], and in `note` what the computer chose and why when it chose
/// the move. The entry itself is the core's ([`write`]); here are what the
/// player's home and this machine's clock add to it.
fn build_entry<G: Bot>(
    author: Author<'_>,
    r: &Replay<G>,
    what: Do,
    time: String,
    chooser: &mut Draw,
    note: &mut Option<BotReport>,
) -> Result<Written> {
    let (action, _) = r.expected();
    let bot = match what {
        Do::Bot(level, seed) => Some((level, seed)),
        _ => None,
    };
    let what = match what {
        Do::Auto | Do::Bot(..) => match action {
            Action::Join => Do::Join(Notify::All),
            Action::Ready => Do::Ready,
            Action::Reveal => Do::Reveal,
            Action::Move => Do::Move(String::new()),
            Action::Over => Do::Countersign,
        },
        // Keep an explicit move distinct from an automatic one.
        other => other,
    };
    match what {
        Do::Join(notify) => return join_entry(author, r, notify, false, time, chooser),
        Do::JoinProtocol2(notify) => return join_entry(author, r, notify, true, time, chooser),
        _ => {}
    }
    let w = Writer::new(r, author.id, time.clone())?;
    let written = match what {
        Do::Countersign | Do::Concede => w.countersign(
            matches!(what, Do::Concede),
            super::clock::late_answer_at(r, w.seat()),
        ),
        Do::Resign => w.resign(),
        Do::Abandon => {
            let not_due = super::clock::check_claim_due(r, &time)
                .err()
                .map(|e| e.to_string());
            w.claim(not_due, &super::clock::deadline_passed(r, &time))
        }
        Do::Ready => w.ready(),
        Do::Reveal => w.reveal(),
        Do::Move(text) => {
            let at = w.position()?;
            let intent = match bot.filter(|_| text.is_empty()) {
                Some((level, seed)) => think(&at, level, seed, chooser, note)?,
                None if text.is_empty() => at.random(chooser)?,
                None => at.typed(&text)?,
            };
            w.play(&at, &intent)
        }
        Do::Join(_) | Do::JoinProtocol2(_) | Do::Auto | Do::Bot(..) => {
            unreachable!("handled above")
        }
    };
    Ok(written?)
}

/// The computer's move at `level` from `seed` (none: drawn from `chooser`),
/// noted with its reasons. Ctrl-C stops the think, and nothing is written.
fn think<G: Bot>(
    at: &Position<G>,
    level: Level,
    seed: Option<u64>,
    chooser: &mut Draw,
    note: &mut Option<BotReport>,
) -> Result<G::Intent> {
    let seed = seed.unwrap_or_else(|| {
        let b = chooser.bytes();
        u64::from_be_bytes(b[..8].try_into().expect("8 bytes"))
    });
    let sight = Sight::<G>::new(&at.state, at.seat, &at.own, at.at);
    let stream = at.stream(seed);
    let choice = crate::app::think::interruptible(|| {
        bot::choose(Player::Search(level), &sight, &mut BotRng::seeded(stream))
    })?
    .ok_or_else(write::no_move)?;
    *note = Some(BotReport {
        level: level.get(),
        seed,
        choice: choice.intent.to_string(),
        why: choice.why,
    });
    Ok(choice.intent)
}

/// The join of `author` to `r`, or the same join again when one was begun
/// and not finished; refused for a seat whose genesis says more of this
/// machine than it holds (see [`refuse_false_operators`]).
fn join_entry<G: Game>(
    author: Author<'_>,
    r: &Replay<G>,
    notify: Notify,
    protocol_2: bool,
    time: String,
    chooser: &mut Draw,
) -> Result<Written> {
    let Author { home, id } = author;
    let seat = write::join_seat(r, id, protocol_2)?;
    refuse_false_operators(home, r, seat)?;
    let mark = joined_dir(home).join(hex::encode(r.game_id));
    match join_record(home, &r.game_id)? {
        Record::None => {
            let line = write::join_line(r, id, seat, notify, time, chooser.bytes());
            Ok((line, "joined".into()))
        }
        Record::Line(line) => {
            // A join begun before and not finished (the program was
            // stopped between the record and the log): the same line
            // again, never a second one.
            let body = serde_json::from_slice::<Line>(line.strip_suffix(b"\n").unwrap_or(&line))
                .map(|l| l.body)
                .ok();
            if let Some(b) = body
                && b.n == r.len()
                && b.prev.map(|h| h.0) == Some(r.tip())
            {
                return Ok((line, "joined (finishing the join begun earlier)".into()));
            }
            Err(joined_before(
                r,
                &mark,
                " at another point of its log than this copy",
            ))
        }
        Record::Opaque => Err(joined_before(r, &mark, "")),
    }
}

/// A genesis can say that a seat is a computer played on another seat's
/// machine (`operator`, protocol §3.4), and the claim rule trusts it: no
/// seat of one machine claims against another, and a claim against a
/// person needs none of her computers' claims (§7). The protocol cannot
/// check the field; the one who joins can. So a person never joins a seat
/// the genesis calls a computer (she would give up her claims against its
/// "operator", and the operator could never be claimed abandoned), and
/// never joins a game that names her the operator of a seat her machine
/// does not play (a puppet of another player's, which she could never
/// claim against). A computer seat's own home is the one home that may
/// join an operated seat: it is bound to this very game.
fn refuse_false_operators<G: Game>(home: &Path, r: &Replay<G>, seat: Seat) -> Result<()> {
    let game = hex::encode(r.game_id);
    let seats = &r.genesis.seats;
    if let Some(op) = seats[seat].operator {
        let bound = std::fs::read_to_string(home.join(super::computer::GAME_FILE))
            .is_ok_and(|g| g.trim() == game);
        if !bound {
            return Err(Error::Usage(format!(
                "seat {seat} ({}) is a computer seat by this game's genesis, played on the \
                 machine of seat {op} ({}), and you are a person: joined, you could never \
                 claim that {} stopped answering, nor they that you did. Ask the creator to \
                 start the game again without `operator` on your seat. Nothing was written",
                r.name(seat),
                r.name(op as Seat),
                r.name(op as Seat),
            )));
        }
        return Ok(());
    }
    let mine = super::computer::seats(home, &r.genesis, &r.game_id);
    if let Some((puppet, _)) = seats
        .iter()
        .enumerate()
        .find(|(i, s)| s.operator == Some(seat as u32) && !mine.contains(i))
    {
        return Err(Error::Usage(format!(
            "this game's genesis says that your machine plays seat {puppet} ({}) as a \
             computer, and it does not: no computer seat of yours is bound to this game. \
             Joined, you could never claim that seat {puppet} stopped answering, and its real \
             player could stall the game for good. Ask the creator to start the game again \
             without that `operator`. Nothing was written",
            r.name(puppet),
        )));
    }
    Ok(())
}

/// Refuses a second join: it would fork the game.
fn joined_before<G: Game>(r: &Replay<G>, mark: &Path, where_: &str) -> Error {
    Error::Usage(format!(
        "you joined game {} before (recorded in {}){where_}: joining it again would fork it. \
         Use the copy of the log that holds your join",
        &hex::encode(r.game_id)[..16],
        mark.display()
    ))
}

/// The data of a countersignature of the game `r`, which is over.
pub use starry_core::log::write::countersign_data;
