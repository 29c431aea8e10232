//! Computer opponents, for all three games: what a bot may see, seeded
//! reproducibility, `play --bot` and `starry arena` as the real binary runs
//! them. (Each game's own table of legal choices over thousands of random
//! positions is in `crates/core/src/games/*/bot.rs`.)

use crate::common;

use common::{Table, validator};
use serde_json::Value;
use starry::bot::{self, Bot, BotRng, Level, Player, Sight, Work, World};
use starry::games::star_map::StarMap;
use starry::games::starry_night::StarryNight;
use starry::games::starry_sky::StarrySky;
use starry::games::{Own, Turn, prelude::*};

/// Plays seat 0's first move in Starry Sky with `token` face down on the
/// first large star, and returns the world after it.
fn sky_after_face_down(token: &str) -> World<StarrySky> {
    let options = StarrySky::options(&[], None).unwrap();
    let state = StarrySky::setup(&options, 3, &mut BotRng::seeded(1).draw()).unwrap();
    let mut world = World::<StarrySky>::new(state, vec![Own::default(); 3], 7);
    let Turn::Move(0) = StarrySky::turn(&world.state) else {
        panic!("seat 0 moves first")
    };
    // The first star where a token goes face down.
    let star = StarrySky::intents(&world.state, 0, &world.owns[0])
        .into_iter()
        .find(|i| {
            StarrySky::seal(&world.state, 0, i, &world.owns[0]).is_ok_and(|s| s.hidden.len() == 1)
        })
        .expect("a large star")
        .star;
    let intent = StarrySky::parse_intent(&world.state, &format!("{token} {star}")).unwrap();
    world.play(0, &intent, &mut BotRng::seeded(2)).unwrap();
    world
}

#[test]
fn a_bot_s_input_is_the_same_whatever_another_seat_hides() {
    // Seat 0 hides a 10 in one game and a 1 in the other. What seat 1's bot
    // gets — the public state and its own values — is the same bytes, and
    // so is every choice it makes from it.
    let a = sky_after_face_down("10");
    let b = sky_after_face_down("1");
    assert_ne!(a.owns[0].hidden, b.owns[0].hidden, "the secrets differ");
    assert_eq!(
        serde_json::to_string(&a.state).unwrap(),
        serde_json::to_string(&b.state).unwrap(),
        "the public state carries no hidden value"
    );
    let Turn::Move(1) = StarrySky::turn(&a.state) else {
        panic!("seat 1 moves next")
    };
    let seen = |w: &World<StarrySky>| {
        let sight = Sight::<StarrySky>::new(&w.state, 1, &w.owns[1], w.at);
        (
            bot::choose(Player::Greedy, &sight, &mut BotRng::seeded(3)),
            StarrySky::search(&sight, 300, &Work::unlimited(), &mut BotRng::seeded(3)),
        )
    };
    assert_eq!(seen(&a), seen(&b));
}

/// The start of a game of `G` with `seats` seats, played at random for
/// `moves` entries.
fn position<G: Game>(seats: usize, moves: usize, seed: u64) -> World<G> {
    let options = G::options(&[], None).unwrap();
    let mut rng = BotRng::seeded(seed);
    let state = G::setup(&options, seats, &mut rng.draw()).unwrap();
    let mut world = World::<G>::new(state, vec![Own::default(); seats], 1);
    world
        .rollout(&mut rng, moves, &mut bot::random_move::<G>)
        .unwrap();
    world
}

