//! The zero value of a built-in type as Go's JSON encoder writes it, from the protobuf schema
//! of Kubernetes' Go types: what a bookmark carries after `metadata` (`"spec":{"containers":null}`).
//! Go leaves out an `omitempty` field when it is empty, but never a struct value; lists, maps and
//! pointers are `null`, and a zero `metav1.Time` is `null` too.

use kinformer_protobuf::{FieldType, MessageId, Scalar, Schema, Special};
use serde_json::{Map, Value};

/// Nesting deeper than this is written as `{}`: no built-in zero value nests so deep.
const MAX_DEPTH: usize = 32;

/// The zero value of `api_version`/`kind` after its `metadata`, as the text that follows it in
/// an object (`,"spec":{...},"status":{}`); empty when the schema does not know the kind.
pub(super) fn bookmark_tail(api_version: &str, kind: &str) -> String {
    let schema = Schema::kubernetes();
    let Ok(message) = schema.message_for(api_version, kind) else {
        return String::new();
    };
    let mut zero = Map::new();
    fields(schema, message, &mut zero, 0);
    zero.remove("metadata");
    let mut tail = String::new();
    for (key, value) in zero {
        tail.push(',');
        tail.push_str(&Value::String(key).to_string());
        tail.push(':');
        tail.push_str(&value.to_string());
    }
    tail
}

/// Adds `message`'s zero fields to `out` (an inlined struct's fields join its parent's).
fn fields(schema: &Schema, message: MessageId, out: &mut Map<String, Value>, depth: usize) {
    for field in &schema[message].fields {
        if field.inline {
            if let FieldType::Message(inner) = field.ty
                && depth < MAX_DEPTH
            {
                fields(schema, inner, out, depth + 1);
            }
            continue;
        }
        let value = match &field.ty {
            _ if field.repeated || field.pointer || matches!(field.ty, FieldType::Map(..)) => {
                if field.omitempty {
                    continue;
                }
                Value::Null
            }
            FieldType::Scalar(_) if field.omitempty => continue,
            FieldType::Scalar(scalar) => scalar_zero(*scalar),
            // A struct value is written whatever its tag says.
            FieldType::Message(inner) => message_zero(schema, *inner, depth + 1),
            _ => continue,
        };
        out.insert(field.json_name.to_string(), value);
    }
}

fn message_zero(schema: &Schema, message: MessageId, depth: usize) -> Value {
    match schema[message].special {
        Some(Special::Time | Special::MicroTime | Special::RawJson | Special::Wrapper) => {
            Value::Null
        }
        Some(Special::Quantity) => Value::from("0"),
        Some(Special::IntOrString) => Value::from(0),
        Some(Special::Duration) => Value::from("0s"),
        Some(_) => Value::Null,
        None => {
            let mut out = Map::new();
            if depth < MAX_DEPTH {
                fields(schema, message, &mut out, depth);
            }
            Value::Object(out)
        }
    }
}

fn scalar_zero(scalar: Scalar) -> Value {
    match scalar {
        Scalar::String => Value::from(""),
        Scalar::Bytes => Value::Null,
        Scalar::Bool => Value::from(false),
        Scalar::Float | Scalar::Double => Value::from(0.0),
        _ => Value::from(0),
    }
}
