use crate::IndexRead;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;

use kinformer_core::{Object, Store, StoreRead};

use super::{indexer, pod};

/// Readers racing a writer that alternates two whole contents never see a mix of both.
#[test]
fn readers_never_see_a_half_applied_replace() {
    const N: usize = 200;
    let store = Arc::new(indexer());
    let lists: Vec<Vec<_>> = ["blue", "green"]
        .iter()
        .map(|app| {
            (0..N)
                .map(|i| pod("ns", &format!("{app}-{i}"), app, app))
                .collect()
        })
        .collect();
    store.replace(lists[0].clone(), "1").unwrap();
    let done = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = (0..3)
        .map(|_| {
            let store = Arc::clone(&store);
            let done = Arc::clone(&done);
            thread::spawn(move || {
                let mut checks = 0;
                while !done.load(Ordering::Relaxed) || checks < 10 {
                    let all = store.list();
                    assert_eq!(all.len(), N);
                    let app = all[0].labels().and_then(|l| l.get("app")).cloned();
                    assert!(
                        all.iter()
                            .all(|p| p.labels().and_then(|l| l.get("app")) == app.as_ref())
                    );
                    let values = store.list_index_func_values("node");
                    assert_eq!(values.len(), 1);
                    checks += 1;
                }
                checks
            })
        })
        .collect();
    for round in 0..50 {
        store
            .replace(lists[round % 2].clone(), &round.to_string())
            .unwrap();
    }
    done.store(true, Ordering::Relaxed);
    for reader in readers {
        assert!(reader.join().unwrap() >= 10);
    }
}

/// Many writers on disjoint keys, then the indexes agree with the items.
#[test]
fn concurrent_writers_leave_consistent_indexes() {
    let store = Arc::new(indexer());
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let store = Arc::clone(&store);
            thread::spawn(move || {
                for i in 0..300 {
                    let name = format!("w{w}-{}", i % 50);
                    let node = format!("n{}", i % 7);
                    store.update(pod("ns", &name, "web", &node)).unwrap();
                    if i % 5 == 0 {
                        store.delete(pod("ns", &name, "", "")).unwrap();
                    }
                }
            })
        })
        .collect();
    for writer in writers {
        writer.join().unwrap();
    }
    let mut indexed: Vec<String> = store
        .list_index_func_values("node")
        .iter()
        .flat_map(|node| store.index_keys("node", node).unwrap())
        .collect();
    indexed.sort();
    let mut keys = store.list_keys();
    keys.sort();
    assert_eq!(indexed, keys);
}
