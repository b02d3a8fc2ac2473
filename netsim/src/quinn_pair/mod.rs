//! A quinn client/server pair over a [`SimLink`], for tests, benchmarks and experiments.
//!
//! The client is endpoint A and the server endpoint B, so `a_to_b` is the data direction of a
//! client-to-server transfer. Both endpoints get `EndpointConfig::rng_seed` from the run seed,
//! and TLS uses a self-signed certificate whose Ed25519 key is derived from it (so every
//! handshake datagram has the same size in every run), so a virtual-time run is reproducible.
//! The caller passes the `quinn::TransportConfig` of each side, e.g. to install a
//! congestion controller:
//!
//! ```no_run
//! use std::sync::Arc;
//! use netsim::quinn_pair::QuinnPair;
//! use netsim::{LinkConfig, virtual_runtime};
//!
//! let runtime = virtual_runtime()?;
//! let report = runtime.block_on(async {
//!     let mut transport = quinn::TransportConfig::default();
//!     transport.congestion_controller_factory(Arc::new(quinn::congestion::NewRenoConfig::default()));
//!     let pair = QuinnPair::builder(LinkConfig::default(), 7)
//!         .client_transport(Arc::new(transport))
//!         .build()?;
//!     pair.transfer(1_000_000).await
//! })?;
//! assert!(report.intact);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod tls;
mod transfer;

pub use tls::SERVER_NAME;
pub use transfer::{StreamPattern, TransferReport, transfer_with_controller};

use std::net::SocketAddr;
use std::sync::Arc;

use quinn::{
    ClientConfig, Connection, Endpoint, EndpointConfig, ServerConfig, TokioRuntime, TransportConfig,
};

use crate::config_error::ConfigError;
use crate::link::LinkConfig;
use crate::sim::{Side, SimLink};

/// What can go wrong setting up or running a quinn pair.
#[derive(Debug, thiserror::Error)]
pub enum QuinnPairError {
    /// The link configuration is invalid.
    #[error("invalid link configuration: {0}")]
    Config(#[from] ConfigError),
    /// Building the TLS configuration failed.
    #[error("TLS setup failed: {0}")]
    Tls(String),
    /// An endpoint could not be created.
    #[error("endpoint setup failed: {0}")]
    Io(#[from] std::io::Error),
    /// quinn reported an error during the run (`what` says at which step).
    #[error("quinn error while {what}: {message}")]
    Quinn {
        /// The step that failed.
        what: &'static str,
        /// quinn's error message.
        message: String,
    },
}

impl QuinnPairError {
    pub(crate) fn quinn(what: &'static str, error: impl std::fmt::Display) -> Self {
        Self::Quinn {
            what,
            message: error.to_string(),
        }
    }
}

/// Builder for a [`QuinnPair`].
#[derive(Debug)]
pub struct QuinnPairBuilder {
    link: crate::sim::SimLinkBuilder,
    seed: u64,
    client_transport: Arc<TransportConfig>,
    server_transport: Arc<TransportConfig>,
    record_timeline: bool,
}

impl QuinnPairBuilder {
    /// The client's transport config (default `TransportConfig::default()`, whose controller is
    /// quinn's Cubic).
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

    /// Builds the link and both endpoints. Call it inside the tokio runtime that will run them.
    pub fn build(self) -> Result<QuinnPair, QuinnPairError> {
        let link = self.link.record_timeline(self.record_timeline).build()?;
        let identity = tls::identity(self.seed)?;

        let mut server_config = ServerConfig::with_crypto(tls::server_crypto(&identity)?);
        server_config.transport_config(self.server_transport);
        let mut client_config = ClientConfig::new(tls::client_crypto(&identity)?);
        client_config.transport_config(self.client_transport);

        let endpoint_config = |label: &str| {
            let mut config = EndpointConfig::default();
            config.rng_seed(Some(tls::seed_bytes(self.seed, label)));
            config
        };
        let runtime = Arc::new(TokioRuntime);
        let server = Endpoint::new_with_abstract_socket(
            endpoint_config("quinn/server"),
            Some(server_config),
            link.quinn_socket(Side::B),
            runtime.clone(),
        )?;
        let mut client = Endpoint::new_with_abstract_socket(
            endpoint_config("quinn/client"),
            None,
            link.quinn_socket(Side::A),
            runtime,
        )?;
        client.set_default_client_config(client_config);
        Ok(QuinnPair {
            link,
            client,
            server,
            seed: self.seed,
        })
    }
}

/// A quinn client (endpoint A) and server (endpoint B) joined by a [`SimLink`].
#[derive(Debug)]
pub struct QuinnPair {
    link: SimLink,
    client: Endpoint,
    server: Endpoint,
    seed: u64,
}

impl QuinnPair {
    /// A builder for a pair over a link with `link` config, seeded with `seed`.
    pub fn builder(link: LinkConfig, seed: u64) -> QuinnPairBuilder {
        QuinnPairBuilder {
            link: SimLink::builder(link, seed),
            seed,
            client_transport: Arc::new(TransportConfig::default()),
            server_transport: Arc::new(TransportConfig::default()),
            record_timeline: false,
        }
    }

    /// A builder for a pair over a link carried by `medium` (see [`crate::Medium`]), e.g. the
    /// ns-3 backend; the endpoints and TLS are seeded from the medium's seed.
    pub fn with_medium(medium: Box<dyn crate::Medium>) -> QuinnPairBuilder {
        let seed = medium.seed();
        QuinnPairBuilder {
            link: SimLink::with_medium(medium),
            seed,
            client_transport: Arc::new(TransportConfig::default()),
            server_transport: Arc::new(TransportConfig::default()),
            record_timeline: false,
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
    /// Each side's connection runs inside a `tracing` span named `client` or `server` (target
    /// `netsim`), so that a subscriber can tell the two sides' quinn records apart.
    pub async fn connect(&self) -> Result<(Connection, Connection), QuinnPairError> {
        use tracing::Instrument;
        let connecting = tracing::debug_span!(target: "netsim", "client").in_scope(|| {
            self.client
                .connect(self.server_addr(), SERVER_NAME)
                .map_err(|e| QuinnPairError::quinn("starting the connection", e))
        })?;
        let accept = async {
            let incoming = self
                .server
                .accept()
                .await
                .ok_or_else(|| QuinnPairError::quinn("accepting", "server endpoint closed"))?;
            incoming
                .await
                .map_err(|e| QuinnPairError::quinn("accepting", e))
        }
        .instrument(tracing::debug_span!(target: "netsim", "server"));
        let client = async {
            connecting
                .await
                .map_err(|e| QuinnPairError::quinn("connecting", e))
        };
        let (client, server) = tokio::join!(client, accept);
        Ok((client?, server?))
    }
}
