//! Field errors as `k8s.io/apimachinery`'s `field.Error` writes them, and the 422 Invalid
//! answer kube-apiserver builds from them for a custom resource.

use serde_json::{Value, json};

use super::go_text;
use crate::status::ApiError;

/// One problem with a schema or an object: the cause of a 422, in kube-apiserver's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FieldError {
    /// The field path as kube writes it (`spec.items[0].name`).
    pub(crate) field: String,
    /// The cause reason (`FieldValueTypeInvalid`, `FieldValueRequired`, ...).
    pub(crate) reason: &'static str,
    /// The full message, `field: body`, as it appears in the Status message.
    pub(crate) message: String,
}

impl FieldError {
    fn new(field: &str, reason: &'static str, body: String) -> Self {
        Self {
            field: field.to_owned(),
            reason,
            message: format!("{field}: {body}"),
        }
    }

    /// The message without its `field: ` prefix: a Status cause's `message`.
    pub(crate) fn body(&self) -> &str {
        self.message
            .strip_prefix(&self.field)
            .and_then(|rest| rest.strip_prefix(": "))
            .unwrap_or(&self.message)
    }

    /// The same error on another field, as apiextensions re-roots kube-openapi's errors.
    pub(super) fn moved_to(&self, field: &str) -> Self {
        Self::new(field, self.reason, self.body().to_owned())
    }

    /// `field.TypeInvalid`: the bad value here is a type name, quoted.
    pub(super) fn type_invalid(field: &str, bad: &str, detail: &str) -> Self {
        let body = format!("Invalid value: {}: {detail}", go_text::quote(bad));
        Self::new(field, "FieldValueTypeInvalid", body)
    }

    /// `field.Invalid`, `bad` already written as Go writes a bad value.
    pub(super) fn invalid(field: &str, bad: &str, detail: &str) -> Self {
        Self::new(
            field,
            "FieldValueInvalid",
            with_detail(format!("Invalid value: {bad}"), detail),
        )
    }

    /// `field.NotSupported`: the value and the quoted list of supported values.
    pub(super) fn not_supported(field: &str, bad: &str, supported: &[String]) -> Self {
        let quoted: Vec<String> = supported.iter().map(|v| go_text::quote(v)).collect();
        let detail = if quoted.is_empty() {
            String::new()
        } else {
            format!("supported values: {}", quoted.join(", "))
        };
        Self::new(
            field,
            "FieldValueNotSupported",
            with_detail(format!("Unsupported value: {bad}"), &detail),
        )
    }

    /// `field.Required`: a missing field, with an optional reason.
    pub(super) fn required(field: &str, detail: &str) -> Self {
        Self::new(
            field,
            "FieldValueRequired",
            with_detail("Required value".to_owned(), detail),
        )
    }

    /// `field.Forbidden`: a field that must not be set here.
    pub(super) fn forbidden(field: &str, detail: &str) -> Self {
        Self::new(
            field,
            "FieldValueForbidden",
            with_detail("Forbidden".to_owned(), detail),
        )
    }

    /// `field.Duplicate`: a repeated set item or map-list key.
    pub(super) fn duplicate(field: &str, bad: &str) -> Self {
        Self::new(
            field,
            "FieldValueDuplicate",
            format!("Duplicate value: {bad}"),
        )
    }

    /// `field.TooLong`, which names the limit in bytes though kube-openapi counts characters.
    pub(super) fn too_long(field: &str, max: i64) -> Self {
        let unit = if max == 1 { "byte" } else { "bytes" };
        Self::new(
            field,
            "FieldValueTooLong",
            format!("Too long: may not be more than {max} {unit}"),
        )
    }

    /// `field.TooMany`, used for both `maxItems` and `maxProperties`.
    pub(super) fn too_many(field: &str, actual: usize, max: i64) -> Self {
        let unit = if max == 1 { "item" } else { "items" };
        Self::new(
            field,
            "FieldValueTooMany",
            format!("Too many: {actual}: must have at most {max} {unit}"),
        )
    }
}

fn with_detail(head: String, detail: &str) -> String {
    if detail.is_empty() {
        head
    } else {
        format!("{head}: {detail}")
    }
}

/// The 422 Invalid kube-apiserver answers for a custom resource that fails its schema:
/// `Kind.group "name" is invalid: [a, b]` (no brackets for one error) with every cause.
pub(crate) fn invalid_custom_resource(
    kind: &str,
    group: &str,
    name: &str,
    errors: &[FieldError],
) -> ApiError {
    let listed: Vec<&str> = errors.iter().map(|e| e.message.as_str()).collect();
    let joined = match listed.as_slice() {
        [one] => (*one).to_owned(),
        many => format!("[{}]", many.join(", ")),
    };
    let qualified = if group.is_empty() {
        kind.to_owned()
    } else {
        format!("{kind}.{group}")
    };
    let mut e = ApiError::new(
        422,
        "Invalid",
        format!("{qualified} {} is invalid: {joined}", go_text::quote(name)),
    );
    let causes: Vec<Value> = errors
        .iter()
        .map(|e| json!({"reason": e.reason, "message": e.body(), "field": e.field}))
        .collect();
    e.details = Some(json!({"name": name, "group": group, "kind": kind, "causes": causes}));
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_error_has_no_brackets_and_many_do() {
        let size = FieldError::type_invalid(
            "spec.size",
            "string",
            "spec.size in body must be of type integer: \"string\"",
        );
        let color = FieldError::not_supported(
            "spec.color",
            "\"green\"",
            &["red".to_owned(), "blue".to_owned()],
        );
        let one =
            invalid_custom_resource("Gadget", "example.com", "g1", std::slice::from_ref(&size))
                .status();
        assert_eq!(
            one["message"],
            "Gadget.example.com \"g1\" is invalid: spec.size: Invalid value: \"string\": spec.size in body must be of type integer: \"string\""
        );
        let both = invalid_custom_resource("Gadget", "example.com", "g1", &[size, color]).status();
        assert_eq!(
            both["message"],
            "Gadget.example.com \"g1\" is invalid: [spec.size: Invalid value: \"string\": spec.size in body must be of type integer: \"string\", spec.color: Unsupported value: \"green\": supported values: \"red\", \"blue\"]"
        );
        assert_eq!(both["code"], 422);
        assert_eq!(both["reason"], "Invalid");
        assert_eq!(
            both["details"],
            json!({"name": "g1", "group": "example.com", "kind": "Gadget", "causes": [
                {"reason": "FieldValueTypeInvalid", "message": "Invalid value: \"string\": spec.size in body must be of type integer: \"string\"", "field": "spec.size"},
                {"reason": "FieldValueNotSupported", "message": "Unsupported value: \"green\": supported values: \"red\", \"blue\"", "field": "spec.color"},
            ]})
        );
    }

    #[test]
    fn limits_name_their_units() {
        assert_eq!(
            FieldError::too_long("a", 1).body(),
            "Too long: may not be more than 1 byte"
        );
        assert_eq!(
            FieldError::too_many("a", 4, 3).body(),
            "Too many: 4: must have at most 3 items"
        );
        assert_eq!(FieldError::required("a", "").body(), "Required value");
    }
}
