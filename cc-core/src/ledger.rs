//! The send ledger: which packet numbers each transmit pass sent, and what became of them.
//!
//! quinn stamps every datagram of one transmit pass with the same `now` and reports only the
//! pass's last packet number to `on_sent`, so a send time identifies a *batch* of packet numbers,
//! not a packet. `on_ack` reports each acknowledged packet's send time, so per batch the ledger
//! learns *how many* packets were acknowledged but not *which*. It keeps one byte of state per
//! packet and places acknowledgements by the rule that measured best against quinn's ground
//! truth (see [`Ledger::assign_acks`]); a packet whose state rests on such a placement carries
//! the [`GUESSED`] flag, so a decision that depends on it is reported as undetermined.
//!
//! Memory is bounded: at most `ledger_packets` bytes of packet state plus `ledger_batches`
//! 16-byte batch records, never more (the oldest batch is evicted *before* a new one would
//! pass a bound, and the buffers grow only up to their bounds). Resolved batches are dropped
//! from the front as soon as nothing in them is outstanding; at a bound the oldest batch is
//! forgotten even if unresolved (counted in [`Ledger::evicted_unresolved`]).
//!
//! **Cost.** Every operation on the per-ACK path is O(1) amortised per packet, whatever the
//! number of packets per transmit pass (issue 35):
//! - acknowledgements arrive in ascending packet-number order, so their batch is the cursor's
//!   or the next one, and consecutive acknowledgements of one pass share its send time: the
//!   last lookup is remembered by `Instant`, so a pass's send time is converted once;
//! - two watermarks summarise the packet states: every packet from `clean_from` on is plain
//!   [`OUTSTANDING`] (never touched since it was sent), and none before `first_outstanding` is
//!   outstanding. An ACK frame that acknowledges exactly the outstanding packets of a batch up
//!   to its largest (no loss, no reordering: nearly every frame) is then placed by filling a
//!   range, without counting; only frames whose placement needs a guess scan their batch;
//! - a resolved batch is recognised from `first_outstanding` and dropped without a scan.

use std::collections::VecDeque;
use std::time::Instant;

use crate::window::saturating_ns;

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

/// Removes the first `n` items of `deque` (passes are small: popping a few costs less than
/// setting up a drain).
fn pop_front<T>(deque: &mut VecDeque<T>, n: usize) {
    if n <= 4 {
        for _ in 0..n {
            deque.pop_front();
        }
    } else {
        deque.drain(..n.min(deque.len()));
    }
}

/// A bound as the ledger keeps it: at least 1, and (as `SignalConfig` allows at most 2^20)
/// at most `u32::MAX`.
fn bound(max: usize) -> u32 {
    u32::try_from(max.max(1)).unwrap_or(u32::MAX)
}

/// A send time already matched to a batch, and that batch's `time_ns`: the batch is the
/// cursor's while the cursor's `time_ns` is still this one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Lookup {
    sent: Instant,
    time_ns: u64,
}

/// The bounded ledger of send batches and per-packet fates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ledger {
    /// Send batches, oldest first; `first` strictly increasing.
    batches: VecDeque<Batch>,
    /// One state byte per packet number, starting at `base`.
    packets: VecDeque<u8>,
    /// Packet number of `packets[0]`.
    base: u64,
    /// Every packet from here to the last sent is plain `OUTSTANDING` (no flag).
    clean_from: u64,
    /// No packet from `base` up to here is `OUTSTANDING` (advanced lazily).
    first_outstanding: u64,
    /// One past the largest packet number checked against the packet threshold (saturating);
    /// 0 before the first check.
    threshold_end: u64,
    /// Range of batch indices that received acknowledgements in the current ACK frame.
    touched: Option<(u32, u32)>,
    /// Index of the batch the latest acknowledgement belonged to (below `max_batches`, like
    /// `touched`'s): where the next one's search starts.
    cursor: u32,
    /// The latest acknowledgement's send time and batch.
    last_lookup: Option<Lookup>,
    /// Time origin of the batches' `time_ns`: the first send.
    epoch: Option<Instant>,
    /// Bounds.
    max_packets: u32,
    max_batches: u32,
    /// Batches forgotten while they still had outstanding packets.
    evicted_unresolved: u64,
    /// Times the packet numbers went backwards (a new packet-number space) and the ledger restarted.
    restarts: u64,
}

