//! The ns-3 scenario: nodes, movement, 802.11, propagation, routing, endpoints, background
//! traffic and the lock-step period. Plain data with serde (`deny_unknown_fields`); every
//! default is documented, taken from the papers where they state it; [`Ns3Config::validate`]
//! names the field and the allowed range of anything ns-3 would refuse or abort on.

use std::path::PathBuf;
use std::time::Duration;

use netsim::ConfigError;
use netsim::units::serde_duration;
use serde::{Deserialize, Serialize};

/// Most nodes a scenario may have. ns-3 itself has no limit, but the work of a simulated second
/// grows with the node count and their density (every broadcast, every routing message, reaches
/// each node in range: in one radio's reach under OLSR, 200 nodes took about 2.3 s and 1000
/// about 12 s of wall time per simulated second). 200 is the largest network the papers
/// simulate (SACK-FeW, Table 1).
pub const MAX_NODES: u32 = 200;
/// Largest terrain side, in metres.
pub const MAX_AREA_M: f64 = 100_000.0;
/// Fastest node speed, in m/s (beyond any vehicle the papers consider).
pub const MAX_SPEED_MPS: f64 = 1000.0;
/// Largest lock-step period.
pub const MAX_STEP: Duration = Duration::from_secs(1);
/// Smallest lock-step period: at most 10,000 lock-steps per simulated second. Below tokio's
/// 1 ms timer resolution a shorter step adds work (each step crosses into ns-3), not accuracy.
pub const MIN_STEP: Duration = Duration::from_micros(100);
/// Latest [`Ns3Config::start`]: five minutes of warm-up are far beyond what a routing
/// protocol needs to converge (OLSR's HELLO and TC messages take seconds; the committed
/// evaluation uses 20 to 40 s), and bound its cost (200 nodes under OLSR in one radio's reach
/// take about 2.3 s of wall time per simulated second).
pub const MAX_START: Duration = Duration::from_secs(300);
/// Most background packets per simulated second, all flows together: far above what any
/// 802.11 channel ns-3 models can carry (a few thousand frames a second), so that a faster
/// offered load only floods ns-3's event queue with packets the MAC drops.
pub const MAX_BACKGROUND_PACKETS_PER_S: f64 = 100_000.0;
/// Most node pairs the route-availability sampler may examine per simulated second,
/// `sources * nodes^2 / route_sample`: each sample searches the unit-disk graph, every pair of
/// nodes, once per source/sink pair.
pub const MAX_ROUTE_CHECKS_PER_S: f64 = 1e8;

/// One ns-3 MANET scenario. `Default` is the terrain of TCP Karak's Table 3 (50 nodes, 1200 m x
/// 1200 m, 250 m range, 802.11 at 2 Mb/s, 30 s pause) at 20 m/s, with AODV.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Ns3Config {
    /// Number of nodes (default 50). Range `[2, 200]` ([`MAX_NODES`]). A chain has `nodes - 1` hops.
    pub nodes: u32,
    /// Width of the terrain in metres (default 1200), for random waypoint.
    pub area_width: f64,
    /// Height of the terrain in metres (default 1200), for random waypoint.
    pub area_height: f64,
    /// Where the nodes are and how they move (default random waypoint).
    pub topology: Topology,
    /// The 802.11 MAC and PHY.
    pub wifi: WifiConfig,
    /// The propagation loss model (default a 250 m range).
    pub propagation: Propagation,
    /// The routing protocol (default AODV).
    pub routing: Routing,
    /// The node of endpoint A, the QUIC client and data sender (default 0). Used with one
    /// source only: see [`Ns3Config::sources`].
    pub source: u32,
    /// The node of endpoint B, the QUIC server (default: the last node). Used with one source
    /// only: see [`Ns3Config::sources`].
    pub sink: Option<u32>,
    /// Number of source/sink pairs, each carrying its own QUIC connection(s) (default 1: from
    /// [`Ns3Config::source`] to [`Ns3Config::sink`]). With `k > 1`, pair `i` runs from node
    /// `i` to node `nodes - 1 - i` (see [`Ns3Config::pairs`]): the many-source set-ups of the
    /// papers (TCP Karak, section 4: 25 sources among 50 nodes), and `source` and `sink` are
    /// not used. Range `[1, nodes / 2]`.
    pub sources: u32,
    /// Background UDP constant-bit-rate flows between node pairs (default none).
    pub background: Vec<BackgroundFlow>,
    /// ARP, which every IP hop resolves its next hop with (default: ns-3's).
    pub arp: ArpConfig,
    /// AODV's settings (unused with another routing protocol). The default closes ns-3 3.37's AODV
    /// black hole ([`AodvConfig::gratuitous_reply`] false).
    pub aodv: AodvConfig,
    /// The 802.11s mesh's settings, with `routing = "hwmp"` only (default: ns-3's). Left out of
    /// a serialized config at its default, so the configs (and run ids) written before it
    /// existed stay what they were.
    #[serde(skip_serializing_if = "MeshConfig::is_ns3_default")]
    pub mesh: MeshConfig,
    /// ns-3 time at which the link epoch (the QUIC stacks' time zero) starts (default 0 s).
    /// A warm-up for proactive routing: OLSR needs a few seconds of HELLO and TC messages
    /// before it has routes. Range `[0 s, 5 min]` ([`MAX_START`]).
    #[serde(with = "serde_duration")]
    pub start: Duration,
    /// The lock-step period (default 1 ms, tokio's timer resolution): ns-3 is advanced to the
    /// runtime's clock every step, so a datagram reaches its receiver up to one step after ns-3
    /// delivered it. Range `[100 µs, 1 s]` ([`MIN_STEP`], [`MAX_STEP`]).
    #[serde(with = "serde_duration")]
    pub step: Duration,
    /// Period of the geometric route-availability samples (default 100 ms; 0 turns them off).
    /// Only the range propagation model defines who is in reach, so only it is sampled.
    #[serde(with = "serde_duration")]
    pub route_sample: Duration,
}

