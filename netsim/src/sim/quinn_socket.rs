//! `quinn::AsyncUdpSocket` over a [`SimSocket`], so quinn endpoints run over the emulated link.

use std::io::{self, IoSliceMut};
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};

use quinn::udp::{RecvMeta, Transmit};
use quinn::{AsyncUdpSocket, UdpPoller};

use super::SimSocket;

/// A quinn socket for one endpoint of a [`super::SimLink`]; build endpoints on it with
/// `quinn::Endpoint::new_with_abstract_socket`.
///
/// It never reports `WouldBlock` (the link's queue drops instead), carries no ECN marks, and
/// does not fragment: datagrams larger than the link MTU are dropped, which quinn's path MTU
/// discovery handles as it would on a real path.
#[derive(Debug)]
pub struct QuinnSocket {
    socket: SimSocket,
}

impl QuinnSocket {
    /// Wraps `socket`.
    pub fn new(socket: SimSocket) -> Self {
        Self { socket }
    }
}

/// The link accepts every send, so the socket is always writable.
#[derive(Debug)]
struct AlwaysWritable;

impl UdpPoller for AlwaysWritable {
    fn poll_writable(self: Pin<&mut Self>, _cx: &mut Context) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

impl AsyncUdpSocket for QuinnSocket {
    fn create_io_poller(self: std::sync::Arc<Self>) -> Pin<Box<dyn UdpPoller>> {
        Box::pin(AlwaysWritable)
    }

    fn try_send(&self, transmit: &Transmit) -> io::Result<()> {
        // We advertise one segment per transmit, but split GSO batches anyway in case a
        // caller sends one: each segment is a separate datagram on the wire.
        match transmit.segment_size {
            Some(size) if size > 0 && size < transmit.contents.len() => {
                for segment in transmit.contents.chunks(size) {
                    self.socket.try_send_to(segment, transmit.destination)?;
                }
            }
            _ => {
                self.socket
                    .try_send_to(transmit.contents, transmit.destination)?;
            }
        }
        Ok(())
    }

    fn poll_recv(
        &self,
        cx: &mut Context,
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
