//! Helpers shared by the integration tests: run the built binary.

#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

/// The harness binary cargo built for these tests.
pub fn harness() -> Command {
    Command::new(env!("CARGO_BIN_EXE_harness"))
}

/// Runs the binary with `args` in `dir`.
pub fn run_in(dir: &Path, args: &[&str]) -> Output {
    harness()
        .args(args)
        .current_dir(dir)
        .env_remove("RUST_LOG")
        .output()
        .expect("the harness binary runs")
}

/// Runs the binary with `args` and `--json FILE` in `dir`, asserts that it succeeded, and
/// returns the report it wrote.
pub fn run_report(dir: &Path, args: &[&str], file: &str) -> serde_json::Value {
    let mut all = args.to_vec();
    all.extend(["--json", file]);
    let output = run_in(dir, &all);
    assert!(output.status.success(), "{}", stderr(&output));
    serde_json::from_str(&std::fs::read_to_string(dir.join(file)).unwrap()).unwrap()
}

/// The arguments of a quiet one-shard sweep of the demo into `out`.
pub fn sweep_args<'a>(
    out: &'a str,
    duration: &'a str,
    seeds: &'a str,
    controllers: &'a str,
) -> [&'a str; 10] {
    [
        "sweep",
        "--out",
        out,
        "--duration",
        duration,
        "--seeds",
        seeds,
        "--controllers",
        controllers,
        "-q",
    ]
}

/// [`sweep_args`] run in `dir`; asserts that it succeeded and returns its result file's text.
pub fn sweep_file(dir: &Path, out: &str, duration: &str, seeds: &str, controllers: &str) -> String {
    let output = run_in(dir, &sweep_args(out, duration, seeds, controllers));
    assert!(output.status.success(), "{}", stderr(&output));
    std::fs::read_to_string(dir.join(out).join("shard-0-of-1.jsonl")).unwrap()
}

/// stderr as text.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// stdout as text.
pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Short, fast run options: two seeds of 4 s of virtual time.
pub const FAST: &[&str] = &["--duration", "4s", "--seeds", "2", "--jobs", "2"];

/// Runs `args` in `dir`; it must be refused (exit 2) with every needle in its message, and no
/// file under `dir` may have appeared, vanished or changed.
pub fn refused_untouched(dir: &Path, args: &[&str], needles: &[&str]) {
    let before = snapshot(dir);
    let output = run_in(dir, args);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{args:?}: {err}");
    for needle in needles {
        assert!(err.contains(needle), "{args:?}: `{needle}` missing: {err}");
    }
    assert_eq!(snapshot(dir), before, "{args:?} changed files");
}

/// Every file under `dir` (symlinks as their targets' names) and its contents, sorted.
pub fn snapshot(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                stack.push(path);
            } else if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                out.push((path, target.into_os_string().into_encoded_bytes()));
            } else {
                let text = std::fs::read(&path).unwrap();
                out.push((path, text));
            }
        }
    }
    out.sort();
    out
}

/// The result file `text` as harness `version` would have written it: its header names that
/// version, sealed with its digest as that harness sealed it.
pub fn written_by_harness(text: &str, version: &str) -> String {
    let (header, runs) = text.split_once('\n').unwrap();
    let mut header: serde_json::Value = serde_json::from_str(header).unwrap();
    let fields = header.as_object_mut().unwrap();
    fields.remove("digest");
    fields.insert("harness_version".to_owned(), version.into());
    format!(
        "{}\n{runs}",
        harness::batch::integrity::seal(&header.to_string())
    )
}

/// Writes `lines` as a result file at `path`, each line sealed with its digest recomputed (as
/// the build that wrote it sealed it, or as a forger who knows the format would).
pub fn write_sealed(path: &Path, lines: &[serde_json::Value]) {
    let text: String = lines
        .iter()
        .map(|l| {
            let mut content = l.clone();
            content.as_object_mut().unwrap().remove("digest");
            format!(
                "{}\n",
                harness::batch::integrity::seal(&content.to_string())
            )
        })
        .collect();
    std::fs::write(path, text).unwrap();
}
