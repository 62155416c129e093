//! Decoding straight into k8s-openapi's types, with no serde in between: code generated from the
//! schema and from k8s-openapi's own type definitions (`cargo xtask protobuf-typed`) routes each
//! field number to the Rust field it fills. Strings are copied once, times are built from their
//! seconds (not written as text and parsed back), and nothing is looked up by name.
//!
//! It decodes exactly what the serde path ([`from_slice`](crate::from_slice)) decodes, field for
//! field (the crate's tests compare both on generated objects of every kind). It exists for the
//! Kubernetes version this crate was generated for (k8s-openapi's `latest`); a program built for
//! another version gets `None` from [`TypedDecoder::new`] and the serde path.
//!
//! [`TypedEncoder`] is the way back, generated alongside: each Rust field written under its
//! number, in number order, as Go writes it (zeros the decoder reads as absent left out), with no
//! serde in between. What it writes decodes to what the serde encoder's bytes decode to (the
//! crate's tests compare both, and the bytes, on generated objects of every generated type).

mod encode;
mod fallback;
mod field;
mod messages;
mod special;

k8s_openapi::k8s_if_1_37! {
    mod generated;
}

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::marker::PhantomData;
use std::sync::{Arc, OnceLock};

use kinformer_core::Fields;

use self::field::{MessageFields, merge_message};
use crate::error::{Error, Result};
use crate::schema::{MessageId, Schema};

/// What one decode carries down the message tree.
pub(crate) struct Cx {
    schema: &'static Schema,
    depth: usize,
    skip_managed_fields: bool,
    /// Occurrences left in the run of the field being merged, counting it (1 for a single one).
    run: usize,
}

impl Cx {
    fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > crate::MAX_DEPTH {
            return Err(Error::TooDeep(crate::MAX_DEPTH));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }
}

/// Decodes a message into the `Option<Arc<M>>` behind `out`.
type DecodeFn = fn(&[u8], &mut Cx, &mut dyn Any) -> Result<()>;

/// Decodes a message into the `Option<Arc<M>>` behind `out`, built in place: a large object is
/// not copied from the stack into its allocation.
fn decode_shared<M: MessageFields + 'static>(
    input: &[u8],
    cx: &mut Cx,
    out: &mut dyn Any,
) -> Result<()> {
    // The registry pairs each function with its own type's id: the downcast always succeeds.
    let slot = out
        .downcast_mut::<Option<Arc<M>>>()
        .ok_or_else(|| Error::Custom("a typed decoder registered under another type".into()))?;
    let mut shared = Arc::new(M::default());
    // A fresh `Arc` has no other owner.
    let message = Arc::get_mut(&mut shared)
        .ok_or_else(|| Error::Custom("a fresh Arc already shared".into()))?;
    merge_message(message, cx, input, M::merge_field)?;
    *slot = Some(shared);
    Ok(())
}

/// Appends the message of the `M` behind `value`.
type EncodeFn = fn(&dyn Any, &mut Vec<u8>) -> Result<()>;

fn encode_any<M: MessageFields + 'static>(value: &dyn Any, out: &mut Vec<u8>) -> Result<()> {
    // The registry pairs each function with its own type's id: the downcast always succeeds.
    let message = value
        .downcast_ref::<M>()
        .ok_or_else(|| Error::Custom("a typed encoder registered under another type".into()))?;
    encode::encode_message(message, out)
}

/// A generated message's decoder, encoder and full name.
#[derive(Clone, Copy)]
struct Decoders {
    decode: DecodeFn,
    encode: EncodeFn,
    message: &'static str,
    /// Compares the generated encoder with the serde one on an object decoded from bytes.
    #[cfg(test)]
    check: tests_encode::CheckFn,
}

/// A registry entry: a generated message's type and decoders.
type Entry = (TypeId, Decoders);

