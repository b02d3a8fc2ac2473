//! One property-test harness for every controller, so that every port is held to the same
//! invariants.
//!
//! Random sequences of quinn callbacks, including ones quinn would never make (send times in
//! the future, zero bytes, absurd packet numbers, MTU 0), and after every step the invariants
//! every controller promises: no panic, window within `[2 x mtu, MAX_WINDOW]`, ssthresh
//! reported, and `clone_box` an exact copy.

use crate::{CongestionAlgorithm, MAX_WINDOW, PortController, RttSnapshot};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use quinn_proto::congestion::Controller;
use std::time::{Duration, Instant};

/// One callback, with the arguments drawn at random.
#[derive(Debug, Clone)]
pub enum Op {
    /// Advance the clock.
    Advance(u32),
    /// A transmit pass of `n` datagrams of `bytes` each.
    Send {
        /// Datagrams in the pass.
        n: u8,
        /// Bytes per datagram.
        bytes: u16,
    },
    /// Packet-number jump (a skipped or a new-space packet number).
    SendAt(u64),
    /// `on_ack` for a packet sent `ago_ms` before now (negative: in the future).
    Ack {
        /// Milliseconds before now the packet was sent (negative: after now).
        ago_ms: i32,
        /// Bytes acknowledged.
        bytes: u16,
        /// The app-limited flag.
        app_limited: bool,
        /// Every RTT estimate in the snapshot: up to 2 s, now and then one no path produces
        /// (up to `Duration::MAX`).
        rtt: Duration,
    },
    /// `on_end_acks` with this largest acknowledged number (offset below the next number).
    EndAcks(Option<u16>),
    /// `on_congestion_event`.
    Congestion {
        /// Milliseconds before now the largest lost packet was sent (negative: in the future).
        ago_ms: i32,
        /// Persistent congestion flag.
        persistent: bool,
        /// Bytes lost (0: ECN).
        lost_bytes: u32,
    },
    /// `on_mtu_update`.
    Mtu(u16),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0u32..500).prop_map(Op::Advance),
        4 => (1u8..32, prop_oneof![Just(1200u16), 0u16..=u16::MAX]).prop_map(|(n, bytes)| Op::Send { n, bytes }),
        1 => any::<u64>().prop_map(Op::SendAt),
        6 => (-50i32..2000, prop_oneof![Just(1200u16), any::<u16>()], any::<bool>(), rtt())
            .prop_map(|(ago_ms, bytes, app_limited, rtt)| Op::Ack { ago_ms, bytes, app_limited, rtt }),
        3 => proptest::option::of(0u16..64).prop_map(Op::EndAcks),
        2 => (-50i32..3000, prop::bool::weighted(0.2), prop_oneof![Just(0u32), 1u32..10_000_000])
            .prop_map(|(ago_ms, persistent, lost_bytes)| Op::Congestion { ago_ms, persistent, lost_bytes }),
        1 => prop_oneof![Just(1200u16), Just(1500u16), any::<u16>()].prop_map(Op::Mtu),
    ]
}

/// RTT estimates no path produces, but a caller may pass: at and near `Duration::MAX`, and
/// where quinn's smoothing (`7 x smoothed`) or loss delay (`9/8 x`) would overflow.
pub const EXTREME_RTTS: [Duration; 5] = [
    Duration::MAX,
    Duration::from_nanos(u64::MAX),
    Duration::new(u64::MAX / 7 + 1, 0),
    Duration::new(u64::MAX / 2, 999_999_999),
    Duration::new(u64::MAX, 999_999_998),
];

fn rtt() -> impl Strategy<Value = Duration> {
    prop_oneof![
        19 => (0u64..2000).prop_map(Duration::from_millis),
        1 => prop::sample::select(&EXTREME_RTTS[..]),
    ]
}

fn at(now: Instant, ago_ms: i32) -> Instant {
    if ago_ms >= 0 {
        now.checked_sub(Duration::from_millis(ago_ms as u64))
            .unwrap_or(now)
    } else {
        now + Duration::from_millis(ago_ms.unsigned_abs() as u64)
    }
}

