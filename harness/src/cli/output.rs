//! What a command writes: the table, JSON, CSV, plots and qlog, and the checks on output
//! paths.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::args::OutputArgs;
use super::print_stdout;
use crate::error::{HarnessError, Result};
use crate::metrics::RunResult;
use crate::report::{self, ReportMeta};
use crate::run::spec::RunOptions;
use crate::scenario;

/// The path as the file system will resolve it: canonical where it exists, else its parent's
/// canonical path joined with its name (so `out.json` and `./out.json` compare equal).
fn resolved(path: &Path) -> PathBuf {
    if let Ok(canonical) = path.canonicalize() {
        return canonical;
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    match (parent.canonicalize(), path.file_name()) {
        (Ok(dir), Some(name)) => dir.join(name),
        _ => path.to_path_buf(),
    }
}

/// The options that were given, as (flag, path).
pub(super) fn given<'a>(options: &[(&'a str, &'a Option<PathBuf>)]) -> Vec<(&'a str, &'a Path)> {
    options
        .iter()
        .filter_map(|&(flag, path)| path.as_deref().map(|p| (flag, p)))
        .collect()
}

/// What a path names on the file system, compared by [`same_file`]: its resolved path, and
/// the file's device and inode where it exists.
struct FileKey {
    resolved: PathBuf,
    inode: Option<(u64, u64)>,
}

impl FileKey {
    fn of(path: &Path) -> Self {
        Self {
            resolved: resolved(path),
            inode: inode(path),
        }
    }

    /// The same file: one resolved path (`out.json`, `./out.json`, a path through a symlinked
    /// directory), or one device and inode (a symlink to the file, a hard link).
    fn same_file(&self, other: &Self) -> bool {
        self.resolved == other.resolved || (self.inode.is_some() && self.inode == other.inode)
    }
}

/// The device and inode of the file `path` names (through symlinks), where it exists.
#[cfg(unix)]
fn inode(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn inode(_path: &Path) -> Option<(u64, u64)> {
    None
}

/// Refuses outputs that would overwrite each other or an input: two output flags naming one
/// file (`--json x --csv x`), or an output naming an input (the scenario or trace file, a
/// result file being merged, adopted or resumed). Files are compared, not spellings: a symlink
/// or a hard link to an input is that input. Each entry is (flag, path).
pub(super) fn check_distinct(outputs: &[(&str, &Path)], inputs: &[(&str, &Path)]) -> Result<()> {
    let outputs: Vec<(&str, &Path, FileKey)> = outputs
        .iter()
        .map(|&(f, p)| (f, p, FileKey::of(p)))
        .collect();
    let inputs: Vec<(&str, &Path, FileKey)> = inputs
        .iter()
        .map(|&(f, p)| (f, p, FileKey::of(p)))
        .collect();
    for (i, (flag, path, key)) in outputs.iter().enumerate() {
        if let Some((other, _, _)) = outputs[..i].iter().find(|(_, _, k)| k.same_file(key)) {
            return Err(HarnessError::bad_input(format!(
                "{other} and {flag} both name `{}`: one would overwrite the other",
                path.display()
            )));
        }
        if let Some((input_flag, input, _)) = inputs.iter().find(|(_, _, k)| k.same_file(key)) {
            return Err(HarnessError::bad_input(format!(
                "{flag} `{}` is an input ({input_flag} `{}`): writing it would destroy it; choose another path",
                path.display(),
                input.display()
            )));
        }
    }
    Ok(())
}

/// Most worker threads `--jobs` accepts: far above any machine's cores, far below what would
/// exhaust threads or memory (each worker runs a tokio runtime).
const MAX_JOBS: usize = 1024;

/// Checks that `path` can be written before any run starts (creating nothing but the file).
pub(super) fn check_file(path: &Path) -> Result<()> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map(drop)
        .map_err(|e| HarnessError::output(path, e))
}

/// Creates `dir` and checks that files can be created in it.
pub(super) fn check_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| HarnessError::output(dir, e))?;
    let test_file = dir.join(".harness-write-test");
    std::fs::write(&test_file, b"").map_err(|e| HarnessError::output(dir, e))?;
    let _ = std::fs::remove_file(test_file);
    Ok(())
}

