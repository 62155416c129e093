//! [`Projection`]: fields to drop, or to keep, named as paths and skipped by the parser, the way
//! `metadata.managedFields` is: the bytes are scanned, nothing is built for them.

use std::collections::BTreeMap;
use std::fmt;

mod deserialize;

pub use deserialize::{Projected, WithProjection};

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
/// # Examples
/// ```
/// use kinformer_rest::Projection;
///
/// let lean = Projection::drop(["spec.containers[].env", "status.containerStatuses"])?;
/// let narrow = Projection::keep(["spec.nodeName", "status.phase", "spec.containers[].image"])?;
/// assert!(Projection::drop(["spec..env"]).is_err());
/// # drop((lean, narrow));
/// # Ok::<(), kinformer_rest::ProjectionError>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Projection {
    keep: bool,
    root: Node,
}

/// One field of the path tree: how the keys of the map below it are treated.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Node {
    /// The fields listed below are the ones kept (others skipped); otherwise they are the ones
    /// skipped (others kept).
    pub(crate) keep_listed: bool,
    /// Named as a whole: kept whole under a keeping parent, skipped under a dropping one.
    pub(crate) whole: bool,
    /// Fields below it, by JSON name.
    pub(crate) fields: BTreeMap<String, Self>,
    /// What applies to each item when the value is a list (`[]`).
    pub(crate) each: Option<Box<Self>>,
}

impl Node {
    /// True when nothing below it is named: the field is taken or skipped whole.
    pub(crate) fn is_leaf(&self) -> bool {
        self.whole || (self.fields.is_empty() && self.each.is_none())
    }
}

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

    fn build<S: AsRef<str>>(
        keep: bool,
        paths: impl IntoIterator<Item = S>,
    ) -> Result<Self, ProjectionError> {
        let mut root = Node::default();
        for path in paths {
            insert(&mut root, path.as_ref(), keep)?;
        }
        if keep {
            for always in ["apiVersion", "kind"] {
                root.fields.entry(always.to_owned()).or_default().whole = true;
            }
            // An informer needs the metadata whole: what was named under it is ignored.
            root.fields.insert("metadata".to_owned(), Node::default());
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
        Ok(Self { keep, root })
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

fn insert(root: &mut Node, path: &str, keep: bool) -> Result<(), ProjectionError> {
    let error = |reason| ProjectionError {
        path: path.to_owned(),
        reason,
    };
    if path.is_empty() {
        return Err(error("empty path"));
    }
    root.keep_listed = keep;
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
