//! The subresources besides `status` and `scale`, as kube-apiserver serves them: a pod's
//! `binding` and `eviction`, a service account's `token`, a namespace's `finalize`; those a
//! kubelet answers (`log`, `exec`, `attach`, `portforward`, `proxy`) answer that none serves
//! the object, as a server without one does. (`approval`, `ephemeralcontainers` and `resize`
//! are writes of parts of their object: `write_rules::restrict`.)

use base64::Engine as _;
use bytes::Bytes;
use http::{Method, Request, Response};
use serde_json::{Value, json};

use super::Target;
use super::media::Media;
use super::review::{bind, success};
use super::write::{parse_object, sends_protobuf, written};
use crate::body::SimBody;
use crate::resource::ResourceDef;
use crate::shared::Shared;
use crate::status::{ApiError, json_response};
use crate::store::key_of;

/// A subresource's group, version, kind and verbs, as discovery lists them.
pub(super) fn described(
    def: &ResourceDef,
    name: &str,
) -> (
    &'static str,
    &'static str,
    &'static str,
    &'static [&'static str],
) {
    const UPDATE: &[&str] = &["get", "patch", "update"];
    match name {
        "attach" => ("", "v1", "PodAttachOptions", &["create", "get"]),
        "binding" => ("", "v1", "Binding", &["create"]),
        "eviction" => ("policy", "v1", "Eviction", &["create"]),
        "exec" => ("", "v1", "PodExecOptions", &["create", "get"]),
        "log" => ("", "v1", "Pod", &["get"]),
        "portforward" => ("", "v1", "PodPortForwardOptions", &["create", "get"]),
        "proxy" => {
            let kind = match def.kind.as_str() {
                "Node" => "NodeProxyOptions",
                "Service" => "ServiceProxyOptions",
                _ => "PodProxyOptions",
            };
            (
                "",
                "v1",
                kind,
                &["create", "delete", "get", "patch", "update"],
            )
        }
        "finalize" => ("", "v1", "Namespace", &["update"]),
        "token" => ("authentication.k8s.io", "v1", "TokenRequest", &["create"]),
        "approval" => (
            "certificates.k8s.io",
            "v1",
            "CertificateSigningRequest",
            UPDATE,
        ),
        // ephemeralcontainers, resize: the pod itself.
        _ => ("", "v1", "Pod", UPDATE),
    }
}

/// Whether `sub` is answered here rather than by the get and write handlers.
pub(super) fn answered_here(sub: &str) -> bool {
    matches!(
        sub,
        "attach"
            | "binding"
            | "eviction"
            | "exec"
            | "log"
            | "portforward"
            | "proxy"
            | "finalize"
            | "token"
    )
}

/// Serves a request to one of the subresources `answered_here` names.
pub(super) fn serve(
    shared: &Shared,
    target: &Target,
    req: &Request<Bytes>,
    media: Media,
) -> Result<Response<SimBody>, ApiError> {
    let def = &target.def;
    let sub = target.subresource.as_deref().unwrap_or_default();
    let name = target.name.as_deref().unwrap_or_default();
    let namespace = target.namespace.as_deref().unwrap_or_default();
    let (_, _, _, verbs) = described(def, sub);
    let verb = match *req.method() {
        Method::GET => "get",
        Method::POST => "create",
        Method::PUT => "update",
        Method::PATCH => "patch",
        Method::DELETE => "delete",
        _ => "",
    };
    if !verbs.contains(&verb) {
        return Err(super::method_not_allowed());
    }
    let record = shared
        .store
        .get(def, &key_of(def, namespace, name))
        .ok_or_else(|| ApiError::not_found(def, name))?;
    let object = Value::Object(record.to_map());
    match sub {
        "binding" => {
            let mut binding = body(req, "v1", "Binding")?;
            let md = binding.entry("metadata").or_insert_with(|| json!({}));
            md["name"] = json!(name);
            bind(shared, target, &binding)
        }
        "eviction" => {
            // Gone meanwhile: evicted either way.
            drop(shared.store.delete(def, namespace, name));
            Ok(success(201))
        }
        "token" => token(def, namespace, name, req),
        "finalize" => {
            let body = body(req, "v1", "Namespace")?;
            let finalizers = body.get("spec").and_then(|s| s.get("finalizers")).cloned();
            let record = shared.store.update_object(def, "", name, |stored| {
                let spec = stored.entry("spec").or_insert_with(|| json!({}));
                match &finalizers {
                    Some(list) if list.as_array().is_some_and(|l| !l.is_empty()) => {
                        spec["finalizers"] = list.clone()
                    }
                    _ => drop(spec.as_object_mut().and_then(|s| s.remove("finalizers"))),
                }
                Ok(())
            })?;
            written(200, def, &record, media)
        }
        _ if def.kind == "Pod"
            && object
                .pointer("/spec/nodeName")
                .and_then(Value::as_str)
                .is_none_or(str::is_empty) =>
        {
            Err(ApiError::bad_request(format!(
                "pod {name} does not have a host assigned"
            )))
        }
        _ if def.kind == "Service" => Err(ApiError::new(
            503,
            "ServiceUnavailable",
            format!("no endpoints available for service \"{name}\""),
        )),
        _ => Err(ApiError::new(
            503,
            "ServiceUnavailable",
            format!(
                "no kubelet serves {} {name:?}: the simulator runs none",
                def.singular
            ),
        )),
    }
}

