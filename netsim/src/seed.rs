//! Deterministic sub-seeds: every random stream in a run (each error model of each direction,
//! jitter, reordering, duplication, the path model) gets its own RNG, seeded from the run seed
//! and a stable label. Streams are therefore independent of each other: adding an error model
//! to one direction does not change the draws of the other direction or of the path model.
//!
//! The derivation (FNV-1a of the label, mixed with the run seed by SplitMix64) is part of the
//! reproducibility contract: changing it changes every recorded run, so it must not change.
//!
//! Stream labels in use: `a_to_b/error/<i>` and `b_to_a/error/<i>` (error layer `i`),
//! `<direction>/jitter`, `<direction>/reorder`, `<direction>/duplicate`, `path` (the path
//! model), and for [`crate::quinn_pair`] `quinn/client/<k>`, `quinn/server/<k>` (endpoint
//! `rng_seed` words) and `tls/key/<k>` (the certificate key).

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The RNG used for every random choice in netsim.
pub type SimRng = ChaCha8Rng;

/// SplitMix64 finaliser (Steele, Lea and Flood 2014): a bijective 64-bit mixer.
fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// 64-bit FNV-1a hash of `label`.
fn fnv1a(label: &str) -> u64 {
    label.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The sub-seed for the stream named `label` in the run seeded with `run_seed`.
pub fn derive_seed(run_seed: u64, label: &str) -> u64 {
    splitmix64(run_seed ^ splitmix64(fnv1a(label)))
}

/// A fresh RNG for the stream named `label`.
pub fn stream_rng(run_seed: u64, label: &str) -> SimRng {
    SimRng::seed_from_u64(derive_seed(run_seed, label))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sub_seeds_differ_by_label_and_by_run_seed() {
        let a = derive_seed(7, "a_to_b/error/0");
        assert_ne!(a, derive_seed(7, "a_to_b/error/1"));
        assert_ne!(a, derive_seed(7, "b_to_a/error/0"));
        assert_ne!(a, derive_seed(8, "a_to_b/error/0"));
        assert_eq!(a, derive_seed(7, "a_to_b/error/0"));
    }
}
