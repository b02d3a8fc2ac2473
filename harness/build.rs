//! Records, for the reports' provenance (`--html`), the versions this harness was built with:
//! the QUIC stacks from the workspace's Cargo.lock and the compiler.

use std::path::Path;
use std::process::Command;

/// `name`'s version in a Cargo.lock (the first entry of that name).
fn locked_version(lock: &str, name: &str) -> Option<String> {
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == format!("name = \"{name}\"") {
            let version = lines.next()?.trim();
            return version
                .strip_prefix("version = \"")
                .and_then(|v| v.strip_suffix('"'))
                .map(str::to_owned);
        }
    }
    None
}

fn main() {
    let lock_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock_path.display());
    let lock = std::fs::read_to_string(&lock_path).unwrap_or_default();
    for (name, var) in [
        ("quinn-proto", "HARNESS_QUINN_PROTO_VERSION"),
        ("noq-proto", "HARNESS_NOQ_PROTO_VERSION"),
        ("quiche", "HARNESS_QUICHE_VERSION"),
    ] {
        let version = locked_version(&lock, name).unwrap_or_else(|| "unknown".to_owned());
        println!("cargo:rustc-env={var}={version}");
    }
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let version = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_owned())
        .unwrap_or_else(|| "rustc (unknown version)".to_owned());
    println!("cargo:rustc-env=HARNESS_RUSTC_VERSION={version}");
}
