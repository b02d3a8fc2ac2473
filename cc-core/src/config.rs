//! Settings shared by every controller: the loss-signal thresholds and the ledger bound.

use std::time::Duration;

/// A configuration value outside its allowed range.
///
/// The message names the field and the range, so that a CLI can print it as it is.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("invalid `{field}`: {value} is outside the allowed range {allowed}")]
pub struct ConfigError {
    /// The field, as the setter is named.
    pub field: &'static str,
    /// The rejected value, printed.
    pub value: String,
    /// The allowed range, in words or interval notation.
    pub allowed: &'static str,
}

impl ConfigError {
    /// A new error for `field`, which was given `value` but allows only `allowed`.
    pub fn new(field: &'static str, value: impl ToString, allowed: &'static str) -> Self {
        Self {
            field,
            value: value.to_string(),
            allowed,
        }
    }
}

/// Checks that `value` lies in `(0, 1]`: the range of every multiplicative-decrease factor.
pub fn check_unit_factor(field: &'static str, value: f64) -> Result<f64, ConfigError> {
    if value > 0.0 && value <= 1.0 {
        Ok(value)
    } else {
        Err(ConfigError::new(field, value, "(0, 1]"))
    }
}

/// Checks an initial window in datagrams: 2 (RFC 9002's minimum window) to 1000.
///
/// The setter every controller config shares; the default everywhere is 10 (RFC 9002 section
/// 7.2 allows `min(10 x mtu, max(14720, 2 x mtu))`; quinn's NewReno uses 14720 bytes).
pub fn check_initial_window_packets(value: u64) -> Result<u64, ConfigError> {
    if (2..=1000).contains(&value) {
        Ok(value)
    } else {
        Err(ConfigError::new(
            "initial_window_packets",
            value,
            "2 to 1000",
        ))
    }
}

/// How [`crate::LossClassifier`] turns quinn's congestion events into [`crate::LossSignal`]s.
///
/// `packet_threshold` and `time_threshold` **must equal the transport's**
/// (`quinn::TransportConfig::packet_threshold` and `time_threshold`): the classifier replays
/// quinn's loss detection, and with other values it misreads which rule declared a loss.
#[derive(Debug, Clone, PartialEq)]
pub struct SignalConfig {
    packet_threshold: u32,
    time_threshold: f32,
    max_ack_delay: Duration,
    ledger_packets: usize,
    ledger_batches: usize,
}

impl SignalConfig {
    /// Default packet threshold: RFC 9002 kPacketThreshold, quinn's default.
    pub const DEFAULT_PACKET_THRESHOLD: u32 = 3;
    /// Default time threshold: RFC 9002 kTimeThreshold, quinn's default.
    pub const DEFAULT_TIME_THRESHOLD: f32 = 9.0 / 8.0;

    /// Packets a later acknowledgement must be ahead of a lost one for a fast retransmit.
    ///
    /// Must equal `TransportConfig::packet_threshold`. Allowed: 1 to 1000.
    pub fn packet_threshold(&mut self, value: u32) -> Result<&mut Self, ConfigError> {
        if !(1..=1000).contains(&value) {
            return Err(ConfigError::new("packet_threshold", value, "1 to 1000"));
        }
        self.packet_threshold = value;
        Ok(self)
    }

    /// Multiple of `max(smoothed RTT, latest RTT)` after which an unacknowledged packet is lost.
    ///
    /// Must equal `TransportConfig::time_threshold`. Allowed: 1.0 to 10.0 (quinn requires >= 1).
    pub fn time_threshold(&mut self, value: f32) -> Result<&mut Self, ConfigError> {
        if !(1.0..=10.0).contains(&value) {
            return Err(ConfigError::new("time_threshold", value, "[1.0, 10.0]"));
        }
        self.time_threshold = value;
        Ok(self)
    }

    /// The largest ACK delay the peer may report (its `max_ack_delay` transport parameter).
    ///
    /// Used only to bound the smoothed RTT quinn computes after an ACK. Default 25 ms (RFC 9000).
    /// Allowed: 0 to 16 s (2^14 ms, the transport parameter's limit).
    pub fn max_ack_delay(&mut self, value: Duration) -> Result<&mut Self, ConfigError> {
        if value > Duration::from_millis(1 << 14) {
            return Err(ConfigError::new(
                "max_ack_delay",
                format!("{value:?}"),
                "0 to 16.384 s",
            ));
        }
        self.max_ack_delay = value;
        Ok(self)
    }

