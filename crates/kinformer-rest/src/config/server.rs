//! The settings of a [`Config`] that say which server to reach and who to be there.

use super::Config;
use super::check_roots;
use crate::auth::Auth;
use crate::config::{Identity, Impersonate};
use crate::error::{Error, Kind, Result};
use crate::transport::ProxyEnv;

impl Config {
    /// The server URL; a path becomes a prefix of every request.
    pub fn cluster_url(&self) -> &http::Uri {
        &self.cluster_url
    }

    /// Sets [`default_namespace`](Self::default_namespace).
    ///
    /// # Errors
    /// An empty name, or one with a `/` (it is a path segment of every namespaced request).
    pub fn with_default_namespace(mut self, namespace: impl Into<String>) -> Result<Self> {
        let namespace = namespace.into();
        if namespace.is_empty() || namespace.contains('/') {
            return Err(Error::new(
                Kind::Config,
                format!("default_namespace {namespace:?} is not a namespace name"),
            ));
        }
        self.default_namespace = namespace;
        Ok(self)
    }

    /// The namespace of the context (or the service account); `default` otherwise.
    pub fn default_namespace(&self) -> &str {
        &self.default_namespace
    }

    /// Sets [`root_ca`](Self::root_ca): PEM certificates, the only roots trusted.
    ///
    /// # Errors
    /// No certificate in `pem`, or one that is not a valid X.509 certificate.
    pub fn with_root_ca(mut self, pem: impl Into<Vec<u8>>) -> Result<Self> {
        let pem = pem.into();
        check_roots(&pem, "root_ca")?;
        self.root_ca = Some(pem);
        Ok(self)
    }

    /// PEM certificate authorities: the only roots trusted when set (else the system's).
    pub fn root_ca(&self) -> Option<&[u8]> {
        self.root_ca.as_deref()
    }

    /// Sets [`tls_server_name`](Self::tls_server_name).
    ///
    /// # Errors
    /// A name that is neither a DNS name nor an IP address.
    pub fn with_tls_server_name(mut self, name: impl Into<String>) -> Result<Self> {
        let name = name.into();
        crate::transport::check_server_name(&name)?;
        self.tls_server_name = Some(name);
        Ok(self)
    }

    /// The name the server certificate is verified against, instead of the URL's host.
    pub fn tls_server_name(&self) -> Option<&str> {
        self.tls_server_name.as_deref()
    }

    /// Sets [`identity`](Self::identity).
    #[must_use]
    pub fn with_identity(mut self, identity: Identity) -> Self {
        self.identity = Some(identity);
        self
    }

    /// The client certificate and key presented to the server.
    pub fn identity(&self) -> Option<&Identity> {
        self.identity.as_ref()
    }

    /// Sets [`auth`](Self::auth).
    #[must_use]
    pub fn with_auth(mut self, auth: Auth) -> Self {
        self.auth = auth;
        self
    }

    /// The credentials of each request ([`Auth::None`] by default).
    pub fn auth(&self) -> &Auth {
        &self.auth
    }

    /// Sets [`impersonate`](Self::impersonate).
    #[must_use]
    pub fn with_impersonate(mut self, impersonate: Impersonate) -> Self {
        self.impersonate = Some(impersonate);
        self
    }

    /// The user every request acts as (`Impersonate-*` headers).
    pub fn impersonate(&self) -> Option<&Impersonate> {
        self.impersonate.as_ref()
    }

    /// Sets [`proxy_url`](Self::proxy_url).
    ///
    /// # Errors
    /// A malformed URL or a scheme other than `http`, `https` and `socks5`.
    pub fn with_proxy_url(mut self, url: impl Into<String>) -> Result<Self> {
        let url = url.into();
        crate::transport::check_proxy_url(&url)?;
        self.proxy_url = Some(url);
        Ok(self)
    }

    /// The proxy for every request (the kubeconfig's `proxy-url`, client-go's `Proxy`):
    /// `http://[user:password@]host[:port]` (`CONNECT` tunnels to `https://` servers,
    /// absolute-form requests to `http://` ones, credentials as `Proxy-Authorization`),
    /// `https://...` (the same inside TLS to the proxy, verified with this configuration's
    /// certificate authorities) or `socks5://[user:password@]host[:port]` (RFC 1928; RFC 1929
    /// username/password when given; host names resolved by the proxy). Unset, the
    /// [`proxy_env`](Self::proxy_env) applies.
    pub fn proxy_url(&self) -> Option<&str> {
        self.proxy_url.as_deref()
    }

    /// Sets [`proxy_env`](Self::proxy_env).
    ///
    /// ```
    /// use kinformer_rest::Config;
    /// use kinformer_rest::stack::ProxyEnv;
    ///
    /// let config = Config::new("https://10.0.0.1:6443".parse()?)
    ///     .with_proxy_env(ProxyEnv::from_vars([("HTTPS_PROXY", "socks5://127.0.0.1:1080")]));
    /// assert!(config.proxy_env().is_some());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn with_proxy_env(mut self, env: ProxyEnv) -> Self {
        self.proxy_env = Some(env);
        self
    }

    /// The proxy variables (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`) that apply when
    /// [`proxy_url`](Self::proxy_url) is unset; `None` (the default) reads the process
    /// environment when each client is built. `ProxyEnv::default()` turns proxies off.
    pub fn proxy_env(&self) -> Option<&ProxyEnv> {
        self.proxy_env.as_ref()
    }

    /// DANGER: accept any server certificate (kubeconfig `insecure-skip-tls-verify`). Anyone on
    /// the network path can then read and change the traffic, credentials included.
    #[must_use]
    pub fn with_danger_accept_invalid_certs(mut self, accept: bool) -> Self {
        self.accept_invalid_certs = accept;
        self
    }

    /// True when server certificates are not verified.
    pub fn danger_accept_invalid_certs(&self) -> bool {
        self.accept_invalid_certs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> Config {
        Config::new("https://127.0.0.1:6443".parse().unwrap())
    }

    #[test]
    fn setters_refuse_what_cannot_work_and_name_the_setting() {
        let err = config().with_default_namespace("").unwrap_err();
        assert!(err.to_string().contains("default_namespace"), "{err}");
        let err = config().with_root_ca("not a certificate").unwrap_err();
        assert!(err.to_string().contains("root_ca"), "{err}");
        let err = config().with_tls_server_name("not a name!").unwrap_err();
        assert!(err.to_string().contains("not a name!"), "{err}");
        let err = config().with_proxy_url("ftp://proxy.local").unwrap_err();
        assert!(err.to_string().contains("proxy-url"), "{err}");
    }

    #[test]
    fn getters_read_what_the_setters_set() {
        let config = config()
            .with_default_namespace("team")
            .unwrap()
            .with_tls_server_name("api.example.com")
            .unwrap()
            .with_proxy_url("socks5://127.0.0.1:1080")
            .unwrap()
            .with_danger_accept_invalid_certs(true);
        assert_eq!(config.default_namespace(), "team");
        assert_eq!(config.tls_server_name(), Some("api.example.com"));
        assert_eq!(config.proxy_url(), Some("socks5://127.0.0.1:1080"));
        assert!(config.danger_accept_invalid_certs());
        assert_eq!(config.cluster_url(), "https://127.0.0.1:6443/");
    }
}
