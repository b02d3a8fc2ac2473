//! Mixed pairs: a quinn client with a noq server, and a noq client with a quinn server, over one
//! [`SimLink`] (feature `noq`). noq is a fork of quinn; these pairs check that the two stacks
//! still speak the same QUIC, and let a controller on one stack be measured against a peer on the
//! other. The endpoints are the single-stack pairs' own (`quinn_pair`, `noq_pair`), seeded the
//! same way, so a run is reproducible from its seed.

use std::sync::Arc;

use crate::config_error::ConfigError;
use crate::link::LinkConfig;
use crate::pair::tls;
use crate::sim::{Side, SimLink};
use crate::{noq_pair, quinn_pair};

/// What can go wrong setting up or running a mixed pair.
#[derive(Debug, thiserror::Error)]
pub enum InteropPairError {
    /// The link configuration is invalid.
    #[error("invalid link configuration: {0}")]
    Config(#[from] ConfigError),
    /// The quinn end failed.
    #[error(transparent)]
    Quinn(#[from] quinn_pair::QuinnPairError),
    /// The noq end failed.
    #[error(transparent)]
    Noq(#[from] noq_pair::NoqPairError),
    /// TLS setup failed.
    #[error("TLS setup failed: {0}")]
    Tls(String),
}

/// Declares a mixed pair: a client from one stack's pair module, a server from the other's.
macro_rules! interop_pair {
    (
        $(#[$meta:meta])*
        $Pair:ident, $Builder:ident,
        client: $cq:ident / $cm:ident / $CE:ident,
        server: $sq:ident / $sm:ident / $SE:ident
    ) => {
        #[doc = concat!("Builder for a [`", stringify!($Pair), "`].")]
        #[derive(Debug)]
        pub struct $Builder {
            link: crate::sim::SimLinkBuilder,
            seed: u64,
            client_transport: Arc<$cq::TransportConfig>,
            server_transport: Arc<$sq::TransportConfig>,
        }

        impl $Builder {
            /// The client's transport config.
            pub fn client_transport(mut self, transport: Arc<$cq::TransportConfig>) -> Self {
                self.client_transport = transport;
                self
            }

            /// The server's transport config.
            pub fn server_transport(mut self, transport: Arc<$sq::TransportConfig>) -> Self {
                self.server_transport = transport;
                self
            }

            /// Builds the link and both endpoints, inside the runtime that will run them.
            pub fn build(self) -> Result<$Pair, InteropPairError> {
                let link = self.link.build()?;
                let identity = tls::identity(self.seed).map_err(InteropPairError::Tls)?;
                let server =
                    $sm::server_endpoint(
                        &link,
                        &identity,
                        self.seed,
                        self.server_transport,
                        crate::PacketProtection::Tls,
                    )?;
                let (client, client_config) =
                    $cm::client_endpoint(
                        &link,
                        &identity,
                        self.seed,
                        self.client_transport,
                        crate::PacketProtection::Tls,
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

        $(#[$meta])*
        #[derive(Debug)]
        pub struct $Pair {
            link: SimLink,
            client: $cq::Endpoint,
            client_config: $cq::ClientConfig,
            server: $sq::Endpoint,
            seed: u64,
            /// Client endpoints of their own (`connect_behind`), kept for the pair's life.
            attached: std::sync::Mutex<Vec<$cq::Endpoint>>,
        }

        impl $Pair {
            /// A builder for a pair over a link with `link` config, seeded with `seed`.
            pub fn builder(link: LinkConfig, seed: u64) -> $Builder {
                $Builder {
                    link: SimLink::builder(link, seed),
                    seed,
                    client_transport: Arc::default(),
                    server_transport: Arc::default(),
                }
            }

            /// A builder for a pair over a link carried by `medium` (e.g. ns-3).
            pub fn with_medium(medium: Box<dyn crate::Medium>) -> $Builder {
                let seed = medium.seed();
                $Builder {
                    link: SimLink::with_medium(medium),
                    seed,
                    client_transport: Arc::default(),
                    server_transport: Arc::default(),
                }
            }

            /// The emulated link.
            pub fn link(&self) -> &SimLink {
                &self.link
            }

            /// Opens a connection: `(client side, server side)`, each in a `client` or
            /// `server` span as the single-stack pairs do.
            pub async fn connect(
                &self,
            ) -> Result<($cq::Connection, $sq::Connection), InteropPairError> {
                self.connect_using(self.client_config.clone()).await
            }

            /// Opens a connection whose client side runs `transport` instead of the client
            /// endpoint's (see the single-stack pairs' `connect_with`).
            pub async fn connect_with(
                &self,
                transport: Arc<$cq::TransportConfig>,
            ) -> Result<($cq::Connection, $sq::Connection), InteropPairError> {
                let mut config = self.client_config.clone();
                config.transport_config(transport);
                self.connect_using(config).await
            }

            /// Opens a connection from a client endpoint of its own behind an access link of
            /// `access_delay` one way (see the single-stack pairs' `connect_behind`).
            pub async fn connect_behind(
                &self,
                access_delay: std::time::Duration,
                transport: Option<Arc<$cq::TransportConfig>>,
            ) -> Result<($cq::Connection, $sq::Connection), InteropPairError> {
                let endpoint =
                    $cm::attached_client(&self.link, self.seed, &self.attached, access_delay)?;
                let mut config = self.client_config.clone();
                if let Some(transport) = transport {
                    config.transport_config(transport);
                }
                self.connect_on(&endpoint, config).await
            }

            async fn connect_using(
                &self,
                config: $cq::ClientConfig,
            ) -> Result<($cq::Connection, $sq::Connection), InteropPairError> {
                self.connect_on(&self.client, config).await
            }

            async fn connect_on(
                &self,
                client: &$cq::Endpoint,
                config: $cq::ClientConfig,
            ) -> Result<($cq::Connection, $sq::Connection), InteropPairError> {
                use tracing::Instrument;
                let server_addr = self.link.addr(Side::B);
                let connecting = tracing::debug_span!(target: "netsim", "client").in_scope(|| {
                    client
                        .connect_with(config, server_addr, tls::SERVER_NAME)
                        .map_err(|e| $cm::$CE::stack("starting the connection", e))
                })?;
                let accept = async {
                    let incoming = self.server.accept().await.ok_or_else(|| {
                        $sm::$SE::stack("accepting", "server endpoint closed")
                    })?;
                    incoming
                        .await
                        .map_err(|e| $sm::$SE::stack("accepting", e))
                }
                .instrument(tracing::debug_span!(target: "netsim", "server"));
                let client = async {
                    connecting
                        .await
                        .map_err(|e| $cm::$CE::stack("connecting", e))
                };
                let (client, server) = tokio::join!(client, accept);
                Ok((client?, server?))
            }
        }
    };
}

interop_pair! {
    /// A quinn client (endpoint A) and a noq server (endpoint B).
    QuinnToNoq, QuinnToNoqBuilder,
    client: quinn / quinn_pair / QuinnPairError,
    server: noq / noq_pair / NoqPairError
}

interop_pair! {
    /// A noq client (endpoint A) and a quinn server (endpoint B).
    NoqToQuinn, NoqToQuinnBuilder,
    client: noq / noq_pair / NoqPairError,
    server: quinn / quinn_pair / QuinnPairError
}
