//! The resource types the simulator serves: the built-ins and custom resources registered at run time.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

pub use kinformer_core::Scope;

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
}

impl CustomResource {
    /// Describes a custom resource.
    ///
    /// # Examples
    /// ```
    /// use kinformer_sim::{CustomResource, Scope};
    /// let cr = CustomResource::new("example.com", "v1", "widgets", "Widget", Scope::Namespaced);
    /// assert_eq!(cr.plural, "widgets");
    /// ```
    pub fn new(
        group: impl Into<String>,
        version: impl Into<String>,
        plural: impl Into<String>,
        kind: impl Into<String>,
        scope: Scope,
    ) -> Self {
        Self {
            group: group.into(),
            version: version.into(),
            plural: plural.into(),
            kind: kind.into(),
            scope,
            short_names: Vec::new(),
        }
    }

    /// Sets the short names discovery lists for it.
    ///
    /// # Examples
    /// ```
    /// use kinformer_sim::{CustomResource, Scope};
    /// let cr = CustomResource::new("example.com", "v1", "widgets", "Widget", Scope::Namespaced)
    ///     .with_short_names(["wd"]);
    /// assert_eq!(cr.short_names, ["wd"]);
    /// ```
    #[must_use]
    pub fn with_short_names<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.short_names = names.into_iter().map(Into::into).collect();
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
    /// The zero-value body a bookmark carries after `metadata` (pods: `"spec":{"containers":null},"status":{}`).
    pub(crate) bookmark_tail: &'static str,
    /// The key used by the control API and the store: `pods`, or `widgets.example.com`.
    pub(crate) id: String,
}

impl ResourceDef {
    pub(crate) fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    pub(crate) fn supports_field(&self, field: &str) -> bool {
        field == "metadata.name" || field == "metadata.namespace" || self.fields.contains(&field)
    }
}

const POD_FIELDS: &[&str] = &[
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.schedulerName",
    "spec.serviceAccountName",
    "spec.hostNetwork",
    "status.phase",
    "status.podIP",
    "status.podIPs",
    "status.nominatedNodeName",
];

/// The field selectors core/v1 Events take beyond name and namespace.
const EVENT_FIELDS: &[&str] = &[
    "involvedObject.kind",
    "involvedObject.namespace",
    "involvedObject.name",
    "involvedObject.uid",
    "involvedObject.apiVersion",
    "involvedObject.resourceVersion",
    "involvedObject.fieldPath",
    "reason",
    "reportingComponent",
    "type",
];

#[allow(clippy::too_many_arguments)] // a table of built-ins reads best as positional rows
fn builtin(
    group: &str,
    plural: &str,
    singular: &str,
    kind: &str,
    namespaced: bool,
    short_names: &'static [&'static str],
    fields: &'static [&'static str],
    bookmark_tail: &'static str,
) -> ResourceDef {
    let version = "v1";
    ResourceDef {
        group: group.to_owned(),
        version: version.to_owned(),
        plural: plural.to_owned(),
        singular: singular.to_owned(),
        kind: kind.to_owned(),
        namespaced,
        builtin: true,
        short_names: short_names.iter().map(|s| (*s).to_owned()).collect(),
        fields,
        bookmark_tail,
        id: id_for(group, plural),
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
        let defs = vec![
            builtin(
                "",
                "pods",
                "pod",
                "Pod",
                true,
                &["po"],
                POD_FIELDS,
                r#","spec":{"containers":null},"status":{}"#,
            ),
            builtin(
                "",
                "configmaps",
                "configmap",
                "ConfigMap",
                true,
                &["cm"],
                &[],
                "",
            ),
            builtin("", "secrets", "secret", "Secret", true, &[], &["type"], ""),
            builtin(
                "",
                "namespaces",
                "namespace",
                "Namespace",
                false,
                &["ns"],
                &["status.phase"],
                r#","spec":{},"status":{}"#,
            ),
            builtin(
                "",
                "nodes",
                "node",
                "Node",
                false,
                &["no"],
                &["spec.unschedulable"],
                r#","spec":{},"status":{"daemonEndpoints":{"kubeletEndpoint":{"Port":0}},"nodeInfo":{"machineID":"","systemUUID":"","bootID":"","kernelVersion":"","osImage":"","containerRuntimeVersion":"","kubeletVersion":"","kubeProxyVersion":"","operatingSystem":"","architecture":""}}"#,
            ),
            builtin(
                "apps",
                "deployments",
                "deployment",
                "Deployment",
                true,
                &["deploy"],
                &[],
                r#","spec":{"selector":null,"template":{"metadata":{"creationTimestamp":null},"spec":{"containers":null}},"strategy":{}},"status":{}"#,
            ),
            builtin(
                "coordination.k8s.io",
                "leases",
                "lease",
                "Lease",
                true,
                &[],
                &[],
                r#","spec":{}"#,
            ),
            builtin(
                "events.k8s.io",
                "events",
                "event",
                "Event",
                true,
                &["ev"],
                &[],
                r#","eventTime":null"#,
            ),
            builtin(
                "",
                "events",
                "event",
                "Event",
                true,
                &["ev"],
                EVENT_FIELDS,
                "",
            ),
        ];
        Self {
            defs: defs.into_iter().map(Arc::new).collect(),
        }
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
            bookmark_tail: "",
            id: id_for(&cr.group, &cr.plural),
        });
        self.defs.push(def.clone());
        Ok(def)
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

