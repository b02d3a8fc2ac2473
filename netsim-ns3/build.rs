//! With the `ns3` feature: compiles the C++ shim against Debian's ns-3 3.37 (include paths and
//! link flags from pkg-config) and links three standalone programs: `ns3-reference`, the
//! transparency test's yardstick (its path reaches the crate as `NS3_REFERENCE_BIN`),
//! `ns3-tcp-bulk`, ns-3's TCP NewReno over a point-to-point path, the emulator's whole-process
//! speed yardstick (`NS3_TCP_BULK_BIN`), and `ns3-chain-tcp`, ns-3's TCP over an 802.11 chain
//! built without the shim, the yardstick of the backend's TCP controllers
//! (`NS3_CHAIN_TCP_BIN`). Without the feature: nothing.

use std::path::{Path, PathBuf};
use std::process::Command;

const MODULES: &[&str] = &[
    "ns3-core",
    "ns3-network",
    "ns3-internet",
    "ns3-mobility",
    "ns3-wifi",
    "ns3-aodv",
    "ns3-olsr",
    "ns3-dsdv",
    "ns3-propagation",
    "ns3-applications",
    "ns3-traffic-control",
    // 802.11s (routing = "hwmp"): Debian's libns3.37 ships libns3-mesh.so.37, libns3-dev its
    // ns3-mesh.pc and headers.
    "ns3-mesh",
];

const INSTALL: &str = "apt-get install libns3-dev libgsl-dev libsqlite3-dev pkg-config g++ \
                       (Debian 12's ns-3 3.37; see netsim-ns3/README.md)";

fn main() {
    println!("cargo:rerun-if-changed=cpp/shim.cc");
    println!("cargo:rerun-if-changed=cpp/shim.h");
    println!("cargo:rerun-if-changed=cpp/reference.cc");
    println!("cargo:rerun-if-changed=cpp/tcp_bulk.cc");
    println!("cargo:rerun-if-changed=cpp/chain_tcp.cc");
    if std::env::var_os("CARGO_FEATURE_NS3").is_none() {
        return;
    }
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .std("c++17")
        .file("cpp/shim.cc")
        .warnings(false)
        .opt_level(2);
    let mut includes = Vec::new();
    for module in MODULES {
        let library = pkg_config::Config::new().probe(module).unwrap_or_else(|e| {
            panic!("ns-3 module {module} not found by pkg-config: {e}\nInstall it: {INSTALL}")
        });
        if *module == MODULES[0] {
            // The version reports name (harness --html).
            println!("cargo:rustc-env=NS3_VERSION={}", library.version);
        }
        for path in library.include_paths {
            if !includes.contains(&path) {
                build.include(&path);
                includes.push(path);
            }
        }
    }
    build.compile("ns3shim");

    // The standalone reference program: its own main, the same scenario code, one Run().
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    let reference = out.join("ns3-reference");
    link_program(
        &build,
        &includes,
        &[Path::new("cpp/reference.cc"), &out.join("libns3shim.a")],
        MODULES,
        &reference,
    );
    println!("cargo:rustc-env=NS3_REFERENCE_BIN={}", reference.display());

    // ns-3's TCP over a point-to-point link: no shim, its own modules (not linked into the crate).
    let tcp_bulk = out.join("ns3-tcp-bulk");
    link_program(
        &build,
        &includes,
        &[Path::new("cpp/tcp_bulk.cc")],
        TCP_BULK_MODULES,
        &tcp_bulk,
    );
    println!("cargo:rustc-env=NS3_TCP_BULK_BIN={}", tcp_bulk.display());

    // ns-3's TCP over an 802.11 chain from ns-3's helpers alone: the backend's TCP yardstick.
    let chain_tcp = out.join("ns3-chain-tcp");
    link_program(
        &build,
        &includes,
        &[Path::new("cpp/chain_tcp.cc")],
        MODULES,
        &chain_tcp,
    );
    println!("cargo:rustc-env=NS3_CHAIN_TCP_BIN={}", chain_tcp.display());
}

/// The ns-3 modules `ns3-tcp-bulk` links.
const TCP_BULK_MODULES: &[&str] = &[
    "ns3-core",
    "ns3-network",
    "ns3-internet",
    "ns3-applications",
    "ns3-point-to-point",
    "ns3-traffic-control",
];

/// Compiles and links the standalone program `binary` from `inputs` against ns-3's `modules`.
fn link_program(
    build: &cc::Build,
    includes: &[PathBuf],
    inputs: &[&Path],
    modules: &[&str],
    binary: &Path,
) {
    let libs = Command::new("pkg-config")
        .arg("--libs")
        .args(modules)
        .output()
        .expect("pkg-config runs");
    assert!(
        libs.status.success(),
        "pkg-config --libs {modules:?} failed: {}\nInstall it: {INSTALL}",
        String::from_utf8_lossy(&libs.stderr)
    );
    let libs = String::from_utf8(libs.stdout).expect("pkg-config prints UTF-8");
    let mut command = build.get_compiler().to_command();
    command
        .arg("-std=c++17")
        .arg("-O2")
        .args(inputs)
        .args(includes.iter().map(|p| format!("-I{}", p.display())))
        .args(libs.split_whitespace())
        .arg("-o")
        .arg(binary);
    let status = command.status().expect("the C++ compiler runs");
    assert!(
        status.success(),
        "linking {} failed: {command:?}",
        binary.display()
    );
}
