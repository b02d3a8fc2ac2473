//! No output may overwrite an input or a result: outputs are compared with every file a
//! command reads or appends (the scenario and trace files, the sweep's own result file in
//! `--out`, adopted and merged result files) as files, not as spellings: through symlinks and
//! hard links too.

mod common;

use std::path::Path;

use common::{refused_untouched, run_in, stderr};

const QUICK: &[&str] = &[
    "--duration",
    "1s",
    "--seeds",
    "1",
    "--controllers",
    "newreno",
    "-q",
];

fn sweep_into(dir: &Path, out: &str) -> Vec<u8> {
    common::sweep_file(dir, out, "1s", "1", "newreno").into_bytes()
}

/// Runs `s.toml` in `dir` (one seed of NewReno) with its plots in `p`.
fn plot_scenario(dir: &Path) -> std::process::Output {
    run_in(
        dir,
        &[
            "run",
            "--scenario",
            "s.toml",
            "--seeds",
            "1",
            "--controllers",
            "newreno",
            "--plot",
            "p",
            "-q",
        ],
    )
}

/// Runs `args` in `dir`; it must be refused (exit 2) with `needle` in its message, and
/// `results` (a path under `dir`) must still hold `before`.
fn refused(dir: &Path, args: &[&str], needle: &str, results: &str, before: &[u8]) {
    let output = run_in(dir, args);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: `{needle}` missing: {err}");
    assert_eq!(
        std::fs::read(dir.join(results)).unwrap(),
        before,
        "{args:?} changed {results}"
    );
}

#[test]
fn a_sweeps_report_cannot_overwrite_its_own_result_file() {
    let dir = tempfile::tempdir().unwrap();
    let before = sweep_into(dir.path(), "r");
    let mut args = vec!["sweep", "--out", "r", "--json", "r/shard-0-of-1.jsonl"];
    args.extend_from_slice(QUICK);
    refused(
        dir.path(),
        &args,
        "is an input",
        "r/shard-0-of-1.jsonl",
        &before,
    );
    // The same file spelt through a symlinked directory.
    std::os::unix::fs::symlink(dir.path().join("r"), dir.path().join("alias")).unwrap();
    let mut args = vec!["sweep", "--out", "r", "--csv", "alias/shard-0-of-1.jsonl"];
    args.extend_from_slice(QUICK);
    refused(
        dir.path(),
        &args,
        "is an input",
        "r/shard-0-of-1.jsonl",
        &before,
    );
}

#[test]
fn an_adopted_file_cannot_be_an_output() {
    let dir = tempfile::tempdir().unwrap();
    let before = sweep_into(dir.path(), "old");
    let mut args = vec![
        "sweep",
        "--out",
        "new",
        "--adopt",
        "old",
        "--markdown",
        "old/shard-0-of-1.jsonl",
    ];
    args.extend_from_slice(QUICK);
    refused(
        dir.path(),
        &args,
        "--adopt",
        "old/shard-0-of-1.jsonl",
        &before,
    );
}

#[test]
fn the_trace_file_cannot_be_an_output() {
    let dir = tempfile::tempdir().unwrap();
    let trace = b"0 up\n0.5 down\n0.7 up\n";
    std::fs::write(dir.path().join("t.trace"), trace).unwrap();
    let mut args = vec!["run", "--trace-file", "t.trace", "--json", "./t.trace"];
    args.extend_from_slice(QUICK);
    refused(dir.path(), &args, "--trace-file", "t.trace", trace);
}

#[test]
fn symlinks_and_hard_links_to_merged_files_are_those_files() {
    let dir = tempfile::tempdir().unwrap();
    let before = sweep_into(dir.path(), "r");
    let shard = dir.path().join("r/shard-0-of-1.jsonl");
    std::os::unix::fs::symlink(&shard, dir.path().join("soft.jsonl")).unwrap();
    std::fs::hard_link(&shard, dir.path().join("hard.jsonl")).unwrap();
    for output in ["soft.jsonl", "hard.jsonl"] {
        for flag in ["--jsonl", "--json", "--csv"] {
            refused(
                dir.path(),
                &["merge", "r", flag, output],
                "is an input",
                "r/shard-0-of-1.jsonl",
                &before,
            );
        }
    }
    // calibrate's --json against a hard link to a compared file.
    refused(
        dir.path(),
        &[
            "calibrate",
            "--reference",
            "r",
            "--fast",
            "r",
            "--json",
            "hard.jsonl",
        ],
        "is an input",
        "r/shard-0-of-1.jsonl",
        &before,
    );
}

