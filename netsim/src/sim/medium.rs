//! What carries a [`super::SimLink`]'s datagrams: netsim's own [`Link`], or another simulator.
//!
//! netsim's [`Link`] decides each datagram's fate the moment it is offered (deliver at a time,
//! or drop). A packet-level network simulator (the ns-3 backend in the `netsim-ns3` crate)
//! cannot: a datagram's fate depends on events after its send time. Such a medium answers
//! [`Offered::Later`], and the [`super::SimLink`] runs a driver task that calls
//! [`Medium::deliver_until`] every [`Medium::step`] of the runtime's clock, so the simulator
//! advances in lock-step with tokio and never runs ahead of it (a datagram is always handed to
//! the medium before the medium's clock passes its send time).

use std::any::Any;
use std::fmt;
use std::time::Duration;

use bytes::Bytes;

use crate::link::{DirectionId, Link, LinkAccounting, Verdict};

/// What a medium did with an offered datagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offered {
    /// Decided now (netsim's [`Link`]): delivered at a time, or dropped. `index` is the
    /// datagram's 0-based position among those offered in its direction.
    Now {
        /// Position in the direction.
        index: u64,
        /// The decision.
        verdict: Verdict,
    },
    /// Taken in; a later [`Medium::deliver_until`] reports it if it arrives.
    Later,
}

/// A datagram a medium delivered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MediumDelivery {
    /// The direction it travelled.
    pub direction: DirectionId,
    /// Its 0-based position among the datagrams offered in that direction.
    pub index: u64,
    /// When it arrived, since the link epoch (at or before the `now` it was collected at).
    pub at: Duration,
    /// Its payload.
    pub data: Bytes,
}

/// A carrier of datagrams between the two endpoints of a [`super::SimLink`].
///
/// All times are durations since the link epoch on the runtime's clock. Implementations never
/// see time go backwards.
pub trait Medium: Send + fmt::Debug + 'static {
    /// Takes a datagram sent in `direction` at `now`.
    fn offer(&mut self, direction: DirectionId, now: Duration, data: &[u8]) -> Offered;

    /// For a medium that answers [`Offered::Later`]: advances it to `now` and appends what
    /// arrived up to then. The default does nothing.
    fn deliver_until(&mut self, now: Duration, out: &mut Vec<MediumDelivery>) {
        let _ = (now, out);
    }

    /// The lock-step period at which the link's driver task calls
    /// [`Medium::deliver_until`], or `None` for a medium that decides at offer time (the
    /// default).
    fn step(&self) -> Option<Duration> {
        None
    }

    /// What the medium did with what it was offered, up to `now`.
    fn accounting(&mut self, now: Duration) -> LinkAccounting;

    /// The run seed.
    fn seed(&self) -> u64;

    /// The medium as [`Any`], so its owner can reach a concrete medium's own reports.
    fn as_any(&self) -> &dyn Any;
}

impl Medium for Link {
    fn offer(&mut self, direction: DirectionId, now: Duration, data: &[u8]) -> Offered {
        let (index, verdict) = self.offer_indexed(direction, now, data.len());
        Offered::Now { index, verdict }
    }

    fn accounting(&mut self, now: Duration) -> LinkAccounting {
        Link::accounting(self, now)
    }

    fn seed(&self) -> u64 {
        Link::seed(self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