impl Default for Ns3Config {
    fn default() -> Self {
        Self {
            nodes: 50,
            area_width: 1200.0,
            area_height: 1200.0,
            topology: Topology::default(),
            wifi: WifiConfig::default(),
            propagation: Propagation::default(),
            routing: Routing::Aodv,
            source: 0,
            sink: None,
            sources: 1,
            background: Vec::new(),
            arp: ArpConfig::default(),
            aodv: AodvConfig::default(),
            mesh: MeshConfig::default(),
            start: Duration::ZERO,
            step: Duration::from_millis(1),
            route_sample: Duration::from_millis(100),
        }
    }
}

/// Which random-waypoint model moves the nodes of [`Topology::RandomWaypoint`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Movement {
    /// ns-3's `RandomWaypointMobilityModel`, drawn from ns-3's RNG (the run's seed is its run
    /// number).
    #[default]
    Ns3,
    /// netsim's (`netsim::MobilityConfig::ns2_trace`, at its default 100 ms step): the same
    /// nodes, terrain, speeds and pause and the same run seed move the nodes exactly as a
    /// netsim run of that seed moves them, so the two backends can be compared seed by seed.
    /// The movement is written for [`NETSIM_MOVEMENT_HORIZON`]; after it the nodes stop.
    Netsim,
}

impl Movement {
    /// True for the default, ns-3's own movement.
    pub fn is_ns3(&self) -> bool {
        *self == Self::Ns3
    }
}

/// How long [`Movement::Netsim`] moves the nodes (an hour of simulated time).
pub const NETSIM_MOVEMENT_HORIZON: Duration = Duration::from_secs(3600);

/// Node placement and movement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "snake_case", deny_unknown_fields)]
pub enum Topology {
    /// Random waypoint over the terrain: each node picks a uniform point, travels to it at a
    /// speed uniform in `[min_speed, max_speed]`, pauses, repeats (ns-3's
    /// `RandomWaypointMobilityModel`; initial positions uniform).
    RandomWaypoint {
        /// Minimum speed in m/s (default 20). Must be > 0: a zero minimum makes random
        /// waypoint's average speed decay towards zero (Yoon, Liu and Noble 2003).
        min_speed: f64,
        /// Maximum speed in m/s (default 20).
        max_speed: f64,
        /// Pause at each waypoint (default 30 s, Karak Tables 3-4).
        #[serde(with = "serde_duration")]
        pause: Duration,
        /// Whose random waypoint moves the nodes (default ns-3's).
        #[serde(default)]
        movement: Movement,
    },
    /// A static line of `nodes` nodes, `spacing` metres apart; node 0 at one end.
    Chain {
        /// Distance between neighbours in metres (default 200: within a 250 m range, while
        /// the node two hops away, at 400 m, is hidden).
        spacing: f64,
    },
    /// A static grid, filled row by row, `columns` wide and `spacing` metres apart.
    Grid {
        /// Nodes per row.
        columns: u32,
        /// Distance between neighbours in metres (default 200).
        spacing: f64,
    },
    /// An ns-2 mobility trace (`setdest` output): `$node_(i) set X_ ..` lines for every node
    /// and `$ns_ at t "$node_(i) setdest x y speed"` movements, read by ns-3's
    /// `Ns2MobilityHelper`.
    Ns2Trace {
        /// The trace file.
        path: PathBuf,
    },
}

impl Default for Topology {
    fn default() -> Self {
        Self::RandomWaypoint {
            min_speed: 20.0,
            max_speed: 20.0,
            pause: Duration::from_secs(30),
            movement: Movement::Ns3,
        }
    }
}

impl Topology {
    /// The default chain (200 m spacing).
    pub fn chain() -> Self {
        Self::Chain { spacing: 200.0 }
    }
}

/// The 802.11 standards offered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Standard {
    /// 802.11b, DSSS at 1 or 2 Mb/s, CCK at 5.5 or 11 Mb/s (the papers' 802.11).
    #[default]
    #[serde(rename = "802.11b")]
    B,
    /// 802.11a, OFDM at 6-54 Mb/s (5 GHz).
    #[serde(rename = "802.11a")]
    A,
    /// 802.11g, ERP-OFDM at 6-54 Mb/s (2.4 GHz).
    #[serde(rename = "802.11g")]
    G,
    /// 802.11n (HT) in the 2.4 GHz band: one spatial stream, a 20 MHz channel, the long
    /// (800 ns) guard interval, so MCS 0-7 at 6.5-65 Mb/s (ns-3's `WIFI_STANDARD_80211n`, whose
    /// default band is 2.4 GHz and default width 20 MHz).
    #[serde(rename = "802.11n-2.4GHz")]
    N24GHz,
    /// 802.11n (HT) in the 5 GHz band, otherwise as [`Standard::N24GHz`].
    #[serde(rename = "802.11n-5GHz")]
    N5GHz,
}

impl Standard {
    /// Every standard offered.
    pub const ALL: [Standard; 5] = [
        Standard::B,
        Standard::A,
        Standard::G,
        Standard::N24GHz,
        Standard::N5GHz,
    ];

    /// The fastest data rate of any standard offered, in Mb/s: no flow over this backend can
    /// carry more.
    pub fn fastest_mbps() -> f64 {
        Self::ALL
            .iter()
            .flat_map(|s| s.modes().iter().map(|(mbps, _)| *mbps))
            .fold(0.0, f64::max)
    }

