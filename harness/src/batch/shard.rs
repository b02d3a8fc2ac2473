//! Shards: deterministic slices of a grid for batch jobs.
//!
//! Run `k` of the grid (grid order: point, then controller, then seed) belongs to shard
//! `k mod N`: a fixed, balanced slice that does not depend on the machine or on timing.

use serde::{Deserialize, Serialize};

/// Most shards a grid may be cut into: one run each at the largest grid.
pub const MAX_SHARDS: usize = crate::scenario::MAX_RUNS;

/// A slice `index` of `count` (`--shard 2/8`, 0-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// This shard, in `[0, count)`.
    pub index: usize,
    /// Number of shards.
    pub count: usize,
}

impl Shard {
    /// The whole grid.
    pub const ALL: Self = Self { index: 0, count: 1 };

    /// Whether run `k` (grid order) belongs to this shard.
    pub fn contains(&self, k: usize) -> bool {
        k % self.count == self.index
    }
}

impl std::str::FromStr for Shard {
    type Err = String;

    fn from_str(text: &str) -> std::result::Result<Self, String> {
        let err = || format!("`{text}` is not a shard: expected i/N with 0 <= i < N, e.g. 0/4");
        let (i, n) = text.split_once('/').ok_or_else(err)?;
        let index: usize = i.trim().parse().map_err(|_| err())?;
        let count: usize = n.trim().parse().map_err(|_| err())?;
        if count == 0 || index >= count {
            return Err(err());
        }
        if count > MAX_SHARDS {
            return Err(format!(
                "`{text}`: at most {MAX_SHARDS} shards (a grid has at most {} runs)",
                crate::scenario::MAX_RUNS
            ));
        }
        Ok(Self { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}
