//! TCP-UB's pseudo-code ("TCP-UB Algorithms"), branch by branch, with the arithmetic worked out.
//!
//! Round numbers throughout: 1200-byte datagrams, BaseRTT 100 ms, and bandwidth samples of `B`
//! bytes per 10 ms, so BWE = B / 10 ms exactly (the per-ACK-frame estimator with filter gain
//! 0, `westwood_plus = false`: BWE is the latest sample; Westwood+'s own estimator is tested
//! in cc-core and at the end here). `Diff = cwnd x (RTT - BaseRTT) / RTT` packets.

use cc_core::{AckRoundEnd, AckSample, CongestionAlgorithm, LossSignal, RttSnapshot};
use cc_ub::{DiffBand, Ub, UbConfig, UbDecision, UbPhase};
use std::time::{Duration, Instant};

const MTU: u16 = 1200;
const SEG: u64 = MTU as u64;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

struct Scenario {
    ub: Ub,
    now: Instant,
}

impl Scenario {
    /// A controller with a window of `cwnd` packets, BaseRTT 100 ms and BWE = `bwe_bytes` per
    /// 10 ms, still in slow start.
    fn new(cwnd: u64, bwe_bytes: u64) -> Self {
        Self::with(cwnd, bwe_bytes, |_| {})
    }

    /// [`Scenario::new`] with `configure` applied to the config.
    fn with(cwnd: u64, bwe_bytes: u64, configure: impl FnOnce(&mut UbConfig)) -> Self {
        let mut cfg = UbConfig::default();
        cfg.set_initial_window_packets(cwnd)
            .unwrap()
            .set_westwood_plus(false)
            .unwrap()
            .set_bwe_gain(0.0)
            .unwrap();
        configure(&mut cfg);
        let mut s = Self {
            ub: Ub::new(cfg, MTU),
            now: Instant::now() + Duration::from_secs(1),
        };
        // First frame starts the estimator's clock; its sample sets BaseRTT = 100 ms.
        s.frame(100, SEG);
        s.now += ms(10);
        s.frame(100, bwe_bytes);
        // These samples belong to no round under test.
        s.ub.on_round_end(false);
        assert_eq!(s.ub.base_rtt(), Some(ms(100)));
        assert_eq!(s.ub.bwe().unwrap().bits_per_second(), bwe_bytes * 800);
        assert_eq!(
            s.ub.window(),
            cwnd * SEG,
            "application-limited frames do not grow"
        );
        s
    }

    /// Puts the controller in congestion avoidance with a window of `cwnd` packets under an
    /// ssthresh of BWE x BaseRTT, so that each branch's arithmetic below starts from round
    /// numbers: a loss whose Westwood ssthresh is at least the window keeps the window and
    /// slow-starts (`losses_and_timeout`); slow start ends where the window reaches ssthresh,
    /// so ssthresh is lowered to the window for one acknowledgement that carries no bytes and
    /// no RTT sample (sent at `now`: zero samples are ignored), then restored. `react` starts
    /// no recovery period.
    fn in_avoidance(cwnd: u64, bwe_bytes: u64) -> Self {
        let mut s = Self::new(cwnd, bwe_bytes);
        assert_eq!(s.ub.react(LossSignal::FastRetransmit), UbDecision::Loss);
        assert_eq!(s.ub.phase(), UbPhase::SlowStart);
        let ssthresh = s.ub.ssthresh();
        s.ub.window_state_mut().set_ssthresh(cwnd * SEG);
        s.ub.on_ack(&AckSample {
            now: s.now,
            sent: s.now,
            bytes: 0,
            app_limited: false,
            rtt: RttSnapshot::uniform(ms(100)),
        });
        s.ub.window_state_mut().set_ssthresh(ssthresh);
        assert_eq!(s.ub.phase(), UbPhase::CongestionAvoidance);
        assert_eq!(s.ub.window(), cwnd * SEG);
        s
    }

