//! Selecting a context of a kubeconfig and turning it into a [`Config`].

use std::path::Path;

use base64::Engine as _;

use super::kubeconfig::{
    AuthProviderEntry, ClusterEntry, ExecEntry, Kubeconfig, KubeconfigOptions, Named, UserEntry,
};
use super::{Config, Identity, Impersonate};
use crate::auth::{Auth, ExecConfig, InteractiveMode, OidcConfig, Secret};
use crate::error::{Error, Kind, Result};

fn config_error(message: impl Into<String>) -> Error {
    Error::new(Kind::Config, message)
}

fn find<'a, T>(list: &'a [Named<T>], name: &str, what: &str) -> Result<&'a T> {
    list.iter()
        .find(|n| n.name == name)
        .and_then(|n| n.value.as_ref())
        .ok_or_else(|| config_error(format!("{what} {name:?} not found in the kubeconfig")))
}

fn read_file(path: &Path, what: &str) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| {
        config_error(format!("cannot read the {what} file {}", path.display())).with_source(e)
    })
}

/// Parses certificate authorities now, so a bad one is reported with where it came from rather
/// than when the first connection is made.
pub(crate) fn check_roots(pem: &[u8], what: &str) -> Result<()> {
    let mut store = rustls::RootCertStore::empty();
    let certs = crate::transport::parse_certs(pem, what)?;
    for (n, cert) in certs.into_iter().enumerate() {
        store.add(cert).map_err(|e| {
            config_error(format!(
                "cannot parse {what}: certificate {} is not a valid X.509 certificate ({})",
                n + 1,
                certificate_problem(&e)
            ))
        })?;
    }
    Ok(())
}

/// What rustls found wrong with a certificate, without its "peer certificate" wording (the
/// certificate is ours, not the server's).
pub(crate) fn certificate_problem(error: &rustls::Error) -> String {
    match error {
        rustls::Error::InvalidCertificate(problem) => format!("{problem:?}"),
        other => other.to_string(),
    }
}

fn decode_data(data: &str, what: &str) -> Result<Vec<u8>> {
    base64::engine::general_purpose::STANDARD
        .decode(data.trim())
        .map_err(|e| config_error(format!("invalid base64 in {what}")).with_source(e))
}

/// Data wins over the file, as in client-go.
fn data_or_file(data: Option<&str>, file: Option<&Path>, what: &str) -> Result<Option<Vec<u8>>> {
    match (
        data.filter(|d| !d.is_empty()),
        file.filter(|f| !f.as_os_str().is_empty()),
    ) {
        (Some(data), _) => decode_data(data, what).map(Some),
        (None, Some(file)) => read_file(file, what).map(Some),
        (None, None) => Ok(None),
    }
}

pub(super) fn from_kubeconfig(
    kubeconfig: &Kubeconfig,
    options: &KubeconfigOptions,
) -> Result<Config> {
    let context_name = options
        .context
        .as_deref()
        .or_else(|| kubeconfig.current_context())
        .ok_or_else(|| config_error("the kubeconfig has no current-context and none was given"))?;
    let context = find(&kubeconfig.contexts, context_name, "context")?;
    let cluster_name = options
        .cluster
        .as_deref()
        .or(context.cluster.as_deref())
        .ok_or_else(|| config_error(format!("context {context_name:?} names no cluster")))?;
    let cluster = find(&kubeconfig.clusters, cluster_name, "cluster")?;
    let user_name = options
        .user
        .as_deref()
        .or(context.user.as_deref())
        .filter(|u| !u.is_empty());
    let user = match user_name {
        Some(name) => find(&kubeconfig.auth_infos, name, "user")?.clone(),
        None => UserEntry::default(),
    };
    // The first file defining the user is the one it was merged from.
    let user_file = user_name.and_then(|name| {
        let entry = kubeconfig.auth_infos.iter().find(|u| u.name == name)?;
        entry.file.clone()
    });

    let server = cluster
        .server
        .as_deref()
        .filter(|s| !s.is_empty())
        .ok_or_else(|| config_error(format!("cluster {cluster_name:?} has no server")))?;
    let url: http::Uri = server.parse().map_err(|e| {
        config_error(format!("invalid server URL for cluster {cluster_name:?}")).with_source(e)
    })?;
    let mut config = Config::new(url);
    if let Some(ns) = context.namespace.as_deref().filter(|ns| !ns.is_empty()) {
        ns.clone_into(&mut config.default_namespace);
    }
    apply_cluster(&mut config, cluster)?;
    apply_user(&mut config, &user, cluster)?;
    if let Some(provider) = &user.auth_provider {
        let mut oidc = oidc_config(provider)?;
        if let (Some(file), Some(name)) = (user_file, user_name) {
            oidc = oidc.persist_to(file, name);
        }
        config.auth = Auth::Oidc(Box::new(oidc));
    }
    Ok(config)
}

