//! Computer seats: seats of a game that this machine plays by itself.
//!
//! `starry new … --players "Ann <ann@x.org>, computer:3"` gives the
//! computer a seat like anyone's: an identity of its own, made for that one
//! game and kept under `HOME/computers/KEY/` (a home of its own, apart from
//! the person's, with its own join and written records), its key pinned in
//! the genesis. Its entries are ordinary signed entries; `audit` cannot tell
//! them from a person's.
//!
//! After every entry a person writes here, and after every `ingest` or
//! `sync` that brings the game on, [`follow`] plays each turn that falls to
//! one of this machine's computer seats, until a person must act or the
//! game is over and countersigned. What it reports is what anybody may see
//! (each entry's public summary), never the computer's face-down values or
//! its reasons: those stay in its own home, as a person's stay in theirs.

use crate::crypto::identity::Stored as _;
use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::act::{self, Do};
use super::{Output, status_of, status_text};
use crate::bot::{Bot, Level};
use crate::crypto::identity::Identity;
use crate::crypto::{Hash, os_random};
use crate::error::{Error, Result};
use crate::games::{Draw, Game, Seat};
use crate::log::entry::{Genesis, Notify};
use crate::log::file::LockedLog;
use crate::log::replay::now;
use crate::log::{Action, Replay};

/// Where the computer seats' homes are: `HOME/computers/`.
pub fn computers_dir(home: &Path) -> PathBuf {
    home.join("computers")
}

fn seat_home(home: &Path, key: &[u8; 32]) -> PathBuf {
    computers_dir(home).join(hex::encode(key))
}

/// The file in a computer seat's home that holds its level.
const LEVEL_FILE: &str = "level";
/// The file in a computer seat's home that holds the id of its game.
pub const GAME_FILE: &str = "game";

/// Reads a `--players` entry that names a computer seat: `computer` or
/// `computer:LEVEL` (any case). None when the entry names a person.
pub fn parse_spec(text: &str) -> Option<Result<Level>> {
    let t = text.trim();
    let (word, level) = match t.split_once(':') {
        Some((w, l)) => (w.trim(), Some(l.trim())),
        None => (t, None),
    };
    if !word.eq_ignore_ascii_case("computer") {
        return None;
    }
    Some(match level {
        None => Ok(Level::DEFAULT),
        Some(l) => l.parse::<u8>().ok().and_then(Level::new).ok_or_else(|| {
            Error::Usage(format!(
                "--players: `{}`: a computer's level is {} to {}, as in `computer:{}`",
                crate::text::excerpt_of(t, 40),
                Level::MIN,
                Level::MAX,
                Level::MAX
            ))
        }),
    })
}

/// A computer seat this machine plays: its identity, its home, its level.
pub struct Computer {
    pub home: PathBuf,
    pub id: Identity,
    pub level: Level,
}

impl Computer {
    /// The address a computer seat is listed under: the creator's own
    /// mailbox with a tag (`ann+computer2@x.org`), so that a turn mail
    /// another player's program sends to it reaches the one machine that
    /// plays it, where `sync` takes it in, and never a stranger.
    pub fn email(creator: &str, seat: Seat) -> String {
        let (local, domain) = creator.rsplit_once('@').unwrap_or((creator, ""));
        let tag = if local.contains('+') { "-" } else { "+" };
        format!("{local}{tag}computer{seat}@{domain}")
    }

    /// The name a computer seat plays under: "Computer", or "Computer 2"
    /// (its seat) when the game has more than one.
    pub fn name(seat: Seat, computers: usize) -> String {
        if computers == 1 {
            "Computer".into()
        } else {
            format!("Computer {seat}")
        }
    }

