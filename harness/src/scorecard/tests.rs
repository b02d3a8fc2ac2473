//! The scorecard's statistics against figures computed by hand.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::experiment::{Experiment, Figures, Point, Seeds, pairs, ratio};
use super::pool::Pool;
use super::split::Split;
use super::targets::{Options, TargetSet, scorecard};

/// Runs of `controller` with these goodputs (Mb/s) on seeds 1, 2, ...; run ids `{tag}-{controller}-{seed}`.
fn runs(tag: &str, controller: &str, goodputs_mbps: &[f64], rtt_ms: f64) -> Seeds {
    goodputs_mbps
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let seed = i as u64 + 1;
            let figures = Figures {
                run_id: format!("{tag}-{controller}-{seed}"),
                goodput_bps: g * 1e6,
                rtt_p95_ms: Some(rtt_ms),
                loss_rate: 0.0,
                others_bps: None,
                jain: 1.0,
                total_bps: g * 1e6,
            };
            (seed, figures)
        })
        .collect()
}

fn point(label: &str, ns3: bool, controllers: Vec<(&str, Seeds)>) -> Point {
    Point {
        label: label.to_owned(),
        controllers: controllers
            .into_iter()
            .map(|(c, s)| (c.to_owned(), s))
            .collect::<BTreeMap<_, _>>(),
        ns3,
    }
}

