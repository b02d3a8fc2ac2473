//! ABRA NewReno driving real quinn transfers over netsim's emulated link, in virtual time.
//!
//! The link: 10 Mb/s each way, 20 ms one-way delay, a 100-packet drop-tail queue.

use cc_abra::AbraConfig;
use cc_core::testing::capture_events;
use netsim::quinn_pair::{QuinnPair, TransferReport};
use netsim::{
    DirectionConfig, LinkConfig, PathModelConfig, QueueLimit, Rate, TraceConfig, TraceSchedule,
    virtual_runtime,
};
use std::sync::Arc;
use std::time::Duration;

const SEED: u64 = 9;
const BYTES: u64 = 4_000_000;

fn link(path: PathModelConfig) -> LinkConfig {
    LinkConfig {
        path,
        ..LinkConfig::symmetric(DirectionConfig {
            rate: Rate::from_mbps(10),
            delay: Duration::from_millis(20),
            queue: QueueLimit::Packets(100),
            ..DirectionConfig::default()
        })
    }
}

/// Transfers `BYTES` client -> server with ABRA on the client; returns the report and the
/// controller's `cc` trace.
fn transfer(link: LinkConfig) -> (TransferReport, String) {
    capture_events("cc=debug", || {
        virtual_runtime().unwrap().block_on(async {
            let mut client = quinn::TransportConfig::default();
            client.congestion_controller_factory(AbraConfig::default().into_factory());
            // Flow-control windows larger than the transfer: the server (the receiver) then
            // sends only ACKs, nothing ack-eliciting, so after a route break the first packet
            // across the repaired route is the client's PTO packet. Otherwise the server's own
            // PTO packet gets there first carrying an ACK of a packet sent before the break; quinn takes
            // an RTT sample spanning the outage from it, its PTO (and so its persistent-
            // congestion period) inflates several-fold, and quinn declares no persistent
            // congestion at all, only a time-threshold loss (see the crate docs).
            let window = quinn::VarInt::from_u32(64_000_000);
            let mut server = quinn::TransportConfig::default();
            server.stream_receive_window(window).receive_window(window);
            client.send_window(64_000_000);
            QuinnPair::builder(link, SEED)
                .client_transport(Arc::new(client))
                .server_transport(Arc::new(server))
                .build()
                .unwrap()
                .transfer(BYTES)
                .await
                .unwrap()
        })
    })
}

/// The value of `field=<integer>` in a formatted event line.
fn field(line: &str, name: &str) -> u64 {
    let key = format!(" {name}=");
    let start = line
        .find(&key)
        .unwrap_or_else(|| panic!("no {name} in {line}"))
        + key.len();
    line[start..]
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{name} is not an integer in {line}"))
}

#[test]
fn completes_a_4mb_transfer_on_a_clean_link() {
    let (report, trace) = transfer(link(PathModelConfig::AlwaysUp {}));
    assert!(report.intact, "bytes verified");
    assert_eq!(report.bytes_received, BYTES);
    assert!(
        !trace.contains("abra backoff"),
        "no persistent congestion on a clean link:\n{trace}"
    );
}

#[test]
fn a_route_break_saves_collapses_and_restores_half_and_quarter() {
    // The route is down from 1 s to 4 s of the run: mid-transfer, and much longer than
    // quinn's persistent-congestion period (3 PTOs, a fraction of a second here).
    let schedule = TraceSchedule::parse("0 up\n1s down\n4s up\n", "e2e").unwrap();
    let (report, trace) = transfer(link(PathModelConfig::Trace(TraceConfig::new(schedule))));
    assert!(report.intact, "bytes verified");
    assert_eq!(report.bytes_received, BYTES);
    assert!(
        report.elapsed > Duration::from_secs(4),
        "the outage was sat out"
    );

    let saves: Vec<&str> = trace
        .lines()
        .filter(|l| l.contains("abra backoff") && l.contains("save_and_collapse"))
        .collect();
    let restores: Vec<&str> = trace
        .lines()
        .filter(|l| l.contains("abra restore"))
        .collect();
    assert_eq!(saves.len(), 1, "one outage, one save:\n{trace}");
    assert_eq!(
        restores.len(),
        1,
        "one restore when the route came back:\n{trace}"
    );
    let (save, restore) = (saves[0], restores[0]);
    // The backoff factor: quinn's smoothed RTT here (~41-100 ms) is at or below the starting
    // min_srtt of 100 ms, or just above it, so the factor is close to 1; in any case in [1, 2].
    let backoff: f64 = save
        .split(" backoff=")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no backoff in {save}"));
    assert!((1.0..=2.0).contains(&backoff), "{save}");
    assert!(save.contains("applied_by_quinn=false"), "{save}");
    // The restore: saved cwnd / 2 and saved ssthresh / 4, never below the 2 x 1200 minimum.
    let (saved_cwnd, saved_ssthresh) = (field(save, "saved_cwnd"), field(save, "saved_ssthresh"));
    assert_eq!(field(restore, "saved_cwnd"), saved_cwnd);
    assert_eq!(
        field(restore, "cwnd"),
        (saved_cwnd / 2).max(2400),
        "{restore}"
    );
    // ssthresh / 4 through an f64 product: exact for these sizes.
    assert_eq!(
        field(restore, "ssthresh"),
        (saved_ssthresh / 4).max(2400),
        "{restore}"
    );
    assert!(
        saved_cwnd > 10 * 1200,
        "the window had grown before the break: {save}"
    );
}
