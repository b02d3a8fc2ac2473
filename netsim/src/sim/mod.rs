//! The tokio layer: an in-process endpoint pair joined by a [`Link`].
//!
//! [`SimLink`] owns the link and the two endpoints' inboxes. Each endpoint is reached through a
//! stack-neutral [`SimSocket`] (async `send_to` / `recv_from` of byte datagrams, for sans-IO
//! stacks such as quiche) or through [`SimLink::quinn_socket`], a `quinn::AsyncUdpSocket` for
//! `quinn::Endpoint::new_with_abstract_socket` (and, feature `noq`, `SimLink::noq_socket`, the
//! same for noq).
//!
//! The same code runs in virtual and real time: the link reads tokio's clock and delivers with
//! tokio timers. On a runtime from [`virtual_runtime`] the clock is paused and jumps to the next
//! timer whenever all tasks are idle, so a run takes as long as its CPU work and is identical
//! for the same seed; on a [`real_runtime`] it runs in wall-clock time.
//!
//! tokio's timers have 1 ms resolution: a datagram due at `t` is received at the first
//! millisecond tick at or after `t` (up to 1 ms late). The [`Verdict`]
//! times, the accounting and the timeline's `scheduled_at` keep full nanosecond precision.
//!
//! A side may have more endpoints than its first: [`SimLink::attach`] adds one with an address of
//! its own and an access link of its own, a constant one-way delay in both directions (flows of
//! different round-trip times over one bottleneck).
//!
//! What carries the datagrams is a [`Medium`]: netsim's own [`Link`] by default
//! ([`SimLink::builder`]), or another simulator ([`SimLink::with_medium`]) such as the ns-3
//! backend of the `netsim-ns3` crate, which the link drives in lock-step with the runtime's
//! clock.

mod inbox;
mod medium;
#[cfg(feature = "noq")]
mod noq_socket;
#[cfg(feature = "quinn")]
mod quinn_socket;
mod runtime;
mod socket;

pub use medium::{Medium, MediumDelivery, Offered};
#[cfg(feature = "noq")]
pub use noq_socket::NoqSocket;
#[cfg(feature = "quinn")]
pub use quinn_socket::QuinnSocket;
pub use runtime::{Clock, build_runtime, real_runtime, virtual_runtime};
pub use socket::SimSocket;

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;

use bytes::Bytes;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use crate::config_error::ConfigError;
use crate::link::{DirectionId, Link, LinkAccounting, LinkConfig, Verdict};
use inbox::{Inbox, Pending};

/// Which endpoint of the pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// Endpoint A (sends in [`DirectionId::AToB`]); the client in a quinn pair.
    A,
    /// Endpoint B (sends in [`DirectionId::BToA`]); the server in a quinn pair.
    B,
}

impl Side {
    fn index(self) -> usize {
        match self {
            Self::A => 0,
            Self::B => 1,
        }
    }

    fn peer(self) -> Self {
        match self {
            Self::A => Self::B,
            Self::B => Self::A,
        }
    }

    /// The direction this side sends in.
    pub fn sending_direction(self) -> DirectionId {
        match self {
            Self::A => DirectionId::AToB,
            Self::B => DirectionId::BToA,
        }
    }
}

/// One received datagram, as recorded by [`SimLink::timeline`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimelineEntry {
    /// Direction it travelled.
    pub direction: DirectionId,
    /// Its 0-based index among the datagrams offered in that direction.
    pub index: u64,
    /// Payload length in bytes.
    pub len: usize,
    /// Delivery time the link computed, in nanoseconds since the link epoch.
    pub scheduled_at_nanos: u64,
    /// When the receiver got it (tokio clock), in nanoseconds since the link epoch.
    pub received_at_nanos: u64,
    /// 64-bit FNV-1a digest of the payload.
    pub digest: u64,
}

/// Default address of endpoint A: loopback, never bound (the pair is in-process).
pub const DEFAULT_ADDR_A: SocketAddr =
    SocketAddr::new(std::net::IpAddr::V4(Ipv4Addr::new(127, 0, 0, 1)), 40_001);
