//! An ns-2 trace named in a scenario file: read beside the file, bounded, every line checked,
//! refused by name (exit 2) with nothing written.

mod common;

use std::path::Path;

use common::{run_in, stderr};

const PLACED: &str = "$node_(0) set X_ 100.0\n$node_(0) set Y_ 100.0\n\
                      $node_(1) set X_ 200.0\n$node_(1) set Y_ 100.0\n";

fn scenario(dir: &Path, trace: &str) -> std::path::PathBuf {
    let path = dir.join("mesh.toml");
    std::fs::write(
        &path,
        format!(
            "backend = \"ns3\"\nseeds = [1]\n[transfer]\nduration = \"5s\"\n[ns3]\nnodes = 2\n\
             topology = {{ model = \"ns2_trace\", path = \"{trace}\" }}\n"
        ),
    )
    .unwrap();
    path
}

#[test]
fn a_relative_trace_is_read_beside_the_scenario_file() {
    let dir = tempfile::tempdir().unwrap();
    let files = dir.path().join("files");
    std::fs::create_dir(&files).unwrap();
    std::fs::write(files.join("moves.ns2"), PLACED).unwrap();
    let path = scenario(&files, "moves.ns2");
    let source = harness::scenario::Source::read(&path).unwrap();
    // Loaded from another working directory (the test's), the trace is still found.
    let grid = harness::scenario::load_description(&source).unwrap();
    let config = grid.points[0].backend.ns3().unwrap();
    assert_eq!(
        config.topology,
        netsim_ns3::Topology::Ns2Trace {
            path: files.join("moves.ns2")
        }
    );
}

#[test]
fn a_bad_trace_is_refused_by_field_and_line_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    for (line, expected) in [
        ("$node_(1) set X_ nan", "the coordinate nan is out of range"),
        (
            "$node_(1) set X_ 1e300",
            "the coordinate 1e300 is out of range",
        ),
        (
            "$ns_ at -5 \"$node_(1) setdest 1 2 3\"",
            "the time -5 is out of range",
        ),
        ("two words", "not an ns-2 mobility line"),
    ] {
        std::fs::write(dir.path().join("moves.ns2"), format!("{PLACED}{line}\n")).unwrap();
        let path = scenario(dir.path(), "moves.ns2");
        let before: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        let output = run_in(
            dir.path(),
            &[
                "run",
                "--scenario",
                path.to_str().unwrap(),
                "--json",
                "out.json",
            ],
        );
        assert_eq!(output.status.code(), Some(2), "{line}: {}", stderr(&output));
        let err = stderr(&output);
        assert!(
            err.contains("ns3.topology.path") && err.contains("line 5") && err.contains(expected),
            "{line}: {err}"
        );
        assert!(!dir.path().join("out.json").exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), before.len());
    }
}

#[test]
fn one_trace_in_two_spellings_or_two_copies_is_one_network() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("m.ns2"), PLACED).unwrap();
    std::fs::write(d.join("copy.ns2"), PLACED).unwrap();
    for values in ["\"m.ns2\", \"./m.ns2\"", "\"m.ns2\", \"copy.ns2\""] {
        let path = d.join("axis.toml");
        std::fs::write(
            &path,
            format!(
                "backend = \"ns3\"\nseeds = [1]\n[transfer]\nduration = \"5s\"\n[ns3]\nnodes = 2\n\
                 topology = {{ model = \"ns2_trace\", path = \"m.ns2\" }}\n\
                 [[axis]]\nkey = \"ns3.topology.path\"\nvalues = [{values}]\nlabels = [\"a\", \"b\"]\n"
            ),
        )
        .unwrap();
        let source = harness::scenario::Source::read(&path).unwrap();
        let error = harness::scenario::load_description(&source)
            .err()
            .unwrap_or_else(|| panic!("{values}: two points of one network accepted"));
        assert!(
            error.to_string().contains("are the same run"),
            "{values}: {error}"
        );
    }
}
