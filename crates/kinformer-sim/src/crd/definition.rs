//! A CustomResourceDefinition's fields the sim acts on, read from its stored JSON as
//! kube-apiserver decodes it (a field of the wrong type fails the decode; null is the zero value).

use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

/// The zero value for an explicit `null`, as Go's decoder leaves a field untouched by one.
fn or_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// `spec` with `metadata` beside it.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Definition {
    #[serde(default, deserialize_with = "or_default")]
    pub(crate) metadata: Metadata,
    #[serde(default, deserialize_with = "or_default")]
    pub(crate) spec: Spec,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct Metadata {
    #[serde(default, deserialize_with = "or_default")]
    pub(crate) name: String,
    #[serde(default, deserialize_with = "or_default")]
    pub(crate) annotations: Map<String, Value>,
    #[serde(default, rename = "deletionTimestamp")]
    pub(crate) deletion_timestamp: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Spec {
    #[serde(default, deserialize_with = "or_default")]
    pub(crate) group: String,
    #[serde(default, deserialize_with = "or_default")]
    pub(crate) names: Names,
    #[serde(default, deserialize_with = "or_default")]
    pub(crate) scope: String,
    #[serde(default, deserialize_with = "or_default")]
    pub(crate) versions: Vec<Version>,
}

/// `spec.names`, and `status.acceptedNames` in the same shape.
#[derive(Debug, Default, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Names {
    #[serde(default, deserialize_with = "or_default")]
    pub(crate) plural: String,
    #[serde(default, deserialize_with = "or_default")]
    pub(crate) singular: String,
    #[serde(default, deserialize_with = "or_default")]
    pub(crate) kind: String,
    #[serde(default, deserialize_with = "or_default")]
    pub(crate) list_kind: String,
    #[serde(default, deserialize_with = "or_default")]
    pub(crate) short_names: Vec<String>,
    #[serde(default, deserialize_with = "or_default")]
    pub(crate) categories: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Version {
    #[serde(default, deserialize_with = "or_default")]
    pub(crate) name: String,
    #[serde(default, deserialize_with = "or_default")]
    pub(crate) served: bool,
    #[serde(default, deserialize_with = "or_default")]
    pub(crate) storage: bool,
    #[serde(default, deserialize_with = "or_default")]
    pub(crate) schema: Option<Schema>,
    #[serde(default, deserialize_with = "or_default")]
    pub(crate) subresources: Option<Subresources>,
    #[serde(default, deserialize_with = "or_default")]
    pub(crate) additional_printer_columns: Vec<Value>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct Schema {
    #[serde(default, rename = "openAPIV3Schema")]
    pub(crate) open_api_v3_schema: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct Subresources {
    #[serde(default)]
    pub(crate) status: Option<Value>,
    #[serde(default, deserialize_with = "or_default")]
    pub(crate) scale: Option<Scale>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Scale {
    #[serde(default, deserialize_with = "or_default")]
    pub(crate) spec_replicas_path: String,
    #[serde(default, deserialize_with = "or_default")]
    pub(crate) status_replicas_path: String,
    #[serde(default, deserialize_with = "or_default")]
    pub(crate) label_selector_path: Option<String>,
}

impl Definition {
    /// Decodes a stored or sent CustomResourceDefinition; the decoder's message when a field
    /// has the wrong type.
    pub(crate) fn decode(obj: &Map<String, Value>) -> Result<Self, String> {
        Self::deserialize(Value::Object(obj.clone())).map_err(|e| e.to_string())
    }

    /// The version marked `storage`, when exactly one is.
    pub(crate) fn storage_version(&self) -> Option<&str> {
        let mut storage = self.spec.versions.iter().filter(|v| v.storage);
        match (storage.next(), storage.next()) {
            (Some(v), None) => Some(&v.name),
            _ => None,
        }
    }
}

impl Names {
    /// `spec.names` with the API server's defaults: the singular is the lowercased kind, the
    /// list kind the kind and `List`.
    pub(crate) fn defaulted(mut self) -> Self {
        if self.singular.is_empty() {
            self.singular = self.kind.to_lowercase();
        }
        if self.list_kind.is_empty() && !self.kind.is_empty() {
            self.list_kind = format!("{}List", self.kind);
        }
        self
    }

    /// As `status.acceptedNames` writes them (empty lists left out).
    pub(crate) fn to_json(&self) -> Value {
        let mut out = Map::new();
        out.insert("plural".into(), Value::from(self.plural.as_str()));
        if !self.singular.is_empty() {
            out.insert("singular".into(), Value::from(self.singular.as_str()));
        }
        if !self.short_names.is_empty() {
            out.insert("shortNames".into(), Value::from(self.short_names.clone()));
        }
        out.insert("kind".into(), Value::from(self.kind.as_str()));
        if !self.list_kind.is_empty() {
            out.insert("listKind".into(), Value::from(self.list_kind.as_str()));
        }
        if !self.categories.is_empty() {
            out.insert("categories".into(), Value::from(self.categories.clone()));
        }
        Value::Object(out)
    }
}
