//! The primitive test vectors of docs/protocol.md (section 9) are what the
//! code computes. The block between the markers in the spec is generated
//! here; `STARRY_BLESS=1 cargo test --test suite protocol_vectors::` rewrites it.

use std::fmt::Write as _;
use std::path::PathBuf;

use starry::crypto::{beacon, commitment, lp_hash};
use starry::draw::Draw;
use starry::log::replay::signed_message;

const BEGIN: &str = "<!-- BEGIN GENERATED VECTORS -->";
const END: &str = "<!-- END GENERATED VECTORS -->";

fn vectors() -> String {
    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(w, "```");
    let _ = writeln!(
        w,
        "LP(\"ab\", \"\")                       = {}",
        "000000026162".to_string() + "00000000"
    );
    let _ = writeln!(
        w,
        "lp_hash(\"ab\", \"\")                  = {}",
        hex::encode(lp_hash(&[b"ab", b""]))
    );
    let _ = writeln!(
        w,
        "step(00×32)                        = {}",
        hex::encode(beacon::step(&[0; 32]))
    );
    let seed = beacon::seed(&[4; 32]);
    let _ = writeln!(
        w,
        "chain seed(game secret 04×32)      = {}",
        hex::encode(seed)
    );
    let _ = writeln!(
        w,
        "tip(that seed)                     = {}",
        hex::encode(beacon::tip(&seed))
    );
    let _ = writeln!(
        w,
        "first link after the join          = {}",
        hex::encode(beacon::link_for(&seed, 1).unwrap())
    );
    let salt = commitment::salt(&[4; 32], 5, 0);
    let _ = writeln!(
        w,
        "salt(04×32, entry 5, slot 0)       = {}",
        hex::encode(salt)
    );
    let c = commitment::commit(
        commitment::Slot {
            game: &[1; 32],
            author_key: &[2; 32],
            entry: 5,
            slot: 0,
        },
        b"\"10\"",
        &[3; 32],
    );
    let _ = writeln!(
        w,
        "commit(game 01×32, key 02×32, entry 5, slot 0, ⟦\"10\"⟧, salt 03×32)"
    );
    let _ = writeln!(w, "                                   = {}", hex::encode(c));
    let _ = writeln!(
        w,
        "signed message for body {{}}         = {}",
        hex::encode(signed_message(b"{}"))
    );
    let mut d = Draw::new([0; 32]);
    let picks: Vec<String> = (0..8).map(|_| d.below(12).to_string()).collect();
    let _ = writeln!(
        w,
        "Draw(00×32): below(12) ×8          = {}",
        picks.join(" ")
    );
    let mut d = Draw::new([0; 32]);
    let mut v: Vec<u32> = (0..12).collect();
    d.shuffle(&mut v);
    let v: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    let _ = writeln!(w, "Draw(00×32): shuffle(0..12)        = {}", v.join(" "));
    let mut d = Draw::new([0; 32]);
    let _ = writeln!(
        w,
        "Draw(00×32): below(3) ×8           = {}",
        (0..8)
            .map(|_| d.below(3).to_string())
            .collect::<Vec<_>>()
            .join(" ")
    );
    let _ = writeln!(w, "setup seed(game 01×32, links 0a×32, 0b×32, 0c×32)");
    let _ = writeln!(
        w,
        "                                   = {}",
        hex::encode(lp_hash(&[
            b"starry/1 setup",
            &[1; 32],
            &[10; 32],
            &[11; 32],
            &[12; 32]
        ]))
    );
    let _ = writeln!(w, "```");
    out
}

#[test]
fn the_spec_lists_what_the_code_computes() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/protocol.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let (start, end) = (
        doc.find(BEGIN).expect("begin marker"),
        doc.find(END).expect("end marker"),
    );
    let block = format!("{BEGIN}\n{}{END}", vectors());
    let current = &doc[start..end + END.len()];
    if std::env::var_os("STARRY_BLESS").is_some() {
        std::fs::write(&path, doc.replace(current, &block)).unwrap();
    } else {
        assert_eq!(
            current, block,
            "docs/protocol.md vectors are stale: STARRY_BLESS=1 cargo test --test suite protocol_vectors::"
        );
    }
}

