//! The rustls client configuration: roots, client identity, ALPN, and the `danger` switch.

use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, WebPkiSupportedAlgorithms};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};

use crate::auth::CertSlot;
use crate::error::{Error, Kind, Result};

/// Where the system CA bundle usually is, when the cluster gives no CA.
const SYSTEM_BUNDLES: &[&str] = &[
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/pki/tls/certs/ca-bundle.crt",
    "/etc/ssl/ca-bundle.pem",
    "/etc/ssl/cert.pem",
];

/// What the TLS configuration is built from.
pub(crate) struct TlsSettings<'a> {
    /// PEM certificates: the only roots trusted when set.
    pub(crate) root_ca: Option<&'a [u8]>,
    /// PEM certificate chain and private key.
    pub(crate) identity: Option<(&'a [u8], &'a [u8])>,
    pub(crate) accept_invalid_certs: bool,
    pub(crate) http2: bool,
    /// Where an exec plugin puts its client certificate (when no static identity is set).
    pub(crate) cert_slot: Option<Arc<CertSlot>>,
}

fn tls_error(message: impl Into<String>) -> Error {
    Error::new(Kind::Config, message)
}

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// Parses every certificate of a PEM bundle.
pub(crate) fn parse_certs(pem: &[u8], what: &str) -> Result<Vec<CertificateDer<'static>>> {
    let certs = CertificateDer::pem_slice_iter(pem)
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| tls_error(format!("invalid PEM in {what}")).with_source(e))?;
    if certs.is_empty() {
        return Err(tls_error(format!("no certificate found in {what}")));
    }
    Ok(certs)
}

fn roots(root_ca: Option<&[u8]>) -> Result<RootCertStore> {
    let mut store = RootCertStore::empty();
    if let Some(pem) = root_ca {
        for (n, cert) in parse_certs(pem, "the certificate authority")?
            .into_iter()
            .enumerate()
        {
            store.add(cert).map_err(|e| {
                tls_error(format!(
                    "cannot parse the certificate authority: certificate {} is not a valid X.509 certificate ({})",
                    n + 1,
                    crate::config::certificate_problem(&e)
                ))
            })?;
        }
        return Ok(store);
    }
    let env = std::env::var("SSL_CERT_FILE").ok();
    let bundle = env
        .iter()
        .map(String::as_str)
        .chain(SYSTEM_BUNDLES.iter().copied())
        .find_map(|p| std::fs::read(p).ok());
    match bundle {
        Some(pem) => {
            let certs = CertificateDer::pem_slice_iter(&pem).filter_map(std::result::Result::ok);
            let (added, _ignored) = store.add_parsable_certificates(certs);
            tracing::debug!(added, "loaded the system certificate authorities");
        }
        None => tracing::warn!("no certificate authority configured and no system CA bundle found"),
    }
    Ok(store)
}

/// Builds the client configuration.
pub(crate) fn client_config(settings: &TlsSettings<'_>) -> Result<ClientConfig> {
    let builder = ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| tls_error("unsupported TLS protocol versions").with_source(e))?;
    let builder = if settings.accept_invalid_certs {
        builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(NoVerification(
                provider().signature_verification_algorithms,
            )))
    } else {
        builder.with_root_certificates(roots(settings.root_ca)?)
    };
    let mut config = match settings.identity {
        Some((cert, key)) => {
            let chain = parse_certs(cert, "the client certificate")?;
            // The key's parse error would quote nothing secret, but keep it out anyway.
            let key = PrivateKeyDer::from_pem_slice(key)
                .map_err(|_| tls_error("invalid or missing private key in the client key"))?;
            builder.with_client_auth_cert(chain, key).map_err(|e| {
                tls_error("the client certificate does not match its key").with_source(e)
            })?
        }
        None => match &settings.cert_slot {
            Some(slot) => builder.with_client_cert_resolver(Arc::clone(slot) as _),
            None => builder.with_no_client_auth(),
        },
    };
    config.alpn_protocols = if settings.http2 {
        vec![b"h2".to_vec(), b"http/1.1".to_vec()]
    } else {
        vec![b"http/1.1".to_vec()]
    };
    Ok(config)
}

/// The server name to verify: `tls-server-name` when set, else the URL's host.
pub(crate) fn server_name(name: &str) -> Result<ServerName<'static>> {
    let host = name.trim_start_matches('[').trim_end_matches(']');
    ServerName::try_from(host.to_owned())
        .map_err(|e| tls_error(format!("invalid TLS server name {host:?}")).with_source(e))
}

/// Accepts any server certificate (still checking handshake signatures). Only reachable through
/// `Config::danger_accept_invalid_certs`.
#[derive(Debug)]
struct NoVerification(WebPkiSupportedAlgorithms);

impl ServerCertVerifier for NoVerification {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.0)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.0)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_schemes()
    }
}
