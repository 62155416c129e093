//! RFC 6902 JSON patch: `add`, `remove`, `replace`, `move`, `copy` and `test` on RFC 6901 pointers.
//! Errors read as the API server's patch library words them.

use serde_json::Value;

/// Why a patch could not be used: `Decode` is a malformed document (400), `Apply` an operation
/// that does not apply to the object (422).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum JsonPatchError {
    Decode(String),
    Apply(String),
}

/// Applies every operation of `patch` (a JSON array) to `doc`, all or nothing.
pub(crate) fn apply(doc: &Value, patch: &Value) -> Result<Value, JsonPatchError> {
    let ops = patch.as_array().ok_or_else(|| {
        JsonPatchError::Decode(
            "json: cannot unmarshal object into Go value of type jsonpatch.Patch".into(),
        )
    })?;
    let mut out = doc.clone();
    for op in ops {
        apply_one(&mut out, op)?;
    }
    Ok(out)
}

fn apply_one(doc: &mut Value, op: &Value) -> Result<(), JsonPatchError> {
    let kind = op.get("op").and_then(Value::as_str).unwrap_or("unknown");
    let path = |field: &str| {
        op.get(field).and_then(Value::as_str).ok_or_else(|| {
            JsonPatchError::Apply(format!(
                "{kind} operation missing {field} field: missing value"
            ))
        })
    };
    let value = || {
        op.get("value").cloned().ok_or_else(|| {
            JsonPatchError::Apply(format!(
                "{kind} operation missing value field: missing value"
            ))
        })
    };
    match kind {
        "add" => add(doc, path("path")?, value()?),
        "remove" => remove(doc, path("path")?).map(drop),
        "replace" => {
            let p = path("path")?;
            let target = get_mut(doc, p).ok_or_else(|| {
                JsonPatchError::Apply(format!(
                    "replace operation does not apply: doc is missing key: {p}: missing value"
                ))
            })?;
            *target = value()?;
            Ok(())
        }
        "move" => {
            let (from, to) = (path("from")?, path("path")?);
            if to.starts_with(&format!("{from}/")) {
                return Err(JsonPatchError::Apply(format!(
                    "move operation does not apply: cannot move {from} into its own child {to}"
                )));
            }
            let moved = remove(doc, from)?;
            add(doc, to, moved)
        }
        "copy" => {
            let from = path("from")?;
            let copied = get(doc, from).cloned().ok_or_else(|| {
                JsonPatchError::Apply(format!(
                    "copy operation does not apply: doc is missing from path: {from}: missing value"
                ))
            })?;
            add(doc, path("path")?, copied)
        }
        "test" => {
            let p = path("path")?;
            let expected = op.get("value").unwrap_or(&Value::Null);
            match get(doc, p) {
                Some(actual) if actual == expected => Ok(()),
                None if expected.is_null() => Ok(()),
                _ => Err(JsonPatchError::Apply(format!(
                    "testing value {p} failed: test failed"
                ))),
            }
        }
        other => Err(JsonPatchError::Apply(format!("Unexpected kind: {other}"))),
    }
}

/// The unescaped tokens of a pointer (`/a~1b/~0c` is `["a/b", "~c"]`); `""` is the whole document.
fn tokens(pointer: &str) -> Result<Vec<String>, JsonPatchError> {
    if pointer.is_empty() {
        return Ok(Vec::new());
    }
    let rest = pointer
        .strip_prefix('/')
        .ok_or_else(|| JsonPatchError::Apply(format!("invalid JSON pointer: {pointer}")))?;
    Ok(rest
        .split('/')
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect())
}

fn index(token: &str, len: usize, allow_end: bool) -> Option<usize> {
    if token == "-" {
        return allow_end.then_some(len);
    }
    if token.len() > 1 && token.starts_with('0') {
        return None;
    }
    let i: usize = token.parse().ok()?;
    (i < len || (allow_end && i == len)).then_some(i)
}

fn get<'a>(doc: &'a Value, pointer: &str) -> Option<&'a Value> {
    tokens(pointer)
        .ok()?
        .iter()
        .try_fold(doc, |cur, t| match cur {
            Value::Object(m) => m.get(t),
            Value::Array(a) => a.get(index(t, a.len(), false)?),
            _ => None,
        })
}

fn get_mut<'a>(doc: &'a mut Value, pointer: &str) -> Option<&'a mut Value> {
    tokens(pointer)
        .ok()?
        .iter()
        .try_fold(doc, |cur, t| match cur {
            Value::Object(m) => m.get_mut(t),
            Value::Array(a) => {
                let i = index(t, a.len(), false)?;
                a.get_mut(i)
            }
            _ => None,
        })
}

