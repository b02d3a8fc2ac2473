//! Where a port should not lose to NewReno, it does not: TCP-UB on a static, clean, short-RTT
//! link (the fidelity review's check, which the "window of N datagrams carries N-1" defect would
//! fail). The comparison holds on noq, and on quinn with the config's `quinn_full_window`;
//! quinn's default send check is measured and printed, not required (docs/results/on-noq.md, "The same on
//! noq": quinn's own controllers carry N-1 too, so it stays the default).

use netsim::{DirectionConfig, LinkConfig, QueueLimit, Rate};
use std::sync::Arc;
use std::time::Duration;

const BYTES: u64 = 1_500_000;
const SEEDS: [u64; 3] = [1, 2, 3];

/// 2 Mb/s, 10 ms one way, a 50-packet queue, no errors: a window of a few datagrams.
fn link() -> LinkConfig {
    LinkConfig::symmetric(DirectionConfig {
        rate: Rate::from_mbps(2),
        delay: Duration::from_millis(10),
        queue: QueueLimit::Packets(50),
        ..DirectionConfig::default()
    })
}

fn ub(full_window: bool) -> cc_ub::UbConfig {
    let mut config = cc_ub::UbConfig::default();
    config.set_quinn_full_window(full_window);
    config
}

/// Summed transfer time over the seeds, quinn's or noq's.
fn quinn_time(factory: Arc<dyn quinn::congestion::ControllerFactory + Send + Sync>) -> Duration {
    SEEDS
        .iter()
        .map(|&seed| {
            let r =
                netsim::quinn_pair::transfer_with_controller(link(), seed, factory.clone(), BYTES)
                    .expect("quinn transfer");
            assert!(r.intact);
            r.elapsed
        })
        .sum()
}

fn noq_time(factory: Arc<dyn noq::congestion::ControllerFactory + Send + Sync>) -> Duration {
    SEEDS
        .iter()
        .map(|&seed| {
            let r =
                netsim::noq_pair::transfer_with_controller(link(), seed, factory.clone(), BYTES)
                    .expect("noq transfer");
            assert!(r.intact);
            r.elapsed
        })
        .sum()
}

#[test]
fn tcp_ub_keeps_up_with_newreno_on_a_clean_short_link() {
    let ratio = |port: Duration, newreno: Duration| newreno.as_secs_f64() / port.as_secs_f64();
    let noq = ratio(
        noq_time(Arc::new(cc_core::PortFactory::new(ub(false)))),
        noq_time(Arc::new(noq::congestion::NewRenoConfig::default())),
    );
    let quinn_newreno = quinn_time(Arc::new(quinn::congestion::NewRenoConfig::default()));
    let quinn_full = ratio(
        quinn_time(Arc::new(cc_core::PortFactory::new(ub(true)))),
        quinn_newreno,
    );
    let quinn_default = ratio(
        quinn_time(Arc::new(cc_core::PortFactory::new(ub(false)))),
        quinn_newreno,
    );
    // Visible with --nocapture; goodput ratios to the stack's NewReno.
    println!(
        "TCP-UB / NewReno goodput: noq {noq:.3}, quinn with quinn_full_window {quinn_full:.3}, \
         quinn's default {quinn_default:.3}"
    );
    assert!(noq >= 0.9, "noq: TCP-UB at {noq:.3}x NewReno");
    assert!(
        quinn_full >= 0.9,
        "quinn, full window: {quinn_full:.3}x NewReno"
    );
    assert!(
        quinn_full > quinn_default,
        "the full window must help on quinn: {quinn_full:.3} vs {quinn_default:.3}"
    );
}
