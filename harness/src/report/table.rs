//! The terminal table: one row per (point, controller), mean ± sample standard deviation over
//! seeds, and goodput ratios to NewReno and Cubic at the same point.

use std::fmt::Write;

use netsim::Clock;

use super::{ReportMeta, SummaryRow};
use crate::stack::Stack;

fn mbps(bps: f64) -> String {
    format!("{:.3}", bps / 1e6)
}

/// The controller cell: the label, the stack when not quinn (`sender->receiver` when the ends
/// differ), `real time` for wall-clock runs, `(*)` for other non-reproducible rows.
fn controller_cell(row: &SummaryRow) -> String {
    let mut notes = Vec::new();
    if row.sender != row.receiver {
        notes.push(format!("{}->{}", row.sender, row.receiver));
    } else if row.sender != Stack::Quinn {
        notes.push(row.sender.to_string());
    }
    if row.clock == Clock::Real {
        notes.push("real time".to_owned());
    }
    let mut cell = row.controller.clone();
    if !notes.is_empty() {
        cell = format!("{cell} ({})", notes.join(", "));
    }
    if !row.reproducible && row.clock != Clock::Real {
        cell.push_str(" (*)");
    }
    cell
}

/// A table before rendering: column headers and rows, each row beside its point (rows of one
/// point are grouped). The terminal table and the HTML report render the same cells.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// Column headers.
    pub headers: Vec<&'static str>,
    /// (point, cells) per row.
    pub rows: Vec<(String, Vec<String>)>,
}

/// The lines above the table: the grid's name, description, the paper it follows, the ns-3
/// scenarios, and the seeds.
pub fn heading(meta: &ReportMeta) -> Vec<String> {
    let mut lines = vec![meta.name.clone()];
    if !meta.description.is_empty() {
        lines.push(meta.description.clone());
    }
    if let Some(paper) = &meta.paper {
        lines.push(format!("follows: {paper}"));
    }
    for backend in &meta.backends {
        lines.push(format!("backend {backend}"));
    }
    let seeds: Vec<String> = meta.seeds.iter().map(u64::to_string).collect();
    lines.push(format!(
        "seeds: {} (mean ± sd over seeds)",
        seeds.join(", ")
    ));
    lines
}

/// The summary table: one row per (point, controller).
pub fn summary(rows: &[SummaryRow]) -> Table {
    let headers = vec![
        "point",
        "controller",
        "goodput Mb/s",
        "util %",
        "xNewReno",
        "xCubic",
        "xBest",
        "thrpt Mb/s",
        "RTT p50/p95 ms",
        "slow start s",
        "lost pkts",
        "FR/T1/T2/T0/undet",
    ];
    let mut table: Vec<(String, Vec<String>)> = Vec::new();
    for row in rows {
        let util = row
            .utilization
            .map(|u| format!("{:.1} ± {:.1}", u.mean * 100.0, u.sd * 100.0))
            .unwrap_or_else(|| "-".into());
        let ratio = |r: Option<f64>| r.map(|r| format!("{r:.2}")).unwrap_or_else(|| "-".into());
        let rtt = match (row.rtt_p50_ms, row.rtt_p95_ms) {
            (Some(a), Some(b)) => format!("{:.0}/{:.0}", a.mean, b.mean),
            _ => "-".into(),
        };
        let signals = row
            .signals
            .map(|s| {
                format!(
                    "{:.1}/{:.1}/{:.1}/{:.1}/{:.1}",
                    s[0], s[1], s[2], s[3], s[4]
                )
            })
            .unwrap_or_else(|| "-".into());
        let controller = controller_cell(row);
        table.push((
            row.point.clone(),
            vec![
                row.point.clone(),
                controller,
                format!(
                    "{} ± {}",
                    mbps(row.goodput_bps.mean),
                    mbps(row.goodput_bps.sd)
                ),
                util,
                ratio(row.vs_newreno),
                ratio(row.vs_cubic),
                ratio(row.vs_best),
                mbps(row.throughput_bps.mean),
                rtt,
                row.slow_start_s
                    .map(|s| format!("{:.1}", s.mean))
                    .unwrap_or_else(|| "-".into()),
                format!("{:.0}", row.packets_lost.mean),
                signals,
            ],
        ));
    }
    Table {
        headers,
        rows: table,
    }
}

