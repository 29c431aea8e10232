//! Whole-process benchmarks: the release binary run as a player or an
//! auditor runs it, start-up, reading, replaying and printing included.
//!
//! - `version`: `starry --version` (the cost of starting the program).
//! - `status_300`, `play_dry_run_300`: `starry status LOG` and `starry play
//!   LOG --auto --dry-run` on a Starry Night log of 300 entries (163 stars),
//!   as the player who must act next; `…_cold` first deletes
//!   `$STARRY_HOME/cache` (the verified-prefix cache), so that both a warm
//!   and a cold cache are measured.
//! - `status_sky_125_cold`, `play_dry_run_sky_125_cold`: the same, cold,
//!   on a 5-player Starry Sky game of 125 entries (the first 125 lines of
//!   `examples/games/finished-5p-compound-coins.jsonl`), as its player who
//!   must act next (Ben, who must reveal; the example identities).
//! - `moves_star_map_39`, `…_cold`: `starry moves LOG` on a crowded Star
//!   Map (the first 39 lines of `star-map-3-players-hard.jsonl`: Cleo to
//!   place, 6 discs in hand, 34 placements), warm and cold.
//! - `audit_archive/J`: `starry audit -j J ARCHIVE` on an archive of 1,000
//!   games of all three kinds (`examples/make_archive.rs`), output to
//!   /dev/null; an item is a game.
//!
//! The data is made on first use, by `starry::app::generate` (the code
//! behind `make_archive`), in `bench-data/` beside the binary's profile
//! directory (`target/bench-data/`), and reused while its stamp matches
//! [`generate::VERSION`] and the sizes below.
//!
//!     cargo bench --bench cli

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use divan::Bencher;
use divan::counter::ItemsCount;
use starry::app::generate::{self, Long};

fn main() {
    // Made (or found) before the first benchmark, so that what making it
    // prints does not cut into divan's table.
    data();
    divan::main();
}

const BIN: &str = env!("CARGO_BIN_EXE_starry");
/// Games in the archive.
const GAMES: usize = 1000;
/// Entries of the long game.
const LONG_ENTRIES: u64 = 300;
/// What the data is made from (`make_archive`'s default seed).
const SEED: &str = "1";

struct Data {
    archive: PathBuf,
    long: Long,
    sky: Long,
    map: Long,
    /// An empty home for the commands that need no identity, so that none
    /// reads or writes the user's own.
    nobody: PathBuf,
}

/// `target/bench-data`.
fn data_dir() -> PathBuf {
    let bin = Path::new(BIN);
    bin.parent()
        .and_then(Path::parent)
        .expect("the binary is in target/PROFILE/")
        .join("bench-data")
}

fn data() -> &'static Data {
    static DATA: OnceLock<Data> = OnceLock::new();
    DATA.get_or_init(|| {
        let dir = data_dir();
        let stamp_path = dir.join("stamp");
        let stamp = format!(
            "generate {} games {GAMES} long {LONG_ENTRIES} seed {SEED}\n",
            generate::VERSION
        );
        if fs::read_to_string(&stamp_path).ok().as_deref() != Some(stamp.as_str()) {
            make_data(&dir);
            fs::write(&stamp_path, &stamp).expect("write the stamp");
        }
        Data {
            archive: dir.join("archive"),
            long: Long::load(&dir.join("long")).expect("the long game"),
            sky: sky_125(&dir.join("sky-125")),
            map: map_39(&dir.join("map-39")),
            nobody: dir.join("nobody"),
        }
    })
}

/// Makes the archive and the long game afresh (the stamp is written after).
fn make_data(dir: &Path) {
    if dir.exists() {
        fs::remove_dir_all(dir).expect("remove old bench data");
    }
    let seed = starry::crypto::sha256(format!("starry archive {SEED}").as_bytes());
    let players =
        generate::identities(&dir.join("identities"), generate::NAMES.len()).expect("identities");
    let plans = generate::plans(GAMES, seed);
    let (summary, _) =
        generate::archive(&dir.join("archive"), &players, &plans).expect("the archive");
    eprintln!("bench data: {summary}");
    let long = generate::long_game(&dir.join("long"), LONG_ENTRIES, seed).expect("the long game");
    eprintln!(
        "bench data: a game of {} entries in {}",
        long.entries,
        long.log.display()
    );
}

