//! Computer opponents, for all three games: what a bot may see, seeded
//! reproducibility, `play --bot` and `starry arena` as the real binary runs
//! them. (Each game's own table of legal choices over thousands of random
//! positions is in `src/games/*/bot.rs`.)

use crate::common;

use common::{Table, validator};
use serde_json::Value;
use starry::bot::{self, Bot, BotRng, Player, Sight, World};
use starry::games::star_map::StarMap;
use starry::games::starry_night::StarryNight;
use starry::games::starry_sky::StarrySky;
use starry::games::{Game, Own, Turn};

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
            StarrySky::search(&sight, 300, &mut BotRng::seeded(3)),
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
        let a = G::search(&sight, 24, &mut BotRng::seeded(seed)).unwrap();
        let b = G::search(&sight, 24, &mut BotRng::seeded(seed)).unwrap();
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
    for (game, players) in [
        ("starry-sky", "greedy,random,bot:1"),
        ("starry-night", "greedy,random"),
        ("star-map", "greedy,random"),
    ] {
        let t = Table::new(1);
        let args = [
            "arena", game, "--bots", players, "--games", "3", "--seed", "4", "--json",
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
