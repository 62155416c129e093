//! The aggregated `APIGroupDiscoveryList` (`apidiscovery.k8s.io` v2 and v2beta1).

use kinformer_core::Scope;
use serde::Deserialize;

use super::{group_version, nullable};
use crate::model::{ApiGroup, GroupVersion, Resource, Subresource};

#[derive(Debug, Deserialize)]
pub(crate) struct DiscoveryList {
    #[serde(default, deserialize_with = "nullable")]
    pub(crate) items: Vec<GroupDiscovery>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct GroupDiscovery {
    #[serde(default)]
    metadata: Metadata,
    #[serde(default, deserialize_with = "nullable")]
    versions: Vec<VersionDiscovery>,
}

#[derive(Debug, Default, Deserialize)]
struct Metadata {
    #[serde(default)]
    name: String,
}

#[derive(Debug, Deserialize)]
struct VersionDiscovery {
    version: String,
    #[serde(default, deserialize_with = "nullable")]
    resources: Vec<ResourceDiscovery>,
    #[serde(default)]
    freshness: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ResourceDiscovery {
    resource: String,
    #[serde(default)]
    response_kind: Option<Gvk>,
    #[serde(default)]
    scope: String,
    #[serde(default)]
    singular_resource: String,
    #[serde(default, deserialize_with = "nullable")]
    verbs: Vec<String>,
    #[serde(default, deserialize_with = "nullable")]
    short_names: Vec<String>,
    #[serde(default, deserialize_with = "nullable")]
    categories: Vec<String>,
    #[serde(default, deserialize_with = "nullable")]
    subresources: Vec<SubresourceDiscovery>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SubresourceDiscovery {
    subresource: String,
    #[serde(default)]
    response_kind: Option<Gvk>,
    #[serde(default, deserialize_with = "nullable")]
    verbs: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
struct Gvk {
    #[serde(default)]
    kind: String,
}

impl GroupDiscovery {
    /// The group, and the versions the server marked stale (listed with no resources, as
    /// client-go treats them: failed).
    pub(crate) fn into_group(self) -> (ApiGroup, Vec<(String, String)>) {
        let name = self.metadata.name;
        let preferred = self
            .versions
            .first()
            .map(|v| v.version.clone())
            .unwrap_or_default();
        let mut failed = Vec::new();
        let mut versions = Vec::new();
        for v in self.versions {
            if v.freshness == "Stale" {
                failed.push((
                    group_version(&name, &v.version),
                    "the server reports this group version's discovery as stale".to_owned(),
                ));
                continue;
            }
            let resources = v
                .resources
                .into_iter()
                .filter_map(|r| r.into_resource(&name, &v.version))
                .collect();
            versions.push(GroupVersion::new(v.version, resources));
        }
        let mut group = ApiGroup::new(name, versions);
        group.preferred_version = preferred;
        (group, failed)
    }
}

impl ResourceDiscovery {
    /// `None` for an entry without a kind (client-go skips those too).
    fn into_resource(self, group: &str, version: &str) -> Option<Resource> {
        let kind = self
            .response_kind
            .map(|k| k.kind)
            .filter(|k| !k.is_empty())?;
        let scope = if self.scope == "Cluster" {
            Scope::Cluster
        } else {
            Scope::Namespaced
        };
        let singular = if self.singular_resource.is_empty() {
            kind.to_lowercase()
        } else {
            self.singular_resource
        };
        let subresources = self
            .subresources
            .into_iter()
            .map(|s| Subresource {
                name: s.subresource,
                kind: s
                    .response_kind
                    .map(|k| k.kind)
                    .filter(|k| !k.is_empty())
                    .unwrap_or_else(|| kind.clone()),
                verbs: s.verbs,
            })
            .collect();
        Some(Resource {
            group: group.to_owned(),
            version: version.to_owned(),
            plural: self.resource,
            singular,
            kind,
            scope,
            verbs: self.verbs,
            short_names: self.short_names,
            categories: self.categories,
            subresources,
        })
    }
}
