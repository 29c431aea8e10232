//! Why a log auditor must not use Ed25519 batch verification in place of
//! `verify_strict` (docs/protocol.md §3.2 demands strict verification).
//!
//! The tests build, from chosen scalars and curve points, (key, message,
//! signature) triples that `ed25519_dalek::verify_batch` accepts and
//! `VerifyingKey::verify_strict` refuses, and, for a mixed-order key, the
//! reverse. A player controls their own key and signatures, so any such
//! triple is a line on which a batch-verifying auditor and a strict one
//! (ours, `our_log_verification_follows_strict_not_batch`) disagree: two
//! honest programs would differ on whether a log is valid, which is exactly
//! what the hash chain and the signatures are there to rule out. The last
//! group shows the pre-checks that would make a batch exact;
//! benches/signatures.rs measures what they cost.
//!
//! The batch checks `[−Σ zᵢsᵢ]B + Σ [zᵢ]Rᵢ + Σ [zᵢkᵢ mod ℓ]Aᵢ = 0` with
//! 128-bit `zᵢ` drawn deterministically from a hash of all inputs, without
//! multiplying by the cofactor 8 and without the strict checks (small-order
//! `R` or `A`, the byte-exact comparison of `R`'s encoding). A torsion point
//! `T` of order 2 left in `Rᵢ` survives as `[zᵢ]T`, which vanishes whenever
//! `zᵢ` is even, so a signer only has to try a few messages (or, in a log, a
//! few `nonce` values) until the deterministic `zᵢ` is even. A torsion point
//! in `Aᵢ` is multiplied by `zᵢkᵢ mod ℓ`, whose parity is unrelated to
//! `kᵢ`'s, so for a mixed-order key the batch and verify_strict disagree in
//! both directions.
//!
//! `zip215_accepts` restates the single-signature check of ed25519-zebra and
//! ed25519-consensus (ZIP 215: cofactored equation, non-canonical encodings
//! and small-order points allowed); their batch verifiers agree with it, so
//! every case here that it accepts is also one those batch verifiers accept.

use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use curve25519_dalek::constants::ED25519_BASEPOINT_TABLE;
use curve25519_dalek::edwards::{CompressedEdwardsY, EdwardsPoint};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::IsIdentity;
use ed25519_dalek::{Signature, VerifyingKey, verify_batch};
use sha2::{Digest, Sha512};
use starry::error::Fault;
use starry::games::starry_sky::StarrySky;
use starry::log::Replay;
use starry::log::replay::signed_message;

/// The canonical encoding of the identity (y = 1).
const IDENTITY: [u8; 32] = {
    let mut b = [0u8; 32];
    b[0] = 1;
    b
};
/// The identity with the sign bit of x set although x = 0 (non-canonical).
const IDENTITY_NEG_ZERO: [u8; 32] = {
    let mut b = IDENTITY;
    b[31] = 0x80;
    b
};
/// The identity as y = p + 1 = 2²⁵⁵ − 18, unreduced (non-canonical).
const IDENTITY_UNREDUCED: [u8; 32] = {
    let mut b = [0xff; 32];
    b[0] = 0xee;
    b[31] = 0x7f;
    b
};
/// The point (0, −1), of order 2: y = p − 1 = 2²⁵⁵ − 20.
const ORDER_2: [u8; 32] = {
    let mut b = [0xff; 32];
    b[0] = 0xec;
    b[31] = 0x7f;
    b
};

fn point(bytes: [u8; 32]) -> EdwardsPoint {
    CompressedEdwardsY(bytes)
        .decompress()
        .expect("a curve point")
}

fn order_2() -> EdwardsPoint {
    let t = point(ORDER_2);
    assert!(!t.is_identity() && (t + t).is_identity());
    t
}

/// A secret scalar from a label (any fixed value would do).
fn scalar(label: &str) -> Scalar {
    Scalar::from_bytes_mod_order_wide(&Sha512::digest(label.as_bytes()).into())
}

/// k = H(R ‖ A ‖ M) mod ℓ, over the encodings exactly as given.
fn challenge(r: &[u8; 32], a: &[u8; 32], m: &[u8]) -> Scalar {
    let h = Sha512::new()
        .chain_update(r)
        .chain_update(a)
        .chain_update(m)
        .finalize();
    Scalar::from_bytes_mod_order_wide(&h.into())
}

