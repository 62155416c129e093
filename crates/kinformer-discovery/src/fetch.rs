//! Asking the server: aggregated discovery first, the legacy documents when the server answers
//! in the plain form (as client-go's discovery client does).

use bytes::Bytes;
use futures_util::future::join_all;
use http::Method;
use kinformer_rest::{Client, Request};
use serde::de::DeserializeOwned;

use crate::error::{Error, Result};
use crate::model::{ApiGroup, ServerResources};
use crate::wire::{
    self, ApiVersions, DiscoveryList, GroupList, LegacyGroup, ResourceList, TypeMeta,
};

/// client-go's `Accept` for `/api` and `/apis`: aggregated v2, then v2beta1, then plain JSON.
pub const AGGREGATED_ACCEPT: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

/// The plain `Accept`: the server answers with the legacy documents.
pub const LEGACY_ACCEPT: &str = "application/json";

/// Which discovery documents to ask the server for.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Form {
    /// Aggregated discovery (two requests), falling back to the legacy documents when the
    /// server answers in the plain form (client-go's default).
    #[default]
    Aggregated,
    /// Only the legacy documents: `/api`, `/apis`, then one request per group version.
    Legacy,
}

/// Everything the server serves, in the requested form.
pub(crate) async fn fetch(client: &Client, form: Form) -> Result<ServerResources> {
    let accept = match form {
        Form::Aggregated => AGGREGATED_ACCEPT,
        Form::Legacy => LEGACY_ACCEPT,
    };
    let (core, groups) =
        futures_util::future::join(get(client, "/api", accept), get(client, "/apis", accept)).await;
    let mut out = ServerResources::default();
    let mut legacy: Vec<LegacyGroup> = Vec::new();
    if let Some(body) = core? {
        if decode::<TypeMeta>("/api", &body)?.is_aggregated() {
            aggregated(&mut out, decode("/api", &body)?);
        } else {
            legacy.push(GroupList::core(&decode::<ApiVersions>("/api", &body)?));
        }
    }
    if let Some(body) = groups? {
        if decode::<TypeMeta>("/apis", &body)?.is_aggregated() {
            aggregated(&mut out, decode("/apis", &body)?);
        } else {
            legacy.extend(decode::<GroupList>("/apis", &body)?.groups);
        }
    }
    if !legacy.is_empty() {
        legacy_groups(client, &mut out, legacy).await?;
    }
    // The core group first, whichever document described it.
    out.groups.sort_by_key(|g| !g.name.is_empty());
    Ok(out)
}

fn aggregated(out: &mut ServerResources, list: DiscoveryList) {
    for item in list.items {
        let (group, failed) = item.into_group();
        out.groups.push(group);
        out.failed.extend(failed);
    }
}

/// Fetches every version of the legacy groups at once; a version that fails is reported in
/// [`ServerResources::failed`] and the rest is kept (as client-go keeps it).
async fn legacy_groups(
    client: &Client,
    out: &mut ServerResources,
    groups: Vec<LegacyGroup>,
) -> Result<()> {
    let requests = groups.iter().flat_map(|g| {
        g.versions.iter().map(move |v| {
            let path = if g.name.is_empty() {
                format!("/api/{}", v.version)
            } else {
                format!("/apis/{}/{}", g.name, v.version)
            };
            async move {
                let found = get(client, &path, LEGACY_ACCEPT).await;
                (g.name.as_str(), v.version.as_str(), path, found)
            }
        })
    });
    let mut results = join_all(requests).await.into_iter();
    for g in &groups {
        let mut versions = Vec::new();
        for _ in &g.versions {
            let Some((group, version, path, found)) = results.next() else {
                break;
            };
            let described = match found {
                Ok(Some(body)) => decode::<ResourceList>(&path, &body)
                    .map(|list| list.into_version(group, version))
                    .map_err(|e| error_chain(&e)),
                Ok(None) => Err(format!("GET {path}: the server could not find it")),
                Err(e) => Err(error_chain(&e)),
            };
            match described {
                Ok(v) => versions.push(v),
                Err(reason) => out
                    .failed
                    .push((wire::group_version(group, version), reason)),
            }
        }
        let mut group = ApiGroup::new(g.name.clone(), versions);
        group.preferred_version = g.preferred();
        out.groups.push(group);
    }
    Ok(())
}

/// The error and its causes on one line.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut line = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        line.push_str(": ");
        line.push_str(&cause.to_string());
        source = cause.source();
    }
    line
}

/// The body at `path`, or `None` when the server has no such document (404, or 403 as
/// client-go tolerates for `/api` and `/apis`).
async fn get(client: &Client, path: &str, accept: &str) -> Result<Option<Bytes>> {
    match Request::new(client.clone(), Method::GET, path)
        .header("accept", accept)
        .do_raw()
        .await
    {
        Ok(body) => Ok(Some(body)),
        Err(e) if e.is_not_found() || e.is_forbidden() => Ok(None),
        Err(source) => Err(Error::Request {
            path: path.to_owned(),
            source,
        }),
    }
}

pub(crate) fn decode<T: DeserializeOwned>(path: &str, body: &[u8]) -> Result<T> {
    serde_json::from_slice(body).map_err(|source| Error::Decode {
        path: path.to_owned(),
        source,
    })
}
