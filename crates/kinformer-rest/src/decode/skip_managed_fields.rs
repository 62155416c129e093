//! Decoding that skips `metadata.managedFields` while parsing, instead of building it and dropping it.
//!
//! managedFields are about 40% of a pod's JSON and, decoded into k8s-openapi's `serde_json::Value`-based
//! `FieldsV1`, about half of its decode time and cached memory. Informer caches rarely need them
//! (kube-controller-manager and the scheduler strip them), so skipping them in the parser is the cheapest
//! place to drop them: the bytes are scanned but nothing is allocated.
//!
//! This is the [`Projection`] that drops nothing else ([`Projection::managed_fields`]), through
//! the one projection filter: only the top-level object's `metadata` map is looked into; every
//! other value deserializes at full speed.

use std::sync::{Arc, LazyLock};

use kinformer_core::Projection;
use serde::de::{self, DeserializeSeed, Deserializer};

use super::projection::ProjectionSeed;

/// [`Projection::managed_fields`] held here, so a decode borrows it without a reference count
/// to bump per object.
static MANAGED_FIELDS: LazyLock<Arc<Projection>> = LazyLock::new(Projection::managed_fields);

/// `K` decoded with `metadata.managedFields` skipped by the parser.
///
/// # Examples
/// ```
/// use k8s_openapi::api::core::v1::Pod;
/// use kinformer_rest::WithoutManagedFields;
///
/// let json = r#"{"metadata":{"name":"p","managedFields":[{"manager":"kubelet"}]},"spec":{"containers":[]}}"#;
/// let WithoutManagedFields(pod): WithoutManagedFields<Pod> = serde_json::from_str(json)?;
/// assert_eq!(pod.metadata.name.as_deref(), Some("p"));
/// assert!(pod.metadata.managed_fields.is_none());
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WithoutManagedFields<K>(pub K);

impl<'de, K: de::Deserialize<'de>> de::Deserialize<'de> for WithoutManagedFields<K> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize_without_managed_fields(deserializer).map(WithoutManagedFields)
    }
}

/// Deserializes `K` from `deserializer`, skipping the top-level object's `metadata.managedFields`.
///
/// # Errors
/// Whatever `K`'s own deserialization reports.
pub fn deserialize_without_managed_fields<'de, K, D>(deserializer: D) -> Result<K, D::Error>
where
    K: de::Deserialize<'de>,
    D: Deserializer<'de>,
{
    ProjectionSeed::new(&MANAGED_FIELDS).deserialize(deserializer)
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::Pod;

    use super::*;
    use kinformer_core::DynamicObject;

    const POD: &str = r#"{"kind":"Pod","metadata":{"name":"p","namespace":"ns","labels":{"a":"b"},
        "managedFields":[{"manager":"kubelet","operation":"Update","fieldsV1":{"f:status":{}}}],
        "resourceVersion":"7"},
        "spec":{"containers":[{"name":"c","image":"i","env":[{"name":"managedFields","value":"x"}]}]},
        "status":{"phase":"Running"}}"#;

    #[test]
    fn skipping_equals_decoding_then_stripping() {
        let mut full: Pod = serde_json::from_str(POD).unwrap();
        assert!(full.metadata.managed_fields.is_some());
        full.metadata.managed_fields = None;
        let WithoutManagedFields(skipped): WithoutManagedFields<Pod> =
            serde_json::from_str(POD).unwrap();
        assert_eq!(skipped, full);
    }

    #[test]
    fn works_for_dynamic_objects_and_keeps_nested_fields_of_the_same_name() {
        let json = r#"{"apiVersion":"x/v1","kind":"W","metadata":{"name":"w","managedFields":[]},
            "spec":{"managedFields":[1,2]}}"#;
        let WithoutManagedFields(obj): WithoutManagedFields<DynamicObject> =
            serde_json::from_str(json).unwrap();
        assert!(obj.metadata.managed_fields.is_none());
        assert_eq!(obj.data["spec"]["managedFields"], serde_json::json!([1, 2]));
        assert_eq!(obj.metadata.name.as_deref(), Some("w"));
    }

    #[test]
    fn escaped_keys_and_null_metadata_decode() {
        let json = r#"{"metadata":{"na\u006de":"e","managedFields":null}}"#;
        let WithoutManagedFields(pod): WithoutManagedFields<Pod> =
            serde_json::from_str(json).unwrap();
        assert_eq!(pod.metadata.name.as_deref(), Some("e"));
        for json in [r#"{"metadata":null}"#, r#"{"metadata":{}}"#, "{}"] {
            let plain = serde_json::from_str::<Pod>(json).map_err(|e| e.to_string());
            let ours = serde_json::from_str::<WithoutManagedFields<Pod>>(json)
                .map(|w| w.0)
                .map_err(|e| e.to_string());
            assert_eq!(ours, plain, "{json}");
        }
    }

    #[test]
    fn malformed_input_is_an_error_not_a_panic() {
        for bad in [
            r#"{"metadata":{"managedFields":[}"#,
            r#"{"metadata":7}"#,
            "[",
            "",
        ] {
            assert!(
                serde_json::from_str::<WithoutManagedFields<Pod>>(bad).is_err(),
                "{bad}"
            );
        }
    }
}
