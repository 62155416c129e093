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

    /// Serves the custom resource `crd` from now on.
    pub(crate) async fn register(&self, crd: &kinformer_sim::CustomResource) -> Result<(), String> {
        let body = serde_json::to_value(crd).map_err(|e| e.to_string())?;
        self.post("resources", body).await
    }

    /// Applies `ops` in one request; an operation the sim refused is an error naming it.
    pub(crate) async fn objects(&self, ops: &[kinformer_sim::ObjectOp]) -> Result<(), String> {
        let answer: Value = Request::new(self.client.clone(), Method::POST, "/_control/objects")
            .json_body(&json!({ "ops": ops }))
            .into()
            .await
            .map_err(|e| format!("POST /_control/objects: {e}"))?;
        let results = answer["results"].as_array().cloned().unwrap_or_default();
        if results.len() != ops.len() {
            return Err(format!(
                "{} results for {} operations",
                results.len(),
                ops.len()
            ));
        }
        match results
            .iter()
            .position(|r| r["code"].as_u64().is_none_or(|c| c >= 300))
        {
            Some(i) => Err(format!("{:?} refused: {}", ops[i], results[i])),
            None => Ok(()),
        }
    }

    /// Empties the sim's request log.
    pub(crate) async fn clear_requests(&self) -> Result<(), String> {
        Request::new(self.client.clone(), Method::DELETE, "/_control/requests")
            .do_raw()
            .await
            .map(drop)
            .map_err(|e| format!("DELETE /_control/requests: {e}"))
    }

    /// The requests the sim logged since the log was emptied: all of them, and the writes.
    pub(crate) async fn requests(&self) -> Result<Requests, String> {
        let log: Vec<Value> = Request::new(self.client.clone(), Method::GET, "/_control/requests")
            .into()
            .await
            .map_err(|e| format!("GET /_control/requests: {e}"))?;
        let writes = log
            .iter()
            .filter(|r| !matches!(r["method"].as_str(), Some("GET")))
            .count();
        Ok(Requests {
            total: log.len(),
            writes,
        })
    }

    /// Ends every open watch with an ERROR 410, forcing clients to relist.
    pub(crate) async fn force_relist(&self) -> Result<(), String> {
        self.post("watches/drop", json!({"mode": "error410"})).await
    }
}

/// Counts from the sim's request log.
pub(crate) struct Requests {
    pub(crate) total: usize,
    pub(crate) writes: usize,
}
