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

use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;

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
    /// Local address of the socket that talks to the server (default `127.0.0.1:0`).
    pub upstream_bind: SocketAddr,
    /// Permit non-loopback addresses (default false: the relay stays on this machine).
    pub allow_non_loopback: bool,
}

impl RelayConfig {
    /// Relay to `upstream`, listening on an ephemeral loopback port.
    pub fn new(upstream: SocketAddr) -> Self {
        let loopback = SocketAddr::from((Ipv4Addr::LOCALHOST, 0));
        Self {
            listen: loopback,
            upstream,
            upstream_bind: loopback,
            allow_non_loopback: false,
        }
    }

    /// Checks the addresses; errors name the field. The relay must not listen on the address
    /// it forwards to (every datagram would come back to it), and it stays on loopback unless
    /// `allow_non_loopback` is set.
    pub fn validate(&self) -> Result<(), ConfigError> {
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
        let forwarder = Forwarder {
            listen,
            upstream,
            upstream_addr: config.upstream,
            client_side: link.socket(Side::A),
            server_side: link.socket(Side::B),
            client: None,
        };
        let task = tokio::spawn(forwarder.run(stop.clone()));
        Ok(Self {
            listen_addr,
            link,
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

    /// Stops forwarding and returns the final accounting.
    pub async fn shutdown(mut self) -> Result<LinkAccounting, RelayError> {
        self.stop.notify_one();
        if let Some(task) = self.task.take() {
            task.await.map_err(|e| RelayError::Task(e.to_string()))?;
        }
        Ok(self.link.accounting())
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
}

impl Forwarder {
    /// Forwards in both directions until `stop` is notified. I/O errors on one datagram (for
    /// example an ICMP "port unreachable" reported on the next receive) are logged and the
    /// relay carries on, as a router would.
    async fn run(mut self, stop: Arc<Notify>) {
        let mut from_client = vec![0u8; MAX_DATAGRAM];
        let mut to_server = vec![0u8; MAX_DATAGRAM];
        let mut from_server = vec![0u8; MAX_DATAGRAM];
        let mut to_client = vec![0u8; MAX_DATAGRAM];
        let (server_addr, client_side_addr) =
            (self.server_side.local_addr(), self.client_side.local_addr());
        loop {
            tokio::select! {
                _ = stop.notified() => break,
                received = self.listen.recv_from(&mut from_client) => match received {
                    Ok((len, from)) => {
                        if self.client != Some(from) {
                            tracing::info!(client = %from, "relay client address");
                            self.client = Some(from);
                        }
                        // Offered to the link now; delivered to the server side when it arrives.
                        let _ = self.client_side.try_send_to(&from_client[..len], server_addr);
                    }
                    Err(e) => tracing::warn!(error = %e, "relay: receive from client failed"),
                },
                received = self.server_side.recv_from(&mut to_server) => {
                    if let Ok((len, _)) = received
                        && let Err(e) = self.upstream.send_to(&to_server[..len], self.upstream_addr).await
                    {
                        tracing::warn!(error = %e, "relay: send to server failed");
                    }
                },
                received = self.upstream.recv_from(&mut from_server) => match received {
                    Ok((len, from)) if from == self.upstream_addr => {
                        let _ = self.server_side.try_send_to(&from_server[..len], client_side_addr);
                    }
                    Ok((_, from)) => tracing::debug!(%from, "relay: ignored datagram from a non-upstream address"),
                    Err(e) => tracing::warn!(error = %e, "relay: receive from server failed"),
                },
                received = self.client_side.recv_from(&mut to_client) => {
                    if let (Ok((len, _)), Some(client)) = (received, self.client)
                        && let Err(e) = self.listen.send_to(&to_client[..len], client).await
                    {
                        tracing::warn!(error = %e, "relay: send to client failed");
                    }
                },
            }
        }
        tracing::info!("netsim relay stopped");
    }
}
