//! Tests of the basic work queue: blocking, shutdown, drain, metrics and concurrent workers.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::*;

/// Lets every spawned task run until it blocks (paused time auto-advances only when idle).
async fn settle() {
    for _ in 0..10 {
        tokio::task::yield_now().await;
    }
}

#[tokio::test(start_paused = true)]
async fn get_waits_for_an_add() {
    let queue = Queue::new();
    let getter = tokio::spawn({
        let queue = queue.clone();
        async move { queue.get().await }
    });
    settle().await;
    assert!(!getter.is_finished());
    queue.add(7);
    assert_eq!(getter.await.unwrap(), Some(7));
}

#[tokio::test(start_paused = true)]
async fn items_come_out_in_add_order() {
    let queue = Queue::new();
    for i in [3, 1, 2, 1, 3] {
        queue.add(i);
    }
    assert_eq!(queue.len(), 3);
    assert_eq!(queue.get().await, Some(3));
    assert_eq!(queue.get().await, Some(1));
    assert_eq!(queue.get().await, Some(2));
    assert!(queue.is_empty());
}

#[tokio::test(start_paused = true)]
async fn re_added_item_is_processed_again_after_done() {
    let queue = Queue::new();
    queue.add("a");
    let item = queue.get().await.unwrap();
    queue.add("a");
    queue.add("a");
    assert_eq!(queue.len(), 0, "not handed out while processing");
    let second = tokio::spawn({
        let queue = queue.clone();
        async move { queue.get().await }
    });
    settle().await;
    assert!(!second.is_finished());
    queue.done(&item);
    assert_eq!(second.await.unwrap(), Some("a"));
    queue.done(&"a");
    assert!(queue.is_empty());
}

#[tokio::test(start_paused = true)]
async fn shutdown_wakes_every_waiter() {
    let queue: Queue<u32> = Queue::new();
    let waiters: Vec<_> = (0..3)
        .map(|_| {
            let queue = queue.clone();
            tokio::spawn(async move { queue.get().await })
        })
        .collect();
    settle().await;
    queue.shutdown();
    assert!(queue.is_shutting_down());
    for w in waiters {
        assert_eq!(w.await.unwrap(), None);
    }
    queue.add(1);
    assert_eq!(queue.len(), 0, "adds after shutdown are ignored");
}

#[tokio::test(start_paused = true)]
async fn queued_items_are_still_handed_out_after_shutdown() {
    let queue = Queue::new();
    queue.add(1);
    queue.add(2);
    queue.shutdown();
    assert_eq!(queue.get().await, Some(1));
    assert_eq!(queue.get().await, Some(2));
    assert_eq!(queue.get().await, None);
}

