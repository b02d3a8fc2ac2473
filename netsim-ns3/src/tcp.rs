//! ns-3's own TCP between the pairs of a [`Session`]: the papers' protocol in the same network,
//! beside the QUIC stacks.
//!
//! Each pair gets [`TcpBulk::flows_per_pair`] bulk flows: a `BulkSendApplication` on the
//! source node, each to a `PacketSink` of its own on the sink node. Their segments are tagged
//! and counted as the QUIC endpoints' datagrams are ([`crate::Ns3Stats`]: offered, delivered,
//! drops by reason, hops, route changes, delivery gaps), so the two can be read side by side.
//!
//! What is ns-3's and not QUIC's (ns-3 3.37 defaults, left as they are): SACK and timestamps
//! on, an initial window of 10 segments, delayed ACKs (every second segment or 200 ms), a
//! minimum RTO of 1 s, 128 KiB send and receive buffers, a 20-byte TCP header plus 12 bytes of
//! timestamp option per segment (QUIC: an 8-byte UDP header and about 25-30 bytes of QUIC
//! header and frames per datagram). Recovery is RFC 6582's NewReno (`TcpClassicRecovery`),
//! as QUIC's RFC 9002, not ns-3's default PRR.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::Error;
use crate::ffi::{self, Ns3TcpBulk};
use crate::session::{Session, nanos};

/// ns-3 3.37's TCP congestion controls offered as senders.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TcpVariant {
    /// `ns3::TcpNewReno` (RFC 5681 growth).
    NewReno,
    /// `ns3::TcpCubic` (RFC 8312, with HyStart).
    Cubic,
    /// `ns3::TcpVegas` (Brakmo and Peterson, 1995).
    Vegas,
    /// `ns3::TcpWestwood` with `ProtocolType = Westwood` (Mascolo et al., 2001).
    Westwood,
    /// `ns3::TcpWestwood` with `ProtocolType = WestwoodPlus` (Grieco and Mascolo, 2004).
    WestwoodPlus,
}

impl TcpVariant {
    /// Every variant, in the shim's numbering.
    pub const ALL: [Self; 5] = [
        Self::NewReno,
        Self::Cubic,
        Self::Vegas,
        Self::Westwood,
        Self::WestwoodPlus,
    ];

    /// ns-3's `TypeId` name of the congestion control.
    pub fn ns3_type(self) -> &'static str {
        match self {
            Self::NewReno => "ns3::TcpNewReno",
            Self::Cubic => "ns3::TcpCubic",
            Self::Vegas => "ns3::TcpVegas",
            Self::Westwood | Self::WestwoodPlus => "ns3::TcpWestwood",
        }
    }

    fn code(self) -> u32 {
        match self {
            Self::NewReno => 0,
            Self::Cubic => 1,
            Self::Vegas => 2,
            Self::Westwood => 3,
            Self::WestwoodPlus => 4,
        }
    }
}

/// Largest TCP segment ns-3 is asked to send: an 802.11 frame's 2304-byte MSDU less the IP
/// and TCP headers with options (the papers' frames are far smaller).
pub const MAX_SEGMENT_BYTES: u32 = 2_200;

/// Most flows per pair (each is an application pair in ns-3).
pub const MAX_FLOWS_PER_PAIR: u32 = 64;

/// Bulk TCP flows on every pair of a session.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpBulk {
    /// The congestion control of every sender.
    pub variant: TcpVariant,
    /// `TcpSocket::SegmentSize` in bytes (the payload of a full segment). Range
    /// `[100, MAX_SEGMENT_BYTES]`.
    pub segment_bytes: u32,
    /// Flows on every pair (at least one, at most [`MAX_FLOWS_PER_PAIR`]).
    pub flows_per_pair: u32,
    /// When each flow starts, in ns-3 time: one entry per flow of every pair, pair-major
    /// (flow `pair * flows_per_pair + k`).
    pub starts: Vec<Duration>,
    /// When every sender stops (its last segments may still be in flight).
    pub stop: Duration,
    /// Bytes each flow sends, then it closes; `None`: until `stop`.
    pub max_bytes: Option<u64>,
}

