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
    let version = format!("\"harness_version\":\"{}\"", env!("CARGO_PKG_VERSION"));
    std::fs::write(
        dir.path().join("old.jsonl"),
        text.replacen(&version, "\"harness_version\":\"0.0.1\"", 1),
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
