//! The replay is faithful: a recording of a live connection, written to the file format and
//! read back, makes a fresh controller of the same kind go through exactly the windows the
//! live one went through, callback by callback.

use cc_bench::replay::ReplayError;
use cc_bench::scenarios::{Scenario, recording_file, recording_scenarios};
use cc_bench::{
    Event, EventCounts, HostStack, Meta, Noq, Quinn, Recording, RecordingFactory, Replay,
    RttPalette,
};
use cc_core::PortFactory;
use netsim::{DirectionConfig, ErrorModelConfig, LinkConfig, Rate};
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

/// Records a live run of `factory` on stack `S`, round-trips it through the file format,
/// replays it into a fresh controller from `factory` and compares the window after every
/// callback.
fn replay_reproduces_live_windows<S: HostStack>(factory: Arc<S::Factory>) {
    let recorder = Arc::new(RecordingFactory::<S>::new(factory.clone()));
    S::run(&lossy(), S::recorder(recorder.clone())).expect("run");
    let trace = recorder.take().traces.remove(0);
    let counts = EventCounts::of(&trace.events);
    assert!(counts.acks > 1000 && counts.congestion > 0, "{counts:?}");
    if S::NAME == Noq::NAME {
        // noq's extra calls are recorded too.
        assert!(
            counts.packet_sent >= counts.sent && counts.packet_lost > 0 && counts.metrics > 0,
            "{counts:?}"
        );
    }

    let recording = Recording {
        meta: Meta {
            name: "test".into(),
            description: String::new(),
            seed: 3,
            recorded_controller: String::new(),
            initial_mtu: trace.initial_mtu,
            stack: S::NAME.into(),
            stack_version: S::VERSION.into(),
        },
        events: trace.events.clone(),
    };
    let recording = Recording::from_bytes(&recording.to_bytes().unwrap(), "test").unwrap();
    assert_eq!(recording.events, trace.events);

    let mut palette = RttPalette::<S>::new();
    palette.add_trace(&trace);
    let replay = Replay::<S>::new(&recording, &palette).unwrap();
    assert_eq!(replay.fidelity().exact, replay.fidelity().readings);

    let mut controller = replay.build(&factory);
    let mut windows = Vec::new();
    replay.run_inspect(controller.as_mut(), |c| windows.push(S::window(c)));
    assert_eq!(windows.len(), trace.windows.len());
    let first_difference = windows.iter().zip(&trace.windows).position(|(a, b)| a != b);
    assert_eq!(
        first_difference, None,
        "replayed window differs from the live one"
    );
    // Not trivially constant: the window moved.
    assert!(windows.iter().min() < windows.iter().max());
}

/// A port's factory on stack `S`.
fn port<S: HostStack, C: cc_core::PortConfig>() -> Arc<S::Factory>
where
    PortFactory<C>: IntoFactory<S>,
{
    PortFactory::new(C::default()).into_factory()
}

/// `Arc<PortFactory<C>>` as stack `S`'s factory trait object.
trait IntoFactory<S: HostStack> {
    fn into_factory(self) -> Arc<S::Factory>;
}

impl<C: cc_core::PortConfig> IntoFactory<Quinn> for PortFactory<C> {
    fn into_factory(self) -> Arc<<Quinn as HostStack>::Factory> {
        Arc::new(self)
    }
}

impl<C: cc_core::PortConfig> IntoFactory<Noq> for PortFactory<C> {
    fn into_factory(self) -> Arc<<Noq as HostStack>::Factory> {
        Arc::new(self)
    }
}

/// Every port on stack `S`.
fn every_port_replays_as_it_ran_live<S: HostStack>()
where
    PortFactory<cc_karak::KarakConfig>: IntoFactory<S>,
    PortFactory<cc_petra::PetraConfig>: IntoFactory<S>,
    PortFactory<cc_ub::UbConfig>: IntoFactory<S>,
    PortFactory<cc_sackfew::SackFewConfig>: IntoFactory<S>,
    PortFactory<cc_abra::AbraConfig>: IntoFactory<S>,
{
    replay_reproduces_live_windows::<S>(port::<S, cc_karak::KarakConfig>());
    replay_reproduces_live_windows::<S>(port::<S, cc_petra::PetraConfig>());
    replay_reproduces_live_windows::<S>(port::<S, cc_ub::UbConfig>());
    replay_reproduces_live_windows::<S>(port::<S, cc_sackfew::SackFewConfig>());
    replay_reproduces_live_windows::<S>(port::<S, cc_abra::AbraConfig>());
}

#[test]
fn quinn_cubic_replay_matches_live_run() {
    replay_reproduces_live_windows::<Quinn>(Arc::new(
        quinn_proto::congestion::CubicConfig::default(),
    ));
}

#[test]
fn quinn_newreno_replay_matches_live_run() {
    replay_reproduces_live_windows::<Quinn>(Arc::new(
        quinn_proto::congestion::NewRenoConfig::default(),
    ));
}

#[test]
fn ports_on_quinn_replay_as_they_ran_live() {
    every_port_replays_as_it_ran_live::<Quinn>();
}

#[test]
fn noq_cubic_replay_matches_live_run() {
    replay_reproduces_live_windows::<Noq>(Arc::new(noq_proto::congestion::CubicConfig::default()));
}

#[test]
fn noq_newreno_replay_matches_live_run() {
    replay_reproduces_live_windows::<Noq>(
        Arc::new(noq_proto::congestion::NewRenoConfig::default()),
    );
}

// noq's BBRv3 is left out: it seeds the RNG of its `ProbeBW` waits from the OS at `build`, so a
// replay cannot reproduce a live run's windows.

#[test]
fn ports_on_noq_replay_as_they_ran_live() {
    every_port_replays_as_it_ran_live::<Noq>();
}

#[test]
fn a_recording_replays_only_on_its_own_stack() {
    let short = Scenario {
        duration: Duration::from_millis(500),
        ..lossy()
    };
    let (noq_recording, _) = short.record::<Noq>().unwrap();
    let (_, quinn_palette) = short.record::<Quinn>().unwrap();
    let err = Replay::<Quinn>::new(&noq_recording, &quinn_palette).unwrap_err();
    assert!(matches!(err, ReplayError::WrongStack { .. }), "{err}");
    assert!(err.to_string().contains("recorded on noq"), "{err}");
    // Relabelled as quinn, its first noq-only call is named.
    let mut relabelled = noq_recording.clone();
    relabelled.meta.stack = Quinn::NAME.into();
    let err = Replay::<Quinn>::new(&relabelled, &quinn_palette).unwrap_err();
    let ReplayError::WrongStack { event, .. } = err else {
        panic!("{err}")
    };
    assert!(!event.on_quinn(), "{event:?}");
}

#[test]
fn committed_recordings_load_and_stay_small() {
    let total = committed_recordings_of::<Quinn>() + committed_recordings_of::<Noq>();
    assert!(total < 3_000_000, "recordings take {total} bytes");
}

/// Checks stack `S`'s committed recordings; returns their size in bytes.
fn committed_recordings_of<S: HostStack>() -> u64 {
    let mut total = 0;
    for scenario in recording_scenarios() {
        let path = recording_file::<S>(scenario.name);
        total += std::fs::metadata(&path).expect("recording committed").len();
        let rec = Recording::load(&path).unwrap();
        assert_eq!(rec.meta.name, scenario.name);
        assert_eq!(rec.meta.stack, S::NAME);
        assert!(rec.events.iter().all(S::delivers));
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
    total
}
