//! The discovery documents as the server sends them and as kubectl's disk cache stores them:
//! the aggregated `APIGroupDiscoveryList` (`apidiscovery.k8s.io` v2 and v2beta1) and the legacy
//! `APIVersions`, `APIGroupList` and `APIResourceList`.
//!
//! Every field a server may leave out is optional here, and every list may be `null`: Go writes
//! a nil slice as `null` unless the field says `omitempty`, and kube-apiserver writes `/api/v1`
//! without `apiVersion` (the group documents carry it). Only what identifies an entry (a
//! resource's name and kind, a version's name) is required.

use kinformer_core::Scope;
use serde::{Deserialize, Deserializer, Serialize};

/// Reads `null` as the type's default, as Go's decoder reads a `null` list.
fn nullable<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

use crate::model::{ApiGroup, GroupVersion, Resource, Subresource};

/// `kind` and `apiVersion` of any document, to tell the aggregated form from the legacy one.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TypeMeta {
    #[serde(default)]
    pub(crate) kind: String,
    #[serde(default)]
    pub(crate) api_version: String,
}

impl TypeMeta {
    /// Whether this is an aggregated discovery document of a version we read.
    pub(crate) fn is_aggregated(&self) -> bool {
        self.kind == "APIGroupDiscoveryList"
            && matches!(
                self.api_version.as_str(),
                "apidiscovery.k8s.io/v2" | "apidiscovery.k8s.io/v2beta1"
            )
    }
}

// ---- aggregated ----

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

// ---- legacy ----

/// `/api`: the core group's versions.
#[derive(Debug, Deserialize)]
pub(crate) struct ApiVersions {
    #[serde(default, deserialize_with = "nullable")]
    pub(crate) versions: Vec<String>,
}

/// `/apis`, and kubectl's `servergroups.json` (which lists the core group first, named `""`).
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GroupList {
    #[serde(default)]
    kind: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    api_version: String,
    #[serde(default, deserialize_with = "nullable")]
    pub(crate) groups: Vec<LegacyGroup>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct LegacyGroup {
    pub(crate) name: String,
    #[serde(default, deserialize_with = "nullable")]
    pub(crate) versions: Vec<VersionForDiscovery>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) preferred_version: Option<VersionForDiscovery>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct VersionForDiscovery {
    #[serde(default)]
    group_version: String,
    pub(crate) version: String,
}

/// `/api/v1`, `/apis/{group}/{version}`, and kubectl's `serverresources.json`.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ResourceList {
    #[serde(default)]
    kind: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    api_version: String,
    #[serde(default)]
    group_version: String,
    #[serde(default, deserialize_with = "nullable")]
    resources: Vec<LegacyResource>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct LegacyResource {
    name: String,
    #[serde(default)]
    singular_name: String,
    #[serde(default)]
    namespaced: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    group: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    version: Option<String>,
    /// Empty only in a malformed entry, which is skipped as client-go's aggregated reader
    /// skips an entry without a kind.
    #[serde(default)]
    kind: String,
    #[serde(default, deserialize_with = "nullable")]
    verbs: Vec<String>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Vec::is_empty"
    )]
    short_names: Vec<String>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Vec::is_empty"
    )]
    categories: Vec<String>,
}

/// `group/version`, or `version` for the core group.
pub(crate) fn group_version(group: &str, version: &str) -> String {
    if group.is_empty() {
        version.to_owned()
    } else {
        format!("{group}/{version}")
    }
}

impl GroupList {
    /// The group list of `groups`, the core group included, as kubectl's cache holds it.
    pub(crate) fn of(groups: &[ApiGroup]) -> Self {
        let groups = groups
            .iter()
            .map(|g| {
                let versions: Vec<VersionForDiscovery> = g
                    .versions
                    .iter()
                    .map(|v| VersionForDiscovery {
                        group_version: group_version(&g.name, &v.version),
                        version: v.version.clone(),
                    })
                    .collect();
                LegacyGroup {
                    name: g.name.clone(),
                    preferred_version: Some(VersionForDiscovery {
                        group_version: group_version(&g.name, &g.preferred_version),
                        version: g.preferred_version.clone(),
                    }),
                    versions,
                }
            })
            .collect();
        Self {
            kind: "APIGroupList".to_owned(),
            api_version: "v1".to_owned(),
            groups,
        }
    }

    /// The core group as `/api` lists it, to put in front of `/apis`'s groups.
    pub(crate) fn core(versions: &ApiVersions) -> LegacyGroup {
        let versions: Vec<VersionForDiscovery> = versions
            .versions
            .iter()
            .map(|v| VersionForDiscovery {
                group_version: v.clone(),
                version: v.clone(),
            })
            .collect();
        LegacyGroup {
            name: String::new(),
            preferred_version: versions.first().cloned(),
            versions,
        }
    }
}

impl LegacyGroup {
    /// The preferred version: the one the server names, else the first.
    pub(crate) fn preferred(&self) -> String {
        self.preferred_version
            .as_ref()
            .or(self.versions.first())
            .map(|v| v.version.clone())
            .unwrap_or_default()
    }
}

impl ResourceList {
    /// The list of one version's resources, each subresource as its own `plural/sub` entry.
    pub(crate) fn of(group: &str, version: &GroupVersion) -> Self {
        let mut resources = Vec::new();
        for r in &version.resources {
            resources.push(LegacyResource {
                name: r.plural.clone(),
                singular_name: r.singular.clone(),
                namespaced: r.scope == Scope::Namespaced,
                group: None,
                version: None,
                kind: r.kind.clone(),
                verbs: r.verbs.clone(),
                short_names: r.short_names.clone(),
                categories: r.categories.clone(),
            });
            for s in &r.subresources {
                resources.push(LegacyResource {
                    name: format!("{}/{}", r.plural, s.name),
                    singular_name: r.singular.clone(),
                    namespaced: r.scope == Scope::Namespaced,
                    group: None,
                    version: None,
                    kind: s.kind.clone(),
                    verbs: s.verbs.clone(),
                    short_names: Vec::new(),
                    categories: Vec::new(),
                });
            }
        }
        Self {
            kind: "APIResourceList".to_owned(),
            api_version: "v1".to_owned(),
            group_version: group_version(group, &version.version),
            resources,
        }
    }

    /// The resources of `group`'s `version`, with `plural/sub` entries folded into their
    /// resource's subresources.
    pub(crate) fn into_version(self, group: &str, version: &str) -> GroupVersion {
        let mut resources: Vec<Resource> = Vec::new();
        let mut subresources = Vec::new();
        for r in self.resources {
            if r.kind.is_empty() {
                continue;
            }
            if let Some((parent, sub)) = r.name.split_once('/') {
                subresources.push((
                    parent.to_owned(),
                    Subresource {
                        name: sub.to_owned(),
                        kind: r.kind,
                        verbs: r.verbs,
                    },
                ));
                continue;
            }
            let singular = if r.singular_name.is_empty() {
                r.kind.to_lowercase()
            } else {
                r.singular_name
            };
            resources.push(Resource {
                group: group.to_owned(),
                version: version.to_owned(),
                plural: r.name,
                singular,
                kind: r.kind,
                scope: if r.namespaced {
                    Scope::Namespaced
                } else {
                    Scope::Cluster
                },
                verbs: r.verbs,
                short_names: r.short_names,
                categories: r.categories,
                subresources: Vec::new(),
            });
        }
        for (parent, sub) in subresources {
            if let Some(r) = resources.iter_mut().find(|r| r.plural == parent) {
                r.subresources.push(sub);
            }
        }
        GroupVersion::new(version, resources)
    }
}
