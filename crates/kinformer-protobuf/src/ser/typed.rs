//! Encoding any `Serialize` value as a message of the schema straight from its serde form: a
//! k8s-openapi object is written field by field as its `Serialize` presents it, with no JSON
//! tree built in between (only the few special forms, times, quantities, int-or-strings and
//! embedded JSON, pass through their small JSON value). Fields are written in the order the
//! value presents them, which protobuf readers accept; keys the schema does not have
//! (`apiVersion` and `kind` at the top) are left out, as with [`to_vec`](super::to_vec).

use serde::ser::{Serialize, SerializeMap, SerializeStruct, Serializer};
use serde_json::Value;

use super::refuse::{
    absent_or_transparent, impossible_compounds, refuse_compounds, refuse_scalars, refuse_variants,
};
use super::typed_parts::{KeySer, MapSer, ScalarSer, SeqSer};
use super::{Encoder, at, mismatch};
use crate::error::{Error, Result};
use crate::schema::{Field, FieldType, Message, MessageId, Schema};
use crate::wire;

/// Encodes `value` as a `message`: what [`to_vec`](super::to_vec) writes of its JSON form, without
/// building that form.
///
/// ```
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kinformer_core::Fields;
/// use kinformer_protobuf::{Schema, TypedDecoder, to_vec_typed};
///
/// let mut cm = ConfigMap::default();
/// cm.metadata.name = Some("settings".into());
/// cm.data = Some([("mode".to_owned(), "fast".to_owned())].into());
/// let schema = Schema::kubernetes();
/// let bytes = to_vec_typed(schema, schema.message_for("v1", "ConfigMap")?, &cm)?;
/// let decoder = TypedDecoder::<ConfigMap>::new(&Fields::All).expect("a built-in type");
/// assert_eq!(decoder.decode(&bytes)?, cm);
/// # Ok::<(), kinformer_protobuf::Error>(())
/// ```
///
/// # Errors
/// As [`to_vec`](super::to_vec): [`Error::Encode`] naming the path of a value that does not fit
/// its field, [`Error::TooDeep`] past [`MAX_DEPTH`](crate::MAX_DEPTH).
pub fn to_vec_typed<T: Serialize + ?Sized>(
    schema: &Schema,
    message: MessageId,
    value: &T,
) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    encode_typed(schema, message, value, &mut out)?;
    Ok(out)
}

/// Appends the encoding of `value` (see [`to_vec_typed`]) to `out`.
///
/// # Errors
/// As [`to_vec_typed`].
pub fn encode_typed<T: Serialize + ?Sized>(
    schema: &Schema,
    message: MessageId,
    value: &T,
    out: &mut Vec<u8>,
) -> Result<()> {
    if schema[message].special.is_some() {
        let value = serde_json::to_value(value)?;
        return Encoder { schema }.message(message, &value, out, 0);
    }
    let message = MessageSer {
        schema,
        id: message,
        out,
        depth: 0,
    };
    value.serialize(message).map(drop)
}

/// One field's value, written under `number`.
pub(super) fn encode_value<T: Serialize + ?Sized>(
    schema: &Schema,
    number: u32,
    ty: &FieldType,
    value: &T,
    out: &mut Vec<u8>,
    depth: usize,
) -> Result<()> {
    if depth > crate::MAX_DEPTH {
        return Err(Error::TooDeep(crate::MAX_DEPTH));
    }
    match ty {
        FieldType::Scalar(scalar) => value
            .serialize(ScalarSer {
                schema,
                number,
                scalar: *scalar,
                out,
            })
            .map(drop),
        FieldType::Message(id) if schema[*id].special.is_some() => {
            match serde_json::to_value(value)? {
                Value::Null => Ok(()),
                value => Encoder { schema }.value(number, ty, &value, out, depth),
            }
        }
        FieldType::Message(id) => {
            let start = out.len();
            let mut present = true;
            wire::put_nested(out, number, |nested| {
                let message = MessageSer {
                    schema,
                    id: *id,
                    out: nested,
                    depth: depth + 1,
                };
                present = value.serialize(message)?;
                Ok::<_, Error>(())
            })?;
            if !present {
                out.truncate(start);
            }
            Ok(())
        }
        FieldType::Map(..) => Err(mismatch("no map inside a list")),
    }
}

/// A field of the message: a map's entries, a list's items, or one value (`depth` is the
/// message's nesting).
pub(crate) fn encode_field<T: Serialize + ?Sized>(
    schema: &Schema,
    field: &Field,
    value: &T,
    out: &mut Vec<u8>,
    depth: usize,
) -> Result<()> {
    match &field.ty {
        FieldType::Map(key, value_ty) => value
            .serialize(MapSer {
                schema,
                number: field.number,
                key: *key,
                value_ty,
                out,
                depth,
            })
            .map(drop),
        ty if field.repeated => value
            .serialize(SeqSer {
                schema,
                number: field.number,
                ty,
                out,
                depth,
            })
            .map(drop),
        ty => encode_value(schema, field.number, ty, value, out, depth),
    }
}

