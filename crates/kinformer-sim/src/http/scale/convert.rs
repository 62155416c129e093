//! A stored object as an `autoscaling/v1` `Scale`, and the replicas a `Scale` asks for.

use serde_json::{Map, Value, json};

use crate::resource::{ScalePaths, SelectorSource};
use crate::status::ApiError;

/// The `apiVersion` of every `Scale`.
const SCALE_API_VERSION: &str = "autoscaling/v1";

/// The `Scale` of `obj`: its identity and resourceVersion, the desired replicas (`spec.replicas`,
/// left out at 0 as the API omits an empty field), the observed ones (`status.replicas`) and the
/// selector's string form (`status.selector`, left out when empty).
pub(super) fn scale_of(paths: &ScalePaths, obj: &Value) -> Result<Value, ApiError> {
    let mut metadata = Map::new();
    for key in [
        "name",
        "namespace",
        "uid",
        "resourceVersion",
        "creationTimestamp",
    ] {
        if let Some(v) = obj
            .pointer(&format!("/metadata/{key}"))
            .filter(|v| !v.is_null() && *v != "")
        {
            metadata.insert(key.to_owned(), v.clone());
        }
    }
    let desired = int_at(obj, &paths.spec_replicas)?.unwrap_or(paths.default_replicas);
    let observed = int_at(obj, &paths.status_replicas)?.unwrap_or(0);
    let selector = match &paths.selector {
        SelectorSource::None => String::new(),
        SelectorSource::LabelSelector(path) => match at(obj, path) {
            Some(s) => selector_string(s).map_err(ApiError::internal)?,
            None => String::new(),
        },
        SelectorSource::Text(path) => match at(obj, path) {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(other) => return Err(accessor_error(path, other, "string")),
        },
    };
    let mut spec = Map::new();
    if desired != 0 {
        spec.insert("replicas".to_owned(), json!(desired));
    }
    let mut status = json!({"replicas": observed});
    if !selector.is_empty() {
        status["selector"] = json!(selector);
    }
    Ok(json!({
        "kind": "Scale",
        "apiVersion": SCALE_API_VERSION,
        "metadata": metadata,
        "spec": spec,
        "status": status,
    }))
}

/// What a written `Scale` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Requested {
    /// `spec.replicas`; `None` when the body leaves it out (a replace then sets 0).
    pub(super) replicas: Option<i64>,
    /// `metadata.resourceVersion`: the object must still be at it.
    pub(super) resource_version: Option<u64>,
    /// `metadata.uid`: the object must have it.
    pub(super) uid: Option<String>,
}

/// Reads a `Scale` as the API server decodes and validates one: `autoscaling/v1` if it names
/// its type, `spec.replicas` an int32 (400 otherwise) and not negative (422).
pub(super) fn requested(scale: &Value, name: &str) -> Result<Requested, ApiError> {
    if let Some(v) = scale.get("apiVersion").and_then(Value::as_str)
        && v != SCALE_API_VERSION
    {
        return Err(ApiError::bad_request(format!(
            "the API version in the data ({v}) does not match the expected API version ({SCALE_API_VERSION})"
        )));
    }
    if let Some(kind) = scale.get("kind").and_then(Value::as_str)
        && !kind.is_empty()
        && kind != "Scale"
    {
        return Err(ApiError::bad_request(format!(
            "the kind in the data ({kind}) does not match the expected kind (Scale)"
        )));
    }
    let replicas = match scale.pointer("/spec/replicas") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_i64()
                .filter(|n| i32::try_from(*n).is_ok())
                .ok_or_else(|| {
                    ApiError::bad_request(format!(
                        "Scale in version \"v1\" cannot be handled as a Scale: json: cannot unmarshal {v} into Go struct field ScaleSpec.spec.replicas of type int32"
                    ))
                })?,
        ),
    };
    if let Some(n) = replicas.filter(|n| *n < 0) {
        return Err(negative_replicas(name, n));
    }
    let text = |key: &str| {
        scale
            .pointer(&format!("/metadata/{key}"))
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    let resource_version = text("resourceVersion")
        .map(|rv| {
            rv.parse()
                .map_err(|_| ApiError::bad_request(format!("invalid resource version: {rv}")))
        })
        .transpose()?;
    Ok(Requested {
        replicas,
        resource_version,
        uid: text("uid").map(str::to_owned),
    })
}

