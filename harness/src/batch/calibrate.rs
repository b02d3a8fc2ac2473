//! `harness calibrate`: how well a fast model (netsim) predicts a reference (ns-3) on the same
//! experiment. Both sides are sweeps' result files; points are matched by their label (the
//! same preset on both backends gives the same labels, e.g. `speed m/s=5`), controllers by
//! name. Per point it reports each controller's goodput on both sides and their ratio
//! (fast / reference), whether the ratio is within the tolerance, and whether both sides rank
//! the controllers the same way; then every miss.
//!
//! Seed by seed: when both sides ran the same seeds and saw the same movement (the ns-3
//! backend's `topology.movement = "netsim"` moves its nodes as netsim does for the run's seed),
//! each seed's goodput ratio is taken, and their geometric mean with its 95% interval is
//! reported beside the ratio of the means (seeds where either side delivered nothing are left
//! out: a ratio with zero has no logarithm).
//!
//! Ranking: two controllers whose goodputs the reference cannot tell apart (their 95%
//! confidence intervals over seeds overlap) have no order to predict, so only the pairs the
//! reference resolves count: the rankings agree when the fast model orders every such pair as
//! the reference does. Kendall's tau over all pairs is reported beside it.

use std::fmt::Write as _;

use serde::Serialize;

use crate::metrics::{RunResult, Spread};
use crate::report::paired::{PairedRatio, ci95};
use crate::report::{ReportMeta, SummaryRow};

/// One controller at one point on both sides.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CalibrationCell {
    /// Controller label.
    pub controller: String,
    /// Mean goodput over seeds on the reference, bits per second.
    pub reference_bps: f64,
    /// Mean goodput over seeds on the fast model, bits per second.
    pub fast_bps: f64,
    /// fast / reference (`None` when the reference's goodput is 0).
    pub ratio: Option<f64>,
    /// Whether the ratio is within `1 ± tolerance`.
    pub within: bool,
    /// Rank by goodput on the reference (1 = highest).
    pub reference_rank: usize,
    /// Rank by goodput on the fast model.
    pub fast_rank: usize,
    /// Geometric mean over the seeds both sides ran (and delivered on) of fast / reference,
    /// with its 95% interval; `None` with fewer than two such seeds.
    pub seed_by_seed: Option<PairedRatio>,
    /// Seeds both sides ran.
    pub common_seeds: usize,
}

/// One point on both sides.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CalibrationPoint {
    /// The point's label.
    pub point: String,
    /// The controllers both sides ran here, in the reference's report order.
    pub cells: Vec<CalibrationCell>,
    /// Whether the fast model orders every pair of controllers that the reference resolves
    /// (disjoint 95% intervals) as the reference does.
    pub same_ranking: bool,
    /// Pairs of controllers the reference resolves.
    pub resolved_pairs: usize,
    /// Those the fast model orders the other way.
    pub reversed_pairs: Vec<(String, String)>,
    /// Kendall's tau between the two orders (1: same order, -1: reversed).
    pub kendall_tau: Option<f64>,
}

/// The comparison.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Calibration {
    /// The reference's grid name.
    pub reference: String,
    /// The fast model's grid name.
    pub fast: String,
    /// The goodput tolerance (0.2: within 20%).
    pub tolerance: f64,
    /// Matched points, in the reference's order.
    pub points: Vec<CalibrationPoint>,
    /// Points of the reference with no match in the fast model's results, and vice versa.
    pub unmatched: Vec<String>,
}

