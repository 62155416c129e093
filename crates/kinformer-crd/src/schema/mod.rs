//! Rust types to Kubernetes structural schemas: schemars writes a type's JSON Schema with every
//! subschema inlined, and [`rewrite`] makes it one the API server accepts.

mod rewrite;
mod variants;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::JSONSchemaProps;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

use crate::error::{Error, Result};

/// The structural schema of `T`, as a CustomResourceDefinition version's `openAPIV3Schema`
/// holds it (the [`CustomResource`](crate::CustomResource) derive puts its spec's and status's
/// under `spec` and `status`).
///
/// From the schema `#[derive(JsonSchema)]` writes: every subschema inlined, `Option<T>` not
/// required and `nullable`, an enum of unit variants `type: string` with `enum`, a map
/// `additionalProperties`, `serde_json::Value` `x-kubernetes-preserve-unknown-fields`, defaults
/// and schemars' validation attributes (`range`, `length`, `regex`) as OpenAPI's `default`,
/// `minimum`/`maximum`, `minLength`/`maxLength` (`minItems`/`maxItems` on lists) and `pattern`.
///
/// # Errors
/// [`Error::Unsupported`] names the field a structural schema cannot describe: a recursive
/// type, a value of several types, an enum mixing unit and data variants, a type without one.
///
/// # Examples
/// ```
/// use kinformer_crd::structural_schema;
/// use schemars::JsonSchema;
/// use serde_json::json;
///
/// #[derive(JsonSchema, serde::Serialize)]
/// struct Backup {
///     #[schemars(range(min = 1, max = 30))]
///     keep_days: u8,
///     bucket: Option<String>,
/// }
///
/// let schema = serde_json::to_value(structural_schema::<Backup>()?)?;
/// assert_eq!(schema["required"], json!(["keep_days"]));
/// assert_eq!(schema["properties"]["keep_days"]["maximum"], json!(30.0));
/// assert_eq!(schema["properties"]["bucket"], json!({"type": "string", "nullable": true}));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn structural_schema<T: JsonSchema>() -> Result<JSONSchemaProps> {
    serde_json::from_value(structural_value::<T>("")?).map_err(Error::Convert)
}

/// `T`'s schema rewritten, as JSON; errors name fields under `path` (`.spec`).
pub(crate) fn structural_value<T: JsonSchema>(path: &str) -> Result<Value> {
    let mut schema = SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    if let Value::Object(root) = &mut schema {
        // The Rust type's name, which says nothing to a reader of the CRD.
        root.remove("title");
    }
    rewrite::rewrite(&mut schema, path)?;
    check_types(&schema, path)?;
    Ok(schema)
}

/// The schema of a whole custom resource: `apiVersion`, `kind`, `metadata` (only `type:
/// object`: the API server validates metadata itself), the required `spec`, and `status` when
/// the resource has one.
pub(crate) fn resource_schema(
    description: Option<&str>,
    spec: Value,
    status: Option<Value>,
) -> Value {
    let mut properties = Map::new();
    properties.insert(
        "apiVersion".to_owned(),
        json!({"type": "string", "description": "The versioned schema of this representation of an object."}),
    );
    properties.insert(
        "kind".to_owned(),
        json!({"type": "string", "description": "The REST resource this object represents."}),
    );
    properties.insert("metadata".to_owned(), json!({"type": "object"}));
    properties.insert("spec".to_owned(), spec);
    if let Some(mut status) = status {
        if let Value::Object(status) = &mut status {
            status.insert("nullable".to_owned(), Value::Bool(true));
        }
        properties.insert("status".to_owned(), status);
    }
    let mut root = json!({
        "type": "object",
        "properties": properties,
        "required": ["spec"],
    });
    if let (Some(description), Value::Object(root)) = (description, &mut root) {
        root.insert("description".to_owned(), Value::from(description));
    }
    root
}

/// Every node a value can reach has a type (inside `anyOf`/`oneOf`/`allOf` only constraints
/// remain, which need none).
fn check_types(schema: &Value, path: &str) -> Result<()> {
    if !rewrite::has_type(schema) {
        return Err(Error::unsupported(
            path,
            "a value without a type (a unit struct, `()`, or a type whose schema says nothing)",
        ));
    }
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (name, property) in properties {
            check_types(property, &format!("{path}.{name}"))?;
        }
    }
    if let Some(items) = schema.get("items") {
        check_types(items, &format!("{path}[*]"))?;
    }
    if let Some(additional) = schema.get("additionalProperties").filter(|a| a.is_object()) {
        check_types(additional, &format!("{path}.*"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
