//! Writing one event to the API server: a create, or a strategic merge patch of its series
//! falling back to a create, retried with a jittered wait as client-go's `attemptRecording`.

use std::time::Duration;

use k8s_openapi::api::events::v1::Event;
use kinformer_core::{Backoff, Random};
use kinformer_rest::{Client, PatchType, RestClient};
use tokio_util::sync::CancellationToken;

use crate::config::Config;

/// How a write ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// The server holds the event (or its series) as sent.
    Written,
    /// Refused, or out of attempts: the write is given up.
    GivenUp,
}

/// Why one attempt failed.
#[derive(Debug)]
enum Failure {
    /// No answer (transport error, timeout), 429 or 5xx: the next attempt may succeed.
    Transient(kinformer_rest::Error),
    /// Any other answer: the server would refuse the same request again.
    Refused(kinformer_rest::Error),
}

/// The `events.k8s.io/v1` endpoint and the retry policy.
#[derive(Debug, Clone)]
pub(crate) struct Sink {
    client: RestClient,
    retry: Backoff,
    request_timeout: Duration,
}

impl Sink {
    pub(crate) fn new(client: Client, config: &Config) -> Self {
        Self {
            client: RestClient::new(client, "events.k8s.io", "v1"),
            retry: config.retry_backoff(),
            request_timeout: config.request_timeout(),
        }
    }

    /// Writes `event`, retrying transient failures up to the attempt limit. Once `stop`
    /// fires, the wait between attempts ends and the next attempt is the last.
    pub(crate) async fn record(&self, event: &Event, stop: &CancellationToken) -> Outcome {
        let name = event.metadata.name.as_deref().unwrap_or_default();
        // Seeded afresh per write, so that many clients do not retry in step after an outage.
        let mut random = Random::default();
        let mut delays = self.retry.delays();
        let mut attempt = 1;
        loop {
            let error = match self.attempt(event).await {
                Ok(()) => return Outcome::Written,
                Err(Failure::Refused(error)) => {
                    tracing::warn!(event = name, %error, "server refused event (will not retry)");
                    return Outcome::GivenUp;
                }
                Err(Failure::Transient(error)) => error,
            };
            let now = tokio::time::Instant::now().into_std();
            let next = if stop.is_cancelled() {
                None
            } else {
                delays.next_retry(now, &mut random)
            };
            let Some(jittered) = next else {
                tracing::warn!(event = name, %error, attempt, "unable to write event (giving up)");
                return Outcome::GivenUp;
            };
            tracing::debug!(event = name, %error, attempt, "unable to write event (will retry)");
            // Never sooner than the server asked.
            let wait = jittered.max(error.retry_after().unwrap_or_default());
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                () = stop.cancelled() => {}
            }
            attempt += 1;
        }
    }

    /// One create or, for a series, a patch of `series` and a create when the event is gone
    /// (expired, or its first write was given up), as client-go's `recordEvent`.
    async fn attempt(&self, event: &Event) -> Result<(), Failure> {
        let namespace = event.metadata.namespace.as_deref().unwrap_or("default");
        let name = event.metadata.name.as_deref().unwrap_or_default();
        if let Some(series) = &event.series {
            // The two-way patch client-go computes between the event without and with its
            // series: the series alone.
            let patched = self
                .client
                .patch(PatchType::StrategicMerge)
                .namespace(namespace)
                .resource("events")
                .name(name)
                .json_body(&serde_json::json!({ "series": series }))
                .timeout(self.request_timeout)
                .max_retries(0)
                .into::<Event>()
                .await;
            match patched {
                Ok(_) => return Ok(()),
                Err(error) if error.is_not_found() => {}
                Err(error) => return Err(classify(error, true)),
            }
        }
        let mut fresh = event.clone();
        fresh.metadata.resource_version = None;
        self.client
            .post()
            .namespace(namespace)
            .resource("events")
            .json_body(&fresh)
            .timeout(self.request_timeout)
            .max_retries(0)
            .into::<Event>()
            .await
            .map(drop)
            .map_err(|error| classify(error, event.series.is_some()))
    }
}

fn classify(error: kinformer_rest::Error, series: bool) -> Failure {
    // A series' create that finds the event already there raced its own first create: the
    // next attempt patches it.
    if series && error.is_already_exists() {
        return Failure::Transient(error);
    }
    if error.is_invalid_request() || error.is_config() {
        return Failure::Refused(error);
    }
    match error.status_code() {
        Some(429) => Failure::Transient(error),
        Some(code) if code >= 500 => Failure::Transient(error),
        Some(_) => Failure::Refused(error),
        None => Failure::Transient(error),
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Status;

    use super::*;

    fn answer(code: u16, reason: &str) -> kinformer_rest::Error {
        kinformer_rest::Error::from_status(Status {
            code: Some(code.into()),
            reason: Some(reason.into()),
            ..Status::default()
        })
    }

    #[test]
    fn busy_or_failing_servers_are_retried_refusals_are_not() {
        for (code, reason) in [
            (429, "TooManyRequests"),
            (500, "InternalError"),
            (503, "ServiceUnavailable"),
        ] {
            assert!(
                matches!(classify(answer(code, reason), false), Failure::Transient(_)),
                "{code}"
            );
        }
        for (code, reason) in [(422, "Invalid"), (403, "Forbidden"), (409, "AlreadyExists")] {
            assert!(
                matches!(classify(answer(code, reason), false), Failure::Refused(_)),
                "{code}"
            );
        }
        assert!(
            matches!(
                classify(answer(409, "AlreadyExists"), true),
                Failure::Transient(_)
            ),
            "a series' create racing its first create patches next time"
        );
    }
}
