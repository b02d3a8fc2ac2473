//! Checks an ns-2 mobility trace before ns-3 reads it. ns-3's `Ns2MobilityHelper` gives a node
//! that the trace never places no mobility model at all, and the Wi-Fi channel then aborts the
//! process; a trace naming a node the scenario does not have is a mistake too. So the trace
//! must place every node, and only those; and, like every input, it is bounded: at most
//! [`MAX_TRACE_BYTES`], every line one of setdest's forms, every number finite and in range
//! (coordinates within [`MAX_COORDINATE_M`], times in `[0, MAX_TIME_S]`, speeds in
//! `[0, MAX_SPEED_MPS]`), so that no accepted trace can make ns-3 do unbounded work.

use std::io::Read;
use std::path::Path;

use netsim::ConfigError;

/// The largest ns-2 trace read, bytes (about a million movements).
pub const MAX_TRACE_BYTES: u64 = 64 << 20;

/// The largest coordinate, metres from the origin (1000 km, netsim's largest terrain side).
pub const MAX_COORDINATE_M: f64 = 1e6;

/// The latest movement, seconds of simulated time (a year).
pub const MAX_TIME_S: f64 = 365.0 * 86_400.0;

/// The fastest movement, m/s (netsim's mobility bound).
pub const MAX_SPEED_MPS: f64 = 1000.0;

const FIELD: &str = "topology.path";

/// `path` read as text, refused past [`MAX_TRACE_BYTES`] after reading one byte more.
/// Whether `meta` is a FIFO or a socket (reading one can block forever).
#[cfg(unix)]
fn is_pipe(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::FileTypeExt;
    meta.file_type().is_fifo() || meta.file_type().is_socket()
}

#[cfg(not(unix))]
fn is_pipe(_meta: &std::fs::Metadata) -> bool {
    false
}

fn read_bounded(path: &Path) -> Result<String, ConfigError> {
    let cannot = |e: &dyn std::fmt::Display| {
        ConfigError::invalid(
            FIELD,
            format!("cannot read the ns-2 trace {}: {e}", path.display()),
        )
    };
    // A FIFO or a socket would block the open or the read for as long as nobody writes.
    if std::fs::metadata(path).is_ok_and(|m| is_pipe(&m)) {
        return Err(cannot(&"a FIFO or a socket, not a file"));
    }
    let file = std::fs::File::open(path).map_err(|e| cannot(&e))?;
    let mut bytes = Vec::new();
    file.take(MAX_TRACE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| cannot(&e))?;
    if bytes.len() as u64 > MAX_TRACE_BYTES {
        return Err(ConfigError::invalid(
            FIELD,
            format!(
                "the ns-2 trace {} is larger than {} MiB: give a trace of at most that size",
                path.display(),
                MAX_TRACE_BYTES >> 20
            ),
        ));
    }
    String::from_utf8(bytes).map_err(|e| cannot(&e))
}

/// One line of a trace, parsed.
enum Line {
    /// `$node_(i) set X_ v` (or `Y_`, `Z_`).
    Place { node: u32, axis: char },
    /// `$ns_ at t "$node_(i) setdest x y speed"`.
    Move { node: u32 },
    /// Blank, a `#` comment, or setdest's `$god_` bookkeeping, which ns-3 ignores.
    Other,
}

/// A number of the trace, finite and in `[low, high]`, or the reason it is not.
fn number(word: Option<&str>, what: &str, low: f64, high: f64) -> Result<f64, String> {
    let word = word.ok_or_else(|| format!("{what} is missing"))?;
    let value: f64 = word
        .parse()
        .map_err(|_| format!("{what} `{word}` is not a number"))?;
    if !value.is_finite() || !(low..=high).contains(&value) {
        return Err(format!(
            "{what} {word} is out of range: it must be in [{low}, {high}]"
        ));
    }
    Ok(value)
}

/// `$node_(i)` at the start of `text`: the node and what follows it.
fn node(text: &str) -> Result<(u32, &str), String> {
    let rest = text
        .strip_prefix("$node_(")
        .ok_or_else(|| format!("expected `$node_(i)`, found `{text}`"))?;
    let end = rest
        .find(')')
        .ok_or_else(|| "`$node_(` is not closed".to_owned())?;
    let node = rest[..end]
        .trim()
        .parse()
        .map_err(|_| format!("'{}' is not a node number", &rest[..end]))?;
    Ok((node, &rest[end + 1..]))
}

fn parse_line(line: &str) -> Result<Line, String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') || line.starts_with("$god_") {
        return Ok(Line::Other);
    }
    if line.starts_with("$node_(") {
        let (node, rest) = node(line)?;
        let mut words = rest.split_whitespace();
        let axis = match (words.next(), words.next()) {
            (Some("set"), Some(axis @ ("X_" | "Y_" | "Z_"))) => axis.chars().next().unwrap_or('X'),
            _ => {
                return Err(format!(
                    "expected `set X_`, `set Y_` or `set Z_` after $node_({node})"
                ));
            }
        };
        number(
            words.next(),
            "the coordinate",
            -MAX_COORDINATE_M,
            MAX_COORDINATE_M,
        )?;
        if let Some(extra) = words.next() {
            return Err(format!("unexpected `{extra}` at the end of the line"));
        }
        return Ok(Line::Place { node, axis });
    }
    if let Some(rest) = line.strip_prefix("$ns_ at ") {
        let mut parts = rest.splitn(2, char::is_whitespace);
        number(parts.next(), "the time", 0.0, MAX_TIME_S)?;
        let command = parts
            .next()
            .map(str::trim)
            .and_then(|c| c.strip_prefix('"'))
            .and_then(|c| c.strip_suffix('"'))
            .ok_or_else(|| "expected a quoted command after the time".to_owned())?;
        if command.starts_with("$god_") {
            return Ok(Line::Other);
        }
        let (node, rest) = node(command)?;
        let mut words = rest.split_whitespace();
        if words.next() != Some("setdest") {
            return Err(format!("expected `setdest` after $node_({node})"));
        }
        number(words.next(), "x", -MAX_COORDINATE_M, MAX_COORDINATE_M)?;
        number(words.next(), "y", -MAX_COORDINATE_M, MAX_COORDINATE_M)?;
        number(words.next(), "the speed", 0.0, MAX_SPEED_MPS)?;
        if let Some(extra) = words.next() {
            return Err(format!("unexpected `{extra}` at the end of the command"));
        }
        return Ok(Line::Move { node });
    }
    Err(format!(
        "not an ns-2 mobility line: expected `$node_(i) set X_ x`, `$ns_ at t \"$node_(i) \
         setdest x y speed\"`, a `$god_` line or a `#` comment, found `{}`",
        line.chars().take(60).collect::<String>()
    ))
}

