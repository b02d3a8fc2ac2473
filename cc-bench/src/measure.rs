//! The measurements behind `bench-report`: replay CPU cost with `Instant` loops, memory per
//! connection, and emulator speed. (criterion, in `benches/`, measures the same replays.)

use crate::alloc_count;
use crate::controllers::{Contender, LedgerFigures, Origin};
use crate::event::EventCounts;
use crate::replay::{Replay, RttFidelity, Section, Step};
use crate::scenarios::{EmulatorSample, RunError, Scenario};
use crate::stack::HostStack;
use cc_core::SignalConfig;
use netsim::PacketProtection;
use std::time::{Duration, Instant};

/// How long and how often to measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpuOptions {
    /// Samples per (recording, controller, quantity); the median is reported.
    pub repeats: usize,
    /// Each sample replays the recording enough times (each into a fresh controller) to take
    /// at least this long.
    pub min_sample: Duration,
    /// Untimed replays of each (recording, controller) before measuring.
    pub warmup: usize,
}

impl Default for CpuOptions {
    fn default() -> Self {
        Self {
            repeats: 21,
            min_sample: Duration::from_millis(5),
            warmup: 3,
        }
    }
}

/// Median replay costs of one controller on one recording, nanoseconds.
#[derive(Debug, Clone, PartialEq)]
pub struct CpuFigures {
    /// The controller.
    pub name: &'static str,
    /// Where it comes from.
    pub origin: Origin,
    /// ACK frames' time (`on_ack` calls plus their `on_end_acks`) per `on_ack`.
    pub ack_ns: f64,
    /// The send path per transmit pass (`on_sent`; on noq with its `on_packet_sent` calls,
    /// `on_cwnd_limited` and `metrics()` reads).
    pub sent_ns: f64,
    /// Per `on_congestion_event`, on noq with its `on_packet_lost` calls (NaN if the
    /// recording has none).
    pub congestion_ns: f64,
    /// The whole replay, untimed inside (no brackets), per `on_ack`.
    pub whole_per_ack_ns: f64,
}

impl CpuFigures {
    /// These figures less the floor's (the controller's own cost, without the replay loop's).
    pub fn net_of(&self, floor: &Self) -> Self {
        Self {
            name: self.name,
            origin: self.origin,
            ack_ns: self.ack_ns - floor.ack_ns,
            sent_ns: self.sent_ns - floor.sent_ns,
            congestion_ns: self.congestion_ns - floor.congestion_ns,
            whole_per_ack_ns: self.whole_per_ack_ns - floor.whole_per_ack_ns,
        }
    }
}

