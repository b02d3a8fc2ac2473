//! `harness scorecard`: comparisons of controllers from result files (the library's
//! [`crate::scorecard`]), as Markdown or JSON on stdout; a split file and a throughput-delay
//! picture as files.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand, ValueEnum};

use super::paths::check_collisions;
use super::print_stdout;
use crate::error::{HarnessError, Result};
use crate::scorecard::document::Document;
use crate::scorecard::experiment::Experiment;
use crate::scorecard::split::Split;
use crate::scorecard::{ablation, against, decision, jain, targets, throughput_delay};

/// `harness scorecard`.
#[derive(Debug, Args)]
pub struct ScorecardArgs {
    #[command(subcommand)]
    command: ScorecardCommand,
}

/// How a table is printed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
enum Format {
    /// Markdown tables and sentences.
    #[default]
    Markdown,
    /// The same content as JSON (a ratio: mean, low, high, seeds).
    Json,
}

/// `--targets`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Targets {
    /// T1-T4 (issue 34).
    Composite,
    /// R1-R2 (issue 52).
    Regimes,
}

#[derive(Debug, Args)]
struct FormatArg {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Markdown)]
    format: Format,
}

/// The scorecard's subcommands.
#[derive(Debug, Subcommand)]
enum ScorecardCommand {
    /// A controller against the stack's Cubic and the best baseline, per point, with the
    /// composite's targets (T1-T4) met or missed.
    Targets {
        /// Result directories (`harness sweep --out`), each holding the controller and Cubic.
        #[arg(required = true, value_name = "DIR")]
        inputs: Vec<PathBuf>,
        /// The controller scored.
        #[arg(long, default_value = "manet")]
        controller: String,
        /// A sweep of `fixed` windows (repeatable): the best of them per point and seed is
        /// T3's reference at 4 and 8 hops.
        #[arg(long, value_name = "DIR")]
        fixed: Vec<PathBuf>,
        /// A split file (`harness scorecard split`): development and validation cells apart.
        #[arg(long, value_name = "FILE")]
        split: Option<PathBuf>,
        /// Also pool every point and seed: per directory, per controller over each baseline,
        /// and in all (each pair of runs once, whatever points hold it).
        #[arg(long)]
        pooled: bool,
        /// The targets each point is held to: the composite's on its evaluation (T1-T4), or
        /// the regime grid's at every cell (R1: at least 0.95x Cubic, no interval below 0.9;
        /// R2: at least 0.9x the best baseline).
        #[arg(long, value_enum, default_value_t = Targets::Composite)]
        targets: Targets,
        #[command(flatten)]
        format: FormatArg,
    },
    /// Seed-paired goodput ratios of controllers over one baseline (any controller), per point.
    Against {
        /// Result directories.
        #[arg(required = true, value_name = "DIR")]
        inputs: Vec<PathBuf>,
        /// The controller the others are divided by (`cubic`, `tcp-newreno`, ...).
        #[arg(long)]
        baseline: String,
        /// A controller compared (repeatable; default: every other controller of each input).
        #[arg(long = "controller")]
        controllers: Vec<String>,
        #[command(flatten)]
        format: FormatArg,
    },
    /// Jain's index over each run's flows, mean (and least) over seeds, per point and controller;
    /// beside the stack's Cubic, the runs' goodputs, all flows together, paired against Cubic's.
    Jain {
        /// Result directories of runs with several flows.
        #[arg(required = true, value_name = "DIR")]
        inputs: Vec<PathBuf>,
        /// The controller whose mean is held to the target (0.95).
        #[arg(long, default_value = "manet")]
        controller: String,
        #[command(flatten)]
        format: FormatArg,
    },
    /// Each mechanism switched off (ROOT/ablation/KNOB/PRESET) against the whole controller
    /// (ROOT/STACK/PRESET), seed by seed: below 1, the mechanism helps there.
    Ablation {
        /// The evaluation's results (`results/manet`).
        #[arg(value_name = "ROOT")]
        root: PathBuf,
        /// The stack whose full sweeps the ablation compares with.
        #[arg(long, default_value = "quinn")]
        stack: String,
        /// The controller ablated.
        #[arg(long, default_value = "manet")]
        controller: String,
        #[command(flatten)]
        format: FormatArg,
    },
    /// The decision table a spec describes (docs/results/decision.toml): per kind of path, the
    /// controller whose pooled goodput over Cubic has an interval above 1, else Cubic.
    Decision {
        /// The spec (TOML; its result directories are relative to it).
        #[arg(value_name = "SPEC")]
        spec: PathBuf,
        #[command(flatten)]
        format: FormatArg,
    },
    /// Draws the development/validation split of the inputs' cells (experiment x point) by a
    /// seeded shuffle, into a new file: declared once, before tuning.
    Split {
        /// Result directories whose cells are split.
        #[arg(value_name = "DIR", required_unless_present = "preset")]
        inputs: Vec<PathBuf>,
        /// A preset whose grid's cells are split (repeatable): a split declared before any
        /// run; the preset's sweep is then read from a directory of the same name.
        #[arg(long, value_name = "NAME")]
        preset: Vec<String>,
        /// The draw's seed.
        #[arg(long)]
        seed: u64,
        /// The share of cells held out for validation, in (0, 1).
        #[arg(long, default_value_t = 0.3)]
        validation: f64,
        /// The split file to create (never overwritten).
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
    },
    /// The throughput-delay picture of one experiment (SVG): goodput against p95 RTT, one
    /// marker per controller and point with its seed spread.
    ThroughputDelay {
        /// A result directory.
        #[arg(value_name = "DIR")]
        input: PathBuf,
        /// The SVG file to write.
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
    },
}