/// Reads `path` (at most [`MAX_TRACE_BYTES`]) and checks every line, and that its
/// `$node_(i) set X_/Y_` lines place every node `0..nodes` and name no other.
pub(crate) fn check(path: &Path, nodes: u32) -> Result<(), ConfigError> {
    let text = read_bounded(path)?;
    let mut has_x = vec![false; nodes as usize];
    let mut has_y = vec![false; nodes as usize];
    for (line_no, line) in text.lines().enumerate() {
        let at = |message: String| {
            ConfigError::invalid(
                FIELD,
                format!("{} line {}: {message}", path.display(), line_no + 1),
            )
        };
        let (node, axis) = match parse_line(line).map_err(at)? {
            Line::Place { node, axis } => (node, Some(axis)),
            Line::Move { node } => (node, None),
            Line::Other => continue,
        };
        if node >= nodes {
            return Err(at(format!(
                "node {node} is not in the scenario (nodes = {nodes}, so 0..={})",
                nodes - 1
            )));
        }
        match axis {
            Some('X') => has_x[node as usize] = true,
            Some('Y') => has_y[node as usize] = true,
            _ => {}
        }
    }
    if let Some(node) = (0..nodes as usize).find(|&i| !has_x[i] || !has_y[i]) {
        return Err(ConfigError::invalid(
            FIELD,
            format!(
                "{} does not place node {node} (a '$node_({node}) set X_' and 'set Y_' line is needed for every node 0..={})",
                path.display(),
                nodes - 1
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(text: &str) -> tempfile::NamedTempFile {
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), text).unwrap();
        file
    }

    const TWO: &str = "$node_(0) set X_ 10.0\n$node_(0) set Y_ 20.0\n$node_(0) set Z_ 0.0\n\
                       $node_(1) set X_ 100.0\n$node_(1) set Y_ 20.0\n\
                       $ns_ at 1.0 \"$node_(1) setdest 200.0 20.0 5.0\"\n";

    #[test]
    fn a_trace_placing_every_node_passes() {
        let file = write(TWO);
        check(file.path(), 2).unwrap();
    }

    #[test]
    fn an_unplaced_node_is_named() {
        let file = write(TWO);
        let error = check(file.path(), 3).unwrap_err().to_string();
        assert!(error.contains("does not place node 2"), "{error}");
    }

    #[test]
    fn a_node_beyond_the_scenario_is_named_with_its_line() {
        let file = write(TWO);
        let error = check(file.path(), 1).unwrap_err().to_string();
        assert!(
            error.contains("line 4: node 1 is not in the scenario"),
            "{error}"
        );
    }

    #[test]
    fn a_missing_file_is_named() {
        let error = check(Path::new("/nonexistent/trace.ns2"), 2)
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("topology.path: cannot read the ns-2 trace"),
            "{error}"
        );
    }

    #[test]
    fn every_number_is_checked_with_its_line() {
        for (line, expected) in [
            ("$node_(0) set X_ nan", "the coordinate nan is out of range"),
            (
                "$node_(0) set X_ 1e300",
                "the coordinate 1e300 is out of range",
            ),
            (
                "$node_(0) set X_ ten",
                "the coordinate `ten` is not a number",
            ),
            (
                "$ns_ at -1.0 \"$node_(1) setdest 1.0 2.0 3.0\"",
                "the time -1.0 is out of range",
            ),
            (
                "$ns_ at 1.0 \"$node_(1) setdest 1.0 2.0 inf\"",
                "the speed inf is out of range",
            ),
            (
                "$ns_ at 1.0 \"$node_(1) setdest 1.0 2.0\"",
                "the speed is missing",
            ),
            ("hello world", "not an ns-2 mobility line"),
        ] {
            let file = write(&format!("{TWO}{line}\n"));
            let error = check(file.path(), 2).unwrap_err().to_string();
            assert!(
                error.contains("line 7:") && error.contains(expected),
                "{line}: {error}"
            );
        }
    }

    #[test]
    fn setdest_bookkeeping_and_comments_pass() {
        let file = write(&format!(
            "# nodes: 2\n{TWO}$god_ set-dist 0 1 1\n$ns_ at 2.0 \"$god_ set-dist 0 1 2\"\n"
        ));
        check(file.path(), 2).unwrap();
    }

    #[test]
    fn a_trace_over_the_limit_is_refused_after_reading_one_byte_past_it() {
        let file = tempfile::NamedTempFile::new().unwrap();
        // Sparse: the file system holds no data for it, as /dev/zero has none to hold.
        file.as_file().set_len(MAX_TRACE_BYTES + 1).unwrap();
        let error = check(file.path(), 2).unwrap_err().to_string();
        assert!(error.contains("larger than 64 MiB"), "{error}");
    }
}
