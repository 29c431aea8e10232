//! A stale copy never signs a second entry at a position already signed.
//!
//! A player who plays on from an old copy of a game — a backup, a file left
//! in another directory, a mail read twice — would sign an entry at a
//! position where they signed another one already: a fork that the
//! protocol rightly counts as proof of cheating (`docs/protocol.md`,
//! section 7). Before any writing command signs anything, two other copies
//! of the player's own are consulted:
//!
//! - the **games directory's copy** (`$STARRY_HOME/games/GAME-ID.jsonl`,
//!   often a symbolic link to the very file written to): when it is another
//!   file and holds more entries, the file written to is behind it;
//! - the **record of the last entry this identity wrote** in the game,
//!   `$STARRY_HOME/written/GAME-ID` (`{"entry":N,"game":…,"id":…,"key":…}`),
//!   replaced atomically after every entry written: a copy that does not
//!   go beyond entry N is older than the one written to last.
//!
//! Either refuses the command before anything is signed, saying which copy
//! is newer. Neither can block an honest player: the copy named is always
//! the one to go on with (or to `ingest` into this one), and writing the
//! very same entry again — a join finished from its join record — is no
//! second signature. A games-directory copy that does not verify, or is of
//! another game, is no newer copy; a record of another identity (one made
//! in this home before its identity was replaced) does not count.

use crate::crypto::identity::Stored as _;
use std::fs;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::crypto::Hash;
use crate::crypto::identity::Identity;
use crate::error::{Error, Result};
use crate::games::{Game, Seat};
use crate::log::Replay;
use crate::log::file;
use crate::text::inline;

/// Largest record read: anything larger is not one of ours.
const MAX_RECORD_BYTES: u64 = 4096;

/// The lock of one game in one home, `HOME/written/GAME-ID.lock`: held from
/// before [`check`] reads the record and the games directory's copy until
/// the log is replaced and the record updated, so that two commands on two
/// copies of one game — each holding only its own copy's lock — cannot
/// both pass the check and both sign an entry at one position. Every
/// writer of the record holds it too, which is what lets a writer remove
/// the temporary files of the record that a killed process left.
///
/// Lock order: a log's lock, then this one, never the other way round;
/// and the person's, then a computer seat's of this machine (in its own
/// home), never the other way round (`ingest` rewinds both after a lost
/// fork). It is only ever taken while holding at most one log's lock, and its holder
/// waits for no other lock (it reads the other copies without locking
/// them; renames make such reads whole), so no two processes can wait for
/// each other. The lock is released when the value is dropped, and by the
/// system when the process dies, however it dies.
#[must_use = "the game is locked only while this lives"]
pub struct GameLock {
    _file: fs::File,
}

/// Waits for and takes the lock of `game` in `home`.
pub fn lock(home: &Path, game: &Hash) -> Result<GameLock> {
    let d = dir(home);
    fs::create_dir_all(&d).map_err(|e| Error::io("cannot create", &d, e))?;
    let p = d.join(format!("{}.lock", hex::encode(game)));
    let file = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&p)
        .map_err(|e| Error::io("cannot open the lock of this game", &p, e))?;
    file.lock()
        .map_err(|e| Error::io("cannot lock the lock of this game", &p, e))?;
    Ok(GameLock { _file: file })
}

/// The last entry an identity wrote in a game.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// Its number.
    pub entry: u64,
    /// The game id (hex).
    pub game: String,
    /// The entry's id (hex).
    pub id: String,
    /// The public key (hex) of the identity that wrote it.
    pub key: String,
}

/// `HOME/written`, one record per game.
pub fn dir(home: &Path) -> PathBuf {
    home.join("written")
}

/// `HOME/written/GAME-ID`.
pub fn path(home: &Path, game: &Hash) -> PathBuf {
    dir(home).join(hex::encode(game))
}

