//! `SackFewConfig`: the paper's knobs, declared once.

use crate::SackFew;
use cc_core::Range;

cc_core::port_config! {
    /// Configuration of [`SackFew`].
    ///
    /// `Default` is the paper's section 2.2: `alpha = 0.01`, with NewReno's halving of ssthresh
    /// on a loss, on QUIC's initial window of 10 datagrams.
    ///
    /// ```
    /// let mut few = cc_sackfew::SackFewConfig::default();
    /// few.set_alpha(0.1)?;
    /// let mut transport = quinn::TransportConfig::default();
    /// few.install(&mut transport);
    /// # Ok::<(), cc_sackfew::ConfigError>(())
    /// ```
    pub struct SackFewConfig for SackFew {
        name: "sackfew",
        summary: "SACK-FeW: fractional window increment (cc-sackfew)",
        revision: 1,
        knobs: {
            /// The fractional increment alpha, packets per round trip: the window grows by
            /// `alpha / cwnd` packets per acknowledged packet (section 2.2 step 1; section 2.1
            /// allows `0 <= alpha <= 1`). With 0 the window never grows. See the crate docs for
            /// what 0.01 and 1 mean in seconds.
            alpha: f64 = SackFewConfig::DEFAULT_ALPHA, Range::Real { min: 0.0, max: 1.0, unit: "" };
            /// Initial window in datagrams (RFC 9002 section 7.2 allows
            /// `min(10 x mtu, max(14720, 2 x mtu))`; quinn's NewReno uses 14720 bytes).
            initial_window_packets: u64 = 10, Range::INITIAL_WINDOW_PACKETS;
            /// ssthresh multiplier on a loss ("ssthresh set as NewReno"): after a loss
            /// `ssthresh = cwnd x factor` and `cwnd = min(cwnd, ssthresh)` (RFC 5681 eq. 4).
            loss_reduction_factor: f64 = 0.5, Range::UnitFactor;
        }
    }
}

impl SackFewConfig {
    /// The paper's alpha (section 2.2 step 1).
    pub const DEFAULT_ALPHA: f64 = 0.01;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_settings_are_named_errors() {
        let c = SackFewConfig::default();
        for (field, result) in [
            ("alpha", c.clone().set_alpha(1.01).map(|_| ())),
            ("alpha", c.clone().set_alpha(-0.01).map(|_| ())),
            ("alpha", c.clone().set_alpha(f64::NAN).map(|_| ())),
            ("alpha", c.clone().set_alpha(f64::INFINITY).map(|_| ())),
            (
                "loss_reduction_factor",
                c.clone().set_loss_reduction_factor(0.0).map(|_| ()),
            ),
            (
                "initial_window_packets",
                c.clone().set_initial_window_packets(1).map(|_| ()),
            ),
        ] {
            let err = result.unwrap_err();
            assert_eq!(err.field, field);
            assert!(err.to_string().contains(field), "{err}");
        }
    }
}
