//! Computer seats (`--players "…, computer:LEVEL"`), with the real binary:
//! a whole game of each game against the computer, driven by nothing but
//! `moves` and `play` (and the command `moves` names when the turn is no
//! move); none of the values a computer holds face down, and none of its
//! secrets, in anything the person sees before the log reveals them; and
//! a game by mail in which the computer seats, on their creator's machine,
//! play when `ingest` brings their turn, and the mails go on.

use starry::crypto::identity::Stored as _;
use std::path::{Path, PathBuf};

use serde_json::Value;
use starry::games::Game;

use crate::players::*;

/// The homes of the computer seats of `p`'s machine.
fn computer_homes(p: &Player) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(p.home.join("computers"))
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// What a computer seat holds face down now, as `play` would write it
/// (`7 leo:3`): from its own view, read with its own home.
fn face_down_of(computer: &Path, log: &Path) -> Vec<String> {
    let out = Player {
        name: "computer".into(),
        email: String::new(),
        home: computer.to_path_buf(),
        env: Vec::new(),
    }
    .json(&["view", log.to_str().unwrap(), "--json"]);
    stars(&out)
        .into_iter()
        .filter(|s| s["occupant"]["face"] == "face-down-own")
        .map(|s| {
            format!(
                "{} {}",
                s["occupant"]["token"].as_str().unwrap(),
                s["label"].as_str().unwrap()
            )
        })
        .collect()
}

/// Every secret of the computer seats of `p`'s machine, in every encoding.
fn computer_secrets<G: Game>(p: &Player, log: &[u8]) -> Vec<String> {
    let r = starry::log::Replay::<G>::from_bytes(log).unwrap();
    let mut out = Vec::new();
    for home in computer_homes(p) {
        let id = starry::crypto::identity::Identity::load(&home).unwrap();
        let seat = r
            .seat_of_key(&id.public_key())
            .expect("the computer joined");
        for s in secrets_in::<G>(&home, log, seat) {
            out.extend(encodings(&s));
        }
    }
    out
}

/// Everything the person saw of one command: its output and error text.
fn seen(o: &std::process::Output) -> String {
    format!("{}{}", stdout(o), stderr(o))
}

/// Plays a whole game of `game` as the one person at the table, against
/// the computer seats `players` names, with `moves` and `play` alone;
/// checks each command's output against what the computers hold face
/// down at that moment and against their secrets; returns the number of
/// the person's moves, the log and everything the person saw.
fn play_against_the_computer<G: Game>(players: &str, extra: &[&str]) -> (usize, Vec<u8>, Player) {
    let table = Players::new(1);
    let anna = &table.p[0];
    let log = table.dir.path().join("game.jsonl");
    let log_str = log.to_str().unwrap();
    let players = format!("{}, {players}", anna.email);
    let mut args = vec!["new", G::NAME, "--players", &players, "--out", log_str];
    args.extend_from_slice(extra);
    let created = anna.run(&args);
    assert!(created.status.success(), "{}", seen(&created));
    let mut outputs = vec![seen(&created)];
    let mut turns = 0;
    loop {
        let hidden: Vec<String> = computer_homes(anna)
            .iter()
            .flat_map(|c| face_down_of(c, &log))
            .collect();
        let v = anna.json(&["moves", log_str, "--json"]);
        let out = match v["action"].as_str().unwrap() {
            "over" => break,
            "move" => {
                assert_eq!(v["yours"], true, "the game waits for the person only: {v}");
                let listed = v["moves"].as_array().unwrap();
                assert!(!listed.is_empty(), "{v}");
                let pick = listed[(turns * 7) % listed.len()]["move"].as_str().unwrap();
                turns += 1;
                anna.run(&["play", log_str, pick])
            }
            // A reveal: `moves` lists nothing and names the command.
            action => {
                assert!(v["moves"].as_array().unwrap().is_empty(), "{v}");
                let hint = v["hint"].as_str().unwrap();
                assert!(hint.contains(&format!("run `starry {action} ")), "{hint}");
                anna.run(&[action, log_str])
            }
        };
        assert!(out.status.success(), "{}", seen(&out));
        let text = seen(&out);
        // What a computer held face down before this command, or placed
        // face down during it, stays out of what the person sees, unless
        // the log has turned it over since;
        // the person's view shows no value on a face-down token.
        let view = anna.json(&["view", log_str, "--json"]);
        let placed: Vec<String> = computer_homes(anna)
            .iter()
            .flat_map(|c| face_down_of(c, &log))
            .collect();
        // The picture (the PNG is drawn from this SVG) names a token's
        // value in its title, `… 7 on leo:3`, only where it may be seen.
        let svg = stdout(&anna.run(&["view", log_str, "--format", "svg"]));
        assert!(svg.contains("</svg>"), "{svg}");
        for h in hidden.iter().chain(&placed) {
            let (token, label) = h.split_once(' ').unwrap();
            let face = face_of(&view, label);
            if matches!(face.as_deref(), Some("face-up" | "revealed")) {
                continue;
            }
            assert!(!text.contains(h.as_str()), "`{h}` leaked into:\n{text}");
            let title = format!(" {token} on {label}</title>");
            assert!(!svg.contains(&title), "`{h}` leaked into the picture");
            if face.as_deref() == Some("face-down") {
                assert!(svg.contains(&format!("face-down token on {label}</title>")));
            }
        }
        for star in stars(&view) {
            if star["occupant"]["face"] == "face-down" {
                assert!(star["occupant"]["token"].is_null(), "{star}");
            }
        }
        assert!(!text.contains("The computer (level"), "{text}");
        outputs.push(text);
        assert!(turns < 200, "the game ends");
    }
    let bytes = std::fs::read(&log).unwrap();
    // Not one secret of a computer seat in anything the person saw.
    let secrets = computer_secrets::<G>(anna, &bytes);
    for text in &outputs {
        for s in &secrets {
            assert!(
                !text.contains(s.as_str()),
                "a computer's secret in:\n{text}"
            );
        }
    }
    // An ordinary signed log: the audit passes and names no computer.
    let audit = anna.run(&["audit", log_str]);
    assert!(audit.status.success(), "{}", seen(&audit));
    assert!(!stdout(&audit).to_lowercase().contains("computer seat"));
    (turns, bytes, anna.elsewhere(table.dir.path().join("keep")))
}