fn same_seed_same_choice<G: Bot>(seats: usize) {
    for seed in 0..4 {
        let world = position::<G>(seats, 2 + seed as usize, seed);
        let Turn::Move(seat) = G::turn(&world.state) else {
            continue;
        };
        let sight = Sight::<G>::new(&world.state, seat, &world.owns[seat], world.at);
        for player in [Player::Random, Player::Greedy] {
            let a = bot::choose(player, &sight, &mut BotRng::seeded(seed));
            let b = bot::choose(player, &sight, &mut BotRng::seeded(seed));
            assert_eq!(a, b, "{} {player}", G::NAME);
            assert!(a.is_some(), "{} {player} finds a move", G::NAME);
        }
        let a = G::search(&sight, 24, &Work::unlimited(), &mut BotRng::seeded(seed)).unwrap();
        let b = G::search(&sight, 24, &Work::unlimited(), &mut BotRng::seeded(seed)).unwrap();
        assert_eq!(a, b, "{}", G::NAME);
        assert!(!a.why.is_empty() && !a.why.contains('\n'), "{}", a.why);
    }
}

#[test]
fn a_seed_gives_the_same_choice_in_every_game() {
    same_seed_same_choice::<StarrySky>(4);
    same_seed_same_choice::<StarryNight>(2);
    same_seed_same_choice::<StarMap>(2);
}

/// (game, players at the table, extra arguments of `new`).
const GAMES: [(&str, usize, &[&str]); 3] = [
    ("starry-sky", 3, &[]),
    ("starry-night", 2, &["--random-stars", "10"]),
    ("star-map", 2, &[]),
];

fn table_at_a_move(game: &str, n: usize, extra: &[&str]) -> (Table, usize) {
    let t = Table::new(n);
    t.create_game(game, extra);
    let s = t.play_until(|s| s["action"] == "move");
    let who = t.seat_of(s["to_act"].as_str().unwrap());
    (t, who)
}

#[test]
fn play_bot_chooses_explains_and_repeats_with_a_seed() {
    for (game, n, extra) in GAMES {
        let (t, who) = table_at_a_move(game, n, extra);
        let log = t.log_str().to_string();
        let before = std::fs::read(&t.log).unwrap();
        let args = ["play", &log, "--bot", "1", "--dry-run", "--seed", "9"];
        let choice = |out: String| {
            out.lines()
                .find(|l| l.starts_with("The computer (level 1) chose `"))
                .unwrap_or_else(|| panic!("{game}: no choice shown:\n{out}"))
                .to_string()
        };
        let line = choice(t.ok(who, &args));
        assert_eq!(choice(t.ok(who, &args)), line, "{game}: a seed repeats");
        assert!(
            line.ends_with('.') && line.contains("`: "),
            "{game}: {line}"
        );
        assert_eq!(std::fs::read(&t.log).unwrap(), before, "{game}: a dry run");
        let v: Value = t.json(Some(who), &[&args[..], &["--json"]].concat());
        assert_eq!(v["bot"]["level"], 1, "{game}");
        assert_eq!(v["bot"]["seed"], 9, "{game}");
        assert!(validator("entry-report.json").is_valid(&v), "{game}");
        // Written for real, at the default level, the game still audits.
        let written = t.json(Some(who), &["play", &log, "--bot", "--json"]);
        assert_eq!(written["bot"]["level"], 2, "{game}");
        assert_eq!(written["dry_run"], false);
        let audit = t.starry(None, &["audit", &log]);
        assert!(audit.status.success(), "{game}");
        // Without --bot there is no such report.
        let plain = t.json(None, &["status", &log, "--json"]);
        assert!(plain.get("bot").is_none());
    }
}

