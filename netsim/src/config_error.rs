//! The error every configuration check returns: it names the offending field and the allowed
//! range, so a user can fix a scenario file without reading the source.

/// A configuration value that netsim refuses to run with.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ConfigError {
    /// A numeric value lies outside its allowed range.
    #[error("{field} = {value} is out of range: it must be {allowed}")]
    OutOfRange {
        /// Dotted path of the field, e.g. `a_to_b.errors[0].p`.
        field: String,
        /// The rejected value, formatted.
        value: String,
        /// The allowed range, in words, e.g. `in [0, 1]`.
        allowed: String,
    },
    /// A value that is invalid for a reason other than its range.
    #[error("{field}: {reason}")]
    Invalid {
        /// Dotted path of the field.
        field: String,
        /// Why the value is rejected.
        reason: String,
    },
    /// A configuration text (TOML or a trace file) could not be parsed.
    #[error("{source_name}: {message}")]
    Parse {
        /// Where the text came from (a file name, or `<string>`).
        source_name: String,
        /// The parser's message, with the line where it applies.
        message: String,
    },
}

impl ConfigError {
    /// An out-of-range error for `field`.
    pub fn out_of_range(
        field: impl Into<String>,
        value: impl std::fmt::Display,
        allowed: impl Into<String>,
    ) -> Self {
        Self::OutOfRange {
            field: field.into(),
            value: value.to_string(),
            allowed: allowed.into(),
        }
    }

    /// An invalid-value error for `field`.
    pub fn invalid(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::Invalid {
            field: field.into(),
            reason: reason.into(),
        }
    }
}

/// Checks `0 <= value <= 1` (NaN rejected).
pub(crate) fn check_probability(field: &str, value: f64) -> Result<(), ConfigError> {
    if (0.0..=1.0).contains(&value) {
        Ok(())
    } else {
        Err(ConfigError::out_of_range(field, value, "in [0, 1]"))
    }
}

/// Checks `0 <= value < 1` (NaN rejected): a bit error rate of 1 would corrupt every datagram
/// and make the per-datagram formula degenerate.
pub(crate) fn check_unit_interval_open(field: &str, value: f64) -> Result<(), ConfigError> {
    if (0.0..1.0).contains(&value) {
        Ok(())
    } else {
        Err(ConfigError::out_of_range(field, value, "in [0, 1)"))
    }
}

/// Checks that a float is finite and strictly positive.
pub(crate) fn check_positive(field: &str, value: f64) -> Result<(), ConfigError> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(ConfigError::out_of_range(field, value, "finite and > 0"))
    }
}

/// Checks that the duration `value` is at most `max`; the error shows both as durations.
pub(crate) fn check_duration_at_most(
    field: &str,
    value: std::time::Duration,
    max: std::time::Duration,
) -> Result<(), ConfigError> {
    if value <= max {
        return Ok(());
    }
    Err(ConfigError::out_of_range(
        field,
        crate::units::format_duration(value),
        format!("at most {}", crate::units::format_duration(max)),
    ))
}

/// Checks that `value` is finite, positive (as [`check_positive`]) and at most `max` (`unit`
/// names what it counts): a bound far beyond any modelled network, so that a typo (`1e30`) is
/// an error, not a run.
pub(crate) fn check_positive_at_most(
    field: &str,
    value: f64,
    max: f64,
    unit: &str,
) -> Result<(), ConfigError> {
    check_positive(field, value)?;
    if value <= max {
        Ok(())
    } else {
        Err(ConfigError::out_of_range(
            field,
            value,
            format!("at most {max} {unit}"),
        ))
    }
}
