//! noq 1.x (iroh's QUIC, a fork of quinn) as a run's host stack.
//!
//! noq is multipath-capable; the harness's connections use one path, `PathId::ZERO`, whose
//! controller and statistics are the connection's. Its controller gets the exact loss signals
//! (`cc_core::LossClassifier::exact`); quinn's `--qlog` has no noq counterpart here.

use std::sync::Arc;
use std::time::{Duration, Instant};

use cc_core::{NoqObserved, NoqObserver, PortConfig, PortController, PortFactory, SignalStats};
use netsim::noq_pair::NoqPair;
use noq::congestion::{Controller, ControllerFactory, ControllerMetrics};
use noq::{Connection, PathId, RecvStream, SendStream, TransportConfig};
use noq_proto::RttEstimator;

use super::{Host, Recorded, SenderStats};
use crate::run::sampler::{ConnectionSamples, SamplesHandle, lock};
use crate::stack::Stack;

/// noq 1.x.
#[derive(Debug)]
pub struct Noq;

fn text(e: impl std::fmt::Display) -> String {
    e.to_string()
}

fn idle_timeout(idle: Option<Duration>) -> Result<Option<noq::IdleTimeout>, String> {
    idle.map(|d| {
        noq::IdleTimeout::try_from(d)
            .map_err(|_| format!("idle timeout {d:?} is too large for noq"))
    })
    .transpose()
}

impl Host for Noq {
    const STACK: Stack = Stack::Noq;
    type Factory = Arc<dyn ControllerFactory + Send + Sync>;
    type Controller = dyn Controller;
    type Transport = TransportConfig;
    type Pair = NoqPair;
    type Connection = Connection;
    type SendStream = SendStream;
    type RecvStream = RecvStream;

    fn port_factory<C: PortConfig>(config: C) -> Self::Factory {
        Arc::new(PortFactory::new(config))
    }

    fn port_signal_stats<C: PortConfig>(controller: Box<dyn Controller>) -> Option<SignalStats> {
        PortController::<C::Algorithm>::from_noq_controller(controller).map(|c| c.signal_stats())
    }

    fn recording_factory(inner: Self::Factory, epoch: Instant, trace: bool) -> Self::Factory {
        Arc::new(RecordingFactory {
            inner,
            epoch,
            trace,
        })
    }

    fn client_transport(
        factory: Self::Factory,
        settings: &crate::scenario::TransportSettings,
    ) -> Result<TransportConfig, String> {
        let mut client = TransportConfig::default();
        client
            .congestion_controller_factory(factory)
            .max_idle_timeout(idle_timeout(settings.idle_timeout)?)
            .packet_threshold(settings.packet_threshold)
            .time_threshold(settings.time_threshold);
        if let Some(delay) = settings.ack_delay {
            // The ACK frequency extension: the peer may hold an ACK this long (the extension
            // caps it at the larger of the path's RTT and 25 ms).
            let mut ack = noq::AckFrequencyConfig::default();
            ack.max_ack_delay(Some(delay));
            client.ack_frequency_config(Some(ack));
        }
        Ok(client)
    }

    fn with_qlog(
        transport: TransportConfig,
        options: &crate::run::spec::RunOptions,
        _: &crate::run::spec::RunSpec,
        _: Instant,
    ) -> Result<TransportConfig, String> {
        match &options.qlog_dir {
            Some(_) => Err(
                "--qlog writes quinn's qlog; this harness does not build noq's (stack = \"noq\")"
                    .to_owned(),
            ),
            None => Ok(transport),
        }
    }

    fn server_transport(idle: Option<Duration>) -> Result<TransportConfig, String> {
        let mut server = TransportConfig::default();
        server.max_idle_timeout(idle_timeout(idle)?);
        Ok(server)
    }

    fn netsim_pair(
        link: netsim::LinkConfig,
        seed: u64,
        client: Arc<TransportConfig>,
        server: Arc<TransportConfig>,
        protection: netsim::PacketProtection,
    ) -> Result<NoqPair, String> {
        NoqPair::builder(link, seed)
            .client_transport(client)
            .server_transport(server)
            .packet_protection(protection)
            .build()
            .map_err(text)
    }

    fn medium_pair(
        medium: Box<dyn netsim::Medium>,
        client: Arc<TransportConfig>,
        server: Arc<TransportConfig>,
        protection: netsim::PacketProtection,
    ) -> Result<NoqPair, String> {
        NoqPair::with_medium(medium)
            .client_transport(client)
            .server_transport(server)
            .packet_protection(protection)
            .build()
            .map_err(text)
    }

    fn link(pair: &NoqPair) -> &netsim::SimLink {
        pair.link()
    }

