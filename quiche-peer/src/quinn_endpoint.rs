//! The quinn end of a transfer: a quinn endpoint over the same [`SimLink`], with the caller's
//! `TransportConfig` (so any port's `ControllerFactory` can send).

use std::sync::Arc;

use netsim::quinn_pair::StreamPattern;
use netsim::{Side, SimLink};
use quinn::{ClientConfig, Connection, Endpoint, EndpointConfig, ServerConfig, TransportConfig};

use crate::error::Error;
use crate::progress::{Progress, RttSampler};
use crate::quiche_endpoint::SendLimit;
use crate::report::SenderStats;
use crate::tls::{Identity, SERVER_NAME};

/// Write / read size.
const CHUNK: usize = 60_000;

/// A quinn endpoint on one side of the link, with at most one connection.
pub(crate) struct QuinnEndpoint {
    endpoint: Endpoint,
    link: SimLink,
    side: Side,
    conn: Option<Connection>,
    rtt: RttSampler,
}

/// 32 bytes for quinn's endpoint RNG, derived from the run seed.
fn rng_seed(run_seed: u64, label: &str) -> [u8; 32] {
    let mut bytes = [0u8; 32];
    for (i, chunk) in bytes.chunks_mut(8).enumerate() {
        chunk.copy_from_slice(
            &netsim::seed::derive_seed(run_seed, &format!("{label}/{i}")).to_le_bytes(),
        );
    }
    bytes
}

impl QuinnEndpoint {
    /// A client on side A (the sender) using `transport`.
    pub fn client(
        link: &SimLink,
        identity: &Identity,
        transport: Arc<TransportConfig>,
        seed: u64,
    ) -> Result<Self, Error> {
        let mut endpoint_config = EndpointConfig::default();
        endpoint_config.rng_seed(Some(rng_seed(seed, "quiche-peer/quinn/client")));
        let mut endpoint = Endpoint::new_with_abstract_socket(
            endpoint_config,
            None,
            link.quinn_socket(Side::A),
            Arc::new(quinn::TokioRuntime),
        )
        .map_err(|e| Error::io("creating the quinn client endpoint", e))?;
        let mut client = ClientConfig::new(identity.quinn_client()?);
        client.transport_config(transport);
        endpoint.set_default_client_config(client);
        Ok(Self {
            endpoint,
            link: link.clone(),
            side: Side::A,
            conn: None,
            rtt: RttSampler::default(),
        })
    }

    /// A server on side B (the receiver) using `transport`.
    pub fn server(
        link: &SimLink,
        identity: &Identity,
        transport: Arc<TransportConfig>,
        seed: u64,
    ) -> Result<Self, Error> {
        let mut endpoint_config = EndpointConfig::default();
        endpoint_config.rng_seed(Some(rng_seed(seed, "quiche-peer/quinn/server")));
        let mut server = ServerConfig::with_crypto(identity.quinn_server()?);
        server.transport_config(transport);
        let endpoint = Endpoint::new_with_abstract_socket(
            endpoint_config,
            Some(server),
            link.quinn_socket(Side::B),
            Arc::new(quinn::TokioRuntime),
        )
        .map_err(|e| Error::io("creating the quinn server endpoint", e))?;
        Ok(Self {
            endpoint,
            link: link.clone(),
            side: Side::B,
            conn: None,
            rtt: RttSampler::default(),
        })
    }

