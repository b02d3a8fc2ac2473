//! Round trips and the RTTs measured in them: a round counter driven by packet numbers, the
//! per-round RTT tracker (base RTT and the round's RTT), and TCP Vegas' expected-minus-actual
//! backlog in packets (TCP-UB's `Diff`).

use crate::Bandwidth;
use std::time::Duration;

/// Counts round trips by packet number, as Linux `tcp_vegas.c` does with `beg_snd_nxt`: a
/// round ends when a packet sent after the round began is acknowledged.
///
/// Feed it every sent packet number ([`on_sent`](Self::on_sent), quinn's `on_sent`) and the
/// largest acknowledged number after each ACK frame ([`on_ack_frame`](Self::on_ack_frame),
/// quinn's `on_end_acks`). The first round begins with the first packet sent.
///
/// quinn numbers its Initial, Handshake and Data packets in separate spaces, and reports the
/// largest acknowledged number of the space the frame acknowledged. Numbers are compared as they
/// come, so around the handshake a round may end a few packets early or late; from then on only
/// the Data space is in use. No input makes the counter panic or wrap.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RoundCounter {
    /// Highest packet number sent; read only once `round_end` is set, which the first send
    /// does (0 before it).
    highest_sent: u64,
    /// The current round ends when a packet numbered at least this is acknowledged; `None`
    /// before the first send.
    round_end: Option<u64>,
    /// Rounds completed.
    rounds: u64,
}

impl RoundCounter {
    /// A packet numbered `pn` was sent.
    pub fn on_sent(&mut self, pn: u64) {
        self.highest_sent = self.highest_sent.max(pn);
        if self.round_end.is_none() {
            self.round_end = Some(pn);
        }
    }

    /// An ACK frame was processed, the largest acknowledged number now `largest_acked`. Returns
    /// whether this ended a round; the next round then ends when a packet sent from now on is
    /// acknowledged.
    pub fn on_ack_frame(&mut self, largest_acked: Option<u64>) -> bool {
        let (Some(largest), Some(end)) = (largest_acked, self.round_end) else {
            return false;
        };
        if largest < end {
            return false;
        }
        self.rounds = self.rounds.saturating_add(1);
        // The first packet sent after this point.
        self.round_end = Some(self.highest_sent.saturating_add(1));
        true
    }

    /// Rounds completed so far.
    pub fn rounds(&self) -> u64 {
        self.rounds
    }

    /// The packet number whose acknowledgement ends the current round.
    pub fn round_end(&self) -> Option<u64> {
        self.round_end
    }
}

/// The RTTs one round trip measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoundRtt {
    /// The smallest sample of the round: Vegas' per-round `RTT` (Linux `tcp_vegas.c` takes the
    /// minimum to filter out delayed-ACK noise).
    pub min: Duration,
    /// The mean of the round's samples: Vegas' `Actual` as the original reads it (bytes over
    /// the RTT they took, Brakmo and Peterson 1995, section 3.2), which keeps the spread that
    /// an 802.11 path's retries and backoffs add.
    pub mean: Duration,
    /// Samples taken in the round.
    pub samples: u32,
}

/// Base RTT and per-round RTT for TCP Vegas and TCP-UB.
///
/// - **Base RTT** (TCP-UB pseudo-code: "Let Base RTT is the minimum of all RTTs"): the smallest
///   sample since the connection began.
/// - **Round RTT**: the smallest sample of the current round, handed out and reset by
///   [`end_round`](Self::end_round).
///
/// Samples are per acknowledged packet (`now - sent`). A zero sample (sent and acknowledged at
/// the same instant, which no real path produces) carries no path information and is ignored,
/// so the base RTT is never zero. Samples are kept in nanoseconds, saturating at `u64::MAX`
/// (584 years), because this runs on every acknowledged packet.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RttRounds {
    /// Minimum of all samples, nanoseconds; 0 before the first (a zero sample is ignored).
    base_ns: u64,
    /// Minimum sample of the current round, nanoseconds; 0 until the round's first.
    round_min_ns: u64,
    /// Samples in the current round.
    round_samples: u32,
    /// Sum of the current round's samples, nanoseconds (saturating).
    round_sum_ns: u64,
    /// The latest sample, nanoseconds; 0 before the first.
    latest_ns: u64,
}

/// A kept sample in nanoseconds as a duration: `None` for 0, which marks "no sample".
fn sample(ns: u64) -> Option<Duration> {
    (ns != 0).then(|| Duration::from_nanos(ns))
}

