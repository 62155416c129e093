//! [`ExecConfig`]: which credential plugin to run, and how.

use std::fmt;

use crate::auth::Secret;
use crate::error::{Error, Kind, Result};

/// The ExecCredential versions a plugin may speak.
const API_VERSIONS: [&str; 2] = [
    "client.authentication.k8s.io/v1",
    "client.authentication.k8s.io/v1beta1",
];

/// When the plugin may talk to the user.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum InteractiveMode {
    /// Never: stdin is closed.
    Never,
    /// When stdin is a terminal (the `v1beta1` default).
    #[default]
    IfAvailable,
    /// Always: an error when stdin is not a terminal.
    Always,
}

/// An exec credential plugin, as in a kubeconfig user's `exec` section.
///
/// `Debug` shows the command, the argument count and the environment's names, never argument
/// or environment values (either may carry a credential).
///
/// ```
/// use kinformer_rest::auth::{ExecConfig, InteractiveMode, Secret};
///
/// let exec = ExecConfig::new("client.authentication.k8s.io/v1", "kubelogin")?
///     .with_args(["get-token", "--server-id", "k8s"])
///     .with_env([("TENANT", Secret::new("t-42"))])
///     .with_interactive_mode(InteractiveMode::Never);
/// assert_eq!(exec.args().len(), 3);
/// assert!(ExecConfig::new("client.authentication.k8s.io/v1alpha1", "kubelogin").is_err());
/// # Ok::<(), kinformer_rest::Error>(())
/// ```
#[derive(Clone)]
pub struct ExecConfig {
    pub(super) api_version: String,
    pub(super) command: String,
    pub(super) args: Vec<String>,
    pub(super) env: Vec<(String, Secret)>,
    pub(super) install_hint: Option<String>,
    pub(super) provide_cluster_info: bool,
    pub(super) interactive_mode: InteractiveMode,
    /// The `spec.cluster` object sent when `provide_cluster_info` is set (from the kubeconfig).
    pub(crate) cluster_info: Option<serde_json::Value>,
}

impl ExecConfig {
    /// A plugin running `command`, speaking ExecCredential `api_version`.
    ///
    /// # Errors
    /// An `api_version` other than `client.authentication.k8s.io/v1` and `v1beta1`, or an
    /// empty command.
    pub fn new(api_version: impl Into<String>, command: impl Into<String>) -> Result<Self> {
        let (api_version, command) = (api_version.into(), command.into());
        if !API_VERSIONS.contains(&api_version.as_str()) {
            return Err(Error::new(
                Kind::Config,
                format!(
                    "exec plugin apiVersion {api_version:?} is not supported (one of {})",
                    API_VERSIONS.join(", ")
                ),
            ));
        }
        if command.is_empty() {
            return Err(Error::new(Kind::Config, "exec plugin without a command"));
        }
        Ok(Self {
            api_version,
            command,
            args: Vec::new(),
            env: Vec::new(),
            install_hint: None,
            provide_cluster_info: false,
            interactive_mode: InteractiveMode::default(),
            cluster_info: None,
        })
    }

    /// The ExecCredential version the plugin speaks.
    pub fn api_version(&self) -> &str {
        &self.api_version
    }

    /// The program to run (resolved against the kubeconfig's folder when it contains a `/`).
    pub fn command(&self) -> &str {
        &self.command
    }

    /// Sets [`args`](Self::args).
    #[must_use]
    pub fn with_args<I>(mut self, args: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        self.args = args.into_iter().map(Into::into).collect();
        self
    }

    /// The program's arguments.
    pub fn args(&self) -> &[String] {
        &self.args
    }

    /// Sets [`env`](Self::env).
    #[must_use]
    pub fn with_env<I, N>(mut self, env: I) -> Self
    where
        I: IntoIterator<Item = (N, Secret)>,
        N: Into<String>,
    {
        self.env = env.into_iter().map(|(k, v)| (k.into(), v)).collect();
        self
    }

    /// Extra environment variables of the program (values may be secret).
    pub fn env(&self) -> &[(String, Secret)] {
        &self.env
    }

    /// Sets [`install_hint`](Self::install_hint).
    #[must_use]
    pub fn with_install_hint(mut self, hint: impl Into<String>) -> Self {
        self.install_hint = Some(hint.into()).filter(|h| !h.is_empty());
        self
    }

    /// Shown when the program cannot be found.
    pub fn install_hint(&self) -> Option<&str> {
        self.install_hint.as_deref()
    }

    /// Sets [`provide_cluster_info`](Self::provide_cluster_info).
    #[must_use]
    pub fn with_provide_cluster_info(mut self, provide: bool) -> Self {
        self.provide_cluster_info = provide;
        self
    }

    /// Whether the cluster is passed in `KUBERNETES_EXEC_INFO` (from the kubeconfig's cluster).
    pub fn provide_cluster_info(&self) -> bool {
        self.provide_cluster_info
    }

    /// Sets [`interactive_mode`](Self::interactive_mode).
    #[must_use]
    pub fn with_interactive_mode(mut self, mode: InteractiveMode) -> Self {
        self.interactive_mode = mode;
        self
    }

    /// When the plugin may prompt.
    pub fn interactive_mode(&self) -> InteractiveMode {
        self.interactive_mode
    }
}

impl fmt::Debug for ExecConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let env: Vec<&str> = self.env.iter().map(|(k, _)| k.as_str()).collect();
        f.debug_struct("ExecConfig")
            .field("api_version", &self.api_version)
            .field("command", &self.command)
            .field("args", &format_args!("{} arguments", self.args.len()))
            .field("env", &env)
            .field("provide_cluster_info", &self.provide_cluster_info)
            .field("interactive_mode", &self.interactive_mode)
            .finish_non_exhaustive()
    }
}
