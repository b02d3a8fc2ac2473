//! A controller's factory on a host stack: what the registry ([`crate::registry`]) names
//! and checks, built for quinn or noq. Kept apart from the registry so that the registry,
//! which reading a scenario needs, depends on no host stack.

use std::sync::Arc;

use cc_core::{PortConfig, SignalConfig, SignalStats};
use cc_ports::noq::NoqBaseline;
use cc_ports::{PortVisitor, QuinnBaseline};

use crate::registry::{
    self, Baseline, Builder, ResolvedController, Settings, configure, loss_reduction_factor,
};
use crate::run::host::{self, Host};

/// A controller factory ready for the host stack's
/// `TransportConfig::congestion_controller_factory`, and how to read the loss-signal statistics
/// back out of a controller it built.
pub struct BuiltController<H: Host> {
    /// The factory.
    pub factory: H::Factory,
    /// Extracts cc-core's loss-signal statistics from a controller this factory built (ports
    /// only; `None` for the stacks' own controllers).
    pub signal_stats: fn(Box<H::Controller>) -> Option<SignalStats>,
}

impl<H: Host> std::fmt::Debug for BuiltController<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BuiltController")
    }
}

/// Builds the host stack `H`'s factory for `controller`; `signal` carries the transport's loss
/// thresholds to the ports. A controller that does not run on `H` is an error naming it.
pub fn build<H: BuildOn>(
    controller: &ResolvedController,
    signal: &SignalConfig,
    quinn_full_window: Option<bool>,
) -> Result<BuiltController<H>, String> {
    let (info, spec) = (controller.info(), controller.spec());
    info.sender(H::STACK)?;
    let settings = Settings::new(info, &spec.settings)?;
    match registry::builder(info) {
        Builder::Baseline(baseline) => H::baseline(baseline, &settings),
        Builder::Port { .. } => build_port::<H>(info.name, &settings, signal, quinn_full_window),
        Builder::Quiche => Err(format!(
            "controller `{}` runs in quiche: it has no {} controller factory",
            info.name,
            H::STACK
        )),
        Builder::Ns3Tcp(_) => Err(format!(
            "controller `{}` is ns-3's own TCP: it has no {} controller factory",
            info.name,
            H::STACK
        )),
    }
}

/// A host stack the registry builds factories for.
pub trait BuildOn: Host {
    /// The stack's own `baseline`.
    #[doc(hidden)]
    fn baseline(baseline: Baseline, s: &Settings<'_>) -> Result<BuiltController<Self>, String>;
}

impl BuildOn for host::Quinn {
    fn baseline(baseline: Baseline, s: &Settings<'_>) -> Result<BuiltController<Self>, String> {
        let window = s.quinn_window()?;
        let factory: <Self as Host>::Factory = match baseline {
            Baseline::NewReno => {
                let mut c = quinn::congestion::NewRenoConfig::default();
                if let Some(w) = window {
                    c.initial_window(w);
                }
                if let Some(f) = loss_reduction_factor(s)? {
                    c.loss_reduction_factor(f);
                }
                Arc::new(c)
            }
            Baseline::Cubic => QuinnBaseline::Cubic.factory(window),
            Baseline::Bbr => QuinnBaseline::Bbr.factory(window),
            Baseline::Bbr3 => return Err("bbr3 is noq's".to_owned()),
        };
        Ok(BuiltController {
            factory,
            signal_stats: |_| None,
        })
    }
}

impl BuildOn for host::Noq {
    fn baseline(baseline: Baseline, s: &Settings<'_>) -> Result<BuiltController<Self>, String> {
        let window = s.quinn_window()?;
        let factory: <Self as Host>::Factory = match baseline {
            Baseline::NewReno => {
                let mut c = noq::congestion::NewRenoConfig::default();
                if let Some(w) = window {
                    c.initial_window(w);
                }
                if let Some(f) = loss_reduction_factor(s)? {
                    c.loss_reduction_factor(f);
                }
                Arc::new(c)
            }
            Baseline::Cubic => NoqBaseline::Cubic.factory(window),
            Baseline::Bbr3 => NoqBaseline::Bbr3.factory(window),
            Baseline::Bbr => return Err("bbr is quinn's".to_owned()),
        };
        Ok(BuiltController {
            factory,
            signal_stats: |_| None,
        })
    }
}

/// The port named `name`'s factory on host `H`: its config from the settings ([`configure`]),
/// with the transport's loss thresholds.
fn build_port<H: Host>(
    name: &str,
    s: &Settings<'_>,
    signal: &SignalConfig,
    quinn_full_window: Option<bool>,
) -> Result<BuiltController<H>, String> {
    struct Find<'a, 'b, H: Host> {
        name: &'a str,
        settings: &'a Settings<'b>,
        signal: &'a SignalConfig,
        quinn_full_window: Option<bool>,
        built: Option<Result<BuiltController<H>, String>>,
    }
    impl<H: Host> PortVisitor for Find<'_, '_, H> {
        fn visit<C: PortConfig>(&mut self) {
            if self.built.is_none() && C::NAME == self.name {
                self.built = Some(configure::<C>(self.settings).map(|mut config| {
                    config.set_signal(self.signal.clone());
                    if let Some(full) = self.quinn_full_window {
                        config.set_quinn_full_window(full);
                    }
                    BuiltController {
                        factory: H::port_factory(config),
                        signal_stats: H::port_signal_stats::<C>,
                    }
                }));
            }
        }
    }
    let mut find = Find {
        name,
        settings: s,
        signal,
        quinn_full_window,
        built: None,
    };
    cc_ports::visit_ports(&mut find);
    find.built
        .unwrap_or_else(|| Err(format!("`{name}` is not one of cc-ports' ports")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::{all, resolve_name};
    use crate::stack::Stack;

    fn resolved(name: &str) -> ResolvedController {
        resolve_name(name).unwrap()
    }

    #[test]
    fn every_registered_controller_builds_with_defaults_on_its_stacks() {
        let signal = SignalConfig::default();
        for info in all() {
            for stack in info.stacks {
                match stack {
                    Stack::Quinn => {
                        build::<host::Quinn>(&resolved(info.name), &signal, None).map(drop)
                    }
                    Stack::Noq => build::<host::Noq>(&resolved(info.name), &signal, None).map(drop),
                    Stack::Quiche | Stack::Tcp => continue,
                }
                .unwrap_or_else(|e| panic!("{} on {stack}: {e}", info.name));
            }
        }
        let err = build::<host::Noq>(&resolved("bbr"), &signal, None).unwrap_err();
        assert!(err.contains("bbr3") && err.contains("quinn only"), "{err}");
    }
}
