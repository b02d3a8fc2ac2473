//! The controllers under measurement: each stack's own NewReno, Cubic and BBR, every port at
//! its defaults (listed by [`HostStack::contenders`]), and a no-op floor.

use crate::stack::HostStack;
use cc_core::{CongestionAlgorithm, PortController};
use std::sync::Arc;

/// Where a controller comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The host stack's own (quinn-proto's or noq-proto's).
    Stack,
    /// A port in this workspace (a `cc_core::PortController`).
    Port,
    /// The no-op controller: what the replay loop itself costs.
    Floor,
}

/// One controller to measure on stack `S`.
pub struct Contender<S: HostStack> {
    /// Name in tables (`quinn-newreno`, `noq-bbr3`, `karak`, ...).
    pub name: &'static str,
    /// Where it comes from.
    pub origin: Origin,
    /// Its factory, at default settings.
    pub factory: Arc<S::Factory>,
    /// `size_of` of the concrete controller type the stack boxes, bytes.
    pub inline_bytes: usize,
    /// For a port that keeps a ledger (quinn's inferring classifier): reads the ledger of a
    /// controller built by `factory` (consuming it).
    pub ledger: Option<LedgerReader<S>>,
}

impl<S: HostStack> Clone for Contender<S> {
    fn clone(&self) -> Self {
        Self {
            name: self.name,
            origin: self.origin,
            factory: self.factory.clone(),
            inline_bytes: self.inline_bytes,
            ledger: self.ledger,
        }
    }
}

impl<S: HostStack> std::fmt::Debug for Contender<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Contender")
            .field("stack", &S::NAME)
            .field("name", &self.name)
            .field("origin", &self.origin)
            .field("inline_bytes", &self.inline_bytes)
            .finish_non_exhaustive()
    }
}

impl<S: HostStack> Contender<S> {
    /// The no-op controller, replayed through the same loop: the cost of the replay itself
    /// (event decoding, the virtual call, the timing brackets).
    pub fn floor(factory: Arc<S::Factory>) -> Self {
        Self {
            name: "(no-op floor)",
            origin: Origin::Floor,
            factory,
            inline_bytes: std::mem::size_of::<Noop>(),
            ledger: None,
        }
    }
}

/// Reads the ledger of a port's controller (consuming it); `None` if it is not that port.
pub type LedgerReader<S> = fn(Box<<S as HostStack>::Controller>) -> Option<LedgerFigures>;

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

/// The figures of a port controller's ledger.
pub(crate) fn ledger_of<A: CongestionAlgorithm>(port: &PortController<A>) -> Option<LedgerFigures> {
    let ledger = port.classifier().ledger()?;
    Some(LedgerFigures {
        heap_bytes: ledger.heap_bytes(),
        packets_held: ledger.packets_held(),
        batches_held: ledger.batches_held(),
    })
}

/// quinn's NewReno, Cubic and BBR, then the five ports, all at default settings.
pub fn contenders() -> Vec<Contender<crate::Quinn>> {
    crate::Quinn::contenders()
}

/// The no-op floor on quinn.
pub fn floor() -> Contender<crate::Quinn> {
    crate::Quinn::floor()
}

/// Builds [`Noop`] controllers (on either stack).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoopFactory;

/// A controller that does nothing: a fixed window of ten datagrams.
#[derive(Debug, Clone, Copy)]
pub struct Noop {
    pub(crate) window: u64,
}

impl Noop {
    /// Ten datagrams of `mtu` bytes.
    pub fn new(mtu: u16) -> Self {
        Self {
            window: u64::from(mtu) * 10,
        }
    }
}
