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
