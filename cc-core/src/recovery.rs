//! Recovery-epoch bookkeeping: at most one window reduction per round trip.

use crate::CongestionEvent;
use std::time::Instant;

/// When the current recovery period began, as quinn's NewReno tracks it
/// (`recovery_start_time`): losses of packets sent before it belong to the same congestion
/// episode and do not reduce the window again.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecoveryEpoch {
    /// Start of the current recovery period; `None` before the first reduction.
    start: Option<Instant>,
}

impl RecoveryEpoch {
    /// Whether a packet sent at `sent` was sent during the current recovery period.
    pub fn contains(&self, sent: Instant) -> bool {
        self.start.is_some_and(|start| sent <= start)
    }

    /// Starts a new recovery period at `now` if the lost packet (sent at `sent`) was sent after
    /// the current one began; returns whether it did, i.e. whether the controller should react.
    pub fn enter(&mut self, now: Instant, sent: Instant) -> bool {
        if self.contains(sent) {
            return false;
        }
        self.start = Some(now);
        true
    }

    /// Starts a recovery period at `now` unconditionally (persistent congestion always reacts).
    pub fn restart(&mut self, now: Instant) {
        self.start = Some(now);
    }

    /// Whether a congestion event should change the window: persistent congestion (QUIC's
    /// RTO) always does and restarts the period; any other event only when its packet was
    /// sent after the current period began, which then starts a new one.
    pub fn admits(&mut self, event: &CongestionEvent) -> bool {
        if event.persistent {
            self.restart(event.now);
            true
        } else {
            self.enter(event.now, event.sent)
        }
    }

    /// When the current recovery period began.
    pub fn start(&self) -> Option<Instant> {
        self.start
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn one_reduction_per_episode() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let mut r = RecoveryEpoch::default();
        assert!(!r.contains(t0));
        assert!(r.enter(t0 + ms(100), t0));
        // A packet sent before the episode began: same episode.
        assert!(!r.enter(t0 + ms(110), t0 + ms(50)));
        assert!(!r.enter(t0 + ms(110), t0 + ms(100)));
        // Sent after it began: a new episode.
        assert!(r.enter(t0 + ms(300), t0 + ms(150)));
        assert_eq!(r.start(), Some(t0 + ms(300)));
    }

    #[test]
    fn persistent_congestion_is_always_admitted() {
        use crate::LossSignal;
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let event = |now, sent, signal| CongestionEvent::determined(now, sent, 1200, signal);
        let mut r = RecoveryEpoch::default();
        assert!(r.admits(&event(t0 + ms(100), t0, LossSignal::FastRetransmit)));
        assert!(!r.admits(&event(
            t0 + ms(110),
            t0 + ms(50),
            LossSignal::Timeout { dup_acks: 1 }
        )));
        assert!(r.admits(&event(t0 + ms(120), t0 + ms(50), LossSignal::PERSISTENT)));
        assert_eq!(r.start(), Some(t0 + ms(120)));
    }
}
