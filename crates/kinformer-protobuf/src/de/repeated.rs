//! Repeated and map fields: a field's occurrences, as one serde sequence or map. Every Kubernetes
//! encoder writes them together, as one run; a run other fields split is read whole from the
//! rest of the message, appended as Go's decoder appends it.

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::forward_to_deserialize_any;

use super::value::{ValueDeserializer, ValueType};
use crate::error::{Error, Result};
use crate::schema::{Field, FieldType, Message, Scalar, Schema};
use crate::wire::{Reader, WireValue};

/// One field's occurrences: the first one (already read by the message reader, or found by
/// skipping other fields), then those right after it, or (a split run) all those after it.
struct Occurrences<'s, 'de> {
    field: &'s Field,
    first: Option<WireValue<'de>>,
    rest: Reader<'de>,
    /// Whether the run has begun (after it, another field ends it unless it is split).
    started: bool,
    /// Whether other fields split the run: then its occurrences are read to the message's end.
    split: bool,
}

impl<'de> Occurrences<'_, 'de> {
    fn next(&mut self) -> Result<Option<WireValue<'de>>> {
        if let Some(first) = self.first.take() {
            self.started = true;
            return Ok(Some(first));
        }
        loop {
            let before = self.rest.clone();
            let Some((number, value)) = self.rest.field()? else {
                return Ok(None);
            };
            if number == self.field.number {
                self.started = true;
                return Ok(Some(value));
            }
            if self.started && !self.split {
                self.rest = before;
                return Ok(None);
            }
        }
    }
}

/// A repeated field as a serde sequence.
pub(crate) struct RepeatedDeserializer<'s, 'de> {
    access: RepeatedAccess<'s, 'de>,
}

impl<'s, 'de> RepeatedDeserializer<'s, 'de> {
    /// `first` is the occurrence already read, if any; `rest` the message bytes after it (or the
    /// whole message); `split` whether other fields split the occurrences.
    pub(crate) fn new(
        schema: &'s Schema,
        parent: &'s Message,
        field: &'s Field,
        first: Option<WireValue<'de>>,
        rest: &'de [u8],
        split: bool,
        depth: usize,
    ) -> Self {
        Self {
            access: RepeatedAccess {
                schema,
                parent,
                occurrences: Occurrences {
                    started: first.is_some(),
                    field,
                    first,
                    rest: Reader::new(rest),
                    split,
                },
                packed: None,
                depth,
            },
        }
    }
}

impl<'de> de::Deserializer<'de> for RepeatedDeserializer<'_, 'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_seq(self.access)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_some(self)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_unit()
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier
    }
}

pub(crate) struct RepeatedAccess<'s, 'de> {
    schema: &'s Schema,
    parent: &'s Message,
    occurrences: Occurrences<'s, 'de>,
    /// Inside a packed run of numbers.
    packed: Option<Reader<'de>>,
    depth: usize,
}

impl<'de> RepeatedAccess<'_, 'de> {
    fn next_value(&mut self) -> Result<Option<WireValue<'de>>> {
        let field = self.occurrences.field;
        loop {
            if let Some(packed) = &mut self.packed {
                if !packed.is_empty() {
                    let FieldType::Scalar(scalar) = field.ty else {
                        return Err(Error::Custom("a packed run of a non-scalar".into()));
                    };
                    return Ok(Some(match scalar {
                        Scalar::Fixed32 | Scalar::SFixed32 | Scalar::Float => {
                            WireValue::Fixed32(packed.fixed32()?)
                        }
                        Scalar::Fixed64 | Scalar::SFixed64 | Scalar::Double => {
                            WireValue::Fixed64(packed.fixed64()?)
                        }
                        _ => WireValue::Varint(packed.varint()?),
                    }));
                }
                self.packed = None;
            }
            let Some(value) = self.occurrences.next()? else {
                return Ok(None);
            };
            let packable = matches!(field.ty, FieldType::Scalar(s) if !matches!(s, Scalar::String | Scalar::Bytes));
            match value {
                WireValue::Bytes(bytes) if packable => self.packed = Some(Reader::new(bytes)),
                value => return Ok(Some(value)),
            }
        }
    }
}

