//! Congestion-window arithmetic every controller shares: the minimum window, MTU changes,
//! NewReno's byte-counting growth, and overflow-safe scaling.

/// Largest window any controller reports: far above any real path, far below overflow, so
/// that `window + bytes` in quinn and in our own arithmetic can never wrap.
pub const MAX_WINDOW: u64 = 1 << 48;

/// Packets in the minimum window: RFC 9002 section 7.2, kMinimumWindow = 2 x max_datagram_size.
pub const MIN_WINDOW_PACKETS: u64 = 2;

/// The congestion window and slow-start threshold, in bytes, with the datagram size they are
/// counted in.
///
/// Every setter clamps into `[minimum_window, MAX_WINDOW]` for the window and
/// `[minimum_window, MAX_WINDOW]` for ssthresh (an "infinite" ssthresh is `MAX_WINDOW`), so no
/// sequence of calls can produce a window below RFC 9002's minimum or an overflow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// Congestion window, bytes.
    cwnd: u64,
    /// Slow-start threshold, bytes; `MAX_WINDOW` until the first reduction.
    ssthresh: u64,
    /// Current maximum datagram size (the papers' segment), bytes.
    mtu: u64,
    /// The initial window in datagrams, for [`Self::initial`].
    initial_packets: u64,
}

impl Window {
    /// A window of `initial_packets` datagrams of `mtu` bytes and an unbounded ssthresh.
    pub fn new(initial_packets: u64, mtu: u16) -> Self {
        let mut w = Self {
            cwnd: 0,
            ssthresh: MAX_WINDOW,
            mtu: u64::from(mtu.max(1)),
            initial_packets,
        };
        w.set_cwnd(initial_packets.saturating_mul(w.mtu));
        w
    }

    /// Congestion window, bytes.
    pub fn cwnd(&self) -> u64 {
        self.cwnd
    }

    /// Slow-start threshold, bytes.
    pub fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    /// The initial window at the current datagram size, bytes (quinn's `initial_window`).
    pub fn initial(&self) -> u64 {
        self.bytes_for_packets(self.initial_packets)
    }

    /// Datagram size, bytes.
    pub fn mtu(&self) -> u64 {
        self.mtu
    }

    /// The congestion window in whole datagrams (rounded down).
    pub fn cwnd_packets(&self) -> u64 {
        self.cwnd / self.mtu
    }

    /// RFC 9002's minimum window, `2 x mtu` bytes.
    pub fn minimum(&self) -> u64 {
        MIN_WINDOW_PACKETS * self.mtu
    }

    /// `packets` datagrams in bytes, within `[minimum, MAX_WINDOW]` (e.g. an initial window).
    pub fn bytes_for_packets(&self, packets: u64) -> u64 {
        packets
            .saturating_mul(self.mtu)
            .clamp(self.minimum(), MAX_WINDOW)
    }

    /// Whether the window is below ssthresh (slow start).
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// Sets the window, clamped into `[minimum, MAX_WINDOW]`.
    pub fn set_cwnd(&mut self, bytes: u64) {
        self.cwnd = bytes.clamp(self.minimum(), MAX_WINDOW);
    }

    /// Sets ssthresh, clamped into `[minimum, MAX_WINDOW]`.
    pub fn set_ssthresh(&mut self, bytes: u64) {
        self.ssthresh = bytes.clamp(self.minimum(), MAX_WINDOW);
    }

    /// Adds `bytes` to the window (saturating, then clamped).
    pub fn grow(&mut self, bytes: u64) {
        self.set_cwnd(self.cwnd.saturating_add(bytes));
    }

    /// Takes `bytes` off the window (clamped at the minimum).
    pub fn shrink(&mut self, bytes: u64) {
        self.set_cwnd(self.cwnd.saturating_sub(bytes));
    }

    /// A new datagram size (quinn's `on_mtu_update`). Window and ssthresh keep their byte
    /// values, as quinn's NewReno does, but never fall below the new minimum.
    pub fn set_mtu(&mut self, mtu: u16) {
        self.mtu = u64::from(mtu.max(1));
        self.set_cwnd(self.cwnd);
        self.set_ssthresh(self.ssthresh);
    }
}

/// `d` in nanoseconds, `u64::MAX` beyond (585 years): `as_nanos` without its 128-bit product,
/// for per-ACK code.
#[inline]
pub fn saturating_ns(d: std::time::Duration) -> u64 {
    d.as_secs()
        .checked_mul(1_000_000_000)
        .and_then(|ns| ns.checked_add(u64::from(d.subsec_nanos())))
        .unwrap_or(u64::MAX)
}

