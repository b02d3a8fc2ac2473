//! Built-in scenario files: the demo, the papers' experiments and the scenarios beyond them
//! that the composite is evaluated on. Each is an ordinary scenario
//! file (`harness presets --show NAME` prints it), so a user can copy one and change it.

use crate::error::{HarnessError, Result};
use crate::scenario::Source;

/// A built-in scenario.
#[derive(Clone, Copy, Debug)]
pub struct Preset {
    /// Its name (`--preset NAME`).
    pub name: &'static str,
    /// The scenario file text.
    pub text: &'static str,
}

const PRESETS: &[Preset] = &[
    Preset {
        name: "demo",
        text: include_str!("../presets/demo.toml"),
    },
    Preset {
        name: "karak-speed",
        text: include_str!("../presets/karak-speed.toml"),
    },
    Preset {
        name: "karak-ber",
        text: include_str!("../presets/karak-ber.toml"),
    },
    Preset {
        name: "petra-table-4.2",
        text: include_str!("../presets/petra-table-4.2.toml"),
    },
    Preset {
        name: "ub-mobility",
        text: include_str!("../presets/ub-mobility.toml"),
    },
    Preset {
        name: "sackfew-nodes",
        text: include_str!("../presets/sackfew-nodes.toml"),
    },
    Preset {
        name: "abra-speed",
        text: include_str!("../presets/abra-speed.toml"),
    },
    Preset {
        name: "abra-pause",
        text: include_str!("../presets/abra-pause.toml"),
    },
    Preset {
        name: "abra-nodes",
        text: include_str!("../presets/abra-nodes.toml"),
    },
    Preset {
        name: "coexist",
        text: include_str!("../presets/coexist.toml"),
    },
    Preset {
        name: "coexist-wireless",
        text: include_str!("../presets/coexist-wireless.toml"),
    },
    Preset {
        name: "coexist-rtt",
        text: include_str!("../presets/coexist-rtt.toml"),
    },
    Preset {
        name: "coexist-manet",
        text: include_str!("../presets/coexist-manet.toml"),
    },
    Preset {
        name: "ns3-manet",
        text: include_str!("../presets/ns3-manet.toml"),
    },
    Preset {
        name: "chain",
        text: include_str!("../presets/chain.toml"),
    },
    Preset {
        name: "ns3-chain",
        text: include_str!("../presets/ns3-chain.toml"),
    },
    Preset {
        name: "karak-speed-ns3",
        text: include_str!("../presets/karak-speed-ns3.toml"),
    },
    Preset {
        name: "karak-ber-ns3",
        text: include_str!("../presets/karak-ber-ns3.toml"),
    },
    Preset {
        name: "ub-mobility-ns3",
        text: include_str!("../presets/ub-mobility-ns3.toml"),
    },
    Preset {
        name: "sackfew-nodes-ns3",
        text: include_str!("../presets/sackfew-nodes-ns3.toml"),
    },
    Preset {
        name: "abra-speed-ns3",
        text: include_str!("../presets/abra-speed-ns3.toml"),
    },
    Preset {
        name: "abra-pause-ns3",
        text: include_str!("../presets/abra-pause-ns3.toml"),
    },
    Preset {
        name: "abra-nodes-ns3",
        text: include_str!("../presets/abra-nodes-ns3.toml"),
    },
    // Beyond the papers: the composite's evaluation (scripts/manet-evaluation.sh).
    Preset {
        name: "jitter",
        text: include_str!("../presets/jitter.toml"),
    },
    Preset {
        name: "paths",
        text: include_str!("../presets/paths.toml"),
    },
    Preset {
        name: "ns3-chain-hops",
        text: include_str!("../presets/ns3-chain-hops.toml"),
    },
    Preset {
        name: "ns3-one-hop",
        text: include_str!("../presets/ns3-one-hop.toml"),
    },
    Preset {
        name: "ns3-grid",
        text: include_str!("../presets/ns3-grid.toml"),
    },
    // The regime grid that judges the composite (docs/results/regimes.md).
    Preset {
        name: "regimes-netsim",
        text: include_str!("../presets/regimes-netsim.toml"),
    },
    Preset {
        name: "regimes-jitter",
        text: include_str!("../presets/regimes-jitter.toml"),
    },
    Preset {
        name: "regimes-wifi-lan",
        text: include_str!("../presets/regimes-wifi-lan.toml"),
    },
    Preset {
        name: "regimes-ns3-one",
        text: include_str!("../presets/regimes-ns3-one.toml"),
    },
    Preset {
        name: "regimes-ns3-sources",
        text: include_str!("../presets/regimes-ns3-sources.toml"),
    },
    Preset {
        name: "regimes-ns3-flows",
        text: include_str!("../presets/regimes-ns3-flows.toml"),
    },
    // A realistic mesh (issue 49): 802.11s and OLSR, Minstrel, fading.
    Preset {
        name: "mesh-chain",
        text: include_str!("../presets/mesh-chain.toml"),
    },
    Preset {
        name: "mesh-grid",
        text: include_str!("../presets/mesh-grid.toml"),
    },
    Preset {
        name: "mesh-mobile",
        text: include_str!("../presets/mesh-mobile.toml"),
    },
];

