//! The resource types the simulator serves: the built-ins and custom resources registered at run time.

mod builtins;
mod scale;
mod verbs;
mod version_order;
mod zero;

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use kinformer_core::ApiResource;
use kinformer_core::Scope;
pub use scale::ScaleSubresource;
pub(crate) use scale::{ScalePaths, SelectorSource};
pub(crate) use verbs::Verbs;
use version_order::version_priority;

/// A custom resource to register at run time (the control API's `POST resources`).
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CustomResource {
    /// API group, for example `example.com`.
    pub group: String,
    /// Version, for example `v1`.
    pub version: String,
    /// Plural resource name, for example `widgets`.
    pub plural: String,
    /// Kind, for example `Widget`.
    pub kind: String,
    /// Namespaced or cluster-scoped.
    pub scope: Scope,
    /// Short names discovery lists for it (`kubectl get wd`), as a CRD's `names.shortNames`.
    #[serde(default, rename = "shortNames", skip_serializing_if = "Vec::is_empty")]
    pub short_names: Vec<String>,
    /// Its `scale` subresource, as a CRD's `subresources.scale`; none without.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<ScaleSubresource>,
    /// Whether it serves a `status` subresource, as a CRD's `subresources.status`: writes to
    /// the object keep its status, `/status` writes change only the status, and status changes
    /// do not bump `metadata.generation`.
    #[serde(
        default,
        rename = "statusSubresource",
        skip_serializing_if = "std::ops::Not::not"
    )]
    pub status_subresource: bool,
}

impl CustomResource {
    /// Describes a custom resource; the arguments come in `ApiResource::new`'s order.
    ///
    /// # Examples
    /// ```
    /// use kinformer_core::Scope;
    /// use kinformer_sim::CustomResource;
    /// let cr = CustomResource::new("example.com", "v1", "Widget", "widgets", Scope::Namespaced);
    /// assert_eq!(cr.plural, "widgets");
    /// ```
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
            plural: plural.into(),
            kind: kind.into(),
            scope,
            short_names: Vec::new(),
            scale: None,
            status_subresource: false,
        }
    }

    /// The namespaced custom resource `widgets.example.com/v1` of kind `Widget`, with nothing
    /// else declared: the one to register when a test needs some custom resource.
    ///
    /// # Examples
    /// ```
    /// use kinformer_core::Scope;
    /// use kinformer_sim::CustomResource;
    /// let cr = CustomResource::example_widgets();
    /// assert_eq!(
    ///     cr,
    ///     CustomResource::new("example.com", "v1", "Widget", "widgets", Scope::Namespaced)
    /// );
    /// ```
    pub fn example_widgets() -> Self {
        Self::new("example.com", "v1", "Widget", "widgets", Scope::Namespaced)
    }

    /// Where a client finds it: its group, version, kind, plural and scope as an [`ApiResource`].
    ///
    /// # Examples
    /// ```
    /// use kinformer_sim::CustomResource;
    /// let widgets = CustomResource::example_widgets().api_resource();
    /// assert_eq!(widgets.api_version(), "example.com/v1");
    /// assert_eq!(widgets.plural, "widgets");
    /// ```
    pub fn api_resource(&self) -> ApiResource {
        ApiResource::new(
            &self.group,
            &self.version,
            &self.kind,
            &self.plural,
            self.scope,
        )
    }

    /// Sets the short names discovery lists for it.
    ///
    /// # Examples
    /// ```
    /// use kinformer_core::Scope;
    /// use kinformer_sim::CustomResource;
    /// let cr = CustomResource::new("example.com", "v1", "Widget", "widgets", Scope::Namespaced)
    ///     .with_short_names(["wd"]);
    /// assert_eq!(cr.short_names, ["wd"]);
    /// ```
    #[must_use]
    pub fn with_short_names<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.short_names = names.into_iter().map(Into::into).collect();
        self
    }

    /// Serves a `scale` subresource for it (`kubectl scale`, a HorizontalPodAutoscaler's target).
    ///
    /// # Examples
    /// ```
    /// use kinformer_core::Scope;
    /// use kinformer_sim::{CustomResource, ScaleSubresource};
    /// let cr = CustomResource::new("example.com", "v1", "Widget", "widgets", Scope::Namespaced)
    ///     .with_scale(ScaleSubresource::new(".spec.replicas", ".status.replicas"));
    /// assert!(cr.scale.is_some());
    /// ```
    #[must_use]
    pub fn with_scale(mut self, scale: ScaleSubresource) -> Self {
        self.scale = Some(scale);
        self
    }

    /// Serves a `status` subresource for it, as most controllers' CRDs declare one
    /// (`subresources: {status: {}}`).
    ///
    /// # Examples
    /// ```
    /// use kinformer_core::Scope;
    /// use kinformer_sim::CustomResource;
    /// let cr = CustomResource::new("example.com", "v1", "Widget", "widgets", Scope::Namespaced)
    ///     .with_status_subresource();
    /// assert!(cr.status_subresource);
    /// ```
    #[must_use]
    pub fn with_status_subresource(mut self) -> Self {
        self.status_subresource = true;
        self
    }
}

