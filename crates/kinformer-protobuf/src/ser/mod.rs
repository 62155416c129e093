//! Encoding a JSON value as a protobuf message of the schema: what the simulator serves when a
//! client asks for protobuf, and the "typed -> protobuf" half of the round-trip tests. Fields are
//! written in number order, as Go writes them; JSON keys the schema does not have (`apiVersion` and
//! `kind` at the top, which the envelope carries) are left out, as a protobuf server would.

mod refuse;
mod typed;
mod typed_parts;

#[cfg(test)]
pub(crate) mod tests;

pub(crate) use typed::encode_field;
pub use typed::{encode_typed, to_vec_typed};

use base64::Engine as _;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::schema::{FieldType, MessageId, Scalar, Schema, Special};
use crate::time;
use crate::wire::{self, FIXED32, FIXED64, VARINT};

/// Encodes `value` (the JSON form of a `message`) as that message's protobuf.
///
/// # Errors
/// [`Error::Encode`] for a value whose JSON type does not fit its field; an invalid time, duration
/// or base64 text; nesting deeper than [`MAX_DEPTH`](crate::MAX_DEPTH).
pub fn to_vec(schema: &Schema, message: MessageId, value: &Value) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    encode(schema, message, value, &mut out)?;
    Ok(out)
}

/// Appends the protobuf of `value` (see [`to_vec`]) to `out`.
///
/// # Errors
/// As [`to_vec`].
pub fn encode(schema: &Schema, message: MessageId, value: &Value, out: &mut Vec<u8>) -> Result<()> {
    Encoder { schema }.message(message, value, out, 0)
}

pub(crate) struct Encoder<'s> {
    pub(crate) schema: &'s Schema,
}

pub(crate) fn mismatch(expected: &'static str) -> Error {
    Error::Encode {
        path: String::new(),
        expected,
    }
}

/// Puts a field's name in front of the path of an error from inside it.
pub(crate) fn at(name: &str) -> impl FnOnce(Error) -> Error + '_ {
    move |e| match e {
        Error::Encode { path, expected } => Error::Encode {
            path: if path.is_empty() {
                name.to_owned()
            } else {
                format!("{name}.{path}")
            },
            expected,
        },
        other => other,
    }
}

