//! `starry serve` at the HTTP level, with the real binary: every page and
//! action of each game, every refusal (no token, a wrong one, a foreign
//! `Host`, another site's `Origin`, no CSRF token, an illegal move, a form
//! for a position that has moved on), the CLI and the server writing one
//! game at once, live events, escaping, secrets, and loopback only.

use starry::crypto::identity::Stored as _;
use std::net::{IpAddr, TcpStream, UdpSocket};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::players::*;
use crate::served::*;

/// The three games, each against the computer: (game, players after
/// the person, a move the engine refuses in the opening position).
const GAMES: [(&str, &str, &str); 3] = [
    ("starry-sky", "computer:1\ncomputer:1", "3 nowhere:1"),
    ("starry-night", "computer:1", "A-A"),
    ("star-map", "computer:1", "corner1 a1 r0"),
];

/// Starts a game through the new-game form; its id and log.
fn new_game(
    s: &Served,
    p: &Player,
    game: &str,
    others: &str,
    extra: &[(&str, &str)],
) -> (String, PathBuf) {
    let csrf = s.csrf();
    let players = format!("{} <{}>\n{others}", p.name, p.email);
    let mut fields = vec![
        ("csrf", csrf.as_str()),
        ("game", game),
        ("players", players.as_str()),
        ("deadline", "14d"),
    ];
    fields.extend_from_slice(extra);
    let r = s.post("/new", &fields);
    assert_eq!(r.status, 303, "{r:?}");
    let id = r
        .location()
        .strip_prefix("/game/")
        .and_then(|l| l.split('?').next())
        .unwrap_or_else(|| panic!("not a game page: {}", r.location()))
        .to_string();
    assert_eq!(id.len(), 64, "{}", r.location());
    let log = p.copy_of(&id);
    assert!(log.exists());
    (id, log)
}

fn moves(p: &Player, log: &Path) -> Value {
    p.json(&["moves", log.to_str().unwrap(), "--json"])
}

/// The form fields that play `m` on the page's position.
fn play(s: &Served, id: &str, entries: u64, m: &str) -> Reply {
    let csrf = s.csrf();
    let n = entries.to_string();
    s.post(
        &format!("/game/{id}/act"),
        &[
            ("csrf", &csrf),
            ("entries", &n),
            ("what", "play"),
            ("move", m),
        ],
    )
}

fn act(s: &Served, id: &str, entries: u64, what: &str, confirm: bool) -> Reply {
    let csrf = s.csrf();
    let n = entries.to_string();
    let mut f = vec![
        ("csrf", csrf.as_str()),
        ("entries", n.as_str()),
        ("what", what),
    ];
    if confirm {
        f.push(("confirm", "yes"));
    }
    s.post(&format!("/game/{id}/act"), &f)
}

/// Every page must be free of inline script and inline handlers (the
/// policy forbids them; a page that used them would break).
fn no_inline_script(page: &str) {
    for (i, _) in page.match_indices("<script") {
        let tag = &page[i..i + page[i..].find('>').unwrap()];
        assert!(tag.contains(" src="), "inline script: {tag}");
    }
    let lower = page.to_lowercase();
    for h in [
        " onclick=",
        " onload=",
        " onerror=",
        " onsubmit=",
        "javascript:",
    ] {
        assert!(!lower.contains(h), "inline handler {h}");
    }
}

