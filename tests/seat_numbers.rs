//! One seat numbering everywhere (issue 22, docs/json.md): every command
//! that prints JSON is run, by the real binary, on the example games, and
//! every field that names a seat must count from 0 as the log's `author`
//! does — the seat whose name is the genesis' seat 0 name is seat 0 — while
//! no text beside it names another seat number.

use crate::common;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::{Value, json};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// An example game as its log says it: the players' names in seat order and
/// each entry's author.
struct Game {
    file: PathBuf,
    names: Vec<String>,
    authors: Vec<u64>,
}

fn game(dir: &Path, name: &str) -> Game {
    let from = root().join("examples/games").join(name);
    let file = dir.join(name);
    std::fs::copy(&from, &file).unwrap();
    let lines: Vec<Value> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let names = lines[0]["body"]["data"]["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect();
    let authors = lines
        .iter()
        .map(|l| l["body"]["author"].as_u64().unwrap())
        .collect();
    Game {
        file,
        names,
        authors,
    }
}

impl Game {
    fn path(&self) -> &str {
        self.file.to_str().unwrap()
    }

    fn seat_of(&self, name: &str) -> u64 {
        self.names.iter().position(|n| n == name).unwrap() as u64
    }
}

/// A home of its own for an example player (`None`: nobody, a spectator),
/// so that nothing the program keeps lands in the work tree.
fn home(dir: &Path, who: Option<&str>) -> PathBuf {
    let home = dir.join(format!("home-{}", who.unwrap_or("nobody")));
    std::fs::create_dir_all(&home).unwrap();
    if let Some(who) = who {
        std::fs::copy(
            root()
                .join("examples/games/identities")
                .join(who)
                .join("identity.json"),
            home.join("identity.json"),
        )
        .unwrap();
    }
    home
}

fn json_of(home: &Path, args: &[&str]) -> Value {
    let out = common::starry_in(home, args);
    assert!(
        out.status.success(),
        "starry {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "starry {args:?}: {e}: {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// Fields that hold one seat number, or a list of them.
const SEAT: &[&str] = &[
    "seat",
    "to_act_seat",
    "viewer",
    "silent",
    "author",
    "causer",
    "captor",
    "winner",
    "completer",
    "alone",
    // Star Map's `turn` is a seat (elsewhere an object); a payment's `to`.
    "turn",
    "to",
];
const SEATS: &[&str] = &["countersigned", "by", "tie-for-first", "tied"];

/// What the checks saw, so that none of them passes by seeing nothing.
#[derive(Default, Debug)]
struct Seen {
    /// Seat numbers checked against a name beside them.
    named: usize,
    /// Seat fields checked to be below the number of seats.
    fields: usize,
    /// "seat N" in text checked.
    texts: usize,
    /// A seat field named seat 0 (a 1-based numbering never does).
    zero: bool,
}

/// Every seat field of `v` is a seat of `g` (0 to n − 1); a seat beside a
/// name is that name's seat; every "seat N" in a text is a seat, and the
/// one beside a name ("seat N, NAME", "NAME (seat N)", "seat N: NAME") is
/// that name's.
fn check(what: &str, v: &Value, g: &Game, seen: &mut Seen) {
    let n = g.names.len() as u64;
    match v {
        Value::Object(map) => {
            let pairs = [("seat", "name"), ("to_act_seat", "to_act_name")];
            for (seat, name) in pairs {
                if let (Some(s), Some(x)) = (
                    map.get(seat).and_then(Value::as_u64),
                    map.get(name).and_then(Value::as_str),
                ) {
                    assert_eq!(
                        g.names.get(s as usize).map(String::as_str),
                        Some(x),
                        "{what}: `{seat}: {s}` beside `{name}: {x}` in {v}"
                    );
                    seen.named += 1;
                }
            }
            for (k, x) in map {
                let one = SEAT.contains(&k.as_str()).then(|| x.as_u64()).flatten();
                let many: Vec<u64> = if SEATS.contains(&k.as_str()) {
                    x.as_array()
                        .map(|a| a.iter().filter_map(Value::as_u64).collect())
                        .unwrap_or_default()
                } else {
                    Vec::new()
                };
                for s in one.into_iter().chain(many) {
                    assert!(
                        s < n,
                        "{what}: `{k}: {s}` but the game has seats 0 to {}",
                        n - 1
                    );
                    seen.fields += 1;
                    seen.zero |= s == 0;
                }
                check(what, x, g, seen);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| check(what, x, g, seen)),
        Value::String(s) => check_text(what, s, g, seen),
        _ => {}
    }
}

fn check_text(what: &str, text: &str, g: &Game, seen: &mut Seen) {
    let n = g.names.len();
    for (at, _) in text.match_indices("seat ") {
        let rest = &text[at + 5..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let Ok(s) = digits.parse::<usize>() else {
            continue;
        };
        assert!(s < n, "{what}: `seat {s}` in {text:?}, a game of {n} seats");
        seen.texts += 1;
        let after = &rest[digits.len()..];
        let before = &text[..at];
        let named = after
            .strip_prefix(", ")
            .or_else(|| after.strip_prefix(": "))
            .map(|t| t.starts_with(g.names[s].as_str()))
            .or_else(|| {
                after
                    .starts_with(')')
                    .then(|| {
                        before
                            .strip_suffix(" (")
                            .map(|b| b.ends_with(g.names[s].as_str()))
                    })
                    .flatten()
            });
        if let Some(ok) = named {
            assert!(
                ok,
                "{what}: `seat {s}` beside another name than {:?} in {text:?}",
                g.names[s]
            );
            seen.named += 1;
        }
    }
}

/// One row per command that prints JSON: what it is, whether it prints
/// seat numbers (`games` names players only, and says whose turn it is),
/// and how to run it on a game (a fresh copy in `dir`), checking what it
/// must say beyond the general checks.
type Row = (&'static str, bool, fn(&Path, &Game) -> Vec<Value>);

fn rows() -> Vec<Row> {
    vec![
        ("status", true, |dir, g| {
            let v = json_of(&home(dir, None), &["status", g.path(), "--json"]);
            for (i, s) in v["seats"].as_array().unwrap().iter().enumerate() {
                assert_eq!(s["seat"], i as u64, "status: seats in turn order from 0");
            }
            assert_eq!(v["seats"][0]["name"], g.names[0].as_str());
            vec![v]
        }),
        ("view", true, |dir, g| {
            // Each of the first two players sees their own seat.
            let mut out = Vec::new();
            for who in [&g.names[0], &g.names[1]] {
                let h = home(dir, Some(&who.to_lowercase()));
                let v = json_of(&h, &["view", g.path(), "--json"]);
                assert_eq!(v["viewer"], g.seat_of(who), "view: {who}'s own seat");
                out.push(v);
            }
            out.push(json_of(&home(dir, None), &["view", g.path(), "--json"]));
            out
        }),
        ("ingest", true, |dir, g| {
            let who = &g.names[1];
            let h = home(dir, Some(&who.to_lowercase()));
            let v = json_of(&h, &["ingest", g.path(), "--json"]);
            assert_eq!(v["seat"], 1, "ingest: {who} holds seat 1");
            vec![v]
        }),
        ("games", false, |dir, g| {
            // Whose turn it is, as `games` tells each player: only the one
            // `status` names (a seat off by one would name another, or
            // nobody).
            let status = json_of(&home(dir, None), &["status", g.path(), "--json"]);
            let mut out = Vec::new();
            for who in &g.names {
                let h = home(dir, Some(&who.to_lowercase()));
                let games = h.join("games");
                std::fs::create_dir_all(&games).unwrap();
                std::fs::copy(&g.file, games.join(g.file.file_name().unwrap())).unwrap();
                let v = json_of(&h, &["games", "--json"]);
                let row = &v["games"][0];
                let mine = status["to_act_name"] == who.as_str();
                assert_eq!(row["your_turn"], mine, "games: {who}'s turn? {status}");
                assert_eq!(row["players"][0], g.names[0].as_str());
                out.push(v);
            }
            out
        }),
        ("audit", true, |dir, g| {
            let v = json_of(&home(dir, None), &["audit", g.path(), "--json"]);
            let f = &v["files"][0];
            if f["over"] == true && f["status"]["over"] == true {
                let all: Vec<u64> = (0..g.names.len() as u64).collect();
                if f["countersigned"].as_array().unwrap().len() == all.len() {
                    assert_eq!(f["countersigned"], json!(all), "audit: every seat from 0");
                }
            }
            vec![v]
        }),
        ("history", true, |dir, g| {
            let v = json_of(&home(dir, None), &["history", g.path(), "--json"]);
            let events = v["events"].as_array().unwrap();
            assert_eq!(events.len(), g.authors.len());
            for (e, &author) in events.iter().zip(&g.authors) {
                assert_eq!(
                    e["seat"], author,
                    "history: the entry's author, as the log says: {e}"
                );
            }
            vec![v]
        }),
    ]
}

/// The example games (examples/games/), in the registry's order: every one
/// of them, so that each registered game is checked at every number of
/// seats and every stage its examples show; a game of the registry without
/// an example fails here (the generator, `examples/make_games.rs`, makes
/// them).
fn example_games() -> Vec<String> {
    let mut games = Vec::new();
    for entry in std::fs::read_dir(root().join("examples/games")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if !name.ends_with(".jsonl") {
            continue;
        }
        let text = std::fs::read_to_string(root().join("examples/games").join(&name)).unwrap();
        let genesis: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        let game = genesis["body"]["data"]["game"]
            .as_str()
            .unwrap()
            .to_string();
        let order = starry::games::registry::NAMES
            .iter()
            .position(|n| *n == game)
            .unwrap_or_else(|| panic!("{name}: `{game}` is not a registered game"));
        games.push((order, name));
    }
    games.sort();
    for (order, game) in starry::games::registry::NAMES.iter().enumerate() {
        assert!(
            games.iter().any(|(o, _)| *o == order),
            "no example game of {game} in examples/games"
        );
    }
    games.into_iter().map(|(_, name)| name).collect()
}

#[test]
fn every_json_command_counts_seats_from_0_as_the_log() {
    for name in &example_games() {
        for (command, numbers, run) in rows() {
            let dir = tempfile::tempdir().unwrap();
            let g = game(dir.path(), name);
            let what = format!("{command} {name}");
            let mut seen = Seen::default();
            for v in run(dir.path(), &g) {
                check(&what, &v, &g, &mut seen);
            }
            assert!(
                !numbers || (seen.fields > 0 && seen.named > 0 && seen.zero),
                "{what}: nothing checked: {seen:?}"
            );
        }
    }
}

/// The referee has no names: it says "seat N", and N is the number of the
/// field beside it. Ben (seat 1) chooses who moves first, once each way.
#[test]
fn the_referee_describes_a_seat_by_the_number_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let g = Game {
        file: dir.path().join("none"),
        names: vec!["no name 0".into(), "no name 1".into()],
        authors: Vec::new(),
    };
    for first in [0u64, 1] {
        let input = json!({
            "options": {"score": "count", "sky": {"stars": {"width": 9, "height": 6,
                "stars": [[0,0],[4,0],[0,2],[4,2],[8,5]]}}},
            "seats": 2,
            "setup": "0".repeat(64),
            "actions": [
                {"seat": 1, "move": {"first": first}},
                {"seat": first, "move": {"edge": [[0,0],[4,0]]}},
            ],
        });
        let out = Command::cargo_bin("starry")
            .unwrap()
            .args(["rules", "replay", "starry-night", "-"])
            .write_stdin(serde_json::to_vec(&input).unwrap())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let states: Vec<Value> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(states.len(), 3);
        let chose = &states[1];
        assert_eq!(chose["seat"], 1, "the chooser, as in the input");
        assert_eq!(chose["describe"], format!("seat {first} moves first"));
        assert_eq!(chose["turn"], json!({"kind": "move", "seat": first}));
        assert_eq!(states[2]["seat"], first);
        assert_eq!(states[2]["view"]["first"], first);
        let mut seen = Seen::default();
        for s in &states {
            check("rules replay", s, &g, &mut seen);
        }
        assert!(seen.texts > 0 && seen.fields > 0, "{seen:?}");
    }
}

/// Starry Night's `first N` names a seat as the JSON does: Ben's `first 0`
/// is Anna, the creator, and the status says so in names and number.
#[test]
fn a_player_names_a_seat_by_the_same_number() {
    let t = common::Table::new(2);
    t.create_game("starry-night", &["--stars", "1,1 5,1 8,2 3,3 6,4"]);
    let s = t.play_until(|s| s["action"] == "move");
    assert_eq!(s["to_act_seat"], 1, "Ben chooses: {s}");
    let out = t.ok(1, &["play", t.log_str(), "first 0"]);
    assert!(out.contains("Anna to draw an edge"), "{out}");
    let s = t.status();
    assert_eq!(
        (&s["to_act_seat"], &s["to_act_name"]),
        (&json!(0), &json!("Anna"))
    );
    let v = t.json(Some(0), &["view", t.log_str(), "--json"]);
    assert_eq!(v["view"]["first"], 0);
    assert_eq!(v["viewer"], 0);
}
