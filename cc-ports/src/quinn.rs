//! quinn's factories: the ports' and quinn's own controllers'.

use crate::PortVisitor;
use cc_core::{PortConfig, PortFactory};
use quinn_proto::congestion::{
    Bbr, BbrConfig, ControllerFactory, Cubic, CubicConfig, NewReno, NewRenoConfig,
};
use std::sync::Arc;

/// A type-erased quinn controller factory.
pub type DynFactory = Arc<dyn ControllerFactory + Send + Sync>;

/// The port named `name` at its paper's defaults, as a quinn factory (the transport's loss
/// thresholds must be quinn's defaults, as the config's are).
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

/// quinn's own controllers, the baselines every port is measured against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuinnBaseline {
    /// RFC 9002's NewReno.
    NewReno,
    /// CUBIC (RFC 9438), quinn's default.
    Cubic,
    /// BBR (v1).
    Bbr,
}

impl QuinnBaseline {
    /// All three, in table order.
    pub const ALL: [Self; 3] = [Self::NewReno, Self::Cubic, Self::Bbr];

    /// The name the harness uses (`newreno`, `cubic`, `bbr`).
    pub fn name(self) -> &'static str {
        match self {
            Self::NewReno => "newreno",
            Self::Cubic => "cubic",
            Self::Bbr => "bbr",
        }
    }

    /// One line on what it is.
    pub fn summary(self) -> &'static str {
        match self {
            Self::NewReno => "quinn's NewReno (RFC 9002)",
            Self::Cubic => "quinn's CUBIC (RFC 9438), quinn's default",
            Self::Bbr => "quinn's BBR (v1); its OS-seeded RNG only moves the reported pacing_rate",
        }
    }

    /// Its factory at quinn's defaults, or with `initial_window` bytes.
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
            Self::Bbr => Arc::new(crate::with_initial_window(
                initial_window,
                BbrConfig::initial_window,
            )),
        }
    }

    /// `size_of` the controller quinn boxes per connection, bytes (memory figures).
    pub fn controller_size(self) -> usize {
        match self {
            Self::NewReno => std::mem::size_of::<NewReno>(),
            Self::Cubic => std::mem::size_of::<Cubic>(),
            Self::Bbr => std::mem::size_of::<Bbr>(),
        }
    }
}

/// The controller named `name` at its defaults: a port, or quinn's baseline by its harness
/// name (`newreno`) or with a `quinn-` prefix (`quinn-newreno`).
pub fn factory(name: &str) -> Option<DynFactory> {
    let baseline = name.strip_prefix("quinn-").unwrap_or(name);
    QuinnBaseline::ALL
        .into_iter()
        .find(|b| b.name() == baseline)
        .map(|b| b.factory(None))
        .or_else(|| port_factory(name))
}
