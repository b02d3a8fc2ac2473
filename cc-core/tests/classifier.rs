//! The loss-signal classifier, driven through quinn's callback order by the testing driver,
//! against the driver's ground truth.

use cc_core::testing::{DrivenEvent, Driver};
use cc_core::{
    AckSample, CongestionAlgorithm, CongestionEvent, LossSignal, PortController, SignalConfig,
    TimeoutReading, Window,
};
use std::time::Duration;

/// An algorithm that only records the events it is handed.
#[derive(Debug, Clone)]
struct Recorder {
    events: Vec<CongestionEvent>,
    window: Window,
}

impl Default for Recorder {
    fn default() -> Self {
        Self {
            events: Vec::new(),
            window: Window::new(1000, 1200),
        }
    }
}

impl CongestionAlgorithm for Recorder {
    const NAME: &'static str = "recorder";
    const TIMEOUT_READING: cc_core::TimeoutReading = cc_core::TimeoutReading::TimeThreshold;
    fn on_ack(&mut self, _: &AckSample) {}
    fn on_congestion(&mut self, event: &CongestionEvent) {
        self.events.push(*event);
    }
    fn window_state(&self) -> &Window {
        &self.window
    }
    fn window_state_mut(&mut self) -> &mut Window {
        &mut self.window
    }
    fn initial_window(&self) -> u64 {
        self.window.cwnd()
    }
}

const RTT: Duration = Duration::from_millis(100);

/// A driver whose RTT estimate has settled at 100 ms after a few clean round trips.
fn warmed_up() -> Driver<Recorder> {
    let mut d = Driver::new(PortController::new(
        Recorder::default(),
        SignalConfig::default(),
    ));
    for _ in 0..4 {
        d.send(4);
        d.advance(RTT);
        assert_eq!(d.ack_all(), None);
    }
    d
}

fn last_signal(d: &Driver<Recorder>) -> CongestionEvent {
    *d.controller
        .algorithm()
        .events
        .last()
        .expect("the driver raised an event")
}

/// Drops packet `k` of a 20-packet pass, acknowledges the `dups` after it, and checks the
/// classifier against the driver's ground truth.
///
/// The first ACK frame acknowledges the `k` packets before the lost one together with the one
/// after it: `k + 1` acknowledgements of one batch whose `k + 2` candidates include the lost
/// packet. For `k > 0` the callbacks cannot say which candidate is missing, so a timeout is
/// undetermined (read correctly as "the gap just below the largest"); a fast retransmit is
/// determined by timing alone.
fn case(k: u64, dups: u64, expected: LossSignal) {
    let mut d = warmed_up();
    let event: DrivenEvent = d.lose_one(20, k, dups).expect("a loss was detected");
    assert_eq!(event.truth, expected, "ground truth for k={k} d={dups}");
    let got = last_signal(&d);
    assert_eq!(got.signal, expected, "classifier for k={k} d={dups}");
    let determined = k == 0 || expected == LossSignal::FastRetransmit;
    assert_eq!(
        got.determined, determined,
        "determinedness for k={k} d={dups}"
    );
}

#[test]
fn one_later_packet_is_timeout_after_one_dup_ack() {
    for k in [0, 9, 18] {
        case(k, 1, LossSignal::Timeout { dup_acks: 1 });
    }
}

#[test]
fn two_later_packets_is_timeout_after_two_dup_acks() {
    for k in [0, 9, 17] {
        case(k, 2, LossSignal::Timeout { dup_acks: 2 });
    }
}

#[test]
fn three_later_packets_is_fast_retransmit_early_middle_and_late_in_a_batch() {
    for k in [0, 9, 16] {
        case(k, 3, LossSignal::FastRetransmit);
    }
}

#[test]
fn many_later_packets_in_one_frame_is_fast_retransmit() {
    let mut d = warmed_up();
    let pns = d.send(30);
    d.advance(RTT);
    let lost = pns.start + 10;
    let event = d.ack_up_to_except(pns.end - 1, &[lost]).unwrap();
    assert_eq!(event.truth, LossSignal::FastRetransmit);
    assert_eq!(last_signal(&d).signal, LossSignal::FastRetransmit);
    assert!(last_signal(&d).determined);
}