fn signature(r: [u8; 32], s: Scalar) -> Signature {
    let mut b = [0u8; 64];
    b[..32].copy_from_slice(&r);
    b[32..].copy_from_slice(s.as_bytes());
    Signature::from_bytes(&b)
}

fn is_odd(k: &Scalar) -> bool {
    k.as_bytes()[0] & 1 == 1
}

fn strict(key: &VerifyingKey, m: &[u8], sig: &Signature) -> bool {
    key.verify_strict(m, sig).is_ok()
}

fn batch(key: &VerifyingKey, m: &[u8], sig: &Signature) -> bool {
    verify_batch(&[m], std::slice::from_ref(sig), std::slice::from_ref(key)).is_ok()
}

/// ZIP 215 as ed25519-zebra's `VerificationKey::verify_prehashed` and
/// ed25519-consensus implement it: A and R any decodable encodings (not
/// necessarily canonical, small order allowed), s < ℓ, and
/// [8](R − ([s]B − [k]A)) = 0.
fn zip215_accepts(a: [u8; 32], m: &[u8], sig: &Signature) -> bool {
    let (Some(ap), Some(rp)) = (
        CompressedEdwardsY(a).decompress(),
        CompressedEdwardsY(*sig.r_bytes()).decompress(),
    ) else {
        return false;
    };
    let Some(s) = Option::<Scalar>::from(Scalar::from_canonical_bytes(*sig.s_bytes())) else {
        return false;
    };
    let k = challenge(sig.r_bytes(), &a, m);
    let r_prime = EdwardsPoint::vartime_double_scalar_mul_basepoint(&k, &-ap, &s);
    (rp - r_prime).mul_by_cofactor().is_identity()
}

/// A move-sized message (about 300 bytes) varied by `i`.
fn message(i: u32) -> Vec<u8> {
    let mut m = format!("{{\"author\":2,\"data\":{{\"try\":{i}}},\"kind\":\"move\"}}").into_bytes();
    m.resize(300, b' ');
    m
}

/// The first `i` for which `pick` holds, with a bound so a broken
/// assumption fails the test instead of looping.
fn grind(mut pick: impl FnMut(u32) -> bool) -> u32 {
    (0..256).find(|&i| pick(i)).expect("found within 256 tries")
}

// ---------------------------------------------------------------------------
// Small-order public keys ("weak keys").

/// The identity as a public key, in its canonical and in two non-canonical
/// encodings: with R = [r]B and s = r the batch equation holds for every
/// message (k·A = 0), so one signature "signs" everything. verify_strict
/// refuses the key (small order); verify_batch does no such check. For us:
/// a player joining with such a key could sign any entry in anyone's name
/// as far as a batch auditor is concerned (and deny every entry later).
#[test]
fn batch_accepts_a_small_order_key_for_every_message() {
    let r = scalar("weak-key nonce");
    let big_r = ED25519_BASEPOINT_TABLE * &r;
    let sig = signature(big_r.compress().to_bytes(), r);
    for encoding in [IDENTITY, IDENTITY_NEG_ZERO, IDENTITY_UNREDUCED] {
        let key = VerifyingKey::from_bytes(&encoding).expect("decodes");
        assert!(key.is_weak());
        for i in 0..4 {
            let m = message(i);
            assert!(batch(&key, &m, &sig), "batch accepts message {i}");
            assert!(!strict(&key, &m, &sig), "strict refuses message {i}");
            assert!(zip215_accepts(encoding, &m, &sig), "ZIP 215 accepts");
        }
    }
}

// ---------------------------------------------------------------------------
// Small-order R, canonical or not.

