//! The ops driven through [`crate::call`]'s JSON, as the page drives them.

use serde_json::{Value, json};
use starry_core::crypto::identity::Identity;
use starry_core::games::prelude::*;
use starry_core::games::starry_night::StarryNight;
use starry_core::games::starry_sky::StarrySky;
use starry_core::games::title_of;
use starry_core::log::entry::SeatInfo;
use starry_core::log::write::{self, Setup, Writer};
use starry_core::log::{Action, Replay};

const URL: &str = "https://example.org/starry/";

fn call(req: Value) -> Value {
    serde_json::from_slice(&crate::call(req.to_string().as_bytes())).expect("a JSON reply")
}

fn ok(req: Value) -> Value {
    let reply = call(req.clone());
    match reply.get("ok") {
        Some(v) => v.clone(),
        None => panic!("{} refused: {}", req["op"], reply["error"]),
    }
}

fn refused(req: Value) -> String {
    let reply = call(req.clone());
    match reply.get("error").and_then(Value::as_str) {
        Some(e) => e.to_string(),
        None => panic!("{} was not refused: {reply}", req["op"]),
    }
}

fn time(n: u64) -> String {
    format!(
        "2026-11-23T{:02}:{:02}:{:02}Z",
        10 + n / 3600,
        n / 60 % 60,
        n % 60
    )
}

fn random(n: u64) -> String {
    format!("{:064x}", n * 7919 + 13)
}

/// One player of the test: their identity file and their browser's store.
struct Player {
    file: String,
    email: String,
    log: Option<String>,
    joined: Option<String>,
}

/// Anna creates a game of `G` for herself and `n - 1` others (the web
/// player creates no games: `starry new` does); her identity is read from
/// its file, Ben's made by `identity_new`.
fn table<G: Game>(n: usize) -> (Vec<Player>, String) {
    let anna = Identity::from_master_secret("Anna", "anna@example.org", [1; 32]);
    let read = ok(json!({"op": "identity_read", "file": anna.file_text()}));
    assert_eq!(read["email"], "anna@example.org");
    let ben = ok(
        json!({"op": "identity_new", "name": "Ben", "email": "ben@example.org",
        "random": random(99)}),
    );
    let ben = Identity::from_file("b".into(), ben["file"].as_str().unwrap().as_bytes()).unwrap();
    let cleo = Identity::from_master_secret("Cleo", "cleo@example.org", [3; 32]);
    let ids = [anna, ben, cleo];
    let setup = Setup {
        seats: ids[..n].iter().map(SeatInfo::of).collect(),
        pairs: &[],
        extra: None,
    };
    let genesis = write::genesis::<G>(&ids[0], setup, Some(86_400), time(0), [7; 32]).unwrap();
    let players = ids[..n]
        .iter()
        .map(|id| Player {
            file: id.file_text(),
            email: id.email.clone(),
            log: None,
            joined: None,
        })
        .collect();
    (players, String::from_utf8(genesis).unwrap())
}

/// Takes `input` into `p`'s store as the page does: `game_of`, then
/// `receive` with the kept copy.
fn take(p: &mut Player, input: &str) -> Value {
    let game = ok(json!({"op": "game_of", "input": input}))["game"].clone();
    let got = ok(json!({"op": "receive", "input": input, "stored": p.log}));
    assert_eq!(got["game"], game);
    p.log = Some(got["log"].as_str().unwrap().into());
    got
}

/// The form the seat's turn asks for, the move being the first legal one.
fn fields<G: Game>(log: &str, id: &Identity, n: u64) -> Value {
    let r = Replay::<G>::from_bytes(log.as_bytes()).unwrap();
    let (action, _) = r.expected();
    let what = match action {
        Action::Join => "join",
        Action::Ready => "ready",
        Action::Reveal => "reveal",
        Action::Over => "countersign",
        Action::Move => {
            let w = Writer::new(&r, id, time(n)).unwrap();
            let at = w.position().unwrap();
            let first = G::intents(&at.state, at.seat, &at.own).remove(0);
            return json!({"what": "play", "move": first.to_string(), "entries": r.len()});
        }
    };
    json!({"what": what, "entries": r.len().to_string()})
}

