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
//!
//! Several pairs ([`Ns3Config::sources`]): one simulation carries every pair, and each pair is
//! a medium of its own ([`Ns3Medium::network`]) for a link of its own. The media share the
//! simulation: whichever link's driver steps first advances ns-3 to now (the others find it
//! there) and files every delivery under its pair, where that pair's medium collects it.

use std::any::Any;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use netsim::{DirectionId, LinkAccounting, Medium, MediumDelivery, Offered, Side};

use crate::Error;
use crate::config::Ns3Config;
use crate::session::{Delivered, Session};
use crate::stats::Ns3Stats;

/// The simulation the pairs' media share, with the deliveries each pair has not collected.
#[derive(Debug)]
struct Network {
    session: Session,
    undelivered: Vec<VecDeque<Delivered>>,
}

impl Network {
    /// Advances ns-3 to `at` and files what it delivered under each pair.
    fn run_until(&mut self, at: Duration) {
        self.session.run_until(at);
        while let Some(delivered) = self.session.pop() {
            if let Some(queue) = self.undelivered.get_mut(delivered.pair as usize) {
                queue.push_back(delivered);
            }
        }
    }
}

/// One pair of an ns-3 802.11 ad hoc network, endpoint A on its source node and endpoint B on
/// its sink node, as a netsim [`Medium`].
#[derive(Debug)]
pub struct Ns3Medium {
    network: Arc<Mutex<Network>>,
    pair: u32,
    seed: u64,
    start: Duration,
    step: Duration,
    next_index: [u64; 2],
}

impl Ns3Medium {
    /// Builds the network of `config` in ns-3, seeded with `seed`, runs it to
    /// [`Ns3Config::start`] (the link epoch), and returns the medium of its first pair (the
    /// only one unless [`Ns3Config::sources`] is above 1; see [`Ns3Medium::network`]). See
    /// [`Session::new`] for the one-simulation-per-process rule.
    pub fn new(config: &Ns3Config, seed: u64) -> Result<Self, Error> {
        let mut media = Self::network(config, seed)?;
        Ok(media.swap_remove(0))
    }

    /// Builds the network of `config` as [`Ns3Medium::new`] does and returns one medium per
    /// pair of [`Ns3Config::pairs`], in that order, all carried by the one simulation.
    pub fn network(config: &Ns3Config, seed: u64) -> Result<Vec<Self>, Error> {
        let mut session = Session::new(config, seed)?;
        session.run_until(config.start);
        let pairs = config.pairs().len();
        let network = Arc::new(Mutex::new(Network {
            session,
            undelivered: vec![VecDeque::new(); pairs],
        }));
        Ok((0..pairs as u32)
            .map(|pair| Self {
                network: network.clone(),
                pair,
                seed,
                start: config.start,
                step: config.step,
                next_index: [0, 0],
            })
            .collect())
    }

    /// This medium's pair: its index in [`Ns3Config::pairs`].
    pub fn pair(&self) -> u32 {
        self.pair
    }

    /// The spans of link time up to `until` in which this pair had no path of in-range hops
    /// (see [`Session::route_down`]): the route-down periods of a cwnd plot.
    pub fn route_down(&self, until: Duration) -> Vec<(Duration, Duration)> {
        self.shared()
            .session
            .route_down(self.pair, self.start + until)
            .into_iter()
            .map(|(from, to)| {
                (
                    from.saturating_sub(self.start),
                    to.saturating_sub(self.start),
                )
            })
            .filter(|(from, to)| from < to)
            .collect()
    }

    /// What ns-3 did so far, over every pair of the network.
    pub fn stats(&self) -> Ns3Stats {
        self.shared().session.stats()
    }

    fn shared(&self) -> std::sync::MutexGuard<'_, Network> {
        self.network.lock().unwrap_or_else(PoisonError::into_inner)
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
impl Medium for Ns3Medium {
    fn offer(&mut self, direction: DirectionId, now: Duration, data: &[u8]) -> Offered {
        let (side, slot) = sender(direction);
        let index = self.next_index[slot];
        self.next_index[slot] += 1;
        let (pair, at) = (self.pair, self.start + now);
        self.shared().session.send(pair, side, at, index, data);
        Offered::Later
    }

    fn deliver_until(&mut self, now: Duration, out: &mut Vec<MediumDelivery>) {
        let mut network = self.shared();
        network.run_until(self.start + now);
        let Some(queue) = network.undelivered.get_mut(self.pair as usize) else {
            return;
        };
        while let Some(delivered) = queue.pop_front() {
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

    /// The whole network's accounting (every pair's datagrams): ns-3 counts drops by
    /// direction, not by pair.
    fn accounting(&mut self, now: Duration) -> LinkAccounting {
        let stats = self.stats();
        let elapsed = now.as_secs_f64();
        let up = stats.route_available.unwrap_or(0.0);
        LinkAccounting {
            seed: self.seed,
            a_to_b: stats.a_to_b.accounting(elapsed, up),
            b_to_a: stats.b_to_a.accounting(elapsed, up),
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
/// runtime (`netsim::virtual_runtime`). With several [`Ns3Config::sources`], this is the
/// first pair's; [`quinn_pairs`] gives every pair's.
pub fn quinn_pair(
    config: &Ns3Config,
    seed: u64,
) -> Result<netsim::quinn_pair::QuinnPairBuilder, Error> {
    Ok(netsim::quinn_pair::QuinnPair::with_medium(Box::new(
        Ns3Medium::new(config, seed)?,
    )))
}

/// One quinn client/server pair per pair of [`Ns3Config::pairs`], all over one ns-3 network
/// of `config` seeded with `seed`: the papers' many-source experiments. Build them inside one
/// virtual-time runtime.
pub fn quinn_pairs(
    config: &Ns3Config,
    seed: u64,
) -> Result<Vec<netsim::quinn_pair::QuinnPairBuilder>, Error> {
    Ok(Ns3Medium::network(config, seed)?
        .into_iter()
        .map(|medium| netsim::quinn_pair::QuinnPair::with_medium(Box::new(medium)))
        .collect())
}
