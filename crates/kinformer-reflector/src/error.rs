//! [`Error`]: every failure a reflector meets, as its watch-error handler sees it.

use std::fmt;
use std::time::Duration;

use kinformer_core::{
    ApiError, Status, StoreError, is_expired_status, is_too_large_resource_version_status,
};

/// A failure the reflector met and recovered from, passed to the watch-error handler.
///
/// The variant says which kind it was; the reflector's recovery does not depend on the handler
/// (it backs off and re-watches or relists either way). A watch that ends cleanly (the server's
/// timeout, a normal close after events) is not an error and is not reported.
///
/// | variant | when | recovery |
/// |---|---|---|
/// | [`List`](Self::List) | a list failed | backoff, list again |
/// | [`WatchOpen`](Self::WatchOpen) | the watch request failed (not 410, not 429) | backoff, re-watch (transport, 5xx) or relist |
/// | [`WatchBroken`](Self::WatchBroken) | an open watch broke; [`WatchBreak`] says how | re-watch (dropped) or relist after backoff |
/// | [`Expired`](Self::Expired) | 410 / `Expired` / `Gone`, as an answer or an `ERROR` event | relist at the last resourceVersion |
/// | [`ErrorEvent`](Self::ErrorEvent) | any other `ERROR` event | re-watch (5xx) or relist after backoff |
/// | [`Throttled`](Self::Throttled) | 429, as an answer or an `ERROR` event | backoff, re-watch |
/// | [`Store`](Self::Store) | the store rejected a list or a resync | backoff, list again |
#[derive(Debug)]
#[non_exhaustive]
pub enum Error<E> {
    /// Listing failed (after the immediate retry at resourceVersion `""` where that applies),
    /// whatever the cause, a 429 or 410 included.
    List(kinformer_pager::Error<E>),
    /// The request opening a watch (or a streaming list) failed after the client's own retries:
    /// no connection, a 5xx, a 403, a rejected parameter. 410 and 429 have their own variants.
    WatchOpen(E),
    /// An open watch (or a streaming list's stream) broke.
    WatchBroken {
        /// How it broke.
        how: WatchBreak,
        /// The stream's error, when it yielded one.
        source: Option<E>,
    },
    /// The resourceVersion left the server's history (HTTP 410, reason `Expired` or `Gone`).
    Expired(Cause<E>),
    /// The server ended the watch with an `ERROR` event that is neither 410 nor 429.
    ErrorEvent(Box<Status>),
    /// The server answered 429 Too Many Requests.
    Throttled {
        /// How long the server asked the client to wait, when it said.
        retry_after: Option<Duration>,
        /// The answer or event that said it.
        cause: Cause<E>,
    },
    /// The store rejected the listed items, or a resync.
    Store(StoreError),
}

/// How an open watch broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum WatchBreak {
    /// The connection dropped mid-stream (reset, lost, cut by a proxy or a restarting server).
    Dropped,
    /// An event could not be decoded (broken JSON, an unknown event type, a frame over the size
    /// limit); nothing after it is applied.
    Malformed,
    /// A streaming list went `initial_events_timeout` without progress and without its end
    /// bookmark; the reflector uses list+watch from then on.
    Stalled,
    /// The watch ended within a second without an event (client-go's "very short watch").
    ClosedEarly,
}

/// Where an [`Expired`](Error::Expired) or [`Throttled`](Error::Throttled) failure came from.
#[derive(Debug)]
#[non_exhaustive]
pub enum Cause<E> {
    /// The answer to the watch request, or an error its stream yielded.
    Response(E),
    /// An `ERROR` event on an open watch.
    Event(Box<Status>),
}

impl<E: ApiError> Cause<E> {
    fn status(&self) -> Option<&Status> {
        match self {
            Self::Response(err) => err.status(),
            Self::Event(status) => Some(status),
        }
    }
}

impl<E: ApiError> Error<E> {
    /// The answer to a watch request that was not a watch.
    pub(crate) fn from_watch_request(err: E) -> Self {
        if err.is_expired() {
            Self::Expired(Cause::Response(err))
        } else if err.is_too_many_requests() {
            Self::Throttled {
                retry_after: err.retry_after(),
                cause: Cause::Response(err),
            }
        } else {
            Self::WatchOpen(err)
        }
    }

