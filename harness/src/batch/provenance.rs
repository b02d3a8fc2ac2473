//! What code made a result file's runs, in a form the current code can check.
//!
//! A run's id hashes everything that can change its bytes (`scenario::run_id`), so a changed
//! controller or stack gives new ids; but an id alone cannot say *what* changed. A result
//! file's header therefore carries its grid's [`Provenance`]: every controller's spec and
//! identity (revision and effective configuration), and the versions and revisions of the
//! code every run executes (the QUIC stacks, netsim, ns-3 and the backend, and the
//! environment ns-3 reads). [`Provenance::stale`] recomputes each fact with this build and
//! names the first that differs, with both values: `sweep` resuming a directory, `merge`,
//! `--adopt` and `check` refuse (or report) a file that is not current.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::registry::{self, ControllerIdentity, ControllerSpec};
use crate::scenario::{Grid, IDENTITY_SCHEME, stack_version};
use crate::stack::Stack;

/// The code behind a grid's runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// The run-identity scheme ([`IDENTITY_SCHEME`]) the ids were computed with.
    pub scheme: u32,
    /// Each controller the grid runs (and each other controller its mixed runs run), with the
    /// identity its runs hashed.
    pub controllers: Vec<ControllerFact>,
    /// The code every run executes beside the controllers: `stack quinn` -> `quinn-proto
    /// 0.11.14`, `netsim` -> `1`, and on ns-3 `ns-3`, `netsim-ns3` and ns-3's environment
    /// variables (`(unset)` when absent).
    pub software: BTreeMap<String, String>,
}

/// One controller's spec, as written, and the identity its runs hashed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ControllerFact {
    /// The spec (name and settings).
    pub spec: ControllerSpec,
    /// What its runs hashed.
    pub identity: ControllerIdentity,
}

/// A fact that differs between a file and this build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stale {
    /// What differs (`controller manet: revision`, `stack quinn`, `scheme`).
    pub field: String,
    /// Its value in the file.
    pub stored: String,
    /// Its value in this build.
    pub current: String,
}

impl std::fmt::Display for Stale {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} is {} in the file and {} in this build",
            self.field, self.stored, self.current
        )
    }
}

const UNSET: &str = "(unset)";

/// The current value of the software fact `key`, or `None` for a key this build does not know.
fn software_fact(key: &str) -> Option<String> {
    if let Some(stack) = key.strip_prefix("stack ") {
        let stack = [Stack::Quinn, Stack::Noq, Stack::Quiche, Stack::Tcp]
            .into_iter()
            .find(|s| s.name() == stack)?;
        return Some(stack_version(stack));
    }
    if let Some(variable) = key.strip_prefix("env ") {
        let value = netsim_ns3::ns3_environment().remove(variable)?;
        return Some(value.unwrap_or_else(|| UNSET.to_owned()));
    }
    match key {
        "netsim" => Some(netsim::REVISION.to_string()),
        "netsim-ns3" => Some(netsim_ns3::REVISION.to_string()),
        "ns-3" => Some(netsim_ns3::ns3_version().to_owned()),
        _ => None,
    }
}

impl Provenance {
    /// The provenance of `grid`'s runs under this build.
    pub fn of(grid: &Grid) -> Self {
        let mut controllers: Vec<ControllerFact> = Vec::new();
        let mut add = |spec: &ControllerSpec, identity: &ControllerIdentity| {
            if !controllers.iter().any(|c| &c.spec == spec) {
                controllers.push(ControllerFact {
                    spec: spec.clone(),
                    identity: identity.clone(),
                });
            }
        };
        for controller in &grid.controllers {
            add(controller.spec(), controller.identity());
        }
        for other in grid
            .points
            .iter()
            .flat_map(|p| p.mix.iter().filter_map(|f| f.controller.as_ref()))
        {
            add(other.spec(), other.identity());
        }
        let mut keys = vec!["netsim".to_owned()];
        for point in &grid.points {
            let host = point.stack.unwrap_or_default();
            for controller in &grid.controllers {
                let Ok(sender) = controller.info().sender(host) else {
                    continue;
                };
                let (sender, receiver) = crate::stack::ends(sender, point.receiver);
                keys.push(format!("stack {}", sender.name()));
                keys.push(format!("stack {}", receiver.name()));
            }
            if point.backend.ns3().is_some() {
                keys.extend(["ns-3".to_owned(), "netsim-ns3".to_owned()]);
                keys.extend(netsim_ns3::NS3_ENVIRONMENT.map(|v| format!("env {v}")));
            }
        }
        let software = keys
            .into_iter()
            .filter_map(|key| software_fact(&key).map(|value| (key, value)))
            .collect();
        Self {
            scheme: IDENTITY_SCHEME,
            controllers,
            software,
        }
    }

