//! PETRA takes its RTT samples once per ACK frame (`cc_core::FrameRtt`) and keeps ERTT in
//! integer nanoseconds. Both must read exactly as one `Duration` sample per packet and
//! `Duration` arithmetic would: this drives PETRA with pseudo-random frames (any order of send
//! times, zero and backwards samples, losses inside frames) beside a per-packet reference and
//! compares MinRTT, LastRTT and ERTT at the end of every frame.

use cc_core::testing::RandomFrames;
use cc_core::{CongestionAlgorithm, RttRounds};
use cc_petra::{Petra, PetraConfig};
use std::time::Duration;

#[test]
fn rtt_readings_match_one_sample_per_packet() {
    for case in 0..100 {
        let mut frames = RandomFrames::new(case + 1);
        let mut petra = Petra::new(PetraConfig::default(), 1200);
        let mut reference = RttRounds::default();
        let mut ertt: Option<Duration> = None;
        for index in 0..300 {
            let frame = frames.next_frame();
            petra.on_sent(frame.now, 4 * 1200, 0);
            // A loss inside the frame reads the frame's samples so far; PETRA keeps MinRTT
            // through a timeout.
            frame.feed(&mut petra, &mut reference, false);
            let in_flight = 1200 * (1 + frames.below(20));
            petra.on_end_acks(&frame.end(in_flight, None));
            if let Some(last) = reference.latest() {
                // RFC 6298's SRTT in `Duration` arithmetic, as PETRA kept it before.
                ertt = Some(ertt.map_or(last, |srtt| (srtt * 7 + last) / 8));
            }
            let at = format!("case {case}, frame {index}");
            assert_eq!(petra.min_rtt(), reference.base(), "MinRTT, {at}");
            assert_eq!(petra.last_rtt(), reference.latest(), "LastRTT, {at}");
            assert_eq!(petra.ertt(), ertt, "ERTT, {at}");
        }
    }
}
