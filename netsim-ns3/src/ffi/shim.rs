//! The extern declarations of `cpp/shim.h` and their safe wrappers: the crate's only
//! `unsafe` code (see the parent module for why each call is sound).
#![allow(unsafe_code)]

use std::ffi::c_char;

use super::{Ns3Delivery, Ns3Scenario, Ns3Stats, Ns3TcpBulk, Ns3TcpFlowStats, ScenarioStrings};

/// Proof that a simulation is alive (held by [`crate::session::Session`]).
#[derive(Debug)]
pub(crate) struct Live(());

unsafe extern "C" {
    fn ns3_create(scenario: *const Ns3Scenario, err: *mut c_char, err_len: usize) -> i32;
    fn ns3_send(endpoint: u32, at_ns: i64, index: u64, data: *const u8, len: u32);
    fn ns3_native_cbr(endpoint: u32, start_ns: i64, interval_ns: i64, count: u32, len: u32);
    fn ns3_run_until(at_ns: i64);
    fn ns3_pop(out: *mut Ns3Delivery, buf: *mut u8, cap: u32) -> i32;
    fn ns3_stats(out: *mut Ns3Stats);
    fn ns3_route_changes(pair: u32, at_ns: *mut i64, up: *mut u8, cap: u32) -> u32;
    fn ns3_now() -> i64;
    fn ns3_tcp_bulk(bulk: *const Ns3TcpBulk, err: *mut c_char, err_len: usize) -> i32;
    fn ns3_tcp_flow_count() -> u32;
    fn ns3_tcp_flow(flow: u32, out: *mut Ns3TcpFlowStats) -> i32;
    fn ns3_tcp_rtt(flow: u32, out: *mut i64, cap: u32) -> u32;
    fn ns3_destroy();
}

/// Builds the simulation. `scenario`'s pointers are filled in here from `strings`.
pub(crate) fn create(mut scenario: Ns3Scenario, strings: &ScenarioStrings) -> Result<Live, String> {
    scenario.trace_path = strings.trace_path.as_ptr();
    scenario.data_mode = strings.data_mode.as_ptr();
    scenario.control_mode = strings.control_mode.as_ptr();
    scenario.background = strings.background.as_ptr();
    scenario.background_count = u32::try_from(strings.background.len()).unwrap_or(u32::MAX);
    scenario.pairs = strings.pairs.as_ptr();
    scenario.pair_count = u32::try_from(strings.pairs.len()).unwrap_or(u32::MAX);
    let mut err = vec![0u8; 512];
    // SAFETY: `scenario` and every pointer in it (from `strings`, alive for this call) are
    // valid; `err` is writable for its length; the shim NUL-terminates what it writes.
    let status = unsafe { ns3_create(&scenario, err.as_mut_ptr().cast(), err.len()) };
    if status == 0 {
        Ok(Live(()))
    } else {
        let end = err.iter().position(|&b| b == 0).unwrap_or(err.len());
        Err(String::from_utf8_lossy(&err[..end]).into_owned())
    }
}

pub(crate) fn send(_live: &Live, endpoint: u32, at_ns: i64, index: u64, data: &[u8]) {
    let len = u32::try_from(data.len()).unwrap_or(u32::MAX);
    // SAFETY: `data` is valid for `len` bytes (a datagram is far below 4 GiB); the shim copies it.
    unsafe { ns3_send(endpoint, at_ns, index, data.as_ptr(), len) }
}

pub(crate) fn native_cbr(
    _live: &Live,
    endpoint: u32,
    start_ns: i64,
    interval_ns: i64,
    count: u32,
    len: u32,
) {
    // SAFETY: plain values.
    unsafe { ns3_native_cbr(endpoint, start_ns, interval_ns, count, len) }
}

pub(crate) fn run_until(_live: &Live, at_ns: i64) {
    // SAFETY: plain value; the simulation exists (the caller holds the session).
    unsafe { ns3_run_until(at_ns) }
}

