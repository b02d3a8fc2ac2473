//! The resumable JSON-lines result files of `sweep`, read by `merge` and `calibrate`, and
//! written whole by `merge --jsonl`.
//!
//! `sweep --out DIR --shard i/N` appends to `DIR/shard-<i>-of-<N>.jsonl`. The first line is a
//! header (`kind = "header"`: harness version, grid id, shard, the report meta and the ids of
//! every run of the whole grid, so `merge` can tell what is missing); each further line is one
//! finished run (`kind = "run"`), written with a single `write` as soon as the run ends. A
//! restarted sweep reads the file, drops a torn last line (a kill in the middle of a write),
//! and skips every run already there, so nothing is redone or duplicated. A file killed before
//! its header line was complete is started afresh. While a sweep runs, it holds an exclusive
//! `flock` on its file: a second process on the same shard (a batch job re-submitted while the
//! first is still running) is refused with exit 2 instead of appending the same runs again.

use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::batch::integrity;
use crate::batch::provenance::{Provenance, Stale};
use crate::batch::shard::Shard;
use crate::error::{HarnessError, Result};
use crate::metrics::RunResult;
use crate::report::ReportMeta;
use crate::run::spec::RunSpec;
use crate::scenario::Grid;
use crate::scenario::fnv1a;

/// Version of the result-file format: 3 since every line ends with a digest of its content
/// ([`integrity`]); 2 since run ids cover behaviour and headers carry their [`Provenance`].
/// Older files are read only to be re-identified (`sweep --reidentify`).
pub const FORMAT: u32 = 3;
/// The first format whose lines carry digests.
const DIGESTS_SINCE: u32 = 3;

/// The first line of a result file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// Always `"header"`.
    pub kind: String,
    /// Result-file format version.
    pub format: u32,
    /// Harness version that wrote the file.
    pub harness_version: String,
    /// Hash of every run id of the grid, in order.
    pub grid_id: String,
    /// The shard this file holds.
    pub shard: Shard,
    /// The grid's names and orders, for reports.
    pub meta: ReportMeta,
    /// Every run id of the whole grid, in grid order.
    pub run_ids: Vec<String>,
    /// The code that made the runs (absent in format 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Provenance>,
}

impl Header {
    /// Checks the header against itself: the grid id is the hash of the run list, the shard
    /// exists, and the run list is the grid's size. A header edited by hand fails here.
    fn check(&self) -> std::result::Result<(), String> {
        let grid_id = format!("{:016x}", fnv1a(self.run_ids.join(",").as_bytes()));
        if grid_id != self.grid_id {
            return Err(format!(
                "the header's grid_id {} is not the hash of its run_ids ({grid_id}): the header was edited",
                self.grid_id
            ));
        }
        if self.shard.count == 0 || self.shard.index >= self.shard.count {
            return Err(format!("the header's shard {} does not exist", self.shard));
        }
        let m = &self.meta;
        if let Some(provenance) = &self.provenance {
            let known: Vec<String> = provenance
                .controllers
                .iter()
                .map(|c| c.spec.label())
                .collect();
            if let Some(label) = m.controllers.iter().find(|c| !known.contains(c)) {
                return Err(format!(
                    "the header's controller `{label}` has no provenance (it lists {}): the header was edited",
                    known.join(", ")
                ));
            }
        }
        let runs = m.points.len() * m.controllers.len() * m.seeds.len();
        if runs != self.run_ids.len() {
            return Err(format!(
                "the header lists {} run ids for {} points x {} controllers x {} seeds: the header was edited",
                self.run_ids.len(),
                m.points.len(),
                m.controllers.len(),
                m.seeds.len()
            ));
        }
        Ok(())
    }