impl RttRounds {
    /// One RTT sample. Returns whether it is at or below the base RTT as it stood before it
    /// (or the first sample): the base was just confirmed or lowered.
    #[inline]
    pub fn on_sample(&mut self, rtt: Duration) -> bool {
        let ns = crate::saturating_ns(rtt);
        if ns == 0 {
            return false;
        }
        self.latest_ns = ns;
        let at_base = self.base_ns == 0 || ns <= self.base_ns;
        if at_base {
            self.base_ns = ns;
        }
        if self.round_min_ns == 0 || ns < self.round_min_ns {
            self.round_min_ns = ns;
        }
        self.round_samples = self.round_samples.saturating_add(1);
        self.round_sum_ns = self.round_sum_ns.saturating_add(ns);
        at_base
    }

    /// Closes the current round: its RTTs, if it had any samples, and a fresh round begins.
    pub fn end_round(&mut self) -> Option<RoundRtt> {
        let samples = std::mem::take(&mut self.round_samples);
        let sum = std::mem::take(&mut self.round_sum_ns);
        let min = sample(std::mem::take(&mut self.round_min_ns))?;
        Some(RoundRtt {
            min,
            mean: Duration::from_nanos(sum / u64::from(samples.max(1))),
            samples,
        })
    }

    /// Forgets the base RTT: the next sample starts a new minimum. For a path that may have
    /// changed (after a timeout, as Linux's Westwood+ resets its minimum RTT on a loss
    /// timeout).
    pub fn reset_base(&mut self) {
        self.base_ns = 0;
    }

    /// The base RTT (minimum of all samples since the start or the last
    /// [`reset_base`](Self::reset_base)).
    pub fn base(&self) -> Option<Duration> {
        sample(self.base_ns)
    }

    /// The latest sample.
    pub fn latest(&self) -> Option<Duration> {
        sample(self.latest_ns)
    }

    /// The current round's smallest sample so far.
    pub fn round_min(&self) -> Option<Duration> {
        sample(self.round_min_ns)
    }
}

/// TCP Vegas' comparison of expected and actual throughput for one round.
///
/// TCP-UB pseudo-code ("TCP-UB Algorithms"): `Expected Rate = CWND / Base RTT`,
/// `Actual Rate = CWND / RTT`, `Diff = (Expected Rate - Actual Rate) BaseRTT`. `Diff` is the
/// data the flow keeps queued in the network (Brakmo and Peterson 1995, section 3.2), here in
/// packets of the current datagram size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VegasBacklog {
    /// `CWND / BaseRTT`.
    pub expected: Bandwidth,
    /// `CWND / RTT`.
    pub actual: Bandwidth,
    /// `(Expected - Actual) x BaseRTT`, packets.
    pub diff_packets: f64,
    /// `Actual x BaseRTT`: the window that would keep nothing queued, bytes (Linux
    /// `tcp_vegas.c`'s `target_cwnd`).
    pub target_bytes: u64,
}

