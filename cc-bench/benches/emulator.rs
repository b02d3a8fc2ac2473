//! criterion: netsim emulator speed on the fixed scenarios of issue 7 (one quinn NewReno bulk
//! transfer per iteration, virtual time, one thread).
//!
//! criterion's time is wall time per run; its throughput is datagrams per wall second (the
//! datagrams offered to the link in both directions, counted in a pilot run: the same seed
//! gives the same run). Simulated seconds per wall second are in `bench-report`. netsim's own
//! `cargo bench -p manet-netsim --bench speed` times the first scenario the same way and adds the
//! sans-IO link core alone.

use cc_bench::scenarios::emulator_scenarios;
use criterion::{Criterion, SamplingMode, Throughput};
use std::time::{Duration, Instant};

fn main() {
    let mut criterion = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(100))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    // In criterion's test mode (`-- --test`) every routine runs once: skip the pilot runs.
    let test_mode = std::env::args().any(|a| a == "--test");
    let mut group = criterion.benchmark_group("emulator");
    group.sampling_mode(SamplingMode::Flat);
    for scenario in emulator_scenarios() {
        if !test_mode {
            let pilot = scenario
                .time_emulator()
                .unwrap_or_else(|e| panic!("{}: {e}", scenario.name));
            group.throughput(Throughput::Elements(pilot.datagrams));
        }
        group.bench_function(scenario.name, |b| {
            b.iter_custom(|iters| {
                let start = Instant::now();
                for _ in 0..iters {
                    if let Err(e) = scenario.time_emulator() {
                        panic!("{}: {e}", scenario.name);
                    }
                }
                start.elapsed()
            });
        });
    }
    group.finish();
    criterion.final_summary();
}
