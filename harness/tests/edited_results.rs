//! A result file edited by hand is refused by name and line, by merge and by a resumed sweep:
//! each run line is checked against its header (its id, index, shard, point, controller and
//! seed) and against its own figures (goodput = bytes / window, within the link's physical
//! limit), and the header against itself (its grid id is the hash of its run list).

mod common;

use std::path::Path;

use common::{run_in, stderr};
use serde_json::Value;

/// The sweep whose result file the tests edit, and resume.
const SWEEP: [&str; 4] = ["r", "2s", "2", "newreno"];

/// A sweep's result file, as JSON lines.
fn swept(dir: &Path) -> Vec<Value> {
    let _ = std::fs::remove_dir_all(dir.join("r"));
    let [out, duration, seeds, controllers] = SWEEP;
    common::sweep_file(dir, out, duration, seeds, controllers)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn write(dir: &Path, lines: &[Value]) {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(dir.join("r/shard-0-of-1.jsonl"), text).unwrap();
}

/// merge and the resumed sweep both refuse the edited file, naming `needles`.
fn refused(dir: &Path, needles: &[&str]) {
    let [out, duration, seeds, controllers] = SWEEP;
    let sweep = common::sweep_args(out, duration, seeds, controllers);
    for args in [&["merge", "r"][..], &sweep[..]] {
        let output = run_in(dir, args);
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {err}");
        for needle in needles {
            assert!(err.contains(needle), "{args:?}: `{needle}` missing: {err}");
        }
    }
}

#[test]
fn an_impossible_goodput_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = swept(dir.path());
    lines[1]["result"]["goodput_bps"] = 9.99e12.into();
    write(dir.path(), &lines);
    refused(dir.path(), &["line 2", "goodput 9990000000000", "edited"]);
    // Bytes edited to match: beyond the link's physical limit.
    let mut lines = swept(dir.path());
    let window = lines[1]["result"]["window_s"].as_f64().unwrap();
    lines[1]["result"]["bytes_delivered"] = 10_000_000_000u64.into();
    lines[1]["result"]["goodput_bps"] = (1e10 * 8.0 / window).into();
    write(dir.path(), &lines);
    refused(dir.path(), &["line 2", "physical limit"]);
}

#[test]
fn a_changed_seed_controller_or_point_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for (field, value) in [
        ("seed", Value::from(7)),
        ("controller", Value::from("cubic")),
        ("point", Value::from("elsewhere")),
    ] {
        let mut lines = swept(dir.path());
        lines[2]["result"][field] = value;
        write(dir.path(), &lines);
        refused(dir.path(), &["line 3", "the line was edited"]);
    }
}

#[test]
fn an_edited_header_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = swept(dir.path());
    lines[0]["run_ids"][1] = "0000000000000000".into();
    write(dir.path(), &lines);
    refused(dir.path(), &["line 1", "grid_id"]);
    let mut lines = swept(dir.path());
    lines[0]["shard"]["index"] = 3.into();
    write(dir.path(), &lines);
    refused(dir.path(), &["line 1", "shard"]);
}
