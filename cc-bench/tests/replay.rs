//! The replay is faithful: a recording of a live connection, written to the file format and
//! read back, makes a fresh controller of the same kind go through exactly the windows the
//! live one went through, callback by callback.

use cc_bench::scenarios::{Scenario, recording_file, recording_scenarios};
use cc_bench::{Event, EventCounts, Meta, Recording, RecordingFactory, Replay, RttPalette};
use netsim::{DirectionConfig, ErrorModelConfig, LinkConfig, Rate};
use quinn_proto::congestion::{ControllerFactory, CubicConfig, NewRenoConfig};
use std::sync::Arc;
use std::time::Duration;

/// 10 Mb/s with 1% loss for 4 s: slow start, losses and recovery in a few thousand callbacks.
fn lossy() -> Scenario {
    Scenario {
        name: "test-lossy",
        description: "10 Mb/s, PER 1%, 4 s",
        link: LinkConfig::symmetric(DirectionConfig {
            rate: Rate::from_mbps(10),
            errors: vec![ErrorModelConfig::Per { p: 0.01 }],
            ..DirectionConfig::default()
        }),
        seed: 3,
        duration: Duration::from_secs(4),
    }
}

/// Records a live run of `factory`, round-trips it through the file format, replays it into a
/// fresh controller from `factory` and compares the window after every callback.
fn replay_reproduces_live_windows<F: ControllerFactory + Clone + Send + Sync + 'static>(
    factory: F,
) {
    let recorder = Arc::new(RecordingFactory::new(factory.clone()));
    lossy().run(recorder.clone()).expect("run");
    let trace = recorder.take().traces.remove(0);
    let counts = EventCounts::of(&trace.events);
    assert!(counts.acks > 1000 && counts.congestion > 0, "{counts:?}");

    let recording = Recording {
        meta: Meta {
            name: "test".into(),
            description: String::new(),
            seed: 3,
            recorded_controller: String::new(),
            initial_mtu: trace.initial_mtu,
            quinn_proto: String::new(),
        },
        events: trace.events.clone(),
    };
    let recording = Recording::from_bytes(&recording.to_bytes().unwrap(), "test").unwrap();
    assert_eq!(recording.events, trace.events);

    let mut palette = RttPalette::new();
    palette.add_trace(&trace);
    let replay = Replay::new(&recording, &palette).unwrap();
    assert_eq!(replay.fidelity().exact, replay.fidelity().readings);

    let factory: Arc<dyn ControllerFactory + Send + Sync> = Arc::new(factory);
    let mut controller = replay.build(&factory);
    let mut windows = Vec::new();
    replay.run_inspect(controller.as_mut(), |c| windows.push(c.window()));
    assert_eq!(windows.len(), trace.windows.len());
    let first_difference = windows.iter().zip(&trace.windows).position(|(a, b)| a != b);
    assert_eq!(
        first_difference, None,
        "replayed window differs from the live one"
    );
    // Not trivially constant: the window moved.
    assert!(windows.iter().min() < windows.iter().max());
}

#[test]
fn quinn_cubic_replay_matches_live_run() {
    replay_reproduces_live_windows(CubicConfig::default());
}

#[test]
fn quinn_newreno_replay_matches_live_run() {
    replay_reproduces_live_windows(NewRenoConfig::default());
}

#[test]
fn karak_replay_matches_live_run() {
    replay_reproduces_live_windows(cc_core::PortFactory::new(cc_karak::KarakConfig::default()));
}

#[test]
fn ub_replay_matches_live_run() {
    replay_reproduces_live_windows(cc_core::PortFactory::new(cc_ub::UbConfig::default()));
}

#[test]
fn committed_recordings_load_and_stay_small() {
    let mut total = 0;
    for scenario in recording_scenarios() {
        let path = recording_file(scenario.name);
        total += std::fs::metadata(&path).expect("recording committed").len();
        let rec = Recording::load(&path).unwrap();
        assert_eq!(rec.meta.name, scenario.name);
        assert_eq!(rec.meta.seed, scenario.seed);
        let c = EventCounts::of(&rec.events);
        assert!(c.acks > 1000 && c.congestion > 10 && c.sent > 1000, "{c:?}");
        // Every on_ack has RTT readings before it (the replay needs them).
        let first_ack = rec
            .events
            .iter()
            .position(|e| matches!(e, Event::Ack { .. }));
        let first_rtt = rec.events.iter().position(|e| matches!(e, Event::Rtt(_)));
        assert!(first_rtt < first_ack);
    }
    assert!(total < 2_000_000, "recordings take {total} bytes");
}

#[test]
fn petra_replay_matches_live_run() {
    replay_reproduces_live_windows(cc_core::PortFactory::new(cc_petra::PetraConfig::default()));
}

#[test]
fn sackfew_replay_matches_live_run() {
    replay_reproduces_live_windows(cc_core::PortFactory::new(
        cc_sackfew::SackFewConfig::default(),
    ));
}

#[test]
fn abra_replay_matches_live_run() {
    replay_reproduces_live_windows(cc_core::PortFactory::new(cc_abra::AbraConfig::default()));
}
