//! End-to-end runs through the binary: determinism, metrics, multiple flows, byte transfers,
//! reports, plots and qlog.

mod common;

use common::{FAST, run_in, run_report, stderr, stdout};
use serde_json::Value;

fn json(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn the_same_command_gives_byte_identical_json() {
    let dir = tempfile::tempdir().unwrap();
    let args = |out: &'static str| {
        let mut a = vec!["run", "--json", out];
        a.extend_from_slice(FAST);
        a
    };
    let first = run_in(dir.path(), &args("a.json"));
    assert!(first.status.success(), "{}", stderr(&first));
    // A different number of workers must not change anything.
    let second = run_in(
        dir.path(),
        &[
            "run",
            "--json",
            "b.json",
            "--duration",
            "4s",
            "--seeds",
            "2",
            "--jobs",
            "1",
        ],
    );
    assert!(second.status.success(), "{}", stderr(&second));
    let a = std::fs::read(dir.path().join("a.json")).unwrap();
    let b = std::fs::read(dir.path().join("b.json")).unwrap();
    assert!(!a.is_empty());
    assert!(a == b, "two runs of the same command differ");
    // Every controller is in it, quinn's BBR included (its OS-seeded RNG does not reach the
    // window: see the controllers module).
    let report = json(&dir.path().join("a.json"));
    assert_eq!(report["runs"].as_array().unwrap().len(), 9 * 2);
    // And the table on stdout is the same too.
    assert_eq!(stdout(&first), stdout(&second));
    // A different seed gives a different result.
    let third = run_in(
        dir.path(),
        &[
            "run",
            "--controllers",
            "newreno",
            "--duration",
            "4s",
            "--seed",
            "99",
            "--json",
            "c.json",
        ],
    );
    assert!(third.status.success());
    let c = json(&dir.path().join("c.json"));
    let a = json(&dir.path().join("a.json"));
    assert_ne!(c["runs"][0]["goodput_bps"], a["runs"][0]["goodput_bps"]);
}

#[test]
fn demo_metrics_are_complete_and_consistent() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec!["run", "--json", "r.json", "--csv", "r.csv"];
    args.extend_from_slice(FAST);
    let output = run_in(dir.path(), &args);
    assert!(output.status.success(), "{}", stderr(&output));
    let table = stdout(&output);
    for name in [
        "newreno", "cubic", "bbr", "karak", "petra", "ub", "sackfew", "abra", "xNewReno", "util %",
    ] {
        assert!(
            table.contains(name),
            "`{name}` missing from the table:\n{table}"
        );
    }
    let report = json(&dir.path().join("r.json"));
    let runs = report["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 9 * 2);
    for run in runs {
        let name = run["controller"].as_str().unwrap();
        let port = !["newreno", "cubic", "bbr"].contains(&name);
        let goodput = run["goodput_bps"].as_f64().unwrap();
        let throughput = run["throughput_bps"].as_f64().unwrap();
        let util = run["utilization"].as_f64().unwrap();
        assert!(
            goodput > 0.0 && goodput <= throughput,
            "{name}: goodput {goodput} throughput {throughput}"
        );
        // Goodput can never beat the physical limit by more than the error models' luck.
        assert!(util > 0.0 && util < 1.05, "{name}: utilization {util}");
        assert_eq!(run["reproducible"].as_bool(), Some(true));
        assert_eq!(
            run["signals"].is_object(),
            port,
            "{name}: loss-signal classes only for ports"
        );
        let flow = &run["flows"][0];
        assert!(flow["rtt_p50_ms"].as_f64().unwrap() <= flow["rtt_p95_ms"].as_f64().unwrap());
        assert!(flow["packets_sent"].as_u64().unwrap() >= flow["packets_lost"].as_u64().unwrap());
        assert_eq!(
            flow["slow_start_s"].is_null(),
            name == "bbr",
            "{name}: BBR has no ssthresh"
        );
        assert_eq!(run["jain"].as_f64(), Some(1.0));
    }
    let summary = report["summary"].as_array().unwrap();
    let newreno = summary
        .iter()
        .find(|r| r["controller"] == "newreno")
        .unwrap();
    assert_eq!(newreno["vs_newreno"].as_f64(), Some(1.0));
    let csv = std::fs::read_to_string(dir.path().join("r.csv")).unwrap();
    assert_eq!(
        csv.lines().count(),
        1 + 18,
        "a header and one row per run and flow"
    );
}

