//! Driving the simulator's control API (plain JSON over HTTP, no auth).

use http::Method;
use kinformer_rest::{Client, Config, Request};
use serde_json::{Value, json};

/// A small client for `/_control/`.
pub(crate) struct Control {
    client: Client,
}

impl Control {
    pub(crate) fn new(url: &str) -> Result<Self, String> {
        let uri = url.parse().map_err(|e| format!("control URL: {e}"))?;
        let mut config = Config::new(uri);
        // The benchmark must not wait in the client's own rate limiter.
        config = config.with_rate_limit(kinformer_rest::RateLimit::Unlimited);
        let client = Client::from_config(&config).map_err(|e| e.to_string())?;
        Ok(Self { client })
    }

    /// A control client for the server in the kubeconfig at `path` (its CA and credentials; the
    /// control API of a TLS sim is served on the same port).
    pub(crate) fn from_kubeconfig(path: &str) -> Result<Self, String> {
        let mut config = crate::setup::kinformer_config(path)?;
        config = config.with_rate_limit(kinformer_rest::RateLimit::Unlimited);
        let client = Client::from_config(&config).map_err(|e| e.to_string())?;
        Ok(Self { client })
    }

    async fn post(&self, path: &str, body: Value) -> Result<(), String> {
        Request::new(
            self.client.clone(),
            Method::POST,
            format!("/_control/{path}"),
        )
        .json_body(&body)
        .do_raw()
        .await
        .map(drop)
        .map_err(|e| format!("POST /_control/{path}: {e}"))
    }

    /// Starts `count` updates of existing pods, as fast as the server writes them.
    pub(crate) async fn burst(&self, count: u64) -> Result<(), String> {
        let mix = json!({"update": 1.0, "create": 0.0, "delete": 0.0});
        self.post(
            "churn",
            json!({"rate": 1_000_000.0, "count": count, "seed": 3, "mix": mix}),
        )
        .await
    }

    /// Starts `count` updates of existing pods at `rate` per second, each stamped with its
    /// wall-clock time (see [`crate::lag`]).
    pub(crate) async fn churn_stamped(&self, rate: f64, count: u64) -> Result<(), String> {
        let mix = json!({"update": 1.0, "create": 0.0, "delete": 0.0});
        self.post(
            "churn",
            json!({"rate": rate, "count": count, "seed": 5, "mix": mix, "stamp_written_at": true}),
        )
        .await
    }

    /// The sim's counters (`GET /_control/stats`), as JSON.
    pub(crate) async fn stats(&self) -> Result<Value, String> {
        Request::new(self.client.clone(), Method::GET, "/_control/stats")
            .into::<Value>()
            .await
            .map_err(|e| format!("GET /_control/stats: {e}"))
    }

    /// Ends every open watch with an ERROR 410, forcing clients to relist.
    pub(crate) async fn force_relist(&self) -> Result<(), String> {
        self.post("watches/drop", json!({"mode": "error410"})).await
    }
}
