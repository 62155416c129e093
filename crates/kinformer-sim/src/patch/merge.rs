//! RFC 7386 JSON merge patch: objects merge, `null` deletes, everything else (lists included)
//! replaces.

use serde_json::{Map, Value};

/// Applies `patch` to `target` in place.
pub(crate) fn merge_patch(target: &mut Value, patch: &Value) {
    let Value::Object(patch_map) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    if let Value::Object(t) = target {
        for (k, v) in patch_map {
            if v.is_null() {
                t.remove(k);
            } else {
                merge_patch(t.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn follows_rfc7386() {
        let mut t = json!({"a": {"b": 1, "c": 2}, "d": [1]});
        merge_patch(&mut t, &json!({"a": {"b": null, "e": 3}, "d": [2]}));
        assert_eq!(t, json!({"a": {"c": 2, "e": 3}, "d": [2]}));
        // The RFC's appendix: a non-object patch replaces the whole target.
        let mut t = json!({"a": "b"});
        merge_patch(&mut t, &json!(["c"]));
        assert_eq!(t, json!(["c"]));
        let mut t = json!([1]);
        merge_patch(&mut t, &json!({"a": {"bb": {"ccc": null}}}));
        assert_eq!(t, json!({"a": {"bb": {}}}));
    }
}