/// The stars of a Starry Sky view's JSON (none in the other games).
fn stars(view: &Value) -> Vec<&Value> {
    view["view"]["slots"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|s| s["board"]["stars"].as_array().into_iter().flatten())
        .collect()
}

/// How the token on the star `label` lies, in a view's JSON.
fn face_of(view: &Value, label: &str) -> Option<String> {
    stars(view)
        .into_iter()
        .find(|s| s["label"] == label)
        .and_then(|s| s["occupant"]["face"].as_str().map(str::to_string))
}

fn authors(log: &[u8]) -> std::collections::BTreeSet<u64> {
    log.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| {
            serde_json::from_slice::<Value>(l).unwrap()["body"]["author"]
                .as_u64()
                .unwrap()
        })
        .collect()
}

#[test]
fn a_whole_starry_sky_against_two_computers_with_moves_and_play_alone() {
    let (turns, log, _) = play_against_the_computer::<starry::games::starry_sky::StarrySky>(
        "computer:1, computer:1",
        &[],
    );
    assert!(turns >= 8, "{turns} moves");
    assert_eq!(authors(&log), [0, 1, 2].into());
}

#[test]
fn a_whole_star_map_against_the_computer_with_moves_and_play_alone() {
    let (turns, log, _) =
        play_against_the_computer::<starry::games::star_map::StarMap>("computer:1", &[]);
    assert!(turns >= 8, "{turns} moves");
    assert_eq!(authors(&log), [0, 1].into());
}

#[test]
fn a_whole_starry_night_against_the_computer_with_moves_and_play_alone() {
    let (turns, log, _) = play_against_the_computer::<starry::games::starry_night::StarryNight>(
        "computer:1",
        &["--stars", "0,0 4,0 0,2 4,2 8,5 6,7 2,6"],
    );
    assert!(turns >= 2, "{turns} moves");
    assert_eq!(authors(&log), [0, 1].into());
}

/// Takes in every mail in `from`'s outbox addressed to `to` (or to a tag
/// of `to`'s address, as a computer seat's is) that `to` has not taken in
/// yet; returns the addresses they were sent to.
fn deliver(
    from: &Player,
    to: &Player,
    done: &mut std::collections::HashSet<PathBuf>,
) -> Vec<String> {
    let (local, domain) = to.email.split_once('@').unwrap();
    let mut got = Vec::new();
    for eml in from.outbox() {
        let (addr, _, _) = mail_headers(&std::fs::read(&eml).unwrap());
        let for_to = addr == to.email
            || (addr.starts_with(&format!("{local}+")) && addr.ends_with(&format!("@{domain}")));
        if for_to && done.insert(eml.clone()) {
            let out = to.run(&["ingest", eml.to_str().unwrap()]);
            assert!(out.status.success(), "{}", seen(&out));
            got.push(addr);
        }
    }
    got
}

