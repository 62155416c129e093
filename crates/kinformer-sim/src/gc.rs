//! Garbage collection of `ownerReferences`, as kube-controller-manager's collector does it, on
//! its own task after the writes that call for it:
//! - an owner gone (background propagation, the default): each dependent that names no other
//!   owner is deleted, one that does loses its reference to the gone owner;
//! - an owner deleted with `propagationPolicy: Orphan` (the `orphan` finalizer): each dependent
//!   loses its reference, then the finalizer goes (and with it the owner);
//! - an owner deleted with `Foreground` (the `foregroundDeletion` finalizer): its dependents are
//!   deleted (those that block it in the foreground too), and once none that blocks it
//!   (`blockOwnerDeletion: true`) is left, the finalizer goes.
//!
//! - a dependent written after its owner was deleted (a controller's apply that raced the
//!   owner's delete): as for an owner gone, at once.
//!
//! It acts only on owners the sim stored (the last 100,000 deleted uids are remembered): a
//! dependent naming a uid the sim never held (the generated pods name ReplicaSets that do not
//! exist) is left alone, where the real collector would delete it.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::shared::Shared;
use crate::status::ApiError;
use crate::store::{DeleteOptions, Dependent, Propagation, Store, Work, key_of};

/// Runs the collector until the sim stops.
pub(crate) async fn collect(shared: Arc<Shared>) {
    loop {
        for work in shared.store.gc_work().await {
            process(&shared.store, work);
        }
    }
}

fn process(store: &Store, work: Work) {
    match work {
        Work::OwnerGone(uid) => {
            for dependent in store.dependents_of(&uid) {
                release_or_delete(store, &dependent, &uid);
            }
        }
        Work::Orphan(owner, uid) => {
            for dependent in store.dependents_of(&uid) {
                // Gone meanwhile: nothing to release.
                let _ = drop_reference(store, &dependent, &uid);
            }
            remove_finalizer(store, &owner, crate::store::ORPHAN);
        }
        Work::Foreground(owner, uid) => {
            for dependent in store.dependents_of(&uid) {
                let policy = if blocks(store, &dependent, &uid) {
                    Propagation::Foreground
                } else {
                    Propagation::Background
                };
                delete(store, &dependent, policy);
            }
            if store.blocked(&uid) {
                store.wait_for_dependents(owner, uid);
            } else {
                remove_finalizer(store, &owner, crate::store::FOREGROUND);
            }
        }
    }
}

/// The dependent's stored object, when it still exists.
fn object(store: &Store, dependent: &Dependent) -> Option<Map<String, Value>> {
    let key = key_of(&dependent.def, &dependent.namespace, &dependent.name);
    store.get(&dependent.def, &key).map(|r| r.to_map())
}

fn references(object: &Map<String, Value>) -> &[Value] {
    object
        .get("metadata")
        .and_then(|m| m.get("ownerReferences"))
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn names(reference: &Value, uid: &str) -> bool {
    reference.get("uid").and_then(Value::as_str) == Some(uid)
}

/// Whether the dependent's reference to `uid` blocks the owner's foreground deletion.
fn blocks(store: &Store, dependent: &Dependent, uid: &str) -> bool {
    object(store, dependent).is_some_and(|o| {
        references(&o).iter().any(|r| {
            names(r, uid) && r.get("blockOwnerDeletion").and_then(Value::as_bool) == Some(true)
        })
    })
}

/// The owner `uid` is gone: the dependent goes too, unless it names another owner.
fn release_or_delete(store: &Store, dependent: &Dependent, uid: &str) {
    let Some(object) = object(store, dependent) else {
        return;
    };
    if references(&object).iter().any(|r| !names(r, uid)) {
        let _ = drop_reference(store, dependent, uid);
    } else {
        delete(store, dependent, Propagation::Background);
    }
}

fn delete(store: &Store, dependent: &Dependent, policy: Propagation) {
    let options = DeleteOptions {
        propagation: Some(policy),
        ..DeleteOptions::default()
    };
    // Gone meanwhile, or held by its own finalizers: either way the collector is done with it.
    let _ = store.delete_with(
        &dependent.def,
        &dependent.namespace,
        &dependent.name,
        &options,
    );
}

/// Removes the dependent's references to `uid`.
fn drop_reference(store: &Store, dependent: &Dependent, uid: &str) -> Result<(), ApiError> {
    modify_metadata(store, dependent, |md| {
        let refs: Vec<Value> = md
            .get("ownerReferences")
            .and_then(Value::as_array)
            .map(|refs| refs.iter().filter(|r| !names(r, uid)).cloned().collect())
            .unwrap_or_default();
        if refs.is_empty() {
            md.remove("ownerReferences");
        } else {
            md.insert("ownerReferences".into(), Value::Array(refs));
        }
    })
}

/// Removes `finalizer` from the owner; the write that removes its last finalizer deletes it.
fn remove_finalizer(store: &Store, owner: &Dependent, finalizer: &str) {
    // Gone meanwhile: nothing to remove.
    let _ = store.remove_finalizer(&owner.def, &owner.namespace, &owner.name, finalizer);
}

/// Writes the object with `change` made to its metadata (a read-modify-write that retries
/// races; the finalizer rules of any write apply).
fn modify_metadata(
    store: &Store,
    object: &Dependent,
    mut change: impl FnMut(&mut Map<String, Value>),
) -> Result<(), ApiError> {
    store
        .update_object(&object.def, &object.namespace, &object.name, |stored| {
            if let Some(Value::Object(md)) = stored.get_mut("metadata") {
                change(md);
            }
            Ok(())
        })
        .map(drop)
}
