//! Which QUIC implementation runs each end of a connection (or, on the ns-3 backend, ns-3's own
//! TCP), and the rules for runs that involve quiche.
//!
//! quinn runs the workspace's ports and quinn's own controllers; noq (iroh's QUIC, a fork of
//! quinn) runs the same ports and noq's own NewReno, Cubic and BBRv3 when a scenario says
//! `stack = "noq"` (`--stack noq`). With the cargo feature
//! `quiche` (off by default), cloudflare's quiche (through the `quiche-peer` crate) runs the
//! controllers `quiche-reno`, `quiche-cubic` and `quiche-bbr2`, and can be the receiver of any
//! sender (`receiver = "quiche"`, `--receiver quiche`). quiche reads the system clock itself (its
//! API has no clock injection), so every run with a quiche end needs `clock = "real"`, and such
//! runs are not bit-reproducible (wall-clock timing, BoringSSL's RNG).

use std::fmt;

use serde::{Deserialize, Serialize};

/// A QUIC implementation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stack {
    /// quinn 0.11 (every port and quinn's NewReno, Cubic and BBR).
    #[default]
    Quinn,
    /// noq 1.x (every port, with exact loss signals, and noq's NewReno, Cubic and BBRv3).
    Noq,
    /// cloudflare's quiche 0.30 (its Reno, CUBIC and BBR2; needs the `quiche` feature).
    Quiche,
    /// Not QUIC: ns-3's own TCP (`tcp-newreno`, `tcp-cubic`, `tcp-vegas`, `tcp-westwood`,
    /// `tcp-westwoodplus`), at both ends of every pair, on the ns-3 backend only.
    Tcp,
}

impl Stack {
    /// `quinn`, `noq` or `quiche`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Quinn => "quinn",
            Self::Noq => "noq",
            Self::Quiche => "quiche",
            Self::Tcp => "tcp",
        }
    }

    /// The crate (or program) that implements this stack and the version of it this harness
    /// was built with: `("quinn-proto", "0.11.19")`, `("ns-3 tcp", "3.37")`.
    pub fn crate_version(self) -> (&'static str, &'static str) {
        match self {
            Self::Quinn => ("quinn-proto", env!("HARNESS_QUINN_PROTO_VERSION")),
            Self::Noq => ("noq-proto", env!("HARNESS_NOQ_PROTO_VERSION")),
            Self::Quiche => ("quiche", env!("HARNESS_QUICHE_VERSION")),
            Self::Tcp => ("ns-3 tcp", netsim_ns3::ns3_version()),
        }
    }
}

impl fmt::Display for Stack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// True if this harness was built with the `quiche` feature.
pub const QUICHE_AVAILABLE: bool = cfg!(feature = "quiche");

/// The names of quiche's controllers (registered only with the `quiche` feature).
pub const QUICHE_CONTROLLERS: [&str; 3] = ["quiche-reno", "quiche-cubic", "quiche-bbr2"];

/// How to build the harness with quiche, for error messages.
pub const BUILD_HINT: &str = "build it with `cargo run --release -p harness --features quiche -- ...` \
     (building quiche builds BoringSSL: it needs cmake, a C/C++ compiler and libclang, e.g. \
     `apt-get install cmake libclang-dev`, and Rust 1.88 or newer)";

/// The error for asking for quiche (`what`) in a harness built without the feature.
pub fn unavailable(what: &str) -> String {
    format!(
        "{what} needs quiche, but this harness was built without the `quiche` feature; {BUILD_HINT}"
    )
}

/// The error for a run with a quiche end in virtual time.
pub fn virtual_time_refused(label: &str, sender: Stack, receiver: Stack) -> String {
    format!(
        "clock = \"virtual\": controller `{label}` ({sender} sender -> {receiver} receiver) \
         involves quiche, which reads the system clock itself and cannot follow netsim's virtual \
         clock; run it with `--clock real` (or clock = \"real\" in the scenario file). Real-time \
         runs take their duration in wall time and are not bit-reproducible"
    )
}

/// The stacks of a run: the sender's (from its controller) and the receiver's (the scenario's
/// `receiver`, by default the sender's).
pub fn ends(sender: Stack, receiver: Option<Stack>) -> (Stack, Stack) {
    (sender, receiver.unwrap_or(sender))
}

/// True if either end is quiche.
pub fn involves_quiche(sender: Stack, receiver: Stack) -> bool {
    sender == Stack::Quiche || receiver == Stack::Quiche
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_receiver_defaults_to_the_senders_stack() {
        assert_eq!(ends(Stack::Quinn, None), (Stack::Quinn, Stack::Quinn));
        assert_eq!(ends(Stack::Quiche, None), (Stack::Quiche, Stack::Quiche));
        assert_eq!(
            ends(Stack::Quinn, Some(Stack::Quiche)),
            (Stack::Quinn, Stack::Quiche)
        );
        assert!(!involves_quiche(Stack::Quinn, Stack::Quinn));
        assert!(involves_quiche(Stack::Quinn, Stack::Quiche));
        let message = unavailable("controller `quiche-cubic`");
        assert!(
            message.contains("--features quiche") && message.contains("libclang"),
            "{message}"
        );
    }
}