/// A message: its value serializes as a struct or a map of its JSON fields.
struct MessageSer<'s, 'o> {
    schema: &'s Schema,
    id: MessageId,
    out: &'o mut Vec<u8>,
    depth: usize,
}

impl<'s, 'o> MessageSer<'s, 'o> {
    fn refuse(&self) -> Error {
        mismatch("an object")
    }

    fn fields(self) -> Fields<'s, 'o> {
        Fields {
            schema: self.schema,
            message: &self.schema[self.id],
            out: self.out,
            depth: self.depth,
            inline: Vec::new(),
            key: None,
        }
    }
}

impl<'s, 'o> Serializer for MessageSer<'s, 'o> {
    type Ok = bool;
    type Error = Error;
    type SerializeSeq = serde::ser::Impossible<bool, Error>;
    type SerializeMap = Fields<'s, 'o>;
    type SerializeStruct = Fields<'s, 'o>;
    impossible_compounds!();
    refuse_scalars!();
    refuse_variants!();
    absent_or_transparent!();
    refuse_compounds!(seq);

    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap> {
        Ok(self.fields())
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct> {
        Ok(self.fields())
    }
}

/// A message's fields as they come; those of an embedded (inline) struct, however deep, are
/// gathered and written as that struct's field at the end.
struct Fields<'s, 'o> {
    schema: &'s Schema,
    message: &'s Message,
    out: &'o mut Vec<u8>,
    depth: usize,
    /// Each embedded struct's path (the numbers of the inline fields leading to it) and
    /// contents so far.
    inline: Vec<(Vec<u32>, Vec<u8>)>,
    /// A map's key waiting for its value.
    key: Option<String>,
}

impl Fields<'_, '_> {
    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<()> {
        let (schema, depth) = (self.schema, self.depth);
        if let Some(field) = self.message.field_named(key).filter(|f| !f.inline) {
            return encode_field(schema, field, value, self.out, depth).map_err(at(key));
        }
        let mut path = Vec::new();
        let Some(field) = inline_field(schema, self.message, key, &mut path) else {
            // A key the schema does not have.
            return Ok(());
        };
        let slot = match self.inline.iter().position(|(p, _)| *p == path) {
            Some(slot) => slot,
            None => {
                self.inline.push((path, Vec::new()));
                self.inline.len() - 1
            }
        };
        let (path, contents) = &mut self.inline[slot];
        encode_field(schema, field, value, contents, depth + path.len()).map_err(at(key))
    }

    /// Writes every embedded struct, as the JSON path does (an empty one too).
    fn finish(self) -> Result<bool> {
        write_embedded(
            self.schema,
            self.message,
            &mut Vec::new(),
            &self.inline,
            self.out,
        );
        Ok(true)
    }
}

/// The field named `key` of a struct embedded in `message`, at any depth (`Volume`'s
/// `VolumeSource`, `NamedRuleWithOperations`' `RuleWithOperations`' `Rule`), with the numbers
/// of the embedded fields leading to it pushed on `path`.
fn inline_field<'s>(
    schema: &'s Schema,
    message: &'s Message,
    key: &str,
    path: &mut Vec<u32>,
) -> Option<&'s Field> {
    for embedded in message.fields.iter().filter(|f| f.inline) {
        let FieldType::Message(inner) = embedded.ty else {
            continue;
        };
        path.push(embedded.number);
        if let Some(field) = schema[inner].field_named(key).filter(|f| !f.inline) {
            return Some(field);
        }
        if let Some(field) = inline_field(schema, &schema[inner], key, path) {
            return Some(field);
        }
        path.pop();
    }
    None
}

/// Writes each struct embedded in `message` (the one at `path`): the fields gathered for it,
/// then the structs embedded in it in turn.
fn write_embedded(
    schema: &Schema,
    message: &Message,
    path: &mut Vec<u32>,
    gathered: &[(Vec<u32>, Vec<u8>)],
    out: &mut Vec<u8>,
) {
    for embedded in message.fields.iter().filter(|f| f.inline) {
        let FieldType::Message(inner) = embedded.ty else {
            continue;
        };
        path.push(embedded.number);
        let mut contents = gathered
            .iter()
            .find(|(p, _)| p == path)
            .map_or_else(Vec::new, |(_, c)| c.clone());
        write_embedded(schema, &schema[inner], path, gathered, &mut contents);
        wire::put_bytes(out, embedded.number, &contents);
        path.pop();
    }
}

impl SerializeStruct for Fields<'_, '_> {
    type Ok = bool;
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        self.field(key, value)
    }

    fn end(self) -> Result<bool> {
        self.finish()
    }
}

impl SerializeMap for Fields<'_, '_> {
    type Ok = bool;
    type Error = Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        self.key = Some(key.serialize(KeySer)?);
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        let key = self
            .key
            .take()
            .ok_or_else(|| mismatch("a key before its value"))?;
        self.field(&key, value)
    }

    fn end(self) -> Result<bool> {
        self.finish()
    }
}
