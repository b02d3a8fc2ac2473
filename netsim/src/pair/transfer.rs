//! What a transfer over a client/server pair sends and reports, on every stack: the stream's
//! content ([`StreamPattern`]) and the outcome ([`TransferReport`]).

use std::time::Duration;

use serde::Serialize;

use crate::link::LinkAccounting;
use crate::seed::derive_seed;

/// Write size of the sending loop (at most [`StreamPattern::PERIOD`]).
pub(crate) const CHUNK: usize = 60_000;

/// The content of a transfer's stream: a seeded pseudo-random sequence with a prime period.
///
/// Byte `o` of the stream is `table[o mod PERIOD]`. The sender writes slices of one
/// precomputed table and the receiver compares against the same slices, so checking every
/// byte costs a `memcmp`, not a generator call per byte (which took several percent of a
/// benchmark run). Corruption anywhere and misplacement by any distance that is not a multiple
/// of 65521 bytes are detected.
#[derive(Clone, Debug)]
pub struct StreamPattern {
    /// Two periods back to back, so any window of up to `PERIOD` bytes is contiguous.
    table: Vec<u8>,
}

impl StreamPattern {
    /// The period in bytes (the largest prime below 2^16).
    pub const PERIOD: usize = 65_521;

    /// The pattern for `seed`.
    pub fn new(seed: u64) -> Self {
        let base = derive_seed(seed, "stream");
        let mut table: Vec<u8> = (0..Self::PERIOD.div_ceil(8) as u64)
            .flat_map(|block| pattern_word(base, block).to_le_bytes())
            .take(Self::PERIOD)
            .collect();
        table.extend_from_within(..);
        Self { table }
    }

    /// The `len` stream bytes at `offset`; `len` is capped at [`Self::PERIOD`].
    pub fn slice(&self, offset: u64, len: usize) -> &[u8] {
        let start = (offset % Self::PERIOD as u64) as usize;
        &self.table[start..start + len.min(Self::PERIOD)]
    }

    /// The stream offset of the first byte of `data`, read at stream `offset`, that differs
    /// from the pattern; `None` when all match. A `memcmp` per period; only a chunk that differs
    /// is searched byte by byte (a byte-by-byte search of every chunk took 17% of a harness
    /// run's process).
    pub fn first_mismatch(&self, offset: u64, data: &[u8]) -> Option<u64> {
        let mut position = offset;
        for chunk in data.chunks(Self::PERIOD) {
            let expected = self.slice(position, chunk.len());
            if chunk != expected {
                let at = chunk.iter().zip(expected).position(|(a, b)| a != b);
                return Some(position + at.unwrap_or(0) as u64);
            }
            position += chunk.len() as u64;
        }
        None
    }

    /// Fills `buf` with the stream bytes at `offset`, for any length.
    pub fn fill(&self, offset: u64, buf: &mut [u8]) {
        let mut position = offset;
        for chunk in buf.chunks_mut(Self::PERIOD) {
            chunk.copy_from_slice(self.slice(position, chunk.len()));
            position += chunk.len() as u64;
        }
    }
}

/// Word `block` of the table: a multiply-xorshift hash of the block number.
fn pattern_word(base: u64, block: u64) -> u64 {
    let mut z = base ^ block.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z ^ (z >> 32)
}

/// The outcome of a transfer; `S` is the stack's connection statistics (quinn's by default).
#[derive(Clone, Debug, Serialize)]
pub struct TransferReport<S = DefaultStats> {
    /// Bytes the client wrote to the stream.
    pub bytes_sent: u64,
    /// Bytes the server read from the stream.
    pub bytes_received: u64,
    /// True if the server read exactly the bytes sent, in order and unaltered.
    pub intact: bool,
    /// Time from the connection attempt until the server had read the whole stream (on the
    /// runtime's clock: virtual time under [`crate::virtual_runtime`]).
    pub elapsed: Duration,
    /// The stack's statistics of the client connection at the end.
    #[serde(skip)]
    pub client_stats: S,
    /// The link's accounting at the end.
    pub accounting: LinkAccounting,
}

/// The default statistics type of [`TransferReport`]: quinn's.
pub type DefaultStats = quinn::ConnectionStats;

/// What the client writes: a byte count, or until a deadline on the link clock.
#[derive(Clone, Copy)]
pub(crate) enum Amount {
    Bytes(u64),
    Until(Duration),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pattern_slices_agree_with_the_whole() {
        let pattern = StreamPattern::new(3);
        let mut whole = vec![0u8; 200_000];
        pattern.fill(0, &mut whole);
        for (offset, len) in [(0, 8), (3, 2), (65_000, 1_000), (131_041, 5)] {
            assert_eq!(
                &whole[offset..offset + len],
                pattern.slice(offset as u64, len)
            );
        }
        let mut tail = vec![0u8; 70_000];
        pattern.fill(100_000, &mut tail);
        assert_eq!(&whole[100_000..170_000], &tail[..]);
        // Periodic with the prime period, and not constant within it.
        assert_eq!(whole[10], whole[10 + StreamPattern::PERIOD]);
        let distinct: std::collections::BTreeSet<u8> = whole[..1000].iter().copied().collect();
        assert!(distinct.len() > 200);
        assert_ne!(StreamPattern::new(4).slice(0, 64), pattern.slice(0, 64));
    }

    #[test]
    fn a_corrupted_or_misplaced_byte_is_found_at_its_offset() {
        let pattern = StreamPattern::new(7);
        // Longer than a period, so the search crosses chunks.
        let mut data = vec![0u8; 150_000];
        pattern.fill(1000, &mut data);
        assert_eq!(pattern.first_mismatch(1000, &data), None);
        assert_eq!(pattern.first_mismatch(1000, &[]), None);
        for bad in [0, 1234, StreamPattern::PERIOD, 149_999] {
            let mut corrupted = data.clone();
            corrupted[bad] ^= 0x01;
            assert_eq!(
                pattern.first_mismatch(1000, &corrupted),
                Some(1000 + bad as u64)
            );
        }
        // The right bytes at the wrong offset (a reordering bug) are found too.
        assert!(pattern.first_mismatch(1001, &data[..5000]).is_some());
        // Another flow's content is found.
        assert!(
            StreamPattern::new(8)
                .first_mismatch(0, pattern.slice(0, 100))
                .is_some()
        );
    }
}
