//! `FrameRtt` against one `RttRounds::on_sample` per packet: base and latest must match after
//! every frame, whatever the order of send times, with zero and backwards samples, frames left
//! open (the next one flushes them) and base resets.

use cc_core::testing::RandomFrames;
use cc_core::{FrameRtt, RttRounds};

#[test]
fn base_and_latest_match_one_sample_per_packet() {
    for case in 0..200 {
        let mut frames = RandomFrames::new(case + 1);
        let mut per_packet = RttRounds::default();
        let mut per_frame = RttRounds::default();
        let mut frame_rtt = FrameRtt::default();
        for _ in 0..200 {
            let frame = frames.next_frame();
            for ack in &frame.acks {
                per_packet.on_sample(frame.now.saturating_duration_since(ack.sent));
                frame_rtt.on_ack(frame.now, ack.sent, &mut per_frame);
            }
            if frames.below(4) == 0 {
                continue; // a frame left open: the next one flushes it
            }
            frame_rtt.flush(&mut per_frame);
            assert_eq!(per_frame.base(), per_packet.base(), "case {case}");
            assert_eq!(per_frame.latest(), per_packet.latest(), "case {case}");
            if frames.below(10) == 0 {
                per_packet.reset_base();
                per_frame.reset_base();
            }
        }
    }
}
