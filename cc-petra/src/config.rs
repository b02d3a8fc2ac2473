//! `PetraConfig`: the paper's knobs, declared once.

use crate::Petra;
use cc_core::{Range, WestwoodEstimator};

cc_core::port_config! {
    /// Configuration of [`Petra`].
    ///
    /// `Default` is the paper's: the eq. 4.4 filter weight 0.9, the initial ssthresh from the
    /// bandwidth estimate (section 4.1.1) and faster start (section 4.1.2.1) on.
    ///
    /// ```
    /// let mut transport = quinn::TransportConfig::default();
    /// cc_petra::PetraConfig::default().install(&mut transport);
    /// ```
    pub struct PetraConfig for Petra {
        name: "petra",
        summary: "TCP PETRA: Westwood estimate in slow start, recovery and timeouts (cc-petra)",
        revision: 1,
        knobs: {
            /// Initial window in datagrams (RFC 9002 section 7.2; the paper's eq. 4.1 is TCP's
            /// 2-4 segments).
            initial_window_packets: u64 = 10, Range::INITIAL_WINDOW_PACKETS;
            /// Weight of the previous bandwidth estimate in eq. 4.4
            /// (`SEBW = (1 - a) EBW_i + a SEBW_(i-1)`; 0.9 in section 4.1.1).
            ebw_gain: f64 = WestwoodEstimator::DEFAULT_GAIN, Range::FilterGain;
            /// Whether slow start grows by `EBW div BytesInFlight()` segments when that ratio
            /// exceeds 2 (section 4.1.2.1 faster start).
            faster_start: bool = true, Range::Any;
            /// Whether ssthresh tracks `SEBW x MinRTT` during the initial slow start (section
            /// 4.1.1, eq. 4.5); with false it stays unbounded until the first loss, as in
            /// NewReno.
            estimate_initial_ssthresh: bool = true, Range::Any;
            /// Whether a loss QUIC's time threshold declared before its packet threshold could
            /// (`d` below it: a retransmission before the third duplicate ACK) takes section
            /// 4.2.2's `count < 3` branch, `cwnd = ssthresh` when `BytesInFlight() > ssthresh`
            /// without an RTT test (the paper's rule); with false it takes section 4.2.3's RTT
            /// test like a third-duplicate-ACK loss (this crate before issue 20).
            faster_retransmit: bool = true, Range::Any;
            /// Whether section 4.2.3's RTT test can keep the window at a third-duplicate-ACK loss
            /// (the paper: `cwnd = ssthresh` only when `BytesInFlight() > ssthresh` and
            /// `LastRTT >= ERTT`). With false, every such loss with `BytesInFlight() >
            /// ssthresh` cuts to ssthresh, as TCP Westwood does: the knob for a shared wired
            /// bottleneck, where the test reads most drop-tail losses as random and PETRA takes
            /// up to 4x a competing Cubic's goodput (docs/results/coexist.md).
            recovery_rtt_test: bool = true, Range::Any;
            /// Pacing rate reported to the stack, as a multiple of the bandwidth estimate
            /// outside slow start (0: none, the stack paces from the window). Not in the paper;
            /// only noq's pacer reads it (quinn 0.11 ignores a controller's rate). docs/results/on-noq.md
            /// measures 1.25.
            pacing_gain: f64 = 0.0, Range::PACING_GAIN;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cc_core::{ConfigError, PortController};
    use quinn_proto::congestion::ControllerFactory;
    use std::time::Instant;

    #[test]
    fn invalid_settings_are_named_errors() {
        let c = PetraConfig::default();
        for (field, result) in [
            ("ebw_gain", c.clone().set_ebw_gain(1.0).map(|_| ())),
            ("ebw_gain", c.clone().set_ebw_gain(-0.5).map(|_| ())),
            ("ebw_gain", c.clone().set_ebw_gain(f64::NAN).map(|_| ())),
            (
                "initial_window_packets",
                c.clone().set_initial_window_packets(1).map(|_| ()),
            ),
            (
                "initial_window_packets",
                c.clone().set_initial_window_packets(1001).map(|_| ()),
            ),
        ] {
            let err = result.unwrap_err();
            assert_eq!(err.field, field);
            assert!(err.to_string().contains(field), "{err}");
        }
    }

    #[test]
    fn setters_chain_and_defaults_are_the_papers() -> Result<(), ConfigError> {
        let d = PetraConfig::default();
        assert_eq!(d.ebw_gain(), 0.9);
        assert!(d.faster_start());
        assert!(d.estimate_initial_ssthresh());
        assert_eq!(d.initial_window_packets(), 10);
        let mut c = PetraConfig::default();
        c.set_ebw_gain(0.5)?
            .set_initial_window_packets(4)?
            .set_faster_start(false)?;
        assert_eq!(c.ebw_gain(), 0.5);
        assert_eq!(c.initial_window_packets(), 4);
        assert!(!c.faster_start());
        Ok(())
    }

    #[test]
    fn factory_builds_a_working_controller() {
        let ctrl = PetraConfig::default()
            .into_factory()
            .build(Instant::now(), 1200);
        assert_eq!(ctrl.window(), 12_000);
        assert_eq!(ctrl.initial_window(), 12_000);
        assert!(ctrl.metrics().ssthresh.is_some());
        assert!(ctrl.into_any().downcast::<PortController<Petra>>().is_ok());
    }
}