/// Sets the desired replicas of `obj` at the resource's path, making the objects on the way.
pub(super) fn set_replicas(paths: &ScalePaths, obj: &mut Value, replicas: i64) {
    let mut cur = obj;
    for segment in &paths.spec_replicas {
        if !cur.is_object() {
            *cur = json!({});
        }
        let Value::Object(map) = cur else {
            return;
        };
        cur = map.entry(segment.clone()).or_insert(Value::Null);
    }
    *cur = json!(replicas);
}

/// A `metav1.LabelSelector` in its string form, as `labels.Selector.String()` writes it:
/// requirements sorted by key, `k=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`, joined by commas;
/// an empty or null selector is the empty string.
pub(super) fn selector_string(selector: &Value) -> Result<String, String> {
    let Some(selector) = selector.as_object() else {
        return if selector.is_null() {
            Ok(String::new())
        } else {
            Err(format!("invalid label selector: {selector}"))
        };
    };
    let mut requirements: Vec<(String, String)> = Vec::new();
    if let Some(labels) = selector.get("matchLabels").and_then(Value::as_object) {
        for (key, value) in labels {
            let value = value
                .as_str()
                .ok_or_else(|| format!("invalid label value for {key}: {value}"))?;
            requirements.push((key.clone(), format!("{key}={value}")));
        }
    }
    let expressions = selector.get("matchExpressions").and_then(Value::as_array);
    for expr in expressions.into_iter().flatten() {
        let key = expr.get("key").and_then(Value::as_str).unwrap_or_default();
        let op = expr
            .get("operator")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let mut values: Vec<&str> = expr
            .get("values")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        values.sort_unstable();
        let text = match op {
            "In" | "NotIn" if values.is_empty() => {
                return Err(format!(
                    "values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty (key {key})"
                ));
            }
            "In" => format!("{key} in ({})", values.join(",")),
            "NotIn" => format!("{key} notin ({})", values.join(",")),
            "Exists" | "DoesNotExist" if !values.is_empty() => {
                return Err(format!(
                    "values: Invalid value: {values:?}: values set must be empty for exists and does not exist (key {key})"
                ));
            }
            "Exists" => key.to_owned(),
            "DoesNotExist" => format!("!{key}"),
            other => return Err(format!("{other:?} is not a valid label selector operator")),
        };
        requirements.push((key.to_owned(), text));
    }
    requirements.sort_by(|a, b| a.0.cmp(&b.0));
    let texts: Vec<String> = requirements.into_iter().map(|(_, t)| t).collect();
    Ok(texts.join(","))
}

fn at<'a>(obj: &'a Value, path: &[String]) -> Option<&'a Value> {
    path.iter().try_fold(obj, |v, segment| v.get(segment))
}

/// The integer at `path`; `None` when it is missing or null; a 500 naming the type otherwise, as
/// the API server's accessor reports a field of the wrong type.
fn int_at(obj: &Value, path: &[String]) -> Result<Option<i64>, ApiError> {
    match at(obj, path) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_i64()
            .map(Some)
            .ok_or_else(|| accessor_error(path, v, "int64")),
    }
}

fn accessor_error(path: &[String], value: &Value, wanted: &str) -> ApiError {
    let found = match value {
        Value::Bool(_) => "bool",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
        Value::Null => "nil",
    };
    ApiError::internal(format!(
        ".{} accessor error: {value} is of the type {found}, expected {wanted}",
        path.join(".")
    ))
}

