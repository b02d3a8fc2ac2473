//! What the link did with what it was offered, per direction.

use serde::{Deserialize, Serialize};

use super::DropReason;

/// A count of datagrams and their payload bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// Number of datagrams.
    pub datagrams: u64,
    /// Sum of their payload lengths in bytes (UDP payload, without the link overhead).
    pub bytes: u64,
}

impl Tally {
    /// Adds one datagram of `len` bytes.
    pub(crate) fn add(&mut self, len: usize) {
        self.datagrams += 1;
        self.bytes += len as u64;
    }

    /// The sum of two tallies.
    pub fn plus(self, other: Self) -> Self {
        Self {
            datagrams: self.datagrams + other.datagrams,
            bytes: self.bytes + other.bytes,
        }
    }
}

/// Dropped datagrams by reason.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DropTally {
    /// Larger than the link MTU.
    pub mtu: Tally,
    /// Offered while the path was down, or in flight when it went down.
    pub breakage: Tally,
    /// Corrupted by an error model.
    pub error: Tally,
    /// Dropped by the scripted model.
    pub scripted: Tally,
    /// Refused by the full drop-tail queue.
    pub queue: Tally,
}

impl DropTally {
    /// All drops together.
    pub fn total(&self) -> Tally {
        self.mtu
            .plus(self.breakage)
            .plus(self.error)
            .plus(self.scripted)
            .plus(self.queue)
    }

    pub(crate) fn reason_mut(&mut self, reason: DropReason) -> &mut Tally {
        match reason {
            DropReason::Mtu => &mut self.mtu,
            DropReason::Breakage => &mut self.breakage,
            DropReason::Error => &mut self.error,
            DropReason::Scripted => &mut self.scripted,
            DropReason::Queue => &mut self.queue,
        }
    }
}

/// One direction's accounting for a run.
///
/// Invariant: `offered = delivered + dropped.total()`, in datagrams and in bytes, at every
/// snapshot. `delivered` counts datagrams the link has committed to deliver, including any
/// still in flight at the time of the snapshot; duplicates are counted apart, in `duplicated`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DirectionAccounting {
    /// Everything the sender handed to the link.
    pub offered: Tally,
    /// Datagrams delivered (or in flight towards delivery) to the receiver.
    pub delivered: Tally,
    /// Datagrams dropped, by reason.
    pub dropped: DropTally,
    /// Extra copies delivered by the duplication model (not part of `delivered`).
    pub duplicated: Tally,
    /// Delivered datagrams that the reordering model held back.
    pub reordered: Tally,
    /// Seconds covered by this snapshot (from the link's creation to the snapshot time).
    pub elapsed_seconds: f64,
    /// Seconds the path was up.
    pub up_seconds: f64,
    /// The physical limit: the expected payload bytes this direction could have delivered
    /// while the path was up, sending link-MTU-sized datagrams back to back, after the
    /// long-run loss of its error models. Per stretch of `t` seconds on an `h`-hop route:
    /// `t x rate / min(h, k) / 8 x mtu / (mtu + overhead) x prod_i (1 - q_i(mtu))^h`, with
    /// `q_i` each error layer's stationary per-hop loss. Scripted drops, queueing and
    /// duplication are traffic effects, not physical limits, and do not enter it.
    pub capacity_bytes: f64,
}

impl DirectionAccounting {
    /// True when `offered = delivered + dropped`, in datagrams and bytes.
    pub fn is_balanced(&self) -> bool {
        self.offered == self.delivered.plus(self.dropped.total())
    }
}

/// Both directions' accounting, with the seed that produced the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LinkAccounting {
    /// The run seed.
    pub seed: u64,
    /// From A to B.
    pub a_to_b: DirectionAccounting,
    /// From B to A.
    pub b_to_a: DirectionAccounting,
}
