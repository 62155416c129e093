//! Both queues against a model: any sequence of writes and pops, replayed by a consumer into a
//! map, ends equal to the writer's view; every key a relist deletes gets exactly one tombstone.

use std::collections::HashMap;
use std::sync::Arc;

use k8s_openapi::api::core::v1::ConfigMap;
use kinformer_core::{Cached, Delta, StoreRead};
use proptest::prelude::*;

use super::{Cache, cm};
use crate::{DeltaFifo, DeltaFifoConfig, DeltaQueue, KnownObjects, RealFifo, RealFifoConfig};

#[derive(Debug, Clone)]
enum Op {
    Add(u8),
    Update(u8),
    Delete(u8),
    Replace(Vec<u8>),
    Resync,
    Pop(u8),
}

fn op() -> impl Strategy<Value = Op> {
    let key = 0..5u8;
    prop_oneof![
        3 => key.clone().prop_map(Op::Add),
        3 => key.clone().prop_map(Op::Update),
        2 => key.clone().prop_map(Op::Delete),
        1 => prop::collection::vec(key, 0..4).prop_map(Op::Replace),
        1 => Just(Op::Resync),
        3 => (1..4u8).prop_map(Op::Pop),
    ]
}

fn name(k: u8) -> String {
    format!("k{k}")
}

fn key(k: u8) -> String {
    format!("ns/k{k}")
}

fn pop_into<Q: DeltaQueue<ConfigMap>>(queue: &Q, cache: &Cache, n: usize) {
    for _ in 0..n.min(queue.queued()) {
        let popped = super::pop_now(queue);
        cache.apply(&popped.item);
    }
}

/// Runs `ops` against `queue`, calling `around_replace` before (with `None`) and after (with the
/// listed keys) each relist; returns the writer's view (`key -> resourceVersion`).
fn run<Q: DeltaQueue<ConfigMap>>(
    queue: &Q,
    cache: &Cache,
    ops: &[Op],
    mut around_replace: impl FnMut(&Q, Option<&[String]>),
) -> HashMap<String, String> {
    let mut truth: HashMap<String, String> = HashMap::new();
    for (step, op) in ops.iter().enumerate() {
        let rv = step as u32 + 1;
        match op {
            Op::Add(k) | Op::Update(k) => {
                let obj = cm(&name(*k), rv);
                if matches!(op, Op::Add(_)) {
                    queue.add(obj).unwrap();
                } else {
                    queue.update(obj).unwrap();
                }
                truth.insert(key(*k), rv.to_string());
            }
            Op::Delete(k) => {
                queue.delete(cm(&name(*k), rv)).unwrap();
                truth.remove(&key(*k));
            }
            Op::Replace(keys) => {
                let listed: Vec<Cached<ConfigMap>> =
                    keys.iter().map(|k| cm(&name(*k), rv).into()).collect();
                let listed_keys: Vec<String> = keys.iter().map(|k| key(*k)).collect();
                around_replace(queue, None);
                queue.replace_admitted(listed, &rv.to_string()).unwrap();
                truth = listed_keys
                    .iter()
                    .map(|k| (k.clone(), rv.to_string()))
                    .collect();
                around_replace(queue, Some(&listed_keys));
            }
            Op::Resync => queue.resync().unwrap(),
            Op::Pop(n) => pop_into(queue, cache, usize::from(*n)),
        }
    }
    pop_into(queue, cache, usize::MAX);
    truth
}

proptest! {
    #[test]
    fn delta_fifo_replays_to_the_model(ops in prop::collection::vec(op(), 1..40)) {
        let cache = Arc::new(Cache::default());
        let known: KnownObjects<ConfigMap> = cache.clone();
        let fifo = DeltaFifo::new(DeltaFifoConfig::default().with_known_objects(known).with_emit_replaced(true));
        let mut before: HashMap<String, Option<bool>> = HashMap::new();
        let mut failures = Vec::new();
        let truth = run(&fifo, &cache, &ops, |fifo, listed| {
            let Some(listed) = listed else {
                // Before the relist: per key, None if neither queued nor known, else whether
                // its last pending delta is a delete.
                before = (0..5).map(key).map(|k| {
                    let state = match fifo.deltas(&k) {
                        Some(deltas) => Some(deltas.last().is_some_and(Delta::is_deleted)),
                        None => cache.get_by_key(&k).map(|_| false),
                    };
                    (k, state)
                }).collect();
                return;
            };
            for k in (0..5).map(key) {
                let deltas = fifo.deltas(&k).unwrap_or_default();
                let was_queued_or_known = before.get(&k).copied().flatten();
                if listed.contains(&k) {
                    if !matches!(deltas.last(), Some(Delta::Replaced(_))) {
                        failures.push(format!("{k}: listed but last delta is not Replaced"));
                    }
                } else if let Some(was_deleted) = was_queued_or_known {
                    let deletes_at_end = deltas.iter().rev().take_while(|d| d.is_deleted()).count();
                    if deletes_at_end != 1 {
                        failures.push(format!("{k}: {deletes_at_end} trailing deletes"));
                    }
                    let tombstone = deltas.last().is_some_and(|d| matches!(d, Delta::Deleted(s) if s.is_tombstone()));
                    if !was_deleted && !tombstone {
                        failures.push(format!("{k}: deleted by the relist without a tombstone"));
                    }
                }
            }
        });
        prop_assert!(failures.is_empty(), "{failures:?}");
        prop_assert_eq!(cache.versions(), truth);
        prop_assert_eq!(fifo.queued(), 0);
    }

    #[test]
    fn real_fifo_replays_to_the_model(ops in prop::collection::vec(op(), 1..40), atomic in any::<bool>()) {
        let cache = Arc::new(Cache::default());
        let known: KnownObjects<ConfigMap> = cache.clone();
        let config = if atomic {
            RealFifoConfig::default().with_atomic(true)
        } else {
            RealFifoConfig::default().with_known_objects(known)
        };
        let fifo = RealFifo::new(config);
        let truth = run(&fifo, &cache, &ops, |_, _| {});
        prop_assert_eq!(cache.versions(), truth);
    }
}
