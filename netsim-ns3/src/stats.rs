//! What ns-3 did with the endpoints' datagrams, and with the network, as ns-3 reports it.

use netsim::{DirectionAccounting, Tally};
use serde::{Deserialize, Serialize};

use crate::ffi;

/// Datagrams of one direction that ns-3 dropped, by the reason its trace sources give.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ns3Drops {
    /// The MAC gave up after its retry limit (`WifiMac/DroppedMpdu`, reached retry limit):
    /// collisions, a neighbour out of reach, a broken link.
    pub mac_retry: u64,
    /// The interface queue in front of the MAC was full or the frame outlived its lifetime in
    /// it (`DroppedMpdu`, failed enqueue or expired lifetime).
    pub mac_queue: u64,
    /// No route: the source's routing table had none (OLSR, DSDV refuse the send) or a
    /// forwarder's had none (`Ipv4L3Protocol/Drop`, no route).
    pub no_route: u64,
    /// The routing protocol's buffer: AODV's queue of packets awaiting a route timed out or
    /// overflowed, or a route error (`Ipv4L3Protocol/Drop`, route error).
    pub routing_buffer: u64,
    /// The IP time-to-live ran out (a routing loop).
    pub ttl: u64,
    /// Anything else: ARP gave up on a neighbour, duplicates, ...
    pub other: u64,
}

impl Ns3Drops {
    /// All drops together.
    pub fn total(&self) -> u64 {
        self.mac_retry
            + self.mac_queue
            + self.no_route
            + self.routing_buffer
            + self.ttl
            + self.other
    }
}

/// One direction's datagrams.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Ns3DirectionStats {
    /// Handed to ns-3 by the sending endpoint.
    pub offered: Tally,
    /// Received by the other endpoint.
    pub delivered: Tally,
    /// Dropped, by reason.
    pub drops: Ns3Drops,
    /// `offered - delivered - drops`: still in flight (in a queue, awaiting a route) when the
    /// snapshot was taken.
    pub in_flight: u64,
    /// Mean hops of the delivered datagrams (1 + forwarders), if any arrived.
    pub mean_hops: Option<f64>,
    /// Delivered datagrams whose forwarding path differed from the previous one's.
    pub route_changes: u64,
    /// The longest time, in seconds, any pair went without a delivery in this direction: from
    /// the link epoch ([`crate::Ns3Config::start`]) to the snapshot, the final gap included.
    /// A stall of tens of seconds on a static chain is AODV's black hole
    /// ([`crate::AodvConfig::gratuitous_reply`]). 0 in results written before it existed.
    #[serde(default)]
    pub max_gap_s: f64,
}

/// A snapshot of one simulation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Ns3Stats {
    /// Endpoint A to endpoint B (the data direction of a client-to-server transfer).
    pub a_to_b: Ns3DirectionStats,
    /// Endpoint B to endpoint A.
    pub b_to_a: Ns3DirectionStats,
    /// Failed data-frame attempts at the MAC, each followed by a retransmission or by a drop
    /// at the retry limit, over all traffic (routing, ARP, background included).
    pub mac_retransmissions: u64,
    /// Data frames the MAC gave up on at its retry limit, over all traffic.
    pub mac_retry_limit_drops: u64,
    /// Background packets sent.
    pub background_sent: u64,
    /// Background packets received.
    pub background_received: u64,
    /// Fraction of the geometric samples in which a path of in-range hops joined the source
    /// and the sink (`None` without samples: log-distance propagation, or sampling off).
    pub route_available: Option<f64>,
    /// Mean shortest-path hops over the samples that had a path.
    pub shortest_hops: Option<f64>,
    /// ns-3 events executed.
    pub events: u64,
    /// ns-3's clock, in seconds.
    pub simulated_s: f64,
}

impl Ns3DirectionStats {
    /// As netsim's accounting of a direction over `elapsed` seconds with the path up for
    /// `up_fraction` of them: interface-queue drops are `queue`, every other ns-3 drop is
    /// `breakage` (byte counts of drops are not traced).
    pub fn accounting(&self, elapsed: f64, up_fraction: f64) -> DirectionAccounting {
        let mut accounting = DirectionAccounting {
            offered: self.offered,
            delivered: self.delivered,
            elapsed_seconds: elapsed,
            up_seconds: up_fraction * elapsed,
            ..DirectionAccounting::default()
        };
        let drops = &self.drops;
        accounting.dropped.queue = Tally {
            datagrams: drops.mac_queue,
            bytes: 0,
        };
        accounting.dropped.breakage = Tally {
            datagrams: drops.total() - drops.mac_queue,
            bytes: 0,
        };
        accounting
    }
}

fn direction(raw: &ffi::Ns3DirectionStats) -> Ns3DirectionStats {
    let drops = Ns3Drops {
        mac_retry: raw.drop_mac_retry,
        mac_queue: raw.drop_mac_queue,
        no_route: raw.drop_no_route,
        routing_buffer: raw.drop_route_error,
        ttl: raw.drop_ttl,
        other: raw.drop_other,
    };
    Ns3DirectionStats {
        offered: Tally {
            datagrams: raw.offered,
            bytes: raw.offered_bytes,
        },
        delivered: Tally {
            datagrams: raw.delivered,
            bytes: raw.delivered_bytes,
        },
        in_flight: raw
            .offered
            .saturating_sub(raw.delivered)
            .saturating_sub(drops.total()),
        drops,
        mean_hops: (raw.hops_samples > 0).then(|| raw.hops_sum as f64 / raw.hops_samples as f64),
        route_changes: raw.route_changes,
        max_gap_s: raw.max_gap_ns.max(0) as f64 * 1e-9,
    }
}

impl Ns3Stats {
    pub(crate) fn from_raw(raw: &ffi::Ns3Stats) -> Self {
        Self {
            a_to_b: direction(&raw.direction[0]),
            b_to_a: direction(&raw.direction[1]),
            mac_retransmissions: raw.mac_tx_data_failed,
            mac_retry_limit_drops: raw.mac_tx_final_data_failed,
            background_sent: raw.background_sent,
            background_received: raw.background_received,
            route_available: (raw.route_samples > 0)
                .then(|| raw.route_samples_up as f64 / raw.route_samples as f64),
            shortest_hops: (raw.route_samples_up > 0)
                .then(|| raw.route_hops_sum as f64 / raw.route_samples_up as f64),
            events: raw.events,
            simulated_s: raw.now_ns as f64 * 1e-9,
        }
    }
}
