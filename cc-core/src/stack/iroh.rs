//! The ports on iroh's transport builder (iroh 1.x, whose QUIC is noq): the port's controller
//! and the loss thresholds its classifier reads, set together, as on noq's own
//! `TransportConfig` (`stack/noq.rs`).
//!
//! iroh wraps noq's `TransportConfig` in `QuicTransportConfigBuilder`, whose setters take and
//! return the builder by value; [`Transport::install_port`] takes it by `&mut`, so the builder
//! is moved out and back through a fresh default one.

use crate::{PortConfig, PortFactory, Transport};
use iroh::endpoint::{QuicTransportConfig, QuicTransportConfigBuilder};
use std::sync::Arc;

impl Transport for QuicTransportConfigBuilder {
    fn install_port<C: PortConfig>(&mut self, config: C) {
        let signal = config.signal();
        let (packet, time) = (signal.packet_threshold(), signal.time_threshold());
        let builder = std::mem::replace(self, QuicTransportConfig::builder());
        *self = builder
            .packet_threshold(packet)
            .time_threshold(time)
            .congestion_controller_factory(Arc::new(PortFactory::new(config)));
    }
}