/// A whole game of `G` between `n` browsers, every entry written by
/// `act` and carried to the others by the mail it offers (alternately its
/// armored block and its player link) through `receive`.
fn whole_game<G: Game>(n: usize) {
    let (mut players, genesis) = table::<G>(n);
    let ids: Vec<Identity> = players
        .iter()
        .map(|p| Identity::from_file("x".into(), p.file.as_bytes()).unwrap())
        .collect();
    players[0].log = Some(genesis.clone());
    // The others open the invitation's .jsonl.
    for p in &mut players[1..] {
        assert_eq!(take(p, &genesis)["added"], 1);
    }
    let mut mails = 0;
    for step in 1..5000u64 {
        let anna_log = players[0].log.clone().unwrap();
        let r = Replay::<G>::from_bytes(anna_log.as_bytes()).unwrap();
        let seat = match r.expected() {
            (Action::Over, _) => match (0..n).find(|s| !r.countersigned.contains(s)) {
                Some(s) => s,
                None => break,
            },
            (_, Some(s)) => s,
            (a, None) => panic!("nobody to {a:?}"),
        };
        let me = &players[seat];
        let log = me.log.clone().expect("the player holds the game");
        // The page shows the game before every entry, without a refusal.
        let page = ok(
            json!({"op": "page", "log": log, "identity": me.file, "query": "",
            "now": time(step)}),
        );
        assert!(
            page["html"].as_str().unwrap().contains("<form"),
            "an action is offered"
        );
        let done = ok(json!({"op": "act", "log": log, "identity": me.file,
            "fields": fields::<G>(&log, &ids[seat], step), "now": time(step),
            "random": random(step), "joined": me.joined, "player_url": URL}));
        let me = &mut players[seat];
        assert_eq!(done["entry"], r.len());
        assert!(
            done["log"]
                .as_str()
                .unwrap()
                .ends_with(done["new"].as_str().unwrap())
        );
        me.log = Some(done["log"].as_str().unwrap().into());
        if let Some(j) = done["joined"].as_str() {
            me.joined = Some(j.into());
        }
        let send = &done["send"];
        if send.is_null() {
            continue;
        }
        mails += 1;
        let body = send["body"].as_str().unwrap();
        assert!(send["mailto"].as_str().unwrap().starts_with("mailto:"));
        assert!(
            send["subject"]
                .as_str()
                .unwrap()
                .contains(&format!("[starry] {}", title_of(G::NAME)))
        );
        for id in &ids {
            let file: Value = serde_json::from_str(&id.file_text()).unwrap();
            let secret = file["secret"].as_str().unwrap();
            assert!(!body.contains(secret) && !send["mailto"].as_str().unwrap().contains(secret));
        }
        // Alternately by the armored block in the mail and by its link.
        let input = if mails % 2 == 0 {
            body.to_string()
        } else {
            body.lines()
                .find(|l| l.starts_with(URL))
                .expect("a player link")
                .to_string()
        };
        let to: Vec<String> = serde_json::from_value(send["to"].clone()).unwrap();
        assert!(
            !to.contains(&players[seat].email),
            "nobody mails themselves"
        );
        for p in players.iter_mut().filter(|p| to.contains(&p.email)) {
            take(p, &input);
        }
    }
    let logs: Vec<String> = players.iter().map(|p| p.log.clone().unwrap()).collect();
    assert!(
        logs.iter().all(|l| *l == logs[0]),
        "the copies end identical"
    );
    let r = Replay::<G>::from_bytes(logs[0].as_bytes()).unwrap();
    assert!(r.is_over());
    assert_eq!(r.countersigned.len(), n);
    let games = ok(
        json!({"op": "games", "games": {hex::encode(r.game_id): logs[0]},
        "identity": players[0].file}),
    );
    assert_eq!(games["games"][0]["over"], true);
    assert_eq!(games["games"][0]["players"].as_array().unwrap().len(), n);
}

