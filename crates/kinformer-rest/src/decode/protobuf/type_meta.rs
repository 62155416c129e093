//! An object's `apiVersion` and `kind` put back in front of its protobuf message.
//!
//! In JSON, a watch event's object and a fetched object carry `apiVersion` and `kind`; in
//! protobuf the envelope carries them and the message does not. A type that keeps them
//! (`DynamicObject`) gets them from here, so it decodes to what it decodes to from JSON.

use std::fmt;

use serde::de::value::BorrowedStrDeserializer;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde::forward_to_deserialize_any;

/// A message deserializer whose map starts with `apiVersion` and `kind` entries.
pub(super) struct WithTypeMeta<'de, D> {
    inner: D,
    entries: [(&'static str, &'de str); 2],
}

impl<'de, D> WithTypeMeta<'de, D> {
    /// `inner` with `api_version` and `kind` in front (an empty one is left out, as JSON
    /// leaves it out).
    pub(super) fn new(inner: D, api_version: &'de str, kind: &'de str) -> Self {
        Self {
            inner,
            entries: [("apiVersion", api_version), ("kind", kind)],
        }
    }
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for WithTypeMeta<'de, D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_any(TypeMetaVisitor {
            inner: visitor,
            entries: self.entries,
        })
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_ignored_any(visitor)
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct enum identifier
    }
}

struct TypeMetaVisitor<'de, V> {
    inner: V,
    entries: [(&'static str, &'de str); 2],
}

impl<'de, V: Visitor<'de>> Visitor<'de> for TypeMetaVisitor<'de, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        self.inner.visit_map(TypeMetaMap {
            inner: map,
            entries: self.entries,
            next: 0,
            value: None,
        })
    }
}

struct TypeMetaMap<'de, A> {
    inner: A,
    entries: [(&'static str, &'de str); 2],
    /// The next of `entries` to hand out.
    next: usize,
    /// The value of the entry whose key was just handed out.
    value: Option<&'de str>,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for TypeMetaMap<'de, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        while let Some(&(key, value)) = self.entries.get(self.next) {
            self.next += 1;
            if value.is_empty() {
                continue;
            }
            self.value = Some(value);
            return seed
                .deserialize(BorrowedStrDeserializer::<A::Error>::new(key))
                .map(Some);
        }
        self.inner.next_key_seed(seed)
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        match self.value.take() {
            Some(value) => seed.deserialize(BorrowedStrDeserializer::<A::Error>::new(value)),
            None => self.inner.next_value_seed(seed),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        let left = self.entries.len().saturating_sub(self.next);
        self.inner.size_hint().map(|n| n + left)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kinformer_core::DynamicObject;
    use serde::Deserialize;

    #[test]
    fn the_entries_come_first_and_empty_ones_are_left_out() {
        let json = r#"{"metadata":{"name":"a"},"data":{"k":"v"}}"#;
        let mut de = serde_json::Deserializer::from_str(json);
        let object =
            DynamicObject::deserialize(WithTypeMeta::new(&mut de, "v1", "ConfigMap")).unwrap();
        let types = object.types.unwrap();
        assert_eq!(
            (types.api_version.as_str(), types.kind.as_str()),
            ("v1", "ConfigMap")
        );
        assert_eq!(object.data["data"]["k"], "v");

        let mut de = serde_json::Deserializer::from_str(json);
        let value =
            serde_json::Value::deserialize(WithTypeMeta::new(&mut de, "", "ConfigMap")).unwrap();
        assert_eq!(value["kind"], "ConfigMap");
        assert!(value.get("apiVersion").is_none());
    }
}
