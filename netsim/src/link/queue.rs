//! The drop-tail queue in front of the serializer.

use std::collections::VecDeque;
use std::time::Duration;

use super::QueueLimit;

/// Datagrams accepted but not yet fully serialized, each with the time its serialization ends.
#[derive(Debug)]
pub(crate) struct DropTailQueue {
    limit: QueueLimit,
    /// `(serialization end, wire bytes)` in acceptance order (= serialization order).
    entries: VecDeque<(Duration, u64)>,
    /// Sum of the wire bytes in `entries`.
    bytes: u64,
}

impl DropTailQueue {
    pub(crate) fn new(limit: QueueLimit) -> Self {
        Self {
            limit,
            entries: VecDeque::new(),
            bytes: 0,
        }
    }

    /// Forgets datagrams whose serialization has ended by `now`.
    pub(crate) fn drain(&mut self, now: Duration) {
        while let Some(&(end, bytes)) = self.entries.front() {
            if end > now {
                break;
            }
            self.entries.pop_front();
            self.bytes -= bytes;
        }
    }

    /// True if a datagram of `wire_bytes` fits.
    pub(crate) fn admits(&self, wire_bytes: u64) -> bool {
        match self.limit {
            QueueLimit::Packets(limit) => (self.entries.len() as u64) < limit,
            QueueLimit::Bytes(limit) => self.bytes.saturating_add(wire_bytes) <= limit,
        }
    }

    /// Records an accepted datagram whose serialization ends at `end`.
    pub(crate) fn push(&mut self, end: Duration, wire_bytes: u64) {
        self.entries.push_back((end, wire_bytes));
        self.bytes += wire_bytes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_limit_counts_queued_bytes_and_frees_them_when_serialized() {
        let mut queue = DropTailQueue::new(QueueLimit::Bytes(3000));
        queue.push(Duration::from_millis(5), 1500);
        queue.push(Duration::from_millis(10), 1500);
        assert!(!queue.admits(1));
        queue.drain(Duration::from_millis(5));
        assert!(queue.admits(1500));
        assert!(!queue.admits(1501));
    }

    #[test]
    fn packet_limit_counts_datagrams() {
        let mut queue = DropTailQueue::new(QueueLimit::Packets(1));
        assert!(queue.admits(60_000));
        queue.push(Duration::from_millis(1), 10);
        assert!(!queue.admits(1));
    }
}