#[test]
fn a_whole_game_of_starry_sky_between_three_browsers_through_call_json() {
    whole_game::<StarrySky>(3);
}

#[test]
fn a_whole_game_of_starry_night_between_two_browsers_through_call_json() {
    whole_game::<StarryNight>(2);
}

#[test]
fn a_damaged_link_a_fork_and_a_gap_are_refused() {
    let (mut players, genesis) = table::<StarryNight>(2);
    take(&mut players[1], &genesis);
    let kept = players[1].log.clone();
    let link = starry_core::link::link_of(URL, genesis.as_bytes());
    let cut = format!("{}%{}", &link[..link.len() - 10], &link[link.len() - 9..]);
    let e = refused(json!({"op": "receive", "input": cut, "stored": kept}));
    assert!(e.contains("damaged"), "{e}");

    // Anna's join, and her join with another nonce (a second browser of
    // hers): two different entries at position 1 are a fork.
    let anna = &players[0];
    let done = ok(json!({"op": "act", "log": genesis, "identity": anna.file,
        "fields": {"what": "join"}, "now": time(1), "random": random(1), "joined": null}));
    let entries = done["new"].as_str().unwrap().to_string();
    // The same seat's join with another nonce: two entries at position 1.
    let other = ok(json!({"op": "act", "log": genesis, "identity": anna.file,
        "fields": {"what": "join"}, "now": time(1), "random": random(2), "joined": null}));
    let forked = format!("{genesis}{}", other["new"].as_str().unwrap());
    let e = refused(json!({"op": "receive", "input": entries, "stored": forked}));
    assert!(e.contains("fork"), "{e}");

    // Entries after a gap.
    let e = refused(json!({"op": "receive", "input": entries, "stored": null}));
    assert!(e.contains("no copy of the game"), "{e}");
    // A damaged armored block names its line.
    let block = starry_core::armor::armor(genesis.as_bytes());
    let e =
        refused(json!({"op": "receive", "input": block.replacen("\n", "\n#", 2), "stored": null}));
    assert!(e.contains("damaged on line"), "{e}");
    // A tampered entry fails the audit's replay.
    let tampered = genesis.replacen("Anna", "Anne", 1);
    let e = refused(json!({"op": "receive", "input": tampered, "stored": null}));
    assert!(e.contains("does not verify"), "{e}");
}

#[test]
fn the_wrong_identity_a_stale_copy_and_a_second_join_are_refused() {
    let (players, genesis) = table::<StarryNight>(2);
    let cleo = Identity::from_master_secret("Cleo", "cleo@example.org", [3; 32]);
    let e = refused(
        json!({"op": "act", "log": genesis, "identity": cleo.file_text(),
        "fields": {"what": "join"}, "now": time(1), "random": random(1), "joined": null}),
    );
    assert!(e.contains("no seat"), "{e}");
    assert!(!e.contains("secret"), "{e}");
    let anna = &players[0];
    let e = refused(json!({"op": "act", "log": genesis, "identity": anna.file,
        "fields": {"what": "join", "entries": "3"}, "now": time(1), "random": random(1)}));
    assert!(e.contains("moved on"), "{e}");
    // A log dated ahead of the device's clock: its claims could come early.
    let e = refused(json!({"op": "act", "log": genesis, "identity": anna.file,
        "fields": {"what": "join"}, "now": "2026-11-23T09:00:00Z", "random": random(1)}));
    assert!(e.contains("ahead of this device's clock"), "{e}");
    // A join kept from another copy is not written again at another point.
    let first = ok(json!({"op": "act", "log": genesis, "identity": anna.file,
        "fields": {"what": "join"}, "now": time(1), "random": random(1), "joined": null}));
    let again = ok(json!({"op": "act", "log": genesis, "identity": anna.file,
        "fields": {"what": "join"}, "now": time(2), "random": random(2), "joined": first["joined"]}));
    assert_eq!(again["new"], first["new"], "the same join, never a second");
    let mut other_point = first["joined"].as_str().unwrap().to_string();
    other_point = other_point.replacen("\"n\":1", "\"n\":2", 1);
    let e = refused(json!({"op": "act", "log": genesis, "identity": anna.file,
        "fields": {"what": "join"}, "now": time(2), "random": random(2), "joined": other_point}));
    assert!(e.contains("fork"), "{e}");
    // A damaged identity file is refused without quoting it.
    let e = refused(json!({"op": "identity_read", "file": "{\"secret\": \"hunter2\"}"}));
    assert!(e.contains("corrupt") && !e.contains("hunter2"), "{e}");
    let e = refused(json!({"op": "nope"}));
    assert!(e.contains("unknown op"), "{e}");
}

