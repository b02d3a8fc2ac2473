//! With a counting allocator: the replay loop allocates nothing per event, and the memory
//! figures (`size_of` plus heap, ledger at its bound) agree with what the allocator saw.

use cc_bench::alloc_count::{self, CountingAlloc};
use cc_bench::controllers::{Origin, contenders, floor};
use cc_bench::measure::{fill_ledger, measure_memory};
use cc_bench::scenarios::{recording_file, recording_scenarios};
use cc_bench::{Recording, Replay, RttPalette, Section};
use cc_core::SignalConfig;
use std::time::Instant;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// A committed recording, with a palette of estimators captured from a tiny live run (the
/// readings then match only approximately, which does not matter for allocation counts).
fn replays() -> Vec<Replay> {
    let short = cc_bench::scenarios::Scenario {
        duration: std::time::Duration::from_secs(1),
        ..recording_scenarios().remove(0)
    };
    let (_, palette): (_, RttPalette) = short.record().expect("run");
    recording_scenarios()
        .iter()
        .map(|s| Replay::new(&Recording::load(&recording_file(s.name)).unwrap(), &palette).unwrap())
        .collect()
}

#[test]
fn replay_does_not_allocate() {
    assert!(alloc_count::installed());
    let replays = replays();
    let floor = floor();
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
        // a few times), never per event.
        for contender in contenders() {
            replay.run(replay.build(&contender.factory).as_mut()); // one-time tracing set-up
            let mut c = replay.build(&contender.factory);
            let before = alloc_count::snapshot();
            replay.run(c.as_mut());
            let (allocations, _) = alloc_count::snapshot().since(&before);
            match contender.origin {
                Origin::Quinn => assert_eq!(allocations, 0, "{}", contender.name),
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
    for contender in contenders() {
        let Some(read) = contender.ledger else {
            continue;
        };
        let origin = Instant::now();
        let before = alloc_count::snapshot();
        let mut c = contender.factory.clone().build(origin, 1200);
        fill_ledger(c.as_mut(), origin, &config);
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
    let replays = replays();
    for contender in contenders() {
        let m = measure_memory(&contender, &replays);
        assert_eq!(m.after_replay.len(), replays.len());
        for (name, held, ledger) in &m.after_replay {
            let held = held.expect("allocator installed");
            match ledger {
                Some(l) => assert_eq!(held, l.heap_bytes as i64, "{} {name}", m.name),
                None => assert_eq!(held, 0, "{} {name}", m.name),
            }
        }
        assert_eq!(m.at_bound.is_some(), contender.ledger.is_some());
    }
}
