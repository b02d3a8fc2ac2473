//! One verified bulk transfer between two stacks over an emulated link.

use std::sync::Arc;
use std::time::Duration;

use netsim::quinn_pair::StreamPattern;
use netsim::{Clock, LinkConfig, Side, SimLink};
use quinn::TransportConfig;

use crate::cc::QuicheCc;
use crate::clock::runtime_clock_is_paused;
use crate::error::Error;
use crate::progress::Progress;
use crate::quiche_endpoint::{QuicheEndpoint, Role, SendLimit};
use crate::quinn_endpoint::QuinnEndpoint;
use crate::report::{SenderStats, Stack, TransferReport};
use crate::tls::{ALPN, Identity};

/// How much the sender sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Amount {
    /// Exactly `bytes`, then the end of the stream; the run ends when the receiver has read
    /// it all, and fails with [`Error::Timeout`] after `timeout` (counted from the connection
    /// attempt).
    Bytes {
        /// Stream length.
        bytes: u64,
        /// Time limit.
        timeout: Duration,
    },
    /// As much as the connection carries in this time (counted from the connection attempt,
    /// handshake included); goodput counts what the receiver had read by then.
    Duration(Duration),
}

/// One end of a transfer.
#[derive(Clone, Debug)]
pub enum PeerConfig {
    /// quiche with one of its controllers (on the receiver it only governs the acks' packets).
    Quiche(QuicheCc),
    /// quinn with this transport config (e.g. with a port's `ControllerFactory`).
    Quinn {
        /// The config of the connection.
        transport: Arc<TransportConfig>,
        /// The controller's name, for the report (e.g. `karak`, `quinn-cubic`).
        label: String,
    },
}

impl PeerConfig {
    /// quinn with `transport`, reported as `label`.
    pub fn quinn(label: impl Into<String>, transport: Arc<TransportConfig>) -> Self {
        Self::Quinn {
            transport,
            label: label.into(),
        }
    }

    /// quinn with its default transport (quinn's Cubic), as a receiver for a quiche sender.
    pub fn quinn_default() -> Self {
        Self::quinn("quinn-cubic", Arc::new(TransportConfig::default()))
    }

    /// The stack.
    pub fn stack(&self) -> Stack {
        match self {
            Self::Quiche(_) => Stack::Quiche,
            Self::Quinn { .. } => Stack::Quinn,
        }
    }

    /// The controller's name.
    pub fn label(&self) -> &str {
        match self {
            Self::Quiche(cc) => cc.name(),
            Self::Quinn { label, .. } => label,
        }
    }
}

/// Settings of the quiche endpoints. The defaults make flow control and datagram size match
/// what quinn does on the same link, so the two stacks differ in their controllers and loss
/// recovery, not in their limits.
#[derive(Clone, Debug, PartialEq)]
pub struct QuicheSettings {
    /// Idle timeout (default 30 s, quinn's default).
    pub max_idle_timeout: Duration,
    /// Connection-level receive window quiche advertises, bytes (default 16 MiB; quiche's own
    /// default is 0, which blocks every stream).
    pub max_data: u64,
    /// Per-stream receive window, bytes (default 8 MiB). quiche grows both windows by
    /// auto-tuning up to its own caps.
    pub max_stream_data: u64,
    /// Largest UDP payload quiche sends, bytes. `None` (default): the smaller of 1452 (the
    /// ceiling of quinn's MTU discovery) and the link's MTU in either direction.
    pub max_udp_payload: Option<usize>,
    /// quiche's pacing (default on, quiche's default; only BBR2 paces in quiche 0.30).
    pub pacing: bool,
    /// HyStart++ in Reno's and CUBIC's slow start (default on, quiche's default).
    pub hystart: bool,
}

impl Default for QuicheSettings {
    fn default() -> Self {
        Self {
            max_idle_timeout: Duration::from_secs(30),
            max_data: 16 << 20,
            max_stream_data: 8 << 20,
            max_udp_payload: None,
            pacing: true,
            hystart: true,
        }
    }
}

/// QUIC's minimum datagram size (RFC 9000 section 14.1).
const MIN_QUIC_DATAGRAM: usize = 1200;

/// The largest payload quinn's MTU discovery tries.
const QUINN_MTU_CEILING: usize = 1452;