/// The record of `game`, if there is one; a damaged or foreign file is an
/// error that says what to do (never a panic, never ignored: a record that
/// cannot be read cannot vouch for the copy either).
pub fn read(home: &Path, game: &Hash) -> Result<Option<Record>> {
    let p = path(home, game);
    let meta = match fs::symlink_metadata(&p) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(Error::io(
                "cannot read the record of your last entry",
                &p,
                e,
            ));
        }
    };
    let damaged = |why: String| {
        Error::io(
            "cannot use the record of your last entry",
            &p,
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "{why}. starry keeps there which entry you last wrote in game {}, so \
                     that an older copy never signs a second entry at a position you signed \
                     already. Nothing was changed. If you are sure that no copy of yours is \
                     ahead of this one, remove the file and run the command again",
                    super::short_id(game)
                ),
            ),
        )
    };
    if !meta.is_file() {
        return Err(damaged("it is not a regular file".into()));
    }
    let mut bytes = Vec::new();
    fs::File::open(&p)
        .and_then(|f| f.take(MAX_RECORD_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|e| Error::io("cannot read the record of your last entry", &p, e))?;
    if bytes.len() as u64 > MAX_RECORD_BYTES {
        return Err(damaged(format!(
            "it is larger than {MAX_RECORD_BYTES} bytes, which no such record is"
        )));
    }
    let record: Record = serde_json::from_slice(&bytes).map_err(|e| {
        damaged(format!(
            "it is not such a record ({})",
            crate::text::excerpt(&e.to_string())
        ))
    })?;
    let hash_ok =
        |h: &str| h.len() == 64 && h.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    if !(hash_ok(&record.game) && hash_ok(&record.id) && hash_ok(&record.key)) {
        return Err(damaged(
            "it is not such a record (a hash is not 64 hex digits)".into(),
        ));
    }
    if record.game != hex::encode(game) {
        return Err(damaged(format!(
            "it is the record of another game ({})",
            &record.game[..16]
        )));
    }
    Ok(Some(record))
}

/// Records, atomically, that `id` wrote entry `entry` (whose id is
/// `entry_id`) of `game`. The caller holds the game's [`lock`].
pub fn remember(
    home: &Path,
    game: &Hash,
    entry: u64,
    entry_id: &Hash,
    id: &Identity,
) -> Result<()> {
    let record = Record {
        entry,
        game: hex::encode(game),
        id: hex::encode(entry_id),
        key: hex::encode(id.public_key()),
    };
    let d = dir(home);
    fs::create_dir_all(&d).map_err(|e| Error::io("cannot create", &d, e))?;
    let mut bytes = serde_json::to_vec(&record).expect("a record serialises");
    bytes.push(b'\n');
    file::write_record(&path(home, game), &bytes)
}

/// [`remember`] after an entry was written, as a warning for the command's
/// output when it fails: the entry is in the log whatever happens here.
pub fn remember_written(
    home: &Path,
    game: &Hash,
    entry: u64,
    line: &[u8],
    id: &Identity,
) -> Option<String> {
    let entry_id = crate::crypto::sha256(line.strip_suffix(b"\n").unwrap_or(line));
    remember(home, game, entry, &entry_id, id).err().map(|e| {
        format!(
            "entry {entry} is written, but the record of it could not be kept ({e}); starry \
             cannot warn you if you later play on an older copy of this game, so play on this one"
        )
    })
}

/// [`remember_written`] for the entry `ingest` wrote again on top of the
/// winning side of a fork (`docs/protocol.md`, section 7), at `entry`. Best
/// effort: a record left at the losing entry, one position lower, only
/// checks less.
pub fn remember_again(home: &Path, game: &Hash, entry: u64, line: &[u8]) {
    if let Ok(_locked) = lock(home, game) {
        remember_again_locked(home, game, entry, line);
    }
}

/// [`remember_again`] for a caller that holds the game's [`lock`].
pub fn remember_again_locked(home: &Path, game: &Hash, entry: u64, line: &[u8]) {
    if let Ok(id) = Identity::load(home) {
        let _ = remember_written(home, game, entry, line, &id);
    }
}

