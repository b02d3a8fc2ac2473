//! The emulator against ns-3 as whole processes (issue 18: "at least 8x faster than ns-3.37 TCP
//! NewReno on the same scenario, as whole processes").
//!
//! One point-to-point scenario of [`crate::scenarios::emulator_scenarios`] is run two ways, the
//! runs alternating so that both see the same machine:
//!
//! - `harness run --scenario FILE --controllers newreno --jobs 1 --json OUT`: the scenario
//!   written as a harness scenario file ([`harness_scenario`]), quinn's NewReno over netsim in
//!   virtual time with the harness's defaults (null packet protection), one seed;
//! - `ns3-tcp-bulk` (netsim-ns3's `cpp/tcp_bulk.cc`, built with its `ns3` feature): ns-3.37's
//!   TCP NewReno over a point-to-point link with the same rate, one-way delay, drop-tail queue
//!   and packet error rate in both directions ([`ns3_tcp_arguments`]), sending for the same
//!   time.
//!
//! Each figure is the median wall time of the whole process, from spawn to exit, start-up and
//! output included; `harness --version` gives the harness's start-up alone, and `ns3-tcp-bulk`
//! simulating one millisecond ns-3's (its libraries, static initialisers and the scenario's
//! set-up). Both programs'
//! delivered bytes are reported beside the times: the two stacks do not move the same data
//! (QUIC's NewReno is not TCP's), so the ratio compares the same scenario, not the same work.

use crate::scenarios::Scenario;
use netsim::{ErrorModelConfig, LinkConfig, PathModelConfig, QueueLimit};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// What can go wrong measuring the two processes.
#[derive(Debug, thiserror::Error)]
pub enum WholeProcessError {
    /// The scenario has something `ns3-tcp-bulk`'s point-to-point path cannot express.
    #[error(
        "scenario {scenario}: {field} cannot be run on ns3-tcp-bulk's point-to-point path: {why}"
    )]
    NotPointToPoint {
        /// The scenario's name.
        scenario: String,
        /// The field, as in a harness scenario file (`link.a_to_b.jitter`).
        field: &'static str,
        /// What the program would need instead.
        why: String,
    },
    /// A program could not be started or failed.
    #[error("{program}: {why}")]
    Program {
        /// The program's path.
        program: PathBuf,
        /// What happened, with its standard error.
        why: String,
    },
    /// The scenario file could not be written or a result read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

/// The median figures of the two processes on one scenario.
#[derive(Debug, Clone)]
pub struct WholeProcessFigures {
    /// The scenario run.
    pub scenario: Scenario,
    /// Wall times of `harness run`, sorted.
    pub harness: Vec<Duration>,
    /// Wall times of `harness --version` (start-up and exit alone), sorted.
    pub harness_startup: Vec<Duration>,
    /// Wall times of `ns3-tcp-bulk`, sorted.
    pub ns3: Vec<Duration>,
    /// Wall times of `ns3-tcp-bulk` simulating one millisecond (start-up, set-up and exit),
    /// sorted.
    pub ns3_startup: Vec<Duration>,
    /// Application bytes the harness's run delivered (its JSON's `bytes_delivered`).
    pub harness_bytes: u64,
    /// Application bytes ns-3's sink received (`rx_bytes`).
    pub ns3_bytes: u64,
    /// ns-3 events the simulation ran (`events`).
    pub ns3_events: u64,
}

impl WholeProcessFigures {
    /// The median of sorted `times`.
    pub fn median(times: &[Duration]) -> Duration {
        times.get(times.len() / 2).copied().unwrap_or_default()
    }

    /// How many times faster the harness's whole process is than ns-3's (median over median).
    pub fn speedup(&self) -> f64 {
        Self::median(&self.ns3).as_secs_f64() / Self::median(&self.harness).as_secs_f64()
    }
}

/// The harness scenario file of `scenario`: its link, one seed, the client writing for its
/// duration.
pub fn harness_scenario(scenario: &Scenario) -> String {
    #[derive(Serialize)]
    struct Transfer {
        duration: String,
    }
    #[derive(Serialize)]
    struct File<'a> {
        name: &'a str,
        description: &'a str,
        seeds: u64,
        transfer: Transfer,
        link: &'a LinkConfig,
    }
    let file = File {
        name: scenario.name,
        description: scenario.description,
        seeds: scenario.seed,
        transfer: Transfer {
            duration: format!("{}ms", scenario.duration.as_millis()),
        },
        link: &scenario.link,
    };
    toml::to_string(&file).expect("a scenario serializes to TOML")
}

