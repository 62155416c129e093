//! One watch event envelope `{"type": ..., "object": ...}` decoded straight into `WatchEvent<K>`.
//!
//! When `type` comes first (what API servers write) the object is decoded in place; when
//! `object` comes first it is kept as a borrowed raw slice and decoded once the type is known.

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use kinformer_core::{Bookmark, INITIAL_EVENTS_END_ANNOTATION, Projection, Status, WatchEvent};
use serde::de::{self, DeserializeOwned, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

use super::projection::decode_object;

/// Deserialises one envelope into a `WatchEvent<K>`, its object through `projection` (whole
/// without one).
pub(crate) struct EventSeed<'p, K> {
    projection: Option<&'p Projection>,
    _kind: PhantomData<fn() -> K>,
}

impl<'p, K> EventSeed<'p, K> {
    pub(crate) fn new(projection: Option<&'p Projection>) -> Self {
        Self {
            projection,
            _kind: PhantomData,
        }
    }
}

/// The five event types a watch may carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EventType {
    Added,
    Modified,
    Deleted,
    Bookmark,
    Error,
}

impl EventType {
    /// The type named `name`, or the error client-go's decoder gives for any other name.
    pub(crate) fn parse(name: &str) -> Result<Self, String> {
        match name {
            "ADDED" => Ok(Self::Added),
            "MODIFIED" => Ok(Self::Modified),
            "DELETED" => Ok(Self::Deleted),
            "BOOKMARK" => Ok(Self::Bookmark),
            "ERROR" => Ok(Self::Error),
            other => Err(format!("got invalid watch event type: {other:?}")),
        }
    }
}

impl<'de> Deserialize<'de> for EventType {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <&str>::deserialize(d)?;
        Self::parse(s).map_err(de::Error::custom)
    }
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "lowercase")]
enum Field {
    Type,
    Object,
    #[serde(other)]
    Other,
}

/// A bookmark's object, read leniently: only `metadata.resourceVersion` and annotations matter
/// (a pod bookmark carries `spec.containers: null`, which a typed `Pod` would reject).
#[derive(Deserialize)]
pub(crate) struct BookmarkObject {
    #[serde(default)]
    metadata: BookmarkMeta,
}

#[derive(Deserialize, Default)]
struct BookmarkMeta {
    #[serde(rename = "resourceVersion", default)]
    resource_version: Option<String>,
    #[serde(default)]
    annotations: Option<BTreeMap<String, String>>,
}

impl BookmarkObject {
    pub(crate) fn into_bookmark(self) -> Bookmark {
        let end = self
            .metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get(INITIAL_EVENTS_END_ANNOTATION))
            .is_some_and(|v| v == "true");
        Bookmark::new(self.metadata.resource_version.unwrap_or_default(), end)
    }
}

/// Decodes the object of an event whose type is known.
struct ObjectSeed<'p, K> {
    ty: EventType,
    projection: Option<&'p Projection>,
    _kind: PhantomData<fn() -> K>,
}

impl<'de, K: DeserializeOwned> DeserializeSeed<'de> for ObjectSeed<'_, K> {
    type Value = WatchEvent<K>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        let object = |d| decode_object::<K, D>(self.projection, d).map(Arc::new);
        Ok(match self.ty {
            EventType::Added => WatchEvent::Added(object(d)?),
            EventType::Modified => WatchEvent::Modified(object(d)?),
            EventType::Deleted => WatchEvent::Deleted(object(d)?),
            EventType::Bookmark => {
                WatchEvent::Bookmark(BookmarkObject::deserialize(d)?.into_bookmark())
            }
            EventType::Error => WatchEvent::Error(Box::new(Status::deserialize(d)?)),
        })
    }
}

impl<K> EventSeed<'_, K> {
    fn object(&self, ty: EventType) -> ObjectSeed<'_, K> {
        ObjectSeed {
            ty,
            projection: self.projection,
            _kind: PhantomData,
        }
    }
}

