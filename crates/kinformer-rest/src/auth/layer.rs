//! [`AuthLayer`]: sets `Authorization`, refreshing rotating credentials and retrying once on 401.

use std::fmt;
use std::sync::Arc;

use base64::Engine as _;
use http::HeaderValue;
use http::header::AUTHORIZATION;
use tower::ServiceExt;

use super::exec::ExecAuth;
use super::oidc::OidcAuth;
use super::token_file::TokenFile;
use super::{Auth, CertSlot};
use crate::body::{Body, clone_request};
use crate::error::{Error, Kind, Result};
use crate::layers::{LayerFuture, StackService, layer_service, take_ready};

/// An `Authorization: Bearer` header value, marked sensitive so it is never logged or indexed.
pub(crate) fn bearer(token: &str) -> Result<HeaderValue> {
    let mut value = HeaderValue::try_from(format!("Bearer {token}"))
        .map_err(|_| Error::new(Kind::Auth, "the bearer token contains invalid characters"))?;
    value.set_sensitive(true);
    Ok(value)
}

#[derive(Debug)]
enum Source {
    None,
    Static(HeaderValue),
    TokenFile(TokenFile),
    Exec(ExecAuth),
    Oidc(Arc<OidcAuth>),
}

impl Source {
    async fn header(&self) -> Result<Option<HeaderValue>> {
        match self {
            Self::None => Ok(None),
            Self::Static(v) => Ok(Some(v.clone())),
            Self::TokenFile(f) => f.header().await.map(Some),
            Self::Exec(e) => e.header().await,
            Self::Oidc(o) => o.header().await.map(Some),
        }
    }

    fn refreshable(&self) -> bool {
        matches!(self, Self::TokenFile(_) | Self::Exec(_) | Self::Oidc(_))
    }

    async fn invalidate(&self, used: &HeaderValue) {
        match self {
            Self::TokenFile(f) => f.invalidate(used).await,
            Self::Exec(e) => e.invalidate(used).await,
            Self::Oidc(o) => o.invalidate(used).await,
            Self::None | Self::Static(_) => {}
        }
    }
}

/// Puts credentials on every request that has no `Authorization` header yet.
///
/// Token files, exec plugins and OIDC id-tokens are refreshed when they expire; a 401 drops the credential that
/// was used and, when a fresh one differs, resends the request once with it.
#[derive(Clone)]
pub struct AuthLayer {
    source: Arc<Source>,
}

impl AuthLayer {
    /// A layer for `auth`.
    ///
    /// # Errors
    /// A token or password that cannot be a header value, or an unreadable or empty token file.
    pub fn new(auth: &Auth) -> Result<Self> {
        Self::with_cert_slot(auth, None)
    }

    /// Like [`new`](Self::new); exec-plugin certificates go to `certs`, which the TLS
    /// configuration presents on new connections.
    pub(crate) fn with_cert_slot(auth: &Auth, certs: Option<Arc<CertSlot>>) -> Result<Self> {
        let source = match auth {
            Auth::None => Source::None,
            Auth::Basic { username, password } => {
                let raw = format!("{username}:{}", password.expose());
                let encoded = base64::engine::general_purpose::STANDARD.encode(raw);
                let mut value = HeaderValue::try_from(format!("Basic {encoded}"))
                    .map_err(|_| Error::new(Kind::Auth, "invalid basic auth credentials"))?;
                value.set_sensitive(true);
                Source::Static(value)
            }
            Auth::Bearer(token) => Source::Static(bearer(token.expose())?),
            Auth::TokenFile(path) => Source::TokenFile(TokenFile::new(path.clone())?),
            Auth::Exec(config) => Source::Exec(ExecAuth::new((**config).clone(), certs)),
            Auth::Oidc(config) => Source::Oidc(OidcAuth::shared(config)?),
        };
        Ok(Self {
            source: Arc::new(source),
        })
    }
}

impl fmt::Debug for AuthLayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match &*self.source {
            Source::None => "none",
            Source::Static(_) => "static",
            Source::TokenFile(_) => "token file",
            Source::Exec(_) => "exec",
            Source::Oidc(_) => "oidc",
        };
        f.debug_struct("AuthLayer").field("source", &kind).finish()
    }
}

impl<S> tower::Layer<S> for AuthLayer {
    type Service = AuthService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        AuthService {
            inner,
            layer: self.clone(),
        }
    }
}

/// The service of [`AuthLayer`].
#[derive(Clone, Debug)]
pub struct AuthService<S> {
    inner: S,
    layer: AuthLayer,
}

impl<S: StackService> AuthService<S> {
    fn run(&mut self, mut req: http::Request<Body>) -> LayerFuture {
        let inner = take_ready(&mut self.inner);
        let source = Arc::clone(&self.layer.source);
        Box::pin(async move {
            if req.headers().contains_key(AUTHORIZATION) {
                return inner.oneshot(req).await;
            }
            let Some(header) = source.header().await? else {
                return inner.oneshot(req).await;
            };
            let retry = source.refreshable().then(|| clone_request(&req));
            req.headers_mut().insert(AUTHORIZATION, header.clone());
            let resp = inner.clone().oneshot(req).await?;
            if resp.status() != http::StatusCode::UNAUTHORIZED {
                return Ok(resp);
            }
            let Some(mut again) = retry else {
                return Ok(resp);
            };
            source.invalidate(&header).await;
            let fresh = match source.header().await {
                Ok(Some(fresh)) if fresh != header => fresh,
                _ => return Ok(resp),
            };
            tracing::debug!("credentials were rejected; retrying once with refreshed ones");
            again.headers_mut().insert(AUTHORIZATION, fresh);
            inner.oneshot(again).await
        })
    }
}

layer_service!(AuthService);

#[cfg(test)]
mod tests;
