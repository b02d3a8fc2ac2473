//! A quiche connection driven over a netsim [`SimSocket`].
//!
//! quiche is sans-IO: the driver feeds it the datagrams the link delivers (`recv`), puts on the
//! link what it produces (`send`), and fires its timer (`timeout_instant` / `on_timeout`). The
//! loop, per wake-up:
//!
//! 1. let the application step (write or read the stream);
//! 2. flush: send every packet quiche produces, honouring its pacing: a packet whose
//!    `SendInfo::at` is more than [`PACING_GRANULARITY`] away waits in a FIFO until then, and
//!    no new packet is produced while the last waiting one is more than quiche's
//!    `max_release_into_future` (1/8 RTT, 1-5 ms) ahead, as quiche's own tokio driver does.
//!    quiche 0.30 only paces BBR2; Reno and CUBIC packets are always due at once;
//! 3. wait for a datagram, the next timer or pacing release, or (sender) the receiver's end.

use std::collections::VecDeque;
use std::future::poll_fn;
use std::net::SocketAddr;
use std::task::Poll;
use std::time::{Duration, Instant};

use netsim::SimSocket;
use netsim::quinn_pair::StreamPattern;
use rand::{RngCore, SeedableRng};

use crate::error::Error;
use crate::progress::{Progress, RttSampler};
use crate::report::SenderStats;
use crate::tls::SERVER_NAME;

/// The stream a transfer uses: the client's first unidirectional stream (quinn's `open_uni`
/// gives the same id).
pub(crate) const STREAM_ID: u64 = 2;

/// A packet due within this is sent at once (tokio's timers tick in milliseconds).
pub(crate) const PACING_GRANULARITY: Duration = Duration::from_millis(1);

/// Largest datagram read from the link.
const RECV_BUF: usize = 65_535;

/// Application write / read size.
const CHUNK: usize = 60_000;

/// Datagrams processed per wake-up before quiche gets to send (acks stay timely under load).
const RECV_BATCH: usize = 64;

/// Which end of the handshake.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    Client,
    Server,
}

/// What the sender writes.
#[derive(Clone, Copy, Debug)]
pub(crate) enum SendLimit {
    /// Exactly this many bytes, then the end of the stream.
    Bytes(u64),
    /// As much as flow control allows until the transfer is stopped.
    Unbounded,
}

/// Whether the loop goes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flow {
    Continue,
    Done,
}

/// A packet held back until its pacing release time.
struct Paced {
    at: Instant,
    to: SocketAddr,
    data: Vec<u8>,
}

/// One quiche endpoint with at most one connection.
pub(crate) struct QuicheEndpoint {
    socket: SimSocket,
    config: quiche::Config,
    role: Role,
    /// Seed for the connection ids (quiche's own randomness is BoringSSL's).
    seed: u64,
    conn: Option<quiche::Connection>,
    out: Vec<u8>,
    recv_buf: Vec<u8>,
    app_buf: Vec<u8>,
    paced: VecDeque<Paced>,
    datagrams_sent: u64,
    udp_bytes_sent: u64,
    rtt: RttSampler,
}

impl QuicheEndpoint {
    pub fn new(socket: SimSocket, config: quiche::Config, role: Role, seed: u64) -> Self {
        Self {
            socket,
            config,
            role,
            seed,
            conn: None,
            out: vec![0; RECV_BUF],
            recv_buf: vec![0; RECV_BUF],
            app_buf: vec![0; CHUNK],
            paced: VecDeque::new(),
            datagrams_sent: 0,
            udp_bytes_sent: 0,
            rtt: RttSampler::default(),
        }
    }