#[test]
fn refusals_without_the_token_from_a_foreign_host_or_site_or_without_csrf() {
    let ps = Players::new(1);
    let p = &ps.p[0];
    let s = Served::start(p, &[]);
    let host = ("Host", s.host());

    // No token, a wrong token.
    let r = s.send("GET", "/", std::slice::from_ref(&host), "");
    assert_eq!(r.status, 403, "{r:?}");
    assert!(r.body.contains("token"), "{}", r.body);
    let r = s.send(
        "GET",
        &format!("/?token={}", "0".repeat(64)),
        std::slice::from_ref(&host),
        "",
    );
    assert_eq!(r.status, 403, "{r:?}");
    assert!(r.header("set-cookie").is_none());
    let r = s.send(
        "GET",
        "/",
        &[
            host.clone(),
            ("Cookie", format!("starry_{}={}", s.port, "1".repeat(64))),
        ],
        "",
    );
    assert_eq!(r.status, 403, "{r:?}");

    // The printed address: a session cookie (not the token), and a page
    // that goes on to the address without the token.
    let r = s.send(
        "GET",
        &format!("/?token={}", s.token),
        std::slice::from_ref(&host),
        "",
    );
    assert_eq!(r.status, 200, "{r:?}");
    assert!(
        r.body
            .contains("http-equiv=\"refresh\" content=\"0;url=/\""),
        "{}",
        r.body
    );
    let c = r.header("set-cookie").unwrap().to_string();
    assert!(!c.contains(&s.token), "the cookie is the token: {c}");
    for part in [
        &format!("starry_{}=", s.port)[..],
        "HttpOnly",
        "SameSite=Strict",
        "Path=/",
    ] {
        assert!(c.contains(part), "{c}");
    }
    let csp = s
        .get("/")
        .header("content-security-policy")
        .unwrap()
        .to_string();
    assert!(csp.starts_with("default-src 'self'"), "{csp}");
    assert!(!csp.contains("unsafe"), "{csp}");
    assert_eq!(s.get("/").header("x-frame-options"), Some("DENY"));

    // The request log names requests, never the token.
    let log = s.stderr();
    assert!(log.contains("GET / 200"), "{log}");
    assert!(!log.contains(&s.token), "the token is in the log: {log}");

    // A foreign Host (DNS rebinding), even with the token or the cookie.
    for h in [
        "evil.example",
        &format!("evil.example:{}", s.port),
        "127.0.0.1:1",
    ] {
        let r = s.send(
            "GET",
            &format!("/?token={}", s.token),
            &[("Host", h.to_string())],
            "",
        );
        assert_eq!(r.status, 421, "{h}: {r:?}");
        let r = s.send(
            "GET",
            "/",
            &[("Host", h.to_string()), ("Cookie", s.cookie())],
            "",
        );
        assert_eq!(r.status, 421, "{h}: {r:?}");
    }
    for h in [format!("localhost:{}", s.port), format!("[::1]:{}", s.port)] {
        let r = s.send(
            "GET",
            "/",
            &[("Host", h.clone()), ("Cookie", s.cookie())],
            "",
        );
        assert_eq!(r.status, 200, "{h}: {r:?}");
    }

    // Changes: another site's Origin, none, no CSRF token, a wrong one.
    let (id, log) = new_game(&s, p, "starry-night", "computer:1", &[]);
    let before = std::fs::read(&log).unwrap();
    let entries = entries_of(p, &log);
    let m = moves(p, &log)["moves"][0]["move"]
        .as_str()
        .unwrap()
        .to_string();
    let csrf = s.csrf();
    let n = entries.to_string();
    let fields = form(&[
        ("csrf", &csrf),
        ("entries", &n),
        ("what", "play"),
        ("move", &m),
    ]);
    let path = format!("/game/{id}/act");
    let base = vec![("Host", s.host()), ("Cookie", s.cookie())];
    let with = |extra: &[(&'static str, String)]| {
        let mut h = base.clone();
        h.extend_from_slice(extra);
        h
    };
    for (what, headers, body) in [
        (
            "another site",
            with(&[("Origin", "http://evil.example".into())]),
            fields.clone(),
        ),
        (
            "a look-alike",
            with(&[(
                "Origin",
                format!("http://127.0.0.1:{}.evil.example", s.port),
            )]),
            fields.clone(),
        ),
        ("no origin", with(&[]), fields.clone()),
        (
            "no cookie",
            vec![("Host", s.host()), ("Origin", s.origin())],
            fields.clone(),
        ),
        (
            "no csrf",
            with(&[("Origin", s.origin())]),
            form(&[("entries", &n), ("what", "play"), ("move", &m)]),
        ),
        (
            "wrong csrf",
            with(&[("Origin", s.origin())]),
            form(&[
                ("csrf", &"f".repeat(64)),
                ("entries", &n),
                ("what", "play"),
                ("move", &m),
            ]),
        ),
    ] {
        let r = s.send("POST", &path, &headers, &body);
        assert_eq!(r.status, 403, "{what}: {r:?}");
        assert_eq!(
            std::fs::read(&log).unwrap(),
            before,
            "{what} wrote to the log"
        );
    }
    // And the same form, from the page, is taken.
    let r = s.send("POST", &path, &with(&[("Origin", s.origin())]), &fields);
    assert_eq!(r.status, 303, "{r:?}");
    assert!(entries_of(p, &log) > entries);
}

#[test]
fn every_page_and_action_of_each_game() {
    for (game, others, illegal) in GAMES {
        let ps = Players::new(1);
        let p = &ps.p[0];
        let s = Served::start(p, &[]);

        // The new-game form of each game, and its fields.
        let form_page = s.page(&format!("/new?game={game}"));
        no_inline_script(&form_page);
        assert!(form_page.contains("name=\"players\""), "{game}");
        let (id, log) = new_game(&s, p, game, others, &[]);

        // Home lists it, with whose turn it is.
        let home = s.page("/");
        no_inline_script(&home);
        assert!(home.contains(&format!("/game/{id}")), "{game}: {home}");
        assert!(home.contains("Your turn"), "{game}: {home}");

        // The game page: the board as `view` draws it, links on it.
        let page = s.page(&format!("/game/{id}"));
        no_inline_script(&page);
        let view_svg = p.run(&["view", log.to_str().unwrap(), "--format", "svg"]);
        assert_eq!(
            board_svg(&page),
            stdout(&view_svg).trim_end(),
            "{game}: the board is not the view's"
        );
        assert!(
            page.contains("class=\"choice\""),
            "{game}: nothing to click"
        );

        // Click by click (the links of the page) to a whole move, then its
        // preview: nothing written until it is confirmed.
        let before = std::fs::read(&log).unwrap();
        let mut at = page.clone();
        let mut clicks = 0;
        while !at.contains("Confirm the move") {
            let next = attr_after(&at, "<a class=\"choice\" href=\"")
                .unwrap_or_else(|| panic!("{game}: no choice on {at}"));
            at = s.page(&next);
            clicks += 1;
            assert!(clicks <= 5, "{game}: a move takes more than 5 clicks");
        }
        assert_eq!(
            std::fs::read(&log).unwrap(),
            before,
            "{game}: a preview wrote"
        );
        assert!(at.contains("Dry run, nothing written"), "{game}: {at}");
        let chosen = attr_after(&at, "name=\"move\" value=\"").unwrap();
        let legal: Vec<String> = moves(p, &log)["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["move"].as_str().unwrap().to_string())
            .collect();
        assert!(
            legal.contains(&chosen),
            "{game}: {chosen} is not in {legal:?}"
        );

        // An illegal move: the rule's message, nothing written.
        let entries = entries_of(p, &log);
        let r = play(&s, &id, entries, illegal);
        assert_eq!(r.status, 303);
        let shown = s.page(r.location());
        assert!(shown.contains("class=\"notice error\""), "{game}: {shown}");
        assert!(
            shown.contains("cannot write entry") || shown.contains("is not a move here"),
            "{game}: {shown}"
        );
        assert_eq!(
            std::fs::read(&log).unwrap(),
            before,
            "{game}: an illegal move wrote"
        );
        // Typed in, the preview says the same.
        let typed = s.page(&format!(
            "/game/{id}?move={}",
            form(&[("m", illegal)]).trim_start_matches("m=")
        ));
        assert!(
            typed.contains("cannot write entry") || typed.contains("is not a move here"),
            "{game}: {typed}"
        );

        // A form for a position that has moved on.
        let r = play(&s, &id, entries - 1, &chosen);
        let shown = s.page(r.location());
        assert!(shown.contains("the game has moved on"), "{game}: {shown}");
        assert_eq!(
            std::fs::read(&log).unwrap(),
            before,
            "{game}: a stale form wrote"
        );

        // The move, confirmed; the computer answers at once.
        let r = play(&s, &id, entries, &chosen);
        assert_eq!(r.status, 303);
        let after = s.page(r.location());
        assert!(after.contains("class=\"notice\""), "{game}: {after}");
        assert!(
            after.contains("Computer"),
            "{game}: the computer did not answer: {after}"
        );
        let now = entries_of(p, &log);
        assert!(now >= entries + 2, "{game}: {entries} -> {now}");
        let audit = p.run(&["audit", log.to_str().unwrap()]);
        assert!(audit.status.success(), "{game}: {}", stdout(&audit));

        // The history stepper: its position after N entries is `view --at
        // N-1`'s (after entry N-1, as `history` numbers it).
        for n in [1, entries, now - 1] {
            let page = s.page(&format!("/game/{id}?at={n}"));
            let v = p.run(&[
                "view",
                log.to_str().unwrap(),
                "--at",
                &(n - 1).to_string(),
                "--format",
                "svg",
            ]);
            assert_eq!(board_svg(&page), stdout(&v).trim_end(), "{game}: ?at={n}");
            assert!(
                !page.contains("class=\"choice\""),
                "{game}: a past position offers moves"
            );
            if n > 1 {
                assert!(
                    page.contains(&format!("href=\"/game/{id}?at={}\"", n - 1)),
                    "{game}: no Back"
                );
            }
        }

        // Resign: asked first, then done.
        let r = act(&s, &id, now, "resign", false);
        assert_eq!(r.status, 303);
        assert!(r.location().ends_with("?confirm=resign"), "{r:?}");
        let ask = s.page(r.location());
        assert!(ask.contains("Resign?"), "{game}: {ask}");
        assert_eq!(entries_of(p, &log), now, "{game}: asking wrote");
        let r = act(&s, &id, now, "resign", true);
        let done = s.page(r.location());
        assert!(done.contains("resigned"), "{game}: {done}");
        let status = p.json(&["status", log.to_str().unwrap(), "--json"]);
        assert_eq!(status["over"], true, "{game}");

        // The pages around: assets, an unknown game, an unknown page.
        for a in [
            "/assets/style.css",
            "/assets/app.js",
            "/assets/icon.svg",
            "/favicon.ico",
        ] {
            assert_eq!(s.get(a).status, 200, "{a}");
        }
        assert_eq!(s.get(&format!("/game/{}", "0".repeat(64))).status, 404);
        assert_eq!(s.get("/game/..%2F..%2Fidentity").status, 404);
        assert_eq!(s.get("/no/such/page").status, 404);
    }
}

/// A whole Starry Sky game against two computers, through the pages'
/// forms alone: moves, the reveal, the countersignature; none of the
/// player's secrets, nor a computer's, in any page.
#[test]
fn a_whole_starry_sky_game_with_reveal_and_countersign() {
    let ps = Players::new(1);
    let p = &ps.p[0];
    let s = Served::start(p, &[]);
    let (id, log) = new_game(&s, p, "starry-sky", "computer:1\ncomputer:1", &[]);
    let mut pages = Vec::new();
    for _ in 0..200 {
        let status = p.json(&["status", log.to_str().unwrap(), "--json"]);
        let entries = status["entries"].as_u64().unwrap();
        let page = s.page(&format!("/game/{id}"));
        let mine = status["to_act_seat"] == 0;
        let r = match status["action"].as_str().unwrap() {
            "move" if mine => {
                let m = moves(p, &log)["moves"][0]["move"]
                    .as_str()
                    .unwrap()
                    .to_string();
                play(&s, &id, entries, &m)
            }
            "reveal" if mine => {
                assert!(page.contains("Reveal my tokens"), "{page}");
                act(&s, &id, entries, "reveal", false)
            }
            "over" if page.contains("Countersign the result") => {
                act(&s, &id, entries, "countersign", false)
            }
            "over" => break,
            other => panic!(
                "the game waits for {other} by seat {}",
                status["to_act_seat"]
            ),
        };
        assert_eq!(r.status, 303, "{r:?}");
        let after = s.page(r.location());
        assert!(!after.contains("class=\"notice error\""), "{after}");
        pages.push(after);
        pages.push(page);
    }
    let status = p.json(&["status", log.to_str().unwrap(), "--json"]);
    assert_eq!(status["over"], true, "{status}");
    let audit = p.run(&["audit", log.to_str().unwrap()]);
    assert!(audit.status.success(), "{}", stdout(&audit));

    let bytes = std::fs::read(&log).unwrap();
    let mut secrets = secrets_in::<starry::games::starry_sky::StarrySky>(&p.home, &bytes, 0);
    for c in std::fs::read_dir(p.home.join("computers")).unwrap() {
        let home = c.unwrap().path();
        let seat = (1..3)
            .find(|&s| {
                let id = starry::crypto::identity::Identity::load(&home).unwrap();
                starry::log::Replay::<starry::games::starry_sky::StarrySky>::from_bytes(&bytes)
                    .unwrap()
                    .seat_of_key(&id.public_key())
                    == Some(s)
            })
            .unwrap();
        secrets.extend(secrets_in::<starry::games::starry_sky::StarrySky>(
            &home, &bytes, seat,
        ));
    }
    for page in &pages {
        for secret in &secrets {
            for e in encodings(secret) {
                assert!(!page.contains(&e), "a secret in a page");
            }
        }
    }
}

/// Ben makes a Starry Night game with Anna, moves of `deadline` each, and
/// his log is put where Anna's games are: the game's id and Anna's copy.
pub(crate) fn ben_invites_anna(ben: &Player, anna: &Player, deadline: &str) -> (String, PathBuf) {
    let out = ben.run(&[
        "new",
        "starry-night",
        "--players",
        &format!("Ben <{}>, Anna <{}>", ben.email, anna.email),
        "--deadline",
        deadline,
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = j["status"]["game_id"].as_str().unwrap().to_string();
    std::fs::create_dir_all(anna.home.join("games")).unwrap();
    let log = anna.copy_of(&id);
    std::fs::copy(j["file"].as_str().unwrap(), &log).unwrap();
    (id, log)
}

/// Join, ready and a claim of abandonment, in a game with a second person
/// who plays with the CLI on the same file.
#[test]
fn join_ready_and_abandonment_after_the_deadline() {
    let ps = Players::new(2);
    let (anna, ben) = (&ps.p[0], &ps.p[1]);
    let s = Served::start(anna, &[]);
    // Ben invites Anna; his log is put where Anna's games are.
    let (id, log) = ben_invites_anna(ben, anna, "3s");
    let l = log.to_str().unwrap();

    let page = s.page(&format!("/game/{id}"));
    assert!(page.contains("Join the game"), "{page}");
    let r = act(&s, &id, entries_of(anna, &log), "join", false);
    assert!(!s.page(r.location()).contains("notice error"));
    let page = s.page(&format!("/game/{id}"));
    assert!(page.contains(">Ready<"), "{page}");
    let r = act(&s, &id, entries_of(anna, &log), "ready", false);
    assert!(!s.page(r.location()).contains("notice error"));
    let out = ben.run(&["ready", l]);
    assert!(out.status.success(), "{}", stderr(&out));

    // Anna (seat 1) plays until the game waits for Ben.
    loop {
        let st = anna.json(&["status", l, "--json"]);
        if st["to_act_seat"] == 1 {
            let m = moves(anna, &log)["moves"][0]["move"]
                .as_str()
                .unwrap()
                .to_string();
            let r = play(&s, &id, st["entries"].as_u64().unwrap(), &m);
            assert!(!s.page(r.location()).contains("notice error"));
        } else {
            break;
        }
    }
    // Before the deadline no claim is offered, and one is refused.
    let page = s.page(&format!("/game/{id}"));
    assert!(!page.contains("Claim abandonment"), "{page}");
    std::thread::sleep(Duration::from_secs(4));
    let page = s.page(&format!("/game/{id}"));
    assert!(page.contains("Claim abandonment"), "{page}");
    let n = entries_of(anna, &log);
    let r = act(&s, &id, n, "abandon", false);
    let ask = s.page(r.location());
    assert!(ask.contains("Yes, abandon"), "{ask}");
    let r = act(&s, &id, n, "abandon", true);
    assert!(!s.page(r.location()).contains("notice error"));
    assert_eq!(entries_of(anna, &log), n + 1);
    let last = std::fs::read_to_string(&log).unwrap();
    assert!(
        last.lines().last().unwrap().contains("\"abandon\""),
        "{last}"
    );
}

/// The CLI and the browser at once on one game: the log's lock lets one
/// write; the other is refused, and the log stays one valid history.
#[test]
fn the_cli_and_the_server_writing_one_game_at_once() {
    let ps = Players::new(1);
    let p = &ps.p[0];
    let s = Served::start(p, &[]);
    let (id, log) = new_game(&s, p, "starry-night", "computer:1", &[]);
    for _ in 0..4 {
        let entries = entries_of(p, &log);
        let list = moves(p, &log);
        let a = list["moves"][0]["move"].as_str().unwrap().to_string();
        let b = list["moves"][1]["move"].as_str().unwrap().to_string();
        let l = log.clone();
        let cli = std::thread::scope(|sc| {
            let h = sc.spawn(|| p.run(&["play", l.to_str().unwrap(), &a]));
            let r = play(&s, &id, entries, &b);
            let shown = s.page(r.location());
            (h.join().unwrap(), shown)
        });
        let (out, shown) = cli;
        let web_ok = !shown.contains("notice error");
        let cli_ok = out.status.success();
        let audit = p.run(&["audit", log.to_str().unwrap()]);
        assert!(audit.status.success(), "{}", stdout(&audit));
        // The CLI plays on whatever position it finds; the page's form only
        // on the one it showed. So the CLI's move may follow the page's
        // (both taken, the page's first), but the page's never follows the
        // CLI's.
        let now = entries_of(p, &log);
        let history = p.json(&["history", log.to_str().unwrap(), "--json"]);
        let said = |n: u64| {
            history["events"][n as usize]["text"]
                .as_str()
                .unwrap()
                .to_string()
        };
        match (cli_ok, web_ok) {
            (true, false) => {
                assert!(shown.contains("the game has moved on"), "{shown}");
                assert!(said(entries).contains(&a), "{}", said(entries));
            }
            (false, true) => {
                assert!(said(entries).contains(&b), "{}", said(entries));
            }
            (true, true) => {
                assert!(
                    said(entries).contains(&b),
                    "the page's move came second: {}",
                    said(entries)
                );
                assert!(said(entries + 2).contains(&a), "{}", said(entries + 2));
            }
            (false, false) => panic!("neither wrote: {} / {shown}", stderr(&out)),
        }
        // The person's entry, the computer's answer (and the end, if it came).
        assert!(now >= entries + 2, "{history:#}");
        if p.json(&["status", log.to_str().unwrap(), "--json"])["over"] == true {
            break;
        }
    }
}

#[test]
fn live_refresh_says_when_the_log_changes() {
    let ps = Players::new(1);
    let p = &ps.p[0];
    let s = Served::start(p, &[]);
    let (id, log) = new_game(&s, p, "star-map", "computer:1", &[]);
    let page = s.page(&format!("/game/{id}"));
    let live = attr_after(&page, "data-live=\"").unwrap();
    assert!(live.starts_with(&format!("/events/{id}?since=")), "{live}");
    // Unchanged: an empty answer at once, nothing held open.
    let r = s.get(&live);
    assert_eq!(r.status, 204, "{r:?}");
    let m = moves(p, &log)["moves"][0]["move"]
        .as_str()
        .unwrap()
        .to_string();
    let out = p.run(&["play", log.to_str().unwrap(), &m]);
    assert!(out.status.success(), "{}", stderr(&out));
    let r = s.get(&live);
    assert_eq!(r.status, 200, "{r:?}");
    assert!(r.body.contains("changed"), "{r:?}");
    // The list of games, likewise.
    let home = s.page("/");
    let live = attr_after(&home, "data-live=\"").unwrap();
    assert_eq!(s.get(&live).status, 204);
    std::fs::write(p.home.join("games").join("x.jsonl"), b"").unwrap();
    assert_eq!(s.get(&live).status, 200);
    // Without the cookie: refused, like every page.
    let r = s.send("GET", &live, &[("Host", s.host())], "");
    assert_eq!(r.status, 403, "{r:?}");

    // Ctrl-C stops it at once, even with a kept-alive connection open.
    let mut again = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
    use std::io::Write;
    write!(
        again,
        "GET {live} HTTP/1.1\r\nHost: {}\r\nCookie: {}\r\n\r\n",
        s.host(),
        s.cookie()
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let (status, took) = s.interrupt();
    assert!(status.success(), "{status}");
    assert!(took < Duration::from_secs(6), "{took:?}");
}

/// Names from a log are text on the page, never markup.
#[test]
fn hostile_names_are_escaped() {
    let ps = Players::new(2);
    let (anna, ben) = (&ps.p[0], &ps.p[1]);
    let evil = "<img src=x onerror=alert(1)>";
    let mallory = anna.elsewhere(ps.dir.path().join("mallory"));
    std::fs::remove_file(mallory.home.join("identity.json")).unwrap();
    let out = mallory.run(&[
        "id",
        "new",
        "--name",
        evil,
        "--email",
        "mallory@example.org",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = mallory.run(&[
        "new",
        "star-map",
        "--players",
        &format!("mallory@example.org, Anna <{}>", anna.email),
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = j["status"]["game_id"].as_str().unwrap().to_string();
    std::fs::create_dir_all(anna.home.join("games")).unwrap();
    std::fs::copy(j["file"].as_str().unwrap(), anna.copy_of(&id)).unwrap();
    let _ = ben;
    let s = Served::start(anna, &[]);
    for path in ["/".to_string(), format!("/game/{id}")] {
        let page = s.page(&path);
        assert!(!page.contains("<img"), "{path}: {page}");
        assert!(
            page.contains("&lt;img src=x onerror=alert(1)&gt;"),
            "{path}: the name is not shown"
        );
    }
}

/// The first address of this machine that is not loopback, if any.
fn outward_address() -> Option<IpAddr> {
    let u = UdpSocket::bind("0.0.0.0:0").ok()?;
    // No packet is sent: connecting a UDP socket only picks the route.
    u.connect("192.0.2.1:9").ok()?;
    let ip = u.local_addr().ok()?.ip();
    (!ip.is_loopback() && !ip.is_unspecified()).then_some(ip)
}

#[test]
fn loopback_only_unless_told() {
    let ps = Players::new(1);
    let p = &ps.p[0];
    let s = Served::start(p, &[]);
    assert!(s.url.starts_with("http://127.0.0.1:"), "{}", s.url);
    // Another loopback address is another address: not bound.
    assert!(TcpStream::connect(("127.0.0.2", s.port)).is_err());
    if let Some(ip) = outward_address() {
        assert!(
            TcpStream::connect_timeout(&(ip, s.port).into(), Duration::from_secs(2)).is_err(),
            "answers on {ip}"
        );
    } else {
        eprintln!("no address but loopback on this machine: checked 127.0.0.2 only");
    }
    assert!(!s.stderr().contains("warning"), "{}", s.stderr());
    drop(s);

    // Told: it listens there, and warns when that is not loopback.
    let s = Served::start(p, &["--listen", "127.0.0.2"]);
    assert!(s.url.starts_with("http://127.0.0.2:"), "{}", s.url);
    assert!(TcpStream::connect(("127.0.0.2", s.port)).is_ok());
    drop(s);
    let s = Served::start(p, &["--listen", "0.0.0.0"]);
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        s.stderr().contains("warning: listening on 0.0.0.0"),
        "{}",
        s.stderr()
    );
}

/// With mail set up, every entry made in the browser is mailed on as
/// `--mail` mails it: the invitation of a new game, then the turn after
/// each entry. Without an inbox, the sync button's action says what to
/// set up.
#[test]
fn entries_are_mailed_as_with_mail_and_sync_says_what_is_missing() {
    let mut ps = Players::new(2);
    ps.set_env(&[("STARRY_MAIL_TRANSPORT", "outbox")]);
    let (anna, ben) = (&ps.p[0], &ps.p[1]);
    let s = Served::start(anna, &[]);
    let (id, log) = new_game(
        &s,
        anna,
        "starry-night",
        &format!("Ben <{}>", ben.email),
        &[],
    );
    let sent = anna.outbox();
    assert_eq!(sent.len(), 1, "the invitation");
    let (to, subject, _) = mail_headers(&std::fs::read(&sent[0]).unwrap());
    assert_eq!(to, ben.email);
    assert!(subject.contains(&id[..8]), "{subject}");

    // Ben joins and is ready with the CLI on the same file; Anna is ready
    // in the page.
    for command in ["join", "ready"] {
        let out = ben.run(&[command, log.to_str().unwrap()]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let r = act(&s, &id, entries_of(anna, &log), "ready", false);
    let page = s.page(r.location());
    assert!(page.contains("Mailed to 1 player"), "{page}");
    let sent = anna.outbox();
    assert_eq!(sent.len(), 2, "the turn mail after the entry");
    assert_eq!(mail_headers(&std::fs::read(&sent[1]).unwrap()).0, ben.email);

    // Sync without an inbox set up: no button, and the action says why.
    assert!(!page.contains("Sync mail"));
    let csrf = s.csrf();
    let r = s.post("/sync", &[("csrf", &csrf)]);
    let home = s.page(r.location());
    assert!(home.contains("notice error"), "{home}");
    assert!(home.contains("no IMAP server is set"), "{home}");
}

/// Issue 31, item 12: an address lets one browser in, once; `--link` makes
/// fresh ones, through a socket only this user can reach.
#[test]
fn an_address_lets_in_once_and_link_makes_fresh_ones() {
    use std::os::unix::fs::PermissionsExt;
    let ps = Players::new(1);
    let p = &ps.p[0];
    let s = Served::start(p, &[]);
    let first = s.let_in(&s.token).expect("the printed address lets in");
    assert!(!first.contains(&s.token), "the cookie is the token");
    let ok = |cookie: &str| {
        s.send(
            "GET",
            "/",
            &[("Host", s.host()), ("Cookie", cookie.to_string())],
            "",
        )
        .status
    };
    assert_eq!(ok(&first), 200);
    // Used: refused, and the cookie it gave still works.
    let again = s.send(
        "GET",
        &format!("/?token={}", s.token),
        &[("Host", s.host())],
        "",
    );
    assert_eq!(
        again.status, 403,
        "the printed address let in twice: {again:?}"
    );
    assert!(again.body.contains("starry serve --link"), "{}", again.body);
    assert!(again.header("set-cookie").is_none());
    // The token as a cookie lets nothing in either.
    assert_eq!(ok(&format!("starry_{}={}", s.port, s.token)), 403);

    // A fresh address from the running server, once.
    let url = s.fresh_link();
    assert!(
        url.starts_with(&format!("http://127.0.0.1:{}/?token=", s.port)),
        "{url}"
    );
    let token = url.split("token=").nth(1).unwrap();
    assert_ne!(token, s.token);
    let second = s.let_in(token).expect("a fresh address lets in");
    assert_ne!(second, first, "two browsers share a session");
    assert_eq!(ok(&second), 200);
    assert_eq!(ok(&first), 200);
    assert!(s.let_in(token).is_none(), "a fresh address let in twice");
    // Two more differ.
    assert_ne!(s.fresh_link(), s.fresh_link());

    // What --link talks to is private to this user.
    let dir = p.home.join("serve");
    let mode = std::fs::metadata(&dir).unwrap().permissions().mode();
    assert_eq!(mode & 0o077, 0, "{} has mode {mode:o}", dir.display());
    assert!(dir.join(format!("{}.sock", s.port)).exists());

    // No server on that port: a clear refusal, nothing made.
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_starry"));
    c.env("STARRY_HOME", &p.home);
    for (k, v) in &p.env {
        c.env(k, v);
    }
    let out = c.args(["serve", "--link", "--port", "1"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        stderr(&out).contains("no `starry serve` is running"),
        "{}",
        stderr(&out)
    );
    // Without --port, the only one running is asked.
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_starry"));
    c.env("STARRY_HOME", &p.home);
    for (k, v) in &p.env {
        c.env(k, v);
    }
    let out = c.args(["serve", "--link"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains(&format!("http://127.0.0.1:{}/?token=", s.port)));

    // Stopped: its socket is gone.
    let socket = dir.join(format!("{}.sock", s.port));
    let (status, _) = s.interrupt();
    assert!(status.success());
    assert!(!socket.exists(), "{} outlives the server", socket.display());
}

/// Issue 31, item 12: `--open` puts no secret on the browser's command
/// line (which every user of the machine can read with `ps`): what the
/// browser is given, tried by a stranger as an address, a token or a
/// cookie, lets nothing in. The file it names is readable by this user
/// only, lets in once, and is gone once used.
#[test]
fn open_puts_no_secret_on_the_browser_command_line() {
    use std::os::unix::fs::PermissionsExt;
    let ps = Players::new(1);
    let p = &ps.p[0];
    let (script, argv) = recording_browser(ps.dir.path());
    let s = Served::start_env(p, &["--open"], &[("BROWSER", script.to_str().unwrap())]);
    let args = recorded_argv(&argv);
    assert_eq!(args.len(), 1, "{args:?}");
    let arg = &args[0];
    assert!(!arg.contains(&s.token), "{arg}");
    // Every word of it, and every 64-hex-digit run in it, as a stranger
    // would try it.
    let mut tries: Vec<String> = arg
        .split(|c: char| !c.is_ascii_alphanumeric())
        .map(str::to_string)
        .collect();
    tries.push(arg.clone());
    for t in &tries {
        let r = s.send(
            "GET",
            &format!("/?token={}", form(&[("x", t)]).trim_start_matches("x=")),
            &[("Host", s.host())],
            "",
        );
        assert_eq!(r.status, 403, "{t} let in: {r:?}");
        let r = s.send(
            "GET",
            "/",
            &[
                ("Host", s.host()),
                ("Cookie", format!("starry_{}={t}", s.port)),
            ],
            "",
        );
        assert_eq!(r.status, 403, "{t} as a cookie let in: {r:?}");
    }
    // The file: this user's only, in a private directory, one address.
    let file = file_of(arg);
    let mode = std::fs::metadata(&file).unwrap().permissions().mode();
    assert_eq!(mode & 0o077, 0, "{} has mode {mode:o}", file.display());
    let dir_mode = std::fs::metadata(file.parent().unwrap())
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(dir_mode & 0o077, 0, "mode {dir_mode:o}");
    let page = std::fs::read_to_string(&file).unwrap();
    let to = attr_after(&page, "href=\"").expect("an address in the file");
    let token = to.split("token=").nth(1).unwrap();
    assert_ne!(token, s.token, "the file holds the printed address");
    assert!(
        s.let_in(token).is_some(),
        "the file's address does not let in"
    );
    assert!(s.let_in(token).is_none(), "the file's address let in twice");
    assert!(!file.exists(), "the file outlives its use");

    // `--link --open`: the same, for one more browser.
    std::fs::remove_file(&argv).unwrap();
    let out = s.link_command(&["--open"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let args = recorded_argv(&argv);
    let file = file_of(&args[0]);
    assert!(!args[0].contains("token"), "{args:?}");
    let page = std::fs::read_to_string(&file).unwrap();
    let to = attr_after(&page, "href=\"").unwrap();
    assert!(s.let_in(to.split("token=").nth(1).unwrap()).is_some());
}

/// Reads until the server closes the connection (or `limit` passes):
/// whether it closed.
fn closed_within(c: &mut TcpStream, limit: Duration) -> bool {
    use std::io::Read;
    let start = std::time::Instant::now();
    c.set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let mut buf = [0u8; 4096];
    while start.elapsed() < limit {
        match c.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return true,
        }
    }
    false
}

fn open_fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|d| d.count())
        .unwrap_or(0)
}

fn resident_kb(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// Issue 31, item 14: 2,000 idle connections and 200 that send their
/// header a line at a time (slowloris), from a stranger without a token:
/// the player's own requests still answer, the server holds a bounded
/// number of connections, closes the slow and idle ones, and returns to
/// its own few file descriptors and bounded memory afterwards.
#[test]
fn a_flood_of_idle_and_slow_connections_leaves_the_player_served() {
    use std::io::{Read, Write};
    let ps = Players::new(1);
    let p = &ps.p[0];
    let s = Served::start(p, &[]);
    let cookie = s.cookie();
    let pid = s.pid();
    assert_eq!(s.get("/").status, 200);
    let fds_before = open_fds(pid);
    let rss_before = resident_kb(pid);

    // A kept-alive connection of the player's, idle after its request:
    // closed by the server in time.
    let mut kept = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
    write!(
        kept,
        "GET /assets/app.js HTTP/1.1\r\nHost: {}\r\nCookie: {cookie}\r\n\r\n",
        s.host()
    )
    .unwrap();

    let mut idle = Vec::new();
    let mut slow = Vec::new();
    let mut answered = Vec::new();
    for i in 0..2_000 {
        let c = TcpStream::connect(("127.0.0.1", s.port)).expect("the flood connects");
        idle.push(c);
        if i % 10 == 0 {
            let mut c = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
            write!(c, "GET / HTTP/1.1\r\nHost: {}\r\n", s.host()).unwrap();
            slow.push(c);
        }
        if i % 500 == 250 {
            // The player, in the middle of the flood.
            let started = std::time::Instant::now();
            let r = s.get("/");
            assert_eq!(r.status, 200, "{r:?}");
            answered.push(started.elapsed());
        }
    }
    // The slow ones go on typing, a line a second.
    for round in 0..3 {
        for c in &mut slow {
            let _ = write!(c, "X-Slow-{round}: a\r\n");
        }
        let started = std::time::Instant::now();
        let r = s.get("/");
        assert_eq!(r.status, 200, "{r:?}");
        answered.push(started.elapsed());
        let fds = open_fds(pid);
        assert!(
            fds <= fds_before + 256 + 32,
            "the server holds {fds} file descriptors under the flood (before: {fds_before})"
        );
        std::thread::sleep(Duration::from_secs(1));
    }
    eprintln!("the player's requests under the flood: {answered:?}");
    assert!(
        answered.iter().all(|t| *t < Duration::from_secs(30)),
        "{answered:?}"
    );

    // The header never finished: the server closes it.
    for c in slow.iter_mut().rev().take(5) {
        assert!(
            closed_within(c, Duration::from_secs(60)),
            "a slow header was kept open"
        );
    }
    let mut head = [0u8; 12];
    kept.read_exact(&mut head).unwrap();
    assert!(
        closed_within(&mut kept, Duration::from_secs(60)),
        "an idle kept-alive connection was kept open"
    );

    // The flood's connections still open on this side; the server's are
    // closed, its memory bounded.
    let start = std::time::Instant::now();
    while open_fds(pid) > fds_before + 4 {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the server still holds {} file descriptors (before: {fds_before})",
            open_fds(pid)
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let rss = resident_kb(pid);
    assert!(
        rss < rss_before + 64 * 1024,
        "resident {rss} kB, before {rss_before} kB"
    );
    assert_eq!(s.get("/").status, 200);
    drop(idle);
}

/// Issue 31, item 1: claims that ended the game with the browser's player
/// placed last. The page says that their move still wins, offers it (and no
/// countersignature), and the move is written in the claims' place.
#[test]
fn the_page_offers_the_late_answer_to_claims_that_ended_the_game() {
    let ps = Players::new(2);
    let (anna, ben) = (&ps.p[0], &ps.p[1]);
    let s = Served::start(anna, &[]);
    let (id, log) = ben_invites_anna(ben, anna, "2s");
    let l = log.to_str().unwrap();
    for what in ["join", "ready"] {
        let r = act(&s, &id, entries_of(anna, &log), what, false);
        assert!(!s.page(r.location()).contains("notice error"));
    }
    // Ben plays until the game waits for Anna's move.
    loop {
        let st = anna.json(&["status", l, "--json"]);
        if st["to_act_seat"] == 1 && st["action"] == "move" {
            break;
        }
        let out = ben.run(&["play", l, "--auto"]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    std::thread::sleep(Duration::from_millis(3100));
    let out = ben.run(&["abandon", l, "--yes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let claim = entries_of(anna, &log) - 1;
    let page = s.page(&format!("/game/{id}"));
    let flat = page.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("still wins"), "{page}");
    assert!(!page.contains("Countersign the result"), "{page}");
    let m = anna.json(&["moves", l, "--json"])["moves"][0]["move"]
        .as_str()
        .unwrap()
        .to_string();
    let r = play(&s, &id, claim + 1, &m);
    assert!(!s.page(r.location()).contains("notice error"));
    let text = std::fs::read_to_string(&log).unwrap();
    assert_eq!(text.lines().count() as u64, claim + 1);
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last["body"]["kind"], "move", "{last}");
    assert_eq!(last["body"]["author"], 1, "{last}");
}

/// A field of a form as a browser sends it untouched: its name and value,
/// the options of a choice, the example of a text field.
#[derive(Debug, Clone)]
struct Field {
    name: String,
    value: String,
    options: Vec<String>,
    placeholder: Option<String>,
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// An attribute of a tag (`<input name="x" …>`), unescaped.
fn attr(tag: &str, name: &str) -> Option<String> {
    let key = format!(" {name}=\"");
    let i = tag.find(&key)? + key.len();
    Some(unescape(tag[i..].split('"').next()?))
}

/// The fields of the page's form that posts to `action`, in order.
fn form_fields(page: &str, action: &str) -> Vec<Field> {
    let start = page
        .find(&format!("action=\"{action}\""))
        .unwrap_or_else(|| panic!("no form for {action}: {page}"));
    let form = &page[start..start + page[start..].find("</form>").unwrap()];
    let mut fields = Vec::new();
    let mut rest = form;
    while let Some(i) = rest.find('<') {
        rest = &rest[i..];
        let end = rest.find('>').unwrap();
        let tag = &rest[..end];
        let after = &rest[end + 1..];
        let field = |value: String, options: Vec<String>| Field {
            name: attr(tag, "name").unwrap(),
            value,
            options,
            placeholder: attr(tag, "placeholder"),
        };
        if tag.starts_with("<input") {
            fields.push(field(attr(tag, "value").unwrap_or_default(), Vec::new()));
        } else if tag.starts_with("<textarea") {
            let text = &after[..after.find("</textarea>").unwrap()];
            fields.push(field(unescape(text), Vec::new()));
        } else if tag.starts_with("<select") {
            let list = &after[..after.find("</select>").unwrap()];
            let options: Vec<(String, bool)> = list
                .split("<option")
                .skip(1)
                .map(|o| {
                    let t = &o[..o.find('>').unwrap()];
                    (attr(t, "value").unwrap(), t.contains(" selected"))
                })
                .collect();
            let chosen = options
                .iter()
                .find(|(_, s)| *s)
                .or(options.first())
                .map(|(v, _)| v.clone())
                .unwrap();
            fields.push(field(chosen, options.into_iter().map(|(v, _)| v).collect()));
        }
        rest = after;
    }
    fields
}

/// Posts the new-game form with `fields`: the game's id when one was
/// created, or the refusal's page (422, the form again).
fn submit_new(s: &Served, fields: &[(String, String)]) -> Result<String, String> {
    let pairs: Vec<(&str, &str)> = fields
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let r = s.post("/new", &pairs);
    match r.status {
        303 if r.location().starts_with("/game/") => Ok(r.location()[6..70].to_string()),
        422 => Err(r.body),
        _ => panic!("{fields:?}: neither a game nor a refusal: {r:?}"),
    }
}

/// Issue 33, items 15 and 17: the new-game form of each game, as it comes,
/// starts a game; so does every option of every choice, and every example
/// of every field typed in. The one choice that wants a field filled
/// (Star Map's own layout) says so, in a form that keeps what was sent;
/// filled, it starts a game. Nothing is "given twice".
#[test]
fn every_option_of_every_new_game_form_starts_a_game_or_says_why() {
    let ps = Players::new(1);
    let p = &ps.p[0];
    let s = Served::start(p, &[]);
    let mut refused = Vec::new();
    for game in ["starry-sky", "starry-night", "star-map"] {
        let page = s.page(&format!("/new?game={game}"));
        let fields = form_fields(&page, "/new");
        let base: Vec<(String, String)> = fields
            .iter()
            .map(|f| (f.name.clone(), f.value.clone()))
            .collect();
        let with = |i: usize, v: &str| {
            let mut f = base.clone();
            f[i].1 = v.to_string();
            f
        };
        if let Err(e) = submit_new(&s, &base) {
            panic!("{game}: the form as it comes is refused: {e}");
        }
        for (i, f) in fields.iter().enumerate() {
            for o in &f.options {
                let Err(e) = submit_new(&s, &with(i, o)) else {
                    continue;
                };
                assert!(e.contains("class=\"notice error\""), "{game}: {o}: {e}");
                assert!(!e.contains("given twice"), "{game}: {o}: {e}");
                assert!(
                    e.contains("the field below it is empty"),
                    "{game}: {o}: {e}"
                );
                assert!(
                    e.contains(&format!("value=\"{o}\" selected")),
                    "{game}: the refused form forgot the choice {o}: {e}"
                );
                refused.push(format!("{game} {}={o}", f.name));
                // The field typed below the choice, filled with its example.
                let typed = fields[i + 1..]
                    .iter()
                    .position(|f| f.placeholder.is_some())
                    .map(|j| i + 1 + j)
                    .unwrap_or_else(|| panic!("{game}: nothing to type for {o}"));
                let mut filled = with(i, o);
                filled[typed].1 = fields[typed].placeholder.clone().unwrap();
                if let Err(e) = submit_new(&s, &filled) {
                    panic!("{game}: {o} with its field filled: {e}");
                }
                // A value named while the field is filled: which one?
                let mut both = filled.clone();
                both[i].1 = f.options[1].clone();
                let e = submit_new(&s, &both).unwrap_err();
                assert!(e.contains("as well"), "{game}: {e}");
                assert!(!e.contains("given twice"), "{game}: {e}");
            }
            if let Some(example) = &f.placeholder
                && let Err(e) = submit_new(&s, &with(i, example))
            {
                panic!("{game}: {} = its example {example}: {e}", f.name);
            }
        }
    }
    assert_eq!(refused, ["star-map variant:map=LAYOUT"]);
}

/// Issue 33, item 17: the form says how many players each game takes,
/// and a refused form comes back as it was sent.
#[test]
fn a_refused_new_game_form_keeps_what_was_typed() {
    let ps = Players::new(1);
    let p = &ps.p[0];
    let s = Served::start(p, &[]);
    let night = s.page("/new?game=starry-night");
    assert!(night.contains("(2 players)"), "{night}");
    let sky = s.page("/new?game=starry-sky");
    assert!(sky.contains("(3 to 5 players)"), "{sky}");
    let mut fields: Vec<(String, String)> = form_fields(&sky, "/new")
        .into_iter()
        .map(|f| (f.name, f.value))
        .collect();
    let set = |fields: &mut Vec<(String, String)>, k: &str, v: &str| {
        fields.iter_mut().find(|(n, _)| n == k).unwrap().1 = v.to_string();
    };
    let players = format!("{} <{}>\ncomputer:3\ncomputer:2", p.name, p.email);
    set(&mut fields, "players", &players);
    set(&mut fields, "deadline", "soon");
    set(&mut fields, "variant:doubling", "compound");
    set(&mut fields, "variant:tie", "nothing");
    let e = submit_new(&s, &fields).unwrap_err();
    assert!(e.contains("invalid value 'soon'"), "{e}");
    let kept = form_fields(&e, "/new");
    for (name, value) in &fields {
        let f = kept.iter().find(|f| &f.name == name).unwrap();
        assert_eq!(&f.value, value, "{name}: {e}");
    }
    // Fixed, it starts the game.
    set(&mut fields, "deadline", "3d");
    let id = submit_new(&s, &fields).unwrap();
    let log = p.copy_of(&id);
    let st = p.json(&["status", log.to_str().unwrap(), "--json"]);
    assert_eq!(st["seats"].as_array().map(Vec::len), Some(3), "{st}");
}

/// The labels of the choices beside the board, in order.
fn choice_labels(page: &str) -> Vec<String> {
    let Some(start) = page.find("<ul class=\"choices\">") else {
        return Vec::new();
    };
    let list = &page[start..start + page[start..].find("</ul>").unwrap()];
    list.split("<a class=\"choice\" href=\"")
        .skip(1)
        .map(|a| {
            let text = &a[a.find('>').unwrap() + 1..];
            unescape(&text[..text.find("</a>").unwrap()])
        })
        .collect()
}

/// Issue 33, items 16, 17 and 20: in a Starry Night game with Ben (who
/// plays with the CLI), Anna's page offers who moves first by name, says
/// what Ben did since her last entry, offers Ben's takeback request's
/// answers, and her own request as a button once it is legal: previewed,
/// then written when confirmed.
#[test]
fn starry_night_offers_first_by_name_the_takeback_and_its_answer() {
    let ps = Players::new(2);
    let (anna, ben) = (&ps.p[0], &ps.p[1]);
    let s = Served::start(anna, &[]);
    let (id, log) = ben_invites_anna(ben, anna, "14d");
    let l = log.to_str().unwrap();
    for what in ["join", "ready"] {
        let r = act(&s, &id, entries_of(anna, &log), what, false);
        assert!(!s.page(r.location()).contains("notice error"));
    }
    let out = ben.run(&["ready", l]);
    assert!(out.status.success(), "{}", stderr(&out));
    let game = format!("/game/{id}");
    let button = "<input type=\"hidden\" name=\"move\" value=\"takeback\">";

    // Anna chooses who moves first: by name.
    let page = s.page(&game);
    let labels = choice_labels(&page);
    assert_eq!(labels, ["Ben moves first", "Anna moves first"], "{page}");
    let r = play(&s, &id, entries_of(anna, &log), "first 0");
    assert!(!s.page(r.location()).contains("notice error"));

    // Ben draws an edge; Anna's page says so. One edge: nothing to take back.
    let out = ben.run(&["play", l, "--auto"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let page = s.page(&game);
    let said = page.split("id=\"happened\"").nth(1).unwrap();
    let said = &said[..said.find("</div>").unwrap()];
    assert!(said.contains("Since your last entry"), "{said}");
    assert!(said.contains("Ben drew edge"), "{said}");
    assert!(!page.contains(button), "{page}");
    let m = moves(anna, &log)["moves"][0]["move"]
        .as_str()
        .unwrap()
        .to_string();
    let r = play(&s, &id, entries_of(anna, &log), &m);
    assert!(!s.page(r.location()).contains("notice error"));

    // Ben asks to take back Anna's edge and his own: she is offered the
    // answers, and nothing else.
    let out = ben.run(&["play", l, "takeback"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let page = s.page(&game);
    assert_eq!(
        choice_labels(&page),
        ["accept the takeback", "decline the takeback"],
        "{page}"
    );
    assert!(!page.contains(button), "{page}");
    let accept = attr_after(&page, "<a class=\"choice\" href=\"").unwrap();
    let preview = s.page(&accept);
    assert_eq!(
        attr_after(&preview, "name=\"move\" value=\"").unwrap(),
        "accept"
    );
    let r = play(&s, &id, entries_of(anna, &log), "accept");
    assert!(!s.page(r.location()).contains("notice error"));

    // Played on until Anna moves with two edges drawn: her own request is
    // a button, which previews the request; confirmed, it is written.
    let mut page = s.page(&game);
    for _ in 0..8 {
        if page.contains(button) {
            break;
        }
        let st = anna.json(&["status", l, "--json"]);
        if st["to_act_seat"] == 0 {
            let out = ben.run(&["play", l, "--auto"]);
            assert!(out.status.success(), "{}", stderr(&out));
        } else {
            let m = moves(anna, &log)["moves"][0]["move"]
                .as_str()
                .unwrap()
                .to_string();
            let r = play(&s, &id, entries_of(anna, &log), &m);
            assert!(!s.page(r.location()).contains("notice error"));
        }
        page = s.page(&game);
    }
    assert!(page.contains(button), "no takeback offered: {page}");
    assert!(
        page.contains("Ask to take back the last two edges"),
        "{page}"
    );
    let before = std::fs::read(&log).unwrap();
    let preview = s.page(&format!("{game}?move=takeback"));
    assert!(preview.contains("Confirm the move"), "{preview}");
    assert!(
        preview.contains("aria-labelledby=\"board-caption\"")
            && preview.contains("Preview: the board after your move"),
        "the preview board is not labelled: {preview}"
    );
    assert_eq!(std::fs::read(&log).unwrap(), before, "a preview wrote");
    let n = entries_of(anna, &log);
    let r = play(&s, &id, n, "takeback");
    assert!(!s.page(r.location()).contains("notice error"));
    let history = anna.json(&["history", l, "--json"]);
    let last = history["events"][n as usize]["text"].as_str().unwrap();
    assert_eq!(
        last, "Anna asked to take back the last two edges.",
        "{history:#}"
    );
}

/// Issue 33, item 20: in a sky of 160 stars, the stars offered come in the
/// order their labels are read (A … Z, AA, AB …), for the first click and
/// the second.
#[test]
fn the_stars_offered_come_in_reading_order() {
    let ps = Players::new(1);
    let p = &ps.p[0];
    let s = Served::start(p, &[]);
    let (id, log) = new_game(
        &s,
        p,
        "starry-night",
        "computer:1",
        &[("flag:--random-stars", "160"), ("flag:--grid", "20x20")],
    );
    let index = |label: &str| -> usize {
        let name = label
            .strip_prefix("star ")
            .and_then(|l| l.split(' ').next())
            .unwrap_or_else(|| panic!("not a star: {label}"));
        name.bytes()
            .fold(0, |n, b| n * 26 + usize::from(b - b'A') + 1)
    };
    let in_order = |labels: &[String]| {
        let at: Vec<usize> = labels.iter().map(|l| index(l)).collect();
        assert!(labels.len() > 2, "{labels:?}");
        assert!(
            at.windows(2).all(|w| w[0] < w[1]),
            "not in reading order: {labels:?}"
        );
    };
    let mut page = s.page(&format!("/game/{id}"));
    if choice_labels(&page)
        .iter()
        .any(|l| l.ends_with("moves first"))
    {
        let r = play(&s, &id, entries_of(p, &log), "first 0");
        page = s.page(r.location());
    }
    let first = choice_labels(&page);
    in_order(&first);
    let next = attr_after(&page, "<a class=\"choice\" href=\"").unwrap();
    in_order(&choice_labels(&s.page(&next)));
}