/// Default address of endpoint B.
pub const DEFAULT_ADDR_B: SocketAddr =
    SocketAddr::new(std::net::IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2)), 40_002);

/// Endpoint `0` is side A's first, `1` side B's; [`SimLink::attach`] appends more.
const PRIMARY: [usize; 2] = [0, 1];

/// Most endpoints one link takes ([`SimLink::attach`]), the two first included.
pub const MAX_ENDPOINTS: usize = 1024;

/// Longest access link [`SimLink::attach`] accepts (one way).
pub const MAX_ACCESS_DELAY: Duration = Duration::from_secs(10);

/// One endpoint on the link: its side, address and access link.
#[derive(Clone, Copy, Debug)]
struct EndpointSlot {
    side: Side,
    addr: SocketAddr,
    /// One-way delay of the endpoint's own access link, added to every datagram it sends or
    /// receives (zero for the two first endpoints).
    access_delay: Duration,
}

/// Mutable state behind the link's lock.
#[derive(Debug)]
struct State {
    medium: Box<dyn Medium>,
    /// Every endpoint, indexed like `inboxes`.
    endpoints: Vec<EndpointSlot>,
    inboxes: Vec<Inbox>,
    /// Delivery tie-breaker counter.
    seq: u64,
    timeline: Option<Vec<TimelineEntry>>,
    /// Datagrams sent to an address that is not the peer's (discarded, as UDP would).
    misaddressed: u64,
}

#[derive(Debug)]
struct Shared {
    state: Mutex<State>,
    epoch: Instant,
    addrs: [SocketAddr; 2],
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic elsewhere while holding the lock leaves consistent data (every update is
        // completed before unlocking), so recover rather than propagate the poison.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn now(&self) -> Duration {
        Instant::now().saturating_duration_since(self.epoch)
    }

    /// Offers `data` from endpoint `from` to `to`; never blocks (the link's queue decides).
    fn send(&self, from: usize, to: SocketAddr, data: &[u8]) {
        let mut state = self.lock();
        let Some(sender) = state.endpoints.get(from).copied() else {
            return;
        };
        let peer = sender.side.peer();
        let receiver = if to == self.addrs[peer.index()] {
            Some(PRIMARY[peer.index()])
        } else {
            state
                .endpoints
                .iter()
                .position(|slot| slot.side == peer && slot.addr == to)
        };
        let Some(receiver) = receiver else {
            state.misaddressed += 1;
            tracing::debug!(side = ?sender.side, %to, len = data.len(), "datagram to an unknown address discarded");
            return;
        };
        let now = self.now();
        let direction = sender.side.sending_direction();
        let Offered::Now { index, verdict } = state.medium.offer(direction, now, data) else {
            return; // the driver task hands it over when the medium delivers it
        };
        let Verdict::Deliver(delivery) = verdict else {
            return;
        };
        // The access links sit outside the shared link, so they add a constant delay (as if the
        // sender's were crossed before the link's queue: the flow's whole timeline shifts by it).
        let access = sender
            .access_delay
            .saturating_add(state.endpoints[receiver].access_delay);
        let at = delivery.at.saturating_add(access);
        let data = Bytes::copy_from_slice(data);
        let copies = if delivery.duplicate { 2 } else { 1 };
        let mut to_wake = None;
        for _ in 0..copies {
            let route = Route {
                direction,
                from: sender.addr,
                to: receiver,
            };
            to_wake = self
                .schedule(&mut state, route, index, at, data.clone())
                .or(to_wake);
        }
        drop(state);
        if let Some(waker) = to_wake {
            waker.wake();
        }
    }

