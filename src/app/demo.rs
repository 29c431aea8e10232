//! `starry demo`: a whole game with throwaway identities, through the real
//! log, commitments, reveals, draws and audit — the same code paths as a
//! game played by e-mail, only with every player on this machine.

use crate::crypto::identity::Stored as _;
use std::path::{Path, PathBuf};

use super::act::{self, Do};
use super::inspect::{Format, Show};
use super::report::DemoReport;
use super::{Output, inspect, standings_text};
use crate::crypto::identity::Identity;
use crate::crypto::os_random;
use crate::error::{Error, Result};
use crate::games::{Draw, Game};
use crate::log::entry::SeatInfo;
use crate::log::file::{self, LockedLog};
use crate::log::replay::now;
use crate::log::{Action, Kind, Replay};

const NAMES: [&str; 5] = ["Anna", "Ben", "Cleo", "Dan", "Eve"];

/// `starry demo`: which game, with how many players and which variants,
/// kept where.
#[derive(Debug, Default)]
pub struct Demo {
    pub game: String,
    /// None: the game's fewest.
    pub players: Option<usize>,
    /// `KEY=VALUE` each.
    pub variants: Vec<String>,
    /// A new or empty directory to keep it all in; None: a temporary one.
    pub dir: Option<PathBuf>,
}

pub fn run(a: &Demo) -> Result<Output> {
    crate::with_game!(a.game.as_str(), G => run_game::<G>(a))
}

fn run_game<G: crate::bot::Bot>(a: &Demo) -> Result<Output> {
    let players = a.players.unwrap_or(*G::SEATS.start());
    if !G::SEATS.contains(&players) {
        return Err(Error::Usage(format!(
            "{} is for {} players; --players says {players}",
            G::NAME,
            crate::games::seat_range::<G>(),
        )));
    }
    let dir: PathBuf = match &a.dir {
        Some(d) => {
            std::fs::create_dir_all(d).map_err(|e| Error::io("cannot create", d, e))?;
            if std::fs::read_dir(d)
                .map_err(|e| Error::io("cannot read", d, e))?
                .next()
                .is_some()
            {
                return Err(Error::Usage(format!(
                    "--dir {}: the directory must be new or empty",
                    d.display()
                )));
            }
            d.clone()
        }
        // Kept, so that the game and its picture can be looked at after.
        None => tempfile::Builder::new()
            .prefix(&format!("starry-demo-{}-", G::NAME))
            .tempdir()
            .map_err(|e| {
                Error::io(
                    "cannot create a temporary directory in",
                    std::env::temp_dir(),
                    e,
                )
            })?
            .keep(),
    };
    let pairs: Vec<(String, String)> = a
        .variants
        .iter()
        .map(|v| {
            v.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
        })
        .collect::<Option<_>>()
        .ok_or_else(|| Error::Usage("--variant must look like KEY=VALUE".into()))?;
    let mut lines = Vec::new();
    let (report, standings, board) = play_demo::<G>(&dir, players, &pairs, &mut lines)?;
    let mut text = lines.join("\n");
    text.push_str(&format!(
        "\n\nAudit: {} — {} entries verified.\nFinal standings:\n{}",
        if report.audit.valid {
            "valid"
        } else {
            "INVALID"
        },
        report.entries,
        standings
    ));
    text.push_str(&format!(
        "\n{board}\nThe picture of the end: {}\nThe game as a page (picture, position, history): {}\n\
         The log and the players' identities are in {}; e.g. `starry history {}`.",
        report.picture,
        report.page,
        dir.display(),
        dir.join(format!("{}.jsonl", G::NAME)).display()
    ));
    Ok(Output::new(text, &report))
}

