//! Reading the files a command is given, each kind with a size limit: a file over it is
//! refused by name before it is parsed, so `/dev/zero`, a FIFO or a runaway file cannot exhaust
//! memory, and every accepted file is parsed in bounded time.

use std::io::Read;
use std::path::Path;

use crate::error::{HarnessError, Result};

/// A kind of input file and its limit.
#[derive(Debug, Clone, Copy)]
pub struct InputKind {
    /// What the file is, for messages: "scenario file", "trace file", "result file".
    pub what: &'static str,
    /// The largest accepted size, bytes.
    pub max_bytes: u64,
}

/// Scenario files (TOML): the largest preset is a few KB.
pub const SCENARIO: InputKind = InputKind {
    what: "scenario file",
    max_bytes: 1 << 20,
};

/// Up/down trace files (`--trace-file`): about 3 million events at 20 bytes a line.
pub const TRACE: InputKind = InputKind {
    what: "trace file",
    max_bytes: 64 << 20,
};

/// A scorecard's split file and decision spec (TOML): a split of 10,000 cells is about 1 MB.
pub const SCORECARD: InputKind = InputKind {
    what: "scorecard file",
    max_bytes: 4 << 20,
};

/// Result files (`.jsonl`, read by sweep, merge, calibrate and adopt): about 100,000 runs.
pub const RESULT: InputKind = InputKind {
    what: "result file",
    max_bytes: 1 << 30,
};

/// Whether `path` names a FIFO or a socket: opening or reading one blocks for as long as
/// nobody writes, so the harness neither reads nor writes one.
#[cfg(unix)]
pub fn is_pipe(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo() || m.file_type().is_socket())
}

/// No FIFOs to fear outside Unix.
#[cfg(not(unix))]
pub fn is_pipe(_path: &Path) -> bool {
    false
}

/// Reads `path` as UTF-8 text, refusing it if it holds more than `kind.max_bytes`. Reads at
/// most one byte past the limit, whatever the file is; a FIFO or a socket is refused unread.
pub fn read_text(path: &Path, kind: InputKind) -> Result<String> {
    let cannot = |e: &dyn std::fmt::Display| {
        HarnessError::bad_input(format!(
            "cannot read {} `{}`: {e}",
            kind.what,
            path.display()
        ))
    };
    if is_pipe(path) {
        return Err(cannot(
            &"a FIFO or a socket, not a file (reading one blocks until someone writes)",
        ));
    }
    let file = std::fs::File::open(path).map_err(|e| cannot(&e))?;
    let mut text = String::new();
    file.take(kind.max_bytes + 1)
        .read_to_string(&mut text)
        .map_err(|e| cannot(&e))?;
    if text.len() as u64 > kind.max_bytes {
        return Err(HarnessError::bad_input(format!(
            "{} `{}` is larger than {} bytes ({} MiB), the most this harness reads",
            kind.what,
            path.display(),
            kind.max_bytes,
            kind.max_bytes as f64 / f64::from(1 << 20)
        )));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_over_its_limit_is_refused_by_name_after_reading_one_byte_past_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.toml");
        let small = InputKind {
            what: "scenario file",
            max_bytes: 8,
        };
        std::fs::write(&path, "12345678").unwrap();
        assert_eq!(read_text(&path, small).unwrap(), "12345678");
        std::fs::write(&path, "123456789").unwrap();
        let err = read_text(&path, small).unwrap_err().to_string();
        assert!(
            err.contains("scenario file") && err.contains("big.toml"),
            "{err}"
        );
        // An endless file: refused after limit + 1 bytes.
        let err = read_text(Path::new("/dev/zero"), small)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("/dev/zero") && err.contains("larger than"),
            "{err}"
        );
    }
}
