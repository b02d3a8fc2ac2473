//! The `tracing` vocabulary every controller uses, so one filter and one set of field names
//! covers all five.
//!
//! Target `cc` for every event. Fields:
//!
//! | field | meaning |
//! |---|---|
//! | `controller` | the algorithm's name (`karak`, `petra`, ...) |
//! | `decision` | which branch of the paper's pseudo-code ran (`halve`, `cut_to_eighth`, ...) |
//! | `class` | the [`crate::LossSignal`] name (`fast_retransmit`, `timeout1`, `ecn`, ...) |
//! | `dup_acks` | the duplicate-ACK equivalent `d` (absent for fast retransmit and ECN) |
//! | `determined` | whether quinn's callbacks determined the class |
//! | `detected`, `detected_dup_acks`, `detected_determined` | the class by distance alone, reading `time_threshold` (what the ground-truth tests check) |
//! | `persistent`, `after_probe_timeout` | quinn flagged persistent congestion; the loss followed an inferred probe timeout |
//! | `largest_acked`, `lost_pn` | the packet numbers the class was read from |
//! | `cwnd`, `ssthresh` | the window and threshold after the decision, bytes |
//!
//! Controllers add their own estimator fields beside these (`ebw_bps`, `base_rtt_us`, ...).

use crate::Classification;

/// Emits the `loss signal` event (debug level) for a classified congestion event.
pub fn loss_signal(controller: &'static str, c: &Classification) {
    tracing::debug!(
        target: "cc",
        controller,
        class = c.signal.name(),
        dup_acks = c.signal.dup_acks(),
        determined = c.determined,
        detected = c.detected.name(),
        detected_dup_acks = c.detected.dup_acks(),
        detected_determined = c.detected_determined,
        persistent = c.persistent,
        after_probe_timeout = c.after_probe_timeout,
        largest_acked = c.largest_acked,
        lost_pn = c.lost_pn,
        "loss signal"
    );
}

/// Emits a `window decision` event (debug level) after a controller changed its window.
pub fn window_decision(
    controller: &'static str,
    decision: &'static str,
    class: Option<crate::LossSignal>,
    cwnd: u64,
    ssthresh: u64,
) {
    tracing::debug!(
        target: "cc",
        controller,
        decision,
        class = class.map(|c| c.name()),
        dup_acks = class.and_then(|c| c.dup_acks()),
        cwnd,
        ssthresh,
        "window decision"
    );
}