impl Encoder<'_> {
    fn message(&self, id: MessageId, value: &Value, out: &mut Vec<u8>, depth: usize) -> Result<()> {
        if depth > crate::MAX_DEPTH {
            return Err(Error::TooDeep(crate::MAX_DEPTH));
        }
        let message = &self.schema[id];
        if let Some(special) = message.special {
            return self.special(id, special, value, out, depth);
        }
        let object = match value {
            Value::Object(object) => object,
            Value::Null => return Ok(()),
            _ => return Err(mismatch("an object")),
        };
        for field in &message.fields {
            if let (true, FieldType::Message(inner)) = (field.inline, &field.ty) {
                // An embedded struct: its fields are the parent object's.
                wire::put_nested(out, field.number, |o| {
                    self.message(*inner, value, o, depth + 1)
                })?;
                continue;
            }
            let Some(value) = object.get(&*field.json_name).filter(|v| !v.is_null()) else {
                continue;
            };
            let name = &*field.json_name;
            match &field.ty {
                FieldType::Map(key, value_ty) => {
                    let Value::Object(entries) = value else {
                        return Err(at(name)(mismatch("an object")));
                    };
                    for (k, v) in entries {
                        wire::put_nested(out, field.number, |entry| {
                            self.scalar(1, *key, &Value::String(k.clone()), entry)?;
                            self.value(2, value_ty, v, entry, depth + 1)
                        })
                        .map_err(at(name))?;
                    }
                }
                ty if field.repeated => {
                    let Value::Array(items) = value else {
                        return Err(at(name)(mismatch("an array")));
                    };
                    for item in items {
                        self.value(field.number, ty, item, out, depth + 1)
                            .map_err(at(name))?;
                    }
                }
                ty => self
                    .value(field.number, ty, value, out, depth + 1)
                    .map_err(at(name))?,
            }
        }
        Ok(())
    }

    pub(crate) fn value(
        &self,
        number: u32,
        ty: &FieldType,
        value: &Value,
        out: &mut Vec<u8>,
        depth: usize,
    ) -> Result<()> {
        match ty {
            FieldType::Scalar(scalar) => self.scalar(number, *scalar, value, out),
            FieldType::Message(id) => {
                wire::put_nested(out, number, |o| self.message(*id, value, o, depth))
            }
            FieldType::Map(..) => Err(mismatch("no map inside a list")),
        }
    }

    pub(crate) fn scalar(
        &self,
        number: u32,
        scalar: Scalar,
        value: &Value,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let int = || value.as_i64().ok_or_else(|| mismatch("an integer"));
        let uint = || {
            value
                .as_u64()
                .ok_or_else(|| mismatch("an unsigned integer"))
        };
        let float = || value.as_f64().ok_or_else(|| mismatch("a number"));
        // Protobuf stores integers as bit patterns of their width: the casts are the encoding.
        match scalar {
            Scalar::String => {
                let s = value.as_str().ok_or_else(|| mismatch("a string"))?;
                wire::put_bytes(out, number, s.as_bytes());
            }
            Scalar::Bytes => {
                let s = value.as_str().ok_or_else(|| mismatch("base64 text"))?;
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(s)
                    .map_err(|_| mismatch("base64 text"))?;
                wire::put_bytes(out, number, &bytes);
            }
            Scalar::Bool => {
                let b = value.as_bool().ok_or_else(|| mismatch("a bool"))?;
                wire::put_tag(out, number, VARINT);
                wire::put_varint(out, u64::from(b));
            }
            Scalar::Int32 | Scalar::Int64 => {
                wire::put_tag(out, number, VARINT);
                wire::put_varint(out, int()? as u64);
            }
            Scalar::UInt32 | Scalar::UInt64 => {
                wire::put_tag(out, number, VARINT);
                wire::put_varint(out, uint()?);
            }
            Scalar::SInt32 | Scalar::SInt64 => {
                let n = int()?;
                wire::put_tag(out, number, VARINT);
                wire::put_varint(out, ((n << 1) ^ (n >> 63)) as u64);
            }
            Scalar::Fixed32 | Scalar::SFixed32 | Scalar::Float => {
                let bits = match scalar {
                    Scalar::Fixed32 => uint()? as u32,
                    Scalar::SFixed32 => int()? as i32 as u32,
                    _ => (float()? as f32).to_bits(),
                };
                wire::put_tag(out, number, FIXED32);
                out.extend_from_slice(&bits.to_le_bytes());
            }
            Scalar::Fixed64 | Scalar::SFixed64 | Scalar::Double => {
                let bits = match scalar {
                    Scalar::Fixed64 => uint()?,
                    Scalar::SFixed64 => int()? as u64,
                    _ => float()?.to_bits(),
                };
                wire::put_tag(out, number, FIXED64);
                out.extend_from_slice(&bits.to_le_bytes());
            }
        }
        Ok(())
    }

    fn special(
        &self,
        id: MessageId,
        special: Special,
        value: &Value,
        out: &mut Vec<u8>,
        depth: usize,
    ) -> Result<()> {
        let message = &self.schema[id];
        let field_type = |number: u32| {
            message
                .field(number)
                .map(|f| &f.ty)
                .ok_or_else(|| Error::UnknownMessage(format!("{} field {number}", message.name)))
        };
        let put_int = |out: &mut Vec<u8>, number: u32, n: i64| {
            wire::put_tag(out, number, VARINT);
            wire::put_varint(out, n as u64);
        };
        match (special, value) {
            (_, Value::Null) => {}
            (Special::Time | Special::MicroTime, Value::String(text)) => {
                let (seconds, nanos) = time::parse_rfc3339(text)?;
                put_int(out, 1, seconds);
                let nanos = if special == Special::Time {
                    0
                } else {
                    nanos / 1000 * 1000
                };
                if nanos != 0 {
                    put_int(out, 2, i64::from(nanos));
                }
            }
            (Special::Duration, Value::String(text)) => {
                put_int(out, 1, time::parse_duration(text)?)
            }
            (Special::Quantity, Value::String(text)) => wire::put_bytes(out, 1, text.as_bytes()),
            (Special::Quantity, Value::Number(n)) => {
                wire::put_bytes(out, 1, n.to_string().as_bytes())
            }
            (Special::IntOrString, Value::Number(_)) => {
                put_int(out, 1, 0);
                self.scalar(2, Scalar::Int32, value, out)?;
                wire::put_bytes(out, 3, b"");
            }
            (Special::IntOrString, Value::String(text)) => {
                put_int(out, 1, 1);
                put_int(out, 2, 0);
                wire::put_bytes(out, 3, text.as_bytes());
            }
            (Special::RawJson, value) => wire::put_bytes(out, 1, &serde_json::to_vec(value)?),
            (Special::Wrapper, Value::Array(items)) => {
                for item in items {
                    self.value(1, field_type(1)?, item, out, depth + 1)?;
                }
            }
            (Special::SchemaOrArray, Value::Array(items))
            | (Special::SchemaOrStringArray, Value::Array(items)) => {
                for item in items {
                    self.value(2, field_type(2)?, item, out, depth + 1)?;
                }
            }
            (Special::SchemaOrArray | Special::SchemaOrStringArray, Value::Object(_)) => {
                self.value(1, field_type(1)?, value, out, depth + 1)?;
            }
            (Special::SchemaOrBool, Value::Bool(b)) => put_int(out, 1, i64::from(*b)),
            (Special::SchemaOrBool, Value::Object(_)) => {
                put_int(out, 1, 1);
                self.value(2, field_type(2)?, value, out, depth + 1)?;
            }
            _ => return Err(mismatch(special_form(special))),
        }
        Ok(())
    }
}

fn special_form(special: Special) -> &'static str {
    match special {
        Special::Time | Special::MicroTime => "an RFC 3339 time",
        Special::Duration => "a duration",
        Special::Quantity => "a quantity",
        Special::IntOrString => "an integer or a string",
        Special::RawJson => "JSON",
        Special::Wrapper => "an array",
        Special::SchemaOrArray => "a schema or an array of schemas",
        Special::SchemaOrBool => "a schema or a bool",
        Special::SchemaOrStringArray => "a schema or an array of strings",
    }
}
