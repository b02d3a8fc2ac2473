//! One exact loss, scripted on the emulated link, reaches Karak as the right loss signal.
//!
//! - A drop in the middle of a large flight: later packets are acknowledged past the packet
//!   threshold, so quinn declares it lost by fast retransmit (`d >= 3`).
//! - A drop of the second-to-last (third-to-last) datagram of a response flight: only one (two)
//!   later packets can be acknowledged, so quinn's time threshold declares it:
//!   `Timeout { dup_acks: 1 }` (`2`). The path's RTT (300 ms) is long enough that the receiver's
//!   delayed ACK of the last packet (25 ms) beats the time threshold (RTT / 8 after the ACK
//!   was due); on a 50 ms path quinn itself declares the third-to-last lost after one later
//!   packet (`d = 1`).
//!
//! Each expectation is also checked against quinn's own record of the lost packet numbers.

use cc_core::LossSignal;
use cc_core::testing::{GroundTruth, PairedEvent};
use cc_karak::KarakConfig;
use netsim::quinn_pair::QuinnPair;
use netsim::{DirectionConfig, DirectionId, LinkConfig, QueueLimit, Rate, virtual_runtime};
use std::sync::Arc;
use std::time::Duration;
use tracing_subscriber::layer::SubscriberExt;

const SEED: u64 = 11;
const RESPONSE: usize = 9 * 1200;

fn transport(karak: bool) -> Arc<quinn::TransportConfig> {
    let mut t = quinn::TransportConfig::default();
    // No MTU discovery: a lost discovery packet raises no congestion event, and they trail every
    // flight.
    t.mtu_discovery_config(None);
    if karak {
        t.congestion_controller_factory(KarakConfig::default().into_factory());
    }
    Arc::new(t)
}

fn link(one_way: Duration, a_to_b_drops: Vec<u64>, b_to_a_drops: Vec<u64>) -> LinkConfig {
    let dir = |drops| DirectionConfig {
        rate: Rate::from_mbps(20),
        delay: one_way,
        scripted_drops: drops,
        // Deep enough that slow start never overflows it: the scripted drop is the only loss.
        queue: QueueLimit::Packets(10_000),
        ..DirectionConfig::default()
    };
    LinkConfig {
        a_to_b: dir(a_to_b_drops),
        b_to_a: dir(b_to_a_drops),
        ..LinkConfig::default()
    }
}

/// Runs `f` with a ground-truth recorder installed and returns the paired events.
fn recorded<T>(f: impl FnOnce() -> T) -> (T, Vec<PairedEvent>) {
    let truth = GroundTruth::new(3);
    let subscriber = tracing_subscriber::registry().with(truth.layer());
    let out = tracing::subscriber::with_default(subscriber, || {
        // Callsites registered by a parallel test thread without a subscriber may have cached
        // "never"; recompute now that this recorder is installed.
        tracing::callsite::rebuild_interest_cache();
        f()
    });
    (out, truth.events())
}

#[test]
fn a_drop_mid_flight_is_a_fast_retransmit() {
    let (report, events) = recorded(|| {
        virtual_runtime().unwrap().block_on(async {
            QuinnPair::builder(link(Duration::from_millis(25), vec![400], vec![]), SEED)
                .client_transport(transport(true))
                .build()
                .unwrap()
                .transfer(2_000_000)
                .await
                .unwrap()
        })
    });
    assert!(report.intact);
    assert_eq!(events.len(), 1, "one drop, one event: {events:?}");
    assert_eq!(events[0].truth, LossSignal::FastRetransmit);
    assert_eq!(events[0].predicted, LossSignal::FastRetransmit);
}

/// One request, one response of `RESPONSE` bytes from the server (which runs Karak), with the
/// server's datagrams at `drops` dropped. Returns the server->client timeline and the events.
fn one_response(drops: Vec<u64>) -> (Vec<netsim::TimelineEntry>, Vec<PairedEvent>) {
    recorded(|| {
        virtual_runtime().unwrap().block_on(async {
            // RTT 300 ms: a receiver's delayed ACK (25 ms) of the flight's last packet arrives
            // before quinn's time threshold (RTT / 8 = 37.5 ms after it is due), so two later
            // packets can be acknowledged before the loss is declared.
            let pair = QuinnPair::builder(link(Duration::from_millis(150), vec![], drops), SEED)
                .server_transport(transport(true))
                .record_timeline(true)
                .build()
                .unwrap();
            let (client, server) = pair.connect().await.unwrap();
            let responder = tokio::spawn(async move {
                let (mut send, mut recv) = server.accept_bi().await.unwrap();
                recv.read_to_end(64).await.unwrap();
                send.write_all(&[7u8; RESPONSE]).await.unwrap();
                send.finish().unwrap();
                // Keep the connection until the client has everything.
                let _ = send.stopped().await;
                server
            });
            let (mut send, mut recv) = client.open_bi().await.unwrap();
            send.write_all(b"request").await.unwrap();
            send.finish().unwrap();
            let response = recv.read_to_end(1 << 20).await.unwrap();
            assert_eq!(response, vec![7u8; RESPONSE], "response intact");
            tokio::time::sleep(Duration::from_millis(200)).await;
            client.close(0u32.into(), b"done");
            let _ = responder.await;
            pair.link()
                .timeline()
                .into_iter()
                .filter(|e| e.direction == DirectionId::BToA)
                .collect()
        })
    })
}

#[test]
fn a_drop_near_the_tail_of_a_flight_is_a_graded_timeout() {
    let (timeline, events) = one_response(vec![]);
    assert!(events.is_empty(), "a clean run has no loss: {events:?}");
    // The response flight: the last burst of datagrams that arrived within 5 ms of each other.
    let mut bursts: Vec<Vec<u64>> = Vec::new();
    let mut last_at = 0u64;
    for e in &timeline {
        if bursts.is_empty() || e.received_at_nanos - last_at > 5_000_000 {
            bursts.push(Vec::new());
        }
        bursts.last_mut().unwrap().push(e.index);
        last_at = e.received_at_nanos;
    }
    let flight = bursts
        .iter()
        .rev()
        .find(|b| b.len() >= 6)
        .expect("the response went out as one flight");
    let last_full = *flight.last().unwrap();
    for (behind, expected) in [
        (1, LossSignal::Timeout { dup_acks: 1 }),
        (2, LossSignal::Timeout { dup_acks: 2 }),
    ] {
        let (_, events) = one_response(vec![last_full - behind]);
        assert_eq!(
            events.len(),
            1,
            "one drop {behind} from the tail: {events:?}"
        );
        assert_eq!(events[0].truth, expected, "quinn's own reading");
        assert_eq!(
            events[0].predicted, expected,
            "the classifier's class by distance"
        );
    }
}
