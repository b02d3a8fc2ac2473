//! With a counting allocator: the replay loop allocates nothing per event, and the memory
//! figures (`size_of` plus heap, ledger at its bound) agree with what the allocator saw.

use cc_bench::alloc_count::{self, CountingAlloc};
use cc_bench::controllers::Origin;
use cc_bench::measure::{fill_ledger, measure_memory};
use cc_bench::scenarios::{recording_file, recording_scenarios};
use cc_bench::{HostStack, Noq, Quinn, Recording, Replay, RttPalette, Section};
use cc_core::SignalConfig;
use std::time::Instant;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// A committed recording, with a palette of estimators captured from a tiny live run (the
/// readings then match only approximately, which does not matter for allocation counts).
fn replays<S: HostStack>() -> Vec<Replay<S>> {
    let short = cc_bench::scenarios::Scenario {
        duration: std::time::Duration::from_secs(1),
        ..recording_scenarios().remove(0)
    };
    let (_, palette): (_, RttPalette<S>) = short.record::<S>().expect("run");
    recording_scenarios()
        .iter()
        .map(|s| {
            let recording = Recording::load(&recording_file::<S>(s.name)).unwrap();
            Replay::new(&recording, &palette).unwrap()
        })
        .collect()
}

#[test]
fn replay_does_not_allocate_on_quinn() {
    replay_does_not_allocate::<Quinn>();
}

#[test]
fn replay_does_not_allocate_on_noq() {
    replay_does_not_allocate::<Noq>();
}

fn replay_does_not_allocate<S: HostStack>() {
    assert!(alloc_count::installed());
    let replays = replays::<S>();
    let floor = S::floor();
    for replay in &replays {
        let events = replay.counts().callbacks();
        // The loop itself: a controller that never allocates, replayed untimed and timed.
        let mut c = replay.build(&floor.factory);
        let before = alloc_count::snapshot();
        replay.run(c.as_mut());
        for s in [Section::AckFrames, Section::Sent, Section::Congestion] {
            replay.run_timed(c.as_mut(), s);
        }
        assert_eq!(
            alloc_count::snapshot().since(&before).0,
            0,
            "{}",
            replay.name()
        );

        // Real controllers: only their own amortised growth (the ledger's VecDeques double
        // a few times; noq's BBRv3 grows its sample buffers), never per event. quinn's own
        // controllers allocate nothing.
        for contender in S::contenders() {
            replay.run(replay.build(&contender.factory).as_mut()); // one-time tracing set-up
            let mut c = replay.build(&contender.factory);
            let before = alloc_count::snapshot();
            replay.run(c.as_mut());
            let (allocations, _) = alloc_count::snapshot().since(&before);
            match contender.origin {
                Origin::Stack if S::NAME == Quinn::NAME => {
                    assert_eq!(allocations, 0, "{}", contender.name)
                }
                _ => assert!(
                    allocations <= 32,
                    "{} allocated {allocations} times in {events} callbacks of {}",
                    contender.name,
                    replay.name()
                ),
            }
        }
    }
}

#[test]
fn ledger_fill_reaches_both_bounds_and_heap_matches_the_allocator() {
    let config = SignalConfig::default();
    // Only quinn's inferring classifier keeps a ledger; on noq none does.
    assert!(Noq::contenders().iter().all(|c| c.ledger.is_none()));
    for contender in Quinn::contenders() {
        let Some(read) = contender.ledger else {
            continue;
        };
        let origin = Instant::now();
        let before = alloc_count::snapshot();
        let mut c = Quinn::build(&contender.factory, origin, 1200);
        fill_ledger::<Quinn>(c.as_mut(), origin, &config);
        let held = alloc_count::snapshot().since(&before).1;
        let ledger = read(c).expect("a port's controller is a PortController");
        assert_eq!(
            ledger.packets_held,
            config.ledger_packets(),
            "{}",
            contender.name
        );
        assert_eq!(
            ledger.batches_held,
            config.ledger_batches(),
            "{}",
            contender.name
        );
        // The heap the allocator saw is the ledger's and the box's, nothing else.
        assert_eq!(
            held,
            (ledger.heap_bytes + contender.inline_bytes) as i64,
            "{}",
            contender.name
        );
        // Exactly the documented bound (1 byte per packet, 16 per batch): the ledger evicts
        // before it appends and never grows its buffers past the bounds.
        assert_eq!(
            ledger.heap_bytes,
            config.ledger_packets() + 16 * config.ledger_batches(),
            "{}",
            contender.name
        );
    }
}

#[test]
fn memory_figures_count_the_box_and_the_heap() {
    memory_figures_count_the_box_and_the_heap_on::<Quinn>();
    memory_figures_count_the_box_and_the_heap_on::<Noq>();
}

fn memory_figures_count_the_box_and_the_heap_on<S: HostStack>() {
    let replays = replays::<S>();
    for contender in S::contenders() {
        let m = measure_memory(&contender, &replays);
        assert_eq!(m.after_replay.len(), replays.len());
        for (name, held, ledger) in &m.after_replay {
            let held = held.expect("allocator installed");
            match ledger {
                Some(l) => assert_eq!(held, l.heap_bytes as i64, "{} {name}", m.name),
                // noq's BBRv3 keeps heap of its own (its figure is reported as measured);
                // every other controller without a ledger, the ports on noq included, none.
                None if m.name == "noq-bbr3" => assert!(held >= 0, "{} {name}", m.name),
                None => assert_eq!(held, 0, "{} {name}", m.name),
            }
        }
        assert_eq!(m.at_bound.is_some(), contender.ledger.is_some());
    }
}
