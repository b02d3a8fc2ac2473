//! Interop over lossy netsim paths in real time: each port as a quinn sender to a quiche
//! receiver, quiche senders to quinn and to quiche receivers. Every byte is checked.
//!
//! Real time, so the runs are short: 3 MB at 40 Mb/s with 20 ms RTT and 1% packet loss on
//! the data direction (loss-limited to a few Mb/s) take a few seconds each.

#![cfg(feature = "quiche")]

use std::sync::Arc;
use std::time::Duration;

use netsim::{DirectionConfig, ErrorModelConfig, LinkConfig, Rate};
use quiche_peer::{Amount, Error, PeerConfig, QuicheCc, Stack, TransferReport, TransferSpec};
use quinn::TransportConfig;
use quinn::congestion::ControllerFactory;

const BYTES: u64 = 3_000_000;

/// 40 Mb/s, 10 ms one way, 1% PER on the data direction (a -> b) only.
fn lossy_link() -> LinkConfig {
    let reverse = DirectionConfig {
        rate: Rate::from_mbps(40),
        delay: Duration::from_millis(10),
        ..DirectionConfig::default()
    };
    LinkConfig {
        a_to_b: DirectionConfig {
            errors: vec![ErrorModelConfig::Per { p: 0.01 }],
            ..reverse.clone()
        },
        b_to_a: reverse,
        ..LinkConfig::default()
    }
}

fn bytes(n: u64) -> Amount {
    Amount::Bytes {
        bytes: n,
        timeout: Duration::from_secs(60),
    }
}

/// The checks every transfer over [`lossy_link`] must pass.
fn assert_delivered(report: &TransferReport, what: &str) {
    assert_delivered_on(report, what, netsim::Clock::Real);
}

fn assert_delivered_on(report: &TransferReport, what: &str, clock: netsim::Clock) {
    eprintln!(
        "{what}: {:.2} Mb/s, {:.2} s, lost {}, retransmitted {:?}, sRTT p50 {:?}",
        report.goodput_bps / 1e6,
        report.elapsed.as_secs_f64(),
        report.sender_stats.packets_lost,
        report.sender_stats.packets_retransmitted,
        report.sender_stats.rtt_p50
    );
    assert!(report.intact, "{what}: not intact: {report:?}");
    assert_eq!(report.bytes_delivered, BYTES, "{what}");
    assert_eq!(report.first_mismatch, None, "{what}");
    assert_eq!(report.clock, clock, "{what}");
    let data = &report.accounting.a_to_b;
    assert!(data.is_balanced(), "{what}");
    // The path was lossy: ~1% of the ~1100 data datagrams were dropped, and the sender saw it.
    assert!(
        data.dropped.error.datagrams > 0,
        "{what}: no datagram was dropped"
    );
    assert!(
        report.sender_stats.packets_lost > 0,
        "{what}: sender saw no loss: {report:?}"
    );
    // The sender put at least the stream on the wire, and the goodput is below the link rate.
    assert!(report.sender_stats.udp_bytes_sent > BYTES, "{what}");
    assert!(
        report.goodput_bps > 0.0 && report.goodput_bps < 40e6,
        "{what}: {report:?}"
    );
    // Smoothed RTT of a 20 ms path, at least the propagation delay.
    let p50 = report.sender_stats.rtt_p50.expect("RTT samples");
    assert!(p50 >= Duration::from_millis(20), "{what}: sRTT p50 {p50:?}");
    assert!(p50 < Duration::from_millis(500), "{what}: sRTT p50 {p50:?}");
}

fn quinn_sender(label: &str, factory: Arc<dyn ControllerFactory + Send + Sync>) -> TransferSpec {
    let mut transport = TransportConfig::default();
    transport.congestion_controller_factory(factory);
    TransferSpec::quinn_to_quiche(lossy_link(), 11, label, Arc::new(transport), bytes(BYTES))
}

