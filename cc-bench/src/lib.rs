//! Benchmarks: the CPU and memory cost of each congestion controller in this workspace beside
//! the host stack's own NewReno, Cubic and BBR, on quinn 0.11 and on noq 1.x, and the speed of
//! the netsim emulator (issues 7, 14 and 18, docs/DESIGN.md section 8). Not published; the
//! numbers and the commands that produce them are in `cc-bench/README.md`.
//!
//! Everything below is written once over [`HostStack`] ([`Quinn`], [`Noq`]): a stack says how to
//! build its controllers, make one recorded call on them and run a scenario; recordings,
//! replays and reports are the same code for both.
//!
//! ```
//! use cc_bench::scenarios::{recording_file, recording_scenarios};
//! use cc_bench::{Noq, Recording, Replay, HostStack};
//!
//! // noq's committed recording of the clean path, with real estimators from a short re-run.
//! let scenario = &recording_scenarios()[0];
//! let recording = Recording::load(&recording_file::<Noq>(scenario.name))?;
//! let short = cc_bench::scenarios::Scenario {
//!     duration: std::time::Duration::from_secs(1),
//!     ..scenario.clone()
//! };
//! let (_, palette) = short.record::<Noq>()?;
//! let replay = Replay::<Noq>::new(&recording, &palette)?;
//! // Every recorded call, into a fresh Karak on noq.
//! let karak = Noq::contenders().into_iter().find(|c| c.name == "karak").unwrap();
//! let mut controller = replay.build(&karak.factory);
//! let window = replay.run(controller.as_mut());
//! assert!(window >= 2 * 1200);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Pipeline
//!
//! 1. **Record** ([`RecordingFactory`], [`scenarios`]): a seeded netsim run of a bulk transfer
//!    with the stack's Cubic on the client, wrapped by a recording factory that logs every
//!    `Controller` callback with its arguments (times as nanoseconds since `build`) and the
//!    three public readings of the `RttEstimator` (`get`, `conservative`, `min`). On noq that
//!    includes the calls quinn does not make: `on_packet_sent`, `on_packet_lost`,
//!    `on_cwnd_limited`, `on_ack_frequency_update` and the `metrics()` reads of noq's send path.
//!    Three paths per stack: clean 10 Mb/s, 10 Mb/s with 1% packet errors, and a MANET mobility
//!    path. `cargo run --release -p cc-bench --bin record` regenerates `recordings/*.ccrec.gz`
//!    (deterministic: `-- --check` compares a re-run with the committed files).
//! 2. **Store** ([`format`](mod@format)): delta-coded postcard varints, gzipped: about 9 bytes
//!    per event before compression, 2-2.5 bytes per callback after.
//! 3. **Replay** ([`Replay`]): the recording is decoded once into a `Vec` of steps; replaying
//!    makes one call per step on a `Box<dyn Controller>` of the recording's stack, built by the
//!    controller's own `ControllerFactory`, with no allocation in the loop (`tests/alloc.rs`).
//!    A recording replays only on the stack it was made on.
//! 4. **Measure**: criterion benches (`benches/controllers.rs`, `benches/emulator.rs`) for
//!    `cargo bench`, and the `bench-report` binary ([`measure`], [`report`]), which measures
//!    with `Instant` loops (warm-up, interleaved repeats, medians) and writes the markdown
//!    tables with ratios to the host stack's NewReno and Cubic from the same run.
//!
//! # What the replay feeds each controller, and what that does to fidelity
//!
//! - **The same calls for everyone, through the stack's trait.** Every controller, the stack's
//!   and the ports, receives exactly the recorded sequence of calls with the recorded
//!   arguments, through the stack's `congestion::Controller` on a boxed controller, as the
//!   stack calls it. The ports (`cc_core::PortController`) therefore pay for
//!   `RttSnapshot::from_quinn`/`from_noq` and the loss classifier (inferring on quinn, exact on
//!   noq) as in a connection. Times are the recorded offsets added to one base `Instant`, exact
//!   to the nanosecond.
//! - **Real estimators.** `on_ack` takes the stack's `&RttEstimator`, which has no public
//!   constructor. It is `Copy`, so the recorder keeps a copy of every estimator the stack
//!   passed; those copies live only in memory, so before replaying, the recording's seeded
//!   scenario is run again ([`scenarios::Scenario::record`]) and its copies form an
//!   [`RttPalette`]. Each recorded reading is matched to a captured estimator with the same
//!   `get`, `conservative` and `min`; netsim runs are deterministic, so every reading matches
//!   exactly (the report prints the count; if quinn or netsim changed and a re-run no longer
//!   reproduces the recording, the nearest estimator is used and the count shows it). The RTT
//!   variance is private on both stacks and read by no controller.
//! - **Open loop.** The sequence is what the stack's Cubic did on that path; a controller replayed
//!   into it cannot change it. A controller whose window would have been smaller still sees
//!   ACKs for packets it would not have sent, and `in_flight`/`app_limited` are Cubic's. So a
//!   figure is the cost of the code paths this input drives, the same input for every
//!   controller: a fair comparison of per-callback cost, not a closed-loop simulation of each
//!   controller (the harness does that).
//! - **Faithful for the controller that was recorded.** `tests/replay.rs` records a live
//!   connection on each stack with its NewReno and Cubic and each port, writes it in the file
//!   format, reads it back, replays it into a fresh controller of the same kind and checks the
//!   window after every callback against the live one: identical.
//! - **Not measured.** Controller construction (`build`) and drop happen outside the timed
//!   region. No `tracing` subscriber is installed, so the ports' trace events cost only their
//!   disabled-callsite check, as in an application without a subscriber. quinn's BBR and noq's
//!   BBRv3 seed their RNGs from the OS at `build`, so their runs differ slightly from one
//!   another.
//!
//! # What is timed
//!
//! [`Replay::run_timed`] brackets one kind of callback with `Instant::now()`: each ACK frame
//! (its `on_ack` calls and the `on_end_acks` closing it), or each call of the send path
//! (`on_sent`; on noq also `on_packet_sent`, `on_cwnd_limited` and `metrics()`), or each call of
//! a loss (`on_congestion_event`; on noq also `on_packet_lost`); the other calls run untimed in between, so the controller's state
//! evolves as in the full sequence. The same replay into [`controllers::Noop`], a controller
//! that does nothing, measures the loop and the brackets themselves (the *floor*), and the
//! tables report controllers net of it. [`Replay::run`] replays without brackets, for the
//! "all callbacks per ACK" figure.
#![deny(missing_docs)]

pub mod controllers;
pub mod event;
pub mod format;
pub mod record;
pub mod replay;
pub mod scenarios;
pub mod stack;

pub use event::{Event, EventCounts, RttReading};
pub use format::{Meta, Recording};
pub use record::{RecordLog, RecordingFactory, Trace};
pub use replay::{Replay, RttFidelity, RttPalette, Section};
pub use stack::{HostStack, Noq, Quinn};
pub mod alloc_count;
pub mod measure;
pub mod passes;
pub mod report;
pub mod whole_process;
