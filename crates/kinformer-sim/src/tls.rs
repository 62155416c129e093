//! TLS: a self-signed CA and a server certificate for `127.0.0.1` and `localhost`, generated at start.

use std::sync::Arc;

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose};
use rustls::ServerConfig;
use rustls_pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

use crate::{Error, Result};

/// The generated certificates and the rustls configuration that serves them.
#[derive(Debug, Clone)]
pub(crate) struct TlsMaterial {
    pub(crate) ca_pem: String,
    pub(crate) config: Arc<ServerConfig>,
}

fn tls_err(e: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::Tls(Box::new(e))
}

pub(crate) fn generate() -> Result<TlsMaterial> {
    let ca_key = KeyPair::generate().map_err(tls_err)?;
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).map_err(tls_err)?;
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "kinformer-sim CA");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    let ca_cert = ca_params.self_signed(&ca_key).map_err(tls_err)?;
    let issuer = Issuer::new(ca_params, ca_key);

    let server_key = KeyPair::generate().map_err(tls_err)?;
    let mut params = CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
        .map_err(tls_err)?;
    params
        .distinguished_name
        .push(DnType::CommonName, "kinformer-sim");
    let cert = params.signed_by(&server_key, &issuer).map_err(tls_err)?;

    let chain = vec![
        cert.der().clone(),
        CertificateDer::from(ca_cert.der().to_vec()),
    ];
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(server_key.serialize_der()));
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(tls_err)?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(tls_err)?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(TlsMaterial {
        ca_pem: ca_cert.pem(),
        config: Arc::new(config),
    })
}
