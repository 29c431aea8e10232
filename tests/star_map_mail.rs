//! Star Map by e-mail (the outbox transport, no server): three players, from
//! `new --mail` to the end. Every turn mail names the exact next command
//! for the position — join, ready, a placement, or `pass` when the player
//! has no legal placement — and carries the drawing of the map (in the text,
//! and as a picture in the HTML); every other player gets a report. Every
//! mail is threaded, carries the entries its recipient lacks and no
//! secret; each is ingested by its recipient, and all copies end equal and
//! audit.

use crate::common;
use crate::players;

use std::collections::BTreeSet;

use common::validator;
use players::*;
use serde_json::Value;
use starry::games::star_map::StarMap;

/// Plays a game made by `new GAME --players (everyone) EXTRA --mail` to its
/// end by mail: each mail is ingested by its recipient and checked; the
/// player to act runs the command its mail names when the mail gives it
/// whole (join, ready, pass), else `play --auto --mail`. Returns what the
/// mails asked for; all copies end equal and audit.
fn play_by_mail(players: &Players, extra: &[&str]) -> BTreeSet<String> {
    let ps = &players.p;
    let n = ps.len();
    let ingest_schema = validator("star-map-ingest.json");
    let emails = players.emails();
    let mut args = vec!["new", "star-map", "--players", &emails];
    args.extend_from_slice(extra);
    args.extend(["--mail", "--json"]);
    let v = ps[0].json(&args);
    let game_id = v["status"]["game_id"].as_str().unwrap().to_string();
    let id16 = game_id[..16].to_string();
    let mut delivered = vec![0usize; n];
    let mut writer = 0;
    let mut seen = BTreeSet::new();
    let mut over = false;
    for _ in 0..400 {
        // The writer's new mails, delivered and checked.
        let log = std::fs::read(ps[writer].copy_of(&game_id)).unwrap();
        let files = ps[writer].outbox();
        let mut exact: Option<(usize, String)> = None;
        for f in &files[delivered[writer]..] {
            let eml = std::fs::read(f).unwrap();
            let mail = parse_mail(&eml);
            assert_eq!(mail.from, ps[writer].email);
            let r = check_any_mail::<StarMap>(players, &mail, &log, &game_id);
            let text = mail.text.clone();
            let subject = mail.subject.clone();
            let file = ps[r].home.join("turn.eml");
            std::fs::write(&file, &eml).unwrap();
            let ingested = ps[r].json(&["ingest", file.to_str().unwrap(), "--json"]);
            assert!(
                ingest_schema.is_valid(&ingested),
                "{:?}",
                ingest_schema
                    .iter_errors(&ingested)
                    .map(|e| format!("{e} at {}", e.instance_path()))
                    .collect::<Vec<_>>()
            );
            let status = ps[r].json(&["status", &id16, "--json"]);
            assert_eq!(std::fs::read(ps[r].copy_of(&game_id)).unwrap(), log);
            if status["over"] == true {
                assert!(subject.starts_with("Re: "), "{subject}");
                assert!(
                    mail.flat_text()
                        .contains(&format!("Star Map {} is over.", &id16[..8])),
                    "{text}"
                );
                assert!(
                    text.contains(&format!("starry countersign {id16} --mail")),
                    "{text}"
                );
                seen.insert("over".to_string());
                continue;
            }
            let action = status["action"].as_str().unwrap();
            if status["to_act"] != ps[r].email.as_str() {
                // Someone else must act: the mail only keeps the copy up to
                // date.
                assert!(subject.starts_with("Re: "), "{subject}");
                assert!(text.contains("Nothing to do for you now"), "{text}");
                seen.insert("info".to_string());
                continue;
            }
            let view = ps[r].json(&["view", &id16, "--json"]);
            let (cmd, whole) = match action {
                "move" if view["view"]["placements"] == 0 => {
                    seen.insert("pass".to_string());
                    (format!("starry play {id16} \"pass\" --mail"), true)
                }
                "move" => {
                    seen.insert("place".to_string());
                    (
                        format!("starry play {id16} \"DISC SQUARE ROTATION\" --mail"),
                        false,
                    )
                }
                a => {
                    seen.insert(a.to_string());
                    (format!("starry {a} {id16} --mail"), true)
                }
            };
            assert!(
                mail.flat_text().contains(&format!(
                    "It is your turn in Star Map {}: {}.",
                    &id16[..8],
                    match action {
                        "join" => "please join the game",
                        "ready" => "please send your ready (setup randomness)",
                        _ => "your move",
                    }
                )),
                "{text}"
            );
            assert!(text.contains(&cmd), "no `{cmd}` in:\n{text}");
            if whole {
                exact = Some((r, cmd));
            }
            if action == "move" {
                // The map is drawn in the mail, with the stacks and hands.
                assert!(text.contains("Star Map"), "{text}");
                assert!(text.contains("    +-------"), "no map in:\n{text}");
                assert!(text.contains("Stacks: corner "), "{text}");
                assert!(text.contains("Hands (discs drawn unturned"), "{text}");
            }
        }
        delivered[writer] = files.len();
        let status = ps[writer].json(&["status", &id16, "--json"]);
        if status["over"] == true {
            over = true;
            break;
        }
        let who = players.seat_of(status["to_act"].as_str().unwrap());
        let out = match exact {
            Some((r, cmd)) if r == who => {
                // `starry play ID "pass" --mail`, as the mail says it.
                let words: Vec<String> = cmd
                    .split_whitespace()
                    .skip(1)
                    .map(|w| w.trim_matches('"').to_string())
                    .collect();
                let words: Vec<&str> = words.iter().map(String::as_str).collect();
                ps[who].run(&words)
            }
            _ => ps[who].run(&["play", &id16, "--auto", "--mail"]),
        };
        assert!(out.status.success(), "{}", stderr(&out));
        writer = who;
    }
    assert!(over, "the game ended");
    // Whoever wrote the last entry has the final copy; everyone it mailed
    // has the same bytes.
    let last = std::fs::read(ps[writer].copy_of(&game_id)).unwrap();
    for p in ps {
        let copy = p.copy_of(&game_id);
        assert_eq!(std::fs::read(&copy).unwrap(), last, "{}'s copy", p.name);
        let audit: Value = p.json(&["audit", copy.to_str().unwrap(), "--json"]);
        assert_eq!(audit["valid"], true);
        assert_eq!(audit["files"][0]["over"], true);
        assert_eq!(audit["files"][0]["standings"].as_array().unwrap().len(), n);
    }
    seen
}

