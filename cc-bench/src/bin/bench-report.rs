//! Runs the controller-cost, memory and emulator-speed measurements and writes a markdown
//! report with ratios to the host stack's NewReno and Cubic (quinn's, noq's) measured in the same
//! run.
//!
//! ```text
//! cargo run --release -p cc-bench --bin bench-report -- --wait-quiet 600 --out report.md
//! ```

use cc_bench::alloc_count::CountingAlloc;
use cc_bench::controllers::Origin;
use cc_bench::measure::{
    CpuOptions, MemoryFigures, ReplayCpu, measure_cpu, measure_emulator, measure_memory,
};
use cc_bench::passes::{PASS_SIZES, pass_count, with_pass_size};
use cc_bench::report::{self, Machine, PassFigures, load_average};
use cc_bench::scenarios::{emulator_scenarios, recording_file, recording_scenarios};
use cc_bench::whole_process::measure_whole_process;
use cc_bench::{HostStack, Noq, Quinn, Recording, Replay};
use clap::{Parser, ValueEnum};
use std::fmt::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// Which stacks' recordings to replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Stacks {
    /// quinn 0.11 only.
    Quinn,
    /// noq 1.x only.
    Noq,
    /// Both, quinn first.
    Both,
}

/// Controller CPU cost and memory against the host stack's own controllers (quinn's and
/// noq's), and emulator speed, as markdown.
#[derive(Debug, Parser)]
#[command(name = "bench-report")]
struct Args {
    /// Write the report here (default: standard output).
    #[arg(long)]
    out: Option<std::path::PathBuf>,
    /// Samples per (recording, controller, quantity); the median is reported.
    #[arg(long, default_value_t = 21)]
    repeats: usize,
    /// Least duration of one sample, milliseconds.
    #[arg(long, default_value_t = 5)]
    min_sample_ms: u64,
    /// Timed runs per emulator scenario; the median is reported.
    #[arg(long, default_value_t = 5)]
    emulator_runs: usize,
    /// Smoke-test settings: 3 repeats, 1 ms samples, 1 emulator run. Not for publishing.
    #[arg(long)]
    quick: bool,
    /// The stacks whose recordings are replayed, each into its own controllers and the ports.
    #[arg(long, value_enum, default_value_t = Stacks::Both)]
    stack: Stacks,
    /// Leave out the emulator-speed runs.
    #[arg(long)]
    skip_emulator: bool,
    /// Before measuring, wait up to this many seconds for the 1-minute load average to drop
    /// below --max-load (0: do not wait).
    #[arg(long, default_value_t = 0)]
    wait_quiet: u64,
    /// The load average --wait-quiet waits for.
    #[arg(long, default_value_t = 1.0)]
    max_load: f64,
    /// Also time the emulator against ns-3.37's TCP NewReno as whole processes: `harness run`
    /// of the 2 Mb/s scenario beside netsim-ns3's `ns3-tcp-bulk` on the same path (needs this
    /// binary built with `--features ns3`, and the harness built).
    #[arg(long)]
    vs_ns3: bool,
    /// The harness binary --vs-ns3 runs (default: `harness` beside this binary, i.e. from
    /// `cargo build --release -p harness`).
    #[arg(long, value_name = "PATH")]
    harness: Option<PathBuf>,
    /// Runs of each process for --vs-ns3 (after one untimed round); the median is reported.
    #[arg(long, default_value_t = 9, value_parser = clap::value_parser!(u64).range(1..=1000))]
    process_runs: u64,
}

fn main() -> ExitCode {
    let mut args = Args::parse();
    if args.quick {
        args.repeats = 3;
        args.min_sample_ms = 1;
        args.emulator_runs = 1;
        args.process_runs = 1;
    }
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench-report: {e}");
            ExitCode::FAILURE
        }
    }
}

fn wait_quiet(args: &Args) {
    let deadline = Instant::now() + Duration::from_secs(args.wait_quiet);
    while let Some(load) = load_average() {
        if load < args.max_load || Instant::now() >= deadline {
            return;
        }
        eprintln!("load average {load:.2} >= {}: waiting", args.max_load);
        std::thread::sleep(Duration::from_secs(15));
    }
}

/// The emulator scenario --vs-ns3 runs as whole processes (issue 18's).
const WHOLE_PROCESS_SCENARIO: &str = "2mbps-per0.005-100s";

