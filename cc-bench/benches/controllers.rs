//! criterion: per-callback cost of every port and of the host stack's NewReno, Cubic and BBR
//! (quinn's BBR, noq's BBRv3) on the committed recordings of each stack (see the crate docs
//! for what the replay feeds each controller).
//!
//! Groups, per stack and recording:
//! - `ack/<stack>/<recording>`: one iteration = one `on_ack` (ACK frames timed: their
//!   `on_ack` calls and `on_end_acks`, divided by the `on_ack` count);
//! - `congestion/<stack>/<recording>`: one iteration = one `on_congestion_event` (on noq with
//!   its `on_packet_lost` calls);
//! - `all/<stack>/<recording>`: one iteration = one `on_ack`'s share of the whole replay
//!   (every callback, no timing brackets inside).
//!
//! Each sample replays the whole recording, each time into a fresh controller built outside
//! the timed region, as often as needed to cover the iterations criterion asks for. The
//! `(no-op floor)` entry is the replay loop's own cost.
//!
//! `cargo bench -p cc-bench --bench controllers`; CI runs `cargo bench -p cc-bench -- --test`.

use cc_bench::controllers::Contender;
use cc_bench::scenarios::{recording_file, recording_scenarios};
use cc_bench::{HostStack, Noq, Quinn, Recording, Replay, Section};
use criterion::Criterion;
use std::time::{Duration, Instant};

/// Replays as often as `iters` units need; returns the timed part scaled to `iters` units.
fn per_unit<S: HostStack>(
    replay: &Replay<S>,
    contender: &Contender<S>,
    units_per_replay: u64,
    iters: u64,
    timed: fn(&Replay<S>, &mut S::Controller) -> Duration,
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

fn whole<S: HostStack>(replay: &Replay<S>, c: &mut S::Controller) -> Duration {
    let start = Instant::now();
    replay.run(c);
    start.elapsed()
}

fn ack_frames<S: HostStack>(replay: &Replay<S>, c: &mut S::Controller) -> Duration {
    replay.run_timed(c, Section::AckFrames)
}

fn losses<S: HostStack>(replay: &Replay<S>, c: &mut S::Controller) -> Duration {
    replay.run_timed(c, Section::Congestion)
}

/// Every group of stack `S`: its committed recordings replayed into its controllers.
fn bench_stack<S: HostStack>(criterion: &mut Criterion) {
    let mut replays = Vec::new();
    for scenario in recording_scenarios() {
        let committed = match Recording::load(&recording_file::<S>(scenario.name)) {
            Ok(r) => r,
            Err(e) => {
                panic!("{e} (regenerate with `cargo run --release -p cc-bench --bin record`)")
            }
        };
        // Real estimators: the recorder's copies from a re-run of the same scenario.
        let (_, palette) = scenario
            .record::<S>()
            .unwrap_or_else(|e| panic!("re-running {} on {}: {e}", scenario.name, S::NAME));
        replays.push(Replay::<S>::new(&committed, &palette).unwrap_or_else(|e| panic!("{e}")));
    }

    let mut all = S::contenders();
    all.push(S::floor());
    for replay in &replays {
        let counts = replay.counts();
        type Timed<S> = fn(&Replay<S>, &mut <S as HostStack>::Controller) -> Duration;
        let sections: [(&str, u64, Timed<S>); 3] = [
            ("ack", counts.acks, ack_frames::<S>),
            ("congestion", counts.congestion, losses::<S>),
            ("all", counts.acks, whole::<S>),
        ];
        for (label, units, timed) in sections {
            if units == 0 {
                continue;
            }
            let mut group =
                criterion.benchmark_group(format!("{label}/{}/{}", S::NAME, replay.name()));
            for contender in &all {
                group.bench_function(contender.name, |b| {
                    b.iter_custom(|iters| per_unit(replay, contender, units, iters, timed));
                });
            }
            group.finish();
        }
    }
}

fn main() {
    let mut criterion = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .configure_from_args();
    bench_stack::<Quinn>(&mut criterion);
    bench_stack::<Noq>(&mut criterion);
    criterion.final_summary();
}
