//! Paired comparisons over seeds. Runs of two controllers with the same seed see the same
//! network (netsim's link draws and ns-3's node movement come from the run seed, not from the
//! traffic), so the per-seed goodput ratio removes most of the seed-to-seed spread that a
//! ratio of means keeps: a 25-source MANET's goodput varies by tens of percent from seed to
//! seed, while the ratio of two controllers on one seed varies far less.

use serde::{Deserialize, Serialize};

use crate::metrics::Spread;

/// The geometric mean of per-seed goodput ratios (controller over baseline) with its 95%
/// confidence interval (Student's t on the log ratios).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairedRatio {
    /// Geometric mean of the ratios.
    pub mean: f64,
    /// Lower end of the 95% confidence interval.
    pub low: f64,
    /// Upper end of the 95% confidence interval.
    pub high: f64,
    /// Seeds compared (those where both goodputs are above 0).
    pub seeds: usize,
}

impl PairedRatio {
    /// From `(controller, baseline)` goodputs of the same seeds. Seeds where either goodput is
    /// 0 (no ratio) are left out; `None` with fewer than two seeds left.
    pub fn of(pairs: &[(f64, f64)]) -> Option<Self> {
        let logs: Vec<f64> = pairs
            .iter()
            .filter(|(a, b)| *a > 0.0 && *b > 0.0 && a.is_finite() && b.is_finite())
            .map(|(a, b)| (a / b).ln())
            .collect();
        if logs.len() < 2 {
            return None;
        }
        let spread = Spread::of(&logs)?;
        let half = ci95_half_width(&spread);
        Some(Self {
            mean: spread.mean.exp(),
            low: (spread.mean - half).exp(),
            high: (spread.mean + half).exp(),
            seeds: logs.len(),
        })
    }

    /// Whether the interval excludes 1: the difference exceeds the seed-to-seed spread.
    pub fn excludes_one(&self) -> bool {
        self.low > 1.0 || self.high < 1.0
    }

    /// `1.17 [1.05, 1.30]`, with a `*` when the interval excludes 1.
    pub fn cell(&self) -> String {
        format!(
            "{:.2} [{:.2}, {:.2}]{}",
            self.mean,
            self.low,
            self.high,
            if self.excludes_one() { "*" } else { "" }
        )
    }
}

/// The 95% confidence interval `(low, high)` of `spread`'s mean (the mean alone for one value).
pub fn ci95(spread: &Spread) -> (f64, f64) {
    let half = ci95_half_width(spread);
    (spread.mean - half, spread.mean + half)
}

/// Half the width of the 95% confidence interval of `spread`'s mean (0 for one value).
fn ci95_half_width(spread: &Spread) -> f64 {
    if spread.n < 2 {
        return 0.0;
    }
    t975(spread.n - 1) * spread.sd / (spread.n as f64).sqrt()
}

/// The 97.5% quantile of Student's t with `df` degrees of freedom (two-sided 95%): exact to
/// three decimals from a standard table up to 30, then the normal quantile plus the first
/// term of its Cornish-Fisher expansion.
fn t975(df: usize) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => TABLE[df - 1],
        _ => {
            let z: f64 = 1.959_964;
            z + (z.powi(3) + z) / (4.0 * df as f64)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_constant_ratio_has_no_width_and_noise_widens_it() {
        let same: Vec<(f64, f64)> = (1..=5).map(|i| (2.0 * i as f64, i as f64)).collect();
        let r = PairedRatio::of(&same).unwrap();
        assert!((r.mean - 2.0).abs() < 1e-12 && (r.low - 2.0).abs() < 1e-12);
        assert!(r.excludes_one());
        let noisy = [(1.1, 1.0), (0.9, 1.0), (1.2, 1.0), (0.8, 1.0)];
        let r = PairedRatio::of(&noisy).unwrap();
        assert!(r.low < 1.0 && r.high > 1.0 && !r.excludes_one(), "{r:?}");
        assert_eq!(r.seeds, 4);
    }

    #[test]
    fn zero_goodputs_are_left_out_and_one_seed_is_not_enough() {
        assert_eq!(PairedRatio::of(&[(1.0, 1.0), (0.0, 1.0)]), None);
        let r = PairedRatio::of(&[(1.0, 1.0), (2.0, 0.0), (1.5, 1.0)]).unwrap();
        assert_eq!(r.seeds, 2);
    }

    #[test]
    fn t_quantiles_fall_towards_the_normal() {
        assert_eq!(t975(1), 12.706);
        assert_eq!(t975(30), 2.042);
        assert!((t975(60) - 2.000).abs() < 0.003, "{}", t975(60));
        assert!((t975(120) - 1.980).abs() < 0.002, "{}", t975(120));
    }
}