/// Everything the server needs to know about one resource type.
#[derive(Debug)]
pub(crate) struct ResourceDef {
    pub(crate) group: String,
    pub(crate) version: String,
    pub(crate) plural: String,
    pub(crate) singular: String,
    pub(crate) kind: String,
    pub(crate) namespaced: bool,
    /// Built-in list items omit `kind`/`apiVersion`; custom resource items carry them.
    pub(crate) builtin: bool,
    pub(crate) short_names: Vec<String>,
    /// Field-selector fields beyond `metadata.name`/`metadata.namespace`, as JSON paths.
    pub(crate) fields: &'static [&'static str],
    /// The zero-value body a bookmark carries after `metadata` (pods: `,"spec":{"containers":null},"status":{}`).
    pub(crate) bookmark_tail: String,
    /// The key used by the control API and the store: `pods`, or `widgets.example.com`.
    pub(crate) id: String,
    /// What its `scale` subresource shows, when it has one.
    pub(crate) scale: Option<ScalePaths>,
    /// Whether it serves a `status` subresource.
    pub(crate) status_subresource: bool,
    /// The subresources it serves besides `status` and `scale` (`log`, `eviction`, `token`...).
    pub(crate) other_subresources: Vec<String>,
    /// The categories discovery lists it in (`kubectl get all`).
    pub(crate) categories: Vec<String>,
    /// The CustomResourceDefinition it is served for, when it is served for one.
    pub(crate) crd: Option<String>,
    /// Its CRD version's `openAPIV3Schema`, as the CRD declares it.
    pub(crate) openapi: Option<Arc<serde_json::Value>>,
    /// The verbs it serves.
    pub(crate) verbs: Verbs,
    /// Its CRD version's `additionalPrinterColumns`, as the CRD declares them.
    pub(crate) printer_columns: Vec<serde_json::Value>,
    /// Its CRD version's structural schema: what its objects are pruned, defaulted and
    /// validated against.
    pub(crate) schema: Option<Arc<crate::schema::Structural>>,
    /// For a built-in version that is not the one its objects are stored in: the storage
    /// version and how objects convert (`crate::conversion`).
    pub(crate) conversion: Option<crate::conversion::Conversion>,
}

impl ResourceDef {
    pub(crate) fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// The resource its objects are stored as: its storage version's for a built-in served
    /// in several versions, else itself.
    pub(crate) fn storage(self: &Arc<Self>) -> &Arc<Self> {
        self.conversion.as_ref().map_or(self, |c| &c.storage)
    }

    /// [`ResourceDef::storage`] by reference.
    pub(crate) fn storage_def(&self) -> &Self {
        self.conversion.as_ref().map_or(self, |c| &*c.storage)
    }

    pub(crate) fn supports_field(&self, field: &str) -> bool {
        field == "metadata.name" || field == "metadata.namespace" || self.fields.contains(&field)
    }
}

fn id_for(group: &str, plural: &str) -> String {
    if group.is_empty() {
        plural.to_owned()
    } else {
        format!("{plural}.{group}")
    }
}

/// The set of served resources. Built-ins are fixed; custom resources are added at run time.
#[derive(Debug, Clone)]
pub(crate) struct Registry {
    defs: Vec<Arc<ResourceDef>>,
}

impl Default for Registry {
    fn default() -> Self {
        let defs = crate::conversion::linked(builtins::all());
        Self { defs }
    }
}

impl Registry {
    pub(crate) fn all(&self) -> &[Arc<ResourceDef>] {
        &self.defs
    }

    /// Looks a resource up by group and plural, as an API path names it.
    pub(crate) fn by_path(
        &self,
        group: &str,
        version: &str,
        plural: &str,
    ) -> Option<Arc<ResourceDef>> {
        self.defs
            .iter()
            .find(|d| d.group == group && d.version == version && d.plural == plural)
            .cloned()
    }

