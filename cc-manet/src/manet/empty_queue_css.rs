//! `empty_queue_css`: conservative slow start below the bound (HyStart++, RFC 9406 sections
//! 4.2-4.3, `CSS_GROWTH_DIVISOR` = 4). In a round that follows one whose backlog was under one
//! packet (Vegas' slow-start exit threshold: the pipe is not full), the window grows by a
//! quarter of the bytes acknowledged, 1.25x per round trip, instead of a datagram per round
//! trip. A round's samples are of the packets sent in the round before it, so a window grown
//! this way is measured a round later: it regains at once a window a round has measured clear
//! (as CUBIC climbs fast back to `W_max`, RFC 9438 section 4.2), and past it grows only every
//! other round trip (Vegas' slow start, Brakmo and Peterson 1995, section 3.3).

use super::slow_start_exit::EXIT_BACKLOG;

/// HyStart++'s conservative slow start grows by the acknowledged bytes over this (RFC 9406
/// section 4.3: `CSS_GROWTH_DIVISOR` = 4).
pub const CSS_GROWTH_DIVISOR: u64 = 4;

/// The windows conservative slow start measures against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClearWindow {
    /// The window at the end of the last round, before its decision, bytes: the largest window
    /// the packets whose samples end the next round were sent at.
    pub sent_cwnd: u64,
    /// The largest window a round measured with a backlog under one packet, bytes; lowered to
    /// the window whenever a round shows a standing queue, and zero once the base RTT is
    /// forgotten.
    pub clear_cwnd: u64,
}

/// What a growing round (`backlog_bound`'s `Grow`) means for the next one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    /// The largest window measured clear, bytes, after this round.
    pub clear_cwnd: u64,
    /// Whether the next round grows as conservative slow start.
    pub conservative: bool,
}

/// A growing round with a backlog of `diff` packets, measured at `measured_cwnd` bytes, the
/// window now `cwnd` bytes of `mtu`: a clear round (under one packet of backlog) raises the
/// clear window to what it measured; the next round grows conservatively when this one was
/// clear and the window is either within a datagram of the measured one or still below the
/// clear window.
pub fn after_growing_round(
    diff: f64,
    cwnd: u64,
    measured_cwnd: u64,
    mtu: u64,
    clear_cwnd: u64,
) -> Verdict {
    let clear = diff < EXIT_BACKLOG;
    let clear_cwnd = if clear {
        clear_cwnd.max(measured_cwnd)
    } else {
        clear_cwnd
    };
    Verdict {
        clear_cwnd,
        conservative: clear && (cwnd <= measured_cwnd.saturating_add(mtu) || cwnd < clear_cwnd),
    }
}

/// Bytes conservative slow start adds for `acked` bytes acknowledged.
pub fn increase(acked: u64) -> u64 {
    acked / CSS_GROWTH_DIVISOR
}

#[cfg(test)]
mod tests {
    use super::*;

    const MTU: u64 = 1200;

    #[test]
    fn a_clear_round_at_the_measured_window_grows_conservatively() {
        let v = after_growing_round(0.5, 10 * MTU, 10 * MTU, MTU, 0);
        assert_eq!(v.clear_cwnd, 10 * MTU);
        assert!(v.conservative);
    }

    #[test]
    fn past_the_measured_window_it_waits_a_round_unless_regaining_a_clear_one() {
        // Grown to 13 datagrams on samples of 10: not measured yet, so no growth this round.
        let v = after_growing_round(0.5, 13 * MTU, 10 * MTU, MTU, 10 * MTU);
        assert!(!v.conservative);
        // Below a window a round measured clear (20 datagrams): regained at once.
        let v = after_growing_round(0.5, 13 * MTU, 10 * MTU, MTU, 20 * MTU);
        assert!(v.conservative);
        assert_eq!(v.clear_cwnd, 20 * MTU);
    }

    #[test]
    fn a_round_with_a_packet_of_backlog_is_not_clear() {
        let v = after_growing_round(1.0, 10 * MTU, 10 * MTU, MTU, 4 * MTU);
        assert_eq!(
            v,
            Verdict {
                clear_cwnd: 4 * MTU,
                conservative: false
            }
        );
    }

    #[test]
    fn grows_a_quarter_of_the_acknowledged_bytes() {
        assert_eq!(increase(4800), 1200);
        assert_eq!(increase(3), 0);
    }
}
