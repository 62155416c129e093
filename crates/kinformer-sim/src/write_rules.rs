//! What a write may change, by resource and subresource: the status subresource's split of an
//! object, which subresources and verbs a resource serves, and when `metadata.generation` counts
//! a change.

use serde_json::Value;

use crate::resource::ResourceDef;

/// Whether writes to the main resource leave `status` alone and `/status` writes only `status`.
pub(crate) fn has_status_subresource(def: &ResourceDef) -> bool {
    def.status_subresource
}

/// Whether `sub` (a path's trailing segment) is served for `def`.
pub(crate) fn serves_subresource(def: &ResourceDef, sub: &str) -> bool {
    match sub {
        "status" => has_status_subresource(def),
        "scale" => def.scale.is_some(),
        other => def.other_subresources.iter().any(|s| s == other),
    }
}

/// Whether `DELETE` on the collection (`deletecollection`) is served: everywhere but namespaces,
/// whose storage has no collection delete in kube-apiserver either.
pub(crate) fn serves_delete_collection(def: &ResourceDef) -> bool {
    def.verbs.allows("deletecollection")
}

/// Takes from `old` what a write through `subresource` may not change: a main-resource write
/// keeps the stored status, a status write keeps everything but the status (and the field owners,
/// which the write itself records).
pub(crate) fn restrict(def: &ResourceDef, subresource: Option<&str>, old: &Value, new: &mut Value) {
    // A CSR's approval is written as its status is.
    let subresource = match subresource {
        Some("approval") => Some("status"),
        Some(part @ ("ephemeralcontainers" | "resize")) => {
            keep_pod_part(part, old, new);
            return;
        }
        other => other,
    };
    if !has_status_subresource(def) {
        return;
    }
    let (Some(old_map), Some(new_map)) = (old.as_object(), new.as_object_mut()) else {
        return;
    };
    if subresource == Some("status") {
        let status = new_map.remove("status");
        let managed = new_map
            .get("metadata")
            .and_then(|m| m.get("managedFields"))
            .cloned();
        *new_map = old_map.clone();
        match status {
            Some(s) => new_map.insert("status".into(), s),
            None => new_map.remove("status"),
        };
        if let Some(md) = new_map.get_mut("metadata").and_then(Value::as_object_mut) {
            match managed {
                Some(m) => md.insert("managedFields".into(), m),
                None => md.remove("managedFields"),
            };
        }
    } else {
        match old_map.get("status") {
            Some(s) => new_map.insert("status".into(), s.clone()),
            None => new_map.remove("status"),
        };
    }
}

/// A pod's `ephemeralcontainers` write changes only `spec.ephemeralContainers`, a `resize`
/// write only its containers' `resources`: everything else stays as stored.
fn keep_pod_part(part: &str, old: &Value, new: &mut Value) {
    let mut kept = old.clone();
    match part {
        "ephemeralcontainers" => {
            if let Some(spec) = kept.get_mut("spec").and_then(Value::as_object_mut) {
                match new.pointer("/spec/ephemeralContainers") {
                    Some(list) => spec.insert("ephemeralContainers".into(), list.clone()),
                    None => spec.remove("ephemeralContainers"),
                };
            }
        }
        _ => {
            let wanted = new
                .pointer("/spec/containers")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            if let Some(Value::Array(containers)) = kept.pointer_mut("/spec/containers") {
                for container in containers.iter_mut() {
                    let name = container.get("name").cloned();
                    let resources = wanted
                        .iter()
                        .find(|c| c.get("name") == name.as_ref())
                        .and_then(|c| c.get("resources"));
                    if let (Some(resources), Some(c)) = (resources, container.as_object_mut()) {
                        c.insert("resources".into(), resources.clone());
                    }
                }
            }
        }
    }
    *new = kept;
}

/// What a create may not set: a custom resource with a status subresource starts without the
/// status its body carried, as kube-apiserver's custom resource strategy drops it (status is
/// written through `/status` only).
pub(crate) fn restrict_create(def: &ResourceDef, obj: &mut Value) {
    if def.is_core("namespaces")
        && let Some(map) = obj.as_object_mut()
    {
        prepare_namespace(map);
    }
    if !def.builtin
        && def.status_subresource
        && let Some(map) = obj.as_object_mut()
    {
        map.remove("status");
    }
}

