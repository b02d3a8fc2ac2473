//! The harness's error type and its exit codes.
//!
//! - exit 2: bad input (unknown controller or preset, a value out of range, an unreadable or
//!   malformed scenario file, an output path that cannot be written, shards of another grid,
//!   a shard that another process is running);
//! - exit 1: a run failed (quinn error, transfer timeout, or a byte delivered corrupted or out
//!   of order: integrity failures are always fatal), or a merge found missing or duplicated runs.

use std::fmt;
use std::process::ExitCode;

/// What went wrong, and whose fault it is.
#[derive(Debug, thiserror::Error)]
pub enum HarnessError {
    /// The user's input is wrong; the message says which field and what is allowed.
    #[error("{0}")]
    BadInput(String),
    /// A run failed; the message names the run (scenario, controller, seed).
    #[error("{0}")]
    RunFailed(String),
    /// A merge found an incomplete or inconsistent set of results.
    #[error("{0}")]
    Incomplete(String),
}

impl HarnessError {
    /// A bad-input error.
    pub fn bad_input(message: impl fmt::Display) -> Self {
        Self::BadInput(message.to_string())
    }

    /// A failed-run error.
    pub fn run_failed(message: impl fmt::Display) -> Self {
        Self::RunFailed(message.to_string())
    }

    /// An error writing `path`: the output location is unusable, which is bad input.
    pub fn output(path: &std::path::Path, error: impl fmt::Display) -> Self {
        Self::BadInput(format!("cannot write `{}`: {error}", path.display()))
    }

    /// The process exit code for this error (2 for bad input, 1 otherwise).
    pub fn exit_code(&self) -> u8 {
        match self {
            Self::BadInput(_) => 2,
            Self::RunFailed(_) | Self::Incomplete(_) => 1,
        }
    }

    /// [`HarnessError::exit_code`] as an [`ExitCode`].
    pub fn exit(&self) -> ExitCode {
        ExitCode::from(self.exit_code())
    }
}

/// Result alias used across the harness.
pub type Result<T, E = HarnessError> = std::result::Result<T, E>;
