//! What every example shares: connect to `--kubeconfig FILE` if given, else start the embedded server.

use kinformer::rest::{Client, Config, Kubeconfig, KubeconfigOptions, RateLimit, TokenBucket};
use kinformer::sim::{SimBuilder, SimHandle};

pub mod foo;
pub mod sample;

/// A client, and the embedded server when no `--kubeconfig` was given (kept alive by the caller).
#[derive(Debug)]
pub struct Connection {
    /// The client every example talks through.
    pub client: Client,
    /// The embedded server, when the example runs on it.
    pub sim: Option<SimHandle>,
}

/// Connects as the command line says; `sim` describes the embedded server to start otherwise.
///
/// # Errors
/// An unreadable kubeconfig, or a server that fails to start.
pub async fn connect(sim: SimBuilder) -> anyhow::Result<Connection> {
    let args: Vec<String> = std::env::args().collect();
    let kubeconfig = args
        .iter()
        .position(|a| a == "--kubeconfig")
        .and_then(|i| args.get(i + 1));
    let (yaml, sim) = match kubeconfig {
        Some(path) => (std::fs::read_to_string(path)?, None),
        None => {
            let sim = sim.start().await?;
            (sim.kubeconfig(), Some(sim))
        }
    };
    Ok(Connection {
        client: client_from_kubeconfig(&yaml)?,
        sim,
    })
}

/// A client for the kubeconfig `yaml` (its current context), as every example configures one.
///
/// # Errors
/// A kubeconfig that cannot be read or used.
pub fn client_from_kubeconfig(yaml: &str) -> anyhow::Result<Client> {
    // Controllers that write raise client-go's 5 qps / burst 10 default, as kube-controller-manager does.
    let config = Config::from_custom_kubeconfig(
        Kubeconfig::from_yaml(yaml, None)?,
        &KubeconfigOptions::default(),
    )?
    .with_rate_limit(RateLimit::TokenBucket(TokenBucket::new(50.0, 100)?));
    Ok(Client::from_config(&config)?)
}
