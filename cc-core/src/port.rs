//! What a port's configuration declares ([`PortConfig`]), the one controller factory every
//! port shares on every stack ([`PortFactory`]), and [`install`], which sets the controller and
//! the loss thresholds it reads on a stack's `TransportConfig` together ([`Transport`]).

use crate::{ConfigError, CongestionAlgorithm, Knob, SignalConfig};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::fmt::Debug;
use std::sync::Arc;

/// A port's configuration: its knobs, their validation, and the algorithm it configures.
///
/// Implemented by [`crate::port_config!`], which declares each knob once (name, doc, type,
/// default, range) and derives from that the struct, `Default`, serde, getters, setters and
/// [`Self::KNOBS`].
pub trait PortConfig:
    Clone + Debug + Default + PartialEq + Send + Sync + Serialize + DeserializeOwned + 'static
{
    /// The algorithm this configures.
    type Algorithm: CongestionAlgorithm;

    /// The port's name in registries, reports and traces (`"karak"`).
    const NAME: &'static str;

    /// One line on what the port does.
    const SUMMARY: &'static str;

    /// The behaviour revision: raised whenever a decision or a default of the port changes, so
    /// that a result made by the old behaviour is never taken for the new one (the harness
    /// hashes it into every run id, and a golden-trajectory test fails until it is raised).
    const REVISION: u32;

    /// Every knob, in declaration order.
    const KNOBS: &'static [Knob<Self>];

    /// Checks every knob's range and the rules between knobs. Setters and deserialization
    /// both call this, so no invalid configuration can be built.
    fn validate(&self) -> Result<(), ConfigError>;

    /// The loss-signal settings the classifier uses.
    fn signal(&self) -> &SignalConfig;

    /// Replaces the loss-signal settings (their own setters have validated them).
    fn set_signal(&mut self, signal: SignalConfig);

    /// Whether the port shows quinn its window plus one byte
    /// ([`crate::PortController::with_quinn_full_window`]; no effect on noq).
    fn quinn_full_window(&self) -> bool;

    /// Sets [`Self::quinn_full_window`].
    fn set_quinn_full_window(&mut self, full: bool);

    /// A new algorithm at the start of a connection whose datagrams are `mtu` bytes, sharing
    /// this configuration.
    fn new_algorithm(config: Arc<Self>, mtu: u16) -> Self::Algorithm;
}

/// The controller factory for any port, on every stack: it implements quinn's
/// `ControllerFactory` (feature `quinn`) and noq's (feature `noq`). Every connection's
/// controller shares one `Arc` of the configuration, as the stacks' own factories do.
#[derive(Debug, Clone)]
pub struct PortFactory<C> {
    config: Arc<C>,
}

impl<C: PortConfig> PortFactory<C> {
    /// A factory over `config`.
    pub fn new(config: C) -> Self {
        Self {
            config: Arc::new(config),
        }
    }

    /// The configuration every controller it builds shares.
    pub fn config(&self) -> &C {
        &self.config
    }

    /// The shared configuration, for a new controller.
    #[cfg_attr(not(any(feature = "quinn", feature = "noq")), allow(dead_code))]
    pub(crate) fn config_arc(&self) -> Arc<C> {
        Arc::clone(&self.config)
    }
}

/// A QUIC stack's transport configuration, on which a port can be installed:
/// `quinn_proto::TransportConfig` (feature `quinn`, re-exported as `quinn::TransportConfig`) and
/// `noq_proto::TransportConfig` (feature `noq`, re-exported as `noq::TransportConfig`).
pub trait Transport {
    /// Makes `config`'s port this transport's congestion controller and sets the transport's
    /// packet and time thresholds to the ones the port's loss classifier reads (see
    /// [`install`]).
    fn install_port<C: PortConfig>(&mut self, config: C);
}

/// Makes `config`'s port the congestion controller of `transport` (quinn's or noq's), and sets
/// the transport's packet and time thresholds to the ones the port's loss classifier reads, so
/// that the two cannot disagree.
///
/// Call it after any other change to the thresholds: a later
/// `TransportConfig::packet_threshold` or `time_threshold` call undoes the match. To use other
/// thresholds, set them in the config's [`SignalConfig`] first.
pub fn install<C: PortConfig, T: Transport>(config: C, transport: &mut T) {
    transport.install_port(config);
}

