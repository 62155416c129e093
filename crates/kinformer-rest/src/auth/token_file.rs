//! A bearer token file, cached for 50 s (client-go: one-minute lifetime, 10 s leeway).

use std::path::PathBuf;
use std::time::Duration;

use http::HeaderValue;
use tokio::sync::Mutex;
use tokio::time::Instant;

use crate::error::{Error, Kind, Result};

const TOKEN_FILE_TTL: Duration = Duration::from_secs(50);

#[derive(Debug)]
pub(crate) struct TokenFile {
    path: PathBuf,
    cached: Mutex<Option<(HeaderValue, Instant)>>,
}

impl TokenFile {
    /// Reads the file once, so a missing or empty token file fails at construction (as in
    /// client-go) rather than on the first request.
    pub(crate) fn new(path: PathBuf) -> Result<Self> {
        let text = std::fs::read_to_string(&path).map_err(|e| {
            Error::new(
                Kind::Auth,
                format!("cannot read token file {}", path.display()),
            )
            .with_source(e)
        })?;
        let header = Self::parse(&path, &text)?;
        Ok(Self {
            path,
            cached: Mutex::new(Some((header, Instant::now()))),
        })
    }

    fn parse(path: &std::path::Path, text: &str) -> Result<HeaderValue> {
        let token = text.trim();
        if token.is_empty() {
            return Err(Error::new(
                Kind::Auth,
                format!("token file {} is empty", path.display()),
            ));
        }
        super::layer::bearer(token)
    }

    /// The `Authorization` header, re-reading the file when the cached token is older than 50 s.
    /// A failed re-read keeps the last good token.
    pub(crate) async fn header(&self) -> Result<HeaderValue> {
        let mut cached = self.cached.lock().await;
        if let Some((value, read)) = cached.as_ref()
            && read.elapsed() < TOKEN_FILE_TTL
        {
            return Ok(value.clone());
        }
        match self.read().await {
            Ok(value) => {
                *cached = Some((value.clone(), Instant::now()));
                Ok(value)
            }
            Err(e) => match cached.as_ref() {
                Some((value, _)) => {
                    tracing::warn!(error = %e, "keeping the cached token after a failed re-read");
                    Ok(value.clone())
                }
                None => Err(e),
            },
        }
    }

    async fn read(&self) -> Result<HeaderValue> {
        let text = tokio::fs::read_to_string(&self.path).await.map_err(|e| {
            Error::new(
                Kind::Auth,
                format!("cannot read token file {}", self.path.display()),
            )
            .with_source(e)
        })?;
        Self::parse(&self.path, &text)
    }

    /// Forgets the cached token, so the next request re-reads the file (after a 401).
    pub(crate) async fn invalidate(&self, used: &HeaderValue) {
        let mut cached = self.cached.lock().await;
        if cached.as_ref().is_some_and(|(v, _)| v == used) {
            *cached = None;
        }
    }
}
