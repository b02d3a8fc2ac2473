//! The JSON report: the grid, the summary rows and every run, in grid order. Deterministic: no
//! wall-clock times, no hash-map ordering; the same seeds give the same bytes.

use std::path::Path;

use serde::Serialize;

use super::{ReportMeta, SummaryRow};
use crate::error::{HarnessError, Result};
use crate::metrics::RunResult;

#[derive(Serialize)]
struct Report<'a> {
    meta: &'a ReportMeta,
    summary: &'a [SummaryRow],
    runs: &'a [RunResult],
}

/// The report as pretty-printed JSON.
pub fn render(meta: &ReportMeta, summary: &[SummaryRow], runs: &[RunResult]) -> String {
    let mut text = serde_json::to_string_pretty(&Report {
        meta,
        summary,
        runs,
    })
    .unwrap_or_default();
    text.push('\n');
    text
}

/// Writes the report to `path`.
pub fn write(
    path: &Path,
    meta: &ReportMeta,
    summary: &[SummaryRow],
    runs: &[RunResult],
) -> Result<()> {
    std::fs::write(path, render(meta, summary, runs)).map_err(|e| HarnessError::output(path, e))
}
