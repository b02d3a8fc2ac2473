//! Serde helpers for the units people write in scenario files: durations as `"45ms"`, `"1.5s"`
//! or a number of seconds (netsim's parser and formatter, so both crates read the same text).

use std::time::Duration;

use serde::{Deserialize, Deserializer, Serializer};

#[derive(Deserialize)]
#[serde(
    untagged,
    expecting = "expected a duration such as \"45ms\" or a number of seconds"
)]
enum Repr {
    Seconds(f64),
    Text(String),
}

fn from_repr<E: serde::de::Error>(repr: Repr) -> Result<Duration, E> {
    match repr {
        Repr::Seconds(s) => Duration::try_from_secs_f64(s)
            .map_err(|_| E::custom(format!("{s} s is not a valid duration (finite and >= 0)"))),
        Repr::Text(text) => netsim::units::parse_duration(&text).map_err(E::custom),
    }
}

/// `#[serde(with = "crate::scenario::units::duration")]` for `Duration` fields.
pub mod duration {
    use super::*;

    /// Writes the duration as netsim formats it (`"45ms"`).
    pub fn serialize<S: Serializer>(value: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&netsim::units::format_duration(*value))
    }

    /// Reads `"45ms"` or a number of seconds.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Duration, D::Error> {
        from_repr(Repr::deserialize(deserializer)?)
    }
}

/// `#[serde(with = "crate::scenario::units::opt_duration")]` for `Option<Duration>` fields.
pub mod opt_duration {
    use super::*;

    /// Writes `None` as nothing and `Some` as `"45ms"`.
    pub fn serialize<S: Serializer>(
        value: &Option<Duration>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(d) => serializer.serialize_str(&netsim::units::format_duration(*d)),
            None => serializer.serialize_none(),
        }
    }

    /// Reads `"45ms"` or a number of seconds.
    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Duration>, D::Error> {
        from_repr(Repr::deserialize(deserializer)?).map(Some)
    }
}

/// A duration or `"off"`: `idle_timeout = "off"` or `idle_timeout = "30s"`.
pub mod duration_or_off {
    use super::*;

    /// Writes `"off"` or `"30s"`.
    pub fn serialize<S: Serializer>(
        value: &Option<Duration>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(d) => serializer.serialize_str(&netsim::units::format_duration(*d)),
            None => serializer.serialize_str("off"),
        }
    }

    /// Reads what [`serialize`] writes: `"off"` as `None`, a duration as `Some`.
    pub fn deserialize_resolved<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Duration>, D::Error> {
        deserialize(deserializer).map(Option::flatten)
    }

    /// Reads `"off"`, `"30s"` or a number of seconds.
    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Option<Duration>>, D::Error> {
        match Repr::deserialize(deserializer)? {
            Repr::Text(text) if text == "off" || text == "none" => Ok(Some(None)),
            repr => from_repr(repr).map(|d| Some(Some(d))),
        }
    }
}
