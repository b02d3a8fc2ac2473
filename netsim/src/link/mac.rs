//! An optional 802.11 DCF airtime layer (`[link.mac]`): what a frame costs on a shared radio
//! channel beyond its bits, MAC retransmissions of corrupted frames, and one channel for both
//! directions.
//!
//! Without it a netsim hop serializes `payload + overhead` bytes at `rate` and nothing else: an
//! ideal full-duplex wire. Over the same movement, ns-3's 802.11b MANET runs whose datagrams
//! crossed one hop delivered a median 0.52x and at most 0.78x of netsim's goodput (docs/results/calibration.md,
//! "netsim against ns-3 over the same movement"), the order of what 802.11's per-frame cost
//! and its shared channel take. With the layer on, each datagram's transmission over each hop is a DCF frame
//! exchange (IEEE 802.11-2016 section 10.3, DSSS PHY timing of section 16):
//!
//! ```text
//! attempt = DIFS + backoff x slot                         channel access
//!         + preamble + (wire bytes + header_bytes) / rate  the data frame
//!         + SIFS + preamble + ack_bytes / control_rate     its 802.11 ACK
//! DIFS    = SIFS + 2 x slot;  backoff uniform in [0, CW]
//! ```
//!
//! - **Retries.** The error layers are drawn once per attempt and hop (a bit error corrupts one
//!   transmission, not the datagram): a corrupted attempt is sent again with the contention
//!   window doubled (`CW <- 2 CW + 1`, at most `cw_max`), up to `max_attempts` attempts; the
//!   datagram is lost only if every attempt on some hop fails ([`super::DropReason::Error`]).
//!   Every attempt costs airtime. A failed attempt is charged as a successful one (its ACK
//!   timeout, SIFS + slot + preamble, is within 120 us of the ACK it waited for).
//! - **Hops.** The attempts of every hop are drawn; the channel time of the datagram is their
//!   sum scaled by `min(h, k) / h` (the link's hop sharing, [`super::LinkConfig`]), so equal
//!   hops give `min(h, k)` times one hop's airtime as without the layer.
//! - **Half duplex** (`half_duplex`, default on). Both directions contend for one channel: a
//!   frame sent one way also holds the other way's transmitter for its channel time. The
//!   other way's datagrams already given a delivery time keep it (the link decides each
//!   datagram when it is offered); the next one it accepts starts that much later. Over a
//!   run this conserves airtime exactly, and a returning ACK waits for about one frame, not for
//!   the data queue ahead of it, which is how DCF's random access shares the channel between
//!   two busy stations.
//!
//! Every backoff is drawn from the direction's seeded stream `a_to_b/mac` (or `b_to_a/mac`),
//! so the same seed gives the same run. Without `[link.mac]` no draw is made and every run is
//! what it was before the layer existed.
//!
//! Left out, and said so: collisions (two stations ending their backoff in the same slot),
//! hidden terminals and RTS/CTS, rate adaptation, routing and ARP traffic, and the
//! store-and-forward latency of each relay beyond the link's `h x delay`.
//!
//! The defaults are 802.11b's DSSS PHY at ns-3's defaults, as the ns-3 backend's MANET presets
//! run it: 20 us slot, 10 us SIFS, CW 31 to 1023, the long PLCP preamble and header (192 us),
//! 36 bytes of MAC header, FCS and LLC/SNAP per datagram, a 14-byte ACK at the 1 Mb/s basic
//! rate, 7 attempts (ns-3's `MaxSsrc`). The data rate is the direction's `rate`.

use std::time::Duration;

use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::config_error::{ConfigError, check_duration_at_most};
use crate::seed::SimRng;
use crate::units::{Rate, serde_duration};

/// Longest accepted slot, SIFS or preamble: far beyond any 802.11 PHY (its slots are 9-50 us).
const MAX_MAC_TIME: Duration = Duration::from_millis(10);
/// Largest contention window, in slots (802.11's is 1023).
const MAX_CW: u32 = 65_535;
/// Most transmission attempts per frame and hop (802.11's retry counters are bytes).
const MAX_ATTEMPTS: u32 = 255;

