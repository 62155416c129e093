//! What the sim checks of written objects beyond their identity, in kube-apiserver's two steps:
//! decoding into the Go type (a Secret's values; a create's or update's body that fails is 400,
//! a patch whose result fails is 422 on the field `patch`), then validation (the required
//! fields of `events.k8s.io/v1` Events, 422).

use serde_json::{Map, Value, json};

use crate::resource::ResourceDef;
use crate::status::ApiError;

/// A write's `fieldValidation`: what happens to fields the type does not declare, which the
/// decoder drops.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum FieldValidation {
    /// Dropped silently.
    Ignore,
    /// Dropped, each named in a `Warning` header (the default).
    #[default]
    Warn,
    /// The write is refused, 400 naming each.
    Strict,
}

impl FieldValidation {
    /// The query value; anything else is 422 as kube-apiserver validates the write's options.
    pub(crate) fn parse(value: &str) -> Result<Self, ApiError> {
        match value {
            "" | "Warn" => Ok(Self::Warn),
            "Ignore" => Ok(Self::Ignore),
            "Strict" => Ok(Self::Strict),
            other => {
                let detail = format!(
                    "Unsupported value: {other:?}: supported values: \"\", \"Ignore\", \"Strict\", \"Warn\""
                );
                let mut e = ApiError::new(
                    422,
                    "Invalid",
                    format!("CreateOptions.meta.k8s.io \"\" is invalid: fieldValidation: {detail}"),
                );
                e.details = Some(json!({
                    "group": "meta.k8s.io", "kind": "CreateOptions",
                    "causes": [{"reason": "FieldValueNotSupported", "message": detail, "field": "fieldValidation"}],
                }));
                Err(e)
            }
        }
    }
}