    /// Connects, sends the stream per `limit`, and returns when the receiver has read all of
    /// it. Runs until dropped with [`SendLimit::Unbounded`].
    pub async fn send(
        &mut self,
        limit: SendLimit,
        pattern: &StreamPattern,
        progress: &Progress,
    ) -> Result<(), Error> {
        let peer = self.link.addr(self.side_peer());
        let connecting = self
            .endpoint
            .connect(peer, SERVER_NAME)
            .map_err(|e| Error::quinn("starting the connection", e))?;
        let conn = connecting
            .await
            .map_err(|e| Error::quinn("connecting", e))?;
        progress.set_connected();
        self.conn = Some(conn.clone());

        let write = async {
            let mut stream = conn
                .open_uni()
                .await
                .map_err(|e| Error::quinn("opening the stream", e))?;
            let mut offset = 0u64;
            loop {
                let len = match limit {
                    SendLimit::Bytes(total) => {
                        usize::try_from(total - offset).unwrap_or(CHUNK).min(CHUNK)
                    }
                    SendLimit::Unbounded => CHUNK,
                };
                if len == 0 {
                    break;
                }
                stream
                    .write_all(pattern.slice(offset, len))
                    .await
                    .map_err(|e| Error::quinn("writing the stream", e))?;
                offset += len as u64;
            }
            stream
                .finish()
                .map_err(|e| Error::quinn("finishing the stream", e))?;
            // Wait for the receiver (below) rather than for quinn's acknowledgement.
            std::future::pending::<Result<(), Error>>().await
        };
        let rtt = &mut self.rtt;
        let sample = async {
            let mut tick = tokio::time::interval(RttSampler::INTERVAL);
            loop {
                let now = tick.tick().await;
                rtt.offer(now, conn.rtt());
            }
        };
        tokio::select! {
            biased;
            () = progress.finished_notify.notified() => Ok(()),
            written = write => written,
            closed = conn.closed() => {
                if progress.is_finished() {
                    Ok(())
                } else {
                    Err(Error::ConnectionClosed { stack: "quinn", role: "sender", reason: closed.to_string() })
                }
            }
            () = sample => Ok(()),
        }
    }

    /// Accepts the connection, reads the stream checking it against `pattern`, closes the
    /// connection (code 0) and returns once it has read the end.
    pub async fn receive(
        &mut self,
        pattern: &StreamPattern,
        progress: &Progress,
    ) -> Result<(), Error> {
        let incoming = self
            .endpoint
            .accept()
            .await
            .ok_or_else(|| Error::quinn("accepting", "the endpoint closed"))?;
        let conn = incoming
            .await
            .map_err(|e| Error::quinn("accepting the connection", e))?;
        self.conn = Some(conn.clone());
        let closed = |e: &dyn std::fmt::Display| Error::ConnectionClosed {
            stack: "quinn",
            role: "receiver",
            reason: e.to_string(),
        };
        let mut stream = conn.accept_uni().await.map_err(|e| closed(&e))?;
        let mut buf = vec![0u8; CHUNK];
        while let Some(len) = stream.read(&mut buf).await.map_err(|e| closed(&e))? {
            progress.deliver(pattern, &buf[..len]);
        }
        progress.finish();
        conn.close(0u32.into(), b"done");
        Ok(())
    }

    fn side_peer(&self) -> Side {
        match self.side {
            Side::A => Side::B,
            Side::B => Side::A,
        }
    }

    /// The sender's statistics (quinn's `ConnectionStats`).
    pub fn sender_stats(&self) -> SenderStats {
        let mut stats = SenderStats::default();
        stats.set_rtt_samples(self.rtt.samples());
        let Some(conn) = &self.conn else {
            return stats;
        };
        let s = conn.stats();
        stats.datagrams_sent = s.udp_tx.datagrams;
        stats.udp_bytes_sent = s.udp_tx.bytes;
        stats.packets_sent = s.path.sent_packets;
        stats.packets_lost = s.path.lost_packets;
        stats.bytes_lost = s.path.lost_bytes;
        stats.congestion_events = Some(s.path.congestion_events);
        stats.srtt = Some(s.path.rtt);
        stats.min_rtt = Some(s.path.min_rtt);
        stats.cwnd = Some(s.path.cwnd);
        stats
    }

    /// Closes the endpoint (its driver task ends once the close is sent).
    pub fn close(&self) {
        self.endpoint.close(0u32.into(), b"done");
    }
}
