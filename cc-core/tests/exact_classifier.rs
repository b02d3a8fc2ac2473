//! The classifier in exact mode (noq): the stack names each lost packet and the largest, so `d`
//! is read off the pass's earliest lost packet and every event is determined, under each
//! timeout reading.

use cc_core::{LossClassifier, LossSignal, SignalConfig, TimeoutReading};
use std::time::{Duration, Instant};

const RTT: Duration = Duration::from_millis(100);

/// A classifier under `reading` that has sent packets 0..=20 at `t0` and seen one ACK frame
/// acknowledging up to `largest`.
fn after_ack(reading: TimeoutReading, largest: u64) -> (LossClassifier, Instant) {
    let t0 = Instant::now();
    let mut c = LossClassifier::exact(SignalConfig::default(), reading);
    assert!(c.is_exact());
    c.on_sent(t0, 25_200, 20);
    c.on_ack(t0, RTT, RTT);
    c.on_end_acks(t0 + RTT, 1200, Some(largest));
    (c, t0 + RTT)
}

#[test]
fn the_distance_is_read_off_the_largest_lost_packet() {
    let cases = [
        (9, LossSignal::Timeout { dup_acks: 1 }),
        (8, LossSignal::Timeout { dup_acks: 2 }),
        (7, LossSignal::FastRetransmit),
        (0, LossSignal::FastRetransmit),
    ];
    for (lost, expected) in cases {
        let (mut c, now) = after_ack(TimeoutReading::TimeThreshold, 10);
        let r = c.on_exact_congestion_event(now, now - RTT, false, false, lost);
        assert_eq!(r.signal, expected, "lost {lost}");
        assert_eq!(r.detected, expected, "lost {lost}");
        assert!(r.determined && r.detected_determined, "lost {lost}");
        assert_eq!((r.largest_acked, r.lost_pn), (Some(10), Some(lost)));
        assert_eq!(c.stats().undetermined, 0);
    }
}

#[test]
fn a_pass_with_a_hole_and_a_tail_loss_is_a_fast_retransmit() {
    // Largest acknowledged 10; packets 5 (d = 5, packet threshold) and 9 (d = 1, time
    // threshold) lost in one pass: noq reports both, then the event with its largest, 9.
    let (mut c, now) = after_ack(TimeoutReading::TimeThreshold, 10);
    c.on_packet_lost(now, 9);
    c.on_packet_lost(now, 5);
    let r = c.on_exact_congestion_event(now, now - RTT, false, false, 9);
    assert_eq!(r.detected, LossSignal::FastRetransmit);
    assert_eq!(r.lost_pn, Some(5));
    assert_eq!(c.stats().mixed_passes, 1);
    // A pass of tail losses only: the earliest of them gives d (8: two later packets).
    let later = now + RTT;
    c.on_packet_lost(later, 9);
    c.on_packet_lost(later, 8);
    let r = c.on_exact_congestion_event(later, later - RTT, false, false, 9);
    assert_eq!(r.detected, LossSignal::Timeout { dup_acks: 2 });
    assert_eq!(c.stats().mixed_passes, 1);
    // Losses reported at an earlier time belong to another pass: only the event's own count.
    c.on_packet_lost(now, 1);
    let r = c.on_exact_congestion_event(later, later - RTT, false, false, 9);
    assert_eq!(r.detected, LossSignal::Timeout { dup_acks: 1 });
}

#[test]
fn persistent_congestion_is_the_timeout_of_reading_c_with_its_distance() {
    let (mut c, now) = after_ack(TimeoutReading::PersistentCongestion, 10);
    let light = c.on_exact_congestion_event(now, now - RTT, false, false, 9);
    assert_eq!(light.signal, LossSignal::FastRetransmit);
    assert_eq!(light.detected, LossSignal::Timeout { dup_acks: 1 });
    let heavy = c.on_exact_congestion_event(now, now - RTT, true, false, 9);
    assert_eq!(heavy.signal, LossSignal::Timeout { dup_acks: 1 });
    assert_eq!(heavy.detected, LossSignal::PERSISTENT);
    assert!(heavy.determined);
    // Far below the largest acknowledged packet, d saturates at the packet threshold.
    let far = c.on_exact_congestion_event(now, now - RTT, true, false, 2);
    assert_eq!(far.signal, LossSignal::Timeout { dup_acks: 3 });
    let stats = c.stats();
    assert_eq!((stats.persistent, stats.fast_retransmit), (2, 1));
}

