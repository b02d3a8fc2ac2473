//! The README's decision table: for each kind of path, which controller to use, from the
//! result files a spec names.
//!
//! The rule, the same for every row: pool the row's points and seeds (each pair of runs once);
//! among the candidates that ran at every one of the row's points (a port run only on its own
//! paper's preset is not compared over the others'), use the one with the highest geometric-mean goodput over the stack's
//! Cubic whose 95% interval lies entirely above 1; when none does, keep Cubic, the stack's
//! default. The row shows that controller's goodput over Cubic and over the best other
//! baseline at each point, its p95 RTT over Cubic's, and the featured controller's (`manet`)
//! goodput over Cubic, each with its interval, and how many seed pairs they pool.
//!
//! The spec (TOML; paths relative to the spec file):
//!
//! ```toml
//! featured = "manet"
//!
//! [[row]]
//! path = "Multi-hop 802.11 chain (ns-3, AODV), 2-8 hops"
//! experiments = ["../../results/manet/quinn/ns3-chain"]
//! points = ["hops=2", "hops=4", "hops=8"]   # optional: every point by default
//! page = "docs/results/manet.md"
//! candidates = ["manet", "bbr"]              # optional: every controller but `fixed` and ns-3's TCP
//! ```

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::document::{Cell, Document, Table};
use super::experiment::{DEFAULT, Experiment, Point, pairs};
use super::pool::Pool;
use crate::error::{HarnessError, Result};
use crate::report::paired::PairedRatio;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Spec {
    featured: String,
    row: Vec<RowSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RowSpec {
    path: String,
    experiments: Vec<PathBuf>,
    #[serde(default)]
    points: Vec<String>,
    page: String,
    #[serde(default)]
    candidates: Vec<String>,
}

/// At most this many rows: a decision table is read at a glance.
pub const MAX_ROWS: usize = 40;

/// The decision table of the spec at `path`.
pub fn decision(path: &Path) -> Result<Document> {
    let text = crate::input_file::read_text(path, crate::input_file::SCORECARD)?;
    let bad = |what: String| {
        HarnessError::bad_input(format!("decision spec `{}`: {what}", path.display()))
    };
    let spec: Spec = toml::from_str(&text).map_err(|e| bad(e.to_string()))?;
    if spec.row.is_empty() || spec.row.len() > MAX_ROWS {
        return Err(bad(format!(
            "{} rows: give 1 to {MAX_ROWS} [[row]] tables",
            spec.row.len()
        )));
    }
    let base = path.parent().unwrap_or(Path::new("."));
    let mut table = Table::new([
        "Your path".to_owned(),
        "Stack".to_owned(),
        "Use".to_owned(),
        "Its goodput over Cubic".to_owned(),
        "over the best other baseline".to_owned(),
        "p95 RTT over Cubic's".to_owned(),
        format!("`{}` over Cubic", spec.featured),
        "Pairs".to_owned(),
        "Measured in".to_owned(),
    ]);
    for (i, row) in spec.row.iter().enumerate() {
        let where_ = |what: String| bad(format!("row {} ({:?}): {what}", i + 1, row.path));
        if row.experiments.is_empty() {
            return Err(where_(
                "`experiments` is empty: name at least one result directory".into(),
            ));
        }
        let mut experiments = Vec::new();
        for dir in &row.experiments {
            experiments.push(Experiment::read(&base.join(dir)).map_err(|e| where_(e.to_string()))?);
        }
        let points = chosen_points(&experiments, &row.points).map_err(where_)?;
        let candidates = candidates(&experiments, &row.candidates).map_err(where_)?;
        table.rows.push(decide(
            row,
            &experiments,
            &points,
            &candidates,
            &spec.featured,
        ));
    }
    let mut doc = Document::default();
    doc.table(table);
    Ok(doc)
}

fn chosen_points(
    experiments: &[Experiment],
    wanted: &[String],
) -> std::result::Result<Vec<Point>, String> {
    let all: Vec<&Point> = experiments.iter().flat_map(|e| &e.points).collect();
    if let Some(unknown) = wanted.iter().find(|w| !all.iter().any(|p| &p.label == *w)) {
        let labels: Vec<&str> = all.iter().map(|p| p.label.as_str()).collect();
        return Err(format!(
            "point {unknown:?} is in none of its experiments (they hold {})",
            labels.join(", ")
        ));
    }
    Ok(all
        .into_iter()
        .filter(|p| wanted.is_empty() || wanted.contains(&p.label))
        .cloned()
        .collect())
}

fn candidates(
    experiments: &[Experiment],
    wanted: &[String],
) -> std::result::Result<Vec<String>, String> {
    let have: std::collections::BTreeSet<&str> =
        experiments.iter().flat_map(|e| e.controllers()).collect();
    if !have.contains(DEFAULT) {
        return Err(format!("no runs of `{DEFAULT}`, the reference"));
    }
    if wanted.is_empty() {
        return Ok(have
            .into_iter()
            .filter(|c| !c.starts_with("fixed") && !c.starts_with("tcp-"))
            .map(str::to_owned)
            .collect());
    }
    if let Some(missing) = wanted.iter().find(|w| !have.contains(w.as_str())) {
        return Err(format!(
            "candidate `{missing}` has no runs in its experiments"
        ));
    }
    Ok(wanted.to_vec())
}

fn pooled(
    points: &[Point],
    mine: &str,
    other: impl Fn(&Point) -> Option<String>,
    rtt: bool,
) -> Option<PairedRatio> {
    let mut pool = Pool::default();
    for point in points {
        let (Some(a), Some(b)) = (
            point.controllers.get(mine),
            other(point).and_then(|o| point.controllers.get(&o).cloned()),
        ) else {
            continue;
        };
        pool.add(if rtt {
            pairs(a, &b, |f| f.rtt_p95_ms)
        } else {
            pairs(a, &b, |f| Some(f.goodput_bps))
        });
    }
    pool.ratio()
}

fn decide(
    row: &RowSpec,
    experiments: &[Experiment],
    points: &[Point],
    candidates: &[String],
    featured: &str,
) -> Vec<Cell> {
    let over_cubic = |c: &str| pooled(points, c, |_| Some(DEFAULT.to_owned()), false);
    let measured: Vec<(&str, PairedRatio)> = candidates
        .iter()
        .filter(|c| c.as_str() != DEFAULT)
        .filter(|c| {
            points
                .iter()
                .all(|p| p.controllers.contains_key(c.as_str()))
        })
        .filter_map(|c| Some((c.as_str(), over_cubic(c)?)))
        .collect();
    let better = measured
        .iter()
        .filter(|(_, r)| r.low > 1.0)
        .max_by(|a, b| a.1.mean.total_cmp(&b.1.mean));
    // ns-3's own TCP, where a row's experiments hold it, is a reference, not the row's stack.
    let stacks: std::collections::BTreeSet<&str> = experiments
        .iter()
        .flat_map(|e| e.stacks.iter().copied())
        .filter(|s| *s != crate::stack::Stack::Tcp.name())
        .collect();
    let (use_, x_cubic) = match better {
        Some((name, r)) => (format!("`{name}`"), Cell::Ratio(*r)),
        None => {
            let best = measured.iter().max_by(|a, b| a.1.mean.total_cmp(&b.1.mean));
            let note = best.map_or_else(String::new, |(name, r)| {
                format!("none above 1; best `{name}` {}", r.cell())
            });
            ("Cubic (the default)".to_owned(), Cell::Text(note))
        }
    };
    let chosen = match better {
        Some((name, _)) => *name,
        None => DEFAULT,
    };
    let x_best = pooled(
        points,
        chosen,
        |p| p.best_baseline(chosen).map(str::to_owned),
        false,
    );
    let rtt = if chosen == DEFAULT {
        Cell::text("1")
    } else {
        Cell::ratio(pooled(points, chosen, |_| Some(DEFAULT.to_owned()), true))
    };
    vec![
        Cell::text(&row.path),
        Cell::text(stacks.into_iter().collect::<Vec<_>>().join(", ")),
        Cell::text(use_),
        x_cubic,
        Cell::ratio(x_best),
        rtt,
        Cell::ratio(over_cubic(featured)),
        Cell::text(pairs_of(points, chosen).to_string()),
        Cell::text(format!("[{}]({})", page_name(&row.page), row.page)),
    ]
}

/// How many seed pairs the chosen controller's figures pool (itself and Cubic on one seed).
fn pairs_of(points: &[Point], chosen: &str) -> usize {
    let mut pool = Pool::default();
    for point in points {
        pool.add(point.pairs(chosen, DEFAULT));
    }
    pool.len()
}

fn page_name(page: &str) -> &str {
    let file = page.rsplit('/').next().unwrap_or(page);
    let file = file.split('#').next().unwrap_or(file);
    file.strip_suffix(".md").unwrap_or(file)
}
