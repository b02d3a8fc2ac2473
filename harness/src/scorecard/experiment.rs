//! One experiment read for comparison: a sweep's result directory, each run reduced to the
//! figures of its controller's own flows, grouped by point, controller and seed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::error::{HarnessError, Result};
use crate::metrics::RunResult;
use crate::report::paired::PairedRatio;

/// The stacks' own controllers: the baselines every comparison chooses its best from.
pub const BASELINES: [&str; 4] = ["newreno", "cubic", "bbr", "bbr3"];

/// The stack's default controller, what `x Cubic` compares with.
pub const DEFAULT: &str = "cubic";

/// What one run says about its controller.
#[derive(Clone, Debug, PartialEq)]
pub struct Figures {
    /// The run's id: two points holding the same run are one measurement.
    pub run_id: String,
    /// Its controller's goodput, bits per second: in a mixed run (`[[flow]]`, `--mix`) its
    /// own flow's, the first; otherwise the run's, all of its flows together.
    pub goodput_bps: f64,
    /// Mean of its own flows' p95 RTTs, when they have one.
    pub rtt_p95_ms: Option<f64>,
    /// Its own flows' lost packets over sent packets.
    pub loss_rate: f64,
    /// In a mixed run, the other flows' mean goodput.
    pub others_bps: Option<f64>,
    /// Jain's index over all of the run's flows.
    pub jain: f64,
    /// The run's goodput, bits per second: all of its flows together, whatever their
    /// controllers.
    pub total_bps: f64,
}

impl Figures {
    /// The figures of `run`. A mixed run (its flows name their controllers: `run,cubic`) is
    /// read as its first flow, so that it compares with the same flow of Cubic's run in the
    /// same mix (`cubic,cubic`), not with that run's flows together.
    pub fn of(run: &RunResult) -> Self {
        let mixed = run.flows.iter().any(|f| f.controller.is_some());
        let own = if mixed {
            &run.flows[..run.flows.len().min(1)]
        } else {
            &run.flows[..]
        };
        let goodput_bps = match (mixed, own.first()) {
            (true, Some(first)) => first.goodput_bps,
            _ => run.goodput_bps,
        };
        let rtts: Vec<f64> = own.iter().filter_map(|f| f.rtt_p95_ms).collect();
        let sent: u64 = own.iter().map(|f| f.packets_sent).sum();
        let lost: u64 = own.iter().map(|f| f.packets_lost).sum();
        let others: Vec<f64> = run
            .flows
            .iter()
            .skip(own.len())
            .map(|f| f.goodput_bps)
            .collect();
        Self {
            run_id: run.run_id.clone(),
            goodput_bps,
            rtt_p95_ms: mean(&rtts),
            loss_rate: if sent > 0 {
                lost as f64 / sent as f64
            } else {
                0.0
            },
            others_bps: mean(&others),
            jain: run.jain,
            total_bps: run.goodput_bps,
        }
    }
}

/// The mean of `values`, `None` for none.
pub fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// One controller's runs at one point, by seed.
pub type Seeds = BTreeMap<u64, Figures>;

/// One point of an experiment.
#[derive(Clone, Debug, Default)]
pub struct Point {
    /// The point's label (`hops=4`).
    pub label: String,
    /// Controller name (the label's first word: `manet`, `fixed{packets=2}`) -> its runs.
    pub controllers: BTreeMap<String, Seeds>,
    /// Whether the point ran on ns-3.
    pub ns3: bool,
}

impl Point {
    /// The baseline with the highest mean goodput here, other than `except`.
    pub fn best_baseline(&self, except: &str) -> Option<&str> {
        BASELINES
            .iter()
            .filter(|b| **b != except)
            .filter_map(|b| Some((*b, mean_goodput(self.controllers.get(*b)?)?)))
            .fold(None, |best: Option<(&str, f64)>, (b, g)| match best {
                Some((_, top)) if top >= g => best,
                _ => Some((b, g)),
            })
            .map(|(b, _)| b)
    }

