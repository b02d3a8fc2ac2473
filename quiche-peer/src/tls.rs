//! TLS for both stacks: one self-signed certificate per run, as PEM files for quiche
//! (BoringSSL) and as DER for quinn (rustls).

use std::path::PathBuf;
use std::sync::Arc;

use quinn::crypto::rustls::{QuicClientConfig, QuicServerConfig};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

use crate::error::Error;

/// The ALPN protocol both stacks offer: the one `netsim::quinn_pair` uses on both its sides.
pub const ALPN: &[u8] = b"netsim";

/// The name the certificate is issued for, and the name the clients check.
pub(crate) use netsim::quinn_pair::SERVER_NAME;

/// A self-signed ECDSA P-256 certificate for [`SERVER_NAME`], in memory and as PEM files.
///
/// ECDSA P-256 (rcgen's default) rather than netsim's Ed25519: BoringSSL clients do not offer
/// Ed25519 signatures by default, so a quinn server with an Ed25519 key could not serve a quiche
/// client.
pub(crate) struct Identity {
    cert: CertificateDer<'static>,
    key: PrivatePkcs8KeyDer<'static>,
    /// Holds the PEM files; removed when the identity is dropped.
    _dir: tempfile::TempDir,
    cert_pem: String,
    key_pem: String,
}

impl Identity {
    /// A fresh certificate and key (from ring's RNG), written to a new temporary directory.
    pub fn generate() -> Result<Self, Error> {
        let certified = rcgen::generate_simple_self_signed(vec![SERVER_NAME.to_owned()])
            .map_err(|e| Error::Tls(format!("generating the certificate: {e}")))?;
        let dir = tempfile::Builder::new()
            .prefix("quiche-peer-tls-")
            .tempdir()
            .map_err(|e| Error::io("creating a temporary directory for the PEM files", e))?;
        let cert_path: PathBuf = dir.path().join("cert.pem");
        let key_path: PathBuf = dir.path().join("key.pem");
        std::fs::write(&cert_path, certified.cert.pem())
            .map_err(|e| Error::io("writing cert.pem", e))?;
        std::fs::write(&key_path, certified.key_pair.serialize_pem())
            .map_err(|e| Error::io("writing key.pem", e))?;
        let utf8 = |path: PathBuf| {
            path.to_str().map(str::to_owned).ok_or_else(|| {
                Error::Tls(format!(
                    "the temporary path {} is not UTF-8, which quiche's PEM loaders need",
                    path.display()
                ))
            })
        };
        Ok(Self {
            cert: certified.cert.der().clone(),
            key: PrivatePkcs8KeyDer::from(certified.key_pair.serialize_der()),
            cert_pem: utf8(cert_path)?,
            key_pem: utf8(key_path)?,
            _dir: dir,
        })
    }

    /// Makes `config` a server presenting this certificate.
    pub fn quiche_server(&self, config: &mut quiche::Config) -> Result<(), Error> {
        config
            .load_cert_chain_from_pem_file(&self.cert_pem)
            .map_err(|e| Error::quiche("loading cert.pem", e))?;
        config
            .load_priv_key_from_pem_file(&self.key_pem)
            .map_err(|e| Error::quiche("loading key.pem", e))?;
        // No client certificates.
        config.verify_peer(false);
        Ok(())
    }

    /// Makes `config` a client that trusts exactly this certificate. quiche checks the chain
    /// and the host name (the `server_name` passed to `quiche::connect`).
    pub fn quiche_client(&self, config: &mut quiche::Config) -> Result<(), Error> {
        config
            .load_verify_locations_from_file(&self.cert_pem)
            .map_err(|e| Error::quiche("loading cert.pem as the trust anchor", e))?;
        config.verify_peer(true);
        Ok(())
    }

    /// quinn server crypto presenting this certificate.
    pub fn quinn_server(&self) -> Result<Arc<QuicServerConfig>, Error> {
        let tls = |e: rustls::Error| Error::Tls(e.to_string());
        let mut crypto = rustls::ServerConfig::builder_with_provider(provider())
            .with_protocol_versions(&[&rustls::version::TLS13])
            .map_err(tls)?
            .with_no_client_auth()
            .with_single_cert(
                vec![self.cert.clone()],
                PrivateKeyDer::Pkcs8(self.key.clone_key()),
            )
            .map_err(tls)?;
        crypto.alpn_protocols = vec![ALPN.to_vec()];
        let quic = QuicServerConfig::try_from(crypto).map_err(|e| Error::Tls(e.to_string()))?;
        Ok(Arc::new(quic))
    }

    /// quinn client crypto trusting exactly this certificate.
    pub fn quinn_client(&self) -> Result<Arc<QuicClientConfig>, Error> {
        let tls = |e: rustls::Error| Error::Tls(e.to_string());
        let mut roots = rustls::RootCertStore::empty();
        roots.add(self.cert.clone()).map_err(tls)?;
        let mut crypto = rustls::ClientConfig::builder_with_provider(provider())
            .with_protocol_versions(&[&rustls::version::TLS13])
            .map_err(tls)?
            .with_root_certificates(roots)
            .with_no_client_auth();
        crypto.alpn_protocols = vec![ALPN.to_vec()];
        let quic = QuicClientConfig::try_from(crypto).map_err(|e| Error::Tls(e.to_string()))?;
        Ok(Arc::new(quic))
    }
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}
