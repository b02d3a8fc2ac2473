//! quiche-peer: cloudflare's quiche as an independent QUIC stack over netsim, as an interop peer
//! for the ports and as a Reno / CUBIC / BBR2 baseline.
//!
//! **Everything in this crate is behind the cargo feature `quiche`, which is off by default.**
//! quiche builds BoringSSL from source, which needs cmake, a C/C++ compiler and libclang (see
//! the crate's README.md); without the feature the crate compiles to this documentation only, so
//! `cargo test --workspace` works on a machine without them.
//!
//! # Why quiche is a peer and a baseline, not a host for the ports
//!
//! quiche (0.30) has no congestion-control plugin API: `quiche::CongestionControlAlgorithm` is a
//! closed enum (Reno, CUBIC, Bbr2Gcongestion) and its operations table is crate-private. So the
//! ports run in quinn, and quiche takes part as the other end of a connection (a quinn sender
//! running any port to a quiche receiver, a quiche sender to a quinn receiver) and as a second
//! stack's Reno / CUBIC / BBR2 (`QuicheCc`).
//!
//! # What it provides
//!
//! - A quiche endpoint driven over netsim's stack-neutral datagram API (`netsim::SimSocket`),
//!   as client and as server. quiche is sans-IO; the driver feeds it received datagrams
//!   (`recv`), sends what it produces (`send`), honours its pacing release times
//!   (`SendInfo::at`, within a horizon of `max_release_into_future`), and fires its timer
//!   (`timeout` / `on_timeout`).
//! - `TransferSpec`: one verified bulk transfer over an emulated link from a sender to a
//!   receiver, each either quiche (with a `QuicheCc`) or quinn (with any
//!   `quinn::TransportConfig`, e.g. one of the ports' `ControllerFactory`s), returning a
//!   `TransferReport` (goodput, throughput, losses, retransmissions, RTT, link accounting).
//!   The sender is always the client and netsim endpoint A, so the link's `a_to_b` direction
//!   carries the data, as in `netsim::quinn_pair`.
//!
//! # Interop details
//!
//! - ALPN: `ALPN` (`netsim`), the protocol `netsim::quinn_pair` offers on both sides; the
//!   certificate is issued for `netsim::quinn_pair::SERVER_NAME`.
//! - TLS: a fresh self-signed ECDSA P-256 certificate from rcgen per run. quiche's server loads
//!   it from PEM files written to a temporary directory (`load_cert_chain_from_pem_file`,
//!   `load_priv_key_from_pem_file`). **Both clients verify the server**: quiche's client trusts
//!   exactly that certificate (`load_verify_locations_from_file`, `verify_peer(true)`, host name
//!   checked against the server name), quinn's client (rustls) trusts exactly that certificate
//!   too. Verification costs nothing here and a handshake that skipped it would not test what a
//!   deployment does.
//! - Stream content: `netsim::quinn_pair::StreamPattern` for the run seed; the receiver checks
//!   every byte.
//!
//! # Time
//!
//! quiche reads the system clock itself (`std::time::Instant::now()`, no clock injection), so a
//! transfer with a quiche endpoint must run on netsim's real-time runtime
//! (`netsim::real_runtime`). Asking for virtual time is `Error::VirtualTimeUnsupported`:
//! `check_clock` refuses it up front, and `TransferSpec::run` detects a paused tokio clock
//! and refuses to start. Such runs are not bit-reproducible either: quiche's RNG is BoringSSL's
//! and the timing is the machine's. quinn-to-quinn transfers run in either clock.
//!
//! ```no_run
//! # #[cfg(feature = "quiche")]
//! # fn main() -> Result<(), quiche_peer::Error> {
//! use std::time::Duration;
//! use netsim::{DirectionConfig, ErrorModelConfig, LinkConfig, Rate};
//! use quiche_peer::{Amount, QuicheCc, TransferSpec};
//!
//! let link = LinkConfig::symmetric(DirectionConfig {
//!     rate: Rate::from_mbps(20),
//!     delay: Duration::from_millis(10),
//!     errors: vec![ErrorModelConfig::Per { p: 0.005 }],
//!     ..DirectionConfig::default()
//! });
//! let amount = Amount::Bytes { bytes: 2_000_000, timeout: Duration::from_secs(20) };
//! let report = TransferSpec::quiche_to_quiche(link, 7, QuicheCc::Cubic, amount).run_blocking()?;
//! assert!(report.intact);
//! println!("{:.2} Mb/s", report.goodput_bps / 1e6);
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "quiche"))]
//! # fn main() {}
//! ```

#![deny(missing_docs)]
// The crate docs name items in backticks, not intra-doc links: without the feature the items
// do not exist and the links would not resolve.

#[cfg(feature = "quiche")]
mod cc;
#[cfg(feature = "quiche")]
mod clock;
#[cfg(feature = "quiche")]
mod error;
#[cfg(feature = "quiche")]
mod progress;
#[cfg(feature = "quiche")]
mod quiche_endpoint;
#[cfg(feature = "quiche")]
mod quinn_endpoint;
#[cfg(feature = "quiche")]
mod report;
#[cfg(feature = "quiche")]
mod tls;
#[cfg(feature = "quiche")]
mod transfer;

#[cfg(feature = "quiche")]
pub use cc::{ParseQuicheCcError, QuicheCc};
#[cfg(feature = "quiche")]
pub use clock::{check_clock, runtime_clock_is_paused};
#[cfg(feature = "quiche")]
pub use error::Error;
#[cfg(feature = "quiche")]
pub use report::{SenderStats, Stack, TransferReport};
#[cfg(feature = "quiche")]
pub use tls::ALPN;
#[cfg(feature = "quiche")]
pub use transfer::{Amount, PeerConfig, QuicheSettings, TransferSpec};
