//! A scenario driver that plays quinn's side of the `Controller` callbacks.
//!
//! It keeps a replica of quinn-proto 0.11's sender bookkeeping: packet numbers, send times,
//! its `RttEstimator` update (RFC 9002 section 5.3, peer ACK delay 0), and `detect_lost_packets`
//! (packet threshold, time threshold `max(9/8 x max(srtt, latest), 1 ms)`). It calls the
//! controller in quinn's order: `on_sent` once per transmit pass with the pass's last packet
//! number, `on_ack` per acknowledged packet in ascending packet-number order with the estimator
//! as it was *before* the frame, `on_end_acks`, the RTT update, then loss detection and
//! `on_congestion_event`. Because it knows which packets it dropped, every event it produces
//! comes with its ground truth `d`.

use crate::{CongestionAlgorithm, LossSignal, PortController, RttSnapshot};
use quinn_proto::congestion::Controller;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// quinn's `RttEstimator`, replicated (its constructor is crate-private in quinn-proto).
#[derive(Debug, Clone, Copy)]
struct RttReplica {
    latest: Duration,
    smoothed: Option<Duration>,
    min: Duration,
}

impl RttReplica {
    fn new(initial: Duration) -> Self {
        Self {
            latest: initial,
            smoothed: None,
            min: initial,
        }
    }

    fn get(&self) -> Duration {
        self.smoothed.unwrap_or(self.latest)
    }

    fn snapshot(&self) -> RttSnapshot {
        RttSnapshot {
            smoothed: self.get(),
            conservative: self.get().max(self.latest),
            min: self.min,
        }
    }

    fn update(&mut self, rtt: Duration) {
        self.latest = rtt;
        self.min = self.min.min(rtt);
        self.smoothed = Some(match self.smoothed {
            Some(s) => (7 * s + rtt) / 8,
            None => {
                self.min = rtt;
                rtt
            }
        });
    }
}

/// What one congestion event looked like from both sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DrivenEvent {
    /// The signal the ground truth implies (`d = largest_acked - largest lost`).
    pub truth: LossSignal,
    /// The largest lost packet number.
    pub lost_pn: u64,
    /// The largest acknowledged packet number.
    pub largest_acked: u64,
}

/// Plays quinn's sender against a [`PortController`].
#[derive(Debug)]
pub struct Driver<A: CongestionAlgorithm> {
    /// The controller under test.
    pub controller: PortController<A>,
    /// The driver's clock.
    pub now: Instant,
    /// Datagram size used for every packet, bytes.
    pub mtu: u64,
    next_pn: u64,
    /// Outstanding packets: number -> (send time, bytes).
    outstanding: BTreeMap<u64, (Instant, u64)>,
    largest_acked: Option<u64>,
    rtt: RttReplica,
    packet_threshold: u64,
    time_threshold: f32,
}

impl<A: CongestionAlgorithm> Driver<A> {
    /// A driver for `controller`, with 1200-byte datagrams, quinn's 333 ms initial RTT and the
    /// controller's own thresholds.
    pub fn new(controller: PortController<A>) -> Self {
        let signal = controller.classifier().config().clone();
        Self {
            controller,
            now: Instant::now(),
            mtu: 1200,
            next_pn: 0,
            outstanding: BTreeMap::new(),
            largest_acked: None,
            rtt: RttReplica::new(Duration::from_millis(333)),
            packet_threshold: u64::from(signal.packet_threshold()),
            time_threshold: signal.time_threshold(),
        }
    }

    /// Moves the clock forward.
    pub fn advance(&mut self, by: Duration) -> &mut Self {
        self.now += by;
        self
    }

    /// Sends `n` datagrams in one transmit pass (same `now`); returns their packet numbers.
    pub fn send(&mut self, n: u64) -> std::ops::Range<u64> {
        let first = self.next_pn;
        for _ in 0..n {
            let pn = self.next_pn;
            self.next_pn += 1;
            self.outstanding.insert(pn, (self.now, self.mtu));
            self.controller.handle_sent(self.now, self.mtu, pn);
        }
        first..self.next_pn
    }

