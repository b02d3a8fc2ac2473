//! The scenario schema: defaults, TOML, and errors that name the field and the allowed range.
//! Runs with or without the `ns3` feature.

use std::time::Duration;

use netsim_ns3::{
    Nakagami, Ns3Config, Propagation, RateControl, Routing, Session, Standard, Topology,
};

fn parse(text: &str) -> Result<Ns3Config, String> {
    let config: Ns3Config = toml::from_str(text).map_err(|e| e.to_string())?;
    config.validate().map_err(|e| e.to_string())?;
    Ok(config)
}

/// Each (config text, message part): the text is refused with a message holding the part.
fn assert_refused(cases: &[(&str, &str)]) {
    for (text, expected) in cases {
        let error = parse(text).unwrap_err();
        assert!(
            error.contains(expected),
            "{text:?}: got {error:?}, expected {expected:?}"
        );
    }
}

#[test]
fn defaults_are_karak_s_terrain_and_validate() {
    let config = Ns3Config::default();
    config.validate().unwrap();
    assert_eq!(config.nodes, 50);
    assert_eq!((config.area_width, config.area_height), (1200.0, 1200.0));
    assert_eq!(config.propagation, Propagation::Range { range: 250.0 });
    assert_eq!(config.wifi.data_rate_mbps, 2.0);
    assert_eq!(config.routing, Routing::Aodv);
    assert_eq!(config.sink_node(), 49);
    assert_eq!(config.step, Duration::from_millis(1));
}

#[test]
fn a_full_toml_scenario_reads_and_round_trips() {
    let config = parse(
        r#"
        nodes = 20
        area_width = 800
        area_height = 600
        routing = "olsr"
        source = 3
        sink = 7
        start = "5s"
        step = "2ms"
        topology = { model = "random_waypoint", min_speed = 5, max_speed = 30, pause = "10s" }
        propagation = { model = "range", range = 200 }
        [wifi]
        standard = "802.11g"
        data_rate_mbps = 6
        rts_cts = true
        queue_packets = 100
        [[background]]
        from = 1
        to = 2
        rate = "100kbps"
        start = "1s"
        stop = "30s"
        "#,
    )
    .unwrap();
    assert_eq!(config.routing, Routing::Olsr);
    assert_eq!(config.start, Duration::from_secs(5));
    assert_eq!(config.background[0].packet_bytes, 512);
    let again: Ns3Config = toml::from_str(&toml::to_string(&config).unwrap()).unwrap();
    assert_eq!(again, config);
    let chain = parse("nodes = 5\ntopology = { model = \"chain\", spacing = 150 }").unwrap();
    assert_eq!(chain.topology, Topology::Chain { spacing: 150.0 });
}

