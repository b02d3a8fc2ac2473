//! `sweep --adopt`: taking runs of this grid from other result files instead of running them
//! again.
//!
//! A run's id is its identity (the link, transfer, flows, transport, clock, stacks, backend,
//! controller and seed), not its place in a grid, so a run is the same run in any grid that
//! holds it. Growing a sweep by seeds, controllers or points makes another grid (its header
//! lists every run id), which `sweep` refuses to resume in the old directory: `--adopt OLD`
//! lets the new directory start from the old runs. Each adopted run is written to this shard's
//! file like a finished run (one line, one write), with the labels this grid gives it (index,
//! grid name, point, parameters, controller label); its measurements are kept byte for byte.
//! A sweep killed while adopting resumes like any other: what was written is done, the rest is
//! adopted then.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::batch::merge::collect_files;
use crate::batch::result_file::read_current;
use crate::error::{HarnessError, Result};
use crate::metrics::RunResult;
use crate::run::spec::RunSpec;

/// The runs found in the result files named by `inputs` (files, or directories of `.jsonl`
/// files), by run id; the first copy of a run wins. A file written by another harness version
/// is refused, since its runs may differ from what this harness would run.
pub fn runs_in(inputs: &[PathBuf]) -> Result<BTreeMap<String, RunResult>> {
    let mut runs = BTreeMap::new();
    if inputs.is_empty() {
        return Ok(runs);
    }
    for path in collect_files(inputs)? {
        let Some(file) = read_current(&path, "--adopt")? else {
            continue;
        };
        if file.header.harness_version != crate::VERSION {
            return Err(HarnessError::bad_input(format!(
                "--adopt: `{}` was written by harness {} and this is harness {}: its runs cannot be adopted",
                path.display(),
                file.header.harness_version,
                crate::VERSION
            )));
        }
        if file.torn {
            tracing::warn!(target: "harness", file = %path.display(), "--adopt: ignoring a torn last line (interrupted write)");
        }
        for run in file.runs {
            runs.entry(run.run_id.clone()).or_insert(run);
        }
    }
    Ok(runs)
}

/// `found`'s copy of the run `spec`, labelled as this grid labels it; `None` when it has none.
pub fn adopt(found: &BTreeMap<String, RunResult>, spec: &RunSpec) -> Option<RunResult> {
    let mut run = found.get(spec.run_id())?.clone();
    run.index = spec.index;
    run.grid.clone_from(&spec.grid);
    run.point.clone_from(&spec.scenario.point);
    run.params.clone_from(&spec.scenario.params);
    run.controller = spec.controller.label();
    Some(run)
}