    /// Makes a new computer seat for a game the identity `creator` starts:
    /// a fresh identity in a home of its own under `home`.
    pub fn create(
        home: &Path,
        creator: &Identity,
        seat: Seat,
        computers: usize,
        level: Level,
    ) -> Result<Computer> {
        let dir = computers_dir(home);
        fs::create_dir_all(&dir).map_err(|e| Error::io("cannot create", &dir, e))?;
        // Made under a temporary name and renamed to its key once whole, so
        // that no half-made seat is ever found by its key.
        let staging = tempfile::Builder::new()
            .prefix(".new-")
            .tempdir_in(&dir)
            .map_err(|e| Error::io("cannot create a directory in", &dir, e))?;
        let id = Identity::create(
            staging.path(),
            &Self::name(seat, computers),
            &Self::email(&creator.email, seat),
        )?;
        let level_path = staging.path().join(LEVEL_FILE);
        crate::log::file::write_record(&level_path, format!("{level}\n").as_bytes())?;
        let final_home = seat_home(home, &id.public_key());
        fs::rename(staging.keep(), &final_home)
            .map_err(|e| Error::io("cannot create", &final_home, e))?;
        Ok(Computer {
            home: final_home,
            id,
            level,
        })
    }

    /// The computer seat this machine keeps for `key`, if any.
    pub fn load(home: &Path, key: &[u8; 32]) -> Option<Result<Computer>> {
        let dir = seat_home(home, key);
        if !dir.join(crate::crypto::identity::FILE_NAME).is_file() {
            return None;
        }
        Some((|| {
            let id = Identity::load(&dir)?;
            if id.public_key() != *key {
                return Err(Error::Other(format!(
                    "{}: this computer seat's identity holds another key than its directory's \
                     name; it was moved or edited by hand. Put the directory back under its key",
                    dir.display()
                )));
            }
            let path = dir.join(LEVEL_FILE);
            let text = fs::read_to_string(&path)
                .map_err(|e| Error::io("cannot read the computer's level", &path, e))?;
            let level = text
                .trim()
                .parse::<u8>()
                .ok()
                .and_then(Level::new)
                .ok_or_else(|| {
                    Error::Other(format!(
                        "{}: the computer's level is `{}`, not {} to {}; write the level there",
                        path.display(),
                        crate::text::excerpt_of(text.trim(), 20),
                        Level::MIN,
                        Level::MAX
                    ))
                })?;
            Ok(Computer {
                home: dir,
                id,
                level,
            })
        })())
    }

    /// Removes computer seats made for a game that was not written after all.
    pub fn discard(made: &[Computer]) {
        for c in made {
            let _ = fs::remove_dir_all(&c.home);
        }
    }
}

/// The seats of the game `game` (its id) that this machine plays: those the
/// genesis pins to the key of one of its computer seats made for this very
/// game. A computer seat plays in the one game it was made for: a stranger
/// who pins a seat of a game of their own to its (public) key gets nothing
/// from this machine. Costs nothing on a machine with no computer seats.
pub fn seats(home: &Path, genesis: &Genesis, game: &Hash) -> Vec<Seat> {
    let dir = computers_dir(home);
    if !dir.is_dir() {
        return Vec::new();
    }
    let game = hex::encode(game);
    genesis
        .seats
        .iter()
        .enumerate()
        .filter(|(_, s)| {
            s.key.is_some_and(|k| {
                fs::read_to_string(dir.join(hex::encode(k.0)).join(GAME_FILE))
                    .is_ok_and(|g| g.trim() == game)
            })
        })
        .map(|(i, _)| i)
        .collect()
}

/// The homes of this machine's computer seats in the game `r` (those of
/// [`seats`]), where each keeps its own records of the game.
pub fn homes<G: Game>(home: &Path, r: &Replay<G>) -> Vec<PathBuf> {
    seats(home, &r.genesis, &r.game_id)
        .into_iter()
        .filter_map(|s| r.seat_key(s))
        .map(|key| seat_home(home, &key))
        .collect()
}