/// Applies `op` to `c`; `next_pn` and `mtu` are the caller's view of quinn's state.
fn apply<A: CongestionAlgorithm>(
    c: &mut PortController<A>,
    op: &Op,
    now: &mut Instant,
    next_pn: &mut u64,
    mtu: &mut u16,
) {
    match *op {
        Op::Advance(ms) => *now += Duration::from_millis(u64::from(ms)),
        Op::Send { n, bytes } => {
            for _ in 0..n {
                c.on_sent(*now, u64::from(bytes), *next_pn);
                *next_pn = next_pn.saturating_add(1);
            }
        }
        Op::SendAt(pn) => {
            c.on_sent(*now, 1200, pn);
            *next_pn = pn.saturating_add(1);
        }
        Op::Ack {
            ago_ms,
            bytes,
            app_limited,
            rtt,
        } => {
            let rtt = RttSnapshot::uniform(rtt);
            c.on_ack_sample(*now, at(*now, ago_ms), u64::from(bytes), app_limited, rtt);
        }
        Op::EndAcks(offset) => {
            let largest = offset.map(|o| next_pn.saturating_sub(u64::from(o) + 1));
            c.on_end_acks(*now, 0, false, largest);
        }
        Op::Congestion {
            ago_ms,
            persistent,
            lost_bytes,
        } => {
            c.on_congestion_event(*now, at(*now, ago_ms), persistent, u64::from(lost_bytes));
        }
        Op::Mtu(m) => {
            *mtu = m;
            c.on_mtu_update(m);
        }
    }
}

fn check<A: CongestionAlgorithm>(
    c: &PortController<A>,
    mtu: u16,
    step: usize,
) -> Result<(), TestCaseError> {
    let w = c.window();
    let floor = 2 * u64::from(mtu.max(1));
    prop_assert!(w >= floor, "step {step}: window {w} below minimum {floor}");
    prop_assert!(w <= MAX_WINDOW, "step {step}: window {w} above MAX_WINDOW");
    let m = c.metrics();
    prop_assert_eq!(m.congestion_window, w);
    prop_assert!(
        m.ssthresh.is_some(),
        "step {step}: ssthresh missing from metrics"
    );
    let clone = c.clone_box();
    prop_assert_eq!(clone.window(), w);
    prop_assert_eq!(clone.metrics().ssthresh, m.ssthresh);
    let clone = clone
        .into_any()
        .downcast::<PortController<A>>()
        .map_err(|_| TestCaseError::fail("into_any did not return the adapter"))?;
    prop_assert_eq!(
        format!("{:?}", clone),
        format!("{:?}", c),
        "step {}: clone differs",
        step
    );
    Ok(())
}

/// The number of property-test cases: `CC_PROPTEST_CASES` from the environment, or 10,000
/// (the count CI runs for every controller).
pub fn proptest_cases() -> u32 {
    std::env::var("CC_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000)
}

/// Runs `cases` random callback sequences (up to 120 steps each) against controllers made by
/// `make` (called with the initial MTU, 1200), checking the invariants after every step.
/// Deterministic: the runner's RNG has a fixed seed, so a failure reproduces.
pub fn check_controller_invariants<A: CongestionAlgorithm>(
    cases: u32,
    make: impl Fn(u16) -> PortController<A>,
) {
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha));
    let result = runner.run(&prop::collection::vec(op(), 1..120), |ops| {
        let mut mtu = 1200u16;
        let mut c = make(mtu);
        let mut now = Instant::now();
        let mut next_pn = 0u64;
        check(&c, mtu, 0)?;
        for (step, op) in ops.iter().enumerate() {
            apply(&mut c, op, &mut now, &mut next_pn, &mut mtu);
            check(&c, mtu, step + 1)?;
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{} invariant violated: {e}", A::NAME);
    }
}
