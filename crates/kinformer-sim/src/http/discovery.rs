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
use crate::write_rules;

/// The verbs discovery lists for a resource.
pub(super) fn verbs(def: &ResourceDef) -> &'static [&'static str] {
    def.verbs.names()
}

/// The verbs of the `status` and `scale` subresources.
const SUBRESOURCE_VERBS: &[&str] = &["get", "patch", "update"];

/// One subresource as discovery lists it: its name, the kind it reads and writes, its verbs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Subresource {
    pub(super) name: String,
    pub(super) group: String,
    pub(super) version: String,
    pub(super) kind: String,
    pub(super) verbs: &'static [&'static str],
}

/// The subresources discovery lists for a resource, sorted by name as the API server lists
/// them: `scale` (an `autoscaling/v1` `Scale`), `status` (the resource's own kind), and the
/// others kube-apiserver serves (`pods/log`, `serviceaccounts/token`, ...).
pub(super) fn subresources(def: &ResourceDef) -> Vec<Subresource> {
    let mut out = Vec::new();
    let own = |name: &str, verbs| Subresource {
        name: name.to_owned(),
        group: def.group.clone(),
        version: def.version.clone(),
        kind: def.kind.clone(),
        verbs,
    };
    if def.scale.is_some() {
        out.push(Subresource {
            group: "autoscaling".to_owned(),
            version: "v1".to_owned(),
            kind: "Scale".to_owned(),
            ..own("scale", SUBRESOURCE_VERBS)
        });
    }
    if write_rules::has_status_subresource(def) {
        out.push(own("status", SUBRESOURCE_VERBS));
    }
    for name in &def.other_subresources {
        let (group, version, kind, verbs) = super::subresources::described(def, name);
        out.push(Subresource {
            group: group.to_owned(),
            version: version.to_owned(),
            kind: kind.to_owned(),
            ..own(name, verbs)
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
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
        let form = if shared.config.aggregated_discovery {
            aggregated::negotiate(headers)
        } else {
            Ok(Form::Legacy)
        };
        return Some(match form {
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
        // kube-apiserver 1.36's `version.Info`: the binary version, the version it emulates and
        // the oldest it stays compatible with (the emulation fields are there since 1.33); the
        // build metadata names the sim, as distributions name themselves (`+k3s1`).
        "/version" => json!({
            "major": "1", "minor": "36",
            "emulationMajor": "1", "emulationMinor": "36",
            "minCompatibilityMajor": "1", "minCompatibilityMinor": "35",
            "gitVersion": "v1.36.0+kinformer-sim",
            "gitCommit": "0000000000000000000000000000000000000000", "gitTreeState": "clean",
            "buildDate": "2026-04-22T00:00:00Z", "goVersion": "go1.26.2", "compiler": "gc",
            "platform": "linux/amd64"
        }),
        "/api/v1" => resource_list(
            "v1",
            registry
                .all()
                .iter()
                .filter(|d| d.group.is_empty())
                .map(|d| &**d),
            ApiVersion::Omitted,
        ),
        other => {
            let rest = other.strip_prefix("/apis/")?;
            let groups = registry.groups();
            let (group, version) = rest.split_once('/').unwrap_or((rest, ""));
            // An unknown group has no handler at all: the server's plain-text 404.
            let Some((_, versions)) = groups.iter().find(|(g, _)| g == group) else {
                return Some(Err(ApiError::page_not_found()));
            };
            if version.is_empty() {
                return Some(Ok(json_response(
                    200,
                    api_group(group, versions).to_string(),
                )));
            }
            if version.contains('/') {
                return None;
            }
            if !versions.iter().any(|v| v == version) {
                return Some(Err(ApiError::page_not_found()));
            }
            let defs = registry
                .all()
                .iter()
                .filter(|d| d.group == group && d.version == version)
                .map(|d| &**d);
            resource_list(&format!("{group}/{version}"), defs, ApiVersion::Written)
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

/// One group as `/apis` lists it: its versions in priority order, the first preferred.
fn group_entry(group: &str, versions: &[String]) -> Value {
    let versions: Vec<Value> = versions
        .iter()
        .map(|v| json!({"groupVersion": format!("{group}/{v}"), "version": v}))
        .collect();
    json!({"name": group, "versions": &versions, "preferredVersion": &versions[0]})
}

fn group_list(groups: &[(String, Vec<String>)]) -> Value {
    let groups: Vec<Value> = groups
        .iter()
        .map(|(group, versions)| group_entry(group, versions))
        .collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

/// `/apis/{group}`: the `APIGroup`, as its entry in `/apis` with `kind` and `apiVersion`.
fn api_group(group: &str, versions: &[String]) -> Value {
    let mut entry = group_entry(group, versions);
    entry["kind"] = json!("APIGroup");
    entry["apiVersion"] = json!("v1");
    entry
}

/// Whether an `APIResourceList` carries `apiVersion`: kube-apiserver writes it on the group
/// documents but not on `/api/v1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ApiVersion {
    Written,
    Omitted,
}

/// An `APIResourceList`: each resource, then each of its subresources as `plural/sub`.
fn resource_list<'a>(
    group_version: &str,
    defs: impl Iterator<Item = &'a ResourceDef>,
    api_version: ApiVersion,
) -> Value {
    let mut resources = Vec::new();
    for d in defs {
        let mut r = json!({
            "name": d.plural, "singularName": d.singular, "namespaced": d.namespaced,
            "kind": d.kind, "verbs": verbs(d), "shortNames": d.short_names,
        });
        if !d.categories.is_empty() {
            r["categories"] = json!(d.categories);
        }
        resources.push(r);
        for sub in subresources(d) {
            let mut entry = json!({
                "name": format!("{}/{}", d.plural, sub.name), "singularName": "",
                "namespaced": d.namespaced, "kind": sub.kind, "verbs": sub.verbs,
            });
            // Only a subresource of another group or version names them.
            if sub.group != d.group || sub.version != d.version {
                entry["group"] = json!(sub.group);
                entry["version"] = json!(sub.version);
            }
            resources.push(entry);
        }
    }
    let mut list =
        json!({"kind": "APIResourceList", "groupVersion": group_version, "resources": resources});
    if api_version == ApiVersion::Written {
        list["apiVersion"] = json!("v1");
    }
    list
}
