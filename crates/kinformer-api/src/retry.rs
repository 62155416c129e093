//! [`retry_on_conflict`]: client-go's `retry.RetryOnConflict`.

use kinformer_core::{Backoff, Random};

use crate::error::Error;

/// Runs a read-modify-write until it does not end in [`Error::Conflict`], at most
/// [`backoff.steps()`](Backoff::steps) times, waiting between tries as `backoff` says
/// (client-go's `retry.RetryOnConflict`; pass [`Backoff::DEFAULT_RETRY`] for its
/// `retry.DefaultRetry`). A backoff without steps tries until no conflict. Any other outcome is
/// returned at once; when every try conflicts, the last conflict is returned.
///
/// The closure must read the object afresh on each try: a conflict means the copy it wrote was
/// stale.
///
/// ```
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kinformer_api::{Api, PostParams, retry_on_conflict};
/// use kinformer_core::Backoff;
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let sim = kinformer_sim::Sim::builder().start().await?;
/// # let client = kinformer_rest::Client::new(sim.service());
/// let configmaps: Api<ConfigMap> = Api::namespaced(client, "default");
/// # let mut cm = ConfigMap::default();
/// # cm.metadata.name = Some("counter".into());
/// # configmaps.create(&PostParams::default(), &cm).await?;
/// let updated = retry_on_conflict(Backoff::DEFAULT_RETRY, || async {
///     let mut cm = configmaps.get("counter").await?;
///     let count: u32 = cm.data.as_ref().and_then(|d| d.get("count")).map_or(Ok(0), |c| c.parse())
///         .unwrap_or(0);
///     cm.data.get_or_insert_default().insert("count".into(), (count + 1).to_string());
///     configmaps.replace("counter", &PostParams::default(), &cm).await
/// })
/// .await?;
/// assert_eq!(updated.data.unwrap()["count"], "1");
/// # Ok(()) }
/// ```
///
/// # Cancel safety
/// Dropping the future stops between tries or abandons the try in flight.
pub async fn retry_on_conflict<T, F, Fut>(backoff: Backoff, mut attempt: F) -> Result<T, Error>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, Error>>,
{
    let mut random = Random::default();
    let mut delays = backoff.delays();
    loop {
        match attempt().await {
            Err(err) if err.is_conflict() => {
                let now = tokio::time::Instant::now().into_std();
                let Some(wait) = delays.next_retry(now, &mut random) else {
                    return Err(err);
                };
                tokio::time::sleep(wait).await;
            }
            outcome => return outcome,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};

    use std::time::Duration;

    use kinformer_core::Status;

    use super::*;

    fn conflict() -> Error {
        Error::from_rest(kinformer_rest::Error::from_status(Status {
            code: Some(409),
            reason: Some("Conflict".into()),
            ..Status::default()
        }))
    }

    /// The waits `retry_on_conflict` takes between tries: one fewer than the steps, growing
    /// by the factor (the exact jittered numbers are core's tests).
    #[tokio::test(start_paused = true)]
    async fn waits_grow_by_the_factor_between_the_steps() {
        let doubling = Backoff::DEFAULT_RETRY
            .with_factor(2.0)
            .and_then(|b| b.with_jitter(0.0))
            .and_then(|b| b.with_steps(4))
            .unwrap();
        let start = tokio::time::Instant::now();
        let tries = std::sync::Mutex::new(Vec::new());
        let result: Result<(), Error> = retry_on_conflict(doubling, || async {
            tries.lock().unwrap().push(start.elapsed());
            Err(conflict())
        })
        .await;
        assert!(result.unwrap_err().is_conflict());
        let millis = Duration::from_millis;
        assert_eq!(
            *tries.lock().unwrap(),
            [millis(0), millis(10), millis(30), millis(70)]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn gives_up_after_the_steps_with_the_last_conflict() {
        let tries = AtomicU32::new(0);
        let start = tokio::time::Instant::now();
        let result: Result<(), Error> = retry_on_conflict(Backoff::DEFAULT_RETRY, || async {
            tries.fetch_add(1, Ordering::Relaxed);
            Err(conflict())
        })
        .await;
        assert!(result.unwrap_err().is_conflict());
        assert_eq!(tries.load(Ordering::Relaxed), 5);
        // Four waits of 10 to 11 ms.
        let waited = start.elapsed();
        assert!(waited >= Duration::from_millis(40) && waited <= Duration::from_millis(44));
    }

    #[tokio::test(start_paused = true)]
    async fn other_errors_and_successes_end_at_once() {
        let tries = AtomicU32::new(0);
        let result = retry_on_conflict(Backoff::DEFAULT_RETRY, || async {
            match tries.fetch_add(1, Ordering::Relaxed) {
                0 => Err(conflict()),
                _ => Ok(7),
            }
        })
        .await;
        assert_eq!(result.unwrap(), 7);
        assert_eq!(tries.load(Ordering::Relaxed), 2);

        let result: Result<(), Error> =
            retry_on_conflict(Backoff::DEFAULT_RETRY, || async { Err(Error::Usage("no")) }).await;
        assert!(matches!(result, Err(Error::Usage("no"))));
    }
}
