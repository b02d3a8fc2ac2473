//! `noq::AsyncUdpSocket` over a [`SimSocket`], so noq endpoints run over the emulated link.

use std::io::{self, IoSliceMut};
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};

use noq::udp::{RecvMeta, Transmit};
use noq::{AsyncUdpSocket, UdpSender};

use super::SimSocket;

/// A noq socket for one endpoint of a [`super::SimLink`]; build endpoints on it with
/// `noq::Endpoint::new_with_abstract_socket`.
///
/// As [`super::QuinnSocket`]: it never reports `WouldBlock` (the link's queue drops instead),
/// carries no ECN marks, and does not fragment.
#[derive(Debug)]
pub struct NoqSocket {
    socket: SimSocket,
}

impl NoqSocket {
    /// Wraps `socket`.
    pub fn new(socket: SimSocket) -> Self {
        Self { socket }
    }
}

/// The sending half noq asks for per task: the link accepts every send, so it is always ready.
#[derive(Debug)]
struct Sender {
    socket: SimSocket,
}

impl UdpSender for Sender {
    fn poll_send(
        self: Pin<&mut Self>,
        transmit: &Transmit<'_>,
        _cx: &mut Context<'_>,
    ) -> Poll<io::Result<()>> {
        // One segment per transmit is advertised; split GSO batches anyway, each segment being
        // a datagram on the wire.
        let result = match transmit.segment_size {
            Some(size) if size > 0 && size < transmit.contents.len() => {
                transmit.contents.chunks(size).try_for_each(|segment| {
                    self.socket
                        .try_send_to(segment, transmit.destination)
                        .map(drop)
                })
            }
            _ => self
                .socket
                .try_send_to(transmit.contents, transmit.destination)
                .map(drop),
        };
        Poll::Ready(result)
    }
}

impl AsyncUdpSocket for NoqSocket {
    fn create_sender(&self) -> Pin<Box<dyn UdpSender>> {
        Box::pin(Sender {
            socket: self.socket.clone(),
        })
    }

    fn poll_recv(
        &mut self,
        cx: &mut Context<'_>,
        bufs: &mut [IoSliceMut<'_>],
        meta: &mut [RecvMeta],
    ) -> Poll<io::Result<usize>> {
        let max = bufs.len().min(meta.len());
        if max == 0 {
            return Poll::Ready(Ok(0));
        }
        let mut received = Vec::new();
        if self
            .socket
            .poll_recv_many(cx, max, &mut received)
            .is_pending()
        {
            return Poll::Pending;
        }
        let local_ip = self.socket.local_addr().ip();
        for ((buf, meta), (from, data)) in bufs.iter_mut().zip(meta.iter_mut()).zip(&received) {
            let len = data.len().min(buf.len());
            buf[..len].copy_from_slice(&data[..len]);
            *meta = RecvMeta::default();
            meta.addr = *from;
            meta.len = len;
            meta.stride = len;
            meta.ecn = None;
            meta.dst_ip = Some(local_ip);
        }
        Poll::Ready(Ok(received.len()))
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        Ok(self.socket.local_addr())
    }

    fn may_fragment(&self) -> bool {
        false
    }
}
