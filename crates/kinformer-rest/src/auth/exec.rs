//! Exec credential plugins (`client.authentication.k8s.io/v1` and `v1beta1`).

mod config;

use std::io::IsTerminal;
use std::process::Stdio;
use std::sync::Arc;

use http::HeaderValue;
use serde::Deserialize;
use tokio::sync::Mutex;

use super::{CertSlot, Secret};
use crate::error::{Error, Kind, Result};

pub use config::{ExecConfig, InteractiveMode};

#[derive(Deserialize)]
struct ExecCredential {
    #[serde(rename = "apiVersion", default)]
    api_version: String,
    #[serde(default)]
    status: Option<ExecStatus>,
}

#[derive(Deserialize)]
struct ExecStatus {
    #[serde(default)]
    token: Option<String>,
    #[serde(rename = "expirationTimestamp", default)]
    expiration: Option<k8s_openapi::apimachinery::pkg::apis::meta::v1::Time>,
    #[serde(rename = "clientCertificateData", default)]
    client_certificate_data: Option<String>,
    #[serde(rename = "clientKeyData", default)]
    client_key_data: Option<String>,
}

struct Cached {
    /// `None` when the plugin gave a client certificate instead of a token.
    header: Option<HeaderValue>,
    /// Unix seconds.
    expires: Option<i64>,
}

/// Runs the plugin and caches its token until `expirationTimestamp` (or until a 401).
#[derive(Debug)]
pub(crate) struct ExecAuth {
    config: ExecConfig,
    cached: Mutex<Option<Cached>>,
    /// Where a returned client certificate goes (only with the built-in TLS transport).
    certs: Option<Arc<CertSlot>>,
}

impl std::fmt::Debug for Cached {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cached")
            .field("expires", &self.expires)
            .finish_non_exhaustive()
    }
}

impl ExecAuth {
    pub(crate) fn new(config: ExecConfig, certs: Option<Arc<CertSlot>>) -> Self {
        Self {
            config,
            cached: Mutex::new(None),
            certs,
        }
    }

    /// The cached token while it is valid, else a fresh one from the plugin.
    pub(crate) async fn header(&self) -> Result<Option<HeaderValue>> {
        let mut cached = self.cached.lock().await;
        if let Some(c) = cached.as_ref()
            && c.expires.is_none_or(|e| unix_now() < e)
        {
            return Ok(c.header.clone());
        }
        let fresh = self.run().await?;
        let header = fresh.header.clone();
        *cached = Some(fresh);
        Ok(header)
    }

    /// Drops the cached token if it is the one that got a 401 (one refresh per generation).
    pub(crate) async fn invalidate(&self, used: &HeaderValue) {
        let mut cached = self.cached.lock().await;
        if cached
            .as_ref()
            .is_some_and(|c| c.header.as_ref() == Some(used))
        {
            *cached = None;
        }
    }

    fn error(&self, what: impl std::fmt::Display) -> Error {
        Error::new(
            Kind::Auth,
            format!("exec plugin {:?}: {what}", self.config.command),
        )
    }

    async fn run(&self) -> Result<Cached> {
        let c = &self.config;
        let terminal = std::io::stdin().is_terminal();
        let interactive = match c.interactive_mode {
            InteractiveMode::Never => false,
            InteractiveMode::IfAvailable => terminal,
            InteractiveMode::Always if terminal => true,
            InteractiveMode::Always => {
                return Err(self.error("interactiveMode is Always but stdin is not a terminal"));
            }
        };
        let mut spec = serde_json::json!({ "interactive": interactive });
        if c.provide_cluster_info
            && let Some(cluster) = &c.cluster_info
        {
            spec["cluster"] = cluster.clone();
        }
        let info = serde_json::json!({
            "apiVersion": c.api_version,
            "kind": "ExecCredential",
            "spec": spec,
        });
        let mut cmd = tokio::process::Command::new(program(&c.command, &c.env));
        cmd.args(&c.args)
            .envs(c.env.iter().map(|(k, v)| (k, v.expose())))
            .env("KUBERNETES_EXEC_INFO", info.to_string())
            .stdin(if interactive {
                Stdio::inherit()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        let output = match cmd.output().await {
            Ok(o) => o,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let hint = c.install_hint.as_deref().unwrap_or("");
                return Err(self
                    .error(format_args!("executable not found. {hint}"))
                    .with_source(e));
            }
            Err(e) => return Err(self.error("could not be started").with_source(e)),
        };
        if !output.status.success() {
            return Err(self.error(format_args!("exited with {}", output.status)));
        }
        // The output holds the credential: errors name the problem and where, never the
        // content — not even through the JSON error, whose message may quote a value.
        let cred: ExecCredential = serde_json::from_slice(&output.stdout).map_err(|e| {
            self.error(format_args!(
                "printed an invalid ExecCredential ({:?} error at line {}, column {})",
                e.classify(),
                e.line(),
                e.column()
            ))
        })?;
        if cred.api_version != c.api_version {
            return Err(self.error(format_args!(
                "printed apiVersion {:?}, expected {:?}",
                cred.api_version, c.api_version
            )));
        }
        let status = cred
            .status
            .ok_or_else(|| self.error("printed an ExecCredential without status"))?;
        if status.client_certificate_data.is_some() != status.client_key_data.is_some() {
            return Err(self.error("printed only one of clientCertificateData and clientKeyData"));
        }
        if let (Some(cert), Some(key)) = (&status.client_certificate_data, &status.client_key_data)
        {
            let slot = self.certs.as_ref().ok_or_else(|| {
                self.error("printed a client certificate, which needs the built-in TLS transport")
            })?;
            slot.set_pem(cert.as_bytes(), key.as_bytes())?;
        }
        let token = status.token.filter(|t| !t.is_empty());
        if token.is_none() && status.client_certificate_data.is_none() {
            return Err(self.error("printed neither a token nor a client certificate"));
        }
        Ok(Cached {
            header: token.as_deref().map(super::layer::bearer).transpose()?,
            expires: status.expiration.map(|t| t.0.as_second()),
        })
    }
}

/// The program to start. Like client-go, a bare name is looked up on this process's `PATH`, even
/// when the plugin's `env` sets another one (which `Command` would search instead).
fn program(command: &str, env: &[(String, Secret)]) -> std::path::PathBuf {
    if command.contains(std::path::MAIN_SEPARATOR) || !env.iter().any(|(k, _)| k == "PATH") {
        return command.into();
    }
    std::env::var_os("PATH")
        .and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join(command))
                .find(|candidate| candidate.is_file())
        })
        .unwrap_or_else(|| command.into())
}

/// The wall clock in Unix seconds (credential expiry is wall-clock time).
pub(crate) fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}