#[test]
fn play_bot_refuses_what_it_cannot_do() {
    let t = Table::new(3);
    t.create_game("starry-sky", &[]);
    let log = t.log_str();
    for (args, says) in [
        (vec!["play", log, "--bot", "4"], "4 is not in 1..=3"),
        (vec!["play", log, "--seed", "3"], "--bot"),
        (
            vec!["play", log, "10 leo:3", "--bot"],
            "cannot be used with",
        ),
    ] {
        let out = t.starry(Some(0), &args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
    // Before the game has begun there is nothing to choose: --bot does what
    // is due, as --auto does, and says what is not.
    let out = t.starry(Some(1), &["play", log, "--bot", "--dry-run"]);
    assert!(out.status.success(), "--bot joins, as --auto does");
    let out = t.starry(Some(0), &["play", log, "--bot"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("joined this game already"), "{err}");
}

#[test]
fn the_arena_reports_every_game_and_repeats_with_a_seed() {
    let schema = validator("arena.json");
    // Every registered game at its fewest seats, each seat another player.
    for e in &starry::games::registry::ALL {
        let game = e.name;
        let players = ["greedy", "random", "bot:1", "greedy", "random"][..e.seats.0].join(",");
        let t = Table::new(1);
        let args = [
            "arena", game, "--bots", &players, "--games", "3", "--seed", "4", "--json",
        ];
        let a = t.json(None, &args);
        assert!(schema.is_valid(&a), "{game}: {a}");
        let b = t.json(None, &args);
        let wins = |v: &Value| -> Vec<f64> {
            v["players"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["wins"].as_f64().unwrap())
                .collect()
        };
        assert_eq!(wins(&a), wins(&b), "{game}: the same seed, the same games");
        assert!((wins(&a).iter().sum::<f64>() - 3.0).abs() < 1e-9, "{game}");
        assert_eq!(
            a["players"].as_array().unwrap().len(),
            players.split(',').count()
        );
        let text = t.ok(0, &args[..args.len() - 1]);
        assert!(
            text.contains("95% interval") && text.contains("time/move"),
            "{text}"
        );
    }
}

#[test]
fn the_arena_refuses_unknown_players_and_wrong_seat_counts() {
    let t = Table::new(1);
    for (args, code, says) in [
        (
            vec!["arena", "starry-night", "--bots", "bot:9,random"],
            2,
            "bot:1",
        ),
        (
            vec!["arena", "starry-night", "--bots", "random,random,random"],
            2,
            "takes 2 players",
        ),
        (
            vec!["arena", "chess", "--bots", "random,random"],
            2,
            "unknown game",
        ),
        (
            vec![
                "arena",
                "starry-sky",
                "--bots",
                "random,random,random",
                "--games",
                "0",
            ],
            2,
            "0",
        ),
    ] {
        let out = t.starry(None, &args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

/// A game of `G` with the options `pairs` and `seats` seats, played at
/// random for `moves` entries, at a seat's move.
fn position_of<G: Game>(
    pairs: &[(&str, &str)],
    seats: usize,
    moves: usize,
    seed: u64,
) -> (World<G>, usize) {
    let pairs: Vec<(String, String)> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let options = G::options(&pairs, None).unwrap();
    let mut rng = BotRng::seeded(seed);
    let state = G::setup(&options, seats, &mut rng.draw()).unwrap();
    let mut world = World::<G>::new(state, vec![Own::default(); seats], 1);
    world
        .rollout(&mut rng, moves, &mut bot::random_move::<G>)
        .unwrap();
    loop {
        if let Turn::Move(seat) = G::turn(&world.state) {
            return (world, seat);
        }
        world
            .rollout(&mut rng, 1, &mut bot::random_move::<G>)
            .unwrap();
    }
}

/// The search at `level` in the position: its choice is legal, and the work
/// it did stays within the level's units (a tenth over at most: the step
/// that finds them spent finishes). Returns the work done.
fn bounded_move<G: Bot>(world: &World<G>, seat: usize, level: u8, what: &str) -> u64 {
    let level = Level::new(level).unwrap();
    let budget = level.budget::<G>();
    let work = Work::new(budget.work);
    let sight = Sight::<G>::new(&world.state, seat, &world.owns[seat], world.at);
    let choice = G::search(&sight, budget.games, &work, &mut BotRng::seeded(7))
        .unwrap_or_else(|| panic!("{what}: no move"));
    G::seal(&world.state, seat, &choice.intent, &world.owns[seat])
        .unwrap_or_else(|e| panic!("{what}: `{}` is refused: {e}", choice.intent));
    assert!(
        work.spent() <= budget.work + budget.work / 10,
        "{what}, level {level}: {} units of {}",
        work.spent(),
        budget.work
    );
    work.spent()
}

#[test]
fn a_computer_move_on_the_largest_boards_is_bounded() {
    // Starry Night's largest sky: 163 stars on the largest grid, where
    // nearly every pair of stars can be joined (13,000 legal edges), and the
    // sky of the report (160 stars on 40×40), at the start and in the
    // middle of a game. At level 1, one such move used to run for minutes
    // and take gigabytes: the one-ply look drew every edge on a copy of the
    // map (a copy per legal edge, each holding the list of legal edges) and
    // looked at every reply to each.
    for (stars, grid, moves) in [
        ("163", "100x100", 1),
        ("160", "40x40", 1),
        ("163", "100x100", 120),
    ] {
        let (world, seat) =
            position_of::<StarryNight>(&[("random-stars", stars), ("grid", grid)], 2, moves, 3);
        let what = format!("starry-night, {stars} stars on {grid} after {moves}");
        let spent = bounded_move::<StarryNight>(&world, seat, 1, &what);
        // At the start the bound is what stopped it: the search wanted more.
        assert!(
            moves > 1 || spent >= Level::new(1).unwrap().budget::<StarryNight>().work,
            "{what}: {spent}"
        );
    }
    // Starry Sky's most seats, Star Map's most seats, a few moves in.
    let (world, seat) = position_of::<StarrySky>(&[], 5, 10, 3);
    bounded_move::<StarrySky>(&world, seat, 1, "starry-sky, 5 seats");
    let (world, seat) = position_of::<StarMap>(&[], 4, 8, 3);
    bounded_move::<StarMap>(&world, seat, 1, "star-map, 4 seats");
}

#[test]
fn ctrl_c_during_a_think_stops_it_and_writes_nothing() {
    // A level-3 think on the largest sky, interrupted once it is under way.
    let (t, who) = table_at_a_move(
        "starry-night",
        2,
        &["--random-stars", "163", "--grid", "100x100"],
    );
    // Every file but the caches of verified logs (written when a log is
    // read, whatever is done with it next), with its bytes.
    let files = |dir: &std::path::Path| -> Vec<(std::path::PathBuf, Vec<u8>)> {
        let mut all: Vec<_> = walk(dir)
            .into_iter()
            .filter(|p| !p.components().any(|c| c.as_os_str() == "cache"))
            .map(|p| {
                let bytes = std::fs::read(&p).unwrap_or_default();
                (p, bytes)
            })
            .collect();
        all.sort();
        all
    };
    let before = files(t.dir.path());
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("starry"))
        .env("STARRY_HOME", &t.homes[who])
        .args(["play", t.log_str(), "--bot", "3"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    // Under way: a third of a second of processor time (the think takes
    // seconds; reading the log and the sky takes milliseconds). A loaded
    // machine only makes the wait longer.
    let started = std::time::Instant::now();
    loop {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the think ended before it could be interrupted"
        );
        if cpu_ticks(pid) >= 33 {
            break;
        }
        assert!(started.elapsed().as_secs() < 120, "the think never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // SAFETY: a signal to our own child, which has not been waited for.
    assert_eq!(unsafe { libc::kill(pid as i32, libc::SIGINT) }, 0);
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("interrupted (Ctrl-C)"), "{err}");
    assert!(err.contains("nothing was written"), "{err}");
    let after = files(t.dir.path());
    let names = |all: &[(std::path::PathBuf, Vec<u8>)]| -> Vec<std::path::PathBuf> {
        all.iter().map(|(p, _)| p.clone()).collect()
    };
    assert_eq!(names(&after), names(&before), "the same files");
    for ((path, now), (_, was)) in after.iter().zip(&before) {
        assert!(now == was, "{} changed", path.display());
    }
    assert!(
        before.iter().any(|(p, _)| p == &t.log),
        "the log is compared"
    );
}

/// Every file under `dir`.
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// The processor time a process has used, in clock ticks (user and system,
/// from /proc).
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The fields after the command's name, which ends with the last `)`.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line, 11 and 12 here.
    let tick = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    tick(11) + tick(12)
}
