//! Starry Night by e-mail (the outbox transport, no server): every turn mail
//! names the exact next command for the position — the choice of the first
//! player, an edge, the answer to a takeback — carries the drawing of the
//! sky (in the text, and as a picture in the HTML), and is ingested by its
//! recipient; when a player moves twice in a row the other gets a report.
//! Every mail is threaded, carries the entries its recipient lacks and no
//! secret. Both copies end equal and audit.

use crate::players;

use players::*;
use serde_json::Value;
use starry::games::starry_night::StarryNight;

#[test]
fn a_whole_starry_night_game_by_mail() {
    let players = Players::new(2);
    let ps = &players.p;
    let v = ps[0].json(&[
        "new",
        "starry-night",
        "--players",
        &players.emails(),
        "--random-stars",
        "8",
        "--grid",
        "6x6",
        "--mail",
        "--json",
    ]);
    let game_id = v["status"]["game_id"].as_str().unwrap().to_string();
    let id16 = game_id[..16].to_string();
    let mut delivered = [0usize; 2];
    let mut writer = 0;
    let mut seen = std::collections::BTreeSet::new();
    let mut asked = false;
    let mut reports = 0;
    let mut pictures = 0;
    for _ in 0..200 {
        // The writer's new mails, delivered and checked.
        let log = std::fs::read(ps[writer].copy_of(&game_id)).unwrap();
        let files = ps[writer].outbox();
        for f in &files[delivered[writer]..] {
            let eml = std::fs::read(f).unwrap();
            let mail = parse_mail(&eml);
            let r = check_any_mail::<StarryNight>(&players, &mail, &log, &game_id);
            // After the setup (genesis, two joins, two readies) every mail
            // draws the sky.
            let entries = log.iter().filter(|&&b| b == b'\n').count();
            assert_eq!(mail.png.is_some(), entries >= 5, "entries {entries}");
            if mail.png.is_some() {
                pictures += 1;
            }
            let text = &mail.text;
            let file = ps[r].home.join("turn.eml");
            std::fs::write(&file, &eml).unwrap();
            ps[r].json(&["ingest", file.to_str().unwrap(), "--json"]);
            assert_eq!(std::fs::read(ps[r].copy_of(&game_id)).unwrap(), log);
            let status = ps[r].json(&["status", &id16, "--json"]);
            if status["over"] == true {
                assert!(mail.flat_text().contains("is over."), "{text}");
                assert!(
                    text.contains(&format!("starry countersign {id16} --mail")),
                    "{text}"
                );
                continue;
            }
            if status["to_act"] != ps[r].email.as_str() {
                // The writer moves again: a report.
                assert!(
                    mail.flat_text().contains(&format!(
                        "Nothing to do for you now in Starry Night {}",
                        &id16[..8]
                    )),
                    "{text}"
                );
                reports += 1;
                continue;
            }
            let view = ps[r].json(&["view", &id16, "--json"]);
            let must = view["view"]["turn"]["must"].as_str().map(str::to_string);
            let cmd = match (status["action"].as_str().unwrap(), must.as_deref()) {
                ("move", Some("choose-first")) => format!("starry play {id16} \"first 0\" --mail"),
                ("move", Some("answer-takeback")) => {
                    format!("starry play {id16} \"accept\" --mail")
                }
                ("move", _) => format!("starry play {id16} \"EDGE\" --mail"),
                (a, _) => format!("starry {a} {id16} --mail"),
            };
            assert!(text.contains(&cmd), "no `{cmd}` in:\n{text}");
            if let Some(m) = must {
                seen.insert(m);
                // The drawing of the sky is in the mail.
                assert!(text.contains("  0  "), "no drawing in:\n{text}");
            }
        }
        delivered[writer] = files.len();
        let status = ps[writer].json(&["status", &id16, "--json"]);
        if status["over"] == true {
            break;
        }
        let who = players.seat_of(status["to_act"].as_str().unwrap());
        let view = ps[who].json(&["view", &id16, "--json"]);
        // Once, the second player asks for a takeback.
        let edges = view["view"]["edges"].as_array().map_or(0, Vec::len);
        let mv = if !asked && who == 1 && edges >= 3 && status["action"] == "move" {
            asked = true;
            vec!["play", &id16, "takeback", "--mail"]
        } else {
            vec!["play", &id16, "--auto", "--mail"]
        };
        let out = ps[who].run(&mv);
        assert!(out.status.success(), "{}", stderr(&out));
        writer = who;
    }
    for m in ["choose-first", "draw-edge", "answer-takeback"] {
        assert!(seen.contains(m), "a mail asked to {m}: {seen:?}");
    }
    // At least one mail per edge, and no star left alone takes 6 of them.
    assert!(pictures >= 6, "{pictures} mails with a picture");
    eprintln!("{reports} reports");
    let a = ps[0].copy_of(&game_id);
    let b = ps[1].copy_of(&game_id);
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let audit: Value = ps[1].json(&["audit", a.to_str().unwrap(), "--json"]);
    assert_eq!(audit["valid"], true);
    assert_eq!(audit["files"][0]["over"], true);
}
