//! State the two ends of a transfer share: what the receiver has verified, and when.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use netsim::quinn_pair::StreamPattern;
use tokio::sync::Notify;
use tokio::time::Instant;

/// Shared between the sender's and the receiver's futures of one transfer.
#[derive(Debug)]
pub(crate) struct Progress {
    /// When the transfer started (the connection attempt).
    pub started: Instant,
    /// Bytes the receiver has read in order.
    delivered: AtomicU64,
    /// Offset of the first byte that differed from the pattern, if any.
    first_mismatch: Mutex<Option<u64>>,
    /// When the sender's connection was established, since `started`.
    connected_after: Mutex<Option<Duration>>,
    /// When the receiver read the end of the stream, since `started`.
    finished_after: Mutex<Option<Duration>>,
    finished: AtomicBool,
    /// Wakes the sender when the receiver has finished.
    pub finished_notify: Notify,
}

impl Progress {
    pub fn new() -> Self {
        Self {
            started: Instant::now(),
            delivered: AtomicU64::new(0),
            first_mismatch: Mutex::new(None),
            connected_after: Mutex::new(None),
            finished_after: Mutex::new(None),
            finished: AtomicBool::new(false),
            finished_notify: Notify::new(),
        }
    }

    /// Checks `data`, read at the current end of the stream, against `pattern`, and counts it.
    pub fn deliver(&self, pattern: &StreamPattern, data: &[u8]) {
        let offset = self.delivered.load(Ordering::Relaxed);
        if let Some(at) = pattern.first_mismatch(offset, data) {
            let mut mismatch = lock(&self.first_mismatch);
            if mismatch.is_none() {
                *mismatch = Some(at);
                tracing::warn!(offset = at, "received byte differs from what was sent");
            }
        }
        let offset = offset + data.len() as u64;
        self.delivered.store(offset, Ordering::Relaxed);
    }

    pub fn delivered(&self) -> u64 {
        self.delivered.load(Ordering::Relaxed)
    }

    pub fn first_mismatch(&self) -> Option<u64> {
        *lock(&self.first_mismatch)
    }

    pub fn set_connected(&self) {
        let mut connected = lock(&self.connected_after);
        if connected.is_none() {
            *connected = Some(self.started.elapsed());
        }
    }

    pub fn connected_after(&self) -> Option<Duration> {
        *lock(&self.connected_after)
    }

    /// The receiver has read the end of the stream.
    pub fn finish(&self) {
        *lock(&self.finished_after) = Some(self.started.elapsed());
        self.finished.store(true, Ordering::Release);
        self.finished_notify.notify_one();
    }

    pub fn is_finished(&self) -> bool {
        self.finished.load(Ordering::Acquire)
    }

    pub fn finished_after(&self) -> Option<Duration> {
        *lock(&self.finished_after)
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Every update completes before unlocking, so a poisoned lock still holds consistent data.
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Smoothed-RTT samples of a sender, taken at most every [`RttSampler::INTERVAL`].
#[derive(Debug, Default)]
pub(crate) struct RttSampler {
    samples: Vec<Duration>,
    last: Option<Instant>,
}

impl RttSampler {
    pub const INTERVAL: Duration = Duration::from_millis(10);

    /// Records `srtt` if the last sample is at least [`Self::INTERVAL`] old.
    pub fn offer(&mut self, now: Instant, srtt: Duration) {
        if self
            .last
            .is_some_and(|last| now.saturating_duration_since(last) < Self::INTERVAL)
        {
            return;
        }
        self.last = Some(now);
        self.samples.push(srtt);
    }

    pub fn samples(&self) -> &[Duration] {
        &self.samples
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delivery_counts_bytes_and_finds_the_first_wrong_one() {
        let pattern = StreamPattern::new(5);
        let progress = Progress::new();
        let mut data = vec![0u8; 150_000];
        pattern.fill(0, &mut data);
        progress.deliver(&pattern, &data[..100_000]);
        assert_eq!(
            (progress.delivered(), progress.first_mismatch()),
            (100_000, None)
        );
        data[123_456] ^= 1;
        data[140_000] ^= 1;
        progress.deliver(&pattern, &data[100_000..]);
        assert_eq!(progress.delivered(), 150_000);
        assert_eq!(progress.first_mismatch(), Some(123_456));
    }
}
