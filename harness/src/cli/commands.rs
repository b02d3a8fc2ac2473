//! Each command's body.

use std::path::{Path, PathBuf};

use super::args::{CalibrateArgs, MergeArgs, PresetsArgs, RunArgs, SweepArgs};
use super::output::{ReportFiles, given};
use super::paths::{OutputDir, check_collisions, create_outputs};
use super::{failed, print_stdout};
use crate::batch::sweep;
use crate::error::{HarnessError, Result};
use crate::report::{self, ReportMeta};
use crate::scenario;
use crate::{presets, registry};

pub(super) fn run(args: &RunArgs) -> Result<()> {
    let grid = args.scenario.grid()?;
    args.output
        .check(&borrowed(&args.scenario.input_files(&grid)), &[], &grid)?;
    if args.output.dry_run {
        return args.output.print_plan(&grid, None);
    }
    let specs = sweep::expand(&grid);
    let mut results = Vec::with_capacity(specs.len());
    let failures = sweep::execute_all(&specs, args.output.jobs(), &args.output.options(), |r| {
        results.push(r);
        Ok(())
    })?;
    results.sort_by_key(|r| r.index);
    args.output
        .report(&ReportMeta::of(&grid), &results, Some(&grid))?;
    failed(failures)
}

/// `(flag, path)` pairs borrowed from owned ones.
fn borrowed<'a>(files: &'a [(&'static str, PathBuf)]) -> Vec<(&'static str, &'a Path)> {
    files.iter().map(|(f, p)| (*f, p.as_path())).collect()
}

pub(super) fn sweep_command(args: &SweepArgs) -> Result<()> {
    let grid = args.scenario.grid()?;
    // The sweep reads and appends its shard file in --out, and reads every adopted file.
    let shard_file = crate::batch::result_file::shard_path(&args.out, args.shard);
    let adopted = if args.adopt.is_empty() {
        Vec::new()
    } else {
        crate::batch::merge::collect_files(&args.adopt)?
    };
    let files = args.scenario.input_files(&grid);
    let mut inputs = borrowed(&files);
    inputs.push(("the sweep's result file in --out", shard_file.as_path()));
    inputs.extend(adopted.iter().map(|f| ("--adopt", f.as_path())));
    if let Some(old) = &args.reidentify {
        inputs.push(("--reidentify", old.as_path()));
        args.output
            .check(&inputs, &[OutputDir::sweep_out(&args.out)], &grid)?;
        if args.output.dry_run {
            return Err(HarnessError::bad_input(
                "--dry-run: a re-identification reruns --verify runs of the old file; run it \
                 with --verify 0 into a scratch --out to see what it would write",
            ));
        }
        let done = crate::batch::reidentify::reidentify(
            &grid,
            old,
            &args.out,
            args.shard,
            usize::from(args.verify),
            args.output.jobs(),
            &args.output.options(),
        )?;
        eprintln!(
            "re-identified {} runs of `{}` into `{}`; {} rerun and identical: {}{}",
            done.runs.len(),
            old.display(),
            args.out.display(),
            done.verified.len(),
            done.verified
                .iter()
                .map(|(old, new)| format!("{old} -> {new}"))
                .collect::<Vec<_>>()
                .join(", "),
            if done.unrecorded.is_empty() {
                String::new()
            } else {
                format!(
                    " (fields the old lines do not hold, not compared: {})",
                    done.unrecorded
                        .iter()
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        );
        for why in &done.stale {
            eprintln!(
                "warning: {why}: its controller's runs were left out; resume the sweep in `{}` \
                 to run them with this build",
                args.out.display()
            );
        }
        return args
            .output
            .report(&done.header.meta, &done.runs, Some(&grid));
    }
    args.output
        .check(&inputs, &[OutputDir::sweep_out(&args.out)], &grid)?;
    if args.output.dry_run {
        return dry_run_sweep(args, &grid, !adopted.is_empty());
    }
    let (header, results, failures) = sweep::sweep(
        &grid,
        &args.out,
        args.shard,
        &args.adopt,
        args.output.jobs(),
        &args.output.options(),
    )?;
    args.output.report(&header.meta, &results, Some(&grid))?;
    failed(failures)
}

/// `sweep --dry-run`: what the sweep would run, what --out holds, what --adopt offers.
fn dry_run_sweep(args: &SweepArgs, grid: &scenario::Grid, adopting: bool) -> Result<()> {
    use crate::batch::{adopt, result_file};
    let specs = sweep::expand(grid);
    let header = result_file::Header::new(grid, &specs, args.shard);
    let shard: Vec<_> = specs
        .iter()
        .filter(|s| args.shard.contains(s.index))
        .collect();
    let adoptable = if adopting {
        let found = adopt::runs_in(&args.adopt)?;
        let n = shard
            .iter()
            .filter(|s| adopt::adopt(&found, s).is_some())
            .count();
        format!("; {n} of them can be adopted from --adopt")
    } else {
        String::new()
    };
    let (out, total) = (args.out.display(), shard.len());
    let resume = match result_file::resumable_runs(&args.out, &header)? {
        None => format!(
            "--out {out}: shard {} has no result file yet: {total} runs to run{adoptable}",
            args.shard
        ),
        Some(done) => format!(
            "--out {out}: shard {} resumes its result file: {done} of its {total} runs done, {} \
             to run{adoptable}",
            args.shard,
            total.saturating_sub(done)
        ),
    };
    args.output.print_plan(grid, Some(resume))
}

pub(super) fn merge_command(args: &MergeArgs) -> Result<()> {
    let files = crate::batch::merge::collect_files(&args.inputs)?;
    let outputs = given(&[
        ("--json", &args.json),
        ("--csv", &args.csv),
        ("--markdown", &args.markdown),
        ("--jsonl", &args.jsonl),
        ("--html", &args.html),
    ]);
    let inputs: Vec<(&str, &Path)> = files
        .iter()
        .map(|f| ("a merged file", f.as_path()))
        .collect();
    let dirs: Vec<OutputDir<'_>> = args.plot.iter().map(|d| OutputDir::plot(d)).collect();
    check_collisions(&outputs, &dirs, &inputs)?;
    // Merged first: a merge refused (missing runs, another grid) leaves no file behind.
    let merged = crate::batch::merge::merge(&files, args.partial)?;
    create_outputs(&outputs, &given(&[("--plot", &args.plot)]))?;
    let shards: Vec<String> = merged.shards.iter().map(ToString::to_string).collect();
    eprintln!(
        "merged {} runs from {} file(s) (shards {})",
        merged.runs.len(),
        files.len(),
        shards.join(", ")
    );
    let meta = &merged.header.meta;
    let rows = report::summarize(meta, &merged.runs);
    print_stdout(&report::table::render(meta, &rows))?;
    let files = ReportFiles {
        json: args.json.as_deref(),
        csv: args.csv.as_deref(),
        markdown: args.markdown.as_deref(),
        plot: args.plot.as_deref(),
        html: args.html.as_deref(),
    };
    // Result files keep no window traces: no cwnd plots, nothing to shade.
    files.write(meta, &rows, &merged.runs, &|_, _, _| Vec::new())?;
    if let Some(path) = &args.jsonl {
        crate::batch::result_file::write(path, &merged.header, &merged.runs)
            .map_err(|e| e.for_option("--jsonl"))?;
    }
    Ok(())
}

pub(super) fn calibrate_command(args: &CalibrateArgs) -> Result<()> {
    if !(args.tolerance > 0.0 && args.tolerance <= 1.0) {
        return Err(HarnessError::bad_input(format!(
            "--tolerance {}: must be in (0, 1]",
            args.tolerance
        )));
    }
    if let Some(path) = &args.json {
        let mut inputs = crate::batch::merge::collect_files(&args.reference)?;
        inputs.extend(crate::batch::merge::collect_files(&args.fast)?);
        let inputs: Vec<(&str, &Path)> = inputs
            .iter()
            .map(|f| ("a compared file", f.as_path()))
            .collect();
        check_collisions(&[("--json", path)], &[], &inputs)?;
    }
    type Loaded = (
        ReportMeta,
        Vec<report::SummaryRow>,
        Vec<crate::metrics::RunResult>,
    );
    let load = |inputs: &[PathBuf]| -> Result<Loaded> {
        let files = crate::batch::merge::collect_files(inputs)?;
        // merge's advice to pass --partial is merge's: calibrate compares complete sets.
        let merged = crate::batch::merge::merge(&files, false).map_err(|e| match e {
            HarnessError::Incomplete(message) => HarnessError::Incomplete(message.replace(
                " or pass --partial",
                "; calibrate compares complete sets only (it has no --partial)",
            )),
            other => other,
        })?;
        let rows = report::summarize(&merged.header.meta, &merged.runs);
        Ok((merged.header.meta, rows, merged.runs))
    };
    let reference = load(&args.reference)?;
    let fast = load(&args.fast)?;
    let calibration = crate::batch::calibrate::compare(
        (&reference.0, &reference.1, &reference.2),
        (&fast.0, &fast.1, &fast.2),
        args.tolerance,
    );
    if calibration.points.is_empty() {
        return Err(HarnessError::bad_input(format!(
            "no point of `{}` matches a point of `{}` by label: calibrate compares the same experiment on two backends",
            reference.0.name, fast.0.name
        )));
    }
    print_stdout(&calibration.render())?;
    if let Some(path) = &args.json {
        let mut text = serde_json::to_string_pretty(&calibration)
            .map_err(|e| HarnessError::output(path, e))?;
        text.push('\n');
        std::fs::write(path, text)
            .map_err(|e| HarnessError::output(path, e).for_option("--json"))?;
    }
    Ok(())
}

pub(super) fn presets_command(args: &PresetsArgs) -> Result<()> {
    if let Some(name) = &args.show {
        return print_stdout(presets::lookup(name)?.text);
    }
    let mut out = String::new();
    for preset in presets::all() {
        let grid = scenario::load_description(&preset.source())?;
        let runs = grid.points.len() * grid.controllers.len() * grid.seeds.len();
        out.push_str(&format!(
            "{:<16} {} point(s) x {} controllers x {} seeds = {runs} runs\n",
            preset.name,
            grid.points.len(),
            grid.controllers.len(),
            grid.seeds.len()
        ));
        if let Some(paper) = &grid.paper {
            out.push_str(&format!("                 follows: {paper}\n"));
        }
        out.push_str(&format!("                 {}\n", grid.description));
    }
    out.push_str("\n`harness presets --show NAME` prints a preset as a scenario file.\n");
    print_stdout(&out)
}

pub(super) fn controllers_command() -> Result<()> {
    let mut out = String::new();
    for info in registry::all() {
        out.push_str(&format!("{:<12} {}\n", info.name, info.description));
        for knob in &info.knobs {
            out.push_str(&format!(
                "             {}.{}: {}\n",
                info.name, knob.name, knob.help
            ));
        }
    }
    out.push_str("\nSet a knob with --set NAME.KNOB=VALUE or a [controllers.NAME] table in a scenario file.\n");
    if crate::stack::QUICHE_AVAILABLE {
        out.push_str("quiche-* send from quiche (to a quiche receiver unless --receiver quinn); --receiver quiche sends any other controller to a quiche receiver. Runs involving quiche need --clock real and one flow.\n");
    } else {
        out.push_str(&format!(
            "Not built in: {} (quiche senders) and --receiver quiche; {}.\n",
            crate::stack::QUICHE_CONTROLLERS.join(", "),
            crate::stack::BUILD_HINT
        ));
    }
    print_stdout(&out)
}