impl QuicheSettings {
    /// The UDP payload size to use on `link`.
    fn udp_payload(&self, link: &LinkConfig) -> Result<usize, Error> {
        let link_mtu = link.a_to_b.mtu.min(link.b_to_a.mtu) as usize;
        let payload = self
            .max_udp_payload
            .unwrap_or(QUINN_MTU_CEILING.min(link_mtu));
        if payload < MIN_QUIC_DATAGRAM {
            return Err(Error::Setting {
                field: "max_udp_payload",
                message: format!(
                    "{payload} bytes (link MTU {link_mtu}): QUIC needs datagrams of at least \
                     {MIN_QUIC_DATAGRAM} bytes"
                ),
            });
        }
        if payload > 65_527 {
            return Err(Error::Setting {
                field: "max_udp_payload",
                message: format!("{payload} bytes: at most 65527"),
            });
        }
        Ok(payload)
    }

    /// A quiche config for `role` running `cc`.
    fn config(
        &self,
        role: Role,
        cc: QuicheCc,
        identity: &Identity,
        udp_payload: usize,
    ) -> Result<quiche::Config, Error> {
        let idle_ms = u64::try_from(self.max_idle_timeout.as_millis()).unwrap_or(u64::MAX);
        if idle_ms == 0 {
            return Err(Error::Setting {
                field: "max_idle_timeout",
                message: "must be at least 1 ms (0 would disable it)".to_owned(),
            });
        }
        let mut config = quiche::Config::new(quiche::PROTOCOL_VERSION)
            .map_err(|e| Error::quiche("creating the config", e))?;
        config
            .set_application_protos(&[ALPN])
            .map_err(|e| Error::quiche("setting the ALPN", e))?;
        match role {
            Role::Server => identity.quiche_server(&mut config)?,
            Role::Client => identity.quiche_client(&mut config)?,
        }
        config.set_max_idle_timeout(idle_ms);
        config.set_max_send_udp_payload_size(udp_payload);
        config.set_max_recv_udp_payload_size(65_527);
        config.set_initial_max_data(self.max_data);
        config.set_initial_max_stream_data_bidi_local(self.max_stream_data);
        config.set_initial_max_stream_data_bidi_remote(self.max_stream_data);
        config.set_initial_max_stream_data_uni(self.max_stream_data);
        config.set_initial_max_streams_bidi(100);
        config.set_initial_max_streams_uni(100);
        config.set_disable_active_migration(true);
        config.set_cc_algorithm(cc.algorithm());
        config.enable_hystart(self.hystart);
        config.enable_pacing(self.pacing);
        Ok(config)
    }
}

/// One transfer: `sender` (client, netsim side A) sends a verified stream to `receiver`
/// (server, side B) over `link`.
#[derive(Clone, Debug)]
pub struct TransferSpec {
    /// The emulated link; `a_to_b` is the data direction.
    pub link: LinkConfig,
    /// Seed of the link's randomness, the stream content and the connection ids.
    pub seed: u64,
    /// The sending end.
    pub sender: PeerConfig,
    /// The receiving end.
    pub receiver: PeerConfig,
    /// How much to send.
    pub amount: Amount,
    /// Settings of the quiche end(s).
    pub quiche: QuicheSettings,
}

/// Either stack's endpoint.
enum Peer {
    Quiche(Box<QuicheEndpoint>),
    Quinn(QuinnEndpoint),
}

impl TransferSpec {
    /// quiche running `cc` to a quiche receiver (also running `cc`).
    pub fn quiche_to_quiche(link: LinkConfig, seed: u64, cc: QuicheCc, amount: Amount) -> Self {
        Self::new(
            link,
            seed,
            PeerConfig::Quiche(cc),
            PeerConfig::Quiche(cc),
            amount,
        )
    }

    /// quinn with `transport` (e.g. a port) to a quiche receiver (CUBIC for its acks).
    pub fn quinn_to_quiche(
        link: LinkConfig,
        seed: u64,
        label: impl Into<String>,
        transport: Arc<TransportConfig>,
        amount: Amount,
    ) -> Self {
        let sender = PeerConfig::quinn(label, transport);
        Self::new(
            link,
            seed,
            sender,
            PeerConfig::Quiche(QuicheCc::Cubic),
            amount,
        )
    }

    /// quiche running `cc` to a quinn receiver with quinn's default transport.
    pub fn quiche_to_quinn(link: LinkConfig, seed: u64, cc: QuicheCc, amount: Amount) -> Self {
        Self::new(
            link,
            seed,
            PeerConfig::Quiche(cc),
            PeerConfig::quinn_default(),
            amount,
        )
    }