/// A namespace starts Active and held by the `kubernetes` finalizer (its contents are deleted
/// before it goes), as kube-apiserver's namespace strategy prepares every create.
fn prepare_namespace(map: &mut serde_json::Map<String, Value>) {
    map.insert("status".into(), serde_json::json!({"phase": "Active"}));
    let spec = map.entry("spec").or_insert_with(|| serde_json::json!({}));
    if !spec.is_object() {
        *spec = serde_json::json!({});
    }
    let finalizers = spec.as_object_mut().map(|s| {
        s.entry("finalizers")
            .or_insert_with(|| serde_json::json!([]))
    });
    if let Some(list) = finalizers {
        if !list.is_array() {
            *list = serde_json::json!([]);
        }
        if let Value::Array(items) = list
            && !items.iter().any(|f| f == "kubernetes")
        {
            items.push(Value::from("kubernetes"));
        }
    }
}

impl ResourceDef {
    /// Whether this is the built-in core (`v1`) resource `plural`, the resources whose
    /// strategies these rules follow.
    pub(crate) fn is_core(&self, plural: &str) -> bool {
        self.builtin && self.group.is_empty() && self.plural == plural
    }
}

/// A Secret's `stringData` is write-only, as kube-apiserver stores it: each entry goes into
/// `data` base64-encoded (over a `data` entry of the same key) and `stringData` itself is
/// never stored or answered.
pub(crate) fn store_string_data(def: &ResourceDef, obj: &mut serde_json::Map<String, Value>) {
    use base64::Engine as _;
    if !def.is_core("secrets") {
        return;
    }
    let Some(string_data) = obj.remove("stringData") else {
        return;
    };
    let Value::Object(entries) = string_data else {
        return;
    };
    if entries.is_empty() {
        return;
    }
    let Some(data) = object_entry(obj, "data") else {
        return;
    };
    for (key, value) in entries {
        let text = value.as_str().unwrap_or_default();
        let encoded = base64::engine::general_purpose::STANDARD.encode(text);
        data.insert(key, Value::String(encoded));
    }
}

/// The object at `key` in `map`, made an empty one when missing or not an object (so always
/// `Some`; an `Option` only to need no panic).
fn object_entry<'a>(
    map: &'a mut serde_json::Map<String, Value>,
    key: &str,
) -> Option<&'a mut serde_json::Map<String, Value>> {
    let entry = map
        .entry(key)
        .or_insert_with(|| Value::Object(serde_json::Map::new()));
    if !entry.is_object() {
        *entry = Value::Object(serde_json::Map::new());
    }
    entry.as_object_mut()
}

/// What kube-apiserver's strategies make of every stored object of some built-in types,
/// whatever the write: a Secret's `stringData` ([`store_string_data`]), a Namespace's
/// name label ([`label_namespace_name`]).
pub(crate) fn normalize_stored(def: &ResourceDef, obj: &mut serde_json::Map<String, Value>) {
    store_string_data(def, obj);
    label_namespace_name(def, obj);
}

/// The label every Namespace carries with its own name, `kubernetes.io/metadata.name`, set
/// by kube-apiserver on every create and update whatever the body says (so a namespace
/// selector can pick namespaces by name).
pub(crate) fn label_namespace_name(def: &ResourceDef, obj: &mut serde_json::Map<String, Value>) {
    if !def.is_core("namespaces") {
        return;
    }
    let Some(Value::Object(metadata)) = obj.get_mut("metadata") else {
        return;
    };
    let Some(name) = metadata
        .get("name")
        .and_then(Value::as_str)
        .map(str::to_owned)
    else {
        return;
    };
    if let Some(labels) = object_entry(metadata, "labels") {
        labels.insert(NAMESPACE_NAME_LABEL.to_owned(), Value::String(name));
    }
}

/// The label [`label_namespace_name`] sets.
pub(crate) const NAMESPACE_NAME_LABEL: &str = "kubernetes.io/metadata.name";

/// Whether a new object starts counting generations (at 1): built-ins with a spec, except
/// Leases, and every custom resource.
pub(crate) fn starts_generation(def: &ResourceDef, obj: &serde_json::Map<String, Value>) -> bool {
    if def.builtin {
        obj.contains_key("spec") && def.plural != "leases"
    } else {
        true
    }
}