impl Ledger {
    /// An empty ledger with the given bounds.
    pub fn new(max_packets: usize, max_batches: usize) -> Self {
        Self {
            batches: VecDeque::new(),
            packets: VecDeque::new(),
            base: 0,
            clean_from: 0,
            first_outstanding: 0,
            threshold_end: 0,
            touched: None,
            cursor: 0,
            last_lookup: None,
            epoch: None,
            max_packets: bound(max_packets),
            max_batches: bound(max_batches),
            evicted_unresolved: 0,
            restarts: 0,
        }
    }

    /// One past the last recorded packet number.
    #[inline]
    fn next_pn(&self) -> u64 {
        self.base.saturating_add(self.packets.len() as u64)
    }

    /// `t` as nanoseconds since the epoch; `None` before the epoch (no batch was sent then).
    #[inline]
    fn to_ns(&self, t: Instant) -> Option<u64> {
        let epoch = self.epoch?;
        if t < epoch {
            return None;
        }
        Some(saturating_ns(t.duration_since(epoch)))
    }

    fn to_instant(&self, ns: u64) -> Instant {
        // `epoch` is set before any batch exists, so this is only reached with one.
        let epoch = self.epoch.unwrap_or_else(Instant::now);
        epoch + std::time::Duration::from_nanos(ns)
    }

    fn clear(&mut self) {
        self.batches.clear();
        self.packets.clear();
        self.threshold_end = 0;
        self.touched = None;
        self.cursor = 0;
        self.last_lookup = None;
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
        let first = if self.packets.is_empty() {
            last_pn
        } else if last_pn < self.next_pn()
            || last_pn - self.next_pn() >= u64::from(self.max_packets)
        {
            // Packet numbers went backwards (quinn moved to another packet-number space, or the
            // caller is confused) or jumped further than the ledger can hold: start afresh.
            self.restarts += 1;
            self.clear();
            last_pn
        } else {
            self.next_pn()
        };
        let count = (last_pn - first + 1) as usize;
        let time_ns = saturating_ns(now.saturating_duration_since(epoch));
        // Make room first, so that neither buffer ever holds (or allocates) more than its bound.
        let new_batch = self.batches.back().is_none_or(|b| b.time_ns != time_ns);
        while !self.batches.is_empty()
            && (self.packets.len() + count > self.max_packets as usize
                || self.batches.len() + usize::from(new_batch) > self.max_batches as usize)
        {
            self.pop_front_batch();
        }
        if self.packets.is_empty() {
            self.base = first;
            self.clean_from = first;
            self.first_outstanding = first;
        }
        let new_batch = self.batches.back().is_none_or(|b| b.time_ns != time_ns);
        reserve_within(&mut self.packets, count, self.max_packets as usize);
        self.packets.extend(std::iter::repeat_n(OUTSTANDING, count));
        if new_batch {
            reserve_within(&mut self.batches, 1, self.max_batches as usize);
            self.batches.push_back(Batch::new(time_ns, first));
        }
    }

    /// Whether no packet below `end` is outstanding, advancing `first_outstanding` towards
    /// `end` (each packet is stepped over once in the ledger's life: O(1) amortised).
    fn resolved_below(&mut self, end: u64) -> bool {
        let end = end.min(self.next_pn());
        let mut pn = self.first_outstanding.max(self.base);
        // Packets from `clean_from` on are outstanding: no need to look.
        while pn < end.min(self.clean_from)
            && self.packets[(pn - self.base) as usize] & STATE_MASK != OUTSTANDING
        {
            pn += 1;
        }
        self.first_outstanding = pn;
        pn >= end
    }

    /// Forgets the oldest batch.
    fn pop_front_batch(&mut self) {
        if self.batches.is_empty() {
            return;
        }
        let end = self
            .batches
            .get(1)
            .map_or(self.next_pn(), |next| next.first());
        if !self.resolved_below(end) {
            self.evicted_unresolved += 1;
        }
        self.drop_front_batch(end);
    }