    /// One application-limited ACK frame of `bytes` with an RTT sample of `rtt_ms`.
    fn frame(&mut self, rtt_ms: u64, bytes: u64) {
        let snapshot = RttSnapshot::uniform(ms(100));
        self.ub.on_ack(&AckSample {
            now: self.now,
            sent: self.now - ms(rtt_ms),
            bytes,
            app_limited: true,
            rtt: snapshot,
        });
        self.ub.on_end_acks(&AckRoundEnd {
            now: self.now,
            in_flight: 0,
            app_limited: true,
            largest_acked: None,
        });
    }

    /// A round whose RTT is `rtt_ms`, then its decision.
    fn round(&mut self, rtt_ms: u64) -> UbDecision {
        self.frame(rtt_ms, 0);
        self.ub.on_round_end(false)
    }
}

#[test]
fn congestion_avoidance_each_diff_band() {
    // BWE 9.6 Mb/s (12,000 bytes per 10 ms): BWE x BaseRTT = 120,000 bytes = 100 packets.
    // (round RTT ms, Diff, decision, window after pkts, ssthresh after pkts)
    let rows = [
        // 20 x 5 / 105 = 0.95 < alpha 2: CWND + 1.
        (105, 0.952, UbDecision::Increase, 21, 100),
        // 20 x 10 / 110 = 1.82 < 2: CWND + 1.
        (110, 1.818, UbDecision::Increase, 21, 100),
        // 20 x 12 / 112 = 2.14 in [2, 3): Westwood; ssthresh = 100 packets, cwnd 20 < 100 kept.
        (112, 2.143, UbDecision::Westwood, 20, 100),
        // 20 x 15 / 115 = 2.61 in [2, 3): Westwood.
        (115, 2.609, UbDecision::Westwood, 20, 100),
        // 20 x 20 / 120 = 3.33 in [3, 4]: hold.
        (120, 3.333, UbDecision::Hold, 20, 100),
        // 20 x 25 / 125 = 4.0 = beta, not above it: hold.
        (125, 4.0, UbDecision::Hold, 20, 100),
        // 20 x 30 / 130 = 4.62 > beta 4: CWND - 1.
        (130, 4.615, UbDecision::Decrease, 19, 100),
        // No queueing at all: 0 < 2, CWND + 1.
        (100, 0.0, UbDecision::Increase, 21, 100),
    ];
    for (rtt, diff, decision, cwnd, ssthresh) in rows {
        let mut s = Scenario::in_avoidance(20, 12_000);
        assert_eq!(s.round(rtt), decision, "RTT {rtt} ms");
        let got = s.ub.last_diff().unwrap();
        assert!(
            (got - diff).abs() < 1e-3,
            "RTT {rtt} ms: Diff {got}, expected {diff}"
        );
        assert_eq!(s.ub.window(), cwnd * SEG, "RTT {rtt} ms: window");
        assert_eq!(s.ub.ssthresh(), ssthresh * SEG, "RTT {rtt} ms: ssthresh");
    }
}

#[test]
fn westwood_band_cuts_the_window_to_the_estimate() {
    // cwnd 20 packets; BWE drops to 1.44 Mb/s (1800 bytes per 10 ms):
    // ssthresh = 1.44e6 x 0.1 / 8 = 18,000 bytes = 15 packets < cwnd -> CWND = ssthresh.
    let mut s = Scenario::in_avoidance(20, 12_000);
    s.now += ms(10);
    s.frame(115, 1800);
    assert_eq!(s.ub.bwe().unwrap().bits_per_second(), 1_440_000);
    // The frame's own sample (115 ms) is this round's RTT: Diff = 20 x 15 / 115 = 2.61.
    assert_eq!(s.ub.on_round_end(false), UbDecision::Westwood);
    assert_eq!(s.ub.window(), 15 * SEG);
    assert_eq!(s.ub.ssthresh(), 15 * SEG);
    // A tiny estimate: 120 bytes per 10 ms -> 1200 bytes = 1 packet -> floor of 2 packets.
    s.now += ms(10);
    s.frame(103, 120);
    // Diff = 15 x 3 / 103 = 0.44 < alpha: this round increases instead.
    assert_eq!(s.ub.on_round_end(false), UbDecision::Increase);
    assert_eq!(s.ub.westwood_ssthresh(), Some(2 * SEG));
}

