//! The `oidc` auth-provider (client-go's `plugin/pkg/client/auth/oidc`): the id-token is the
//! bearer token; when it is missing or expired it is refreshed with the refresh token at the
//! issuer's token endpoint, and the new tokens are written back to the kubeconfig.

mod jwt;
mod persist;
mod refresh;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex as SyncMutex, OnceLock, Weak};

use http::HeaderValue;
use tokio::sync::Mutex;

use super::Secret;
use crate::client::Client;
use crate::config::Config;
use crate::error::{Error, Kind, Result};
use persist::PersistTarget;

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
/// let mut oidc = OidcConfig::new("https://dex.example.com", "kubectl");
/// oidc.refresh_token = Some(Secret::new("r3fr3sh"));
/// let mut config = Config::new("https://127.0.0.1:6443".parse()?);
/// config.auth = Auth::Oidc(Box::new(oidc));
/// assert!(!format!("{config:?}").contains("r3fr3sh"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct OidcConfig {
    /// `idp-issuer-url`: where `/.well-known/openid-configuration` is served.
    pub issuer_url: String,
    /// `client-id`: the OAuth2 client the refresh authenticates as.
    pub client_id: String,
    /// `client-secret`, for confidential clients.
    pub client_secret: Option<Secret>,
    /// `id-token`: sent as the bearer token while it is not expired.
    pub id_token: Option<Secret>,
    /// `refresh-token`: exchanged for a new id-token when needed.
    pub refresh_token: Option<Secret>,
    /// PEM roots trusted for the issuer (`idp-certificate-authority(-data)`); the system's
    /// roots otherwise.
    pub certificate_authority: Option<Vec<u8>>,
    /// `extra-scopes`: read but not sent, as in client-go (a refresh keeps the scopes granted
    /// at login).
    pub extra_scopes: Vec<String>,
    /// Where refreshed tokens are written back.
    persist: Option<PersistTarget>,
}

impl OidcConfig {
    /// A provider for `issuer_url` and `client_id`, with no tokens yet.
    pub fn new(issuer_url: impl Into<String>, client_id: impl Into<String>) -> Self {
        Self {
            issuer_url: issuer_url.into(),
            client_id: client_id.into(),
            client_secret: None,
            id_token: None,
            refresh_token: None,
            certificate_authority: None,
            extra_scopes: Vec::new(),
            persist: None,
        }
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

impl std::fmt::Debug for OidcConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
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

/// The tokens in use; guarded by one async lock so concurrent requests share one refresh.
#[derive(Default)]
struct Tokens {
    id_token: Option<Secret>,
    refresh_token: Option<Secret>,
}

/// A running provider: the current tokens and a client for the issuer.
pub(crate) struct OidcAuth {
    issuer_url: String,
    client_id: String,
    client_secret: Option<Secret>,
    persist: Option<PersistTarget>,
    issuer: Client,
    tokens: Mutex<Tokens>,
}

impl std::fmt::Debug for OidcAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OidcAuth")
            .field("issuer_url", &self.issuer_url)
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

/// Providers in use, keyed as client-go keys them (issuer, client id) plus the file they write
/// to: every client of the process then refreshes through one lock and one set of tokens, so a
/// rotated refresh token is never used twice.
type Registry = HashMap<(String, String, Option<PersistTarget>), Weak<OidcAuth>>;

fn registry() -> &'static SyncMutex<Registry> {
    static REGISTRY: OnceLock<SyncMutex<Registry>> = OnceLock::new();
    REGISTRY.get_or_init(SyncMutex::default)
}

impl OidcAuth {
    /// The provider for `config`: the one already running for the same issuer, client id and
    /// file, else a new one.
    ///
    /// # Errors
    /// No issuer or client id, or an issuer CA that cannot be used.
    pub(crate) fn shared(config: &OidcConfig) -> Result<Arc<Self>> {
        for (value, key) in [
            (&config.issuer_url, "idp-issuer-url"),
            (&config.client_id, "client-id"),
        ] {
            if value.is_empty() {
                return Err(Error::new(
                    Kind::Config,
                    format!("the oidc auth-provider needs {key}"),
                ));
            }
        }
        let key = (
            config.issuer_url.clone(),
            config.client_id.clone(),
            config.persist.clone(),
        );
        // A poisoned lock only means a panic elsewhere; the map is whole either way.
        let mut providers = registry()
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        providers.retain(|_, p| p.strong_count() > 0);
        if let Some(running) = providers.get(&key).and_then(Weak::upgrade) {
            return Ok(running);
        }
        let provider = Arc::new(Self::new(config)?);
        providers.insert(key, Arc::downgrade(&provider));
        Ok(provider)
    }

