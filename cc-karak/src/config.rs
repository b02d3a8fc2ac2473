//! `KarakConfig`: the paper's knobs, validated, and quinn's controller factory.

use crate::Karak;
use cc_core::{
    ConfigError, QuinnAdapter, SignalConfig, check_initial_window_packets, check_unit_factor,
};
use quinn_proto::congestion::{Controller, ControllerFactory};
use std::sync::Arc;
use std::time::Instant;

/// Configuration of [`Karak`], and the factory quinn builds it from.
///
/// `Default` is the paper's Table 1: halve on three duplicate ACKs, a quarter after a timeout
/// with two, an eighth with one, rounded up to a power of two datagrams, and the minimum window
/// with none.
///
/// ```
/// use std::sync::Arc;
/// let mut transport = quinn::TransportConfig::default();
/// transport.congestion_controller_factory(Arc::new(cc_karak::KarakConfig::default()));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct KarakConfig {
    initial_window_packets: u64,
    fast_retransmit_factor: f64,
    two_dup_ack_factor: f64,
    one_dup_ack_factor: f64,
    round_to_power_of_two: bool,
    signal: SignalConfig,
}

impl KarakConfig {
    /// Initial window in datagrams. Default 10 (RFC 9002 section 7.2 allows
    /// `min(10 x mtu, max(14720, 2 x mtu))`; quinn's NewReno uses 14720 bytes). Allowed: 2 to 1000.
    pub fn initial_window_packets(&mut self, value: u64) -> Result<&mut Self, ConfigError> {
        self.initial_window_packets = check_initial_window_packets(value)?;
        Ok(self)
    }

    /// Window multiplier on a fast retransmit (three duplicate ACKs). Default 1/2. Allowed: (0, 1].
    pub fn fast_retransmit_factor(&mut self, value: f64) -> Result<&mut Self, ConfigError> {
        self.fast_retransmit_factor = check_unit_factor("fast_retransmit_factor", value)?;
        Ok(self)
    }

    /// Window multiplier on a timeout after two duplicate ACKs. Default 1/4. Allowed: (0, 1].
    pub fn two_dup_ack_factor(&mut self, value: f64) -> Result<&mut Self, ConfigError> {
        self.two_dup_ack_factor = check_unit_factor("two_dup_ack_factor", value)?;
        Ok(self)
    }

    /// Window multiplier on a timeout after one duplicate ACK. Default 1/8. Allowed: (0, 1].
    pub fn one_dup_ack_factor(&mut self, value: f64) -> Result<&mut Self, ConfigError> {
        self.one_dup_ack_factor = check_unit_factor("one_dup_ack_factor", value)?;
        Ok(self)
    }

    /// Whether graded timeout windows are rounded up to a power of two datagrams (section 3).
    /// Default true.
    pub fn round_to_power_of_two(&mut self, value: bool) -> &mut Self {
        self.round_to_power_of_two = value;
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

    /// Fast-retransmit multiplier.
    pub fn get_fast_retransmit_factor(&self) -> f64 {
        self.fast_retransmit_factor
    }

    /// Multiplier after a timeout with two duplicate ACKs.
    pub fn get_two_dup_ack_factor(&self) -> f64 {
        self.two_dup_ack_factor
    }

    /// Multiplier after a timeout with one duplicate ACK.
    pub fn get_one_dup_ack_factor(&self) -> f64 {
        self.one_dup_ack_factor
    }

    /// Whether graded windows round up to a power of two datagrams.
    pub fn get_round_to_power_of_two(&self) -> bool {
        self.round_to_power_of_two
    }

    /// Loss-signal settings.
    pub fn get_signal(&self) -> &SignalConfig {
        &self.signal
    }
}

impl Default for KarakConfig {
    fn default() -> Self {
        Self {
            initial_window_packets: 10,
            fast_retransmit_factor: 0.5,
            two_dup_ack_factor: 0.25,
            one_dup_ack_factor: 0.125,
            round_to_power_of_two: true,
            signal: SignalConfig::default(),
        }
    }
}

impl ControllerFactory for KarakConfig {
    fn build(self: Arc<Self>, _now: Instant, current_mtu: u16) -> Box<dyn Controller> {
        let signal = self.signal.clone();
        Box::new(QuinnAdapter::new(
            Karak::new((*self).clone(), current_mtu),
            signal,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_settings_are_named_errors() {
        let mut c = KarakConfig::default();
        for (field, result) in [
            (
                "fast_retransmit_factor",
                c.clone().fast_retransmit_factor(0.0).map(|_| ()),
            ),
            (
                "two_dup_ack_factor",
                c.clone().two_dup_ack_factor(1.5).map(|_| ()),
            ),
            (
                "one_dup_ack_factor",
                c.clone().one_dup_ack_factor(-0.1).map(|_| ()),
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
        assert!(c.one_dup_ack_factor(1.0).is_ok());
    }
}
