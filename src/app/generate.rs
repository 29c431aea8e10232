//! Games made in bulk, for benchmarks and for trying `starry audit` on an
//! archive: a deterministic mix of all three games, mostly finished and
//! countersigned, some stopped in progress, each played in memory
//! ([`demo::play_in_memory`]) between identities made once and reused; and
//! one long Starry Night game in progress, for timing the commands a player
//! runs on a long log. `examples/make_archive.rs` and `benches/cli.rs` use
//! it.

use crate::crypto::identity::Stored as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::act::Do;
use super::demo;
use crate::crypto::identity::Identity;
use crate::error::{Error, Result};
use crate::games::Draw;
use crate::games::registry;
use crate::games::starry_night::{Intent, StarryNight};
use crate::log::Replay;

/// The version of what this module writes: bumped whenever the same seed
/// and identities would give other games (so that cached data is made
/// again).
pub const VERSION: u32 = 1;

/// The players' names; their addresses are `name@example.org`.
pub const NAMES: [&str; 5] = ["Anna", "Ben", "Cleo", "Dan", "Eve"];

/// The games, as `starry new` names them: every game of the registry.
pub const GAMES: [&str; registry::COUNT] = registry::NAMES;

/// In eight of ten games of an archive the game is played to its end and
/// countersigned by everyone.
const FINISHED_IN_TEN: usize = 8;

/// The identities of the first `n` of [`NAMES`] in `dir/<name>`
/// (`dir/anna`, …): loaded where one is, created where none is.
pub fn identities(dir: &Path, n: usize) -> Result<Vec<(PathBuf, Identity)>> {
    NAMES[..n.min(NAMES.len())]
        .iter()
        .map(|name| {
            let home = dir.join(name.to_lowercase());
            let id = if home.join(crate::crypto::identity::FILE_NAME).exists() {
                Identity::load(&home)?
            } else {
                Identity::create(&home, name, &format!("{}@example.org", name.to_lowercase()))?
            };
            Ok((home, id))
        })
        .collect()
}

/// One game of an archive, as planned before it is played.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The game (one of [`GAMES`]).
    pub game: &'static str,
    /// Indices into the identities, in seat order.
    pub seats: Vec<usize>,
    /// `--variant` pairs and options as `starry new` takes them.
    pub pairs: Vec<(String, String)>,
    /// Stop before this entry (a game in progress), or play to the end and
    /// countersign.
    pub stop_at: Option<u64>,
    /// The first entry's time.
    pub start: chrono::DateTime<chrono::Utc>,
    /// Nonces and automatic choices.
    pub seed: [u8; 32],
}

/// The plans of `count` games from `seed`: each game a third of the time,
/// any number of players it allows, its variants at random, eight in ten
/// finished and the others stopped at a random entry.
pub fn plans(count: usize, seed: [u8; 32]) -> Vec<Plan> {
    let mut d = Draw::new(seed);
    let base = chrono::DateTime::parse_from_rfc3339("2026-01-01T08:00:00Z")
        .expect("a valid time")
        .to_utc();
    (0..count)
        .map(|_| {
            let entry = &registry::ALL[d.below(registry::ALL.len())];
            let game = entry.name;
            let (lo, hi) = entry.seats;
            let n = lo + d.below(hi - lo + 1);
            let mut all: Vec<usize> = (0..NAMES.len()).collect();
            let seats = (0..n).map(|_| all.remove(d.below(all.len()))).collect();
            let pairs = (entry.archive_pairs)(&mut d);
            let stop_at = (d.below(10) >= FINISHED_IN_TEN).then(|| {
                let typical = (entry.typical_entries)(n);
                2 + d.below(typical as usize - 1) as u64
            });
            let start = base + chrono::Duration::minutes(d.below(365 * 24 * 60) as i64);
            Plan {
                game,
                seats,
                pairs,
                stop_at,
                start,
                seed: d.bytes(),
            }
        })
        .collect()
}

/// One game of an archive, played.
#[derive(Clone, Debug)]
pub struct Made {
    pub path: PathBuf,
    pub game: &'static str,
    pub players: usize,
    pub entries: u64,
    pub bytes: u64,
    /// The game is over (as `audit` counts: perhaps not yet countersigned
    /// by everyone, when its stop fell among the countersignatures).
    pub finished: bool,
}

/// What [`archive`] wrote.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub games: usize,
    pub finished: usize,
    pub entries: u64,
    pub bytes: u64,
    pub took: Duration,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} games ({} finished, {} in progress), {} entries, {} bytes, in {:.2} s",
            self.games,
            self.finished,
            self.games - self.finished,
            self.entries,
            self.bytes,
            self.took.as_secs_f64()
        )
    }
}

/// Plays `plan` with `players` and writes it to
/// `dir/GAME/finished|in-progress/ID16.jsonl` (never over another file).
pub fn make(dir: &Path, players: &[(PathBuf, Identity)], plan: &Plan) -> Result<Made> {
    crate::with_game!(plan.game, G => make_game::<G>(dir, players, plan))
}

