//! [`OidcConfig`]: the settings of the `oidc` auth-provider.

use std::fmt;
use std::path::PathBuf;

use super::persist::PersistTarget;
use crate::auth::Secret;
use crate::error::{Error, Kind, Result};

/// An `auth-provider` named `oidc`, as in a kubeconfig user's `auth-provider.config`.
///
/// `Debug` shows the issuer, the client id and which tokens are present, never a token or the
/// client secret.
///
/// # Examples
/// ```
/// use kinformer_rest::Config;
/// use kinformer_rest::auth::{Auth, OidcConfig, Secret};
///
/// let oidc = OidcConfig::new("https://dex.example.com", "kubectl")?
///     .with_refresh_token(Secret::new("r3fr3sh"));
/// let config = Config::new("https://127.0.0.1:6443".parse()?).with_auth(Auth::Oidc(Box::new(oidc)));
/// assert!(!format!("{config:?}").contains("r3fr3sh"));
/// assert!(OidcConfig::new("not a url", "kubectl").is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct OidcConfig {
    pub(super) issuer_url: String,
    pub(super) client_id: String,
    pub(super) client_secret: Option<Secret>,
    pub(super) id_token: Option<Secret>,
    pub(super) refresh_token: Option<Secret>,
    pub(super) certificate_authority: Option<Vec<u8>>,
    pub(super) extra_scopes: Vec<String>,
    pub(super) persist: Option<PersistTarget>,
}

impl OidcConfig {
    /// A provider for `issuer_url` and `client_id`, with no tokens yet.
    ///
    /// # Errors
    /// An issuer that is not an `http(s)` URL, or an empty client id.
    pub fn new(issuer_url: impl Into<String>, client_id: impl Into<String>) -> Result<Self> {
        let (issuer_url, client_id) = (issuer_url.into(), client_id.into());
        let url: Option<http::Uri> = issuer_url.parse().ok();
        if !url.is_some_and(|u| matches!(u.scheme_str(), Some("https" | "http"))) {
            return Err(Error::new(
                Kind::Config,
                format!("the oidc idp-issuer-url {issuer_url:?} is not an https URL"),
            ));
        }
        if client_id.is_empty() {
            return Err(Error::new(
                Kind::Config,
                "the oidc auth-provider needs client-id",
            ));
        }
        Ok(Self {
            issuer_url,
            client_id,
            client_secret: None,
            id_token: None,
            refresh_token: None,
            certificate_authority: None,
            extra_scopes: Vec::new(),
            persist: None,
        })
    }

    /// `idp-issuer-url`: where `/.well-known/openid-configuration` is served.
    pub fn issuer_url(&self) -> &str {
        &self.issuer_url
    }

    /// `client-id`: the OAuth2 client the refresh authenticates as.
    pub fn client_id(&self) -> &str {
        &self.client_id
    }

    /// Sets [`client_secret`](Self::client_secret).
    #[must_use]
    pub fn with_client_secret(mut self, secret: Secret) -> Self {
        self.client_secret = Some(secret);
        self
    }

    /// `client-secret`, for confidential clients.
    pub fn client_secret(&self) -> Option<&Secret> {
        self.client_secret.as_ref()
    }

    /// Sets [`id_token`](Self::id_token).
    #[must_use]
    pub fn with_id_token(mut self, token: Secret) -> Self {
        self.id_token = Some(token);
        self
    }

    /// `id-token`: sent as the bearer token while it is not expired.
    pub fn id_token(&self) -> Option<&Secret> {
        self.id_token.as_ref()
    }

    /// Sets [`refresh_token`](Self::refresh_token).
    #[must_use]
    pub fn with_refresh_token(mut self, token: Secret) -> Self {
        self.refresh_token = Some(token);
        self
    }

    /// `refresh-token`: exchanged for a new id-token when needed.
    pub fn refresh_token(&self) -> Option<&Secret> {
        self.refresh_token.as_ref()
    }

    /// Sets [`certificate_authority`](Self::certificate_authority).
    ///
    /// # Errors
    /// No certificate in `pem`, or one that is not a valid X.509 certificate.
    pub fn with_certificate_authority(mut self, pem: impl Into<Vec<u8>>) -> Result<Self> {
        let pem = pem.into();
        crate::config::check_roots(&pem, "the oidc idp-certificate-authority")?;
        self.certificate_authority = Some(pem);
        Ok(self)
    }

    /// PEM roots trusted for the issuer (`idp-certificate-authority(-data)`); the system's
    /// roots otherwise.
    pub fn certificate_authority(&self) -> Option<&[u8]> {
        self.certificate_authority.as_deref()
    }

    /// Sets [`extra_scopes`](Self::extra_scopes).
    #[must_use]
    pub fn with_extra_scopes<I>(mut self, scopes: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        self.extra_scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// `extra-scopes`: read but not sent, as in client-go (a refresh keeps the scopes granted
    /// at login).
    pub fn extra_scopes(&self) -> &[String] {
        &self.extra_scopes
    }

    /// Writes refreshed tokens into the `auth-provider.config` of `user` in the kubeconfig
    /// `file`, as kubectl does (set for you when the configuration is loaded from a file).
    #[must_use]
    pub fn persist_to(mut self, file: impl Into<PathBuf>, user: impl Into<String>) -> Self {
        self.persist = Some(PersistTarget {
            file: file.into(),
            user: user.into(),
        });
        self
    }

    /// The kubeconfig file refreshed tokens are written to, if any.
    pub fn persisted_file(&self) -> Option<&std::path::Path> {
        self.persist.as_ref().map(|p| p.file.as_path())
    }
}

impl fmt::Debug for OidcConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OidcConfig")
            .field("issuer_url", &self.issuer_url)
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.is_some())
            .field("id_token", &self.id_token.is_some())
            .field("refresh_token", &self.refresh_token.is_some())
            .field("persist_to", &self.persisted_file())
            .finish_non_exhaustive()
    }
}
