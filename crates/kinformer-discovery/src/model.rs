//! What discovery finds: the server's groups, their versions and each version's resources.

use kinformer_core::{ApiResource, Scope};

/// Everything the server serves, as discovery found it: the core group (named `""`) first,
/// then the other groups in the server's order.
#[non_exhaustive]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerResources {
    /// The groups, in the server's order (which is also the REST mapper's priority order).
    pub groups: Vec<ApiGroup>,
    /// Group versions the server listed but could not describe (an aggregated API server that
    /// is down, a stale aggregated entry), as `group/version` with the reason; their resources
    /// are missing from [`groups`](Self::groups).
    pub failed: Vec<(String, String)>,
}

impl ServerResources {
    /// Resources of these groups, nothing failed.
    pub fn new(groups: Vec<ApiGroup>) -> Self {
        Self {
            groups,
            failed: Vec::new(),
        }
    }

    /// The group named `name` (`""` for the core group).
    pub fn group(&self, name: &str) -> Option<&ApiGroup> {
        self.groups.iter().find(|g| g.name == name)
    }

    /// Every resource of every version, subresources not included.
    pub fn resources(&self) -> impl Iterator<Item = &Resource> {
        self.groups
            .iter()
            .flat_map(|g| g.versions.iter().flat_map(|v| v.resources.iter()))
    }

    /// Every resource of each group's preferred version (what `kubectl api-resources` lists).
    pub fn preferred_resources(&self) -> impl Iterator<Item = &Resource> {
        self.groups
            .iter()
            .filter_map(ApiGroup::preferred)
            .flat_map(|v| v.resources.iter())
    }
}

/// An API group and the versions the server serves of it.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiGroup {
    /// Its name, `""` for the core group.
    pub name: String,
    /// Its versions, in the server's priority order.
    pub versions: Vec<GroupVersion>,
    /// The version the server prefers (clients use it when no version is named).
    pub preferred_version: String,
}

impl ApiGroup {
    /// A group whose preferred version is the first of `versions`.
    pub fn new(name: impl Into<String>, versions: Vec<GroupVersion>) -> Self {
        let preferred_version = versions
            .first()
            .map(|v| v.version.clone())
            .unwrap_or_default();
        Self {
            name: name.into(),
            versions,
            preferred_version,
        }
    }

    /// The preferred version, if the server described it.
    pub fn preferred(&self) -> Option<&GroupVersion> {
        self.versions
            .iter()
            .find(|v| v.version == self.preferred_version)
    }
}

/// One version of a group and its resources.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupVersion {
    /// The version, for example `v1`.
    pub version: String,
    /// The resources served in this version.
    pub resources: Vec<Resource>,
}

impl GroupVersion {
    /// A version with these resources.
    pub fn new(version: impl Into<String>, resources: Vec<Resource>) -> Self {
        Self {
            version: version.into(),
            resources,
        }
    }
}

/// A resource as discovery describes it.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    /// Its group, `""` for the core group.
    pub group: String,
    /// Its version.
    pub version: String,
    /// The plural name used in URLs, for example `deployments`.
    pub plural: String,
    /// The singular name, for example `deployment`.
    pub singular: String,
    /// The kind of its objects, for example `Deployment`.
    pub kind: String,
    /// Namespaced or cluster-scoped.
    pub scope: Scope,
    /// The verbs the server allows (`get`, `list`, `watch`, ...).
    pub verbs: Vec<String>,
    /// Short names, for example `deploy`.
    pub short_names: Vec<String>,
    /// Categories, for example `all`.
    pub categories: Vec<String>,
    /// Its subresources, for example `status` and `scale`.
    pub subresources: Vec<Subresource>,
}

impl Resource {
    /// A resource with the singular name `kind` in lower case and nothing else listed; the
    /// `with_*` setters add the rest. The arguments come in `ApiResource::new`'s order.
    pub fn new(
        group: impl Into<String>,
        version: impl Into<String>,
        kind: impl Into<String>,
        plural: impl Into<String>,
        scope: Scope,
    ) -> Self {
        let kind = kind.into();
        Self {
            group: group.into(),
            version: version.into(),
            plural: plural.into(),
            singular: kind.to_lowercase(),
            kind,
            scope,
            verbs: Vec::new(),
            short_names: Vec::new(),
            categories: Vec::new(),
            subresources: Vec::new(),
        }
    }

    /// Sets the singular name.
    #[must_use]
    pub fn with_singular(mut self, singular: impl Into<String>) -> Self {
        self.singular = singular.into();
        self
    }

    /// Sets the short names.
    #[must_use]
    pub fn with_short_names<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.short_names = names.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the verbs.
    #[must_use]
    pub fn with_verbs<S: Into<String>>(mut self, verbs: impl IntoIterator<Item = S>) -> Self {
        self.verbs = verbs.into_iter().map(Into::into).collect();
        self
    }

    /// `group/version`, or `version` for the core group.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// `plural.group`, or `plural` for the core group (kubectl's name for it).
    pub fn group_resource(&self) -> String {
        if self.group.is_empty() {
            self.plural.clone()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }

    /// Whether the server allows `verb` on it.
    pub fn supports(&self, verb: &str) -> bool {
        self.verbs.iter().any(|v| v == verb)
    }

    /// The description informers and requests take.
    pub fn api_resource(&self) -> ApiResource {
        ApiResource::new(
            &self.group,
            &self.version,
            &self.kind,
            &self.plural,
            self.scope,
        )
    }
}

/// A subresource of a resource (`status`, `scale`, `log`).
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subresource {
    /// Its name, for example `status`.
    pub name: String,
    /// The kind it answers with, for example `Scale`; the parent's kind when the server does
    /// not say.
    pub kind: String,
    /// The verbs the server allows on it.
    pub verbs: Vec<String>,
}
