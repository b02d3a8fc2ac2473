//! No output may overwrite an input or a result: outputs are compared with every file a
//! command reads or appends (the scenario and trace files, the sweep's own result file in
//! `--out`, adopted and merged result files) as files, not as spellings: through symlinks and
//! hard links too.

mod common;

use std::path::Path;

use common::{run_in, stderr};

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
    let output = run_in(
        dir.path(),
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
    );
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
