//! The ns-3 backend in the harness: bad input is refused with exit 2 whether or not ns-3 is
//! built in; with the `ns3` feature, every controller runs over an ns-3 MANET and an ns-3
//! chain, each run in a worker process of its own, with the same bytes for any job count.

mod common;

use common::{run_in, stderr};

/// Exit code 2, every needle in stderr, no table.
fn refused(args: &[&str], files: &[(&str, &str)], needles: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let output = run_in(dir.path(), args);
    let err = stderr(&output);
    assert_eq!(
        output.status.code(),
        Some(2),
        "{args:?}: exit code; stderr:\n{err}"
    );
    for needle in needles {
        assert!(
            err.contains(needle),
            "{args:?}: `{needle}` missing from stderr:\n{err}"
        );
    }
    assert!(!err.contains("panicked"), "{args:?}: panic:\n{err}");
    assert!(output.stdout.is_empty(), "{args:?}: no table on bad input");
}

#[test]
fn ns3_settings_are_validated_with_the_field_and_range() {
    refused(
        &["run", "--backend", "ns3", "--ns3", "nodes=1"],
        &[],
        &[
            "--ns3",
            "ns3.nodes = 1 is out of range: it must be in [2, 200]",
        ],
    );
    refused(
        &["run", "--scenario", "s.toml"],
        &[("s.toml", "backend = \"ns3\"\n[ns3]\nrouting = \"dsr\"\n")],
        &["s.toml", "line 3", "ns3.routing: dsr is not available"],
    );
    refused(
        &["run", "--scenario", "s.toml"],
        &[("s.toml", "backend = \"ns3\"\n[ns3]\nnodez = 3\n")],
        &["unknown field `nodez`"],
    );
    refused(
        &["run", "--backend", "quantum"],
        &[],
        &["invalid value 'quantum'", "netsim, ns3"],
    );
}

/// The work one ns-3 run may ask for is bounded per simulated second (lock-steps, background
/// packets, route samples) and in simulated time (the warm-up): beyond, refused by field.
#[test]
fn ns3_work_beyond_its_bounds_is_refused() {
    fn ns3<'a>(settings: &[&'a str]) -> Vec<&'a str> {
        let mut args = vec!["run", "--backend", "ns3", "--controllers", "newreno"];
        for s in settings {
            args.extend(["--ns3", s]);
        }
        args
    }
    for step in ["step=\"1ns\"", "step=\"99us\"", "step=\"2s\""] {
        refused(&ns3(&[step]), &[], &["ns3.step", "[100us, 1s]"]);
    }
    refused(&ns3(&["start=\"301s\""]), &[], &["ns3.start", "[0s, 300s]"]);
    // One flow of 1-byte packets, and many flows that are each within their own bound.
    refused(
        &ns3(&["background=[{from=0, to=1, rate=\"1Mbps\", packet_bytes=1}]"]),
        &[],
        &[
            "ns3.background",
            "125000 packets per second",
            "at most 100000",
        ],
    );
    let many: Vec<String> = (0..45)
        .map(|i| {
            format!(
                "{{from={}, to={}, rate=\"20Mbps\", packet_bytes=1000}}",
                i,
                i + 1
            )
        })
        .collect();
    let many = format!("background=[{}]", many.join(", "));
    refused(
        &ns3(&[&many]),
        &[],
        &["ns3.background", "112500 packets per second"],
    );
    refused(
        &ns3(&["nodes=200", "sources=10", "route_sample=\"1ms\""]),
        &[],
        &[
            "ns3.route_sample",
            "at least 4ms with 200 nodes and 10 source(s)",
        ],
    );
}

#[test]
fn ns3_settings_without_the_ns3_backend_are_refused() {
    refused(
        &["run", "--ns3", "routing=olsr"],
        &[],
        &["--ns3", "ns3.routing", "add --backend ns3"],
    );
}

