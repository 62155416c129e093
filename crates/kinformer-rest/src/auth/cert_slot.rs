//! [`CertSlot`]: a client certificate that an exec plugin supplies (and renews) after the TLS
//! configuration was built.

use std::sync::{Arc, RwLock};

use rustls::SignatureScheme;
use rustls::client::ResolvesClientCert;
use rustls::sign::CertifiedKey;
use rustls_pki_types::PrivateKeyDer;
use rustls_pki_types::pem::PemObject;

use crate::error::{Error, Kind, Result};

/// Holds the latest exec-plugin certificate; new TLS connections present it.
#[derive(Debug, Default)]
pub(crate) struct CertSlot(RwLock<Option<Arc<CertifiedKey>>>);

impl CertSlot {
    /// Parses and installs a PEM certificate chain and key.
    pub(crate) fn set_pem(&self, cert: &[u8], key: &[u8]) -> Result<()> {
        let chain = crate::transport::parse_certs(cert, "the exec plugin's client certificate")?;
        let key = PrivateKeyDer::from_pem_slice(key).map_err(|_| {
            Error::new(
                Kind::Auth,
                "the exec plugin's client key is not a valid PEM key",
            )
        })?;
        let provider = rustls::crypto::ring::default_provider();
        let certified = CertifiedKey::from_der(chain, key, &provider).map_err(|e| {
            Error::new(
                Kind::Auth,
                "the exec plugin's client certificate does not match its key",
            )
            .with_source(e)
        })?;
        // A poisoned lock only means a panic elsewhere; the slot holds a whole value either way.
        *self
            .0
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Arc::new(certified));
        Ok(())
    }
}

impl ResolvesClientCert for CertSlot {
    fn resolve(&self, _hints: &[&[u8]], _schemes: &[SignatureScheme]) -> Option<Arc<CertifiedKey>> {
        self.0
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    fn has_certs(&self) -> bool {
        true
    }
}