fn port_to_quiche(label: &str, factory: Arc<dyn ControllerFactory + Send + Sync>) {
    let report = quinn_sender(label, factory).run_blocking().unwrap();
    assert_eq!(
        (report.sender, report.receiver),
        (Stack::Quinn, Stack::Quiche)
    );
    assert_eq!(report.sender_controller, label);
    assert!(
        report.sender_stats.congestion_events.unwrap_or(0) > 0,
        "{label}: {report:?}"
    );
    assert_delivered(&report, label);
}

#[test]
fn karak_to_quiche_receiver() {
    port_to_quiche("karak", cc_karak::KarakConfig::default().into_factory());
}

#[test]
fn petra_to_quiche_receiver() {
    port_to_quiche("petra", cc_petra::PetraConfig::default().into_factory());
}

#[test]
fn ub_to_quiche_receiver() {
    port_to_quiche("ub", cc_ub::UbConfig::default().into_factory());
}

#[test]
fn sackfew_to_quiche_receiver() {
    port_to_quiche(
        "sackfew",
        cc_sackfew::SackFewConfig::default().into_factory(),
    );
}

#[test]
fn abra_to_quiche_receiver() {
    port_to_quiche("abra", cc_abra::AbraConfig::default().into_factory());
}

#[test]
fn quiche_cubic_to_quinn_receiver() {
    let spec = TransferSpec::quiche_to_quinn(lossy_link(), 12, QuicheCc::Cubic, bytes(BYTES));
    let report = spec.run_blocking().unwrap();
    assert_eq!(
        (report.sender, report.receiver),
        (Stack::Quiche, Stack::Quinn)
    );
    assert_eq!(report.sender_controller, "quiche-cubic");
    assert_delivered(&report, "quiche-cubic -> quinn");
    assert!(
        report.sender_stats.packets_retransmitted.unwrap_or(0) > 0,
        "{report:?}"
    );
}

fn quiche_to_quiche(cc: QuicheCc) {
    let report = TransferSpec::quiche_to_quiche(lossy_link(), 13, cc, bytes(BYTES))
        .run_blocking()
        .unwrap();
    assert_eq!(
        (report.sender, report.receiver),
        (Stack::Quiche, Stack::Quiche)
    );
    assert_eq!(report.sender_controller, cc.name());
    assert_delivered(&report, cc.name());
    let stats = &report.sender_stats;
    // quiche retransmits the data of lost packets in new packets.
    assert!(stats.packets_retransmitted.unwrap_or(0) > 0, "{report:?}");
    assert!(
        stats.stream_bytes_retransmitted.unwrap_or(0) > 0,
        "{report:?}"
    );
}

#[test]
fn quiche_reno_to_quiche() {
    quiche_to_quiche(QuicheCc::Reno);
}

#[test]
fn quiche_cubic_to_quiche() {
    quiche_to_quiche(QuicheCc::Cubic);
}

#[test]
fn quiche_bbr2_to_quiche() {
    quiche_to_quiche(QuicheCc::Bbr2);
}

/// A timed run counts what arrived by the deadline; goodput stays below what the link could
/// carry after its errors.
#[test]
fn timed_quiche_run_stays_within_link_capacity() {
    let link = LinkConfig::symmetric(DirectionConfig {
        rate: Rate::from_mbps(10),
        delay: Duration::from_millis(15),
        errors: vec![ErrorModelConfig::Per { p: 0.005 }],
        ..DirectionConfig::default()
    });
    let duration = Duration::from_secs(2);
    let report =
        TransferSpec::quiche_to_quiche(link, 14, QuicheCc::Cubic, Amount::Duration(duration))
            .run_blocking()
            .unwrap();
    assert!(report.intact, "{report:?}");
    assert_eq!(report.bytes_expected, None);
    assert_eq!(report.elapsed, duration);
    let data = &report.accounting.a_to_b;
    let capacity_bps = data.capacity_bytes * 8.0 / data.elapsed_seconds;
    // Delivered stream bytes cannot exceed what the link carried (payload after errors).
    assert!(
        report.goodput_bps <= capacity_bps,
        "{} > {capacity_bps}",
        report.goodput_bps
    );
    // 2 s at 10 Mb/s with a 30 ms RTT: CUBIC gets well past 1 Mb/s.
    assert!(report.goodput_bps > 1e6, "{report:?}");
}

