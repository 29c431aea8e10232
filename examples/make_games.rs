//! Makes the example games in `examples/games/` and the protocol test vectors
//! in `tests/vectors/`, from the example identities in
//! `examples/games/identities/` (EXAMPLES ONLY: their secrets are public).
//!
//!     cargo run --example make_games -- games     # examples/games/*.jsonl
//!     cargo run --example make_games -- games starry-night   # only those of one game
//!     cargo run --example make_games -- games star-map
//!     cargo run --example make_games -- vectors   # tests/vectors/*
//!     cargo run --example make_games -- vectors star-map   # only that game's
//!     cargo run --example make_games -- vectors name-noncharacter   # only those
//!
//! Games are played with `play --auto` semantics; times are invented (one
//! entry every 41 minutes from 1 November 2026) so the files look like
//! correspondence games. Each run makes new games (join nonces are fresh).

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use starry::app::act::{self, Do};
use starry::app::demo::{act_as, autoplay};
use starry::crypto::identity::Identity;
use starry::crypto::identity::Stored as _;
use starry::crypto::os_random;
use starry::games::star_map::data::{self, Shape};
use starry::games::star_map::map::{Placement, Refusal, SQUARES, Sq};
use starry::games::star_map::{Action as MapAction, Place, StarMap};
use starry::games::starry_night::StarryNight;
use starry::games::starry_sky::StarrySky;
use starry::games::{Draw, Own, Turn, prelude::*};
use starry::log::canonical::{to_bytes, to_value};
use starry::log::entry::{Body, Genesis, HexHash, Kind, Line, Move, Reveal, SeatInfo};
use starry::log::file;
use starry::log::replay::sign_line;
use starry::log::{Action, Replay};

const NAMES: [&str; 5] = ["Anna", "Ben", "Cleo", "Dan", "Eve"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The example identities, created on first use.
fn players(n: usize) -> Vec<(PathBuf, Identity)> {
    NAMES[..n]
        .iter()
        .map(|name| {
            let home = root()
                .join("examples/games/identities")
                .join(name.to_lowercase());
            let id = Identity::load(&home)
                .or_else(|_| {
                    Identity::create(&home, name, &format!("{}@example.org", name.to_lowercase()))
                })
                .expect("example identity");
            (home, id)
        })
        .collect()
}

/// Invented times: one entry every 41 minutes.
fn clock() -> impl FnMut() -> String {
    clock_after("2026-11-01T09:00:00Z")
}

/// One entry every 41 minutes after `start`.
fn clock_after(start: &str) -> impl FnMut() -> String {
    let mut t = chrono::DateTime::parse_from_rfc3339(start)
        .unwrap()
        .to_utc();
    move || {
        t += chrono::Duration::minutes(41);
        t.format("%Y-%m-%dT%H:%M:%SZ").to_string()
    }
}

/// Creates a game in `path` and plays it until `stop`.
fn make(
    path: &Path,
    n: usize,
    variants: &[(&str, &str)],
    stop: impl Fn(&Replay<StarrySky>) -> bool,
) -> Replay<StarrySky> {
    make_game::<StarrySky>(path, n, variants, stop)
}

fn make_game<G: starry::bot::Bot>(
    path: &Path,
    n: usize,
    variants: &[(&str, &str)],
    stop: impl Fn(&Replay<G>) -> bool,
) -> Replay<G> {
    let _ = fs::remove_file(path);
    let ps = players(n);
    // A clean record of joins, so the same identities can join new games.
    for (home, _) in &ps {
        let _ = fs::remove_dir_all(home.join("joined"));
        let _ = fs::remove_dir_all(home.join("written"));
    }
    let seats = ps.iter().map(|(_, id)| SeatInfo::of(id)).collect();
    let pairs: Vec<(String, String)> = variants
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let mut time = clock();
    let mut fresh = Draw::new(os_random());
    act::create::<G>(
        act::Author {
            home: &ps[0].0,
            id: &ps[0].1,
        },
        act::Setup {
            seats,
            pairs: &pairs,
            extra: None,
        },
        path,
        time(),
        &mut fresh,
    )
    .expect("create");
    let r = autoplay::<G>(path, &ps, &mut fresh, &mut time, stop, |_| {}).expect("autoplay");
    for (home, _) in &ps {
        let _ = fs::remove_dir_all(home.join("joined"));
        let _ = fs::remove_dir_all(home.join("written"));
    }
    r
}

/// Starry Night: both variants played to the end, and a game with a
/// takeback accepted and one declined.
fn night_games() {
    let dir = root().join("examples/games");
    let finished = |r: &Replay<StarryNight>| r.is_over() && r.countersigned.len() == 2;
    make_game::<StarryNight>(
        &dir.join("starry-night-finished-count.jsonl"),
        2,
        &[],
        finished,
    );
    make_game::<StarryNight>(
        &dir.join("starry-night-finished-area.jsonl"),
        2,
        &[("score", "area"), ("random-stars", "15"), ("grid", "12x12")],
        finished,
    );
    // The takeback game: a fixed sky; Anna asks for a takeback once a sea
    // has been captured against her (Ben accepts), and once more later (Ben
    // declines).
    let path = dir.join("starry-night-takeback.jsonl");
    let sky = "1,1 5,1 8,2 3,3 6,4 1,5 4,6 8,6 2,8 6,8 9,9";
    make_game::<StarryNight>(&path, 2, &[("stars", sky)], |r| {
        matches!(r.expected().0, Action::Move)
    });
    let ps = players(2);
    let last = Replay::<StarryNight>::from_bytes(&file::read(&path).unwrap()).unwrap();
    let mut time = clock_after(&last.entries.last().unwrap().time);
    let mut fresh = Draw::new(os_random());
    let mut asked = 0;
    loop {
        let r = Replay::<StarryNight>::from_bytes(&file::read(&path).unwrap()).unwrap();
        let state = r.state.as_ref().unwrap();
        let (action, seat) = r.expected();
        let (who, what) = match (action, seat) {
            (Action::Over, _) => match (0..2).find(|s| !r.countersigned.contains(s)) {
                Some(s) => (s, Do::Countersign),
                None => break,
            },
            (_, Some(s)) if state.asking().is_some() => (
                s,
                Do::Move(if asked == 1 { "accept" } else { "decline" }.into()),
            ),
            (_, Some(0))
                if asked < 2
                    && state.drawn().len() >= 2
                    && (state.captured()[1].0 > 0 || state.drawn().len() >= 9) =>
            {
                asked += 1;
                (0, Do::Move("takeback".into()))
            }
            (_, Some(s)) => (s, Do::Auto),
            (_, None) => break,
        };
        act_as::<StarryNight>(&path, &ps, who, what, time(), &mut fresh).expect("scripted move");
    }
    for (home, _) in &ps {
        let _ = fs::remove_dir_all(home.join("joined"));
        let _ = fs::remove_dir_all(home.join("written"));
    }
    println!("wrote Starry Night example games to {}", dir.display());
}

fn games() {
    let dir = root().join("examples/games");
    fs::create_dir_all(&dir).unwrap();
    let finished = |r: &Replay<StarrySky>| r.is_over() && r.countersigned.len() == r.seat_count();
    make(
        &dir.join("finished-3p-additive-coins.jsonl"),
        3,
        &[],
        finished,
    );
    make(
        &dir.join("finished-4p-compound-nothing.jsonl"),
        4,
        &[("doubling", "compound"), ("tie", "nothing")],
        finished,
    );
    make(
        &dir.join("finished-5p-compound-coins.jsonl"),
        5,
        &[("doubling", "compound")],
        finished,
    );
    // In progress: stop in the middle of the second round of boards, at a
    // moment when a face-down token is on the table.
    make(&dir.join("in-progress-4p.jsonl"), 4, &[], |r| {
        r.state.as_ref().is_some_and(|s| s.history().len() >= 2)
            && matches!(r.expected().0, Action::Move)
    });
    println!("wrote example games to {}", dir.display());
}

// ---- vectors -------------------------------------------------------------

fn lines_of(bytes: &[u8]) -> Vec<Vec<u8>> {
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| l.to_vec())
        .collect()
}

fn join_lines(lines: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for l in lines {
        out.extend_from_slice(l);
        out.push(b'\n');
    }
    out
}

fn parse(line: &[u8]) -> Line {
    serde_json::from_slice(line).unwrap()
}

/// Re-signs a (modified) body with `id`: a well-formed entry that says
/// something the rules must refuse.
fn resign_body(id: &Identity, body: Body) -> Vec<u8> {
    let mut l = sign_line(id, body);
    l.pop();
    l
}

struct Vectors {
    dir: PathBuf,
    manifest: Vec<Value>,
    /// Files audited together.
    pairs: Vec<Value>,
    /// How valid games ended, where that is what the vector is about.
    endings: Vec<Value>,
}

impl Vectors {
    fn add(&mut self, name: &str, bytes: &[u8], expect: &str, entry: Option<u64>, about: &str) {
        fs::write(self.dir.join(format!("{name}.jsonl")), bytes).unwrap();
        self.manifest.push(json!({"file": format!("{name}.jsonl"), "expect": expect, "entry": entry, "about": about}));
    }
}

/// The state of a log as its seat `seat` would see it, with their secrets.
fn own_of(
    r: &Replay<StarrySky>,
    id: &Identity,
    seat: usize,
) -> ([u8; 32], Own<<StarrySky as Rules>::Hidden>, [u8; 32]) {
    let secret = r.game_secret(id, seat).unwrap();
    let own = r.own_hidden(&secret, seat).unwrap();
    let link = r.next_link(&secret, seat).unwrap();
    (secret, own, link)
}

