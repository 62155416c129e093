//! [`client_config`]: the REST configuration a controller's client starts from.

use kinformer_rest::{Config, RateLimit};

/// The configuration a controller process builds its client from, as controller-runtime's
/// config getters give it: a kubeconfig when one exists, else the in-cluster configuration
/// ([`Config::infer`]), with client-side rate limiting off.
///
/// `Config::infer` keeps client-go's plain default, a token bucket of 5 requests per second
/// (burst 10); a controller that writes after each reconcile would wait in it for minutes
/// after a restart with thousands of objects. kube-apiserver protects itself with API
/// Priority and Fairness (answering 429 with `Retry-After`, which the client honours), so
/// controller-runtime (since v0.21, on SIG API Machinery's advice) and kube-rs send without
/// a client-side limit; so does this. Put a limit back with
/// [`Config::with_rate_limit`] where a server without Priority and Fairness needs it.
///
/// ```no_run
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use kinformer_rest::{Client, RateLimit};
///
/// let config = kinformer_runtime::client_config()?;
/// assert_eq!(config.rate_limit(), &RateLimit::Unlimited);
/// let client = Client::from_config(&config)?;
/// # drop(client);
/// # Ok(()) }
/// ```
///
/// # Errors
/// [`Config::infer`]'s: neither a kubeconfig nor the in-cluster configuration is available,
/// or the one found is invalid.
pub fn client_config() -> kinformer_rest::Result<Config> {
    Config::infer().map(unlimited)
}

/// `config` without a client-side rate limit: what [`client_config`] applies.
fn unlimited(config: Config) -> Config {
    config.with_rate_limit(RateLimit::Unlimited)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_controllers_client_waits_in_no_client_side_limiter() {
        let plain = Config::new("https://example.invalid:6443".parse().unwrap());
        assert!(
            matches!(plain.rate_limit(), RateLimit::TokenBucket(b) if b.qps() == 5.0),
            "client-go's default bucket"
        );
        let controller = unlimited(plain);
        assert_eq!(controller.rate_limit(), &RateLimit::Unlimited);
    }
}