fn make_game<G: crate::bot::Bot>(
    dir: &Path,
    players: &[(PathBuf, Identity)],
    plan: &Plan,
) -> Result<Made> {
    let seated: Vec<(&Path, &Identity)> = plan
        .seats
        .iter()
        .map(|&i| (players[i].0.as_path(), &players[i].1))
        .collect();
    let mut clock = clock(plan.start);
    let stop_at = plan.stop_at;
    let (bytes, replay) = demo::play_in_memory::<G>(
        &seated,
        &plan.pairs,
        plan.seed,
        &mut clock,
        |r: &Replay<G>| stop_at.is_some_and(|k| r.len() >= k),
    )?;
    // Over, as `audit` counts it (some are still to be countersigned).
    let finished = replay.is_over();
    let sub = dir
        .join(G::NAME)
        .join(if finished { "finished" } else { "in-progress" });
    fs::create_dir_all(&sub).map_err(|e| Error::io("cannot create", &sub, e))?;
    let path = sub.join(format!("{}.jsonl", &hex::encode(replay.game_id)[..16]));
    write_new(&path, &bytes)?;
    Ok(Made {
        path,
        game: G::NAME,
        players: seated.len(),
        entries: replay.len(),
        bytes: bytes.len() as u64,
        finished,
    })
}

/// Writes a new file; one that exists is an error (two games with one
/// short id, or an archive written twice into one directory).
fn write_new(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write as _;
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .and_then(|mut f| f.write_all(bytes))
        .map_err(|e| Error::io("cannot create", path, e))
}

/// One entry every 41 minutes from `start` (correspondence pace).
pub fn clock(start: chrono::DateTime<chrono::Utc>) -> impl FnMut() -> String {
    let mut t = start;
    move || {
        let s = t.format("%Y-%m-%dT%H:%M:%SZ").to_string();
        t += chrono::Duration::minutes(41);
        s
    }
}

/// Plays and writes the games of `plans` into `dir` (on all cores), which
/// must be new or empty; `players` are the identities of all [`NAMES`].
pub fn archive(
    dir: &Path,
    players: &[(PathBuf, Identity)],
    plans: &[Plan],
) -> Result<(Summary, Vec<Made>)> {
    let started = Instant::now();
    if players.len() < NAMES.len() {
        return Err(Error::Usage(format!(
            "an archive is played by {} identities, not {}",
            NAMES.len(),
            players.len()
        )));
    }
    new_dir(dir)?;
    let made = plans
        .par_iter()
        .map(|p| make(dir, players, p))
        .collect::<Result<Vec<Made>>>()?;
    let summary = Summary {
        games: made.len(),
        finished: made.iter().filter(|m| m.finished).count(),
        entries: made.iter().map(|m| m.entries).sum(),
        bytes: made.iter().map(|m| m.bytes).sum(),
        took: started.elapsed(),
    };
    Ok((summary, made))
}

/// Creates `dir`, or checks that it is empty.
fn new_dir(dir: &Path) -> Result<()> {
    fs::create_dir_all(dir).map_err(|e| Error::io("cannot create", dir, e))?;
    if fs::read_dir(dir)
        .map_err(|e| Error::io("cannot read", dir, e))?
        .next()
        .is_some()
    {
        return Err(Error::Usage(format!(
            "{}: the directory must be new or empty",
            dir.display()
        )));
    }
    Ok(())
}

/// The long game: where it is and who must act next.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Long {
    /// The log.
    pub log: PathBuf,
    /// The identity home (`STARRY_HOME`) of the player who must act next.
    pub home: PathBuf,
    /// Its entries.
    pub entries: u64,
}

/// The file in a long game's directory that says where its parts are.
pub const LONG_MANIFEST: &str = "long.json";

/// The sky of the long game: the most stars a signed game may have, on a
/// grid of 40 × 40 points.
pub const LONG_SKY: [(&str, &str); 2] = [("random-stars", "163"), ("grid", "40x40")];

