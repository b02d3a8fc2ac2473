//! [`Ns3Medium`]: an ns-3 simulation as a netsim [`Medium`], so a `netsim::SimLink` (and
//! everything built on it: `QuinnPair`, the harness's runs) carries its datagrams across ns-3.
//!
//! Lock-step with tokio's clock: every datagram is scheduled in ns-3 at its exact send time
//! (link time + [`Ns3Config::start`]), which is never in ns-3's past because ns-3 is only ever
//! advanced to the runtime's current time; every [`Ns3Config::step`] the link's driver task
//! advances ns-3 to now and hands over what it delivered. So a datagram that ns-3 delivers at
//! `t` reaches its receiver at the first step boundary at or after `t`: up to one step late,
//! never early. With the default 1 ms step that is the same as netsim's own link, whose
//! deliveries wait for tokio's 1 ms timer tick.

use std::any::Any;
use std::time::Duration;

use netsim::{
    DirectionAccounting, DirectionId, LinkAccounting, Medium, MediumDelivery, Offered, Side, Tally,
};

use crate::Error;
use crate::config::Ns3Config;
use crate::session::Session;
use crate::stats::{Ns3DirectionStats, Ns3Stats};

/// An ns-3 802.11 ad hoc network between endpoint A (the source node) and endpoint B (the
/// sink node), as a netsim [`Medium`].
#[derive(Debug)]
pub struct Ns3Medium {
    session: Session,
    seed: u64,
    start: Duration,
    step: Duration,
    next_index: [u64; 2],
}

impl Ns3Medium {
    /// Builds the network of `config` in ns-3, seeded with `seed`, and runs it to
    /// [`Ns3Config::start`] (the link epoch). See [`Session::new`] for the one-simulation-per-
    /// process rule.
    pub fn new(config: &Ns3Config, seed: u64) -> Result<Self, Error> {
        let mut session = Session::new(config, seed)?;
        session.run_until(config.start);
        Ok(Self {
            session,
            seed,
            start: config.start,
            step: config.step,
            next_index: [0, 0],
        })
    }

    /// What ns-3 did so far.
    pub fn stats(&self) -> Ns3Stats {
        self.session.stats()
    }
}

fn sender(direction: DirectionId) -> (Side, usize) {
    match direction {
        DirectionId::AToB => (Side::A, 0),
        DirectionId::BToA => (Side::B, 1),
    }
}

/// netsim's accounting view of one direction. ns-3's drop reasons map onto netsim's as:
/// interface queue -> `queue`; MAC retry limit, no route, routing buffer, TTL and other ->
/// `breakage`. `delivered` counts arrivals only, so `offered = delivered + dropped` does not
/// hold while datagrams are in flight. There is no physical limit (`capacity_bytes` is 0):
/// an 802.11 network's capacity depends on the traffic itself. `up_seconds` is the share of
/// route-availability samples that had a path, times the elapsed time.
fn accounting_of(stats: &Ns3DirectionStats, elapsed: f64, up_fraction: f64) -> DirectionAccounting {
    let mut accounting = DirectionAccounting {
        offered: stats.offered,
        delivered: stats.delivered,
        elapsed_seconds: elapsed,
        up_seconds: up_fraction * elapsed,
        ..DirectionAccounting::default()
    };
    let drops = &stats.drops;
    accounting.dropped.queue = Tally {
        datagrams: drops.mac_queue,
        bytes: 0,
    };
    accounting.dropped.breakage = Tally {
        datagrams: drops.mac_retry
            + drops.no_route
            + drops.routing_buffer
            + drops.ttl
            + drops.other,
        bytes: 0,
    };
    accounting
}

impl Medium for Ns3Medium {
    fn offer(&mut self, direction: DirectionId, now: Duration, data: &[u8]) -> Offered {
        let (side, slot) = sender(direction);
        let index = self.next_index[slot];
        self.next_index[slot] += 1;
        self.session.send(side, self.start + now, index, data);
        Offered::Later
    }

    fn deliver_until(&mut self, now: Duration, out: &mut Vec<MediumDelivery>) {
        self.session.run_until(self.start + now);
        while let Some(delivered) = self.session.pop() {
            let direction = match delivered.to {
                Side::B => DirectionId::AToB,
                Side::A => DirectionId::BToA,
            };
            out.push(MediumDelivery {
                direction,
                index: delivered.index,
                at: delivered.at.saturating_sub(self.start),
                data: delivered.data,
            });
        }
    }

    fn step(&self) -> Option<Duration> {
        Some(self.step)
    }

    fn accounting(&mut self, now: Duration) -> LinkAccounting {
        let stats = self.session.stats();
        let elapsed = now.as_secs_f64();
        let up = stats.route_available.unwrap_or(0.0);
        LinkAccounting {
            seed: self.seed,
            a_to_b: accounting_of(&stats.a_to_b, elapsed, up),
            b_to_a: accounting_of(&stats.b_to_a, elapsed, up),
        }
    }

    fn seed(&self) -> u64 {
        self.seed
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// A quinn client/server pair (client on the source node, server on the sink node) over the
/// ns-3 network of `config`, seeded with `seed`. Call `build()` on it inside a virtual-time
/// runtime (`netsim::virtual_runtime`).
pub fn quinn_pair(
    config: &Ns3Config,
    seed: u64,
) -> Result<netsim::quinn_pair::QuinnPairBuilder, Error> {
    Ok(netsim::quinn_pair::QuinnPair::with_medium(Box::new(
        Ns3Medium::new(config, seed)?,
    )))
}
