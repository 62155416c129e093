//! The fields a built-in type declares, from the protobuf schema of Kubernetes' Go types: a
//! built-in object is decoded into its Go struct, so a field the struct does not declare is
//! dropped, and with `fieldValidation=Strict` refused. Paths are written as kube-apiserver's
//! strict decoder writes them (`spec.template.spec.containers[0].bogus`).

use kinformer_protobuf::{FieldType, MessageId, Schema, Special};
use serde_json::{Map, Value};

use crate::resource::ResourceDef;

/// Nesting deeper than this is left unchecked: no built-in type nests so deep, and it bounds
/// the recursion whatever a client sends.
const MAX_DEPTH: usize = 64;

/// Removes from `obj` (an object of built-in `def`) every field its type does not declare;
/// returns their paths. `apiVersion` and `kind` are always known at the root.
pub(crate) fn prune(def: &ResourceDef, obj: &mut Map<String, Value>) -> Vec<String> {
    let schema = Schema::kubernetes();
    let Ok(message) = schema.message_for(&def.api_version(), &def.kind) else {
        return Vec::new();
    };
    let mut unknown = Vec::new();
    let mut walker = Walker {
        schema,
        unknown: &mut unknown,
    };
    walker.object(message, obj, "", 0, true);
    unknown
}

struct Walker<'a> {
    schema: &'static Schema,
    unknown: &'a mut Vec<String>,
}

impl Walker<'_> {
    fn object(
        &mut self,
        message: MessageId,
        obj: &mut Map<String, Value>,
        path: &str,
        depth: usize,
        root: bool,
    ) {
        let schema = self.schema;
        let mut gone = Vec::new();
        for (key, value) in obj.iter_mut() {
            if root && matches!(key.as_str(), "apiVersion" | "kind") {
                continue;
            }
            let at = if path.is_empty() {
                key.clone()
            } else {
                format!("{path}.{key}")
            };
            // In the document's order, as the decoder meets them.
            match find(schema, message, key) {
                Some((ty, repeated)) => self.value(ty, repeated, value, &at, depth + 1),
                None => {
                    self.unknown.push(at);
                    gone.push(key.clone());
                }
            }
        }
        for key in gone {
            obj.remove(&key);
        }
    }

    fn value(
        &mut self,
        ty: &FieldType,
        repeated: bool,
        value: &mut Value,
        path: &str,
        depth: usize,
    ) {
        if depth > MAX_DEPTH {
            return;
        }
        match (repeated, value) {
            (true, Value::Array(items)) => {
                for (i, item) in items.iter_mut().enumerate() {
                    self.value(ty, false, item, &format!("{path}[{i}]"), depth + 1);
                }
            }
            (true, _) => {}
            (false, value) => match ty {
                FieldType::Scalar(_) => {}
                FieldType::Map(_, inner) => {
                    if let Value::Object(entries) = value {
                        for (key, entry) in entries.iter_mut() {
                            self.value(inner, false, entry, &format!("{path}[{key}]"), depth + 1);
                        }
                    }
                }
                FieldType::Message(id) => self.message(*id, value, path, depth),
                // A kind of field this schema version does not have: nothing to look into.
                _ => {}
            },
        }
    }

    fn message(&mut self, id: MessageId, value: &mut Value, path: &str, depth: usize) {
        let schema = self.schema;
        match schema[id].special {
            None => {
                if let Value::Object(obj) = value {
                    self.object(id, obj, path, depth, false);
                }
            }
            // The JSON Schema of a CRD: each form holds JSONSchemaProps somewhere.
            Some(Special::SchemaOrArray | Special::SchemaOrBool | Special::SchemaOrStringArray) => {
                let Some(props) = schema
                    .message(
                        "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps",
                    )
                    .ok()
                else {
                    return;
                };
                match value {
                    Value::Object(obj) => self.object(props, obj, path, depth, false),
                    Value::Array(items) => {
                        for (i, item) in items.iter_mut().enumerate() {
                            if let Value::Object(obj) = item {
                                self.object(props, obj, &format!("{path}[{i}]"), depth + 1, false);
                            }
                        }
                    }
                    _ => {}
                }
            }
            Some(Special::Wrapper) => {
                if let Some(field) = schema[id].fields.first() {
                    self.value(&field.ty, true, value, path, depth);
                }
            }
            // Scalars in JSON (times, quantities, int-or-string) or any JSON (raw extensions).
            Some(_) => {}
        }
    }
}

/// The type of `message`'s field `key`, looking into inlined structs as Go's JSON does.
fn find<'s>(schema: &'s Schema, message: MessageId, key: &str) -> Option<(&'s FieldType, bool)> {
    let fields = &schema[message].fields;
    if let Some(field) = fields.iter().find(|f| !f.inline && &*f.json_name == key) {
        return Some((&field.ty, field.repeated));
    }
    fields.iter().filter(|f| f.inline).find_map(|f| match f.ty {
        FieldType::Message(inner) => find(schema, inner, key),
        _ => None,
    })
}
