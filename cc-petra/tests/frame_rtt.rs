//! PETRA takes its RTT samples once per ACK frame (`cc_core::FrameRtt`) and keeps ERTT in
//! integer nanoseconds. Both must read exactly as one `Duration` sample per packet and
//! `Duration` arithmetic would: this drives PETRA with pseudo-random frames (any order of send
//! times, zero and backwards samples, losses inside frames) beside a per-packet reference and
//! compares MinRTT, LastRTT and ERTT at the end of every frame.

use cc_core::{
    AckRoundEnd, AckSample, CongestionAlgorithm, CongestionEvent, LossSignal, RttRounds,
    RttSnapshot,
};
use cc_petra::{Petra, PetraConfig};
use std::time::{Duration, Instant};

#[test]
fn rtt_readings_match_one_sample_per_packet() {
    let t0 = Instant::now();
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    for case in 0..100 {
        let mut petra = Petra::new(PetraConfig::default(), 1200);
        let mut reference = RttRounds::default();
        let mut ertt: Option<Duration> = None;
        let mut clock = 1_000_000u64;
        for frame in 0..300 {
            clock += 1 + next(40_000);
            let now = t0 + Duration::from_micros(clock);
            petra.on_sent(now, 4 * 1200, 0);
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
                petra.on_ack(&ack);
                reference.on_sample(ack.latest_rtt());
                if next(30) == 0 {
                    // A loss inside the frame: it reads the frame's samples so far.
                    let signal = if next(4) == 0 {
                        LossSignal::PERSISTENT
                    } else {
                        LossSignal::FastRetransmit
                    };
                    petra.on_congestion(&CongestionEvent::determined(now, sent, 1200, signal));
                }
            }
            petra.on_end_acks(&AckRoundEnd {
                now,
                in_flight: 1200 * (1 + next(20)),
                app_limited: false,
                largest_acked: None,
            });
            if let Some(last) = reference.latest() {
                // RFC 6298's SRTT in `Duration` arithmetic, as PETRA kept it before.
                ertt = Some(ertt.map_or(last, |srtt| (srtt * 7 + last) / 8));
            }
            let at = format!("case {case}, frame {frame}");
            assert_eq!(petra.min_rtt(), reference.base(), "MinRTT, {at}");
            assert_eq!(petra.last_rtt(), reference.latest(), "LastRTT, {at}");
            assert_eq!(petra.ertt(), ertt, "ERTT, {at}");
        }
    }
}
