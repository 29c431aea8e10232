//! `starry rules replay`, through the real binary: a signed log (of any game
//! `starry` plays: the example logs of each) turned into
//! a replay input (every hidden value face up, the setup and draw seeds as
//! the protocol derives them) replays to the very states `starry view
//! --spectator` and `starry audit` give; every illegal action is refused
//! with its reason, its index and the right exit code; hostile input gets a
//! short error, never a panic.

use crate::common;
use starry::crypto::identity::Stored as _;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;
use common::Table;
use serde_json::{Value, json};
use starry::crypto::identity::Identity;
use starry::games::Game;
use starry::games::starry_sky::StarrySky;
use starry::log::Replay;
use starry::log::replay::{Data, lines, parse_line, read_genesis};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `starry rules replay GAME -` with `input` on standard input, plus `extra` arguments.
fn replay_stdin(game: &str, input: impl Into<Vec<u8>>, extra: &[&str]) -> Output {
    Command::cargo_bin("starry")
        .unwrap()
        .args(["rules", "replay", game, "-"])
        .args(extra)
        .write_stdin(input)
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap()
}

fn replay_value(input: &Value) -> Output {
    replay_game("starry-sky", input)
}

fn replay_game(game: &str, input: &Value) -> Output {
    replay_stdin(game, serde_json::to_vec(input).unwrap(), &[])
}

/// The JSON lines a successful replay printed.
fn states(out: &Output) -> Vec<Value> {
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn starry(args: &[&str]) -> Value {
    let out = Command::cargo_bin("starry")
        .unwrap()
        .env("STARRY_HOME", root().join("target/no-such-home"))
        .args(args)
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

/// What a log becomes as a replay input, and what the log's own replay says
/// after each of those actions.
struct Converted {
    input: Value,
    /// After each action: (entry, spectator view, standings) from
    /// [`Replay`].
    expected: Vec<(u64, Value, Value)>,
}

/// The values behind the commitments nobody opened, from the players'
/// identities in `homes`: a game in progress, or one that a player
/// resigned, has some.
fn unopened_values<G: Game>(r: &Replay<G>, homes: &[PathBuf]) -> BTreeMap<(u64, u32), Value> {
    let mut out = BTreeMap::new();
    for home in homes {
        let Ok(id) = Identity::load(home) else {
            continue;
        };
        let Some(seat) = r.seat_of_key(&id.public_key()) else {
            continue;
        };
        let secret = r.game_secret(&id, seat).unwrap();
        for (at, t) in r.own_hidden(&secret, seat).unwrap().hidden {
            out.insert((at.entry, at.slot), serde_json::to_value(t).unwrap());
        }
    }
    out
}

/// Turns a log of game `G` into a replay input: options and seats from the
/// genesis, the setup seed from the ready links, each move, reveal and
/// resignation as an action with its entry number, the values it commits
/// to (from the openings later in the log, or else from the example
/// identities in `homes`) and the seeds of the draws it resolves.
fn convert<G: Game>(log: &[u8], homes: &[PathBuf]) -> Converted {
    let (ls, end) = lines(log);
    assert!(end.is_none());
    let parsed: Vec<_> = ls
        .iter()
        .enumerate()
        .map(|(n, l)| parse_line(n as u64, l).unwrap())
        .collect();
    let mut values: BTreeMap<(u64, u32), Value> = BTreeMap::new();
    for p in &parsed {
        let openings = match &p.data {
            Data::Move(m) => &m.reveals,
            Data::Reveal(r) => &r.reveals,
            Data::Resign(r) => &r.reveals,
            _ => continue,
        };
        for o in openings {
            values.insert((o.entry, o.slot), o.value.clone());
        }
    }
    let full = Replay::<G>::from_bytes(log).unwrap();
    for (k, v) in unopened_values(&full, homes) {
        values.entry(k).or_insert(v);
    }
    let refs = |os: &[starry::log::entry::Opening]| -> Vec<Value> {
        os.iter()
            .map(|o| json!({"entry": o.entry, "slot": o.slot}))
            .collect()
    };
    let mut r = Replay::<G>::from_genesis(ls[0]).unwrap();
    let mut actions = Vec::new();
    let mut expected = Vec::new();
    for (n, l) in ls.iter().enumerate().skip(1) {
        let n = n as u64;
        let p = &parsed[n as usize];
        let seat = p.line.body.author as usize;
        let draws = |r: &Replay<G>| -> Vec<Value> {
            let link = p.line.body.link.unwrap().0;
            r.draw_seeds(seat, &link)
                .into_iter()
                .map(|(event, seed)| json!({"event": event, "seed": hex::encode(seed)}))
                .collect()
        };
        let item = match &p.data {
            Data::Move(m) => Some(json!({
                "seat": seat,
                "move": m.action,
                "hidden": (0..m.commitments.len() as u32)
                    .map(|k| values[&(n, k)].clone())
                    .collect::<Vec<_>>(),
                "reveals": refs(&m.reveals),
                "draws": draws(&r),
                "entry": n,
            })),
            Data::Reveal(rv) => Some(json!({
                "seat": seat,
                "reveal": refs(&rv.reveals),
                "draws": draws(&r),
                "entry": n,
            })),
            Data::Resign(_) if r.state.is_some() => {
                Some(json!({"seat": seat, "resign": true, "entry": n}))
            }
            _ => None,
        };
        r.apply_line(n, l).unwrap();
        if let Some(item) = item {
            actions.push(item);
            let state = r.state.as_ref().unwrap();
            expected.push((
                n,
                serde_json::to_value(G::view(state, None, None)).unwrap(),
                serde_json::to_value(r.standings()).unwrap(),
            ));
        }
    }
    let input = json!({
        "options": r.genesis.options,
        "seats": r.seat_count(),
        "setup": hex::encode(r.setup_seed().unwrap()),
        "actions": actions,
    });
    Converted { input, expected }
}

/// Standings as `audit --json` prints them, in the replay's form: the same
/// seat and team numbers (both count from 0, docs/json.md), fewer fields.
fn audit_standings(log: &Path) -> Value {
    let a = starry(&["audit", log.to_str().unwrap(), "--json"]);
    let rows: Vec<Value> = a["files"][0]["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let mut row = json!({
                "seat": s["seat"],
                "rank": s["rank"],
                "score": s["score"],
            });
            if !s["team"].is_null() {
                row["team"] = s["team"].clone();
            }
            row
        })
        .collect();
    Value::Array(rows)
}

