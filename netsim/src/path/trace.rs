//! Replay of a recorded or hand-written link-up/down schedule.
//!
//! # File format
//!
//! Plain text, one change per line; `#` starts a comment; blank lines are ignored:
//!
//! ```text
//! # netsim path trace: <time> <up|down> [hops]
//! 0       up
//! 12.5    down
//! 14s     up 3      # a 3-hop route from 14 s
//! 20500ms down
//! 21      up
//! ```
//!
//! - `time` is when the state starts, in seconds from the start of the run, either a bare
//!   number or a number with a unit (`ns`, `us`, `ms`, `s`, `min`, `h`).
//! - The first line must be at time 0 and times must strictly increase.
//! - `hops` (default 1, from 1 to 255) is the route length while up; it scales delay, per-hop
//!   errors and capacity as described in [`crate::link::LinkConfig`].
//! - The last state lasts forever.
//!
//! Parse errors name the line: `trace.txt: line 3: times must strictly increase (12s after 14s)`.

use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{PathSource, PathState};
use crate::config_error::ConfigError;
use crate::units::{format_duration, parse_seconds_or_duration};

/// The longest route a trace may give: IPv4's largest TTL. Each hop is work for every packet
/// (netsim's 802.11 layer transmits on each), so the bound keeps a run's work bounded.
pub const MAX_HOPS: u32 = 255;

/// A parsed up/down schedule: `(start time, state)` pairs, first at 0, strictly increasing.
///
/// (De)serializes as the text of the file format, so a TOML scenario can embed a schedule in a
/// multi-line string.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct TraceSchedule {
    entries: Vec<(Duration, PathState)>,
}

impl TraceSchedule {
    /// Parses the text format; `source_name` (a file name, say) prefixes error messages.
    pub fn parse(text: &str, source_name: &str) -> Result<Self, ConfigError> {
        let error = |line: usize, message: String| ConfigError::Parse {
            source_name: source_name.to_owned(),
            message: format!("line {line}: {message}"),
        };
        let mut entries: Vec<(Duration, PathState)> = Vec::new();
        for (index, raw) in text.lines().enumerate() {
            let line_no = index + 1;
            let content = raw.split('#').next().unwrap_or("").trim();
            if content.is_empty() {
                continue;
            }
            let mut words = content.split_whitespace();
            let (Some(time), Some(state)) = (words.next(), words.next()) else {
                return Err(error(
                    line_no,
                    format!("expected `<time> <up|down> [hops]`, found `{content}`"),
                ));
            };
            let at = parse_seconds_or_duration(time).map_err(|e| error(line_no, e))?;
            let state = match (state, words.next()) {
                ("down", None) => PathState::Down,
                ("down", Some(extra)) => {
                    return Err(error(line_no, format!("unexpected `{extra}` after `down`")));
                }
                ("up", None) => PathState::Up { hops: 1 },
                ("up", Some(hops)) => match hops.parse::<u32>() {
                    Ok(hops) if (1..=MAX_HOPS).contains(&hops) => PathState::Up { hops },
                    _ => {
                        return Err(error(
                            line_no,
                            format!("hops must be an integer in [1, {MAX_HOPS}], found `{hops}`"),
                        ));
                    }
                },
                (other, _) => {
                    return Err(error(
                        line_no,
                        format!("state must be `up` or `down`, found `{other}`"),
                    ));
                }
            };
            if let Some(extra) = words.next() {
                return Err(error(
                    line_no,
                    format!("unexpected `{extra}` at end of line"),
                ));
            }
            match entries.last() {
                None if !at.is_zero() => {
                    return Err(error(
                        line_no,
                        format!(
                            "the first entry must be at time 0, found {}",
                            format_duration(at)
                        ),
                    ));
                }
                Some(&(previous, _)) if at <= previous => {
                    return Err(error(
                        line_no,
                        format!(
                            "times must strictly increase ({} after {})",
                            format_duration(at),
                            format_duration(previous)
                        ),
                    ));
                }
                _ => {}
            }
            entries.push((at, state));
        }
        if entries.is_empty() {
            return Err(ConfigError::Parse {
                source_name: source_name.to_owned(),
                message: "the schedule has no entries".to_owned(),
            });
        }
        Ok(Self { entries })
    }