    /// Drops the oldest batch, whose packets end at `end`, without looking at them.
    fn drop_front_batch(&mut self, end: u64) {
        self.drop_front_batches(1, end);
    }

    /// Drops the `n` oldest batches, whose packets end at `end`, without looking at them.
    fn drop_front_batches(&mut self, n: usize, end: u64) {
        pop_front(&mut self.batches, n);
        let count = (end.saturating_sub(self.base) as usize).min(self.packets.len());
        pop_front(&mut self.packets, count);
        self.base = end;
        self.clean_from = self.clean_from.max(end);
        self.first_outstanding = self.first_outstanding.max(end);
        self.touched = None;
        self.cursor = self
            .cursor
            .saturating_sub(u32::try_from(n).unwrap_or(u32::MAX));
        if self.batches.is_empty() {
            self.packets.clear();
        }
    }

    /// Drops resolved batches from the front (nothing in them can still be lost or acked),
    /// always keeping the latest: every batch that ends at or below the first outstanding
    /// packet, together.
    fn trim(&mut self) {
        if self.batches.len() < 2 {
            return;
        }
        self.resolved_below(self.next_pn());
        let resolved = self.first_outstanding;
        let n = self
            .batches
            .range(1..)
            .take_while(|b| b.first() <= resolved)
            .count();
        if n > 0 {
            let end = self.batches[n].first();
            self.drop_front_batches(n, end);
        }
    }

    /// Index of the batch sent at `time`, if the ledger still holds it.
    #[inline]
    pub fn batch_index(&self, time: Instant) -> Option<usize> {
        let ns = self.to_ns(time)?;
        // Acknowledgements come in ascending packet-number order: the batch is usually the
        // cursor's or the next one.
        let cursor = self.cursor as usize;
        for i in [cursor, cursor + 1] {
            if self.batches.get(i).is_some_and(|b| b.time_ns == ns) {
                return Some(i);
            }
        }
        let i = self.batches.partition_point(|b| b.time_ns < ns);
        (self.batches.get(i)?.time_ns == ns).then_some(i)
    }

    /// Packet-number range `[first, end)` of batch `i`.
    #[inline]
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

    /// Index of the batch holding packet number `pn`.
    #[inline]
    fn batch_of(&self, pn: u64) -> Option<usize> {
        if pn < self.base || pn >= self.next_pn() {
            return None;
        }
        // The largest acknowledged packet is usually in the latest acknowledged batch.
        let cursor = self.cursor as usize;
        let (first, end) = self
            .batches
            .get(cursor)
            .map_or((1, 0), |_| self.batch_range(cursor));
        if (first..end).contains(&pn) {
            return Some(cursor);
        }
        let i = self
            .batches
            .partition_point(|b| b.first() <= pn)
            .checked_sub(1)?;
        (i < self.batches.len()).then_some(i)
    }

    /// Send time of the batch holding packet number `pn`.
    pub fn time_of(&self, pn: u64) -> Option<Instant> {
        self.send_stamp(pn).map(|stamp| self.stamp_time(stamp))
    }

    /// Send time of the batch holding `pn`, as a [`SendStamp`]: no conversion until
    /// [`Self::stamp_time`] (which stays valid after the batch is dropped).
    #[inline]
    pub fn send_stamp(&self, pn: u64) -> Option<SendStamp> {
        Some(SendStamp(self.batches[self.batch_of(pn)?].time_ns))
    }

    /// The send time a [`SendStamp`] of this ledger stands for.
    pub fn stamp_time(&self, stamp: SendStamp) -> Instant {
        self.to_instant(stamp.0)
    }

    /// State byte of packet `pn` (state and flags), if held.
    pub fn state(&self, pn: u64) -> Option<u8> {
        let i = usize::try_from(pn.checked_sub(self.base)?).ok()?;
        self.packets.get(i).copied()
    }

    /// Sets the state byte of packet `pn`, keeping `clean_from` true.
    fn set_state(&mut self, pn: u64, state: u8) {
        if let Some(i) = pn.checked_sub(self.base)
            && let Some(s) = self.packets.get_mut(i as usize)
        {
            *s = state;
            self.clean_from = self.clean_from.max(pn + 1);
        }
    }