/// `value x factor` for a factor in `[0, 1]`, computed without overflow or float surprises.
///
/// Non-finite or negative factors give 0 and factors above 1 give `value`, so the result is
/// always within `[0, value]`.
pub fn scale(value: u64, factor: f64) -> u64 {
    if factor.is_nan() || factor <= 0.0 {
        return 0;
    }
    if factor >= 1.0 {
        return value;
    }
    // u64 -> f64 loses precision above 2^53 only; MAX_WINDOW is 2^48.
    ((value as f64) * factor) as u64
}

/// The smallest power of two that is `>= n` (1 for 0), saturating at `2^63`.
pub fn next_power_of_two(n: u64) -> u64 {
    n.checked_next_power_of_two().unwrap_or(1 << 63)
}

/// NewReno's window growth with byte counting (RFC 9002 section 7.3; quinn `new_reno.rs`):
/// in slow start the window grows by the acknowledged bytes, in congestion avoidance by one
/// datagram per window's worth of acknowledged bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RenoGrowth {
    /// Bytes acknowledged in congestion avoidance since the window last grew.
    bytes_acked: u64,
}

impl RenoGrowth {
    /// Grows `window` for `bytes` newly acknowledged.
    pub fn on_ack(&mut self, window: &mut Window, bytes: u64) {
        if window.in_slow_start() {
            // Slow start: +1 segment per acknowledged segment (Karak Table 1 "cwnd = cwnd + 1").
            window.grow(bytes);
        } else {
            // Congestion avoidance: +1/cwnd per segment, i.e. +1 segment per window of bytes.
            self.bytes_acked = self.bytes_acked.saturating_add(bytes);
            if self.bytes_acked >= window.cwnd() {
                self.bytes_acked -= window.cwnd();
                window.grow(window.mtu());
            }
        }
    }

    /// Forgets partial progress (after a window reduction).
    pub fn reset(&mut self) {
        self.bytes_acked = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_below_minimum_nor_above_max() {
        let mut w = Window::new(10, 1200);
        assert_eq!(w.cwnd(), 12_000);
        w.set_cwnd(0);
        assert_eq!(w.cwnd(), 2400);
        w.shrink(u64::MAX);
        assert_eq!(w.cwnd(), 2400);
        w.grow(u64::MAX);
        assert_eq!(w.cwnd(), MAX_WINDOW);
        w.set_ssthresh(1);
        assert_eq!(w.ssthresh(), 2400);
    }

    #[test]
    fn mtu_change_raises_the_floor() {
        let mut w = Window::new(2, 1200);
        w.set_mtu(1500);
        // 2 x 1200 = 2400 < new minimum 3000.
        assert_eq!(w.cwnd(), 3000);
        assert_eq!(w.ssthresh(), MAX_WINDOW);
        w.set_mtu(0);
        assert_eq!(
            w.mtu(),
            1,
            "a zero MTU is treated as 1 byte, not a division by zero"
        );
    }

    #[test]
    fn scale_stays_in_range() {
        assert_eq!(scale(64_000, 0.5), 32_000);
        assert_eq!(scale(64_000, 0.125), 8_000);
        assert_eq!(scale(64_000, f64::NAN), 0);
        assert_eq!(scale(64_000, -1.0), 0);
        assert_eq!(scale(64_000, 7.0), 64_000);
        assert_eq!(scale(u64::MAX, 0.999), ((u64::MAX as f64) * 0.999) as u64);
    }

    #[test]
    fn powers_of_two() {
        assert_eq!(next_power_of_two(0), 1);
        assert_eq!(next_power_of_two(8), 8);
        assert_eq!(next_power_of_two(9), 16);
        assert_eq!(next_power_of_two(u64::MAX), 1 << 63);
    }

    #[test]
    fn reno_growth_matches_byte_counting() {
        let mut w = Window::new(10, 1000);
        let mut g = RenoGrowth::default();
        g.on_ack(&mut w, 1000);
        assert_eq!(w.cwnd(), 11_000, "slow start: +acked bytes");
        w.set_ssthresh(11_000);
        // Congestion avoidance: 11 acks of 1000 bytes = one window -> +1 mtu.
        for _ in 0..10 {
            g.on_ack(&mut w, 1000);
        }
        assert_eq!(w.cwnd(), 11_000);
        g.on_ack(&mut w, 1000);
        assert_eq!(w.cwnd(), 12_000);
    }
}
