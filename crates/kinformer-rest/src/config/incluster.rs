//! The in-cluster configuration (client-go `rest.InClusterConfig`).

use std::path::Path;

use super::Config;
use crate::auth::Auth;
use crate::error::{Error, Kind, Result};

/// Where Kubernetes mounts the service account's token, CA and namespace.
pub(super) const SERVICE_ACCOUNT_DIR: &str = "/var/run/secrets/kubernetes.io/serviceaccount";

pub(super) fn from_env(dir: &Path) -> Result<Config> {
    let host = std::env::var("KUBERNETES_SERVICE_HOST")
        .ok()
        .filter(|h| !h.is_empty());
    let port = std::env::var("KUBERNETES_SERVICE_PORT")
        .ok()
        .filter(|p| !p.is_empty());
    from_parts(host.as_deref(), port.as_deref(), dir)
}

pub(super) fn from_parts(host: Option<&str>, port: Option<&str>, dir: &Path) -> Result<Config> {
    let (Some(host), Some(port)) = (host, port) else {
        return Err(Error::new(
            Kind::Config,
            "KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set",
        ));
    };
    let authority = if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    };
    let url: http::Uri = format!("https://{authority}").parse().map_err(|e| {
        Error::new(Kind::Config, "invalid KUBERNETES_SERVICE_HOST/PORT").with_source(e)
    })?;
    let token = dir.join("token");
    if !token.is_file() {
        return Err(Error::new(
            Kind::Config,
            format!("the service account token {} is missing", token.display()),
        ));
    }
    let mut config = Config::new(url);
    config.auth = Auth::TokenFile(token);
    match std::fs::read(dir.join("ca.crt")) {
        Ok(ca) => config.root_ca = Some(ca),
        Err(e) => {
            tracing::warn!(error = %e, "cannot read the service account CA; using system roots")
        }
    }
    if let Ok(ns) = std::fs::read_to_string(dir.join("namespace")) {
        let ns = ns.trim();
        if !ns.is_empty() {
            ns.clone_into(&mut config.default_namespace);
        }
    }
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_from_the_service_account_folder() {
        let dir = crate::test_util::temp_dir("incluster");
        std::fs::write(dir.join("token"), "tok").unwrap();
        std::fs::write(dir.join("namespace"), "kube-system\n").unwrap();
        std::fs::write(dir.join("ca.crt"), "PEM").unwrap();
        let config = from_parts(Some("10.0.0.1"), Some("443"), &dir).unwrap();
        assert_eq!(config.cluster_url(), "https://10.0.0.1:443/");
        assert_eq!(config.default_namespace(), "kube-system");
        assert!(matches!(config.auth(), Auth::TokenFile(p) if p.ends_with("token")));
        assert_eq!(config.root_ca(), Some(&b"PEM"[..]));
        let v6 = from_parts(Some("fd00::1"), Some("6443"), &dir).unwrap();
        assert_eq!(
            v6.cluster_url().authority().unwrap().as_str(),
            "[fd00::1]:6443"
        );
        let err = from_parts(None, Some("443"), &dir).unwrap_err();
        assert!(err.is_config() && err.to_string().contains("KUBERNETES_SERVICE_HOST"));
        assert!(from_parts(Some("h"), Some("1"), &dir.join("missing")).is_err());
    }
}
