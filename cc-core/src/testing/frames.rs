//! Pseudo-random ACK frames for the property tests of per-frame RTT sampling
//! ([`crate::FrameRtt`] and the controllers that use it).

use crate::{
    AckRoundEnd, AckSample, CongestionAlgorithm, CongestionEvent, LossSignal, RttRounds,
    RttSnapshot,
};
use std::time::{Duration, Instant};

/// A seeded stream of ACK frames: each arrives 1 us to 40 ms after the last and acknowledges
/// one to seven packets whose send times come in any order, up to 0.4 s old, one in 25 sent at
/// the frame's own instant (a zero sample) and one in 25 after it (a clock that ran backwards).
/// One acknowledgement in 30 is followed by a loss inside the frame, a third of those
/// persistent congestion. The same seed gives the same frames.
#[derive(Debug, Clone)]
pub struct RandomFrames {
    /// xorshift64 state (never zero).
    state: u64,
    /// Time of the latest frame.
    now: Instant,
}

/// One ACK frame of [`RandomFrames`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RandomFrame {
    /// When every acknowledgement of the frame arrives.
    pub now: Instant,
    /// The acknowledged packets, in the order the stack reports them.
    pub acks: Vec<RandomAck>,
}

/// One acknowledgement of a [`RandomFrame`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RandomAck {
    /// The packet's send time.
    pub sent: Instant,
    /// A loss declared right after this acknowledgement, inside the frame.
    pub loss_after: Option<LossSignal>,
}

impl RandomFrame {
    /// The controller's view of `ack`: one 1,200-byte packet, not application-limited, with
    /// quinn's estimator at 100 ms.
    pub fn sample(&self, ack: &RandomAck) -> AckSample {
        AckSample {
            now: self.now,
            sent: ack.sent,
            bytes: 1200,
            app_limited: false,
            rtt: RttSnapshot::uniform(Duration::from_millis(100)),
        }
    }

    /// Gives the frame's acknowledgements to `algorithm` in order, each loss inside the frame as
    /// a congestion event right after the acknowledgement it follows, and each RTT sample to
    /// `reference`, the per-packet reading the algorithm must match. With
    /// `forget_base_on_timeout` the reference forgets its base RTT at persistent congestion, after
    /// the frame's samples so far, as an algorithm that resets its base there does.
    pub fn feed<A: CongestionAlgorithm>(
        &self,
        algorithm: &mut A,
        reference: &mut RttRounds,
        forget_base_on_timeout: bool,
    ) {
        for ack in &self.acks {
            let sample = self.sample(ack);
            algorithm.on_ack(&sample);
            reference.on_sample(sample.latest_rtt());
            if let Some(signal) = ack.loss_after {
                algorithm.on_congestion(&CongestionEvent::determined(
                    self.now, ack.sent, 1200, signal,
                ));
                if forget_base_on_timeout && signal.is_timeout() {
                    reference.reset_base();
                }
            }
        }
    }

    /// The frame's end, with `in_flight` bytes left and `largest_acked` acknowledged.
    pub fn end(&self, in_flight: u64, largest_acked: Option<u64>) -> AckRoundEnd {
        AckRoundEnd {
            now: self.now,
            in_flight,
            app_limited: false,
            largest_acked,
        }
    }
}

impl RandomFrames {
    /// A stream seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        Self {
            state: seed.max(1),
            now: Instant::now() + Duration::from_secs(1),
        }
    }

    /// A number in `[0, n)` (0 for `n` = 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        self.state.checked_rem(n).unwrap_or(0)
    }

    /// The next frame.
    pub fn next_frame(&mut self) -> RandomFrame {
        let gap = Duration::from_micros(1 + self.below(40_000));
        self.now += gap;
        let now = self.now;
        let acks = (0..=self.below(7))
            .map(|_| {
                let sent = match self.below(25) {
                    0 => now,
                    1 => now + Duration::from_micros(self.below(50)),
                    _ => now - Duration::from_micros(1 + self.below(400_000)),
                };
                let loss_after = (self.below(30) == 0).then(|| {
                    if self.below(3) == 0 {
                        LossSignal::PERSISTENT
                    } else {
                        LossSignal::FastRetransmit
                    }
                });
                RandomAck { sent, loss_after }
            })
            .collect();
        RandomFrame { now, acks }
    }
}
