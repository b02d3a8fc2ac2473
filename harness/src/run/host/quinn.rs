//! quinn 0.11 as a run's host stack.

use std::sync::Arc;
use std::time::Duration;

use cc_core::{PortConfig, PortController, PortFactory, SignalStats};
use netsim::quinn_pair::QuinnPair;
use quinn::congestion::{Controller, ControllerFactory};
use quinn::{Connection, RecvStream, SendStream, TransportConfig};

use super::{Host, Recorded, SenderStats};
use crate::run::sampler::{MetricsFactory, Sampler};
use crate::stack::Stack;

/// quinn 0.11.
#[derive(Debug)]
pub struct Quinn;

/// quinn's errors are displayable; the harness reports text.
fn text(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// quinn's idle timeout (a varint of milliseconds).
pub(crate) fn idle_timeout(idle: Option<Duration>) -> Result<Option<quinn::IdleTimeout>, String> {
    idle.map(|d| {
        quinn::IdleTimeout::try_from(d)
            .map_err(|_| format!("idle timeout {d:?} is too large for quinn"))
    })
    .transpose()
}

impl Host for Quinn {
    const STACK: Stack = Stack::Quinn;
    type Factory = Arc<dyn ControllerFactory + Send + Sync>;
    type Controller = dyn Controller;
    type Transport = TransportConfig;
    type Pair = QuinnPair;
    type Connection = Connection;
    type SendStream = SendStream;
    type RecvStream = RecvStream;

    fn port_factory<C: PortConfig>(config: C) -> Self::Factory {
        Arc::new(PortFactory::new(config))
    }

    fn port_signal_stats<C: PortConfig>(controller: Box<dyn Controller>) -> Option<SignalStats> {
        PortController::<C::Algorithm>::from_controller(controller).map(|c| c.signal_stats())
    }

    fn recording_factory(
        inner: Self::Factory,
        epoch: std::time::Instant,
        trace: bool,
    ) -> Self::Factory {
        Arc::new(MetricsFactory::new(inner, epoch, trace))
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
            let mut ack = quinn::AckFrequencyConfig::default();
            ack.max_ack_delay(Some(delay));
            client.ack_frequency_config(Some(ack));
        }
        Ok(client)
    }

    fn with_qlog(
        mut transport: TransportConfig,
        options: &crate::run::spec::RunOptions,
        spec: &crate::run::spec::RunSpec,
        epoch: std::time::Instant,
    ) -> Result<TransportConfig, String> {
        if let Some(dir) = &options.qlog_dir {
            crate::run::qlog::attach(&mut transport, dir, spec, epoch)?;
        }
        Ok(transport)
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
    ) -> Result<QuinnPair, String> {
        QuinnPair::builder(link, seed)
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
    ) -> Result<QuinnPair, String> {
        QuinnPair::with_medium(medium)
            .client_transport(client)
            .server_transport(server)
            .packet_protection(protection)
            .build()
            .map_err(text)
    }

    fn link(pair: &QuinnPair) -> &netsim::SimLink {
        pair.link()
    }

    async fn connect(
        pair: &QuinnPair,
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
        SenderStats {
            datagrams: stats.udp_tx.datagrams,
            udp_bytes: stats.udp_tx.bytes,
            packets_sent: stats.path.sent_packets,
            packets_lost: stats.path.lost_packets,
            bytes_lost: stats.path.lost_bytes,
            congestion_events: stats.path.congestion_events,
        }
    }

    fn recorded(
        connection: &Connection,
        signal_stats: fn(Box<dyn Controller>) -> Option<SignalStats>,
    ) -> Option<Recorded> {
        let sampler = connection
            .congestion_state()
            .into_any()
            .downcast::<Sampler>()
            .ok()?;
        let samples = sampler.observer().recording();
        Some(Recorded {
            samples,
            signals: signal_stats(sampler.into_inner()),
        })
    }
}
