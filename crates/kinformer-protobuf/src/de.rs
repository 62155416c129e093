//! Decoding a protobuf message straight into any serde type: a [`Deserializer`] that walks the
//! bytes with the [`Schema`], presenting each message as a map of JSON field names, so the
//! `Deserialize` impls written for the JSON form (k8s-openapi's, `serde_json::Value`) build the
//! object in one pass, with no intermediate message and no JSON text.

mod message;
mod repeated;
mod special;
mod value;

use serde::de::{self, Visitor};
use serde::forward_to_deserialize_any;

use crate::error::{Error, Result};
use crate::schema::{MessageId, Schema, Special};

pub(crate) use message::MessageAccess;
pub(crate) use special::{fields, int, text};

/// How deep messages may nest before decoding stops with [`Error::TooDeep`] (the Kubernetes API's
/// deepest, a CRD's nested JSON schema, stays far below; a hostile input cannot exhaust the stack).
pub const MAX_DEPTH: usize = 100;

/// Decodes one message of `message`'s type from `input` into `T`.
///
/// ```
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kinformer_protobuf::{Schema, from_slice, to_vec};
///
/// let schema = Schema::kubernetes();
/// let id = schema.message_for("v1", "ConfigMap")?;
/// let json = serde_json::json!({"metadata": {"name": "cm"}, "data": {"k": "v"}});
/// let bytes = to_vec(schema, id, &json)?;
/// let cm: ConfigMap = from_slice(schema, id, &bytes)?;
/// assert_eq!(cm.metadata.name.as_deref(), Some("cm"));
/// assert_eq!(cm.data.unwrap()["k"], "v");
/// # Ok::<(), kinformer_protobuf::Error>(())
/// ```
///
/// # Errors
/// Bytes that are not a message of that type, or a `T` that refuses what they hold.
pub fn from_slice<'de, T: de::Deserialize<'de>>(
    schema: &Schema,
    message: MessageId,
    input: &'de [u8],
) -> Result<T> {
    T::deserialize(Deserializer::new(schema, message, input))
}

/// A serde deserializer over one protobuf message (see [`from_slice`]); wrap it in any
/// `DeserializeSeed` that drives serde itself, a projection say.
#[derive(Debug, Clone, Copy)]
pub struct Deserializer<'s, 'de> {
    schema: &'s Schema,
    message: MessageId,
    input: &'de [u8],
    depth: usize,
}

impl<'s, 'de> Deserializer<'s, 'de> {
    /// A deserializer for one message of type `message` held in `input`.
    pub fn new(schema: &'s Schema, message: MessageId, input: &'de [u8]) -> Self {
        Self {
            schema,
            message,
            input,
            depth: 0,
        }
    }

    pub(crate) fn nested(
        schema: &'s Schema,
        message: MessageId,
        input: &'de [u8],
        depth: usize,
    ) -> Result<Self> {
        if depth > MAX_DEPTH {
            return Err(Error::TooDeep(MAX_DEPTH));
        }
        Ok(Self {
            schema,
            message,
            input,
            depth,
        })
    }

    /// Whether this message's JSON form is `null`: the zero time, an empty embedded JSON.
    fn is_null(&self) -> bool {
        self.input.is_empty()
            && matches!(
                self.schema[self.message].special,
                Some(Special::Time | Special::MicroTime | Special::RawJson)
            )
    }
}

impl<'de> de::Deserializer<'de> for Deserializer<'_, 'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.schema[self.message].special {
            Some(special) => special::deserialize(self, special, visitor),
            None => visitor.visit_map(MessageAccess::new(
                self.schema,
                self.message,
                self.input,
                self.depth,
            )),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.is_null() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        // The message is already delimited: skipping it reads nothing.
        visitor.visit_unit()
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct enum identifier
    }
}

#[cfg(test)]
mod tests;