fn vectors() {
    let dir = root().join("tests/vectors");
    fs::create_dir_all(&dir).unwrap();
    // short-game.jsonl is tests/protocol_vectors.rs's, made from fixed seeds.
    for e in fs::read_dir(&dir).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "jsonl") && !p.ends_with("short-game.jsonl") {
            fs::remove_file(p).unwrap();
        }
    }
    let mut v = Vectors {
        dir: dir.clone(),
        manifest: Vec::new(),
        pairs: Vec::new(),
        endings: Vec::new(),
    };
    let ps = players(3);
    let tmp = tempfile::tempdir().unwrap();

    // A finished game and a game in progress, both valid.
    let done = tmp.path().join("done.jsonl");
    make(&done, 3, &[], |r| r.is_over() && r.countersigned.len() == 3);
    let done_bytes = file::read(&done).unwrap();
    v.add(
        "ok-finished",
        &done_bytes,
        "ok",
        None,
        "a finished, countersigned 3-player game",
    );

    let base = tmp.path().join("base.jsonl");
    let base_r = make(&base, 3, &[], |r| {
        r.len() >= 30 && matches!(r.expected().0, Action::Move)
    });
    let bytes = file::read(&base).unwrap();
    v.add("ok-in-progress", &bytes, "ok", None, "a game in progress");
    let lines = lines_of(&bytes);
    // Pick a move entry to tamper with (past setup).
    let k = (10..lines.len())
        .find(|&i| parse(&lines[i]).body.kind == Kind::Move)
        .unwrap();

    // Changed line: the star of a move altered, signature kept.
    let mut l = lines.clone();
    let mut line = parse(&l[k]);
    let mut action = line.body.data["action"].clone();
    let star = action["star"].as_str().unwrap().to_string();
    let (board, num) = star.split_once(':').unwrap();
    let other = format!("{board}:{}", if num == "1" { 2 } else { 1 });
    action["star"] = Value::String(other);
    line.body.data["action"] = action;
    l[k] = to_bytes(&to_value(&line));
    v.add(
        "changed-line",
        &join_lines(&l),
        "bad-signature",
        Some(k as u64),
        "a move's star changed after signing",
    );

    let mut l = lines.clone();
    l.remove(k);
    v.add(
        "deleted-line",
        &join_lines(&l),
        "broken-chain",
        Some(k as u64),
        "one line removed",
    );

    let mut l = lines.clone();
    l.insert(k, lines[k].clone());
    v.add(
        "duplicated-line",
        &join_lines(&l),
        "broken-chain",
        Some(k as u64 + 1),
        "one line repeated",
    );

    let mut l = lines.clone();
    l.swap(k, k + 1);
    v.add(
        "reordered-lines",
        &join_lines(&l),
        "broken-chain",
        Some(k as u64),
        "two lines swapped",
    );

    // Forged: the entry re-signed by another player's key.
    let mut l = lines.clone();
    let line = parse(&l[k]);
    let author = line.body.author as usize;
    let forger = &ps[(author + 1) % 3].1;
    l[k] = resign_body(forger, line.body.clone());
    v.add(
        "forged-signature",
        &join_lines(&l),
        "bad-signature",
        Some(k as u64),
        "an entry signed by another player",
    );

    let mut l = lines.clone();
    let mut line = parse(&l[k]);
    line.sig = String::new();
    l[k] = to_bytes(&to_value(&line));
    v.add(
        "missing-signature",
        &join_lines(&l),
        "bad-signature",
        Some(k as u64),
        "an entry with an empty signature",
    );

    // Non-canonical: a space after a colon.
    let mut l = lines.clone();
    let text = String::from_utf8(l[k].clone())
        .unwrap()
        .replacen("\":", "\": ", 1);
    l[k] = text.into_bytes();
    v.add(
        "non-canonical",
        &join_lines(&l),
        "non-canonical",
        Some(k as u64),
        "a space inserted into a line",
    );

    // Malformed: a line that is not JSON at all.
    let mut l = lines.clone();
    l[k] = b"{\"body\":{\"author\":0,".to_vec();
    v.add(
        "malformed-line",
        &join_lines(&l),
        "malformed",
        Some(k as u64),
        "a line that is not JSON",
    );

    // Truncated: the last line cut in the middle.
    let mut b = bytes.clone();
    b.truncate(b.len() - 40);
    v.add(
        "truncated",
        &b,
        "truncated",
        Some(lines.len() as u64 - 1),
        "the last line cut short",
    );

    // Entry from another game: the same position taken from a second game.
    let other = tmp.path().join("other.jsonl");
    make(&other, 3, &[], |r| r.len() >= 30);
    let olines = lines_of(&file::read(&other).unwrap());
    let mut l = lines.clone();
    l[k] = olines[k].clone();
    v.add(
        "foreign-entry",
        &join_lines(&l),
        "foreign-entry",
        Some(k as u64),
        "an entry from another game spliced in",
    );

    // Unknown versions: the genesis re-signed by its creator with a rules or
    // protocol version this program does not implement.
    for (name, field, val) in [
        ("unknown-rules-version", "rules", 99),
        ("unknown-protocol-version", "protocol", 4),
    ] {
        let mut line = parse(&lines[0]);
        line.body.data[field] = json!(val);
        let l = vec![resign_body(&ps[0].1, line.body)];
        v.add(
            name,
            &join_lines(&l),
            "unknown-version",
            Some(0),
            &format!("genesis with {field} {val}"),
        );
    }

    // Out of turn and illegal: well-signed entries the rules refuse. Work at
    // the end of the in-progress game, where seat `s` must move.
    let r = &base_r;
    let (_, Some(s)) = r.expected() else {
        unreachable!()
    };
    let state = r.state.clone().unwrap();
    {
        // Another seat plays a legal-looking move.
        let t = (s + 1) % 3;
        let (_, _, link) = own_of(r, &ps[t].1, t);
        // A move that would be legal for the seat whose turn it is.
        let (_, own_s, _) = own_of(r, &ps[s].1, s);
        let intent = StarrySky::intents(&state, s, &own_s).remove(0);
        let sealed = StarrySky::seal(&state, s, &intent, &own_s).unwrap();
        let action = to_value(&sealed.action);
        let b = append_move(&bytes, r, &ps[t].1, t, action, link);
        v.add(
            "out-of-turn",
            &b,
            "out-of-turn",
            Some(r.len()),
            "a signed move by a seat whose turn it is not",
        );
    }
    {
        // The seat to move places on an occupied star.
        let (_, _, link) = own_of(r, &ps[s].1, s);
        let view = serde_json::to_value(StarrySky::view(&state, None, None)).unwrap();
        let occupied = find_occupied_star(&view).expect("some star is occupied");
        let b = append_move(
            &bytes,
            r,
            &ps[s].1,
            s,
            json!({"star": occupied, "token": "1"}),
            link,
        );
        v.add(
            "illegal-move",
            &b,
            "illegal-move",
            Some(r.len()),
            "a token placed on an occupied star",
        );
    }
    {
        // A link that skips one step of the chain.
        let secret = r.game_secret(&ps[s].1, s).unwrap();
        let skipped = starry::crypto::beacon::link_for(
            &starry::crypto::beacon::seed(&secret),
            r.seats[s].links_used + 2,
        )
        .unwrap();
        let (_, own, _) = own_of(r, &ps[s].1, s);
        let intent = StarrySky::intents(&state, s, &own).remove(0);
        let sealed = StarrySky::seal(&state, s, &intent, &own).unwrap();
        let commitments = sealed
            .hidden
            .iter()
            .enumerate()
            .map(|(i, h)| HexHash(r.commit_next(&secret, s, i as u32, h)))
            .collect();
        let data = Move {
            action: to_value(&sealed.action),
            commitments,
            reveals: vec![],
        };
        let line = r.next_line(
            &ps[s].1,
            s,
            Kind::Move,
            to_value(&data),
            Some(skipped),
            "2026-11-30T12:00:00Z".into(),
        );
        let mut b = bytes.clone();
        b.extend_from_slice(&line);
        v.add(
            "bad-link",
            &b,
            "bad-link",
            Some(r.len()),
            "a beacon link that skips a step",
        );
    }

    // A fork: two different honest moves by the seat to move, each appended
    // to its own copy. Each copy is valid alone; together they prove that
    // the seat signed two entries for one position.
    {
        let (secret, own, link) = own_of(r, &ps[s].1, s);
        let intents = StarrySky::intents(&state, s, &own);
        let mut copies = Vec::new();
        for intent in [&intents[0], &intents[intents.len() - 1]] {
            let sealed = StarrySky::seal(&state, s, intent, &own).unwrap();
            let commitments = sealed
                .hidden
                .iter()
                .enumerate()
                .map(|(i, h)| HexHash(r.commit_next(&secret, s, i as u32, h)))
                .collect();
            let reveals = r.openings(&secret, &own, &sealed.reveals).unwrap();
            let data = Move {
                action: to_value(&sealed.action),
                commitments,
                reveals,
            };
            let line = r.next_line(
                &ps[s].1,
                s,
                Kind::Move,
                to_value(&data),
                Some(link),
                "2026-11-30T12:00:00Z".into(),
            );
            let mut b = bytes.clone();
            b.extend_from_slice(&line);
            copies.push(b);
        }
        v.add(
            "fork-a",
            &copies[0],
            "ok",
            None,
            "one copy of a forked game: valid alone",
        );
        v.add(
            "fork-b",
            &copies[1],
            "ok",
            None,
            "the other copy: valid alone, but audited with fork-a it is a fork",
        );
        v.pairs.push(json!({"files": ["fork-a.jsonl", "fork-b.jsonl"], "expect": "fork", "entry": r.len(), "same_author": true}));
    }

    // A reveal that does not open its commitment, and a token the player
    // could not have held: scripted from a fresh game.
    bad_reveals(&mut v, &ps, tmp.path());
    fault_table(&mut v, &ps, tmp.path(), &bytes, &base_r, &done_bytes);
    night_vectors(&mut v, tmp.path());
    map_vectors(&mut v, tmp.path());
    notify_vectors(&mut v, tmp.path());
    noncharacter_vectors(&mut v, tmp.path());
    protocol3_vectors(&mut v, tmp.path());
    operator_vectors(&mut v, tmp.path());
    due_vectors(&mut v, tmp.path());

    let manifest = serde_json::to_string_pretty(&json!({
        "about": "Protocol test vectors made by `cargo run --example make_games -- vectors` from the example identities; tests/vectors.rs audits each with the real binary.",
        "vectors": v.manifest,
        "pairs": v.pairs,
        "endings": v.endings,
    }))
    .unwrap();
    fs::write(dir.join("manifest.json"), manifest + "\n").unwrap();
    println!("wrote {} vectors to {}", v.manifest.len(), dir.display());
}

/// `make_games -- vectors GAME`: only one game's vectors (the files named
/// `prefix*`) made again by `make`, the others and their entries in the
/// manifest kept as they are; the new entries take the place of the old.
fn vectors_only(prefix: &str, make: fn(&mut Vectors, &Path)) {
    let dir = root().join("tests/vectors");
    let path = dir.join("manifest.json");
    let mut manifest: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    let ours = |e: &Value| e["file"].as_str().is_some_and(|f| f.starts_with(prefix));
    let list = |key: &str| manifest[key].as_array().cloned().unwrap_or_default();
    let (vectors, endings, old_pairs) = (list("vectors"), list("endings"), list("pairs"));
    let mut v = Vectors {
        dir: dir.clone(),
        manifest: Vec::new(),
        pairs: Vec::new(),
        endings: Vec::new(),
    };
    for e in fs::read_dir(&dir).unwrap().flatten() {
        if e.file_name().to_string_lossy().starts_with(prefix) {
            fs::remove_file(e.path()).unwrap();
        }
    }
    let tmp = tempfile::tempdir().unwrap();
    make(&mut v, tmp.path());
    // The old list with the new entries where the old ones were (at the
    // end if there were none).
    let splice = |old: Vec<Value>, new: Vec<Value>| -> Vec<Value> {
        let at = old.iter().position(&ours).unwrap_or(old.len());
        let mut out: Vec<Value> = old.iter().take(at).filter(|e| !ours(e)).cloned().collect();
        out.extend(new);
        out.extend(old.iter().skip(at).filter(|e| !ours(e)).cloned());
        out
    };
    manifest["vectors"] = Value::Array(splice(vectors, v.manifest));
    manifest["endings"] = Value::Array(splice(endings, v.endings));
    let pair_ours = |e: &Value| {
        e["files"][0]
            .as_str()
            .is_some_and(|f| f.starts_with(prefix))
    };
    let mut pairs: Vec<Value> = old_pairs.into_iter().filter(|e| !pair_ours(e)).collect();
    pairs.extend(v.pairs);
    manifest["pairs"] = Value::Array(pairs);
    fs::write(
        &path,
        serde_json::to_string_pretty(&manifest).unwrap() + "\n",
    )
    .unwrap();
    println!("wrote the {prefix}* vectors to {}", dir.display());
}

/// A join that asks for turn mails only (`"notify":"turn"`), and the two
/// ways to get it wrong: `"all"` written out (not canonical: `all` is the
/// default and is written by leaving the key out) and a value that is not
/// one. Each is Ben's join re-signed by Ben, the last entry of its log.
fn notify_vectors(v: &mut Vectors, tmp: &Path) {
    let ps = players(3);
    let path = tmp.join("notify.jsonl");
    make(&path, 3, &[], |r| r.len() >= 3);
    let lines = lines_of(&file::read(&path).unwrap());
    for (name, value, expect, what) in [
        (
            "join-notify-turn",
            "turn",
            "ok",
            "Ben joins asking for turn mails only: valid, and it changes no rule",
        ),
        (
            "join-notify-all",
            "all",
            "non-canonical",
            "a join that writes out the default \"notify\":\"all\"",
        ),
        (
            "join-notify-unknown",
            "sometimes",
            "malformed",
            "a join whose notify is neither turn nor absent",
        ),
        (
            "join-notify-null",
            "",
            "non-canonical",
            "a join with \"notify\":null: a null for an absent optional field (S3), as for a seat's key",
        ),
    ] {
        let mut line = parse(&lines[2]);
        assert_eq!(line.body.kind, Kind::Join);
        line.body.data["notify"] = match value {
            "" => Value::Null,
            v => Value::String(v.into()),
        };
        let mut l = lines[..2].to_vec();
        l.push(resign_body(&ps[1].1, line.body));
        let at = (expect != "ok").then_some(2);
        v.add(name, &join_lines(&l), expect, at, what);
    }
}

/// Genesis entries whose second seat's name holds a Unicode noncharacter
/// (protocol section 3.4): the first of the block U+FDD0–U+FDEF, the
/// first plane's U+FFFE (which XML cannot hold), and the very last code
/// point, U+10FFFF. Each is a genesis re-signed by its creator, alone.
fn noncharacter_vectors(v: &mut Vectors, tmp: &Path) {
    let ps = players(3);
    let path = tmp.join("noncharacter.jsonl");
    make(&path, 3, &[], |r| r.len() >= 2);
    let lines = lines_of(&file::read(&path).unwrap());
    for c in ['\u{fffe}', '\u{fdd0}', '\u{10ffff}'] {
        let code = format!("{:04X}", u32::from(c));
        v.add(
            &format!("name-noncharacter-{}", code.to_lowercase()),
            &edited_genesis(&lines, &ps, |b| {
                b.data["seats"][1]["name"] = json!(format!("Ben{c}"))
            }),
            "malformed",
            Some(0),
            &format!("a seat's name holding the noncharacter U+{code}"),
        );
    }
}

/// Seconds since 1970 of a log time, and back.
fn secs(t: &str) -> i64 {
    starry::log::replay::time_seconds(t).expect("a log time")
}

fn at(s: i64) -> String {
    starry::log::replay::time_text(s)
}

/// [`append`] with the entry dated `time`.
fn append_at(
    bytes: &[u8],
    ps: &[(PathBuf, Identity)],
    seat: usize,
    kind: Kind,
    data: Value,
    time: &str,
) -> Vec<u8> {
    let r = Replay::<StarrySky>::from_bytes(bytes).unwrap();
    let id = &ps[seat].1;
    let link = (kind != Kind::Join).then(|| {
        let secret = r.game_secret(id, seat).unwrap();
        r.next_link(&secret, seat).unwrap()
    });
    let line = r.next_line(id, seat, kind, data, link, time.into());
    let mut b = bytes.to_vec();
    b.extend_from_slice(&line);
    b
}

