//! [`Predicate`]: which updates of a primary object are worth a reconcile.

use std::fmt;
use std::sync::Arc;

use kinformer_core::Object;

/// A filter on a primary object's updates, comparing the old and the new state: the update
/// queues a reconcile when the predicate holds. Adds always queue one; so do deletes of
/// objects a controller still holds a finalizer on (they stay in the cache as updates).
///
/// The default, [`Predicate::spec_or_metadata_changed`], lets a controller write its
/// object's status without reconciling it again for its own write.
///
/// ```
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kinformer_runtime::Predicate;
///
/// let mut old = ConfigMap::default();
/// old.metadata.resource_version = Some("1".into());
/// old.metadata.generation = Some(1);
/// let mut status_only = old.clone();
/// status_only.metadata.resource_version = Some("2".into());
/// let mut spec = status_only.clone();
/// spec.metadata.generation = Some(2);
///
/// let predicate = Predicate::<ConfigMap>::spec_or_metadata_changed();
/// assert!(!predicate.matches(&old, &status_only));
/// assert!(predicate.matches(&old, &spec));
/// let any = Predicate::generation_changed().or(Predicate::resource_version_changed());
/// assert!(any.matches(&old, &status_only));
/// ```
pub struct Predicate<K>(Arc<Compare<K>>);

/// A comparison of an object's old and new state.
type Compare<K> = dyn Fn(&K, &K) -> bool + Send + Sync;

impl<K> Clone for Predicate<K> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<K> fmt::Debug for Predicate<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Predicate")
    }
}

impl<K: Object> Predicate<K> {
    /// A predicate of the caller's: `matches(old, new)`.
    pub fn new(matches: impl Fn(&K, &K) -> bool + Send + Sync + 'static) -> Self {
        Self(Arc::new(matches))
    }

    /// Whether the update passes.
    pub fn matches(&self, old: &K, new: &K) -> bool {
        (self.0)(old, new)
    }

    /// The object's desired state changed: `metadata.generation` differs. An object without a
    /// generation (a ConfigMap, a Secret: every write is a change of what they hold) passes
    /// whenever its resourceVersion changed, where controller-runtime's generation predicate
    /// drops every update of such objects.
    pub fn generation_changed() -> Self {
        Self::new(
            |old: &K, new: &K| match (old.meta().generation, new.meta().generation) {
                (Some(old), Some(new)) => old != new,
                _ => old.resource_version() != new.resource_version(),
            },
        )
    }

    /// `metadata.resourceVersion` differs: every write, a resync's unchanged object excluded.
    pub fn resource_version_changed() -> Self {
        Self::new(|old: &K, new: &K| old.resource_version() != new.resource_version())
    }

    /// `metadata.labels` differ.
    pub fn labels_changed() -> Self {
        Self::new(|old: &K, new: &K| old.meta().labels != new.meta().labels)
    }

    /// `metadata.annotations` differ.
    pub fn annotations_changed() -> Self {
        Self::new(|old: &K, new: &K| old.meta().annotations != new.meta().annotations)
    }

    /// `metadata.finalizers` or `metadata.deletionTimestamp` differ: deletion began, or a
    /// finalizer came or went.
    pub fn deletion_changed() -> Self {
        Self::new(|old: &K, new: &K| {
            old.meta().finalizers != new.meta().finalizers
                || old.meta().deletion_timestamp != new.meta().deletion_timestamp
        })
    }

    /// The default: the generation, the labels, the annotations, the finalizers or the
    /// deletion timestamp changed; a status-only write (a controller's own) does not pass.
    pub fn spec_or_metadata_changed() -> Self {
        Self::generation_changed()
            .or(Self::labels_changed())
            .or(Self::annotations_changed())
            .or(Self::deletion_changed())
    }

    /// Passes when either passes.
    #[must_use]
    pub fn or(self, other: Self) -> Self {
        Self::new(move |old: &K, new: &K| self.matches(old, new) || other.matches(old, new))
    }

    /// Passes when both pass.
    #[must_use]
    pub fn and(self, other: Self) -> Self {
        Self::new(move |old: &K, new: &K| self.matches(old, new) && other.matches(old, new))
    }
}

impl<K: Object> Default for Predicate<K> {
    fn default() -> Self {
        Self::spec_or_metadata_changed()
    }
}
