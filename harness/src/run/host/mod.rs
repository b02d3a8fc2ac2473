//! The QUIC stacks that host the ports and their baselines in a run: quinn 0.11 and noq 1.x.
//!
//! A run's connections, streams, statistics and controller recording go through [`Host`], so
//! that [`crate::run`] and [`crate::run::flows`] are written once for both stacks. noq is a fork of
//! quinn with the same API, so the two implementations (`quinn.rs`, `noq.rs`) are short and
//! alike; what differs is named there (noq's per-path statistics and controller access, its
//! multipath `PathId`).

mod noq;
mod pairing;
mod quinn;

pub use self::noq::Noq;
pub use self::pairing::{NoqToQuinn, Pairing, QuinnToNoq, Same};
pub use self::quinn::Quinn;
#[cfg(feature = "quiche")]
pub(crate) use self::quinn::idle_timeout as quinn_idle_timeout;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use cc_core::{PortConfig, SignalStats};

use crate::run::sampler::SamplesHandle;
use crate::stack::Stack;

/// A client connection's counters at the end of a run, in the stacks' common terms.
#[derive(Clone, Copy, Debug, Default)]
pub struct SenderStats {
    /// UDP datagrams sent.
    pub datagrams: u64,
    /// UDP payload bytes sent.
    pub udp_bytes: u64,
    /// QUIC packets sent.
    pub packets_sent: u64,
    /// Packets declared lost.
    pub packets_lost: u64,
    /// Bytes declared lost.
    pub bytes_lost: u64,
    /// Congestion events.
    pub congestion_events: u64,
}

/// What a flow's recording controller holds at the end of a run.
pub struct Recorded {
    /// RTT samples, slow-start time, window trace.
    pub samples: SamplesHandle,
    /// The port's loss-signal statistics (ports only).
    pub signals: Option<SignalStats>,
}

/// One QUIC stack, as the harness drives it.
pub trait Host: Sized + Send + Sync + 'static {
    /// The stack's name in results (the `sender` and `receiver` columns).
    const STACK: Stack;
    /// A shareable controller factory (`Arc<dyn ControllerFactory + Send + Sync>`).
    type Factory: Clone + Send + Sync + 'static;
    /// A controller as the stack boxes it.
    type Controller: ?Sized + 'static;
    /// The stack's transport configuration.
    type Transport: Send + Sync + 'static;
    /// A client/server pair over netsim or ns-3.
    type Pair: Send + Sync + 'static;
    /// A connection.
    type Connection: Clone + Send + Sync + 'static;
    /// A unidirectional stream's sending half.
    type SendStream: Send + 'static;
    /// A unidirectional stream's receiving half.
    type RecvStream: Send + 'static;

    /// A port's factory over `config`.
    fn port_factory<C: PortConfig>(config: C) -> Self::Factory;
    /// The port's loss-signal statistics from a controller its factory built.
    fn port_signal_stats<C: PortConfig>(controller: Box<Self::Controller>) -> Option<SignalStats>;
    /// Wraps `inner` so every controller it builds records RTT samples, slow-start time and
    /// (with `trace`) the window, times from `epoch`.
    fn recording_factory(
        inner: Self::Factory,
        epoch: std::time::Instant,
        trace: bool,
    ) -> Self::Factory;

    /// The client's transport: `factory`, and from `settings` the idle timeout, the loss
    /// thresholds and the ACK delay it asks its peer for.
    fn client_transport(
        factory: Self::Factory,
        settings: &crate::scenario::TransportSettings,
    ) -> Result<Self::Transport, String>;
    /// The client's transport with `--qlog` applied (quinn's qlog; an error on a stack without).
    fn with_qlog(
        transport: Self::Transport,
        options: &crate::run::spec::RunOptions,
        spec: &crate::run::spec::RunSpec,
        epoch: std::time::Instant,
    ) -> Result<Self::Transport, String>;
    /// The server's transport.
    fn server_transport(idle: Option<Duration>) -> Result<Self::Transport, String>;

    /// One pair over netsim's `link`, its packets protected by `protection`.
    fn netsim_pair(
        link: netsim::LinkConfig,
        seed: u64,
        client: Arc<Self::Transport>,
        server: Arc<Self::Transport>,
        protection: netsim::PacketProtection,
    ) -> Result<Self::Pair, String>;
    /// One pair over another medium (ns-3), its packets protected by `protection`.
    fn medium_pair(
        medium: Box<dyn netsim::Medium>,
        client: Arc<Self::Transport>,
        server: Arc<Self::Transport>,
        protection: netsim::PacketProtection,
    ) -> Result<Self::Pair, String>;
    /// The pair's link.
    fn link(pair: &Self::Pair) -> &netsim::SimLink;
    /// Opens a connection: `(client side, server side)`; with `transport`, the client side
    /// runs it instead of the client endpoint's (a flow with a controller of its own); with a
    /// non-zero `access_delay`, from a client endpoint of its own behind an access link of
    /// that one-way delay (netsim's `connect_behind`).
    fn connect(
        pair: &Self::Pair,
        transport: Option<Arc<Self::Transport>>,
        access_delay: Duration,
    ) -> impl Future<Output = Result<(Self::Connection, Self::Connection), String>> + Send;

    /// Opens a unidirectional stream.
    fn open_uni(
        connection: &Self::Connection,
    ) -> impl Future<Output = Result<Self::SendStream, String>> + Send;
    /// Accepts a unidirectional stream.
    fn accept_uni(
        connection: &Self::Connection,
    ) -> impl Future<Output = Result<Self::RecvStream, String>> + Send;
    /// Writes all of `data`.
    fn write_all(
        stream: &mut Self::SendStream,
        data: &[u8],
    ) -> impl Future<Output = Result<(), String>> + Send;
    /// Finishes the stream, then waits until the peer has it all (or the connection ends).
    fn finish(stream: &mut Self::SendStream) -> impl Future<Output = Result<(), String>> + Send;
    /// Reads into `buf`: `None` at the end of the stream.
    fn read(
        stream: &mut Self::RecvStream,
        buf: &mut [u8],
    ) -> impl Future<Output = Result<Option<usize>, String>> + Send;
    /// Closes the connection.
    fn close(connection: &Self::Connection);

    /// The client's counters.
    fn sender_stats(connection: &Self::Connection) -> SenderStats;
    /// The recording controller's state, and the port's statistics through `signal_stats`.
    fn recorded(
        connection: &Self::Connection,
        signal_stats: fn(Box<Self::Controller>) -> Option<SignalStats>,
    ) -> Option<Recorded>;
}