    /// Checks a run line against the header and its own figures: its id is the grid's run at
    /// its index, in this shard, with that run's point, controller and seed; its goodput is
    /// its bytes over its window, finite, and within the link's physical limit where netsim
    /// computed one; every figure is in its physical range and consistent with the others
    /// ([`integrity::check_physical`]). A line edited by hand (a seed, a label, a goodput)
    /// fails here even without its digest.
    pub fn check_run(&self, run: &RunResult) -> std::result::Result<(), String> {
        let id = &run.run_id;
        if self.run_ids.get(run.index) != Some(id) {
            return Err(format!(
                "run {id} at index {} is not a run of grid {} there (a line from another grid, or an edited line or header)",
                run.index, self.grid_id
            ));
        }
        if run.index % self.shard.count != self.shard.index {
            return Err(format!(
                "run {id} at index {} belongs to another shard ({}/{}), not to this file's {}",
                run.index,
                run.index % self.shard.count,
                self.shard.count,
                self.shard
            ));
        }
        let m = &self.meta;
        let seeds = m.seeds.len();
        let per_point = m.controllers.len() * seeds;
        let expected = (
            &m.points[run.index / per_point],
            &m.controllers[run.index / seeds % m.controllers.len()],
            m.seeds[run.index % seeds],
        );
        if (&run.point, &run.controller, run.seed) != expected {
            return Err(format!(
                "run {id} says point `{}`, controller `{}`, seed {}; the grid's run there is point `{}`, controller `{}`, seed {}: the line was edited",
                run.point, run.controller, run.seed, expected.0, expected.1, expected.2
            ));
        }
        let goodput = run.goodput_bps;
        let from_bytes = if run.window_s > 0.0 {
            run.bytes_delivered as f64 * 8.0 / run.window_s
        } else {
            0.0
        };
        if !goodput.is_finite() || (goodput - from_bytes).abs() > 1e-6 * goodput.max(1.0) {
            return Err(format!(
                "run {id}: goodput {goodput} b/s is not its {} bytes over {} s: the line was edited",
                run.bytes_delivered, run.window_s
            ));
        }
        let capacity = run.link.capacity_bps;
        if capacity > 0.0 && goodput > capacity * (1.0 + 1e-9) {
            return Err(format!(
                "run {id}: goodput {goodput} b/s exceeds the link's physical limit, {capacity} b/s: the line was edited"
            ));
        }
        let on_ns3 = run.backend == crate::scenario::backend::BackendKind::Ns3;
        if on_ns3 && self.meta.backends.is_empty() {
            return Err(format!(
                "run {id} says backend ns3, and no point of the header's grid runs on ns-3: the line was edited"
            ));
        }
        integrity::check_physical(run).map_err(|e| format!("run {id}: {e}: the line was edited"))
    }

    /// The header for `shard` of `grid`.
    pub fn new(grid: &Grid, specs: &[RunSpec], shard: Shard) -> Self {
        let run_ids: Vec<String> = specs.iter().map(|s| s.run_id().to_owned()).collect();
        Self {
            kind: "header".to_owned(),
            format: FORMAT,
            harness_version: crate::VERSION.to_owned(),
            grid_id: format!("{:016x}", fnv1a(run_ids.join(",").as_bytes())),
            shard,
            meta: ReportMeta::of(grid),
            run_ids,
            provenance: Some(Provenance::of(grid)),
        }
    }
}

/// One result line.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunLine {
    /// Always `"run"`.
    pub kind: String,
    /// The result.
    pub result: RunResult,
}

/// A parsed result file.
#[derive(Debug)]
pub struct ResultFile {
    /// The header.
    pub header: Header,
    /// The runs, in file order.
    pub runs: Vec<RunResult>,
    /// Byte length of the complete lines (a torn last line starts here).
    pub complete_len: u64,
    /// True when the file ended with a torn (incomplete) line.
    pub torn: bool,
}

