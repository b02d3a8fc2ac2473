//! The composite controller's scorecard: per point, a controller's seed-paired goodput over
//! the stack's Cubic and over the best baseline, its p95 RTT against Cubic's, its share beside
//! a competitor, and issue 34's targets, met or missed:
//!
//! - T1: at least 1.0x Cubic, with no interval entirely below 0.95;
//! - T2: at least 0.9x the best baseline;
//! - T3: on ns-3 at 4 and 8 hops, at least 1.3x the best baseline and, given the fixed-window
//!   sweeps, 0.9x the best fixed window;
//! - T4: p95 RTT at most Cubic's; beside a competitor a goodput ratio in [0.5, 2] and a loss
//!   rate at most 2x NewReno's in the same mix.
//!
//! The regime grid's targets (issue 52, [`TargetSet::Regimes`]) hold at every cell instead:
//!
//! - R1: at least 0.95x Cubic, with no interval entirely below 0.9;
//! - R2: at least 0.9x the best baseline.
//!
//! With a split, development and validation cells are tabled, counted and pooled apart.

use std::collections::BTreeMap;

use super::document::{Cell, Document, Table};
use super::experiment::{
    BASELINES, DEFAULT, Experiment, Point, Seeds, mean, mean_goodput, pairs, ratio,
};
use super::pool::Pool;
use super::split::{Set, Split};
use crate::error::Result;
use crate::report::paired::PairedRatio;

/// Which targets a point is held to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TargetSet {
    /// The composite's targets on its evaluation's presets (issue 34): T1-T4.
    #[default]
    Composite,
    /// The regime grid's targets at every cell (issue 52): R1 and R2.
    Regimes,
}

/// What to score.
#[derive(Clone, Copy, Debug)]
pub struct Options<'a> {
    /// The targets each point is held to.
    pub targets: TargetSet,
    /// The controller scored (`manet`).
    pub controller: &'a str,
    /// Sweeps of `fixed` windows: the best of them per point and seed is T3's reference.
    pub fixed: &'a [Experiment],
    /// Development and validation cells, scored apart.
    pub split: Option<&'a Split>,
    /// Whether to pool every point and seed (per experiment, per controller, in all).
    pub pooled: bool,
}

/// The best fixed window's goodput per point label and seed.
type BestFixed = BTreeMap<String, BTreeMap<u64, f64>>;

fn best_fixed(fixed: &[Experiment]) -> BestFixed {
    let mut best = BestFixed::new();
    for experiment in fixed {
        for point in &experiment.points {
            let seeds = best.entry(point.label.clone()).or_default();
            for runs in point.controllers.values() {
                for (seed, figures) in runs {
                    let top = seeds.entry(*seed).or_insert(0.0);
                    *top = top.max(figures.goodput_bps);
                }
            }
        }
    }
    best
}

/// One set's rows, counts and pools.
#[derive(Default)]
struct Tally {
    table: Option<Table>,
    met: usize,
    missed: usize,
    by_experiment: Vec<(String, Pool)>,
    overall: Pool,
    points: Vec<Point>,
    /// Points with both p95 RTTs, those where the controller's is the longer, and the largest
    /// ratio of the two.
    rtt_points: usize,
    rtt_longer: usize,
    rtt_largest_ratio: f64,
    /// The runs of every point scored: a point whose runs another experiment already holds
    /// (a preset's default point in several sweeps) is tabled again but counted once.
    scored: std::collections::HashSet<Vec<String>>,
}

