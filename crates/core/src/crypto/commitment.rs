//! Commitments to hidden values and the salts that blind them.
//!
//! A commitment binds the value to the game, its author, the entry and the
//! slot, so it cannot be replayed elsewhere; the salt is derived from the
//! author's per-game secret so that their program can always re-derive it,
//! and nobody else can.

use super::{Hash, lp_hash, lp_hmac};

const COMMIT_TAG: &[u8] = b"starry/1 commitment";
const SALT_TAG: &[u8] = b"starry/1 salt";

/// Where a commitment sits and who made it.
#[derive(Clone, Copy, Debug)]
pub struct Slot<'a> {
    pub game: &'a Hash,
    pub author_key: &'a [u8; 32],
    pub entry: u64,
    pub slot: u32,
}

/// The commitment to `value` (the value's canonical JSON bytes) with `salt`.
pub fn commit(at: Slot<'_>, value: &[u8], salt: &Hash) -> Hash {
    lp_hash(&[
        COMMIT_TAG,
        at.game,
        at.author_key,
        &at.entry.to_be_bytes(),
        &at.slot.to_be_bytes(),
        value,
        salt,
    ])
}

/// The salt for a slot, from the author's per-game secret.
pub fn salt(game_secret: &Hash, entry: u64, slot: u32) -> Hash {
    lp_hmac(
        game_secret,
        &[SALT_TAG, &entry.to_be_bytes(), &slot.to_be_bytes()],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commitment_binds_every_field() {
        let g = [1u8; 32];
        let k = [2u8; 32];
        let base = Slot {
            game: &g,
            author_key: &k,
            entry: 5,
            slot: 0,
        };
        let s = salt(&[3u8; 32], 5, 0);
        let c = commit(base, b"\"10\"", &s);
        let g2 = [9u8; 32];
        let k2 = [8u8; 32];
        for other in [
            commit(Slot { game: &g2, ..base }, b"\"10\"", &s),
            commit(
                Slot {
                    author_key: &k2,
                    ..base
                },
                b"\"10\"",
                &s,
            ),
            commit(Slot { entry: 6, ..base }, b"\"10\"", &s),
            commit(Slot { slot: 1, ..base }, b"\"10\"", &s),
            commit(base, b"\"7\"", &s),
            commit(base, b"\"10\"", &salt(&[3u8; 32], 5, 1)),
        ] {
            assert_ne!(c, other);
        }
    }
}
