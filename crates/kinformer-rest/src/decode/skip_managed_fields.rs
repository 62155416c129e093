//! Decoding that skips `metadata.managedFields` while parsing, instead of building it and dropping it.
//!
//! managedFields are about 40% of a pod's JSON and, decoded into k8s-openapi's `serde_json::Value`-based
//! `FieldsV1`, about half of its decode time and cached memory. Informer caches rarely need them
//! (kube-controller-manager and the scheduler strip them), so skipping them in the parser is the cheapest
//! place to drop them: the bytes are scanned but nothing is allocated.
//!
//! Only the top-level object's `metadata` map is wrapped; every other value deserializes at full speed.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::forward_to_deserialize_any;

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
    K::deserialize(Filtered {
        inner: deserializer,
        level: Level::Object,
    })
}

/// Which map the wrapper is standing on.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    /// The object itself: wrap the value of `metadata`.
    Object,
    /// The object's metadata: skip `managedFields`.
    Metadata,
}

struct Filtered<D> {
    inner: D,
    level: Level,
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Filtered<D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_any(FilteredVisitor {
            inner: visitor,
            level: self.level,
        })
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_map(FilteredVisitor {
            inner: visitor,
            level: self.level,
        })
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.inner.deserialize_struct(
            name,
            fields,
            FilteredVisitor {
                inner: visitor,
                level: self.level,
            },
        )
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_option(FilteredVisitor {
            inner: visitor,
            level: self.level,
        })
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.inner.deserialize_newtype_struct(
            name,
            FilteredVisitor {
                inner: visitor,
                level: self.level,
            },
        )
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct enum identifier ignored_any
    }
}

struct FilteredVisitor<V> {
    inner: V,
    level: Level,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for FilteredVisitor<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        self.inner.visit_map(FilteredMap {
            inner: map,
            level: self.level,
            wrap_next: false,
        })
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        self.inner.visit_some(Filtered {
            inner: d,
            level: self.level,
        })
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        self.inner.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        self.inner.visit_unit()
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        self.inner.visit_newtype_struct(Filtered {
            inner: d,
            level: self.level,
        })
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        self.inner.visit_seq(seq)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        self.inner.visit_bool(v)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        self.inner.visit_i64(v)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        self.inner.visit_u64(v)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        self.inner.visit_f64(v)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        self.inner.visit_str(v)
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        self.inner.visit_borrowed_str(v)
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        self.inner.visit_string(v)
    }
}

struct FilteredMap<A> {
    inner: A,
    level: Level,
    /// The key just handed out was `metadata` (on the object level): wrap its value.
    wrap_next: bool,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for FilteredMap<A> {
    type Error = A::Error;

    fn next_key_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, A::Error> {
        loop {
            let Some(key) = self.inner.next_key_seed(KeySeed)? else {
                return Ok(None);
            };
            match (self.level, key.as_ref()) {
                (Level::Metadata, "managedFields") => {
                    self.inner.next_value::<IgnoredAny>()?;
                }
                (level, name) => {
                    self.wrap_next = level == Level::Object && name == "metadata";
                    return seed
                        .deserialize(KeyDeserializer::<A::Error>::new(key))
                        .map(Some);
                }
            }
        }
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        if std::mem::take(&mut self.wrap_next) {
            self.inner.next_value_seed(MetadataSeed(seed))
        } else {
            self.inner.next_value_seed(seed)
        }
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

/// Passes the metadata value through a [`Filtered`] wrapper at the metadata level.
struct MetadataSeed<S>(S);

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for MetadataSeed<S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        self.0.deserialize(Filtered {
            inner: d,
            level: Level::Metadata,
        })
    }
}

/// Reads a map key as a string, borrowed from the input when it has no escapes.
pub(super) struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string key")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v))
    }
}

/// Hands a captured key to the caller's key seed.
pub(super) struct KeyDeserializer<'de, E> {
    key: Cow<'de, str>,
    marker: PhantomData<E>,
}

impl<'de, E> KeyDeserializer<'de, E> {
    pub(super) fn new(key: Cow<'de, str>) -> Self {
        Self {
            key,
            marker: PhantomData,
        }
    }
}

impl<'de, E: de::Error> Deserializer<'de> for KeyDeserializer<'de, E> {
    type Error = E;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        match self.key {
            Cow::Borrowed(k) => visitor.visit_borrowed_str(k),
            Cow::Owned(k) => visitor.visit_string(k),
        }
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
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