    /// Records one `on_ack` for a packet sent at `sent`; placed at [`Self::assign_acks`].
    /// Returns false if the ledger no longer holds that batch.
    #[inline]
    pub fn record_ack(&mut self, sent: Instant) -> bool {
        // Consecutive acknowledgements of one pass share its send time: no conversion.
        let cached = self
            .last_lookup
            .filter(|l| {
                l.sent == sent
                    && self
                        .batches
                        .get(self.cursor as usize)
                        .is_some_and(|b| b.time_ns == l.time_ns)
            })
            .map(|_| self.cursor as usize);
        let Some(i) = cached.or_else(|| self.batch_index(sent)) else {
            return false;
        };
        self.last_lookup = Some(Lookup {
            sent,
            time_ns: self.batches[i].time_ns,
        });
        let index = i as u32; // below `max_batches`
        self.cursor = index;
        let b = &mut self.batches[i];
        b.set_pending(b.pending() + 1);
        self.touched = Some(match self.touched {
            None => (index, index),
            Some((lo, hi)) => (lo.min(index), hi.max(index)),
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
        for i in lo as usize..=(hi as usize).min(self.batches.len().saturating_sub(1)) {
            let k = self.batches[i].pending();
            self.batches[i].set_pending(0);
            if k == 0 {
                continue;
            }
            let (first, end) = self.batch_range(i);
            let top = end.min(largest.saturating_add(1)); // candidates: [first, top)
            if top <= first {
                continue;
            }
            // The fast path: when nothing below `clean` is outstanding (and everything from
            // it on is, by `clean_from`), the candidates are counted without a scan; when they
            // number `k`, every one is acknowledged and nothing is guessed.
            let clean = first.max(self.clean_from).min(top);
            if self.resolved_below(clean) && k == top - clean {
                for slot in (clean - self.base) as usize..(top - self.base) as usize {
                    self.packets[slot] = ACKED;
                }
                self.clean_from = self.clean_from.max(top);
                continue;
            }
            self.place_by_scan(first, end, top, k, largest, new_largest);
        }
    }

    /// [`Self::assign_acks`] for one batch `[first, end)` with `k` acknowledgements among the
    /// candidates `[first, top)`, by counting them.
    fn place_by_scan(
        &mut self,
        first: u64,
        end: u64,
        top: u64,
        mut k: u64,
        largest: u64,
        new_largest: bool,
    ) {
        // Nothing below `first_outstanding` is outstanding: only a flag for the whole batch
        // (an inconsistent count) reaches below it.
        let lo = first.max(self.first_outstanding);
        let outstanding = self.count_outstanding(lo, top);
        if k >= outstanding {
            let inconsistent = k > outstanding;
            for pn in if inconsistent { first } else { lo }..top {
                let Some(mut s) = self.state(pn) else {
                    continue;
                };
                if s & STATE_MASK == OUTSTANDING {
                    s = ACKED | (s & GUESSED);
                }
                if inconsistent {
                    // More acknowledgements than candidates: earlier placements were wrong
                    // somewhere in this batch.
                    s |= GUESSED;
                }
                self.set_state(pn, s);
            }
            return;
        }
        if new_largest
            && (first..end).contains(&largest)
            && let Some(s) = self.state(largest)
            && s & STATE_MASK == OUTSTANDING
        {
            self.set_state(largest, ACKED | (s & GUESSED));
            k -= 1;
        }
        // Once the largest is placed, k == 0 or k == all remaining candidates is exact.
        let remaining = self.count_outstanding(lo, top);
        let guessing = k > 0 && k < remaining;
        for pn in lo..top {
            let Some(s) = self.state(pn) else {
                continue;
            };
            if s & STATE_MASK != OUTSTANDING {
                continue;
            }
            let flag = if guessing { GUESSED } else { s & GUESSED };
            if k > 0 {
                self.set_state(pn, ACKED | flag);
                k -= 1;
            } else {
                self.set_state(pn, s | flag);
            }
        }
    }

    /// Outstanding packets in `[first, top)`: counted below `clean_from`, known above it.
    fn count_outstanding(&self, first: u64, top: u64) -> u64 {
        let counted = (first..top.min(self.clean_from))
            .filter(|&pn| {
                self.state(pn)
                    .is_some_and(|s| s & STATE_MASK == OUTSTANDING)
            })
            .count() as u64;
        counted + top.saturating_sub(first.max(self.clean_from))
    }

    /// Declares lost every outstanding packet `threshold` or more below `largest`, as quinn's
    /// packet-threshold rule does after every ACK frame. O(1) amortised.
    pub fn apply_packet_threshold(&mut self, largest: u64, threshold: u32) {
        let Some(limit) = largest.checked_sub(u64::from(threshold)) else {
            return;
        };
        let from = self
            .threshold_end
            .max(self.first_outstanding)
            .max(self.base);
        for pn in from..=limit.min(self.next_pn().saturating_sub(1)) {
            if let Some(s) = self.state(pn)
                && s & STATE_MASK == OUTSTANDING
            {
                self.set_state(pn, LOST | (s & GUESSED));
            }
        }
        self.threshold_end = self.threshold_end.max(limit.saturating_add(1));
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
            for pn in first.max(self.first_outstanding)..end.min(largest) {
                if let Some(s) = self.state(pn)
                    && s & STATE_MASK == OUTSTANDING
                {
                    self.set_state(pn, LOST | (s & GUESSED));
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

/// A batch's send time as the ledger stores it: a [`Ledger::stamp_time`] away from an
/// `Instant`, so that code which may never need the time does not pay for the conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SendStamp(u64);

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn ms(t0: Instant, n: u64) -> Instant {
        t0 + Duration::from_millis(n)
    }

    #[test]
    fn record_sizes_match_the_documented_memory_bound() {
        // SignalConfig's docs quote 1 byte per packet and 16 bytes per batch, at most.
        assert_eq!(std::mem::size_of::<Batch>(), 16);
        let t0 = Instant::now();
        // Bounds that are not powers of two: capacity must still stop at them.
        for (packets, batches) in [(64, 16), (100, 24), (1024, 128)] {
            let mut l = Ledger::new(packets, batches);
            // 667 passes of 3 packets each.
            for i in 0..2001u64 {
                l.on_sent(ms(t0, i / 3), i);
            }
            assert_eq!(l.packets_held(), packets.min(batches * 3));
            assert!(
                l.heap_bytes() <= packets + 16 * batches,
                "{packets}/{batches}: {} bytes",
                l.heap_bytes()
            );
        }
    }

    #[test]
    fn batches_group_passes_by_time() {
        let t0 = Instant::now();
        let mut l = Ledger::new(1024, 64);
        for pn in 0..5 {
            l.on_sent(t0, pn);
        }
        l.on_sent(ms(t0, 1), 7); // a pass of three packets, 5..=7
        assert_eq!(l.batches_held(), 2);
        assert_eq!(l.batch_range(0), (0, 5));
        assert_eq!(l.batch_range(1), (5, 8));
        assert_eq!(l.time_of(6), Some(ms(t0, 1)));
        assert_eq!(l.time_of(8), None);
        assert_eq!(l.batch_index(ms(t0, 1)), Some(1));
        assert_eq!(l.batch_index(ms(t0, 2)), None);
    }

    #[test]
    fn full_acknowledgement_is_exact() {
        let t0 = Instant::now();
        let mut l = Ledger::new(1024, 64);
        for pn in 0..4 {
            l.on_sent(t0, pn);
        }
        for _ in 0..3 {
            assert!(l.record_ack(t0));
        }
        l.assign_acks(2, true);
        for pn in 0..=2 {
            assert_eq!(l.state(pn), Some(ACKED));
        }
        assert_eq!(l.state(3), Some(OUTSTANDING));
    }

    #[test]
    fn partial_acknowledgement_leaves_the_gap_below_largest_and_is_flagged() {
        let t0 = Instant::now();
        let mut l = Ledger::new(1024, 64);
        for pn in 0..6 {
            l.on_sent(t0, pn);
        }
        // Two acks in the batch, largest 4: 4 for sure, the other guessed at 0.
        l.record_ack(t0);
        l.record_ack(t0);
        l.assign_acks(4, true);
        assert_eq!(l.state(4), Some(ACKED));
        assert_eq!(l.state(0), Some(ACKED | GUESSED));
        assert_eq!(l.state(1), Some(OUTSTANDING | GUESSED));
        assert_eq!(l.state(3), Some(OUTSTANDING | GUESSED));
        assert_eq!(l.state(5), Some(OUTSTANDING), "above largest: untouched");
        assert_eq!(l.largest_outstanding(0, 3), Some((3, true)));
    }

    #[test]
    fn the_largest_alone_explains_a_single_acknowledgement_exactly() {
        let t0 = Instant::now();
        let mut l = Ledger::new(1024, 64);
        for pn in 0..6 {
            l.on_sent(t0, pn);
        }
        l.record_ack(t0);
        l.assign_acks(2, true);
        assert_eq!(l.state(2), Some(ACKED));
        assert_eq!(
            l.state(1),
            Some(OUTSTANDING),
            "not a guess: k was used up by 2"
        );
        assert_eq!(l.largest_outstanding(0, 1), Some((1, false)));
    }

    #[test]
    fn thresholds_declare_losses_and_trim() {
        let t0 = Instant::now();
        let mut l = Ledger::new(1024, 64);
        l.on_sent(t0, 0);
        l.on_sent(ms(t0, 1), 1);
        l.on_sent(ms(t0, 2), 2);
        l.on_sent(ms(t0, 3), 3);
        l.record_ack(ms(t0, 3));
        l.assign_acks(3, true);
        l.apply_packet_threshold(3, 3);
        // Packet 0 is 3 below 3: lost, and its batch resolved and trimmed away.
        assert_eq!(l.state(0), None);
        assert_eq!(l.state(1), Some(OUTSTANDING));
        l.apply_time_threshold(3, |t| t <= ms(t0, 1));
        assert_eq!(l.state(1), None, "lost by time and trimmed");
        assert_eq!(l.state(2), Some(OUTSTANDING));
    }

    #[test]
    fn bounds_evict_oldest_and_count_unresolved() {
        let t0 = Instant::now();
        let mut l = Ledger::new(64, 16);
        for i in 0..40u64 {
            l.on_sent(ms(t0, i), i);
        }
        assert_eq!(l.batches_held(), 16);
        assert_eq!(l.evicted_unresolved(), 24);
        assert_eq!(l.state(23), None);
        assert_eq!(l.state(24), Some(OUTSTANDING));
    }

    #[test]
    fn packet_numbers_going_backwards_restart_the_ledger() {
        let t0 = Instant::now();
        let mut l = Ledger::new(1024, 64);
        l.on_sent(t0, 0);
        l.on_sent(ms(t0, 1), 1);
        l.on_sent(ms(t0, 2), 0); // e.g. the first 1-RTT packet after the handshake
        assert_eq!(l.restarts(), 1);
        assert_eq!(l.packets_held(), 1);
        // A huge jump also restarts rather than allocating.
        l.on_sent(ms(t0, 3), 1 << 40);
        assert_eq!(l.restarts(), 2);
        assert_eq!(l.packets_held(), 1);
        assert_eq!(l.state(1 << 40), Some(OUTSTANDING));
        // Beyond 2^48 a batch record cannot hold the number: the ledger forgets everything.
        l.on_sent(ms(t0, 4), u64::MAX);
        assert_eq!(l.restarts(), 3);
        assert_eq!(l.packets_held(), 0);
        assert_eq!(l.state(u64::MAX), None);
        assert_eq!(l.time_of(u64::MAX), None);
    }

    #[test]
    fn a_send_time_before_the_first_send_matches_no_batch() {
        let t0 = Instant::now() + Duration::from_secs(1);
        let mut l = Ledger::new(1024, 64);
        l.on_sent(t0, 0);
        assert_eq!(l.batch_index(t0), Some(0));
        assert_eq!(l.batch_index(t0 - Duration::from_millis(1)), None);
        assert!(!l.record_ack(t0 - Duration::from_millis(1)));
    }
}
