//! The schemas of an OpenAPI document: the `meta.k8s.io` types every document refers to, and
//! each resource's kind and list. A custom resource's is its CRD's `openAPIV3Schema` with
//! `apiVersion`, `kind` and `metadata` declared as kube-apiserver publishes it; a built-in
//! type's is generated from the protobuf schema of its Go type.

use kinformer_protobuf::{MessageId, Schema};
use serde_json::{Map, Value, json};

use super::Spec;
use crate::resource::ResourceDef;

const OBJECT_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
const LIST_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta";

/// The schema name of `def`'s kind: `io.k8s.api.apps.v1.Deployment`, `com.example.v1.Gadget`.
pub(super) fn kind_schema(def: &ResourceDef) -> String {
    match message(def) {
        Some(id) => super::builtin::openapi_name(&Schema::kubernetes()[id].name),
        None => format!("{}.{}", prefix(def), def.kind),
    }
}

/// The protobuf message of a built-in `def`.
fn message(def: &ResourceDef) -> Option<MessageId> {
    if !def.builtin {
        return None;
    }
    Schema::kubernetes()
        .message_for(&def.api_version(), &def.kind)
        .ok()
}

/// The schema name of `def`'s list kind.
pub(super) fn list_schema(def: &ResourceDef) -> String {
    format!("{}.{}List", prefix(def), def.kind)
}

fn prefix(def: &ResourceDef) -> String {
    if !def.builtin {
        let mut parts: Vec<&str> = def.group.split('.').collect();
        parts.reverse();
        return format!("{}.{}", parts.join("."), def.version);
    }
    match def.group.as_str() {
        "" => format!("io.k8s.api.core.{}", def.version),
        "apiextensions.k8s.io" => {
            format!(
                "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.{}",
                def.version
            )
        }
        group => {
            let short = group.strip_suffix(".k8s.io").unwrap_or(group);
            format!("io.k8s.api.{short}.{}", def.version)
        }
    }
}

/// The `meta.k8s.io` (and `autoscaling/v1` Scale) schemas the operations refer to.
pub(super) fn meta() -> Map<String, Value> {
    let mut out = Map::new();
    let schema = Schema::kubernetes();
    for name in [
        "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta",
        "k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta",
        "k8s.io.apimachinery.pkg.apis.meta.v1.Status",
        "k8s.io.api.autoscaling.v1.Scale",
    ] {
        if let Ok(id) = schema.message(name) {
            super::builtin::add(&mut out, id);
        }
    }
    out.insert(
        "io.k8s.apimachinery.pkg.apis.meta.v1.Patch".into(),
        json!({"description": "Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.", "type": "object"}),
    );
    out
}

/// A member's reference to the schema `name`: OpenAPI 3 wraps it in `allOf` (so that a
/// description may stand beside it), Swagger 2.0 does not. Both name `components` here;
/// [`v2_refs`] points a Swagger document's at its `definitions`.
fn reference(name: &str, spec: Spec) -> Value {
    match spec {
        Spec::V3 => json!({"allOf": [{"$ref": format!("#/components/schemas/{name}")}]}),
        Spec::V2 => json!({"$ref": format!("#/components/schemas/{name}")}),
    }
}

/// Adds `def`'s kind and list schemas, in `spec`'s form.
pub(super) fn add(schemas: &mut Map<String, Value>, def: &ResourceDef, spec: Spec) {
    let gvk = |kind: String| json!([{"group": def.group, "kind": kind, "version": def.version}]);
    let generated = message(def).map(|id| super::builtin::add(schemas, id));
    let mut kind = match (def.openapi.as_deref(), generated) {
        (Some(Value::Object(declared)), _) => {
            let mut declared = declared.clone();
            if spec == Spec::V2 {
                super::v2_schema::to_v2(&mut declared);
            }
            declared
        }
        (None, Some(name)) => match schemas.get(&name) {
            Some(Value::Object(schema)) => schema.clone(),
            _ => Map::new(),
        },
        _ => Map::new(),
    };
    kind.insert("type".into(), json!("object"));
    let properties = kind.entry("properties").or_insert_with(|| json!({}));
    if let Value::Object(properties) = properties {
        properties.insert(
            "apiVersion".into(),
            json!({"description": "APIVersion defines the versioned schema of this representation of an object.", "type": "string"}),
        );
        properties.insert(
            "kind".into(),
            json!({"description": "Kind is a string value representing the REST resource this object represents.", "type": "string"}),
        );
        properties.insert("metadata".into(), reference(OBJECT_META, spec));
    }
    kind.insert(
        "x-kubernetes-group-version-kind".into(),
        gvk(def.kind.clone()),
    );
    schemas.insert(kind_schema(def), Value::Object(kind));
    schemas.insert(
        list_schema(def),
        json!({
            "type": "object",
            "required": ["items"],
            "properties": {
                "apiVersion": {"type": "string"},
                "kind": {"type": "string"},
                "items": {"type": "array", "items": reference(&kind_schema(def), spec)},
                "metadata": reference(LIST_META, spec),
            },
            "x-kubernetes-group-version-kind": gvk(format!("{}List", def.kind)),
        }),
    );
}

/// `schemas` with their references pointed at Swagger 2.0's `definitions`.
pub(super) fn v2_refs(schemas: Value) -> Value {
    match schemas {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| {
                    let v = match (k.as_str(), v) {
                        ("$ref", Value::String(r)) => {
                            Value::String(r.replace("#/components/schemas/", "#/definitions/"))
                        }
                        (_, other) => v2_refs(other),
                    };
                    (k, v)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(v2_refs).collect()),
        other => other,
    }
}
