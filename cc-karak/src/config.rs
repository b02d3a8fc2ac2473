//! `KarakConfig`: the paper's knobs, declared once.

use crate::Karak;
use cc_core::Range;

cc_core::port_config! {
    /// Configuration of [`Karak`].
    ///
    /// `Default` is the paper's Table 1: halve on three duplicate ACKs, a quarter after a
    /// timeout with two, an eighth with one, rounded up to a power of two datagrams, and the
    /// minimum window with none.
    ///
    /// ```
    /// let mut transport = quinn::TransportConfig::default();
    /// let mut karak = cc_karak::KarakConfig::default();
    /// karak.set_one_dup_ack_factor(0.25)?;
    /// karak.install(&mut transport);
    /// # Ok::<(), cc_karak::ConfigError>(())
    /// ```
    pub struct KarakConfig for Karak {
        name: "karak",
        summary: "TCP Karak: graded decrease by dup-ACKs before a timeout (cc-karak)",
        revision: 1,
        check: check_grading,
        knobs: {
            /// Initial window in datagrams (RFC 9002 section 7.2 allows
            /// `min(10 x mtu, max(14720, 2 x mtu))`; quinn's NewReno uses 14720 bytes).
            initial_window_packets: u64 = 10, Range::INITIAL_WINDOW_PACKETS;
            /// Window multiplier on a fast retransmit (three duplicate ACKs; Table 1).
            fast_retransmit_factor: f64 = 0.5, Range::UnitFactor;
            /// Window multiplier on a timeout after two duplicate ACKs (Table 1).
            two_dup_ack_factor: f64 = 0.25, Range::UnitFactor;
            /// Window multiplier on a timeout after one duplicate ACK (Table 1).
            one_dup_ack_factor: f64 = 0.125, Range::UnitFactor;
            /// Whether graded timeout windows are rounded up to a power of two datagrams
            /// (section 3).
            round_to_power_of_two: bool = true, Range::Any;
        }
    }
}

/// The paper's grading (section 3, Table 1): the fewer duplicate ACKs before a timeout, the
/// more severe the congestion, so the cut is never shallower with fewer:
/// `one_dup_ack_factor <= two_dup_ack_factor <= fast_retransmit_factor`. Set the factors from
/// the deepest cut up (or all at once, as a scenario file does).
fn check_grading(c: &KarakConfig) -> Result<(), cc_core::ConfigError> {
    let pairs = [
        (
            "two_dup_ack_factor",
            c.two_dup_ack_factor(),
            "fast_retransmit_factor",
            c.fast_retransmit_factor(),
        ),
        (
            "one_dup_ack_factor",
            c.one_dup_ack_factor(),
            "two_dup_ack_factor",
            c.two_dup_ack_factor(),
        ),
    ];
    for (field, value, bound, limit) in pairs {
        if value > limit {
            return Err(cc_core::ConfigError::new(
                field,
                format!("{value} (with {bound} = {limit})"),
                format!("<= {bound} (Karak's grading: fewer duplicate ACKs, a deeper cut)"),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_settings_are_named_errors() {
        let mut c = KarakConfig::default();
        for (field, result) in [
            (
                "fast_retransmit_factor",
                c.clone().set_fast_retransmit_factor(0.0).map(|_| ()),
            ),
            (
                "two_dup_ack_factor",
                c.clone().set_two_dup_ack_factor(1.5).map(|_| ()),
            ),
            (
                "one_dup_ack_factor",
                c.clone().set_one_dup_ack_factor(-0.1).map(|_| ()),
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
        // The factors may reach 1 (no cut), from the shallowest cut down.
        c.set_fast_retransmit_factor(1.0).unwrap();
        c.set_two_dup_ack_factor(1.0).unwrap();
        assert!(c.set_one_dup_ack_factor(1.0).is_ok());
    }

    #[test]
    fn inverted_grading_is_refused_naming_both_factors() {
        let err = KarakConfig::default()
            .set_one_dup_ack_factor(0.4)
            .unwrap_err();
        assert_eq!(err.field, "one_dup_ack_factor");
        assert!(
            err.to_string().contains("two_dup_ack_factor = 0.25"),
            "{err}"
        );
        let err = KarakConfig::default()
            .set_two_dup_ack_factor(0.75)
            .unwrap_err();
        assert_eq!(err.field, "two_dup_ack_factor");
        let mut c = KarakConfig::default();
        assert_eq!(
            c.set_one_dup_ack_factor(0.25).map(|_| ()),
            Ok(()),
            "equal is allowed"
        );
    }
}
