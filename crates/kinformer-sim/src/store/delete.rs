//! Deletes: at once, or held by finalizers (the object is marked and stays until its last
//! finalizer is removed), with `DeleteOptions` preconditions and dry runs.

use std::sync::Arc;

use serde_json::json;

use super::finalizers;
use super::owners::{Dependent, Work};
use super::read::current;
use super::write::{Commit, MAX_RETRIES, stamped};
use super::{EventType, RecordRef, Store, key_of};
use crate::resource::ResourceDef;
use crate::status::ApiError;

/// What a delete requires and whether it writes.
#[derive(Debug, Clone, Default)]
pub(crate) struct DeleteOptions {
    /// `preconditions.uid`: the object must have this uid.
    pub(crate) uid: Option<String>,
    /// `preconditions.resourceVersion`: the object must be at this version.
    pub(crate) resource_version: Option<String>,
    pub(crate) dry_run: bool,
    /// What happens to the objects it owns; `None`: the resource's default (background).
    pub(crate) propagation: Option<Propagation>,
}

/// `propagationPolicy`: what a delete does to the objects the deleted one owns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Propagation {
    /// The dependents stay, their references to it removed (the `orphan` finalizer holds the
    /// object until they are).
    Orphan,
    /// The object goes at once; the garbage collector deletes the dependents afterwards.
    Background,
    /// The object stays (`foregroundDeletion` finalizer) until its blocking dependents are gone.
    Foreground,
}

/// The finalizer a propagation policy puts on the deleted object.
pub(crate) const ORPHAN: &str = "orphan";
/// The finalizer of a foreground deletion.
pub(crate) const FOREGROUND: &str = "foregroundDeletion";

/// Sets the garbage-collection finalizers as `policy` asks (the other one goes, and
/// `Background` removes both); true when the list changed. No policy changes nothing.
fn apply_policy(list: &mut Vec<String>, policy: Option<Propagation>) -> bool {
    let (add, remove): (Option<&str>, &[&str]) = match policy {
        None => return false,
        Some(Propagation::Orphan) => (Some(ORPHAN), &[FOREGROUND]),
        Some(Propagation::Foreground) => (Some(FOREGROUND), &[ORPHAN]),
        Some(Propagation::Background) => (None, &[ORPHAN, FOREGROUND]),
    };
    let before = list.clone();
    list.retain(|f| !remove.contains(&f.as_str()));
    if let Some(add) = add
        && !list.iter().any(|f| f == add)
    {
        list.push(add.to_owned());
    }
    *list != before
}

impl Store {
    /// Deletes an object at once (no graceful period). Returns its last state at the delete's revision.
    pub(crate) fn delete(
        &self,
        def: &Arc<ResourceDef>,
        namespace: &str,
        name: &str,
    ) -> Result<RecordRef, ApiError> {
        self.delete_with(def, namespace, name, &DeleteOptions::default())
    }

