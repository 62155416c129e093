//! [`finalizer`]: a reconcile that owns cleanup, through the controller's finalizer on each
//! primary object.

use std::future::Future;
use std::sync::Arc;

use kinformer_api::{Api, JsonPatchOp, Patch, PatchParams};
use kinformer_core::Object;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::{Action, Error, ObjectRef};

/// What a reconcile under [`finalizer`] is asked to do with the object.
#[derive(Debug)]
pub enum FinalizerEvent<K> {
    /// Make the world as the object asks: it is not being deleted, and it carries the
    /// finalizer, so its deletion will wait for [`Cleanup`](Self::Cleanup).
    Apply(Arc<K>),
    /// The object is being deleted (`deletionTimestamp` is set) and still carries the
    /// finalizer: undo what [`Apply`](Self::Apply) did outside the cluster (or anything the
    /// garbage collector cannot). The finalizer is removed once this succeeds; it runs again
    /// on failure, and possibly again after success (a restart between the cleanup and the
    /// removal), so it must be idempotent.
    Cleanup(Arc<K>),
}

/// Runs `reconcile` on `object` under the finalizer `name` (a qualified name such as
/// `example.com/cleanup`), as kube-rs's `finalizer` and controller-runtime's finalizer helpers
/// do:
/// - an object without the finalizer and not being deleted gets it first (one JSON patch that
///   tests the list it read, so a concurrent change is a conflict, not a lost finalizer), and
///   nothing else happens in this call: the patch's watch event queues the next reconcile,
///   which runs [`FinalizerEvent::Apply`] on an object whose deletion now waits for its
///   cleanup;
/// - an object with the finalizer: [`FinalizerEvent::Apply`], or [`FinalizerEvent::Cleanup`]
///   once `deletionTimestamp` is set, after which the finalizer is removed (again one tested
///   patch; the server deletes the object when no finalizer is left);
/// - an object being deleted without the finalizer (someone else's, or already cleaned up):
///   nothing to do.
///
/// Every step is idempotent: a conflict or a restart between steps leaves an object the next
/// reconcile, reading the cache's latest state, takes from where it is.
///
/// ```
/// use std::sync::Arc;
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kinformer_api::Api;
/// use kinformer_runtime::{Action, Error, FinalizerEvent, finalizer};
///
/// #[derive(Debug, thiserror::Error)]
/// #[error("the bucket could not be changed")]
/// struct BucketError;
///
/// async fn reconcile(cm: Arc<ConfigMap>, api: Arc<Api<ConfigMap>>) -> Result<Action, Error<BucketError>> {
///     finalizer(&api, "example.com/bucket", cm, |event| async move {
///         match event {
///             FinalizerEvent::Apply(_cm) => Ok(Action::await_change()), // create the bucket
///             FinalizerEvent::Cleanup(_cm) => Ok(Action::await_change()), // delete the bucket
///         }
///     })
///     .await
/// }
/// # let _ = reconcile;
/// ```
///
/// # Errors
/// [`Error::Reconcile`] with the reconcile's own error (the finalizer stays: a failed cleanup
/// is retried); [`Error::Finalizer`] when the finalizer could not be added or removed (a
/// conflict: the next reconcile retries with the latest object); [`Error::InvalidFinalizer`]
/// for a name the API server would refuse.
pub async fn finalizer<K, R, Fut, E>(
    api: &Api<K>,
    name: &str,
    object: Arc<K>,
    reconcile: R,
) -> Result<Action, Error<E>>
where
    K: Object + Serialize + DeserializeOwned + Send + Sync + 'static,
    R: FnOnce(FinalizerEvent<K>) -> Fut,
    Fut: Future<Output = Result<Action, E>>,
{
    if let Err(source) = kinformer_selector::check_qualified_name(name) {
        return Err(Error::InvalidFinalizer {
            finalizer: name.to_owned(),
            source,
        });
    }
    let meta = object.meta();
    let finalizers = meta.finalizers.as_deref().unwrap_or_default();
    let position = finalizers.iter().position(|f| f == name);
    let deleting = meta.deletion_timestamp.is_some();
    let reference = ObjectRef::from_obj(object.as_ref());
    match (position, deleting) {
        (None, true) => Ok(Action::await_change()),
        (None, false) => {
            let ops = add_ops(meta.finalizers.as_deref(), name);
            patch(api, &reference, name, true, ops).await?;
            Ok(Action::await_change())
        }
        (Some(_), false) => reconcile(FinalizerEvent::Apply(object))
            .await
            .map_err(|error| Error::Reconcile {
                object: reference,
                error,
            }),
        (Some(index), true) => {
            let action = reconcile(FinalizerEvent::Cleanup(object))
                .await
                .map_err(|error| Error::Reconcile {
                    object: reference.clone(),
                    error,
                })?;
            patch(api, &reference, name, false, remove_ops(index, name)).await?;
            Ok(action)
        }
    }
}

/// Adds `name` to the finalizers, testing that the list is still the one read.
fn add_ops(current: Option<&[String]>, name: &str) -> Vec<JsonPatchOp> {
    match current {
        // Testing a missing list against null: the server's JSON patch treats them alike.
        None => vec![
            JsonPatchOp::test("/metadata/finalizers", serde_json::Value::Null),
            JsonPatchOp::add("/metadata/finalizers", vec![name.to_owned()]),
        ],
        Some(list) => vec![
            JsonPatchOp::test("/metadata/finalizers", list.to_vec()),
            JsonPatchOp::add("/metadata/finalizers/-", name.to_owned()),
        ],
    }
}

/// Removes the finalizer at `index`, testing that it is still `name` there.
fn remove_ops(index: usize, name: &str) -> Vec<JsonPatchOp> {
    let path = format!("/metadata/finalizers/{index}");
    vec![
        JsonPatchOp::test(path.clone(), name.to_owned()),
        JsonPatchOp::remove(path),
    ]
}

async fn patch<K, E>(
    api: &Api<K>,
    object: &ObjectRef,
    finalizer: &str,
    adding: bool,
    ops: Vec<JsonPatchOp>,
) -> Result<(), Error<E>>
where
    K: Serialize + DeserializeOwned + Send + Sync + 'static,
{
    api.patch(object.name(), &PatchParams::default(), &Patch::Json(ops))
        .await
        .map(drop)
        .map_err(|source| Error::Finalizer {
            object: object.clone(),
            finalizer: finalizer.to_owned(),
            adding,
            source,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patches_test_what_they_read() {
        let add = serde_json::to_value(add_ops(None, "example.com/x")).unwrap();
        assert_eq!(
            add,
            serde_json::json!([
                {"op": "test", "path": "/metadata/finalizers", "value": null},
                {"op": "add", "path": "/metadata/finalizers", "value": ["example.com/x"]},
            ])
        );
        let list = ["other".to_owned()];
        let add = serde_json::to_value(add_ops(Some(&list), "example.com/x")).unwrap();
        assert_eq!(
            add,
            serde_json::json!([
                {"op": "test", "path": "/metadata/finalizers", "value": ["other"]},
                {"op": "add", "path": "/metadata/finalizers/-", "value": "example.com/x"},
            ])
        );
        let remove = serde_json::to_value(remove_ops(1, "example.com/x")).unwrap();
        assert_eq!(
            remove,
            serde_json::json!([
                {"op": "test", "path": "/metadata/finalizers/1", "value": "example.com/x"},
                {"op": "remove", "path": "/metadata/finalizers/1"},
            ])
        );
    }
}
