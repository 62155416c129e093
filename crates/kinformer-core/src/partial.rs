//! [`PartialObjectMetadata`]: an object's metadata alone, as a metadata-only list or watch
//! returns it (client-go's `metav1.PartialObjectMetadata`).

use std::borrow::Cow;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::{Deserialize, Deserializer, Serialize};

use crate::Object;

/// The `apiVersion` of metadata-only objects and lists.
pub const PARTIAL_OBJECT_METADATA_API_VERSION: &str = "meta.k8s.io/v1";
/// The `kind` of one metadata-only object.
pub const PARTIAL_OBJECT_METADATA_KIND: &str = "PartialObjectMetadata";

/// An object of any resource, built-in or custom, reduced to its metadata by the API server:
/// what a list with `Accept: application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1`
/// returns as items, and a watch with `as=PartialObjectMetadata` as event objects.
///
/// A cache of these holds names, labels, annotations, owners and versions at a fraction of the
/// objects' size, for controllers that only need to know what exists (garbage collection,
/// quota, owner lookups).
///
/// # Examples
/// ```
/// use kinformer_core::{Object, PartialObjectMetadata};
///
/// let obj: PartialObjectMetadata = serde_json::from_str(
///     r#"{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1",
///         "metadata":{"name":"web-1","namespace":"shop","resourceVersion":"7"}}"#,
/// )?;
/// assert_eq!(obj.name(), "web-1");
/// assert_eq!(obj.kind, "PartialObjectMetadata");
/// assert!(matches!(obj.kind, std::borrow::Cow::Borrowed(_)), "no allocation for the usual kind");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PartialObjectMetadata {
    /// `meta.k8s.io/v1` as the server sends it (the usual value costs no allocation: a cache
    /// holds one per object).
    #[serde(rename = "apiVersion", default, deserialize_with = "interned")]
    pub api_version: Cow<'static, str>,
    /// `PartialObjectMetadata` as the server sends it (the usual value costs no allocation).
    #[serde(default, deserialize_with = "interned")]
    pub kind: Cow<'static, str>,
    /// The object's metadata.
    #[serde(default)]
    pub metadata: ObjectMeta,
}

impl PartialObjectMetadata {
    /// A metadata-only object with `metadata`, typed as the server types them.
    pub fn new(metadata: ObjectMeta) -> Self {
        Self {
            api_version: Cow::Borrowed(PARTIAL_OBJECT_METADATA_API_VERSION),
            kind: Cow::Borrowed(PARTIAL_OBJECT_METADATA_KIND),
            metadata,
        }
    }
}

/// The usual `apiVersion` and `kind` borrowed from constants; anything else owned.
fn interned<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Cow<'static, str>, D::Error> {
    let value = Cow::<'de, str>::deserialize(deserializer)?;
    Ok(
        match [
            PARTIAL_OBJECT_METADATA_API_VERSION,
            PARTIAL_OBJECT_METADATA_KIND,
        ]
        .into_iter()
        .find(|known| *known == value)
        {
            Some(known) => Cow::Borrowed(known),
            None => Cow::Owned(value.into_owned()),
        },
    )
}

impl Object for PartialObjectMetadata {
    fn meta(&self) -> &ObjectMeta {
        &self.metadata
    }

    fn meta_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata
    }
}
