//! A message as a serde map: keys are the JSON names of the fields on the wire, in wire order.
//! A repeated or map field is one key whose value is its run of occurrences: every Kubernetes
//! encoder writes a field's occurrences together, so a field whose run was split by another field
//! is refused ([`Error::SplitRepeated`]) rather than read as two keys, one overwriting the other.

use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess};

use super::repeated::{MapEntries, RepeatedDeserializer};
use super::value::{ValueDeserializer, ValueType};
use crate::error::{Error, Result};
use crate::schema::{Field, FieldType, MessageId, Scalar, Schema};
use crate::wire::{Reader, WireValue};

/// The field whose key was handed out, waiting for its value.
enum Pending<'s, 'de> {
    None,
    Single(&'s Field, WireValue<'de>),
    /// A repeated or map field: its first occurrence and the bytes after it.
    Gathered(&'s Field, WireValue<'de>, &'de [u8]),
    /// A list's `items` that never came: an empty list, as the API server's JSON has it.
    NoItems(&'s Field),
}

/// A message being read; an inlined field's message is read as a level above its parent's.
struct Level<'de> {
    message: MessageId,
    reader: Reader<'de>,
    /// The repeated or map field whose run of occurrences was handed out last: the occurrences
    /// read after its key belong to that run.
    run: Option<u32>,
    /// Repeated and map fields whose runs ended (numbers below 64 as bits, others listed).
    ended: u64,
    ended_high: Vec<u32>,
}

impl<'de> Level<'de> {
    fn new(message: MessageId, input: &'de [u8]) -> Self {
        Self {
            message,
            reader: Reader::new(input),
            run: None,
            ended: 0,
            ended_high: Vec::new(),
        }
    }

    fn end_run(&mut self) {
        if let Some(number) = self.run.take() {
            match 1u64.checked_shl(number) {
                Some(bit) if number < 64 => self.ended |= bit,
                _ => self.ended_high.push(number),
            }
        }
    }

    fn has_ended(&self, number: u32) -> bool {
        if number < 64 {
            self.ended & (1 << number) != 0
        } else {
            self.ended_high.contains(&number)
        }
    }
}

pub(crate) struct MessageAccess<'s, 'de> {
    schema: &'s Schema,
    /// The message.
    top: Level<'de>,
    /// The inlined messages being read inside it, innermost last.
    inlined: Vec<Level<'de>>,
    depth: usize,
    pending: Pending<'s, 'de>,
    /// The message of the field whose key was handed out.
    pending_parent: MessageId,
    /// Set once the message's end was reached.
    finished: bool,
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
            top: Level::new(message, input),
            inlined: Vec::new(),
            depth,
            pending: Pending::None,
            pending_parent: message,
            finished: false,
        }
    }

    /// A list message's `items` field when none arrived: protobuf has no empty repeated field, but
    /// the API server writes an empty list's `items` as `[]` in JSON (and k8s-openapi's `List`
    /// requires it).
    fn missing_items(&self) -> Option<&'s Field> {
        let message = &self.schema[self.top.message];
        if !message.name.ends_with("List") {
            return None;
        }
        let items = message.field_named("items")?;
        let seen = self.top.run == Some(items.number) || self.top.has_ended(items.number);
        (items.repeated && !items.omitempty && !seen).then_some(items)
    }
}

/// Whether `value` is a packed run of numbers with nothing in it.
fn is_empty_packed_run(field: &Field, value: &WireValue<'_>) -> bool {
    let packable =
        matches!(field.ty, FieldType::Scalar(s) if !matches!(s, Scalar::String | Scalar::Bytes));
    packable && matches!(value, WireValue::Bytes(b) if b.is_empty())
}

/// Whether a field read off the wire stands for "not set" in the JSON form.
fn reads_as_absent(field: &Field, value: &WireValue<'_>) -> bool {
    // A zero time is on the wire as an empty message and in JSON as `null`: it is read as `null`
    // (the message's own form), not left out.
    match (&field.ty, value) {
        (FieldType::Scalar(_), v) if field.zero_is_absent() => match v {
            WireValue::Varint(n) | WireValue::Fixed64(n) => *n == 0,
            WireValue::Fixed32(n) => *n == 0,
            WireValue::Bytes(b) => b.is_empty(),
        },
        _ => false,
    }
}

impl<'de> MapAccess<'de> for MessageAccess<'_, 'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        let schema = self.schema;
        loop {
            let level = self.inlined.last_mut().unwrap_or(&mut self.top);
            let Some((number, value)) = level.reader.field()? else {
                if self.inlined.pop().is_none() {
                    if self.finished {
                        return Ok(None);
                    }
                    self.finished = true;
                    let Some(items) = self.missing_items() else {
                        return Ok(None);
                    };
                    self.pending = Pending::NoItems(items);
                    self.pending_parent = self.top.message;
                    let key: de::value::StrDeserializer<'_, Error> =
                        items.json_name.as_ref().into_deserializer();
                    return seed.deserialize(key).map(Some);
                }
                continue;
            };
            if level.run == Some(number) {
                // Read ahead with the run's first occurrence.
                continue;
            }
            let message = level.message;
            let Some(field) = schema[message].field(number) else {
                continue;
            };
            level.end_run();
            if let (true, FieldType::Message(inner), WireValue::Bytes(bytes)) =
                (field.inline, &field.ty, value)
            {
                if self.inlined.len() + self.depth > crate::MAX_DEPTH {
                    return Err(Error::TooDeep(crate::MAX_DEPTH));
                }
                self.inlined.push(Level::new(*inner, bytes));
                continue;
            }
            if field.repeated && is_empty_packed_run(field, &value) {
                // No elements: Go reads it as an empty list, which JSON leaves out.
                continue;
            }
            if field.repeated || matches!(field.ty, FieldType::Map(..)) {
                if level.has_ended(number) {
                    return Err(Error::SplitRepeated {
                        message: schema[message].name.to_string(),
                        field: field.json_name.to_string(),
                    });
                }
                level.run = Some(number);
                self.pending = Pending::Gathered(field, value, level.reader.remaining());
            } else {
                if reads_as_absent(field, &value) {
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
            Pending::NoItems(field) => seed.deserialize(RepeatedDeserializer::new(
                self.schema,
                &self.schema[self.pending_parent],
                field,
                None,
                &[],
                depth,
            )),
            Pending::None => Err(Error::Custom("a map value asked for before its key".into())),
        }
    }
}
