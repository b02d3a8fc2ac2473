//! `harness merge`: combines shard result files (in any order) into one report.
//!
//! It rejects files from another harness version or another grid (exit 2), and reports runs
//! that are missing or present more than once (exit 1) rather than producing a partial report,
//! unless `--partial` is given (then it warns, keeps the first copy of a duplicated run, and
//! reports what is there).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::batch::result_file::{Header, read_current};
use crate::batch::shard::Shard;
use crate::error::{HarnessError, Result};
use crate::metrics::RunResult;

/// The merged results.
#[derive(Debug)]
pub struct Merged {
    /// The header of the first file, with the shard set to the whole grid.
    pub header: Header,
    /// Every run, once, in grid order.
    pub runs: Vec<RunResult>,
    /// Shards seen (`i/N`), sorted.
    pub shards: Vec<Shard>,
    /// Run ids of the grid with no result.
    pub missing: Vec<(usize, String)>,
    /// Run ids with more than one result, with their count.
    pub duplicated: Vec<(String, usize)>,
}

/// The `.jsonl` files named by `inputs` (directories are searched, not recursively), sorted.
pub fn collect_files(inputs: &[PathBuf]) -> Result<Vec<PathBuf>> {
    collect(inputs, false)
}

/// [`collect_files`], searching directories recursively (`harness check results`).
pub fn collect_files_recursively(inputs: &[PathBuf]) -> Result<Vec<PathBuf>> {
    collect(inputs, true)
}

/// The `.jsonl` files directly in `dir`, and with `recursive` in its subdirectories, sorted.
fn files_in(dir: &Path, recursive: bool, out: &mut Vec<PathBuf>) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        HarnessError::bad_input(format!("cannot read directory `{}`: {e}", dir.display()))
    })?;
    let mut found: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    found.sort();
    for path in found {
        if path.is_dir() {
            if recursive {
                files_in(&path, recursive, out)?;
            }
        } else if path.extension().is_some_and(|x| x == "jsonl") {
            out.push(path);
        }
    }
    Ok(())
}

fn collect(inputs: &[PathBuf], recursive: bool) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for input in inputs {
        if input.is_dir() {
            files_in(input, recursive, &mut files)?;
        } else if input.is_file() {
            files.push(input.clone());
        } else if input.exists() {
            return Err(HarnessError::bad_input(format!(
                "`{}` is neither a result file (.jsonl) nor a directory of them",
                input.display()
            )));
        } else {
            return Err(HarnessError::bad_input(format!(
                "`{}` does not exist",
                input.display()
            )));
        }
    }
    if files.is_empty() {
        return Err(HarnessError::bad_input(
            "no .jsonl result files found in the inputs",
        ));
    }
    Ok(files)
}

