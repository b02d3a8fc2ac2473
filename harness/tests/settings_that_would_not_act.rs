//! Every setting acts or is refused with the reason: a setting that no run of the grid would
//! use (a QUIC setting for ns-3's TCP, a knob for a controller that does not run, a port-only
//! setting without a port, a command-line value an axis overwrites, ns-3 settings its model
//! has no use for) exits 2, names the setting and writes nothing.

mod common;

use common::refused_untouched;

/// With the `ns3` feature: ns-3's TCP and the ns-3 presets get as far as these checks.
#[cfg(feature = "ns3")]
mod with_ns3 {
    use super::refused;

    #[test]
    fn ns3_settings_its_scenario_does_not_use_are_refused() {
        let ns3 = ["--backend", "ns3", "--controllers", "newreno"];
        for (extra, needles) in [
            (
                &[
                    "--ns3",
                    "topology={model=\"chain\", spacing=200.0}",
                    "--ns3",
                    "area_width=500.0",
                ][..],
                &["area_width", "would not act"][..],
            ),
            (
                &[
                    "--ns3",
                    "propagation={model=\"log_distance\"}",
                    "--ns3",
                    "route_sample=\"50ms\"",
                ],
                &["route_sample", "would not act"],
            ),
            (
                &[
                    "--ns3",
                    "background=[{from=1, to=2, rate=\"100kbps\", start=\"5s\"}]",
                ],
                &["ns3.background[0].start", "transfer's end"],
            ),
            (
                &[
                    "--ns3",
                    "topology={model=\"chain\", spacing=200.0}",
                    "--ns3",
                    "nodes=5",
                    "--speed",
                    "10",
                ],
                &["--speed", "places its nodes itself"],
            ),
            (
                &["--ns3", "nodes=3", "--nodes", "10"],
                &["--nodes", "[ns3] sets nodes"],
            ),
            (
                &["--link", "path.step=\"10ms\""],
                &["path.step", "netsim's alone"],
            ),
            (
                &[
                    "--ns3",
                    "propagation={model=\"nakagami\"}",
                    "--radio-range",
                    "1",
                ][..],
                &["--radio-range", "no range"][..],
            ),
        ] {
            let mut args = ns3.to_vec();
            args.extend_from_slice(extra);
            refused(&[], &args, needles);
        }
        // quinn's qlog, for ns-3's TCP alone.
        refused(
            &[],
            &[
                "--preset",
                "ns3-chain",
                "--controllers",
                "tcp-newreno",
                "--qlog",
                "q",
            ],
            &["--qlog", "would write nothing"],
        );
    }

    #[test]
    fn netsim_link_settings_in_an_ns3_file_are_refused() {
        for (table, needles) in [
            (
                "[link.both]\nrate = \"5Mbps\"\n",
                &["link.both", "would act on no run", "s.toml"][..],
            ),
            (
                "[link.a_to_b]\ndelay = \"10ms\"\n",
                &["link.a_to_b", "would act on no run"],
            ),
            ("[link.mac]\n", &["link.mac", "[ns3.wifi]"]),
        ] {
            let text = format!("backend = \"ns3\"\n{table}");
            refused(
                &[("s.toml", &text)],
                &["--scenario", "s.toml", "--controllers", "newreno"],
                needles,
            );
        }
    }

    const NS3_TCP: &[&str] = &["--preset", "ns3-chain", "--controllers", "tcp-cubic"];

    #[test]
    fn quic_settings_are_refused_for_ns3_tcp() {
        for (flag, value, field) in [
            ("--ack-delay", "5ms", "transport.ack_delay"),
            ("--packet-threshold", "5", "transport.packet_threshold"),
            ("--idle-timeout", "10s", "transport.idle_timeout"),
            (
                "--timeout-reading",
                "probe_timeout",
                "transport.timeout_reading",
            ),
            ("--stack", "noq", "stack"),
            ("--packet-protection", "tls", "packet_protection"),
        ] {
            let mut args = NS3_TCP.to_vec();
            args.extend([flag, value]);
            refused(
                &[],
                &args,
                &[flag, field, "ns-3's own TCP", "would not act"],
            );
        }
        let mut args = NS3_TCP.to_vec();
        args.push("--quinn-full-window");
        refused(&[], &args, &["--quinn-full-window", "ns-3's own TCP"]);
        // The same from a scenario file, and beside a QUIC controller.
        refused(
            &[(
                "s.toml",
                "backend = \"ns3\"\n[transport]\nack_delay = \"5ms\"\n[controllers]\nselect = [\"cubic\", \"tcp-newreno\"]\n",
            )],
            &["--scenario", "s.toml"],
            &["transport.ack_delay", "tcp-newreno"],
        );
    }

