//! [`UrlBackoff`]: client-go's per-host exponential backoff (`URLBackoff`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use kinformer_core::{Backoff, Delays, Random};
use tokio::time::Instant;

/// Doubling, as client-go's per-host backoff does. 2 is a valid factor, so the check runs when
/// this crate is compiled.
const DOUBLING: Backoff = match Backoff::constant(Duration::ZERO).with_factor(2.0) {
    Ok(backoff) => backoff,
    Err(_) => panic!("2 is a valid backoff factor"),
};

/// Per `host:port` exponential backoff: 5xx and 429 double the delay (from `initial` up to
/// `max`); any other outcome resets it. An entry untouched for `2 × max` starts over. Each
/// host's delays are a [`kinformer_core::Delays`] of one [`Backoff`].
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
    backoff: Backoff,
    hosts: Arc<Mutex<Hosts>>,
}

#[derive(Debug, Default)]
struct Hosts {
    delays: HashMap<String, HostDelay>,
    random: Random,
}

#[derive(Debug)]
struct HostDelay {
    delays: Delays,
    /// The delay the last failure set.
    current: Duration,
}

impl UrlBackoff {
    /// A backoff starting at `initial` and capped at `max`, without jitter (client-go's
    /// `flowcontrol.NewBackOff`).
    pub fn new(initial: Duration, max: Duration) -> Self {
        Self {
            backoff: DOUBLING
                .with_initial(initial)
                .with_cap(max)
                .with_reset_after(max.saturating_mul(2)),
            hosts: Arc::default(),
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

    /// The backoff each host's delays follow.
    pub fn backoff(&self) -> &Backoff {
        &self.backoff
    }

    fn hosts(&self) -> MutexGuard<'_, Hosts> {
        // Poisoning only means a panic elsewhere; the map stays consistent per operation.
        self.hosts.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The delay before the next request to `host`.
    pub fn delay(&self, host: &str) -> Duration {
        let now = Instant::now().into_std();
        self.hosts()
            .delays
            .get(host)
            .filter(|host| !host.delays.lapsed(now))
            .map_or(Duration::ZERO, |host| host.current)
    }

    /// Records the outcome of a request to `host` (`code` 0 for a transport error).
    pub fn update(&self, host: &str, code: u16) {
        let now = Instant::now().into_std();
        let mut hosts = self.hosts();
        if code == 429 || code > 499 {
            let Hosts { delays, random } = &mut *hosts;
            let entry = delays.entry(host.to_owned()).or_insert_with(|| HostDelay {
                delays: self.backoff.delays(),
                current: Duration::ZERO,
            });
            entry.current = entry.delays.next(now, random);
        } else {
            hosts.delays.remove(host);
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
