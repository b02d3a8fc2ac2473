//! quiche in the harness (cargo feature `quiche`).
//!
//! Without the feature (the normal workspace test suite): naming a quiche controller or a
//! quiche receiver is bad input (exit 2) with a message saying how to build the harness with
//! quiche. With it (`cargo test -p harness --features quiche`): virtual time is refused before
//! anything runs, and short real-time byte transfers (quiche to quiche, a port in quinn to a
//! quiche receiver, quiche to a quinn receiver) deliver every byte, with their rows marked as
//! real time.

mod common;

use common::{run_in, stderr};

/// Runs `args` in a fresh directory and checks exit 2 and that stderr holds every `needle`.
fn assert_bad_input(args: &[&str], files: &[(&str, &str)], needles: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let output = run_in(dir.path(), args);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{args:?}: stderr:\n{err}");
    for needle in needles {
        assert!(err.contains(needle), "{args:?}: `{needle}` missing:\n{err}");
    }
    assert!(!err.contains("panicked"), "{args:?}: panic:\n{err}");
    assert!(output.stdout.is_empty(), "{args:?}: no table on bad input");
}

#[cfg(not(feature = "quiche"))]
mod without_the_feature {
    use super::*;

    const HINT: &[&str] = &[
        "built without the `quiche` feature",
        "cargo run --release -p harness --features quiche",
        "libclang",
    ];

    #[test]
    fn a_quiche_controller_is_bad_input_naming_the_feature() {
        let mut needles = vec!["--controllers", "controller `quiche-cubic`"];
        needles.extend_from_slice(HINT);
        assert_bad_input(
            &["run", "--controllers", "quiche-cubic", "--clock", "real"],
            &[],
            &needles,
        );
        assert_bad_input(
            &["run", "--controllers", "karak,quiche-bbr2"],
            &[],
            &["controller `quiche-bbr2`", "--features quiche"],
        );
    }

    #[test]
    fn a_quiche_receiver_is_bad_input_naming_the_feature() {
        let mut needles = vec!["--receiver", "quiche receiver"];
        needles.extend_from_slice(HINT);
        assert_bad_input(
            &["run", "--controllers", "karak", "--receiver", "quiche"],
            &[],
            &needles,
        );
        assert_bad_input(
            &["run", "--scenario", "s.toml"],
            &[(
                "s.toml",
                "seeds = 1\nclock = \"real\"\nreceiver = \"quiche\"\n",
            )],
            &["s.toml", "line 3", "quiche receiver", "--features quiche"],
        );
    }

    #[test]
    fn the_controller_list_says_how_to_get_quiche() {
        let output = common::harness().arg("controllers").output().unwrap();
        let out = common::stdout(&output);
        assert!(output.status.success());
        assert!(
            out.contains("Not built in: quiche-reno, quiche-cubic, quiche-bbr2")
                && out.contains("--features quiche"),
            "{out}"
        );
    }
}

#[cfg(feature = "quiche")]
mod with_the_feature {
    use super::*;
    use serde_json::Value;

    /// A small always-up path: 20 Mb/s, 10 ms per direction, 0.2 % PER.
    const PATH: &[&str] = &[
        "--path",
        "always-up",
        "--rate",
        "20Mbps",
        "--delay",
        "10ms",
        "--per",
        "0.002",
        "--seed",
        "1",
        "--jobs",
        "1",
    ];

    #[test]
    fn virtual_time_and_several_flows_are_refused_before_anything_runs() {
        let mut args = vec!["run", "--controllers", "quiche-cubic"];
        args.extend_from_slice(PATH);
        assert_bad_input(
            &args,
            &[],
            &["quiche-cubic", "--clock real", "not bit-reproducible"],
        );
        let mut args = vec!["run", "--controllers", "karak", "--receiver", "quiche"];
        args.extend_from_slice(PATH);
        assert_bad_input(
            &args,
            &[],
            &["karak", "quinn sender -> quiche receiver", "--clock real"],
        );
        let mut args = vec![
            "run",
            "--controllers",
            "quiche-reno",
            "--clock",
            "real",
            "--flows",
            "2",
        ];
        args.extend_from_slice(PATH);
        assert_bad_input(&args, &[], &["--flows", "one flow"]);
    }

