//! Many writers, readers of the consumer's store, and one popper, all at once.

use std::collections::HashMap;
use std::sync::Arc;
use std::thread;

use k8s_openapi::api::core::v1::ConfigMap;
use kinformer_core::{Store, StoreRead};

use super::{Cache, cm};
use crate::{
    DeltaFifo, DeltaFifoConfig, DeltaQueue, EitherQueue, KnownObjects, RealFifo, RealFifoConfig,
};

const WRITERS: u32 = 4;
const ROUNDS: u32 = 500;

/// Writers own disjoint keys; every fifth round deletes, every 50th resyncs. Returns what each
/// writer left (`key -> resourceVersion`).
fn write_concurrently<Q: DeltaQueue<ConfigMap> + 'static>(
    queue: &Arc<Q>,
    cache: &Arc<Cache>,
) -> HashMap<String, String> {
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let queue = Arc::clone(queue);
            thread::spawn(move || {
                let mut left = HashMap::new();
                for round in 1..=ROUNDS {
                    let name = format!("w{w}-{}", round % 20);
                    let rv = round * 10 + w;
                    if round % 5 == 0 {
                        queue.delete(cm(&name, rv)).unwrap();
                        left.remove(&format!("ns/{name}"));
                    } else {
                        queue.update(cm(&name, rv)).unwrap();
                        left.insert(format!("ns/{name}"), rv.to_string());
                    }
                    if round % 50 == 0 {
                        queue.resync().unwrap();
                    }
                }
                left
            })
        })
        .collect();
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let cache = Arc::clone(cache);
            thread::spawn(move || {
                for _ in 0..200 {
                    for key in cache.list_keys() {
                        let _ = cache.get_by_key(&key);
                    }
                }
            })
        })
        .collect();
    let mut expected = HashMap::new();
    for writer in writers {
        expected.extend(writer.join().unwrap());
    }
    for reader in readers {
        reader.join().unwrap();
    }
    expected
}

async fn check<Q: DeltaQueue<ConfigMap> + 'static>(queue: Arc<Q>, cache: Arc<Cache>) {
    let popper = {
        let queue = Arc::clone(&queue);
        let cache = Arc::clone(&cache);
        tokio::spawn(async move {
            let mut pops = 0u32;
            while queue.pop(|popped| cache.apply(&popped.item)).await.is_ok() {
                pops += 1;
            }
            pops
        })
    };
    let expected = {
        let (queue, cache) = (Arc::clone(&queue), Arc::clone(&cache));
        tokio::task::spawn_blocking(move || write_concurrently(&queue, &cache))
            .await
            .unwrap()
    };
    // A final relist of the same content must not change anything.
    let relist: Vec<_> = expected
        .iter()
        .map(|(key, rv)| cm(key.trim_start_matches("ns/"), rv.parse().unwrap()))
        .collect();
    queue.replace(relist, "final").unwrap();
    queue.close();
    let pops = popper.await.unwrap();
    assert!(pops > 0);
    assert_eq!(cache.versions(), expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delta_fifo_with_many_writers_readers_and_a_popper() {
    let cache = Arc::new(Cache::default());
    let known: KnownObjects<ConfigMap> = cache.clone();
    let fifo = Arc::new(DeltaFifo::new(
        DeltaFifoConfig::default()
            .with_known_objects(known)
            .with_emit_replaced(true),
    ));
    check(fifo, cache).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_fifo_with_many_writers_readers_and_a_popper() {
    let cache = Arc::new(Cache::default());
    let known: KnownObjects<ConfigMap> = cache.clone();
    // Through the run-time choice, to cover its delegation too.
    let fifo: EitherQueue<ConfigMap> =
        RealFifo::new(RealFifoConfig::default().with_known_objects(known)).into();
    check(Arc::new(fifo), cache).await;
}
