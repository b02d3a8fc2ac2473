//! A result file edited by hand is refused by name and line, by merge and by a resumed sweep.
//! Every line carries a digest of its content, so any edit that does not recompute it is
//! refused; an edit that does (a forger's) still meets the checks of each run line against its
//! header (its id, index, shard, point, controller and seed) and against its own figures
//! (goodput = bytes / window, within the link's physical limit, every figure in its physical
//! range and consistent with the others), and of the header against itself (its grid id is
//! the hash of its run list).

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

/// Writes `lines` as the result file, each with its digest recomputed: what a forger who knows
/// the format would write, so that the checks behind the digest are what is tested.
fn write(dir: &Path, lines: &[Value]) {
    common::write_sealed(&dir.join("r/shard-0-of-1.jsonl"), lines);
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

#[test]
fn any_edit_that_keeps_the_old_digest_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    swept(dir.path());
    let path = dir.path().join("r/shard-0-of-1.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    for (from, to, line) in [
        // Goodput and bytes scaled together, consistently: only the digest tells.
        ("\"bytes_delivered\":", "\"bytes_delivered\":1", "line 2"),
        ("\"sender\":\"quinn\"", "\"sender\":\"noq\"", "line 2"),
        ("\"description\":\"", "\"description\":\"X", "line 1"),
    ] {
        let edited = text.replacen(from, to, 1);
        assert_ne!(edited, text, "{from}");
        std::fs::write(&path, edited).unwrap();
        refused(dir.path(), &[line, "digest", "the line was edited"]);
    }
    // A line without its digest.
    let stripped: String = text
        .lines()
        .map(|l| format!("{}}}\n", &l[..l.rfind(",\"digest\"").unwrap()]))
        .collect();
    std::fs::write(&path, stripped).unwrap();
    refused(dir.path(), &["line 1", "no digest"]);
}

#[test]
fn figures_outside_their_physical_range_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    for (path, value, needle) in [
        (
            &["flows", "0", "rtt_min_ms"][..],
            Value::from(-3.0),
            "flows[0].rtt_min_ms = -3 is negative",
        ),
        (&["jain"], Value::from(3.0), "jain = 3 is outside [0, 1]"),
        (
            &["link", "up_fraction"],
            Value::from(5.0),
            "link.up_fraction = 5 is outside [0, 1]",
        ),
        (
            &["flows", "0", "rtt_p95_ms"],
            Value::from(0.5),
            "are not in order",
        ),
        (&["backend"], Value::from("ns3"), "backend ns3"),
        (
            &["flows", "0", "packets_lost"],
            Value::from(1u64 << 40),
            "exceeds what the flow sent",
        ),
        (
            &["flows", "0", "connected_s"][..],
            Value::from(50.0),
            "past the",
        ),
        (
            &["flows", "0", "flow"][..],
            Value::from(7),
            "not the flow's place",
        ),
        (
            &["flows", "0", "rtt_samples"][..],
            Value::from(0),
            "reports RTTs",
        ),
        (
            &["flows", "0", "rtt_p95_ms"][..],
            Value::from(1e300),
            "longer than the run",
        ),
    ] {
        let mut lines = swept(dir.path());
        let mut at = &mut lines[1]["result"];
        for key in path {
            at = match key.parse::<usize>() {
                Ok(i) => &mut at[i],
                Err(_) => &mut at[*key],
            };
        }
        *at = value;
        write(dir.path(), &lines);
        refused(dir.path(), &["line 2", needle, "the line was edited"]);
    }
}

#[test]
fn check_refuses_an_edited_or_mixed_file_apart_from_a_stale_one() {
    let dir = tempfile::tempdir().unwrap();
    let lines = swept(dir.path());
    // A run twice (files concatenated): merge and resume refuse it, and so does check.
    let mut twice = lines.clone();
    twice.push(lines[1].clone());
    write(dir.path(), &twice);
    let output = run_in(dir.path(), &["check", "r"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(
        out.contains("REFUSED") && out.contains("hold the same run"),
        "{out}"
    );
    // An edit that kept the old digest.
    let path = dir.path().join("r/shard-0-of-1.jsonl");
    swept(dir.path());
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replacen("\"seed\":1", "\"seed\":7", 1)).unwrap();
    let output = run_in(dir.path(), &["check", "r"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(String::from_utf8_lossy(&output.stdout).contains("REFUSED"));
}

#[test]
fn a_controller_renamed_in_the_header_and_its_lines_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = swept(dir.path());
    lines[0]["meta"]["controllers"][0] = "cubic".into();
    for line in &mut lines[1..] {
        line["result"]["controller"] = "cubic".into();
    }
    write(dir.path(), &lines);
    refused(dir.path(), &["line 1", "`cubic` has no provenance"]);
}
