//! noq's factories: the ports' (with exact loss signals) and noq's own controllers.
//!
//! ```
//! let mut transport = noq_proto::TransportConfig::default();
//! transport.congestion_controller_factory(cc_ports::noq::factory("karak").unwrap());
//! ```

use crate::PortVisitor;
use cc_core::{PortConfig, PortFactory};
use noq_proto::congestion::{
    Bbr3, Bbr3Config, ControllerFactory, Cubic, CubicConfig, NewReno, NewRenoConfig,
};
use std::sync::Arc;

/// A type-erased noq controller factory.
pub type DynFactory = Arc<dyn ControllerFactory + Send + Sync>;

/// The port named `name` at its paper's defaults, as a noq factory (the transport's loss
/// thresholds must be noq's defaults, as the config's are).
pub fn port_factory(name: &str) -> Option<DynFactory> {
    struct Find<'a> {
        name: &'a str,
        found: Option<DynFactory>,
    }
    impl PortVisitor for Find<'_> {
        fn visit<C: PortConfig>(&mut self) {
            if C::NAME == self.name {
                self.found = Some(Arc::new(PortFactory::new(C::default())));
            }
        }
    }
    let mut find = Find { name, found: None };
    crate::visit_ports(&mut find);
    find.found
}

/// noq's own controllers, the baselines every port is measured against on noq.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoqBaseline {
    /// RFC 9002's NewReno.
    NewReno,
    /// CUBIC (RFC 9438), noq's default.
    Cubic,
    /// BBRv3 (draft-ietf-ccwg-bbr).
    Bbr3,
}

impl NoqBaseline {
    /// All three, in table order.
    pub const ALL: [Self; 3] = [Self::NewReno, Self::Cubic, Self::Bbr3];

    /// The name the harness uses (`newreno`, `cubic`, `bbr3`).
    pub fn name(self) -> &'static str {
        match self {
            Self::NewReno => "newreno",
            Self::Cubic => "cubic",
            Self::Bbr3 => "bbr3",
        }
    }

    /// One line on what it is.
    pub fn summary(self) -> &'static str {
        match self {
            Self::NewReno => "noq's NewReno (RFC 9002)",
            Self::Cubic => "noq's CUBIC (RFC 9438), noq's default",
            Self::Bbr3 => {
                "noq's BBRv3; it draws its `ProbeBW` waits from an OS-seeded RNG that noq 1.4 \
                 offers no way to seed, so its runs are not reproducible"
            }
        }
    }

    /// Its factory at noq's defaults, or with `initial_window` bytes.
    pub fn factory(self, initial_window: Option<u64>) -> DynFactory {
        match self {
            Self::NewReno => Arc::new(crate::with_initial_window(
                initial_window,
                NewRenoConfig::initial_window,
            )),
            Self::Cubic => Arc::new(crate::with_initial_window(
                initial_window,
                CubicConfig::initial_window,
            )),
            Self::Bbr3 => Arc::new(crate::with_initial_window(
                initial_window,
                Bbr3Config::initial_window,
            )),
        }
    }

    /// `size_of` the controller noq boxes per connection, bytes (memory figures).
    pub fn controller_size(self) -> usize {
        match self {
            Self::NewReno => std::mem::size_of::<NewReno>(),
            Self::Cubic => std::mem::size_of::<Cubic>(),
            Self::Bbr3 => std::mem::size_of::<Bbr3>(),
        }
    }
}

/// The controller named `name` at its defaults: a port, or noq's baseline by its harness name
/// (`newreno`) or with a `noq-` prefix (`noq-newreno`).
pub fn factory(name: &str) -> Option<DynFactory> {
    let baseline = name.strip_prefix("noq-").unwrap_or(name);
    NoqBaseline::ALL
        .into_iter()
        .find(|b| b.name() == baseline)
        .map(|b| b.factory(None))
        .or_else(|| port_factory(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_has_a_factory_and_others_none() {
        for name in crate::port_names() {
            assert!(factory(name).is_some(), "{name}");
        }
        for b in NoqBaseline::ALL {
            assert!(factory(b.name()).is_some());
            assert!(factory(&format!("noq-{}", b.name())).is_some());
        }
        assert!(factory("bbr").is_none(), "noq ships BBRv3, not v1");
        assert!(factory("noq-karak").is_none());
    }
}
