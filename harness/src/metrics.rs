//! Per-run and per-flow metrics, and the statistics over seeds that reports print.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::scenario::backend::BackendKind;
use crate::stack::Stack;

/// Congestion events by cc-core loss-signal class (ports only).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignalCounts {
    /// `FastRetransmit` (dup-ACK equivalent >= packet threshold).
    pub fast_retransmit: u64,
    /// `Timeout { dup_acks: 1 }`.
    pub timeout1: u64,
    /// `Timeout { dup_acks: 2 }`.
    pub timeout2: u64,
    /// Other non-zero `Timeout` classes (packet threshold above 3).
    pub timeout_other: u64,
    /// Persistent-congestion events (quinn's flag; under the time-threshold reading, the
    /// `Timeout { dup_acks: 0 }` class).
    pub persistent: u64,
    /// ECN congestion-experienced.
    pub ecn: u64,
    /// Events whose class quinn's callbacks did not determine (a best reading was used).
    pub undetermined: u64,
    /// `Timeout { dup_acks: 0 }` (`None` in results written before the timeout readings, when
    /// it equalled `persistent`).
    #[serde(default)]
    pub timeout0: Option<u64>,
    /// Losses declared by the time threshold (`d` below the packet threshold).
    #[serde(default)]
    pub time_threshold: u64,
    /// Probe timeouts cc-core inferred.
    #[serde(default)]
    pub probe_timeouts: u64,
    /// Losses declared after an inferred probe timeout.
    #[serde(default)]
    pub after_probe_timeout: u64,
    /// noq: passes whose largest lost packet the time threshold declared but whose earliest
    /// reached the packet threshold (read as fast retransmits; cc-core `mixed_passes`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub mixed_passes: u64,
    /// noq: losses the configured thresholds could not have declared (the transport's differ
    /// from the port's; cc-core `threshold_mismatches`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub threshold_mismatches: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl SignalCounts {
    /// From cc-core's statistics.
    pub fn from_stats(stats: &cc_core::SignalStats) -> Self {
        Self {
            fast_retransmit: stats.fast_retransmit,
            timeout1: stats.timeout1,
            timeout2: stats.timeout2,
            timeout_other: stats.timeout_other,
            persistent: stats.persistent,
            ecn: stats.ecn,
            undetermined: stats.undetermined,
            timeout0: Some(stats.timeout0),
            time_threshold: stats.time_threshold,
            probe_timeouts: stats.probe_timeouts,
            after_probe_timeout: stats.after_probe_timeout,
            mixed_passes: stats.mixed_passes,
            threshold_mismatches: stats.threshold_mismatches,
        }
    }

    /// `Timeout { dup_acks: 0 }` events (persistent congestion in results that predate the
    /// timeout readings).
    pub fn timeout0(&self) -> u64 {
        self.timeout0.unwrap_or(self.persistent)
    }

    /// Sum of two counts.
    pub fn plus(&self, other: &Self) -> Self {
        Self {
            fast_retransmit: self.fast_retransmit + other.fast_retransmit,
            timeout1: self.timeout1 + other.timeout1,
            timeout2: self.timeout2 + other.timeout2,
            timeout_other: self.timeout_other + other.timeout_other,
            persistent: self.persistent + other.persistent,
            ecn: self.ecn + other.ecn,
            undetermined: self.undetermined + other.undetermined,
            timeout0: Some(self.timeout0() + other.timeout0()),
            time_threshold: self.time_threshold + other.time_threshold,
            probe_timeouts: self.probe_timeouts + other.probe_timeouts,
            after_probe_timeout: self.after_probe_timeout + other.after_probe_timeout,
            mixed_passes: self.mixed_passes + other.mixed_passes,
            threshold_mismatches: self.threshold_mismatches + other.threshold_mismatches,
        }
    }
}

/// An ns-3 TCP sender's congestion events (its `packets_retransmitted` counts the segments it
/// sent again; `congestion_events` is the sum of these two).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TcpCounters {
    /// Retransmission timeouts (entries into ns-3's `CA_LOSS`).
    pub timeouts: u64,
    /// Fast recoveries (entries into `CA_RECOVERY`).
    pub fast_recoveries: u64,
}

/// One point of a flow's window trajectory (recorded by `crate::run::sampler`).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct WindowPoint {
    /// Seconds since the run's start (link time).
    pub t: f64,
    /// Congestion window, bytes.
    pub cwnd: u64,
    /// Slow-start threshold, bytes (`None` when the controller has none or it is unbounded).
    pub ssthresh: Option<u64>,
}