#[test]
fn ecn_is_its_own_signal_whatever_the_packet_number() {
    for reading in TimeoutReading::ALL {
        let (mut c, now) = after_ack(reading, 10);
        let r = c.on_exact_congestion_event(now, now - RTT, false, true, 10);
        assert_eq!(r.signal, LossSignal::Ecn, "{reading:?}");
        assert_eq!(r.lost_pn, None);
        assert_eq!(c.stats().ecn, 1);
    }
}

#[test]
fn a_loss_without_an_acknowledgement_above_it_is_undetermined_not_a_panic() {
    let (mut c, now) = after_ack(TimeoutReading::TimeThreshold, 10);
    for lost in [10, 11, u64::MAX] {
        let r = c.on_exact_congestion_event(now, now - RTT, false, false, lost);
        assert_eq!(r.signal, LossSignal::FastRetransmit);
        assert!(!r.determined);
    }
    let mut fresh = LossClassifier::exact(SignalConfig::default(), TimeoutReading::TimeThreshold);
    let r = fresh.on_exact_congestion_event(now, now, false, false, 0);
    assert!(!r.determined);
    assert_eq!(fresh.stats().undetermined, 1);
}

#[test]
fn the_last_frame_sets_the_reference_not_the_largest_ever() {
    // A frame of another packet-number space (smaller numbers) comes last: noq's loss detection
    // in that space compares against that frame's largest.
    let (mut c, now) = after_ack(TimeoutReading::TimeThreshold, 10);
    c.on_ack(now, RTT, RTT);
    c.on_end_acks(now, 0, Some(3));
    let r = c.on_exact_congestion_event(now, now - RTT, false, false, 2);
    assert_eq!(r.signal, LossSignal::Timeout { dup_acks: 1 });
    assert_eq!(c.largest_acked(), Some(10));
}

#[test]
fn exact_mode_keeps_no_ledger() {
    let (c, _) = after_ack(TimeoutReading::TimeThreshold, 10);
    assert!(c.ledger().is_none(), "an exact classifier keeps no ledger");
}

#[test]
fn a_packet_the_threshold_had_reached_earlier_shows_a_mismatch() {
    // Frame 1 acknowledged up to 10; frame 2, to 12. With the configured packet threshold of
    // 3, packet 7 was lost at frame 1 already: declared at frame 2, the transport's is larger.
    let (mut c, now) = after_ack(TimeoutReading::TimeThreshold, 10);
    let next = now + RTT / 10;
    c.on_ack(now, RTT, RTT);
    c.on_end_acks(next, 1200, Some(12));
    c.on_exact_congestion_event(next, now - RTT, false, false, 8);
    assert_eq!(
        c.stats().threshold_mismatches,
        0,
        "8 + 3 > 10: due at frame 2"
    );
    c.on_exact_congestion_event(next, now - RTT, false, false, 7);
    assert_eq!(
        c.stats().threshold_mismatches,
        1,
        "7 + 3 <= 10: due at frame 1"
    );
    // A timer's pass compares with the last frame: 9 + 3 <= 12 was due at frame 2.
    let timer = next + RTT;
    c.on_exact_congestion_event(timer, now, false, false, 9);
    assert_eq!(c.stats().threshold_mismatches, 2);
    // Persistent congestion and ECN are not loss-detection passes.
    c.on_exact_congestion_event(timer, now, true, false, 1);
    c.on_exact_congestion_event(timer, now, false, true, 1);
    assert_eq!(c.stats().threshold_mismatches, 2);
}

#[test]
fn a_time_threshold_loss_sooner_than_the_configured_delay_shows_a_mismatch() {
    // The only RTT measured is 100 ms, so a time-threshold loss (d = 1) comes 112.5 ms or
    // more after its send under the configured 9/8.
    let (mut c, now) = after_ack(TimeoutReading::TimeThreshold, 10);
    c.on_exact_congestion_event(now, now - RTT * 2, false, false, 9);
    assert_eq!(c.stats().threshold_mismatches, 0);
    c.on_exact_congestion_event(now, now - RTT / 2, false, false, 9);
    assert_eq!(c.stats().threshold_mismatches, 1);
    // A fast retransmit (d = 3) may come at any time.
    c.on_exact_congestion_event(now, now - RTT / 2, false, false, 7);
    assert_eq!(c.stats().threshold_mismatches, 1);
}
