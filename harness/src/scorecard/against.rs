//! Seed-paired goodput ratios of any controllers over any one of them, per point: e.g. the
//! ports over ns-3's own `tcp-newreno`.

use super::document::{Cell, Document, Table};
use super::experiment::{Experiment, mean_goodput};
use crate::error::Result;

/// Per point of each experiment: `baseline`'s mean goodput and each of `controllers`' paired
/// ratio over it (none given: every other controller of the experiment, in name order).
pub fn against(
    experiments: &[Experiment],
    baseline: &str,
    controllers: &[String],
) -> Result<Document> {
    let mut doc = Document::default();
    for experiment in experiments {
        let mut wanted: Vec<&str> = vec![baseline];
        wanted.extend(controllers.iter().map(String::as_str));
        experiment.require(&wanted)?;
        let all: Vec<String>;
        let controllers = if controllers.is_empty() {
            all = experiment
                .controllers()
                .into_iter()
                .filter(|c| *c != baseline)
                .map(str::to_owned)
                .collect();
            &all
        } else {
            controllers
        };
        let mut columns = vec![
            "experiment".to_owned(),
            "point".to_owned(),
            format!("{baseline} Mb/s"),
        ];
        columns.extend(controllers.iter().map(|c| format!("{c} x {baseline}")));
        let mut table = Table::new(columns);
        for point in &experiment.points {
            let Some(base) = point.controllers.get(baseline) else {
                continue;
            };
            let mut row = vec![
                Cell::text(&experiment.name),
                Cell::text(&point.label),
                Cell::text(
                    mean_goodput(base).map_or_else(String::new, |g| format!("{:.3}", g / 1e6)),
                ),
            ];
            for c in controllers {
                row.push(Cell::ratio(super::experiment::ratio(
                    &point.pairs(c, baseline),
                )));
            }
            table.rows.push(row);
        }
        doc.table(table);
    }
    Ok(doc)
}
