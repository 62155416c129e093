//! [`RateLimit`]: how fast the clients built from a [`Config`](super::Config) may send.

use std::fmt;

use crate::error::{Error, Kind, Result};
use crate::layers::ClientRateLimiter;

/// client-go's `DefaultQPS`.
pub const DEFAULT_QPS: f32 = 5.0;
/// client-go's `DefaultBurst`.
pub const DEFAULT_BURST: u32 = 10;

/// A token bucket's rate and burst, checked: `qps` requests per second on average, up to
/// `burst` at once (client-go's `QPS` and `Burst`).
///
/// ```
/// use kinformer_rest::TokenBucket;
///
/// let bucket = TokenBucket::new(50.0, 100)?;
/// assert_eq!((bucket.qps(), bucket.burst()), (50.0, 100));
/// assert!(TokenBucket::new(0.0, 10).is_err());
/// # Ok::<(), kinformer_rest::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TokenBucket {
    qps: f32,
    burst: u32,
}

impl TokenBucket {
    /// client-go's defaults: 5 requests per second, bursts of 10.
    pub const DEFAULT: Self = Self {
        qps: DEFAULT_QPS,
        burst: DEFAULT_BURST,
    };

    /// `qps` requests per second with bursts of `burst`.
    ///
    /// # Errors
    /// A rate that is not a positive finite number, or a burst of zero (no request could
    /// ever pass): use [`RateLimit::Unlimited`] to turn limiting off.
    pub fn new(qps: f32, burst: u32) -> Result<Self> {
        if !(qps.is_finite() && qps > 0.0) {
            return Err(Error::new(
                Kind::Config,
                format!(
                    "rate limit qps must be a positive number of requests per second, not {qps} \
                     (RateLimit::Unlimited turns limiting off)"
                ),
            ));
        }
        if burst == 0 {
            return Err(Error::new(
                Kind::Config,
                "rate limit burst must be at least 1 (no request could pass)",
            ));
        }
        Ok(Self { qps, burst })
    }

    /// Requests per second on average.
    pub fn qps(&self) -> f32 {
        self.qps
    }

    /// Requests allowed at once after a quiet period.
    pub fn burst(&self) -> u32 {
        self.burst
    }
}

impl Default for TokenBucket {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// The client-side rate limit of the clients built from a [`Config`](super::Config).
///
/// Each client built from a configuration with [`TokenBucket`](Self::TokenBucket) gets a
/// bucket of its own (as each client-go `rest.Config` user does); [`Shared`](Self::Shared)
/// hands the same bucket to every client built from it.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum RateLimit {
    /// A bucket of its own for each client (the default: client-go's 5 per second, bursts of 10).
    TokenBucket(TokenBucket),
    /// One bucket shared by every client given it.
    Shared(ClientRateLimiter),
    /// No client-side limit (the server's priority and fairness still applies).
    Unlimited,
}

impl RateLimit {
    /// The limiter one new client uses, `None` when unlimited.
    pub(crate) fn limiter(&self) -> Option<ClientRateLimiter> {
        match self {
            Self::TokenBucket(bucket) => Some(ClientRateLimiter::new(*bucket)),
            Self::Shared(limiter) => Some(limiter.clone()),
            Self::Unlimited => None,
        }
    }
}

impl Default for RateLimit {
    fn default() -> Self {
        Self::TokenBucket(TokenBucket::DEFAULT)
    }
}

/// Two shared limits are equal when they are the same bucket.
impl PartialEq for RateLimit {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::TokenBucket(a), Self::TokenBucket(b)) => a == b,
            (Self::Shared(a), Self::Shared(b)) => a.same_bucket(b),
            (Self::Unlimited, Self::Unlimited) => true,
            _ => false,
        }
    }
}

impl fmt::Display for RateLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TokenBucket(b) => write!(f, "{} requests/s, burst {}", b.qps, b.burst),
            Self::Shared(l) => write!(f, "shared: {} requests/s", l.qps()),
            Self::Unlimited => f.write_str("unlimited"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_refuses_what_could_never_pass() {
        for qps in [0.0, -1.0, f32::NAN, f32::INFINITY] {
            let err = TokenBucket::new(qps, 10).unwrap_err();
            assert!(err.to_string().contains("qps"), "{err}");
        }
        let err = TokenBucket::new(5.0, 0).unwrap_err();
        assert!(err.to_string().contains("burst"), "{err}");
        assert_eq!(TokenBucket::new(5.0, 10).unwrap(), TokenBucket::DEFAULT);
    }

    #[test]
    fn shared_limits_are_equal_only_when_one_bucket() {
        let one = ClientRateLimiter::new(TokenBucket::DEFAULT);
        assert_eq!(RateLimit::Shared(one.clone()), RateLimit::Shared(one));
        assert_ne!(
            RateLimit::Shared(ClientRateLimiter::new(TokenBucket::DEFAULT)),
            RateLimit::Shared(ClientRateLimiter::new(TokenBucket::DEFAULT))
        );
        assert_eq!(RateLimit::default().limiter().map(|l| l.qps()), Some(5.0));
        assert!(RateLimit::Unlimited.limiter().is_none());
    }
}
