//! The discovery documents as the server sends them and as kubectl's disk cache stores them:
//! the aggregated `APIGroupDiscoveryList` (`apidiscovery.k8s.io` v2 and v2beta1) and the legacy
//! `APIVersions`, `APIGroupList` and `APIResourceList`.
//!
//! Every field a server may leave out is optional here, and every list may be `null`: Go writes
//! a nil slice as `null` unless the field says `omitempty`, and kube-apiserver writes `/api/v1`
//! without `apiVersion` (the group documents carry it). Only what identifies an entry (a
//! resource's name and kind, a version's name) is required.

use serde::{Deserialize, Deserializer};

mod aggregated;
mod legacy;

pub(crate) use aggregated::DiscoveryList;
pub(crate) use legacy::{ApiVersions, GroupList, LegacyGroup, ResourceList};

/// Reads `null` as the type's default, as Go's decoder reads a `null` list.
pub(crate) fn nullable<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

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

/// `group/version`, or `version` for the core group.
pub(crate) fn group_version(group: &str, version: &str) -> String {
    if group.is_empty() {
        version.to_owned()
    } else {
        format!("{group}/{version}")
    }
}
