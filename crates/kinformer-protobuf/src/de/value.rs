//! One field value (a scalar, or a message read through the schema) as a serde deserializer.

use base64::Engine as _;
use serde::de::{self, Visitor};
use serde::forward_to_deserialize_any;

use super::Deserializer;
use crate::error::{Error, Result};
use crate::schema::{Field, FieldType, Message, MessageId, Scalar, Schema};
use crate::wire::{FIXED32, FIXED64, LEN, VARINT, WireValue};

/// The type of one value: a map field's entries are split into these by their reader.
#[derive(Debug, Clone, Copy)]
pub(crate) enum ValueType {
    Scalar(Scalar),
    Message(MessageId),
}

impl ValueType {
    /// The type of one value of a field; a map's entries are not values.
    pub(crate) fn of(ty: &FieldType) -> Result<Self> {
        match ty {
            FieldType::Scalar(s) => Ok(Self::Scalar(*s)),
            FieldType::Message(id) => Ok(Self::Message(*id)),
            FieldType::Map(..) => Err(Error::Custom("a map inside a map".into())),
        }
    }
}

pub(crate) struct ValueDeserializer<'s, 'de> {
    schema: &'s Schema,
    /// The message holding the field, for errors.
    parent: &'s Message,
    field: &'s Field,
    ty: ValueType,
    value: WireValue<'de>,
    depth: usize,
}

impl<'s, 'de> ValueDeserializer<'s, 'de> {
    pub(crate) fn new(
        schema: &'s Schema,
        parent: &'s Message,
        field: &'s Field,
        ty: ValueType,
        value: WireValue<'de>,
        depth: usize,
    ) -> Self {
        Self {
            schema,
            parent,
            field,
            ty,
            value,
            depth,
        }
    }

    fn wrong_wire(&self, expected: u8) -> Error {
        Error::WrongWireType {
            message: self.parent.name.to_string(),
            field: self.field.json_name.to_string(),
            expected,
            found: self.value.wire_type(),
        }
    }

    fn message(&self) -> Result<Option<Deserializer<'s, 'de>>> {
        match (self.ty, self.value) {
            (ValueType::Message(id), WireValue::Bytes(bytes)) => {
                Deserializer::nested(self.schema, id, bytes, self.depth).map(Some)
            }
            (ValueType::Message(_), _) => Err(self.wrong_wire(LEN)),
            (ValueType::Scalar(_), _) => Ok(None),
        }
    }

    fn varint(&self) -> Result<u64> {
        match self.value {
            WireValue::Varint(n) => Ok(n),
            _ => Err(self.wrong_wire(VARINT)),
        }
    }

    fn scalar<V: Visitor<'de>>(self, scalar: Scalar, visitor: V) -> Result<V::Value> {
        // Protobuf's integer types are bit patterns of their width: the casts below are the decoding.
        match scalar {
            Scalar::String => match self.value {
                WireValue::Bytes(b) => match std::str::from_utf8(b) {
                    Ok(s) => visitor.visit_borrowed_str(s),
                    Err(_) => Err(Error::NotUtf8(self.field.json_name.to_string())),
                },
                _ => Err(self.wrong_wire(LEN)),
            },
            Scalar::Bytes => match self.value {
                WireValue::Bytes(b) => {
                    visitor.visit_string(base64::engine::general_purpose::STANDARD.encode(b))
                }
                _ => Err(self.wrong_wire(LEN)),
            },
            Scalar::Bool => visitor.visit_bool(self.varint()? != 0),
            Scalar::Int32 => visitor.visit_i32(self.varint()? as i32),
            Scalar::Int64 => visitor.visit_i64(self.varint()? as i64),
            Scalar::UInt32 => visitor.visit_u32(self.varint()? as u32),
            Scalar::UInt64 => visitor.visit_u64(self.varint()?),
            Scalar::SInt32 => {
                let n = self.varint()? as u32;
                visitor.visit_i32((n >> 1) as i32 ^ -((n & 1) as i32))
            }
            Scalar::SInt64 => {
                let n = self.varint()?;
                visitor.visit_i64((n >> 1) as i64 ^ -((n & 1) as i64))
            }
            Scalar::Fixed32 | Scalar::SFixed32 | Scalar::Float => {
                let WireValue::Fixed32(n) = self.value else {
                    return Err(self.wrong_wire(FIXED32));
                };
                match scalar {
                    Scalar::Fixed32 => visitor.visit_u32(n),
                    Scalar::SFixed32 => visitor.visit_i32(n as i32),
                    _ => visitor.visit_f32(f32::from_bits(n)),
                }
            }
            Scalar::Fixed64 | Scalar::SFixed64 | Scalar::Double => {
                let WireValue::Fixed64(n) = self.value else {
                    return Err(self.wrong_wire(FIXED64));
                };
                match scalar {
                    Scalar::Fixed64 => visitor.visit_u64(n),
                    Scalar::SFixed64 => visitor.visit_i64(n as i64),
                    _ => visitor.visit_f64(f64::from_bits(n)),
                }
            }
        }
    }
}

impl<'de> de::Deserializer<'de> for ValueDeserializer<'_, 'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if let Some(message) = self.message()? {
            return message.deserialize_any(visitor);
        }
        match self.ty {
            ValueType::Scalar(scalar) => self.scalar(scalar, visitor),
            ValueType::Message(_) => Err(self.wrong_wire(LEN)),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.message()? {
            Some(message) => message.deserialize_option(visitor),
            None => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        match self.message()? {
            Some(message) => message.deserialize_newtype_struct(name, visitor),
            None => visitor.visit_newtype_struct(self),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_unit()
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct enum identifier
    }
}
