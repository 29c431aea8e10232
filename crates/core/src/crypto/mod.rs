//! Hashing, key derivation, commitments and beacons. Everything here is
//! specified in `docs/protocol.md`; the functions are small on purpose so that
//! each can be checked against that text.

pub mod beacon;
pub mod commitment;
pub mod identity;

use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};

/// A 32-byte SHA-256 value.
pub type Hash = [u8; 32];

/// Length-prefixed hashing: each field is preceded by its length as a 4-byte
/// big-endian integer, so no two different field lists hash the same bytes.
pub fn lp_hash(fields: &[&[u8]]) -> Hash {
    let mut h = Sha256::new();
    for f in fields {
        h.update((f.len() as u32).to_be_bytes());
        h.update(f);
    }
    h.finalize().into()
}

/// HMAC-SHA-256 over length-prefixed fields.
pub fn lp_hmac(key: &[u8], fields: &[&[u8]]) -> Hash {
    let mut m = <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("HMAC takes any key length");
    for f in fields {
        m.update(&(f.len() as u32).to_be_bytes());
        m.update(f);
    }
    m.finalize().into_bytes().into()
}

/// Plain SHA-256 of some bytes (entry ids are the hash of the line).
pub fn sha256(bytes: &[u8]) -> Hash {
    Sha256::digest(bytes).into()
}
