//! What identifies a run: its spec (scenario point, controller, seed), its stable id, and the
//! options that change what it records. A leaf module: running, sweeping, qlog and the worker
//! protocol all read it, and it reads none of them.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::registry::ControllerSpec;
use crate::scenario::Scenario;

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

impl RunSpec {
    /// The stable run id: a hash of the scenario parameters (not its labels), the controller
    /// spec and the seed, as 16 hex digits.
    pub fn run_id(&self) -> String {
        crate::scenario::run_id(&self.scenario, &self.controller, self.seed)
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
