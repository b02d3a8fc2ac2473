//! One ACK frame's RTT samples taken with one clock subtraction instead of one per packet.

use crate::RttRounds;
use std::time::Instant;

/// Collects the send times of an ACK frame's acknowledged packets and hands the frame's RTT
/// samples to an [`RttRounds`] when the frame ends ([`flush`](Self::flush)).
///
/// Every acknowledgement of a frame arrives at the same `now`, so its samples `now - sent`
/// differ only by their send times: the smallest is the one of the newest packet and the last
/// is the one of the packet acknowledged last. Handing over those two leaves the RTT tracker's
/// [`base`](RttRounds::base) and [`latest`](RttRounds::latest) exactly as one
/// [`RttRounds::on_sample`] per packet would, with one `Instant` subtraction (an out-of-line
/// library call) per frame instead of per packet. Zero samples (sent at `now` or later, which
/// `on_sample` ignores) are skipped here too. An acknowledgement at another `now` flushes the
/// frame before it, so the equivalence holds for any call sequence.
///
/// The tracker's per-round statistics (`round_min` aside, its sample count and mean) count
/// one or two samples per frame instead of one per packet: a controller that reads a round's
/// mean or count feeds [`RttRounds::on_sample`] per packet instead.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FrameRtt {
    /// The open frame; `None` when every sample has been handed over.
    pending: Option<PendingFrame>,
}

/// The send times an open frame's samples will be computed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct PendingFrame {
    /// When the frame's acknowledgements arrived.
    now: Instant,
    /// Send time of the packet acknowledged last: the frame's latest sample.
    last_sent: Instant,
    /// The newest send time: the frame's smallest sample.
    newest_sent: Instant,
}

impl FrameRtt {
    /// A packet sent at `sent` was acknowledged at `now`. Hands any earlier frame (another
    /// `now`) to `rtt` first.
    #[inline]
    pub fn on_ack(&mut self, now: Instant, sent: Instant, rtt: &mut RttRounds) {
        if sent >= now {
            return;
        }
        match &mut self.pending {
            Some(frame) if frame.now == now => {
                frame.last_sent = sent;
                frame.newest_sent = frame.newest_sent.max(sent);
            }
            _ => {
                self.flush(rtt);
                self.pending = Some(PendingFrame {
                    now,
                    last_sent: sent,
                    newest_sent: sent,
                });
            }
        }
    }

    /// Hands the open frame's samples to `rtt`: call before reading `rtt`.
    #[inline]
    pub fn flush(&mut self, rtt: &mut RttRounds) {
        let Some(frame) = self.pending.take() else {
            return;
        };
        rtt.on_sample(frame.now.saturating_duration_since(frame.newest_sent));
        if frame.last_sent != frame.newest_sent {
            rtt.on_sample(frame.now.saturating_duration_since(frame.last_sent));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_frame_hands_over_nothing() {
        let mut rtt = RttRounds::default();
        let mut frames = FrameRtt::default();
        frames.flush(&mut rtt);
        let now = Instant::now();
        frames.on_ack(now, now, &mut rtt);
        frames.flush(&mut rtt);
        assert_eq!(rtt, RttRounds::default());
    }
}
