//! Units used in configurations: [`Rate`] (bits per second) and human-readable durations.
//!
//! Both (de)serialize from what a person writes in a TOML scenario file: a rate is either a
//! TOML integer, bits per second, or a string with its unit such as `"2Mbps"`, `"2 Mb/s"`,
//! `"500kbps"` or `"250kBps"` (bytes); a
//! duration is either a number of seconds or a string such as `"45ms"`, `"1.5s"`, `"250us"`.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

const NANOS_PER_SEC: u128 = 1_000_000_000;

/// A link rate in bits per second.
///
/// A zero rate is representable (so that deserialization never fails on it) but rejected by
/// config validation, which names the field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate {
    bits_per_second: u64,
}

impl Rate {
    /// A rate of `bits_per_second` bits per second.
    pub const fn from_bps(bits_per_second: u64) -> Self {
        Self { bits_per_second }
    }

    /// A rate of `kbps` kilobits (10^3 bits) per second, saturating on overflow.
    pub const fn from_kbps(kbps: u64) -> Self {
        Self::from_bps(kbps.saturating_mul(1_000))
    }

    /// A rate of `mbps` megabits (10^6 bits) per second, saturating on overflow.
    pub const fn from_mbps(mbps: u64) -> Self {
        Self::from_bps(mbps.saturating_mul(1_000_000))
    }

    /// The rate in bits per second.
    pub const fn bps(self) -> u64 {
        self.bits_per_second
    }

    /// Time to serialize `bytes` bytes at this rate, rounded up to the nanosecond.
    ///
    /// A zero rate (which validation rejects) yields [`Duration::MAX`] rather than a panic.
    pub fn transmit_time(self, bytes: u64) -> Duration {
        if self.bits_per_second == 0 {
            return Duration::MAX;
        }
        // u64 arithmetic covers every datagram size (up to ~2 GB); u128 division is several
        // times slower and this runs once per datagram.
        if let Some(bit_nanos) = bytes.checked_mul(8_000_000_000) {
            return Duration::from_nanos(bit_nanos.div_ceil(self.bits_per_second));
        }
        let bits = u128::from(bytes) * 8;
        let rate = u128::from(self.bits_per_second);
        let nanos = (bits * NANOS_PER_SEC).div_ceil(rate);
        duration_from_nanos_saturating(nanos)
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bps = self.bits_per_second;
        if bps >= 1_000_000_000 && bps.is_multiple_of(1_000_000_000) {
            write!(f, "{}Gbps", bps / 1_000_000_000)
        } else if bps >= 1_000_000 && bps.is_multiple_of(1_000_000) {
            write!(f, "{}Mbps", bps / 1_000_000)
        } else if bps >= 1_000 && bps.is_multiple_of(1_000) {
            write!(f, "{}kbps", bps / 1_000)
        } else {
            write!(f, "{bps}bps")
        }
    }
}

/// Parses a rate with its unit: bits per second as `"2Mbps"`, `"2 Mb/s"`, `"2.5Mbps"`,
/// `"500kbps"`, `"1Gbps"`, `"9600bps"`, or bytes per second as `"250kBps"`, `"2MB/s"` (a capital
/// `B` is a byte: 8 bits). The case of the `b` decides, as in SI usage; the prefixes are
/// decimal (k = 10^3, M = 10^6, G = 10^9). A bare number is refused (bits or bytes?), and so is
/// a rate that is not a whole number of bits per second (`"0.5bps"`).
impl std::str::FromStr for Rate {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        let split = text
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E'))
            .unwrap_or(text.len());
        let (number, unit) = text.split_at(split);
        let value: f64 = number
            .parse()
            .map_err(|_| format!("`{text}` is not a rate such as \"2Mbps\""))?;
        let unit = unit.trim();
        let (prefix, per_second) = unit
            .strip_suffix("ps")
            .or_else(|| unit.strip_suffix("/s"))
            .map_or((unit, false), |p| (p, true));
        let (prefix, bits) = match prefix.strip_suffix('b') {
            Some(p) => (p, 1.0),
            None => (prefix.strip_suffix('B').unwrap_or("?"), 8.0),
        };
        let scale = match prefix {
            "" => Some(1.0),
            "k" | "K" => Some(1e3),
            "M" => Some(1e6),
            "G" => Some(1e9),
            _ => None,
        };
        let Some(scale) = scale.filter(|_| per_second) else {
            return Err(if unit.is_empty() {
                format!(
                    "`{text}` has no unit: write {text}Mbps, {text}kbps or {text}bps (bits per second), or MBps for bytes"
                )
            } else {
                format!(
                    "unknown rate unit `{unit}` in `{text}` (use bps, kbps, Mbps or Gbps; Bps, kBps, MBps or GBps for bytes per second)"
                )
            });
        };
        let bps = value * scale * bits;
        if !bps.is_finite() || bps < 0.0 || bps > u64::MAX as f64 {
            return Err(format!("rate `{text}` is out of range"));
        }
        if (bps - bps.round()).abs() > 1e-6 * bps.max(1.0) {
            return Err(format!(
                "rate `{text}` is {bps} bits per second: a rate is a whole number of bits per second"
            ));
        }
        Ok(Self::from_bps(bps.round() as u64))
    }
}