/// Records the game a new computer seat plays in, once its genesis is
/// written (its id is the hash of the signed genesis, which holds the
/// seat's key, so it cannot be known when the seat is made).
pub fn bind(made: &[Computer], game: &Hash) -> Result<()> {
    for c in made {
        let path = c.home.join(GAME_FILE);
        crate::log::file::write_record(&path, format!("{}\n", hex::encode(game)).as_bytes())?;
    }
    Ok(())
}

/// An entry a computer seat wrote: what anyone may know of it.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ComputerEntry {
    /// Number of the entry.
    pub entry: u64,
    /// Its seat, 0-based (see docs/json.md).
    pub seat: u32,
    pub name: String,
    pub kind: String,
    /// The entry's public summary, as `history` tells it.
    pub summary: String,
}

/// The computer's entry due now in `r`, if the game waits for one of this
/// machine's computer seats: whatever its turn asks, or, once the game is
/// over, its countersignature.
fn due<G: Game>(home: &Path, r: &Replay<G>) -> Option<(Seat, Do)> {
    let (action, who) = r.expected();
    let ours = seats(home, &r.genesis, &r.game_id);
    // A claim that the awaited player stopped answering, made by the person
    // of this machine: its computer seats join it, since the claim settles
    // only when every other seat has made it (it is valid only after the
    // deadline, which the person's claim has passed already). Never a claim
    // someone else made alone: a computer does not judge its own host gone;
    // and never one against its operator or a seat its operator's machine
    // plays (a protocol 3 genesis names the operator; such a claim is out
    // of turn, docs/protocol.md section 7).
    if let Some(c) = r
        .claims
        .as_ref()
        .filter(|c| !r.is_over() && !ours.contains(&c.silent))
    {
        let person = Identity::load(home)
            .ok()
            .and_then(|id| r.seat_of_key(&id.public_key()));
        if person.is_some_and(|p| c.by.contains(&p))
            && let Some(s) = ours
                .iter()
                .copied()
                .find(|&s| !c.by.contains(&s) && !r.one_machine(s, c.silent))
        {
            return Some((s, Do::Abandon));
        }
    }
    match (action, who) {
        // Claims that ended the game waiting for a computer seat: it
        // answers, and its move wins against them (protocol §7); it never
        // countersigns its own abandonment.
        (Action::Over, _) => match ours
            .iter()
            .copied()
            .find(|&s| super::clock::late_answer_at(r, s).is_some())
        {
            Some(s) => Some((s, Do::Bot(Level::DEFAULT, None))),
            None => ours
                .into_iter()
                .find(|&s| r.seats[s].key.is_some() && !r.countersigned.contains(&s))
                .map(|s| (s, Do::Countersign)),
        },
        (Action::Join, Some(s)) if ours.contains(&s) => Some((s, Do::Join(Notify::Turn))),
        (_, Some(s)) if ours.contains(&s) => Some((s, Do::Bot(Level::DEFAULT, None))),
        _ => None,
    }
}

/// Whether the game waits for one of this machine's computer seats.
pub fn waits_for_computer<G: Game>(home: &Path, r: &Replay<G>) -> bool {
    due(home, r).is_some()
}

