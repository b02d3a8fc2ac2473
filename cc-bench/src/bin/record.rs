//! Regenerates the committed recordings from seeded netsim runs.
//!
//! `cargo run --release -p cc-bench --bin record` rewrites `cc-bench/recordings/*.ccrec.gz`;
//! `-- --check` instead re-runs each scenario and compares with the committed file.

use cc_bench::scenarios::{recording_file, recording_scenarios};
use cc_bench::{EventCounts, Recording};
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let check = std::env::args().any(|a| a == "--check");
    let mut ok = true;
    for scenario in recording_scenarios() {
        let wall = Instant::now();
        let (recording, palette) = match scenario.record() {
            Ok(r) => r,
            Err(e) => {
                eprintln!("{}: {e}", scenario.name);
                return ExitCode::FAILURE;
            }
        };
        let c = EventCounts::of(&recording.events);
        let path = recording_file(scenario.name);
        let summary = format!(
            "{}: {} callbacks ({} on_sent, {} on_ack, {} on_end_acks, {} congestion, {} mtu), {} RTT readings, {} estimators, recorded in {:.2} s",
            scenario.name,
            c.callbacks(),
            c.sent,
            c.acks,
            c.end_acks,
            c.congestion,
            c.mtu,
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
            match recording.save(&path) {
                Ok(bytes) => println!("{summary}; wrote {} ({bytes} bytes)", path.display()),
                Err(e) => {
                    eprintln!("{e}");
                    return ExitCode::FAILURE;
                }
            }
        }
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