/// What the API server does to a decoded write of `def` through `subresource` over `old` (none
/// for a create) before it stores it: fields the type does not declare dropped (as
/// `directive` says), the resource's defaults and rules, then validation. Returns the
/// warnings to answer with.
pub(crate) fn admit(
    def: &ResourceDef,
    old: Option<&Value>,
    obj: &mut Map<String, Value>,
    subresource: Option<&str>,
    directive: FieldValidation,
) -> Result<Vec<String>, ApiError> {
    let unknown = match &def.schema {
        _ if def.builtin => crate::known_fields::prune(def, obj),
        // A custom resource is pruned and defaulted as it is decoded.
        Some(schema) => with_value(obj, |value| {
            let pruned = schema.prune(value);
            schema.apply_defaults(value);
            pruned
        }),
        None => Vec::new(),
    };
    let warnings = unknown_fields(def, &unknown, directive)?;
    if def.is_crd() {
        crate::crd::admit(def, old.and_then(Value::as_object), obj, subresource)?;
    }
    if let Some(schema) = &def.schema {
        let errors = with_value(obj, |value| match old {
            Some(old) => schema.validate_update(value, old),
            None => schema.validate(value),
        });
        if !errors.is_empty() {
            let name = obj
                .get("metadata")
                .and_then(|m| m.get("name"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            return Err(crate::schema::invalid_custom_resource(
                &def.kind, &def.group, name, &errors,
            ));
        }
    }
    validate(def, obj)?;
    Ok(warnings)
}

/// Runs `f` on `obj` as a JSON value (what the schema functions take), in place.
fn with_value<T>(obj: &mut Map<String, Value>, f: impl FnOnce(&mut Value) -> T) -> T {
    let mut value = Value::Object(std::mem::take(obj));
    let out = f(&mut value);
    if let Value::Object(map) = value {
        *obj = map;
    }
    out
}

/// The unknown fields at `paths` as `directive` treats them: warnings, or a strict decoder's 400.
pub(crate) fn unknown_fields(
    def: &ResourceDef,
    paths: &[String],
    directive: FieldValidation,
) -> Result<Vec<String>, ApiError> {
    let listed: Vec<String> = paths
        .iter()
        .map(|p| format!("unknown field {p:?}"))
        .collect();
    match directive {
        _ if listed.is_empty() => Ok(Vec::new()),
        FieldValidation::Ignore => Ok(Vec::new()),
        FieldValidation::Warn => Ok(listed),
        FieldValidation::Strict => Err(undecodable_body(
            def,
            &format!("strict decoding error: {}", listed.join(", ")),
        )),
    }
}

/// Checks `obj` as the API server validates a write of `def`; 422 Invalid listing every problem.
fn validate(def: &ResourceDef, obj: &Map<String, Value>) -> Result<(), ApiError> {
    if def.group != "events.k8s.io" {
        return Ok(());
    }
    let present = |k: &str| obj.get(k).is_some_and(|v| !v.is_null() && v != "");
    let mut causes: Vec<(String, String, &str)> = [
        "eventTime",
        "reportingController",
        "reportingInstance",
        "action",
        "reason",
    ]
    .iter()
    .filter(|k| !present(k))
    .map(|k| {
        (
            (*k).to_owned(),
            "Required value".to_owned(),
            "FieldValueRequired",
        )
    })
    .collect();
    match obj.get("type").and_then(Value::as_str) {
        Some("Normal" | "Warning") => {}
        other => causes.push((
            "type".to_owned(),
            format!(
                "Unsupported value: {}: supported values: \"Normal\", \"Warning\"",
                json!(other.unwrap_or_default())
            ),
            "FieldValueNotSupported",
        )),
    }
    if obj
        .get("note")
        .and_then(Value::as_str)
        .is_some_and(|n| n.len() > 1024)
    {
        causes.push((
            "note".to_owned(),
            "Too long: may not be more than 1024 bytes".to_owned(),
            "FieldValueTooLong",
        ));
    }
    if causes.is_empty() {
        return Ok(());
    }
    let name = obj
        .get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    let causes = causes
        .into_iter()
        .map(|(field, detail, reason)| Cause {
            field,
            reason,
            detail,
        })
        .collect();
    Err(invalid(def, name, causes))
}

/// One problem of an invalid object: the field, the cause's reason and what is wrong with it
/// (`Required value`, `Invalid value: "x": must be ...`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Cause {
    pub(crate) field: String,
    pub(crate) reason: &'static str,
    pub(crate) detail: String,
}

impl Cause {
    pub(crate) fn new(
        field: impl Into<String>,
        reason: &'static str,
        detail: impl Into<String>,
    ) -> Self {
        Self {
            field: field.into(),
            reason,
            detail: detail.into(),
        }
    }
}

/// The 422 Invalid kube-apiserver answers for an object of `def` named `name` that fails
/// validation: every cause listed in the message (bracketed when more than one) and in the details.
pub(crate) fn invalid(def: &ResourceDef, name: &str, causes: Vec<Cause>) -> ApiError {
    invalid_named(&def.kind, &def.group, name, causes)
}

/// [`invalid`] of a kind no resource stores (a `TokenRequest`): one cause.
pub(crate) fn invalid_kind(
    kind: &str,
    group: &str,
    name: &str,
    field: &str,
    reason: &'static str,
    detail: &str,
) -> ApiError {
    invalid_named(kind, group, name, vec![Cause::new(field, reason, detail)])
}

fn invalid_named(kind: &str, group: &str, name: &str, causes: Vec<Cause>) -> ApiError {
    let listed: Vec<String> = causes
        .iter()
        .map(|c| format!("{}: {}", c.field, c.detail))
        .collect();
    let joined = if listed.len() == 1 {
        listed[0].clone()
    } else {
        format!("[{}]", listed.join(", "))
    };
    let qualified = if group.is_empty() {
        kind.to_owned()
    } else {
        format!("{kind}.{group}")
    };
    let mut e = ApiError::new(
        422,
        "Invalid",
        format!("{qualified} {name:?} is invalid: {joined}"),
    );
    e.details = Some(json!({
        "name": name, "group": group, "kind": kind,
        "causes": causes.iter().map(|c| json!({"reason": c.reason, "message": c.detail, "field": c.field})).collect::<Vec<_>>(),
    }));
    e
}

/// Whether `obj` decodes into its Go type as kube-apiserver decodes a write before validating
/// it; the decoder's message when it does not. Only a Secret's values are checked: `data`
/// values are base64 (Go's `[]byte`), `stringData` values strings.
pub(crate) fn decode(def: &ResourceDef, obj: &Map<String, Value>) -> Result<(), String> {
    use base64::Engine as _;
    if def.is_crd() {
        return crate::crd::decode(obj);
    }
    if !def.is_core("secrets") {
        return Ok(());
    }
    let unmarshal = |value: &Value, field: &str, go_type: &str| {
        format!(
            "json: cannot unmarshal {} into Go struct field Secret.{field} of type {go_type}",
            json_type(value)
        )
    };
    for (field, go_type) in [("data", "[]uint8"), ("stringData", "string")] {
        let entries = match obj.get(field) {
            None | Some(Value::Null) => continue,
            Some(Value::Object(entries)) => entries,
            Some(other) => return Err(unmarshal(other, field, &format!("map[string]{go_type}"))),
        };
        for value in entries.values() {
            match (field, value) {
                (_, Value::Null) | ("stringData", Value::String(_)) => {}
                ("data", Value::String(text)) => {
                    if let Err(e) = base64::engine::general_purpose::STANDARD.decode(text) {
                        let at = match e {
                            base64::DecodeError::InvalidByte(at, _)
                            | base64::DecodeError::InvalidLastSymbol(at, _) => at,
                            _ => text.len(),
                        };
                        return Err(format!("illegal base64 data at input byte {at}"));
                    }
                }
                (_, other) => return Err(unmarshal(other, field, go_type)),
            }
        }
    }
    Ok(())
}

/// A create's or update's body that does not decode: the handlers' 400.
pub(crate) fn undecodable_body(def: &ResourceDef, cause: &str) -> ApiError {
    ApiError::bad_request(format!(
        "{kind} in version \"{version}\" cannot be handled as a {kind}: {cause}",
        kind = def.kind,
        version = def.version
    ))
}

/// A patch whose result does not decode: kube-apiserver's patch handler answers 422 Invalid,
/// naming no kind or object, with the cause on the field `patch` and the patched object (for a
/// strategic merge patch the real server shows the patch in Go's map notation; this shows
/// the patched object) as the invalid value.
pub(crate) fn undecodable_patch(patched: &Map<String, Value>, cause: &str) -> ApiError {
    let value = Value::String(Value::Object(patched.clone()).to_string()).to_string();
    let message = format!("Invalid value: {value}: {cause}");
    let mut e = ApiError::new(
        422,
        "Invalid",
        format!(" \"\" is invalid: patch: {message}"),
    );
    e.details = Some(json!({
        "causes": [{"reason": "FieldValueInvalid", "message": message, "field": "patch"}],
    }));
    e
}

/// How Go's JSON decoder names a JSON value's type in its errors.
fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::Registry;

    #[test]
    fn events_need_their_reporting_fields() {
        let reg = Registry::default();
        let events = reg.by_path("events.k8s.io", "v1", "events").unwrap();
        let m = |v: Value| v.as_object().unwrap().clone();
        let err = validate(
            &events,
            &m(json!({"metadata": {"name": "e"}, "type": "Normal"})),
        )
        .unwrap_err();
        assert_eq!(err.code, 422);
        assert!(
            err.message
                .starts_with("Event.events.k8s.io \"e\" is invalid: [eventTime: Required value, "),
            "{}",
            err.message
        );
        let ok = json!({"metadata": {"name": "e"}, "eventTime": "2026-01-01T00:00:00.000000Z", "reportingController": "c",
                        "reportingInstance": "i", "action": "A", "reason": "R", "type": "Warning"});
        assert!(validate(&events, &m(ok)).is_ok());
        assert!(validate(&reg.by_name("configmaps").unwrap(), &m(json!({}))).is_ok());
    }
}
