use std::sync::Mutex as StdMutex;
use std::time::Duration;

use http_body_util::{BodyExt, StreamBody};
use tokio::sync::mpsc;

use super::*;

/// How a fake lane's connection behaves.
#[derive(Clone, Copy)]
enum Server {
    /// HTTP/2 with this stream limit, reported after a moment (as SETTINGS arrive).
    H2(u32),
    /// HTTP/1.1.
    H1,
    /// Every dial fails.
    Refuses,
}

/// The open ends of the fake responses' bodies: dropping one ends its body.
type BodyEnds = Arc<StdMutex<Vec<mpsc::Sender<Result<Frame<Bytes>, BoxError>>>>>;

/// A pool of fake lanes: each request gets a body that stays open until the test ends it.
struct Harness {
    pool: Pool,
    service: HttpService,
    ends: BodyEnds,
    server: Arc<StdMutex<Server>>,
}

impl Harness {
    fn new(server: Server) -> Self {
        let ends: BodyEnds = Arc::default();
        let server = Arc::new(StdMutex::new(server));
        let pool = Pool::new({
            let ends = Arc::clone(&ends);
            let server = Arc::clone(&server);
            move |capacity: Arc<Capacity>| {
                let ends = Arc::clone(&ends);
                let server = Arc::clone(&server);
                HttpService::new(tower::service_fn(move |_req: http::Request<Body>| {
                    let ends = Arc::clone(&ends);
                    let capacity = Arc::clone(&capacity);
                    let server = *server.lock().unwrap();
                    async move {
                        tokio::time::sleep(Duration::from_millis(10)).await;
                        match server {
                            Server::H2(limit) => {
                                capacity.h2_settings(StreamLimit::Set(limit), true);
                            }
                            Server::H1 => capacity.http1(),
                            Server::Refuses => return Err::<_, BoxError>("refused".into()),
                        }
                        let (tx, rx) = mpsc::channel(1);
                        ends.lock().unwrap().push(tx);
                        let stream = futures_util::stream::unfold(rx, |mut rx| async move {
                            rx.recv().await.map(|frame| (frame, rx))
                        });
                        Ok(http::Response::new(boxed(StreamBody::new(stream))))
                    }
                }))
            }
        });
        let service = pool.clone().into_service();
        Self {
            pool,
            service,
            ends,
            server,
        }
    }

    /// Starts `n` requests at once and waits until all have their response headers.
    async fn open(&self, n: usize) -> Vec<http::Response<ResponseBody>> {
        let calls = (0..n).map(|_| {
            self.service
                .clone()
                .oneshot(http::Request::new(Body::empty()))
        });
        futures_util::future::try_join_all(calls).await.unwrap()
    }

    fn end_all_bodies(&self) {
        self.ends.lock().unwrap().clear();
    }
}

#[tokio::test(start_paused = true)]
async fn requests_past_a_connections_limit_open_just_enough_lanes() {
    let harness = Harness::new(Server::H2(100));
    let open = harness.open(250).await;
    assert_eq!(harness.pool.lanes(), 3, "ceil(250 / 100)");
    let loads: Vec<usize> = harness.shared_loads();
    assert!(loads.iter().all(|&n| n <= 100), "{loads:?}");
    drop(open);
}

#[tokio::test(start_paused = true)]
async fn requests_starting_together_wait_for_the_first_connection() {
    let harness = Harness::new(Server::H2(1000));
    let _open = harness.open(300).await;
    assert_eq!(
        harness.pool.lanes(),
        1,
        "one dial while the first is set up"
    );
}

#[tokio::test(start_paused = true)]
async fn an_ended_response_gives_its_place_back() {
    let harness = Harness::new(Server::H2(2));
    let open = harness.open(2).await;
    assert_eq!(harness.pool.lanes(), 1);
    // A body read to its end frees its place, like a dropped one.
    harness.end_all_bodies();
    for response in open {
        let collected = response.into_body().collect().await.unwrap();
        assert!(collected.to_bytes().is_empty());
    }
    let _again = harness.open(2).await;
    assert_eq!(harness.pool.lanes(), 1, "the freed places were reused");
}

#[tokio::test(start_paused = true)]
async fn a_new_request_goes_to_the_least_busy_lane() {
    let harness = Harness::new(Server::H2(3));
    let first = harness.open(3).await;
    let second = harness.open(3).await;
    assert_eq!(harness.pool.lanes(), 2);
    drop(first);
    drop(second);
    // Both lanes are empty now; new requests spread over them before either fills.
    let _spread = harness.open(2).await;
    assert_eq!(harness.shared_loads(), [1, 1]);
}

#[tokio::test(start_paused = true)]
async fn http1_lanes_take_any_number_of_requests() {
    let harness = Harness::new(Server::H1);
    let _open = harness.open(400).await;
    assert_eq!(harness.pool.lanes(), 1);
}

#[tokio::test(start_paused = true)]
async fn a_failed_dial_lets_the_next_request_dial_the_same_lane() {
    let harness = Harness::new(Server::Refuses);
    let failed = harness
        .service
        .clone()
        .oneshot(http::Request::new(Body::empty()))
        .await;
    assert!(failed.is_err());
    *harness.server.lock().unwrap() = Server::H2(100);
    let _open = harness.open(5).await;
    assert_eq!(
        harness.pool.lanes(),
        1,
        "the lane is dialled again, not a new one"
    );
}

#[test]
fn a_zero_limit_still_lets_one_request_through() {
    let capacity = Capacity {
        in_flight: AtomicUsize::new(0),
        limit: AtomicUsize::new(UNKNOWN),
        changed: Arc::new(Notify::new()),
    };
    capacity.h2_settings(StreamLimit::Set(0), true);
    assert_eq!(capacity.limit.load(Ordering::Relaxed), 1);
    capacity.h2_settings(StreamLimit::Unchanged, false);
    assert_eq!(
        capacity.limit.load(Ordering::Relaxed),
        1,
        "a later frame keeps it"
    );
    capacity.h2_settings(StreamLimit::Set(7), false);
    assert_eq!(capacity.limit.load(Ordering::Relaxed), 7);
}

#[test]
fn settings_without_a_limit_mean_gos_default() {
    let capacity = Capacity {
        in_flight: AtomicUsize::new(0),
        limit: AtomicUsize::new(UNKNOWN),
        changed: Arc::new(Notify::new()),
    };
    capacity.h2_settings(StreamLimit::Unchanged, true);
    assert_eq!(capacity.limit.load(Ordering::Relaxed), UNSPECIFIED_H2_LIMIT);
}

impl Harness {
    fn shared_loads(&self) -> Vec<usize> {
        self.pool
            .shared
            .lanes
            .lock()
            .unwrap()
            .iter()
            .map(|lane| lane.capacity.in_flight.load(Ordering::Relaxed))
            .collect()
    }
}