/// The two programs --vs-ns3 runs, checked before anything is measured.
fn whole_process_programs(args: &Args) -> Result<Option<(PathBuf, PathBuf)>, String> {
    if !args.vs_ns3 {
        return Ok(None);
    }
    let Some(ns3) = netsim_ns3_program() else {
        return Err(
            "--vs-ns3: this bench-report was built without ns-3; build it with \
                    `cargo run --release -p cc-bench --features ns3 --bin bench-report` \
                    (Debian's libns3-dev, see netsim-ns3/README.md)"
                .to_owned(),
        );
    };
    let harness = match &args.harness {
        Some(path) => path.clone(),
        None => std::env::current_exe()
            .map_err(|e| format!("--harness: cannot find this binary's directory: {e}"))?
            .with_file_name("harness"),
    };
    if !harness.is_file() {
        return Err(format!(
            "--harness: {} does not exist; build it with `cargo build --release -p harness` \
             or name it with --harness PATH",
            harness.display()
        ));
    }
    Ok(Some((harness, ns3)))
}

/// netsim-ns3's `ns3-tcp-bulk`, when this binary has the `ns3` feature.
fn netsim_ns3_program() -> Option<PathBuf> {
    #[cfg(feature = "ns3")]
    {
        netsim_ns3::TCP_BULK_PROGRAM.map(PathBuf::from)
    }
    #[cfg(not(feature = "ns3"))]
    {
        None
    }
}

fn run(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let programs = whole_process_programs(args)?;
    wait_quiet(args);
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let mut machine = Machine::detect(command);
    let started = Instant::now();

    let options = CpuOptions {
        repeats: args.repeats,
        min_sample: Duration::from_millis(args.min_sample_ms),
        ..CpuOptions::default()
    };
    let mut measured = Vec::new();
    if args.stack != Stacks::Noq {
        measured.push(measure_stack::<Quinn>(&options)?);
    }
    if args.stack != Stacks::Quinn {
        measured.push(measure_stack::<Noq>(&options)?);
    }
    let mut emulator = Vec::new();
    if !args.skip_emulator {
        for scenario in emulator_scenarios() {
            eprintln!("emulator: {} ...", scenario.description);
            emulator.extend(measure_emulator(&scenario, args.emulator_runs)?);
        }
    }
    let mut whole_process = None;
    if let Some((harness, ns3)) = &programs {
        let scenario = emulator_scenarios()
            .into_iter()
            .find(|s| s.name == WHOLE_PROCESS_SCENARIO)
            .ok_or("the 2 Mb/s emulator scenario is missing")?;
        eprintln!(
            "whole processes: harness and ns-3 TCP, {} ...",
            scenario.description
        );
        let work_dir = std::env::temp_dir().join(format!("bench-report-{}", std::process::id()));
        let figures = measure_whole_process(
            &scenario,
            harness,
            ns3,
            args.process_runs as usize,
            &work_dir,
        );
        let _ = std::fs::remove_dir_all(&work_dir);
        whole_process = Some(figures?);
    }
    machine.load_end = load_average();

    let mut out = String::new();
    let load = |l: Option<f64>| l.map_or_else(|| "?".to_owned(), |l| format!("{l:.2}"));
    let _ = writeln!(
        out,
        "Measured with `{}` on {}, {}; 1-minute load average {} at the start and {} at the end; {:.0} s in all. \
         Samples: median of {} per figure, each at least {} ms{}.\n",
        machine.command,
        machine.cpu,
        machine.rustc,
        load(machine.load_start),
        load(machine.load_end),
        started.elapsed().as_secs_f64(),
        args.repeats,
        args.min_sample_ms,
        if args.skip_emulator {
            String::new()
        } else {
            format!(
                "; emulator: median of {} runs per scenario",
                args.emulator_runs
            )
        },
    );
    let _ = writeln!(
        out,
        "### Controller CPU cost\n\nns per ACK = (time of each ACK frame's `on_ack` calls and its `on_end_acks`) / `on_ack` calls. \
         Figures are net of the no-op floor (the same replay into a controller that does nothing), \
         the column \"incl. replay loop\" is before subtracting it. Ratios are to the host stack's own controllers in the same run; \
         on noq a transmit pass includes its `on_packet_sent` calls and the `metrics()` reads of noq's send path.\n"
    );
    for m in &measured {
        for (c, d) in m.cpu.iter().zip(&m.descriptions) {
            report::cpu_table(&mut out, c, d);
        }
    }
    for m in measured.iter().filter(|m| !m.per_pass.is_empty()) {
        report::per_pass_table(&mut out, &m.per_pass);
    }
    let bounds = cc_core::SignalConfig::default();
    let _ = writeln!(
        out,
        "### Controller state per connection (bytes)\n\n`size_of` the boxed controller, plus heap: held after a replay (counting allocator, \
         net of the box; the ledger's `heap_bytes()` beside it), and the ledger filled to both of cc-core's default bounds \
         ({} packets, {} batches).\n",
        bounds.ledger_packets(),
        bounds.ledger_batches()
    );
    for m in &measured {
        let _ = writeln!(out, "#### On {}\n", m.stack);
        report::memory_table(&mut out, &m.memory);
    }
    if !emulator.is_empty() {
        let _ = writeln!(
            out,
            "### Emulator speed (netsim, virtual time, one thread)\n\nA quinn NewReno bulk transfer per scenario, seed 1; \
             wall time covers the runtime, both endpoints, the handshake, the transfer and the drain; datagrams are those \
             offered to the link in both directions.\n"
        );
        report::emulator_table(&mut out, &emulator);
    }
    if let Some(figures) = &whole_process {
        report::whole_process_table(&mut out, figures);
    }
    let _ = writeln!(out, "### Targets (issues 7, 18 and 35)\n");
    let cpu: Vec<ReplayCpu> = measured.iter().flat_map(|m| m.cpu.clone()).collect();
    let per_pass: Vec<PassFigures> = measured.iter().flat_map(|m| m.per_pass.clone()).collect();
    let memory: Vec<MemoryFigures> = measured.iter().flat_map(|m| m.memory.clone()).collect();
    report::targets(
        &mut out,
        &cpu,
        &per_pass,
        &memory,
        &emulator,
        whole_process.as_ref(),
    );

    match &args.out {
        Some(path) => std::fs::write(path, &out)?,
        None => print!("{out}"),
    }
    Ok(())
}

