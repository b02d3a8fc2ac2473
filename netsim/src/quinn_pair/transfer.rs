//! Transfers over a [`QuinnPair`]: a fixed number of bytes, or as much as fits in a time span,
//! on one unidirectional stream from client to server, with the received bytes checked.

use std::time::Duration;

use quinn::{Connection, ConnectionStats};
use serde::Serialize;

use super::{QuinnPair, QuinnPairError};
use crate::link::LinkAccounting;
use crate::seed::derive_seed;

/// Write size of the sending loop (at most [`StreamPattern::PERIOD`]).
const CHUNK: usize = 60_000;

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

/// The outcome of a transfer.
#[derive(Clone, Debug, Serialize)]
pub struct TransferReport {
    /// Bytes the client wrote to the stream.
    pub bytes_sent: u64,
    /// Bytes the server read from the stream.
    pub bytes_received: u64,
    /// True if the server read exactly the bytes sent, in order and unaltered.
    pub intact: bool,
    /// Time from the connection attempt until the server had read the whole stream (on the
    /// runtime's clock: virtual time under [`crate::virtual_runtime`]).
    pub elapsed: Duration,
    /// quinn's statistics of the client connection at the end.
    #[serde(skip)]
    pub client_stats: ConnectionStats,
    /// The link's accounting at the end.
    pub accounting: LinkAccounting,
}

/// What the client writes: a byte count, or until a deadline on the link clock.
#[derive(Clone, Copy)]
enum Amount {
    Bytes(u64),
    Until(Duration),
}

impl QuinnPair {
    /// Connects and sends `bytes` bytes client -> server on one stream; the server checks them.
    pub async fn transfer(&self, bytes: u64) -> Result<TransferReport, QuinnPairError> {
        self.run_transfer(Amount::Bytes(bytes)).await
    }

    /// Connects and sends client -> server for `duration` of link time, then finishes the
    /// stream; the server checks every byte.
    pub async fn transfer_for(&self, duration: Duration) -> Result<TransferReport, QuinnPairError> {
        let until = self.link().now().saturating_add(duration);
        self.run_transfer(Amount::Until(until)).await
    }

    async fn run_transfer(&self, amount: Amount) -> Result<TransferReport, QuinnPairError> {
        let started = self.link().now();
        let (client, server) = self.connect().await?;
        let seed = self.seed();
        let link = self.link().clone();
        let (sent, received) =
            tokio::join!(send(&client, seed, amount, &link), receive(&server, seed));
        let bytes_sent = sent?;
        let (bytes_received, intact) = received?;
        let elapsed = self.link().now().saturating_sub(started);
        client.close(0u32.into(), b"done");
        server.close(0u32.into(), b"done");
        tracing::info!(
            bytes_sent,
            bytes_received,
            intact,
            elapsed_s = elapsed.as_secs_f64(),
            "quinn transfer finished"
        );
        Ok(TransferReport {
            bytes_sent,
            bytes_received,
            intact: intact && bytes_received == bytes_sent,
            elapsed,
            client_stats: client.stats(),
            accounting: self.link().accounting(),
        })
    }
}

/// Sends `bytes` client -> server over a fresh [`QuinnPair`] on `link`, in virtual time on a
/// runtime of its own, with `controller` as the client's congestion controller (quinn's
/// defaults otherwise); the server checks every byte. The one-call form for controller tests.
pub fn transfer_with_controller(
    link: crate::LinkConfig,
    seed: u64,
    controller: std::sync::Arc<dyn quinn::congestion::ControllerFactory + Send + Sync>,
    bytes: u64,
) -> Result<TransferReport, QuinnPairError> {
    let mut transport = quinn::TransportConfig::default();
    transport.congestion_controller_factory(controller);
    crate::virtual_runtime()?.block_on(async {
        QuinnPair::builder(link, seed)
            .client_transport(std::sync::Arc::new(transport))
            .build()?
            .transfer(bytes)
            .await
    })
}

/// Client side: writes the pattern, finishes, and waits until the server has acknowledged it.
async fn send(
    connection: &Connection,
    seed: u64,
    amount: Amount,
    link: &crate::SimLink,
) -> Result<u64, QuinnPairError> {
    let mut stream = connection
        .open_uni()
        .await
        .map_err(|e| QuinnPairError::quinn("opening the stream", e))?;
    let pattern = StreamPattern::new(seed);
    let mut offset = 0u64;
    loop {
        let len = match amount {
            Amount::Bytes(total) => usize::try_from(total - offset).unwrap_or(CHUNK).min(CHUNK),
            Amount::Until(until) if link.now() < until => CHUNK,
            Amount::Until(_) => 0,
        };
        if len == 0 {
            break;
        }
        stream
            .write_all(pattern.slice(offset, len))
            .await
            .map_err(|e| QuinnPairError::quinn("writing", e))?;
        offset += len as u64;
    }
    stream
        .finish()
        .map_err(|e| QuinnPairError::quinn("finishing the stream", e))?;
    stream
        .stopped()
        .await
        .map_err(|e| QuinnPairError::quinn("waiting for the stream to be acknowledged", e))?;
    Ok(offset)
}

/// Server side: reads the stream to its end, checking every byte against the pattern.
async fn receive(connection: &Connection, seed: u64) -> Result<(u64, bool), QuinnPairError> {
    let mut stream = connection
        .accept_uni()
        .await
        .map_err(|e| QuinnPairError::quinn("accepting the stream", e))?;
    let pattern = StreamPattern::new(seed);
    let mut buf = vec![0u8; CHUNK];
    let mut offset = 0u64;
    let mut intact = true;
    while let Some(len) = stream
        .read(&mut buf)
        .await
        .map_err(|e| QuinnPairError::quinn("reading", e))?
    {
        intact &= buf[..len] == *pattern.slice(offset, len);
        offset += len as u64;
    }
    Ok((offset, intact))
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
}
