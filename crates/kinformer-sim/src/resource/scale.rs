//! Where a resource keeps what its `scale` subresource shows: the apps/v1 workloads' fixed
//! fields, or the JSON paths a custom resource declares.

use serde::{Deserialize, Serialize};

/// The `scale` subresource of a custom resource, as a CustomResourceDefinition's
/// `subresources.scale` declares it: `/scale` reads and writes the replicas at these paths as an
/// `autoscaling/v1` `Scale`.
///
/// # Examples
/// ```
/// use kinformer_core::Scope;
/// use kinformer_sim::{CustomResource, ScaleSubresource};
///
/// let scale = ScaleSubresource::new(".spec.replicas", ".status.replicas")
///     .with_label_selector_path(".status.selector");
/// let cr = CustomResource::new("example.com", "v1", "Widget", "widgets", Scope::Namespaced)
///     .with_scale(scale);
/// assert_eq!(cr.scale.unwrap().spec_replicas_path, ".spec.replicas");
/// ```
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleSubresource {
    /// The desired replicas, a path under `.spec` (for example `.spec.replicas`).
    pub spec_replicas_path: String,
    /// The observed replicas, a path under `.status` (for example `.status.replicas`).
    pub status_replicas_path: String,
    /// The label selector of the scaled pods, in its string form (`app=web`), a path under
    /// `.spec` or `.status`; without it the `Scale` has no `status.selector`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_selector_path: Option<String>,
}

impl ScaleSubresource {
    /// A scale subresource reading the replicas at these two paths.
    pub fn new(
        spec_replicas_path: impl Into<String>,
        status_replicas_path: impl Into<String>,
    ) -> Self {
        Self {
            spec_replicas_path: spec_replicas_path.into(),
            status_replicas_path: status_replicas_path.into(),
            label_selector_path: None,
        }
    }

    /// Sets the path of the selector's string form.
    #[must_use]
    pub fn with_label_selector_path(mut self, path: impl Into<String>) -> Self {
        self.label_selector_path = Some(path.into());
        self
    }

    /// The paths, checked as the API server validates a CRD's scale subresource.
    pub(crate) fn paths(&self) -> Result<ScalePaths, String> {
        let selector = match &self.label_selector_path {
            None => SelectorSource::None,
            Some(p) => {
                SelectorSource::Text(parse_path("labelSelectorPath", p, &[".spec", ".status"])?)
            }
        };
        Ok(ScalePaths {
            spec_replicas: parse_path("specReplicasPath", &self.spec_replicas_path, &[".spec"])?,
            status_replicas: parse_path(
                "statusReplicasPath",
                &self.status_replicas_path,
                &[".status"],
            )?,
            selector,
            default_replicas: 0,
        })
    }
}

/// Where the selector of a `Scale` comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SelectorSource {
    /// None: the `Scale` has no `status.selector`.
    None,
    /// A `LabelSelector` object at this path, shown in its string form (the workloads' `spec.selector`).
    LabelSelector(Vec<String>),
    /// A string at this path, shown as it is (a custom resource's `labelSelectorPath`).
    Text(Vec<String>),
}

/// The fields behind a resource's `scale` subresource, as path segments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ScalePaths {
    pub(crate) spec_replicas: Vec<String>,
    pub(crate) status_replicas: Vec<String>,
    pub(crate) selector: SelectorSource,
    /// What a missing desired count reads as: the built-ins are defaulted to 1 when written,
    /// a custom resource's missing field reads as 0.
    pub(crate) default_replicas: i64,
}

impl ScalePaths {
    /// Deployments, replica sets and stateful sets: `spec.replicas`, `status.replicas`, and
    /// `spec.selector` shown as a string.
    pub(crate) fn workload() -> Self {
        let path = |p: &[&str]| p.iter().map(|s| (*s).to_owned()).collect();
        Self {
            spec_replicas: path(&["spec", "replicas"]),
            status_replicas: path(&["status", "replicas"]),
            selector: SelectorSource::LabelSelector(path(&["spec", "selector"])),
            default_replicas: 1,
        }
    }
}

/// Splits `.a.b` into `[a, b]`; it must start with one of `roots` and name a field below it.
fn parse_path(field: &str, path: &str, roots: &[&str]) -> Result<Vec<String>, String> {
    let under_root = roots.iter().any(|root| {
        path.strip_prefix(root)
            .is_some_and(|rest| rest.len() > 1 && rest.starts_with('.'))
    });
    let segments: Vec<String> = path
        .strip_prefix('.')
        .unwrap_or_default()
        .split('.')
        .map(str::to_owned)
        .collect();
    let plain = segments
        .iter()
        .all(|s| !s.is_empty() && !s.contains(['[', ']', '*']));
    if under_root && plain {
        Ok(segments)
    } else {
        Err(format!(
            "scale.{field}: Invalid value: {path:?}: should be a json path under {}",
            roots.join(" or ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_checked_as_a_crd_is_validated() {
        let paths = ScaleSubresource::new(".spec.replicas", ".status.count")
            .with_label_selector_path(".status.selector")
            .paths()
            .unwrap();
        assert_eq!(paths.spec_replicas, ["spec", "replicas"]);
        assert_eq!(paths.status_replicas, ["status", "count"]);
        assert_eq!(
            paths.selector,
            SelectorSource::Text(vec!["status".into(), "selector".into()])
        );
        assert_eq!(paths.default_replicas, 0);
        for (spec, status) in [
            (".status.replicas", ".status.replicas"),
            (".spec", ".status.replicas"),
            (".spec.replicas", ".spec.replicas"),
            ("spec.replicas", ".status.replicas"),
            (".spec.items[0]", ".status.replicas"),
            (".spec..replicas", ".status.replicas"),
        ] {
            let err = ScaleSubresource::new(spec, status).paths().unwrap_err();
            assert!(err.contains("should be a json path under"), "{err}");
        }
        let selector_in_metadata = ScaleSubresource::new(".spec.r", ".status.r")
            .with_label_selector_path(".metadata.labels")
            .paths()
            .unwrap_err();
        assert!(
            selector_in_metadata.starts_with("scale.labelSelectorPath"),
            "{selector_in_metadata}"
        );
    }
}
