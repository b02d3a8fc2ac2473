//! Helpers shared by the ABRA test files.
#![allow(dead_code)] // each test binary uses its own subset

use cc_abra::{Abra, AbraConfig};
use cc_core::{
    AckRoundEnd, AckSample, CongestionAlgorithm, CongestionEvent, LossSignal, RttSnapshot,
};
use std::time::{Duration, Instant};

pub const MTU: u16 = 1200;
pub const SEG: u64 = MTU as u64;

pub fn ms(v: u64) -> Duration {
    Duration::from_millis(v)
}

/// A controller whose window is exactly `packets` datagrams (its initial window).
pub fn at_window(packets: u64) -> Abra {
    let mut cfg = AbraConfig::default();
    cfg.set_initial_window_packets(packets).unwrap();
    Abra::new(cfg, MTU)
}

pub fn ack(sent: Instant, srtt: Duration) -> AckSample {
    AckSample {
        now: sent + srtt,
        sent,
        bytes: SEG,
        app_limited: false,
        rtt: RttSnapshot::uniform(srtt),
    }
}

pub fn end_acks(now: Instant) -> AckRoundEnd {
    AckRoundEnd {
        now,
        in_flight: 0,
        app_limited: false,
        largest_acked: Some(0),
    }
}

pub fn event(now: Instant, sent: Instant, signal: LossSignal) -> CongestionEvent {
    CongestionEvent::determined(now, sent, SEG, signal)
}

/// A controller at `cwnd` and `ssthresh` packets with a measured smoothed RTT of `srtt`.
pub fn prepared(cwnd: u64, ssthresh: Option<u64>, srtt: Duration, t0: Instant) -> Abra {
    let mut a = match ssthresh {
        // A fast retransmit from 2 x ssthresh gives cwnd = ssthresh; grow in avoidance after.
        Some(s) => {
            let mut a = at_window(2 * s);
            a.react(LossSignal::FastRetransmit, t0);
            a
        }
        None => at_window(cwnd),
    };
    a.on_end_acks(&end_acks(t0));
    // Grow to `cwnd` (slow start or avoidance) with packets sent after t0.
    while a.window() < cwnd * SEG {
        a.on_ack(&ack(t0 + ms(1), srtt));
    }
    // One smoothed-RTT sample that does not grow the window (application-limited).
    let mut sample = ack(t0 + ms(1), srtt);
    sample.app_limited = true;
    a.on_ack(&sample);
    assert_eq!(a.window(), cwnd * SEG);
    a
}
