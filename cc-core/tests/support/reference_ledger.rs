//! The send ledger as it was before the lean rewrite (cc-core 0.1, ledger.rs at d913c70),
//! kept verbatim apart from its name as the oracle for `ledger_equivalence.rs`: the lean ledger
//! must answer every query exactly as this one does after every operation (issue 35: results
//! byte-identical). Not used by any controller.
#![allow(dead_code)]

use std::collections::VecDeque;
use std::time::Instant;

/// Packet state: sent, neither acknowledged nor declared lost.
pub const OUTSTANDING: u8 = 0;
/// Packet state: acknowledged.
pub const ACKED: u8 = 1;
/// Packet state: declared lost (by the packet or time threshold, as quinn would).
pub const LOST: u8 = 2;
/// Flag: the state rests on a guessed placement of acknowledgements within a batch.
pub const GUESSED: u8 = 4;
const STATE_MASK: u8 = 3;

/// Packet numbers up to 2^48 are tracked (quinn's would take centuries to get there); the top
/// 16 bits of [`Batch::first_and_pending`] count acknowledgements awaiting placement.
const PN_BITS: u32 = 48;
const PN_MASK: u64 = (1 << PN_BITS) - 1;
const PENDING_MAX: u64 = (1 << (64 - PN_BITS)) - 1;

/// One transmit pass: every packet number from `first()` up to the next batch's `first()`.
/// 16 bytes, so that a connection's ledger stays small.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Batch {
    /// The `now` quinn passed to `on_sent` for this pass, in nanoseconds since the ledger's
    /// epoch (its first send).
    time_ns: u64,
    /// First packet number of the pass (low 48 bits), and the acknowledgements `on_ack`
    /// reported for it in the ACK frame being processed, not yet placed (high 16 bits).
    first_and_pending: u64,
}

impl Batch {
    fn new(time_ns: u64, first: u64) -> Self {
        Self {
            time_ns,
            first_and_pending: first & PN_MASK,
        }
    }

    fn first(&self) -> u64 {
        self.first_and_pending & PN_MASK
    }

    fn pending(&self) -> u64 {
        self.first_and_pending >> PN_BITS
    }

    fn set_pending(&mut self, n: u64) {
        self.first_and_pending = self.first() | (n.min(PENDING_MAX) << PN_BITS);
    }
}

/// Reserves room for `additional` more items in `deque`, growing its capacity geometrically
/// but never past `max` items.
fn reserve_within<T>(deque: &mut VecDeque<T>, additional: usize, max: usize) {
    let needed = deque.len() + additional;
    if needed > deque.capacity() {
        let target = (deque.capacity() * 2).max(needed).min(max.max(needed));
        deque.reserve_exact(target - deque.len());
    }
}

/// The bounded ledger of send batches and per-packet fates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReferenceLedger {
    /// Send batches, oldest first; `first` strictly increasing.
    batches: VecDeque<Batch>,
    /// One state byte per packet number, starting at `base`.
    packets: VecDeque<u8>,
    /// Packet number of `packets[0]`.
    base: u64,
    /// Packet numbers at or below this have been checked against the packet threshold.
    threshold_scanned: Option<u64>,
    /// Range of batch indices that received acknowledgements in the current ACK frame.
    touched: Option<(usize, usize)>,
    /// The batch the latest acknowledgement belonged to: where the next one's search starts.
    cursor: usize,
    /// Time origin of the batches' `time_ns`: the first send.
    epoch: Option<Instant>,
    /// Bounds.
    max_packets: usize,
    max_batches: usize,
    /// Batches forgotten while they still had outstanding packets.
    evicted_unresolved: u64,
    /// Times the packet numbers went backwards (a new packet-number space) and the ledger restarted.
    restarts: u64,
}

impl ReferenceLedger {
    /// An empty ledger with the given bounds.
    pub fn new(max_packets: usize, max_batches: usize) -> Self {
        Self {
            batches: VecDeque::new(),
            packets: VecDeque::new(),
            base: 0,
            threshold_scanned: None,
            touched: None,
            cursor: 0,
            epoch: None,
            max_packets: max_packets.max(1),
            max_batches: max_batches.max(1),
            evicted_unresolved: 0,
            restarts: 0,
        }
    }