/// The next entry of `bytes` played by whoever must act (`play --auto`),
/// dated `time`.
fn auto_at(bytes: &[u8], ps: &[(PathBuf, Identity)], time: &str, tmp: &Path) -> Vec<u8> {
    let r = Replay::<StarrySky>::from_bytes(bytes).unwrap();
    let (_, Some(who)) = r.expected() else {
        panic!("nobody to act")
    };
    let path = tmp.join("auto.jsonl");
    let _ = fs::remove_file(&path);
    // Each call plays from the same copy again, on purpose.
    for (home, _) in ps {
        let _ = fs::remove_dir_all(home.join("written"));
    }
    fs::write(&path, bytes).unwrap();
    act_as::<StarrySky>(
        &path,
        ps,
        who,
        Do::Auto,
        time.into(),
        &mut Draw::new(os_random()),
    )
    .unwrap();
    file::read(&path).unwrap()
}

/// Protocol 3: the deadline in the genesis, claims one second early and
/// exactly on time, times that go back, a clock step, whose
/// countersignature settles an abandonment; and the four readings the
/// spec now fixes (a game object of another JSON type, a `null` inside a
/// game object, the nesting limit, a seat joining again with its own key).
fn protocol3_vectors(v: &mut Vectors, tmp: &Path) {
    let ps = players(3);
    let path = tmp.join("v3.jsonl");
    // A game in progress: every seat joined and ready, some moves made.
    let base_r = make(&path, 3, &[], |r| r.len() >= 12 && !r.is_over());
    assert_eq!(base_r.genesis.deadline, Some(14 * 86_400));
    let bytes = file::read(&path).unwrap();
    let lines = lines_of(&bytes);
    let n = base_r.len();
    let (_, Some(s)) = base_r.expected() else {
        unreachable!()
    };
    let others: Vec<usize> = (0..3).filter(|&c| c != s).collect();
    let start = secs(&base_r.entries.last().unwrap().time);
    let due = start + 14 * 86_400;
    let claim = json!({"awaited": n, "silent": s});
    v.add(
        "v3-ok-in-progress",
        &bytes,
        "ok",
        None,
        "a protocol 3 game with the default deadline of 14 days (1209600 seconds), in progress",
    );

    // Claims against the clock.
    let early = append_at(
        &bytes,
        &ps,
        others[0],
        Kind::Abandon,
        claim.clone(),
        &at(due - 1),
    );
    v.add("v3-claim-one-second-early", &early, "out-of-turn", Some(n), "a claim dated one second before the awaited seat's deadline passes (the time of the entry that made it its turn, plus the deadline)");
    let on_time = append_at(
        &bytes,
        &ps,
        others[0],
        Kind::Abandon,
        claim.clone(),
        &at(due),
    );
    v.add(
        "v3-claim-on-time",
        &on_time,
        "ok",
        None,
        "a claim dated exactly when the deadline passes",
    );
    let done = append_at(
        &on_time,
        &ps,
        others[1],
        Kind::Abandon,
        claim.clone(),
        &at(due + 60),
    );
    v.add(
        "v3-abandoned-on-time",
        &done,
        "ok",
        None,
        "both other seats claim, on time: the game is abandoned",
    );
    v.endings
        .push(json!({"file": "v3-abandoned-on-time.jsonl", "ending": "abandoned"}));
    // A clock step: the entry that starts the awaited seat's clock is dated
    // three days after the one before; the clock runs from it, not from
    // the entry before.
    let stepped = auto_at(&bytes, &ps, &at(start + 3 * 86_400), tmp);
    let r2 = Replay::<StarrySky>::from_bytes(&stepped).unwrap();
    let (_, Some(s2)) = r2.expected() else {
        unreachable!()
    };
    let other2 = (0..3).find(|&c| c != s2).unwrap();
    let claim2 = json!({"awaited": n + 1, "silent": s2});
    v.add("v3-claim-early-after-clock-step", &append_at(&stepped, &ps, other2, Kind::Abandon, claim2.clone(), &at(due)), "out-of-turn", Some(n + 1), "the clock steps three days between two entries; a claim 14 days after the earlier one is three days early, since the awaited seat's turn began with the later");
    v.add(
        "v3-claim-on-time-after-clock-step",
        &append_at(
            &stepped,
            &ps,
            other2,
            Kind::Abandon,
            claim2,
            &at(due + 3 * 86_400),
        ),
        "ok",
        None,
        "the same claim, 14 days after the entry that began the awaited seat's turn",
    );
    // Times never go back; equal times are fine.
    let same = auto_at(&bytes, &ps, &at(start), tmp);
    v.add(
        "v3-same-time",
        &same,
        "ok",
        None,
        "an entry dated the same second as the one before",
    );
    let back = edited_line(&lines_of(&same), &ps, n as usize, |b| {
        b.time = at(start - 1)
    });
    v.add(
        "v3-time-goes-back",
        &back,
        "backward-time",
        Some(n),
        "an entry dated one second before the one before it",
    );
    // Whose countersignature settles an abandonment: only the silent
    // seat's. A claimant's does not, and the late answer still wins.
    let final_id = |b: &[u8]| {
        let r = Replay::<StarrySky>::from_bytes(b).unwrap();
        hex::encode(r.entries[r.ended_at.unwrap() as usize].id)
    };
    let by_claimant = append_at(
        &done,
        &ps,
        others[0],
        Kind::Countersign,
        json!({"final": final_id(&done)}),
        &at(due + 120),
    );
    let late = auto_at(&bytes, &ps, &at(due + 180), tmp);
    v.add(
        "v3-abandoned-countersigned-by-claimant",
        &by_claimant,
        "ok",
        None,
        "an abandonment countersigned by a claimant: in protocol 3 that settles nothing",
    );
    v.add("v3-answered-late", &late, "ok", None, "the awaited seat's entry, written late on an old copy: audited with v3-abandoned-countersigned-by-claimant the claims lapse; with v3-abandoned-countersigned-by-silent it is a fork");
    v.pairs.push(json!({"files": ["v3-abandoned-countersigned-by-claimant.jsonl", "v3-answered-late.jsonl"], "expect": "ok", "entry": n, "same_author": false, "resolution": "claim-lapsed"}));
    let by_silent = append_at(
        &done,
        &ps,
        s,
        Kind::Countersign,
        json!({"final": final_id(&done)}),
        &at(due + 120),
    );
    v.add(
        "v3-abandoned-countersigned-by-silent",
        &by_silent,
        "ok",
        None,
        "an abandonment countersigned by the silent seat itself: the result stands",
    );
    v.pairs.push(json!({"files": ["v3-abandoned-countersigned-by-silent.jsonl", "v3-answered-late.jsonl"], "expect": "fork", "entry": n, "same_author": false}));
    // The deadline's shape.
    for (name, edit, expect, what) in [
        (
            "v3-deadline-zero",
            json!(0),
            "malformed",
            "a genesis whose deadline is 0 seconds",
        ),
        (
            "v3-deadline-too-long",
            json!(366 * 86_400 + 1),
            "malformed",
            "a genesis whose deadline is one second over 366 days",
        ),
        (
            "v3-deadline-longest",
            json!(366 * 86_400),
            "ok",
            "a genesis whose deadline is 366 days, the longest",
        ),
        (
            "v3-deadline-not-a-number",
            json!("14d"),
            "malformed",
            "a genesis whose deadline is a string",
        ),
    ] {
        let at0 = (expect != "ok").then_some(0);
        v.add(
            name,
            &edited_genesis(&lines, &ps, |b| b.data["deadline"] = edit.clone()),
            expect,
            at0,
            what,
        );
    }
    v.add(
        "v3-protocol-2-with-deadline",
        &edited_genesis(&lines, &ps, |b| b.data["protocol"] = json!(2)),
        "malformed",
        Some(0),
        "a genesis of protocol 2 with a deadline (deadlines came with version 3)",
    );
    let no_deadline = edited_genesis(&lines, &ps, |b| {
        b.data.as_object_mut().unwrap().remove("deadline");
    });
    v.add(
        "v3-no-deadline",
        &no_deadline,
        "ok",
        None,
        "a protocol 3 genesis without a deadline: claims may come at any time",
    );
    // A game object of another JSON type than the game's is no value the
    // game knows (20), not a non-canonical one (12).
    v.add("v3-options-as-array", &edited_genesis(&lines, &ps, |b| b.data["options"] = json!(["additive", "coins"])), "illegal-move", Some(0), "the options written as an array of their values, which a serde reader could take for the object");
    v.add(
        "v3-options-empty-array",
        &edited_genesis(&lines, &ps, |b| b.data["options"] = json!([])),
        "illegal-move",
        Some(0),
        "the options written as []",
    );
    let first_move = (1..n as usize)
        .find(|&k| parse(&lines[k]).body.kind == Kind::Move)
        .unwrap();
    let fields =
        |a: &Value| -> Value { Value::Array(a.as_object().unwrap().values().cloned().collect()) };
    v.add(
        "v3-action-as-array",
        &edited_line(&lines, &ps, first_move, |b| {
            b.data["action"] = fields(&b.data["action"])
        }),
        "illegal-move",
        Some(first_move as u64),
        "a move whose action is an array of its fields' values",
    );
    // A null inside a game object is non-canonical (S3), found before the
    // bad link (S10) of the same entry.
    v.add("v3-null-in-action-and-bad-link", &edited_line(&lines, &ps, first_move, |b| {
        b.data["action"]["note"] = Value::Null;
        b.link = Some(HexHash([7; 32]));
    }), "non-canonical", Some(first_move as u64), "a move with a null inside its action and a beacon link that is wrong: the null (S3) comes first");
    // The nesting limit: 32 levels pass S2 (the action is then no move the
    // game knows), 33 are malformed.
    let nested = |levels: usize| {
        let mut a = json!([]);
        for _ in 1..levels {
            a = json!([a]);
        }
        a
    };
    v.add("v3-nested-32", &edited_line(&lines, &ps, first_move, |b| b.data["action"] = nested(29)), "illegal-move", Some(first_move as u64), "a line nested 32 deep (the action 29 arrays deep, inside the line, body and data): within the limit, and no move the game knows");
    v.add(
        "v3-nested-33",
        &edited_line(&lines, &ps, first_move, |b| b.data["action"] = nested(30)),
        "malformed",
        Some(first_move as u64),
        "a line nested 33 deep: over the limit of 32",
    );
    // A seat that joins again with its own key: out of turn, not a key
    // holding two seats.
    let join = parse(&lines[2]).body;
    assert_eq!(join.kind, Kind::Join);
    let mut again = join.clone();
    again.n = 3;
    again.prev = Some(HexHash(starry::crypto::sha256(&lines[2])));
    again.time = parse(&lines[2]).body.time;
    let mut l = lines[..3].to_vec();
    l.push(resign_body(&ps[1].1, again));
    v.add(
        "v3-join-twice-own-key",
        &join_lines(&l),
        "out-of-turn",
        Some(3),
        "seat 1 writes a second join with its own key where seat 2 must join",
    );
}

