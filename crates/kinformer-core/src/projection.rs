//! [`Projection`]: what a cache keeps of each object, as fields to drop or to keep, named as
//! paths. A decoder applies it while parsing: the bytes of a skipped field are scanned, nothing
//! is built for them. Skipping `metadata.managedFields` alone is the projection that drops
//! nothing else ([`Projection::managed_fields`]).

use std::fmt;
use std::sync::{Arc, LazyLock};

mod tree;

use tree::Draft;
pub use tree::{ProjectionNode, ProjectionTake};

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

/// Which fields of each object a list-watch decodes: a plain value, built once and shared
/// (as `Arc<Projection>`) by every request that decodes through it.
///
/// Paths name fields by their JSON names, separated by `.`; `[]` after a list's name applies
/// the rest of the path to each item (`spec.containers[].env`). [`drop`](Self::drop) skips the
/// fields named; [`keep`](Self::keep) skips every field not named, except `apiVersion`, `kind`
/// and `metadata`, which an informer needs whole (paths under `metadata` may still be dropped
/// by a drop projection). Either way `metadata.managedFields` is skipped too.
///
/// The paths are compiled once into a tree of the fields named, so decoding through a
/// projection costs one comparison per key of a map on a named path; values off those paths
/// are parsed (or skipped) at full speed. kinformer-rest's requests and decoders apply it
/// while parsing, given as [`Fields::Projected`](crate::Fields::Projected) (`Request::fields`,
/// `ListDecoder::with_fields`, `WatchDecoder::with_fields`; `ProjectionSeed` for a caller
/// driving serde itself).
///
/// # Examples
/// ```
/// use kinformer_core::Projection;
///
/// let lean = Projection::drop(["spec.containers[].env", "status.containerStatuses"])?;
/// let narrow = Projection::keep(["spec.nodeName", "status.phase", "spec.containers[].image"])?;
/// assert!(!lean.is_keep() && narrow.is_keep());
///
/// let err = Projection::drop(["spec..env"]).unwrap_err();
/// assert_eq!((err.path.as_str(), err.reason), ("spec..env", "empty field name"));
///
/// // Skipping managedFields alone: the projection that drops nothing else.
/// assert_eq!(*Projection::managed_fields(), Projection::drop::<&str>([])?);
/// # Ok::<(), kinformer_core::ProjectionError>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Projection {
    keep: bool,
    root: ProjectionNode,
}

/// The projection that skips managedFields only, built once.
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

    /// The projection that skips `metadata.managedFields` and nothing else (`drop([])`);
    /// shared, built once.
    pub fn managed_fields() -> Arc<Self> {
        Arc::clone(&MANAGED_FIELDS)
    }

    /// True for a keep projection.
    pub fn is_keep(&self) -> bool {
        self.keep
    }

    /// The node of the top-level object: where a decoder applying this projection starts.
    #[doc(hidden)]
    pub fn root(&self) -> &ProjectionNode {
        &self.root
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
