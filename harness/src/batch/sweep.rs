//! Running many runs: the parallel executor (used by `run` and `sweep`), grid expansion, and
//! `sweep` itself: a shard of a grid, resumed from and appended to its result file
//! ([`crate::batch::result_file`]).

use std::collections::BTreeSet;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use crate::batch::result_file::{Header, append, open_results, shard_path};
use crate::batch::shard::Shard;
use crate::error::{HarnessError, Result};
use crate::metrics::RunResult;
use crate::run;
use crate::run::spec::{RunOptions, RunSpec};
use crate::scenario::Grid;

/// Every run of `grid`, in grid order (point, controller, seed).
pub fn expand(grid: &Grid) -> Vec<RunSpec> {
    let mut specs = Vec::new();
    for point in &grid.points {
        for controller in &grid.controllers {
            for &seed in &grid.seeds {
                let index = specs.len();
                // A loaded grid holds every run's id (`scenario::load` computes them).
                let id = grid.run_id(index).unwrap_or_default().to_owned();
                specs.push(RunSpec::identified(
                    index,
                    grid.name.clone(),
                    point.clone(),
                    controller.clone(),
                    seed,
                    id,
                ));
            }
        }
    }
    specs
}

/// Runs `specs` on `jobs` worker threads (each run on its own current-thread runtime), calling
/// `on_result` on the calling thread as runs finish. Shows a progress bar with ETA on stderr
/// when stderr is a terminal. Failed runs do not stop the others; they are returned. An error
/// from `on_result` stops the workers and is returned at once.
pub fn execute_all(
    specs: &[RunSpec],
    jobs: usize,
    options: &RunOptions,
    mut on_result: impl FnMut(RunResult) -> Result<()>,
) -> Result<Vec<HarnessError>> {
    let started = Instant::now();
    let bar = if std::io::stderr().is_terminal() && !specs.is_empty() {
        let bar = indicatif::ProgressBar::new(specs.len() as u64);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {pos}/{len} runs, ETA {eta} {msg}",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar
    } else {
        indicatif::ProgressBar::hidden()
    };
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<(usize, Result<RunResult>)>();
    let mut failures = Vec::new();
    let mut sink_error = None;
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1).min(specs.len().max(1)) {
            let tx = tx.clone();
            let (next, stop) = (&next, &stop);
            scope.spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(spec) = specs.get(i) else {
                        break;
                    };
                    let result = run::execute(spec, options);
                    if tx.send((i, result)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for (i, result) in rx {
            bar.inc(1);
            match result {
                Ok(result) => {
                    bar.set_message(format!(
                        "{} / {}",
                        specs[i].scenario.point,
                        specs[i].controller.label()
                    ));
                    if let Err(e) = on_result(result) {
                        stop.store(true, Ordering::Relaxed);
                        sink_error = Some(e);
                        break;
                    }
                }
                Err(e) => {
                    bar.suspend(|| eprintln!("error: {e}"));
                    failures.push(e);
                }
            }
        }
        stop.store(true, Ordering::Relaxed);
    });
    bar.finish_and_clear();
    if let Some(e) = sink_error {
        return Err(e);
    }
    eprintln!(
        "{} runs in {:.1} s wall time on {} worker(s)",
        specs.len(),
        started.elapsed().as_secs_f64(),
        jobs.max(1)
    );
    Ok(failures)
}

/// Runs the runs of `shard` that `dir` does not hold yet, appending each result as it finishes;
/// returns every result of the shard (old and new) in grid order, and the failures. Runs found
/// in the result files of `adopt` (see [`crate::batch::adopt`]) are written to the file instead of
/// being run.
pub fn sweep(
    grid: &Grid,
    dir: &Path,
    shard: Shard,
    adopt: &[PathBuf],
    jobs: usize,
    options: &RunOptions,
) -> Result<(Header, Vec<RunResult>, Vec<HarnessError>)> {
    let specs = expand(grid);
    let header = Header::new(grid, &specs, shard);
    let found = crate::batch::adopt::runs_in(adopt)?;
    let (mut file, mut results) = open_results(dir, &header)?;
    let path = shard_path(dir, shard);
    let done: BTreeSet<String> = results.iter().map(|r| r.run_id.clone()).collect();
    let already = done.len();
    let mut adopted = 0;
    let mut todo = Vec::new();
    for spec in specs
        .iter()
        .filter(|s| shard.contains(s.index) && !done.contains(s.run_id()))
    {
        match crate::batch::adopt::adopt(&found, spec) {
            Some(run) => {
                append(&mut file, &run).map_err(|e| HarnessError::output(&path, e))?;
                results.push(run);
                adopted += 1;
            }
            None => todo.push(spec.clone()),
        }
    }
    let adopted_note = if adopt.is_empty() {
        String::new()
    } else {
        format!(", {adopted} adopted")
    };
    eprintln!(
        "shard {shard}: {} runs, {already} already done{adopted_note}, {} to run ({})",
        specs.iter().filter(|s| shard.contains(s.index)).count(),
        todo.len(),
        path.display()
    );
    let failures = execute_all(&todo, jobs, options, |result| {
        append(&mut file, &result).map_err(|e| HarnessError::output(&path, e))?;
        results.push(result);
        Ok(())
    })?;
    results.sort_by_key(|r| r.index);
    Ok((header, results, failures))
}
