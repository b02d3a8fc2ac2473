//! netsim speed benchmark (a bench binary, not criterion: each sample is a 100-second run).
//!
//! Scenario (issue #3): 2 Mb/s, 45 ms one-way, PER 0.005 both ways, 100 simulated seconds of a
//! quinn bulk transfer with quinn's NewReno, in virtual time. Reports datagrams per wall second
//! and simulated seconds per wall second under TLS packet protection and under null packet
//! protection (the runs alternate, so both see the same machine; the simulated runs are
//! identical), plus the sans-IO link core on its own.
//!
//! Run: `cargo bench -p manet-netsim --bench speed` (add `-- --runs N` for more samples,
//! `-- --skip-core` to leave out the link-core figure, e.g. when profiling quinn runs).

use std::sync::Arc;
use std::time::{Duration, Instant};

use netsim::quinn_pair::QuinnPair;
use netsim::{
    DirectionConfig, DirectionId, ErrorModelConfig, Link, LinkConfig, PacketProtection, Rate,
    virtual_runtime,
};

fn scenario() -> LinkConfig {
    LinkConfig::symmetric(DirectionConfig {
        rate: Rate::from_mbps(2),
        delay: Duration::from_millis(45),
        errors: vec![ErrorModelConfig::Per { p: 0.005 }],
        ..DirectionConfig::default()
    })
}

struct Sample {
    wall: Duration,
    simulated: Duration,
    datagrams: u64,
    goodput_bytes: u64,
}

fn quinn_run(seed: u64, protection: PacketProtection) -> Sample {
    let runtime = virtual_runtime().expect("runtime");
    let wall = Instant::now();
    let report = runtime
        .block_on(async {
            let mut transport = quinn::TransportConfig::default();
            transport.congestion_controller_factory(Arc::new(
                quinn::congestion::NewRenoConfig::default(),
            ));
            let pair = QuinnPair::builder(scenario(), seed)
                .client_transport(Arc::new(transport))
                .packet_protection(protection)
                .build()?;
            pair.transfer_for(Duration::from_secs(100)).await
        })
        .expect("transfer");
    let wall = wall.elapsed();
    assert!(report.intact, "transfer corrupted");
    let accounting = report.accounting;
    Sample {
        wall,
        simulated: report.elapsed,
        datagrams: accounting.a_to_b.offered.datagrams + accounting.b_to_a.offered.datagrams,
        goodput_bytes: report.bytes_received,
    }
}

fn link_core_rate() -> f64 {
    let mut link = Link::new(scenario(), 1).expect("link");
    let count = 2_000_000u32;
    let gap = Duration::from_micros(5_000);
    let wall = Instant::now();
    let mut delivered = 0u64;
    for i in 0..count {
        if let netsim::Verdict::Deliver(_) = link.offer(DirectionId::AToB, gap * i, 1200) {
            delivered += 1;
        }
    }
    let rate = f64::from(count) / wall.elapsed().as_secs_f64();
    assert!(delivered > 0);
    rate
}

fn main() {
    let runs = std::env::args()
        .skip_while(|a| a != "--runs")
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(5u64);
    println!(
        "netsim speed: 2 Mb/s, 45 ms, PER 0.005, 100 s quinn NewReno bulk transfer, virtual time"
    );
    let mut by_protection: Vec<(PacketProtection, Vec<Sample>)> =
        [PacketProtection::Tls, PacketProtection::Null]
            .into_iter()
            .map(|p| (p, Vec::new()))
            .collect();
    for seed in 1..=runs {
        for (protection, samples) in &mut by_protection {
            samples.push(quinn_run(seed, *protection));
        }
    }
    let mut medians = Vec::new();
    for (protection, samples) in &mut by_protection {
        println!("packet protection: {}", protection.as_str());
        samples.sort_by_key(|s| s.wall);
        for s in samples.iter() {
            println!(
                "  wall {:>7.1} ms  simulated {:>6.2} s  datagrams {:>6}  goodput {:.3} Mb/s  {:>8.0} datagrams/wall-s  {:>6.0}x real time",
                s.wall.as_secs_f64() * 1e3,
                s.simulated.as_secs_f64(),
                s.datagrams,
                s.goodput_bytes as f64 * 8.0 / s.simulated.as_secs_f64() / 1e6,
                s.datagrams as f64 / s.wall.as_secs_f64(),
                s.simulated.as_secs_f64() / s.wall.as_secs_f64(),
            );
        }
        let median = &samples[samples.len() / 2];
        println!(
            "  median: {:.1} ms wall for {:.2} simulated s = {:.0}x real time; {:.0} datagrams per wall second",
            median.wall.as_secs_f64() * 1e3,
            median.simulated.as_secs_f64(),
            median.simulated.as_secs_f64() / median.wall.as_secs_f64(),
            median.datagrams as f64 / median.wall.as_secs_f64(),
        );
        medians.push(median.wall.as_secs_f64());
    }
    println!(
        "null / TLS median wall time: {:.3} (same simulated runs, alternating)",
        medians[1] / medians[0]
    );
    if !std::env::args().any(|a| a == "--skip-core") {
        println!(
            "link core alone (sans-IO, no quinn, no tokio): {:.0} datagrams per wall second",
            link_core_rate()
        );
    }
}
