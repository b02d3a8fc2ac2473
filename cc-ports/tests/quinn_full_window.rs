//! A port config's `quinn_full_window`: quinn sees each port's window plus one byte, so that its
//! `>=` send check lets a window of N datagrams carry N; noq, which stops at `>`, is unaffected.

use cc_core::PortConfig;
use netsim::{DirectionConfig, ErrorModelConfig, LinkConfig, Rate};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn with_full_window<C: PortConfig>(full: bool) -> C {
    let mut config = C::default();
    config.set_quinn_full_window(full);
    config
}

#[test]
fn quinn_reads_one_byte_more_and_noq_the_window_itself() {
    use noq_proto::congestion::ControllerFactory as NoqFactory;
    use quinn_proto::congestion::ControllerFactory as QuinnFactory;
    let now = Instant::now();
    let plain = Arc::new(cc_core::PortFactory::new(
        with_full_window::<cc_ub::UbConfig>(false),
    ));
    let full = Arc::new(cc_core::PortFactory::new(
        with_full_window::<cc_ub::UbConfig>(true),
    ));
    let quinn_plain = QuinnFactory::build(plain.clone(), now, 1200).window();
    let quinn_full = QuinnFactory::build(full.clone(), now, 1200).window();
    assert_eq!(quinn_full, quinn_plain + 1);
    assert_eq!(
        quinn_plain % 1200,
        0,
        "the port's own window is whole datagrams"
    );
    let noq_plain = NoqFactory::build(plain, now, 1200).window();
    let noq_full = NoqFactory::build(full, now, 1200).window();
    assert_eq!((noq_plain, noq_full), (quinn_plain, quinn_plain));
}

#[test]
fn a_small_window_path_changes_on_quinn_only() {
    // PETRA's row 11: 2 Mb/s, 10 ms, PER 0.5%: windows of a few datagrams.
    let link = LinkConfig::symmetric(DirectionConfig {
        rate: Rate::from_mbps(2),
        delay: Duration::from_millis(10),
        errors: vec![ErrorModelConfig::Per { p: 0.005 }],
        ..DirectionConfig::default()
    });
    let run = |full: bool| {
        let factory = Arc::new(cc_core::PortFactory::new(
            with_full_window::<cc_ub::UbConfig>(full),
        ));
        let quinn = netsim::quinn_pair::transfer_with_controller(
            link.clone(),
            2,
            factory.clone(),
            1_000_000,
        )
        .expect("quinn");
        let noq = netsim::noq_pair::transfer_with_controller(link.clone(), 2, factory, 1_000_000)
            .expect("noq");
        assert!(quinn.intact && noq.intact);
        (quinn.elapsed, noq.elapsed)
    };
    let (plain, full) = (run(false), run(true));
    assert!(full.0 < plain.0, "quinn: {:?} -> {:?}", plain.0, full.0);
    assert_eq!(full.1, plain.1, "noq");
}
