//! Discovery for kubectl and clients: `/version`, `/api`, `/api/v1`, `/apis`, `/apis/{group}/{version}`.
//!
//! `/api` and `/apis` answer in the aggregated form ([`aggregated`](super::aggregated)) when the
//! `Accept` header asks for it first, else in the legacy form (`APIVersions`, `APIGroupList`);
//! the per-version documents are always the legacy `APIResourceList`.

use http::{HeaderMap, Response};
use serde_json::{Value, json};

use super::aggregated::{self, Form};
use crate::body::SimBody;
use crate::resource::ResourceDef;
use crate::shared::Shared;
use crate::status::{ApiError, json_response};

/// Every verb the sim serves on a resource.
pub(super) const VERBS: [&str; 7] = [
    "create", "delete", "get", "list", "patch", "update", "watch",
];

/// The verbs of a `status` subresource.
pub(super) const STATUS_VERBS: [&str; 3] = ["get", "patch", "update"];

/// The subresources discovery lists for a resource: built-ins with a status have `status`.
pub(super) fn subresources(def: &ResourceDef) -> &'static [&'static str] {
    if def.builtin && !matches!(def.plural.as_str(), "configmaps" | "secrets") {
        &["status"]
    } else {
        &[]
    }
}

/// The categories discovery lists for a resource (`kubectl get all`).
pub(super) fn categories(def: &ResourceDef) -> &'static [&'static str] {
    if def.builtin && matches!(def.plural.as_str(), "pods" | "deployments") {
        &["all"]
    } else {
        &[]
    }
}

/// The discovery document at `path`, or `None` when `path` is not a discovery path.
pub(super) fn serve(
    shared: &Shared,
    path: &str,
    headers: &HeaderMap,
) -> Option<Result<Response<SimBody>, ApiError>> {
    let registry = shared.registry();
    let path = path.trim_end_matches('/');
    if matches!(path, "/api" | "/apis") {
        return Some(match aggregated::negotiate(headers) {
            Err(e) => Err(e),
            Ok(Form::Legacy) if path == "/api" => {
                Ok(json_response(200, api_versions().to_string()))
            }
            Ok(Form::Legacy) => Ok(json_response(
                200,
                group_list(&registry.groups()).to_string(),
            )),
            Ok(Form::Aggregated(version)) => {
                Ok(aggregated::respond(&registry, path == "/api", version))
            }
        });
    }
    let body = match path {
        "/version" => json!({
            "major": "1", "minor": "32", "gitVersion": "v1.32.0-kinformer-sim",
            "gitCommit": "0000000000000000000000000000000000000000", "gitTreeState": "clean",
            "buildDate": "2026-01-01T00:00:00Z", "goVersion": "go1.23", "compiler": "gc",
            "platform": "linux/amd64"
        }),
        "/api/v1" => resource_list(
            "v1",
            registry
                .all()
                .iter()
                .filter(|d| d.group.is_empty())
                .map(|d| &**d),
        ),
        other => {
            let rest = other.strip_prefix("/apis/")?;
            let (group, version) = rest.split_once('/')?;
            if version.contains('/') {
                return None;
            }
            let defs: Vec<&ResourceDef> = registry
                .all()
                .iter()
                .filter(|d| d.group == group && d.version == version)
                .map(|d| &**d)
                .collect();
            if defs.is_empty() {
                return None;
            }
            resource_list(&format!("{group}/{version}"), defs.into_iter())
        }
    };
    Some(Ok(json_response(200, body.to_string())))
}

fn api_versions() -> Value {
    json!({
        "kind": "APIVersions", "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}]
    })
}

fn group_list(groups: &[(String, Vec<String>)]) -> Value {
    let groups: Vec<Value> = groups
        .iter()
        .map(|(group, versions)| {
            let versions: Vec<Value> = versions
                .iter()
                .map(|v| json!({"groupVersion": format!("{group}/{v}"), "version": v}))
                .collect();
            json!({"name": group, "versions": &versions, "preferredVersion": &versions[0]})
        })
        .collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

/// An `APIResourceList`: each resource, then each of its subresources as `plural/sub`.
fn resource_list<'a>(group_version: &str, defs: impl Iterator<Item = &'a ResourceDef>) -> Value {
    let mut resources = Vec::new();
    for d in defs {
        let mut r = json!({
            "name": d.plural, "singularName": d.singular, "namespaced": d.namespaced,
            "kind": d.kind, "verbs": VERBS, "shortNames": d.short_names,
        });
        if !categories(d).is_empty() {
            r["categories"] = json!(categories(d));
        }
        resources.push(r);
        for sub in subresources(d) {
            resources.push(json!({
                "name": format!("{}/{sub}", d.plural), "singularName": "",
                "namespaced": d.namespaced, "kind": d.kind, "verbs": STATUS_VERBS,
            }));
        }
    }
    json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": group_version, "resources": resources})
}
