//! Comparisons of controllers from result files: what `harness scorecard` prints.
//!
//! Every comparison is seed-paired ([`crate::report::paired`]): runs of two controllers with
//! the same seed see the same network, so the ratio of their goodputs on that seed carries far
//! less noise than a ratio of means. The result files are read and checked as `harness merge`
//! reads them: edited, stale or incomplete sweeps are refused.
//!
//! - [`targets`]: a controller against the stack's Cubic and the best baseline per point, the
//!   composite's targets, pooled figures (each pair of runs once, [`pool`]);
//! - [`against`]: any controllers over any one of them;
//! - [`jain`]: fairness among a run's flows;
//! - [`ablation`]: each mechanism switched off against the whole controller;
//! - [`decision`]: the README's decision table;
//! - [`split`]: the development and validation cells of an evaluation;
//! - [`throughput_delay`]: the throughput-delay picture of an experiment;
//! - [`document`]: tables as Markdown or JSON; [`experiment`]: a result directory, read.

pub mod ablation;
pub mod against;
pub mod decision;
pub mod document;
pub mod experiment;
pub mod jain;
pub mod pool;
pub mod split;
pub mod targets;
pub mod throughput_delay;

#[cfg(test)]
mod tests;
