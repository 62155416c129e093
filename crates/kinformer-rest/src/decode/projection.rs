//! The one filter that applies a [`Projection`] while parsing: a deserializer wrapper that
//! skips the map keys a projection's node says to skip, passing everything else through
//! untouched. Skipping `metadata.managedFields` and any other projection go through it; the
//! projection is carried by value (a seed, a decoder field), so a decode may run on any thread.

use std::fmt;
use std::marker::PhantomData;

use kinformer_core::{Projection, ProjectionNode, ProjectionTake};
use serde::de::value::{BorrowedStrDeserializer, StrDeserializer, StringDeserializer};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::forward_to_deserialize_any;

/// Decodes one `K` through `projection`, or whole without one: then it is the plain serde
/// decode, with no filter in the way.
pub(crate) fn decode_object<'de, K, D>(
    projection: Option<&Projection>,
    deserializer: D,
) -> Result<K, D::Error>
where
    K: de::Deserialize<'de>,
    D: Deserializer<'de>,
{
    match projection {
        Some(projection) => ProjectionSeed::new(projection).deserialize(deserializer),
        None => K::deserialize(deserializer),
    }
}

/// Decodes one `K` through a [`Projection`], for a caller driving serde itself: the fields the
/// projection skips are scanned past by the parser, never built.
///
/// # Examples
/// ```
/// use k8s_openapi::api::core::v1::Pod;
/// use kinformer_core::Projection;
/// use kinformer_rest::decoders::ProjectionSeed;
/// use serde::de::DeserializeSeed;
///
/// let narrow = Projection::keep(["spec.nodeName", "status.phase", "spec.containers[].image"])?;
/// let json = r#"{"metadata":{"name":"p"},"spec":{"nodeName":"n","containers":[]},"status":{"podIP":"10.0.0.1"}}"#;
/// let pod: Pod = ProjectionSeed::new(&narrow)
///     .deserialize(&mut serde_json::Deserializer::from_str(json))?;
/// assert_eq!(pod.spec.unwrap().node_name.as_deref(), Some("n"));
/// assert!(pod.status.unwrap().pod_ip.is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ProjectionSeed<'p, K> {
    projection: &'p Projection,
    _kind: PhantomData<fn() -> K>,
}

impl<'p, K> ProjectionSeed<'p, K> {
    /// A seed that decodes one `K` through `projection`.
    pub fn new(projection: &'p Projection) -> Self {
        Self {
            projection,
            _kind: PhantomData,
        }
    }
}

impl<'de, K: de::Deserialize<'de>> DeserializeSeed<'de> for ProjectionSeed<'_, K> {
    type Value = K;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<K, D::Error> {
        K::deserialize(Projecting {
            inner: deserializer,
            node: self.projection.root(),
        })
    }
}

impl<K> Clone for ProjectionSeed<'_, K> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<K> Copy for ProjectionSeed<'_, K> {}

impl<K> fmt::Debug for ProjectionSeed<'_, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ProjectionSeed")
            .field(self.projection)
            .finish()
    }
}

/// A value deserialized with `node` describing the keys of the map it holds (or, for a list
/// and a node with `[]`, of each item).
struct Projecting<'p, D> {
    inner: D,
    node: &'p ProjectionNode,
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Projecting<'_, D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_any(ProjectingVisitor {
            inner: visitor,
            node: self.node,
        })
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_map(ProjectingVisitor {
            inner: visitor,
            node: self.node,
        })
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let visitor = ProjectingVisitor {
            inner: visitor,
            node: self.node,
        };
        self.inner.deserialize_struct(name, fields, visitor)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_seq(ProjectingVisitor {
            inner: visitor,
            node: self.node,
        })
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_option(ProjectingVisitor {
            inner: visitor,
            node: self.node,
        })
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let visitor = ProjectingVisitor {
            inner: visitor,
            node: self.node,
        };
        self.inner.deserialize_newtype_struct(name, visitor)
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct tuple tuple_struct enum identifier ignored_any
    }
}

