//! The network between the candidates and the simulated API server: partitions, lost
//! requests, late answers, and restarts that cut the requests in flight.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use kinformer_sim::{SimBody, SimService};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tokio::sync::oneshot;
use tokio::task::AbortHandle;
use tokio::time::{Instant, sleep};

use crate::{CANDIDATES, lock};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The network between the candidates and the API server, and the server's connections.
#[derive(Debug)]
pub(crate) struct Network {
    rng: SmallRng,
    /// Per candidate: requests wait until then before they reach the server (a partition).
    pub(crate) partitioned_until: [Instant; CANDIDATES],
    /// Per candidate: until then, a request may be lost on its way to the server, or served
    /// at once and answered up to 12 s later.
    pub(crate) lossy_until: [Instant; CANDIDATES],
    /// A restart: connections are refused until then.
    down_until: Instant,
    /// Up to 300 ms per direction while the faults last.
    latency: bool,
    in_flight: Vec<AbortHandle>,
}

/// What becomes of one request.
enum Fate {
    Lost,
    Served {
        wait: Duration,
        answer_after: Duration,
    },
}

impl Network {
    pub(crate) fn new(seed: u64) -> Self {
        let now = Instant::now();
        Self {
            rng: SmallRng::seed_from_u64(seed),
            partitioned_until: [now; CANDIDATES],
            lossy_until: [now; CANDIDATES],
            down_until: now,
            latency: true,
            in_flight: Vec::new(),
        }
    }

    fn fate(&mut self, who: usize) -> Fate {
        let now = Instant::now();
        let most = if self.latency { 300 } else { 0 };
        let mut wait = Duration::from_millis(self.rng.random_range(0..=most));
        let mut answer_after = Duration::from_millis(self.rng.random_range(0..=most));
        wait += self.partitioned_until[who].saturating_duration_since(now);
        if self.lossy_until[who] > now {
            match self.rng.random_range(0..10) {
                0..3 => return Fate::Lost,
                3..6 => answer_after += Duration::from_millis(self.rng.random_range(0..12_000)),
                _ => {}
            }
        }
        Fate::Served { wait, answer_after }
    }

    /// The server restarts: every request in flight is cut, served or not.
    pub(crate) fn restart(&mut self, down: Duration) {
        self.in_flight.drain(..).for_each(|request| request.abort());
        self.down_until = Instant::now() + down;
    }

    /// The faults end.
    pub(crate) fn heal(&mut self) {
        let now = Instant::now();
        self.partitioned_until = [now; CANDIDATES];
        self.lossy_until = [now; CANDIDATES];
        self.latency = false;
    }
}

/// One candidate's connection to the sim. Each request is served by a task of its own, so a
/// client that gives up does not stop a write the server already has (it may still land).
#[derive(Clone, Debug)]
pub(crate) struct Link {
    pub(crate) sim: SimService,
    pub(crate) network: Arc<Mutex<Network>>,
    pub(crate) who: usize,
}

impl tower_service::Service<http::Request<kinformer_rest::Body>> for Link {
    type Response = http::Response<SimBody>;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, BoxError>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<kinformer_rest::Body>) -> Self::Future {
        let Self {
            mut sim,
            network,
            who,
        } = self.clone();
        Box::pin(async move {
            let fate = {
                let mut network = lock(&network);
                if network.down_until > Instant::now() {
                    return Err("connection refused".into());
                }
                network.fate(who)
            };
            let (wait, answer_after) = match fate {
                // The client waits until it gives up.
                Fate::Lost => return std::future::pending().await,
                Fate::Served { wait, answer_after } => (wait, answer_after),
            };
            let (answer, answered) = oneshot::channel();
            let served = tokio::spawn(async move {
                sleep(wait).await;
                let response = tower_service::Service::call(&mut sim, request).await;
                sleep(answer_after).await;
                let _ = answer.send(response);
            });
            {
                let mut network = lock(&network);
                network.in_flight.retain(|request| !request.is_finished());
                network.in_flight.push(served.abort_handle());
            }
            match answered.await {
                Ok(response) => response.map_err(Into::into),
                Err(_) => Err("connection reset by the restart".into()),
            }
        })
    }
}