    /// The seed-paired goodputs of `mine` over `other` here (empty when either did not run).
    pub fn pairs(&self, mine: &str, other: &str) -> Vec<Pair> {
        self.pairs_of(mine, other, |f| Some(f.goodput_bps))
    }

    /// The seed-paired `figure`s of `mine` over `other` here (empty when either did not run).
    pub fn pairs_of(
        &self,
        mine: &str,
        other: &str,
        figure: impl Fn(&Figures) -> Option<f64>,
    ) -> Vec<Pair> {
        match (self.controllers.get(mine), self.controllers.get(other)) {
            (Some(a), Some(b)) => pairs(a, b, figure),
            _ => Vec::new(),
        }
    }
}

/// The mean goodput of `seeds`' runs.
pub fn mean_goodput(seeds: &Seeds) -> Option<f64> {
    mean(&seeds.values().map(|f| f.goodput_bps).collect::<Vec<_>>())
}

/// Two runs with one seed: a figure of each, and which runs they are.
#[derive(Clone, Debug, PartialEq)]
pub struct Pair {
    /// The figure of the controller compared.
    pub mine: f64,
    /// The same figure of the one it is compared with.
    pub other: f64,
    /// The two runs' ids.
    pub runs: (String, String),
}

/// `figure` of `mine` and of `other` on each seed both ran.
pub fn pairs(mine: &Seeds, other: &Seeds, figure: impl Fn(&Figures) -> Option<f64>) -> Vec<Pair> {
    mine.iter()
        .filter_map(|(seed, a)| {
            let b = other.get(seed)?;
            Some(Pair {
                mine: figure(a)?,
                other: figure(b)?,
                runs: (a.run_id.clone(), b.run_id.clone()),
            })
        })
        .collect()
}

/// The paired ratio of `pairs`.
pub fn ratio(pairs: &[Pair]) -> Option<PairedRatio> {
    let values: Vec<(f64, f64)> = pairs.iter().map(|p| (p.mine, p.other)).collect();
    PairedRatio::of(&values)
}

/// One result directory, read and checked as `harness merge` reads it.
#[derive(Clone, Debug)]
pub struct Experiment {
    /// The directory.
    pub path: PathBuf,
    /// Its name in tables: the last two components of its path (`quinn/ns3-chain`).
    pub name: String,
    /// Its points, in grid order.
    pub points: Vec<Point>,
    /// The sending stacks of its runs (`quinn`, `noq`).
    pub stacks: std::collections::BTreeSet<&'static str>,
}

impl Experiment {
    /// Reads the result files of `dir`. Edited, stale, torn-beyond-repair files and grids with
    /// missing or duplicated runs are refused, as `harness merge` refuses them: a comparison
    /// from half a sweep would look like a finding.
    pub fn read(dir: &Path) -> Result<Self> {
        if !dir.is_dir() {
            return Err(HarnessError::bad_input(format!(
                "`{}` is not a directory: give a `harness sweep --out` directory",
                dir.display()
            )));
        }
        let files = crate::batch::merge::collect_files(&[dir.to_path_buf()])?;
        let merged = crate::batch::merge::merge(&files, false).map_err(|e| match e {
            HarnessError::Incomplete(message) => {
                let problem = message.split("\nnot merging").next().unwrap_or(&message);
                HarnessError::bad_input(format!(
                    "`{}` is not a complete sweep: {problem}\na scorecard reads complete sweeps \
                     only: resume the sweep (rerun its command) first",
                    dir.display()
                ))
            }
            other => other,
        })?;
        Ok(Self::from_runs(
            dir,
            &merged.header.meta.points,
            &merged.runs,
        ))
    }

