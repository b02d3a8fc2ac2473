//! TCP Westwood+'s bandwidth estimator: acknowledged bytes counted over an interval of at least
//! one RTT (and at least 50 ms), filtered twice (Mascolo, Grieco et al., "Performance
//! evaluation and comparison of Westwood+, New Reno and Vegas TCP congestion control", 2004;
//! Linux `net/ipv4/tcp_westwood.c`).

use crate::Bandwidth;
use std::time::{Duration, Instant};

/// Estimates the path's bandwidth as TCP Westwood+ does.
///
/// - **Samples**: the bytes acknowledged over an interval that closes at the first
///   acknowledgement more than `max(RTT, 50 ms)` after the interval opened (`RTT` the latest
///   sample, [`on_rtt_sample`](Self::on_rtt_sample)); sample = bytes / interval. Counting over a
///   round trip rather than per acknowledgement is what makes Westwood+ robust to ACK
///   compression (Linux `westwood_update_window`). No interval closes before an RTT sample.
/// - **Filter**: two stages of `new = (7 old + sample) / 8` (Linux `westwood_do_filter`): the
///   first over the samples, the second over the first's output; the first sample fills both.
/// - **Start**: the first acknowledgement opens the first interval; its own bytes arrived over
///   an unknown interval and are not counted.
///
/// The estimate is kept across losses: Westwood+ sets ssthresh from it on every loss.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WestwoodPlusEstimator {
    /// When the current interval opened (Linux `rtt_win_sx`); `None` before the first ACK.
    interval_start: Option<Instant>,
    /// Bytes acknowledged in the current interval (Linux `bk`).
    bytes: u64,
    /// The latest RTT sample (Linux `rtt`).
    latest_rtt: Option<Duration>,
    /// The two filter stages, set together by the first sample: the first (Linux
    /// `bw_ns_est`) and the second, the estimate (Linux `bw_est`).
    filters: Option<(Bandwidth, Bandwidth)>,
    /// Samples taken.
    samples: u64,
}

impl WestwoodPlusEstimator {
    /// Shortest counting interval (Linux `TCP_WESTWOOD_RTT_MIN`, HZ / 20).
    pub const MIN_INTERVAL: Duration = Duration::from_millis(50);

    /// An estimator with no sample yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The latest RTT sample (sets the counting interval's length).
    pub fn on_rtt_sample(&mut self, rtt: Duration) {
        self.latest_rtt = Some(rtt);
    }

    /// One acknowledgement (in QUIC: one ACK frame) arriving at `now`, newly acknowledging
    /// `bytes`. Returns the interval's sample if this acknowledgement closed one.
    pub fn on_ack(&mut self, now: Instant, bytes: u64) -> Option<Bandwidth> {
        let Some(start) = self.interval_start else {
            self.interval_start = Some(now);
            return None;
        };
        self.bytes = self.bytes.saturating_add(bytes);
        let rtt = self.latest_rtt?;
        let elapsed = now.saturating_duration_since(start);
        if elapsed <= rtt.max(Self::MIN_INTERVAL) {
            return None;
        }
        let sample = Bandwidth::from_bytes_over(self.bytes, elapsed)?;
        self.bytes = 0;
        self.interval_start = Some(now);
        self.samples = self.samples.saturating_add(1);
        self.filters = Some(match self.filters {
            Some((first, second)) => {
                let first = low_pass(first, sample);
                (first, low_pass(second, first))
            }
            None => (sample, sample),
        });
        Some(sample)
    }

    /// The estimate (the second filter stage), once an interval has closed.
    pub fn estimate(&self) -> Option<Bandwidth> {
        self.filters.map(|(_, estimate)| estimate)
    }

    /// Samples taken.
    pub fn samples(&self) -> u64 {
        self.samples
    }

    /// Estimated bandwidth-delay product over `rtt`, bytes (Westwood+'s `bw_est x rtt_min`).
    pub fn bdp(&self, rtt: Duration) -> Option<u64> {
        self.estimate().map(|bw| bw.bytes_over(rtt))
    }

    /// A pacing rate of `gain` times the estimate (see
    /// [`crate::WestwoodEstimator::pacing_rate`]).
    pub fn pacing_rate(&self, gain: f64, in_slow_start: bool) -> Option<u64> {
        crate::westwood::pacing_rate(self.estimate(), gain, in_slow_start)
    }
}

/// Linux `westwood_do_filter`: `(7 old + new) / 8`, in whole bits per second.
fn low_pass(old: Bandwidth, new: Bandwidth) -> Bandwidth {
    let bits = (u128::from(old.bits_per_second()) * 7 + u128::from(new.bits_per_second())) / 8;
    Bandwidth::from_bits_per_second(u64::try_from(bits).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn counts_over_an_rtt_and_filters_twice() {
        let mut e = WestwoodPlusEstimator::new();
        let t0 = Instant::now();
        assert_eq!(e.on_ack(t0, 1200), None, "the first ACK opens the interval");
        assert_eq!(e.on_ack(t0 + ms(10), 1200), None, "no RTT sample yet");
        e.on_rtt_sample(ms(100));
        // 1200 B every 10 ms (960 kb/s); the interval closes at the first ACK past 100 ms.
        let mut closed = Vec::new();
        for k in 2..=11 {
            if let Some(sample) = e.on_ack(t0 + ms(10 * k), 1200) {
                closed.push((k, sample));
            }
        }
        // At 110 ms: 11 ACKs' bytes (1..=11, the first excluded) over 110 ms = 960 kb/s.
        assert_eq!(closed, vec![(11, Bandwidth::from_bits_per_second(960_000))]);
        assert_eq!(e.estimate(), Some(Bandwidth::from_bits_per_second(960_000)));
        // A second interval at twice the rate: the first stage moves 1/8 of the way, the
        // second 1/8 of that.
        for k in 1..=11 {
            e.on_ack(t0 + ms(110 + 10 * k), 2400);
        }
        // first = (7 x 960k + 1920k) / 8 = 1080k; estimate = (7 x 960k + 1080k) / 8 = 975k.
        assert_eq!(e.estimate(), Some(Bandwidth::from_bits_per_second(975_000)));
        assert_eq!(e.samples(), 2);
    }

    #[test]
    fn short_rtts_count_over_fifty_milliseconds() {
        let mut e = WestwoodPlusEstimator::new();
        let t0 = Instant::now();
        e.on_rtt_sample(ms(5));
        e.on_ack(t0, 1200);
        let closed: Vec<u64> = (1..=12)
            .filter_map(|k| e.on_ack(t0 + ms(5 * k), 1200).map(|_| k))
            .collect();
        assert_eq!(
            closed,
            vec![11],
            "closes at 55 ms, the first ACK past 50 ms"
        );
    }

    #[test]
    fn converges_to_a_steady_rate_and_never_panics_on_odd_input() {
        let mut e = WestwoodPlusEstimator::new();
        let t0 = Instant::now();
        e.on_rtt_sample(ms(40));
        for k in 0..2000u64 {
            e.on_ack(t0 + ms(k), 1250); // 10 Mb/s
        }
        let got = e.estimate().unwrap().bits_per_second() as f64;
        assert!((got - 10e6).abs() / 10e6 < 0.03, "{got}");
        // A clock that runs backwards, huge byte counts: no panic, no interval closes.
        assert_eq!(e.on_ack(t0, u64::MAX), None);
        let bdp = e.bdp(ms(40)).unwrap() as f64;
        assert!((bdp - 50_000.0).abs() / 50_000.0 < 0.03, "{bdp}");
    }
}
