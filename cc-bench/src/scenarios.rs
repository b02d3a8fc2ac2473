//! The netsim runs behind the recordings and the emulator benchmark.

use crate::format::{Meta, Recording};
use crate::record::RecordingFactory;
use crate::replay::RttPalette;
use crate::stack::HostStack;
use netsim::noq_pair::{NoqPair, NoqPairError};
use netsim::quinn_pair::{QuinnPair, QuinnPairError, TransferReport};
use netsim::{
    DirectionConfig, ErrorModelConfig, LinkConfig, MobilityConfig, PacketProtection,
    PathModelConfig, Rate, virtual_runtime,
};
use quinn_proto::congestion::ControllerFactory;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A netsim run failed.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The tokio runtime could not be built.
    #[error("building the virtual-time runtime: {0}")]
    Runtime(#[from] std::io::Error),
    /// netsim or quinn reported an error.
    #[error(transparent)]
    Pair(#[from] QuinnPairError),
    /// netsim or noq reported an error.
    #[error(transparent)]
    NoqPair(#[from] NoqPairError),
    /// The recorder saw no controller.
    #[error("scenario {0}: the recording factory built no controller")]
    NothingRecorded(&'static str),
}

/// A bulk transfer over an emulated link, in virtual time.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// Short name (file stem of its recording).
    pub name: &'static str,
    /// In words.
    pub description: &'static str,
    /// The link.
    pub link: LinkConfig,
    /// Run seed.
    pub seed: u64,
    /// How long the client writes; the run then drains the stream.
    pub duration: Duration,
}

fn symmetric(mbps: u64, per: Option<f64>) -> LinkConfig {
    LinkConfig::symmetric(DirectionConfig {
        rate: Rate::from_mbps(mbps),
        errors: per
            .map(|p| vec![ErrorModelConfig::Per { p }])
            .unwrap_or_default(),
        ..DirectionConfig::default()
    })
}

fn manet(speed: f64) -> LinkConfig {
    LinkConfig::default().with_path(PathModelConfig::Mobility(MobilityConfig::with_speed(speed)))
}

/// The three recorded paths. Each is a client-to-server bulk transfer with the stack's Cubic
/// (its default controller, on quinn and on noq) on the client; every link direction has netsim's defaults (45 ms
/// one-way delay per hop, a 50-packet drop-tail queue, 1472-byte MTU) unless stated.
pub fn recording_scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "clean-10mbps",
            description: "10 Mb/s, 45 ms one-way, no loss, 30 s",
            link: symmetric(10, None),
            seed: 1,
            duration: Duration::from_secs(30),
        },
        Scenario {
            name: "per1-10mbps",
            description: "10 Mb/s, 45 ms one-way, PER 1% both ways, 60 s",
            link: symmetric(10, Some(0.01)),
            seed: 1,
            duration: Duration::from_secs(60),
        },
        Scenario {
            name: "manet-20mps",
            description: "MANET random-waypoint mobility, 50 nodes at 20 m/s, 1200 m x 1200 m, \
                          250 m range, 2 Mb/s and 45 ms per hop, 100 s",
            link: manet(20.0),
            seed: 1,
            duration: Duration::from_secs(100),
        },
    ]
}

/// The emulator-speed scenarios of issue 7, each a quinn NewReno bulk transfer (as netsim's
/// own `speed` bench runs its 2 Mb/s scenario).
pub fn emulator_scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "2mbps-per0.005-100s",
            description: "2 Mb/s, 45 ms, PER 0.005, 100 s",
            link: symmetric(2, Some(0.005)),
            seed: 1,
            duration: Duration::from_secs(100),
        },
        Scenario {
            name: "10mbps-per1-60s",
            description: "10 Mb/s, 45 ms, PER 1%, 60 s",
            link: symmetric(10, Some(0.01)),
            seed: 1,
            duration: Duration::from_secs(60),
        },
        Scenario {
            name: "100mbps-clean-20s",
            description: "100 Mb/s, 45 ms, no loss, 20 s",
            link: symmetric(100, None),
            seed: 1,
            duration: Duration::from_secs(20),
        },
        Scenario {
            name: "manet-20mps-100s",
            description: "MANET mobility 20 m/s (50 nodes, 2 Mb/s per hop), 100 s",
            link: manet(20.0),
            seed: 1,
            duration: Duration::from_secs(100),
        },
    ]
}

/// The directory holding the committed recordings (`cc-bench/recordings`).
pub fn recordings_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("recordings")
}

/// A recording's file: `<name>.ccrec.gz` on quinn (the first stack recorded), and
/// `<name>-<stack>.ccrec.gz` on any other.
pub fn recording_file<S: HostStack>(name: &str) -> PathBuf {
    if S::NAME == crate::Quinn::NAME {
        recordings_dir().join(format!("{name}.ccrec.gz"))
    } else {
        recordings_dir().join(format!("{name}-{}.ccrec.gz", S::NAME))
    }
}