#[test]
fn the_page_escapes_what_the_log_says() {
    let evil = "<script>alert(1)</script>";
    let anna = Identity::from_master_secret("Anna", "anna@example.org", [1; 32]);
    let mut ben = SeatInfo::of(&Identity::from_master_secret(
        "B",
        "ben@example.org",
        [2; 32],
    ));
    ben.name = evil.into();
    let setup = Setup {
        seats: vec![SeatInfo::of(&anna), ben],
        pairs: &[],
        extra: None,
    };
    let genesis = write::genesis::<StarryNight>(&anna, setup, None, time(0), [7; 32]).unwrap();
    let page = ok(
        json!({"op": "page", "log": String::from_utf8(genesis).unwrap(),
        "identity": null, "query": "pick=<b>", "now": time(1)}),
    );
    let html = page["html"].as_str().unwrap();
    assert!(!html.contains("<script"), "{html}");
    assert!(!html.contains("<b>"), "{html}");
}

#[test]
fn a_move_chosen_by_clicks_on_the_page_is_signed_by_its_form() {
    let (players, genesis) = table::<StarryNight>(2);
    let mut log = genesis;
    // Both join and get ready (Ben joins last, so he readies first).
    for (seat, what) in [(0, "join"), (1, "join"), (1, "ready"), (0, "ready")] {
        let done = ok(
            json!({"op": "act", "log": log, "identity": players[seat].file,
            "fields": {"what": what}, "now": time(1), "random": random(seat as u64 + 1),
            "joined": null}),
        );
        log = done["log"].as_str().unwrap().into();
    }
    let r = Replay::<StarryNight>::from_bytes(log.as_bytes()).unwrap();
    let (Action::Move, Some(seat)) = r.expected() else {
        panic!("a move is due")
    };
    let me = &players[seat];
    let mut query = String::new();
    let notation = loop {
        let page = ok(
            json!({"op": "page", "log": log, "identity": me.file, "query": query,
            "now": time(2)}),
        );
        let html = page["html"].as_str().unwrap().to_string();
        let field = "name=\"move\" value=\"";
        if let Some(at) = html.find(field) {
            let rest = &html[at + field.len()..];
            break rest[..rest.find('"').unwrap()].to_string();
        }
        let at = html
            .find("href=\"?game=")
            .expect("a next click on the page");
        let href = &html[at + 7..];
        query = href[1..href.find('"').unwrap()].replace("&amp;", "&");
        assert!(query.len() < 2000, "the picks end in a move");
    };
    let done = ok(json!({"op": "act", "log": log, "identity": me.file,
        "fields": {"what": "play", "move": notation, "entries": r.len()}, "now": time(3),
        "random": random(9), "joined": null}));
    assert_eq!(done["entry"], r.len());
    // The same form again, on the copy that moved on: the stale-copy guard.
    let e = refused(json!({"op": "act", "log": done["log"], "identity": me.file,
        "fields": {"what": "play", "move": notation, "entries": r.len()}, "now": time(4),
        "random": random(10), "joined": null}));
    assert!(e.contains("moved on"), "{e}");
}

