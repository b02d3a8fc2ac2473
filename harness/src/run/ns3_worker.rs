//! ns-3 runs in processes of their own. ns-3's simulator is one global object per process, so
//! parallel ns-3 runs cannot share one: for each ns-3 run the harness starts its own binary as
//! `harness ns3-worker`, writes the run (a [`Request`]) to its stdin as JSON, and reads the
//! result (a [`Response`]) from its stdout. The worker's stderr passes through (its logs, at
//! the parent's `-v` level; `RUST_LOG` is inherited). On Linux a worker dies with the process
//! that started it (`PR_SET_PDEATHSIG`): a sweep killed by `kill` or a scheduler's SIGTERM to
//! the harness alone leaves no ns-3 run going on unseen, its result never to be written.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};

use crate::error::{HarnessError, Result};
use crate::metrics::{RunResult, WindowPoint};
use crate::run::spec::{RunOptions, RunSpec};

/// One run for a worker.
#[derive(Debug, Serialize, Deserialize)]
pub struct Request {
    /// The run.
    pub spec: RunSpec,
    /// Its id as the parent computed it: the worker refuses a spec that does not hash to it.
    pub run_id: String,
    /// Record window trajectories.
    pub trace: bool,
    /// qlog directory.
    pub qlog_dir: Option<PathBuf>,
    /// The process id of the harness that started the worker.
    pub parent: u32,
}

/// A worker's answer.
#[derive(Debug, Serialize, Deserialize)]
pub struct Response {
    /// The result, or the run's error message.
    pub result: std::result::Result<RunResult, String>,
    /// Each flow's window trajectory (not part of a result's JSON).
    pub traces: Vec<Vec<WindowPoint>>,
}

/// The binary to start workers from: this very process's, so that a sweep's every run is made
/// by the build that started it. On Linux `/proc/self/exe` names the running executable even
/// after its file is replaced (a `cargo build` during a long sweep writes a new file; the old
/// one lives on while this process runs); elsewhere the executable's path, which a rebuild
/// can replace (the worker then refuses a run whose id its code computes otherwise).
pub fn this_binary() -> Option<PathBuf> {
    let proc_exe = Path::new("/proc/self/exe");
    if cfg!(target_os = "linux") && proc_exe.exists() {
        return Some(proc_exe.to_owned());
    }
    std::env::current_exe().ok()
}

/// Runs `spec` in a new `worker ns3-worker` process.
pub fn execute(worker: &Path, spec: &RunSpec, options: &RunOptions) -> Result<RunResult> {
    let failed = |what: String| {
        HarnessError::run_failed(format!(
            "run {} ({} / {} / seed {}): {what}",
            spec.run_id(),
            spec.scenario.point,
            spec.controller.label(),
            spec.seed
        ))
    };
    let request = Request {
        spec: spec.clone(),
        run_id: spec.run_id().to_owned(),
        trace: options.trace,
        qlog_dir: options.qlog_dir.clone(),
        parent: std::process::id(),
    };
    let json =
        serde_json::to_vec(&request).map_err(|e| failed(format!("cannot encode the run: {e}")))?;
    let verbose = crate::VERBOSITY.load(std::sync::atomic::Ordering::Relaxed);
    let mut child = Command::new(worker)
        .args(std::iter::repeat_n("-v", usize::from(verbose)))
        .arg("ns3-worker")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| {
            failed(format!(
                "cannot start the ns-3 worker {}: {e}",
                worker.display()
            ))
        })?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(&json)
            .map_err(|e| failed(format!("cannot hand the run to the ns-3 worker: {e}")))?;
    }
    let output = child
        .wait_with_output()
        .map_err(|e| failed(format!("the ns-3 worker failed: {e}")))?;
    if !output.status.success() {
        return Err(failed(format!(
            "the ns-3 worker exited with {}",
            output.status
        )));
    }
    let response: Response = serde_json::from_slice(&output.stdout)
        .map_err(|e| failed(format!("unreadable answer from the ns-3 worker: {e}")))?;
    let mut result = response.result.map_err(HarnessError::run_failed)?;
    for (flow, trace) in result.flows.iter_mut().zip(response.traces) {
        flow.window_trace = trace;
    }
    Ok(result)
}

/// How the worker runs a spec in its own process (`run::execute_here`; passed in so that this
/// module, which `run` calls to reach a worker, does not depend on `run` in turn).
pub type LocalExecutor = fn(&RunSpec, &RunOptions) -> Result<RunResult>;

/// The worker: reads a [`Request`] from stdin, runs it here with `execute`, writes a
/// [`Response`] to stdout.
pub fn serve(execute: LocalExecutor) -> Result<()> {
    let mut input = Vec::new();
    std::io::stdin().read_to_end(&mut input).map_err(|e| {
        HarnessError::bad_input(format!("ns3-worker: cannot read the request: {e}"))
    })?;
    let request: Request = serde_json::from_slice(&input)
        .map_err(|e| HarnessError::bad_input(format!("ns3-worker: malformed request: {e}")))?;
    die_with_parent(request.parent)?;
    if request.spec.run_id() != request.run_id {
        return Err(HarnessError::bad_input(format!(
            "ns3-worker: the run arrived as {} but was sent as {}",
            request.spec.run_id(),
            request.run_id
        )));
    }
    let options = RunOptions {
        trace: request.trace,
        qlog_dir: request.qlog_dir,
        ns3_worker: None,
    };
    let result = execute(&request.spec, &options).map_err(|e| e.to_string());
    let traces = result
        .as_ref()
        .map(|r| r.flows.iter().map(|f| f.window_trace.clone()).collect())
        .unwrap_or_default();
    let response = Response { result, traces };
    let json = serde_json::to_vec(&response)
        .map_err(|e| HarnessError::run_failed(format!("ns3-worker: {e}")))?;
    std::io::stdout()
        .write_all(&json)
        .map_err(|e| HarnessError::run_failed(format!("ns3-worker: cannot write the result: {e}")))
}

/// Asks the kernel to kill this worker when the harness that started it (`parent`) exits, and
/// exits at once if that has already happened (the request was read after the harness died).
#[cfg(target_os = "linux")]
fn die_with_parent(parent: u32) -> Result<()> {
    use rustix::process::{Signal, getppid, set_parent_process_death_signal};
    set_parent_process_death_signal(Some(Signal::KILL)).map_err(|e| {
        HarnessError::run_failed(format!(
            "ns3-worker: cannot set the parent-death signal: {e}"
        ))
    })?;
    let current = getppid().map(|pid| pid.as_raw_nonzero().get().unsigned_abs());
    if current != Some(parent) {
        return Err(HarnessError::run_failed(format!(
            "ns3-worker: the harness that started it (process {parent}) has exited"
        )));
    }
    Ok(())
}

/// Elsewhere a worker outlives a killed harness until its run ends (its result is then lost).
#[cfg(not(target_os = "linux"))]
fn die_with_parent(_parent: u32) -> Result<()> {
    Ok(())
}
