//! `UbConfig`: the paper's knobs, validated, and quinn's controller factory.

use crate::Ub;
use cc_core::{
    ConfigError, QuinnAdapter, SignalConfig, WestwoodEstimator, check_filter_gain,
    check_initial_window_packets,
};
use quinn_proto::congestion::{Controller, ControllerFactory};
use std::sync::Arc;
use std::time::Instant;

/// Configuration of [`Ub`], and the factory quinn builds it from.
///
/// The paper gives no values for its thresholds. `Default` is alpha = 2, gamma = 3, beta = 4
/// packets (Linux `tcp_vegas.c`'s alpha = 2 and beta = 4, gamma halfway between), Vegas'
/// slow-start threshold of 1 packet with growth every other round (Brakmo and Peterson 1995,
/// section 3.3), and a bandwidth filter weight of 0.9.
///
/// ```
/// use std::sync::Arc;
/// let mut transport = quinn::TransportConfig::default();
/// transport.congestion_controller_factory(Arc::new(cc_ub::UbConfig::default()));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct UbConfig {
    /// Initial window, datagrams.
    initial_window_packets: u64,
    /// Lower backlog threshold alpha, packets.
    alpha: f64,
    /// Middle backlog threshold gamma (the paper's Gama), packets.
    gamma: f64,
    /// Upper backlog threshold beta, packets.
    beta: f64,
    /// Vegas' slow-start exit threshold (its own gamma), packets.
    slow_start_gamma: f64,
    /// Whether Vegas slow start grows only every other round.
    slow_start_every_other_rtt: bool,
    /// Weight of the previous estimate in the bandwidth filter.
    bwe_gain: f64,
    /// Loss-signal settings.
    signal: SignalConfig,
}

/// Largest threshold accepted, packets.
const MAX_THRESHOLD: f64 = 1e6;

fn check_threshold(field: &'static str, value: f64) -> Result<f64, ConfigError> {
    if (0.0..=MAX_THRESHOLD).contains(&value) {
        Ok(value)
    } else {
        Err(ConfigError::new(field, value, "[0, 1000000] packets"))
    }
}

impl UbConfig {
    /// Initial window in datagrams. Default 10 (RFC 9002 section 7.2). Allowed: 2 to 1000.
    pub fn initial_window_packets(&mut self, value: u64) -> Result<&mut Self, ConfigError> {
        self.initial_window_packets = check_initial_window_packets(value)?;
        Ok(self)
    }

    /// The congestion-avoidance backlog thresholds `alpha < gamma < beta`, packets: below alpha
    /// the window grows one packet per round, from alpha to gamma Westwood sets ssthresh and caps
    /// the window, above beta it shrinks one packet per round, and in between it holds.
    /// Defaults 2, 3, 4. Allowed: each in [0, 1000000], strictly increasing.
    pub fn thresholds(
        &mut self,
        alpha: f64,
        gamma: f64,
        beta: f64,
    ) -> Result<&mut Self, ConfigError> {
        check_threshold("alpha", alpha)?;
        check_threshold("gamma", gamma)?;
        check_threshold("beta", beta)?;
        if alpha >= gamma {
            return Err(ConfigError::new(
                "alpha",
                format!("{alpha} (with gamma = {gamma})"),
                "below gamma (alpha < gamma < beta)",
            ));
        }
        if gamma >= beta {
            return Err(ConfigError::new(
                "gamma",
                format!("{gamma} (with beta = {beta})"),
                "below beta (alpha < gamma < beta)",
            ));
        }
        self.alpha = alpha;
        self.gamma = gamma;
        self.beta = beta;
        Ok(self)
    }

    /// Vegas' slow-start exit threshold, packets: slow start ends when a round's backlog exceeds
    /// it. Default 1 (Brakmo and Peterson 1995; Linux `tcp_vegas.c` gamma = 1). Not TCP-UB's
    /// gamma. Allowed: [0, 1000000].
    pub fn slow_start_gamma(&mut self, value: f64) -> Result<&mut Self, ConfigError> {
        self.slow_start_gamma = check_threshold("slow_start_gamma", value)?;
        Ok(self)
    }

    /// Whether slow start doubles the window only every other round, holding it in between so
    /// that round measures a fixed window (Brakmo and Peterson 1995, section 3.3). With false it
    /// grows every round, as Linux `tcp_vegas.c` does. Default true.
    pub fn slow_start_every_other_rtt(&mut self, value: bool) -> &mut Self {
        self.slow_start_every_other_rtt = value;
        self
    }