impl OutputArgs {
    /// Checks every output before any run starts: the files can be written, none names
    /// another output or one of `inputs` (flag, path), and what `grid` runs can write them.
    pub(super) fn check(
        &self,
        inputs: &[(&str, &Path)],
        grid: &crate::scenario::Grid,
    ) -> Result<()> {
        let outputs = given(&[
            ("--json", &self.json),
            ("--csv", &self.csv),
            ("--markdown", &self.markdown),
            ("--html", &self.html),
        ]);
        check_distinct(&outputs, inputs)?;
        for file in [&self.json, &self.csv, &self.markdown, &self.html]
            .into_iter()
            .flatten()
        {
            check_file(file)?;
        }
        for dir in [&self.plot, &self.qlog].into_iter().flatten() {
            check_dir(dir)?;
        }
        if self.qlog.is_some() && !crate::run::qlog::AVAILABLE {
            return Err(HarnessError::bad_input(
                "--qlog: this harness was built without the `qlog` feature (cargo build -p harness --features qlog)",
            ));
        }
        if self.qlog.is_some() && grid.runs_on(crate::stack::Stack::Noq) {
            return Err(HarnessError::bad_input(
                "--qlog writes quinn's qlog; runs on noq (stack = \"noq\", --stack noq) have none in this harness",
            ));
        }
        if let Some(jobs) = self.jobs
            && !(1..=MAX_JOBS).contains(&jobs)
        {
            return Err(HarnessError::bad_input(format!(
                "--jobs {jobs}: a worker count must be in [1, {MAX_JOBS}]"
            )));
        }
        Ok(())
    }

    pub(super) fn jobs(&self) -> usize {
        self.jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    }

    pub(super) fn options(&self) -> RunOptions {
        RunOptions {
            // cwnd plots need the window traces: for --plot and for --html's plots.
            trace: self.plot.is_some() || self.html.is_some(),
            qlog_dir: self.qlog.clone(),
            // This binary runs each ns-3 run in a process of its own (`ns3-worker`).
            ns3_worker: crate::run::ns3_worker::this_binary(),
        }
    }

    pub(super) fn report(
        &self,
        meta: &ReportMeta,
        runs: &[RunResult],
        grid: Option<&scenario::Grid>,
    ) -> Result<()> {
        let rows = report::summarize(meta, runs);
        if !self.quiet {
            print_stdout(&report::table::render(meta, &rows))?;
        }
        let route_down = |point: &str, seed: u64, until: f64| {
            grid.map_or_else(Vec::new, |grid| route_down(grid, point, seed, until))
        };
        let files = ReportFiles {
            json: self.json.as_deref(),
            csv: self.csv.as_deref(),
            markdown: self.markdown.as_deref(),
            plot: self.plot.as_deref(),
            html: self.html.as_deref(),
        };
        files.write(meta, &rows, runs, &route_down)?;
        Ok(())
    }
}

/// The report files a command was asked for (`--json`, `--csv`, `--markdown`, `--plot`,
/// `--html`): `run`, `sweep` and `merge` write them alike.
pub(super) struct ReportFiles<'a> {
    pub(super) json: Option<&'a Path>,
    pub(super) csv: Option<&'a Path>,
    pub(super) markdown: Option<&'a Path>,
    pub(super) plot: Option<&'a Path>,
    pub(super) html: Option<&'a Path>,
}

impl ReportFiles<'_> {
    /// Writes each file asked for; `route_down` shades the cwnd plots (see [`route_down`]).
    pub(super) fn write(
        &self,
        meta: &ReportMeta,
        rows: &[report::SummaryRow],
        runs: &[RunResult],
        route_down: &dyn Fn(&str, u64, f64) -> report::plot::Spans,
    ) -> Result<()> {
        if let Some(path) = self.json {
            report::json::write(path, meta, rows, runs)?;
        }
        if let Some(path) = self.csv {
            report::csv::write(path, runs)?;
        }
        if let Some(path) = self.markdown {
            report::markdown::write(path, meta, rows)?;
        }
        if let Some(dir) = self.plot {
            let files = report::plot::write_all(dir, meta, rows, runs, route_down)?;
            eprintln!("{} plots written to {}", files.len(), dir.display());
        }
        if let Some(path) = self.html {
            let plots = report::plot::render_all(meta, rows, runs, route_down)?;
            let provenance = report::html::Provenance::current(!meta.backends.is_empty());
            report::html::write(path, meta, rows, runs, &plots, &provenance)?;
            eprintln!("report written to {}", path.display());
        }
        Ok(())
    }
}

/// The spans, in seconds, in which `point`'s route was down in the run seeded `seed`: netsim's
/// path model replayed from the run seed (the same segments the link used). None on ns-3,
/// whose routes are the routing protocol's, or for a path that never goes down.
pub(super) fn route_down(
    grid: &scenario::Grid,
    point: &str,
    seed: u64,
    until: f64,
) -> Vec<(f64, f64)> {
    let Some(scenario) = grid.points.iter().find(|p| p.point == point) else {
        return Vec::new();
    };
    if !scenario.backend.is_netsim() {
        return Vec::new();
    }
    let until = Duration::from_secs_f64(until.max(0.0));
    netsim::path::path_segments(&scenario.link.path, seed, until)
        .map(|segments| {
            segments
                .into_iter()
                .filter(|(_, _, state)| !state.is_up())
                .map(|(from, to, _)| (from.as_secs_f64(), to.as_secs_f64()))
                .collect()
        })
        .unwrap_or_default()
}
