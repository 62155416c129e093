//! [`ObjectShape`]: what an informer's cache keeps of each object, and how it holds it.
//!
//! One value decides both, so nothing else in the pipeline has a say: the source decodes the
//! [`Fields`] (it derives its request's decoding from them through
//! [`ListerWatcher::set_fields`](crate::ListerWatcher::set_fields)), and the cache holds what
//! was decoded as [`Holding`] says. A transform is user logic on top of a shape, never a way
//! to shape.

use std::num::NonZeroUsize;
use std::sync::Arc;

use crate::Projection;

/// What a cache keeps of each object ([`Fields`]) and how it holds it ([`Holding`]).
///
/// The default keeps everything but `metadata.managedFields` and holds each object typed, in
/// exactly sized allocations: the least memory a typed cache can take, at no measurable cost
/// in sync time.
///
/// Metadata-only is not a shape but a type: an informer of
/// [`PartialObjectMetadata`](crate::PartialObjectMetadata) asks the server for metadata only
/// (its source is built for it), and its shape still decides which metadata fields are kept
/// and how they are held.
///
/// ```
/// use kinformer_core::{Fields, Holding, ObjectShape, Projection};
///
/// let default = ObjectShape::default();
/// assert_eq!(*default.fields(), Fields::WithoutManagedFields);
/// assert_eq!(default.holding(), Holding::Exact);
///
/// // Only what a scheduler-like controller reads, packed.
/// let lean = ObjectShape::default()
///     .with_fields(Fields::projected(Projection::keep(["spec.nodeName", "status.phase"])?))
///     .with_holding(Holding::Compact);
/// assert!(lean.fields().projection().is_some_and(|p| p.is_keep()));
/// # Ok::<(), kinformer_core::ProjectionError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ObjectShape {
    fields: Fields,
    holding: Holding,
}

impl ObjectShape {
    /// Keeps `fields` of each object.
    #[must_use]
    pub fn with_fields(mut self, fields: Fields) -> Self {
        self.fields = fields;
        self
    }

    /// What is kept of each object.
    pub fn fields(&self) -> &Fields {
        &self.fields
    }

    /// Holds each object as `holding` says.
    #[must_use]
    pub fn with_holding(mut self, holding: Holding) -> Self {
        self.holding = holding;
        self
    }

    /// How each object is held.
    pub fn holding(&self) -> Holding {
        self.holding
    }
}

/// Which fields of each object are decoded (and so cached and delivered); the parser skips the
/// others without building them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Fields {
    /// Every field, `metadata.managedFields` included (for a tool that shows or edits them).
    All,
    /// Every field but `metadata.managedFields` (the default): 20-50% of a real object's
    /// bytes, which no cache needs (they are server-side apply's bookkeeping).
    #[default]
    WithoutManagedFields,
    /// The fields a [`Projection`] keeps; managedFields are never among them.
    Projected(Arc<Projection>),
}

impl Fields {
    /// The fields `projection` keeps.
    pub fn projected(projection: Projection) -> Self {
        Self::Projected(Arc::new(projection))
    }

    /// The projection a decoder applies for these fields: none for [`All`](Self::All).
    pub fn projection(&self) -> Option<Arc<Projection>> {
        match self {
            Self::All => None,
            Self::WithoutManagedFields => Some(Projection::managed_fields()),
            Self::Projected(projection) => Some(Arc::clone(projection)),
        }
    }
}

/// How a cache holds each object.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Holding {
    /// Typed, copied into exactly sized allocations as it enters (the default). Decoding grows
    /// each list by doubling and leaves it among the parser's short-lived allocations; the copy
    /// holds every list at its length, packed together, while the decoded object's memory goes
    /// straight to the next decode. It is the one deep copy kinformer makes of an object,
    /// before anything else holds it.
    #[default]
    Exact,
    /// Typed, as the decoder built it (no copy; more memory per object).
    AsDecoded,
    /// Packed: each object kept encoded with its index values (a built-in type in Kubernetes'
    /// protobuf when the informer has that codec, anything else as its JSON), decoded on every
    /// read and delivery: about a tenth of a typed pod's memory, and each read costs a decode.
    Compact,
    /// Packed as [`Compact`](Self::Compact), plus the `hot` most recently read objects kept
    /// decoded: a controller's working set reads as fast as from a typed cache, the rest costs
    /// one decode per read, and memory stays near the packed size.
    Tiered {
        /// How many recently read objects stay decoded.
        hot: NonZeroUsize,
    },
}

impl Holding {
    /// How many recently read objects [`Holding::tiered`] keeps decoded: a controller's working
    /// set, at about 25 KB per decoded pod (25 MB), a small part of a large cache.
    pub const DEFAULT_HOT: NonZeroUsize = NonZeroUsize::new(1024).expect("non-zero");

    /// [`Tiered`](Self::Tiered) with [`DEFAULT_HOT`](Self::DEFAULT_HOT) objects kept decoded.
    ///
    /// ```
    /// use kinformer_core::Holding;
    ///
    /// assert!(Holding::tiered().is_packed());
    /// assert!(!Holding::default().is_packed());
    /// ```
    pub const fn tiered() -> Self {
        Self::Tiered {
            hot: Self::DEFAULT_HOT,
        }
    }

    /// Whether objects are held encoded ([`Compact`](Self::Compact), [`Tiered`](Self::Tiered)).
    pub const fn is_packed(&self) -> bool {
        matches!(self, Self::Compact | Self::Tiered { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_name_the_projection_a_decoder_applies() {
        assert_eq!(Fields::All.projection(), None);
        assert_eq!(
            Fields::WithoutManagedFields.projection(),
            Some(Projection::managed_fields())
        );
        let keep = Projection::keep(["status.phase"]).unwrap();
        assert_eq!(
            Fields::projected(keep.clone()).projection().as_deref(),
            Some(&keep)
        );
    }

    #[test]
    fn a_shape_is_set_one_part_at_a_time() {
        let shape = ObjectShape::default()
            .with_holding(Holding::Compact)
            .with_fields(Fields::All);
        assert_eq!(shape.holding(), Holding::Compact);
        assert_eq!(*shape.fields(), Fields::All);
        assert_eq!(
            shape.with_holding(Holding::AsDecoded).fields(),
            &Fields::All
        );
    }
}