    /// The name used in configs.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::B => "802.11b",
            Self::A => "802.11a",
            Self::G => "802.11g",
            Self::N24GHz => "802.11n-2.4GHz",
            Self::N5GHz => "802.11n-5GHz",
        }
    }

    /// True for 802.11n (HT): its data rates are HT MCSs, and its rate managers HT ones.
    pub fn is_ht(self) -> bool {
        matches!(self, Self::N24GHz | Self::N5GHz)
    }

    /// The data rates in Mb/s and their ns-3 `WifiMode` names. For 802.11n, the single-stream
    /// MCSs (HtMcs0-7) at 20 MHz with the long guard interval (IEEE 802.11-2016, Table 19-27).
    pub fn modes(self) -> &'static [(f64, &'static str)] {
        const B: &[(f64, &str)] = &[
            (1.0, "DsssRate1Mbps"),
            (2.0, "DsssRate2Mbps"),
            (5.5, "DsssRate5_5Mbps"),
            (11.0, "DsssRate11Mbps"),
        ];
        const A: &[(f64, &str)] = &[
            (6.0, "OfdmRate6Mbps"),
            (9.0, "OfdmRate9Mbps"),
            (12.0, "OfdmRate12Mbps"),
            (18.0, "OfdmRate18Mbps"),
            (24.0, "OfdmRate24Mbps"),
            (36.0, "OfdmRate36Mbps"),
            (48.0, "OfdmRate48Mbps"),
            (54.0, "OfdmRate54Mbps"),
        ];
        const G: &[(f64, &str)] = &[
            (6.0, "ErpOfdmRate6Mbps"),
            (9.0, "ErpOfdmRate9Mbps"),
            (12.0, "ErpOfdmRate12Mbps"),
            (18.0, "ErpOfdmRate18Mbps"),
            (24.0, "ErpOfdmRate24Mbps"),
            (36.0, "ErpOfdmRate36Mbps"),
            (48.0, "ErpOfdmRate48Mbps"),
            (54.0, "ErpOfdmRate54Mbps"),
        ];
        const HT: &[(f64, &str)] = &[
            (6.5, "HtMcs0"),
            (13.0, "HtMcs1"),
            (19.5, "HtMcs2"),
            (26.0, "HtMcs3"),
            (39.0, "HtMcs4"),
            (52.0, "HtMcs5"),
            (58.5, "HtMcs6"),
            (65.0, "HtMcs7"),
        ];
        match self {
            Self::B => B,
            Self::A => A,
            Self::G => G,
            Self::N24GHz | Self::N5GHz => HT,
        }
    }

    /// The ns-3 mode name of `mbps`, if the standard has that rate.
    pub fn mode(self, mbps: f64) -> Option<&'static str> {
        self.modes()
            .iter()
            .find(|(rate, _)| *rate == mbps)
            .map(|(_, name)| *name)
    }

    /// The mode of control frames (RTS, CTS, ACK): the standard's lowest mandatory rate. For
    /// 802.11n, the band's lowest OFDM rate (6 Mb/s, ERP-OFDM at 2.4 GHz), as HT control
    /// responses are sent at a non-HT basic rate.
    pub fn control_mode(self) -> &'static str {
        match self {
            Self::N24GHz => "ErpOfdmRate6Mbps",
            Self::N5GHz => "OfdmRate6Mbps",
            _ => self.modes()[0].1,
        }
    }

    /// The rate controls ns-3 3.37 can run with this standard.
    pub fn rate_controls(self) -> &'static [RateControl] {
        if self.is_ht() {
            &[
                RateControl::Constant,
                RateControl::MinstrelHt,
                RateControl::Ideal,
            ]
        } else {
            &[
                RateControl::Constant,
                RateControl::Minstrel,
                RateControl::Ideal,
            ]
        }
    }

    /// The rates as text, for error messages.
    fn rates_text(self) -> String {
        let rates: Vec<String> = self.modes().iter().map(|(r, _)| r.to_string()).collect();
        format!("one of {} (Mb/s)", rates.join(", "))
    }
}

/// ARP on every node. ns-3's defaults differ from ns-2's and Linux's, which the papers' results
/// come from: ns-3 marks a neighbour that did not answer three ARP requests dead for 100 s and
/// drops every packet to it meanwhile, while a routing protocol that still sees the neighbour
/// (AODV's hellos) keeps routing through it; ns-2 and Linux ask again with the next packet.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ArpConfig {
    /// How long a neighbour that did not answer stays unreachable (default 100 s, ns-3's
    /// `ArpCache::DeadTimeout`). Range `[1ms, 1000s]`.
    #[serde(with = "serde_duration")]
    pub dead_timeout: Duration,
    /// Packets held per neighbour while its address is resolved; more are dropped (default 3,
    /// ns-3's `ArpCache::PendingQueueSize`). Range `[1, 1000]`.
    pub pending_packets: u32,
}

impl Default for ArpConfig {
    fn default() -> Self {
        Self {
            dead_timeout: Duration::from_secs(100),
            pending_packets: 3,
        }
    }
}

/// AODV on every node (ns-3's `ns3::aodv::RoutingProtocol`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AodvConfig {
    /// An intermediate node that answers a route request from its own table also sends a
    /// gratuitous route reply to the destination (ns-3's `GratuitousReply`; ns-3's default is
    /// true, this crate's false).
    ///
    /// In ns-3 3.37 this opens a black hole: `RecvRequest` refreshes a node's *invalid* route
    /// to the request's originator without marking it valid, so the destination's reverse
    /// traffic (the ACKs) can be routed through a node that then drops every packet of it
    /// ("no route") and answers with a route error, and every retransmission repeats the
    /// cycle. Seen as stalls of tens of seconds on static chains and whole runs without a
    /// delivery on the MANET (netsim-ns3's README, "The AODV black hole"); `false` closes it:
    /// the destination then learns its route back from the originator's request alone.
    pub gratuitous_reply: bool,
}

impl Default for AodvConfig {
    /// The black hole closed: no gratuitous replies.
    fn default() -> Self {
        Self {
            gratuitous_reply: false,
        }
    }
}

impl AodvConfig {
    /// ns-3 3.37's stock AODV (gratuitous replies on), as every run before this setting used.
    pub fn stock() -> Self {
        Self {
            gratuitous_reply: true,
        }
    }
}

