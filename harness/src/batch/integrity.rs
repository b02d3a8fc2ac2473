//! What makes an edited result line detectable: a digest of each line's content, written at
//! its end, and the physical ranges and mutual consistency of a run's figures.
//!
//! The digest (SHA-256 of the line without it, its first 16 hex digits: any reader can
//! recompute it, Python's standard library included) catches any edit made without
//! recomputing it: a flipped `backend`, a removed statistic, goodput and bytes scaled together.
//! It is not a signature: whoever recomputes it can forge a line, and the physical checks are
//! what remains then. Those hold for every run, digest or not (format 1 and 2 files too):
//! every number is non-negative; fractions (Jain's index, utilization, the up fraction, route
//! availability) lie in [0, 1]; Jain's index is the one of the flows' goodputs; the run's
//! bytes are its flows' bytes; throughput is at least goodput, for the run and each flow; the
//! link dropped no more than it was offered, and a netsim link never up delivered nothing; no
//! flow delivers more than it sent, loses more than it sent, connects or leaves slow start
//! after the window, finishes before it connected, reports RTTs without samples or longer than
//! the run, or has a median RTT below its minimum or a 95th percentile below its median; the
//! flows are numbered in order; ns-3 received no more background packets than it sent and
//! dropped no more frames at the retry limit than it retransmitted; ns-3's statistics are there exactly when the
//! run was on ns-3, each direction delivered no more than it was offered, ns-3 delivered at
//! least the bytes the flows received, and no run on ns-3 carries more than the fastest
//! 802.11 rate the backend offers.

use crate::metrics::RunResult;
use crate::scenario::backend::BackendKind;

/// The key a line's digest is written under, last in the line.
const DIGEST_FIELD: &str = ",\"digest\":\"";
/// Hex digits of a digest (the first 64 bits of SHA-256).
const DIGEST_HEX: usize = 16;

