//! The audit of one game on one core and on two, against the one-core
//! floor, in the same run: the floor is what no audit can skip for one
//! entry (parse its JSON, hash it for its id, verify its Ed25519 signature
//! strictly; the same as `benches/audit.rs`), the audit is
//! `Replay::from_bytes` (every check, every rule) inside a rayon pool of
//! one thread (everything in order, as before `log::verify`) or of two
//! (lines parsed and signatures verified ahead on the other thread).
//!
//!     cargo bench --bench verify

use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use ed25519_dalek::{Signature, VerifyingKey};
use starry::games::starry_sky::StarrySky;
use starry::log::Replay;
use starry::log::replay::{Data, parse_line, signed_message};

fn main() {
    divan::main();
}

const LOG: &str = "finished-5p-compound-coins.jsonl";

fn log() -> Vec<u8> {
    std::fs::read(format!(
        "{}/examples/games/{LOG}",
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

/// The floor, per entry: parse the JSON, hash the line, verify the
/// signature strictly (key, message and signature prepared beforehand).
#[divan::bench]
fn floor_one_core(b: divan::Bencher) {
    let bytes = log();
    let ls = lines(&bytes);
    let r = Replay::<StarrySky>::from_bytes(&bytes).unwrap();
    let sigs: Vec<(VerifyingKey, Vec<u8>, Signature)> = ls
        .iter()
        .enumerate()
        .map(|(n, l)| {
            let p = parse_line(n as u64, l).unwrap();
            let key = match &p.data {
                Data::Join(j) => j.key.0,
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
        .collect();
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

/// The whole audit in a pool of `threads` threads.
#[divan::bench(args = [1, 2])]
fn audit(b: divan::Bencher, threads: usize) {
    let bytes = log();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    b.counter(divan::counter::ItemsCount::new(lines(&bytes).len()))
        .bench(|| {
            pool.install(|| {
                drop(Replay::<StarrySky>::from_bytes(divan::black_box(&bytes)).unwrap())
            })
        });
}