#[test]
fn band_boundaries() {
    let band = |d| DiffBand::of(d, 2.0, 3.0, 4.0);
    assert_eq!(band(1.999), DiffBand::BelowAlpha);
    assert_eq!(band(2.0), DiffBand::AlphaToGamma, "alpha <= Diff");
    assert_eq!(band(2.999), DiffBand::AlphaToGamma);
    assert_eq!(
        band(3.0),
        DiffBand::GammaToBeta,
        "Diff < gamma ends the Westwood band"
    );
    assert_eq!(
        band(4.0),
        DiffBand::GammaToBeta,
        "Diff > beta decreases; beta holds"
    );
    assert_eq!(band(4.001), DiffBand::AboveBeta);
    assert_eq!(band(f64::NAN), DiffBand::GammaToBeta);
}

#[test]
fn configured_thresholds_move_the_bands() -> Result<(), cc_core::ConfigError> {
    // alpha 1, gamma 4, beta 8: Diff 3.33 (RTT 120 ms) is now in the Westwood band.
    let mut cfg = UbConfig::default();
    cfg.set_thresholds(1.0, 4.0, 8.0)?
        .set_initial_window_packets(20)?;
    let mut ub = Ub::new(cfg, MTU);
    let t = Instant::now() + Duration::from_secs(1);
    let sample = |ub: &mut Ub, now: Instant, rtt: u64| {
        ub.on_ack(&AckSample {
            now,
            sent: now - ms(rtt),
            bytes: SEG,
            app_limited: true,
            rtt: RttSnapshot::uniform(ms(100)),
        });
    };
    sample(&mut ub, t, 100);
    ub.on_round_end(false);
    ub.react(LossSignal::Ecn); // into congestion avoidance; no estimate: ssthresh = cwnd / 2
    assert_eq!(ub.window(), 10 * SEG);
    sample(&mut ub, t, 120);
    // Diff = 10 x 20 / 120 = 1.67 in [1, 4): Westwood; no estimate, so nothing to set.
    assert_eq!(ub.on_round_end(false), UbDecision::Westwood);
    assert_eq!(ub.window(), 10 * SEG);
    Ok(())
}

#[test]
fn vegas_slow_start_grows_every_other_round_and_exits_on_backlog() {
    // cwnd 10 packets, in slow start.
    let mut s = Scenario::new(10, 12_000);
    assert_eq!(s.ub.phase(), UbPhase::SlowStart);
    let grow = |s: &mut Scenario| {
        s.ub.on_ack(&AckSample {
            now: s.now,
            sent: s.now - ms(101),
            bytes: SEG,
            app_limited: false,
            rtt: RttSnapshot::uniform(ms(100)),
        });
    };
    // The priming round (application-limited) was a growth round, so this one holds.
    grow(&mut s);
    assert_eq!(
        s.ub.window(),
        10 * SEG,
        "every other round the window stays fixed"
    );
    // End of the round: Diff = 10 x 1 / 101 = 0.1 <= 1: stay in slow start.
    assert_eq!(s.ub.on_round_end(false), UbDecision::SlowStart);
    grow(&mut s);
    assert_eq!(
        s.ub.window(),
        11 * SEG,
        "+1 segment per acknowledged segment"
    );
    assert_eq!(s.ub.on_round_end(false), UbDecision::SlowStart);
    grow(&mut s);
    assert_eq!(s.ub.window(), 11 * SEG, "held again");
    assert_eq!(s.ub.on_round_end(false), UbDecision::SlowStart);
    grow(&mut s);
    assert_eq!(s.ub.window(), 12 * SEG, "and grows again");
    assert_eq!(s.ub.on_round_end(false), UbDecision::SlowStart);
    // A round with RTT 125 ms: Diff = 12 x 25 / 125 = 2.4 > 1: exit.
    // target = 14,400 x 100 / 125 = 11,520 bytes; cwnd = min(14,400, 11,520 + 1200) = 12,720;
    // ssthresh = 12,720 - 1200 = 11,520.
    assert_eq!(s.round(125), UbDecision::SlowStartExit);
    assert_eq!(s.ub.window(), 12_720);
    assert_eq!(s.ub.ssthresh(), 11_520);
    assert_eq!(s.ub.phase(), UbPhase::CongestionAvoidance);
    // In congestion avoidance, ACKs alone do not grow the window.
    grow(&mut s);
    assert_eq!(s.ub.window(), 12_720);
}

