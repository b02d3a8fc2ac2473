//! `AbraConfig`: the paper's knobs, validated, and quinn's controller factory.

use crate::Abra;
use cc_core::{
    ConfigError, QuinnAdapter, SignalConfig, check_initial_window_packets, check_unit_factor,
};
use quinn_proto::congestion::{Controller, ControllerFactory};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Configuration of [`Abra`], and the factory quinn builds it from.
///
/// `Default` is the paper's: NewReno halving, `min_srtt` and `max_srtt` starting at 0.1 s and
/// 0.6 s (section 4), and ABRA's restore to half the saved window and a quarter of the saved
/// ssthresh.
///
/// ```
/// use std::sync::Arc;
/// use std::time::Duration;
/// let mut abra = cc_abra::AbraConfig::default();
/// abra.initial_srtt_range(Duration::from_millis(50), Duration::from_millis(400))?;
/// let mut transport = quinn::TransportConfig::default();
/// transport.congestion_controller_factory(Arc::new(abra));
/// # Ok::<(), cc_core::ConfigError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct AbraConfig {
    /// Initial window, datagrams.
    initial_window_packets: u64,
    /// ssthresh multiplier on a loss, in `(0, 1]`.
    loss_reduction_factor: f64,
    /// Restored window as a fraction of the saved one, in `(0, 1]`.
    restore_cwnd_factor: f64,
    /// Restored ssthresh as a fraction of the saved one, in `(0, 1]`.
    restore_ssthresh_factor: f64,
    /// Starting value of `min_srtt`.
    initial_min_srtt: Duration,
    /// Starting value of `max_srtt`.
    initial_max_srtt: Duration,
    /// Loss-signal classification settings.
    signal: SignalConfig,
}

impl AbraConfig {
    /// Longest smoothed RTT accepted as a starting bound (a minute: far beyond any path).
    pub const MAX_SRTT_BOUND: Duration = Duration::from_secs(60);

    /// Initial window in datagrams. Default 10 (RFC 9002 section 7.2 allows
    /// `min(10 x mtu, max(14720, 2 x mtu))`; quinn's NewReno uses 14720 bytes). Allowed: 2 to 1000.
    pub fn initial_window_packets(&mut self, value: u64) -> Result<&mut Self, ConfigError> {
        self.initial_window_packets = check_initial_window_packets(value)?;
        Ok(self)
    }

    /// ssthresh multiplier on a loss (NewReno, section 3 step 4: `SS_threshold = cwnd / 2`).
    /// Default 1/2. Allowed: `(0, 1]`.
    pub fn loss_reduction_factor(&mut self, value: f64) -> Result<&mut Self, ConfigError> {
        self.loss_reduction_factor = check_unit_factor("loss_reduction_factor", value)?;
        Ok(self)
    }

    /// The restored window as a fraction of the window saved at persistent congestion.
    /// Default 1/2 (ABRA's "CWND ... divided by 2"). Allowed: `(0, 1]`.
    pub fn restore_cwnd_factor(&mut self, value: f64) -> Result<&mut Self, ConfigError> {
        self.restore_cwnd_factor = check_unit_factor("restore_cwnd_factor", value)?;
        Ok(self)
    }

    /// The restored ssthresh as a fraction of the ssthresh saved at persistent congestion.
    /// Default 1/4 (ABRA's "SSThr ... divided by 4"). Allowed: `(0, 1]`.
    pub fn restore_ssthresh_factor(&mut self, value: f64) -> Result<&mut Self, ConfigError> {
        self.restore_ssthresh_factor = check_unit_factor("restore_ssthresh_factor", value)?;
        Ok(self)
    }

