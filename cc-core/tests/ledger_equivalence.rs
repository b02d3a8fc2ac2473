//! The lean ledger against the ledger it replaced, event by event (issue 35): after every
//! operation of a random sequence shaped like quinn's callbacks (transmit passes of 1 to 128
//! packets, ACK frames with losses, reordering, duplicate and stale acknowledgements, both loss
//! thresholds, packet-number restarts, tight bounds), every query of the two must answer the
//! same, and so must every state byte.

mod support;

use cc_core::ledger::Ledger;
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};
use support::reference_ledger::ReferenceLedger;

#[derive(Debug, Clone)]
enum Op {
    /// A transmit pass `gap_us` after the previous one (0: the same `now`, which joins its batch)
    /// of `count` packets; `jump` packet numbers skipped first (255: back to 0, a new space).
    Send { gap_us: u16, count: u8, jump: u8 },
    /// An ACK frame: from `back` packets below the next unacknowledged one, `count` packet
    /// numbers, each skipped where `skips` has its bit set; the frame's largest is the last.
    Ack { back: u8, count: u8, skips: u16 },
    /// An acknowledgement for a send time the ledger never saw (or a stale one).
    StrayAck { offset_us: u16 },
    /// quinn's time threshold at a loss event: packets sent `age_us` or longer ago.
    TimeThreshold { age_us: u32 },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => (0u16..3000, 1u8..=128, prop_oneof![18 => Just(0u8), 1 => 1u8..=40, 1 => Just(255u8)])
            .prop_map(|(gap_us, count, jump)| Op::Send { gap_us, count, jump }),
        6 => (prop_oneof![8 => Just(0u8), 1 => 1u8..20], 1u8..=24, prop_oneof![3 => Just(0u16), 1 => any::<u16>()])
            .prop_map(|(back, count, skips)| Op::Ack { back, count, skips }),
        1 => any::<u16>().prop_map(|offset_us| Op::StrayAck { offset_us }),
        1 => (0u32..20_000).prop_map(|age_us| Op::TimeThreshold { age_us }),
    ]
}

/// What the test knows of the sends: each packet number's send time.
struct Sender {
    t0: Instant,
    now: Instant,
    next_pn: u64,
    next_to_ack: u64,
    largest_acked: Option<u64>,
    sent: BTreeMap<u64, Instant>,
}

fn compare(new: &Ledger, old: &ReferenceLedger, s: &Sender, step: usize) {
    let ctx = || format!("after operation {step}");
    assert_eq!(
        new.packets_held(),
        old.packets_held(),
        "packets held, {}",
        ctx()
    );
    assert_eq!(
        new.batches_held(),
        old.batches_held(),
        "batches held, {}",
        ctx()
    );
    assert_eq!(
        new.evicted_unresolved(),
        old.evicted_unresolved(),
        "{}",
        ctx()
    );
    assert_eq!(new.restarts(), old.restarts(), "{}", ctx());
    assert_eq!(new.heap_bytes(), old.heap_bytes(), "{}", ctx());
    for i in 0..new.batches_held() {
        assert_eq!(
            new.batch_range(i),
            old.batch_range(i),
            "batch {i}, {}",
            ctx()
        );
        assert_eq!(new.batch_time(i), old.batch_time(i), "batch {i}, {}", ctx());
    }
    let lo = s.next_pn.saturating_sub(300);
    for pn in lo..s.next_pn + 2 {
        assert_eq!(new.state(pn), old.state(pn), "state of {pn}, {}", ctx());
        assert_eq!(new.time_of(pn), old.time_of(pn), "time of {pn}, {}", ctx());
    }
    for (&pn, &t) in s.sent.range(lo..) {
        assert_eq!(
            new.batch_index(t),
            old.batch_index(t),
            "batch of {pn}, {}",
            ctx()
        );
    }
    for top in (lo..s.next_pn).step_by(7) {
        let first = top.saturating_sub(40);
        assert_eq!(
            new.largest_outstanding(first, top),
            old.largest_outstanding(first, top),
            "largest outstanding in [{first}, {top}], {}",
            ctx()
        );
    }
}

fn run(ops: &[Op], max_packets: usize, max_batches: usize) {
    let t0 = Instant::now();
    let mut new = Ledger::new(max_packets, max_batches);
    let mut old = ReferenceLedger::new(max_packets, max_batches);
    let mut s = Sender {
        t0,
        now: t0,
        next_pn: 0,
        next_to_ack: 0,
        largest_acked: None,
        sent: BTreeMap::new(),
    };
    for (step, op) in ops.iter().enumerate() {
        match *op {
            Op::Send {
                gap_us,
                count,
                jump,
            } => {
                s.now += Duration::from_micros(u64::from(gap_us));
                if jump == 255 {
                    s.next_pn = 0;
                    s.next_to_ack = 0;
                    s.largest_acked = None;
                    s.sent.clear();
                } else {
                    s.next_pn += u64::from(jump);
                }
                let last = s.next_pn + u64::from(count) - 1;
                for pn in s.next_pn..=last {
                    s.sent.insert(pn, s.now);
                }
                s.next_pn = last + 1;
                new.on_sent(s.now, last);
                old.on_sent(s.now, last);
            }
            Op::Ack { back, count, skips } => {
                let from = s.next_to_ack.saturating_sub(u64::from(back));
                let mut largest = None;
                for (bit, pn) in (from..s.next_pn).take(usize::from(count)).enumerate() {
                    if skips & (1 << (bit % 16)) != 0 {
                        continue;
                    }
                    let Some(&sent) = s.sent.get(&pn) else {
                        continue;
                    };
                    assert_eq!(
                        new.record_ack(sent),
                        old.record_ack(sent),
                        "record_ack of {pn}, operation {step}"
                    );
                    largest = Some(pn);
                }
                if let Some(largest) = largest {
                    let new_largest = s.largest_acked.is_none_or(|l| largest > l);
                    new.assign_acks(largest, new_largest);
                    old.assign_acks(largest, new_largest);
                    let l = s.largest_acked.map_or(largest, |l| l.max(largest));
                    s.largest_acked = Some(l);
                    s.next_to_ack = s.next_to_ack.max(largest + 1);
                    new.apply_packet_threshold(l, 3);
                    old.apply_packet_threshold(l, 3);
                }
            }
            Op::StrayAck { offset_us } => {
                let t = s.t0 + Duration::from_micros(u64::from(offset_us));
                assert_eq!(new.record_ack(t), old.record_ack(t), "operation {step}");
            }
            Op::TimeThreshold { age_us } => {
                if let Some(largest) = s.largest_acked {
                    let cutoff = s.now.checked_sub(Duration::from_micros(u64::from(age_us)));
                    let too_old = |t: Instant| cutoff.is_some_and(|c| t <= c);
                    new.apply_time_threshold(largest, too_old);
                    old.apply_time_threshold(largest, too_old);
                }
            }
        }
        compare(&new, &old, &s, step);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn the_lean_ledger_answers_as_the_old_one_at_the_default_bounds(
        ops in prop::collection::vec(op(), 1..300)
    ) {
        run(&ops, 1024, 128);
    }

    #[test]
    fn the_lean_ledger_answers_as_the_old_one_under_tight_bounds(
        ops in prop::collection::vec(op(), 1..300),
        max_packets in 1usize..200,
        max_batches in 1usize..24,
    ) {
        run(&ops, max_packets, max_batches);
    }
}
