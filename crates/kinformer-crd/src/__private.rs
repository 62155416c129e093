//! What the code `#[derive(CustomResource)]` writes calls: not a public interface, and not
//! covered by semantic versioning.
//!
//! The generated code reaches serde and k8s-openapi through here, so that it builds against
//! the versions this crate was built with whatever its user's crate names them.

pub use k8s_openapi;
pub use kinformer_core;
pub use serde;
pub use std;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::JSONSchemaProps;
use schemars::JsonSchema;
use serde_json::Value;

use crate::error::Result;
use crate::schema::{resource_schema, structural_value};

/// `T`'s structural schema as JSON, its errors naming fields under `path` (`.spec`).
pub fn schema_of<T: JsonSchema>(path: &str) -> Result<Value> {
    structural_value::<T>(path)
}

/// The whole resource's schema for `crd()`.
///
/// # Panics
/// When a part's schema could not be made structural: `crd()` documents it.
pub fn crd_schema(
    kind: &str,
    description: Option<&str>,
    spec: Result<Value>,
    status: Option<Result<Value>>,
) -> JSONSchemaProps {
    let built = spec.and_then(|spec| {
        let status = status.transpose()?;
        let root = resource_schema(description, spec, status);
        serde_json::from_value(root).map_err(crate::Error::Convert)
    });
    match built {
        Ok(schema) => schema,
        Err(err) => panic!("the CRD schema of {kind} cannot be derived: {err}"),
    }
}

/// A custom resource's `apiVersion` or `kind` as read, checked against the type's: absent is
/// accepted (an object built by hand), another value is an error, as for k8s-openapi's types.
///
/// # Errors
/// `field` has a value other than `expected`.
pub fn check_type_field<E: serde::de::Error>(
    field: &'static str,
    found: Option<&str>,
    expected: &'static str,
) -> Result<(), E> {
    match found {
        Some(found) if found != expected => Err(E::invalid_value(
            serde::de::Unexpected::Str(found),
            &expected,
        )),
        _ => Ok(()),
    }
    .map_err(|err: E| E::custom(format_args!("{field}: {err}")))
}
