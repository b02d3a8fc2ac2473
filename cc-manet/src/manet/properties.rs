//! The composite under every combination of its switches: generated rounds of ACKs, losses,
//! timeouts, idle periods and MTU changes, with the invariants checked after every step.
//!
//! - the window and ssthresh stay within `[minimum window, MAX_WINDOW]`, and nothing panics;
//! - every number the state holds is finite;
//! - the round's decision is pure (deciding changes nothing, and decides the same twice), and
//!   what the controller applies is the decision it returned: the window, phase, mode, growth,
//!   drain schedule, clear window, jitter allowance and rate checks after the round are the
//!   decision's; a loss `queue_free_loss` keeps changes nothing but its record.
//!
//! `every_combination_of_switches` runs one generated sequence per combination of the boolean
//! knobs (all 2^n of them); `random_switches_and_sequences` draws both (`CC_PROPTEST_CASES`
//! cases, default 10,000, as cc-core's harness).

use std::collections::HashSet;
use std::time::{Duration, Instant};

use cc_core::testing::proptest_cases;
use cc_core::{
    AckRoundEnd, AckSample, CongestionAlgorithm, CongestionEvent, KnobKind, KnobValue, LossSignal,
    MAX_WINDOW, PortConfig, RttSnapshot,
};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use super::{Manet, ManetDecision};
use crate::ManetConfig;

/// One step of a generated sequence.
#[derive(Debug, Clone)]
enum Step {
    /// A round trip: `packets` datagrams sent at once, acknowledged `rtt_ms` later, each
    /// `spread_ms / packets` later than the one before; `lost` of the last ones are not
    /// acknowledged.
    Round {
        packets: u8,
        rtt_ms: u16,
        spread_ms: u16,
        lost: u8,
        app_limited: bool,
    },
    /// A loss of a packet sent `ago_ms` before now, as `signal`.
    Loss { ago_ms: u16, signal: LossSignal },
    /// Silence (up to 15 s: past the base RTT's lifetime).
    Idle(u16),
    /// A new datagram size.
    Mtu(u16),
}

fn step() -> impl Strategy<Value = Step> {
    let signal = prop_oneof![
        4 => Just(LossSignal::FastRetransmit),
        1 => Just(LossSignal::Ecn),
        1 => Just(LossSignal::PERSISTENT),
        1 => (1u8..4).prop_map(|dup_acks| LossSignal::Timeout { dup_acks }),
    ];
    prop_oneof![
        12 => (1u8..120, prop_oneof![3 => 20u16..200, 1 => 0u16..2000], 0u16..80, prop_oneof![3 => Just(0u8), 1 => 0u8..4], prop::bool::weighted(0.05))
            .prop_map(|(packets, rtt_ms, spread_ms, lost, app_limited)| Step::Round { packets, rtt_ms, spread_ms, lost, app_limited }),
        2 => (0u16..3000, signal).prop_map(|(ago_ms, signal)| Step::Loss { ago_ms, signal }),
        1 => prop_oneof![0u16..500, 9_000u16..15_000].prop_map(Step::Idle),
        1 => prop_oneof![Just(1200u16), Just(1500u16), 0u16..=u16::MAX].prop_map(Step::Mtu),
    ]
}

fn sequence() -> impl Strategy<Value = Vec<Step>> {
    prop::collection::vec(step(), 1..80)
}

/// The boolean knobs, in declaration order.
fn switches() -> Vec<&'static cc_core::Knob<ManetConfig>> {
    ManetConfig::KNOBS
        .iter()
        .filter(|k| k.kind == KnobKind::Bool)
        .collect()
}

/// The default configuration with switch `i` set to bit `i` of `mask`.
fn config(mask: u32) -> ManetConfig {
    let mut config = ManetConfig::default();
    for (i, knob) in switches().into_iter().enumerate() {
        (knob.set)(&mut config, KnobValue::Bool(mask >> i & 1 == 1)).unwrap();
    }
    config.validate().unwrap();
    config
}

/// Where a check runs, for its failure message: formatted only when one fails, since the
/// sequences of every combination take millions of steps.
struct At<'a> {
    mask: u32,
    /// The step's index and the step; `None` before the first.
    step: Option<(usize, &'a Step)>,
}