#[test]
fn the_naive_reading_would_fail_here() {
    // The lost packet is mid-batch; the batch's *last* packet number is 1 above the largest
    // acknowledged one... but 9 above the lost one. Reading d from the batch's last packet
    // number would say d = 1 (cut to an eighth); the truth is d >= 3 (halve).
    let mut d = warmed_up();
    let pns = d.send(20);
    d.advance(RTT);
    let lost = pns.start + 5;
    let event = d.ack_up_to_except(pns.start + 18, &[lost]).unwrap();
    assert_eq!(event.truth, LossSignal::FastRetransmit);
    assert_eq!(last_signal(&d).signal, LossSignal::FastRetransmit);
}

#[test]
fn tail_loss_across_passes() {
    // Every packet in its own pass (a paced sender): the lost one is identified exactly.
    let mut d = warmed_up();
    let mut pns = Vec::new();
    for _ in 0..10 {
        pns.extend(d.send(1));
        d.advance(Duration::from_millis(2));
    }
    d.advance(RTT);
    let event = d
        .ack_up_to_except(pns[9], &[pns[7]])
        .unwrap_or_else(|| d.fire_loss_timer().unwrap());
    assert_eq!(event.truth, LossSignal::Timeout { dup_acks: 2 });
    assert_eq!(last_signal(&d).signal, LossSignal::Timeout { dup_acks: 2 });
    assert!(last_signal(&d).determined);
}

#[test]
fn persistent_congestion_is_timeout_after_none() {
    let mut d = warmed_up();
    d.send(10);
    d.advance(Duration::from_secs(3));
    d.persistent_congestion();
    let e = last_signal(&d);
    assert_eq!(e.signal, LossSignal::PERSISTENT);
    assert!(e.determined);
}

#[test]
fn ecn_is_recognised_by_zero_lost_bytes() {
    let mut d = warmed_up();
    d.send(10);
    d.advance(RTT);
    d.ecn();
    assert_eq!(last_signal(&d).signal, LossSignal::Ecn);
}

#[test]
fn ambiguous_placement_is_reported_as_undetermined() {
    // One pass of 12. The first frame acknowledges 0..=5 and 8: the ledger sees seven
    // acknowledgements of one batch with largest 8, and cannot know whether 6 or 7 is missing.
    // Then the loss timer fires for the batch.
    let mut d = warmed_up();
    let pns = d.send(12);
    d.advance(RTT);
    let s = pns.start;
    let mut frame: Vec<u64> = (s..=s + 5).collect();
    frame.push(s + 8);
    let first = d.ack(frame);
    // 6 and 7 are within 3 of 8, so no packet-threshold loss yet.
    assert_eq!(first, None);
    let event = d.fire_loss_timer().unwrap();
    assert_eq!(event.truth, LossSignal::Timeout { dup_acks: 1 });
    let got = last_signal(&d);
    assert!(!got.determined, "7 vs 6 is not determined by the callbacks");
    assert_eq!(d.controller.signal_stats().undetermined, 1);
}

#[test]
fn stats_count_every_class() {
    let mut d = warmed_up();
    d.lose_one(20, 5, 3);
    d.ack_all();
    d.lose_one(20, 17, 2);
    d.ack_all();
    // Nothing after the last packet is acknowledged: quinn raises no event for it (the PTO's
    // packets instead), and neither does the driver.
    assert_eq!(d.lose_one(20, 19, 0), None);
    d.ack_all();
    d.send(5);
    d.ecn();
    d.persistent_congestion();
    let s = d.controller.signal_stats();
    assert_eq!(s.fast_retransmit, 1);
    assert_eq!(s.timeout2, 1);
    assert_eq!(s.timeout1, 0);
    assert_eq!(s.ecn, 1);
    assert_eq!(s.persistent, 1);
    assert_eq!(s.total(), 4);
}

/// [`warmed_up`] with the timeout reading set.
fn warmed_up_reading(reading: TimeoutReading) -> Driver<Recorder> {
    let mut signal = SignalConfig::default();
    signal.set_timeout_reading(Some(reading));
    let mut d = Driver::new(PortController::new(Recorder::default(), signal));
    for _ in 0..4 {
        d.send(4);
        d.advance(RTT);
        assert_eq!(d.ack_all(), None);
    }
    d
}

