//! netsim-ns3's `ns3-tcp-bulk`, the ns-3 side of `bench-report --vs-ns3`: it carries the
//! scenario's path, delivers, is deterministic, and refuses bad arguments by name.
//!
//! cargo test -p cc-bench --features ns3 --test ns3_tcp_bulk
#![cfg(feature = "ns3")]

use cc_bench::scenarios::emulator_scenarios;
use cc_bench::whole_process::ns3_tcp_arguments;
use std::process::{Command, Output};

fn program() -> Command {
    Command::new(netsim_ns3::TCP_BULK_PROGRAM.expect("built with the ns3 feature"))
}

fn run(args: &[String]) -> Output {
    program().args(args).output().expect("ns3-tcp-bulk starts")
}

fn rx_bytes(output: &Output) -> u64 {
    let stdout = String::from_utf8_lossy(&output.stdout);
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("rx_bytes=")?.parse().ok())
        .unwrap_or_else(|| panic!("no rx_bytes line: {stdout}"))
}

/// The 2 Mb/s scenario's arguments, sending for `seconds`.
fn scenario_for(seconds: &str) -> Vec<String> {
    let scenario = emulator_scenarios().into_iter().next().unwrap();
    let mut args = ns3_tcp_arguments(&scenario).unwrap();
    args.push(format!("duration_s={seconds}"));
    args
}

#[test]
fn delivers_at_most_the_link_rate_and_the_same_bytes_for_the_same_run() {
    let args = scenario_for("10");
    let first = run(&args);
    assert!(first.status.success(), "{first:?}");
    let bytes = rx_bytes(&first);
    // 2 Mb/s for 10 s (plus the 5 s drain) is at most 3.75 MB; TCP fills a good part of it.
    assert!(bytes > 500_000 && bytes <= 3_750_000, "{bytes}");
    assert_eq!(rx_bytes(&run(&args)), bytes, "the same run, the same bytes");
    // Errors are drawn from the run's streams: another run, another outcome.
    let mut other = args.clone();
    other.push("run=2".to_owned());
    assert_ne!(rx_bytes(&run(&other)), bytes);
}

#[test]
fn no_errors_deliver_more_than_a_lossy_path() {
    let lossy = rx_bytes(&run(&scenario_for("10")));
    let mut clean = scenario_for("10");
    clean.push("per=0".to_owned());
    assert!(rx_bytes(&run(&clean)) > lossy);
}

#[test]
fn bad_arguments_exit_2_naming_the_key() {
    for (arg, named) in [
        (
            "per=1.5",
            "per = '1.5' is out of range: it must be a number in [0, 0.999]",
        ),
        ("rate_bps=fast", "rate_bps = 'fast'"),
        ("queue=0", "queue = '0'"),
        ("colour=blue", "unknown key 'colour'"),
        ("per", "expected key=value"),
    ] {
        let output = program().arg(arg).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{arg}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(named), "{arg}: {stderr}");
    }
}
