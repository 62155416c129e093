//! `/openapi/v2` as protobuf: the Swagger 2.0 document encoded as gnostic's `openapi.v2.Document`
//! (github.com/google/gnostic-models, `openapiv2/OpenAPIv2.proto`), the message kube-apiserver
//! marshals from its JSON document for a client that asks for
//! `application/com.github.proto-openapi.spec.v2@v1.0+protobuf`. Fields go out in field-number
//! order, as protobuf-go marshals them; maps keep the JSON document's member order.

use kinformer_protobuf::wire::put_bytes;
use serde_json::Value;

use super::gnostic_schema::{named_schemas, primitive, schema};
use super::gnostic_wire::{
    Object, any, extensions, external_docs, flag_of, message, named, object_of, text, text_of,
    texts_of,
};

/// The `openapi.v2.Document` bytes of the Swagger 2.0 document `document`.
pub(super) fn encode(document: &Object) -> Vec<u8> {
    let mut out = Vec::new();
    text_of(&mut out, 1, document, "swagger");
    object_of(&mut out, 2, document, "info", info);
    text_of(&mut out, 3, document, "host");
    text_of(&mut out, 4, document, "basePath");
    texts_of(&mut out, 5, document, "schemes");
    texts_of(&mut out, 6, document, "consumes");
    texts_of(&mut out, 7, document, "produces");
    object_of(&mut out, 8, document, "paths", paths);
    object_of(&mut out, 9, document, "definitions", named_schemas);
    object_of(&mut out, 10, document, "parameters", |m, all| {
        for (name, value) in all.iter().filter_map(as_object) {
            named(m, 1, name, |n| message(n, 2, |p| parameter(p, value)));
        }
    });
    object_of(&mut out, 11, document, "responses", |m, all| {
        for (name, value) in all.iter().filter_map(as_object) {
            named(m, 1, name, |n| message(n, 2, |r| response(r, value)));
        }
    });
    security_requirements(&mut out, 12, document);
    object_of(&mut out, 13, document, "securityDefinitions", |m, all| {
        for (name, value) in all.iter().filter_map(as_object) {
            named(m, 1, name, |n| message(n, 2, |s| security_scheme(s, value)));
        }
    });
    if let Some(Value::Array(tags)) = document.get("tags") {
        for tag in tags.iter().filter_map(Value::as_object) {
            message(&mut out, 14, |m| {
                text_of(m, 1, tag, "name");
                text_of(m, 2, tag, "description");
                object_of(m, 3, tag, "externalDocs", external_docs);
                extensions(m, 4, tag);
            });
        }
    }
    object_of(&mut out, 15, document, "externalDocs", external_docs);
    extensions(&mut out, 16, document);
    out
}

fn as_object<'a>((name, value): (&'a String, &'a Value)) -> Option<(&'a String, &'a Object)> {
    value.as_object().map(|object| (name, object))
}

fn info(out: &mut Vec<u8>, object: &Object) {
    text_of(out, 1, object, "title");
    text_of(out, 2, object, "version");
    text_of(out, 3, object, "description");
    text_of(out, 4, object, "termsOfService");
    object_of(out, 5, object, "contact", |m, contact| {
        text_of(m, 1, contact, "name");
        text_of(m, 2, contact, "url");
        text_of(m, 3, contact, "email");
        extensions(m, 4, contact);
    });
    object_of(out, 6, object, "license", |m, license| {
        text_of(m, 1, license, "name");
        text_of(m, 2, license, "url");
        extensions(m, 3, license);
    });
    extensions(out, 7, object);
}

/// `Paths`: its extensions (1) come before the paths (2), as the field numbers order them.
fn paths(out: &mut Vec<u8>, object: &Object) {
    extensions(out, 1, object);
    for (name, item) in object.iter().filter(|(k, _)| !k.starts_with("x-")) {
        if let Value::Object(item) = item {
            named(out, 2, name, |m| message(m, 2, |p| path_item(p, item)));
        }
    }
}

fn path_item(out: &mut Vec<u8>, object: &Object) {
    text_of(out, 1, object, "$ref");
    for (field, method) in [
        (2, "get"),
        (3, "put"),
        (4, "post"),
        (5, "delete"),
        (6, "options"),
        (7, "head"),
        (8, "patch"),
    ] {
        object_of(out, field, object, method, operation);
    }
    parameters_items(out, 9, object);
    extensions(out, 10, object);
}

fn operation(out: &mut Vec<u8>, object: &Object) {
    texts_of(out, 1, object, "tags");
    text_of(out, 2, object, "summary");
    text_of(out, 3, object, "description");
    object_of(out, 4, object, "externalDocs", external_docs);
    text_of(out, 5, object, "operationId");
    texts_of(out, 6, object, "produces");
    texts_of(out, 7, object, "consumes");
    parameters_items(out, 8, object);
    object_of(out, 9, object, "responses", responses);
    texts_of(out, 10, object, "schemes");
    flag_of(out, 11, object, "deprecated");
    security_requirements(out, 12, object);
    extensions(out, 13, object);
}

/// The `parameters` member as repeated `ParametersItem`: a oneof of a parameter (1) and a
/// reference (2).
fn parameters_items(out: &mut Vec<u8>, field: u32, object: &Object) {
    let Some(Value::Array(list)) = object.get("parameters") else {
        return;
    };
    for item in list.iter().filter_map(Value::as_object) {
        message(out, field, |m| match item.get("$ref") {
            Some(_) => message(m, 2, |r| json_reference(r, item)),
            None => message(m, 1, |p| parameter(p, item)),
        });
    }
}

fn json_reference(out: &mut Vec<u8>, object: &Object) {
    text_of(out, 1, object, "$ref");
    text_of(out, 2, object, "description");
}

