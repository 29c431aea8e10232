//! Benchmarks: checking the signatures of a game-sized log (135 entries of
//! about 300 bytes, 5 signing keys) one by one with `verify_strict`, as
//! `Replay` does, against ed25519-dalek's `verify_batch`; and the
//! per-signature pre-checks an exact (strict-equivalent) batch would need
//! on top: decoding R, the small-order test, the canonical-encoding test,
//! and the subgroup test [ℓ]R = 0 (constant-time `is_torsion_free` and a
//! variable-time equivalent). See tests/signature_batch.rs for why the
//! batch alone is not equivalent. Divan reports the time of one pass over
//! all 135 signatures; divide by 135 for the per-signature figure.

use curve25519_dalek::edwards::{CompressedEdwardsY, EdwardsPoint};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::IsIdentity;
use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey, verify_batch};

fn main() {
    divan::main();
}

const ENTRIES: usize = 135;

struct Log {
    messages: Vec<Vec<u8>>,
    signatures: Vec<Signature>,
    keys: Vec<VerifyingKey>,
}

/// 135 entries signed in turn by 5 players, as in a finished 5-player game.
fn log() -> Log {
    let players: Vec<SigningKey> = (0..5u8)
        .map(|i| SigningKey::from_bytes(&[i + 1; 32]))
        .collect();
    let mut log = Log {
        messages: Vec::new(),
        signatures: Vec::new(),
        keys: Vec::new(),
    };
    for n in 0..ENTRIES {
        let p = &players[n % players.len()];
        let mut m = format!(
            "{{\"author\":{},\"data\":{{\"move\":{n}}},\"kind\":\"move\",\"n\":{n}}}",
            n % players.len()
        )
        .into_bytes();
        m.resize(300, b' ');
        log.signatures.push(p.sign(&m));
        log.keys.push(p.verifying_key());
        log.messages.push(m);
    }
    log
}

fn r_points(log: &Log) -> Vec<EdwardsPoint> {
    log.signatures
        .iter()
        .map(|s| CompressedEdwardsY(*s.r_bytes()).decompress().unwrap())
        .collect()
}

fn items() -> divan::counter::ItemsCount {
    divan::counter::ItemsCount::new(ENTRIES)
}

#[divan::bench]
fn verify_strict_one_by_one(b: divan::Bencher) {
    let log = log();
    b.counter(items()).bench(|| {
        for i in 0..ENTRIES {
            log.keys[i]
                .verify_strict(divan::black_box(&log.messages[i]), &log.signatures[i])
                .unwrap();
        }
    });
}

#[divan::bench]
fn verify_batch_all(b: divan::Bencher) {
    let log = log();
    let messages: Vec<&[u8]> = log.messages.iter().map(Vec::as_slice).collect();
    b.counter(items())
        .bench(|| verify_batch(divan::black_box(&messages), &log.signatures, &log.keys).unwrap());
}

/// Decoding R (a field exponentiation), which verify_strict also does.
#[divan::bench]
fn precheck_decompress_r(b: divan::Bencher) {
    let log = log();
    b.counter(items()).bench(|| {
        for s in &log.signatures {
            divan::black_box(CompressedEdwardsY(*divan::black_box(s.r_bytes())).decompress());
        }
    });
}

/// R not of small order ([8]R ≠ 0: three doublings) on decoded points.
#[divan::bench]
fn precheck_r_small_order(b: divan::Bencher) {
    let rs = r_points(&log());
    b.counter(items()).bench(|| {
        for r in &rs {
            assert!(!divan::black_box(r).is_small_order());
        }
    });
}

/// R canonically encoded, checked by re-encoding (one field inversion).
#[divan::bench]
fn precheck_r_canonical_by_compress(b: divan::Bencher) {
    let log = log();
    let rs = r_points(&log);
    b.counter(items()).bench(|| {
        for (r, s) in rs.iter().zip(&log.signatures) {
            assert_eq!(divan::black_box(r).compress().as_bytes(), s.r_bytes());
        }
    });
}

/// [ℓ]R = 0 with curve25519-dalek's constant-time scalar multiplication.
#[divan::bench]
fn precheck_r_torsion_free(b: divan::Bencher) {
    let rs = r_points(&log());
    b.counter(items()).bench(|| {
        for r in &rs {
            assert!(divan::black_box(r).is_torsion_free());
        }
    });
}

/// [ℓ]R = 0 in variable time, as [ℓ − 1]R + R (ℓ itself is not a reduced
/// scalar), through the same double-base routine a verify uses.
#[divan::bench]
fn precheck_r_torsion_free_vartime(b: divan::Bencher) {
    let rs = r_points(&log());
    let minus_one = -Scalar::ONE;
    b.counter(items()).bench(|| {
        for r in &rs {
            let r = divan::black_box(r);
            let l_r =
                EdwardsPoint::vartime_double_scalar_mul_basepoint(&minus_one, r, &Scalar::ZERO) + r;
            assert!(l_r.is_identity());
        }
    });
}

/// y < p for an encoding, sign bit aside (as in tests/signature_batch.rs).
fn canonical_y(b: &[u8; 32]) -> bool {
    !(b[31] & 0x7f == 0x7f && b[1..31].iter().all(|&x| x == 0xff) && b[0] >= 0xed)
}

fn torsion_free_vartime(p: &EdwardsPoint) -> bool {
    (EdwardsPoint::vartime_double_scalar_mul_basepoint(&-Scalar::ONE, p, &Scalar::ZERO) + p)
        .is_identity()
}

/// The strict-equivalent batch of tests/signature_batch.rs (`exact_batch`):
/// per distinct key a subgroup check on A (5 keys here, all torsion-free),
/// per signature a canonical, non-identity, torsion-free R, then the batch.
#[divan::bench]
fn exact_batch_prechecks_then_verify_batch(b: divan::Bencher) {
    let log = log();
    let messages: Vec<&[u8]> = log.messages.iter().map(Vec::as_slice).collect();
    b.counter(items()).bench(|| {
        let mut keys_seen: Vec<[u8; 32]> = Vec::new();
        for (key, sig) in log.keys.iter().zip(&log.signatures) {
            let a = key.to_bytes();
            if !keys_seen.contains(&a) {
                let p = CompressedEdwardsY(a).decompress().unwrap();
                assert!(!p.is_identity() && torsion_free_vartime(&p));
                keys_seen.push(a);
            }
            let r_bytes = divan::black_box(sig.r_bytes());
            let r = CompressedEdwardsY(*r_bytes).decompress().unwrap();
            assert!(canonical_y(r_bytes) && !r.is_identity() && torsion_free_vartime(&r));
        }
        verify_batch(divan::black_box(&messages), &log.signatures, &log.keys).unwrap()
    });
}
