//! [`Identity`]: a TLS client certificate and its private key.

use std::fmt;

/// A PEM client certificate chain and PEM private key. `Debug` never shows the key.
#[derive(Clone)]
pub struct Identity {
    cert_pem: Vec<u8>,
    key_pem: Vec<u8>,
}

impl Identity {
    /// An identity from PEM bytes.
    pub fn from_pem(cert_pem: impl Into<Vec<u8>>, key_pem: impl Into<Vec<u8>>) -> Self {
        Self {
            cert_pem: cert_pem.into(),
            key_pem: key_pem.into(),
        }
    }

    /// The PEM certificate chain.
    pub fn cert_pem(&self) -> &[u8] {
        &self.cert_pem
    }

    pub(crate) fn key_pem(&self) -> &[u8] {
        &self.key_pem
    }
}

impl fmt::Debug for Identity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Identity")
            .field("cert_pem", &format_args!("{} bytes", self.cert_pem.len()))
            .field("key_pem", &"<redacted>")
            .finish()
    }
}