    /// An experiment of `runs`, its points in the order of `order` (then first seen).
    pub fn from_runs(dir: &Path, order: &[String], runs: &[RunResult]) -> Self {
        let mut points: Vec<Point> = order
            .iter()
            .map(|label| Point {
                label: label.clone(),
                ..Point::default()
            })
            .collect();
        let mut stacks = std::collections::BTreeSet::new();
        for run in runs {
            stacks.insert(run.sender.name());
            let index = match points.iter().position(|p| p.label == run.point) {
                Some(i) => i,
                None => {
                    points.push(Point {
                        label: run.point.clone(),
                        ..Point::default()
                    });
                    points.len() - 1
                }
            };
            let point = &mut points[index];
            point.ns3 |= run.backend == crate::scenario::backend::BackendKind::Ns3;
            point
                .controllers
                .entry(controller_name(&run.controller).to_owned())
                .or_default()
                .insert(run.seed, Figures::of(run));
        }
        points.retain(|p| !p.controllers.is_empty());
        Self {
            path: dir.to_path_buf(),
            name: display_name(dir),
            points,
            stacks,
        }
    }

    /// The points of a preset's grid, with no runs: the cells a split is declared over before
    /// anything has run (the sweep of preset `NAME` goes into a directory named `NAME`).
    pub fn of_preset(name: &str) -> Result<Self> {
        let preset = crate::presets::lookup(name)?;
        let source = crate::scenario::Source {
            name: format!("preset {}", preset.name),
            default_name: preset.name.to_owned(),
            text: preset.text.to_owned(),
            dir: None,
        };
        let grid = crate::scenario::load(&source, &[])?;
        Ok(Self {
            path: PathBuf::from(preset.name),
            name: preset.name.to_owned(),
            points: grid
                .points
                .iter()
                .map(|p| Point {
                    label: p.point.clone(),
                    ..Point::default()
                })
                .collect(),
            stacks: Default::default(),
        })
    }

    /// Every controller name of the experiment.
    pub fn controllers(&self) -> std::collections::BTreeSet<&str> {
        self.points
            .iter()
            .flat_map(|p| p.controllers.keys().map(String::as_str))
            .collect()
    }

    /// Refuses `wanted` names the experiment has no runs of (a typo, or a sweep without it).
    pub fn require(&self, wanted: &[&str]) -> Result<()> {
        let have = self.controllers();
        let missing: Vec<&str> = wanted
            .iter()
            .copied()
            .filter(|w| !have.contains(w))
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        Err(HarnessError::bad_input(format!(
            "{}: no runs of that controller in `{}` (it holds {})",
            missing.join(", "),
            self.path.display(),
            have.into_iter().collect::<Vec<_>>().join(", ")
        )))
    }

    /// The label `controller`'s runs carry here: `controller` itself, or else the one
    /// controller of that name with knobs set (`manet{rate_check=false}`, an ablation's sweep).
    pub fn scored(&self, controller: &str) -> Result<String> {
        let have = self.controllers();
        if have.contains(controller) {
            return Ok(controller.to_owned());
        }
        let prefix = format!("{controller}{{");
        let mut with_knobs = have.iter().filter(|c| c.starts_with(&prefix));
        match (with_knobs.next(), with_knobs.next()) {
            (Some(only), None) => Ok((*only).to_owned()),
            _ => self.require(&[controller]).map(|()| controller.to_owned()),
        }
    }

    /// The directory's own name (`ns3-chain`): what a split file names a cell by.
    pub fn cell_name(&self) -> String {
        self.path
            .file_name()
            .map_or_else(|| self.name.clone(), |n| n.to_string_lossy().into_owned())
    }
}

/// A controller label's name: its first word (`manet` of `manet {bdp_cap=false}`).
pub fn controller_name(label: &str) -> &str {
    label.split(' ').next().unwrap_or(label)
}

fn display_name(dir: &Path) -> String {
    let parts: Vec<String> = dir
        .components()
        .filter_map(|c| match c {
            std::path::Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    let from = parts.len().saturating_sub(2);
    if parts.is_empty() {
        dir.display().to_string()
    } else {
        parts[from..].join("/")
    }
}