#[test]
fn plots_of_labels_with_one_slug_are_separate_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("s.toml"),
        "[[axis]]\nkey = \"transfer.duration\"\nvalues = [\"1s\", \"2s\"]\nlabels = [\"a/b\", \"a_b\"]\n",
    )
    .unwrap();
    let output = plot_scenario(dir.path());
    let err = stderr(&output);
    assert!(output.status.success(), "{err}");
    let files = std::fs::read_dir(dir.path().join("p")).unwrap().count();
    assert!(
        err.contains(&format!("{files} plots written")),
        "{files} files: {err}"
    );
    // A goodput and a window plot per point, and goodput against the axis.
    assert_eq!(files, 5, "{err}");
}

#[test]
fn a_report_says_what_the_command_line_changed() {
    let dir = tempfile::tempdir().unwrap();
    let report = common::run_report(
        dir.path(),
        &[
            "run",
            "--rate",
            "4Mbps",
            "--duration",
            "1s",
            "--seeds",
            "1",
            "--controllers",
            "newreno",
        ],
        "r.json",
    );
    let text = report.to_string();
    assert!(
        text.contains("changed on the command line")
            && text.contains("link.a_to_b.rate = \\\"4Mbps\\\" (--rate)"),
        "{text}"
    );
}

#[test]
fn a_dangling_symlink_is_the_file_it_will_create() {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink("x.json", dir.path().join("y.csv")).unwrap();
    std::fs::create_dir(dir.path().join("d")).unwrap();
    std::os::unix::fs::symlink("../m.md", dir.path().join("d/z.html")).unwrap();
    for args in [
        &["run", "--json", "x.json", "--csv", "y.csv"][..],
        &["run", "--csv", "y.csv", "--json", "./x.json"],
        &["run", "--markdown", "m.md", "--html", "d/z.html"],
    ] {
        let mut args = args.to_vec();
        args.extend_from_slice(QUICK);
        refused_untouched(dir.path(), &args, &["both name", "give each its own path"]);
    }
}

#[test]
fn a_file_output_cannot_be_a_file_an_output_directory_writes() {
    let dir = tempfile::tempdir().unwrap();
    for (args, dir_flag) in [
        (
            &["run", "--plot", "p", "--json", "p/goodput-demo.svg"][..],
            "--plot `p`",
        ),
        (
            &["run", "--plot", "p", "--csv", "./p/../p/cwnd.svg"],
            "--plot `p`",
        ),
        (&["run", "--plot", "p", "--json", "p"], "both name"),
        (
            &[
                "run",
                "--qlog",
                "q",
                "--markdown",
                "q/a-newreno-seed1-conn0.sqlog",
            ],
            "--qlog `q`",
        ),
        (
            &[
                "sweep",
                "--out",
                "o",
                "--shard",
                "1/2",
                "--markdown",
                "o/shard-0-of-2.jsonl",
            ],
            "--out `o`",
        ),
        (
            &["sweep", "--out", "o", "--json", "o/shard-3-of-4.jsonl"],
            "--out `o`",
        ),
    ] {
        let mut args = args.to_vec();
        args.extend_from_slice(QUICK);
        refused_untouched(dir.path(), &args, &[dir_flag]);
    }
    // merge's --plot too.
    let results = sweep_into(dir.path(), "r");
    assert!(!results.is_empty());
    refused_untouched(
        dir.path(),
        &["merge", "r", "--plot", "p", "--markdown", "p/x.svg"],
        &["--plot `p`", "*.svg"],
    );
}

#[test]
fn an_output_directory_cannot_overwrite_an_input() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("p")).unwrap();
    std::fs::write(dir.path().join("p/t.svg"), "0 up\n0.5 down\n0.7 up\n").unwrap();
    let mut args = vec!["run", "--trace-file", "p/t.svg", "--plot", "p"];
    args.extend_from_slice(QUICK);
    refused_untouched(dir.path(), &args, &["--plot `p` would overwrite the input"]);
}

#[test]
fn a_result_file_is_never_an_output() {
    let dir = tempfile::tempdir().unwrap();
    sweep_into(dir.path(), "r");
    std::fs::copy(
        dir.path().join("r/shard-0-of-1.jsonl"),
        dir.path().join("copy.jsonl"),
    )
    .unwrap();
    for flag in ["--json", "--csv", "--markdown", "--html"] {
        let mut args = vec!["run", flag, "copy.jsonl"];
        args.extend_from_slice(QUICK);
        refused_untouched(dir.path(), &args, &["is a harness result file", flag]);
    }
    refused_untouched(
        dir.path(),
        &["merge", "r", "--jsonl", "copy.jsonl"],
        &["is a harness result file"],
    );
}