impl<'de> SeqAccess<'de> for RepeatedAccess<'_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let Some(value) = self.next_value()? else {
            return Ok(None);
        };
        let field = self.occurrences.field;
        let ty = ValueType::of(&field.ty)?;
        seed.deserialize(ValueDeserializer::new(
            self.schema,
            self.parent,
            field,
            ty,
            value,
            self.depth,
        ))
        .map(Some)
    }
}

/// A `map<K, V>` field as a serde map: each occurrence is an entry message (key 1, value 2).
pub(crate) struct MapEntries<'s, 'de> {
    schema: &'s Schema,
    parent: &'s Message,
    occurrences: Occurrences<'s, 'de>,
    value: Option<WireValue<'de>>,
    depth: usize,
}

impl<'s, 'de> MapEntries<'s, 'de> {
    pub(crate) fn new(
        schema: &'s Schema,
        parent: &'s Message,
        field: &'s Field,
        first: WireValue<'de>,
        rest: &'de [u8],
        split: bool,
        depth: usize,
    ) -> Self {
        Self {
            schema,
            parent,
            occurrences: Occurrences {
                field,
                first: Some(first),
                rest: Reader::new(rest),
                started: true,
                split,
            },
            value: None,
            depth,
        }
    }

    fn types(&self) -> Result<(ValueType, ValueType)> {
        match &self.occurrences.field.ty {
            FieldType::Map(key, value) => Ok((ValueType::Scalar(*key), ValueType::of(value)?)),
            _ => Err(Error::Custom(
                "a map entry of a field that is not a map".into(),
            )),
        }
    }
}

/// What an entry's missing key or value reads as: the zero of its type.
fn zero(ty: ValueType) -> WireValue<'static> {
    match ty {
        ValueType::Scalar(Scalar::Fixed32 | Scalar::SFixed32 | Scalar::Float) => {
            WireValue::Fixed32(0)
        }
        ValueType::Scalar(Scalar::Fixed64 | Scalar::SFixed64 | Scalar::Double) => {
            WireValue::Fixed64(0)
        }
        ValueType::Scalar(Scalar::String | Scalar::Bytes) | ValueType::Message(_) => {
            WireValue::Bytes(&[])
        }
        ValueType::Scalar(_) => WireValue::Varint(0),
    }
}

impl<'de> de::Deserializer<'de> for MapEntries<'_, 'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_map(self)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_some(self)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_unit()
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier
    }
}

impl<'de> MapAccess<'de> for MapEntries<'_, 'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        let Some(entry) = self.occurrences.next()? else {
            return Ok(None);
        };
        let WireValue::Bytes(entry) = entry else {
            return Err(Error::WrongWireType {
                message: self.parent.name.to_string(),
                field: self.occurrences.field.json_name.to_string(),
                expected: crate::wire::LEN,
                found: entry.wire_type(),
            });
        };
        let (key_ty, value_ty) = self.types()?;
        let (mut key, mut value) = (zero(key_ty), zero(value_ty));
        let mut reader = Reader::new(entry);
        while let Some((number, v)) = reader.field()? {
            match number {
                1 => key = v,
                2 => value = v,
                _ => {}
            }
        }
        self.value = Some(value);
        let field = self.occurrences.field;
        seed.deserialize(ValueDeserializer::new(
            self.schema,
            self.parent,
            field,
            key_ty,
            key,
            self.depth,
        ))
        .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let value = self
            .value
            .take()
            .ok_or_else(|| Error::Custom("a map value asked for before its key".into()))?;
        let (_, value_ty) = self.types()?;
        let field = self.occurrences.field;
        seed.deserialize(ValueDeserializer::new(
            self.schema,
            self.parent,
            field,
            value_ty,
            value,
            self.depth,
        ))
    }
}
