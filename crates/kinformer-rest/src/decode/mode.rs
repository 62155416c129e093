//! [`Decoding`]: whether objects are decoded whole or with `metadata.managedFields` skipped.

use super::skip_managed_fields::WithoutManagedFields;
use serde::de::DeserializeOwned;

/// How list items and watch objects are decoded; chosen by type, so the choice costs nothing per
/// object. See [`FullObjects`] and [`SkipManagedFields`].
pub trait Decoding: Send + Sync + 'static {
    /// What the parser produces for an object of type `K`.
    type Decoded<K: DeserializeOwned>: DeserializeOwned;

    /// The object itself.
    fn into_object<K: DeserializeOwned>(decoded: Self::Decoded<K>) -> K;
}

/// Objects decoded exactly as sent (the default).
#[derive(Debug)]
#[non_exhaustive]
pub enum FullObjects {}

impl Decoding for FullObjects {
    type Decoded<K: DeserializeOwned> = K;

    fn into_object<K: DeserializeOwned>(decoded: K) -> K {
        decoded
    }
}

/// Objects decoded through the [`Projection`](crate::Projection) of the list or watch that
/// decodes them ([`WithProjection`](crate::WithProjection) sets it around each poll).
#[derive(Debug)]
#[non_exhaustive]
pub enum Project {}

impl Decoding for Project {
    type Decoded<K: DeserializeOwned> = super::projection::Projected<K>;

    fn into_object<K: DeserializeOwned>(decoded: super::projection::Projected<K>) -> K {
        decoded.0
    }
}

/// Objects decoded with `metadata.managedFields` skipped by the parser: about 40% of a pod's bytes
/// that are then neither built nor dropped (see [`WithoutManagedFields`]).
#[derive(Debug)]
#[non_exhaustive]
pub enum SkipManagedFields {}

impl Decoding for SkipManagedFields {
    type Decoded<K: DeserializeOwned> = WithoutManagedFields<K>;

    fn into_object<K: DeserializeOwned>(decoded: WithoutManagedFields<K>) -> K {
        decoded.0
    }
}
