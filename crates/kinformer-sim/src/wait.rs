//! For tests that wait for the simulator, a client or a process to get somewhere: a wait
//! bounded by a condition, instead of a fixed sleep that is too long on a fast machine and too
//! short on a loaded one.

use std::future::Future;
use std::time::Duration;

/// How often [`wait_until`] checks its condition.
const POLL: Duration = Duration::from_millis(20);

/// Waits until `condition` holds: checks it at once, then every 20 ms, for at most `limit` of
/// tokio's clock (so a test on a paused clock waits no real time between checks).
///
/// Meant for tests: give a `limit` generous enough for a loaded machine, since it is only
/// reached when something is wrong, and a `what` that says what was awaited.
///
/// # Panics
/// When `condition` still does not hold after `limit`: the message names `what` and `limit`,
/// so the failing test says what it waited for.
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use kinformer_sim::{Churn, Sim, wait_until};
///
/// # #[tokio::main] async fn main() -> Result<(), kinformer_sim::Error> {
/// let sim = Sim::builder().pods(10).start().await?;
/// sim.churn_start(Churn::new(500.0).count(20)).await?;
/// wait_until("the churn's 20 writes", Duration::from_secs(60), || async {
///     sim.churn_status().await.done >= 20
/// })
/// .await;
/// # Ok(()) }
/// ```
pub async fn wait_until<F, Fut>(what: &str, limit: Duration, mut condition: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let deadline = tokio::time::Instant::now() + limit;
    while !condition().await {
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out after {limit:?} waiting until {what}"
        );
        tokio::time::sleep(POLL).await;
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};

    use super::*;

    #[tokio::test(start_paused = true)]
    async fn returns_once_the_condition_holds() {
        let checks = AtomicU32::new(0);
        let started = tokio::time::Instant::now();
        wait_until("the third check", Duration::from_secs(1), || async {
            checks.fetch_add(1, Ordering::SeqCst) == 2
        })
        .await;
        assert_eq!(checks.load(Ordering::SeqCst), 3);
        assert_eq!(started.elapsed(), POLL * 2);
    }

    #[tokio::test(start_paused = true)]
    #[should_panic(expected = "timed out after 1s waiting until never")]
    async fn fails_naming_what_it_waited_for() {
        wait_until("never", Duration::from_secs(1), || async { false }).await;
    }
}