/// Reads a result file; `None` when it does not hold a complete header line yet (empty, or a
/// shard killed while writing its first line). Other malformed content other than a torn last
/// line is bad input.
pub fn read_results_if_started(path: &Path) -> Result<Option<ResultFile>> {
    let text = crate::input_file::read_text(path, crate::input_file::RESULT)?;
    let complete = text.rfind('\n').map_or(0, |i| i + 1);
    let torn = complete < text.len();
    let mut lines = text[..complete].lines().enumerate();
    let bad = |line: usize, e: &dyn std::fmt::Display| {
        HarnessError::bad_input(format!(
            "`{}` line {}: not a harness result line: {e}",
            path.display(),
            line + 1
        ))
    };
    let Some((_, first)) = lines.next() else {
        return Ok(None);
    };
    let header: Header = serde_json::from_str(first).map_err(|e| bad(0, &e))?;
    // From format 3 on, every line (the header's too) must hold its digest.
    let sealed = header.format >= DIGESTS_SINCE;
    let content = |i: usize, line: &str| -> Result<String> {
        if sealed {
            integrity::unseal(line).map_err(|e| {
                HarnessError::bad_input(format!("`{}` line {}: {e}", path.display(), i + 1))
            })
        } else {
            Ok(line.to_owned())
        }
    };
    let header: Header = if sealed {
        serde_json::from_str(&content(0, first)?).map_err(|e| bad(0, &e))?
    } else {
        header
    };
    if header.kind != "header" || !(1..=FORMAT).contains(&header.format) {
        return Err(bad(
            0,
            &format!("expected a header line of format 1 to {FORMAT}"),
        ));
    }
    if header.format == FORMAT && header.provenance.is_none() {
        return Err(bad(
            0,
            &"the header has no provenance: the header was edited",
        ));
    }
    let edited = |line: usize, e: String| {
        HarnessError::bad_input(format!("`{}` line {}: {e}", path.display(), line + 1))
    };
    header.check().map_err(|e| edited(0, e))?;
    let mut runs = Vec::new();
    for (i, line) in lines {
        let run: RunLine = serde_json::from_str(&content(i, line)?).map_err(|e| bad(i, &e))?;
        header.check_run(&run.result).map_err(|e| edited(i, e))?;
        runs.push(run.result);
    }
    Ok(Some(ResultFile {
        header,
        runs,
        complete_len: complete as u64,
        torn,
    }))
}

/// Why the runs of a file with `header` at `path` are not what this build would produce, as a
/// refusal for `what` (`resume`, `merge`, `--adopt`), or `Ok` when they are.
pub fn check_current(path: &Path, header: &Header, what: &str) -> Result<()> {
    let stale = match &header.provenance {
        Some(provenance) if header.format == FORMAT => provenance.stale(),
        _ => Some(Stale {
            field: "the result-file format".to_owned(),
            stored: header.format.to_string(),
            current: format!(
                "{FORMAT} (re-identify the file with `harness sweep ... --reidentify {}`, which writes it in this format)",
                path.parent().unwrap_or(path).display()
            ),
        }),
    };
    match stale {
        None => Ok(()),
        Some(stale) => Err(HarnessError::bad_input(format!(
            "{what}: the runs in `{}` are stale, not what this build would produce: {stale}. \
             Results of other code are never mixed with this build's: sweep into a new --out \
             directory (or rerun these runs), or use the build that made them",
            path.display()
        ))),
    }
}

/// [`read_results_if_started`], refusing a file whose runs are stale ([`check_current`]).
pub fn read_current(path: &Path, what: &str) -> Result<Option<ResultFile>> {
    let Some(file) = read_results_if_started(path)? else {
        return Ok(None);
    };
    check_current(path, &file.header, what)?;
    Ok(Some(file))
}

/// The result file of `shard` in `dir`.
pub fn shard_path(dir: &Path, shard: Shard) -> PathBuf {
    dir.join(format!("shard-{}-of-{}.jsonl", shard.index, shard.count))
}