    fn real_run(args: &[&str]) -> (Value, String, String) {
        let dir = tempfile::tempdir().unwrap();
        let mut all = vec![
            "run",
            "--clock",
            "real",
            "--bytes",
            "1M",
            "--timeout",
            "30s",
            "--json",
            "r.json",
            "--csv",
            "r.csv",
        ];
        all.extend_from_slice(PATH);
        all.extend_from_slice(args);
        let output = run_in(dir.path(), &all);
        let table = common::stdout(&output);
        assert!(
            output.status.success(),
            "{all:?}:\n{}\n{table}",
            stderr(&output)
        );
        let json = std::fs::read_to_string(dir.path().join("r.json")).unwrap();
        let csv = std::fs::read_to_string(dir.path().join("r.csv")).unwrap();
        (serde_json::from_str(&json).unwrap(), table, csv)
    }

    fn check_run(json: &Value, controller: &str, sender: &str, receiver: &str) {
        let runs = json["runs"].as_array().unwrap();
        let run = runs
            .iter()
            .find(|r| r["controller"] == controller)
            .unwrap_or_else(|| panic!("no run of {controller}"));
        assert_eq!(run["clock"], "real", "{run}");
        assert_eq!(run["sender"], sender, "{run}");
        assert_eq!(run["receiver"], receiver, "{run}");
        assert_eq!(run["reproducible"], false, "{run}");
        assert_eq!(run["bytes_delivered"], 1_000_000, "{run}");
        let flow = &run["flows"][0];
        assert_eq!(flow["bytes_delivered"], 1_000_000, "{run}");
        assert!(flow["packets_sent"].as_u64().unwrap() > 700, "{run}");
        let p50 = flow["rtt_p50_ms"].as_f64().unwrap();
        assert!(p50 >= 20.0, "sRTT p50 {p50} ms below the path's 20 ms");
        let goodput = run["goodput_bps"].as_f64().unwrap();
        assert!(goodput > 1e6 && goodput < 20e6, "goodput {goodput}");
        assert!(run["utilization"].as_f64().unwrap() <= 1.0, "{run}");
        if sender == "quiche" {
            assert!(flow["packets_retransmitted"].is_u64(), "{run}");
            assert!(flow["congestion_events"].is_null(), "{run}");
        } else {
            assert!(flow["congestion_events"].is_u64(), "{run}");
        }
        let row = json["summary"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["controller"] == controller)
            .unwrap();
        assert_eq!(row["clock"], "real");
    }

    #[test]
    fn quiche_to_quiche_and_a_port_to_a_quiche_receiver_deliver_intact() {
        let (json, table, csv) = real_run(&[
            "--controllers",
            "quiche-cubic,karak",
            "--receiver",
            "quiche",
        ]);
        check_run(&json, "quiche-cubic", "quiche", "quiche");
        check_run(&json, "karak", "quinn", "quiche");
        for needle in [
            "quiche-cubic (quiche, real time)",
            "karak (quinn->quiche, real time)",
            "not bit-reproducible",
        ] {
            assert!(table.contains(needle), "`{needle}` missing:\n{table}");
        }
        assert!(
            csv.lines()
                .next()
                .unwrap()
                .contains(",clock,sender,receiver,packets_retransmitted,backend,")
        );
        assert!(csv.contains(",real,quiche,quiche,"), "{csv}");
        assert!(csv.contains(",real,quinn,quiche,"), "{csv}");
    }

    #[test]
    fn quiche_to_a_quinn_receiver_delivers_intact() {
        let (json, table, _) = real_run(&["--controllers", "quiche-cubic", "--receiver", "quinn"]);
        check_run(&json, "quiche-cubic", "quiche", "quinn");
        assert!(
            table.contains("quiche-cubic (quiche->quinn, real time)"),
            "{table}"
        );
    }

    #[test]
    fn the_controller_list_has_quiches_controllers() {
        let output = common::harness().arg("controllers").output().unwrap();
        let out = common::stdout(&output);
        assert!(output.status.success());
        for name in ["quiche-reno", "quiche-cubic", "quiche-bbr2", "karak"] {
            assert!(out.contains(name), "{name} missing:\n{out}");
        }
        assert!(!out.contains("Not built in"), "{out}");
    }
}
