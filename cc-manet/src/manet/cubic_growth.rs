//! `cubic_growth`: CUBIC's window growth (RFC 9438 section 4), in datagrams and seconds, where
//! nothing bounds the window (competitive mode, or `backlog_bound` off); with the knob off,
//! Reno's one datagram per round trip.

use std::time::Duration;

use cc_core::Instant;

/// CUBIC's scaling constant C (RFC 9438 section 4.1).
const C: f64 = 0.4;
/// CUBIC's multiplicative decrease factor beta_cubic (RFC 9438 section 4.6).
pub const BETA: f64 = 0.7;
/// The Reno-friendly region's additive increase (RFC 9438 section 4.3, eq. 4).
const ALPHA: f64 = 3.0 * (1.0 - BETA) / (1.0 + BETA);

/// One congestion-avoidance epoch of CUBIC: `W_max`, `K` and the Reno-friendly estimate.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CubicGrowth {
    /// The window before the last reduction, datagrams (`W_max`).
    w_max: f64,
    /// Time to climb back to `W_max`, seconds (`K`).
    k: f64,
    /// When the epoch began (the first ACK after it was reset).
    epoch_start: Option<Instant>,
    /// The Reno-friendly window estimate, datagrams (`W_est`).
    w_est: f64,
    /// The last target before clamping, `C x (t - K)^3 + W_max`, with the time and smoothed
    /// RTT it was read at: the ACKs of one frame share both, so only the frame's first pays
    /// for the clock arithmetic.
    target: Option<FrameTarget>,
}

/// CUBIC's unclamped target at one `(now, rtt)`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct FrameTarget {
    now: Instant,
    /// The smoothed RTT, nanoseconds (8 bytes where a `Duration` takes 16); never
    /// `u64::MAX`, which a larger RTT would share (such a target is not kept).
    rtt_ns: u64,
    w_cubic: f64,
}

impl CubicGrowth {
    /// A reduction from `before` to `after` datagrams (RFC 9438 section 4.6, with fast
    /// convergence, section 4.7): the next epoch climbs back to `W_max` in `K` seconds.
    pub fn on_reduction(&mut self, before: f64, after: f64) {
        self.w_max = if before < self.w_max {
            before * (1.0 + BETA) / 2.0
        } else {
            before
        };
        self.k = ((self.w_max - after).max(0.0) / C).cbrt();
        self.epoch_start = None;
        self.target = None;
        self.w_est = after;
    }

    /// Starts growth from `cwnd` datagrams without a reduction (leaving slow start).
    pub fn start_at(&mut self, cwnd: f64) {
        self.w_max = cwnd;
        self.k = 0.0;
        self.epoch_start = None;
        self.target = None;
        self.w_est = cwnd;
    }

    /// The window after `acked` datagrams were acknowledged at `now` with a window of `cwnd`
    /// datagrams and a smoothed RTT of `rtt`: CUBIC's target for one RTT ahead, taken at most
    /// half the window further, or the Reno-friendly estimate where that is larger (RFC 9438
    /// sections 4.2-4.4).
    pub fn grown(&mut self, now: Instant, rtt: Duration, cwnd: f64, acked: f64) -> f64 {
        if self.w_est == 0.0 {
            self.w_est = cwnd;
        }
        let rtt_ns = cc_core::saturating_ns(rtt);
        let w_cubic = match self.target {
            Some(t) if t.now == now && t.rtt_ns == rtt_ns => t.w_cubic,
            _ => {
                let start = *self.epoch_start.get_or_insert(now);
                let t = now.saturating_duration_since(start).saturating_add(rtt);
                let offset = t.as_secs_f64() - self.k;
                let w_cubic = C * offset * offset * offset + self.w_max;
                self.target = (rtt_ns != u64::MAX).then_some(FrameTarget {
                    now,
                    rtt_ns,
                    w_cubic,
                });
                w_cubic
            }
        };
        let target = w_cubic.clamp(cwnd, 1.5 * cwnd);
        self.w_est += ALPHA * acked / cwnd.max(1.0);
        let cubic = cwnd + (target - cwnd) * acked / cwnd.max(1.0);
        cubic.max(self.w_est.min(cwnd + acked))
    }

