//! [`Pool`]: a client's connections to its server, as many as the server's stream limit asks for.
//!
//! An API server takes a bounded number of concurrent streams per HTTP/2 connection
//! (kube-apiserver: 100), and every watch holds one for minutes. A request past the limit would
//! wait inside the full connection, so requests are placed on lanes instead: a lane is one
//! hyper-util client with its own dial turns ([`SingleH2`](super::single_h2::SingleH2)), so it
//! holds one HTTP/2 connection at a time, or any number of HTTP/1.1 ones. A request goes to the
//! least busy lane below its connection's limit; when every lane is full a new lane dials, as Go's
//! transport opens another connection. While a lane's first connection is being set up (its limit
//! not yet known) requests wait for it rather than dial again, so requests that start together
//! share one connection until it is full. A request holds its place until its response body ends
//! or is dropped: a watch, for its whole life.

use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Frame, SizeHint};
use tokio::sync::Notify;
use tower::ServiceExt;

use super::h2_settings::StreamLimit;
use crate::body::{Body, ResponseBody, boxed};
use crate::client::HttpService;
use crate::error::BoxError;

/// A lane whose connection has not reported yet.
const UNKNOWN: usize = 0;
/// HTTP/1.1: hyper-util opens a connection per concurrent request.
const UNLIMITED: usize = usize::MAX;
/// What Go's transport assumes when a server's SETTINGS name no stream limit.
const UNSPECIFIED_H2_LIMIT: usize = 1000;

/// Builds the hyper-util client of a new lane, whose connections report to `capacity`.
type NewLane = Box<dyn Fn(Arc<Capacity>) -> HttpService + Send + Sync>;

/// The lanes of one client; cloning shares them.
#[derive(Clone)]
pub(crate) struct Pool {
    shared: Arc<Shared>,
}

struct Shared {
    new_lane: NewLane,
    lanes: Mutex<Vec<Lane>>,
    /// Signalled when a lane learns its limit or a request leaves one.
    changed: Arc<Notify>,
}

struct Lane {
    service: HttpService,
    capacity: Arc<Capacity>,
}

/// How many requests a lane carries, and how many its connection takes.
#[derive(Debug)]
pub(crate) struct Capacity {
    in_flight: AtomicUsize,
    limit: AtomicUsize,
    changed: Arc<Notify>,
}

impl Capacity {
    /// The lane's connection speaks HTTP/1.1.
    pub(crate) fn http1(&self) {
        self.set(UNLIMITED);
    }

    /// The lane's HTTP/2 connection received SETTINGS (`first`: its first).
    pub(crate) fn h2_settings(&self, limit: StreamLimit, first: bool) {
        match limit {
            // A limit of zero would leave the lane unusable and make every request dial anew.
            StreamLimit::Set(n) => self.set(usize::try_from(n).unwrap_or(UNLIMITED).max(1)),
            StreamLimit::Unchanged if first => self.set(UNSPECIFIED_H2_LIMIT),
            StreamLimit::Unchanged => {}
        }
    }

    fn set(&self, limit: usize) {
        let old = self.limit.swap(limit, Ordering::AcqRel);
        if old != limit {
            self.changed.notify_waiters();
        }
    }
}

impl Pool {
    pub(crate) fn new(
        new_lane: impl Fn(Arc<Capacity>) -> HttpService + Send + Sync + 'static,
    ) -> Self {
        Self {
            shared: Arc::new(Shared {
                new_lane: Box::new(new_lane),
                lanes: Mutex::new(Vec::new()),
                changed: Arc::new(Notify::new()),
            }),
        }
    }

    /// The pool as the client's transport.
    pub(crate) fn into_service(self) -> HttpService {
        HttpService::new(tower::service_fn(move |req: http::Request<Body>| {
            let shared = Arc::clone(&self.shared);
            async move {
                let (service, place) = shared.checkout().await;
                let response = service.oneshot(req).await?;
                Ok::<_, BoxError>(response.map(|body| {
                    boxed(Held {
                        body,
                        place: Some(place),
                    })
                }))
            }
        }))
    }

    #[cfg(test)]
    fn lanes(&self) -> usize {
        self.shared
            .lanes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

impl Shared {
    async fn checkout(&self) -> (HttpService, Place) {
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            // Registered before the lanes are read, so no change is missed in between.
            changed.as_mut().enable();
            if let Some(placed) = self.place() {
                return placed;
            }
            changed.await;
        }
    }

    /// The least busy lane with room, a lane to dial, or `None` while one is being set up.
    fn place(&self) -> Option<(HttpService, Place)> {
        let mut lanes = self.lanes.lock().unwrap_or_else(PoisonError::into_inner);
        let mut roomiest: Option<(usize, usize)> = None;
        let mut idle_unknown = None;
        let mut setting_up = false;
        for (index, lane) in lanes.iter().enumerate() {
            let in_flight = lane.capacity.in_flight.load(Ordering::Acquire);
            match lane.capacity.limit.load(Ordering::Acquire) {
                // Never connected, or its dial failed: the next request dials it.
                UNKNOWN if in_flight == 0 => idle_unknown = idle_unknown.or(Some(index)),
                UNKNOWN => setting_up = true,
                limit
                    if in_flight < limit && roomiest.is_none_or(|(_, least)| in_flight < least) =>
                {
                    roomiest = Some((index, in_flight));
                }
                _ => {}
            }
        }
        let index = match (roomiest, idle_unknown) {
            (Some((index, _)), _) | (None, Some(index)) => index,
            (None, None) if setting_up => return None,
            (None, None) => {
                let capacity = Arc::new(Capacity {
                    in_flight: AtomicUsize::new(0),
                    limit: AtomicUsize::new(UNKNOWN),
                    changed: Arc::clone(&self.changed),
                });
                let service = (self.new_lane)(Arc::clone(&capacity));
                lanes.push(Lane { service, capacity });
                lanes.len() - 1
            }
        };
        let lane = &lanes[index];
        lane.capacity.in_flight.fetch_add(1, Ordering::AcqRel);
        Some((
            lane.service.clone(),
            Place {
                capacity: Arc::clone(&lane.capacity),
            },
        ))
    }
}

/// A request's place on a lane, given back when dropped.
struct Place {
    capacity: Arc<Capacity>,
}

impl Drop for Place {
    fn drop(&mut self) {
        self.capacity.in_flight.fetch_sub(1, Ordering::AcqRel);
        self.capacity.changed.notify_waiters();
    }
}

/// A response body that keeps its request's place until it ends or is dropped.
#[pin_project::pin_project]
struct Held {
    #[pin]
    body: ResponseBody,
    place: Option<Place>,
}

impl http_body::Body for Held {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let this = self.project();
        let frame = this.body.poll_frame(cx);
        if matches!(frame, Poll::Ready(None | Some(Err(_)))) {
            this.place.take();
        }
        frame
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests;