impl TcpBulk {
    fn validate(&self) -> Result<(), Error> {
        let invalid = |field: &str, message: String| {
            Err(Error::Config(netsim::ConfigError::invalid(field, message)))
        };
        if !(100..=MAX_SEGMENT_BYTES).contains(&self.segment_bytes) {
            return invalid(
                "tcp.segment_bytes",
                format!(
                    "{} is out of range: it must be in [100, {MAX_SEGMENT_BYTES}]",
                    self.segment_bytes
                ),
            );
        }
        if self.flows_per_pair == 0 || self.flows_per_pair > MAX_FLOWS_PER_PAIR {
            return invalid(
                "tcp.flows_per_pair",
                format!(
                    "{} is out of range: it must be in [1, {MAX_FLOWS_PER_PAIR}]",
                    self.flows_per_pair
                ),
            );
        }
        if self.starts.iter().any(|start| *start >= self.stop) {
            return invalid(
                "tcp.stop",
                "every flow must start before the senders stop".to_owned(),
            );
        }
        if self.max_bytes == Some(0) {
            return invalid("tcp.max_bytes", "0: it must be at least 1".to_owned());
        }
        Ok(())
    }
}

/// One TCP flow at the end of a run, as its sender and its sink saw it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TcpFlowReport {
    /// The pair it ran on.
    pub pair: u32,
    /// Application bytes the sink received.
    pub rx_bytes: u64,
    /// ns-3 time of the sink's first and last receptions (`None`: none).
    pub first_rx: Option<Duration>,
    /// See `first_rx`.
    pub last_rx: Option<Duration>,
    /// Data segments the sender transmitted, retransmissions included.
    pub segments_sent: u64,
    /// Their payload bytes.
    pub bytes_sent: u64,
    /// Data segments sent again (a sequence number below the highest sent).
    pub retransmissions: u64,
    /// Retransmission timeouts (entries into ns-3's `CA_LOSS`).
    pub timeouts: u64,
    /// Fast recoveries (entries into `CA_RECOVERY`).
    pub fast_recoveries: u64,
    /// ns-3's `RTT` trace of the sender's socket: its RTT as each ACK updated it (the first
    /// 2^20 kept).
    pub rtt: Vec<Duration>,
}

fn at(ns: i64) -> Option<Duration> {
    u64::try_from(ns).ok().map(Duration::from_nanos)
}

impl Session {
    /// Installs `bulk`'s TCP flows on every pair (call before running the session; the QUIC
    /// endpoints' sockets stay unused). `bulk.starts` must hold one start per flow of every
    /// pair ([`crate::Ns3Config::pairs`]); a second call is refused.
    pub fn install_tcp(&mut self, bulk: &TcpBulk) -> Result<(), Error> {
        bulk.validate()?;
        let starts: Vec<i64> = bulk.starts.iter().map(|s| nanos(*s)).collect();
        let raw = Ns3TcpBulk {
            variant: bulk.variant.code(),
            segment_bytes: bulk.segment_bytes,
            flows_per_pair: bulk.flows_per_pair,
            start_count: 0,
            start_ns: std::ptr::null(),
            stop_ns: nanos(bulk.stop),
            max_bytes: bulk.max_bytes.unwrap_or(0),
        };
        ffi::tcp_bulk(&self.live, raw, &starts).map_err(Error::Ns3)
    }

    /// Every TCP flow so far, in flow order (empty without [`Session::install_tcp`]).
    pub fn tcp_flows(&self) -> Vec<TcpFlowReport> {
        ffi::tcp_flows(&self.live)
            .into_iter()
            .map(|(stats, rtt)| TcpFlowReport {
                pair: stats.pair,
                rx_bytes: stats.rx_bytes,
                first_rx: at(stats.first_rx_ns),
                last_rx: at(stats.last_rx_ns),
                segments_sent: stats.segments_sent,
                bytes_sent: stats.bytes_sent,
                retransmissions: stats.retransmissions,
                timeouts: stats.timeouts,
                fast_recoveries: stats.fast_recoveries,
                rtt: rtt.into_iter().filter_map(at).collect(),
            })
            .collect()
    }
}
