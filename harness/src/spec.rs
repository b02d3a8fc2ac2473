//! What identifies a run: its spec (scenario point, controller, seed), its stable id, and the
//! options that change what it records. A leaf module: running, sweeping, qlog and the worker
//! protocol all read it, and it reads none of them.

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::controllers::ControllerSpec;
use crate::scenario::{Scenario, Transfer};

/// One run of a grid.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunSpec {
    /// Position in grid order.
    pub index: usize,
    /// Grid name.
    pub grid: String,
    /// The scenario point.
    pub scenario: Scenario,
    /// The controller.
    pub controller: ControllerSpec,
    /// The seed.
    pub seed: u64,
}

/// What identifies a run's physics: everything but labels.
#[derive(Serialize)]
struct Identity<'a> {
    link: &'a netsim::LinkConfig,
    transfer: &'a Transfer,
    flows: u32,
    #[serde(with = "crate::units::duration")]
    flow_stagger: Duration,
    transport: &'a crate::scenario::TransportSettings,
    clock: netsim::Clock,
    /// The host stack (absent for quinn, so quinn run ids are unchanged).
    #[serde(skip_serializing_if = "Option::is_none")]
    stack: Option<crate::stack::Stack>,
    #[serde(skip_serializing_if = "Option::is_none")]
    receiver: Option<crate::stack::Stack>,
    controller: &'a ControllerSpec,
    seed: u64,
    /// ns-3's scenario, on that backend (absent on netsim, so netsim run ids are unchanged).
    #[serde(skip_serializing_if = "Option::is_none")]
    ns3: Option<&'a netsim_ns3::Ns3Config>,
}

/// 64-bit FNV-1a.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

impl RunSpec {
    /// The stable run id: a hash of the scenario parameters (not its labels), the controller
    /// spec and the seed, as 16 hex digits.
    pub fn run_id(&self) -> String {
        let s = &self.scenario;
        let identity = Identity {
            link: &s.link,
            transfer: &s.transfer,
            flows: s.flows,
            flow_stagger: s.flow_stagger,
            transport: &s.transport,
            clock: s.clock,
            stack: s.stack.filter(|&stack| stack != crate::stack::Stack::Quinn),
            receiver: s.receiver,
            controller: &self.controller,
            seed: self.seed,
            ns3: s.backend.ns3(),
        };
        let json = serde_json::to_string(&identity).unwrap_or_default();
        format!("{:016x}", fnv1a(json.as_bytes()))
    }
}

/// Options that change what a run records, not what it does.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Record each flow's window trajectory (for plots).
    pub trace: bool,
    /// Write quinn's qlog of each run's client side into this directory.
    pub qlog_dir: Option<PathBuf>,
    /// The harness binary, to run each ns-3 run in a process of its own (ns-3 allows one
    /// simulation per process). `None`: in this process, one ns-3 run at a time.
    pub ns3_worker: Option<PathBuf>,
}