    /// Reads and parses a trace file.
    pub fn from_file(path: &Path) -> Result<Self, ConfigError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Parse {
            source_name: name.clone(),
            message: format!("cannot read: {e}"),
        })?;
        Self::parse(&text, &name)
    }

    /// The `(start time, state)` entries.
    pub fn entries(&self) -> &[(Duration, PathState)] {
        &self.entries
    }
}

impl TryFrom<String> for TraceSchedule {
    type Error = ConfigError;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        Self::parse(&text, "trace schedule")
    }
}

impl From<TraceSchedule> for String {
    fn from(schedule: TraceSchedule) -> Self {
        let mut text = String::new();
        for (at, state) in schedule.entries {
            let state = match state {
                PathState::Down => "down".to_owned(),
                PathState::Up { hops: 1 } => "up".to_owned(),
                PathState::Up { hops } => format!("up {hops}"),
            };
            text.push_str(&format!("{} {state}\n", format_duration(at)));
        }
        text
    }
}

fn default_interference_hops() -> u32 {
    3
}

/// Parameters of the trace-replay model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceConfig {
    /// The schedule to replay.
    pub schedule: TraceSchedule,
    /// Hop count beyond which extra hops stop dividing capacity (default 3; see
    /// [`crate::link::LinkConfig`]).
    #[serde(default = "default_interference_hops")]
    pub interference_hops: u32,
}

impl TraceConfig {
    /// A trace config with the default interference range.
    pub fn new(schedule: TraceSchedule) -> Self {
        Self {
            schedule,
            interference_hops: default_interference_hops(),
        }
    }

    /// Checks the parameters; `field` is the path of this config.
    pub fn validate(&self, field: &str) -> Result<(), ConfigError> {
        if self.interference_hops == 0 {
            return Err(ConfigError::out_of_range(
                format!("{field}.interference_hops"),
                0,
                ">= 1",
            ));
        }
        Ok(())
    }
}

/// The segment generator for a [`TraceSchedule`].
#[derive(Debug)]
pub(crate) struct TraceSource {
    schedule: TraceSchedule,
    next: usize,
}

impl TraceSource {
    pub(crate) fn new(schedule: TraceSchedule) -> Self {
        Self { schedule, next: 0 }
    }
}

impl PathSource for TraceSource {
    fn next_segment(&mut self) -> (Option<Duration>, PathState) {
        let entries = &self.schedule.entries;
        let Some(&(start, state)) = entries.get(self.next) else {
            // Parsing guarantees at least one entry; stay down rather than panic if not.
            return (None, PathState::Down);
        };
        self.next += 1;
        let length = entries
            .get(self.next)
            .map(|&(end, _)| end.saturating_sub(start));
        if length.is_none() {
            // The last entry lasts forever; keep answering it.
            self.next -= 1;
        }
        (length, state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_example() {
        let text =
            "# netsim path trace\n0 up\n12.5 down\n14s up 3 # comment\n\n20500ms down\n21 up\n";
        let schedule = TraceSchedule::parse(text, "t").unwrap();
        assert_eq!(
            schedule.entries(),
            &[
                (Duration::ZERO, PathState::Up { hops: 1 }),
                (Duration::from_millis(12_500), PathState::Down),
                (Duration::from_secs(14), PathState::Up { hops: 3 }),
                (Duration::from_millis(20_500), PathState::Down),
                (Duration::from_secs(21), PathState::Up { hops: 1 }),
            ]
        );
        let round_trip = TraceSchedule::parse(&String::from(schedule.clone()), "t").unwrap();
        assert_eq!(round_trip, schedule);
    }

    #[test]
    fn errors_name_the_line() {
        let cases = [
            (
                "0 up\n5 sideways\n",
                "t: line 2: state must be `up` or `down`, found `sideways`",
            ),
            (
                "0 up\n5 down\n4 up\n",
                "t: line 3: times must strictly increase (4s after 5s)",
            ),
            (
                "1 up\n",
                "t: line 1: the first entry must be at time 0, found 1s",
            ),
            (
                "0 up 0\n",
                "t: line 1: hops must be an integer in [1, 255], found `0`",
            ),
            (
                "0 up 4294967295\n",
                "t: line 1: hops must be an integer in [1, 255], found `4294967295`",
            ),
            ("# only a comment\n", "t: the schedule has no entries"),
            (
                "0\n",
                "t: line 1: expected `<time> <up|down> [hops]`, found `0`",
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(
                TraceSchedule::parse(text, "t").unwrap_err().to_string(),
                expected
            );
        }
    }
}