#[test]
fn presets_list_the_ns3_presets_with_or_without_the_feature() {
    let dir = tempfile::tempdir().unwrap();
    let output = run_in(dir.path(), &["presets"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let listing = String::from_utf8(output.stdout).unwrap();
    for name in ["ns3-manet ", "ns3-chain ", "demo "] {
        assert!(listing.contains(name), "`{name}` missing:\n{listing}");
    }
    assert!(
        listing.contains("4 point(s) x 9 controllers x 3 seeds = 108 runs"),
        "{listing}"
    );
}

#[test]
fn ns3_tcp_is_refused_where_it_cannot_run() {
    refused(
        &["run", "--controllers", "tcp-newreno"],
        &[],
        &[
            "controller `tcp-newreno` is ns-3's own TCP, not QUIC",
            "ns-3 backend only",
            "netsim",
        ],
    );
    refused(
        &["run", "--ack-delay", "5s"],
        &[],
        &["transport.ack_delay = 5s is out of range", "[1ms, 1s]"],
    );
}

#[test]
fn ns3_tcp_controllers_are_listed_and_left_out_of_the_default_set() {
    let dir = tempfile::tempdir().unwrap();
    let output = run_in(dir.path(), &["controllers"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let listing = String::from_utf8(output.stdout).unwrap();
    for name in [
        "tcp-newreno",
        "tcp-cubic",
        "tcp-vegas",
        "tcp-westwood",
        "tcp-westwoodplus",
    ] {
        assert!(listing.contains(name), "`{name}` missing:\n{listing}");
    }
    assert!(listing.contains("segment_size"), "{listing}");
}

#[cfg(not(feature = "ns3"))]
#[test]
fn without_the_feature_the_backend_names_the_package_and_the_feature() {
    refused(
        &["run", "--backend", "ns3"],
        &[],
        &["libns3-dev", "feature `ns3`"],
    );
    refused(&["run", "--preset", "ns3-chain"], &[], &["libns3-dev"]);
}

#[cfg(feature = "ns3")]
mod with_ns3 {
    use super::*;

    /// A result file in the repository, with the command that wrote it (results/README.md), resumes
    /// under this harness: its runs are all found, none re-run. Guards the run and grid ids against
    /// a config field added later changing how older configs serialize.
    #[test]
    fn a_committed_sweep_resumes_under_its_command() {
        let dir = tempfile::tempdir().unwrap();
        let committed = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../results/ub-mobility-ns3/shard-0-of-1.jsonl");
        let text = std::fs::read_to_string(&committed).unwrap();
        std::fs::write(dir.path().join("shard-0-of-1.jsonl"), &text).unwrap();
        // The command's seeds are the file's (results/README.md names them).
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let runs = lines[0]["run_ids"].as_array().unwrap().len();
        let mut seeds: Vec<u64> = lines[1..]
            .iter()
            .map(|l| l["result"]["seed"].as_u64().unwrap())
            .collect();
        seeds.sort_unstable();
        seeds.dedup();
        let seeds: Vec<String> = seeds.iter().map(u64::to_string).collect();
        let seeds = seeds.join(",");
        let output = run_in(
            dir.path(),
            &[
                "sweep",
                "--preset",
                "ub-mobility-ns3",
                "--controllers",
                "newreno,cubic,bbr,ub",
                // Run with ns-3's stock AODV, before the backend's default closed its black hole.
                "--ns3",
                "aodv.gratuitous_reply=true",
                "--seed",
                &seeds,
                "--jobs",
                "1",
                "--out",
                ".",
            ],
        );
        let err = stderr(&output);
        assert!(
            err.contains(&format!("{runs} runs, {runs} already done, 0 to run")),
            "the committed runs are not all found (seeds {seeds}):\n{err}"
        );
        assert_eq!(
            text.as_bytes(),
            std::fs::read(dir.path().join("shard-0-of-1.jsonl")).unwrap(),
            "the file changed"
        );
    }

    #[test]
    fn axes_over_netsim_s_link_are_refused_on_ns3() {
        // Every point would run the same network.
        refused(
            &["run", "--preset", "karak-ber", "--backend", "ns3"],
            &[],
            &[
                "axis `BER`",
                "link.both.errors",
                "does not use",
                "vary `ns3.*` keys instead",
            ],
        );
        refused(
            &["run", "--preset", "petra-table-4.2", "--backend", "ns3"],
            &[],
            &["varies netsim's link settings"],
        );
    }

    #[test]
    fn netsim_s_link_and_path_settings_are_refused_on_ns3_not_ignored() {
        for (flag, value, needle) in [
            (
                "--link",
                "both.rate=5Mbps",
                "sets netsim's link (link.both.rate)",
            ),
            (
                "--link",
                "both.delay=10ms",
                "sets netsim's link (link.both.delay)",
            ),
            ("--path", "on-off", "sets netsim's path model (on_off)"),
            (
                "--trace-file",
                "up.trace",
                "sets netsim's path model (trace)",
            ),
        ] {
            refused(
                &["run", "--preset", "ns3-chain", flag, value],
                &[("up.trace", "0 up 2\n")],
                &[flag, needle, "does not use"],
            );
        }
    }

    #[test]
    fn worker_processes_log_at_the_parent_s_level() {
        let dir = tempfile::tempdir().unwrap();
        let args = [
            "run",
            "--preset",
            "ns3-chain",
            "--duration",
            "2s",
            "--seeds",
            "1",
            "--controllers",
            "newreno",
        ];
        let quiet = run_in(dir.path(), &args);
        let verbose = run_in(dir.path(), &[&["-v"], &args[..]].concat());
        assert_eq!(verbose.status.code(), Some(0), "{}", stderr(&verbose));
        // "run finished" is logged inside the worker that ran the simulation.
        assert!(
            stderr(&verbose).contains("run finished"),
            "{}",
            stderr(&verbose)
        );
        assert!(
            !stderr(&quiet).contains("run finished"),
            "{}",
            stderr(&quiet)
        );
    }

    #[test]
    fn settings_that_ns3_does_not_use_are_refused() {
        refused(
            &["run", "--backend", "ns3", "--rate", "5Mbps"],
            &[],
            &["--rate", "which the ns-3 backend does not use", "--ns3"],
        );
        refused(
            &["run", "--backend", "ns3", "--clock", "real"],
            &[],
            &["virtual time only"],
        );
    }

    /// The run's JSON report, parsed, and the JSON and CSV files' bytes.
    fn reports(args: &[&str]) -> (serde_json::Value, String, String) {
        let dir = tempfile::tempdir().unwrap();
        let mut all = args.to_vec();
        all.extend(["--json", "r.json", "--csv", "r.csv"]);
        let output = run_in(dir.path(), &all);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let json = std::fs::read_to_string(dir.path().join("r.json")).unwrap();
        let csv = std::fs::read_to_string(dir.path().join("r.csv")).unwrap();
        (serde_json::from_str(&json).unwrap(), json, csv)
    }

    #[test]
    fn ns3_tcp_settings_that_cannot_work_are_refused() {
        refused(
            &[
                "run",
                "--preset",
                "ns3-chain",
                "--controllers",
                "tcp-cubic",
                "--receiver",
                "quinn",
            ],
            &[],
            &["runs ns-3's TCP at both ends", "--receiver"],
        );
        refused(
            &[
                "run",
                "--preset",
                "ns3-chain",
                "--controllers",
                "tcp-vegas",
                "--mix",
                "run,cubic",
            ],
            &[],
            &["ns-3's own TCP", "runs alone"],
        );
        refused(
            &[
                "run",
                "--preset",
                "ns3-chain",
                "--controllers",
                "tcp-newreno",
                "--set",
                "tcp-newreno.segment_size=50",
            ],
            &[],
            &[
                "tcp-newreno.segment_size = 50 is out of range",
                "[100, 2200]",
            ],
        );
        refused(
            &[
                "run",
                "--preset",
                "ns3-chain",
                "--ns3",
                "routing=olsr",
                "--ns3",
                "aodv.gratuitous_reply=false",
            ],
            &[],
            &["aodv: applies to routing = \"aodv\" only", "olsr"],
        );
    }

    /// ns-3's TCP through the harness delivers, byte for byte, what `ns3-chain-tcp` (ns-3's
    /// helpers alone, no shim) delivers on the same chain and seed; its report has the TCP
    /// counters, drops by reason and RTT; AODV's gratuitous-reply flag reaches ns-3.
    #[test]
    fn ns3_tcp_newreno_matches_the_standalone_program() {
        let standalone = |hops: u32, gratuitous: u32| -> u64 {
            let out = std::process::Command::new(netsim_ns3::CHAIN_TCP_PROGRAM.unwrap())
                .args([
                    format!("hops={hops}"),
                    "run=2".to_owned(),
                    "duration_s=20".to_owned(),
                    format!("gratuitous={gratuitous}"),
                ])
                .output()
                .unwrap();
            assert!(out.status.success(), "{out:?}");
            let text = String::from_utf8(out.stdout).unwrap();
            text.lines()
                .find_map(|l| l.strip_prefix("rx_bytes="))
                .unwrap()
                .parse()
                .unwrap()
        };
        for gratuitous in [true, false] {
            let flag = format!("aodv.gratuitous_reply={gratuitous}");
            let (json, _, csv) = reports(&[
                "run",
                "--preset",
                "ns3-chain",
                "--duration",
                "20s",
                "--seed",
                "2",
                "--controllers",
                "tcp-newreno",
                "--ns3",
                &flag,
            ]);
            let runs = json["runs"].as_array().unwrap();
            assert_eq!(runs.len(), 4, "one run per chain");
            for run in runs {
                let hops: u32 = run["params"]["hops"].as_str().unwrap().parse().unwrap();
                let delivered = run["bytes_delivered"].as_u64().unwrap();
                assert_eq!(
                    delivered,
                    standalone(hops, u32::from(gratuitous)),
                    "{hops} hops, gratuitous {gratuitous}: the backend's bytes"
                );
                assert!(delivered > 0);
                assert_eq!(run["sender"], "tcp", "{run}");
                let flow = &run["flows"][0];
                assert!(flow["tcp"]["timeouts"].is_u64(), "{flow}");
                assert!(flow["rtt_p50_ms"].as_f64().unwrap() > 0.0, "{flow}");
                let ns3 = &run["ns3"];
                assert!(ns3["a_to_b"]["delivered"]["datagrams"].as_u64().unwrap() > 0);
                assert!(ns3["b_to_a"]["delivered"]["datagrams"].as_u64().unwrap() > 0);
                let gap = ns3["a_to_b"]["max_gap_s"].as_f64().unwrap();
                assert!(gap > 0.0 && gap <= 20.0, "{gap}");
            }
            assert!(csv.contains("tcp-newreno"), "{csv}");
        }
    }

    #[test]
    fn every_controller_runs_over_an_ns3_manet() {
        let (json, _, csv) = reports(&[
            "run",
            "--preset",
            "ns3-manet",
            "--duration",
            "20s",
            "--seeds",
            "1",
        ]);
        let runs = json["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 9, "every controller");
        for run in runs {
            assert_eq!(run["backend"], "ns3", "{run}");
            let ns3 = &run["ns3"];
            assert!(
                ns3["a_to_b"]["offered"]["datagrams"].as_u64().unwrap() > 0,
                "{run}"
            );
            assert!(ns3["events"].as_u64().unwrap() > 0);
            assert!(run["utilization"].is_null(), "no physical limit on ns-3");
        }
        assert!(
            runs.iter()
                .any(|r| r["goodput_bps"].as_f64().unwrap() > 0.0)
        );
        assert!(csv.contains(",ns3,"), "CSV backend column");
    }

    #[test]
    fn the_chain_runs_in_worker_processes_with_identical_bytes_for_any_job_count() {
        let args = [
            "run",
            "--preset",
            "ns3-chain",
            "--duration",
            "10s",
            "--seeds",
            "1",
            "--controllers",
            "newreno,sackfew",
        ];
        let (parsed, json_one, csv_one) = reports(&[&args[..], &["-j", "1"]].concat());
        let (_, json_two, csv_two) = reports(&[&args[..], &["-j", "2"]].concat());
        assert_eq!(json_one, json_two, "same JSON bytes with 1 and 2 workers");
        assert_eq!(csv_one, csv_two, "same CSV bytes with 1 and 2 workers");
        let runs = parsed["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 8, "4 chains x 2 controllers");
        for run in runs {
            let hops = run["ns3"]["a_to_b"]["mean_hops"].as_f64().unwrap();
            let label: f64 = run["params"]["hops"].as_str().unwrap().parse().unwrap();
            assert!(
                (hops - label).abs() < 1e-9,
                "a static chain's path has its hops: {run}"
            );
        }
    }

    #[test]
    fn several_sources_each_run_their_own_flows_in_one_network() {
        // A 7-node chain with three pairs (0 -> 6, 1 -> 5, 2 -> 4), two flows each.
        let (json, _, csv) = reports(&[
            "run",
            "--backend",
            "ns3",
            "--ns3",
            "topology.model=chain",
            "--ns3",
            "topology.spacing=200",
            "--ns3",
            "nodes=7",
            "--ns3",
            "sources=3",
            "--flows",
            "2",
            "--duration",
            "15s",
            "--seeds",
            "1",
            "--controllers",
            "newreno",
        ]);
        let runs = json["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 1);
        let flows = runs[0]["flows"].as_array().unwrap();
        assert_eq!(flows.len(), 6, "3 pairs x 2 flows: {}", runs[0]);
        for (i, flow) in flows.iter().enumerate() {
            assert_eq!(flow["flow"].as_u64(), Some(i as u64), "in index order");
        }
        // The shortest pair (2 -> 4, flows 4 and 5) gets data through in 15 s.
        assert!(
            flows[4]["bytes_delivered"].as_u64().unwrap() > 0,
            "{}",
            runs[0]
        );
        let total: u64 = flows
            .iter()
            .map(|f| f["bytes_delivered"].as_u64().unwrap())
            .sum();
        assert_eq!(runs[0]["bytes_delivered"].as_u64(), Some(total));
        // One CSV row per flow, plus the header.
        assert_eq!(csv.lines().count(), 7, "{csv}");
        refused(
            &["run", "--backend", "ns3", "--ns3", "sources=26"],
            &[],
            &["ns3.sources", "[1, 25]"],
        );
    }

    #[test]
    fn ns3_runs_carry_their_route_down_spans_and_the_cwnd_plot_shades_them() {
        // A sparse network (20 nodes in 1500 m x 1500 m): node 0's route to node 19 comes and
        // goes.
        let dir = tempfile::tempdir().unwrap();
        let output = run_in(
            dir.path(),
            &[
                "run",
                "--backend",
                "ns3",
                "--ns3",
                "nodes=20",
                "--ns3",
                "area_width=1500",
                "--ns3",
                "area_height=1500",
                "--seed",
                "3",
                "--duration",
                "60s",
                "--controllers",
                "newreno",
                "--plot",
                "plots",
                "--json",
                "r.json",
                "--html",
                "r.html",
                "-q",
            ],
        );
        assert!(output.status.success(), "{}", stderr(&output));
        // The HTML report names the ns-3 scenario and the ns-3 it ran on.
        let html = std::fs::read_to_string(dir.path().join("r.html")).unwrap();
        let version = netsim_ns3::NS3_VERSION.expect("built with the ns3 feature");
        assert!(
            html.contains(&format!("<dt>ns-3</dt><dd>{version}</dd>"))
                && html.contains("<dt>backend</dt>")
                && html.contains("ns-3, data direction"),
            "ns-3 provenance missing"
        );
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join("r.json")).unwrap())
                .unwrap();
        let run = &report["runs"][0];
        let spans = run["route_down_s"].as_array().expect("route-down spans");
        assert!(!spans.is_empty(), "{run}");
        let down: f64 = spans
            .iter()
            .map(|s| s[1].as_f64().unwrap() - s[0].as_f64().unwrap())
            .sum();
        let available = run["ns3"]["route_available"].as_f64().unwrap();
        assert!(
            (down / 60.0 - (1.0 - available)).abs() < 0.05,
            "down {down} s of 60, route available {available}"
        );
        let svg = std::fs::read_to_string(dir.path().join("plots/cwnd-demo.svg")).unwrap();
        assert!(svg.contains("route down") && svg.contains(r##"fill="#C8C8C8""##));
    }

    /// On a MANET path that holds datagrams back for seconds, null packet protection still
    /// gives TLS's run, byte for byte apart from the field that names it. A stray datagram
    /// (delayed past its key phase, or long enough that its truncated packet number expands
    /// to another) must fail to open as under TLS: with a tag that checked neither the key nor
    /// the packet number, this run (TCP-UB's mobility experiment at 5 m/s, seed 4, quinn's
    /// BBR) died of a KEY_UPDATE_ERROR about 8 s in.
    #[test]
    fn null_protection_drops_a_stray_datagram_as_tls_does() {
        let dir = tempfile::tempdir().unwrap();
        let output = run_in(dir.path(), &["presets", "--show", "ub-mobility-ns3"]);
        assert!(output.status.success(), "{}", stderr(&output));
        let preset = String::from_utf8(output.stdout).unwrap();
        // The preset's base point (5 m/s), without its speed axis.
        let point = preset.split("[[axis]]").next().unwrap();
        std::fs::write(dir.path().join("point.toml"), point).unwrap();
        let run = |extra: &[&str], file: &str| {
            let mut args = vec![
                "run",
                "--scenario",
                "point.toml",
                "--controllers",
                "bbr",
                "--seed",
                "4",
                "--duration",
                "10s",
                "--json",
                file,
            ];
            args.extend_from_slice(extra);
            let output = run_in(dir.path(), &args);
            assert!(output.status.success(), "{file}: {}", stderr(&output));
            std::fs::read_to_string(dir.path().join(file)).unwrap()
        };
        let null = run(&[], "null.json");
        let tls = run(&["--packet-protection", "tls"], "tls.json");
        assert!(null.contains("\"packet_protection\": \"null\""), "{null}");
        let without_field = |text: &str| {
            text.lines()
                .filter(|l| !l.contains("\"packet_protection\""))
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(without_field(&null), without_field(&tls));
    }

    /// The processes whose parent is `pid` (Linux's /proc).
    #[cfg(target_os = "linux")]
    fn children(pid: u32) -> Vec<u32> {
        let mut found = Vec::new();
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(child) = entry.file_name().to_string_lossy().parse::<u32>() else {
                continue;
            };
            let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
            // pid (comm) state ppid ...: the command may hold spaces, so read after its ')'.
            let after = stat.rsplit(')').next().unwrap_or_default();
            let ppid = after.split_whitespace().nth(1).and_then(|p| p.parse().ok());
            if ppid == Some(pid) {
                found.push(child);
            }
        }
        found
    }

    /// Whether process `pid` still runs (a zombie waiting for its new parent counts as gone).
    #[cfg(target_os = "linux")]
    fn running(pid: u32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|stat| {
                let state = stat.rsplit(')').next().unwrap_or_default();
                !state.trim_start().starts_with(['Z', 'X'])
            })
            .unwrap_or(false)
    }

    /// A sweep killed outright (SIGKILL: no chance to stop its workers) leaves no ns-3 worker
    /// running.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_killed_sweep_leaves_no_ns3_worker_running() {
        use std::time::{Duration, Instant};
        let dir = tempfile::tempdir().unwrap();
        let mut sweep = common::harness()
            .args([
                "sweep",
                "--preset",
                "ub-mobility-ns3",
                "--controllers",
                "newreno",
                "--seed",
                "1",
                "--jobs",
                "2",
                "--out",
                "out",
                "-q",
            ])
            .current_dir(dir.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let started = Instant::now();
        let workers = loop {
            let workers = children(sweep.id());
            if workers.len() == 2 {
                break workers;
            }
            assert!(started.elapsed() < Duration::from_secs(30), "no workers");
            std::thread::sleep(Duration::from_millis(20));
        };
        // Past reading their runs (a worker killed with its request half-read fails anyway):
        // well into building their 100-node networks.
        std::thread::sleep(Duration::from_secs(2));
        assert!(workers.iter().all(|&w| running(w)), "{workers:?}");
        sweep.kill().unwrap();
        sweep.wait().unwrap();
        let killed = Instant::now();
        while workers.iter().any(|&w| running(w)) {
            assert!(
                killed.elapsed() < Duration::from_secs(10),
                "ns-3 workers {workers:?} still run after their sweep was killed"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}
