//! `sweep --reidentify OLD --out NEW`: a result file written under an older run identity,
//! given the ids this build computes, by proof rather than by assumption.
//!
//! The grid is the sweep's own (the command that made OLD, as written beside it). Each run of
//! OLD's shard file must be the grid's run at its index (same point, controller and seed);
//! then `verify` of its reproducible runs, picked by a hash of their old ids, are run again
//! with this build and compared field by field with the file. Only if every one is identical
//! does NEW's shard file get written: the same runs, in the same order, under this build's ids
//! and header. A sample that differs names the run and the first field that differs, and
//! nothing is written: the directory's runs are another code's, and must be rerun.

use std::path::Path;

use crate::batch::provenance::first_difference;
use crate::batch::result_file::{self, Header, read_results_if_started, shard_path};
use crate::batch::shard::Shard;
use crate::batch::sweep::{execute_all, expand};
use crate::error::{HarnessError, Result};
use crate::metrics::RunResult;
use crate::run::spec::RunOptions;
use crate::scenario::{Grid, fnv1a};

/// What a re-identification did.
#[derive(Debug)]
pub struct Reidentified {
    /// The new file's header.
    pub header: Header,
    /// The runs, under their new ids, in the old file's order.
    pub runs: Vec<RunResult>,
    /// The runs rerun and found identical: (old id, new id).
    pub verified: Vec<(String, String)>,
}

/// Re-identifies shard `shard` of `old_dir` into `new_dir` (see the module doc).
pub fn reidentify(
    grid: &Grid,
    old_dir: &Path,
    new_dir: &Path,
    shard: Shard,
    verify: usize,
    jobs: usize,
    options: &RunOptions,
) -> Result<Reidentified> {
    let specs = expand(grid);
    let header = Header::new(grid, &specs, shard);
    let old_path = shard_path(old_dir, shard);
    let new_path = shard_path(new_dir, shard);
    if new_path.exists() {
        return Err(HarnessError::bad_input(format!(
            "--reidentify: `{}` exists; re-identification writes a new file and overwrites none: \
             give an --out directory without this shard's file",
            new_path.display()
        )));
    }
    let old = read_results_if_started(&old_path)?.ok_or_else(|| {
        HarnessError::bad_input(format!(
            "--reidentify: `{}` holds no result file with a header",
            old_path.display()
        ))
    })?;
    if old.torn {
        return Err(HarnessError::bad_input(format!(
            "--reidentify: `{}` ends in a torn line: resume it with the build that made it first",
            old_path.display()
        )));
    }
    let (was, now) = (&old.header.meta, &header.meta);
    for (what, a, b) in [
        ("points", &was.points, &now.points),
        ("controllers", &was.controllers, &now.controllers),
    ] {
        if a != b {
            return Err(mismatch(
                &old_path,
                what,
                &format!("{a:?}"),
                &format!("{b:?}"),
            ));
        }
    }
    if was.seeds != now.seeds || old.header.shard != shard {
        return Err(mismatch(
            &old_path,
            "seeds and shard",
            &format!("{:?} in shard {}", was.seeds, old.header.shard),
            &format!("{:?} in shard {shard}", now.seeds),
        ));
    }
    let mut runs = Vec::with_capacity(old.runs.len());
    for run in &old.runs {
        let spec = &specs[run.index];
        let label = spec.controller.label();
        if (&run.point, &run.controller, run.seed) != (&spec.scenario.point, &label, spec.seed) {
            return Err(mismatch(
                &old_path,
                &format!("run {} at index {}", run.run_id, run.index),
                &format!("{} / {} / seed {}", run.point, run.controller, run.seed),
                &format!("{} / {label} / seed {}", spec.scenario.point, spec.seed),
            ));
        }
        let mut new = run.clone();
        new.run_id = spec.run_id().to_owned();
        runs.push(new);
    }
    let mut candidates: Vec<(usize, &RunResult)> = old
        .runs
        .iter()
        .enumerate()
        .filter(|(_, r)| r.reproducible && r.clock == netsim::Clock::Virtual)
        .collect();
    candidates.sort_by_key(|(_, r)| fnv1a(r.run_id.as_bytes()));
    candidates.truncate(verify);
    let chosen: Vec<_> = candidates
        .iter()
        .map(|(_, r)| specs[r.index].clone())
        .collect();
    let mut reruns: Vec<RunResult> = Vec::new();
    let failures = execute_all(&chosen, jobs, options, |r| {
        reruns.push(r);
        Ok(())
    })?;
    if let Some(failure) = failures.into_iter().next() {
        return Err(failure);
    }
    let mut verified = Vec::new();
    for rerun in &reruns {
        let Some((position, old_run)) = candidates.iter().find(|(_, r)| r.index == rerun.index)
        else {
            continue;
        };
        let stored = serde_json::to_value(&runs[*position]).unwrap_or_default();
        let fresh = serde_json::to_value(rerun).unwrap_or_default();
        if let Some((field, a, b)) = first_difference(&stored, &fresh, "") {
            return Err(HarnessError::bad_input(format!(
                "--reidentify: run {} ({} / {} / seed {}) of `{}` is not what this build \
                 produces: at `{}` the file has {a} and a rerun {b}. Nothing was written; \
                 rerun the directory into a new --out instead",
                old_run.run_id,
                old_run.point,
                old_run.controller,
                old_run.seed,
                old_path.display(),
                field.trim_start_matches('.'),
            )));
        }
        verified.push((old_run.run_id.clone(), rerun.run_id.clone()));
    }
    std::fs::create_dir_all(new_dir).map_err(|e| HarnessError::output(new_dir, e))?;
    result_file::write(&new_path, &header, &runs)?;
    Ok(Reidentified {
        header,
        runs,
        verified,
    })
}

fn mismatch(path: &Path, what: &str, old: &str, new: &str) -> HarnessError {
    HarnessError::bad_input(format!(
        "--reidentify: `{}` is not this grid's: its {what} are {old}, the grid's {new}; give \
         the command that made the directory",
        path.display()
    ))
}