/// Plays a complete game in `dir` and audits it.
fn play_demo<G: crate::bot::Bot>(
    dir: &Path,
    players: usize,
    pairs: &[(String, String)],
    out: &mut Vec<String>,
) -> Result<(DemoReport, String, String)> {
    // One stream of fresh randomness for the nonces and `--auto`'s choices.
    let mut fresh = Draw::new(os_random());
    let (players, log) = new_table::<G>(dir, players, pairs, now(), &mut fresh)?;
    out.push(format!(
        "{} created {} and joined; seats: {}",
        players[0].1.name,
        log.display(),
        NAMES[..players.len()].join(", ")
    ));
    out.push(format!(
        "entry  who   kind        what{}",
        if G::hidden_values().is_empty() {
            ""
        } else {
            " (face-down tokens stay hidden until their board is scored)"
        }
    ));
    let mut moves = 0u64;
    let last = autoplay::<G>(
        &log,
        &players,
        &mut fresh,
        &mut now,
        |r| r.is_over() && r.countersigned.len() == players.len(),
        |r| {
            let e = r.entries.last().expect("an entry was written");
            if e.kind == Kind::Move {
                moves += 1;
            }
            out.push(format!(
                "{:>4}  {:<5} {:<11} {}",
                r.len() - 1,
                r.genesis.seats[e.author].name,
                e.kind.as_str(),
                e.summary
            ));
        },
    )?;
    let board = last
        .state
        .as_ref()
        .map(|state| G::render_text(&G::view(state, None, None), &last.names()))
        .unwrap_or_default();
    let picture = dir.join(format!("{}.png", G::NAME));
    let page = dir.join(format!("{}.html", G::NAME));
    for (file, format) in [(&picture, Format::Png), (&page, Format::Html)] {
        inspect::view(
            &log,
            &Show {
                at: None,
                spectator: true,
                format,
                out: Some(file.clone()),
            },
        )?;
    }
    let audit = super::audit::audit_file(&log);
    let standings = audit
        .standings
        .as_deref()
        .map(standings_text)
        .unwrap_or_default();
    Ok((
        DemoReport {
            dir: dir.display().to_string(),
            picture: picture.display().to_string(),
            page: page.display().to_string(),
            entries: audit.entries,
            moves,
            audit,
        },
        standings,
        board,
    ))
}

/// `n` fresh identities (Anna, Ben, …), each with its home in `dir`, and a
/// new game of `G` for them in `dir/GAME.jsonl`, created by the first;
/// `fresh` gives the creator's nonces. For self-play (the demo, tests).
pub fn new_table<G: Game>(
    dir: &Path,
    n: usize,
    pairs: &[(String, String)],
    time: String,
    fresh: &mut Draw,
) -> Result<(Vec<(PathBuf, Identity)>, PathBuf)> {
    let players = NAMES[..n]
        .iter()
        .map(|name| {
            let home = dir.join(name.to_lowercase());
            let email = format!("{}@example.org", name.to_lowercase());
            Identity::create(&home, name, &email).map(|id| (home, id))
        })
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let log = dir.join(format!("{}.jsonl", G::NAME));
    let seats = players.iter().map(|(_, id)| SeatInfo::of(id)).collect();
    act::create::<G>(
        act::Author {
            home: &players[0].0,
            id: &players[0].1,
        },
        act::Setup {
            seats,
            pairs,
            extra: None,
        },
        &log,
        time,
        fresh,
    )?;
    Ok((players, log))
}

/// Writes `what` for seat `seat` of `players` on `log` the way that
/// player's own program does (under the lock, checked, replaced
/// atomically): self-play for the demo, the example games and tests.
pub fn act_as<G: crate::bot::Bot>(
    log: &Path,
    players: &[(PathBuf, Identity)],
    seat: usize,
    what: Do,
    time: String,
    chooser: &mut Draw,
) -> Result<Output> {
    let (home, id) = &players[seat];
    act::act::<G>(
        act::Author { home, id },
        act::OpenLog {
            path: log,
            locked: LockedLog::open(log)?,
        },
        what,
        false,
        time,
        chooser,
    )
}

/// Plays `log` with every seat's identity on this machine: whoever must act
/// does so with `play --auto` semantics (after the end, everyone
/// countersigns), until `stop` says so. `each` sees the replay after every
/// entry.
pub fn autoplay<G: crate::bot::Bot>(
    log: &Path,
    players: &[(PathBuf, Identity)],
    chooser: &mut Draw,
    clock: &mut dyn FnMut() -> String,
    stop: impl Fn(&Replay<G>) -> bool,
    mut each: impl FnMut(&Replay<G>),
) -> Result<Replay<G>> {
    loop {
        let r = Replay::<G>::from_bytes(&file::read(log)?).map_err(|fault| Error::Log {
            path: log.into(),
            fault,
        })?;
        if stop(&r) {
            return Ok(r);
        }
        let who = match r.expected() {
            (Action::Over, _) => match (0..players.len()).find(|s| !r.countersigned.contains(s)) {
                Some(s) => s,
                None => return Ok(r),
            },
            (_, Some(s)) => s,
            (_, None) => return Ok(r),
        };
        act_as::<G>(log, players, who, Do::Auto, clock(), chooser)?;
        let after = Replay::<G>::from_bytes(&file::read(log)?).map_err(|fault| Error::Log {
            path: log.into(),
            fault,
        })?;
        each(&after);
    }
}

