//! Checks of the engine: rule by rule against the messages a real kube-apiserver writes, and
//! properties over generated schemas and objects.

mod extension_tests;
mod parse_tests;
mod property_tests;
mod prune_default_tests;
mod robustness_tests;
mod validate_tests;

use serde_json::{Value, json};

use crate::schema::Structural;

/// A root schema with `spec` as given.
fn with_spec(spec: Value) -> Structural {
    let schema = json!({"type": "object", "properties": {"spec": spec}});
    Structural::parse(&schema, "spec.versions[0].schema.openAPIV3Schema")
        .unwrap_or_else(|e| panic!("schema refused: {e:?}"))
}

/// The full messages for an object with `spec` as given.
fn messages(schema: &Structural, spec: Value) -> Vec<String> {
    let obj = json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g1"}, "spec": spec});
    schema
        .validate(&obj)
        .into_iter()
        .map(|e| e.message)
        .collect()
}
