//! One file per QUIC stack: where [`crate::PortController`] and [`crate::PortFactory`] meet a
//! stack's `Controller` and `ControllerFactory` traits, and where a port is installed on its
//! `TransportConfig` ([`crate::Transport`]). Each is behind the cargo feature of its name.

#[cfg(feature = "iroh")]
mod iroh;
#[cfg(feature = "noq")]
mod noq;
#[cfg(feature = "quinn")]
mod quinn;
