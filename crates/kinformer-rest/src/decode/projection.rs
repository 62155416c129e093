//! [`Projection`]: fields to drop, or to keep, named as paths and skipped by the parser: the bytes
//! are scanned, nothing is built for them. Skipping `metadata.managedFields` (the
//! [`SkipManagedFields`](crate::SkipManagedFields) mode) is the projection that drops nothing else.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, LazyLock};

mod filter;

pub use filter::ProjectionSeed;
pub(crate) use filter::decode_object;

/// A malformed projection path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid projection path {path:?}: {reason}")]
#[non_exhaustive]
pub struct ProjectionError {
    /// The path as given.
    pub path: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

/// Which fields of each object a list-watch decodes.
///
/// Paths name fields by their JSON names, separated by `.`; `[]` after a list's name applies
/// the rest of the path to each item (`spec.containers[].env`). [`drop`](Self::drop) skips the
/// fields named; [`keep`](Self::keep) skips every field not named, except `apiVersion`, `kind`
/// and `metadata`, which an informer needs whole (paths under `metadata` may still be dropped
/// by a drop projection). Either way `metadata.managedFields` is skipped too.
///
/// The paths are compiled once into a tree of the fields named, so decoding through a
/// projection costs one comparison per key of a map on a named path; values off those paths
/// are parsed (or skipped) at full speed.
///
/// # Examples
/// ```
/// use k8s_openapi::api::core::v1::Pod;
/// use kinformer_rest::Projection;
/// use serde::de::DeserializeSeed;
///
/// let lean = Projection::drop(["spec.containers[].env", "status.containerStatuses"])?;
/// let narrow = Projection::keep(["spec.nodeName", "status.phase", "spec.containers[].image"])?;
/// assert!(Projection::drop(["spec..env"]).is_err());
///
/// let json = r#"{"metadata":{"name":"p"},"spec":{"nodeName":"n","containers":[]},"status":{"podIP":"10.0.0.1"}}"#;
/// let pod: Pod = narrow.seed().deserialize(&mut serde_json::Deserializer::from_str(json))?;
/// assert_eq!(pod.spec.unwrap().node_name.as_deref(), Some("n"));
/// assert!(pod.status.unwrap().pod_ip.is_none());
/// # drop(lean);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Projection {
    keep: bool,
    root: Node,
}

/// One map of the compiled path tree: what becomes of each of its keys' values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Node {
    /// A key not listed in `fields` is skipped (under a keep node), else kept whole.
    skip_unlisted: bool,
    /// The keys named at this level, sorted by name.
    fields: Box<[(Box<str>, Child)]>,
    /// What applies to each item when the value is a list (`[]`).
    each: Option<Box<Self>>,
}

/// What becomes of a named key's value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Child {
    /// Scanned past, never built.
    Skip,
    /// Decoded as it is, at full speed.
    Whole,
    /// Decoded through the node below.
    Below(Node),
}

/// What the filter does with one value: [`Child`] for a key looked up.
#[derive(Clone, Copy)]
pub(crate) enum Take<'p> {
    Skip,
    Whole,
    Below(&'p Node),
}

/// Above this many named keys a map's keys are looked up by binary search.
const LINEAR: usize = 8;

impl Node {
    /// What becomes of the value of `key` in a map this node describes.
    pub(crate) fn take(&self, key: &str) -> Take<'_> {
        let found = if self.fields.len() <= LINEAR {
            // Few names (the common case: `metadata` at the top, `managedFields` below it): a
            // length check settles most comparisons.
            self.fields.iter().find(|(name, _)| **name == *key)
        } else {
            self.fields
                .binary_search_by(|(name, _)| (**name).cmp(key))
                .ok()
                .map(|i| &self.fields[i])
        };
        match found {
            Some((_, Child::Skip)) => Take::Skip,
            Some((_, Child::Whole)) => Take::Whole,
            Some((_, Child::Below(node))) => Take::Below(node),
            None if self.skip_unlisted => Take::Skip,
            None => Take::Whole,
        }
    }

    /// The node of each item of a list value, when one is named.
    pub(crate) fn each(&self) -> Option<&Self> {
        self.each.as_deref()
    }
}

/// The path tree while paths are added.
#[derive(Default)]
struct Draft {
    /// The fields listed below are the ones kept (others skipped); otherwise they are the ones
    /// skipped (others kept).
    keep_listed: bool,
    /// Named as a whole: kept whole under a keeping parent, skipped under a dropping one.
    whole: bool,
    fields: BTreeMap<String, Self>,
    each: Option<Box<Self>>,
}

impl Draft {
    /// True when nothing below it is named: the field is taken or skipped whole.
    fn is_leaf(&self) -> bool {
        self.whole || (self.fields.is_empty() && self.each.is_none())
    }

