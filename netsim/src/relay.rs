//! A real-time UDP relay: forwards datagrams between a client and a server on loopback through
//! the emulated path, so any QUIC program can run over netsim.
//!
//! ```text
//!  client ──> listen socket ──[a_to_b]──> upstream socket ──> server
//!  client <── listen socket <──[b_to_a]── upstream socket <── server
//! ```
//!
//! The client sends to the relay's listen address instead of the server's; the relay remembers
//! the most recent client address (one client at a time, like a NAT binding) and forwards what
//! the server sends back to it. Only datagrams from the configured upstream address are
//! forwarded back. Both sockets bind loopback unless configured otherwise, and non-loopback
//! addresses are refused unless [`RelayConfig::allow_non_loopback`] is set.
//!
//! The socket facing the server sends to the upstream address, so it must be of the upstream's
//! address family (IPv4 or IPv6): [`RelayConfig::new`] binds it to the loopback address of that
//! family, and [`RelayConfig::validate`] refuses a mismatch. The listen socket may be of either
//! family (the client's).
//!
//! A datagram that cannot be forwarded (a failed send) is counted in [`RelayStats`], beside
//! the link's accounting; [`Relay::finish`] returns both, whatever happened to the forwarding
//! task.

use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};

use tokio::net::UdpSocket;
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use crate::config_error::ConfigError;
use crate::link::{LinkAccounting, LinkConfig};
use crate::sim::{Side, SimLink, SimSocket};

/// Largest UDP payload.
const MAX_DATAGRAM: usize = 65_535;

/// Where the relay listens and where it forwards.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RelayConfig {
    /// Address clients send to (default `127.0.0.1:0`, an ephemeral loopback port).
    pub listen: SocketAddr,
    /// The server's address.
    pub upstream: SocketAddr,
    /// Local address of the socket that talks to the server (default: the loopback address of
    /// the upstream's family, `127.0.0.1:0` or `[::1]:0`). Must be of the upstream's family.
    pub upstream_bind: SocketAddr,
    /// Permit non-loopback addresses (default false: the relay stays on this machine).
    pub allow_non_loopback: bool,
}

impl RelayConfig {
    /// Relay to `upstream`, listening on an ephemeral IPv4 loopback port; the socket facing the
    /// server binds an ephemeral port on the loopback address of the upstream's family.
    pub fn new(upstream: SocketAddr) -> Self {
        Self {
            listen: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            upstream,
            upstream_bind: loopback_like(upstream),
            allow_non_loopback: false,
        }
    }

