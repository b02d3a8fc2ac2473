//! A constant window: the reference controller.

use std::sync::Arc;

use cc_core::{AckSample, CongestionAlgorithm, CongestionEvent, TimeoutReading, Window};

use crate::FixedWindowConfig;

/// A window of [`FixedWindowConfig::packets`] datagrams that no ACK or loss changes. Swept over
/// its size, it gives each path's best fixed window: the ceiling a window-based controller can
/// reach there (netsim-ns3's `chain_windows` measures it for ns-3's chains).
#[derive(Debug, Clone, PartialEq)]
pub struct FixedWindow {
    config: Arc<FixedWindowConfig>,
    window: Window,
}

impl FixedWindow {
    /// A controller whose datagrams are `mtu` bytes.
    pub fn new(config: impl Into<Arc<FixedWindowConfig>>, mtu: u16) -> Self {
        let config = config.into();
        let mut window = Window::new(config.packets(), mtu);
        // Neither slow start nor a threshold: ssthresh at the window.
        window.set_ssthresh(window.cwnd());
        Self { config, window }
    }
}

impl CongestionAlgorithm for FixedWindow {
    const NAME: &'static str = "fixed";
    const TIMEOUT_READING: TimeoutReading = TimeoutReading::PersistentCongestion;

    fn on_ack(&mut self, _ack: &AckSample) {}

    fn on_congestion(&mut self, _event: &CongestionEvent) {}

    fn window_state(&self) -> &Window {
        &self.window
    }

    fn window_state_mut(&mut self) -> &mut Window {
        &mut self.window
    }

    fn on_mtu_update(&mut self, mtu: u16) {
        // The same count of (larger) datagrams.
        self.window = Self::new(Arc::clone(&self.config), mtu).window;
    }
}
