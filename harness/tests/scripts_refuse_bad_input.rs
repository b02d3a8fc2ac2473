//! The scripts in scripts/ fail loudly on bad input: a missing or mistyped directory, missing or
//! extra arguments, an output that would replace something. Each exits 2 with a message saying
//! what is wrong, and leaves every file as it was. (They need bash and python3, which CI's
//! machines have.) What they read through `harness scorecard` is refused by it: tests/scorecard.rs.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

/// Runs `program script args` in `dir`: exit 2, every needle in stderr, `dir` unchanged.
fn refused(dir: &Path, program: &str, script: &str, args: &[&str], needles: &[&str]) {
    let before = common::snapshot(dir);
    let output = Command::new(program)
        .arg(root().join("scripts").join(script))
        .args(args)
        .current_dir(dir)
        .env("HARNESS", env!("CARGO_BIN_EXE_harness"))
        .output()
        .unwrap_or_else(|e| panic!("{program} runs: {e}"));
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{script} {args:?}: {err}");
    for needle in needles {
        assert!(
            err.contains(needle),
            "{script} {args:?}: `{needle}` missing: {err}"
        );
    }
    assert!(!err.contains("Traceback"), "{script} {args:?}: {err}");
    // Nothing half-made on stdout either (a report redirected to a file stays empty).
    assert!(
        output.stdout.is_empty(),
        "{script} {args:?} printed on stdout"
    );
    assert_eq!(
        common::snapshot(dir),
        before,
        "{script} {args:?} changed files"
    );
}

#[test]
fn the_module_checker_refuses_what_it_cannot_read() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("src")).unwrap();
    std::fs::write(d.join("src/lib.rs"), b"\xff\xfe").unwrap();
    for (args, needles) in [
        (
            &["nowhere", "--check"][..],
            &["nowhere is not a directory"][..],
        ),
        (&["src", "--check"], &["not readable as UTF-8"]),
        (&[""], &["empty source directory"]),
    ] {
        refused(d, "python3", "module-deps.py", args, needles);
    }
}

#[test]
fn the_shell_scripts_refuse_extra_arguments_and_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("out/tables")).unwrap();
    std::fs::write(d.join("out/tables/mine.md"), "mine").unwrap();
    // The composite's results directory, half there: quinn/ and noq/ without their sweeps.
    std::fs::create_dir_all(d.join("half/quinn")).unwrap();
    std::fs::create_dir_all(d.join("half/noq")).unwrap();
    let results = root().join("results");
    let results = results.to_str().unwrap();
    for (script, args, needles) in [
        ("manet-evaluation.sh", &["a", "b"][..], &["usage"][..]),
        (
            "manet-report.sh",
            &["nowhere"],
            &["not the composite's results directory"],
        ),
        ("manet-report.sh", &["a", "b"], &["usage"]),
        ("reidentify-results.sh", &[], &["usage"]),
        ("reidentify-results.sh", &[results], &["results/ itself"]),
        (
            "identical-results.sh",
            &[],
            &["OLD_HARNESS NEW_HARNESS OUT_DIR"],
        ),
        ("results-docs.sh", &["a", "b"], &["usage"]),
        (
            "results-docs.sh",
            &["out"],
            &["out/tables exists", "nothing is overwritten"],
        ),
        ("results-docs.sh", &[""], &["empty directory argument"]),
        ("manet-evaluation.sh", &[""], &["empty directory argument"]),
        ("manet-report.sh", &[""], &["empty directory argument"]),
        (
            "reidentify-results.sh",
            &[""],
            &["empty directory argument"],
        ),
        ("manet-report.sh", &["half"], &["is not a directory"]),
        ("readme-table.sh", &["--fix"], &["unknown argument `--fix`"]),
        ("regimes-report.sh", &["a", "b"], &["usage"]),
        (
            "regimes-report.sh",
            &["half"],
            &["half/quinn/regimes-netsim is not a directory"],
        ),
        ("readme-table.sh", &["--check", "b"], &["usage"]),
        ("loopback-cost.sh", &["a", "b"], &["usage"]),
        (
            "loopback-cost.sh",
            &["x"],
            &["PAIRS must be a whole number from 1 to 99"],
        ),
        ("mesh-report.sh", &["a", "b"], &["usage"]),
        (
            "mesh-report.sh",
            &["half"],
            &["half/quinn/mesh-chain is not a directory"],
        ),
        ("mesh-evaluation.sh", &["a", "b"], &["usage"]),
        ("mesh-evaluation.sh", &[""], &["empty directory argument"]),
        ("regimes-evaluation.sh", &["a", "b"], &["usage"]),
        (
            "regimes-evaluation.sh",
            &[""],
            &["empty directory argument"],
        ),
    ] {
        refused(d, "bash", script, args, needles);
    }
}
