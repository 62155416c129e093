//! `/openapi/v3` and `/openapi/v2`: the documents kubectl reads to decide how to validate and
//! patch (`apply`'s default validation asks whether a resource's PATCH takes
//! `fieldValidation`, and then lets the server validate) and to `explain` a resource. Each
//! group version's paths are generated from what the registry serves, custom resources
//! included once their CRD is established; a custom resource's schema is its CRD's.
//! `/openapi/v2` is also served as gnostic's protobuf `openapi.v2.Document`, which kubectl and
//! client-go ask for; every document carries the validators and caching headers
//! kube-apiserver's OpenAPI handlers write.

mod answer;
mod builtin;
pub(crate) mod conditional;
mod gnostic_document;
mod gnostic_schema;
mod gnostic_wire;
mod negotiate;
mod paths;
mod schemas;
mod sha512;
mod v2_schema;
mod yaml;

use bytes::Bytes;
use http::{Request, Response};
use serde_json::{Map, Value, json};

use crate::body::SimBody;
use crate::resource::{Registry, ResourceDef};
use crate::shared::Shared;
use crate::status::ApiError;

/// The answer to `req` when its path is an OpenAPI path, else `None`.
pub(super) fn serve(
    shared: &Shared,
    req: &Request<Bytes>,
) -> Option<Result<Response<SimBody>, ApiError>> {
    let path = req.uri().path().trim_end_matches('/');
    let (method, headers) = (req.method(), req.headers());
    let registry = shared.registry();
    match path {
        "/openapi/v3" => Some(Ok(answer::v3_root(
            shared,
            method,
            headers,
            &root(&registry),
        ))),
        "/openapi/v2" => Some(Ok(answer::v2(shared, method, headers, &v2(&registry)))),
        _ => {
            let gv = path.strip_prefix("/openapi/v3/")?;
            Some(
                group_version(&registry, gv)
                    .map(|doc| {
                        answer::v3_group_version(
                            shared,
                            method,
                            headers,
                            req.uri().query(),
                            (gv, &doc),
                        )
                    })
                    .ok_or_else(ApiError::page_not_found),
            )
        }
    }
}

/// The group versions served, as their `/openapi/v3` path names them (`api/v1`,
/// `apis/apps/v1`), each with its resources.
fn group_versions(registry: &Registry) -> Vec<(String, Vec<&ResourceDef>)> {
    let mut out: Vec<(String, Vec<&ResourceDef>)> = Vec::new();
    for def in registry.all() {
        let key = if def.group.is_empty() {
            format!("api/{}", def.version)
        } else {
            format!("apis/{}/{}", def.group, def.version)
        };
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some((_, defs)) => defs.push(def),
            None => out.push((key, vec![def])),
        }
    }
    out
}

/// `/openapi/v3`: every group version's document, by a path that names its content's hash, the
/// same SHA-512 that is its ETag (a client caches what it fetched by that path for as long as the
/// hash holds).
fn root(registry: &Registry) -> Value {
    let mut paths = Map::new();
    for (gv, defs) in group_versions(registry) {
        let etag = sha512::hex_digest(document(&defs).to_string().as_bytes());
        paths.insert(
            gv.clone(),
            json!({"serverRelativeURL": versioned_url(&gv, &etag)}),
        );
    }
    json!({ "paths": paths })
}

/// The URL of the group version `gv`'s document whose ETag is `etag`.
fn versioned_url(gv: &str, etag: &str) -> String {
    format!("/openapi/v3/{gv}?hash={etag}")
}

fn group_version(registry: &Registry, gv: &str) -> Option<Value> {
    group_versions(registry)
        .into_iter()
        .find(|(key, _)| key == gv)
        .map(|(_, defs)| document(&defs))
}

/// One group version's OpenAPI 3 document.
fn document(defs: &[&ResourceDef]) -> Value {
    let mut paths = Map::new();
    let mut components = schemas::meta();
    for def in defs {
        paths::add(&mut paths, def, Spec::V3);
        schemas::add(&mut components, def, Spec::V3);
    }
    json!({
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": "v1.36.0"},
        "paths": paths,
        "components": {"schemas": components},
    })
}

/// `/openapi/v2` in JSON (Swagger 2.0): the same paths and definitions, in v2's places.
fn v2(registry: &Registry) -> Value {
    let mut paths = Map::new();
    let mut definitions = schemas::meta();
    for def in registry.all() {
        paths::add(&mut paths, def, Spec::V2);
        schemas::add(&mut definitions, def, Spec::V2);
    }
    json!({
        "swagger": "2.0",
        "info": {"title": "Kubernetes", "version": "v1.36.0"},
        "paths": paths,
        "definitions": schemas::v2_refs(Value::Object(definitions)),
        // kube-apiserver's generic OpenAPI config: a bearer token in the Authorization header.
        "securityDefinitions": {"BearerToken": {
            "description": "Bearer Token authentication",
            "type": "apiKey",
            "name": "authorization",
            "in": "header",
        }},
        "security": [{"BearerToken": []}],
    })
}

/// Which OpenAPI a document is written in: their parameters, bodies and references differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Spec {
    V2,
    V3,
}

impl Spec {
    /// A reference to the schema `name`.
    fn reference(self, name: &str) -> Value {
        match self {
            Self::V2 => json!({"$ref": format!("#/definitions/{name}")}),
            Self::V3 => json!({"$ref": format!("#/components/schemas/{name}")}),
        }
    }
}
