//! noq 1.x (iroh's QUIC, a fork of quinn) as a run's host stack.
//!
//! noq is multipath-capable; the harness's connections use one path, `PathId::ZERO`, whose
//! controller and statistics are the connection's. Its controller gets the exact loss signals
//! (`cc_core::LossClassifier::exact`); quinn's `--qlog` has no noq counterpart here.

use std::any::Any;
use std::sync::Arc;
use std::time::{Duration, Instant};

use cc_core::{PortConfig, PortController, PortFactory, SignalStats};
use netsim::noq_pair::NoqPair;
use noq::congestion::{Controller, ControllerFactory, ControllerMetrics};
use noq::{Connection, PathId, RecvStream, SendStream, TransportConfig};
use noq_proto::RttEstimator;

use super::{Host, Recorded, SenderStats};
use crate::probe::{ConnectionSamples, SamplesHandle, lock};
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
        idle: Option<Duration>,
        packet_threshold: u32,
        time_threshold: f32,
    ) -> Result<TransportConfig, String> {
        let mut client = TransportConfig::default();
        client
            .congestion_controller_factory(factory)
            .max_idle_timeout(idle_timeout(idle)?)
            .packet_threshold(packet_threshold)
            .time_threshold(time_threshold);
        Ok(client)
    }

    fn with_qlog(
        transport: TransportConfig,
        options: &crate::spec::RunOptions,
        _: &crate::spec::RunSpec,
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
    ) -> Result<NoqPair, String> {
        NoqPair::builder(link, seed)
            .client_transport(client)
            .server_transport(server)
            .build()
            .map_err(text)
    }

    fn medium_pair(
        medium: Box<dyn netsim::Medium>,
        client: Arc<TransportConfig>,
        server: Arc<TransportConfig>,
    ) -> Result<NoqPair, String> {
        NoqPair::with_medium(medium)
            .client_transport(client)
            .server_transport(server)
            .build()
            .map_err(text)
    }

    fn link(pair: &NoqPair) -> &netsim::SimLink {
        pair.link()
    }

    async fn connect(pair: &NoqPair) -> Result<(Connection, Connection), String> {
        pair.connect().await.map_err(text)
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
        let probe = connection
            .congestion_state(PathId::ZERO)?
            .into_any()
            .downcast::<Recording>()
            .ok()?;
        Some(Recorded {
            samples: probe.samples.clone(),
            signals: signal_stats(probe.inner),
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
        let recording = Recording {
            inner: Arc::clone(&self.inner).build(now, current_mtu),
            samples: Arc::new(std::sync::Mutex::new(ConnectionSamples::new(self.trace))),
            epoch: self.epoch,
        };
        recording.observe(now);
        Box::new(recording)
    }
}

/// A noq controller that forwards every call and records what quinn's `Probe` records.
#[derive(Debug)]
struct Recording {
    inner: Box<dyn Controller>,
    samples: SamplesHandle,
    epoch: Instant,
}

impl Recording {
    fn cwnd_ssthresh(&self) -> (u64, Option<u64>) {
        let ControllerMetrics {
            congestion_window,
            ssthresh,
            ..
        } = self.inner.metrics();
        (congestion_window, ssthresh)
    }

    fn observe(&self, now: Instant) {
        let (cwnd, ssthresh) = self.cwnd_ssthresh();
        lock(&self.samples).observe(self.epoch, now, cwnd, ssthresh);
    }
}

impl Controller for Recording {
    fn on_sent(&mut self, now: Instant, bytes: u64, largest_pn: u64) {
        self.inner.on_sent(now, bytes, largest_pn);
        self.observe(now);
    }

    fn on_packet_sent(&mut self, now: Instant, bytes: u16, pn: u64) {
        self.inner.on_packet_sent(now, bytes, pn);
    }

    fn on_cwnd_limited(&mut self) {
        self.inner.on_cwnd_limited();
    }

    fn on_ack(
        &mut self,
        now: Instant,
        sent: Instant,
        bytes: u64,
        pn: u64,
        app_limited: bool,
        rtt: &RttEstimator,
    ) {
        self.inner.on_ack(now, sent, bytes, pn, app_limited, rtt);
        lock(&self.samples).ack(sent);
    }

    fn on_end_acks(
        &mut self,
        now: Instant,
        in_flight: u64,
        app_limited: bool,
        largest_packet_num_acked: Option<u64>,
    ) {
        self.inner
            .on_end_acks(now, in_flight, app_limited, largest_packet_num_acked);
        let (cwnd, ssthresh) = self.cwnd_ssthresh();
        lock(&self.samples).end_acks(self.epoch, now, cwnd, ssthresh);
    }

    fn on_congestion_event(
        &mut self,
        now: Instant,
        sent: Instant,
        is_persistent_congestion: bool,
        is_ecn: bool,
        lost_bytes: u64,
        largest_lost_pn: u64,
    ) {
        self.inner.on_congestion_event(
            now,
            sent,
            is_persistent_congestion,
            is_ecn,
            lost_bytes,
            largest_lost_pn,
        );
        self.observe(now);
    }

    fn on_packet_lost(&mut self, lost_bytes: u16, pn: u64, now: Instant) {
        self.inner.on_packet_lost(lost_bytes, pn, now);
    }

    fn on_spurious_congestion_event(&mut self) {
        self.inner.on_spurious_congestion_event();
    }

    fn on_mtu_update(&mut self, new_mtu: u16) {
        self.inner.on_mtu_update(new_mtu);
    }

    fn on_ack_frequency_update(
        &mut self,
        ack_eliciting_threshold: u64,
        requested_max_ack_delay: Duration,
    ) {
        self.inner
            .on_ack_frequency_update(ack_eliciting_threshold, requested_max_ack_delay);
    }

    fn window(&self) -> u64 {
        self.inner.window()
    }

    fn metrics(&self) -> ControllerMetrics {
        self.inner.metrics()
    }

    fn clone_box(&self) -> Box<dyn Controller> {
        Box::new(Self {
            inner: self.inner.clone_box(),
            samples: self.samples.clone(),
            epoch: self.epoch,
        })
    }

    fn initial_window(&self) -> u64 {
        self.inner.initial_window()
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}
