//! `SackFewConfig`: the paper's knobs, validated, and quinn's controller factory.

use crate::SackFew;
use cc_core::{
    ConfigError, QuinnAdapter, SignalConfig, check_initial_window_packets, check_unit_factor,
};
use quinn_proto::congestion::{Controller, ControllerFactory};
use std::sync::Arc;
use std::time::Instant;

/// Configuration of [`SackFew`], and the factory quinn builds it from.
///
/// `Default` is the paper's section 2.2: `alpha = 0.01`, with NewReno's halving of ssthresh on
/// a loss, on QUIC's initial window of 10 datagrams.
///
/// ```
/// use std::sync::Arc;
/// let mut few = cc_sackfew::SackFewConfig::default();
/// few.alpha(0.1)?;
/// let mut transport = quinn::TransportConfig::default();
/// transport.congestion_controller_factory(Arc::new(few));
/// # Ok::<(), cc_core::ConfigError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SackFewConfig {
    /// Fractional increment, packets per round trip; in `[0, 1]`.
    alpha: f64,
    /// Initial window, datagrams.
    initial_window_packets: u64,
    /// ssthresh multiplier on a loss, in `(0, 1]`.
    loss_reduction_factor: f64,
    /// Loss-signal classification settings.
    signal: SignalConfig,
}

impl SackFewConfig {
    /// The paper's alpha (section 2.2 step 1).
    pub const DEFAULT_ALPHA: f64 = 0.01;

    /// The fractional increment alpha: the window grows by `alpha / cwnd` packets per
    /// acknowledged packet, i.e. by `alpha` packets per round trip.
    ///
    /// Default 0.01 (section 2.2 step 1). Allowed: `[0, 1]` (section 2.1, `0 <= alpha <= 1`);
    /// NaN and anything outside is an error naming `alpha`. With 0 the window never grows.
    /// See the crate docs for what 0.01 and 1 mean in seconds.
    pub fn alpha(&mut self, value: f64) -> Result<&mut Self, ConfigError> {
        // `contains` is false for NaN.
        if !(0.0..=1.0).contains(&value) {
            return Err(ConfigError::new("alpha", value, "[0, 1]"));
        }
        self.alpha = value;
        Ok(self)
    }

    /// Initial window in datagrams. Default 10 (RFC 9002 section 7.2 allows
    /// `min(10 x mtu, max(14720, 2 x mtu))`; quinn's NewReno uses 14720 bytes). Allowed: 2 to 1000.
    pub fn initial_window_packets(&mut self, value: u64) -> Result<&mut Self, ConfigError> {
        self.initial_window_packets = check_initial_window_packets(value)?;
        Ok(self)
    }

    /// ssthresh multiplier on a loss ("ssthresh set as NewReno"): after a loss
    /// `ssthresh = cwnd x factor` and `cwnd = min(cwnd, ssthresh)`. Default 1/2 (RFC 5681
    /// eq. 4). Allowed: `(0, 1]`.
    pub fn loss_reduction_factor(&mut self, value: f64) -> Result<&mut Self, ConfigError> {
        self.loss_reduction_factor = check_unit_factor("loss_reduction_factor", value)?;
        Ok(self)
    }

    /// Loss-signal settings; their thresholds must match the `TransportConfig`.
    pub fn signal(&mut self, value: SignalConfig) -> &mut Self {
        self.signal = value;
        self
    }

    /// The fractional increment alpha.
    pub fn get_alpha(&self) -> f64 {
        self.alpha
    }

    /// Initial window, datagrams.
    pub fn get_initial_window_packets(&self) -> u64 {
        self.initial_window_packets
    }

    /// ssthresh multiplier on a loss.
    pub fn get_loss_reduction_factor(&self) -> f64 {
        self.loss_reduction_factor
    }

    /// Loss-signal settings.
    pub fn get_signal(&self) -> &SignalConfig {
        &self.signal
    }
}

impl Default for SackFewConfig {
    /// alpha = 0.01 (section 2.2), 10 initial datagrams, ssthresh halved on a loss, RFC 9002's
    /// loss thresholds.
    fn default() -> Self {
        Self {
            alpha: Self::DEFAULT_ALPHA,
            initial_window_packets: 10,
            loss_reduction_factor: 0.5,
            signal: SignalConfig::default(),
        }
    }
}

impl ControllerFactory for SackFewConfig {
    fn build(self: Arc<Self>, _now: Instant, current_mtu: u16) -> Box<dyn Controller> {
        let signal = self.signal.clone();
        Box::new(QuinnAdapter::new(
            SackFew::new((*self).clone(), current_mtu),
            signal,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_settings_are_named_errors() {
        let c = SackFewConfig::default();
        for (field, result) in [
            ("alpha", c.clone().alpha(1.01).map(|_| ())),
            ("alpha", c.clone().alpha(-0.01).map(|_| ())),
            ("alpha", c.clone().alpha(f64::NAN).map(|_| ())),
            ("alpha", c.clone().alpha(f64::INFINITY).map(|_| ())),
            (
                "loss_reduction_factor",
                c.clone().loss_reduction_factor(0.0).map(|_| ()),
            ),
            (
                "initial_window_packets",
                c.clone().initial_window_packets(1).map(|_| ()),
            ),
        ] {
            let err = result.unwrap_err();
            assert_eq!(err.field, field);
            assert!(err.to_string().contains(field), "{err}");
        }
    }
}
