//! Paths shared by the transfer tests of both stacks.

use std::time::Duration;

use netsim::{DirectionConfig, ErrorModelConfig, LinkConfig, OnOffConfig, PathModelConfig, Rate};

/// 5 Mb/s, 20 ms one way, 2% packet errors, and a route that breaks for 0.5 s every 2 s on
/// average with a 200 ms repair: every transfer over it sees losses and outages.
pub fn lossy_breaking_link() -> LinkConfig {
    LinkConfig::symmetric(DirectionConfig {
        rate: Rate::from_mbps(5),
        delay: Duration::from_millis(20),
        errors: vec![ErrorModelConfig::Per { p: 0.02 }],
        ..DirectionConfig::default()
    })
    .with_path(PathModelConfig::OnOff(OnOffConfig {
        mean_up: Duration::from_secs(2),
        mean_down: Duration::from_millis(500),
        repair_delay: Duration::from_millis(200),
    }))
}
