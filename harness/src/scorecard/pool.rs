//! Pooled comparisons: many points' seed pairs in one ratio, each measurement counted once.
//!
//! Two presets can hold the same run (ABRA's node, pause and speed sweeps share their default
//! point): pooled twice, it would count as two independent measurements and narrow the
//! interval for nothing. A pair of runs is therefore pooled once, whatever points hold it.

use std::collections::HashSet;

use super::experiment::{Pair, ratio};
use crate::report::paired::PairedRatio;

/// Seed pairs pooled over points, each pair of runs once.
#[derive(Clone, Debug, Default)]
pub struct Pool {
    pairs: Vec<Pair>,
    seen: HashSet<(String, String)>,
    /// Pairs offered again (the same two runs under another point) and left out.
    pub duplicates: usize,
}

impl Pool {
    /// Adds `pairs`, leaving out any pair of runs already in the pool.
    pub fn add(&mut self, pairs: impl IntoIterator<Item = Pair>) {
        for pair in pairs {
            if self.seen.insert(pair.runs.clone()) {
                self.pairs.push(pair);
            } else {
                self.duplicates += 1;
            }
        }
    }

    /// Pairs in the pool.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// Whether the pool is empty.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// The pooled paired ratio.
    pub fn ratio(&self) -> Option<PairedRatio> {
        ratio(&self.pairs)
    }

    /// `N pairs` and, when some were left out, how many.
    pub fn describe(&self) -> String {
        if self.duplicates == 0 {
            format!("{} pairs", self.len())
        } else {
            format!(
                "{} pairs ({} more were the same runs under another point, counted once)",
                self.len(),
                self.duplicates
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(mine: f64, other: f64, a: &str, b: &str) -> Pair {
        Pair {
            mine,
            other,
            runs: (a.to_owned(), b.to_owned()),
        }
    }

    #[test]
    fn the_same_runs_under_two_points_count_once() {
        let mut pool = Pool::default();
        pool.add([pair(2.0, 1.0, "a1", "b1"), pair(1.0, 1.0, "a2", "b2")]);
        pool.add([pair(2.0, 1.0, "a1", "b1")]);
        assert_eq!((pool.len(), pool.duplicates), (2, 1));
        // Two pairs: ratios 2 and 1, geometric mean sqrt(2).
        let r = pool.ratio().unwrap();
        assert!((r.mean - 2f64.sqrt()).abs() < 1e-12, "{r:?}");
        assert_eq!(r.seeds, 2);
    }
}