/// One flow's metrics.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FlowMetrics {
    /// Its controller's label in a mixed run (`[[flow]]`, `--mix`); `None` otherwise (the
    /// run's controller).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub controller: Option<String>,
    /// One-way delay of the flow's own access link in milliseconds (`[[flow]] access_delay`);
    /// `None`: it has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_delay_ms: Option<f64>,
    /// Flow index.
    pub flow: u32,
    /// Link time the flow's connection was established, seconds (`None` if it never was).
    pub connected_s: Option<f64>,
    /// Link time the receiver had the whole stream, seconds (bytes mode; `None` otherwise).
    pub finished_s: Option<f64>,
    /// Application bytes delivered in order and verified.
    pub bytes_delivered: u64,
    /// `bytes_delivered` over the flow's measurement window, bits per second.
    pub goodput_bps: f64,
    /// UDP payload bytes the client sent (retransmissions and QUIC overhead included) over the
    /// window, bits per second.
    pub throughput_bps: f64,
    /// UDP datagrams the client sent.
    pub datagrams_sent: u64,
    /// UDP payload bytes the client sent.
    pub udp_bytes_sent: u64,
    /// Packets the sender sent (quinn `PathStats::sent_packets`, quiche `Stats::sent`).
    pub packets_sent: u64,
    /// Packets the sender declared lost (quinn `PathStats::lost_packets`, quiche
    /// `Stats::lost`); quinn 0.11 has no separate retransmission counter: it re-sends the
    /// retransmittable frames of each lost packet.
    pub packets_lost: u64,
    /// Bytes the sender declared lost.
    pub bytes_lost: u64,
    /// quinn's congestion events (`PathStats::congestion_events`; `None` for a quiche sender,
    /// which does not count them).
    pub congestion_events: Option<u64>,
    /// Packets sent carrying retransmitted data (quiche `Stats::retrans`; `None` for a quinn
    /// sender, which has no such counter).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packets_retransmitted: Option<u64>,
    /// Congestion events by loss-signal class (ports only).
    pub signals: Option<SignalCounts>,
    /// ns-3's TCP senders only: how their congestion events split.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp: Option<TcpCounters>,
    /// Smallest RTT sample, milliseconds: the flow's base RTT, against which its median
    /// shows the queueing delay it saw (`None` without samples).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt_min_ms: Option<f64>,
    /// Median RTT sample, milliseconds (`None` without samples).
    pub rtt_p50_ms: Option<f64>,
    /// 95th-percentile RTT sample, milliseconds.
    pub rtt_p95_ms: Option<f64>,
    /// Number of RTT samples.
    pub rtt_samples: u64,
    /// Seconds with `cwnd < ssthresh` (`None` for controllers without ssthresh: BBR).
    pub slow_start_s: Option<f64>,
    /// Window trajectory, when plots were requested (not written to JSON).
    #[serde(skip)]
    pub window_trace: Vec<WindowPoint>,
}

/// What the link offered during the run (data direction), from netsim's accounting. On the
/// ns-3 backend: `up_fraction` is the share of geometric route samples with a path,
/// `capacity_bps` is 0 (no physical limit is computed), `dropped_queue` counts interface-queue
/// drops and `dropped_breakage` every other ns-3 drop (the full breakdown is in `ns3`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinkSummary {
    /// Seconds accounted.
    pub elapsed_s: f64,
    /// Fraction of that time the path was up.
    pub up_fraction: f64,
    /// The physical limit of the data direction, payload bits per second over the window.
    pub capacity_bps: f64,
    /// Data-direction datagrams dropped by the error models.
    pub dropped_error: u64,
    /// Dropped to route breakage.
    pub dropped_breakage: u64,
    /// Dropped by the full queue.
    pub dropped_queue: u64,
    /// Dropped as larger than the MTU (path MTU discovery packets).
    pub dropped_mtu: u64,
    /// Datagrams offered.
    pub offered: u64,
}

/// One run's result: a scenario point, a controller, a seed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    /// Stable id: hash of the scenario parameters, controller spec and seed.
    pub run_id: String,
    /// Index of the run in grid order.
    pub index: usize,
    /// Grid name.
    pub grid: String,
    /// Scenario point label.
    pub point: String,
    /// Axis name -> value label.
    pub params: BTreeMap<String, String>,
    /// Controller label (name plus settings).
    pub controller: String,
    /// The seed.
    pub seed: u64,
    /// False when the controller's runs cannot be reproduced from the seed (always for runs
    /// involving quiche).
    pub reproducible: bool,
    /// Virtual or real time (real-time runs are not bit-reproducible).
    #[serde(default)]
    pub clock: netsim::Clock,
    /// The packet protection the run used (`null` or `tls`; result files written before it
    /// existed read as `tls`, which is what those runs used).
    #[serde(default)]
    pub packet_protection: netsim::PacketProtection,
    /// The sender's QUIC stack.
    #[serde(default)]
    pub sender: Stack,
    /// The receiver's QUIC stack.
    #[serde(default)]
    pub receiver: Stack,
    /// Measurement window, seconds of link time.
    pub window_s: f64,
    /// Sum of the flows' delivered bytes.
    pub bytes_delivered: u64,
    /// Aggregate goodput, bits per second (delivered bytes over the window).
    pub goodput_bps: f64,
    /// Aggregate throughput (UDP payload sent), bits per second.
    pub throughput_bps: f64,
    /// Goodput over the physical limit netsim accounted (`None` if the path was never up).
    pub utilization: Option<f64>,
    /// Jain's fairness index over the flows' goodputs (1 for one flow).
    pub jain: f64,
    /// Loss-signal classes summed over flows (ports only).
    pub signals: Option<SignalCounts>,
    /// The link's accounting summary.
    pub link: LinkSummary,
    /// Per-flow metrics.
    pub flows: Vec<FlowMetrics>,
    /// The simulator that carried the datagrams (written only when it is not netsim).
    #[serde(default, skip_serializing_if = "is_netsim")]
    pub backend: BackendKind,
    /// What ns-3 did, on that backend: drops by reason, hops, route changes, MAC retries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ns3: Option<netsim_ns3::Ns3Stats>,
    /// On ns-3: the spans `[from, to]` in seconds of link time in which flow 0's pair had no
    /// path of in-range hops (geometric route samples), for the cwnd plot's shading.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub route_down_s: Vec<(f64, f64)>,
}