/// `ns3-tcp-bulk`'s arguments for `scenario`, or which field it cannot express.
pub fn ns3_tcp_arguments(scenario: &Scenario) -> Result<Vec<String>, WholeProcessError> {
    let refuse = |field: &'static str, why: &str| WholeProcessError::NotPointToPoint {
        scenario: scenario.name.to_owned(),
        field,
        why: why.to_owned(),
    };
    let link = &scenario.link;
    let d = &link.a_to_b;
    if link.b_to_a != *d {
        return Err(refuse("link.b_to_a", "both directions must be the same"));
    }
    if !matches!(link.path, PathModelConfig::AlwaysUp {}) {
        return Err(refuse("link.path", "the path must always be up"));
    }
    if link.mac.is_some() {
        return Err(refuse("link.mac", "ns-3's point-to-point link has no MAC"));
    }
    if !d.jitter.is_zero() || d.reorder.is_some() || d.duplicate > 0.0 {
        return Err(refuse(
            "link.a_to_b.jitter",
            "no jitter, reordering or duplication",
        ));
    }
    if !d.scripted_drops.is_empty() {
        return Err(refuse("link.a_to_b.scripted_drops", "no scripted drops"));
    }
    let per = match d.errors.as_slice() {
        [] => 0.0,
        [ErrorModelConfig::Per { p }] => *p,
        _ => {
            return Err(refuse(
                "link.a_to_b.errors",
                "at most one error model, a packet error rate",
            ));
        }
    };
    let QueueLimit::Packets(queue) = d.queue else {
        return Err(refuse(
            "link.a_to_b.queue",
            "the queue must be counted in packets",
        ));
    };
    Ok(vec![
        format!("rate_bps={}", d.rate.bps()),
        format!("delay_ms={}", d.delay.as_secs_f64() * 1e3),
        format!("per={per}"),
        format!("queue={queue}"),
        format!("duration_s={}", scenario.duration.as_secs_f64()),
        format!("run={}", scenario.seed),
    ])
}

/// Runs `harness run` of `scenario` and `ns3-tcp-bulk` of the same path `runs` times each,
/// alternating, with each program's start-up alone as often (`harness --version`, a 1 ms ns-3
/// run), after one untimed round; the scenario file and the harness's JSON go in `work_dir`.
pub fn measure_whole_process(
    scenario: &Scenario,
    harness: &Path,
    ns3_tcp_bulk: &Path,
    runs: usize,
    work_dir: &Path,
) -> Result<WholeProcessFigures, WholeProcessError> {
    let ns3_args = ns3_tcp_arguments(scenario)?;
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| WholeProcessError::Io { path, source }
    };
    std::fs::create_dir_all(work_dir).map_err(io(work_dir))?;
    let file = work_dir.join(format!("{}.toml", scenario.name));
    std::fs::write(&file, harness_scenario(scenario)).map_err(io(&file))?;
    let json = work_dir.join(format!("{}.json", scenario.name));
    let mut harness_run = Command::new(harness);
    harness_run
        .arg("run")
        .arg("--scenario")
        .arg(&file)
        .args(["--controllers", "newreno", "--jobs", "1", "--json"])
        .arg(&json);
    let mut ns3_run = Command::new(ns3_tcp_bulk);
    ns3_run.args(&ns3_args);
    let mut ns3_startup_run = Command::new(ns3_tcp_bulk);
    ns3_startup_run
        .args(&ns3_args)
        .args(["duration_s=0.001", "drain_s=0"]);
    let mut figures = WholeProcessFigures {
        scenario: scenario.clone(),
        harness: Vec::new(),
        harness_startup: Vec::new(),
        ns3: Vec::new(),
        ns3_startup: Vec::new(),
        harness_bytes: 0,
        ns3_bytes: 0,
        ns3_events: 0,
    };
    // One untimed round first: page cache and dynamic loader warm for both.
    for round in 0..=runs {
        let (wall, _) = timed(&mut harness_run)?;
        let (startup, _) = timed(Command::new(harness).arg("--version"))?;
        let (ns3_wall, stdout) = timed(&mut ns3_run)?;
        figures.ns3_bytes = field(&stdout, "rx_bytes", ns3_tcp_bulk)?;
        figures.ns3_events = field(&stdout, "events", ns3_tcp_bulk)?;
        let (ns3_startup, _) = timed(&mut ns3_startup_run)?;
        if round > 0 {
            figures.harness.push(wall);
            figures.harness_startup.push(startup);
            figures.ns3.push(ns3_wall);
            figures.ns3_startup.push(ns3_startup);
        }
    }
    let text = std::fs::read_to_string(&json).map_err(io(&json))?;
    figures.harness_bytes = bytes_delivered(&text).ok_or_else(|| WholeProcessError::Program {
        program: harness.to_owned(),
        why: format!("{} has no run with bytes_delivered", json.display()),
    })?;
    for times in [
        &mut figures.harness,
        &mut figures.harness_startup,
        &mut figures.ns3,
        &mut figures.ns3_startup,
    ] {
        times.sort();
    }
    Ok(figures)
}

