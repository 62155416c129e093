//! The legacy documents: `APIVersions`, `APIGroupList` and `APIResourceList`.

use kinformer_core::Scope;
use serde::{Deserialize, Serialize};

use super::{group_version, nullable};
use crate::model::{ApiGroup, GroupVersion, Resource, Subresource};

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
