//! The one sampler every random event uses: a SHA-256 counter stream with
//! rejection sampling. It is specified byte for byte in `docs/protocol.md`
//! ("Draws") so that any implementation reproduces every draw; a library RNG
//! could change its output between releases and silently change replays.

/// Domain tag of the stream blocks.
const STREAM_TAG: &[u8] = b"starry/1 stream";

/// A deterministic stream of uniform choices derived from a 32-byte seed.
#[derive(Clone, Debug)]
pub struct Draw {
    seed: [u8; 32],
    counter: u64,
    block: [u8; 32],
    used: usize,
}

impl Draw {
    pub fn new(seed: [u8; 32]) -> Self {
        Draw {
            seed,
            counter: 0,
            block: [0; 32],
            used: 32,
        }
    }

    fn next_u64(&mut self) -> u64 {
        if self.used + 8 > 32 {
            self.block =
                crate::crypto::lp_hash(&[STREAM_TAG, &self.seed, &self.counter.to_be_bytes()]);
            self.counter += 1;
            self.used = 0;
        }
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(&self.block[self.used..self.used + 8]);
        self.used += 8;
        u64::from_be_bytes(bytes)
    }

    /// A uniform integer in `0..n`. Panics if `n == 0`, which is a caller bug:
    /// there is nothing to draw from.
    pub fn below(&mut self, n: usize) -> usize {
        assert!(n > 0, "draw from an empty range");
        let n = n as u64;
        // Largest multiple of n that fits: values at or above it are rejected
        // so that every residue is equally likely.
        let zone = u64::MAX - (u64::MAX % n + 1) % n;
        loop {
            let x = self.next_u64();
            if x <= zone {
                return (x % n) as usize;
            }
        }
    }

    /// The next 32 bytes of the stream (four numbers, big-endian). Not
    /// used by any draw of the protocol: the program takes its nonces this
    /// way, so that a seeded stream makes reproducible test vectors.
    pub fn bytes(&mut self) -> [u8; 32] {
        let mut out = [0u8; 32];
        for chunk in out.chunks_mut(8) {
            chunk.copy_from_slice(&self.next_u64().to_be_bytes());
        }
        out
    }

    /// Removes and returns one uniformly chosen element.
    pub fn pick<T>(&mut self, items: &mut Vec<T>) -> T {
        let i = self.below(items.len());
        items.remove(i)
    }

    /// Fisher–Yates, from the last position down, as the spec states.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_is_in_range_and_deterministic() {
        let mut a = Draw::new([7; 32]);
        let mut b = Draw::new([7; 32]);
        for n in 1..50 {
            let x = a.below(n);
            assert!(x < n);
            assert_eq!(x, b.below(n));
        }
    }

    #[test]
    fn below_is_roughly_uniform() {
        let mut d = Draw::new([1; 32]);
        let mut counts = [0u32; 5];
        for _ in 0..5000 {
            counts[d.below(5)] += 1;
        }
        for c in counts {
            assert!((850..1150).contains(&c), "{counts:?}");
        }
    }

    #[test]
    fn shuffle_is_a_permutation() {
        let mut d = Draw::new([2; 32]);
        let mut v: Vec<u32> = (0..12).collect();
        d.shuffle(&mut v);
        let mut sorted = v.clone();
        sorted.sort();
        assert_eq!(sorted, (0..12).collect::<Vec<_>>());
        assert_ne!(v, sorted, "this seed moves something");
    }
}
