//! The paths of one resource in an OpenAPI document, with the operations, parameters and
//! extensions (`x-kubernetes-action`, `x-kubernetes-group-version-kind`) kube-apiserver writes.

use serde_json::{Map, Value, json};

use super::Spec;
use super::schemas::{kind_schema, list_schema};
use crate::resource::ResourceDef;
use crate::write_rules;

/// The patch types listed for every resource. kube-apiserver also lists strategic merge for
/// built-in types; the sim leaves it out because its built-in schemas do not carry the merge
/// keys a client needs to compute one, so kubectl falls back to its compiled-in types, which do.
const PATCH_TYPES: [&str; 3] = [
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/apply-patch+yaml",
];

/// Adds `def`'s collection, object and subresource paths.
pub(super) fn add(paths: &mut Map<String, Value>, def: &ResourceDef, spec: Spec) {
    let base = if def.group.is_empty() {
        format!("/api/{}", def.version)
    } else {
        format!("/apis/{}/{}", def.group, def.version)
    };
    let scoped = if def.namespaced {
        format!("{base}/namespaces/{{namespace}}/{}", def.plural)
    } else {
        format!("{base}/{}", def.plural)
    };
    let op = Op { def, spec };
    let mut collection = Map::new();
    collection.insert(
        "get".into(),
        op.make("list", "list", &list_schema(def), false),
    );
    collection.insert(
        "post".into(),
        op.make("create", "post", &kind_schema(def), true),
    );
    if write_rules::serves_delete_collection(def) {
        collection.insert(
            "delete".into(),
            op.make(
                "deletecollection",
                "deletecollection",
                "io.k8s.apimachinery.pkg.apis.meta.v1.Status",
                false,
            ),
        );
    }
    paths.insert(scoped.clone(), op.with_path_parameters(collection, false));
    if def.namespaced {
        let mut all = Map::new();
        all.insert(
            "get".into(),
            op.make("list", "list", &list_schema(def), false),
        );
        paths.insert(
            format!("{base}/{}", def.plural),
            op.with_path_parameters(all, false),
        );
    }
    let object = op.object_operations(&kind_schema(def));
    paths.insert(
        format!("{scoped}/{{name}}"),
        op.with_path_parameters(object, true),
    );
    if write_rules::has_status_subresource(def) {
        let mut status = op.object_operations(&kind_schema(def));
        status.remove("delete");
        paths.insert(
            format!("{scoped}/{{name}}/status"),
            op.with_path_parameters(status, true),
        );
    }
    if def.scale.is_some() {
        let mut scale = op.object_operations("io.k8s.api.autoscaling.v1.Scale");
        scale.remove("delete");
        paths.insert(
            format!("{scoped}/{{name}}/scale"),
            op.with_path_parameters(scale, true),
        );
    }
}

struct Op<'a> {
    def: &'a ResourceDef,
    spec: Spec,
}