/// Pops one delivery into `buf` (grown to fit), or `None`.
pub(crate) fn pop(_live: &Live, buf: &mut Vec<u8>) -> Option<Ns3Delivery> {
    let mut out = Ns3Delivery::default();
    buf.resize(buf.capacity().max(65_536), 0);
    let cap = u32::try_from(buf.len()).unwrap_or(u32::MAX);
    // SAFETY: `out` is a valid Ns3Delivery; `buf` is writable for `cap` bytes.
    let got = unsafe { ns3_pop(&mut out, buf.as_mut_ptr(), cap) };
    if got == 0 {
        return None;
    }
    buf.truncate((out.len as usize).min(buf.len()));
    Some(out)
}

pub(crate) fn stats(_live: &Live) -> Ns3Stats {
    let mut out = Ns3Stats::default();
    // SAFETY: `out` is a valid Ns3Stats the shim overwrites.
    unsafe { ns3_stats(&mut out) };
    out
}

/// `pair`'s route-state changes: (sample time in ns, up).
pub(crate) fn route_changes(_live: &Live, pair: u32) -> Vec<(i64, bool)> {
    // SAFETY: a zero capacity writes nothing; the call only reports the count.
    let count = unsafe { ns3_route_changes(pair, std::ptr::null_mut(), std::ptr::null_mut(), 0) };
    let mut at = vec![0i64; count as usize];
    let mut up = vec![0u8; count as usize];
    // SAFETY: `at` and `up` are writable for `count` entries; no event runs in between, so
    // the shim has at most `count` to copy.
    let copied = unsafe { ns3_route_changes(pair, at.as_mut_ptr(), up.as_mut_ptr(), count) };
    at.truncate(copied.min(count) as usize);
    at.into_iter().zip(up).map(|(t, u)| (t, u != 0)).collect()
}

/// Installs ns-3's TCP flows; `starts` holds every flow's start time, pair-major.
pub(crate) fn tcp_bulk(_live: &Live, mut bulk: Ns3TcpBulk, starts: &[i64]) -> Result<(), String> {
    bulk.start_ns = starts.as_ptr();
    bulk.start_count = u32::try_from(starts.len()).unwrap_or(u32::MAX);
    let mut err = vec![0u8; 512];
    // SAFETY: `bulk` is valid and its `start_ns` points to `start_count` times (`starts`,
    // alive for this call; the shim copies them into its events); `err` is writable for its
    // length and the shim NUL-terminates what it writes.
    let status = unsafe { ns3_tcp_bulk(&bulk, err.as_mut_ptr().cast(), err.len()) };
    if status == 0 {
        Ok(())
    } else {
        let end = err.iter().position(|&b| b == 0).unwrap_or(err.len());
        Err(String::from_utf8_lossy(&err[..end]).into_owned())
    }
}

/// Every TCP flow's statistics and RTT samples (ns), in flow order.
pub(crate) fn tcp_flows(_live: &Live) -> Vec<(Ns3TcpFlowStats, Vec<i64>)> {
    // SAFETY: no arguments.
    let count = unsafe { ns3_tcp_flow_count() };
    let mut flows = Vec::new();
    for flow in 0..count {
        let mut stats = Ns3TcpFlowStats::default();
        // SAFETY: `stats` is a valid Ns3TcpFlowStats the shim overwrites.
        if unsafe { ns3_tcp_flow(flow, &mut stats) } == 0 {
            continue;
        }
        // SAFETY: a zero capacity writes nothing; the call only reports the count.
        let samples = unsafe { ns3_tcp_rtt(flow, std::ptr::null_mut(), 0) };
        let mut rtt = vec![0i64; samples as usize];
        // SAFETY: `rtt` is writable for `samples` entries; no event runs in between.
        let copied = unsafe { ns3_tcp_rtt(flow, rtt.as_mut_ptr(), samples) };
        rtt.truncate(copied.min(samples) as usize);
        flows.push((stats, rtt));
    }
    flows
}

pub(crate) fn now_ns(_live: &Live) -> i64 {
    // SAFETY: no arguments.
    unsafe { ns3_now() }
}

pub(crate) fn destroy(_live: &Live) {
    // SAFETY: no arguments; called once per session, when it ends.
    unsafe { ns3_destroy() }
}
