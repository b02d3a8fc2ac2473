//! The Westwood bandwidth estimator: acknowledged bytes over the inter-ACK interval, low-pass
//! filtered (PETRA section 4.1.1, eqs. 4.3-4.4; TCP Westwood, Mascolo et al. 2001).

use crate::Bandwidth;
use std::time::{Duration, Instant};

/// Estimates the path's bandwidth from the rate at which acknowledgements return.
///
/// Feed it one call per acknowledgement (in QUIC: per ACK frame, the sum of the bytes the frame
/// newly acknowledged) with [`on_ack`](Self::on_ack):
///
/// - **Sample** (eq. 4.3, section 4.1.1 (PETRA): `EBW = Acked x SMSS / (t_k - t_(k-1))`): the
///   bytes acknowledged at `t_k` divided by the time since the previous acknowledgement `t_(k-1)`.
/// - **Zero intervals** (several acknowledgements processed at the same instant, as quinn does for
///   the packets of one frame, or for frames read from one receive batch): no division happens;
///   the bytes are accumulated and counted in the next sample, whose interval then spans them.
///   Over a steady stream no byte is lost or counted twice. A clock that runs backwards is
///   treated as a zero interval.
/// - **Filter** (eq. 4.4, section 4.1.1 (PETRA): `SEBW = (1 - a) EBW_i + a SEBW_(i-1)`, with
///   `a = 0.9` by default): an exponentially weighted moving average. The paper's text writes
///   the second term as `a x EBW_(i-1)`; read literally that is a two-tap filter whose output is
///   mostly the previous *raw* sample, which contradicts the paper's "moving average method ...
///   to obtain a smooth estimation all over the transmission period", so the previous
///   *smoothed* value is used. The first sample after a start or [`reset`](Self::reset) is taken
///   as it is.
/// - **Reset** (section 4.1.1: "Whenever a loss event occurs ... we reset the EBW value to start
///   a new estimation"): [`reset`](Self::reset) forgets the estimate but keeps the time of the
///   last acknowledgement, so the next one yields a fresh sample at once.
///
/// The very first acknowledgement only starts the clock: the interval its bytes arrived over is
/// unknown.
#[derive(Debug, Clone, PartialEq)]
pub struct WestwoodEstimator {
    /// Weight of the previous estimate in eq. 4.4 (the paper's alpha), in `[0, 1)`.
    gain: f64,
    /// Arrival time of the acknowledgement that closed the last interval (`t_(k-1)`).
    last_ack: Option<Instant>,
    /// Bytes acknowledged at a zero interval since `last_ack`, carried into the next sample.
    pending_bytes: u64,
    /// The smoothed estimate `SEBW`; `None` until the first sample and after a reset.
    estimate: Option<Bandwidth>,
    /// The latest raw sample `EBW_i`; `None` until the first sample and after a reset.
    last_sample: Option<Bandwidth>,
    /// Samples taken since the last reset.
    samples: u64,
}

impl WestwoodEstimator {
    /// The filter gain PETRA uses (section 4.1.1: "the moving average method with (alpha = 0.9)").
    pub const DEFAULT_GAIN: f64 = 0.9;

    /// An estimator whose eq. 4.4 weight on the previous estimate is `gain`.
    ///
    /// Configs validate the gain with [`crate::Range::FilterGain`]; here a value outside `[0, 1)` is
    /// clamped into it (NaN gives [`Self::DEFAULT_GAIN`]) so construction cannot fail or panic.
    pub fn new(gain: f64) -> Self {
        let gain = if gain.is_nan() {
            Self::DEFAULT_GAIN
        } else {
            gain.clamp(0.0, MAX_GAIN)
        };
        Self {
            gain,
            last_ack: None,
            pending_bytes: 0,
            estimate: None,
            last_sample: None,
            samples: 0,
        }
    }

    /// One acknowledgement, arriving at `now`, newly acknowledged `bytes`. Returns the raw
    /// sample (eq. 4.3) if this acknowledgement closed an interval.
    pub fn on_ack(&mut self, now: Instant, bytes: u64) -> Option<Bandwidth> {
        let Some(last) = self.last_ack else {
            self.last_ack = Some(now);
            return None;
        };
        self.pending_bytes = self.pending_bytes.saturating_add(bytes);
        let interval = now.saturating_duration_since(last);
        // Eq. 4.3, section 4.1.1 (PETRA): EBW = Acked x SMSS / (t_k - t_(k-1)); a zero interval
        // gives `None` and the bytes wait for the next acknowledgement.
        let sample = Bandwidth::from_bytes_over(self.pending_bytes, interval)?;
        self.pending_bytes = 0;
        self.last_ack = Some(now);
        self.last_sample = Some(sample);
        self.samples = self.samples.saturating_add(1);
        // Eq. 4.4, section 4.1.1 (PETRA): SEBW = (1 - a) EBW_i + a SEBW_(i-1).
        self.estimate = Some(match self.estimate {
            None => sample,
            Some(previous) => {
                let blended = (1.0 - self.gain) * sample.bits_per_second_f64()
                    + self.gain * previous.bits_per_second_f64();
                // Rounded to the nearest bit/s, saturating at u64::MAX.
                Bandwidth::from_bits_per_second_rounded(blended)
            }
        });
        Some(sample)
    }

