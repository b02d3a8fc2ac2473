//! Which simulator carries a run's datagrams: netsim's fast model (the default) or ns-3's
//! 802.11 ad hoc MANET (`netsim-ns3`, cargo feature `ns3`).
//!
//! In a scenario file, `backend = "ns3"` selects ns-3 and an `[ns3]` table sets its scenario
//! (`netsim_ns3::Ns3Config`; see netsim-ns3/README.md). When the `[link.path]` is netsim's
//! mobility model, its terrain and movement carry over to ns-3 (nodes, area, speeds, pause,
//! radio range, source, sink), so one scenario file runs on both backends; `[ns3]` keys override
//! them. On ns-3 the rest of `[link]` (rate, delay, queue, error models) does not apply: the
//! 802.11 MAC and PHY take their place.

use netsim::{LinkConfig, PathModelConfig};
use netsim_ns3::{Ns3Config, Propagation, Topology};
use serde::{Deserialize, Serialize};
use toml::{Table, Value};

use crate::scenario::tomldoc;

/// The backend a scenario file names.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BackendKind {
    /// netsim's link and path models.
    #[default]
    Netsim,
    /// ns-3's 802.11 ad hoc MANET.
    Ns3,
}

impl BackendKind {
    /// `"netsim"` or `"ns3"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Netsim => "netsim",
            Self::Ns3 => "ns3",
        }
    }
}

/// A resolved backend: the kind, and ns-3's scenario when it is ns-3.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Backend {
    /// netsim's link (the scenario's `link`).
    #[default]
    Netsim,
    /// ns-3, with this scenario.
    Ns3(Box<Ns3Config>),
}

impl Backend {
    /// True for netsim (whose outputs carry no backend field, as before ns-3 existed).
    pub fn is_netsim(&self) -> bool {
        matches!(self, Self::Netsim)
    }

    /// The kind.
    pub fn kind(&self) -> BackendKind {
        match self {
            Self::Netsim => BackendKind::Netsim,
            Self::Ns3(_) => BackendKind::Ns3,
        }
    }

    /// ns-3's scenario, if this is ns-3.
    pub fn ns3(&self) -> Option<&Ns3Config> {
        match self {
            Self::Netsim => None,
            Self::Ns3(config) => Some(config),
        }
    }
}

/// ns-3's scenario before the `[ns3]` table: the defaults, with the terrain and movement of a
/// netsim mobility path (and its source and sink, which give way to the pairs when `[ns3]`
/// sets several `sources`).
pub fn inherited(link: &LinkConfig) -> Ns3Config {
    let mut config = Ns3Config::default();
    if let PathModelConfig::Mobility(mobility) = &link.path {
        config.nodes = mobility.nodes;
        config.area_width = mobility.area_width;
        config.area_height = mobility.area_height;
        config.topology = Topology::RandomWaypoint {
            min_speed: mobility.min_speed,
            max_speed: mobility.max_speed,
            pause: mobility.pause,
            movement: netsim_ns3::Movement::Ns3,
        };
        config.propagation = Propagation::Range {
            range: mobility.radio_range,
        };
        config.source = mobility.source;
        config.sink = Some(mobility.sink);
    }
    config
}

/// Applies the `[ns3]` table to `base`. A `topology` or `propagation` table naming another
/// `model` than the base's replaces it instead of merging into it. Errors are serde's, naming
/// the field.
pub fn resolve(base: &Ns3Config, table: Option<&Table>) -> Result<Ns3Config, String> {
    let Some(table) = table else {
        return Ok(base.clone());
    };
    apply(base, table).map_err(|e| match first_unreadable(base, table) {
        // serde's message names the type, not the key: name the key that carries it.
        // The key is not quoted, so it is cut here; a long value is a quoted string, which
        // the error itself cuts (`HarnessError::bad_input`).
        Some((key, value)) => format!("{} = {value}: {e}", crate::error::shorten(&key)),
        None => e,
    })
}

/// Every leaf of `table` as a dotted key and its value (a table's fields, not the table).
fn leaves(table: &Table, prefix: &str, out: &mut Vec<(String, Value)>) {
    for (key, value) in table {
        let path = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        match value {
            // A model's table (topology, propagation) reads as a whole.
            Value::Table(t) if !t.contains_key("model") => leaves(t, &path, out),
            other => out.push((path, other.clone())),
        }
    }
}

/// The first leaf of `table` that alone makes `base` unreadable.
fn first_unreadable(base: &Ns3Config, table: &Table) -> Option<(String, Value)> {
    let mut all = Vec::new();
    leaves(table, "", &mut all);
    all.into_iter().find(|(key, value)| {
        let mut one = Table::new();
        tomldoc::set_path(&mut one, key, value.clone()).is_ok() && apply(base, &one).is_err()
    })
}