/// Converts `log`, replays it, and checks every state against the log's
/// own replay and the final one against `view --spectator` and `audit`.
/// The log's game, and the log as an input to replay by that game.
fn convert_any(log: &Path, homes: &[PathBuf]) -> (String, Converted) {
    let bytes = std::fs::read(log).unwrap();
    let (genesis, _) = read_genesis(&bytes).unwrap();
    let c: Result<Converted, starry::error::Error> =
        starry::with_game!(genesis.game.as_str(), G => Ok(convert::<G>(&bytes, homes)));
    (genesis.game, c.unwrap())
}

fn check_log(log: &Path, homes: &[PathBuf]) -> (Converted, Vec<Value>) {
    let (game, c) = convert_any(log, homes);
    let out = replay_game(&game, &c.input);
    assert!(
        out.status.success(),
        "{}: {}",
        log.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let got = states(&out);
    assert_eq!(got.len(), c.expected.len() + 1, "{}", log.display());
    assert_eq!(got[0]["action"], Value::Null);
    assert_eq!(got[0]["describe"], "setup");
    for (i, ((entry, view, standings), s)) in c.expected.iter().zip(&got[1..]).enumerate() {
        assert_eq!(s["action"], i, "{}", log.display());
        assert_eq!(s["entry"], *entry);
        assert_eq!(&s["view"], view, "{} entry {entry}", log.display());
        assert_eq!(
            &s["standings"],
            standings,
            "{} entry {entry}",
            log.display()
        );
    }
    let last = got.last().unwrap();
    let spectator = starry(&["view", log.to_str().unwrap(), "--spectator", "--json"]);
    assert_eq!(last["view"], spectator["view"], "{}", log.display());
    let status = starry(&["status", log.to_str().unwrap(), "--json"]);
    if status["over"] == true {
        assert_eq!(last["standings"], audit_standings(log), "{}", log.display());
        assert_eq!(last["turn"], json!({"kind": "over"}));
    } else {
        assert_eq!(last["ending"], Value::Null);
    }
    (c, got)
}

/// The example identities (their secrets are public).
fn example_homes() -> Vec<PathBuf> {
    // Copied out of the work tree: starry keeps its cache in a home.
    std::fs::read_dir(root().join("examples/games/identities"))
        .unwrap()
        .map(|e| common::example_home(&e.unwrap().file_name().to_string_lossy()))
        .collect()
}

fn example_logs() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("examples/games"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    v.sort();
    v
}

#[test]
fn every_example_game_replays_to_the_states_of_its_log() {
    let mut finished = 0;
    for log in example_logs() {
        let (_, got) = check_log(&log, &example_homes());
        let last = got.last().unwrap();
        if last["ending"] == json!({"kind": "finished"}) {
            finished += 1;
        }
    }
    assert!(finished >= 3, "{finished} finished example games");
}

#[test]
fn json_output_holds_the_same_states_and_validates() {
    let log = root().join("examples/games/finished-3p-additive-coins.jsonl");
    let c = convert::<StarrySky>(&std::fs::read(&log).unwrap(), &example_homes());
    let input = serde_json::to_vec(&c.input).unwrap();
    let lines = states(&replay_stdin("starry-sky", input.clone(), &[]));
    let out = replay_stdin("starry-sky", input, &["--json"]);
    assert!(out.status.success());
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["states"], Value::Array(lines));
    assert_eq!(report["refused"], Value::Null);
    let schema = |name: &str| {
        let text = std::fs::read_to_string(root().join("schemas").join(name)).unwrap();
        jsonschema::validator_for(&serde_json::from_str(&text).unwrap()).unwrap()
    };
    assert!(schema("rules-replay.json").is_valid(&report));
    assert!(schema("rules-replay-input.json").is_valid(&c.input));
}