/// Every preset, the demo first.
pub fn all() -> &'static [Preset] {
    PRESETS
}

/// The preset named `name`, or a bad-input error listing the names.
pub fn lookup(name: &str) -> Result<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name).ok_or_else(|| {
        let names: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
        HarnessError::bad_input(format!(
            "unknown preset `{name}` (presets: {})",
            names.join(", ")
        ))
    })
}

impl Preset {
    /// The preset as a scenario source.
    pub fn source(&self) -> Source {
        Source {
            name: format!("preset `{}`", self.name),
            default_name: self.name.to_owned(),
            text: self.text.to_owned(),
            dir: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{Transfer, load};

    #[test]
    fn every_preset_loads_with_the_expected_number_of_points() {
        let expected = [
            ("demo", 1),
            ("karak-speed", 6),
            ("karak-ber", 5),
            ("petra-table-4.2", 12),
            ("ub-mobility", 8),
            ("sackfew-nodes", 5),
            ("abra-speed", 6),
            ("abra-pause", 6),
            ("abra-nodes", 5),
            ("chain", 4),
        ];
        for (name, points) in expected {
            let grid = load(&lookup(name).unwrap().source(), &[]).unwrap();
            assert_eq!(grid.points.len(), points, "{name}");
            assert_eq!(grid.name, name);
            if name != "demo" {
                assert!(grid.paper.is_some(), "{name} names its paper table");
            }
        }
    }

    #[test]
    fn petra_rows_match_table_4_2() {
        let grid = load(&lookup("petra-table-4.2").unwrap().source(), &[]).unwrap();
        // Row 3: 8 Mb/s, PER 0.005, 45 ms access delay (+ 0.01 ms bottleneck); ACKs error-free.
        let row = &grid.points[2].link;
        assert_eq!(row.a_to_b.rate, netsim::Rate::from_mbps(8));
        assert_eq!(row.a_to_b.delay, std::time::Duration::from_micros(45_010));
        assert_eq!(
            row.a_to_b.errors,
            vec![netsim::ErrorModelConfig::Per { p: 0.005 }]
        );
        assert!(row.b_to_a.errors.is_empty());
        assert_eq!(row.a_to_b.queue, netsim::QueueLimit::Packets(100));
        // Row 12: 1 ms access delay.
        assert_eq!(
            grid.points[11].link.a_to_b.delay,
            std::time::Duration::from_micros(1_010)
        );
        assert_eq!(
            grid.points[0].transfer,
            Transfer::Duration(std::time::Duration::from_secs(100))
        );
    }
}
