//! criterion: netsim emulator speed on the fixed scenarios of issue 7 (one quinn NewReno bulk
//! transfer per iteration, virtual time, one thread), under TLS packet protection and under null
//! packet protection (`<scenario>/tls`, `<scenario>/null`: the same simulated run).
//!
//! criterion's time is wall time per run; its throughput is datagrams per wall second (the
//! datagrams offered to the link in both directions, counted in a pilot run: the same seed
//! gives the same run). Simulated seconds per wall second are in `bench-report`. netsim's own
//! `cargo bench -p manet-netsim --bench speed` times the first scenario the same way and adds the
//! sans-IO link core alone.

use cc_bench::scenarios::emulator_scenarios;
use criterion::{Criterion, SamplingMode, Throughput};
use netsim::PacketProtection;
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
                .time_emulator(PacketProtection::Tls)
                .unwrap_or_else(|e| panic!("{}: {e}", scenario.name));
            group.throughput(Throughput::Elements(pilot.datagrams));
        }
        for protection in [PacketProtection::Tls, PacketProtection::Null] {
            let id = format!("{}/{}", scenario.name, protection.as_str());
            group.bench_function(id, |b| {
                b.iter_custom(|iters| {
                    let start = Instant::now();
                    for _ in 0..iters {
                        if let Err(e) = scenario.time_emulator(protection) {
                            panic!("{}: {e}", scenario.name);
                        }
                    }
                    start.elapsed()
                });
            });
        }
    }
    group.finish();
    criterion.final_summary();
}