    fn scid(&self) -> quiche::ConnectionId<'static> {
        let label = match self.role {
            Role::Client => "quiche/scid/client",
            Role::Server => "quiche/scid/server",
        };
        let mut rng =
            rand::rngs::StdRng::seed_from_u64(netsim::seed::derive_seed(self.seed, label));
        let mut id = vec![0u8; quiche::MAX_CONN_ID_LEN];
        rng.fill_bytes(&mut id);
        quiche::ConnectionId::from_vec(id)
    }

    /// Client: starts the handshake. Server: waits for the client's first Initial.
    async fn establish(&mut self) -> Result<(), Error> {
        if self.conn.is_some() {
            return Ok(());
        }
        let scid = self.scid();
        let local = self.socket.local_addr();
        match self.role {
            Role::Client => {
                let peer = self.socket.peer_addr();
                let conn = quiche::connect(Some(SERVER_NAME), &scid, local, peer, &mut self.config)
                    .map_err(|e| Error::quiche("starting the connection", e))?;
                tracing::debug!(trace_id = conn.trace_id(), "quiche client connecting");
                self.conn = Some(conn);
            }
            Role::Server => loop {
                let (len, from) = self
                    .socket
                    .recv_from(&mut self.recv_buf)
                    .await
                    .map_err(|e| Error::io("receiving", e))?;
                let datagram = &mut self.recv_buf[..len];
                let header = match quiche::Header::from_slice(datagram, quiche::MAX_CONN_ID_LEN) {
                    Ok(header) => header,
                    Err(e) => {
                        tracing::debug!(error = %e, "quiche server: unparsable datagram ignored");
                        continue;
                    }
                };
                if header.ty != quiche::Type::Initial {
                    tracing::debug!(ty = ?header.ty, "quiche server: non-Initial before the handshake ignored");
                    continue;
                }
                if !quiche::version_is_supported(header.version) {
                    let len = quiche::negotiate_version(&header.scid, &header.dcid, &mut self.out)
                        .map_err(|e| Error::quiche("writing a version negotiation packet", e))?;
                    let packet = self.out[..len].to_vec();
                    self.send_now(&packet, from);
                    continue;
                }
                let mut conn = quiche::accept(&scid, None, local, from, &mut self.config)
                    .map_err(|e| Error::quiche("accepting the connection", e))?;
                tracing::debug!(trace_id = conn.trace_id(), %from, "quiche server accepted a connection");
                let info = quiche::RecvInfo { from, to: local };
                if let Err(e) = conn.recv(&mut self.recv_buf[..len], info) {
                    tracing::debug!(error = %e, "quiche server: first Initial not processed");
                }
                self.conn = Some(conn);
                break;
            },
        }
        Ok(())
    }

    fn send_now(&mut self, data: &[u8], to: SocketAddr) {
        // A SimSocket send never fails: the link decides what is lost.
        let _ = self.socket.try_send_to(data, to);
        self.datagrams_sent += 1;
        self.udp_bytes_sent += data.len() as u64;
    }

    /// Sends the stream: connects, writes per `limit`, and returns when the receiver has read
    /// all of it (`progress` says so). Runs until dropped with [`SendLimit::Unbounded`].
    pub async fn send(
        &mut self,
        limit: SendLimit,
        pattern: &StreamPattern,
        progress: &Progress,
    ) -> Result<(), Error> {
        let mut offset = 0u64;
        let mut fin_sent = false;
        let step = move |conn: &mut quiche::Connection, _app_buf: &mut Vec<u8>| {
            if progress.is_finished() {
                return Ok(Flow::Done);
            }
            if !conn.is_established() {
                return Ok(Flow::Continue);
            }
            progress.set_connected();
            while !fin_sent {
                let (len, fin) = match limit {
                    SendLimit::Bytes(total) => {
                        let remaining = total - offset;
                        let len = usize::try_from(remaining).unwrap_or(CHUNK).min(CHUNK);
                        (len, remaining == len as u64)
                    }
                    SendLimit::Unbounded => (CHUNK, false),
                };
                match conn.stream_send(STREAM_ID, pattern.slice(offset, len), fin) {
                    Ok(written) => {
                        offset += written as u64;
                        if written < len {
                            break;
                        }
                        fin_sent = fin;
                    }
                    Err(quiche::Error::Done) => break,
                    Err(e) => return Err(Error::quiche("writing the stream", e)),
                }
            }
            Ok(Flow::Continue)
        };
        self.drive("sender", progress, true, step).await
    }

    /// Receives the stream, checking it against `pattern`; closes the connection (code 0) and
    /// returns once it has read the end.
    pub async fn receive(
        &mut self,
        pattern: &StreamPattern,
        progress: &Progress,
    ) -> Result<(), Error> {
        let step = |conn: &mut quiche::Connection, app_buf: &mut Vec<u8>| {
            while let Some(id) = conn.stream_readable_next() {
                loop {
                    match conn.stream_recv(id, app_buf) {
                        Ok((len, fin)) => {
                            if id != STREAM_ID {
                                tracing::warn!(
                                    stream = id,
                                    len,
                                    "data on an unexpected stream ignored"
                                );
                                continue;
                            }
                            progress.deliver(pattern, &app_buf[..len]);
                            if fin {
                                progress.finish();
                                match conn.close(true, 0, b"done") {
                                    Ok(()) | Err(quiche::Error::Done) => {}
                                    Err(e) => return Err(Error::quiche("closing", e)),
                                }
                                return Ok(Flow::Done);
                            }
                        }
                        Err(quiche::Error::Done) => break,
                        Err(e) => return Err(Error::quiche("reading the stream", e)),
                    }
                }
            }
            Ok(Flow::Continue)
        };
        self.drive("receiver", progress, false, step).await
    }

    /// The event loop around `step`.
    async fn drive(
        &mut self,
        role_name: &'static str,
        progress: &Progress,
        watch_finish: bool,
        mut step: impl FnMut(&mut quiche::Connection, &mut Vec<u8>) -> Result<Flow, Error>,
    ) -> Result<(), Error> {
        self.establish().await?;
        let local = self.socket.local_addr();
        loop {
            let Some(conn) = self.conn.as_mut() else {
                return Err(Error::quiche(
                    "driving the connection",
                    quiche::Error::InvalidState,
                ));
            };
            let flow = step(conn, &mut self.app_buf)?;
            flush(
                conn,
                &self.socket,
                &mut self.out,
                &mut self.paced,
                &mut self.datagrams_sent,
                &mut self.udp_bytes_sent,
            )?;
            if flow == Flow::Done {
                return Ok(());
            }
            if conn.is_closed() {
                if progress.is_finished() && watch_finish {
                    return Ok(());
                }
                return Err(Error::ConnectionClosed {
                    stack: "quiche",
                    role: role_name,
                    reason: close_reason(conn),
                });
            }

            let timer = conn.timeout_instant();
            let release = self.paced.front().map(|p| p.at);
            let wake = match (timer, release) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            let sleep = async {
                match wake {
                    Some(at) => tokio::time::sleep_until(tokio::time::Instant::from_std(at)).await,
                    None => std::future::pending().await,
                }
            };
            let finished = async {
                if watch_finish {
                    progress.finished_notify.notified().await
                } else {
                    std::future::pending().await
                }
            };
            let socket = &self.socket;
            let recv_buf = &mut self.recv_buf;
            tokio::select! {
                biased;
                () = finished => continue,
                received = socket.recv_from(recv_buf) => {
                    let (len, from) = received.map_err(|e| Error::io("receiving", e))?;
                    feed(conn, &mut recv_buf[..len], from, local);
                    for _ in 1..RECV_BATCH {
                        let Some((len, from)) = try_recv(socket, recv_buf).await else { break };
                        feed(conn, &mut recv_buf[..len], from, local);
                    }
                    if watch_finish
                        && conn.is_established()
                        && let Some(path) = conn.path_stats().next()
                    {
                        self.rtt.offer(tokio::time::Instant::now(), path.rtt);
                    }
                }
                () = sleep => {}
            }
            if conn.timeout_instant().is_some_and(|t| t <= Instant::now()) {
                conn.on_timeout();
            }
        }
    }

    /// The sender's statistics (quiche's `Stats` and the active path's `PathStats`).
    pub fn sender_stats(&self) -> SenderStats {
        let mut stats = SenderStats {
            datagrams_sent: self.datagrams_sent,
            udp_bytes_sent: self.udp_bytes_sent,
            ..SenderStats::default()
        };
        stats.set_rtt_samples(self.rtt.samples());
        let Some(conn) = &self.conn else {
            return stats;
        };
        let s = conn.stats();
        stats.packets_sent = s.sent as u64;
        stats.packets_lost = s.lost as u64;
        stats.bytes_lost = s.lost_bytes;
        stats.packets_retransmitted = Some(s.retrans as u64);
        stats.stream_bytes_retransmitted = Some(s.stream_retrans_bytes);
        stats.spurious_losses = Some(s.spurious_lost as u64);
        if let Some(path) = conn.path_stats().next() {
            stats.srtt = Some(path.rtt);
            stats.min_rtt = path.min_rtt;
            stats.max_rtt = path.max_rtt;
            stats.cwnd = Some(path.cwnd as u64);
        }
        stats
    }
}

