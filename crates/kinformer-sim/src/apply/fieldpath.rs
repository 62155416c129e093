//! Field sets as server-side apply records them in `fieldsV1`: a path is a list of elements, `f:name`
//! for a field, `k:{"name":"a"}` for the item of a keyed list, `v:"x"` for an item of a set; a set
//! holds the paths a manager owns (a node with children owns itself when it carries `.`).

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use crate::managed_fields::KEYED;

/// One path: fieldsV1 element strings, outermost first.
pub(crate) type Path = Vec<String>;

/// Maps whose keys are chosen by users: owning the map itself (`.`) is recorded on update.
const MAPS: &[&str] = &[
    "labels",
    "annotations",
    "data",
    "binaryData",
    "nodeSelector",
    "matchLabels",
];

/// Lists that are sets of scalars (items owned one by one as `v:`).
const SETS: &[&str] = &["finalizers"];

/// Fields no manager owns: identity and what the server maintains.
const UNOWNED_METADATA: &[&str] = &[
    "name",
    "namespace",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "managedFields",
    "selfLink",
];

/// A set of owned paths.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct FieldSet(pub(crate) BTreeSet<Path>);

/// How a set is derived from an object: an applier owns exactly what it sent; an update also owns
/// the user-keyed maps it created.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    Apply,
    Update,
}

impl FieldSet {
    /// Reads a `fieldsV1` tree.
    pub(crate) fn from_fields_v1(tree: &Value) -> Self {
        fn walk(node: &Value, path: &mut Path, out: &mut BTreeSet<Path>) {
            let Some(children) = node.as_object() else {
                return;
            };
            if children.is_empty() && !path.is_empty() {
                out.insert(path.clone());
            }
            for (k, child) in children {
                if k == "." {
                    out.insert(path.clone());
                } else {
                    path.push(k.clone());
                    walk(child, path, out);
                    path.pop();
                }
            }
        }
        let mut out = BTreeSet::new();
        walk(tree, &mut Vec::new(), &mut out);
        out.remove(&Vec::new());
        Self(out)
    }

    /// Writes the `fieldsV1` tree.
    pub(crate) fn to_fields_v1(&self) -> Value {
        let mut root = Map::new();
        for path in &self.0 {
            let mut node = &mut root;
            for (depth, element) in path.iter().enumerate() {
                // A member with members under it is marked `.`.
                if depth > 0 && self.0.contains(&path[..depth]) {
                    node.insert(".".into(), json!({}));
                }
                let child = node.entry(element.clone()).or_insert_with(|| json!({}));
                if !child.is_object() {
                    *child = json!({});
                }
                let Value::Object(next) = child else {
                    unreachable!("made an object above")
                };
                node = next;
            }
        }
        Value::Object(root)
    }

    /// The paths of `obj`'s fields, identity and server-maintained fields left out.
    pub(crate) fn of_object(obj: &Value, style: Style) -> Self {
        let mut out = BTreeSet::new();
        if let Value::Object(fields) = obj {
            for (k, v) in fields {
                if k == "kind" || k == "apiVersion" || v.is_null() {
                    continue;
                }
                let mut path = vec![format!("f:{k}")];
                if k == "metadata" {
                    for (mk, mv) in v.as_object().into_iter().flatten() {
                        if !UNOWNED_METADATA.contains(&mk.as_str()) && !mv.is_null() {
                            path.push(format!("f:{mk}"));
                            collect(mk, mv, style, &mut path, &mut out);
                            path.pop();
                        }
                    }
                } else {
                    collect(k, v, style, &mut path, &mut out);
                }
            }
        }
        Self(out)
    }

    pub(crate) fn contains(&self, path: &Path) -> bool {
        self.0.contains(path)
    }

    /// Whether `path` or anything under it is in the set.
    pub(crate) fn covers(&self, path: &Path) -> bool {
        self.0
            .range(path.clone()..)
            .next()
            .is_some_and(|p| p.starts_with(path))
    }

    /// Whether `path` is a leaf of this set (no member under it).
    pub(crate) fn is_leaf(&self, path: &Path) -> bool {
        !self
            .0
            .range(path.clone()..)
            .nth(1)
            .is_some_and(|next| next.starts_with(path))
    }
}

fn collect(name: &str, value: &Value, style: Style, path: &mut Path, out: &mut BTreeSet<Path>) {
    match value {
        Value::Object(fields) if !fields.is_empty() => {
            if style == Style::Update && MAPS.contains(&name) {
                out.insert(path.clone());
            }
            for (k, v) in fields {
                if v.is_null() {
                    continue;
                }
                path.push(format!("f:{k}"));
                collect(k, v, style, path, out);
                path.pop();
            }
        }
        Value::Array(items)
            if !items.is_empty() && (key_fields(name).is_some() || SETS.contains(&name)) =>
        {
            for item in items {
                match key_fields(name) {
                    Some(key) => {
                        path.push(item_key(item, key));
                        out.insert(path.clone());
                        collect("", item, style, path, out);
                    }
                    None => {
                        path.push(format!("v:{item}"));
                        out.insert(path.clone());
                    }
                }
                path.pop();
            }
        }
        // A scalar, an atomic list, or an empty map: owned whole.
        _ => {
            out.insert(path.clone());
        }
    }
}

pub(crate) fn key_fields(list: &str) -> Option<&'static [&'static str]> {
    KEYED.iter().find(|(l, _)| *l == list).map(|(_, key)| *key)
}

