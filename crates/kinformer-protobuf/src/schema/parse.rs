//! Reading the schema text: `package <name> <apiVersion|->`, `message <Name> [wrapper]`, and field
//! lines `<number> <jsonName> <type> [repeated] [ptr] [omitempty] [inline]`.

use std::collections::HashMap;

use super::{Field, FieldType, Message, MessageId, Scalar, Schema, Special};
use crate::error::{Error, Result};

/// The largest field number the schema may use: the lookup table is dense.
const MAX_FIELD_NUMBER: u32 = 4096;

/// A field whose type is still a name, until every message is known.
struct Pending {
    line: usize,
    message: usize,
    ty: String,
}

pub(super) fn parse(text: &str) -> Result<Schema> {
    let mut messages: Vec<Message> = Vec::new();
    let mut pending = Vec::new();
    let mut package: Option<(String, Option<String>)> = None;
    let mut by_kind: HashMap<Box<str>, HashMap<Box<str>, MessageId>> = HashMap::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let bad = |reason: &str| Error::Schema {
            line,
            reason: reason.to_owned(),
        };
        let words: Vec<&str> = raw.split_whitespace().collect();
        match words.as_slice() {
            [] => {}
            [first, ..] if first.starts_with('#') => {}
            ["package", name, api_version] => {
                let api_version = (*api_version != "-").then(|| (*api_version).to_owned());
                package = Some(((*name).to_owned(), api_version));
            }
            ["message", name, rest @ ..] => {
                let (pkg, api_version) = package
                    .as_ref()
                    .ok_or_else(|| bad("a message before any package"))?;
                let wrapper = match rest {
                    [] => false,
                    ["wrapper"] => true,
                    _ => return Err(bad("a message line takes a name and an optional `wrapper`")),
                };
                let full = format!("{pkg}.{name}");
                let id =
                    MessageId(u32::try_from(messages.len()).map_err(|_| bad("too many messages"))?);
                if let Some(api_version) = api_version {
                    by_kind
                        .entry(api_version.as_str().into())
                        .or_default()
                        .insert((*name).into(), id);
                }
                messages.push(Message {
                    special: Special::of(&full, wrapper),
                    name: full.into(),
                    fields: Vec::new(),
                    by_number: Vec::new(),
                    by_json_name: Vec::new(),
                });
            }
            [number, json_name, ty, flags @ ..] => {
                let message = messages
                    .len()
                    .checked_sub(1)
                    .ok_or_else(|| bad("a field before any message"))?;
                let number: u32 = number
                    .parse()
                    .map_err(|_| bad("a field number is not a number"))?;
                if number == 0 || number > MAX_FIELD_NUMBER {
                    return Err(bad("a field number out of range"));
                }
                let mut field = Field {
                    number,
                    json_name: (*json_name).into(),
                    ty: FieldType::Scalar(Scalar::Bool),
                    repeated: false,
                    pointer: false,
                    omitempty: false,
                    inline: false,
                };
                for flag in flags {
                    match *flag {
                        "repeated" => field.repeated = true,
                        "ptr" => field.pointer = true,
                        "omitempty" => field.omitempty = true,
                        "inline" => field.inline = true,
                        _ => return Err(bad("unknown field flag")),
                    }
                }
                let fields = &mut messages[message].fields;
                if fields.last().is_some_and(|last| last.number >= number) {
                    return Err(bad("fields must be sorted by number, without repeats"));
                }
                fields.push(field);
                pending.push(Pending {
                    line,
                    message,
                    ty: (*ty).to_owned(),
                });
            }
            _ => return Err(bad("not a package, message or field line")),
        }
    }
    let by_name: HashMap<Box<str>, MessageId> = messages
        .iter()
        .enumerate()
        .map(|(i, m)| (m.name.clone(), MessageId(i as u32)))
        .collect();
    let mut next_field: HashMap<usize, usize> = HashMap::new();
    for p in pending {
        let ty = resolve(&p.ty, &by_name).ok_or_else(|| Error::Schema {
            line: p.line,
            reason: format!("unknown type {:?}", p.ty),
        })?;
        let slot = next_field.entry(p.message).or_insert(0);
        messages[p.message].fields[*slot].ty = ty;
        *slot += 1;
    }
    for message in &mut messages {
        let max = message.fields.last().map_or(0, |f| f.number as usize);
        message.by_number = vec![0; max + 1];
        for (i, field) in message.fields.iter().enumerate() {
            // At most MAX_FIELD_NUMBER fields per message, checked above: the index fits.
            message.by_number[field.number as usize] = (i + 1) as u16;
        }
        // As many fields as slots in `by_number`: the indexes fit.
        message.by_json_name = (0..message.fields.len() as u16).collect();
        let fields = &message.fields;
        message.by_json_name.sort_by(|&a, &b| {
            fields[usize::from(a)]
                .json_name
                .cmp(&fields[usize::from(b)].json_name)
        });
    }
    Ok(Schema {
        messages,
        by_name,
        by_kind,
    })
}

