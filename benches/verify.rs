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
    interleaved();
}

/// The ratios the target is about, each measured in one round: the floor,
/// the audit on one thread and on two, one after another, 200 rounds.
/// This machine's speed drifts by tens of per cent from minute to minute
/// (another tenant of the host), which moves divan's separate medians
/// apart; a ratio taken within a round cancels the drift.
fn interleaved() {
    let bytes = log();
    let ls = lines(&bytes);
    let sigs = signed(&bytes);
    let pools: Vec<rayon::ThreadPool> = [1, 2]
        .iter()
        .map(|&n| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap()
        })
        .collect();
    let time = |f: &dyn Fn()| {
        let t = std::time::Instant::now();
        f();
        t.elapsed().as_secs_f64()
    };
    let (mut one, mut two) = (Vec::new(), Vec::new());
    for _ in 0..200 {
        let f = time(&|| floor(&ls, &sigs));
        let a: Vec<f64> = pools
            .iter()
            .map(|pool| {
                time(&|| {
                    pool.install(|| {
                        drop(Replay::<StarrySky>::from_bytes(divan::black_box(&bytes)).unwrap())
                    })
                })
            })
            .collect();
        one.push(a[0] / f);
        two.push(a[1] / f);
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(|a, b| a.total_cmp(b));
        v[v.len() / 2]
    };
    println!(
        "interleaved, 200 rounds, median of each round's ratio: audit on 1 thread {:.2} x the floor, on 2 threads {:.2} x",
        median(&mut one),
        median(&mut two)
    );
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
type Signed = (VerifyingKey, Vec<u8>, Signature);

/// Each line's key, signed message and signature, decoded beforehand.
fn signed(bytes: &[u8]) -> Vec<Signed> {
    let r = Replay::<StarrySky>::from_bytes(bytes).unwrap();
    lines(bytes)
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
        .collect()
}

/// The floor: parse, hash and verify every line, on this thread.
fn floor(ls: &[&[u8]], sigs: &[Signed]) {
    for (l, (key, message, sig)) in ls.iter().zip(sigs) {
        let v: serde_json::Value = serde_json::from_slice(divan::black_box(l)).unwrap();
        divan::black_box(v);
        divan::black_box(starry::crypto::sha256(l));
        key.verify_strict(message, sig).unwrap();
    }
}

#[divan::bench]
fn floor_one_core(b: divan::Bencher) {
    let bytes = log();
    let ls = lines(&bytes);
    let sigs = signed(&bytes);
    b.counter(divan::counter::ItemsCount::new(ls.len()))
        .bench(|| floor(&ls, &sigs));
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