    /// Puts a datagram on `route` into the receiver's inbox, due at `at`. Returns the
    /// receiver's waker if it has to re-arm.
    fn schedule(
        &self,
        state: &mut State,
        route: Route,
        index: u64,
        at: Duration,
        data: Bytes,
    ) -> Option<std::task::Waker> {
        state.seq += 1;
        let pending = Pending {
            at,
            seq: state.seq,
            index,
            direction: route.direction,
            from: route.from,
            data,
        };
        state.inboxes.get_mut(route.to)?.push(pending)
    }

    /// The route between the two first endpoints in `direction` (a stepped medium carries
    /// only theirs: [`SimLink::attach`] refuses it).
    fn primary_route(&self, direction: DirectionId) -> Route {
        let sender = match direction {
            DirectionId::AToB => Side::A,
            DirectionId::BToA => Side::B,
        };
        Route {
            direction,
            from: self.addrs[sender.index()],
            to: PRIMARY[sender.peer().index()],
        }
    }

    /// One lock-step of a stepped medium: advance it to now and hand over what it delivered.
    fn step_medium(&self, out: &mut Vec<MediumDelivery>) {
        let mut state = self.lock();
        let now = self.now();
        state.medium.deliver_until(now, out);
        let mut to_wake = Vec::new();
        for delivery in out.drain(..) {
            let waker = self.schedule(
                &mut state,
                self.primary_route(delivery.direction),
                delivery.index,
                delivery.at,
                delivery.data,
            );
            to_wake.extend(waker);
        }
        drop(state);
        for waker in to_wake {
            waker.wake();
        }
    }

    /// Pops up to `max` due datagrams for endpoint `endpoint`, or registers `cx` for the next
    /// one.
    fn poll_recv(
        &self,
        endpoint: usize,
        cx: &mut std::task::Context<'_>,
        max: usize,
        out: &mut Vec<Pending>,
    ) -> std::task::Poll<()> {
        let mut state = self.lock();
        let now = self.now();
        let first_new = out.len();
        let Some(inbox) = state.inboxes.get_mut(endpoint) else {
            return std::task::Poll::Pending;
        };
        let poll = inbox.poll_pop(cx, self.epoch, now, max, out);
        if let Some(timeline) = &mut state.timeline {
            let received_at_nanos = nanos_u64(now);
            for pending in &out[first_new..] {
                timeline.push(TimelineEntry {
                    direction: pending.direction,
                    index: pending.index,
                    len: pending.data.len(),
                    scheduled_at_nanos: nanos_u64(pending.at),
                    received_at_nanos,
                    digest: fnv1a(&pending.data),
                });
            }
        }
        poll
    }
}

/// Where a delivered datagram goes: its direction, its sender's address and the receiving
/// endpoint.
#[derive(Clone, Copy, Debug)]
struct Route {
    direction: DirectionId,
    from: SocketAddr,
    to: usize,
}

fn nanos_u64(duration: Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}