/// Entries of the Starry Sky game.
const SKY_ENTRIES: usize = 125;

/// The first [`SKY_ENTRIES`] entries of the finished 5-player example, in
/// `dir`, with a home holding the identity of the player who must act
/// next (Ben, who reveals: a move needs no more work than a reveal).
fn sky_125(dir: &Path) -> Long {
    example_cut::<starry::games::starry_sky::StarrySky>(
        dir,
        "finished-5p-compound-coins.jsonl",
        SKY_ENTRIES,
    )
}

/// Entries of the Star Map game.
const MAP_ENTRIES: usize = 39;

/// A crowded Star Map with a full hand: the first [`MAP_ENTRIES`] entries
/// of the 3-player example on the hard map, where Cleo has 6 discs and 34
/// legal placements.
fn map_39(dir: &Path) -> Long {
    example_cut::<starry::games::star_map::StarMap>(
        dir,
        "star-map-3-players-hard.jsonl",
        MAP_ENTRIES,
    )
}

/// The first `entries` entries of the example `file`, in `dir`, with a
/// home holding the identity of the player who must act next (made afresh
/// each run: it is small).
fn example_cut<G: starry::games::Game>(dir: &Path, file: &str, entries: usize) -> Long {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/games");
    let whole = fs::read(examples.join(file)).expect("the example");
    let cut: Vec<u8> = whole
        .split_inclusive(|&b| b == b'\n')
        .take(entries)
        .flatten()
        .copied()
        .collect();
    let r = starry::log::Replay::<G>::from_bytes(&cut).expect("a valid prefix");
    let (_, seat) = r.expected();
    let name = r.genesis.seats[seat.expect("a seat acts")]
        .name
        .to_lowercase();
    let _ = fs::remove_dir_all(dir);
    let home = dir.join("home");
    fs::create_dir_all(&home).expect("the home");
    fs::copy(
        examples
            .join("identities")
            .join(&name)
            .join("identity.json"),
        home.join("identity.json"),
    )
    .expect("the identity");
    let log = dir.join("game.jsonl");
    fs::write(&log, &cut).expect("the log");
    Long {
        log,
        home,
        entries: entries as u64,
    }
}