/// R = identity with s = k·a for an ordinary key: [s]B − [k]A = 0 = R, so
/// the batch (and even dalek's lax `verify`) accepts; verify_strict refuses
/// because R has small order. Also with R encoded non-canonically (y = p+1,
/// or x = −0): the batch decodes R and uses the point, while verify_strict
/// compares R's bytes with the canonical re-encoding. No grinding needed.
#[test]
fn batch_accepts_a_small_order_r_in_any_encoding() {
    let a = scalar("player key");
    let key = VerifyingKey::from(ED25519_BASEPOINT_TABLE * &a);
    let a_bytes = key.to_bytes();
    for encoding in [IDENTITY, IDENTITY_NEG_ZERO, IDENTITY_UNREDUCED] {
        let m = message(7);
        let k = challenge(&encoding, &a_bytes, &m);
        let sig = signature(encoding, k * a);
        assert!(batch(&key, &m, &sig), "batch accepts {encoding:02x?}");
        assert!(!strict(&key, &m, &sig), "strict refuses {encoding:02x?}");
        assert!(zip215_accepts(a_bytes, &m, &sig), "ZIP 215 accepts");
    }
    // The order-2 point as R: the batch term is T itself, which vanishes
    // when the batch's z is even.
    let i = grind(|i| {
        let m = message(i);
        let k = challenge(&ORDER_2, &a_bytes, &m);
        batch(&key, &m, &signature(ORDER_2, k * a))
    });
    let m = message(i);
    let sig = signature(ORDER_2, challenge(&ORDER_2, &a_bytes, &m) * a);
    assert!(batch(&key, &m, &sig));
    assert!(!strict(&key, &m, &sig));
    assert!(zip215_accepts(a_bytes, &m, &sig));
}

// ---------------------------------------------------------------------------
// Torsion components in A or R (large order, canonical encodings): these
// pass the cheap pre-checks (not small order, canonical bytes).

/// R = [r]B + T with T of order 2, an ordinary torsion-free key, s = r + k·a.
/// [s]B − [k]A = [r]B ≠ R, so verify_strict refuses (for every message); the
/// batch term is T, so the batch accepts whenever its z is even (about one
/// message in two). R is canonical and not of small order, A is torsion-free:
/// only a torsion check on R ([ℓ]R = 0) tells this apart.
#[test]
fn batch_accepts_an_r_with_a_torsion_component() {
    let a = scalar("honest key");
    let key = VerifyingKey::from(ED25519_BASEPOINT_TABLE * &a);
    let a_bytes = key.to_bytes();
    let r = scalar("nonce with torsion");
    let big_r = ED25519_BASEPOINT_TABLE * &r + order_2();
    let r_bytes = big_r.compress().to_bytes();
    let make = |i: u32| {
        let m = message(i);
        let sig = signature(r_bytes, r + challenge(&r_bytes, &a_bytes, &m) * a);
        (m, sig)
    };
    let i = grind(|i| {
        let (m, sig) = make(i);
        batch(&key, &m, &sig)
    });
    let (m, sig) = make(i);
    assert!(batch(&key, &m, &sig), "batch accepts");
    assert!(!strict(&key, &m, &sig), "strict refuses");
    assert!(zip215_accepts(a_bytes, &m, &sig), "ZIP 215 accepts");
    // The cheap pre-checks all pass ...
    assert!(!key.is_weak() && !big_r.is_small_order());
    assert_eq!(point(r_bytes).compress().to_bytes(), r_bytes, "canonical R");
    assert!(point(a_bytes).is_torsion_free());
    // ... only the per-signature subgroup check on R catches it.
    assert!(!big_r.is_torsion_free());
}