    async fn connect(
        pair: &NoqPair,
        transport: Option<Arc<TransportConfig>>,
        access_delay: Duration,
    ) -> Result<(Connection, Connection), String> {
        match transport {
            _ if !access_delay.is_zero() => pair.connect_behind(access_delay, transport).await,
            Some(transport) => pair.connect_with(transport).await,
            None => pair.connect().await,
        }
        .map_err(text)
    }

    async fn open_uni(connection: &Connection) -> Result<SendStream, String> {
        connection.open_uni().await.map_err(text)
    }

    async fn accept_uni(connection: &Connection) -> Result<RecvStream, String> {
        connection.accept_uni().await.map_err(text)
    }

    async fn write_all(stream: &mut SendStream, data: &[u8]) -> Result<(), String> {
        stream.write_all(data).await.map_err(text)
    }

    async fn finish(stream: &mut SendStream) -> Result<(), String> {
        stream.finish().map_err(text)?;
        // Keep the connection open until the receiver is done (the caller closes it).
        let _ = stream.stopped().await;
        Ok(())
    }

    async fn read(stream: &mut RecvStream, buf: &mut [u8]) -> Result<Option<usize>, String> {
        stream.read(buf).await.map_err(text)
    }

    fn close(connection: &Connection) {
        connection.close(0u32.into(), b"done");
    }

    fn sender_stats(connection: &Connection) -> SenderStats {
        let stats = connection.stats();
        let path = connection.path_stats(PathId::ZERO).unwrap_or_default();
        SenderStats {
            datagrams: stats.udp_tx.datagrams,
            udp_bytes: stats.udp_tx.bytes,
            packets_sent: stats.sent_packets,
            packets_lost: stats.lost_packets,
            bytes_lost: stats.lost_bytes,
            congestion_events: path.congestion_events,
        }
    }

    fn recorded(
        connection: &Connection,
        signal_stats: fn(Box<dyn Controller>) -> Option<SignalStats>,
    ) -> Option<Recorded> {
        let sampler = connection
            .congestion_state(PathId::ZERO)?
            .into_any()
            .downcast::<Recording>()
            .ok()?;
        let samples = sampler.observer().samples.clone();
        Some(Recorded {
            samples,
            signals: signal_stats(sampler.into_inner()),
        })
    }
}

/// Wraps a noq factory; its controllers are [`Recording`]s.
struct RecordingFactory {
    inner: Arc<dyn ControllerFactory + Send + Sync>,
    epoch: Instant,
    trace: bool,
}

impl ControllerFactory for RecordingFactory {
    fn build(self: Arc<Self>, now: Instant, current_mtu: u16) -> Box<dyn Controller> {
        let observer = Samples {
            samples: Arc::new(std::sync::Mutex::new(ConnectionSamples::new(self.trace))),
            epoch: self.epoch,
        };
        let inner = Arc::clone(&self.inner).build(now, current_mtu);
        observer.observe(inner.as_ref(), now);
        Box::new(NoqObserved::new(inner, observer))
    }
}

/// The recording wrapper around one noq connection's controller.
type Recording = NoqObserved<Samples>;

/// Records what quinn's `Sampler` records: RTT samples, slow-start time, the window.
#[derive(Clone)]
struct Samples {
    samples: SamplesHandle,
    epoch: Instant,
}

impl Samples {
    fn observe(&self, controller: &dyn Controller, now: Instant) {
        let ControllerMetrics {
            congestion_window,
            ssthresh,
            ..
        } = controller.metrics();
        lock(&self.samples).observe(self.epoch, now, congestion_window, ssthresh);
    }
}

impl NoqObserver for Samples {
    fn sent(&mut self, controller: &dyn Controller, now: Instant, _: u64, _: u64) {
        self.observe(controller, now);
    }

    fn ack(
        &mut self,
        _: &dyn Controller,
        _: Instant,
        sent: Instant,
        _: u64,
        _: u64,
        _: bool,
        _: &RttEstimator,
    ) {
        lock(&self.samples).ack(sent);
    }

    fn end_acks(
        &mut self,
        controller: &dyn Controller,
        now: Instant,
        _: u64,
        _: bool,
        _: Option<u64>,
    ) {
        let ControllerMetrics {
            congestion_window,
            ssthresh,
            ..
        } = controller.metrics();
        lock(&self.samples).end_acks(self.epoch, now, congestion_window, ssthresh);
    }

    fn congestion_event(
        &mut self,
        controller: &dyn Controller,
        now: Instant,
        _: Instant,
        _: bool,
        _: bool,
        _: u64,
        _: u64,
    ) {
        self.observe(controller, now);
    }
}
