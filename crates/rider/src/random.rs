//! Deterministic randomness: each step's generator is seeded from (run id, step id), so a
//! re-run or resumed step draws the same numbers.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use sha2::{Digest as _, Sha256};

const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// A SplitMix64 generator. Cheap to clone; clones share the sequence.
#[derive(Debug, Clone)]
pub struct Random {
    state: Arc<AtomicU64>,
}

impl Random {
    /// The generator of step `step_id` in run `run_id`.
    pub fn for_step(run_id: &str, step_id: &str) -> Random {
        let digest = Sha256::new()
            .chain_update(run_id.as_bytes())
            .chain_update([0u8])
            .chain_update(step_id.as_bytes())
            .finalize();
        let mut seed = [0u8; 8];
        seed.copy_from_slice(&digest[..8]);
        Random::from_seed(u64::from_le_bytes(seed))
    }

    /// A generator from an explicit seed.
    pub fn from_seed(seed: u64) -> Random {
        Random {
            state: Arc::new(AtomicU64::new(seed)),
        }
    }

    /// The next 64 random bits.
    pub fn next_u64(&self) -> u64 {
        let mut z = self
            .state
            .fetch_add(GAMMA, Ordering::Relaxed)
            .wrapping_add(GAMMA);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A float uniformly in `[0, 1)`.
    pub fn next_f64(&self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// An integer uniformly in `[0, bound)`; 0 when `bound` is 0.
    pub fn below(&self, bound: u64) -> u64 {
        if bound == 0 {
            return 0;
        }
        // Rejection sampling avoids modulo bias.
        let zone = u64::MAX - u64::MAX % bound;
        loop {
            let v = self.next_u64();
            if v < zone {
                return v % bound;
            }
        }
    }

    /// Fills `bytes` with random bytes.
    pub fn fill(&self, bytes: &mut [u8]) {
        for chunk in bytes.chunks_mut(8) {
            let v = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }
}