fn digest(content: &str) -> String {
    use sha2::Digest as _;
    let hash = sha2::Sha256::digest(content.as_bytes());
    hash.iter()
        .take(DIGEST_HEX / 2)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `json` (one JSON object, no newline) with its digest added as its last field.
pub fn seal(json: &str) -> String {
    let body = json.strip_suffix('}').unwrap_or(json);
    format!("{body}{DIGEST_FIELD}{}\"}}", digest(json))
}

/// The content of a sealed `line` (the object without its digest), or why the digest does not
/// hold: missing, malformed, or not the content's (the line was edited).
pub fn unseal(line: &str) -> Result<String, String> {
    let tail = DIGEST_FIELD.len() + DIGEST_HEX + 2;
    let split = line.len().checked_sub(tail).filter(|&at| {
        line.is_char_boundary(at) && line[at..].starts_with(DIGEST_FIELD) && line.ends_with("\"}")
    });
    let Some(at) = split else {
        return Err(
            "the line carries no digest (format 3 writes one at the end of every line): \
             the line was edited or truncated"
                .to_owned(),
        );
    };
    let content = format!("{}}}", &line[..at]);
    let stored = &line[at + DIGEST_FIELD.len()..line.len() - 2];
    let computed = digest(&content);
    if stored != computed {
        return Err(format!(
            "its digest {stored} is not its content's ({computed}): the line was edited"
        ));
    }
    Ok(content)
}

/// Checks `run`'s figures against their physical ranges and each other (see the module doc).
pub fn check_physical(run: &RunResult) -> Result<(), String> {
    let value = serde_json::to_value(run).map_err(|e| e.to_string())?;
    if let Some((field, number)) = first_negative(&value, "") {
        return Err(format!("{field} = {number} is negative"));
    }
    let fraction = |field: &str, x: f64| {
        if (0.0..=1.0 + 1e-9).contains(&x) {
            Ok(())
        } else {
            Err(format!("{field} = {x} is outside [0, 1]"))
        }
    };
    fraction("jain", run.jain)?;
    fraction("link.up_fraction", run.link.up_fraction)?;
    if let Some(u) = run.utilization {
        fraction("utilization", u)?;
    }
    let goodputs: Vec<f64> = run.flows.iter().map(|f| f.goodput_bps).collect();
    let jain = crate::metrics::jain(&goodputs);
    if (jain - run.jain).abs() > 1e-9 {
        return Err(format!(
            "jain = {} is not the index of its flows' goodputs ({jain})",
            run.jain
        ));
    }
    // The UDP bytes a run sent include every byte it delivered: throughput >= goodput.
    if run.throughput_bps + 1e-6 < run.goodput_bps {
        return Err(format!(
            "throughput_bps = {} is below goodput_bps = {}",
            run.throughput_bps, run.goodput_bps
        ));
    }
    let link = &run.link;
    let dropped =
        link.dropped_error + link.dropped_breakage + link.dropped_queue + link.dropped_mtu;
    if dropped > link.offered {
        return Err(format!(
            "the link dropped {dropped} datagrams of the {} it was offered",
            link.offered
        ));
    }
    if run.backend == BackendKind::Netsim && run.bytes_delivered > 0 && link.up_fraction == 0.0 {
        return Err("link.up_fraction = 0, but the run delivered bytes".to_owned());
    }
    let flow_bytes: u64 = run.flows.iter().map(|f| f.bytes_delivered).sum();
    if !run.flows.is_empty() && flow_bytes != run.bytes_delivered {
        return Err(format!(
            "bytes_delivered = {} is not the sum of its flows' ({flow_bytes})",
            run.bytes_delivered
        ));
    }
    for (i, f) in run.flows.iter().enumerate() {
        let at = |field: &str| format!("flows[{i}].{field}");
        if f.bytes_delivered > f.udp_bytes_sent {
            return Err(format!(
                "{} = {} exceeds the {} UDP bytes it sent",
                at("bytes_delivered"),
                f.bytes_delivered,
                f.udp_bytes_sent
            ));
        }
        if f.throughput_bps + 1e-6 < f.goodput_bps {
            return Err(format!(
                "{} = {} is below its goodput {}",
                at("throughput_bps"),
                f.throughput_bps,
                f.goodput_bps
            ));
        }
        if f.packets_lost > f.packets_sent || f.bytes_lost > f.udp_bytes_sent {
            return Err(format!(
                "{} exceeds what the flow sent",
                at("packets_lost / bytes_lost")
            ));
        }
        if f.flow as usize != i {
            return Err(format!(
                "{} = {} is not the flow's place ({i})",
                at("flow"),
                f.flow
            ));
        }
        let window = run.window_s + 1e-9;
        for (field, time) in [
            ("connected_s", f.connected_s),
            ("slow_start_s", f.slow_start_s),
        ] {
            if time.is_some_and(|t| t > window) {
                return Err(format!(
                    "{} = {} is past the {} s window",
                    at(field),
                    time.unwrap_or_default(),
                    run.window_s
                ));
            }
        }
        if let (Some(connected), Some(finished)) = (f.connected_s, f.finished_s)
            && finished < connected
        {
            return Err(format!(
                "{} = {finished} is before the flow connected ({connected})",
                at("finished_s")
            ));
        }
        let rtts = [f.rtt_min_ms, f.rtt_p50_ms, f.rtt_p95_ms];
        if f.rtt_samples == 0 && rtts.iter().any(Option::is_some) {
            return Err(format!(
                "{} = 0, but the flow reports RTTs",
                at("rtt_samples")
            ));
        }
        // No round trip measured in a run lasts longer than the run.
        let longest_ms = 1e3 * run.window_s.max(run.link.elapsed_s) + 1e-6;
        if let Some(rtt) = rtts.iter().flatten().find(|rtt| **rtt > longest_ms) {
            return Err(format!(
                "{} reports an RTT of {rtt} ms, longer than the run ({longest_ms} ms)",
                at("rtt_*_ms")
            ));
        }
        let ordered = rtts;
        if let [Some(min), Some(p50), Some(p95)] = ordered
            && !(min <= p50 && p50 <= p95)
        {
            return Err(format!(
                "{} = {min}, {p50}, {p95} are not in order",
                at("rtt_min_ms / rtt_p50_ms / rtt_p95_ms")
            ));
        }
    }
    match (run.backend, &run.ns3) {
        (BackendKind::Ns3, None) => {
            return Err("backend = ns3, but the run has no ns-3 statistics".to_owned());
        }
        (BackendKind::Netsim, Some(_)) => {
            return Err("backend = netsim, but the run has ns-3 statistics".to_owned());
        }
        (BackendKind::Ns3, Some(stats)) => {
            fraction("ns3.route_available", stats.route_available.unwrap_or(0.0))?;
            for (direction, d) in [("a_to_b", &stats.a_to_b), ("b_to_a", &stats.b_to_a)] {
                if d.delivered.bytes > d.offered.bytes
                    || d.delivered.datagrams > d.offered.datagrams
                {
                    return Err(format!(
                        "ns3.{direction} delivered more than it was offered"
                    ));
                }
            }
            if stats.background_received > stats.background_sent {
                return Err("ns3.background_received exceeds ns3.background_sent".to_owned());
            }
            if stats.mac_retry_limit_drops > stats.mac_retransmissions {
                return Err(
                    "ns3.mac_retry_limit_drops exceeds ns3.mac_retransmissions (each such drop \
                     follows retransmissions)"
                        .to_owned(),
                );
            }
            let udp = stats.a_to_b.delivered.bytes;
            if run.bytes_delivered > udp {
                return Err(format!(
                    "bytes_delivered = {} exceeds the {udp} bytes ns-3 delivered (ns3.a_to_b.delivered.bytes)",
                    run.bytes_delivered
                ));
            }
            let fastest = netsim_ns3::Standard::fastest_mbps() * 1e6;
            if run.goodput_bps > fastest {
                return Err(format!(
                    "goodput_bps = {} exceeds the fastest 802.11 rate the ns-3 backend offers ({fastest} b/s)",
                    run.goodput_bps
                ));
            }
        }
        (BackendKind::Netsim, None) => {}
    }
    Ok(())
}

/// The first negative number in `value`, with its dotted path.
fn first_negative(value: &serde_json::Value, path: &str) -> Option<(String, f64)> {
    use serde_json::Value;
    match value {
        Value::Number(n) => n
            .as_f64()
            .filter(|x| *x < 0.0)
            .map(|x| (path.trim_start_matches('.').to_owned(), x)),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, v)| first_negative(v, &format!("{path}[{i}]"))),
        Value::Object(fields) => fields
            .iter()
            .find_map(|(k, v)| first_negative(v, &format!("{path}.{k}"))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_line_unseals_to_its_content() {
        let json = r#"{"kind":"run","x":1}"#;
        let line = seal(json);
        assert!(
            line.starts_with(r#"{"kind":"run","x":1,"digest":""#),
            "{line}"
        );
        assert_eq!(unseal(&line).unwrap(), json);
    }

    #[test]
    fn any_one_character_edit_is_detected() {
        let line = seal(r#"{"kind":"run","goodput_bps":1507649.2,"backend":"ns3"}"#);
        for (i, c) in line.char_indices() {
            let replacement = if c == '7' { '8' } else { '7' };
            let edited = format!("{}{replacement}{}", &line[..i], &line[i + c.len_utf8()..]);
            assert!(unseal(&edited).is_err(), "{edited}");
        }
        assert!(unseal(&line[..line.len() - 1]).is_err());
        assert!(unseal(r#"{"kind":"run"}"#).is_err());
        assert!(unseal("").is_err());
    }
}