    /// Forgets the estimate (section 4.1.1: reset on every loss event).
    pub fn reset(&mut self) {
        self.estimate = None;
        self.last_sample = None;
        self.samples = 0;
    }

    /// The smoothed estimate `SEBW`, if a sample has been taken since the last reset.
    pub fn estimate(&self) -> Option<Bandwidth> {
        self.estimate
    }

    /// The latest raw sample `EBW_i`.
    pub fn last_sample(&self) -> Option<Bandwidth> {
        self.last_sample
    }

    /// Samples taken since the last reset.
    pub fn samples(&self) -> u64 {
        self.samples
    }

    /// The filter's weight on the previous estimate.
    pub fn gain(&self) -> f64 {
        self.gain
    }

    /// A pacing rate of `gain` times the estimate, bits per second, outside slow start; `None`
    /// when `gain` is 0 (pacing left to the stack), in slow start (a rate from the estimate
    /// would hold the window's growth back to the rate already delivered), or before the first
    /// sample. Not in the papers: a knob of the ports that have the estimate, for a stack whose
    /// pacer reads the controller's rate (noq; quinn 0.11 paces from the window and ignores it).
    pub fn pacing_rate(&self, gain: f64, in_slow_start: bool) -> Option<u64> {
        pacing_rate(self.estimate, gain, in_slow_start)
    }

    /// Estimated bandwidth-delay product over `rtt`, bytes (eq. 4.5, section 4.1.1 (PETRA):
    /// `ssthresh = SEBW x MinRTT`; Westwood's `BWE x RTTmin`).
    pub fn bdp(&self, rtt: Duration) -> Option<u64> {
        self.estimate.map(|bw| bw.bytes_over(rtt))
    }
}

impl Default for WestwoodEstimator {
    /// An estimator with PETRA's gain, 0.9.
    fn default() -> Self {
        Self::new(Self::DEFAULT_GAIN)
    }
}

/// `gain` times `estimate`, bits per second, outside slow start (see
/// [`WestwoodEstimator::pacing_rate`]).
pub(crate) fn pacing_rate(
    estimate: Option<Bandwidth>,
    gain: f64,
    in_slow_start: bool,
) -> Option<u64> {
    if gain <= 0.0 || in_slow_start {
        return None;
    }
    let bits = estimate?.bits_per_second() as f64 * gain;
    // At least one 1200-byte datagram per second: a zero rate stalls a pacer.
    Some((bits as u64).max(9_600))
}

/// Largest gain [`WestwoodEstimator::new`] keeps (a gain of 1 would never move).
const MAX_GAIN: f64 = 0.999_999;

#[cfg(test)]
mod tests {
    use super::*;

    const MTU: u64 = 1200;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn pacing_rate_is_the_gain_times_the_estimate_outside_slow_start_only() {
        let mut e = WestwoodEstimator::default();
        assert_eq!(e.pacing_rate(1.25, false), None, "no sample yet");
        let t0 = Instant::now();
        e.on_ack(t0, 2 * MTU);
        e.on_ack(t0 + ms(20), 2 * MTU); // 0.96 Mb/s
        assert_eq!(e.pacing_rate(1.25, false), Some(1_200_000));
        assert_eq!(e.pacing_rate(0.0, false), None, "gain 0 is off");
        assert_eq!(e.pacing_rate(1.25, true), None, "not in slow start");
        // Never a rate that stalls a pacer.
        assert_eq!(e.pacing_rate(1e-9, false), Some(9_600));
    }

    #[test]
    fn constant_rate_ack_stream_converges_within_five_percent() {
        // 2 packets of 1200 bytes every 2 ms = 1.2 MB/s = 9.6 Mb/s, starting from a far-off
        // first sample (the first interval is 20 ms: 2400 B / 20 ms = 0.96 Mb/s).
        let rate = 9_600_000u64;
        let mut e = WestwoodEstimator::default();
        let t0 = Instant::now();
        e.on_ack(t0, 2 * MTU);
        e.on_ack(t0 + ms(20), 2 * MTU);
        assert_eq!(e.estimate().unwrap().bits_per_second(), 960_000);
        let mut t = t0 + ms(20);
        // The error shrinks by 0.9 per sample: 0.9^k x 90% < 5% needs k >= 28.
        for k in 1..=40 {
            t += ms(2);
            e.on_ack(t, 2 * MTU);
            let got = e.estimate().unwrap().bits_per_second();
            let err = (got as f64 - rate as f64).abs() / rate as f64;
            if k >= 28 {
                assert!(
                    err < 0.05,
                    "sample {k}: {got} b/s is {:.1}% off",
                    err * 100.0
                );
            }
        }
        assert_eq!(e.last_sample().unwrap().bits_per_second(), rate);
    }

