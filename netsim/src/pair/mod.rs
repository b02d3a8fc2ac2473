//! What every stack's client/server pair shares: TLS, the stream content and the report, and
//! `quic_pair!`, which declares a stack's pair once for all stacks (quinn and noq have the same
//! endpoint, connection and stream API, noq being a fork of quinn).

pub(crate) mod null_protection;
pub(crate) mod tls;
pub mod transfer;

use serde::{Deserialize, Serialize};

/// How a pair protects its QUIC packets. Either way the handshake is real TLS 1.3 (the same
/// certificate, transport parameters and handshake bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PacketProtection {
    /// TLS 1.3's keys: AES-128-GCM packet protection and AES header protection (the default).
    #[default]
    Tls,
    /// No encryption: each packet key writes a tag of the real key's length that depends on the
    /// real key and the packet number (and checks it, so a datagram opens only where the AEAD
    /// would open it), each header key leaves the header in the clear with the real key's
    /// sample size. So every datagram has its TLS size and a virtual-time run sends the same
    /// datagrams at the same times as under [`PacketProtection::Tls`], without the AEAD's cost;
    /// for emulation on one machine only, never for traffic that leaves it. quinn's and noq's
    /// pairs both offer it; the interop pairs (one of each) keep TLS.
    Null,
}

impl PacketProtection {
    /// `"tls"` or `"null"`, as in configs and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Tls => "tls",
            Self::Null => "null",
        }
    }
}

