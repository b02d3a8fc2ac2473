//! `AbraConfig`: the paper's knobs, declared once.

use crate::Abra;
use cc_core::{ConfigError, Range};
use std::time::Duration;

/// Range of the starting smoothed-RTT bounds (a minute: far beyond any path).
const SRTT_BOUND: Range = Range::Duration {
    min: Duration::ZERO,
    max: AbraConfig::MAX_SRTT_BOUND,
};

cc_core::port_config! {
    /// Configuration of [`Abra`].
    ///
    /// `Default` is the paper's: NewReno halving, `min_srtt` and `max_srtt` starting at 0.1 s
    /// and 0.6 s (section 4), and ABRA's restore to half the saved window and a quarter of the
    /// saved ssthresh.
    ///
    /// ```
    /// use std::time::Duration;
    /// let mut abra = cc_abra::AbraConfig::default();
    /// abra.set_initial_srtt_range(Duration::from_millis(50), Duration::from_millis(400))?;
    /// let mut transport = quinn::TransportConfig::default();
    /// abra.install(&mut transport);
    /// # Ok::<(), cc_abra::ConfigError>(())
    /// ```
    pub struct AbraConfig for Abra {
        name: "abra",
        summary: "ABRA NewReno: state save/restore around route failures (cc-abra)",
        revision: 1,
        check: check_srtt_range,
        knobs: {
            /// Initial window in datagrams (RFC 9002 section 7.2 allows
            /// `min(10 x mtu, max(14720, 2 x mtu))`; quinn's NewReno uses 14720 bytes).
            initial_window_packets: u64 = 10, Range::INITIAL_WINDOW_PACKETS;
            /// ssthresh multiplier on a loss (NewReno, section 3 step 4:
            /// `SS_threshold = cwnd / 2`).
            loss_reduction_factor: f64 = 0.5, Range::UnitFactor;
            /// The restored window as a fraction of the window saved at persistent congestion
            /// (ABRA's "CWND ... divided by 2").
            restore_cwnd_factor: f64 = 0.5, Range::UnitFactor;
            /// The restored ssthresh as a fraction of the ssthresh saved at persistent
            /// congestion (ABRA's "SSThr ... divided by 4").
            restore_ssthresh_factor: f64 = 0.25, Range::UnitFactor;
            /// Starting value of `min_srtt`, which the smoothed RTTs seen then widen (section
            /// 4). `initial_min_srtt < initial_max_srtt`.
            #[serde(with = "humantime_serde")]
            initial_min_srtt: Duration = Duration::from_millis(100), SRTT_BOUND;
            /// Starting value of `max_srtt` (section 4).
            #[serde(with = "humantime_serde")]
            initial_max_srtt: Duration = Duration::from_millis(600), SRTT_BOUND;
        }
    }
}

/// The starting bounds must be ordered, the maximum within [`AbraConfig::MAX_SRTT_BOUND`].
fn check_srtt_range(c: &AbraConfig) -> Result<(), ConfigError> {
    let (min, max) = (c.initial_min_srtt(), c.initial_max_srtt());
    if min >= max || max > AbraConfig::MAX_SRTT_BOUND {
        return Err(ConfigError::new(
            "initial_srtt_range",
            format!("{min:?}..{max:?}"),
            "0 <= min < max <= 60 s",
        ));
    }
    Ok(())
}

impl AbraConfig {
    /// Longest smoothed RTT accepted as a starting bound (a minute: far beyond any path).
    pub const MAX_SRTT_BOUND: Duration = Duration::from_secs(60);

    /// Sets the starting values of `min_srtt` and `max_srtt` at once (one at a time, an
    /// intermediate pair could be out of order). Allowed: `0 <= min < max <= 60 s`; the error
    /// names `initial_srtt_range` and the configuration is then unchanged.
    pub fn set_initial_srtt_range(
        &mut self,
        min: Duration,
        max: Duration,
    ) -> Result<&mut Self, ConfigError> {
        let mut next = self.clone();
        next.initial_min_srtt = min;
        next.initial_max_srtt = max;
        check_srtt_range(&next)?;
        cc_core::PortConfig::validate(&next)?;
        *self = next;
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_settings_are_named_errors() {
        let c = AbraConfig::default();
        let ms = Duration::from_millis;
        for (field, result) in [
            (
                "loss_reduction_factor",
                c.clone().set_loss_reduction_factor(0.0).map(|_| ()),
            ),
            (
                "restore_cwnd_factor",
                c.clone().set_restore_cwnd_factor(1.5).map(|_| ()),
            ),
            (
                "restore_ssthresh_factor",
                c.clone().set_restore_ssthresh_factor(f64::NAN).map(|_| ()),
            ),
            (
                "initial_window_packets",
                c.clone().set_initial_window_packets(1).map(|_| ()),
            ),
            (
                "initial_srtt_range",
                c.clone()
                    .set_initial_srtt_range(ms(600), ms(100))
                    .map(|_| ()),
            ),
            (
                "initial_srtt_range",
                c.clone()
                    .set_initial_srtt_range(ms(100), ms(100))
                    .map(|_| ()),
            ),
            (
                "initial_srtt_range",
                c.clone()
                    .set_initial_srtt_range(ms(0), ms(61_000))
                    .map(|_| ()),
            ),
        ] {
            let err = result.unwrap_err();
            assert_eq!(err.field, field);
            assert!(err.to_string().contains(field), "{err}");
        }
        let mut ok = c.clone();
        ok.set_initial_srtt_range(ms(0), ms(1)).unwrap();
        assert_eq!(
            (ok.initial_min_srtt(), ok.initial_max_srtt()),
            (ms(0), ms(1))
        );
    }
}
