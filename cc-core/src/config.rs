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
///
/// Every connection's classifier holds a copy, so the fields are kept as small as their
/// validated ranges allow; the accessors, setters, `Debug` and serde show them as written.
#[derive(Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "SignalConfigFields", into = "SignalConfigFields")]
pub struct SignalConfig {
    /// The peer's largest ACK delay, nanoseconds (at most 2^14 ms).
    max_ack_delay_ns: u64,
    /// Packets the ledger tracks (at most 2^20).
    ledger_packets: u32,
    /// Send batches the ledger remembers (at most 2^16).
    ledger_batches: u32,
    /// Multiple of the RTT after which a packet is lost.
    time_threshold: f32,
    /// Packets a later acknowledgement must be ahead of a lost one (1 to 1000).
    packet_threshold: u16,
    /// Which QUIC event counts as a timeout; `None`: the port's own choice.
    timeout_reading: Option<TimeoutReading>,
}

/// [`SignalConfig`] as written (in a file, or by the setters), before
/// [`SignalConfigFields::validate`].
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
struct SignalConfigFields {
    packet_threshold: u32,
    time_threshold: f32,
    #[serde(with = "humantime_serde")]
    max_ack_delay: Duration,
    ledger_packets: usize,
    ledger_batches: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    timeout_reading: Option<TimeoutReading>,
}

impl Default for SignalConfigFields {
    fn default() -> Self {
        SignalConfig::default().into()
    }
}

impl From<SignalConfig> for SignalConfigFields {
    fn from(c: SignalConfig) -> Self {
        Self {
            packet_threshold: c.packet_threshold(),
            time_threshold: c.time_threshold(),
            max_ack_delay: c.max_ack_delay(),
            ledger_packets: c.ledger_packets(),
            ledger_batches: c.ledger_batches(),
            timeout_reading: c.timeout_reading(),
        }
    }
}

impl TryFrom<SignalConfigFields> for SignalConfig {
    type Error = ConfigError;
    fn try_from(f: SignalConfigFields) -> Result<Self, ConfigError> {
        f.validate()?;
        // Validated, so each field fits its narrower type exactly: no error below occurs.
        let narrowed = |field: &'static str| ConfigError::new(field, "a value", "its range");
        Ok(Self {
            packet_threshold: u16::try_from(f.packet_threshold)
                .map_err(|_| narrowed("packet_threshold"))?,
            time_threshold: f.time_threshold,
            max_ack_delay_ns: u64::try_from(f.max_ack_delay.as_nanos())
                .map_err(|_| narrowed("max_ack_delay"))?,
            ledger_packets: u32::try_from(f.ledger_packets)
                .map_err(|_| narrowed("ledger_packets"))?,
            ledger_batches: u32::try_from(f.ledger_batches)
                .map_err(|_| narrowed("ledger_batches"))?,
            timeout_reading: f.timeout_reading,
        })
    }
}

impl SignalConfigFields {
    /// Checks every field's range; the setters and deserialization both call it.
    fn validate(&self) -> Result<(), ConfigError> {
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
}

impl std::fmt::Debug for SignalConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignalConfig")
            .field("packet_threshold", &self.packet_threshold())
            .field("time_threshold", &self.time_threshold())
            .field("max_ack_delay", &self.max_ack_delay())
            .field("ledger_packets", &self.ledger_packets())
            .field("ledger_batches", &self.ledger_batches())
            .field("timeout_reading", &self.timeout_reading())
            .finish()
    }
}

impl SignalConfig {
    /// Default packet threshold: RFC 9002 kPacketThreshold, quinn's default.
    pub const DEFAULT_PACKET_THRESHOLD: u32 = 3;
    /// Default time threshold: RFC 9002 kTimeThreshold, quinn's default.
    pub const DEFAULT_TIME_THRESHOLD: f32 = 9.0 / 8.0;

    /// Checks every field's range. Always passes: the setters and deserialization check each
    /// value before it is kept.
    pub fn validate(&self) -> Result<(), ConfigError> {
        SignalConfigFields::from(self.clone()).validate()
    }

    /// Applies `change` to the fields as written, and keeps them if they validate.
    fn try_set(
        &mut self,
        change: impl FnOnce(&mut SignalConfigFields),
    ) -> Result<&mut Self, ConfigError> {
        let mut fields = SignalConfigFields::from(self.clone());
        change(&mut fields);
        *self = Self::try_from(fields)?;
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
        u32::from(self.packet_threshold)
    }

    /// Multiple of `max(smoothed RTT, latest RTT)` after which an unacknowledged packet is
    /// lost. Must equal `TransportConfig::time_threshold` ([`crate::install`] sets both).
    pub fn time_threshold(&self) -> f32 {
        self.time_threshold
    }

    /// The largest ACK delay the peer may report (its `max_ack_delay` transport parameter).
    /// Used only to bound the smoothed RTT quinn computes after an ACK. Default 25 ms (RFC 9000).
    pub fn max_ack_delay(&self) -> Duration {
        Duration::from_nanos(self.max_ack_delay_ns)
    }

    /// Most packets whose fate the ledger tracks; older ones are forgotten (and a loss among
    /// them is classified from timing alone). One byte each.
    pub fn ledger_packets(&self) -> usize {
        self.ledger_packets as usize
    }

    /// Most send batches (transmit passes) the ledger remembers. 16 bytes each.
    pub fn ledger_batches(&self) -> usize {
        self.ledger_batches as usize
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
            packet_threshold: Self::DEFAULT_PACKET_THRESHOLD as u16,
            time_threshold: Self::DEFAULT_TIME_THRESHOLD,
            max_ack_delay_ns: 25_000_000, // 25 ms
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