    #[test]
    fn a_command_line_value_an_axis_overwrites_is_refused() {
        refused(
            &[],
            &["--preset", "ns3-chain", "--ns3", "nodes=5"],
            &["--ns3 `ns3.nodes`", "axis `hops`", "overwritten"],
        );
        refused(
            &[],
            &["--preset", "karak-speed", "--speed", "5"],
            &["--speed", "overwritten"],
        );
    }
}

/// `args` after `run --duration 1s --seeds 1 --json out.json`, in a fresh directory holding
/// `files`; refused with every needle.
fn refused(files: &[(&str, &str)], args: &[&str], needles: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let mut all = vec![
        "run",
        "--duration",
        "1s",
        "--seeds",
        "1",
        "--json",
        "out.json",
    ];
    all.extend_from_slice(args);
    refused_untouched(dir.path(), &all, needles);
}

#[test]
fn a_stagger_without_flows_to_stagger_is_refused() {
    refused(
        &[],
        &["--flow-stagger", "1s"],
        &["--flow-stagger", "one flow", "would not act"],
    );
    refused(
        &[(
            "s.toml",
            "flow_stagger = \"1s\"\n[[flow]]\n[[flow]]\ncontroller = \"cubic\"\nstart = \"0s\"\n",
        )],
        &["--scenario", "s.toml", "--controllers", "newreno"],
        &["flow_stagger", "its own start"],
    );
}

#[test]
fn knobs_for_a_controller_that_does_not_run_are_refused() {
    refused(
        &[],
        &[
            "--controllers",
            "cubic",
            "--set",
            "karak.initial_window_packets=4",
        ],
        &["--set", "`karak`", "would not act"],
    );
    refused(
        &[(
            "s.toml",
            "[controllers]\nselect = [\"cubic\"]\n[controllers.petra]\ninitial_window_packets = 4\n",
        )],
        &["--scenario", "s.toml"],
        &["controllers.petra", "would not act", "s.toml"],
    );
}

#[test]
fn a_competitors_knobs_act_on_its_flow() {
    let dir = tempfile::tempdir().unwrap();
    let run = |knob: &str, out: &str| {
        let mut args = vec![
            "run",
            "--duration",
            "2s",
            "--seeds",
            "1",
            "--controllers",
            "cubic",
            "--mix",
            "run,karak",
        ];
        if !knob.is_empty() {
            args.extend(["--set", knob]);
        }
        common::run_report(dir.path(), &args, out)
    };
    let plain = run("", "a.json");
    let tuned = run("karak.initial_window_packets=64", "b.json");
    let id = |r: &serde_json::Value| r["runs"][0]["run_id"].as_str().unwrap().to_owned();
    assert_ne!(
        id(&plain),
        id(&tuned),
        "a competitor's knob must change the run"
    );
    assert_ne!(
        plain["runs"][0]["flows"][1], tuned["runs"][0]["flows"][1],
        "the competitor's flow must change"
    );
}

#[test]
fn port_only_settings_need_a_port() {
    refused(
        &[],
        &["--controllers", "cubic,bbr", "--quinn-full-window"],
        &["--quinn-full-window", "ports only"],
    );
    refused(
        &[],
        &[
            "--controllers",
            "newreno",
            "--timeout-reading",
            "probe_timeout",
        ],
        &["--timeout-reading", "ports only"],
    );
}

#[test]
fn quinn_full_window_is_refused_on_points_that_run_on_noq() {
    refused(
        &[],
        &[
            "--controllers",
            "karak",
            "--stack",
            "noq",
            "--quinn-full-window",
        ],
        &["--quinn-full-window", "noq"],
    );
    refused(
        &[(
            "s.toml",
            "[transport]\nquinn_full_window = true\n[[axis]]\nkey = \"stack\"\nvalues = [\"quinn\", \"noq\"]\n",
        )],
        &["--scenario", "s.toml", "--controllers", "karak"],
        &["transport.quinn_full_window", "point `stack=noq`", "s.toml"],
    );
}

#[test]
fn ns3_settings_its_model_does_not_use_are_refused() {
    refused(
        &[],
        &[
            "--preset",
            "ns3-chain",
            "--ns3",
            "propagation={model=\"log_distance\", range=100.0}",
        ],
        &["--ns3", "range"],
    );
    for (setting, field) in [("source=3", "source"), ("sink=3", "sink")] {
        refused(
            &[],
            &[
                "--backend",
                "ns3",
                "--ns3",
                "sources=2",
                "--ns3",
                setting,
                "--controllers",
                "newreno",
            ],
            &[field, "sources = 2", "would not act"],
        );
    }
}
