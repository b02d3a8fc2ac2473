//! Settings shared by every controller: the loss-signal thresholds and the ledger bound, and
//! the error every configuration reports.

use crate::TimeoutReading;
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
    pub allowed: String,
}

impl ConfigError {
    /// A new error for `field`, which was given `value` but allows only `allowed`.
    pub fn new(field: &'static str, value: impl ToString, allowed: impl Into<String>) -> Self {
        Self {
            field,
            value: value.to_string(),
            allowed: allowed.into(),
        }
    }
}

/// How [`crate::LossClassifier`] turns quinn's congestion events into [`crate::LossSignal`]s.
///
/// `packet_threshold` and `time_threshold` **must equal the transport's**
/// (`quinn::TransportConfig::packet_threshold` and `time_threshold`): the classifier replays
/// quinn's loss detection, and with other values it misreads which rule declared a loss.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "SignalConfigFields")]
pub struct SignalConfig {
    packet_threshold: u32,
    time_threshold: f32,
    #[serde(with = "humantime_serde")]
    max_ack_delay: Duration,
    ledger_packets: usize,
    ledger_batches: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    timeout_reading: Option<TimeoutReading>,
}

/// [`SignalConfig`] as read from a file, before [`SignalConfig::validate`].
#[derive(serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
struct SignalConfigFields {
    packet_threshold: u32,
    time_threshold: f32,
    #[serde(with = "humantime_serde")]
    max_ack_delay: Duration,
    ledger_packets: usize,
    ledger_batches: usize,
    timeout_reading: Option<TimeoutReading>,
}

impl Default for SignalConfigFields {
    fn default() -> Self {
        let d = SignalConfig::default();
        Self {
            packet_threshold: d.packet_threshold,
            time_threshold: d.time_threshold,
            max_ack_delay: d.max_ack_delay,
            ledger_packets: d.ledger_packets,
            ledger_batches: d.ledger_batches,
            timeout_reading: d.timeout_reading,
        }
    }
}

impl TryFrom<SignalConfigFields> for SignalConfig {
    type Error = ConfigError;
    fn try_from(f: SignalConfigFields) -> Result<Self, ConfigError> {
        let config = Self {
            packet_threshold: f.packet_threshold,
            time_threshold: f.time_threshold,
            max_ack_delay: f.max_ack_delay,
            ledger_packets: f.ledger_packets,
            ledger_batches: f.ledger_batches,
            timeout_reading: f.timeout_reading,
        };
        config.validate()?;
        Ok(config)
    }
}

impl SignalConfig {
    /// Default packet threshold: RFC 9002 kPacketThreshold, quinn's default.
    pub const DEFAULT_PACKET_THRESHOLD: u32 = 3;
    /// Default time threshold: RFC 9002 kTimeThreshold, quinn's default.
    pub const DEFAULT_TIME_THRESHOLD: f32 = 9.0 / 8.0;

