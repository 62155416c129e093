//! Strategic merge patch, as built-in types take it: maps merge, lists with a patch merge key merge
//! item by item (containers by name, conditions by type, ...), and the directives `$patch`
//! (`merge`/`replace`/`delete`), `$retainKeys`, `$deleteFromPrimitiveList/<list>` and
//! `$setElementOrder/<list>` are honoured.

use serde_json::{Map, Value};

use crate::managed_fields::KEYED;

/// Lists of scalars whose patch strategy is `merge` (the patch's values are added).
const MERGED_SCALAR_LISTS: &[&str] = &["finalizers"];

/// The patch merge key of the list called `field`, if it merges item by item.
pub(crate) fn merge_key(field: &str) -> Option<&'static str> {
    KEYED
        .iter()
        .find(|(list, _)| *list == field)
        .and_then(|(_, key)| key.first().copied())
}

/// Applies `patch` (a JSON object) to `target`. Errors are messages for a 400 answer.
pub(crate) fn apply(target: &mut Value, patch: &Value) -> Result<(), String> {
    let Value::Object(patch) = patch else {
        return Err("a strategic merge patch must be a JSON object".to_owned());
    };
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    if let Value::Object(t) = target
        && merge_map(t, patch)? == Outcome::Delete
    {
        t.clear();
    }
    Ok(())
}

#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    Keep,
    Delete,
}

fn merge_map(
    target: &mut Map<String, Value>,
    patch: &Map<String, Value>,
) -> Result<Outcome, String> {
    match patch.get("$patch").map(|d| d.as_str()) {
        None | Some(Some("merge")) => {}
        Some(Some("replace")) => {
            *target = strip(patch);
            return Ok(Outcome::Keep);
        }
        Some(Some("delete")) => return Ok(Outcome::Delete),
        Some(other) => {
            return Err(format!(
                "Unknown patch type: {}",
                other.unwrap_or("non-string")
            ));
        }
    }
    let mut orders = Vec::new();
    for (key, value) in patch {
        if let Some(field) = key.strip_prefix("$deleteFromPrimitiveList/") {
            let remove = value
                .as_array()
                .ok_or("$deleteFromPrimitiveList must be a list")?;
            if let Some(Value::Array(list)) = target.get_mut(field) {
                list.retain(|v| !remove.contains(v));
            }
        } else if let Some(field) = key.strip_prefix("$setElementOrder/") {
            orders.push((
                field,
                value.as_array().ok_or("$setElementOrder must be a list")?,
            ));
        } else if key.starts_with('$') {
            // `$patch` was handled above; `$retainKeys` after the merge.
        } else if value.is_null() {
            target.remove(key);
        } else {
            merge_field(target, key, value)?;
        }
    }
    for (field, order) in orders {
        if let Some(Value::Array(list)) = target.get_mut(field) {
            reorder(list, order, merge_key(field));
        }
    }
    if let Some(retain) = patch.get("$retainKeys") {
        let keep: Vec<&str> = retain
            .as_array()
            .ok_or("$retainKeys must be a list")?
            .iter()
            .filter_map(Value::as_str)
            .collect();
        target.retain(|k, _| keep.contains(&k.as_str()));
    }
    Ok(Outcome::Keep)
}

fn merge_field(target: &mut Map<String, Value>, key: &str, value: &Value) -> Result<(), String> {
    match value {
        Value::Object(p) => {
            let slot = target.entry(key.to_owned()).or_insert(Value::Null);
            if !slot.is_object() {
                *slot = Value::Object(Map::new());
            }
            if let Value::Object(t) = slot
                && merge_map(t, p)? == Outcome::Delete
            {
                target.remove(key);
            }
        }
        Value::Array(items) => {
            let merged = match (merge_key(key), target.remove(key)) {
                (Some(mk), Some(Value::Array(current))) => merge_keyed(current, items, mk)?,
                (None, Some(Value::Array(mut current))) if MERGED_SCALAR_LISTS.contains(&key) => {
                    for v in items {
                        if !current.contains(v) {
                            current.push(v.clone());
                        }
                    }
                    current
                }
                (Some(mk), _) => merge_keyed(Vec::new(), items, mk)?,
                _ => items.iter().map(strip_value).collect(),
            };
            target.insert(key.to_owned(), Value::Array(merged));
        }
        scalar => {
            target.insert(key.to_owned(), scalar.clone());
        }
    }
    Ok(())
}

