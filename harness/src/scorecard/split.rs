//! The development/validation split of an evaluation's cells (a cell: one point of one
//! experiment, on every stack), drawn once by a seeded shuffle and committed before any tuning,
//! so that the cells a constant is chosen on and the cells that judge it are never the same.
//!
//! The file (TOML):
//!
//! ```toml
//! seed = 52
//! validation_fraction = 0.3
//! experiments = ["ns3-chain"]
//!
//! [[cell]]
//! experiment = "ns3-chain"   # the result directory's name, whatever stack ran it
//! point = "hops=4"
//! set = "validation"          # or "development"
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use rand::SeedableRng;
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

use super::experiment::Experiment;
use crate::error::{HarnessError, Result};

/// Which set a cell belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Set {
    /// Cells that tuning may look at.
    Development,
    /// Cells that judge the tuned controller and nothing else.
    Validation,
}

impl fmt::Display for Set {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Development => "development",
            Self::Validation => "validation",
        })
    }
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CellEntry {
    experiment: String,
    point: String,
    set: Set,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SplitFile {
    seed: u64,
    validation_fraction: f64,
    experiments: Vec<String>,
    cell: Vec<CellEntry>,
}

/// A split: each cell's set.
#[derive(Clone, Debug, PartialEq)]
pub struct Split {
    /// The seed it was drawn with.
    pub seed: u64,
    /// The share of cells drawn into validation.
    pub validation_fraction: f64,
    /// The experiments (result directories or presets, by name) whose cells were drawn.
    pub experiments: Vec<String>,
    cells: BTreeMap<(String, String), Set>,
}

impl Split {
    /// Draws a split of `experiments`' cells: shuffled by a ChaCha8 generator seeded with
    /// `seed`, the first `round(fraction x cells)` (at least one of two or more) are
    /// validation cells. The same cells and seed give the same split on any machine.
    pub fn draw(experiments: &[Experiment], seed: u64, fraction: f64) -> Result<Self> {
        if !(fraction > 0.0 && fraction < 1.0) {
            return Err(HarnessError::bad_input(format!(
                "--validation {fraction}: the share of cells held out must be in (0, 1)"
            )));
        }
        let mut cells: Vec<(String, String)> = experiments
            .iter()
            .flat_map(|e| {
                e.points
                    .iter()
                    .map(move |p| (e.cell_name(), p.label.clone()))
            })
            .collect();
        cells.sort();
        cells.dedup();
        let mut names: Vec<String> = experiments.iter().map(Experiment::cell_name).collect();
        names.sort();
        names.dedup();
        if cells.len() < 2 {
            return Err(HarnessError::bad_input(format!(
                "the inputs hold {} cell(s): a split needs at least two",
                cells.len()
            )));
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        cells.shuffle(&mut rng);
        let held_out = ((fraction * cells.len() as f64).round() as usize).clamp(1, cells.len() - 1);
        let cells = cells
            .into_iter()
            .enumerate()
            .map(|(i, cell)| {
                let set = if i < held_out {
                    Set::Validation
                } else {
                    Set::Development
                };
                (cell, set)
            })
            .collect();
        Ok(Self {
            seed,
            validation_fraction: fraction,
            experiments: names,
            cells,
        })
    }

    /// Reads a split file.
    pub fn read(path: &Path) -> Result<Self> {
        let text = crate::input_file::read_text(path, crate::input_file::SCORECARD)?;
        let bad = |what: String| {
            HarnessError::bad_input(format!("split file `{}`: {what}", path.display()))
        };
        let file: SplitFile = toml::from_str(&text).map_err(|e| bad(e.to_string()))?;
        if !(file.validation_fraction > 0.0 && file.validation_fraction < 1.0) {
            return Err(bad(format!(
                "validation_fraction = {}: must be in (0, 1)",
                file.validation_fraction
            )));
        }
        let mut cells = BTreeMap::new();
        for entry in file.cell {
            let key = (entry.experiment, entry.point);
            if cells.insert(key.clone(), entry.set).is_some() {
                return Err(bad(format!(
                    "cell experiment = {:?}, point = {:?} is listed twice",
                    key.0, key.1
                )));
            }
        }
        Ok(Self {
            seed: file.seed,
            validation_fraction: file.validation_fraction,
            experiments: file.experiments,
            cells,
        })
    }

    /// The split as its file.
    pub fn to_toml(&self) -> String {
        let file = SplitFile {
            seed: self.seed,
            validation_fraction: self.validation_fraction,
            experiments: self.experiments.clone(),
            cell: self
                .cells
                .iter()
                .map(|((experiment, point), set)| CellEntry {
                    experiment: experiment.clone(),
                    point: point.clone(),
                    set: *set,
                })
                .collect(),
        };
        let body = toml::to_string(&file).unwrap_or_default();
        format!(
            "# Development and validation cells, drawn by `harness scorecard split --seed {} \
             --validation {}`: tune on development cells only; validation cells judge.\n{body}",
            self.seed, self.validation_fraction
        )
    }

    /// The set of `experiment`'s cell `point`; an error naming the cell when the split does not
    /// hold it (a split is declared for every cell it judges).
    pub fn set_of(&self, experiment: &Experiment, point: &str) -> Result<Set> {
        let key = (experiment.cell_name(), point.to_owned());
        self.cells.get(&key).copied().ok_or_else(|| {
            HarnessError::bad_input(format!(
                "the split file has no cell experiment = {:?}, point = {:?} (of `{}`): a split \
                 is declared before the runs it judges; draw a new one that holds it",
                key.0,
                key.1,
                experiment.path.display()
            ))
        })
    }

    /// How many cells each set holds.
    pub fn counts(&self) -> (usize, usize) {
        let validation = self
            .cells
            .values()
            .filter(|s| **s == Set::Validation)
            .count();
        (self.cells.len() - validation, validation)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scorecard::experiment::Point;

    fn experiment(name: &str, points: &[&str]) -> Experiment {
        Experiment {
            path: Path::new("results").join(name),
            name: name.to_owned(),
            points: points
                .iter()
                .map(|p| Point {
                    label: (*p).to_owned(),
                    ..Point::default()
                })
                .collect(),
            stacks: Default::default(),
        }
    }

    #[test]
    fn a_draw_is_seeded_round_trips_and_covers_every_cell() {
        let es = [
            experiment("a", &["1", "2", "3", "4"]),
            experiment("b", &["1", "2", "3", "4", "5", "6"]),
        ];
        let split = Split::draw(&es, 7, 0.3).unwrap();
        assert_eq!(split, Split::draw(&es, 7, 0.3).unwrap());
        assert_eq!(split.counts(), (7, 3));
        let other = Split::draw(&es, 8, 0.3).unwrap();
        assert_ne!(split.cells, other.cells, "another seed, another draw");
        let dir = std::env::temp_dir().join(format!("split-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("split.toml");
        std::fs::write(&path, split.to_toml()).unwrap();
        assert_eq!(Split::read(&path).unwrap(), split);
        for e in &es {
            for p in &e.points {
                split.set_of(e, &p.label).unwrap();
            }
        }
        let missing = split.set_of(&experiment("c", &[]), "1").unwrap_err();
        assert!(missing.to_string().contains("no cell"), "{missing}");
        std::fs::write(
            &path,
            split.to_toml()
                + "\n[[cell]]\nexperiment = \"a\"\npoint = \"1\"\nset = \"validation\"\n",
        )
        .unwrap();
        let twice = Split::read(&path).unwrap_err();
        assert!(twice.to_string().contains("listed twice"), "{twice}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_fraction_outside_the_open_interval_is_refused() {
        let es = [experiment("a", &["1", "2"])];
        for bad in [0.0, 1.0, -0.5, f64::NAN] {
            let e = Split::draw(&es, 1, bad).unwrap_err();
            assert!(e.to_string().contains("(0, 1)"), "{e}");
        }
    }
}
