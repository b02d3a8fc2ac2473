//! Null packet protection for a stack's pair: the real TLS 1.3 handshake (the same certificate,
//! transport parameters and handshake bytes), with every packet key and header key replaced by
//! one that does not encrypt. See [`crate::PacketProtection::Null`].
//!
//! A null packet key keeps the real key's tag length and limits, so every datagram has the size
//! it has under TLS and key updates fall at the same packet numbers. Where the AEAD tag goes it
//! writes the real key's *fingerprint* (the real key's tag over an empty message at packet
//! number 0, computed once per key) XORed with the packet number, and checks it on receipt: a
//! datagram opens only under the key and the packet number that sealed it, as under TLS, where
//! the AEAD's key and nonce must match. Both matter on a path that holds datagrams back for
//! seconds (a MANET route outage):
//! - the receiver expands a truncated packet number from the largest it has received, and a
//!   datagram delayed long enough expands to another number: TLS's AEAD rejects it, a tag
//!   without the packet number would let it through under the wrong number;
//! - quinn tries a datagram whose key phase is not the current one with the next generation's
//!   keys and takes success for the peer updating its keys: a tag without the key would turn
//!   such a stray datagram into a fatal KEY_UPDATE_ERROR where TLS drops it.
//!
//! Header protection is off: a null header key leaves the first byte and the packet number in
//! the clear; its sample size is the real key's, so the stack pads short packets exactly as
//! before. The header is not authenticated (TLS's AEAD covers it): netsim and ns-3 drop
//! corrupted datagrams rather than deliver them. Neither quinn nor noq derives anything else
//! from packet contents, so a virtual-time run sends the same datagrams at the same times; only
//! the bytes on the wire are plaintext.
//!
//! `null_protection!` declares it once for both stacks; their crypto traits differ only in how
//! they pass connection IDs (`&ConnectionId` on quinn, by value on noq), noq's packet keys'
//! leading `PathId`, and whether `start_session` takes `self: Arc<Self>` (quinn) or `&self`.

