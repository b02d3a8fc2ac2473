//! The Markdown report: one table row per scenario point, one column per controller, ready to
//! paste into a README (the project's results tables are made with it). Goodput is the mean ±
//! sample standard deviation over seeds; with NewReno in the grid, every other controller's
//! column is its paired ratio to NewReno (geometric mean of per-seed ratios with its 95%
//! interval, `*` when it excludes 1), the difference the seed-to-seed spread does not hide.

use std::fmt::Write;
use std::path::Path;

use super::{BASELINE, ReportMeta, SummaryRow};
use crate::error::{HarnessError, Result};

fn mbps_cell(row: &SummaryRow) -> String {
    format!(
        "{:.3} ± {:.3}",
        row.goodput_bps.mean / 1e6,
        row.goodput_bps.sd / 1e6
    )
}

/// A controller's ratio to the baseline: paired when two or more seeds pair up, else the ratio
/// of means (one seed), else `-`.
fn ratio_cell(row: &SummaryRow) -> String {
    match (&row.vs_newreno_paired, row.vs_newreno) {
        (Some(paired), _) => paired.cell(),
        (None, Some(ratio)) => format!("{ratio:.2}"),
        (None, None) => "-".to_owned(),
    }
}

/// `|` would end a cell: labels and values are escaped.
fn escape(text: &str) -> String {
    text.replace('|', "\\|")
}

