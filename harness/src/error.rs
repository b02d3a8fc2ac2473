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

/// The longest quoted input an error message repeats in full, characters.
pub const MAX_QUOTED_CHARS: usize = 120;

/// `text` cut to its start and its length when it is over [`MAX_QUOTED_CHARS`] characters: for
/// input an error message repeats without quoting it.
pub fn shorten(text: &str) -> String {
    let chars = text.chars().count();
    if chars > MAX_QUOTED_CHARS {
        let start: String = text.chars().take(MAX_QUOTED_CHARS / 2).collect();
        format!("{start}... ({chars} characters)")
    } else {
        text.to_owned()
    }
}

/// `message` with each part quoted in backticks or double quotes over [`MAX_QUOTED_CHARS`] cut
/// to its start and its length.
fn abbreviate_quotes(message: &str) -> String {
    if message.len() <= MAX_QUOTED_CHARS {
        return message.to_owned();
    }
    let quoted = |message: &str, mark: char| -> String {
        message
            .split(mark)
            .enumerate()
            .map(|(i, part)| {
                if i % 2 == 1 {
                    shorten(part)
                } else {
                    part.to_owned()
                }
            })
            .collect::<Vec<_>>()
            .join(&mark.to_string())
    };
    // serde quotes a value with `"`, the harness with backticks.
    quoted(&quoted(message, '`'), '"')
}

impl HarnessError {
    /// A bad-input error. Quoted input (between backticks) longer than
    /// [`MAX_QUOTED_CHARS`] is shortened, so an error never echoes a megabyte key back.
    pub fn bad_input(message: impl fmt::Display) -> Self {
        Self::BadInput(abbreviate_quotes(&message.to_string()))
    }

    /// This error with the option that named the file it is about in front (`--csv: cannot
    /// write ...`).
    pub fn for_option(self, flag: &str) -> Self {
        match self {
            Self::BadInput(message) => Self::BadInput(format!("{flag}: {message}")),
            other => other,
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_quoted_input_is_shortened_short_input_kept() {
        let key = "k".repeat(5_000_000);
        let message =
            HarnessError::bad_input(format!("unknown field `{key}`, expected `a`")).to_string();
        assert!(message.len() < 300, "{}", message.len());
        assert!(
            message.contains("(5000000 characters)`, expected `a`"),
            "{message}"
        );
        let short = HarnessError::bad_input("unknown field `abc`").to_string();
        assert_eq!(short, "unknown field `abc`");
    }
}
