//! The scenario file as serde reads it: one struct per TOML section, every key optional and
//! unknown keys refused (so that a misspelt key is an error naming its line). `point` turns a
//! point's [`ScenarioFile`] into a resolved scenario.

use std::collections::BTreeMap;
use std::time::Duration;

use netsim::{Clock, DirectionConfig, MacConfig, PacketProtection, PathModelConfig};
use serde::Deserialize;
use toml::{Table, Value};

use crate::scenario::backend::BackendKind;
use crate::stack::Stack;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ScenarioFile {
    pub(super) name: Option<String>,
    pub(super) description: Option<String>,
    pub(super) paper: Option<String>,
    pub(super) seeds: Option<Seeds>,
    pub(super) flows: Option<u32>,
    #[serde(default, with = "crate::scenario::units::opt_duration")]
    pub(super) flow_stagger: Option<Duration>,
    #[serde(default)]
    pub(super) flow: Vec<FlowEntry>,
    pub(super) clock: Option<Clock>,
    pub(super) packet_protection: Option<PacketProtection>,
    pub(super) stack: Option<Stack>,
    pub(super) receiver: Option<Stack>,
    pub(super) backend: Option<BackendKind>,
    pub(super) ns3: Option<Table>,
    #[serde(default)]
    pub(super) transfer: TransferSection,
    #[serde(default)]
    pub(super) transport: TransportSection,
    #[serde(default)]
    pub(super) link: LinkSection,
    #[serde(default)]
    pub(super) controllers: ControllersSection,
    #[serde(default)]
    pub(super) axis: Vec<Axis>,
}

#[derive(Debug, Deserialize)]
#[serde(
    untagged,
    expecting = "expected a number of seeds such as 5 or a list such as [1, 2, 3]"
)]
pub(super) enum Seeds {
    Count(i64),
    List(Vec<i64>),
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TransferSection {
    #[serde(default, with = "crate::scenario::units::opt_duration")]
    pub(super) duration: Option<Duration>,
    pub(super) bytes: Option<i64>,
    #[serde(default, with = "crate::scenario::units::opt_duration")]
    pub(super) timeout: Option<Duration>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TransportSection {
    #[serde(
        default,
        deserialize_with = "crate::scenario::units::duration_or_off::deserialize"
    )]
    pub(super) idle_timeout: Option<Option<Duration>>,
    pub(super) packet_threshold: Option<u32>,
    pub(super) time_threshold: Option<f32>,
    pub(super) timeout_reading: Option<cc_core::TimeoutReading>,
    pub(super) quinn_full_window: Option<bool>,
    #[serde(default, with = "crate::scenario::units::opt_duration")]
    pub(super) ack_delay: Option<Duration>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct LinkSection {
    #[expect(
        dead_code,
        reason = "parsed for its errors (line and field); folded into the directions before use"
    )]
    pub(super) both: Option<DirectionConfig>,
    pub(super) a_to_b: Option<DirectionConfig>,
    pub(super) b_to_a: Option<DirectionConfig>,
    pub(super) path: Option<PathModelConfig>,
    pub(super) mac: Option<MacConfig>,
}

#[derive(Debug, Default, Clone, Deserialize)]
pub(super) struct ControllersSection {
    pub(super) select: Option<Vec<String>>,
    #[serde(flatten)]
    pub(super) settings: BTreeMap<String, BTreeMap<String, Value>>,
}

/// One `[[flow]]` table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FlowEntry {
    pub(super) controller: Option<String>,
    #[serde(default, with = "crate::scenario::units::opt_duration")]
    pub(super) start: Option<Duration>,
    #[serde(default, with = "crate::scenario::units::opt_duration")]
    pub(super) access_delay: Option<Duration>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Axis {
    pub(super) key: String,
    pub(super) name: Option<String>,
    pub(super) values: Vec<Value>,
    pub(super) labels: Option<Vec<String>>,
}