/// Plays every entry due from this machine's computer seats in the game at
/// `path`, one after another, each under the log's lock and with the checks
/// every writing command makes. Returns what they wrote, in order; stops at
/// the first failure, with what was written before it kept.
pub fn follow<G: Bot>(home: &Path, path: &Path) -> (Vec<ComputerEntry>, Option<Error>) {
    let mut played = Vec::new();
    // A game ends within its entry bound; this only guards against a bug
    // making the loop spin.
    for _ in 0..100_000 {
        let step = (|| -> Result<Option<ComputerEntry>> {
            let locked = LockedLog::open(path)?;
            let (r, _) = super::cache::tell::<G>(&locked.bytes).map_err(|fault| Error::Log {
                path: path.into(),
                fault,
            })?;
            let Some((seat, what)) = due(home, &r) else {
                return Ok(None);
            };
            let key = r.seat_key(seat).expect("a computer seat has a key");
            let computer = Computer::load(home, &key).expect("found by seats()")?;
            let what = match what {
                Do::Bot(_, seed) => Do::Bot(computer.level, seed),
                other => other,
            };
            let out = act::act::<G>(
                act::Author {
                    home: &computer.home,
                    id: &computer.id,
                },
                act::OpenLog { path, locked },
                what,
                false,
                now(),
                &mut Draw::new(os_random()),
            )?;
            // Only the public parts of the report: its text and its `bot`
            // field name what the computer chose, face-down values included.
            Ok(Some(ComputerEntry {
                entry: out.json["entry"].as_u64().unwrap_or_default(),
                seat: seat as u32,
                name: r.name(seat),
                kind: out.json["kind"].as_str().unwrap_or_default().to_string(),
                summary: out.json["summary"].as_str().unwrap_or_default().to_string(),
            }))
        })();
        match step {
            Ok(Some(e)) => played.push(e),
            Ok(None) => return (played, None),
            Err(e) => return (played, Some(e)),
        }
    }
    (
        played,
        Some(Error::Other(
            "the computer seats wrote 100000 entries without the game waiting for a person; stopped"
                .into(),
        )),
    )
}

/// One line per computer entry, as `play` reports its own.
pub fn entries_text(played: &[ComputerEntry]) -> String {
    played
        .iter()
        .map(|e| {
            format!(
                "Entry {}: {} — {}.\n",
                e.entry,
                crate::text::inline(&e.name),
                e.summary
            )
        })
        .collect()
}

/// After a person wrote an entry to the game at `path` (the report `out`):
/// plays the computer seats' turns that follow, and makes the report say
/// what they did and where the game stands now.
pub fn after_person<G: Bot>(home: &Path, path: &Path, person: &Identity, out: &mut Output) {
    let (played, failed) = follow::<G>(home, path);
    report::<G>(path, person, out, played, failed);
}

/// After `new` wrote the genesis and the creator's join: the computer
/// seats join and get ready; then, when every other seat is one of this
/// machine's computers, the creator's own ready entry is the only thing
/// left before the first move and there is nobody else to wait for, so it
/// is written at once, and the computers play on up to the creator's turn.
pub fn after_new<G: Bot>(home: &Path, path: &Path, person: &Identity, out: &mut Output) {
    let (mut played, mut failed) = follow::<G>(home, path);
    if failed.is_none() {
        match ready_if_alone::<G>(home, path, person) {
            Ok(Some(ready)) => {
                played.push(ComputerEntry {
                    entry: ready.json["entry"].as_u64().unwrap_or_default(),
                    seat: 0,
                    name: person.name.clone(),
                    kind: "ready".into(),
                    summary: ready.json["summary"].as_str().unwrap_or_default().into(),
                });
                let (more, f) = follow::<G>(home, path);
                played.extend(more);
                failed = f;
            }
            Ok(None) => {}
            Err(e) => failed = Some(e),
        }
    }
    report::<G>(path, person, out, played, failed);
}

/// Writes into the report of the person's entry what followed it. The
/// person's entry is written whatever happens here: a computer seat that
/// cannot play is a warning that says how to try again.
fn report<G: Game>(
    path: &Path,
    person: &Identity,
    out: &mut Output,
    played: Vec<ComputerEntry>,
    failed: Option<Error>,
) {
    if let Some(e) = failed {
        let w = format!(
            "a computer seat of this machine could not play its turn: {e}. The game waits for              it; the next writing command in this game (such as `starry play FILE`) tries again"
        );
        out.warning = Some(match out.warning.take() {
            Some(prev) => format!("{prev}\nerror: {w}"),
            None => w,
        });
    }
    if played.is_empty() {
        return;
    }
    let Ok(bytes) = fs::read(path) else { return };
    let Ok((r, _)) = super::cache::tell::<G>(&bytes) else {
        return;
    };
    let status = status_of(&r);
    let head = out.head.unwrap_or(out.text.len()).min(out.text.len());
    let mut text = out.text[..head].to_string();
    text.push_str(&entries_text(&played));
    // The account now ends after the computer seats' entries.
    out.head = Some(text.len());
    text.push_str(&status_text(&status));
    text.push_str(&person_view(&r, person));
    text.push_str(&next_hint(&r, path, person));
    out.text = text;
    out.json["status"] = serde_json::to_value(&status).expect("reports serialise");
    out.json["then"] = serde_json::to_value(&played).expect("reports serialise");
}

