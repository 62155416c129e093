//! JSON written in a Go struct's field order. The sim's maps sort their keys, but an annotation a
//! conversion writes is a string, compared byte for byte: it must read exactly as Go's
//! `encoding/json` writes the struct, fields in declaration order.

use serde_json::Value;

/// One JSON object under construction, its fields in the order they are added.
#[derive(Debug, Default)]
pub(crate) struct GoObject {
    out: String,
}

impl GoObject {
    /// An empty object.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Adds `name` with `value` already written as JSON.
    pub(crate) fn raw(mut self, name: &str, json: &str) -> Self {
        self.out.push(if self.out.is_empty() { '{' } else { ',' });
        self.out
            .push_str(&Value::String(name.to_owned()).to_string());
        self.out.push(':');
        self.out.push_str(json);
        self
    }

    /// Adds `name` with `value` (Go's `omitempty` left to the caller).
    pub(crate) fn value(self, name: &str, value: &Value) -> Self {
        self.raw(name, &value.to_string())
    }

    /// Adds `name` when `value` is there (a pointer or `omitempty` field).
    pub(crate) fn some(self, name: &str, value: Option<&Value>) -> Self {
        match value {
            Some(v) if !v.is_null() => self.value(name, v),
            _ => self,
        }
    }

    /// Adds `name` as Go writes a field it always writes: `null` when absent.
    pub(crate) fn or_null(self, name: &str, value: Option<&Value>) -> Self {
        self.value(name, value.unwrap_or(&Value::Null))
    }

    /// Adds `name` holding an already ordered object, when there is one.
    pub(crate) fn object(self, name: &str, object: Option<String>) -> Self {
        match object {
            Some(json) => self.raw(name, &json),
            None => self,
        }
    }

    /// Adds a `metav1.LabelSelector` when `value` is one, in its Go field order.
    pub(crate) fn selector(self, name: &str, value: Option<&Value>) -> Self {
        self.object(name, value.filter(|v| v.is_object()).map(selector))
    }

    /// The object's text.
    pub(crate) fn finish(mut self) -> String {
        if self.out.is_empty() {
            self.out.push('{');
        }
        self.out.push('}');
        self.out
    }
}

/// A `metav1.LabelSelector` as Go writes it: `matchLabels` before `matchExpressions`, each
/// requirement's `key`, `operator`, `values`.
fn selector(value: &Value) -> String {
    let labels = value
        .get("matchLabels")
        .filter(|l| l.as_object().is_some_and(|m| !m.is_empty()));
    let expressions = value
        .get("matchExpressions")
        .and_then(Value::as_array)
        .filter(|list| !list.is_empty())
        .map(|list| {
            let items: Vec<String> = list
                .iter()
                .map(|r| {
                    GoObject::new()
                        .value("key", r.get("key").unwrap_or(&Value::String(String::new())))
                        .value(
                            "operator",
                            r.get("operator").unwrap_or(&Value::String(String::new())),
                        )
                        .some("values", r.get("values").filter(|v| non_empty_list(v)))
                        .finish()
                })
                .collect();
            format!("[{}]", items.join(","))
        });
    let mut object = GoObject::new().some("matchLabels", labels);
    if let Some(list) = expressions {
        object = object.raw("matchExpressions", &list);
    }
    object.finish()
}

fn non_empty_list(value: &Value) -> bool {
    value.as_array().is_some_and(|l| !l.is_empty())
}

/// A list of already written objects as a JSON array.
pub(crate) fn array(items: impl IntoIterator<Item = String>) -> String {
    let items: Vec<String> = items.into_iter().collect();
    format!("[{}]", items.join(","))
}

/// `object`'s field `name`, matched as Go's decoder matches it: exactly, else ignoring case.
pub(crate) fn field<'v>(object: &'v Value, name: &str) -> Option<&'v Value> {
    let map = object.as_object()?;
    map.get(name)
        .or_else(|| {
            map.iter()
                .find(|(key, _)| key.eq_ignore_ascii_case(name))
                .map(|(_, v)| v)
        })
        .filter(|v| !v.is_null())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn fields_keep_their_order_and_selectors_their_go_order() {
        let selector = json!({
            "matchExpressions": [{"values": ["a"], "operator": "In", "key": "tier"}],
            "matchLabels": {"b": "2", "a": "1"}
        });
        let text = GoObject::new()
            .value("zeta", &json!(1))
            .some("absent", None)
            .or_null("nothing", None)
            .selector("selector", Some(&selector))
            .finish();
        assert_eq!(
            text,
            r#"{"zeta":1,"nothing":null,"selector":{"matchLabels":{"a":"1","b":"2"},"matchExpressions":[{"key":"tier","operator":"In","values":["a"]}]}}"#
        );
        assert_eq!(GoObject::new().finish(), "{}");
    }

    #[test]
    fn fields_match_as_go_decodes_them() {
        let object = json!({"ScaleUp": 1, "scaledown": 2, "none": null});
        assert_eq!(field(&object, "ScaleUp"), Some(&json!(1)));
        assert_eq!(field(&object, "ScaleDown"), Some(&json!(2)));
        assert_eq!(field(&object, "none"), None);
    }
}
