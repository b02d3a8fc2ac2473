//! What a command writes: the table, JSON, CSV, plots and qlog.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::args::OutputArgs;
use super::paths::{OutputDir, check_collisions, create_outputs};
use super::print_stdout;
use crate::error::{HarnessError, Result};
use crate::metrics::RunResult;
use crate::report::{self, ReportMeta};
use crate::run::spec::RunOptions;
use crate::scenario;

/// The options that were given, as (flag, path).
pub(super) fn given<'a>(options: &[(&'a str, &'a Option<PathBuf>)]) -> Vec<(&'a str, &'a Path)> {
    options
        .iter()
        .filter_map(|&(flag, path)| path.as_deref().map(|p| (flag, p)))
        .collect()
}

/// Most worker threads `--jobs` accepts: far above any machine's cores, far below what would
/// exhaust threads or memory (each worker runs a tokio runtime).
const MAX_JOBS: usize = 1024;

impl OutputArgs {
    /// Checks every output before any run starts: the files can be written, none collides
    /// with another output, one of `inputs` (flag, path), a result file or a file that one
    /// of `dirs` (besides --plot and --qlog) writes, and what `grid` runs can write them.
    pub(super) fn check(
        &self,
        inputs: &[(&str, &Path)],
        dirs: &[OutputDir<'_>],
        grid: &crate::scenario::Grid,
    ) -> Result<()> {
        let outputs = given(&[
            ("--json", &self.json),
            ("--csv", &self.csv),
            ("--markdown", &self.markdown),
            ("--html", &self.html),
        ]);
        let mut all_dirs: Vec<OutputDir<'_>> = self
            .plot
            .iter()
            .map(|d| OutputDir::plot(d))
            .chain(self.qlog.iter().map(|d| OutputDir::qlog(d)))
            .collect();
        all_dirs.extend_from_slice(dirs);
        check_collisions(&outputs, &all_dirs, inputs)?;
        self.check_jobs()?;
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
        let quinn_sends = grid.controllers.iter().any(|c| {
            grid.points.iter().any(|p| {
                c.info().sender(p.stack.unwrap_or_default()) == Ok(crate::stack::Stack::Quinn)
            })
        });
        if self.qlog.is_some() && !quinn_sends {
            return Err(HarnessError::bad_input(
                "--qlog writes quinn's qlog, and no run of this grid sends with quinn (ns-3's TCP \
                 and quiche have none): it would write nothing; drop it",
            ));
        }
        if self.dry_run {
            // Checked, not created: a dry run writes nothing.
            return Ok(());
        }
        let dirs = given(&[("--plot", &self.plot), ("--qlog", &self.qlog)]);
        create_outputs(&outputs, &dirs)
    }

    fn check_jobs(&self) -> Result<()> {
        match self.jobs {
            Some(jobs) if !(1..=MAX_JOBS).contains(&jobs) => Err(HarnessError::bad_input(format!(
                "--jobs {jobs}: a worker count must be in [1, {MAX_JOBS}]"
            ))),
            _ => Ok(()),
        }
    }

    /// What a dry run prints: the grid's size and where each output would go; `resume` says
    /// what a sweep's --out holds.
    pub(super) fn print_plan(&self, grid: &scenario::Grid, resume: Option<String>) -> Result<()> {
        let runs = grid.points.len() * grid.controllers.len() * grid.seeds.len();
        let mut out = format!(
            "dry run: grid `{}`: {} point(s) x {} controller(s) x {} seed(s) = {runs} runs\n",
            grid.name,
            grid.points.len(),
            grid.controllers.len(),
            grid.seeds.len()
        );
        if let Some(resume) = resume {
            out.push_str(&format!("{resume}\n"));
        }
        for (flag, path) in given(&[
            ("--json", &self.json),
            ("--csv", &self.csv),
            ("--markdown", &self.markdown),
            ("--html", &self.html),
            ("--plot", &self.plot),
            ("--qlog", &self.qlog),
        ]) {
            out.push_str(&format!("would write {flag} {}\n", path.display()));
        }
        out.push_str("nothing was run or written\n");
        print_stdout(&out)
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
            report::json::write(path, meta, rows, runs).map_err(|e| e.for_option("--json"))?;
        }
        if let Some(path) = self.csv {
            report::csv::write(path, runs).map_err(|e| e.for_option("--csv"))?;
        }
        if let Some(path) = self.markdown {
            report::markdown::write(path, meta, rows).map_err(|e| e.for_option("--markdown"))?;
        }
        if let Some(dir) = self.plot {
            let files = report::plot::write_all(dir, meta, rows, runs, route_down)
                .map_err(|e| e.for_option("--plot"))?;
            eprintln!("{} plots written to {}", files.len(), dir.display());
        }
        if let Some(path) = self.html {
            let plots = report::plot::render_all(meta, rows, runs, route_down)?;
            let provenance = report::html::Provenance::current(!meta.backends.is_empty());
            report::html::write(path, meta, rows, runs, &plots, &provenance)
                .map_err(|e| e.for_option("--html"))?;
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