/// The notes below the summary table.
pub fn notes(rows: &[SummaryRow]) -> Vec<&'static str> {
    let mut notes = Vec::new();
    if rows.iter().any(|r| r.clock == Clock::Real) {
        notes.push(
            "real time: run on the wall clock, not bit-reproducible (quiche reads the system clock; its TLS RNG is BoringSSL's)",
        );
    }
    if rows
        .iter()
        .any(|r| !r.reproducible && r.clock != Clock::Real)
    {
        notes.push("(*) not reproducible from the seed (draws from an unseeded RNG)");
    }
    notes.push(
        "util = goodput / netsim's physical limit; xCubic = over the stacks' default; xBest = over the best of the \
         stacks' own controllers at that point (JSON: best_baseline, vs_best, and vs_*_paired seed by seed); \
         FR/T1/T2/T0 = loss-signal classes per run (ports only)",
    );
    notes
}

/// Renders the table (plain text, fixed-width columns).
pub fn render(meta: &ReportMeta, rows: &[SummaryRow]) -> String {
    let mut out = String::new();
    for line in heading(meta) {
        let _ = writeln!(out, "{line}");
    }
    let table = summary(rows);
    out.push_str(&columns(&table.headers, &table.rows));
    for note in notes(rows) {
        let _ = writeln!(out, "{note}");
    }
    if let Some(table) = coexistence(rows) {
        out.push('\n');
        let _ = writeln!(out, "{COEXISTENCE_TITLE}:");
        out.push_str(&columns(&table.headers, &table.rows));
        let _ = writeln!(out, "{COEXISTENCE_NOTE}");
    }
    if let Some(table) = ns3(rows) {
        out.push('\n');
        let _ = writeln!(out, "{NS3_TITLE}:");
        out.push_str(&columns(&table.headers, &table.rows));
        let _ = writeln!(out, "{NS3_NOTE}");
    }
    out
}

/// Fixed-width lines: a header, a rule, the rows (a blank line between points).
pub(crate) fn columns(headers: &[&str], table: &[(String, Vec<String>)]) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for (_, line) in table {
        for (w, cell) in widths.iter_mut().zip(line) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let fmt_line = |cells: &[String]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c}{}", " ".repeat(w - c.chars().count())))
            .collect();
        padded.join("  ").trim_end().to_owned()
    };
    let mut out = String::new();
    let header: Vec<String> = headers.iter().map(|h| (*h).to_owned()).collect();
    let _ = writeln!(out, "{}", fmt_line(&header));
    let _ = writeln!(
        out,
        "{}",
        "-".repeat(widths.iter().sum::<usize>() + 2 * (widths.len() - 1))
    );
    let mut last_point = None;
    for (point, line) in table {
        if last_point.is_some() && last_point != Some(point) {
            out.push('\n');
        }
        last_point = Some(point);
        let _ = writeln!(out, "{}", fmt_line(line));
    }
    out
}

/// The coexistence table's title.
pub const COEXISTENCE_TITLE: &str =
    "flows sharing the path (mean over seeds; runs of several flows)";

/// The coexistence table's note.
pub const COEXISTENCE_NOTE: &str = "one line per controller among a run's flows, the run's own \
     first; Mb/s per flow; share = of the run's goodput; loss = packets lost / sent; queue = \
     median RTT / smallest RTT (1: no queue); x others = the run's controller's goodput per flow \
     over the other flows'";