/// The table as Markdown, followed by a line saying what the cells are.
pub fn render(meta: &ReportMeta, rows: &[SummaryRow]) -> String {
    let controllers: Vec<&str> = meta
        .controllers
        .iter()
        .map(String::as_str)
        .filter(|c| rows.iter().any(|r| r.controller == *c))
        .collect();
    let baseline = controllers.contains(&BASELINE);
    let mut headers: Vec<String> = if meta.axes.is_empty() {
        vec!["point".to_owned()]
    } else {
        meta.axes.iter().map(|a| escape(a)).collect()
    };
    for controller in &controllers {
        headers.push(if !baseline {
            format!("{} Mb/s", escape(controller))
        } else if *controller == BASELINE {
            format!("{BASELINE} Mb/s")
        } else {
            format!("{} x {BASELINE}", escape(controller))
        });
    }
    headers.push(format!(
        "p95 RTT ms {}",
        controllers
            .iter()
            .map(|c| escape(c))
            .collect::<Vec<_>>()
            .join(" / ")
    ));
    let mut out = String::new();
    let _ = writeln!(out, "| {} |", headers.join(" | "));
    let _ = writeln!(out, "|{}", "---|".repeat(headers.len()));
    for point in &meta.points {
        let at_point: Vec<&SummaryRow> = rows.iter().filter(|r| &r.point == point).collect();
        let Some(first) = at_point.first() else {
            continue;
        };
        let mut cells: Vec<String> = if meta.axes.is_empty() {
            vec![escape(point)]
        } else {
            meta.axes
                .iter()
                .map(|axis| escape(first.params.get(axis).map_or(point, String::as_str)))
                .collect()
        };
        let row_of = |controller: &str| at_point.iter().find(|r| r.controller == controller);
        for controller in &controllers {
            cells.push(match row_of(controller) {
                None => "-".to_owned(),
                Some(row) if !baseline || *controller == BASELINE => mbps_cell(row),
                Some(row) => ratio_cell(row),
            });
        }
        let rtts: Vec<String> = controllers
            .iter()
            .map(|c| {
                row_of(c)
                    .and_then(|r| r.rtt_p95_ms.as_ref())
                    .map_or_else(|| "-".to_owned(), |s| format!("{:.0}", s.mean))
            })
            .collect();
        cells.push(rtts.join(" / "));
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    let seeds = meta.seeds.len();
    let _ = writeln!(
        out,
        "\n{} Mb/s: aggregate goodput, mean ± sample standard deviation over {seeds} seed(s).{} \
         p95 RTT: each flow's 95th percentile, averaged over flows and seeds.",
        if baseline { BASELINE } else { "Controller" },
        if baseline {
            format!(
                " x {BASELINE}: geometric mean over seeds of goodput / {BASELINE}'s on the same \
                 seed, [95% interval], * when it excludes 1."
            )
        } else {
            String::new()
        }
    );
    out
}

/// Writes the Markdown report to `path`.
pub fn write(path: &Path, meta: &ReportMeta, rows: &[SummaryRow]) -> Result<()> {
    std::fs::write(path, render(meta, rows)).map_err(|e| HarnessError::output(path, e))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::metrics::Spread;
    use crate::report::paired::PairedRatio;

    fn spread(mean: f64, sd: f64) -> Spread {
        Spread {
            mean,
            sd,
            min: mean - sd,
            max: mean + sd,
            n: 3,
        }
    }

    fn row(point: &str, speed: &str, controller: &str, goodput: f64) -> SummaryRow {
        SummaryRow {
            point: point.to_owned(),
            params: BTreeMap::from([("speed".to_owned(), speed.to_owned())]),
            controller: controller.to_owned(),
            runs: 3,
            goodput_bps: spread(goodput, goodput / 10.0),
            throughput_bps: spread(goodput, 0.0),
            utilization: None,
            vs_newreno: None,
            vs_cubic: None,
            best_baseline: None,
            vs_best: None,
            vs_cubic_paired: None,
            vs_best_paired: None,
            vs_newreno_paired: None,
            rtt_p50_ms: None,
            rtt_p95_ms: Some(spread(120.4, 3.0)),
            slow_start_s: None,
            packets_lost: spread(0.0, 0.0),
            jain: spread(1.0, 0.0),
            signals: None,
            reproducible: true,
            clock: netsim::Clock::Virtual,
            sender: crate::stack::Stack::Quinn,
            receiver: crate::stack::Stack::Quinn,
            ns3: None,
            coexistence: None,
        }
    }

    fn meta(controllers: &[&str]) -> ReportMeta {
        ReportMeta {
            name: "g".to_owned(),
            description: String::new(),
            paper: None,
            axes: vec!["speed".to_owned()],
            points: vec!["speed=5".to_owned(), "speed=10".to_owned()],
            controllers: controllers.iter().map(|c| (*c).to_owned()).collect(),
            seeds: vec![1, 2, 3],
            harness_version: crate::VERSION.to_owned(),
            backends: Vec::new(),
        }
    }

    #[test]
    fn ratios_to_newreno_are_paired_and_starred() {
        let mut karak = row("speed=5", "5", "karak", 1.2e6);
        karak.vs_newreno = Some(1.2);
        karak.vs_newreno_paired = Some(PairedRatio {
            mean: 1.17,
            low: 1.05,
            high: 1.3,
            seeds: 3,
        });
        let mut karak_10 = row("speed=10", "10", "karak", 0.9e6);
        karak_10.vs_newreno = Some(0.9);
        karak_10.rtt_p95_ms = None;
        let rows = vec![
            row("speed=5", "5", "newreno", 1e6),
            karak,
            row("speed=10", "10", "newreno", 1e6),
            karak_10,
        ];
        let text = render(&meta(&["newreno", "karak"]), &rows);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "| speed | newreno Mb/s | karak x newreno | p95 RTT ms newreno / karak |"
        );
        assert_eq!(lines[1], "|---|---|---|---|");
        assert_eq!(
            lines[2],
            "| 5 | 1.000 ± 0.100 | 1.17 [1.05, 1.30]* | 120 / 120 |"
        );
        // One seed pairs up nowhere: the ratio of means, unstarred; a missing RTT is `-`.
        assert_eq!(lines[3], "| 10 | 1.000 ± 0.100 | 0.90 | 120 / - |");
        assert!(lines[5].contains("95% interval"), "{text}");
    }

    #[test]
    fn without_newreno_every_controller_gets_its_goodput() {
        let rows = vec![
            row("speed=5", "5", "cubic", 2e6),
            row("speed=5", "5", "bbr", 3e6),
        ];
        let text = render(&meta(&["cubic", "bbr", "karak"]), &rows);
        let lines: Vec<&str> = text.lines().collect();
        // karak has no rows: no column; speed=10 has no rows: no line.
        assert_eq!(
            lines[0],
            "| speed | cubic Mb/s | bbr Mb/s | p95 RTT ms cubic / bbr |"
        );
        assert_eq!(
            lines[2],
            "| 5 | 2.000 ± 0.200 | 3.000 ± 0.300 | 120 / 120 |"
        );
        assert_eq!(lines[3], "");
        assert!(!text.contains("interval"), "{text}");
    }

    #[test]
    fn a_pipe_in_a_label_is_escaped() {
        let text = render(&meta(&["a|b"]), &[row("speed=5", "5", "a|b", 1e6)]);
        assert!(text.starts_with("| speed | a\\|b Mb/s |"), "{text}");
    }
}
