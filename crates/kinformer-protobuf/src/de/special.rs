//! The JSON forms of the special messages (see [`Special`]), handed to the visitor as JSON would
//! hand them: a time as its text, an IntOrString as a number or a string, embedded JSON parsed.

use serde::de::{Deserializer as _, Visitor};

use super::Deserializer;
use super::repeated::RepeatedDeserializer;
use crate::error::{Error, Result};
use crate::schema::{FieldType, Special};
use crate::time;
use crate::wire::{Reader, WireValue};

/// The fields of a small message by number (the last occurrence wins, as protobuf says).
pub(crate) fn fields<const N: usize>(
    input: &[u8],
    want: [u32; N],
) -> Result<[Option<WireValue<'_>>; N]> {
    let mut found = [None; N];
    let mut reader = Reader::new(input);
    while let Some((number, value)) = reader.field()? {
        if let Some(slot) = want.iter().position(|&n| n == number) {
            found[slot] = Some(value);
        }
    }
    Ok(found)
}

pub(crate) fn int(value: Option<WireValue<'_>>) -> i64 {
    match value {
        // Protobuf's int64 and int32 are the varint's bit pattern.
        Some(WireValue::Varint(n)) => n as i64,
        _ => 0,
    }
}

pub(crate) fn text(value: Option<WireValue<'_>>) -> Result<&str> {
    match value {
        Some(WireValue::Bytes(b)) => {
            std::str::from_utf8(b).map_err(|_| Error::NotUtf8("a special field".into()))
        }
        _ => Ok(""),
    }
}

pub(super) fn deserialize<'de, V: Visitor<'de>>(
    de: Deserializer<'_, 'de>,
    special: Special,
    visitor: V,
) -> Result<V::Value> {
    let input = de.input;
    match special {
        Special::Time | Special::MicroTime if input.is_empty() => visitor.visit_unit(),
        Special::Time => {
            let [seconds] = fields(input, [1])?;
            visitor.visit_string(time::format_rfc3339(int(seconds), None)?)
        }
        Special::MicroTime => {
            let [seconds, nanos] = fields(input, [1, 2])?;
            let micros = u32::try_from(int(nanos) / 1000).unwrap_or(0);
            visitor.visit_string(time::format_rfc3339(int(seconds), Some(micros))?)
        }
        Special::Duration => {
            let [nanos] = fields(input, [1])?;
            visitor.visit_string(time::format_duration(int(nanos)))
        }
        Special::Quantity => {
            let [value] = fields(input, [1])?;
            match text(value)? {
                "" => visitor.visit_str("0"),
                s => visitor.visit_str(s),
            }
        }
        Special::IntOrString => {
            let [kind, int_val, str_val] = fields(input, [1, 2, 3])?;
            if int(kind) == 1 {
                visitor.visit_str(text(str_val)?)
            } else {
                // intVal is an int32.
                visitor.visit_i32(int(int_val) as i32)
            }
        }
        Special::RawJson => {
            let [raw] = fields(input, [1])?;
            match raw {
                Some(WireValue::Bytes(raw)) if !raw.is_empty() => {
                    let mut json = serde_json::Deserializer::from_slice(raw);
                    let value = json.deserialize_any(visitor)?;
                    json.end()?;
                    Ok(value)
                }
                _ => visitor.visit_unit(),
            }
        }
        Special::Wrapper => repeated(de, 1, visitor),
        Special::SchemaOrArray | Special::SchemaOrStringArray => {
            let [schema, array] = fields(input, [1, 2])?;
            match (array, schema) {
                (Some(_), _) => repeated(de, 2, visitor),
                (None, Some(WireValue::Bytes(schema))) => {
                    nested(de, 1, schema)?.deserialize_any(visitor)
                }
                _ => visitor.visit_unit(),
            }
        }
        Special::SchemaOrBool => {
            let [allows, schema] = fields(input, [1, 2])?;
            match schema {
                Some(WireValue::Bytes(schema)) => nested(de, 2, schema)?.deserialize_any(visitor),
                _ => visitor.visit_bool(int(allows) != 0),
            }
        }
    }
}

/// Every occurrence of field `number` as a sequence.
fn repeated<'de, V: Visitor<'de>>(
    de: Deserializer<'_, 'de>,
    number: u32,
    visitor: V,
) -> Result<V::Value> {
    let message = &de.schema[de.message];
    let field = message
        .field(number)
        .ok_or_else(|| Error::Custom(format!("{} has no field {number}", message.name)))?;
    // Read to the message's end: every occurrence, however other fields split them.
    RepeatedDeserializer::new(
        de.schema,
        message,
        field,
        None,
        de.input,
        true,
        de.depth + 1,
    )
    .deserialize_any(visitor)
}

/// The message in field `number`, one level down.
fn nested<'s, 'de>(
    de: Deserializer<'s, 'de>,
    number: u32,
    bytes: &'de [u8],
) -> Result<Deserializer<'s, 'de>> {
    let message = &de.schema[de.message];
    match message.field(number).map(|f| &f.ty) {
        Some(FieldType::Message(id)) => Deserializer::nested(de.schema, *id, bytes, de.depth + 1),
        _ => Err(Error::Custom(format!(
            "{} field {number} is not a message",
            message.name
        ))),
    }
}