#[allow(dead_code)] // only built when the generated code is (see the module's docs)
fn entry<M>(message: &'static str) -> Entry
where
    M: MessageFields + serde::Serialize + serde::de::DeserializeOwned + PartialEq + fmt::Debug,
    M: 'static,
{
    let decoders = Decoders {
        decode: decode_shared::<M>,
        encode: encode_any::<M>,
        message,
        #[cfg(test)]
        check: tests_encode::check::<M>,
    };
    (TypeId::of::<M>(), decoders)
}

fn registry() -> &'static HashMap<TypeId, Decoders> {
    static REGISTRY: OnceLock<HashMap<TypeId, Decoders>> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        #[allow(unused_mut)]
        let mut entries: Vec<Entry> = Vec::new();
        k8s_openapi::k8s_if_1_37! {
            generated::entries(&mut entries);
        }
        entries.into_iter().collect()
    })
}

/// The generated decoder of one k8s-openapi type: a message's bytes (the `raw` of its envelope,
/// or a list's item) straight into `K`.
///
/// ```
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kinformer_core::Fields;
/// use kinformer_protobuf::{Schema, TypedDecoder, to_vec};
///
/// let schema = Schema::kubernetes();
/// let id = schema.message_for("v1", "ConfigMap")?;
/// let json = serde_json::json!({"metadata": {"name": "cm"}, "data": {"k": "v"}});
/// let bytes = to_vec(schema, id, &json)?;
/// let decoder = TypedDecoder::<ConfigMap>::new(&Fields::All).expect("a built-in type");
/// let cm = decoder.decode(&bytes)?;
/// assert_eq!(cm.metadata.name.as_deref(), Some("cm"));
/// assert_eq!(cm.data.unwrap()["k"], "v");
/// # Ok::<(), kinformer_protobuf::Error>(())
/// ```
pub struct TypedDecoder<K> {
    decoders: Decoders,
    message: MessageId,
    skip_managed_fields: bool,
    _k: PhantomData<fn() -> K>,
}

impl<K: 'static> TypedDecoder<K> {
    /// The decoder of `K` decoding `fields` of each object, if `K` is a k8s-openapi type of the
    /// Kubernetes version this crate was generated for and `fields` are ones it serves:
    /// [`Fields::All`], or [`Fields::WithoutManagedFields`] (skipped on the wire, never parsed).
    /// `None` for any other type or fields (a projection): those go through
    /// [`from_slice`](crate::from_slice) and a projection's serde filter.
    ///
    /// ```
    /// use k8s_openapi::api::core::v1::Pod;
    /// use kinformer_core::{Fields, Projection};
    /// use kinformer_protobuf::TypedDecoder;
    ///
    /// assert!(TypedDecoder::<Pod>::new(&Fields::WithoutManagedFields).is_some());
    /// let narrow = Fields::projected(Projection::keep(["status.phase"])?);
    /// assert!(TypedDecoder::<Pod>::new(&narrow).is_none());
    /// assert!(TypedDecoder::<serde_json::Value>::new(&Fields::All).is_none());
    /// # Ok::<(), kinformer_core::ProjectionError>(())
    /// ```
    pub fn new(fields: &Fields) -> Option<Self> {
        let skip_managed_fields = match fields {
            Fields::All => false,
            Fields::WithoutManagedFields => true,
            // A projection (and any way of keeping fewer fields) is the serde filter's.
            _ => return None,
        };
        let decoders = *registry().get(&TypeId::of::<K>())?;
        Some(Self {
            decoders,
            message: Schema::kubernetes().message(decoders.message).ok()?,
            skip_managed_fields,
            _k: PhantomData,
        })
    }

    /// The message `K` is decoded from: bytes of another message are not a `K`.
    pub fn message(&self) -> MessageId {
        self.message
    }

    /// Decodes one message of `K`'s type.
    ///
    /// # Errors
    /// Bytes that are not a message of that type: a truncated or malformed field, a wire type the
    /// field cannot have, text that is not UTF-8, a time out of range, nesting past
    /// [`MAX_DEPTH`](crate::MAX_DEPTH).
    pub fn decode(&self, input: &[u8]) -> Result<K> {
        // Built in its own allocation, which nobody else holds: moved out of it, not cloned.
        Arc::into_inner(self.decode_shared(input)?)
            .ok_or_else(|| Error::Custom("a fresh Arc already shared".into()))
    }

    /// [`decode`](Self::decode) into a shared object, built in its allocation (what the list and
    /// watch decoders hand on).
    ///
    /// # Errors
    /// As [`decode`](Self::decode).
    pub fn decode_shared(&self, input: &[u8]) -> Result<Arc<K>> {
        let mut out: Option<Arc<K>> = None;
        (self.decoders.decode)(input, &mut self.cx(), &mut out)?;
        out.ok_or_else(|| Error::Custom("a typed decoder produced nothing".into()))
    }

    fn cx(&self) -> Cx {
        Cx {
            schema: Schema::kubernetes(),
            depth: 0,
            skip_managed_fields: self.skip_managed_fields,
            run: 1,
        }
    }
}