    /// The first fact of this provenance that this build would not reproduce, or `None` when
    /// every run it covers is current.
    pub fn stale(&self) -> Option<Stale> {
        self.scheme_stale()
            .or_else(|| self.controllers.iter().find_map(ControllerFact::stale))
            .or_else(|| self.software_stale())
    }

    fn scheme_stale(&self) -> Option<Stale> {
        (self.scheme != IDENTITY_SCHEME).then(|| Stale {
            field: "the run-identity scheme".to_owned(),
            stored: self.scheme.to_string(),
            current: IDENTITY_SCHEME.to_string(),
        })
    }

    /// The first fact that every run shares (the identity scheme, a stack's version, netsim's
    /// or ns-3's) that this build would not reproduce: then no run of the file is current.
    pub fn shared_stale(&self) -> Option<Stale> {
        self.scheme_stale().or_else(|| self.software_stale())
    }

    fn software_stale(&self) -> Option<Stale> {
        self.software.iter().find_map(|(key, stored)| {
            let current = software_fact(key).unwrap_or_else(|| "unknown".to_owned());
            (&current != stored).then(|| Stale {
                field: key.clone(),
                stored: stored.clone(),
                current,
            })
        })
    }
}

impl ControllerFact {
    /// Whether this build resolves the spec to another identity, and where they differ.
    pub fn stale(&self) -> Option<Stale> {
        let label = self.spec.label();
        let current = match registry::resolve(&self.spec) {
            Ok(resolved) => resolved.identity().clone(),
            Err(e) => {
                return Some(Stale {
                    field: format!("controller {label}"),
                    stored: "a valid controller".to_owned(),
                    current: format!("refused ({e})"),
                });
            }
        };
        let stored = serde_json::to_value(&self.identity).unwrap_or_default();
        let current = serde_json::to_value(&current).unwrap_or_default();
        first_difference(&stored, &current, "").map(|(path, stored, current)| Stale {
            field: format!("controller {label}: {}", path.trim_start_matches('.')),
            stored,
            current,
        })
    }
}

/// The first path at which two JSON values differ, with both values there.
pub(crate) fn first_difference(
    a: &serde_json::Value,
    b: &serde_json::Value,
    path: &str,
) -> Option<(String, String, String)> {
    use serde_json::Value;
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter().find_map(|k| {
                let null = Value::Null;
                first_difference(
                    x.get(k).unwrap_or(&null),
                    y.get(k).unwrap_or(&null),
                    &format!("{path}.{k}"),
                )
            })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (a, b))| first_difference(a, b, &format!("{path}[{i}]"))),
        _ if a == b => None,
        _ => Some((path.to_owned(), a.to_string(), b.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_difference_names_the_nested_field_and_both_values() {
        let a = serde_json::json!({"revision": {"port": 1}, "config": {"alpha": 1.0, "beta": 3.0}});
        let b = serde_json::json!({"revision": {"port": 1}, "config": {"alpha": 2.0, "beta": 3.0}});
        assert_eq!(
            first_difference(&a, &b, ""),
            Some((
                ".config.alpha".to_owned(),
                "1.0".to_owned(),
                "2.0".to_owned()
            ))
        );
        assert_eq!(first_difference(&a, &a, ""), None);
    }

    #[test]
    fn a_changed_revision_or_version_is_stale_and_named() {
        let spec = ControllerSpec {
            name: "karak".to_owned(),
            settings: BTreeMap::new(),
        };
        let resolved = registry::resolve(&spec).unwrap();
        let mut fact = ControllerFact {
            spec,
            identity: resolved.identity().clone(),
        };
        assert_eq!(fact.stale(), None);
        fact.identity.revision = registry::Revision::Port(0);
        let stale = fact.stale().unwrap();
        assert_eq!(stale.field, "controller karak: revision.port");
        assert_eq!((stale.stored.as_str(), stale.current.as_str()), ("0", "1"));

        let provenance = Provenance {
            scheme: IDENTITY_SCHEME,
            controllers: Vec::new(),
            software: BTreeMap::from([("stack quinn".to_owned(), "quinn-proto 0.0.1".to_owned())]),
        };
        let stale = provenance.stale().unwrap();
        assert_eq!(stale.field, "stack quinn");
        assert_eq!(stale.current, stack_version(Stack::Quinn));
        let old = Provenance {
            scheme: 1,
            ..provenance
        };
        assert_eq!(old.stale().unwrap().field, "the run-identity scheme");
    }
}