    /// Packets sent and neither acknowledged nor declared lost.
    pub fn outstanding(&self) -> impl Iterator<Item = u64> + '_ {
        self.outstanding.keys().copied()
    }

    /// Delivers one ACK frame acknowledging `pns` (those still outstanding), then runs quinn's
    /// loss detection. Returns the congestion event it caused, if any.
    pub fn ack(&mut self, pns: impl IntoIterator<Item = u64>) -> Option<DrivenEvent> {
        let mut pns: Vec<u64> = pns.into_iter().collect();
        pns.sort_unstable();
        pns.dedup();
        let frame_largest = pns.last().copied()?;
        let new_largest = self.largest_acked.is_none_or(|l| frame_largest > l);
        if new_largest {
            self.largest_acked = Some(frame_largest);
        }
        let before = self.rtt.snapshot();
        let largest_sent = self.outstanding.get(&frame_largest).map(|(t, _)| *t);
        let mut acked_any = false;
        for pn in pns {
            if let Some((sent, bytes)) = self.outstanding.remove(&pn) {
                acked_any = true;
                self.controller
                    .on_ack_sample(self.now, sent, bytes, false, before);
            }
        }
        if !acked_any {
            return None;
        }
        self.controller
            .handle_end_acks(self.now, self.in_flight(), false, self.largest_acked);
        if new_largest && let Some(sent) = largest_sent {
            // quinn samples the send time of the largest acknowledged packet.
            self.rtt.update(self.now.saturating_duration_since(sent));
        }
        self.detect_losses()
    }

    /// Delivers an ACK frame for every outstanding packet up to and including `pn` except
    /// those in `skip`.
    pub fn ack_up_to_except(&mut self, pn: u64, skip: &[u64]) -> Option<DrivenEvent> {
        let pns: Vec<u64> = self
            .outstanding
            .range(..=pn)
            .map(|(&p, _)| p)
            .filter(|p| !skip.contains(p))
            .collect();
        self.ack(pns)
    }

    /// Acknowledges everything outstanding in one frame.
    pub fn ack_all(&mut self) -> Option<DrivenEvent> {
        let pns: Vec<u64> = self.outstanding.keys().copied().collect();
        self.ack(pns)
    }

    /// Lets quinn's loss timer fire: advances to the earliest time-threshold deadline of an
    /// outstanding packet below the largest acknowledged one and runs loss detection.
    pub fn fire_loss_timer(&mut self) -> Option<DrivenEvent> {
        let largest = self.largest_acked?;
        let loss_delay = self.loss_delay();
        let earliest = self
            .outstanding
            .range(..largest)
            .map(|(_, (sent, _))| *sent + loss_delay)
            .min()?;
        if earliest > self.now {
            self.now = earliest;
        }
        self.detect_losses()
    }

    /// Sends a window of `n` packets in one pass, drops packet `first + k` (k < n), and
    /// acknowledges the `d` packets after it one frame each (d < n - k). Returns the event
    /// quinn would raise: from the packet threshold once `d` reaches it, else from the loss
    /// timer.
    pub fn lose_one(&mut self, n: u64, k: u64, d: u64) -> Option<DrivenEvent> {
        let pns = self.send(n);
        let lost = pns.start + k;
        self.advance(self.path_rtt());
        let mut event = None;
        for later in lost + 1..=lost + d {
            let below: Vec<u64> = self.outstanding.range(..=later).map(|(&p, _)| p).collect();
            let frame: Vec<u64> = below.into_iter().filter(|&p| p != lost).collect();
            event = self.ack(frame).or(event);
            if event.is_some() {
                return event;
            }
        }
        self.fire_loss_timer()
    }

    /// Raises persistent congestion for the oldest outstanding packet (as quinn does after a
    /// blackout of three PTOs). Every outstanding packet is declared lost.
    pub fn persistent_congestion(&mut self) {
        let Some((_, &(sent, _))) = self.outstanding.iter().next_back() else {
            return;
        };
        let bytes: u64 = self.outstanding.values().map(|(_, b)| b).sum();
        self.outstanding.clear();
        self.controller
            .handle_congestion_event(self.now, sent, true, bytes.max(1));
    }

    /// Raises an ECN congestion-experienced event for the newest outstanding packet.
    pub fn ecn(&mut self) {
        let sent = self
            .outstanding
            .values()
            .map(|(t, _)| *t)
            .max()
            .unwrap_or(self.now);
        self.controller
            .handle_congestion_event(self.now, sent, false, 0);
    }

    /// A new path MTU, as quinn's MTU discovery reports it.
    pub fn change_mtu(&mut self, mtu: u16) {
        self.mtu = u64::from(mtu);
        self.controller.on_mtu_update(mtu);
    }

    /// The driver's smoothed RTT (the path RTT once samples have arrived).
    pub fn path_rtt(&self) -> Duration {
        self.rtt.get()
    }

    /// Bytes outstanding.
    pub fn in_flight(&self) -> u64 {
        self.outstanding.values().map(|(_, b)| b).sum()
    }

    fn loss_delay(&self) -> Duration {
        let s = self.rtt.snapshot();
        s.conservative
            .mul_f32(self.time_threshold)
            .max(Duration::from_millis(1))
    }

    /// quinn's `detect_lost_packets` over the replica.
    fn detect_losses(&mut self) -> Option<DrivenEvent> {
        let largest = self.largest_acked?;
        let loss_delay = self.loss_delay();
        let lost: Vec<u64> = self
            .outstanding
            .range(..largest)
            .filter(|(pn, (sent, _))| {
                self.now.saturating_duration_since(*sent) >= loss_delay
                    || largest >= **pn + self.packet_threshold
            })
            .map(|(&pn, _)| pn)
            .collect();
        let &lost_pn = lost.last()?;
        let sent = self.outstanding[&lost_pn].0;
        let bytes: u64 = lost
            .iter()
            .filter_map(|pn| self.outstanding.remove(pn))
            .map(|(_, b)| b)
            .sum();
        self.controller
            .handle_congestion_event(self.now, sent, false, bytes);
        Some(DrivenEvent {
            truth: LossSignal::from_distance(largest - lost_pn, self.packet_threshold as u32),
            lost_pn,
            largest_acked: largest,
        })
    }
}