/// The CPU figures of every controller on one recording.
#[derive(Debug, Clone)]
pub struct ReplayCpu {
    /// The stack (`quinn`, `noq`).
    pub stack: &'static str,
    /// The recording.
    pub recording: String,
    /// Its callback counts.
    pub counts: EventCounts,
    /// How exactly the replayed estimators match the recording.
    pub fidelity: RttFidelity,
    /// One row per contender, in the order given.
    pub rows: Vec<CpuFigures>,
    /// The no-op controller's figures (the replay loop's own cost).
    pub floor: CpuFigures,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Quantity {
    Section(Section),
    Whole,
}

const QUANTITIES: [Quantity; 4] = [
    Quantity::Section(Section::AckFrames),
    Quantity::Section(Section::Sent),
    Quantity::Section(Section::Congestion),
    Quantity::Whole,
];

/// One sample: `times` replays into fresh controllers, returning the summed time.
fn sample<S: HostStack>(
    replay: &Replay<S>,
    contender: &Contender<S>,
    quantity: Quantity,
    times: usize,
) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..times {
        let mut c = replay.build(&contender.factory);
        total += match quantity {
            Quantity::Section(s) => replay.run_timed(c.as_mut(), s),
            Quantity::Whole => {
                let start = Instant::now();
                replay.run(c.as_mut());
                start.elapsed()
            }
        };
    }
    total
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Measures every contender (and `floor`) on `replay`, interleaving them: each repeat goes
/// round all controllers (starting one further along each time), so slow drifts of the
/// machine spread over all of them alike.
pub fn measure_cpu<S: HostStack>(
    replay: &Replay<S>,
    contenders: &[Contender<S>],
    floor: &Contender<S>,
    options: &CpuOptions,
) -> ReplayCpu {
    let all: Vec<&Contender<S>> = contenders.iter().chain(std::iter::once(floor)).collect();
    let counts = replay.counts();
    // Warm up and size the samples.
    let times: Vec<usize> = all
        .iter()
        .map(|c| {
            let warm = sample(replay, c, Quantity::Whole, options.warmup.max(1));
            let per = warm.as_secs_f64() / options.warmup.max(1) as f64;
            ((options.min_sample.as_secs_f64() / per.max(1e-9)).ceil() as usize).max(1)
        })
        .collect();
    // values[contender][quantity][repeat], ns per call.
    let mut values = vec![vec![Vec::with_capacity(options.repeats); QUANTITIES.len()]; all.len()];
    for repeat in 0..options.repeats.max(1) {
        for k in 0..all.len() {
            let i = (k + repeat) % all.len();
            for (q, quantity) in QUANTITIES.iter().enumerate() {
                let per = match quantity {
                    Quantity::Section(Section::AckFrames) | Quantity::Whole => counts.acks,
                    Quantity::Section(Section::Sent) => counts.sent,
                    Quantity::Section(Section::Congestion) => counts.congestion,
                };
                let t = sample(replay, all[i], *quantity, times[i]);
                values[i][q].push(t.as_nanos() as f64 / (times[i] as f64 * per as f64));
            }
        }
    }
    let mut figures: Vec<CpuFigures> = all
        .iter()
        .zip(values.iter_mut())
        .map(|(c, v)| CpuFigures {
            name: c.name,
            origin: c.origin,
            ack_ns: median(&mut v[0]),
            sent_ns: median(&mut v[1]),
            congestion_ns: if counts.congestion == 0 {
                f64::NAN
            } else {
                median(&mut v[2])
            },
            whole_per_ack_ns: median(&mut v[3]),
        })
        .collect();
    let floor = figures.pop().unwrap_or(CpuFigures {
        name: floor.name,
        origin: Origin::Floor,
        ack_ns: f64::NAN,
        sent_ns: f64::NAN,
        congestion_ns: f64::NAN,
        whole_per_ack_ns: f64::NAN,
    });
    ReplayCpu {
        stack: S::NAME,
        recording: replay.name().to_owned(),
        counts,
        fidelity: replay.fidelity(),
        rows: figures,
        floor,
    }
}

/// Bytes of controller state per connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryFigures {
    /// The stack (`quinn`, `noq`).
    pub stack: &'static str,
    /// The controller.
    pub name: &'static str,
    /// Where it comes from.
    pub origin: Origin,
    /// `size_of` the controller the stack boxes, bytes.
    pub inline_bytes: usize,
    /// Per recording: heap bytes held after replaying it (counting allocator; `None` when the
    /// allocator is not installed), and the ledger's own figures for a port.
    pub after_replay: Vec<(String, Option<i64>, Option<LedgerFigures>)>,
    /// For a port: the ledger driven to both its bounds (see [`fill_ledger`]), and the heap
    /// the counting allocator saw the controller hold then.
    pub at_bound: Option<(LedgerFigures, Option<i64>)>,
}

impl MemoryFigures {
    /// `size_of` plus the largest heap seen (at the ledger's bound for a port).
    pub fn worst_total(&self) -> usize {
        let heap =
            self.at_bound
                .map(|(l, _)| l.heap_bytes)
                .into_iter()
                .chain(self.after_replay.iter().filter_map(|(_, h, l)| {
                    l.map(|l| l.heap_bytes).or(h.map(|h| h.max(0) as usize))
                }))
                .max()
                .unwrap_or(0);
        self.inline_bytes + heap
    }
}

