//! The regime grid that judges the composite (docs/results/chosen-constants.md): its presets'
//! cells, and the development/validation split declared for them before any run.

use harness::scorecard::experiment::Experiment;
use harness::scorecard::split::Split;

/// The regime grid's cells, and the development/validation split declared for them before
/// any run: every cell of every regime preset is in exactly one set.
#[test]
fn every_regime_cell_has_a_declared_set() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/results");
    let mut presets = vec![
        ("regimes-netsim", 36, "regimes-split.toml"),
        ("regimes-jitter", 18, "regimes-split.toml"),
        ("regimes-wifi-lan", 12, "regimes-split.toml"),
    ];
    if cfg!(feature = "ns3") {
        for name in [
            "regimes-ns3-one",
            "regimes-ns3-sources",
            "regimes-ns3-flows",
        ] {
            presets.push((name, 6, "regimes-ns3-split.toml"));
        }
    }
    for (name, cells, file) in presets {
        let experiment = Experiment::of_preset(name).unwrap();
        assert_eq!(experiment.points.len(), cells, "{name}");
        let split = Split::read(&dir.join(file)).unwrap();
        assert!(
            split.experiments.iter().any(|e| e == name),
            "{file} covers {name}"
        );
        for point in &experiment.points {
            split.set_of(&experiment, &point.label).unwrap();
        }
    }
}
