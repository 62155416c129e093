//! Property tests: after any sequence of writes, a paged list at any page size equals the unpaged
//! list at the same revision; replaying the watch from RV N over the state at N gives the latest state.

use std::collections::BTreeMap;

use kinformer_sim::{ObjectOp, OpKind, Sim};
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::common::{Client, event_rv, in_process, rv_of};

type State = BTreeMap<String, Value>;

fn key(item: &Value) -> String {
    format!(
        "{}/{}",
        item["metadata"]["namespace"].as_str().unwrap_or(""),
        item["metadata"]["name"].as_str().unwrap_or("")
    )
}

async fn list_at(c: &Client<'_>, rev: u64, limit: Option<usize>) -> (u64, Vec<Value>) {
    let mut url = format!("/api/v1/configmaps?resourceVersion={rev}&resourceVersionMatch=Exact");
    if let Some(l) = limit {
        url.push_str(&format!("&limit={l}"));
    }
    let mut page = c.get(&url).await.json();
    let list_rv = rv_of(&page);
    let mut items = page["items"].as_array().unwrap().clone();
    while let Some(t) = page["metadata"]["continue"].as_str().map(str::to_owned) {
        page = c
            .get(&format!(
                "/api/v1/configmaps?limit={}&continue={t}",
                limit.unwrap_or(1)
            ))
            .await
            .json();
        assert_eq!(rv_of(&page), list_rv);
        items.extend(page["items"].as_array().unwrap().iter().cloned());
    }
    (list_rv, items)
}

fn to_state(items: &[Value]) -> State {
    items.iter().map(|i| (key(i), i.clone())).collect()
}

async fn check(ops: Vec<(u8, u8, u8)>, page: usize, cut: usize) {
    let sim = Sim::builder().compact_interval(None).start().await.unwrap();
    let c = in_process(&sim);
    let mut revs = vec![sim.stats().await.revision];
    for (kind, idx, label) in ops {
        let (ns, name) = (
            if idx % 2 == 0 { "even" } else { "odd" },
            format!("cm-{idx}"),
        );
        let obj = json!({"metadata": {"name": name, "labels": {"l": label.to_string()}}, "data": {"v": format!("{kind}{label}")}});
        let op = match kind {
            0 => ObjectOp::new(OpKind::Upsert, "configmaps", obj),
            1 => ObjectOp::new(
                OpKind::Patch,
                "configmaps",
                json!({"metadata": {"labels": {"l": label.to_string()}}}),
            )
            .name(name),
            _ => ObjectOp::delete("configmaps", ns, name.clone()),
        };
        // Patching or deleting a missing object is a 404, which is part of the sequence too.
        let _ = sim.apply(op.namespace(ns)).await;
        revs.push(sim.stats().await.revision);
    }
    let latest = *revs.last().unwrap();
    let n = revs[cut % revs.len()];
    for rev in [n, latest] {
        let (rv_full, full) = list_at(&c, rev, None).await;
        let (rv_paged, paged) = list_at(&c, rev, Some(page)).await;
        assert_eq!(rv_full, rev);
        assert_eq!(rv_paged, rev);
        assert_eq!(paged, full, "page size {page} at revision {rev}");
    }
    let (_, at_n) = list_at(&c, n, None).await;
    let mut state = to_state(&at_n);
    if latest > n {
        let mut w = c
            .watch(&format!("/api/v1/configmaps?watch=1&resourceVersion={n}"))
            .await;
        loop {
            let e = w.event().await;
            let mut obj = e["object"].clone();
            let rv = event_rv(&e);
            match e["type"].as_str().unwrap() {
                "DELETED" => {
                    state.remove(&key(&obj));
                }
                _ => {
                    // Watch objects carry kind/apiVersion; list items do not.
                    let map = obj.as_object_mut().unwrap();
                    map.remove("kind");
                    map.remove("apiVersion");
                    state.insert(key(&obj), obj);
                }
            }
            if rv == latest {
                break;
            }
            assert!(rv < latest);
        }
    }
    let (_, now) = list_at(&c, latest, None).await;
    assert_eq!(state, to_state(&now));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn paged_equals_unpaged_and_watch_replay_reaches_the_latest_state(
        ops in proptest::collection::vec((0u8..3, 0u8..8, 0u8..3), 0..40),
        page in 1usize..9,
        cut in 0usize..41,
    ) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(check(ops, page, cut));
    }
}