/// `Parameter`: a oneof of a body parameter (1) and the others (2), which are themselves a oneof
/// by where they are found: header (1), form data (2), query (3) and path (4).
fn parameter(out: &mut Vec<u8>, object: &Object) {
    let place = object.get("in").and_then(Value::as_str).unwrap_or_default();
    if place == "body" {
        message(out, 1, |m| {
            text_of(m, 1, object, "description");
            text_of(m, 2, object, "name");
            text_of(m, 3, object, "in");
            flag_of(m, 4, object, "required");
            object_of(m, 5, object, "schema", schema);
            extensions(m, 6, object);
        });
        return;
    }
    // Query and form data parameters have `allowEmptyValue` (5) before their type block.
    let (variant, allows_empty) = match place {
        "header" => (1, false),
        "formData" => (2, true),
        "query" => (3, true),
        "path" => (4, false),
        _ => return,
    };
    message(out, 2, |m| {
        message(m, variant, |p| {
            flag_of(p, 1, object, "required");
            text_of(p, 2, object, "in");
            text_of(p, 3, object, "description");
            text_of(p, 4, object, "name");
            let first = if allows_empty {
                flag_of(p, 5, object, "allowEmptyValue");
                6
            } else {
                5
            };
            primitive(p, first, object);
            extensions(p, first + 17, object);
        });
    });
}

/// `Responses`: the codes as repeated `NamedResponseValue` (1), then the extensions (2).
fn responses(out: &mut Vec<u8>, object: &Object) {
    for (code, value) in object.iter().filter(|(k, _)| !k.starts_with("x-")) {
        if let Value::Object(value) = value {
            named(out, 1, code, |m| {
                message(m, 2, |v| match value.get("$ref") {
                    Some(_) => message(v, 2, |r| json_reference(r, value)),
                    None => message(v, 1, |r| response(r, value)),
                });
            });
        }
    }
    extensions(out, 2, object);
}

fn response(out: &mut Vec<u8>, object: &Object) {
    text_of(out, 1, object, "description");
    // `SchemaItem` is a oneof of a schema (1) and a file schema (2).
    object_of(out, 2, object, "schema", |m, inner| {
        if inner.get("type").and_then(Value::as_str) == Some("file") {
            message(m, 2, |f| file_schema(f, inner));
        } else {
            message(m, 1, |s| schema(s, inner));
        }
    });
    object_of(out, 3, object, "headers", |m, headers| {
        for (name, header) in headers.iter().filter_map(as_object) {
            named(m, 1, name, |n| {
                message(n, 2, |h| {
                    primitive(h, 1, header);
                    text_of(h, 18, header, "description");
                    extensions(h, 19, header);
                });
            });
        }
    });
    object_of(out, 4, object, "examples", |m, examples| {
        for (media_type, example) in examples {
            named(m, 1, media_type, |n| any(n, 2, example));
        }
    });
    extensions(out, 5, object);
}

fn file_schema(out: &mut Vec<u8>, object: &Object) {
    text_of(out, 1, object, "format");
    text_of(out, 2, object, "title");
    text_of(out, 3, object, "description");
    if let Some(value) = object.get("default") {
        any(out, 4, value);
    }
    texts_of(out, 5, object, "required");
    text_of(out, 6, object, "type");
    flag_of(out, 7, object, "readOnly");
    object_of(out, 8, object, "externalDocs", external_docs);
    if let Some(value) = object.get("example") {
        any(out, 9, value);
    }
    extensions(out, 10, object);
}

/// Repeated `SecurityRequirement`: each names schemes (as `NamedStringArray`) with their scopes.
fn security_requirements(out: &mut Vec<u8>, field: u32, object: &Object) {
    let Some(Value::Array(list)) = object.get("security") else {
        return;
    };
    for requirement in list.iter().filter_map(Value::as_object) {
        message(out, field, |m| {
            for (scheme, scopes) in requirement {
                named(m, 1, scheme, |n| {
                    message(n, 2, |s| {
                        for scope in scopes.as_array().into_iter().flatten() {
                            if let Some(scope) = scope.as_str() {
                                put_bytes(s, 1, scope.as_bytes());
                            }
                        }
                    });
                });
            }
        });
    }
}

/// `SecurityDefinitionsItem`: a oneof chosen by the scheme's `type` (and an OAuth2 scheme's
/// `flow`), each variant with its own field numbers.
fn security_scheme(out: &mut Vec<u8>, object: &Object) {
    let kind = object
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let flow = object
        .get("flow")
        .and_then(Value::as_str)
        .unwrap_or_default();
    // Each variant's fields after `type` (1), in field order.
    let (variant, fields): (u32, &[&str]) = match (kind, flow) {
        ("basic", _) => (1, &["description"]),
        ("apiKey", _) => (2, &["name", "in", "description"]),
        ("oauth2", "implicit") => (3, &["flow", "scopes", "authorizationUrl", "description"]),
        ("oauth2", "password") => (4, &["flow", "scopes", "tokenUrl", "description"]),
        ("oauth2", "application") => (5, &["flow", "scopes", "tokenUrl", "description"]),
        ("oauth2", "accessCode") => (
            6,
            &[
                "flow",
                "scopes",
                "authorizationUrl",
                "tokenUrl",
                "description",
            ],
        ),
        _ => return,
    };
    message(out, variant, |m| {
        text(m, 1, kind);
        let mut number = 2;
        for key in fields {
            if *key == "scopes" {
                object_of(m, number, object, key, |s, scopes| {
                    for (name, value) in scopes {
                        named(s, 1, name, |n| {
                            text(n, 2, value.as_str().unwrap_or_default())
                        });
                    }
                });
            } else {
                text_of(m, number, object, key);
            }
            number += 1;
        }
        extensions(m, number, object);
    });
}