    /// Checks the addresses; errors name the field. The upstream address needs a port (not 0)
    /// and the socket facing the server must be of its address family (a socket of one family
    /// cannot send to the other: every datagram would fail). The relay must not listen on the
    /// address it forwards to (every datagram would come back to it), and it stays on loopback
    /// unless `allow_non_loopback` is set.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.upstream.port() == 0 {
            return Err(ConfigError::out_of_range(
                "upstream",
                self.upstream,
                "an address with a port in [1, 65535] (port 0 is not a destination)",
            ));
        }
        if self.upstream_bind.is_ipv4() != self.upstream.is_ipv4() {
            return Err(ConfigError::invalid(
                "upstream_bind",
                format!(
                    "{} is an {} address and the upstream address {} is {}: the socket facing the server must be of the upstream's address family",
                    self.upstream_bind,
                    family(self.upstream_bind),
                    self.upstream,
                    family(self.upstream),
                ),
            ));
        }
        for (field, addr) in [
            ("listen", self.listen),
            ("upstream_bind", self.upstream_bind),
        ] {
            if addr == self.upstream {
                return Err(ConfigError::invalid(
                    field,
                    format!(
                        "{addr} is the upstream address: the relay would forward datagrams to itself"
                    ),
                ));
            }
        }
        if self.listen.port() != 0 && self.listen == self.upstream_bind {
            return Err(ConfigError::invalid(
                "upstream_bind",
                format!(
                    "{} is the listen address: the two sockets need different ports",
                    self.listen
                ),
            ));
        }
        if self.allow_non_loopback {
            return Ok(());
        }
        for (field, addr) in [
            ("listen", self.listen),
            ("upstream", self.upstream),
            ("upstream_bind", self.upstream_bind),
        ] {
            if !addr.ip().is_loopback() {
                return Err(ConfigError::invalid(
                    field,
                    format!(
                        "{addr} is not a loopback address (set allow_non_loopback to permit it)"
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// The loopback address of `addr`'s family, port 0: `127.0.0.1:0` or `[::1]:0`.
pub fn loopback_like(addr: SocketAddr) -> SocketAddr {
    let ip = match addr.ip() {
        IpAddr::V4(_) => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(_) => IpAddr::V6(Ipv6Addr::LOCALHOST),
    };
    SocketAddr::new(ip, 0)
}

/// "IPv4" or "IPv6".
fn family(addr: SocketAddr) -> &'static str {
    if addr.is_ipv4() { "IPv4" } else { "IPv6" }
}

/// What the relay's sockets did, beside the link's accounting: datagrams received and sent
/// on each side, and the ones that could not be (a failed send loses the datagram after the
/// link carried it, so the link's accounting counts it as delivered).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RelayStats {
    /// Datagrams received from the client (offered to the link's `a_to_b`).
    pub from_client: u64,
    /// Datagrams the link delivered towards the server and the relay sent to it.
    pub to_server: u64,
    /// Datagrams the link delivered towards the server that could not be sent to it.
    pub to_server_send_errors: u64,
    /// Datagrams received from the upstream address (offered to the link's `b_to_a`).
    pub from_server: u64,
    /// Datagrams the link delivered towards the client and the relay sent to it.
    pub to_client: u64,
    /// Datagrams the link delivered towards the client that could not be sent to it.
    pub to_client_send_errors: u64,
    /// Datagrams the link delivered towards the client before any client had sent one:
    /// nowhere to send them.
    pub to_client_unknown: u64,
    /// Datagrams the upstream socket received from an address other than the upstream's:
    /// ignored.
    pub ignored: u64,
    /// Failed receives on either socket (for example an ICMP error reported on a receive).
    pub receive_errors: u64,
    /// The first failed send's error, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_send_error: Option<String>,
}

impl RelayStats {
    /// The direction in which every datagram to forward failed to send, if one did: `"server"`
    /// or `"client"` (a direction with nothing to send has not failed).
    pub fn every_send_failed(&self) -> Option<&'static str> {
        if self.to_server == 0 && self.to_server_send_errors > 0 {
            Some("server")
        } else if self.to_client == 0 && self.to_client_send_errors > 0 {
            Some("client")
        } else {
            None
        }
    }
}

/// The relay's live counters, shared between the forwarding task and its observers.
#[derive(Debug, Default)]
struct Counters {
    from_client: AtomicU64,
    to_server: AtomicU64,
    to_server_send_errors: AtomicU64,
    from_server: AtomicU64,
    to_client: AtomicU64,
    to_client_send_errors: AtomicU64,
    to_client_unknown: AtomicU64,
    ignored: AtomicU64,
    receive_errors: AtomicU64,
    first_send_error: Mutex<Option<String>>,
}

/// Adds one to `counter` and returns the new count.
fn bump(counter: &AtomicU64) -> u64 {
    counter.fetch_add(1, Ordering::Relaxed).saturating_add(1)
}

/// Whether to log the `n`th occurrence of a repeated error at warning level: the 1st, 2nd,
/// 4th, 8th...: a persistent failure is reported without a line per datagram.
fn worth_a_warning(n: u64) -> bool {
    n.is_power_of_two()
}

impl Counters {
    fn snapshot(&self) -> RelayStats {
        let get = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        RelayStats {
            from_client: get(&self.from_client),
            to_server: get(&self.to_server),
            to_server_send_errors: get(&self.to_server_send_errors),
            from_server: get(&self.from_server),
            to_client: get(&self.to_client),
            to_client_send_errors: get(&self.to_client_send_errors),
            to_client_unknown: get(&self.to_client_unknown),
            ignored: get(&self.ignored),
            receive_errors: get(&self.receive_errors),
            first_send_error: self
                .first_send_error
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clone(),
        }
    }

    /// Counts a failed send towards `to` (`"server"` or `"client"`, at `addr`).
    fn send_failed(&self, to: &'static str, addr: SocketAddr, error: &io::Error) {
        let counter = match to {
            "server" => &self.to_server_send_errors,
            _ => &self.to_client_send_errors,
        };
        let n = bump(counter);
        self.first_send_error
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get_or_insert_with(|| format!("send to the {to} ({addr}): {error}"));
        if worth_a_warning(n) {
            tracing::warn!(%error, %addr, failed = n, "relay: send to the {to} failed");
        } else {
            tracing::debug!(%error, %addr, failed = n, "relay: send to the {to} failed");
        }
    }

    /// Counts a failed receive on the socket facing `from`.
    fn receive_failed(&self, from: &'static str, error: &io::Error) {
        let n = bump(&self.receive_errors);
        if worth_a_warning(n) {
            tracing::warn!(%error, failed = n, "relay: receive from the {from} failed");
        } else {
            tracing::debug!(%error, failed = n, "relay: receive from the {from} failed");
        }
    }
}

/// A handle on a relay's counters that outlives the relay (and its task): read it with
/// [`RelayStatsHandle::snapshot`] from any thread.
#[derive(Clone, Debug)]
pub struct RelayStatsHandle(Arc<Counters>);

impl RelayStatsHandle {
    /// The counters now.
    pub fn snapshot(&self) -> RelayStats {
        self.0.snapshot()
    }
}

/// What a stopped relay reports: the link's accounting and the relay's own counters, and why
/// the forwarding task ended abnormally if it did.
#[derive(Clone, Debug)]
pub struct RelayReport {
    /// The link's accounting (client -> server is `a_to_b`).
    pub accounting: LinkAccounting,
    /// The relay's counters.
    pub stats: RelayStats,
    /// The forwarding task's failure (a panic), if it failed: the accounting and counters
    /// are still those of the whole run.
    pub task_error: Option<String>,
}

/// What can go wrong starting or running the relay.
#[derive(Debug, thiserror::Error)]
pub enum RelayError {
    /// Invalid relay or link configuration.
    #[error("invalid configuration: {0}")]
    Config(#[from] ConfigError),
    /// A socket could not be bound.
    #[error("cannot bind the {socket} socket to {addr}: {source}")]
    Bind {
        /// Which socket: the configuration field that gives its address (`listen` or
        /// `upstream_bind`).
        socket: &'static str,
        /// The address it was to be bound to.
        addr: SocketAddr,
        /// Why it could not be.
        source: io::Error,
    },
    /// A socket could not be used.
    #[error("relay I/O error: {0}")]
    Io(#[from] io::Error),
    /// The relay task ended abnormally.
    #[error("relay task failed: {0}")]
    Task(String),
}

/// A running relay. Stop it with [`Relay::shutdown`]; dropping it also stops it.
#[derive(Debug)]
pub struct Relay {
    listen_addr: SocketAddr,
    link: SimLink,
    counters: Arc<Counters>,
    stop: Arc<Notify>,
    task: Option<JoinHandle<()>>,
}

impl Relay {
    /// Binds the sockets and starts forwarding through a link built from `link` and `seed`.
    /// Must be called on a tokio runtime with I/O and time enabled and a real clock
    /// ([`crate::real_runtime`]).
    pub async fn start(
        config: RelayConfig,
        link: LinkConfig,
        seed: u64,
    ) -> Result<Self, RelayError> {
        config.validate()?;
        let link = SimLink::new(link, seed)?;
        let bind = |socket: &'static str, addr: SocketAddr| async move {
            UdpSocket::bind(addr)
                .await
                .map_err(|source| RelayError::Bind {
                    socket,
                    addr,
                    source,
                })
        };
        let listen = bind("listen", config.listen).await?;
        let upstream = bind("upstream_bind", config.upstream_bind).await?;
        let listen_addr = listen.local_addr()?;
        tracing::info!(listen = %listen_addr, upstream = %config.upstream, seed, "netsim relay started");
        let stop = Arc::new(Notify::new());
        let counters = Arc::new(Counters::default());
        let forwarder = Forwarder {
            listen,
            upstream,
            upstream_addr: config.upstream,
            client_side: link.socket(Side::A),
            server_side: link.socket(Side::B),
            client: None,
            counters: counters.clone(),
        };
        let task = tokio::spawn(forwarder.run(stop.clone()));
        Ok(Self {
            listen_addr,
            link,
            counters,
            stop,
            task: Some(task),
        })
    }

    /// The address clients should send to.
    pub fn listen_addr(&self) -> SocketAddr {
        self.listen_addr
    }

    /// The link's accounting so far (client -> server is `a_to_b`).
    pub fn accounting(&self) -> LinkAccounting {
        self.link.accounting()
    }

    /// The relay's counters so far.
    pub fn stats(&self) -> RelayStats {
        self.counters.snapshot()
    }

    /// A handle on the relay's counters, readable after the relay is gone.
    pub fn stats_handle(&self) -> RelayStatsHandle {
        RelayStatsHandle(self.counters.clone())
    }

    /// Stops forwarding and returns the final accounting; an error if the forwarding task
    /// failed (then [`Relay::finish`] still has the accounting).
    pub async fn shutdown(self) -> Result<LinkAccounting, RelayError> {
        let report = self.finish().await;
        match report.task_error {
            Some(error) => Err(RelayError::Task(error)),
            None => Ok(report.accounting),
        }
    }

    /// Stops forwarding and returns the final accounting and counters, also when the
    /// forwarding task failed (the report says so).
    pub async fn finish(mut self) -> RelayReport {
        self.stop.notify_one();
        let task_error = match self.task.take() {
            Some(task) => task.await.err().map(|e| e.to_string()),
            None => None,
        };
        RelayReport {
            accounting: self.link.accounting(),
            stats: self.counters.snapshot(),
            task_error,
        }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

/// The forwarding loop's state.
struct Forwarder {
    listen: UdpSocket,
    upstream: UdpSocket,
    upstream_addr: SocketAddr,
    /// Endpoint A of the link: the client's side.
    client_side: SimSocket,
    /// Endpoint B of the link: the server's side.
    server_side: SimSocket,
    /// The most recent client address.
    client: Option<SocketAddr>,
    counters: Arc<Counters>,
}

impl Forwarder {
    /// Forwards in both directions until `stop` is notified. I/O errors on one datagram (for
    /// example an ICMP "port unreachable" reported on the next receive) are counted and logged
    /// (at warning level for the 1st, 2nd, 4th, 8th... of a kind) and the relay carries on, as
    /// a router would.
    async fn run(mut self, stop: Arc<Notify>) {
        let mut from_client = vec![0u8; MAX_DATAGRAM];
        let mut to_server = vec![0u8; MAX_DATAGRAM];
        let mut from_server = vec![0u8; MAX_DATAGRAM];
        let mut to_client = vec![0u8; MAX_DATAGRAM];
        let (server_addr, client_side_addr) =
            (self.server_side.local_addr(), self.client_side.local_addr());
        let counters = self.counters.clone();
        loop {
            tokio::select! {
                _ = stop.notified() => break,
                received = self.listen.recv_from(&mut from_client) => match received {
                    Ok((len, from)) => {
                        bump(&counters.from_client);
                        if self.client != Some(from) {
                            tracing::info!(client = %from, "relay client address");
                            self.client = Some(from);
                        }
                        // Offered to the link now; delivered to the server side when it arrives.
                        let _ = self.client_side.try_send_to(&from_client[..len], server_addr);
                    }
                    Err(e) => counters.receive_failed("client", &e),
                },
                received = self.server_side.recv_from(&mut to_server) => {
                    if let Ok((len, _)) = received {
                        match self.upstream.send_to(&to_server[..len], self.upstream_addr).await {
                            Ok(_) => {
                                bump(&counters.to_server);
                            }
                            Err(e) => counters.send_failed("server", self.upstream_addr, &e),
                        }
                    }
                },
                received = self.upstream.recv_from(&mut from_server) => match received {
                    Ok((len, from)) if from == self.upstream_addr => {
                        bump(&counters.from_server);
                        let _ = self.server_side.try_send_to(&from_server[..len], client_side_addr);
                    }
                    Ok((_, from)) => {
                        bump(&counters.ignored);
                        tracing::debug!(%from, "relay: ignored datagram from a non-upstream address");
                    }
                    Err(e) => counters.receive_failed("server", &e),
                },
                received = self.client_side.recv_from(&mut to_client) => {
                    if let Ok((len, _)) = received {
                        match self.client {
                            Some(client) => match self.listen.send_to(&to_client[..len], client).await {
                                Ok(_) => {
                                    bump(&counters.to_client);
                                }
                                Err(e) => counters.send_failed("client", client, &e),
                            },
                            None => {
                                bump(&counters.to_client_unknown);
                            }
                        }
                    }
                },
            }
        }
        tracing::info!("netsim relay stopped");
    }
}