    /// Looks a resource up by its id (`pods`, `widgets.example.com`) or, when unique, its plural.
    pub(crate) fn by_name(&self, name: &str) -> Option<Arc<ResourceDef>> {
        if let Some(d) = self.defs.iter().find(|d| d.id == name) {
            return Some(d.clone());
        }
        let mut matches = self.defs.iter().filter(|d| d.plural == name);
        match (matches.next(), matches.next()) {
            (Some(d), None) => Some(d.clone()),
            _ => None,
        }
    }

    /// Adds a custom resource; registering the same one twice is a no-op.
    pub(crate) fn register(&mut self, cr: &CustomResource) -> Result<Arc<ResourceDef>, String> {
        if cr.group.is_empty()
            || cr.version.is_empty()
            || cr.plural.is_empty()
            || cr.kind.is_empty()
        {
            return Err("group, version, plural and kind are required".to_owned());
        }
        if let Some(existing) = self.by_path(&cr.group, &cr.version, &cr.plural) {
            return Ok(existing);
        }
        let scale = cr.scale.as_ref().map(ScaleSubresource::paths).transpose()?;
        let def = Arc::new(ResourceDef {
            group: cr.group.clone(),
            version: cr.version.clone(),
            plural: cr.plural.clone(),
            singular: cr.kind.to_lowercase(),
            kind: cr.kind.clone(),
            namespaced: cr.scope == Scope::Namespaced,
            builtin: false,
            short_names: cr.short_names.clone(),
            fields: &[],
            bookmark_tail: String::new(),
            id: id_for(&cr.group, &cr.plural),
            scale,
            status_subresource: cr.status_subresource,
            other_subresources: Vec::new(),
            categories: Vec::new(),
            crd: None,
            openapi: None,
            verbs: Verbs::All,
            printer_columns: Vec::new(),
            schema: None,
            conversion: None,
        });
        self.defs.push(def.clone());
        Ok(def)
    }

    /// Serves `def` for a CustomResourceDefinition, in place of what served its group, version
    /// and plural before (a CRD's update changes what its versions serve).
    pub(crate) fn register_def(&mut self, def: ResourceDef) -> Arc<ResourceDef> {
        let def = Arc::new(def);
        match self.defs.iter_mut().find(|d| {
            !d.builtin && d.group == def.group && d.version == def.version && d.plural == def.plural
        }) {
            Some(slot) => *slot = def.clone(),
            None => self.defs.push(def.clone()),
        }
        def
    }

    /// Stops serving every version `keep` does not name of the CustomResourceDefinition `crd`;
    /// returns what was removed.
    pub(crate) fn retain_crd(
        &mut self,
        crd: &str,
        keep: impl Fn(&ResourceDef) -> bool,
    ) -> Vec<Arc<ResourceDef>> {
        let (removed, kept) = std::mem::take(&mut self.defs)
            .into_iter()
            .partition(|d| d.crd.as_deref() == Some(crd) && !keep(d));
        self.defs = kept;
        removed
    }

    /// The names of the CustomResourceDefinitions whose resources are served.
    pub(crate) fn crds(&self) -> Vec<String> {
        let mut names: Vec<String> = self.defs.iter().filter_map(|d| d.crd.clone()).collect();
        names.sort_unstable();
        names.dedup();
        names
    }

    /// Removes a custom resource; returns it, or `None` when no such custom resource is served
    /// (built-in resources cannot be removed).
    pub(crate) fn unregister(&mut self, cr: &CustomResource) -> Option<Arc<ResourceDef>> {
        let index = self.defs.iter().position(|d| {
            !d.builtin && d.group == cr.group && d.version == cr.version && d.plural == cr.plural
        })?;
        Some(self.defs.remove(index))
    }

    /// Every group served under `/apis`, in registration order, each with its versions in
    /// the API server's priority order (the first is the preferred version).
    pub(crate) fn groups(&self) -> Vec<(String, Vec<String>)> {
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        for d in self.defs.iter().filter(|d| !d.group.is_empty()) {
            match out.iter_mut().find(|(g, _)| *g == d.group) {
                Some((_, versions)) if versions.contains(&d.version) => {}
                Some((_, versions)) => versions.push(d.version.clone()),
                None => out.push((d.group.clone(), vec![d.version.clone()])),
            }
        }
        for (_, versions) in &mut out {
            versions.sort_by_key(|v| version_priority(v));
        }
        out
    }
}

#[cfg(test)]
mod tests;
