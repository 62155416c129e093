//! Reflector + ListWatch against the in-process simulator: with every fault kind injected while
//! churn runs, once the faults stop the store must equal the simulator's ground truth — for
//! list+watch and for streaming lists, with and without a label selector.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kinformer_core::{Backoff, Object, Store, StoreError, object_key};
use kinformer_listwatch::ListWatch;
use kinformer_reflector::{Config, Counters, Reflector};
use kinformer_rest::Client;
use kinformer_sim::{Churn, Compaction, DropMode, Fault, FaultKind, Sim, SimHandle, wait_until};

/// The longest any wait on the reflector may take before the test fails: generous, since it
/// is only reached when something is wrong and a loaded machine is slow.
const LIMIT: Duration = Duration::from_secs(60);

/// A plain map store, with a log of what happened to each key (for failure reports).
struct MapStore<K = Pod>(Mutex<HashMap<String, Arc<K>>>, Mutex<Vec<String>>);

impl<K> Default for MapStore<K> {
    fn default() -> Self {
        Self(Mutex::default(), Mutex::default())
    }
}

impl<K: Object> MapStore<K> {
    fn snapshot(&self) -> BTreeMap<String, String> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .map(|(k, p)| (k.clone(), p.resource_version().unwrap_or("").to_owned()))
            .collect()
    }
}

impl<K: Object> MapStore<K> {
    fn log(&self, what: &str, obj: &K) {
        self.1.lock().unwrap().push(format!(
            "{what} {} {}",
            object_key(obj),
            obj.resource_version().unwrap_or("")
        ));
    }
}

impl<K: Object> Store<K> for MapStore<K> {
    fn add(&self, obj: Arc<K>) -> Result<(), StoreError> {
        self.log("add", &obj);
        self.0.lock().unwrap().insert(object_key(obj.as_ref()), obj);
        Ok(())
    }
    fn update(&self, obj: Arc<K>) -> Result<(), StoreError> {
        self.log("update", &obj);
        self.0.lock().unwrap().insert(object_key(obj.as_ref()), obj);
        Ok(())
    }
    fn delete(&self, obj: Arc<K>) -> Result<(), StoreError> {
        self.log("delete", &obj);
        self.0.lock().unwrap().remove(&object_key(obj.as_ref()));
        Ok(())
    }
    fn update_resource_version(&self, rv: &str) {
        self.1.lock().unwrap().push(format!("rv {rv}"));
    }
    fn replace(&self, list: Vec<Arc<K>>, rv: &str) -> Result<(), StoreError> {
        self.1
            .lock()
            .unwrap()
            .push(format!("replace {} items at {rv}", list.len()));
        let mut objects = BTreeMap::new();
        for p in list {
            objects.insert(object_key(p.as_ref()), p);
        }
        *self.0.lock().unwrap() = objects.into_iter().collect();
        Ok(())
    }
    fn resync(&self) -> Result<(), StoreError> {
        Ok(())
    }
}

/// The simulator's pods (key -> resourceVersion), those with `tier=<tier>` when given.
async fn ground_truth(sim: &SimHandle, tier: Option<&str>) -> BTreeMap<String, String> {
    let mut truth = sim.versions("pods").await.unwrap();
    if let Some(tier) = tier {
        // `versions` has no labels: keep the keys whose summary carries the tier.
        let state = sim.state("pods", true).await.unwrap();
        let keep: BTreeSet<String> = state
            .items
            .iter()
            .filter(|item| item["labels"]["tier"] == tier)
            .map(|item| {
                format!(
                    "{}/{}",
                    item["namespace"].as_str().unwrap(),
                    item["name"].as_str().unwrap()
                )
            })
            .collect();
        truth.retain(|key, _| keep.contains(key));
    }
    truth
}

