//! `PetraConfig`: the paper's knobs, validated, and quinn's controller factory.

use crate::Petra;
use cc_core::{
    ConfigError, QuinnAdapter, SignalConfig, WestwoodEstimator, check_filter_gain,
    check_initial_window_packets,
};
use quinn_proto::congestion::{Controller, ControllerFactory};
use std::sync::Arc;
use std::time::Instant;

/// Configuration of [`Petra`], and the factory quinn builds it from.
///
/// `Default` is the paper's: the eq. 4.4 filter weight 0.9, the initial ssthresh from the
/// bandwidth estimate (section 4.1.1) and faster start (section 4.1.2.1) on.
///
/// ```
/// use std::sync::Arc;
/// let mut transport = quinn::TransportConfig::default();
/// transport.congestion_controller_factory(Arc::new(cc_petra::PetraConfig::default()));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct PetraConfig {
    /// Initial window, datagrams.
    initial_window_packets: u64,
    /// Weight of the previous estimate in eq. 4.4 (the paper's alpha).
    ebw_gain: f64,
    /// Whether section 4.1.2.1's faster start runs.
    faster_start: bool,
    /// Whether section 4.1.1 sets ssthresh from the estimate during the initial slow start.
    estimate_initial_ssthresh: bool,
    /// Loss-signal settings.
    signal: SignalConfig,
}

impl PetraConfig {
    /// Initial window in datagrams. Default 10 (RFC 9002 section 7.2; the paper's eq. 4.1 is
    /// TCP's 2-4 segments). Allowed: 2 to 1000.
    pub fn initial_window_packets(&mut self, value: u64) -> Result<&mut Self, ConfigError> {
        self.initial_window_packets = check_initial_window_packets(value)?;
        Ok(self)
    }

    /// Weight of the previous estimate in the bandwidth filter, eq. 4.4
    /// (`SEBW = (1 - a) EBW_i + a SEBW_(i-1)`). Default 0.9 (section 4.1.1). Allowed: [0, 1).
    pub fn ebw_gain(&mut self, value: f64) -> Result<&mut Self, ConfigError> {
        self.ebw_gain = check_filter_gain("ebw_gain", value)?;
        Ok(self)
    }

    /// Whether slow start grows by `EBW div BytesInFlight()` segments when that ratio exceeds 2
    /// (section 4.1.2.1). Default true.
    pub fn faster_start(&mut self, value: bool) -> &mut Self {
        self.faster_start = value;
        self
    }

    /// Whether ssthresh tracks `SEBW x MinRTT` during the initial slow start (section 4.1.1,
    /// eq. 4.5); with false it stays unbounded until the first loss, as in NewReno. Default true.
    pub fn estimate_initial_ssthresh(&mut self, value: bool) -> &mut Self {
        self.estimate_initial_ssthresh = value;
        self
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

    /// The eq. 4.4 filter weight.
    pub fn get_ebw_gain(&self) -> f64 {
        self.ebw_gain
    }

    /// Whether faster start is on.
    pub fn get_faster_start(&self) -> bool {
        self.faster_start
    }

    /// Whether the initial ssthresh comes from the bandwidth estimate.
    pub fn get_estimate_initial_ssthresh(&self) -> bool {
        self.estimate_initial_ssthresh
    }

    /// Loss-signal settings.
    pub fn get_signal(&self) -> &SignalConfig {
        &self.signal
    }
}

impl Default for PetraConfig {
    fn default() -> Self {
        Self {
            initial_window_packets: 10,
            ebw_gain: WestwoodEstimator::DEFAULT_GAIN,
            faster_start: true,
            estimate_initial_ssthresh: true,
            signal: SignalConfig::default(),
        }
    }
}

impl ControllerFactory for PetraConfig {
    fn build(self: Arc<Self>, _now: Instant, current_mtu: u16) -> Box<dyn Controller> {
        let signal = self.signal.clone();
        Box::new(QuinnAdapter::new(
            Petra::new((*self).clone(), current_mtu),
            signal,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_settings_are_named_errors() {
        let c = PetraConfig::default();
        for (field, result) in [
            ("ebw_gain", c.clone().ebw_gain(1.0).map(|_| ())),
            ("ebw_gain", c.clone().ebw_gain(-0.5).map(|_| ())),
            ("ebw_gain", c.clone().ebw_gain(f64::NAN).map(|_| ())),
            (
                "initial_window_packets",
                c.clone().initial_window_packets(1).map(|_| ()),
            ),
            (
                "initial_window_packets",
                c.clone().initial_window_packets(1001).map(|_| ()),
            ),
        ] {
            let err = result.unwrap_err();
            assert_eq!(err.field, field);
            assert!(err.to_string().contains(field), "{err}");
        }
    }

    #[test]
    fn setters_chain_and_defaults_are_the_papers() -> Result<(), ConfigError> {
        let d = PetraConfig::default();
        assert_eq!(d.get_ebw_gain(), 0.9);
        assert!(d.get_faster_start());
        assert!(d.get_estimate_initial_ssthresh());
        assert_eq!(d.get_initial_window_packets(), 10);
        let mut c = PetraConfig::default();
        c.ebw_gain(0.5)?
            .initial_window_packets(4)?
            .faster_start(false);
        assert_eq!(c.get_ebw_gain(), 0.5);
        assert_eq!(c.get_initial_window_packets(), 4);
        assert!(!c.get_faster_start());
        Ok(())
    }

    #[test]
    fn factory_builds_a_working_controller() {
        let c = Arc::new(PetraConfig::default());
        let ctrl = c.build(Instant::now(), 1200);
        assert_eq!(ctrl.window(), 12_000);
        assert_eq!(ctrl.initial_window(), 12_000);
        assert!(ctrl.metrics().ssthresh.is_some());
        assert!(ctrl.into_any().downcast::<QuinnAdapter<Petra>>().is_ok());
    }
}