/// Drives a controller's ledger to both its bounds with `config` (cc-core's defaults: 1024
/// packets, 128 batches): twice `ledger_batches` transmit passes of
/// `ceil(ledger_packets / ledger_batches)` packets each, 1 ms apart, none acknowledged.
pub fn fill_ledger<S: HostStack>(
    controller: &mut S::Controller,
    origin: Instant,
    config: &SignalConfig,
) {
    let batches = config.ledger_batches();
    let per = config.ledger_packets().div_ceil(batches) as u64;
    let mut pn = 0u64;
    for i in 0..2 * batches as u64 {
        pn += per;
        let sent = Step::Sent {
            now: origin + Duration::from_millis(i),
            bytes: 1200 * per,
            last_pn: pn - 1,
        };
        S::call(controller, &sent, &[]);
    }
}

/// Measures the memory of one contender: after a replay of each recording, and (ports) with
/// the ledger at its bound.
pub fn measure_memory<S: HostStack>(
    contender: &Contender<S>,
    replays: &[Replay<S>],
) -> MemoryFigures {
    let counting = alloc_count::installed();
    let mut after_replay = Vec::new();
    for replay in replays {
        // A first replay lets one-time process-wide allocations (tracing call sites) happen
        // outside the measured one.
        replay.run(replay.build(&contender.factory).as_mut());
        let before = alloc_count::snapshot();
        let mut c = replay.build(&contender.factory);
        replay.run(c.as_mut());
        let held = alloc_count::snapshot().since(&before).1 - contender.inline_bytes as i64;
        let ledger = contender.ledger.and_then(|read| read(c));
        after_replay.push((replay.name().to_owned(), counting.then_some(held), ledger));
    }
    let at_bound = contender.ledger.and_then(|read| {
        let origin = Instant::now();
        let before = alloc_count::snapshot();
        let mut c = S::build(&contender.factory, origin, 1200);
        fill_ledger::<S>(c.as_mut(), origin, &SignalConfig::default());
        let held = alloc_count::snapshot().since(&before).1 - contender.inline_bytes as i64;
        read(c).map(|l| (l, counting.then_some(held)))
    });
    MemoryFigures {
        stack: S::NAME,
        name: contender.name,
        origin: contender.origin,
        inline_bytes: contender.inline_bytes,
        after_replay,
        at_bound,
    }
}

/// Median emulator figures of one scenario under one packet protection.
#[derive(Debug, Clone)]
pub struct EmulatorFigures {
    /// The scenario.
    pub scenario: Scenario,
    /// How the runs' packets were protected.
    pub protection: PacketProtection,
    /// Every sample, fastest first.
    pub samples: Vec<EmulatorSample>,
}

impl EmulatorFigures {
    /// The median sample by wall time.
    pub fn median(&self) -> Option<&EmulatorSample> {
        self.samples.get(self.samples.len() / 2)
    }
}

/// Times `runs` runs of `scenario` under each packet protection, TLS then null (same seed: the
/// same simulated run each time; the two alternate run by run, so both see the same machine).
pub fn measure_emulator(
    scenario: &Scenario,
    runs: usize,
) -> Result<[EmulatorFigures; 2], RunError> {
    let mut figures =
        [PacketProtection::Tls, PacketProtection::Null].map(|protection| EmulatorFigures {
            scenario: scenario.clone(),
            protection,
            samples: Vec::new(),
        });
    for _ in 0..runs.max(1) {
        for f in &mut figures {
            f.samples.push(scenario.time_emulator(f.protection)?);
        }
    }
    for f in &mut figures {
        f.samples.sort_by_key(|s| s.wall);
    }
    Ok(figures)
}