/// Runs `starry ARGS` with `STARRY_HOME=home`, its output thrown away;
/// panics unless it succeeds.
fn starry(home: &Path, args: &[&std::ffi::OsStr]) {
    let out = Command::new(BIN)
        .args(args)
        .env("STARRY_HOME", home)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .expect("run starry");
    assert!(
        out.status.success(),
        "starry {args:?} failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

fn os(s: &str) -> &std::ffi::OsStr {
    s.as_ref()
}

#[divan::bench(sample_count = 100, sample_size = 1)]
fn version(b: Bencher) {
    let d = data();
    b.bench(|| starry(&d.nobody, &[os("--version")]));
}

fn status_args(d: &Data) -> [&std::ffi::OsStr; 2] {
    [os("status"), d.long.log.as_os_str()]
}

fn play_args(d: &Data) -> [&std::ffi::OsStr; 4] {
    [
        os("play"),
        d.long.log.as_os_str(),
        os("--auto"),
        os("--dry-run"),
    ]
}

/// `args` as the player to act, the cache as the previous run left it
/// (one run first, unmeasured, fills it).
fn warm(b: Bencher, args: &[&std::ffi::OsStr]) {
    let d = data();
    starry(&d.long.home, args);
    b.bench(|| starry(&d.long.home, args));
}

/// `args` as the player to act, with no cache.
fn cold(b: Bencher, args: &[&std::ffi::OsStr]) {
    cold_in(b, &data().long, args)
}

/// `args` as `game`'s player to act, with no cache.
fn cold_in(b: Bencher, game: &Long, args: &[&std::ffi::OsStr]) {
    let cache = game.home.join("cache");
    b.with_inputs(|| {
        let _ = fs::remove_dir_all(&cache);
    })
    .bench_values(|()| starry(&game.home, args));
}

#[divan::bench(sample_count = 100, sample_size = 1)]
fn status_sky_125_cold(b: Bencher) {
    let d = data();
    cold_in(b, &d.sky, &[os("status"), d.sky.log.as_os_str()]);
}

#[divan::bench(sample_count = 100, sample_size = 1)]
fn play_dry_run_sky_125_cold(b: Bencher) {
    let d = data();
    let args = [
        os("play"),
        d.sky.log.as_os_str(),
        os("--auto"),
        os("--dry-run"),
    ];
    cold_in(b, &d.sky, &args);
}

#[divan::bench(sample_count = 30, sample_size = 1)]
fn status_300(b: Bencher) {
    warm(b, &status_args(data()));
}

#[divan::bench(sample_count = 30, sample_size = 1)]
fn status_300_cold(b: Bencher) {
    cold(b, &status_args(data()));
}

#[divan::bench(sample_count = 30, sample_size = 1)]
fn play_dry_run_300(b: Bencher) {
    warm(b, &play_args(data()));
}

#[divan::bench(sample_count = 30, sample_size = 1)]
fn play_dry_run_300_cold(b: Bencher) {
    cold(b, &play_args(data()));
}

/// `starry audit -j JOBS ARCHIVE`; a cache in its home (it uses none
/// today) is removed before each run, so every run audits from scratch.
#[divan::bench(args = [1, 2], sample_count = 5, sample_size = 1)]
fn audit_archive(b: Bencher, jobs: usize) {
    let d = data();
    let jobs = jobs.to_string();
    let args = [os("audit"), os("-j"), os(&jobs), d.archive.as_os_str()];
    let cache = d.nobody.join("cache");
    b.counter(ItemsCount::new(GAMES))
        .with_inputs(|| {
            let _ = fs::remove_dir_all(&cache);
        })
        .bench_values(|()| starry(&d.nobody, &args));
}

/// `starry moves` on a crowded Star Map with a full hand, as the player to
/// act, the cache warm (the case of every day) and cold.
#[divan::bench(sample_count = 100, sample_size = 1)]
fn moves_star_map_39(b: Bencher) {
    let d = data();
    let args = [os("moves"), d.map.log.as_os_str()];
    starry(&d.map.home, &args);
    b.bench(|| starry(&d.map.home, &args));
}

#[divan::bench(sample_count = 100, sample_size = 1)]
fn moves_star_map_39_cold(b: Bencher) {
    let d = data();
    cold_in(b, &d.map, &[os("moves"), d.map.log.as_os_str()]);
}

/// A person's move against the computer at level 3, as a whole process:
/// `starry play LOG MOVE` writes the move, then the computer seat (two in
/// Starry Sky) answers at once, each choosing at level 3, signing and
/// writing. Each sample starts from a fresh game made by `new` (unmeasured)
/// and plays the first move `starry moves` lists. The bound is a
/// second a computer turn at level 3.
#[divan::bench(args = ["starry-sky", "star-map", "starry-night"], sample_count = 10, sample_size = 1)]
fn move_against_computer_level_3(b: Bencher, game: &str) {
    let root = data_dir().join("computer");
    let _ = fs::remove_dir_all(&root);
    let n = std::sync::atomic::AtomicUsize::new(0);
    b.with_inputs(|| {
        let i = n.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let home = root.join(format!("{game}-{i}"));
        fs::create_dir_all(&home).unwrap();
        starry(
            &home,
            &[
                os("id"),
                os("new"),
                os("--name"),
                os("Ann"),
                os("--email"),
                os("ann@example.org"),
            ],
        );
        let log = home.join("game.jsonl");
        let players = if game == "starry-sky" {
            "ann@example.org, computer:3, computer:3"
        } else {
            "ann@example.org, computer:3"
        };
        starry(
            &home,
            &[
                os("new"),
                os(game),
                os("--players"),
                os(players),
                os("--out"),
                log.as_os_str(),
            ],
        );
        let out = Command::new(BIN)
            .args([os("moves"), log.as_os_str(), os("--json")])
            .env("STARRY_HOME", &home)
            .output()
            .expect("run starry");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("moves --json");
        let first = v["moves"][0]["move"].as_str().expect("a move").to_string();
        (home, log, first)
    })
    .bench_values(|(home, log, first)| {
        starry(&home, &[os("play"), log.as_os_str(), os(&first)]);
    });
}