/// What the flows of runs with several flows did to each other: a line per controller among
/// a row's flows. `None` without such rows.
pub fn coexistence(rows: &[SummaryRow]) -> Option<Table> {
    let headers = vec![
        "point",
        "controller",
        "flows of",
        "Mb/s per flow",
        "share %",
        "loss %",
        "queue",
        "Jain",
        "x others",
    ];
    let mut table = Vec::new();
    for row in rows {
        let Some(c) = &row.coexistence else { continue };
        for (i, class) in c.classes.iter().enumerate() {
            let first = i == 0;
            table.push((
                row.point.clone(),
                vec![
                    if first {
                        row.point.clone()
                    } else {
                        String::new()
                    },
                    if first {
                        controller_cell(row)
                    } else {
                        String::new()
                    },
                    format!("{} x {}", class.flows, class.controller),
                    mbps(class.goodput_bps),
                    format!("{:.1}", class.share * 100.0),
                    format!("{:.2}", class.loss_rate * 100.0),
                    class
                        .queueing
                        .map_or_else(|| "-".to_owned(), |q| format!("{q:.2}")),
                    if first {
                        format!("{:.3}", c.jain)
                    } else {
                        String::new()
                    },
                    match (first, c.vs_competitors) {
                        (true, Some(r)) => format!("{r:.2}"),
                        (true, None) => "-".to_owned(),
                        (false, _) => String::new(),
                    },
                ],
            ));
        }
    }
    (!table.is_empty()).then_some(Table {
        headers,
        rows: table,
    })
}

/// The ns-3 table's title.
pub const NS3_TITLE: &str = "ns-3, data direction (mean per run)";

/// The ns-3 table's note.
pub const NS3_NOTE: &str = "ns-3 rows: util is '-' (no physical limit is computed: an 802.11 network's capacity \
     depends on its traffic); hops = 1 + forwarders of delivered datagrams; route up % = \
     geometric samples with an in-range path; MAC retx = failed data-frame attempts, all traffic; \
     longest gap = the longest time any run went without a delivery, data/ACK direction; ACK no \
     route = ACK-direction drops for want of a route; \
     xNewReno paired = geometric mean over seeds of goodput / NewReno's on the same seed, \
     95% CI, * when it excludes 1";

/// What ns-3 did on the ns-3 rows: the data direction's hops, route changes and drops by
/// reason, and the network's MAC retransmissions, mean per run. `None` without ns-3 rows.
pub fn ns3(rows: &[SummaryRow]) -> Option<Table> {
    if !rows.iter().any(|r| r.ns3.is_some()) {
        return None;
    }
    let headers = vec![
        "point",
        "controller",
        "xNewReno paired [95% CI]",
        "hops",
        "route changes",
        "route up %",
        "drops: MAC retry/queue/no route/routing buffer/other",
        "MAC retx",
        "longest gap s data/ACK",
        "ACK no route",
    ];
    let one = |x: Option<f64>, digits: usize| {
        x.map_or_else(|| "-".to_owned(), |x| format!("{x:.digits$}"))
    };
    let table: Vec<(String, Vec<String>)> = rows
        .iter()
        .filter_map(|row| {
            let ns3 = row.ns3.as_ref()?;
            Some((
                row.point.clone(),
                vec![
                    row.point.clone(),
                    controller_cell(row),
                    row.vs_newreno_paired
                        .map_or_else(|| "-".to_owned(), |p| p.cell()),
                    one(ns3.hops, 2),
                    format!("{:.1}", ns3.route_changes),
                    one(ns3.route_available.map(|f| f * 100.0), 1),
                    format!(
                        "{:.1}/{:.1}/{:.1}/{:.1}/{:.1}",
                        ns3.mac_retry_drops,
                        ns3.queue_drops,
                        ns3.no_route_drops,
                        ns3.routing_buffer_drops,
                        ns3.other_drops
                    ),
                    format!("{:.0}", ns3.mac_retransmissions),
                    format!("{:.1}/{:.1}", ns3.max_gap_s, ns3.ack_max_gap_s),
                    format!("{:.1}", ns3.ack_no_route_drops),
                ],
            ))
        })
        .collect();
    Some(Table {
        headers,
        rows: table,
    })
}
