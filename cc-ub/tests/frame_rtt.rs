//! TCP-UB takes its RTT samples once per ACK frame (`cc_core::FrameRtt`). Its base RTT must read
//! exactly as one sample per packet would: this drives TCP-UB with pseudo-random frames (any
//! order of send times, zero and backwards samples, losses and timeouts inside frames) beside a
//! per-packet reference and compares the base RTT at the end of every frame.

use cc_core::testing::RandomFrames;
use cc_core::{CongestionAlgorithm, RttRounds};
use cc_ub::{Ub, UbConfig};

#[test]
fn base_rtt_matches_one_sample_per_packet() {
    for case in 0..100 {
        let mut frames = RandomFrames::new(case + 1);
        let mut ub = Ub::new(UbConfig::default(), 1200);
        let mut reference = RttRounds::default();
        let mut pn = 0u64;
        for index in 0..300 {
            let frame = frames.next_frame();
            pn += 1 + frames.below(4);
            ub.on_sent(frame.now, 4 * 1200, pn);
            // Persistent congestion always reacts and forgets the base RTT, after the frame's
            // samples so far.
            frame.feed(&mut ub, &mut reference, true);
            let in_flight = 1200 * (1 + frames.below(20));
            ub.on_end_acks(&frame.end(in_flight, Some(pn.saturating_sub(frames.below(3)))));
            assert_eq!(
                ub.base_rtt(),
                reference.base(),
                "case {case}, frame {index}"
            );
        }
    }
}