/// Every fault kind, each followed by the watch drop that makes the reflector send the request
/// the fault applies to.
fn fault_plan() -> Vec<(Vec<Fault>, DropMode)> {
    let watch = |kind| Fault::new(kind).verbs(["watch"]);
    let any = Fault::new;
    let plan = vec![
        (any(FaultKind::status(429)).count(2), DropMode::Clean),
        (
            any(FaultKind::Status {
                code: 429,
                retry_after: None,
                plain_text: true,
                message: None,
            }),
            DropMode::Abrupt,
        ),
        (any(FaultKind::status(500)), DropMode::Clean),
        (any(FaultKind::status(503)), DropMode::Error410),
        // A rejected watch (streaming or not) makes the reflector list, and that list expires.
        (
            any(FaultKind::status(422)).verbs(["watch"]).count(2),
            DropMode::Error410,
        ),
        (
            any(FaultKind::status(410)).verbs(["list"]),
            DropMode::Error410,
        ),
        (
            any(FaultKind::status(410)).verbs(["watch"]),
            DropMode::Clean,
        ),
        (any(FaultKind::TooLarge), DropMode::Error410),
        (
            any(FaultKind::Delay { seconds: 0.3 }).count(2),
            DropMode::Malformed,
        ),
        (
            watch(FaultKind::WatchDrop { after_events: 3 }),
            DropMode::Clean,
        ),
        (
            watch(FaultKind::WatchClose { after_events: 2 }),
            DropMode::Clean,
        ),
        (
            watch(FaultKind::WatchMalformed { after_events: 2 }),
            DropMode::Clean,
        ),
        (
            watch(FaultKind::WatchStall {
                after_events: 1,
                seconds: 0.5,
            }),
            DropMode::Clean,
        ),
        (
            watch(FaultKind::WatchError {
                after_events: 2,
                code: 410,
            }),
            DropMode::Clean,
        ),
        (
            watch(FaultKind::WatchError {
                after_events: 1,
                code: 500,
            }),
            DropMode::Abrupt,
        ),
        (
            watch(FaultKind::WatchError {
                after_events: 0,
                code: 429,
            }),
            DropMode::Clean,
        ),
    ];
    // Faults that go together are added together.
    let mut grouped: Vec<(Vec<Fault>, DropMode)> = Vec::new();
    for (fault, drop) in plan {
        let joins_previous = fault.verbs == ["list"];
        match grouped.last_mut() {
            Some((faults, _)) if joins_previous => faults.push(fault),
            _ => grouped.push((vec![fault], drop)),
        }
    }
    grouped
}

async fn converge(streaming: bool, tier: Option<&str>, seed: u64) {
    let sim = Sim::builder()
        .pods(300)
        .namespaces(3)
        .seed(seed)
        .bookmark_interval(Duration::from_millis(500))
        .start()
        .await
        .unwrap();
    let client = Client::new(sim.service());
    let mut lw = ListWatch::<Pod, _>::for_type(client);
    if let Some(tier) = tier {
        lw = lw.with_label_selector(format!("tier={tier}")).unwrap();
    }
    if !streaming {
        lw = lw.with_streaming_list(false);
    }
    let store = Arc::new(MapStore::default());
    let counters = Arc::new(Counters::default());
    // Fast backoff: the timing rules are tested on a paused clock; here only the outcome counts.
    let backoff = Backoff::REFLECTOR
        .with_initial(Duration::from_millis(50))
        .with_cap(Duration::from_millis(400))
        .with_reset_after(Duration::from_secs(120));
    let config = Config::default().with_seed(seed).with_backoff(backoff);
    let reflector = Reflector::new(lw, Arc::clone(&store), config)
        .metrics(counters.clone())
        .watch_error_handler(|_| {});
    let task = tokio::spawn(reflector.run());

    sim.churn_start(Churn::new(200.0).seed(seed)).await.unwrap();
    wait_until("the reflector watches", LIMIT, || async {
        sim.stats().await.open_watches > 0
    })
    .await;
    for (i, (fault, drop)) in fault_plan().into_iter().enumerate() {
        let what = format!("fault {i} fired ({fault:?})");
        sim.add_faults(fault).await;
        if i == 7 {
            // Compaction: a resume from an old revision must now relist.
            sim.compact(Compaction::all()).await;
        }
        // Drop the open watch (again, if the reflector was between watches) until the
        // reflector's next request has consumed the fault; a drop every 50 ms at most leaves
        // the reflector time to send that request.
        wait_until(&what, LIMIT, || async {
            sim.drop_watches(drop.clone()).await;
            tokio::time::sleep(Duration::from_millis(50)).await;
            sim.faults().await.is_empty()
        })
        .await;
        sim.clear_faults().await;
        // Pacing, not a gate: the reflector recovers a little before the next fault.
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // A stalled stream is not an error: nothing to consume, the watch just carries on.
    sim.drop_watches(DropMode::Stall { seconds: 0.3 }).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let churned = sim.churn_status().await.done;
    sim.churn_stop().await;

    // Churn may land a last write or two after `churn_stop` returns: re-read the truth each time.
    // The wait ends at the first match; past the limit the comparison below reports the
    // difference.
    let deadline = tokio::time::Instant::now() + LIMIT;
    let mut expected = ground_truth(&sim, tier).await;
    let mut got = store.snapshot();
    while got != expected && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
        expected = ground_truth(&sim, tier).await;
        got = store.snapshot();
    }
    task.abort();
    let snap = counters.snapshot();
    let requests = sim.requests().await;
    let streaming_requests = requests
        .iter()
        .filter(|r| r.path.contains("sendInitialEvents=true"))
        .count();
    let failed = requests.iter().filter(|r| r.status >= 400).count();
    eprintln!(
        "streaming={streaming} tier={tier:?}: {} objects; lists {} (relists {}), watches {}, short {}, events {}; sim saw {} requests ({streaming_requests} streaming, {failed} failed); {churned} writes",
        expected.len(),
        snap.lists,
        snap.relists,
        snap.watches,
        snap.short_watches,
        snap.events,
        requests.len()
    );
    assert_eq!(streaming_requests > 0, streaming);
    assert!(failed >= 5, "the faults reached the reflector");
    assert!(!expected.is_empty());
    let missing: Vec<_> = expected.keys().filter(|k| !got.contains_key(*k)).collect();
    let stale: Vec<_> = got.keys().filter(|k| !expected.contains_key(*k)).collect();
    let differ: Vec<_> = expected
        .iter()
        .filter(|(k, v)| got.get(*k).is_some_and(|g| g != *v))
        .collect();
    if !(missing.is_empty() && stale.is_empty() && differ.is_empty()) {
        for r in &requests {
            eprintln!("request {} {}", r.status, r.path);
        }
        let log = store.1.lock().unwrap();
        let tail = log.len().saturating_sub(60);
        for line in &log[tail..] {
            eprintln!("store {line}");
        }
        for key in stale.iter().chain(differ.iter().map(|(k, _)| k)) {
            let seen: Vec<_> = log.iter().filter(|l| l.contains(key.as_str())).collect();
            eprintln!(
                "{key}: expected {:?}, store saw {seen:?}",
                expected.get(*key)
            );
        }
    }
    assert!(
        missing.is_empty() && stale.is_empty() && differ.is_empty(),
        "not converged within {LIMIT:?}: missing {missing:?}, deleted but kept {stale:?}, outdated {differ:?}"
    );
    assert!(snap.relists >= 3, "the faults forced relists");
}

