//! `sweep --reidentify OLD --out NEW`: a result file written under an older run identity,
//! given the ids this build computes, by proof rather than by assumption.
//!
//! The grid is the sweep's own (the command that made OLD, as written beside it). Each run of
//! OLD's shard file must be the grid's run at its index (same point, controller and seed);
//! then `verify` reproducible runs of each controller, picked by a hash of their old ids, are
//! run again
//! with this build and compared field by field with the line as the file holds it (a field the
//! line lacks, because the format gained it after the run, is not compared, and the rerun runs
//! under the packet protection the line records; the new file reads a missing field as its
//! default, as every reader of the old file did). NEW's shard file then holds, in the old
//! order and under this build's ids and header, the runs of every controller whose samples
//! were all identical. A controller whose sample differs is another code's: the run and the
//! first field that differs are named, none of its runs is written, and resuming the sweep in
//! NEW runs them again with this build.

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
    /// Why each controller whose sample differed was left out (its runs are to be rerun).
    pub stale: Vec<String>,
    /// Fields the old lines lack, which the comparison passed over.
    pub unrecorded: std::collections::BTreeSet<String>,
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
    // `verify` runs of each controller, so that every controller's code is put to the proof.
    candidates.sort_by_key(|(_, r)| fnv1a(r.run_id.as_bytes()));
    let mut picked: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    candidates.retain(|(_, r)| {
        let count = picked.entry(r.controller.as_str()).or_default();
        *count += 1;
        *count <= verify
    });
    // Each rerun under the packet protection its line records: in virtual time the two are one
    // run (one id), so the proof reruns exactly what the line holds.
    let mut chosen = Vec::new();
    for (_, run) in &candidates {
        let spec = &specs[run.index];
        let mut scenario = spec.scenario.clone();
        scenario.packet_protection = run.packet_protection;
        let rerun = crate::run::spec::RunSpec::new(
            spec.index,
            spec.grid.clone(),
            scenario,
            spec.controller.clone(),
            spec.seed,
        )
        .map_err(HarnessError::bad_input)?;
        if rerun.run_id() != spec.run_id() {
            return Err(HarnessError::bad_input(format!(
                "--reidentify: run {} was made with {} packet protection, which this grid's \
                 run {} does not use: give the command that made the directory",
                run.run_id,
                run.packet_protection.as_str(),
                spec.run_id()
            )));
        }
        chosen.push(rerun);
    }
    let mut reruns: Vec<RunResult> = Vec::new();
    let failures = execute_all(&chosen, jobs, options, |r| {
        reruns.push(r);
        Ok(())
    })?;
    if let Some(failure) = failures.into_iter().next() {
        return Err(failure);
    }
    // The old lines as written, by index, to compare what they hold and only that.
    let text = crate::input_file::read_text(&old_path, crate::input_file::RESULT)?;
    let raw: std::collections::BTreeMap<u64, serde_json::Value> = text
        .lines()
        .skip(1)
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter_map(|mut line| {
            let mut result = line.get_mut("result")?.take();
            let index = result.get("index")?.as_u64()?;
            result["run_id"] = serde_json::Value::Null;
            Some((index, result))
        })
        .collect();
    let mut verified = Vec::new();
    let mut stale: Vec<(String, String)> = Vec::new();
    let mut unrecorded = std::collections::BTreeSet::new();
    for rerun in &reruns {
        let Some((position, old_run)) = candidates.iter().find(|(_, r)| r.index == rerun.index)
        else {
            continue;
        };
        // The line as every reader reads it (defaults filled), less what it never recorded.
        let empty = serde_json::Value::default();
        let line = raw.get(&(rerun.index as u64)).unwrap_or(&empty);
        let mut stored = serde_json::to_value(&runs[*position]).unwrap_or_default();
        let mut fresh = serde_json::to_value(rerun).unwrap_or_default();
        stored["run_id"] = serde_json::Value::Null;
        fresh["run_id"] = serde_json::Value::Null;
        let fresh = recorded(line, &stored, fresh, "", &mut unrecorded);
        if let Some((field, a, b)) = first_difference(&stored, &fresh, "") {
            stale.push((
                old_run.controller.clone(),
                format!(
                    "run {} ({} / {} / seed {}) of `{}` is not what this build produces: at \
                     `{}` the file has {a} and a rerun {b}",
                    old_run.run_id,
                    old_run.point,
                    old_run.controller,
                    old_run.seed,
                    old_path.display(),
                    field.trim_start_matches('.'),
                ),
            ));
            continue;
        }
        verified.push((old_run.run_id.clone(), rerun.run_id.clone()));
    }
    // A controller whose sample differs is another code's: none of its runs is kept.
    let before = runs.len();
    runs.retain(|r| {
        !stale
            .iter()
            .any(|(controller, _)| controller == &r.controller)
    });
    if runs.is_empty() && before > 0 {
        let reasons: Vec<&str> = stale.iter().map(|(_, why)| why.as_str()).collect();
        return Err(HarnessError::bad_input(format!(
            "--reidentify: no run of `{}` is current ({}); nothing was written: rerun the \
             directory into a new --out instead",
            old_path.display(),
            reasons.join("; ")
        )));
    }
    std::fs::create_dir_all(new_dir).map_err(|e| HarnessError::output(new_dir, e))?;
    result_file::write(&new_path, &header, &runs)?;
    Ok(Reidentified {
        header,
        runs,
        verified,
        stale: stale.into_iter().map(|(_, why)| why).collect(),
        unrecorded,
    })
}

/// `fresh` with `stored`'s value (the line read and written again) wherever the old `line`
/// lacks a field (each named in `unrecorded`): a field the format gained after the run, or one
/// the writer left out at its default, so that the comparison reads exactly what the line
/// recorded.
fn recorded(
    line: &serde_json::Value,
    stored: &serde_json::Value,
    fresh: serde_json::Value,
    path: &str,
    unrecorded: &mut std::collections::BTreeSet<String>,
) -> serde_json::Value {
    use serde_json::Value;
    let null = Value::Null;
    match fresh {
        Value::Object(new) => Value::Object(
            new.into_iter()
                .map(|(k, v)| {
                    let at = format!("{path}.{k}");
                    let old = stored.get(&k).unwrap_or(&null);
                    if line.get(&k).is_none() {
                        unrecorded.insert(at.trim_start_matches('.').to_owned());
                        return (k, old.clone());
                    }
                    let v = recorded(line.get(&k).unwrap_or(&null), old, v, &at, unrecorded);
                    (k, v)
                })
                .collect(),
        ),
        Value::Array(new) => Value::Array(
            new.into_iter()
                .enumerate()
                .map(|(i, v)| {
                    let line = line.get(i).unwrap_or(&null);
                    let old = stored.get(i).unwrap_or(&null);
                    recorded(line, old, v, &format!("{path}[]"), unrecorded)
                })
                .collect(),
        ),
        fresh => fresh,
    }
}

fn mismatch(path: &Path, what: &str, old: &str, new: &str) -> HarnessError {
    HarnessError::bad_input(format!(
        "--reidentify: `{}` is not this grid's: its {what} are {old}, the grid's {new}; give \
         the command that made the directory",
        path.display()
    ))
}
