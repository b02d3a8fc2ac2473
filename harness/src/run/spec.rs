//! What identifies a run: its spec (scenario point, controller, seed), its stable id, and the
//! options that change what it records. A leaf module: running, sweeping, qlog and the worker
//! protocol all read it, and it reads none of them.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::registry::ResolvedController;
use crate::scenario::Scenario;

/// One run of a grid.
///
/// Built by [`RunSpec::new`], which computes its id, or from a loaded grid, which computed it
/// when it checked its runs (`batch::sweep::expand`); the fields are public to read (a
/// changed field would leave the id stale: build a new spec instead). It travels to an ns-3
/// worker without its id, and the worker computes it again from the fields (`from`), so that a
/// spec that changed on the way does not run under the id it was sent with.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(try_from = "SpecFields")]
pub struct RunSpec {
    /// Position in grid order.
    pub index: usize,
    /// Grid name.
    pub grid: String,
    /// The scenario point.
    pub scenario: Scenario,
    /// The controller, resolved (its spec as written, its entry and identity).
    pub controller: ResolvedController,
    /// The seed.
    pub seed: u64,
    #[serde(skip_serializing)]
    run_id: String,
}

impl RunSpec {
    /// The run of `controller` with `seed` on the point `scenario`, at `index` of the grid
    /// named `grid`.
    pub fn new(
        index: usize,
        grid: String,
        scenario: Scenario,
        controller: ResolvedController,
        seed: u64,
    ) -> Result<Self, String> {
        let run_id = crate::scenario::run_id(&scenario, &controller, seed)?;
        Ok(Self::identified(
            index, grid, scenario, controller, seed, run_id,
        ))
    }

    /// The run with the id its grid computed at load ([`crate::scenario::Grid::run_id`]), so
    /// that a run's id is hashed once in the process that loads the grid.
    pub(crate) fn identified(
        index: usize,
        grid: String,
        scenario: Scenario,
        controller: ResolvedController,
        seed: u64,
        run_id: String,
    ) -> Self {
        Self {
            index,
            grid,
            scenario,
            controller,
            seed,
            run_id,
        }
    }

    /// The stable run id: a hash of everything that can change the run's bytes, as 16 hex
    /// digits ([`crate::scenario::run_id`]).
    pub fn run_id(&self) -> &str {
        &self.run_id
    }
}

/// A [`RunSpec`]'s fields as serialized: everything but the id.
#[derive(Deserialize)]
struct SpecFields {
    index: usize,
    grid: String,
    scenario: Scenario,
    controller: ResolvedController,
    seed: u64,
}

impl TryFrom<SpecFields> for RunSpec {
    type Error = String;

    fn try_from(f: SpecFields) -> Result<Self, String> {
        Self::new(f.index, f.grid, f.scenario, f.controller, f.seed)
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