/// A byte count that cannot arrive in time is a timeout naming what did arrive.
#[test]
fn slow_transfer_times_out_with_progress() {
    let link = LinkConfig::symmetric(DirectionConfig {
        rate: Rate::from_mbps(2),
        ..DirectionConfig::default()
    });
    let amount = Amount::Bytes {
        bytes: 5_000_000,
        timeout: Duration::from_secs(1),
    };
    let error = TransferSpec::quiche_to_quiche(link, 15, QuicheCc::Reno, amount)
        .run_blocking()
        .unwrap_err();
    match error {
        Error::Timeout {
            delivered,
            expected,
            ..
        } => {
            assert_eq!(expected, 5_000_000);
            // Less than 2 Mb/s x 1 s = 250 kB can have arrived.
            assert!(delivered < 250_000, "{delivered}");
        }
        other => panic!("expected a timeout, got {other}"),
    }
}

/// quiche cannot follow a paused clock: a virtual-time run is refused before anything starts,
/// with a message that says what to do; quinn-to-quinn runs in virtual time.
#[test]
fn virtual_time_is_refused_for_quiche_only() {
    let runtime = netsim::virtual_runtime().unwrap();
    let spec =
        TransferSpec::quiche_to_quinn(LinkConfig::default(), 16, QuicheCc::Cubic, bytes(10_000));
    let error = runtime.block_on(spec.run()).unwrap_err();
    assert!(matches!(error, Error::VirtualTimeUnsupported), "{error}");
    assert!(error.to_string().contains("clock = \"real\""), "{error}");
    assert!(quiche_peer::check_clock(netsim::Clock::Virtual).is_err());

    let quinn_only = TransferSpec::new(
        lossy_link(),
        17,
        PeerConfig::quinn_default(),
        PeerConfig::quinn_default(),
        bytes(BYTES),
    );
    let report = runtime.block_on(quinn_only.run()).unwrap();
    assert_delivered_on(
        &report,
        "quinn -> quinn, virtual time",
        netsim::Clock::Virtual,
    );
}

/// A MANET-style path whose route breaks twice during the transfer (trace replay: down for
/// 400 ms at 0.15 s and for 300 ms at 0.8 s): both directions recover from the outages (PTO,
/// then retransmission) and deliver intact.
#[test]
fn quiche_recovers_from_route_breakage() {
    const SMALL: u64 = 600_000;
    let trace = "0 up\n0.15 down\n0.55 up\n0.8 down\n1.1 up\n";
    let schedule = netsim::TraceSchedule::parse(trace, "test trace").unwrap();
    let link = LinkConfig::symmetric(DirectionConfig {
        rate: Rate::from_mbps(20),
        delay: Duration::from_millis(10),
        ..DirectionConfig::default()
    })
    .with_path(netsim::PathModelConfig::Trace(netsim::TraceConfig::new(
        schedule,
    )));
    for spec in [
        TransferSpec::quiche_to_quinn(link.clone(), 18, QuicheCc::Cubic, bytes(SMALL)),
        TransferSpec::quinn_to_quiche(
            link,
            19,
            "quinn-cubic",
            Arc::new(TransportConfig::default()),
            bytes(SMALL),
        ),
    ] {
        let report = spec.run_blocking().unwrap();
        eprintln!(
            "{} -> {}: {:.2} s, breakage drops {}",
            report.sender,
            report.receiver,
            report.elapsed.as_secs_f64(),
            report.accounting.a_to_b.dropped.breakage.datagrams
        );
        assert!(report.intact, "{report:?}");
        assert_eq!(report.bytes_delivered, SMALL);
        // The transfer outlasted the first outage and lost datagrams to it.
        assert!(report.elapsed > Duration::from_millis(550), "{report:?}");
        assert!(
            report.accounting.a_to_b.dropped.breakage.datagrams > 0,
            "{report:?}"
        );
    }
}