#[test]
fn the_lp_encoding_is_as_written() {
    // The one value above written by hand: check it against the hash.
    let mut bytes = hex::decode("00000002616200000000").unwrap();
    assert_eq!(starry::crypto::sha256(&bytes), lp_hash(&[b"ab", b""]));
    bytes.pop();
    assert_ne!(starry::crypto::sha256(&bytes), lp_hash(&[b"ab", b""]));
}

// ---- a whole short game, every derived value listed ---------------------

const GAME_BEGIN: &str = "<!-- BEGIN GENERATED SHORT GAME -->";
const GAME_END: &str = "<!-- END GENERATED SHORT GAME -->";

/// Four small boards: three are dealt to three seats, one stays in the stack
/// and replaces the first board completed.
const SHORT_BOARDS: &str = r#"{"boards": [
 {"id": "ara", "name": "Ara", "prizes": [3, 1], "stars": [{"large": true, "at": [10, 10]}, {"large": false, "at": [50, 10]}, {"large": false, "at": [90, 10]}], "lines": [[1, 2], [2, 3]]},
 {"id": "crux", "name": "Crux", "prizes": [2, 0], "stars": [{"large": true, "at": [10, 10]}, {"large": false, "at": [50, 50]}], "lines": [[1, 2]]},
 {"id": "lyra", "name": "Lyra", "prizes": [2, 0], "stars": [{"large": false, "at": [10, 10]}, {"large": true, "at": [50, 50]}], "lines": [[1, 2]]},
 {"id": "vela", "name": "Vela", "prizes": [2, 0], "stars": [{"large": false, "at": [10, 10]}, {"large": false, "at": [50, 50]}], "lines": [[1, 2]]}
]}"#;

fn h(b: &[u8]) -> String {
    hex::encode(b)
}

fn opening(w: &mut String, o: &starry::log::entry::Opening) {
    let _ = writeln!(
        w,
        "  opens entry {} slot {}: value ⟦{}⟧ salt {}",
        o.entry,
        o.slot,
        String::from_utf8(starry::log::canonical::to_bytes(&o.value)).unwrap(),
        h(o.salt.bytes())
    );
}

