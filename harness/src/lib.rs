//! `harness`: the command-line tool for running MANET-aware QUIC congestion controllers over
//! netsim's emulated paths (or ns-3's), on quinn or noq, side by side with the stacks' own
//! NewReno, Cubic and BBR.
//!
//! The library runs what the binary runs: load a scenario (a file or a preset), expand it into
//! runs, execute one, and read its metrics.
//!
//! ```
//! use harness::batch::sweep;
//! use harness::scenario::{self, Source};
//! use harness::{presets, run};
//!
//! let preset = presets::lookup("coexist")?;
//! let source = Source {
//!     name: format!("preset {}", preset.name),
//!     default_name: preset.name.to_owned(),
//!     text: preset.text.to_owned(),
//!     dir: None,
//! };
//! let grid = scenario::load(&source, &[])?;
//! let runs = sweep::expand(&grid);
//! // Karak beside Cubic on the first path, 10 Mb/s and 20 ms, for the preset's 60 s.
//! let spec = runs
//!     .iter()
//!     .find(|r| r.controller.name == "karak")
//!     .expect("karak is one of the preset's controllers");
//! let result = run::execute(spec, &run::spec::RunOptions::default())?;
//! assert_eq!(result.flows.len(), 2);
//! assert_eq!(result.flows[1].controller.as_deref(), Some("cubic"));
//! assert!(result.goodput_bps > 1e6);
//! # Ok::<(), harness::error::HarnessError>(())
//! ```
//!
//! The binary is a thin `main` over this library. Its modules follow the data: a scenario
//! is read into a grid, the grid's runs are executed one by one, many of them make a batch,
//! and the results are reported.
//!
//! - [`registry`]: the controllers by name, with their validated knobs (no host stack);
//! - [`scenario`]: the TOML scenario schema (errors with line and field), read into a
//!   [`scenario::Grid`] of points; [`presets`]: built-in scenario files for the demo and the
//!   papers' experiments;
//! - [`run`]: one run on its own runtime: [`run::spec`] (what identifies it), [`run::build`] (a
//!   registered controller's factory on quinn or noq), [`run::host`] (the host stacks behind one
//!   interface), [`run::sampler`] (the recording controller wrapper: RTT samples, slow start,
//!   cwnd trace), [`run::qlog`] (quinn's qlog per connection), [`run::flows`] (concurrent
//!   verified transfers), [`run::ns3_worker`] and [`run::ns3_tcp`] (ns-3 runs), [`run::quiche`]
//!   (runs with a quiche end: cargo feature `quiche`, off by default; real time only);
//! - [`batch`]: many runs: [`batch::sweep`] (parallel execution), [`batch::shard`] (slices of a
//!   grid), [`batch::result_file`] (resumable result files), [`batch::adopt`] (a grown grid's
//!   sweep starting from another sweep's runs), [`batch::merge`] (combining shard outputs),
//!   [`batch::calibrate`] (a fast model's results against a reference's);
//! - [`metrics`]: per-run and per-flow metrics, statistics over seeds;
//! - [`report`]: table, JSON, CSV, SVG plots, the HTML page and the coexistence figures;
//! - [`cli`]: clap definitions and the subcommands (`run`, `sweep`, `merge`, `calibrate`,
//!   `presets`, `controllers`);
//! - shared leaves: [`error`] (errors and exit codes), [`stack`] (which QUIC stack runs each
//!   end), [`input_file`] (bounded reads of input files).

#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod batch;
pub mod cli;
pub mod error;
pub mod input_file;
pub mod metrics;
pub mod output_file;
pub mod presets;
pub mod registry;
pub mod report;
pub mod run;
pub mod scenario;
pub mod scorecard;
pub mod stack;

/// The harness version, recorded in result files (shards of different versions do not merge).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Sets up the tracing subscriber on stderr: `RUST_LOG` if set, otherwise `verbose` (0 warn,
/// 1 info, 2 debug, 3+ trace).
pub fn init_tracing(verbose: u8) {
    VERBOSITY.store(verbose, std::sync::atomic::Ordering::Relaxed);
    let default = match verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    // Colour codes only for a terminal: a log redirected to a file stays plain text.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
}

/// The `-v` count [`init_tracing`] was given, so that worker processes log at the same level.
pub static VERBOSITY: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);