    /// An error yielded by an open watch's stream.
    pub(crate) fn from_stream(err: E) -> Self {
        if err.is_expired() || err.is_too_many_requests() {
            return Self::from_watch_request(err);
        }
        let how = if err.is_transport() || err.is_server_error() {
            WatchBreak::Dropped
        } else {
            WatchBreak::Malformed
        };
        Self::WatchBroken {
            how,
            source: Some(err),
        }
    }

    /// An `ERROR` event.
    pub(crate) fn from_event(status: Box<Status>) -> Self {
        if is_expired_status(&status) {
            Self::Expired(Cause::Event(status))
        } else if status.code == Some(429) || status.reason.as_deref() == Some("TooManyRequests") {
            let retry_after = status
                .details
                .as_ref()
                .and_then(|d| d.retry_after_seconds)
                .and_then(|s| u64::try_from(s).ok())
                .filter(|s| *s > 0)
                .map(Duration::from_secs);
            Self::Throttled {
                retry_after,
                cause: Cause::Event(status),
            }
        } else {
            Self::ErrorEvent(status)
        }
    }

    pub(crate) fn broken(how: WatchBreak) -> Self {
        Self::WatchBroken { how, source: None }
    }

    /// True when the resourceVersion expired: [`Expired`](Self::Expired), or a list that failed
    /// with 410.
    pub fn is_expired(&self) -> bool {
        match self {
            Self::Expired(_) => true,
            Self::List(err) => ApiError::is_expired(err),
            Self::WatchOpen(err) => err.is_expired(),
            _ => false,
        }
    }

    /// The server's `Status`, when the failure carries one (an error answer or an `ERROR` event).
    pub fn status(&self) -> Option<&Status> {
        match self {
            Self::List(err) => err.status(),
            Self::WatchOpen(err) => err.status(),
            Self::WatchBroken { source, .. } => source.as_ref().and_then(ApiError::status),
            Self::Expired(cause) | Self::Throttled { cause, .. } => cause.status(),
            Self::ErrorEvent(status) => Some(status),
            Self::Store(_) => None,
        }
    }

    /// How long the server asked the client to wait, when it said.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::Throttled { retry_after, .. } => *retry_after,
            Self::List(err) => err.retry_after(),
            Self::WatchOpen(err) => err.retry_after(),
            _ => None,
        }
    }
}

impl<E: ApiError> fmt::Display for Error<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::List(_) => f.write_str("list failed"),
            Self::WatchOpen(_) => f.write_str("opening a watch failed"),
            Self::WatchBroken { how, .. } => write!(f, "the watch broke: {how}"),
            Self::Expired(_) => f.write_str("the watch's resourceVersion expired"),
            Self::ErrorEvent(status) => {
                let code = status.code.unwrap_or(0);
                let message = status.message.as_deref().unwrap_or("");
                if is_too_large_resource_version_status(status) {
                    write!(
                        f,
                        "the watch's resourceVersion is too large ({code}): {message}"
                    )
                } else {
                    write!(
                        f,
                        "the server ended the watch with an error ({code}): {message}"
                    )
                }
            }
            Self::Throttled {
                retry_after: Some(after),
                ..
            } => write!(
                f,
                "the server throttled the watch (429, retry after {after:?})"
            ),
            Self::Throttled { .. } => f.write_str("the server throttled the watch (429)"),
            Self::Store(_) => f.write_str("the store rejected the list result or a resync"),
        }
    }
}

impl fmt::Display for WatchBreak {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Dropped => "the connection dropped",
            Self::Malformed => "an event could not be decoded",
            Self::Stalled => "the stream stalled before its initial events ended",
            Self::ClosedEarly => "it closed within a second without events",
        })
    }
}

impl<E: ApiError> std::error::Error for Error<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::List(err) => Some(err),
            Self::WatchOpen(err)
            | Self::WatchBroken {
                source: Some(err), ..
            }
            | Self::Expired(Cause::Response(err))
            | Self::Throttled {
                cause: Cause::Response(err),
                ..
            } => Some(err),
            Self::Store(err) => Some(err),
            _ => None,
        }
    }
}
