//! Validation the sim applies to written objects beyond their identity: the required fields of
//! `events.k8s.io/v1` Events.

use serde_json::{Map, Value, json};

use crate::resource::ResourceDef;
use crate::status::ApiError;

/// Checks `obj` as the API server validates a write of `def`; 422 Invalid listing every problem.
pub(crate) fn validate(def: &ResourceDef, obj: &Map<String, Value>) -> Result<(), ApiError> {
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
    let listed: Vec<String> = causes.iter().map(|(f, m, _)| format!("{f}: {m}")).collect();
    let joined = if listed.len() == 1 {
        listed[0].clone()
    } else {
        format!("[{}]", listed.join(", "))
    };
    let mut e = ApiError::new(
        422,
        "Invalid",
        format!("{}.{} {name:?} is invalid: {joined}", def.kind, def.group),
    );
    e.details = Some(json!({
        "name": name, "group": def.group, "kind": def.kind,
        "causes": causes.iter().map(|(f, m, r)| json!({"reason": r, "message": m, "field": f})).collect::<Vec<_>>(),
    }));
    Err(e)
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
