//! The Westwood ports' `pacing_gain` knob reaches noq's pacer and not quinn's: with the same
//! seed, a PETRA and a TCP-UB transfer on noq change when the knob is set, and on quinn they are
//! identical (quinn 0.11 paces from the window and ignores a controller's rate).

use cc_core::PortConfig;
use netsim::{DirectionConfig, ErrorModelConfig, LinkConfig, Rate};
use std::sync::Arc;
use std::time::Duration;

fn link() -> LinkConfig {
    LinkConfig::symmetric(DirectionConfig {
        rate: Rate::from_mbps(2),
        delay: Duration::from_millis(45),
        errors: vec![ErrorModelConfig::Per { p: 0.01 }],
        ..DirectionConfig::default()
    })
}

/// What noq's and quinn's transfers did with `config` (time taken, datagrams on the link),
/// same seed.
type Outcome = (Duration, netsim::LinkAccounting);

fn elapsed<C: PortConfig>(config: C) -> (Outcome, Outcome) {
    let noq = netsim::noq_pair::transfer_with_controller(
        link(),
        4,
        Arc::new(cc_core::PortFactory::new(config.clone())),
        2_000_000,
    )
    .expect("noq transfer");
    let quinn = netsim::quinn_pair::transfer_with_controller(
        link(),
        4,
        Arc::new(cc_core::PortFactory::new(config)),
        2_000_000,
    )
    .expect("quinn transfer");
    assert!(noq.intact && quinn.intact);
    (
        (noq.elapsed, noq.accounting),
        (quinn.elapsed, quinn.accounting),
    )
}

#[test]
fn the_pacing_gain_moves_noq_runs_and_not_quinn_runs() {
    let mut petra = cc_petra::PetraConfig::default();
    let base = elapsed(petra.clone());
    petra.set_pacing_gain(1.25).unwrap();
    let paced = elapsed(petra);
    assert_ne!(paced.0, base.0, "noq's pacer reads the rate");
    assert_eq!(paced.1, base.1, "quinn's does not");

    let mut ub = cc_ub::UbConfig::default();
    let base = elapsed(ub.clone());
    ub.set_pacing_gain(1.25).unwrap();
    let paced = elapsed(ub);
    assert_ne!(paced.0, base.0, "noq's pacer reads the rate");
    assert_eq!(paced.1, base.1, "quinn's does not");

    let err = cc_ub::UbConfig::default()
        .set_pacing_gain(5.0)
        .map(drop)
        .unwrap_err();
    assert!(err.to_string().contains("pacing_gain"), "{err}");
}
