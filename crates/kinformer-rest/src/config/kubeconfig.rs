//! [`Kubeconfig`]: the kubectl configuration file, loaded and merged as client-go's `clientcmd`.
//!
//! YAML goes through `serde_yaml_ng`: the maintained continuation of `serde_yaml` (deprecated),
//! with the same serde data model, so kubeconfig types are plain `#[derive(Deserialize)]` structs.

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::auth::Secret;
use crate::error::{Error, Kind, Result};

/// Which context (and optionally which cluster and user) to use; empty means the current one.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct KubeconfigOptions {
    /// The context; the kubeconfig's `current-context` when `None`.
    pub context: Option<String>,
    /// Overrides the context's cluster.
    pub cluster: Option<String>,
    /// Overrides the context's user.
    pub user: Option<String>,
}

impl KubeconfigOptions {
    /// Options selecting `context`.
    pub fn context(context: impl Into<String>) -> Self {
        Self {
            context: Some(context.into()),
            ..Self::default()
        }
    }
}

/// A parsed kubeconfig, possibly merged from several files.
///
/// Relative file paths inside a file (CA, client certificate and key, token file, an exec
/// command containing `/`) are resolved against that file's folder when it is read.
///
/// # Examples
/// ```
/// use kinformer_rest::{Config, Kubeconfig, KubeconfigOptions};
///
/// let yaml = r#"
/// apiVersion: v1
/// kind: Config
/// clusters:
/// - name: dev
///   cluster: {server: "http://127.0.0.1:8080"}
/// users:
/// - name: me
///   user: {token: abc}
/// contexts:
/// - name: dev
///   context: {cluster: dev, user: me, namespace: team}
/// current-context: dev
/// "#;
/// let kubeconfig = Kubeconfig::from_yaml(yaml, None)?;
/// let config = Config::from_custom_kubeconfig(kubeconfig, &KubeconfigOptions::default())?;
/// assert_eq!(config.default_namespace(), "team");
/// assert_eq!(config.cluster_url(), "http://127.0.0.1:8080/");
/// # Ok::<(), kinformer_rest::Error>(())
/// ```
///
/// `Debug` lists the clusters, users and contexts by name, never a credential, an exec
/// argument or a proxy password.
#[derive(Clone, Default, Deserialize)]
pub struct Kubeconfig {
    #[serde(default, deserialize_with = "null_as_default")]
    pub(crate) clusters: Vec<Named<ClusterEntry>>,
    #[serde(rename = "users", default, deserialize_with = "null_as_default")]
    pub(crate) auth_infos: Vec<Named<UserEntry>>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub(crate) contexts: Vec<Named<ContextEntry>>,
    #[serde(rename = "current-context", default)]
    pub(crate) current_context: Option<String>,
}

/// A parse error's message with every quoted value replaced: a type error quotes the value it
/// met (`invalid type: string "…", expected a boolean`), which may be a token in the wrong place.
fn without_quoted(err: &serde_yaml_ng::Error) -> String {
    let mut out = String::new();
    for (i, part) in err.to_string().split('"').enumerate() {
        match i {
            0 => out.push_str(part),
            // Odd parts are inside quotes.
            _ if i % 2 == 1 => out.push_str("\"<redacted>"),
            _ => {
                out.push('"');
                out.push_str(part);
            }
        }
    }
    out
}

impl fmt::Debug for Kubeconfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let clusters: Vec<(&str, Option<String>)> = self
            .clusters
            .iter()
            .map(|c| {
                let server = c.value.as_ref().and_then(|v| v.server.as_deref());
                (c.name.as_str(), server.map(super::without_userinfo))
            })
            .collect();
        let users: Vec<&str> = self.auth_infos.iter().map(|u| u.name.as_str()).collect();
        let contexts: Vec<&str> = self.contexts.iter().map(|c| c.name.as_str()).collect();
        f.debug_struct("Kubeconfig")
            .field("clusters", &clusters)
            .field("users", &users)
            .field("contexts", &contexts)
            .field("current_context", &self.current_context)
            .finish()
    }
}

fn null_as_default<'de, D, T>(d: D) -> std::result::Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