/// List+watch: after every fault kind under churn, the store equals the sim's pods
/// (client-go reflector: relist on 410/expired, back off and retry on other errors).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_watch_converges_under_every_fault() {
    converge(false, None, 1).await;
}

/// List+watch with `tier=frontend`: after every fault kind the store holds exactly the sim's
/// matching pods, at their current resourceVersions.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_watch_with_label_selector_converges_under_every_fault() {
    converge(false, Some("frontend"), 2).await;
}

/// Streaming list (`sendInitialEvents=true`, WatchList): after every fault kind under churn,
/// the store equals the sim's pods.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streaming_list_converges_under_every_fault() {
    converge(true, None, 3).await;
}

/// Streaming list with `tier=frontend`: after every fault kind the store holds exactly the
/// sim's matching pods.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streaming_list_with_label_selector_converges_under_every_fault() {
    converge(true, Some("frontend"), 4).await;
}

/// With every request failing for five minutes (simulated time), the reflector's request rate
/// settles to one round per 30-60 s: no relist storm.
#[tokio::test(start_paused = true)]
async fn a_failing_server_sees_a_bounded_request_rate() {
    for streaming in [false, true] {
        let sim = Sim::builder().pods(10).start().await.unwrap();
        sim.add_faults([Fault::new(FaultKind::status(503)).count(-1)])
            .await;
        let mut lw = ListWatch::<Pod, _>::for_type(Client::new(sim.service()));
        if !streaming {
            lw = lw.with_streaming_list(false);
        }
        let store = Arc::new(MapStore::default());
        Reflector::new(lw, store, Config::default().with_seed(5))
            .watch_error_handler(|_| {})
            .run_until(tokio::time::sleep(Duration::from_secs(300)))
            .await;
        let requests = sim.requests().await;
        // A 503 is retried as it was (a streaming list stays a streaming list): one request a round.
        let rounds = requests.len();
        eprintln!(
            "streaming={streaming}: {} requests in 300 s ({:.3}/s)",
            requests.len(),
            requests.len() as f64 / 300.0
        );
        assert!(requests.iter().all(|r| r.status == 503));
        // client-go's schedule: six growing delays (about 76 s), then one every 30-60 s.
        assert!((8..=16).contains(&rounds), "{rounds} rounds");
    }
}

/// Dynamic objects work end to end, and the kind check accepts the server's objects.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dynamic_objects_sync_and_follow_churn() {
    use kinformer_core::{ApiResource, DynamicObject, Scope};

    let sim = Sim::builder()
        .pods(50)
        .namespaces(2)
        .seed(9)
        .start()
        .await
        .unwrap();
    let pods = ApiResource::new("", "v1", "Pod", "pods", Scope::Namespaced);
    let lw = ListWatch::<DynamicObject, _>::from_client(Client::new(sim.service()), pods);
    let store = Arc::new(MapStore::<DynamicObject>::default());
    let reflector = Reflector::new(lw, Arc::clone(&store), Config::default().with_seed(9))
        .type_check(kinformer_reflector::expect_kind("v1", "Pod"));
    let task = tokio::spawn(reflector.run());
    sim.churn_start(Churn::new(100.0).count(200).seed(9))
        .await
        .unwrap();
    wait_until("the dynamic store matches the server", LIMIT, || async {
        !sim.churn_status().await.running && store.snapshot() == ground_truth(&sim, None).await
    })
    .await;
    task.abort();
}