#[test]
fn linux_style_slow_start_grows_every_round() {
    let mut cfg = UbConfig::default();
    cfg.set_slow_start_every_other_rtt(false).unwrap();
    let mut ub = Ub::new(cfg, MTU);
    let t = Instant::now() + Duration::from_secs(1);
    for round in 1..=3u64 {
        ub.on_ack(&AckSample {
            now: t,
            sent: t - ms(100),
            bytes: SEG,
            app_limited: false,
            rtt: RttSnapshot::uniform(ms(100)),
        });
        assert_eq!(ub.window(), (10 + round) * SEG);
        assert_eq!(ub.on_round_end(false), UbDecision::SlowStart);
    }
}

#[test]
fn slow_start_ends_at_ssthresh() {
    // After a timeout, ssthresh = BWE x BaseRTT; slow start stops when the window reaches it.
    // BWE 1.44 Mb/s: 18,000 bytes = 15 packets.
    let mut s = Scenario::new(20, 1800);
    assert_eq!(s.ub.react(LossSignal::PERSISTENT), UbDecision::Timeout);
    assert_eq!(s.ub.phase(), UbPhase::SlowStart);
    for _ in 0..13 {
        s.ub.on_ack(&AckSample {
            now: s.now,
            sent: s.now - ms(100),
            bytes: SEG,
            app_limited: false,
            rtt: RttSnapshot::uniform(ms(100)),
        });
    }
    // 2 + 13 = 15 packets = ssthresh: congestion avoidance.
    assert_eq!(s.ub.window(), 15 * SEG);
    assert_eq!(s.ub.phase(), UbPhase::CongestionAvoidance);
}

#[test]
fn losses_and_timeout() {
    // (BWE bytes per 10 ms, signal, window after pkts, ssthresh after pkts, phase after)
    let rows = [
        // BWE x BaseRTT = 1800 x 100 / 10 = 18,000 bytes = 15 packets < cwnd 20: cut to 15.
        (
            1800,
            LossSignal::FastRetransmit,
            15,
            15,
            UbPhase::CongestionAvoidance,
        ),
        // Every timeout is the paper's timeout (by default persistent congestion).
        (
            1800,
            LossSignal::Timeout { dup_acks: 1 },
            2,
            15,
            UbPhase::SlowStart,
        ),
        // Every timeout is the paper's timeout (by default persistent congestion).
        (
            1800,
            LossSignal::Timeout { dup_acks: 2 },
            2,
            15,
            UbPhase::SlowStart,
        ),
        (1800, LossSignal::Ecn, 15, 15, UbPhase::CongestionAvoidance),
        // Estimate 100 packets > cwnd 20: the window is kept, ssthresh rises to 100, and the
        // window slow-starts towards it (TCP below ssthresh).
        (
            12_000,
            LossSignal::FastRetransmit,
            20,
            100,
            UbPhase::SlowStart,
        ),
        // Timeout: CWND = 1 -> 2 datagrams; ssthresh = 15 packets.
        (1800, LossSignal::PERSISTENT, 2, 15, UbPhase::SlowStart),
        // Timeout with a tiny estimate: 120 bytes per 10 ms -> 1 packet -> floor of 2.
        (120, LossSignal::PERSISTENT, 2, 2, UbPhase::SlowStart),
    ];
    for (bwe, signal, cwnd, ssthresh, phase) in rows {
        let mut s = Scenario::new(20, bwe);
        let expected = if signal.is_timeout() {
            UbDecision::Timeout
        } else {
            UbDecision::Loss
        };
        assert_eq!(s.ub.react(signal), expected, "{signal} bwe {bwe}");
        assert_eq!(s.ub.window(), cwnd * SEG, "{signal} bwe {bwe}: window");
        assert_eq!(
            s.ub.ssthresh(),
            ssthresh * SEG,
            "{signal} bwe {bwe}: ssthresh"
        );
        assert_eq!(s.ub.phase(), phase, "{signal} bwe {bwe}: phase");
    }
}

