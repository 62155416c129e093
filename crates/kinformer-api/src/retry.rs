//! [`retry_on_conflict`]: client-go's `retry.RetryOnConflict`.

use std::hash::{BuildHasher, RandomState};
use std::time::Duration;

use crate::error::Error;

/// How often and how far apart [`retry_on_conflict`] tries (client-go `wait.Backoff`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Backoff {
    /// How many times to try in all; at least one try is always made.
    pub steps: u32,
    /// The first wait.
    pub duration: Duration,
    /// Each wait is the previous one times this.
    pub factor: f64,
    /// Each wait is lengthened by up to this fraction of itself, at random.
    pub jitter: f64,
}

/// client-go's `retry.DefaultRetry`: 5 tries, 10 ms apart, each wait up to 10% longer.
pub const DEFAULT_RETRY: Backoff = Backoff {
    steps: 5,
    duration: Duration::from_millis(10),
    factor: 1.0,
    jitter: 0.1,
};

impl Default for Backoff {
    fn default() -> Self {
        DEFAULT_RETRY
    }
}

impl Backoff {
    /// The wait after try `attempt` (0-based): `duration * factor^attempt`, jittered.
    fn wait(&self, attempt: u32, random: f64) -> Duration {
        let exponent = i32::try_from(attempt).unwrap_or(i32::MAX);
        let base = self.duration.mul_f64(self.factor.max(0.0).powi(exponent));
        if self.jitter > 0.0 {
            base + base.mul_f64(self.jitter * random)
        } else {
            base
        }
    }
}

/// Runs a read-modify-write until it does not end in [`Error::Conflict`], at most
/// `backoff.steps` times (client-go's `retry.RetryOnConflict`). Any other outcome is returned at
/// once; when every try conflicts, the last conflict is returned.
///
/// The closure must read the object afresh on each try: a conflict means the copy it wrote was
/// stale.
///
/// ```
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kinformer_api::{Api, DEFAULT_RETRY, PostParams, retry_on_conflict};
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let sim = kinformer_sim::Sim::builder().start().await?;
/// # let client = kinformer_rest::Client::new(sim.service());
/// let configmaps: Api<ConfigMap> = Api::namespaced(client, "default");
/// # let mut cm = ConfigMap::default();
/// # cm.metadata.name = Some("counter".into());
/// # configmaps.create(&PostParams::default(), &cm).await?;
/// let updated = retry_on_conflict(DEFAULT_RETRY, || async {
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
    let random = RandomState::new();
    let mut tried = 0;
    loop {
        match attempt().await {
            Err(err) if err.is_conflict() && tried + 1 < backoff.steps.max(1) => {
                tokio::time::sleep(backoff.wait(tried, unit_interval(&random, tried))).await;
                tried += 1;
            }
            outcome => return outcome,
        }
    }
}

/// A draw from [0, 1) for the jitter of try `attempt`, from the process's random hasher keys (no
/// random number generator needed for ten milliseconds of spread).
fn unit_interval(random: &RandomState, attempt: u32) -> f64 {
    // The top 53 bits fill an f64's mantissa exactly.
    (random.hash_one(attempt) >> 11) as f64 / (1_u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};

    use kinformer_core::Status;

    use super::*;

    fn conflict() -> Error {
        Error::from_rest(kinformer_rest::Error::from_status(Status {
            code: Some(409),
            reason: Some("Conflict".into()),
            ..Status::default()
        }))
    }

    #[test]
    fn default_retry_is_client_gos() {
        let wait = DEFAULT_RETRY.wait(3, 0.0);
        assert_eq!(wait, Duration::from_millis(10));
        assert_eq!(DEFAULT_RETRY.wait(0, 0.999), Duration::from_micros(10_999));
        let doubling = Backoff {
            factor: 2.0,
            jitter: 0.0,
            ..DEFAULT_RETRY
        };
        assert_eq!(doubling.wait(2, 0.5), Duration::from_millis(40));
        let random = RandomState::new();
        assert!((0..100).all(|i| (0.0..1.0).contains(&unit_interval(&random, i))));
    }

    #[tokio::test(start_paused = true)]
    async fn gives_up_after_the_steps_with_the_last_conflict() {
        let tries = AtomicU32::new(0);
        let start = tokio::time::Instant::now();
        let result: Result<(), Error> = retry_on_conflict(DEFAULT_RETRY, || async {
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
        let result = retry_on_conflict(DEFAULT_RETRY, || async {
            match tries.fetch_add(1, Ordering::Relaxed) {
                0 => Err(conflict()),
                _ => Ok(7),
            }
        })
        .await;
        assert_eq!(result.unwrap(), 7);
        assert_eq!(tries.load(Ordering::Relaxed), 2);

        let result: Result<(), Error> =
            retry_on_conflict(DEFAULT_RETRY, || async { Err(Error::Usage("no")) }).await;
        assert!(matches!(result, Err(Error::Usage("no"))));
    }
}
