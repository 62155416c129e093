//! Resolving a resource name the way kubectl does: plural, singular, kind or short name, with an
//! optional `.group`, through the server's discovery documents.

use http::Method;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{APIGroupList, APIResource, APIResourceList};
use kinformer_core::{ApiResource, Scope};
use kinformer_rest::{Client, Request};

use crate::error::CliError;

/// The resource `name` names, looked up in the core group first, then every group's preferred version.
pub(crate) async fn resolve(client: &Client, name: &str) -> Result<ApiResource, CliError> {
    let (wanted, group) = match name.split_once('.') {
        Some((resource, group)) => (resource.to_ascii_lowercase(), Some(group)),
        None => (name.to_ascii_lowercase(), None),
    };
    let mut group_versions = Vec::new();
    if group.is_none_or(|g| g.is_empty() || g == "core") {
        group_versions.push(("".to_owned(), "v1".to_owned()));
    }
    if group.is_none_or(|g| !g.is_empty() && g != "core") {
        let groups: APIGroupList = get(client, "/apis").await?;
        for g in groups.groups {
            if group.is_some_and(|want| want != g.name) {
                continue;
            }
            let version = g
                .preferred_version
                .map(|v| v.version)
                .or_else(|| g.versions.first().map(|v| v.version.clone()));
            if let Some(version) = version {
                group_versions.push((g.name, version));
            }
        }
    }
    for (group, version) in group_versions {
        let path = if group.is_empty() {
            format!("/api/{version}")
        } else {
            format!("/apis/{group}/{version}")
        };
        let list: APIResourceList = get(client, &path).await?;
        if let Some(found) = list.resources.iter().find(|r| matches(r, &wanted)) {
            let scope = if found.namespaced {
                Scope::Namespaced
            } else {
                Scope::Cluster
            };
            return Ok(ApiResource::new(
                group,
                version,
                &found.kind,
                &found.name,
                scope,
            ));
        }
    }
    Err(CliError::UnknownResource(name.to_owned()))
}

fn matches(resource: &APIResource, wanted: &str) -> bool {
    !resource.name.contains('/')
        && (resource.name == wanted
            || resource.singular_name.eq_ignore_ascii_case(wanted)
            || resource.kind.eq_ignore_ascii_case(wanted)
            || resource.short_names.iter().flatten().any(|s| s == wanted))
}

async fn get<T: serde::de::DeserializeOwned>(client: &Client, path: &str) -> Result<T, CliError> {
    Request::new(client.clone(), Method::GET, path)
        .into()
        .await
        .map_err(CliError::Request)
}