/// The sort key of a version as the API server orders a group's versions: GA before beta
/// before alpha, a higher major and then minor number first, other names last alphabetically.
fn version_priority(version: &str) -> (u8, std::cmp::Reverse<u64>, std::cmp::Reverse<u64>, String) {
    let parsed = version.strip_prefix('v').and_then(|rest| {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let major: u64 = rest[..digits].parse().ok()?;
        let tail = &rest[digits..];
        let (stage, minor) = if tail.is_empty() {
            (0, "0")
        } else if let Some(m) = tail.strip_prefix("beta") {
            (1, m)
        } else {
            (2, tail.strip_prefix("alpha")?)
        };
        let minor: u64 = if minor.is_empty() {
            0
        } else {
            minor.parse().ok()?
        };
        Some((stage, major, minor))
    });
    match parsed {
        Some((stage, major, minor)) => (
            stage,
            std::cmp::Reverse(major),
            std::cmp::Reverse(minor),
            String::new(),
        ),
        None => (
            3,
            std::cmp::Reverse(0),
            std::cmp::Reverse(0),
            version.to_owned(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_builtins_and_registers_custom() {
        let mut r = Registry::default();
        assert_eq!(
            r.by_path("", "v1", "pods").map(|d| d.kind.clone()),
            Some("Pod".into())
        );
        assert!(r.by_path("apps", "v1", "deployments").is_some());
        let cr = CustomResource::new("example.com", "v1", "widgets", "Widget", Scope::Namespaced);
        let def = r.register(&cr);
        assert_eq!(
            def.map(|d| d.id.clone()),
            Ok("widgets.example.com".to_owned())
        );
        assert!(r.by_name("widgets").is_some());
        assert_eq!(
            r.groups(),
            vec![
                ("apps".into(), vec!["v1".into()]),
                ("coordination.k8s.io".into(), vec!["v1".into()]),
                ("events.k8s.io".into(), vec!["v1".into()]),
                ("example.com".into(), vec!["v1".into()])
            ]
        );
    }

    #[test]
    fn versions_in_priority_order() {
        let mut r = Registry::default();
        for v in [
            "v1alpha1", "v1beta1", "v2beta1", "v1", "v2", "foo", "v1beta2",
        ] {
            let cr = CustomResource::new("example.com", v, "widgets", "Widget", Scope::Namespaced);
            r.register(&cr).unwrap();
        }
        let groups = r.groups();
        let versions = &groups.iter().find(|(g, _)| g == "example.com").unwrap().1;
        assert_eq!(
            versions,
            &[
                "v2", "v1", "v2beta1", "v1beta2", "v1beta1", "v1alpha1", "foo"
            ]
        );
    }
}