/// Compares `fast` with `reference`, each summarized per point and controller, with its runs.
pub fn compare(
    reference: (&ReportMeta, &[SummaryRow], &[RunResult]),
    fast: (&ReportMeta, &[SummaryRow], &[RunResult]),
    tolerance: f64,
) -> Calibration {
    let (reference_meta, reference_rows, reference_runs) = reference;
    let (fast_meta, fast_rows, fast_runs) = fast;
    let mut points = Vec::new();
    let mut unmatched = Vec::new();
    for point in &reference_meta.points {
        if !fast_meta.points.contains(point) {
            unmatched.push(format!("point {point} (reference only)"));
            continue;
        }
        let row = |rows: &[SummaryRow], controller: &str| -> Option<Spread> {
            rows.iter()
                .find(|r| &r.point == point && r.controller == controller)
                .map(|r| r.goodput_bps)
        };
        let spreads: Vec<(String, Spread, Spread)> = reference_meta
            .controllers
            .iter()
            .filter_map(|c| Some((c.clone(), row(reference_rows, c)?, row(fast_rows, c)?)))
            .collect();
        if spreads.is_empty() {
            unmatched.push(format!("point {point} (no controller on both sides)"));
            continue;
        }
        let reference_values: Vec<f64> = spreads.iter().map(|s| s.1.mean).collect();
        let fast_values: Vec<f64> = spreads.iter().map(|s| s.2.mean).collect();
        let reference_ranks = ranks(&reference_values);
        let fast_ranks = ranks(&fast_values);
        let cells: Vec<CalibrationCell> = spreads
            .iter()
            .enumerate()
            .map(|(i, (controller, _, _))| {
                let (reference_bps, fast_bps) = (reference_values[i], fast_values[i]);
                let ratio = (reference_bps > 0.0).then(|| fast_bps / reference_bps);
                let by_seed = |runs: &[RunResult]| -> std::collections::BTreeMap<u64, f64> {
                    runs.iter()
                        .filter(|r| &r.point == point && &r.controller == controller)
                        .map(|r| (r.seed, r.goodput_bps))
                        .collect()
                };
                let reference_seeds = by_seed(reference_runs);
                let pairs: Vec<(f64, f64)> = by_seed(fast_runs)
                    .into_iter()
                    .filter_map(|(seed, fast)| Some((fast, *reference_seeds.get(&seed)?)))
                    .collect();
                CalibrationCell {
                    controller: controller.clone(),
                    reference_bps,
                    fast_bps,
                    ratio,
                    within: ratio.is_some_and(|r| (r - 1.0).abs() <= tolerance),
                    reference_rank: reference_ranks[i],
                    fast_rank: fast_ranks[i],
                    seed_by_seed: PairedRatio::of(&pairs),
                    common_seeds: pairs.len(),
                }
            })
            .collect();
        let mut resolved_pairs = 0;
        let mut reversed_pairs = Vec::new();
        for (i, (a, a_ref, a_fast)) in spreads.iter().enumerate() {
            for (b, b_ref, b_fast) in &spreads[i + 1..] {
                let (a_low, a_high) = ci95(a_ref);
                let (b_low, b_high) = ci95(b_ref);
                if a_high < b_low || b_high < a_low {
                    resolved_pairs += 1;
                    if (a_ref.mean - b_ref.mean).signum() != (a_fast.mean - b_fast.mean).signum() {
                        reversed_pairs.push((a.clone(), b.clone()));
                    }
                }
            }
        }
        points.push(CalibrationPoint {
            point: point.clone(),
            same_ranking: reversed_pairs.is_empty(),
            resolved_pairs,
            reversed_pairs,
            kendall_tau: kendall_tau(&reference_values, &fast_values),
            cells,
        });
    }
    for point in &fast_meta.points {
        if !reference_meta.points.contains(point) {
            unmatched.push(format!("point {point} (fast model only)"));
        }
    }
    for (controllers, others, side) in [
        (
            &reference_meta.controllers,
            &fast_meta.controllers,
            "reference only",
        ),
        (
            &fast_meta.controllers,
            &reference_meta.controllers,
            "fast model only",
        ),
    ] {
        for controller in controllers.iter().filter(|c| !others.contains(c)) {
            unmatched.push(format!("controller {controller} ({side})"));
        }
    }
    Calibration {
        reference: reference_meta.name.clone(),
        fast: fast_meta.name.clone(),
        tolerance,
        points,
        unmatched,
    }
}

/// 1-based ranks by descending value; ties share the better rank.
fn ranks(values: &[f64]) -> Vec<usize> {
    values
        .iter()
        .map(|v| 1 + values.iter().filter(|w| *w > v).count())
        .collect()
}

/// Kendall's tau-a between two orderings of the same items (`None` for fewer than two).
fn kendall_tau(a: &[f64], b: &[f64]) -> Option<f64> {
    let n = a.len().min(b.len());
    if n < 2 {
        return None;
    }
    let mut score = 0i64;
    for i in 0..n {
        for j in i + 1..n {
            let x = (a[i] - a[j]).signum() * (b[i] - b[j]).signum();
            score += x as i64;
        }
    }
    Some(score as f64 / (n * (n - 1) / 2) as f64)
}