    /// [`Store::delete`] with preconditions (409 when one does not hold) and dry runs (the object
    /// as it is, nothing written).
    pub(crate) fn delete_with(
        &self,
        def: &Arc<ResourceDef>,
        namespace: &str,
        name: &str,
        opts: &DeleteOptions,
    ) -> Result<RecordRef, ApiError> {
        let key = key_of(def, namespace, name);
        for _ in 0..MAX_RETRIES {
            let old =
                current(&self.read(), def, &key).ok_or_else(|| ApiError::not_found(def, name))?;
            check_preconditions(def, name, &old, opts)?;
            let mut map = old.to_map();
            let md = map.get("metadata").cloned().unwrap_or_default();
            let deleting = finalizers::being_deleted(&md);
            let mut list: Vec<String> = finalizers::finalizers(&md)
                .into_iter()
                .map(str::to_owned)
                .collect();
            let changed = apply_policy(&mut list, opts.propagation);
            if opts.dry_run || (deleting && !changed) {
                // A second delete of an object already being deleted changes nothing, unless
                // it asks for another propagation policy.
                return Ok(old);
            }
            // Finalizers hold the object: it is marked, kept, and goes with its last finalizer.
            let held = finalizers::held_by_spec(def, &map);
            let kind = if list.is_empty() && !held {
                EventType::Deleted
            } else {
                if held {
                    // A namespace being deleted is Terminating until its contents are gone.
                    let status = map.entry("status").or_insert_with(|| json!({}));
                    status["phase"] = json!("Terminating");
                }
                let md = super::write::metadata_mut(&mut map)?;
                if list.is_empty() {
                    md.remove("finalizers");
                } else {
                    md.insert("finalizers".into(), json!(list));
                }
                if !deleting {
                    finalizers::mark_deleted(md);
                }
                EventType::Modified
            };
            let uid = old.meta.uid.clone();
            let build = stamped(def, kind, &mut map, self.protobuf());
            match self.commit_if_unchanged(def, &key, kind, old, build) {
                Commit::Done(record) => {
                    let owner = || Dependent {
                        def: Arc::clone(def),
                        namespace: namespace.into(),
                        name: name.into(),
                    };
                    if list.iter().any(|f| f == ORPHAN) {
                        self.queue_gc(Work::Orphan(owner(), uid.clone()));
                    }
                    if list.iter().any(|f| f == FOREGROUND) {
                        self.queue_gc(Work::Foreground(owner(), uid));
                    }
                    return Ok(record);
                }
                Commit::Raced => {}
                Commit::Gone => return Err(ApiError::not_found(def, name)),
            }
        }
        Err(ApiError::conflict(def, name))
    }
}

fn check_preconditions(
    def: &ResourceDef,
    name: &str,
    old: &RecordRef,
    opts: &DeleteOptions,
) -> Result<(), ApiError> {
    let failed = |what: &str, wanted: &str, actual: &str| {
        let resource = if def.group.is_empty() {
            def.plural.clone()
        } else {
            format!("{}.{}", def.plural, def.group)
        };
        let mut e = ApiError::new(
            409,
            "Conflict",
            format!(
                "Operation cannot be fulfilled on {resource} \"{name}\": Precondition failed: {what} in precondition: {wanted}, {what} in object meta: {actual}"
            ),
        );
        e.details = Some(json!({"name": name, "group": def.group, "kind": def.plural}));
        e
    };
    if let Some(uid) = opts.uid.as_deref().filter(|u| *u != &*old.meta.uid) {
        return Err(failed("UID", uid, &old.meta.uid));
    }
    let rev = old.rev.to_string();
    if let Some(rv) = opts.resource_version.as_deref().filter(|rv| *rv != rev) {
        return Err(failed("ResourceVersion", rv, &rev));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::resource::Registry;

    #[test]
    fn preconditions_and_dry_runs() {
        let reg = Registry::default();
        let def = reg.by_name("configmaps").unwrap();
        let store = Store::new(1, 0);
        let Value::Object(obj) = json!({"metadata": {"name": "c"}}) else {
            unreachable!()
        };
        let created = store.create(&def, Some("ns"), obj).unwrap();
        let wrong_uid = DeleteOptions {
            uid: Some("x".into()),
            ..Default::default()
        };
        let err = store.delete_with(&def, "ns", "c", &wrong_uid).unwrap_err();
        assert_eq!(err.code, 409);
        assert!(
            err.message
                .contains("Precondition failed: UID in precondition: x"),
            "{}",
            err.message
        );
        let stale = DeleteOptions {
            resource_version: Some("1".into()),
            ..Default::default()
        };
        assert_eq!(
            store.delete_with(&def, "ns", "c", &stale).unwrap_err().code,
            409
        );
        let dry = DeleteOptions {
            dry_run: true,
            uid: Some(created.meta.uid.to_string()),
            ..Default::default()
        };
        let before = store.revision();
        assert_eq!(
            store.delete_with(&def, "ns", "c", &dry).unwrap().rev,
            created.rev
        );
        assert_eq!(store.revision(), before, "a dry run writes nothing");
        let exact = DeleteOptions {
            resource_version: Some(created.rev.to_string()),
            ..Default::default()
        };
        assert!(store.delete_with(&def, "ns", "c", &exact).is_ok());
        assert_eq!(store.delete(&def, "ns", "c").unwrap_err().code, 404);
    }
}