/// The logs the module verified are remembered (`ops::verified`) by their
/// exact bytes only: a copy that differs from one verified before in one
/// character of a signature, of the same length or one entry longer, is
/// verified again and refused, by every op that replays it.
#[test]
fn a_log_verified_before_is_trusted_byte_for_byte_only() {
    let whole = include_str!("../../../examples/games/finished-3p-additive-coins.jsonl");
    let first = |n: usize| -> String { whole.split_inclusive('\n').take(n).collect() };
    // The last line's signature, its first character changed.
    let forged = |log: &str| -> String {
        let at = log.rfind("\"sig\":\"").unwrap() + 7;
        let c = if log.as_bytes()[at] == b'A' { "B" } else { "A" };
        format!("{}{c}{}", &log[..at], &log[at + 1..])
    };
    let now = "2026-12-01T00:00:00Z";
    let page = |log: &str| call(json!({"op": "page", "log": log, "query": "", "now": now}));
    let listed = |log: &str| ok(json!({"op": "games", "games": {"g": log}}))["games"][0].clone();
    assert_eq!(
        ok(json!({"op": "receive", "input": first(30)}))["entries"],
        30
    );
    for log in [forged(&first(31)), forged(&first(30))] {
        assert_eq!(log.len(), first(log.lines().count()).len());
        let e = page(&log)["error"].as_str().unwrap_or_default().to_string();
        assert!(e.contains("signature"), "{e}");
        assert!(listed(&log)["error"].is_string(), "{}", listed(&log));
    }
    assert!(page(&first(31)).get("ok").is_some());
    assert_eq!(listed(&first(31))["entries"], 31);
}

/// Two browsers' game of `G` played by its first legal moves on one shared
/// log until `moves` moves are made: the log, the players, and the step.
fn played<G: Game>(moves: usize) -> (String, Vec<Player>, Vec<Identity>, u64) {
    let (mut players, mut log) = table::<G>(2);
    let ids: Vec<Identity> = players
        .iter()
        .map(|p| Identity::from_file("x".into(), p.file.as_bytes()).unwrap())
        .collect();
    let mut made = 0;
    for step in 1..200u64 {
        let r = Replay::<G>::from_bytes(log.as_bytes()).unwrap();
        let (action, Some(seat)) = r.expected() else {
            panic!("nobody to act")
        };
        if action == Action::Move {
            if made == moves {
                return (log, players, ids, step);
            }
            made += 1;
        }
        let p = &mut players[seat];
        let done = ok(json!({"op": "act", "log": log, "identity": p.file,
            "fields": fields::<G>(&log, &ids[seat], step), "now": time(step),
            "random": random(step), "joined": p.joined}));
        if let Some(j) = done["joined"].as_str() {
            p.joined = Some(j.into());
        }
        log = done["log"].as_str().unwrap().into();
    }
    panic!("{moves} moves were never made")
}

/// The seat the log waits for.
fn awaited<G: Game>(log: &str) -> usize {
    Replay::<G>::from_bytes(log.as_bytes())
        .unwrap()
        .expected()
        .1
        .unwrap()
}

