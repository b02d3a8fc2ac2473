//! A controller's knobs as data: name, meaning, allowed range, and typed access, so that a CLI,
//! a scenario file and a help screen all derive from one declaration ([`crate::port_config!`]).

use crate::ConfigError;
use std::fmt;
use std::time::Duration;

/// The value of one knob, whatever its type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum KnobValue {
    /// A real number.
    Float(f64),
    /// A non-negative integer.
    Integer(u64),
    /// A switch.
    Bool(bool),
    /// A length of time.
    Duration(Duration),
}

impl fmt::Display for KnobValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Float(v) => write!(f, "{v}"),
            Self::Integer(v) => write!(f, "{v}"),
            Self::Bool(v) => write!(f, "{v}"),
            Self::Duration(v) => write!(f, "{v:?}"),
        }
    }
}

/// The type of a knob's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KnobKind {
    /// A real number (integers are accepted).
    Float,
    /// A non-negative integer.
    Integer,
    /// `true` or `false`.
    Bool,
    /// A duration.
    Duration,
}

impl KnobKind {
    /// What a value of this kind looks like, for errors ("expected a number").
    pub fn expected(self) -> &'static str {
        match self {
            Self::Float => "a number",
            Self::Integer => "a non-negative integer",
            Self::Bool => "true or false",
            Self::Duration => "a duration such as \"100ms\"",
        }
    }
}

/// A Rust type a knob can have, and its conversions to and from [`KnobValue`].
pub trait KnobType: Copy + fmt::Debug + Sized {
    /// The kind of value.
    const KIND: KnobKind;
    /// As a [`KnobValue`].
    fn to_value(self) -> KnobValue;
    /// From a [`KnobValue`] of the same kind (a float knob also takes an integer).
    fn from_value(value: KnobValue) -> Option<Self>;
}

impl KnobType for f64 {
    const KIND: KnobKind = KnobKind::Float;
    fn to_value(self) -> KnobValue {
        KnobValue::Float(self)
    }
    fn from_value(value: KnobValue) -> Option<Self> {
        match value {
            KnobValue::Float(v) => Some(v),
            KnobValue::Integer(v) => Some(v as f64),
            _ => None,
        }
    }
}

impl KnobType for u64 {
    const KIND: KnobKind = KnobKind::Integer;
    fn to_value(self) -> KnobValue {
        KnobValue::Integer(self)
    }
    fn from_value(value: KnobValue) -> Option<Self> {
        match value {
            KnobValue::Integer(v) => Some(v),
            _ => None,
        }
    }
}

impl KnobType for bool {
    const KIND: KnobKind = KnobKind::Bool;
    fn to_value(self) -> KnobValue {
        KnobValue::Bool(self)
    }
    fn from_value(value: KnobValue) -> Option<Self> {
        match value {
            KnobValue::Bool(v) => Some(v),
            _ => None,
        }
    }
}

impl KnobType for Duration {
    const KIND: KnobKind = KnobKind::Duration;
    fn to_value(self) -> KnobValue {
        KnobValue::Duration(self)
    }
    fn from_value(value: KnobValue) -> Option<Self> {
        match value {
            KnobValue::Duration(v) => Some(v),
            _ => None,
        }
    }
}

/// The values a knob allows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Range {
    /// Every value of its type (switches).
    Any,
    /// `(0, 1]`: a multiplicative-decrease factor.
    UnitFactor,
    /// `[0, 1)`: the weight of the previous value in a low-pass filter.
    FilterGain,
    /// Reals in `[min, max]`, in `unit` (empty for none).
    Real {
        /// Smallest allowed.
        min: f64,
        /// Largest allowed.
        max: f64,
        /// Unit, printed after the range (`"packets"`), or empty.
        unit: &'static str,
    },
    /// Integers in `min..=max`, in `unit` (empty for none).
    Integer {
        /// Smallest allowed.
        min: u64,
        /// Largest allowed.
        max: u64,
    },
    /// Durations in `[min, max]`.
    Duration {
        /// Shortest allowed.
        min: Duration,
        /// Longest allowed.
        max: Duration,
    },
}

impl Range {
    /// An initial window in datagrams: 2 (RFC 9002's minimum window) to 1000.
    pub const INITIAL_WINDOW_PACKETS: Self = Self::Integer { min: 2, max: 1000 };

    /// A pacing gain over a bandwidth estimate: 0 (off) to 4
    /// ([`crate::WestwoodEstimator::pacing_rate`]).
    pub const PACING_GAIN: Self = Self::Real {
        min: 0.0,
        max: 4.0,
        unit: "",
    };

    /// The allowed range in words, as errors and help screens print it.
    pub fn describe(&self) -> String {
        match self {
            Self::Any => "any".to_owned(),
            Self::UnitFactor => "(0, 1]".to_owned(),
            Self::FilterGain => "[0, 1)".to_owned(),
            Self::Real { min, max, unit: "" } => format!("[{min}, {max}]"),
            Self::Real { min, max, unit } => format!("[{min}, {max}] {unit}"),
            Self::Integer { min, max } => format!("{min} to {max}"),
            Self::Duration { min, max } if min.is_zero() => format!("0 to {max:?}"),
            Self::Duration { min, max } => format!("{min:?} to {max:?}"),
        }
    }