/// Whether `name` is a shard's result-file name (`shard-I-of-N.jsonl`), of any shard.
pub fn is_shard_file_name(name: &str) -> bool {
    let Some(shard) = name
        .strip_prefix("shard-")
        .and_then(|rest| rest.strip_suffix(".jsonl"))
    else {
        return false;
    };
    shard.split_once("-of-").is_some_and(|(i, n)| {
        [i, n]
            .iter()
            .all(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// Opens (creating or resuming) the result file for `header` in `dir`; returns the file, ready
/// to append, and the results already in it. The file stays locked (`flock`, exclusive) while
/// the returned handle lives, so a second process on the same shard (a job re-submitted while
/// the first still runs) is refused instead of writing the same runs twice.
pub fn open_results(dir: &Path, header: &Header) -> Result<(File, Vec<RunResult>)> {
    std::fs::create_dir_all(dir).map_err(|e| HarnessError::output(dir, e))?;
    let path = shard_path(dir, header.shard);
    // The shard file is written in --out itself: through a symlink it would land, or append,
    // somewhere else; a FIFO would block.
    let entry = std::fs::symlink_metadata(&path);
    if entry.as_ref().is_ok_and(|m| !m.is_file()) {
        return Err(HarnessError::bad_input(format!(
            "`{}` is a symlink or not a regular file: a sweep writes its result file in --out \
             itself; remove it or use another --out directory",
            path.display()
        )));
    }
    let mut file = OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .open(&path)
        .map_err(|e| HarnessError::output(&path, e))?;
    lock(&file, &path, header.shard)?;
    let Some(existing) = read_results_if_started(&path)? else {
        // New, or killed before its header line was complete: (re)write the header.
        file.set_len(0)
            .map_err(|e| HarnessError::output(&path, e))?;
        file.write_all(
            header_line(header)
                .map_err(|e| HarnessError::output(&path, e))?
                .as_bytes(),
        )
        .map_err(|e| HarnessError::output(&path, e))?;
        return Ok((file, Vec::new()));
    };
    check_resumable(&path, header, &existing)?;
    if existing.torn {
        tracing::warn!(target: "harness", file = %path.display(), "dropping a torn last line (interrupted write)");
        file.set_len(existing.complete_len)
            .map_err(|e| HarnessError::output(&path, e))?;
    }
    // Appends (O_APPEND) go to the end, after the truncation.
    file.seek(SeekFrom::End(0))
        .map_err(|e| HarnessError::output(&path, e))?;
    Ok((file, existing.runs))
}

/// Refuses to resume `existing` (the file at `path`) for `header`: another harness version,
/// stale runs, another grid, or runs that are not this shard's, each once.
fn check_resumable(path: &Path, header: &Header, existing: &ResultFile) -> Result<()> {
    if existing.header.harness_version != header.harness_version {
        return Err(HarnessError::bad_input(format!(
            "`{}` was written by harness {} and this is harness {}: use another --out directory",
            path.display(),
            existing.header.harness_version,
            header.harness_version
        )));
    }
    check_current(path, &existing.header, "resume")?;
    if existing.header.grid_id != header.grid_id {
        return Err(HarnessError::bad_input(format!(
            "`{}` holds results of another grid (`{}`, grid id {}; this grid `{}` is {}): use another --out directory",
            path.display(),
            existing.header.meta.name,
            existing.header.grid_id,
            header.meta.name,
            header.grid_id
        )));
    }
    check_runs(path, header, &existing.runs)
}

/// What resuming `header`'s shard in `dir` would find, without writing or locking anything:
/// `None` when the shard has no result file (or no complete header line) yet, else how many of
/// its runs are done; an error where [`open_results`] would refuse the file.
pub fn resumable_runs(dir: &Path, header: &Header) -> Result<Option<usize>> {
    let path = shard_path(dir, header.shard);
    if !path.exists() {
        return Ok(None);
    }
    let Some(existing) = read_results_if_started(&path)? else {
        return Ok(None);
    };
    check_resumable(&path, header, &existing)?;
    Ok(Some(existing.runs.len()))
}

/// Refuses to resume from a file whose runs are not this shard's runs, each once: a line from
/// another grid or shard, or a run twice (files concatenated or edited by hand), would be
/// counted as done and reported.
pub fn check_runs(path: &Path, header: &Header, runs: &[RunResult]) -> Result<()> {
    let mut seen = std::collections::BTreeMap::new();
    for (line, run) in runs.iter().enumerate() {
        // Line 1 is the header.
        let line = line + 2;
        let position = header.run_ids.iter().position(|id| id == &run.run_id);
        match position {
            Some(k) if header.shard.contains(k) => {}
            Some(k) => {
                return Err(HarnessError::bad_input(format!(
                    "`{}` line {line}: run {} is run {k} of the grid, which belongs to another shard than {}: the file was mixed with another shard's; use another --out directory or remove that line",
                    path.display(),
                    run.run_id,
                    header.shard
                )));
            }
            None => {
                return Err(HarnessError::bad_input(format!(
                    "`{}` line {line}: run {} is not a run of grid `{}`: the file was mixed with another grid's; use another --out directory or remove that line",
                    path.display(),
                    run.run_id,
                    header.meta.name
                )));
            }
        }
        if let Some(first) = seen.insert(run.run_id.as_str(), line) {
            return Err(HarnessError::bad_input(format!(
                "`{}` lines {first} and {line} hold the same run {}: remove one before resuming",
                path.display(),
                run.run_id
            )));
        }
    }
    Ok(())
}

/// Takes an exclusive, non-blocking `flock` on a shard's result file (released when the file
/// is closed, including when the process is killed).
#[cfg(unix)]
fn lock(file: &File, path: &Path, shard: Shard) -> Result<()> {
    use rustix::fs::{FlockOperation, flock};
    match flock(file, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(()),
        Err(e) if e == rustix::io::Errno::WOULDBLOCK => Err(HarnessError::bad_input(format!(
            "`{}` is locked by another harness process running shard {shard} of this directory: \
             wait for it to finish (or stop it) before running the shard again",
            path.display()
        ))),
        // Some shared file systems (Lustre mounted without `flock`, old NFS) have no flock:
        // go on without the guard rather than refuse to run.
        Err(e) => {
            tracing::warn!(target: "harness", file = %path.display(), error = %e, "cannot lock the result file; make sure no other process runs this shard");
            Ok(())
        }
    }
}

/// No advisory lock outside Unix: do not run the same shard twice at once there.
#[cfg(not(unix))]
fn lock(_file: &File, _path: &Path, _shard: Shard) -> Result<()> {
    Ok(())
}

/// The header as its line of a result file, newline included.
fn header_line(header: &Header) -> std::io::Result<String> {
    let json = serde_json::to_string(header).map_err(std::io::Error::other)?;
    Ok(format!("{}\n", integrity::seal(&json)))
}

/// A result as its line of a result file, newline included.
fn run_line(result: &RunResult) -> std::io::Result<String> {
    let line = RunLine {
        kind: "run".to_owned(),
        result: result.clone(),
    };
    let json = serde_json::to_string(&line).map_err(std::io::Error::other)?;
    Ok(format!("{}\n", integrity::seal(&json)))
}

/// Appends one result line with a single write.
pub fn append(file: &mut File, result: &RunResult) -> std::io::Result<()> {
    file.write_all(run_line(result)?.as_bytes())?;
    file.flush()
}

/// Writes a whole result file at `path`: `header`, then every run (what `merge --jsonl` writes,
/// in the format `sweep` appends and `merge` reads).
pub fn write(path: &Path, header: &Header, runs: &[RunResult]) -> Result<()> {
    let mut text = header_line(header).map_err(|e| HarnessError::output(path, e))?;
    for run in runs {
        text.push_str(&run_line(run).map_err(|e| HarnessError::output(path, e))?);
    }
    std::fs::write(path, text).map_err(|e| HarnessError::output(path, e))
}
