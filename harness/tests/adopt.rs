//! `sweep --adopt`: a grid grown by seeds and controllers starts from another grid's runs,
//! labels them as its own, holds every run once (also when killed while adopting), and gives
//! the same result file as sweeping the grown grid from scratch.

mod common;

use std::path::Path;

use common::{run_in, stderr};

/// 2 points x up to 3 controllers x up to 3 seeds of 2 s runs.
const GRID: &str = r#"
name = "grown"
[transfer]
duration = "2s"
[link.both]
rate = "2Mbps"
delay = "10ms"
[[axis]]
key = "link.both.errors"
name = "PER"
values = [[{ model = "per", p = 0.0 }], [{ model = "per", p = 0.02 }]]
labels = ["0", "0.02"]
"#;

/// The same runs under another grid name and other point labels: an earlier, smaller sweep.
fn earlier_grid() -> String {
    GRID.replace("name = \"grown\"", "name = \"earlier\"")
        .replace("labels = [\"0\", \"0.02\"]", "labels = [\"none\", \"2%\"]")
}

const SMALL: [&str; 4] = ["--controllers", "newreno,cubic", "--seed", "1,2"];
const BIG: [&str; 4] = ["--controllers", "newreno,cubic,karak", "--seed", "1,2,3"];

/// The sweep's exit code and stderr.
fn sweep(dir: &Path, scenario: &str, grid: &[&str], out: &str, extra: &[&str]) -> (i32, String) {
    let mut args = vec![
        "sweep",
        "--scenario",
        scenario,
        "--out",
        out,
        "--jobs",
        "2",
        "-q",
    ];
    args.extend_from_slice(grid);
    args.extend_from_slice(extra);
    let output = run_in(dir, &args);
    (output.status.code().unwrap_or(-1), stderr(&output))
}

/// A sweep that must succeed; its stderr.
fn sweep_ok(dir: &Path, scenario: &str, grid: &[&str], out: &str, extra: &[&str]) -> String {
    let (code, err) = sweep(dir, scenario, grid, out, extra);
    assert_eq!(code, 0, "{err}");
    err
}

fn merged(dir: &Path, input: &str) -> String {
    let file = format!("{input}.merged.jsonl");
    let output = run_in(dir, &["merge", input, "--jsonl", &file]);
    assert!(output.status.success(), "{}", stderr(&output));
    std::fs::read_to_string(dir.join(file)).unwrap()
}

fn setup() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("grid.toml"), GRID).unwrap();
    std::fs::write(dir.path().join("earlier.toml"), earlier_grid()).unwrap();
    sweep_ok(dir.path(), "earlier.toml", &SMALL, "small", &[]);
    dir
}

#[test]
fn a_grown_grid_adopts_the_runs_it_shares_and_equals_a_sweep_from_scratch() {
    let dir = setup();
    let d = dir.path();
    // 2 points x 2 controllers x 2 seeds of the 18-run grid come from the earlier sweep.
    let err = sweep_ok(d, "grid.toml", &BIG, "adopted", &["--adopt", "small"]);
    assert!(
        err.contains("0 already done, 8 adopted, 10 to run"),
        "{err}"
    );
    sweep_ok(d, "grid.toml", &BIG, "scratch", &[]);
    // Run by run the same file: the adopted runs carry this grid's name, point labels and
    // indices, and their measurements are the earlier runs' (all three are reproducible).
    let adopted = merged(d, "adopted");
    assert_eq!(adopted.lines().count(), 19);
    assert_eq!(adopted, merged(d, "scratch"));
    assert!(!adopted.contains("\"earlier\"") && !adopted.contains("2%"));

    // Run again: nothing left to adopt or run.
    let err = sweep_ok(d, "grid.toml", &BIG, "adopted", &["--adopt", "small"]);
    assert!(
        err.contains("18 already done, 0 adopted, 0 to run"),
        "{err}"
    );

    // Shards adopt their own runs only: 8 in all, each once.
    let mut total = 0;
    for shard in ["0/3", "1/3", "2/3"] {
        let err = sweep_ok(
            d,
            "grid.toml",
            &BIG,
            "sharded",
            &["--adopt", "small/shard-0-of-1.jsonl", "--shard", shard],
        );
        let count = err.split(" adopted").next().unwrap();
        total += count.rsplit(' ').next().unwrap().parse::<usize>().unwrap();
    }
    assert_eq!(total, 8);
    assert_eq!(merged(d, "sharded"), adopted);
}

#[test]
fn a_sweep_killed_while_adopting_resumes_with_every_run_once() {
    let dir = setup();
    let d = dir.path();
    sweep_ok(d, "grid.toml", &BIG, "grown", &["--adopt", "small"]);
    let path = d.join("grown/shard-0-of-1.jsonl");
    let whole = std::fs::read_to_string(&path).unwrap();
    // As a kill leaves it three runs into the adoption: the header, three adopted runs and a
    // torn fourth line.
    let kept: Vec<&str> = whole.lines().take(4).collect();
    let torn = &whole.lines().nth(4).unwrap()[..40];
    std::fs::write(&path, format!("{}\n{torn}", kept.join("\n"))).unwrap();
    let err = sweep_ok(d, "grid.toml", &BIG, "grown", &["--adopt", "small"]);
    assert!(
        err.contains("3 already done, 5 adopted, 10 to run"),
        "{err}"
    );
    sweep_ok(d, "grid.toml", &BIG, "scratch", &[]);
    assert_eq!(merged(d, "grown"), merged(d, "scratch"));
}

#[test]
fn adopting_refuses_what_is_not_a_result_file_of_this_harness() {
    let dir = setup();
    let d = dir.path();
    let (code, err) = sweep(d, "grid.toml", &BIG, "a", &["--adopt", "nowhere"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("`nowhere` does not exist"), "{err}");
    let (code, err) = sweep(d, "grid.toml", &BIG, "b", &["--adopt", "grid.toml"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not a harness result line"), "{err}");
    let text = std::fs::read_to_string(d.join("small/shard-0-of-1.jsonl")).unwrap();
    std::fs::write(
        d.join("old.jsonl"),
        common::written_by_harness(&text, "0.0.1"),
    )
    .unwrap();
    let (code, err) = sweep(d, "grid.toml", &BIG, "c", &["--adopt", "old.jsonl"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--adopt: `old.jsonl` was written by harness 0.0.1"),
        "{err}"
    );
    // Nothing was started by a refused command.
    for out in ["a", "b", "c"] {
        assert!(!d.join(out).exists(), "{out}");
    }
}