impl Serialize for Rate {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(
            untagged,
            expecting = "expected a rate such as \"2Mbps\" or a number of bits per second"
        )]
        enum Repr {
            Bps(u64),
            Text(String),
        }
        match Repr::deserialize(deserializer)? {
            Repr::Bps(bps) => Ok(Self::from_bps(bps)),
            Repr::Text(text) => text.parse().map_err(serde::de::Error::custom),
        }
    }
}

/// Converts nanoseconds to a [`Duration`], saturating at [`Duration::MAX`].
pub(crate) fn duration_from_nanos_saturating(nanos: u128) -> Duration {
    let secs = nanos / NANOS_PER_SEC;
    let sub = (nanos % NANOS_PER_SEC) as u32;
    match u64::try_from(secs) {
        Ok(secs) => Duration::new(secs, sub),
        Err(_) => Duration::MAX,
    }
}

/// Parses a duration written as `"45ms"`, `"1.5s"`, `"250us"`, `"100ns"`, `"2min"` or `"1h"`.
/// The unit is required (a bare `"45"` is an error naming the units), except for `"0"`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a duration such as \"45ms\""))?;
    let seconds_per_unit = match unit.trim() {
        // A bare number is ambiguous (`--delay 45`: seconds or milliseconds?); only zero,
        // which is zero in every unit, may omit its unit.
        "" if value == 0.0 => 1.0,
        "" => {
            return Err(format!(
                "`{text}` has no unit: write {text}ms, {text}s or another unit (ns, us, ms, s, min, h)"
            ));
        }
        "s" => 1.0,
        "ms" => 1e-3,
        "us" | "µs" => 1e-6,
        "ns" => 1e-9,
        "min" => 60.0,
        "h" => 3600.0,
        other => {
            return Err(format!(
                "unknown duration unit `{other}` in `{text}` (use ns, us, ms, s, min or h)"
            ));
        }
    };
    seconds_to_duration(value * seconds_per_unit)
        .ok_or_else(|| format!("duration `{text}` is out of range"))
}

/// Parses a duration in a format whose documented default unit is the second (netsim's trace
/// files: `12.5` is 12.5 s): a bare number is seconds, anything else as [`parse_duration`].
pub fn parse_seconds_or_duration(text: &str) -> Result<Duration, String> {
    match text.trim().parse::<f64>() {
        Ok(seconds) => {
            seconds_to_duration(seconds).ok_or_else(|| format!("duration `{text}` is out of range"))
        }
        Err(_) => parse_duration(text),
    }
}

/// `seconds` as a [`Duration`], or `None` when negative, not finite or too large.
pub(crate) fn seconds_to_duration(seconds: f64) -> Option<Duration> {
    Duration::try_from_secs_f64(seconds).ok()
}

/// Formats a duration in the largest unit that represents it exactly (`"45ms"`, `"1500us"`).
pub fn format_duration(duration: Duration) -> String {
    let nanos = duration.as_nanos();
    if nanos == 0 {
        "0s".to_owned()
    } else if nanos.is_multiple_of(NANOS_PER_SEC) {
        format!("{}s", nanos / NANOS_PER_SEC)
    } else if nanos.is_multiple_of(1_000_000) {
        format!("{}ms", nanos / 1_000_000)
    } else if nanos.is_multiple_of(1_000) {
        format!("{}us", nanos / 1_000)
    } else {
        format!("{nanos}ns")
    }
}