/// Plays the short game: fixed master secrets, nonces and automatic moves
/// from fixed draws, fixed times. Returns the log and the listing.
fn short_game() -> (Vec<u8>, String) {
    use starry::app::act;
    use starry::app::demo::autoplay;
    use starry::crypto::identity::Identity;
    use starry::games::prelude::*;
    use starry::games::starry_sky::StarrySky;
    use starry::log::Replay;
    use starry::log::entry::SeatInfo;
    use starry::log::replay::{Data, parse_line, split_lines};

    let dir = tempfile::tempdir().unwrap();
    let names = ["Anna", "Ben", "Cleo"];
    let masters = [[0x11u8; 32], [0x22; 32], [0x33; 32]];
    let players: Vec<(PathBuf, Identity)> = names
        .iter()
        .zip(masters)
        .map(|(n, m)| {
            let email = format!("{}@example.org", n.to_lowercase());
            (
                dir.path().join(n),
                Identity::from_master_secret(n, &email, m),
            )
        })
        .collect();
    let log = dir.path().join("short.jsonl");
    let seats = players.iter().map(|(_, i)| SeatInfo::of(i)).collect();
    let mut minute = 0;
    let mut clock = move || {
        minute += 1;
        format!("2026-11-23T10:{minute:02}:00Z")
    };
    let mut fresh = Draw::new([0x5e; 32]);
    act::create::<StarrySky>(
        act::Author {
            home: &players[0].0,
            id: &players[0].1,
        },
        act::Setup {
            seats,
            pairs: &[],
            extra: Some(SHORT_BOARDS),
        },
        &log,
        clock(),
        &mut fresh,
    )
    .unwrap();
    let r: Replay<StarrySky> = autoplay(
        &log,
        &players,
        &mut fresh,
        &mut clock,
        |r| r.is_over() && r.countersigned.len() == 3,
        |_| {},
    )
    .unwrap();
    let bytes = std::fs::read(&log).unwrap();
    let lines = split_lines(&bytes).unwrap();
    let game_id = r.game_id;

    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(w, "```");
    let _ = writeln!(
        w,
        "log: tests/vectors/short-game.jsonl ({} entries)",
        lines.len()
    );
    let _ = writeln!(w, "game id = H(line 1) = {}", h(&game_id));
    let boards: Vec<&str> = vec!["ara", "crux", "lyra", "vela"];
    let _ = writeln!(
        w,
        "board list (options.boards order) = 0 ara, 1 crux, 2 lyra, 3 vela"
    );
    let mut secrets = Vec::new();
    for (s, (_, id)) in players.iter().enumerate() {
        let nonce = r.seats[s].nonce.unwrap();
        let secret = id.game_secret(&game_id, &nonce);
        let seed = beacon::seed(&secret);
        let _ = writeln!(w, "seat {s} {}: master secret {}", id.name, h(&masters[s]));
        let _ = writeln!(
            w,
            "  ed25519 seed = lp_hmac(master, \"starry/1 ed25519\") = {}",
            h(&starry::crypto::lp_hmac(
                &masters[s],
                &[b"starry/1 ed25519"]
            ))
        );
        let _ = writeln!(w, "  public key   = {}", h(&id.public_key()));
        let _ = writeln!(w, "  join nonce   = {}", h(&nonce));
        let _ = writeln!(w, "  game secret  = {}", h(&secret));
        let _ = writeln!(w, "  chain seed   = {}", h(&seed));
        let _ = writeln!(w, "  tip          = {}", h(&beacon::tip(&seed)));
        secrets.push(secret);
    }
    // Setup: the ready links in seat order.
    let ready: Vec<[u8; 32]> = (0..3).map(|s| r.seats[s].ready_link.unwrap()).collect();
    let mut fields: Vec<&[u8]> = vec![b"starry/1 setup", &game_id];
    fields.extend(ready.iter().map(|l| l.as_slice()));
    let setup_seed = lp_hash(&fields);
    let _ = writeln!(
        w,
        "setup seed = lp_hash(\"starry/1 setup\", game id, ready link of seat 0, 1, 2) = {}",
        h(&setup_seed)
    );
    let mut d = Draw::new(setup_seed);
    let mut stack: Vec<usize> = (0..boards.len()).collect();
    for slot in 0..3 {
        let i = d.below(stack.len());
        let b = stack.remove(i);
        let _ = writeln!(
            w,
            "  slot {slot}: below({}) = {i} → board {b} {}",
            stack.len() + 1,
            boards[b]
        );
    }
    let _ = writeln!(
        w,
        "  stack: {:?}",
        stack.iter().map(|&b| boards[b]).collect::<Vec<_>>()
    );

    // Entry by entry: replay, and list what each entry derived.
    let mut replay = Replay::<StarrySky>::from_genesis(lines[0]).unwrap();
    let mut causes: std::collections::BTreeMap<u64, (u64, [u8; 32])> = Default::default();
    for (n, l) in lines.iter().enumerate() {
        let p = parse_line(n as u64, l).unwrap();
        let b = &p.line.body;
        let _ = writeln!(
            w,
            "entry {n} {} by seat {}: id {}",
            b.kind.as_str(),
            b.author,
            h(&p.id)
        );
        if let Some(link) = b.link {
            let _ = writeln!(w, "  link {}", h(link.bytes()));
        }
        if n == 0 {
            continue;
        }
        let before = replay
            .state
            .as_ref()
            .map(StarrySky::pending)
            .unwrap_or_default();
        // Events this entry resolves (it is by another seat than the causer
        // and is a move or reveal).
        if matches!(p.data, Data::Move(_) | Data::Reveal(_)) {
            for e in &before {
                if e.causer == b.author as usize {
                    continue;
                }
                let (cn, cid) = causes[&e.id];
                let seed = lp_hash(&[
                    b"starry/1 draw",
                    &cid,
                    &e.id.to_be_bytes(),
                    b.link.unwrap().bytes(),
                ]);
                let mut d = Draw::new(seed);
                let i = d.below(stack.len());
                let picked = stack.remove(i);
                let _ = writeln!(
                    w,
                    "  resolves event {} (caused by entry {cn}): seed lp_hash(\"starry/1 draw\", id of entry {cn}, u64({}), this link) = {}",
                    e.id,
                    e.id,
                    h(&seed)
                );
                let _ = writeln!(
                    w,
                    "    below({}) = {i} → board {picked} {}; stack now {:?}",
                    stack.len() + 1,
                    boards[picked],
                    stack.iter().map(|&x| boards[x]).collect::<Vec<_>>()
                );
            }
        }
        let secret = secrets[b.author as usize];
        match &p.data {
            Data::Move(m) => {
                let _ = writeln!(
                    w,
                    "  action ⟦{}⟧",
                    String::from_utf8(starry::log::canonical::to_bytes(&m.action)).unwrap()
                );
                for (slot, c) in m.commitments.iter().enumerate() {
                    let salt = commitment::salt(&secret, n as u64, slot as u32);
                    let _ = writeln!(
                        w,
                        "  commitment slot {slot}: salt lp_hmac(game secret, \"starry/1 salt\", u64({n}), u32({slot})) = {}",
                        h(&salt)
                    );
                    let _ = writeln!(w, "    = {}", h(c.bytes()));
                }
                for o in &m.reveals {
                    opening(w, o);
                }
            }
            Data::Reveal(rv) => {
                for o in &rv.reveals {
                    opening(w, o);
                }
            }
            _ => {}
        }
        replay.apply_line(n as u64, l).unwrap();
        if let Some(state) = &replay.state {
            for e in StarrySky::pending(state) {
                if !before.iter().any(|x| x.id == e.id) && !causes.contains_key(&e.id) {
                    causes.insert(e.id, (n as u64, p.id));
                    let _ = writeln!(
                        w,
                        "  requests event {} (a replacement board), causer seat {}",
                        e.id, e.causer
                    );
                }
            }
        }
    }
    let _ = writeln!(
        w,
        "final standings (rank seat coins): {}",
        replay
            .standings()
            .iter()
            .map(|s| format!("{} {} {}", s.rank, s.seat, s.score))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(w, "```");
    (bytes, out)
}

#[test]
fn the_short_game_and_its_derived_values_are_as_documented() {
    let (log, block) = short_game();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let vector = root.join("tests/vectors/short-game.jsonl");
    let path = root.join("docs/protocol.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let (start, end) = (
        doc.find(GAME_BEGIN).expect("begin marker"),
        doc.find(GAME_END).expect("end marker"),
    );
    let block = format!("{GAME_BEGIN}\n{block}{GAME_END}");
    let current = &doc[start..end + GAME_END.len()];
    if std::env::var_os("STARRY_BLESS").is_some() {
        std::fs::write(&path, doc.replace(current, &block)).unwrap();
        std::fs::write(&vector, &log).unwrap();
    } else {
        assert_eq!(
            std::fs::read(&vector).unwrap(),
            log,
            "the short game is not what the program plays: STARRY_BLESS=1 cargo test --test suite protocol_vectors::"
        );
        assert_eq!(
            current, block,
            "docs/protocol.md short game is stale: STARRY_BLESS=1 cargo test --test suite protocol_vectors::"
        );
    }
}
