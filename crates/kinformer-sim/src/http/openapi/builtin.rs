//! The schemas of built-in types, generated from the protobuf schema of Kubernetes' Go types:
//! every field by its JSON name and type (lists, maps, the types with their own JSON forms), with
//! the messages a kind refers to added beside it. They carry no descriptions.

use kinformer_protobuf::{FieldType, MessageId, Scalar, Schema, Special};
use serde_json::{Map, Value, json};

/// The OpenAPI name of a protobuf message: `k8s.io.api.core.v1.Pod` is `io.k8s.api.core.v1.Pod`,
/// `k8s.io.apiextensions_apiserver...` is `io.k8s.apiextensions-apiserver...`.
pub(super) fn openapi_name(message: &str) -> String {
    let rest = message.strip_prefix("k8s.io.").unwrap_or(message);
    format!("io.k8s.{}", rest.replace('_', "-"))
}

/// Adds the schema of `message` and of every message it refers to, under their OpenAPI names;
/// returns `message`'s name.
pub(super) fn add(schemas: &mut Map<String, Value>, message: MessageId) -> String {
    let schema = Schema::kubernetes();
    let name = openapi_name(&schema[message].name);
    let mut pending = vec![message];
    while let Some(id) = pending.pop() {
        let key = openapi_name(&schema[id].name);
        if schemas.contains_key(&key) {
            continue;
        }
        let mut properties = Map::new();
        fields(schema, id, &mut properties, &mut pending, 0);
        schemas.insert(key, json!({"type": "object", "properties": properties}));
    }
    name
}

/// Nesting of inlined structs deeper than this is not followed; none nests so deep.
const MAX_INLINE: usize = 8;

fn fields(
    schema: &Schema,
    id: MessageId,
    properties: &mut Map<String, Value>,
    pending: &mut Vec<MessageId>,
    depth: usize,
) {
    for field in &schema[id].fields {
        if field.inline {
            if let FieldType::Message(inner) = field.ty
                && depth < MAX_INLINE
            {
                fields(schema, inner, properties, pending, depth + 1);
            }
            continue;
        }
        let one = of_type(schema, &field.ty, pending);
        let value = if field.repeated {
            json!({"type": "array", "items": one})
        } else {
            one
        };
        properties.insert(field.json_name.to_string(), value);
    }
}

fn of_type(schema: &Schema, ty: &FieldType, pending: &mut Vec<MessageId>) -> Value {
    match ty {
        FieldType::Scalar(scalar) => scalar_schema(*scalar),
        FieldType::Map(_, value) => {
            json!({"type": "object", "additionalProperties": of_type(schema, value, pending)})
        }
        FieldType::Message(id) => match schema[*id].special {
            None => {
                pending.push(*id);
                json!({"$ref": format!("#/components/schemas/{}", openapi_name(&schema[*id].name))})
            }
            Some(Special::Time | Special::MicroTime) => {
                json!({"type": "string", "format": "date-time"})
            }
            Some(Special::Duration | Special::Quantity) => json!({"type": "string"}),
            Some(Special::IntOrString) => json!({"type": "string", "format": "int-or-string"}),
            Some(Special::Wrapper) => match schema[*id].fields.first() {
                Some(item) => json!({"type": "array", "items": of_type(schema, &item.ty, pending)}),
                None => json!({"type": "array"}),
            },
            Some(_) => json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}),
        },
        _ => json!({}),
    }
}

fn scalar_schema(scalar: Scalar) -> Value {
    match scalar {
        Scalar::String => json!({"type": "string"}),
        Scalar::Bytes => json!({"type": "string", "format": "byte"}),
        Scalar::Bool => json!({"type": "boolean"}),
        Scalar::Float | Scalar::Double => json!({"type": "number", "format": "double"}),
        Scalar::Int32 | Scalar::SInt32 | Scalar::SFixed32 | Scalar::UInt32 | Scalar::Fixed32 => {
            json!({"type": "integer", "format": "int32"})
        }
        _ => json!({"type": "integer", "format": "int64"}),
    }
}