#[test]
fn by_mail_the_computer_plays_on_its_creators_machine_and_the_mails_go_on() {
    by_mail::<starry::games::star_map::StarMap>();
}

#[test]
fn by_mail_a_computers_face_down_token_stays_out_of_every_mail() {
    by_mail::<starry::games::starry_sky::StarrySky>();
}

/// A game of `G` by mail between Anna, Ben and a computer seat on Anna's
/// machine, played until the computer has moved twice.
fn by_mail<G: Game>() {
    let table = Players::new(2);
    let (anna, ben) = (&table.p[0], &table.p[1]);
    let players = format!("{}, {}, computer:1", anna.email, ben.email);
    let created = anna.json(&["new", G::NAME, "--players", &players, "--mail", "--json"]);
    let id = created["status"]["game_id"].as_str().unwrap()[..16].to_string();
    let computer_email = "anna+computer2@example.org";
    assert_eq!(created["status"]["seats"][2]["email"], computer_email);
    // Ben's invitation says whose machine plays the computer seat, and
    // what that person can do with it (issue 31).
    let invitation = anna.outbox();
    assert_eq!(invitation.len(), 1, "{invitation:?}");
    let text = mail_text(&std::fs::read(&invitation[0]).unwrap());
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        one_line.contains(
            "Computer (seat 2) is a computer that Anna's machine plays: Anna can see its \
             face-down tokens and signs its moves"
        ),
        "{text}"
    );
    let mut done = std::collections::HashSet::new();
    let mut to_computer = 0;
    let mut computer_moves = 0;
    for _ in 0..60 {
        // The post: every mail either has written reaches its reader,
        // including those that the other's taking in makes.
        loop {
            let to_ben = deliver(anna, ben, &mut done);
            let to_anna = deliver(ben, anna, &mut done);
            to_computer += to_anna.iter().filter(|a| *a == computer_email).count();
            if to_ben.is_empty() && to_anna.is_empty() {
                break;
            }
        }
        let copy = anna.copy_of(&hex_id(anna, &id));
        let log = std::fs::read(&copy).unwrap();
        computer_moves = log
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice::<Value>(l).unwrap())
            .filter(|e| e["body"]["author"] == 2 && e["body"]["kind"] == "move")
            .count();
        // In Starry Sky, on until the computer holds a token face down, so
        // that the mails are checked against one.
        let holds = G::NAME != "starry-sky"
            || computer_homes(anna)
                .iter()
                .any(|c| !face_down_of(c, &copy).is_empty());
        if computer_moves >= 2 && holds {
            break;
        }
        let s = anna.json(&["status", &id, "--json"]);
        let who = match s["to_act"].as_str().unwrap() {
            e if e == anna.email => anna,
            e if e == ben.email => ben,
            other => panic!("the game waits for {other}: the computer seat did not play"),
        };
        let action = s["action"].as_str().unwrap();
        let out = if action == "move" {
            let v = who.json(&["moves", &id, "--json"]);
            let pick = v["moves"][0]["move"].as_str().unwrap().to_string();
            who.run(&["play", &id, &pick, "--mail"])
        } else {
            who.run(&[action, &id, "--mail"])
        };
        assert!(out.status.success(), "{}", seen(&out));
    }
    assert!(
        computer_moves >= 2,
        "the computer moved {computer_moves} times"
    );
    let copy = anna.copy_of(&hex_id(anna, &id));
    if G::NAME == "starry-sky" {
        let held = computer_homes(anna)
            .iter()
            .flat_map(|c| face_down_of(c, &copy))
            .count();
        assert!(held > 0, "the computer placed no token face down");
    }
    // Ben's program mailed the computer's turns to its address, which is
    // Anna's mailbox; Anna's program never mails its own computer seat.
    assert!(
        to_computer >= 2,
        "{to_computer} mails reached the computer seat"
    );
    for eml in anna.outbox() {
        let (to, _, _) = mail_headers(&std::fs::read(&eml).unwrap());
        assert_ne!(to, computer_email);
        assert_ne!(to, anna.email);
    }
    // Both copies verify, and Ben's is Anna's up to what he was sent.
    assert!(
        anna.run(&["audit", copy.to_str().unwrap()])
            .status
            .success()
    );
    let theirs = std::fs::read(ben.copy_of(&hex_id(ben, &id))).unwrap();
    assert!(std::fs::read(&copy).unwrap().starts_with(&theirs));
    // No secret of the computer seat in any mail of either player.
    let secrets = computer_secrets::<G>(anna, &std::fs::read(&copy).unwrap());
    // What the computer holds face down (Starry Sky) is in no mail either,
    // in any part, decoded.
    let hidden: Vec<String> = computer_homes(anna)
        .iter()
        .flat_map(|c| face_down_of(c, &copy))
        .collect();
    for eml in anna.outbox().iter().chain(&ben.outbox()) {
        let text = mail_text(&std::fs::read(eml).unwrap());
        for h in &hidden {
            assert!(!text.contains(h.as_str()), "`{h}` in a mail:\n{text}");
        }
    }
    for eml in anna.outbox().iter().chain(&ben.outbox()) {
        let text = String::from_utf8_lossy(&std::fs::read(eml).unwrap()).to_string();
        for s in &secrets {
            assert!(!text.contains(s.as_str()), "a computer's secret in a mail");
        }
    }
}

