//! TLS for client/server pairs on every stack: a self-signed Ed25519 certificate derived from
//! the run seed, and the rustls configurations each stack wraps in its own QUIC crypto type.
//!
//! The key is built from seeded bytes (not the OS RNG), the serial number and validity are
//! fixed, and Ed25519 signatures are deterministic, so the certificate, and with it the size of
//! every handshake datagram, is the same in every run with the same seed. (ECDSA signatures
//! vary in DER length from run to run, which would change handshake datagram sizes.)

use std::sync::Arc;

use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

use crate::seed::derive_seed;

/// The name the certificate is issued for and the client connects to.
pub const SERVER_NAME: &str = "netsim.test";

/// ALPN protocol both sides offer.
const ALPN: &[u8] = b"netsim";

/// PKCS#8 v1 header of an Ed25519 private key (RFC 8410 section 7); the 32-byte seed follows.
const ED25519_PKCS8_PREFIX: [u8; 16] = [
    0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
];

/// A certificate and its private key.
pub(crate) struct Identity {
    cert: CertificateDer<'static>,
    key: PrivatePkcs8KeyDer<'static>,
}

/// 32 bytes derived from the run seed for the stream named `label`.
pub(crate) fn seed_bytes(run_seed: u64, label: &str) -> [u8; 32] {
    let mut bytes = [0u8; 32];
    for (i, chunk) in bytes.chunks_mut(8).enumerate() {
        chunk.copy_from_slice(&derive_seed(run_seed, &format!("{label}/{i}")).to_le_bytes());
    }
    bytes
}

/// The self-signed identity for `run_seed`.
pub(crate) fn identity(run_seed: u64) -> Result<Identity, String> {
    let mut pkcs8 = ED25519_PKCS8_PREFIX.to_vec();
    pkcs8.extend_from_slice(&seed_bytes(run_seed, "tls/key"));
    let key = PrivatePkcs8KeyDer::from(pkcs8);
    let tls = |e: rcgen::Error| e.to_string();
    let key_pair =
        rcgen::KeyPair::from_pkcs8_der_and_sign_algo(&key, &rcgen::PKCS_ED25519).map_err(tls)?;
    let mut params = rcgen::CertificateParams::new(vec![SERVER_NAME.to_owned()]).map_err(tls)?;
    params.serial_number = Some(rcgen::SerialNumber::from(1u64));
    let cert = params.self_signed(&key_pair).map_err(tls)?;
    Ok(Identity {
        cert: cert.der().clone(),
        key,
    })
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// Server TLS presenting `identity`, for a stack's `QuicServerConfig::try_from`.
pub(crate) fn server_crypto(identity: &Identity) -> Result<rustls::ServerConfig, String> {
    let tls = |e: rustls::Error| e.to_string();
    let mut crypto = rustls::ServerConfig::builder_with_provider(provider())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(tls)?
        .with_no_client_auth()
        .with_single_cert(
            vec![identity.cert.clone()],
            PrivateKeyDer::Pkcs8(identity.key.clone_key()),
        )
        .map_err(tls)?;
    crypto.alpn_protocols = vec![ALPN.to_vec()];
    Ok(crypto)
}

/// Client TLS trusting exactly `identity`'s certificate, for a stack's
/// `QuicClientConfig::try_from`.
pub(crate) fn client_crypto(identity: &Identity) -> Result<rustls::ClientConfig, String> {
    let tls = |e: rustls::Error| e.to_string();
    let mut roots = rustls::RootCertStore::empty();
    roots.add(identity.cert.clone()).map_err(tls)?;
    let mut crypto = rustls::ClientConfig::builder_with_provider(provider())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(tls)?
        .with_root_certificates(roots)
        .with_no_client_auth();
    crypto.alpn_protocols = vec![ALPN.to_vec()];
    Ok(crypto)
}