fn fnv1a(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The lock-step driver of a stepped medium: every `step` of the runtime's clock (aligned to
/// the link epoch), advance the medium to now and deliver what arrived. It ends when the link
/// is dropped.
async fn drive_medium(shared: Weak<Shared>, epoch: Instant, step: Duration) {
    let mut out = Vec::new();
    let mut next = epoch + step;
    loop {
        tokio::time::sleep_until(next).await;
        let Some(shared) = shared.upgrade() else {
            return;
        };
        shared.step_medium(&mut out);
        next += step;
    }
}

/// What a [`SimLinkBuilder`] builds the link on.
#[derive(Debug)]
enum MediumSource {
    /// netsim's own link, validated at build time.
    Link(Box<LinkConfig>, u64),
    /// A medium built by the caller.
    Custom(Box<dyn Medium>),
}

/// Builder for a [`SimLink`].
#[derive(Debug)]
pub struct SimLinkBuilder {
    medium: MediumSource,
    addrs: [SocketAddr; 2],
    record_timeline: bool,
}

impl SimLinkBuilder {
    /// Sets the endpoints' addresses (defaults [`DEFAULT_ADDR_A`], [`DEFAULT_ADDR_B`]). They are
    /// labels only: nothing is bound.
    pub fn addresses(mut self, a: SocketAddr, b: SocketAddr) -> Self {
        self.addrs = [a, b];
        self
    }

    /// Records every received datagram in [`SimLink::timeline`] (default off: it grows with
    /// the run).
    pub fn record_timeline(mut self, record: bool) -> Self {
        self.record_timeline = record;
        self
    }

    /// Validates the config and builds the link. Call it inside the tokio runtime that will
    /// drive the link: the link's epoch (time zero) is that runtime's clock at this moment. A
    /// stepped medium ([`Medium::step`]) gets its driver task spawned on that runtime.
    pub fn build(self) -> Result<SimLink, ConfigError> {
        if self.addrs[0] == self.addrs[1] {
            return Err(ConfigError::invalid(
                "addresses",
                "endpoints A and B need different addresses",
            ));
        }
        let medium: Box<dyn Medium> = match self.medium {
            MediumSource::Link(config, seed) => Box::new(Link::new(*config, seed)?),
            MediumSource::Custom(medium) => medium,
        };
        let seed = medium.seed();
        let step = medium.step();
        tracing::info!(seed, a = %self.addrs[0], b = %self.addrs[1], "netsim link up");
        let endpoints = [Side::A, Side::B]
            .map(|side| EndpointSlot {
                side,
                addr: self.addrs[side.index()],
                access_delay: Duration::ZERO,
            })
            .to_vec();
        let state = State {
            medium,
            inboxes: endpoints.iter().map(|_| Inbox::default()).collect(),
            endpoints,
            seq: 0,
            timeline: self.record_timeline.then(Vec::new),
            misaddressed: 0,
        };
        let epoch = Instant::now();
        let shared = Arc::new(Shared {
            state: Mutex::new(state),
            epoch,
            addrs: self.addrs,
        });
        if let Some(step) = step.filter(|step| !step.is_zero()) {
            tokio::spawn(drive_medium(Arc::downgrade(&shared), epoch, step));
        }
        Ok(SimLink { shared })
    }
}

/// An emulated link between two in-process endpoints. Cheap to clone (a shared handle).
///
/// Requires a tokio runtime with time enabled (both [`virtual_runtime`] and [`real_runtime`]
/// qualify) for receiving.
#[derive(Clone, Debug)]
pub struct SimLink {
    shared: Arc<Shared>,
}

impl SimLink {
    /// A link with default addresses and no timeline recording.
    pub fn new(config: LinkConfig, seed: u64) -> Result<Self, ConfigError> {
        Self::builder(config, seed).build()
    }

    /// A builder for a link with non-default options.
    pub fn builder(config: LinkConfig, seed: u64) -> SimLinkBuilder {
        SimLinkBuilder {
            medium: MediumSource::Link(Box::new(config), seed),
            addrs: [DEFAULT_ADDR_A, DEFAULT_ADDR_B],
            record_timeline: false,
        }
    }

    /// A builder for a link carried by `medium` instead of netsim's own [`Link`] (for example
    /// the ns-3 backend of the `netsim-ns3` crate).
    pub fn with_medium(medium: Box<dyn Medium>) -> SimLinkBuilder {
        SimLinkBuilder {
            medium: MediumSource::Custom(medium),
            addrs: [DEFAULT_ADDR_A, DEFAULT_ADDR_B],
            record_timeline: false,
        }
    }

    /// The stack-neutral datagram socket of `side`'s first endpoint.
    pub fn socket(&self, side: Side) -> SimSocket {
        let endpoint = PRIMARY[side.index()];
        SimSocket::new(self.shared.clone(), endpoint, side, self.addr(side))
    }

    /// Adds an endpoint on `side` behind an access link of its own: every datagram it sends
    /// or receives takes `access_delay` longer, one way, than the link alone gives (so its
    /// round trip to an endpoint of the other side grows by twice that). The access link is
    /// never a bottleneck: it neither queues nor drops. Its address is the side's first
    /// address with the next free port; the other side's endpoints reach it there.
    ///
    /// This places a flow's access delay after the shared link instead of before it, which
    /// shifts that flow's whole timeline by `access_delay` and changes nothing else: every
    /// loop from the shared link's queue back to it crosses the same delays.
    ///
    /// Errors: a medium that decides later ([`Medium::step`], e.g. ns-3) carries the two
    /// first endpoints only; `access_delay` above [`MAX_ACCESS_DELAY`]; more than
    /// [`MAX_ENDPOINTS`] endpoints.
    pub fn attach(&self, side: Side, access_delay: Duration) -> Result<SimSocket, ConfigError> {
        crate::config_error::check_duration_at_most(
            "access_delay",
            access_delay,
            MAX_ACCESS_DELAY,
        )?;
        let mut state = self.shared.lock();
        if state.medium.step().is_some() {
            return Err(ConfigError::invalid(
                "access_delay",
                "endpoints with an access link of their own need netsim's link; a stepped \
                 medium (ns-3) carries the two first endpoints only",
            ));
        }
        if state.endpoints.len() >= MAX_ENDPOINTS {
            return Err(ConfigError::out_of_range(
                "endpoints",
                state.endpoints.len() + 1,
                format!("at most {MAX_ENDPOINTS} per link"),
            ));
        }
        let first = self.addr(side);
        let taken = |port: u16| {
            state
                .endpoints
                .iter()
                .any(|slot| slot.addr.port() == port && slot.addr.ip() == first.ip())
        };
        let port = (1..=u16::MAX)
            .map(|k| first.port().wrapping_add(k))
            .find(|&port| !taken(port))
            .unwrap_or(first.port());
        let addr = SocketAddr::new(first.ip(), port);
        let endpoint = state.endpoints.len();
        state.endpoints.push(EndpointSlot {
            side,
            addr,
            access_delay,
        });
        state.inboxes.push(Inbox::default());
        tracing::debug!(?side, %addr, access_delay_ms = access_delay.as_secs_f64() * 1e3, "endpoint attached");
        Ok(SimSocket::new(self.shared.clone(), endpoint, side, addr))
    }

    /// A `noq::AsyncUdpSocket` for `side`, for `noq::Endpoint::new_with_abstract_socket`.
    #[cfg(feature = "noq")]
    pub fn noq_socket(&self, side: Side) -> Box<dyn noq::AsyncUdpSocket> {
        self.socket(side).into_noq()
    }

    /// A `quinn::AsyncUdpSocket` for `side`, for `quinn::Endpoint::new_with_abstract_socket`.
    #[cfg(feature = "quinn")]
    pub fn quinn_socket(&self, side: Side) -> Arc<dyn quinn::AsyncUdpSocket> {
        self.socket(side).into_quinn()
    }

    /// The address of `side`.
    pub fn addr(&self, side: Side) -> SocketAddr {
        self.shared.addrs[side.index()]
    }

    /// Time since the link epoch on the runtime's clock.
    pub fn now(&self) -> Duration {
        self.shared.now()
    }

    /// The run seed.
    pub fn seed(&self) -> u64 {
        self.shared.lock().medium.seed()
    }

    /// The accounting up to now.
    pub fn accounting(&self) -> LinkAccounting {
        let now = self.shared.now();
        self.shared.lock().medium.accounting(now)
    }

    /// Calls `f` with the medium (for a concrete medium's own reports, through
    /// [`Medium::as_any`]).
    pub fn inspect_medium<R>(&self, f: impl FnOnce(&dyn Medium) -> R) -> R {
        f(self.shared.lock().medium.as_ref())
    }

    /// Every datagram received so far, in receive order (empty unless recording was enabled).
    pub fn timeline(&self) -> Vec<TimelineEntry> {
        self.shared.lock().timeline.clone().unwrap_or_default()
    }

    /// Datagrams discarded because they were sent to an address other than the peer's.
    pub fn misaddressed(&self) -> u64 {
        self.shared.lock().misaddressed
    }
}