impl Scenario {
    /// Runs the transfer with `factory` as the client's controller; returns netsim's report.
    /// The idle timeout is off, so a MANET outage cannot end the connection.
    pub fn run(
        &self,
        factory: Arc<dyn ControllerFactory + Send + Sync>,
    ) -> Result<TransferReport, RunError> {
        self.run_protected(factory, PacketProtection::Tls)
    }

    /// [`Scenario::run`] with packets protected by `protection` (the same run either way).
    pub fn run_protected(
        &self,
        factory: Arc<dyn ControllerFactory + Send + Sync>,
        protection: PacketProtection,
    ) -> Result<TransferReport, RunError> {
        let runtime = virtual_runtime()?;
        let report = runtime.block_on(async {
            let mut transport = quinn::TransportConfig::default();
            transport.congestion_controller_factory(factory);
            transport.max_idle_timeout(None);
            let mut server = quinn::TransportConfig::default();
            server.max_idle_timeout(None);
            let pair = QuinnPair::builder(self.link.clone(), self.seed)
                .client_transport(Arc::new(transport))
                .server_transport(Arc::new(server))
                .packet_protection(protection)
                .build()?;
            pair.transfer_for(self.duration).await
        })?;
        Ok(report)
    }

    /// The same transfer on noq, with `factory` as the client's controller.
    pub fn run_noq(
        &self,
        factory: Arc<dyn noq::congestion::ControllerFactory + Send + Sync>,
    ) -> Result<TransferReport<noq::ConnectionStats>, RunError> {
        let runtime = virtual_runtime()?;
        let report = runtime.block_on(async {
            let mut transport = noq::TransportConfig::default();
            transport.congestion_controller_factory(factory);
            transport.max_idle_timeout(None);
            let mut server = noq::TransportConfig::default();
            server.max_idle_timeout(None);
            let pair = NoqPair::builder(self.link.clone(), self.seed)
                .client_transport(Arc::new(transport))
                .server_transport(Arc::new(server))
                .build()?;
            pair.transfer_for(self.duration).await
        })?;
        Ok(report)
    }

    /// Records the client controller's callbacks on stack `S` (its Cubic under a
    /// [`RecordingFactory`]); also returns the estimators it saw.
    pub fn record<S: HostStack>(&self) -> Result<(Recording, RttPalette<S>), RunError> {
        let recorder = Arc::new(RecordingFactory::<S>::new(S::cubic()));
        S::run(self, S::recorder(recorder.clone()))?;
        let log = recorder.take();
        let trace = log
            .traces
            .into_iter()
            .next()
            .ok_or(RunError::NothingRecorded(self.name))?;
        let mut palette = RttPalette::new();
        palette.add_trace(&trace);
        let recording = Recording {
            meta: Meta {
                name: self.name.to_owned(),
                description: self.description.to_owned(),
                seed: self.seed,
                recorded_controller: format!("{}-cubic", S::NAME),
                initial_mtu: trace.initial_mtu,
                stack: S::NAME.to_owned(),
                stack_version: S::VERSION.to_owned(),
            },
            events: trace.events,
        };
        Ok((recording, palette))
    }
}

/// One timed emulator run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EmulatorSample {
    /// Wall time of the whole run (runtime, endpoints, handshake, transfer, drain).
    pub wall: Duration,
    /// Virtual time from the connection attempt until the server had read everything.
    pub simulated: Duration,
    /// Datagrams offered to the link, both directions.
    pub datagrams: u64,
    /// Application bytes delivered.
    pub goodput_bytes: u64,
}

impl EmulatorSample {
    /// Simulated seconds per wall second.
    pub fn speedup(&self) -> f64 {
        self.simulated.as_secs_f64() / self.wall.as_secs_f64()
    }

    /// Datagrams per wall second.
    pub fn datagrams_per_second(&self) -> f64 {
        self.datagrams as f64 / self.wall.as_secs_f64()
    }
}

impl Scenario {
    /// One emulator-speed sample: the transfer with quinn's NewReno, packets protected by
    /// `protection`, timed on the wall clock on this thread (netsim's runtime is
    /// single-threaded).
    pub fn time_emulator(&self, protection: PacketProtection) -> Result<EmulatorSample, RunError> {
        let wall = Instant::now();
        let report = self.run_protected(
            Arc::new(quinn_proto::congestion::NewRenoConfig::default()),
            protection,
        )?;
        let wall = wall.elapsed();
        let a = &report.accounting;
        Ok(EmulatorSample {
            wall,
            simulated: report.elapsed,
            datagrams: a.a_to_b.offered.datagrams + a.b_to_a.offered.datagrams,
            goodput_bytes: report.bytes_received,
        })
    }
}