impl<'de, K: DeserializeOwned> DeserializeSeed<'de> for EventSeed<'_, K> {
    type Value = WatchEvent<K>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, K: DeserializeOwned> Visitor<'de> for EventSeed<'_, K> {
    type Value = WatchEvent<K>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a watch event object with `type` and `object`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut ty: Option<EventType> = None;
        let mut raw: Option<&'de RawValue> = None;
        let mut event: Option<WatchEvent<K>> = None;
        while let Some(field) = map.next_key::<Field>()? {
            match field {
                Field::Type if ty.is_some() => return Err(de::Error::duplicate_field("type")),
                Field::Type => ty = Some(map.next_value()?),
                Field::Object if raw.is_some() || event.is_some() => {
                    return Err(de::Error::duplicate_field("object"));
                }
                Field::Object => match ty {
                    Some(t) => {
                        event = Some(map.next_value_seed(self.object(t))?);
                    }
                    None => raw = Some(map.next_value()?),
                },
                Field::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let ty = ty.ok_or_else(|| de::Error::missing_field("type"))?;
        if let Some(event) = event {
            return Ok(event);
        }
        let raw = raw.ok_or_else(|| de::Error::missing_field("object"))?;
        let mut de = serde_json::Deserializer::from_str(raw.get());
        self.object(ty).deserialize(&mut de).map_err(|e| {
            de::Error::custom(format_args!("unable to decode watch event object: {e}"))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::Pod;

    fn decode(s: &str) -> Result<WatchEvent<Pod>, serde_json::Error> {
        let mut de = serde_json::Deserializer::from_str(s);
        EventSeed::<Pod>::new(None).deserialize(&mut de)
    }

    #[test]
    fn the_managed_fields_projection_drops_them_in_either_field_order() {
        for s in [
            r#"{"type":"MODIFIED","object":{"metadata":{"name":"a","managedFields":[{"manager":"m"}]}}}"#,
            r#"{"object":{"metadata":{"name":"a","managedFields":[{"manager":"m"}]}},"type":"MODIFIED"}"#,
        ] {
            let mut de = serde_json::Deserializer::from_str(s);
            let event = EventSeed::<Pod>::new(Some(&Projection::managed_fields()))
                .deserialize(&mut de)
                .unwrap();
            let pod = event.object().unwrap();
            assert_eq!(pod.metadata.name.as_deref(), Some("a"));
            assert!(pod.metadata.managed_fields.is_none(), "{s}");
            let full = decode(s).unwrap();
            assert!(full.object().unwrap().metadata.managed_fields.is_some());
        }
    }

    #[test]
    fn type_first_and_object_first() {
        let a = decode(r#"{"type":"ADDED","object":{"metadata":{"name":"p"}}}"#).unwrap();
        let b = decode(r#"{"object":{"metadata":{"name":"p"}},"type":"MODIFIED"}"#).unwrap();
        assert_eq!(a.object().unwrap().metadata.name.as_deref(), Some("p"));
        assert_eq!(b.type_name(), "MODIFIED");
        assert_eq!(b.object().unwrap().metadata.name.as_deref(), Some("p"));
    }

    #[test]
    fn lenient_bookmark_and_error_status() {
        let bm = decode(
            r#"{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"12",
            "annotations":{"k8s.io/initial-events-end":"true"}},"spec":{"containers":null},"status":{}}}"#,
        )
        .unwrap();
        match bm {
            WatchEvent::Bookmark(b) => {
                assert_eq!(b.resource_version, "12");
                assert!(b.initial_events_end);
            }
            other => panic!("unexpected {other:?}"),
        }
        let err =
            decode(r#"{"object":{"kind":"Status","code":410,"reason":"Expired"},"type":"ERROR"}"#)
                .unwrap();
        match err {
            WatchEvent::Error(s) => assert_eq!(s.code, Some(410)),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn bad_events_are_errors() {
        assert!(decode(r#"{"type":"EXPLODED","object":{}}"#).is_err());
        assert!(decode(r#"{"type":"ADDED"}"#).is_err());
        assert!(decode(r#"{"object":{}}"#).is_err());
        assert!(decode(r#"{"object":{"metadata":{"name":1}},"type":"ADDED"}"#).is_err());
    }
}