    /// Most packets whose fate the ledger tracks; older ones are forgotten (and a loss among
    /// them is classified from timing alone). One byte each. Allowed: 64 to 1,048,576.
    pub fn ledger_packets(&mut self, value: usize) -> Result<&mut Self, ConfigError> {
        if !(64..=1 << 20).contains(&value) {
            return Err(ConfigError::new("ledger_packets", value, "64 to 1048576"));
        }
        self.ledger_packets = value;
        Ok(self)
    }

    /// Most send batches (transmit passes) the ledger remembers. 16 bytes each.
    /// Allowed: 16 to 65,536.
    pub fn ledger_batches(&mut self, value: usize) -> Result<&mut Self, ConfigError> {
        if !(16..=1 << 16).contains(&value) {
            return Err(ConfigError::new("ledger_batches", value, "16 to 65536"));
        }
        self.ledger_batches = value;
        Ok(self)
    }

    /// The packet threshold in use.
    pub fn get_packet_threshold(&self) -> u32 {
        self.packet_threshold
    }

    /// The time threshold in use.
    pub fn get_time_threshold(&self) -> f32 {
        self.time_threshold
    }

    /// The peer's assumed maximum ACK delay.
    pub fn get_max_ack_delay(&self) -> Duration {
        self.max_ack_delay
    }

    /// The ledger's packet bound.
    pub fn get_ledger_packets(&self) -> usize {
        self.ledger_packets
    }

    /// The ledger's batch bound.
    pub fn get_ledger_batches(&self) -> usize {
        self.ledger_batches
    }
}

impl Default for SignalConfig {
    /// RFC 9002's thresholds (quinn's defaults), 25 ms max ACK delay, and a ledger of 1024
    /// packets in up to 128 batches: 1024 + 128 x 16 bytes = 3 KiB at its bound (a connection
    /// holds one byte per packet in flight plus 16 bytes per transmit pass in flight). That
    /// covers about 1.2 MB in flight in 128 transmit passes; on paths with more, raise the
    /// bounds, or the oldest batches are forgotten and a loss among them is classified from
    /// timing alone (counted in `SignalStats::ledger_evictions`).
    fn default() -> Self {
        Self {
            packet_threshold: Self::DEFAULT_PACKET_THRESHOLD,
            time_threshold: Self::DEFAULT_TIME_THRESHOLD,
            max_ack_delay: Duration::from_millis(25),
            ledger_packets: 1024,
            ledger_batches: 128,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_out_of_range_values_by_name() {
        let mut c = SignalConfig::default();
        let err = c.packet_threshold(0).unwrap_err();
        assert_eq!(err.field, "packet_threshold");
        assert!(err.to_string().contains("1 to 1000"), "{err}");
        assert_eq!(c.time_threshold(0.5).unwrap_err().field, "time_threshold");
        assert_eq!(
            c.time_threshold(f32::NAN).unwrap_err().field,
            "time_threshold"
        );
        assert_eq!(c.ledger_packets(1).unwrap_err().field, "ledger_packets");
        assert_eq!(c.ledger_batches(0).unwrap_err().field, "ledger_batches");
        assert!(c.max_ack_delay(Duration::from_secs(60)).is_err());
        // Nothing was changed by the failed calls.
        assert_eq!(c, SignalConfig::default());
    }

    #[test]
    fn setters_chain() -> Result<(), ConfigError> {
        let mut c = SignalConfig::default();
        c.packet_threshold(5)?.time_threshold(1.5)?;
        assert_eq!(c.get_packet_threshold(), 5);
        assert_eq!(c.get_time_threshold(), 1.5);
        Ok(())
    }

    #[test]
    fn unit_factor_range() {
        assert!(check_unit_factor("f", 1.0).is_ok());
        assert!(check_unit_factor("f", 0.125).is_ok());
        for bad in [0.0, -0.1, 1.01, f64::NAN, f64::INFINITY] {
            assert_eq!(check_unit_factor("f", bad).unwrap_err().field, "f");
        }
    }
}