/// Computer seats' operators (protocol section 3.4): a game of Anna, Ben
/// and a computer seat (Cleo's example identity, pinned) that Anna's
/// machine plays. A claim against Anna needs Ben's alone; the computer
/// claiming against its operator, or Anna against her computer, is out of
/// turn; and the malformed ways to name an operator.
fn operator_vectors(v: &mut Vectors, tmp: &Path) {
    let ps = players(3);
    let path = tmp.join("operator.jsonl");
    let _ = fs::remove_file(&path);
    for (home, _) in &ps {
        let _ = fs::remove_dir_all(home.join("joined"));
        let _ = fs::remove_dir_all(home.join("written"));
    }
    let mut seats: Vec<SeatInfo> = ps.iter().map(|(_, id)| SeatInfo::of(id)).collect();
    seats[2].key = Some(HexHash(ps[2].1.public_key()));
    seats[2].operator = Some(0);
    let mut time = clock();
    let mut fresh = Draw::new(os_random());
    act::create::<StarrySky>(
        act::Author {
            home: &ps[0].0,
            id: &ps[0].1,
        },
        act::Setup {
            seats,
            pairs: &[],
            extra: None,
        },
        &path,
        time(),
        &mut fresh,
    )
    .expect("create");
    // Played until the game waits for Anna, some moves in.
    let base_r = autoplay::<StarrySky>(
        &path,
        &ps,
        &mut fresh,
        &mut time,
        |r| r.len() >= 12 && r.expected() == (Action::Move, Some(0)),
        |_| {},
    )
    .expect("autoplay");
    for (home, _) in &ps {
        let _ = fs::remove_dir_all(home.join("joined"));
        let _ = fs::remove_dir_all(home.join("written"));
    }
    let bytes = file::read(&path).unwrap();
    let lines = lines_of(&bytes);
    let n = base_r.len();
    let due = secs(&base_r.entries.last().unwrap().time) + 14 * 86_400;
    v.add(
        "operator-ok-in-progress",
        &bytes,
        "ok",
        None,
        "a game of Anna, Ben and a computer seat (seat 2, pinned) whose genesis names Anna (seat 0) its operator, waiting for Anna",
    );
    let against_anna = json!({"awaited": n, "silent": 0});
    v.add(
        "operator-claim-without-the-computer",
        &append_at(&bytes, &ps, 1, Kind::Abandon, against_anna.clone(), &at(due)),
        "ok",
        None,
        "Ben's claim against Anna, on time, ends the game: it needs no claim of the computer seat Anna operates",
    );
    v.endings
        .push(json!({"file": "operator-claim-without-the-computer.jsonl", "ending": "abandoned"}));
    v.add(
        "operator-computer-claims-against-its-operator",
        &append_at(&bytes, &ps, 2, Kind::Abandon, against_anna, &at(due)),
        "out-of-turn",
        Some(n),
        "the computer seat claims that Anna, its operator, stopped answering",
    );
    // Anna moves, Ben moves: the game waits for the computer.
    let mut waits = bytes.clone();
    let mut last = base_r.entries.last().unwrap().time.clone();
    loop {
        let r = Replay::<StarrySky>::from_bytes(&waits).unwrap();
        if r.expected().1 == Some(2) {
            break;
        }
        last = at(secs(&last) + 60);
        waits = auto_at(&waits, &ps, &last, tmp);
    }
    let m = Replay::<StarrySky>::from_bytes(&waits).unwrap().len();
    let against_computer = json!({"awaited": m, "silent": 2});
    let due2 = secs(&last) + 14 * 86_400;
    v.add(
        "operator-claim-against-the-computer",
        &append_at(&waits, &ps, 1, Kind::Abandon, against_computer.clone(), &at(due2)),
        "ok",
        None,
        "Ben's claim against the computer seat ends the game: Anna, whose machine plays it, is on its side and is not needed",
    );
    v.endings
        .push(json!({"file": "operator-claim-against-the-computer.jsonl", "ending": "abandoned"}));
    v.add(
        "operator-claims-against-own-computer",
        &append_at(&waits, &ps, 0, Kind::Abandon, against_computer, &at(due2)),
        "out-of-turn",
        Some(m),
        "Anna claims that the computer seat she operates stopped answering",
    );
    // The shape of `operator`.
    let pin_ben =
        |b: &mut Body| b.data["seats"][1]["key"] = json!(hex::encode(ps[1].1.public_key()));
    type Edit<'a> = Box<dyn Fn(&mut Body) + 'a>;
    let cases: Vec<(&str, Edit, &str, &str)> = vec![
        (
            "operator-of-seat-0",
            Box::new(|b: &mut Body| b.data["seats"][0]["operator"] = json!(1)),
            "malformed",
            "seat 0, the creator who signs the genesis, with an operator",
        ),
        (
            "operator-itself",
            Box::new(|b: &mut Body| b.data["seats"][2]["operator"] = json!(2)),
            "malformed",
            "a seat that names itself its operator",
        ),
        (
            "operator-not-a-seat",
            Box::new(|b: &mut Body| b.data["seats"][2]["operator"] = json!(3)),
            "malformed",
            "an operator that is no seat (seat 3 of 3)",
        ),
        (
            "operator-is-a-computer",
            Box::new(move |b: &mut Body| {
                pin_ben(b);
                b.data["seats"][1]["operator"] = json!(2);
            }),
            "malformed",
            "Ben's seat, pinned, operated by the computer seat, itself operated: an operator is a person",
        ),
        (
            "operator-without-key",
            Box::new(|b: &mut Body| {
                b.data["seats"][2].as_object_mut().unwrap().remove("key");
            }),
            "malformed",
            "an operated seat without a pinned key",
        ),
        (
            "operator-not-a-number",
            Box::new(|b: &mut Body| b.data["seats"][2]["operator"] = json!("0")),
            "malformed",
            "an operator written as a string",
        ),
        (
            "operator-negative",
            Box::new(|b: &mut Body| b.data["seats"][2]["operator"] = json!(-1)),
            "malformed",
            "an operator of -1",
        ),
        (
            "operator-in-protocol-2",
            Box::new(|b: &mut Body| {
                b.data["protocol"] = json!(2);
                b.data.as_object_mut().unwrap().remove("deadline");
            }),
            "malformed",
            "a genesis of protocol 2 that names an operator (operators came with version 3)",
        ),
        (
            "operator-null",
            Box::new(|b: &mut Body| b.data["seats"][1]["operator"] = Value::Null),
            "non-canonical",
            "a null for a person's absent operator (S3)",
        ),
    ];
    for (name, edit, expect, what) in cases {
        v.add(
            name,
            &edited_genesis(&lines, &ps, edit),
            expect,
            Some(0),
            what,
        );
    }
}

/// The clock's due time capped at 9999-12-31T23:59:59Z, the last time a
/// log can hold (protocol section 7): the entry that starts the awaited
/// seat's clock is dated 9999-12-31T00:00:00Z, so the deadline of 14 days
/// would fall in year 10000, which no claim could be dated.
fn due_vectors(v: &mut Vectors, tmp: &Path) {
    let ps = players(3);
    let path = tmp.join("due.jsonl");
    make(&path, 3, &[], |r| r.len() >= 12 && !r.is_over());
    let late = auto_at(
        &file::read(&path).unwrap(),
        &ps,
        "9999-12-31T00:00:00Z",
        tmp,
    );
    let r = Replay::<StarrySky>::from_bytes(&late).unwrap();
    let (_, Some(s)) = r.expected() else {
        unreachable!()
    };
    let other = (0..3).find(|&c| c != s).unwrap();
    let claim = json!({"awaited": r.len(), "silent": s});
    v.add(
        "due-past-year-9999",
        &late,
        "ok",
        None,
        "the entry that starts the awaited seat's clock is dated 9999-12-31T00:00:00Z: its deadline of 14 days is capped at 9999-12-31T23:59:59Z",
    );
    v.add(
        "due-capped-claim-on-time",
        &append_at(
            &late,
            &ps,
            other,
            Kind::Abandon,
            claim.clone(),
            "9999-12-31T23:59:59Z",
        ),
        "ok",
        None,
        "a claim dated 9999-12-31T23:59:59Z, the capped deadline",
    );
    v.add(
        "due-capped-claim-one-second-early",
        &append_at(
            &late,
            &ps,
            other,
            Kind::Abandon,
            claim,
            "9999-12-31T23:59:58Z",
        ),
        "out-of-turn",
        Some(r.len()),
        "a claim one second before the capped deadline",
    );
}

/// `unknown-protocol-version.jsonl` with protocol 4 (it held 3, which is
/// now a version starry reads): its genesis re-signed by its creator.
fn protocol4_vector() {
    let dir = root().join("tests/vectors");
    let file = dir.join("unknown-protocol-version.jsonl");
    let lines = lines_of(&fs::read(&file).unwrap());
    let ps = players(3);
    fs::write(
        &file,
        edited_genesis(&lines, &ps, |b| b.data["protocol"] = json!(4)),
    )
    .unwrap();
    let path = dir.join("manifest.json");
    let mut manifest: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    for e in manifest["vectors"].as_array_mut().unwrap() {
        if e["file"] == "unknown-protocol-version.jsonl" {
            e["about"] = json!("genesis with protocol 4");
        }
    }
    fs::write(
        &path,
        serde_json::to_string_pretty(&manifest).unwrap() + "\n",
    )
    .unwrap();
}

/// Starry Night's vectors: a valid game with a takeback, and each way a
/// Starry Night move can be refused.
fn night_vectors(v: &mut Vectors, tmp: &Path) {
    type N = StarryNight;
    let ps = players(2);
    // A(0,0) B(4,0) C(8,0) D(0,2) E(4,2) F(8,5): the Z trade and two more.
    let sky = "0,0 4,0 0,2 4,2 8,5 8,0";
    let path = tmp.join("night.jsonl");
    make_game::<N>(&path, 2, &[("stars", sky)], |r| {
        matches!(r.expected().0, Action::Move)
    });
    let mut time = clock_after("2026-11-02T09:00:00Z");
    let mut fresh = Draw::new(os_random());
    let play = |mv: &str, time: &mut dyn FnMut() -> String, fresh: &mut Draw| {
        let r = Replay::<N>::from_bytes(&file::read(&path).unwrap()).unwrap();
        let who = r.expected().1.unwrap();
        act_as::<N>(&path, &ps, who, Do::Move(mv.into()), time(), fresh).expect("scripted move");
    };
    // Ben chooses Anna; A-B, D-E, A-E; Ben captures A-D-E.
    for mv in ["first 0", "A-B", "D-E", "A-E", "A-D"] {
        play(mv, &mut time, &mut fresh);
    }
    let captured = file::read(&path).unwrap();
    // Anna asks for a takeback, Ben accepts; they play on to the end.
    for mv in [
        "takeback", "accept", "A-E", "A-D", "takeback", "decline", "B-E", "B-C", "E-F",
    ] {
        play(mv, &mut time, &mut fresh);
    }
    let over = file::read(&path).unwrap();
    let r = Replay::<N>::from_bytes(&over).unwrap();
    assert!(r.is_over());
    for seat in 0..ps.len() {
        act_as::<N>(&path, &ps, seat, Do::Countersign, time(), &mut fresh).expect("countersign");
    }
    let done = file::read(&path).unwrap();
    v.add("starry-night-ok", &done, "ok", None, "Starry Night: a finished game with a takeback accepted and one declined, countersigned by both");

    // Moves appended to the position after Ben's capture (Anna to move).
    let r = Replay::<N>::from_bytes(&captured).unwrap();
    let next = r.len() as u64;
    let with = |seat: usize, data: Value| -> Vec<u8> {
        let id = &ps[seat].1;
        let secret = r.game_secret(id, seat).unwrap();
        let link = r.next_link(&secret, seat).unwrap();
        let mut b = captured.clone();
        b.extend_from_slice(&r.next_line(
            id,
            seat,
            Kind::Move,
            data,
            Some(link),
            "2026-11-30T12:00:00Z".into(),
        ));
        b
    };
    let edge = |a: [i32; 2], b: [i32; 2]| json!({"action": {"edge": [a, b]}, "commitments": [], "reveals": []});
    v.add(
        "starry-night-edge-crosses",
        &with(0, edge([4, 0], [0, 2])),
        "illegal-move",
        Some(next),
        "Starry Night: an edge B-D that crosses the edge A-E",
    );
    v.add(
        "starry-night-edge-through-a-star",
        &with(0, edge([0, 0], [8, 0])),
        "illegal-move",
        Some(next),
        "Starry Night: an edge A-C that passes through star B",
    );
    v.add(
        "starry-night-edge-joined-twice",
        &with(0, edge([4, 2], [0, 2])),
        "illegal-move",
        Some(next),
        "Starry Night: an edge E-D, joined already",
    );
    v.add(
        "starry-night-edge-to-no-star",
        &with(0, edge([1, 1], [4, 0])),
        "illegal-move",
        Some(next),
        "Starry Night: an edge from a grid point that holds no star",
    );
    v.add(
        "starry-night-out-of-turn",
        &with(1, edge([4, 0], [4, 2])),
        "out-of-turn",
        Some(next),
        "Starry Night: Ben draws an edge while Anna is to move",
    );
    v.add(
        "starry-night-answer-without-request",
        &with(
            0,
            json!({"action": {"takeback": "accept"}, "commitments": [], "reveals": []}),
        ),
        "illegal-move",
        Some(next),
        "Starry Night: Anna accepts a takeback nobody asked for",
    );
    v.add("starry-night-commitment", &with(0, json!({"action": {"edge": [[4, 0], [4, 2]]}, "commitments": [hex::encode([7u8; 32])], "reveals": []})), "illegal-move", Some(next),
        "Starry Night: an edge that carries a commitment (nothing is hidden)");
    v.add(
        "starry-night-choice-twice",
        &with(
            0,
            json!({"action": {"first": 1}, "commitments": [], "reveals": []}),
        ),
        "illegal-move",
        Some(next),
        "Starry Night: a second choice of the first player",
    );
    // After the end: any move.
    let r_over = Replay::<N>::from_bytes(&over).unwrap();
    let id = &ps[1].1;
    let secret = r_over.game_secret(id, 1).unwrap();
    let link = r_over.next_link(&secret, 1).unwrap();
    let mut late = over.clone();
    late.extend_from_slice(&r_over.next_line(
        id,
        1,
        Kind::Move,
        json!({"action": {"edge": [[0, 2], [8, 5]]}, "commitments": [], "reveals": []}),
        Some(link),
        "2026-11-30T12:00:00Z".into(),
    ));
    v.add(
        "starry-night-move-after-the-end",
        &late,
        "out-of-turn",
        Some(r_over.len() as u64),
        "Starry Night: an edge after the last isolated star was joined",
    );
    // A sky the beacon chain cannot carry: 170 stars (at most 163).
    let lines = lines_of(&captured);
    let many: Vec<Value> = (0..170).map(|i| json!([i % 100, i / 100])).collect();
    let genesis = edited_genesis(&lines, &ps, |b| {
        b.data["options"]["sky"] = json!({"stars": {"width": 100, "height": 2, "stars": many}});
    });
    v.add("starry-night-too-many-stars", &genesis, "illegal-move", Some(0),
        "Starry Night: a genesis with 170 stars, more than a beacon chain can carry a game of (at most 163)");
}

// ---- Star Map ------------------------------------------------------------

