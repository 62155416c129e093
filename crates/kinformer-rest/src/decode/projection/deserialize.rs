//! The parser side of a [`Projection`]: a deserializer wrapper that skips the fields a node
//! says to skip, and the thread-local that hands the projection to the decoders.

use std::cell::RefCell;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::forward_to_deserialize_any;

use super::super::skip_managed_fields::{
    KeyDeserializer, KeySeed, deserialize_without_managed_fields,
};
use super::{Node, Projection};

thread_local! {
    /// The projection of the decode running on this thread, set around each poll of a
    /// projecting list or watch.
    static CURRENT: RefCell<Option<Arc<Projection>>> = const { RefCell::new(None) };
}

/// `K` decoded through the projection of the list or watch that decodes it (without one, with
/// `metadata.managedFields` skipped).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Projected<K>(pub K);

impl<'de, K: de::Deserialize<'de>> de::Deserialize<'de> for Projected<K> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match CURRENT.with(|current| current.borrow().clone()) {
            Some(projection) => K::deserialize(Projecting {
                inner: deserializer,
                node: projection.root(),
            })
            .map(Projected),
            None => deserialize_without_managed_fields(deserializer).map(Projected),
        }
    }
}

/// Runs `poll` with `projection` as this thread's current projection.
pub(super) fn under<R>(projection: &Arc<Projection>, poll: impl FnOnce() -> R) -> R {
    let previous = CURRENT.with(|current| current.replace(Some(Arc::clone(projection))));
    let result = poll();
    CURRENT.with(|current| *current.borrow_mut() = previous);
    result
}

/// A future or stream whose polls decode through `projection`.
#[pin_project::pin_project]
#[derive(Debug)]
pub struct WithProjection<T> {
    #[pin]
    inner: T,
    projection: Option<Arc<Projection>>,
}

impl<T> WithProjection<T> {
    /// Wraps `inner` (a list future or a watch stream of the [`Project`](crate::Project) mode)
    /// so that its polls decode through `projection` (none: managedFields skipped only).
    pub fn new(inner: T, projection: Option<Arc<Projection>>) -> Self {
        Self { inner, projection }
    }
}

impl<F: Future> Future for WithProjection<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        match this.projection {
            Some(projection) => under(projection, || this.inner.poll(cx)),
            None => this.inner.poll(cx),
        }
    }
}

impl<S: futures_core::Stream> futures_core::Stream for WithProjection<S> {
    type Item = S::Item;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S::Item>> {
        let this = self.project();
        match this.projection {
            Some(projection) => under(projection, || this.inner.poll_next(cx)),
            None => this.inner.poll_next(cx),
        }
    }
}

/// A value deserialized with `node` describing the keys of the map it holds (or, for a list
/// and a node with `[]`, of each item).
struct Projecting<'p, D> {
    inner: D,
    node: &'p Node,
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
    node: &'p Node,
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
        match self.node.each.as_deref() {
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

/// What to do with a map key's value.
enum Take<'p> {
    Skip,
    Whole,
    Below(&'p Node),
}

fn take<'p>(node: &'p Node, key: &str) -> Take<'p> {
    match (node.keep_listed, node.fields.get(key)) {
        (true, None) => Take::Skip,
        (false, None) => Take::Whole,
        (true, Some(child)) if child.is_leaf() => Take::Whole,
        (false, Some(child)) if child.is_leaf() => Take::Skip,
        (_, Some(child)) => Take::Below(child),
    }
}

struct ProjectingMap<'p, A> {
    inner: A,
    node: &'p Node,
    /// The node of the value about to be read, when it is projected further.
    next: Option<&'p Node>,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for ProjectingMap<'_, A> {
    type Error = A::Error;

    fn next_key_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, A::Error> {
        loop {
            let Some(key) = self.inner.next_key_seed(KeySeed)? else {
                return Ok(None);
            };
            self.next = match take(self.node, &key) {
                Take::Skip => {
                    self.inner.next_value::<IgnoredAny>()?;
                    continue;
                }
                Take::Whole => None,
                Take::Below(child) => Some(child),
            };
            return seed
                .deserialize(KeyDeserializer::<A::Error>::new(key))
                .map(Some);
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
    node: &'p Node,
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
    node: &'p Node,
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
