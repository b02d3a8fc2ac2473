//! Jain's fairness index of each run's flows (`(sum x)^2 / (n sum x^2)` over their goodputs;
//! 1 for equal shares), mean over seeds, per point and controller; and, where the stack's
//! Cubic ran beside the scored controller, what all the flows carried together against Cubic's.

use super::document::{Cell, Document, Table};
use super::experiment::{DEFAULT, Experiment, mean, ratio};
use crate::error::Result;

/// Issue 34's target for several flows of the scored controller on one bottleneck.
pub const TARGET: f64 = 0.95;

/// Per point of each experiment, each controller's mean Jain index over seeds (the smallest in
/// brackets), and whether `controller`'s mean reaches [`TARGET`] (in an ablation's sweep, the
/// controller of that name with its knob set: [`Experiment::scored`]); where the experiment
/// also ran the stack's Cubic ([`DEFAULT`]), the seed-paired ratio of the runs' goodputs, all
/// flows together, over Cubic's (issue 52: several flows of the composite carry at least what
/// as many Cubic flows carry).
pub fn jain(experiments: &[Experiment], controller: &str) -> Result<Document> {
    let mut doc = Document::default();
    for experiment in experiments {
        let scored = experiment.scored(controller)?;
        let controller = scored.as_str();
        let names: Vec<&str> = experiment.controllers().into_iter().collect();
        let mut columns = vec!["experiment".to_owned(), "point".to_owned()];
        columns.extend(names.iter().map(|c| format!("{c}: Jain (min over seeds)")));
        columns.push(format!("{controller} >= {TARGET}"));
        let beside_cubic = controller != DEFAULT && names.contains(&DEFAULT);
        if beside_cubic {
            columns.push(format!("{controller} x {DEFAULT}, all flows"));
        }
        let mut table = Table::new(columns);
        for point in &experiment.points {
            let mut row = vec![Cell::text(&experiment.name), Cell::text(&point.label)];
            let index = |c: &str| -> Vec<f64> {
                point
                    .controllers
                    .get(c)
                    .map(|s| s.values().map(|f| f.jain).collect())
                    .unwrap_or_default()
            };
            for c in &names {
                let values = index(c);
                let min = values.iter().copied().fold(f64::INFINITY, f64::min);
                row.push(Cell::text(
                    mean(&values).map_or_else(String::new, |m| format!("{m:.3} ({min:.3})")),
                ));
            }
            row.push(Cell::text(
                mean(&index(controller)).map_or_else(String::new, |m| {
                    if m >= TARGET { "met" } else { "MISSED" }.to_owned()
                }),
            ));
            if beside_cubic {
                let totals = point.pairs_of(controller, DEFAULT, |f| Some(f.total_bps));
                row.push(Cell::ratio(ratio(&totals)));
            }
            table.rows.push(row);
        }
        doc.table(table);
    }
    Ok(doc)
}