    /// One past the last recorded packet number.
    fn next_pn(&self) -> u64 {
        self.base.saturating_add(self.packets.len() as u64)
    }

    /// `t` as nanoseconds since the epoch; `None` before the epoch (no batch was sent then).
    fn to_ns(&self, t: Instant) -> Option<u64> {
        let epoch = self.epoch?;
        if t < epoch {
            return None;
        }
        Some(u64::try_from(t.duration_since(epoch).as_nanos()).unwrap_or(u64::MAX))
    }

    fn to_instant(&self, ns: u64) -> Instant {
        // `epoch` is set before any batch exists, so this is only reached with one.
        let epoch = self.epoch.unwrap_or_else(Instant::now);
        epoch + std::time::Duration::from_nanos(ns)
    }

    fn clear(&mut self) {
        self.batches.clear();
        self.packets.clear();
        self.threshold_scanned = None;
        self.touched = None;
        self.cursor = 0;
    }

    /// Records a transmit pass at `now` whose last packet number is `last_pn`.
    pub fn on_sent(&mut self, now: Instant, last_pn: u64) {
        if last_pn > PN_MASK {
            // Beyond what a batch record holds: forget everything rather than mis-track.
            self.restarts += 1;
            self.clear();
            return;
        }
        let epoch = *self.epoch.get_or_insert(now);
        let time_ns =
            u64::try_from(now.saturating_duration_since(epoch).as_nanos()).unwrap_or(u64::MAX);
        let first = if self.packets.is_empty() {
            last_pn
        } else if last_pn < self.next_pn() || last_pn - self.next_pn() >= self.max_packets as u64 {
            // Packet numbers went backwards (quinn moved to another packet-number space, or the
            // caller is confused) or jumped further than the ledger can hold: start afresh.
            self.restarts += 1;
            self.clear();
            last_pn
        } else {
            self.next_pn()
        };
        let count = (last_pn - first + 1) as usize;
        // Make room first, so that neither buffer ever holds (or allocates) more than its bound.
        let new_batch = self.batches.back().is_none_or(|b| b.time_ns != time_ns);
        while !self.batches.is_empty()
            && (self.packets.len() + count > self.max_packets
                || self.batches.len() + usize::from(new_batch) > self.max_batches)
        {
            self.pop_front_batch();
        }
        if self.packets.is_empty() {
            self.base = first;
        }
        let new_batch = self.batches.back().is_none_or(|b| b.time_ns != time_ns);
        reserve_within(&mut self.packets, count, self.max_packets);
        self.packets.extend(std::iter::repeat_n(OUTSTANDING, count));
        if new_batch {
            reserve_within(&mut self.batches, 1, self.max_batches);
            self.batches.push_back(Batch::new(time_ns, first));
        }
    }

    /// Forgets the oldest batch.
    fn pop_front_batch(&mut self) {
        let Some(front) = self.batches.pop_front() else {
            return;
        };
        let end = self
            .batches
            .front()
            .map_or(self.next_pn(), |next| next.first());
        let count = (end.saturating_sub(front.first())) as usize;
        let unresolved = self
            .packets
            .drain(..count.min(self.packets.len()))
            .any(|s| s & STATE_MASK == OUTSTANDING);
        if unresolved {
            self.evicted_unresolved += 1;
        }
        self.base = end;
        self.touched = None;
        self.cursor = self.cursor.saturating_sub(1);
        if self.batches.is_empty() {
            self.packets.clear();
        }
    }

    /// Drops resolved batches from the front (nothing in them can still be lost or acked).
    fn trim(&mut self) {
        while self.batches.len() > 1 {
            let end = self.batches[1].first();
            let count = (end - self.base) as usize;
            if self
                .packets
                .range(..count.min(self.packets.len()))
                .any(|s| s & STATE_MASK == OUTSTANDING)
            {
                break;
            }
            self.pop_front_batch();
        }
    }

