//! `UbConfig`: the paper's knobs, declared once.

use crate::Ub;
use cc_core::{ConfigError, Range, WestwoodEstimator};

/// Range of every backlog threshold, packets.
const THRESHOLD: Range = Range::Real {
    min: 0.0,
    max: 1e6,
    unit: "packets",
};

cc_core::port_config! {
    /// Configuration of [`Ub`].
    ///
    /// The paper gives no values for its thresholds. `Default` is alpha = 2, gamma = 3,
    /// beta = 4 packets (Linux `tcp_vegas.c`'s alpha = 2 and beta = 4, gamma halfway between),
    /// Vegas' slow-start threshold of 1 packet with growth every other round (Brakmo and
    /// Peterson 1995, section 3.3), and a bandwidth filter weight of 0.9.
    ///
    /// ```
    /// let mut ub = cc_ub::UbConfig::default();
    /// ub.set_thresholds(1.0, 2.0, 3.0)?;
    /// let mut transport = quinn::TransportConfig::default();
    /// ub.install(&mut transport);
    /// # Ok::<(), cc_ub::ConfigError>(())
    /// ```
    pub struct UbConfig for Ub {
        name: "ub",
        summary: "TCP-UB: Vegas backlog bands plus Westwood ssthresh (cc-ub)",
        revision: 1,
        check: check_thresholds,
        knobs: {
            /// Initial window in datagrams (RFC 9002 section 7.2).
            initial_window_packets: u64 = 10, Range::INITIAL_WINDOW_PACKETS;
            /// Lower backlog threshold alpha, packets: below it the window grows one packet per
            /// round. `alpha < gamma < beta`.
            alpha: f64 = 2.0, THRESHOLD;
            /// Middle backlog threshold gamma (the paper's Gama), packets: from alpha to gamma
            /// Westwood sets ssthresh and caps the window.
            gamma: f64 = 3.0, THRESHOLD;
            /// Upper backlog threshold beta, packets: above it the window shrinks one packet
            /// per round; between gamma and beta it holds.
            beta: f64 = 4.0, THRESHOLD;
            /// Vegas' slow-start exit backlog, packets: slow start ends when a round's backlog
            /// exceeds it (Brakmo and Peterson 1995; Linux `tcp_vegas.c` gamma = 1). Not TCP-UB's
            /// gamma.
            slow_start_gamma: f64 = 1.0, THRESHOLD;
            /// Whether slow start doubles the window only every other round, holding it in
            /// between so that round measures a fixed window (Brakmo and Peterson 1995, section
            /// 3.3). With false it grows every round, as Linux `tcp_vegas.c` does.
            slow_start_every_other_rtt: bool = true, Range::Any;
            /// Whether BWE is TCP Westwood+'s estimate (Linux `tcp_westwood.c`: bytes
            /// acknowledged over at least max(RTT, 50 ms), filtered twice with weight 7/8;
            /// cc_core::WestwoodPlusEstimator) instead of original TCP Westwood's per-ACK
            /// sample (one per ACK frame, filtered with `bwe_gain`, as ns-3's `TcpWestwood`
            /// samples in its `WESTWOOD` mode).
            /// Measured in the crate docs: 0.89x TCP-UB's goodput on PETRA's grid.
            westwood_plus: bool = false, Range::Any;
            /// Weight of the previous estimate in the per-ACK-frame bandwidth filter
            /// (`BWE = (1 - a) sample + a BWE_prev`); not used with `westwood_plus`.
            bwe_gain: f64 = WestwoodEstimator::DEFAULT_GAIN, Range::FilterGain;
            /// Pacing rate reported to the stack, as a multiple of the bandwidth estimate
            /// outside slow start (0: none, the stack paces from the window). Not in the paper;
            /// only noq's pacer reads it (quinn 0.11 ignores a controller's rate). docs/results/on-noq.md
            /// measures 1.25.
            pacing_gain: f64 = 0.0, Range::PACING_GAIN;
        }
    }
}