/// 802.11 DCF channel access per frame (see the module docs). In TOML, `[link.mac]` with any
/// fields to change; `link.mac = {}` takes 802.11b's defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MacConfig {
    /// Slot time (default 20 us, 802.11b). At most 10 ms.
    #[serde(with = "serde_duration")]
    pub slot: Duration,
    /// Short interframe space (default 10 us); DIFS is `sifs + 2 x slot`. At most 10 ms.
    #[serde(with = "serde_duration")]
    pub sifs: Duration,
    /// Contention window of a first attempt, in slots (default 31). Range `[0, cw_max]`.
    pub cw_min: u32,
    /// Largest contention window, in slots (default 1023). Range `[cw_min, 65535]`.
    pub cw_max: u32,
    /// PLCP preamble and header sent before every frame, data and ACK (default 192 us: DSSS's
    /// long preamble). At most 10 ms.
    #[serde(with = "serde_duration")]
    pub preamble: Duration,
    /// Bytes the MAC adds to each datagram's wire bytes, sent at the data rate (default 36:
    /// 24 of MAC header, 4 of FCS, 8 of LLC/SNAP). Range `[0, 65535]`.
    pub header_bytes: u32,
    /// Length of the 802.11 ACK frame (default 14 bytes). Range `[0, 65535]`.
    pub ack_bytes: u32,
    /// Rate of the 802.11 ACK (default 1 Mb/s, 802.11b's basic rate). Must be > 0.
    pub control_rate: Rate,
    /// Attempts per frame and hop before the MAC drops it (default 7, ns-3's `MaxSsrc`).
    /// Range `[1, 255]`.
    pub max_attempts: u32,
    /// Both directions share one channel (default true).
    pub half_duplex: bool,
}

impl Default for MacConfig {
    fn default() -> Self {
        Self {
            slot: Duration::from_micros(20),
            sifs: Duration::from_micros(10),
            cw_min: 31,
            cw_max: 1023,
            preamble: Duration::from_micros(192),
            header_bytes: 36,
            ack_bytes: 14,
            control_rate: Rate::from_mbps(1),
            max_attempts: 7,
            half_duplex: true,
        }
    }
}

impl MacConfig {
    /// Checks every field; `field` is this table's name, e.g. `mac`.
    pub fn validate(&self, field: &str) -> Result<(), ConfigError> {
        let f = |name: &str| format!("{field}.{name}");
        for (name, value) in [
            ("slot", self.slot),
            ("sifs", self.sifs),
            ("preamble", self.preamble),
        ] {
            check_duration_at_most(&f(name), value, MAX_MAC_TIME)?;
        }
        if self.cw_max > MAX_CW {
            return Err(ConfigError::out_of_range(
                f("cw_max"),
                self.cw_max,
                format!("in [cw_min ({}), {MAX_CW}]", self.cw_min),
            ));
        }
        if self.cw_min > self.cw_max {
            return Err(ConfigError::out_of_range(
                f("cw_min"),
                self.cw_min,
                format!("in [0, cw_max ({})]", self.cw_max),
            ));
        }
        for (name, value) in [
            ("header_bytes", self.header_bytes),
            ("ack_bytes", self.ack_bytes),
        ] {
            if value > 65_535 {
                return Err(ConfigError::out_of_range(f(name), value, "in [0, 65535]"));
            }
        }
        if self.control_rate.bps() == 0 {
            return Err(ConfigError::out_of_range(
                f("control_rate"),
                self.control_rate,
                "> 0",
            ));
        }
        if !(1..=MAX_ATTEMPTS).contains(&self.max_attempts) {
            return Err(ConfigError::out_of_range(
                f("max_attempts"),
                self.max_attempts,
                format!("in [1, {MAX_ATTEMPTS}]"),
            ));
        }
        Ok(())
    }

    /// DCF interframe space: SIFS plus two slots.
    fn difs(&self) -> Duration {
        self.sifs + 2 * self.slot
    }

    /// Channel time of one attempt to send `wire_bytes` at `rate` after `backoff` slots.
    pub fn attempt_airtime(&self, wire_bytes: u64, rate: Rate, backoff: u32) -> Duration {
        self.difs()
            .saturating_add(self.slot.saturating_mul(backoff))
            .saturating_add(self.preamble)
            .saturating_add(rate.transmit_time(wire_bytes + u64::from(self.header_bytes)))
            .saturating_add(self.sifs)
            .saturating_add(self.preamble)
            .saturating_add(self.control_rate.transmit_time(u64::from(self.ack_bytes)))
    }

