//! What a transfer reports.

use std::fmt;
use std::time::Duration;

use netsim::{Clock, LinkAccounting};

/// A QUIC implementation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stack {
    /// cloudflare's quiche.
    Quiche,
    /// quinn.
    Quinn,
}

impl Stack {
    /// `quiche` or `quinn`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Quiche => "quiche",
            Self::Quinn => "quinn",
        }
    }
}

impl fmt::Display for Stack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The sender's view of the connection at the end of the run.
///
/// The two stacks count differently; fields one of them lacks are `None` for it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SenderStats {
    /// UDP datagrams the sender put on the link (handshake, acks and retransmissions included).
    pub datagrams_sent: u64,
    /// UDP payload bytes the sender put on the link.
    pub udp_bytes_sent: u64,
    /// QUIC packets sent (quiche `Stats::sent`, quinn `PathStats::sent_packets`).
    pub packets_sent: u64,
    /// Packets declared lost (quiche `Stats::lost`, quinn `PathStats::lost_packets`).
    pub packets_lost: u64,
    /// Bytes declared lost.
    pub bytes_lost: u64,
    /// Packets sent carrying retransmitted data (quiche `Stats::retrans`; quinn 0.11 has no
    /// such counter: it re-sends the frames of each lost packet, so `packets_lost` stands in).
    pub packets_retransmitted: Option<u64>,
    /// Stream bytes retransmitted (quiche `Stats::stream_retrans_bytes`; quinn: none).
    pub stream_bytes_retransmitted: Option<u64>,
    /// Packets declared lost and acknowledged later (quiche `Stats::spurious_lost`; quinn: none).
    pub spurious_losses: Option<u64>,
    /// Congestion events (quinn `PathStats::congestion_events`; quiche: none).
    pub congestion_events: Option<u64>,
    /// Smoothed RTT at the end.
    pub srtt: Option<Duration>,
    /// Minimum RTT seen.
    pub min_rtt: Option<Duration>,
    /// Maximum RTT seen (quiche only).
    pub max_rtt: Option<Duration>,
    /// Median of the smoothed RTT sampled every 10 ms while the sender was busy.
    pub rtt_p50: Option<Duration>,
    /// 95th percentile of those samples.
    pub rtt_p95: Option<Duration>,
    /// Number of those samples.
    pub rtt_samples: u64,
    /// Congestion window at the end, bytes.
    pub cwnd: Option<u64>,
}

impl SenderStats {
    pub(crate) fn set_rtt_samples(&mut self, samples: &[Duration]) {
        let mut sorted = samples.to_vec();
        sorted.sort_unstable();
        self.rtt_samples = sorted.len() as u64;
        self.rtt_p50 = quantile(&sorted, 0.5);
        self.rtt_p95 = quantile(&sorted, 0.95);
    }
}

/// Nearest-rank quantile of sorted samples.
fn quantile(sorted: &[Duration], q: f64) -> Option<Duration> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted
        .get(rank.saturating_sub(1).min(sorted.len() - 1))
        .copied()
}

/// The outcome of one transfer.
#[derive(Clone, Debug)]
pub struct TransferReport {
    /// The sender's stack.
    pub sender: Stack,
    /// The receiver's stack.
    pub receiver: Stack,
    /// The sender's controller: `quiche-reno` / `quiche-cubic` / `quiche-bbr2`, or `quinn`
    /// (the caller knows which factory its `TransportConfig` holds).
    pub sender_controller: String,
    /// Always [`Clock::Real`] when quiche is involved (mark such rows as real-time).
    pub clock: Clock,
    /// The run seed (link impairments, stream content, connection ids; not quiche's or
    /// rustls's TLS randomness).
    pub seed: u64,
    /// Bytes the receiver read in order.
    pub bytes_delivered: u64,
    /// For a byte-count transfer, the count; for a timed one, `None`.
    pub bytes_expected: Option<u64>,
    /// True if every byte read matched what was sent (and, for a byte count, all of it
    /// arrived).
    pub intact: bool,
    /// Stream offset of the first wrong byte, if any.
    pub first_mismatch: Option<u64>,
    /// From the connection attempt until the sender's handshake completed.
    pub connected_after: Option<Duration>,
    /// The measurement window: from the connection attempt until the receiver had the whole
    /// stream (byte count) or the configured duration (timed).
    pub elapsed: Duration,
    /// `bytes_delivered` over `elapsed`, bits per second.
    pub goodput_bps: f64,
    /// UDP payload bytes the sender sent over `elapsed`, bits per second.
    pub throughput_bps: f64,
    /// The sender's statistics.
    pub sender_stats: SenderStats,
    /// The link's accounting at the end (`a_to_b` is the data direction).
    pub accounting: LinkAccounting,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_are_nearest_rank() {
        let ms = |v: u64| Duration::from_millis(v);
        let samples: Vec<Duration> = (1..=20).map(ms).collect();
        // 20 samples: p50 is rank ceil(10) = 10 -> 10 ms; p95 is rank ceil(19) = 19 -> 19 ms.
        assert_eq!(quantile(&samples, 0.5), Some(ms(10)));
        assert_eq!(quantile(&samples, 0.95), Some(ms(19)));
        assert_eq!(quantile(&[ms(7)], 0.95), Some(ms(7)));
        assert_eq!(quantile(&[], 0.5), None);
        let mut stats = SenderStats::default();
        stats.set_rtt_samples(&[ms(30), ms(10), ms(20)]);
        assert_eq!((stats.rtt_p50, stats.rtt_samples), (Some(ms(20)), 3));
    }
}