impl Op<'_> {
    fn object_operations(&self, schema: &str) -> Map<String, Value> {
        let mut ops = Map::new();
        ops.insert("get".into(), self.make("read", "get", schema, false));
        ops.insert("put".into(), self.make("replace", "put", schema, true));
        ops.insert("patch".into(), self.make("patch", "patch", schema, true));
        ops.insert(
            "delete".into(),
            self.make(
                "delete",
                "delete",
                "io.k8s.apimachinery.pkg.apis.meta.v1.Status",
                false,
            ),
        );
        ops
    }

    /// One operation: `verb` names it, `action` is its `x-kubernetes-action`, `schema` what it
    /// answers (and, for writes, takes).
    fn make(&self, verb: &str, action: &str, schema: &str, write: bool) -> Value {
        let def = self.def;
        let mut parameters = Vec::new();
        if write {
            parameters.push(self.query("dryRun", "string"));
            parameters.push(self.query("fieldManager", "string"));
            parameters.push(self.query("fieldValidation", "string"));
        }
        if action == "patch" {
            parameters.push(self.query("force", "boolean"));
        }
        if matches!(action, "list" | "deletecollection") {
            for name in [
                "continue",
                "fieldSelector",
                "labelSelector",
                "resourceVersion",
                "resourceVersionMatch",
            ] {
                parameters.push(self.query(name, "string"));
            }
            parameters.push(self.query("limit", "integer"));
            parameters.push(self.query("sendInitialEvents", "boolean"));
            parameters.push(self.query("timeoutSeconds", "integer"));
            if action == "list" {
                parameters.push(self.query("allowWatchBookmarks", "boolean"));
                parameters.push(self.query("watch", "boolean"));
            }
        }
        let mut op = json!({
            "description": format!("{verb} {}", def.kind),
            "operationId": format!("{verb}{}{}", camel_group_version(def), def.kind),
            "x-kubernetes-action": action,
            "x-kubernetes-group-version-kind": {"group": def.group, "version": def.version, "kind": def.kind},
        });
        let body_types: Vec<&str> = match action {
            "patch" => PATCH_TYPES.to_vec(),
            "post" | "put" => vec!["*/*"],
            _ => Vec::new(),
        };
        let body_schema = if action == "patch" {
            self.spec
                .reference("io.k8s.apimachinery.pkg.apis.meta.v1.Patch")
        } else {
            self.spec.reference(schema)
        };
        let answer = self.spec.reference(schema);
        match self.spec {
            Spec::V3 => {
                if !body_types.is_empty() {
                    let content: Map<String, Value> = body_types
                        .iter()
                        .map(|t| ((*t).to_owned(), json!({"schema": body_schema})))
                        .collect();
                    op["requestBody"] = json!({"content": content, "required": true});
                }
                op["responses"] = json!({"200": {"description": "OK", "content": {
                    "application/json": {"schema": answer},
                    "application/yaml": {"schema": answer},
                    "application/vnd.kubernetes.protobuf": {"schema": answer},
                }}});
            }
            Spec::V2 => {
                if !body_types.is_empty() {
                    parameters.insert(0, json!({"name": "body", "in": "body", "required": true, "schema": body_schema}));
                    op["consumes"] = json!(body_types);
                }
                op["produces"] = json!([
                    "application/json",
                    "application/yaml",
                    "application/vnd.kubernetes.protobuf"
                ]);
                op["responses"] = json!({"200": {"description": "OK", "schema": answer}});
            }
        }
        // Go leaves an empty list of parameters out (`omitempty`).
        if !parameters.is_empty() {
            op["parameters"] = Value::Array(parameters);
        }
        op
    }

    fn query(&self, name: &str, kind: &str) -> Value {
        match self.spec {
            Spec::V3 => {
                json!({"name": name, "in": "query", "schema": {"type": kind, "uniqueItems": true}})
            }
            Spec::V2 => json!({"name": name, "in": "query", "type": kind, "uniqueItems": true}),
        }
    }

    /// The path's own parameters: its namespace and name, and `pretty`.
    fn with_path_parameters(&self, mut ops: Map<String, Value>, named: bool) -> Value {
        let path = |name: &str| match self.spec {
            Spec::V3 => {
                json!({"name": name, "in": "path", "required": true, "schema": {"type": "string", "uniqueItems": true}})
            }
            Spec::V2 => {
                json!({"name": name, "in": "path", "required": true, "type": "string", "uniqueItems": true})
            }
        };
        let mut parameters = Vec::new();
        if named {
            parameters.push(path("name"));
        }
        if self.def.namespaced {
            parameters.push(path("namespace"));
        }
        parameters.push(self.query("pretty", "string"));
        ops.insert("parameters".into(), Value::Array(parameters));
        Value::Object(ops)
    }
}

/// `AppsV1`, `CoreV1`, `ExampleComV1`: how operation ids name a group version.
fn camel_group_version(def: &ResourceDef) -> String {
    let group = if def.group.is_empty() {
        "core"
    } else {
        def.group.as_str()
    };
    let mut out = String::new();
    for part in group.split(['.', '-']).chain([def.version.as_str()]) {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            out.extend(first.to_uppercase());
            out.push_str(chars.as_str());
        }
    }
    out
}
