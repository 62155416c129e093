//! Writing one event to the API server: a create, or a strategic merge patch of its series
//! falling back to a create, retried with a jittered wait as client-go's `attemptRecording`.

use std::time::Duration;

use k8s_openapi::api::events::v1::Event;
use kinformer_api::{Api, Patch, PatchParams, PostParams};
use kinformer_core::{Backoff, Random};
use kinformer_rest::Client;
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
    Transient(kinformer_api::Error),
    /// Any other answer: the server would refuse the same request again.
    Refused(kinformer_api::Error),
}

/// The `events.k8s.io/v1` endpoint and the retry policy.
#[derive(Debug, Clone)]
pub(crate) struct Sink {
    client: Client,
    retry: Backoff,
    request_timeout: Duration,
}

impl Sink {
    pub(crate) fn new(client: Client, config: &Config) -> Self {
        Self {
            client,
            retry: config.retry_backoff(),
            request_timeout: config.request_timeout(),
        }
    }

    /// The events of `namespace`, each request bounded by the request timeout and never
    /// retried by the client: [`record`](Self::record) retries by client-go's rules.
    fn events(&self, namespace: &str) -> Result<Api<Event>, kinformer_api::Error> {
        Api::namespaced(self.client.clone(), namespace)
            .with_request_timeout(self.request_timeout)
            .map(|api| api.with_max_retries(0))
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
            let asked = error
                .rest_error()
                .and_then(kinformer_rest::Error::retry_after);
            let wait = jittered.max(asked.unwrap_or_default());
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
        let events = self.events(namespace).map_err(Failure::Refused)?;
        if let Some(series) = &event.series {
            // The two-way patch client-go computes between the event without and with its
            // series: the series alone.
            let patch = Patch::Strategic(serde_json::json!({ "series": series }));
            match events.patch(name, &PatchParams::default(), &patch).await {
                Ok(_) => return Ok(()),
                Err(error) if error.is_not_found() => {}
                Err(error) => return Err(classify(error, true)),
            }
        }
        let mut fresh = event.clone();
        fresh.metadata.resource_version = None;
        events
            .create(&PostParams::default(), &fresh)
            .await
            .map(drop)
            .map_err(|error| classify(error, event.series.is_some()))
    }
}

fn classify(error: kinformer_api::Error, series: bool) -> Failure {
    // A series' create that finds the event already there raced its own first create: the
    // next attempt patches it.
    if series && matches!(error, kinformer_api::Error::AlreadyExists(_)) {
        return Failure::Transient(error);
    }
    // Not sent (a usage or encoding error) or not decodable: the same request fails again.
    let Some(rest) = error.rest_error() else {
        return Failure::Refused(error);
    };
    if rest.is_invalid_request() || rest.is_config() {
        return Failure::Refused(error);
    }
    match rest.status_code() {
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

    fn answer(code: u16, reason: &str) -> kinformer_api::Error {
        kinformer_api::Error::from_rest(kinformer_rest::Error::from_status(Status {
            code: Some(code.into()),
            reason: Some(reason.into()),
            ..Status::default()
        }))
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