fn apply(base: &Ns3Config, table: &Table) -> Result<Ns3Config, String> {
    let mut doc = match Value::try_from(base) {
        Ok(Value::Table(doc)) => doc,
        Ok(_) | Err(_) => return Err("cannot represent the ns-3 scenario as TOML".to_owned()),
    };
    for key in ["topology", "propagation"] {
        let model = |t: &Table| t.get(key).and_then(|v| v.get("model")).cloned();
        if let Some(new) = model(table)
            && model(&doc).as_ref() != Some(&new)
        {
            doc.remove(key);
        }
    }
    tomldoc::set_path(&mut doc, "", Value::Table(table.clone()))?;
    let mut config = Value::Table(doc)
        .try_into::<Ns3Config>()
        .map_err(|e| e.message().trim().to_owned())?;
    let random_waypoint = matches!(config.topology, Topology::RandomWaypoint { .. });
    for key in ["area_width", "area_height"] {
        if table.contains_key(key) && !random_waypoint {
            return Err(format!(
                "{key}: the terrain's size is random waypoint's only, and this scenario's \
                 topology places its nodes itself, so it would not act; drop it"
            ));
        }
    }
    if table.contains_key("route_sample")
        && !matches!(config.propagation, Propagation::Range { .. })
    {
        return Err(
            "route_sample: route availability is sampled on the range propagation model's \
             unit disk only, and this scenario propagates otherwise, so it would not act; drop it"
                .to_owned(),
        );
    }
    let topology_replaced =
        table.get("topology").and_then(|t| t.get("model")).is_some() && !random_waypoint;
    if topology_replaced {
        // A netsim mobility path's source and sink (its two nodes' indices) belong to its
        // movement; a chain or grid runs end to end unless [ns3] names the ends.
        if !table.contains_key("source") {
            config.source = 0;
        }
        if !table.contains_key("sink") {
            config.sink = None;
        }
    }
    // -0.0 and 0.0 are one bit error rate: one spelling, so that they are one run id.
    if config.wifi.bit_error_rate == 0.0 {
        config.wifi.bit_error_rate = 0.0;
    }
    if config.sources > 1 {
        // Pair i runs from node i to node nodes - 1 - i: a netsim mobility path's single
        // route (its source and sink) gives way to the pairs. One set in [ns3] is refused by
        // `Ns3Config::validate`, which names it.
        if !table.contains_key("source") {
            config.source = 0;
        }
        if !table.contains_key("sink") {
            config.sink = None;
        }
    }
    if config.routing != netsim_ns3::Routing::Aodv {
        if table.contains_key("aodv") {
            return Err(format!(
                "aodv: applies to routing = \"aodv\" only, and this scenario routes with {}",
                config.routing.as_str()
            ));
        }
        // Unused by ns-3 there: one value, so that two configs that run the same network are
        // equal (and hash to one run id).
        config.aodv = netsim_ns3::AodvConfig::default();
    }
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mobility_path_carries_over_and_ns3_keys_override_it() {
        let link: LinkConfig = toml::from_str(
            "path = { model = \"mobility\", nodes = 30, min_speed = 5.0, max_speed = 10.0, radio_range = 200.0, sink = 7 }",
        )
        .unwrap();
        let base = inherited(&link);
        assert_eq!(base.nodes, 30);
        assert_eq!(base.sink, Some(7));
        assert_eq!(base.propagation, Propagation::Range { range: 200.0 });
        let table: Table =
            toml::from_str("routing = \"olsr\"\n[topology]\nmax_speed = 20.0").unwrap();
        let config = resolve(&base, Some(&table)).unwrap();
        assert_eq!(config.routing, netsim_ns3::Routing::Olsr);
        let Topology::RandomWaypoint {
            min_speed,
            max_speed,
            ..
        } = config.topology
        else {
            panic!("{:?}", config.topology);
        };
        assert_eq!((min_speed, max_speed), (5.0, 20.0));
        let chain: Table =
            toml::from_str("topology = { model = \"chain\", spacing = 150.0 }").unwrap();
        assert_eq!(
            resolve(&base, Some(&chain)).unwrap().topology,
            Topology::Chain { spacing: 150.0 }
        );
        let wrong: Table = toml::from_str("nodez = 3").unwrap();
        assert!(
            resolve(&base, Some(&wrong))
                .unwrap_err()
                .contains("unknown field `nodez`")
        );
    }
}