#[test]
fn each_reading_maps_a_time_threshold_loss_and_persistent_congestion() {
    // (reading, signal of a time-threshold loss with d = 1, persistent congestion is a timeout)
    let rows = [
        (
            TimeoutReading::TimeThreshold,
            LossSignal::Timeout { dup_acks: 1 },
        ),
        (TimeoutReading::ProbeTimeout, LossSignal::FastRetransmit),
        (
            TimeoutReading::PersistentCongestion,
            LossSignal::FastRetransmit,
        ),
    ];
    for (reading, rack_loss) in rows {
        let mut d = warmed_up_reading(reading);
        assert_eq!(d.controller.classifier().reading(), reading);
        let event = d.lose_one(20, 0, 1).expect("a loss");
        assert_eq!(event.truth, LossSignal::Timeout { dup_acks: 1 });
        let e = last_signal(&d);
        assert_eq!(e.signal, rack_loss, "{reading}");
        assert!(e.determined, "{reading}");
        assert!(!e.persistent);
        let stats = d.controller.signal_stats();
        assert_eq!(
            stats.time_threshold, 1,
            "{reading}: QUIC's mechanism is counted"
        );

        d.send(10);
        d.advance(Duration::from_secs(3));
        d.persistent_congestion();
        let e = last_signal(&d);
        assert!(e.persistent, "{reading}");
        assert!(e.signal.is_timeout(), "{reading}: {}", e.signal);
        assert_eq!(d.controller.signal_stats().persistent, 1);
    }
}

#[test]
fn a_loss_after_a_probe_timeout_is_a_timeout_under_reading_b_only() {
    for reading in TimeoutReading::ALL {
        let mut d = warmed_up_reading(reading);
        let lost = d.send(10);
        // Silence: quinn's PTO (100 ms + 4 x rttvar + 25 ms) expires; it sends two PTO packets
        // without an acknowledgement.
        d.advance(Duration::from_millis(400));
        let pto_packets = d.send(2);
        assert!(
            d.controller.classifier().probe_timeout().is_some(),
            "{reading}: the PTO packets' transmit pass reads as a PTO"
        );
        assert_eq!(d.controller.signal_stats().probe_timeouts, 1);
        d.advance(RTT);
        // Only the PTO packets arrive: the ten are lost, the largest 2 below the largest acked.
        let event = d.ack_up_to_except(pto_packets.end - 1, &lost.collect::<Vec<_>>());
        let truth = event.or_else(|| d.fire_loss_timer()).expect("a loss").truth;
        assert_eq!(truth, LossSignal::Timeout { dup_acks: 2 });
        let e = last_signal(&d);
        let expected = match reading {
            TimeoutReading::TimeThreshold | TimeoutReading::ProbeTimeout => {
                LossSignal::Timeout { dup_acks: 2 }
            }
            TimeoutReading::PersistentCongestion => LossSignal::FastRetransmit,
        };
        assert_eq!(e.signal, expected, "{reading}");
        assert_eq!(d.controller.signal_stats().after_probe_timeout, 1);
        // The episode ends with the PTO packets' acknowledgement: a later loss is ordinary.
        d.send(1);
        assert!(d.controller.classifier().probe_timeout().is_none());
    }
}

#[test]
fn acknowledgement_clocked_sends_are_not_probe_timeouts() {
    let mut d = warmed_up_reading(TimeoutReading::ProbeTimeout);
    for _ in 0..20 {
        d.send(4);
        d.advance(RTT);
        d.ack_all();
    }
    // A long idle period with nothing outstanding, then new data: not a PTO either.
    d.advance(Duration::from_secs(5));
    d.send(4);
    assert_eq!(d.controller.signal_stats().probe_timeouts, 0);
}

/// RTT estimates no path produces (up to `Duration::MAX`) are a caller's input all the same:
/// the classifier reads them without panicking, on both stacks' paths.
#[test]
fn extreme_rtt_estimates_do_not_panic() {
    let t0 = std::time::Instant::now();
    for rtt in cc_core::testing::EXTREME_RTTS {
        for exact in [false, true] {
            let algorithm = Recorder::default();
            let mut c = if exact {
                PortController::exact(algorithm, SignalConfig::default())
            } else {
                PortController::new(algorithm, SignalConfig::default())
            };
            let snapshot = cc_core::RttSnapshot {
                smoothed: rtt,
                conservative: rtt,
                min: rtt,
            };
            for pn in 0..8 {
                c.handle_sent(t0, 1200, pn);
            }
            for round in 1..4u64 {
                let now = t0 + Duration::from_millis(100 * round);
                c.on_ack_sample(now, t0, 1200, false, snapshot);
                c.handle_end_acks(now, 1200, false, Some(round));
                c.handle_sent(now, 1200, 7 + round);
                let later = now + Duration::from_millis(10);
                if exact {
                    c.handle_packet_lost(later, 0);
                    c.handle_exact_congestion_event(later, t0, false, false, 1200, 0);
                } else {
                    c.handle_congestion_event(later, t0, false, 1200);
                }
            }
        }
    }
}
