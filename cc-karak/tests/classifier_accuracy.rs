//! The loss-signal classifier against quinn's own loss detection, in real quinn connections
//! over netsim (docs/DESIGN.md section 3 targets: >= 99% agreement on the events quinn's callbacks
//! determine, >= 90% over all events).
//!
//! Four workloads, several seeds each: a bulk transfer with random loss, request/response
//! with small responses (tail losses), a bulk transfer through a 3-second blackout
//! (persistent congestion), and the harness demo's MANET path (random-waypoint mobility at
//! 20 m/s, 2 Mb/s hops, BER 1e-6 per hop), where small windows make most losses
//! time-threshold losses. Karak runs on both endpoints, so both directions' events count.

use cc_core::testing::{Agreement, GroundTruth};
use cc_karak::KarakConfig;
use netsim::quinn_pair::QuinnPair;
use netsim::{
    DirectionConfig, ErrorModelConfig, LinkConfig, MobilityConfig, PathModelConfig, QueueLimit,
    Rate, TraceConfig, TraceSchedule, virtual_runtime,
};
use std::sync::Arc;
use std::time::Duration;
use tracing_subscriber::layer::SubscriberExt;

fn karak_transport() -> Arc<quinn::TransportConfig> {
    let mut t = quinn::TransportConfig::default();
    t.congestion_controller_factory(KarakConfig::default().into_factory());
    Arc::new(t)
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

fn pair(link: LinkConfig, seed: u64) -> QuinnPair {
    QuinnPair::builder(link, seed)
        .client_transport(karak_transport())
        .server_transport(karak_transport())
        .build()
        .expect("valid link")
}

/// Runs `workload` under a fresh ground-truth recorder and returns its agreement; probe
/// timeouts are scored on `sender`'s side (`"client"` or `"server"`), the data sender's.
fn scored(sender: &'static str, workload: impl std::future::Future<Output = ()>) -> Agreement {
    let truth = GroundTruth::new(3).with_probe_timeout_side(sender);
    let subscriber = tracing_subscriber::registry().with(truth.layer());
    let _guard = tracing::subscriber::set_default(subscriber);
    tracing::callsite::rebuild_interest_cache();
    virtual_runtime().expect("runtime").block_on(workload);
    truth.agreement()
}

async fn bulk(link: LinkConfig, seed: u64, bytes: u64) {
    let report = pair(link, seed).transfer(bytes).await.expect("transfer");
    assert!(report.intact, "seed {seed}: bytes corrupted or missing");
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

async fn bulk_for(link: LinkConfig, seed: u64, duration: Duration) {
    let report = pair(link, seed)
        .transfer_for(duration)
        .await
        .expect("transfer");
    assert!(report.intact, "seed {seed}: bytes corrupted or missing");
}

async fn request_response(seed: u64, rounds: usize) {
    let pair = pair(link(0.03, PathModelConfig::AlwaysUp {}), seed);
    let (client, server) = pair.connect().await.expect("connect");
    let responder = tokio::spawn(async move {
        while let Ok((mut send, mut recv)) = server.accept_bi().await {
            let request = recv.read_to_end(64).await.expect("request");
            // Responses of 2 to 9 datagrams: most losses are near a flight's tail.
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
        assert!(response.iter().all(|&b| b == tag), "response {i} corrupted");
    }
    client.close(0u32.into(), b"done");
    let _ = responder.await;
}

#[test]
fn classifier_agrees_with_quinns_loss_detection() {
    let mut total = Agreement::default();
    let mut report = Vec::new();
    for seed in 1..=3 {
        let a = scored(
            "client",
            bulk(link(0.02, PathModelConfig::AlwaysUp {}), seed, 3_000_000),
        );
        report.push(format!("bulk PER 2%      seed {seed}: {a}"));
        total.add(&a);
    }
    for seed in 1..=3 {
        let a = scored("server", request_response(seed, 300));
        report.push(format!("request/response seed {seed}: {a}"));
        total.add(&a);
    }
    let blackout = TraceSchedule::parse("0 up\n1.5 down\n4.5 up\n", "blackout").unwrap();
    let mut persistent = 0;
    for seed in 1..=2 {
        let path = PathModelConfig::Trace(TraceConfig::new(blackout.clone()));
        let a = scored("client", bulk(link(0.01, path), seed, 4_000_000));
        report.push(format!("3 s blackout     seed {seed}: {a}"));
        persistent += a.persistent;
        total.add(&a);
    }
    for seed in 1..=2 {
        let a = scored(
            "client",
            bulk_for(manet_demo_link(), seed, Duration::from_secs(60)),
        );
        report.push(format!("MANET demo path  seed {seed}: {a}"));
        total.add(&a);
    }
    report.push(format!("all workloads: {total}"));
    // Visible with `cargo test -- --nocapture`; docs/loss-signals.md quotes these figures.
    println!("{}", report.join("\n"));

    assert!(total.events >= 100, "too few events to judge: {total}");
    assert_eq!(
        total.unpaired, 0,
        "every classification pairs with a quinn record"
    );
    assert!(
        persistent >= 1,
        "the blackout must cause persistent congestion"
    );
    // The hard cases must be present in numbers, or agreement would say little.
    assert!(
        total.timeouts >= 30,
        "too few time-threshold losses: {total}"
    );
    assert!(
        total.determined_rate() >= 0.99,
        "determined events: {:.2}% < 99%\n{}",
        100.0 * total.determined_rate(),
        report.join("\n")
    );
    // Probe timeouts, inferred on the data sender's side (cc_core::LossClassifier's docs).
    assert!(
        total.probe_timeouts >= 20,
        "too few probe timeouts to judge: {total}"
    );
    assert!(
        total.probe_timeout_recall() >= 0.80 && total.probe_timeout_precision() >= 0.90,
        "probe timeouts: {:.1}% inferred, {:.1}% of inferences right\n{}",
        100.0 * total.probe_timeout_recall(),
        100.0 * total.probe_timeout_precision(),
        report.join("\n")
    );
    assert!(
        total.overall_rate() >= 0.90,
        "all events: {:.2}% < 90%\n{}",
        100.0 * total.overall_rate(),
        report.join("\n")
    );
}