    /// Whether `value` lies in the range (a value of another kind does not).
    pub fn contains(&self, value: KnobValue) -> bool {
        match (self, value) {
            (Self::Any, _) => true,
            (Self::UnitFactor, KnobValue::Float(v)) => v > 0.0 && v <= 1.0,
            (Self::FilterGain, KnobValue::Float(v)) => (0.0..1.0).contains(&v),
            (Self::Real { min, max, .. }, KnobValue::Float(v)) => (*min..=*max).contains(&v),
            (Self::Integer { min, max }, KnobValue::Integer(v)) => (*min..=*max).contains(&v),
            (Self::Duration { min, max }, KnobValue::Duration(v)) => (*min..=*max).contains(&v),
            _ => false,
        }
    }

    /// `value` if the range contains it, else an error naming `field` and the range.
    pub fn check<T: KnobType>(&self, field: &'static str, value: T) -> Result<T, ConfigError> {
        if self.contains(value.to_value()) {
            Ok(value)
        } else {
            Err(ConfigError::new(field, value.to_value(), self.describe()))
        }
    }
}

/// One knob of the controller configuration `C`, declared once with [`crate::port_config!`].
pub struct Knob<C> {
    /// Its name: the config's field, getter and TOML key.
    pub name: &'static str,
    /// What it does: the field's doc comment, one line per doc line (see [`Self::text`]).
    pub doc: &'static str,
    /// The type of its value.
    pub kind: KnobKind,
    /// The values it allows.
    pub range: Range,
    /// Reads it from a config.
    pub get: fn(&C) -> KnobValue,
    /// Sets it after checking its own range. Cross-field rules are left to
    /// [`crate::PortConfig::validate`], so several knobs can change before one check.
    pub set: fn(&mut C, KnobValue) -> Result<(), ConfigError>,
}

impl<C> Knob<C> {
    /// The knob's value in `C::default()`.
    pub fn default_value(&self) -> KnobValue
    where
        C: Default,
    {
        (self.get)(&C::default())
    }

    /// Its doc comment as one paragraph.
    pub fn text(&self) -> String {
        self.doc.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// The first sentence of its doc comment: a one-line summary. A sentence ends at a period
    /// followed by a space and a capital letter, so "eq. 4.4" does not end one.
    pub fn summary(&self) -> String {
        let text = self.text();
        let end = text
            .match_indices(". ")
            .map(|(i, _)| i)
            .find(|&i| text[i + 2..].starts_with(|c: char| c.is_uppercase()))
            .unwrap_or(text.len());
        text[..end].trim_end_matches('.').to_owned()
    }
}

impl<C> fmt::Debug for Knob<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Knob")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("range", &self.range)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_accept_their_values_and_name_the_field_otherwise() {
        assert!(Range::UnitFactor.check("f", 1.0).is_ok());
        for bad in [0.0, -0.1, 1.01, f64::NAN, f64::INFINITY] {
            let err = Range::UnitFactor.check("f", bad).unwrap_err();
            assert_eq!(err.field, "f");
            assert!(err.to_string().contains("(0, 1]"), "{err}");
        }
        assert!(Range::FilterGain.check("g", 0.0).is_ok());
        assert!(Range::FilterGain.check("g", 1.0).is_err());
        let err = Range::INITIAL_WINDOW_PACKETS
            .check("iw", 1_u64)
            .unwrap_err();
        assert!(err.to_string().contains("2 to 1000"), "{err}");
        let real = Range::Real {
            min: 0.0,
            max: 1e6,
            unit: "packets",
        };
        assert!(real.check("a", 5.0).is_ok());
        assert!(real.describe().ends_with("packets"));
        assert!(Range::Any.check("b", true).is_ok());
        let d = Range::Duration {
            min: Duration::ZERO,
            max: Duration::from_secs(60),
        };
        assert!(d.check("d", Duration::from_secs(61)).is_err());
    }

    #[test]
    fn a_summary_is_the_first_sentence() {
        let knob = Knob::<()> {
            name: "k",
            doc: " Weight in eq. 4.4 (0.9 in section 4.1.1).\n Allowed: anything. More.",
            kind: KnobKind::Float,
            range: Range::FilterGain,
            get: |_| KnobValue::Float(0.0),
            set: |_, _| Ok(()),
        };
        assert_eq!(knob.summary(), "Weight in eq. 4.4 (0.9 in section 4.1.1)");
        assert!(knob.text().ends_with("Allowed: anything. More."));
    }

    #[test]
    fn kinds_convert_only_to_themselves() {
        assert_eq!(f64::from_value(KnobValue::Integer(2)), Some(2.0));
        assert_eq!(u64::from_value(KnobValue::Float(2.0)), None);
        assert_eq!(bool::from_value(KnobValue::Integer(1)), None);
        assert_eq!(
            KnobValue::Duration(Duration::from_millis(100)).to_string(),
            "100ms"
        );
    }
}