/// Scores `experiments`; every experiment must hold `controller` and Cubic.
pub fn scorecard(experiments: &[Experiment], options: Options<'_>) -> Result<Document> {
    for experiment in experiments {
        experiment.require(&[options.controller, DEFAULT])?;
    }
    let fixed = best_fixed(options.fixed);
    let mut tallies: BTreeMap<Option<Set>, Tally> = BTreeMap::new();
    for experiment in experiments {
        for point in &experiment.points {
            let set = options
                .split
                .map(|s| s.set_of(experiment, &point.label))
                .transpose()?;
            let tally = tallies.entry(set).or_default();
            score_point(experiment, point, &options, &fixed, tally);
        }
    }
    let mut doc = Document::default();
    for (set, tally) in tallies {
        if let Some(set) = set {
            doc.heading(format!("{} cells", capitalized(&set.to_string())));
        }
        let rows = tally.table.as_ref().map_or(0, |t| t.rows.len());
        if let Some(table) = tally.table {
            doc.table(table);
        }
        doc.text(format!(
            "{} targets met, {} missed{}",
            tally.met,
            tally.missed,
            if tally.scored.len() < rows {
                " (a point whose runs an earlier row holds is counted once)"
            } else {
                ""
            }
        ));
        if tally.rtt_longer > 0 {
            doc.text(format!(
                "p95 RTT above Cubic's at {} of {} points (at most {:.1}x Cubic's)",
                tally.rtt_longer, tally.rtt_points, tally.rtt_largest_ratio
            ));
        }
        if options.pooled {
            pooled(
                &mut doc,
                options.controller,
                &tally.by_experiment,
                &tally.overall,
                &tally.points,
            );
        }
    }
    Ok(doc)
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

fn p95_mean(seeds: &Seeds) -> Option<f64> {
    mean(
        &seeds
            .values()
            .filter_map(|f| f.rtt_p95_ms)
            .collect::<Vec<_>>(),
    )
}

fn score_point(
    experiment: &Experiment,
    point: &Point,
    options: &Options<'_>,
    fixed: &BestFixed,
    tally: &mut Tally,
) {
    let name = options.controller;
    let (Some(mine), Some(cubic)) = (point.controllers.get(name), point.controllers.get(DEFAULT))
    else {
        return;
    };
    let table = tally.table.get_or_insert_with(|| {
        Table::new([
            "experiment",
            "point",
            "x default (Cubic)",
            "x best",
            "best",
            "p95 RTT ms: it / Cubic",
            "beside its competitor",
            "targets",
        ])
    });
    let x_default = ratio(&pairs(mine, cubic, |f| Some(f.goodput_bps)));
    let best = point.best_baseline(name);
    let best_pairs = best.map_or_else(Vec::new, |b| point.pairs(name, b));
    let x_best = ratio(&best_pairs);
    if options.pooled {
        let index = match tally
            .by_experiment
            .iter()
            .position(|(e, _)| *e == experiment.name)
        {
            Some(i) => i,
            None => {
                tally
                    .by_experiment
                    .push((experiment.name.clone(), Pool::default()));
                tally.by_experiment.len() - 1
            }
        };
        tally.by_experiment[index].1.add(best_pairs.clone());
        tally.overall.add(best_pairs);
        tally.points.push(point.clone());
    }
    let runs: Vec<String> = mine.values().map(|f| f.run_id.clone()).collect();
    let counted = tally.scored.insert(runs);
    let mut verdicts = Vec::new();
    let mut target = |label: String, ok: bool| {
        verdicts.push(format!("{label} {}", if ok { "met" } else { "MISSED" }));
        match (counted, ok) {
            (false, _) => {}
            (true, true) => tally.met += 1,
            (true, false) => tally.missed += 1,
        }
    };
    let composite = options.targets == TargetSet::Composite;
    match (options.targets, x_default) {
        (TargetSet::Composite, Some(r)) => target("T1".into(), r.mean >= 1.0 && r.high >= 0.95),
        (TargetSet::Regimes, Some(r)) => target("R1".into(), r.mean >= 0.95 && r.high >= 0.9),
        (_, None) => {}
    }
    if let Some(r) = x_best {
        target(if composite { "T2" } else { "R2" }.into(), r.mean >= 0.9);
    }
    let (rtt_mine, rtt_cubic) = (p95_mean(mine), p95_mean(cubic));
    if let (Some(m), Some(c)) = (rtt_mine, rtt_cubic) {
        if composite {
            target("T4 RTT".into(), m <= c);
        }
        tally.rtt_points += usize::from(counted);
        if counted && m > c {
            tally.rtt_longer += 1;
            tally.rtt_largest_ratio = tally.rtt_largest_ratio.max(m / c);
        }
    }
    if composite && point.ns3 && matches!(point.label.as_str(), "hops=4" | "hops=8") {
        if let Some(r) = x_best {
            target("T3 x1.3".into(), r.mean >= 1.3);
        }
        if let Some(best) = fixed.get(&point.label) {
            let to_fixed: Vec<(f64, f64)> = mine
                .iter()
                .filter_map(|(seed, f)| Some((f.goodput_bps, *best.get(seed)?)))
                .collect();
            let r = PairedRatio::of(&to_fixed);
            let cell = r.map_or_else(|| "-".to_owned(), |r| r.cell());
            target(
                format!("T3 fixed ({cell} of the best fixed window)"),
                r.is_some_and(|r| r.mean >= 0.9),
            );
        }
    }
    let beside = if composite {
        beside_competitor(mine, point.controllers.get("newreno"), &mut target)
    } else {
        String::new()
    };
    let rtt = match (rtt_mine, rtt_cubic) {
        (Some(m), Some(c)) => format!("{m:.0} / {c:.0}"),
        _ => String::new(),
    };
    table.rows.push(vec![
        Cell::text(&experiment.name),
        Cell::text(&point.label),
        Cell::ratio(x_default),
        Cell::ratio(x_best),
        Cell::text(best.unwrap_or_default()),
        Cell::text(rtt),
        Cell::text(beside),
        Cell::text(verdicts.join(", ")),
    ]);
}

/// In a mixed run: its goodput over its competitors' and its loss rate over NewReno's in the
/// same mix, with T4's share and loss targets.
fn beside_competitor(
    mine: &Seeds,
    newreno: Option<&Seeds>,
    target: &mut impl FnMut(String, bool),
) -> String {
    let others: Vec<f64> = mine
        .values()
        .filter_map(|f| f.others_bps)
        .filter(|o| *o > 0.0)
        .collect();
    let (Some(others), Some(own)) = (mean(&others), mean_goodput(mine)) else {
        return String::new();
    };
    let share = own / others;
    target("T4 share".into(), (0.5..=2.0).contains(&share));
    // The target reads the ratio of means; the seeds' own ratios show how far it holds.
    let by_seed: Vec<f64> = mine
        .values()
        .filter_map(|f| Some(f.goodput_bps / f.others_bps.filter(|o| *o > 0.0)?))
        .collect();
    let low = by_seed.iter().copied().fold(f64::INFINITY, f64::min);
    let high = by_seed.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut text = format!("x others {share:.2} (seeds {low:.2} to {high:.2})");
    let loss = |s: &Seeds| mean(&s.values().map(|f| f.loss_rate).collect::<Vec<_>>());
    if let (Some(m), Some(n)) = (loss(mine), newreno.and_then(loss))
        && n > 0.0
    {
        text += &format!(", loss {:.2}x NewReno's", m / n);
        target("T4 loss".into(), m <= 2.0 * n);
    }
    text
}

fn pooled(
    doc: &mut Document,
    name: &str,
    by_experiment: &[(String, Pool)],
    overall: &Pool,
    points: &[Point],
) {
    let mut table = Table::new([
        "experiment".to_owned(),
        "pairs".to_owned(),
        format!("pooled over its points: {name} over the best baseline"),
    ]);
    for (experiment, pool) in by_experiment {
        table.rows.push(vec![
            Cell::text(experiment),
            Cell::text(pool.len().to_string()),
            Cell::ratio(pool.ratio()),
        ]);
    }
    doc.table(table);
    cross_pool(doc, points);
    doc.text(format!(
        "Pooled over every point and seed above ({}): {name} over the best baseline at its point {}",
        overall.describe(),
        overall.ratio().map_or_else(|| "-".to_owned(), |r| r.cell())
    ));
}

/// Every controller pooled over every point and seed where it ran, over each baseline and over
/// the best of the other baselines at each point (what choosing the best of several noisy
/// baselines costs any controller there); each pair of runs once.
fn cross_pool(doc: &mut Document, points: &[Point]) {
    let mut names: Vec<&str> = points
        .iter()
        .flat_map(|p| p.controllers.keys().map(String::as_str))
        .collect();
    names.sort_by_key(|n| (BASELINES.contains(n), *n));
    names.dedup();
    let baselines: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| BASELINES.contains(n))
        .collect();
    doc.text(
        "Each controller pooled over the points and seeds where it ran, over each baseline and \
         over the best of the other baselines at each point (the same two runs are counted once):",
    );
    let mut columns = vec!["controller".to_owned()];
    columns.extend(baselines.iter().map(|b| format!("over {b}")));
    columns.push("over the best of the other baselines".to_owned());
    let mut table = Table::new(columns);
    for name in &names {
        let mut row = vec![Cell::text(*name)];
        let references: Vec<Option<&str>> =
            baselines.iter().map(|b| Some(*b)).chain([None]).collect();
        for reference in references {
            let mut pool = Pool::default();
            for point in points {
                let other = match reference {
                    Some(b) if b != *name => Some(b),
                    Some(_) => None,
                    None => point.best_baseline(name),
                };
                if let Some(other) = other {
                    pool.add(point.pairs(name, other));
                }
            }
            row.push(Cell::ratio(pool.ratio()));
        }
        table.rows.push(row);
    }
    doc.table(table);
}
