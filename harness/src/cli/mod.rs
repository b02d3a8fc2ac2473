//! The command line: `run`, `sweep`, `merge`, `check`, `calibrate`, `scorecard`, `presets`,
//! `controllers`.
//!
//! Split by job: `args` declares the commands and their arguments; `overrides` turns the
//! scenario flags into a grid; `output` writes tables, files and plots; `paths` checks where
//! outputs land; `commands` runs each
//! command; `scorecard` declares and runs `harness scorecard`.

use std::io::Write as _;

use clap::{Parser, Subcommand};

use crate::error::{HarnessError, Result};

mod args;
mod check;
mod commands;
mod output;
mod overrides;
mod parse;
mod paths;
mod scorecard;

pub use args::*;
use check::check_command;
use commands::{
    calibrate_command, controllers_command, merge_command, presets_command, run, sweep_command,
};
pub use scorecard::ScorecardArgs;

const ABOUT: &str = "Emulation harness for MANET-aware QUIC congestion controllers (quinn 0.11 and noq 1.x over netsim or ns-3).";

const LONG_ABOUT: &str = "Emulation harness for MANET-aware QUIC congestion controllers (quinn 0.11 and noq 1.x over netsim or ns-3).

Runs bulk transfers over an emulated lossy / MANET path for the workspace's ports (karak, petra, ub, sackfew, abra) and the host stack's own NewReno, Cubic and BBR (quinn's by default; `--stack noq` for noq's, with BBRv3), seeded and in virtual time (faster than real time, reproducible), and reports goodput, throughput, losses, loss-signal classes, RTT, time in slow start, fairness and utilization (goodput over netsim's physical limit).

`harness run` with no arguments runs the demo: a MANET path (random waypoint at 20 m/s, BER 1e-6 per hop) for every controller, 5 seeds, 120 s of virtual time each.

Every option, with its unit, range and default: `harness run --help` (`sweep` takes the same scenario options, plus --out and --shard). Presets: `harness presets`; controllers and their knobs: `harness controllers`.

Exit codes: 0 ok; 2 bad input (unknown controller or preset, value out of range, unreadable or malformed scenario file, output path that cannot be written); 1 a run failed (including any integrity failure) or a merge found missing or duplicated runs.

quiche (cargo feature `quiche`, off by default: `cargo run --release -p harness --features quiche -- ...`, needs cmake, a C/C++ compiler and libclang): adds the controllers quiche-reno, quiche-cubic and quiche-bbr2 (a quiche sender, to a quiche receiver by default) and `--receiver quinn|quiche` for mixed pairs (e.g. `--controllers karak --receiver quiche`: a quinn sender running Karak to a quiche receiver). quiche reads the system clock, so runs involving quiche need `--clock real`, carry one flow, and are not bit-reproducible; their rows are marked `real time`.

Logging: -v (info), -vv (debug), -vvv (trace), or RUST_LOG (e.g. RUST_LOG=cc=debug,harness=info) to stderr.";

/// The harness command line.
#[derive(Debug, Parser)]
#[command(name = "harness", version, about = ABOUT, long_about = LONG_ABOUT)]
pub struct Cli {
    /// More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    /// What to do (default: `run`, the demo).
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a scenario (or a preset's grid) for several controllers and seeds, print the table.
    ///
    /// The base is the scenario file (--scenario) or preset (--preset), or, with neither, the
    /// demo (`harness presets --show demo`: 5 seeds, 120 s per flow, a 2 Mb/s MANET path).
    /// The defaults named below are what a scenario file takes for a key it leaves out; a flag
    /// overrides the base's value, whatever it is.
    Run(RunArgs),
    /// Run a grid resumably: results are appended per run to DIR/shard-I-of-N.jsonl.
    ///
    /// The base and the defaults are `run`'s: the scenario file or preset, or the demo.
    Sweep(SweepArgs),
    /// Merge shard result files (any order) into one report.
    Merge(MergeArgs),
    /// Report, without writing anything, whether each result file's runs are what this build
    /// would produce (current) or another code's (stale, with the fact that differs). Exits 1
    /// when a file is stale, 2 when one is unreadable, edited or mixed (as merge refuses it).
    Check(CheckArgs),
    /// Compare a fast model's results (netsim) with a reference's (ns-3) on the same
    /// experiment: goodput ratios per point and controller, and whether the rankings agree.
    Calibrate(CalibrateArgs),
    /// Compare controllers from result files: seed-paired ratios, the composite's targets,
    /// pooled figures, Jain's index, the ablation, the README's decision table, the
    /// development/validation split and the throughput-delay picture.
    Scorecard(ScorecardArgs),
    /// List the built-in presets (paper experiments), or print one as a scenario file.
    Presets(PresetsArgs),
    /// Internal: run one ns-3 run (a JSON request on stdin, the result on stdout). The harness
    /// starts one such process per ns-3 run, because ns-3 allows one simulation per process.
    #[command(hide = true)]
    Ns3Worker,
    /// List the available controllers and their knobs.
    Controllers,
}

fn print_stdout(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    // A closed pipe (`| head`) is not an error worth reporting.
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
    Ok(())
}

fn failed(failures: Vec<HarnessError>) -> Result<()> {
    if failures.is_empty() {
        return Ok(());
    }
    let list: Vec<String> = failures.iter().map(ToString::to_string).collect();
    Err(HarnessError::run_failed(format!(
        "{} run(s) failed:\n  {}",
        failures.len(),
        list.join("\n  ")
    )))
}

/// Runs the parsed command line.
pub fn dispatch(cli: Cli) -> Result<()> {
    match cli.command {
        None => run(&RunArgs::parse_from(["run"])),
        Some(Command::Run(args)) => run(&args),
        Some(Command::Sweep(args)) => sweep_command(&args),
        Some(Command::Merge(args)) => merge_command(&args),
        Some(Command::Check(args)) => check_command(&args),
        Some(Command::Calibrate(args)) => calibrate_command(&args),
        Some(Command::Scorecard(args)) => scorecard::scorecard_command(&args),
        Some(Command::Presets(args)) => presets_command(&args),
        Some(Command::Controllers) => controllers_command(),
        Some(Command::Ns3Worker) => crate::run::ns3_worker::serve(crate::run::execute_here),
    }
}

/// Parses the options of `harness run` (`args` without the program name and `run`) and builds
/// the grid they describe without running it. What `run` would refuse as bad input, this
/// refuses with the same message (exit code 2): for tooling, and for the property tests that
/// feed it generated command lines.
pub fn run_grid<I, T>(args: I) -> Result<crate::scenario::Grid>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    #[derive(Parser)]
    struct Wrapper {
        #[command(flatten)]
        run: RunArgs,
    }
    let argv =
        std::iter::once(std::ffi::OsString::from("run")).chain(args.into_iter().map(Into::into));
    let parsed = Wrapper::try_parse_from(argv).map_err(HarnessError::bad_input)?;
    parsed.run.scenario.grid()
}

impl RunArgs {
    fn parse_from<const N: usize>(args: [&str; N]) -> Self {
        #[derive(Parser)]
        struct Wrapper {
            #[command(flatten)]
            run: RunArgs,
        }
        Wrapper::parse_from(args).run
    }
}