fn merge_keyed(mut current: Vec<Value>, patch: &[Value], key: &str) -> Result<Vec<Value>, String> {
    if patch
        .iter()
        .any(|p| p.get("$patch").and_then(Value::as_str) == Some("replace"))
    {
        return Ok(patch
            .iter()
            .filter(|p| p.get("$patch").is_none())
            .map(strip_value)
            .collect());
    }
    for item in patch {
        let Value::Object(p) = item else {
            return Err(format!(
                "the list merged by key {key:?} holds a non-object item"
            ));
        };
        let Some(k) = p.get(key) else {
            return Err(format!(
                "map: {item} does not contain declared merge key: {key}"
            ));
        };
        let position = current.iter().position(|c| c.get(key) == Some(k));
        if p.get("$patch").and_then(Value::as_str) == Some("delete") {
            current.retain(|c| c.get(key) != Some(k));
            continue;
        }
        match position.and_then(|i| current.get_mut(i).map(|c| (i, c))) {
            Some((i, Value::Object(c))) => {
                if merge_map(c, p)? == Outcome::Delete {
                    current.remove(i);
                }
            }
            _ => current.push(strip_value(item)),
        }
    }
    Ok(current)
}

/// Puts the items named by `order` first, in its order; the others follow as they were.
fn reorder(list: &mut Vec<Value>, order: &[Value], key: Option<&str>) {
    let matches = |item: &Value, o: &Value| match key {
        Some(k) => item.get(k).is_some() && item.get(k) == o.get(k),
        None => item == o,
    };
    let mut rest = std::mem::take(list);
    for o in order {
        if let Some(i) = rest.iter().position(|item| matches(item, o)) {
            list.push(rest.remove(i));
        }
    }
    list.append(&mut rest);
}

fn strip(map: &Map<String, Value>) -> Map<String, Value> {
    map.iter()
        .filter(|(k, _)| !k.starts_with('$'))
        .map(|(k, v)| (k.clone(), strip_value(v)))
        .collect()
}

/// The value with every directive removed, as it is stored when nothing is there to merge with.
fn strip_value(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(strip(m)),
        Value::Array(items) => Value::Array(items.iter().map(strip_value).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn patched(mut target: Value, patch: Value) -> Value {
        apply(&mut target, &patch).unwrap();
        target
    }

    #[test]
    fn keyed_lists_merge_item_by_item() {
        let pod = json!({"spec": {"containers": [
            {"name": "a", "image": "a:1", "env": [{"name": "X", "value": "1"}]},
            {"name": "b", "image": "b:1"}]}});
        let out = patched(
            pod.clone(),
            json!({"spec": {"containers": [
            {"name": "a", "image": "a:2", "env": [{"name": "Y", "value": "2"}]},
            {"name": "c", "image": "c:1"}]}}),
        );
        assert_eq!(
            out["spec"]["containers"],
            json!([
            {"name": "a", "image": "a:2", "env": [{"name": "X", "value": "1"}, {"name": "Y", "value": "2"}]},
            {"name": "b", "image": "b:1"},
            {"name": "c", "image": "c:1"}])
        );
        let out = patched(
            pod.clone(),
            json!({"spec": {"containers": [{"name": "b", "$patch": "delete"}]}}),
        );
        assert_eq!(out["spec"]["containers"].as_array().unwrap().len(), 1);
        let out = patched(
            pod,
            json!({"spec": {"containers": [{"$patch": "replace"}, {"name": "z"}]}}),
        );
        assert_eq!(out["spec"]["containers"], json!([{"name": "z"}]));
    }

    #[test]
    fn directives_and_plain_fields() {
        let obj = json!({"metadata": {"finalizers": ["a"], "labels": {"x": "1", "y": "2"}},
                         "spec": {"args": ["1", "2"], "strategy": {"type": "Recreate", "rollingUpdate": {"maxSurge": 1}}}});
        let out = patched(
            obj,
            json!({
                "metadata": {"finalizers": ["b"], "labels": {"x": null}},
                "$deleteFromPrimitiveList/extra": ["q"],
                "spec": {"args": ["3"], "strategy": {"$retainKeys": ["type"], "type": "RollingUpdate"}},
            }),
        );
        assert_eq!(
            out,
            json!({"metadata": {"finalizers": ["a", "b"], "labels": {"y": "2"}},
                               "spec": {"args": ["3"], "strategy": {"type": "RollingUpdate"}}})
        );
        let out = patched(
            json!({"metadata": {"finalizers": ["a", "b", "c"]}, "data": {"k": "v"}}),
            json!({
                "metadata": {"$deleteFromPrimitiveList/finalizers": ["b"], "$setElementOrder/finalizers": ["c", "a"]},
                "data": {"$patch": "delete"},
            }),
        );
        assert_eq!(out, json!({"metadata": {"finalizers": ["c", "a"]}}));
        let out = patched(
            json!({"data": {"a": "1"}}),
            json!({"data": {"$patch": "replace", "b": "2"}}),
        );
        assert_eq!(out, json!({"data": {"b": "2"}}));
    }

    #[test]
    fn malformed_patches_are_errors() {
        let mut t = json!({"spec": {"containers": [{"name": "a"}]}});
        assert!(apply(&mut t, &json!({"spec": {"containers": [{"image": "x"}]}})).is_err());
        assert!(apply(&mut t, &json!({"spec": {"containers": ["x"]}})).is_err());
        assert!(apply(&mut t, &json!({"$patch": "explode"})).is_err());
        assert!(apply(&mut t, &json!([1])).is_err());
    }
}
