//! [`DynamicObject`]: an object of a type known only at run time (custom resources).

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::{Deserialize, Serialize};

use crate::Object;

/// `apiVersion` and `kind` of an object.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TypeMeta {
    /// `apiVersion`, e.g. `example.com/v1`.
    #[serde(rename = "apiVersion")]
    pub api_version: String,
    /// `kind`, e.g. `Widget`.
    pub kind: String,
}

impl TypeMeta {
    /// A type meta from its two parts.
    pub fn new(api_version: impl Into<String>, kind: impl Into<String>) -> Self {
        Self {
            api_version: api_version.into(),
            kind: kind.into(),
        }
    }
}

/// An object whose type is known only at run time: metadata typed, everything else kept as JSON.
///
/// Items of custom resource lists carry `apiVersion`/`kind`; items of built-in lists may not, so
/// [`types`](Self::types) is optional.
///
/// # Examples
/// ```
/// use kinformer_core::{DynamicObject, Object};
///
/// let obj: DynamicObject = serde_json::from_str(
///     r#"{"apiVersion":"example.com/v1","kind":"Widget",
///         "metadata":{"name":"w1","namespace":"ns"},"spec":{"size":3}}"#,
/// )?;
/// assert_eq!(obj.name(), "w1");
/// assert_eq!(obj.data["spec"]["size"], 3);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct DynamicObject {
    /// `apiVersion` and `kind`, when the object carried them.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub types: Option<TypeMeta>,
    /// The object's metadata.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// Every other top-level field (`spec`, `status`, `data`, ...), as JSON.
    #[serde(flatten)]
    pub data: serde_json::Value,
}

impl DynamicObject {
    /// An empty object with the given name.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            types: None,
            metadata: ObjectMeta {
                name: Some(name.into()),
                ..ObjectMeta::default()
            },
            data: serde_json::Value::Object(serde_json::Map::new()),
        }
    }
}

impl Object for DynamicObject {
    fn meta(&self) -> &ObjectMeta {
        &self.metadata
    }

    fn meta_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata
    }
}
