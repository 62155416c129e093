//! Client-side token bucket (client-go `flowcontrol.NewTokenBucketRateLimiter`).

use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;
use tower::ServiceExt;

use super::metrics::{Hooks, host_of};
use super::{Attempt, LayerFuture, RequestMetrics, StackService, layer_service, take_ready};
use crate::body::Body;
use crate::config::TokenBucket;
use crate::request::WatchRequest;

/// A token bucket shared by every request of a client (and by every clone of the limiter).
///
/// It starts full with `burst` tokens and refills at `qps` tokens per second. A waiter reserves
/// its token at once, so waiters are served in arrival order without polling.
///
/// # Examples
/// ```
/// use kinformer_rest::TokenBucket;
/// use kinformer_rest::stack::ClientRateLimiter;
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let limiter = ClientRateLimiter::new(TokenBucket::DEFAULT);
/// for _ in 0..10 {
///     assert!(limiter.try_acquire());
/// }
/// assert!(!limiter.try_acquire());
/// # }
/// ```
#[derive(Clone)]
pub struct ClientRateLimiter {
    bucket: Arc<Mutex<Bucket>>,
    qps: f64,
    burst: f64,
}

struct Bucket {
    tokens: f64,
    last: Option<Instant>,
}

impl ClientRateLimiter {
    /// A limiter of the bucket's requests per second and burst, starting full.
    pub fn new(bucket: TokenBucket) -> Self {
        let burst = f64::from(bucket.burst());
        Self {
            bucket: Arc::new(Mutex::new(Bucket {
                tokens: burst,
                last: None,
            })),
            qps: f64::from(bucket.qps()),
            burst,
        }
    }

    /// True when `other` is a clone of this limiter (they take from one bucket).
    pub fn same_bucket(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.bucket, &other.bucket)
    }

    /// Requests per second.
    pub fn qps(&self) -> f64 {
        self.qps
    }

    /// Reserves one token and returns how long to wait for it (zero when one was available).
    fn reserve(&self, take_if_waiting: bool) -> Option<Duration> {
        let now = Instant::now();
        // A poisoned lock only means another thread panicked mid-update; the counters stay usable.
        let mut b = self
            .bucket
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let elapsed = b
            .last
            .map_or(0.0, |l| now.saturating_duration_since(l).as_secs_f64());
        b.last = Some(now);
        b.tokens = (b.tokens + elapsed * self.qps).min(self.burst);
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            return Some(Duration::ZERO);
        }
        if !take_if_waiting {
            return None;
        }
        let wait = Duration::from_secs_f64((1.0 - b.tokens) / self.qps);
        b.tokens -= 1.0;
        Some(wait)
    }

    /// Waits for a token.
    ///
    /// # Cancel safety
    /// A token is reserved when the call starts; dropping the future does not return it.
    pub async fn acquire(&self) {
        if let Some(wait) = self.reserve(true).filter(|w| !w.is_zero()) {
            if wait > Duration::from_millis(50) {
                tracing::debug!(?wait, "waiting for the client-side rate limiter");
            }
            tokio::time::sleep(wait).await;
        }
    }

    /// Takes a token if one is available now.
    pub fn try_acquire(&self) -> bool {
        self.reserve(false).is_some()
    }
}

impl fmt::Debug for ClientRateLimiter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientRateLimiter")
            .field("qps", &self.qps)
            .field("burst", &self.burst)
            .finish()
    }
}

/// Waits on a [`ClientRateLimiter`] before each attempt (a watch's first attempt is not throttled, as
/// in client-go). `None` disables throttling.
#[derive(Clone, Debug)]
pub struct RateLimitLayer {
    limiter: Option<ClientRateLimiter>,
    hooks: Hooks,
}

impl RateLimitLayer {
    /// A layer using `limiter`, or passing requests through when `None`.
    pub fn new(limiter: Option<ClientRateLimiter>) -> Self {
        Self {
            limiter,
            hooks: Hooks::default(),
        }
    }

    /// Reports each wait on the limiter to `metrics`, or to nothing when `None`.
    #[must_use]
    pub fn metrics(mut self, metrics: Option<Arc<dyn RequestMetrics>>) -> Self {
        self.hooks = Hooks::new(metrics);
        self
    }
}

impl<S> tower::Layer<S> for RateLimitLayer {
    type Service = RateLimitService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        RateLimitService {
            inner,
            limiter: self.limiter.clone(),
            hooks: self.hooks.clone(),
        }
    }
}

/// The service of [`RateLimitLayer`].
#[derive(Clone, Debug)]
pub struct RateLimitService<S> {
    inner: S,
    limiter: Option<ClientRateLimiter>,
    hooks: Hooks,
}

impl<S: StackService> RateLimitService<S> {
    fn run(&mut self, req: http::Request<Body>) -> LayerFuture {
        let inner = take_ready(&mut self.inner);
        let first_watch = req.extensions().get::<WatchRequest>().is_some()
            && req.extensions().get::<Attempt>().is_none_or(|a| a.0 == 0);
        let limiter = self.limiter.clone().filter(|_| !first_watch);
        let hooks = self.hooks.clone();
        Box::pin(async move {
            if let Some(limiter) = limiter {
                let start = Instant::now();
                limiter.acquire().await;
                // Every wait is observed, a zero one included, as client-go's `tryThrottle` does.
                if let Some(metrics) = hooks.get() {
                    metrics.rate_limiter_latency(req.method(), host_of(req.uri()), start.elapsed());
                }
            }
            inner.oneshot(req).await
        })
    }
}

layer_service!(RateLimitService);

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn burst_then_qps() {
        let limiter = ClientRateLimiter::new(TokenBucket::DEFAULT);
        let start = Instant::now();
        for _ in 0..10 {
            limiter.acquire().await;
        }
        assert_eq!(start.elapsed(), Duration::ZERO);
        for _ in 0..5 {
            limiter.acquire().await;
        }
        // Five more at 5 QPS take one second.
        let took = start.elapsed();
        assert!(
            took >= Duration::from_millis(990) && took <= Duration::from_millis(1010),
            "{took:?}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn shared_between_clones_and_concurrent_waiters() {
        let limiter = ClientRateLimiter::new(TokenBucket::new(10.0, 2).unwrap());
        let start = Instant::now();
        let tasks: Vec<_> = (0..12)
            .map(|_| {
                let l = limiter.clone();
                tokio::spawn(async move { l.acquire().await })
            })
            .collect();
        for t in tasks {
            t.await.unwrap();
        }
        // 2 immediately, 10 more at 10 QPS.
        let took = start.elapsed();
        assert!(
            took >= Duration::from_millis(990) && took <= Duration::from_millis(1010),
            "{took:?}"
        );
    }
}