    /// Index of the batch sent at `time`, if the ledger still holds it.
    pub fn batch_index(&self, time: Instant) -> Option<usize> {
        let ns = self.to_ns(time)?;
        // Acknowledgements come in ascending packet-number order: the batch is usually the
        // cursor's or the next one.
        for i in [self.cursor, self.cursor + 1] {
            if self.batches.get(i).is_some_and(|b| b.time_ns == ns) {
                return Some(i);
            }
        }
        let i = self.batches.partition_point(|b| b.time_ns < ns);
        (self.batches.get(i)?.time_ns == ns).then_some(i)
    }

    /// Packet-number range `[first, end)` of batch `i`.
    pub fn batch_range(&self, i: usize) -> (u64, u64) {
        let first = self.batches[i].first();
        let end = self
            .batches
            .get(i + 1)
            .map_or(self.next_pn(), |next| next.first());
        (first, end)
    }

    /// Send time of batch `i`.
    pub fn batch_time(&self, i: usize) -> Instant {
        self.to_instant(self.batches[i].time_ns)
    }

    /// Send time of the batch holding packet number `pn`.
    pub fn time_of(&self, pn: u64) -> Option<Instant> {
        if pn < self.base || pn >= self.next_pn() {
            return None;
        }
        // The largest acknowledged packet is usually in the latest acknowledged batch.
        let (first, end) = self
            .batches
            .get(self.cursor)
            .map_or((1, 0), |_| self.batch_range(self.cursor));
        let i = if (first..end).contains(&pn) {
            self.cursor
        } else {
            self.batches
                .partition_point(|b| b.first() <= pn)
                .checked_sub(1)?
        };
        Some(self.to_instant(self.batches.get(i)?.time_ns))
    }

    /// State byte of packet `pn` (state and flags), if held.
    pub fn state(&self, pn: u64) -> Option<u8> {
        let i = usize::try_from(pn.checked_sub(self.base)?).ok()?;
        self.packets.get(i).copied()
    }

    fn state_mut(&mut self, pn: u64) -> Option<&mut u8> {
        let i = usize::try_from(pn.checked_sub(self.base)?).ok()?;
        self.packets.get_mut(i)
    }

    /// Records one `on_ack` for a packet sent at `sent`; placed at [`Self::assign_acks`].
    /// Returns false if the ledger no longer holds that batch.
    pub fn record_ack(&mut self, sent: Instant) -> bool {
        let Some(i) = self.batch_index(sent) else {
            return false;
        };
        self.cursor = i;
        let b = &mut self.batches[i];
        b.set_pending(b.pending() + 1);
        self.touched = Some(match self.touched {
            None => (i, i),
            Some((lo, hi)) => (lo.min(i), hi.max(i)),
        });
        true
    }

    /// Places the acknowledgements recorded since the last call, now that the largest
    /// acknowledged packet number `largest` is known (`new_largest`: it grew in this frame).
    ///
    /// Per batch with `k` new acknowledgements among `c` outstanding packets at or below
    /// `largest`: `k >= c` acknowledges all of them, exactly. Otherwise the frame's largest
    /// packet is acknowledged (when it is new and in this batch) and the remaining ones are
    /// placed on the *lowest* outstanding packets, leaving the gap just below `largest`: a QUIC
    /// receiver acknowledges at once when a packet arrives after a gap (RFC 9000 section
    /// 13.2.1), so the frame that first reveals a gap is the one whose largest packet sits just
    /// above it. When the placement is not forced, every packet of the batch at or below
    /// `largest` that was outstanding is flagged [`GUESSED`].
    pub fn assign_acks(&mut self, largest: u64, new_largest: bool) {
        let Some((lo, hi)) = self.touched.take() else {
            return;
        };
        for i in lo..=hi.min(self.batches.len().saturating_sub(1)) {
            let k = self.batches[i].pending();
            self.batches[i].set_pending(0);
            if k == 0 {
                continue;
            }
            let (first, end) = self.batch_range(i);
            let top = end.min(largest.saturating_add(1)); // candidates: [first, top)
            let outstanding = (first..top)
                .filter(|&pn| {
                    self.state(pn)
                        .is_some_and(|s| s & STATE_MASK == OUTSTANDING)
                })
                .count() as u64;
            let mut k = k;
            if k >= outstanding {
                let inconsistent = k > outstanding;
                for pn in first..top {
                    if let Some(s) = self.state_mut(pn) {
                        if *s & STATE_MASK == OUTSTANDING {
                            *s = ACKED | (*s & GUESSED);
                        }
                        if inconsistent {
                            // More acknowledgements than candidates: earlier placements were
                            // wrong somewhere in this batch.
                            *s |= GUESSED;
                        }
                    }
                }
                continue;
            }
            if new_largest
                && (first..end).contains(&largest)
                && let Some(s) = self.state_mut(largest)
                && *s & STATE_MASK == OUTSTANDING
            {
                *s = ACKED | (*s & GUESSED);
                k -= 1;
            }
            // Once the largest is placed, k == 0 or k == all remaining candidates is exact.
            let remaining = (first..top)
                .filter(|&pn| {
                    self.state(pn)
                        .is_some_and(|s| s & STATE_MASK == OUTSTANDING)
                })
                .count() as u64;
            let guessing = k > 0 && k < remaining;
            for pn in first..top {
                let Some(s) = self.state_mut(pn) else {
                    continue;
                };
                if *s & STATE_MASK != OUTSTANDING {
                    continue;
                }
                let flag = if guessing { GUESSED } else { *s & GUESSED };
                if k > 0 {
                    *s = ACKED | flag;
                    k -= 1;
                } else {
                    *s |= flag;
                }
            }
        }
    }