    fn new(config: &OidcConfig) -> Result<Self> {
        let url = config.issuer_url.parse().map_err(|e| {
            Error::new(
                Kind::Config,
                format!("invalid idp-issuer-url {:?}", config.issuer_url),
            )
            .with_source(e)
        })?;
        // As client-go: a plain client with only the issuer's roots; no rate limit or retries.
        let mut issuer = Config::new(url);
        issuer.root_ca.clone_from(&config.certificate_authority);
        issuer.qps = -1.0;
        issuer.max_retries = 0;
        Ok(Self {
            issuer_url: config.issuer_url.clone(),
            client_id: config.client_id.clone(),
            client_secret: config.client_secret.clone(),
            persist: config.persist.clone(),
            issuer: Client::from_config(&issuer)?,
            tokens: Mutex::new(Tokens {
                id_token: config.id_token.clone().filter(|t| !t.expose().is_empty()),
                refresh_token: config
                    .refresh_token
                    .clone()
                    .filter(|t| !t.expose().is_empty()),
            }),
        })
    }

    /// The id-token as a bearer header, refreshed first when it is missing or expired.
    ///
    /// # Errors
    /// An id-token that is not a JWT, no refresh token, a failed refresh or a failed write-back
    /// (then the new tokens are not used either, as in client-go).
    pub(crate) async fn header(&self) -> Result<HeaderValue> {
        let mut tokens = self.tokens.lock().await;
        if let Some(id_token) = &tokens.id_token
            && jwt::is_unexpired(id_token.expose(), super::exec::unix_now())?
        {
            return super::layer::bearer(id_token.expose());
        }
        let refresh_token = tokens.refresh_token.clone().ok_or_else(|| {
            Error::new(
                Kind::Auth,
                "oidc: no valid id-token, and no refresh-token to get one",
            )
        })?;
        let oauth = refresh::OAuthClient {
            id: &self.client_id,
            secret: self.client_secret.as_ref(),
        };
        let fresh =
            refresh::refresh(&self.issuer, &self.issuer_url, &oauth, &refresh_token).await?;
        if let Some(target) = self.persist.clone() {
            let id = fresh.id_token.clone();
            let rotated = fresh.refresh_token.clone();
            tokio::task::spawn_blocking(move || {
                persist::write_tokens(&target, id.expose(), rotated.as_ref().map(Secret::expose))
            })
            .await
            .map_err(|e| {
                Error::new(Kind::Auth, "oidc: writing the new tokens failed").with_source(e)
            })??;
        }
        tracing::debug!(issuer = %self.issuer_url, "refreshed the oidc id-token");
        let header = super::layer::bearer(fresh.id_token.expose())?;
        tokens.id_token = Some(fresh.id_token);
        if let Some(rotated) = fresh.refresh_token {
            tokens.refresh_token = Some(rotated);
        }
        Ok(header)
    }

    /// Forgets the id-token if it is the one that got a 401, so the next request refreshes.
    pub(crate) async fn invalidate(&self, used: &HeaderValue) {
        let mut tokens = self.tokens.lock().await;
        let current = tokens
            .id_token
            .as_ref()
            .and_then(|t| super::layer::bearer(t.expose()).ok());
        if current.as_ref() == Some(used) {
            tokens.id_token = None;
        }
    }
}