fn apply_cluster(config: &mut Config, cluster: &ClusterEntry) -> Result<()> {
    let (data, file) = (
        cluster.certificate_authority_data.as_deref(),
        cluster.certificate_authority.as_deref(),
    );
    config.root_ca = data_or_file(data, file, "certificate-authority")?;
    if cluster.insecure_skip_tls_verify && config.root_ca.is_some() {
        return Err(config_error(
            "specifying a root certificates file with the insecure flag is not allowed",
        ));
    }
    if let Some(pem) = &config.root_ca {
        let what = match file.filter(|_| data.is_none_or(str::is_empty)) {
            Some(file) => format!("the certificate-authority file {}", file.display()),
            None => "the certificate-authority-data".to_owned(),
        };
        check_roots(pem, &what)?;
    }
    config.accept_invalid_certs = cluster.insecure_skip_tls_verify;
    config.tls_server_name = cluster.tls_server_name.clone().filter(|s| !s.is_empty());
    config.proxy_url = cluster.proxy_url.clone().filter(|s| !s.is_empty());
    if let Some(url) = &config.proxy_url {
        crate::transport::check_proxy_url(url)?;
    }
    config.compression = !cluster.disable_compression;
    Ok(())
}

fn apply_user(config: &mut Config, user: &UserEntry, cluster: &ClusterEntry) -> Result<()> {
    if user.auth_provider.is_some() && user.exec.is_some() {
        // client-go refuses this combination too.
        return Err(config_error(
            "users[].user.auth-provider and users[].user.exec may not both be set",
        ));
    }
    let cert = data_or_file(
        user.client_certificate_data.as_deref(),
        user.client_certificate.as_deref(),
        "client-certificate",
    )?;
    let key = data_or_file(
        user.client_key_data.as_ref().map(Secret::expose),
        user.client_key.as_deref(),
        "client-key",
    )?;
    config.identity = match (cert, key) {
        (Some(cert), Some(key)) => Some(Identity::from_pem(cert, key)),
        (None, None) => None,
        _ => {
            return Err(config_error(
                "a client certificate needs both a certificate and a key",
            ));
        }
    };
    let who = user.impersonate.clone().filter(|u| !u.is_empty());
    let asks = user
        .impersonate_uid
        .as_deref()
        .is_some_and(|u| !u.is_empty())
        || !user.impersonate_groups.is_empty()
        || !user.impersonate_extra.is_empty();
    if who.is_some() || asks {
        // As client-go: a uid, groups or extras without a user is refused here, by `new`.
        let mut impersonate = Impersonate::new(who.unwrap_or_default())?
            .with_groups(user.impersonate_groups.iter().cloned())?;
        if let Some(uid) = &user.impersonate_uid {
            impersonate = impersonate.with_uid(uid.clone())?;
        }
        for (key, values) in &user.impersonate_extra {
            impersonate = impersonate.with_extra(key.clone(), values.iter().cloned())?;
        }
        config.impersonate = Some(impersonate);
    }
    let token = user.token.clone().filter(|t| !t.expose().is_empty());
    let basic = user.username.as_deref().filter(|u| !u.is_empty());
    if (token.is_some() || user.token_file.is_some()) && basic.is_some() {
        return Err(config_error(
            "username/password and a bearer token may not both be set",
        ));
    }
    config.auth = if let Some(exec) = &user.exec {
        Auth::Exec(Box::new(exec_config(exec, cluster, config)?))
    } else if let Some(file) = user
        .token_file
        .clone()
        .filter(|f| !f.as_os_str().is_empty())
    {
        Auth::TokenFile(file)
    } else if let Some(token) = token {
        Auth::Bearer(token)
    } else if let Some(username) = basic {
        Auth::Basic {
            username: username.to_owned(),
            password: user.password.clone().unwrap_or_default(),
        }
    } else {
        Auth::None
    };
    Ok(())
}