    #[test]
    fn per_packet_calls_with_zero_intervals_still_converge() {
        // quinn calls on_ack once per packet, every packet of a frame at the same instant: 4
        // packets per frame, one frame every 4 ms = 4800 B / 4 ms = 9.6 Mb/s. Only the first
        // packet of each frame closes an interval; the other three are carried into the next.
        let mut e = WestwoodEstimator::new(0.5);
        let t0 = Instant::now();
        let mut t = t0;
        for _ in 0..50 {
            t += ms(4);
            for _ in 0..4 {
                e.on_ack(t, MTU);
            }
        }
        // Steady state: each sample = (3 carried + 1) x 1200 B / 4 ms.
        assert_eq!(e.last_sample().unwrap().bits_per_second(), 9_600_000);
        let got = e.estimate().unwrap().bits_per_second();
        assert!(got.abs_diff(9_600_000) < 96_000, "{got}");
    }

    #[test]
    fn zero_interval_bursts_do_not_divide_by_zero() {
        let mut e = WestwoodEstimator::default();
        let t0 = Instant::now();
        assert_eq!(
            e.on_ack(t0, MTU),
            None,
            "the first ACK only starts the clock"
        );
        // A burst of 100 ACKs at the same instant: no sample, bytes accumulate.
        for _ in 0..100 {
            assert_eq!(e.on_ack(t0, MTU), None);
        }
        assert_eq!(e.estimate(), None);
        // A clock that runs backwards is a zero interval too.
        assert_eq!(e.on_ack(t0.checked_sub(ms(5)).unwrap_or(t0), MTU), None);
        // 10 ms later: all 101 carried packets + this one over 10 ms.
        // 102 x 1200 B / 10 ms = 12.24 MB/s = 97.92 Mb/s.
        let s = e.on_ack(t0 + ms(10), MTU).unwrap();
        assert_eq!(s.bits_per_second(), 97_920_000);
        // Zero bytes over a real interval is a zero-rate sample, not an error.
        let z = e.on_ack(t0 + ms(20), 0).unwrap();
        assert!(z.is_zero());
        // Saturating bytes do not overflow.
        e.on_ack(t0 + ms(20), u64::MAX);
        e.on_ack(t0 + ms(20), u64::MAX);
        assert_eq!(
            e.on_ack(t0 + ms(20) + Duration::from_nanos(1), 1),
            Some(Bandwidth::MAX)
        );
    }

    #[test]
    fn reset_on_loss_starts_a_new_estimation() {
        let mut e = WestwoodEstimator::default();
        let t0 = Instant::now();
        e.on_ack(t0, MTU);
        e.on_ack(t0 + ms(1), MTU); // 9.6 Mb/s
        e.on_ack(t0 + ms(2), MTU);
        assert_eq!(e.samples(), 2);
        e.reset();
        assert_eq!(e.estimate(), None);
        assert_eq!(e.bdp(ms(100)), None);
        assert_eq!(e.samples(), 0);
        // The timing survives: the next ACK is a sample at once, taken as it is (no blending
        // with the old 9.6 Mb/s). 1200 B / 10 ms = 0.96 Mb/s.
        let s = e.on_ack(t0 + ms(12), MTU).unwrap();
        assert_eq!(e.estimate(), Some(s));
        assert_eq!(s.bits_per_second(), 960_000);
    }

    #[test]
    fn filter_arithmetic_and_bdp() {
        let mut e = WestwoodEstimator::default();
        let t0 = Instant::now();
        e.on_ack(t0, 0);
        e.on_ack(t0 + ms(10), 12_500); // 10 Mb/s
        e.on_ack(t0 + ms(20), 25_000); // 20 Mb/s
        // SEBW = 0.1 x 20 + 0.9 x 10 = 11 Mb/s.
        assert_eq!(e.estimate().unwrap().bits_per_second(), 11_000_000);
        // BDP over 100 ms: 11 Mb/s x 0.1 s / 8 = 137,500 bytes.
        assert_eq!(e.bdp(ms(100)), Some(137_500));
    }

    #[test]
    fn gain_is_validated_by_configs_and_clamped_here() {
        assert_eq!(crate::Range::FilterGain.check("g", 0.9), Ok(0.9));
        assert_eq!(crate::Range::FilterGain.check("g", 0.0), Ok(0.0));
        for bad in [1.0, -0.1, f64::NAN, f64::INFINITY] {
            assert_eq!(
                crate::Range::FilterGain.check("g", bad).unwrap_err().field,
                "g"
            );
        }
        assert_eq!(WestwoodEstimator::new(f64::NAN).gain(), 0.9);
        assert_eq!(WestwoodEstimator::new(-3.0).gain(), 0.0);
        assert!(WestwoodEstimator::new(7.0).gain() < 1.0);
    }
}