#[test]
fn links_inside_output_directories_are_replaced_not_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    sweep_into(d, "r");
    let result = std::fs::read(d.join("r/shard-0-of-1.jsonl")).unwrap();
    std::fs::write(d.join("s.toml"), "[transfer]\nduration = \"1s\"\n").unwrap();
    std::fs::create_dir(d.join("p")).unwrap();
    // A symlink to the scenario, under a name --plot writes.
    std::os::unix::fs::symlink("../s.toml", d.join("p/goodput-s.svg")).unwrap();
    let output = plot_scenario(d);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        std::fs::read_to_string(d.join("s.toml")).unwrap(),
        "[transfer]\nduration = \"1s\"\n"
    );
    assert!(
        !std::fs::symlink_metadata(d.join("p/goodput-s.svg"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    // A result file (here a hard link to one) under such a name is refused, and kept.
    std::fs::hard_link(d.join("r/shard-0-of-1.jsonl"), d.join("p/goodput-demo.svg")).unwrap();
    let mut args = vec!["run", "--plot", "p"];
    args.extend_from_slice(QUICK);
    refused_untouched(d, &args, &["--plot `p` holds a harness result file"]);
    assert_eq!(
        std::fs::read(d.join("r/shard-0-of-1.jsonl")).unwrap(),
        result
    );
}

#[test]
fn a_refused_command_leaves_no_file_behind() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for args in [
        &[
            "run",
            "--jobs",
            "0",
            "--json",
            "new.json",
            "--plot",
            "new/plots",
        ][..],
        &["run", "--stack", "noq", "--qlog", "q", "--csv", "new.csv"],
        &[
            "run",
            "--json",
            "new.json",
            "--plot",
            "new.json.d",
            "--csv",
            "/proc/nope.csv",
        ],
    ] {
        let mut args = args.to_vec();
        args.extend_from_slice(QUICK);
        refused_untouched(d, &args, &[]);
    }
    // A merge that finds runs missing (exit 1) writes none of its outputs.
    sweep_into(d, "r");
    let path = d.join("r/shard-0-of-1.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let header = text.lines().next().unwrap();
    std::fs::create_dir(d.join("part")).unwrap();
    std::fs::write(d.join("part/shard-0-of-1.jsonl"), format!("{header}\n")).unwrap();
    let before = common::snapshot(d);
    let output = run_in(
        d,
        &[
            "merge", "part", "--json", "m.json", "--jsonl", "m.jsonl", "--plot", "mp",
        ],
    );
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert_eq!(common::snapshot(d), before);
}

/// With the `ns3` feature (the ns-3 backend loads before outputs are checked).
#[cfg(feature = "ns3")]
#[test]
fn an_ns2_trace_is_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let trace = "$node_(0) set X_ 0.0\n$node_(0) set Y_ 0.0\n$node_(1) set X_ 100.0\n$node_(1) set Y_ 0.0\n";
    std::fs::write(d.join("t.ns2"), trace).unwrap();
    std::fs::hard_link(d.join("t.ns2"), d.join("hl.json")).unwrap();
    let ns2 = [
        "--backend",
        "ns3",
        "--ns3",
        "nodes=2",
        "--ns3",
        "topology.model=\"ns2_trace\"",
        "--ns3",
        "topology.path=\"t.ns2\"",
    ];
    for output in [
        &["--json", "t.ns2"][..],
        &["--csv", "./t.ns2"],
        &["--markdown", "hl.json"],
    ] {
        let mut args = vec!["run"];
        args.extend_from_slice(&ns2);
        args.extend_from_slice(output);
        args.extend_from_slice(QUICK);
        refused_untouched(d, &args, &["is an input", "ns-2 trace"]);
    }
}

#[test]
fn fifos_are_refused_not_waited_on() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for fifo in ["f.toml", "f.trace", "out.json"] {
        let status = std::process::Command::new("mkfifo")
            .arg(d.join(fifo))
            .status()
            .unwrap();
        assert!(status.success());
    }
    std::fs::create_dir(d.join("r")).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(d.join("r/shard-0-of-1.jsonl"))
        .status()
        .unwrap();
    assert!(status.success());
    // Each would block forever on open; the test's own timeout is the harness's exit.
    for (args, needle) in [
        (&["run", "--scenario", "f.toml"][..], "FIFO"),
        (&["run", "--trace-file", "f.trace"], "FIFO"),
        (&["run", "--json", "out.json"], "FIFO"),
        (&["check", "r"], "FIFO"),
        (&["merge", "r"], "FIFO"),
    ] {
        let mut args = args.to_vec();
        if args[0] == "run" {
            args.extend_from_slice(QUICK);
        }
        let output = run_in(d, &args);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains(needle)
                || String::from_utf8_lossy(&output.stdout).contains(needle),
            "{args:?}: {}",
            stderr(&output)
        );
    }
}

#[test]
fn a_sweep_writes_its_shard_file_in_out_not_through_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("o")).unwrap();
    std::os::unix::fs::symlink("../elsewhere.jsonl", d.join("o/shard-0-of-1.jsonl")).unwrap();
    let args = common::sweep_args("o", "1s", "1", "newreno");
    refused_untouched(d, &args, &["is a symlink or not a regular file", "--out"]);
    assert!(!d.join("elsewhere.jsonl").exists());
}