#[test]
fn loss_before_any_estimate_halves() {
    // No BWE yet: ssthresh = cwnd / 2 = 5 packets (NewReno), the window cut to it.
    let mut ub = Ub::new(UbConfig::default(), MTU);
    assert_eq!(ub.react(LossSignal::FastRetransmit), UbDecision::Loss);
    assert_eq!((ub.window(), ub.ssthresh()), (5 * SEG, 5 * SEG));
    assert_eq!(ub.react(LossSignal::PERSISTENT), UbDecision::Timeout);
    // Timeout: ssthresh = max(2, 5 / 2 = 2.5 packets = 3000 bytes), window 2 packets.
    assert_eq!((ub.window(), ub.ssthresh()), (2 * SEG, 3000));
}

#[test]
fn rounds_without_rtt_samples_make_no_decision() {
    let mut ub = Ub::new(UbConfig::default(), MTU);
    assert_eq!(ub.on_round_end(false), UbDecision::NoSample);
    assert_eq!(ub.window(), 10 * SEG);
}

#[test]
fn application_limited_rounds_do_not_increase() {
    let mut s = Scenario::in_avoidance(20, 12_000);
    s.frame(105, 0);
    // Diff 0.95 < alpha, but the sender was application-limited.
    assert_eq!(s.ub.on_round_end(true), UbDecision::Increase);
    assert_eq!(s.ub.window(), 20 * SEG);
}

#[test]
fn driven_by_quinns_callbacks_rounds_follow_packet_numbers() {
    // The cc-core driver plays quinn: each round sends the window in one pass, waits one RTT
    // and acknowledges everything in one frame.
    let cfg = UbConfig::default();
    let adapter = cc_core::PortController::new(Ub::new(cfg.clone(), MTU), cfg.signal().clone());
    let mut d = cc_core::testing::Driver::new(adapter);
    let mut windows = Vec::new();
    for rtt in [100, 100, 100, 100, 125] {
        let n = d.controller.algorithm().window() / SEG;
        d.send(n);
        d.advance(ms(rtt));
        assert_eq!(d.ack_all(), None, "no loss");
        windows.push(d.controller.algorithm().window() / SEG);
    }
    // Growth every other round while Diff = 0: 10 -> 20, hold, -> 40, hold, -> 80.
    assert_eq!(&windows[..4], &[20, 20, 40, 40]);
    assert_eq!(d.controller.algorithm().rounds(), 5);
    // Round 5 grew to 80 packets, but its 125 ms RTT was measured on the 40 packets (48,000
    // bytes) sent when it began: Diff = 40 x 25 / 125 = 8 > 1 -> exit with cwnd =
    // 48,000 x 100 / 125 + 1200 = 39,600, the backlog-free window plus one packet.
    let ub = d.controller.algorithm();
    assert_eq!(ub.last_decision(), Some(UbDecision::SlowStartExit));
    assert_eq!(ub.last_diff(), Some(8.0));
    assert_eq!(ub.window(), 39_600);
    assert_eq!(ub.ssthresh(), 38_400);

    // The grown window would have given Diff = 80 x 25 / 125 = 16 and an exit window of
    // 96,000 x 100 / 125 + 1200 = 78,000, twice the right size.
}