#[test]
fn a_whole_star_map_game_by_mail() {
    let players = Players::new(3);
    let seen = play_by_mail(&players, &["--map", "mixed"]);
    for m in ["join", "ready", "place", "over"] {
        assert!(seen.contains(m), "a mail asked to {m}: {seen:?}");
    }
}

/// On a map of meteorites with discs of red stars only, the first player
/// fills the one free centre square and the second must pass: its mail
/// says `pass`, and its pass (which draws the first player's disc) ends the
/// game.
#[test]
fn a_pass_by_mail() {
    let players = Players::new(2);
    let dir = players.dir.path();
    let root =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/core/src/games/star_map");
    let mut parts: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("parts.json")).unwrap()).unwrap();
    for p in parts["parts"].as_array_mut().unwrap() {
        p["symbols"] = serde_json::json!(["# # #", "# # #", "# # #"]);
    }
    let mut discs: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("discs.json")).unwrap()).unwrap();
    for d in discs["discs"].as_array_mut().unwrap() {
        let n = d["fields"].as_str().unwrap().len();
        d["fields"] = Value::from("R".repeat(n));
    }
    let (pf, df) = (dir.join("parts.json"), dir.join("discs.json"));
    std::fs::write(&pf, parts.to_string()).unwrap();
    std::fs::write(&df, discs.to_string()).unwrap();
    let seen = play_by_mail(
        &players,
        &[
            "--map",
            "hard",
            "--parts",
            pf.to_str().unwrap(),
            "--discs",
            df.to_str().unwrap(),
        ],
    );
    // (Anna writes the last ready and her placement in one sitting: no
    // mail asks her to place.)
    for m in ["join", "ready", "pass", "over"] {
        assert!(seen.contains(m), "a mail asked to {m}: {seen:?}");
    }
}