/// Every move action of a log, in order.
fn move_actions(bytes: &[u8]) -> Vec<Value> {
    lines_of(bytes)
        .iter()
        .map(|l| parse(l))
        .filter(|l| l.body.kind == Kind::Move)
        .map(|l| l.body.data["action"].clone())
        .collect()
}

/// Whether a Star Map log holds a pass and a draw chosen from another
/// stack (`"draw": SHAPE`, written when the placed shape's stack is empty).
fn has_pass_and_draw(bytes: &[u8]) -> bool {
    let actions = move_actions(bytes);
    actions.iter().any(|a| a == "pass") && actions.iter().any(|a| !a["place"]["draw"].is_null())
}

/// Plays finished Star Map games with `n` players, up to `tries`, until one
/// holds a pass and a chosen draw (most games with two players do; with
/// more, passes are rare), or keeps the last one.
fn map_game(path: &Path, n: usize, variants: &[(&str, &str)], tries: usize) -> Vec<u8> {
    for _ in 0..tries {
        make_game::<StarMap>(path, n, variants, |r| {
            r.is_over() && r.countersigned.len() == r.seat_count()
        });
        if has_pass_and_draw(&file::read(path).unwrap()) {
            break;
        }
    }
    file::read(path).unwrap()
}

/// Star Map: finished games with two, three and four players (teams), on
/// each kind of map.
fn map_games() {
    let dir = root().join("examples/games");
    let two = map_game(
        &dir.join("star-map-2-players.jsonl"),
        2,
        &[("map", "random")],
        20,
    );
    assert!(
        has_pass_and_draw(&two),
        "no 2-player Star Map game with a pass and a chosen draw in 20 tries"
    );
    map_game(
        &dir.join("star-map-3-players-hard.jsonl"),
        3,
        &[("map", "hard")],
        1,
    );
    map_game(
        &dir.join("star-map-4-players-teams.jsonl"),
        4,
        &[("map", "mixed")],
        1,
    );
    println!("wrote Star Map example games to {}", dir.display());
}

/// A position of a Star Map log at which the seat to move writes entry `k`:
/// the log's first `k` lines and the state that seat's entry will see (its
/// link resolves the pending draw, if any).
struct MapPos {
    k: usize,
    bytes: Vec<u8>,
    r: Replay<StarMap>,
    seat: usize,
    state: <StarMap as Rules>::State,
}

/// The positions of a log at which a seat must move.
fn map_positions(log: &[u8], ps: &[(PathBuf, Identity)]) -> Vec<MapPos> {
    let lines = lines_of(log);
    let end = Replay::<StarMap>::from_bytes(log)
        .unwrap()
        .ended_at
        .map_or(lines.len(), |e| e as usize);
    (1..=end)
        .filter_map(|k| {
            let bytes = join_lines(&lines[..k]);
            let r = Replay::<StarMap>::from_bytes(&bytes).unwrap();
            let (Action::Move, Some(seat)) = r.expected() else {
                return None;
            };
            let secret = r.game_secret(&ps[seat].1, seat).unwrap();
            let link = r.next_link(&secret, seat).unwrap();
            let state = r.preview(seat, &link).unwrap();
            Some(MapPos {
                k,
                bytes,
                r,
                seat,
                state,
            })
        })
        .collect()
}

/// `pos`'s log with a move by `seat` appended, rightly linked and signed.
fn map_entry(pos: &MapPos, ps: &[(PathBuf, Identity)], seat: usize, data: Value) -> Vec<u8> {
    let id = &ps[seat].1;
    let secret = pos.r.game_secret(id, seat).unwrap();
    let link = pos.r.next_link(&secret, seat).unwrap();
    let mut b = pos.bytes.clone();
    b.extend_from_slice(&pos.r.next_line(
        id,
        seat,
        Kind::Move,
        data,
        Some(link),
        "2026-11-30T12:00:00Z".into(),
    ));
    b
}

/// A move's data: `action`, no commitments, no reveals.
fn map_move(action: Value) -> Value {
    json!({"action": action, "commitments": [], "reveals": []})
}

/// A placement as the log writes it, with the draw its shape needs when
/// its stack is empty (so that only what a vector is about is wrong).
fn map_place(state: &<StarMap as Rules>::State, p: Placement) -> Place {
    let shape = state.set().discs[p.disc as usize].shape;
    Place {
        disc: p.disc,
        at: p.at,
        rotation: p.rotation,
        draw: state.draw_choices(shape).first().copied(),
    }
}

/// A placement from `seat`'s hand that the map refuses for a reason `want`
/// accepts.
fn map_refused(
    state: &<StarMap as Rules>::State,
    seat: usize,
    want: impl Fn(&Refusal) -> bool,
) -> Option<Place> {
    for &disc in state.hand(seat) {
        let d = &state.set().discs[disc as usize];
        for i in 0..SQUARES {
            for &rotation in d.shape.rotations() {
                let at = Sq(i as u8);
                if let Err(refusal) = state.map().check(d.shape, &d.fields, at, rotation)
                    && want(&refusal)
                {
                    return Some(map_place(state, Placement { disc, at, rotation }));
                }
            }
        }
    }
    None
}

/// The first legal placement of the seat to move, as the log writes it,
/// with `edit` applied to its JSON (`None` when it has none, or when `edit`
/// says this placement does not fit).
fn map_legal(pos: &MapPos, edit: impl Fn(&mut Value) -> bool) -> Option<(usize, Value)> {
    pos.state.placements(pos.seat).into_iter().find_map(|p| {
        let mut place = to_value(&MapAction::Place(map_place(&pos.state, p)));
        edit(&mut place).then(|| (pos.seat, map_move(place)))
    })
}

/// A placement of the seat to move that the map refuses for a reason `want`
/// accepts, past the first move (`first`: at the first move).
fn map_refusal(
    pos: &MapPos,
    first: bool,
    want: impl Fn(&Refusal) -> bool,
) -> Option<(usize, Value)> {
    ((pos.state.map().discs() == 1) == first)
        .then(|| map_refused(&pos.state, pos.seat, want))
        .flatten()
        .map(|p| (pos.seat, map_move(to_value(&MapAction::Place(p)))))
}

/// A disc of the other seat's hand (of two) where the map takes it.
fn map_others_disc(pos: &MapPos) -> Option<Place> {
    let s = &pos.state;
    let p = s
        .map()
        .legal(s.set(), s.hand(1 - pos.seat))
        .into_iter()
        .next()?;
    Some(map_place(s, p))
}

/// The shape of the disc a placement's JSON names.
fn map_shape(state: &<StarMap as Rules>::State, place: &Value) -> Shape {
    state.set().discs[place["place"]["disc"].as_u64().unwrap() as usize].shape
}

/// Star Map's vectors: a valid game with a pass and a chosen draw, and each
/// way a Star Map move can be refused, each the valid game's first entries
/// and then a rightly signed entry that breaks one rule.
fn map_vectors(v: &mut Vectors, tmp: &Path) {
    let ps = players(2);
    let done = map_game(&tmp.join("map.jsonl"), 2, &[("map", "hard")], 20);
    assert!(
        has_pass_and_draw(&done),
        "no Star Map game with a pass and a chosen draw in 20 tries"
    );
    v.add(
        "star-map-ok",
        &done,
        "ok",
        None,
        "Star Map: a finished 2-player game on the symbol sides, with a pass and a draw chosen \
         from another stack, countersigned by both",
    );
    // Ready entries come from seat 1, then seat 0: seat 0 resigns instead.
    let b = append_to::<StarMap>(
        &join_lines(&lines_of(&done)[..4]),
        &ps,
        0,
        Kind::Resign,
        json!({"reveals": []}),
    );
    v.add(
        "star-map-resigned-before-setup",
        &b,
        "ok",
        None,
        "Star Map: the last to write ready resigns instead: the game ends with no map yet",
    );
    v.endings
        .push(json!({"file": "star-map-resigned-before-setup.jsonl", "ending": "resigned"}));
    let positions = map_positions(&done, &ps);
    // Each vector: the first position where `make` finds its entry (the
    // author and the move's data); the audit must give `expect` at that
    // entry, with `words` in its message.
    let mut add = |positions: &[MapPos],
                   name: &str,
                   expect: &str,
                   words: &str,
                   about: &str,
                   make: &dyn Fn(&MapPos) -> Option<(usize, Value)>| {
        let Some((pos, (seat, data))) =
            positions.iter().find_map(|pos| make(pos).map(|m| (pos, m)))
        else {
            panic!("no position of the Star Map game fits the vector {name}");
        };
        let b = map_entry(pos, &ps, seat, data);
        let f = match Replay::<StarMap>::from_bytes(&b) {
            Ok(_) => panic!("{name}: the audit accepts it"),
            Err(f) => f,
        };
        assert_eq!(
            serde_json::to_value(f.fault).unwrap(),
            json!(expect),
            "{name}: {f}"
        );
        assert_eq!(f.entry, pos.k as u64, "{name}: {f}");
        assert!(f.detail.contains(words), "{name}: `{words}` not in: {f}");
        v.add(name, &b, expect, Some(pos.k as u64), about);
    };
    add(
        &positions,
        "star-map-off-the-map",
        "illegal-move",
        "stick out of the map",
        "Star Map: a disc that would stick out of the map",
        &|pos| map_refusal(pos, false, |r| *r == Refusal::OffMap),
    );
    add(
        &positions,
        "star-map-overlap",
        "illegal-move",
        "covered already",
        "Star Map: a disc on a square a disc covers",
        &|pos| map_refusal(pos, false, |r| matches!(r, Refusal::Overlap(_))),
    );
    add(
        &positions,
        "star-map-first-disc-away-from-the-start",
        "illegal-move",
        "must touch the start disc",
        "Star Map: the first disc placed where it does not touch the start disc",
        &|pos| map_refusal(pos, true, |r| matches!(r, Refusal::NoContact { .. })),
    );
    add(
        &positions,
        "star-map-no-contact",
        "illegal-move",
        "touches no disc",
        "Star Map: a disc that touches no disc on the map",
        &|pos| {
            map_refusal(pos, false, |r| {
                matches!(r, Refusal::NoContact { diagonal: None, .. })
            })
        },
    );
    add(
        &positions,
        "star-map-diagonal-only",
        "illegal-move",
        "only touches the corner of",
        "Star Map: a disc that touches the map's discs only at a corner",
        &|pos| {
            map_refusal(pos, false, |r| {
                matches!(
                    r,
                    Refusal::NoContact {
                        diagonal: Some(_),
                        ..
                    }
                )
            })
        },
    );
    add(
        &positions,
        "star-map-mismatch",
        "illegal-move",
        "must show the same star",
        "Star Map: a star that would touch a different star",
        &|pos| map_refusal(pos, false, |r| matches!(r, Refusal::Mismatch { .. })),
    );
    add(
        &positions,
        "star-map-star-square-other-star",
        "illegal-move",
        "takes only",
        "Star Map: another star on a square that takes only one star",
        &|pos| {
            map_refusal(pos, false, |r| {
                matches!(r, Refusal::OnlyStar { field: Some(_), .. })
            })
        },
    );
    add(
        &positions,
        "star-map-star-square-empty-field",
        "illegal-move",
        "takes only",
        "Star Map: an empty field on a square that takes only one star",
        &|pos| {
            map_refusal(pos, false, |r| {
                matches!(r, Refusal::OnlyStar { field: None, .. })
            })
        },
    );
    add(
        &positions,
        "star-map-crossed-out-star",
        "illegal-move",
        "crossed-out",
        "Star Map: a star on a square where that star is crossed out",
        &|pos| map_refusal(pos, false, |r| matches!(r, Refusal::NotStar { .. })),
    );
    add(
        &positions,
        "star-map-meteorite",
        "illegal-move",
        "meteorite",
        "Star Map: a star on a meteorite",
        &|pos| map_refusal(pos, false, |r| matches!(r, Refusal::Meteorite { .. })),
    );
    add(
        &positions,
        "star-map-disc-not-in-hand",
        "illegal-move",
        "is not in seat",
        "Star Map: a disc of the other player's hand, where that player could place it",
        &|pos| {
            let p = map_others_disc(pos)?;
            Some((pos.seat, map_move(to_value(&MapAction::Place(p)))))
        },
    );
    add(
        &positions,
        "star-map-no-such-disc",
        "illegal-move",
        "no disc 56",
        "Star Map: disc 56; the set's discs are 0 to 55",
        &|pos| {
            map_legal(pos, |p| {
                p["place"]["disc"] = json!(56);
                true
            })
        },
    );
    add(
        &positions,
        "star-map-out-of-turn",
        "out-of-turn",
        "must move",
        "Star Map: a placement, legal for its author's hand, by the player who is not to move",
        &|pos| {
            let p = map_others_disc(pos)?;
            Some((1 - pos.seat, map_move(to_value(&MapAction::Place(p)))))
        },
    );
    add(
        &positions,
        "star-map-pass-with-a-placement",
        "illegal-move",
        "can place a disc",
        "Star Map: a pass by a player who has a legal placement",
        &|pos| {
            (!pos.state.placements(pos.seat).is_empty())
                .then(|| (pos.seat, map_move(to_value(&MapAction::Pass))))
        },
    );
    add(
        &positions,
        "star-map-draw-not-allowed",
        "illegal-move",
        "is only for when",
        "Star Map: a placement that chooses a stack to draw from while its own shape's stack \
         has discs",
        &|pos| {
            let s = &pos.state;
            map_legal(pos, |p| {
                let shape = map_shape(s, p);
                let other = Shape::ALL
                    .into_iter()
                    .find(|&o| o != shape && s.stack_left(o) > 0);
                match other {
                    Some(o) if s.stack_left(shape) > 0 => {
                        p["place"]["draw"] = to_value(&o);
                        true
                    }
                    _ => false,
                }
            })
        },
    );
    add(
        &positions,
        "star-map-draw-missing",
        "illegal-move",
        "choose the stack to draw from",
        "Star Map: a placement whose shape's stack is empty, without the stack to draw from",
        &|pos| {
            map_legal(pos, |p| {
                p["place"].as_object_mut().unwrap().remove("draw").is_some()
            })
        },
    );
    add(
        &positions,
        "star-map-draw-from-an-empty-stack",
        "illegal-move",
        "stack is empty too",
        "Star Map: a placement whose shape's stack is empty, drawing from that same stack",
        &|pos| {
            let s = &pos.state;
            map_legal(pos, |p| {
                let shape = map_shape(s, p);
                !p["place"]["draw"].is_null() && {
                    p["place"]["draw"] = to_value(&shape);
                    true
                }
            })
        },
    );
    add(
        &positions,
        "star-map-commitment",
        "illegal-move",
        "nothing hidden",
        "Star Map: a legal placement that carries a commitment (nothing is hidden)",
        &|pos| {
            let (seat, mut data) = map_legal(pos, |_| true)?;
            data["commitments"] = json!([hex::encode([7u8; 32])]);
            Some((seat, data))
        },
    );
    add(
        &positions,
        "star-map-rotation-45",
        "illegal-move",
        "not a rotation",
        "Star Map: a placement turned by 45 degrees: an action the game cannot read",
        &|pos| {
            map_legal(pos, |p| {
                p["place"]["rotation"] = json!(45);
                true
            })
        },
    );
    add(
        &positions,
        "star-map-one-turned",
        "illegal-move",
        "is not turned",
        "Star Map: a legal placement of a one-field disc logged with rotation 90 (a one \
         is always logged with 0)",
        &|pos| {
            map_legal(pos, |p| {
                let disc = p["place"]["disc"].as_u64().unwrap() as usize;
                pos.state.set().discs[disc].shape == starry::games::star_map::data::Shape::One && {
                    p["place"]["rotation"] = json!(90);
                    true
                }
            })
        },
    );
    add(
        &positions,
        "star-map-square-m13",
        "illegal-move",
        "not a square",
        "Star Map: a placement on m13, off the 12 × 12 map's names: an action the game cannot \
         read",
        &|pos| {
            map_legal(pos, |p| {
                p["place"]["at"] = json!("m13");
                true
            })
        },
    );
    add(
        &positions,
        "star-map-square-in-upper-case",
        "non-canonical",
        "canonical",
        "Star Map: a legal placement with its square in upper case (`F7`): the same \
         square, written otherwise than the game writes it",
        &|pos| {
            map_legal(pos, |p| {
                let at = p["place"]["at"].as_str().unwrap().to_uppercase();
                p["place"]["at"] = json!(at);
                true
            })
        },
    );
    add(
        &positions,
        "star-map-draw-null",
        "non-canonical",
        "canonical",
        "Star Map: a legal placement with `\"draw\": null` (the game leaves an absent draw out)",
        &|pos| {
            map_legal(pos, |p| {
                p["place"].get("draw").is_none() && {
                    p["place"]["draw"] = Value::Null;
                    true
                }
            })
        },
    );
    // A set of red discs only: every disc fits anywhere next to the map's
    // discs, so the game goes on until every stack is empty.
    let mut red = data::shipped_discs();
    for d in &mut red.discs {
        d.fields = "R".repeat(d.fields.chars().count());
    }
    let red_text = serde_json::to_string(&red).unwrap();
    let path = tmp.join("map-red.jsonl");
    make_game::<StarMap>(&path, 2, &[("map", "easy"), ("discs", &red_text)], |r| {
        r.state
            .as_ref()
            .is_some_and(|s| Shape::ALL.iter().all(|&o| s.stack_left(o) == 0) && !s.is_over())
            && matches!(r.expected().0, Action::Move)
    });
    let red_bytes = file::read(&path).unwrap();
    let red = map_positions(&red_bytes, &ps);
    add(
        &red,
        "star-map-draw-after-the-last-disc",
        "illegal-move",
        "every stack is empty",
        "Star Map: a game with a set of red discs only (every disc fits, so the stacks run \
         out): a placement that chooses a stack to draw from when every stack is empty",
        &|pos| {
            let s = &pos.state;
            map_legal(pos, |p| {
                Shape::ALL.iter().all(|&o| s.stack_left(o) == 0) && {
                    p["place"]["draw"] = json!("one");
                    true
                }
            })
        },
    );
    // After the end: the player who made the last move places again.
    let r = Replay::<StarMap>::from_bytes(&done).unwrap();
    let end = r.ended_at.unwrap() as usize;
    let over = join_lines(&lines_of(&done)[..=end]);
    let r_over = Replay::<StarMap>::from_bytes(&over).unwrap();
    let state = r_over.state.clone().unwrap();
    let last = r_over.entries[end].author;
    let disc = state
        .hand(last)
        .first()
        .copied()
        .or_else(|| state.hand(1 - last).first().copied())
        .unwrap_or(0);
    let after = [MapPos {
        k: end + 1,
        bytes: over,
        r: r_over,
        seat: last,
        state,
    }];
    add(
        &after,
        "star-map-move-after-the-end",
        "out-of-turn",
        "the game is over",
        "Star Map: a placement after nobody could place any more",
        &|pos| {
            Some((
                pos.seat,
                map_move(json!({"place": {"at": "a1", "disc": disc, "rotation": 0}})),
            ))
        },
    );
}