#[test]
fn several_flows_share_the_path_and_are_scored_for_fairness() {
    let dir = tempfile::tempdir().unwrap();
    let output = run_in(
        dir.path(),
        &[
            "run",
            "--controllers",
            "newreno,karak",
            "--seeds",
            "1",
            "--duration",
            "6s",
            "--flows",
            "3",
            "--path",
            "always-up",
            "--per",
            "0.001",
            "--json",
            "r.json",
        ],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let report = json(&dir.path().join("r.json"));
    for run in report["runs"].as_array().unwrap() {
        let flows = run["flows"].as_array().unwrap();
        assert_eq!(flows.len(), 3);
        let sum: u64 = flows
            .iter()
            .map(|f| f["bytes_delivered"].as_u64().unwrap())
            .sum();
        assert_eq!(run["bytes_delivered"].as_u64(), Some(sum));
        assert!(
            flows
                .iter()
                .all(|f| f["bytes_delivered"].as_u64().unwrap() > 0)
        );
        let jain = run["jain"].as_f64().unwrap();
        assert!((1.0 / 3.0..=1.0).contains(&jain), "Jain index {jain}");
    }
}

#[test]
fn byte_transfers_deliver_every_byte_and_time_out_loudly() {
    let dir = tempfile::tempdir().unwrap();
    let output = run_in(
        dir.path(),
        &[
            "run",
            "--controllers",
            "cubic,sackfew",
            "--seeds",
            "1",
            "--bytes",
            "300k",
            "--flows",
            "2",
            "--path",
            "always-up",
            "--ber",
            "1e-6",
            "--json",
            "r.json",
        ],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let report = json(&dir.path().join("r.json"));
    for run in report["runs"].as_array().unwrap() {
        for flow in run["flows"].as_array().unwrap() {
            assert_eq!(flow["bytes_delivered"].as_u64(), Some(300_000));
            assert!(flow["finished_s"].as_f64().unwrap() > 0.0);
        }
    }
    // A path that is down for good: the transfer cannot finish, the run fails (exit 1).
    std::fs::write(dir.path().join("down.trace"), "0 up\n0.5 down\n").unwrap();
    let output = run_in(
        dir.path(),
        &[
            "run",
            "--controllers",
            "newreno",
            "--seeds",
            "1",
            "--bytes",
            "10M",
            "--timeout",
            "20s",
            "--trace-file",
            "down.trace",
        ],
    );
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(stderr(&output).contains("did not complete within the timeout"));
}

#[test]
fn plots_and_qlog_are_written() {
    let dir = tempfile::tempdir().unwrap();
    let output = run_in(
        dir.path(),
        &[
            "run",
            "--controllers",
            "newreno,karak",
            "--seeds",
            "1",
            "--duration",
            "3s",
            "--flows",
            "2",
            "--plot",
            "plots",
            "--qlog",
            "qlog",
        ],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let cwnd = std::fs::read_to_string(dir.path().join("plots/cwnd-demo.svg")).unwrap();
    assert!(cwnd.starts_with("<svg") && cwnd.contains("karak") && cwnd.contains("<polyline"));
    let goodput = std::fs::read_to_string(dir.path().join("plots/goodput-demo.svg")).unwrap();
    assert!(goodput.contains("newreno") && goodput.contains("<rect"));
    let mut qlogs: Vec<_> = std::fs::read_dir(dir.path().join("qlog"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    qlogs.sort();
    // Two controllers x two flows, one file per connection.
    assert_eq!(qlogs.len(), 4, "{qlogs:?}");
    for path in qlogs {
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with('\u{1e}'), "JSON-SEQ record separator");
        assert!(
            text.contains("recovery:metrics_updated") && text.contains("congestion_window"),
            "{path:?}"
        );
    }
}

#[test]
fn logs_redirected_to_a_file_are_plain_text() {
    let dir = tempfile::tempdir().unwrap();
    let output = common::run_in(
        dir.path(),
        &[
            "-v",
            "run",
            "--controllers",
            "newreno",
            "--seeds",
            "1",
            "--duration",
            "2s",
        ],
    );
    assert_eq!(output.status.code(), Some(0));
    let err = common::stderr(&output);
    assert!(err.contains("run finished"), "info logs with -v:\n{err}");
    assert!(
        !err.contains('\u{1b}'),
        "no colour codes when stderr is not a terminal:\n{err}"
    );
}

/// A path that goes down: the cwnd plot shades the periods without a route, replayed from the
/// run seed; an always-up path has none.
#[test]
fn cwnd_plots_shade_the_route_down_periods() {
    let dir = tempfile::tempdir().unwrap();
    let plot = |path: &[&str]| {
        let mut args = vec![
            "run",
            "--controllers",
            "newreno",
            "--seeds",
            "1",
            "--duration",
            "20s",
            "--plot",
            "plots",
            "-q",
        ];
        args.extend(path);
        let output = run_in(dir.path(), &args);
        assert!(output.status.success(), "{}", stderr(&output));
        std::fs::read_to_string(dir.path().join("plots/cwnd-demo.svg")).unwrap()
    };
    let breaking = plot(&["--path", "on-off", "--mean-up", "3s", "--mean-down", "2s"]);
    assert!(
        breaking.contains("route down"),
        "the axis says what is shaded"
    );
    assert!(breaking.contains(r##"fill="#C8C8C8""##), "shaded periods");
    let steady = plot(&["--path", "always-up"]);
    assert!(!steady.contains("route down") && !steady.contains(r##"fill="#C8C8C8""##));
}

#[test]
fn every_controller_runs_on_noq_reproducibly_with_exact_loss_signals() {
    let dir = tempfile::tempdir().unwrap();
    let args = |out: &'static str| {
        let mut a = vec!["run", "--stack", "noq", "--json", out, "--csv", "r.csv"];
        a.extend_from_slice(FAST);
        a
    };
    let first = run_in(dir.path(), &args("a.json"));
    assert!(first.status.success(), "{}", stderr(&first));
    let report = json(&dir.path().join("a.json"));
    let runs = report["runs"].as_array().unwrap();
    // noq's NewReno, Cubic and BBRv3, the five ports and the composite, two seeds each.
    assert_eq!(runs.len(), 9 * 2);
    for run in runs {
        let name = run["controller"].as_str().unwrap();
        assert_eq!(run["sender"], "noq", "{name}");
        assert_eq!(run["receiver"], "noq", "{name}");
        assert!(run["goodput_bps"].as_f64().unwrap() > 0.0, "{name}");
        if ["karak", "petra", "ub", "sackfew", "abra", "manet"].contains(&name) {
            // noq names the lost packets: no loss event is left undetermined.
            assert_eq!(
                run["signals"]["undetermined"], 0,
                "{name}: {}",
                run["signals"]
            );
        }
        assert_eq!(run["reproducible"], name != "bbr3", "{name}");
    }
    let csv = std::fs::read_to_string(dir.path().join("r.csv")).unwrap();
    assert!(csv.lines().skip(1).all(|line| line.contains(",noq,noq,")));
    // Reproducible: the same command gives the same results, but for BBRv3 (noq seeds its
    // `ProbeBW` wait RNG from the OS).
    let second = run_in(dir.path(), &args("b.json"));
    assert!(second.status.success(), "{}", stderr(&second));
    let again = json(&dir.path().join("b.json"));
    for (a, b) in runs.iter().zip(again["runs"].as_array().unwrap()) {
        if a["controller"] != "bbr3" {
            assert_eq!(a, b, "{}", a["controller"]);
        }
    }
    // A noq run and a quinn run of the same controller and seed are different runs.
    let quinn = run_in(
        dir.path(),
        &[
            "run",
            "--controllers",
            "karak",
            "--json",
            "q.json",
            "--duration",
            "4s",
            "--seeds",
            "1",
        ],
    );
    assert!(quinn.status.success(), "{}", stderr(&quinn));
    let quinn = json(&dir.path().join("q.json"));
    let noq_karak = runs.iter().find(|r| r["controller"] == "karak").unwrap();
    assert_ne!(quinn["runs"][0]["run_id"], noq_karak["run_id"]);
    assert_eq!(quinn["runs"][0]["sender"], "quinn");
}

#[test]
fn quinn_and_noq_face_each_other_in_both_directions() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (vec!["--receiver", "noq"], "quinn", "noq"),
        (
            vec!["--stack", "noq", "--receiver", "quinn"],
            "noq",
            "quinn",
        ),
    ];
    for (i, (extra, sender, receiver)) in cases.into_iter().enumerate() {
        let out = format!("mixed{i}.json");
        let mut args = vec!["run", "--controllers", "karak,newreno", "--json", &out];
        args.extend(extra);
        args.extend_from_slice(FAST);
        let output = run_in(dir.path(), &args);
        assert!(output.status.success(), "{}", stderr(&output));
        assert!(
            stdout(&output).contains(&format!("karak ({sender}->{receiver})")),
            "{}",
            stdout(&output)
        );
        let report = json(&dir.path().join(&out));
        for run in report["runs"].as_array().unwrap() {
            assert_eq!(run["sender"], sender);
            assert_eq!(run["receiver"], receiver);
            assert!(run["goodput_bps"].as_f64().unwrap() > 100_000.0, "{run}");
            if run["controller"] == "karak" {
                // The sender's stack classifies: exact on noq, inferred on quinn.
                assert!(run["signals"]["fast_retransmit"].as_u64().unwrap() > 0);
            }
        }
    }
}

#[test]
fn a_grid_can_sweep_the_host_stack() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("s.toml"),
        "seeds = 1\n[transfer]\nduration = \"3s\"\n[[axis]]\nkey = \"stack\"\nvalues = [\"quinn\", \"noq\"]\n",
    )
    .unwrap();
    let output = run_in(
        dir.path(),
        &["run", "--scenario", "s.toml", "--json", "r.json"],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let report = json(&dir.path().join("r.json"));
    let runs = report["runs"].as_array().unwrap();
    // The controllers both stacks run (their BBRs differ), on each stack.
    let names = [
        "newreno", "cubic", "karak", "petra", "ub", "sackfew", "abra", "manet",
    ];
    assert_eq!(runs.len(), 2 * names.len());
    for (point, stack) in [("stack=quinn", "quinn"), ("stack=noq", "noq")] {
        let on: Vec<&Value> = runs.iter().filter(|r| r["point"] == point).collect();
        assert_eq!(on.len(), names.len(), "{point}");
        assert!(on.iter().all(|r| r["sender"] == stack), "{point}");
    }
}

/// `--html`: one self-contained page with the scenario, a table row per point and controller,
/// the plots inline (cwnd plots too: a run keeps its window traces), the command line and the
/// versions; it loads nothing from anywhere. (The same page in a real browser:
/// `harness/tests/browser/html-report.sh`, run by CI.)
#[test]
fn html_report_is_one_self_contained_page() {
    let dir = tempfile::tempdir().unwrap();
    let output = run_in(
        dir.path(),
        &[
            "run",
            "--controllers",
            "newreno,karak",
            "--seeds",
            "2",
            "--duration",
            "3s",
            "--html",
            "report.html",
            "--quiet",
        ],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.trim_end().ends_with("</html>"));
    // The demo's one point: a header row and a row per controller; its goodput and cwnd plots.
    assert_eq!(html.matches("<tr").count(), 3, "{html}");
    assert_eq!(html.matches("<svg").count(), 2);
    assert!(html.contains("<td>karak</td>") && html.contains("<polyline"));
    // Self-contained: no script, stylesheet link, image, frame or remote URL to fetch.
    for needle in [
        "<script", "<link", "<img", "<iframe", "src=", "url(", "href=",
    ] {
        assert!(!html.contains(needle), "`{needle}` in the page");
    }
    // Provenance: the command as typed, and the versions.
    assert!(
        html.contains(
            "run --controllers newreno,karak --seeds 2 --duration 3s --html report.html --quiet"
        ),
        "command line missing"
    );
    for needle in [
        "<dt>harness</dt>",
        "<dt>quinn-proto</dt>",
        "<dt>compiler</dt>",
    ] {
        assert!(html.contains(needle), "`{needle}` missing");
    }
    // The same command without --html prints the same table: the page changes nothing.
    assert!(
        !html.contains("<dt>ns-3</dt>"),
        "no ns-3 rows, no ns-3 version"
    );
}

/// `--html` and another output naming the same file is refused before any run.
#[test]
fn html_report_refuses_to_overwrite_another_output() {
    let dir = tempfile::tempdir().unwrap();
    let output = run_in(
        dir.path(),
        &["run", "--seeds", "1", "--json", "x", "--html", "x"],
    );
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let err = stderr(&output);
    assert!(err.contains("--json and --html both name `x`"), "{err}");
}

/// A mixed run (`--mix run,cubic`): each run's second flow runs Cubic whatever the run's
/// controller, each flow reports its controller, the run's loss signals are its own flows',
/// the summary has the coexistence figures, and the same command gives the same bytes.
#[test]
fn mixed_runs_give_each_flow_its_controller_and_are_reproducible() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "run",
        "--preset",
        "coexist",
        "--controllers",
        "newreno,karak",
        "--mix",
        "run,cubic",
        "--seeds",
        "1",
        "--duration",
        "8s",
        "--json",
    ];
    let run = |out: &str| {
        let mut a: Vec<&str> = args.to_vec();
        a.push(out);
        let output = run_in(dir.path(), &a);
        assert!(output.status.success(), "{}", stderr(&output));
        std::fs::read_to_string(dir.path().join(out)).unwrap()
    };
    let first = run("a.json");
    assert_eq!(first, run("b.json"), "same command, same bytes");
    let report: Value = serde_json::from_str(&first).unwrap();
    let runs = report["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 8, "4 paths x 2 controllers");
    for r in runs {
        let flows = r["flows"].as_array().unwrap();
        assert_eq!(flows.len(), 2, "{r}");
        assert_eq!(flows[0]["controller"], r["controller"], "{r}");
        assert_eq!(flows[1]["controller"], "cubic", "{r}");
        for f in flows {
            assert!(f["goodput_bps"].as_f64().unwrap() > 0.0, "{f}");
            assert!(f["rtt_min_ms"].as_f64().unwrap() > 0.0, "{f}");
        }
        // Only the port's own flow classifies losses; Cubic's flow has no signals.
        assert!(flows[1]["signals"].is_null(), "{r}");
        if r["controller"] == "karak" {
            assert!(flows[0]["signals"].is_object(), "{r}");
        }
    }
    for row in report["summary"].as_array().unwrap() {
        let c = &row["coexistence"];
        let classes = c["classes"].as_array().unwrap();
        assert_eq!(classes[0]["controller"], row["controller"]);
        assert_eq!(classes[1]["controller"], "cubic");
        let shares: f64 = classes.iter().map(|k| k["share"].as_f64().unwrap()).sum();
        assert!((shares - 1.0).abs() < 1e-9, "{row}");
        let jain = c["jain"].as_f64().unwrap();
        assert!((0.5..=1.0).contains(&jain), "{row}");
        assert!(c["vs_competitors"].as_f64().unwrap() > 0.0, "{row}");
    }
}

/// RTT unfairness (`coexist-rtt`'s 10 Mb/s point): the flow behind its own 30 ms access link
/// has an 80 ms base RTT where the other has 20 ms, on quinn and on noq; the coexistence table
/// tells them apart; NewReno gives the short flow more than the long one.
#[test]
fn a_flow_behind_an_access_link_has_the_longer_rtt() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("s.toml"),
        "seeds = 1\n[transfer]\nduration = \"20s\"\n[link.both]\nrate = \"10Mbps\"\n\
         delay = \"10ms\"\nqueue = { bytes = 100000 }\n[[flow]]\n[[flow]]\naccess_delay = \"30ms\"\n",
    )
    .unwrap();
    for stack in ["quinn", "noq"] {
        let args = [
            "run",
            "--scenario",
            "s.toml",
            "--controllers",
            "newreno",
            "--stack",
            stack,
        ];
        let report = run_report(dir.path(), &args, &format!("{stack}.json"));
        let run = &report["runs"][0];
        let flows = run["flows"].as_array().unwrap();
        assert!(flows[0]["access_delay_ms"].is_null(), "{run}");
        assert_eq!(flows[1]["access_delay_ms"], 30.0, "{run}");
        let rtt = |f: &Value| f["rtt_min_ms"].as_f64().unwrap();
        assert!((20.0..30.0).contains(&rtt(&flows[0])), "{run}");
        assert!((80.0..90.0).contains(&rtt(&flows[1])), "{run}");
        let classes = report["summary"][0]["coexistence"]["classes"]
            .as_array()
            .unwrap()
            .clone();
        assert_eq!(classes[0]["controller"], "newreno", "{stack}");
        assert_eq!(classes[1]["controller"], "newreno +30ms", "{stack}");
        let share = |k: &Value| k["share"].as_f64().unwrap();
        assert!(share(&classes[0]) > share(&classes[1]), "{classes:?}");
    }
}

/// netsim's 802.11 layer (`--link mac={}`): a clean link loses goodput to the per-frame cost
/// and the shared channel, and a lossy one keeps its datagrams through MAC retries.
#[test]
fn the_802_11_layer_charges_airtime_and_retries_corrupted_frames() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("s.toml"),
        "seeds = 1\n[transfer]\nduration = \"20s\"\n[link.both]\nrate = \"2Mbps\"\n\
         delay = \"10ms\"\n",
    )
    .unwrap();
    let run = |extra: &[&str], file: &str| {
        let mut args = vec!["run", "--scenario", "s.toml", "--controllers", "newreno"];
        args.extend_from_slice(extra);
        run_report(dir.path(), &args, file)["runs"][0].clone()
    };
    let goodput = |r: &Value| r["goodput_bps"].as_f64().unwrap();
    let bare = run(&[], "bare.json");
    let mac = run(&["--link", "mac={}"], "mac.json");
    // 1472-byte datagrams: 6000 us on the wire alone, about 7000 us as 802.11b frames, and the
    // acknowledgements now take the same channel.
    let ratio = goodput(&mac) / goodput(&bare);
    assert!((0.6..0.9).contains(&ratio), "goodput ratio {ratio}");
    // 10% of transmissions corrupted: without the layer each is a lost datagram; with it the
    // MAC sends them again (7 attempts: 1e-7 of datagrams lost).
    let per = ["--link", "both.errors=[{ model = \"per\", p = 0.1 }]"];
    let lossy_bare = run(&per, "lossy-bare.json");
    let lossy_mac = run(
        &[&per[..], &["--link", "mac={}"]].concat(),
        "lossy-mac.json",
    );
    assert!(
        lossy_bare["link"]["dropped_error"].as_u64().unwrap() > 50,
        "{lossy_bare}"
    );
    assert_eq!(lossy_mac["link"]["dropped_error"], 0, "{lossy_mac}");
    assert!(goodput(&lossy_mac) > goodput(&lossy_bare), "{lossy_mac}");
}