#[test]
fn errors_name_the_field_and_the_allowed_range() {
    let cases = [
        (
            "nodes = 1",
            "nodes = 1 is out of range: it must be in [2, 200]",
        ),
        (
            "nodes = 5\nsink = 5",
            "sink = 5 is out of range: it must be in [0, 4]",
        ),
        (
            "sink = 0",
            "sink: the sink must be another node than the source (0)",
        ),
        (
            "sources = 26",
            "sources = 26 is out of range: it must be in [1, 25]",
        ),
        (
            "[arp]\ndead_timeout = \"0s\"",
            "arp.dead_timeout = 0s is out of range: it must be in [1ms, 1000s]",
        ),
        (
            "[arp]\npending_packets = 0",
            "arp.pending_packets = 0 is out of range: it must be in [1, 1000]",
        ),
        (
            "[wifi]\ndata_rate_mbps = 3",
            "wifi.data_rate_mbps = 3 is out of range: it must be one of 1, 2, 5.5, 11 (Mb/s)",
        ),
        (
            "[wifi]\nstandard = \"802.11a\"\ndata_rate_mbps = 2",
            "one of 6, 9, 12, 18, 24, 36, 48, 54 (Mb/s)",
        ),
        (
            "[[background]]\nfrom = 1\nto = 2\nrate = \"2000Gbps\"",
            "background[0].rate = 2000Gbps is out of range: it must be > 0 and at most 1Gbps",
        ),
        (
            "[wifi]\nshort_retry_limit = 0",
            "wifi.short_retry_limit = 0 is out of range: it must be in [1, 255]",
        ),
        (
            "topology = { model = \"random_waypoint\", min_speed = 0, max_speed = 20, pause = 1 }",
            "topology.min_speed = 0 is out of range: it must be in (0, 1000]",
        ),
        (
            "topology = { model = \"random_waypoint\", min_speed = 10, max_speed = 5, pause = 1 }",
            "topology.max_speed = 5 is out of range: it must be >= topology.min_speed (10)",
        ),
        (
            "topology = { model = \"grid\", columns = 0, spacing = 100 }",
            "topology.columns = 0 is out of range: it must be in [1, 50]",
        ),
        (
            "propagation = { model = \"range\", range = -1 }",
            "propagation.range = -1 is out of range",
        ),
        (
            "step = \"0s\"",
            "step = 0s is out of range: it must be in [100us, 1s]",
        ),
        (
            "routing = \"dsr\"",
            "routing: dsr is not available: Debian's ns-3 3.37 DSR module",
        ),
        (
            "[[background]]\nfrom = 1\nto = 1\nrate = \"1Mbps\"",
            "background[0].to: a background flow needs two different nodes",
        ),
        (
            "[[background]]\nfrom = 1\nto = 60\nrate = \"1Mbps\"",
            "background[0].to = 60 is out of range: it must be in [0, 49]",
        ),
        ("speed = 3", "unknown field `speed`"),
        (
            "topology = { model = \"chain\", spacing = 100, pause = 1 }",
            "unknown field `pause`",
        ),
        ("routing = \"batman\"", "unknown variant `batman`"),
    ];
    assert_refused(&cases);
}

#[test]
fn a_session_without_ns3_says_what_to_install() {
    if netsim_ns3::AVAILABLE {
        return; // covered by the ns-3 tests
    }
    let error = Session::new(&Ns3Config::default(), 1)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("libns3-dev") && error.contains("feature `ns3`"),
        "{error}"
    );
}

#[test]
fn an_invalid_scenario_is_refused_before_ns3_sees_it() {
    let config = Ns3Config {
        nodes: 0,
        ..Ns3Config::default()
    };
    let error = Session::new(&config, 1).unwrap_err().to_string();
    assert!(
        error.starts_with("invalid ns-3 scenario: nodes = 0"),
        "{error}"
    );
}

#[test]
fn rate_control_and_fading_read_with_ns3_s_defaults_and_round_trip() {
    let config = parse(
        r#"
        propagation = { model = "nakagami", m1 = 1.0 }
        [wifi]
        standard = "802.11a"
        rate_control = "minstrel"
        "#,
    )
    .unwrap();
    assert_eq!(config.wifi.rate_control, RateControl::Minstrel);
    // ns-3 3.37's attribute defaults (propagation-loss-model.cc), but for the one set.
    let expected = Nakagami {
        m1: 1.0,
        ..Nakagami::default()
    };
    assert_eq!(config.propagation, Propagation::Nakagami(expected));
    let Propagation::Nakagami(n) = &config.propagation else {
        unreachable!()
    };
    assert_eq!(
        (n.exponent, n.reference_distance, n.reference_loss),
        (3.0, 1.0, 46.6777)
    );
    assert_eq!(
        (n.distance1, n.distance2, n.m0, n.m2),
        (80.0, 200.0, 1.5, 0.75)
    );
    let again: Ns3Config = toml::from_str(&toml::to_string(&config).unwrap()).unwrap();
    assert_eq!(again, config);
    let ideal =
        parse("propagation = { model = \"log_distance\" }\n[wifi]\nrate_control = \"ideal\"")
            .unwrap();
    assert_eq!(ideal.wifi.rate_control, RateControl::Ideal);
}

