//! Sweeps: a killed sweep resumes without redoing or duplicating runs; shards partition the
//! grid; merge accepts shards in any order, matches an unsharded sweep run by run, and rejects
//! or reports what does not fit.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{harness, run_in, stderr};
use serde_json::Value;

/// A grid of 4 points x 3 controllers x 3 seeds = 36 short runs.
const GRID: &str = r#"
name = "test-grid"
seeds = 3
[transfer]
duration = "12s"
[link.both]
rate = "2Mbps"
delay = "10ms"
[controllers]
select = ["newreno", "cubic", "karak"]
[[axis]]
key = "link.both.errors"
name = "PER"
values = [[{ model = "per", p = 0.0 }], [{ model = "per", p = 0.01 }]]
labels = ["0", "0.01"]
[[axis]]
key = "flows"
values = [1, 2]
"#;

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn run_ids(path: &Path) -> Vec<String> {
    lines(path)
        .iter()
        .filter(|l| l["kind"] == "run")
        .map(|l| l["result"]["run_id"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_killed_sweep_resumes_and_holds_every_run_exactly_once() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("grid.toml"), GRID).unwrap();
    let args = [
        "sweep",
        "--scenario",
        "grid.toml",
        "--out",
        "out",
        "--jobs",
        "1",
        "-q",
    ];
    let file = dir.path().join("out/shard-0-of-1.jsonl");
    let mut child = harness()
        .args(args)
        .current_dir(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while run_ids(&file).len() < 3 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no runs written"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the sweep finished before it could be killed"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = run_ids(&file);
    assert!(before.len() < 36, "killed midway");
    // A kill in the middle of a write leaves a torn line; the resume must drop it.
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str("{\"kind\":\"run\",\"result\":{\"run_id\":\"torn");
    std::fs::write(&file, text).unwrap();

    let output = run_in(dir.path(), &args);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stderr(&output).contains(&format!("{} already done", before.len())));
    let header = &lines(&file)[0];
    let expected: Vec<String> = header["run_ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(expected.len(), 36);
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for id in run_ids(&file) {
        *counts.entry(id).or_default() += 1;
    }
    for id in &expected {
        assert_eq!(
            counts.get(id),
            Some(&1),
            "run {id} must appear exactly once"
        );
    }
    assert_eq!(counts.len(), 36);
    // The runs finished before the kill were not redone: their lines are still first.
    assert_eq!(&run_ids(&file)[..before.len()], &before[..]);

    // A third invocation has nothing to do.
    let output = run_in(dir.path(), &args);
    assert!(
        stderr(&output).contains("36 already done, 0 to run"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn shards_merge_in_any_order_into_the_unsharded_sweep() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("grid.toml"), GRID).unwrap();
    let sweep = |out: &str, shard: &str| {
        let output = run_in(
            dir.path(),
            &[
                "sweep",
                "--scenario",
                "grid.toml",
                "--out",
                out,
                "--shard",
                shard,
                "--jobs",
                "2",
                "-q",
            ],
        );
        assert!(output.status.success(), "{}", stderr(&output));
    };
    sweep("whole", "0/1");
    for shard in ["2/3", "0/3", "1/3"] {
        sweep("shards", shard);
    }
    let sizes: Vec<usize> = (0..3)
        .map(|i| run_ids(&dir.path().join(format!("shards/shard-{i}-of-3.jsonl"))).len())
        .collect();
    assert_eq!(sizes, [12, 12, 12]);

    // Files given in reverse order.
    let output = run_in(
        dir.path(),
        &[
            "merge",
            "shards/shard-2-of-3.jsonl",
            "shards/shard-1-of-3.jsonl",
            "shards/shard-0-of-3.jsonl",
            "--jsonl",
            "merged.jsonl",
            "--json",
            "merged.json",
        ],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let output = run_in(
        dir.path(),
        &[
            "merge",
            "whole",
            "--jsonl",
            "whole.jsonl",
            "--json",
            "whole.json",
        ],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    // Run by run, the same JSON (all three controllers are reproducible).
    let merged = std::fs::read_to_string(dir.path().join("merged.jsonl")).unwrap();
    let whole = std::fs::read_to_string(dir.path().join("whole.jsonl")).unwrap();
    assert_eq!(merged.lines().count(), 37);
    assert_eq!(merged, whole);
    assert_eq!(
        std::fs::read(dir.path().join("merged.json")).unwrap(),
        std::fs::read(dir.path().join("whole.json")).unwrap()
    );

    // A missing shard is reported, with the shard to re-run, and fails the merge.
    let output = run_in(
        dir.path(),
        &[
            "merge",
            "shards/shard-0-of-3.jsonl",
            "shards/shard-2-of-3.jsonl",
        ],
    );
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(
        err.contains("12 of 36 runs are missing") && err.contains("shard(s) 1/3"),
        "{err}"
    );
    // ... unless a partial report is asked for.
    let output = run_in(
        dir.path(),
        &[
            "merge",
            "--partial",
            "shards/shard-0-of-3.jsonl",
            "shards/shard-2-of-3.jsonl",
        ],
    );
    assert!(output.status.success());

    // Duplicated runs are reported.
    std::fs::copy(
        dir.path().join("shards/shard-1-of-3.jsonl"),
        dir.path().join("shards/copy-of-shard-1.jsonl"),
    )
    .unwrap();
    let output = run_in(dir.path(), &["merge", "shards"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("12 runs appear more than once"),
        "{}",
        stderr(&output)
    );
    std::fs::remove_file(dir.path().join("shards/copy-of-shard-1.jsonl")).unwrap();

    // A shard of another grid is rejected (exit 2).
    let other = GRID.replace("duration = \"12s\"", "duration = \"11s\"");
    std::fs::write(dir.path().join("other.toml"), other).unwrap();
    let output = run_in(
        dir.path(),
        &[
            "sweep",
            "--scenario",
            "other.toml",
            "--out",
            "other",
            "--shard",
            "0/3",
            "--jobs",
            "2",
            "-q",
        ],
    );
    assert!(output.status.success());
    let output = run_in(
        dir.path(),
        &[
            "merge",
            "shards/shard-0-of-3.jsonl",
            "other/shard-0-of-3.jsonl",
        ],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("different grids"),
        "{}",
        stderr(&output)
    );
    // So is a shard of another harness version.
    let text = std::fs::read_to_string(dir.path().join("shards/shard-1-of-3.jsonl")).unwrap();
    std::fs::write(
        dir.path().join("old.jsonl"),
        common::written_by_harness(&text, "0.0.1"),
    )
    .unwrap();
    let output = run_in(
        dir.path(),
        &["merge", "shards/shard-0-of-3.jsonl", "old.jsonl"],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("different harness versions"),
        "{}",
        stderr(&output)
    );
    // Resuming into a directory that holds another grid's shard is refused.
    let output = run_in(
        dir.path(),
        &[
            "sweep",
            "--scenario",
            "other.toml",
            "--out",
            "shards",
            "--shard",
            "0/3",
            "-q",
        ],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("holds results of another grid"),
        "{}",
        stderr(&output)
    );
}

/// [`GRID`] with 2 s runs: 36 runs in well under a second.
fn quick_grid() -> String {
    GRID.replace("duration = \"12s\"", "duration = \"2s\"")
}

fn sweep_shard(dir: &Path, out: &str, shard: &str) -> std::process::Output {
    run_in(
        dir,
        &[
            "sweep",
            "--scenario",
            "grid.toml",
            "--out",
            out,
            "--shard",
            shard,
            "--jobs",
            "2",
            "-q",
        ],
    )
}

#[test]
fn a_shard_is_written_by_one_process_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    // 30 s runs, one worker: the first process is still busy when the second starts.
    let grid = GRID.replace("duration = \"12s\"", "duration = \"30s\"");
    std::fs::write(dir.path().join("grid.toml"), grid).unwrap();
    let args = [
        "sweep",
        "--scenario",
        "grid.toml",
        "--out",
        "out",
        "--shard",
        "1/2",
        "--jobs",
        "1",
        "-q",
    ];
    let file = dir.path().join("out/shard-1-of-2.jsonl");
    let mut first = harness()
        .args(args)
        .current_dir(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while lines(&file).is_empty() {
        assert!(started.elapsed() < Duration::from_secs(60), "no header");
        std::thread::sleep(Duration::from_millis(5));
    }
    // A second process on the same shard (a re-submitted job while the first still runs).
    let second = run_in(dir.path(), &args);
    let still_running = first.try_wait().unwrap().is_none();
    first.kill().unwrap();
    first.wait().unwrap();
    assert!(still_running, "the first sweep finished too early");
    assert_eq!(second.status.code(), Some(2), "{}", stderr(&second));
    assert!(
        stderr(&second).contains("is locked by another harness process running shard 1/2"),
        "{}",
        stderr(&second)
    );
    // The lock dies with its process: the shard resumes and completes, each run once.
    let done = run_ids(&file).len();
    let output = run_in(dir.path(), &args);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains(&format!("{done} already done")),
        "{}",
        stderr(&output)
    );
    let ids = run_ids(&file);
    let unique: std::collections::BTreeSet<&String> = ids.iter().collect();
    assert_eq!((ids.len(), unique.len()), (18, 18));
}

#[test]
fn a_shard_killed_before_its_header_is_restarted_and_skipped_by_merge() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("grid.toml"), quick_grid()).unwrap();
    let output = sweep_shard(dir.path(), "out", "0/2");
    assert!(output.status.success(), "{}", stderr(&output));
    // Shard 1 was killed while writing its header: a torn first line.
    let header = std::fs::read_to_string(dir.path().join("out/shard-0-of-2.jsonl")).unwrap();
    let header = header.lines().next().unwrap();
    std::fs::write(
        dir.path().join("out/shard-1-of-2.jsonl"),
        &header[..header.len() / 2],
    )
    .unwrap();
    let output = run_in(dir.path(), &["merge", "out"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let err = stderr(&output);
    assert!(
        err.contains("shard-1-of-2.jsonl` has no complete header line")
            && err.contains("18 of 36 runs are missing")
            && err.contains("shard(s) 1/2"),
        "{err}"
    );
    // Re-running the shard starts it afresh; then the merge is complete.
    let output = sweep_shard(dir.path(), "out", "1/2");
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stderr(&output).contains("0 already done, 18 to run"));
    let output = run_in(dir.path(), &["merge", "out"]);
    assert!(output.status.success(), "{}", stderr(&output));
}

#[test]
fn merge_names_mixed_shard_counts() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("grid.toml"), quick_grid()).unwrap();
    // Submitted as 2 shards, then re-submitted as 3: shard 0/3 overlaps 0/2.
    for shard in ["0/2", "0/3"] {
        let output = sweep_shard(dir.path(), "out", shard);
        assert!(output.status.success(), "{}", stderr(&output));
    }
    let output = run_in(dir.path(), &["merge", "out"]);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(
        err.contains("different shard counts (N = 2, 3)")
            && err.contains("runs appear more than once")
            && err.contains("runs are missing"),
        "{err}"
    );
}

/// One axis, three seeds: `merge --plot` draws goodput against the axis from the result files,
/// and the JSON report carries each controller's paired ratio to NewReno.
#[test]
fn merge_plots_goodput_against_the_axis_and_reports_paired_ratios() {
    let dir = tempfile::tempdir().unwrap();
    let grid = r#"
name = "one-axis"
seeds = 3
[transfer]
duration = "3s"
[link.both]
rate = "2Mbps"
delay = "10ms"
[controllers]
select = ["newreno", "karak"]
[[axis]]
key = "link.both.errors"
name = "PER"
values = [[{ model = "per", p = 0.0 }], [{ model = "per", p = 0.02 }]]
labels = ["0", "0.02"]
"#;
    std::fs::write(dir.path().join("grid.toml"), grid).unwrap();
    let output = sweep_shard(dir.path(), "out", "0/1");
    assert!(output.status.success(), "{}", stderr(&output));
    let merge: Vec<&str> = "merge out --plot plots --json r.json --html r.html --markdown r.md"
        .split(' ')
        .collect();
    let output = run_in(dir.path(), &merge);
    assert!(output.status.success(), "{}", stderr(&output));
    // The page holds the same plots as the directory, inline: against the axis, and per point.
    let html = std::fs::read_to_string(dir.path().join("r.html")).unwrap();
    let plots = std::fs::read_dir(dir.path().join("plots")).unwrap().count();
    assert_eq!(
        html.matches("<svg").count(),
        plots,
        "one inline SVG per plot file"
    );
    assert!(html.contains("goodput-vs-PER.svg") && html.contains("<td>karak</td>"));
    let svg = std::fs::read_to_string(dir.path().join("plots/goodput-vs-PER.svg")).unwrap();
    for needle in ["<svg", "newreno", "karak", "95% CI", "\n0.02\n"] {
        assert!(svg.contains(needle), "`{needle}` missing from the plot");
    }
    // Result files keep no window traces: no cwnd plots, the per-point goodput plots.
    assert!(!dir.path().join("plots/cwnd-PER_0.svg").exists());
    assert!(dir.path().join("plots/goodput-PER_0.02.svg").exists());
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    let rows = report["summary"].as_array().unwrap();
    for row in rows {
        let paired = &row["vs_newreno_paired"];
        if row["controller"] == "newreno" {
            assert!(paired.is_null(), "{row}");
        } else {
            let (low, mean, high) = (
                paired["low"].as_f64().unwrap(),
                paired["mean"].as_f64().unwrap(),
                paired["high"].as_f64().unwrap(),
            );
            assert!(low <= mean && mean <= high, "{row}");
            assert_eq!(paired["seeds"], 3, "{row}");
        }
    }
    // The Markdown table: a line per point, NewReno's goodput and karak's paired ratio as the
    // JSON gives them.
    let markdown = std::fs::read_to_string(dir.path().join("r.md")).unwrap();
    let lines: Vec<&str> = markdown.lines().collect();
    assert_eq!(
        lines[0],
        "| PER | newreno Mb/s | karak x newreno | p95 RTT ms newreno / karak |"
    );
    for (line, point) in lines[2..4].iter().zip(["0", "0.02"]) {
        let row = |controller: &str| {
            rows.iter()
                .find(|r| r["controller"] == controller && r["params"]["PER"] == point)
                .unwrap()
        };
        let goodput = row("newreno")["goodput_bps"]["mean"].as_f64().unwrap() / 1e6;
        let paired = &row("karak")["vs_newreno_paired"];
        let ratio = format!(
            "{:.2} [{:.2}, {:.2}]",
            paired["mean"].as_f64().unwrap(),
            paired["low"].as_f64().unwrap(),
            paired["high"].as_f64().unwrap()
        );
        assert!(
            line.starts_with(&format!("| {point} | {goodput:.3} ± ")) && line.contains(&ratio),
            "{line} (expected {goodput:.3} and {ratio})"
        );
    }
}

/// `calibrate`: the same grid on a link at half the rate predicts half the goodput, which is
/// reported as a miss per controller; grids with no common point are refused.
#[test]
fn calibrate_reports_ratios_misses_and_refuses_unrelated_grids() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("grid.toml"), quick_grid()).unwrap();
    let sweep = |out: &str, extra: &[&str]| {
        let mut args = vec!["sweep", "--scenario", "grid.toml", "--out", out, "-q"];
        args.extend(extra);
        let output = run_in(dir.path(), &args);
        assert!(output.status.success(), "{}", stderr(&output));
    };
    sweep("reference", &[]);
    sweep("half", &["--rate", "1Mbps"]);
    let output = run_in(
        dir.path(),
        &[
            "calibrate",
            "--reference",
            "reference",
            "--fast",
            "half",
            "--json",
            "c.json",
        ],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("goodput within ±20%: 0 of 12"), "{text}");
    assert!(text.contains("goodput miss at"), "{text}");
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("c.json")).unwrap()).unwrap();
    let points = report["points"].as_array().unwrap();
    assert_eq!(points.len(), 4, "2 PER values x 2 flow counts");
    for cell in points.iter().flat_map(|p| p["cells"].as_array().unwrap()) {
        let ratio = cell["ratio"].as_f64().unwrap();
        assert!((0.3..0.6).contains(&ratio), "half the rate: {cell}");
        assert_eq!(cell["within"], false);
        // The same seeds on both sides: each seed's ratio, and their geometric mean, near
        // one half as well.
        assert!(cell["common_seeds"].as_u64().unwrap() >= 2, "{cell}");
        let by_seed = cell["seed_by_seed"]["mean"].as_f64().unwrap();
        assert!(
            (0.3..0.6).contains(&by_seed),
            "half the rate, seed by seed: {cell}"
        );
    }

    // A grid whose points have other labels.
    std::fs::write(
        dir.path().join("other.toml"),
        quick_grid().replace("labels = [\"0\", \"0.01\"]", "labels = [\"a\", \"b\"]"),
    )
    .unwrap();
    let output = run_in(
        dir.path(),
        &["sweep", "--scenario", "other.toml", "--out", "other", "-q"],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let output = run_in(
        dir.path(),
        &["calibrate", "--reference", "reference", "--fast", "other"],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("matches a point"),
        "{}",
        stderr(&output)
    );
    let output = run_in(
        dir.path(),
        &[
            "calibrate",
            "--reference",
            "reference",
            "--fast",
            "half",
            "--tolerance",
            "1.5",
        ],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("--tolerance 1.5: must be in (0, 1]"));
}