/// ns-3's 802.11s mesh (`routing = "hwmp"`): peering and HWMP.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MeshConfig {
    /// How many frames to a peer may fail in a row before its peer link is closed (ns-3's
    /// `ns3::dot11s::PeerLink::MaxPacketFailure`, default 2, ns-3's). Range `[1, 65535]`.
    ///
    /// ns-3 3.37 aborts some meshes with it ("Invalid WifiPhy state.", `WifiPhyStateHelper::
    /// SwitchToTx`): a frame that expires in the queue (500 ms) while a frame exchange starts
    /// counts as failed, and the peer link it closes queues a Peer Link Close that is sent at
    /// once, inside that exchange, which then sends too (netsim-ns3's README, "The 802.11s
    /// abort"). 65535 (the attribute's largest value) leaves the closing to beacon loss (two
    /// beacons, ns-3's `MaxBeaconLoss`), outside any frame exchange, and the abort goes.
    pub peer_link_max_packet_failure: u32,
}

impl Default for MeshConfig {
    /// ns-3's.
    fn default() -> Self {
        Self {
            peer_link_max_packet_failure: 2,
        }
    }
}

impl MeshConfig {
    /// True for ns-3's defaults.
    pub fn is_ns3_default(&self) -> bool {
        *self == Self::default()
    }
}

/// The 802.11 MAC and PHY.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WifiConfig {
    /// The standard (default `"802.11b"`).
    pub standard: Standard,
    /// Data rate in Mb/s, constant (default 2, the papers' 802.11). Must be one of the
    /// standard's rates. Control frames use the standard's lowest rate. Used by
    /// [`RateControl::Constant`] only: with another [`WifiConfig::rate_control`] it must stay
    /// at its default (the manager picks every frame's rate among all of the standard's).
    pub data_rate_mbps: f64,
    /// How the MAC picks each data frame's rate (default [`RateControl::Constant`], at
    /// [`WifiConfig::data_rate_mbps`]). Left out of the serialized config when it is the
    /// default, so that configs written before it existed keep their text (and run ids).
    #[serde(skip_serializing_if = "RateControl::is_constant")]
    pub rate_control: RateControl,
    /// RTS/CTS before every data frame (default off, as ns-3 and most of the papers).
    pub rts_cts: bool,
    /// Attempts of a frame sent without RTS/CTS before the MAC gives up (default 7, 802.11's
    /// dot11ShortRetryLimit). Range `[1, 255]`.
    pub short_retry_limit: u32,
    /// Attempts of a frame sent after RTS/CTS (default 4, dot11LongRetryLimit). Range
    /// `[1, 255]`.
    pub long_retry_limit: u32,
    /// The interface queue in front of the MAC, in packets (default 50, ns-2's IFQ in the
    /// papers' set-ups). Range `[1, 100000]`.
    pub queue_packets: u32,
    /// Bit error rate of every frame reception (default 0). A corrupted frame is lost at the
    /// receiver and the sender's MAC retransmits it (ns-3's `RateErrorModel` per bit as the
    /// PHY's post-reception error model). Range `[0, 0.001]`.
    pub bit_error_rate: f64,
}

impl Default for WifiConfig {
    fn default() -> Self {
        Self {
            standard: Standard::B,
            data_rate_mbps: 2.0,
            rate_control: RateControl::Constant,
            rts_cts: false,
            short_retry_limit: 7,
            long_retry_limit: 4,
            queue_packets: 50,
            bit_error_rate: 0.0,
        }
    }
}

/// The rate adaptation of every node's MAC (ns-3's `WifiRemoteStationManager`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RateControl {
    /// One data rate for every frame, [`WifiConfig::data_rate_mbps`] (ns-3's
    /// `ConstantRateWifiManager`): the papers' 802.11.
    #[default]
    Constant,
    /// Minstrel (ns-3's `MinstrelWifiManager`, after the Linux kernel's mac80211 Minstrel):
    /// a sampling rate search over the standard's rates by measured delivery probability and
    /// throughput, with its own retry chain (it replaces [`WifiConfig::short_retry_limit`] and
    /// [`WifiConfig::long_retry_limit`], which must then stay at their defaults). 802.11a/b/g
    /// only: ns-3 3.37's Minstrel aborts on an HT device ("WifiRemoteStationManager selected
    /// does not support HT rates"); 802.11n takes [`RateControl::MinstrelHt`].
    Minstrel,
    /// ns-3's `IdealWifiManager`: the fastest rate whose bit error rate at the SNR the receiver
    /// last reported back is at most 1e-6 (`BerThreshold`; ns-3 carries the data frame's SNR
    /// back with its ACK, an oracle no real radio has). Needs a propagation model under which
    /// the SNR varies: refused with [`Propagation::Range`]. Chooses among HT MCSs with 802.11n.
    Ideal,
    /// Minstrel-HT (ns-3's `MinstrelHtWifiManager`, after Linux mac80211's
    /// `rc80211_minstrel_ht`): Minstrel's sampling search over the HT MCSs, with its own retry
    /// chain (retry limits must stay at their defaults, as with [`RateControl::Minstrel`]).
    /// 802.11n only: on an 802.11a/b/g device ns-3 runs its plain Minstrel in its place, so
    /// there it is refused in favour of `minstrel`.
    MinstrelHt,
}

impl RateControl {
    /// Every rate control offered.
    pub const ALL: [RateControl; 4] = [
        Self::Constant,
        Self::Minstrel,
        Self::Ideal,
        Self::MinstrelHt,
    ];

    /// True for the default, one constant rate.
    pub fn is_constant(&self) -> bool {
        *self == Self::Constant
    }

    /// True for the managers that retry along their own chain (Minstrel and Minstrel-HT).
    pub fn has_retry_chain(self) -> bool {
        matches!(self, Self::Minstrel | Self::MinstrelHt)
    }

    /// The name used in configs.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Constant => "constant",
            Self::Minstrel => "minstrel",
            Self::Ideal => "ideal",
            Self::MinstrelHt => "minstrel_ht",
        }
    }
}