fn exec_config(exec: &ExecEntry, cluster: &ClusterEntry, config: &Config) -> Result<ExecConfig> {
    let api_version = exec
        .api_version
        .clone()
        .ok_or_else(|| config_error("exec plugin without apiVersion"))?;
    let interactive_mode = match exec.interactive_mode.as_deref() {
        None | Some("" | "IfAvailable") => InteractiveMode::IfAvailable,
        Some("Never") => InteractiveMode::Never,
        Some("Always") => InteractiveMode::Always,
        Some(other) => {
            return Err(config_error(format!(
                "invalid exec interactiveMode {other:?}"
            )));
        }
    };
    let mut out = ExecConfig::new(api_version, exec.command.clone())?
        .with_args(exec.args.iter().cloned())
        .with_env(exec.env.iter().map(|e| (e.name.clone(), e.value.clone())))
        .with_provide_cluster_info(exec.provide_cluster_info)
        .with_interactive_mode(interactive_mode);
    if let Some(hint) = &exec.install_hint {
        out = out.with_install_hint(hint.clone());
    }
    if out.provide_cluster_info() {
        let ca = config
            .root_ca
            .as_ref()
            .map(|ca| base64::engine::general_purpose::STANDARD.encode(ca));
        out.cluster_info = Some(serde_json::json!({
            "server": config.cluster_url.to_string(),
            "tls-server-name": cluster.tls_server_name,
            "insecure-skip-tls-verify": cluster.insecure_skip_tls_verify,
            "certificate-authority-data": ca,
            "proxy-url": cluster.proxy_url,
            "disable-compression": cluster.disable_compression,
            "config": exec_extension(cluster),
        }));
    }
    Ok(out)
}

/// The cluster's `client.authentication.k8s.io/exec` extension, which client-go hands to exec
/// plugins as `spec.cluster.config`.
fn exec_extension(cluster: &ClusterEntry) -> Option<serde_json::Value> {
    cluster
        .extensions
        .iter()
        .find(|e| e.name == "client.authentication.k8s.io/exec")
        .map(|e| e.extension.clone())
}

/// The `oidc` auth-provider's settings. Other providers (`gcp`, `azure`) were removed from
/// client-go in favour of exec plugins, so they are refused.
fn oidc_config(provider: &AuthProviderEntry) -> Result<OidcConfig> {
    if provider.name != "oidc" {
        return Err(config_error(format!(
            "users[].user.auth-provider {:?} is not supported (only \"oidc\" is); client-go removed \
             its other providers: use an exec credential plugin (users[].user.exec), such as \
             kubelogin or gke-gcloud-auth-plugin",
            provider.name
        )));
    }
    let get = |key: &str| {
        provider
            .config
            .get(key)
            .map(Secret::expose)
            .filter(|v| !v.is_empty())
    };
    for key in ["idp-issuer-url", "client-id"] {
        if get(key).is_none() {
            return Err(config_error(format!(
                "users[].user.auth-provider oidc needs {key}"
            )));
        }
    }
    let secret = |key: &str| get(key).map(Secret::new);
    let mut oidc = OidcConfig::new(
        get("idp-issuer-url").unwrap_or_default(),
        get("client-id").unwrap_or_default(),
    )?
    .with_extra_scopes(
        get("extra-scopes")
            .unwrap_or_default()
            .split(',')
            .filter(|s| !s.is_empty()),
    );
    if let Some(token) = secret("client-secret") {
        oidc = oidc.with_client_secret(token);
    }
    if let Some(token) = secret("id-token") {
        oidc = oidc.with_id_token(token);
    }
    if let Some(token) = secret("refresh-token") {
        oidc = oidc.with_refresh_token(token);
    }
    // As client-go, a relative idp-certificate-authority is relative to the working directory
    // (clientcmd does not resolve auth-provider settings against the kubeconfig's folder).
    let ca = data_or_file(
        get("idp-certificate-authority-data"),
        get("idp-certificate-authority").map(Path::new),
        "idp-certificate-authority",
    )?;
    if let Some(pem) = ca {
        oidc = oidc.with_certificate_authority(pem)?;
    }
    Ok(oidc)
}
