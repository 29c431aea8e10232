//! What an audit costs per entry against its floor, measured in the same
//! run: the floor is what no audit can skip for one entry (parse its JSON,
//! hash it for its id, verify its Ed25519 signature strictly); the audit
//! adds canonical form, the chain, beacon links, commitments, draws and
//! every rule. Also the replay of a prefix this player's program verified
//! before (the verified-prefix cache: no canonical form, no signature).
//!
//!     cargo bench --bench audit

use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use ed25519_dalek::{Signature, VerifyingKey};
use starry::games::Game;
use starry::games::star_map::StarMap;
use starry::games::starry_night::StarryNight;
use starry::games::starry_sky::StarrySky;
use starry::log::Replay;
use starry::log::replay::{parse_line, signed_message};

fn main() {
    divan::main();
}

const LOGS: [&str; 3] = [
    "finished-5p-compound-coins.jsonl",
    "starry-night-finished-area.jsonl",
    "star-map-4-players-teams.jsonl",
];

fn log(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/examples/games/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn lines(bytes: &[u8]) -> Vec<&[u8]> {
    bytes
        .split_inclusive(|&b| b == b'\n')
        .map(|l| &l[..l.len() - 1])
        .collect()
}

/// What the floor needs of each line, prepared outside the timing: the
/// author's key, the signed message and the signature.
fn signatures<G: Game>(bytes: &[u8]) -> Vec<(VerifyingKey, Vec<u8>, Signature)> {
    let r = Replay::<G>::from_bytes(bytes).unwrap();
    lines(bytes)
        .iter()
        .enumerate()
        .map(|(n, l)| {
            let p = parse_line(n as u64, l).unwrap();
            let key = match &p.data {
                starry::log::replay::Data::Join(j) => j.key.0,
                _ if n == 0 => r.genesis.creator_key.0,
                _ => r.seats[p.line.body.author as usize].key.unwrap(),
            };
            let sig: [u8; 64] = B64.decode(&p.line.sig).unwrap().try_into().unwrap();
            (
                VerifyingKey::from_bytes(&key).unwrap(),
                signed_message(&p.body_bytes),
                Signature::from_bytes(&sig),
            )
        })
        .collect()
}

fn audit(name: &str, bytes: &[u8]) {
    match name {
        n if n.starts_with("finished-5p") => drop(Replay::<StarrySky>::from_bytes(bytes).unwrap()),
        n if n.starts_with("starry-night") => {
            drop(Replay::<StarryNight>::from_bytes(bytes).unwrap())
        }
        _ => drop(Replay::<StarMap>::from_bytes(bytes).unwrap()),
    }
}

fn known(name: &str, bytes: &[u8], k: usize) {
    match name {
        n if n.starts_with("finished-5p") => {
            drop(Replay::<StarrySky>::from_bytes_known(bytes, k).unwrap())
        }
        n if n.starts_with("starry-night") => {
            drop(Replay::<StarryNight>::from_bytes_known(bytes, k).unwrap())
        }
        _ => drop(Replay::<StarMap>::from_bytes_known(bytes, k).unwrap()),
    }
}

/// The whole audit of one log (every check, every rule).
#[divan::bench(args = LOGS)]
fn audit_per_entry(b: divan::Bencher, name: &str) {
    let bytes = log(name);
    b.counter(divan::counter::ItemsCount::new(lines(&bytes).len()))
        .bench(|| audit(name, divan::black_box(&bytes)));
}

/// The floor for the same log: per entry, parse the JSON, hash the line,
/// verify the signature strictly.
#[divan::bench(args = LOGS)]
fn floor_per_entry(b: divan::Bencher, name: &str) {
    let bytes = log(name);
    let ls = lines(&bytes);
    let sigs = match name {
        n if n.starts_with("finished-5p") => signatures::<StarrySky>(&bytes),
        n if n.starts_with("starry-night") => signatures::<StarryNight>(&bytes),
        _ => signatures::<StarMap>(&bytes),
    };
    b.counter(divan::counter::ItemsCount::new(ls.len()))
        .bench(|| {
            for (l, (key, message, sig)) in ls.iter().zip(&sigs) {
                let v: serde_json::Value = serde_json::from_slice(divan::black_box(l)).unwrap();
                divan::black_box(v);
                divan::black_box(starry::crypto::sha256(l));
                key.verify_strict(message, sig).unwrap();
            }
        });
}

/// The replay of a log whose every entry the cache vouches for: what
/// `status` and `play` do before the entries that are new.
#[divan::bench(args = LOGS)]
fn known_prefix_per_entry(b: divan::Bencher, name: &str) {
    let bytes = log(name);
    let n = lines(&bytes).len();
    b.counter(divan::counter::ItemsCount::new(n))
        .bench(|| known(name, divan::black_box(&bytes), n));
}