/// The parent container of `pointer` and the last token.
fn parent<'a>(
    doc: &'a mut Value,
    pointer: &str,
    op: &str,
) -> Result<(&'a mut Value, String), JsonPatchError> {
    let mut toks = tokens(pointer)?;
    let missing = || {
        JsonPatchError::Apply(format!(
            "{op} operation does not apply: doc is missing path: \"{pointer}\": missing value"
        ))
    };
    let last = toks.pop().ok_or_else(missing)?;
    let mut cur = doc;
    for t in &toks {
        cur = match cur {
            Value::Object(m) => m.get_mut(t).ok_or_else(missing)?,
            Value::Array(a) => {
                let i = index(t, a.len(), false).ok_or_else(missing)?;
                &mut a[i]
            }
            _ => return Err(missing()),
        };
    }
    Ok((cur, last))
}

fn add(doc: &mut Value, pointer: &str, value: Value) -> Result<(), JsonPatchError> {
    if pointer.is_empty() {
        *doc = value;
        return Ok(());
    }
    let (container, last) = parent(doc, pointer, "add")?;
    match container {
        Value::Object(m) => {
            m.insert(last, value);
            Ok(())
        }
        Value::Array(a) => {
            let i = index(&last, a.len(), true).ok_or_else(|| {
                JsonPatchError::Apply(format!(
                    "add operation does not apply: index out of bounds: {pointer}"
                ))
            })?;
            a.insert(i, value);
            Ok(())
        }
        _ => Err(JsonPatchError::Apply(format!(
            "add operation does not apply: doc is missing path: \"{pointer}\": missing value"
        ))),
    }
}

fn remove(doc: &mut Value, pointer: &str) -> Result<Value, JsonPatchError> {
    let missing = || {
        JsonPatchError::Apply(format!(
            "error in remove for path: '{pointer}': missing value"
        ))
    };
    let (container, last) = parent(doc, pointer, "remove").map_err(|_| missing())?;
    match container {
        Value::Object(m) => m.remove(&last).ok_or_else(missing),
        Value::Array(a) => {
            let i = index(&last, a.len(), false).ok_or_else(missing)?;
            Ok(a.remove(i))
        }
        _ => Err(missing()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_operation() {
        let doc = json!({"data": {"a": "1", "b": "2"}, "list": [1, 2, 3], "k~/": 0});
        let patch = json!([
            {"op": "add", "path": "/data/c", "value": "3"},
            {"op": "remove", "path": "/data/a"},
            {"op": "replace", "path": "/data/b", "value": "two"},
            {"op": "move", "from": "/list/0", "path": "/list/-"},
            {"op": "copy", "from": "/data/c", "path": "/copied"},
            {"op": "add", "path": "/list/1", "value": 9},
            {"op": "test", "path": "/k~0~1", "value": 0},
            {"op": "test", "path": "/data/b", "value": "two"},
        ]);
        assert_eq!(
            apply(&doc, &patch),
            Ok(
                json!({"data": {"b": "two", "c": "3"}, "list": [2, 9, 3, 1], "copied": "3", "k~/": 0})
            )
        );
    }

    #[test]
    fn failures_are_apply_or_decode_errors() {
        let doc = json!({"data": {"a": "1"}, "list": [1]});
        let fail = |p: Value| apply(&doc, &p).unwrap_err();
        assert_eq!(
            fail(json!([{"op": "test", "path": "/data/a", "value": "2"}])),
            JsonPatchError::Apply("testing value /data/a failed: test failed".into())
        );
        assert!(matches!(
            fail(json!([{"op": "remove", "path": "/data/x"}])),
            JsonPatchError::Apply(_)
        ));
        assert!(matches!(
            fail(json!([{"op": "replace", "path": "/nope/x", "value": 1}])),
            JsonPatchError::Apply(_)
        ));
        assert!(matches!(
            fail(json!([{"op": "add", "path": "/list/5", "value": 1}])),
            JsonPatchError::Apply(_)
        ));
        assert!(matches!(
            fail(json!([{"op": "add", "path": "/list/01", "value": 1}])),
            JsonPatchError::Apply(_)
        ));
        assert!(matches!(
            fail(json!([{"op": "bogus", "path": "/a"}])),
            JsonPatchError::Apply(_)
        ));
        assert!(matches!(
            fail(json!([{"op": "add", "path": "/a"}])),
            JsonPatchError::Apply(_)
        ));
        assert!(matches!(
            fail(json!([{"op": "move", "from": "/data", "path": "/data/x"}])),
            JsonPatchError::Apply(_)
        ));
        assert!(matches!(
            fail(json!({"op": "add"})),
            JsonPatchError::Decode(_)
        ));
        // A failed operation leaves nothing half-applied: the caller's document is untouched.
        assert_eq!(doc, json!({"data": {"a": "1"}, "list": [1]}));
    }
}
