//! [`UrlBackoff`]: client-go's per-host exponential backoff (`URLBackoff`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

/// Per `host:port` exponential backoff: 5xx and 429 double the delay (from `initial` up to
/// `max`); any other outcome resets it. An entry untouched for `2 × max` starts over.
///
/// # Examples
/// ```
/// use std::time::Duration;
///
/// use kinformer_rest::stack::UrlBackoff;
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let backoff = UrlBackoff::new(Duration::from_secs(1), Duration::from_secs(200));
/// assert_eq!(backoff.delay("h:443"), Duration::ZERO);
/// backoff.update("h:443", 500);
/// backoff.update("h:443", 503);
/// assert_eq!(backoff.delay("h:443"), Duration::from_secs(2));
/// backoff.update("h:443", 200);
/// assert_eq!(backoff.delay("h:443"), Duration::ZERO);
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct UrlBackoff {
    initial: Duration,
    max: Duration,
    entries: Arc<Mutex<HashMap<String, Entry>>>,
}

#[derive(Debug)]
struct Entry {
    delay: Duration,
    updated: Instant,
}

impl UrlBackoff {
    /// A backoff starting at `initial` and capped at `max`.
    pub fn new(initial: Duration, max: Duration) -> Self {
        Self {
            initial,
            max,
            entries: Arc::default(),
        }
    }

    /// client-go's opt-in: both `KUBE_CLIENT_BACKOFF_BASE` and `KUBE_CLIENT_BACKOFF_DURATION`
    /// set to whole seconds.
    pub fn from_env() -> Option<Self> {
        let secs = |k: &str| std::env::var(k).ok()?.trim().parse::<u64>().ok();
        let base = secs("KUBE_CLIENT_BACKOFF_BASE")?;
        let max = secs("KUBE_CLIENT_BACKOFF_DURATION")?;
        Some(Self::new(
            Duration::from_secs(base),
            Duration::from_secs(max),
        ))
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        // Poisoning only means a panic elsewhere; the map stays consistent per operation.
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The delay before the next request to `host`.
    pub fn delay(&self, host: &str) -> Duration {
        let now = Instant::now();
        self.entries()
            .get(host)
            .filter(|e| now.saturating_duration_since(e.updated) <= self.max * 2)
            .map_or(Duration::ZERO, |e| e.delay)
    }

    /// Records the outcome of a request to `host` (`code` 0 for a transport error).
    pub fn update(&self, host: &str, code: u16) {
        let now = Instant::now();
        let mut entries = self.entries();
        if code == 429 || code > 499 {
            let entry = entries.entry(host.to_owned()).or_insert(Entry {
                delay: Duration::ZERO,
                updated: now,
            });
            let stale = now.saturating_duration_since(entry.updated) > self.max * 2;
            entry.delay = if entry.delay.is_zero() || stale {
                self.initial
            } else {
                (entry.delay * 2).min(self.max)
            };
            entry.updated = now;
        } else {
            entries.remove(host);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn client_go_sequence() {
        let b = UrlBackoff::new(Duration::from_secs(1), Duration::from_secs(200));
        let mut seen = vec![b.delay("h")];
        for _ in 0..4 {
            b.update("h", 500);
            seen.push(b.delay("h"));
        }
        b.update("h", 200);
        seen.push(b.delay("h"));
        for _ in 0..3 {
            b.update("h", 429);
            seen.push(b.delay("h"));
        }
        let secs: Vec<u64> = seen.iter().map(Duration::as_secs).collect();
        assert_eq!(secs, [0, 1, 2, 4, 8, 0, 1, 2, 4]);
        tokio::time::advance(Duration::from_secs(401)).await;
        assert_eq!(b.delay("h"), Duration::ZERO);
    }
}
