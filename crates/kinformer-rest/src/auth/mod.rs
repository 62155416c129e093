//! Who the client is: its credentials ([`Auth`], what the config says), its TLS client
//! certificate ([`Identity`]), whom it acts as ([`Impersonate`]), and the layer that puts
//! credentials on requests ([`AuthLayer`]).

mod cert_slot;
mod exec;
mod layer;
mod oidc;
mod secret;
mod token_file;

pub(crate) use cert_slot::CertSlot;
pub use exec::{ExecConfig, InteractiveMode};
pub use layer::{AuthLayer, AuthService};
pub use oidc::OidcConfig;
pub use secret::Secret;

pub use crate::config::{Identity, Impersonate};

use std::path::PathBuf;

/// How requests authenticate (besides a TLS client certificate, which is part of the TLS
/// configuration).
///
/// `Debug` never shows a credential.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub enum Auth {
    /// No credentials.
    #[default]
    None,
    /// HTTP basic auth.
    Basic {
        /// The user name.
        username: String,
        /// The password.
        password: Secret,
    },
    /// A static bearer token.
    Bearer(Secret),
    /// A bearer token read from a file and re-read about every 50 s (and after a 401), so
    /// rotated tokens (service accounts, projected volumes) are picked up.
    TokenFile(PathBuf),
    /// A `client.authentication.k8s.io` exec credential plugin.
    Exec(Box<ExecConfig>),
    /// The `oidc` auth-provider: an id-token refreshed at the issuer when it expires.
    Oidc(Box<OidcConfig>),
}