/// The person's own board, when the game is on: what `play` shows after
/// its entry.
pub fn person_view<G: Game>(r: &Replay<G>, person: &Identity) -> String {
    let (Some(state), false) = (&r.state, r.is_over()) else {
        return String::new();
    };
    let Some(seat) = r.seat_of_key(&person.public_key()) else {
        return String::new();
    };
    match super::own_view(r, state, seat, person) {
        Ok(v) => format!("\n{}", G::render_text(&v, &r.names())),
        Err(_) => String::new(),
    }
}

/// What the person runs next, when the game waits for them.
fn next_hint<G: Game>(r: &Replay<G>, path: &Path, person: &Identity) -> String {
    let (action, who) = r.expected();
    if who.is_none() || who != r.seat_of_key(&person.public_key()) {
        return String::new();
    }
    let file = super::file_arg(&r.game_id, path);
    match action {
        Action::Move => format!(
            "\nYour turn: `starry moves {file}` lists every legal move; `starry play {file} MOVE` \
             plays one.\n"
        ),
        Action::Reveal => format!("\nYour turn: reveal your tokens with `starry reveal {file}`.\n"),
        Action::Ready => format!("\nYour turn: `starry ready {file}`.\n"),
        Action::Join | Action::Over => String::new(),
    }
}

fn ready_if_alone<G: Bot>(home: &Path, path: &Path, person: &Identity) -> Result<Option<Output>> {
    let locked = LockedLog::open(path)?;
    let (r, _) = super::cache::tell::<G>(&locked.bytes).map_err(|fault| Error::Log {
        path: path.into(),
        fault,
    })?;
    let me = r.seat_of_key(&person.public_key());
    let ours = seats(home, &r.genesis, &r.game_id);
    let alone = (0..r.seat_count()).all(|s| Some(s) == me || ours.contains(&s));
    if me.is_none() || !alone || r.expected() != (Action::Ready, me) {
        return Ok(None);
    }
    act::act::<G>(
        act::Author { home, id: person },
        act::OpenLog { path, locked },
        Do::Ready,
        false,
        now(),
        &mut Draw::new(os_random()),
    )
    .map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seat_is_the_computers_when_players_says_so() {
        let table: [(&str, Option<Option<u8>>); 9] = [
            ("computer", Some(Some(Level::DEFAULT.get()))),
            ("Computer:3", Some(Some(3))),
            (" computer : 1 ", Some(Some(1))),
            ("computer:0", Some(None)),
            ("computer:4", Some(None)),
            ("computer:x", Some(None)),
            ("ann@example.org", None),
            ("Computer <c@example.org>", None),
            ("computers", None),
        ];
        for (text, want) in table {
            let got = parse_spec(text).map(|r| r.ok().map(Level::get));
            assert_eq!(got, want, "{text}");
        }
    }

    #[test]
    fn a_computer_seat_is_listed_under_its_creators_mailbox() {
        assert_eq!(Computer::email("ann@x.org", 2), "ann+computer2@x.org");
        assert_eq!(
            Computer::email("ann+games@x.org", 1),
            "ann+games-computer1@x.org"
        );
        assert_eq!(Computer::name(1, 1), "Computer");
        assert_eq!(Computer::name(3, 2), "Computer 3");
        for seat in 1..5 {
            crate::text::check_email(&Computer::email("a.b@example.org", seat)).unwrap();
            crate::text::check_name(&Computer::name(seat, 2)).unwrap();
        }
    }
}