impl VegasBacklog {
    /// The backlog of a flow with window `cwnd` bytes of `mtu`-byte packets whose round RTT is
    /// `rtt` over a path whose base RTT is `base_rtt`.
    ///
    /// `None` if either RTT is zero or `mtu` is zero (the rates are undefined). A round RTT below
    /// the base RTT (a stale round against a newer base) counts as no backlog.
    pub fn new(cwnd: u64, mtu: u64, base_rtt: Duration, rtt: Duration) -> Option<Self> {
        if base_rtt.is_zero() || rtt.is_zero() || mtu == 0 {
            return None;
        }
        let rtt = rtt.max(base_rtt);
        // TCP-UB, "TCP-UB Algorithms": Diff = (Expected - Actual) x BaseRTT
        //   = (CWND / BaseRTT - CWND / RTT) x BaseRTT = CWND x (RTT - BaseRTT) / RTT.
        let queued = (rtt - base_rtt).as_secs_f64() / rtt.as_secs_f64();
        let diff_packets = cwnd as f64 / mtu as f64 * queued;
        // Actual x BaseRTT = CWND x BaseRTT / RTT (u128: cwnd < 2^64, nanos < 2^94 saturate).
        let target = u128::from(cwnd).saturating_mul(base_rtt.as_nanos()) / rtt.as_nanos();
        Some(Self {
            expected: Bandwidth::from_bytes_over(cwnd, base_rtt)?,
            actual: Bandwidth::from_bytes_over(cwnd, rtt)?,
            diff_packets,
            target_bytes: u64::try_from(target).unwrap_or(u64::MAX),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn a_round_ends_when_a_packet_sent_after_it_began_is_acknowledged() {
        let mut r = RoundCounter::default();
        assert!(!r.on_ack_frame(Some(5)), "nothing sent: no round to end");
        // Round 1: packets 0..=9.
        for pn in 0..10 {
            r.on_sent(pn);
        }
        assert_eq!(r.round_end(), Some(0));
        assert!(
            r.on_ack_frame(Some(1)),
            "the first packet of the round is acknowledged"
        );
        assert_eq!(r.rounds(), 1);
        // Round 2 ends with packet 10, the first sent after round 1 ended.
        assert_eq!(r.round_end(), Some(10));
        assert!(!r.on_ack_frame(Some(9)));
        assert!(!r.on_ack_frame(None));
        r.on_sent(10);
        r.on_sent(11);
        assert!(r.on_ack_frame(Some(10)));
        assert_eq!(r.rounds(), 2);
        assert_eq!(r.round_end(), Some(12));
    }

    #[test]
    fn round_counter_survives_absurd_packet_numbers() {
        let mut r = RoundCounter::default();
        r.on_sent(u64::MAX);
        assert!(r.on_ack_frame(Some(u64::MAX)));
        // highest_sent + 1 saturates instead of wrapping to 0.
        assert_eq!(r.round_end(), Some(u64::MAX));
        // A smaller number from another packet-number space does not move the round backwards.
        r.on_sent(3);
        assert_eq!(r.round_end(), Some(u64::MAX));
        assert!(r.on_ack_frame(Some(u64::MAX)));
    }

    #[test]
    fn base_rtt_is_the_minimum_and_rounds_reset() {
        let mut t = RttRounds::default();
        assert_eq!(t.end_round(), None);
        assert!(t.on_sample(ms(120)), "the first sample sets the base");
        assert!(t.on_sample(ms(100)), "a lower sample lowers it");
        assert!(!t.on_sample(ms(110)));
        assert!(!t.on_sample(Duration::ZERO), "ignored");
        assert_eq!(t.base(), Some(ms(100)));
        assert_eq!(t.latest(), Some(ms(110)));
        assert_eq!(
            t.end_round(),
            Some(RoundRtt {
                min: ms(100),
                mean: ms(110),
                samples: 3
            })
        );
        assert_eq!(t.round_min(), None);
        t.on_sample(ms(150));
        assert_eq!(
            t.end_round(),
            Some(RoundRtt {
                min: ms(150),
                mean: ms(150),
                samples: 1
            })
        );
        assert_eq!(t.base(), Some(ms(100)), "the base survives rounds");
        assert!(t.on_sample(ms(100)), "a sample at the base confirms it");
        t.reset_base();
        assert_eq!(t.base(), None);
        assert!(
            t.on_sample(ms(130)),
            "after a reset the next sample is the base"
        );
        assert_eq!(t.base(), Some(ms(130)));
    }

    #[test]
    fn vegas_backlog_in_packets() {
        // cwnd 20 packets of 1000 bytes, BaseRTT 100 ms, RTT 125 ms:
        // Expected = 20000 B / 0.1 s = 200 kB/s = 1.6 Mb/s; Actual = 20000 / 0.125 = 1.28 Mb/s.
        // Diff = (200,000 - 160,000) B/s x 0.1 s = 4000 B = 4 packets = 20 x 25 / 125.
        let v = VegasBacklog::new(20_000, 1000, ms(100), ms(125)).unwrap();
        assert_eq!(v.expected.bits_per_second(), 1_600_000);
        assert_eq!(v.actual.bits_per_second(), 1_280_000);
        assert!((v.diff_packets - 4.0).abs() < 1e-9, "{}", v.diff_packets);
        // Target = 20000 x 100 / 125 = 16000 bytes.
        assert_eq!(v.target_bytes, 16_000);
        // No queueing: RTT = BaseRTT -> Diff 0, target = cwnd.
        let v = VegasBacklog::new(20_000, 1000, ms(100), ms(100)).unwrap();
        assert_eq!(v.diff_packets, 0.0);
        assert_eq!(v.target_bytes, 20_000);
        // A round RTT below the base counts as no backlog.
        assert_eq!(
            VegasBacklog::new(20_000, 1000, ms(100), ms(90))
                .unwrap()
                .diff_packets,
            0.0
        );
    }

    #[test]
    fn vegas_backlog_edges() {
        assert_eq!(
            VegasBacklog::new(20_000, 1000, Duration::ZERO, ms(10)),
            None
        );
        assert_eq!(
            VegasBacklog::new(20_000, 1000, ms(10), Duration::ZERO),
            None
        );
        assert_eq!(VegasBacklog::new(20_000, 0, ms(10), ms(20)), None);
        let v = VegasBacklog::new(u64::MAX, 1, Duration::from_nanos(1), Duration::MAX).unwrap();
        assert!(v.diff_packets.is_finite());
        assert_eq!(v.expected, Bandwidth::MAX);
        assert_eq!(v.target_bytes, 0);
    }
}
