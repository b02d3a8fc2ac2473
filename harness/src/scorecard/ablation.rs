//! The ablation table: for each mechanism switched off and each point, the seed-paired goodput
//! of the controller without it over the controller as it is. Below 1, the mechanism helps
//! there.
//!
//! The layout is the evaluation's (`scripts/manet-evaluation.sh`): the full controller's sweeps
//! in `ROOT/STACK/PRESET`, each mechanism's in `ROOT/ablation/KNOB/PRESET`.

use std::path::Path;

use super::document::{Cell, Document, Table};
use super::experiment::{Experiment, ratio};
use crate::error::{HarnessError, Result};

fn subdirectories(dir: &Path) -> Result<Vec<String>> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        HarnessError::bad_input(format!("cannot read directory `{}`: {e}", dir.display()))
    })?;
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    Ok(names)
}

/// The ablation of `controller` on `stack` under `root`.
pub fn ablation(root: &Path, stack: &str, controller: &str) -> Result<Document> {
    let ablated_root = root.join("ablation");
    if !ablated_root.is_dir() {
        return Err(HarnessError::bad_input(format!(
            "`{}` is not a directory: give the evaluation's results (a directory holding \
             ablation/KNOB/PRESET and {stack}/PRESET)",
            ablated_root.display()
        )));
    }
    let knobs = subdirectories(&ablated_root)?;
    if knobs.is_empty() {
        return Err(HarnessError::bad_input(format!(
            "`{}` holds no ablation",
            ablated_root.display()
        )));
    }
    let mut presets: Vec<String> = Vec::new();
    for knob in &knobs {
        presets.extend(subdirectories(&ablated_root.join(knob))?);
    }
    presets.sort();
    presets.dedup();
    let mut columns = vec!["preset".to_owned(), "point".to_owned()];
    columns.extend(knobs.iter().map(|k| format!("without {k}")));
    let mut table = Table::new(columns);
    for preset in &presets {
        let full = Experiment::read(&root.join(stack).join(preset))?;
        full.require(&[controller])?;
        let mut columns: Vec<Option<Experiment>> = Vec::new();
        for knob in &knobs {
            let dir = ablated_root.join(knob).join(preset);
            // A mechanism not ablated on this preset has no cell, not an empty one.
            columns.push(if dir.is_dir() {
                Some(Experiment::read(&dir)?)
            } else {
                None
            });
        }
        for point in &full.points {
            let Some(mine) = point.controllers.get(controller) else {
                continue;
            };
            let mut row = vec![Cell::text(preset), Cell::text(&point.label)];
            for ablated in &columns {
                let cell = ablated.as_ref().and_then(|e| {
                    let off = e.points.iter().find(|p| p.label == point.label)?;
                    // The ablated sweep runs the controller with one knob set: any name.
                    let runs = off.controllers.values().next()?;
                    ratio(&super::experiment::pairs(runs, mine, |f| {
                        Some(f.goodput_bps)
                    }))
                });
                row.push(Cell::ratio(cell));
            }
            table.rows.push(row);
        }
    }
    let mut doc = Document::default();
    doc.table(table);
    Ok(doc)
}