#[derive(Clone, Debug, Deserialize)]
pub(crate) struct Named<T> {
    pub(crate) name: String,
    #[serde(alias = "cluster", alias = "user", alias = "context")]
    pub(crate) value: Option<T>,
    /// The file the entry was read from (where refreshed OIDC tokens are written back).
    #[serde(skip)]
    pub(crate) file: Option<PathBuf>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct ClusterEntry {
    pub(crate) server: Option<String>,
    pub(crate) certificate_authority: Option<PathBuf>,
    pub(crate) certificate_authority_data: Option<String>,
    pub(crate) tls_server_name: Option<String>,
    #[serde(default)]
    pub(crate) insecure_skip_tls_verify: bool,
    pub(crate) proxy_url: Option<String>,
    #[serde(default)]
    pub(crate) disable_compression: bool,
    #[serde(default, deserialize_with = "null_as_default")]
    pub(crate) extensions: Vec<NamedExtension>,
}

/// An entry of `extensions`: client-go keeps them for extenders; only the cluster's
/// `client.authentication.k8s.io/exec` extension is read (it goes to exec plugins).
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct NamedExtension {
    pub(crate) name: String,
    #[serde(default)]
    pub(crate) extension: serde_json::Value,
}

/// A user's `auth-provider`: a plugin name and its string settings.
#[derive(Clone, Debug, Default, Deserialize)]
pub(crate) struct AuthProviderEntry {
    #[serde(default)]
    pub(crate) name: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub(crate) config: std::collections::BTreeMap<String, Secret>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct UserEntry {
    pub(crate) token: Option<Secret>,
    #[serde(rename = "tokenFile")]
    pub(crate) token_file: Option<PathBuf>,
    pub(crate) client_certificate: Option<PathBuf>,
    pub(crate) client_certificate_data: Option<String>,
    pub(crate) client_key: Option<PathBuf>,
    pub(crate) client_key_data: Option<Secret>,
    pub(crate) username: Option<String>,
    pub(crate) password: Option<Secret>,
    pub(crate) exec: Option<ExecEntry>,
    pub(crate) auth_provider: Option<AuthProviderEntry>,
    #[serde(rename = "as")]
    pub(crate) impersonate: Option<String>,
    #[serde(rename = "as-uid")]
    pub(crate) impersonate_uid: Option<String>,
    #[serde(rename = "as-groups", default, deserialize_with = "null_as_default")]
    pub(crate) impersonate_groups: Vec<String>,
    #[serde(
        rename = "as-user-extra",
        default,
        deserialize_with = "null_as_default"
    )]
    pub(crate) impersonate_extra: std::collections::BTreeMap<String, Vec<String>>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ExecEntry {
    pub(crate) api_version: Option<String>,
    pub(crate) command: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub(crate) args: Vec<String>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub(crate) env: Vec<ExecEnv>,
    pub(crate) install_hint: Option<String>,
    #[serde(default)]
    pub(crate) provide_cluster_info: bool,
    pub(crate) interactive_mode: Option<String>,
}

#[derive(Clone, Debug, Deserialize)]
pub(crate) struct ExecEnv {
    pub(crate) name: String,
    pub(crate) value: Secret,
}

#[derive(Clone, Debug, Default, Deserialize)]
pub(crate) struct ContextEntry {
    pub(crate) cluster: Option<String>,
    pub(crate) user: Option<String>,
    pub(crate) namespace: Option<String>,
}

impl Kubeconfig {
    /// Parses a kubeconfig; relative paths are resolved against `dir` when given.
    ///
    /// # Errors
    /// Invalid YAML or a wrongly typed field.
    pub fn from_yaml(text: &str, dir: Option<&Path>) -> Result<Self> {
        Self::parse(text, dir, "invalid kubeconfig")
    }

    /// Parses `text`; a failure reads `<what>: <the parser's complaint>`.
    fn parse(text: &str, dir: Option<&Path>, what: &str) -> Result<Self> {
        let mut config: Self = serde_yaml_ng::from_str(text)
            .map_err(|e| Error::new(Kind::Config, what).with_source(without_quoted(&e)))?;
        if let Some(dir) = dir {
            config.resolve_paths(dir);
        }
        Ok(config)
    }

    /// Reads one kubeconfig file.
    ///
    /// # Errors
    /// An unreadable or invalid file.
    pub fn read_from(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| {
            Error::new(
                Kind::Config,
                format!("cannot read kubeconfig {}", path.display()),
            )
            .with_source(e)
        })?;
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut config = Self::parse(
            &text,
            Some(dir),
            &format!("invalid kubeconfig {}", path.display()),
        )?;
        for user in &mut config.auth_infos {
            user.file = Some(path.to_path_buf());
        }
        Ok(config)
    }

