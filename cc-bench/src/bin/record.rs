//! Regenerates the committed recordings from seeded netsim runs.
//!
//! `cargo run --release -p cc-bench --bin record` rewrites `cc-bench/recordings/*.ccrec.gz` (quinn:
//! `<name>.ccrec.gz`, noq: `<name>-noq.ccrec.gz`);
//! `-- --check` instead re-runs each scenario and compares with the committed file.

use cc_bench::scenarios::{recording_file, recording_scenarios};
use cc_bench::{EventCounts, HostStack, Noq, Quinn, Recording};
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let check = std::env::args().any(|a| a == "--check");
    match record::<Quinn>(check).and_then(|ok| Ok(ok & record::<Noq>(check)?)) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

/// Records (or with `check`, compares) every scenario on stack `S`; `Ok(false)` if a check
/// failed.
fn record<S: HostStack>(check: bool) -> Result<bool, Box<dyn std::error::Error>> {
    let mut ok = true;
    for scenario in recording_scenarios() {
        let wall = Instant::now();
        let (recording, palette) = scenario
            .record::<S>()
            .map_err(|e| format!("{} on {}: {e}", scenario.name, S::NAME))?;
        let c = EventCounts::of(&recording.events);
        let path = recording_file::<S>(scenario.name);
        let summary = format!(
            "{} on {}: {} callbacks ({} on_sent, {} on_ack, {} on_end_acks, {} congestion, {} mtu, {} on_packet_sent, {} on_packet_lost, {} metrics, {} other), {} RTT readings, {} estimators, recorded in {:.2} s",
            scenario.name,
            S::NAME,
            c.callbacks(),
            c.sent,
            c.acks,
            c.end_acks,
            c.congestion,
            c.mtu,
            c.packet_sent,
            c.packet_lost,
            c.metrics,
            c.other,
            c.rtt_changes,
            palette.len(),
            wall.elapsed().as_secs_f64()
        );
        if check {
            match Recording::load(&path) {
                Ok(committed) if committed == recording => {
                    println!("{summary}: matches {}", path.display())
                }
                Ok(_) => {
                    ok = false;
                    println!("{summary}: DIFFERS from {}", path.display());
                }
                Err(e) => {
                    ok = false;
                    println!("{summary}: {e}");
                }
            }
        } else {
            let bytes = recording.save(&path)?;
            println!("{summary}; wrote {} ({bytes} bytes)", path.display());
        }
    }
    Ok(ok)
}