    /// Declares lost every outstanding packet `threshold` or more below `largest`, as quinn's
    /// packet-threshold rule does after every ACK frame. O(1) amortised.
    pub fn apply_packet_threshold(&mut self, largest: u64, threshold: u32) {
        let Some(limit) = largest.checked_sub(u64::from(threshold)) else {
            return;
        };
        let from = self
            .threshold_scanned
            .map_or(self.base, |s| s.saturating_add(1))
            .max(self.base);
        for pn in from..=limit.min(self.next_pn().saturating_sub(1)) {
            if let Some(s) = self.state_mut(pn)
                && *s & STATE_MASK == OUTSTANDING
            {
                *s = LOST | (*s & GUESSED);
            }
        }
        self.threshold_scanned = Some(self.threshold_scanned.map_or(limit, |s| s.max(limit)));
        self.trim();
    }

    /// Declares lost every outstanding packet below `largest` sent in a batch for which
    /// `too_old(send time)` holds: quinn's time-threshold rule at a loss event.
    pub fn apply_time_threshold(&mut self, largest: u64, mut too_old: impl FnMut(Instant) -> bool) {
        for i in 0..self.batches.len() {
            if !too_old(self.batch_time(i)) {
                break;
            }
            let (first, end) = self.batch_range(i);
            for pn in first..end.min(largest) {
                if let Some(s) = self.state_mut(pn)
                    && *s & STATE_MASK == OUTSTANDING
                {
                    *s = LOST | (*s & GUESSED);
                }
            }
        }
        self.trim();
    }

    /// Largest outstanding packet number in `[first, top]`, with whether any state in
    /// `[that packet, top]` rests on a guess.
    pub fn largest_outstanding(&self, first: u64, top: u64) -> Option<(u64, bool)> {
        let mut guessed = false;
        for pn in (first..=top).rev() {
            let s = self.state(pn)?;
            guessed |= s & GUESSED != 0;
            if s & STATE_MASK == OUTSTANDING {
                return Some((pn, guessed));
            }
        }
        None
    }

    /// Batches forgotten while they still had outstanding packets.
    pub fn evicted_unresolved(&self) -> u64 {
        self.evicted_unresolved
    }

    /// Times the ledger restarted because packet numbers went backwards.
    pub fn restarts(&self) -> u64 {
        self.restarts
    }

    /// Packets currently held.
    pub fn packets_held(&self) -> usize {
        self.packets.len()
    }

    /// Batches currently held.
    pub fn batches_held(&self) -> usize {
        self.batches.len()
    }

    /// Bytes of heap this ledger holds (capacity, not just length).
    pub fn heap_bytes(&self) -> usize {
        self.packets.capacity() + self.batches.capacity() * std::mem::size_of::<Batch>()
    }
}