    /// Expected channel time per delivered frame of `wire_bytes` over one hop, with per-attempt
    /// corruption probability `q`: attempts at the mean first-attempt backoff (`cw_min / 2`),
    /// `(1 - q^a) / (1 - q)` of them on average. For the link's capacity estimate.
    pub(crate) fn expected_hop_airtime(&self, wire_bytes: u64, rate: Rate, q: f64) -> f64 {
        let attempt = self.attempt_airtime(wire_bytes, rate, 0).as_secs_f64()
            + self.slot.as_secs_f64() * f64::from(self.cw_min) / 2.0;
        let a = f64::from(self.max_attempts);
        let attempts = if q >= 1.0 {
            a
        } else {
            (1.0 - q.powf(a)) / (1.0 - q)
        };
        attempt * attempts
    }

    /// Probability that a frame gets over one hop within `max_attempts` attempts, each
    /// corrupted with probability `q`.
    pub(crate) fn hop_survival(&self, q: f64) -> f64 {
        1.0 - q.powf(f64::from(self.max_attempts))
    }
}

/// What the MAC did with one datagram over its route.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Transmission {
    /// Channel time the datagram held (all attempts of all hops, scaled by the hop sharing).
    pub(crate) channel_time: Duration,
    /// Every attempt on some hop was corrupted: the datagram is lost.
    pub(crate) lost: bool,
}