/// After this home's copy lost a fork at entry `k` and took the winner's
/// lines (`docs/protocol.md`, section 7): a record that names an entry of
/// the losing side (a claim that lapsed, a countersignature of a result
/// that no longer stands) is moved back to this identity's last entry on
/// the winning side, or removed when it has none there. Left as it was,
/// it would refuse every later entry of this player at those positions as
/// a second signature, and a claimant whose claim lapsed could then never
/// move again. Signing there is no fork: every entry of the winning side
/// from `k` on has another `prev` than the losing side's entry at its
/// position. `author` gives the seat of a winning entry, `seat_of` the
/// seat of a key on the winning side. The caller holds the game's
/// [`lock`].
pub fn rewind_after_lost_fork(
    home: &Path,
    game: &Hash,
    losing: &[&[u8]],
    winning: &[&[u8]],
    k: usize,
    author: impl Fn(usize) -> Seat,
    seat_of: impl Fn(&[u8; 32]) -> Option<Seat>,
) -> Result<()> {
    let Ok(id) = Identity::load(home) else {
        return Ok(());
    };
    let Some(rec) = read(home, game)? else {
        return Ok(());
    };
    let entry_id = |line: &[u8]| crate::crypto::sha256(line.strip_suffix(b"\n").unwrap_or(line));
    let on_losing_side = usize::try_from(rec.entry)
        .is_ok_and(|e| e >= k && e < losing.len() && hex::encode(entry_id(losing[e])) == rec.id);
    if rec.key != hex::encode(id.public_key()) || !on_losing_side {
        return Ok(());
    }
    let me = seat_of(&id.public_key());
    match (0..winning.len()).rev().find(|&i| Some(author(i)) == me) {
        Some(i) => remember(home, game, i as u64, &entry_id(winning[i]), &id),
        None => {
            let p = path(home, game);
            fs::remove_file(&p).map_err(|e| Error::io("cannot remove", &p, e))
        }
    }
}

/// Refuses to write entry `r.len()` to the copy at `path` (replayed as `r`)
/// when a copy of `id`'s own is ahead of it: the games directory's copy,
/// or the record of the last entry `id` wrote. `again` is the id of an
/// entry already signed that the command would write again unchanged (a
/// join finished from its join record): a copy that holds that very entry
/// at this position is not ahead. A command that writes on the strength of
/// this check holds the game's [`lock`] from before the check until its
/// entry and record are written: a check alone proves nothing by the time
/// of the write.
pub fn check<G: Game>(
    home: &Path,
    path: &Path,
    r: &Replay<G>,
    id: &Identity,
    again: Option<Hash>,
) -> Result<()> {
    let at = r.len();
    let this = inline(&crate::error::shown_log(path, G::NAME)).into_owned();
    let id16 = super::short_id(&r.game_id);
    let this_arg = inline(&path.display().to_string()).into_owned();
    if let Some(rec) = read(home, &r.game_id)?
        && rec.key == hex::encode(id.public_key())
        && rec.entry >= at
        && !(rec.entry == at && again.is_some_and(|a| hex::encode(a) == rec.id))
    {
        return Err(Error::Usage(format!(
            "{this}: cannot write entry {at}: you wrote entry {} of this game already (so \
             says {}), and this copy holds only entries 0 to {}: it is older than the copy you \
             wrote in, and writing here would sign a second entry at a position you have signed \
             (a fork, which looks like cheating). Nothing was changed. Play on the copy that \
             holds your entry {} (if it is in your games directory, `starry play {id16} …` \
             names it), or bring this one up to date with `starry ingest NEWER-COPY --into \
             {this_arg}`; only if that copy is lost and was never sent to anyone, remove the \
             record to write here",
            rec.entry,
            inline(&path_of(home, &r.game_id)),
            at.saturating_sub(1),
            rec.entry,
        )));
    }
    let me = r.seat_of_key(&id.public_key());
    if let Some(newer) = newer_in_games_dir::<G>(home, path, r, again, me) {
        let shown = inline(&newer.path.display().to_string()).into_owned();
        let theirs = newer.entries;
        let differ = match newer.differ {
            Some(k) => format!(
                " The two differ from entry {k} on: `starry audit {shown} {this_arg}` shows \
                 which is which."
            ),
            None => String::new(),
        };
        return Err(Error::Usage(format!(
            "{this}: cannot write entry {at}: your games directory holds a newer copy of this \
             game, {shown}, with {theirs} entries against this copy's {at}; writing here could \
             sign a second entry at a position you have signed (a fork, which looks like \
             cheating). Nothing was changed. Play on the newer copy (`starry play {id16} …` \
             names it), or bring this one up to date with `starry ingest {shown} --into \
             {this_arg}`.{differ}"
        )));
    }
    Ok(())
}

fn path_of(home: &Path, game: &Hash) -> String {
    path(home, game).display().to_string()
}

/// A copy of the game in the games directory that is ahead of the one
/// written to.
struct Newer {
    path: PathBuf,
    /// Its number of entries.
    entries: u64,
    /// The first entry at which it differs from the copy written to, if it
    /// does.
    differ: Option<u64>,
}