/// A subresource's body of `kind`: JSON, or protobuf when `Content-Type` says so (kubectl's
/// typed clients send protobuf); an empty body is an empty object.
fn body(
    req: &Request<Bytes>,
    api_version: &str,
    kind: &str,
) -> Result<serde_json::Map<String, Value>, ApiError> {
    if req.body().is_empty() {
        Ok(serde_json::Map::new())
    } else if sends_protobuf(req) {
        crate::protobuf::decode_kind(api_version, kind, req.body())
    } else {
        parse_object(req.body())
    }
}

/// A service account's TokenRequest, answered with a token for it (signed by no one: the sim
/// checks only its own bearer token) that expires after `spec.expirationSeconds` (an hour).
fn token(
    def: &ResourceDef,
    namespace: &str,
    name: &str,
    req: &Request<Bytes>,
) -> Result<Response<SimBody>, ApiError> {
    let body = body(req, "authentication.k8s.io/v1", "TokenRequest")?;
    let spec = body.get("spec").cloned().unwrap_or_else(|| json!({}));
    let seconds = spec
        .get("expirationSeconds")
        .and_then(Value::as_i64)
        .unwrap_or(3600);
    if seconds < 600 {
        let _ = def;
        return Err(crate::validation::invalid_kind(
            "TokenRequest",
            "authentication.k8s.io",
            name,
            "spec.expirationSeconds",
            "FieldValueInvalid",
            &format!("Invalid value: {seconds}: may not specify a duration less than 10 minutes"),
        ));
    }
    let now = crate::clock::now_secs();
    let expires = now + seconds;
    let audiences = spec
        .get("audiences")
        .cloned()
        .unwrap_or_else(|| json!(["https://kubernetes.default.svc"]));
    let claims = json!({
        "aud": audiences, "exp": expires, "iat": now, "iss": "https://kubernetes.default.svc",
        "sub": format!("system:serviceaccount:{namespace}:{name}"),
    });
    let encode = |v: &Value| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string());
    let token = format!(
        "{}.{}.{}",
        encode(&json!({"alg": "none", "typ": "JWT"})),
        encode(&claims),
        "unsigned"
    );
    let answer = json!({
        "kind": "TokenRequest", "apiVersion": "authentication.k8s.io/v1",
        "metadata": {"name": name, "namespace": namespace, "creationTimestamp": null},
        "spec": {"audiences": audiences, "expirationSeconds": seconds, "boundObjectRef": spec.get("boundObjectRef").cloned().unwrap_or(Value::Null)},
        "status": {"token": token, "expirationTimestamp": crate::clock::rfc3339(u64::try_from(expires).unwrap_or(0))},
    });
    Ok(json_response(201, answer.to_string()))
}
