//! A message as a serde map: keys are the JSON names of the fields on the wire, in wire order.
//! A repeated or map field is one key whose value gathers every occurrence of it in the message.

use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess};

use super::repeated::{MapEntries, RepeatedDeserializer};
use super::value::{ValueDeserializer, ValueType};
use crate::error::{Error, Result};
use crate::schema::{Field, FieldType, MessageId, Schema, Special};
use crate::wire::{Reader, WireValue};

/// The field whose key was handed out, waiting for its value.
enum Pending<'s, 'de> {
    None,
    Single(&'s Field, WireValue<'de>),
    /// A repeated or map field: its first occurrence and the bytes after it.
    Gathered(&'s Field, WireValue<'de>, &'de [u8]),
}

/// A message being read; an inlined field's message is read as a level above its parent's.
struct Level<'de> {
    message: MessageId,
    reader: Reader<'de>,
    /// Repeated and map fields already handed out whole.
    gathered: Vec<u32>,
}

pub(crate) struct MessageAccess<'s, 'de> {
    schema: &'s Schema,
    /// The message, then the inlined messages being read inside it.
    levels: Vec<Level<'de>>,
    depth: usize,
    pending: Pending<'s, 'de>,
    /// The message of the field whose key was handed out.
    pending_parent: MessageId,
}

impl<'s, 'de> MessageAccess<'s, 'de> {
    pub(crate) fn new(
        schema: &'s Schema,
        message: MessageId,
        input: &'de [u8],
        depth: usize,
    ) -> Self {
        Self {
            schema,
            levels: vec![Level {
                message,
                reader: Reader::new(input),
                gathered: Vec::new(),
            }],
            depth,
            pending: Pending::None,
            pending_parent: message,
        }
    }

    /// Whether a field read off the wire stands for "not set" in the JSON form.
    fn reads_as_absent(&self, field: &Field, value: &WireValue<'_>) -> bool {
        match (&field.ty, value) {
            (FieldType::Message(id), WireValue::Bytes(b)) => {
                b.is_empty()
                    && matches!(
                        self.schema[*id].special,
                        Some(Special::Time | Special::MicroTime)
                    )
            }
            (FieldType::Scalar(_), v) if field.zero_is_absent() => match v {
                WireValue::Varint(n) | WireValue::Fixed64(n) => *n == 0,
                WireValue::Fixed32(n) => *n == 0,
                WireValue::Bytes(b) => b.is_empty(),
            },
            _ => false,
        }
    }
}

impl<'de> MapAccess<'de> for MessageAccess<'_, 'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        let schema = self.schema;
        loop {
            let Some(level) = self.levels.last_mut() else {
                return Ok(None);
            };
            let Some((number, value)) = level.reader.field()? else {
                if self.levels.len() == 1 {
                    return Ok(None);
                }
                self.levels.pop();
                continue;
            };
            let message = level.message;
            let Some(field) = schema[message].field(number) else {
                continue;
            };
            if let (true, FieldType::Message(inner), WireValue::Bytes(bytes)) =
                (field.inline, &field.ty, value)
            {
                if self.levels.len() + self.depth > crate::MAX_DEPTH {
                    return Err(Error::TooDeep(crate::MAX_DEPTH));
                }
                self.levels.push(Level {
                    message: *inner,
                    reader: Reader::new(bytes),
                    gathered: Vec::new(),
                });
                continue;
            }
            if field.repeated || matches!(field.ty, FieldType::Map(..)) {
                if level.gathered.contains(&number) {
                    continue;
                }
                level.gathered.push(number);
                self.pending = Pending::Gathered(field, value, level.reader.remaining());
            } else {
                if self.reads_as_absent(field, &value) {
                    continue;
                }
                self.pending = Pending::Single(field, value);
            }
            self.pending_parent = message;
            let key: de::value::StrDeserializer<'_, Error> =
                field.json_name.as_ref().into_deserializer();
            return seed.deserialize(key).map(Some);
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let depth = self.depth + 1;
        match std::mem::replace(&mut self.pending, Pending::None) {
            Pending::Single(field, value) => {
                let ty = ValueType::of(&field.ty)?;
                seed.deserialize(ValueDeserializer::new(
                    self.schema,
                    &self.schema[self.pending_parent],
                    field,
                    ty,
                    value,
                    depth,
                ))
            }
            Pending::Gathered(field, first, rest) => match &field.ty {
                FieldType::Map(..) => seed.deserialize(MapEntries::new(
                    self.schema,
                    &self.schema[self.pending_parent],
                    field,
                    first,
                    rest,
                    depth,
                )),
                _ => seed.deserialize(RepeatedDeserializer::new(
                    self.schema,
                    &self.schema[self.pending_parent],
                    field,
                    Some(first),
                    rest,
                    depth,
                )),
            },
            Pending::None => Err(Error::Custom("a map value asked for before its key".into())),
        }
    }
}