/// A mixed-order key A = [a]B + T (T of order 2; not weak, so our key check
/// lets it through) with R = [r]B and s = r + k·a: [s]B − [k]A = R − [k]T,
/// which is R when k is even (verify_strict accepts) and R + T when k is odd
/// (verify_strict refuses). The batch multiplies A by the scalar z·k reduced
/// mod ℓ, whose parity has nothing to do with k's, so its term is
/// [z·k mod ℓ]T: the batch accepts when that is even. Hence disagreement in
/// both directions: a batch-only signature (k odd, z·k mod ℓ even) and a
/// strictly valid signature the batch refuses (k even, z·k mod ℓ odd). For
/// us the second is as bad as the first: a batch auditor would reject an
/// honest-looking log that every strict program accepts.
#[test]
fn batch_and_strict_disagree_both_ways_on_a_mixed_order_key() {
    let (key, a, a_bytes) = mixed_order_key();
    let r = scalar("mixed nonce");
    let r_bytes = (ED25519_BASEPOINT_TABLE * &r).compress().to_bytes();
    let make = |i: u32| {
        let m = message(i);
        let k = challenge(&r_bytes, &a_bytes, &m);
        (m, signature(r_bytes, r + k * a), k)
    };
    let i = grind(|i| {
        let (m, sig, k) = make(i);
        is_odd(&k) && batch(&key, &m, &sig)
    });
    let (m, sig, _) = make(i);
    assert!(batch(&key, &m, &sig), "batch accepts");
    assert!(!strict(&key, &m, &sig), "strict refuses");
    assert!(zip215_accepts(a_bytes, &m, &sig), "ZIP 215 accepts");

    let j = grind(|j| {
        let (m, sig, k) = make(j);
        !is_odd(&k) && !batch(&key, &m, &sig)
    });
    let (m, sig, _) = make(j);
    assert!(strict(&key, &m, &sig), "strict accepts");
    assert!(!batch(&key, &m, &sig), "batch refuses");
    assert!(zip215_accepts(a_bytes, &m, &sig), "ZIP 215 accepts");
}

/// verify_strict accepts some signatures whose R has a torsion component:
/// with the mixed-order key above, R = [r]B + T and odd k give
/// [s]B − [k]A = [r]B − [k]T = [r]B + T = R. So an exact batch cannot simply
/// refuse every R with torsion while accepting mixed-order keys; it must
/// either refuse (or verify one by one) keys with torsion, or compute R's
/// torsion component ([ℓ]R) and compare it with −k times A's.
#[test]
fn strict_accepts_some_r_with_torsion_under_a_mixed_order_key() {
    let (key, a, a_bytes) = mixed_order_key();
    let r = scalar("mixed nonce with torsion");
    let big_r = ED25519_BASEPOINT_TABLE * &r + order_2();
    let r_bytes = big_r.compress().to_bytes();
    let i = grind(|i| is_odd(&challenge(&r_bytes, &a_bytes, &message(i))));
    let m = message(i);
    let sig = signature(r_bytes, r + challenge(&r_bytes, &a_bytes, &m) * a);
    assert!(strict(&key, &m, &sig), "strict accepts");
    assert!(!big_r.is_small_order() && !big_r.is_torsion_free());
    assert!(!point(a_bytes).is_torsion_free());
}

/// The batch verdict is not even a property of the signature: the same
/// torsioned-R signature passes or fails depending on which other (valid)
/// signatures share its batch, since the z's hash all inputs.
#[test]
fn batch_verdict_depends_on_the_other_signatures_in_the_batch() {
    let honest = ed25519_dalek::SigningKey::from_bytes(&[9u8; 32]);
    let a = scalar("honest key");
    let key = VerifyingKey::from(ED25519_BASEPOINT_TABLE * &a);
    let a_bytes = key.to_bytes();
    let r = scalar("nonce with torsion");
    let r_bytes = (ED25519_BASEPOINT_TABLE * &r + order_2())
        .compress()
        .to_bytes();
    let m = message(1000);
    let bad = signature(r_bytes, r + challenge(&r_bytes, &a_bytes, &m) * a);
    let with = |i: u32| {
        use ed25519_dalek::Signer;
        let other = message(2000 + i);
        let good = honest.sign(&other);
        verify_batch(
            &[m.as_slice(), other.as_slice()],
            &[bad, good],
            &[key, honest.verifying_key()],
        )
        .is_ok()
    };
    let pass = grind(&with);
    let fail = grind(|i| !with(i));
    assert!(with(pass) && !with(fail));
    assert!(!strict(&key, &m, &bad));
}

fn mixed_order_key() -> (VerifyingKey, Scalar, [u8; 32]) {
    let a = scalar("mixed-order key");
    let big_a = ED25519_BASEPOINT_TABLE * &a + order_2();
    let key = VerifyingKey::from(big_a);
    assert!(!key.is_weak() && !big_a.is_torsion_free());
    let bytes = key.to_bytes();
    (key, a, bytes)
}

// ---------------------------------------------------------------------------
// What it would take to make a batch exact.