/// Runs `command` to its end; its wall time and standard output, or why it failed.
fn timed(command: &mut Command) -> Result<(Duration, String), WholeProcessError> {
    let program = PathBuf::from(command.get_program());
    let start = Instant::now();
    let output = command.output().map_err(|e| WholeProcessError::Program {
        program: program.clone(),
        why: format!("cannot start it: {e}"),
    })?;
    let wall = start.elapsed();
    if !output.status.success() {
        return Err(WholeProcessError::Program {
            program,
            why: format!(
                "{}: {}",
                output.status,
                String::from_utf8_lossy(&output.stderr).trim()
            ),
        });
    }
    Ok((wall, String::from_utf8_lossy(&output.stdout).into_owned()))
}

/// The number after `key=` on a line of `stdout`.
fn field(stdout: &str, key: &str, program: &Path) -> Result<u64, WholeProcessError> {
    stdout
        .lines()
        .find_map(|line| {
            line.strip_prefix(key)?
                .strip_prefix('=')?
                .trim()
                .parse()
                .ok()
        })
        .ok_or_else(|| WholeProcessError::Program {
            program: program.to_owned(),
            why: format!("printed no `{key}=N` line: {stdout:?}"),
        })
}

/// The first run's `bytes_delivered` in a harness JSON report.
fn bytes_delivered(json: &str) -> Option<u64> {
    let report: serde_json::Value = serde_json::from_str(json).ok()?;
    report.get("runs")?.get(0)?.get("bytes_delivered")?.as_u64()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenarios::emulator_scenarios;

    fn point_to_point() -> Scenario {
        emulator_scenarios()
            .into_iter()
            .find(|s| s.name == "2mbps-per0.005-100s")
            .expect("the 2 Mb/s scenario")
    }

    #[test]
    fn the_scenario_file_reads_back_as_the_same_link() {
        #[derive(serde::Deserialize)]
        struct File {
            seeds: u64,
            link: LinkConfig,
        }
        let scenario = point_to_point();
        let text = harness_scenario(&scenario);
        let file: File = toml::from_str(&text).expect(&text);
        assert_eq!(file.link, scenario.link, "{text}");
        assert_eq!(file.seeds, 1);
        assert!(text.contains("duration = \"100000ms\""), "{text}");
    }

    #[test]
    fn ns3_arguments_carry_the_path() {
        assert_eq!(
            ns3_tcp_arguments(&point_to_point()).unwrap(),
            [
                "rate_bps=2000000",
                "delay_ms=45",
                "per=0.005",
                "queue=50",
                "duration_s=100",
                "run=1",
            ]
        );
    }

    #[test]
    fn paths_ns3_tcp_bulk_cannot_express_are_refused_by_field() {
        let manet = emulator_scenarios()
            .into_iter()
            .find(|s| s.name.starts_with("manet"))
            .unwrap();
        let e = ns3_tcp_arguments(&manet).unwrap_err().to_string();
        assert!(e.contains("link.path"), "{e}");
        let mut one_way = point_to_point();
        one_way.link.b_to_a.delay = Duration::from_millis(1);
        let e = ns3_tcp_arguments(&one_way).unwrap_err().to_string();
        assert!(e.contains("link.b_to_a"), "{e}");
        let mut bursty = point_to_point();
        for d in [&mut bursty.link.a_to_b, &mut bursty.link.b_to_a] {
            d.errors.push(ErrorModelConfig::Per { p: 0.1 });
        }
        let e = ns3_tcp_arguments(&bursty).unwrap_err().to_string();
        assert!(e.contains("link.a_to_b.errors"), "{e}");
    }

    #[test]
    fn output_fields_are_read_or_named() {
        let program = Path::new("ns3-tcp-bulk");
        assert_eq!(
            field("rx_bytes=13956096\nevents=52775\n", "events", program).unwrap(),
            52775
        );
        let e = field("rx_bytes=\n", "rx_bytes", program)
            .unwrap_err()
            .to_string();
        assert!(e.contains("rx_bytes=N"), "{e}");
        assert_eq!(
            bytes_delivered(r#"{"runs":[{"bytes_delivered":20181076}]}"#),
            Some(20181076)
        );
        assert_eq!(bytes_delivered(r#"{"runs":[]}"#), None);
    }
}