impl std::fmt::Display for At<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.step {
            Some((i, step)) => write!(f, "mask {:#x}, step {i} ({step:?})", self.mask),
            None => write!(f, "mask {:#x}, start", self.mask),
        }
    }
}

/// The invariants that hold after every step.
fn check_state(m: &Manet, at: &At) {
    let w = &m.window;
    assert!(
        (w.minimum()..=MAX_WINDOW).contains(&w.cwnd()),
        "{at}: window {} outside [{}, MAX_WINDOW]",
        w.cwnd(),
        w.minimum()
    );
    assert!(
        (w.minimum()..=MAX_WINDOW).contains(&w.ssthresh()),
        "{at}: ssthresh {} outside [{}, MAX_WINDOW]",
        w.ssthresh(),
        w.minimum()
    );
    assert!(m.cwnd_packets().is_finite(), "{at}");
    assert!(
        m.last_diff().is_none_or(f64::is_finite),
        "{at}: {:?}",
        m.last_diff()
    );
    assert!(m.cubic.is_finite(), "{at}: {:?}", m.cubic);
    assert!(
        m.loss_ssthresh() <= w.cwnd(),
        "{at}: the loss cut raises the window"
    );
    assert!(m.schedule.interval >= 1, "{at}: {:?}", m.schedule);
    assert!(m.rate_schedule.interval >= 1, "{at}: {:?}", m.rate_schedule);
}

/// Ends an ACK frame on `m`, and checks that a round it ends applies the decision the pure
/// function returns.
fn end_acks(m: &mut Manet, end: &AckRoundEnd, at: &At) {
    let mut shadow = m.clone();
    m.on_end_acks(end);
    // The same frame, decomposed: measure, decide, apply.
    shadow.count_frame(end.now);
    if !shadow.rounds.on_ack_frame(end.largest_acked) {
        assert_eq!(*m, shadow, "{at}: no round ended, nothing decided");
        return;
    }
    let input = shadow.end_round(end.now);
    let frozen = shadow.clone();
    let d = shadow.decide_round(&input);
    assert_eq!(shadow, frozen, "{at}: deciding changed the state");
    assert_eq!(
        d,
        shadow.decide_round(&input),
        "{at}: decided differently twice"
    );
    assert_eq!(
        m.window.cwnd(),
        d.cwnd_after(shadow.window.cwnd()),
        "{at}: {d:?}"
    );
    if let Some(window) = &d.window {
        assert_eq!(m.window.ssthresh(), window.ssthresh(), "{at}: {d:?}");
    }
    assert_eq!(
        (m.phase, m.mode, m.growth, m.schedule),
        (d.phase, d.mode, d.growth, d.schedule),
        "{at}"
    );
    assert_eq!(
        (m.clear.clear_cwnd, m.jitter_ns),
        (d.clear_cwnd, d.jitter_ns),
        "{at}"
    );
    assert_eq!(
        (m.rate_schedule, m.rate_allowance_ns, m.rate_room),
        (d.rate_schedule, d.rate_allowance_ns, d.rate_room),
        "{at}"
    );
    if d.rule != ManetDecision::NoSample {
        assert_eq!(m.last_decision, Some(d.rule), "{at}");
    }
    shadow.apply(&d);
    shadow.round_start_cwnd = shadow.window.cwnd();
    shadow.last_decision = m.last_decision;
    assert_eq!(*m, shadow, "{at}: applied more than the decision");
}

/// A loss on `m`, checked as [`end_acks`] checks a round.
fn congestion(m: &mut Manet, event: &CongestionEvent, at: &At) {
    let mut shadow = m.clone();
    m.on_congestion(event);
    let lost = shadow.record_loss(event);
    if shadow.keeps_window(event, lost) {
        assert_eq!(m.last_decision, Some(ManetDecision::QueueFreeLoss), "{at}");
        shadow.last_decision = m.last_decision;
        assert_eq!(*m, shadow, "{at}: a kept loss changed more than its record");
        return;
    }
    if !shadow.recovery.admits(event) {
        assert_eq!(*m, shadow, "{at}: a loss inside recovery changed the state");
        return;
    }
    let d = shadow.decide_loss(event.signal);
    assert_eq!(
        m.window.cwnd(),
        d.cwnd_after(shadow.window.cwnd()),
        "{at}: {d:?}"
    );
    assert_eq!(
        (m.phase, m.mode, m.growth),
        (d.phase, d.mode, d.growth),
        "{at}"
    );
    assert_eq!(m.last_decision, Some(d.rule), "{at}");
    shadow.apply(&d);
    shadow.last_decision = m.last_decision;
    assert_eq!(*m, shadow, "{at}: applied more than the decision");
}