/// Plays a game of `G` in memory with every seat's identity on this machine
/// ([`play_in_memory_with`]), each seat doing what `play --auto` would.
pub fn play_in_memory<G: crate::bot::Bot>(
    players: &[(&Path, &Identity)],
    pairs: &[(String, String)],
    seed: [u8; 32],
    clock: &mut dyn FnMut() -> String,
    stop: impl FnMut(&Replay<G>) -> bool,
) -> Result<(Vec<u8>, Replay<G>)> {
    play_in_memory_with::<G>(players, pairs, seed, clock, stop, |_, _| Do::Auto)
}

/// Plays a game of `G` between `players` (in seat order; the first creates
/// it) in memory: the same entries [`autoplay`] writes, without reading,
/// replaying and rewriting the log for each one. The genesis is made by
/// [`act::create`] in a scratch directory (its join record and list of games
/// stay there and are removed with it); then whoever must act writes the
/// entry [`act::build`] makes, `what` says which (`Do::Auto`: as `play
/// --auto`), and it is checked and applied to the replay incrementally.
/// After the end every seat that has not countersigned does so. `stop`,
/// asked before each entry, ends the game early (a game in progress).
/// Returns the log's bytes and its replay. Nothing is written in the
/// players' homes; a join reads the player's join record there, so the
/// homes should hold none for this game (a fresh game id never has one).
///
/// Deterministic: the same identities, options, `seed` (which gives the
/// creator's and joiners' nonces and every automatic choice) and clock give
/// the same bytes.
pub fn play_in_memory_with<G: crate::bot::Bot>(
    players: &[(&Path, &Identity)],
    pairs: &[(String, String)],
    seed: [u8; 32],
    clock: &mut dyn FnMut() -> String,
    mut stop: impl FnMut(&Replay<G>) -> bool,
    mut what: impl FnMut(&Replay<G>, usize) -> Do,
) -> Result<(Vec<u8>, Replay<G>)> {
    let Some((_, creator)) = players.first() else {
        return Err(Error::Usage("a game needs players".into()));
    };
    let mut chooser = Draw::new(seed);
    let mut bytes = {
        let scratch = scratch_dir()?;
        let log = scratch.path().join("genesis.jsonl");
        let seats = players.iter().map(|(_, id)| SeatInfo::of(id)).collect();
        act::create::<G>(
            act::Author {
                home: scratch.path(),
                id: creator,
            },
            act::Setup {
                seats,
                pairs,
                extra: None,
            },
            &log,
            clock(),
            &mut chooser,
        )?;
        file::read(&log)?
    };
    let refused = |fault: crate::error::LogFault| {
        Error::Other(format!("a game played in memory does not verify: {fault}"))
    };
    let mut replay = Replay::<G>::from_bytes(&bytes).map_err(refused)?;
    loop {
        if stop(&replay) {
            return Ok((bytes, replay));
        }
        let (who, to_do) = match replay.expected() {
            (Action::Over, _) => {
                match (0..players.len()).find(|s| !replay.countersigned.contains(s)) {
                    Some(s) => (s, Do::Countersign),
                    None => return Ok((bytes, replay)),
                }
            }
            (_, Some(s)) => (s, what(&replay, s)),
            (_, None) => return Ok((bytes, replay)),
        };
        let (home, id) = players[who];
        let (line, _) = act::build::<G>(home, &replay, id, to_do, clock(), &mut chooser)?;
        replay
            .apply_line(replay.len(), &line[..line.len() - 1])
            .map_err(refused)?;
        bytes.extend_from_slice(&line);
    }
}

/// A scratch directory for [`act::create`]'s files: in memory
/// (`/dev/shm`) where there is one, since they are synced to disk and
/// thrown away at once; else in the temporary directory.
fn scratch_dir() -> Result<tempfile::TempDir> {
    let shm = Path::new("/dev/shm");
    let builder = {
        let mut b = tempfile::Builder::new();
        b.prefix("starry-play-");
        b
    };
    if shm.is_dir()
        && let Ok(dir) = builder.tempdir_in(shm)
    {
        return Ok(dir);
    }
    builder.tempdir().map_err(|e| {
        Error::io(
            "cannot create a temporary directory in",
            std::env::temp_dir(),
            e,
        )
    })
}
