//! Makes an archive of games for `starry audit` and the benchmarks: COUNT
//! distinct games, a deterministic mix of all three games and of every
//! number of players each allows, eight in ten finished and countersigned,
//! the others stopped at a random entry. Games are played in memory
//! (`starry::app::generate`), on all cores.
//!
//!     cargo run --release --example make_archive -- DIR [COUNT=1000] [--seed S] [--identities IDS] [--verbose]
//!     cargo run --release --example make_archive -- --long DIR [--entries 300] [--seed S]
//!
//! The games land in `DIR/GAME/finished/` and `DIR/GAME/in-progress/`, each
//! as `ID16.jsonl` (the first 16 hex digits of its game id); DIR must be new
//! or empty. The players (Anna, Ben, Cleo, Dan, Eve) are the identities in
//! IDS (default `DIR/../identities`), created there if missing and reused
//! if present: the same identities and seed give the same games.
//! `--verbose` adds a line per game and number of players.
//!
//! `--long DIR` writes one Starry Night game on a sky of 163 stars (40 × 40
//! grid) stopped at exactly 300 entries, its players' identities in
//! `DIR/identities/`, and `DIR/long.json` naming the log and the home of
//! the player who must act next (for `STARRY_HOME=… starry status LOG`).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::exit;
use std::time::Instant;

use starry::app::generate;

fn usage() -> ! {
    eprintln!(
        "usage: make_archive DIR [COUNT=1000] [--seed S] [--identities IDS] [--verbose]\n       \
         make_archive --long DIR [--entries 300] [--seed S]"
    );
    exit(2)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut positional = Vec::new();
    let mut seed = "1".to_string();
    let mut ids: Option<PathBuf> = None;
    let mut long: Option<PathBuf> = None;
    let mut entries = 300u64;
    let mut verbose = false;
    while let Some(a) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| usage());
        match a.as_str() {
            "--seed" => seed = value(),
            "--identities" => ids = Some(value().into()),
            "--long" => long = Some(value().into()),
            "--entries" => entries = value().parse().unwrap_or_else(|_| usage()),
            "--verbose" => verbose = true,
            "-h" | "--help" => usage(),
            s if s.starts_with('-') => usage(),
            _ => positional.push(a),
        }
    }
    // Any text seeds the games.
    let seed = starry::crypto::sha256(format!("starry archive {seed}").as_bytes());
    if let Some(dir) = long {
        if !positional.is_empty() {
            usage();
        }
        let started = Instant::now();
        let game = generate::long_game(&dir, entries, seed).unwrap_or_else(|e| fail(e));
        println!(
            "wrote a Starry Night game of {} entries in {:.2} s: STARRY_HOME={} starry status {}",
            game.entries,
            started.elapsed().as_secs_f64(),
            game.home.display(),
            game.log.display()
        );
        return;
    }
    let (dir, count) = match positional.as_slice() {
        [dir] => (PathBuf::from(dir), 1000),
        [dir, n] => (
            PathBuf::from(dir),
            n.parse::<usize>().unwrap_or_else(|_| usage()),
        ),
        _ => usage(),
    };
    let ids = ids.unwrap_or_else(|| {
        dir.parent()
            .unwrap_or(std::path::Path::new("."))
            .join("identities")
    });
    let players = generate::identities(&ids, generate::NAMES.len()).unwrap_or_else(|e| fail(e));
    let plans = generate::plans(count, seed);
    let (summary, made) = generate::archive(&dir, &players, &plans).unwrap_or_else(|e| fail(e));
    if verbose {
        // Entries of finished games, by game and number of players.
        let mut by: BTreeMap<(&str, usize), (Vec<u64>, usize)> = BTreeMap::new();
        for m in &made {
            let row = by.entry((m.game, m.players)).or_default();
            row.1 += 1;
            if m.finished {
                row.0.push(m.entries);
            }
        }
        for ((game, players), (mut finished, n)) in by {
            finished.sort_unstable();
            let median = finished.get(finished.len() / 2).copied().unwrap_or(0);
            println!(
                "{game} {players} players: {n} games, {} finished: entries {}..{} (median {median})",
                finished.len(),
                finished.first().unwrap_or(&0),
                finished.last().unwrap_or(&0),
            );
        }
    }
    println!(
        "{summary} into {} (identities in {})",
        dir.display(),
        ids.display()
    );
}

fn fail(e: starry::error::Error) -> ! {
    eprintln!("make_archive: {e}");
    exit(1)
}