/// The 422 for a negative replica count, worded as the API server validates a `Scale`.
fn negative_replicas(name: &str, n: i64) -> ApiError {
    let detail = format!("Invalid value: {n}: must be greater than or equal to 0");
    let mut e = ApiError::new(
        422,
        "Invalid",
        format!("Scale.autoscaling {name:?} is invalid: spec.replicas: {detail}"),
    );
    e.details = Some(
        json!({"name": name, "group": "autoscaling", "kind": "Scale",
        "causes": [{"reason": "FieldValueInvalid", "message": detail, "field": "spec.replicas"}]}),
    );
    e
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::ScaleSubresource;

    fn deployment(replicas: Value, selector: Value) -> Value {
        json!({"metadata": {"name": "web", "namespace": "ns", "uid": "u-1", "resourceVersion": "7",
                            "creationTimestamp": "2026-01-01T00:00:00Z", "labels": {"a": "b"}, "generation": 3},
               "spec": {"replicas": replicas, "selector": selector},
               "status": {"replicas": 2, "readyReplicas": 2}})
    }

    #[test]
    fn a_workload_shows_its_replicas_and_selector() {
        let paths = ScalePaths::workload();
        let obj = deployment(json!(3), json!({"matchLabels": {"app": "web"}}));
        assert_eq!(
            scale_of(&paths, &obj).unwrap(),
            json!({"kind": "Scale", "apiVersion": "autoscaling/v1",
                   "metadata": {"name": "web", "namespace": "ns", "uid": "u-1", "resourceVersion": "7",
                                "creationTimestamp": "2026-01-01T00:00:00Z"},
                   "spec": {"replicas": 3}, "status": {"replicas": 2, "selector": "app=web"}})
        );
        // Zero replicas is an empty spec; a missing count is the workloads' default of one.
        let zero = scale_of(&paths, &deployment(json!(0), Value::Null)).unwrap();
        assert_eq!(
            (&zero["spec"], &zero["status"]),
            (&json!({}), &json!({"replicas": 2}))
        );
        let unset = scale_of(&paths, &deployment(Value::Null, Value::Null)).unwrap();
        assert_eq!(unset["spec"]["replicas"], 1);
        let bad = scale_of(&paths, &deployment(json!("3"), Value::Null)).unwrap_err();
        assert_eq!(bad.code, 500);
    }

    #[test]
    fn a_custom_resource_shows_its_declared_paths() {
        let paths = ScaleSubresource::new(".spec.size", ".status.count")
            .with_label_selector_path(".status.selector")
            .paths()
            .unwrap();
        let obj = json!({"metadata": {"name": "w"}, "spec": {}, "status": {"count": 4, "selector": "x=y"}});
        let scale = scale_of(&paths, &obj).unwrap();
        assert_eq!(scale["spec"], json!({}));
        assert_eq!(scale["status"], json!({"replicas": 4, "selector": "x=y"}));
        let mut written = obj;
        set_replicas(&paths, &mut written, 5);
        assert_eq!(written["spec"]["size"], 5);
        let mut bare = json!({"metadata": {"name": "w"}});
        set_replicas(&paths, &mut bare, 2);
        assert_eq!(bare["spec"], json!({"size": 2}));
    }

    #[test]
    fn selectors_in_their_string_form() {
        let s = |v: Value| selector_string(&v);
        assert_eq!(s(json!({})).unwrap(), "");
        assert_eq!(s(Value::Null).unwrap(), "");
        let full = json!({"matchLabels": {"tier": "web", "app": "shop"},
            "matchExpressions": [
                {"key": "env", "operator": "In", "values": ["prod", "dev"]},
                {"key": "zone", "operator": "NotIn", "values": ["b"]},
                {"key": "canary", "operator": "DoesNotExist"},
                {"key": "owner", "operator": "Exists"}]});
        assert_eq!(
            s(full).unwrap(),
            "app=shop,!canary,env in (dev,prod),owner,tier=web,zone notin (b)"
        );
        assert!(s(json!({"matchExpressions": [{"key": "k", "operator": "In"}]})).is_err());
        assert!(
            s(json!({"matchExpressions": [{"key": "k", "operator": "Near", "values": []}]}))
                .is_err()
        );
        assert!(
            s(json!({"matchExpressions": [{"key": "k", "operator": "Exists", "values": ["v"]}]}))
                .is_err()
        );
    }

    #[test]
    fn a_written_scale_is_decoded_and_validated() {
        let ok = requested(
            &json!({"apiVersion": "autoscaling/v1", "kind": "Scale",
                    "metadata": {"name": "web", "resourceVersion": "9", "uid": "u"}, "spec": {"replicas": 4}}),
            "web",
        )
        .unwrap();
        assert_eq!(
            ok,
            Requested {
                replicas: Some(4),
                resource_version: Some(9),
                uid: Some("u".into())
            }
        );
        let empty = requested(&json!({"metadata": {"resourceVersion": ""}}), "web").unwrap();
        assert_eq!((empty.replicas, empty.resource_version), (None, None));
        let negative = requested(&json!({"spec": {"replicas": -1}}), "web").unwrap_err();
        assert_eq!(negative.code, 422);
        assert_eq!(
            negative.message,
            "Scale.autoscaling \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0"
        );
        for bad in [
            json!({"spec": {"replicas": "3"}}),
            json!({"spec": {"replicas": 1.5}}),
            json!({"spec": {"replicas": 1_i64 << 40}}),
            json!({"apiVersion": "apps/v1", "spec": {"replicas": 1}}),
            json!({"kind": "Deployment", "spec": {"replicas": 1}}),
            json!({"metadata": {"resourceVersion": "x"}}),
        ] {
            assert_eq!(requested(&bad, "web").unwrap_err().code, 400, "{bad}");
        }
    }
}
