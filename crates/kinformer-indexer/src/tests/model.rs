//! The indexer against a HashMap-and-scan model.

use crate::IndexRead;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use k8s_openapi::api::core::v1::Pod;
use kinformer_core::{Object, Store, StoreRead};
use proptest::prelude::*;

use super::{compact_indexer, indexer, pod};
use kinformer_selector::LabelSelector;

use crate::{CacheLister, NAMESPACE_INDEX};

/// (namespace, name, app, node)
type Spec = (&'static str, &'static str, &'static str, &'static str);

#[derive(Debug, Clone)]
enum Op {
    Add(Spec),
    Update(Spec),
    Delete(Spec),
    Replace(Vec<Spec>),
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        prop::sample::select(vec!["", "a", "b"]),
        prop::sample::select(vec!["p0", "p1", "p2", "p3"]),
        prop::sample::select(vec!["", "x", "y", "bad"]),
        prop::sample::select(vec!["", "n1", "n2"]),
    )
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => spec().prop_map(Op::Add),
        4 => spec().prop_map(Op::Update),
        3 => spec().prop_map(Op::Delete),
        1 => prop::collection::vec(spec(), 0..6).prop_map(Op::Replace),
    ]
}

fn key(spec: &Spec) -> String {
    if spec.0.is_empty() {
        spec.1.to_owned()
    } else {
        format!("{}/{}", spec.0, spec.1)
    }
}

fn make(spec: &Spec) -> Arc<Pod> {
    pod(spec.0, spec.1, spec.2, spec.3)
}

/// Keys whose spec satisfies `pick`, sorted.
fn scan(model: &HashMap<String, Spec>, pick: impl Fn(&Spec) -> bool) -> Vec<String> {
    let keys: BTreeSet<&String> = model
        .iter()
        .filter(|(_, s)| pick(s))
        .map(|(k, _)| k)
        .collect();
    keys.into_iter().cloned().collect()
}

fn values(model: &HashMap<String, Spec>, field: impl Fn(&Spec) -> &'static str) -> Vec<String> {
    let set: BTreeSet<&str> = model
        .values()
        .map(field)
        .filter(|v| !v.is_empty())
        .collect();
    set.into_iter().map(str::to_owned).collect()
}

proptest! {
    #[test]
    fn indexer_matches_a_scanned_map(ops in prop::collection::vec(op(), 1..40), compact: bool) {
        let store = Arc::new(if compact { compact_indexer() } else { indexer() });
        let lister = CacheLister::new(Arc::clone(&store), "pods");
        let mut model: HashMap<String, Spec> = HashMap::new();
        for op in ops {
            match op {
                Op::Add(s) | Op::Update(s) => {
                    let result = if matches!(op, Op::Add(_)) { store.add(make(&s)) } else { store.update(make(&s)) };
                    prop_assert_eq!(result.is_err(), s.2 == "bad");
                    if s.2 != "bad" {
                        model.insert(key(&s), s);
                    }
                }
                Op::Delete(s) => {
                    store.delete(make(&s)).unwrap();
                    model.remove(&key(&s));
                }
                Op::Replace(list) => {
                    let next: HashMap<String, Spec> = list.iter().map(|s| (key(s), *s)).collect();
                    let fails = next.values().any(|s| s.2 == "bad");
                    let result = store.replace(list.iter().map(make).collect(), "1");
                    prop_assert_eq!(result.is_err(), fails);
                    if !fails {
                        model = next;
                    }
                }
            }
            let mut keys = store.list_keys();
            keys.sort();
            prop_assert_eq!(keys, scan(&model, |_| true));
            for (k, s) in &model {
                let stored = store.get_by_key(k).unwrap();
                prop_assert_eq!(stored.labels().and_then(|l| l.get("app")).map(String::as_str).unwrap_or(""), s.2);
            }
            prop_assert_eq!(store.list_index_func_values("node"), values(&model, |s| s.3));
            prop_assert_eq!(store.list_index_func_values("app"), values(&model, |s| s.2));
            for v in ["n1", "n2"] {
                prop_assert_eq!(store.index_keys("node", v).unwrap(), scan(&model, |s| s.3 == v));
            }
            for v in ["x", "y"] {
                prop_assert_eq!(store.index_keys("app", v).unwrap(), scan(&model, |s| s.2 == v));
            }
            for ns in ["", "a", "b"] {
                prop_assert_eq!(store.index_keys(NAMESPACE_INDEX, ns).unwrap(), scan(&model, |s| s.0 == ns));
            }
            for (selector, app) in [("app=x", Some("x")), ("app!=x", None), ("", None)] {
                let selector = LabelSelector::parse(selector).unwrap();
                let wanted = |s: &Spec| match (app, selector.is_empty()) {
                    (Some(app), _) => s.2 == app,
                    (None, true) => true,
                    (None, false) => s.2 != "x",
                };
                for ns in ["a", "b"] {
                    let mut listed: Vec<String> = lister
                        .namespaced(ns)
                        .list(&selector)
                        .iter()
                        .map(|pod| kinformer_core::object_key(&**pod))
                        .collect();
                    listed.sort();
                    prop_assert_eq!(listed, scan(&model, |s| s.0 == ns && wanted(s)));
                }
                prop_assert_eq!(lister.list(&selector).len(), scan(&model, |s| wanted(s)).len());
            }
        }
    }
}