#[tokio::test(start_paused = true)]
async fn shutdown_with_drain_waits_for_processing_items() {
    let queue = Queue::new();
    queue.add(1);
    let item = queue.get().await.unwrap();
    let drain = tokio::spawn({
        let queue = queue.clone();
        async move { queue.shutdown_with_drain().await }
    });
    settle().await;
    assert!(!drain.is_finished(), "item 1 is still processing");
    queue.done(&item);
    drain.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn shutdown_with_drain_returns_at_once_when_idle() {
    let queue: Queue<u8> = Queue::new();
    queue.shutdown_with_drain().await;
    assert_eq!(queue.get().await, None);
}

#[tokio::test(start_paused = true)]
async fn plain_shutdown_overrides_a_pending_drain() {
    let queue = Queue::new();
    queue.add(1);
    let _held = queue.get().await.unwrap();
    let drain = tokio::spawn({
        let queue = queue.clone();
        async move { queue.shutdown_with_drain().await }
    });
    settle().await;
    assert!(!drain.is_finished());
    queue.shutdown();
    drain.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn cancelled_get_loses_no_item() {
    let queue = Queue::new();
    let cancelled = tokio::spawn({
        let queue = queue.clone();
        async move { queue.get().await }
    });
    settle().await;
    cancelled.abort();
    assert!(cancelled.await.unwrap_err().is_cancelled());
    let survivor = tokio::spawn({
        let queue = queue.clone();
        async move { queue.get().await }
    });
    settle().await;
    queue.add(5);
    assert_eq!(survivor.await.unwrap(), Some(5));
}

#[tokio::test(start_paused = true)]
async fn unfinished_work_tracks_held_items() {
    let queue = Queue::new();
    queue.add("a");
    let a = queue.get().await.unwrap();
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(
        queue.unfinished_work(),
        (Duration::from_secs(3), Duration::from_secs(3))
    );
    queue.done(&a);
    assert_eq!(queue.unfinished_work(), (Duration::ZERO, Duration::ZERO));
}

#[derive(Debug, Default)]
struct Recorded {
    adds: AtomicUsize,
    retries: AtomicUsize,
    depths: Mutex<Vec<usize>>,
    latencies: Mutex<Vec<Duration>>,
    work: Mutex<Vec<Duration>>,
}

impl QueueMetrics for Recorded {
    fn added(&self) {
        self.adds.fetch_add(1, Ordering::SeqCst);
    }
    fn depth(&self, depth: usize) {
        self.depths.lock().unwrap().push(depth);
    }
    fn queue_latency(&self, waited: Duration) {
        self.latencies.lock().unwrap().push(waited);
    }
    fn work_duration(&self, worked: Duration) {
        self.work.lock().unwrap().push(worked);
    }
    fn retry(&self) {
        self.retries.fetch_add(1, Ordering::SeqCst);
    }
}

#[tokio::test(start_paused = true)]
async fn metrics_hooks_see_adds_depth_latency_and_work() {
    let metrics = Arc::new(Recorded::default());
    let queue = Queue::with_config(
        QueueConfig::default()
            .with_name("m")
            .with_metrics(metrics.clone()),
    );
    queue.add("a");
    queue.add("a");
    queue.add("b");
    tokio::time::sleep(Duration::from_millis(250)).await;
    let a = queue.get().await.unwrap();
    tokio::time::sleep(Duration::from_millis(40)).await;
    queue.done(&a);
    assert_eq!(metrics.adds.load(Ordering::SeqCst), 2);
    assert_eq!(*metrics.depths.lock().unwrap(), vec![1, 2, 1]);
    assert_eq!(
        *metrics.latencies.lock().unwrap(),
        vec![Duration::from_millis(250)]
    );
    assert_eq!(
        *metrics.work.lock().unwrap(),
        vec![Duration::from_millis(40)]
    );
    assert_eq!(metrics.retries.load(Ordering::SeqCst), 0);
}

/// Several workers on a multi-threaded runtime, items re-added constantly: no item is ever held
/// by two workers at once, and every item is processed.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_workers_never_share_an_item() {
    const ITEMS: usize = 8;
    const ROUNDS: usize = 300;
    let queue: Queue<usize> = Queue::new();
    let in_flight: Arc<Vec<AtomicUsize>> =
        Arc::new((0..ITEMS).map(|_| AtomicUsize::new(0)).collect());
    let overlaps = Arc::new(AtomicUsize::new(0));
    let processed = Arc::new(Mutex::new(HashMap::<usize, usize>::new()));

    let workers: Vec<_> = (0..6)
        .map(|_| {
            let (queue, in_flight, overlaps, processed) = (
                queue.clone(),
                in_flight.clone(),
                overlaps.clone(),
                processed.clone(),
            );
            tokio::spawn(async move {
                while let Some(item) = queue.get().await {
                    if in_flight[item].fetch_add(1, Ordering::SeqCst) != 0 {
                        overlaps.fetch_add(1, Ordering::SeqCst);
                    }
                    tokio::task::yield_now().await;
                    *processed.lock().unwrap().entry(item).or_default() += 1;
                    in_flight[item].fetch_sub(1, Ordering::SeqCst);
                    queue.done(&item);
                }
            })
        })
        .collect();

    let producers: Vec<_> = (0..2)
        .map(|p| {
            let queue = queue.clone();
            tokio::spawn(async move {
                for round in 0..ROUNDS {
                    queue.add((round + p) % ITEMS);
                    if round % 7 == 0 {
                        tokio::task::yield_now().await;
                    }
                }
            })
        })
        .collect();
    for p in producers {
        p.await.unwrap();
    }
    queue.shutdown_with_drain().await;
    for w in workers {
        w.await.unwrap();
    }
    assert_eq!(
        overlaps.load(Ordering::SeqCst),
        0,
        "an item was processed twice at once"
    );
    let processed = processed.lock().unwrap();
    assert_eq!(processed.len(), ITEMS, "every item was processed");
    let total: usize = processed.values().sum();
    assert!(total <= 2 * ROUNDS, "deduplication never creates work");
}

/// Under a change rate twice the worker's throughput, a restart's backlog of low-priority items
/// waits behind the changes, but no change that became ready more than the low-priority wait
/// after them goes first: none starves.
#[tokio::test(start_paused = true)]
async fn low_priority_items_age_instead_of_starving() {
    let wait = Duration::from_secs(2);
    let queue = Queue::with_config(QueueConfig::default().with_low_priority_wait(wait).unwrap());
    let start = Instant::now();
    for i in 0..10 {
        queue.add_with_priority(format!("listed-{i}"), Priority::Low);
    }
    let mut order = Vec::new();
    let mut changes = 0u64;
    // One change every 10 ms; the worker takes one item every 20 ms.
    while order
        .iter()
        .filter(|k: &&String| k.starts_with("listed"))
        .count()
        < 10
    {
        queue.add(format!("change-{changes}"));
        changes += 1;
        tokio::time::advance(Duration::from_millis(10)).await;
        if changes.is_multiple_of(2) {
            let item = queue.get().await.unwrap();
            queue.done(&item);
            order.push(item);
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "a low item starved"
        );
    }
    assert!(
        order[0].starts_with("change"),
        "changes go first: {order:?}"
    );
    // Every change handed out before the last listed item became ready within `wait` of it.
    let last_listed = order.iter().rposition(|k| k.starts_with("listed")).unwrap();
    for change in order[..last_listed]
        .iter()
        .filter_map(|k| k.strip_prefix("change-"))
    {
        let ready_at = Duration::from_millis(10 * change.parse::<u64>().unwrap());
        assert!(ready_at <= wait, "change-{change} overtook the backlog");
    }
}

#[tokio::test(start_paused = true)]
async fn an_edit_raises_a_listed_item() {
    let queue = Queue::new();
    queue.add_with_priority("a", Priority::Low);
    queue.add_with_priority("b", Priority::Low);
    queue.add("b");
    assert_eq!(queue.len(), 2);
    assert_eq!(queue.get().await, Some("b"));
    assert_eq!(queue.get().await, Some("a"));
    assert_eq!(queue.len(), 0);
}