#[test]
fn a_resignation_replays_like_the_log() {
    let t = Table::new(3);
    t.create(&[]);
    // Play until a good part of the game is on the table and the seat to
    // move and another seat both have tokens face down; then the seat to
    // move resigns, opening its own (the other's come from its identity).
    let face_down = |seat: usize| {
        let v = t.json(None, &["view", t.log_str(), "--spectator", "--json"]);
        v["view"]["seats"][seat]["face_down"].as_u64().unwrap()
    };
    let s = t.play_until(|s| {
        if s["entries"].as_u64().unwrap() < 30 || s["action"] != "move" {
            return false;
        }
        let who = t.seat_of(s["to_act"].as_str().unwrap());
        face_down(who) > 0 && (0..3).any(|o| o != who && face_down(o) > 0)
    });
    assert_eq!(s["over"], false, "the game ended before the resignation");
    let who = t.seat_of(s["to_act"].as_str().unwrap());
    let out = t.starry(Some(who), &["resign", t.log_str(), "--yes"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (c, got) = check_log(&t.log, &t.homes);
    let last = got.last().unwrap();
    assert_eq!(last["describe"], "resign");
    assert_eq!(last["ending"], json!({"kind": "resigned", "seat": who}));
    assert_eq!(last["turn"], json!({"kind": "over"}));
    assert_eq!(
        last["standings"].as_array().unwrap().last().unwrap()["seat"],
        who
    );
    // A move after the resignation is refused: the game is over.
    let mut input = c.input.clone();
    let next = (who + 1) % 3;
    let first_move = input["actions"][0].clone();
    let mut after = first_move;
    after["seat"] = json!(next);
    after["entry"] = json!(10_000);
    after["draws"] = json!([]);
    let n = input["actions"].as_array().unwrap().len();
    input["actions"].as_array_mut().unwrap().push(after);
    let out = replay_value(&input);
    assert_refused(&out, 19, &[&format!("actions[{n}]"), "the game is over"]);
}

/// The worked example of docs/referee.md replays, and its output is the
/// one the docs show.
#[test]
fn the_documented_example_replays() {
    let path = root().join("examples/referee/starry-sky.json");
    let out = Command::cargo_bin("starry")
        .unwrap()
        .args(["rules", "replay", "starry-sky"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = states(&out);
    let input: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(got.len(), input["actions"].as_array().unwrap().len() + 1);
    // The example shows a face-down token, a completed board, a reveal and
    // the draw of the board that replaces it.
    let describes: Vec<&str> = got
        .iter()
        .map(|s| s["describe"].as_str().unwrap())
        .collect();
    assert!(
        describes.iter().any(|d| d.starts_with("a face-down token")),
        "{describes:?}"
    );
    assert!(describes.contains(&"reveal"), "{describes:?}");
    assert!(
        got.iter()
            .any(|s| !s["pending"].as_array().unwrap().is_empty())
    );
    assert!(
        input["actions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["draws"].as_array().is_some_and(|d| !d.is_empty()))
    );
    // Standard input without `-` works the same.
    let text = std::fs::read(&path).unwrap();
    let out2 = Command::cargo_bin("starry")
        .unwrap()
        .args(["rules", "replay", "starry-sky"])
        .write_stdin(text)
        .output()
        .unwrap();
    assert_eq!(out2.stdout, out.stdout);
    // The docs show every line, each `view` cut to `{…}`, and the error of
    // the example without its draws.
    let docs = docs_show_lines(&out.stdout);
    let mut broken = input.clone();
    broken["actions"][5]
        .as_object_mut()
        .unwrap()
        .remove("draws");
    let out = replay_value(&broken);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(states(&out).len(), 6);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(docs.contains(&err), "docs/referee.md does not show {err}");
}

#[test]
fn the_documented_starry_night_example_replays() {
    let path = root().join("examples/referee/starry-night.json");
    let input: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let out = replay_game("starry-night", &input);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = states(&out);
    let last = got.last().unwrap();
    assert_eq!(last["ending"]["kind"], "finished");
    assert_eq!(
        last["standings"][0]["seat"], 1,
        "the tie goes to the last mover"
    );
    docs_show_lines(&out.stdout);
    // An edge across the diagonal is refused with its reason.
    let mut crossing = input.clone();
    crossing["actions"][4]["move"] = serde_json::json!({"edge": [[4, 0], [0, 2]]});
    let out = replay_game("starry-night", &crossing);
    assert_eq!(out.status.code(), Some(20));
    assert_eq!(states(&out).len(), 5);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("actions[4]") && err.contains("would cross the edge A-D"),
        "{err}"
    );
}

/// The Star Map example of docs/referee.md replays to the lines the docs
/// show: every action after the first resolves the draw of the one before,
/// a disc scores its groups, and a bonus counts only under a star whose own
/// group scores.
#[test]
fn the_documented_star_map_example_replays() {
    let path = root().join("examples/referee/star-map.json");
    let input: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let out = replay_game("star-map", &input);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = states(&out);
    let actions = input["actions"].as_array().unwrap();
    assert_eq!(got.len(), actions.len() + 1);
    for (i, a) in actions.iter().enumerate().skip(1) {
        assert_eq!(a["draws"].as_array().unwrap().len(), 1);
        assert_eq!(a["draws"][0]["event"], i, "the draw of action {}", i - 1);
    }
    // Each placement asks for a draw, pending until the next seat's entry.
    for (i, s) in got[1..].iter().enumerate() {
        assert_eq!(s["pending"], json!([{"event": i + 1, "causer": i % 2}]));
        assert_eq!(s["view"]["pending"]["seat"], i % 2);
        assert_eq!(s["ending"], Value::Null);
    }
    let scored = |i: usize| got[i + 1]["view"]["last"]["scored"].clone();
    // Action 1: a red group of 5, and the +2 under its blue is lost though
    // the disc scored.
    assert_eq!(scored(1)["points"], 5);
    assert_eq!(
        scored(1)["bonuses"],
        json!([{"square": "i4", "points": 2, "earned": false}])
    );
    // Action 4: a white group of 4 with the +1 under its white; the +2
    // under its violet is lost.
    assert_eq!(scored(4)["points"], 5);
    let bonuses = scored(4)["bonuses"].as_array().unwrap().clone();
    assert!(bonuses.contains(&json!({"square": "e4", "points": 1, "earned": true})));
    assert!(bonuses.contains(&json!({"square": "d3", "points": 2, "earned": false})));
    assert_eq!(
        got.last().unwrap()["standings"],
        json!([{"seat": 0, "rank": 1, "score": 12}, {"seat": 1, "rank": 2, "score": 5}])
    );
    let docs = docs_show_lines(&out.stdout);
    // Without the draw of action 1: the first two lines, then its error.
    let mut broken = input.clone();
    broken["actions"][1]
        .as_object_mut()
        .unwrap()
        .remove("draws");
    let out = replay_game("star-map", &broken);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(states(&out).len(), 2);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(docs.contains(&err), "docs/referee.md does not show {err}");
    // Seat 1's two on h5, its blue next to seat 0's red: an illegal move.
    let mut mismatch = input.clone();
    mismatch["actions"][1]["move"] = json!({"place": {"disc": 31, "at": "h5", "rotation": 0}});
    let out = replay_game("star-map", &mismatch);
    assert_refused(
        &out,
        20,
        &[
            "actions[1]",
            "a blue star on h5 would touch a red star on h6",
            "(rule: match)",
        ],
    );
    assert_eq!(states(&out).len(), 2);
    // Seat 0 taking seat 1's turn: out of turn.
    let mut early = input.clone();
    early["actions"][1]["seat"] = json!(0);
    assert_refused(
        &replay_game("star-map", &early),
        19,
        &["actions[1]", "seat 1 must move"],
    );
    // A disc seat 1 does not hold.
    let mut stolen = input.clone();
    stolen["actions"][1]["move"]["place"]["disc"] = json!(9);
    assert_refused(
        &replay_game("star-map", &stolen),
        20,
        &["actions[1]", "is not in seat 1's hand", "(rule: hand)"],
    );
    // The docs name both refusals (their prose wraps anywhere).
    let prose = docs.split_whitespace().collect::<Vec<_>>().join(" ");
    for said in [
        "let seat 0 take action 1's turn and it is refused as out of turn (19)",
        "it is an illegal move (20, rule `match`)",
    ] {
        assert!(prose.contains(said), "docs/referee.md does not say {said}");
    }
}

/// Checks that docs/referee.md shows every line of a replay's output, each
/// `view` cut to `{…}`; returns the docs.
fn docs_show_lines(stdout: &[u8]) -> String {
    let docs = std::fs::read_to_string(root().join("docs/referee.md")).unwrap();
    for line in String::from_utf8_lossy(stdout).lines() {
        let cut = format!(
            "{},\"view\":{{…}}}}\n",
            &line[..line.find(",\"view\":").unwrap()]
        );
        assert!(docs.contains(&cut), "docs/referee.md does not show {cut}");
    }
    docs
}

/// Refused with `code`, one short paragraph on standard error that
/// mentions each of `mentions`, no panic and no raw control character.
fn assert_refused(out: &Output, code: i32, mentions: &[&str]) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "stderr: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.starts_with("error: "), "{err}");
    let body = err.strip_suffix('\n').unwrap_or(&err);
    assert!(!body.contains('\n'), "one paragraph: {err}");
    assert!(body.len() < 1000, "{} bytes: {err}", body.len());
    assert!(
        !body.chars().any(starry::text::is_unsafe),
        "raw control characters in {body:?}"
    );
    for m in mentions {
        assert!(err.contains(m), "`{m}` not mentioned in: {err}");
    }
}

/// The finished 3-player example as an input.
fn finished_input() -> Value {
    let log = root().join("examples/games/finished-3p-additive-coins.jsonl");
    convert::<StarrySky>(&std::fs::read(log).unwrap(), &example_homes()).input
}

/// The index of the first action for which `f` holds.
fn find(input: &Value, f: impl Fn(&Value) -> bool) -> usize {
    input["actions"]
        .as_array()
        .unwrap()
        .iter()
        .position(f)
        .expect("such an action")
}

#[test]
fn illegal_actions_are_refused_with_their_index_and_reason() {
    let base = finished_input();
    let has = |a: &Value, k: &str| a[k].as_array().is_some_and(|v| !v.is_empty());
    let mut cases: Vec<(String, Value, i32, Vec<String>)> = Vec::new();

    // Out of turn: the second action by the first one's seat.
    let mut i = base.clone();
    i["actions"][1]["seat"] = i["actions"][0]["seat"].clone();
    cases.push((
        "out of turn".into(),
        i,
        19,
        vec!["actions[1]".into(), "out of turn".into()],
    ));

    // A seat the game does not have.
    let mut i = base.clone();
    i["actions"][0]["seat"] = json!(7);
    cases.push((
        "no such seat".into(),
        i,
        19,
        vec!["actions[0]".into(), "seats 0 to 2".into()],
    ));

    // Illegal: the second move on the star the first one took.
    let mut i = base.clone();
    i["actions"][1]["move"]["star"] = i["actions"][0]["move"]["star"].clone();
    cases.push((
        "occupied star".into(),
        i,
        20,
        vec![
            "actions[1]".into(),
            "illegal move".into(),
            "star-occupied".into(),
        ],
    ));

    // A move the game cannot read is wrong input.
    let mut i = base.clone();
    i["actions"][2]["move"] = json!({"star": "ophiuchus:1", "token": "11"});
    cases.push(("unreadable move".into(), i, 2, vec!["actions[2]".into()]));

    // A missing draw, and an extra one.
    let k = find(&base, |a| has(a, "draws"));
    let mut i = base.clone();
    i["actions"][k]["draws"] = json!([]);
    cases.push((
        "missing draw".into(),
        i,
        2,
        vec![format!("actions[{k}]"), "draws".into(), "is pending".into()],
    ));
    let mut i = base.clone();
    i["actions"][0]["draws"] = json!([{"event": 0, "seed": "00".repeat(32)}]);
    cases.push((
        "extra draw".into(),
        i,
        2,
        vec!["actions[0]".into(), "event 0".into()],
    ));
    let mut i = base.clone();
    let d = i["actions"][k]["draws"][0].clone();
    i["actions"][k]["draws"].as_array_mut().unwrap().push(d);
    cases.push((
        "draw twice".into(),
        i,
        2,
        vec![format!("actions[{k}]"), "twice".into()],
    ));

    // Wrong reveals: a value nobody committed, one of another seat, one
    // opened twice, and the reveal set the rules do not ask for.
    let r = find(&base, |a| has(a, "reveal"));
    let mut i = base.clone();
    i["actions"][r]["reveal"][0] = json!({"entry": 999_999, "slot": 0});
    cases.push((
        "nothing committed".into(),
        i,
        17,
        vec![format!("actions[{r}]"), "entry 999999 slot 0".into()],
    ));
    let mut i = base.clone();
    let mine = i["actions"][r]["reveal"][0].clone();
    i["actions"][r]["reveal"].as_array_mut().unwrap().push(mine);
    cases.push((
        "opened twice".into(),
        i,
        17,
        vec![format!("actions[{r}]"), "revealed already".into()],
    ));
    let mut i = base.clone();
    i["actions"][r]["reveal"] = json!([]);
    cases.push((
        "reveal set".into(),
        i,
        17,
        vec![format!("actions[{r}]"), "reveal-set".into()],
    ));
    let other = find(&base, |a| {
        has(a, "hidden") && a["seat"] != base["actions"][r]["seat"] && {
            a["entry"].as_u64() < base["actions"][r]["entry"].as_u64()
        }
    });
    let mut i = base.clone();
    i["actions"][r]["reveal"][0] = json!({"entry": base["actions"][other]["entry"], "slot": 0});
    cases.push((
        "another seat's value".into(),
        i,
        17,
        vec![format!("actions[{r}]"), "belongs to seat".into()],
    ));
    // A face-down value the seat could not have held: four 10s.
    let mut i = base.clone();
    let seat = base["actions"][r]["seat"].clone();
    for a in i["actions"].as_array_mut().unwrap() {
        if a["seat"] == seat && has(a, "hidden") {
            a["hidden"] = json!(["10"]);
        }
    }
    cases.push((
        "impossible value".into(),
        i,
        18,
        vec!["could-not-hold".into()],
    ));

    // A move after the end of the game.
    let mut i = base.clone();
    let n = i["actions"].as_array().unwrap().len();
    let mut late = i["actions"][0].clone();
    late["entry"] = json!(100_000);
    i["actions"].as_array_mut().unwrap().push(late);
    cases.push((
        "after the end".into(),
        i,
        19,
        vec![format!("actions[{n}]"), "the game is over".into()],
    ));

    // A reveal when a move is due.
    let mut i = base.clone();
    i["actions"][0] = json!({"seat": 0, "reveal": [], "entry": base["actions"][0]["entry"]});
    cases.push((
        "reveal not due".into(),
        i,
        19,
        vec!["actions[0]".into(), "seat 0 must move".into()],
    ));

    for (what, input, code, mentions) in cases {
        let out = replay_value(&input);
        let m: Vec<&str> = mentions.iter().map(String::as_str).collect();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{what}: {err}");
        assert_refused(&out, code, &m);
        // Rule errors print the states before the refused action.
        if code != 2 || what.contains("draw") {
            let got = states(&out);
            let idx: usize = m[0]
                .trim_start_matches("actions[")
                .trim_end_matches(']')
                .parse()
                .unwrap_or(0);
            if m[0].starts_with("actions[") {
                assert_eq!(got.len(), idx + 1, "{what}");
            }
        }
        // And --json says which action was refused.
        let out = replay_stdin(
            "starry-sky",
            serde_json::to_vec(&input).unwrap(),
            &["--json"],
        );
        assert_eq!(out.status.code(), Some(code), "{what}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        if v.get("error").is_none() {
            assert_eq!(v["refused"]["code"], code, "{what}");
            if m[0].starts_with("actions[") {
                assert_eq!(
                    m[0],
                    format!("actions[{}]", v["refused"]["action"]),
                    "{what}"
                );
            }
        }
    }
}

#[test]
fn malformed_input_is_refused_naming_the_problem() {
    let good = r#"{"options":{"doubling":"additive","tie":"coins"},"seats":3,"setup":"0000000000000000000000000000000000000000000000000000000000000000","actions":[]}"#;
    let out = replay_stdin("starry-sky", good, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(states(&out).len(), 1);
    let with = |actions: &str| good.replace(r#""actions":[]"#, &format!(r#""actions":{actions}"#));
    let cases: Vec<(String, Vec<&str>)> = vec![
        ("{".into(), vec!["not valid JSON"]),
        ("[]".into(), vec!["not valid"]),
        (
            good.replace("\"seats\":3", "\"seats\":7"),
            vec!["seats is 7", "3 to 5"],
        ),
        (
            good.replace("\"seats\":3", "\"seats\":1e300"),
            vec!["seats"],
        ),
        (
            good.replace("\"seats\":3", "\"seats\":18446744073709551616"),
            vec!["seats"],
        ),
        (good.replace("\"seats\":3", "\"seats\":-1"), vec!["seats"]),
        (
            good.replace("\"tie\":\"coins\"", "\"tie\":\"dice\""),
            vec!["options"],
        ),
        (
            good.replace("\"tie\":\"coins\"", "\"colour\":1"),
            vec!["options", "colour"],
        ),
        (
            good.replace("{\"options\"", "{\"extra\":1,\"options\""),
            vec!["extra"],
        ),
        (
            with(r#"[{"seat":0,"move":{"star":"leo:1","token":"10"},"colour":1}]"#),
            vec!["actions[0]", "colour"],
        ),
        (
            with(r#"[{"seat":0}]"#),
            vec!["actions[0]", "exactly one of"],
        ),
        (
            with(r#"[{"seat":0,"resign":true,"reveal":[]}]"#),
            vec!["actions[0]", "`reveal` and `resign`"],
        ),
        (
            with(r#"[{"seat":0,"resign":false}]"#),
            vec!["actions[0]", "false"],
        ),
        (
            with(r#"[{"seat":0,"resign":true,"draws":[]}]"#),
            vec!["actions[0]", "draws"],
        ),
        (
            with(r#"[{"seat":0,"reveal":[],"hidden":["10"]}]"#),
            vec!["actions[0]", "`hidden` belongs to a move"],
        ),
        (
            with(r#"[{"seat":18446744073709551616,"resign":true}]"#),
            vec!["actions[0]"],
        ),
        (
            with(r#"[{"seat":0,"resign":true,"entry":5},{"seat":1,"resign":true,"entry":5}]"#),
            vec!["actions[1]", "strictly increasing"],
        ),
        (
            with(r#"[{"seat":0,"resign":true,"entry":0}]"#),
            vec!["actions[0]", "entry 0"],
        ),
        (
            with(
                r#"[{"seat":0,"resign":true,"entry":18446744073709551615},{"seat":0,"resign":true}]"#,
            ),
            vec!["actions[1]", "give `entry`"],
        ),
        (
            with(
                r#"[{"seat":0,"resign":true},{"seat":0,"move":{"star":"leo:1"},"hidden":["11"]}]"#,
            ),
            vec!["actions[1]"],
        ),
        (
            with(r#"[{"seat":0,"reveal":[],"draws":[{"event":0,"seed":"xyz"}]}]"#),
            vec!["actions[0]", "64 lower-case hex digits"],
        ),
        (
            with(r#"[{"seat":0,"reveal":[],"draws":[{"event":0,"seed":"00"}]}]"#),
            vec!["actions[0]", "64 lower-case hex digits"],
        ),
        (with(r#"{"seat":0}"#), vec!["actions", "array"]),
    ];
    for (input, mentions) in cases {
        let out = replay_stdin("starry-sky", input.clone(), &[]);
        assert_refused(&out, 2, &mentions);
        assert!(out.stdout.is_empty(), "{input}");
    }
    // An unknown field with a huge, hostile name is quoted short and escaped.
    let hostile = good.replace(
        "{\"options\"",
        &format!("{{\"\\u001b[2J{}\":1,\"options\"", "x".repeat(100_000)),
    );
    let out = replay_stdin("starry-sky", hostile, &[]);
    assert_refused(&out, 2, &["not valid"]);
    // Not UTF-8.
    let out = replay_stdin("starry-sky", b"{\"options\":\xff\x9b}".to_vec(), &[]);
    assert_refused(&out, 2, &["not UTF-8"]);
}

#[test]
fn a_bad_setup_seed_is_refused() {
    for setup in [
        "\"00\"".to_string(),
        format!("\"{}\"", "AB".repeat(32)),
        format!("\"{}\"", "g".repeat(64)),
        format!("\"{}\"", "0".repeat(65)),
        "12".to_string(),
        "null".to_string(),
    ] {
        let input = format!(r#"{{"options":{{}},"seats":3,"setup":{setup},"actions":[]}}"#);
        let out = replay_stdin("starry-sky", input, &[]);
        assert_refused(&out, 2, &["setup"]);
    }
    let input = r#"{"options":{},"seats":3,"actions":[]}"#;
    assert_refused(&replay_stdin("starry-sky", input, &[]), 2, &["setup"]);
}

#[test]
fn unknown_games_big_inputs_and_many_actions_are_refused() {
    // An unknown game, refused before standard input is read.
    let out = replay_stdin("chess", "{}", &[]);
    assert_refused(&out, 2, &["unknown game `chess`"]);
    // More than 16 MiB.
    let big = format!("{{\"options\":{{}},\"pad\":\"{}\"}}", "x".repeat(17 << 20));
    let out = replay_stdin("starry-sky", big, &[]);
    assert_refused(&out, 2, &["16777216 bytes"]);
    // More than 100000 actions.
    let one = r#"{"seat":0,"resign":true}"#;
    let many = vec![one; 100_001].join(",");
    let input = format!(
        r#"{{"options":{{}},"seats":3,"setup":"{}","actions":[{many}]}}"#,
        "0".repeat(64)
    );
    let out = replay_stdin("starry-sky", input, &[]);
    assert_refused(&out, 2, &["more than 100000 actions"]);
    // A file that does not exist.
    let out = Command::cargo_bin("starry")
        .unwrap()
        .args(["rules", "replay", "starry-sky", "/no/such/file.json"])
        .output()
        .unwrap();
    assert_refused(&out, 3, &["/no/such/file.json"]);
}

/// Random signed Starry Night games (random skies of 3 to 40 stars, one with
/// takebacks): `rules replay` reproduces the state after every entry, as the
/// log's replay has it.
#[test]
fn random_starry_night_games_replay_to_the_states_of_their_logs() {
    use starry::app::act::Do;
    use starry::app::demo::{act_as, new_table};
    use starry::games::Draw;
    use starry::games::starry_night::StarryNight;

    for (seed, count, grid, takebacks) in [(1u8, 3, 3, false), (2, 12, 10, true), (3, 40, 12, true)]
    {
        let dir = tempfile::tempdir().unwrap();
        let pairs = vec![
            ("random-stars".to_string(), count.to_string()),
            ("grid".to_string(), format!("{grid}x{grid}")),
        ];
        let mut draw = Draw::new([seed; 32]);
        let time = || "2026-11-20T12:00:00Z".to_string();
        let (players, log) =
            new_table::<StarryNight>(dir.path(), 2, &pairs, time(), &mut draw).unwrap();
        let mut asked = 0;
        loop {
            let r = Replay::<StarryNight>::from_bytes(&std::fs::read(&log).unwrap()).unwrap();
            let (_, who) = r.expected();
            let Some(who) = who else { break };
            let what = match &r.state {
                Some(s) if s.asking().is_some() => {
                    Do::Move(if asked % 2 == 0 { "accept" } else { "decline" }.into())
                }
                Some(s)
                    if takebacks
                        && s.drawn().len() >= 4
                        && s.drawn().len() % 5 == 0
                        && s.requests_left(who) > 0 =>
                {
                    asked += 1;
                    Do::Move("takeback".into())
                }
                _ => Do::Auto,
            };
            act_as::<StarryNight>(&log, &players, who, what, time(), &mut draw).unwrap();
        }
        let homes: Vec<PathBuf> = players.iter().map(|(h, _)| h.clone()).collect();
        let (_, got) = check_log(&log, &homes);
        assert_eq!(
            got.last().unwrap()["ending"],
            json!({"kind": "finished"}),
            "{count} stars"
        );
        if takebacks {
            assert!(asked > 0, "{count} stars: a takeback was asked for");
        }
    }
}

/// Random signed Star Map games of two, three and four players, on each kind
/// of map, one of them resigned by a seat whose partner then shares its
/// last place: `rules replay` reproduces the state after every entry, as
/// the log's replay has it.
#[test]
fn random_star_map_games_replay_to_the_states_of_their_logs() {
    use starry::app::act::Do;
    use starry::app::demo::{act_as, new_table};
    use starry::games::Draw;
    use starry::games::star_map::StarMap;

    for (seed, seats, map, resign_after) in [
        (1u8, 2, "hard", None),
        (2, 3, "mixed", None),
        (3, 4, "easy", None),
        (
            4,
            4,
            "1b 2s 3b 4s / 5s 6b 7s 8b / 9b 10s 11b 12s / 13s 14b 15s 16b",
            Some(9),
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let pairs = vec![("map".to_string(), map.to_string())];
        let mut draw = Draw::new([seed; 32]);
        let time = || "2026-11-20T12:00:00Z".to_string();
        let (players, log) =
            new_table::<StarMap>(dir.path(), seats, &pairs, time(), &mut draw).unwrap();
        let mut resigned = None;
        loop {
            let r = Replay::<StarMap>::from_bytes(&std::fs::read(&log).unwrap()).unwrap();
            let (_, who) = r.expected();
            let Some(who) = who else { break };
            let moves = r.state.as_ref().map_or(0, |s| s.history().len());
            let what = match resign_after {
                Some(n) if moves >= n && r.state.as_ref().is_some_and(|s| !s.is_over()) => {
                    resigned = Some(who);
                    Do::Resign
                }
                _ => Do::Auto,
            };
            act_as::<StarMap>(&log, &players, who, what, time(), &mut draw).unwrap();
        }
        let homes: Vec<PathBuf> = players.iter().map(|(h, _)| h.clone()).collect();
        let (c, got) = check_log(&log, &homes);
        let last = got.last().unwrap();
        let describes: Vec<&str> = got
            .iter()
            .map(|s| s["describe"].as_str().unwrap())
            .collect();
        match resigned {
            None => {
                assert_eq!(last["ending"], json!({"kind": "finished"}), "{seats} seats");
                assert!(got.len() > 20, "{seats} seats: a whole game");
                // Draws are given: every placement but the last few (once
                // the stacks are empty) asks for one.
                assert!(
                    c.input["actions"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .filter(|a| a["draws"].as_array().is_some_and(|d| !d.is_empty()))
                        .count()
                        > 10
                );
            }
            Some(who) => {
                assert_eq!(last["ending"], json!({"kind": "resigned", "seat": who}));
                assert_eq!(*describes.last().unwrap(), "resign");
                // The resigner and its partner share the last place.
                let rows = last["standings"].as_array().unwrap();
                let tail: Vec<u64> = rows[2..]
                    .iter()
                    .map(|r| r["seat"].as_u64().unwrap())
                    .collect();
                let mut want = vec![who as u64, ((who + 2) % 4) as u64];
                want.sort();
                let mut tail_sorted = tail.clone();
                tail_sorted.sort();
                assert_eq!(tail_sorted, want, "{rows:?}");
                assert_eq!(rows[2]["rank"], rows[3]["rank"]);
                assert_eq!(rows[2]["rank"], 2);
            }
        }
        if seats == 4 {
            assert_eq!(last["view"]["teams"].as_array().unwrap().len(), 2);
        }
    }
}
