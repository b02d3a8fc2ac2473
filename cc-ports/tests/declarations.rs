//! Every port's declared configuration behaves the same way: defaults in range, TOML round
//! trips, unknown and out-of-range fields rejected by name, and `install` keeping the
//! transport's loss thresholds equal to the classifier's.

use cc_core::{KnobKind, KnobValue, PortConfig, PortController, PortFactory, Range, SignalConfig};
use cc_ports::PortVisitor;
use quinn_proto::congestion::ControllerFactory;
use std::sync::Arc;
use std::time::Instant;

/// Runs every check below for one port.
struct CheckAll(Vec<&'static str>);

impl PortVisitor for CheckAll {
    fn visit<C: PortConfig>(&mut self) {
        defaults::<C>();
        round_trip::<C>();
        unknown_field::<C>();
        out_of_range::<C>();
        install::<C>();
        self.0.push(C::NAME);
    }
}

fn defaults<C: PortConfig>() {
    let config = C::default();
    config.validate().unwrap();
    assert!(!C::KNOBS.is_empty());
    for knob in C::KNOBS {
        let value = (knob.get)(&config);
        assert!(knob.range.contains(value), "{}.{}", C::NAME, knob.name);
        assert!(
            !knob.text().is_empty(),
            "{}.{} has no doc",
            C::NAME,
            knob.name
        );
        let mut copy = config.clone();
        (knob.set)(&mut copy, value).unwrap();
        assert_eq!(copy, config);
    }
}

fn round_trip<C: PortConfig>() {
    let text = toml::to_string(&C::default()).unwrap();
    for knob in C::KNOBS {
        assert!(text.contains(knob.name), "{}: {text}", C::NAME);
    }
    let back: C = toml::from_str(&text).unwrap();
    assert_eq!(back, C::default());
    // Missing fields take their defaults.
    let empty: C = toml::from_str("").unwrap();
    assert_eq!(empty, C::default());
}

fn unknown_field<C: PortConfig>() {
    let err = toml::from_str::<C>("bogus_knob = 1").unwrap_err();
    assert!(err.to_string().contains("bogus_knob"), "{}: {err}", C::NAME);
    let err = toml::from_str::<C>("[signal]\nbogus_threshold = 1").unwrap_err();
    assert!(
        err.to_string().contains("bogus_threshold"),
        "{}: {err}",
        C::NAME
    );
}

fn out_of_range<C: PortConfig>() {
    let mut tried = 0;
    for knob in C::KNOBS {
        let bad = match knob.range {
            Range::UnitFactor | Range::FilterGain => "5.0".to_owned(),
            Range::Integer { max, .. } => format!("{}", max + 1),
            Range::Real { max, .. } => format!("{:.1}", max * 2.0 + 1.0),
            _ => continue,
        };
        tried += 1;
        let err = toml::from_str::<C>(&format!("{} = {bad}", knob.name)).unwrap_err();
        assert!(err.to_string().contains(knob.name), "{}: {err}", C::NAME);
        let value = match knob.kind {
            KnobKind::Integer => KnobValue::Integer(bad.parse().unwrap()),
            _ => KnobValue::Float(bad.parse().unwrap()),
        };
        let mut config = C::default();
        let err = (knob.set)(&mut config, value).unwrap_err();
        assert_eq!(err.field, knob.name);
        assert_eq!(config, C::default(), "a failed set changes nothing");
    }
    assert!(tried > 0, "{}: no ranged knob", C::NAME);
    let err = toml::from_str::<C>("[signal]\npacket_threshold = 0").unwrap_err();
    assert!(err.to_string().contains("packet_threshold"), "{err}");
}

fn install<C: PortConfig>() {
    let mut signal = SignalConfig::default();
    signal.set_packet_threshold(5).unwrap();
    signal.set_time_threshold(1.5).unwrap();
    let mut config = C::default();
    config.set_signal(signal);
    let mut transport = quinn_proto::TransportConfig::default();
    cc_core::install(config.clone(), &mut transport);
    let shown = format!("{transport:?}");
    assert!(shown.contains("packet_threshold: 5"), "{shown}");
    assert!(shown.contains("time_threshold: 1.5"), "{shown}");
    let full = u64::from(config.quinn_full_window());
    let controller = Arc::new(PortFactory::new(config)).build(Instant::now(), 1200);
    // A fresh controller sits at its initial window: the ports' 10 datagrams, the fixed
    // window's size; RFC 9002's minimum of 2 at least. A port that compensates quinn's send
    // check (manet) shows quinn one byte more.
    assert_eq!(controller.initial_window() + full, controller.window());
    assert!(controller.initial_window() >= 2 * 1200, "{}", C::NAME);
    let adapter = PortController::<C::Algorithm>::from_controller(controller)
        .expect("the factory builds the port's own adapter");
    assert_eq!(adapter.classifier().stats(), Default::default());
}

#[test]
fn every_port_declares_and_validates_its_configuration_the_same_way() {
    let mut checked = CheckAll(Vec::new());
    cc_ports::visit_ports(&mut checked);
    assert_eq!(checked.0, cc_ports::port_names());
    assert_eq!(checked.0.len(), 7);
}

#[test]
fn durations_read_and_write_as_text() {
    let abra: cc_abra::AbraConfig = toml::from_str("initial_min_srtt = \"50ms\"").unwrap();
    assert_eq!(
        abra.initial_min_srtt(),
        std::time::Duration::from_millis(50)
    );
    let text = toml::to_string(&abra).unwrap();
    assert!(text.contains("initial_min_srtt = \"50ms\""), "{text}");
    assert!(text.contains("max_ack_delay = \"25ms\""), "{text}");
    let err = toml::from_str::<cc_abra::AbraConfig>("initial_min_srtt = \"700ms\"").unwrap_err();
    assert!(err.to_string().contains("initial_srtt_range"), "{err}");
}
