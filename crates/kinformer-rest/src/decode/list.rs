//! Decoding a list body straight into `ObjectList<K>`: each item becomes an `Arc<K>` as it is read.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use kinformer_core::ObjectList;
use serde::de::{DeserializeOwned, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};

use crate::error::{Error, Kind, Result};

/// Decodes a list response body (`{"metadata":{...},"items":[...]}`, fields in any order) into
/// an [`ObjectList`], each item straight into an `Arc<K>` with no intermediate JSON tree.
///
/// # Errors
/// A body that is not a list of `K` (a decode error).
///
/// # Examples
/// ```
/// use k8s_openapi::api::core::v1::Namespace;
///
/// let body = br#"{"kind":"NamespaceList","metadata":{"resourceVersion":"7"},"items":[{"metadata":{"name":"a"}}]}"#;
/// let list = kinformer_rest::decoders::decode_list::<Namespace>(body)?;
/// assert_eq!((list.resource_version.as_str(), list.items.len()), ("7", 1));
/// # Ok::<(), kinformer_rest::Error>(())
/// ```
pub fn decode_list<K: DeserializeOwned>(body: &[u8]) -> Result<ObjectList<K>> {
    let mut de = serde_json::Deserializer::from_slice(body);
    let list = ListSeed::<K>(PhantomData)
        .deserialize(&mut de)
        .and_then(|list| de.end().map(|()| list))
        .map_err(|e| Error::new(Kind::Decode, "cannot decode the list body").with_source(e))?;
    Ok(list)
}

struct ListSeed<K>(PhantomData<K>);

/// The list metadata a client needs (`ListMeta` without `selfLink`).
#[derive(Deserialize, Default)]
pub(crate) struct ListMeta {
    #[serde(rename = "resourceVersion", default)]
    pub(crate) resource_version: Option<String>,
    #[serde(rename = "continue", default)]
    pub(crate) continue_token: Option<String>,
    #[serde(rename = "remainingItemCount", default)]
    pub(crate) remaining_item_count: Option<i64>,
}

impl ListMeta {
    /// The list of `items` this metadata describes: what every list decoder ends with.
    pub(crate) fn into_list<K>(self, items: Vec<Arc<K>>) -> ObjectList<K> {
        let mut list = ObjectList::new(self.resource_version.unwrap_or_default(), items)
            .with_continue(self.continue_token);
        list.remaining_item_count = self.remaining_item_count;
        list
    }

    /// Makes this `list`'s metadata, its items kept: what a streaming decoder does with the
    /// list's `metadata` when it arrives.
    pub(crate) fn apply<K>(self, list: &mut ObjectList<K>) {
        let items = std::mem::take(&mut list.items);
        *list = self.into_list(items);
    }
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "lowercase")]
enum Field {
    Metadata,
    Items,
    #[serde(other)]
    Other,
}

impl<'de, K: DeserializeOwned> DeserializeSeed<'de> for ListSeed<K> {
    type Value = ObjectList<K>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, K: DeserializeOwned> Visitor<'de> for ListSeed<K> {
    type Value = ObjectList<K>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a Kubernetes list object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut meta = ListMeta::default();
        let mut items = Vec::new();
        while let Some(key) = map.next_key::<Field>()? {
            match key {
                Field::Metadata => {
                    meta = map.next_value::<Option<ListMeta>>()?.unwrap_or_default();
                }
                Field::Items => items = map.next_value_seed(ItemsSeed::<K>(PhantomData))?,
                Field::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(meta.into_list(items))
    }
}

struct ItemsSeed<K>(PhantomData<K>);

impl<'de, K: DeserializeOwned> DeserializeSeed<'de> for ItemsSeed<K> {
    type Value = Vec<Arc<K>>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_option(self)
    }
}

impl<'de, K: DeserializeOwned> Visitor<'de> for ItemsSeed<K> {
    type Value = Vec<Arc<K>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of items or null")
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(Vec::new())
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(Vec::new())
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element::<K>()? {
            items.push(Arc::new(item));
        }
        Ok(items)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::Pod;

    #[test]
    fn decodes_items_and_meta_in_any_order() {
        let body = br#"{"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}],"kind":"PodList",
            "metadata":{"resourceVersion":"42","continue":"c1","remainingItemCount":7},"apiVersion":"v1"}"#;
        let list = decode_list::<Pod>(body).unwrap();
        assert_eq!(list.resource_version, "42");
        assert_eq!(list.continue_token.as_deref(), Some("c1"));
        assert_eq!(list.remaining_item_count, Some(7));
        let names: Vec<_> = list
            .items
            .iter()
            .map(|p| p.metadata.name.clone().unwrap())
            .collect();
        assert_eq!(names, ["a", "b"]);
    }

    #[test]
    fn null_items_and_empty_continue() {
        let list = decode_list::<Pod>(
            br#"{"metadata":{"resourceVersion":"1","continue":""},"items":null}"#,
        )
        .unwrap();
        assert!(list.items.is_empty());
        assert_eq!(list.continue_token, None);
    }

    #[test]
    fn dynamic_objects_keep_unknown_fields() {
        let body = br#"{"apiVersion":"example.com/v1","kind":"WidgetList","metadata":{"resourceVersion":"3"},
            "items":[{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":2}}]}"#;
        let list = decode_list::<kinformer_core::DynamicObject>(body).unwrap();
        let w = &list.items[0];
        assert_eq!(w.metadata.name.as_deref(), Some("w"));
        assert_eq!(w.types.as_ref().unwrap().kind, "Widget");
        assert_eq!(w.data["spec"]["size"], 2);
    }

    #[test]
    fn bad_item_is_a_decode_error() {
        let err = decode_list::<Pod>(br#"{"items":[{"metadata":{"name":5}}]}"#).unwrap_err();
        assert!(err.is_decode());
        assert!(
            decode_list::<Pod>(br#"{"items":[]} trailing"#)
                .unwrap_err()
                .is_decode()
        );
    }
}