/// The bands must be ordered: `alpha < gamma < beta`.
fn check_thresholds(c: &UbConfig) -> Result<(), ConfigError> {
    let (alpha, gamma, beta) = (c.alpha(), c.gamma(), c.beta());
    if alpha >= gamma {
        return Err(ConfigError::new(
            "alpha",
            format!("{alpha} (with gamma = {gamma})"),
            "alpha < gamma < beta",
        ));
    }
    if gamma >= beta {
        return Err(ConfigError::new(
            "gamma",
            format!("{gamma} (with beta = {beta})"),
            "alpha < gamma < beta",
        ));
    }
    Ok(())
}

impl UbConfig {
    /// Sets the three congestion-avoidance thresholds `alpha < gamma < beta` at once, packets
    /// (one at a time, an intermediate order could be invalid). Allowed: each in
    /// `[0, 1000000]`, strictly increasing; the configuration is unchanged on an error.
    pub fn set_thresholds(
        &mut self,
        alpha: f64,
        gamma: f64,
        beta: f64,
    ) -> Result<&mut Self, ConfigError> {
        let mut next = self.clone();
        (next.alpha, next.gamma, next.beta) = (alpha, gamma, beta);
        cc_core::PortConfig::validate(&next)?;
        *self = next;
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cc_core::PortController;
    use quinn_proto::congestion::ControllerFactory;
    use std::time::Instant;

    #[test]
    fn thresholds_must_increase() {
        let mut c = UbConfig::default();
        let err = c.set_thresholds(3.0, 3.0, 4.0).unwrap_err();
        assert_eq!(err.field, "alpha");
        assert!(err.to_string().contains("alpha < gamma < beta"), "{err}");
        let err = c.set_thresholds(3.5, 3.0, 4.0).unwrap_err();
        assert_eq!(err.field, "alpha");
        let err = c.set_thresholds(1.0, 4.0, 4.0).unwrap_err();
        assert_eq!(err.field, "gamma");
        assert!(err.to_string().contains("with beta = 4"), "{err}");
        let err = c.set_thresholds(1.0, 5.0, 4.0).unwrap_err();
        assert_eq!(err.field, "gamma");
        // Nothing changed by the failed calls.
        assert_eq!(c, UbConfig::default());
        c.set_thresholds(1.0, 2.5, 6.0).unwrap();
        assert_eq!((c.alpha(), c.gamma(), c.beta()), (1.0, 2.5, 6.0));
    }

    #[test]
    fn out_of_range_values_are_named_errors() {
        let c = UbConfig::default();
        for (field, result) in [
            (
                "alpha",
                c.clone().set_thresholds(-1.0, 3.0, 4.0).map(|_| ()),
            ),
            (
                "alpha",
                c.clone().set_thresholds(f64::NAN, 3.0, 4.0).map(|_| ()),
            ),
            (
                "gamma",
                c.clone()
                    .set_thresholds(2.0, f64::INFINITY, 4.0)
                    .map(|_| ()),
            ),
            ("beta", c.clone().set_thresholds(2.0, 3.0, 1e9).map(|_| ())),
            (
                "slow_start_gamma",
                c.clone().set_slow_start_gamma(-0.5).map(|_| ()),
            ),
            ("bwe_gain", c.clone().set_bwe_gain(1.0).map(|_| ())),
            (
                "initial_window_packets",
                c.clone().set_initial_window_packets(0).map(|_| ()),
            ),
        ] {
            let err = result.unwrap_err();
            assert_eq!(err.field, field);
            assert!(err.to_string().contains(field), "{err}");
        }
    }

    #[test]
    fn defaults_and_factory() {
        let d = UbConfig::default();
        assert_eq!((d.alpha(), d.gamma(), d.beta()), (2.0, 3.0, 4.0));
        assert_eq!(d.slow_start_gamma(), 1.0);
        assert!(d.slow_start_every_other_rtt());
        assert_eq!(d.bwe_gain(), 0.9);
        let ctrl = d.into_factory().build(Instant::now(), 1200);
        assert_eq!(ctrl.window(), 12_000);
        assert!(ctrl.metrics().ssthresh.is_some());
        assert!(ctrl.into_any().downcast::<PortController<Ub>>().is_ok());
    }
}