/// The CPU and memory figures of one stack.
struct StackFigures {
    stack: &'static str,
    cpu: Vec<ReplayCpu>,
    descriptions: Vec<String>,
    /// quinn: the first recording regrouped to each of [`PASS_SIZES`] packets per pass.
    per_pass: Vec<PassFigures>,
    memory: Vec<MemoryFigures>,
}

/// Replays the stack's committed recordings into its controllers and the ports, with real
/// estimators from a re-run of each recording's scenario.
fn measure_stack<S: HostStack>(
    options: &CpuOptions,
) -> Result<StackFigures, Box<dyn std::error::Error>> {
    let mut replays = Vec::new();
    let mut descriptions = Vec::new();
    let mut regrouped = Vec::new();
    for scenario in recording_scenarios() {
        let committed = Recording::load(&recording_file::<S>(scenario.name))?;
        let (fresh, palette) = scenario.record::<S>()?;
        if fresh != committed {
            eprintln!(
                "note: a re-run of {} on {} differs from the committed recording; on_ack gets the nearest captured estimators",
                scenario.name,
                S::NAME
            );
        }
        replays.push(Replay::<S>::new(&committed, &palette)?);
        descriptions.push(committed.meta.description.clone());
        // quinn's ledger is the one piece whose cost could depend on packets per pass.
        if S::NAME == Quinn::NAME && regrouped.is_empty() {
            for packets in PASS_SIZES {
                let r = with_pass_size(&committed, packets);
                let (passes, sent) = pass_count(&r);
                regrouped.push((
                    packets,
                    sent as f64 / passes.max(1) as f64,
                    r,
                    palette.clone(),
                ));
            }
        }
    }
    let contenders = S::contenders();
    let floor = S::floor();
    let mut cpu = Vec::new();
    for replay in &replays {
        eprintln!("replaying {} on {} ...", replay.name(), S::NAME);
        cpu.push(measure_cpu(replay, &contenders, &floor, options));
    }
    // Per pass size: the ports and the stack's Cubic, the yardstick.
    let (_, cubic) = report::baselines(S::NAME);
    let per_pass_contenders: Vec<_> = contenders
        .iter()
        .filter(|c| c.origin == Origin::Port || c.name == cubic)
        .cloned()
        .collect();
    let mut per_pass = Vec::new();
    for (packets, mean_pass, recording, palette) in &regrouped {
        let replay = Replay::<S>::new(recording, palette)?;
        eprintln!("replaying {} on {} ...", replay.name(), S::NAME);
        per_pass.push(PassFigures {
            packets: *packets,
            mean_pass: *mean_pass,
            cpu: measure_cpu(&replay, &per_pass_contenders, &floor, options),
        });
    }
    let memory = contenders
        .iter()
        .map(|c| measure_memory(c, &replays))
        .collect();
    Ok(StackFigures {
        stack: S::NAME,
        cpu,
        descriptions,
        per_pass,
        memory,
    })
}
