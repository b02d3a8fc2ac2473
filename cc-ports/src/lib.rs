//! Every port in this workspace, and the host stacks' own controllers, listed once.
//!
//! Tools that run "every controller" (the harness, the benchmarks, quiche-peer's comparison)
//! take the list from here, so that adding a port is one line in [`visit_ports`]. quinn's
//! factories are at the top level (feature `quinn`, on by default), noq's in [`noq`] (feature
//! `noq`).
//!
//! ```
//! use cc_core::PortConfig;
//!
//! struct Names(Vec<&'static str>);
//! impl cc_ports::PortVisitor for Names {
//!     fn visit<C: PortConfig>(&mut self) {
//!         self.0.push(C::NAME);
//!     }
//! }
//! let mut names = Names(Vec::new());
//! cc_ports::visit_ports(&mut names);
//! assert_eq!(
//!     names.0,
//!     ["karak", "petra", "ub", "sackfew", "abra", "manet", "fixed"]
//! );
//! ```
// Without the `noq` feature the module is absent: point the link at docs.rs, which builds it.
#![cfg_attr(
    not(feature = "noq"),
    doc = "\n[`noq`]: https://docs.rs/cc-ports/latest/cc_ports/noq/index.html"
)]
#![deny(missing_docs)]

use cc_core::PortConfig;

#[cfg(feature = "noq")]
pub mod noq;
#[cfg(feature = "quinn")]
mod quinn;
#[cfg(feature = "quinn")]
pub use quinn::{DynFactory, QuinnBaseline, factory, port_factory};

/// Something done once per port, generic over the port's configuration type.
pub trait PortVisitor {
    /// Called once per port, in [`visit_ports`]' order.
    fn visit<C: PortConfig>(&mut self);
}

/// Calls `visitor` for every port: Karak, PETRA, TCP-UB, SACK-FeW, ABRA NewReno, then this
/// workspace's own controllers: the composite (`manet`) and the fixed-window reference
/// (`fixed`).
pub fn visit_ports(visitor: &mut impl PortVisitor) {
    visitor.visit::<cc_karak::KarakConfig>();
    visitor.visit::<cc_petra::PetraConfig>();
    visitor.visit::<cc_ub::UbConfig>();
    visitor.visit::<cc_sackfew::SackFewConfig>();
    visitor.visit::<cc_abra::AbraConfig>();
    visitor.visit::<cc_manet::ManetConfig>();
    visitor.visit::<cc_manet::FixedWindowConfig>();
}

/// A stack's controller config at its defaults, with `initial_window` bytes set through `set`
/// when given (the stacks' configs share that setter's shape).
#[cfg(any(feature = "quinn", feature = "noq"))]
fn with_initial_window<C: Default>(
    initial_window: Option<u64>,
    set: fn(&mut C, u64) -> &mut C,
) -> C {
    let mut config = C::default();
    if let Some(window) = initial_window {
        set(&mut config, window);
    }
    config
}

/// The ports' names, in [`visit_ports`]' order.
pub fn port_names() -> Vec<&'static str> {
    struct Names(Vec<&'static str>);
    impl PortVisitor for Names {
        fn visit<C: PortConfig>(&mut self) {
            self.0.push(C::NAME);
        }
    }
    let mut names = Names(Vec::new());
    visit_ports(&mut names);
    names.0
}

#[cfg(all(test, feature = "quinn"))]
mod tests {
    use super::*;

    #[test]
    fn every_name_has_a_factory_and_others_none() {
        for name in port_names() {
            assert!(factory(name).is_some(), "{name}");
        }
        for b in QuinnBaseline::ALL {
            assert!(factory(b.name()).is_some());
            assert!(factory(&format!("quinn-{}", b.name())).is_some());
        }
        assert!(factory("vegas").is_none());
        assert!(factory("quinn-karak").is_none());
    }
}