/// The full id of the game whose id starts with `id16`, from `p`'s games.
fn hex_id(p: &Player, id16: &str) -> String {
    std::fs::read_dir(p.home.join("games"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .find(|n| n.starts_with(id16))
        .unwrap()
        .trim_end_matches(".jsonl")
        .to_string()
}

#[test]
fn a_strangers_game_that_pins_a_seat_to_a_computers_key_gets_nothing() {
    let table = Players::new(2);
    let (anna, ben) = (&table.p[0], &table.p[1]);
    // Anna's computer seat, made for a game of her own.
    let log = table.dir.path().join("anna.jsonl");
    let players = format!("{}, computer:1", anna.email);
    let out = anna.run(&[
        "new",
        "star-map",
        "--players",
        &players,
        "--out",
        log.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", seen(&out));
    let key = computer_homes(anna)[0]
        .file_name()
        .unwrap()
        .to_string_lossy()
        .to_string();
    // Ben pins a seat of his own game to that (public) key, and sends it.
    let theirs = table.dir.path().join("ben.jsonl");
    let players = format!(
        "{}, Computer <anna+computer1@example.org> key:{key}",
        ben.email
    );
    let out = ben.run(&[
        "new",
        "star-map",
        "--players",
        &players,
        "--out",
        theirs.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", seen(&out));
    let v = anna.json(&["ingest", theirs.to_str().unwrap(), "--json"]);
    // The game waits for that seat, and Anna's machine does not play it.
    assert_eq!(v["entries_after"], 2, "{v}");
    assert!(v["then"].is_null(), "{v}");
    assert_eq!(v["status"]["to_act_seat"], 1);
    let copy = anna.copy_of(v["game_id"].as_str().unwrap());
    assert_eq!(
        std::fs::read(copy).unwrap(),
        std::fs::read(&theirs).unwrap()
    );
    assert!(anna.outbox().is_empty(), "nothing was mailed for it");
}

/// Anna creates a Star Map game: her, a computer seat her machine plays
/// (seat 1), then `ben`; two seconds a move. The log's path.
fn anna_with_her_computer_and(table: &Players, ben: &Player) -> std::path::PathBuf {
    let anna = &table.p[0];
    let log = table.dir.path().join("game.jsonl");
    let players = format!("{}, computer:1, {}", anna.email, ben.email);
    let out = anna.run(&[
        "new",
        "star-map",
        "--players",
        &players,
        "--out",
        log.to_str().unwrap(),
        "--deadline",
        "2s",
    ]);
    assert!(out.status.success(), "{}", seen(&out));
    log
}

/// Plays the people's turns in a game [`anna_with_her_computer_and`] made
/// (each the first move `moves` lists) until `done(status, Ben's moves so
/// far)`. Who moves next is not assumed: it is the next seat that can place
/// (docs/star-map.md, *Whose turn*), and in about one game in 150 Anna's
/// hand fits nowhere at the start, so her computer moves first, right after
/// her `ready`, and the game waits for Ben. A turn of the computer that came
/// after Ben's move (Anna could not place) is played when her machine next
/// takes the log in.
fn play_people_until(table: &Players, log: &str, done: impl Fn(&Value, usize) -> bool) {
    let (anna, ben) = (&table.p[0], &table.p[1]);
    let mut ben_moved = 0;
    for _ in 0..20 {
        let s = anna.json(&["status", log, "--json"]);
        if done(&s, ben_moved) {
            return;
        }
        let p = match s["to_act_seat"].as_u64() {
            Some(0) => anna,
            Some(1) => {
                let v = anna.json(&["ingest", log, "--into", log, "--json"]);
                assert_eq!(v["then"][0]["seat"], 1, "{v}");
                continue;
            }
            Some(2) => {
                ben_moved += 1;
                ben
            }
            _ => panic!("the game waits for no move: {s}"),
        };
        let v = p.json(&["moves", log, "--json"]);
        let pick = v["moves"][0]["move"]
            .as_str()
            .unwrap_or_else(|| panic!("{}: {v}", p.name))
            .to_string();
        let out = p.run(&["play", log, &pick]);
        assert!(out.status.success(), "{}", seen(&out));
    }
    panic!("twenty turns and the game never reached the position wanted");
}

#[test]
fn the_computer_joins_its_persons_claim_that_a_player_stopped_answering() {
    let table = Players::new(2);
    let (anna, ben) = (&table.p[0], &table.p[1]);
    let log = anna_with_her_computer_and(&table, ben);
    let log_str = log.to_str().unwrap();
    // Ben joins and gets ready first (the last seat readies first); then
    // Anna's ready has the computer's ready written before it.
    for p in [ben, ben, anna] {
        let s = anna.json(&["status", log_str, "--json"]);
        let action = s["action"].as_str().unwrap().to_string();
        let out = p.run(&[&action, log_str]);
        assert!(out.status.success(), "{}: {}", p.name, seen(&out));
    }
    // Anna moves (when she can place), the computer answers, and the game
    // waits for Ben.
    play_people_until(&table, log_str, |s, _| s["to_act_seat"] == 2);
    let s = anna.json(&["status", log_str, "--json"]);
    assert_eq!(s["to_act"], ben.email.as_str(), "{s}");
    std::thread::sleep(std::time::Duration::from_millis(3100));
    // Anna claims; her computer seat claims with her, which settles it.
    let v = anna.json(&["abandon", log_str, "--yes", "--json"]);
    let then = v["then"].as_array().unwrap();
    assert_eq!(then[0]["kind"], "abandon", "{v}");
    assert_eq!(then[0]["seat"], 1, "{v}");
    assert_eq!(v["status"]["over"], true, "{v}");
    let audit = anna.json(&["audit", log_str, "--json"]);
    assert_eq!(audit["valid"], true, "{audit}");
    assert_eq!(audit["files"][0]["ending"]["how"], "abandoned", "{audit}");
}

/// Issue 31: a claim against a person needs no claim of the computer
/// seats that person's machine plays (they are her own, and never claim
/// against her). The genesis names the operator, status shows it, and
/// another player's claim alone ends the game.
#[test]
fn a_claim_against_the_creator_needs_no_claim_of_her_own_computer() {
    let table = Players::new(2);
    let (anna, ben) = (&table.p[0], &table.p[1]);
    let log = anna_with_her_computer_and(&table, ben);
    let log_str = log.to_str().unwrap();
    // Everyone can see who runs the computer seat.
    let s = ben.json(&["status", log_str, "--json"]);
    assert_eq!(s["seats"][1]["operator"], 0, "{s}");
    assert!(s["seats"][0].get("operator").is_none(), "{s}");
    assert!(s["seats"][2].get("operator").is_none(), "{s}");
    let out = ben.run(&["status", log_str]);
    let text = stdout(&out);
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        one_line.contains("Anna can see its face-down tokens and signs its moves"),
        "{text}"
    );
    assert!(text.contains("a computer on Anna's machine"), "{text}");
    for p in [ben, ben, anna] {
        let s = anna.json(&["status", log_str, "--json"]);
        let action = s["action"].as_str().unwrap().to_string();
        let out = p.run(&[&action, log_str]);
        assert!(out.status.success(), "{}: {}", p.name, seen(&out));
    }
    // Anna moves, her computer answers, Ben moves: the game waits for Anna.
    play_people_until(&table, log_str, |s, ben_moved| {
        ben_moved > 0 && s["to_act_seat"] == 0
    });
    let s = ben.json(&["status", log_str, "--json"]);
    assert_eq!(s["to_act_seat"], 0, "{s}");
    std::thread::sleep(std::time::Duration::from_millis(3100));
    // Ben's claim alone ends it: the computer is Anna's own side.
    let v = ben.json(&["abandon", log_str, "--yes", "--json"]);
    assert_eq!(v["status"]["over"], true, "{v}");
    let audit = ben.json(&["audit", log_str, "--json"]);
    assert_eq!(audit["valid"], true, "{audit}");
    assert_eq!(audit["files"][0]["ending"]["how"], "abandoned", "{audit}");
    assert_eq!(audit["files"][0]["ending"]["seat"], 0, "{audit}");
}