struct ProjectingVisitor<'p, V> {
    inner: V,
    node: &'p ProjectionNode,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for ProjectingVisitor<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        self.inner.visit_map(ProjectingMap {
            inner: map,
            node: self.node,
            next: None,
        })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        match self.node.each() {
            Some(each) => self.inner.visit_seq(ProjectingSeq {
                inner: seq,
                node: each,
            }),
            None => self.inner.visit_seq(seq),
        }
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        self.inner.visit_some(Projecting {
            inner: d,
            node: self.node,
        })
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        self.inner.visit_newtype_struct(Projecting {
            inner: d,
            node: self.node,
        })
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        self.inner.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        self.inner.visit_unit()
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

struct ProjectingMap<'p, A> {
    inner: A,
    node: &'p ProjectionNode,
    /// The node of the value about to be read, when it is projected further.
    next: Option<&'p ProjectionNode>,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for ProjectingMap<'_, A> {
    type Error = A::Error;

    fn next_key_seed<S: DeserializeSeed<'de>>(
        &mut self,
        mut seed: S,
    ) -> Result<Option<S::Value>, A::Error> {
        loop {
            let key = KeyTake {
                node: self.node,
                seed,
            };
            match self.inner.next_key_seed(key)? {
                None => return Ok(None),
                Some(Taken::Skip(unused)) => {
                    self.inner.next_value::<IgnoredAny>()?;
                    seed = unused;
                }
                Some(Taken::Key(key, next)) => {
                    self.next = next;
                    return Ok(Some(key));
                }
            }
        }
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        match self.next.take() {
            Some(node) => self
                .inner
                .next_value_seed(ProjectingSeed { inner: seed, node }),
            None => self.inner.next_value_seed(seed),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

struct ProjectingSeq<'p, A> {
    inner: A,
    node: &'p ProjectionNode,
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for ProjectingSeq<'_, A> {
    type Error = A::Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, A::Error> {
        self.inner.next_element_seed(ProjectingSeed {
            inner: seed,
            node: self.node,
        })
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

/// Passes a value through [`Projecting`] with `node`.
struct ProjectingSeed<'p, S> {
    inner: S,
    node: &'p ProjectionNode,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for ProjectingSeed<'_, S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        self.inner.deserialize(Projecting {
            inner: d,
            node: self.node,
        })
    }
}

/// Reads a map key and decides on it in one visit: a key the node skips hands the caller's seed
/// back unused; any other is handed to it at once, borrowed from the input when the input lends
/// it (JSON without escapes) and never copied (a protobuf decoder's keys are the schema's names).
struct KeyTake<'p, S> {
    node: &'p ProjectionNode,
    seed: S,
}

/// What [`KeyTake`] read.
enum Taken<'p, V, S> {
    /// A key to skip, with its value: the seed, unused.
    Skip(S),
    /// A key kept: the seed's value, and the node of its value when projected further.
    Key(V, Option<&'p ProjectionNode>),
}

impl<'p, S> KeyTake<'p, S> {
    /// Hands `key` to the seed unless `found` (the node's answer for it) says to skip it.
    fn finish<'de, D: Deserializer<'de>>(
        self,
        found: ProjectionTake<'p>,
        key: D,
    ) -> Result<Taken<'p, S::Value, S>, D::Error>
    where
        S: DeserializeSeed<'de>,
    {
        let next = match found {
            ProjectionTake::Skip => return Ok(Taken::Skip(self.seed)),
            ProjectionTake::Whole => None,
            ProjectionTake::Below(child) => Some(child),
        };
        let value = self.seed.deserialize(key)?;
        Ok(Taken::Key(value, next))
    }
}

impl<'de, 'p, S: DeserializeSeed<'de>> DeserializeSeed<'de> for KeyTake<'p, S> {
    type Value = Taken<'p, S::Value, S>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de, 'p, S: DeserializeSeed<'de>> Visitor<'de> for KeyTake<'p, S> {
    type Value = Taken<'p, S::Value, S>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string key")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        let found = self.node.take(v);
        self.finish(found, BorrowedStrDeserializer::new(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        let found = self.node.take(v);
        self.finish(found, StrDeserializer::new(v))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        let found = self.node.take(&v);
        self.finish(found, StringDeserializer::new(v))
    }
}

#[cfg(test)]
mod tests;