/// Writes into `dir` (new or empty) a Starry Night game on the sky
/// [`LONG_SKY`] stopped at exactly `entries` entries, its two players'
/// identities under `dir/identities/`, and [`LONG_MANIFEST`]. Uniformly
/// random edges would end such a game (no star left alone) after about 1.5
/// edges a star; here each edge is drawn at random among those with the
/// fewest ends on a star still alone, and the game lasts 330 to 342 entries
/// (seeds "1" to "7" of `make_archive --long`).
pub fn long_game(dir: &Path, entries: u64, seed: [u8; 32]) -> Result<Long> {
    new_dir(dir)?;
    let both = identities(&dir.join("identities"), 2)?;
    let players: Vec<(&Path, &Identity)> = both.iter().map(|(h, id)| (h.as_path(), id)).collect();
    let pairs: Vec<(String, String)> = LONG_SKY
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let start = chrono::DateTime::parse_from_rfc3339("2026-11-01T09:00:00Z")
        .expect("a valid time")
        .to_utc();
    let mut picks = Draw::new(crate::crypto::sha256(&seed));
    let (bytes, replay) = demo::play_in_memory_with::<StarryNight>(
        &players,
        &pairs,
        seed,
        &mut clock(start),
        |r| r.len() >= entries,
        |r, _| match r.state.as_ref().and_then(|s| fewest_alone(s, &mut picks)) {
            Some(edge) => Do::Move(edge.to_string()),
            None => Do::Auto,
        },
    )?;
    if replay.len() != entries {
        return Err(Error::Other(format!(
            "the long game ended after {} entries, before {entries}",
            replay.len()
        )));
    }
    let Some(seat) = replay.expected().1 else {
        return Err(Error::Other("nobody is to act in the long game".into()));
    };
    let name = format!("{}.jsonl", &hex::encode(replay.game_id)[..16]);
    write_new(&dir.join(&name), &bytes)?;
    let home = players[seat]
        .0
        .strip_prefix(dir)
        .expect("the identities are in dir")
        .to_path_buf();
    // The manifest names the parts relative to `dir`, which may move.
    let manifest = Long {
        log: name.into(),
        home,
        entries,
    };
    let path = dir.join(LONG_MANIFEST);
    let text = serde_json::to_string_pretty(&manifest).expect("serialises") + "\n";
    fs::write(&path, text).map_err(|e| Error::io("cannot write", &path, e))?;
    Long::load(dir)
}

impl Long {
    /// Reads what [`long_game`] wrote into `dir`.
    pub fn load(dir: &Path) -> Result<Long> {
        let path = dir.join(LONG_MANIFEST);
        let text = fs::read_to_string(&path).map_err(|e| Error::io("cannot read", &path, e))?;
        let long: Long = serde_json::from_str(&text)
            .map_err(|e| Error::Other(format!("{}: {e}", path.display())))?;
        Ok(Long {
            log: dir.join(long.log),
            home: dir.join(long.home),
            entries: long.entries,
        })
    }
}

/// Among the legal edges, one at random of those with the fewest ends on a
/// star that is still alone; none when no edge is to be drawn.
fn fewest_alone(state: &crate::games::starry_night::State, picks: &mut Draw) -> Option<Intent> {
    if state.is_over() || state.asking().is_some() || state.first().is_none() {
        return None;
    }
    let map = state.map();
    let alone = |&(a, b): &(usize, usize)| {
        usize::from(map.degree(a) == 0) + usize::from(map.degree(b) == 0)
    };
    let fewest = map.legal_edges().iter().map(alone).min()?;
    let best: Vec<_> = map
        .legal_edges()
        .iter()
        .filter(|e| alone(e) == fewest)
        .collect();
    let &(a, b) = best[picks.below(best.len())];
    Some(Intent::Edge(a, b))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same identities and seed give the same files, every one a valid
    /// log of the game its directory names.
    #[test]
    fn archives_are_deterministic_and_valid() {
        let tmp = tempfile::tempdir().unwrap();
        let players = identities(&tmp.path().join("ids"), NAMES.len()).unwrap();
        let plans = plans(9, [7; 32]);
        assert!(GAMES.iter().all(|g| plans.iter().any(|p| p.game == *g)));
        let (a, made) = archive(&tmp.path().join("a"), &players, &plans).unwrap();
        let (b, _) = archive(&tmp.path().join("b"), &players, &plans).unwrap();
        assert_eq!((a.games, a.entries, a.bytes), (b.games, b.entries, b.bytes));
        for m in &made {
            let bytes = fs::read(&m.path).unwrap();
            let twin = tmp
                .path()
                .join("b")
                .join(m.path.strip_prefix(tmp.path().join("a")).unwrap());
            assert_eq!(bytes, fs::read(twin).unwrap(), "{}", m.path.display());
            let entries = crate::with_game!(m.game, G => Replay::<G>::from_bytes(&bytes)
                .map(|r| r.len())
                .map_err(|f| Error::Other(f.to_string())))
            .unwrap();
            assert_eq!(entries, m.entries);
        }
        // Nothing was left in the players' homes but their identities.
        for (home, _) in &players {
            assert_eq!(fs::read_dir(home).unwrap().count(), 1, "{}", home.display());
        }
    }

    #[test]
    fn the_long_game_stops_at_its_length_with_the_player_to_act() {
        let tmp = tempfile::tempdir().unwrap();
        let long = long_game(tmp.path(), 300, [3; 32]).unwrap();
        let r = Replay::<StarryNight>::from_bytes(&fs::read(&long.log).unwrap()).unwrap();
        assert_eq!(r.len(), 300);
        let id = Identity::load(&long.home).unwrap();
        assert_eq!(r.expected().1, r.seat_of_key(&id.public_key()));
    }
}
