//! Datagrams on their way to one endpoint, released by a tokio timer at their delivery time.
//!
//! There is no delivery task: the receiver's `poll_recv` pops what is due and, if nothing is,
//! arms one timer for the earliest pending delivery. A sender that schedules an earlier
//! delivery wakes the receiver so it re-arms. Under a paused tokio clock the runtime jumps
//! straight to the next timer when every task is idle, which is what makes virtual time fast.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use bytes::Bytes;
use tokio::time::{Instant, Sleep};

use crate::link::DirectionId;

/// Timer deadline used when a delivery time does not fit the clock (about 30 years).
const FAR_FUTURE: Duration = Duration::from_secs(30 * 365 * 86_400);

/// A datagram scheduled for delivery.
#[derive(Debug)]
pub(crate) struct Pending {
    /// Delivery time since the link epoch.
    pub(crate) at: Duration,
    /// Tie-breaker: acceptance order, so equal times deliver in the order they were sent.
    pub(crate) seq: u64,
    /// The datagram's index in its direction.
    pub(crate) index: u64,
    pub(crate) direction: DirectionId,
    pub(crate) from: SocketAddr,
    pub(crate) data: Bytes,
}

impl PartialEq for Pending {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}

impl Eq for Pending {}

impl PartialOrd for Pending {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Pending {
    /// Reversed, so that `BinaryHeap` (a max-heap) pops the earliest delivery first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

/// One endpoint's incoming datagrams.
#[derive(Debug, Default)]
pub(crate) struct Inbox {
    heap: BinaryHeap<Pending>,
    /// The task that last found nothing due.
    waker: Option<Waker>,
    /// Timer for the earliest pending delivery, and the delivery time it is armed for.
    timer: Option<(Pin<Box<Sleep>>, Duration)>,
}

impl Inbox {
    /// Schedules a datagram. Returns the receiver's waker when the datagram became the earliest
    /// one, so the caller can wake it after releasing the lock.
    pub(crate) fn push(&mut self, pending: Pending) -> Option<Waker> {
        let earliest = self.heap.peek().is_none_or(|top| pending.at < top.at);
        self.heap.push(pending);
        if earliest { self.waker.take() } else { None }
    }

    /// Pops up to `max` datagrams due at `now` onto `out`; if none is due, registers `cx` to be woken at
    /// the earliest pending delivery (or when a new earliest one arrives).
    ///
    /// tokio's timers have millisecond resolution: a timer for time `t` fires at the first
    /// millisecond tick at or after `t`. When it has fired, everything scheduled up to the time
    /// it was armed for is due, even if the clock reads a hair earlier.
    pub(crate) fn poll_pop(
        &mut self,
        cx: &mut Context<'_>,
        epoch: Instant,
        now: Duration,
        max: usize,
        out: &mut Vec<Pending>,
    ) -> Poll<()> {
        let first = out.len();
        let mut due_until = now;
        for _ in 0..2 {
            while out.len() - first < max && self.heap.peek().is_some_and(|top| top.at <= due_until)
            {
                if let Some(pending) = self.heap.pop() {
                    out.push(pending);
                }
            }
            if out.len() > first {
                return Poll::Ready(());
            }
            match &self.waker {
                Some(waker) if waker.will_wake(cx.waker()) => {}
                _ => self.waker = Some(cx.waker().clone()),
            }
            let Some(next) = self.heap.peek().map(|top| top.at) else {
                return Poll::Pending;
            };
            // A delivery centuries away (saturated arithmetic) waits "forever" rather than
            // overflowing the clock.
            let deadline = epoch
                .checked_add(next)
                .unwrap_or_else(|| epoch + FAR_FUTURE);
            match &mut self.timer {
                Some((timer, armed_for)) => {
                    if *armed_for != next {
                        timer.as_mut().reset(deadline);
                        *armed_for = next;
                    }
                }
                None => self.timer = Some((Box::pin(tokio::time::sleep_until(deadline)), next)),
            }
            let Some((timer, _)) = &mut self.timer else {
                return Poll::Pending;
            };
            if timer.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
            due_until = due_until.max(next);
        }
        // Unreachable in practice: the second pass always finds `next` due.
        Poll::Pending
    }
}