/// `k:{"name":"app"}`: an item's key fields, compact JSON in key order.
fn item_key(item: &Value, key: &[&str]) -> String {
    let fields: Map<String, Value> = key
        .iter()
        .filter_map(|k| item.get(*k).map(|v| ((*k).to_owned(), v.clone())))
        .collect();
    format!("k:{}", Value::Object(fields))
}

/// Whether `item` is the list item an element (`k:` or `v:`) names.
fn item_matches(item: &Value, element: &str) -> bool {
    if let Some(key) = element.strip_prefix("k:") {
        let Ok(Value::Object(key)) = serde_json::from_str::<Value>(key) else {
            return false;
        };
        key.iter().all(|(k, v)| item.get(k) == Some(v))
    } else if let Some(v) = element.strip_prefix("v:") {
        serde_json::from_str::<Value>(v).is_ok_and(|v| &v == item)
    } else {
        false
    }
}

/// The value at `path` in `obj`.
pub(crate) fn get<'a>(obj: &'a Value, path: &[String]) -> Option<&'a Value> {
    path.iter()
        .try_fold(obj, |cur, element| match element.strip_prefix("f:") {
            Some(field) => cur.as_object()?.get(field),
            None => cur
                .as_array()?
                .iter()
                .find(|item| item_matches(item, element)),
        })
}

/// Removes the value at `path` from `obj`, if there.
pub(crate) fn remove(obj: &mut Value, path: &[String]) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut cur = obj;
    for element in parents {
        let next = match element.strip_prefix("f:") {
            Some(field) => cur.as_object_mut().and_then(|m| m.get_mut(field)),
            None => cur
                .as_array_mut()
                .and_then(|a| a.iter_mut().find(|item| item_matches(item, element))),
        };
        let Some(next) = next else { return };
        cur = next;
    }
    match last.strip_prefix("f:") {
        Some(field) => {
            if let Some(m) = cur.as_object_mut() {
                m.remove(field);
            }
        }
        None => {
            if let Some(a) = cur.as_array_mut() {
                a.retain(|item| !item_matches(item, last));
            }
        }
    }
}

/// A path as conflict messages print it: `.spec.containers[name="app"].image`.
pub(crate) fn display(path: &[String]) -> String {
    let mut out = String::new();
    for element in path {
        if let Some(field) = element.strip_prefix("f:") {
            out.push('.');
            out.push_str(field);
        } else if let Some(key) = element.strip_prefix("k:") {
            let fields = serde_json::from_str::<Map<String, Value>>(key).unwrap_or_default();
            let parts: Vec<String> = fields.iter().map(|(k, v)| format!("{k}={v}")).collect();
            out.push_str(&format!("[{}]", parts.join(",")));
        } else if let Some(v) = element.strip_prefix("v:") {
            out.push_str(&format!("[={v}]"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(elements: &[&str]) -> Path {
        elements.iter().map(|e| (*e).to_owned()).collect()
    }

    #[test]
    fn apply_sets_hold_exactly_the_sent_fields() {
        let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "labels": {"a": "1"}}, "data": {"k": "v"}});
        let set = FieldSet::of_object(&cm, Style::Apply);
        assert_eq!(
            set.to_fields_v1(),
            json!({"f:data": {"f:k": {}}, "f:metadata": {"f:labels": {"f:a": {}}}})
        );
        let update = FieldSet::of_object(&cm, Style::Update);
        assert_eq!(
            update.to_fields_v1(),
            json!({"f:data": {".": {}, "f:k": {}}, "f:metadata": {"f:labels": {".": {}, "f:a": {}}}})
        );
        assert_eq!(FieldSet::from_fields_v1(&update.to_fields_v1()), update);
    }

    #[test]
    fn keyed_items_and_sets() {
        let pod = json!({"metadata": {"finalizers": ["x"]}, "spec": {"containers": [{"name": "app", "image": "i:1"}], "args": ["a"]}});
        let set = FieldSet::of_object(&pod, Style::Apply);
        assert_eq!(
            set.to_fields_v1(),
            json!({
            "f:metadata": {"f:finalizers": {"v:\"x\"": {}}},
            "f:spec": {"f:args": {}, "f:containers": {"k:{\"name\":\"app\"}": {".": {}, "f:image": {}, "f:name": {}}}}})
        );
        let image = p(&["f:spec", "f:containers", "k:{\"name\":\"app\"}", "f:image"]);
        assert!(set.contains(&image) && set.is_leaf(&image));
        assert!(set.covers(&p(&["f:spec", "f:containers"])));
        assert_eq!(get(&pod, &image), Some(&json!("i:1")));
        assert_eq!(display(&image), ".spec.containers[name=\"app\"].image");
        assert_eq!(
            display(&p(&["f:metadata", "f:finalizers", "v:\"x\""])),
            ".metadata.finalizers[=\"x\"]"
        );
        let mut pod2 = pod;
        remove(
            &mut pod2,
            &p(&["f:spec", "f:containers", "k:{\"name\":\"app\"}"]),
        );
        remove(&mut pod2, &p(&["f:metadata", "f:finalizers", "v:\"x\""]));
        remove(&mut pod2, &p(&["f:nope", "f:x"]));
        assert_eq!(
            pod2,
            json!({"metadata": {"finalizers": []}, "spec": {"containers": [], "args": ["a"]}})
        );
    }
}
