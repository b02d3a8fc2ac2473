//! quiche's congestion controllers, by the names the harness uses.

use std::fmt;
use std::str::FromStr;

/// One of quiche's built-in congestion controllers. quiche has no plugin API (its
/// `CongestionControlAlgorithm` is a closed enum), so these three are all a quiche endpoint
/// can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QuicheCc {
    /// quiche's Reno (`reno`): RFC 9002 NewReno, with HyStart++ in slow start by default.
    Reno,
    /// quiche's CUBIC (`cubic`, quiche's default): RFC 9438, with HyStart++ by default.
    Cubic,
    /// quiche's BBRv2 from its gcongestion module (`bbr2_gcongestion`, a port of Chromium's
    /// BBRv2), paced.
    Bbr2,
}

impl QuicheCc {
    /// All three, in table order.
    pub const ALL: [Self; 3] = [Self::Reno, Self::Cubic, Self::Bbr2];

    /// The harness name: `quiche-reno`, `quiche-cubic`, `quiche-bbr2`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Reno => "quiche-reno",
            Self::Cubic => "quiche-cubic",
            Self::Bbr2 => "quiche-bbr2",
        }
    }

    /// quiche's enum value.
    pub fn algorithm(self) -> quiche::CongestionControlAlgorithm {
        match self {
            Self::Reno => quiche::CongestionControlAlgorithm::Reno,
            Self::Cubic => quiche::CongestionControlAlgorithm::CUBIC,
            Self::Bbr2 => quiche::CongestionControlAlgorithm::Bbr2Gcongestion,
        }
    }
}

impl fmt::Display for QuicheCc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not one of quiche's controllers.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown quiche controller `{0}`: expected one of quiche-reno, quiche-cubic, quiche-bbr2")]
pub struct ParseQuicheCcError(pub String);

impl FromStr for QuicheCc {
    type Err = ParseQuicheCcError;

    /// Accepts the harness names (`quiche-cubic`) and the bare names (`cubic`, `bbr2`).
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        let bare = name.strip_prefix("quiche-").unwrap_or(name);
        match bare {
            "reno" => Ok(Self::Reno),
            "cubic" => Ok(Self::Cubic),
            "bbr2" => Ok(Self::Bbr2),
            _ => Err(ParseQuicheCcError(name.to_owned())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_are_errors() {
        for cc in QuicheCc::ALL {
            assert_eq!(cc.name().parse::<QuicheCc>(), Ok(cc));
        }
        assert_eq!("cubic".parse::<QuicheCc>(), Ok(QuicheCc::Cubic));
        let error = "quiche-vegas".parse::<QuicheCc>().unwrap_err();
        assert!(error.to_string().contains("quiche-vegas"), "{error}");
        assert!("".parse::<QuicheCc>().is_err());
    }
}
