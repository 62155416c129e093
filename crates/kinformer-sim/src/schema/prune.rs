//! Pruning as kube-apiserver prunes a custom resource: every field the schema does not
//! declare goes, except under `x-kubernetes-preserve-unknown-fields` and the `apiVersion`,
//! `kind` and `metadata` of a resource (the root or an embedded one); an embedded resource's
//! metadata keeps only ObjectMeta's fields. Then non-nullable nulls without a default go.
//!
//! Recursion follows the schema, except below a key with no schema, where arrays are walked
//! to their depth; JSON decoding bounds that (128 levels) before an object gets here.

use serde_json::{Map, Value};

use super::node::Node;

/// The fields of `metav1.ObjectMeta`, all an embedded resource's metadata may hold.
const OBJECT_META: [&str; 15] = [
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
];

const META_FIELDS: [&str; 3] = ["apiVersion", "kind", "metadata"];

/// Prunes `obj` (a whole resource) and returns the pruned fields' paths, sorted.
pub(super) fn root(schema: &Node, obj: &mut Value) -> Vec<String> {
    let mut pruned = Vec::new();
    object_node(Some(schema), obj, "", true, &mut pruned);
    pruned.sort();
    pruned
}

/// Prunes a value with no report, as the default values of a schema are pruned.
pub(super) fn quietly(schema: &Node, value: &mut Value) {
    object_node(Some(schema), value, "", false, &mut Vec::new());
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// Prunes `value` under `schema` (`None`: no schema, so an object loses every key).
fn object_node(
    schema: Option<&Node>,
    value: &mut Value,
    path: &str,
    resource_root: bool,
    pruned: &mut Vec<String>,
) {
    if let Some(s) = schema.filter(|s| s.preserve_unknown) {
        keep_unknown(s, value, path, resource_root, pruned);
        return;
    }
    match value {
        Value::Object(map) => {
            let Some(s) = schema else {
                pruned.extend(map.keys().map(|k| join(path, k)));
                map.clear();
                return;
            };
            let resource = resource_root || s.embedded;
            map.retain(|key, _| {
                let keep = (resource && META_FIELDS.contains(&key.as_str()))
                    || s.field_schema(key).is_ok();
                // The root's own apiVersion, kind and metadata are never reported.
                let root_meta = path.is_empty() && META_FIELDS.contains(&key.as_str());
                if !(keep || root_meta) {
                    pruned.push(join(path, key));
                }
                keep
            });
            for (key, child) in map.iter_mut() {
                if resource && META_FIELDS.contains(&key.as_str()) {
                    continue;
                }
                object_node(
                    s.field_schema(key).ok().flatten(),
                    child,
                    &join(path, key),
                    false,
                    pruned,
                );
            }
            if s.embedded && !resource_root {
                embedded_metadata(map, path, pruned);
            }
        }
        Value::Array(items) => {
            let item_schema = schema.and_then(|s| s.items.as_deref());
            for (i, item) in items.iter_mut().enumerate() {
                object_node(item_schema, item, &format!("{path}[{i}]"), false, pruned);
            }
        }
        _ => {}
    }
}

/// Under `x-kubernetes-preserve-unknown-fields`: undeclared keys stay, declared ones are
/// pruned by their schemas.
fn keep_unknown(
    s: &Node,
    value: &mut Value,
    path: &str,
    resource_root: bool,
    pruned: &mut Vec<String>,
) {
    match value {
        Value::Object(map) => {
            let resource = resource_root || s.embedded;
            for (key, child) in map.iter_mut() {
                if resource && META_FIELDS.contains(&key.as_str()) {
                    continue;
                }
                if let Ok(field) = s.field_schema(key) {
                    object_node(field, child, &join(path, key), false, pruned);
                }
            }
            if s.embedded && !resource_root {
                embedded_metadata(map, path, pruned);
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = s.items.as_deref() {
                for (i, item) in items.iter_mut().enumerate() {
                    keep_unknown(item_schema, item, &format!("{path}[{i}]"), false, pruned);
                }
            }
        }
        _ => {}
    }
}

/// Drops the keys of an embedded resource's metadata that ObjectMeta does not have.
fn embedded_metadata(resource: &mut Map<String, Value>, path: &str, pruned: &mut Vec<String>) {
    let Some(Value::Object(metadata)) = resource.get_mut("metadata") else {
        return;
    };
    let prefix = join(path, "metadata");
    metadata.retain(|key, _| {
        let known = OBJECT_META.contains(&key.as_str());
        if !known {
            pruned.push(format!("{prefix}.{key}"));
        }
        known
    });
}

/// Removes nulls the schema does not allow and cannot default, as kube-apiserver does right
/// after pruning.
pub(super) fn non_nullable_nulls(schema: Option<&Node>, value: &mut Value) {
    match value {
        Value::Object(map) => {
            let field_schema = |key: &str| schema.and_then(|s| s.field_schema(key).ok().flatten());
            map.retain(|key, v| {
                !(v.is_null()
                    && field_schema(key).is_some_and(|s| !s.nullable && s.default.is_none()))
            });
            for (key, child) in map.iter_mut() {
                non_nullable_nulls(field_schema(key), child);
            }
        }
        Value::Array(items) => {
            let item_schema = schema.and_then(|s| s.items.as_deref());
            for item in items {
                non_nullable_nulls(item_schema, item);
            }
        }
        _ => {}
    }
}