    /// Weight of the previous estimate in the bandwidth filter
    /// (`BWE = (1 - a) sample + a BWE_prev`). Default 0.9. Allowed: [0, 1).
    pub fn bwe_gain(&mut self, value: f64) -> Result<&mut Self, ConfigError> {
        self.bwe_gain = check_filter_gain("bwe_gain", value)?;
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

    /// Threshold alpha, packets.
    pub fn get_alpha(&self) -> f64 {
        self.alpha
    }

    /// Threshold gamma, packets.
    pub fn get_gamma(&self) -> f64 {
        self.gamma
    }

    /// Threshold beta, packets.
    pub fn get_beta(&self) -> f64 {
        self.beta
    }

    /// Vegas' slow-start exit threshold, packets.
    pub fn get_slow_start_gamma(&self) -> f64 {
        self.slow_start_gamma
    }

    /// Whether slow start grows every other round.
    pub fn get_slow_start_every_other_rtt(&self) -> bool {
        self.slow_start_every_other_rtt
    }

    /// The bandwidth filter weight.
    pub fn get_bwe_gain(&self) -> f64 {
        self.bwe_gain
    }

    /// Loss-signal settings.
    pub fn get_signal(&self) -> &SignalConfig {
        &self.signal
    }
}

impl Default for UbConfig {
    fn default() -> Self {
        Self {
            initial_window_packets: 10,
            alpha: 2.0,
            gamma: 3.0,
            beta: 4.0,
            slow_start_gamma: 1.0,
            slow_start_every_other_rtt: true,
            bwe_gain: WestwoodEstimator::DEFAULT_GAIN,
            signal: SignalConfig::default(),
        }
    }
}

impl ControllerFactory for UbConfig {
    fn build(self: Arc<Self>, _now: Instant, current_mtu: u16) -> Box<dyn Controller> {
        let signal = self.signal.clone();
        Box::new(QuinnAdapter::new(
            Ub::new((*self).clone(), current_mtu),
            signal,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_must_increase() {
        let mut c = UbConfig::default();
        let err = c.thresholds(3.0, 3.0, 4.0).unwrap_err();
        assert_eq!(err.field, "alpha");
        assert!(err.to_string().contains("alpha < gamma < beta"), "{err}");
        let err = c.thresholds(3.5, 3.0, 4.0).unwrap_err();
        assert_eq!(err.field, "alpha");
        let err = c.thresholds(1.0, 4.0, 4.0).unwrap_err();
        assert_eq!(err.field, "gamma");
        assert!(err.to_string().contains("with beta = 4"), "{err}");
        let err = c.thresholds(1.0, 5.0, 4.0).unwrap_err();
        assert_eq!(err.field, "gamma");
        // Nothing changed by the failed calls.
        assert_eq!(c, UbConfig::default());
        c.thresholds(1.0, 2.5, 6.0).unwrap();
        assert_eq!(
            (c.get_alpha(), c.get_gamma(), c.get_beta()),
            (1.0, 2.5, 6.0)
        );
    }

    #[test]
    fn out_of_range_values_are_named_errors() {
        let c = UbConfig::default();
        for (field, result) in [
            ("alpha", c.clone().thresholds(-1.0, 3.0, 4.0).map(|_| ())),
            (
                "alpha",
                c.clone().thresholds(f64::NAN, 3.0, 4.0).map(|_| ()),
            ),
            (
                "gamma",
                c.clone().thresholds(2.0, f64::INFINITY, 4.0).map(|_| ()),
            ),
            ("beta", c.clone().thresholds(2.0, 3.0, 1e9).map(|_| ())),
            (
                "slow_start_gamma",
                c.clone().slow_start_gamma(-0.5).map(|_| ()),
            ),
            ("bwe_gain", c.clone().bwe_gain(1.0).map(|_| ())),
            (
                "initial_window_packets",
                c.clone().initial_window_packets(0).map(|_| ()),
            ),
        ] {
            let err = result.unwrap_err();
            assert_eq!(err.field, field);
            assert!(err.to_string().contains(field), "{err}");
        }
    }

    #[test]
    fn defaults_and_factory() {
        let d = UbConfig::default();
        assert_eq!(
            (d.get_alpha(), d.get_gamma(), d.get_beta()),
            (2.0, 3.0, 4.0)
        );
        assert_eq!(d.get_slow_start_gamma(), 1.0);
        assert!(d.get_slow_start_every_other_rtt());
        assert_eq!(d.get_bwe_gain(), 0.9);
        let ctrl = Arc::new(d).build(Instant::now(), 1200);
        assert_eq!(ctrl.window(), 12_000);
        assert!(ctrl.metrics().ssthresh.is_some());
        assert!(ctrl.into_any().downcast::<QuinnAdapter<Ub>>().is_ok());
    }
}