    fn compile(self) -> Node {
        let keep_listed = self.keep_listed;
        let fields = self
            .fields
            .into_iter()
            .map(|(name, child)| {
                let child = match (child.is_leaf(), keep_listed) {
                    (true, true) => Child::Whole,
                    (true, false) => Child::Skip,
                    (false, _) => Child::Below(child.compile()),
                };
                (name.into_boxed_str(), child)
            })
            .collect();
        Node {
            skip_unlisted: keep_listed,
            fields,
            each: self.each.map(|each| Box::new(each.compile())),
        }
    }
}

/// The projection of [`SkipManagedFields`](crate::SkipManagedFields), built once.
static MANAGED_FIELDS: LazyLock<Arc<Projection>> =
    LazyLock::new(|| Arc::new(Projection::finish(false, Draft::default())));

impl Projection {
    /// Skips the fields named by `paths` (and `metadata.managedFields`).
    ///
    /// # Errors
    /// [`ProjectionError`] for an empty path or segment, or a misplaced `[]`.
    pub fn drop<S: AsRef<str>>(
        paths: impl IntoIterator<Item = S>,
    ) -> Result<Self, ProjectionError> {
        Self::build(false, paths)
    }

    /// Skips every field not named by `paths`, except `apiVersion`, `kind` and `metadata`
    /// (without its managedFields).
    ///
    /// # Errors
    /// [`ProjectionError`] for an empty path or segment, or a misplaced `[]`.
    pub fn keep<S: AsRef<str>>(
        paths: impl IntoIterator<Item = S>,
    ) -> Result<Self, ProjectionError> {
        Self::build(true, paths)
    }

    /// The projection that skips `metadata.managedFields` and nothing else (`drop([])`), the
    /// one [`SkipManagedFields`](crate::SkipManagedFields) decodes through; shared, built once.
    pub fn managed_fields() -> Arc<Self> {
        Arc::clone(&MANAGED_FIELDS)
    }

    /// [`managed_fields`](Self::managed_fields) without a reference count to bump per object.
    pub(crate) fn managed_fields_ref() -> &'static Self {
        &MANAGED_FIELDS
    }

    fn build<S: AsRef<str>>(
        keep: bool,
        paths: impl IntoIterator<Item = S>,
    ) -> Result<Self, ProjectionError> {
        let mut root = Draft {
            keep_listed: keep,
            ..Draft::default()
        };
        for path in paths {
            insert(&mut root, path.as_ref(), keep)?;
        }
        Ok(Self::finish(keep, root))
    }

    /// Adds what every projection has (the fields an informer needs, managedFields skipped)
    /// and compiles the tree.
    fn finish(keep: bool, mut root: Draft) -> Self {
        if keep {
            for always in ["apiVersion", "kind"] {
                root.fields.entry(always.to_owned()).or_default().whole = true;
            }
            // An informer needs the metadata whole: what was named under it is ignored.
            root.fields.insert("metadata".to_owned(), Draft::default());
        }
        // managedFields go whatever else is asked: the metadata node drops what it lists.
        let metadata = root.fields.entry("metadata".to_owned()).or_default();
        metadata.keep_listed = false;
        metadata.whole = false;
        metadata.each = None;
        metadata
            .fields
            .entry("managedFields".to_owned())
            .or_default()
            .whole = true;
        Self {
            keep,
            root: root.compile(),
        }
    }

    /// True for a keep projection.
    pub fn is_keep(&self) -> bool {
        self.keep
    }

    pub(crate) fn root(&self) -> &Node {
        &self.root
    }
}

impl fmt::Debug for Projection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Projection")
            .field("keep", &self.keep)
            .field("root", &self.root)
            .finish()
    }
}

fn insert(root: &mut Draft, path: &str, keep: bool) -> Result<(), ProjectionError> {
    let error = |reason| ProjectionError {
        path: path.to_owned(),
        reason,
    };
    if path.is_empty() {
        return Err(error("empty path"));
    }
    let mut node = root;
    for segment in path.split('.') {
        let (name, each) = match segment.strip_suffix("[]") {
            Some(name) => (name, true),
            None => (segment, false),
        };
        if name.is_empty() {
            return Err(error("empty field name"));
        }
        if name.contains(['[', ']']) {
            return Err(error(
                "brackets other than a trailing [] after a list's name",
            ));
        }
        node = node.fields.entry(name.to_owned()).or_default();
        node.keep_listed = keep;
        if each {
            node = node.each.get_or_insert_with(Box::default);
            node.keep_listed = keep;
        }
    }
    if path.ends_with("[]") {
        return Err(error("a path ends at a field, not at `[]`"));
    }
    node.whole = true;
    Ok(())
}

#[cfg(test)]
mod tests;
