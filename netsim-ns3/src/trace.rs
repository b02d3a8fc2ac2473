//! Checks an ns-2 mobility trace before ns-3 reads it. ns-3's `Ns2MobilityHelper` gives a node
//! that the trace never places no mobility model at all, and the Wi-Fi channel then aborts the
//! process; a trace naming a node the scenario does not have is a mistake too. So the trace
//! must place every node, and only those.

use std::path::Path;

use netsim::ConfigError;

/// Reads `path` and checks that its `$node_(i) set X_/Y_` lines place every node `0..nodes`
/// and name no other.
pub(crate) fn check(path: &Path, nodes: u32) -> Result<(), ConfigError> {
    let field = "topology.path";
    let text = std::fs::read_to_string(path).map_err(|e| {
        ConfigError::invalid(
            field,
            format!("cannot read the ns-2 trace {}: {e}", path.display()),
        )
    })?;
    let mut has_x = vec![false; nodes as usize];
    let mut has_y = vec![false; nodes as usize];
    for (line_no, line) in text.lines().enumerate() {
        let Some(start) = line.find("$node_(") else {
            continue;
        };
        let rest = &line[start + "$node_(".len()..];
        let Some(end) = rest.find(')') else {
            continue;
        };
        let node: u32 = rest[..end].trim().parse().map_err(|_| {
            ConfigError::invalid(
                field,
                format!(
                    "{} line {}: '{}' is not a node number",
                    path.display(),
                    line_no + 1,
                    &rest[..end]
                ),
            )
        })?;
        if node >= nodes {
            return Err(ConfigError::invalid(
                field,
                format!(
                    "{} line {}: node {node} is not in the scenario (nodes = {nodes}, so 0..={})",
                    path.display(),
                    line_no + 1,
                    nodes - 1
                ),
            ));
        }
        let after = &rest[end + 1..];
        if !line.trim_start().starts_with("$node_(") {
            continue; // a movement ("$ns_ at t ..."), not an initial position
        }
        if after.contains("set X_") {
            has_x[node as usize] = true;
        } else if after.contains("set Y_") {
            has_y[node as usize] = true;
        }
    }
    if let Some(node) = (0..nodes as usize).find(|&i| !has_x[i] || !has_y[i]) {
        return Err(ConfigError::invalid(
            field,
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
}