/// Hands one datagram to quiche. Errors concern that packet only (quiche closes the connection
/// itself on a fatal one), so they are logged and the loop goes on.
fn feed(conn: &mut quiche::Connection, data: &mut [u8], from: SocketAddr, to: SocketAddr) {
    match conn.recv(data, quiche::RecvInfo { from, to }) {
        Ok(_) | Err(quiche::Error::Done) => {}
        Err(e) => {
            tracing::debug!(error = %e, len = data.len(), "quiche dropped a received datagram")
        }
    }
}

/// A datagram that is due now, without waiting.
async fn try_recv(socket: &SimSocket, buf: &mut [u8]) -> Option<(usize, SocketAddr)> {
    poll_fn(|cx| match socket.poll_recv_from(cx, buf) {
        Poll::Ready(Ok(received)) => Poll::Ready(Some(received)),
        Poll::Ready(Err(_)) | Poll::Pending => Poll::Ready(None),
    })
    .await
}

/// Sends due paced packets, then everything quiche produces within the pacing horizon.
fn flush(
    conn: &mut quiche::Connection,
    socket: &SimSocket,
    out: &mut [u8],
    paced: &mut VecDeque<Paced>,
    datagrams_sent: &mut u64,
    udp_bytes_sent: &mut u64,
) -> Result<(), Error> {
    let mut put = |data: &[u8], to: SocketAddr| {
        // A SimSocket send never fails: the link decides what is lost.
        let _ = socket.try_send_to(data, to);
        *datagrams_sent += 1;
        *udp_bytes_sent += data.len() as u64;
    };
    loop {
        let now = Instant::now();
        while paced
            .front()
            .is_some_and(|p| p.at <= now + PACING_GRANULARITY)
        {
            if let Some(p) = paced.pop_front() {
                put(&p.data, p.to);
            }
        }
        if paced
            .back()
            .is_some_and(|p| p.at > now + conn.max_release_into_future())
        {
            return Ok(());
        }
        match conn.send(out) {
            Ok((len, info)) => {
                if paced.is_empty() && info.at <= now + PACING_GRANULARITY {
                    put(&out[..len], info.to);
                } else {
                    paced.push_back(Paced {
                        at: info.at,
                        to: info.to,
                        data: out[..len].to_vec(),
                    });
                }
            }
            Err(quiche::Error::Done) => return Ok(()),
            Err(e) => return Err(Error::quiche("producing a packet", e)),
        }
    }
}

/// Why a closed connection closed.
fn close_reason(conn: &quiche::Connection) -> String {
    let describe = |who: &str, e: &quiche::ConnectionError| {
        format!(
            "{who} closed it with {} error {:#x} ({})",
            if e.is_app { "application" } else { "transport" },
            e.error_code,
            String::from_utf8_lossy(&e.reason)
        )
    };
    if conn.is_timed_out() {
        "idle timeout".to_owned()
    } else if let Some(e) = conn.peer_error() {
        describe("the peer", e)
    } else if let Some(e) = conn.local_error() {
        describe("quiche", e)
    } else {
        "closed without an error".to_owned()
    }
}
