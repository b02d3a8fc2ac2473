//! Golden trajectories: every controller, on each QUIC stack it runs on, in one short seeded
//! run over netsim (random loss, a shallow queue, a route that breaks and returns), with what it
//! decided stored in `tests/golden/CONTROLLER-STACK.txt`: its window and ssthresh over time
//! (every decrease, and points 5 ms apart), each decision a port logs (`cc` target: decision,
//! loss class, window), and the run's totals.
//!
//! The first line of a snapshot is the code it was made by: the controller's revision, the
//! stack's version and netsim's revision (the second, its effective configuration, is part of
//! the trajectory). When the trajectory changes (a decision, or a default) and that line has
//! not, the behaviour changed under an unchanged revision, and the test fails until the
//! revision is raised (`revision: N` in the port's `port_config!`,
//! `netsim::REVISION` for the emulator). Then, and only then, regenerate the snapshots:
//!
//! ```text
//! UPDATE_GOLDEN=1 cargo test -p harness --test golden
//! ```
//!
//! noq's BBRv3 is left out: it draws from an OS-seeded RNG (the registry marks it not
//! reproducible), so no run of it can be a snapshot.

use std::fmt::Write as _;
use std::path::PathBuf;

use harness::batch::sweep::expand;
use harness::registry;
use harness::run::execute_here;
use harness::run::spec::RunOptions;
use harness::scenario::{self, Source, stack_version};
use harness::stack::Stack;

const SCENARIO: &str = r#"
name = "golden"
seeds = [7]

[transfer]
duration = "4s"

[link.both]
rate = "4Mbps"
delay = "20ms"
queue = { packets = 20 }
errors = [{ model = "per", p = 0.01 }]

[link.path]
model = "trace"
schedule = "0 up 2\n2s down\n2.6s up 1\n"
"#;

fn snapshot_path(controller: &str, stack: Stack) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{controller}-{}.txt", stack.name()))
}

/// The snapshot of `controller` on `stack`: its code line, then its trajectory.
fn trajectory(controller: &str, stack: Stack) -> String {
    let source = Source {
        name: "golden trajectory".to_owned(),
        default_name: "golden".to_owned(),
        text: format!(
            "stack = \"{}\"\n{SCENARIO}\n[controllers]\nselect = [\"{controller}\"]\n",
            stack.name()
        ),
        dir: None,
    };
    let grid = scenario::load(&source, &[]).unwrap();
    let spec = expand(&grid).remove(0);
    let options = RunOptions {
        trace: true,
        ..RunOptions::default()
    };
    let (result, events) =
        cc_core::testing::capture_events("cc=debug", || execute_here(&spec, &options));
    let result = result.unwrap_or_else(|e| panic!("{controller} on {stack}: {e}"));

    let identity = spec.controller.identity();
    let mut text = format!(
        "# code: {controller} {} {} netsim {}\n# config: {}\n",
        serde_json::to_string(&identity.revision).unwrap(),
        stack_version(stack),
        netsim::REVISION,
        identity.config
    );
    let flow = &result.flows[0];
    let _ = writeln!(
        text,
        "# delivered {} bytes, {} packets sent, {} lost, congestion events {:?}, signals {}",
        result.bytes_delivered,
        flow.packets_sent,
        flow.packets_lost,
        flow.congestion_events,
        serde_json::to_string(&result.signals).unwrap()
    );
    text.push_str("# window: t_s cwnd ssthresh\n");
    for point in &flow.window_trace {
        let ssthresh = point.ssthresh.map_or("-".to_owned(), |s| s.to_string());
        let _ = writeln!(text, "{:.4} {} {ssthresh}", point.t, point.cwnd);
    }
    text.push_str("# decisions\n");
    for line in events.lines().filter(|l| l.contains("window decision")) {
        // The formatter's timestamp is wall time: keep what follows the target.
        let decision = line.split_once("cc:").map_or(line, |(_, rest)| rest).trim();
        let _ = writeln!(text, "{decision}");
    }
    text
}

/// Every (controller, stack) with a reproducible run on quinn or noq.
fn cases() -> Vec<(&'static str, Stack)> {
    registry::all()
        .iter()
        .filter(|c| c.reproducible)
        .flat_map(|c| {
            c.stacks
                .iter()
                .filter(|s| matches!(s, Stack::Quinn | Stack::Noq))
                .map(move |&s| (c.name, s))
        })
        .collect()
}

#[test]
fn every_controllers_trajectory_matches_its_snapshot_or_its_revision_changed() {
    // One test, so that no other thread of this binary registers the `cc` callsites without
    // the capturing subscriber (cc_core::testing::capture_events). What makes a snapshot worth
    // comparing: two runs of one case agree to the byte.
    assert_eq!(
        trajectory("manet", Stack::Noq),
        trajectory("manet", Stack::Noq)
    );
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut failures = Vec::new();
    let cases = cases();
    assert!(cases.len() >= 17, "{cases:?}");
    for (controller, stack) in cases {
        let fresh = trajectory(controller, stack);
        let path = snapshot_path(controller, stack);
        let stored = std::fs::read_to_string(&path).ok();
        if stored.as_deref() == Some(fresh.as_str()) {
            continue;
        }
        let code = |text: &str| text.lines().next().unwrap_or_default().to_owned();
        let revision_kept = stored.as_deref().is_some_and(|s| code(s) == code(&fresh));
        if revision_kept {
            failures.push(format!(
                "{controller} on {stack}: the trajectory changed but the code line did not \
                 ({}): a behaviour change under the same run identity. Raise the revision \
                 (`revision` in its port_config!, or netsim::REVISION), then regenerate with \
                 `UPDATE_GOLDEN=1 cargo test -p harness --test golden`",
                path.display()
            ));
        } else if update {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &fresh).unwrap();
        } else {
            failures.push(format!(
                "{controller} on {stack}: {} is {}; regenerate it with \
                 `UPDATE_GOLDEN=1 cargo test -p harness --test golden`",
                path.display(),
                if stored.is_some() {
                    "of another revision"
                } else {
                    "missing"
                }
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