/// Declares a port's configuration once: each knob's name, doc, type, default and range.
///
/// From one declaration it derives:
/// - the struct (private fields, plus the loss-signal settings `signal` and
///   `quinn_full_window`), `Default` (the
///   paper's values), `Debug`, `Clone`, `PartialEq`;
/// - serde `Serialize` and `Deserialize` with `deny_unknown_fields`, missing fields taking
///   their defaults, and [`PortConfig::validate`] run on every deserialized value;
/// - a getter per knob (`fn alpha(&self) -> f64`) and a validating setter
///   (`fn set_alpha(&mut self, f64) -> Result<&mut Self, ConfigError>`);
/// - [`PortConfig`], with [`PortConfig::KNOBS`] listing each knob's metadata;
/// - `install(self, &mut TransportConfig)` ([`install`], on any stack's [`Transport`]) and
///   `into_factory(self)` ([`PortFactory`], every stack's factory).
///
/// `revision: N,` after `summary` is the port's behaviour revision ([`PortConfig::REVISION`]):
/// raise it in the commit that changes any decision or default of the port.
///
/// A port whose algorithm counts what is in flight can default `quinn_full_window` to true with
/// an optional `quinn_full_window: true,` after `revision` (the default is false).
///
/// Rules between knobs go in an optional `check` function, `fn(&Self) -> Result<(),
/// ConfigError>`, which `validate` runs after the ranges. A duration knob carries
/// `#[serde(with = "humantime_serde")]` so TOML reads `"100ms"`.
///
/// The crate invoking it needs `serde` (with `derive`) and `humantime-serde` when a knob is a
/// duration; the expansion names no QUIC stack.
#[macro_export]
macro_rules! port_config {
    (@full) => { false };
    (@full $full:literal) => { $full };
    (
        $(#[$meta:meta])*
        pub struct $name:ident for $algorithm:ty {
            name: $port:literal,
            summary: $summary:literal,
            revision: $revision:literal,
            $(quinn_full_window: $full:literal,)?
            $(check: $check:path,)?
            knobs: {
                $(
                    $(#[doc = $doc:literal])*
                    $(#[serde($serde:meta)])?
                    $knob:ident: $ty:ty = $default:expr, $range:expr;
                )*
            }
        }
    ) => {
        $crate::paste::paste! {
            $(#[$meta])*
            #[derive(Debug, Clone, PartialEq, serde::Serialize)]
            pub struct $name {
                $(
                    $(#[serde($serde)])?
                    $knob: $ty,
                )*
                signal: $crate::SignalConfig,
                quinn_full_window: bool,
            }

            /// Every field of
            #[doc = concat!("[`", stringify!($name), "`]")]
            /// as read from a file, before validation.
            #[doc(hidden)]
            #[derive(serde::Deserialize)]
            #[serde(default, deny_unknown_fields)]
            pub struct [<$name Fields>] {
                $(
                    $(#[serde($serde)])?
                    $knob: $ty,
                )*
                signal: $crate::SignalConfig,
                quinn_full_window: bool,
            }

            impl Default for [<$name Fields>] {
                fn default() -> Self {
                    Self {
                        $( $knob: $default, )*
                        signal: $crate::SignalConfig::default(),
                        quinn_full_window: $crate::port_config!(@full $($full)?),
                    }
                }
            }

            impl<'de> serde::Deserialize<'de> for $name {
                fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                    let f = <[<$name Fields>] as serde::Deserialize>::deserialize(d)?;
                    let config = Self {
                        $( $knob: f.$knob, )*
                        signal: f.signal,
                        quinn_full_window: f.quinn_full_window,
                    };
                    $crate::PortConfig::validate(&config).map_err(serde::de::Error::custom)?;
                    Ok(config)
                }
            }

            impl Default for $name {
                fn default() -> Self {
                    let f = [<$name Fields>]::default();
                    Self {
                        $( $knob: f.$knob, )*
                        signal: f.signal,
                        quinn_full_window: f.quinn_full_window,
                    }
                }
            }

            impl $name {
                $(
                    $(#[doc = $doc])*
                    #[doc = ""]
                    #[doc = concat!("Default `", stringify!($default), "`.")]
                    pub fn $knob(&self) -> $ty {
                        self.$knob
                    }

                    #[doc = concat!("Sets [`Self::", stringify!($knob), "`], or names the field and")]
                    /// its allowed range if the value is outside it (the configuration is then
                    /// unchanged).
                    pub fn [<set_ $knob>](
                        &mut self,
                        value: $ty,
                    ) -> Result<&mut Self, $crate::ConfigError> {
                        let mut next = self.clone();
                        next.$knob = value;
                        $crate::PortConfig::validate(&next)?;
                        *self = next;
                        Ok(self)
                    }
                )*

                /// The loss-signal settings; their thresholds are the transport's
                /// ([`Self::install`] sets both).
                pub fn signal(&self) -> &$crate::SignalConfig {
                    &self.signal
                }

                /// Replaces the loss-signal settings.
                pub fn set_signal(&mut self, signal: $crate::SignalConfig) -> &mut Self {
                    self.signal = signal;
                    self
                }

                /// Whether the port shows quinn its window plus one byte, so that a window of
                /// N datagrams carries N, not quinn 0.11's N - 1 (default false unless the port
                /// declares otherwise; no effect on noq; see
                /// `PortController::with_quinn_full_window`).
                pub fn quinn_full_window(&self) -> bool {
                    self.quinn_full_window
                }

                /// Sets [`Self::quinn_full_window`].
                pub fn set_quinn_full_window(&mut self, full: bool) -> &mut Self {
                    self.quinn_full_window = full;
                    self
                }

                /// Makes this port `transport`'s congestion controller (quinn's or noq's
                /// `TransportConfig`) and sets the transport's loss thresholds to
                /// [`Self::signal`]'s (see [`cc_core::install`]).
                pub fn install<T: $crate::Transport>(self, transport: &mut T) {
                    $crate::install(self, transport)
                }

                /// The controller factory over this configuration, for quinn's or noq's
                /// `TransportConfig::congestion_controller_factory`. The transport's loss
                /// thresholds must then equal [`Self::signal`]'s; [`Self::install`] sees to
                /// that.
                pub fn into_factory(self) -> std::sync::Arc<$crate::PortFactory<Self>> {
                    std::sync::Arc::new($crate::PortFactory::new(self))
                }
            }

            impl $crate::PortConfig for $name {
                type Algorithm = $algorithm;
                const NAME: &'static str = $port;
                const SUMMARY: &'static str = $summary;
                const REVISION: u32 = $revision;
                const KNOBS: &'static [$crate::Knob<Self>] = &[
                    $(
                        $crate::Knob {
                            name: stringify!($knob),
                            doc: concat!($($doc, "\n"),*),
                            kind: <$ty as $crate::KnobType>::KIND,
                            range: $range,
                            get: |c| $crate::KnobType::to_value(c.$knob),
                            set: |c, v| {
                                let v = <$ty as $crate::KnobType>::from_value(v).ok_or_else(|| {
                                    $crate::ConfigError::new(
                                        stringify!($knob),
                                        v,
                                        <$ty as $crate::KnobType>::KIND.expected(),
                                    )
                                })?;
                                c.$knob = $range.check(stringify!($knob), v)?;
                                Ok(())
                            },
                        },
                    )*
                ];

                fn validate(&self) -> Result<(), $crate::ConfigError> {
                    $( $range.check(stringify!($knob), self.$knob)?; )*
                    $( $check(self)?; )?
                    Ok(())
                }

                fn signal(&self) -> &$crate::SignalConfig {
                    &self.signal
                }

                fn set_signal(&mut self, signal: $crate::SignalConfig) {
                    self.signal = signal;
                }

                fn quinn_full_window(&self) -> bool {
                    self.quinn_full_window
                }

                fn set_quinn_full_window(&mut self, full: bool) {
                    self.quinn_full_window = full;
                }

                fn new_algorithm(config: std::sync::Arc<Self>, mtu: u16) -> $algorithm {
                    <$algorithm>::new(config, mtu)
                }
            }
        }
    };
}