    /// Any sender to any receiver, default quiche settings.
    pub fn new(
        link: LinkConfig,
        seed: u64,
        sender: PeerConfig,
        receiver: PeerConfig,
        amount: Amount,
    ) -> Self {
        Self {
            link,
            seed,
            sender,
            receiver,
            amount,
            quiche: QuicheSettings::default(),
        }
    }

    /// Replaces the receiver.
    pub fn with_receiver(mut self, receiver: PeerConfig) -> Self {
        self.receiver = receiver;
        self
    }

    /// Replaces the quiche settings.
    pub fn with_quiche_settings(mut self, settings: QuicheSettings) -> Self {
        self.quiche = settings;
        self
    }

    /// True if either end is quiche (then the run needs real time).
    pub fn involves_quiche(&self) -> bool {
        self.sender.stack() == Stack::Quiche || self.receiver.stack() == Stack::Quiche
    }

    /// Runs the transfer on a fresh real-time runtime ([`netsim::real_runtime`]).
    pub fn run_blocking(&self) -> Result<TransferReport, Error> {
        let runtime = netsim::real_runtime().map_err(|e| Error::io("starting a runtime", e))?;
        runtime.block_on(self.run())
    }

    /// Runs the transfer on the current tokio runtime (a current-thread runtime from netsim;
    /// the link's timers need tokio's time driver). With a quiche end the runtime's clock must
    /// be real: on a paused (virtual) clock this returns [`Error::VirtualTimeUnsupported`].
    pub async fn run(&self) -> Result<TransferReport, Error> {
        let clock = if runtime_clock_is_paused() {
            if self.involves_quiche() {
                return Err(Error::VirtualTimeUnsupported);
            }
            Clock::Virtual
        } else {
            Clock::Real
        };
        let (Amount::Duration(limit) | Amount::Bytes { timeout: limit, .. }) = self.amount;
        if limit.is_zero() {
            return Err(Error::Setting {
                field: "amount",
                message: "the duration or timeout must be positive".to_owned(),
            });
        }
        let identity = Identity::generate()?;
        self.run_with(clock, &identity, &identity).await
    }

    /// Runs with the server presenting `server_identity` and the client trusting
    /// `client_trusts` (the same identity except in tests of certificate verification).
    async fn run_with(
        &self,
        clock: Clock,
        server_identity: &Identity,
        client_trusts: &Identity,
    ) -> Result<TransferReport, Error> {
        let udp_payload = self.quiche.udp_payload(&self.link)?;
        let link = SimLink::new(self.link.clone(), self.seed)?;
        let mut sender = self.peer(
            &self.sender,
            Role::Client,
            &link,
            client_trusts,
            udp_payload,
        )?;
        let mut receiver = self.peer(
            &self.receiver,
            Role::Server,
            &link,
            server_identity,
            udp_payload,
        )?;
        let pattern = StreamPattern::new(self.seed);
        tracing::info!(
            seed = self.seed,
            sender = self.sender.label(),
            receiver = self.receiver.label(),
            amount = ?self.amount,
            "transfer starting"
        );

        let progress = Progress::new();
        let (limit, limit_time) = match self.amount {
            Amount::Bytes { bytes, timeout } => (SendLimit::Bytes(bytes), timeout),
            Amount::Duration(d) => (SendLimit::Unbounded, d),
        };
        // A limit too large for the clock means no limit.
        let deadline = progress.started.checked_add(limit_time);
        let outcome = {
            let send = async {
                match &mut sender {
                    Peer::Quiche(endpoint) => endpoint.send(limit, &pattern, &progress).await,
                    Peer::Quinn(endpoint) => endpoint.send(limit, &pattern, &progress).await,
                }
            };
            let receive = async {
                match &mut receiver {
                    Peer::Quiche(endpoint) => endpoint.receive(&pattern, &progress).await,
                    Peer::Quinn(endpoint) => endpoint.receive(&pattern, &progress).await,
                }
            };
            let work = async { tokio::try_join!(send, receive) };
            match deadline {
                Some(deadline) => tokio::time::timeout_at(deadline, work).await,
                None => Ok(work.await),
            }
        };
        let elapsed = match (self.amount, outcome) {
            (_, Ok(Err(e))) => return Err(e),
            (Amount::Bytes { bytes, timeout }, Err(_)) => {
                return Err(Error::Timeout {
                    timeout,
                    delivered: progress.delivered(),
                    expected: bytes,
                });
            }
            (Amount::Bytes { .. }, Ok(Ok(_))) => progress
                .finished_after()
                .unwrap_or_else(|| progress.started.elapsed()),
            (Amount::Duration(d), Err(_)) => d,
            (Amount::Duration(_), Ok(Ok(_))) => progress.started.elapsed(),
        };
        let accounting = link.accounting();
        let bytes_delivered = progress.delivered();
        let sender_stats: SenderStats = match &sender {
            Peer::Quiche(endpoint) => endpoint.sender_stats(),
            Peer::Quinn(endpoint) => endpoint.sender_stats(),
        };
        for peer in [&sender, &receiver] {
            if let Peer::Quinn(endpoint) = peer {
                endpoint.close();
            }
        }
        let bytes_expected = match self.amount {
            Amount::Bytes { bytes, .. } => Some(bytes),
            Amount::Duration(_) => None,
        };
        let first_mismatch = progress.first_mismatch();
        let intact = first_mismatch.is_none()
            && bytes_expected.is_none_or(|expected| expected == bytes_delivered);
        let seconds = elapsed.as_secs_f64().max(f64::MIN_POSITIVE);
        let report = TransferReport {
            sender: self.sender.stack(),
            receiver: self.receiver.stack(),
            sender_controller: self.sender.label().to_owned(),
            clock,
            seed: self.seed,
            bytes_delivered,
            bytes_expected,
            intact,
            first_mismatch,
            connected_after: progress.connected_after(),
            elapsed,
            goodput_bps: bytes_delivered as f64 * 8.0 / seconds,
            throughput_bps: sender_stats.udp_bytes_sent as f64 * 8.0 / seconds,
            sender_stats,
            accounting,
        };
        tracing::info!(
            sender = %report.sender_controller,
            delivered = report.bytes_delivered,
            intact = report.intact,
            elapsed_s = report.elapsed.as_secs_f64(),
            goodput_mbps = report.goodput_bps / 1e6,
            "transfer finished"
        );
        Ok(report)
    }