/// The propagation loss model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "snake_case", deny_unknown_fields)]
pub enum Propagation {
    /// A unit disk: full power within `range` metres, nothing beyond (the papers' 250 m
    /// radio; ns-3's `RangePropagationLossModel`). Nodes out of range neither receive nor
    /// sense each other, so the node two hops away is a hidden terminal.
    Range {
        /// Radio range in metres (default 250).
        range: f64,
    },
    /// ns-3's Yans default: log-distance loss (exponent 3, 46.68 dB at 1 m) with the PHY's
    /// default power and sensitivity. Reach depends on the PHY, not on a set range; route
    /// availability is not sampled. It has no settings (a struct variant, so that a `range`
    /// given with it is refused rather than ignored).
    LogDistance {},
    /// Log-distance path loss followed by Nakagami-m fading (ns-3's
    /// `LogDistancePropagationLossModel` then `NakagamiPropagationLossModel`, chained): the mean
    /// received power falls with distance, and every frame's power is drawn anew around that
    /// mean, so frames are lost with a probability that grows with distance. Reach depends on
    /// the PHY: with these defaults and ns-3 3.37's PHY the mean received power falls to its
    /// -82 dBm preamble-detection floor 51 m away (netsim-ns3's README shows the arithmetic).
    /// Route availability is not sampled. Every parameter defaults to ns-3 3.37's attribute
    /// default.
    Nakagami(Nakagami),
}

impl Default for Propagation {
    fn default() -> Self {
        Self::Range { range: 250.0 }
    }
}

/// The parameters of [`Propagation::Nakagami`]; every default is ns-3 3.37's attribute default
/// (`src/propagation/model/propagation-loss-model.cc`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Nakagami {
    /// Path loss exponent (default 3, `LogDistancePropagationLossModel::Exponent`). Range
    /// `(0, 10]`.
    pub exponent: f64,
    /// Distance of the reference loss in metres (default 1,
    /// `LogDistancePropagationLossModel::ReferenceDistance`). Range `(0, 1000]`.
    pub reference_distance: f64,
    /// Loss at the reference distance in dB (default 46.6777, Friis at 1 m and 5.15 GHz:
    /// `LogDistancePropagationLossModel::ReferenceLoss`). Range `[0, 200]`.
    pub reference_loss: f64,
    /// Where `m1` takes over from `m0`, in metres (default 80,
    /// `NakagamiPropagationLossModel::Distance1`). Range `[0, distance2]`.
    pub distance1: f64,
    /// Where `m2` takes over from `m1`, in metres (default 200,
    /// `NakagamiPropagationLossModel::Distance2`). Range `[distance1, 100000]`.
    pub distance2: f64,
    /// Nakagami shape below `distance1` (default 1.5, `NakagamiPropagationLossModel::m0`).
    /// Range `[0.5, 100]`: 1 is Rayleigh fading, larger is milder, 0.5 the most severe the
    /// distribution allows.
    pub m0: f64,
    /// Shape from `distance1` to `distance2` (default 0.75, `NakagamiPropagationLossModel::m1`).
    /// Range `[0.5, 100]`.
    pub m1: f64,
    /// Shape from `distance2` on (default 0.75, `NakagamiPropagationLossModel::m2`). Range
    /// `[0.5, 100]`.
    pub m2: f64,
}

impl Default for Nakagami {
    fn default() -> Self {
        Self {
            exponent: 3.0,
            reference_distance: 1.0,
            reference_loss: 46.6777,
            distance1: 80.0,
            distance2: 200.0,
            m0: 1.5,
            m1: 0.75,
            m2: 0.75,
        }
    }
}

/// Largest Nakagami shape accepted: far past any measured channel (at m = 100 a frame's power
/// varies by a tenth of its mean, one standard deviation), so that a larger value is a typo.
pub const MAX_NAKAGAMI_M: f64 = 100.0;
/// Smallest Nakagami shape: the Nakagami-m distribution is defined for m >= 1/2.
pub const MIN_NAKAGAMI_M: f64 = 0.5;

impl Nakagami {
    /// Checks every parameter; the error names the field (`propagation.<name>`) and its range.
    fn validate(&self) -> Result<(), ConfigError> {
        check_positive("propagation.exponent", self.exponent, 10.0)?;
        check_positive(
            "propagation.reference_distance",
            self.reference_distance,
            1000.0,
        )?;
        check_range(
            "propagation.reference_loss",
            self.reference_loss,
            0.0,
            200.0,
        )?;
        check_range("propagation.distance2", self.distance2, 0.0, MAX_AREA_M)?;
        if !(self.distance1 >= 0.0 && self.distance1 <= self.distance2) {
            return Err(ConfigError::out_of_range(
                "propagation.distance1",
                self.distance1,
                format!("in [0, propagation.distance2 ({})]", self.distance2),
            ));
        }
        for (field, m) in [
            ("propagation.m0", self.m0),
            ("propagation.m1", self.m1),
            ("propagation.m2", self.m2),
        ] {
            check_range(field, m, MIN_NAKAGAMI_M, MAX_NAKAGAMI_M)?;
        }
        Ok(())
    }
}

/// The routing protocols offered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Routing {
    /// Ad hoc On-demand Distance Vector (RFC 3561), ns-3's defaults.
    #[default]
    Aodv,
    /// Optimized Link State Routing (RFC 3626).
    Olsr,
    /// Destination-Sequenced Distance Vector.
    Dsdv,
    /// Dynamic Source Routing: refused by [`Ns3Config::validate`]. Debian's ns-3 3.37 DSR
    /// module connects to WifiMac's obsolete `TxErrHeader` trace source, which aborts the
    /// process on the first Wi-Fi node ("TraceSource 'TxErrHeader' is obsolete").
    Dsr,
    /// An IEEE 802.11s mesh (ns-3's `mesh` module: `MeshHelper` with the `Dot11sStack`, mesh
    /// peering management and HWMP path selection, reactive, ns-3's defaults): every node is a
    /// mesh point and forwards at layer 2, and IP runs over the mesh point devices as one
    /// subnet with static routing (every destination one IP hop away). 802.11a only: ns-3
    /// 3.37's `MeshHelper` tunes every mesh interface to channel 100, a 5 GHz channel, and
    /// gives it no HT configuration (see [`Ns3Config::validate`]).
    Hwmp,
}

