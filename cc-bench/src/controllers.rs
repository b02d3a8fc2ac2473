//! The controllers under measurement: quinn's NewReno, Cubic and BBR, every port at its
//! defaults, and a no-op floor.

use cc_core::{CongestionAlgorithm, PortConfig, PortController, PortFactory};
use cc_ports::{PortVisitor, QuinnBaseline};
use quinn_proto::RttEstimator;
use quinn_proto::congestion::{Controller, ControllerFactory};
use std::any::Any;
use std::sync::Arc;
use std::time::Instant;

/// Where a controller comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// quinn-proto's own.
    Quinn,
    /// A port in this workspace (a `cc_core::PortController`).
    Port,
    /// The no-op controller: what the replay loop itself costs.
    Floor,
}

/// A type-erased controller factory.
pub type DynFactory = Arc<dyn ControllerFactory + Send + Sync>;

/// One controller to measure.
#[derive(Clone)]
pub struct Contender {
    /// Name in tables (`quinn-newreno`, `karak`, ...).
    pub name: &'static str,
    /// Where it comes from.
    pub origin: Origin,
    /// Its factory, at default settings.
    pub factory: DynFactory,
    /// `size_of` of the concrete controller type quinn boxes, bytes.
    pub inline_bytes: usize,
    /// For a port: reads the ledger of a controller built by `factory` (consuming it).
    pub ledger: Option<LedgerReader>,
}

impl std::fmt::Debug for Contender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Contender")
            .field("name", &self.name)
            .field("origin", &self.origin)
            .field("inline_bytes", &self.inline_bytes)
            .finish_non_exhaustive()
    }
}

/// Reads the ledger of a port's controller (consuming it); `None` if it is not that port.
pub type LedgerReader = fn(Box<dyn Controller>) -> Option<LedgerFigures>;

/// What a port's ledger holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LedgerFigures {
    /// `Ledger::heap_bytes()`: heap capacity, bytes.
    pub heap_bytes: usize,
    /// Packets tracked.
    pub packets_held: usize,
    /// Send batches tracked.
    pub batches_held: usize,
}

fn ledger_of<A: CongestionAlgorithm>(controller: Box<dyn Controller>) -> Option<LedgerFigures> {
    let adapter = PortController::<A>::from_controller(controller)?;
    let ledger = adapter.classifier().ledger();
    Some(LedgerFigures {
        heap_bytes: ledger.heap_bytes(),
        packets_held: ledger.packets_held(),
        batches_held: ledger.batches_held(),
    })
}

/// quinn's NewReno, Cubic and BBR, then the five ports ([`cc_ports::visit_ports`]), all at
/// default settings.
pub fn contenders() -> Vec<Contender> {
    struct Ports(Vec<Contender>);
    impl PortVisitor for Ports {
        fn visit<C: PortConfig>(&mut self) {
            self.0.push(Contender {
                name: C::NAME,
                origin: Origin::Port,
                factory: Arc::new(PortFactory::new(C::default())),
                inline_bytes: std::mem::size_of::<PortController<C::Algorithm>>(),
                ledger: Some(ledger_of::<C::Algorithm>),
            });
        }
    }
    let quinn = QuinnBaseline::ALL.into_iter().map(|b| Contender {
        name: match b {
            QuinnBaseline::NewReno => "quinn-newreno",
            QuinnBaseline::Cubic => "quinn-cubic",
            QuinnBaseline::Bbr => "quinn-bbr",
        },
        origin: Origin::Quinn,
        factory: b.factory(None),
        inline_bytes: b.controller_size(),
        ledger: None,
    });
    let mut all = Ports(quinn.collect());
    cc_ports::visit_ports(&mut all);
    all.0
}

/// The no-op controller, replayed through the same loop: the cost of the replay itself
/// (event decoding, the virtual call, the timing brackets).
pub fn floor() -> Contender {
    Contender {
        name: "(no-op floor)",
        origin: Origin::Floor,
        factory: Arc::new(NoopFactory),
        inline_bytes: std::mem::size_of::<Noop>(),
        ledger: None,
    }
}

/// Builds [`Noop`] controllers.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoopFactory;

impl ControllerFactory for NoopFactory {
    fn build(self: Arc<Self>, _now: Instant, current_mtu: u16) -> Box<dyn Controller> {
        Box::new(Noop {
            window: u64::from(current_mtu) * 10,
        })
    }
}

/// A controller that does nothing: a fixed window.
#[derive(Debug, Clone, Copy)]
pub struct Noop {
    window: u64,
}

impl Controller for Noop {
    fn on_sent(&mut self, _now: Instant, _bytes: u64, _last_packet_number: u64) {}

    fn on_ack(
        &mut self,
        _now: Instant,
        _sent: Instant,
        _bytes: u64,
        _app_limited: bool,
        _rtt: &RttEstimator,
    ) {
    }

    fn on_end_acks(
        &mut self,
        _now: Instant,
        _in_flight: u64,
        _app_limited: bool,
        _largest_packet_num_acked: Option<u64>,
    ) {
    }

    fn on_congestion_event(
        &mut self,
        _now: Instant,
        _sent: Instant,
        _is_persistent_congestion: bool,
        _lost_bytes: u64,
    ) {
    }

    fn on_mtu_update(&mut self, _new_mtu: u16) {}

    fn window(&self) -> u64 {
        self.window
    }

    fn clone_box(&self) -> Box<dyn Controller> {
        Box::new(*self)
    }

    fn initial_window(&self) -> u64 {
        self.window
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}
