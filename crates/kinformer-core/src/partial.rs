//! [`PartialObjectMetadata`]: an object's metadata alone, as a metadata-only list or watch
//! returns it (client-go's `metav1.PartialObjectMetadata`).

use std::borrow::Cow;
use std::fmt;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

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
/// quota, owner lookups). Its `apiVersion` and `kind` are always `meta.k8s.io/v1` and
/// `PartialObjectMetadata`: they are written when it is serialized and take no room in it.
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
/// assert_eq!(obj.kind(), "PartialObjectMetadata");
/// let json = serde_json::to_value(&obj)?;
/// assert_eq!(json["apiVersion"], "meta.k8s.io/v1");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct PartialObjectMetadata {
    /// The object's metadata.
    pub metadata: ObjectMeta,
}

impl PartialObjectMetadata {
    /// A metadata-only object with `metadata`.
    pub fn new(metadata: ObjectMeta) -> Self {
        Self { metadata }
    }

    /// `meta.k8s.io/v1`.
    pub fn api_version(&self) -> &'static str {
        PARTIAL_OBJECT_METADATA_API_VERSION
    }

    /// `PartialObjectMetadata`.
    pub fn kind(&self) -> &'static str {
        PARTIAL_OBJECT_METADATA_KIND
    }
}

impl Serialize for PartialObjectMetadata {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_struct("PartialObjectMetadata", 3)?;
        out.serialize_field("apiVersion", PARTIAL_OBJECT_METADATA_API_VERSION)?;
        out.serialize_field("kind", PARTIAL_OBJECT_METADATA_KIND)?;
        out.serialize_field("metadata", &self.metadata)?;
        out.end()
    }
}

impl<'de> Deserialize<'de> for PartialObjectMetadata {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_struct(
            "PartialObjectMetadata",
            &["apiVersion", "kind", "metadata"],
            FieldsVisitor,
        )
    }
}

/// Reads `metadata` and skips everything else (`apiVersion` and `kind` are known).
struct FieldsVisitor;

impl<'de> Visitor<'de> for FieldsVisitor {
    type Value = PartialObjectMetadata;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a PartialObjectMetadata object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut metadata = None;
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            if key == "metadata" {
                metadata = Some(map.next_value()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(PartialObjectMetadata {
            metadata: metadata.unwrap_or_default(),
        })
    }
}

impl Object for PartialObjectMetadata {
    fn meta(&self) -> &ObjectMeta {
        &self.metadata
    }

    fn meta_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata
    }
}
