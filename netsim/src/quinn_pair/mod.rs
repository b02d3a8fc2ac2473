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

mod null_protection;

crate::pair::quic_pair! {
    stack: quinn,
    null_protection: null_protection,
    label: "quinn",
    socket: into_quinn,
    pair: QuinnPair,
    builder: QuinnPairBuilder,
    error: QuinnPairError,
    stack_error: Quinn
}
