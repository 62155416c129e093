//! A decoder of gnostic's `openapi.v2.Document` (gnostic-models, `openapiv2/OpenAPIv2.proto`)
//! back to Swagger 2.0 JSON, for the messages kube-apiserver's document uses, and a reader of the
//! block YAML its `Any` values hold. Written from the .proto's field numbers alone, so that a
//! round trip through it checks the sim's encoder rather than repeating it.

use kinformer_protobuf::wire::{Reader, WireValue};
use serde_json::{Map, Number, Value};

/// How one field of a message reads back into JSON.
#[derive(Clone, Copy)]
enum Kind {
    Text,
    Texts,
    Flag,
    Int,
    Double,
    Any,
    Anys,
    /// A message, read by the function, as the member's value.
    Message(fn(&[u8]) -> Value),
    /// A repeated message, each read by the function, as an array.
    List(fn(&[u8]) -> Value),
    /// A repeated `Named…` (name 1, value 2): each a member of the object being read.
    Entries(fn(&[u8]) -> Value),
    /// A oneof wrapper whose chosen message's members are this object's.
    Inline(fn(&[u8]) -> Value),
}

use Kind::{Any, Anys, Double, Entries, Flag, Inline, Int, List, Text, Texts};

type Spec = [(u32, &'static str, Kind)];

fn read(bytes: &[u8], spec: &Spec) -> Value {
    let mut object = Map::new();
    let mut reader = Reader::new(bytes);
    while let Some((number, value)) = reader.field().expect("well-formed protobuf") {
        let (_, key, kind) = spec
            .iter()
            .find(|(n, _, _)| *n == number)
            .unwrap_or_else(|| panic!("field {number} is not in the decoder's table"));
        let key = (*key).to_owned();
        let (bytes, varint) = match value {
            WireValue::Bytes(b) => (b, 0),
            WireValue::Varint(v) => (&[][..], v),
            WireValue::Fixed64(bits) => {
                let number = f64::from_bits(bits);
                assert!(matches!(kind, Double), "field {number} is a double");
                object.insert(key, number_value(number));
                continue;
            }
            WireValue::Fixed32(_) => panic!("no gnostic field is 32-bit"),
        };
        let text = || String::from_utf8(bytes.to_vec()).expect("UTF-8");
        match *kind {
            Text => drop(object.insert(key, Value::String(text()))),
            Flag => drop(object.insert(key, Value::Bool(varint != 0))),
            Int => drop(object.insert(key, Value::from(varint as i64))),
            Double => panic!("a double on the wire as another type"),
            Any => drop(object.insert(key, any(bytes))),
            Texts => push(&mut object, key, Value::String(text())),
            Anys => push(&mut object, key, any(bytes)),
            Kind::Message(read) => drop(object.insert(key, read(bytes))),
            List(read) => push(&mut object, key, read(bytes)),
            Entries(read) => {
                let entry = named(bytes, read);
                object.insert(entry.0, entry.1);
            }
            Inline(read) => {
                if let Value::Object(members) = read(bytes) {
                    object.extend(members);
                }
            }
        }
    }
    Value::Object(object)
}

fn push(object: &mut Map<String, Value>, key: String, item: Value) {
    match object
        .entry(key)
        .or_insert_with(|| Value::Array(Vec::new()))
    {
        Value::Array(items) => items.push(item),
        _ => panic!("a repeated field met a single one"),
    }
}

fn number_value(number: f64) -> Value {
    if number.fract() == 0.0 && number.abs() < 1e15 {
        Value::from(number as i64)
    } else {
        Value::Number(Number::from_f64(number).expect("finite"))
    }
}

fn named(bytes: &[u8], read: fn(&[u8]) -> Value) -> (String, Value) {
    let mut name = String::new();
    let mut value = Value::Null;
    let mut reader = Reader::new(bytes);
    while let Some((number, field)) = reader.field().expect("well-formed protobuf") {
        let WireValue::Bytes(b) = field else {
            panic!("a Named entry holds only bytes");
        };
        match number {
            1 => name = String::from_utf8(b.to_vec()).expect("UTF-8"),
            2 => value = read(b),
            other => panic!("Named entry field {other}"),
        }
    }
    (name, value)
}

/// The document as JSON.
pub fn document(bytes: &[u8]) -> Value {
    read(
        bytes,
        &[
            (1, "swagger", Text),
            (2, "info", Kind::Message(info)),
            (8, "paths", Kind::Message(paths)),
            (9, "definitions", Kind::Message(schemas)),
            (12, "security", List(security_requirement)),
            (
                13,
                "securityDefinitions",
                Kind::Message(security_definitions),
            ),
            (16, "", Entries(any)),
        ],
    )
}

fn info(b: &[u8]) -> Value {
    read(
        b,
        &[
            (1, "title", Text),
            (2, "version", Text),
            (7, "", Entries(any)),
        ],
    )
}

fn paths(b: &[u8]) -> Value {
    read(b, &[(1, "", Entries(any)), (2, "", Entries(path_item))])
}

fn path_item(b: &[u8]) -> Value {
    read(
        b,
        &[
            (2, "get", Kind::Message(operation)),
            (3, "put", Kind::Message(operation)),
            (4, "post", Kind::Message(operation)),
            (5, "delete", Kind::Message(operation)),
            (8, "patch", Kind::Message(operation)),
            (9, "parameters", List(parameters_item)),
            (10, "", Entries(any)),
        ],
    )
}

fn operation(b: &[u8]) -> Value {
    read(
        b,
        &[
            (3, "description", Text),
            (5, "operationId", Text),
            (6, "produces", Texts),
            (7, "consumes", Texts),
            (8, "parameters", List(parameters_item)),
            (9, "responses", Kind::Message(responses)),
            (13, "", Entries(any)),
        ],
    )
}

fn parameters_item(b: &[u8]) -> Value {
    read(b, &[(1, "", Inline(parameter))])
}

fn parameter(b: &[u8]) -> Value {
    read(
        b,
        &[(1, "", Inline(body_parameter)), (2, "", Inline(non_body))],
    )
}

fn body_parameter(b: &[u8]) -> Value {
    read(
        b,
        &[
            (2, "name", Text),
            (3, "in", Text),
            (4, "required", Flag),
            (5, "schema", Kind::Message(schema)),
        ],
    )
}

fn non_body(b: &[u8]) -> Value {
    read(
        b,
        &[(3, "", Inline(query)), (4, "", Inline(path_parameter))],
    )
}

fn query(b: &[u8]) -> Value {
    read(
        b,
        &[
            (1, "required", Flag),
            (2, "in", Text),
            (4, "name", Text),
            (6, "type", Text),
            (20, "uniqueItems", Flag),
        ],
    )
}

fn path_parameter(b: &[u8]) -> Value {
    read(
        b,
        &[
            (1, "required", Flag),
            (2, "in", Text),
            (4, "name", Text),
            (5, "type", Text),
            (19, "uniqueItems", Flag),
        ],
    )
}

fn responses(b: &[u8]) -> Value {
    read(b, &[(1, "", Entries(response_value))])
}

fn response_value(b: &[u8]) -> Value {
    read(b, &[(1, "", Inline(response))])
}

fn response(b: &[u8]) -> Value {
    read(
        b,
        &[
            (1, "description", Text),
            (2, "schema", Kind::Message(schema_item)),
        ],
    )
}

fn schema_item(b: &[u8]) -> Value {
    read(b, &[(1, "", Inline(schema))])
}

fn schemas(b: &[u8]) -> Value {
    read(b, &[(1, "", Entries(schema))])
}

fn schema(b: &[u8]) -> Value {
    read(
        b,
        &[
            (1, "$ref", Text),
            (2, "format", Text),
            (4, "description", Text),
            (5, "default", Any),
            (7, "maximum", Double),
            (9, "minimum", Double),
            (11, "maxLength", Int),
            (12, "minLength", Int),
            (13, "pattern", Text),
            (14, "maxItems", Int),
            (15, "minItems", Int),
            (19, "required", Texts),
            (20, "enum", Anys),
            (
                21,
                "additionalProperties",
                Kind::Message(additional_properties),
            ),
            (22, "type", Kind::Message(type_item)),
            (23, "items", Kind::Message(items_item)),
            (24, "allOf", List(schema)),
            (25, "properties", Kind::Message(schemas)),
            (31, "", Entries(any)),
        ],
    )
}

/// A oneof of a schema (1) and a boolean (2), as the member's value itself.
fn additional_properties(b: &[u8]) -> Value {
    match Reader::new(b).field().expect("well-formed protobuf") {
        Some((1, WireValue::Bytes(inner))) => schema(inner),
        Some((2, WireValue::Varint(flag))) => Value::Bool(flag != 0),
        other => panic!("AdditionalPropertiesItem {other:?}"),
    }
}

/// `TypeItem`: the sim always names one type, written as a string.
fn type_item(b: &[u8]) -> Value {
    let names = read(b, &[(1, "value", Texts)]);
    match &names["value"] {
        Value::Array(list) if list.len() == 1 => list[0].clone(),
        other => other.clone(),
    }
}

/// `ItemsItem`: one schema.
fn items_item(b: &[u8]) -> Value {
    match &read(b, &[(1, "schema", List(schema))])["schema"] {
        Value::Array(list) if list.len() == 1 => list[0].clone(),
        other => panic!("items of {other}"),
    }
}

fn security_definitions(b: &[u8]) -> Value {
    read(b, &[(1, "", Entries(security_scheme))])
}

fn security_scheme(b: &[u8]) -> Value {
    let api_key = |b: &[u8]| {
        read(
            b,
            &[
                (1, "type", Text),
                (2, "name", Text),
                (3, "in", Text),
                (4, "description", Text),
            ],
        )
    };
    read(b, &[(2, "", Inline(api_key))])
}

fn security_requirement(b: &[u8]) -> Value {
    let scopes = |b: &[u8]| {
        let list = read(b, &[(1, "value", Texts)]);
        list.get("value")
            .cloned()
            .unwrap_or(Value::Array(Vec::new()))
    };
    read(b, &[(1, "", Entries(scopes))])
}

/// `Any`: its YAML (field 2) read back.
fn any(b: &[u8]) -> Value {
    let yaml = read(b, &[(2, "yaml", Text)]);
    crate::gnostic_yaml::parse(yaml["yaml"].as_str().expect("an Any holds YAML"))
}
