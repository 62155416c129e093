//! The `oidc` auth-provider (client-go's `plugin/pkg/client/auth/oidc`): the id-token is the
//! bearer token; when it is missing or expired it is refreshed with the refresh token at the
//! issuer's token endpoint, and the new tokens are written back to the kubeconfig.

mod config;
mod jwt;
mod persist;
mod refresh;

pub use config::OidcConfig;

use std::collections::HashMap;
use std::sync::{Arc, Mutex as SyncMutex, OnceLock, Weak};

use http::HeaderValue;
use tokio::sync::Mutex;

use super::Secret;
use crate::client::Client;
use crate::config::{Config, RateLimit};
use crate::error::{Error, Kind, Result};
use persist::PersistTarget;

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
    /// An issuer CA that cannot be used.
    pub(crate) fn shared(config: &OidcConfig) -> Result<Arc<Self>> {
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
        let mut issuer = Config::new(url)
            .with_rate_limit(RateLimit::Unlimited)
            .with_max_retries(0);
        if let Some(roots) = &config.certificate_authority {
            issuer = issuer.with_root_ca(roots.clone())?;
        }
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