/// Runs `steps` on a composite with switches `mask`; returns the rules it took.
fn run(mask: u32, steps: &[Step]) -> HashSet<ManetDecision> {
    let mut rules = HashSet::new();
    let mut m = Manet::new(config(mask), 1200);
    let mut now = Instant::now();
    let mut pn = 0u64;
    check_state(&m, &At { mask, step: None });
    for (i, step) in steps.iter().enumerate() {
        let at = At {
            mask,
            step: Some((i, step)),
        };
        match *step {
            Step::Round {
                packets,
                rtt_ms,
                spread_ms,
                lost,
                app_limited,
            } => {
                let sent = now;
                let first = pn;
                for _ in 0..packets {
                    m.on_sent(sent, 1200, pn);
                    pn += 1;
                }
                let acked = u64::from(packets.saturating_sub(lost).max(1));
                let rtt = Duration::from_millis(u64::from(rtt_ms));
                let step = Duration::from_millis(u64::from(spread_ms)) / u32::from(packets);
                for k in 0..acked {
                    now = sent + rtt + step * k as u32;
                    let before = m.window.cwnd();
                    m.on_ack(&AckSample {
                        now,
                        sent,
                        bytes: 1200,
                        app_limited,
                        rtt: RttSnapshot::uniform(rtt),
                    });
                    // A rate-led slow start holds its cap on every ACK, not only at a round's
                    // end (BBR's startup): no ACK takes the window past it.
                    if let super::Mode::RateStartup(startup) = m.mode {
                        let cap = startup.window_cap().max(m.window.minimum());
                        assert!(
                            m.window.cwnd() <= cap.max(before),
                            "{at}: window {} over the startup's cap {}",
                            m.window.cwnd(),
                            startup.window_cap()
                        );
                    }
                }
                let end = AckRoundEnd {
                    now,
                    in_flight: 0,
                    app_limited,
                    largest_acked: Some(first + acked - 1),
                };
                end_acks(&mut m, &end, &at);
            }
            Step::Loss { ago_ms, signal } => {
                let sent = now
                    .checked_sub(Duration::from_millis(u64::from(ago_ms)))
                    .unwrap_or(now);
                let lost = if signal == LossSignal::Ecn { 0 } else { 1200 };
                congestion(
                    &mut m,
                    &CongestionEvent::determined(now, sent, lost, signal),
                    &at,
                );
            }
            Step::Idle(ms) => now += Duration::from_millis(u64::from(ms)),
            Step::Mtu(mtu) => m.on_mtu_update(mtu),
        }
        check_state(&m, &at);
        rules.extend(m.last_decision);
    }
    rules
}

#[test]
fn the_switches_are_the_boolean_knobs() {
    let names: Vec<_> = switches().iter().map(|k| k.name).collect();
    assert_eq!(names.len(), 21, "{names:?}");
    // Every combination sets each switch as its bit says.
    let all = config((1 << names.len()) - 1);
    assert!(all.backlog_bound() && all.leave_competitive_under_beta());
    let none = config(0);
    assert!(!none.backlog_bound() && !none.reset_base_on_timeout());
}

#[test]
fn every_combination_of_switches() {
    let n = switches().len();
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    );
    let strategy = sequence();
    let mut rules = HashSet::new();
    for mask in 0..1u32 << n {
        let steps = strategy.new_tree(&mut runner).unwrap().current();
        rules.extend(run(mask, &steps));
    }
    // The sequences reach every rule a controller records (all but `NoSample`), so that every
    // decision is checked somewhere.
    assert_eq!(rules.len(), 19, "rules taken: {rules:?}");
    assert!(!rules.contains(&ManetDecision::NoSample));
}

#[test]
fn random_switches_and_sequences() {
    let n = switches().len();
    let config = Config {
        cases: proptest_cases() / 10,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha));
    runner
        .run(&(0u32..1 << n, sequence()), |(mask, steps)| {
            run(mask, &steps);
            Ok(())
        })
        .unwrap();
}
