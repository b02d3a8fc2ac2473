//! One direction's pipeline: MTU check, path check, error models, drop-tail queue,
//! serialization, propagation and jitter, in-flight breakage check, delivery.

use std::time::Duration;

use rand::Rng;

use super::accounting::DirectionAccounting;
use super::queue::DropTailQueue;
use super::{Delivery, DirectionConfig, DropReason, Verdict};
use crate::loss::{ErrorChain, ScriptedDrops, stationary_survival};
use crate::path::{PathState, PathTimeline};
use crate::seed::{SimRng, stream_rng};

/// Mutable state of one direction; its config never changes after construction.
#[derive(Debug)]
pub(crate) struct DirectionState {
    config: DirectionConfig,
    errors: ErrorChain,
    scripted: ScriptedDrops,
    jitter_rng: SimRng,
    reorder_rng: SimRng,
    duplicate_rng: SimRng,
    queue: DropTailQueue,
    /// When the serializer finishes everything accepted so far.
    busy_until: Duration,
    /// Latest delivery time promised to an in-order datagram: later ones never arrive earlier.
    fifo_floor: Duration,
    /// Index the next offered datagram gets.
    next_index: u64,
    accounting: DirectionAccounting,
}

impl DirectionState {
    /// `label` (`a_to_b` or `b_to_a`) names this direction's random streams.
    pub(crate) fn new(config: DirectionConfig, run_seed: u64, label: &str) -> Self {
        let errors = ErrorChain::new(&config.errors, |i| {
            stream_rng(run_seed, &format!("{label}/error/{i}"))
        });
        Self {
            errors,
            scripted: ScriptedDrops::new(&config.scripted_drops),
            jitter_rng: stream_rng(run_seed, &format!("{label}/jitter")),
            reorder_rng: stream_rng(run_seed, &format!("{label}/reorder")),
            duplicate_rng: stream_rng(run_seed, &format!("{label}/duplicate")),
            queue: DropTailQueue::new(config.queue),
            busy_until: Duration::ZERO,
            fifo_floor: Duration::ZERO,
            next_index: 0,
            accounting: DirectionAccounting::default(),
            config,
        }
    }

    /// How many hops share the medium: the rate over `hops` hops is `rate / sharing`.
    fn sharing(hops: u32, interference_hops: u32) -> u32 {
        hops.min(interference_hops).max(1)
    }

    /// Runs one datagram of `len` bytes offered at `now` through the pipeline. Returns the
    /// datagram's index and its verdict.
    pub(crate) fn offer(
        &mut self,
        now: Duration,
        len: usize,
        path: &mut PathTimeline,
        interference_hops: u32,
    ) -> (u64, Verdict) {
        let index = self.next_index;
        self.next_index += 1;
        self.accounting.offered.add(len);
        let verdict = self.pipeline(index, now, len, path, interference_hops);
        match verdict {
            Verdict::Deliver(delivery) => {
                self.accounting.delivered.add(len);
                if delivery.duplicate {
                    self.accounting.duplicated.add(len);
                }
                if delivery.reordered {
                    self.accounting.reordered.add(len);
                }
            }
            Verdict::Drop(reason) => self.accounting.dropped.reason_mut(reason).add(len),
        }
        (index, verdict)
    }

    fn pipeline(
        &mut self,
        index: u64,
        now: Duration,
        len: usize,
        path: &mut PathTimeline,
        interference_hops: u32,
    ) -> Verdict {
        if len > self.config.mtu as usize {
            return Verdict::Drop(DropReason::Mtu);
        }
        let hops = match path.state_at(now) {
            PathState::Down => return Verdict::Drop(DropReason::Breakage),
            PathState::Up { hops } => hops,
        };
        // Errors are drawn here, in pipeline order, but a corrupted datagram is still queued
        // and serialized: the channel corrupts it on the air and the receiver's CRC discards
        // it, so it costs airtime like any other datagram. This is what makes the accounting's
        // "capacity after errors" a real upper bound on delivered bytes.
        let scripted = self.scripted.drops(index);
        let corrupted = self.errors.corrupts(len, hops);

        self.queue.drain(now);
        let wire_bytes = len as u64 + u64::from(self.config.overhead);
        if !self.queue.admits(wire_bytes) {
            return Verdict::Drop(DropReason::Queue);
        }
        let start = now.max(self.busy_until);
        // At rate / sharing, n bytes take as long as n x sharing bytes at the full rate
        // (computed this way to stay exact in integer nanoseconds).
        let sharing = u64::from(Self::sharing(hops, interference_hops));
        let serialized = start.saturating_add(self.config.rate.transmit_time(wire_bytes * sharing));
        self.busy_until = serialized;
        self.queue.push(serialized, wire_bytes);
        if scripted {
            return Verdict::Drop(DropReason::Scripted);
        }
        if corrupted {
            return Verdict::Drop(DropReason::Error);
        }

        let propagation = self.config.delay.saturating_mul(hops);
        let mut at = serialized
            .saturating_add(propagation)
            .saturating_add(self.jitter());
        let reordered = match &self.config.reorder {
            Some(reorder) if self.reorder_rng.r#gen::<f64>() < reorder.probability => {
                at = at.saturating_add(reorder.extra_delay);
                true
            }
            _ => {
                // In-order datagrams never overtake one another, whatever their jitter.
                at = at.max(self.fifo_floor);
                self.fifo_floor = at;
                false
            }
        };
        if !path.up_throughout(now, at) {
            return Verdict::Drop(DropReason::Breakage);
        }
        let duplicate = self.config.duplicate > 0.0
            && self.duplicate_rng.r#gen::<f64>() < self.config.duplicate;
        Verdict::Deliver(Delivery {
            at,
            duplicate,
            reordered,
        })
    }

    /// A uniform draw in `[0, jitter]`, at nanosecond resolution.
    fn jitter(&mut self) -> Duration {
        let max = u64::try_from(self.config.jitter.as_nanos()).unwrap_or(u64::MAX);
        if max == 0 {
            return Duration::ZERO;
        }
        Duration::from_nanos(self.jitter_rng.gen_range(0..=max))
    }

    /// Expected payload bytes per second this direction can deliver over `hops` hops, sending
    /// MTU-sized datagrams back to back, after the stationary loss of its error models.
    pub(crate) fn capacity_per_second(&self, hops: u32, interference_hops: u32) -> f64 {
        let mtu = f64::from(self.config.mtu);
        let wire = mtu + f64::from(self.config.overhead);
        let rate =
            self.config.rate.bps() as f64 / f64::from(Self::sharing(hops, interference_hops));
        let survival = stationary_survival(&self.config.errors, self.config.mtu as usize, hops);
        rate / 8.0 * (mtu / wire) * survival
    }

    /// The counters (time-based fields are filled in by the link).
    pub(crate) fn accounting(&self) -> DirectionAccounting {
        self.accounting
    }
}