#[test]
fn a_resignation_is_asked_about_first_then_written() {
    let (log, players, _, step) = played::<StarryNight>(1);
    let me = &players[awaited::<StarryNight>(&log)];
    let ask = |confirm: Option<&str>| {
        json!({"op": "act", "log": log, "identity": me.file,
        "fields": {"what": "resign", "entries": log.lines().count(), "confirm": confirm},
        "now": time(step), "random": random(step), "joined": me.joined})
    };
    // Unconfirmed: the page to show is the question, and nothing is written.
    let asked = ok(ask(None));
    assert_eq!(asked, json!({"confirm": "resign"}));
    let page = ok(json!({"op": "page", "log": log, "identity": me.file,
        "query": "confirm=resign", "now": time(step)}));
    assert!(
        page["html"]
            .as_str()
            .unwrap()
            .contains("name=\"confirm\" value=\"yes\"")
    );
    let done = ok(ask(Some("yes")));
    let r = Replay::<StarryNight>::from_bytes(done["log"].as_str().unwrap().as_bytes()).unwrap();
    assert!(r.is_over(), "a resignation ends a two-player game");
}

#[test]
fn a_claim_is_refused_before_the_deadline_and_written_after_it() {
    let (log, players, _, step) = played::<StarryNight>(1);
    let waiting = 1 - awaited::<StarryNight>(&log);
    let me = &players[waiting];
    let claim = |now: &str| {
        json!({"op": "act", "log": log, "identity": me.file,
        "fields": {"what": "abandon", "entries": log.lines().count(), "confirm": "yes"},
        "now": now, "random": random(step), "joined": me.joined})
    };
    // The game's deadline is a day (table): an hour later is too soon.
    let e = refused(claim(&time(step + 3600)));
    assert!(
        e.contains("has until") && e.contains("nothing was written"),
        "{e}"
    );
    let done = ok(claim("2026-11-25T12:00:00Z"));
    let r = Replay::<StarryNight>::from_bytes(done["log"].as_str().unwrap().as_bytes()).unwrap();
    assert!(r.is_over(), "the claim ends the game");
    assert_eq!(r.entries.last().unwrap().author, waiting);
    // The seat claimed against keeps its answer: its page countersigns
    // nothing that would settle the claim, and knows no concession.
    let claimed = &players[1 - waiting];
    let log = done["log"].as_str().unwrap();
    for (what, why) in [("countersign", "still wins"), ("concede", "none of join")] {
        let e = refused(json!({"op": "act", "log": log, "identity": claimed.file,
            "fields": {"what": what, "entries": r.len()}, "now": "2026-11-25T12:01:00Z",
            "random": random(step), "joined": claimed.joined}));
        assert!(e.contains(why), "{what}: {e}");
    }
}

#[test]
fn a_takeback_request_is_offered_beside_the_board_and_answered() {
    // Starry Night offers a takeback once two edges are drawn (the first
    // move says who moves first).
    let (log, players, ids, step) = played::<StarryNight>(3);
    let seat = awaited::<StarryNight>(&log);
    let me = &players[seat];
    let r = Replay::<StarryNight>::from_bytes(log.as_bytes()).unwrap();
    let w = Writer::new(&r, &ids[seat], time(step)).unwrap();
    let at = w.position().unwrap();
    let request = StarryNight::requests(&at.state, seat)
        .first()
        .expect("a takeback request is open")
        .to_string();
    let page = ok(
        json!({"op": "page", "log": log, "identity": me.file, "query": "",
        "now": time(step)}),
    );
    assert!(
        page["html"].as_str().unwrap().contains(&request),
        "the page offers {request}"
    );
    let asked = ok(json!({"op": "act", "log": log, "identity": me.file,
        "fields": {"what": "play", "move": request, "entries": r.len()},
        "now": time(step), "random": random(step), "joined": me.joined}));
    let log = asked["log"].as_str().unwrap().to_string();
    // The other player answers it: their only moves now are the answers.
    let other = 1 - seat;
    assert_eq!(awaited::<StarryNight>(&log), other);
    let answered = ok(
        json!({"op": "act", "log": log, "identity": players[other].file,
        "fields": fields::<StarryNight>(&log, &ids[other], step + 1), "now": time(step + 1),
        "random": random(step + 1), "joined": players[other].joined}),
    );
    assert_eq!(answered["entry"], r.len() + 1);
}