#[test]
fn the_default_rate_control_is_left_out_of_the_written_config() {
    // Run ids hash the written config: a config from before rate control existed must keep its
    // text, so the default is not written; any other choice is.
    let text = serde_json::to_string(&Ns3Config::default()).unwrap();
    assert!(!text.contains("rate_control"), "{text}");
    let mut minstrel = Ns3Config::default();
    minstrel.wifi.rate_control = RateControl::Minstrel;
    let text = serde_json::to_string(&minstrel).unwrap();
    assert!(text.contains(r#""rate_control":"minstrel""#), "{text}");
    let back: Ns3Config = serde_json::from_str(&text).unwrap();
    assert_eq!(back, minstrel);
}

#[test]
fn rate_control_and_fading_errors_name_the_field_and_what_is_allowed() {
    let cases = [
        (
            "[wifi]\nrate_control = \"arf\"",
            "unknown variant `arf`, expected one of `constant`, `minstrel`, `ideal`, \
             `minstrel_ht`",
        ),
        (
            "[wifi]\nrate_control = \"minstrel\"\ndata_rate_mbps = 11",
            "wifi.data_rate_mbps: not used with wifi.rate_control = \"minstrel\"",
        ),
        (
            "propagation = { model = \"nakagami\" }\n[wifi]\nrate_control = \"ideal\"\n\
             data_rate_mbps = 1",
            "wifi.data_rate_mbps: not used with wifi.rate_control = \"ideal\"",
        ),
        (
            "[wifi]\nrate_control = \"minstrel\"\nshort_retry_limit = 3",
            "wifi.short_retry_limit: not used with wifi.rate_control = \"minstrel\" (Minstrel \
             retries along its own retry chain)",
        ),
        (
            "[wifi]\nrate_control = \"minstrel\"\nlong_retry_limit = 2",
            "wifi.long_retry_limit: not used",
        ),
        (
            "[wifi]\nrate_control = \"ideal\"",
            "wifi.rate_control: ideal chooses by the receiver's SNR, which the range model never \
             varies",
        ),
        (
            "propagation = { model = \"nakagami\", range = 250 }",
            "unknown field `range`",
        ),
        (
            "propagation = { model = \"nakagami\", m1 = 0.4 }",
            "propagation.m1 = 0.4 is out of range: it must be in [0.5, 100]",
        ),
        (
            "propagation = { model = \"nakagami\", m0 = 101 }",
            "propagation.m0 = 101 is out of range: it must be in [0.5, 100]",
        ),
        (
            "propagation = { model = \"nakagami\", distance1 = 300 }",
            "propagation.distance1 = 300 is out of range: it must be in [0, propagation.distance2 \
             (200)]",
        ),
        (
            "propagation = { model = \"nakagami\", exponent = 0 }",
            "propagation.exponent = 0 is out of range: it must be in (0, 10]",
        ),
        (
            "propagation = { model = \"nakagami\", reference_loss = -1 }",
            "propagation.reference_loss = -1 is out of range: it must be in [0, 200]",
        ),
        (
            "propagation = { model = \"nakagami\", reference_distance = 0 }",
            "propagation.reference_distance = 0 is out of range: it must be in (0, 1000]",
        ),
        (
            "propagation = { model = \"rayleigh\" }",
            "unknown variant `rayleigh`",
        ),
    ];
    assert_refused(&cases);
}

#[test]
fn rate_managers_other_than_constant_do_not_need_a_rate_of_the_standard() {
    // The default data_rate_mbps (2) is no 802.11a rate; Minstrel does not use it.
    parse("[wifi]\nstandard = \"802.11a\"\nrate_control = \"minstrel\"").unwrap();
    let error = parse("[wifi]\nstandard = \"802.11a\"").unwrap_err();
    assert!(error.contains("wifi.data_rate_mbps = 2"), "{error}");
}

#[test]
fn the_802_11n_standards_read_with_their_ht_rates_and_round_trip() {
    let config = parse("[wifi]\nstandard = \"802.11n-5GHz\"\ndata_rate_mbps = 58.5").unwrap();
    assert_eq!(config.wifi.standard, Standard::N5GHz);
    assert_eq!(config.wifi.standard.mode(58.5), Some("HtMcs6"));
    assert_eq!(config.wifi.standard.control_mode(), "OfdmRate6Mbps");
    let again: Ns3Config = toml::from_str(&toml::to_string(&config).unwrap()).unwrap();
    assert_eq!(again, config);
    let minstrel_ht =
        parse("[wifi]\nstandard = \"802.11n-2.4GHz\"\nrate_control = \"minstrel_ht\"").unwrap();
    assert_eq!(minstrel_ht.wifi.rate_control, RateControl::MinstrelHt);
    assert_eq!(minstrel_ht.wifi.standard.control_mode(), "ErpOfdmRate6Mbps");
    parse(
        "propagation = { model = \"nakagami\" }\n[wifi]\nstandard = \"802.11n-2.4GHz\"\n\
         rate_control = \"ideal\"",
    )
    .unwrap();
    // The fastest rate any standard offers is 802.11n's MCS 7, derived from the declared rates.
    assert_eq!(Standard::fastest_mbps(), 65.0);
    let rates: Vec<f64> = Standard::N24GHz.modes().iter().map(|(r, _)| *r).collect();
    assert_eq!(rates, [6.5, 13.0, 19.5, 26.0, 39.0, 52.0, 58.5, 65.0]);
}

#[test]
fn the_802_11n_standards_refuse_rate_controls_they_cannot_run() {
    let cases = [
        (
            "[wifi]\nstandard = \"802.11n-2.4GHz\"\ndata_rate_mbps = 54",
            "wifi.data_rate_mbps = 54 is out of range: it must be one of 6.5, 13, 19.5, 26, 39, \
             52, 58.5, 65 (Mb/s)",
        ),
        (
            "[wifi]\nstandard = \"802.11n-5GHz\"",
            "wifi.data_rate_mbps = 2 is out of range: it must be one of 6.5,",
        ),
        (
            "[wifi]\nstandard = \"802.11n-5GHz\"\nrate_control = \"minstrel\"",
            "wifi.rate_control: \"minstrel\" does not run with wifi.standard = \"802.11n-5GHz\" \
             (ns-3 3.37's Minstrel aborts on an HT device; Minstrel-HT is its 802.11n \
             counterpart): use one of \"constant\", \"minstrel_ht\", \"ideal\"",
        ),
        (
            "[wifi]\nrate_control = \"minstrel_ht\"",
            "wifi.rate_control: \"minstrel_ht\" does not run with wifi.standard = \"802.11b\"",
        ),
        (
            "[wifi]\nstandard = \"802.11g\"\nrate_control = \"minstrel_ht\"",
            "use one of \"constant\", \"minstrel\", \"ideal\"",
        ),
        (
            "[wifi]\nstandard = \"802.11n-2.4GHz\"\nrate_control = \"minstrel_ht\"\n\
             data_rate_mbps = 65",
            "wifi.data_rate_mbps: not used with wifi.rate_control = \"minstrel_ht\"",
        ),
        (
            "[wifi]\nstandard = \"802.11n-2.4GHz\"\nrate_control = \"minstrel_ht\"\n\
             long_retry_limit = 2",
            "wifi.long_retry_limit: not used with wifi.rate_control = \"minstrel_ht\"",
        ),
        (
            "[wifi]\nstandard = \"802.11n-2.4GHz\"\nrate_control = \"ideal\"",
            "wifi.rate_control: ideal chooses by the receiver's SNR",
        ),
        (
            "[wifi]\nstandard = \"802.11n\"",
            "unknown variant `802.11n`, expected one of `802.11b`, `802.11a`, `802.11g`, \
             `802.11n-2.4GHz`, `802.11n-5GHz`",
        ),
    ];
    assert_refused(&cases);
}

#[test]
fn an_802_11s_mesh_reads_and_runs_over_802_11a_only() {
    let config =
        parse("routing = \"hwmp\"\n[wifi]\nstandard = \"802.11a\"\ndata_rate_mbps = 12").unwrap();
    assert_eq!(config.routing, Routing::Hwmp);
    let again: Ns3Config = toml::from_str(&toml::to_string(&config).unwrap()).unwrap();
    assert_eq!(again, config);
    parse(
        "routing = \"hwmp\"\npropagation = { model = \"nakagami\" }\n[wifi]\n\
         standard = \"802.11a\"\nrate_control = \"minstrel\"",
    )
    .unwrap();
    let mesh_on = |standard: &str| {
        format!(
            "routing = \"hwmp\"\npropagation = {{ model = \"log_distance\" }}\n[wifi]\n\
             standard = \"{standard}\"\nrate_control = \"ideal\""
        )
    };
    let b = mesh_on("802.11b");
    let g = mesh_on("802.11g");
    let n24 = mesh_on("802.11n-2.4GHz");
    let n5 = mesh_on("802.11n-5GHz");
    assert_refused(&[
        (
            "routing = \"hwmp\"",
            "wifi.standard: \"802.11b\" does not run with routing = \"hwmp\" (ns-3 3.37's \
             MeshHelper tunes every mesh interface to channel 100, which only the 5 GHz band has",
        ),
        (&b, "use wifi.standard = \"802.11a\""),
        (
            &g,
            "wifi.standard: \"802.11g\" does not run with routing = \"hwmp\"",
        ),
        (
            &n24,
            "wifi.standard: \"802.11n-2.4GHz\" does not run with routing = \"hwmp\"",
        ),
        (
            &n5,
            "wifi.standard: \"802.11n-5GHz\" does not run with routing = \"hwmp\" (ns-3 3.37's \
             MeshHelper gives its interfaces no HT configuration, so the mesh MACs are not HT stations",
        ),
        (
            "routing = \"mesh\"",
            "unknown variant `mesh`, expected one of `aodv`, `olsr`, `dsdv`, `dsr`, `hwmp`",
        ),
    ]);
}

#[test]
fn the_mesh_s_peer_link_setting_reads_is_left_out_at_ns3_s_default_and_needs_the_mesh() {
    let config = parse(
        "routing = \"hwmp\"\nmesh = { peer_link_max_packet_failure = 65535 }\n[wifi]\n\
         standard = \"802.11a\"\ndata_rate_mbps = 12",
    )
    .unwrap();
    assert_eq!(config.mesh.peer_link_max_packet_failure, 65535);
    let text = serde_json::to_string(&config).unwrap();
    assert!(
        text.contains(r#""mesh":{"peer_link_max_packet_failure":65535}"#),
        "{text}"
    );
    assert_eq!(serde_json::from_str::<Ns3Config>(&text).unwrap(), config);
    // Run ids hash the written config: ns-3's default is not written, so a mesh config from
    // before the setting existed keeps its text.
    let default = serde_json::to_string(&Ns3Config::default()).unwrap();
    assert!(!default.contains("mesh"), "{default}");
    assert_refused(&[
        (
            "mesh = { peer_link_max_packet_failure = 65535 }",
            "mesh.peer_link_max_packet_failure: is an 802.11s mesh setting, not used with \
             routing = \"aodv\": use routing = \"hwmp\", or leave it out",
        ),
        (
            "routing = \"hwmp\"\nmesh = { peer_link_max_packet_failure = 0 }\n[wifi]\n\
             standard = \"802.11a\"\ndata_rate_mbps = 12",
            "mesh.peer_link_max_packet_failure: 0 is out of range: it must be from 1 to 65535",
        ),
        (
            "routing = \"hwmp\"\nmesh = { peer_link_max_packet_failure = 65536 }\n[wifi]\n\
             standard = \"802.11a\"\ndata_rate_mbps = 12",
            "mesh.peer_link_max_packet_failure: 65536 is out of range: it must be from 1 to 65535",
        ),
        (
            "routing = \"hwmp\"\nmesh = { max_packet_failure = 3 }",
            "unknown field `max_packet_failure`, expected `peer_link_max_packet_failure`",
        ),
    ]);
}
