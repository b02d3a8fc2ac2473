//! `slow_start_exit`: Vegas' slow-start exit (Brakmo and Peterson, IEEE JSAC 1995, section 3.3;
//! Linux `tcp_vegas.c`). Slow start ends when a round's backlog exceeds one packet (Linux's
//! gamma), instead of at the first loss; with `backlog_bound` only.

use cc_core::Window;

/// Vegas' slow-start exit backlog, packets (Linux `tcp_vegas.c`: gamma = 1). Below it the pipe
/// is not full, and `empty_queue_css` grows the next round as conservative slow start.
pub const EXIT_BACKLOG: f64 = 1.0;

/// Whether a round with a backlog of `diff` packets ends slow start.
pub fn exits(diff: f64) -> bool {
    diff > EXIT_BACKLOG
}

/// The window on leaving slow start, from the round's backlog-free window `target_bytes`
/// (Linux `tcp_vegas.c`): `cwnd = min(cwnd, target + 1 segment)`,
/// `ssthresh = min(ssthresh, cwnd - 1 segment)`.
pub fn exit_window(window: &Window, target_bytes: u64) -> Window {
    let mut window = window.clone();
    window.set_cwnd(window.cwnd().min(target_bytes.saturating_add(window.mtu())));
    super::backlog_bound::ssthresh_below_cwnd(&mut window);
    window
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exits_above_one_packet_of_backlog() {
        assert!(!exits(1.0));
        assert!(exits(1.01));
    }

    #[test]
    fn the_window_falls_to_the_backlog_free_window_plus_one_datagram() {
        // 20 datagrams in flight, 12 of them the pipe: 13 datagrams, ssthresh 12.
        let window = Window::new(20, 1200);
        let after = exit_window(&window, 12 * 1200);
        assert_eq!(after.cwnd(), 13 * 1200);
        assert_eq!(after.ssthresh(), 12 * 1200);
        // A backlog-free window above the window never raises it.
        let after = exit_window(&window, 40 * 1200);
        assert_eq!(after.cwnd(), 20 * 1200);
    }
}
