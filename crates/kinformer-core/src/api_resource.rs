//! [`ApiResource`]: where a resource type lives in the API.

/// Whether objects of a resource live in a namespace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub enum Scope {
    /// Objects live in a namespace (pods, configmaps).
    Namespaced,
    /// Objects are cluster-wide (nodes, namespaces).
    Cluster,
}

/// The run-time description of a resource type: enough to build its URLs.
///
/// # Examples
/// ```
/// use k8s_openapi::api::apps::v1::Deployment;
/// use kinformer_core::{ApiResource, Scope};
///
/// let deployments = ApiResource::of::<Deployment>();
/// assert_eq!(deployments.group, "apps");
/// assert_eq!(deployments.plural, "deployments");
/// assert_eq!(deployments.scope, Scope::Namespaced);
/// assert_eq!(deployments.group_version_path(), "/apis/apps/v1");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct ApiResource {
    /// API group; `""` for the core group.
    pub group: String,
    /// API version within the group, e.g. `v1`.
    pub version: String,
    /// `kind`, e.g. `Pod`.
    pub kind: String,
    /// The plural resource name used in URLs, e.g. `pods`.
    pub plural: String,
    /// Namespaced or cluster-scoped.
    pub scope: Scope,
}

impl ApiResource {
    /// The description of a k8s-openapi resource type.
    pub fn of<K>() -> Self
    where
        K: k8s_openapi::Resource,
        K::Scope: 'static,
    {
        let scope = if std::any::TypeId::of::<K::Scope>()
            == std::any::TypeId::of::<k8s_openapi::NamespaceResourceScope>()
        {
            Scope::Namespaced
        } else {
            Scope::Cluster
        };
        Self {
            group: K::GROUP.to_owned(),
            version: K::VERSION.to_owned(),
            kind: K::KIND.to_owned(),
            plural: K::URL_PATH_SEGMENT.to_owned(),
            scope,
        }
    }

    /// A description for a custom or otherwise dynamic resource.
    pub fn new(
        group: impl Into<String>,
        version: impl Into<String>,
        kind: impl Into<String>,
        plural: impl Into<String>,
        scope: Scope,
    ) -> Self {
        Self {
            group: group.into(),
            version: version.into(),
            kind: kind.into(),
            plural: plural.into(),
            scope,
        }
    }

    /// `apiVersion` as objects carry it: `v1` for the core group, else `group/version`.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// The owner reference that makes `owner`, an object of this resource, the controller of
    /// another object (`controller: true`, and `blockOwnerDeletion: true` so a foreground
    /// deletion of the owner waits for it); `None` for an owner without a uid (never stored).
    ///
    /// ```
    /// use k8s_openapi::api::apps::v1::Deployment;
    /// use kinformer_core::ApiResource;
    ///
    /// let mut owner = Deployment::default();
    /// owner.metadata.name = Some("web".into());
    /// owner.metadata.uid = Some("6f1c".into());
    /// let reference = ApiResource::of::<Deployment>().controller_reference(&owner).unwrap();
    /// assert_eq!((reference.api_version.as_str(), reference.kind.as_str()), ("apps/v1", "Deployment"));
    /// assert_eq!((reference.name.as_str(), reference.controller), ("web", Some(true)));
    /// ```
    pub fn controller_reference<K: crate::Object>(
        &self,
        owner: &K,
    ) -> Option<k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference> {
        Some(
            k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference {
                api_version: self.api_version(),
                kind: self.kind.clone(),
                name: owner.name().to_owned(),
                uid: owner.uid()?.to_owned(),
                controller: Some(true),
                block_owner_deletion: Some(true),
            },
        )
    }

    /// The group-version path prefix: `/api/v1` or `/apis/{group}/{version}`.
    pub fn group_version_path(&self) -> String {
        if self.group.is_empty() {
            format!("/api/{}", self.version)
        } else {
            format!("/apis/{}/{}", self.group, self.version)
        }
    }

    /// The collection path, in one namespace when `namespace` is given and the resource is namespaced.
    ///
    /// ```
    /// use k8s_openapi::api::core::v1::Pod;
    /// use kinformer_core::ApiResource;
    ///
    /// let pods = ApiResource::of::<Pod>();
    /// assert_eq!(pods.collection_path(None), "/api/v1/pods");
    /// assert_eq!(pods.collection_path(Some("kube-system")), "/api/v1/namespaces/kube-system/pods");
    /// ```
    pub fn collection_path(&self, namespace: Option<&str>) -> String {
        match namespace {
            Some(ns) if self.scope == Scope::Namespaced && !ns.is_empty() => {
                format!(
                    "{}/namespaces/{}/{}",
                    self.group_version_path(),
                    ns,
                    self.plural
                )
            }
            _ => format!("{}/{}", self.group_version_path(), self.plural),
        }
    }
}