/// The boards in play in a view.
fn boards(view: &Value) -> Vec<&Value> {
    view["slots"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["status"] == "open")
        .map(|s| &s["board"])
        .collect()
}

/// `bytes` with a signed move by `seat` (no commitments, no reveals) appended.
fn append_move(
    bytes: &[u8],
    r: &Replay<StarrySky>,
    id: &Identity,
    seat: usize,
    action: Value,
    link: [u8; 32],
) -> Vec<u8> {
    let data = Move {
        action,
        commitments: vec![],
        reveals: vec![],
    };
    let line = r.next_line(
        id,
        seat,
        Kind::Move,
        to_value(&data),
        Some(link),
        "2026-11-30T12:00:00Z".into(),
    );
    let mut b = bytes.to_vec();
    b.extend_from_slice(&line);
    b
}

fn find_occupied_star(view: &Value) -> Option<String> {
    for b in boards(view) {
        for s in b["stars"].as_array()? {
            if !s["occupant"].is_null() {
                return s["label"].as_str().map(String::from);
            }
        }
    }
    None
}

/// Plays until the first board is completed with a face-down token of a seat
/// other than the completer, then writes that seat's reveal with a wrong salt
/// (bad reveal). For the impossible token, seat 0 commits a face-down black
/// hole while its black hole is face up elsewhere.
fn bad_reveals(v: &mut Vectors, ps: &[(PathBuf, Identity)], tmp: &Path) {
    // Bad reveal: wait for a reveal turn in a normal game.
    let path = tmp.join("reveal.jsonl");
    let r = make(&path, 3, &[], |r| matches!(r.expected().0, Action::Reveal));
    let (_, Some(s)) = r.expected() else {
        unreachable!()
    };
    let state = r.state.clone().unwrap();
    let (secret, own, link) = own_of(&r, &ps[s].1, s);
    let preview = r.preview(s, &link).unwrap_or(state);
    let Turn::Reveal(_, refs) = StarrySky::turn(&preview) else {
        unreachable!()
    };
    let mut reveals = r.openings(&secret, &own, &refs).unwrap();
    reveals[0].salt = HexHash([7u8; 32]);
    let line = r.next_line(
        &ps[s].1,
        s,
        Kind::Reveal,
        to_value(&Reveal { reveals }),
        Some(link),
        "2026-11-30T12:00:00Z".into(),
    );
    let mut b = file::read(&path).unwrap();
    b.extend_from_slice(&line);
    v.add(
        "bad-reveal",
        &b,
        "bad-reveal",
        Some(r.len()),
        "a reveal whose salt does not open the commitment",
    );

    // Impossible token: script seat 0's moves.
    let path = tmp.join("impossible.jsonl");
    let mut time = clock();
    let mut r = make(&path, 3, &[], |r| {
        matches!(r.expected(), (Action::Move, Some(0)))
    });
    let board = {
        let view =
            serde_json::to_value(StarrySky::view(r.state.as_ref().unwrap(), None, None)).unwrap();
        boards(&view)[0]["id"].as_str().unwrap().to_string()
    };
    let star_of = |r: &Replay<StarrySky>, large: bool, on_board: bool| -> Option<String> {
        let view =
            serde_json::to_value(StarrySky::view(r.state.as_ref().unwrap(), None, None)).unwrap();
        boards(&view)
            .into_iter()
            .filter(|b| (b["id"].as_str() == Some(board.as_str())) == on_board)
            .find_map(|b| {
                b["stars"]
                    .as_array()?
                    .iter()
                    .find(|s| s["occupant"].is_null() && s["large"].as_bool() == Some(large))
                    .and_then(|s| s["label"].as_str().map(String::from))
            })
    };
    let mut step = 0;
    let mut spare = vec!["ds", "ds", "1", "3", "5", "6", "7", "10"];
    let mut chooser = Draw::new(os_random());
    loop {
        let (action, who) = r.expected();
        if action == Action::Reveal || !r.state.as_ref().unwrap().history().is_empty() {
            break;
        }
        let who = who.unwrap();
        if who == 0 && step < 2 {
            // Step 0: a black hole face up on another board; step 1: a
            // commitment to another black hole face down on `board`.
            let secret = r.game_secret(&ps[0].1, 0).unwrap();
            let link = r.next_link(&secret, 0).unwrap();
            let (action, commitments) = if step == 0 {
                (
                    json!({"star": star_of(&r, false, false).expect("a small star elsewhere"), "token": "bh"}),
                    vec![],
                )
            } else {
                let c = r.commit_next(&secret, 0, 0, &serde_json::from_value(json!("bh")).unwrap());
                (
                    json!({"star": star_of(&r, true, true).expect("a large star on the board")}),
                    vec![HexHash(c)],
                )
            };
            let data = Move {
                action,
                commitments,
                reveals: vec![],
            };
            let line = r.next_line(&ps[0].1, 0, Kind::Move, to_value(&data), Some(link), time());
            let mut b = file::read(&path).unwrap();
            b.extend_from_slice(&line);
            fs::write(&path, &b).unwrap();
            step += 1;
        } else if who == 0 {
            // Fill the board with seat 0's remaining tokens, crafted by hand:
            // its program would refuse to act on an inconsistent hand.
            let token = spare.pop().expect("seat 0 has tokens left");
            let view = serde_json::to_value(StarrySky::view(r.state.as_ref().unwrap(), None, None))
                .unwrap();
            let completes = boards(&view)
                .iter()
                .any(|b| b["id"] == board.as_str() && b["free"] == 1);
            let (star, large) = match star_of(&r, false, true) {
                Some(s) => (s, false),
                None => (star_of(&r, true, true).unwrap(), true),
            };
            let secret = r.game_secret(&ps[0].1, 0).unwrap();
            let link = r.next_link(&secret, 0).unwrap();
            let own = r.own_hidden(&secret, 0).unwrap();
            let (action, commitments, reveals) = if large && !completes {
                let c = r.commit_next(
                    &secret,
                    0,
                    0,
                    &serde_json::from_value(json!(token)).unwrap(),
                );
                (json!({"star": star}), vec![HexHash(c)], vec![])
            } else if completes {
                let refs: Vec<_> = own.hidden.keys().copied().collect();
                (
                    json!({"star": star, "token": token}),
                    vec![],
                    r.openings(&secret, &own, &refs).unwrap(),
                )
            } else {
                (json!({"star": star, "token": token}), vec![], vec![])
            };
            let data = Move {
                action,
                commitments,
                reveals,
            };
            let line = r.next_line(&ps[0].1, 0, Kind::Move, to_value(&data), Some(link), time());
            let mut b = file::read(&path).unwrap();
            b.extend_from_slice(&line);
            fs::write(&path, &b).unwrap();
        } else {
            // Other seats fill the same board.
            let id = &ps[who].1;
            let star = star_of(&r, false, true).or_else(|| star_of(&r, true, true));
            let what = match star {
                Some(star) => {
                    let secret = r.game_secret(id, who).unwrap();
                    let own = r.own_hidden(&secret, who).unwrap();
                    let tok =
                        StarrySky::intents(r.state.as_ref().unwrap(), who, &own)[0].to_string();
                    Do::Move(format!("{} {star}", tok.split(' ').next().unwrap()))
                }
                None => Do::Auto,
            };
            act_as::<StarrySky>(&path, ps, who, what, time(), &mut chooser).unwrap();
        }
        let b = file::read(&path).unwrap();
        match Replay::<StarrySky>::from_bytes(&b) {
            Ok(next) => r = next,
            Err(f) if f.fault == starry::error::Fault::ImpossibleToken => {
                v.add("impossible-token", &b, "impossible-token", Some(f.entry), "a face-down black hole revealed while the player's black hole is face up elsewhere");
                return;
            }
            Err(f) => panic!("unexpected fault while scripting: {f}"),
        }
    }
    // The board completed by another seat: the owners reveal in order from
    // the completer's left, until it is seat 0's turn.
    loop {
        match r.expected() {
            (Action::Reveal, Some(0)) => break,
            (Action::Reveal, Some(w)) => {
                act_as::<StarrySky>(&path, ps, w, Do::Reveal, time(), &mut chooser).unwrap();
                r = Replay::<StarrySky>::from_bytes(&file::read(&path).unwrap()).unwrap();
            }
            other => panic!("scripted game reached an unexpected turn: {other:?}"),
        }
    }
    let secret = r.game_secret(&ps[0].1, 0).unwrap();
    let link = r.next_link(&secret, 0).unwrap();
    let own = r.own_hidden(&secret, 0).unwrap();
    let Turn::Reveal(_, refs) = StarrySky::turn(&r.preview(0, &link).unwrap()) else {
        unreachable!()
    };
    let reveals = r.openings(&secret, &own, &refs).unwrap();
    let line = r.next_line(
        &ps[0].1,
        0,
        Kind::Reveal,
        to_value(&Reveal { reveals }),
        Some(link),
        time(),
    );
    let mut b = file::read(&path).unwrap();
    b.extend_from_slice(&line);
    let n = r.len();
    v.add(
        "impossible-token",
        &b,
        "impossible-token",
        Some(n),
        "a face-down black hole revealed while the player's black hole is face up elsewhere",
    );
    let _ = Genesis::clone;
}