impl Routing {
    /// The name used in configs.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Aodv => "aodv",
            Self::Olsr => "olsr",
            Self::Dsdv => "dsdv",
            Self::Dsr => "dsr",
            Self::Hwmp => "hwmp",
        }
    }
}

/// A background UDP constant-bit-rate flow (ns-3's `OnOffApplication`, always on, to a
/// `PacketSink`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BackgroundFlow {
    /// Sending node.
    pub from: u32,
    /// Receiving node.
    pub to: u32,
    /// Rate, e.g. `"100kbps"`.
    pub rate: netsim::Rate,
    /// UDP payload per packet in bytes (default 512). Range `[1, 2000]`.
    #[serde(default = "default_packet_bytes")]
    pub packet_bytes: u32,
    /// Start, in link time (default 0 s).
    #[serde(default, with = "serde_duration")]
    pub start: Duration,
    /// Stop, in link time (default: never).
    #[serde(default, with = "opt_duration")]
    pub stop: Option<Duration>,
}

fn default_packet_bytes() -> u32 {
    512
}

mod opt_duration {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(value: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        match value {
            Some(d) => netsim::units::serde_duration::serialize(d, s),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
        #[derive(Deserialize)]
        struct Wrapped(#[serde(with = "netsim::units::serde_duration")] Duration);
        Option::<Wrapped>::deserialize(d).map(|w| w.map(|Wrapped(d)| d))
    }
}

fn check_range<T: PartialOrd + std::fmt::Display>(
    field: &str,
    value: T,
    low: T,
    high: T,
) -> Result<(), ConfigError> {
    if value >= low && value <= high {
        Ok(())
    } else {
        Err(ConfigError::out_of_range(
            field,
            value,
            format!("in [{low}, {high}]"),
        ))
    }
}

/// Finite and in `(0, high]`.
fn check_positive(field: &str, value: f64, high: f64) -> Result<(), ConfigError> {
    if value > 0.0 && value <= high {
        Ok(())
    } else {
        Err(ConfigError::out_of_range(
            field,
            value,
            format!("in (0, {high}]"),
        ))
    }
}

impl Ns3Config {
    /// The sink node: [`Ns3Config::sink`] or the last node.
    pub fn sink_node(&self) -> u32 {
        self.sink.unwrap_or(self.nodes.saturating_sub(1))
    }

    /// The (source, sink) node of every pair, pair 0 first: `[(source, sink)]` with one source;
    /// with `k` sources, `(i, nodes - 1 - i)` for `i` in `0..k`. Under random waypoint every
    /// node starts at a random place, so these are random pairs, disjoint and fixed by the
    /// config alone.
    pub fn pairs(&self) -> Vec<(u32, u32)> {
        if self.sources <= 1 {
            vec![(self.source, self.sink_node())]
        } else {
            (0..self.sources)
                .map(|i| (i, self.nodes.saturating_sub(1 + i)))
                .collect()
        }
    }

    /// Checks every field; the error names the field and its allowed range. An ns-2 trace
    /// is read and checked to place every node.
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_range("nodes", self.nodes, 2, MAX_NODES)?;
        check_positive("area_width", self.area_width, MAX_AREA_M)?;
        check_positive("area_height", self.area_height, MAX_AREA_M)?;
        match &self.topology {
            Topology::RandomWaypoint {
                min_speed,
                max_speed,
                pause,
                ..
            } => {
                check_positive("topology.min_speed", *min_speed, MAX_SPEED_MPS)?;
                check_positive("topology.max_speed", *max_speed, MAX_SPEED_MPS)?;
                if max_speed < min_speed {
                    return Err(ConfigError::out_of_range(
                        "topology.max_speed",
                        max_speed,
                        format!(">= topology.min_speed ({min_speed})"),
                    ));
                }
                check_range("topology.pause", pause.as_secs_f64(), 0.0, 1_000_000.0)?;
            }
            Topology::Chain { spacing } => {
                check_positive("topology.spacing", *spacing, MAX_AREA_M)?
            }
            Topology::Grid { columns, spacing } => {
                check_range("topology.columns", *columns, 1, self.nodes)?;
                check_positive("topology.spacing", *spacing, MAX_AREA_M)?;
            }
            Topology::Ns2Trace { path } => crate::trace::check(path, self.nodes)?,
        }
        if self.wifi.rate_control.is_constant()
            && self.wifi.standard.mode(self.wifi.data_rate_mbps).is_none()
        {
            return Err(ConfigError::out_of_range(
                "wifi.data_rate_mbps",
                self.wifi.data_rate_mbps,
                self.wifi.standard.rates_text(),
            ));
        }
        check_range(
            "wifi.short_retry_limit",
            self.wifi.short_retry_limit,
            1,
            255,
        )?;
        check_range("wifi.long_retry_limit", self.wifi.long_retry_limit, 1, 255)?;
        check_range("wifi.queue_packets", self.wifi.queue_packets, 1, 100_000)?;
        check_range("wifi.bit_error_rate", self.wifi.bit_error_rate, 0.0, 0.001)?;
        if self.arp.dead_timeout < Duration::from_millis(1)
            || self.arp.dead_timeout > Duration::from_secs(1000)
        {
            return Err(ConfigError::out_of_range(
                "arp.dead_timeout",
                netsim::units::format_duration(self.arp.dead_timeout),
                "in [1ms, 1000s]",
            ));
        }
        check_range("arp.pending_packets", self.arp.pending_packets, 1, 1000)?;
        match &self.propagation {
            Propagation::Range { range } => {
                check_positive("propagation.range", *range, MAX_AREA_M)?
            }
            Propagation::LogDistance {} => {}
            Propagation::Nakagami(nakagami) => nakagami.validate()?,
        }
        self.validate_rate_control()?;
        if self.routing == Routing::Dsr {
            return Err(ConfigError::invalid(
                "routing",
                "dsr is not available: Debian's ns-3 3.37 DSR module connects to WifiMac's \
                 obsolete TxErrHeader trace source and aborts on any Wi-Fi node; use aodv, olsr \
                 or dsdv",
            ));
        }
        self.validate_mesh()?;
        let last = self.nodes - 1;
        check_range("sources", self.sources, 1, self.nodes / 2)?;
        if self.sources > 1 {
            // The pairs are fixed by `sources` alone: a source or sink set besides would be
            // ignored. Their defaults (node 0, the last node) are pair 0's ends.
            let pairs = format!(
                "with sources = {}, pair i runs from node i to node {last} - i, so it would not \
                 act: drop it, or set sources = 1",
                self.sources
            );
            if self.source != 0 {
                return Err(ConfigError::invalid("source", pairs));
            }
            if self.sink.is_some_and(|sink| sink != last) {
                return Err(ConfigError::invalid("sink", pairs));
            }
        } else {
            check_range("source", self.source, 0, last)?;
            let sink = self.sink_node();
            check_range("sink", sink, 0, last)?;
            if sink == self.source {
                return Err(ConfigError::invalid(
                    "sink",
                    format!("the sink must be another node than the source ({sink})"),
                ));
            }
        }
        for (i, flow) in self.background.iter().enumerate() {
            let field = |name: &str| format!("background[{i}].{name}");
            check_range(&field("from"), flow.from, 0, last)?;
            check_range(&field("to"), flow.to, 0, last)?;
            if flow.from == flow.to {
                return Err(ConfigError::invalid(
                    field("to"),
                    "a background flow needs two different nodes",
                ));
            }
            // Above any 802.11 rate ns-3 models, a background source only floods the event
            // queue: ns-3 would schedule a packet every nanosecond.
            if flow.rate.bps() == 0 || flow.rate.bps() > 1_000_000_000 {
                return Err(ConfigError::out_of_range(
                    field("rate"),
                    flow.rate,
                    "> 0 and at most 1Gbps",
                ));
            }
            check_range(&field("packet_bytes"), flow.packet_bytes, 1, 2000)?;
            if let Some(stop) = flow.stop
                && stop <= flow.start
            {
                return Err(ConfigError::out_of_range(
                    field("stop"),
                    netsim::units::format_duration(stop),
                    format!("> start ({})", netsim::units::format_duration(flow.start)),
                ));
            }
        }
        if self.background.len() > 1000 {
            return Err(ConfigError::out_of_range(
                "background",
                format!("{} flows", self.background.len()),
                "at most 1000 flows",
            ));
        }
        let background_pps: f64 = self
            .background
            .iter()
            .map(|f| f.rate.bps() as f64 / (8.0 * f64::from(f.packet_bytes)))
            .sum();
        if background_pps > MAX_BACKGROUND_PACKETS_PER_S {
            return Err(ConfigError::out_of_range(
                "background",
                format!("{background_pps:.0} packets per second in total (rate / packet_bytes)"),
                format!(
                    "at most {MAX_BACKGROUND_PACKETS_PER_S} packets per second over all flows: \
                     lower the rates or send larger packets"
                ),
            ));
        }
        if self.start > MAX_START {
            return Err(ConfigError::out_of_range(
                "start",
                netsim::units::format_duration(self.start),
                format!("in [0s, {}]", netsim::units::format_duration(MAX_START)),
            ));
        }
        if self.step < MIN_STEP || self.step > MAX_STEP {
            return Err(ConfigError::out_of_range(
                "step",
                netsim::units::format_duration(self.step),
                format!(
                    "in [{}, {}]",
                    netsim::units::format_duration(MIN_STEP),
                    netsim::units::format_duration(MAX_STEP)
                ),
            ));
        }
        check_range("route_sample", self.route_sample.as_secs_f64(), 0.0, 3600.0)?;
        if !self.route_sample.is_zero() && self.route_sample < Duration::from_millis(1) {
            return Err(ConfigError::out_of_range(
                "route_sample",
                netsim::units::format_duration(self.route_sample),
                "0 (off) or in [1ms, 1h]",
            ));
        }
        let sampled =
            !self.route_sample.is_zero() && matches!(self.propagation, Propagation::Range { .. });
        let checks_per_sample = f64::from(self.sources) * f64::from(self.nodes).powi(2);
        if sampled && checks_per_sample / self.route_sample.as_secs_f64() > MAX_ROUTE_CHECKS_PER_S {
            return Err(ConfigError::out_of_range(
                "route_sample",
                netsim::units::format_duration(self.route_sample),
                format!(
                    "0 (off) or at least {} with {} nodes and {} source(s): each sample checks \
                     every pair of nodes for every source, at most {MAX_ROUTE_CHECKS_PER_S:e} \
                     checks per simulated second",
                    netsim::units::format_duration(Duration::from_secs_f64(
                        checks_per_sample / MAX_ROUTE_CHECKS_PER_S
                    )),
                    self.nodes,
                    self.sources
                ),
            ));
        }
        Ok(())
    }

    /// Refuses what a rate manager other than the constant one would not use, and ideal rate
    /// control where the SNR it chooses by never changes.
    fn validate_rate_control(&self) -> Result<(), ConfigError> {
        let control = self.wifi.rate_control;
        let standard = self.wifi.standard;
        if !standard.rate_controls().contains(&control) {
            let allowed: Vec<String> = standard
                .rate_controls()
                .iter()
                .map(|c| format!("\"{}\"", c.as_str()))
                .collect();
            let why = if standard.is_ht() {
                "ns-3 3.37's Minstrel aborts on an HT device; Minstrel-HT is its 802.11n \
                 counterpart"
            } else {
                "Minstrel-HT adapts 802.11n's HT rates; on an 802.11a/b/g device ns-3 runs plain \
                 Minstrel in its place"
            };
            return Err(ConfigError::invalid(
                "wifi.rate_control",
                format!(
                    "\"{}\" does not run with wifi.standard = \"{}\" ({why}): use one of {}",
                    control.as_str(),
                    standard.as_str(),
                    allowed.join(", ")
                ),
            ));
        }
        if control.is_constant() {
            return Ok(());
        }
        let defaults = WifiConfig::default();
        let unused = |field: &str, why: &str| {
            ConfigError::invalid(
                field,
                format!(
                    "not used with wifi.rate_control = \"{}\" ({why}): leave it out, or use \
                     rate_control = \"constant\"",
                    control.as_str()
                ),
            )
        };
        if self.wifi.data_rate_mbps != defaults.data_rate_mbps {
            return Err(unused(
                "wifi.data_rate_mbps",
                "the manager picks every frame's rate among all of the standard's",
            ));
        }
        if control.has_retry_chain() {
            let why = "Minstrel retries along its own retry chain";
            if self.wifi.short_retry_limit != defaults.short_retry_limit {
                return Err(unused("wifi.short_retry_limit", why));
            }
            if self.wifi.long_retry_limit != defaults.long_retry_limit {
                return Err(unused("wifi.long_retry_limit", why));
            }
        }
        if control == RateControl::Ideal && matches!(self.propagation, Propagation::Range { .. }) {
            return Err(ConfigError::invalid(
                "wifi.rate_control",
                "ideal chooses by the receiver's SNR, which the range model never varies (ideal \
                 would always send at the standard's fastest rate): use propagation.model = \
                 \"log_distance\" or \"nakagami\", or rate_control = \"constant\" or \"minstrel\"",
            ));
        }
        Ok(())
    }

    /// Refuses what ns-3 3.37's 802.11s mesh cannot build: any standard but 802.11a; and mesh
    /// settings without the mesh.
    fn validate_mesh(&self) -> Result<(), ConfigError> {
        if !(1..=u32::from(u16::MAX)).contains(&self.mesh.peer_link_max_packet_failure) {
            return Err(ConfigError::invalid(
                "mesh.peer_link_max_packet_failure",
                format!(
                    "{} is out of range: it must be from 1 to 65535 (failed frames in a row \
                     before ns-3 closes a peer link; ns-3's attribute is 16 bits)",
                    self.mesh.peer_link_max_packet_failure
                ),
            ));
        }
        if self.routing != Routing::Hwmp && !self.mesh.is_ns3_default() {
            return Err(ConfigError::invalid(
                "mesh.peer_link_max_packet_failure",
                format!(
                    "is an 802.11s mesh setting, not used with routing = \"{}\": use routing = \
                     \"hwmp\", or leave it out",
                    self.routing.as_str()
                ),
            ));
        }
        if self.routing != Routing::Hwmp || self.wifi.standard == Standard::A {
            return Ok(());
        }
        let why = if self.wifi.standard == Standard::N5GHz {
            "ns-3 3.37's MeshHelper gives its interfaces no HT configuration, so the mesh MACs \
             are not HT stations: rate managers would choose 802.11a rates only"
        } else {
            "ns-3 3.37's MeshHelper tunes every mesh interface to channel 100, which only the \
             5 GHz band has (2.4 GHz PHYs abort on it)"
        };
        Err(ConfigError::invalid(
            "wifi.standard",
            format!(
                "\"{}\" does not run with routing = \"hwmp\" ({why}): use wifi.standard = \
                 \"802.11a\"",
                self.wifi.standard.as_str()
            ),
        ))
    }

    /// A static chain of `hops` hops (`hops + 1` nodes, 200 m apart), source at one end and
    /// sink at the other, otherwise the defaults.
    pub fn chain(hops: u32) -> Self {
        Self {
            nodes: hops + 1,
            topology: Topology::chain(),
            sink: None,
            ..Self::default()
        }
    }
}

impl Ns3Config {
    /// One line for reports: nodes, movement, radio, routing, endpoints.
    pub fn describe(&self) -> String {
        let movement = match &self.topology {
            Topology::RandomWaypoint {
                min_speed,
                max_speed,
                pause,
                movement,
            } => format!(
                "{} nodes random waypoint{} {min_speed}-{max_speed} m/s pause {} in {} m x {} m",
                self.nodes,
                match movement {
                    Movement::Ns3 => "",
                    Movement::Netsim => " (netsim's movement)",
                },
                netsim::units::format_duration(*pause),
                self.area_width,
                self.area_height
            ),
            Topology::Chain { spacing } => {
                format!("{}-hop chain, {spacing} m apart", self.nodes - 1)
            }
            Topology::Grid { columns, spacing } => {
                format!(
                    "{} nodes in a grid {columns} wide, {spacing} m apart",
                    self.nodes
                )
            }
            Topology::Ns2Trace { path } => {
                format!("{} nodes moving by {}", self.nodes, path.display())
            }
        };
        let radio = match &self.propagation {
            Propagation::Range { range } => format!("{range} m range"),
            Propagation::LogDistance {} => "log-distance propagation".to_owned(),
            Propagation::Nakagami(n) => format!(
                "log-distance (exponent {}) with Nakagami fading (m {}/{}/{})",
                n.exponent, n.m0, n.m1, n.m2
            ),
        };
        let standard = self.wifi.standard.as_str();
        let ber = if self.wifi.bit_error_rate > 0.0 {
            format!(" BER {}", self.wifi.bit_error_rate)
        } else {
            String::new()
        };
        let rate = match self.wifi.rate_control {
            RateControl::Constant => format!("{} Mb/s", self.wifi.data_rate_mbps),
            other => other.as_str().to_owned(),
        };
        format!(
            "{movement}; {standard} {rate}{}{ber}, {radio}; {}; {}",
            if self.wifi.rts_cts { " RTS/CTS" } else { "" },
            self.routing.as_str(),
            self.describe_pairs()
        )
    }
}

impl Ns3Config {
    fn describe_pairs(&self) -> String {
        match self.pairs().as_slice() {
            [(source, sink)] => format!("node {source} -> node {sink}"),
            pairs => format!(
                "{} sources: node i -> node {} - i (node {} -> node {}, ...)",
                pairs.len(),
                self.nodes - 1,
                pairs[0].0,
                pairs[0].1
            ),
        }
    }
}