/// Declares, inside a stack's pair module, `server` and `client`: the stack's TLS crypto
/// configs wrapped with null packet protection. `cid` is the type the traits pass connection
/// IDs as (and `cid_of` makes one from a `&ConnectionId`), `packet_args` the packet keys' extra leading parameters (and `fixed_args` values for
/// them, used for a key's fingerprint and in tests), `receiver` `arc` or `ref` (`start_session`'s receiver).
macro_rules! null_protection {
    (@server_start arc) => {
        fn start_session(
            self: Arc<Self>,
            version: u32,
            params: &TransportParameters,
        ) -> Box<dyn crypto::Session> {
            Box::new(NullSession(Arc::clone(&self.0).start_session(version, params)))
        }
    };
    (@server_start ref) => {
        fn start_session(&self, version: u32, params: &TransportParameters) -> Box<dyn crypto::Session> {
            Box::new(NullSession(self.0.start_session(version, params)))
        }
    };
    (@client_start arc) => {
        fn start_session(
            self: Arc<Self>,
            version: u32,
            server_name: &str,
            params: &TransportParameters,
        ) -> Result<Box<dyn crypto::Session>, ConnectError> {
            let session = Arc::clone(&self.0).start_session(version, server_name, params)?;
            Ok(Box::new(NullSession(session)))
        }
    };
    (@client_start ref) => {
        fn start_session(
            &self,
            version: u32,
            server_name: &str,
            params: &TransportParameters,
        ) -> Result<Box<dyn crypto::Session>, ConnectError> {
            let session = self.0.start_session(version, server_name, params)?;
            Ok(Box::new(NullSession(session)))
        }
    };
    (
        stack: $q:ident,
        proto: $proto:ident,
        cid: $cid:ty,
        cid_of: $cid_of:expr,
        packet_args: ($($pa:ident: $pt:ty),*),
        fixed_args: ($($arg:expr),*),
        receiver: $receiver:ident
    ) => {
        use std::any::Any;
        use std::sync::Arc;

        use bytes::BytesMut;
        use $q::{ConnectError, ConnectionId, Side};
        use $q::crypto::{
            self, CryptoError, ExportKeyingMaterialError, HeaderKey, KeyPair, Keys, PacketKey,
            UnsupportedVersion,
        };
        use $proto::TransportError;
        use $proto::transport_parameters::TransportParameters;

        /// A packet key that leaves the payload in the clear and writes, where the tag goes, the
        /// real key's fingerprint: its tag over an empty message at packet number 0.
        struct NullPacketKey {
            fingerprint: Vec<u8>,
            confidentiality_limit: u64,
            integrity_limit: u64,
        }

        impl NullPacketKey {
            fn boxed(real: &dyn PacketKey) -> Box<dyn PacketKey> {
                let mut fingerprint = vec![0; real.tag_len()];
                real.encrypt($($arg,)* 0, &mut fingerprint, 0);
                Box::new(Self {
                    fingerprint,
                    confidentiality_limit: real.confidentiality_limit(),
                    integrity_limit: real.integrity_limit(),
                })
            }
        }

        impl NullPacketKey {
            /// The tag of packet number `packet`: the fingerprint, its first 8 bytes XORed with
            /// the packet number (AEAD's nonce carries the packet number the same way).
            fn tag(&self, packet: u64) -> impl Iterator<Item = u8> + '_ {
                let number = packet.to_le_bytes();
                self.fingerprint
                    .iter()
                    .enumerate()
                    .map(move |(i, &b)| b ^ number.get(i).copied().unwrap_or(0))
            }
        }

        impl PacketKey for NullPacketKey {
            fn encrypt(&self, $($pa: $pt,)* packet: u64, buf: &mut [u8], header_len: usize) {
                let tag_start = buf.len().saturating_sub(self.tag_len()).max(header_len);
                for (at, byte) in buf[tag_start..].iter_mut().zip(self.tag(packet)) {
                    *at = byte;
                }
            }

            fn decrypt(
                &self,
                $($pa: $pt,)*
                packet: u64,
                _header: &[u8],
                payload: &mut BytesMut,
            ) -> Result<(), CryptoError> {
                let Some(body) = payload.len().checked_sub(self.tag_len()) else {
                    return Err(CryptoError);
                };
                // A datagram sealed by another key (another key generation, or a peer with other
                // settings) or under another packet number (a truncated number expanded wrongly
                // after a long delay) fails here, as an AEAD tag that does not verify would.
                if !payload[body..].iter().copied().eq(self.tag(packet)) {
                    return Err(CryptoError);
                }
                payload.truncate(body);
                Ok(())
            }

            fn tag_len(&self) -> usize {
                self.fingerprint.len()
            }

            fn confidentiality_limit(&self) -> u64 {
                self.confidentiality_limit
            }

            fn integrity_limit(&self) -> u64 {
                self.integrity_limit
            }
        }

        /// A header key that leaves the header as it is, with the real key's sample size.
        struct NullHeaderKey {
            sample_size: usize,
        }

        impl NullHeaderKey {
            fn boxed(real: &dyn HeaderKey) -> Box<dyn HeaderKey> {
                Box::new(Self {
                    sample_size: real.sample_size(),
                })
            }
        }

        impl HeaderKey for NullHeaderKey {
            fn decrypt(&self, _pn_offset: usize, _packet: &mut [u8]) {}

            fn encrypt(&self, _pn_offset: usize, _packet: &mut [u8]) {}

            fn sample_size(&self) -> usize {
                self.sample_size
            }
        }

        fn null_packet_pair(real: KeyPair<Box<dyn PacketKey>>) -> KeyPair<Box<dyn PacketKey>> {
            KeyPair {
                local: NullPacketKey::boxed(real.local.as_ref()),
                remote: NullPacketKey::boxed(real.remote.as_ref()),
            }
        }

        fn null_keys(real: Keys) -> Keys {
            Keys {
                header: KeyPair {
                    local: NullHeaderKey::boxed(real.header.local.as_ref()),
                    remote: NullHeaderKey::boxed(real.header.remote.as_ref()),
                },
                packet: null_packet_pair(real.packet),
            }
        }

        /// A TLS session whose keys are replaced by null ones; everything else is the session's.
        struct NullSession(Box<dyn crypto::Session>);

        impl crypto::Session for NullSession {
            fn initial_keys(&self, dst_cid: $cid, side: Side) -> Keys {
                null_keys(self.0.initial_keys(dst_cid, side))
            }

            fn handshake_data(&self) -> Option<Box<dyn Any>> {
                self.0.handshake_data()
            }

            fn peer_identity(&self) -> Option<Box<dyn Any>> {
                self.0.peer_identity()
            }

            fn early_crypto(&self) -> Option<(Box<dyn HeaderKey>, Box<dyn PacketKey>)> {
                self.0.early_crypto().map(|(header, packet)| {
                    (
                        NullHeaderKey::boxed(header.as_ref()),
                        NullPacketKey::boxed(packet.as_ref()),
                    )
                })
            }

            fn early_data_accepted(&self) -> Option<bool> {
                self.0.early_data_accepted()
            }

            fn is_handshaking(&self) -> bool {
                self.0.is_handshaking()
            }

            fn read_handshake(&mut self, buf: &[u8]) -> Result<bool, TransportError> {
                self.0.read_handshake(buf)
            }

            fn transport_parameters(&self) -> Result<Option<TransportParameters>, TransportError> {
                self.0.transport_parameters()
            }

            fn write_handshake(&mut self, buf: &mut Vec<u8>) -> Option<Keys> {
                self.0.write_handshake(buf).map(null_keys)
            }

            fn next_1rtt_keys(&mut self) -> Option<KeyPair<Box<dyn PacketKey>>> {
                self.0.next_1rtt_keys().map(null_packet_pair)
            }

            fn is_valid_retry(&self, orig_dst_cid: $cid, header: &[u8], payload: &[u8]) -> bool {
                self.0.is_valid_retry(orig_dst_cid, header, payload)
            }

            fn export_keying_material(
                &self,
                output: &mut [u8],
                label: &[u8],
                context: &[u8],
            ) -> Result<(), ExportKeyingMaterialError> {
                self.0.export_keying_material(output, label, context)
            }
        }

        /// `real` with null packet protection, for `ServerConfig::with_crypto`.
        pub(crate) fn server(
            real: Arc<dyn crypto::ServerConfig>,
        ) -> Arc<dyn crypto::ServerConfig> {
            Arc::new(NullServerConfig(real))
        }

        /// `real` with null packet protection, for `ClientConfig::new`.
        pub(crate) fn client(
            real: Arc<dyn crypto::ClientConfig>,
        ) -> Arc<dyn crypto::ClientConfig> {
            Arc::new(NullClientConfig(real))
        }

        /// A server crypto config whose sessions and initial keys are null-protected.
        struct NullServerConfig(Arc<dyn crypto::ServerConfig>);

        impl crypto::ServerConfig for NullServerConfig {
            fn initial_keys(
                &self,
                version: u32,
                dst_cid: $cid,
            ) -> Result<Keys, UnsupportedVersion> {
                self.0.initial_keys(version, dst_cid).map(null_keys)
            }

            fn retry_tag(&self, version: u32, orig_dst_cid: $cid, packet: &[u8]) -> [u8; 16] {
                self.0.retry_tag(version, orig_dst_cid, packet)
            }

            $crate::pair::null_protection::null_protection!(@server_start $receiver);
        }

        /// A client crypto config whose sessions are null-protected.
        struct NullClientConfig(Arc<dyn crypto::ClientConfig>);

        impl crypto::ClientConfig for NullClientConfig {
            $crate::pair::null_protection::null_protection!(@client_start $receiver);
        }

        #[cfg(test)]
        mod tests {
            use super::*;
            use crate::sim::{Side, SimLink};
            use crate::{LinkConfig, PacketProtection, virtual_runtime};

            /// Whether a client with `client` protection completes a handshake with a server with
            /// `server` protection within 60 s (virtual).
            fn handshake(client: PacketProtection, server: PacketProtection) -> bool {
                let runtime = virtual_runtime().unwrap();
                runtime.block_on(async {
                    let link = SimLink::builder(LinkConfig::default(), 5).build().unwrap();
                    let identity = crate::pair::tls::identity(5).unwrap();
                    let transport = || Arc::new($q::TransportConfig::default());
                    let server_endpoint =
                        super::super::server_endpoint(&link, &identity, 5, transport(), server).unwrap();
                    let (client_endpoint, _) =
                        super::super::client_endpoint(&link, &identity, 5, transport(), client).unwrap();
                    let connecting = client_endpoint
                        .connect(link.addr(Side::B), crate::pair::tls::SERVER_NAME)
                        .unwrap();
                    let accept = async {
                        match server_endpoint.accept().await {
                            Some(incoming) => incoming.await.is_ok(),
                            None => false,
                        }
                    };
                    let both = async { tokio::join!(connecting, accept) };
                    match tokio::time::timeout(std::time::Duration::from_secs(60), both).await {
                        Ok((client, server)) => client.is_ok() && server,
                        Err(_) => false,
                    }
                })
            }

            #[test]
            fn null_protection_is_in_force_on_both_sides() {
                assert!(handshake(PacketProtection::Null, PacketProtection::Null));
                assert!(handshake(PacketProtection::Tls, PacketProtection::Tls));
                // A null client's Initial carries its fingerprint tag where the server's AEAD expects its own:
                // had either side ignored the setting, these would connect.
                assert!(!handshake(PacketProtection::Null, PacketProtection::Tls));
                assert!(!handshake(PacketProtection::Tls, PacketProtection::Null));
            }

            /// Null-protected initial keys of a connection whose client chose `cid`, as the
            /// server derives them (each call derives them afresh from TLS).
            fn initial_keys(cid: &[u8]) -> Keys {
                let identity = crate::pair::tls::identity(5).unwrap();
                let tls = crate::pair::tls::server_crypto(&identity).unwrap();
                let real: Arc<dyn crypto::ServerConfig> =
                    Arc::new($q::crypto::rustls::QuicServerConfig::try_from(tls).unwrap());
                let cid = ConnectionId::new(cid);
                server(real).initial_keys(1, ($cid_of)(&cid)).unwrap()
            }

            #[test]
            fn a_null_packet_key_keeps_the_size_and_opens_only_what_its_real_key_would() {
                let sealer = initial_keys(&[1; 8]).packet.local;
                let opener = initial_keys(&[1; 8]).packet.local;
                let other_connection = initial_keys(&[2; 8]).packet.local;
                let other_direction = initial_keys(&[1; 8]).packet.remote;
                assert_eq!(sealer.tag_len(), 16);
                let mut buf = vec![7u8; 40];
                sealer.encrypt($($arg,)* 3, &mut buf, 8);
                // The header and payload are untouched; the tag is the real key's fingerprint.
                assert_eq!(&buf[..24], &[7u8; 24]);
                assert_ne!(&buf[24..], &[0u8; 16]);
                let sealed = buf.clone();
                let mut payload = BytesMut::from(&sealed[8..]);
                opener.decrypt($($arg,)* 3, &sealed[..8], &mut payload).unwrap();
                assert_eq!(&payload[..], &[7u8; 16]);
                // Another key (another connection's or direction's here; after a key update,
                // another generation's) does not open it, as its AEAD would not; nor does its
                // own key under another packet number.
                for other in [&other_connection, &other_direction] {
                    let mut payload = BytesMut::from(&sealed[8..]);
                    assert!(other.decrypt($($arg,)* 3, &sealed[..8], &mut payload).is_err());
                }
                let mut payload = BytesMut::from(&sealed[8..]);
                assert!(opener.decrypt($($arg,)* 3 + 256, &sealed[..8], &mut payload).is_err());
                let mut zero_tag = BytesMut::from(&[0u8; 20][..]);
                assert!(opener.decrypt($($arg,)* 3, &[], &mut zero_tag).is_err());
                let mut short = BytesMut::from(&[0u8; 4][..]);
                assert!(opener.decrypt($($arg,)* 3, &[], &mut short).is_err());
            }
        }
    };
}

pub(crate) use null_protection;
