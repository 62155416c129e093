//! Discovery for kubectl and clients: `/version`, `/api`, `/api/v1`, `/apis`, `/apis/{group}/{version}`
//! (the legacy, non-aggregated form; kubectl falls back to it on a plain `application/json` answer).

use http::Response;
use serde_json::{Value, json};

use crate::body::SimBody;
use crate::resource::ResourceDef;
use crate::shared::Shared;
use crate::status::json_response;

const VERBS: [&str; 7] = [
    "create", "delete", "get", "list", "patch", "update", "watch",
];

pub(super) fn serve(shared: &Shared, path: &str) -> Option<Response<SimBody>> {
    let registry = shared.registry();
    let body = match path.trim_end_matches('/') {
        "/version" => json!({
            "major": "1", "minor": "32", "gitVersion": "v1.32.0-kinformer-sim",
            "gitCommit": "0000000000000000000000000000000000000000", "gitTreeState": "clean",
            "buildDate": "2026-01-01T00:00:00Z", "goVersion": "go1.23", "compiler": "gc",
            "platform": "linux/amd64"
        }),
        "/api" => json!({
            "kind": "APIVersions", "versions": ["v1"],
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}]
        }),
        "/api/v1" => resource_list(
            "v1",
            registry
                .all()
                .iter()
                .filter(|d| d.group.is_empty())
                .map(|d| &**d),
        ),
        "/apis" => {
            let groups: Vec<Value> = registry
                .group_versions()
                .iter()
                .map(|(g, v)| {
                    let gv = json!({"groupVersion": format!("{g}/{v}"), "version": v});
                    json!({"name": g, "versions": [&gv], "preferredVersion": &gv})
                })
                .collect();
            json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
        }
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
    Some(json_response(200, body.to_string()))
}

fn resource_list<'a>(group_version: &str, defs: impl Iterator<Item = &'a ResourceDef>) -> Value {
    let resources: Vec<Value> = defs
        .map(|d| {
            let mut r = json!({
                "name": d.plural, "singularName": d.singular, "namespaced": d.namespaced,
                "kind": d.kind, "verbs": VERBS, "shortNames": d.short_names,
            });
            if d.plural == "pods" || d.plural == "deployments" {
                r["categories"] = json!(["all"]);
            }
            r
        })
        .collect();
    json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": group_version, "resources": resources})
}
