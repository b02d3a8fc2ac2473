//! The stack-neutral datagram API: byte datagrams with addresses, async or polled.

use std::future::poll_fn;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::task::{Context, Poll};

use super::{Shared, Side};
use crate::sim::inbox::Pending;

/// One endpoint of a [`super::SimLink`]: sends to the peer through the emulated link and
/// receives what the link delivers. Behaves like a connected-or-not UDP socket:
///
/// - sending never blocks or fails: the link's drop-tail queue decides what is lost;
/// - a datagram sent to an address no endpoint of the other side has is discarded (counted in
///   [`super::SimLink::misaddressed`]);
/// - a receive buffer shorter than the datagram gets its first bytes (the rest is discarded),
///   and the length returned is the number of bytes copied.
///
/// Cloning gives another handle to the same endpoint. Receive from one task at a time: the
/// endpoint remembers one waiting task, as a tokio `UdpSocket` does for `poll_recv_from`.
#[derive(Clone, Debug)]
pub struct SimSocket {
    shared: Arc<Shared>,
    /// Which of the link's endpoints this is.
    endpoint: usize,
    side: Side,
    addr: SocketAddr,
}

impl SimSocket {
    pub(super) fn new(shared: Arc<Shared>, endpoint: usize, side: Side, addr: SocketAddr) -> Self {
        Self {
            shared,
            endpoint,
            side,
            addr,
        }
    }

    /// This endpoint's address.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The address of the other side's first endpoint.
    pub fn peer_addr(&self) -> SocketAddr {
        self.shared.addrs[self.side.peer().index()]
    }

    /// This endpoint as a `quinn::AsyncUdpSocket`, for
    /// `quinn::Endpoint::new_with_abstract_socket`.
    #[cfg(feature = "quinn")]
    pub fn into_quinn(self) -> Arc<dyn quinn::AsyncUdpSocket> {
        Arc::new(super::QuinnSocket::new(self))
    }

    /// This endpoint as a `noq::AsyncUdpSocket`, for `noq::Endpoint::new_with_abstract_socket`.
    #[cfg(feature = "noq")]
    pub fn into_noq(self) -> Box<dyn noq::AsyncUdpSocket> {
        Box::new(super::NoqSocket::new(self))
    }

    /// Which side this is.
    pub fn side(&self) -> Side {
        self.side
    }

    /// Sends `data` to `to` now. Returns `data.len()`: the datagram was handed to the link,
    /// which may still drop it.
    pub fn try_send_to(&self, data: &[u8], to: SocketAddr) -> io::Result<usize> {
        self.shared.send(self.endpoint, to, data);
        Ok(data.len())
    }

    /// Async form of [`SimSocket::try_send_to`] (it completes immediately).
    pub async fn send_to(&self, data: &[u8], to: SocketAddr) -> io::Result<usize> {
        self.try_send_to(data, to)
    }

    /// Polls for up to `max` due datagrams, appended to `out` as `(source, payload)`.
    pub(crate) fn poll_recv_many(
        &self,
        cx: &mut Context<'_>,
        max: usize,
        out: &mut Vec<(SocketAddr, bytes::Bytes)>,
    ) -> Poll<()> {
        let mut pending: Vec<Pending> = Vec::new();
        let poll = self.shared.poll_recv(self.endpoint, cx, max, &mut pending);
        out.extend(pending.into_iter().map(|p| (p.from, p.data)));
        poll
    }

    /// Polls for as many due datagrams as `bufs` has buffers, copies each into the next buffer
    /// (truncated to it) and calls `meta(i, source, length, local address)` for datagram `i`:
    /// the body of a QUIC stack's `AsyncUdpSocket::poll_recv`, whose metadata type is the
    /// stack's own. `max` caps the count (the stack's metadata slots).
    #[cfg(feature = "quinn")]
    pub(crate) fn poll_recv_into(
        &self,
        cx: &mut Context<'_>,
        bufs: &mut [std::io::IoSliceMut<'_>],
        max: usize,
        mut meta: impl FnMut(usize, SocketAddr, usize, std::net::IpAddr),
    ) -> Poll<io::Result<usize>> {
        let max = bufs.len().min(max);
        if max == 0 {
            return Poll::Ready(Ok(0));
        }
        let mut received = Vec::new();
        if self.poll_recv_many(cx, max, &mut received).is_pending() {
            return Poll::Pending;
        }
        let local_ip = self.local_addr().ip();
        for (i, (buf, (from, data))) in bufs.iter_mut().zip(&received).enumerate() {
            let len = data.len().min(buf.len());
            buf[..len].copy_from_slice(&data[..len]);
            meta(i, *from, len, local_ip);
        }
        Poll::Ready(Ok(received.len()))
    }

    /// Polls for one datagram, copied into `buf`.
    pub fn poll_recv_from(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        let mut received = Vec::with_capacity(1);
        if self.poll_recv_many(cx, 1, &mut received).is_pending() {
            return Poll::Pending;
        }
        match received.pop() {
            Some((from, data)) => {
                let len = data.len().min(buf.len());
                buf[..len].copy_from_slice(&data[..len]);
                Poll::Ready(Ok((len, from)))
            }
            None => Poll::Pending,
        }
    }

    /// Receives one datagram into `buf`: `(bytes copied, source)`. Cancel-safe: a datagram is
    /// only taken from the link when this completes.
    pub async fn recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        poll_fn(|cx| self.poll_recv_from(cx, buf)).await
    }
}