/// Reads and checks every file. `partial` turns missing and duplicated runs into warnings.
pub fn merge(files: &[PathBuf], partial: bool) -> Result<Merged> {
    let mut first: Option<(PathBuf, Header)> = None;
    let mut by_id: BTreeMap<String, Vec<RunResult>> = BTreeMap::new();
    let mut shards = Vec::new();
    for path in files {
        let Some(file) = read_current(path, "merge")? else {
            eprintln!(
                "warning: `{}` has no complete header line (a shard killed as it started?): it holds no runs, skipping it",
                path.display()
            );
            continue;
        };
        if file.torn {
            eprintln!(
                "warning: `{}` ends with a torn line (an interrupted shard?); that line is ignored",
                path.display()
            );
        }
        check_compatible(first.as_ref(), path, &file.header)?;
        if first.is_none() {
            first = Some((path.clone(), file.header.clone()));
        }
        if !shards.contains(&file.header.shard) {
            shards.push(file.header.shard);
        }
        for run in file.runs {
            by_id.entry(run.run_id.clone()).or_default().push(run);
        }
    }
    let Some((_, mut header)) = first else {
        let names: Vec<String> = files.iter().map(|f| format!("`{}`", f.display())).collect();
        return Err(HarnessError::bad_input(format!(
            "no result to merge: {} hold(s) no header line (empty, or cut before the end of its first line)",
            names.join(", ")
        )));
    };
    let expected: BTreeMap<&str, usize> = header
        .run_ids
        .iter()
        .enumerate()
        .map(|(i, id)| (id.as_str(), i))
        .collect();
    if let Some(stray) = by_id.keys().find(|id| !expected.contains_key(id.as_str())) {
        return Err(HarnessError::bad_input(format!(
            "run {stray} is not part of grid `{}` although its file says so: the files are inconsistent",
            header.meta.name
        )));
    }
    let missing: Vec<(usize, String)> = header
        .run_ids
        .iter()
        .enumerate()
        .filter(|(_, id)| !by_id.contains_key(id.as_str()))
        .map(|(i, id)| (i, id.clone()))
        .collect();
    let duplicated: Vec<(String, usize)> = by_id
        .iter()
        .filter(|(_, runs)| runs.len() > 1)
        .map(|(id, runs)| (id.clone(), runs.len()))
        .collect();
    shards.sort_by_key(|s| (s.count, s.index));
    if !missing.is_empty() || !duplicated.is_empty() {
        let message = problems(&header, &shards, &missing, &duplicated);
        if !partial {
            return Err(HarnessError::Incomplete(format!(
                "{message}\nnot merging a partial result; re-run the missing shards (a sweep resumes where it stopped) or pass --partial"
            )));
        }
        eprintln!("warning: {message}");
    }
    let mut runs: Vec<RunResult> = by_id
        .into_values()
        .filter_map(|runs| runs.into_iter().next())
        .collect();
    runs.sort_by_key(|r| r.index);
    header.shard = Shard::ALL;
    Ok(Merged {
        header,
        runs,
        shards,
        missing,
        duplicated,
    })
}

fn check_compatible(first: Option<&(PathBuf, Header)>, path: &Path, header: &Header) -> Result<()> {
    let Some((first_path, first)) = first else {
        return Ok(());
    };
    if header.harness_version != first.harness_version {
        return Err(HarnessError::bad_input(format!(
            "`{}` was written by harness {} but `{}` by harness {}: shards of different harness versions cannot be merged",
            path.display(),
            header.harness_version,
            first_path.display(),
            first.harness_version
        )));
    }
    if header.grid_id != first.grid_id {
        return Err(HarnessError::bad_input(format!(
            "`{}` belongs to grid `{}` (id {}) but `{}` to grid `{}` (id {}): shards of different grids cannot be merged",
            path.display(),
            header.meta.name,
            header.grid_id,
            first_path.display(),
            first.meta.name,
            first.grid_id
        )));
    }
    Ok(())
}

fn problems(
    header: &Header,
    shards: &[Shard],
    missing: &[(usize, String)],
    duplicated: &[(String, usize)],
) -> String {
    let total = header.run_ids.len();
    let seen: Vec<String> = shards.iter().map(Shard::to_string).collect();
    let mut lines = vec![format!(
        "grid `{}`: {total} runs, shards seen: {}",
        header.meta.name,
        seen.join(", ")
    )];
    let mut counts: Vec<usize> = shards.iter().map(|s| s.count).collect();
    counts.dedup();
    if counts.len() > 1 {
        lines.push(format!(
            "the files come from sweeps with different shard counts (N = {}): a re-submission \
             must use the N of the first submission, or its runs are duplicated",
            counts
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if !missing.is_empty() {
        let count = shards.first().map_or(1, |s| s.count);
        let mut missing_shards: Vec<usize> = missing.iter().map(|(i, _)| i % count).collect();
        missing_shards.dedup();
        missing_shards.sort_unstable();
        missing_shards.dedup();
        let examples: Vec<String> = missing
            .iter()
            .take(5)
            .map(|(i, id)| format!("#{i} ({id})"))
            .collect();
        lines.push(format!(
            "{} of {total} runs are missing (e.g. {}); with {count} shards they belong to shard(s) {}",
            missing.len(),
            examples.join(", "),
            missing_shards
                .iter()
                .map(|s| format!("{s}/{count}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if !duplicated.is_empty() {
        let examples: Vec<String> = duplicated
            .iter()
            .take(5)
            .map(|(id, n)| format!("{id} x{n}"))
            .collect();
        lines.push(format!(
            "{} runs appear more than once (e.g. {})",
            duplicated.len(),
            examples.join(", ")
        ));
    }
    lines.join("\n")
}