    /// Checks every field's range; the setters and deserialization both call it.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !(1..=1000).contains(&self.packet_threshold) {
            return Err(ConfigError::new(
                "packet_threshold",
                self.packet_threshold,
                "1 to 1000",
            ));
        }
        if !(1.0..=10.0).contains(&self.time_threshold) {
            return Err(ConfigError::new(
                "time_threshold",
                self.time_threshold,
                "[1.0, 10.0]",
            ));
        }
        if self.max_ack_delay > Duration::from_millis(1 << 14) {
            return Err(ConfigError::new(
                "max_ack_delay",
                format!("{:?}", self.max_ack_delay),
                "0 to 16.384 s",
            ));
        }
        if !(64..=1 << 20).contains(&self.ledger_packets) {
            return Err(ConfigError::new(
                "ledger_packets",
                self.ledger_packets,
                "64 to 1048576",
            ));
        }
        if !(16..=1 << 16).contains(&self.ledger_batches) {
            return Err(ConfigError::new(
                "ledger_batches",
                self.ledger_batches,
                "16 to 65536",
            ));
        }
        Ok(())
    }

    /// Applies `change` to a copy, and keeps it if it validates.
    fn try_set(&mut self, change: impl FnOnce(&mut Self)) -> Result<&mut Self, ConfigError> {
        let mut next = self.clone();
        change(&mut next);
        next.validate()?;
        *self = next;
        Ok(self)
    }

    /// Sets [`Self::packet_threshold`]. Allowed: 1 to 1000.
    pub fn set_packet_threshold(&mut self, value: u32) -> Result<&mut Self, ConfigError> {
        self.try_set(|c| c.packet_threshold = value)
    }

    /// Sets [`Self::time_threshold`]. Allowed: 1.0 to 10.0 (quinn requires >= 1).
    pub fn set_time_threshold(&mut self, value: f32) -> Result<&mut Self, ConfigError> {
        self.try_set(|c| c.time_threshold = value)
    }

    /// Sets [`Self::max_ack_delay`]. Allowed: 0 to 16 s (2^14 ms, the transport parameter's
    /// limit).
    pub fn set_max_ack_delay(&mut self, value: Duration) -> Result<&mut Self, ConfigError> {
        self.try_set(|c| c.max_ack_delay = value)
    }

    /// Sets [`Self::ledger_packets`]. Allowed: 64 to 1,048,576.
    pub fn set_ledger_packets(&mut self, value: usize) -> Result<&mut Self, ConfigError> {
        self.try_set(|c| c.ledger_packets = value)
    }

    /// Sets [`Self::ledger_batches`]. Allowed: 16 to 65,536.
    pub fn set_ledger_batches(&mut self, value: usize) -> Result<&mut Self, ConfigError> {
        self.try_set(|c| c.ledger_batches = value)
    }

    /// Sets [`Self::timeout_reading`]; `None` restores the port's own default.
    pub fn set_timeout_reading(&mut self, reading: Option<TimeoutReading>) -> &mut Self {
        self.timeout_reading = reading;
        self
    }

    /// Which QUIC event counts as the papers' TCP timeout, or `None` (the default) for the
    /// port's own choice ([`crate::CongestionAlgorithm::TIMEOUT_READING`]).
    pub fn timeout_reading(&self) -> Option<TimeoutReading> {
        self.timeout_reading
    }

    /// Packets a later acknowledgement must be ahead of a lost one for a fast retransmit.
    /// Must equal `TransportConfig::packet_threshold` ([`crate::install`] sets both).
    pub fn packet_threshold(&self) -> u32 {
        self.packet_threshold
    }

    /// Multiple of `max(smoothed RTT, latest RTT)` after which an unacknowledged packet is
    /// lost. Must equal `TransportConfig::time_threshold` ([`crate::install`] sets both).
    pub fn time_threshold(&self) -> f32 {
        self.time_threshold
    }

    /// The largest ACK delay the peer may report (its `max_ack_delay` transport parameter).
    /// Used only to bound the smoothed RTT quinn computes after an ACK. Default 25 ms (RFC 9000).
    pub fn max_ack_delay(&self) -> Duration {
        self.max_ack_delay
    }

    /// Most packets whose fate the ledger tracks; older ones are forgotten (and a loss among
    /// them is classified from timing alone). One byte each.
    pub fn ledger_packets(&self) -> usize {
        self.ledger_packets
    }

    /// Most send batches (transmit passes) the ledger remembers. 16 bytes each.
    pub fn ledger_batches(&self) -> usize {
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
            timeout_reading: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_out_of_range_values_by_name() {
        let mut c = SignalConfig::default();
        let err = c.set_packet_threshold(0).unwrap_err();
        assert_eq!(err.field, "packet_threshold");
        assert!(err.to_string().contains("1 to 1000"), "{err}");
        assert_eq!(
            c.set_time_threshold(0.5).unwrap_err().field,
            "time_threshold"
        );
        assert_eq!(
            c.set_time_threshold(f32::NAN).unwrap_err().field,
            "time_threshold"
        );
        assert_eq!(c.set_ledger_packets(1).unwrap_err().field, "ledger_packets");
        assert_eq!(c.set_ledger_batches(0).unwrap_err().field, "ledger_batches");
        assert!(c.set_max_ack_delay(Duration::from_secs(60)).is_err());
        // Nothing was changed by the failed calls.
        assert_eq!(c, SignalConfig::default());
    }

    #[test]
    fn setters_chain() -> Result<(), ConfigError> {
        let mut c = SignalConfig::default();
        c.set_packet_threshold(5)?.set_time_threshold(1.5)?;
        assert_eq!(c.packet_threshold(), 5);
        assert_eq!(c.time_threshold(), 1.5);
        Ok(())
    }
}
