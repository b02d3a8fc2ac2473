//! criterion: per-callback cost of every port and of quinn's NewReno, Cubic and BBR on the
//! committed recordings (see the crate docs for what the replay feeds each controller).
//!
//! Groups, per recording:
//! - `ack/<recording>`: one iteration = one `on_ack` (ACK frames timed: their `on_ack` calls
//!   and `on_end_acks`, divided by the `on_ack` count);
//! - `congestion/<recording>`: one iteration = one `on_congestion_event`;
//! - `all/<recording>`: one iteration = one `on_ack`'s share of the whole replay (every
//!   callback, no timing brackets inside).
//!
//! Each sample replays the whole recording, each time into a fresh controller built outside
//! the timed region, as often as needed to cover the iterations criterion asks for. The
//! `(no-op floor)` entry is the replay loop's own cost.
//!
//! `cargo bench -p cc-bench --bench controllers`; CI runs `cargo bench -p cc-bench -- --test`.

use cc_bench::controllers::{Contender, contenders, floor};
use cc_bench::scenarios::{recording_file, recording_scenarios};
use cc_bench::{Recording, Replay, Section};
use criterion::Criterion;
use quinn_proto::congestion::Controller;
use std::time::{Duration, Instant};

/// Replays a recording into a controller, returning the time it measured.
type TimedReplay = fn(&Replay, &mut dyn Controller) -> Duration;

/// Replays as often as `iters` units need; returns the timed part scaled to `iters` units.
fn per_unit(
    replay: &Replay,
    contender: &Contender,
    units_per_replay: u64,
    iters: u64,
    timed: impl Fn(&Replay, &mut dyn Controller) -> Duration,
) -> Duration {
    let units = units_per_replay.max(1);
    let replays = iters.div_ceil(units).max(1);
    let mut total = Duration::ZERO;
    for _ in 0..replays {
        let mut c = replay.build(&contender.factory);
        total += timed(replay, c.as_mut());
    }
    total.mul_f64(iters as f64 / (replays * units) as f64)
}

fn whole(replay: &Replay, c: &mut dyn Controller) -> Duration {
    let start = Instant::now();
    replay.run(c);
    start.elapsed()
}

fn main() {
    let mut criterion = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .configure_from_args();

    let mut replays = Vec::new();
    for scenario in recording_scenarios() {
        let committed = match Recording::load(&recording_file(scenario.name)) {
            Ok(r) => r,
            Err(e) => {
                panic!("{e} (regenerate with `cargo run --release -p cc-bench --bin record`)")
            }
        };
        // Real quinn estimators: the recorder's copies from a re-run of the same scenario.
        let (_, palette) = scenario
            .record()
            .unwrap_or_else(|e| panic!("re-running {}: {e}", scenario.name));
        replays.push(Replay::new(&committed, &palette).unwrap_or_else(|e| panic!("{e}")));
    }

    let mut all = contenders();
    all.push(floor());
    for replay in &replays {
        let counts = replay.counts();
        let sections: [(&str, u64, TimedReplay); 3] = [
            ("ack", counts.acks, |r, c| {
                r.run_timed(c, Section::AckFrames)
            }),
            ("congestion", counts.congestion, |r, c| {
                r.run_timed(c, Section::Congestion)
            }),
            ("all", counts.acks, whole),
        ];
        for (label, units, timed) in sections {
            if units == 0 {
                continue;
            }
            let mut group = criterion.benchmark_group(format!("{label}/{}", replay.name()));
            for contender in &all {
                group.bench_function(contender.name, |b| {
                    b.iter_custom(|iters| per_unit(replay, contender, units, iters, timed));
                });
            }
            group.finish();
        }
    }
    criterion.final_summary();
}
