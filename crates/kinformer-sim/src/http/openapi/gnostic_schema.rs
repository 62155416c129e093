//! gnostic's `openapi.v2.Schema`, and the primitive type block that non-body parameters, their
//! `items` and response headers share. A member Swagger 2.0 does not define is not written:
//! gnostic has no field for it.

use kinformer_protobuf::wire::put_bytes;
use serde_json::Value;

use super::gnostic_wire::{
    Object, any_of, anys_of, double_of, extensions, external_docs, flag_of, int_of, message, named,
    object_of, oneof_flag, text_of, texts_of,
};

/// A `Schema`'s fields, by field number.
pub(super) fn schema(out: &mut Vec<u8>, object: &Object) {
    text_of(out, 1, object, "$ref");
    text_of(out, 2, object, "format");
    text_of(out, 3, object, "title");
    text_of(out, 4, object, "description");
    any_of(out, 5, object, "default");
    double_of(out, 6, object, "multipleOf");
    double_of(out, 7, object, "maximum");
    flag_of(out, 8, object, "exclusiveMaximum");
    double_of(out, 9, object, "minimum");
    flag_of(out, 10, object, "exclusiveMinimum");
    int_of(out, 11, object, "maxLength");
    int_of(out, 12, object, "minLength");
    text_of(out, 13, object, "pattern");
    int_of(out, 14, object, "maxItems");
    int_of(out, 15, object, "minItems");
    flag_of(out, 16, object, "uniqueItems");
    int_of(out, 17, object, "maxProperties");
    int_of(out, 18, object, "minProperties");
    texts_of(out, 19, object, "required");
    anys_of(out, 20, object, "enum");
    match object.get("additionalProperties") {
        // `AdditionalPropertiesItem` is a oneof of a schema (1) and a boolean (2).
        Some(Value::Object(inner)) => message(out, 21, |m| message(m, 1, |s| schema(s, inner))),
        Some(Value::Bool(allowed)) => message(out, 21, |m| oneof_flag(m, 2, *allowed)),
        _ => {}
    }
    match object.get("type") {
        // `TypeItem` lists the type names, one for a single type.
        Some(Value::String(name)) => message(out, 22, |m| put_bytes(m, 1, name.as_bytes())),
        Some(Value::Array(_)) => message(out, 22, |m| texts_of(m, 1, object, "type")),
        _ => {}
    }
    match object.get("items") {
        // `ItemsItem` holds one schema, or one per position for a tuple.
        Some(Value::Object(inner)) => message(out, 23, |m| message(m, 1, |s| schema(s, inner))),
        Some(Value::Array(list)) => message(out, 23, |m| {
            for inner in list.iter().filter_map(Value::as_object) {
                message(m, 1, |s| schema(s, inner));
            }
        }),
        _ => {}
    }
    if let Some(Value::Array(list)) = object.get("allOf") {
        for inner in list.iter().filter_map(Value::as_object) {
            message(out, 24, |s| schema(s, inner));
        }
    }
    object_of(out, 25, object, "properties", named_schemas);
    text_of(out, 26, object, "discriminator");
    flag_of(out, 27, object, "readOnly");
    object_of(out, 28, object, "xml", xml);
    object_of(out, 29, object, "externalDocs", external_docs);
    any_of(out, 30, object, "example");
    extensions(out, 31, object);
}

/// `Properties` and `Definitions`: their members as repeated `NamedSchema` in field 1.
pub(super) fn named_schemas(out: &mut Vec<u8>, object: &Object) {
    for (name, value) in object {
        if let Value::Object(inner) = value {
            named(out, 1, name, |m| message(m, 2, |s| schema(s, inner)));
        }
    }
}

fn xml(out: &mut Vec<u8>, object: &Object) {
    text_of(out, 1, object, "name");
    text_of(out, 2, object, "namespace");
    text_of(out, 3, object, "prefix");
    flag_of(out, 4, object, "attribute");
    flag_of(out, 5, object, "wrapped");
    extensions(out, 6, object);
}

/// The seventeen fields from `type` to `multipleOf` that parameters other than the body,
/// `PrimitivesItems` and `Header` share, numbered from `first` on.
pub(super) fn primitive(out: &mut Vec<u8>, first: u32, object: &Object) {
    text_of(out, first, object, "type");
    text_of(out, first + 1, object, "format");
    object_of(out, first + 2, object, "items", primitives_items);
    text_of(out, first + 3, object, "collectionFormat");
    any_of(out, first + 4, object, "default");
    double_of(out, first + 5, object, "maximum");
    flag_of(out, first + 6, object, "exclusiveMaximum");
    double_of(out, first + 7, object, "minimum");
    flag_of(out, first + 8, object, "exclusiveMinimum");
    int_of(out, first + 9, object, "maxLength");
    int_of(out, first + 10, object, "minLength");
    text_of(out, first + 11, object, "pattern");
    int_of(out, first + 12, object, "maxItems");
    int_of(out, first + 13, object, "minItems");
    flag_of(out, first + 14, object, "uniqueItems");
    anys_of(out, first + 15, object, "enum");
    double_of(out, first + 16, object, "multipleOf");
}

/// `PrimitivesItems`: a non-body parameter's `items`.
fn primitives_items(out: &mut Vec<u8>, object: &Object) {
    primitive(out, 1, object);
    extensions(out, 18, object);
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn encoded(value: Value) -> Vec<u8> {
        let mut out = Vec::new();
        if let Value::Object(object) = value {
            schema(&mut out, &object);
        }
        out
    }

    #[test]
    fn a_reference_is_the_ref_field_alone() {
        let out = encoded(json!({"$ref": "#/definitions/io.k8s.api.core.v1.Pod"}));
        assert_eq!(out[0], 0x0a);
        assert_eq!(&out[2..], b"#/definitions/io.k8s.api.core.v1.Pod");
    }

    #[test]
    fn type_is_a_type_item_and_additional_properties_false_is_written() {
        let out = encoded(json!({"type": "object", "additionalProperties": false}));
        // additionalProperties (21) before type (22): field order, not the JSON's.
        assert_eq!(
            out,
            [
                0xaa, 0x01, 2, 0x10, 0, // 21: { boolean (2): false }
                0xb2, 0x01, 8, 0x0a, 6, b'o', b'b', b'j', b'e', b'c', b't'
            ]
        );
    }

    #[test]
    fn members_swagger_does_not_define_are_not_written() {
        assert!(encoded(json!({"nullable": true, "oneOf": [{}]})).is_empty());
    }
}
