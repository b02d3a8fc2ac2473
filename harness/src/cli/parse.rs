//! The value parsers of the command line's flags (clap's `value_parser`s): each reads one
//! flag's text and says what is wrong with it, naming the value and the allowed form.

use std::time::Duration;

use toml::Value;

use crate::registry;
use crate::scenario::tomldoc;

pub(super) fn parse_duration(text: &str) -> std::result::Result<Duration, String> {
    netsim::units::parse_duration(text)
}

pub(super) fn parse_rate(text: &str) -> std::result::Result<String, String> {
    text.parse::<netsim::Rate>().map(|r| r.to_string())
}

pub(super) fn parse_bytes(text: &str) -> std::result::Result<u64, String> {
    let t = text.trim();
    let (number, multiplier) = match t.chars().last() {
        Some('k' | 'K') => (&t[..t.len() - 1], 1e3),
        Some('M') => (&t[..t.len() - 1], 1e6),
        Some('G') => (&t[..t.len() - 1], 1e9),
        _ => (t, 1.0),
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a byte count such as 10M or 500000"))?;
    let bytes = value * multiplier;
    if !(1.0..=1e12).contains(&bytes) {
        return Err(format!(
            "{text} is out of range: it must be in [1, 1e12] bytes"
        ));
    }
    Ok(bytes.round() as u64)
}

/// `--gilbert-elliott P,R,LG,LB`: four probabilities, comma-separated.
pub(super) fn parse_gilbert_elliott(text: &str) -> std::result::Result<[f64; 4], String> {
    const NAMES: [&str; 4] = [
        "P (good to bad)",
        "R (bad to good)",
        "LG (loss when good)",
        "LB (loss when bad)",
    ];
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() != 4 {
        return Err(format!(
            "`{text}`: expected four comma-separated probabilities P,R,LG,LB, e.g. 0.01,0.1,0,0.5"
        ));
    }
    let mut values = [0.0; 4];
    for ((value, part), name) in values.iter_mut().zip(&parts).zip(NAMES) {
        *value = part
            .parse::<f64>()
            .ok()
            .filter(|v| (0.0..=1.0).contains(v))
            .ok_or_else(|| format!("`{text}`: {name} = `{part}` is not a probability in [0, 1]"))?;
    }
    Ok(values)
}

pub(super) fn parse_key_value(text: &str) -> std::result::Result<(String, Value), String> {
    let (key, value) = text
        .split_once('=')
        .ok_or_else(|| format!("`{text}` is not KEY=VALUE"))?;
    if key.trim().is_empty() {
        return Err(format!("`{text}` has an empty key"));
    }
    Ok((key.trim().to_owned(), tomldoc::parse_value(value.trim())))
}

pub(super) fn parse_knob(text: &str) -> std::result::Result<(String, String, Value), String> {
    let (key, value) = parse_key_value(text)?;
    let (name, knob) = key.split_once('.').ok_or_else(|| {
        format!("`{text}` is not NAME.KNOB=VALUE (e.g. karak.one_dup_ack_factor=0.2)")
    })?;
    let info = registry::lookup(name)?;
    // A duration knob needs its unit on the command line, as every duration flag does: a bare
    // `5` would read as seconds in TOML. Zero is zero in every unit.
    let is_duration = info
        .knobs
        .iter()
        .any(|k| k.name == knob && k.kind == cc_core::KnobKind::Duration);
    let bare = match &value {
        Value::Integer(n) => *n != 0,
        Value::Float(x) => *x != 0.0,
        _ => false,
    };
    if is_duration && bare {
        return Err(format!(
            "`{text}`: {name}.{knob} is a duration and `{value}` has no unit: write {value}ms, {value}s or another unit (ns, us, ms, s, min, h)"
        ));
    }
    Ok((name.to_owned(), knob.to_owned(), value))
}