    /// Whether every field is a finite number (an invariant the property tests check).
    #[cfg(test)]
    pub fn is_finite(&self) -> bool {
        self.w_max.is_finite() && self.k.is_finite() && self.w_est.is_finite()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn climbs_back_to_w_max_in_k_seconds_and_beyond_it_after() {
        let mut cubic = CubicGrowth::default();
        cubic.on_reduction(100.0, 70.0);
        // K = cbrt(30 / 0.4) = 4.217 s.
        assert!((cubic.k - 4.217).abs() < 1e-3, "{}", cubic.k);
        let t0 = Instant::now();
        let rtt = Duration::from_millis(100);
        let mut cwnd = 70.0;
        let mut at_k = None;
        // One window of ACKs per RTT for 8 s.
        for round in 0..80 {
            let now = t0 + rtt * round;
            let acks = cwnd as u32;
            for _ in 0..acks {
                cwnd = cubic.grown(now, rtt, cwnd, 1.0);
            }
            if round == 42 {
                at_k = Some(cwnd);
            }
        }
        let at_k = at_k.unwrap();
        assert!((95.0..=105.0).contains(&at_k), "near W_max at K: {at_k}");
        assert!(cwnd > 120.0, "convex growth past W_max: {cwnd}");
    }

    /// A frame's ACKs share its target; a reduction or a new start between two of them (the
    /// same instant and RTT) must not: the next ACK reads the new epoch's target.
    #[test]
    fn a_reduction_forgets_the_frames_target() {
        let t0 = Instant::now();
        let rtt = Duration::from_millis(50);
        let now = t0 + Duration::from_secs(3);
        let mut cubic = CubicGrowth::default();
        cubic.on_reduction(100.0, 70.0);
        cubic.grown(t0, rtt, 70.0, 1.0);
        let before = cubic.grown(now, rtt, 70.0, 1.0);
        let restarts: [fn(&mut CubicGrowth); 2] =
            [|c| c.on_reduction(70.0, 49.0), |c| c.start_at(70.0)];
        for restart in restarts {
            let mut cached = cubic.clone();
            restart(&mut cached);
            let mut fresh = cached.clone();
            fresh.target = None;
            let after = cached.grown(now, rtt, 49.0, 1.0);
            assert_eq!(after.to_bits(), fresh.grown(now, rtt, 49.0, 1.0).to_bits());
            assert_ne!(after, before);
        }
    }

    /// RTTs from `u64::MAX` nanoseconds up share one key: their target is not kept.
    #[test]
    fn an_rtt_of_u64_max_nanoseconds_or_more_keeps_no_target() {
        let now = Instant::now();
        let mut cubic = CubicGrowth::default();
        cubic.grown(now, Duration::from_nanos(u64::MAX), 70.0, 1.0);
        assert_eq!(cubic.target, None);
        cubic.grown(now, Duration::MAX, 70.0, 1.0);
        assert_eq!(cubic.target, None);
        cubic.grown(now, Duration::from_nanos(u64::MAX - 1), 70.0, 1.0);
        assert!(cubic.target.is_some());
    }

    #[test]
    fn never_shrinks_and_is_at_least_reno_friendly() {
        let mut cubic = CubicGrowth::default();
        cubic.on_reduction(10.0, 7.0);
        let t0 = Instant::now();
        let mut cwnd = 7.0;
        for i in 0..1000u32 {
            let next = cubic.grown(
                t0 + Duration::from_millis(u64::from(i)),
                Duration::from_millis(20),
                cwnd,
                1.0,
            );
            assert!(next >= cwnd, "{next} < {cwnd}");
            assert!(
                next <= cwnd + 1.0,
                "at most one datagram per acknowledged one"
            );
            cwnd = next;
        }
    }
}