/// The games directory's copy of `r`'s game when it is another file than
/// `path`, verifies, and holds more entries than `r` — unless what it holds
/// at `r.len()` is the entry `again`. Anything else (no such copy, the same
/// file, one that cannot be read or does not verify) is no newer copy.
fn newer_in_games_dir<G: Game>(
    home: &Path,
    path: &Path,
    r: &Replay<G>,
    again: Option<Hash>,
    me: Option<crate::games::Seat>,
) -> Option<Newer> {
    let games = super::game_path(home, &r.game_id);
    let theirs_meta = fs::metadata(&games).ok()?;
    let ours_meta = fs::metadata(path).ok()?;
    if !theirs_meta.is_file() || same_file(&theirs_meta, &ours_meta, &games, path) {
        return None;
    }
    // Counting lines first: only a longer copy is worth verifying.
    let bytes = file::read(&games).ok()?;
    let lines = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
    if lines <= r.len() {
        return None;
    }
    let theirs = Replay::<G>::from_bytes(&bytes).ok()?;
    let at = r.len() as usize;
    if theirs.game_id != r.game_id
        || theirs.len() <= r.len()
        || again.is_some_and(|a| theirs.entries[at].id == a)
    {
        return None;
    }
    let differ = r
        .entries
        .iter()
        .zip(&theirs.entries)
        .position(|(a, b)| a.id != b.id)
        .map(|k| k as u64);
    // A copy ahead only by claims that `me` stopped answering (and the
    // claimants' countersignatures) is no newer copy: `me`'s answer at
    // their place wins against them (docs/protocol.md, §7, a lapsed claim).
    if differ.is_none()
        && me.and_then(|m| super::clock::late_answer_at(&theirs, m)) == Some(r.len())
    {
        return None;
    }
    Some(Newer {
        path: games,
        entries: theirs.len(),
        differ,
    })
}

#[cfg(unix)]
fn same_file(a: &fs::Metadata, b: &fs::Metadata, _: &Path, _: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(_: &fs::Metadata, _: &fs::Metadata, a: &Path, b: &Path) -> bool {
    match (fs::canonicalize(a), fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity(home: &Path) -> Identity {
        Identity::create(home, "Ann", "ann@example.org").unwrap()
    }

    #[test]
    fn a_record_is_read_back_and_a_damaged_one_is_a_clear_error() {
        let home = tempfile::tempdir().unwrap();
        let id = identity(home.path());
        let game = [7u8; 32];
        assert_eq!(read(home.path(), &game).unwrap(), None);
        remember(home.path(), &game, 12, &[9u8; 32], &id).unwrap();
        let rec = read(home.path(), &game).unwrap().unwrap();
        assert_eq!(rec.entry, 12);
        assert_eq!(rec.id, hex::encode([9u8; 32]));
        assert_eq!(rec.key, hex::encode(id.public_key()));
        // A later entry replaces it.
        remember(home.path(), &game, 15, &[8u8; 32], &id).unwrap();
        assert_eq!(read(home.path(), &game).unwrap().unwrap().entry, 15);

        let p = path(home.path(), &game);
        let other = format!(
            "{{\"entry\":3,\"game\":\"{}\",\"id\":\"{}\",\"key\":\"{}\"}}",
            hex::encode([1u8; 32]),
            hex::encode([2u8; 32]),
            hex::encode([3u8; 32])
        );
        for (bytes, says) in [
            (b"".to_vec(), "not such a record"),
            (b"\x1b[2J{".to_vec(), "not such a record"),
            (b"{\"entry\":-1}".to_vec(), "not such a record"),
            (
                b"{\"entry\":1,\"game\":\"x\",\"id\":\"y\",\"key\":\"z\"}".to_vec(),
                "64 hex digits",
            ),
            (other.into_bytes(), "another game"),
            (vec![b' '; 5000], "larger than"),
        ] {
            fs::write(&p, &bytes).unwrap();
            let e = read(home.path(), &game).unwrap_err();
            assert_eq!(e.exit_code(), 3, "{e}");
            let m = e.to_string();
            assert!(m.contains(says) && m.contains("remove the file"), "{m}");
            assert!(!m.contains('\u{1b}'), "{m:?}");
        }
        fs::remove_file(&p).unwrap();
        fs::create_dir(&p).unwrap();
        let m = read(home.path(), &game).unwrap_err().to_string();
        assert!(m.contains("not a regular file"), "{m}");
    }
}
