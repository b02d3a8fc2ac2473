//! The stack-agnostic algorithm interface every controller crate implements.

use crate::{AckRoundEnd, AckSample, CongestionEvent, Window};
use std::fmt::Debug;
use std::time::Instant;

/// A congestion-control algorithm fed plain samples and classified loss signals.
///
/// [`crate::PortController`] turns quinn's `Controller` callbacks into calls on this trait, after
/// decoding each congestion event into a [`crate::LossSignal`]. Implementations hold no quinn
/// types, so table-driven tests can drive them with plain `Duration`s and byte counts.
///
/// Contract: no method panics on any input (including `sent > now`, zero bytes, events before
/// the first RTT sample), and [`window`](Self::window) is always at least `2 x mtu` bytes.
pub trait CongestionAlgorithm: Clone + Debug + Send + Sync + 'static {
    /// A short name for tracing and reports (`"karak"`, `"petra"`, ...).
    const NAME: &'static str;

    /// Which QUIC event this algorithm reads as its paper's TCP timeout unless the
    /// [`crate::SignalConfig`] says otherwise (docs/DESIGN.md section 3 gives each port's reason).
    const TIMEOUT_READING: crate::TimeoutReading;

    /// A transmit pass sent `bytes`, the last packet numbered `last_packet_number` (quinn's
    /// `on_sent`; quinn calls it once per transmit pass, not per datagram).
    fn on_sent(&mut self, now: Instant, bytes: u64, last_packet_number: u64) {
        let _ = (now, bytes, last_packet_number);
    }

    /// One ack-eliciting packet was acknowledged.
    fn on_ack(&mut self, ack: &AckSample);

    /// One ACK frame has been processed.
    fn on_end_acks(&mut self, end: &AckRoundEnd) {
        let _ = end;
    }

    /// A classified congestion event.
    fn on_congestion(&mut self, event: &CongestionEvent);

    /// The congestion window and slow-start threshold.
    fn window_state(&self) -> &Window;

    /// The congestion window and slow-start threshold, to change.
    fn window_state_mut(&mut self) -> &mut Window;

    /// The datagram size changed. Default: window and ssthresh keep their byte values, never
    /// below the new minimum ([`Window::set_mtu`]).
    fn on_mtu_update(&mut self, mtu: u16) {
        self.window_state_mut().set_mtu(mtu);
    }

    /// Congestion window, bytes.
    fn window(&self) -> u64 {
        self.window_state().cwnd()
    }

    /// Slow-start threshold, bytes (reported in quinn's metrics and qlog).
    fn ssthresh(&self) -> u64 {
        self.window_state().ssthresh()
    }

    /// Pacing rate, bits per second, where the algorithm sets one.
    fn pacing_rate(&self) -> Option<u64> {
        None
    }

    /// Initial congestion window, bytes: the window the algorithm started from, at the current
    /// datagram size.
    fn initial_window(&self) -> u64 {
        self.window_state().initial()
    }
}
