//! Reads an `openAPIV3Schema` JSON value into [`Node`]s. Keywords kube-apiserver refuses in a
//! CRD schema (`$ref`, `patternProperties`, ...) and keywords of the wrong JSON type become
//! field errors at their path; the rest of the checks are in `structural_check`.

use serde_json::{Map, Value};

use super::field_error::FieldError;
use super::go_text;
use super::node::{Additional, Checks, Node};
use super::pattern;

/// How deep schemas may nest (counting every node on the way down). Every walk of a schema
/// or of an object along a schema recurses at most this deep, so no input can overflow the
/// stack; real CRD schemas stay far below it.
pub(super) const MAX_DEPTH: usize = 64;

/// Keywords a CRD schema must not use, with kube-apiserver's reason.
const UNSUPPORTED: [(&str, &str); 6] = [
    ("id", "id is not supported"),
    ("additionalItems", "additionalItems is not supported"),
    ("patternProperties", "patternProperties is not supported"),
    ("definitions", "definitions is not supported"),
    ("dependencies", "dependencies is not supported"),
    ("$ref", "$ref is not supported"),
];

/// The string formats kube-apiserver 1.36 validates (normalized without dashes, as
/// go-openapi's registry names them); any other format on a string is dropped unchecked.
const STRING_FORMATS: [&str; 26] = [
    "bsonobjectid",
    "uri",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "cidr",
    "mac",
    "uuid",
    "uuid3",
    "uuid4",
    "uuid5",
    "isbn",
    "isbn10",
    "isbn13",
    "creditcard",
    "ssn",
    "hexcolor",
    "rgbcolor",
    "byte",
    "password",
    "date",
    "duration",
    "datetime",
    "k8sshortname",
    "k8slongname",
];

/// Reads one schema node at `path`, `depth` levels below the root.
pub(super) fn node(schema: &Value, path: &str, depth: usize, errors: &mut Vec<FieldError>) -> Node {
    if depth > MAX_DEPTH {
        errors.push(FieldError::forbidden(
            path,
            &format!("must not be nested more than {MAX_DEPTH} levels deep"),
        ));
        // Read no further; preserving keeps the cut-off node from adding errors of its own.
        return Node {
            preserve_unknown: true,
            ..Node::default()
        };
    }
    let Some(map) = schema.as_object() else {
        errors.push(FieldError::invalid(
            path,
            &go_text::bad_value(schema),
            "must be an object",
        ));
        return Node::default();
    };
    let mut reader = Reader { map, path, errors };
    for (key, reason) in UNSUPPORTED {
        if map.contains_key(key) {
            reader
                .errors
                .push(FieldError::forbidden(&format!("{path}.{key}"), reason));
        }
    }
    let ty = reader.string("type").unwrap_or_default();
    let int_or_string = reader.bool("x-kubernetes-int-or-string");
    let format = strip_format(
        &reader.string("format").unwrap_or_default(),
        &ty,
        int_or_string,
    );
    if map.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(false)) {
        reader.errors.push(FieldError::invalid(
            &format!("{path}.x-kubernetes-preserve-unknown-fields"),
            "false",
            "must be true or undefined",
        ));
    }
    let checks = reader.checks(depth);
    Node {
        nullable: reader.bool("nullable"),
        default: map.get("default").cloned(),
        properties: reader.properties(depth),
        additional: reader.additional(depth),
        items: reader.items(depth),
        preserve_unknown: reader.bool("x-kubernetes-preserve-unknown-fields"),
        embedded: reader.bool("x-kubernetes-embedded-resource"),
        list_type: reader.string("x-kubernetes-list-type"),
        list_map_keys: reader.strings("x-kubernetes-list-map-keys"),
        map_type: reader.string("x-kubernetes-map-type"),
        has_title: reader.string("title").is_some_and(|t| !t.is_empty()),
        has_description: reader.string("description").is_some_and(|d| !d.is_empty()),
        has_x_validations: map
            .get("x-kubernetes-validations")
            .and_then(Value::as_array)
            .is_some_and(|rules| !rules.is_empty()),
        ty,
        int_or_string,
        format,
        checks,
    }
}

/// The format kube-apiserver keeps for validation: integer formats on integers, float formats
/// on numbers, the registry's string formats on strings (and on untyped or int-or-string
/// nodes); anything else is dropped, as `StripUnsupportedFormatsPostProcessor` does.
fn strip_format(format: &str, ty: &str, int_or_string: bool) -> String {
    let ty = if int_or_string { "" } else { ty };
    let kept = match ty {
        "" | "string" => STRING_FORMATS.contains(&format.replace('-', "").as_str()),
        "integer" => matches!(format, "int32" | "int64"),
        "number" => matches!(format, "float" | "double"),
        _ => false,
    };
    if kept {
        format.to_owned()
    } else {
        String::new()
    }
}

/// Reads the keywords of one schema object, reporting the ones of the wrong JSON type.
struct Reader<'a> {
    map: &'a Map<String, Value>,
    path: &'a str,
    errors: &'a mut Vec<FieldError>,
}