fn resolve(ty: &str, by_name: &HashMap<Box<str>, MessageId>) -> Option<FieldType> {
    if let Some(inner) = ty.strip_prefix("map<").and_then(|t| t.strip_suffix('>')) {
        let (key, value) = inner.split_once(',')?;
        return Some(FieldType::Map(
            scalar(key)?,
            Box::new(resolve(value, by_name)?),
        ));
    }
    if let Some(s) = scalar(ty) {
        return Some(FieldType::Scalar(s));
    }
    by_name.get(ty).map(|&id| FieldType::Message(id))
}

fn scalar(ty: &str) -> Option<Scalar> {
    Some(match ty {
        "string" => Scalar::String,
        "bytes" => Scalar::Bytes,
        "bool" => Scalar::Bool,
        "int32" => Scalar::Int32,
        "int64" => Scalar::Int64,
        "uint32" => Scalar::UInt32,
        "uint64" => Scalar::UInt64,
        "sint32" => Scalar::SInt32,
        "sint64" => Scalar::SInt64,
        "fixed32" => Scalar::Fixed32,
        "fixed64" => Scalar::Fixed64,
        "sfixed32" => Scalar::SFixed32,
        "sfixed64" => Scalar::SFixed64,
        "float" => Scalar::Float,
        "double" => Scalar::Double,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "# a test schema\n\
        package test.v1 example.com/v1\n\
        message Thing\n\
        1 name string omitempty\n\
        2 parts test.v1.Part repeated\n\
        5 labels map<string,string>\n\
        message Part\n\
        1 size int32 ptr omitempty\n";

    #[test]
    fn fields_resolve_and_kinds_are_found() {
        let schema = parse(TEXT).unwrap();
        let thing = schema.message_for("example.com/v1", "Thing").unwrap();
        let part = schema.message("test.v1.Part").unwrap();
        let parts = schema[thing].field(2).unwrap();
        assert_eq!(parts.ty, FieldType::Message(part));
        assert!(parts.repeated);
        assert_eq!(
            schema[thing].field(5).unwrap().ty,
            FieldType::Map(Scalar::String, Box::new(FieldType::Scalar(Scalar::String)))
        );
        assert!(schema[thing].field(3).is_none());
        assert!(schema[thing].field(99).is_none());
        let size = schema[part].field(1).unwrap();
        assert!(size.pointer && size.omitempty && !size.zero_is_absent());
        assert!(schema[thing].field(1).unwrap().zero_is_absent());
    }

    #[test]
    fn bad_lines_name_their_line() {
        for (text, line) in [
            ("message X\n", 1),
            ("package p -\nmessage X\n1 a nosuchtype\n", 3),
            ("package p -\nmessage X\n2 a string\n1 b string\n", 4),
            ("package p -\nmessage X\n1 a string sometimes\n", 3),
            ("package p -\nmessage X\n0 a string\n", 3),
        ] {
            match parse(text) {
                Err(Error::Schema { line: l, .. }) => assert_eq!(l, line, "{text}"),
                other => panic!("{text}: {other:?}"),
            }
        }
    }
}