impl<K> Clone for TypedDecoder<K> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<K> Copy for TypedDecoder<K> {}

impl<K> fmt::Debug for TypedDecoder<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TypedDecoder")
            .field("type", &std::any::type_name::<K>())
            .field("without_managed_fields", &self.skip_managed_fields)
            .finish()
    }
}

/// The generated encoder of one k8s-openapi type: `K` straight to its message's bytes (what an
/// envelope's `raw` or a list's item holds), with no serde in between.
///
/// ```
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kinformer_core::Fields;
/// use kinformer_protobuf::{TypedDecoder, TypedEncoder};
///
/// let mut cm = ConfigMap::default();
/// cm.metadata.name = Some("settings".into());
/// cm.data = Some([("mode".to_owned(), "fast".to_owned())].into());
/// let encoder = TypedEncoder::<ConfigMap>::new().expect("a built-in type");
/// let mut bytes = Vec::new();
/// encoder.encode(&cm, &mut bytes)?;
/// let decoder = TypedDecoder::<ConfigMap>::new(&Fields::All).expect("a built-in type");
/// assert_eq!(decoder.decode(&bytes)?, cm);
/// # Ok::<(), kinformer_protobuf::Error>(())
/// ```
pub struct TypedEncoder<K> {
    encode: EncodeFn,
    message: MessageId,
    _k: PhantomData<fn(&K)>,
}

impl<K: 'static> TypedEncoder<K> {
    /// The encoder of `K`, if `K` is a k8s-openapi type of the Kubernetes version this crate was
    /// generated for (as for [`TypedDecoder::new`]); `None` for any other type, which
    /// [`encode_typed`](crate::encode_typed) encodes.
    ///
    /// ```
    /// use k8s_openapi::api::core::v1::Pod;
    /// use kinformer_protobuf::TypedEncoder;
    ///
    /// assert!(TypedEncoder::<Pod>::new().is_some());
    /// assert!(TypedEncoder::<serde_json::Value>::new().is_none());
    /// ```
    pub fn new() -> Option<Self> {
        let decoders = *registry().get(&TypeId::of::<K>())?;
        Some(Self {
            encode: decoders.encode,
            message: Schema::kubernetes().message(decoders.message).ok()?,
            _k: PhantomData,
        })
    }

    /// The message `K` is encoded as.
    pub fn message(&self) -> MessageId {
        self.message
    }

    /// Appends `value`'s message to `out`: its fields in number order, as Go writes them, except
    /// that a zero the decoder reads as absent (an `omitempty` plain scalar, such as an empty
    /// `fsType`) is left out. The bytes decode, by either decoder, to what
    /// [`encode_typed`](crate::encode_typed)'s bytes decode to.
    ///
    /// # Errors
    /// A time outside the years 0 to 9999 (it has no RFC 3339 text), and what
    /// [`encode_typed`](crate::encode_typed) says of the few fields it writes for this encoder
    /// (embedded JSON, durations, JSON schemas); nesting past [`MAX_DEPTH`](crate::MAX_DEPTH).
    /// On an error, `out` holds a part of the message after what it held before.
    pub fn encode(&self, value: &K, out: &mut Vec<u8>) -> Result<()> {
        (self.encode)(value, out)
    }

    /// [`encode`](Self::encode) into a new vector.
    ///
    /// # Errors
    /// As [`encode`](Self::encode).
    pub fn to_vec(&self, value: &K) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.encode(value, &mut out)?;
        Ok(out)
    }
}

impl<K> Clone for TypedEncoder<K> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<K> Copy for TypedEncoder<K> {}

impl<K> fmt::Debug for TypedEncoder<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TypedEncoder")
            .field("type", &std::any::type_name::<K>())
            .finish()
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_encode;