    /// Merges `other` under `self`: entries and `current-context` already set here win
    /// (client-go's rule: the first file that sets a name wins it entirely).
    #[must_use]
    pub fn merge(mut self, other: Self) -> Self {
        fn merge_named<T>(into: &mut Vec<Named<T>>, from: Vec<Named<T>>) {
            let known: HashSet<String> = into.iter().map(|n| n.name.clone()).collect();
            into.extend(from.into_iter().filter(|n| !known.contains(&n.name)));
        }
        merge_named(&mut self.clusters, other.clusters);
        merge_named(&mut self.auth_infos, other.auth_infos);
        merge_named(&mut self.contexts, other.contexts);
        if self.current_context.as_deref().is_none_or(str::is_empty) {
            self.current_context = other.current_context;
        }
        self
    }

    /// Reads the files of a `KUBECONFIG`-style path list in order and merges them; missing
    /// files are skipped, duplicates read once. `None` when no file exists.
    ///
    /// # Errors
    /// A file that exists but cannot be read or parsed.
    pub fn read_paths(paths: &[PathBuf]) -> Result<Option<Self>> {
        let mut seen = HashSet::new();
        let mut merged: Option<Self> = None;
        for path in paths {
            if path.as_os_str().is_empty() || !seen.insert(path.clone()) || !path.exists() {
                continue;
            }
            let file = Self::read_from(path)?;
            merged = Some(match merged {
                Some(m) => m.merge(file),
                None => file,
            });
        }
        Ok(merged)
    }

    /// The kubeconfig kubectl would use: `$KUBECONFIG` (merged) when set, else
    /// `~/.kube/config`. `None` when there is none.
    ///
    /// # Errors
    /// A file that exists but cannot be read or parsed.
    pub fn read() -> Result<Option<Self>> {
        Self::read_paths(&Self::search_paths())
    }

    fn search_paths() -> Vec<PathBuf> {
        match std::env::var_os("KUBECONFIG").filter(|v| !v.is_empty()) {
            Some(list) => std::env::split_paths(&list).collect(),
            None => std::env::var_os("HOME")
                .map(|home| vec![PathBuf::from(home).join(".kube").join("config")])
                .unwrap_or_default(),
        }
    }

    /// Describes where [`read`](Self::read) looked, for error messages.
    pub(crate) fn searched() -> String {
        let paths: Vec<String> = Self::search_paths()
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        if std::env::var_os("KUBECONFIG").is_some_and(|v| !v.is_empty()) {
            format!("KUBECONFIG={}", paths.join(":"))
        } else if paths.is_empty() {
            "KUBECONFIG unset and HOME unset".to_owned()
        } else {
            format!("KUBECONFIG unset, {} not found", paths.join(":"))
        }
    }

    /// The current context's name.
    pub fn current_context(&self) -> Option<&str> {
        self.current_context.as_deref().filter(|c| !c.is_empty())
    }

    /// The names of every context.
    pub fn context_names(&self) -> impl Iterator<Item = &str> {
        self.contexts.iter().map(|c| c.name.as_str())
    }

    fn resolve_paths(&mut self, dir: &Path) {
        let resolve = |p: &mut Option<PathBuf>| {
            if let Some(path) = p
                .as_mut()
                .filter(|p| p.is_relative() && !p.as_os_str().is_empty())
            {
                *path = dir.join(&*path);
            }
        };
        for cluster in self.clusters.iter_mut().filter_map(|c| c.value.as_mut()) {
            resolve(&mut cluster.certificate_authority);
        }
        for user in self.auth_infos.iter_mut().filter_map(|u| u.value.as_mut()) {
            resolve(&mut user.client_certificate);
            resolve(&mut user.client_key);
            resolve(&mut user.token_file);
            if let Some(exec) = user.exec.as_mut() {
                // As client-go: a command with a path separator is a file path (relative ones
                // are relative to this file); a bare name is looked up on PATH when run.
                let command = Path::new(&exec.command);
                if exec.command.contains(std::path::MAIN_SEPARATOR) && command.is_relative() {
                    exec.command = dir.join(command).display().to_string();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
