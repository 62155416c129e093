//! A message as a serde map: keys are the JSON names of the fields on the wire, in wire order.
//! A repeated or map field is one key whose value is all its occurrences. Every Kubernetes
//! encoder writes a field's occurrences together, and such a run is read as it comes; a run that
//! other fields split (which protobuf allows) is appended to, as Go's decoder does: its first
//! occurrence's key gathers the rest of the message's, and later ones are skipped, so the field
//! is never two keys, the second overwriting the first. Which fields are split is found with one
//! walk over the message's remaining field headers, once per message that has a repeated field.

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
    /// A repeated or map field: its first occurrence, the bytes after it, and whether other
    /// fields split its occurrences (then they are gathered from all of those bytes).
    Gathered(&'s Field, WireValue<'de>, &'de [u8], bool),
    /// A list's `items` that never came: an empty list, as the API server's JSON has it.
    NoItems(&'s Field),
}

/// A set of field numbers: those below 64 as bits, others listed.
#[derive(Default)]
struct Numbers {
    low: u64,
    high: Vec<u32>,
}

impl Numbers {
    fn insert(&mut self, number: u32) {
        if number < 64 {
            self.low |= 1 << number;
        } else if !self.high.contains(&number) {
            self.high.push(number);
        }
    }

    fn contains(&self, number: u32) -> bool {
        if number < 64 {
            self.low & (1 << number) != 0
        } else {
            self.high.contains(&number)
        }
    }
}

/// The fields whose occurrences other fields split, in the message bytes `rest` that follow an
/// occurrence of field `first`.
fn split_fields(first: u32, rest: &[u8]) -> Result<Numbers> {
    let (mut seen, mut split) = (Numbers::default(), Numbers::default());
    seen.insert(first);
    let mut last = first;
    let mut reader = Reader::new(rest);
    while let Some((number, _)) = reader.field()? {
        if number != last {
            if seen.contains(number) {
                split.insert(number);
            } else {
                seen.insert(number);
            }
            last = number;
        }
    }
    Ok(split)
}

/// A message being read; an inlined field's message is read as a level above its parent's.
struct Level<'de> {
    message: MessageId,
    reader: Reader<'de>,
    /// The repeated or map field whose run of occurrences was handed out last: the occurrences
    /// read after its key belong to that run.
    run: Option<u32>,
    /// Repeated and map fields whose runs ended.
    ended: Numbers,
    /// The fields whose occurrences are split, found when the first repeated field is handed out.
    split: Option<Numbers>,
}

impl<'de> Level<'de> {
    fn new(message: MessageId, input: &'de [u8]) -> Self {
        Self {
            message,
            reader: Reader::new(input),
            run: None,
            ended: Numbers::default(),
            split: None,
        }
    }

    fn end_run(&mut self) {
        if let Some(number) = self.run.take() {
            self.ended.insert(number);
        }
    }

    fn has_ended(&self, number: u32) -> bool {
        self.ended.contains(number)
    }

    /// Whether other fields split the occurrences of `number`, whose first occurrence was just
    /// read. The first repeated field of a message comes before every other one's occurrences, so
    /// one walk from it answers for all of them.
    fn is_split(&mut self, number: u32) -> Result<bool> {
        let split = match &mut self.split {
            Some(split) => split,
            empty => empty.insert(split_fields(number, self.reader.remaining())?),
        };
        Ok(split.contains(number))
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
                    // A later part of a split run: gathered with the first occurrence.
                    continue;
                }
                let split = level.is_split(number)?;
                level.run = Some(number);
                self.pending = Pending::Gathered(field, value, level.reader.remaining(), split);
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
            Pending::Gathered(field, first, rest, split) => match &field.ty {
                FieldType::Map(..) => seed.deserialize(MapEntries::new(
                    self.schema,
                    &self.schema[self.pending_parent],
                    field,
                    first,
                    rest,
                    split,
                    depth,
                )),
                _ => seed.deserialize(RepeatedDeserializer::new(
                    self.schema,
                    &self.schema[self.pending_parent],
                    field,
                    Some(first),
                    rest,
                    split,
                    depth,
                )),
            },
            Pending::NoItems(field) => seed.deserialize(RepeatedDeserializer::new(
                self.schema,
                &self.schema[self.pending_parent],
                field,
                None,
                &[],
                false,
                depth,
            )),
            Pending::None => Err(Error::Custom("a map value asked for before its key".into())),
        }
    }
}