    fn peer(
        &self,
        config: &PeerConfig,
        role: Role,
        link: &SimLink,
        identity: &Identity,
        udp_payload: usize,
    ) -> Result<Peer, Error> {
        let side = match role {
            Role::Client => Side::A,
            Role::Server => Side::B,
        };
        Ok(match config {
            PeerConfig::Quiche(cc) => {
                let config = self.quiche.config(role, *cc, identity, udp_payload)?;
                Peer::Quiche(Box::new(QuicheEndpoint::new(
                    link.socket(side),
                    config,
                    role,
                    self.seed,
                )))
            }
            PeerConfig::Quinn { transport, .. } => Peer::Quinn(match role {
                Role::Client => {
                    QuinnEndpoint::client(link, identity, transport.clone(), self.seed)?
                }
                Role::Server => {
                    QuinnEndpoint::server(link, identity, transport.clone(), self.seed)?
                }
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(sender: PeerConfig) -> TransferSpec {
        let amount = Amount::Bytes {
            bytes: 10_000,
            timeout: Duration::from_secs(10),
        };
        TransferSpec::new(
            LinkConfig::default(),
            1,
            sender,
            PeerConfig::Quiche(QuicheCc::Cubic),
            amount,
        )
    }

    /// Both clients verify the server: trusting another certificate fails the handshake.
    #[test]
    fn clients_reject_a_certificate_they_do_not_trust() {
        let runtime = netsim::real_runtime().unwrap();
        for sender in [
            PeerConfig::Quiche(QuicheCc::Cubic),
            PeerConfig::quinn("quinn-cubic", Arc::new(TransportConfig::default())),
        ] {
            let spec = spec(sender);
            let result = runtime.block_on(async {
                let server = Identity::generate()?;
                let other = Identity::generate()?;
                spec.run_with(Clock::Real, &server, &other).await
            });
            let error = result.expect_err("a handshake with an untrusted certificate must fail");
            assert!(
                matches!(error, Error::ConnectionClosed { .. } | Error::Quinn { .. }),
                "{error}"
            );
            // With the trusted certificate the same spec works.
            let report = spec.run_blocking().unwrap();
            assert!(report.intact);
        }
    }

    #[test]
    fn datagrams_below_quic_minimum_are_a_setting_error() {
        let mut link = LinkConfig::default();
        link.b_to_a.mtu = 1000;
        let error = QuicheSettings::default().udp_payload(&link).unwrap_err();
        assert!(error.to_string().contains("max_udp_payload"), "{error}");
        assert!(error.to_string().contains("1200"), "{error}");
        assert_eq!(
            QuicheSettings::default()
                .udp_payload(&LinkConfig::default())
                .unwrap(),
            1452
        );
    }
}
