//! The loss-signal classifier on noq against noq's own loss detection: every event exact.
//!
//! noq names the largest lost packet in each congestion event, so the classifier reads `d` off
//! (`cc_core::LossClassifier::exact`). The truth is noq's own record of the same events,
//! logged outside the classifier by `cc_core::testing::NoqLossRecord`: the packet numbers noq
//! passed to `on_packet_lost` and the largest acknowledged packet number it passed to
//! `on_end_acks`. The workloads are quinn's (cc-karak/tests/classifier_accuracy.rs): bulk with
//! random loss, request/response with small responses, a 3-second blackout, and the harness
//! demo's MANET path, with Karak on both endpoints; then one bulk transfer per port.

use cc_core::PortConfig;
use cc_core::testing::{Agreement, GroundTruth, NoqLossRecord};
use netsim::noq_pair::NoqPair;
use netsim::{
    DirectionConfig, ErrorModelConfig, LinkConfig, MobilityConfig, PathModelConfig, QueueLimit,
    Rate, TraceConfig, TraceSchedule, virtual_runtime,
};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tracing_subscriber::layer::SubscriberExt;

/// Counts the classifier's warnings (target `cc`, level WARN): a threshold mismatch.
#[derive(Clone, Default)]
struct Warnings(Arc<AtomicUsize>);

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Warnings {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        let meta = event.metadata();
        if meta.target() == "cc" && *meta.level() == tracing::Level::WARN {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }
}

fn transport<C: PortConfig>() -> Arc<noq::TransportConfig> {
    let mut t = noq::TransportConfig::default();
    C::default().install_noq(&mut t);
    Arc::new(t)
}

trait InstallNoq {
    fn install_noq(self, transport: &mut noq::TransportConfig);
}

impl<C: PortConfig> InstallNoq for C {
    /// Installs the port as `cc_core::install` does, with noq's record around it.
    fn install_noq(self, transport: &mut noq::TransportConfig) {
        cc_core::install(self, transport);
        let port: Arc<dyn noq::congestion::ControllerFactory + Send + Sync> =
            Arc::new(cc_core::PortFactory::new(C::default()));
        transport.congestion_controller_factory(NoqLossRecord::new(port));
    }
}

fn link(per: f64, path: PathModelConfig) -> LinkConfig {
    LinkConfig::symmetric(DirectionConfig {
        rate: Rate::from_mbps(10),
        delay: Duration::from_millis(20),
        errors: vec![ErrorModelConfig::Per { p: per }],
        ..DirectionConfig::default()
    })
    .with_path(path)
}

/// The harness demo's path (harness/presets/demo.toml).
fn manet_demo_link() -> LinkConfig {
    LinkConfig::symmetric(DirectionConfig {
        rate: Rate::from_mbps(2),
        delay: Duration::from_millis(2),
        queue: QueueLimit::Packets(50),
        errors: vec![ErrorModelConfig::Ber { ber: 1e-6 }],
        ..DirectionConfig::default()
    })
    .with_path(PathModelConfig::Mobility(MobilityConfig {
        pause: Duration::from_secs(5),
        ..MobilityConfig::with_speed(20.0)
    }))
}

fn pair<C: PortConfig>(link: LinkConfig, seed: u64) -> NoqPair {
    NoqPair::builder(link, seed)
        .client_transport(transport::<C>())
        .server_transport(transport::<C>())
        .build()
        .expect("valid link")
}

/// Runs `workload` under a fresh ground-truth recorder; probe timeouts are scored on `sender`'s
/// side. Also returns how many threshold-mismatch warnings the classifiers gave.
fn scored_warned(
    sender: &'static str,
    workload: impl std::future::Future<Output = ()>,
) -> (Agreement, usize) {
    let truth = GroundTruth::new(3).with_probe_timeout_side(sender);
    let warnings = Warnings::default();
    let subscriber = tracing_subscriber::registry()
        .with(truth.layer())
        .with(warnings.clone());
    let _guard = tracing::subscriber::set_default(subscriber);
    tracing::callsite::rebuild_interest_cache();
    virtual_runtime().expect("runtime").block_on(workload);
    (truth.agreement(), warnings.0.load(Ordering::Relaxed))
}

/// [`scored_warned`], asserting that no classifier saw a threshold mismatch: every transport
/// here is installed with its port's thresholds, so one would be a false alarm.
fn scored(sender: &'static str, workload: impl std::future::Future<Output = ()>) -> Agreement {
    let (agreement, warnings) = scored_warned(sender, workload);
    assert_eq!(
        warnings, 0,
        "a threshold-mismatch warning on matching thresholds"
    );
    agreement
}

async fn bulk<C: PortConfig>(link: LinkConfig, seed: u64, bytes: u64) {
    let report = pair::<C>(link, seed)
        .transfer(bytes)
        .await
        .expect("transfer");
    assert!(report.intact, "seed {seed}: bytes corrupted or missing");
}

async fn bulk_for<C: PortConfig>(link: LinkConfig, seed: u64, duration: Duration) {
    let report = pair::<C>(link, seed)
        .transfer_for(duration)
        .await
        .expect("transfer");
    assert!(report.intact, "seed {seed}: bytes corrupted or missing");
}