/// [ℓ]P = 0 in variable time, as [ℓ − 1]P + P (ℓ is not a reduced scalar).
/// The benchmark times this form of the subgroup check.
fn torsion_free_vartime(p: &EdwardsPoint) -> bool {
    (EdwardsPoint::vartime_double_scalar_mul_basepoint(&-Scalar::ONE, p, &Scalar::ZERO) + p)
        .is_identity()
}

/// y < p for an encoding (the sign bit aside): the only non-canonical
/// encodings left are x = 0 with the sign bit set, whose points (y = ±1)
/// have small order and are refused anyway.
fn canonical_y(b: &[u8; 32]) -> bool {
    !(b[31] & 0x7f == 0x7f && b[1..31].iter().all(|&x| x == 0xff) && b[0] >= 0xed)
}

/// A batch that accepts exactly what verify_strict accepts (up to the
/// batch's 2⁻¹²⁸ soundness error): a key with a torsion component (known
/// per key, so cacheable) sends its signatures to verify_strict; every
/// other signature must have a canonical R that decodes to a torsion-free
/// point other than the identity ([ℓ]R = 0: a full-length scalar
/// multiplication per signature), and then all points lie in the
/// prime-order subgroup, where the batch equation with random z holds only
/// if every single equation R = [s]B − [k]A does.
fn exact_batch(items: &[(VerifyingKey, Vec<u8>, Signature)]) -> bool {
    let mut batched = Vec::new();
    for (key, m, sig) in items {
        let a = point(key.to_bytes());
        if a.is_identity() {
            return false; // small order: strict refuses
        }
        if !torsion_free_vartime(&a) {
            if !strict(key, m, sig) {
                return false;
            }
            continue;
        }
        let r_bytes = sig.r_bytes();
        let Some(r) = CompressedEdwardsY(*r_bytes).decompress() else {
            return false;
        };
        if !canonical_y(r_bytes) || r.is_identity() || !torsion_free_vartime(&r) {
            return false;
        }
        batched.push((key, m, sig));
    }
    let keys: Vec<VerifyingKey> = batched.iter().map(|t| *t.0).collect();
    let messages: Vec<&[u8]> = batched.iter().map(|t| t.1.as_slice()).collect();
    let sigs: Vec<Signature> = batched.iter().map(|t| *t.2).collect();
    verify_batch(&messages, &sigs, &keys).is_ok()
}

/// Every edge case above, ground so that verify_batch gets it wrong, plus
/// honest signatures.
fn edge_cases() -> Vec<(VerifyingKey, Vec<u8>, Signature)> {
    let mut out = Vec::new();
    let honest_a = scalar("honest key");
    let honest = VerifyingKey::from(ED25519_BASEPOINT_TABLE * &honest_a);
    let h_bytes = honest.to_bytes();
    let (mixed, mixed_a, m_bytes) = mixed_order_key();
    let r = scalar("edge nonce");
    let rb = ED25519_BASEPOINT_TABLE * &r;
    let sign = |a: Scalar, a_bytes: &[u8; 32], r_bytes: [u8; 32], m: &[u8]| {
        signature(r_bytes, r + challenge(&r_bytes, a_bytes, m) * a)
    };
    for i in 0..3 {
        let m = message(100 + i);
        // Honest signatures under both keys (the mixed one when strictly
        // valid, i.e. for even k).
        out.push((
            honest,
            m.clone(),
            sign(honest_a, &h_bytes, rb.compress().to_bytes(), &m),
        ));
        let k = challenge(&rb.compress().to_bytes(), &m_bytes, &m);
        let sig = sign(mixed_a, &m_bytes, rb.compress().to_bytes(), &m);
        if !is_odd(&k) {
            out.push((mixed, m, sig));
        }
    }
    for encoding in [IDENTITY, IDENTITY_NEG_ZERO, IDENTITY_UNREDUCED] {
        // Weak key; small-order R in three encodings.
        let weak = VerifyingKey::from_bytes(&encoding).unwrap();
        let m = message(200);
        out.push((weak, m.clone(), signature(rb.compress().to_bytes(), r)));
        let s = challenge(&encoding, &h_bytes, &m) * honest_a;
        out.push((honest, m, signature(encoding, s)));
    }
    let torsion_r = (rb + order_2()).compress().to_bytes();
    for i in 0..8 {
        let m = message(300 + i);
        // R with torsion under the honest key (strict refuses); R with or
        // without torsion under the mixed key (strict accepts or refuses
        // with k's parity, the batch with z·k's).
        out.push((honest, m.clone(), sign(honest_a, &h_bytes, torsion_r, &m)));
        out.push((mixed, m.clone(), sign(mixed_a, &m_bytes, torsion_r, &m)));
        let plain = rb.compress().to_bytes();
        out.push((mixed, m.clone(), sign(mixed_a, &m_bytes, plain, &m)));
    }
    out
}

