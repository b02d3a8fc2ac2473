//! Configuration: TOML round trips, defaults, and errors that name the field.

use std::time::Duration;

use netsim::{
    ConfigError, DirectionConfig, ErrorModelConfig, Link, LinkConfig, MobilityConfig,
    PathModelConfig, QueueLimit, Rate,
};

#[test]
fn a_scenario_file_parses_with_units_and_defaults() {
    let text = r#"
        [a_to_b]
        rate = "2Mbps"
        delay = "45ms"
        jitter = 0.002
        queue = { bytes = 60000 }
        errors = [
            { model = "per", p = 0.005 },
            { model = "ber", ber = 1e-7 },
            { model = "gilbert_elliott", p = 0.01, r = 0.5, loss_good = 0.0, loss_bad = 0.4 },
        ]

        [b_to_a]
        rate = 500000

        [path]
        model = "mobility"
        min_speed = 5.0
        max_speed = 10.0
        pause = "30s"
    "#;
    let config = LinkConfig::from_toml_str(text, "scenario.toml").unwrap();
    assert_eq!(config.a_to_b.rate, Rate::from_mbps(2));
    assert_eq!(config.a_to_b.jitter, Duration::from_millis(2));
    assert_eq!(config.a_to_b.queue, QueueLimit::Bytes(60_000));
    assert_eq!(config.a_to_b.errors.len(), 3);
    assert_eq!(config.b_to_a.rate, Rate::from_kbps(500));
    assert_eq!(config.b_to_a.delay, DirectionConfig::default().delay);
    let PathModelConfig::Mobility(mobility) = &config.path else {
        panic!("{:?}", config.path)
    };
    assert_eq!(mobility.nodes, 50);
    assert_eq!(mobility.radio_range, 250.0);
    assert_eq!((mobility.min_speed, mobility.max_speed), (5.0, 10.0));

    // Serializing and parsing again gives the same config.
    let again = LinkConfig::from_toml_str(&toml::to_string(&config).unwrap(), "again").unwrap();
    assert_eq!(again, config);
}

#[test]
fn on_off_and_trace_paths_parse() {
    let on_off = LinkConfig::from_toml_str(
        "[path]\nmodel = \"on_off\"\nmean_up = \"10s\"\nmean_down = \"2s\"\nrepair_delay = \"500ms\"\n",
        "t",
    )
    .unwrap();
    assert!(
        matches!(on_off.path, PathModelConfig::OnOff(ref c) if c.repair_delay == Duration::from_millis(500))
    );
    let trace = LinkConfig::from_toml_str(
        "[path]\nmodel = \"trace\"\nschedule = \"\"\"\n0 up\n5 down\n6 up 2\n\"\"\"\n",
        "t",
    )
    .unwrap();
    let PathModelConfig::Trace(trace) = trace.path else {
        panic!()
    };
    assert_eq!(trace.schedule.entries().len(), 3);
}

#[test]
fn unknown_fields_are_rejected() {
    for text in [
        "[a_to_b]\nrat = \"2Mbps\"\n",
        "[path]\nmodel = \"mobility\"\nnode = 3\n",
        "[a_to_b]\nerrors = [{ model = \"per\", q = 0.1 }]\n",
        "colour = 1\n",
    ] {
        let err = LinkConfig::from_toml_str(text, "bad.toml").unwrap_err();
        assert!(matches!(err, ConfigError::Parse { .. }), "{text}: {err}");
        assert!(err.to_string().starts_with("bad.toml: "), "{err}");
    }
}

#[test]
fn invalid_values_name_the_field_and_the_allowed_range() {
    let with = |direction: DirectionConfig| LinkConfig {
        a_to_b: direction,
        ..LinkConfig::default()
    };
    let cases: Vec<(LinkConfig, &str)> = vec![
        (
            with(DirectionConfig {
                rate: Rate::from_bps(0),
                ..DirectionConfig::default()
            }),
            "a_to_b.rate = 0bps is out of range: it must be in (0, 100Gbps]",
        ),
        (
            with(DirectionConfig {
                errors: vec![ErrorModelConfig::Per { p: 1.5 }],
                ..DirectionConfig::default()
            }),
            "a_to_b.errors[0].p = 1.5 is out of range: it must be in [0, 1]",
        ),
        (
            with(DirectionConfig {
                errors: vec![ErrorModelConfig::Ber { ber: -0.1 }],
                ..DirectionConfig::default()
            }),
            "a_to_b.errors[0].ber = -0.1 is out of range: it must be in [0, 1)",
        ),
        (
            with(DirectionConfig {
                queue: QueueLimit::Bytes(100),
                ..DirectionConfig::default()
            }),
            "a_to_b.queue.bytes = 100 is out of range: it must be >= mtu + overhead (1500)",
        ),
        (
            with(DirectionConfig {
                duplicate: 2.0,
                ..DirectionConfig::default()
            }),
            "a_to_b.duplicate = 2 is out of range: it must be in [0, 1]",
        ),
        (
            LinkConfig::default().with_path(PathModelConfig::Mobility(MobilityConfig {
                sink: 50,
                ..MobilityConfig::default()
            })),
            "path.sink = 50 is out of range: it must be in [0, 49] (nodes - 1)",
        ),
        (
            LinkConfig::default().with_path(PathModelConfig::Mobility(MobilityConfig {
                min_speed: 0.0,
                ..MobilityConfig::default()
            })),
            "path.min_speed = 0 is out of range: it must be finite and > 0",
        ),
    ];
    for (config, expected) in cases {
        assert_eq!(Link::new(config, 1).unwrap_err().to_string(), expected);
    }
    // Out-of-range values in TOML get the same message.
    let err = LinkConfig::from_toml_str("[b_to_a]\nerrors = [{ model = \"per\", p = 2.0 }]\n", "t")
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "b_to_a.errors[0].p = 2 is out of range: it must be in [0, 1]"
    );
}

#[test]
fn absurd_delays_are_rejected() {
    let config = LinkConfig::symmetric(DirectionConfig {
        delay: Duration::from_secs(7200),
        ..DirectionConfig::default()
    });
    assert_eq!(
        Link::new(config, 1).unwrap_err().to_string(),
        "a_to_b.delay = 7200s is out of range: it must be at most 1h"
    );
}