#[test]
fn rounds_inside_a_recovery_period_make_no_decision() {
    use cc_core::CongestionEvent;
    for mut s in [
        Scenario::in_avoidance(20, 12_000),
        Scenario::new(20, 12_000),
    ] {
        // A loss detected now of a packet sent 50 ms ago starts a recovery period at `now`.
        let loss =
            CongestionEvent::determined(s.now, s.now - ms(50), SEG, LossSignal::FastRetransmit);
        s.ub.on_congestion(&loss);
        let window = s.ub.window();
        // A round whose acknowledged packet was sent before the period began (RTT 130 ms:
        // Diff above beta).
        s.now += ms(10);
        s.frame(130, 0);
        assert_eq!(s.ub.on_round_end(false), UbDecision::InRecovery);
        assert_eq!(s.ub.window(), window, "no decision inside recovery");
        // A packet sent after the period began ends it: decisions resume.
        s.now += ms(200);
        s.frame(130, 0);
        assert_ne!(s.ub.on_round_end(false), UbDecision::InRecovery);
    }
}

#[test]
fn westwood_plus_estimates_over_a_round_trip() {
    // Westwood+: bytes over an interval of at least max(RTT, 50 ms), filtered twice (7/8).
    let mut cfg = UbConfig::default();
    cfg.set_westwood_plus(true).unwrap();
    let mut ub = Ub::new(cfg, MTU);
    let t = Instant::now() + Duration::from_secs(1);
    let frame = |ub: &mut Ub, now: Instant, bytes: u64| {
        ub.on_ack(&AckSample {
            now,
            sent: now - ms(100),
            bytes,
            app_limited: true,
            rtt: RttSnapshot::uniform(ms(100)),
        });
        ub.on_end_acks(&AckRoundEnd {
            now,
            in_flight: 0,
            app_limited: true,
            largest_acked: None,
        });
    };
    // 1200 bytes every 10 ms (960 kb/s): the first frame opens the interval, which closes at
    // the first frame more than one RTT (100 ms) later.
    for k in 0..=10 {
        frame(&mut ub, t + ms(10 * k), SEG);
        assert_eq!(ub.bwe(), None, "frame {k}: the interval is still open");
    }
    frame(&mut ub, t + ms(110), SEG);
    assert_eq!(ub.bwe().unwrap().bits_per_second(), 960_000);
}

#[test]
fn a_timeout_restarts_the_base_rtt_and_a_loss_does_not() {
    // Scenario::new primes the base RTT at 100 ms.
    let mut s = Scenario::new(20, 1800);
    assert_eq!(s.ub.base_rtt(), Some(ms(100)));
    // One ACK frame of one packet: the RTT tracker reads a frame's samples at its end.
    let sample = |s: &mut Scenario, rtt: Duration| {
        s.ub.on_ack(&AckSample {
            now: s.now,
            sent: s.now - rtt,
            bytes: SEG,
            app_limited: false,
            rtt: RttSnapshot::uniform(rtt),
        });
        s.ub.on_end_acks(&AckRoundEnd {
            now: s.now,
            in_flight: 0,
            app_limited: false,
            largest_acked: None,
        });
    };
    // An ordinary loss keeps the minimum: a longer sample does not raise it.
    s.ub.react(LossSignal::FastRetransmit);
    sample(&mut s, ms(300));
    assert_eq!(s.ub.base_rtt(), Some(ms(100)));
    // A timeout (the path may have changed): the next sample starts a new minimum.
    assert_eq!(s.ub.react(LossSignal::PERSISTENT), UbDecision::Timeout);
    assert_eq!(s.ub.base_rtt(), None);
    sample(&mut s, ms(300));
    assert_eq!(s.ub.base_rtt(), Some(ms(300)));
    sample(&mut s, ms(250));
    assert_eq!(s.ub.base_rtt(), Some(ms(250)));
}
