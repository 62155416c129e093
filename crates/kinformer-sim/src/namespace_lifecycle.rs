//! kube-controller-manager's namespace controller, on its own task: a namespace being deleted
//! (Terminating, held by its `spec.finalizers`) has every object in it deleted, and once none is
//! left its `kubernetes` finalizer goes, and with it the namespace. Objects held by their own
//! finalizers keep the namespace Terminating until they go.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::shared::Shared;
use crate::status::ApiError;
use crate::store::{being_deleted, list_prefix};

/// How often a namespace whose contents are held by finalizers is looked at again.
const RECHECK: Duration = Duration::from_secs(1);

/// Runs until the sim stops.
pub(crate) async fn run(shared: Arc<Shared>) {
    let Some(namespaces) = shared.resource("namespaces") else {
        return;
    };
    let mut changes = shared.store.subscribe(&namespaces);
    loop {
        let waiting = reconcile(&shared);
        let next = changes.changed();
        if waiting {
            // Contents held by finalizers: look again soon, or at the next change.
            let _ = tokio::time::timeout(RECHECK, next).await;
        } else if next.await.is_err() {
            return;
        }
    }
}

/// One pass; true when a namespace is still Terminating.
fn reconcile(shared: &Shared) -> bool {
    let Some(namespaces) = shared.resource("namespaces") else {
        return false;
    };
    let page = shared
        .store
        .snapshot(&namespaces, &list_prefix(&namespaces, None), &|_| true);
    let mut waiting = false;
    for record in &page.items {
        let object = record.to_map();
        if !object.get("metadata").is_some_and(being_deleted) {
            continue;
        }
        let name = object
            .get("metadata")
            .and_then(|m| m.get("name"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        if delete_contents(shared, &name) {
            // Gone meanwhile: nothing to finalize.
            let _ = finalize(shared, &namespaces, &name);
        } else {
            waiting = true;
        }
    }
    waiting
}

/// Deletes every object in `namespace`; true when none is left.
fn delete_contents(shared: &Shared, namespace: &str) -> bool {
    let mut left = false;
    // A version served by conversion holds no objects of its own: its storage version deletes them.
    for def in shared
        .registry()
        .all()
        .iter()
        .filter(|d| d.namespaced && d.conversion.is_none())
    {
        let page = shared
            .store
            .snapshot(def, &list_prefix(def, Some(namespace)), &|_| true);
        for record in &page.items {
            // Gone meanwhile counts as gone; held by its finalizers, it is left.
            if let Ok(kept) = shared.store.delete(def, namespace, &record.meta.name)
                && shared
                    .store
                    .get(def, &crate::store::key_of(def, namespace, &kept.meta.name))
                    .is_some()
            {
                left = true;
            }
        }
    }
    !left
}

/// Removes the `kubernetes` finalizer: the write that leaves none deletes the namespace.
fn finalize(
    shared: &Shared,
    namespaces: &Arc<crate::resource::ResourceDef>,
    name: &str,
) -> Result<(), ApiError> {
    shared
        .store
        .update_object(namespaces, "", name, |stored| {
            if let Some(Value::Object(spec)) = stored.get_mut("spec")
                && let Some(Value::Array(list)) = spec.get_mut("finalizers")
            {
                list.retain(|f| f != "kubernetes");
                if list.is_empty() {
                    spec.remove("finalizers");
                }
            }
            Ok(())
        })
        .map(drop)
}
