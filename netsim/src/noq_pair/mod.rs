//! A noq client/server pair over a [`SimLink`] (noq: iroh's QUIC, a fork of quinn), for tests,
//! benchmarks and experiments; the same as [`crate::quinn_pair`] in every respect but the
//! stack (both are declared once, by [`crate::pair`]).
//!
//! ```no_run
//! use std::sync::Arc;
//! use netsim::noq_pair::NoqPair;
//! use netsim::{LinkConfig, virtual_runtime};
//!
//! let runtime = virtual_runtime()?;
//! let report = runtime.block_on(async {
//!     let mut transport = noq::TransportConfig::default();
//!     transport.congestion_controller_factory(Arc::new(noq::congestion::NewRenoConfig::default()));
//!     let pair = NoqPair::builder(LinkConfig::default(), 7)
//!         .client_transport(Arc::new(transport))
//!         .build()?;
//!     pair.transfer(1_000_000).await
//! })?;
//! assert!(report.intact);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod null_protection;

crate::pair::quic_pair! {
    stack: noq,
    null_protection: null_protection,
    label: "noq",
    socket: into_noq,
    pair: NoqPair,
    builder: NoqPairBuilder,
    error: NoqPairError,
    stack_error: Noq
}