/// Serde adapter for [`Duration`] fields: `#[serde(with = "crate::units::serde_duration")]`.
pub mod serde_duration {
    use super::{format_duration, parse_duration, seconds_to_duration};
    use serde::{Deserialize, Deserializer, Serializer};
    use std::time::Duration;

    /// Writes the duration as [`format_duration`] does (`"45ms"`).
    pub fn serialize<S: Serializer>(value: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&format_duration(*value))
    }

    /// Reads `"45ms"`-style text or a number of seconds.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Duration, D::Error> {
        #[derive(Deserialize)]
        #[serde(
            untagged,
            expecting = "expected a duration such as \"45ms\" or a number of seconds"
        )]
        enum Repr {
            Seconds(f64),
            Text(String),
        }
        match Repr::deserialize(deserializer)? {
            Repr::Seconds(seconds) => seconds_to_duration(seconds).ok_or_else(|| {
                serde::de::Error::custom(format!("{seconds} s is not a valid duration"))
            }),
            Repr::Text(text) => parse_duration(&text).map_err(serde::de::Error::custom),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transmit_time_rounds_up_and_matches_hand_arithmetic() {
        // 1228 bytes at 2 Mb/s: 9824 bits / 2e6 bit/s = 4.912 ms.
        assert_eq!(
            Rate::from_mbps(2).transmit_time(1228),
            Duration::from_micros(4912)
        );
        // 1 byte at 3 bit/s = 8/3 s = 2.666...s, rounded up to the next nanosecond.
        assert_eq!(
            Rate::from_bps(3).transmit_time(1),
            Duration::new(2, 666_666_667)
        );
        assert_eq!(Rate::from_bps(0).transmit_time(1), Duration::MAX);
    }

    #[test]
    fn rates_parse_in_the_units_people_write() {
        assert_eq!("2Mbps".parse::<Rate>(), Ok(Rate::from_mbps(2)));
        assert_eq!("2 Mb/s".parse::<Rate>(), Ok(Rate::from_mbps(2)));
        assert_eq!("2.5Mbps".parse::<Rate>(), Ok(Rate::from_kbps(2500)));
        assert_eq!("9600bps".parse::<Rate>(), Ok(Rate::from_bps(9600)));
        // Bytes are a capital B: 8 bits.
        assert_eq!("2MBps".parse::<Rate>(), Ok(Rate::from_mbps(16)));
        assert_eq!("250kB/s".parse::<Rate>(), Ok(Rate::from_mbps(2)));
        assert_eq!("1Bps".parse::<Rate>(), Ok(Rate::from_bps(8)));
        // Ambiguous or fractional: refused, with the way out in the message.
        let bare = "2".parse::<Rate>().unwrap_err();
        assert!(bare.contains("no unit") && bare.contains("2Mbps"), "{bare}");
        assert!(
            "2mbps"
                .parse::<Rate>()
                .unwrap_err()
                .contains("unknown rate unit")
        );
        assert!(
            "0.5bps"
                .parse::<Rate>()
                .unwrap_err()
                .contains("whole number")
        );
        assert!("2 Mb".parse::<Rate>().is_err());
        assert!("2 furlongs".parse::<Rate>().is_err());
        assert!("-2Mbps".parse::<Rate>().is_err());
        assert_eq!(Rate::from_kbps(2500).to_string(), "2500kbps");
    }

    #[test]
    fn durations_parse_and_format_round_trip() {
        assert_eq!(parse_duration("45ms"), Ok(Duration::from_millis(45)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        let err = parse_duration("45").unwrap_err();
        assert!(err.contains("no unit") && err.contains("45ms"), "{err}");
        assert_eq!(parse_duration("0"), Ok(Duration::ZERO));
        assert_eq!(
            super::parse_seconds_or_duration("1.5"),
            Ok(Duration::from_millis(1500))
        );
        assert_eq!(
            super::parse_seconds_or_duration("20500ms"),
            Ok(Duration::from_millis(20500))
        );
        assert!(super::parse_seconds_or_duration("-1").is_err());
        assert_eq!(parse_duration("250us"), Ok(Duration::from_micros(250)));
        assert!(parse_duration("-1s").is_err());
        assert!(parse_duration("1 fortnight").is_err());
        for d in [
            Duration::ZERO,
            Duration::from_millis(45),
            Duration::from_nanos(1_500),
        ] {
            assert_eq!(parse_duration(&format_duration(d)), Ok(d));
        }
    }
}