async fn request_response<C: PortConfig>(seed: u64, rounds: usize) {
    let pair = pair::<C>(link(0.03, PathModelConfig::AlwaysUp {}), seed);
    let (client, server) = pair.connect().await.expect("connect");
    let responder = tokio::spawn(async move {
        while let Ok((mut send, mut recv)) = server.accept_bi().await {
            let request = recv.read_to_end(64).await.expect("request");
            let size = 1000 + 1200 * (usize::from(request[0]) % 8);
            send.write_all(&vec![request[0]; size])
                .await
                .expect("respond");
            send.finish().expect("finish");
        }
    });
    for i in 0..rounds {
        let (mut send, mut recv) = client.open_bi().await.expect("open");
        let tag = (i % 251) as u8;
        send.write_all(&[tag; 40]).await.expect("request");
        send.finish().expect("finish");
        let response = recv.read_to_end(1 << 20).await.expect("response");
        assert_eq!(response.len(), 1000 + 1200 * (usize::from(tag) % 8));
    }
    client.close(0u32.into(), b"done");
    let _ = responder.await;
}

#[test]
fn every_loss_signal_on_noq_is_exact() {
    type Karak = cc_karak::KarakConfig;
    let mut total = Agreement::default();
    let mut report = Vec::new();
    let mut add = |label: String, a: Agreement| {
        report.push(format!("{label}: {a}"));
        total.add(&a);
    };
    for seed in 1..=3 {
        let link = link(0.02, PathModelConfig::AlwaysUp {});
        let a = scored("client", bulk::<Karak>(link, seed, 3_000_000));
        add(format!("bulk PER 2%      seed {seed}"), a);
    }
    for seed in 1..=3 {
        let a = scored("server", request_response::<Karak>(seed, 300));
        add(format!("request/response seed {seed}"), a);
    }
    let blackout = TraceSchedule::parse("0 up\n1.5 down\n4.5 up\n", "blackout").unwrap();
    for seed in 1..=2 {
        let path = PathModelConfig::Trace(TraceConfig::new(blackout.clone()));
        let a = scored("client", bulk::<Karak>(link(0.01, path), seed, 4_000_000));
        add(format!("3 s blackout     seed {seed}"), a);
    }
    for seed in 1..=2 {
        let work = bulk_for::<Karak>(manet_demo_link(), seed, Duration::from_secs(60));
        add(
            format!("MANET demo path  seed {seed}"),
            scored("client", work),
        );
    }
    let per_port = |_seed: u64| link(0.02, PathModelConfig::AlwaysUp {});
    add(
        "bulk, PETRA      seed 1".into(),
        scored(
            "client",
            bulk::<cc_petra::PetraConfig>(per_port(1), 1, 2_000_000),
        ),
    );
    add(
        "bulk, TCP-UB     seed 1".into(),
        scored("client", bulk::<cc_ub::UbConfig>(per_port(1), 1, 2_000_000)),
    );
    add(
        "bulk, SACK-FeW   seed 1".into(),
        scored(
            "client",
            bulk::<cc_sackfew::SackFewConfig>(per_port(1), 1, 2_000_000),
        ),
    );
    add(
        "bulk, ABRA       seed 1".into(),
        scored(
            "client",
            bulk::<cc_abra::AbraConfig>(per_port(1), 1, 2_000_000),
        ),
    );
    report.push(format!("all workloads: {total}"));
    let report = report.join("\n");
    // Visible with `cargo test -- --nocapture`; docs/loss-signals.md quotes these figures.
    println!("{report}");

    assert!(total.events >= 100, "too few events to judge:\n{report}");
    assert!(
        total.persistent >= 1,
        "the blackout must cause persistent congestion:\n{report}"
    );
    assert!(
        total.timeouts >= 30,
        "too few time-threshold losses:\n{report}"
    );
    assert_eq!(
        total.unpaired, 0,
        "every classification pairs with noq's record:\n{report}"
    );
    assert_eq!(
        total.determined, total.events,
        "every event is determined:\n{report}"
    );
    assert_eq!(
        total.agree, total.events,
        "every event agrees with noq:\n{report}"
    );
}

#[test]
fn a_transport_with_other_thresholds_is_detected() {
    // The port's factory alone on a transport whose thresholds are not the port's (what an
    // application that sets the factory but not the thresholds gets): the classifier reads
    // `d` against 3 and 9/8, noq declares losses at 6 and 1.5.
    let mismatched = || {
        let mut t = noq::TransportConfig::default();
        t.congestion_controller_factory(Arc::new(cc_core::PortFactory::new(
            cc_karak::KarakConfig::default(),
        )))
        .packet_threshold(6)
        .time_threshold(1.5);
        Arc::new(t)
    };
    let work = async move {
        let pair = NoqPair::builder(link(0.02, PathModelConfig::AlwaysUp {}), 1)
            .client_transport(mismatched())
            .server_transport(mismatched())
            .build()
            .expect("valid link");
        let report = pair.transfer(2_000_000).await.expect("transfer");
        assert!(report.intact);
    };
    let (_, warnings) = scored_warned("client", work);
    assert!(warnings >= 1, "the mismatch went unnoticed");
}