/// Declares a stack's client/server pair over a [`crate::SimLink`]: its error type, builder,
/// pair, `connect`, transfers and `transfer_with_controller`. `$q` is the stack's crate (its
/// `Endpoint`, `Connection`, `TransportConfig`, ... are used by name), `$socket` the
/// [`crate::SimSocket`] method that makes its socket, `$label` its name in messages and seeds.
macro_rules! quic_pair {
    (
        stack: $q:ident,
        null_protection: $null:ident,
        label: $label:literal,
        socket: $socket:ident,
        pair: $Pair:ident,
        builder: $Builder:ident,
        error: $Error:ident,
        stack_error: $Variant:ident
    ) => {
        use std::net::SocketAddr;
        use std::sync::Arc;
        use std::time::Duration;

        use $q::{
            ClientConfig, Connection, Endpoint, EndpointConfig, ServerConfig, TokioRuntime,
            TransportConfig,
        };

        use crate::config_error::ConfigError;
        use crate::link::LinkConfig;
        use crate::pair::tls;
        use crate::pair::PacketProtection;
        pub use crate::pair::transfer::{StreamPattern, TransferReport};
        use crate::pair::transfer::{Amount, CHUNK};
        use crate::sim::{Side, SimLink};

        /// The name the certificate is issued for and the client connects to.
        pub const SERVER_NAME: &str = tls::SERVER_NAME;

        #[doc = concat!("What can go wrong setting up or running a ", $label, " pair.")]
        #[derive(Debug, thiserror::Error)]
        pub enum $Error {
            /// The link configuration is invalid.
            #[error("invalid link configuration: {0}")]
            Config(#[from] ConfigError),
            /// Building the TLS configuration failed.
            #[error("TLS setup failed: {0}")]
            Tls(String),
            /// An endpoint could not be created.
            #[error("endpoint setup failed: {0}")]
            Io(#[from] std::io::Error),
            #[doc = concat!($label, " reported an error during the run (`what` says at which step).")]
            #[error("{} error while {what}: {message}", $label)]
            $Variant {
                /// The step that failed.
                what: &'static str,
                #[doc = concat!($label, "'s error message.")]
                message: String,
            },
        }

        impl $Error {
            pub(crate) fn stack(what: &'static str, error: impl std::fmt::Display) -> Self {
                Self::$Variant {
                    what,
                    message: error.to_string(),
                }
            }
        }

        #[doc = concat!("Builder for a [`", stringify!($Pair), "`].")]
        #[derive(Debug)]
        pub struct $Builder {
            link: crate::sim::SimLinkBuilder,
            seed: u64,
            client_transport: Arc<TransportConfig>,
            server_transport: Arc<TransportConfig>,
            record_timeline: bool,
            packet_protection: PacketProtection,
        }

        impl $Builder {
            /// How packets are protected (default [`PacketProtection::Tls`]).
            pub fn packet_protection(mut self, protection: PacketProtection) -> Self {
                self.packet_protection = protection;
                self
            }

            /// The client's transport config (default `TransportConfig::default()`, whose
            /// controller is the stack's Cubic).
            pub fn client_transport(mut self, transport: Arc<TransportConfig>) -> Self {
                self.client_transport = transport;
                self
            }

            /// The server's transport config (default `TransportConfig::default()`).
            pub fn server_transport(mut self, transport: Arc<TransportConfig>) -> Self {
                self.server_transport = transport;
                self
            }

            /// Record the link's delivered-datagram timeline (see [`SimLink::timeline`]).
            pub fn record_timeline(mut self, record: bool) -> Self {
                self.record_timeline = record;
                self
            }

            /// Builds the link and both endpoints. Call it inside the tokio runtime that will
            /// run them.
            pub fn build(self) -> Result<$Pair, $Error> {
                let link = self.link.record_timeline(self.record_timeline).build()?;
                let identity = tls::identity(self.seed).map_err($Error::Tls)?;
                let protection = self.packet_protection;
                let server = server_endpoint(
                    &link,
                    &identity,
                    self.seed,
                    self.server_transport,
                    protection,
                )?;
                let (client, client_config) = client_endpoint(
                    &link,
                    &identity,
                    self.seed,
                    self.client_transport,
                    protection,
                )?;
                Ok($Pair {
                    link,
                    client,
                    client_config,
                    server,
                    seed: self.seed,
                    attached: std::sync::Mutex::default(),
                })
            }
        }

        /// This stack's `EndpointConfig` for `side` (`client` or `server`), its RNG seeded from
        /// the run seed.
        fn endpoint_config(seed: u64, side: &str) -> EndpointConfig {
            let mut config = EndpointConfig::default();
            config.rng_seed(Some(tls::seed_bytes(seed, &format!("{}/{side}", $label))));
            config
        }

        /// This stack's server endpoint on `link`'s side B, presenting `identity`.
        pub(crate) fn server_endpoint(
            link: &SimLink,
            identity: &tls::Identity,
            seed: u64,
            transport: Arc<TransportConfig>,
            protection: PacketProtection,
        ) -> Result<Endpoint, $Error> {
            let server_tls = tls::server_crypto(identity).map_err($Error::Tls)?;
            let server_crypto: Arc<dyn $q::crypto::ServerConfig> = Arc::new(
                $q::crypto::rustls::QuicServerConfig::try_from(server_tls)
                    .map_err(|e| $Error::Tls(e.to_string()))?,
            );
            let server_crypto = match protection {
                PacketProtection::Tls => server_crypto,
                PacketProtection::Null => $null::server(server_crypto),
            };
            let mut server_config = ServerConfig::with_crypto(server_crypto);
            server_config.transport_config(transport);
            Ok(Endpoint::new_with_abstract_socket(
                endpoint_config(seed, "server"),
                Some(server_config),
                link.socket(Side::B).$socket(),
                Arc::new(TokioRuntime),
            )?)
        }

        /// This stack's client endpoint on `link`'s side A, trusting `identity`, and its
        /// default client config (for connections with a transport of their own).
        pub(crate) fn client_endpoint(
            link: &SimLink,
            identity: &tls::Identity,
            seed: u64,
            transport: Arc<TransportConfig>,
            protection: PacketProtection,
        ) -> Result<(Endpoint, ClientConfig), $Error> {
            let client_tls = tls::client_crypto(identity).map_err($Error::Tls)?;
            let client_crypto: Arc<dyn $q::crypto::ClientConfig> = Arc::new(
                $q::crypto::rustls::QuicClientConfig::try_from(client_tls)
                    .map_err(|e| $Error::Tls(e.to_string()))?,
            );
            let client_crypto = match protection {
                PacketProtection::Tls => client_crypto,
                PacketProtection::Null => $null::client(client_crypto),
            };
            let mut client_config = ClientConfig::new(client_crypto);
            client_config.transport_config(transport);
            #[allow(unused_mut)] // quinn's setter takes `&mut self`, noq's `&self`.
            let mut client = Endpoint::new_with_abstract_socket(
                endpoint_config(seed, "client"),
                None,
                link.socket(Side::A).$socket(),
                Arc::new(TokioRuntime),
            )?;
            client.set_default_client_config(client_config.clone());
            Ok((client, client_config))
        }

        /// A client endpoint of its own on side A of `link`, behind an access link of
        /// `access_delay` one way ([`SimLink::attach`]), added to `attached` (which keeps it
        /// for the pair's life; its count seeds the endpoint's RNG).
        pub(crate) fn attached_client(
            link: &SimLink,
            seed: u64,
            attached: &std::sync::Mutex<Vec<Endpoint>>,
            access_delay: Duration,
        ) -> Result<Endpoint, $Error> {
            let mut attached = attached.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let socket = link.attach(Side::A, access_delay)?;
            let endpoint = Endpoint::new_with_abstract_socket(
                endpoint_config(seed, &format!("client/attached/{}", attached.len())),
                None,
                socket.$socket(),
                Arc::new(TokioRuntime),
            )?;
            attached.push(endpoint.clone());
            Ok(endpoint)
        }

        #[doc = concat!("A ", $label, " client (endpoint A) and server (endpoint B) joined by a [`SimLink`].")]
        #[derive(Debug)]
        pub struct $Pair {
            link: SimLink,
            client: Endpoint,
            client_config: ClientConfig,
            server: Endpoint,
            seed: u64,
            /// Client endpoints of their own (`connect_behind`), kept for the pair's life.
            attached: std::sync::Mutex<Vec<Endpoint>>,
        }

        impl $Pair {
            /// A builder for a pair over a link with `link` config, seeded with `seed`.
            pub fn builder(link: LinkConfig, seed: u64) -> $Builder {
                $Builder {
                    link: SimLink::builder(link, seed),
                    seed,
                    client_transport: Arc::new(TransportConfig::default()),
                    server_transport: Arc::new(TransportConfig::default()),
                    record_timeline: false,
                    packet_protection: PacketProtection::Tls,
                }
            }

            /// A builder for a pair over a link carried by `medium` (see [`crate::Medium`]),
            /// e.g. the ns-3 backend; the endpoints and TLS are seeded from the medium's seed.
            pub fn with_medium(medium: Box<dyn crate::Medium>) -> $Builder {
                let seed = medium.seed();
                $Builder {
                    link: SimLink::with_medium(medium),
                    seed,
                    client_transport: Arc::new(TransportConfig::default()),
                    server_transport: Arc::new(TransportConfig::default()),
                    record_timeline: false,
                    packet_protection: PacketProtection::Tls,
                }
            }

            /// The emulated link (for accounting and timelines).
            pub fn link(&self) -> &SimLink {
                &self.link
            }

            /// The client endpoint.
            pub fn client(&self) -> &Endpoint {
                &self.client
            }

            /// The server endpoint.
            pub fn server(&self) -> &Endpoint {
                &self.server
            }

            /// The server's address.
            pub fn server_addr(&self) -> SocketAddr {
                self.link.addr(Side::B)
            }

            /// The run seed.
            pub fn seed(&self) -> u64 {
                self.seed
            }

            /// Opens a connection: `(client side, server side)`.
            ///
            /// Each side's connection runs inside a `tracing` span named `client` or `server`
            /// (target `netsim`), so that a subscriber can tell the two sides' records apart.
            pub async fn connect(&self) -> Result<(Connection, Connection), $Error> {
                self.connect_using(self.client_config.clone()).await
            }

            /// Opens a connection whose client side runs `transport` instead of the client
            /// endpoint's (its own congestion controller, say): flows with different
            /// controllers over one link.
            pub async fn connect_with(
                &self,
                transport: Arc<TransportConfig>,
            ) -> Result<(Connection, Connection), $Error> {
                let mut config = self.client_config.clone();
                config.transport_config(transport);
                self.connect_using(config).await
            }

            /// Opens a connection from a client endpoint of its own, behind an access link of
            /// `access_delay` one way ([`SimLink::attach`]: its round trip grows by twice
            /// that), running `transport` if given (else the client endpoint's). Errors if the
            /// link is carried by a stepped medium (ns-3) or the delay is out of range.
            pub async fn connect_behind(
                &self,
                access_delay: Duration,
                transport: Option<Arc<TransportConfig>>,
            ) -> Result<(Connection, Connection), $Error> {
                let endpoint =
                    attached_client(&self.link, self.seed, &self.attached, access_delay)?;
                let mut config = self.client_config.clone();
                if let Some(transport) = transport {
                    config.transport_config(transport);
                }
                self.connect_on(&endpoint, config).await
            }

            async fn connect_using(
                &self,
                config: ClientConfig,
            ) -> Result<(Connection, Connection), $Error> {
                self.connect_on(&self.client, config).await
            }

            async fn connect_on(
                &self,
                client: &Endpoint,
                config: ClientConfig,
            ) -> Result<(Connection, Connection), $Error> {
                use tracing::Instrument;
                let connecting = tracing::debug_span!(target: "netsim", "client").in_scope(|| {
                    client
                        .connect_with(config, self.server_addr(), SERVER_NAME)
                        .map_err(|e| $Error::stack("starting the connection", e))
                })?;
                let accept = async {
                    let incoming = self.server.accept().await.ok_or_else(|| {
                        $Error::stack("accepting", "server endpoint closed")
                    })?;
                    incoming.await.map_err(|e| $Error::stack("accepting", e))
                }
                .instrument(tracing::debug_span!(target: "netsim", "server"));
                let client = async {
                    connecting
                        .await
                        .map_err(|e| $Error::stack("connecting", e))
                };
                let (client, server) = tokio::join!(client, accept);
                Ok((client?, server?))
            }

            /// Connects and sends `bytes` bytes client -> server on one stream; the server
            /// checks them.
            pub async fn transfer(
                &self,
                bytes: u64,
            ) -> Result<TransferReport<$q::ConnectionStats>, $Error> {
                self.run_transfer(Amount::Bytes(bytes)).await
            }

            /// Connects and sends client -> server for `duration` of link time, then finishes
            /// the stream; the server checks every byte.
            pub async fn transfer_for(
                &self,
                duration: Duration,
            ) -> Result<TransferReport<$q::ConnectionStats>, $Error> {
                let until = self.link().now().saturating_add(duration);
                self.run_transfer(Amount::Until(until)).await
            }

            async fn run_transfer(
                &self,
                amount: Amount,
            ) -> Result<TransferReport<$q::ConnectionStats>, $Error> {
                let started = self.link().now();
                let (client, server) = self.connect().await?;
                let seed = self.seed();
                let link = self.link().clone();
                let (sent, received) =
                    tokio::join!(send(&client, seed, amount, &link), receive(&server, seed));
                let bytes_sent = sent?;
                let (bytes_received, intact) = received?;
                let elapsed = self.link().now().saturating_sub(started);
                client.close(0u32.into(), b"done");
                server.close(0u32.into(), b"done");
                tracing::info!(
                    stack = $label,
                    bytes_sent,
                    bytes_received,
                    intact,
                    elapsed_s = elapsed.as_secs_f64(),
                    "transfer finished"
                );
                Ok(TransferReport {
                    bytes_sent,
                    bytes_received,
                    intact: intact && bytes_received == bytes_sent,
                    elapsed,
                    client_stats: client.stats(),
                    accounting: self.link().accounting(),
                })
            }
        }

        #[doc = concat!("Sends `bytes` client -> server over a fresh [`", stringify!($Pair), "`] on `link`, in")]
        /// virtual time on a runtime of its own, with `controller` as the client's congestion
        /// controller (the stack's defaults otherwise); the server checks every byte. The
        /// one-call form for controller tests.
        pub fn transfer_with_controller(
            link: LinkConfig,
            seed: u64,
            controller: Arc<dyn $q::congestion::ControllerFactory + Send + Sync>,
            bytes: u64,
        ) -> Result<TransferReport<$q::ConnectionStats>, $Error> {
            let mut transport = TransportConfig::default();
            transport.congestion_controller_factory(controller);
            crate::virtual_runtime()?.block_on(async {
                $Pair::builder(link, seed)
                    .client_transport(Arc::new(transport))
                    .build()?
                    .transfer(bytes)
                    .await
            })
        }

        /// Client side: writes the pattern, finishes, and waits until the server has
        /// acknowledged it.
        async fn send(
            connection: &Connection,
            seed: u64,
            amount: Amount,
            link: &SimLink,
        ) -> Result<u64, $Error> {
            let mut stream = connection
                .open_uni()
                .await
                .map_err(|e| $Error::stack("opening the stream", e))?;
            let pattern = StreamPattern::new(seed);
            let mut offset = 0u64;
            loop {
                let len = match amount {
                    Amount::Bytes(total) => {
                        usize::try_from(total - offset).unwrap_or(CHUNK).min(CHUNK)
                    }
                    Amount::Until(until) if link.now() < until => CHUNK,
                    Amount::Until(_) => 0,
                };
                if len == 0 {
                    break;
                }
                stream
                    .write_all(pattern.slice(offset, len))
                    .await
                    .map_err(|e| $Error::stack("writing", e))?;
                offset += len as u64;
            }
            stream
                .finish()
                .map_err(|e| $Error::stack("finishing the stream", e))?;
            stream.stopped().await.map_err(|e| {
                $Error::stack("waiting for the stream to be acknowledged", e)
            })?;
            Ok(offset)
        }

        /// Server side: reads the stream to its end, checking every byte against the pattern.
        async fn receive(connection: &Connection, seed: u64) -> Result<(u64, bool), $Error> {
            let mut stream = connection
                .accept_uni()
                .await
                .map_err(|e| $Error::stack("accepting the stream", e))?;
            let pattern = StreamPattern::new(seed);
            let mut buf = vec![0u8; CHUNK];
            let mut offset = 0u64;
            let mut intact = true;
            while let Some(len) = stream
                .read(&mut buf)
                .await
                .map_err(|e| $Error::stack("reading", e))?
            {
                intact &= buf[..len] == *pattern.slice(offset, len);
                offset += len as u64;
            }
            Ok((offset, intact))
        }
    };
}

pub(crate) use quic_pair;