impl Calibration {
    /// The (point, controller) cells outside the tolerance.
    pub fn goodput_misses(&self) -> Vec<(&str, &CalibrationCell)> {
        self.points
            .iter()
            .flat_map(|p| {
                p.cells
                    .iter()
                    .filter(|c| !c.within)
                    .map(move |c| (p.point.as_str(), c))
            })
            .collect()
    }

    /// The text report: a table per point, then the misses.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "calibration: {} (fast model) against {} (reference), goodput tolerance ±{:.0}%",
            self.fast,
            self.reference,
            self.tolerance * 100.0
        );
        let mut table = Vec::new();
        for point in &self.points {
            for cell in &point.cells {
                table.push((
                    point.point.clone(),
                    vec![
                        point.point.clone(),
                        cell.controller.clone(),
                        format!("{:.3}", cell.reference_bps / 1e6),
                        format!("{:.3}", cell.fast_bps / 1e6),
                        cell.ratio
                            .map_or_else(|| "-".to_owned(), |r| format!("{r:.2}")),
                        cell.seed_by_seed
                            .as_ref()
                            .map_or_else(|| "-".to_owned(), PairedRatio::cell),
                        if cell.within { "yes" } else { "NO" }.to_owned(),
                        format!("{} / {}", cell.reference_rank, cell.fast_rank),
                    ],
                ));
            }
            table.push((
                point.point.clone(),
                vec![
                    point.point.clone(),
                    "(ranking)".to_owned(),
                    String::new(),
                    String::new(),
                    String::new(),
                    String::new(),
                    String::new(),
                    format!(
                        "{} ({} resolved pair(s){}){}",
                        if point.same_ranking {
                            "same"
                        } else {
                            "DIFFERS"
                        },
                        point.resolved_pairs,
                        if point.reversed_pairs.is_empty() {
                            String::new()
                        } else {
                            format!(", {} reversed", point.reversed_pairs.len())
                        },
                        point
                            .kendall_tau
                            .map_or_else(String::new, |t| format!(", tau {t:.2}"))
                    ),
                ],
            ));
        }
        out.push_str(&crate::report::table::columns(
            &[
                "point",
                "controller",
                "reference Mb/s",
                "fast Mb/s",
                "fast/ref",
                "fast/ref, same seeds",
                "within",
                "rank ref / fast",
            ],
            &table,
        ));
        let cells: usize = self.points.iter().map(|p| p.cells.len()).sum();
        let misses = self.goodput_misses();
        // A point tests the ranking only where the reference resolves a pair of controllers
        // (two or more on both sides, intervals apart).
        let tested = self.points.iter().filter(|p| p.resolved_pairs > 0).count();
        let ranked = self
            .points
            .iter()
            .filter(|p| p.resolved_pairs > 0 && p.same_ranking)
            .count();
        let _ = writeln!(
            out,
            "\nranking (pairs the reference resolves): the same at {ranked} of the {tested} point(s) that resolve a pair ({} point(s) resolve none: fewer than two controllers on both sides, or no two intervals apart); goodput within ±{:.0}%: {} of {cells}",
            self.points.len() - tested,
            self.tolerance * 100.0,
            cells - misses.len()
        );
        for point in self.points.iter().filter(|p| !p.same_ranking) {
            let reversed: Vec<String> = point
                .reversed_pairs
                .iter()
                .map(|(a, b)| format!("{a} vs {b}"))
                .collect();
            let _ = writeln!(
                out,
                "  ranking differs at {}: {}",
                point.point,
                reversed.join(", ")
            );
        }
        for (point, cell) in misses {
            let _ = writeln!(
                out,
                "  goodput miss at {point}, {}: fast/ref {}",
                cell.controller,
                cell.ratio.map_or_else(
                    || "undefined (reference 0)".to_owned(),
                    |r| format!("{r:.2}")
                )
            );
        }
        for what in &self.unmatched {
            let _ = writeln!(out, "  unmatched {what}");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_and_tau() {
        assert_eq!(ranks(&[1.0, 3.0, 2.0]), vec![3, 1, 2]);
        assert_eq!(ranks(&[2.0, 2.0, 1.0]), vec![1, 1, 3]);
        assert_eq!(
            kendall_tau(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]),
            Some(1.0)
        );
        assert_eq!(kendall_tau(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]), Some(-1.0));
        assert_eq!(kendall_tau(&[1.0], &[1.0]), None);
    }
}