/// Sends one datagram over `hops` hops: draws each attempt's backoff from `rng` and asks
/// `corrupted` (the error layers, one hop) whether the attempt fails.
pub(crate) fn transmit(
    mac: &MacConfig,
    rng: &mut SimRng,
    wire_bytes: u64,
    rate: Rate,
    hops: u32,
    sharing: u32,
    mut corrupted: impl FnMut() -> bool,
) -> Transmission {
    let hops = hops.max(1);
    let mut total = Duration::ZERO;
    let mut lost = false;
    'hops: for _ in 0..hops {
        let mut cw = mac.cw_min;
        for _ in 0..mac.max_attempts {
            let backoff = rng.gen_range(0..=cw);
            total = total.saturating_add(mac.attempt_airtime(wire_bytes, rate, backoff));
            if !corrupted() {
                continue 'hops;
            }
            cw = cw.saturating_mul(2).saturating_add(1).min(mac.cw_max);
        }
        // This hop gave up: the relays after it never see the datagram.
        lost = true;
        break;
    }
    let nanos = total.as_nanos() * u128::from(sharing.max(1)) / u128::from(hops);
    Transmission {
        channel_time: Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX)),
        lost,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seed::stream_rng;

    #[test]
    fn an_802_11b_frame_of_1500_wire_bytes_takes_its_textbook_airtime() {
        // DIFS 50 + preamble 192 + (1500 + 36) x 8 / 2 Mb/s = 6144 + SIFS 10 + ACK 192 + 112
        // = 6700 us with no backoff, 6700 + 31 x 20 = 7320 us at the largest first backoff.
        let mac = MacConfig::default();
        let rate = Rate::from_mbps(2);
        assert_eq!(
            mac.attempt_airtime(1500, rate, 0),
            Duration::from_micros(6700)
        );
        assert_eq!(
            mac.attempt_airtime(1500, rate, 31),
            Duration::from_micros(7320)
        );
    }

    #[test]
    fn a_clean_hop_takes_one_attempt_with_a_first_window_backoff() {
        let mac = MacConfig::default();
        let rate = Rate::from_mbps(2);
        let mut rng = stream_rng(1, "test/mac");
        for _ in 0..1000 {
            let t = transmit(&mac, &mut rng, 1500, rate, 1, 1, || false);
            assert!(!t.lost);
            let extra = t.channel_time - mac.attempt_airtime(1500, rate, 0);
            assert!(extra <= 31 * mac.slot, "backoff {extra:?} beyond CW 31");
            assert_eq!(extra.as_nanos() % mac.slot.as_nanos(), 0);
        }
    }

    #[test]
    fn a_frame_corrupted_every_time_is_lost_after_max_attempts_each_charged() {
        let mac = MacConfig::default();
        let rate = Rate::from_mbps(2);
        let mut rng = stream_rng(2, "test/mac");
        let mut attempts = 0;
        let t = transmit(&mac, &mut rng, 1000, rate, 3, 3, || {
            attempts += 1;
            true
        });
        assert!(t.lost);
        // The first hop gives up: 7 attempts, none on the later hops.
        assert_eq!(attempts, 7);
        let floor = mac.attempt_airtime(1000, rate, 0) * 7;
        // Windows 31, 63, 127, 255, 511, 1023, 1023: at most 3033 slots of backoff.
        assert!(t.channel_time >= floor);
        assert!(t.channel_time <= floor + mac.slot * 3033);
    }

    #[test]
    fn a_second_attempt_succeeds_after_one_corruption() {
        let mac = MacConfig::default();
        let rate = Rate::from_mbps(2);
        let mut rng = stream_rng(3, "test/mac");
        let mut calls = 0;
        let t = transmit(&mac, &mut rng, 1000, rate, 1, 1, || {
            calls += 1;
            calls == 1
        });
        assert!(!t.lost);
        assert_eq!(calls, 2);
        assert!(t.channel_time >= mac.attempt_airtime(1000, rate, 0) * 2);
    }

    #[test]
    fn hops_beyond_the_sharing_run_in_parallel() {
        // Five clean hops with interference over three: 3/5 of five attempts' airtime.
        let mac = MacConfig {
            cw_min: 0,
            ..MacConfig::default()
        };
        let rate = Rate::from_mbps(2);
        let mut rng = stream_rng(4, "test/mac");
        let t = transmit(&mac, &mut rng, 1000, rate, 5, 3, || false);
        assert_eq!(t.channel_time, mac.attempt_airtime(1000, rate, 0) * 3);
    }

    #[test]
    fn the_same_seed_draws_the_same_backoffs() {
        let mac = MacConfig::default();
        let rate = Rate::from_mbps(2);
        let run = |seed| {
            let mut rng = stream_rng(seed, "a_to_b/mac");
            (0..50)
                .map(|_| transmit(&mac, &mut rng, 1200, rate, 2, 2, || false).channel_time)
                .collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
    }

    #[test]
    fn retries_and_expected_airtime_follow_the_geometric_series() {
        let mac = MacConfig::default();
        assert!((mac.hop_survival(0.5) - (1.0 - 0.5f64.powi(7))).abs() < 1e-12);
        assert_eq!(mac.hop_survival(0.0), 1.0);
        let rate = Rate::from_mbps(2);
        let one = mac.expected_hop_airtime(1500, rate, 0.0);
        // 6700 us plus 15.5 slots of mean backoff.
        assert!((one - 6.7e-3 - 15.5 * 20e-6).abs() < 1e-9);
        let half = mac.expected_hop_airtime(1500, rate, 0.5);
        assert!((half / one - (1.0 - 0.5f64.powi(7)) / 0.5).abs() < 1e-9);
    }

    #[test]
    fn bad_fields_are_named_with_their_range() {
        let cases: [(MacConfig, &str); 5] = [
            (
                MacConfig {
                    slot: Duration::from_secs(1),
                    ..MacConfig::default()
                },
                "mac.slot = 1s is out of range: it must be at most 10ms",
            ),
            (
                MacConfig {
                    cw_min: 2000,
                    ..MacConfig::default()
                },
                "mac.cw_min = 2000 is out of range: it must be in [0, cw_max (1023)]",
            ),
            (
                MacConfig {
                    cw_max: 70_000,
                    ..MacConfig::default()
                },
                "mac.cw_max = 70000 is out of range: it must be in [cw_min (31), 65535]",
            ),
            (
                MacConfig {
                    max_attempts: 0,
                    ..MacConfig::default()
                },
                "mac.max_attempts = 0 is out of range: it must be in [1, 255]",
            ),
            (
                MacConfig {
                    control_rate: Rate::from_bps(0),
                    ..MacConfig::default()
                },
                "mac.control_rate",
            ),
        ];
        for (config, message) in cases {
            let err = config.validate("mac").unwrap_err().to_string();
            assert!(err.contains(message), "{err}");
        }
        MacConfig::default().validate("mac").unwrap();
    }
}