fn is_netsim(kind: &BackendKind) -> bool {
    *kind == BackendKind::Netsim
}

/// `bytes` over `seconds` in bits per second (0 over an empty window).
pub fn bits_per_second(bytes: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        bytes as f64 * 8.0 / seconds
    } else {
        0.0
    }
}

/// The `q` quantile (0..=1) of `sorted` by nearest rank.
pub fn quantile(sorted: &[u64], q: f64) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

/// Jain's fairness index `(sum x)^2 / (n sum x^2)`; 1 for an empty or all-zero set.
pub fn jain(values: &[f64]) -> f64 {
    let sum: f64 = values.iter().sum();
    let squares: f64 = values.iter().map(|x| x * x).sum();
    if values.is_empty() || squares == 0.0 {
        1.0
    } else {
        sum * sum / (values.len() as f64 * squares)
    }
}

/// Mean and sample standard deviation.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation (0 for one value).
    pub sd: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// Number of values.
    pub n: usize,
}

impl Spread {
    /// Statistics of `values`; `None` if empty.
    pub fn of(values: &[f64]) -> Option<Self> {
        if values.is_empty() {
            return None;
        }
        let n = values.len();
        let mean = values.iter().sum::<f64>() / n as f64;
        let sd = if n > 1 {
            (values.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
        } else {
            0.0
        };
        let min = values.iter().copied().fold(f64::INFINITY, f64::min);
        let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Some(Self {
            mean,
            sd,
            min,
            max,
            n,
        })
    }
}

impl LinkSummary {
    /// A direction's netsim accounting as a summary.
    pub fn from_accounting(data: &netsim::DirectionAccounting) -> Self {
        Self {
            elapsed_s: data.elapsed_seconds,
            up_fraction: if data.elapsed_seconds > 0.0 {
                data.up_seconds / data.elapsed_seconds
            } else {
                0.0
            },
            capacity_bps: if data.elapsed_seconds > 0.0 {
                data.capacity_bytes * 8.0 / data.elapsed_seconds
            } else {
                0.0
            },
            dropped_error: data.dropped.error.datagrams,
            dropped_breakage: data.dropped.breakage.datagrams,
            dropped_queue: data.dropped.queue.datagrams,
            dropped_mtu: data.dropped.mtu.datagrams,
            offered: data.offered.datagrams,
        }
    }
}

impl FlowMetrics {
    /// A flow that never connected: nothing delivered, nothing measured.
    pub fn unconnected(index: u32) -> Self {
        Self {
            controller: None,
            access_delay_ms: None,
            flow: index,
            connected_s: None,
            finished_s: None,
            bytes_delivered: 0,
            goodput_bps: 0.0,
            throughput_bps: 0.0,
            datagrams_sent: 0,
            udp_bytes_sent: 0,
            packets_sent: 0,
            packets_lost: 0,
            bytes_lost: 0,
            congestion_events: None,
            packets_retransmitted: None,
            signals: None,
            tcp: None,
            rtt_min_ms: None,
            rtt_p50_ms: None,
            rtt_p95_ms: None,
            rtt_samples: 0,
            slow_start_s: None,
            window_trace: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_by_nearest_rank() {
        let v: Vec<u64> = (1..=100).collect();
        assert_eq!(quantile(&v, 0.5), Some(50));
        assert_eq!(quantile(&v, 0.95), Some(95));
        assert_eq!(quantile(&[7], 0.95), Some(7));
        assert_eq!(quantile(&[], 0.5), None);
    }

    #[test]
    fn jain_is_one_for_equal_shares_and_one_over_n_for_a_monopoly() {
        assert!((jain(&[5.0, 5.0, 5.0]) - 1.0).abs() < 1e-12);
        // (10)^2 / (4 x 100) = 0.25
        assert!((jain(&[10.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
    }

    #[test]
    fn spread_uses_the_sample_standard_deviation() {
        // mean 5; squared deviations 9 + 1 + 1 + 9 = 20 over n - 1 = 3 -> sd = sqrt(20/3)
        let s = Spread::of(&[2.0, 4.0, 6.0, 8.0]).unwrap();
        assert_eq!(s.mean, 5.0);
        assert!((s.sd - (20.0f64 / 3.0).sqrt()).abs() < 1e-12);
    }
}