/// Null packet protection (the virtual-time default) gives the same runs as TLS, byte for byte
/// apart from the field that names it, on quinn and noq; real time defaults to TLS, and a
/// quinn-noq pair keeps TLS whatever is asked.
#[test]
fn null_packet_protection_is_the_virtual_time_default_and_changes_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let base = [
        "run",
        "--controllers",
        "newreno,karak,ub",
        "--duration",
        "6s",
        "--seeds",
        "2",
    ];
    for stack in ["quinn", "noq"] {
        let with = |extra: &[&str], file: &str| {
            let mut args = base.to_vec();
            args.extend(["--stack", stack]);
            args.extend_from_slice(extra);
            run_report(dir.path(), &args, file);
            std::fs::read_to_string(dir.path().join(file)).unwrap()
        };
        let default = with(&[], &format!("{stack}-default.json"));
        let tls = with(
            &["--packet-protection", "tls"],
            &format!("{stack}-tls.json"),
        );
        let without_field = |text: &str| {
            text.lines()
                .filter(|l| !l.contains("\"packet_protection\""))
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(without_field(&default), without_field(&tls), "{stack}");
        let runs = |text: &str| serde_json::from_str::<Value>(text).unwrap()["runs"].clone();
        for run in runs(&default).as_array().unwrap() {
            assert_eq!(run["packet_protection"], "null", "{stack}");
        }
        for run in runs(&tls).as_array().unwrap() {
            assert_eq!(run["packet_protection"], "tls", "{stack}");
        }
    }
    let real = run_report(
        dir.path(),
        &[
            "run",
            "--controllers",
            "newreno",
            "--duration",
            "1s",
            "--seeds",
            "1",
            "--clock",
            "real",
        ],
        "real.json",
    );
    assert_eq!(real["runs"][0]["packet_protection"], "tls");
    let mixed = run_report(
        dir.path(),
        &[
            &base[..],
            &["--receiver", "noq", "--packet-protection", "null"],
        ]
        .concat(),
        "mixed.json",
    );
    assert_eq!(mixed["runs"][0]["packet_protection"], "tls");
}

/// `[[flow]]` tables set each flow's start: a flow starting at 3 s connects no earlier.
#[test]
fn listed_flows_start_when_their_table_says() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("s.toml"),
        "seeds = 1\n[transfer]\nduration = \"8s\"\n[link.both]\nrate = \"10Mbps\"\ndelay = \"10ms\"\n\
         [[flow]]\n[[flow]]\ncontroller = \"cubic\"\nstart = \"3s\"\n",
    )
    .unwrap();
    let args = ["run", "--scenario", "s.toml", "--controllers", "petra"];
    let report = run_report(dir.path(), &args, "r.json");
    let flows = report["runs"][0]["flows"].as_array().unwrap().clone();
    assert!(flows[0]["connected_s"].as_f64().unwrap() < 1.0, "{flows:?}");
    let late = flows[1]["connected_s"].as_f64().unwrap();
    assert!((3.0..4.0).contains(&late), "connected at {late} s");
    assert_eq!(flows[1]["controller"], "cubic");
}
