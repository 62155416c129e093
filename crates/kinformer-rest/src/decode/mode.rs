//! [`Decoding`]: whether objects are decoded whole, with `metadata.managedFields` skipped, or
//! through a [`Projection`].

use std::sync::Arc;

use super::projection::Projection;

/// How list items and watch objects are decoded: the projection, if any, a decoder carries and
/// passes to each object's decode. See [`FullObjects`], [`SkipManagedFields`] and [`Project`].
pub trait Decoding: Send + Sync + 'static {
    /// The projection objects are decoded through, given the one the request or decoder was
    /// handed (`requested`); `None` decodes objects whole.
    fn projection(requested: Option<Arc<Projection>>) -> Option<Arc<Projection>>;
}

/// Objects decoded exactly as sent (the default).
#[derive(Debug)]
#[non_exhaustive]
pub enum FullObjects {}

impl Decoding for FullObjects {
    fn projection(_requested: Option<Arc<Projection>>) -> Option<Arc<Projection>> {
        None
    }
}

/// Objects decoded through the [`Projection`] of the list or watch that decodes them
/// ([`Request::projection`](crate::Request::projection),
/// [`ListDecoder::with_projection`](crate::decoders::ListDecoder::with_projection),
/// [`WatchDecoder::with_projection`](crate::decoders::WatchDecoder::with_projection)); without
/// one, with `metadata.managedFields` skipped.
#[derive(Debug)]
#[non_exhaustive]
pub enum Project {}

impl Decoding for Project {
    fn projection(requested: Option<Arc<Projection>>) -> Option<Arc<Projection>> {
        Some(requested.unwrap_or_else(Projection::managed_fields))
    }
}

/// Objects decoded with `metadata.managedFields` skipped by the parser: about 40% of a pod's bytes
/// that are then neither built nor dropped. This is the projection that drops nothing else
/// ([`Projection::managed_fields`]); a requested projection is not used.
#[derive(Debug)]
#[non_exhaustive]
pub enum SkipManagedFields {}

impl Decoding for SkipManagedFields {
    fn projection(_requested: Option<Arc<Projection>>) -> Option<Arc<Projection>> {
        Some(Projection::managed_fields())
    }
}
