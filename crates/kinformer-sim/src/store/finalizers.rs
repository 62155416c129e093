//! Deletion held by finalizers, as kube-apiserver's generic registry does it: a delete of an
//! object with finalizers marks it (`deletionTimestamp`, `deletionGracePeriodSeconds: 0`) and
//! keeps it; writes may then only remove finalizers, and the write that removes the last one
//! deletes the object.

use serde_json::{Map, Value, json};

use crate::resource::ResourceDef;
use crate::status::ApiError;

/// The object's finalizers.
pub(super) fn finalizers(md: &Value) -> Vec<&str> {
    md.get("finalizers")
        .and_then(Value::as_array)
        .map(|list| list.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// True when the object (its `metadata`) is being deleted.
pub(crate) fn being_deleted(md: &Value) -> bool {
    md.get("deletionTimestamp").is_some_and(|t| !t.is_null())
}

/// Marks `md` as being deleted now; a generation above 0 goes up by one, as the real
/// server's first mark does.
pub(super) fn mark_deleted(md: &mut Map<String, Value>) {
    if let Some(generation) = md
        .get("generation")
        .and_then(Value::as_i64)
        .filter(|g| *g > 0)
    {
        md.insert("generation".into(), json!(generation + 1));
    }
    md.insert(
        "deletionTimestamp".into(),
        json!(crate::clock::now_rfc3339()),
    );
    md.insert("deletionGracePeriodSeconds".into(), json!(0));
}

/// Whether a namespace's own `spec.finalizers` (`kubernetes`: its contents are not deleted yet)
/// hold `obj` once its metadata finalizers are gone, as they hold a namespace being deleted.
pub(crate) fn held_by_spec(def: &ResourceDef, obj: &Map<String, Value>) -> bool {
    def.is_core("namespaces")
        && obj
            .get("spec")
            .and_then(|s| s.get("finalizers"))
            .and_then(Value::as_array)
            .is_some_and(|f| !f.is_empty())
}

/// Keeps the server's deletion fields on a write (a client cannot set or clear them) and,
/// while the object is being deleted, refuses new finalizers. True when the write leaves no
/// finalizer on an object being deleted: it is deleted.
pub(super) fn guard_write(
    def: &ResourceDef,
    name: &str,
    old_md: &Value,
    new_md: &mut Map<String, Value>,
) -> Result<bool, ApiError> {
    for field in ["deletionTimestamp", "deletionGracePeriodSeconds"] {
        match old_md.get(field) {
            Some(value) => new_md.insert(field.into(), value.clone()),
            None => new_md.remove(field),
        };
    }
    if !being_deleted(old_md) {
        return Ok(false);
    }
    let old = finalizers(old_md);
    let new_value = Value::Object(new_md.clone());
    let new = finalizers(&new_value);
    let added: Vec<&str> = new.iter().copied().filter(|f| !old.contains(f)).collect();
    if !added.is_empty() {
        return Err(no_new_finalizers(def, name, &added));
    }
    Ok(new.is_empty())
}

/// `Kind.group`, or the bare kind of the core group.
fn qualified(def: &ResourceDef) -> String {
    if def.group.is_empty() {
        def.kind.clone()
    } else {
        format!("{}.{}", def.kind, def.group)
    }
}

/// kube-apiserver's refusal of a finalizer added to an object being deleted.
fn no_new_finalizers(def: &ResourceDef, name: &str, added: &[&str]) -> ApiError {
    let mut added = added.to_vec();
    added.sort_unstable();
    let quoted: Vec<String> = added.iter().map(|f| format!("{f:?}")).collect();
    let detail = format!(
        "Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{{{}}}",
        quoted.join(", ")
    );
    let mut error = ApiError::new(
        422,
        "Invalid",
        // The kind carries its group, as the real server writes it (`Deployment.apps "x"`).
        format!(
            "{} {name:?} is invalid: metadata.finalizers: {detail}",
            qualified(def)
        ),
    );
    error.details = Some(json!({
        "name": name, "group": def.group, "kind": def.kind,
        "causes": [{"reason": "FieldValueForbidden", "message": detail, "field": "metadata.finalizers"}],
    }));
    error
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::Registry;

    #[test]
    fn a_write_may_only_remove_finalizers_of_an_object_being_deleted() {
        let reg = Registry::default();
        let def = reg.by_name("configmaps").unwrap();
        let old = json!({"finalizers": ["a", "b"], "deletionTimestamp": "2026-01-01T00:00:00Z", "deletionGracePeriodSeconds": 0});
        let mut new = json!({"finalizers": ["a", "c"]})
            .as_object()
            .unwrap()
            .clone();
        let err = guard_write(&def, "x", &old, &mut new).unwrap_err();
        assert_eq!(err.code, 422);
        assert!(
            err.message.contains("found new finalizers []string{\"c\"}"),
            "{}",
            err.message
        );
        let mut fewer = json!({"finalizers": ["a"]}).as_object().unwrap().clone();
        assert!(!guard_write(&def, "x", &old, &mut fewer).unwrap());
        assert_eq!(fewer["deletionTimestamp"], "2026-01-01T00:00:00Z");
        let mut none = json!({}).as_object().unwrap().clone();
        assert!(
            guard_write(&def, "x", &old, &mut none).unwrap(),
            "the last one removed"
        );
        let mut cleared = json!({"deletionTimestamp": null})
            .as_object()
            .unwrap()
            .clone();
        let live = json!({"finalizers": ["a"]});
        assert!(!guard_write(&def, "x", &live, &mut cleared).unwrap());
        assert!(
            !cleared.contains_key("deletionTimestamp"),
            "a client cannot set it"
        );
    }
}