fn experiment(name: &str, points: Vec<Point>) -> Experiment {
    Experiment {
        path: PathBuf::from("results").join(name),
        name: name.to_owned(),
        points,
        stacks: ["quinn"].into_iter().collect(),
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-4
}

/// Five seeds whose log ratios are 0.1, -0.1, 0.1, -0.1, 0.3: mean 0.06, sample sd
/// sqrt(0.112 / 4) = 0.167332, t(4) = 2.776, half width 2.776 x 0.167332 / sqrt(5) = 0.207737:
/// exp(0.06) = 1.061837 within [exp(-0.147737), exp(0.267737)] = [0.862659, 1.307000].
#[test]
fn five_seeds_give_the_hand_computed_ratio_and_interval() {
    let logs = [0.1, -0.1, 0.1, -0.1, 0.3f64];
    let mine = runs("a", "manet", &logs.map(f64::exp), 50.0);
    let other = runs("a", "cubic", &[1.0; 5], 100.0);
    let r = ratio(&pairs(&mine, &other, |f| Some(f.goodput_bps))).unwrap();
    assert!(close(r.mean, 1.061837), "{r:?}");
    assert!(close(r.low, 0.862659), "{r:?}");
    assert!(close(r.high, 1.307000), "{r:?}");
    assert_eq!((r.seeds, r.excludes_one()), (5, false));
}

/// Forty pairs, log ratios alternating 0.1 and -0.1: mean 0, sd sqrt(40 x 0.01 / 39) =
/// 0.101274, t(39) = 2.0227 (a table's value; the Cornish-Fisher term gives 2.0208), half width
/// 2.0208 x 0.101274 / sqrt(40) = 0.032359: [0.968159, 1.032888]. The normal quantile (1.960),
/// which the replaced Python scripts used above 30 degrees of freedom, gives [0.969103,
/// 1.031882]: too narrow.
#[test]
fn more_than_31_pairs_use_students_t_not_the_normal() {
    let logs: Vec<f64> = (0..40)
        .map(|i| if i % 2 == 0 { 0.1 } else { -0.1 })
        .collect();
    let goodputs: Vec<f64> = logs.iter().map(|l| l.exp()).collect();
    let mine = runs("b", "manet", &goodputs, 50.0);
    let other = runs("b", "cubic", &[1.0; 40], 100.0);
    let r = ratio(&pairs(&mine, &other, |f| Some(f.goodput_bps))).unwrap();
    assert!(close(r.mean, 1.0), "{r:?}");
    assert!(close(r.low, 0.968159), "{r:?}");
    assert!(close(r.high, 1.032888), "{r:?}");
    assert!(
        r.low < 0.969103 - 5e-4,
        "wider than the normal's interval: {r:?}"
    );
}

/// Three presets sharing one default point (ABRA's node, pause and speed sweeps): pooled, its
/// runs count once.
#[test]
fn a_point_shared_by_several_experiments_is_pooled_once() {
    let shared = || {
        point(
            "default",
            true,
            vec![
                ("manet", runs("shared", "manet", &[2.0, 2.0, 2.0], 50.0)),
                ("cubic", runs("shared", "cubic", &[1.0, 1.0, 1.0], 100.0)),
            ],
        )
    };
    let own = point(
        "own",
        true,
        vec![
            ("manet", runs("own", "manet", &[1.0, 1.0, 1.0], 50.0)),
            ("cubic", runs("own", "cubic", &[1.0, 1.0, 1.0], 100.0)),
        ],
    );
    let experiments = [
        experiment("a", vec![shared(), own]),
        experiment("b", vec![shared()]),
        experiment("c", vec![shared()]),
    ];
    let mut pool = Pool::default();
    for e in &experiments {
        for p in &e.points {
            pool.add(p.pairs("manet", "cubic"));
        }
    }
    // Six pairs once (three at ratio 2, three at 1): exp(mean(ln 2, ln 1)) = sqrt(2).
    assert_eq!((pool.len(), pool.duplicates), (6, 6));
    assert!(close(pool.ratio().unwrap().mean, 2f64.sqrt()));
    let options = Options {
        targets: TargetSet::Composite,
        controller: "manet",
        fixed: &[],
        split: None,
        pooled: true,
    };
    let doc = scorecard(&experiments, options).unwrap().markdown();
    assert!(
        doc.contains("6 pairs (6 more were the same runs under another point, counted once)"),
        "{doc}"
    );
}

#[test]
fn targets_are_met_or_missed_by_their_rules() {
    let chain = experiment(
        "ns3-chain",
        vec![
            point(
                "hops=4",
                true,
                vec![
                    ("manet", runs("c4", "manet", &[1.5, 1.5, 1.5], 50.0)),
                    ("cubic", runs("c4", "cubic", &[1.0, 1.0, 1.0], 100.0)),
                    ("newreno", runs("c4", "newreno", &[1.1, 1.1, 1.1], 100.0)),
                ],
            ),
            point(
                "hops=1",
                true,
                vec![
                    ("manet", runs("c1", "manet", &[0.98, 0.99, 0.97], 150.0)),
                    ("cubic", runs("c1", "cubic", &[1.0, 1.0, 1.0], 100.0)),
                ],
            ),
        ],
    );
    let fixed = experiment(
        "fixed",
        vec![point(
            "hops=4",
            true,
            vec![(
                "fixed{packets=3}",
                runs("f4", "fixed", &[1.6, 1.6, 1.6], 50.0),
            )],
        )],
    );
    let options = Options {
        targets: TargetSet::Composite,
        controller: "manet",
        fixed: std::slice::from_ref(&fixed),
        split: None,
        pooled: false,
    };
    let doc = scorecard(std::slice::from_ref(&chain), options)
        .unwrap()
        .markdown();
    // hops=4: 1.5x Cubic, 1.36x the best baseline (NewReno), 0.94x the best fixed window.
    assert!(
        doc.contains("| ns3-chain | hops=4 | 1.50 [1.50, 1.50]* | 1.36 [1.36, 1.36]* | newreno | 50 / 100 | - | T1 met, T2 met, T4 RTT met, T3 x1.3 met, T3 fixed (0.94 [0.94, 0.94]* of the best fixed window) met |"),
        "{doc}"
    );
    // hops=1: below Cubic (T1), within 0.9 of it (T2), a longer p95 RTT (T4); no T3 at one hop.
    assert!(
        doc.contains("| T1 MISSED, T2 met, T4 RTT MISSED |"),
        "{doc}"
    );
    assert!(doc.contains("6 targets met, 2 missed"), "{doc}");
}

#[test]
fn development_and_validation_cells_are_scored_apart() {
    let points: Vec<Point> = (1..=6)
        .map(|i| {
            let label = format!("p={i}");
            point(
                &label,
                false,
                vec![
                    (
                        "manet",
                        runs(&label, "manet", &[1.0 + i as f64 / 10.0; 3], 50.0),
                    ),
                    ("cubic", runs(&label, "cubic", &[1.0; 3], 100.0)),
                ],
            )
        })
        .collect();
    let experiments = [experiment("grid", points)];
    let split = Split::draw(&experiments, 3, 0.5).unwrap();
    assert_eq!(split.counts(), (3, 3));
    let options = Options {
        targets: TargetSet::Composite,
        controller: "manet",
        fixed: &[],
        split: Some(&split),
        pooled: true,
    };
    let doc = scorecard(&experiments, options).unwrap().markdown();
    let development = doc
        .find("### Development cells")
        .expect("a development section");
    let validation = doc
        .find("### Validation cells")
        .expect("a validation section");
    assert!(development < validation, "{doc}");
    assert_eq!(
        doc.matches("Pooled over every point and seed above (9 pairs)")
            .count(),
        2,
        "{doc}"
    );
    for p in &experiments[0].points {
        let row = doc.find(&format!("| grid | {} |", p.label)).unwrap();
        let in_validation = row > validation;
        let set = split.set_of(&experiments[0], &p.label).unwrap();
        assert_eq!(
            in_validation,
            set == super::split::Set::Validation,
            "{}",
            p.label
        );
    }
}

#[test]
fn the_regime_targets_hold_each_cell_to_095_of_cubic_and_09_of_the_best() {
    let grid = experiment(
        "grid",
        vec![
            point(
                "near",
                false,
                vec![
                    ("manet", runs("n", "manet", &[0.96, 0.96, 0.96], 50.0)),
                    ("cubic", runs("n", "cubic", &[1.0, 1.0, 1.0], 100.0)),
                ],
            ),
            point(
                "behind",
                false,
                vec![
                    ("manet", runs("b", "manet", &[0.8, 0.8, 0.8], 50.0)),
                    ("cubic", runs("b", "cubic", &[1.0, 1.0, 1.0], 100.0)),
                    ("bbr", runs("b", "bbr", &[0.85, 0.85, 0.85], 100.0)),
                ],
            ),
        ],
    );
    let options = Options {
        targets: TargetSet::Regimes,
        controller: "manet",
        fixed: &[],
        split: None,
        pooled: false,
    };
    let doc = scorecard(std::slice::from_ref(&grid), options)
        .unwrap()
        .markdown();
    // 0.96x Cubic meets R1 (the composite's T1 would miss it); 0.8x Cubic misses R1 and, as
    // 0.8x Cubic, the best baseline there, R2 too.
    assert!(doc.contains("| grid | near | 0.96 [0.96, 0.96]* | 0.96 [0.96, 0.96]* | cubic | 50 / 100 | - | R1 met, R2 met |"), "{doc}");
    assert!(doc.contains("| R1 MISSED, R2 MISSED |"), "{doc}");
    assert!(doc.contains("2 targets met, 2 missed"), "{doc}");
}

/// An ablation's sweep holds the scored controller with a knob set: Jain's target reads it, and
/// a name the experiment has in neither form is refused.
#[test]
fn jain_scores_the_controller_with_its_knob_set() {
    let ablated = experiment(
        "ablation/rate_check/coexist-own4",
        vec![point(
            "path=50M-80ms",
            false,
            vec![(
                "manet{rate_check=false}",
                runs("a", "manet", &[1.0, 1.0], 50.0),
            )],
        )],
    );
    let doc = super::jain::jain(std::slice::from_ref(&ablated), "manet").unwrap();
    let text = doc.markdown();
    assert!(text.contains("manet{rate_check=false} >= 0.95"), "{text}");
    assert!(text.contains("| met |"), "{text}");
    let err = super::jain::jain(&[ablated], "cubic").unwrap_err();
    assert!(
        err.to_string().contains("no runs of that controller"),
        "{err}"
    );
}

/// Beside the stack's Cubic, Jain's table also pairs the runs' goodputs, all flows together:
/// four flows of the composite against Cubic's four. Without Cubic there is no such column.
#[test]
fn jain_pairs_all_flows_together_against_cubic() {
    // The first flow's goodput and the run's, all flows together, differ: the column pairs
    // the latter (4.0 and 4.4 over 2.0 and 2.2: 2x), not the first flows' (1.0 and 1.1 over
    // 1.0 and 1.1: 1x).
    let four = |tag: &str, c: &str, first: &[f64], total: &[f64]| -> Seeds {
        let mut seeds = runs(tag, c, first, 50.0);
        for (figures, t) in seeds.values_mut().zip(total) {
            figures.total_bps = t * 1e6;
        }
        seeds
    };
    let own4 = experiment(
        "quinn/ns3-chain-own4",
        vec![point(
            "hops=3",
            true,
            vec![
                ("manet", four("m", "manet", &[1.0, 1.1], &[4.0, 4.4])),
                ("cubic", four("c", "cubic", &[1.0, 1.1], &[2.0, 2.2])),
            ],
        )],
    );
    let text = super::jain::jain(std::slice::from_ref(&own4), "manet")
        .unwrap()
        .markdown();
    assert!(text.contains("| manet x cubic, all flows |"), "{text}");
    assert!(text.contains("| met | 2.00 [2.00, 2.00]* |"), "{text}");
    let alone = experiment(
        "quinn/ns3-chain-own4",
        vec![point(
            "hops=3",
            true,
            vec![("manet", runs("m", "manet", &[2.0, 2.2], 50.0))],
        )],
    );
    let text = super::jain::jain(&[alone], "manet").unwrap().markdown();
    assert!(!text.contains("all flows"), "{text}");
}