/// With those pre-checks the batch gives verify_strict's verdict on every
/// edge case, alone and in batches, where verify_batch alone does not.
#[test]
fn prechecks_plus_batch_agree_with_strict() {
    for p in [
        order_2(),
        point(IDENTITY),
        ED25519_BASEPOINT_TABLE * &scalar("x"),
    ] {
        assert_eq!(torsion_free_vartime(&p), p.is_torsion_free());
        assert_eq!(
            torsion_free_vartime(&(p + order_2())),
            (p + order_2()).is_torsion_free()
        );
    }
    assert!(!canonical_y(&IDENTITY_UNREDUCED) && canonical_y(&IDENTITY) && canonical_y(&ORDER_2));

    let cases = edge_cases();
    let mut batch_wrong = 0;
    for case in &cases {
        let (key, m, sig) = case;
        let expected = strict(key, m, sig);
        assert_eq!(exact_batch(std::slice::from_ref(case)), expected);
        batch_wrong += usize::from(batch(key, m, sig) != expected);
    }
    assert!(batch_wrong > 0, "verify_batch alone disagrees on some case");
    // In groups of four, mixing valid and invalid ones.
    for group in cases.chunks(4) {
        let expected = group.iter().all(|(k, m, s)| strict(k, m, s));
        assert_eq!(exact_batch(group), expected);
    }
    // All the strictly valid ones together.
    let valid: Vec<_> = cases
        .into_iter()
        .filter(|(k, m, s)| strict(k, m, s))
        .collect();
    assert!(valid.len() >= 5);
    assert!(exact_batch(&valid));
}

// ---------------------------------------------------------------------------
// Our own log verification (crates/core/src/log/replay.rs, `check_signature`) refuses
// the batch-only signatures. A genesis line is signed by `creator_key`; we
// take the example game's genesis, put our key in, and grind its `nonce`.

const EXAMPLE: &str = include_str!("../examples/games/finished-5p-compound-coins.jsonl");

/// The example's genesis body with `creator_key` and `nonce` replaced.
fn genesis_body(key: &[u8; 32], nonce: u32) -> String {
    let line = EXAMPLE.lines().next().unwrap();
    let body = &line["{\"body\":".len()..line.rfind(",\"sig\":").unwrap()];
    let set = |body: &str, field: &str, value: &str| {
        let at = body.find(&format!("\"{field}\":\"")).unwrap() + field.len() + 4;
        format!("{}{}{}", &body[..at], value, &body[at + 64..])
    };
    let mut n = [0u8; 32];
    n[..4].copy_from_slice(&nonce.to_be_bytes());
    let body = set(body, "creator_key", &hex::encode(key));
    set(&body, "nonce", &hex::encode(n))
}

fn genesis_line(body: &str, sig: &Signature) -> Vec<u8> {
    format!(
        "{{\"body\":{body},\"sig\":\"{}\"}}\n",
        B64.encode(sig.to_bytes())
    )
    .into_bytes()
}

fn replay_fault(line: &[u8]) -> Option<(u64, Fault)> {
    Replay::<StarrySky>::from_bytes(line)
        .err()
        .map(|f| (f.entry, f.fault))
}