/// Appends an entry with any data, signed by `seat` with its right link.
fn append(
    bytes: &[u8],
    ps: &[(PathBuf, Identity)],
    seat: usize,
    kind: Kind,
    data: Value,
) -> Vec<u8> {
    append_to::<StarrySky>(bytes, ps, seat, kind, data)
}

/// [`append`] to a log of game `G`.
fn append_to<G: starry::bot::Bot>(
    bytes: &[u8],
    ps: &[(PathBuf, Identity)],
    seat: usize,
    kind: Kind,
    data: Value,
) -> Vec<u8> {
    let r = Replay::<G>::from_bytes(bytes).unwrap();
    let id = &ps[seat].1;
    let link = (kind != Kind::Join).then(|| {
        let secret = r.game_secret(id, seat).unwrap();
        r.next_link(&secret, seat).unwrap()
    });
    let line = r.next_line(id, seat, kind, data, link, "2026-11-30T12:00:00Z".into());
    let mut b = bytes.to_vec();
    b.extend_from_slice(&line);
    b
}

/// The genesis of `lines` re-signed by its creator after `edit`.
fn edited_genesis(
    lines: &[Vec<u8>],
    ps: &[(PathBuf, Identity)],
    edit: impl Fn(&mut Body),
) -> Vec<u8> {
    let mut line = parse(&lines[0]);
    edit(&mut line.body);
    join_lines(&[resign_body(&ps[0].1, line.body)])
}

/// Line `k` of `lines` re-signed by its author after `edit`; the lines after
/// it are dropped (their `prev` would no longer match).
fn edited_line(
    lines: &[Vec<u8>],
    ps: &[(PathBuf, Identity)],
    k: usize,
    edit: impl Fn(&mut Body),
) -> Vec<u8> {
    let mut line = parse(&lines[k]);
    edit(&mut line.body);
    let signer = ps.get(line.body.author as usize).unwrap_or(&ps[0]);
    let mut l = lines[..k].to_vec();
    l.push(resign_body(&signer.1, line.body));
    join_lines(&l)
}

/// A fresh game where seat 0, at its first move, hides `value` face down on
/// a large star (after showing its black hole face up elsewhere, when
/// `bh_up`), then plays on until seat 0 may move again and resigns, opening
/// its commitments (all of them when `open_all`, else none).
fn scripted_resign(
    ps: &[(PathBuf, Identity)],
    tmp: &Path,
    bh_up: bool,
    value: Value,
    open_all: bool,
) -> Vec<u8> {
    for attempt in 0.. {
        assert!(attempt < 50, "no scripted game reached a resign");
        let path = tmp.join(format!("resign-{attempt}.jsonl"));
        let mut r = make(&path, 3, &[], |r| {
            matches!(r.expected(), (Action::Move, Some(0)))
        });
        let secret = r.game_secret(&ps[0].1, 0).unwrap();
        let own0 = r.own_hidden(&secret, 0).unwrap();
        let free = |r: &Replay<StarrySky>, large: bool| -> Option<String> {
            let view = serde_json::to_value(StarrySky::view(r.state.as_ref().unwrap(), None, None))
                .unwrap();
            boards(&view).into_iter().find_map(|b| {
                (b["free"].as_u64()? > 2).then_some(())?;
                b["stars"]
                    .as_array()?
                    .iter()
                    .find(|s| s["occupant"].is_null() && s["large"].as_bool() == Some(large))
                    .and_then(|s| s["label"].as_str().map(String::from))
            })
        };
        let mut b = file::read(&path).unwrap();
        let mut chooser = Draw::new(os_random());
        // Seat 0's moves: show the black hole (if asked), hide `value`,
        // then resign.
        enum Next {
            ShowBlackHole,
            Hide,
            Resign { hidden_at: u64 },
        }
        let mut next = if bh_up {
            Next::ShowBlackHole
        } else {
            Next::Hide
        };
        let mut time = clock();
        loop {
            match (r.expected(), &next) {
                ((Action::Move, Some(0)), Next::ShowBlackHole) => {
                    let Some(star) = free(&r, false) else { break };
                    b = append(
                        &b,
                        ps,
                        0,
                        Kind::Move,
                        to_value(&Move {
                            action: json!({"star": star, "token": "bh"}),
                            commitments: vec![],
                            reveals: vec![],
                        }),
                    );
                    fs::write(&path, &b).unwrap();
                    r = Replay::from_bytes(&b).unwrap();
                    next = Next::Hide;
                }
                ((Action::Move, Some(0)), Next::Hide) => {
                    let Some(star) = free(&r, true) else { break };
                    let at = r.len();
                    let key = r.seats[0].key.unwrap();
                    let salt = starry::crypto::commitment::salt(&secret, at, 0);
                    let c = starry::crypto::commitment::commit(
                        starry::crypto::commitment::Slot {
                            game: &r.game_id,
                            author_key: &key,
                            entry: at,
                            slot: 0,
                        },
                        &to_bytes(&value),
                        &salt,
                    );
                    b = append(
                        &b,
                        ps,
                        0,
                        Kind::Move,
                        to_value(&Move {
                            action: json!({"star": star}),
                            commitments: vec![HexHash(c)],
                            reveals: vec![],
                        }),
                    );
                    fs::write(&path, &b).unwrap();
                    r = Replay::from_bytes(&b).unwrap();
                    next = Next::Resign { hidden_at: at };
                }
                ((Action::Move, Some(0)), &Next::Resign { hidden_at: at }) => {
                    let reveals = if open_all {
                        r.unopened(0)
                            .into_iter()
                            .map(|h| starry::log::entry::Opening {
                                entry: h.entry,
                                salt: HexHash(starry::crypto::commitment::salt(
                                    &secret, h.entry, h.slot,
                                )),
                                slot: h.slot,
                                value: if h.entry == at {
                                    value.clone()
                                } else {
                                    to_value(&own0.hidden[&h])
                                },
                            })
                            .collect()
                    } else {
                        vec![]
                    };
                    return append(
                        &b,
                        ps,
                        0,
                        Kind::Resign,
                        to_value(&starry::log::entry::Resign { reveals }),
                    );
                }
                ((Action::Move | Action::Reveal, Some(w)), _) if w != 0 => {
                    act_as::<StarrySky>(&path, ps, w, Do::Auto, time(), &mut chooser).unwrap();
                    b = file::read(&path).unwrap();
                    r = Replay::from_bytes(&b).unwrap();
                }
                _ => break,
            }
        }
    }
    unreachable!()
}

