//! Stand-in for [`crate::ffi`] when the crate is built without its `ns3` feature: no session
//! can be created ([`crate::session::Session::new`] returns [`crate::Error::Unavailable`]),
//! so `Live` has no values and none of these functions can be reached.

use super::{Ns3Delivery, Ns3Scenario, Ns3Stats, Ns3TcpBulk, Ns3TcpFlowStats, ScenarioStrings};

/// A live simulation: impossible without ns-3.
#[derive(Debug)]
pub(crate) enum Live {}

pub(crate) fn send(live: &Live, _endpoint: u32, _at_ns: i64, _index: u64, _data: &[u8]) {
    match *live {}
}

pub(crate) fn native_cbr(
    live: &Live,
    _endpoint: u32,
    _start: i64,
    _interval: i64,
    _count: u32,
    _len: u32,
) {
    match *live {}
}

pub(crate) fn run_until(live: &Live, _at_ns: i64) {
    match *live {}
}

pub(crate) fn pop(live: &Live, _buf: &mut Vec<u8>) -> Option<Ns3Delivery> {
    match *live {}
}

pub(crate) fn stats(live: &Live) -> Ns3Stats {
    match *live {}
}

pub(crate) fn route_changes(live: &Live, _pair: u32) -> Vec<(i64, bool)> {
    match *live {}
}

pub(crate) fn tcp_bulk(live: &Live, _bulk: Ns3TcpBulk, _starts: &[i64]) -> Result<(), String> {
    match *live {}
}

pub(crate) fn tcp_flows(live: &Live) -> Vec<(Ns3TcpFlowStats, Vec<i64>)> {
    match *live {}
}

pub(crate) fn now_ns(live: &Live) -> i64 {
    match *live {}
}

pub(crate) fn destroy(live: &Live) {
    match *live {}
}

pub(crate) fn create(_scenario: Ns3Scenario, _strings: &ScenarioStrings) -> Result<Live, String> {
    Err(crate::Error::Unavailable.to_string())
}