#[test]
fn our_log_verification_follows_strict_not_batch() {
    // The example line itself replays (the harness is sound).
    let first = format!("{}\n", EXAMPLE.lines().next().unwrap());
    assert_eq!(replay_fault(first.as_bytes()), None);

    // 1. Honest key, R with a torsion component, nonce ground until the
    //    batch accepts.
    let a = scalar("honest key");
    let key = VerifyingKey::from(ED25519_BASEPOINT_TABLE * &a);
    let a_bytes = key.to_bytes();
    let r = scalar("nonce with torsion");
    let r_bytes = (ED25519_BASEPOINT_TABLE * &r + order_2())
        .compress()
        .to_bytes();
    let sign_torsion_r = |nonce: u32| {
        let body = genesis_body(&a_bytes, nonce);
        let m = signed_message(body.as_bytes());
        let sig = signature(r_bytes, r + challenge(&r_bytes, &a_bytes, &m) * a);
        (body, m, sig)
    };
    let n = grind(|n| {
        let (_, m, sig) = sign_torsion_r(n);
        batch(&key, &m, &sig)
    });
    let (body, m, sig) = sign_torsion_r(n);
    assert!(batch(&key, &m, &sig) && !strict(&key, &m, &sig));
    assert_eq!(
        replay_fault(&genesis_line(&body, &sig)),
        Some((0, Fault::BadSignature))
    );
    // The same key with an ordinary signature replays.
    let r_plain = (ED25519_BASEPOINT_TABLE * &r).compress().to_bytes();
    let ok = signature(r_plain, r + challenge(&r_plain, &a_bytes, &m) * a);
    assert!(strict(&key, &m, &ok));
    assert_eq!(replay_fault(&genesis_line(&body, &ok)), None);

    // 2. Mixed-order key (passes our weak-key check), odd k, batch accepts.
    let (key, a, a_bytes) = mixed_order_key();
    let r = scalar("mixed nonce");
    let r_bytes = (ED25519_BASEPOINT_TABLE * &r).compress().to_bytes();
    let sign_mixed = |nonce: u32| {
        let body = genesis_body(&a_bytes, nonce);
        let m = signed_message(body.as_bytes());
        let k = challenge(&r_bytes, &a_bytes, &m);
        (body, m, signature(r_bytes, r + k * a), k)
    };
    let n = grind(|n| {
        let (_, m, sig, k) = sign_mixed(n);
        is_odd(&k) && batch(&key, &m, &sig)
    });
    let (body, m, sig, _) = sign_mixed(n);
    assert!(batch(&key, &m, &sig) && !strict(&key, &m, &sig));
    assert_eq!(
        replay_fault(&genesis_line(&body, &sig)),
        Some((0, Fault::BadSignature))
    );
    // With an even k the signature is strictly valid and the log replays
    // (our check is exactly verify_strict, mixed-order keys included), even
    // for a nonce where verify_batch refuses it: a batch auditor would
    // reject this valid log.
    let n = grind(|n| {
        let (_, m, sig, k) = sign_mixed(n);
        !is_odd(&k) && !batch(&key, &m, &sig)
    });
    let (body, m, sig, _) = sign_mixed(n);
    assert!(strict(&key, &m, &sig) && !batch(&key, &m, &sig));
    assert_eq!(replay_fault(&genesis_line(&body, &sig)), None);

    // 3. Small-order R (the identity) with an ordinary key: batch accepts
    //    at once, the log refuses.
    let a = scalar("honest key");
    let key = VerifyingKey::from(ED25519_BASEPOINT_TABLE * &a);
    let a_bytes = key.to_bytes();
    let body = genesis_body(&a_bytes, 0);
    let m = signed_message(body.as_bytes());
    let sig = signature(IDENTITY, challenge(&IDENTITY, &a_bytes, &m) * a);
    assert!(batch(&key, &m, &sig) && !strict(&key, &m, &sig));
    assert_eq!(
        replay_fault(&genesis_line(&body, &sig)),
        Some((0, Fault::BadSignature))
    );

    // 4. A weak key (the identity): the batch accepts, the log refuses the
    //    key itself.
    let r = scalar("weak-key nonce");
    let sig = signature((ED25519_BASEPOINT_TABLE * &r).compress().to_bytes(), r);
    let body = genesis_body(&IDENTITY, 0);
    let m = signed_message(body.as_bytes());
    let weak = VerifyingKey::from_bytes(&IDENTITY).unwrap();
    assert!(batch(&weak, &m, &sig) && !strict(&weak, &m, &sig));
    assert_eq!(
        replay_fault(&genesis_line(&body, &sig)),
        Some((0, Fault::BadSignature))
    );
}