/// One vector per row of the fault table of docs/protocol.md (section 8)
/// that the vectors above do not cover, and one per case that the table
/// decides.
fn fault_table(
    v: &mut Vectors,
    ps: &[(PathBuf, Identity)],
    tmp: &Path,
    bytes: &[u8],
    r: &Replay<StarrySky>,
    done: &[u8],
) {
    let lines = lines_of(bytes);
    let n = r.len();
    let last = lines.len() - 1;
    // S1 comes after every earlier line: a broken line before a truncated
    // last line is reported first.
    let mut l = lines.clone();
    l[5] = b"{\"body\":".to_vec();
    let mut b = join_lines(&l);
    b.truncate(b.len() - 10);
    v.add("fault-before-truncation", &b, "malformed", Some(5), "a line that is not JSON, and a truncated last line after it: the first in file order is named");
    let mut b = bytes.to_vec();
    b.truncate(b.len() - 1);
    v.add(
        "truncated-newline",
        &b,
        "truncated",
        Some(last as u64),
        "only the last newline missing: the line is whole JSON, and still truncated",
    );
    // S2.
    let mut l = lines.clone();
    l.insert(7, Vec::new());
    let b = join_lines(&l);
    v.add("blank-line", &b, "malformed", Some(7), "a blank line");
    v.add(
        "time-with-space",
        &edited_line(&lines, ps, last, |b| b.time = b.time.replacen('T', " ", 1)),
        "malformed",
        Some(last as u64),
        "a time with a space for the T (RFC 3339 allows it; the protocol does not)",
    );
    v.add(
        "name-with-escape",
        &edited_genesis(&lines, ps, |b| {
            b.data["seats"][1]["name"] = json!("Ben\u{1b}[2J\u{1b}[Hvalid")
        }),
        "malformed",
        Some(0),
        "a name with terminal escape sequences",
    );
    v.add(
        "name-with-bidi-override",
        &edited_genesis(&lines, ps, |b| {
            b.data["seats"][2]["name"] = json!("Cleo\u{202e}ssap")
        }),
        "malformed",
        Some(0),
        "a name with a right-to-left override",
    );
    v.add(
        "bad-email",
        &edited_genesis(&lines, ps, |b| {
            b.data["seats"][1]["email"] = json!("ben?@example.org")
        }),
        "malformed",
        Some(0),
        "an e-mail address with a `?`",
    );
    v.add(
        "join-data-missing-field",
        &edited_line(&lines, ps, 2, |b| {
            b.data.as_object_mut().unwrap().remove("tip");
        }),
        "malformed",
        Some(2),
        "a join without its tip",
    );
    v.add(
        "ready-with-data",
        &edited_line(&lines, ps, 4, |b| b.data = json!({"x": 1})),
        "malformed",
        Some(4),
        "a ready entry whose data is not {}",
    );
    // S2': version first.
    v.add(
        "unknown-protocol-version-1",
        &edited_genesis(&lines, ps, |b| b.data["protocol"] = json!(1)),
        "unknown-version",
        Some(0),
        "a genesis of protocol version 1",
    );
    // S3.
    v.add(
        "null-field",
        &edited_genesis(&lines, ps, |b| b.data["seats"][1]["key"] = Value::Null),
        "non-canonical",
        Some(0),
        "a null written for an absent optional field",
    );
    v.add(
        "options-defaults-omitted",
        &edited_genesis(&lines, ps, |b| b.data["options"] = json!({})),
        "non-canonical",
        Some(0),
        "options written as {} instead of with every option: the game writes the defaults out",
    );
    let mut line = parse(&lines[last]);
    let sig = line.sig.clone();
    // 64 bytes end in one byte encoded as two digits and `==`: the second
    // digit carries 4 unused bits; set one.
    let mut alt = sig.clone().into_bytes();
    let pos = alt.len() - 3;
    let digits = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let d = digits.iter().position(|&c| c == alt[pos]).unwrap();
    alt[pos] = digits[d | 1];
    if alt[pos] == sig.as_bytes()[pos] {
        alt[pos] = digits[(d & !3) | 2];
    }
    line.sig = String::from_utf8(alt).unwrap();
    let mut l = lines.clone();
    l[last] = to_bytes(&to_value(&line));
    v.add("signature-base64-not-canonical", &join_lines(&l), "bad-signature", Some(last as u64), "a signature whose base64 has stray bits in its last digit: not the canonical base64 of 64 bytes");
    // S4, S5.
    v.add(
        "second-genesis",
        &join_lines(&[lines[0].clone(), lines[1].clone(), lines[0].clone()]),
        "foreign-entry",
        Some(2),
        "the genesis again at entry 2",
    );
    v.add(
        "genesis-missing",
        &join_lines(&lines[1..]),
        "broken-chain",
        Some(0),
        "the first line is a join: the beginning of the log is missing",
    );
    // S6.
    v.add(
        "unknown-game",
        &edited_genesis(&lines, ps, |b| b.data["game"] = json!("go")),
        "unknown-version",
        Some(0),
        "a game this program does not know",
    );
    // S7.
    v.add(
        "genesis-by-seat-1",
        &edited_genesis(&lines, ps, |b| b.author = 1),
        "out-of-turn",
        Some(0),
        "a genesis whose author is seat 1 (only the creator writes it)",
    );
    v.add(
        "author-not-a-seat",
        &edited_line(&lines, ps, last, |b| b.author = 7),
        "out-of-turn",
        Some(last as u64),
        "an entry by author 7 in a 3-seat game",
    );
    // S8.
    let head: Vec<Vec<u8>> = lines[..2].to_vec();
    let mut join = parse(&lines[2]);
    join.body.data["key"] = json!(hex::encode(ps[0].1.public_key()));
    let mut l = head.clone();
    l.push(resign_body(&ps[0].1, join.body.clone()));
    v.add(
        "one-key-two-seats",
        &join_lines(&l),
        "bad-signature",
        Some(2),
        "the second seat (author 1) joined with the key of the first (author 0)",
    );
    let mut join = parse(&lines[2]);
    // The identity point: a key of small order.
    join.body.data["key"] = json!(format!("01{}", "00".repeat(31)));
    let mut l = head.clone();
    l.push(to_bytes(&to_value(&join)));
    v.add(
        "weak-key",
        &join_lines(&l),
        "bad-signature",
        Some(2),
        "a join with a key of small order",
    );
    let pinned = edited_genesis(&lines, ps, |b| {
        b.data["seats"][1]["key"] = json!(hex::encode(ps[2].1.public_key()))
    });
    let pl = lines_of(&pinned);
    let mut line1 = parse(&lines[1]);
    line1.body.prev = Some(HexHash(starry::crypto::sha256(&pl[0])));
    line1.body.game = line1.body.prev;
    let l1 = resign_body(&ps[0].1, line1.body);
    let mut line2 = parse(&lines[2]);
    line2.body.prev = Some(HexHash(starry::crypto::sha256(&l1)));
    line2.body.game = Some(HexHash(starry::crypto::sha256(&pl[0])));
    let l2 = resign_body(&ps[1].1, line2.body);
    v.add(
        "pinned-seat-hijack",
        &join_lines(&[pl[0].clone(), l1, l2]),
        "bad-signature",
        Some(2),
        "the second seat (author 1) is pinned to Cleo's key; Ben's key tries to take it",
    );
    // S9.
    let over = lines_of(done);
    let dl = over.len() - 1;
    let b = append(
        &join_lines(&over),
        ps,
        parse(&over[dl]).body.author as usize,
        Kind::Countersign,
        parse(&over[dl]).body.data.clone(),
    );
    v.add(
        "countersigned-twice",
        &b,
        "out-of-turn",
        Some(over.len() as u64),
        "a second countersignature by one seat",
    );
    let (_, Some(s)) = r.expected() else {
        unreachable!()
    };
    let b = append(
        bytes,
        ps,
        s,
        Kind::Abandon,
        json!({"awaited": n, "silent": s}),
    );
    v.add(
        "abandon-by-the-awaited-seat",
        &b,
        "out-of-turn",
        Some(n),
        "the seat the game waits for claims it abandoned the game",
    );
    let t = (s + 1) % 3;
    let once = append(
        bytes,
        ps,
        t,
        Kind::Abandon,
        json!({"awaited": n, "silent": s}),
    );
    let b = append(
        &once,
        ps,
        t,
        Kind::Abandon,
        json!({"awaited": n, "silent": s}),
    );
    v.add(
        "abandon-claimed-twice",
        &b,
        "out-of-turn",
        Some(n + 1),
        "one seat claims twice in a round",
    );
    // S12.
    let b = append(
        bytes,
        ps,
        t,
        Kind::Abandon,
        json!({"awaited": n, "silent": t}),
    );
    v.add(
        "abandon-names-another-seat",
        &b,
        "illegal-move",
        Some(n),
        "a claim naming a seat the game is not waiting for",
    );
    let b = append(
        bytes,
        ps,
        s,
        Kind::Move,
        json!({"action": 5, "commitments": [], "reveals": []}),
    );
    v.add(
        "action-wrong-type",
        &b,
        "illegal-move",
        Some(n),
        "a move whose action is a number: a game object the game cannot read",
    );
    let b = append(
        &join_lines(&over[..over.len() - 3]),
        ps,
        0,
        Kind::Countersign,
        json!({"final": hex::encode([9u8; 32])}),
    );
    v.add(
        "countersign-wrong-final",
        &b,
        "illegal-move",
        Some(over.len() as u64 - 3),
        "a countersignature naming another entry than the final one",
    );
    let big: Vec<Value> = (0..60).map(|i| json!({"id": format!("b{i}"), "name": format!("Board {i}"), "prizes": [9, 7], "stars": (0..10).map(|_| json!({"large": false, "at": [0, 0]})).collect::<Vec<_>>(), "lines": [[1, 2]]})).collect();
    v.add(
        "options-outlast-the-chain",
        &edited_genesis(&lines, ps, |b| {
            b.data["options"] =
                json!({"boards": big.clone(), "doubling": "additive", "tie": "coins"})
        }),
        "illegal-move",
        Some(0),
        "60 boards of 10 stars: a game could need more entries than a beacon chain has links",
    );
    // S11: openings.
    let b = scripted_resign(ps, tmp, false, json!("10"), false);
    let k = lines_of(&b).len() as u64 - 1;
    v.add(
        "resign-without-openings",
        &b,
        "bad-reveal",
        Some(k),
        "a resignation that does not open the resigner's face-down tokens",
    );
    let b = scripted_resign(ps, tmp, false, json!("11"), true);
    let k = lines_of(&b).len() as u64 - 1;
    v.add(
        "reveal-not-a-token",
        &b,
        "impossible-token",
        Some(k),
        "a commitment opened (by a resignation) to \"11\", which is no token",
    );
    let b = scripted_resign(ps, tmp, true, json!("bh"), true);
    let k = lines_of(&b).len() as u64 - 1;
    v.add("resign-impossible-token", &b, "impossible-token", Some(k), "a cheat tries to escape the audit by resigning: the face-down black hole it opens could not be held, its black hole being face up");
    // Valid endings: abandoned, and resigned in the ready phase.
    let mut b = bytes.to_vec();
    for c in (0..3).filter(|&c| c != s) {
        b = append(&b, ps, c, Kind::Abandon, json!({"awaited": n, "silent": s}));
    }
    v.add(
        "ok-abandoned",
        &b,
        "ok",
        None,
        "every other seat claimed that the awaited seat stopped answering",
    );
    v.endings
        .push(json!({"file": "ok-abandoned.jsonl", "ending": "abandoned"}));
    let b = append(
        &join_lines(&lines[..4]),
        ps,
        2,
        Kind::Resign,
        json!({"reveals": []}),
    );
    v.add(
        "ok-resigned-before-setup",
        &b,
        "ok",
        None,
        "the first to write ready resigns instead",
    );
    v.endings
        .push(json!({"file": "ok-resigned-before-setup.jsonl", "ending": "resigned"}));
    // Resolved forks: a claim that lapsed; countersignatures at once.
    let claim = append(
        bytes,
        ps,
        t,
        Kind::Abandon,
        json!({"awaited": n, "silent": s}),
    );
    let path = tmp.join("answer.jsonl");
    fs::write(&path, bytes).unwrap();
    act_as::<StarrySky>(
        &path,
        ps,
        s,
        Do::Auto,
        "2026-11-30T12:00:00Z".into(),
        &mut Draw::new(os_random()),
    )
    .unwrap();
    v.add(
        "lapsed-claim",
        &claim,
        "ok",
        None,
        "a claim that the awaited seat stopped answering",
    );
    v.add("lapsed-answer", &file::read(&path).unwrap(), "ok", None, "the awaited seat's entry, at the same position: audited with lapsed-claim, the claim lapses");
    v.pairs.push(json!({"files": ["lapsed-claim.jsonl", "lapsed-answer.jsonl"], "expect": "ok", "entry": n, "same_author": false, "resolution": "claim-lapsed"}));
    // Claims written at once by the two other seats: the smaller id wins.
    let others: Vec<usize> = (0..3).filter(|&c| c != s).collect();
    let claims: Vec<Vec<u8>> = others
        .iter()
        .map(|&c| {
            append(
                bytes,
                ps,
                c,
                Kind::Abandon,
                json!({"awaited": n, "silent": s}),
            )
        })
        .collect();
    v.add(
        "claims-a",
        &claims[0],
        "ok",
        None,
        "one player claims that the awaited player stopped answering",
    );
    v.add("claims-b", &claims[1], "ok", None, "another player claims the same at the same position: audited with claims-a, the smaller id wins");
    v.pairs.push(json!({"files": ["claims-a.jsonl", "claims-b.jsonl"], "expect": "ok", "entry": n, "same_author": false, "resolution": "claims"}));
    // An abandonment completed and countersigned is a result: the awaited
    // entry turning up later is a fork like any other.
    let mut sealed = bytes.to_vec();
    for &c in &others {
        sealed = append(
            &sealed,
            ps,
            c,
            Kind::Abandon,
            json!({"awaited": n, "silent": s}),
        );
    }
    let r_sealed = Replay::<StarrySky>::from_bytes(&sealed).unwrap();
    let final_id = r_sealed.entries[r_sealed.ended_at.unwrap() as usize].id;
    let sealed = append(
        &sealed,
        ps,
        others[0],
        Kind::Countersign,
        json!({"final": hex::encode(final_id)}),
    );
    v.add(
        "abandoned-countersigned",
        &sealed,
        "ok",
        None,
        "an abandonment completed and countersigned by a claimant",
    );
    v.add("abandoned-answered-late", &file::read(&path).unwrap(), "ok", None, "the awaited entry, written afterwards on an old copy: audited with abandoned-countersigned, a fork (the result stands)");
    v.pairs.push(json!({"files": ["abandoned-countersigned.jsonl", "abandoned-answered-late.jsonl"], "expect": "fork", "entry": n, "same_author": false}));
    let end = over.len() - 3;
    let cs: Vec<Vec<u8>> = [0usize, 1]
        .iter()
        .map(|&c| {
            append(
                &join_lines(&over[..end]),
                ps,
                c,
                Kind::Countersign,
                parse(&over[end]).body.data.clone(),
            )
        })
        .collect();
    v.add(
        "countersign-a",
        &cs[0],
        "ok",
        None,
        "the first seat (author 0) countersigns",
    );
    v.add(
        "countersign-b",
        &cs[1],
        "ok",
        None,
        "the second seat (author 1) countersigns at the same position: audited with countersign-a, the smaller id wins",
    );
    v.pairs.push(json!({"files": ["countersign-a.jsonl", "countersign-b.jsonl"], "expect": "ok", "entry": end, "same_author": false, "resolution": "countersignatures"}));
}

fn main() {
    run();
    // What the example players' programs recorded of their own entries
    // (`starry::app::written`) is of no use once the games are made, nor
    // are the links to the games they created (`starry::app::remember_game`,
    // which point into temporary directories that are gone by now and
    // would make `starry audit examples/games` fail).
    for name in NAMES {
        let home = root()
            .join("examples/games/identities")
            .join(name.to_lowercase());
        let _ = fs::remove_dir_all(home.join("written"));
        let _ = fs::remove_dir_all(home.join("games"));
    }
}

fn run() {
    match std::env::args().nth(1).as_deref() {
        Some("games") => match std::env::args().nth(2).as_deref() {
            None => {
                games();
                night_games();
                map_games();
            }
            Some("starry-sky") => games(),
            Some("starry-night") => night_games(),
            Some("star-map") => map_games(),
            Some(other) => {
                eprintln!(
                    "no examples for `{other}`; the games are starry-sky, starry-night, star-map"
                );
                std::process::exit(2);
            }
        },
        Some("vectors") => match std::env::args().nth(2).as_deref() {
            None => vectors(),
            Some("starry-night") => vectors_only("starry-night-", night_vectors),
            Some("star-map") => vectors_only("star-map-", map_vectors),
            Some("join-notify") => vectors_only("join-notify-", notify_vectors),
            Some("name-noncharacter") => vectors_only("name-noncharacter-", noncharacter_vectors),
            Some("operator") => vectors_only("operator-", operator_vectors),
            Some("due") => vectors_only("due-", due_vectors),
            Some("v3") => {
                vectors_only("v3-", protocol3_vectors);
                protocol4_vector();
            }
            Some(other) => {
                eprintln!(
                    "no vectors for `{other}`: give nothing (all), starry-night, star-map, \
                     join-notify, name-noncharacter, v3, operator or due"
                );
                std::process::exit(2);
            }
        },
        _ => {
            eprintln!(
                "usage: cargo run --example make_games -- games [starry-sky|starry-night|star-map] | \
                 vectors [starry-night|star-map|join-notify|name-noncharacter|v3|operator|due]"
            );
            std::process::exit(2);
        }
    }
}