fn read_all(dirs: &[PathBuf]) -> Result<Vec<Experiment>> {
    dirs.iter().map(|d| Experiment::read(d)).collect()
}

fn print(doc: &Document, format: &FormatArg) -> Result<()> {
    match format.format {
        Format::Markdown => print_stdout(&doc.markdown()),
        Format::Json => print_stdout(&doc.json().map_err(|e| {
            HarnessError::run_failed(format!("cannot write the scorecard as JSON: {e}"))
        })?),
    }
}

/// Refuses an output that would overwrite one of `inputs`' result files or any result file.
fn check_output(out: &Path, inputs: &[PathBuf]) -> Result<()> {
    let files = crate::batch::merge::collect_files(inputs)?;
    let inputs: Vec<(&str, &Path)> = files.iter().map(|f| ("an input", f.as_path())).collect();
    check_collisions(&[("--out", out)], &[], &inputs)
}

/// Runs `harness scorecard`.
pub(super) fn scorecard_command(args: &ScorecardArgs) -> Result<()> {
    match &args.command {
        ScorecardCommand::Targets {
            inputs,
            controller,
            fixed,
            split,
            pooled,
            targets: target_set,
            format,
        } => {
            let experiments = read_all(inputs)?;
            let fixed = read_all(fixed)?;
            let split = split.as_deref().map(Split::read).transpose()?;
            let options = targets::Options {
                targets: match target_set {
                    Targets::Composite => targets::TargetSet::Composite,
                    Targets::Regimes => targets::TargetSet::Regimes,
                },
                controller,
                fixed: &fixed,
                split: split.as_ref(),
                pooled: *pooled,
            };
            print(&targets::scorecard(&experiments, options)?, format)
        }
        ScorecardCommand::Against {
            inputs,
            baseline,
            controllers,
            format,
        } => print(
            &against::against(&read_all(inputs)?, baseline, controllers)?,
            format,
        ),
        ScorecardCommand::Jain {
            inputs,
            controller,
            format,
        } => print(&jain::jain(&read_all(inputs)?, controller)?, format),
        ScorecardCommand::Ablation {
            root,
            stack,
            controller,
            format,
        } => print(&ablation::ablation(root, stack, controller)?, format),
        ScorecardCommand::Decision { spec, format } => print(&decision::decision(spec)?, format),
        ScorecardCommand::Split {
            inputs,
            preset,
            seed,
            validation,
            out,
        } => {
            if !inputs.is_empty() {
                check_output(out, inputs)?;
            }
            let mut experiments = read_all(inputs)?;
            for name in preset {
                experiments.push(Experiment::of_preset(name)?);
            }
            let split = Split::draw(&experiments, *seed, *validation)?;
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(out)
                .map_err(|e| {
                    let why = if e.kind() == std::io::ErrorKind::AlreadyExists {
                        "it exists: a split is drawn once and never redrawn over; choose another path".to_owned()
                    } else {
                        e.to_string()
                    };
                    HarnessError::bad_input(format!("--out `{}`: {why}", out.display()))
                })?;
            std::io::Write::write_all(&mut file, split.to_toml().as_bytes())
                .map_err(|e| HarnessError::output(out, e).for_option("--out"))?;
            let (development, validation) = split.counts();
            eprintln!(
                "drew {development} development and {validation} validation cells into `{}`",
                out.display()
            );
            Ok(())
        }
        ScorecardCommand::ThroughputDelay { input, out } => {
            check_output(out, std::slice::from_ref(input))?;
            let svg = throughput_delay::render(&Experiment::read(input)?)?;
            crate::output_file::write_replacing(out, svg)
                .map_err(|e| HarnessError::output(out, e).for_option("--out"))
        }
    }
}