impl<'a> Reader<'a> {
    fn wrong(&mut self, key: &str, value: &Value, expected: &str) {
        self.errors.push(FieldError::invalid(
            &format!("{}.{key}", self.path),
            &go_text::bad_value(value),
            &format!("must be {expected}"),
        ));
    }

    /// The keyword's value, `None` when absent or null (as Go decodes a null into a pointer).
    fn get(&self, key: &str) -> Option<&'a Value> {
        let map: &'a Map<String, Value> = self.map;
        map.get(key).filter(|v| !v.is_null())
    }

    fn string(&mut self, key: &str) -> Option<String> {
        let value = self.get(key)?;
        match value.as_str() {
            Some(text) => Some(text.to_owned()),
            None => {
                self.wrong(key, value, "a string");
                None
            }
        }
    }

    fn bool(&mut self, key: &str) -> bool {
        let Some(value) = self.get(key) else {
            return false;
        };
        match value.as_bool() {
            Some(b) => b,
            None => {
                self.wrong(key, value, "a boolean");
                false
            }
        }
    }

    fn number(&mut self, key: &str) -> Option<f64> {
        let value = self.get(key)?;
        match value.as_f64() {
            Some(n) => Some(n),
            None => {
                self.wrong(key, value, "a number");
                None
            }
        }
    }

    /// A length or count limit: an int64 as the Go type holds it.
    fn count(&mut self, key: &str) -> Option<i64> {
        let value = self.get(key)?;
        match value.as_i64() {
            Some(n) => Some(n),
            None => {
                self.wrong(key, value, "an integer");
                None
            }
        }
    }

    fn strings(&mut self, key: &str) -> Vec<String> {
        let Some(value) = self.get(key) else {
            return Vec::new();
        };
        match value.as_array().and_then(|items| {
            items
                .iter()
                .map(|i| i.as_str().map(str::to_owned))
                .collect()
        }) {
            Some(list) => list,
            None => {
                self.wrong(key, value, "a list of strings");
                Vec::new()
            }
        }
    }

    fn child(&mut self, value: &Value, path: &str, depth: usize) -> Node {
        node(value, path, depth + 1, self.errors)
    }

    fn schemas(&mut self, key: &str, depth: usize) -> Vec<Node> {
        let Some(value) = self.get(key) else {
            return Vec::new();
        };
        let Some(items) = value.as_array() else {
            self.wrong(key, value, "a list of schemas");
            return Vec::new();
        };
        let path = self.path;
        items
            .iter()
            .enumerate()
            .map(|(i, item)| self.child(item, &format!("{path}.{key}[{i}]"), depth))
            .collect()
    }

    fn properties(&mut self, depth: usize) -> Vec<(String, Node)> {
        let Some(value) = self.get("properties") else {
            return Vec::new();
        };
        let Some(props) = value.as_object() else {
            self.wrong("properties", value, "an object");
            return Vec::new();
        };
        let path = self.path;
        props
            .iter()
            .map(|(name, schema)| {
                let node = self.child(schema, &format!("{path}.properties[{name}]"), depth);
                (name.clone(), node)
            })
            .collect()
    }

    fn additional(&mut self, depth: usize) -> Option<Additional> {
        match self.get("additionalProperties")? {
            Value::Bool(allows) => Some(Additional::Allows(*allows)),
            schema => {
                let path = format!("{}.additionalProperties", self.path);
                Some(Additional::Schema(Box::new(
                    self.child(schema, &path, depth),
                )))
            }
        }
    }

    fn items(&mut self, depth: usize) -> Option<Box<Node>> {
        let value = self.get("items")?;
        if value.is_array() {
            self.errors.push(FieldError::forbidden(
                &format!("{}.items", self.path),
                "items must be a schema object and not an array",
            ));
            return None;
        }
        let path = format!("{}.items", self.path);
        Some(Box::new(self.child(value, &path, depth)))
    }

    fn checks(&mut self, depth: usize) -> Checks {
        let enumeration = match self.get("enum") {
            None => None,
            Some(Value::Array(values)) => Some(values.clone()),
            Some(other) => {
                self.wrong("enum", other, "a list");
                None
            }
        };
        let pattern = self.string("pattern").filter(|p| !p.is_empty()).map(|p| {
            let compiled = pattern::compile(&p).ok();
            (p, compiled)
        });
        let not = self.get("not").map(|schema| {
            let path = format!("{}.not", self.path);
            Box::new(self.child(schema, &path, depth))
        });
        Checks {
            enumeration,
            maximum: self.number("maximum"),
            exclusive_maximum: self.bool("exclusiveMaximum"),
            minimum: self.number("minimum"),
            exclusive_minimum: self.bool("exclusiveMinimum"),
            multiple_of: self.number("multipleOf"),
            max_length: self.count("maxLength"),
            min_length: self.count("minLength"),
            pattern,
            max_items: self.count("maxItems"),
            min_items: self.count("minItems"),
            unique_items: self.bool("uniqueItems"),
            max_properties: self.count("maxProperties"),
            min_properties: self.count("minProperties"),
            required: self.strings("required"),
            all_of: self.schemas("allOf", depth),
            any_of: self.schemas("anyOf", depth),
            one_of: self.schemas("oneOf", depth),
            not,
        }
    }
}
