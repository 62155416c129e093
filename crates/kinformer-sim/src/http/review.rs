//! The create-only resources: the authentication and authorization reviews, answered and not
//! stored (the sim authenticates every caller it lets in as one administrator and authorizes
//! everything), and a pod's `Binding`, which assigns the pod to a node.

use bytes::Bytes;
use http::{Request, Response};
use serde_json::{Value, json};

use super::Target;
use super::media::Media;
use super::write::{parse_body, written_json};
use crate::body::SimBody;
use crate::shared::Shared;
use crate::status::ApiError;

/// Who the sim says every caller is.
const USER: &str = "system:admin";
const GROUPS: [&str; 2] = ["system:masters", "system:authenticated"];

pub(super) fn create(
    shared: &Shared,
    target: &Target,
    req: &Request<Bytes>,
    media: Media,
) -> Result<Response<SimBody>, ApiError> {
    let def = &target.def;
    let mut obj = parse_body(def, req)?;
    if def.kind == "Binding" {
        return bind(shared, target, &obj);
    }
    let status = match def.kind.as_str() {
        "SelfSubjectAccessReview" | "SubjectAccessReview" | "LocalSubjectAccessReview" => {
            json!({"allowed": true})
        }
        "SelfSubjectRulesReview" => json!({
            "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}],
            "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}],
            "incomplete": false,
        }),
        "TokenReview" => {
            let token = obj
                .get("spec")
                .and_then(|s| s.get("token"))
                .and_then(Value::as_str);
            let authenticated = match (&shared.config.token, token) {
                (Some(want), Some(given)) => want == given,
                (None, Some(given)) => !given.is_empty(),
                (_, None) => false,
            };
            let audiences = obj
                .get("spec")
                .and_then(|s| s.get("audiences"))
                .cloned()
                .unwrap_or(Value::Null);
            if authenticated {
                json!({"authenticated": true, "user": {"username": USER, "groups": GROUPS}, "audiences": audiences})
            } else {
                json!({"user": {}, "error": "invalid bearer token"})
            }
        }
        _ => json!({"userInfo": {"username": USER, "groups": GROUPS}}),
    };
    obj.insert("apiVersion".into(), Value::from(def.api_version()));
    obj.insert("kind".into(), Value::from(def.kind.as_str()));
    let md = obj.entry("metadata").or_insert_with(|| json!({}));
    if let Value::Object(md) = md {
        md.insert("creationTimestamp".into(), Value::Null);
    }
    obj.insert("status".into(), status);
    written_json(201, def, Value::Object(obj), media)
}

/// `POST .../namespaces/{ns}/bindings`: the named pod is assigned to `target.name` in the body,
/// once; kube-apiserver answers a `Status` of success.
pub(super) fn bind(
    shared: &Shared,
    target: &Target,
    binding: &serde_json::Map<String, Value>,
) -> Result<Response<SimBody>, ApiError> {
    let pod = binding
        .get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    let node = binding
        .get("target")
        .and_then(|t| t.get("name"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    let ns = target.namespace.as_deref().unwrap_or_default();
    let Some(pods) = shared.resource("pods") else {
        return Err(ApiError::internal("pods are not served"));
    };
    shared
        .store
        .update_object(&pods, ns, pod, |stored| {
            let spec = stored.entry("spec").or_insert_with(|| json!({}));
            if let Some(bound) = spec.get("nodeName").and_then(Value::as_str).filter(|n| !n.is_empty()) {
                return Err(ApiError::new(
                    409,
                    "Conflict",
                    format!("Operation cannot be fulfilled on pods/binding \"{pod}\": pod {pod} is already assigned to node \"{bound}\""),
                ));
            }
            spec["nodeName"] = Value::from(node);
            Ok(())
        })?;
    Ok(success(201))
}

/// The `Status` of success a binding or an eviction answers.
pub(super) fn success(code: u16) -> Response<SimBody> {
    crate::status::json_response(
        code,
        json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": code})
            .to_string(),
    )
}