    /// The starting values of `min_srtt` and `max_srtt`, which the smoothed RTTs seen then
    /// widen. Default 0.1 s and 0.6 s (section 4). Allowed: `0 <= min < max <= 60 s`; the
    /// error names `initial_srtt_range`.
    pub fn initial_srtt_range(
        &mut self,
        min: Duration,
        max: Duration,
    ) -> Result<&mut Self, ConfigError> {
        if min >= max || max > Self::MAX_SRTT_BOUND {
            return Err(ConfigError::new(
                "initial_srtt_range",
                format!("{min:?}..{max:?}"),
                "0 <= min < max <= 60 s",
            ));
        }
        self.initial_min_srtt = min;
        self.initial_max_srtt = max;
        Ok(self)
    }

    /// Loss-signal settings; their thresholds must match the `TransportConfig`.
    pub fn signal(&mut self, value: SignalConfig) -> &mut Self {
        self.signal = value;
        self
    }

    /// Initial window, datagrams.
    pub fn get_initial_window_packets(&self) -> u64 {
        self.initial_window_packets
    }

    /// ssthresh multiplier on a loss.
    pub fn get_loss_reduction_factor(&self) -> f64 {
        self.loss_reduction_factor
    }

    /// Restored window as a fraction of the saved one.
    pub fn get_restore_cwnd_factor(&self) -> f64 {
        self.restore_cwnd_factor
    }

    /// Restored ssthresh as a fraction of the saved one.
    pub fn get_restore_ssthresh_factor(&self) -> f64 {
        self.restore_ssthresh_factor
    }

    /// Starting value of `min_srtt`.
    pub fn get_initial_min_srtt(&self) -> Duration {
        self.initial_min_srtt
    }

    /// Starting value of `max_srtt`.
    pub fn get_initial_max_srtt(&self) -> Duration {
        self.initial_max_srtt
    }

    /// Loss-signal settings.
    pub fn get_signal(&self) -> &SignalConfig {
        &self.signal
    }
}

impl Default for AbraConfig {
    /// 10 initial datagrams, NewReno's 1/2, ABRA's 1/2 and 1/4 restore, `min_srtt` 0.1 s and
    /// `max_srtt` 0.6 s, RFC 9002's loss thresholds.
    fn default() -> Self {
        Self {
            initial_window_packets: 10,
            loss_reduction_factor: 0.5,
            restore_cwnd_factor: 0.5,
            restore_ssthresh_factor: 0.25,
            initial_min_srtt: Duration::from_millis(100),
            initial_max_srtt: Duration::from_millis(600),
            signal: SignalConfig::default(),
        }
    }
}

impl ControllerFactory for AbraConfig {
    fn build(self: Arc<Self>, _now: Instant, current_mtu: u16) -> Box<dyn Controller> {
        let signal = self.signal.clone();
        Box::new(QuinnAdapter::new(
            Abra::new((*self).clone(), current_mtu),
            signal,
        ))
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
                c.clone().loss_reduction_factor(0.0).map(|_| ()),
            ),
            (
                "restore_cwnd_factor",
                c.clone().restore_cwnd_factor(1.5).map(|_| ()),
            ),
            (
                "restore_ssthresh_factor",
                c.clone().restore_ssthresh_factor(f64::NAN).map(|_| ()),
            ),
            (
                "initial_window_packets",
                c.clone().initial_window_packets(1).map(|_| ()),
            ),
            (
                "initial_srtt_range",
                c.clone().initial_srtt_range(ms(600), ms(100)).map(|_| ()),
            ),
            (
                "initial_srtt_range",
                c.clone().initial_srtt_range(ms(100), ms(100)).map(|_| ()),
            ),
            (
                "initial_srtt_range",
                c.clone().initial_srtt_range(ms(0), ms(61_000)).map(|_| ()),
            ),
        ] {
            let err = result.unwrap_err();
            assert_eq!(err.field, field);
            assert!(err.to_string().contains(field), "{err}");
        }
        let mut ok = c.clone();
        ok.initial_srtt_range(ms(0), ms(1)).unwrap();
        assert_eq!(
            (ok.get_initial_min_srtt(), ok.get_initial_max_srtt()),
            (ms(0), ms(1))
        );
    }
}
