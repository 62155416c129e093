//! Field writers shared by gnostic's `openapi.v2` messages, each reading one JSON member and
//! writing it as protobuf-go marshals a proto3 field: a scalar left out when it holds its zero
//! value, a message written whenever it is set (even empty), repeated fields element by element.

use std::convert::Infallible;

use kinformer_protobuf::wire::{FIXED64, VARINT, put_bytes, put_nested, put_tag, put_varint};
use serde_json::{Map, Value};

use super::yaml::to_yaml;

/// A JSON object, as every OpenAPI object is.
pub(super) type Object = Map<String, Value>;

/// Writes a message field whose contents `write` appends.
pub(super) fn message(out: &mut Vec<u8>, field: u32, write: impl FnOnce(&mut Vec<u8>)) {
    let written: Result<(), Infallible> = put_nested(out, field, |inner| {
        write(inner);
        Ok(())
    });
    // Nothing in `write` can fail.
    let Ok(()) = written;
}

/// A string field, left out when empty.
pub(super) fn text(out: &mut Vec<u8>, field: u32, value: &str) {
    if !value.is_empty() {
        put_bytes(out, field, value.as_bytes());
    }
}

/// The string member `key` of `object`.
pub(super) fn text_of(out: &mut Vec<u8>, field: u32, object: &Object, key: &str) {
    if let Some(Value::String(value)) = object.get(key) {
        text(out, field, value);
    }
}

/// The boolean member `key`, written only when true.
pub(super) fn flag_of(out: &mut Vec<u8>, field: u32, object: &Object, key: &str) {
    if let Some(Value::Bool(true)) = object.get(key) {
        put_tag(out, field, VARINT);
        put_varint(out, 1);
    }
}

/// A boolean that a oneof holds, written even when false.
pub(super) fn oneof_flag(out: &mut Vec<u8>, field: u32, value: bool) {
    put_tag(out, field, VARINT);
    put_varint(out, u64::from(value));
}

/// The integer member `key` as an `int64`, left out when zero.
pub(super) fn int_of(out: &mut Vec<u8>, field: u32, object: &Object, key: &str) {
    let number = object.get(key).and_then(|v| {
        // A whole number written with a fraction (`5.0`) is still an integer to gnostic.
        v.as_i64().or_else(|| v.as_f64().map(|f| f as i64))
    });
    if let Some(number) = number.filter(|n| *n != 0) {
        put_tag(out, field, VARINT);
        // Negative numbers go on the wire as their two's complement, ten bytes long.
        put_varint(out, number as u64);
    }
}

/// The number member `key` as a `double`, left out when zero.
pub(super) fn double_of(out: &mut Vec<u8>, field: u32, object: &Object, key: &str) {
    if let Some(number) = object.get(key).and_then(Value::as_f64)
        && number.to_bits() != 0
    {
        put_tag(out, field, FIXED64);
        out.extend_from_slice(&number.to_le_bytes());
    }
}

/// The string-array member `key`, one field per element.
pub(super) fn texts_of(out: &mut Vec<u8>, field: u32, object: &Object, key: &str) {
    if let Some(Value::Array(items)) = object.get(key) {
        for item in items.iter().filter_map(Value::as_str) {
            put_bytes(out, field, item.as_bytes());
        }
    }
}

/// gnostic's `Any`: the value's YAML text in field 2 (field 1, a protobuf `Any`, is only set by
/// gnostic's compiler extensions, which a server does not run).
pub(super) fn any(out: &mut Vec<u8>, field: u32, value: &Value) {
    message(out, field, |inner| text(inner, 2, &to_yaml(value)));
}

/// The member `key` as an `Any`, when present.
pub(super) fn any_of(out: &mut Vec<u8>, field: u32, object: &Object, key: &str) {
    if let Some(value) = object.get(key) {
        any(out, field, value);
    }
}

/// The array member `key` as repeated `Any`s (an `enum`).
pub(super) fn anys_of(out: &mut Vec<u8>, field: u32, object: &Object, key: &str) {
    if let Some(Value::Array(items)) = object.get(key) {
        for item in items {
            any(out, field, item);
        }
    }
}

/// The `x-` members of `object` as repeated `NamedAny`, in the document's order.
pub(super) fn extensions(out: &mut Vec<u8>, field: u32, object: &Object) {
    for (name, value) in object.iter().filter(|(k, _)| k.starts_with("x-")) {
        named(out, field, name, |inner| any(inner, 2, value));
    }
}

/// A `Named…` entry: its name in field 1, its value (written by `value` as field 2).
pub(super) fn named(out: &mut Vec<u8>, field: u32, name: &str, value: impl FnOnce(&mut Vec<u8>)) {
    message(out, field, |inner| {
        text(inner, 1, name);
        value(inner);
    });
}

/// The object member `key`, written by `write` as a message field.
pub(super) fn object_of(
    out: &mut Vec<u8>,
    field: u32,
    object: &Object,
    key: &str,
    write: impl FnOnce(&mut Vec<u8>, &Object),
) {
    if let Some(Value::Object(inner)) = object.get(key) {
        message(out, field, |m| write(m, inner));
    }
}

/// `ExternalDocs`.
pub(super) fn external_docs(out: &mut Vec<u8>, object: &Object) {
    text_of(out, 1, object, "description");
    text_of(out, 2, object, "url");
    extensions(out, 3, object);
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn written(write: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
        let mut out = Vec::new();
        write(&mut out);
        out
    }

    #[test]
    fn zero_scalars_are_left_out_as_proto3_does() {
        let Value::Object(object) = json!({"s": "", "b": false, "i": 0, "d": 0.0}) else {
            unreachable!()
        };
        assert!(written(|o| text_of(o, 1, &object, "s")).is_empty());
        assert!(written(|o| flag_of(o, 1, &object, "b")).is_empty());
        assert!(written(|o| int_of(o, 1, &object, "i")).is_empty());
        assert!(written(|o| double_of(o, 1, &object, "d")).is_empty());
        assert_eq!(written(|o| oneof_flag(o, 2, false)), [0x10, 0]);
    }

    #[test]
    fn numbers_take_their_wire_types() {
        let Value::Object(object) = json!({"i": -1, "d": 1.5}) else {
            unreachable!()
        };
        let int = written(|o| int_of(o, 11, &object, "i"));
        assert_eq!(int[0], 11 << 3);
        assert_eq!(int.len(), 11);
        let double = written(|o| double_of(o, 7, &object, "d"));
        assert_eq!(double[0], (7 << 3) | 1);
        assert_eq!(&double[1..], 1.5f64.to_le_bytes());
    }

    #[test]
    fn an_extension_is_a_named_any_holding_yaml() {
        let Value::Object(object) = json!({"x-kubernetes-action": "get", "description": "d"})
        else {
            unreachable!()
        };
        let out = written(|o| extensions(o, 13, &object));
        let mut expected = vec![(13 << 3) | 2, 29, 0x0a, 19];
        expected.extend_from_slice(b"x-kubernetes-action");
        expected.extend_from_slice(&[0x12, 6, 0x12, 4]);
        expected.extend_from_slice(b"get\n");
        assert_eq!(out, expected);
    }
}
