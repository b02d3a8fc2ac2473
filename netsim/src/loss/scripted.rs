//! The scripted model for tests: drop exactly the listed datagram indices of a direction.

/// A sorted, de-duplicated list of 0-based datagram indices to drop, with a cursor.
///
/// Index `i` is the `i`-th datagram offered to the direction, counting every datagram
/// (including those later dropped for another reason), so a test can say "drop the 40th
/// datagram the client sends" without knowing what else happens on the link.
#[derive(Clone, Debug, Default)]
pub(crate) struct ScriptedDrops {
    indices: Vec<u64>,
    next: usize,
}

impl ScriptedDrops {
    pub(crate) fn new(indices: &[u64]) -> Self {
        let mut indices = indices.to_vec();
        indices.sort_unstable();
        indices.dedup();
        Self { indices, next: 0 }
    }

    /// True if datagram `index` is scripted to be dropped. Indices must be queried in increasing
    /// order, which the link guarantees (it numbers datagrams as they are offered).
    pub(crate) fn drops(&mut self, index: u64) -> bool {
        while self
            .indices
            .get(self.next)
            .is_some_and(|&listed| listed < index)
        {
            self.next += 1;
        }
        self.indices.get(self.next) == Some(&index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_exactly_the_listed_indices() {
        let mut script = ScriptedDrops::new(&[7, 3, 3, 10]);
        let dropped: Vec<u64> = (0..12).filter(|&i| script.drops(i)).collect();
        assert_eq!(dropped, vec![3, 7, 10]);
    }
}