#[test]
fn resuming_refuses_a_file_with_a_duplicated_or_foreign_run() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("grid.toml"), quick_grid()).unwrap();
    let output = sweep_shard(dir.path(), "r", "0/3");
    assert!(output.status.success(), "{}", stderr(&output));
    let path = dir.path().join("r/shard-0-of-3.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let run_lines: Vec<&str> = text.lines().skip(1).collect();
    assert!(run_lines.len() >= 2);

    // The same run twice (files concatenated by hand).
    std::fs::write(&path, format!("{text}{}\n", run_lines[0])).unwrap();
    let output = sweep_shard(dir.path(), "r", "0/3");
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains("hold the same run"), "{err}");

    // A run of another shard of the same grid.
    let output = sweep_shard(dir.path(), "other", "1/3");
    assert!(output.status.success(), "{}", stderr(&output));
    let other = std::fs::read_to_string(dir.path().join("other/shard-1-of-3.jsonl")).unwrap();
    let foreign = other.lines().nth(1).unwrap();
    std::fs::write(&path, format!("{text}{foreign}\n")).unwrap();
    let output = sweep_shard(dir.path(), "r", "0/3");
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains("belongs to another shard"), "{err}");

    // A run of another grid.
    std::fs::write(
        dir.path().join("grid2.toml"),
        quick_grid().replace("duration = \"2s\"", "duration = \"3s\""),
    )
    .unwrap();
    let output = run_in(
        dir.path(),
        &["sweep", "--scenario", "grid2.toml", "--out", "g2", "-q"],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let g2 = std::fs::read_to_string(dir.path().join("g2/shard-0-of-1.jsonl")).unwrap();
    std::fs::write(&path, format!("{text}{}\n", g2.lines().nth(1).unwrap())).unwrap();
    let output = sweep_shard(dir.path(), "r", "0/3");
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains("is not a run of grid"), "{err}");

    // Restored, it resumes with nothing to do.
    std::fs::write(&path, &text).unwrap();
    let output = sweep_shard(dir.path(), "r", "0/3");
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
}

#[test]
fn calibrate_counts_only_points_that_test_the_ranking_and_lists_unmatched_controllers() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("grid.toml"), quick_grid()).unwrap();
    let sweep = |out: &str, controllers: &str| {
        let args = [
            "sweep",
            "--scenario",
            "grid.toml",
            "--out",
            out,
            "--controllers",
            controllers,
            "-q",
        ];
        let output = run_in(dir.path(), &args);
        assert!(output.status.success(), "{}", stderr(&output));
    };
    // One controller in common: no pair to rank anywhere.
    sweep("reference", "newreno,karak");
    sweep("fast", "newreno,petra");
    let output = run_in(
        dir.path(),
        &["calibrate", "--reference", "reference", "--fast", "fast"],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.contains(
            "the same at 0 of the 0 point(s) that resolve a pair (4 point(s) resolve none"
        ),
        "{text}"
    );
    assert!(
        text.contains("unmatched controller karak (reference only)"),
        "{text}"
    );
    assert!(
        text.contains("unmatched controller petra (fast model only)"),
        "{text}"
    );
}
