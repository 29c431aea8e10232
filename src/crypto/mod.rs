//! The core's hashing, key derivation, commitments and beacons
//! ([`starry_core::crypto`]), and what only a program on a machine has: the
//! operating system's random source and the identity file.

pub use starry_core::crypto::*;

pub mod identity;

/// Fresh randomness from the operating system (nonces, identity secrets, the
/// choice of an automatic move). Never used by a rules engine.
pub fn os_random() -> Hash {
    let mut b = [0u8; 32];
    getrandom::fill(&mut b).expect("the operating system's random source failed");
    b
}
