//! Beacon chains: each player commits to the tip of a hash chain in their join
//! entry and reveals one link, walking backwards, in each later entry. A link
//! is fixed the moment the tip is published, so nobody can steer a draw that
//! uses it, and nobody else can compute it before it is revealed.

use super::{Hash, lp_hash, lp_hmac};

/// Number of hash steps from a chain's seed to its tip. A player can write at
/// most this many entries after joining a game.
pub const CHAIN_LENGTH: u32 = 1024;

const LINK_TAG: &[u8] = b"starry/1 link";
const SEED_TAG: &[u8] = b"starry/1 beacon chain";

/// One hash step: `next = H(tag, link)`; the tip is `CHAIN_LENGTH` steps from
/// the seed, and the link revealed in a player's k-th entry after the join is
/// `CHAIN_LENGTH - k` steps from the seed.
pub fn step(link: &Hash) -> Hash {
    lp_hash(&[LINK_TAG, link])
}

/// The chain's seed, derived from the player's per-game secret.
pub fn seed(game_secret: &Hash) -> Hash {
    lp_hmac(game_secret, &[SEED_TAG])
}

/// The link `steps` hash steps above the seed.
pub fn link_at(seed: &Hash, steps: u32) -> Hash {
    let mut l = *seed;
    for _ in 0..steps {
        l = step(&l);
    }
    l
}

/// The published tip.
pub fn tip(seed: &Hash) -> Hash {
    link_at(seed, CHAIN_LENGTH)
}

/// The link a player reveals in their `k`-th entry after joining (k ≥ 1), or
/// None once the chain is used up.
pub fn link_for(seed: &Hash, k: u32) -> Option<Hash> {
    (1..=CHAIN_LENGTH)
        .contains(&k)
        .then(|| link_at(seed, CHAIN_LENGTH - k))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_link_steps_to_the_one_before() {
        let s = [9u8; 32];
        let t = tip(&s);
        let l1 = link_for(&s, 1).unwrap();
        let l2 = link_for(&s, 2).unwrap();
        assert_eq!(step(&l1), t);
        assert_eq!(step(&l2), l1);
        assert_ne!(step(&l2), t, "no skipping");
        assert_eq!(link_for(&s, CHAIN_LENGTH).unwrap(), s);
        assert!(link_for(&s, CHAIN_LENGTH + 1).is_none());
    }
}
