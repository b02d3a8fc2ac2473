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
        let slots = meta.len();
        self.socket
            .poll_recv_into(cx, bufs, slots, |i, from, len, local_ip| {
                let m = &mut meta[i];
                *m = RecvMeta::default();
                m.addr = from;
                m.len = len;
                m.stride = len;
                m.ecn = None;
                m.dst_ip = Some(local_ip);
            })
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        Ok(self.socket.local_addr())
    }

    fn may_fragment(&self) -> bool {
        false
    }
}
