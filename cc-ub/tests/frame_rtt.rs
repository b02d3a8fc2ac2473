//! TCP-UB takes its RTT samples once per ACK frame (`cc_core::FrameRtt`). Its base RTT must read
//! exactly as one sample per packet would: this drives TCP-UB with pseudo-random frames (any
//! order of send times, zero and backwards samples, losses and timeouts inside frames) beside a
//! per-packet reference and compares the base RTT at the end of every frame.

use cc_core::{
    AckRoundEnd, AckSample, CongestionAlgorithm, CongestionEvent, LossSignal, RttRounds,
    RttSnapshot,
};
use cc_ub::{Ub, UbConfig};
use std::time::{Duration, Instant};

#[test]
fn base_rtt_matches_one_sample_per_packet() {
    let t0 = Instant::now();
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = move |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    for case in 0..100 {
        let mut ub = Ub::new(UbConfig::default(), 1200);
        let mut reference = RttRounds::default();
        let mut clock = 1_000_000u64;
        let mut pn = 0u64;
        for frame in 0..300 {
            clock += 1 + next(40_000);
            let now = t0 + Duration::from_micros(clock);
            pn += 1 + next(4);
            ub.on_sent(now, 4 * 1200, pn);
            for _ in 0..=next(6) {
                let sent = match next(25) {
                    0 => now,
                    1 => now + Duration::from_micros(next(50)),
                    _ => now - Duration::from_micros(1 + next(400_000)),
                };
                let ack = AckSample {
                    now,
                    sent,
                    bytes: 1200,
                    app_limited: false,
                    rtt: RttSnapshot::uniform(Duration::from_millis(100)),
                };
                ub.on_ack(&ack);
                reference.on_sample(ack.latest_rtt());
                if next(30) == 0 {
                    // A loss inside the frame; a timeout forgets the base RTT, after the frame's
                    // samples so far.
                    let signal = if next(3) == 0 {
                        LossSignal::PERSISTENT
                    } else {
                        LossSignal::FastRetransmit
                    };
                    ub.on_congestion(&CongestionEvent::determined(now, sent, 1200, signal));
                    if signal.is_timeout() {
                        // Persistent congestion always reacts (one reduction per round trip
                        // holds back the other losses only).
                        reference.reset_base();
                    }
                }
            }
            ub.on_end_acks(&AckRoundEnd {
                now,
                in_flight: 1200 * (1 + next(20)),
                app_limited: false,
                largest_acked: Some(pn.saturating_sub(next(3))),
            });
            assert_eq!(
                ub.base_rtt(),
                reference.base(),
                "case {case}, frame {frame}"
            );
        }
    }
}