/// Whether an update from `old` to `new` bumps the generation: a built-in's spec changed; for a
/// custom resource, anything but its metadata (and its status, when it has a status subresource).
pub(crate) fn bumps_generation(
    def: &ResourceDef,
    old: &serde_json::Map<String, Value>,
    new: &serde_json::Map<String, Value>,
) -> bool {
    if def.builtin {
        return old.get("spec") != new.get("spec");
    }
    let content = |m: &serde_json::Map<String, Value>| {
        m.iter()
            .filter(|(k, _)| !matches!(k.as_str(), "metadata" | "kind" | "apiVersion"))
            .filter(|(k, _)| !(def.status_subresource && k.as_str() == "status"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect::<serde_json::Map<String, Value>>()
    };
    content(old) != content(new)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::resource::Registry;

    #[test]
    fn status_and_main_writes_split_the_object() {
        let reg = Registry::default();
        let deploy = reg.by_name("deployments").unwrap();
        let old = json!({"metadata": {"name": "d", "labels": {"a": "1"}}, "spec": {"replicas": 1}, "status": {"replicas": 1}});
        let mut main = json!({"metadata": {"name": "d", "labels": {"a": "2"}}, "spec": {"replicas": 3}, "status": {"replicas": 9}});
        restrict(&deploy, None, &old, &mut main);
        assert_eq!(
            main,
            json!({"metadata": {"name": "d", "labels": {"a": "2"}}, "spec": {"replicas": 3}, "status": {"replicas": 1}})
        );
        let mut status = json!({"metadata": {"name": "d", "labels": {"a": "3"}}, "spec": {"replicas": 5}, "status": {"observedGeneration": 2}});
        restrict(&deploy, Some("status"), &old, &mut status);
        assert_eq!(
            status,
            json!({"metadata": {"name": "d", "labels": {"a": "1"}}, "spec": {"replicas": 1}, "status": {"observedGeneration": 2}})
        );
        let cm = reg.by_name("configmaps").unwrap();
        let mut plain = json!({"status": "kept"});
        restrict(&cm, None, &old, &mut plain);
        assert_eq!(plain, json!({"status": "kept"}));
        assert!(serves_subresource(&deploy, "status") && !serves_subresource(&cm, "status"));
        assert!(serves_subresource(&deploy, "scale") && !serves_subresource(&cm, "scale"));
        assert!(!serves_subresource(&deploy, "log"));
        let rs = reg.by_name("replicasets").unwrap();
        assert!(serves_subresource(&rs, "status") && serves_subresource(&rs, "scale"));
        assert!(serves_delete_collection(&cm));
        assert!(!serves_delete_collection(
            &reg.by_name("namespaces").unwrap()
        ));
    }

    #[test]
    fn generation_counts_spec_changes() {
        let reg = Registry::default();
        let deploy = reg.by_name("deployments").unwrap();
        let m = |v: Value| v.as_object().unwrap().clone();
        let old = m(json!({"metadata": {"labels": {}}, "spec": {"replicas": 1}, "status": {}}));
        assert!(!bumps_generation(
            &deploy,
            &old,
            &m(json!({"metadata": {"labels": {"a": "b"}}, "spec": {"replicas": 1}}))
        ));
        assert!(bumps_generation(
            &deploy,
            &old,
            &m(json!({"spec": {"replicas": 2}}))
        ));
        assert!(starts_generation(&deploy, &old));
        assert!(!starts_generation(
            &reg.by_name("configmaps").unwrap(),
            &m(json!({"data": {}}))
        ));
    }

    #[test]
    fn a_custom_resource_with_a_status_subresource_splits_writes_and_counts_no_status_change() {
        use kinformer_core::Scope;

        use crate::resource::CustomResource;
        let mut reg = Registry::default();
        let cr = CustomResource::new("example.com", "v1", "Foo", "foos", Scope::Namespaced);
        let plain = reg.register(&cr).unwrap();
        let with_status = reg
            .register(
                &CustomResource::new("example.com", "v1", "Bar", "bars", Scope::Namespaced)
                    .with_status_subresource(),
            )
            .unwrap();
        assert!(!has_status_subresource(&plain));
        assert!(serves_subresource(&with_status, "status"));
        let old = json!({"metadata": {"name": "b"}, "spec": {"n": 1}, "status": {"ready": 0}});
        let mut main = json!({"metadata": {"name": "b"}, "spec": {"n": 2}, "status": {"ready": 9}});
        restrict(&with_status, None, &old, &mut main);
        assert_eq!(main["status"], json!({"ready": 0}));
        let m = |v: &Value| v.as_object().unwrap().clone();
        let status_only =
            json!({"metadata": {"name": "b"}, "spec": {"n": 1}, "status": {"ready": 1}});
        assert!(!bumps_generation(&with_status, &m(&old), &m(&status_only)));
        let mut created = old.clone();
        restrict_create(&with_status, &mut created);
        assert_eq!(created.get("status"), None, "a create cannot set status");
        let mut created = old.clone();
        restrict_create(&plain, &mut created);
        assert_eq!(created["status"], json!({"ready": 0}));
        assert!(bumps_generation(&plain, &m(&old), &m(&status_only)));
    }
}
