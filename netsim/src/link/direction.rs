//! One direction's pipeline: MTU check, path check, error models, drop-tail queue,
//! serialization, propagation and jitter, in-flight breakage check, delivery.

use std::collections::VecDeque;
use std::time::Duration;

use rand::Rng;

use super::accounting::DirectionAccounting;
use super::mac::{self, MacConfig};
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
    /// The optional 802.11 layer, and the stream its backoffs are drawn from.
    mac: Option<MacConfig>,
    mac_rng: SimRng,
    /// With a half-duplex 802.11 layer: `(start, end)` of this direction's accepted frames
    /// that have not ended yet, in order, for the other direction to wait for.
    on_air: VecDeque<(Duration, Duration)>,
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
    pub(crate) fn new(
        config: DirectionConfig,
        mac: Option<MacConfig>,
        run_seed: u64,
        label: &str,
    ) -> Self {
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
            mac,
            mac_rng: stream_rng(run_seed, &format!("{label}/mac")),
            on_air: VecDeque::new(),
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
    /// datagram's index and its verdict. `peer` is the other direction when both share one
    /// channel (the 802.11 layer's half duplex).
    pub(crate) fn offer(
        &mut self,
        now: Duration,
        len: usize,
        path: &mut PathTimeline,
        interference_hops: u32,
        peer: Option<&mut DirectionState>,
    ) -> (u64, Verdict) {
        let index = self.next_index;
        self.next_index += 1;
        self.accounting.offered.add(len);
        let verdict = self.pipeline(index, now, len, path, interference_hops, peer);
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
        peer: Option<&mut DirectionState>,
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
        let wire_bytes = len as u64 + u64::from(self.config.overhead);
        let sharing = Self::sharing(hops, interference_hops);
        let (corrupted, channel_time) = match &self.mac {
            None => (
                self.errors.corrupts(len, hops),
                // At rate / sharing, n bytes take as long as n x sharing bytes at the full
                // rate (computed this way to stay exact in integer nanoseconds).
                self.config
                    .rate
                    .transmit_time(wire_bytes * u64::from(sharing)),
            ),
            Some(mac) => {
                let errors = &mut self.errors;
                let sent = mac::transmit(
                    mac,
                    &mut self.mac_rng,
                    wire_bytes,
                    self.config.rate,
                    hops,
                    sharing,
                    || errors.corrupts(len, 1),
                );
                (sent.lost, sent.channel_time)
            }
        };

        self.queue.drain(now);
        if !self.queue.admits(wire_bytes) {
            return Verdict::Drop(DropReason::Queue);
        }
        let mut start = now.max(self.busy_until);
        if let Some(peer) = peer {
            start = peer.channel_free_at(start, now);
            peer.yield_channel(start, channel_time);
        }
        let serialized = start.saturating_add(channel_time);
        self.busy_until = serialized;
        if self.mac.as_ref().is_some_and(|mac| mac.half_duplex) {
            self.on_air.retain(|&(_, end)| end > now);
            self.on_air.push_back((start, serialized));
        }
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

    /// When the channel is free for the other direction wanting it at `at`: the end of this
    /// direction's frame on the air then, if any, else `at`. Frames ended by `now` are
    /// forgotten first.
    fn channel_free_at(&mut self, at: Duration, now: Duration) -> Duration {
        while self.on_air.front().is_some_and(|&(_, end)| end <= now) {
            self.on_air.pop_front();
        }
        self.on_air
            .iter()
            .find(|&&(start, end)| start <= at && at < end)
            .map_or(at, |&(_, end)| end)
    }

    /// The other direction holds the shared channel for `channel_time` from `start`. If this
    /// direction has frames accepted past `start`, they keep their times, and the channel
    /// time they overlap is taken after them: its next frame starts `channel_time` later, and
    /// the other direction sees that span as this direction's (see [`MacConfig`], half
    /// duplex). An idle direction owes nothing: its next frame waits only for the frame on the
    /// air ([`Self::channel_free_at`]).
    fn yield_channel(&mut self, start: Duration, channel_time: Duration) {
        if self.busy_until > start {
            let displaced = self.busy_until;
            self.busy_until = displaced.saturating_add(channel_time);
            self.on_air.push_back((displaced, self.busy_until));
        }
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
    /// MTU-sized datagrams back to back, after the stationary loss of its error models (and,
    /// with the 802.11 layer, its per-frame cost and retries, the other direction silent).
    pub(crate) fn capacity_per_second(&self, hops: u32, interference_hops: u32) -> f64 {
        let mtu = f64::from(self.config.mtu);
        let wire = mtu + f64::from(self.config.overhead);
        let sharing = f64::from(Self::sharing(hops, interference_hops));
        let Some(mac) = &self.mac else {
            let rate = self.config.rate.bps() as f64 / sharing;
            let survival = stationary_survival(&self.config.errors, self.config.mtu as usize, hops);
            return rate / 8.0 * (mtu / wire) * survival;
        };
        // One direction alone on the channel: what the other direction sends is not known
        // here. Per hop, attempts are corrupted with the one-hop probability q and retried.
        let q = 1.0 - stationary_survival(&self.config.errors, self.config.mtu as usize, 1);
        let airtime = mac.expected_hop_airtime(wire as u64, self.config.rate, q) * sharing;
        mtu / airtime * mac.hop_survival(q).powf(f64::from(hops.max(1)))
    }

    /// The counters (time-based fields are filled in by the link).
    pub(crate) fn accounting(&self) -> DirectionAccounting {
        self.accounting
    }
}
