//! The one place with `unsafe`: calls into the C++ shim (`cpp/shim.cc`, interface in
//! `cpp/shim.h`), which wraps ns-3 3.37. Every struct here mirrors its C twin field for field
//! (`#[repr(C)]`).
//!
//! Why FFI at all: ns-3 is a C++ library with no Rust bindings; the shim keeps the surface to
//! twelve C functions over plain data. Why these calls are sound:
//! - pointers passed in (scenario, strings, datagram bytes, output structs and buffers) are
//!   valid for the duration of the call and the shim copies what it keeps;
//! - the shim catches C++ exceptions at its boundary (`ns3_create`) and the other calls do not
//!   throw on validated input;
//! - ns-3's simulator is one global object per process, so [`crate::session::Session`] makes
//!   sure one simulation exists at a time (a process-wide token) and that these calls happen
//!   only while it is alive.

#![cfg_attr(not(feature = "ns3"), allow(dead_code))]

use std::ffi::{CString, c_char};

#[cfg(feature = "ns3")]
mod shim;
#[cfg(not(feature = "ns3"))]
mod unavailable;

#[cfg(feature = "ns3")]
pub(crate) use shim::*;
#[cfg(not(feature = "ns3"))]
pub(crate) use unavailable::*;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Ns3Cbr {
    pub from: u32,
    pub to: u32,
    pub rate_bps: f64,
    pub packet_bytes: u32,
    pub start_ns: i64,
    pub stop_ns: i64,
}

#[repr(C)]
#[derive(Debug)]
pub(crate) struct Ns3Scenario {
    pub run: u64,
    pub nodes: u32,
    pub area_x_m: f64,
    pub area_y_m: f64,
    pub topology: u32,
    pub speed_min_mps: f64,
    pub speed_max_mps: f64,
    pub pause_s: f64,
    pub spacing_m: f64,
    pub grid_columns: u32,
    pub trace_path: *const c_char,
    pub standard: u32,
    pub data_mode: *const c_char,
    pub control_mode: *const c_char,
    pub propagation: u32,
    pub range_m: f64,
    pub rts_cts: i32,
    pub short_retry_limit: u32,
    pub long_retry_limit: u32,
    pub queue_packets: u32,
    pub routing: u32,
    pub pair_count: u32,
    pub pairs: *const Ns3Pair,
    pub sample_ns: i64,
    pub background_count: u32,
    pub background: *const Ns3Cbr,
    pub bit_error_rate: f64,
    pub arp_dead_timeout_ns: i64,
    pub arp_pending_packets: u32,
    pub aodv_gratuitous_reply: i32,
    pub epoch_ns: i64,
    pub rate_control: u32,
    pub path_loss_exponent: f64,
    pub reference_distance_m: f64,
    pub reference_loss_db: f64,
    pub nakagami_distance1_m: f64,
    pub nakagami_distance2_m: f64,
    pub nakagami_m0: f64,
    pub nakagami_m1: f64,
    pub nakagami_m2: f64,
    pub mesh_max_packet_failure: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ns3Pair {
    pub source: u32,
    pub sink: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Ns3DirectionStats {
    pub offered: u64,
    pub offered_bytes: u64,
    pub delivered: u64,
    pub delivered_bytes: u64,
    pub drop_mac_retry: u64,
    pub drop_mac_queue: u64,
    pub drop_no_route: u64,
    pub drop_route_error: u64,
    pub drop_ttl: u64,
    pub drop_other: u64,
    pub hops_sum: u64,
    pub hops_samples: u64,
    pub route_changes: u64,
    pub max_gap_ns: i64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Ns3Stats {
    pub direction: [Ns3DirectionStats; 2],
    pub mac_tx_data_failed: u64,
    pub mac_tx_final_data_failed: u64,
    pub background_sent: u64,
    pub background_received: u64,
    pub route_samples: u64,
    pub route_samples_up: u64,
    pub route_hops_sum: u64,
    pub events: u64,
    pub now_ns: i64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Ns3Delivery {
    pub endpoint: u32,
    pub len: u32,
    pub at_ns: i64,
    pub index: u64,
    pub hops: u32,
    pub reserved: u32,
}

#[repr(C)]
#[derive(Debug)]
pub(crate) struct Ns3TcpBulk {
    pub variant: u32,
    pub segment_bytes: u32,
    pub flows_per_pair: u32,
    pub start_count: u32,
    pub start_ns: *const i64,
    pub stop_ns: i64,
    pub max_bytes: u64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Ns3TcpFlowStats {
    pub pair: u32,
    pub reserved: u32,
    pub rx_bytes: u64,
    pub first_rx_ns: i64,
    pub last_rx_ns: i64,
    pub segments_sent: u64,
    pub bytes_sent: u64,
    pub retransmissions: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    pub rtt_samples: u64,
}

/// The strings and flows a scenario points to, kept alive across `create`.
pub(crate) struct ScenarioStrings {
    pub trace_path: CString,
    pub data_mode: CString,
    pub control_mode: CString,
    pub background: Vec<Ns3Cbr>,
    pub pairs: Vec<Ns3Pair>,
}
